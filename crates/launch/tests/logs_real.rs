//! Real logs (`tests/inputs/logs/`, each with its source in `logs.json`:
//! vLLM's start-up across releases, SGLang's pools, Megatron-LM's memory
//! line, DeepSpeed's `see_memory_usage`, verl's metrics) read by the log
//! reader (issue 66): every figure the manifest lists is read, in bytes or
//! as a count, as the tool meant it; and beside a configuration of what ran
//! the page has its own figure for each, side by side.
#![cfg(not(target_arch = "wasm32"))]

use serde::Deserialize;
use vram_launch::log::{compare, read_log, Term};

#[derive(Deserialize)]
struct Manifest {
    logs: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    file: String,
    source: String,
    query: Option<String>,
    figures: serde_json::Map<String, serde_json::Value>,
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: f64 = (1u64 << 20) as f64;

/// The term and the bytes (or count) of a manifest's figure, as the tool
/// meant its unit (vLLM's, SGLang's, DeepSpeed's and verl's GB are GiB;
/// Megatron-LM's MB MiB); `None` for a figure kept for the record alone
/// (another rank's, another step's, the K and V halves summed).
fn expected(name: &str, value: f64) -> Option<(Term, f64)> {
    let (term, scale) = match name {
        "weights_gib" | "weights_gb" => (Term::Weights, GIB),
        "kv_budget_gib" | "kv_size_gb" => (Term::KvBudget, GIB),
        "kv_tokens" => (Term::KvTokens, 1.0),
        "kv_blocks" => (Term::KvBlocks, 1.0),
        "concurrency" => (Term::Concurrency, 1.0),
        "cuda_graphs_gib" | "cuda_graphs_gb" => (Term::CudaGraphs, GIB),
        "non_torch_gib" => (Term::NonTorch, GIB),
        "activation_peak_gib" => (Term::ActivationPeak, GIB),
        "max_allocated_gb" => (Term::MaxAllocated, GIB),
        "max_reserved_gb" => (Term::MaxReserved, GIB),
        "max_allocated_mib" => (Term::MaxAllocated, MIB),
        "max_reserved_mib" => (Term::MaxReserved, MIB),
        _ => return None,
    };
    Some((term, value * scale))
}

#[test]
fn every_real_log_is_read_in_its_tools_units_and_put_beside_ours() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inputs/logs/");
    let manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}logs.json")).unwrap()).unwrap();
    assert!(manifest.logs.len() >= 12, "{} logs", manifest.logs.len());
    let mut failures = Vec::new();
    for entry in &manifest.logs {
        assert!(entry.source.starts_with("https://"), "{}", entry.file);
        let text = std::fs::read_to_string(format!("{dir}{}", entry.file)).unwrap();
        let log = read_log(&text).unwrap_or_else(|e| panic!("{}: {e:?}", entry.file));
        let mut figures: Vec<(Term, f64)> = entry
            .figures
            .iter()
            .filter_map(|(name, value)| expected(name, value.as_f64()?))
            .collect();
        // SGLang's K and V pools, printed apart, are one budget.
        if let (Some(k), Some(v)) = (
            entry.figures.get("k_size_gb"),
            entry.figures.get("v_size_gb"),
        ) {
            figures.push((
                Term::KvBudget,
                (k.as_f64().unwrap() + v.as_f64().unwrap()) * GIB,
            ));
        }
        for (term, value) in figures {
            let read = log.figures.iter().find(|f| f.term == term).map(|f| f.value);
            let close = read.is_some_and(|r| (r - value).abs() <= 1e-6 * value.abs().max(1.0));
            if !close {
                failures.push(format!("{}: {term:?} {value} read as {read:?}", entry.file));
            }
        }
        let Some(query) = &entry.query else { continue };
        let config = vram_core::input::link::decode(query).config;
        for row in compare(&config, &log) {
            if row.ours.is_none()
                && matches!(
                    row.term,
                    Term::Weights | Term::KvBudget | Term::MaxAllocated
                )
            {
                failures.push(format!(
                    "{}: no figure of ours beside {:?}",
                    entry.file, row.term
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
