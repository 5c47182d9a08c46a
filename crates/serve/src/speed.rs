//! How fast a deployment serves: prefill bound by the tensor cores, decode
//! by the memory's bandwidth (every step reads the GPU's weights and every
//! sequence's keys and values), and tensor parallelism's two all-reduces a
//! layer. One stated efficiency each, held to published runs in the tests.

use crate::kv_cache::{self, KvCacheDtype};
use crate::options::ServeLayout;
use crate::weights::WeightFormat;
use vram_shared::gpu::GpuPreset;
use vram_shared::model::architecture::Architecture;

/// The fraction of the memory's datasheet bandwidth a decode step streams
/// at: published batch-1 runs of 16-bit 7–8B models on one A100 read
/// their weights at 67–72 % of it (gpt-fast's printed GB/s, LMDeploy's
/// static benchmark); the tests hold five published runs, one to eight
/// GPUs, to this one value.
pub const DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.7;

/// The fraction of the tensor peak a prefill's GEMMs and attention reach.
pub const PREFILL_EFFICIENCY: f64 = 0.5;

/// The fraction of the tensor peak a decode step's GEMMs reach once the
/// batch makes them compute-bound.
pub const DECODE_COMPUTE_EFFICIENCY: f64 = 0.5;

/// The time one all-reduce or pipeline hand-over costs beyond its bytes,
/// seconds, on two GPUs: a decode step's messages are a few kilobytes, and
/// their time is latency, 5 µs assumed, and 2 µs more for every further
/// GPU of the ring ([`collective_latency_seconds`]), which brings the
/// published TP 4 and TP 8 runs within their bound.
pub const COLLECTIVE_LATENCY_SECONDS: f64 = 5e-6;

/// The latency one all-reduce over `gpus` GPUs costs, seconds.
pub fn collective_latency_seconds(gpus: u32) -> f64 {
    COLLECTIVE_LATENCY_SECONDS + 2e-6 * f64::from(gpus.saturating_sub(2))
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
    /// Time per output token at the concurrency, seconds (a decode step
    /// through every stage).
    pub tpot_seconds: f64,
    /// Output tokens a second of one replica at the concurrency.
    pub decode_tokens_per_second: f64,
    /// The same per GPU.
    pub decode_tokens_per_second_per_gpu: f64,
    /// Output tokens a second each sequence sees.
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

/// One all-reduce of `bytes` over `tp` GPUs, seconds: the latency and the
/// ring's 2 (TP − 1) ÷ TP of the bytes at the link's bandwidth.
fn all_reduce_seconds(input: &SpeedInput, bytes: f64) -> f64 {
    let tp = f64::from(input.layout.tp);
    if input.layout.tp <= 1 {
        return 0.0;
    }
    let link = match input.layout.tp > input.gpus_per_node {
        true => input.network_gb_per_s,
        false => input.nvlink_gb_per_s,
    };
    collective_latency_seconds(input.layout.tp)
        + 2.0 * (tp - 1.0) / tp * bytes / (link.max(1e-9) * 1e9)
}

/// The routed experts' bytes on the GPU and the share of them a step of
/// `tokens` tokens over the experts' group touches: `1 − (1 − k ÷ E)^tokens`.
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
    let k = f64::from(arch.moe.top_k) / f64::from(arch.moe.experts.max(1));
    (bytes, 1.0 - (1.0 - k).powf(tokens))
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

/// The deployment's speed.
pub fn estimate(input: &SpeedInput) -> ServeSpeed {
    let arch = input.arch;
    let ServeLayout { tp, pp, ep } = input.layout;
    let (tp_f, pp_f) = (f64::from(tp.max(1)), f64::from(pp.max(1)));
    let hbm = input.gpu.hbm_gb_per_s * 1e9;
    let peak = peak_tflops(input) * 1e12;
    let layers = f64::from(arch.layers.div_ceil(pp.max(1)));
    let h = f64::from(arch.hidden);
    // The active parameters' FLOPs a token on one GPU (2 a parameter).
    let active_flops = 2.0 * arch.active_param_count() as f64 / (tp_f * pp_f);

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
    let batch = f64::from(input.concurrency.max(1)) / pp_f;
    let context = input.prompt_len + input.response_len / 2;
    let data = match ep {
        0 | 1 => 1.0,
        ep => f64::from(ep) / tp_f,
    };
    let (experts, touched) = expert_bytes_touched(input, batch * data);
    // The input embedding is looked up, a row a token, not read whole
    // (a tied one is read whole as the output head).
    let embedding = match arch.tied_embeddings || pp > 1 {
        true => 0.0,
        false => arch.param_breakdown().embeddings as f64 * 2.0 / tp_f,
    };
    let weights_read = input.weights_bytes - embedding - experts + experts * touched;
    let kv_read = batch * kv_bytes_at(input, context);
    let memory = (weights_read + kv_read) / (hbm * DECODE_BANDWIDTH_EFFICIENCY);
    let compute = batch * (active_flops + attention_flops(input, f64::from(context)))
        / (peak * DECODE_COMPUTE_EFFICIENCY);
    let comm = 2.0 * layers * all_reduce_seconds(input, batch * h * 2.0);
    let bound = match compute > memory {
        true => Bound::Compute,
        false => Bound::Memory,
    };
    let stage = memory.max(compute) + comm;
    let tpot = stage * pp_f + (pp_f - 1.0) * COLLECTIVE_LATENCY_SECONDS;
    let decode = f64::from(input.concurrency.max(1)) / tpot;
    let gpus = tp_f * pp_f;
    ServeSpeed {
        ttft_seconds: ttft,
        prefill_tokens_per_second: prompt / prefill_stage,
        tpot_seconds: tpot,
        decode_tokens_per_second: decode,
        decode_tokens_per_second_per_gpu: decode / gpus,
        tokens_per_second_per_sequence: 1.0 / tpot,
        weights_read_bytes: weights_read,
        kv_read_bytes: kv_read,
        bound,
        cost_per_million_tokens: input
            .price
            .map(|price| price * gpus / (decode * 3600.0) * 1e6),
    }
}
