//! Serving (`job=serve`): what an inference engine keeps on each GPU and
//! how fast it serves.
//!
//! The room ARCHITECTURE.md plans for the second job: the KV cache as vLLM's
//! v1 engine sizes it ([`kv_cache`]): each layer's page, the groups its
//! hybrid allocator forms, the blocks a budget holds, the concurrency it
//! logs and the longest `max_model_len` that fits; the weights as each
//! checkpoint format stores them ([`weights`]); one deployment's budget on
//! its most loaded GPU ([`deployment`]); SGLang's token pool and defaults
//! ([`sglang`]); TensorRT-LLM's blocks ([`trtllm`]); what the user asks
//! ([`options`]); the deployment evaluated whole ([`report`]), its speed
//! ([`speed`]) and the layouts ranked ([`plans`]). It reads the shared
//! model and GPUs (`vram-shared`) and nothing of training: its crate
//! depends on no other, so the build forbids it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod deployment;
pub mod kv_cache;
pub mod options;
pub mod plans;
pub mod report;
pub mod sglang;
pub mod speed;
pub mod trtllm;
pub mod weights;

// Under `cargo test --target wasm32-unknown-unknown` the unit tests run in headless Chromium.
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
