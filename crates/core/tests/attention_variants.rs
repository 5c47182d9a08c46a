//! Gemma 2's attention variants, measured (`scripts/measure-attention-variants`:
//! transformers 5.24, torch 2.15, CPU, eager attention, fp32; 4 cases in
//! `measured/attention-variants.json`): what a sliding window and soft-capped
//! logits change in what one step keeps, and the page's terms for them.
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

use serde::Deserialize;
use vram_core::input::link;

#[derive(Deserialize)]
struct Row {
    model_type: String,
    num_hidden_layers: u32,
    hidden_size: u32,
    intermediate_size: u32,
    num_attention_heads: u32,
    num_key_value_heads: u32,
    head_dim: u32,
    vocab_size: u32,
    seq: u32,
    micro_batch: u32,
    numerics: String,
    sliding_window: Option<u32>,
    final_logit_softcapping: Option<f64>,
    kept: u64,
}

#[derive(Deserialize)]
struct Measured {
    rows: Vec<Row>,
}

fn rows() -> Vec<Row> {
    let measured: Measured =
        serde_json::from_str(include_str!("measured/attention-variants.json")).expect("fixture");
    measured.rows
}

fn kept(rows: &[Row], window: Option<u32>, softcap: bool) -> u64 {
    rows.iter()
        .find(|r| r.sliding_window == window && r.final_logit_softcapping.is_some() == softcap)
        .expect("the case")
        .kept
}

/// Soft-capping keeps the tanh's output, one more copy of the logits in their
/// dtype: the page adds e·s·b·v (`softcap=1`), here 4 × 64 × 1 × 500 = 128,000 B,
/// exactly the measured difference, with and without a sliding window. (The
/// page's model has 8 layers where the measured one has 2: the page takes no
/// model under a million parameters, and the logits' term does not depend on
/// the layers.)
#[test]
fn soft_capped_logits_keep_one_more_copy_as_measured() {
    let rows = rows();
    assert_eq!(rows.len(), 4);
    let r = &rows[0];
    assert_eq!(
        (r.model_type.as_str(), r.numerics.as_str()),
        ("gemma2", "fp32")
    );
    let query = |softcap: u8| {
        format!(
            "model=gemma2-9b&layers={}&hidden={}&ffn={}&heads={}&kv_heads={}&head_dim={}&vocab={}\
             &seq={}&mbs={}&dtype=fp32-pure&flash=0&softcap={softcap}",
            r.num_hidden_layers * 4,
            r.hidden_size,
            r.intermediate_size,
            r.num_attention_heads,
            r.num_key_value_heads,
            r.head_dim,
            r.vocab_size,
            r.seq,
            r.micro_batch,
        )
    };
    let activations = |softcap| {
        let decoded = link::decode(&query(softcap));
        assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        let report = decoded.config.report().expect("a report");
        report.activations.expect("activations").total.get()
    };
    let page = activations(1) - activations(0);
    assert_eq!(page, 4.0 * 64.0 * 500.0);
    for window in [None, Some(16)] {
        let measured = kept(&rows, window, true) - kept(&rows, window, false);
        assert_eq!(page, measured as f64, "window {window:?}");
    }
}

/// A sliding window shorter than the sequence keeps what full attention keeps
/// on transformers' eager path (it computes every score and masks them): the
/// page counts sliding-window layers as full attention.
#[test]
fn a_sliding_window_keeps_what_full_attention_keeps() {
    let rows = rows();
    for softcap in [false, true] {
        assert_eq!(kept(&rows, None, softcap), kept(&rows, Some(16), softcap));
    }
}
