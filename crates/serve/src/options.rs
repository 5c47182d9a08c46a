//! What a user asks of a deployment: the engine, the weights' format, the
//! KV cache's type, the lengths and the engine's own knobs, each unset
//! where the engine's default applies.

use crate::kv_cache::{KvCacheDtype, VllmRelease};
use crate::weights::WeightFormat;

/// The inference engine whose arithmetic the figures reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// vLLM's v1 engine, at the release [`ServeOptions::vllm_release`] names.
    #[default]
    Vllm,
    /// SGLang ([`crate::sglang::SGLANG_VERSION`]).
    Sglang,
    /// TensorRT-LLM's PyTorch backend ([`crate::trtllm::TRTLLM_VERSION`]).
    TrtLlm,
}

impl Engine {
    /// Every engine, in the order the page offers them.
    pub const ALL: [Engine; 3] = [Engine::Vllm, Engine::Sglang, Engine::TrtLlm];

    /// The `engine` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Engine::Vllm => "vllm",
            Engine::Sglang => "sglang",
            Engine::TrtLlm => "trtllm",
        }
    }

    /// The engine's name.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Vllm => "vLLM",
            Engine::Sglang => "SGLang",
            Engine::TrtLlm => "TensorRT-LLM",
        }
    }
}

/// The weight formats the `weights` key names, in its order.
pub const WEIGHT_FORMATS: [WeightFormat; 8] = [
    WeightFormat::Bf16,
    WeightFormat::Fp8,
    WeightFormat::Fp8Block,
    WeightFormat::Int8,
    WeightFormat::Int4 { group: 128 },
    WeightFormat::Nf4,
    WeightFormat::Mxfp4,
    WeightFormat::Nvfp4,
];

impl WeightFormat {
    /// The `weights` key's value (AWQ's and GPTQ's INT4 in groups of 128).
    pub const fn key(self) -> &'static str {
        match self {
            WeightFormat::Bf16 => "bf16",
            WeightFormat::Fp8 => "fp8",
            WeightFormat::Fp8Block => "fp8-block",
            WeightFormat::Int8 => "int8",
            WeightFormat::Int4 { .. } => "int4",
            WeightFormat::Nf4 => "nf4",
            WeightFormat::Mxfp4 => "mxfp4",
            WeightFormat::Nvfp4 => "nvfp4",
        }
    }
}

impl KvCacheDtype {
    /// Both types, in the `kv_dtype` key's order.
    pub const ALL: [KvCacheDtype; 2] = [KvCacheDtype::Auto, KvCacheDtype::Fp8];

    /// The `kv_dtype` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            KvCacheDtype::Auto => "auto",
            KvCacheDtype::Fp8 => "fp8",
        }
    }
}

/// A deployment as the user asks for it; `None` where the engine decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServeOptions {
    /// The engine.
    pub engine: Engine,
    /// The checkpoint's weight format.
    pub weights: WeightFormat,
    /// The KV cache's element type.
    pub kv_dtype: KvCacheDtype,
    /// `max_model_len`, tokens; unset: the model's context (vLLM's default).
    pub max_len: Option<u32>,
    /// Sequences decoded at once; unset: as many as the KV cache and the
    /// engine's `max_num_seqs` hold at `prompt_len + response_len` tokens.
    pub concurrency: Option<u32>,
    /// A request's prompt, tokens.
    pub prompt_len: u32,
    /// A request's response, tokens.
    pub response_len: u32,
    /// The fraction of the GPU the engine may take (vLLM's
    /// `gpu_memory_utilization`, SGLang's `mem_fraction_static`,
    /// TensorRT-LLM's `free_gpu_memory_fraction`); unset: the engine's default.
    pub gpu_util: Option<f64>,
    /// The KV cache's bytes per GPU given directly, in GB (vLLM's
    /// `--kv-cache-memory-bytes`); unset: what the budget leaves.
    pub kv_memory_gb: Option<f64>,
    /// Tokens per KV block; unset: the engine's (vLLM's backend's, SGLang's
    /// page of 1, TensorRT-LLM's 32).
    pub block: Option<u32>,
    /// `max_num_batched_tokens` (SGLang's chunked prefill); unset: the engine's default.
    pub batched_tokens: Option<u32>,
    /// Sequences a step runs at most (vLLM's `--max-num-seqs`, SGLang's
    /// `--max-running-requests`, TensorRT-LLM's `max_batch_size`); unset:
    /// the engine's default for the GPU.
    pub max_num_seqs: Option<u32>,
    /// The vLLM release whose arithmetic and defaults apply (the newest
    /// unless a link says otherwise; a link from before the key means 0.20.0).
    pub vllm_release: VllmRelease,
    /// Whether the engine captures CUDA graphs (vLLM without
    /// `--enforce-eager`, SGLang without `--disable-cuda-graph`).
    pub cuda_graphs: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            engine: Engine::Vllm,
            weights: WeightFormat::Bf16,
            kv_dtype: KvCacheDtype::Auto,
            max_len: None,
            concurrency: None,
            prompt_len: 1024,
            response_len: 1024,
            gpu_util: None,
            kv_memory_gb: None,
            block: None,
            batched_tokens: None,
            max_num_seqs: None,
            vllm_release: VllmRelease::NEWEST,
            cuda_graphs: true,
        }
    }
}

/// How the model is split: tensor parallelism, pipeline stages, expert
/// parallelism (1 without).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLayout {
    /// Tensor-parallel GPUs.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Expert-parallel GPUs: 1, or TP × the data-parallel replicas sharing
    /// the experts (vLLM's `--enable-expert-parallel` with `--data-parallel-size`).
    pub ep: u32,
}
