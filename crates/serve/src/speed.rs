//! How fast a deployment serves: prefill bound by the tensor cores, decode
//! by the memory's bandwidth (every step reads the GPU's weights, the
//! routed experts a step's tokens touch and every sequence's keys and
//! values), tensor parallelism's two all-reduces a layer, and the fixed
//! costs a step pays whatever its bytes: the engine's step, and each
//! layer's kernels. Under steady load every finished sequence is replaced
//! by a new request whose prompt rides in the decode steps in chunks: the
//! mean time per output token and the output rate pay for those prefills,
//! the decode step alone does not. The constants are few; each says whether
//! it is derived or calibrated, and the published runs it is held to are in
//! `tests/measured/decode-speed.json` (`tests/decode_speed.rs`).

use crate::kv_cache::{self, KvCacheDtype};
use crate::options::ServeLayout;
use crate::weights::WeightFormat;
use vram_shared::gpu::{Generation, GpuPreset};
use vram_shared::model::architecture::Architecture;

/// The fraction of the memory's datasheet bandwidth a decode step streams
/// dense weights and the KV cache at: published batch-1 runs of 16-bit
/// 7–8B models on one A100 read their weights at 67–72 % of it (gpt-fast's
/// printed GB/s, LMDeploy's static benchmark).
pub const DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.7;

/// The fraction of the datasheet bandwidth a mixture's routed experts are
/// read at (the fused or grouped MoE GEMM: one small GEMM an expert, the
/// tokens gathered and scattered around it). Calibrated, not derived:
/// DeepSeek-R1 on 8 × H200 at 64 requests (InferenceX, SGLang 0.5.7) and
/// gpt-oss-120b on 8 × H100 at 64 (InferenceX, vLLM) read their experts at
/// about half the bandwidth, where 0.7 comes out 20–25 % fast.
pub const MOE_BANDWIDTH_EFFICIENCY: f64 = 0.5;

/// The same for MXFP4 experts on a GPU without FP8 tensor cores (an A100),
/// where the kernels unpack the 4-bit values in the GEMM's inner loop.
/// Calibrated on one run alone: gpt-oss-120b on one A100 at one request,
/// 88–90 tokens/s (two users in vllm-project/vllm#22331).
pub const MXFP4_DEQUANT_BANDWIDTH_EFFICIENCY: f64 = 0.2;

/// The fraction of the tensor peak a prefill's GEMMs and attention reach.
pub const PREFILL_EFFICIENCY: f64 = 0.5;

/// The fraction of the tensor peak a decode step's GEMMs reach once the
/// batch makes them compute-bound.
pub const DECODE_COMPUTE_EFFICIENCY: f64 = 0.5;

/// A decode step's fixed cost beyond its layers, seconds: the scheduler,
/// the CUDA graph's launch, the sampler and the hand-back of the tokens.
/// Calibrated: 0.3 ms, within vLLM's and SGLang's own figures for a step's
/// CPU side with CUDA graphs (a few hundred µs); the batch-1 dense runs of
/// the fixture leave no room for more.
pub const STEP_SECONDS: f64 = 300e-6;

/// Every layer's fixed cost, seconds: its 8–10 kernels (norms, QKV, rotary,
/// attention, output, MLP) each take a few µs however few bytes they read.
/// Calibrated: 10 µs, which the batch-1 dense runs bear (Llama 3.1 8B on an
/// A100 within 5 %).
pub const LAYER_SECONDS: f64 = 10e-6;

/// A mixture-of-experts layer's fixed cost beyond [`LAYER_SECONDS`],
/// seconds: the router, top-k, the tokens' sort by expert
/// (`moe_align_block_size`), the gate-up and down grouped GEMMs, the
/// activation and the weighted sum, each a kernel of its own. Calibrated:
/// 40 µs, from gpt-oss-120b on 8 × H100 at 4 requests (3.72 ms a token)
/// and Qwen3-30B-A3B on an A100 at one (9.7 ms).
pub const MOE_LAYER_SECONDS: f64 = 40e-6;

/// A latent-attention layer's fixed cost beyond [`LAYER_SECONDS`],
/// seconds: the query's and the latent's down-projections and norms, the
/// absorbed up-projections before and after attention. Calibrated: 20 µs,
/// from DeepSeek-R1 on 8 × H200 at 8 requests (12.8 ms a token).
pub const MLA_LAYER_SECONDS: f64 = 20e-6;

/// The time one all-reduce or pipeline hand-over costs beyond its bytes,
/// seconds, on two GPUs: a decode step's messages are a few kilobytes, and
/// their time is latency, 5 µs assumed, and 2 µs more for every further
/// GPU of the ring ([`collective_latency_seconds`]), which brings the
/// published TP 4 and TP 8 runs within their bound. NCCL's own cost model
/// of its low-latency ring (NVIDIA/nccl `src/graph/tuning.cc` at 5067397:
/// 6.6 µs and 0.6 µs a step of the ring's 2 (n − 1) over NVLink, the LL
/// protocol) gives 7.8, 10.2 and 15 µs at 2, 4 and 8 GPUs, against these
/// 5, 9 and 17.
pub const COLLECTIVE_LATENCY_SECONDS: f64 = 5e-6;

/// One all-reduce's latency when the TP group spans nodes, seconds: NCCL
/// over InfiniBand with no custom all-reduce. Calibrated, not derived:
/// DeepSeek-R1 at TP 16 on two nodes of H100s at one request takes 23.2 ms
/// a token under SGLang and 33 ms under vLLM (tenstorrent/tt-inference-server#356,
/// sgl-project/sglang#3656), 122 all-reduces a token, each about 170 µs.
pub const INTER_NODE_LATENCY_SECONDS: f64 = 170e-6;

/// The latency one all-reduce over `gpus` GPUs costs, seconds.
pub fn collective_latency_seconds(gpus: u32) -> f64 {
    COLLECTIVE_LATENCY_SECONDS + 2e-6 * f64::from(gpus.saturating_sub(2))
}

/// The latency of a bulk all-reduce over `gpus` GPUs of a node, seconds:
/// NCCL's Simple protocol on its ring, 8.4 µs and 3.4 µs a step of the
/// ring's 2 (n − 1) over NVLink (NCCL's cost model, `tuning.cc`,
/// `baseLatencies` and `hwLatencies`): 56 µs at 8 GPUs, which it pays to
/// move its bytes at the link's whole bandwidth.
pub fn bulk_latency_seconds(gpus: u32) -> f64 {
    8.4e-6 + 3.4e-6 * 2.0 * f64::from(gpus.saturating_sub(1))
}

/// The bus bandwidth a small all-reduce reaches within a node, GB/s. A
/// decode step's message (a few kB to a few MB) goes by NCCL's LL
/// protocol, whose 8-byte stores carry 4 bytes of data and a 4-byte flag:
/// NCCL's cost model (`tuning.cc`) gives its ring half the ring's bandwidth,
/// here half the link, and at most a ceiling measured on one node
/// (`llMaxBws`): 39 GB/s before Ampere, 87.7 on Ampere and Ada, 141 on
/// Hopper, 282 on Blackwell (by compute capability, as NCCL indexes it).
/// AMD's and Ascend's libraries are given half the link. On an A100 that
/// is 29 % of NVLink's 300 GB/s, on an H100 31 % of 450: a 1.6 MB message
/// over 8 A100s takes 49 µs, not the 26 µs the link's whole bandwidth
/// would give. The engines' own all-reduce kernels for these sizes land
/// near it: SGLang's on 8 H100s takes 16.7 µs at 256 kB and 33.8 µs at
/// 1 MB, vLLM's 24.1 and 45.0 (sgl-project/sglang#2904); this model 20.3
/// and 30.0.
pub fn low_latency_bus_gb_per_s(gpu: &GpuPreset, link_gb_per_s: f64) -> f64 {
    let half = link_gb_per_s * 0.5;
    let ceiling = match gpu.generation {
        Generation::Volta | Generation::Turing => 39.0,
        Generation::Ampere | Generation::Ada => 87.7,
        Generation::Hopper => 141.0,
        Generation::Blackwell => 282.0,
        Generation::Cdna | Generation::Ascend => f64::INFINITY,
    };
    half.min(ceiling)
}

/// The expected number of distinct experts `tokens` tokens touch when each
/// picks `top_k` of `experts`: `E × (1 − (1 − k ÷ E)^tokens)` (each expert
/// is missed by a token with probability `1 − k ÷ E`, routing taken as
/// uniform). One token touches `k`; many touch nearly all `E`.
pub fn experts_touched(experts: u32, top_k: u32, tokens: f64) -> f64 {
    let e = f64::from(experts.max(1));
    let k = f64::from(top_k.min(experts)) / e;
    e * (1.0 - (1.0 - k).powf(tokens.max(0.0)))
}

/// A decode step's fixed cost on one stage of `layers` layers, seconds:
/// every layer's [`LAYER_SECONDS`], a mixture's layers'
/// [`MOE_LAYER_SECONDS`], latent attention's [`MLA_LAYER_SECONDS`].
pub fn layers_fixed_seconds(arch: &Architecture, layers: f64) -> f64 {
    let share = layers / f64::from(arch.layers.max(1));
    let moe_layers = f64::from(arch.layers - arch.dense_layer_count()) * share;
    let mla = match arch.mla.is_latent() {
        true => MLA_LAYER_SECONDS,
        false => 0.0,
    };
    layers * (LAYER_SECONDS + mla) + moe_layers * MOE_LAYER_SECONDS
}

/// What the speed needs to know.
#[derive(Debug, Clone, Copy)]
pub struct SpeedInput<'a> {
    /// The model.
    pub arch: &'a Architecture,
    /// The GPU.
    pub gpu: &'a GpuPreset,
    /// A 16-bit tensor peak typed instead of the GPU's, TFLOP/s.
    pub tflops: Option<f64>,
    /// Bandwidth per GPU within a node, GB/s each way.
    pub nvlink_gb_per_s: f64,
    /// Bandwidth per GPU between nodes, GB/s each way.
    pub network_gb_per_s: f64,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// The layout.
    pub layout: ServeLayout,
    /// The weights' format.
    pub weights: WeightFormat,
    /// The weights on the GPU, bytes.
    pub weights_bytes: f64,
    /// The KV cache's type.
    pub kv_dtype: KvCacheDtype,
    /// A request's prompt, tokens.
    pub prompt_len: u32,
    /// A request's response, tokens.
    pub response_len: u32,
    /// Sequences decoded at once on a replica.
    pub concurrency: u32,
    /// The price of a GPU-hour.
    pub price: Option<f64>,
}

/// What bounds a decode step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Reading the weights and the KV cache.
    Memory,
    /// The tensor cores.
    Compute,
}

/// A deployment's speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServeSpeed {
    /// Time to the first token of one prompt alone, seconds.
    pub ttft_seconds: f64,
    /// Prompt tokens a second one replica prefills, saturated.
    pub prefill_tokens_per_second: f64,
    /// Time per output token at the concurrency, seconds: a decode step
    /// through every stage, without a prefill beside it (what a run's
    /// median inter-token latency measures while fewer than one step in two
    /// carries a prompt).
    pub tpot_seconds: f64,
    /// The mean time per output token a sequence sees in steady state,
    /// seconds: [`Self::tpot_seconds`] and its share of the prefills of the
    /// requests that arrive while it decodes (what a run's mean TPOT, end
    /// to end less the first token over the tokens after it, measures).
    pub mean_tpot_seconds: f64,
    /// Output tokens a second of one replica at the concurrency, in steady
    /// state: the decode steps and every arriving request's prefill.
    pub decode_tokens_per_second: f64,
    /// The same per GPU.
    pub decode_tokens_per_second_per_gpu: f64,
    /// Output tokens a second each sequence sees while it decodes
    /// (1 ÷ [`Self::mean_tpot_seconds`]).
    pub tokens_per_second_per_sequence: f64,
    /// A decode step's weight bytes read on the GPU.
    pub weights_read_bytes: f64,
    /// A decode step's KV bytes read on the GPU.
    pub kv_read_bytes: f64,
    /// What bounds decode.
    pub bound: Bound,
    /// The price of a million output tokens, in the price's currency.
    pub cost_per_million_tokens: Option<f64>,
}

/// The tensor peak the GEMMs run at, TFLOP/s: FP8 checkpoints on FP8
/// tensor cores at the FP8 peak, the rest at the 16-bit one (INT4 and NF4
/// kernels dequantise to 16 bits).
fn peak_tflops(input: &SpeedInput) -> f64 {
    let sixteen = input.tflops.unwrap_or(input.gpu.tflops_16bit);
    let fp8_gemm = matches!(
        input.weights,
        WeightFormat::Fp8 | WeightFormat::Fp8Block | WeightFormat::Nvfp4
    );
    match fp8_gemm && input.gpu.tflops_fp8 > 0.0 {
        true => sixteen * input.gpu.tflops_fp8 / input.gpu.tflops_16bit,
        false => sixteen,
    }
}

/// One all-reduce of `bytes` over `tp` GPUs, seconds: the ring's
/// 2 (TP − 1) ÷ TP of the bytes. Across nodes, at the network's bandwidth
/// after [`INTER_NODE_LATENCY_SECONDS`]. Within a node, the faster of
/// NCCL's two ways (as its tuner picks): the low-latency one,
/// [`collective_latency_seconds`] and the bytes at
/// [`low_latency_bus_gb_per_s`], which a decode step's messages take; or
/// the bulk one, [`bulk_latency_seconds`] and the bytes at the link's full
/// bandwidth, which a prefill's take.
fn all_reduce_seconds(input: &SpeedInput, bytes: f64) -> f64 {
    let tp = f64::from(input.layout.tp);
    if input.layout.tp <= 1 {
        return 0.0;
    }
    let ring = 2.0 * (tp - 1.0) / tp * bytes;
    if input.layout.tp > input.gpus_per_node {
        return INTER_NODE_LATENCY_SECONDS + ring / (input.network_gb_per_s.max(1e-9) * 1e9);
    }
    let link = input.nvlink_gb_per_s.max(1e-9);
    let small = low_latency_bus_gb_per_s(input.gpu, link);
    let low_latency = collective_latency_seconds(input.layout.tp) + ring / (small * 1e9);
    let bulk = bulk_latency_seconds(input.layout.tp) + ring / (link * 1e9);
    low_latency.min(bulk)
}

/// The routed experts' bytes on the GPU and the share of them a step of
/// `tokens` tokens over the experts' group touches:
/// [`experts_touched`] ÷ E, `1 − (1 − k ÷ E)^tokens`.
fn expert_bytes_touched(input: &SpeedInput, tokens: f64) -> (f64, f64) {
    let arch = input.arch;
    if !arch.moe.is_moe() {
        return (0.0, 0.0);
    }
    let per = match input.weights {
        WeightFormat::Bf16 => 2.0,
        format => format.bytes_per_weight(arch),
    };
    let split = match input.layout.ep {
        0 | 1 => input.layout.tp,
        ep => ep,
    };
    let stage = f64::from(arch.layers.div_ceil(input.layout.pp.max(1))) / f64::from(arch.layers);
    let bytes = arch.routed_expert_params() as f64 * per / f64::from(split.max(1)) * stage;
    let touched = experts_touched(arch.moe.experts, arch.moe.top_k, tokens);
    (bytes, touched / f64::from(arch.moe.experts.max(1)))
}

/// The bandwidth efficiency the routed experts are read at: MXFP4 on a GPU
/// without FP8 tensor cores at [`MXFP4_DEQUANT_BANDWIDTH_EFFICIENCY`], the
/// rest at [`MOE_BANDWIDTH_EFFICIENCY`].
fn expert_efficiency(input: &SpeedInput) -> f64 {
    match input.weights == WeightFormat::Mxfp4 && input.gpu.tflops_fp8 <= 0.0 {
        true => MXFP4_DEQUANT_BANDWIDTH_EFFICIENCY,
        false => MOE_BANDWIDTH_EFFICIENCY,
    }
}

/// Bytes one sequence's keys and values at `context` tokens take on the
/// GPU over the stage's layers: the full layers' whole context, a window's
/// at most its window, a linear layer's state.
fn kv_bytes_at(input: &SpeedInput, context: u32) -> f64 {
    let arch = input.arch;
    let tp = input.layout.tp;
    let per_token = kv_cache::attention_bytes_per_token(arch, tp, input.kv_dtype.bytes(2)) as f64;
    let state = kv_cache::linear_state_bytes(arch, tp, 2) as f64;
    let layers = arch
        .layers
        .div_ceil(input.layout.pp.max(1))
        .min(arch.layers);
    (0..layers)
        .map(|i| match () {
            _ if arch.is_linear_layer(i) => state,
            _ if arch.local.window > 0 && arch.local.is_local_layer(i) => {
                per_token * f64::from(context.min(arch.local.window))
            }
            _ => per_token * f64::from(context),
        })
        .sum()
}

/// Attention's FLOPs for one new token at `context` on the GPU over the
/// stage: `4 × heads ÷ TP × head_dim × context` a layer (scores and values).
fn attention_flops(input: &SpeedInput, context: f64) -> f64 {
    let arch = input.arch;
    let heads = f64::from(arch.heads) / f64::from(input.layout.tp.max(1));
    let layers = f64::from(arch.layers.div_ceil(input.layout.pp.max(1)));
    4.0 * heads * arch.head_dim() as f64 * context * layers
}

/// One decode step's parts on the most loaded stage, seconds, for the
/// step's `batch` sequences and, beside them, `prefill` prompt tokens of a
/// request being prefilled whose first `prefix` tokens are already cached.
#[derive(Debug, Clone, Copy)]
struct StepParts {
    /// The dense weights, the KV cache and the routed experts read.
    memory: f64,
    /// The GEMMs and attention.
    compute: f64,
    /// The all-reduces.
    comm: f64,
    /// The dense weights read, bytes.
    weights_read: f64,
    /// The keys and values read, bytes.
    kv_read: f64,
}

impl StepParts {
    /// The step's time on its stage beyond the fixed costs: reading and
    /// computing overlap, the all-reduces do not.
    fn seconds(&self) -> f64 {
        self.memory.max(self.compute) + self.comm
    }
}

/// The parts of a step of `batch` decoding sequences on one stage with
/// `prefill` prompt tokens beside them, the prompt's first `prefix` tokens
/// already in the cache (see [`StepParts`]).
fn step_parts(input: &SpeedInput, batch: f64, prefill: f64, prefix: f64) -> StepParts {
    let arch = input.arch;
    let ServeLayout { pp, ep, .. } = input.layout;
    let stage = Stage::of(input);
    let (tp_f, hbm, peak, layers) = (stage.tp_f, stage.hbm, stage.peak, stage.layers);
    let (h, active_flops) = (stage.h, stage.active_flops);
    let context = input.prompt_len + input.response_len / 2;
    let data = match ep {
        0 | 1 => 1.0,
        ep => f64::from(ep) / tp_f,
    };
    let (experts, touched) = expert_bytes_touched(input, (batch + prefill) * data);
    // The input embedding is looked up, a row a token, not read whole
    // (a tied one is read whole as the output head).
    let embedding = match arch.tied_embeddings || pp > 1 {
        true => 0.0,
        false => arch.param_breakdown().embeddings as f64 * 2.0 / tp_f,
    };
    let dense_read = input.weights_bytes - embedding - experts;
    let experts_read = experts * touched;
    // The prompt's chunk attends to what of it is cached already.
    let prefix_kv = match prefill > 0.0 {
        true => kv_bytes_at(input, prefix as u32),
        false => 0.0,
    };
    let kv_read = batch * kv_bytes_at(input, context) + prefix_kv;
    let memory = (dense_read + kv_read) / (hbm * DECODE_BANDWIDTH_EFFICIENCY)
        + experts_read / (hbm * expert_efficiency(input));
    let decode_flops = batch * (active_flops + attention_flops(input, f64::from(context)));
    let prefill_flops = prefill * (active_flops + attention_flops(input, prefix + prefill / 2.0));
    let compute = decode_flops / (peak * DECODE_COMPUTE_EFFICIENCY)
        + prefill_flops / (peak * PREFILL_EFFICIENCY);
    let comm = 2.0 * layers * all_reduce_seconds(input, (batch + prefill) * h * 2.0);
    StepParts {
        memory,
        compute,
        comm,
        weights_read: dense_read + experts_read,
        kv_read,
    }
}

/// The prompt tokens one step carries at most: the engines' chunked-prefill
/// budget, vLLM's default `max_num_batched_tokens`
/// ([`crate::deployment::default_batch`]: 8,192 on a GPU of 70 GiB or more
/// that is not an A100, else 2,048). SGLang's `chunked_prefill_size` is
/// 8,192 on an 80 GB card ([`crate::sglang::default_chunk_and_graph_batch`]),
/// TensorRT-LLM's `max_num_tokens` 8,192 (its `BuildConfig`).
fn prefill_chunk_tokens(gpu: &GpuPreset) -> u32 {
    let bytes = u64::from(gpu.memory_mib) << 20;
    crate::deployment::default_batch(bytes, gpu.id.starts_with("a100")).0
}

/// The time one request's prefill adds to the steps that carry it, on the
/// most loaded stage, seconds: its prompt in chunks of
/// [`prefill_chunk_tokens`], each riding in a step beside the `batch`
/// decoding sequences, and costing what that step takes beyond a step
/// without it: nothing while the chunk's GEMMs fit in the time the step
/// spends reading its weights anyway, its FLOPs at [`PREFILL_EFFICIENCY`]
/// beyond that, and its tokens' share of the all-reduces.
///
/// vLLM's V1 scheduler (`v1/core/sched/scheduler.py`: chunked prefill
/// always on, the running requests' tokens scheduled first, then waiting
/// prompts in what is left of `max_num_batched_tokens`, a long one cut to
/// fit) and TensorRT-LLM's in-flight batching (context and generation
/// requests in one forward, up to `max_num_tokens`) put prefill and decode
/// in the same step so. SGLang by default runs a prefill as a step of its
/// own (`server_args.py`: `enable_mixed_chunk` false), which costs a little
/// more than this: the weights read and the step's fixed costs again.
fn prefill_seconds(input: &SpeedInput, batch: f64, decode: &StepParts) -> f64 {
    let prompt = input.prompt_len.max(1);
    let chunk = prefill_chunk_tokens(input.gpu).max(1);
    (0..prompt.div_ceil(chunk))
        .map(|i| {
            let prefix = i * chunk;
            let tokens = (prompt - prefix).min(chunk);
            let step = step_parts(input, batch, f64::from(tokens), f64::from(prefix));
            (step.seconds() - decode.seconds()).max(0.0)
        })
        .sum()
}

/// A pipeline stage on one GPU, what every speed term starts from.
struct Stage {
    /// TP and PP, as numbers.
    tp_f: f64,
    pp_f: f64,
    /// The GPU's memory bandwidth, bytes/s.
    hbm: f64,
    /// The tensor peak for the weights' format, FLOP/s.
    peak: f64,
    /// Layers on a stage.
    layers: f64,
    /// The hidden width.
    h: f64,
    /// The active parameters' FLOPs a token on one GPU (2 a parameter).
    active_flops: f64,
}

impl Stage {
    fn of(input: &SpeedInput) -> Stage {
        let arch = input.arch;
        let ServeLayout { tp, pp, .. } = input.layout;
        let (tp_f, pp_f) = (f64::from(tp.max(1)), f64::from(pp.max(1)));
        Stage {
            tp_f,
            pp_f,
            hbm: input.gpu.hbm_gb_per_s * 1e9,
            peak: peak_tflops(input) * 1e12,
            layers: f64::from(arch.layers.div_ceil(pp.max(1))),
            h: f64::from(arch.hidden),
            active_flops: 2.0 * arch.active_param_count() as f64 / (tp_f * pp_f),
        }
    }
}

/// The deployment's speed.
pub fn estimate(input: &SpeedInput) -> ServeSpeed {
    let arch = input.arch;
    let Stage {
        tp_f,
        pp_f,
        hbm,
        peak,
        layers,
        h,
        active_flops,
    } = Stage::of(input);

    // Prefill: one prompt through each stage.
    let prompt = f64::from(input.prompt_len.max(1));
    let prefill_flops = active_flops * prompt + attention_flops(input, prompt / 2.0) * prompt;
    let prefill_compute = prefill_flops / (peak * PREFILL_EFFICIENCY);
    let prefill_memory = input.weights_bytes / (hbm * DECODE_BANDWIDTH_EFFICIENCY);
    let prefill_comm = 2.0 * layers * all_reduce_seconds(input, prompt * h * 2.0);
    let prefill_stage = prefill_compute.max(prefill_memory) + prefill_comm;
    let ttft = prefill_stage * pp_f + (pp_f - 1.0) * COLLECTIVE_LATENCY_SECONDS;

    // Decode: the concurrency split into PP micro-batches, each a step
    // through its stage.
    let concurrency = f64::from(input.concurrency.max(1));
    let batch = concurrency / pp_f;
    let decode = step_parts(input, batch, 0.0, 0.0);
    let bound = match decode.compute > decode.memory {
        true => Bound::Compute,
        false => Bound::Memory,
    };
    let stage = decode.seconds() + layers_fixed_seconds(arch, layers);
    let tpot = stage * pp_f + (pp_f - 1.0) * COLLECTIVE_LATENCY_SECONDS + STEP_SECONDS;

    // Steady state: every sequence that finishes is replaced by a new
    // request, so `concurrency ÷ response` requests arrive a step, each
    // prefilled in the steps it rides in. A sequence decoding its response
    // shares its steps with the other sequences' arrivals, `concurrency − 1`
    // of them in its response's time; the replica's output rate pays for
    // every prefill.
    let response = f64::from(input.response_len.max(1));
    let prefill = prefill_seconds(input, batch, &decode);
    let mean_tpot = tpot + (concurrency - 1.0) * prefill / response;
    let decode_rate = concurrency / (tpot + concurrency * prefill / response);
    let gpus = tp_f * pp_f;
    ServeSpeed {
        ttft_seconds: ttft,
        prefill_tokens_per_second: prompt / prefill_stage,
        tpot_seconds: tpot,
        mean_tpot_seconds: mean_tpot,
        decode_tokens_per_second: decode_rate,
        decode_tokens_per_second_per_gpu: decode_rate / gpus,
        tokens_per_second_per_sequence: 1.0 / mean_tpot,
        weights_read_bytes: decode.weights_read,
        kv_read_bytes: decode.kv_read,
        bound,
        cost_per_million_tokens: input
            .price
            .map(|price| price * gpus / (decode_rate * 3600.0) * 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// One token touches its top-k experts; a batch the expected union,
    /// which approaches all of them: gpt-oss-120b's 4 of 128 at 64 tokens
    /// touch 111 (the 111 of 128 AMD's InferenceX change counted).
    #[wasm_bindgen_test(unsupported = test)]
    fn experts_touched_grows_from_top_k_to_all() {
        assert!((experts_touched(128, 4, 1.0) - 4.0).abs() < 1e-9);
        let at_64 = experts_touched(128, 4, 64.0);
        assert!((110.0..113.0).contains(&at_64), "{at_64}");
        assert!(experts_touched(256, 8, 4096.0) > 255.9);
        assert_eq!(experts_touched(8, 2, 0.0), 0.0);
    }

    /// Llama 3.1 70B in 16 bits over `tp` A100s at `concurrency`, prompts
    /// of `prompt` tokens and responses of `response`.
    fn llama_70b_on_a100s(tp: u32, concurrency: u32, prompt: u32, response: u32) -> ServeSpeed {
        let arch = model_preset("llama3.1-70b").unwrap().architecture;
        let gpu = vram_shared::gpu::gpu_preset("a100-80gb").unwrap();
        estimate(&SpeedInput {
            arch: &arch,
            gpu,
            tflops: None,
            nvlink_gb_per_s: gpu.nvlink_gb_per_s,
            network_gb_per_s: gpu.network_gb_per_s,
            gpus_per_node: 8,
            layout: ServeLayout { tp, pp: 1, ep: 1 },
            weights: WeightFormat::Bf16,
            weights_bytes: arch.param_count() as f64 * 2.0 / f64::from(tp),
            kv_dtype: KvCacheDtype::Auto,
            prompt_len: prompt,
            response_len: response,
            concurrency,
            price: None,
        })
    }

    /// A small all-reduce moves its bytes by NCCL's LL protocol, at 87.7
    /// GB/s on Ampere (half of an H800's 200 GB/s link is less than
    /// Hopper's 141); a large one by the bulk protocol at the link's whole
    /// bandwidth, after its longer latency.
    #[wasm_bindgen_test(unsupported = test)]
    fn all_reduces_take_the_faster_protocol() {
        let a100 = vram_shared::gpu::gpu_preset("a100-80gb").unwrap();
        assert_eq!(low_latency_bus_gb_per_s(a100, 300.0), 87.7);
        let h800 = vram_shared::gpu::gpu_preset("h800").unwrap();
        assert_eq!(low_latency_bus_gb_per_s(h800, 200.0), 100.0);
        assert!((bulk_latency_seconds(8) - 56e-6).abs() < 1e-12);
        let arch = model_preset("llama3.1-70b").unwrap().architecture;
        let input = SpeedInput {
            arch: &arch,
            gpu: a100,
            tflops: None,
            nvlink_gb_per_s: 300.0,
            network_gb_per_s: 25.0,
            gpus_per_node: 8,
            layout: ServeLayout {
                tp: 8,
                pp: 1,
                ep: 1,
            },
            weights: WeightFormat::Bf16,
            weights_bytes: 17.6e9,
            kv_dtype: KvCacheDtype::Auto,
            prompt_len: 1,
            response_len: 1,
            concurrency: 1,
            price: None,
        };
        // 100 tokens of 8,192 16-bit values: 1.6 MB, 17 µs and 1.75 × its
        // bytes at 87.7 GB/s.
        let small = all_reduce_seconds(&input, 1.6e6);
        assert!(
            (small - (17e-6 + 1.75 * 1.6e6 / 87.7e9)).abs() < 1e-12,
            "{small}"
        );
        // 8,192 tokens' 134 MB: 56 µs and the bytes at 300 GB/s.
        let large = all_reduce_seconds(&input, 134e6);
        assert!(
            (large - (56e-6 + 1.75 * 134e6 / 300e9)).abs() < 1e-12,
            "{large}"
        );
    }

    /// At one request no other prefill rides in its steps: the mean is the
    /// step. Under load the mean adds the arriving prompts' share, the
    /// output rate pays for every prefill, and 8,000-token prompts cost
    /// more than 1,000-token ones.
    #[wasm_bindgen_test(unsupported = test)]
    fn arriving_prefills_slow_the_mean_not_the_step() {
        let alone = llama_70b_on_a100s(8, 1, 1000, 500);
        assert_eq!(alone.mean_tpot_seconds, alone.tpot_seconds);
        assert!(alone.decode_tokens_per_second < 1.0 / alone.tpot_seconds);
        let short = llama_70b_on_a100s(8, 64, 1000, 500);
        let long = llama_70b_on_a100s(8, 64, 8000, 500);
        for speed in [short, long] {
            assert!(speed.mean_tpot_seconds > speed.tpot_seconds);
            assert!(speed.decode_tokens_per_second < 64.0 / speed.mean_tpot_seconds);
            let per_sequence = speed.tokens_per_second_per_sequence;
            assert!((per_sequence * speed.mean_tpot_seconds - 1.0).abs() < 1e-12);
        }
        let share = |s: ServeSpeed| s.mean_tpot_seconds - s.tpot_seconds;
        assert!(share(long) > 6.0 * share(short), "{long:?} {short:?}");
    }

    /// The fixed costs: a dense layer's 10 µs; DeepSeek-V3's 58 MoE layers
    /// add 40 µs each and its 61 latent-attention layers 20 µs each.
    #[wasm_bindgen_test(unsupported = test)]
    fn layers_fixed_costs_count_each_layer_kind() {
        let llama = model_preset("llama3.1-8b").unwrap().architecture;
        assert!((layers_fixed_seconds(&llama, 32.0) - 320e-6).abs() < 1e-12);
        let deepseek = model_preset("deepseek-v3").unwrap().architecture;
        let expected = 61.0 * 30e-6 + 58.0 * 40e-6;
        let fixed = layers_fixed_seconds(&deepseek, 61.0);
        assert!((fixed - expected).abs() < 1e-9, "{fixed}");
    }
}
