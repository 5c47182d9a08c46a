//! The shared link in the browser: reading it on load, keeping the address bar
//! on it with `history.replaceState` (at most every 100 ms), copying it.

use std::time::Duration;

use leptos::prelude::{set_timeout, Effect, GetUntracked, Memo, Track};
use wasm_bindgen::JsValue;

use crate::page::window;

/// The page's fragment, `#…` (empty when there is none).
pub fn current_hash() -> String {
    window()
        .and_then(|window| window.location().hash().ok())
        .unwrap_or_default()
}

/// The query string of the page's address, with its leading `?` (empty if none).
pub fn current_query() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    return crate::page::PRERENDERED_QUERY.with_borrow(Clone::clone);
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

/// Keeps the address as it is now in the history, so that Back returns to
/// it: the next [`write_address`] rewrites a new entry (a job switch is a
/// step a reader may want to undo).
pub fn keep_in_history() {
    let Some(window) = window() else {
        return;
    };
    let url = window.location().href().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Calls `went_to` with the address's query string (with its `?`) whenever
/// the reader goes Back or Forward in the page's history.
pub fn on_history_step(went_to: impl Fn(String) + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(window) = window() else {
        return;
    };
    let stepped = Closure::<dyn FnMut()>::new(move || went_to(current_query()));
    let _ = window.add_event_listener_with_callback("popstate", stepped.as_ref().unchecked_ref());
    stepped.forget(); // lives as long as the page
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
