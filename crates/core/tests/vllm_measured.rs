//! vLLM 0.20.0's own KV-cache arithmetic, run on the CPU by
//! `scripts/measure-vllm-kv` (128 cases in `measured/vllm-kv.json`): its
//! `KVCacheSpec` classes built layer by layer, `Platform._align_hybrid_block_size`
//! for Qwen3-Next, and `kv_cache_utils.py`'s groups, blocks, logged "GPU KV
//! cache size", maximum concurrency and `max_model_len` search, reproduced
//! by the port in `serve::kv_cache`: every integer exact, the concurrency
//! within 1e-9 of vLLM's float. Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use serde::Deserialize;
use vram_core::model::presets::model_preset;
use vram_core::serve::kv_cache::{
    attention_bytes_per_token, layer_specs, KvCacheDtype, KvLayout, LayerKind, LayerSpec,
    VllmRelease,
};

/// The release this fixture measured.
const RELEASE: VllmRelease = VllmRelease::V0_20_0;

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

#[derive(Deserialize)]
struct Case {
    model: String,
    tp: u32,
    block_size: u32,
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
    max_model_len_fits: u32,
    /// The public, per-layer `estimate_max_model_len` (no padding layers).
    estimate_max_model_len: u32,
    /// Whether `get_kv_cache_configs` accepts the budget.
    starts: bool,
}

fn kind_name(kind: LayerKind) -> &'static str {
    match kind {
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
            kind_name(specs[0].kind).to_string(),
            specs[0].block_size,
            specs.len() as u32,
        )],
        KvLayout::Hybrid { groups, .. } => groups
            .iter()
            .map(|g| {
                (
                    kind_name(g.spec.kind).to_string(),
                    g.spec.block_size,
                    g.layers,
                )
            })
            .collect(),
    }
}

/// Our figures for `case`, each beside vLLM's; the differing ones named.
fn differences(case: &Case) -> Vec<String> {
    let arch = model_preset(&case.model).expect("a preset").architecture;
    let dtype = match case.kv_dtype.as_str() {
        "auto" => KvCacheDtype::Auto,
        "fp8" => KvCacheDtype::Fp8,
        other => panic!("kv_dtype {other}"),
    };
    let specs = layer_specs(
        &arch,
        0..arch.layers,
        case.tp,
        dtype.bytes(2),
        2,
        case.block_size,
        case.max_model_len,
        RELEASE,
    );
    let kv = KvLayout::of(&specs);
    let (len, step, budget) = (
        case.max_model_len,
        case.batched_tokens,
        case.available_bytes,
    );
    let mut pages = BTreeMap::new();
    let mut most = BTreeMap::new();
    for spec in &specs {
        let LayerSpec { kind, .. } = *spec;
        pages
            .entry(kind_name(kind).to_string())
            .or_insert(spec.page_bytes);
        most.entry(kind_name(kind).to_string())
            .or_insert(spec.max_memory_bytes(len, step, RELEASE));
    }
    let vllm_groups: Vec<_> = case
        .groups
        .iter()
        .map(|g| (g.kind.clone(), g.block_size, g.layers))
        .collect();
    let num_blocks = kv.num_blocks(budget);
    let concurrency = kv.max_concurrency(num_blocks, len, step, RELEASE);
    let mut wrong = Vec::new();
    let mut check = |what: &str, ours: String, theirs: String| {
        if ours != theirs {
            wrong.push(format!("{what}: ours {ours}, vLLM {theirs}"));
        }
    };
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
        kv.kv_tokens(num_blocks, len, step, RELEASE).to_string(),
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
        kv.max_model_len_fits(budget, len, step, RELEASE)
            .to_string(),
        case.max_model_len_fits.to_string(),
    );
    check(
        "starts",
        (kv.bytes_needed(len, step, RELEASE) <= budget).to_string(),
        case.starts.to_string(),
    );
    // The public per-layer estimate sums each layer's own spec: with one
    // group it is the engine's search; a hybrid layout's unified pages and
    // padding layers it does not see, nor does the engine use it.
    if !matches!(kv, KvLayout::Hybrid { .. }) {
        check(
            "estimate_max_model_len",
            kv.max_model_len_fits(budget, len, step, RELEASE)
                .to_string(),
            case.estimate_max_model_len.to_string(),
        );
    }
    // A full layer's page is its block of tokens, each token's bytes ours.
    if let Some(&full) = case.page_bytes.get("full") {
        let per_token = attention_bytes_per_token(&arch, case.tp, dtype.bytes(2));
        let block = specs
            .iter()
            .find(|s| s.kind == LayerKind::Full)
            .map_or(0, |s| u64::from(s.block_size));
        check(
            "full page = block × per-token bytes",
            (block * per_token).to_string(),
            full.to_string(),
        );
    }
    wrong
}

#[test]
fn every_measured_case_is_vllms_figure() {
    let measured: Measured =
        serde_json::from_str(include_str!("measured/vllm-kv.json")).expect("the fixture");
    assert_eq!(measured.vllm_version, "0.20.0");
    assert!(measured.source.contains("kv_cache_utils.py"));
    assert_eq!(measured.cases.len(), 128);
    let mut wrong = Vec::new();
    for case in &measured.cases {
        let differ = differences(case);
        if !differ.is_empty() {
            wrong.push(format!(
                "{} TP {} block {} {} {} bytes, max_model_len {}, {} a step:\n  {}",
                case.model,
                case.tp,
                case.block_size,
                case.kv_dtype,
                case.available_bytes,
                case.max_model_len,
                case.batched_tokens,
                differ.join("\n  ")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        measured.cases.len(),
        wrong[..wrong.len().min(12)].join("\n")
    );
}
