//! Activation memory of training, per GPU, after Korthikanti et al. 2022,
//! "Reducing Activation Recomputation in Large Transformer Models", section 4.
//!
//! With sequence length `s`, micro-batch `b`, hidden size `h`, heads `a`, 16-bit
//! activations and 1-byte dropout masks, a GPT layer stores `sbh(34 + 5as/h)` bytes
//! for its backward pass. The 34 is made of
//!
//! * attention, `11sbh`: the QKV input 2, Q 2, K 2, V 2, the output projection's
//!   input 2, its dropout mask 1;
//! * MLP, `19sbh`: its input 2, the GELU's input `2 × 4h/h = 8`, the second
//!   matrix's input 8, the dropout mask 1;
//! * the two LayerNorms' inputs, `4sbh`;
//!
//! and `5as²b` is the attention scores: softmax output 2, dropout mask 1, dropout
//! output 2. In general, with activations of `e` bytes, an FFN of width `f`, keys
//! and values of width `k = kv_heads × head_dim` (grouped-query attention):
//!
//! `e·sb(6h + 2k + m·f) + 2sbh + (2e + 1)·as²b`, with `m = 2` for GELU (its input and
//! the second matrix's) and `m = 4` for SwiGLU (gate, up, SiLU(gate), their product),
//! and the `2sbh` and `as²b` masks only with dropout. For GPT (`e = 2`, `k = h`,
//! `f = 4h`, GELU) this is the paper's `34sbh + 5as²b`.
//!
//! FlashAttention never stores the scores (the `as²b` terms), nor does the paper's
//! selective recomputation. Full recomputation stores each layer's input (`e·sbh`)
//! and, during the backward pass, one layer's whole working set.
//! Activations are per GPU: data parallelism and ZeRO do not shard them.

use serde::{Deserialize, Serialize};

use crate::architecture::{Architecture, Mlp};
use crate::units::Bytes;

/// What the backward pass recomputes instead of storing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Recompute {
    /// Everything is stored.
    None,
    /// The attention scores are recomputed (Korthikanti et al. §4.2).
    Selective,
    /// Only each layer's input is stored; the layer is recomputed in the backward
    /// pass (gradient checkpointing per layer).
    Full,
}

impl Recompute {
    /// Every choice, in the order the page lists them.
    pub const ALL: [Recompute; 3] = [Recompute::None, Recompute::Selective, Recompute::Full];

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            Recompute::None => "none (store everything)",
            Recompute::Selective => "selective (attention scores)",
            Recompute::Full => "full (gradient checkpointing)",
        }
    }

    /// The value in the shared link's `recompute` key.
    pub const fn key(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
}

/// How a step runs, as far as activations are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActivationSetup {
    /// Sequence length in tokens.
    pub seq_len: u32,
    /// Micro-batch per GPU, in sequences.
    pub micro_batch: u32,
    /// Bytes of one activation value: 2 for 16-bit training, 4 for fp32.
    pub bytes_per_value: f64,
    /// Whether FlashAttention computes attention (no score matrix is stored).
    pub flash_attention: bool,
    /// What the backward pass recomputes.
    pub recompute: Recompute,
    /// Whether the model applies dropout (1-byte masks are stored).
    pub dropout: bool,
}

/// Activation memory on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActivationMemory {
    /// What one layer stores for the backward pass, all recomputation aside.
    pub per_layer: Bytes,
    /// What all layers keep at the peak of the backward pass.
    pub layers: Bytes,
    /// Outside the layers: the embedding's dropout mask, the final norm's and the
    /// output head's inputs, the logits, and their fp32 copy for the loss.
    pub embeddings_and_logits: Bytes,
    /// Everything above.
    pub total: Bytes,
}

/// The activation memory of `architecture` trained as `setup`, per GPU.
pub fn activation_memory(architecture: &Architecture, setup: &ActivationSetup) -> ActivationMemory {
    let s = f64::from(setup.seq_len);
    let b = f64::from(setup.micro_batch);
    let h = f64::from(architecture.hidden);
    let a = f64::from(architecture.heads);
    let f = f64::from(architecture.ffn);
    let k = architecture.kv_width() as f64;
    let v = f64::from(architecture.vocab);
    let e = setup.bytes_per_value;
    let mask = if setup.dropout { 1.0 } else { 0.0 };
    let m = match architecture.mlp {
        Mlp::Gelu => 2.0,
        Mlp::SwiGlu => 4.0,
    };

    let without_scores = e * s * b * (6.0 * h + 2.0 * k + m * f) + mask * 2.0 * s * b * h;
    let scores = (2.0 * e + mask) * a * s * s * b;
    let stores_scores = !setup.flash_attention && setup.recompute == Recompute::None;
    let per_layer = without_scores + if stores_scores { scores } else { 0.0 };
    let working_set = without_scores + if setup.flash_attention { 0.0 } else { scores };

    let layer_count = f64::from(architecture.layers);
    let layers = match setup.recompute {
        Recompute::None | Recompute::Selective => layer_count * per_layer,
        Recompute::Full => layer_count * e * s * b * h + working_set,
    };
    let embeddings_and_logits =
        mask * s * b * h + 2.0 * e * s * b * h + e * s * b * v + 4.0 * s * b * v;
    ActivationMemory {
        per_layer: Bytes::new(per_layer),
        layers: Bytes::new(layers),
        embeddings_and_logits: Bytes::new(embeddings_and_logits),
        total: Bytes::new(layers + embeddings_and_logits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::architecture::model_preset;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    fn paper_setup(recompute: Recompute, flash_attention: bool) -> ActivationSetup {
        ActivationSetup {
            seq_len: 2048,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention,
            recompute,
            dropout: true,
        }
    }

    fn gpt3() -> Architecture {
        model_preset("gpt3-175b").unwrap().architecture
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn gpt3_layer_stores_sbh_34_plus_5as_over_h() {
        // 2048 × 12288 × (34 + 5 × 96 × 2048 / 12288) = 25,165,824 × 114.
        let memory = activation_memory(&gpt3(), &paper_setup(Recompute::None, false));
        assert_eq!(memory.per_layer.get(), 2_868_903_936.0);
        assert_eq!(memory.layers.get(), 96.0 * 2_868_903_936.0);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn selective_recomputation_and_flash_attention_drop_the_scores() {
        let sbh34 = 34.0 * 2048.0 * 12288.0;
        for (recompute, flash) in [
            (Recompute::Selective, false),
            (Recompute::None, true),
            (Recompute::Selective, true),
        ] {
            let memory = activation_memory(&gpt3(), &paper_setup(recompute, flash));
            assert_eq!(memory.per_layer.get(), sbh34, "{recompute:?} flash={flash}");
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn full_recomputation_keeps_layer_inputs_and_one_working_set() {
        let memory = activation_memory(&gpt3(), &paper_setup(Recompute::Full, false));
        let sbh = 2048.0 * 12288.0;
        assert_eq!(memory.layers.get(), 96.0 * 2.0 * sbh + 2_868_903_936.0);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn swiglu_and_grouped_query_attention_generalise_the_34() {
        // Llama-3-8B: h = 4096, k = 8 × 128 = 1024, f = 14336, SwiGLU, no dropout,
        // FlashAttention, s = 8192, b = 1: 2 × sb(6h + 2k + 4f) per layer.
        let llama3 = model_preset("llama3-8b").unwrap().architecture;
        let setup = ActivationSetup {
            seq_len: 8192,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention: true,
            recompute: Recompute::None,
            dropout: false,
        };
        let memory = activation_memory(&llama3, &setup);
        let sb = 8192.0;
        assert_eq!(
            memory.per_layer.get(),
            2.0 * sb * (6.0 * 4096.0 + 2.0 * 1024.0 + 4.0 * 14336.0)
        );
        // fp32 logits of a 128k vocabulary are gigabytes: 4 × 8192 × 128256 = 4.2 GB.
        let logits_fp32 = 4.0 * sb * 128_256.0;
        assert!(logits_fp32 / 1e9 > 4.2);
        let outside = 2.0 * 2.0 * sb * 4096.0 + 2.0 * sb * 128_256.0 + logits_fp32;
        assert_eq!(memory.embeddings_and_logits.get(), outside);
        assert_eq!(memory.total.get(), memory.layers.get() + outside);
    }
}
