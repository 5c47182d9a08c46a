//! One training step over time: what each GPU holds at the moments that can
//! set its peak, beside what is kept for backward.
//!
//! The page's totals are what is *kept*: the model states, the activations
//! saved for backward and the buffers, all at once. A step's memory moves
//! around that figure:
//! - **forward end**, the loss: everything kept is alive, plus what the loss
//!   computes and drops (Hugging Face upcasts 16-bit logits to fp32);
//! - **backward start**: the loss's gradients over the vocabulary arrive while
//!   every saved activation is still alive;
//! - **recomputed layer** (full recomputation only): the backward pass rebuilds
//!   one layer's working set on top of the layers' inputs;
//! - **optimizer step**: activations are freed; the states and the buffers
//!   remain. The optimizers the page follows update in place (DeepSpeed's and
//!   Megatron-LM's `FusedAdam`, transformers' default `adamw_torch_fused` since
//!   torch 2.8), so the step adds nothing of its own.
//!
//! Each moment is a difference from what is kept ([`StepTransients`], the same
//! on every GPU whatever the sharding); [`StepMemory`] adds it to a strategy's
//! total. The peak of the step is the largest moment; whether a strategy fits is
//! judged on it.

use serde::{Deserialize, Serialize};

use crate::memory::activations::ActivationMemory;
use crate::memory::MemoryBreakdown;
use vram_shared::units::Bytes;

/// A moment of the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// The end of the forward pass, when the loss is computed.
    ForwardEnd,
    /// The start of the backward pass, the loss's gradients just computed.
    BackwardStart,
    /// One layer rebuilt in the backward pass under full recomputation.
    RecomputedLayer,
    /// The optimizer's update, activations freed.
    OptimizerStep,
}

impl Phase {
    /// Every moment, in the order they happen.
    pub const ALL: [Phase; 4] = [
        Phase::ForwardEnd,
        Phase::BackwardStart,
        Phase::RecomputedLayer,
        Phase::OptimizerStep,
    ];

    /// The words for it.
    pub const fn label(self) -> &'static str {
        match self {
            Phase::ForwardEnd => "forward end",
            Phase::BackwardStart => "backward start",
            Phase::RecomputedLayer => "recomputed layer",
            Phase::OptimizerStep => "optimizer step",
        }
    }

    /// The name in `--json`.
    pub const fn key(self) -> &'static str {
        match self {
            Phase::ForwardEnd => "forward_end",
            Phase::BackwardStart => "backward_start",
            Phase::RecomputedLayer => "recomputed_layer",
            Phase::OptimizerStep => "optimizer_step",
        }
    }
}

/// What a GPU holds at each moment beyond what is kept for backward, in bytes
/// (negative where the moment holds less).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepTransients {
    /// At the loss.
    pub forward_end: Bytes,
    /// When the loss's gradients have been computed.
    pub backward_start: Bytes,
    /// While one layer is rebuilt; `None` without full recomputation.
    pub recomputed_layer: Option<Bytes>,
}

/// What Megatron-LM's step holds beyond Korthikanti et al.'s kept activations.
///
/// Megatron-LM's loss (`megatron/core/tensor_parallel/cross_entropy.py`,
/// `_VocabParallelCrossEntropy`) upcasts the logits to fp32 once, turns that
/// copy into the softmax in place and saves it; its backward writes the
/// gradient into the same buffer. The page's kept activations count the
/// logits and that fp32 copy, so the loss adds nothing; at backward start the
/// logits, which nothing saves, are gone and their 16-bit gradient takes their
/// place. Under full recomputation the working set of the layers rebuilt at
/// once only exists while they are rebuilt. An uncompiled PyTorch loss over
/// an fp32 copy (`loss=fp32`) holds more at both moments on the last stage
/// ([`crate::memory::activations::Loss`], `loss_beyond_kept`).
pub fn megatron_step_transients(activations: &ActivationMemory) -> StepTransients {
    // Under full recomputation the kept total is the larger of the loss's
    // moment and the rebuilding's; each moment holds its own.
    let below = |held: Bytes| Bytes::new(held.get() - activations.total.get());
    // The loss's own beyond the kept logits ([`crate::memory::activations::Loss`]).
    let (at_loss, backward) = activations.loss_beyond_kept;
    StepTransients {
        forward_end: below(activations.at_loss + at_loss),
        backward_start: below(activations.at_loss + backward),
        recomputed_layer: activations.rebuilding.map(below),
    }
}

/// The FP8 weights Transformer Engine saves for the backward pass under
/// DeepSpeed's ZeRO-3, in bytes on one GPU: each linear quantises the
/// gathered 16-bit weight in its forward and saves the FP8 copy (row-wise,
/// and column-wise for the data gradient where a transpose is kept) until
/// its backward, unless torch FSDP2 runs it, where the backward quantises
/// the gathered weight again (`module/linear.py`: `wt_save = None` when
/// `is_fsdp2`; issue 48, error 8). Kept for the backward like the
/// activations, every layer's at the loss: the GPU's `linear_params` ×
/// (1 + transpose) bytes. 0 for any other strategy, precision (FP8 weights
/// are quantised already) or sharding.
pub fn fp8_saved_weights(
    strategy: crate::memory::Strategy,
    recipe: crate::memory::Recipe,
    fsdp2: bool,
    linear_params: f64,
) -> Bytes {
    let saved = strategy == crate::memory::Strategy::Zero3
        && recipe.precision == crate::memory::Precision::Fp8
        && !fsdp2;
    match saved {
        true => Bytes::new(linear_params * recipe.fp8_weight_copy_bytes()),
        false => Bytes::ZERO,
    }
}

/// A strategy's memory per GPU at each moment of the step, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepMemory {
    /// What is kept: the strategy's total (model states, activations, buffers).
    pub kept: Bytes,
    /// At the loss.
    pub forward_end: Bytes,
    /// At the start of the backward pass.
    pub backward_start: Bytes,
    /// While one layer is rebuilt (full recomputation only).
    pub recomputed_layer: Option<Bytes>,
    /// During the optimizer's update: everything but the activations.
    pub optimizer_step: Bytes,
}

impl StepMemory {
    /// The moments of `memory` (a strategy's total with its activations) under
    /// `transients`; without a model every moment is the total.
    pub fn of(memory: &MemoryBreakdown, transients: Option<&StepTransients>) -> StepMemory {
        let kept = memory.total;
        let at = |extra: Bytes| Bytes::new(kept.get() + extra.get());
        let (forward_end, backward_start, recomputed_layer) = match transients {
            Some(t) => (
                at(t.forward_end),
                at(t.backward_start),
                t.recomputed_layer.map(at),
            ),
            None => (kept, kept, None),
        };
        StepMemory {
            kept,
            forward_end,
            backward_start,
            recomputed_layer,
            optimizer_step: Bytes::new(kept.get() - memory.activations.get()),
        }
    }

    /// The bytes at `phase`, `None` for a moment this step does not have.
    pub fn at(&self, phase: Phase) -> Option<Bytes> {
        match phase {
            Phase::ForwardEnd => Some(self.forward_end),
            Phase::BackwardStart => Some(self.backward_start),
            Phase::RecomputedLayer => self.recomputed_layer,
            Phase::OptimizerStep => Some(self.optimizer_step),
        }
    }

    /// The largest moment and when it happens (the first of equals).
    pub fn peak(&self) -> (Phase, Bytes) {
        Phase::ALL
            .into_iter()
            .filter_map(|phase| self.at(phase).map(|bytes| (phase, bytes)))
            .fold((Phase::ForwardEnd, self.forward_end), |best, next| {
                if next.1.get() > best.1.get() {
                    next
                } else {
                    best
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::activations::{activation_memory, Recompute};
    use crate::memory::parallel::tests::flash_setup;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn breakdown(states: f64, activations: Bytes) -> MemoryBreakdown {
        MemoryBreakdown {
            weights: Bytes::new(states),
            gradients: Bytes::ZERO,
            optimizer_states: Bytes::ZERO,
            activations,
            buffers: Bytes::ZERO,
            total: Bytes::new(states + activations.get()),
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn megatron_peaks_at_what_is_kept_and_the_optimizer_step_drops_the_activations() {
        let arch = model_preset("llama3-8b").unwrap().architecture;
        for recompute in Recompute::ALL {
            let setup = flash_setup(4096, recompute);
            let activations = activation_memory(&arch, &setup);
            let transients = megatron_step_transients(&activations);
            let memory = breakdown(16.0e9, activations.total);
            let step = StepMemory::of(&memory, Some(&transients));
            assert_eq!(step.peak().1, memory.total, "{recompute:?}");
            assert_eq!(step.optimizer_step.get(), 16.0e9);
            let expected_phase = match recompute {
                Recompute::Full => Phase::RecomputedLayer,
                _ => Phase::ForwardEnd,
            };
            assert_eq!(step.peak().0, expected_phase, "{recompute:?}");
            if recompute == Recompute::Full {
                // The rebuilt layer is what the forward end does not hold yet.
                assert_eq!(
                    step.recomputed_layer.unwrap().get() - step.forward_end.get(),
                    activations.per_layer.get()
                );
            }
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn without_a_model_every_moment_is_the_total_but_the_step_frees_nothing() {
        let memory = breakdown(112.0e9, Bytes::ZERO);
        let step = StepMemory::of(&memory, None);
        assert_eq!(step.peak(), (Phase::ForwardEnd, Bytes::new(112.0e9)));
        assert_eq!(step.optimizer_step.get(), 112.0e9);
        assert_eq!(step.recomputed_layer, None);
    }
}
