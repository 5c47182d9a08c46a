//! What the page shows if the program ever panics: a readable message with a
//! reset link, instead of a page that silently stops responding.
//!
//! A panic in WebAssembly stops the whole program, so the message is written
//! with plain DOM calls, as text (never as HTML), by the panic hook itself.

use std::panic::PanicHookInfo;

use vram_core::format::Lang;

use vram_view::text;

/// Installs the panic hook: the panic's message and location go to the console
/// and into a panel above the calculator, which stops responding.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        let detail = info.to_string();
        web_sys::console::error_1(&detail.as_str().into());
        show_crash_message(&detail);
    }));
}

/// Shows the crash message, with `detail` as text, and hides the calculator.
/// Does nothing where there is no document.
pub fn show_crash_message(detail: &str) {
    let Some(document) = crate::page::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    // The page's language, as the page last set it on <html>.
    let lang = document
        .document_element()
        .and_then(|html| html.get_attribute("lang"));
    let t = text::of(if lang.is_some_and(|l| l.starts_with("zh")) {
        Lang::Zh
    } else {
        Lang::En
    });
    let element = |tag: &str, content: &str| -> Option<web_sys::Element> {
        let node = document.create_element(tag).ok()?;
        node.set_text_content(Some(content));
        Some(node)
    };
    let build = || -> Option<web_sys::Element> {
        let panel = document.create_element("div").ok()?;
        panel.set_class_name("crash");
        panel.set_attribute("role", "alert").ok()?;
        panel.set_attribute("data-testid", "crash").ok()?;
        let child = element("h2", t.crash_heading)?;
        panel.append_child(&child).ok()?;
        let child = element("p", t.crash_explanation)?;
        panel.append_child(&child).ok()?;
        // Reset: the page's own path without the query, the lesson's example.
        let reset = element("a", t.crash_reset)?;
        let path = crate::page::window()
            .and_then(|w| w.location().pathname().ok())
            .unwrap_or_else(|| "./".into());
        reset.set_attribute("href", &path).ok()?;
        reset.set_attribute("data-testid", "crash-reset").ok()?;
        panel.append_child(&reset).ok()?;
        let child = element("pre", detail)?;
        panel.append_child(&child).ok()?;
        Some(panel)
    };
    if let Some(panel) = build() {
        let _ = body.set_attribute("data-crashed", "true");
        let _ = body.prepend_with_node_1(&panel);
    }
}
