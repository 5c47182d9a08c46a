//! Parameter counts as Hugging Face transformers builds the models
//! (`scripts/measure-counts`: transformers 5.24 on the meta device, configs
//! from each model's published `config.json`; `measured/counts.json`), total
//! and active, reproduced exactly by the presets; and the published figures.
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;

use serde::Deserialize;
use vram_core::model::presets::model_preset;

#[derive(Deserialize)]
struct Measured {
    transformers: String,
    models: BTreeMap<String, Model>,
}

#[derive(Deserialize)]
struct Model {
    params: u64,
    active_params: u64,
}

fn measured() -> Measured {
    common::fixture(include_str!("measured/counts.json"))
}

#[test]
fn every_measured_model_is_counted_exactly_total_and_active() {
    let measured = measured();
    assert_eq!(measured.transformers, "5.24.0");
    assert_eq!(measured.models.len(), 11);
    for (id, model) in &measured.models {
        let arch = model_preset(id)
            .unwrap_or_else(|| panic!("{id}: no preset"))
            .architecture;
        assert_eq!(arch.param_count(), model.params, "{id}: total");
        assert_eq!(
            arch.active_param_count(),
            model.active_params,
            "{id}: active"
        );
    }
}

/// A published figure: the model, whether it counts the active parameters
/// only, its unit, its rounding and the figure.
type Figure = (&'static str, bool, f64, fn(f64) -> f64, f64);

/// The published figures, each a count in billions (Mixtral's in hundreds of
/// millions) rounded as it is published.
#[test]
fn published_figures() {
    let count = |id: &str| model_preset(id).unwrap().architecture;
    // Mixtral 8x7B: the Hub's model card's 46.7 B, 12.9 B active.
    assert_eq!(count("mixtral-8x7b").param_count(), 46_702_792_704);
    let figures: [Figure; 7] = [
        ("mixtral-8x7b", true, 1e8, f64::round, 129.0),
        // DeepSeek-V3: 671 B total, 37 B active (its technical report, without the MTP module).
        ("deepseek-v3", false, 1e9, f64::round, 671.0),
        ("deepseek-v3", true, 1e9, f64::floor, 37.0),
        // Qwen3-30B-A3B and Qwen3-235B-A22B, by their names.
        ("qwen3-30b-a3b", false, 1e9, f64::floor, 30.0),
        ("qwen3-30b-a3b", true, 1e9, f64::round, 3.0),
        ("qwen3-235b-a22b", false, 1e9, f64::round, 235.0),
        ("qwen3-235b-a22b", true, 1e9, f64::round, 22.0),
    ];
    for (id, active, unit, rounded, figure) in figures {
        let arch = count(id);
        let params = match active {
            true => arch.active_param_count(),
            false => arch.param_count(),
        };
        assert_eq!(
            rounded(params as f64 / unit),
            figure,
            "{id} active {active}"
        );
    }
    // A dense model's active parameters are all of them.
    let llama = count("llama3.1-405b");
    assert_eq!(llama.active_param_count(), llama.param_count());
}
