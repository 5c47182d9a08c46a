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
use crate::format::MemoryUnit;
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

impl ActivationSetup {
    /// Whether the attention scores count: stored per layer without
    /// recomputation, or in the one working set full recomputation rebuilds;
    /// never with FlashAttention nor with selective recomputation.
    fn scores_counted(&self) -> bool {
        !self.flash_attention && self.recompute != Recompute::Selective
    }
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
    /// What LoRA's adapters keep: each adapted layer's r-wide intermediate
    /// (zero without adapters; see [`crate::finetune::Adapters::activations`]).
    pub adapters: Bytes,
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
    // Each stored layer without recomputation, or the one working set with full.
    let layer_term = without_scores + if setup.scores_counted() { scores } else { 0.0 };
    let per_layer = match setup.recompute {
        Recompute::Full => without_scores,
        Recompute::None | Recompute::Selective => layer_term,
    };

    let layer_count = f64::from(architecture.layers);
    let layers = match setup.recompute {
        Recompute::None | Recompute::Selective => layer_count * layer_term,
        Recompute::Full => layer_count * e * s * b * h + layer_term,
    };
    let embeddings_and_logits =
        mask * s * b * h + 2.0 * e * s * b * h + e * s * b * v + 4.0 * s * b * v;
    ActivationMemory {
        per_layer: Bytes::new(per_layer),
        layers: Bytes::new(layers),
        embeddings_and_logits: Bytes::new(embeddings_and_logits),
        adapters: Bytes::ZERO,
        total: Bytes::new(layers + embeddings_and_logits),
    }
}

/// The formula of [`activation_memory`] with `architecture`'s and `setup`'s own
/// numbers, for a learner to follow, the total in `unit`. For Llama-3-8B at
/// 2,048 tokens with FlashAttention:
///
/// ```
/// use vram_core::activations::{activation_derivation, ActivationSetup, Recompute};
/// use vram_core::architecture::model_preset;
/// use vram_core::format::MemoryUnit;
///
/// let llama3 = model_preset("llama3-8b").unwrap().architecture;
/// let setup = ActivationSetup {
///     seq_len: 2048,
///     micro_batch: 1,
///     bytes_per_value: 2.0,
///     flash_attention: true,
///     recompute: Recompute::None,
///     dropout: false,
/// };
/// assert_eq!(
///     activation_derivation(&llama3, &setup, MemoryUnit::Gb),
///     "L·[e·s·b·(6h + 2k + m·f)] + 2e·s·b·h + (e + 4)·s·b·v = \
///      32 × [2 × 2048 × 1 × (6 × 4096 + 2 × 1024 + 4 × 14336)] + \
///      4 × 2048 × 1 × 4096 + 6 × 2048 × 1 × 128256 B = 12.62 GB"
/// );
/// ```
///
/// `L` layers, `e` bytes per value, `s` tokens, `b` micro-batch, `h` hidden size,
/// `k` key/value width, `m` 4 for SwiGLU or 2 for GELU, `f` FFN width, `a` heads,
/// `v` vocabulary. Dropout adds its masks (`2·s·b·h`, the `+ 1` of `(2e + 1)`);
/// stored attention scores add `(2e + 1)·a·s²·b`; full recomputation stores
/// `L·e·s·b·h` and one layer's working set instead of `L` layers.
pub fn activation_derivation(
    architecture: &Architecture,
    setup: &ActivationSetup,
    unit: MemoryUnit,
) -> String {
    let number = crate::format::format_number;
    let (s, b, h) = (setup.seq_len, setup.micro_batch, architecture.hidden);
    let (e, mask) = (setup.bytes_per_value, u8::from(setup.dropout));
    let m = match architecture.mlp {
        Mlp::Gelu => 2,
        Mlp::SwiGlu => 4,
    };
    let (e_text, e2_text) = (number(e), number(2.0 * e + f64::from(mask)));
    // One layer's terms, symbols and numbers side by side.
    let mut symbols = String::from("e·s·b·(6h + 2k + m·f)");
    let mut numbers = format!(
        "{e_text} × {s} × {b} × (6 × {h} + 2 × {} + {m} × {})",
        architecture.kv_width(),
        architecture.ffn
    );
    if setup.dropout {
        symbols.push_str(" + 2·s·b·h");
        numbers.push_str(&format!(" + 2 × {s} × {b} × {h}"));
    }
    let two_e = if setup.dropout { "(2e + 1)" } else { "2e" };
    if setup.scores_counted() {
        symbols.push_str(&format!(" + {two_e}·a·s²·b"));
        numbers.push_str(&format!(
            " + {e2_text} × {} × {s}² × {b}",
            architecture.heads
        ));
    }
    let layers = architecture.layers;
    let (symbols, numbers) = match setup.recompute {
        Recompute::Full => (
            format!("L·e·s·b·h + [{symbols}]"),
            format!("{layers} × {e_text} × {s} × {b} × {h} + [{numbers}]"),
        ),
        _ => (format!("L·[{symbols}]"), format!("{layers} × [{numbers}]")),
    };
    let total = activation_memory(architecture, setup).total;
    format!(
        "{symbols} + {two_e}·s·b·h + (e + 4)·s·b·v = {numbers} + {e2_text} × {s} × {b} × {h} + {} × {s} × {b} × {} B = {}",
        number(e + 4.0),
        architecture.vocab,
        crate::format::format_bytes(total, unit)
    )
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

    /// The value of a derivation's numbers: decimals (thousands grouped or not)
    /// with `+`, `×`, `²`, `( )` and `[ ]`.
    fn evaluate(expression: &str) -> f64 {
        type Tokens = std::iter::Peekable<std::vec::IntoIter<char>>;
        fn sum(t: &mut Tokens) -> f64 {
            let mut value = product(t);
            while t.next_if_eq(&'+').is_some() {
                value += product(t);
            }
            value
        }
        fn product(t: &mut Tokens) -> f64 {
            let mut value = power(t);
            while t.next_if_eq(&'×').is_some() {
                value *= power(t);
            }
            value
        }
        fn power(t: &mut Tokens) -> f64 {
            let value = match t.next_if(|c| matches!(c, '(' | '[')) {
                Some(_) => {
                    let value = sum(t);
                    assert!(t.next_if(|c| matches!(c, ')' | ']')).is_some(), "unclosed");
                    value
                }
                None => {
                    let mut digits = String::new();
                    while let Some(c) = t.next_if(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
                    {
                        digits.push(c);
                    }
                    digits.replace(',', "").parse().expect("a number")
                }
            };
            match t.next_if_eq(&'²') {
                Some(_) => value * value,
                None => value,
            }
        }
        let mut tokens = expression
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<Vec<_>>()
            .into_iter()
            .peekable();
        let value = sum(&mut tokens);
        assert_eq!(tokens.next(), None, "{expression}");
        value
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn derivations_add_up_to_the_figures_they_explain() {
        let llama3 = model_preset("llama3-8b").unwrap().architecture;
        let mut cases = Vec::new();
        for recompute in Recompute::ALL {
            for flash_attention in [false, true] {
                cases.push((gpt3(), paper_setup(recompute, flash_attention)));
                let setup = ActivationSetup {
                    dropout: false,
                    micro_batch: 3,
                    ..paper_setup(recompute, flash_attention)
                };
                cases.push((llama3, setup));
            }
        }
        for (architecture, setup) in cases {
            let text = activation_derivation(&architecture, &setup, MemoryUnit::Gb);
            let [symbols, numbers, total] = text.split(" = ").collect::<Vec<_>>()[..] else {
                panic!("{text}");
            };
            let total_bytes = activation_memory(&architecture, &setup).total;
            let numbers = numbers.strip_suffix(" B").expect("in bytes");
            assert_eq!(evaluate(numbers), total_bytes.get(), "{text}");
            assert_eq!(
                total,
                crate::format::format_bytes(total_bytes, MemoryUnit::Gb)
            );
            // The symbols, given their values, are the same sum.
            let values = [
                ('L', f64::from(architecture.layers)),
                ('e', setup.bytes_per_value),
                ('s', f64::from(setup.seq_len)),
                ('b', f64::from(setup.micro_batch)),
                ('h', f64::from(architecture.hidden)),
                ('k', architecture.kv_width() as f64),
                (
                    'm',
                    if architecture.mlp == Mlp::SwiGlu {
                        4.0
                    } else {
                        2.0
                    },
                ),
                ('f', f64::from(architecture.ffn)),
                ('a', f64::from(architecture.heads)),
                ('v', f64::from(architecture.vocab)),
            ];
            let mut substituted = String::new();
            for c in symbols.chars() {
                match values.iter().find(|(symbol, _)| *symbol == c) {
                    Some((_, value)) => {
                        if substituted.ends_with(|p: char| p.is_ascii_digit() || p == ')') {
                            substituted.push('×');
                        }
                        substituted.push_str(&format!("({value})"));
                    }
                    None if c == '·' => substituted.push('×'),
                    None => substituted.push(c),
                }
            }
            assert_eq!(evaluate(&substituted), total_bytes.get(), "{substituted}");
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn derivation_writes_the_papers_34_and_5as_terms_for_gpt3() {
        let text = activation_derivation(
            &gpt3(),
            &paper_setup(Recompute::None, false),
            MemoryUnit::Gb,
        );
        // 2·(6h + 2h + 2·4h) + 2 = 34 per s·b·h, (2e + 1) = 5 per a·s²·b.
        assert!(
            text.starts_with(
                "L·[e·s·b·(6h + 2k + m·f) + 2·s·b·h + (2e + 1)·a·s²·b] + (2e + 1)·s·b·h + \
                 (e + 4)·s·b·v = 96 × [2 × 2048 × 1 × (6 × 12288 + 2 × 12288 + 2 × 49152) + \
                 2 × 2048 × 1 × 12288 + 5 × 96 × 2048² × 1] + 5 × 2048 × 1 × 12288 + \
                 6 × 2048 × 1 × 50257 B = "
            ),
            "{text}"
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn derivation_of_full_recomputation_keeps_inputs_and_one_working_set() {
        let llama3 = model_preset("llama3-8b").unwrap().architecture;
        let setup = ActivationSetup {
            dropout: false,
            ..paper_setup(Recompute::Full, true)
        };
        assert_eq!(
            activation_derivation(&llama3, &setup, MemoryUnit::Gib),
            "L·e·s·b·h + [e·s·b·(6h + 2k + m·f)] + 2e·s·b·h + (e + 4)·s·b·v = \
             32 × 2 × 2048 × 1 × 4096 + [2 × 2048 × 1 × (6 × 4096 + 2 × 1024 + 4 × 14336)] + \
             4 × 2048 × 1 × 4096 + 6 × 2048 × 1 × 128256 B = 2.32 GiB"
        );
    }
}
