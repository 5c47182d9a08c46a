//! The first paint of a lesson link (issue 64): the page's loader imports
//! this module before the page's own WebAssembly under a link of the
//! lesson's fields (`vram_prerender::with_first_paint`). It brings the view
//! written at build time (the default configuration's, hidden under any other
//! link) to the link's figures with [`vram_view::written::patches`] and shows
//! it: the figures and the charts in one paint, after a module of the core,
//! the words and the charts alone (no Leptos). The page then mounts its live
//! view over it as it does over the bare page's (`vram_app::mount`); both come
//! from the same functions, held equal by `crates/prerender/tests/written.rs`.

#![deny(unsafe_code)]

use vram_core::format::Lang;
use vram_view::chart::{ChartKind, HEIGHT_CSS};
use vram_view::written::{lesson_config, patches, Change, Patch, Target};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

/// The written view's width, in CSS pixels: its charts' SVG scales to its box.
pub const SVG_WIDTH: u32 = 720;

/// The performance mark set once the patched view is shown (the loader
/// marks its paint, `vram_prerender::PAINTED_MARK`), on the page's clock.
pub const SHOWN_MARK: &str = "vram-written-shown";

/// The class `<html>` has while the written view is not the link's (`vram_prerender::NOT_THIS_VIEW`).
const NOT_THIS_VIEW: &str = "vram-fresh";
/// The class `<html>` has when the link asks for Chinese (`vram_prerender::CHINESE`).
const CHINESE: &str = "vram-zh";
/// The class this module gives `<html>` once the view shows the link's
/// figures (`vram_prerender::FIRST_PAINTED`): should the page then fail to
/// start, the style sheet says the figures are the link's, not the default's.
const FIRST_PAINTED: &str = "vram-first-painted";

/// Brings the written view to the address's lesson link and shows it.
/// False, and nothing changed, where the address is not a lesson link
/// ([`lesson_config`]): the page draws that link itself.
#[wasm_bindgen]
pub fn paint() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let (Some(document), Ok(search)) = (window.document(), window.location().search()) else {
        return false;
    };
    let Some(root) = document.document_element() else {
        return false;
    };
    let Some(config) = lesson_config(&search) else {
        return false;
    };
    let Ok(report) = config.report() else {
        return false;
    };
    let lang = if root.class_list().contains(CHINESE) {
        Lang::Zh
    } else {
        Lang::En
    };
    let Some(view) = written_view(&document, lang) else {
        return false;
    };
    let t = vram_view::text::of(lang);
    let svg = |kind: ChartKind| {
        vram_view::chart::svg(&report, t, kind, (SVG_WIDTH, HEIGHT_CSS)).unwrap_or_default()
    };
    for patch in patches(t, &config, &report, svg) {
        apply(&view, &patch);
    }
    if config.embed {
        let _ = root.set_attribute("data-embed", "1");
    }
    let _ = root.class_list().add_1(FIRST_PAINTED);
    let _ = root.class_list().remove_1(NOT_THIS_VIEW);
    if let Some(performance) = window.performance() {
        let _ = performance.mark(SHOWN_MARK);
    }
    true
}

/// The written view of `lang` (`main[data-prerendered][data-lang=…]`).
fn written_view(document: &Document, lang: Lang) -> Option<Element> {
    let lang = if lang == Lang::Zh { "zh" } else { "en" };
    document
        .query_selector(&format!("main[data-prerendered][data-lang={lang}]"))
        .ok()
        .flatten()
}

/// `patch` applied in `view`; a target the view has not is skipped.
fn apply(view: &Element, patch: &Patch) {
    let selector = match &patch.target {
        Target::TestId(id) => format!("[data-testid=\"{id}\"]"),
        Target::Control(key) => format!("[name=\"{key}\"]"),
    };
    let Ok(Some(element)) = view.query_selector(&selector) else {
        return;
    };
    match &patch.change {
        Change::Attr(name, Some(value)) => {
            let _ = element.set_attribute(name, value);
        }
        Change::Attr(name, None) => {
            let _ = element.remove_attribute(name);
        }
        Change::Inner(html) => element.set_inner_html(html),
        Change::Text(text) => set_own_text(&element, text),
    }
}

/// `element`'s own text (its text children) set to `text`: the last text
/// child keeps it, the others go; without one, it is appended.
fn set_own_text(element: &Element, text: &str) {
    const TEXT_NODE: u16 = 3;
    let children = element.child_nodes();
    let texts: Vec<web_sys::Node> = (0..children.length())
        .filter_map(|i| children.item(i))
        .filter(|node| node.node_type() == TEXT_NODE)
        .collect();
    match texts.split_last() {
        Some((last, others)) => {
            for node in others {
                let _ = element.remove_child(node);
            }
            last.set_text_content(Some(text));
        }
        None => {
            if let Some(document) = element.owner_document() {
                let _ = element.append_child(&document.create_text_node(text));
            }
        }
    }
}

/// The allocator the page's module uses (`crates/app/src/main.rs`): small.
// SAFETY: built without threads (no `atomics` target feature): every
// allocation and free happens on the one thread.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
#[allow(unsafe_code)]
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };
