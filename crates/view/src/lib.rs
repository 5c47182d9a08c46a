//! What the page and its lazily loaded module both draw, over `vram-core`:
//! the words in two languages ([`text`]), the charts on any plotters backend
//! ([`chart`]: a canvas in the browser, SVG in the tests), the ranked
//! plans' table ([`plans`]), the lazily loaded module's other answers
//! ([`replies`]) and, natively, the read-only view as static HTML with SVG
//! charts (`static_view`, `vram --html`). Leptos only behind the feature
//! `dom` (the plans' table as a view, which the lazily loaded module mounts),
//! so the CLI links none; the page's components (`vram-app`) and the lazily
//! loaded module (`vram-lazy`) both use this crate, and neither depends on
//! the other.

#![forbid(unsafe_code)]

pub mod chart;
pub mod fixes;
pub mod launch;
pub mod lesson;
pub mod notes;
pub mod plans;
pub mod replies;
pub mod rl;
pub mod serving;
#[cfg(not(target_arch = "wasm32"))]
pub mod static_view;
pub mod text;
pub mod written;
