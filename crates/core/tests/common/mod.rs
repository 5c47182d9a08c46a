//! What the measured-fixture tests share; each test binary uses its part.
#![allow(dead_code)]

use serde::de::DeserializeOwned;
use serde::Deserialize;
use vram_core::input::link;
use vram_core::{Config, Report};

/// A fixture of published runs: what it holds, and each run.
#[derive(Deserialize)]
pub struct Runs<T> {
    /// What the fixture holds and its conventions.
    pub about: String,
    /// Each run.
    pub runs: Vec<T>,
}

/// A measured fixture, `include_str!("measured/….json")`, read as `T`.
pub fn fixture<T: DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).expect("the fixture")
}

/// The median of `values` (sorted in place); NaN for none.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The configuration of a link that must decode without a problem.
pub fn decoded(query: &str) -> Config {
    let decoded = link::decode(query);
    assert!(
        decoded.problems.is_empty(),
        "{query}: {:?}",
        decoded.problems
    );
    decoded.config
}

/// The report of a link that must decode without a problem, with exactly
/// `params` parameters (the measured model's count).
pub fn report_of_exact_link(query: &str, params: u64) -> Report {
    let report = decoded(query).report().expect("a report");
    assert_eq!(report.setup.params().get(), params as f64, "{query}");
    report
}

/// A fixture of training steps measured under transformers: the versions
/// that ran them and the rows.
#[derive(Deserialize)]
pub struct Measured<R> {
    /// transformers' version.
    pub transformers: String,
    /// PyTorch's, where the fixture names it.
    #[serde(default)]
    pub torch: String,
    /// PEFT's, where the fixture names it.
    #[serde(default)]
    pub peft: String,
    /// The steps.
    pub rows: Vec<R>,
}

/// A measured training step under transformers (`scripts/measure-activations`,
/// `scripts/measure-lora-activations`): the model's shape, the batch, the
/// numerics and whether every layer is checkpointed.
#[derive(Deserialize)]
pub struct Step {
    pub model_type: String,
    pub hidden: u32,
    pub ffn: u32,
    pub layers: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub vocab: u32,
    pub seq: u32,
    pub micro_batch: u32,
    pub numerics: String,
    pub checkpointing: bool,
}

impl Step {
    /// The step as a link's keys: Llama 2 7B's edited (Qwen2 from the
    /// Qwen2.5 preset, with its q/k/v biases), untied, full recomputation
    /// when checkpointed, under `framework=hf`.
    pub fn keys(&self) -> String {
        let model = if self.model_type == "qwen2" {
            "qwen2.5-7b"
        } else {
            "llama2-7b"
        };
        format!(
            "model={model}&layers={}&hidden={}&ffn={}&heads={}&kv_heads={}&vocab={}&tied=0&seq={}&mbs={}\
             &recompute={}&framework=hf",
            self.layers,
            self.hidden,
            self.ffn,
            self.heads,
            self.kv_heads,
            self.vocab,
            self.seq,
            self.micro_batch,
            if self.checkpointing { "full" } else { "none" },
        )
    }
}
