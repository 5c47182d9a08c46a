//! The KV cache as TensorRT-LLM's PyTorch backend sizes it (the main branch
//! of 2026: `tensorrt_llm/_torch/pyexecutor/_util.py`'s `KvCacheCreator`,
//! `resource_manager.py`'s `KVCacheManager`, `llmapi/llm_args.py`'s
//! `KvCacheConfig`), for models of full or latent attention in every layer:
//! a token's bytes, the budget after its profiling run, the blocks of 32
//! tokens it holds, and how many requests of a length fit at once.

use vram_shared::model::architecture::Architecture;

/// The TensorRT-LLM source whose arithmetic this module reproduces.
pub const TRTLLM_VERSION: &str = "main of 2026";

/// `KvCacheConfig.tokens_per_block`.
pub const TOKENS_PER_BLOCK: u64 = 32;

/// `KvCacheConfig.free_gpu_memory_fraction`.
pub const FREE_GPU_MEMORY_FRACTION: f64 = 0.9;

/// `TorchLlmArgs.max_batch_size`: the requests a step schedules at most.
pub const MAX_BATCH_SIZE: u64 = 2048;

/// Bytes one token of a stage of `layers` attention layers takes on a GPU
/// of a `tp`-wide group (`get_cache_size_per_token`): K and V of
/// `head_dim × kv_heads ÷ TP` values a layer (the product divided, as its
/// estimate divides it), or latent attention's `kv_lora_rank + rope_dim`,
/// whole on every GPU; one byte a value in FP8, two otherwise.
pub fn bytes_per_token(arch: &Architecture, layers: u32, tp: u32, value_bytes: u64) -> u64 {
    let (factor, width) = match arch.mla.is_latent() {
        true => (
            1,
            u64::from(arch.mla.kv_rank) + u64::from(arch.mla.rope_dim),
        ),
        false => (
            2,
            arch.head_dim() * u64::from(arch.kv_heads) / u64::from(tp.max(1)),
        ),
    };
    factor * u64::from(layers.max(1)) * width * value_bytes
}

/// The KV budget after TensorRT-LLM's profiling run (`KvCacheCreator.
/// configure_kv_cache_capacity`): `free_gpu_memory_fraction` of what the
/// run left of the GPU's `total`, its measured `peak` (PyTorch's peak, the
/// memory outside it, the graphs) less the temporary cache it allocated,
/// `temporary_kv`; `None` when nothing is left.
pub fn kv_budget(total: u64, peak: u64, temporary_kv: u64, fraction: f64) -> Option<u64> {
    let headroom = (total + temporary_kv).checked_sub(peak)?;
    let budget = (headroom as f64 * fraction) as u64;
    (budget > 0).then_some(budget)
}

/// Blocks of [`TOKENS_PER_BLOCK`] the budget holds (`calculate_max_num_blocks`).
pub fn blocks(budget: u64, per_token: u64) -> u64 {
    budget / per_token.max(1) / TOKENS_PER_BLOCK
}

/// Requests of `input + output` tokens its default scheduler
/// (`GUARANTEED_NO_EVICT`) admits at once: the blocks over each request's,
/// at most [`MAX_BATCH_SIZE`].
pub fn concurrency(blocks: u64, input: u64, output: u64) -> u64 {
    let per_request = (input + output).div_ceil(TOKENS_PER_BLOCK).max(1);
    (blocks / per_request).min(MAX_BATCH_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Llama 3 8B: 2 × 32 × 128 × 8 values a token, 131,072 bytes in 16
    /// bits (vLLM's and SGLang's figure too), 16,384 at TP 8; DeepSeek-V3's
    /// latent 61 × 576 × 2 = 70,272 at any TP. 40 GiB after a profiling run
    /// holds 10,240 blocks of 32: 40 requests of 8,192 tokens.
    #[wasm_bindgen_test(unsupported = test)]
    fn blocks_of_32_tokens() {
        let llama = model_preset("llama3-8b").unwrap().architecture;
        assert_eq!(bytes_per_token(&llama, 32, 1, 2), 131_072);
        assert_eq!(bytes_per_token(&llama, 32, 8, 2), 16_384);
        assert_eq!(bytes_per_token(&llama, 32, 1, 1), 65_536);
        let v3 = model_preset("deepseek-v3").unwrap().architecture;
        assert_eq!(bytes_per_token(&v3, 61, 8, 2), 70_272);
        let gib = 1u64 << 30;
        let budget = kv_budget(80 * gib, 80 * gib * 5 / 9, 0, 0.9).unwrap();
        assert_eq!(budget, (80.0 * 4.0 / 9.0 * gib as f64 * 0.9) as u64);
        assert_eq!(blocks(40 * gib, 131_072), 10_240);
        assert_eq!(concurrency(10_240, 7_168, 1_024), 40);
        assert_eq!(concurrency(10_240_000, 16, 16), MAX_BATCH_SIZE);
        assert_eq!(kv_budget(80 * gib, 81 * gib, 0, 0.9), None);
    }
}
