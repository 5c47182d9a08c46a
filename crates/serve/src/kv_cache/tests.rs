//! vLLM's KV cache arithmetic on published models, each figure worked by hand
//! from `kv_cache_interface.py` and `kv_cache_utils.py` (0.19.1–0.20.0).

use super::*;
use vram_shared::model::presets::model_preset;
use wasm_bindgen_test::wasm_bindgen_test;

/// The release these figures were worked for.
const OLD: VllmRelease = VllmRelease::V0_20_0;

fn arch(id: &str) -> Architecture {
    model_preset(id).unwrap().architecture
}

/// The layout of every layer of `id` on one GPU of TP `tp`, 16-bit values,
/// serving 262,144 tokens.
fn layout(id: &str, tp: u32, block: u32) -> KvLayout {
    let a = arch(id);
    KvLayout::of(&layer_specs(&a, 0..a.layers, tp, 2, 2, block, 262_144, OLD))
}

/// A hybrid layout's groups, layers per group and page.
fn hybrid(kv: &KvLayout) -> (&[Group], u32, u64) {
    let KvLayout::Hybrid {
        groups,
        group_size,
        page_bytes,
    } = kv
    else {
        panic!("{kv:?}")
    };
    (groups, *group_size, *page_bytes)
}

use vram_shared::units::GIB;

/// Llama 3 8B: 8 KV heads of 128, K and V in 16 bits: 4,096 bytes a token
/// and layer, a page of 16 tokens 65,536; 32 layers: 128 KiB a token, so
/// 1 GiB holds 8,192 tokens, one sequence of 8,192 or 2 of 4,096.
#[wasm_bindgen_test(unsupported = test)]
fn llama3_8b_keeps_128_kib_a_token() {
    let a = arch("llama3-8b");
    assert_eq!(attention_bytes_per_token(&a, 1, 2), 4096);
    let kv = layout("llama3-8b", 1, 16);
    let KvLayout::Uniform(specs) = &kv else {
        panic!("{kv:?}")
    };
    assert_eq!((specs.len(), specs[0].page_bytes), (32, 65_536));
    let blocks = kv.num_blocks(GIB);
    assert_eq!(blocks, 512);
    assert_eq!(kv.kv_tokens(blocks, 8192, 8192, OLD), 8192);
    assert_eq!(kv.max_concurrency(blocks, 8192, 8192, OLD), 1.0);
    assert_eq!(kv.max_concurrency(blocks, 4096, 8192, OLD), 2.0);
    assert_eq!(kv.bytes_needed(8192, 8192, OLD), GIB);
    assert_eq!(kv.max_model_len_fits(GIB, 131_072, 8192, OLD), 8192);
    // A byte short of a whole block of every layer: one block fewer.
    assert_eq!(kv.max_model_len_fits(GIB - 1, 131_072, 8192, OLD), 8176);
    // FP8 values halve it; TP 8 leaves one head a GPU, TP 16 replicates it.
    assert_eq!(attention_bytes_per_token(&a, 1, 1), 2048);
    assert_eq!(attention_bytes_per_token(&a, 8, 2), 512);
    assert_eq!(attention_bytes_per_token(&a, 16, 2), 512);
}

/// DeepSeek-V3's latent attention caches one latent of 512 + 64 values a
/// token, whole on every GPU whatever the TP: 1,152 bytes in 16 bits.
/// FlashMLA takes 64-token blocks for FP8 on Hopper; Blackwell's
/// FlashInfer-MLA 32.
#[wasm_bindgen_test(unsupported = test)]
fn latent_attention_caches_one_latent_a_token() {
    let v3 = arch("deepseek-v3");
    assert_eq!(attention_bytes_per_token(&v3, 1, 2), 1152);
    assert_eq!(attention_bytes_per_token(&v3, 8, 2), 1152);
    assert_eq!(default_block_size(&v3, 2, 90, OLD), 16);
    assert_eq!(default_block_size(&v3, 1, 90, OLD), 64);
    assert_eq!(default_block_size(&v3, 2, 100, OLD), 32);
    assert_eq!(default_block_size(&arch("llama3-8b"), 1, 90, OLD), 16);
    let kv = layout("deepseek-v3", 8, 16);
    assert_eq!(kv.num_blocks(61 * 18_432 * 1000), 1000);
}

/// Gemma 3 27B: 52 sliding-window layers (1,024 tokens) and 10 global.
/// The groups are of 10: the global layers' one and 6 of the window's (8
/// padding layers). At 131,072 tokens with 8,192 a step a sequence takes
/// 8,192 global blocks and 6 × (⌈9,215 ÷ 16⌉ + 1) = 3,462 windowed: 11,654.
#[wasm_bindgen_test(unsupported = test)]
fn gemma3_groups_its_window_layers_by_ten() {
    let kv = layout("gemma-3-27b", 1, 16);
    let (groups, group_size, page_bytes) = hybrid(&kv);
    // 16 KV heads of 128 in 16 bits, K and V: 8,192 bytes a token.
    assert_eq!((group_size, page_bytes), (10, 16 * 8192));
    assert_eq!(groups.len(), 7);
    assert_eq!(groups[0].spec.kind, LayerKind::SlidingWindow(1024));
    assert_eq!(groups.iter().map(|g| g.layers).sum::<u32>(), 62);
    assert_eq!(
        kv.blocks_per_sequence(131_072, 8192, OLD),
        8192 + 6 * (576 + 1)
    );
    assert_eq!(kv.num_blocks(131_072 * 10 * 100), 100);
    // Seven groups share the blocks: 100 ÷ 7 × 16 tokens logged.
    assert_eq!(kv.kv_tokens(100, 131_072, 8192, OLD), 14 * 16);
    // vLLM's check counts the padding layers: 10 × page × blocks.
    assert_eq!(kv.bytes_needed(131_072, 8192, OLD), 10 * 131_072 * 11_654);
}

/// gpt-oss-120b: 18 layers with a 128-token window and 18 global, two
/// groups of 18.
#[wasm_bindgen_test(unsupported = test)]
fn gpt_oss_pairs_its_window_and_global_layers() {
    let kv = layout("gpt-oss-120b", 1, 16);
    let (groups, group_size, _) = hybrid(&kv);
    assert_eq!((group_size, groups.len()), (18, 2));
    // 8 KV heads of 64: 2,048 bytes a token a layer.
    assert_eq!(groups[0].spec.page_bytes, 16 * 2048);
    // The window's group: ⌈(127 + 2,048) ÷ 16⌉ + 1 = 137 blocks.
    assert_eq!(kv.blocks_per_sequence(32_768, 2048, OLD), 2048 + 137);
}

/// Qwen3-Next 80B: a Gated DeltaNet layer's state, (3 × (2 × 16 × 128 +
/// 32 × 128) + 32 × 128 × 128) × 2 = 1,097,728 bytes, fills a block of 544
/// attention tokens (2 KV heads of 256: 2,048 bytes a token), 1,114,112
/// bytes; 36 linear layers in 3 groups beside the 12 full ones: a sequence
/// needs ⌈L ÷ 544⌉ + 3 blocks.
#[wasm_bindgen_test(unsupported = test)]
fn qwen3_next_fills_a_block_with_a_state() {
    let a = arch("qwen3-next-80b-a3b");
    assert_eq!(linear_state_bytes(&a, 1, 2), 1_097_728);
    assert_eq!(attention_bytes_per_token(&a, 1, 2), 2048);
    let kv = layout("qwen3-next-80b-a3b", 1, 16);
    let (groups, group_size, page_bytes) = hybrid(&kv);
    assert_eq!((group_size, page_bytes), (12, 1_114_112));
    assert_eq!(groups.len(), 4);
    assert!(groups.iter().all(|g| g.layers == 12));
    // A state's block is the whole sequence (`mamba_block_size` =
    // `max_model_len` without prefix caching); the attention's 544 tokens.
    let blocks: Vec<u32> = groups.iter().map(|g| g.spec.block_size).collect();
    assert_eq!(blocks, [262_144, 262_144, 262_144, 544]);
    assert_eq!(
        kv.blocks_per_sequence(262_144, 8192, OLD),
        262_144_u64.div_ceil(544) + 3
    );
}

/// A typed `--block-size 64` aligns Qwen3-Next's attention block to 64, not
/// 16 (`_align_hybrid_block_size`): 64 × ⌈536 ÷ 64⌉ = 576 tokens, not 544.
/// Serving fewer tokens than a block, the state's block (`max_model_len`)
/// is the smallest the "GPU KV cache size" counts in.
#[wasm_bindgen_test(unsupported = test)]
fn qwen3_next_aligns_to_a_typed_block_size() {
    let a = arch("qwen3-next-80b-a3b");
    let specs = layer_specs(&a, 0..a.layers, 1, 2, 2, 64, 8192, OLD);
    assert_eq!(specs[3].block_size, 576);
    assert_eq!(specs[3].page_bytes, 576 * 2048);
    assert_eq!(specs[0].page_bytes, 576 * 2048);
    let kv = KvLayout::of(&layer_specs(&a, 0..a.layers, 1, 2, 2, 16, 512, OLD));
    assert_eq!(kv.kv_tokens(400, 512, 8192, OLD), 100 * 512);
}

/// The budget as vLLM 0.20.0 forms it: 90 % of an H100's 81,559 MiB less
/// 16.06 GB of Llama 3 8B's weights, a 2 GiB activation peak, 0.5 GiB outside
/// PyTorch and 1 GiB of CUDA graphs; at 15 % nothing is left for the cache.
#[wasm_bindgen_test(unsupported = test)]
fn the_budget_is_the_utilisation_less_what_runs() {
    let total = 81_559 * (1 << 20);
    let weights = 16_060_522_496;
    let held = |activation_peak, non_torch, cuda_graphs| HeldBeside {
        weights,
        activation_peak,
        non_torch,
        cuda_graphs,
    };
    let left = available_kv_bytes(OLD, total, 0.9, held(2 * GIB, GIB / 2, GIB)).unwrap();
    let requested = (total as f64 * 0.9).ceil() as u64;
    assert_eq!(left, requested - weights - 2 * GIB - GIB / 2 - GIB);
    assert_eq!(available_kv_bytes(OLD, total, 0.15, held(0, 0, 0)), None);
}

/// Llama 4 Scout's chunked local attention (8,192-token chunks in 36 of
/// its 48 layers) is vLLM's `ChunkedLocalAttentionSpec` in both releases:
/// groups of 12 (three chunked, one full). With 8,192 tokens a step, a
/// chunked layer holds ⌈min(8,192 + 8,192, L) ÷ 16⌉ blocks in 0.20.0 and
/// ⌈min(8,192 + 2 × 8,192, L) ÷ 16⌉ in 0.34.0 (two batches in flight).
#[wasm_bindgen_test(unsupported = test)]
fn llama4_charges_its_chunks_as_chunks() {
    let a = arch("llama4-scout");
    for release in VllmRelease::ALL {
        let specs = layer_specs(&a, 0..a.layers, 1, 2, 2, 16, 131_072, release);
        assert!(specs[0].is_chunked_local());
        assert_eq!(specs[0].attention_chunk, Some(8192));
        assert!(!specs[3].is_chunked_local());
        let kv = KvLayout::of(&specs);
        let (groups, group_size, page_bytes) = hybrid(&kv);
        assert_eq!((group_size, groups.len(), page_bytes), (12, 4, 65_536));
        let chunked = match release {
            VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => 16_384 / 16,
            VllmRelease::V0_34_0 => 24_576 / 16,
        };
        assert_eq!(
            kv.blocks_per_sequence(131_072, 8192, release),
            8192 + 3 * chunked
        );
        // Past the chunk and the batches in flight, a chunked layer holds
        // what a full one does.
        assert_eq!(kv.blocks_per_sequence(4096, 8192, release), 4 * 256);
    }
}

/// vLLM 0.34.0's figures beside 0.20.0's on Llama 3 8B, 1 GiB (512 blocks
/// of 16): the log line counts concurrency × `max_model_len` (the same
/// here), and the longest length is searched over the budget less the
/// null block, 16 tokens shorter; 64-token blocks when none is given.
#[wasm_bindgen_test(unsupported = test)]
fn vllm_0_34_holds_back_the_null_block() {
    let new = VllmRelease::V0_34_0;
    assert_eq!(VllmRelease::default(), new);
    assert_eq!(default_block_size(&arch("llama3-8b"), 2, 90, new), 64);
    assert_eq!(default_block_size(&arch("deepseek-v3"), 2, 100, new), 64);
    let kv = layout("llama3-8b", 1, 16);
    assert_eq!(kv.bytes_per_block(), 32 * 65_536);
    let blocks = kv.num_blocks(GIB);
    assert_eq!(kv.kv_tokens(blocks, 8192, 8192, new), 8192);
    // 512 blocks ÷ ⌈3,000 ÷ 16⌉ = 188 a sequence, × 3,000 tokens.
    assert_eq!(kv.kv_tokens(blocks, 3000, 8192, new), 8170);
    assert_eq!(kv.kv_tokens(blocks, 3000, 8192, OLD), 8192);
    assert_eq!(kv.max_model_len_fits(GIB, 131_072, 8192, OLD), 8192);
    assert_eq!(kv.max_model_len_fits(GIB, 131_072, 8192, new), 8176);
    assert!(kv.starts(GIB, 8192, 8192, OLD));
    assert!(!kv.starts(GIB, 8192, 8192, new));
    assert!(kv.starts(GIB, 8176, 8192, new));
}

/// Qwen3-Next under 0.34.0: prefix caching puts its states in "align"
/// mode, so the attention block is a multiple of 64 (FlashInfer's GDN
/// checkpoint alignment): 64 × ⌈1,097,728 ÷ (64 × 2,048)⌉ = 576 tokens, the
/// states' block too, each state held 3 pages.
#[wasm_bindgen_test(unsupported = test)]
fn qwen3_next_aligns_to_64_under_0_34() {
    let a = arch("qwen3-next-80b-a3b");
    let new = VllmRelease::V0_34_0;
    for block in [16, 32, 64] {
        let specs = layer_specs(&a, 0..a.layers, 1, 2, 2, block, 8192, new);
        assert_eq!((specs[0].block_size, specs[3].block_size), (576, 576));
        assert_eq!(specs[0].page_bytes, 576 * 2048);
        assert_eq!(specs[0].max_memory_bytes(8192, 8192, new), 3 * 576 * 2048);
    }
    // FP8 values: ⌈1,097,728 ÷ 1,024⌉ = 1,072 tokens, 1,088 at 64.
    let fp8 = layer_specs(&a, 0..a.layers, 1, 1, 2, 16, 8192, new);
    assert_eq!(fp8[3].block_size, 1088);
    let kv = KvLayout::of(&layer_specs(&a, 0..a.layers, 1, 2, 2, 16, 8192, new));
    // ⌈8,192 ÷ 576⌉ = 15 attention blocks and 3 × 3 state pages.
    assert_eq!(kv.blocks_per_sequence(8192, 8192, new), 24);
}
