//! The RL view (`job=rl`): the verdict, each phase's parts on one GPU as a
//! bar and a table, the step, and the run as verl's overrides; every figure
//! the core's ([`vram_core::rl`]), every word the view's ([`vram_view::rl`]).

use crate::serving::rows_table;
use leptos::prelude::*;
use vram_core::format::{format_bytes, MemoryUnit};
use vram_core::rl::{PhaseReport, RlReport};
use vram_core::{Bytes, Config};
use vram_view::rl;
use vram_view::text::Text;

/// Colours the style sheet gives a phase's parts (`part-rl-0` …): more than
/// a phase holds (nine at most), so none means two parts.
const PART_COLOURS: usize = 9;

/// A phase as a bar of its parts' shares of what a GPU may use, and a
/// legend naming each part's colour.
fn phase_bar(t: &'static Text, phase: &PhaseReport, unit: MemoryUnit) -> impl IntoView {
    let limit = phase.limit_bytes.max(phase.total_bytes).max(1.0);
    let segments = phase
        .parts
        .iter()
        .enumerate()
        .map(|(i, (part, bytes))| {
            let share = bytes / limit * 100.0;
            let title = format!(
                "{}: {}",
                rl::part_label(t, *part),
                format_bytes(Bytes::new(*bytes), unit)
            );
            view! {
                <span class=format!("segment part-rl-{}", i % PART_COLOURS) style=format!("width: {share:.3}%")
                    title=title.clone() aria-label=title></span>
            }
        })
        .collect_view();
    // Each part's colour named, in the bar's order.
    let legend = phase
        .parts
        .iter()
        .enumerate()
        .map(|(i, (part, _))| {
            view! {
                <span class="key"><span class=format!("swatch part-rl-{}", i % PART_COLOURS)></span>
                    {rl::part_label(t, *part)}</span>
            }
        })
        .collect_view();
    view! {
        <div class="serve-bar" role="img" aria-label=t.rl_total>{segments}</div>
        <div class="serve-legend" data-testid="rl-legend">{legend}</div>
    }
}

/// The step's phases in order, each a bar of what it holds against what
/// its GPU may use, the peak marked.
fn timeline_bars(t: &'static Text, report: &RlReport, unit: MemoryUnit) -> impl IntoView {
    let timeline = &report.timeline;
    let limit = |stage| match (stage, &report.generate) {
        (vram_core::rl::Stage::Generate, Some(g)) => g.limit_bytes,
        _ => report.learn.limit_bytes,
    };
    let bars = timeline
        .stages
        .iter()
        .map(|s| {
            let share = (s.bytes / limit(s.stage).max(1.0) * 100.0).min(100.0);
            let name = rl::stage_label(t, s.stage);
            let title = format!("{name}: {}", format_bytes(Bytes::new(s.bytes), unit));
            let (peak, over) = (s.stage == timeline.peak, share >= 100.0);
            view! {
                <li class:peak=peak class:over=over>
                    <span class="stage-name">{name}</span>
                    <span class="stage-bar" role="img" aria-label=title.clone() title=title>
                        <span class="stage-fill" style=format!("width: {share:.3}%")></span>
                    </span>
                </li>
            }
        })
        .collect_view();
    view! { <ol class="timeline" data-testid="rl-timeline-bars">{bars}</ol> }
}

/// Every figure of the RL run.
#[component]
pub fn RlResults(report: Memo<Option<RlReport>>, config: Memo<Config>) -> impl IntoView {
    let t = crate::words();
    // About 40 reports: worked out once a change, only while the RL view shows.
    let limits = Memo::new(move |_| {
        report
            .with(Option::is_some)
            .then(|| config.with(Config::rl_limits))
    });
    move || {
        report.with(|report| {
            let Some(report) = report else {
                return view! { <p class="summary" data-testid="rl-verdict">{t.stale}</p> }
                    .into_any();
            };
            let unit = MemoryUnit::Gb;
            let lengths = config.with(|c| rl::maximum_note(t, c, report, unit));
            let note = config.with(|c| rl::util_note(t, c, report));
            let host = config.with(|c| rl::host_note(t, c, report));
            let engine = config.with(|c| rl::engine_note(t, c, report, unit));
            // verl's overrides, or why verl does not run the plan as counted.
            let overrides = match config.with(vram_launch::verl::verl_overrides) {
                Ok(lines) => view! {
                    <pre class="overrides" data-testid="rl-overrides">{lines.join("\n")}</pre>
                }
                .into_any(),
                Err(why) => {
                    let zh = t.html_lang.starts_with("zh");
                    let target = vram_launch::Target::Verl;
                    let words = vram_view::launch::refusal(zh, target, why.into());
                    view! { <p class="hint" data-testid="rl-overrides">{words}</p> }.into_any()
                }
            };
            view! {
                // On a phone the verdict is pinned to the top of the screen, a
                // link to the results (as training's).
                <p class="summary" class:fits=report.fits() role="status" data-testid="rl-verdict"
                    data-fits=report.fits().to_string()><a class="verdict-bar" href="#results-heading"
                    data-testid="rl-verdict-bar">{config.with(|c| rl::verdict(t, c, report, unit))}</a></p>
                {lengths.map(|n| view! { <p class="notice" data-testid="rl-at-maximum">{n}</p> })}
                {note.map(|n| view! { <p class="notice warning" data-testid="rl-util">{n}</p> })}
                {host.map(|n| view! { <p class="notice warning" data-testid="rl-host-short">{n}</p> })}
                {engine.map(|n| view! { <p class="notice warning" data-testid="rl-engine">{n}</p> })}
                {report.generate.as_ref().map(|generate| view! {
                    <h3>{config.with(|c| rl::generate_heading(t, c))}</h3>
                    {phase_bar(t, generate, unit)}
                    {rows_table(rl::phase_rows(t, generate, unit), "rl-generate")}
                })}
                <h3>{t.rl_learn_heading}</h3>
                {phase_bar(t, &report.learn, unit)}
                {rows_table(rl::phase_rows(t, &report.learn, unit), "rl-learn")}
                <h3>{t.rl_step_heading}</h3>
                {rows_table(rl::step_rows(t, report, unit), "rl-step")}
                <h3>{t.rl_timeline_heading}</h3>
                {timeline_bars(t, report, unit)}
                {rows_table(rl::timeline_rows(t, report, unit), "rl-timeline")}
                {limits.get().map(|limits| view! {
                    <h3>{t.rl_limits_heading}</h3>
                    {rows_table(rl::limit_rows(t, &limits), "rl-limits")}
                })}
                <h3>{t.rl_overrides_heading}</h3>
                {overrides}
            }
            .into_any()
        })
    }
}
