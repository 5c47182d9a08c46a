//! Typed errors of the user's input: each names its field and what is wrong.

use core::fmt;

use crate::input::decimal::shortest_decimal;
use crate::input::field::{Field, Limits};

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
    /// The choice counts dense models' linear layers only (LoRA on experts or
    /// latent attention).
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
                _ => "must be a multiple of micro-batch × number of GPUs".into(),
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
            InputErrorKind::DenseOnly => {
                "adapts a mixture of experts' attention only (LoRA, targets qv or attn), and not latent attention".into()
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
