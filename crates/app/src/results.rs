//! The strategy table and the one-line verdict above it.

use leptos::prelude::*;
use vram_core::decimal::shortest_decimal;
use vram_core::format::format_bytes;
use vram_core::report::table::{Column, TableWords};
use vram_core::{Report, Strategy};

use vram_view::notes::{notes, table_words};
use vram_view::written::{
    cell_text, cell_value, fits_word, headroom_note, peak_note, placement_note, SummaryLine,
    LAST_COLUMNS, MEMORY_COLUMNS, PLACEMENT_COLUMNS,
};

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
    view! {
        <td class="num" data-label=label data-testid=format!("{testid}-{}", strategy.id())
            data-value=move || cell_value(column.cell(report.read().strategy(strategy)))>
            {move || cell_text(&report.read(), strategy, column, words)}
        </td>
    }
}

/// A row's cells of `columns` (each a test id and the report's column, as
/// the written view's patches name them: `vram_view::written`), under `labels`.
fn table_cells<const N: usize>(
    report: Memo<Report>,
    strategy: Strategy,
    columns: [(&'static str, Column); N],
    words: &'static TableWords<'static>,
    labels: [&'static str; N],
) -> [impl IntoView; N] {
    std::array::from_fn(|i| {
        let (testid, column) = columns[i];
        table_cell(report, strategy, testid, labels[i], column, words)
    })
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
                    data-testid=format!("row-{}", strategy.id())
                    class:highlighted=chosen
                    class:fits=fits
                    aria-current=move || chosen().then_some("true")
                >
                    <th scope="row">
                        <button
                            type="button"
                            class="strategy"
                            data-testid=format!("strategy-{}", strategy.id())
                            aria-pressed=move || chosen().to_string()
                            on:click=move |_| highlight.set(strategy.key().to_string())
                        >
                            {strategy.label()}
                        </button>
                    </th>
                    {table_cells(report, strategy, MEMORY_COLUMNS, words, [t.col_weights, t.col_grads, t.col_optim, t.col_act, t.col_buffers])}
                    <td class="num" data-label=t.col_total data-testid=format!("mem-total-{}", strategy.id()) data-value=move || shortest_decimal(row().memory.total.gb())>
                        {move || format_bytes(row().memory.total, report.read().unit)}
                        // The step's peak, where it rises above what is kept.
                        <span class="sub" data-testid=format!("peak-{}", strategy.id())
                            data-value=move || shortest_decimal(row().step.peak().1.gb())
                            hidden=move || row().step.peak().1.get() <= row().memory.total.get()>
                            {move || peak_note(t, &row(), report.read().unit)}
                        </span>
                    </td>
                    <td class="verdict" data-label=t.col_fits data-testid=format!("fits-{}", strategy.id()) data-value=move || fits().to_string()>
                        {move || fits_word(t, &row())}
                        <span class="sub" data-testid=format!("headroom-{}", strategy.id())
                            data-value=move || shortest_decimal(row().headroom.gb())
                            hidden=move || !row().supported>
                            {move || headroom_note(t, &row(), report.read().unit)}
                        </span>
                    </td>
                    {table_cells(report, strategy, LAST_COLUMNS, words, [t.col_fewest, t.col_max])}
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
                        <th scope="col">{t.col_fits} " " <span class="sub" data-testid="usable">{move || format!("≤ {}", usable())}</span></th>
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
    // Worked out once an update, read by its parts.
    let line = Memo::new(move |_| SummaryLine::of(t, &report.read(), plans_words().as_deref()));
    let fitting = move || line.read().fitting;
    view! {
        <p class="summary" data-testid="summary" class:fits=move || line.read().fits>
            <strong data-testid="summary-model">{move || line.read().model.clone()}</strong>
            <span data-testid="summary-usable">{move || line.read().usable.clone()}</span>
            // On a phone the verdict is pinned to the top of the screen (the
            // results come after the form there), a link to them.
            // Where it does not fit, the bar says what does.
            <a class="verdict-bar" href="#results-heading" data-testid="verdict-bar">{move || line.read().bar.clone()}</a>
            // The advice after the bar where it fits (it is in the bar where not).
            <span data-testid="summary-after-bar">{move || line.read().after_bar.clone()}</span>
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
                {move || line.read().show_fitting(t)}
            </button>
            " "
            // A link into the closed fold opens it (the browser expands a
            // details element that a fragment points into).
            <a class="button quiet" href="#plans" data-testid="summary-plans" hidden=move || plans_words().is_none()>{t.plans_see}</a>
            // While the highlighted strategy does not fit, what would make it.
            {fixes.then(|| view! {
                " "
                <a class="button quiet" href="#fixes" data-testid="summary-fixes" hidden=move || line.read().fits>{t.fixes_see}</a>
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
    let labels = [
        t.col_gpu,
        t.col_cpu,
        t.col_nvme,
        t.col_comm,
        t.col_comm_time,
    ];
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            view! {
                <tr>
                    <th scope="row">{strategy.label()}</th>
                    {table_cells(report, strategy, PLACEMENT_COLUMNS, words, labels)}
                </tr>
            }
        })
        .collect_view();
    let note = move || placement_note(t, &report.read());
    view! {
        <h2>{t.placement_heading}</h2>
        <div class="table-scroll">
            <table class="results placement" data-testid="placement">
                <caption class="visually-hidden">{t.placement_heading}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t.col_strategy}</th>
                        {labels.map(|label| view! { <th scope="col" class="num">{label}</th> })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="hint" data-testid="placement-note">{note}</p>
    }
}
