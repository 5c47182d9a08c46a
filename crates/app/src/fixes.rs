//! "What would make it fit?": a fold under the results, shown while the
//! highlighted strategy does not fit, that when open lists the smallest
//! changes that make it fit ([`vram_core::fixes`]), each one click from the
//! form. The search and the list are the lazily loaded module's
//! (`vram_view::fixes::render`); the page's own code is the fold, the list's
//! place and one listener.

use leptos::prelude::*;
use vram_core::input::link;
use vram_core::{Config, Report};

use crate::form::Form;

/// The fold; hidden while the highlighted strategy fits.
#[component]
pub fn Fixes(config: Memo<Config>, form: Form, report: Memo<Report>) -> impl IntoView {
    let t = crate::words();
    let place = NodeRef::<leptos::html::Div>::new();
    let open = RwSignal::new(false);
    let fits = Memo::new(move |_| report.with(|r| r.highlighted().fits));
    // Searched while open, after the update's paint, for the configuration
    // still shown.
    Effect::new(move |_| {
        let shown = config.get();
        if !open.get() || fits.get() {
            return;
        }
        let zh = t.html_lang.starts_with("zh");
        request_animation_frame(move || {
            crate::lazy::with_lazy(Box::new(move |lazy| {
                let current = config.try_get_untracked().is_some_and(|now| now == shown);
                if let (Some(lazy), true, Some(place)) =
                    (lazy, current, place.try_get_untracked().flatten())
                {
                    crate::lazy::render_fixes_with(lazy, &link::encode(&shown), zh, &place);
                }
            }));
        });
    });
    // A fix's button carries its configuration's link.
    let use_fix = move |ev: leptos::ev::MouseEvent| {
        if let Some(query) = crate::plans::clicked_query(&ev) {
            form.load(&link::decode(&query).config);
        }
    };
    view! {
        <details class="fixes" data-testid="fixes" hidden=move || fits.get()
            prop:open=move || open.get()
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                let shown = ev.target().and_then(|d| d.dyn_into::<web_sys::HtmlDetailsElement>().ok()).map(|d| d.open());
                if let Some(shown) = shown.filter(|&s| s != open.get_untracked()) {
                    open.set(shown);
                }
            }>
            <summary><h2>{t.fixes_heading}</h2></summary>
            // The verdict's link points here; the browser opens the fold.
            <div id="fixes" node_ref=place on:click=use_fix class="fixes-place" data-testid="fixes-place"></div>
        </details>
    }
}
