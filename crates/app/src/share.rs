//! The shared link in the browser: reading it on load, keeping the address bar
//! on it with `history.replaceState` (at most every 100 ms), copying it.

use std::time::Duration;

use leptos::prelude::{set_timeout, Effect, GetUntracked, Memo, Track};
use wasm_bindgen::JsValue;

/// The browser's window; `None` where there is none: natively, where the page
/// is rendered at build time ([`crate::prerender`]).
pub fn window() -> Option<web_sys::Window> {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window();
    #[cfg(not(target_arch = "wasm32"))]
    None
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// The query of the link rendered natively ([`crate::prerender`]).
    pub(crate) static PRERENDERED_QUERY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// The browser's preferred languages it is rendered for.
    pub(crate) static PRERENDERED_LANGUAGES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `mount`, then removes the views rendered at build time
/// (`main[data-prerendered]`, `vram-prerender`), giving the focus to the
/// mounted control with the id of the one that had it.
pub fn take_over_prerendered(mount: impl FnOnce()) {
    use wasm_bindgen::JsCast;
    let document = window().and_then(|w| w.document());
    // The written views, English's and Chinese's; the one shown is the
    // guard's choice (`vram-zh` on <html>).
    let html = document.as_ref().and_then(|d| d.document_element());
    let chinese = html
        .as_ref()
        .is_some_and(|html| html.class_list().contains("vram-zh"));
    let views = ["en", "zh"].map(|lang| {
        document.as_ref().and_then(|d| {
            d.query_selector(&format!("main[data-prerendered][data-lang={lang}]"))
                .ok()
                .flatten()
        })
    });
    let [english, zh] = views;
    let (old, other) = if chinese {
        (zh, english)
    } else {
        (english, zh)
    };
    if let Some(other) = other {
        other.remove();
    }
    let focused = document
        .as_ref()
        .and_then(|d| d.active_element())
        .filter(|e| old.as_ref().is_some_and(|old| old.contains(Some(e))))
        .map(|e| e.id());
    mount();
    let Some(old) = old else {
        return;
    };
    // The pictures written at build time stay over the canvases until these
    // are drawn, if they were the page's own (not hidden by the page's guard).
    let shown = html.is_some_and(|html| !html.class_list().contains("vram-fresh"));
    if let (true, Some(d)) = (shown, document.as_ref()) {
        use vram_view::chart::ChartKind::*;
        for kind in [Memory, MaxParams, Scaling, Step].map(|k| k.id()) {
            let picture = old.query_selector(&format!("[data-testid=chart-svg-{kind}]"));
            let canvas = d.query_selector(&format!("canvas[data-testid=chart-{kind}]"));
            if let (Ok(Some(picture)), Ok(Some(canvas))) = (picture, canvas) {
                let _ = picture.class_list().add_1("kept");
                let _ = canvas.before_with_node_1(&picture);
            }
        }
    }
    old.remove();
    // The Chinese view's ids carry a prefix (two views in one document).
    let focus = focused
        .zip(document)
        .and_then(|(id, d)| d.get_element_by_id(id.strip_prefix("zh-").unwrap_or(&id)))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(element) = focus {
        let _ = element.focus();
    }
}

/// Removes the picture written at build time that is kept over `canvas`, if any.
#[cfg(target_arch = "wasm32")]
pub fn drop_written_picture(canvas: &web_sys::HtmlCanvasElement) {
    if let Some(picture) = canvas
        .previous_element_sibling()
        .filter(|p| p.class_list().contains("kept"))
    {
        picture.remove();
    }
}

/// The page's fragment, `#…` (empty when there is none).
pub fn current_hash() -> String {
    window()
        .and_then(|window| window.location().hash().ok())
        .unwrap_or_default()
}

/// The query string of the page's address, with its leading `?` (empty if none).
pub fn current_query() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    return PRERENDERED_QUERY.with_borrow(Clone::clone);
    #[cfg(target_arch = "wasm32")]
    window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default()
}

/// Least time between two rewrites of the address, in milliseconds. Browsers
/// refuse a page that rewrites it too often (Chromium ignores more than 200
/// updates in 10 s, Firefox throws): a held arrow key in a number field would
/// leave an old link in the address bar.
const ADDRESS_INTERVAL_MS: f64 = 100.0;

thread_local! {
    /// When the address was last written (`Date.now()`, ms), and whether a write
    /// is scheduled.
    static ADDRESS: std::cell::Cell<(f64, bool)> = const { std::cell::Cell::new((f64::NEG_INFINITY, false)) };
}

/// Keeps the address's query string equal to `query` (written without its `?`),
/// path and fragment kept, without reloading and without new history entries:
/// at once, or, if the address changed less than [`ADDRESS_INTERVAL_MS`] ago, at
/// the end of that interval with `query`'s value by then.
pub fn follow_in_address(query: Memo<String>) {
    Effect::new(move |_| {
        query.track();
        let (last, scheduled) = ADDRESS.get();
        if scheduled {
            return; // the write on its way takes the newest value
        }
        let wait = last + ADDRESS_INTERVAL_MS - js_sys::Date::now();
        if wait > 0.0 {
            ADDRESS.set((last, true));
            set_timeout(
                // The page may be gone by then (unmounted): nothing to write.
                move || match query.try_get_untracked() {
                    Some(query) => write_address(&query),
                    None => ADDRESS.set((last, false)),
                },
                Duration::from_millis(wait.ceil() as u64),
            );
        } else {
            write_address(&query.get_untracked());
        }
    });
}

/// Writes `query` into the address, keeping its fragment, without a new
/// history entry.
pub fn write_address(query: &str) {
    ADDRESS.set((js_sys::Date::now(), false));
    let Some(window) = window() else {
        return;
    };
    let hash = window.location().hash().unwrap_or_default();
    let url = format!("?{query}{hash}");
    if let Ok(history) = window.history() {
        // Fails for a cross-origin URL, which a bare query cannot be, or when
        // throttled, which the interval above prevents.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
    crate::timing::mark(crate::timing::LINK_WRITTEN);
}

/// The page's own address with `query`: what "copy link" copies.
pub fn page_url(query: &str) -> String {
    let location = window().map(|window| window.location());
    let base = location
        .and_then(|location| {
            let origin = location.origin().ok()?;
            let path = location.pathname().ok()?;
            Some(format!("{origin}{path}"))
        })
        .unwrap_or_default();
    format!("{base}?{query}")
}

/// Copies `text` to the clipboard; `Err` if the browser refuses (no permission,
/// no secure context).
pub async fn copy_to_clipboard(text: &str) -> Result<(), JsValue> {
    let window = window().ok_or(JsValue::NULL)?;
    let promise = window.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map(|_| ())
}

/// Copies the results of the configuration whose link is `query` as a
/// Markdown table with the page's notes
/// (Chinese when `zh`), made by the lazily loaded module; `Err` if it could
/// not be loaded or the browser refuses.
pub async fn copy_results(query: &str, zh: bool) -> Result<(), JsValue> {
    wasm_bindgen_futures::JsFuture::from(copy_markdown(query, zh))
        .await
        .map(|_| ())
}

/// Sets `data-theme` on `<html>` to `light` or `dark`, or removes it for `auto`
/// (the style sheet then follows the system).
pub fn set_theme(key: &str) {
    let Some(root) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = if key == "auto" {
        root.remove_attribute("data-theme")
    } else {
        root.set_attribute("data-theme", key)
    };
}

/// Marks `<html>` with `data-embed` for the compact layout, or clears it.
pub fn set_embedded(embedded: bool) {
    let Some(root) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = if embedded {
        root.set_attribute("data-embed", "1")
    } else {
        root.remove_attribute("data-embed")
    };
}

/// The type of the message the calculator posts to the page that frames it:
/// `{ type: "vram-calculator:height", v: 1, height }`, the height in CSS pixels
/// (version 1 of the embedding protocol; README, "Embedding").
pub const HEIGHT_MESSAGE: &str = "vram-calculator:height";

/// The type of the message a host sends to ask for the height again
/// (`{ type: "vram-calculator:measure", v: 1 }`): `embed.js` does, for a frame
/// that loaded before it was listening.
pub const MEASURE_MESSAGE: &str = "vram-calculator:measure";

/// The version of the embedding protocol the messages carry as `v`.
pub const EMBED_PROTOCOL_VERSION: u32 = 1;

/// Keeps the framing page told of this page's height: whenever the document's
/// size changes (new figures, a model's fields shown, a narrower window, a
/// section opened), and whenever the host asks. Does nothing outside a frame.
pub fn follow_height_in_host() {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(window) = window() else {
        return;
    };
    if window
        .parent()
        .ok()
        .flatten()
        .is_none_or(|parent| parent == window)
    {
        return;
    }
    let Some(root) = window.document().and_then(|d| d.document_element()) else {
        return;
    };
    let resized = Closure::<dyn FnMut()>::new(post_height);
    if let Ok(observer) = web_sys::ResizeObserver::new(resized.as_ref().unchecked_ref()) {
        observer.observe(&root);
    }
    resized.forget(); // lives as long as the page
    let asked = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
        let kind = js_sys::Reflect::get(&event.data(), &"type".into()).ok();
        if kind.and_then(|k| k.as_string()).as_deref() == Some(MEASURE_MESSAGE) {
            post_height();
        }
    });
    let _ = window.add_event_listener_with_callback("message", asked.as_ref().unchecked_ref());
    asked.forget();
}

/// Tells the parent window the page's height, so its iframe can fit it: the
/// height of `<html>` itself, which, unlike its scroll height, shrinks with the
/// content when the frame is taller.
fn post_height() {
    let Some(window) = window() else {
        return;
    };
    let height = window
        .document()
        .and_then(|d| d.document_element())
        .map_or(0.0, |root| root.get_bounding_client_rect().height().ceil());
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
    let _ = js_sys::Reflect::set(&message, &"v".into(), &EMBED_PROTOCOL_VERSION.into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
    let _ = parent.post_message(&message, "*");
}

/// The browser's preferred languages, most preferred first (`navigator.languages`).
pub fn preferred_languages() -> Vec<String> {
    #[cfg(not(target_arch = "wasm32"))]
    return PRERENDERED_LANGUAGES.with_borrow(Clone::clone);
    #[cfg(target_arch = "wasm32")]
    window()
        .map(|w| {
            w.navigator()
                .languages()
                .iter()
                .filter_map(|l| l.as_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Tells the browser and screen readers the page's language, and titles the tab.
pub fn set_language(html_lang: &str, title: &str) {
    if let Some(document) = window().and_then(|w| w.document()) {
        if let Some(html) = document.document_element() {
            let _ = html.set_attribute("lang", html_lang);
        }
        document.set_title(title);
    }
}

thread_local! {
    /// What was typed, kept across a language switch for [`take_typed`].
    static TYPED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Keeps `typed` (the form's text, as a query string) for the page mounted
/// next ([`take_typed`]).
pub fn keep_typed(typed: &str) {
    TYPED.set(Some(typed.to_string()));
}

/// What [`keep_typed`] kept, once.
pub fn take_typed() -> Option<String> {
    TYPED.take()
}

/// Gives the focus to the element whose id is `id`, if there is one.
pub fn focus_by_id(id: Option<&str>) {
    use wasm_bindgen::JsCast;
    let element = id
        .filter(|id| !id.is_empty())
        .zip(window().and_then(|w| w.document()))
        .and_then(|(id, d)| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(element) = element {
        let _ = element.focus();
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(inline_js = r#"
export function import_lazy() {
  return import(new URL("lazy/vram_lazy.js", document.baseURI).href).then(async (lazy) => {
    await lazy.default();
    return lazy;
  });
}
export function read_with(lazy, text, query, zh) { return lazy.read_config(text, query, zh); }
export function megatron_with(lazy, query, zh) { return lazy.megatron(query, zh); }
export function plans_verdict_with(lazy, query, zh) { return lazy.plans_verdict(query, zh); }
export function scroll_to_plans() { document.querySelector("[data-testid='plans']")?.scrollIntoView(); }
export function render_plans_with(lazy, query, before, zh, place, canvas) { lazy.render_plans(query, before, zh, place, canvas); }
export function copy_markdown(query, zh) {
  const text = import_lazy().then((lazy) => lazy.markdown(query, zh));
  const clipboard = navigator.clipboard;
  if (window.ClipboardItem && clipboard.write) {
    const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
    return clipboard.write([new ClipboardItem({ "text/plain": blob })]);
  }
  return text.then((t) => clipboard.writeText(t));
}
export function csv_with(lazy, query) { return lazy.csv(query); }
"#)]
extern "C" {
    /// Imports what the page loads when it is used (`lazy/vram_lazy.js`, next
    /// to the page) and starts its WebAssembly; the browser imports it once.
    fn import_lazy() -> js_sys::Promise;
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
    fn copy_markdown(query: &str, zh: bool) -> js_sys::Promise;
    /// The CSV of the configuration whose link is `query`.
    pub fn csv_with(lazy: &JsValue, query: &str) -> String;
    /// What the ranked plans found, in words, when no strategy fits alone.
    fn plans_verdict_with(lazy: &JsValue, query: &str, zh: bool) -> String;
    /// Ranks the plans of the configuration whose link is `query` and shows
    /// them in `place` and on `canvas` ([`crate::plans::render`]).
    fn render_plans_with(
        lazy: &JsValue,
        query: &str,
        before: &str,
        zh: bool,
        place: &web_sys::Element,
        canvas: &web_sys::HtmlCanvasElement,
    );
}

/// Ranks and shows the plans of the configuration whose link is `query`,
/// with the lazily loaded module; `before` (a link, or empty) is the
/// configuration a plan was applied to.
pub fn render_plans(
    lazy: &JsValue,
    query: &str,
    before: &str,
    zh: bool,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    render_plans_with(lazy, query, before, zh, place, canvas);
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
    if let Some(lazy) = STARTED.with_borrow(Clone::clone) {
        then(Some(&lazy));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let lazy = wasm_bindgen_futures::JsFuture::from(import_lazy())
            .await
            .ok();
        if let Some(lazy) = &lazy {
            STARTED.set(Some(lazy.clone()));
        }
        then(lazy.as_ref());
    });
}

/// Reads `text`, a pasted `config.json`, into `config` with the lazily
/// loaded reader, in Chinese when `zh`; `None` for an answer that is not a reply.
pub fn read_config_with(
    lazy: &JsValue,
    text: &str,
    config: &vram_core::Config,
    zh: bool,
) -> Option<vram_view::replies::ReadReply> {
    let query = vram_core::input::link::encode(config);
    vram_view::replies::ReadReply::from_message(&read_with(lazy, text, &query, zh))
}

/// What the ranked plans of `config` found, in words (Chinese when `zh`);
/// empty when no layout fits.
pub fn plans_verdict(lazy: &JsValue, config: &vram_core::Config, zh: bool) -> String {
    plans_verdict_with(lazy, &vram_core::input::link::encode(config), zh)
}
