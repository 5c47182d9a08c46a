//! The KV cache as SGLang sizes it (0.5.23: `srt/mem_cache/
//! kv_cache_configurator.py`, `srt/model_executor/pool_configurator.py`,
//! `srt/arg_groups/memory_hook.py`), for models of full or latent attention
//! in every layer: its token pool (and a hybrid sliding-window model's two),
//! the defaults it picks for `mem_fraction_static`, `chunked_prefill_size`
//! and the decode CUDA graphs' batch, and the requests it runs at once.
//! Linear-attention (Mamba) pools are the rest of issue 44.

use vram_shared::model::architecture::Architecture;

/// The SGLang release whose arithmetic this module reproduces.
pub const SGLANG_VERSION: &str = "0.5.23";

/// Bytes one token takes in the KV pool of a stage of `layers` layers on a
/// GPU of a `tp`-wide attention group, values `value_bytes` wide
/// (`_compute_cell_size`): `max(1, kv_heads ÷ TP) × 2 × head_dim × layers`
/// values, or latent attention's `(kv_lora_rank + rope_dim) × layers`, whole
/// on every GPU.
pub fn cell_bytes(arch: &Architecture, layers: u32, tp: u32, value_bytes: u64) -> u64 {
    let per_layer = match arch.mla.is_latent() {
        true => u64::from(arch.mla.kv_rank) + u64::from(arch.mla.rope_dim),
        false => (u64::from(arch.kv_heads) / u64::from(tp.max(1))).max(1) * 2 * arch.head_dim(),
    };
    per_layer * u64::from(layers) * value_bytes
}

/// `chunked_prefill_size` and the decode CUDA graphs' largest batch SGLang
/// picks for a GPU of `gpu_mib` MiB (as `nvidia-smi` reports it) at TP `tp`.
pub fn default_chunk_and_graph_batch(gpu_mib: u64, tp: u32) -> (u32, u32) {
    let wide = tp >= 4;
    match gpu_mib {
        0..20_480 => (2048, 8),
        20_480..35_840 => (4096, if wide { 160 } else { 48 }),
        35_840..61_440 => (4096, if wide { 160 } else { 32 }),
        61_440..163_840 => (8192, if wide { 512 } else { 256 }),
        _ => (16_384, 512),
    }
}

/// The prefill CUDA graphs' batch sizes up to `largest` tokens: 4 to 32 by
/// 4, 48 to 256 by 16, 288 to 512 by 32, 576 to 1,024 by 64, 1,280 to
/// 4,096 by 256, then by 512.
fn prefill_graph_sizes(largest: u32) -> usize {
    // (first, last, step) of each run; the last runs on by 512.
    const RUNS: [(u32, u32, u32); 6] = [
        (4, 32, 4),
        (48, 256, 16),
        (288, 512, 32),
        (576, 1024, 64),
        (1280, 4096, 256),
        (4608, u32::MAX, 512),
    ];
    RUNS.iter()
        .map(|&(first, last, step)| match largest < first {
            true => 0,
            false => ((largest.min(last) - first) / step + 1) as usize,
        })
        .sum()
}

/// `mem_fraction_static` as SGLang picks it for a GPU of `gpu_mib` MiB, TP
/// `tp`, PP `pp`, a language model (`handle_gpu_memory_settings`, without
/// data-parallel attention or DeepEP): reserve 512 MiB, 1.5 × the prefill
/// chunk, TP × PP ÷ 8 GiB, 2 MiB a decode graph batch and 8 MiB a prefill
/// graph (1,536 MiB for latent attention), at least 10 GiB above 60 GiB,
/// and keep the rest's share, rounded to three decimals.
pub fn default_mem_fraction_static(gpu_mib: u64, tp: u32, pp: u32, latent: bool) -> f64 {
    let (chunk, graph_batch) = default_chunk_and_graph_batch(gpu_mib, tp);
    let activations = 1.5 * f64::from(chunk.max(2048));
    let prefill_graphs = match latent {
        true => 1536.0,
        false => 8.0 * prefill_graph_sizes(chunk) as f64,
    };
    let graphs = 2.0 * f64::from(graph_batch) + prefill_graphs;
    let mut reserved = 512.0 + activations + f64::from(tp) * f64::from(pp) / 8.0 * 1024.0 + graphs;
    if gpu_mib > 61_440 {
        reserved = reserved.max(10_240.0);
    }
    let gpu = gpu_mib as f64;
    ((gpu - reserved) / gpu * 1000.0).round() / 1000.0
}

/// Bytes left for the KV pool (`_profile_available_bytes`): the free
/// memory after the weights loaded less `1 − mem_fraction_static` of the
/// free memory before they did; `None` when nothing is left.
pub fn pool_bytes(
    free_before_load: u64,
    free_after_load: u64,
    mem_fraction_static: f64,
) -> Option<u64> {
    let slack = free_before_load as f64 * (1.0 - mem_fraction_static);
    let rest = free_after_load as f64 - slack;
    (rest > 0.0).then_some(rest as u64)
}

/// `max_total_num_tokens`: the pool's bytes over a token's, floored to whole
/// pages (`page_size` 1 by default; FlashMLA's 64).
pub fn max_total_tokens(pool: u64, cell: u64, page: u64) -> u64 {
    let page = page.max(1);
    pool / cell.max(1) / page * page
}

/// Whether SGLang gives `arch` its hybrid sliding-window pool
/// (`is_hybrid_swa_model`: gpt-oss, Llama 4 and newer families): local
/// attention in some layers and global in the others, but not Gemma 2 and
/// 3, whose override turns the pool off (`model_overrides/gemma2_gemma3.py`;
/// told apart here by their four norms a layer) and which cache every layer
/// whole; nor a model windowed in every layer (Mistral 7B v0.1), which is
/// no hybrid and is cached whole too (its pool had no full layer to count
/// tokens by: 0 tokens, `--max-running-requests 0`).
pub fn has_window_pool(arch: &Architecture) -> bool {
    arch.local.window > 0 && arch.local.global_every > 0 && !arch.sandwich_norms
}

/// The full and window token pools of a hybrid sliding-window model
/// (`HybridSWAPoolConfigurator`): a token costs its bytes in each of the
/// `full_layers` and `ratio` (`swa_full_tokens_ratio`, 0.8) of them in
/// each of the `window_layers`; the pool's bytes over that give the full
/// layers' tokens (floored to pages) and `ratio` of them the window
/// layers'. `max_total_num_tokens` is the first.
pub fn window_pools(
    token_bytes: u64,
    full_layers: u32,
    window_layers: u32,
    pool: u64,
    page: u64,
    ratio: f64,
) -> (u64, u64) {
    let page = page.max(1);
    let (full, window) = (f64::from(full_layers), f64::from(window_layers));
    let token = token_bytes as f64;
    match full_layers {
        0 => {
            let tokens = (pool as f64 / (token * window)).floor() as u64;
            (0, tokens / page * page)
        }
        _ => {
            let cell = token * full + ratio * token * window;
            let tokens = (pool as f64 / cell).floor() as u64;
            let full_tokens = tokens / page * page;
            (
                full_tokens,
                (full_tokens as f64 * ratio) as u64 / page * page,
            )
        }
    }
}

/// The requests SGLang runs at once when none is typed
/// (`resolve_max_num_reqs`): `tokens ÷ context × 512` within 2,048 and
/// 4,096, at most half the tokens.
pub fn max_running_requests(total_tokens: u64, context_len: u32) -> u64 {
    let estimate = (total_tokens as f64 / f64::from(context_len.max(1)) * 512.0) as u64;
    estimate.clamp(2048, 4096).min(total_tokens / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// gpt-oss-120b's 18 global and 18 windowed layers (8 KV heads of 64:
    /// 2,048 bytes a token a layer): 40 GiB hold ⌊40 GiB ÷ (18 × 2,048 +
    /// 0.8 × 18 × 2,048)⌋ full tokens and 0.8 of them windowed; Gemma 3
    /// caches every layer whole.
    #[wasm_bindgen_test(unsupported = test)]
    fn gpt_oss_splits_its_pool_by_window() {
        let oss = model_preset("gpt-oss-120b").unwrap().architecture;
        assert!(has_window_pool(&oss));
        assert!(!has_window_pool(
            &model_preset("gemma-3-27b").unwrap().architecture
        ));
        let token = cell_bytes(&oss, 1, 1, 2);
        assert_eq!(token, 2048);
        let pool = 40 * (1u64 << 30);
        let (full, window) = window_pools(token, 18, 18, pool, 1, 0.8);
        let expected = (pool as f64 / (2048.0 * 18.0 * 1.8)).floor() as u64;
        assert_eq!(full, expected);
        assert_eq!(window, (expected as f64 * 0.8) as u64);
        // Pages of 64 floor both.
        let (full, window) = window_pools(token, 18, 18, pool, 64, 0.8);
        assert_eq!((full % 64, window % 64), (0, 0));
    }

    /// An H100's 81,559 MiB at TP 1: a chunk of 8,192, graphs up to 256,
    /// 58 prefill graphs; 512 + 12,288 + 128 + 512 + 464 = 13,904 MiB
    /// reserved, 0.830 kept.
    #[wasm_bindgen_test(unsupported = test)]
    fn an_h100_keeps_83_percent() {
        assert_eq!(default_chunk_and_graph_batch(81_559, 1), (8192, 256));
        assert_eq!(prefill_graph_sizes(8192), 58);
        assert_eq!(default_mem_fraction_static(81_559, 1, 1, false), 0.83);
        // An H200 (143,771 MiB) at TP 8 keeps more of its memory.
        assert!(default_mem_fraction_static(143_771, 8, 1, false) > 0.85);
    }

    /// Llama 3 8B's cell is 131,072 bytes a token in 16 bits; DeepSeek-V3's
    /// latent (512 + 64) × 61 × 2 = 70,272 at any TP.
    #[wasm_bindgen_test(unsupported = test)]
    fn cells_as_sglang_counts_them() {
        let llama = model_preset("llama3-8b").unwrap().architecture;
        assert_eq!(cell_bytes(&llama, 32, 1, 2), 131_072);
        assert_eq!(cell_bytes(&llama, 32, 8, 2), 16_384);
        let v3 = model_preset("deepseek-v3").unwrap().architecture;
        assert_eq!(cell_bytes(&v3, 61, 8, 2), 70_272);
        // 60 GiB left at 131,072 a token: 491,520 tokens, in pages of 64 too.
        let pool = 60 * (1u64 << 30);
        assert_eq!(max_total_tokens(pool, 131_072, 1), 491_520);
        assert_eq!(max_total_tokens(pool, 131_072, 64), 491_520);
        assert_eq!(max_running_requests(491_520, 8192), 4096);
        assert_eq!(max_running_requests(491_520, 131_072), 2048);
        assert_eq!(max_running_requests(3000, 1024), 1500);
        // 80 GiB free before the weights, 64 after, at 0.83: 64 − 13.6 GiB.
        let gib = 1u64 << 30;
        let left = pool_bytes(80 * gib, 64 * gib, 0.83).unwrap();
        assert_eq!(
            left,
            (64.0 * gib as f64 - 80.0 * gib as f64 * (1.0 - 0.83)) as u64
        );
        assert_eq!(pool_bytes(80 * gib, 10 * gib, 0.83), None);
    }
}
