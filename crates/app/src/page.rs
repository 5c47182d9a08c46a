//! The document the page lives in: the browser's window, the takeover of the
//! view written at build time, the theme and language on `<html>`, the height
//! an embedding host is told, and what survives a language switch.

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
