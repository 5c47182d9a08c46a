//! The calculator's web page: a thin Leptos front end over `vram-core`.
//!
//! Every figure comes from the core; this crate parses nothing itself, computes
//! nothing itself and only lays out, formats and draws. Components:
//! [`App`] holds the state; `form` has the controls, `results` the strategy
//! table, `chart` the charts, `share` the link
//! in the address bar.

mod app;
mod chart;
mod crash;
mod fixes;
mod form;
mod lazy;
mod page;
pub mod plans;
mod results;
mod rl;
mod serving;
mod share;

pub mod timing;

pub use app::{App, AppProps};

/// The page's words in its language, given to every component by context
/// ([`App`] provides them once; a language switch mounts the page anew), so
/// no component takes them as a prop.
#[derive(Clone, Copy)]
pub(crate) struct Words(pub(crate) &'static vram_view::text::Text);

/// The page's words, from the context [`App`] provides (English outside it,
/// rather than a panic). Not inlined: one copy of the context's look-up
/// serves every component (1.7 KB gzip less than `expect_context` inlined
/// into each, measured on the release build).
#[inline(never)]
pub(crate) fn words() -> &'static vram_view::text::Text {
    leptos::prelude::use_context::<Words>().map_or(&vram_view::text::EN, |words| words.0)
}
pub use crash::{install_panic_hook, show_crash_message};

/// Mounts the calculator on the page's `<body>`, in place of the view rendered
/// at build time if the page has one ([`prerender`]): in the same task, so the
/// browser paints one or the other, never both; the control that had the focus
/// keeps it.
pub fn mount() {
    page::take_over_prerendered(mount_app);
}

thread_local! {
    /// The mounted page; dropping it unmounts it ([`switch_language`]).
    static MOUNTED: std::cell::RefCell<Option<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(None) };
}

/// Mounts [`App`] at the end of `<body>` and keeps its handle.
fn mount_app() {
    if let Some(body) = page::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let mounted = leptos::mount::mount_to(body, || App(AppProps { switch_language }));
        MOUNTED.set(Some(Box::new(mounted)));
    }
}

/// Shows the page again at `query` (the same configuration in another
/// language), what was typed (`typed`, the form's text as a query string)
/// kept, valid or not, and the focus on the control that had it: the address
/// is replaced, the page unmounted and [`App`] mounted anew in one task, so
/// the browser paints the old page or the new one, never neither.
fn switch_language(query: &str, typed: &str) {
    share::write_address(query);
    page::keep_typed(typed);
    // After the effect that asks for it has finished: the old page's owner
    // is dropped outside its own reactive graph.
    leptos::task::spawn_local(async {
        let focused = page::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element())
            .map(|e| e.id());
        drop(MOUNTED.take());
        mount_app();
        page::focus_by_id(focused.as_deref());
    });
}

/// The page for the link whose query is `query` (with its `?`, or empty), in
/// a browser that prefers `preferred_languages` (BCP 47 tags), rendered
/// natively as HTML: the markup the client mounts, the charts drawn
/// as SVG in place of their canvases. `vram-prerender` writes it into the
/// built `index.html` so that the first view paints before the WebAssembly.
#[cfg(not(target_arch = "wasm32"))]
pub fn prerender(query: &str, preferred_languages: &[&str]) -> String {
    use leptos::prelude::{Owner, RenderHtml};
    /// Effects are the browser's: natively they are queued and never run.
    struct NeverRun;
    impl any_spawner::CustomExecutor for NeverRun {
        fn spawn(&self, _: any_spawner::PinnedFuture<()>) {}
        fn spawn_local(&self, _: any_spawner::PinnedLocalFuture<()>) {}
        fn poll_local(&self) {}
    }
    // Set once per process; a second call finds it set.
    let _ = any_spawner::Executor::init_custom_executor(NeverRun);
    page::PRERENDERED_QUERY.set(query.to_string());
    page::PRERENDERED_LANGUAGES.set(preferred_languages.iter().map(|l| l.to_string()).collect());
    // Natively nothing switches: the written view is the default's.
    Owner::new().with(|| {
        App(AppProps {
            switch_language: |_, _| {},
        })
        .to_html()
    })
}
