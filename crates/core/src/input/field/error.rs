//! What can be wrong with an input: [`InputError`], naming its field and the
//! [`InputErrorKind`].

use super::*;
pub use crate::memory::parallel::LayoutProblem;
pub use crate::memory::parallel::Splits;
use crate::memory::parallel::{LayoutError, LayoutSize};
use crate::memory::Refused;

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
    /// A size that must be a power of two (a KV block's tokens).
    NotPowerOfTwo,
    /// Measured figures not written as `w…,r…,g…,tp…,pp…` (GiB and sizes).
    MeasuredTerms,
    /// The engine's arithmetic is not reproduced for this model's layers
    /// (SGLang's Mamba pool, TensorRT-LLM's windows and states).
    EngineNotModelled,
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
    /// A setting of latent attention on a model without it (Megatron-LM's
    /// `mla_up_proj` recomputation).
    NeedsLatentAttention,
    /// A step's responses (prompts × rollouts) that verl's trainer refuses:
    /// not a multiple of `multiple_of` (its GPUs, or its Megatron
    /// data-parallel ranks × micro-batch).
    VerlBatch {
        /// What they must be a multiple of.
        multiple_of: u64,
    },
    /// torchtitan's per-op checkpointing (`op`) beside Megatron-LM's modules:
    /// one framework's policy or the other's.
    PerOpAlone,
    /// Expert parallelism under DeepSpeed's estimator, which has none, or with
    /// offload, which the page does not place per expert.
    NotInDeepSpeed,
    /// A layout Megatron-LM would refuse (a size that does not divide what it
    /// splits, stages that need uneven first and last ones, …), at the
    /// field of the size at fault: the parallel layout's own rule, not a copy.
    Layout(LayoutProblem),
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
    /// Distillation without a teacher model (`teacher`).
    NeedsTeacher,
    /// A key a link gives more than once: its first value counts, as the
    /// browser's `URLSearchParams.get` reads it.
    GivenTwice,
    /// A teacher whose vocabulary is not the student's: its distribution
    /// over the tokens cannot be compared with the student's.
    OtherVocabulary {
        /// The teacher's vocabulary.
        teacher: u32,
        /// The student's.
        student: u32,
    },
}

/// A typed error that names the field it is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputError {
    /// The field whose value is wrong.
    pub field: Field,
    /// What is wrong with it.
    pub kind: InputErrorKind,
}

impl fmt::Display for InputError {
    /// The field's key and the kind, as data (`gpus: OutOfRange(…)`): the
    /// front ends say it in words, in either language
    /// (`vram_view::text::error_words`), the one wording of each error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.field.key(), self.kind)
    }
}

/// The field of a layout's size at fault, and its problem as an input's.
impl From<LayoutError> for InputError {
    fn from(error: LayoutError) -> Self {
        let field = match error.size {
            LayoutSize::Tp => Field::Tp,
            LayoutSize::Pp => Field::Pp,
            LayoutSize::Vpp => Field::Vpp,
            LayoutSize::Cp => Field::Cp,
            LayoutSize::Sp => Field::Sp,
            LayoutSize::PpFirst => Field::PpFirst,
            LayoutSize::PpLast => Field::PpLast,
            LayoutSize::PpLayout => Field::PpLayout,
        };
        field.error(InputErrorKind::Layout(error.problem))
    }
}

/// The field of an argument a memory formula refused, and what its
/// declaration says is wrong with the value.
impl From<Refused> for InputError {
    fn from(refused: Refused) -> Self {
        // Each field's limits lie within its formula's domain, so the field's
        // own check refuses what the formula refused; the fallback is for
        // totality only.
        let checked = |field: Field, value: f64| {
            field
                .check(value)
                .err()
                .unwrap_or(field.error(InputErrorKind::NotFinite))
        };
        match refused {
            Refused::Params { billions } => checked(Field::Params, billions),
            Refused::Gpus => checked(Field::Gpus, 0.0),
            Refused::GpuMemory { gb } => checked(Field::GpuMemory, gb),
            Refused::Reserved { fraction } => checked(Field::Overhead, fraction),
            Refused::Context { room } => Field::Context.error(InputErrorKind::OutOfRange(Limits {
                min: 0.0,
                max: room.gb(),
            })),
            Refused::GlobalBatch => checked(Field::GlobalBatch, 0.0),
            Refused::MicroBatch => checked(Field::MicroBatch, 0.0),
            Refused::NotDivisible => Field::GlobalBatch.error(InputErrorKind::NotDivisible),
        }
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
        for (text, expected) in [
            ("", InputErrorKind::Empty),
            ("seven", InputErrorKind::NotANumber),
            ("inf", InputErrorKind::NotANumber),
            ("NaN", InputErrorKind::NotANumber),
            ("1e400", InputErrorKind::NotFinite),
        ] {
            assert_eq!(
                kind(Field::Params, text),
                Err((Field::Params, expected)),
                "{text:?}"
            );
        }
        for (field, text) in [
            (Field::Params, "0"),
            (Field::Overhead, "1"),
            (Field::GpuMemory, "-80"),
        ] {
            assert!(
                matches!(
                    kind(field, text),
                    Err((named, InputErrorKind::OutOfRange(_))) if named == field
                ),
                "{field:?} {text:?}"
            );
        }
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
    fn an_error_shows_as_its_key_and_kind() {
        let message = Field::Gpus.parse_count("0").unwrap_err().to_string();
        assert_eq!(
            message,
            "gpus: OutOfRange(Limits { min: 1.0, max: 1048576.0 })"
        );
    }
}
