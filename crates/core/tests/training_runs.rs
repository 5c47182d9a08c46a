//! Published training runs (issue 65) against the step-time model with no
//! efficiency typed: `measured/training-runs.json` holds each run's source,
//! framework, settings as published, the link query expressing them, the
//! measured throughput (with its conversion to tokens per second per GPU
//! when the source gives TFLOP/s, an MFU or an iteration time) and what the
//! query had to assume. Each query is decoded without a problem (as the page
//! writes it today, `v=3`: no `mfu`, so the kernel model), and the
//! highlighted strategy's tokens per second per GPU is compared with the
//! measured figure. Runs that today's keys cannot write (uneven pipeline
//! stages with VPP, DualPipe, async TP, float8 rowwise, eager PyTorch, …)
//! keep `query: null` and their reason; where an approximate query exists it
//! is decoded and printed, not counted. Prints a table of every run, the
//! median ratio and the share within ±25 %, by framework too. Native only
//! (serde_json).
#![cfg(not(target_arch = "wasm32"))]

use common::median;
use serde::Deserialize;
use vram_core::input::link::decode;

mod common;

/// Issue 65's goal: the median of predicted ÷ measured within ±10 %.
const GOAL_MEDIAN_DEVIATION: f64 = 0.10;

/// Issue 65's goal: at least 80 % of the runs within ±25 %.
const GOAL_WITHIN_25: f64 = 0.80;

/// Today's median deviation, a ratchet inside the goal's 10 % (1.065
/// seen): the test fails if the median drifts further from 1 than this.
const TODAY_MEDIAN_DEVIATION: f64 = 0.07;

// The goal's 80 % within ±25 % holds: 97 of the 118 written runs (82 %;
// NeMo AutoModel's gpt-oss-120b written with its config's EP 64, 1.03 ×).
// What brought it there (issue 65): collectives across nodes counted over
// each node's NICs together, not one NIC a GPU (IBM's FSDP runs and NeMo
// AutoModel's 70B were 2–5 × slow); Megatron-LM's 2021–22 runs counted
// with their unfused attention, not FlashAttention (1.2–1.4 × fast);
// the PyTorch-native stacks' FlashAttention-2, which runs at 0.31 of an
// H100's peak where Transformer Engine's cuDNN attention runs at 0.50;
// torchtitan's power-capped H100s written with the peak their benchmark
// states (between the SXM's and the NVL's). The misses left, by cause:
// mixtures of experts under Megatron-Bridge and NeMo AutoModel (1.5–4 ×
// fast); long-context CP in
// torchtitan (1.4–1.7 ×); small dense models and long sequences on
// PyTorch FSDP stacks (1.3–1.6 ×).

#[derive(Deserialize)]
struct Run {
    name: String,
    source: String,
    framework: String,
    settings: serde_json::Map<String, serde_json::Value>,
    query: Option<String>,
    #[serde(default)]
    approximate_query: Option<String>,
    assumed: Vec<String>,
    reason: Option<String>,
    measured: Measured,
    notes: String,
}

#[derive(Deserialize)]
struct Measured {
    value: f64,
    unit: String,
    what: String,
    tokens_per_second_per_gpu: Option<f64>,
    #[serde(default)]
    conversion: Option<String>,
}

/// The highlighted strategy's tokens per second per GPU for `query`, read
/// as today's page writes it (version 3: no efficiency typed).
fn predicted(name: &str, query: &str) -> f64 {
    let decoded = decode(&format!("v=3&{query}"));
    assert!(
        decoded.problems.is_empty(),
        "{name}: {:?}",
        decoded.problems
    );
    assert!(
        decoded.config.speed.kernel_model,
        "{name}: an efficiency typed"
    );
    let report = decoded
        .config
        .report()
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let step = report
        .highlighted()
        .time
        .unwrap_or_else(|| panic!("{name}: no step time"));
    step.tokens_per_second_per_gpu
}

/// The share of `ratios` within ±25 % of 1.
fn within_25(ratios: &[f64]) -> f64 {
    let inside = ratios.iter().filter(|r| (**r - 1.0).abs() <= 0.25).count();
    inside as f64 / ratios.len().max(1) as f64
}

/// The group a run is summarised in: its name's first word, or first two
/// for the sources whose first word is shared (`megatron-readme`,
/// `megatron-bridge`, `nemo-24.07`, `nemo-automodel`, `llm-foundry`,
/// `ibm-fms`).
fn group(run: &Run) -> String {
    let mut words = run.name.split('-');
    let first = words.next().unwrap_or_default();
    match first {
        "megatron" | "nemo" | "llm" | "ibm" => {
            format!("{first}-{}", words.next().unwrap_or_default())
        }
        _ => first.to_string(),
    }
}

/// Checks one run's record (not its figures): a source, settings, notes,
/// a measured figure with its tokens per second, or the reason it is not
/// written.
fn check_record(run: &Run) {
    let name = &run.name;
    assert!(run.source.starts_with("https://"), "{name}: source");
    assert!(
        !run.framework.is_empty() && !run.settings.is_empty() && !run.notes.is_empty(),
        "{name}: framework, settings and notes"
    );
    let m = &run.measured;
    assert!(
        m.value > 0.0 && !m.unit.is_empty() && !m.what.is_empty(),
        "{name}: measured"
    );
    if m.unit != "tokens/s/GPU" && run.query.is_some() {
        assert!(
            m.conversion.as_deref().is_some_and(|c| !c.is_empty()),
            "{name}: a {} figure says how it becomes tokens/s",
            m.unit
        );
    }
    match &run.query {
        Some(query) => {
            assert!(
                m.tokens_per_second_per_gpu.is_some_and(|t| t > 0.0),
                "{name}: tokens/s per GPU"
            );
            assert!(!query.starts_with("v="), "{name}: the test adds v=3");
            assert!(
                !query.contains("mfu=") && !query.contains("achieved="),
                "{name}: no efficiency typed"
            );
            assert!(run.reason.is_none(), "{name}: written, and a reason");
        }
        None => assert!(
            run.reason.as_deref().is_some_and(|r| !r.is_empty()),
            "{name}: not written, and no reason"
        ),
    }
    for assumption in &run.assumed {
        assert!(!assumption.is_empty(), "{name}: an empty assumption");
    }
}

#[test]
fn published_training_runs_against_the_default_step_time() {
    let fixture: common::Runs<Run> = common::fixture(include_str!("measured/training-runs.json"));
    assert!(!fixture.about.is_empty());
    let mut names: Vec<&str> = fixture.runs.iter().map(|r| r.name.as_str()).collect();
    names.sort_unstable();
    let total = names.len();
    names.dedup();
    assert_eq!(names.len(), total, "run names are unique");

    println!(
        "{:<58} {:>10} {:>10} {:>6}",
        "run", "measured", "predicted", "ratio"
    );
    let mut ratios = Vec::new();
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    let mut unwritten = Vec::new();
    for run in &fixture.runs {
        check_record(run);
        let Some(query) = &run.query else {
            unwritten.push(run);
            continue;
        };
        let measured = run.measured.tokens_per_second_per_gpu.unwrap_or(f64::NAN);
        let predicted = predicted(&run.name, query);
        let ratio = predicted / measured;
        let flag = if (ratio - 1.0).abs() <= 0.25 {
            ""
        } else {
            "  <- miss"
        };
        println!(
            "{:<58} {measured:>10.1} {predicted:>10.1} {ratio:>6.2}{flag}",
            run.name
        );
        ratios.push(ratio);
        let key = group(run);
        match groups.iter_mut().find(|(g, _)| *g == key) {
            Some((_, list)) => list.push(ratio),
            None => groups.push((key, vec![ratio])),
        }
    }

    println!(
        "\nnot written ({}), with the approximate query where one exists:",
        unwritten.len()
    );
    for run in &unwritten {
        let approximate = run.approximate_query.as_deref().map(|q| {
            let predicted = predicted(&run.name, q);
            let measured = run.measured.tokens_per_second_per_gpu.unwrap_or(f64::NAN);
            format!(
                "approximate {predicted:.1} against {measured:.1} ({:.2})",
                predicted / measured
            )
        });
        println!(
            "  {}: {}{}",
            run.name,
            run.reason.as_deref().unwrap_or_default(),
            approximate.map(|a| format!(" [{a}]")).unwrap_or_default()
        );
    }

    println!("\nby framework: runs, median ratio, share within ±25 %");
    for (key, list) in &mut groups {
        let share = within_25(list);
        println!(
            "  {key:<20} {:>3} {:>6.2} {:>5.0} %",
            list.len(),
            median(list),
            100.0 * share
        );
    }

    let share = within_25(&ratios);
    let written = ratios.len();
    let mut sorted = ratios.clone();
    let mid = median(&mut sorted);
    let quartile = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    println!(
        "\n{written} runs written of {total}: median ratio {mid:.3}, quartiles {:.2} to {:.2}, \
         range {:.2} to {:.2}, {:.0} % within ±25 % (goals: median within ±{:.0} %, {:.0} % within ±25 %)",
        quartile(0.25),
        quartile(0.75),
        sorted[0],
        sorted[written - 1],
        100.0 * share,
        100.0 * GOAL_MEDIAN_DEVIATION,
        100.0 * GOAL_WITHIN_25
    );

    assert!(total >= 40, "{total} runs");
    assert!(written >= 40, "{written} runs written");
    // The ratchet: today's numbers may only get better (the median's is
    // already inside the goal's ±10 %).
    const { assert!(TODAY_MEDIAN_DEVIATION <= GOAL_MEDIAN_DEVIATION) };
    assert!(
        (mid - 1.0).abs() <= TODAY_MEDIAN_DEVIATION,
        "median ratio {mid:.3}: further from 1 than today's ±{TODAY_MEDIAN_DEVIATION}"
    );
    assert!(
        share >= GOAL_WITHIN_25,
        "{:.1} % within ±25 %: below the goal's {:.0} %",
        100.0 * share,
        100.0 * GOAL_WITHIN_25
    );
}
