//! The ranked plans as the lazily loaded module shows them: the ten first as
//! a Leptos view ([`PlansTable`]), every plan on a chart ([`render`]), in the
//! page's words.

use vram_core::format::{format_bytes, format_number, format_seconds, Lang};
use vram_core::input::link;
use vram_core::time::plans::Plan;
use vram_core::Config;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::text::{self, LazyText, Text};

/// What sets a plan apart: its layout's sizes (SP, VPP, CP and EP only when used).
pub fn layout_words(l: vram_core::memory::parallel::Layout, ep: u32, dp: u32) -> String {
    let mut words = vec![format!("TP {}", l.tp)];
    if l.sp {
        words.push("SP".into());
    }
    words.push(match l.vpp {
        1 => format!("PP {}", l.pp),
        v => format!("PP {} × {v}", l.pp),
    });
    if l.cp > 1 {
        words.push(format!("CP {}", l.cp));
    }
    if ep > 1 {
        words.push(format!("EP {ep}"));
    }
    words.push(format!("DP {dp}"));
    words.join(" · ")
}

/// The words of one plan's cells: layout, strategy, recomputation, offload,
/// micro-batch × microbatches, memory per GPU, step time and tokens per second.
fn plan_cells(t: &Text, w: &LazyText, plan: &Plan, config: &Config) -> [(&'static str, String); 8] {
    let recompute = vram_core::memory::activations::Recompute::ALL
        .iter()
        .position(|&r| r == plan.recompute)
        .map_or("", |i| t.recompute[i]);
    let offload = vram_core::Offload::ALL
        .iter()
        .position(|&o| o == plan.offload)
        .map_or("", |i| t.offload[i]);
    let (step, tokens) = plan.time.map_or(("–".into(), "–".into()), |s| {
        (
            format_seconds(s.step_seconds),
            format_number(s.tokens_per_second_per_gpu.round()),
        )
    });
    [
        (w.col_layout, layout_words(plan.layout, plan.ep, plan.dp)),
        (t.col_strategy, plan.strategy.label().into()),
        (w.col_recompute, recompute.into()),
        (w.col_offload, offload.into()),
        (
            w.col_micro,
            format!("{} × {}", plan.micro_batch, plan.microbatches),
        ),
        (t.col_total, format_bytes(plan.peak, config.unit)),
        (w.col_step, step),
        (w.col_tokens, tokens),
    ]
}

/// What the ranked plans found when no strategy fits on its own, in `t`'s
/// words: how many layouts fit and the fastest (its layout, strategy,
/// recomputation and offload); `None` when none fits.
pub fn verdict(t: &Text, w: &LazyText, plans: &[Plan]) -> Option<String> {
    let first = plans.iter().find(|p| p.fits)?;
    let fitting = plans.iter().filter(|p| p.fits).count();
    let mut words = vec![
        layout_words(first.layout, first.ep, first.dp),
        first.strategy.label().to_string(),
    ];
    if let Some(i) = vram_core::memory::activations::Recompute::ALL
        .iter()
        .position(|&r| r == first.recompute)
        .filter(|&i| i > 0)
    {
        words.push(t.recompute[i].to_string());
    }
    if let Some(i) = vram_core::Offload::ALL
        .iter()
        .position(|&o| o == first.offload)
        .filter(|&i| i > 0)
    {
        words.push(text::fill(w.plans_offloaded, &[t.offload[i]]));
    }
    Some(text::fill(
        w.plans_found,
        &[
            &fitting.to_string(),
            &plans.len().to_string(),
            &words.join(" · "),
        ],
    ))
}

/// How many plans fit, in `t`'s words; or why there are none to rank.
fn plans_count(w: &LazyText, config: &Config, plans: &[Plan]) -> String {
    use vram_core::time::plans::{no_plans, NoPlans};
    if let Some(why) = no_plans(config) {
        return match why {
            NoPlans::NoModel => w.plans_no_model,
            NoPlans::Adapters => w.plans_adapters,
            NoPlans::Accounting => w.plans_accounting,
            NoPlans::Invalid => w.plans_invalid,
        }
        .to_string();
    }
    let fitting = plans.iter().filter(|p| p.fits).count();
    let count = text::fill(
        w.plans_count,
        &[&fitting.to_string(), &plans.len().to_string()],
    );
    match fitting == 0 && !plans.is_empty() {
        true => format!("{count} {}", w.plans_none),
        false => count,
    }
}

/// The plans of `config` in `t`'s words: how many fit, and the ten first as
/// a table, each row's cells labelled for the phone layout and its button
/// carrying the link of the configuration it applies (the page listens for
/// the click on the table's place).
#[component]
pub fn PlansTable(
    t: &'static Text,
    w: &'static LazyText,
    config: Config,
    plans: Vec<Plan>,
) -> impl IntoView {
    let heads = [
        w.col_layout,
        t.col_strategy,
        w.col_recompute,
        w.col_offload,
        w.col_micro,
        t.col_total,
        w.col_step,
        w.col_tokens,
        "",
    ];
    let rows = plans
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, plan)| {
            let cells = plan_cells(t, w, plan, &config)
                .into_iter()
                .map(|(label, value)| view! { <td data-label=label>{value}</td> })
                .collect_view();
            view! {
                <tr class:fits=plan.fits data-testid=format!("plan-{i}")>
                    {cells}
                    <td>
                        <button type="button" class="quiet" data-testid=format!("plan-use-{i}")
                            data-query=link::encode(&plan.apply(&config))>
                            {w.plans_apply}
                        </button>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p data-testid="plans-count">{plans_count(w, &config, &plans)}</p>
        <div class="table-scroll">
            <table class="results plans-table">
                <thead>
                    <tr>{heads.map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

thread_local! {
    /// The table mounted last, unmounted when the next one is drawn.
    static MOUNTED: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// Ranks the plans of the configuration whose link is `query` and shows
/// them: the table in `place`, the chart on `canvas`, in Chinese when `zh`.
/// Run by the lazily loaded module (`crates/lazy`).
pub fn render(
    query: &str,
    zh: bool,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    let config = link::decode(query).config;
    let lang = if zh { Lang::Zh } else { Lang::En };
    let (t, w) = (text::of(lang), text::lazy_of(lang));
    let plans = vram_core::time::plans::plans(&config);
    let report = config.report().unwrap_or_default();
    crate::chart::draw_plans(canvas, &report, &plans, t);
    canvas
        .set_attribute("aria-label", &plans_count(w, &config, &plans))
        .ok();
    // The previous table goes before the new one is mounted in its place.
    MOUNTED.with(|mounted| mounted.borrow_mut().take());
    if let Ok(place) = place.clone().dyn_into::<web_sys::HtmlElement>() {
        let handle = leptos::mount::mount_to(place, move || {
            PlansTable(PlansTableProps {
                t,
                w,
                config,
                plans,
            })
        });
        MOUNTED.with(|mounted| *mounted.borrow_mut() = Some(Box::new(handle)));
    }
}
