//! Performance marks that `scripts/bench` reads: when the figures were first in
//! the document, a chart last drawn and the link last written, on the page's own clock (`performance.now()`).

/// Marked once, when the page is mounted with its figures in the document
/// (the charts are drawn after it, by effects).
pub const FIRST_FIGURE: &str = "vram-first-figure";
/// Marked each time a chart has been drawn.
pub const CHART_DRAWN: &str = "vram-chart-drawn";
/// Marked each time the address bar has been rewritten.
pub const LINK_WRITTEN: &str = "vram-link-written";

/// Adds a performance mark named `name`; does nothing where there is no `performance`.
pub fn mark(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        // Keep the buffer small: only the latest mark of each name is of use.
        performance.clear_marks_with_mark_name(name);
        let _ = performance.mark(name);
    }
}
/// Marked each time the ranked plans have been shown for the configuration on the page.
pub const PLANS_SHOWN: &str = "vram-plans-shown";
