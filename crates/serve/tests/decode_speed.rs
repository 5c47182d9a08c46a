//! The serving speed model held to published decode runs: every point of
//! `tests/measured/decode-speed.json` within 25 % of its time per output
//! token, with a table of ours against theirs printed
//! (`cargo test -p vram-serve --test decode_speed -- --nocapture`). A point
//! whose `statistic` is `mean` (a mean TPOT, an average inter-token latency,
//! 1000 ÷ a sequence's tokens/s) is held to the model's mean time per output
//! token, the arriving requests' prefills included; one whose statistic is
//! `median` (a median inter-token latency or TPOT) to its decode step alone.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use vram_serve::options::{ServeLayout, ServeOptions, WEIGHT_FORMATS};
use vram_serve::report::{evaluate, Hardware};
use vram_shared::gpu::gpu_preset;
use vram_shared::model::presets::model_preset;

/// How far ours may be from a published run, as a fraction of it.
const TOLERANCE: f64 = 0.25;

/// One point's settings, as the fixture writes them.
struct Point {
    id: String,
    model: String,
    gpu: String,
    gpus: u32,
    gpus_per_node: u32,
    tp: u32,
    ep: u32,
    weights: String,
    prompt_len: u32,
    response_len: u32,
    concurrency: u32,
    statistic: Statistic,
    tpot_ms: f64,
}

/// Which published figure a point holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statistic {
    /// The mean time per output token: held to `mean_tpot_seconds`.
    Mean,
    /// The median inter-token latency or TPOT: held to `tpot_seconds`.
    Median,
}

impl Statistic {
    fn of(point: &Value) -> Statistic {
        match point["statistic"].as_str() {
            Some("mean") => Statistic::Mean,
            Some("median") => Statistic::Median,
            other => panic!("statistic {other:?}: mean or median"),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Statistic::Mean => "mean",
            Statistic::Median => "median",
        }
    }
}

fn text(point: &Value, key: &str) -> String {
    point[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing"))
        .to_owned()
}

fn whole(point: &Value, key: &str) -> u32 {
    let value = point[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing"));
    u32::try_from(value).unwrap()
}

fn points() -> Vec<Point> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/measured/decode-speed.json"
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Point {
            id: text(p, "id"),
            model: text(p, "model"),
            gpu: text(p, "gpu"),
            gpus: whole(p, "gpus"),
            gpus_per_node: whole(p, "gpus_per_node"),
            tp: whole(p, "tp"),
            ep: whole(p, "ep"),
            weights: text(p, "weights"),
            prompt_len: whole(p, "prompt_len"),
            response_len: whole(p, "response_len"),
            concurrency: whole(p, "concurrency"),
            statistic: Statistic::of(p),
            tpot_ms: p["tpot_ms"].as_f64().unwrap(),
        })
        .collect()
}

/// Our decode step alone and our mean time per output token for a point,
/// seconds.
fn ours(point: &Point) -> (f64, f64) {
    let arch = model_preset(&point.model).unwrap().architecture;
    let gpu = gpu_preset(&point.gpu).unwrap();
    let weights = WEIGHT_FORMATS
        .into_iter()
        .find(|w| w.key() == point.weights)
        .unwrap_or_else(|| panic!("{}: weights {}", point.id, point.weights));
    let hardware = Hardware {
        memory_bytes: u64::from(gpu.memory_mib) << 20,
        gpu: Some(gpu),
        gpus_per_node: point.gpus_per_node,
        nodes: point.gpus / point.gpus_per_node,
        tflops: None,
        nvlink_gb_per_s: gpu.nvlink_gb_per_s,
        network_gb_per_s: gpu.network_gb_per_s,
    };
    let options = ServeOptions {
        weights,
        max_len: Some((point.prompt_len + point.response_len).next_power_of_two()),
        prompt_len: point.prompt_len,
        response_len: point.response_len,
        concurrency: Some(point.concurrency),
        gpu_util: Some(0.95),
        ..ServeOptions::default()
    };
    let layout = ServeLayout {
        tp: point.tp,
        pp: 1,
        ep: point.ep,
    };
    let report = evaluate(&arch, 0, &hardware, layout, &options, None)
        .unwrap_or_else(|e| panic!("{}: {e:?}", point.id));
    let speed = report.speed.unwrap();
    (speed.tpot_seconds, speed.mean_tpot_seconds)
}

#[test]
fn every_published_decode_run_within_a_quarter() {
    let points = points();
    assert!(points.len() >= 10, "{} points", points.len());
    eprintln!(
        "{:<44} {:>5} {:>6} {:>10} {:>10} {:>10} {:>7}",
        "run", "conc", "stat", "published", "step", "mean", "error"
    );
    let mut misses = Vec::new();
    for point in &points {
        let (step, mean) = ours(point);
        let tpot = match point.statistic {
            Statistic::Mean => mean,
            Statistic::Median => step,
        } * 1e3;
        let error = tpot / point.tpot_ms - 1.0;
        eprintln!(
            "{:<44} {:>5} {:>6} {:>7.2} ms {:>7.2} ms {:>7.2} ms {:>+6.0} %",
            point.id,
            point.concurrency,
            point.statistic.label(),
            point.tpot_ms,
            step * 1e3,
            mean * 1e3,
            error * 100.0
        );
        if error.abs() >= TOLERANCE {
            misses.push(format!(
                "{}: {tpot:.2} ms against {}",
                point.id, point.tpot_ms
            ));
        }
    }
    assert!(misses.is_empty(), "beyond 25 %: {misses:?}");
}
