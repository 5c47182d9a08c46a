//! The strategy table and the one-line verdict above it.

use leptos::prelude::*;
use vram_core::decimal::shortest_decimal;
use vram_core::format::{format_bytes, format_params, format_percent, format_seconds, MemoryUnit};
use vram_core::{Accounting, Bytes, Report, Strategy, StrategyReport};

use crate::text;

/// A cell showing a memory figure, with its unrounded value in GB in `data-value`.
fn memory_cell(
    report: Memo<Report>,
    strategy: Strategy,
    testid: &'static str,
    pick: fn(&StrategyReport) -> Bytes,
) -> impl IntoView {
    let bytes = move || pick(report.read().strategy(strategy));
    view! {
        <td class="num" data-testid=format!("{testid}-{}", strategy.id()) data-value=move || shortest_decimal(bytes().gb())>
            {move || format_bytes(bytes(), report.read().unit)}
        </td>
    }
}

/// One row per strategy: weights, gradients, optimizer states, total, fits, largest model.
#[component]
pub fn ResultsTable(report: Memo<Report>, highlight: RwSignal<usize>) -> impl IntoView {
    let usable = move || {
        let report = report.read();
        format_bytes(report.budget.usable(), report.unit)
    };
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            let row = move || *report.read().strategy(strategy);
            let fits = move || row().fits;
            view! {
                <tr
                    class:highlighted=move || highlight.get() == strategy as usize
                    class:fits=fits
                    aria-current=move || (highlight.get() == strategy as usize).then_some("true")
                >
                    <th scope="row">
                        <button
                            type="button"
                            class="strategy"
                            aria-pressed=move || (highlight.get() == strategy as usize).to_string()
                            on:click=move |_| highlight.set(strategy as usize)
                        >
                            {strategy.label()}
                        </button>
                    </th>
                    {memory_cell(report, strategy, "mem-weights", |r| r.memory.weights)}
                    {memory_cell(report, strategy, "mem-grads", |r| r.memory.gradients)}
                    {memory_cell(report, strategy, "mem-optim", |r| r.memory.optimizer_states)}
                    {memory_cell(report, strategy, "mem-act", |r| r.memory.activations)}
                    {memory_cell(report, strategy, "mem-buf", |r| r.memory.buffers)}
                    {memory_cell(report, strategy, "mem-total", |r| r.memory.total)}
                    <td class="verdict" data-testid=format!("fits-{}", strategy.id()) data-value=move || fits().to_string()>
                        {move || if fits() { text::FITS_YES } else { text::FITS_NO }}
                        <span class="sub" data-testid=format!("headroom-{}", strategy.id())
                            data-value=move || shortest_decimal(row().headroom.gb())>
                            {move || {
                                let headroom = row().headroom;
                                let amount = format_bytes(Bytes::new(headroom.get().abs()), report.read().unit);
                                format!("{amount} {}", if headroom.get() >= 0.0 { text::FREE } else { text::OVER })
                            }}
                        </span>
                    </td>
                    <td class="num" data-testid=format!("fewest-gpus-{}", strategy.id())
                        data-value=move || row().fewest_gpus.map_or(String::new(), |n| n.to_string())>
                        {move || row().fewest_gpus.map_or(text::NONE.to_string(), |n| n.to_string())}
                    </td>
                    <td class="num" data-testid=format!("max-params-{}", strategy.id())
                        data-value=move || shortest_decimal(row().max_params.billions())>
                        {move || format_params(row().max_params)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="results" data-testid="results" class:with-activations=move || report.read().activations.is_some()
                class:with-buffers=move || report.read().strategies.iter().any(|r| r.memory.buffers.get() > 0.0)>
                <caption class="visually-hidden">{text::RESULTS_HEADING}</caption>
                <thead>
                    <tr>
                        <th scope="col">{text::COL_STRATEGY}</th>
                        <th scope="col" class="num">{text::COL_WEIGHTS}</th>
                        <th scope="col" class="num">{text::COL_GRADS}</th>
                        <th scope="col" class="num">{text::COL_OPTIM}</th>
                        <th scope="col" class="num act">{text::COL_ACT}</th>
                        <th scope="col" class="num buf">{text::COL_BUFFERS}</th>
                        <th scope="col" class="num">{text::COL_TOTAL}</th>
                        <th scope="col">{text::COL_FITS} " " <span class="sub">{move || format!("≤ {}", usable())}</span></th>
                        <th scope="col" class="num">{text::COL_FEWEST}</th>
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
        let unit = report.unit;
        let budget = report.budget;
        let setup = report.setup;
        let chosen = report.highlighted();
        let usable = format!(
            "{} usable per GPU ({} − {} reserved).",
            format_bytes(budget.usable(), unit),
            format_bytes(budget.gpu_memory(), unit),
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
            format_bytes(chosen.memory.total, unit),
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
                format_bytes(report.strategy(best).memory.total, unit)
            ),
            None => match report.strategy(Strategy::Zero3).fewest_gpus {
                Some(gpus) => format!(
                    " No strategy fits; ZeRO-3 {} {gpus} GPUs, or offload, or a smaller model.",
                    text::FITS_WITH
                ),
                None => " No strategy fits on any number of GPUs: choose a smaller model or micro-batch.".into(),
            },
        };
        (model, usable, verdict + &advice, chosen.fits)
    };
    view! {
        <p class="summary" data-testid="summary" class:fits=move || line().3>
            <strong>{move || line().0}</strong> ". " {move || line().1} " " {move || line().2}
        </p>
    }
}

/// Activation memory, the largest micro-batch of the highlighted strategy and
/// the accumulation steps, when the architecture or the global batch is given.
#[component]
pub fn ActivationsLine(report: Memo<Report>) -> impl IntoView {
    let activations = move || report.read().activations;
    let line = move || {
        let report = report.read();
        let unit = report.unit;
        let chosen = report.highlighted();
        let mut parts = Vec::new();
        if let (Some(a), Some(model)) = (report.activations, report.model) {
            parts.push(format!(
                "{}: {} ({} {}, {} {}), {} × {} {}; {} {}: {}.",
                text::ACTIVATIONS_LINE,
                format_bytes(a.total, unit),
                format_bytes(a.per_layer, unit),
                text::PER_LAYER,
                format_bytes(a.embeddings_and_logits, unit),
                text::OUTSIDE_LAYERS,
                model.micro_batch,
                model.seq_len,
                text::UNIT_TOKENS,
                text::MAX_MICRO_BATCH,
                chosen.strategy.label(),
                chosen
                    .max_micro_batch
                    .map_or(text::NONE.to_string(), |b| b.to_string()),
            ));
        }
        match report.accumulation_steps {
            Some(Ok(steps)) => {
                parts.push(format!("{}: {steps} {}.", text::ACCUMULATION, text::STEPS))
            }
            Some(Err(error)) => parts.push(format!(
                "{}: {}",
                text::ACCUMULATION,
                text::field_error(&error)
            )),
            None => {}
        }
        parts.join(" ")
    };
    view! {
        <p class="activations" data-testid="activations" hidden=move || line().is_empty()>
            <span hidden data-testid="act-per-layer" data-value=move || activations().map_or(String::new(), |a| shortest_decimal(a.per_layer.gb()))></span>
            <span hidden data-testid="act-total" data-value=move || activations().map_or(String::new(), |a| shortest_decimal(a.total.gb()))></span>
            {line}
        </p>
    }
}

/// Where each strategy's bytes live (GPU, each node's CPU memory and NVMe) and
/// what it sends per step: the trade of memory for communication.
#[component]
pub fn PlacementTable(report: Memo<Report>) -> impl IntoView {
    let rows = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            let row = move || *report.read().strategy(strategy);
            let seconds = move || row().communication_seconds;
            view! {
                <tr>
                    <th scope="row">{strategy.label()}</th>
                    {memory_cell(report, strategy, "mem-gpu", |r| r.memory.total)}
                    {memory_cell(report, strategy, "mem-cpu", |r| r.cpu_per_node)}
                    {memory_cell(report, strategy, "mem-nvme", |r| r.nvme_per_node)}
                    {memory_cell(report, strategy, "comm", |r| r.communication)}
                    <td class="num" data-testid=format!("comm-time-{}", strategy.id())
                        data-value=move || seconds().map_or(String::new(), shortest_decimal)>
                        {move || seconds().map_or(text::NONE.to_string(), format_seconds)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    let note = move || {
        let report = report.read();
        let mut note = String::from(match report.accounting {
            Accounting::Course => text::PLACEMENT_COURSE,
            Accounting::DeepSpeed => text::PLACEMENT_DEEPSPEED,
        });
        if let Some(estimate) = report.strategy(Strategy::Zero3).deepspeed {
            note.push_str(&format!(
                " ZeRO-3: {} {}, {} {}.",
                format_bytes(estimate.gpu, MemoryUnit::Gib),
                text::PER_GPU,
                format_bytes(estimate.cpu_per_node, MemoryUnit::Gib),
                text::PER_NODE_CPU
            ));
        }
        note
    };
    view! {
        <h2>{text::PLACEMENT_HEADING}</h2>
        <div class="table-scroll">
            <table class="results placement" data-testid="placement">
                <caption class="visually-hidden">{text::PLACEMENT_HEADING}</caption>
                <thead>
                    <tr>
                        <th scope="col">{text::COL_STRATEGY}</th>
                        <th scope="col" class="num">{text::COL_GPU}</th>
                        <th scope="col" class="num">{text::COL_CPU}</th>
                        <th scope="col" class="num">{text::COL_NVME}</th>
                        <th scope="col" class="num">{text::COL_COMM}</th>
                        <th scope="col" class="num">{text::COL_COMM_TIME}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="hint" data-testid="placement-note">{note}</p>
    }
}
