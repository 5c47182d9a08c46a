//! Every field the user sets, each declared once.
//!
//! A field's declaration ([`Declaration`]) holds everything about it: its link
//! key (also the CLI's option and the form control's `name`), its label, the
//! kind of value it takes (a number in a [`Unit`] within limits, a choice, a
//! preset), when the form uses it ([`Scope`]), when the link writes it
//! ([`Written`]), and how it reads from and writes into a [`Config`]. The link
//! codec, the form, the CLI's options and help, and the JSON's configuration
//! all walk [`Field::ALL`] and ask each field's declaration; none lists fields
//! of its own.
//!
//! The declarations stand in the order the link writes its keys: links written
//! before stay byte for byte the same.

use core::fmt;

use crate::config::{Config, ModelSpec};
use crate::decimal::shortest_decimal;
use crate::format::{Lang, MemoryUnit, Theme};
use crate::frameworks::deepspeed::Offload;
use crate::frameworks::hf::{Attention, Framework};
use crate::frameworks::runtime::{Accounting, OffloadDevice, Sharding};
use crate::gpu::gpu_preset;
use crate::input::view::{Part, Parts};
use crate::memory::activations::{Recompute, RecomputeMethod};
use crate::memory::finetune::{AdapterDtype, Method, Quant, Targets};
use crate::memory::{GradientPrecision, Optimizer, Precision, Strategy};
use crate::model::architecture::{model_preset, Biases, Mlp, Norm, QkNorm as QkNormKind};

/// The unit a numeric field is typed in, in the link and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Billions of parameters.
    BillionsOfParams,
    /// Millions of parameters.
    MillionsOfParams,
    /// Millions of elements (DeepSpeed's buffers).
    MillionsOfElements,
    /// Billions of tokens.
    BillionsOfTokens,
    /// GPUs.
    Gpus,
    /// GB of 10^9 bytes.
    Gb,
    /// GB of 10^9 bytes on each GPU.
    GbPerGpu,
    /// GB of 10^9 bytes per second.
    GbPerSecond,
    /// TFLOP/s, 10^12 floating-point operations per second.
    Tflops,
    /// A fraction of each GPU's memory.
    ReservedFraction,
    /// A fraction of the GPU's peak.
    FractionOfPeak,
    /// A probability (0.1 = 10 %).
    Probability,
    /// Multiples of uniform routing.
    RoutingMultiple,
    /// Multiples.
    Multiples,
    /// Sequences (samples).
    Sequences,
    /// A count.
    Count,
    /// Features (a width).
    Features,
    /// Tokens.
    Tokens,
    /// Positions.
    Positions,
    /// Nodes.
    Nodes,
    /// Ranks.
    Ranks,
    /// Pipeline stages.
    Stages,
    /// Pipeline stages per rank.
    StagesPerRank,
    /// The user's currency per GPU-hour.
    PerGpuHour,
}

impl Unit {
    /// The unit in words, as `--help` and error messages write it.
    pub const fn words(self) -> &'static str {
        match self {
            Unit::BillionsOfParams => "billions of parameters",
            Unit::MillionsOfParams => "millions of parameters",
            Unit::MillionsOfElements => "millions of elements",
            Unit::BillionsOfTokens => "billions of tokens",
            Unit::Gpus => "GPUs",
            Unit::Gb => "GB of 10^9 bytes",
            Unit::GbPerGpu => "GB of 10^9 bytes per GPU",
            Unit::GbPerSecond => "GB/s of 10^9 bytes",
            Unit::Tflops => "TFLOP/s",
            Unit::ReservedFraction => "fraction of each GPU's memory",
            Unit::FractionOfPeak => "fraction of peak",
            Unit::Probability => "fraction (0.1 = 10 %)",
            Unit::RoutingMultiple => "multiples of uniform routing",
            Unit::Multiples => "multiples",
            Unit::Sequences => "sequences",
            Unit::Count => "count",
            Unit::Features => "features",
            Unit::Tokens => "tokens",
            Unit::Positions => "positions",
            Unit::Nodes => "nodes",
            Unit::Ranks => "ranks",
            Unit::Stages => "stages",
            Unit::StagesPerRank => "stages per rank",
            Unit::PerGpuHour => "per GPU-hour",
        }
    }

    /// The placeholder `--help` gives a value of this unit (`--gpu-mem GB`).
    pub const fn value_name(self) -> &'static str {
        match self {
            Unit::BillionsOfParams | Unit::BillionsOfTokens => "BILLIONS",
            Unit::MillionsOfParams | Unit::MillionsOfElements => "MILLIONS",
            Unit::Gb | Unit::GbPerGpu => "GB",
            Unit::GbPerSecond => "GB_PER_S",
            Unit::Tflops => "TFLOP_PER_S",
            Unit::ReservedFraction | Unit::FractionOfPeak | Unit::Probability => "FRACTION",
            Unit::RoutingMultiple | Unit::Multiples => "FACTOR",
            Unit::PerGpuHour => "PRICE",
            Unit::Gpus
            | Unit::Sequences
            | Unit::Count
            | Unit::Features
            | Unit::Tokens
            | Unit::Positions
            | Unit::Nodes
            | Unit::Ranks
            | Unit::Stages
            | Unit::StagesPerRank => "N",
        }
    }
}

impl core::fmt::Display for Unit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.words())
    }
}

/// The range a numeric field accepts, in the unit the user types it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Smallest accepted value (inclusive).
    pub min: f64,
    /// Largest accepted value (inclusive).
    pub max: f64,
}

impl Limits {
    /// Whether `value` lies in the range (NaN never does).
    pub fn contains(self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }
}

/// What kind of value a field takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A decimal number in `unit` within `limits`.
    Number {
        /// Its unit.
        unit: Unit,
        /// What it accepts.
        limits: Limits,
        /// Whether only whole numbers are accepted (a count).
        whole: bool,
        /// The smallest non-zero value, for a range that starts at 0.
        resolution: Option<f64>,
    },
    /// One of these keys.
    Choice(&'static [&'static str]),
    /// A comma-separated list of these keys (`show=table,memory`).
    List(&'static [&'static str]),
    /// A preset's id (a model or a GPU).
    Preset,
}

/// A decimal number in `unit` from `min` to `max`.
const fn number(unit: Unit, min: f64, max: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min, max },
        whole: false,
        resolution: None,
    }
}

/// A whole number in `unit` from `min` to `max`.
const fn count(unit: Unit, min: f64, max: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min, max },
        whole: true,
        resolution: None,
    }
}

/// A decimal number from 0 to `max` whose smallest non-zero value is `resolution`.
const fn fine(unit: Unit, max: f64, resolution: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min: 0.0, max },
        whole: false,
        resolution: Some(resolution),
    }
}

/// `0` or `1`.
const FLAG: Value = Value::Choice(&["0", "1"]);

/// When the page's form uses a field: a model's architecture brings its own
/// size and layers, so some fields mean something only with a model, some only
/// without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Always used.
    Always,
    /// Used only with a model's architecture (its layers, its step).
    WithModel,
    /// Used only for a bare parameter count (the size itself, the largest layer).
    WithoutModel,
}

impl Scope {
    /// Whether a field of this scope is used, with or without a model.
    pub const fn applies(self, with_model: bool) -> bool {
        match self {
            Scope::Always => true,
            Scope::WithModel => with_model,
            Scope::WithoutModel => !with_model,
        }
    }
}

/// When the link ([`crate::input::link::encode`]) writes a field. A key added
/// to the contract is written only where it differs from its default, so
/// that links written before it keep their meaning and their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// In every link: the lesson's inputs.
    Always,
    /// When it holds a value (a preset chosen, a batch given).
    WhenSet,
    /// Whenever the configuration has a model.
    WithModel,
    /// With a model, where it differs from a dense model's default (0, off,
    /// uniform routing, no dropout, Megatron's accounting) or from the
    /// model's preset (Mixtral taken back to no experts).
    WhenNotDense,
    /// With a model, where it differs from the model's preset.
    WhenNotPreset,
    /// Where it differs from the lesson's default configuration.
    WhenNotDefault,
}

/// Whether a field means something, given every field's text.
pub type Needs = fn(&dyn Fn(Field) -> String) -> bool;

/// Reads a field's text from a configuration (empty for a value it does not hold).
pub type Read = fn(&Config) -> String;

/// Parses a field's text into a configuration; on error the configuration is unchanged.
pub type Write = fn(&mut Config, Field, &str) -> Result<(), InputError>;

/// Everything about one field.
#[derive(Debug, Clone, Copy)]
pub struct Declaration {
    /// The link key, the CLI's `--key-with-dashes` and the form control's `name`.
    pub key: &'static str,
    /// What the field is, in English words, without its unit.
    pub label: &'static str,
    /// The kind of value it takes.
    pub value: Value,
    /// Whether it may be left unset: an empty form field, or no key in the link.
    pub optional: bool,
    /// When the form uses it.
    pub scope: Scope,
    /// When the link writes it.
    pub written: Written,
    /// The preset field whose choice fills it (a model fills its architecture,
    /// a GPU its memory).
    pub filled_by: Option<Field>,
    /// Whether the form shows it as a percentage of its link value (20 for 0.2).
    pub percent: bool,
    /// What else it needs to mean something, given every field's text (LoRA's
    /// rank needs adapters, a bucket size DeepSpeed's buffers); `None`: nothing.
    pub needs: Option<Needs>,
    /// Its text in a configuration.
    pub read: Read,
    /// Stores its text in a configuration.
    pub write: Write,
}

/// The defaults of a declaration's optional parts.
const BASE: Declaration = Declaration {
    key: "",
    label: "",
    value: Value::Preset,
    optional: false,
    scope: Scope::Always,
    written: Written::WhenNotDefault,
    filled_by: None,
    percent: false,
    needs: None,
    read: |_| String::new(),
    write: |_, _, _| Ok(()),
};

/// Declares `Field`, `Field::ALL` and every field's [`Declaration`] from one
/// list, so that nothing about a field is written twice.
macro_rules! fields {
    ($($(#[doc = $doc:literal])* $name:ident => $declaration:expr,)*) => {
        /// An input that the user sets, by a form control, a link key or a CLI option.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Field { $($(#[doc = $doc])* $name,)* }

        impl Field {
            /// Every field, in the order of its declaration (the order the link
            /// writes them): `Field::ALL[f.index()] == f`.
            pub const ALL: [Field; [$(Field::$name),*].len()] = [$(Field::$name),*];

            /// What the field is, as its declaration's doc comment says it, one
            /// line a source line: docs/links.md's key table (`vram --keys`).
            /// Only the CLI asks, so the page's WebAssembly links none of it.
            fn doc_lines(self) -> &'static str {
                match self { $(Field::$name => concat!($($doc, "\n"),*),)* }
            }
        }

        /// Every field's declaration, at its index.
        static DECLARATIONS: [Declaration; Field::ALL.len()] = [$($declaration,)*];
    };
}

fields! {
    // The lesson's inputs, in every link.

    /// Model size, in billions of parameters.
    Params => Declaration {
        key: "params",
        label: "model size",
        value: number(Unit::BillionsOfParams, 0.001, 1e6),
        scope: Scope::WithoutModel,
        written: Written::Always,
        read: |c| shortest_decimal(c.model.map_or(c.params_billions, |m| m.params_billions())),
        write: |c, f, t| set(&mut c.params_billions, f.parse_number(t)),
        ..BASE
    },
    /// Number of GPUs per node.
    Gpus => Declaration {
        key: "gpus",
        label: "number of GPUs",
        value: count(Unit::Gpus, 1.0, 1_048_576.0),
        written: Written::Always,
        read: |c| c.gpus.to_string(),
        write: |c, f, t| set(&mut c.gpus, f.parse_count(t)),
        ..BASE
    },
    /// Memory per GPU, in GB (10^9 bytes).
    GpuMemory => Declaration {
        key: "gpu_mem",
        label: "memory per GPU",
        value: number(Unit::Gb, 0.1, 1e4),
        written: Written::Always,
        filled_by: Some(Field::Gpu),
        read: |c| shortest_decimal(c.gpu_mem_gb),
        write: |c, f, t| {
            let gb = f.parse_number(t)?;
            // Another memory than the chosen GPU's makes the GPU custom; its
            // own, exact or as the form shows it, keeps the GPU and its
            // exact memory.
            match c.gpu {
                Some(gpu) if gb == gpu.memory().gb() || gb == gpu.memory_gb_shown() => {
                    c.gpu_mem_gb = gpu.memory().gb();
                }
                _ => {
                    c.gpu = None;
                    c.gpu_mem_gb = gb;
                }
            }
            Ok(())
        },
        ..BASE
    },
    /// Precision of weights and gradients.
    Precision => Declaration {
        key: "dtype",
        label: "precision",
        value: Value::Choice(&["fp32", "fp16", "bf16", "fp32-pure", "bf16-pure", "fp8", "fp8-params"]),
        written: Written::Always,
        read: |c| c.precision.key().to_string(),
        write: |c, f, t| set(&mut c.precision, pick(f, &Precision::ALL, Precision::key, t)),
        ..BASE
    },
    /// Format gradients are accumulated in.
    GradAcc => Declaration {
        needs: Some(chosen_gradients),
        key: "grad_acc",
        label: "gradient accumulation format",
        value: Value::Choice(&["model", "fp32"]),
        written: Written::Always,
        read: |c| c.gradients.key().to_string(),
        write: |c, f, t| {
            let all = &GradientPrecision::ALL;
            set(&mut c.gradients, pick(f, all, GradientPrecision::key, t))
        },
        ..BASE
    },
    /// Optimizer.
    Optimizer => Declaration {
        key: "opt",
        label: "optimizer",
        value: Value::Choice(&["adam", "sgd", "sgd-momentum", "adam8bit", "adafactor", "lion"]),
        written: Written::Always,
        read: |c| c.optimizer.key().to_string(),
        write: |c, f, t| set(&mut c.optimizer, pick(f, &Optimizer::ALL, Optimizer::key, t)),
        ..BASE
    },
    /// Fraction of each GPU's memory held back for activations, buffers and the framework.
    Overhead => Declaration {
        key: "overhead",
        label: "reserved overhead",
        // 10^-9 is 80 bytes of 80 GB: finer fractions mean nothing in memory,
        // and every accepted fraction reads back from its shortest decimal.
        value: fine(Unit::ReservedFraction, 0.95, OVERHEAD_RESOLUTION),
        written: Written::Always,
        percent: true,
        read: |c| shortest_decimal(c.overhead),
        write: |c, f, t| set(&mut c.overhead, f.parse_number(t)),
        ..BASE
    },
    /// Strategy shown highlighted.
    Stage => Declaration {
        key: "stage",
        label: "highlighted strategy",
        value: Value::Choice(&["ddp", "1", "2", "3"]),
        written: Written::Always,
        read: |c| c.highlight.key().to_string(),
        write: |c, f, t| set(&mut c.highlight, pick(f, &Strategy::ALL, Strategy::key, t)),
        ..BASE
    },

    // Presets, written when chosen.

    /// GPU preset.
    Gpu => Declaration {
        key: "gpu",
        label: "GPU",
        optional: true,
        written: Written::WhenSet,
        read: |c| c.gpu.map(|g| g.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            let gpu = gpu_preset(&choice(t)).ok_or(f.error(InputErrorKind::UnknownChoice))?;
            c.gpu = Some(gpu);
            c.gpu_mem_gb = gpu.memory().gb();
            Ok(())
        },
        ..BASE
    },
    /// Model preset, or none for a bare size.
    Model => Declaration {
        key: "model",
        label: "model",
        optional: true,
        written: Written::WithModel,
        read: |c| c.model.map(|m| m.base.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            let preset = model_preset(&choice(t)).ok_or(f.error(InputErrorKind::UnknownChoice))?;
            // The step (sequence, micro-batch, recomputation) stays as it was.
            let mut model = c.model.unwrap_or(ModelSpec::of(preset));
            model.base = preset;
            model.architecture = preset.architecture;
            c.model = Some(model);
            Ok(())
        },
        ..BASE
    },

    // A model's architecture (filled by its preset) and its step.

    /// Transformer layers.
    Layers => architecture(
        "layers", "layers", count(Unit::Count, 1.0, 10_000.0),
        |c| model_count(c, |m| m.architecture.layers),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.layers),
    ),
    /// Hidden size.
    Hidden => architecture(
        "hidden", "hidden size", count(Unit::Features, 1.0, 1_048_576.0),
        |c| model_count(c, |m| m.architecture.hidden),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.hidden),
    ),
    /// FFN (intermediate) size.
    Ffn => architecture(
        "ffn", "FFN size", count(Unit::Features, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.ffn),
    ),
    /// Attention heads.
    Heads => architecture(
        "heads", "attention heads", count(Unit::Count, 1.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.heads),
    ),
    /// Key/value heads.
    KvHeads => architecture(
        "kv_heads", "key/value heads", count(Unit::Count, 1.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.kv_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.kv_heads),
    ),
    /// Vocabulary size.
    Vocab => architecture(
        "vocab", "vocabulary", count(Unit::Tokens, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.vocab),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.vocab),
    ),
    /// Whether the output head is tied to the embedding.
    Tied => architecture(
        "tied", "tied embeddings", FLAG,
        |c| model_flag(c, |m| m.architecture.tied_embeddings),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.tied_embeddings),
    ),
    /// MLP kind.
    Mlp => architecture(
        "mlp", "MLP", Value::Choice(&["swiglu", "gelu"]),
        |c| model_text(c, |m| m.architecture.mlp.key().to_string()),
        |c, f, t| {
            let mlp = pick(f, &Mlp::ALL, Mlp::key, t)?;
            edit_model(c, f, |m| m.architecture.mlp = mlp)
        },
    ),
    /// Sequence length, in tokens.
    Seq => step(
        "seq", "sequence length", count(Unit::Tokens, 1.0, 1e7),
        |c| model_count(c, |m| m.seq_len),
        |c, f, t| edit_count(c, f, t, |m| &mut m.seq_len),
    ),
    /// Micro-batch per GPU, in samples.
    MicroBatch => step(
        "mbs", "micro-batch per GPU", count(Unit::Sequences, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.micro_batch),
        |c, f, t| edit_count(c, f, t, |m| &mut m.micro_batch),
    ),
    /// Activation recomputation.
    Recompute => step(
        "recompute", "activation recomputation", Value::Choice(&["none", "selective", "full"]),
        |c| model_text(c, |m| m.recompute.key().to_string()),
        |c, f, t| {
            let recompute = pick(f, &Recompute::ALL, Recompute::key, t)?;
            edit_model(c, f, |m| m.recompute = recompute)
        },
    ),
    /// FlashAttention.
    Flash => step(
        "flash", "FlashAttention", FLAG,
        |c| model_flag(c, |m| m.flash_attention),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.flash_attention),
    ),

    // How the step is accounted, written where it differs from a dense model's default.

    /// The attention and hidden dropout probability.
    Dropout => Declaration {
        written: Written::WhenNotDense,
        ..step(
            "dropout", "dropout probability", number(Unit::Probability, 0.0, 0.95),
            |c| model_text(c, |m| shortest_decimal(m.dropout)),
            |c, f, t| {
                let p = f.parse_number(t)?;
                edit_model(c, f, |m| m.dropout = p)
            },
        )
    },
    /// Whose activation accounting: Megatron-LM's (Korthikanti) or Hugging Face's.
    Framework => Declaration {
        written: Written::WhenNotDense,
        ..step(
            "framework", "activation accounting", Value::Choice(&["megatron", "hf"]),
            |c| model_text(c, |m| m.framework.key().to_string()),
            |c, f, t| {
                let framework = pick(f, &Framework::ALL, Framework::key, t)?;
                edit_model(c, f, |m| m.framework = framework)
            },
        )
    },
    /// transformers' attention implementation.
    Attention => Declaration {
        written: Written::WhenNotDense,
        optional: true,
        ..step(
            "attn", "attention implementation",
            Value::Choice(&["eager", "sdpa", "flash_attention_2"]),
            |c| model_text(c, |m| m.attention.map(|a| a.key().to_string()).unwrap_or_default()),
            |c, f, t| {
                let attention = pick(f, &Attention::ALL, Attention::key, t)?;
                edit_model(c, f, |m| m.attention = Some(attention))
            },
        )
    },

    // The architecture beyond Llama's: written where not a dense model's default.

    /// Width of one attention head, when not hidden ÷ heads (0: hidden ÷ heads).
    HeadDim => beyond_dense(
        "head_dim", "head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.head_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.head_dim),
    ),
    /// The norms on q and k: none, a head's width (Qwen3), full width (OLMo 2).
    QkNorm => beyond_dense(
        "qk_norm", "q/k norms", Value::Choice(&["0", "1", "full"]),
        |c| model_text(c, |m| m.architecture.qk_norm.key().to_string()),
        |c, f, t| {
            let kind = pick(f, &QkNormKind::ALL, QkNormKind::key, t)?;
            edit_model(c, f, |m| m.architecture.qk_norm = kind)
        },
    ),
    /// Routed experts per MoE layer (0: a dense model).
    Experts => beyond_dense(
        "experts", "routed experts", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.experts),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.experts),
    ),
    /// Routed experts each token goes to.
    TopK => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "top_k", "experts per token", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.top_k),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.top_k),
    )
    },
    /// Width of a routed expert's MLP.
    ExpertFfn => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "expert_ffn", "expert FFN size", count(Unit::Features, 0.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.moe.expert_ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.expert_ffn),
    )
    },
    /// Shared experts every token goes through.
    SharedExperts => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_experts", "shared experts", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.shared_experts),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.shared_experts),
    )
    },
    /// Width of each shared expert's MLP.
    SharedFfn => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_ffn", "shared expert FFN size", count(Unit::Features, 0.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.moe.shared_ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.shared_ffn),
    )
    },
    /// Whether the shared expert has Qwen2-MoE's gate.
    SharedGate => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_gate", "shared expert gate", FLAG,
        |c| model_flag(c, |m| m.architecture.moe.shared_gate),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.moe.shared_gate),
    )
    },
    /// Leading layers with a dense MLP (DeepSeek's `first_k_dense_replace`).
    DenseLayers => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "dense_layers", "leading dense layers", count(Unit::Count, 0.0, 10_000.0),
        |c| model_count(c, |m| m.architecture.moe.dense_layers),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.dense_layers),
    )
    },
    /// Latent attention's query rank (`q_lora_rank`; 0: direct queries).
    QRank => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "q_rank", "latent query rank", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.q_rank),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.q_rank),
    )
    },
    /// Latent attention's key/value rank (`kv_lora_rank`; 0: no latent attention).
    KvRank => beyond_dense(
        "kv_rank", "latent key/value rank", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.kv_rank),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.kv_rank),
    ),
    /// Latent attention's rotary part of each query and key head.
    RopeDim => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "rope_dim", "rotary head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.rope_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.rope_dim),
    )
    },
    /// Latent attention's part of each query and key head without position.
    NopeDim => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "nope_dim", "non-rotary head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.nope_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.nope_dim),
    )
    },
    /// Latent attention's value head width.
    VDim => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "v_dim", "value head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.v_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.v_dim),
    )
    },
    /// The routed experts' capacity factor (1: uniform routing).
    Capacity => Declaration {
        needs: Some(with_experts),
        filled_by: None,
        ..beyond_dense(
            "capacity", "expert capacity factor", number(Unit::RoutingMultiple, 1.0, 64.0),
            |c| model_text(c, |m| shortest_decimal(m.capacity)),
            |c, f, t| {
                let factor = f.parse_number(t)?;
                edit_model(c, f, |m| m.capacity = factor)
            },
        )
    },
    /// Expert parallelism: the ranks the routed experts are divided over.
    Ep => Declaration {
        needs: Some(with_experts),
        filled_by: None,
        ..beyond_dense(
            "ep", "expert parallelism", count(Unit::Ranks, 1.0, 65_536.0),
            |c| model_count(c, |m| m.ep),
            |c, f, t| edit_count(c, f, t, |m| &mut m.ep),
        )
    },
    /// Learned position embeddings (GPT-2's `n_positions`; 0 for rotary).
    Positions => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "positions", "learned positions", count(Unit::Positions, 0.0, 1e7),
            |c| model_count(c, |m| m.architecture.learned_positions),
            |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.learned_positions),
        )
    },

    // The batch, and how the page shows what it computes.

    /// Global batch size, in samples.
    GlobalBatch => Declaration {
        key: "global_batch",
        label: "global batch size",
        value: count(Unit::Sequences, 1.0, 16_777_216.0),
        optional: true,
        written: Written::WhenSet,
        read: |c| c.global_batch.map(|b| b.to_string()).unwrap_or_default(),
        write: |c, f, t| set(&mut c.global_batch, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The unit memory is shown in.
    Unit => Declaration {
        key: "unit",
        label: "memory unit",
        value: Value::Choice(&["gb", "gib"]),
        read: |c| c.unit.key().to_string(),
        write: |c, f, t| set(&mut c.unit, pick(f, &MemoryUnit::ALL, MemoryUnit::key, t)),
        ..BASE
    },
    /// Light or dark colours.
    Theme => Declaration {
        key: "theme",
        label: "theme",
        value: Value::Choice(&["auto", "light", "dark"]),
        read: |c| c.theme.key().to_string(),
        write: |c, f, t| set(&mut c.theme, pick(f, &Theme::ALL, Theme::key, t)),
        ..BASE
    },
    /// The page's language.
    Lang => Declaration {
        key: "lang",
        label: "language",
        value: Value::Choice(&["auto", "zh", "en"]),
        read: |c| c.lang.key().to_string(),
        write: |c, f, t| set(&mut c.lang, pick(f, &Lang::ALL, Lang::key, t)),
        ..BASE
    },
    /// Compact layout for an iframe in another page.
    Embed => Declaration {
        key: "embed",
        label: "embedded layout",
        value: FLAG,
        read: |c| flag_text(c.embed),
        write: |c, f, t| set(&mut c.embed, parse_flag(f, t)),
        ..BASE
    },
    /// Which parts of the page are shown (a list of [`Part`]s).
    Show => Declaration {
        key: "show",
        label: "parts shown",
        value: Value::List(&PART_KEYS),
        read: |c| c.show.key(),
        write: |c, f, t| {
            let parts = Parts::from_key(&choice(t));
            set(&mut c.show, parts.ok_or(f.error(InputErrorKind::UnknownChoice)))
        },
        ..BASE
    },
    /// Whether the page can be changed: `0` shows a read-only figure.
    Controls => Declaration {
        key: "controls",
        label: "editable controls",
        value: FLAG,
        read: |c| flag_text(c.controls),
        write: |c, f, t| set(&mut c.controls, parse_flag(f, t)),
        ..BASE
    },
    /// Whether the mixed precision runs under autocast (fp32 weights).
    Amp => Declaration {
        key: "amp",
        label: "autocast (fp32 weights, 16-bit compute)",
        value: FLAG,
        read: |c| flag_text(c.amp),
        write: |c, f, t| set(&mut c.amp, parse_flag(f, t)),
        ..BASE
    },

    // How the training runs: DeepSpeed's accounting, offload, nodes and buffers.

    /// Whose accounting: the lesson's, DeepSpeed's estimator or Megatron-LM's.
    Accounting => Declaration {
        key: "acct",
        label: "accounting",
        value: Value::Choice(&["course", "deepspeed", "megatron"]),
        read: |c| c.runtime.accounting.key().to_string(),
        write: |c, f, t| {
            let accounting = pick(f, &Accounting::ALL, Accounting::key, t);
            set(&mut c.runtime.accounting, accounting)
        },
        ..BASE
    },
    /// What is offloaded from the GPUs.
    Offload => Declaration {
        key: "offload",
        label: "offload",
        value: Value::Choice(&["none", "optimizer", "all"]),
        read: |c| c.runtime.offload.key().to_string(),
        write: |c, f, t| set(&mut c.runtime.offload, pick(f, &Offload::ALL, Offload::key, t)),
        ..BASE
    },
    /// Where offloaded states go.
    OffloadTo => Declaration {
        key: "offload_to",
        label: "offload target",
        value: Value::Choice(&["cpu", "nvme"]),
        read: |c| c.runtime.offload_device.key().to_string(),
        write: |c, f, t| {
            let device = pick(f, &OffloadDevice::ALL, OffloadDevice::key, t);
            set(&mut c.runtime.offload_device, device)
        },
        ..BASE
    },
    /// Nodes, each with the configuration's GPUs.
    Nodes => Declaration {
        key: "nodes",
        label: "nodes",
        value: count(Unit::Nodes, 1.0, 65_536.0),
        read: |c| c.runtime.nodes.to_string(),
        write: |c, f, t| set(&mut c.runtime.nodes, f.parse_count(t)),
        ..BASE
    },
    /// Parameters of the largest layer, in millions.
    LargestLayer => Declaration {
        key: "largest_layer",
        label: "largest layer",
        value: fine(Unit::MillionsOfParams, 1e9, MILLIONS_RESOLUTION),
        optional: true,
        scope: Scope::WithoutModel,
        read: |c| optional_text(c.runtime.largest_layer_millions),
        write: |c, f, t| set(&mut c.runtime.largest_layer_millions, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// DeepSpeed's `zero_init`.
    ZeroInit => Declaration {
        key: "zero_init",
        label: "zero_init",
        value: FLAG,
        read: |c| flag_text(c.runtime.zero_init),
        write: |c, f, t| set(&mut c.runtime.zero_init, parse_flag(f, t)),
        ..BASE
    },
    /// Who shards the ZeRO-3 column: DeepSpeed or PyTorch's FSDP2.
    Sharding => Declaration {
        key: "sharding",
        label: "ZeRO-3 by",
        value: Value::Choice(&["deepspeed", "fsdp2"]),
        read: |c| c.runtime.sharding.key().to_string(),
        write: |c, f, t| set(&mut c.runtime.sharding, pick(f, &Sharding::ALL, Sharding::key, t)),
        ..BASE
    },
    /// Whether DeepSpeed's communication buffers are counted.
    Buffers => Declaration {
        key: "buffers",
        label: "communication buffers",
        value: FLAG,
        read: |c| flag_text(c.runtime.buffers),
        write: |c, f, t| set(&mut c.runtime.buffers, parse_flag(f, t)),
        ..BASE
    },
    /// DeepSpeed's `reduce_bucket_size`, in millions of elements.
    ReduceBucket => Declaration {
        needs: Some(with_buffers),
        key: "reduce_bucket",
        label: "reduce bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.reduce_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.reduce_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `allgather_bucket_size`, in millions of elements.
    AllgatherBucket => Declaration {
        needs: Some(with_buffers),
        key: "allgather_bucket",
        label: "all-gather bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.allgather_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.allgather_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `stage3_prefetch_bucket_size`, in millions of elements.
    PrefetchBucket => Declaration {
        needs: Some(with_buffers),
        key: "prefetch_bucket",
        label: "prefetch bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.prefetch_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.prefetch_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `stage3_max_live_parameters`, in millions of elements.
    MaxLive => Declaration {
        needs: Some(with_buffers),
        key: "max_live",
        label: "most live parameters",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.max_live_parameters),
        write: |c, f, t| {
            set(&mut c.runtime.buffer_sizes.max_live_parameters, f.parse_number(t))
        },
        ..BASE
    },
    /// Bandwidth per GPU, in GB/s.
    Bandwidth => Declaration {
        key: "bw",
        label: "bandwidth per GPU",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.bandwidth_gb_per_s),
        write: |c, f, t| set(&mut c.runtime.bandwidth_gb_per_s, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// DeepSpeed's `additional_buffer_factor` on its CPU figures.
    BufferFactor => Declaration {
        needs: Some(|t| t(Field::Accounting) == "deepspeed"),
        key: "buffer_factor",
        label: "CPU buffer factor",
        value: number(Unit::Multiples, 1.0, 100.0),
        read: |c| shortest_decimal(c.runtime.buffer_factor),
        write: |c, f, t| set(&mut c.runtime.buffer_factor, f.parse_number(t)),
        ..BASE
    },
    /// The CUDA context and allocator reserve per GPU, in GB.
    Context => Declaration {
        key: "context",
        label: "CUDA context and allocator reserve",
        value: number(Unit::GbPerGpu, 0.0, 1000.0),
        read: |c| shortest_decimal(c.runtime.context_gb),
        write: |c, f, t| set(&mut c.runtime.context_gb, f.parse_number(t)),
        ..BASE
    },

    // What is trained.

    /// What is trained: every parameter, LoRA or QLoRA adapters.
    Method => Declaration {
        key: "method",
        label: "fine-tuning method",
        value: Value::Choice(&["full", "lora", "qlora"]),
        read: |c| c.fine_tuning.method.key().to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.method, pick(f, &Method::ALL, Method::key, t)),
        ..BASE
    },
    /// The adapters' rank.
    Rank => Declaration {
        needs: Some(with_adapters),
        key: "rank",
        label: "LoRA rank",
        value: count(Unit::Count, 1.0, 65_536.0),
        read: |c| c.fine_tuning.rank.to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.rank, f.parse_count(t)),
        ..BASE
    },
    /// Which linear layers get adapters.
    Targets => Declaration {
        needs: Some(with_adapters),
        key: "targets",
        label: "LoRA targets",
        value: Value::Choice(&["qv", "attn", "mlp", "all"]),
        read: |c| c.fine_tuning.targets.key().to_string(),
        write: |c, f, t| {
            set(&mut c.fine_tuning.targets, pick(f, &Targets::ALL, Targets::key, t))
        },
        ..BASE
    },
    /// How QLoRA stores the frozen base's linear weights.
    Quant => Declaration {
        needs: Some(with_qlora),
        key: "quant",
        label: "base quantisation",
        value: Value::Choice(&["nf4", "int8"]),
        read: |c| c.fine_tuning.quant.key().to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.quant, pick(f, &Quant::ALL, Quant::key, t)),
        ..BASE
    },
    /// Whether QLoRA's NF4 constants are quantised too.
    DoubleQuant => Declaration {
        needs: Some(|t| with_qlora(t) && t(Field::Quant) == "nf4"),
        key: "double_quant",
        label: "double quantisation",
        value: FLAG,
        read: |c| flag_text(c.fine_tuning.double_quant),
        write: |c, f, t| set(&mut c.fine_tuning.double_quant, parse_flag(f, t)),
        ..BASE
    },

    /// The adapters' dropout probability (PEFT's `lora_dropout`).
    LoraDropout => Declaration {
        needs: Some(with_adapters),
        key: "lora_dropout",
        label: "LoRA dropout",
        value: number(Unit::Probability, 0.0, 0.95),
        read: |c| shortest_decimal(c.fine_tuning.lora_dropout),
        write: |c, f, t| set(&mut c.fine_tuning.lora_dropout, f.parse_number(t)),
        ..BASE
    },
    /// The adapters' dtype on a 16-bit base (PEFT's `autocast_adapter_dtype`).
    AdapterDtype => Declaration {
        needs: Some(with_adapters),
        key: "adapter_dtype",
        label: "adapter dtype",
        value: Value::Choice(&["fp32", "model"]),
        read: |c| c.fine_tuning.adapter_dtype.key().to_string(),
        write: |c, f, t| {
            set(
                &mut c.fine_tuning.adapter_dtype,
                pick(f, &AdapterDtype::ALL, AdapterDtype::key, t),
            )
        },
        ..BASE
    },
    /// DoRA: a magnitude a row of each adapted weight (PEFT's `use_dora`).
    Dora => Declaration {
        needs: Some(with_adapters),
        key: "dora",
        label: "DoRA",
        value: FLAG,
        read: |c| flag_text(c.fine_tuning.dora),
        write: |c, f, t| set(&mut c.fine_tuning.dora, parse_flag(f, t)),
        ..BASE
    },

    // The layout over the GPUs (with a model) and what the step's time assumes.

    /// Tensor-parallel size, in GPUs.
    Tp => Declaration {
        key: "tp",
        label: "tensor parallelism",
        value: count(Unit::Gpus, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.tp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.tp, f.parse_count(t)),
        ..BASE
    },
    /// Pipeline-parallel stages.
    Pp => Declaration {
        key: "pp",
        label: "pipeline stages",
        value: count(Unit::Stages, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.pp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.pp, f.parse_count(t)),
        ..BASE
    },
    /// Virtual pipeline stages per pipeline rank (interleaved 1F1B).
    Vpp => Declaration {
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "vpp",
        label: "virtual stages per pipeline rank",
        value: count(Unit::StagesPerRank, 1.0, 1024.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.vpp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.vpp, f.parse_count(t)),
        ..BASE
    },
    /// Context-parallel size, in GPUs.
    Cp => Declaration {
        key: "cp",
        label: "context parallelism",
        value: count(Unit::Gpus, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.cp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.cp, f.parse_count(t)),
        ..BASE
    },
    /// Sequence parallelism (with tensor parallelism).
    Sp => Declaration {
        needs: Some(|t| beyond(t, Field::Tp, "1")),
        key: "sp",
        label: "sequence parallelism",
        value: FLAG,
        scope: Scope::WithModel,
        read: |c| flag_text(c.runtime.layout.sp),
        write: |c, f, t| set(&mut c.runtime.layout.sp, parse_flag(f, t)),
        ..BASE
    },
    /// Model FLOPs utilisation: the fraction of the GPU's peak its kernels reach.
    Mfu => Declaration {
        key: "mfu",
        label: "kernel efficiency (share of peak on the FLOPs run)",
        value: number(Unit::FractionOfPeak, 0.01, 1.0),
        read: |c| shortest_decimal(c.runtime.speed.mfu),
        write: |c, f, t| set(&mut c.runtime.speed.mfu, f.parse_number(t)),
        ..BASE
    },
    /// The GPU's dense 16-bit tensor peak, in TFLOP/s (10^12 per second).
    Tflops => Declaration {
        key: "tflops",
        label: "peak 16-bit throughput per GPU",
        value: number(Unit::Tflops, 0.001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.tflops),
        write: |c, f, t| set(&mut c.runtime.speed.tflops, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// Bandwidth per GPU within a node (NVLink), in GB/s of 10^9 bytes, each way.
    Nvlink => Declaration {
        key: "nvlink",
        label: "bandwidth per GPU within a node",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.nvlink_gb_per_s),
        write: |c, f, t| set(&mut c.runtime.speed.nvlink_gb_per_s, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// Bandwidth per GPU between nodes (the network), in GB/s of 10^9 bytes.
    Network => Declaration {
        key: "net",
        label: "bandwidth per GPU between nodes",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.network_gb_per_s),
        write: |c, f, t| {
            set(&mut c.runtime.speed.network_gb_per_s, f.parse_number(t).map(Some))
        },
        ..BASE
    },
    /// Training tokens, in billions.
    Tokens => Declaration {
        key: "tokens",
        label: "training tokens",
        value: number(Unit::BillionsOfTokens, 0.000_001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.tokens_billions),
        write: |c, f, t| set(&mut c.runtime.speed.tokens_billions, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// Price of one GPU-hour, in the user's currency.
    Price => Declaration {
        key: "price",
        label: "price per GPU-hour",
        value: number(Unit::PerGpuHour, 0.0, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.price_per_gpu_hour),
        write: |c, f, t| {
            set(&mut c.runtime.speed.price_per_gpu_hour, f.parse_number(t).map(Some))
        },
        ..BASE
    },
    /// Which linear layers have biases (Qwen2's q/k/v, GPT-2's every one):
    /// written where it differs from the model's preset, as for a pasted
    /// `config.json` that matches none.
    Biases => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "biases", "linear biases", Value::Choice(&["none", "qkv", "all", "attn"]),
            |c| model_text(c, |m| m.architecture.biases.key().to_string()),
            |c, f, t| {
                let biases = pick(f, &Biases::ALL, Biases::key, t)?;
                edit_model(c, f, |m| m.architecture.biases = biases)
            },
        )
    },
    /// RMSNorm or LayerNorm (with its bias vector): written where it differs
    /// from the model's preset.
    Norm => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "norm", "normalisation", Value::Choice(&["rmsnorm", "layernorm"]),
            |c| model_text(c, |m| m.architecture.norm.key().to_string()),
            |c, f, t| {
                let norm = pick(f, &Norm::ALL, Norm::key, t)?;
                edit_model(c, f, |m| m.architecture.norm = norm)
            },
        )
    },
    /// Whether the data-parallel gradient reduction overlaps the last
    /// microbatch's backward pass (Megatron-LM's `--overlap-grad-reduce`,
    /// DeepSpeed's `overlap_comm`); off, as both ship it below ZeRO-3.
    OverlapGrad => Declaration {
        key: "overlap_grad",
        label: "gradient reduction overlapped",
        value: FLAG,
        read: |c| flag_text(c.runtime.speed.overlap_grad),
        write: |c, f, t| set(&mut c.runtime.speed.overlap_grad, parse_flag(f, t)),
        ..BASE
    },
    /// The throughput a paper or a log reports, TFLOP/s per GPU of the FLOPs
    /// the GPUs run (Narayanan et al.'s count, recomputation included): it
    /// gives the step's time directly, bubble and communication included.
    Achieved => Declaration {
        key: "achieved",
        label: "achieved throughput per GPU",
        value: number(Unit::Tflops, 0.001, 1e6),
        optional: true,
        read: |c| optional_text(c.runtime.speed.achieved_tflops),
        write: |c, f, t| set(&mut c.runtime.speed.achieved_tflops, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// How full recomputation groups each model chunk's layers (Megatron-LM's
    /// `--recompute-method`): written where it is not `uniform`.
    RecomputeMethod => Declaration {
        needs: Some(full_recompute),
        written: Written::WhenNotDense,
        ..step(
            "recompute_method", "recomputation method", Value::Choice(&["uniform", "block"]),
            |c| model_text(c, |m| m.checkpointing.method.key().to_string()),
            |c, f, t| {
                let method = pick(f, &RecomputeMethod::ALL, RecomputeMethod::key, t)?;
                edit_model(c, f, |m| m.checkpointing.method = method)
            },
        )
    },
    /// Layers per recomputed group (uniform) or recomputed layers per chunk
    /// (block), Megatron-LM's `--recompute-num-layers`: written where not 1.
    RecomputeLayers => Declaration {
        needs: Some(full_recompute),
        written: Written::WhenNotDense,
        ..step(
            "recompute_layers", "layers per recomputation", count(Unit::Count, 1.0, 10_000.0),
            |c| model_count(c, |m| m.checkpointing.layers),
            |c, f, t| edit_count(c, f, t, |m| &mut m.checkpointing.layers),
        )
    },
    /// GPUs per sharding group: ZeRO shards within each group and replicates
    /// across them (PyTorch's HSDP, DeepSpeed's MiCS, Megatron-FSDP).
    ShardGroup => Declaration {
        key: "shard_group",
        label: "sharding group",
        value: count(Unit::Gpus, 1.0, 1_048_576.0),
        optional: true,
        read: |c| optional_count(c.runtime.shard_group),
        write: |c, f, t| set(&mut c.runtime.shard_group, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The first pipeline stage's transformer layers, when not an even share
    /// (Megatron-LM's `--decoder-first-pipeline-num-layers`).
    PpFirst => Declaration {
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_first",
        label: "layers on the first pipeline stage",
        value: count(Unit::Count, 1.0, 10_000.0),
        optional: true,
        scope: Scope::WithModel,
        read: |c| optional_count(c.runtime.layout.first_layers),
        write: |c, f, t| set(&mut c.runtime.layout.first_layers, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The last pipeline stage's transformer layers, when not an even share
    /// (`--decoder-last-pipeline-num-layers`).
    PpLast => Declaration {
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_last",
        label: "layers on the last pipeline stage",
        value: count(Unit::Count, 1.0, 10_000.0),
        optional: true,
        scope: Scope::WithModel,
        read: |c| optional_count(c.runtime.layout.last_layers),
        write: |c, f, t| set(&mut c.runtime.layout.last_layers, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// Four norms a layer, around the attention and the MLP (Gemma 2 and 3).
    SandwichNorms => beyond_dense(
        "sandwich_norms", "four norms a layer", FLAG,
        |c| model_flag(c, |m| m.architecture.sandwich_norms),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.sandwich_norms),
    ),
    /// Attention sinks, a learned logit a head (gpt-oss).
    Sinks => beyond_dense(
        "sinks", "attention sinks", FLAG,
        |c| model_flag(c, |m| m.architecture.attention_sinks),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.attention_sinks),
    ),
    /// Soft-capped output logits (Gemma 2).
    Softcap => beyond_dense(
        "softcap", "soft-capped logits", FLAG,
        |c| model_flag(c, |m| m.architecture.logit_softcap),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.logit_softcap),
    ),
    /// The attention and the MLP in parallel on one norm (Cohere).
    ParallelBlock => beyond_dense(
        "parallel", "parallel attention and MLP", FLAG,
        |c| model_flag(c, |m| m.architecture.parallel_block),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.parallel_block),
    ),
    /// Biases on the router and the experts (gpt-oss).
    ExpertBiases => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "expert_bias", "router and expert biases", FLAG,
        |c| model_flag(c, |m| m.architecture.moe.biased),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.moe.biased),
    )
    },
    /// The attention's output gated by a second half of the query
    /// projection (Qwen3-Next).
    GatedAttention => beyond_dense(
        "attn_gate", "gated attention output", FLAG,
        |c| model_flag(c, |m| m.architecture.gated_attention),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.gated_attention),
    ),
    /// Full attention every n-th layer, linear attention (Gated DeltaNet) in
    /// the others (Qwen3-Next's `full_attention_interval`; 0: no linear attention).
    FullEvery => beyond_dense(
        "full_every", "full attention every n-th layer", count(Unit::Count, 0.0, 10_001.0),
        |c| model_count(c, |m| m.architecture.linear.full_every),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.full_every),
    ),
    /// Linear attention's key heads.
    LinearKeyHeads => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_k_heads", "linear attention key heads", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.k_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.k_heads),
    )
    },
    /// Linear attention's value heads.
    LinearValueHeads => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_v_heads", "linear attention value heads", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.v_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.v_heads),
    )
    },
    /// Linear attention's key head size.
    LinearKeyDim => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_k_dim", "linear attention key head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.k_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.k_dim),
    )
    },
    /// Linear attention's value head size.
    LinearValueDim => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_v_dim", "linear attention value head size", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.v_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.v_dim),
    )
    },
    /// Linear attention's causal convolution width.
    ConvKernel => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_conv", "linear attention convolution width", count(Unit::Count, 0.0, 1_024.0),
        |c| model_count(c, |m| m.architecture.linear.conv_kernel),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.conv_kernel),
    )
    },
    /// The memory per node that offload goes to (the host's RAM, or its
    /// NVMe with `offload_to=nvme`): what bounds the largest model once the
    /// GPUs hold nothing per parameter (ZeRO-Infinity).
    HostMemory => Declaration {
        key: "host_mem",
        label: "offload memory per node (host RAM, or NVMe)",
        value: number(Unit::Gb, 1.0, 1e7),
        optional: true,
        needs: Some(|t| beyond(t, Field::Offload, "none")),
        read: |c| optional_text(c.runtime.host_mem_gb),
        write: |c, f, t| set(&mut c.runtime.host_mem_gb, f.parse_number(t).map(Some)),
        ..BASE
    },
}

/// An optional count's text: empty when unset.
fn optional_count(value: Option<u32>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

/// A field of a model's architecture: filled by the model's preset, written
/// whenever there is a model.
const fn architecture(
    key: &'static str,
    label: &'static str,
    value: Value,
    read: Read,
    write: Write,
) -> Declaration {
    Declaration {
        key,
        label,
        value,
        scope: Scope::WithModel,
        written: Written::WithModel,
        filled_by: Some(Field::Model),
        read,
        write,
        ..BASE
    }
}

/// A field of a model's training step: kept when another preset is chosen.
const fn step(
    key: &'static str,
    label: &'static str,
    value: Value,
    read: Read,
    write: Write,
) -> Declaration {
    Declaration {
        filled_by: None,
        ..architecture(key, label, value, read, write)
    }
}

/// A field of the architecture beyond Llama's (a head size of its own, q/k
/// norms, experts, latent attention): written only where it is not a dense
/// model's default, so that links without it keep their meaning.
const fn beyond_dense(
    key: &'static str,
    label: &'static str,
    value: Value,
    read: Read,
    write: Write,
) -> Declaration {
    Declaration {
        written: Written::WhenNotDense,
        ..architecture(key, label, value, read, write)
    }
}

/// The smallest non-zero reserved fraction: 10^-9 (80 bytes of 80 GB). Finer
/// fractions mean nothing in memory, and every accepted fraction then reads back
/// from its shortest decimal form exactly (see [`crate::decimal`]).
pub const OVERHEAD_RESOLUTION: f64 = 1e-9;

/// The smallest non-zero count given in millions (a largest layer, a DeepSpeed
/// buffer): 10^-6, one parameter or one element. Finer values mean nothing, and
/// every accepted one reads back from its shortest decimal form exactly.
pub const MILLIONS_RESOLUTION: f64 = 1e-6;

/// The keys of [`Part::ALL`], the choices of [`Field::Show`].
const PART_KEYS: [&str; Part::ALL.len()] = {
    let mut keys = [""; Part::ALL.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = Part::ALL[i].key();
        i += 1;
    }
    keys
};

/// Whether `field`'s text is set and not `off` (`0` or `1` for a size, a count or a switch).
fn beyond(text: &dyn Fn(Field) -> String, field: Field, off: &str) -> bool {
    let text = text(field);
    let text = text.trim();
    !text.is_empty() && text != off
}

/// DeepSpeed's buffers are counted.
fn with_buffers(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Buffers) == "1"
}

/// Adapters are trained (LoRA or QLoRA).
fn with_adapters(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Method) != "full"
}

/// The gradients' format is the user's, except under Megatron-LM's
/// accounting with BF16, where Megatron keeps them in fp32 whatever is asked
/// ([`Config::recipe`]).
fn chosen_gradients(text: &dyn Fn(Field) -> String) -> bool {
    !(text(Field::Accounting) == "megatron" && matches!(&*text(Field::Precision), "bf16" | "fp8"))
}

/// QLoRA quantises the base.
fn with_qlora(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Method) == "qlora"
}

/// The model has routed experts.
fn with_experts(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::Experts, "0")
}

/// Full recomputation is chosen.
fn full_recompute(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Recompute) == "full"
}

/// The model has latent attention.
fn with_latent_attention(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::KvRank, "0")
}

/// Whether some layers may have linear attention (`full_every` set).
fn with_linear_attention(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::FullEvery, "0")
}

/// Stores a parsed value.
fn set<T>(place: &mut T, value: Result<T, InputError>) -> Result<(), InputError> {
    *place = value?;
    Ok(())
}

/// A choice as typed, trimmed and in lowercase (`BF16 ` is `bf16`).
fn choice(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

/// The item of `all` whose key is `text`.
fn pick<T: Copy>(
    field: Field,
    all: &[T],
    key: fn(T) -> &'static str,
    text: &str,
) -> Result<T, InputError> {
    let text = choice(text);
    all.iter()
        .copied()
        .find(|&item| key(item) == text)
        .ok_or(field.error(InputErrorKind::UnknownChoice))
}

/// `1` or `0`.
fn flag_text(value: bool) -> String {
    if value { "1" } else { "0" }.to_string()
}

/// Reads `1` or `0`.
fn parse_flag(field: Field, text: &str) -> Result<bool, InputError> {
    match choice(text).as_str() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(field.error(InputErrorKind::UnknownChoice)),
    }
}

/// An optional number's shortest decimal, or nothing.
fn optional_text(value: Option<f64>) -> String {
    value.map(shortest_decimal).unwrap_or_default()
}

/// A text of the model, or nothing without one.
fn model_text(config: &Config, text: impl Fn(&ModelSpec) -> String) -> String {
    config.model.as_ref().map(text).unwrap_or_default()
}

/// A count of the model, or nothing without one.
fn model_count(config: &Config, count: fn(&ModelSpec) -> u32) -> String {
    model_text(config, |m| count(m).to_string())
}

/// A switch of the model, or nothing without one.
fn model_flag(config: &Config, flag: fn(&ModelSpec) -> bool) -> String {
    model_text(config, |m| flag_text(flag(m)))
}

/// The model the architecture and step keys start from when no `model` key
/// named one (and the one LoRA without a model trains).
pub const DEFAULT_ARCHITECTURE_PRESET: &str = "llama2-7b";

/// The model the architecture and step keys start from when no `model` key
/// named one: [`DEFAULT_ARCHITECTURE_PRESET`]'s.
pub fn default_model() -> Option<ModelSpec> {
    model_preset(DEFAULT_ARCHITECTURE_PRESET).map(ModelSpec::of)
}

/// Edits the model, which it creates if there is none. An edited architecture
/// is custom: no longer its preset's.
fn edit_model(
    config: &mut Config,
    field: Field,
    edit: impl FnOnce(&mut ModelSpec),
) -> Result<(), InputError> {
    let mut model = config
        .model
        .or_else(default_model)
        .ok_or(field.error(InputErrorKind::UnknownChoice))?;
    edit(&mut model);
    config.model = Some(model);
    Ok(())
}

/// Parses a count and stores it in the model.
fn edit_count(
    config: &mut Config,
    field: Field,
    text: &str,
    place: fn(&mut ModelSpec) -> &mut u32,
) -> Result<(), InputError> {
    let value = field.parse_count(text)?;
    edit_model(config, field, |m| *place(m) = value)
}

/// Parses a switch and stores it in the model.
fn edit_flag(
    config: &mut Config,
    field: Field,
    text: &str,
    place: fn(&mut ModelSpec) -> &mut bool,
) -> Result<(), InputError> {
    let value = parse_flag(field, text)?;
    edit_model(config, field, |m| *place(m) = value)
}

impl Field {
    /// Everything about the field.
    pub fn declaration(self) -> &'static Declaration {
        &DECLARATIONS[self as usize]
    }

    /// The field's position in [`Field::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The field's key in the shared link, its CLI option (`--gpu-mem` for
    /// `gpu_mem`) and its `name` in the page's form.
    pub fn key(self) -> &'static str {
        self.declaration().key
    }

    /// What the field is, in English words, without its unit (see
    /// [`unit`](Self::unit)).
    pub fn label(self) -> &'static str {
        self.declaration().label
    }

    /// The unit a numeric field is given in (in the link and on the command line).
    pub fn unit(self) -> Option<Unit> {
        match self.declaration().value {
            Value::Number { unit, .. } => Some(unit),
            _ => None,
        }
    }

    /// What the field is, in words: its declaration's doc comment on one line,
    /// rustdoc's backticks and links kept as Markdown.
    pub fn meaning(self) -> String {
        self.doc_lines()
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .replace("[`", "`")
            .replace("`]", "`")
    }

    /// What a value must be beside the other fields, in English words, as
    /// [`ModelSpec::validate`](crate::config::ModelSpec) and
    /// [`Config::setup`] check it; empty where only the field's own limits
    /// apply. `--help` and `vram --keys` (docs/links.md) print it beside the
    /// limits, so that the documented limits are the checked ones.
    pub fn rule(self) -> &'static str {
        match self {
            Field::Params => "a model's architecture gives its own size, within the same limits",
            Field::Gpus => "GPUs per node × nodes at most 1048576",
            Field::Nodes => "GPUs per node × nodes at most 1048576",
            Field::Heads => "divides the hidden size, unless head_dim or latent attention is set",
            Field::KvHeads => "divides the heads",
            Field::TopK => "with experts: 1 to experts",
            Field::ExpertFfn => "with experts: at least 1",
            Field::SharedFfn => "with shared experts: at least 1",
            Field::DenseLayers => "with experts: at most layers",
            Field::RopeDim | Field::NopeDim | Field::VDim => "with kv_rank above 0: at least 1",
            Field::FullEvery => {
                "0 or 1: no linear attention; 2 to layers + 1 (no full-attention layer at layers + 1)"
            }
            Field::LinearKeyHeads | Field::LinearKeyDim | Field::LinearValueDim => {
                "with full_every 2 or more: at least 1"
            }
            Field::LinearValueHeads => "with full_every 2 or more: a multiple of lin_k_heads",
            Field::ConvKernel => "with full_every 2 or more: at least 1",
            Field::Ep => "with experts: divides them and GPUs ÷ (TP × PP); not with offload or acct=deepspeed",
            Field::Tp => "divides the GPUs, the heads and the key/value heads",
            Field::Pp => "divides the GPUs and, without pp_first or pp_last, the layers",
            Field::Vpp => "with PP 2 or more; PP × VPP divides the layers",
            Field::Cp => "divides the GPUs; 2 × CP divides the sequence",
            Field::PpFirst | Field::PpLast => {
                "with PP 2 or more; leaves the stages between a whole number of layers each"
            }
            Field::ShardGroup => "divides ZeRO's GPUs; not with ep or acct=deepspeed",
            Field::Accounting => "megatron: with a model, for full training",
            Field::LargestLayer => "without a model: at most the model's size",
            Field::Achieved => "at most the GPU's peak",
            Field::RecomputeLayers => "with recompute=full: at most a chunk's layers (layers ÷ (PP × VPP)); 1 under framework=hf",
            Field::RecomputeMethod => "with recompute=full; uniform under framework=hf",
            Field::Precision => "fp8 and fp8-params: a GPU with FP8 tensor cores, full training, not framework=hf",
            Field::Amp => "with a mixed precision",
            Field::Framework => "hf: a model with a SwiGLU MLP",
            Field::Sharding => "fsdp2: not with acct=deepspeed",
            Field::Dora => "not on a mixture's expert MLPs; not with amp under framework=hf",
            Field::Sp => "with TP 2 or more",
            Field::Context => "less than each GPU's memory less the reserve",
            Field::Method => "qlora: a dense model without latent attention",
            _ => "",
        }
    }

    /// The values the field accepts, in English words: its limits (whole or
    /// not, in its unit), its choices or a preset id, then its [`rule`](Self::rule).
    pub fn accepts(self) -> String {
        let own = match self.declaration().value {
            Value::Number {
                unit,
                limits,
                whole,
                resolution,
            } => format!(
                "{}{} to {} ({unit})",
                if whole { "whole, " } else { "" },
                match resolution {
                    Some(step) => format!("0, or {}", shortest_decimal(step)),
                    None => shortest_decimal(limits.min),
                },
                shortest_decimal(limits.max)
            ),
            Value::Choice(choices) => format!("one of {}", choices.join(", ")),
            Value::List(items) => format!("one or more of {}, comma-separated", items.join(", ")),
            Value::Preset => "a preset id".to_string(),
        };
        match self.rule() {
            "" => own,
            rule => format!("{own}; {rule}"),
        }
    }

    /// The accepted range of a numeric field in its typed unit; `None` for a choice.
    pub fn limits(self) -> Option<Limits> {
        match self.declaration().value {
            Value::Number { limits, .. } => Some(limits),
            _ => None,
        }
    }

    /// The values a choice field accepts; empty for a number or a preset.
    pub fn choices(self) -> &'static [&'static str] {
        match self.declaration().value {
            Value::Choice(choices) | Value::List(choices) => choices,
            _ => &[],
        }
    }

    /// Whether the field takes a number (the others take one of their choices or a preset).
    pub fn is_number(self) -> bool {
        matches!(self.declaration().value, Value::Number { .. })
    }

    /// Whether the field's number is a whole count (GPUs, layers, tokens).
    pub fn is_whole(self) -> bool {
        matches!(self.declaration().value, Value::Number { whole: true, .. })
    }

    /// Whether the field takes a comma-separated list of its choices (`show=table,memory`).
    pub fn is_list(self) -> bool {
        matches!(self.declaration().value, Value::List(_))
    }

    /// Whether the field takes a preset's id (a model, a GPU).
    pub fn is_preset(self) -> bool {
        matches!(self.declaration().value, Value::Preset)
    }

    /// The smallest non-zero value of a field whose range starts at 0.
    pub fn resolution(self) -> Option<f64> {
        match self.declaration().value {
            Value::Number { resolution, .. } => resolution,
            _ => None,
        }
    }

    /// Whether the field may be left unset: an empty form field, or no key in the link.
    pub fn is_optional(self) -> bool {
        self.declaration().optional
    }

    /// When the form uses the field (see [`Scope`]).
    pub fn scope(self) -> Scope {
        self.declaration().scope
    }

    /// When the link writes the field.
    pub fn written(self) -> Written {
        self.declaration().written
    }

    /// The preset field whose choice fills this one.
    pub fn filled_by(self) -> Option<Field> {
        self.declaration().filled_by
    }

    /// Whether the form shows the field as a percentage of its link value (the
    /// reserved fraction 0.2 is typed as 20).
    pub fn is_percent(self) -> bool {
        self.declaration().percent
    }

    /// The placeholder of the field's value in `--help`: its unit's
    /// (`GB`, `FRACTION`, `N` …), `ID` for a preset, `CHOICE` or `PARTS`.
    pub fn value_name(self) -> &'static str {
        match self.declaration().value {
            Value::Number { unit, .. } => unit.value_name(),
            Value::Choice(_) => "CHOICE",
            Value::List(_) => "PARTS",
            Value::Preset => "ID",
        }
    }

    /// The field's text in `config`, as the link writes it (empty for a value
    /// it does not hold).
    pub fn read(self, config: &Config) -> String {
        (self.declaration().read)(config)
    }

    /// Parses `text` as the field's value and stores it in `config`; on error
    /// `config` is unchanged.
    pub fn write(self, config: &mut Config, text: &str) -> Result<(), InputError> {
        (self.declaration().write)(config, self, text)
    }

    /// Parses a decimal number typed for this field and checks it against the field's limits.
    ///
    /// Surrounding whitespace is ignored; `inf`, `NaN` and the like are refused.
    pub fn parse_number(self, text: &str) -> Result<f64, InputError> {
        let value = self
            .parse_number_unchecked(text)
            .map_err(|kind| self.error(kind))?;
        self.check(value)
    }

    /// Parses a whole number typed for this field (`8` or `8.0`; `8.5` is refused) and checks its limits.
    pub fn parse_count(self, text: &str) -> Result<u32, InputError> {
        let value = self.parse_number(text)?;
        if value.fract() != 0.0 {
            return Err(self.error(InputErrorKind::NotWhole));
        }
        // In range, so below 2^24 at most and exactly representable.
        Ok(value as u32)
    }

    /// Checks a value already in the field's unit against the field's limits.
    pub fn check(self, value: f64) -> Result<f64, InputError> {
        if !value.is_finite() {
            return Err(self.error(InputErrorKind::NotFinite));
        }
        match self.limits() {
            Some(limits) if !limits.contains(value) => {
                Err(self.error(InputErrorKind::OutOfRange(limits)))
            }
            _ => match self.resolution() {
                Some(resolution) if value != 0.0 && value.abs() < resolution => {
                    Err(self.error(InputErrorKind::BelowResolution(resolution)))
                }
                _ => Ok(value),
            },
        }
    }

    /// An error of this field.
    pub const fn error(self, kind: InputErrorKind) -> InputError {
        InputError { field: self, kind }
    }
}

/// What is wrong with an input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputErrorKind {
    /// Nothing was given.
    Empty,
    /// The text is not a decimal number.
    NotANumber,
    /// The number is infinite or NaN.
    NotFinite,
    /// A whole number was expected.
    NotWhole,
    /// The number lies outside the field's limits.
    OutOfRange(Limits),
    /// The number is not zero but smaller than the field's resolution.
    BelowResolution(f64),
    /// The value is none of the field's choices.
    UnknownChoice,
    /// The numbers do not divide as they must (the global batch by micro-batch × GPUs).
    NotDivisible,
    /// The value needs a model's architecture, and none is chosen (LoRA's adapters).
    NeedsModel,
    /// GPUs per node × nodes is more data-parallel GPUs than [`Field::Gpus`] allows.
    TooManyGpus {
        /// The `gpus` key's value.
        gpus_per_node: u32,
        /// Their product with the nodes.
        total: u64,
    },
    /// A part of the model (its largest layer) larger than the whole model.
    LargerThanModel,
    /// The choice does not cover this model (Hugging Face's measured accounting
    /// and a GELU MLP).
    NotCovered,
    /// Autocast with a precision that is not mixed (fp16 or bf16).
    NeedsMixedPrecision,
    /// Adapters not counted on this model: LoRA on linear or gated
    /// attention, QLoRA on experts or latent attention.
    DenseOnly,
    /// Expert parallelism without a mixture of experts.
    NeedsExperts,
    /// Expert parallelism under DeepSpeed's estimator, which has none, or with
    /// offload, which the page does not place per expert.
    NotInDeepSpeed,
    /// A layout size that does not divide what it splits; `largest` is the
    /// largest size up to the one typed that would.
    DoesNotDivide {
        /// What the size splits.
        splits: Splits,
        /// The largest size that divides it.
        largest: u32,
    },
    /// Virtual stages without pipeline stages.
    NeedsPipeline,
    /// Sequence parallelism without tensor parallelism.
    NeedsTensorParallel,
    /// Model parallelism where the accounting is DeepSpeed's estimator or
    /// Hugging Face's Trainer, which have none.
    NeedsMegatron,
    /// Model parallelism with LoRA or QLoRA, which the page counts on one GPU's whole model.
    FullTrainingOnly,
    /// A value that does not go with another field's current value (partial
    /// recomputation under Hugging Face's accounting, which checkpoints each
    /// layer alone; a sharding group beside expert parallelism).
    NotWith(Field),
    /// A global batch whose microbatches are not a multiple of the pipeline
    /// stages under interleaved 1F1B (VPP > 1), which Megatron-LM's
    /// `schedules.py` refuses.
    NotPerStage {
        /// The microbatches each data-parallel rank runs per step.
        microbatches: u32,
        /// The pipeline stages (PP) they must be a multiple of.
        pp: u32,
    },
    /// FP8 on a GPU without FP8 tensor cores (before Hopper and Ada).
    NoFp8,
    /// Uneven first and last pipeline stages that take all of the model's
    /// `layers` (or more) while stages in between are left with none.
    NoLayersLeft {
        /// The model's transformer layers.
        layers: u32,
    },
    /// Uneven first and last pipeline stages that leave `layers` for
    /// `stages` stages in between: not a whole number each (Megatron-LM
    /// refuses it).
    UnevenMiddle {
        /// The layers left between the first and last stages.
        layers: u32,
        /// The stages in between.
        stages: u32,
    },
}

/// What a layout size splits, and how many of it there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Splits {
    /// All GPUs (nodes × GPUs per node).
    Gpus(u32),
    /// The attention heads.
    Heads(u32),
    /// The key/value heads.
    KvHeads(u32),
    /// The transformer layers (pipeline stages × virtual stages).
    Layers(u32),
    /// The sequence's tokens (in 2 × CP chunks).
    Sequence(u32),
}

impl Splits {
    /// How many there are.
    pub const fn count(self) -> u32 {
        match self {
            Splits::Gpus(n)
            | Splits::Heads(n)
            | Splits::KvHeads(n)
            | Splits::Layers(n)
            | Splits::Sequence(n) => n,
        }
    }

    /// What they are, in words: `the 8 key/value heads`.
    pub fn words(self) -> String {
        match self {
            Splits::Gpus(n) => format!("the {n} GPUs"),
            Splits::Heads(n) => format!("the {n} attention heads"),
            Splits::KvHeads(n) => format!("the {n} key/value heads"),
            Splits::Layers(n) => format!("the {n} layers"),
            Splits::Sequence(n) => format!("the sequence's {n} tokens in 2 × CP chunks"),
        }
    }
}

/// A typed error that names the field it is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputError {
    /// The field whose value is wrong.
    pub field: Field,
    /// What is wrong with it.
    pub kind: InputErrorKind,
}

impl InputError {
    /// What is wrong, without naming the field: `must be between 1 and 1048576 (GPUs)`.
    pub fn problem(&self) -> String {
        match self.kind {
            InputErrorKind::Empty => "is empty".into(),
            InputErrorKind::NotANumber => "is not a number".into(),
            InputErrorKind::NotFinite => "must be a finite number".into(),
            InputErrorKind::NotWhole => "must be a whole number".into(),
            InputErrorKind::OutOfRange(Limits { min, max }) => match self.field.unit() {
                Some(unit) => format!(
                    "must be between {} and {} ({unit})",
                    shortest_decimal(min),
                    shortest_decimal(max)
                ),
                None => format!(
                    "must be between {} and {}",
                    shortest_decimal(min),
                    shortest_decimal(max)
                ),
            },
            InputErrorKind::BelowResolution(resolution) => {
                format!("must be 0 or at least {}", shortest_decimal(resolution))
            }
            InputErrorKind::UnknownChoice if self.field.choices().is_empty() => {
                "is not one of the presets".into()
            }
            InputErrorKind::UnknownChoice => {
                format!("must be one of {}", self.field.choices().join(", "))
            }
            InputErrorKind::NotDivisible => match self.field {
                Field::Heads => "must divide the hidden size".into(),
                Field::KvHeads => "must divide the number of heads".into(),
                Field::Ep => "must divide the experts and the data-parallel GPUs (DP × CP)".into(),
                Field::GlobalBatch => "must be a multiple of micro-batch × number of GPUs".into(),
                _ => "must divide evenly".into(),
            },
            InputErrorKind::NeedsModel => "needs a model's architecture: choose a model".into(),
            InputErrorKind::TooManyGpus {
                gpus_per_node,
                total,
            } => format!(
                "times gpus ({gpus_per_node}) is {total} GPUs, more than {}",
                Field::Gpus.limits().map_or(0.0, |l| l.max)
            ),
            InputErrorKind::LargerThanModel => "is larger than the model (params)".into(),
            InputErrorKind::NotCovered => {
                "covers dense Llama-, Mistral- and Qwen2-style models (SwiGLU), not this one".into()
            }
            InputErrorKind::NeedsMixedPrecision => {
                "needs a mixed precision (dtype fp16 or bf16)".into()
            }
            InputErrorKind::NeedsExperts => "needs a mixture of experts (experts > 0)".into(),
            InputErrorKind::NotInDeepSpeed => {
                "is counted with the lesson's accounting and without offload only".into()
            }
            InputErrorKind::DoesNotDivide { splits, largest } => {
                format!("must divide {} ({largest} would)", splits.words())
            }
            InputErrorKind::NeedsPipeline => "needs pipeline stages (pp > 1)".into(),
            InputErrorKind::NeedsTensorParallel => "needs tensor parallelism (tp > 1)".into(),
            InputErrorKind::FullTrainingOnly => {
                "splits full training only (method full)".into()
            }
            InputErrorKind::NeedsMegatron => {
                "splits the model as Megatron-LM does: not under DeepSpeed's estimator nor Hugging Face's accounting".into()
            }
            InputErrorKind::NotWith(other) => {
                format!("does not go with this {} ({})", other.label(), other.key())
            }
            InputErrorKind::NotPerStage { microbatches, pp } => format!(
                "gives {microbatches} microbatches, which interleaved stages (vpp > 1) need to be a multiple of PP ({pp})"
            ),
            InputErrorKind::NoFp8 => {
                "needs FP8 tensor cores (Hopper, Ada, Blackwell), which this GPU has not".into()
            }
            InputErrorKind::NoLayersLeft { layers } => format!(
                "leaves none of the {layers} layers to the pipeline stages in between"
            ),
            InputErrorKind::UnevenMiddle { layers, stages } => format!(
                "leaves {layers} layers to {stages} pipeline stages in between, not a whole number each"
            ),
            InputErrorKind::DenseOnly => {
                "is not counted here: LoRA on linear or gated attention, QLoRA beyond dense models with the usual attention".into()
            }
        }
    }
}

impl fmt::Display for InputError {
    /// `number of GPUs (gpus) must be between 1 and 1048576 (GPUs)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field;
        write!(f, "{} ({}) {}", field.label(), field.key(), self.problem())
    }
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn numbers_parse_within_limits() {
        assert_eq!(Field::Params.parse_number(" 7 "), Ok(7.0));
        assert_eq!(Field::Params.parse_number("1e3"), Ok(1000.0));
        assert_eq!(Field::Overhead.parse_number("0"), Ok(0.0));
        assert_eq!(Field::Gpus.parse_count("8"), Ok(8));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn each_bad_value_has_its_own_error_naming_the_field() {
        let kind =
            |field: Field, text: &str| field.parse_number(text).map_err(|e| (e.field, e.kind));
        assert_eq!(
            kind(Field::Params, ""),
            Err((Field::Params, InputErrorKind::Empty))
        );
        assert_eq!(
            kind(Field::Params, "seven"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "inf"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "NaN"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "1e400"),
            Err((Field::Params, InputErrorKind::NotFinite))
        );
        assert!(matches!(
            kind(Field::Params, "0"),
            Err((Field::Params, InputErrorKind::OutOfRange(_)))
        ));
        assert!(matches!(
            kind(Field::Overhead, "1"),
            Err((Field::Overhead, InputErrorKind::OutOfRange(_)))
        ));
        assert!(matches!(
            kind(Field::GpuMemory, "-80"),
            Err((Field::GpuMemory, InputErrorKind::OutOfRange(_)))
        ));
        assert_eq!(
            Field::Gpus.parse_count("8.5").map_err(|e| e.kind),
            Err(InputErrorKind::NotWhole)
        );
        assert!(matches!(
            Field::Gpus.parse_count("0").map_err(|e| e.kind),
            Err(InputErrorKind::OutOfRange(_))
        ));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn messages_name_the_field_and_its_key() {
        let message = Field::Gpus.parse_count("0").unwrap_err().to_string();
        assert_eq!(
            message,
            "number of GPUs (gpus) must be between 1 and 1048576 (GPUs)"
        );
        let message = Field::Precision
            .error(InputErrorKind::UnknownChoice)
            .to_string();
        assert_eq!(
            message,
            "precision (dtype) must be one of fp32, fp16, bf16, fp32-pure, bf16-pure, fp8, fp8-params"
        );
    }
}

/// Parses a percentage typed for a fraction field (`20` → `0.2`) and checks the
/// fraction against the field's limits.
///
/// The typed decimal is divided by 100 before it is rounded to an `f64`, so `7`
/// gives exactly the `f64` nearest 0.07 and `0.0000001` the one nearest 10^-9.
pub fn parse_percent(field: Field, text: &str) -> Result<f64, InputError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(field.error(InputErrorKind::Empty));
    }
    let fraction = crate::decimal::parse_decimal_times_ten_to(text, -2)
        .ok_or(field.error(InputErrorKind::NotANumber))?;
    field.check(fraction)
}

/// A fraction written as a percentage for a form field: `0.2` → `20`, `0.07` → `7`.
///
/// The fraction's shortest decimal with its point moved two places, so there is
/// no binary noise (`0.07 × 100 = 7.000000000000001`) and [`parse_percent`] reads
/// the text back to the same fraction, every digit kept.
pub fn percent_text(fraction: f64) -> String {
    let decimal = crate::decimal::shortest_decimal(fraction);
    if decimal.contains(['e', 'E']) {
        // Not written so for a fraction within the field's limits and resolution.
        let percent = ((fraction * 100.0) * 1e10).round() / 1e10;
        return crate::decimal::shortest_decimal(percent);
    }
    let (sign, unsigned) = match decimal.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", decimal.as_str()),
    };
    let (whole, fraction_digits) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let padded = format!("{fraction_digits:0<2}");
    let (moved, rest) = padded.split_at(2);
    let whole = format!("{whole}{moved}");
    let whole = match whole.trim_start_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    match rest.trim_end_matches('0') {
        "" => format!("{sign}{whole}"),
        rest => format!("{sign}{whole}.{rest}"),
    }
}

impl Field {
    /// Parses a decimal number without checking limits; errors are bare kinds.
    fn parse_number_unchecked(self, text: &str) -> Result<f64, InputErrorKind> {
        let text = text.trim();
        if text.is_empty() {
            return Err(InputErrorKind::Empty);
        }
        // Digits only: no "inf" or "NaN" (see `decimal` for why not `str::parse`).
        let value = crate::decimal::parse_decimal(text).ok_or(InputErrorKind::NotANumber)?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(InputErrorKind::NotFinite)
        }
    }
}

#[cfg(test)]
mod percent_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn percentages_convert_both_ways_without_noise() {
        assert_eq!(parse_percent(Field::Overhead, "20"), Ok(0.2));
        assert_eq!(parse_percent(Field::Overhead, "7"), Ok(0.07));
        assert_eq!(percent_text(0.2), "20");
        assert_eq!(percent_text(0.07), "7");
        assert_eq!(percent_text(0.125), "12.5");
        assert_eq!(percent_text(0.0), "0");
        assert_eq!(percent_text(0.000_000_001), "0.0000001");
        assert_eq!(percent_text(0.123_456_789_012_345), "12.3456789012345");
        for fraction in [
            0.000_000_001,
            0.123_456_789_012_345,
            0.95,
            0.5,
            0.010_000_000_000_000_002,
        ] {
            let text = percent_text(fraction);
            assert_eq!(
                parse_percent(Field::Overhead, &text),
                Ok(fraction),
                "{text}"
            );
        }
        for text in ["0", "7", "12.5", "33.3", "95"] {
            let fraction = parse_percent(Field::Overhead, text).unwrap();
            assert_eq!(percent_text(fraction), text);
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn percentages_outside_limits_are_errors_of_the_fraction() {
        let err = parse_percent(Field::Overhead, "96").unwrap_err();
        assert_eq!(err.field, Field::Overhead);
        assert!(matches!(err.kind, InputErrorKind::OutOfRange(_)));
        assert_eq!(
            parse_percent(Field::Overhead, "x").unwrap_err().kind,
            InputErrorKind::NotANumber
        );
    }
}

#[cfg(test)]
mod declaration_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn every_field_is_declared_whole_and_once() {
        let mut keys = std::collections::HashSet::new();
        for (i, field) in Field::ALL.into_iter().enumerate() {
            assert_eq!(field.index(), i, "{field:?}");
            let key = field.key();
            assert!(keys.insert(key), "{key} declared twice");
            assert!(
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{field:?}: key {key:?}"
            );
            assert!(!field.label().is_empty(), "{field:?} has no label");
            match field.declaration().value {
                Value::Number { limits, .. } => assert!(limits.min <= limits.max, "{field:?}"),
                Value::Choice(choices) | Value::List(choices) => {
                    assert!(choices.len() >= 2, "{field:?}")
                }
                Value::Preset => assert!(field.is_optional(), "{field:?}: a preset may be unset"),
            }
            // A field filled by a preset is the preset's to fill, and its
            // scope is the preset's.
            if let Some(preset) = field.filled_by() {
                assert!(preset.is_preset(), "{field:?} filled by {preset:?}");
            }
        }
    }

    /// The placeholder `--help` shows says the unit the value is in (the help
    /// once called `--mfu` and `--tokens` MILLIONS).
    #[wasm_bindgen_test(unsupported = test)]
    fn every_value_name_matches_its_unit() {
        for field in Field::ALL {
            let name = field.value_name();
            let Some(unit) = field.unit() else {
                let expected = match () {
                    _ if field.is_preset() => "ID",
                    _ if field.is_list() => "PARTS",
                    _ => "CHOICE",
                };
                assert_eq!(name, expected, "{field:?}");
                continue;
            };
            let words = unit.words();
            let expected = match () {
                _ if words.starts_with("billions") => "BILLIONS",
                _ if words.starts_with("millions") => "MILLIONS",
                _ if words.starts_with("GB/s") => "GB_PER_S",
                _ if words.starts_with("GB") => "GB",
                _ if words.starts_with("TFLOP/s") => "TFLOP_PER_S",
                _ if words.starts_with("fraction") => "FRACTION",
                _ if words.starts_with("multiples") => "FACTOR",
                _ if words.starts_with("per ") => "PRICE",
                _ => "N",
            };
            assert_eq!(name, expected, "{field:?} in {words}");
            // A count is typed as a whole number, and only a count is "N".
            assert_eq!(name == "N", field.is_whole(), "{field:?} in {words}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_field_reads_back_what_it_writes() {
        let bare = Config::default();
        let mut with_model = bare;
        Field::Model.write(&mut with_model, "mixtral-8x7b").unwrap();
        Field::Gpu.write(&mut with_model, "a100-80gb").unwrap();
        for config in [bare, with_model] {
            let used = Field::ALL
                .into_iter()
                .filter(|f| f.scope().applies(config.model.is_some()));
            for field in used {
                let text = field.read(&config);
                if text.is_empty() {
                    assert!(field.is_optional(), "{field:?} reads nothing");
                    continue;
                }
                let mut again = config;
                let written = field.write(&mut again, &text);
                assert_eq!(written, Ok(()), "{field:?} {text:?}");
                assert_eq!(again, config, "{field:?} {text:?}");
            }
        }
    }
}
