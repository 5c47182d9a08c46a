//! How fast a GPU's kernels run one layer, when no efficiency is typed: each
//! GEMM at a share of the peak that grows with its size, the fused attention
//! at its own share, and the element-wise kernels (norms, activation
//! functions, residual additions, rotary embeddings, FP8's casts) at the
//! memory's bandwidth.
//!
//! The GEMM rule is a roofline with a soft knee (Williams et al. 2009's
//! roofline, as NVIDIA's "Matrix Multiplication Background" guide reads a
//! GEMM's arithmetic intensity): an M × K by K × N product does 2·M·N·K FLOPs
//! on M·K + K·N + M·N elements, and reaches `top × I ÷ (I + knee)` of the
//! peak, with I = M·N·K ÷ (M·K + K·N + M·N) its FLOPs per element moved ÷ 2.
//! Large GEMMs (I in the thousands) come near `top`; tensor parallelism's
//! narrow shards and short sequences fall off it. The constants per
//! architecture are this page's, chosen once so that the step predicts the
//! published runs in `crates/core/tests/published_runs.rs` (Megatron-LM,
//! NeMo and Megatron-Bridge, torchtitan, llm-foundry; docs/formulas.md lists
//! them) without a typed efficiency.

use vram_shared::gpu::Generation;
use vram_shared::model::architecture::{Architecture, Mlp};

/// What one architecture's kernels reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernels {
    /// The share of the 16-bit peak a large 16-bit GEMM reaches.
    pub gemm: f64,
    /// The share of the FP8 peak a large FP8 GEMM reaches.
    pub gemm_fp8: f64,
    /// The arithmetic intensity (FLOPs ÷ 2 per element moved) at which a
    /// GEMM reaches half of its top share.
    pub knee: f64,
    /// The share of the 16-bit peak the fused attention (cuDNN's,
    /// FlashAttention-3; FlashAttention-2 where it is the best there is)
    /// reaches, forward and backward together.
    pub attention: f64,
    /// The share FlashAttention-2 reaches ([`AttentionKernel::FlashAttention2`]).
    pub attention_fa2: f64,
    /// The share of the memory's bandwidth the element-wise kernels stream at.
    pub streaming: f64,
    /// The memory's bandwidth, bytes per second.
    pub hbm_bytes_per_s: f64,
}

impl Kernels {
    /// The kernels of `generation`, with memory of `hbm_bytes_per_s`.
    pub fn of(generation: Generation, hbm_bytes_per_s: f64) -> Kernels {
        let (gemm, gemm_fp8, attention) = match generation {
            Generation::Volta | Generation::Turing => (0.70, 0.0, 0.35),
            Generation::Ampere => (0.70, 0.0, 0.55),
            Generation::Ada => (0.70, 0.55, 0.45),
            Generation::Hopper => (0.64, 0.54, 0.50),
            Generation::Blackwell => (0.66, 0.55, 0.50),
            Generation::Cdna => (0.55, 0.45, 0.40),
            // Assumed as AMD's: no published kernel measurements found.
            Generation::Ascend => (0.55, 0.0, 0.40),
        };
        // FlashAttention-2 was written for Ampere and does not use Hopper's
        // asynchronous tensor cores: on an H100 SXM5 at head width 128,
        // causal, 8k–16k tokens, it runs its forward at 333–335 TFLOP/s
        // where cuDNN's runs 529–539 and FlashAttention-3 602–616, and its
        // backward slower still (Shah et al. 2024, FlashAttention-3, §4.1):
        // about 0.31 of the peak forward and backward together. Elsewhere
        // it is the fused kernel the generation has (PyTorch's SDPA takes
        // cuDNN's on Blackwell).
        let attention_fa2 = match generation {
            Generation::Hopper => 0.31,
            _ => attention,
        };
        Kernels {
            gemm,
            gemm_fp8,
            knee: KNEE,
            attention,
            attention_fa2,
            streaming: STREAMING,
            hbm_bytes_per_s,
        }
    }

    /// A GPU known by its peak alone (no preset): Hopper's shares, and
    /// memory that streams one byte for every 250 FLOPs of the peak (an
    /// H100's ratio is 295, an A100's 153).
    pub fn unknown(peak_flops: f64) -> Kernels {
        Kernels::of(Generation::Hopper, peak_flops / 250.0)
    }

    /// The share of its precision's peak an `m × k` by `k × n` GEMM reaches.
    pub fn gemm_share(&self, m: f64, n: f64, k: f64, fp8: bool) -> f64 {
        let intensity = 1.0 / (1.0 / m.max(1.0) + 1.0 / n.max(1.0) + 1.0 / k.max(1.0));
        let top = if fp8 { self.gemm_fp8 } else { self.gemm };
        top * intensity / (intensity + self.knee)
    }
}

/// The knee: a GEMM whose intensity is 96 (say 8,192 tokens by a 128-wide
/// shard) reaches half its top share; 1,000 reaches 91 % of it.
const KNEE: f64 = 96.0;

/// The element-wise kernels stream at 70 % of the memory's bandwidth.
const STREAMING: f64 = 0.7;

/// How the attention's core runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionKernel {
    /// One fused kernel of the Hopper generation's kind (cuDNN's fused
    /// attention, as Transformer Engine runs it under Megatron-LM;
    /// FlashAttention-3): the score matrix stays on chip.
    Fused,
    /// FlashAttention-2: PyTorch's `scaled_dot_product_attention` (its
    /// flash backend) and the `flash-attn` 2 package, as the PyTorch-native
    /// stacks run it. Fused too, at its own share of the peak.
    FlashAttention2,
    /// Two batched GEMMs (QKᵀ, then the probabilities × V) with the score
    /// matrix written out between them and softmaxed (and dropped out) by
    /// element-wise kernels: Megatron-LM before FlashAttention (its fused
    /// scale-mask-softmax, then dropout), transformers' eager attention.
    Unfused {
        /// Whether attention dropout runs on the probabilities (a mask of
        /// one byte per score, as Korthikanti et al. 2022 count it).
        dropout: bool,
    },
}

/// One layer's work on one GPU, for one microbatch, as the kernels see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerShape {
    /// Tokens a GEMM of the layer multiplies at once: micro-batch ×
    /// sequence ÷ CP (tensor parallelism's GEMMs see the whole sequence).
    pub tokens: f64,
    /// Tensor-parallel ranks.
    pub tp: f64,
    /// Expert-parallel ranks.
    pub ep: f64,
    /// Whether the linears run in FP8.
    pub fp8: bool,
    /// The ranks each routed expert is split over: TP, or 1 (ETP = 1).
    pub expert_tp: f64,
    /// Whether FP8 reads each input once more for its amax (per-tensor
    /// current scaling): the casts' traffic 5 bytes a value, not 3.
    pub amax_pass: bool,
    /// Bytes of an activation value.
    pub activation_bytes: f64,
    /// How the attention's core runs.
    pub attention: AttentionKernel,
    /// Keys each query attends to in the unfused kernel's score matrix:
    /// the sequence (the causal mask is applied to the whole matrix).
    pub keys: f64,
}

/// The rates one layer's parts run at, as shares of the 16-bit peak (an FP8
/// GEMM at its share of the FP8 peak × FP8 peak ÷ 16-bit peak).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// The transformer layers' GEMMs (the FLOP-weighted harmonic mean).
    pub layers: f64,
    /// The attention's QKᵀ and softmax·V.
    pub attention: f64,
    /// The output layer's GEMM (16-bit: no TE module).
    pub logits: f64,
    /// Bytes the element-wise kernels move per token and layer on one GPU,
    /// forward and backward.
    pub streamed_bytes_per_token: f64,
    /// Bytes the unfused attention's softmax (and dropout) kernels move per
    /// token and layer on one GPU over the score matrix, forward (run again
    /// where the core attention is recomputed) and backward; 0 fused.
    pub score_bytes_per_token: (f64, f64),
}

impl Rates {
    /// Every part at one typed efficiency: FP8 GEMMs at it of the FP8 peak.
    pub fn flat(efficiency: f64, fp8_over_16bit: Option<f64>) -> Rates {
        Rates {
            layers: efficiency * fp8_over_16bit.unwrap_or(1.0),
            attention: efficiency,
            logits: efficiency,
            streamed_bytes_per_token: 0.0,
            score_bytes_per_token: (0.0, 0.0),
        }
    }
}

/// The rates of `arch`'s layers shaped as `shape` on `kernels`, FP8 GEMMs
/// at `fp8_over_16bit` × their share (the FP8 peak ÷ the 16-bit one).
///
/// The GEMMs per layer and GPU, M tokens by K inputs into N outputs: the
/// query/key/value projection (h into (q + 2k) ÷ TP, a gated query twice
/// as wide), the output projection (q ÷ TP into h), the MLP's first linear
/// (h into g·f ÷ TP, g = 2 for SwiGLU's gate and up) and second (f ÷ TP
/// into h); a routed expert sees M·t·EP ÷ E tokens (its share of the EP
/// group's routed copies), a shared expert M; the logits h into V ÷ TP.
/// The element-wise kernels read and write, per token and layer forward,
/// about 10h (two norms' input and output, two residual additions' two
/// inputs and output), 2(q + k) (the rotary embedding) and 3f (SwiGLU's two
/// inputs and output; GELU 2f) values, a routed copy 4h more (permuted and
/// unpermuted), twice that backward; FP8 casts each linear's input and
/// output gradient (2 bytes read, 1 written, twice: forward and backward).
pub fn layer_rates(
    arch: &Architecture,
    kernels: &Kernels,
    shape: &LayerShape,
    vocab: u32,
    fp8_over_16bit: f64,
) -> Rates {
    let (m, tp) = (shape.tokens, shape.tp);
    let h = f64::from(arch.hidden);
    let q = arch.q_width() as f64;
    let kv = arch.kv_width() as f64;
    let q_out = if arch.gated_attention { 2.0 * q } else { q };
    let gate = match arch.mlp {
        Mlp::SwiGlu => 2.0,
        Mlp::Gelu => 1.0,
    };
    let rate = |tokens: f64, n: f64, k: f64| match shape.fp8 {
        true => kernels.gemm_share(tokens, n, k, true) * fp8_over_16bit,
        false => kernels.gemm_share(tokens, n, k, false),
    };
    // (FLOPs weight, rate) of each GEMM: `weight` tokens through it (its
    // share of the layers' tokens), each GEMM `shaped` tokens at once.
    let mut gemms: Vec<(f64, f64)> = Vec::with_capacity(8);
    let mut add = |weight: f64, shaped: f64, n: f64, k: f64| {
        if weight > 0.0 && n > 0.0 && k > 0.0 {
            gemms.push((weight * n * k, rate(shaped, n, k)));
        }
    };
    let layers = f64::from(arch.layers.max(1));
    let moe_share = match arch.moe.is_moe() {
        true => f64::from(arch.layers - arch.dense_layer_count()) / layers,
        false => 0.0,
    };
    // Every layer's attention projections.
    add(m, m, (q_out + 2.0 * kv) / tp, h);
    add(m, m, h, q / tp);
    // Dense layers' MLP, weighted by their share of the layers.
    let dense = 1.0 - moe_share;
    let f = f64::from(arch.ffn);
    add(m * dense, m, gate * f / tp, h);
    add(m * dense, m, h, f / tp);
    let moe = arch.moe;
    let mut streamed_mlp = dense * (gate + 1.0) * f / tp;
    if moe_share > 0.0 {
        let (t, e, fe) = (
            f64::from(moe.top_k),
            f64::from(moe.experts.max(1)),
            f64::from(moe.expert_ffn),
        );
        // With ETP = 1 each GPU dispatches its own share of the TP group's
        // tokens to whole experts.
        let etp = shape.expert_tp;
        let per_expert = m * t * shape.ep / e * etp / tp;
        // The routed copies' FLOPs: t per token, at one expert's shape.
        let routed = m * t * moe_share;
        add(routed, per_expert, gate * fe / etp, h);
        add(routed, per_expert, h, fe / etp);
        let fs = f64::from(moe.shared_experts) * f64::from(moe.shared_ffn);
        add(m * moe_share, m, gate * fs / tp, h);
        add(m * moe_share, m, h, fs / tp);
        streamed_mlp += moe_share * ((gate + 1.0) * (t * fe + fs) / tp + 4.0 * t * h);
    }
    let weight: f64 = gemms.iter().map(|g| g.0).sum();
    let time: f64 = gemms.iter().map(|g| g.0 / g.1).sum();
    let layers_rate = if time > 0.0 {
        weight / time
    } else {
        kernels.gemm
    };
    let e = shape.activation_bytes;
    let forward = 10.0 * h / tp + 2.0 * (q + kv) / tp + streamed_mlp;
    // Each cast reads a 16-bit value and writes its byte; current scaling
    // reads it once more for the amax first.
    let cast_bytes = if shape.amax_pass { 5.0 } else { 3.0 };
    let casts = match shape.fp8 {
        true => 2.0 * cast_bytes * (2.0 * h + q + f) / tp,
        false => 0.0,
    };
    let (attention, score_bytes_per_token) = unfused_attention(arch, kernels, shape);
    Rates {
        layers: layers_rate,
        attention,
        logits: kernels.gemm_share(m, f64::from(vocab) / tp, h, false),
        streamed_bytes_per_token: 3.0 * forward * e + casts,
        score_bytes_per_token,
    }
}

/// The attention core's rate and its score matrix's bytes per token
/// (forward, backward) on `kernels` for `shape`. Fused: the kernel's own
/// share, nothing streamed. Unfused: QKᵀ (a query block by its keys, the
/// head's width deep) and probabilities × V at the GEMM rule's share of
/// that shape, and for each of the heads ÷ TP × keys scores a token owns,
/// the softmax reading and writing them forward (2 values) and reading the
/// gradient and the probabilities and writing one backward (3); dropout
/// reads and writes them again with its one-byte mask, both ways
/// (Megatron-LM's `FusedScaleMaskSoftmax` then `attention_dropout`,
/// transformers' eager attention).
fn unfused_attention(
    arch: &Architecture,
    kernels: &Kernels,
    shape: &LayerShape,
) -> (f64, (f64, f64)) {
    let dropout = match shape.attention {
        AttentionKernel::Fused => return (kernels.attention, (0.0, 0.0)),
        AttentionKernel::FlashAttention2 => return (kernels.attention_fa2, (0.0, 0.0)),
        AttentionKernel::Unfused { dropout } => dropout,
    };
    let heads = f64::from(arch.heads.max(1));
    let head_dim = arch.q_width() as f64 / heads;
    let rate = kernels.gemm_share(shape.keys, shape.keys, head_dim, false);
    let scores = heads / shape.tp * shape.keys;
    let e = shape.activation_bytes;
    let (forward, backward) = match dropout {
        false => (2.0 * e, 3.0 * e),
        true => (4.0 * e + 1.0, 5.0 * e + 1.0),
    };
    (rate, (scores * forward, scores * backward))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// A large GEMM comes near the top share; an eighth of its width (TP 8)
    /// with a short sequence falls off it.
    #[wasm_bindgen_test(unsupported = test)]
    fn small_gemms_fall_off_the_top() {
        let h100 = Kernels::of(Generation::Hopper, 3.35e12);
        let large = h100.gemm_share(8192.0, 14336.0, 4096.0, false);
        assert!((large / h100.gemm - 0.96).abs() < 0.01, "{large}");
        let narrow = h100.gemm_share(2048.0, 14336.0 / 8.0, 4096.0, false);
        assert!(narrow < 0.93 * large, "{narrow} vs {large}");
        let tiny = h100.gemm_share(1024.0, 128.0, 4096.0, false);
        assert!(tiny < 0.6 * large, "{tiny}");
    }

    /// Tensor parallelism narrows the GEMMs: Llama 3 8B's layer GEMMs at TP 8
    /// with 2,048 tokens run slower than at TP 1 with 8,192.
    #[wasm_bindgen_test(unsupported = test)]
    fn tensor_parallelism_narrows_the_gemms() {
        let llama = model_preset("llama3-8b").unwrap().architecture;
        let h100 = Kernels::of(Generation::Hopper, 3.35e12);
        let shape = |tokens, tp| LayerShape {
            tokens,
            tp,
            ep: 1.0,
            fp8: false,
            expert_tp: tp,
            amax_pass: false,
            activation_bytes: 2.0,
            attention: AttentionKernel::Fused,
            keys: 8192.0,
        };
        let one = layer_rates(&llama, &h100, &shape(8192.0, 1.0), 128_256, 2.0);
        let eight = layer_rates(&llama, &h100, &shape(2048.0, 8.0), 128_256, 2.0);
        assert!(one.layers > 0.61 && one.layers < 0.64, "{one:?}");
        assert!(eight.layers < 0.93 * one.layers, "{eight:?}");
        assert_eq!(one.attention, h100.attention);
    }

    /// FlashAttention-2 is Hopper's slow fused kernel alone (0.31 of the
    /// peak where cuDNN's reaches 0.50); on Ampere it is the fused kernel.
    /// Unfused, the core runs at the GEMM rule's share of a query block by
    /// its keys, and its softmax streams 2 + 3 values a score (dropout
    /// 4 + 1 and 5 + 1 bytes more of 2-byte values).
    #[wasm_bindgen_test(unsupported = test)]
    fn the_attention_kernel_sets_the_cores_rate() {
        let llama = model_preset("llama3-8b").unwrap().architecture;
        let shape = |attention| LayerShape {
            tokens: 8192.0,
            tp: 1.0,
            ep: 1.0,
            fp8: false,
            expert_tp: 1.0,
            amax_pass: false,
            activation_bytes: 2.0,
            attention,
            keys: 8192.0,
        };
        let rates = |kernels: &Kernels, attention| {
            layer_rates(&llama, kernels, &shape(attention), 128_256, 1.0)
        };
        let h100 = Kernels::of(Generation::Hopper, 3.35e12);
        let a100 = Kernels::of(Generation::Ampere, 2.0e12);
        let fa2 = AttentionKernel::FlashAttention2;
        assert_eq!(rates(&h100, AttentionKernel::Fused).attention, 0.50);
        assert_eq!(rates(&h100, fa2).attention, 0.31);
        assert_eq!(rates(&a100, fa2).attention, a100.attention);
        assert_eq!(rates(&h100, fa2).score_bytes_per_token, (0.0, 0.0));
        let plain = rates(&a100, AttentionKernel::Unfused { dropout: false });
        let head = f64::from(llama.hidden / llama.heads);
        let share = a100.gemm_share(8192.0, 8192.0, head, false);
        assert!((plain.attention - share).abs() < 1e-12);
        let scores = f64::from(llama.heads) * 8192.0;
        assert_eq!(plain.score_bytes_per_token, (scores * 4.0, scores * 6.0));
        let dropped = rates(&a100, AttentionKernel::Unfused { dropout: true });
        assert_eq!(dropped.score_bytes_per_token, (scores * 9.0, scores * 11.0));
    }
}
