//! The lazily loaded module (`crates/lazy`, `dist/lazy/`): imported the first
//! time the page needs it, and the page's bindings to what it answers (the
//! config.json reader, the ranked plans, Megatron-LM's estimate, the Markdown
//! and CSV exports).

use wasm_bindgen::JsValue;

/// Copies the results of the configuration whose link is `query` as a
/// Markdown table with what it is of, the page's notes and its `url`
/// (Chinese when `zh`), made by the lazily loaded module; `Err` if it could
/// not be loaded or the browser refuses.
pub async fn copy_results(query: &str, url: &str, zh: bool) -> Result<(), JsValue> {
    wasm_bindgen_futures::JsFuture::from(copy_markdown(query, url, zh))
        .await
        .map(|_| ())
}

/// Copies the configuration whose link is `query` as `kind` (a
/// [`vram_launch::Target`]'s key) writes it, naming `url`; `Err` with
/// the reason in words (Chinese when `zh`) when the framework cannot run
/// it, or the browser's error.
pub async fn copy_as(query: &str, kind: &str, url: &str, zh: bool) -> Result<(), String> {
    wasm_bindgen_futures::JsFuture::from(copy_export(query, kind, url, zh))
        .await
        .map(|_| ())
        .map_err(|error| {
            js_sys::Reflect::get(&error, &JsValue::from_str("message"))
                .ok()
                .and_then(|m| m.as_string())
                .filter(|m| !m.is_empty())
                .unwrap_or_default()
        })
}

#[wasm_bindgen::prelude::wasm_bindgen(inline_js = r#"
export function import_lazy() {
  return import(new URL("lazy/vram_lazy.js", document.baseURI).href).then(async (lazy) => {
    await lazy.default();
    return lazy;
  });
}
export function import_reader() {
  return import(new URL("reader/vram_reader.js", document.baseURI).href).then(async (reader) => {
    await reader.default();
    return reader;
  });
}
export function read_with(reader, text, query, zh) { return reader.read_config(text, query, zh); }
export function megatron_with(lazy, query, zh) { return lazy.megatron(query, zh); }
export function plans_verdict_with(lazy, query, zh) { return lazy.plans_verdict(query, zh); }
export function scroll_to_plans() { document.querySelector("[data-testid='plans']")?.scrollIntoView(); }
export function render_plans_with(lazy, query, before, zh, place, canvas) { lazy.render_plans(query, before, zh, place, canvas); }
export function render_fixes_with(lazy, query, zh, place) { return lazy.render_fixes(query, zh, place); }
export function copy_markdown(query, url, zh) {
  const text = import_lazy().then((lazy) => lazy.markdown(query, url, zh));
  const clipboard = navigator.clipboard;
  if (window.ClipboardItem && clipboard.write) {
    const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
    return clipboard.write([new ClipboardItem({ "text/plain": blob })]);
  }
  return text.then((t) => clipboard.writeText(t));
}
export function csv_with(lazy, query) { return lazy.csv(query); }
export function copy_export(query, kind, url, zh) {
  const text = import_lazy().then((lazy) => {
    const t = lazy.export_text(query, kind, url);
    if (!t) { throw new Error(lazy.export_refusal(query, kind, zh)); }
    return t;
  });
  const clipboard = navigator.clipboard;
  if (window.ClipboardItem && clipboard.write) {
    const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
    return clipboard.write([new ClipboardItem({ "text/plain": blob })]).then(() => text);
  }
  return text.then((t) => clipboard.writeText(t).then(() => t));
}
"#)]
extern "C" {
    /// Imports what the page loads when it is used (`lazy/vram_lazy.js`, next
    /// to the page) and starts its WebAssembly; the browser imports it once.
    fn import_lazy() -> js_sys::Promise;
    /// Imports the paste box's readers (`reader/vram_reader.js`, next to the
    /// page) and starts their WebAssembly; the browser imports it once.
    fn import_reader() -> js_sys::Promise;
    /// The config.json reader's answer for `text` read into the
    /// configuration whose link is `query` (a `ReadReply`'s message).
    fn read_with(lazy: &JsValue, text: &str, query: &str, zh: bool) -> String;
    /// What Megatron-LM would print for the configuration whose link is
    /// `query`, in words; empty without an estimate.
    pub fn megatron_with(lazy: &JsValue, query: &str, zh: bool) -> String;
    /// Scrolls the ranked plans' fold into view.
    pub fn scroll_to_plans();
    /// Copies the results of the configuration whose link is `query` as
    /// Markdown, made by the lazily loaded module. The clipboard is asked
    /// within the click (a `ClipboardItem` of the text to come, where the
    /// browser has it), as browsers that want a user's gesture require.
    fn copy_markdown(query: &str, url: &str, zh: bool) -> js_sys::Promise;
    /// Copies the configuration whose link is `query` as the framework
    /// `kind` writes it, naming `url`; rejected with the reason, in words,
    /// when the framework cannot run it.
    fn copy_export(query: &str, kind: &str, url: &str, zh: bool) -> js_sys::Promise;
    /// The CSV of the configuration whose link is `query`.
    pub fn csv_with(lazy: &JsValue, query: &str) -> String;
    /// Finds and shows what would make the configuration whose link is
    /// `query` fit, in `place`; false when it fits already.
    pub fn render_fixes_with(
        lazy: &JsValue,
        query: &str,
        zh: bool,
        place: &web_sys::Element,
    ) -> bool;
    /// What the ranked plans found, in words, when no strategy fits alone.
    fn plans_verdict_with(lazy: &JsValue, query: &str, zh: bool) -> String;
    /// Ranks the plans of the configuration whose link is `query` and shows
    /// them in `place` and on `canvas` ([`crate::plans::render`]), with the
    /// lazily loaded module; `before` (a link, or empty) is the
    /// configuration a plan was applied to.
    #[wasm_bindgen(js_name = render_plans_with)]
    pub fn render_plans(
        lazy: &JsValue,
        query: &str,
        before: &str,
        zh: bool,
        place: &web_sys::Element,
        canvas: &web_sys::HtmlCanvasElement,
    );
}

/// What runs once the lazily loaded module is there (or could not be).
pub type WithLazy = Box<dyn FnOnce(Option<&JsValue>)>;

/// Runs `then` with the lazily loaded module (`crates/lazy`), started, or
/// `None` when it could not be loaded: at once once it has started, before
/// that in one task for every use, so that each caller's code stays
/// synchronous (an async block per caller costs the page kilobytes of state
/// machine).
pub fn with_lazy(then: WithLazy) {
    thread_local! {
        /// The module once it has started: later uses run at once, so that
        /// an update redraws the charts in the same task as the table.
        static STARTED: std::cell::RefCell<Option<JsValue>> = const { std::cell::RefCell::new(None) };
    }
    with_module(&STARTED, import_lazy, then);
}

/// Runs `then` with the paste box's readers (`crates/reader`), started, or
/// `None` when they could not be loaded, as [`with_lazy`] does.
pub fn with_reader(then: WithLazy) {
    thread_local! {
        static STARTED: std::cell::RefCell<Option<JsValue>> = const { std::cell::RefCell::new(None) };
    }
    with_module(&STARTED, import_reader, then);
}

/// Runs `then` with the module `import` starts, kept in `started` once it
/// has: at once after that, before that in one task.
fn with_module(
    started: &'static std::thread::LocalKey<std::cell::RefCell<Option<JsValue>>>,
    import: fn() -> js_sys::Promise,
    then: WithLazy,
) {
    if let Some(module) = started.with_borrow(Clone::clone) {
        then(Some(&module));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let module = wasm_bindgen_futures::JsFuture::from(import()).await.ok();
        if let Some(module) = &module {
            started.set(Some(module.clone()));
        }
        then(module.as_ref());
    });
}

/// Reads `text`, a pasted `config.json`, launch script or log, into
/// `config` with the paste box's readers (`crates/reader`), in Chinese when
/// `zh`; `None` for an answer that is not a reply.
pub fn read_config_with(
    reader: &JsValue,
    text: &str,
    config: &vram_core::Config,
    zh: bool,
) -> Option<vram_view::replies::ReadReply> {
    let query = vram_core::input::link::encode(config);
    vram_view::replies::ReadReply::from_message(&read_with(reader, text, &query, zh))
}

/// What the ranked plans of `config` found, in words (Chinese when `zh`);
/// empty when no layout fits.
pub fn plans_verdict(lazy: &JsValue, config: &vram_core::Config, zh: bool) -> String {
    plans_verdict_with(lazy, &vram_core::input::link::encode(config), zh)
}
