//! The ranked plans: a fold under the results that, while open, ranks every
//! layout of the cluster ([`vram_core::time::plans::plans`]) and shows the ten
//! fastest that fit, each one click from the form, with a chart of all.
//!
//! The search and the drawing run in the lazily loaded module
//! (`crates/lazy`, which calls `vram_view::plans::render`): the page's own code is the fold,
//! a table's place, a canvas and one listener, so the first view stays small.

use leptos::prelude::*;
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
    t: &'static Text,
) -> impl IntoView {
    let place = NodeRef::<leptos::html::Div>::new();
    // The links before and after the plan applied last: while the form is
    // that plan, the table says what applying it changed.
    let applied = StoredValue::new((String::new(), String::new()));
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // Ranked and drawn by the lazily loaded module while the fold is open,
    // and asked what they found when no strategy fits on its own (the
    // verdict's words, `found`); an answer that comes after the configuration
    // changed is dropped.
    Effect::new(move |_| {
        let shown = config.get();
        theme.track();
        let open = open.get();
        found.set(String::new());
        let none_fits =
            report.with(|r| r.model.is_some() && r.least_sharding_that_fits().is_none());
        if !open && !none_fits {
            return;
        }
        let zh = t.html_lang.starts_with("zh");
        // The fold may be gone by the time the module arrives (its values
        // disposed): then there is nothing to draw.
        crate::share::with_lazy(Box::new(move |lazy| {
            if let (Some(lazy), true, true) = (
                lazy,
                none_fits,
                config.try_get_untracked().is_some_and(|now| now == shown),
            ) {
                found.try_set(crate::share::plans_verdict(lazy, &shown, zh));
            }
            if let (Some(lazy), true, Some(place), Some(canvas), true) = (
                lazy,
                open,
                place.try_get_untracked().flatten(),
                canvas.try_get_untracked().flatten(),
                config.try_get_untracked().is_some_and(|now| now == shown),
            ) {
                let query = link::encode(&shown);
                let before = applied
                    .try_with_value(|(before, after)| match *after == query {
                        true => before.clone(),
                        false => String::new(),
                    })
                    .unwrap_or_default();
                crate::share::render_plans(lazy, &query, &before, zh, &place, &canvas);
            }
        }));
    });
    // A row's button carries its configuration's link.
    let use_plan = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let query = ev
            .target()
            .and_then(|e| e.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.get_attribute("data-query"));
        if let Some(query) = query {
            let plan = link::decode(&query).config;
            applied.set_value((link::encode(&config.get_untracked()), link::encode(&plan)));
            form.load(&plan);
        }
    };
    let _ = MemoryUnit::Gb;
    view! {
        <details class="plans" data-testid="plans" prop:open=move || open.get()
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                let shown = ev.target().and_then(|d| d.dyn_into::<web_sys::HtmlDetailsElement>().ok()).map(|d| d.open());
                if let Some(shown) = shown.filter(|&s| s != open.get_untracked()) {
                    open.set(shown);
                }
                // Opened (by Q6's real model, the verdict's button, a link's
                // #plans or its own summary), the fold scrolls into view.
                if shown == Some(true) {
                    crate::share::scroll_to_plans();
                }
            }>
            <summary><h2>{t.plans_heading}</h2></summary>
            <p class="hint" id="plans">{t.plans_hint}</p>
            <div node_ref=place on:click=use_plan></div>
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
