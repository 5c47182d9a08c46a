//! The charts on the page: a canvas each, drawn with `vram_view::chart`'s
//! pictures whenever the report, the theme or the page's width changes, in the
//! same task as the table, so a link's figures and charts appear in one paint.
//! The bare page shows the pictures written at build time (`crate::prerender`)
//! until the WebAssembly takes over and draws its canvases.

use leptos::prelude::*;
use vram_core::Report;
use vram_view::chart::{describe, ChartKind, HEIGHT_CSS};

/// The width a chart is drawn at natively, in CSS pixels: the desktop layout's
/// (the SVG scales to its box).
#[cfg(not(target_arch = "wasm32"))]
const SVG_WIDTH: u32 = 720;

/// A chart of `report` (also described in words for screen readers): a
/// canvas redrawn whenever the report, the theme or the page width changes.
#[component]
pub fn Chart(
    report: Memo<Report>,
    /// The configuration, for the downloaded picture's caption.
    config: Memo<vram_core::Config>,
    theme: Memo<vram_core::format::Theme>,
    kind: ChartKind,
    /// The chart's heading on the page, the downloaded picture's title.
    heading: &'static str,
) -> impl IntoView {
    let t = crate::words();
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    #[cfg(target_arch = "wasm32")]
    redraw(canvas_ref, report, theme, t, kind);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = theme;
    let description = move || describe(t, &report.read(), kind);
    #[cfg(target_arch = "wasm32")]
    let picture = view! {
        <canvas
            node_ref=canvas_ref
            data-testid=format!("chart-{}", kind.id())
            role="img"
            aria-label=description
            height=HEIGHT_CSS
        ></canvas>
    };
    // Rendered natively (`crate::prerender`): the same picture as SVG in the
    // canvas's box; the client keeps it over the canvas until it is drawn.
    #[cfg(not(target_arch = "wasm32"))]
    let picture = view! {
        <div class="chart-svg" data-testid=format!("chart-svg-{}", kind.id())
            role="img" aria-label=description
            inner_html=vram_view::chart::svg(&report.read(), t, kind, (SVG_WIDTH, HEIGHT_CSS)).unwrap_or_default()
        ></div>
    };
    view! {
        <figure class="chart">
            {picture}
            <figcaption>
                {kind.legend(t).into_iter().map(|(class, label)| view! {
                    <span class=format!("swatch {class}")></span> {label} " "
                }).collect_view()}
                // The picture as drawn, with its title, the configuration and
                // its legend, taken when the link is followed.
                <a class="button" download=format!("vram-{}.png", kind.id()) href="#"
                    data-testid=format!("export-png-{}", kind.id())
                    on:click=move |ev| {
                        use wasm_bindgen::JsCast;
                        let caption = config.with_untracked(|c| vram_view::notes::caption(t, c));
                        let url = canvas_ref.get_untracked().and_then(|c| {
                            vram_view::chart::png_with_context(&c, kind, heading, &caption, t)
                                .or_else(|| c.to_data_url().ok())
                        });
                        let link = ev.current_target().and_then(|l| l.dyn_into::<web_sys::Element>().ok());
                        if let (Some(url), Some(link)) = (url, link) {
                            let _ = link.set_attribute("href", &url);
                        }
                    }>{t.download_png}</a>
            </figcaption>
        </figure>
    }
}

/// Draws the chart whenever the report, the theme or the page's width
/// changes. A picture written at build time stays over the canvas until the
/// canvas is drawn.
#[cfg(target_arch = "wasm32")]
fn redraw(
    canvas_ref: NodeRef<leptos::html::Canvas>,
    report: Memo<Report>,
    theme: Memo<vram_core::format::Theme>,
    t: &'static vram_view::text::Text,
    kind: ChartKind,
) {
    use vram_view::chart::client_size;
    // The canvas's size in CSS pixels: read once, then on every resize. Reading it
    // forces a layout, which would otherwise cost every redraw a millisecond or more.
    let css_size = RwSignal::new(None::<(f64, f64)>);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some(canvas) = canvas_ref.get_untracked() {
            css_size.set(Some(client_size(&canvas)));
        }
    });
    on_cleanup(move || resize.remove());
    Effect::new(move || {
        css_size.track();
        // The palette is read from the page's style: the theme goes on the
        // page first, whichever effect the runtime runs first (the charts
        // kept the old colours until a reload, issue 63).
        crate::page::set_theme(theme.get().key());
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let size = css_size.get_untracked().unwrap_or_else(|| {
            let size = client_size(&canvas);
            // A hidden canvas has no width yet: measure again when shown.
            if canvas.client_width() > 0 {
                css_size.update_untracked(|stored| *stored = Some(size));
            }
            size
        });
        // A drawing that fails leaves the previous picture; the table holds every figure.
        if vram_view::chart::draw(&canvas, &report.read(), &[], size, t, kind).is_ok() {
            crate::page::drop_written_picture(&canvas);
            crate::timing::mark(crate::timing::CHART_DRAWN);
        }
    });
}
