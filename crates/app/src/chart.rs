//! The charts on the page: a canvas each, redrawn when the report, the theme
//! or the page's width changes; what they draw is `vram_view::chart`'s.

use leptos::prelude::*;
use vram_core::Report;
use vram_view::chart::{client_size, describe, draw, ChartKind, HEIGHT_CSS};
use vram_view::text::Text;

/// A chart: a canvas redrawn whenever the report or the page width changes.
#[component]
pub fn Chart(
    report: Memo<Report>,
    theme: Memo<vram_core::format::Theme>,
    t: &'static Text,
    kind: ChartKind,
) -> impl IntoView {
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    // The canvas's size in CSS pixels: read once, then on every resize. Reading it
    // forces a layout, which would otherwise cost every redraw a millisecond or more.
    let css_size = RwSignal::new(None::<(f64, f64)>);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some(canvas) = canvas_ref.get_untracked() {
            css_size.set(Some(client_size(&canvas)));
        }
    });
    on_cleanup(move || resize.remove());
    Effect::new(move |_| {
        css_size.track();
        theme.track();
        let report = report.read();
        if let Some(canvas) = canvas_ref.get() {
            let size = css_size.get_untracked().unwrap_or_else(|| {
                let size = client_size(&canvas);
                // A hidden canvas has no width yet: measure again when shown.
                if canvas.client_width() > 0 {
                    css_size.update_untracked(|stored| *stored = Some(size));
                }
                size
            });
            // A drawing error leaves the previous picture; the table still holds every figure.
            let _ = draw(&canvas, &report, &[], size, t, kind);
            crate::timing::mark(crate::timing::CHART_DRAWN);
        }
    });
    let description = move || describe(t, &report.read(), kind);
    view! {
        <figure class="chart">
            <canvas
                node_ref=canvas_ref
                data-testid=format!("chart-{}", kind.id())
                role="img"
                aria-label=description
                height=HEIGHT_CSS
            ></canvas>
            <figcaption>
                {kind.legend(t).into_iter().map(|(class, label)| view! {
                    <span class=format!("swatch {class}")></span> {label} " "
                }).collect_view()}
                // The picture as drawn, taken when the link is followed.
                <a class="button" download=format!("vram-{}.png", kind.id()) href="#"
                    data-testid=format!("export-png-{}", kind.id())
                    on:click=move |ev| {
                        use wasm_bindgen::JsCast;
                        let url = canvas_ref.get_untracked().and_then(|c| c.to_data_url().ok());
                        let link = ev.current_target().and_then(|l| l.dyn_into::<web_sys::Element>().ok());
                        if let (Some(url), Some(link)) = (url, link) {
                            let _ = link.set_attribute("href", &url);
                        }
                    }>{t.download_png}</a>
            </figcaption>
        </figure>
    }
}
