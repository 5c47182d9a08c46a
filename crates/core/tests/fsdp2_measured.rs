//! FSDP2's gathered units, held to PyTorch's own tracker: `scripts/measure-fsdp2`
//! runs `fully_shard` as torchtitan wraps a model (the embedding, each layer,
//! the final norm with the output head; bf16 parameters, fp32 reduction) on
//! small Llama models over 2 and 4 CPU processes, and records what each unit
//! holds unsharded at its backward peak (`measured/fsdp2.json`). The page's
//! ZeRO-3 column under `sharding=fsdp2&buffers=1` must hold the largest of them
//! within 0.1 % (seen: −0.03 % to +0.004 %; the norms' few bytes).
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;

use serde::Deserialize;
use vram_core::Strategy;

#[derive(Deserialize)]
struct Measured {
    torch: String,
    runs: Vec<Run>,
}

#[derive(Deserialize)]
struct Run {
    config: Shape,
    gpus: u32,
    units: BTreeMap<String, u64>,
    peaks: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
struct Shape {
    hidden_size: u32,
    intermediate_size: u32,
    num_hidden_layers: u32,
    num_attention_heads: u32,
    num_key_value_heads: u32,
    vocab_size: u32,
}

#[test]
fn fsdp2_holds_its_largest_unit_as_pytorch_measures_it() {
    let measured: Measured = common::fixture(include_str!("measured/fsdp2.json"));
    assert!(measured.torch.starts_with("2.15"));
    assert_eq!(measured.runs.len(), 4);
    for run in &measured.runs {
        let c = &run.config;
        let query = format!(
            "model=llama2-7b&layers={}&hidden={}&ffn={}&heads={}&kv_heads={}&vocab={}&tied=0\
             &dtype=bf16&gpus={}&stage=3&sharding=fsdp2&buffers=1",
            c.num_hidden_layers,
            c.hidden_size,
            c.intermediate_size,
            c.num_attention_heads,
            c.num_key_value_heads,
            c.vocab_size,
            run.gpus
        );
        let params = run.units["embedding"]
            + u64::from(c.num_hidden_layers) * run.units["layer"]
            + run.units["head"];
        let report = common::report_of_exact_link(&query, params);
        let buffers = report.strategy(Strategy::Zero3).memory.buffers.get();
        let peak = *run.peaks.values().max().expect("peaks") as f64;
        assert!(
            (buffers / peak - 1.0).abs() < 1e-3,
            "{query}: {buffers} B against PyTorch's {peak} B"
        );
        // The other columns keep DeepSpeed's buckets.
        let zero2 = report.strategy(Strategy::Zero2).memory.buffers.get();
        assert_eq!(zero2, (5e8 + 5e8) * 2.0, "{query}");
    }
}
