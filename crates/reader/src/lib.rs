//! The page's paste box, as a WebAssembly module of its own: a Hugging Face
//! `config.json`, a launch script or configuration of any framework the
//! page exports (`vram_launch::import`), or a run's log
//! (`vram_launch::log`), read into the configuration whose link the page
//! gives, answered in the page's words ([`vram_view::replies::ReadReply`]).
//!
//! The page imports it the first time a text is read
//! (`crates/app/src/lazy.rs`), so the readers' parsers (TOML, YAML, Python
//! literals, logs) are no part of the first view nor of the plans' module.

#![forbid(unsafe_code)]

use wasm_bindgen::prelude::wasm_bindgen;

/// Reads `text` into the configuration whose link is `query`, and answers,
/// in Chinese when `zh`, with the new configuration's link and what was
/// read, or why it could not be ([`vram_view::replies::ReadReply`]'s
/// message).
#[wasm_bindgen]
pub fn read_config(text: &str, query: &str, zh: bool) -> String {
    let lang = if zh {
        vram_core::format::Lang::Zh
    } else {
        vram_core::format::Lang::En
    };
    vram_view::replies::ReadReply::of(
        vram_view::text::of(lang),
        vram_view::text::lazy_of(lang),
        text,
        query,
    )
    .to_message()
}

#[cfg(test)]
mod tests {
    /// The reader answers in the page's language: a `config.json`'s
    /// architecture as a link, what is not one refused in words.
    #[test]
    fn the_reader_answers_in_the_pages_language() {
        assert_eq!(super::read_config("[1]", "", true), "-不是 JSON 对象。");
        assert!(super::read_config(
            "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \
            \"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \
            \"num_key_value_heads\": 8, \"vocab_size\": 32000}",
            "gpus=16",
            false
        )
        .starts_with('+'));
    }
}
