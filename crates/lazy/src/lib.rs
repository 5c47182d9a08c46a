//! What the page loads only when it is used, as a WebAssembly module of its
//! own: the pasted `config.json` reader and the search of ranked plans.
//!
//! The page imports it the first time a `config.json` is read or the plans
//! are opened (`crates/app/src/share.rs`), so serde_json and the plans'
//! search are not part of the page's first view. It answers with the core's
//! own types as messages ([`vram_core::wire`]), which the page reads back
//! with the same types.

#![forbid(unsafe_code)]

use wasm_bindgen::prelude::wasm_bindgen;

/// Reads `text`, a `config.json`, and answers what it read or why it could
/// not: a `Result<HubConfig, HubConfigError>` as a message.
#[wasm_bindgen]
pub fn read_config(text: &str) -> Vec<u8> {
    vram_core::wire::to_message(&vram_core::model::hub::read_config(text))
}

/// The ranked plans of the configuration whose link is `query` (all of them,
/// fastest fitting first): a `Vec<Plan>` as a message.
#[wasm_bindgen]
pub fn plans(query: &str) -> Vec<u8> {
    let config = vram_core::input::link::decode(query).config;
    vram_core::wire::to_message(&vram_core::time::plans::plans(&config))
}

/// Ranks the plans of the configuration whose link is `query` and shows them:
/// the table in `place`, the chart on `canvas`, in Chinese when `zh`
/// ([`vram_view::plans::render`]).
#[wasm_bindgen]
pub fn render_plans(
    query: &str,
    zh: bool,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    vram_view::plans::render(query, zh, place, canvas);
}

/// What the ranked plans of the configuration whose link is `query` found,
/// in words (Chinese when `zh`), for the verdict when no strategy fits on its
/// own: empty when no layout fits ([`vram_view::plans::verdict`]).
#[wasm_bindgen]
pub fn plans_verdict(query: &str, zh: bool) -> String {
    let config = vram_core::input::link::decode(query).config;
    let lang = if zh {
        vram_core::format::Lang::Zh
    } else {
        vram_core::format::Lang::En
    };
    let (t, w) = (vram_view::text::of(lang), vram_view::text::plans_of(lang));
    vram_view::plans::verdict(t, w, &vram_core::time::plans::plans(&config)).unwrap_or_default()
}

/// What Megatron-LM would print for the configuration whose link is
/// `query` ([`vram_core::Config::megatron_report`]): an
/// `Option<MegatronReport>` as a message.
#[wasm_bindgen]
pub fn megatron(query: &str) -> Vec<u8> {
    let config = vram_core::input::link::decode(query).config;
    vram_core::wire::to_message(&config.megatron_report())
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_answers_with_the_cores_reply() {
        let reply = super::read_config("{\"model_type\": \"gemma2\"}");
        type Reply =
            Result<vram_core::model::hub::HubConfig, vram_core::model::hub::HubConfigError>;
        assert_eq!(
            vram_core::wire::from_message::<Reply>(&reply),
            Some(Err(
                vram_core::model::hub::HubConfigError::UnknownModelType("gemma2".into())
            ))
        );
    }

    /// Megatron-LM's estimate, as the page reads it back, is the core's.
    #[test]
    fn megatrons_estimate_reads_back_exactly() {
        let query = "model=llama2-7b&acct=megatron&tp=2";
        let config = vram_core::input::link::decode(query).config;
        let expected = config.megatron_report();
        assert!(expected.is_some());
        type Reply = Option<vram_core::report::MegatronReport>;
        let message = super::megatron(query);
        assert_eq!(
            vram_core::wire::from_message::<Reply>(&message),
            Some(expected)
        );
    }

    /// The plans of a link, as the page reads them back, are the core's.
    #[test]
    fn the_plans_of_a_link_read_back_exactly() {
        let query = "model=llama2-70b&gpu=a100-80gb&gpus=8&global_batch=64";
        let config = vram_core::input::link::decode(query).config;
        let expected = vram_core::time::plans::plans(&config);
        assert!(!expected.is_empty());
        assert_eq!(
            vram_core::wire::from_message::<Vec<vram_core::time::plans::Plan>>(&super::plans(
                query
            )),
            Some(expected)
        );
    }
}
