//! What is trained: a transformer's architecture ([`architecture`]), its exact
//! parameter count ([`count`]), the presets of published models ([`presets`]),
//! and a Hugging Face `config.json` read into one ([`hub`]).

pub mod architecture;
pub mod count;
pub mod hub;
pub mod presets;
