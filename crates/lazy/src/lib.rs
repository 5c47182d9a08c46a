//! What the page loads only when it is used, as a WebAssembly module of its
//! own: the pasted `config.json` reader and the search of ranked plans.
//!
//! The page imports it the first time a `config.json` is read or the plans
//! are opened (`crates/app/src/share.rs`), so serde_json and the plans'
//! search are not part of the page's first view. It answers in query strings:
//! [`vram_core::model::hub::encode_reply`] for a reading, which the page reads with
//! [`vram_core::model::hub::decode_reply`], and [`vram_core::time::plans::encode_plans`]
//! for the plans of a link's configuration.

#![forbid(unsafe_code)]

use wasm_bindgen::prelude::wasm_bindgen;

/// Reads `text`, a `config.json`, and answers what it read or why it could not.
#[wasm_bindgen]
pub fn read_config(text: &str) -> String {
    vram_core::model::hub::encode_reply(&vram_core::model::hub::read_config(text))
}

/// The ranked plans of the configuration whose link is `query` (all of them,
/// fastest fitting first).
#[wasm_bindgen]
pub fn plans(query: &str) -> String {
    let config = vram_core::input::link::decode(query).config;
    vram_core::time::plans::encode_plans(&vram_core::time::plans::plans(&config))
}

/// Ranks the plans of the configuration whose link is `query` and shows them:
/// the table in `place`, the chart on `canvas`, in Chinese when `zh`
/// ([`vram_app::plans::render`]).
#[wasm_bindgen]
pub fn render_plans(
    query: &str,
    zh: bool,
    place: &web_sys::Element,
    canvas: &web_sys::HtmlCanvasElement,
) {
    vram_app::plans::render(query, zh, place, canvas);
}

/// What Megatron-LM would print for the configuration whose link is
/// `query` ([`vram_core::Config::megatron_report`], encoded), or nothing.
#[wasm_bindgen]
pub fn megatron(query: &str) -> String {
    vram_core::input::link::decode(query)
        .config
        .megatron_report()
        .map(|m| m.encode())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_answers_with_the_cores_reply() {
        let reply = super::read_config("{\"model_type\": \"gemma2\"}");
        assert_eq!(
            vram_core::model::hub::decode_reply(&reply),
            Some(Err(
                vram_core::model::hub::HubConfigError::UnknownModelType("gemma2".into())
            ))
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
            vram_core::time::plans::decode_plans(&super::plans(query)),
            expected
        );
    }
}
