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
    /// The deployment's own figures, measured at a layout (a start-up log
    /// read, issue 66): they replace the page's there.
    pub measured: Option<Measured>,
    /// Bytes other processes hold on each GPU when the engine starts: an
    /// RL trainer's beside a colocated rollout engine (its resident states
    /// and CUDA context); 0 for a deployment. SGLang and TensorRT-LLM size
    /// their caches from the memory free when they measure it, so this
    /// shrinks them; vLLM's fraction is of the whole GPU.
    pub held_at_start_bytes: u64,
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
            measured: None,
            held_at_start_bytes: 0,
        }
    }
}

/// What an engine measured on each GPU at start-up, in bytes, at the layout
/// it ran (`tp`, `pp`): the weights it loaded, the rest it kept back beside
/// them and the CUDA graphs (its activation peak and the memory outside
/// PyTorch's allocator together, as vLLM's budget subtracts them), and the
/// graphs' pool. The serving report takes them in place of its own at that
/// layout, and the weights shared out by TP at another TP.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Measured {
    /// The weights on a GPU, bytes.
    pub weights: Option<u64>,
    /// The activation peak and non-torch memory together, bytes.
    pub rest: Option<u64>,
    /// The CUDA graphs' pool, bytes.
    pub cuda_graphs: Option<u64>,
    /// The tensor-parallel size they were measured at.
    pub tp: u32,
    /// The pipeline stages they were measured at.
    pub pp: u32,
}

/// Why a measured figures' text cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeasuredError {
    /// A part is not `w`, `r` or `g` with GiB, nor `tp`/`pp` with a size.
    Part,
}

impl Measured {
    const GIB: f64 = (1u64 << 30) as f64;

    /// Reads the link's form, `w7.13,r1.6,g0.54,tp2,pp1`: the weights, the
    /// rest and the graphs in GiB (as the engines log them), the layout;
    /// any part may be absent (TP and PP 1 then).
    pub fn parse(text: &str) -> Result<Measured, MeasuredError> {
        let mut measured = Measured {
            tp: 1,
            pp: 1,
            ..Measured::default()
        };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let size = |digits: &str| {
                digits
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=65_536).contains(n))
                    .ok_or(MeasuredError::Part)
            };
            let gib = |digits: &str| {
                digits
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && (0.0..=10_000.0).contains(v))
                    .map(|v| (v * Self::GIB).round() as u64)
                    .ok_or(MeasuredError::Part)
            };
            if let Some(n) = part.strip_prefix("tp") {
                measured.tp = size(n)?;
            } else if let Some(n) = part.strip_prefix("pp") {
                measured.pp = size(n)?;
            } else if let Some(v) = part.strip_prefix('w') {
                measured.weights = Some(gib(v)?);
            } else if let Some(v) = part.strip_prefix('r') {
                measured.rest = Some(gib(v)?);
            } else if let Some(v) = part.strip_prefix('g') {
                measured.cuda_graphs = Some(gib(v)?);
            } else {
                return Err(MeasuredError::Part);
            }
        }
        Ok(measured)
    }

    /// The link's form (GiB to the hundredth of a GiB, as logged).
    pub fn text(&self) -> String {
        let gib = |b: u64| {
            let v = (b as f64 / Self::GIB * 100.0).round() / 100.0;
            vram_shared::decimal::shortest_decimal(v)
        };
        let mut parts = Vec::new();
        if let Some(w) = self.weights {
            parts.push(format!("w{}", gib(w)));
        }
        if let Some(r) = self.rest {
            parts.push(format!("r{}", gib(r)));
        }
        if let Some(g) = self.cuda_graphs {
            parts.push(format!("g{}", gib(g)));
        }
        parts.push(format!("tp{}", self.tp));
        parts.push(format!("pp{}", self.pp));
        parts.join(",")
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

#[cfg(test)]
mod measured_tests {
    use super::*;

    /// The link's form reads back to itself, each part optional, a part of
    /// another kind or beyond the limits refused.
    #[test]
    fn measured_figures_read_back_and_refuse_what_they_cannot_be() {
        let m = Measured::parse("w7.13, r1.6,g0.54,tp2").unwrap();
        assert_eq!((m.tp, m.pp), (2, 1));
        assert_eq!(m.weights, Some((7.13 * Measured::GIB).round() as u64));
        assert_eq!(m.text(), "w7.13,r1.6,g0.54,tp2,pp1");
        assert_eq!(Measured::parse(&m.text()), Ok(m));
        assert_eq!(Measured::parse("").map(|m| m.weights), Ok(None));
        for bad in ["x1", "w", "w-1", "wNaN", "w1e9", "tp0", "tp1.5", "g1,,q2"] {
            assert_eq!(Measured::parse(bad), Err(MeasuredError::Part), "{bad}");
        }
    }
}
