//! The ranked plans as the lazily loaded module shows them: the ten first as
//! a Leptos view ([`PlansTable`]), every plan on a chart ([`render`]), in the
//! page's words.

use vram_core::format::{format_bytes, format_number, format_seconds};
use vram_core::plans::{Plan, Ranking};
use vram_core::Config;
#[cfg(feature = "dom")]
use vram_core::{format::Lang, input::link};

#[cfg(feature = "dom")]
use leptos::prelude::*;
#[cfg(feature = "dom")]
use wasm_bindgen::JsCast;

use crate::text::{self, LazyText, Text};

/// What sets a plan apart: its layout's sizes (SP, VPP, CP, EP and uneven
/// stages of a model of `layers` layers only when used).
pub fn layout_words(
    l: vram_core::memory::parallel::Layout,
    ep: u32,
    dp: u32,
    layers: u32,
) -> String {
    let mut words = vec![format!("TP {}", l.tp)];
    if l.sp {
        words.push("SP".into());
    }
    let mut pp = match l.vpp {
        1 => format!("PP {}", l.pp),
        v => format!("PP {} × {v}", l.pp),
    };
    if let Some(split) = l.uneven_words(layers) {
        pp = format!("{pp} {split}");
    }
    words.push(pp);
    if l.cp > 1 {
        words.push(match l.cp_comm {
            vram_core::memory::parallel::CpComm::Ring => format!("CP {}", l.cp),
            vram_core::memory::parallel::CpComm::AllToAll => format!("CP {} a2a", l.cp),
        });
    }
    if ep > 1 {
        words.push(match l.expert_tp {
            vram_core::memory::parallel::ExpertTp::AsTp => format!("EP {ep}"),
            vram_core::memory::parallel::ExpertTp::One => format!("EP {ep} (ETP 1)"),
        });
    }
    words.push(format!("DP {dp}"));
    words.join(" · ")
}

/// The configuration's transformer layers (1 without a model).
fn layers(config: &Config) -> u32 {
    config.model.map_or(1, |m| m.architecture.layers)
}

/// The words of one plan's cells: layout, strategy, recomputation, offload,
/// micro-batch × microbatches, memory per GPU, step time and tokens per second.
pub fn plan_cells(
    t: &Text,
    w: &LazyText,
    plan: &Plan,
    config: &Config,
) -> [(&'static str, String); 8] {
    let recompute = recompute_words(t, w, plan, config);
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
        (
            w.col_layout,
            layout_words(plan.layout, plan.ep, plan.dp, layers(config)),
        ),
        (
            t.col_strategy,
            format!("{} · {}", plan.strategy.label(), framework(plan)),
        ),
        (w.col_recompute, recompute),
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

/// A plan's recomputation in words: the choice, or Megatron-LM's block
/// method's N of the stage's layers.
fn recompute_words(t: &Text, w: &LazyText, plan: &Plan, config: &Config) -> String {
    use vram_core::memory::activations::{Recompute, RecomputeMethod};
    let layers = layers(config);
    let chunk = plan.layout.largest_chunk(layers);
    let n = plan.checkpointing.layers;
    match plan.recompute {
        Recompute::Full if plan.checkpointing.method == RecomputeMethod::Block && n < chunk => {
            text::fill(w.plans_block, &[&n.to_string(), &chunk.to_string()])
        }
        r => Recompute::ALL
            .iter()
            .position(|&x| x == r)
            .map_or("", |i| t.recompute[i])
            .into(),
    }
}

/// The framework a plan assumes: Megatron-LM runs DDP and its distributed
/// optimizer (ZeRO-1) with any layout; ZeRO-2 and ZeRO-3 are DeepSpeed's,
/// with Megatron-LM's tensor, context or expert parallelism through
/// Megatron-DeepSpeed (never with PP: DeepSpeed's pipeline engine refuses them).
pub fn framework(plan: &Plan) -> &'static str {
    match plan.strategy {
        vram_core::Strategy::Ddp | vram_core::Strategy::Zero1 => "Megatron-LM",
        _ if plan.layout.tp > 1 || plan.layout.cp > 1 || plan.ep > 1 => "Megatron-DeepSpeed",
        _ => "DeepSpeed",
    }
}

/// What the ranked plans found when no strategy fits on its own, in `t`'s
/// words: how many layouts fit and the fastest (its layout, strategy,
/// recomputation and offload); `None` when none fits.
pub fn verdict(t: &Text, w: &LazyText, ranking: &Ranking, config: &Config) -> Option<String> {
    let first = ranking.plans.iter().find(|p| p.fits)?;
    let fitting = ranking.fitting;
    let mut words = vec![
        layout_words(first.layout, first.ep, first.dp, layers(config)),
        first.strategy.label().to_string(),
    ];
    if first.recompute != vram_core::memory::activations::Recompute::None {
        words.push(recompute_words(t, w, first, config));
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
            &ranking.found.to_string(),
            &words.join(" · "),
        ],
    ))
}

/// How many plans fit, in `t`'s words, and how much of the cluster was
/// searched when not all of it; or why there are none to rank.
pub fn plans_count(w: &LazyText, config: &Config, ranking: &Ranking) -> String {
    use vram_core::plans::{no_plans, NoPlans};
    if let Some(why) = no_plans(config) {
        return match why {
            NoPlans::NoModel => w.plans_no_model,
            NoPlans::Accounting => w.plans_accounting,
            NoPlans::Invalid => w.plans_invalid,
        }
        .to_string();
    }
    let mut count = text::fill(
        w.plans_count,
        &[&ranking.fitting.to_string(), &ranking.found.to_string()],
    );
    count.push(' ');
    count.push_str(&match config.global_batch {
        Some(global) => text::fill(w.plans_ranked_global, &[&global.to_string()]),
        None => w.plans_ranked_own.to_string(),
    });
    if !ranking.is_complete() {
        count.push(' ');
        count.push_str(&text::fill(
            w.plans_partial,
            &[&ranking.searched.to_string(), &ranking.layouts.to_string()],
        ));
    }
    match ranking.fitting == 0 && ranking.found > 0 {
        true => format!("{count} {}", w.plans_none),
        false => count,
    }
}

/// What applying a plan changed, field by field in the form's words
/// (`Tensor parallelism (TP) 1 → 4`): each field the form shows for `after`
/// whose value differs from `before`'s.
pub fn changes(t: &Text, before: &Config, after: &Config) -> Vec<String> {
    use vram_core::input::form::{is_enabled, text_of};
    vram_core::Field::ALL
        .into_iter()
        .filter(|&field| is_enabled(field, |f| text_of(after, f)))
        .filter_map(|field| {
            let (old, new) = (text_of(before, field), text_of(after, field));
            (old != new).then(|| {
                format!(
                    "{} {} → {}",
                    text::field_text(t, field).label,
                    text::value_words(t, field, &old),
                    text::value_words(t, field, &new)
                )
            })
        })
        .collect()
}

/// The row of `plans` that `config` already is (its button would change
/// nothing): the plan applied last, kept marked after the ranking is redone.
pub fn current_row(config: &Config, plans: &[Plan]) -> Option<usize> {
    plans.iter().position(|plan| plan.apply(config) == *config)
}

/// The plans of `config` in `t`'s words: how many fit, what applying one
/// changed (from `before`, the configuration it was applied to), and the ten
/// first as a table, each row's cells labelled for the phone layout and its
/// button carrying the link of the configuration it applies (the page listens
/// for the click on the table's place); the row `config` already is, marked.
/// A plan's "Copy as …" choices: each framework's, marked before it is
/// chosen where it cannot run the plan (issue 63: "Copy as DeepSpeed"
/// refused only after the click), its reason the option's title.
#[cfg(feature = "dom")]
fn copy_options(t: &'static Text, zh: bool, plan: &Config) -> impl IntoView {
    vram_launch::Target::of(plan)
        .map(|target| {
            let refusal = vram_launch::export(plan, target, "").err();
            let label = match refusal {
                None => target.label().to_string(),
                Some(_) => text::fill(t.copy_refused, &[target.label()]),
            };
            let why = refusal.map(|r| crate::launch::refusal(zh, target, r));
            view! { <option value=target.key() disabled=refusal.is_some() title=why>{label}</option> }
        })
        .collect_view()
}

#[cfg(feature = "dom")]
#[component]
pub fn PlansTable(
    t: &'static Text,
    w: &'static LazyText,
    /// Whether the page speaks Chinese (the refusals' words).
    zh: bool,
    config: Config,
    ranking: Ranking,
    before: Option<Config>,
) -> impl IntoView {
    let plans = &ranking.plans;
    let current = current_row(&config, plans);
    let applied = before
        .filter(|_| current.is_some())
        .map(|before| changes(t, &before, &config))
        .filter(|changes| !changes.is_empty())
        .map(|changes| text::fill(w.plans_applied, &[&changes.join(" · ")]));
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
            let used = current == Some(i);
            view! {
                <tr class:fits=plan.fits class:current=used aria-current=used.then_some("true")
                    data-testid=format!("plan-{i}")>
                    {cells}
                    <td>
                        <button type="button" class="quiet" data-testid=format!("plan-use-{i}")
                            disabled=used data-query=link::encode(&plan.apply(&config))>
                            {if used { w.plans_in_use } else { w.plans_apply }}
                        </button>
                        // The plan as a framework writes it (issue 46): the
                        // page copies the chosen one ([`vram_core::launch`]).
                        <select class="copy-plan" data-testid=format!("plan-copy-{i}")
                            data-query=link::encode(&plan.apply(&config)) aria-label=t.copy_as>
                            <option value="" selected>{format!("{}…", t.copy_as)}</option>
                            {copy_options(t, zh, &plan.apply(&config))}
                        </select>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p data-testid="plans-count">{plans_count(w, &config, &ranking)}</p>
        {applied.map(|words| view! { <p class="applied" role="status" data-testid="plans-applied">{words}</p> })}
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

#[cfg(feature = "dom")]
thread_local! {
    /// The table mounted last, unmounted when the next one is drawn.
    static MOUNTED: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// Ranks the plans of `config` and shows them: the table in `place`, the
/// chart on `canvas`, in `lang`; `before`, when given, is the configuration
/// a plan was applied to, to say what it changed. Run by the lazily loaded
/// module (`crates/lazy`), which reads both from their links.
#[cfg(feature = "dom")]
pub fn render(
    config: Config,
    before: Option<Config>,
    lang: Lang,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    let (t, w) = (text::of(lang), text::lazy_of(lang));
    let ranking = vram_core::plans::rank(&config);
    let report = config.report().unwrap_or_default();
    crate::chart::draw_plans(canvas, &report, &ranking.plans, t);
    canvas
        .set_attribute("aria-label", &plans_count(w, &config, &ranking))
        .ok();
    // The previous table goes before the new one is mounted in its place.
    MOUNTED.with(|mounted| mounted.borrow_mut().take());
    if let Ok(place) = place.clone().dyn_into::<web_sys::HtmlElement>() {
        let handle = leptos::mount::mount_to(place, move || {
            PlansTable(PlansTableProps {
                t,
                w,
                zh: lang == Lang::Zh,
                config,
                ranking,
                before,
            })
        });
        MOUNTED.with(|mounted| *mounted.borrow_mut() = Some(Box::new(handle)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{EN, ZH};
    use vram_core::input::link;

    /// Issue 25: "Use" marks the applied plan and keeps it marked once the
    /// plans are ranked again for the configuration it made, and says what
    /// it changed, in the form's words.
    #[test]
    fn an_applied_plan_stays_marked_and_says_what_it_changed() {
        let query = "model=llama2-70b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1\
                     &recompute=full&stage=3&global_batch=64";
        let before = link::decode(query).config;
        let plans = vram_core::plans::plans(&before);
        // The form itself is ranked too: ZeRO-3 on 8 GPUs, over the memory.
        let own = current_row(&before, &plans).expect("the form's own layout");
        assert!(!plans[own].fits && plans[own].layout.tp == 1 && plans[own].layout.pp == 1);
        for chosen in [0, 3] {
            let after = link::decode(&link::encode(&plans[chosen].apply(&before))).config;
            let ranked = vram_core::plans::plans(&after);
            let row = current_row(&after, &ranked).expect("the applied plan is ranked");
            assert_eq!(ranked[row].layout, plans[chosen].layout, "plan {chosen}");
            assert_eq!(
                ranked[row].strategy, plans[chosen].strategy,
                "plan {chosen}"
            );
            let said = changes(&EN, &before, &after);
            assert!(!said.is_empty(), "plan {chosen}");
            for line in &said {
                assert!(line.contains(" → "), "{line}");
            }
            let l = plans[chosen].layout;
            if l.tp > 1 {
                assert!(
                    said.iter()
                        .any(|s| s.starts_with(&format!("Tensor parallelism (TP) 1 → {}", l.tp))),
                    "{said:?}"
                );
            }
        }
        // Each row names the framework it assumes.
        let (zero1, zero3) = (
            plans
                .iter()
                .find(|p| p.strategy == vram_core::Strategy::Zero1)
                .unwrap(),
            plans
                .iter()
                .find(|p| p.strategy == vram_core::Strategy::Zero3 && p.layout.tp == 1)
                .unwrap(),
        );
        assert_eq!(
            (framework(zero1), framework(zero3)),
            ("Megatron-LM", "DeepSpeed")
        );
        // In Chinese, with the choices' labels.
        let after = plans[0].apply(&before);
        let said = changes(&ZH, &before, &after).join(" · ");
        assert!(
            !said.contains("none") && !said.contains("optimizer"),
            "{said}"
        );
    }
}
