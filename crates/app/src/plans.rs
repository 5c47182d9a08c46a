//! The ranked plans: a fold under the results that, while open, ranks every
//! layout of the cluster ([`vram_core::plans::plans`]) and shows the ten
//! fastest that fit, each one click from the form, with a chart of all.
//!
//! The search and the drawing run in the lazily loaded module
//! (`crates/lazy`, which calls `vram_view::plans::render`): the page's own code is the fold,
//! a table's place, a canvas and one listener, so the first view stays small.
//!
//! An update paints the table, the link and the charts first; the plans follow
//! in a task after that paint (a search of up to 250,000 evaluations), marked
//! busy meanwhile, and only for the configuration still shown: typing fast
//! ranks the last value, not every one on the way.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vram_core::format::MemoryUnit;
use vram_core::input::link;
use vram_core::Config;
use vram_view::text::Text;

use crate::form::Form;

/// The fold of ranked plans; `open` also opens it from the lesson's Q6 buttons.
#[component]
pub fn Plans(
    config: Memo<Config>,
    form: Form,
    open: RwSignal<bool>,
    theme: Memo<vram_core::format::Theme>,
    report: Memo<vram_core::Report>,
    found: RwSignal<String>,
) -> impl IntoView {
    let t = crate::words();
    let place = NodeRef::<leptos::html::Div>::new();
    // The links before and after the plan applied last: while the form is
    // that plan, the table says what applying it changed.
    let applied = StoredValue::new((String::new(), String::new()));
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // Set while the plans shown are not yet the configuration's.
    let ranking = RwSignal::new(false);
    // Ranks and shows the plans of `shown` if it is still the configuration
    // on the page. The fold may be gone by the time the module arrives (its
    // values disposed): then there is nothing to draw.
    let rank_and_show = move |shown: Config, zh: bool| {
        if config.try_get_untracked().is_none_or(|now| now != shown) {
            return;
        }
        crate::lazy::with_lazy(Box::new(move |lazy| {
            let current = config.try_get_untracked().is_some_and(|now| now == shown);
            if let (Some(lazy), true, Some(place), Some(canvas), true) = (
                lazy,
                open.try_get_untracked().unwrap_or(false),
                place.try_get_untracked().flatten(),
                canvas.try_get_untracked().flatten(),
                current,
            ) {
                let query = link::encode(&shown);
                let before = applied
                    .try_with_value(|(before, after)| match *after == query {
                        true => before.clone(),
                        false => String::new(),
                    })
                    .unwrap_or_default();
                crate::lazy::render_plans(lazy, &query, &before, zh, &place, &canvas);
                crate::timing::mark(crate::timing::PLANS_SHOWN);
            }
            if current {
                ranking.try_set(false);
            }
        }));
    };
    // Asked what the plans found when no strategy fits on its own (the
    // verdict's words, `found`), in the update's own task once the lazily
    // loaded module has started; ranked and drawn after the update's paint
    // while the fold is open. An answer that comes after the configuration
    // changed is dropped.
    Effect::new(move |_| {
        let shown = config.get();
        theme.track();
        let open = open.get();
        found.set(String::new());
        let none_fits =
            report.with(|r| r.model.is_some() && r.least_sharding_that_fits().is_none());
        let zh = t.html_lang.starts_with("zh");
        if none_fits {
            crate::lazy::with_lazy(Box::new(move |lazy| {
                let current = config.try_get_untracked().is_some_and(|now| now == shown);
                if let (Some(lazy), true) = (lazy, current) {
                    found.try_set(crate::lazy::plans_verdict(lazy, &shown, zh));
                }
            }));
        }
        ranking.set(open);
        if open {
            // After the next paint (a frame, then a task): the figures are
            // on screen before the search starts.
            request_animation_frame(move || {
                set_timeout(move || rank_and_show(shown, zh), std::time::Duration::ZERO)
            });
        }
    });
    // A row's button carries its configuration's link.
    let use_plan = move |ev: leptos::ev::MouseEvent| {
        if let Some(query) = clicked_query(&ev) {
            let plan = link::decode(&query).config;
            applied.set_value((link::encode(&config.get_untracked()), link::encode(&plan)));
            form.load(&plan);
        }
    };
    // A row's "Copy as …" carries its configuration's link and the
    // framework chosen: the text is copied, or why it cannot be said.
    let copied = RwSignal::new(None::<String>);
    let copy_plan = copy_chosen(t, copied);
    let _ = MemoryUnit::Gb;
    // Hidden, not empty, where the page ranks no layouts: without a model or
    // under an accounting that splits nothing (issue 47). A
    // form error keeps it, to say what to correct.
    let no_plans = move || {
        use vram_core::plans::{no_plans, NoPlans};
        config.with(|c| matches!(no_plans(c), Some(NoPlans::NoModel | NoPlans::Accounting)))
    };
    view! {
        <details class="plans" data-testid="plans" hidden=no_plans prop:open=move || open.get()
            aria-busy=move || ranking.get().to_string()
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                let shown = ev.target().and_then(|d| d.dyn_into::<web_sys::HtmlDetailsElement>().ok()).map(|d| d.open());
                if let Some(shown) = shown.filter(|&s| s != open.get_untracked()) {
                    open.set(shown);
                }
                // Opened (by Q6's real model, the verdict's button, a link's
                // #plans or its own summary), the fold scrolls into view.
                if shown == Some(true) {
                    crate::lazy::scroll_to_plans();
                }
            }>
            <summary><h2>{t.plans_heading}</h2></summary>
            <p class="hint" id="plans">{t.plans_hint}</p>
            <div node_ref=place on:click=use_plan on:change=copy_plan class="plans-place"></div>
            <p class="copy-status" aria-live="polite" data-testid="plans-copy-status">{move || copied.get()}</p>
            <figure class="chart">
                <canvas node_ref=canvas data-testid="chart-plans" role="img" height="300"></canvas>
                <figcaption>
                    <span class="swatch fits"></span> {t.chart_legend_fits} " "
                    <span class="swatch too-small"></span> {t.plans_legend_over} " "
                    <span class="swatch model"></span> {t.chart_usable}
                </figcaption>
            </figure>
        </details>
    }
}

/// The configuration's link that the button clicked carries (its
/// `data-query`: a plan's row, a fix), read off the event's target.
pub(crate) fn clicked_query(ev: &web_sys::Event) -> Option<String> {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|e| e.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.get_attribute("data-query"))
}

/// What a plan's "Copy as …" choice does when changed (the training and
/// the serving plans alike): copies the core's text of the row's
/// configuration (its `data-query`) for the chosen framework, or says why
/// it cannot be said, into `copied`; the choice resets for the next.
pub(crate) fn copy_chosen(
    t: &'static Text,
    copied: RwSignal<Option<String>>,
) -> impl Fn(leptos::ev::Event) + Copy + 'static {
    move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let Some(select) = ev
            .target()
            .and_then(|e| e.dyn_into::<web_sys::HtmlSelectElement>().ok())
        else {
            return;
        };
        let (kind, query) = (select.value(), select.get_attribute("data-query"));
        select.set_value("");
        let Some(query) = query.filter(|_| !kind.is_empty()) else {
            return;
        };
        let zh = t.html_lang.starts_with("zh");
        let url = crate::share::page_url(&query);
        spawn_local(async move {
            let said = match crate::lazy::copy_as(&query, &kind, &url, zh).await {
                Ok(()) => t.export_copied.to_string(),
                Err(reason) if !reason.is_empty() => reason,
                Err(_) => t.copy_failed.to_string(),
            };
            copied.set(Some(said));
        });
    }
}
