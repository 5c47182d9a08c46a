//! The pasted `config.json` reader, as a WebAssembly module of its own.
//!
//! The page loads it the first time a `config.json` is read (see
//! `crates/app/src/app.rs`, `PasteConfig`), so serde_json and the reader are
//! not part of the page's first view. It answers with
//! [`vram_core::hub::encode_reply`]'s query string, which the page reads with
//! [`vram_core::hub::decode_reply`].

#![forbid(unsafe_code)]

use wasm_bindgen::prelude::wasm_bindgen;

/// Reads `text`, a `config.json`, and answers what it read or why it could not.
#[wasm_bindgen]
pub fn read(text: &str) -> String {
    vram_core::hub::encode_reply(&vram_core::hub::read_config(text))
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_answers_with_the_cores_reply() {
        let reply = super::read("{\"model_type\": \"gemma2\"}");
        assert_eq!(
            vram_core::hub::decode_reply(&reply),
            Some(Err(vram_core::hub::HubConfigError::UnknownModelType(
                "gemma2".into()
            )))
        );
    }
}
