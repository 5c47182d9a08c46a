//! What is trained: a transformer's architecture, its exact parameter count and
//! the presets of published models ([`architecture`]), and a Hugging Face
//! `config.json` read into one ([`hub`]).

pub mod architecture;
pub mod hub;
