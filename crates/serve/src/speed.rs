//! How fast a deployment serves: prefill bound by the tensor cores, decode
//! by the memory's bandwidth (every step reads the GPU's weights, the
//! routed experts a step's tokens touch and every sequence's keys and
//! values), tensor parallelism's two all-reduces a layer, and the fixed
//! costs a step pays whatever its bytes: the engine's step, and each
//! layer's kernels. The constants are few; each says whether it is derived
//! or calibrated, and the published runs it is held to are in
//! `tests/measured/decode-speed.json` (`tests/decode_speed.rs`).

use crate::kv_cache::{self, KvCacheDtype};
use crate::options::ServeLayout;
use crate::weights::WeightFormat;
use vram_shared::gpu::GpuPreset;
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
/// published TP 4 and TP 8 runs within their bound.
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
    let (link, latency) = match input.layout.tp > input.gpus_per_node {
        true => (input.network_gb_per_s, INTER_NODE_LATENCY_SECONDS),
        false => (
            input.nvlink_gb_per_s,
            collective_latency_seconds(input.layout.tp),
        ),
    };
    latency + 2.0 * (tp - 1.0) / tp * bytes / (link.max(1e-9) * 1e9)
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
    let dense_read = input.weights_bytes - embedding - experts;
    let experts_read = experts * touched;
    let weights_read = dense_read + experts_read;
    let kv_read = batch * kv_bytes_at(input, context);
    let memory = (dense_read + kv_read) / (hbm * DECODE_BANDWIDTH_EFFICIENCY)
        + experts_read / (hbm * expert_efficiency(input));
    let compute = batch * (active_flops + attention_flops(input, f64::from(context)))
        / (peak * DECODE_COMPUTE_EFFICIENCY);
    let comm = 2.0 * layers * all_reduce_seconds(input, batch * h * 2.0);
    let bound = match compute > memory {
        true => Bound::Compute,
        false => Bound::Memory,
    };
    let stage = memory.max(compute) + comm + layers_fixed_seconds(arch, layers);
    let tpot = stage * pp_f + (pp_f - 1.0) * COLLECTIVE_LATENCY_SECONDS + STEP_SECONDS;
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
