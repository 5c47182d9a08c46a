//! Published peak memory of training runs (issue 65) against the step's
//! peak: `measured/training-peaks.json` holds each run's source, settings as
//! published, the link query expressing them, what the query had to assume
//! and the measured figure with its measure — torch's reserved peak
//! (torchtitan's logs), its allocated peak (LitGPT's), torchtune's peak
//! active, or not stated — and whether it ran or ran out of memory. Each
//! query is decoded without a problem and its highlighted strategy's
//! figure for that measure computed: the step's peak for allocated and
//! active, with the caching allocator's slack for reserved
//! ([`vram_core::process::ProcessOverheads`]). Runs the source contradicts
//! itself on (`suspect`) or whose settings are incomplete are printed, not
//! counted. Prints a table of every run, the median ratio and the share
//! within ±10 %, by source; holds today's figures as a ratchet toward the
//! goal (every peak within 10 %). Native only (serde_json).
#![cfg(not(target_arch = "wasm32"))]

use common::median;
use serde::Deserialize;

mod common;

/// Issue 65's goal: every predicted peak within 10 % of its measured one.
const GOAL_WITHIN_10: f64 = 1.0;

/// Today's share of the counted runs within ±10 %, a ratchet below the
/// goal: 71 of 94 (76 %). LitGPT's FSDP runs as FSDP1 holds them
/// (`fsdp_gradient_bytes`, `fsdp_gathered_bytes`): every block's whole
/// 16-bit gradient, frozen weights included, unsharded while micro-batches
/// accumulate under `no_sync`, and the root's parameters gathered through
/// the backward; its 2023 LoRA runs on two and four A100s, no longer
/// suspect, 0.97–1.16 ×, its config hub's full runs 0.85–0.95 × (were
/// 0.36–0.50 ×), their OOMs called so. LitGPT's QLoRA under bitsandbytes 0.42.0 (its
/// config hub's 16 runs) within 0.98–1.02 ×: each 4-bit linear's input,
/// kept as an attribute of the graph's node, lives on in the loop's `loss`
/// into the next step's forward (with the last step's fp32 logits), and
/// Lightning's plugin dequantises to fp16 before the bf16 cast
/// (`scripts/measure-litgpt-qlora`); its 2023 runs, whose loop ran the
/// longest example first with nothing from a step before it
/// (`longest_first=1`), 0.98–1.00 × (1.10–1.16 × counted as every step).
/// LitGPT's runs are counted as LitGPT keeps them
/// (`framework=litgpt`, measured on its own model: its fused q/k/v output
/// kept whole, the rotated copies, one dropout mask a LoRA input, the
/// chunked head and loss over Fabric's fp32 outputs, the head apart from
/// the embedding): every single-GPU LoRA run at 16 bits within 1 %
/// (Phi-1.5, StableLM, Falcon, Gemma, Gemma 2 and Phi-2 were 0.70–0.95 ×
/// under Korthikanti's), their OOMs called so. Before that:
/// a pure-bf16 AdamW keeps bf16 moments as torch does; torchtitan's Dec 2024
/// runs written as they ran (`recompute_modules=op`, `loss=fp32`), FSDP2
/// under a pipeline holding its stage whole; QLoRA's saved inputs under
/// bitsandbytes before 0.43.2 (`bnb=0.43.1`). The misses by cause (issue
/// 65): Gemma 2B's full FSDP run (0.85 ×)
/// and Phi-1.5's FSDP runs at micro-batches 2 and 4 (1.12–1.16 ×); the 70B FSDP × TP runs (0.89–0.95 × once
/// the loss over a rank's vocabulary shard counts its own fp32 terms, 0.77–0.82 × before); compiled
/// torchtitan on B200 (torchao's MX table, 1.17–1.19 × with its "GB" read as
/// the GiB torchtitan logged and its loss compiled, `loss=compiled`, which
/// brought the Trainy H200 runs to 1.00–1.03 ×); torchtune with activation
/// checkpointing (1.13 ×: every gradient held from the backward's start;
/// its chunked output loss is `loss=chunked_output`, 1.07 ×). Raise this as the model improves.
const TODAY_WITHIN_10: f64 = 0.86;

/// Today's median of predicted ÷ measured, a ratchet: the model
/// under-counts (0.999 seen); the test fails if it drifts lower.
const TODAY_MEDIAN_AT_LEAST: f64 = 0.99;

#[derive(Deserialize)]
struct Run {
    name: String,
    source: String,
    outcome: String,
    query: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    measured: Measured,
    #[serde(default)]
    suspect: Option<String>,
    #[serde(default)]
    settings_incomplete: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Measured {
    value: Option<f64>,
    /// The unit as published.
    unit: Option<String>,
    /// What the published unit means where it says otherwise (torchao's
    /// table heads its torchtitan GiB "GB"); only a definite `GiB…` is read.
    #[serde(default)]
    unit_meaning: Option<String>,
    measure: String,
}

/// The predicted figure of `measure` for `query`, in bytes, and whether the
/// highlighted strategy fits its GPU.
fn predicted(name: &str, query: &str, measure: &str) -> (f64, bool) {
    let config = common::decoded(&format!("v=3&{query}"));
    let report = config.report().unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let overheads = config.process_overheads(&report);
    let peak = overheads.peak_bytes as f64;
    let figure = match measure {
        "reserved" => peak + overheads.allocator_slack_bytes as f64,
        _ => peak,
    };
    (figure, report.highlighted().fits)
}

/// The measured figure in bytes (GiB or GB as published, or as the
/// published unit is known to mean).
fn measured_bytes(run: &Run) -> Option<f64> {
    let value = run.measured.value?;
    let meaning = run.measured.unit_meaning.as_deref();
    if meaning.is_some_and(|m| m.starts_with("GiB")) {
        return Some(value * f64::from(1u32 << 30));
    }
    match run.measured.unit.as_deref() {
        Some("GiB") => Some(value * f64::from(1u32 << 30)),
        Some("GB") => Some(value * 1e9),
        other => panic!("{}: unit {other:?}", run.name),
    }
}

#[test]
fn published_training_peaks_against_the_steps_peak() {
    let fixture: common::Runs<Run> = common::fixture(include_str!("measured/training-peaks.json"));
    assert!(fixture.about.contains("measure"), "about");
    assert!(fixture.runs.len() >= 100, "{} runs", fixture.runs.len());
    let mut ratios = Vec::new();
    let mut oom_agree = (0, 0);
    println!(
        "{:<58} {:>9} {:>9} {:>6}  measure",
        "run", "measured", "ours", "ratio"
    );
    for run in &fixture.runs {
        assert!(run.source.starts_with("https://"), "{}: source", run.name);
        let Some(query) = &run.query else {
            assert!(run.reason.is_some(), "{}: no query and no reason", run.name);
            continue;
        };
        let (ours, fits) = predicted(&run.name, query, &run.measured.measure);
        let counted = run.suspect.is_none() && run.settings_incomplete.is_none();
        match (run.outcome.as_str(), measured_bytes(run)) {
            ("oom", _) => {
                if counted {
                    oom_agree.1 += 1;
                    oom_agree.0 += usize::from(!fits);
                }
                println!(
                    "{:<58} {:>9} {:>8.1}G {:>6}  {} (fits: {fits})",
                    run.name,
                    "OOM",
                    ours / f64::from(1u32 << 30),
                    "",
                    run.measured.measure
                );
            }
            (_, Some(measured)) => {
                let ratio = ours / measured;
                if counted {
                    ratios.push(ratio);
                }
                // torchtitan's runs with its chunked loss (docs/formulas.md):
                // 1.02-1.07 x, held within 10 %.
                if query.split('&').any(|kv| kv == "loss=chunked") {
                    assert!((ratio - 1.0).abs() <= 0.10, "{}: {ratio:.3}", run.name);
                }
                println!(
                    "{:<58} {:>8.1}G {:>8.1}G {:>6.2}  {}{}",
                    run.name,
                    measured / f64::from(1u32 << 30),
                    ours / f64::from(1u32 << 30),
                    ratio,
                    run.measured.measure,
                    if counted { "" } else { " (not counted)" }
                );
            }
            (_, None) => panic!("{}: ran without a figure", run.name),
        }
    }
    let within =
        ratios.iter().filter(|r| (**r - 1.0).abs() <= 0.10).count() as f64 / ratios.len() as f64;
    let counted = ratios.len();
    let median = median(&mut ratios);
    println!(
        "{counted} counted: median {median:.3}, {:.0} % within ±10 % (goal {:.0} %); out of memory called so: {} of {}",
        within * 100.0,
        GOAL_WITHIN_10 * 100.0,
        oom_agree.0,
        oom_agree.1
    );
    assert!(counted >= 90, "{counted} counted");
    assert!(within >= TODAY_WITHIN_10, "within ±10 %: {within:.3}");
    assert!(median >= TODAY_MEDIAN_AT_LEAST, "median {median:.3}");
}
