//! The calculator's web page: a thin Leptos front end over `vram-core`.
//!
//! Every figure comes from the core; this crate parses nothing itself, computes
//! nothing itself and only lays out, formats and draws. Components:
//! [`App`] holds the state; `form` has the controls, `results` the strategy
//! table, `chart` the plotters-canvas chart, `share` the link in the address bar.

mod app;
mod chart;
mod crash;
mod form;
pub mod plans;
mod results;
mod share;

pub mod timing;

pub use app::App;
pub use crash::{install_panic_hook, show_crash_message};

/// Mounts the calculator on the page's `<body>`.
pub fn mount() {
    leptos::mount::mount_to_body(App);
}
