//! A step's timeline on one GPU: what each phase holds and how long it
//! takes, in the order a synchronous framework runs them (verl's
//! `RayPPOTrainer.fit`, OpenRLHF's and TRL's colocated loops alike): the
//! engine wakes and takes the trainer's weights, generates, sleeps; the
//! trainer scores every token (old policy, reference, values) and updates.
//! The peak phase is marked, with the one input that relieves it.

use super::{PhaseReport, RlPart, RlReport, RlTime};
use crate::config::rl::{Placement, Reference};
use crate::config::Config;
use crate::frameworks::deepspeed::Offload;
use crate::input::Field;
use crate::memory::activations::Recompute;

/// A phase of the step, in the order it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The engine takes its weights back (sleep level 1: from host RAM over
    /// PCIe) before the trainer's are synced into it.
    Wake,
    /// The trainer's 16-bit weights gathered whole and loaded into the
    /// engine (verl's `update_weights`: the engine's weights woken, its
    /// KV cache not yet; apart, a broadcast to the engine's GPUs).
    WeightSync,
    /// The engine generates the step's responses, its KV cache allocated.
    Generate,
    /// The engine frees its KV cache (and weights, to host RAM at level 1).
    Sleep,
    /// Forward passes over every token for the old policy's, the
    /// reference's and the critic's values: no activations kept for a
    /// backward pass, the vocabulary's log-probs at their peak.
    LogProbs,
    /// The actor's (and critic's) forward and backward passes and the
    /// optimizer's step.
    Update,
}

/// One phase on the most loaded GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageFigure {
    /// Which phase.
    pub stage: Stage,
    /// What it holds at its peak, bytes.
    pub bytes: f64,
    /// How long it takes a step, seconds; `None` without a GPU whose peaks
    /// and links are known.
    pub seconds: Option<f64>,
    /// Whether it runs on the engine's own GPUs (a split placement's
    /// generation), not the trainer's.
    pub on_engine_gpus: bool,
}

/// A step's phases in order, the one that holds most, and what relieves it.
#[derive(Debug, Clone, PartialEq)]
pub struct RlTimeline {
    /// The phases in the order they run.
    pub stages: Vec<StageFigure>,
    /// The phase holding most against what its GPU may use.
    pub peak: Stage,
    /// The input that most relieves the peak: the one governing its
    /// largest part.
    pub relief: Field,
}

/// Seconds the weights take between host and GPU and into the engine,
/// around each generation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TransferSeconds {
    /// Host to GPU at wake (sleep level 1).
    pub wake: f64,
    /// The trainer's weights gathered and loaded into the engine.
    pub sync: f64,
    /// GPU to host at sleep (level 1).
    pub sleep: f64,
}

impl TransferSeconds {
    /// All three.
    pub fn total(&self) -> f64 {
        self.wake + self.sync + self.sleep
    }
}

impl Config {
    /// The weight transfers around a generation, with the engine's 16-bit
    /// weights on each GPU of `engine_weight_bytes`: at sleep level 1 they
    /// go to host RAM and back over PCIe; the sync gathers the actor's whole
    /// 16-bit weights on every GPU (verl's per-tensor full gather;
    /// OpenRLHF's and TRL's broadcast from rank 0 when apart) over NVLink
    /// within a node, the network beyond.
    pub(super) fn rl_transfer_seconds(&self, engine_weight_bytes: f64) -> Option<TransferSeconds> {
        let machine = self.machine()?;
        let model = self.model?;
        let whole = 2.0 * model.architecture.param_count() as f64;
        let across_nodes = self.runtime.nodes > 1 || self.rl.placement == Placement::Split;
        let link = match across_nodes {
            true => machine.network_bytes_per_s,
            false => machine.nvlink_bytes_per_s,
        };
        let host = match (self.rl.placement, self.rl.sleep) {
            (Placement::Colocate, 1) => engine_weight_bytes / machine.pcie_bytes_per_s.max(1.0),
            _ => 0.0,
        };
        Some(TransferSeconds {
            wake: host,
            sync: whole / link.max(1.0),
            sleep: host,
        })
    }

    /// The input that relieves a phase whose largest part is `part`.
    fn rl_relief(&self, part: RlPart) -> Field {
        match part {
            RlPart::EngineKv | RlPart::EngineOverheads => match self.rl.placement {
                Placement::Colocate => Field::GpuUtil,
                Placement::Split => Field::RolloutTp,
            },
            RlPart::EngineWeights | RlPart::WeightSync => Field::RolloutTp,
            RlPart::TrainerResident | RlPart::ActorStates | RlPart::Critic => {
                match self.runtime.offload {
                    Offload::All => Field::Gpus,
                    _ => Field::Offload,
                }
            }
            RlPart::Reference => match self.rl.reference {
                Reference::Model if !self.rl.ref_offload => Field::RefOffload,
                _ => Field::Ref,
            },
            RlPart::ActorStep => match self.model.map(|m| m.recompute) {
                Some(Recompute::Full) | None => match self.rl.token_budget {
                    Some(_) => Field::TokenBudget,
                    None => Field::MicroBatch,
                },
                Some(_) => Field::Recompute,
            },
            RlPart::LogProbs | RlPart::TeacherLogits => Field::Logits,
            RlPart::EngineAsleep => Field::Sleep,
            RlPart::RewardModel => Field::Reward,
            RlPart::Teacher => Field::Gpus,
            // ZeRO-2 keeps every unit whole, ZeRO-3's root is the rest.
            RlPart::FsdpRoot => Field::Stage,
            RlPart::Process => Field::Gpus,
        }
    }

    /// The step's timeline from its two phases and time.
    pub(super) fn rl_timeline(
        &self,
        generate: Option<&PhaseReport>,
        learn: &PhaseReport,
        time: Option<&RlTime>,
    ) -> RlTimeline {
        let split = self.rl.placement == Placement::Split;
        let without = |phase: &PhaseReport, gone: &[RlPart]| {
            phase.total_bytes - gone.iter().map(|&p| phase.bytes(p)).sum::<f64>()
        };
        // Scoring keeps no activations for a backward pass.
        let scoring = without(learn, &[RlPart::ActorStep]);
        let asleep = without(
            learn,
            &[
                RlPart::ActorStep,
                RlPart::LogProbs,
                RlPart::TeacherLogits,
                RlPart::FsdpRoot,
            ],
        );
        let figure = |stage, bytes, seconds: Option<f64>, on_engine_gpus| StageFigure {
            stage,
            bytes,
            seconds,
            on_engine_gpus,
        };
        let seconds = |f: fn(&RlTime) -> f64| time.map(f);
        let mut stages = Vec::new();
        if let Some(generate) = generate {
            let engine_kv = generate.bytes(RlPart::EngineKv);
            if !split && self.rl.sleep > 0 {
                stages.push(figure(
                    Stage::Wake,
                    generate.total_bytes - engine_kv,
                    seconds(|t| t.transfer.wake),
                    false,
                ));
            }
            stages.push(figure(
                Stage::WeightSync,
                match split {
                    true => asleep,
                    false => generate.total_bytes - engine_kv,
                },
                seconds(|t| t.transfer.sync),
                false,
            ));
            stages.push(figure(
                Stage::Generate,
                generate.total_bytes,
                seconds(|t| t.rollout_seconds),
                split,
            ));
            if !split && self.rl.sleep > 0 {
                stages.push(figure(
                    Stage::Sleep,
                    asleep,
                    seconds(|t| t.transfer.sleep),
                    false,
                ));
            }
        }
        stages.push(figure(
            Stage::LogProbs,
            scoring,
            seconds(|t| t.log_prob_seconds),
            false,
        ));
        stages.push(figure(
            Stage::Update,
            learn.total_bytes,
            seconds(|t| t.learn_seconds),
            false,
        ));
        // The peak: the largest share of what its GPU may use.
        let share = |s: &StageFigure| {
            let limit = match (s.stage, generate) {
                (Stage::Generate, Some(g)) => g.limit_bytes,
                _ => learn.limit_bytes,
            };
            s.bytes / limit.max(1.0)
        };
        let peak = stages
            .iter()
            .max_by(|a, b| share(a).total_cmp(&share(b)))
            .map_or(Stage::Update, |s| s.stage);
        let peak_phase = match (peak, generate) {
            (Stage::Generate | Stage::Wake, Some(g)) => g,
            _ => learn,
        };
        let largest = peak_phase
            .parts
            .iter()
            .filter(|(part, _)| peak != Stage::LogProbs || *part != RlPart::ActorStep)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(RlPart::ActorStep, |(part, _)| *part);
        RlTimeline {
            stages,
            peak,
            relief: self.rl_relief(largest),
        }
    }
}

impl RlReport {
    /// The phase `stage`'s figure, when the step has it.
    pub fn stage(&self, stage: Stage) -> Option<&StageFigure> {
        self.timeline.stages.iter().find(|s| s.stage == stage)
    }
}
