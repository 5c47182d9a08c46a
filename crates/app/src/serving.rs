//! The serving view (`job=serve`): the verdict, a bar of what the engine
//! takes of one GPU, and the tables of its memory, its KV cache and its
//! speed, every figure the core's ([`vram_core::serve::report`]) and every
//! word the view's ([`vram_view::serving`]).

use leptos::prelude::*;
use vram_core::format::{format_bytes, MemoryUnit};
use vram_core::serve::report::ServeReport;
use vram_core::Bytes;
use vram_view::serving::{self, Row};
use vram_view::text::Text;

/// A table of rows: label, figure, and where it comes from (the serving
/// and the RL views' tables).
pub(crate) fn rows_table(rows: Vec<Row>, testid: &'static str) -> impl IntoView {
    view! {
        <table class="results serve" data-testid=testid>
            <tbody>
                {rows.into_iter().map(|row| view! {
                    <tr data-testid=row.id>
                        <th scope="row">{row.label}</th>
                        <td class="num">{row.value}</td>
                        <td class="note">{row.note}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// The parts the engine takes of one GPU, as a bar of their shares of the
/// GPU's memory, with what is left free.
fn memory_bar(t: &'static Text, report: &ServeReport, unit: MemoryUnit) -> impl IntoView {
    let total = report.cuda_total_bytes.max(1) as f64;
    let kv = report.kv_budget_bytes.unwrap_or(0) as f64;
    let parts = [
        ("weights", t.serve_weights, report.weights_bytes),
        (
            "activations",
            t.serve_activations,
            report.activation_peak_bytes as f64,
        ),
        (
            "non-torch",
            t.serve_non_torch,
            report.non_torch_bytes as f64,
        ),
        ("graphs", t.serve_graphs, report.cuda_graph_bytes as f64),
        ("kv", t.serve_kv_budget, kv),
    ];
    let used: f64 = parts.iter().map(|p| p.2).sum();
    let free = (total - used).max(0.0);
    let segments = parts
        .into_iter()
        .chain([("free", t.serve_free, free)])
        .filter(|p| p.2 > 0.0)
        .map(|(class, label, bytes)| {
            let share = (bytes / total * 100.0).min(100.0);
            let title = format!("{label}: {}", format_bytes(Bytes::new(bytes), unit));
            view! {
                <span class=format!("segment part-{class}") style=format!("width: {share:.3}%")
                    title=title.clone() aria-label=title></span>
            }
        })
        .collect_view();
    view! {
        <div class="serve-bar" role="img" aria-label=t.serve_memory_heading data-testid="serve-bar">{segments}</div>
        <p class="serve-legend">
            {[("weights", t.serve_weights), ("activations", t.serve_activations), ("non-torch", t.serve_non_torch),
              ("graphs", t.serve_graphs), ("kv", t.serve_kv_budget), ("free", t.serve_free)]
                .map(|(class, label)| view! { <span class="key"><span class=format!("swatch part-{class}")></span>{label}</span> })}
        </p>
    }
}

/// Every figure of the deployment.
#[component]
pub fn ServeResults(
    report: Memo<Option<ServeReport>>,
    config: Memo<vram_core::Config>,
) -> impl IntoView {
    let t = crate::words();
    move || {
        report.with(|report| {
            let Some(report) = report else {
                return view! { <p class="summary" data-testid="serve-verdict">{t.stale}</p> }.into_any();
            };
            let unit = MemoryUnit::Gb;
            let verdict = config.with(|c| serving::verdict(t, c, report));
            let warnings = serving::warnings(t, report);
            let speed = serving::speed_rows(t, report);
            view! {
                // On a phone the verdict is pinned to the top of the screen, a
                // link to the results (as training's).
                <p class="summary" class:fits=report.fits role="status" data-testid="serve-verdict"
                    data-fits=report.fits.to_string()><a class="verdict-bar" href="#results-heading"
                    data-testid="serve-verdict-bar">{verdict}</a></p>
                {warnings.into_iter().map(|w| view! { <p class="notice warning" data-testid="serve-warning">{w}</p> }).collect_view()}
                <h3>{t.serve_memory_heading}</h3>
                {memory_bar(t, report, unit)}
                {rows_table(serving::memory_rows(t, report, unit), "serve-memory")}
                <h3>{t.serve_kv_heading}</h3>
                {rows_table(serving::kv_rows(t, report, unit), "serve-kv")}
                {(!speed.is_empty()).then(|| view! {
                    <h3>{t.serve_speed_heading}</h3>
                    {rows_table(speed, "serve-speed")}
                })}
            }
            .into_any()
        })
    }
}

/// The serving layouts ranked (a fold): while open, every layout of the
/// GPUs that runs the deployment, fastest per GPU first, each one click
/// from the form.
#[component]
pub fn ServePlans(config: Memo<vram_core::Config>, form: crate::form::Form) -> impl IntoView {
    let t = crate::words();
    use vram_core::input::link;
    let open = RwSignal::new(false);
    let ranked = Memo::new(move |_| {
        open.get()
            .then(|| {
                config.with(|c| {
                    (c.job == vram_core::config::job::Job::Serve).then(|| c.serve_plans())
                })
            })
            .flatten()
    });
    let copied = RwSignal::new(None::<String>);
    let copy_plan = crate::plans::copy_chosen(t, copied);
    let table = move || {
        let ranking = ranked.get()?;
        let rows = config.with(|c| serving::plan_rows(t, c, &ranking.plans));
        let here = config.with(link::encode);
        let found = match rows.is_empty() {
            true => t.serve_plans_none.to_string(),
            false => vram_view::text::fill(
                t.serve_plans_found,
                &[&ranking.tried.to_string(), &ranking.fits.to_string()],
            ),
        };
        // The cost column only where a price gives it figures (issue 63:
        // it stayed empty without one).
        let priced = rows.iter().any(|row| !row.cost.is_empty());
        Some(view! {
            <p class="hint" data-testid="serve-plans-found">{found}</p>
            <div class="table-scroll">
            <table class="results serve-plans" class:unpriced=!priced data-testid="serve-plans" on:change=copy_plan>
                <thead><tr>
                    <th>{t.serve_col_layout}</th><th class="num">{t.serve_col_replicas}</th>
                    <th>{t.serve_col_weights}</th><th>{t.serve_col_kv}</th>
                    <th class="num">{t.serve_col_concurrency}</th><th class="num">{t.serve_col_tpot}</th>
                    <th class="num">{t.serve_col_per_gpu}</th><th class="num">{t.serve_col_cost}</th><th></th>
                </tr></thead>
                <tbody>
                    {rows.into_iter().enumerate().map(|(i, row)| {
                        let query = row.query.clone();
                        // The user's own layout, marked (issue 63).
                        let used = row.query == here;
                        view! {
                            <tr data-testid=format!("serve-plan-{i}") class:current=used
                                aria-current=used.then_some("true")>
                                <td data-label=t.serve_col_layout>{row.layout}</td>
                                <td class="num" data-label=t.serve_col_replicas>{row.replicas}</td>
                                <td data-label=t.serve_col_weights>{row.weights}</td>
                                <td data-label=t.serve_col_kv>{row.kv_dtype}</td>
                                <td class="num" data-label=t.serve_col_concurrency>{row.concurrency}</td>
                                <td class="num" data-label=t.serve_col_tpot>{row.tpot}</td>
                                <td class="num" data-label=t.serve_col_per_gpu>{row.per_gpu}</td>
                                <td class="num" data-label=t.serve_col_cost>{row.cost}</td>
                                <td><button type="button" class="quiet" data-testid=format!("serve-plan-use-{i}")
                                    disabled=used
                                    on:click=move |_| form.load(&link::decode(&query).config)>{t.serve_use}</button>
                                    // The plan as its engine's launch line (issue 46).
                                    <select class="copy-plan" data-testid=format!("serve-plan-copy-{i}")
                                        data-query=row.query.clone() aria-label=t.copy_as>
                                        <option value="" selected>{format!("{}…", t.copy_as)}</option>
                                        {vram_launch::Target::of(&link::decode(&row.query).config)
                                            .map(|target| view! { <option value=target.key()>{target.label()}</option> })
                                            .collect_view()}
                                    </select></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
            <p class="copy-status" aria-live="polite" data-testid="serve-plans-copy-status">{move || copied.get()}</p>
        })
    };
    view! {
        <details class="fold" data-testid="serve-plans-details"
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                let details = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok());
                if let Some(details) = details {
                    open.set(details.open());
                }
            }>
            <summary>{t.serve_plans_heading}</summary>
            {table}
        </details>
    }
}
