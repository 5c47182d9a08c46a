//! Activations as Hugging Face transformers on PyTorch keeps them
//! (`framework=hf`): what one training step of a Llama-, Mistral- or
//! Qwen2-style model (`LlamaForCausalLM` and its kin) saves for backward, to
//! the byte.
//!
//! Derived from the tensors PyTorch saves (autograd's saved-tensor hooks, each
//! storage once, parameters left out) in transformers 5.24 on torch 2.15, and
//! checked against 96 measured cases (`crates/core/tests/measured/hf.json`,
//! `scripts/measure-activations`). With s tokens, b sequences, hidden h,
//! key/value width k, FFN f, a heads of width d, vocabulary v and e bytes of
//! compute per value:
//! - each RMSNorm keeps its input upcast to fp32 (4sbh), the fp32 reciprocal
//!   root (4sb), the normalised tensor and its weighted output (2e·sbh; under
//!   autocast the fp32 normalised tensor, 4sbh, and each consuming projection
//!   its own 16-bit cast of the input, 2sbh);
//! - SDPA keeps q, k, v (k and v at their key/value width, `enable_gqa`), its
//!   output (which is the output projection's input) and an fp32 log-sum-exp
//!   per head and token (4asb); eager attention keeps q, k and v repeated to
//!   the full width (a view, not a copy, with one key/value head and one
//!   sequence), the fp32 softmax (4as²b) and in 16 bits its 16-bit copy too,
//!   and the output projection's input;
//! - the SwiGLU MLP keeps the gate's and the up projection's outputs, the
//!   SiLU's and the product (4e·sbf);
//! - gradient checkpointing (`recompute=full`) keeps each layer's input (e·sbh)
//!   and nothing inside the layers;
//! - outside the layers: the token ids (8sb), the rotary cos and sin (2e·sd,
//!   fp32 under autocast, once for all layers and sequences), the final norm,
//!   the loss's fp32 log-softmax (4sbv), the shifted labels (8(s + 1) for one
//!   sequence, where the shift is a view; 8sb for more), a scalar (4), and the
//!   output logits (e·sbv);
//! - autocast also keeps a 16-bit copy of every linear weight (its cast cache)
//!   until backward: 2 bytes per weight of the blocks' projections and the
//!   output head.
//!
//! LoRA (`method=lora`, PEFT 0.21 on a frozen base) keeps what the frozen
//! layers need to pass gradients back and what the adapters need for their own
//! (checked against 192 measured cases, `crates/core/tests/measured/lora.json`,
//! `scripts/measure-lora-activations`): see [`HfLora`].
//!
//! What the CPU measurement does not show: FlashAttention-2's kernels
//! (`attn=flash_attention_2` is counted as SDPA's flash kernel, which saves the
//! same tensors), dropout masks (none here: the configs train without dropout),
//! and the CUDA allocator's caching and fragmentation.

use serde::{Deserialize, Serialize};

use crate::memory::activations::{ActivationMemory, ActivationSetup, Recompute};
use crate::memory::finetune::{block_linears, AdapterDtype, Adapters, Linear};
use crate::memory::step::StepTransients;
use crate::memory::Precision;
use vram_shared::model::architecture::{Architecture, Mlp};
use vram_shared::units::Bytes;

/// Whose activation accounting: Korthikanti et al.'s (Megatron-LM's), or what
/// Hugging Face transformers on PyTorch keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Framework {
    /// Korthikanti et al. 2022, the page's accounting until now.
    #[default]
    Megatron,
    /// Hugging Face transformers on PyTorch, as measured.
    Hf,
    /// LitGPT's own model on PyTorch, as measured ([`crate::frameworks::litgpt`]).
    LitGpt,
}

impl Framework {
    /// Every framework, in the order the page lists them.
    pub const ALL: [Framework; 3] = [Framework::Megatron, Framework::Hf, Framework::LitGpt];

    /// Whether the accounting is an eager PyTorch model's tensors as
    /// measured (Hugging Face's or LitGPT's), not Megatron-LM's: one layer
    /// a checkpoint, its own loss, no FP8, no model parallelism.
    pub const fn measured_on_pytorch(self) -> bool {
        matches!(self, Framework::Hf | Framework::LitGpt)
    }

    /// The value in the link's `framework` key.
    pub const fn key(self) -> &'static str {
        match self {
            Framework::Megatron => "megatron",
            Framework::Hf => "hf",
            Framework::LitGpt => "litgpt",
        }
    }
}

/// transformers' `attn_implementation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attention {
    /// The model's own matrix products and softmax.
    Eager,
    /// PyTorch's `scaled_dot_product_attention`.
    Sdpa,
    /// FlashAttention-2 (counted as SDPA's flash kernel).
    FlashAttention2,
}

impl Attention {
    /// Every implementation, in the order the page lists them.
    pub const ALL: [Attention; 3] = [
        Attention::Eager,
        Attention::Sdpa,
        Attention::FlashAttention2,
    ];

    /// The value in the link's `attn` key (transformers' own name).
    pub const fn key(self) -> &'static str {
        match self {
            Attention::Eager => "eager",
            Attention::Sdpa => "sdpa",
            Attention::FlashAttention2 => "flash_attention_2",
        }
    }
}

/// How the step computes: in fp32, in pure 16 bits (a model loaded in bf16),
/// or under autocast (fp32 weights, 16-bit compute: `Trainer(bf16=True)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Numerics {
    /// Everything in fp32.
    Fp32,
    /// Weights and compute in 16 bits.
    Pure16,
    /// fp32 weights, 16-bit compute under `torch.autocast`.
    Autocast16,
}

/// How Hugging Face computes in `precision`: fp32, pure 16 bits (the model
/// loaded in bf16), or autocast for the mixed precisions (fp32 weights, 16-bit
/// compute, as `Trainer(bf16=True)` or `fp16=True` runs).
pub fn numerics_of(precision: Precision) -> Numerics {
    match precision {
        Precision::Fp32 | Precision::Fp32Pure => Numerics::Fp32,
        Precision::Bf16Pure => Numerics::Pure16,
        // FP8 is refused under Hugging Face's accounting (`Config::setup`).
        Precision::Fp16 | Precision::Bf16 | Precision::Fp8 | Precision::Fp8Params => {
            Numerics::Autocast16
        }
    }
}

/// LoRA's adapters on a frozen base, as PEFT 0.21 trains them. What changes
/// from full training, each measured:
/// - a frozen linear keeps no input (its weight needs no gradient), so the
///   norms keep their fp32 input and root only (4sbh + 4sb), the MLP its gate,
///   up and SiLU outputs (3e·sbf), the final norm and the output head nothing
///   more, and the token ids are not kept; under autocast each frozen weight's
///   16-bit copy is still kept (the input's gradient needs it);
/// - the first layer's input needs no gradient (the embeddings are frozen): its
///   first norm keeps nothing, and what reads that norm's output (q, k, v and
///   their adapters' dropout) keeps nothing for it either;
/// - each adapted layer's `lora_A` keeps its input: the base's own tensor, one
///   for all the adapters reading it, when the adapters share the base's dtype;
///   else its own cast (fp32 for PEFT's default fp32 adapters on a 16-bit base,
///   16 bits under autocast); with dropout, its own dropout's output and what
///   the dropout keeps (see [`Self::dropout_on_cpu`]); `lora_B` keeps the
///   r-wide output of `lora_A`; under autocast both adapter weights' 16-bit copies;
/// - gradient checkpointing keeps the layers' inputs, as for full training.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HfLora {
    /// The adapters: which layers, their rank, dropout and dtype.
    pub adapters: Adapters,
    /// What each adapter's dropout keeps, a value: on a GPU one byte (CUDA's
    /// fused dropout keeps a boolean mask); on the CPU, where the measurement
    /// ran, the noise tensor it multiplies by, in the dropout's dtype (fp32
    /// under autocast, where it runs before `lora_A`'s cast).
    pub dropout_on_cpu: bool,
}

impl HfLora {
    /// LoRA as it runs on a GPU.
    pub const fn on_gpu(adapters: Adapters) -> HfLora {
        HfLora {
            adapters,
            dropout_on_cpu: false,
        }
    }
}

/// A step's sizes as values, in the module's letters: s tokens, b sequences,
/// hidden h, a heads of width d, key/value width k, FFN f, vocabulary v, and
/// the number of layers.
struct Sizes {
    s: f64,
    b: f64,
    h: f64,
    a: f64,
    d: f64,
    k: f64,
    f: f64,
    v: f64,
    layers: f64,
}

impl Sizes {
    /// The sizes of a step of `setup` on `arch`.
    fn of(arch: &Architecture, setup: &ActivationSetup) -> Sizes {
        Sizes {
            s: f64::from(setup.seq_len),
            b: f64::from(setup.micro_batch),
            h: f64::from(arch.hidden),
            a: f64::from(arch.heads),
            d: arch.head_dim() as f64,
            k: arch.kv_width() as f64,
            f: f64::from(arch.ffn),
            v: f64::from(arch.vocab),
            layers: f64::from(arch.layers),
        }
    }
}

/// The loss's shifted int64 labels as measured, bytes: 8(s + 1) for one
/// sequence, where the shift is a view; 8sb for more.
fn labels_bytes(setup: &ActivationSetup) -> f64 {
    let s = f64::from(setup.seq_len);
    if setup.micro_batch == 1 {
        8.0 * (s + 1.0)
    } else {
        8.0 * (s * f64::from(setup.micro_batch))
    }
}

/// What one step keeps for backward under Hugging Face transformers, per GPU,
/// training every parameter or, with `lora`, LoRA's adapters on a frozen base.
/// `per_layer` is one layer without checkpointing (with LoRA, one after the
/// first, adapters apart); `layers` what all keep (adapters apart);
/// `embeddings_and_logits` everything outside them, the output logits and, under
/// autocast, the weights' 16-bit copies included; `adapters` what only the
/// adapters keep.
pub fn hf_activation_memory(
    arch: &Architecture,
    setup: &ActivationSetup,
    numerics: Numerics,
    attention: Attention,
    lora: Option<HfLora>,
) -> ActivationMemory {
    let Sizes {
        s,
        b,
        h,
        a,
        d,
        k,
        f,
        v,
        layers,
    } = Sizes::of(arch, setup);
    let (sb, sbh) = (s * b, s * b * h);
    // The expand of repeat_kv stays a view with one key/value head and one sequence.
    let repeated = if arch.kv_heads == 1 && setup.micro_batch == 1 {
        k
    } else {
        h
    };
    let labels = labels_bytes(setup);
    let checkpointed = setup.recompute == Recompute::Full;
    let eager = attention == Attention::Eager;
    let (norm, per_layer, layer_input, rope, weight_copies, head_input, e) = match numerics {
        Numerics::Fp32 | Numerics::Pure16 => {
            let e = if numerics == Numerics::Fp32 { 4.0 } else { 2.0 };
            let norm = 4.0 * sbh + 4.0 * sb + 2.0 * e * sbh;
            let attention = if eager {
                let copy = if e == 4.0 { 0.0 } else { e * a * s * s * b };
                2.0 * e * sbh + 2.0 * e * sb * repeated + 4.0 * a * s * s * b + copy
            } else {
                e * sb * (2.0 * h + 2.0 * k) + 4.0 * a * sb
            };
            let mlp = 4.0 * e * sb * f;
            let layer = 2.0 * norm + attention + mlp;
            (norm, layer, e * sbh, 2.0 * e * s * d, 0.0, 0.0, e)
        }
        Numerics::Autocast16 => {
            let norm = 8.0 * sbh + 4.0 * sb;
            // q, k and v each cast their input; rotary embeddings in fp32 make
            // q and k fp32, so eager's cast of k materialises the full width.
            let attention = if eager {
                3.0 * 2.0 * sbh
                    + 2.0 * sbh
                    + 2.0 * sbh
                    + 6.0 * a * s * s * b
                    + 2.0 * sb * repeated
                    + 2.0 * sbh
            } else {
                3.0 * 2.0 * sbh + 2.0 * sbh + 4.0 * sb * k + 4.0 * a * sb + 2.0 * sbh
            };
            let mlp = 2.0 * 2.0 * sbh + 8.0 * sb * f;
            let block_weights = 2.0 * h * h + 2.0 * h * k + 3.0 * h * f;
            let layer = 2.0 * norm + attention + mlp + 2.0 * block_weights;
            (
                norm,
                layer,
                4.0 * sbh,
                2.0 * 4.0 * s * d,
                2.0 * v * h,
                2.0 * sbh,
                2.0,
            )
        }
    };
    let rope = if checkpointed { 0.0 } else { rope };
    if let Some(lora) = lora {
        // The frozen model's layers, a first and the others, and the adapters'.
        let autocast = numerics == Numerics::Autocast16;
        let kept_norm = 4.0 * sbh + 4.0 * sb;
        // Autocast's 16-bit casts of the inputs of q, k, v, gate and up, which
        // frozen layers do not keep.
        let casts = if autocast { 10.0 * sbh } else { 0.0 };
        let attention =
            per_layer - 2.0 * norm - weight_bytes(arch, autocast, true) - mlp_kept(numerics, sb, f);
        let base = |first: bool| {
            let norms = if first { kept_norm } else { 2.0 * kept_norm };
            norms + attention - casts + 3.0 * e * sb * f + weight_bytes(arch, autocast, !first)
        };
        let adapters = |first: bool| lora_kept(arch, &lora, numerics, e, sb, first);
        let base =
            |first: bool| base(first) + base_inputs_kept(arch, &lora, numerics, e, sb, first);
        let (base_layers, adapter_layers) = if checkpointed {
            (layers * layer_input, 0.0)
        } else {
            (
                base(true) + (layers - 1.0) * base(false),
                adapters(true) + (layers - 1.0) * adapters(false),
            )
        };
        let outside = rope + kept_norm + weight_copies + 4.0 * sb * v + labels + 4.0 + e * sb * v;
        return ActivationMemory {
            per_layer: Bytes::new(base(false)),
            layers: Bytes::new(base_layers),
            embeddings_and_logits: Bytes::new(outside),
            adapters: Bytes::new(adapter_layers),
            total: Bytes::new(base_layers + adapter_layers + outside),
            at_loss: Bytes::new(base_layers + adapter_layers + outside),
            rebuilding: None,
            loss_beyond_kept: (Bytes::ZERO, Bytes::ZERO),
        };
    }
    let kept_layers = if checkpointed {
        layers * layer_input
    } else {
        layers * per_layer
    };
    let outside = 8.0 * sb
        + rope
        + norm
        + weight_copies
        + head_input
        + 4.0 * sb * v
        + labels
        + 4.0
        + e * sb * v;
    // hf_step_transients gives this accounting's moments.
    ActivationMemory::without_adapters(per_layer, kept_layers, outside, None)
}

/// What full training's MLP keeps: the gate's and the up projection's outputs,
/// the SiLU's and the product (4e·sbf), and under autocast the gate's and up's
/// 16-bit casts of their input (2 × 2sbh, counted with the attention's casts
/// by the caller).
fn mlp_kept(numerics: Numerics, sb: f64, f: f64) -> f64 {
    match numerics {
        Numerics::Fp32 => 16.0 * sb * f,
        Numerics::Pure16 | Numerics::Autocast16 => 8.0 * sb * f,
    }
}

/// Under autocast, the 16-bit copies of one block's linear weights that its
/// backward keeps (2 bytes each): every one, or without `with_qkv` the
/// attention's output and the MLP's only (the first layer's q, k and v pass no
/// gradient back under LoRA). Nothing outside autocast.
fn weight_bytes(arch: &Architecture, autocast: bool, with_qkv: bool) -> f64 {
    if !autocast {
        return 0.0;
    }
    block_linears(arch)
        .filter(|&(role, _, _)| {
            with_qkv || !matches!(role, Linear::Query | Linear::Key | Linear::Value)
        })
        .map(|(_, d_in, d_out)| 2.0 * (d_in * d_out) as f64)
        .sum()
}

/// The inputs a QLoRA base's 4-bit linears keep in one layer (the first if
/// `first`) under bitsandbytes before 0.43.2, whose `MatMul4Bit` saved its
/// input whenever the input or the weight needed a gradient
/// ([`crate::memory::finetune::BnbRelease`]); none from 0.43.2. The
/// query/key/value projection's (but in the first layer, whose input needs
/// no gradient), the MLP's first linears' and the down projection's, each
/// tensor once, and not where an adapter keeps the same tensor already (an
/// adapter without dropout in the model's dtype); the output projection's
/// input is the attention's output, which the attention keeps. Under
/// autocast each linear's 16-bit cast of its input.
fn base_inputs_kept(
    arch: &Architecture,
    lora: &HfLora,
    numerics: Numerics,
    e: f64,
    sb: f64,
    first: bool,
) -> f64 {
    let a = &lora.adapters;
    if !a.keeps_base_inputs {
        return 0.0;
    }
    let (h, f) = (f64::from(arch.hidden), f64::from(arch.ffn));
    if numerics == Numerics::Autocast16 {
        // Each linear's own cast: q, k and v's (not the first layer's), gate
        // and up's, down's.
        let qkv = if first { 0.0 } else { 3.0 * 2.0 * sb * h };
        return qkv + 2.0 * 2.0 * sb * h + 2.0 * sb * f;
    }
    // An adapter reads the base's own tensor where it needs no cast of it
    // (`lora_kept`'s rule): in fp32, or in 16 bits with adapters of the model's dtype.
    let shared = !a.dropout
        && match numerics {
            Numerics::Fp32 => true,
            _ => a.adapter_dtype == AdapterDtype::Model,
        };
    let adapter_reads = |roles: &[Linear]| {
        shared
            && block_linears(arch)
                .any(|(role, _, _)| roles.contains(&role) && a.targets.includes(role))
    };
    let qkv = if first || adapter_reads(&[Linear::Query, Linear::Key, Linear::Value]) {
        0.0
    } else {
        e * sb * h
    };
    let mlp_in = if adapter_reads(&[Linear::MlpIn]) {
        0.0
    } else {
        e * sb * h
    };
    let mlp_out = if adapter_reads(&[Linear::MlpOut]) {
        0.0
    } else {
        e * sb * f
    };
    qkv + mlp_in + mlp_out
}

/// What LoRA's adapters keep in one layer (the first if `first`), `e` bytes a
/// value of the model's compute, `sb` tokens ([`HfLora`]).
fn lora_kept(
    arch: &Architecture,
    lora: &HfLora,
    numerics: Numerics,
    e: f64,
    sb: f64,
    first: bool,
) -> f64 {
    let autocast = numerics == Numerics::Autocast16;
    let a = &lora.adapters;
    let r = f64::from(a.rank);
    // lora_A's input: its own cast unless the adapters share the model's dtype.
    let cast = match (numerics, a.adapter_dtype) {
        (Numerics::Autocast16, _) | (Numerics::Pure16, AdapterDtype::Model) => 2.0,
        (Numerics::Fp32, _) | (Numerics::Pure16, AdapterDtype::Fp32) => 4.0,
    };
    let own_copy = autocast || cast != e;
    let mask = match (lora.dropout_on_cpu, autocast) {
        (false, _) => 1.0,
        (true, true) => 4.0,
        (true, false) => cast,
    };
    // Which inputs an adapter already keeps: q, k and v's; the attention's
    // output (kept by the attention itself); gate and up's; down's.
    let (mut kept, mut read) = (0.0, [false, true, false, false]);
    for (role, d_in, d_out) in block_linears(arch).filter(|&(role, _, _)| a.targets.includes(role))
    {
        let width = d_in as f64;
        // The first layer's q, k and v read a tensor that needs no gradient.
        let passes_gradient =
            !(first && matches!(role, Linear::Query | Linear::Key | Linear::Value));
        kept += if a.dropout {
            cast * sb * width
                + if passes_gradient {
                    mask * sb * width
                } else {
                    0.0
                }
        } else if own_copy {
            cast * sb * width
        } else {
            // One tensor for every adapter reading it.
            let input = match role {
                Linear::Query | Linear::Key | Linear::Value => 0,
                Linear::Output => 1,
                Linear::MlpIn => 2,
                Linear::MlpOut => 3,
            };
            let first_reader = !read[input];
            read[input] = true;
            if first_reader {
                e * sb * width
            } else {
                0.0
            }
        };
        kept += cast * sb * r;
        if a.dora_outputs > 0 {
            // DoRA (`DoraLinearLayer.forward`): the base output and the LoRA
            // output per token for the magnitude's gradient, the base output
            // recomputed from the dropped-out input in the adapters' dtype
            // when dropout is on and that dtype is not the model's (then the
            // weight's cast copy too, where the input passes a gradient); per
            // layer the weight's norm, the magnitude's scale and, where the
            // base output needs a gradient, that scale less one.
            let d_out = d_out as f64;
            let recomputed = a.dropout && cast != e;
            let base = if recomputed { cast } else { e };
            let scales = if passes_gradient { 3.0 } else { 2.0 };
            kept += (base + cast) * sb * d_out + scales * cast * d_out;
            if recomputed && passes_gradient {
                kept += cast * width * d_out;
            }
        }
        if autocast {
            kept += 2.0 * r * d_out as f64
                + if passes_gradient {
                    2.0 * r * width
                } else {
                    0.0
                };
        }
    }
    kept
}

/// What a Hugging Face step holds beyond what it keeps for backward, as
/// measured (`scripts/measure-activations` replays every storage's birth and
/// death with parameters, gradients and optimizer states left out):
/// - at the loss, `ForCausalLMLoss`'s fp32 upcast of 16-bit logits (4sbv) and
///   a scalar (4); the padded labels (8b(s + 1)) beside their shifted copy for
///   more than one sequence; under autocast the final norm's fp32 output (4sbh,
///   the head keeps its 16-bit cast) and the cast cache's 16-bit biases, and
///   with checkpointing every block weight's 16-bit copy (the cache lasts
///   until autocast exits);
/// - at backward start, the gradients of the log-softmax's output and input
///   (8sbv, fp32) and a scalar, the labels released;
/// - with gradient checkpointing, what the checkpoints keep as their inputs
///   all step long: the rotary cos and sin (2·sd values, fp32 unless the model
///   is 16-bit), the position ids (8s) and eager attention's mask (b·s²); and
///   while one layer is rebuilt, at most that layer's working set on top
///   (an upper bound: the loss's tensors are gone by then).
pub fn hf_step_transients(
    arch: &Architecture,
    setup: &ActivationSetup,
    numerics: Numerics,
    attention: Attention,
) -> StepTransients {
    let Sizes {
        s,
        b,
        h,
        d,
        k,
        f,
        v,
        layers,
        ..
    } = Sizes::of(arch, setup);
    let (sb, sbv) = (s * b, s * b * v);
    let autocast = numerics == Numerics::Autocast16;
    let checkpointed = setup.recompute == Recompute::Full;
    let labels = labels_bytes(setup);
    // The tensors a checkpoint keeps as its inputs, in the model's dtype.
    let model_bytes = if numerics == Numerics::Pure16 {
        2.0
    } else {
        4.0
    };
    let inputs = if checkpointed {
        let mask = if attention == Attention::Eager {
            model_bytes * b * s * s
        } else {
            0.0
        };
        2.0 * model_bytes * s * d + 8.0 * s + mask
    } else {
        0.0
    };
    let upcast = if numerics == Numerics::Fp32 {
        0.0
    } else {
        4.0 * sbv
    };
    let padded = if setup.micro_batch > 1 {
        8.0 * b * (s + 1.0)
    } else {
        0.0
    };
    let cast_cache = if autocast {
        let biases = match arch.biases {
            vram_shared::model::architecture::Biases::None => 0.0,
            vram_shared::model::architecture::Biases::Qkv => h + 2.0 * k,
            vram_shared::model::architecture::Biases::Attention => 2.0 * h + 2.0 * k,
            vram_shared::model::architecture::Biases::All => {
                2.0 * h + 2.0 * k + (arch.mlp.matrices() - 1) as f64 * f + h
            }
        };
        let weights = if checkpointed {
            2.0 * h * h + 2.0 * h * k + arch.mlp.matrices() as f64 * h * f
        } else {
            0.0
        };
        4.0 * sb * h + 2.0 * layers * (biases + weights)
    } else {
        0.0
    };
    let per_layer = hf_activation_memory(arch, setup, numerics, attention, None).per_layer;
    StepTransients {
        forward_end: Bytes::new(upcast + 4.0 + padded + cast_cache + inputs),
        backward_start: Bytes::new(8.0 * sbv - labels + 4.0 + inputs),
        recomputed_layer: checkpointed.then(|| Bytes::new(inputs + per_layer.get())),
    }
}

/// Whether the measured accounting covers `arch`: the Llama family's dense
/// SwiGLU layers with `hidden`-wide queries (Llama, Mistral, Qwen2). GPT-2-style
/// models, Qwen3's head size and q/k norms, mixtures of experts and latent
/// attention were not measured.
pub const fn covers(arch: &Architecture) -> bool {
    matches!(arch.mlp, Mlp::SwiGlu)
        && !arch.qk_norm.is_some()
        && !arch.moe.is_moe()
        && !arch.mla.is_latent()
        && !arch.linear.is_some()
        && !arch.gated_attention
        && arch.q_width() == arch.hidden as u64
}
