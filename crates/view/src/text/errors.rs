//! What is wrong with an input, in words: next to a form's field
//! ([`field_error`]), and for a value written in a link or on the command
//! line ([`error_words`], [`link_problem`]). The core gives the kind; these
//! are the only words for it.

use super::*;

/// What to tell the user about a field's error, in the unit the form shows.
pub fn field_error(t: &Text, error: &InputError) -> String {
    match error.kind {
        InputErrorKind::Empty => t.err_empty.into(),
        InputErrorKind::NotANumber => t.err_not_a_number.into(),
        InputErrorKind::NotFinite => t.err_not_finite.into(),
        InputErrorKind::NotWhole => t.err_not_whole.into(),
        InputErrorKind::OutOfRange(limits) => {
            let shown = shown_as(error.field);
            fill(t.err_range, &[&shown(limits.min), &shown(limits.max)])
        }
        InputErrorKind::BelowResolution(resolution) => {
            fill(t.err_resolution, &[&shown_as(error.field)(resolution)])
        }
        InputErrorKind::UnknownChoice => t.err_choice.into(),
        InputErrorKind::NotPowerOfTwo => t.err_not_power_of_two.into(),
        InputErrorKind::MeasuredTerms => t.err_measured_terms.into(),
        InputErrorKind::EngineNotModelled => t.err_engine_not_modelled.into(),
        InputErrorKind::NeedsModel => t.err_needs_model.into(),
        InputErrorKind::TooManyGpus {
            gpus_per_node,
            total,
        } => fill(
            t.err_too_many_gpus,
            &[
                &gpus_per_node.to_string(),
                &format_number(total as f64),
                &format_number(Field::Gpus.limits().map_or(0.0, |l| l.max)),
            ],
        ),
        InputErrorKind::LargerThanModel => t.err_larger_than_model.into(),
        InputErrorKind::NotCovered => t.err_not_covered.into(),
        InputErrorKind::NeedsMixedPrecision => t.err_needs_mixed.into(),
        InputErrorKind::DenseOnly => t.err_dense_only.into(),
        InputErrorKind::NeedsExperts => t.err_needs_experts.into(),
        InputErrorKind::NeedsLatentAttention => t.err_needs_latent_attention.into(),
        InputErrorKind::PerOpAlone => t.err_per_op_alone.into(),
        InputErrorKind::VerlBatch { multiple_of } => {
            fill(t.err_verl_batch, &[&multiple_of.to_string()])
        }
        InputErrorKind::NotInDeepSpeed => t.err_not_in_deepspeed.into(),
        InputErrorKind::Layout(problem) => layout_words(t, problem),
        InputErrorKind::NeedsMegatron => t.err_needs_megatron.into(),
        InputErrorKind::FullTrainingOnly => t.err_full_training_only.into(),
        InputErrorKind::NotWith(other) => fill(t.err_not_with, &[field_text(t, other).label]),
        InputErrorKind::NotPerStage { microbatches, pp } => fill(
            t.err_not_per_stage,
            &[&microbatches.to_string(), &pp.to_string()],
        ),
        InputErrorKind::NoFp8 => t.err_no_fp8.into(),
        InputErrorKind::NeedsTeacher => t.err_needs_teacher.into(),
        InputErrorKind::GivenTwice => t.err_given_twice.into(),
        InputErrorKind::OtherVocabulary { teacher, student } => fill(
            t.err_other_vocabulary,
            &[&teacher.to_string(), &student.to_string()],
        ),
        InputErrorKind::NotDivisible => match error.field {
            Field::Heads => t.err_heads,
            Field::KvHeads => t.err_kv_heads,
            Field::GlobalBatch => t.err_batch,
            _ => t.err_divisible,
        }
        .into(),
    }
}

/// A layout Megatron-LM would refuse, in words (the field is the size at fault).
fn layout_words(t: &Text, problem: LayoutProblem) -> String {
    match problem {
        LayoutProblem::DoesNotDivide { splits, largest } => {
            let (words, n) = match splits {
                Splits::Gpus(n) => (t.splits_gpus, n),
                Splits::Heads(n) => (t.splits_heads, n),
                Splits::KvHeads(n) => (t.splits_kv_heads, n),
                Splits::Layers(n) => (t.splits_layers, n),
                Splits::Ffn(n) => (t.splits_ffn, n),
                Splits::Sequence(n) => (t.splits_sequence, n),
                Splits::CountedLayers(n) => (t.splits_counted_layers, n),
            };
            fill(
                t.err_divides,
                &[&fill(words, &[&n.to_string()]), &largest.to_string()],
            )
        }
        LayoutProblem::NeedsUnevenStages {
            layers,
            largest,
            first,
            last,
        } => {
            // The split, as the link writes it and in words.
            let (keys, words) = match last {
                Some(last) => (
                    format!("pp_first={first}&pp_last={last}"),
                    fill(
                        t.uneven_first_last,
                        &[&first.to_string(), &last.to_string()],
                    ),
                ),
                None => (
                    format!("pp_first={first}"),
                    fill(t.uneven_first, &[&first.to_string()]),
                ),
            };
            fill(
                t.err_needs_uneven,
                &[&layers.to_string(), &largest.to_string(), &keys, &words],
            )
        }
        LayoutProblem::NeedsPipeline => t.err_needs_pipeline.into(),
        LayoutProblem::NeedsTensorParallel => t.err_needs_tp.into(),
        LayoutProblem::NoLayersLeft { layers } => {
            fill(t.err_no_layers_left, &[&layers.to_string()])
        }
        LayoutProblem::UnevenMiddle { layers, stages } => fill(
            t.err_uneven_middle,
            &[&layers.to_string(), &stages.to_string()],
        ),
        LayoutProblem::StageLayout(rule) => t.stage_rule[rule as usize].into(),
        LayoutProblem::StageCount { stages, pp, vpp } => fill(
            t.err_stage_count,
            &[&stages.to_string(), &pp.to_string(), &vpp.to_string()],
        ),
        LayoutProblem::StageLayers { found, layers } => fill(
            t.err_stage_layers,
            &[&found.to_string(), &layers.to_string()],
        ),
        LayoutProblem::StageMtp { found, mtp } => {
            fill(t.err_stage_mtp, &[&found.to_string(), &mtp.to_string()])
        }
    }
}

/// How a value of `field` reads in the form: the overhead as a percentage.
fn shown_as(field: Field) -> fn(f64) -> String {
    if field == Field::Overhead {
        format_percent
    } else {
        format_number
    }
}

/// One line about a key of the shared link that was set aside.
pub fn link_problem(t: &Text, problem: &LinkProblem) -> String {
    let written = format!("{}={}", problem.key, problem.value);
    match &problem.error {
        // A key given again: the first value counts.
        Some(error) if error.kind == InputErrorKind::GivenTwice => {
            fill(t.link_repeated, &[&written, &problem.used])
        }
        // An error of another field than the key's (hidden=1 makes the model
        // too small) names that field: “hidden=1”: Model size: …
        Some(error) if error.field.key() != problem.key => {
            let named = fill(
                t.link_err_other,
                &[field_text(t, error.field).label, &error_words(t, error)],
            );
            fill(t.link_problem, &[&written, &named, &problem.used])
        }
        Some(error) => fill(
            t.link_problem,
            &[&written, &error_words(t, error), &problem.used],
        ),
        None => fill(t.link_version, &[&written]),
    }
}

/// What is wrong with a value written in a link or on the command line, in
/// `t`'s language: the one wording of each error outside the form (the core
/// gives the kind, `vram_core::input::InputErrorKind`). Such values are in the
/// link's units (the overhead as a fraction), so the limits are said that way,
/// and a choice lists the values it accepts.
pub fn error_words(t: &Text, error: &InputError) -> String {
    match (error.field, error.kind) {
        (Field::Overhead, InputErrorKind::OutOfRange(limits)) => fill(
            t.link_err_fraction,
            &[&format_number(limits.min), &format_number(limits.max)],
        ),
        (Field::Show, InputErrorKind::UnknownChoice) => {
            fill(t.link_err_parts, &[&error.field.choices().join(", ")])
        }
        // A preset's ids (`gpu=h100` → the GPUs' ids), else the choices.
        (
            field @ (Field::Gpu
            | Field::Model
            | Field::Teacher
            | Field::CriticModel
            | Field::RewardModel),
            InputErrorKind::UnknownChoice,
        ) => fill(t.link_err_choice, &[&field.preset_ids().join(", ")]),
        (_, InputErrorKind::UnknownChoice) => {
            fill(t.link_err_choice, &[&error.field.choices().join(", ")])
        }
        _ => field_error(t, error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model field the link names wrongly lists the models' ids: the
    /// teacher's, the critic's and the reward model's as the model's (they
    /// once said "Use one of: ." with no id at all).
    #[test]
    fn an_unknown_model_lists_the_models() {
        let t = crate::text::of(vram_core::format::Lang::En);
        for field in [
            Field::Model,
            Field::Teacher,
            Field::CriticModel,
            Field::RewardModel,
        ] {
            let said = error_words(t, &field.error(InputErrorKind::UnknownChoice));
            assert!(said.starts_with("Use one of: "), "{said}");
            assert!(said.contains("qwen2.5-7b, "), "{field:?}: {said}");
        }
    }
}
