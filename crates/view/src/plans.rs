//! The ranked plans as the lazily loaded module shows them: the ten first as
//! a table, every plan on a chart ([`render`]), in the page's words.

use vram_core::format::{format_bytes, format_number, format_seconds, Lang};
use vram_core::input::link;
use vram_core::time::plans::Plan;
use vram_core::Config;

use crate::text::{self, Text};

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

/// One plan as a table row, its cells labelled for the phone layout, its
/// button carrying the link of the configuration it applies.
fn plan_row(t: &Text, i: usize, plan: &Plan, config: &Config) -> String {
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
    let cells = [
        (t.col_layout, layout_words(plan.layout, plan.ep, plan.dp)),
        (t.col_strategy, plan.strategy.label().into()),
        (t.col_recompute, recompute.into()),
        (t.col_offload, offload.into()),
        (
            t.col_micro,
            format!("{} × {}", plan.micro_batch, plan.microbatches),
        ),
        (t.col_total, format_bytes(plan.peak, config.unit)),
        (t.col_step, step),
        (t.col_tokens, tokens),
    ];
    let cells: String = cells
        .iter()
        .map(|(label, value)| format!("<td data-label=\"{label}\">{value}</td>"))
        .collect();
    format!(
        "<tr class=\"{}\" data-testid=\"plan-{i}\">{cells}<td><button type=\"button\" class=\"quiet\" data-testid=\"plan-use-{i}\" data-query=\"{}\">{}</button></td></tr>",
        if plan.fits { "fits" } else { "" },
        link::encode(&plan.apply(config)),
        t.plans_apply
    )
}

/// The plans of `config` in `t`'s words: how many fit, and the ten first as
/// a table (every word and figure the page's own; a link's query escapes
/// nothing HTML reads).
fn table(t: &Text, config: &Config, plans: &[Plan]) -> String {
    let fitting = plans.iter().filter(|p| p.fits).count();
    let mut count = text::fill(
        t.plans_count,
        &[&fitting.to_string(), &plans.len().to_string()],
    );
    if fitting == 0 && !plans.is_empty() {
        count = format!("{count} {}", t.plans_none);
    }
    let heads: String = [
        t.col_layout,
        t.col_strategy,
        t.col_recompute,
        t.col_offload,
        t.col_micro,
        t.col_total,
        t.col_step,
        t.col_tokens,
        "",
    ]
    .iter()
    .map(|h| format!("<th scope=\"col\">{h}</th>"))
    .collect();
    let rows: String = plans
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, plan)| plan_row(t, i, plan, config))
        .collect();
    format!(
        "<p data-testid=\"plans-count\">{count}</p><div class=\"table-scroll\"><table class=\"results plans-table\"><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
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
    let t = text::of(if zh { Lang::Zh } else { Lang::En });
    let plans = vram_core::time::plans::plans(&config);
    place.set_inner_html(&table(t, &config, &plans));
    let report = config.report().unwrap_or_default();
    crate::chart::draw_plans(canvas, &report, &plans, t);
    canvas
        .set_attribute(
            "aria-label",
            &text::fill(
                t.plans_count,
                &[
                    &plans.iter().filter(|p| p.fits).count().to_string(),
                    &plans.len().to_string(),
                ],
            ),
        )
        .ok();
}
