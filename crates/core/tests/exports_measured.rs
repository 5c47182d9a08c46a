//! The exports (`vram --export`, "Copy as …") as the frameworks' own parsers
//! read them: `scripts/measure-exports` asked the CLI for each case's text
//! and ran DeepSpeed's `DeepSpeedConfig`, Megatron-LM's argument parser,
//! torchtitan's config manager, accelerate's config loader, vLLM's
//! `EngineArgs` and SGLang's `ServerArgs` on it (versions in
//! `measured/exports.json`). Here the core writes each text again, byte for
//! byte, and every text a parser could run on was accepted; what it read
//! back agrees with the configuration. Native only (serde_json).
#![cfg(not(target_arch = "wasm32"))]

use serde::Deserialize;
use serde_json::Value;
use vram_core::input::link;
use vram_core::launch::{export, Target};

#[derive(Deserialize)]
struct Measured {
    versions: serde_json::Map<String, Value>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    kind: String,
    query: String,
    url: String,
    text: String,
    accepted: Option<bool>,
    error: Option<String>,
    parsed: Value,
}

fn measured() -> Measured {
    let text = include_str!("measured/exports.json");
    serde_json::from_str(text).expect("measured/exports.json")
}

#[test]
fn every_export_is_the_text_its_framework_accepted() {
    let measured = measured();
    assert!(!measured.versions.is_empty());
    assert!(measured.cases.len() >= 10);
    for case in &measured.cases {
        let decoded = link::decode(&case.query);
        assert!(
            decoded.problems.is_empty(),
            "{}: {:?}",
            case.name,
            decoded.problems
        );
        let config = decoded.config;
        let target = Target::from_key(&case.kind).expect("a target");
        let url = format!("{}?{}", case.url, link::encode(&config));
        let text = export(&config, target, &url).unwrap_or_else(|r| panic!("{}: {r:?}", case.name));
        assert_eq!(text, case.text, "{}: the text its parser read", case.name);
        assert_eq!(
            case.accepted,
            Some(true),
            "{}: its parser said {:?}",
            case.name,
            case.error
        );
        read_back_agrees(case, &config);
    }
}

/// What the framework's parser read is the configuration's: its parallel
/// degrees, batch and lengths.
fn read_back_agrees(case: &Case, config: &vram_core::Config) {
    let p = &case.parsed;
    let int = |key: &str| {
        p[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{}: {key} in {p}", case.name))
    };
    let layout = config.runtime.layout;
    let world = u64::from(config.gpus * config.runtime.nodes);
    let model_parallel = u64::from(layout.tp * layout.pp * layout.cp);
    let micro = u64::from(config.model.map_or(1, |m| m.micro_batch));
    let global = config
        .global_batch
        .map_or(micro * world / model_parallel, u64::from);
    match case.kind.as_str() {
        "deepspeed" => {
            let stage = match config.highlight {
                vram_core::Strategy::Ddp => 0,
                vram_core::Strategy::Zero1 => 1,
                vram_core::Strategy::Zero2 => 2,
                vram_core::Strategy::Zero3 => 3,
            };
            assert_eq!(int("zero_stage"), stage, "{}", case.name);
            assert_eq!(int("world_size_seen"), world, "{}", case.name);
            assert_eq!(int("train_batch_size"), global, "{}", case.name);
            assert_eq!(
                int("train_micro_batch_size_per_gpu"),
                micro,
                "{}",
                case.name
            );
        }
        "megatron" => {
            let arch = config.model.unwrap().architecture;
            assert_eq!(int("tensor_model_parallel_size"), u64::from(layout.tp));
            assert_eq!(int("pipeline_model_parallel_size"), u64::from(layout.pp));
            assert_eq!(int("data_parallel_size"), world / model_parallel);
            assert_eq!(int("num_layers"), u64::from(arch.layers));
            assert_eq!(int("global_batch_size"), global, "{}", case.name);
        }
        "torchtitan" => {
            assert_eq!(int("tensor_parallel_degree"), u64::from(layout.tp));
            assert_eq!(
                int("data_parallel_replicate_degree") * int("data_parallel_shard_degree"),
                world / model_parallel,
                "{}",
                case.name
            );
            assert_eq!(int("seq_len"), u64::from(config.model.unwrap().seq_len));
        }
        "accelerate" => assert_eq!(int("num_processes"), world, "{}", case.name),
        "vllm" | "sglang" => {
            let report = config.serve_report().unwrap();
            let (tp, len, fraction) = match case.kind.as_str() {
                "vllm" => (
                    "tensor_parallel_size",
                    "max_model_len",
                    "gpu_memory_utilization",
                ),
                _ => ("tp_size", "context_length", "mem_fraction_static"),
            };
            assert_eq!(int(tp), u64::from(report.layout.tp), "{}", case.name);
            assert_eq!(int(len), u64::from(report.max_model_len), "{}", case.name);
            assert_eq!(p[fraction].as_f64(), Some(report.gpu_util), "{}", case.name);
        }
        other => panic!("{}: no check for {other}", case.name),
    }
}
