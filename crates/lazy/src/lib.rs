//! What the page loads only when it is used, as a WebAssembly module of its
//! own: the search of ranked plans, what would make a configuration fit,
//! Megatron-LM's estimate and the Markdown, CSV and frameworks' exports (the
//! paste box's readers are `crates/reader`'s).
//!
//! The page imports it the first time the plans are opened, an export is
//! copied or Megatron's accounting is chosen (`crates/app/src/share.rs`), so
//! serde_json, the plans' search and their words are not part of the page's
//! first view. It answers in the page's words and with links
//! ([`vram_view::replies`]), which the page shows and decodes as they are:
//! the page links no type of the answers and no decoder for them.

#![forbid(unsafe_code)]

use wasm_bindgen::prelude::wasm_bindgen;

/// The words of the page's language: Chinese when `zh`.
fn lang(zh: bool) -> vram_core::format::Lang {
    if zh {
        vram_core::format::Lang::Zh
    } else {
        vram_core::format::Lang::En
    }
}

/// The configuration of the link whose query is `query`.
fn config_of(query: &str) -> vram_core::Config {
    vram_core::input::link::decode(query).config
}

/// The module's own words in the page's language.
fn words(zh: bool) -> &'static vram_view::text::LazyText {
    vram_view::text::lazy_of(lang(zh))
}

/// Ranks the plans of the configuration whose link is `query` and shows them:
/// the table in `place`, the chart on `canvas`, in Chinese when `zh`, and
/// what applying a plan to `before` (a link, or empty) changed
/// ([`vram_view::plans::render`]).
#[wasm_bindgen]
pub fn render_plans(
    query: &str,
    before: &str,
    zh: bool,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    let before = (!before.is_empty()).then(|| config_of(before));
    vram_view::plans::render(config_of(query), before, lang(zh), place, canvas);
}

/// Finds what would make the configuration whose link is `query` fit and
/// shows it in `place`, in Chinese when `zh`; false (and `place` emptied)
/// when it fits already ([`vram_view::fixes::render`]).
#[wasm_bindgen]
pub fn render_fixes(query: &str, zh: bool, place: &web_sys::Element) -> bool {
    vram_view::fixes::render(config_of(query), lang(zh), place)
}

/// What the ranked plans of the configuration whose link is `query` found,
/// in words (Chinese when `zh`), for the verdict when no strategy fits on its
/// own: empty when no layout fits ([`vram_view::plans::verdict`]).
#[wasm_bindgen]
pub fn plans_verdict(query: &str, zh: bool) -> String {
    let config = config_of(query);
    let ranking = vram_core::plans::rank(&config);
    vram_view::plans::verdict(vram_view::text::of(lang(zh)), words(zh), &ranking, &config)
        .unwrap_or_default()
}

/// What Megatron-LM would print for the configuration whose link is `query`,
/// beside the page's figures, in words (Chinese when `zh`); empty when it
/// has no estimate ([`vram_view::replies::megatron_line`]).
#[wasm_bindgen]
pub fn megatron(query: &str, zh: bool) -> String {
    let config = config_of(query);
    vram_view::replies::megatron_line(words(zh), &config).unwrap_or_default()
}

/// The results of the configuration whose link is `query` as Markdown, in
/// Chinese when `zh`: what they are of, the table with the page's notes under
/// it, and `url`, the link that opens them
/// ([`vram_view::notes::markdown_with_context`]); empty for a link that gives
/// no report.
#[wasm_bindgen]
pub fn markdown(query: &str, url: &str, zh: bool) -> String {
    let config = config_of(query);
    config
        .report()
        .map(|report| {
            vram_view::notes::markdown_with_context(
                vram_view::text::of(lang(zh)),
                &config,
                &report,
                url,
            )
        })
        .unwrap_or_default()
}

/// The results of the configuration whose link is `query` as CSV, every
/// figure unrounded in bytes ([`vram_core::report::export::csv`]); empty for
/// a link that gives no report.
#[wasm_bindgen]
pub fn csv(query: &str) -> String {
    config_of(query)
        .report()
        .map(|report| vram_core::report::export::csv(&report))
        .unwrap_or_default()
}

/// The configuration whose link is `query` as the framework named `kind`
/// writes it ([`vram_launch::export`]), naming `url` in its comment;
/// empty when the framework cannot run it ([`export_refusal`] says why).
#[wasm_bindgen]
pub fn export_text(query: &str, kind: &str, url: &str) -> String {
    let config = config_of(query);
    vram_launch::Target::from_key(kind)
        .and_then(|target| vram_launch::export(&config, target, url).ok())
        .unwrap_or_default()
}

/// Why the framework named `kind` cannot run the configuration whose link
/// is `query`, in Chinese when `zh`; empty when it can.
#[wasm_bindgen]
pub fn export_refusal(query: &str, kind: &str, zh: bool) -> String {
    let config = config_of(query);
    let Some(target) = vram_launch::Target::from_key(kind) else {
        return String::new();
    };
    match vram_launch::export(&config, target, "") {
        Ok(_) => String::new(),
        Err(refusal) => vram_view::launch::refusal(zh, target, refusal),
    }
}

#[cfg(test)]
mod tests {
    /// The exports the page asks for: the lesson's table, in both
    /// languages, with its formula under it; CSV in bytes.
    #[test]
    fn exports_answer_for_the_link_they_are_given() {
        let url = "https://example.org/?stage=1";
        let markdown = super::markdown("stage=1", url, false);
        assert!(
            markdown.contains("| ZeRO-1 | 14 GB | 14 GB | 10.5 GB | 38.5 GB | yes | 3 |"),
            "{markdown}"
        );
        assert!(markdown.contains(
            "ZeRO-1 per GPU, by the lesson's formula: (2 + 2 + 12 ÷ 8) B × 7 × 10⁹ = 38.5 GB.\n"
        ));
        assert!(markdown.ends_with("<https://example.org/?stage=1>. GB = 10⁹ bytes.\n"));
        assert!(super::markdown("stage=1", url, true).contains("| ZeRO-1 | 14 GB |"));
        let csv = super::csv("stage=1");
        assert!(csv.contains("\r\nzero1,14000000000,14000000000,10500000000,0,0,38500000000,true,"));
        assert_eq!(csv.lines().count(), 5);
    }

    #[test]
    fn megatrons_estimate_is_empty_without_one() {
        assert_eq!(super::megatron("", false), "");
    }
}
