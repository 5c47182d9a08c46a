//! The strategy table and the one-line verdict above it.

use leptos::prelude::*;
use vram_core::decimal::shortest_decimal;
use vram_core::format::{format_bytes, format_params, format_percent, MemoryUnit};
use vram_core::report::table::{Cell, Column, TableWords, Verdict};
use vram_core::{Bytes, Report, Strategy};

use vram_view::notes::{notes, table_words};
use vram_view::text;

/// A cell of the report's table ([`Column::cell`]): its text as every export
/// writes it, with the unrounded figure in `data-value` (GB for memory,
/// billions for parameters, empty where there is none).
fn table_cell(
    report: Memo<Report>,
    strategy: Strategy,
    testid: &'static str,
    label: &'static str,
    column: Column,
    words: &'static TableWords<'static>,
) -> impl IntoView {
    let cell = move || column.cell(report.read().strategy(strategy));
    let value = move || match cell() {
        Cell::Bytes(bytes) => shortest_decimal(bytes.gb()),
        Cell::Params(params) => shortest_decimal(params.billions()),
        Cell::Gpus(Some(gpus)) => gpus.to_string(),
        Cell::Seconds(Some(seconds)) => shortest_decimal(seconds),
        _ => String::new(),
    };
    view! {
        <td class="num" data-label=label data-testid=format!("{testid}-{}", strategy.id()) data-value=value>
            {move || {
                let report = report.read();
                cell().text_like(report.unit, words, Some(column.largest(&report)))
            }}
        </td>
    }
}

/// One row per strategy: weights, gradients, optimizer states, total, fits, largest model.
#[component]
pub fn ResultsTable(report: Memo<Report>, highlight: RwSignal<String>) -> impl IntoView {
    let t = crate::words();
    let usable = move || {
        let report = report.read();
        format_bytes(report.budget.usable(), report.unit)
    };
    // Built once, shared by every cell's closure.
    let words: &'static TableWords<'static> = Box::leak(Box::new(table_words(t)));
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            let row = move || *report.read().strategy(strategy);
            let fits = move || row().fits;
            let chosen = move || *highlight.read() == strategy.key();
            view! {
                <tr
                    class:highlighted=chosen
                    class:fits=fits
                    aria-current=move || chosen().then_some("true")
                >
                    <th scope="row">
                        <button
                            type="button"
                            class="strategy"
                            aria-pressed=move || chosen().to_string()
                            on:click=move |_| highlight.set(strategy.key().to_string())
                        >
                            {strategy.label()}
                        </button>
                    </th>
                    {table_cell(report, strategy, "mem-weights", t.col_weights, Column::Weights, words)}
                    {table_cell(report, strategy, "mem-grads", t.col_grads, Column::Gradients, words)}
                    {table_cell(report, strategy, "mem-optim", t.col_optim, Column::OptimizerStates, words)}
                    {table_cell(report, strategy, "mem-act", t.col_act, Column::Activations, words)}
                    {table_cell(report, strategy, "mem-buf", t.col_buffers, Column::Buffers, words)}
                    <td class="num" data-label=t.col_total data-testid=format!("mem-total-{}", strategy.id()) data-value=move || shortest_decimal(row().memory.total.gb())>
                        {move || format_bytes(row().memory.total, report.read().unit)}
                        // The step's peak, where it rises above what is kept.
                        <span class="sub" data-testid=format!("peak-{}", strategy.id())
                            data-value=move || shortest_decimal(row().step.peak().1.gb())
                            hidden=move || row().step.peak().1.get() <= row().memory.total.get()>
                            {move || {
                                let (kept, peak) = (row().memory.total, row().step.peak().1);
                                (peak.get() > kept.get())
                                    .then(|| text::fill(t.peak_sub, &[&format_bytes(peak, report.read().unit)]))
                            }}
                        </span>
                    </td>
                    <td class="verdict" data-label=t.col_fits data-testid=format!("fits-{}", strategy.id()) data-value=move || fits().to_string()>
                        {move || match Column::Fits.cell(&row()) {
                            Cell::Verdict(Verdict::Fits) => t.fits_yes,
                            Cell::Verdict(Verdict::DoesNotFit) => t.fits_no,
                            _ => t.not_run,
                        }}
                        <span class="sub" data-testid=format!("headroom-{}", strategy.id())
                            data-value=move || shortest_decimal(row().headroom.gb())
                            hidden=move || !row().supported>
                            {move || {
                                let headroom = row().headroom;
                                let amount = format_bytes(Bytes::new(headroom.get().abs()), report.read().unit);
                                text::fill(if headroom.get() >= 0.0 { t.free } else { t.over }, &[&amount])
                            }}
                        </span>
                    </td>
                    {table_cell(report, strategy, "fewest-gpus", t.col_fewest, Column::FewestGpus, words)}
                    {table_cell(report, strategy, "max-params", t.col_max, Column::LargestModel, words)}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="results" data-testid="results" class:with-activations=move || report.read().activations.is_some()
                class:with-buffers=move || report.read().strategies.iter().any(|r| r.memory.buffers.get() > 0.0)>
                <caption class="visually-hidden">{t.results_heading}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t.col_strategy}</th>
                        <th scope="col" class="num">{t.col_weights}</th>
                        <th scope="col" class="num">{t.col_grads}</th>
                        <th scope="col" class="num">{t.col_optim}</th>
                        <th scope="col" class="num act">{t.col_act}</th>
                        <th scope="col" class="num buf">{t.col_buffers}</th>
                        <th scope="col" class="num">{t.col_total}</th>
                        <th scope="col">{t.col_fits} " " <span class="sub">{move || format!("≤ {}", usable())}</span></th>
                        <th scope="col" class="num">{t.col_fewest}</th>
                        <th scope="col" class="num">{t.col_max}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The verdict in words: usable memory, the highlighted strategy, and the least
/// sharding that fits.
#[component]
pub fn Summary(
    report: Memo<Report>,
    /// The highlighted strategy's key (the `stage` field), which the
    /// button beside the least sharding that fits sets.
    highlight: RwSignal<String>,
    found: RwSignal<String>,
    /// Whether the page has the "What would make it fit?" fold to point at.
    fixes: bool,
) -> impl IntoView {
    let t = crate::words();
    // When no strategy fits on its own, what the ranked plans found (asked of
    // the lazily loaded module by the plans' fold, `crate::plans::Plans`).
    let plans_words = move || Some(found.get()).filter(|words| !words.is_empty());
    // Worked out once an update, read by its five parts.
    let line = Memo::new(move |_| {
        let report = report.read();
        let unit = report.unit;
        let budget = report.budget;
        let setup = report.setup;
        let chosen = report.highlighted();
        let usable = text::fill(
            match budget.context().get() > 0.0 {
                true => t.summary_usable_context,
                false => t.summary_usable,
            },
            &[
                &format_bytes(budget.usable(), unit),
                &format_bytes(budget.gpu_memory(), unit),
                &format_percent(budget.reserved_fraction()),
                &format_bytes(budget.context(), unit),
            ],
        );
        let gpus = report.gpus().to_string();
        let model = text::fill(
            t.summary_model,
            &[
                &format_params(setup.params()),
                &gpus,
                if report.gpus() == 1 { "" } else { t.plural_s },
            ],
        );
        let fits = if chosen.fits {
            t.it_fits
        } else {
            t.it_does_not_fit
        };
        // What is kept, or the step's peak where it rises above it.
        let (phase, peak) = chosen.step.peak();
        let kept = format_bytes(chosen.memory.total, unit);
        let verdict = if report.activations.is_some() && peak.get() > chosen.memory.total.get() {
            text::fill(
                t.summary_needs_peak,
                &[
                    chosen.strategy.label(),
                    &format_bytes(peak, unit),
                    vram_view::chart::phase_name(t, phase),
                    &kept,
                    fits,
                ],
            )
        } else {
            text::fill(t.summary_needs, &[chosen.strategy.label(), &kept, fits])
        };
        let advice = match report.least_sharding_that_fits() {
            Some(best) if best == chosen.strategy => String::new(),
            Some(best) => text::fill(
                t.least_sharding,
                &[
                    best.label(),
                    &format_bytes(report.strategy(best).memory.total, unit),
                ],
            ),
            None => match (plans_words(), report.strategy(Strategy::Zero3).fewest_gpus) {
                (Some(words), _) => words,
                (None, Some(gpus)) => text::fill(t.zero3_fits_on, &[&gpus.to_string()]),
                (None, None) => t.nothing_fits.into(),
            },
        };
        // The least sharding that fits, when the highlighted one does not.
        let fitting = report
            .least_sharding_that_fits()
            .filter(|best| *best != chosen.strategy && !chosen.fits);
        (model, usable, verdict, advice, chosen.fits, fitting)
    });
    let fitting = move || line.read().5;
    view! {
        <p class="summary" data-testid="summary" class:fits=move || line.read().4>
            <strong>{move || line.read().0.clone()}</strong> {move || format!("{}{}{}", t.sentence_end, line.read().1, t.word_space)}
            // On a phone the verdict is pinned to the top of the screen (the
            // results come after the form there), a link to them.
            // Where it does not fit, the bar says what does.
            <a class="verdict-bar" href="#results-heading" data-testid="verdict-bar">{move || {
                let line = line.read();
                match line.4 {
                    true => line.2.clone(),
                    false => format!("{}{}", line.2, line.3),
                }
            }}</a>
            // The advice after the bar where it fits (it is in the bar where not).
            {move || {
                let line = line.read();
                match line.4 {
                    true => line.3.clone(),
                    false => String::new(),
                }
            }}
            " "
            // One click highlights the least sharding that fits.
            <button
                type="button"
                class="button quiet"
                data-testid="summary-show-fitting"
                hidden=move || fitting().is_none()
                on:click=move |_| {
                    if let Some(best) = fitting() {
                        highlight.set(best.key().to_string());
                    }
                }
            >
                {move || fitting().map(|best| text::fill(t.show_strategy, &[best.label()]))}
            </button>
            " "
            // A link into the closed fold opens it (the browser expands a
            // details element that a fragment points into).
            <a class="button quiet" href="#plans" data-testid="summary-plans" hidden=move || plans_words().is_none()>{t.plans_see}</a>
            // While the highlighted strategy does not fit, what would make it.
            {fixes.then(|| view! {
                " "
                <a class="button quiet" href="#fixes" data-testid="summary-fixes" hidden=move || line.read().4>{t.fixes_see}</a>
            })}
        </p>
    }
}

/// What Megatron-LM would print, beside the page's DDP and ZeRO-1 figures:
/// asked of the lazily loaded module under `acct=megatron`.
#[component]
pub fn MegatronLine(config: Memo<vram_core::Config>) -> impl IntoView {
    let t = crate::words();
    let megatron = RwSignal::new(String::new());
    Effect::new(move |_| {
        let shown = config.get();
        megatron.set(String::new());
        if shown.runtime.accounting != vram_core::Accounting::Megatron {
            return;
        }
        // The answer is dropped if the configuration changed, or the page
        // part that asked is gone (its values disposed).
        let zh = t.html_lang.starts_with("zh");
        crate::lazy::with_lazy(Box::new(move |lazy| {
            if let (Some(lazy), true) = (
                lazy,
                config.try_get_untracked().is_some_and(|now| now == shown),
            ) {
                let query = vram_core::input::link::encode(&shown);
                megatron.set(crate::lazy::megatron_with(lazy, &query, zh));
            }
        }));
    });
    view! {
        <p class="activations" data-testid="megatron" hidden=move || megatron.read().is_empty()>{megatron}</p>
    }
}

/// The notes under the table ([`notes`]), with the activation figures as data.
#[component]
pub fn ActivationsLine(report: Memo<Report>) -> impl IntoView {
    let t = crate::words();
    let activations = move || report.read().activations;
    // Worked out once an update, read by the paragraph and its `hidden`.
    let line = Memo::new(move |_| notes(t, &report.read()));
    view! {
        <p class="activations" data-testid="activations" hidden=move || line.read().is_empty()>
            <span hidden data-testid="act-per-layer" data-value=move || activations().map_or(String::new(), |a| shortest_decimal(a.per_layer.gb()))></span>
            <span hidden data-testid="act-total" data-value=move || activations().map_or(String::new(), |a| shortest_decimal(a.total.gb()))></span>

            <span hidden data-testid="trainable-params" data-value=move || report.read().setup.adapters().map_or(String::new(), |a| a.trainable.to_string())></span>
            <span hidden data-testid="frozen-bytes" data-value=move || report.read().setup.adapters().map_or(String::new(), |a| a.frozen_bytes.to_string())></span>
            {line}
        </p>
    }
}

/// Where each strategy's bytes live (GPU, each node's CPU memory and NVMe) and
/// what it sends per step: the trade of memory for communication.
#[component]
pub fn PlacementTable(report: Memo<Report>) -> impl IntoView {
    let t = crate::words();
    // Built once, shared by every cell's closure.
    let words: &'static TableWords<'static> = Box::leak(Box::new(table_words(t)));
    // Each column after the strategy's: its cells' test id, its heading, and
    // the report's column.
    let columns = [
        ("mem-gpu", t.col_gpu, Column::Total),
        ("mem-cpu", t.col_cpu, Column::CpuPerNode),
        ("mem-nvme", t.col_nvme, Column::NvmePerNode),
        ("comm", t.col_comm, Column::Communication),
        ("comm-time", t.col_comm_time, Column::CommunicationSeconds),
    ];
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            view! {
                <tr>
                    <th scope="row">{strategy.label()}</th>
                    {columns.map(|(testid, label, column)| table_cell(report, strategy, testid, label, column, words))}
                </tr>
            }
        })
        .collect_view();
    let note = move || {
        let report = report.read();
        let note = match report.strategy(Strategy::Zero3).beyond.deepspeed {
            Some(estimate) => text::fill(
                t.placement_deepspeed,
                &[
                    &format_bytes(estimate.gpu, MemoryUnit::Gib),
                    &format_bytes(estimate.cpu_per_node, MemoryUnit::Gib),
                ],
            ),
            None => t.placement_course.to_string(),
        };
        note
    };
    view! {
        <h2>{t.placement_heading}</h2>
        <div class="table-scroll">
            <table class="results placement" data-testid="placement">
                <caption class="visually-hidden">{t.placement_heading}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t.col_strategy}</th>
                        {columns.map(|(_, label, _)| view! { <th scope="col" class="num">{label}</th> })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="hint" data-testid="placement-note">{note}</p>
    }
}
