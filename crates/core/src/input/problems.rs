//! Each job's problems at the field the user typed: serving's rules
//! ([`ServeProblem`]) and an RL run's rollout engine (serving's rules again,
//! under RL's own keys) mapped to their fields in one place, so the link
//! decoder, the form and the CLI name the key that breaks a rule.

use crate::config::Config;
use crate::input::field::{Field, InputError, InputErrorKind, Limits};
use vram_serve::report::ServeProblem;

/// A serving rule broken ([`ServeProblem`]), at the field the user typed:
/// the layout's sizes, the formats, the engine's knobs; where two fields
/// together break it, the one typed (`batched_tokens` before `max_num_seqs`).
pub fn serve_problem_at_field(config: &Config, problem: ServeProblem) -> InputError {
    let arch = config.model.map(|m| m.architecture);
    match problem {
        ServeProblem::Tp(problem) => Field::Tp.error(InputErrorKind::Layout(problem)),
        ServeProblem::Pp(problem) => Field::Pp.error(InputErrorKind::Layout(problem)),
        ServeProblem::Ep => match arch.is_some_and(|a| a.moe.is_moe()) {
            true => Field::Ep.error(InputErrorKind::NotDivisible),
            false => Field::Ep.error(InputErrorKind::NeedsExperts),
        },
        ServeProblem::KvDtypeNoFp8 => Field::KvDtype.error(InputErrorKind::NoFp8),
        ServeProblem::WeightsNeedExperts => Field::Weights.error(InputErrorKind::NeedsExperts),
        ServeProblem::EngineModel => Field::Engine.error(InputErrorKind::EngineNotModelled),
        ServeProblem::KvMemory { max_bytes } => {
            Field::KvMemory.error(InputErrorKind::OutOfRange(Limits {
                min: 0.001,
                max: (max_bytes / 1_000_000) as f64 / 1e3,
            }))
        }
        ServeProblem::Block => Field::Block.error(InputErrorKind::NotPowerOfTwo),
        ServeProblem::BatchBelowSequences { tokens, seqs } => {
            match config.serve.batched_tokens.is_some() {
                true => Field::BatchedTokens.error(InputErrorKind::OutOfRange(Limits {
                    min: f64::from(seqs),
                    max: 16_777_216.0,
                })),
                false => Field::MaxNumSeqs.error(InputErrorKind::OutOfRange(Limits {
                    min: 1.0,
                    max: f64::from(tokens),
                })),
            }
        }
        ServeProblem::MaxLenBeyondContext { context } => {
            Field::MaxLen.error(InputErrorKind::OutOfRange(Limits {
                min: 1.0,
                max: f64::from(context),
            }))
        }
    }
}

/// An error of the RL rollout engine's serving configuration, at RL's own
/// field: its TP as `rollout_tp` where typed (else it is training's `tp`),
/// its GPUs as `rollout_gpus` when the engine has GPUs of its own, its
/// length (prompt and response) at the longer of the two, its sequences a
/// step beyond the framework's tokens a step at `max_num_seqs`.
pub fn rollout_error_at_field(config: &Config, error: InputError, split: bool) -> InputError {
    match error.field {
        Field::Tp if config.rl.rollout_tp.is_some() => Field::RolloutTp.error(error.kind),
        Field::Gpus | Field::Nodes if split => Field::RolloutGpus.error(error.kind),
        Field::MaxLen => at_the_longer_length(config, error.kind),
        // The framework's own batch of tokens, not typed: the sequences
        // typed are at fault, at most that many.
        Field::BatchedTokens if config.serve.batched_tokens.is_none() => {
            match config.rl.framework.rollout_batch().0 {
                Some(tokens) => Field::MaxNumSeqs.error(InputErrorKind::OutOfRange(Limits {
                    min: 1.0,
                    max: f64::from(tokens),
                })),
                None => error,
            }
        }
        _ => error,
    }
}

/// An error of the RL actor's training configuration, at RL's own field:
/// its sequence is the prompt and the response, so a sequence too long is
/// the longer of the two, within what the other leaves.
pub fn learner_error_at_field(config: &Config, error: InputError) -> InputError {
    match error.field {
        Field::Seq => at_the_longer_length(config, error.kind),
        _ => error,
    }
}

/// `kind` at the longer of the prompt and the response; a range is the
/// one that length may take beside the other's.
fn at_the_longer_length(config: &Config, kind: InputErrorKind) -> InputError {
    let (prompt, response) = (config.serve.prompt_len, config.serve.response_len);
    let (field, other) = match response >= prompt {
        true => (Field::ResponseLen, prompt),
        false => (Field::PromptLen, response),
    };
    match kind {
        InputErrorKind::OutOfRange(limits) => field.error(InputErrorKind::OutOfRange(Limits {
            min: 1.0,
            max: (limits.max - f64::from(other)).max(1.0),
        })),
        kind => field.error(kind),
    }
}
