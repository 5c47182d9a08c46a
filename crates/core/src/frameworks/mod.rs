//! What the frameworks themselves say and do: DeepSpeed's estimator and
//! communication ([`deepspeed`]), Megatron-LM's start-up estimate
//! ([`megatron`]), Hugging Face's and LitGPT's measured activations ([`hf`],
//! [`litgpt`]), and how a run
//! is placed beyond the GPU: accounting, offload, nodes and buffers
//! ([`runtime`]).

pub mod deepspeed;
pub mod hf;
pub mod litgpt;
pub mod loading;
pub mod megatron;
pub mod runtime;
