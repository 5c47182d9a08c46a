//! A deployment's figures in words (`job=serve`): the verdict and the rows
//! of its table, the same on the page, in the CLI and in the static view.

use vram_core::format::{format_bytes, format_number, format_percent, format_seconds, MemoryUnit};
use vram_core::serve::kv_cache::{LayerKind, VllmRelease};
use vram_core::serve::options::Engine;
use vram_core::serve::report::{ServeReport, ServeWarning, Shortfall};
use vram_core::serve::speed::{
    Bound, DECODE_BANDWIDTH_EFFICIENCY, DECODE_COMPUTE_EFFICIENCY, MOE_BANDWIDTH_EFFICIENCY,
    PREFILL_EFFICIENCY,
};
use vram_core::Bytes;

use crate::text::{fill, CliText, Text};
use vram_core::report::serving::ServeRemedy;
use vram_core::Config;

/// One row of the serving table: what it is, its figure, and where the
/// figure comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// A stable name (the page's `data-testid`).
    pub id: &'static str,
    /// What it is.
    pub label: String,
    /// The figure.
    pub value: String,
    /// Its source or formula.
    pub note: String,
    /// The figure unrounded, as the core gives it, and its unit (`B`, `s`,
    /// `tokens`, `tokens/s` …): what a CSV writes. `None` for a row whose
    /// figure is words (nothing left, a field's name).
    pub raw: Option<(f64, &'static str)>,
}

/// Bytes, the unit of every memory row's raw figure.
pub const BYTES: &str = "B";
/// Seconds.
pub const SECONDS: &str = "s";
/// Tokens.
pub const TOKENS: &str = "tokens";
/// Sequences.
pub const SEQUENCES: &str = "sequences";
/// Tokens a second.
pub const TOKENS_PER_SECOND: &str = "tokens/s";

/// Bytes in the page's unit.
fn bytes(value: f64, unit: MemoryUnit) -> String {
    format_bytes(Bytes::new(value), unit)
}

/// The verdict: whether it runs, and why not.
pub fn verdict(t: &Text, config: &Config, report: &ServeReport) -> String {
    let engine = report.engine.name();
    // What starts an engine that does not start (issue 63: the page said
    // "try FP8 weights" where they did not help, or were already FP8).
    let remedy = || match config.serve_remedy() {
        Some(ServeRemedy::Tp(tp)) => fill(t.serve_try_tp, &[&tp.to_string()]),
        Some(ServeRemedy::Fp8AtTp(tp)) => fill(t.serve_try_fp8, &[&tp.to_string()]),
        None => t.serve_try_more.to_string(),
    };
    match report.shortfall {
        None => fill(
            t.serve_fits,
            &[
                engine,
                &format_number(report.kv_tokens as f64),
                &format_number(report.max_concurrency),
                &format_number(f64::from(report.max_model_len)),
            ],
        ),
        Some(Shortfall::NoKvMemory) => fill(t.serve_no_kv, &[engine]) + &remedy(),
        Some(Shortfall::MaxLen { fits }) => {
            fill(
                t.serve_max_len,
                &[
                    engine,
                    &format_number(f64::from(report.max_model_len)),
                    &format_number(f64::from(fits)),
                ],
            ) + &remedy()
        }
        Some(Shortfall::Concurrency { holds }) => fill(
            t.serve_concurrency_short,
            &[
                &format_number(f64::from(report.concurrency)),
                &format_number(holds as f64),
            ],
        ),
    }
}

/// The engine's warnings, in words.
pub fn warnings(t: &Text, report: &ServeReport) -> Vec<String> {
    report
        .warnings
        .iter()
        .map(|w| match w {
            ServeWarning::Capped { tokens } => fill(
                t.serve_capped,
                &[
                    &format_number(f64::from(*tokens)),
                    &format_number(f64::from(report.max_model_len)),
                ],
            ),
        })
        .collect()
}

/// The memory rows: what the engine takes of one GPU, part by part.
pub fn memory_rows(t: &Text, report: &ServeReport, unit: MemoryUnit) -> Vec<Row> {
    let row = |id, label: &str, value: String, note: String, raw: Option<f64>| Row {
        id,
        label: label.to_string(),
        value,
        note,
        raw: raw.map(|b| (b, BYTES)),
    };
    use vram_core::serve::report::Origin;
    let calibration = report.calibration;
    let weights_note = match calibration.map(|c| c.weights) {
        Some(Origin::Measured) => t.serve_measured.to_string(),
        Some(Origin::Scaled) => fill(t.serve_measured_scaled, &[&report.layout.tp.to_string()]),
        _ => fill(
            t.serve_weights_note,
            &[
                &report.layout.tp.to_string(),
                &report.layout.pp.to_string(),
                &report.layout.ep.to_string(),
            ],
        ),
    };
    let mut rows = vec![row(
        "serve-weights",
        t.serve_weights,
        bytes(report.weights_bytes, unit),
        weights_note,
        Some(report.weights_bytes),
    )];
    // The parts a deployment may not hold, each a row where it holds any.
    let rest_measured = calibration.is_some_and(|c| c.rest);
    let activations_note = match rest_measured {
        true => t.serve_measured_rest.to_string(),
        false => fill(
            t.serve_activations_note,
            &[&format_number(f64::from(report.batched_tokens))],
        ),
    };
    for (id, label, held, note) in [
        (
            "serve-activations",
            t.serve_activations,
            report.activation_peak_bytes,
            activations_note,
        ),
        (
            "serve-non-torch",
            t.serve_non_torch,
            report.non_torch_bytes,
            match rest_measured {
                true => t.serve_measured_rest,
                false => t.serve_non_torch_note,
            }
            .to_string(),
        ),
        (
            "serve-graphs",
            t.serve_graphs,
            report.cuda_graph_bytes,
            match (
                calibration.is_some_and(|c| c.cuda_graphs),
                report.vllm_release(),
            ) {
                (true, _) => t.serve_measured,
                (false, Some(VllmRelease::V0_19_1)) => t.serve_graphs_note_after,
                (false, Some(VllmRelease::V0_34_0)) => t.serve_graphs_note_captured,
                (false, _) => t.serve_graphs_note,
            }
            .to_string(),
        ),
    ] {
        if held > 0 {
            rows.push(row(
                id,
                label,
                bytes(held as f64, unit),
                note,
                Some(held as f64),
            ));
        }
    }
    rows.push(row(
        "serve-kv-budget",
        t.serve_kv_budget,
        report.kv_budget_bytes.map_or_else(
            || t.serve_nothing_left.to_string(),
            |b| bytes(b as f64, unit),
        ),
        fill(
            match report.vllm_release() {
                Some(VllmRelease::V0_34_0) => t.serve_kv_budget_note_after_capture,
                _ => t.serve_kv_budget_note,
            },
            &[
                &format_percent(report.gpu_util),
                &bytes(report.cuda_total_bytes as f64, unit),
            ],
        ),
        report.kv_budget_bytes.map(|b| b as f64),
    ));
    rows.push(row(
        "serve-total",
        t.serve_total,
        bytes(report.total_bytes, unit),
        fill(
            t.serve_total_note,
            &[&bytes(report.cuda_total_bytes as f64, unit)],
        ),
        Some(report.total_bytes),
    ));
    rows
}

/// A row with its figure unrounded (`raw`: the value and its unit).
fn row(
    id: &'static str,
    label: &str,
    value: String,
    note: String,
    raw: (f64, &'static str),
) -> Row {
    Row {
        id,
        label: label.to_string(),
        value,
        note,
        raw: Some(raw),
    }
}

/// The KV cache's rows: a token's bytes, each kind's page, the blocks and
/// tokens, the concurrency and the longest length.
pub fn kv_rows(t: &Text, report: &ServeReport, unit: MemoryUnit) -> Vec<Row> {
    let small = |b: u64| format_bytes(Bytes::new(b as f64), unit);
    let mut rows = vec![row(
        "serve-kv-token",
        t.serve_kv_token,
        small(report.kv_bytes_per_token),
        t.serve_kv_token_note.to_string(),
        (report.kv_bytes_per_token as f64, BYTES),
    )];
    for page in &report.pages {
        let kind = match page.kind {
            LayerKind::Full => match page.chunk {
                Some(c) => fill(t.serve_page_chunked, &[&format_number(f64::from(c))]),
                None => t.serve_page_full.to_string(),
            },
            LayerKind::SlidingWindow(w) => {
                fill(t.serve_page_window, &[&format_number(f64::from(w))])
            }
            LayerKind::State => t.serve_page_state.to_string(),
        };
        rows.push(row(
            "serve-kv-page",
            &fill(t.serve_page, &[&kind]),
            small(page.page_bytes),
            match page.block_size {
                1 => fill(t.serve_page_note_one, &[&page.layers.to_string()]),
                block => fill(
                    t.serve_page_note,
                    &[&block.to_string(), &page.layers.to_string()],
                ),
            },
            (page.page_bytes as f64, BYTES),
        ));
    }
    // What each figure is in the chosen engine's own terms.
    let (tokens_note, concurrency_note, longest_note) = match report.engine {
        Engine::Vllm => (
            t.serve_kv_tokens_note,
            t.serve_max_concurrency_note,
            t.serve_max_len_fits_note,
        ),
        Engine::Sglang => (
            t.sglang_kv_tokens_note,
            t.sglang_max_concurrency_note,
            t.sglang_max_len_fits_note,
        ),
        Engine::TrtLlm => (
            t.trtllm_kv_tokens_note,
            t.trtllm_max_concurrency_note,
            t.trtllm_max_len_fits_note,
        ),
    };
    rows.push(row(
        "serve-kv-blocks",
        t.serve_kv_blocks,
        format_number(report.kv_blocks as f64),
        String::new(),
        (report.kv_blocks as f64, "blocks"),
    ));
    rows.push(row(
        "serve-kv-tokens",
        t.serve_kv_tokens,
        format_number(report.kv_tokens as f64),
        tokens_note.to_string(),
        (report.kv_tokens as f64, TOKENS),
    ));
    rows.push(row(
        "serve-max-concurrency",
        &fill(
            t.serve_max_concurrency,
            &[&format_number(f64::from(report.max_model_len))],
        ),
        format!("{}×", format_number(report.max_concurrency)),
        concurrency_note.to_string(),
        (report.max_concurrency, SEQUENCES),
    ));
    rows.push(row(
        "serve-max-len",
        t.serve_max_len_fits,
        format_number(f64::from(report.max_model_len_fits)),
        longest_note.to_string(),
        (f64::from(report.max_model_len_fits), TOKENS),
    ));
    rows
}

/// The speed's rows, with a GPU whose bandwidths are known.
pub fn speed_rows(t: &Text, report: &ServeReport) -> Vec<Row> {
    // A deployment that does not run has no speed to show.
    let Some(speed) = report.speed.filter(|_| report.fits) else {
        return Vec::new();
    };
    let per_s = |v: f64| fill(t.serve_tokens_per_second, &[&format_number(v)]);
    let mut rows = vec![
        row(
            "serve-concurrency",
            t.serve_concurrency,
            format_number(f64::from(report.concurrency)),
            fill(
                match report.engine {
                    Engine::Vllm => t.serve_concurrency_note,
                    Engine::Sglang | Engine::TrtLlm => t.serve_concurrency_note_other,
                },
                &[&format_number(report.concurrency_holds as f64)],
            ),
            (f64::from(report.concurrency), SEQUENCES),
        ),
        row(
            "serve-ttft",
            t.serve_ttft,
            format_seconds(speed.ttft_seconds),
            fill(t.serve_ttft_note, &[&format_percent(PREFILL_EFFICIENCY)]),
            (speed.ttft_seconds, SECONDS),
        ),
        row(
            "serve-tpot",
            t.serve_tpot,
            format_seconds(speed.tpot_seconds),
            match speed.bound {
                Bound::Memory => fill(
                    t.serve_bound_memory,
                    &[
                        &format_percent(DECODE_BANDWIDTH_EFFICIENCY),
                        &format_percent(MOE_BANDWIDTH_EFFICIENCY),
                    ],
                ),
                Bound::Compute => fill(
                    t.serve_bound_compute,
                    &[&format_percent(DECODE_COMPUTE_EFFICIENCY)],
                ),
            },
            (speed.tpot_seconds, SECONDS),
        ),
        row(
            "serve-decode",
            t.serve_decode,
            per_s(speed.decode_tokens_per_second),
            fill(
                t.serve_decode_note,
                &[
                    &per_s(speed.decode_tokens_per_second_per_gpu),
                    &per_s(speed.tokens_per_second_per_sequence),
                ],
            ),
            (speed.decode_tokens_per_second, TOKENS_PER_SECOND),
        ),
        row(
            "serve-prefill",
            t.serve_prefill,
            per_s(speed.prefill_tokens_per_second),
            String::new(),
            (speed.prefill_tokens_per_second, TOKENS_PER_SECOND),
        ),
    ];
    if let Some(cost) = speed.cost_per_million_tokens {
        rows.push(row(
            "serve-cost",
            t.serve_cost,
            format_number(cost),
            t.serve_cost_note.to_string(),
            (cost, "per million tokens"),
        ));
    }
    rows
}

/// The deployment's tables, each under its heading, in the order every
/// view shows them: memory, the KV cache, speed (empty when it does not run).
pub fn sections(t: &Text, report: &ServeReport, unit: MemoryUnit) -> [(&'static str, Vec<Row>); 3] {
    [
        (t.serve_memory_heading, memory_rows(t, report, unit)),
        (t.serve_kv_heading, kv_rows(t, report, unit)),
        (t.serve_speed_heading, speed_rows(t, report)),
    ]
}

/// What is served, on what: the model, the GPUs, the layout and the engine
/// (`vram`'s first line, the static view's caption).
pub fn heading(t: &Text, c: &CliText, config: &Config, report: &ServeReport) -> String {
    fill(
        c.serve_heading,
        &[
            &model_name(c, config),
            &(config.gpus * config.runtime.nodes).to_string(),
            &gpu_name(config),
            &report.replicas.to_string(),
            if report.replicas == 1 { "" } else { t.plural_s },
            &report.layout.tp.to_string(),
            &report.layout.pp.to_string(),
            &match report.layout.ep {
                1 => String::new(),
                ep => fill(c.serve_ep, &[&ep.to_string()]),
            },
            report.engine.name(),
            report.engine_version,
            config.serve.weights.key(),
            config.serve.kv_dtype.key(),
        ],
    )
}

/// The model of a deployment's or an RL run's heading: its preset's name,
/// or, its architecture edited, a custom model from that preset.
pub fn model_name(c: &CliText, config: &Config) -> String {
    match config.model {
        None => c.a_model.to_string(),
        Some(model) => match model.preset() {
            Some(preset) => preset.name.to_string(),
            None => fill(c.custom_model, &[model.base.name]),
        },
    }
}

/// The GPU of a deployment's or an RL run's heading: its preset's name,
/// else its memory in GB.
pub fn gpu_name(config: &Config) -> String {
    config.gpu.map_or_else(
        || format!("{} GB", format_number(config.gpu_mem_gb)),
        |g| g.name.to_string(),
    )
}

/// One ranked serving layout in words, and the link that applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRow {
    /// TP × PP, and EP where the experts are split.
    pub layout: String,
    /// Replicas of the layout.
    pub replicas: String,
    /// The weights' format.
    pub weights: &'static str,
    /// The KV cache's type.
    pub kv_dtype: &'static str,
    /// Sequences at once per replica.
    pub concurrency: String,
    /// Time per output token.
    pub tpot: String,
    /// Output tokens a second per GPU.
    pub per_gpu: String,
    /// The price of a million output tokens, with a price.
    pub cost: String,
    /// The link of the configuration with this layout.
    pub query: String,
}

/// The ranked layouts of `config` in words.
pub fn plan_rows(
    t: &Text,
    config: &vram_core::Config,
    plans: &[vram_core::serve::plans::ServePlan],
) -> Vec<PlanRow> {
    use vram_core::serve::options::WEIGHT_FORMATS;
    plans
        .iter()
        .map(|plan| {
            let layout = plan.layout;
            let speed = plan.report.speed;
            PlanRow {
                layout: match layout.ep {
                    1 => format!("TP {} × PP {}", layout.tp, layout.pp),
                    ep => format!("TP {} × PP {}, EP {ep}", layout.tp, layout.pp),
                },
                replicas: plan.report.replicas.to_string(),
                weights: WEIGHT_FORMATS
                    .iter()
                    .position(|&w| w == plan.weights)
                    .map_or("", |i| t.weights[i]),
                kv_dtype: plan.kv_dtype.key(),
                concurrency: format_number(f64::from(plan.report.concurrency)),
                tpot: speed.map_or_else(String::new, |s| format_seconds(s.tpot_seconds)),
                per_gpu: speed.map_or_else(String::new, |s| {
                    format_number(s.decode_tokens_per_second_per_gpu)
                }),
                cost: speed
                    .and_then(|s| s.cost_per_million_tokens)
                    .map_or_else(String::new, format_number),
                query: vram_core::input::link::encode(&config.with_serve_plan(plan)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 63: under SGLang the notes said "vLLM's …". The sequences
    /// decoded at once are told apart from the whole sequences above in
    /// the engine's own terms: vLLM's log line under vLLM, not under SGLang.
    #[test]
    fn the_concurrency_note_speaks_the_engines_terms() {
        let t = crate::text::of(vram_core::format::Lang::En);
        let note = |engine: &str| {
            let query = format!(
                "v=3&job=serve&engine={engine}&model=llama3.1-8b&gpu=h100-80gb&gpus=1&engine_version=0.34.0"
            );
            let report = vram_core::input::link::decode(&query)
                .config
                .serve_report()
                .unwrap();
            let rows = speed_rows(t, &report);
            rows.into_iter()
                .find(|r| r.id == "serve-concurrency")
                .map(|r| r.note)
                .unwrap()
        };
        assert!(note("vllm").contains("vLLM's \"Maximum concurrency\""));
        let sglang = note("sglang");
        assert!(!sglang.contains("vLLM"), "{sglang}");
        assert!(sglang.contains("the sequences above count whole sequences of max_model_len"));
    }
}
