//! torchtitan's cross-entropy, measured: what torchtitan 0.3.0's
//! `cross_entropy_loss` holds beside the logits it is given, eager
//! (`loss=fp32`) and compiled by inductor as `[compile]` with `loss` among
//! its components runs it (`loss=compiled`), and eager over a tensor-
//! parallel rank's vocabulary shard (PyTorch's `loss_parallel()`, torchtitan
//! 0.3.0's `_LossParallelCrossEntropy`: `loss=fp32` with TP 2 or more), from
//! `scripts/measure-losses` (torch 2.15, CPU; `measured/losses.json`),
//! against [`Loss::kept_fp32_bytes`] and [`Loss::beyond_kept`]. A figure a
//! logit is bytes ÷ (tokens × vocabulary). The core counts, a logit: kept
//! for the backward `e` (the logits) and the loss's fp32 bytes; at the
//! loss those and what it holds beyond; at the backward's start the same
//! with the logits gone unless the loss saved them (torchtitan drops its
//! own reference, `del pred`). Each within [`TOLERANCE`] bytes a logit.
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

use serde::Deserialize;
use vram_core::memory::activations::Loss;

/// Bytes a logit a count may sit from the measurement (the compiled
/// loss's fp32 log-sum-exp a row is 4 ÷ V bytes a logit).
const TOLERANCE: f64 = 0.01;

#[derive(Deserialize)]
struct Measured {
    torch: String,
    torchtitan: String,
    rows: Vec<Row>,
}

#[derive(Deserialize)]
struct Row {
    case: String,
    vocab_parallel: bool,
    dtype: String,
    tokens: u64,
    saved_per_logit: f64,
    forward_peak_per_logit: f64,
    backward_peak_per_logit: f64,
    inputs_saved: bool,
}

#[test]
fn torchtitans_loss_holds_what_the_core_counts_eager_and_compiled() {
    let measured: Measured =
        serde_json::from_str(include_str!("measured/losses.json")).expect("losses.json");
    assert!(measured.torch.starts_with("2.15") && measured.torchtitan == "0.3.0");
    let mut checked = 0;
    for row in &measured.rows {
        let e = match row.dtype.as_str() {
            "bf16" => 2.0,
            "fp32" => 4.0,
            other => panic!("{other}"),
        };
        let loss = match row.case.as_str() {
            "torchtitan.cross_entropy_loss" => Loss::Fp32,
            "torchtitan.cross_entropy_loss.compiled" => Loss::Compiled,
            "torch.loss_parallel" | "torchtitan._LossParallelCrossEntropy" => Loss::Fp32,
            other => panic!("{other}"),
        };
        // `Loss::Fp32` counts a 16-bit model's upcast; an fp32 model's
        // `.float()` copies nothing (4 bytes a logit less at the loss).
        if loss == Loss::Fp32 && e == 4.0 {
            continue;
        }
        let (at_loss, at_backward) = loss.beyond_kept(e, row.vocab_parallel);
        let kept = loss.kept_fp32_bytes();
        let logits_alive = if row.inputs_saved { e } else { 0.0 };
        let pairs = [
            ("saved", kept, row.saved_per_logit),
            ("at the loss", kept + at_loss, row.forward_peak_per_logit),
            (
                "at the backward's start",
                e + kept + at_backward,
                logits_alive + row.backward_peak_per_logit,
            ),
        ];
        for (what, ours, theirs) in pairs {
            assert!(
                (ours - theirs).abs() <= TOLERANCE,
                "{} {} T={}: {what} ours {ours} measured {theirs}",
                row.case,
                row.dtype,
                row.tokens
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}
