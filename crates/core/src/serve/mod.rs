//! Serving (issue 44, begun): what an inference engine keeps on each GPU.
//!
//! The room ARCHITECTURE.md plans for the second job. Today it holds the
//! KV cache as vLLM's v1 engine sizes it ([`kv_cache`]): each layer's page,
//! the groups its hybrid allocator forms, the blocks a budget holds, the
//! concurrency it logs and the longest `max_model_len` that fits; the
//! weights as each checkpoint format stores them ([`weights`]); one
//! deployment's figures on its most loaded GPU ([`deployment`]); SGLang's
//! token pool and defaults ([`sglang`]); TensorRT-LLM's blocks
//! ([`trtllm`]). It reads the shared model ([`crate::model`]) and nothing
//! of training; the page, the link's `job=serve` and the CLI come with the
//! rest of the issue.

pub mod deployment;
pub mod kv_cache;
pub mod sglang;
pub mod trtllm;
pub mod weights;
