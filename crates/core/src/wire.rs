//! The messages between the page and its lazily loaded module (`crates/lazy`):
//! serde types in postcard's format.
//!
//! Why postcard: a compact binary format whose decoder is a few kilobytes of
//! WebAssembly, that writes a float as its eight bytes (so neither side links
//! Rust's float printer or parser, which the page's size budget keeps out),
//! and that needs no JavaScript glue per field, as serde-wasm-bindgen would.
//! The page decodes what the module encodes with the same types, so the two
//! cannot drift apart.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// `value` as a message.
pub fn to_message<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising into a growing vector fails only for types serde cannot
    // describe (a map with non-string keys in some formats): none are sent.
    postcard::to_allocvec(value).unwrap_or_default()
}

/// The value a message holds, or `None` for one it does not.
pub fn from_message<T: DeserializeOwned>(message: &[u8]) -> Option<T> {
    postcard::from_bytes(message).ok()
}
