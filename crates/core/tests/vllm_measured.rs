//! vLLM's own KV-cache arithmetic, run on the CPU release by release and
//! reproduced by the port in `serve::kv_cache`: every integer exact, the
//! concurrency within 1e-9 of vLLM's float. Native only (serde_json).
//!
//! - vLLM 0.19.1 (`scripts/measure-vllm-kv 0.19.1`, the same 128 cases in
//!   `measured/vllm-kv-0.19.1.json`): as 0.20.0 below, but Qwen3-Next aligned
//!   by `HybridAttentionMambaModelConfig.verify_and_update_config`
//!   (`vllm/model_executor/models/config.py`), to 16 tokens whatever block
//!   was typed; 18 of the cases (blocks of 32 and 64) differ from 0.20.0's.
//! - vLLM 0.20.0 (`scripts/measure-vllm-kv`, 128 cases in
//!   `measured/vllm-kv.json`): its `KVCacheSpec` classes built layer by
//!   layer, `Platform._align_hybrid_block_size` for Qwen3-Next, and
//!   `kv_cache_utils.py`'s groups, blocks, logged "GPU KV cache size",
//!   maximum concurrency and `max_model_len` search.
//! - vLLM 0.34.0 (`scripts/measure-vllm-kv 0.34.0`, the code in
//!   `scripts/measure-vllm-kv-0.34`; 1,748 cases in
//!   `measured/vllm-kv-0.34.0.json`): the layers' own `get_kv_cache_spec`,
//!   `Platform.update_block_size_for_backend` (the block size when none is
//!   given, Qwen3-Next's hybrid alignment), `kv_cache_planning.py`'s groups,
//!   blocks, bytes a block and longest `max_model_len` (over the budget less
//!   the null block), its public per-layer estimate, and `kv_cache_utils.py`'s
//!   logged "GPU KV cache size" and maximum concurrency.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use serde::Deserialize;
use vram_core::model::presets::model_preset;
use vram_core::serve::kv_cache::{
    attention_bytes_per_token, default_block_size, estimate_max_model_len, layer_specs,
    KvCacheDtype, KvLayout, LayerKind, LayerSpec, VllmRelease,
};

/// Hopper, the GPU the fixture assumes (FlashAttention, FlashMLA).
const SM: u32 = 90;

#[derive(Deserialize)]
struct Measured {
    vllm_version: String,
    source: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Group {
    kind: String,
    block_size: u32,
    layers: u32,
}

/// `--block-size` as given: a number, or `"auto"` (none given).
#[derive(Deserialize)]
#[serde(untagged)]
enum Block {
    Given(u32),
    Auto(String),
}

#[derive(Deserialize)]
struct Case {
    model: String,
    tp: u32,
    block_size: Block,
    kv_dtype: String,
    available_bytes: u64,
    max_model_len: u32,
    batched_tokens: u32,
    /// Each layer kind's `page_size_bytes`, before the groups unify pages.
    page_bytes: BTreeMap<String, u64>,
    /// Each layer kind's `max_memory_usage_bytes` at `max_model_len`.
    max_memory_bytes: BTreeMap<String, u64>,
    groups: Vec<Group>,
    num_blocks: u64,
    kv_tokens: u64,
    max_concurrency: f64,
    /// `_estimate_max_model_len_from_groups` over the budget less one block.
    max_model_len_fits: u32,
    /// The public, per-layer `estimate_max_model_len` (no padding layers,
    /// the whole budget).
    estimate_max_model_len: u32,
    /// Whether `get_kv_cache_configs` accepts the budget.
    starts: bool,
    /// What 0.34.0's fixture records beside (absent from 0.19.1's and 0.20.0's).
    #[serde(flatten)]
    resolved: Option<Resolved>,
}

/// What the engine settled on, recorded from 0.34.0 on.
#[derive(Deserialize)]
struct Resolved {
    /// The block size (the attention's).
    resolved_block_size: u32,
    /// "align" for the hybrid (Mamba) models, none otherwise.
    mamba_cache_mode: Option<String>,
    kv_cache_layout: String,
    /// `_pool_bytes_per_block_from_builder`.
    bytes_per_block: u64,
}

fn kind_name(spec: &LayerSpec) -> &'static str {
    match spec.kind {
        LayerKind::Full if spec.is_chunked_local() => "chunked_local",
        LayerKind::Full => "full",
        LayerKind::SlidingWindow(_) => "sliding_window",
        LayerKind::State => "state",
    }
}

/// The groups as vLLM lists them: kind, block size, layers.
fn groups(kv: &KvLayout) -> Vec<(String, u32, u32)> {
    match kv {
        KvLayout::Empty => Vec::new(),
        KvLayout::Uniform(specs) => vec![(
            kind_name(&specs[0]).to_string(),
            specs[0].block_size,
            specs.len() as u32,
        )],
        KvLayout::Hybrid { groups, .. } => groups
            .iter()
            .map(|g| (kind_name(&g.spec).to_string(), g.spec.block_size, g.layers))
            .collect(),
    }
}

/// Our figures for `case`, each beside vLLM's; the differing ones named.
fn differences(case: &Case, release: VllmRelease) -> Vec<String> {
    let arch = model_preset(&case.model).expect("a preset").architecture;
    let dtype = match case.kv_dtype.as_str() {
        "auto" => KvCacheDtype::Auto,
        "fp8" => KvCacheDtype::Fp8,
        other => panic!("kv_dtype {other}"),
    };
    let value_bytes = dtype.bytes(2);
    let block = match &case.block_size {
        Block::Given(n) => *n,
        Block::Auto(auto) => {
            assert_eq!(auto, "auto");
            default_block_size(&arch, value_bytes, SM, release)
        }
    };
    let (len, step, budget) = (
        case.max_model_len,
        case.batched_tokens,
        case.available_bytes,
    );
    let specs = layer_specs(
        &arch,
        0..arch.layers,
        case.tp,
        value_bytes,
        2,
        block,
        len,
        release,
    );
    let kv = KvLayout::of(&specs);
    let mut pages = BTreeMap::new();
    let mut most = BTreeMap::new();
    for spec in &specs {
        pages
            .entry(kind_name(spec).to_string())
            .or_insert(spec.page_bytes);
        most.entry(kind_name(spec).to_string())
            .or_insert(spec.max_memory_bytes(len, step, release));
    }
    let vllm_groups: Vec<_> = case
        .groups
        .iter()
        .map(|g| (g.kind.clone(), g.block_size, g.layers))
        .collect();
    let num_blocks = kv.num_blocks(budget);
    let concurrency = kv.max_concurrency(num_blocks, len, step, release);
    let attention_block = specs
        .iter()
        .find(|s| s.kind != LayerKind::State)
        .map_or(0, |s| s.block_size);
    let has_state = specs.iter().any(|s| s.kind == LayerKind::State);
    let mut wrong = Vec::new();
    let mut check = |what: &str, ours: String, theirs: String| {
        if ours != theirs {
            wrong.push(format!("{what}: ours {ours}, vLLM {theirs}"));
        }
    };
    if let Some(resolved) = &case.resolved {
        check(
            "resolved_block_size",
            attention_block.to_string(),
            resolved.resolved_block_size.to_string(),
        );
        check(
            "mamba_cache_mode",
            format!("{:?}", has_state.then_some("align")),
            format!("{:?}", resolved.mamba_cache_mode.as_deref()),
        );
        // FlashAttention and FlashMLA declare no layouts: the default's first,
        // layer-outermost, whose block is the widest group's pages.
        check(
            "kv_cache_layout",
            "LBNHC".into(),
            resolved.kv_cache_layout.clone(),
        );
        check(
            "bytes_per_block",
            kv.bytes_per_block().to_string(),
            resolved.bytes_per_block.to_string(),
        );
    }
    check(
        "page_bytes",
        format!("{pages:?}"),
        format!("{:?}", case.page_bytes),
    );
    check(
        "max_memory_bytes",
        format!("{most:?}"),
        format!("{:?}", case.max_memory_bytes),
    );
    check(
        "groups",
        format!("{:?}", groups(&kv)),
        format!("{vllm_groups:?}"),
    );
    check(
        "num_blocks",
        num_blocks.to_string(),
        case.num_blocks.to_string(),
    );
    check(
        "kv_tokens",
        kv.kv_tokens(num_blocks, len, step, release).to_string(),
        case.kv_tokens.to_string(),
    );
    if (concurrency - case.max_concurrency).abs() > 1e-9 * case.max_concurrency.abs() {
        check(
            "max_concurrency",
            concurrency.to_string(),
            case.max_concurrency.to_string(),
        );
    }
    check(
        "max_model_len_fits",
        kv.max_model_len_fits(budget, len, step, release)
            .to_string(),
        case.max_model_len_fits.to_string(),
    );
    check(
        "estimate_max_model_len",
        estimate_max_model_len(&specs, budget, len, step, release).to_string(),
        case.estimate_max_model_len.to_string(),
    );
    check(
        "starts",
        kv.starts(budget, len, step, release).to_string(),
        case.starts.to_string(),
    );
    // An attention layer's page is its block of tokens, each token's bytes ours.
    if let Some(&full) = case.page_bytes.get("full") {
        let per_token = attention_bytes_per_token(&arch, case.tp, value_bytes);
        check(
            "full page = block × per-token bytes",
            (u64::from(attention_block) * per_token).to_string(),
            full.to_string(),
        );
    }
    wrong
}

/// Every case of `fixture`, which vLLM `release` measured (`cases` of
/// them, its `source` naming `file`), is our figure.
fn every_case_is_ours(fixture: &str, release: VllmRelease, cases: usize, file: &str) {
    let measured: Measured = serde_json::from_str(fixture).expect("the fixture");
    assert_eq!(measured.vllm_version, release.key());
    assert!(measured.source.contains(file));
    assert_eq!(measured.cases.len(), cases);
    // 0.34.0's fixture records what the engine settled on; 0.19.1's and
    // 0.20.0's do not.
    let resolved = measured
        .cases
        .iter()
        .filter(|c| c.resolved.is_some())
        .count();
    assert_eq!(
        resolved,
        if release == VllmRelease::V0_34_0 {
            cases
        } else {
            0
        }
    );
    let wrong: Vec<String> = measured
        .cases
        .iter()
        .enumerate()
        .filter_map(|(i, case)| {
            let differ = differences(case, release);
            (!differ.is_empty()).then(|| {
                let block = match &case.block_size {
                    Block::Given(n) => n.to_string(),
                    Block::Auto(a) => a.clone(),
                };
                format!(
                    "case {i}: {} TP {} block {block} {} {} bytes, max_model_len {}, {} a step:\n  {}",
                    case.model,
                    case.tp,
                    case.kv_dtype,
                    case.available_bytes,
                    case.max_model_len,
                    case.batched_tokens,
                    differ.join("\n  ")
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        measured.cases.len(),
        wrong[..wrong.len().min(12)].join("\n")
    );
}

#[test]
fn every_case_vllm_0_19_1_measured_is_ours() {
    let fixture = include_str!("measured/vllm-kv-0.19.1.json");
    every_case_is_ours(
        fixture,
        VllmRelease::V0_19_1,
        128,
        "HybridAttentionMambaModelConfig",
    );
}

/// 0.19.1 and 0.20.0 measured the same grid, case for case; they differ
/// only where Qwen3-Next's attention block is aligned to a typed block of
/// 32 or 64 (0.20.0) rather than to 16 (0.19.1).
#[test]
fn vllm_0_19_1_differs_from_0_20_0_only_in_hybrid_alignment() {
    let old: Measured =
        serde_json::from_str(include_str!("measured/vllm-kv-0.19.1.json")).expect("0.19.1");
    let new: Measured =
        serde_json::from_str(include_str!("measured/vllm-kv.json")).expect("0.20.0");
    assert_eq!(old.cases.len(), new.cases.len());
    let mut differ = 0;
    for (a, b) in old.cases.iter().zip(&new.cases) {
        let given = |c: &Case| match c.block_size {
            Block::Given(n) => n,
            Block::Auto(_) => panic!("0.19.1's and 0.20.0's grids type every block"),
        };
        assert_eq!(
            (&a.model, a.tp, given(a), &a.kv_dtype, a.available_bytes),
            (&b.model, b.tp, given(b), &b.kv_dtype, b.available_bytes)
        );
        assert_eq!(
            (a.max_model_len, a.batched_tokens),
            (b.max_model_len, b.batched_tokens)
        );
        if a.groups
            .iter()
            .map(|g| g.block_size)
            .ne(b.groups.iter().map(|g| g.block_size))
        {
            differ += 1;
            assert_eq!(a.model, "qwen3-next-80b-a3b");
            assert!(given(a) > 16, "a typed 16 aligns alike");
        } else {
            assert_eq!(a.num_blocks, b.num_blocks, "{} TP {}", a.model, a.tp);
            assert_eq!(a.kv_tokens, b.kv_tokens);
            assert_eq!(a.page_bytes, b.page_bytes);
        }
    }
    assert_eq!(differ, 18);
}

#[test]
fn every_case_vllm_0_20_0_measured_is_ours() {
    let fixture = include_str!("measured/vllm-kv.json");
    every_case_is_ours(fixture, VllmRelease::V0_20_0, 128, "kv_cache_utils.py");
}

#[test]
fn every_case_vllm_0_34_0_measured_is_ours() {
    let fixture = include_str!("measured/vllm-kv-0.34.0.json");
    every_case_is_ours(fixture, VllmRelease::V0_34_0, 1748, "kv_cache_planning.py");
}

/// The release's figures differ from 0.20.0's where the fixture says they
/// do: Mistral 7B's 4,096-token window at 8,192 tokens, blocks of 16, one
/// request of 8,192 a step (the doc's example): 0.20.0 logs the pool's
/// 81,920 slots, 0.34.0 concurrency × length, 81,760.
#[test]
fn the_log_line_counts_tokens_at_max_model_len() {
    let arch = model_preset("mistral-7b").unwrap().architecture;
    let measured: Measured =
        serde_json::from_str(include_str!("measured/vllm-kv-0.34.0.json")).expect("the fixture");
    let case = measured
        .cases
        .iter()
        .find(|c| {
            c.model == "mistral-7b"
                && matches!(c.block_size, Block::Given(16))
                && c.kv_tokens == 81_760
        })
        .expect("the doc's example");
    let tokens = |release| {
        let specs = layer_specs(
            &arch,
            0..arch.layers,
            case.tp,
            2,
            2,
            16,
            case.max_model_len,
            release,
        );
        let kv = KvLayout::of(&specs);
        let blocks = kv.num_blocks(case.available_bytes);
        kv.kv_tokens(blocks, case.max_model_len, case.batched_tokens, release)
    };
    assert_eq!(tokens(VllmRelease::V0_20_0), 81_920);
    assert_eq!(tokens(VllmRelease::V0_34_0), 81_760);
    assert_eq!(VllmRelease::default(), VllmRelease::NEWEST);
    assert_eq!(
        VllmRelease::ALL.map(VllmRelease::key),
        ["0.19.1", "0.20.0", "0.34.0"]
    );
}
