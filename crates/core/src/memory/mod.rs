//! What each GPU holds: the model states under DDP and ZeRO (the lesson's
//! formulas, [`states`]), the recipe they follow (precision, optimizer,
//! strategy), the activations kept for backward ([`activations`]), adapters
//! ([`finetune`]), the model split over GPUs ([`parallel`]), the step's peak
//! ([`step`]) and gradient accumulation ([`accumulation`]).

pub mod accumulation;
pub mod activations;
pub mod finetune;
mod optimizer;
pub mod parallel;
mod precision;
pub mod states;
pub mod step;
mod strategy;

pub use optimizer::Optimizer;
pub use precision::{GradientPrecision, Precision};
pub use states::*;
pub use strategy::Strategy;
