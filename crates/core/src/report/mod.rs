//! What is shown: numbers and units for people ([`format`]) and the exports
//! (Markdown and CSV, [`export`]).

pub mod export;
pub mod format;
