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

use crate::format::MemoryUnit;
use crate::memory::parallel::Layout;
use crate::model::architecture::{Architecture, Mlp};
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

/// How full recomputation groups a model chunk's layers (Megatron-LM's
/// `--recompute-method`, `megatron/core/transformer/transformer_block.py`,
/// `_checkpointed_forward`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RecomputeMethod {
    /// The chunk's layers cut into groups of `N`: each group keeps its input
    /// and is rebuilt whole in the backward pass.
    Uniform,
    /// The chunk's first `N` layers each keep their input and are rebuilt one
    /// at a time; the others store everything.
    Block,
}

impl RecomputeMethod {
    /// Every choice, in the order the page lists them.
    pub const ALL: [RecomputeMethod; 2] = [RecomputeMethod::Uniform, RecomputeMethod::Block];

    /// The value in the shared link's `recompute_method` key, Megatron-LM's word.
    pub const fn key(self) -> &'static str {
        match self {
            RecomputeMethod::Uniform => "uniform",
            RecomputeMethod::Block => "block",
        }
    }
}

/// Which layers full recomputation checkpoints: Megatron-LM's
/// `--recompute-method` and `--recompute-num-layers`, per model chunk (a
/// pipeline rank's layers, or one virtual stage's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Checkpointing {
    /// How the layers are grouped.
    pub method: RecomputeMethod,
    /// `N`: layers per group (uniform) or layers checkpointed (block).
    pub layers: u32,
}

/// A model chunk of `n` layers under [`Checkpointing`]: how many inputs it
/// keeps, how many layers it stores whole, how many it rebuilds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkCheckpoints {
    /// Checkpointed inputs: ⌈n ÷ N⌉ (uniform) or min(N, n) (block).
    pub inputs: u32,
    /// Layers that store everything: none (uniform) or n − min(N, n) (block).
    pub stored: u32,
    /// Layers rebuilt at once in the backward pass: min(N, n) (uniform) or
    /// one (block).
    pub rebuilt: u32,
}

impl Checkpointing {
    /// Every layer checkpointed on its own: gradient checkpointing per layer,
    /// what `recompute=full` means without the two keys.
    pub const EVERY_LAYER: Checkpointing = Checkpointing {
        method: RecomputeMethod::Uniform,
        layers: 1,
    };

    /// What a chunk of `n` layers keeps, as `_checkpointed_forward` runs it.
    pub fn chunk(self, n: u32) -> ChunkCheckpoints {
        let group = self.layers.clamp(1, n.max(1));
        match self.method {
            RecomputeMethod::Uniform => ChunkCheckpoints {
                inputs: n.div_ceil(group),
                stored: 0,
                rebuilt: group.min(n),
            },
            RecomputeMethod::Block => ChunkCheckpoints {
                inputs: group.min(n),
                stored: n - group.min(n),
                rebuilt: u32::from(n > 0),
            },
        }
    }

    /// The share of a chunk of `n` layers whose forward pass runs again: all
    /// of it (uniform), N ÷ n (block).
    pub fn recomputed_share(self, n: u32) -> f64 {
        match self.method {
            RecomputeMethod::Uniform => 1.0,
            RecomputeMethod::Block => f64::from(self.chunk(n).inputs) / f64::from(n.max(1)),
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
    /// Which layers full recomputation checkpoints (ignored otherwise).
    pub checkpointing: Checkpointing,
    /// Whether the model applies dropout (1-byte masks are stored).
    pub dropout: bool,
    /// How many copies of its tokens each routed expert takes, relative to
    /// uniform routing (Megatron-LM's `moe_expert_capacity_factor`; 1 for
    /// uniform, more for imbalance). Dense models ignore it.
    pub capacity: f64,
    /// Whether the linears run in FP8 (Transformer Engine): each saves its
    /// input for the weight gradient quantised, one byte a value
    /// ([`LayerValues`]' linear inputs).
    #[serde(default)]
    pub fp8: bool,
}

impl ActivationSetup {
    /// The share of a model chunk of `chunk` layers whose forward pass runs
    /// again: 0 without full recomputation, else [`Checkpointing::recomputed_share`].
    pub fn recomputed_share(&self, chunk: u32) -> f64 {
        match self.recompute {
            Recompute::Full => self.checkpointing.recomputed_share(chunk),
            Recompute::None | Recompute::Selective => 0.0,
        }
    }

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
    /// (zero without adapters; see [`crate::memory::finetune::Adapters::activations`]).
    pub adapters: Bytes,
    /// Everything above: the larger of [`Self::at_loss`] and [`Self::rebuilding`].
    pub total: Bytes,
    /// What is held at the loss: everything, or under full recomputation the
    /// checkpoints and stored layers, no layer's working set rebuilt yet.
    pub at_loss: Bytes,
    /// Under full recomputation, what is held while checkpointed layers are
    /// rebuilt in the backward pass (`None` otherwise).
    pub rebuilding: Option<Bytes>,
}

/// Bytes one layer keeps per token (per query–key pair for the scores),
/// split as tensor parallelism splits them (Korthikanti et al. 2022, §4.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerValues {
    /// Outside the tensor-parallel region: the two norms' inputs, the QKV and
    /// MLP inputs (`4h`), latent attention's compressed vectors, the two
    /// dropout masks (`2h`, 1 byte each) and a mixture of experts' fp32 router
    /// logits: what sequence parallelism divides.
    pub outside: f64,
    /// Inside it: Q, K, V, the output projection's input and the MLP's
    /// activations, divided by tensor parallelism.
    pub inside: f64,
    /// Gathered whole on every tensor-parallel rank: the routed experts'
    /// dispatched inputs (`t·c·h`). Megatron-LM's token dispatchers
    /// (`megatron/core/transformer/moe/token_dispatcher.py`) all-gather the
    /// tokens over the expert-tensor-parallel group (ETP = TP) before the
    /// experts' first linear, which keeps its whole input; only the experts'
    /// own width `m·f_e` is split.
    pub gathered: f64,
    /// The attention scores per query and key: the softmax's output and its
    /// input (`2e`) and its dropout mask, times the heads.
    pub scores: f64,
}

/// [`LayerValues`] of a dense layer, or of a mixture of experts' layer
/// (`moe`), with full attention or Gated DeltaNet linear attention (`linear`).
pub fn layer_values(
    arch: &Architecture,
    setup: &ActivationSetup,
    moe: bool,
    linear: bool,
) -> LayerValues {
    let h = f64::from(arch.hidden);
    let e = setup.bytes_per_value;
    let mask = if setup.dropout { 1.0 } else { 0.0 };
    let (dense_mlp, moe_mlp) = mlp_terms(arch, setup.capacity);
    // A Gated DeltaNet layer keeps its own values and no scores (FP8 is not
    // counted with it).
    let (attention, split, scores, fp32) = match linear {
        true => (
            norm_inputs(arch) + linear_values(arch),
            linear_values(arch),
            0.0,
            linear_fp32_bytes(arch),
        ),
        false => {
            let attention = attention_term(arch);
            let split = attention - norm_inputs(arch) - latent_term(arch);
            (
                attention,
                split,
                (2.0 * e + mask) * f64::from(arch.heads),
                0.0,
            )
        }
    };
    let router = if moe {
        4.0 * f64::from(arch.moe.experts)
    } else {
        0.0
    };
    let (mlp, gathered) = match moe {
        true => {
            let inputs = f64::from(arch.moe.top_k) * setup.capacity * h;
            (moe_mlp - inputs, inputs)
        }
        false => (dense_mlp, 0.0),
    };
    // In FP8 each Transformer Engine linear saves its input in one byte
    // (`module/linear.py`: quantised, column-wise only): the QKV projection's
    // and a dense MLP's first linear's inputs outside the TP region (a
    // mixture of experts' router is no TE linear), the output projection's
    // and the second linears' inside it, and the experts' gathered inputs.
    let (fp8_outside, fp8_inside) = match setup.fp8 {
        false => (0.0, 0.0),
        true => (
            if moe { h } else { 2.0 * h },
            output_width(arch) + second_linear_inputs(arch, setup.capacity, moe),
        ),
    };
    let one_byte = if setup.fp8 { e - 1.0 } else { 0.0 };
    LayerValues {
        outside: e * (attention - split) + mask * 2.0 * h + router - one_byte * fp8_outside,
        inside: e * (split + mlp) - one_byte * fp8_inside + fp32,
        gathered: (e - one_byte) * gathered,
        scores,
    }
}

/// The attention's output projection's input width per token: q's, or
/// under latent attention the heads' values'.
fn output_width(arch: &Architecture) -> f64 {
    match arch.mla.is_latent() {
        true => arch.v_width() as f64,
        false => arch.q_width() as f64,
    }
}

/// The MLP's second linears' inputs per token: a dense MLP's `f`, or a
/// mixture of experts' routed copies' `t·c·f_e` and shared experts' `n·f_s`.
fn second_linear_inputs(arch: &Architecture, capacity: f64, moe: bool) -> f64 {
    let m = arch.moe;
    match moe {
        false => f64::from(arch.ffn),
        true => {
            f64::from(m.top_k) * capacity * f64::from(m.expert_ffn)
                + f64::from(m.shared_experts) * f64::from(m.shared_ffn)
        }
    }
}

/// [`activation_derivation`] for an architecture beyond Korthikanti's: the
/// attention's values per token written `A` (see [`attention_term`]), dense
/// layers `L_d` and mixture-of-experts layers `L_e` apart, each with its
/// numbers; `t` experts per token, `c` the capacity factor, `n` shared
/// experts, `E` routed experts. Gated DeltaNet layers (`L_dG`, `L_eG`) keep
/// `G` values in place of `A`, `g` fp32 bytes a token and no scores.
fn general_derivation(arch: &Architecture, setup: &ActivationSetup, unit: MemoryUnit) -> String {
    let number = crate::format::format_number;
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let (e, mask) = (setup.bytes_per_value, u8::from(setup.dropout));
    let m = match arch.mlp {
        Mlp::Gelu => 2,
        Mlp::SwiGlu => 4,
    };
    let (e_text, e2_text) = (number(e), number(2.0 * e + f64::from(mask)));
    let a_text = crate::decimal::shortest_decimal(attention_term(arch));
    let two_e = if setup.dropout { "(2e + 1)" } else { "2e" };
    let (dropout_symbols, dropout_numbers) = match setup.dropout {
        true => (" + 2·s·b·h".to_string(), format!(" + 2 × {s} × {b} × {h}")),
        false => Default::default(),
    };
    let mut tail_symbols = dropout_symbols.clone();
    let mut tail_numbers = dropout_numbers.clone();
    if setup.scores_counted() {
        tail_symbols.push_str(&format!(" + {two_e}·a·s²·b"));
        tail_numbers.push_str(&format!(" + {e2_text} × {} × {s}² × {b}", arch.heads));
    }
    let moe = arch.moe;
    // FP8: the linears' inputs in one byte (`o` the output projection's).
    let o = output_width(arch) as u64;
    let (fp8_dense, fp8_sparse) = match setup.fp8 {
        false => Default::default(),
        true => (
            (
                " − s·b·(2h + o + f)".to_string(),
                format!(" − {s} × {b} × (2 × {h} + {o} + {})", arch.ffn),
            ),
            (
                " − s·b·(h + o + t·c·(h + f_e) + n·f_s)".to_string(),
                format!(
                    " − {s} × {b} × ({h} + {o} + {} × {} × ({h} + {}) + {} × {})",
                    moe.top_k,
                    number(setup.capacity),
                    moe.expert_ffn,
                    moe.shared_experts,
                    moe.shared_ffn
                ),
            ),
        ),
    };
    // Each kind of layer's terms: its mixer's values (`A`, or with Gated
    // DeltaNet `G` and `g` fp32 bytes, no scores: see [`linear_values`]),
    // its MLP's, and the rest.
    let g_text = crate::decimal::shortest_decimal(norm_inputs(arch) + linear_values(arch));
    let dense_mlp = ("m·f)".to_string(), format!("{m} × {})", arch.ffn));
    let sparse_mlp = (
        "t·c·(h + m·f_e) + n·m·f_s) + 4·s·b·E".to_string(),
        format!(
            "{} × {} × ({h} + {m} × {}) + {} × {m} × {}) + 4 × {s} × {b} × {}",
            moe.top_k,
            number(setup.capacity),
            moe.expert_ffn,
            moe.shared_experts,
            moe.shared_ffn,
            moe.experts,
        ),
    );
    let linear_tail = (
        format!(" + g·s·b{dropout_symbols}"),
        format!(
            " + {} × {s} × {b}{dropout_numbers}",
            linear_fp32_bytes(arch) as u64
        ),
    );
    let no_fp8 = (String::new(), String::new());
    let bracket = |linear: bool, moe_layer: bool| {
        let (mlp, fp8) = match moe_layer {
            true => (&sparse_mlp, &fp8_sparse),
            false => (&dense_mlp, &fp8_dense),
        };
        let (mixer, number, fp8, tail) = match linear {
            true => ("G", &g_text, &no_fp8, &linear_tail),
            false => (
                "A",
                &a_text,
                fp8,
                &(tail_symbols.clone(), tail_numbers.clone()),
            ),
        };
        (
            format!("e·s·b·({mixer} + {}{}{}", mlp.0, fp8.0, tail.0),
            format!(
                "{e_text} × {s} × {b} × ({number} + {}{}{}",
                mlp.1, fp8.1, tail.1
            ),
        )
    };
    // Each kind of layer: its count, name, terms and bytes a token (the
    // widest is rebuilt under full recomputation, as [`stage_activations`]).
    let mut counts = [0u32; 4];
    for i in 0..arch.layers {
        let kind =
            2 * usize::from(i >= arch.dense_layer_count()) + usize::from(arch.is_linear_layer(i));
        counts[kind] += 1;
    }
    let scores = match setup.scores_counted() {
        true => (2.0 * e + f64::from(mask)) * f64::from(arch.heads) * f64::from(s),
        false => 0.0,
    };
    // The kinds present, in one loop (each kind's terms written once).
    let mut present = Vec::new();
    for (kind, name) in ["L_d", "L_dG", "L_e", "L_eG"].into_iter().enumerate() {
        if counts[kind] == 0 {
            continue;
        }
        let (moe, linear) = (kind >= 2, kind % 2 == 1);
        let v = layer_values(arch, setup, moe, linear);
        let bytes = v.outside + v.inside + v.gathered + if linear { 0.0 } else { scores };
        present.push((counts[kind], name, bracket(linear, moe), bytes));
    }
    let present = present.into_iter();
    let (symbols, numbers) = match setup.recompute {
        Recompute::Full => {
            let widest = present
                .reduce(|a, b| if b.3 > a.3 { b } else { a })
                .map(|kind| kind.2)
                .unwrap_or_default();
            recomputed_terms(setup, (arch.layers, h), widest)
        }
        _ => {
            let parts: Vec<(String, String)> = present
                .map(|(count, name, (sym, num), _)| {
                    (format!("{name}·[{sym}]"), format!("{count} × [{num}]"))
                })
                .collect();
            (
                parts
                    .iter()
                    .map(|p| p.0.as_str())
                    .collect::<Vec<_>>()
                    .join(" + "),
                parts
                    .iter()
                    .map(|p| p.1.as_str())
                    .collect::<Vec<_>>()
                    .join(" + "),
            )
        }
    };
    let total = activation_memory(arch, setup).total;
    format!(
        "{symbols} + {two_e}·s·b·h + {}·s·b·v = {numbers} + {e2_text} × {s} × {b} × {h} + {} × {s} × {b} × {} B = {}",
        logit_symbol(arch),
        number(logit_bytes(arch, e)),
        arch.vocab,
        crate::format::format_bytes(total, unit)
    )
}

/// Full recomputation's terms over `layers` layers of one chunk, one
/// layer's `(symbols, numbers)` given: each checkpoint's input and the layers
/// rebuilt at once (`L·e·s·b·h + [layer]` per layer, `⌈L/N⌉·e·s·b·h +
/// N·[layer]` in groups of N), or with the block method N inputs and the
/// `L − N` layers stored whole, the larger moment.
fn recomputed_terms(
    setup: &ActivationSetup,
    (layers, h): (u32, u32),
    (symbols, numbers): (String, String),
) -> (String, String) {
    let number = crate::format::format_number;
    let (e, s, b) = (
        number(setup.bytes_per_value),
        setup.seq_len,
        setup.micro_batch,
    );
    let kept = setup.checkpointing.chunk(layers);
    // What multiplies the inputs and the layers' terms, in symbols and in numbers.
    let (inputs, whole, count) = match (setup.checkpointing.method, kept) {
        (
            _,
            ChunkCheckpoints {
                stored: 0,
                rebuilt: 1,
                ..
            },
        ) => ("L", "", 1),
        (RecomputeMethod::Uniform, _) => ("⌈L/N⌉", "N·", kept.rebuilt),
        (RecomputeMethod::Block, _) => ("N", "(L − N)·", kept.stored),
    };
    let times = match count {
        1 => String::new(),
        n => format!("{n} × "),
    };
    (
        format!("{inputs}·e·s·b·h + {whole}[{symbols}]"),
        format!(
            "{} × {e} × {s} × {b} × {h} + {times}[{numbers}]",
            kept.inputs
        ),
    )
}

/// Values per token of one layer's attention, kept in 16 bits (times `e`):
/// the QKV input, Q, K, V, the output projection's input, the two norms'
/// inputs and the MLP's input, `4h + q + k + v + o`: Korthikanti's `6h + 2k`
/// when q and the output are `hidden` wide (with Gemma's four norms `6h + …`,
/// [`norm_inputs`]). Latent attention adds its compressed query and key/value
/// (each a norm's input and the up-projection's input, `2·q_rank +
/// 2·kv_rank`, and the rotary key, `rope`).
fn attention_term(arch: &Architecture) -> f64 {
    let (q, k) = (arch.q_width() as f64, arch.kv_width() as f64);
    let (v, o) = if arch.mla.is_latent() {
        (arch.v_width() as f64, arch.v_width() as f64)
    } else {
        (k, q)
    };
    // The gated attention's output before the gate and the gate's sigmoid.
    let gate = if arch.gated_attention { 2.0 * q } else { 0.0 };
    norm_inputs(arch) + q + k + v + o + gate + latent_term(arch)
}

/// The chunk of tokens Gated DeltaNet's kernels work in (flash-linear-
/// attention's `chunk_gated_delta_rule`, BT = 64).
const DELTA_RULE_CHUNK: f64 = 64.0;

/// Values per token one Gated DeltaNet layer keeps at the model's precision
/// beside its norms' `4h`, as transformers' `Qwen3NextGatedDeltaNet` runs on
/// a GPU with its fast kernels (not measured: read from the code): the
/// convolution's input q, k, v (`causal_conv1d_fn` keeps it, `2k + v`);
/// `chunk_gated_delta_rule`'s q and k (l2-normalised copies) and v (`2k + v`),
/// β and its chunk-local matrix `A` (`(64 + 1)` a value head; it recomputes
/// the chunks' states in backward rather than keeping them); the gated norm's
/// input and gate `z` and the output projection's input (`3v`). k and v are
/// the key and value widths, heads × head size.
fn linear_values(arch: &Architecture) -> f64 {
    let l = arch.linear;
    let (k, v) = (l.key_width() as f64, l.value_width() as f64);
    2.0 * (2.0 * k + v) + 3.0 * v + (DELTA_RULE_CHUNK + 1.0) * f64::from(l.v_heads)
}

/// Bytes per token one Gated DeltaNet layer keeps in fp32: the decay's
/// softplus input and output, its chunk-wise cumulative sum and the gated
/// norm's reciprocal RMS (one each a value head), q's and k's l2-norm
/// reciprocals (one each a key head).
fn linear_fp32_bytes(arch: &Architecture) -> f64 {
    let l = arch.linear;
    4.0 * (4.0 * f64::from(l.v_heads) + 2.0 * f64::from(l.k_heads))
}

/// The values per token outside the tensor-parallel region that the layer's
/// norms and first linears keep: the two norms' inputs and the QKV and MLP
/// inputs, `4h`; with Gemma's four norms the post-norms' inputs too (the
/// attention's and the MLP's outputs), `6h`; in Cohere's parallel block one
/// norm's input and its output, which QKV and the MLP both read, `2h`.
fn norm_inputs(arch: &Architecture) -> f64 {
    let norms = if arch.parallel_block {
        2.0
    } else if arch.sandwich_norms {
        6.0
    } else {
        4.0
    };
    norms * f64::from(arch.hidden)
}

/// Latent attention's compressed query and key/value per token, each a
/// norm's input and an up-projection's input, and the rotary key:
/// `2·q_rank + 2·kv_rank + rope` (0 without latent attention).
fn latent_term(arch: &Architecture) -> f64 {
    if arch.mla.is_latent() {
        2.0 * f64::from(arch.mla.q_rank)
            + 2.0 * f64::from(arch.mla.kv_rank)
            + f64::from(arch.mla.rope_dim)
    } else {
        0.0
    }
}

/// Values per token of a dense MLP (`m·f`, m = 2 for GELU, 4 for SwiGLU) and
/// of a mixture of experts: each token's `top_k` routed copies (× the capacity
/// factor) keep their dispatched input and the expert's `m·f_e`, and every
/// shared expert its `m·f_s`.
fn mlp_terms(arch: &Architecture, capacity: f64) -> (f64, f64) {
    let m = match arch.mlp {
        Mlp::Gelu => 2.0,
        Mlp::SwiGlu => 4.0,
    };
    let moe = arch.moe;
    let routed =
        f64::from(moe.top_k) * capacity * (f64::from(arch.hidden) + m * f64::from(moe.expert_ffn));
    let shared = f64::from(moe.shared_experts) * m * f64::from(moe.shared_ffn);
    (m * f64::from(arch.ffn), routed + shared)
}

/// Whether the architecture is the one Korthikanti's formula is written for
/// (dense, `hidden`-wide queries, no latent attention): the derivation then
/// shows the paper's terms.
pub const fn is_plain(arch: &Architecture) -> bool {
    !arch.moe.is_moe()
        && !arch.mla.is_latent()
        && !arch.sandwich_norms
        && !arch.parallel_block
        && !arch.gated_attention
        && !arch.linear.is_some()
        && arch.q_width() == arch.hidden as u64
}

/// The formula of [`activation_memory`] with `architecture`'s and `setup`'s own
/// numbers, for a learner to follow, the total in `unit`. For Llama-3-8B at
/// 2,048 tokens with FlashAttention:
///
/// ```
/// use vram_core::memory::activations::{
///     activation_derivation, ActivationSetup, Checkpointing, Recompute,
/// };
/// use vram_core::model::presets::model_preset;
/// use vram_core::format::MemoryUnit;
///
/// let llama3 = model_preset("llama3-8b").unwrap().architecture;
/// let setup = ActivationSetup {
///     seq_len: 2048,
///     micro_batch: 1,
///     bytes_per_value: 2.0,
///     flash_attention: true,
///     recompute: Recompute::None,
///     checkpointing: Checkpointing::EVERY_LAYER,
///     dropout: false,
///     capacity: 1.0,
///     fp8: false,
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
    if !is_plain(architecture) {
        return general_derivation(architecture, setup, unit);
    }
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
    // FP8: the QKV, MLP, output and down projections' inputs in one byte.
    if setup.fp8 {
        symbols.push_str(" − s·b·(3h + f)");
        numbers.push_str(&format!(" − {s} × {b} × (3 × {h} + {})", architecture.ffn));
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
        Recompute::Full => recomputed_terms(setup, (layers, h), (symbols, numbers)),
        _ => (format!("L·[{symbols}]"), format!("{layers} × [{numbers}]")),
    };
    let total = activation_memory(architecture, setup).total;
    format!(
        "{symbols} + {two_e}·s·b·h + {}·s·b·v = {numbers} + {e2_text} × {s} × {b} × {h} + {} × {s} × {b} × {} B = {}",
        logit_symbol(architecture),
        number(logit_bytes(architecture, e)),
        architecture.vocab,
        crate::format::format_bytes(total, unit)
    )
}

/// Bytes a logit keeps for backward: the logits (e) and the loss's fp32
/// log-softmax (4), and soft-capped logits' tanh output (e more, measured on
/// Gemma 2: `measured/attention-variants.json`).
fn logit_bytes(arch: &Architecture, e: f64) -> f64 {
    if arch.logit_softcap {
        2.0 * e + 4.0
    } else {
        e + 4.0
    }
}

/// The logits' term in a formula: `(e + 4)`, or `(2e + 4)` soft-capped.
fn logit_symbol(arch: &Architecture) -> &'static str {
    if arch.logit_softcap {
        "(2e + 4)"
    } else {
        "(e + 4)"
    }
}

/// What one GPU of pipeline rank `rank` keeps for the backward pass under
/// `layout`, `microbatches` per step (unknown: the pipeline full).
///
/// Korthikanti et al. 2022, Table 2, generalised as [`crate::memory::activations`]
/// does: TP divides what lives inside the tensor-parallel region (Q, K, V, the
/// output projection's input, the MLP, the attention scores), SP divides the
/// rest too (the norms' inputs, the dropout masks, the QKV and MLP inputs);
/// neither divides the routed experts' inputs, gathered over TP (Megatron-LM
/// runs the experts with ETP = TP; [`LayerValues::gathered`]);
/// full recomputation keeps each layer's input (÷ TP with SP) and rebuilds one
/// layer; CP divides the sequence (each rank keeps its s ÷ CP queries' values,
/// and without FlashAttention their scores against all s keys). The rank's
/// layers are held [`Layout::in_flight`] times; the first stage adds the
/// embedding's dropout mask, the last the final norm's and the output head's
/// inputs and the vocabulary-parallel logits (÷ TP).
pub fn stage_activations(
    arch: &Architecture,
    setup: &ActivationSetup,
    layout: &Layout,
    rank: u32,
    microbatches: Option<u32>,
) -> ActivationMemory {
    let tp = f64::from(layout.tp);
    let cp = f64::from(layout.cp);
    let outside = if layout.sp { tp } else { 1.0 };
    let s = f64::from(setup.seq_len) / cp;
    let b = f64::from(setup.micro_batch);
    let h = f64::from(arch.hidden);
    let v = f64::from(arch.vocab);
    let e = setup.bytes_per_value;
    let mask = if setup.dropout { 1.0 } else { 0.0 };
    let scores_counted = !setup.flash_attention && setup.recompute != Recompute::Selective;
    let layer = |moe: bool, linear: bool| {
        let values = layer_values(arch, setup, moe, linear);
        (values.outside / outside + values.inside / tp + values.gathered) * s * b
    };
    // Each kind of layer (dense or a mixture, full or linear attention), the
    // scores kept by full attention's only.
    let scores = if scores_counted {
        (2.0 * e + mask) * f64::from(arch.heads) * s * f64::from(setup.seq_len) * b / tp
    } else {
        0.0
    };
    let mut kinds = [[0.0; 2]; 2];
    for kind in 0..4 {
        let (moe, linear) = (kind / 2, kind % 2);
        let unscored = if linear == 1 { 0.0 } else { scores };
        kinds[moe][linear] = layer(moe == 1, linear == 1) + unscored;
    }
    let dense_layers = arch.dense_layer_count();
    let full = setup.recompute == Recompute::Full;
    let chunk = layout.chunk_layers(rank, arch.layers);
    let checkpoints = setup.checkpointing.chunk(chunk);
    // The rank's layers by kind, and what block recomputation leaves stored
    // whole: each chunk's layers after its first N.
    let mut here = [[0.0; 2]; 2];
    let (mut kept_here, mut stored) = (0.0, 0.0);
    // The rank's chunks, one in every round of virtual stages
    // (`Layout::chunk_start`), visited without the other ranks' layers.
    for c in 0..layout.vpp {
        let first = layout.chunk_start(c, rank, arch.layers);
        for i in first..(first + chunk).min(arch.layers) {
            let (moe, linear) = (
                usize::from(i >= dense_layers),
                usize::from(arch.is_linear_layer(i)),
            );
            here[moe][linear] += 1.0;
            let kept = kinds[moe][linear];
            kept_here += kept;
            if i - first >= chunk - checkpoints.stored {
                stored += kept;
            }
        }
    }
    // One layer: the largest kind the rank holds (its scores included).
    let widest = (0..4)
        .filter(|k| here[k / 2][k % 2] > 0.0)
        .map(|k| kinds[k / 2][k % 2])
        .fold(0.0, f64::max);
    let in_flight = layout.in_flight(rank, microbatches);
    let (per_layer, layers, rebuilding) = if full {
        // The checkpointed inputs and the stored layers of every microbatch
        // in flight; while a group is rebuilt, its own chunk's stored layers
        // are already freed (the backward pass reaches them first).
        let input = e * s * b * h / outside;
        let inputs = f64::from(checkpoints.inputs * layout.vpp);
        let held = (inputs * input + stored) * in_flight;
        let rebuilding =
            held - stored / f64::from(layout.vpp) + f64::from(checkpoints.rebuilt) * widest;
        // One layer's own values, without the scores it rebuilds with.
        let bare = (0..4)
            .filter(|k| here[k / 2][k % 2] > 0.0)
            .map(|k| layer(k / 2 == 1, k % 2 == 1))
            .fold(0.0, f64::max);
        (bare, held, Some(rebuilding))
    } else {
        (widest, kept_here * in_flight, None)
    };
    let mut outside_layers = 0.0;
    if rank == 0 {
        outside_layers += mask * s * b * h / outside * in_flight;
    }
    if rank == layout.pp - 1 {
        outside_layers += 2.0 * e * s * b * h / outside + logit_bytes(arch, e) * s * b * v / tp;
    }
    let peak = rebuilding.map_or(layers, |r| r.max(layers));
    ActivationMemory {
        per_layer: Bytes::new(per_layer),
        layers: Bytes::new(peak),
        embeddings_and_logits: Bytes::new(outside_layers),
        adapters: Bytes::ZERO,
        total: Bytes::new(peak + outside_layers),
        at_loss: Bytes::new(layers + outside_layers),
        rebuilding: rebuilding.map(|r| Bytes::new(r + outside_layers)),
    }
}

/// The activation memory of `architecture` trained as `setup`, per GPU.
pub fn activation_memory(architecture: &Architecture, setup: &ActivationSetup) -> ActivationMemory {
    stage_activations(architecture, setup, &Layout::SINGLE, 0, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn paper_setup(recompute: Recompute, flash_attention: bool) -> ActivationSetup {
        ActivationSetup {
            seq_len: 2048,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention,
            recompute,
            checkpointing: Checkpointing::EVERY_LAYER,
            dropout: true,
            capacity: 1.0,
            fp8: false,
        }
    }

    fn gpt3() -> Architecture {
        model_preset("gpt3-175b").unwrap().architecture
    }

    /// Gemma's four norms a layer (issue 26): the post-norms keep their inputs,
    /// the attention's and the MLP's outputs, 2h values a token more outside
    /// the tensor-parallel region.
    #[wasm_bindgen_test(unsupported = test)]
    fn four_norms_keep_two_more_inputs() {
        let gemma = model_preset("gemma2-9b").unwrap().architecture;
        let two = Architecture {
            sandwich_norms: false,
            ..gemma
        };
        let setup = ActivationSetup {
            dropout: false,
            ..paper_setup(Recompute::None, true)
        };
        let more = activation_memory(&gemma, &setup).per_layer.get()
            - activation_memory(&two, &setup).per_layer.get();
        assert_eq!(more, 2.0 * 2048.0 * 2.0 * 3584.0);
    }

    /// FP8 (issue 28): Transformer Engine's linears save their inputs in one
    /// byte (`module/linear.py`): Llama 2 7B's QKV and MLP inputs (2h), the
    /// output projection's (h) and the down projection's (f) take half their
    /// 16-bit bytes; the norms' inputs, Q, K, V and the SwiGLU's values stay.
    /// Mixtral's experts: the QKV input, the output projection's, and the
    /// gathered routed inputs and their down projections' (t·(h + f_e)); its
    /// router's input stays (no TE linear).
    #[wasm_bindgen_test(unsupported = test)]
    fn fp8_keeps_the_linears_inputs_in_one_byte() {
        let per_layer = |id: &str, fp8: bool| {
            let arch = model_preset(id).unwrap().architecture;
            let setup = ActivationSetup {
                dropout: false,
                fp8,
                ..paper_setup(Recompute::None, true)
            };
            activation_memory(&arch, &setup).per_layer.get()
        };
        let s = 2048.0;
        let saved = per_layer("llama2-7b", false) - per_layer("llama2-7b", true);
        assert_eq!(saved, s * (2.0 * 4096.0 + 4096.0 + 11008.0));
        let saved = per_layer("mixtral-8x7b", false) - per_layer("mixtral-8x7b", true);
        assert_eq!(saved, s * (4096.0 + 4096.0 + 2.0 * (4096.0 + 14336.0)));
    }

    /// Issue 28, item 4: with TP 2 and SP, Mixtral 8×7B's routed tokens are
    /// gathered over the expert-tensor-parallel group before the experts
    /// (Megatron-LM's `token_dispatcher.py`): each rank keeps every routed
    /// copy's `h`-wide input whole, and half of the experts' `4·f_e`. The
    /// rest of the layer halves as Korthikanti's SP row says.
    #[wasm_bindgen_test(unsupported = test)]
    fn routed_experts_keep_their_gathered_inputs_whole_under_tensor_parallelism() {
        let arch = model_preset("mixtral-8x7b").unwrap().architecture;
        let setup = ActivationSetup {
            dropout: false,
            seq_len: 4096,
            ..paper_setup(Recompute::Selective, true)
        };
        let (s, h) = (4096.0, f64::from(arch.hidden));
        let (k, f) = (arch.kv_width() as f64, f64::from(arch.moe.expert_ffn));
        let per_layer = |tp: u32| {
            let layout = Layout {
                tp,
                sp: tp > 1,
                ..Layout::SINGLE
            };
            stage_activations(&arch, &setup, &layout, 0, Some(1))
                .per_layer
                .get()
        };
        // One GPU: attention 6h + 2k, two routed copies of (h + 4·f_e), the
        // router's fp32 logits over 8 experts.
        let attention = 2.0 * s * (6.0 * h + 2.0 * k);
        let routed = 2.0 * s * 2.0 * (h + 4.0 * f);
        let router = 4.0 * s * 8.0;
        assert_eq!(per_layer(1), attention + routed + router);
        // TP 2 with SP: all of it halves but the routed copies' inputs.
        let inputs = 2.0 * s * 2.0 * h;
        let expected = (attention + routed - inputs + router) / 2.0 + inputs;
        assert!((per_layer(2) / expected - 1.0).abs() < 1e-12);
        // 5.5 % more than halving everything would keep.
        let more = per_layer(2) / ((attention + routed + router) / 2.0) - 1.0;
        assert!((0.054..0.056).contains(&more), "{more}");
    }

    /// The lesson's example (Q5): 100 layers keeping 10 checkpoints keep
    /// about a tenth of what storing everything keeps. Megatron-LM's uniform
    /// method with `--recompute-num-layers 10` keeps ten group inputs and,
    /// while a group is rebuilt, its ten layers.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_hundred_layers_with_ten_checkpoints_keep_about_a_tenth() {
        let arch = Architecture {
            layers: 100,
            ..gpt3()
        };
        let stored = activation_memory(&arch, &paper_setup(Recompute::None, true));
        let grouped = activation_memory(
            &arch,
            &ActivationSetup {
                checkpointing: Checkpointing {
                    method: RecomputeMethod::Uniform,
                    layers: 10,
                },
                ..paper_setup(Recompute::Full, true)
            },
        );
        let input = 2.0 * 2048.0 * 12288.0;
        let layer = stored.per_layer.get();
        assert_eq!(grouped.layers.get(), 10.0 * input + 10.0 * layer);
        // Before the backward pass, only the ten inputs.
        assert_eq!(
            grouped.at_loss.get() - grouped.embeddings_and_logits.get(),
            10.0 * input
        );
        let share = grouped.layers.get() / stored.layers.get();
        assert!((0.10..0.11).contains(&share), "{share}");
    }

    /// Megatron-LM's block method checkpoints a chunk's first N layers, each
    /// alone, and stores the others whole: N = the chunk is per-layer
    /// checkpointing, fewer trade memory for less recomputation.
    #[wasm_bindgen_test(unsupported = test)]
    fn block_recomputation_stores_the_layers_it_does_not_checkpoint() {
        let arch = gpt3();
        let block = |layers| {
            let setup = ActivationSetup {
                checkpointing: Checkpointing {
                    method: RecomputeMethod::Block,
                    layers,
                },
                ..paper_setup(Recompute::Full, true)
            };
            (activation_memory(&arch, &setup), setup.recomputed_share(96))
        };
        let every = activation_memory(&arch, &paper_setup(Recompute::Full, true));
        let (all, share) = block(96);
        assert_eq!((all.total, share), (every.total, 1.0));
        let stored = activation_memory(&arch, &paper_setup(Recompute::None, true));
        let input = 2.0 * 2048.0 * 12288.0;
        let layer = stored.per_layer.get();
        let (half, share) = block(48);
        assert_eq!(share, 0.5);
        // At the loss: 48 inputs and 48 whole layers; while the first 48 are
        // rebuilt one at a time, the 48 stored ones are already freed.
        assert_eq!(half.layers.get(), 48.0 * input + 48.0 * layer);
        assert_eq!(half.at_loss, half.total);
        assert_eq!(
            half.rebuilding.unwrap().get(),
            half.total.get() - 48.0 * layer + layer
        );
        assert!(every.total.get() < half.total.get() && half.total.get() < stored.total.get());
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn gpt3_layer_stores_sbh_34_plus_5as_over_h() {
        // 2048 × 12288 × (34 + 5 × 96 × 2048 / 12288) = 25,165,824 × 114.
        let memory = activation_memory(&gpt3(), &paper_setup(Recompute::None, false));
        assert_eq!(memory.per_layer.get(), 2_868_903_936.0);
        assert_eq!(memory.layers.get(), 96.0 * 2_868_903_936.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
    fn full_recomputation_keeps_layer_inputs_and_one_working_set() {
        let memory = activation_memory(&gpt3(), &paper_setup(Recompute::Full, false));
        let sbh = 2048.0 * 12288.0;
        assert_eq!(memory.layers.get(), 96.0 * 2.0 * sbh + 2_868_903_936.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
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
            checkpointing: Checkpointing::EVERY_LAYER,
            dropout: false,
            capacity: 1.0,
            fp8: false,
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
    /// with `+`, `−`, `×`, `²`, `( )` and `[ ]`.
    fn evaluate(expression: &str) -> f64 {
        type Tokens = std::iter::Peekable<std::vec::IntoIter<char>>;
        fn sum(t: &mut Tokens) -> f64 {
            let mut value = product(t);
            while let Some(sign) = t.next_if(|c| matches!(c, '+' | '−')) {
                match sign {
                    '+' => value += product(t),
                    _ => value -= product(t),
                }
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

    /// Beyond Korthikanti's architecture (a head size of its own, experts,
    /// latent attention), the generalised formula's numbers still add up to
    /// the figure, with every recomputation, dropout and capacity.
    #[wasm_bindgen_test(unsupported = test)]
    fn generalised_derivations_add_up_for_experts_and_latent_attention() {
        for id in [
            "qwen3-0.6b",
            "mixtral-8x7b",
            "qwen3-30b-a3b",
            "deepseek-v3",
            "qwen3-next-80b-a3b",
        ] {
            let arch = model_preset(id).unwrap().architecture;
            assert!(!is_plain(&arch), "{id}");
            for recompute in Recompute::ALL {
                for (dropout, flash, capacity, fp8) in [
                    (false, true, 1.0, false),
                    (true, false, 1.25, false),
                    (false, true, 1.25, true),
                ] {
                    // FP8 is not counted with linear attention.
                    if fp8 && arch.linear.is_some() {
                        continue;
                    }
                    let setup = ActivationSetup {
                        seq_len: 4096,
                        micro_batch: 2,
                        bytes_per_value: 2.0,
                        flash_attention: flash,
                        recompute,
                        checkpointing: Checkpointing::EVERY_LAYER,
                        dropout,
                        capacity,
                        fp8,
                    };
                    let text = activation_derivation(&arch, &setup, MemoryUnit::Gb);
                    let numbers = text.split(" = ").nth(1).expect("numbers");
                    let numbers = numbers.strip_suffix(" B").expect("in bytes");
                    let total = activation_memory(&arch, &setup).total.get();
                    assert_eq!(evaluate(numbers), total, "{id}: {text}");
                }
            }
        }
        // Mixtral's experts: two copies of each token, each with its input and
        // the expert's four SwiGLU values, and the router's fp32 logits.
        let mixtral = model_preset("mixtral-8x7b").unwrap().architecture;
        let setup = |capacity| ActivationSetup {
            seq_len: 1,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention: true,
            recompute: Recompute::None,
            checkpointing: Checkpointing::EVERY_LAYER,
            dropout: false,
            capacity,
            fp8: false,
        };
        let one = activation_memory(&mixtral, &setup(1.0)).per_layer.get();
        let attention = 2.0 * (6.0 * 4096.0 + 2.0 * 1024.0);
        assert_eq!(
            one,
            attention + 2.0 * 2.0 * (4096.0 + 4.0 * 14336.0) + 4.0 * 8.0
        );
        let imbalanced = activation_memory(&mixtral, &setup(1.5)).per_layer.get();
        assert_eq!(imbalanced - one, 2.0 * 1.0 * (4096.0 + 4.0 * 14336.0));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn derivations_add_up_to_the_figures_they_explain() {
        let llama3 = model_preset("llama3-8b").unwrap().architecture;
        let mut cases = Vec::new();
        for recompute in Recompute::ALL {
            for flash_attention in [false, true] {
                cases.push((gpt3(), paper_setup(recompute, flash_attention)));
                let setup = ActivationSetup {
                    dropout: false,
                    capacity: 1.0,
                    micro_batch: 3,
                    ..paper_setup(recompute, flash_attention)
                };
                cases.push((llama3, setup));
            }
        }
        // Megatron-LM's groups and blocks, dividing the layers or not.
        for (method, layers) in [
            (RecomputeMethod::Uniform, 4),
            (RecomputeMethod::Uniform, 5),
            (RecomputeMethod::Block, 10),
            (RecomputeMethod::Block, 32),
        ] {
            for flash_attention in [false, true] {
                let setup = ActivationSetup {
                    checkpointing: Checkpointing { method, layers },
                    ..paper_setup(Recompute::Full, flash_attention)
                };
                cases.push((gpt3(), setup));
                cases.push((llama3, setup));
            }
        }
        // FP8's one-byte linear inputs.
        for recompute in Recompute::ALL {
            let setup = ActivationSetup {
                fp8: true,
                dropout: false,
                ..paper_setup(recompute, true)
            };
            cases.push((llama3, setup));
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
            let kept = setup.checkpointing.chunk(architecture.layers);
            let symbols = symbols
                .replace("⌈L/N⌉", &format!("({})", kept.inputs))
                .replace("(L − N)", &format!("({})", kept.stored))
                .replace('N', &format!("({})", setup.checkpointing.layers));
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

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
    fn derivation_of_full_recomputation_keeps_inputs_and_one_working_set() {
        let llama3 = model_preset("llama3-8b").unwrap().architecture;
        let setup = ActivationSetup {
            dropout: false,
            capacity: 1.0,
            ..paper_setup(Recompute::Full, true)
        };
        assert_eq!(
            activation_derivation(&llama3, &setup, MemoryUnit::Gib),
            "L·e·s·b·h + [e·s·b·(6h + 2k + m·f)] + 2e·s·b·h + (e + 4)·s·b·v = \
             32 × 2 × 2048 × 1 × 4096 + [2 × 2048 × 1 × (6 × 4096 + 2 × 1024 + 4 × 14336)] + \
             4 × 2048 × 1 × 4096 + 6 × 2048 × 1 × 128256 B = 2.32 GiB"
        );
    }

    /// Qwen3-Next at 4,096 tokens in 16 bits: each of its 36 Gated DeltaNet
    /// layers keeps, beside the norms' 4h, the convolution's input and the
    /// delta rule's q, k, v (2 × (2 × 2048 + 4096)), z, the norm's input and
    /// the output projection's input (3 × 4096), β and the chunk matrix
    /// (65 × 32) at 2 bytes, and 4 × (4 × 32 + 2 × 16) fp32 bytes, where a
    /// gated full-attention layer keeps q, k, v, o and the gate's two
    /// (4096 + 512 + 512 + 4096 + 2 × 4096); without FlashAttention only the
    /// 12 full layers keep scores.
    #[wasm_bindgen_test(unsupported = test)]
    fn linear_attention_layers_keep_their_own_values_and_no_scores() {
        let next = model_preset("qwen3-next-80b-a3b").unwrap().architecture;
        let all_full = Architecture {
            linear: crate::model::architecture::LinearAttention::NONE,
            ..next
        };
        let setup = |flash_attention| ActivationSetup {
            seq_len: 4096,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention,
            recompute: Recompute::None,
            checkpointing: Checkpointing::EVERY_LAYER,
            dropout: false,
            capacity: 1.0,
            fp8: false,
        };
        let total = |arch: &Architecture, flash| activation_memory(arch, &setup(flash)).total.get();
        let linear = 2.0 * (2.0 * 2048.0 + 4096.0) + 3.0 * 4096.0 + 65.0 * 32.0;
        let full = 4096.0 + 512.0 + 512.0 + 4096.0 + 2.0 * 4096.0;
        let per_token = 2.0 * (linear - full) + 4.0 * (4.0 * 32.0 + 2.0 * 16.0);
        assert_eq!(
            total(&next, true) - total(&all_full, true),
            36.0 * 4096.0 * per_token
        );
        let scores = 2.0 * 2.0 * 16.0 * 4096.0 * 4096.0;
        assert_eq!(total(&next, false) - total(&next, true), 12.0 * scores);
        assert_eq!(
            total(&all_full, false) - total(&all_full, true),
            48.0 * scores
        );
    }
}
