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
    /// Megatron-LM's `--pipeline-model-parallel-layout` breaks one of its
    /// rules (`pipeline_parallel_layer_layout.py`).
    StageLayout(StageRule),
    /// A pipeline layout of `stages` virtual stages on `pp` ranks of `vpp`
    /// virtual stages each (Megatron-LM derives VPP = stages ÷ PP).
    StageCount {
        /// The layout's virtual stages.
        stages: u32,
        /// The pipeline stages.
        pp: u32,
        /// The virtual stages per rank given.
        vpp: u32,
    },
    /// A pipeline layout whose transformer layers (`t`) are not the model's.
    StageLayers {
        /// The layout's.
        found: u32,
        /// The model's.
        layers: u32,
    },
    /// A pipeline layout whose multi-token-prediction layers (`m`) are not
    /// the model's.
    StageMtp {
        /// The layout's.
        found: u32,
        /// The model's.
        mtp: u32,
    },
}

/// A rule of Megatron-LM's `--pipeline-model-parallel-layout` a layout
/// breaks (`PipelineParallelLayerLayout.parse_str_to_list` and
/// `validate_layer_layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageRule {
    /// A character that is none of `E`, `t`, `m`, `L`, `|`, a comma or a
    /// repetition (`t*3`, `(tt|)*29`).
    Symbol,
    /// The embedding (`E`) not once and first.
    EmbeddingFirst,
    /// The loss (`L`) not once and last.
    LossLast,
    /// A transformer layer after a multi-token-prediction layer.
    DecoderAfterMtp,
    /// Multi-token-prediction layers not together in the last virtual
    /// stage of their pipeline rank.
    MtpPlacement,
    /// More virtual stages, or layers in one, than the calculator holds
    /// (`vram_core::memory::stage_map::MAX_STAGES`).
    TooLarge,
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
    /// The transformer layers with the embedding or the loss counted as a
    /// layer each (Megatron-LM's `--account-for-embedding-in-pipeline-split`,
    /// `--account-for-loss-in-pipeline-split`).
    CountedLayers(u32),
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
            | Splits::Sequence(n)
            | Splits::CountedLayers(n) => n,
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
