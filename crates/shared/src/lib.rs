//! The parts every job of the calculator shares: units (`Bytes`,
//! `ParamCount`) and their display, decimal text, the GPUs, the model (its
//! shape, exact parameter count, presets and `config.json` reader), how
//! quantised weights are stored, and what a GPU process holds beside its
//! tensors (the CUDA context, NCCL, cuBLAS, the allocator's slack).
//!
//! The bottom floor of the workspace: it depends on no other crate of it,
//! so no job can be reached from here (the build, not a test, forbids it).
//! Training and RL (`vram-core`) and serving (`vram-serve`) read these
//! parts; none re-derives them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod decimal;
pub mod format;
pub mod gpu;
pub mod layout;
pub mod model;
pub mod process;
pub mod storage;
pub mod units;

// Under `cargo test --target wasm32-unknown-unknown` the unit tests run in headless Chromium.
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
