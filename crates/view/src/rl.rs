//! An RL run's figures in words (`job=rl`): the verdict, each phase's
//! parts on one GPU, the step's time, and the run as verl's overrides; the
//! same on the page and in the CLI.

use vram_core::format::{format_bytes, format_number, format_percent, format_seconds, MemoryUnit};
use vram_core::rl::{PhaseReport, RlPart, RlReport, Stage};
use vram_core::{Bytes, Config};

use crate::serving::{Row, BYTES, SECONDS, SEQUENCES, TOKENS};
use crate::text::{fill, CliText, Text};

/// A part's name.
pub fn part_label(t: &Text, part: RlPart) -> &'static str {
    match part {
        RlPart::ActorStates => t.rl_actor_states,
        RlPart::ActorStep => t.rl_actor_step,
        RlPart::TrainerResident => t.rl_trainer_resident,
        RlPart::Reference => t.rl_reference,
        RlPart::Critic => t.rl_critic,
        RlPart::RewardModel => t.rl_reward_model,
        RlPart::LogProbs => t.rl_log_probs,
        RlPart::EngineWeights => t.rl_engine_weights,
        RlPart::EngineOverheads => t.rl_engine_overheads,
        RlPart::EngineKv => t.rl_engine_kv,
        RlPart::EngineAsleep => t.rl_engine_asleep,
        RlPart::Teacher => t.rl_teacher,
        RlPart::TeacherLogits => t.rl_teacher_logits,
        RlPart::WeightSync => t.rl_weight_sync,
        RlPart::FsdpRoot => t.rl_fsdp_root,
        RlPart::Process => t.rl_process,
    }
}

/// How far the run goes on these GPUs ([`vram_core::rl::limits::RlLimits`]).
pub fn limit_rows(t: &Text, limits: &vram_core::rl::limits::RlLimits) -> Vec<Row> {
    let tokens = |n: Option<u32>| match n {
        Some(n) => fill(t.rl_tokens, &[&format_number(f64::from(n))]),
        None => t.rl_none_fits.to_string(),
    };
    let raw = |n: Option<u32>| n.map(|n| (f64::from(n), TOKENS));
    vec![
        Row {
            id: "rl-longest-response",
            label: t.rl_longest_response.to_string(),
            value: tokens(limits.largest_response_len),
            note: t.rl_longest_response_note.to_string(),
            raw: raw(limits.largest_response_len),
        },
        Row {
            id: "rl-largest-budget",
            label: t.rl_largest_budget.to_string(),
            value: tokens(limits.largest_token_budget),
            note: t.rl_largest_budget_note.to_string(),
            raw: raw(limits.largest_token_budget),
        },
        Row {
            id: "rl-fewest-gpus",
            label: t.rl_fewest_gpus.to_string(),
            value: limits.fewest_gpus.map_or(t.rl_none_fits.to_string(), |f| {
                format_number(f64::from(f.gpus_per_node * f.nodes))
            }),
            note: limits.fewest_gpus.map_or(String::new(), |f| {
                fill(
                    t.rl_fewest_gpus_note,
                    &[&f.gpus_per_node.to_string(), &f.nodes.to_string()],
                )
            }),
            raw: limits
                .fewest_gpus
                .map(|f| (f64::from(f.gpus_per_node * f.nodes), "GPUs")),
        },
    ]
}

/// The generating phase's heading: beside the trainer, or apart.
pub fn generate_heading(t: &Text, config: &Config) -> &'static str {
    match config.rl.placement {
        vram_core::config::rl::Placement::Colocate => t.rl_generate_heading,
        vram_core::config::rl::Placement::Split => t.rl_generate_split_heading,
    }
}

/// The verdict: whether each phase fits on a GPU.
pub fn verdict(t: &Text, config: &Config, report: &RlReport, unit: MemoryUnit) -> String {
    // Where the limits keep back the lesson's reserve, it says so (issue 63:
    // "the RL limit 82.1 GB of an H20 is unexplained").
    let reserved = match config.overhead > 0.0 {
        true => fill(
            t.rl_reserved,
            &[
                &format_bytes(Bytes::new(config.gpu_mem_gb * 1e9), unit),
                &vram_core::format::format_percent(config.overhead),
            ],
        ),
        false => String::new(),
    };
    phases_verdict(t, config, report, unit) + &reserved
}

/// The phases' verdict: what each holds against its limit.
fn phases_verdict(t: &Text, config: &Config, report: &RlReport, unit: MemoryUnit) -> String {
    let split = config.rl.placement == vram_core::config::rl::Placement::Split;
    let b = |v: f64| format_bytes(Bytes::new(v), unit);
    let learn = &report.learn;
    match &report.generate {
        None => fill(
            if learn.fits {
                t.rl_fits_learn
            } else {
                t.rl_short_learn
            },
            &[&b(learn.total_bytes), &b(learn.limit_bytes)],
        ),
        Some(generate) => fill(
            match (generate.fits, learn.fits) {
                (true, true) if split => t.rl_fits_split,
                (true, true) => t.rl_fits,
                (false, true) if split => t.rl_short_generate_split,
                (false, true) => t.rl_short_generate,
                (true, false) => t.rl_short_learn_phase,
                (false, false) => t.rl_short_both,
            },
            &[
                &b(generate.total_bytes),
                &b(learn.total_bytes),
                &b(generate.limit_bytes),
                &b(learn.limit_bytes),
            ],
        ),
    }
}

/// The engine's memory fraction the rollout needs, when the one asked does not hold it.
pub fn util_note(t: &Text, config: &Config, report: &RlReport) -> Option<String> {
    let generate = report.generate.as_ref()?;
    let asked = config.rl_gpu_util();
    match (generate.fits, report.min_gpu_util) {
        (true, _) => None,
        // A smaller fraction fits: the engine had room, the GPU had not.
        (false, Some(util)) if util < asked => Some(fill(
            t.rl_lower_util,
            &[&format_number(asked), &format_number(util)],
        )),
        (false, Some(util)) => Some(fill(
            t.rl_needs_util,
            &[&format_number(asked), &format_number(util)],
        )),
        (false, None) => Some(t.rl_no_util.to_string()),
    }
}

/// Learning at the longest lengths, when the figures are at mean lengths below them.
pub fn maximum_note(
    t: &Text,
    config: &Config,
    report: &RlReport,
    unit: MemoryUnit,
) -> Option<String> {
    let longest = report.at_maximum.as_ref()?;
    let b = |v: f64| format_bytes(Bytes::new(v), unit);
    let mean = config.rl.prompt_mean.unwrap_or(config.serve.prompt_len)
        + config.rl.response_mean.unwrap_or(config.serve.response_len);
    let most = config.serve.prompt_len + config.serve.response_len;
    Some(fill(
        t.rl_at_maximum,
        &[
            &format_number(f64::from(mean)),
            &format_number(f64::from(most)),
            &b(longest.total_bytes),
            &b(longest.limit_bytes),
        ],
    ))
}

/// Every note beside the verdict, in the order shown: the lengths the
/// figures are at, the engine's fraction, host RAM.
pub fn notes(t: &Text, config: &Config, report: &RlReport, unit: MemoryUnit) -> Vec<String> {
    [
        maximum_note(t, config, report, unit),
        util_note(t, config, report),
        host_note(t, config, report),
        engine_note(t, config, report, unit),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The rollout engine the figures count, when a link names one
/// (`engine`): SGLang's or TensorRT-LLM's under verl, their caches taken
/// from the memory free beside the trainer; vLLM's otherwise, said when the
/// link names an engine the framework does not run (OpenRLHF, TRL).
pub fn engine_note(
    t: &Text,
    config: &Config,
    report: &RlReport,
    unit: MemoryUnit,
) -> Option<String> {
    use vram_core::serve::options::Engine;
    let counted = report.rollout_engine?;
    let asked = config.serve.engine;
    match (asked, counted) {
        (Engine::Sglang, Engine::Sglang) => Some(fill(
            t.rl_engine_sglang,
            &[
                &format_number(config.rl_gpu_util()),
                &format_bytes(Bytes::new(report.held_at_start_bytes as f64), unit),
            ],
        )),
        (Engine::TrtLlm, Engine::TrtLlm) => Some(fill(
            t.rl_engine_trtllm,
            &[
                &format_number(config.rl_gpu_util()),
                &format_bytes(Bytes::new(report.held_at_start_bytes as f64), unit),
            ],
        )),
        (Engine::Vllm, _) => None,
        (asked, _) => Some(fill(
            t.rl_engine_not_counted,
            &[asked.name(), framework_name(t, config.rl.framework)],
        )),
    }
}

/// The framework's name as the page writes it.
fn framework_name(t: &Text, framework: vram_core::config::rl::RlFramework) -> &'static str {
    use vram_core::config::rl::RlFramework;
    match framework {
        RlFramework::Verl => t.rl_framework[0],
        RlFramework::OpenRlhf => t.rl_framework[1],
        RlFramework::Trl => t.rl_framework[2],
    }
}

/// Host RAM against the node's (`host_mem`), when given and short: what
/// holds it, and the key that frees it.
pub fn host_note(t: &Text, config: &Config, report: &RlReport) -> Option<String> {
    let have = config.runtime.host_mem_gb? * 1e9;
    if report.host_bytes_per_node <= have {
        return None;
    }
    let b = |v: f64| format_bytes(Bytes::new(v), MemoryUnit::Gb);
    let mut keys: Vec<&str> = Vec::new();
    if config.rl.sleep == 1 && report.generate.is_some() {
        keys.push(t.rl_host_sleep);
    }
    if config.rl.reference_model() && config.rl.ref_offload {
        keys.push(t.rl_host_ref);
    }
    if config.runtime.offload != vram_core::frameworks::deepspeed::Offload::None {
        keys.push(t.rl_host_offload);
    }
    Some(fill(
        t.rl_host_short,
        &[
            &b(report.host_bytes_per_node),
            &b(have),
            &keys.join(t.list_separator),
        ],
    ))
}

/// A phase's rows: each part, then the total against what it may use.
pub fn phase_rows(t: &Text, phase: &PhaseReport, unit: MemoryUnit) -> Vec<Row> {
    let b = |v: f64| format_bytes(Bytes::new(v), unit);
    let mut rows: Vec<Row> = phase
        .parts
        .iter()
        .map(|(part, bytes)| Row {
            id: "rl-part",
            label: part_label(t, *part).to_string(),
            value: b(*bytes),
            note: String::new(),
            raw: Some((*bytes, BYTES)),
        })
        .collect();
    rows.push(Row {
        id: "rl-total",
        label: t.rl_total.to_string(),
        value: b(phase.total_bytes),
        note: fill(t.rl_of, &[&b(phase.limit_bytes)]),
        raw: Some((phase.total_bytes, BYTES)),
    });
    rows
}

/// The step's rows: its sequences and tokens, host RAM, time and shares.
pub fn step_rows(t: &Text, report: &RlReport, unit: MemoryUnit) -> Vec<Row> {
    let mut rows = vec![
        Row {
            id: "rl-sequences",
            label: t.rl_sequences.to_string(),
            value: format_number(report.sequences as f64),
            note: fill(t.rl_tokens, &[&format_number(report.tokens as f64)]),
            raw: Some((report.sequences as f64, SEQUENCES)),
        },
        Row {
            id: "rl-host",
            label: t.rl_host.to_string(),
            value: format_bytes(Bytes::new(report.host_bytes_per_node), unit),
            note: t.rl_host_note.to_string(),
            raw: Some((report.host_bytes_per_node, BYTES)),
        },
    ];
    if let Some(time) = report.time {
        let share = |s: f64| format_percent(s / time.step_seconds.max(1e-12));
        rows.push(Row {
            id: "rl-step",
            label: t.rl_step.to_string(),
            value: format_seconds(time.step_seconds),
            note: fill(
                t.rl_step_note,
                &[
                    &share(time.rollout_seconds),
                    &share(time.transfer.total()),
                    &share(time.log_prob_seconds),
                    &share(time.learn_seconds),
                ],
            ),
            raw: Some((time.step_seconds, SECONDS)),
        });
    }
    rows
}

/// A phase's name.
pub fn stage_label(t: &Text, stage: Stage) -> &'static str {
    match stage {
        Stage::Wake => t.rl_stage_wake,
        Stage::WeightSync => t.rl_stage_sync,
        Stage::Generate => t.rl_stage_generate,
        Stage::Sleep => t.rl_stage_sleep,
        Stage::LogProbs => t.rl_stage_log_probs,
        Stage::Update => t.rl_stage_update,
    }
}

/// The step's phases in order (what each holds, its time, the peak
/// marked), then the input that relieves the peak, named as the page's
/// field and its link key.
pub fn timeline_rows(t: &Text, report: &RlReport, unit: MemoryUnit) -> Vec<Row> {
    let timeline = &report.timeline;
    let mut rows: Vec<Row> = timeline
        .stages
        .iter()
        .map(|s| {
            let mut notes: Vec<String> = Vec::new();
            if let Some(seconds) = s.seconds {
                notes.push(fill(t.rl_stage_seconds, &[&format_seconds(seconds)]));
            }
            if s.stage == timeline.peak {
                notes.push(t.rl_stage_peak.to_string());
            }
            if s.on_engine_gpus {
                notes.push(t.rl_stage_engine_gpus.to_string());
            }
            Row {
                id: "rl-stage",
                label: stage_label(t, s.stage).to_string(),
                value: format_bytes(Bytes::new(s.bytes), unit),
                note: notes.join(t.list_separator),
                raw: Some((s.bytes, BYTES)),
            }
        })
        .collect();
    let field = crate::text::field_text(t, timeline.relief);
    rows.push(Row {
        id: "rl-relief",
        label: t.rl_relief.to_string(),
        // The field's label, then its key in brackets of the language.
        value: format!(
            "{}{}",
            field.label,
            fill(t.model_named, &[timeline.relief.key()])
        ),
        note: t.rl_relief_note.to_string(),
        raw: None,
    });
    rows
}

/// The run's tables, each under its heading, in the order every view shows
/// them: generating (with rollouts), learning, the step, the step phase by
/// phase, and how far it goes (`limits`, [`Config::rl_limits`]).
pub fn sections(
    t: &Text,
    config: &Config,
    report: &RlReport,
    limits: &vram_core::rl::limits::RlLimits,
) -> Vec<(&'static str, Vec<Row>)> {
    let unit = config.unit;
    let mut sections = Vec::new();
    if let Some(generate) = &report.generate {
        sections.push((generate_heading(t, config), phase_rows(t, generate, unit)));
    }
    sections.push((t.rl_learn_heading, phase_rows(t, &report.learn, unit)));
    sections.push((t.rl_step_heading, step_rows(t, report, unit)));
    sections.push((t.rl_timeline_heading, timeline_rows(t, report, unit)));
    sections.push((t.rl_limits_heading, limit_rows(t, limits)));
    sections
}

/// What is trained, on what: the algorithm, the model and the GPUs
/// (`vram`'s first line, the static view's caption).
pub fn heading(c: &CliText, config: &Config) -> String {
    fill(
        c.rl_heading,
        &[
            &config.rl.algo.key().to_uppercase(),
            &crate::serving::model_name(c, config),
            &(config.gpus * config.runtime.nodes).to_string(),
            &crate::serving::gpu_name(config),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 63: "the RL limit 82.1 GB of an H20 is unexplained". A link
    /// that keeps the lesson's 20 % says the limits are the H20's 102.63 GB
    /// less it; without a reserve nothing is added.
    /// What `say` says of the RL run of the link `query`, in English.
    fn said_of(
        query: &str,
        say: fn(&Text, &Config, &RlReport, MemoryUnit) -> Option<String>,
    ) -> Option<String> {
        let config = vram_core::input::link::decode(query).config;
        let report = config.rl_report().unwrap();
        say(
            crate::text::of(vram_core::format::Lang::En),
            &config,
            &report,
            MemoryUnit::Gb,
        )
    }

    #[test]
    fn a_reserved_share_is_said_beside_the_limits() {
        let said = |query: &str| said_of(query, |t, c, r, u| Some(verdict(t, c, r, u))).unwrap();
        let base = "v=3&job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2";
        let kept = said(base);
        assert!(kept.contains("(of 82.1 GB and 82.1 GB)"), "{kept}");
        assert!(
            kept.ends_with("The limits are each GPU's 102.63 GB less the 20 % reserved (overhead; 0 counts only what the phases hold)."),
            "{kept}"
        );
        let none = said(&format!("{base}&overhead=0"));
        assert!(!none.contains("reserved"), "{none}");
    }

    /// Host RAM past the node's: the note names what holds it and the key
    /// that frees it; none when it fits or no host memory is given.
    #[test]
    fn host_ram_past_the_nodes_is_named() {
        let t = crate::text::of(vram_core::format::Lang::En);
        let config = vram_core::input::link::decode(
            "job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&sleep=1&host_mem=100",
        )
        .config;
        let report = config.rl_report().unwrap();
        assert!(
            report.host_bytes_per_node > 100e9,
            "{}",
            report.host_bytes_per_node
        );
        let note = host_note(t, &config, &report).unwrap();
        assert!(note.starts_with("Host RAM: "), "{note}");
        assert!(note.contains("sleep=2 discards"), "{note}");
        assert!(note.contains("ref_offload=0"), "{note}");
        let mut roomy = config;
        roomy.runtime.host_mem_gb = Some(2000.0);
        assert_eq!(host_note(t, &roomy, &roomy.rl_report().unwrap()), None);
    }

    /// Issue 61: `engine=sglang` in an RL link was accepted and ignored.
    /// A generate phase that outgrows the GPU while its engine has room is
    /// told a smaller fraction fits (it was told the engine had no room for
    /// a sequence); an engine short of room, the larger fraction it needs.
    #[test]
    fn the_fraction_note_says_which_way() {
        let note = |query: &str| said_of(query, |t, c, r, _| util_note(t, c, r));
        let base = "job=rl&algo=ppo&model=qwen2.5-7b&layers=24&hidden=896&ffn=4864&heads=14&kv_heads=2&vocab=151936&tied=1&gpu=rtx4090&gpus=1&dtype=bf16&stage=3&recompute=full&mbs=4&prompt_len=512&response_len=512&prompts=256&rollouts=1&rollout_tp=1&ref=none&overhead=0";
        let lower = note(&format!("{base}&gpu_util=0.6")).unwrap();
        assert!(lower.starts_with("At gpu_util 0.6 the engine and what the trainer keeps beside it outgrow the GPU; a smaller fraction fits, from 0."), "{lower}");
        let higher = note("job=rl&model=llama3.1-8b&gpu=h100-80gb&gpus=1&dtype=bf16&stage=3&offload=all&recompute=full&overhead=0&gpu_util=0.2");
        assert_eq!(
            higher.as_deref(),
            Some("At gpu_util 0.2 the rollout engine has no room for a sequence; from 0.22 it has, beside the trainer.")
        );
    }

    /// verl's SGLang rollout is counted and said with what the trainer
    /// holds at its start; another engine a framework does not run is said
    /// not counted; a link without one hears nothing.
    #[test]
    fn the_rollout_engine_is_said() {
        let note = |query: &str| said_of(query, engine_note);
        let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&offload=all";
        assert_eq!(note(base), None);
        let sglang = note(&format!("{base}&engine=sglang")).unwrap();
        assert!(
            sglang.starts_with(
                "SGLang's rollout (rollout.name=sglang): its KV pool is mem_fraction_static (0.5)"
            ),
            "{sglang}"
        );
        let trtllm = note(&format!("{base}&engine=trtllm")).unwrap();
        assert!(
            trtllm.starts_with("TensorRT-LLM's rollout (rollout.name=trtllm): its KV cache is free_gpu_memory_fraction (0.5)"),
            "{trtllm}"
        );
        let openrlhf = note(&format!("{base}&engine=sglang&rl_framework=openrlhf")).unwrap();
        assert_eq!(
            openrlhf,
            "The rollout is counted as vLLM runs it: SGLang's rollout is not counted under OpenRLHF."
        );
    }
}
