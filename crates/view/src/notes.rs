//! The report in sentences, as the page shows them under its table and the
//! Markdown export writes them under its own: what LoRA trains, each
//! strategy's formula, the layout, the activations, the step's time and the
//! accumulation, in the page's language. The strategy table's words too.

use vram_core::format::{
    format_bytes, format_number, format_params, format_percent, format_seconds,
};
use vram_core::report::table::TableWords;
use vram_core::{Config, Field, Report};

use crate::text::{self, Text};

/// The strategy table's words in the page's language
/// ([`vram_core::report::table::Table`], drawn here and in the Markdown export).
pub fn table_words(t: &Text) -> TableWords<'static> {
    TableWords {
        headings: [
            t.col_strategy,
            t.col_weights,
            t.col_grads,
            t.col_optim,
            t.col_act,
            t.col_buffers,
            t.col_total,
            t.col_peak,
            t.col_fits,
            t.col_headroom,
            t.col_fewest,
            t.col_max,
            t.col_cpu,
            t.col_nvme,
            t.col_comm,
            t.col_comm_time,
        ],
        yes: t.yes,
        no: t.no,
        not_run: t.not_run,
        none: t.none,
        unbounded: t.unbounded,
        not_given: "–",
    }
}

/// What LoRA trains and freezes, as PEFT's `print_trainable_parameters` counts
/// it, and what the frozen base holds.
fn adapters_note(
    t: &Text,
    report: &Report,
    adapters: vram_core::memory::finetune::Adapters,
) -> String {
    use vram_core::format::{format_bytes, format_number};
    let all = report.setup.params().get();
    let trainable = adapters.trainable as f64;
    let quantised = report.fine_tuning.method == vram_core::memory::finetune::Method::Qlora;
    text::fill(
        t.adapters_line,
        &[
            report.fine_tuning.method_label(),
            &format_number(trainable),
            &format_number(all),
            &vram_core::decimal::shortest_decimal((trainable / all * 1e6).round() / 1e4),
            &format_bytes(
                vram_core::Bytes::new(adapters.frozen_bytes as f64),
                report.unit,
            ),
            if quantised {
                t.frozen_quantised
            } else {
                t.frozen_16bit
            },
        ],
    )
}

/// What Hugging Face keeps, in the page's words: the attention, the numerics
/// and each part.
pub fn hf_parts(
    t: &Text,
    report: &Report,
    model: &vram_core::config::ModelSpec,
    kept: &vram_core::memory::activations::ActivationMemory,
) -> String {
    use vram_core::format::format_bytes;
    use vram_core::frameworks::hf::Numerics;
    let numerics = match vram_core::frameworks::hf::numerics_of(report.setup.precision()) {
        Numerics::Fp32 => 0,
        Numerics::Pure16 => 1,
        Numerics::Autocast16 => 2,
    };
    let bytes = |b: vram_core::Bytes| format_bytes(b, report.unit);
    text::fill(
        t.hf_parts,
        &[
            model.hf_attention().key(),
            t.hf_numerics[numerics],
            &bytes(kept.per_layer),
            &bytes(kept.layers),
            &bytes(kept.embeddings_and_logits),
            &bytes(vram_core::Bytes::new(
                kept.total.get() - kept.adapters.get(),
            )),
        ],
    )
}

/// LitGPT's measured parts ([`vram_core::frameworks::litgpt`]): one layer,
/// all of them, outside them, and what is kept in all.
fn litgpt_parts(
    t: &Text,
    report: &Report,
    kept: &vram_core::memory::activations::ActivationMemory,
) -> String {
    let bytes = |b: vram_core::Bytes| vram_core::format::format_bytes(b, report.unit);
    text::fill(
        t.litgpt_parts,
        &[
            &bytes(kept.per_layer),
            &bytes(kept.layers),
            &bytes(kept.embeddings_and_logits),
            &bytes(kept.total),
        ],
    )
}

/// The notes under the table, one a line: the highlighted strategy by the
/// lesson's formula, the activation formula with the largest micro-batch, the
/// accumulation steps, each where it applies (empty if none does). The Markdown
/// export puts them under its table too.
pub fn notes(t: &Text, report: &Report) -> String {
    let chosen = report.highlighted();
    let mut parts = Vec::new();
    if let Some(adapters) = report.setup.adapters() {
        parts.push(adapters_note(t, report, adapters));
    }
    if let Some(formula) = report.derivation(t.word_activations, t.word_buffers) {
        parts.push(text::fill(
            t.derivation,
            &[chosen.strategy.label(), &formula],
        ));
    }
    if let Some(layout) = &report.layout {
        parts.push(layout_note(t, report, layout));
    }
    let layout = report.layout.is_some();
    // Hugging Face's or LitGPT's measured parts, else the formula (Korthikanti et al.'s,
    // or its generalisation beyond a plain transformer).
    let activations = report.model.and_then(|model| {
        let line = match (model.framework, report.activations) {
            (vram_core::frameworks::hf::Framework::Hf, Some(kept)) => {
                (t.activations_line_hf, hf_parts(t, report, &model, &kept))
            }
            (vram_core::frameworks::hf::Framework::LitGpt, Some(kept)) => {
                (t.activations_line_hf, litgpt_parts(t, report, &kept))
            }
            _ => {
                let formula = report.activation_formula()?;
                match vram_core::memory::activations::is_plain(&model.architecture) {
                    true => (t.activations_line, formula),
                    false => (t.activations_line_general, formula),
                }
            }
        };
        Some((model, line))
    });
    if let (false, Some((model, (template, formula)))) = (layout, activations) {
        let max_micro_batch = chosen
            .max_micro_batch
            .map_or(t.none.to_string(), |b| b.to_string());
        let lora = report.lora_activation_derivation().map(|lora| {
            let hf = model.framework == vram_core::frameworks::hf::Framework::Hf;
            text::fill(if hf { t.lora_adds_hf } else { t.lora_adds }, &[&lora])
        });
        let formula = formula + lora.as_deref().unwrap_or_default();
        parts.push(text::fill(
            template,
            &[
                &model.micro_batch.to_string(),
                &model.seq_len.to_string(),
                &formula,
                chosen.strategy.label(),
                &max_micro_batch,
            ],
        ));
    }
    if let (Some(time), Some(machine)) = (chosen.time, report.machine) {
        parts.push(time_note(t, report, &time, &machine));
    }
    match report.accumulation_steps {
        Some(Ok(steps)) => parts.push(text::fill(t.accumulation, &[&steps.to_string()])),
        Some(Err(error)) => parts.push(text::fill(
            t.accumulation_error,
            &[&text::field_error(t, &error)],
        )),
        None => {}
    }
    parts.join("\n")
}

/// The layout in words: its sizes, ZeRO's group, the most loaded GPU's rank,
/// layers, parameters and activations; TP across nodes and ZeRO-2/3 under
/// pipeline parallelism said.
fn layout_note(t: &Text, report: &Report, layout: &vram_core::report::LayoutReport) -> String {
    let l = layout.layout;
    let ep = report.model.map_or(1, |m| m.ep);
    let layers = report.model.map_or(1, |m| m.architecture.layers);
    let sizes = crate::plans::layout_words(l, ep, layout.data_parallel, layers);
    let chosen = report.highlighted();
    let rank = chosen.rank.unwrap_or(0);
    let stage = layout.stages.get(rank as usize);
    let mut note = text::fill(
        t.layout_note,
        &[
            &sizes,
            &report.gpus().to_string(),
            &report.setup.gpus().to_string(),
            chosen.strategy.label(),
            &(rank + 1).to_string(),
            &l.pp.to_string(),
            &stage.map_or(0, |s| s.layers).to_string(),
            &format_params(vram_core::ParamCount::new(
                stage.map_or(0, |s| s.params) as f64
            )),
            &format_number(l.layers_in_flight(rank, layout.microbatches, layers)),
            &format_bytes(chosen.memory.activations, report.unit),
        ],
    );
    if layout.across_nodes {
        note.push(' ');
        note.push_str(t.tp_across_nodes);
    }
    if report.strategies.iter().any(|r| !r.supported) {
        note.push(' ');
        note.push_str(
            match report.strategy(vram_core::Strategy::Zero3).supported {
                true => t.zero2_with_pipeline,
                false => t.zero_with_pipeline,
            },
        );
    }
    if let Some(formula) = layout_activations(t, report) {
        note.push('\n');
        note.push_str(&formula);
    }
    note
}

/// The most loaded pipeline rank's activations under a layout, as
/// Korthikanti et al. partition them, with the report's numbers
/// ([`Report::layout_derivation`]); `None` without a layout or a model.
pub fn layout_activations(t: &Text, report: &Report) -> Option<String> {
    use vram_core::report::Rebuilt;
    let d = report.layout_derivation()?;
    let bytes = |b: vram_core::Bytes| format_bytes(b, report.unit);
    let mut split = match (d.tp, d.sp) {
        (1, _) => String::new(),
        (tp, false) => text::fill(t.layout_split_tp, &[&tp.to_string()]),
        (tp, true) => text::fill(t.layout_split_tp_sp, &[&tp.to_string()]),
    };
    if d.cp > 1 {
        split.push_str(&text::fill(t.layout_split_cp, &[&d.cp.to_string()]));
    }
    let rebuilt = match d.rebuilt {
        None => String::new(),
        Some(Rebuilt::AtOnce { layers }) => text::fill(
            t.layout_rebuilt_at_once,
            &[&layers.to_string(), &bytes(d.per_layer)],
        ),
        Some(Rebuilt::Stored { layers }) => text::fill(
            t.layout_rebuilt_stored,
            &[
                &format_number(d.in_flight),
                &layers.to_string(),
                &bytes(d.per_layer),
            ],
        ),
    };
    Some(text::fill(
        t.layout_activations,
        &[
            &(d.rank + 1).to_string(),
            &d.pp.to_string(),
            &split,
            &format_number(d.in_flight),
            &d.layers.to_string(),
            &bytes(d.each),
            &rebuilt,
            &bytes(d.outside),
            &bytes(d.total),
        ],
    ))
}

/// The highlighted strategy's step time, its parts, and the run with tokens.
fn time_note(
    t: &Text,
    report: &Report,
    time: &vram_core::time::StepTime,
    machine: &vram_core::time::Machine,
) -> String {
    let parts = [
        (time.compute_seconds, t.time_compute),
        (time.bubble_seconds, t.time_bubble),
        (time.tensor_parallel_seconds, t.time_tensor),
        (time.expert_parallel_seconds, t.time_expert),
        (time.context_parallel_seconds, t.time_context),
        (time.data_parallel_seconds, t.time_data),
        (time.offload_seconds, t.time_offload),
    ]
    .iter()
    .filter(|(seconds, _)| *seconds > 0.0)
    .map(|(seconds, name)| format!("{name} {}", format_seconds(*seconds)))
    .collect::<Vec<_>>()
    .join(" + ");
    let mut note = text::fill(
        t.time_note,
        &[
            report.highlight.label(),
            &match machine.efficiency {
                vram_core::time::Efficiency::Typed(share) => text::fill(
                    t.time_kernels_typed,
                    &[&format_percent(share), &machine.peak_words()],
                ),
                vram_core::time::Efficiency::Kernels(_) => text::fill(
                    t.time_kernel_model,
                    &[
                        &format_percent(time.kernel_efficiency),
                        &machine.peak_words(),
                    ],
                ),
            },
            &format_seconds(time.step_seconds),
            &parts,
            &format_number(time.tokens_per_second_per_gpu.round()),
            &format_percent(time.mfu),
        ],
    );
    if let Some(run) = report.training {
        note.push(' ');
        note.push_str(&text::fill(
            t.training_note,
            &[
                &format_number(run.tokens / 1e9),
                &format_number(run.steps),
                &format_number((run.days * 10.0).round() / 10.0),
                &report.gpus().to_string(),
            ],
        ));
        if let Some(cost) = run.cost {
            note.push_str(&text::fill(
                t.training_cost,
                &[&format_number(cost.round())],
            ));
        }
    }
    note
}

/// The model's name after its parameter count: ` (Llama 2 13B)`, or
/// ` (custom from Llama 2 13B)` for an edited architecture; empty for a bare size.
pub fn model_note(t: &Text, config: &Config) -> String {
    match config
        .model
        .as_ref()
        .map(vram_core::config::ModelSpec::preset)
    {
        Some(Some(preset)) => text::fill(t.model_named, &[preset.name]),
        Some(None) => text::fill(
            t.model_named,
            &[&(t.custom_from.to_string() + " " + config.model.map_or("", |m| m.base.name))],
        ),
        None => String::new(),
    }
}

/// What a caption names after the parameter count (then the gradients'
/// format and DeepSpeed's settings where they differ from their defaults):
/// the step, the GPUs and the recipe, not the architecture's shape (the count
/// and the model's name say it).
const CAPTION: [Field; 11] = [
    Field::Seq,
    Field::MicroBatch,
    Field::Recompute,
    Field::Flash,
    Field::Gpus,
    Field::Gpu,
    Field::GpuMemory,
    Field::Overhead,
    Field::Precision,
    Field::Optimizer,
    Field::GlobalBatch,
];

/// A configuration in words: each field the form would show, as the form
/// shows it, after the exact parameter count (`13,015,864,320 parameters
/// (Llama 2 13B) · Sequence length 2048 tokens · …`): a read-only figure's
/// caption, and the first line of an export.
pub fn caption(t: &Text, config: &Config) -> String {
    use vram_core::input::field::Section;
    use vram_core::input::form::{is_enabled, text_of};
    let text = |field: Field| text_of(config, field);
    let default = Config::default();
    let params = config.params().map_or(0.0, |p| p.get());
    let size = format!(
        "{} {}{}",
        format_number(params),
        t.parameters,
        model_note(t, config)
    );
    let changed = |field: &Field| text_of(&default, *field) != text(*field);
    let if_changed = Section::FineTuning
        .fields()
        .into_iter()
        .chain([Field::GradAcc, Field::Dropout, Field::Context, Field::Nodes])
        .chain(Section::Framework.fields());
    let fields = CAPTION
        .into_iter()
        .chain(if_changed.filter(changed))
        .filter(|&field| is_enabled(field, text) && !text(field).is_empty())
        // The GPU's memory is in its name.
        .filter(|&field| !(field == Field::GpuMemory && config.gpu.is_some()))
        .map(|field| text::field_words(t, field, &text(field)));
    core::iter::once(size)
        .chain(fields)
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The results as a Markdown table ([`vram_core::report::export::markdown`])
/// in the page's words, with the notes under it, a paragraph each.
pub fn markdown(t: &Text, report: &Report) -> String {
    let notes = notes(t, report);
    let table = vram_core::report::export::markdown(report, &table_words(t));
    match notes.is_empty() {
        true => table,
        false => format!("{table}\n{}\n", notes.replace('\n', "\n\n")),
    }
}

/// [`markdown`] with its context, for an export that leaves the page: what
/// it is of ([`caption`]: the model, the step, the GPUs, the recipe), the
/// usable memory, then the table and notes, then the link that opens it
/// (`url`) and the units.
pub fn markdown_with_context(t: &Text, config: &Config, report: &Report, url: &str) -> String {
    let usable = text::fill(
        t.export_usable,
        &[&format_bytes(report.budget.usable(), report.unit)],
    );
    format!(
        "**{}**{}{usable}\n\n{}\n\n{}\n",
        caption(t, config),
        t.sentence_end,
        markdown(t, report).trim_end(),
        text::fill(
            t.export_link,
            &[
                url,
                t.export_units[usize::from(report.unit == vram_core::format::MemoryUnit::Gib)]
            ]
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{EN, ZH};
    use vram_core::input::link;

    /// Issue 47, item 7: an export carries what it is of (the model, the
    /// step, the GPUs, the recipe), the usable memory, and the link that
    /// opens it with the units, in the page's language.
    #[test]
    fn markdown_carries_its_configuration_and_link() {
        let config = link::decode("model=llama2-13b&gpu=a100-80gb&seq=4096&stage=2").config;
        let report = config.report().unwrap();
        let url = "https://example.org/vram/?v=1";
        let english = markdown_with_context(&EN, &config, &report, url);
        let paragraphs: Vec<&str> = english.trim_end().split("\n\n").collect();
        assert_eq!(
            paragraphs[0],
            "**13,015,864,320 parameters (Llama 2 13B) · Sequence length 4096 tokens · \
             Micro-batch per GPU 1 seqs · Activation recomputation none (store everything) · \
             FlashAttention yes · Number of GPUs 8 GPUs · GPU A100 80GB · Reserved overhead 20 % · \
             Precision FP16 (mixed) · Optimizer Adam / AdamW**. Usable per GPU: 68.72 GB."
        );
        assert!(paragraphs[1].starts_with("| Strategy |"));
        assert_eq!(
            *paragraphs.last().unwrap(),
            "Open it in the calculator: <https://example.org/vram/?v=1>. GB = 10⁹ bytes."
        );
        let chinese = markdown_with_context(&ZH, &config, &report, url);
        assert!(
            chinese.starts_with("**13,015,864,320 个参数（Llama 2 13B）"),
            "{chinese}"
        );
        assert!(
            chinese.contains("**。每张 GPU 可用：68.72 GB。"),
            "{chinese}"
        );
        assert!(chinese.trim_end().ends_with("GB = 10⁹ 字节。"), "{chinese}");
    }

    /// Under a layout the most loaded rank's activations are written out with
    /// the report's own numbers, in both languages, and the terms add up to
    /// the activations the table shows (to the rounding of three digits).
    #[test]
    fn a_layouts_activations_add_up_in_both_languages() {
        let config =
            link::decode("model=llama2-70b&gpu=h100-80gb&gpus=8&seq=4096&recompute=full&tp=4&pp=2")
                .config;
        let report = config.report().expect("a report");
        let d = report.layout_derivation().expect("a layout");
        let rebuilt = match d.rebuilt {
            Some(vram_core::report::Rebuilt::AtOnce { layers }) => f64::from(layers),
            other => panic!("full recomputation rebuilds at once: {other:?}"),
        };
        let sum = d.in_flight * f64::from(d.layers) * d.each.get()
            + rebuilt * d.per_layer.get()
            + d.outside.get();
        assert!(
            (sum / d.total.get() - 1.0).abs() < 1e-9,
            "{sum} vs {:?}",
            d.total
        );
        assert_eq!(d.total, report.highlighted().memory.activations);
        let english = layout_activations(&EN, &report).unwrap();
        assert_eq!(
            english,
            "Activations on pipeline rank 1 of 2 (Korthikanti et al. 2022, Table 2, TP 4 dividing \
             the tensor-parallel region): 2 microbatches in flight × 40 layers × 0.0671 GB (each \
             checkpoint's input) + 1 × 0.482 GB (rebuilt at once) + 0 GB outside the layers = 5.85 GB."
        );
        let chinese = layout_activations(&ZH, &report).unwrap();
        assert!(chinese.starts_with("第 1/2 级流水线的激活值"), "{chinese}");
        assert!(chinese.ends_with("= 5.85 GB。"), "{chinese}");
        // The page's layout note carries it on a line of its own.
        assert!(notes(&EN, &report).contains(&format!("\n{english}")));
    }
}
