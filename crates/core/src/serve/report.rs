//! A deployment evaluated whole: every figure `job=serve` shows, for the
//! chosen engine, on the most loaded GPU of a replica: the weights, the
//! engine's budget and what it keeps back, the KV cache's pages, blocks and
//! tokens, the concurrency it holds, the longest `max_model_len` that fits,
//! and the speed of prefill and decode.
//!
//! The rules between the serving fields are checked here ([`ServeProblem`]);
//! the configuration names the field each concerns.

use crate::gpu::GpuPreset;
use crate::model::architecture::Architecture;
use crate::serve::deployment::{self, Deployment};
use crate::serve::kv_cache::{self, KvCacheDtype, KvLayout, LayerKind};
pub use crate::serve::options::ServeLayout;
use crate::serve::options::{Engine, ServeOptions};
use crate::serve::speed::{self, ServeSpeed};
use crate::serve::weights::WeightFormat;
use crate::serve::{sglang, trtllm};

const MIB: u64 = 1 << 20;

/// The memory CUDA reports below `nvidia-smi`'s total (the driver's
/// reserve): 79.19 GiB of an H100's 81,559 MiB in vLLM's start-up logs
/// (docs/upstream/vllm-v1-overheads.md), 469 MiB; assumed on every card.
pub const DRIVER_RESERVE_BYTES: u64 = 469 * MIB;

/// vLLM's default `gpu_memory_utilization`.
pub const VLLM_GPU_MEMORY_UTILIZATION: f64 = 0.9;

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
    /// `verify_with_parallel_config`).
    TpHeads,
    /// PP does not divide the GPUs.
    PpGpus,
    /// TP does not divide the GPUs of a stage (GPUs ÷ PP).
    LayoutGpus,
    /// More stages than layers.
    PpLayers,
    /// Expert parallelism on a model without experts, or not TP × a
    /// divisor of the replicas.
    Ep,
    /// FP8 KV cache on a GPU without FP8.
    KvDtypeNoFp8,
    /// MXFP4 on a model without routed experts (only gpt-oss ships it).
    WeightsNeedExperts,
    /// The engine's port here does not cover this model's layers
    /// (SGLang's Mamba pool; TensorRT-LLM's windows and states).
    EngineModel,
    /// A KV budget larger than the GPU.
    KvMemory,
    /// A block size that is not a power of two.
    Block,
}

/// A warning the engine itself would give, the deployment still evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeWarning {
    /// `max_model_len` above the model's context (vLLM refuses it unless
    /// `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`).
    BeyondContext {
        /// The model's context, tokens.
        context: u32,
    },
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
}

impl ServeReport {
    /// GPUs in one replica.
    pub fn gpus_per_replica(&self) -> u32 {
        self.layout.tp * self.layout.pp
    }
}

/// The stage's layers of the most loaded GPU: the first ⌈layers ÷ PP⌉.
fn stage_layers(arch: &Architecture, pp: u32) -> core::ops::Range<u32> {
    0..arch.layers.div_ceil(pp.max(1)).min(arch.layers)
}

/// Checks the deployment's rules.
pub fn check(
    arch: &Architecture,
    hardware: &Hardware,
    layout: ServeLayout,
    options: &ServeOptions,
) -> Result<(), ServeProblem> {
    let ServeLayout { tp, pp, ep } = layout;
    let gpus = u64::from(hardware.gpus_per_node) * u64::from(hardware.nodes);
    if pp > arch.layers {
        return Err(ServeProblem::PpLayers);
    }
    if gpus % u64::from(pp.max(1)) != 0 {
        return Err(ServeProblem::PpGpus);
    }
    if arch.heads % tp.max(1) != 0 {
        return Err(ServeProblem::TpHeads);
    }
    if (gpus / u64::from(pp.max(1))) % u64::from(tp.max(1)) != 0 {
        return Err(ServeProblem::LayoutGpus);
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
    let fp8 = hardware.gpu.is_none_or(|g| g.tflops_fp8 > 0.0);
    if options.kv_dtype == KvCacheDtype::Fp8 && !fp8 {
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
        if gb * 1e9 > hardware.memory_bytes as f64 {
            return Err(ServeProblem::KvMemory);
        }
    }
    if options.block.is_some_and(|b| !b.is_power_of_two()) {
        return Err(ServeProblem::Block);
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
    check(arch, hardware, layout, options)?;
    let ServeLayout { tp, pp, ep } = layout;
    let gpus = hardware.gpus_per_node * hardware.nodes;
    let replicas = gpus / (tp * pp).max(1);
    let gpu_mib = hardware.memory_bytes / MIB;
    let cuda_total = hardware.memory_bytes.saturating_sub(DRIVER_RESERVE_BYTES);
    let a100 = hardware.gpu.is_some_and(|g| g.id.starts_with("a100"));
    let sms = hardware.gpu.map_or(132, |g| g.sms);
    let sm_version = match hardware.gpu.map(|g| g.generation) {
        Some(crate::gpu::Generation::Blackwell) => 100,
        Some(crate::gpu::Generation::Hopper) | None => 90,
        Some(_) => 80,
    };
    let max_model_len = options.max_len.unwrap_or(match context {
        0 => 8192,
        c => c,
    });
    let mut warnings = Vec::new();
    if context > 0 && max_model_len > context {
        warnings.push(ServeWarning::BeyondContext { context });
    }
    let value_bytes = options.kv_dtype.bytes(2);
    let layers = stage_layers(arch, pp);
    let stage_count = layers.end - layers.start;
    let samples = pp == 1;
    let kv_given = options.kv_memory_gb.map(|gb| (gb * 1e9).round() as u64);
    let (default_tokens, default_seqs) = deployment::default_batch(hardware.memory_bytes, a100);
    let engine_version;
    let gpu_util;
    let batched_tokens;
    let max_num_seqs;
    let block_size;
    let activation_peak;
    let non_torch;
    let cuda_graphs;
    let kv_budget;
    let mut pages = Vec::new();
    let kv_bytes_per_token: u64 = layers.clone().filter(|&i| !arch.is_linear_layer(i)).count()
        as u64
        * kv_cache::attention_bytes_per_token(arch, tp, value_bytes);
    let weights_bytes = deployment::weights_per_gpu(
        arch,
        &Deployment {
            weights: options.weights,
            kv_dtype: options.kv_dtype,
            tp,
            pp,
            ep,
            block_size: 16,
            max_model_len,
            batched_tokens: default_tokens,
        },
    );
    let weights = weights_bytes.ceil() as u64;
    let kv_blocks;
    let kv_tokens;
    let max_concurrency;
    let max_model_len_fits;
    let request = options.prompt_len.saturating_add(options.response_len);
    let concurrency_holds;
    match options.engine {
        Engine::Vllm => {
            engine_version = kv_cache::VLLM_VERSIONS;
            gpu_util = options.gpu_util.unwrap_or(VLLM_GPU_MEMORY_UTILIZATION);
            batched_tokens = options.batched_tokens.unwrap_or(default_tokens);
            max_num_seqs = default_seqs;
            block_size = options
                .block
                .unwrap_or_else(|| kv_cache::default_block_size(arch, value_bytes, sm_version));
            activation_peak = match samples {
                true => {
                    deployment::activation_peak_bytes(arch, tp, batched_tokens, max_num_seqs, sms)
                }
                false => 0,
            };
            non_torch = deployment::non_torch_bytes(tp, samples);
            cuda_graphs = match options.cuda_graphs {
                true => cuda_graph_bytes(stage_count, max_num_seqs, batched_tokens),
                false => 0,
            };
            kv_budget = match kv_given {
                Some(bytes) => Some(bytes),
                None => kv_cache::available_kv_bytes(
                    cuda_total,
                    gpu_util,
                    weights,
                    activation_peak,
                    non_torch,
                    cuda_graphs,
                ),
            };
            let specs = kv_cache::layer_specs(
                arch,
                layers.clone(),
                tp,
                value_bytes,
                2,
                block_size,
                max_model_len,
            );
            let kv = KvLayout::of(&specs);
            pages = pages_of(&kv, &specs);
            let available = kv_budget.unwrap_or(0);
            kv_blocks = kv.num_blocks(available);
            kv_tokens = kv.kv_tokens(kv_blocks);
            max_concurrency = kv.max_concurrency(kv_blocks, max_model_len, batched_tokens);
            max_model_len_fits = kv.max_model_len_fits(available, max_model_len, batched_tokens);
            let per_request = kv.blocks_per_sequence(request.min(max_model_len), batched_tokens);
            concurrency_holds = match per_request {
                0 => u64::from(max_num_seqs),
                n => kv_blocks / n,
            };
        }
        Engine::Sglang => {
            engine_version = sglang::SGLANG_VERSION;
            let latent = arch.mla.is_latent();
            gpu_util = options
                .gpu_util
                .unwrap_or_else(|| sglang::default_mem_fraction_static(gpu_mib, tp, pp, latent));
            let (chunk, graph_batch) = sglang::default_chunk_and_graph_batch(gpu_mib, tp);
            batched_tokens = options.batched_tokens.unwrap_or(chunk);
            block_size = options.block.unwrap_or(1);
            // What SGLang keeps back is `1 − mem_fraction_static` of the
            // free memory before loading; its parts are not measured apart.
            activation_peak = 0;
            non_torch = 0;
            cuda_graphs = 0;
            let cell = sglang::cell_bytes(arch, stage_count, tp, value_bytes);
            let free_before = cuda_total;
            let free_after = free_before.saturating_sub(weights);
            kv_budget = kv_given.or_else(|| sglang::pool_bytes(free_before, free_after, gpu_util));
            let pool = kv_budget.unwrap_or(0);
            let page = u64::from(block_size);
            let window_layers = layers
                .clone()
                .filter(|&i| arch.local.is_local_layer(i) && sglang::has_window_pool(arch))
                .count() as u32;
            let full_layers = stage_count - window_layers;
            kv_tokens = match window_layers {
                0 => sglang::max_total_tokens(pool, cell, page),
                w => {
                    let token = kv_cache::attention_bytes_per_token(arch, tp, value_bytes);
                    sglang::window_pools(token, full_layers, w, pool, page, 0.8).0
                }
            };
            kv_blocks = kv_tokens / page.max(1);
            let per_layer = kv_cache::attention_bytes_per_token(arch, tp, value_bytes);
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
                    });
                }
            }
            max_num_seqs = sglang::max_running_requests(kv_tokens, max_model_len) as u32;
            max_concurrency = kv_tokens as f64 / f64::from(max_model_len.max(1));
            max_model_len_fits = kv_tokens.min(u64::from(max_model_len)) as u32;
            concurrency_holds =
                (kv_tokens / u64::from(request.max(1))).min(u64::from(max_num_seqs));
            let _ = graph_batch;
        }
        Engine::TrtLlm => {
            engine_version = trtllm::TRTLLM_VERSION;
            gpu_util = options.gpu_util.unwrap_or(trtllm::FREE_GPU_MEMORY_FRACTION);
            batched_tokens = options.batched_tokens.unwrap_or(8192);
            max_num_seqs = trtllm::MAX_BATCH_SIZE as u32;
            block_size = options.block.unwrap_or(trtllm::TOKENS_PER_BLOCK as u32);
            activation_peak = match samples {
                true => {
                    deployment::activation_peak_bytes(arch, tp, batched_tokens, max_num_seqs, sms)
                }
                false => 0,
            };
            non_torch = deployment::non_torch_bytes(tp, samples);
            cuda_graphs = 0;
            let per_token = trtllm::bytes_per_token(arch, stage_count, tp, value_bytes);
            let peak = weights + activation_peak + non_torch;
            kv_budget = kv_given.or_else(|| trtllm::kv_budget(cuda_total, peak, 0, gpu_util));
            let budget = kv_budget.unwrap_or(0);
            let block = u64::from(block_size.max(1));
            kv_blocks = budget / per_token.max(1) / block;
            kv_tokens = kv_blocks * block;
            pages.push(Page {
                kind: LayerKind::Full,
                block_size,
                page_bytes: per_token / u64::from(stage_count.max(1)) * block,
                layers: stage_count,
            });
            let per_sequence = u64::from(max_model_len).div_ceil(block).max(1);
            max_concurrency = kv_blocks as f64 / per_sequence as f64;
            max_model_len_fits = (kv_tokens.min(u64::from(max_model_len))) as u32;
            concurrency_holds = trtllm::concurrency(
                kv_blocks,
                u64::from(options.prompt_len),
                u64::from(options.response_len),
            );
        }
    }
    let capped = options.engine == Engine::Sglang && max_model_len_fits < max_model_len;
    if capped && kv_budget.is_some() {
        warnings.push(ServeWarning::Capped {
            tokens: max_model_len_fits,
        });
    }
    let shortfall = match kv_budget {
        None => Some(Shortfall::NoKvMemory),
        Some(_) if max_model_len_fits < max_model_len && !capped => Some(Shortfall::MaxLen {
            fits: max_model_len_fits,
        }),
        Some(_) => match options.concurrency {
            Some(asked) if u64::from(asked) > concurrency_holds => Some(Shortfall::Concurrency {
                holds: concurrency_holds,
            }),
            _ => None,
        },
    };
    let concurrency = options.concurrency.unwrap_or_else(|| {
        concurrency_holds
            .min(u64::from(max_num_seqs))
            .max(1)
            .try_into()
            .unwrap_or(u32::MAX)
    });
    let kv_held = kv_budget.unwrap_or(0) as f64;
    let total_bytes = match options.engine {
        Engine::Sglang => weights_bytes + kv_held,
        _ => {
            weights_bytes + activation_peak as f64 + non_torch as f64 + cuda_graphs as f64 + kv_held
        }
    };
    let speed = hardware.gpu.map(|gpu| {
        speed::estimate(&speed::SpeedInput {
            arch,
            gpu,
            tflops: hardware.tflops,
            nvlink_gb_per_s: hardware.nvlink_gb_per_s,
            network_gb_per_s: hardware.network_gb_per_s,
            gpus_per_node: hardware.gpus_per_node,
            layout,
            weights: options.weights,
            weights_bytes,
            kv_dtype: options.kv_dtype,
            prompt_len: options.prompt_len,
            response_len: options.response_len,
            concurrency,
            price,
        })
    });
    Ok(ServeReport {
        engine: options.engine,
        engine_version,
        layout,
        replicas,
        max_model_len,
        batched_tokens,
        max_num_seqs,
        block_size,
        gpu_util,
        cuda_total_bytes: cuda_total,
        weights_bytes,
        activation_peak_bytes: activation_peak,
        non_torch_bytes: non_torch,
        cuda_graph_bytes: cuda_graphs,
        kv_budget_bytes: kv_budget,
        pages,
        kv_bytes_per_token,
        kv_blocks,
        kv_tokens,
        max_concurrency,
        max_model_len_fits,
        concurrency,
        concurrency_holds,
        total_bytes,
        fits: shortfall.is_none(),
        shortfall,
        warnings,
        speed,
    })
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
        match pages.iter_mut().find(|p| p.kind == spec.kind) {
            Some(page) => page.layers += 1,
            None => pages.push(Page {
                kind: spec.kind,
                block_size: block_of(spec.kind, spec.block_size),
                page_bytes: unified.unwrap_or(spec.page_bytes),
                layers: 1,
            }),
        }
    }
    pages
}

#[cfg(test)]
mod tests;
