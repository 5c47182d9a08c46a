//! Hugging Face transformers on PyTorch, measured: what one training step
//! keeps for backward (`scripts/measure-activations`: transformers 5.24, torch
//! 2.15, CPU; 96 cases in `measured/hf.json`), reproduced to the byte by
//! `framework=hf` through links (`vram_core::frameworks::hf` says what each term is).
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use serde::Deserialize;
use vram_core::frameworks::hf::{hf_activation_memory, Attention, Numerics};
use vram_core::input::link;
use vram_core::model::architecture::Architecture;
use vram_core::model::presets::model_preset;

#[derive(Deserialize)]
struct Row {
    #[serde(flatten)]
    step: common::Step,
    attn: String,
    kept: u64,
    forward_peak: u64,
    backward_start_peak: u64,
    backward_peak: u64,
    optimizer_step_extra: u64,
    params: u64,
}

fn measured() -> common::Measured<Row> {
    common::fixture(include_str!("measured/hf.json"))
}

/// The row's model as a link: Llama 2 7B's keys edited (Qwen2 with q/k/v
/// biases from the Qwen2.5 preset), the step, the framework and the numerics
/// (autocast as `amp=1`: fp32 weights, 16-bit compute).
fn query(row: &Row) -> String {
    let dtype = match row.step.numerics.as_str() {
        "fp32" => "fp32-pure",
        "bf16" => "bf16-pure",
        _ => "bf16&amp=1",
    };
    format!("{}&attn={}&dtype={dtype}", row.step.keys(), row.attn)
}

#[test]
fn every_measured_step_is_kept_to_the_byte() {
    let measured = measured();
    assert!(measured.torch.starts_with("2.15.0"), "{}", measured.torch);
    assert_eq!(measured.transformers, "5.24.0");
    assert_eq!(measured.rows.len(), 96);
    for row in &measured.rows {
        let query = query(row);
        let report = common::report_of_exact_link(&query, row.params);
        let kept = report.activations.expect("activations").total.get();
        assert_eq!(kept, row.kept as f64, "{query}");
    }
}

/// The step's moments beyond what is kept (`vram_core::frameworks::hf::hf_step_transients`),
/// against the live bytes of the same 96 steps with parameters, gradients and
/// optimizer states left out:
/// - the backward's start, to the byte in every row;
/// - the loss, to the byte in every row but eager attention checkpointed in
///   fp32 or pure bf16, where the forward's peak is inside a layer (its
///   attention scores), at most one layer's working set above the loss;
/// - without checkpointing the backward's peak is its start; with it, the
///   rebuilt layer stays under the page's bound;
/// - the fused AdamW step allocates nothing beyond its states.
#[test]
fn every_measured_step_peaks_where_the_page_says() {
    for row in &measured().rows {
        let query = query(row);
        let report = common::report_of_exact_link(&query, row.params);
        let step = report.step.expect("the step's moments");
        let kept = row.kept as f64;
        assert_eq!(
            kept + step.backward_start.get(),
            row.backward_start_peak as f64,
            "{query}"
        );
        let forward_end = kept + step.forward_end.get();
        let peak_in_a_layer =
            row.attn == "eager" && row.step.checkpointing && row.step.numerics != "autocast-bf16";
        if peak_in_a_layer {
            let per_layer = report.activations.unwrap().per_layer.get();
            let above = row.forward_peak as f64 - forward_end;
            assert!((0.0..per_layer).contains(&above), "{query}: {above}");
        } else {
            assert_eq!(forward_end, row.forward_peak as f64, "{query}");
        }
        match step.recomputed_layer {
            None => {
                assert!(!row.step.checkpointing);
                assert_eq!(row.backward_peak, row.backward_start_peak, "{query}");
            }
            Some(rebuilt) => {
                assert!(row.step.checkpointing);
                let bound = kept + rebuilt.get();
                assert!((row.backward_peak as f64) <= bound, "{query}");
                assert!(row.backward_peak >= row.backward_start_peak, "{query}");
            }
        }
        assert_eq!(row.optimizer_step_extra, 0, "{query}");
    }
}

/// FlashAttention-2 keeps what SDPA's flash kernel keeps; Megatron's accounting
/// stays the default, unchanged.
#[test]
fn flash_attention_2_is_counted_as_sdpa_and_megatron_stays_the_default() {
    let arch: Architecture = model_preset("llama3-8b").unwrap().architecture;
    let training = vram_core::input::link::decode("model=llama3-8b&dtype=bf16-pure")
        .config
        .setup()
        .unwrap();
    let setup = vram_core::config::ModelSpec::of(model_preset("llama3-8b").unwrap())
        .activation_setup(&training);
    let sdpa = hf_activation_memory(&arch, &setup, Numerics::Pure16, Attention::Sdpa, None);
    let fa2 = hf_activation_memory(
        &arch,
        &setup,
        Numerics::Pure16,
        Attention::FlashAttention2,
        None,
    );
    assert_eq!(sdpa, fa2);
    let megatron = link::decode("model=llama3-8b").config.report().unwrap();
    let hf = link::decode("model=llama3-8b&framework=hf")
        .config
        .report()
        .unwrap();
    assert_ne!(megatron.activations, hf.activations);
    assert!(!link::encode(&link::decode("model=llama3-8b").config).contains("framework"));
}
