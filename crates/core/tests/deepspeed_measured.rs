//! DeepSpeed's own estimators, run by `scripts/measure-deepspeed` on DeepSpeed
//! 0.19.8's source (600 cases in `measured/deepspeed.json`), reproduced to the
//! byte through links whose counts are exact decimals (`params=2.851569664` is
//! 2,851,569,664 parameters, `largest_layer=32.899072` is 32,899,072).
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use serde::Deserialize;
use vram_core::Strategy;

#[derive(Deserialize)]
struct Measured {
    source: String,
    rows: Vec<Row>,
}

#[derive(Deserialize)]
struct Row {
    stage: String,
    params: u64,
    largest_layer: u64,
    nodes: u32,
    gpus_per_node: u32,
    buffer_factor: f64,
    offload: String,
    zero_init: bool,
    gpu_bytes: u64,
    cpu_bytes: u64,
}

/// `count / 10^digits` written exactly: 2851569664, 9 → "2.851569664".
fn exact_decimal(count: u64, digits: u32) -> String {
    let scale = 10u64.pow(digits);
    format!(
        "{}.{:0width$}",
        count / scale,
        count % scale,
        width = digits as usize
    )
}

#[test]
fn every_measured_case_is_deepspeeds_figure_to_the_byte() {
    let measured: Measured = common::fixture(include_str!("measured/deepspeed.json"));
    assert!(measured.source.contains("0.19.8"));
    assert_eq!(measured.rows.len(), 600);
    let mut wrong = Vec::new();
    for row in &measured.rows {
        let query = format!(
            "acct=deepspeed&params={}&largest_layer={}&gpus={}&nodes={}&buffer_factor={}&offload={}&zero_init={}",
            exact_decimal(row.params, 9),
            exact_decimal(row.largest_layer, 6),
            row.gpus_per_node,
            row.nodes,
            row.buffer_factor,
            row.offload,
            u8::from(row.zero_init),
        );
        let report = common::report_of_exact_link(&query, row.params);
        let strategy = match row.stage.as_str() {
            "2" => Strategy::Zero2,
            _ => Strategy::Zero3,
        };
        let figures = report.strategy(strategy);
        let (gpu, cpu) = (
            figures.memory.total.get(),
            figures.beyond.cpu_per_node.get(),
        );
        if gpu != row.gpu_bytes as f64 || cpu != row.cpu_bytes as f64 {
            wrong.push(format!(
                "ZeRO-{} {query}: GPU {gpu} vs {}, CPU {cpu} vs {}",
                row.stage, row.gpu_bytes, row.cpu_bytes
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 600 differ:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(8)].join("\n")
    );
}
