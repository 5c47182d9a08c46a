//! A deployment evaluated whole: every figure `job=serve` shows, for the
//! chosen engine, on the most loaded GPU of a replica: the weights, the
//! engine's budget and what it keeps back, the KV cache's pages, blocks and
//! tokens, the concurrency it holds, the longest `max_model_len` that fits,
//! and the speed of prefill and decode.
//!
//! The rules between the serving fields are checked here ([`ServeProblem`]);
//! the configuration names the field each concerns.

use crate::deployment::{self, Deployment};
use crate::kv_cache::{self, KvCacheDtype, KvLayout, LayerKind};
pub use crate::options::ServeLayout;
use crate::options::{Engine, Measured, ServeOptions};
use crate::speed::{self, ServeSpeed};
use crate::weights::WeightFormat;
use crate::{sglang, trtllm};
use vram_shared::gpu::GpuPreset;
use vram_shared::layout::{LayoutProblem, Splits};
use vram_shared::model::architecture::Architecture;
use vram_shared::units::MIB;

/// The memory CUDA reports below `nvidia-smi`'s total (the driver's
/// reserve): 79.19 GiB of an H100's 81,559 MiB in vLLM's start-up logs
/// (docs/upstream/vllm-v1-overheads.md), 469 MiB; assumed on every card.
pub const DRIVER_RESERVE_BYTES: u64 = 469 * MIB;

/// The hardware a deployment runs on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hardware {
    /// Each GPU's memory as `nvidia-smi` reports it, bytes.
    pub memory_bytes: u64,
    /// The GPU preset, if one was chosen (its bandwidths and peaks give the speed).
    pub gpu: Option<&'static GpuPreset>,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// Nodes.
    pub nodes: u32,
    /// The 16-bit tensor peak typed instead of the preset's, TFLOP/s.
    pub tflops: Option<f64>,
    /// Bandwidth per GPU within a node, GB/s each way.
    pub nvlink_gb_per_s: f64,
    /// Bandwidth per GPU between nodes, GB/s each way.
    pub network_gb_per_s: f64,
}

/// What is wrong with a deployment, before anything is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeProblem {
    /// TP does not divide the attention heads (vLLM's
    /// `verify_with_parallel_config`) or the GPUs of a stage (GPUs ÷ PP).
    Tp(LayoutProblem),
    /// PP does not divide the GPUs, or there are more stages than layers.
    Pp(LayoutProblem),
    /// Expert parallelism on a model without experts, or not TP × a
    /// divisor of the replicas.
    Ep,
    /// FP8 KV cache under TensorRT-LLM on a GPU without FP8.
    KvDtypeNoFp8,
    /// MXFP4 on a model without routed experts (only gpt-oss ships it).
    WeightsNeedExperts,
    /// The engine's port here does not cover this model's layers
    /// (SGLang's Mamba pool; TensorRT-LLM's windows and states).
    EngineModel,
    /// A KV budget larger than the GPU holds beside the weights.
    KvMemory {
        /// The most it may be, bytes: the GPU's memory less the weights on it.
        max_bytes: u64,
    },
    /// A block size that is not a power of two.
    Block,
    /// `max_num_batched_tokens` below `max_num_seqs` (vLLM's
    /// `SchedulerConfig` refuses it).
    BatchBelowSequences {
        /// Tokens a step schedules at most, given or the default.
        tokens: u32,
        /// Sequences a step runs at most, given or the default.
        seqs: u32,
    },
    /// `max_model_len` past the model's positions, which the engines refuse
    /// (vLLM unless `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`).
    MaxLenBeyondContext {
        /// The model's context, tokens.
        context: u32,
    },
}

/// A warning the engine itself would give, the deployment still evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeWarning {
    /// SGLang caps a request at what its pool holds
    /// (`max_req_input_len`), below `max_model_len`.
    Capped {
        /// The tokens a request may reach.
        tokens: u32,
    },
}

/// Why a deployment does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortfall {
    /// Nothing is left for the KV cache ("No available memory for the cache blocks").
    NoKvMemory,
    /// One sequence of `max_model_len` does not fit; the longest that does.
    MaxLen {
        /// The longest `max_model_len` the budget holds.
        fits: u32,
    },
    /// The concurrency asked for is more than the KV cache holds at
    /// `prompt_len + response_len` tokens each.
    Concurrency {
        /// The sequences it holds.
        holds: u64,
    },
}

/// A layer kind's page on the GPU and the layers that have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// The kind of cache.
    pub kind: LayerKind,
    /// Tokens a block holds.
    pub block_size: u32,
    /// Bytes of one block of one layer.
    pub page_bytes: u64,
    /// Layers of the stage with this page.
    pub layers: u32,
    /// A chunked local layer's chunk, tokens (Llama 4's
    /// `attention_chunk_size`); `None` for every other layer.
    pub chunk: Option<u32>,
}

/// Every figure of a deployment, on the most loaded GPU of a replica.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeReport {
    /// The engine.
    pub engine: Engine,
    /// The engine's version whose arithmetic is reproduced.
    pub engine_version: &'static str,
    /// The layout.
    pub layout: ServeLayout,
    /// Replicas of TP × PP GPUs.
    pub replicas: u32,
    /// `max_model_len`, tokens.
    pub max_model_len: u32,
    /// Tokens a step schedules at most (`max_num_batched_tokens`).
    pub batched_tokens: u32,
    /// Sequences a step runs at most (`max_num_seqs`).
    pub max_num_seqs: u32,
    /// Tokens per block.
    pub block_size: u32,
    /// The fraction of the GPU the engine takes (`gpu_memory_utilization`,
    /// `mem_fraction_static`, `free_gpu_memory_fraction`).
    pub gpu_util: f64,
    /// The GPU's memory as CUDA reports it, bytes.
    pub cuda_total_bytes: u64,
    /// The weights on the GPU, bytes.
    pub weights_bytes: f64,
    /// The activation peak the engine profiles, bytes.
    pub activation_peak_bytes: u64,
    /// Memory outside PyTorch's allocator, bytes.
    pub non_torch_bytes: u64,
    /// The CUDA graphs' pool, bytes.
    pub cuda_graph_bytes: u64,
    /// The KV cache's budget, bytes (`None`: nothing left).
    pub kv_budget_bytes: Option<u64>,
    /// Each layer kind's page.
    pub pages: Vec<Page>,
    /// Bytes one token's keys and values take over the stage's attention
    /// layers (states excluded).
    pub kv_bytes_per_token: u64,
    /// Blocks the budget holds.
    pub kv_blocks: u64,
    /// Tokens the cache holds, as the engine logs them.
    pub kv_tokens: u64,
    /// Sequences of `max_model_len` the cache holds at once.
    pub max_concurrency: f64,
    /// The longest `max_model_len` one sequence fits in.
    pub max_model_len_fits: u32,
    /// Sequences decoded at once (asked, or as many as fit).
    pub concurrency: u32,
    /// Sequences of `prompt_len + response_len` the cache holds at once.
    pub concurrency_holds: u64,
    /// What the engine takes of the GPU: weights, activations, non-torch,
    /// graphs and the KV budget, bytes.
    pub total_bytes: f64,
    /// Whether it runs.
    pub fits: bool,
    /// Why not, if not.
    pub shortfall: Option<Shortfall>,
    /// What the engine warns of.
    pub warnings: Vec<ServeWarning>,
    /// The speed, with a GPU whose bandwidths are known.
    pub speed: Option<ServeSpeed>,
    /// Which terms are the engine's own, measured (`ServeOptions::measured`).
    pub calibration: Option<Calibration>,
}

impl ServeReport {
    /// The vLLM release whose arithmetic made these figures (`None` under
    /// another engine).
    pub fn vllm_release(&self) -> Option<kv_cache::VllmRelease> {
        kv_cache::VllmRelease::ALL
            .into_iter()
            .find(|r| self.engine == Engine::Vllm && r.key() == self.engine_version)
    }

    /// GPUs in one replica.
    pub fn gpus_per_replica(&self) -> u32 {
        self.layout.tp * self.layout.pp
    }
}

/// The stage's layers of the most loaded GPU: the first ⌈layers ÷ PP⌉.
fn stage_layers(arch: &Architecture, pp: u32) -> core::ops::Range<u32> {
    0..arch.layers.div_ceil(pp.max(1)).min(arch.layers)
}

/// What TP cannot split of the weights, as vLLM's linear layers assert
/// (`vllm/distributed/utils.py`'s `divide`): the key/value heads, which TP
/// divides or, past their number, replicates (`QKVParallelLinear`: TP a
/// multiple of them), latent attention's one latent excepted; and each MLP's
/// intermediate width (`MergedColumnParallelLinear`), the routed experts'
/// only when they are not spread by expert parallelism (`FusedMoE`).
fn tp_weights_problem(arch: &Architecture, tp: u32, ep: u32) -> Option<LayoutProblem> {
    let tp = tp.max(1);
    let kv = arch.kv_heads;
    let kv_split = |d: u32| match d >= kv {
        true => d % kv == 0,
        false => kv % d == 0,
    };
    if !arch.mla.is_latent() && kv > 0 && !kv_split(tp) {
        let largest = (1..=tp).rev().find(|&d| kv_split(d)).unwrap_or(1);
        let splits = Splits::KvHeads(kv);
        return Some(LayoutProblem::DoesNotDivide { splits, largest });
    }
    let moe = &arch.moe;
    let dense = !moe.is_moe() || moe.dense_layers > 0;
    let widths = [
        dense.then_some(arch.ffn),
        (moe.is_moe() && moe.shared_experts > 0).then_some(moe.shared_ffn * moe.shared_experts),
        (moe.is_moe() && ep <= 1).then_some(moe.expert_ffn),
    ];
    widths
        .into_iter()
        .flatten()
        .find(|&width| width % tp != 0)
        .map(|width| LayoutProblem::does_not_divide(Splits::Ffn(width), tp))
}

/// The weights on the most loaded GPU of `layout` on `hardware`'s GPUs, bytes.
fn weights_bytes(
    arch: &Architecture,
    layout: ServeLayout,
    options: &ServeOptions,
    hardware: &Hardware,
) -> f64 {
    let ServeLayout { tp, pp, ep } = layout;
    // vLLM's kernels decide the layout of quantised experts; SGLang's and
    // TensorRT-LLM's are not modelled by GPU.
    let generation = match options.engine {
        Engine::Vllm => hardware.gpu.map(|g| g.generation),
        _ => None,
    };
    let deployment = Deployment {
        weights: options.weights,
        kv_dtype: options.kv_dtype,
        tp,
        pp,
        ep,
        block_size: 16,
        max_model_len: 0,
        batched_tokens: 0,
        generation,
    };
    deployment::weights_per_gpu(arch, &deployment)
}

/// Checks the deployment's rules.
pub fn check(
    arch: &Architecture,
    context: u32,
    hardware: &Hardware,
    layout: ServeLayout,
    options: &ServeOptions,
) -> Result<(), ServeProblem> {
    let ServeLayout { tp, pp, ep } = layout;
    let gpus = u64::from(hardware.gpus_per_node) * u64::from(hardware.nodes);
    // All GPUs as a layout counts them, at most u32::MAX.
    let all_gpus = u32::try_from(gpus).unwrap_or(u32::MAX);
    if pp > arch.layers {
        let layers = Splits::Layers(arch.layers);
        return Err(ServeProblem::Pp(LayoutProblem::does_not_divide(layers, pp)));
    }
    if gpus % u64::from(pp.max(1)) != 0 {
        let all = Splits::Gpus(all_gpus);
        return Err(ServeProblem::Pp(LayoutProblem::does_not_divide(all, pp)));
    }
    if arch.heads % tp.max(1) != 0 {
        let heads = Splits::Heads(arch.heads);
        return Err(ServeProblem::Tp(LayoutProblem::does_not_divide(heads, tp)));
    }
    if let Some(problem) = tp_weights_problem(arch, tp, ep) {
        return Err(ServeProblem::Tp(problem));
    }
    if (gpus / u64::from(pp.max(1))) % u64::from(tp.max(1)) != 0 {
        let stage = Splits::Gpus(all_gpus / pp.max(1));
        return Err(ServeProblem::Tp(LayoutProblem::does_not_divide(stage, tp)));
    }
    if ep > 1 {
        let replicas = gpus / (u64::from(tp) * u64::from(pp)).max(1);
        let data = u64::from(ep / tp.max(1));
        let experts = arch.moe.experts;
        if !arch.moe.is_moe()
            || ep % tp.max(1) != 0
            || replicas % data.max(1) != 0
            || experts % ep != 0
        {
            return Err(ServeProblem::Ep);
        }
    }
    // vLLM and SGLang keep an FP8 cache on any GPU (their Triton attention
    // casts it back on Ampere, Turing and Volta); TensorRT-LLM's FP8 cache
    // needs FP8 tensor cores (Ada, Hopper, Blackwell).
    let fp8 = hardware.gpu.is_none_or(|g| g.tflops_fp8 > 0.0);
    if options.kv_dtype == KvCacheDtype::Fp8 && options.engine == Engine::TrtLlm && !fp8 {
        return Err(ServeProblem::KvDtypeNoFp8);
    }
    if options.weights == WeightFormat::Mxfp4 && !arch.moe.is_moe() {
        return Err(ServeProblem::WeightsNeedExperts);
    }
    let covered = match options.engine {
        Engine::Vllm => true,
        Engine::Sglang => !arch.linear.is_some(),
        Engine::TrtLlm => !arch.linear.is_some() && arch.local.window == 0,
    };
    if !covered {
        return Err(ServeProblem::EngineModel);
    }
    if let Some(gb) = options.kv_memory_gb {
        // The cache sits beside the weights (vLLM allocates what
        // `--kv-cache-memory` asks, unchecked: past the GPU it fails with
        // CUDA out of memory); weights that do not fit at all are the
        // report's verdict, not this field's.
        let memory = hardware.memory_bytes as f64;
        let weights = weights_bytes(arch, layout, options, hardware);
        let room = match weights < memory {
            true => memory - weights,
            false => memory,
        };
        if gb * 1e9 > room {
            let max_bytes = room as u64;
            return Err(ServeProblem::KvMemory { max_bytes });
        }
    }
    if options.block.is_some_and(|b| !b.is_power_of_two()) {
        return Err(ServeProblem::Block);
    }
    if options.engine == Engine::Vllm
        && (options.batched_tokens.is_some() || options.max_num_seqs.is_some())
    {
        // vLLM's SchedulerConfig: "max_num_batched_tokens … must be greater
        // than or equal to max_num_seqs".
        let a100 = hardware.gpu.is_some_and(|g| g.id.starts_with("a100"));
        let (tokens, seqs) = deployment::default_batch(hardware.memory_bytes, a100);
        let tokens = options.batched_tokens.unwrap_or(tokens);
        let seqs = options.max_num_seqs.unwrap_or(seqs);
        if tokens < seqs {
            return Err(ServeProblem::BatchBelowSequences { tokens, seqs });
        }
    }
    // vLLM refuses a `max_model_len` past the model's positions
    // (`_get_and_verify_max_len`) unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1;
    // SGLang and TensorRT-LLM likewise refuse a context the model lacks.
    if options
        .max_len
        .is_some_and(|len| context > 0 && len > context)
    {
        return Err(ServeProblem::MaxLenBeyondContext { context });
    }
    Ok(())
}

/// The CUDA graphs' pool vLLM 0.20.0 estimates before sizing the KV cache
/// (`profile_cudagraph_memory`, `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`
/// on): the first capture's drop, then one graph's for each further capture
/// size of both modes (`FULL_AND_PIECEWISE`). Capture sizes 1, 2, 4, 8 to
/// 248 by 8, 256 up to `min(2 × max_num_seqs, 512, batched_tokens)` by 16.
/// A graph's cost is taken from vLLM 0.19.0's log of Llama 3.1 8B on one
/// H100 (first capture 260 MiB, 6 MiB a further graph, 0.84 GiB in all;
/// docs/upstream/vllm-v1-overheads.md), 6 MiB scaled by the stage's layers
/// over 32: an estimate, not vLLM's measurement.
pub fn cuda_graph_bytes(layers: u32, max_num_seqs: u32, batched_tokens: u32) -> u64 {
    let largest = (2 * max_num_seqs).min(512).min(batched_tokens);
    let sizes = [1u32, 2, 4]
        .into_iter()
        .chain((8..=248).step_by(8))
        .chain((256..=512).step_by(16))
        .filter(|&s| s <= largest)
        .count() as u64;
    let per_graph = 6 * MIB * u64::from(layers) / 32;
    let first = 260 * MIB;
    first + per_graph * 2 * sizes.saturating_sub(1)
}

/// Evaluates the deployment; the rules are checked first ([`check`]).
pub fn evaluate(
    arch: &Architecture,
    context: u32,
    hardware: &Hardware,
    layout: ServeLayout,
    options: &ServeOptions,
    price: Option<f64>,
) -> Result<ServeReport, ServeProblem> {
    check(arch, context, hardware, layout, options)?;
    let ServeLayout { tp, pp, .. } = layout;
    let gpus = hardware.gpus_per_node * hardware.nodes;
    let replicas = gpus / (tp * pp).max(1);
    let basis = Basis::of(arch, context, hardware, layout, options);
    let max_model_len = basis.max_model_len;
    let mut warnings = Vec::new();
    let figures = match options.engine {
        Engine::Vllm => vllm_figures(&basis),
        Engine::Sglang => sglang_figures(&basis),
        Engine::TrtLlm => trtllm_figures(&basis),
    };
    let max_model_len_fits = figures.cache.max_model_len_fits;
    let concurrency_holds = figures.cache.concurrency_holds;
    let capped = options.engine == Engine::Sglang && max_model_len_fits < max_model_len;
    if capped && figures.cache.kv_budget.is_some() {
        warnings.push(ServeWarning::Capped {
            tokens: max_model_len_fits,
        });
    }
    let shortfall = shortfall_of(
        figures.cache.kv_budget,
        max_model_len_fits,
        max_model_len,
        capped,
        options.concurrency,
        concurrency_holds,
    );
    let concurrency = options.concurrency.unwrap_or_else(|| {
        concurrency_holds
            .min(u64::from(figures.limits.max_num_seqs))
            .max(1)
            .try_into()
            .unwrap_or(u32::MAX)
    });
    let total_bytes = figures.total_bytes(options.engine, basis.weights_bytes);
    let speed = speed_of(&basis, hardware, layout, concurrency, price);
    let EngineFigures {
        engine_version,
        limits,
        reserved,
        cache,
    } = figures;
    Ok(ServeReport {
        engine: options.engine,
        engine_version,
        layout,
        replicas,
        max_model_len,
        batched_tokens: limits.batched_tokens,
        max_num_seqs: limits.max_num_seqs,
        block_size: limits.block_size,
        gpu_util: limits.gpu_util,
        cuda_total_bytes: basis.cuda_total,
        weights_bytes: basis.weights_bytes,
        activation_peak_bytes: reserved.activation_peak,
        non_torch_bytes: reserved.non_torch,
        cuda_graph_bytes: reserved.cuda_graphs,
        kv_budget_bytes: cache.kv_budget,
        pages: cache.pages,
        kv_bytes_per_token: basis.kv_bytes_per_token(),
        kv_blocks: cache.kv_blocks,
        kv_tokens: cache.kv_tokens,
        max_concurrency: cache.max_concurrency,
        max_model_len_fits,
        concurrency,
        concurrency_holds,
        total_bytes,
        fits: shortfall.is_none(),
        shortfall,
        warnings,
        speed,
        calibration: basis.calibration(),
    })
}

/// Which of a deployment's terms come from what an engine measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// The weights: measured at this layout, measured at another TP and
    /// shared out by this one, or the page's own.
    pub weights: Origin,
    /// The activation peak and non-torch memory: measured together.
    pub rest: bool,
    /// The CUDA graphs' pool.
    pub cuda_graphs: bool,
}

/// Where a term's bytes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Measured at this layout.
    Measured,
    /// Measured at another TP, shared out by this one.
    Scaled,
    /// The page's own arithmetic.
    Ours,
}

/// The speed of prefill and decode at `concurrency` sequences, with a GPU
/// preset (whose bandwidths and peaks it needs); `price` per GPU-hour.
fn speed_of(
    basis: &Basis,
    hardware: &Hardware,
    layout: ServeLayout,
    concurrency: u32,
    price: Option<f64>,
) -> Option<ServeSpeed> {
    let options = basis.options;
    hardware.gpu.map(|gpu| {
        speed::estimate(&speed::SpeedInput {
            arch: basis.arch,
            gpu,
            tflops: hardware.tflops,
            nvlink_gb_per_s: hardware.nvlink_gb_per_s,
            network_gb_per_s: hardware.network_gb_per_s,
            gpus_per_node: hardware.gpus_per_node,
            layout,
            weights: options.weights,
            weights_bytes: basis.weights_bytes,
            kv_dtype: options.kv_dtype,
            prompt_len: options.prompt_len,
            response_len: options.response_len,
            concurrency,
            price,
        })
    })
}

/// What every engine's figures are computed from: the deployment's settings
/// and what they give on the most loaded GPU of a replica.
struct Basis<'a> {
    arch: &'a Architecture,
    options: &'a ServeOptions,
    /// Tensor-parallel ranks.
    tp: u32,
    /// Pipeline stages.
    pp: u32,
    /// The stage's layers of the most loaded GPU.
    layers: core::ops::Range<u32>,
    /// How many layers that is.
    stage_count: u32,
    /// Whether the engine's profile is sampled (one stage: PP = 1).
    samples: bool,
    /// Bytes of one value in the KV cache.
    value_bytes: u64,
    /// The KV budget typed (`kv_memory_gb`), bytes.
    kv_given: Option<u64>,
    /// The GPU's memory as `nvidia-smi` reports it, MiB.
    gpu_mib: u64,
    /// The GPU's memory as CUDA reports it, bytes.
    cuda_total: u64,
    /// The GPU's streaming multiprocessors.
    sms: u32,
    /// The GPU's compute capability as vLLM compares it (80, 90, 100).
    sm_version: u32,
    /// The weights on the GPU, bytes.
    weights_bytes: f64,
    /// The weights on the GPU rounded up to whole bytes.
    weights: u64,
    /// `max_model_len`, tokens.
    max_model_len: u32,
    /// `prompt_len + response_len`, tokens.
    request: u32,
    /// vLLM's default `max_num_batched_tokens` on this GPU, tokens.
    default_tokens: u32,
    /// vLLM's default `max_num_seqs` on this GPU, sequences.
    default_seqs: u32,
}

impl<'a> Basis<'a> {
    /// The basis of a deployment whose rules hold.
    fn of(
        arch: &'a Architecture,
        context: u32,
        hardware: &Hardware,
        layout: ServeLayout,
        options: &'a ServeOptions,
    ) -> Basis<'a> {
        let ServeLayout { tp, pp, .. } = layout;
        let a100 = hardware.gpu.is_some_and(|g| g.id.starts_with("a100"));
        let max_model_len = options.max_len.unwrap_or(match context {
            0 => 8192,
            c => c,
        });
        let layers = stage_layers(arch, pp);
        let (default_tokens, default_seqs) = deployment::default_batch(hardware.memory_bytes, a100);
        let weights_bytes = match options.measured.filter(|m| m.pp == pp) {
            Some(Measured {
                weights: Some(w),
                tp: at,
                ..
            }) => w as f64 * f64::from(at) / f64::from(tp.max(1)),
            _ => weights_bytes(arch, layout, options, hardware),
        };
        Basis {
            arch,
            options,
            tp,
            pp,
            stage_count: layers.end - layers.start,
            layers,
            samples: pp == 1,
            value_bytes: options.kv_dtype.bytes(2),
            kv_given: options.kv_memory_gb.map(|gb| (gb * 1e9).round() as u64),
            gpu_mib: hardware.memory_bytes / MIB,
            cuda_total: hardware.memory_bytes.saturating_sub(DRIVER_RESERVE_BYTES),
            sms: hardware.gpu.map_or(132, |g| g.sms),
            sm_version: sm_version(hardware),
            weights_bytes,
            weights: weights_bytes.ceil() as u64,
            max_model_len,
            request: options.prompt_len.saturating_add(options.response_len),
            default_tokens,
            default_seqs,
        }
    }

    /// Bytes one token's keys and values take over the stage's attention
    /// layers (states excluded).
    fn kv_bytes_per_token(&self) -> u64 {
        self.layers
            .clone()
            .filter(|&i| !self.arch.is_linear_layer(i))
            .count() as u64
            * kv_cache::attention_bytes_per_token(self.arch, self.tp, self.value_bytes)
    }

    /// What vLLM and TensorRT-LLM keep back under `limits`: the activation
    /// peak they profile (sampled with one stage, none counted with PP), the
    /// memory outside PyTorch's allocator and `cuda_graphs` bytes of graphs.
    fn profiled(&self, limits: &Limits, cuda_graphs: u64) -> Reserved {
        let activation_peak = match self.samples {
            true => deployment::activation_peak_bytes(
                self.arch,
                self.tp,
                limits.batched_tokens,
                limits.max_num_seqs,
                self.sms,
            ),
            false => 0,
        };
        let non_torch = vram_shared::process::non_torch_bytes(self.tp, self.samples);
        // Measured at this layout: what is kept back beside the weights and
        // graphs, the non-torch share ours.
        let (activation_peak, non_torch) = match self.measured_here().and_then(|m| m.rest) {
            Some(rest) => (rest.saturating_sub(non_torch), non_torch.min(rest)),
            None => (activation_peak, non_torch),
        };
        Reserved {
            activation_peak,
            non_torch,
            cuda_graphs,
        }
    }

    /// What the engine measured, if at this layout.
    fn measured_here(&self) -> Option<Measured> {
        self.options
            .measured
            .filter(|m| m.tp == self.tp && m.pp == self.pp)
    }

    /// Which terms are measured.
    fn calibration(&self) -> Option<Calibration> {
        let measured = self.options.measured?;
        let here = self.measured_here();
        let weights = match (
            measured.weights,
            measured.pp == self.pp,
            measured.tp == self.tp,
        ) {
            (Some(_), true, true) => Origin::Measured,
            (Some(_), true, false) => Origin::Scaled,
            _ => Origin::Ours,
        };
        Some(Calibration {
            weights,
            rest: here.is_some_and(|m| m.rest.is_some()),
            cuda_graphs: here.is_some_and(|m| m.cuda_graphs.is_some()) && self.options.cuda_graphs,
        })
    }
}

/// The compute capability vLLM's defaults look at: 100 on Blackwell, 90 on
/// Hopper (or without a preset), 80 otherwise.
fn sm_version(hardware: &Hardware) -> u32 {
    match hardware.gpu.map(|g| g.generation) {
        Some(vram_shared::gpu::Generation::Blackwell) => 100,
        Some(vram_shared::gpu::Generation::Hopper) | None => 90,
        Some(_) => 80,
    }
}

/// What one engine keeps on the GPU and what its KV cache holds.
struct EngineFigures {
    /// The engine's version whose arithmetic is reproduced.
    engine_version: &'static str,
    /// What the engine schedules.
    limits: Limits,
    /// What it keeps back beside the weights and the KV cache.
    reserved: Reserved,
    /// Its KV cache.
    cache: Cache,
}

/// What an engine schedules, as given or by its defaults.
struct Limits {
    /// The fraction of the GPU the engine takes.
    gpu_util: f64,
    /// Tokens a step schedules at most.
    batched_tokens: u32,
    /// Sequences a step runs at most.
    max_num_seqs: u32,
    /// Tokens per block.
    block_size: u32,
}

/// What an engine keeps back beside the weights and the KV cache, bytes.
struct Reserved {
    /// The activation peak the engine profiles.
    activation_peak: u64,
    /// Memory outside PyTorch's allocator.
    non_torch: u64,
    /// The CUDA graphs' pool.
    cuda_graphs: u64,
}

impl Reserved {
    /// What SGLang keeps back is `1 − mem_fraction_static` of the free
    /// memory before loading; its parts are not measured apart.
    const UNMEASURED: Reserved = Reserved {
        activation_peak: 0,
        non_torch: 0,
        cuda_graphs: 0,
    };
}

/// An engine's KV cache: its budget, pages and what they hold.
struct Cache {
    /// The KV cache's budget, bytes (`None`: nothing left).
    kv_budget: Option<u64>,
    /// Each layer kind's page.
    pages: Vec<Page>,
    /// Blocks the budget holds.
    kv_blocks: u64,
    /// Tokens the cache holds.
    kv_tokens: u64,
    /// Sequences of `max_model_len` the cache holds at once.
    max_concurrency: f64,
    /// The longest `max_model_len` one sequence fits in, tokens.
    max_model_len_fits: u32,
    /// Sequences of `prompt_len + response_len` the cache holds at once.
    concurrency_holds: u64,
}

impl EngineFigures {
    /// What the engine takes of the GPU, bytes: the weights
    /// (`weights_bytes`), activation peak, non-torch memory, CUDA graphs and
    /// the KV budget; SGLang's weights and pool only.
    fn total_bytes(&self, engine: Engine, weights_bytes: f64) -> f64 {
        let kv_held = self.cache.kv_budget.unwrap_or(0) as f64;
        let reserved = &self.reserved;
        match engine {
            Engine::Sglang => weights_bytes + kv_held,
            _ => {
                weights_bytes
                    + reserved.activation_peak as f64
                    + reserved.non_torch as f64
                    + reserved.cuda_graphs as f64
                    + kv_held
            }
        }
    }
}

/// vLLM's figures: its KV budget (`gpu_memory_utilization` of CUDA's total
/// less the weights, activation peak, non-torch memory and CUDA graphs) and
/// what its KV layout's blocks hold.
fn vllm_figures(basis: &Basis) -> EngineFigures {
    let (arch, options) = (basis.arch, basis.options);
    let release = options.vllm_release;
    let limits = Limits {
        gpu_util: options
            .gpu_util
            .unwrap_or(release.default_gpu_memory_utilization()),
        batched_tokens: options.batched_tokens.unwrap_or(basis.default_tokens),
        max_num_seqs: options.max_num_seqs.unwrap_or(basis.default_seqs),
        block_size: options.block.unwrap_or_else(|| {
            kv_cache::default_block_size(arch, basis.value_bytes, basis.sm_version, release)
        }),
    };
    let batched_tokens = limits.batched_tokens;
    let measured_graphs = basis.measured_here().and_then(|m| m.cuda_graphs);
    let cuda_graphs = match (options.cuda_graphs, measured_graphs) {
        (true, Some(graphs)) => graphs,
        (true, None) => cuda_graph_bytes(basis.stage_count, limits.max_num_seqs, batched_tokens),
        (false, _) => 0,
    };
    let reserved = basis.profiled(&limits, cuda_graphs);
    let held = kv_cache::HeldBeside {
        weights: basis.weights,
        activation_peak: reserved.activation_peak,
        non_torch: reserved.non_torch,
        cuda_graphs,
    };
    let kv_budget = basis
        .kv_given
        .or_else(|| kv_cache::available_kv_bytes(release, basis.cuda_total, limits.gpu_util, held));
    let specs = kv_cache::layer_specs(
        arch,
        basis.layers.clone(),
        basis.tp,
        basis.value_bytes,
        2,
        limits.block_size,
        basis.max_model_len,
        release,
    );
    let kv = KvLayout::of(&specs);
    let available = kv_budget.unwrap_or(0);
    let kv_blocks = kv.num_blocks(available);
    let per_request = kv.blocks_per_sequence(
        basis.request.min(basis.max_model_len),
        batched_tokens,
        release,
    );
    let cache = Cache {
        kv_budget,
        pages: pages_of(&kv, &specs),
        kv_blocks,
        kv_tokens: kv.kv_tokens(kv_blocks, basis.max_model_len, batched_tokens, release),
        max_concurrency: kv.max_concurrency(
            kv_blocks,
            basis.max_model_len,
            batched_tokens,
            release,
        ),
        max_model_len_fits: kv.max_model_len_fits(
            available,
            basis.max_model_len,
            batched_tokens,
            release,
        ),
        concurrency_holds: match per_request {
            0 => u64::from(limits.max_num_seqs),
            n => kv_blocks / n,
        },
    };
    EngineFigures {
        engine_version: release.key(),
        limits,
        reserved,
        cache,
    }
}

/// SGLang's figures: its pool (`mem_fraction_static` of the free memory,
/// less what loading the weights took) in tokens, split into a full and a
/// sliding-window pool where the model has windows, and the requests it runs.
fn sglang_figures(basis: &Basis) -> EngineFigures {
    let (arch, options) = (basis.arch, basis.options);
    let latent = arch.mla.is_latent();
    let gpu_util = options.gpu_util.unwrap_or_else(|| {
        sglang::default_mem_fraction_static(basis.gpu_mib, basis.tp, basis.pp, latent)
    });
    let (chunk, graph_batch) = sglang::default_chunk_and_graph_batch(basis.gpu_mib, basis.tp);
    let block_size = options.block.unwrap_or(1);
    let cell = sglang::cell_bytes(arch, basis.stage_count, basis.tp, basis.value_bytes);
    // Free at its start (`init_torch_distributed`'s measure): what other
    // processes hold then, an RL trainer's beside it, is not.
    let free_before = basis.cuda_total.saturating_sub(options.held_at_start_bytes);
    let free_after = free_before.saturating_sub(basis.weights);
    let kv_budget = basis
        .kv_given
        .or_else(|| sglang::pool_bytes(free_before, free_after, gpu_util));
    let pool = kv_budget.unwrap_or(0);
    let page = u64::from(block_size);
    let window_layers = basis
        .layers
        .clone()
        .filter(|&i| arch.local.is_local_layer(i) && sglang::has_window_pool(arch))
        .count() as u32;
    let full_layers = basis.stage_count - window_layers;
    let per_layer = kv_cache::attention_bytes_per_token(arch, basis.tp, basis.value_bytes);
    let kv_tokens = match window_layers {
        0 => sglang::max_total_tokens(pool, cell, page),
        w => sglang::window_pools(per_layer, full_layers, w, pool, page, 0.8).0,
    };
    let mut pages = Vec::new();
    for (kind, count) in [
        (LayerKind::Full, full_layers),
        (LayerKind::SlidingWindow(arch.local.window), window_layers),
    ] {
        if count > 0 {
            pages.push(Page {
                kind,
                block_size,
                page_bytes: per_layer * page,
                layers: count,
                chunk: None,
            });
        }
    }
    let max_num_seqs = options
        .max_num_seqs
        .unwrap_or(sglang::max_running_requests(kv_tokens, basis.max_model_len) as u32);
    let request = basis.request;
    let _ = graph_batch;
    let cache = Cache {
        kv_budget,
        pages,
        kv_blocks: kv_tokens / page.max(1),
        kv_tokens,
        max_concurrency: kv_tokens as f64 / f64::from(basis.max_model_len.max(1)),
        max_model_len_fits: kv_tokens.min(u64::from(basis.max_model_len)) as u32,
        concurrency_holds: (kv_tokens / u64::from(request.max(1))).min(u64::from(max_num_seqs)),
    };
    EngineFigures {
        engine_version: sglang::SGLANG_VERSION,
        limits: Limits {
            gpu_util,
            batched_tokens: options.batched_tokens.unwrap_or(chunk),
            max_num_seqs,
            block_size,
        },
        reserved: Reserved::UNMEASURED,
        cache,
    }
}

/// TensorRT-LLM's figures: its KV budget (`free_gpu_memory_fraction` of
/// what the weights, activation peak and non-torch memory leave), in whole
/// blocks of every layer's tokens.
fn trtllm_figures(basis: &Basis) -> EngineFigures {
    let (arch, options) = (basis.arch, basis.options);
    let limits = Limits {
        gpu_util: options.gpu_util.unwrap_or(trtllm::FREE_GPU_MEMORY_FRACTION),
        batched_tokens: options.batched_tokens.unwrap_or(8192),
        max_num_seqs: options
            .max_num_seqs
            .unwrap_or(trtllm::MAX_BATCH_SIZE as u32),
        block_size: options.block.unwrap_or(trtllm::TOKENS_PER_BLOCK as u32),
    };
    let reserved = basis.profiled(&limits, 0);
    let per_token = trtllm::bytes_per_token(arch, basis.stage_count, basis.tp, basis.value_bytes);
    let peak = basis.weights + reserved.activation_peak + reserved.non_torch;
    let kv_budget = basis.kv_given.or_else(|| {
        // Of the memory free after its profiling run: what other
        // processes hold (an RL trainer's beside it) is not.
        let total = basis.cuda_total.saturating_sub(options.held_at_start_bytes);
        trtllm::kv_budget(total, peak, 0, limits.gpu_util)
    });
    let budget = kv_budget.unwrap_or(0);
    let block = u64::from(limits.block_size.max(1));
    let kv_blocks = budget / per_token.max(1) / block;
    let kv_tokens = kv_blocks * block;
    let pages = vec![Page {
        kind: LayerKind::Full,
        block_size: limits.block_size,
        page_bytes: per_token / u64::from(basis.stage_count.max(1)) * block,
        layers: basis.stage_count,
        chunk: None,
    }];
    let per_sequence = u64::from(basis.max_model_len).div_ceil(block).max(1);
    let cache = Cache {
        kv_budget,
        pages,
        kv_blocks,
        kv_tokens,
        max_concurrency: kv_blocks as f64 / per_sequence as f64,
        max_model_len_fits: (kv_tokens.min(u64::from(basis.max_model_len))) as u32,
        concurrency_holds: trtllm::concurrency(
            kv_blocks,
            u64::from(options.prompt_len),
            u64::from(options.response_len),
        ),
    };
    EngineFigures {
        engine_version: trtllm::TRTLLM_VERSION,
        limits,
        reserved,
        cache,
    }
}

/// Why the deployment does not run, if it does not: no KV budget, one
/// sequence of `max_model_len` too long (unless SGLang caps it), or more
/// sequences asked for than the cache holds.
fn shortfall_of(
    kv_budget: Option<u64>,
    max_model_len_fits: u32,
    max_model_len: u32,
    capped: bool,
    asked: Option<u32>,
    concurrency_holds: u64,
) -> Option<Shortfall> {
    match kv_budget {
        None => Some(Shortfall::NoKvMemory),
        Some(_) if max_model_len_fits < max_model_len && !capped => Some(Shortfall::MaxLen {
            fits: max_model_len_fits,
        }),
        Some(_) => match asked {
            Some(asked) if u64::from(asked) > concurrency_holds => Some(Shortfall::Concurrency {
                holds: concurrency_holds,
            }),
            _ => None,
        },
    }
}

/// vLLM's pages by layer kind: each kind's spec (its unified page in a
/// hybrid layout) and the stage's layers of it.
fn pages_of(kv: &KvLayout, specs: &[kv_cache::LayerSpec]) -> Vec<Page> {
    let mut pages: Vec<Page> = Vec::new();
    let unified = match kv {
        KvLayout::Hybrid { page_bytes, .. } => Some(*page_bytes),
        _ => None,
    };
    let block_of = |kind: LayerKind, own: u32| match kv {
        KvLayout::Hybrid { groups, .. } => groups
            .iter()
            .find(|g| g.spec.kind == kind)
            .map_or(own, |g| g.spec.block_size),
        _ => own,
    };
    for spec in specs {
        let chunk = spec.attention_chunk;
        match pages
            .iter_mut()
            .find(|p| p.kind == spec.kind && p.chunk == chunk)
        {
            Some(page) => page.layers += 1,
            None => pages.push(Page {
                kind: spec.kind,
                block_size: block_of(spec.kind, spec.block_size),
                page_bytes: unified.unwrap_or(spec.page_bytes),
                layers: 1,
                chunk,
            }),
        }
    }
    pages
}

#[cfg(test)]
mod tests;
