//! The strategy table and the one-line verdict above it.

use leptos::prelude::*;
use vram_core::format::{format_bytes, format_params, format_percent, MemoryUnit};
use vram_core::{Bytes, Report, Strategy, StrategyReport};

use crate::text;

const UNIT: MemoryUnit = MemoryUnit::Gb;

/// A cell showing a memory figure, with its unrounded value in GB in `data-value`.
fn memory_cell(
    report: Memo<Report>,
    strategy: Strategy,
    testid: &'static str,
    pick: fn(&StrategyReport) -> Bytes,
) -> impl IntoView {
    let bytes = move || pick(report.read().strategy(strategy));
    view! {
        <td class="num" data-testid=format!("{testid}-{}", strategy.id()) data-value=move || bytes().gb().to_string()>
            {move || format_bytes(bytes(), UNIT)}
        </td>
    }
}

/// One row per strategy: weights, gradients, optimizer states, total, fits, largest model.
#[component]
pub fn ResultsTable(report: Memo<Report>, highlight: RwSignal<Strategy>) -> impl IntoView {
    let usable = move || format_bytes(report.read().budget.usable(), UNIT);
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            let row = move || *report.read().strategy(strategy);
            let fits = move || row().fits;
            view! {
                <tr
                    class:highlighted=move || highlight.get() == strategy
                    class:fits=fits
                    aria-current=move || (highlight.get() == strategy).then_some("true")
                >
                    <th scope="row">
                        <button
                            type="button"
                            class="strategy"
                            aria-pressed=move || (highlight.get() == strategy).to_string()
                            on:click=move |_| highlight.set(strategy)
                        >
                            {strategy.label()}
                        </button>
                    </th>
                    {memory_cell(report, strategy, "mem-weights", |r| r.memory.weights)}
                    {memory_cell(report, strategy, "mem-grads", |r| r.memory.gradients)}
                    {memory_cell(report, strategy, "mem-optim", |r| r.memory.optimizer_states)}
                    {memory_cell(report, strategy, "mem-total", |r| r.memory.total)}
                    <td class="verdict" data-testid=format!("fits-{}", strategy.id()) data-value=move || fits().to_string()>
                        {move || if fits() { text::FITS_YES } else { text::FITS_NO }}
                    </td>
                    <td class="num" data-testid=format!("max-params-{}", strategy.id())
                        data-value=move || row().max_params.billions().to_string()>
                        {move || format_params(row().max_params)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="results" data-testid="results">
                <caption class="visually-hidden">{text::RESULTS_HEADING}</caption>
                <thead>
                    <tr>
                        <th scope="col">{text::COL_STRATEGY}</th>
                        <th scope="col" class="num">{text::COL_WEIGHTS}</th>
                        <th scope="col" class="num">{text::COL_GRADS}</th>
                        <th scope="col" class="num">{text::COL_OPTIM}</th>
                        <th scope="col" class="num">{text::COL_TOTAL}</th>
                        <th scope="col">{text::COL_FITS} " " <span class="sub">{move || format!("≤ {}", usable())}</span></th>
                        <th scope="col" class="num">{text::COL_MAX}</th>
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
pub fn Summary(report: Memo<Report>) -> impl IntoView {
    let line = move || {
        let report = report.read();
        let budget = report.budget;
        let setup = report.setup;
        let chosen = report.highlighted();
        let usable = format!(
            "{} usable per GPU ({} − {} reserved).",
            format_bytes(budget.usable(), UNIT),
            format_bytes(budget.gpu_memory(), UNIT),
            format_percent(budget.reserved_fraction())
        );
        let model = format!(
            "{} parameters on {} GPU{}",
            format_params(setup.params()),
            setup.gpus(),
            if setup.gpus() == 1 { "" } else { "s" }
        );
        let verdict = format!(
            "{} needs {} per GPU: {}.",
            chosen.strategy.label(),
            format_bytes(chosen.memory.total, UNIT),
            if chosen.fits {
                "it fits"
            } else {
                "it does not fit"
            }
        );
        let advice = match report.least_sharding_that_fits() {
            Some(best) if best == chosen.strategy => String::new(),
            Some(best) => format!(
                " The least sharding that fits is {} ({}).",
                best.label(),
                format_bytes(report.strategy(best).memory.total, UNIT)
            ),
            None => " No strategy fits: add GPUs, or choose a smaller model.".into(),
        };
        (model, usable, verdict + &advice, chosen.fits)
    };
    view! {
        <p class="summary" data-testid="summary" class:fits=move || line().3>
            <strong>{move || line().0}</strong> ". " {move || line().1} " " {move || line().2}
        </p>
    }
}
