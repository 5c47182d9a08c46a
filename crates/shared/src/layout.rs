//! A parallel layout's rules in words every job shares: what a layout size
//! splits ([`Splits`]) and what can be wrong with it ([`LayoutProblem`]).
//! Training's Megatron-LM layouts (`vram_core::memory::parallel`) and
//! serving's engine layouts (`vram_serve::report::check`) report their
//! refusals with them; the front ends word them once.

use serde::{Deserialize, Serialize};

/// What is wrong with a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutProblem {
    /// The size does not divide what it splits; `largest` is the largest
    /// size up to the one given that would.
    DoesNotDivide {
        /// What the size splits.
        splits: Splits,
        /// The largest size that divides it.
        largest: u32,
    },
    /// Pipeline stages that do not divide the model's layers, where uneven
    /// first and last stages would hold them (`vram_core::memory::parallel::uneven_split`).
    NeedsUnevenStages {
        /// The model's transformer layers.
        layers: u32,
        /// The largest PP up to the one given that divides them.
        largest: u32,
        /// The first stage's layers that would.
        first: u32,
        /// The last stage's, where it needs its own count too.
        last: Option<u32>,
    },
    /// Virtual or uneven stages without pipeline stages.
    NeedsPipeline,
    /// Sequence parallelism without tensor parallelism.
    NeedsTensorParallel,
    /// Uneven first and last stages that take all of the model's `layers`
    /// (or more) while stages in between are left with none.
    NoLayersLeft {
        /// The model's transformer layers.
        layers: u32,
    },
    /// Uneven first and last stages that leave `layers` for `stages` stages
    /// in between: not a whole number each.
    UnevenMiddle {
        /// The layers left between the first and last stages.
        layers: u32,
        /// The stages in between.
        stages: u32,
    },
}

impl LayoutProblem {
    /// A size `typed` that does not divide what it `splits`, with the largest
    /// size up to it that would (a sequence splits in 2 × CP chunks).
    pub fn does_not_divide(splits: Splits, typed: u32) -> LayoutProblem {
        let whole = splits.count();
        let largest = (1..=typed.max(1))
            .rev()
            .find(|d| {
                whole % d == 0 && (!matches!(splits, Splits::Sequence(_)) || whole % (2 * d) == 0)
            })
            .unwrap_or(1);
        LayoutProblem::DoesNotDivide { splits, largest }
    }
}

/// What a layout size splits, and how many of it there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Splits {
    /// All GPUs (nodes × GPUs per node).
    Gpus(u32),
    /// The attention heads.
    Heads(u32),
    /// The key/value heads.
    KvHeads(u32),
    /// The transformer layers (pipeline stages × virtual stages).
    Layers(u32),
    /// An MLP's intermediate width (a dense layer's, an expert's).
    Ffn(u32),
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
            | Splits::Ffn(n)
            | Splits::Sequence(n) => n,
        }
    }
}

/// The largest divisor of `whole` up to `at_most` (1 at least).
pub fn largest_divisor(whole: u32, at_most: u32) -> u32 {
    (1..=at_most.max(1))
        .rev()
        .find(|d| whole % d == 0)
        .unwrap_or(1)
}
