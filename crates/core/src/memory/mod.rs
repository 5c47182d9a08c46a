//! What each GPU holds: the model states under DDP and ZeRO (the lesson's
//! formulas, [`states`]), the recipe they follow (precision, optimizer,
//! strategy), the activations kept for backward ([`activations`]), adapters
//! ([`finetune`]), the model split over GPUs ([`parallel`], with Megatron-LM's
//! pipeline layout string in [`stage_map`]), the step's peak
//! ([`step`]) and gradient accumulation ([`accumulation`]).

pub mod accumulation;
pub mod activations;
pub mod finetune;
mod optimizer;
pub mod parallel;
mod precision;
pub mod stage_map;
pub mod states;
pub mod step;
mod strategy;

pub use optimizer::Optimizer;
pub use precision::{Fp8Recipe, GradientPrecision, Precision};
pub use states::*;
pub use strategy::Strategy;

use vram_shared::units::Bytes;

/// An argument a memory formula is not defined for, named by what it is
/// (the input layer says which field that is: `InputError: From<Refused>`,
/// and checks each field's own limits before a formula sees it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Refused {
    /// A parameter count that is not positive and finite.
    Params {
        /// The count, in billions.
        billions: f64,
    },
    /// No GPU.
    Gpus,
    /// GPU memory that is not positive and finite.
    GpuMemory {
        /// The memory, in GB.
        gb: f64,
    },
    /// A reserved fraction outside 0 (included) to 1 (excluded).
    Reserved {
        /// The fraction.
        fraction: f64,
    },
    /// A fixed reserve per GPU that leaves nothing of it.
    Context {
        /// The room there is: the memory less the reserved fraction.
        room: Bytes,
    },
    /// An empty global batch.
    GlobalBatch,
    /// An empty micro-batch.
    MicroBatch,
    /// A global batch that is not a multiple of micro-batch × GPUs.
    NotDivisible,
}
