//! Property tests: no input panics, results are finite and consistent, links round-trip.
//! Native only (proptest does not target wasm32); the unit tests run in both.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use vram_core::config::ModelSpec;
use vram_core::input::link::{decode, encode};
use vram_core::memory::finetune::{AdapterDtype, BnbRelease, FineTuning, Method, Quant, Targets};
use vram_core::model::presets::MODEL_PRESETS;
use vram_core::{
    Config, Field, GradientPrecision, Optimizer, Part, Parts, Precision, Strategy as ZeroStrategy,
};

fn any_precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(Precision::ALL.to_vec())
}
fn any_gradients() -> impl Strategy<Value = GradientPrecision> {
    prop::sample::select(GradientPrecision::ALL.to_vec())
}
fn any_optimizer() -> impl Strategy<Value = Optimizer> {
    prop::sample::select(Optimizer::ALL.to_vec())
}
fn any_strategy() -> impl Strategy<Value = ZeroStrategy> {
    prop::sample::select(ZeroStrategy::ALL.to_vec())
}

/// The fields the generators below draw, in `Config`'s order.
type Fields = (
    f64,
    u32,
    f64,
    (Precision, GradientPrecision),
    Optimizer,
    f64,
    ZeroStrategy,
    (Parts, bool),
    (Option<ModelSpec>, FineTuning),
);

fn config_of(fields: Fields) -> Config {
    let config = config_of_fields(fields);
    // A model gives its own size.
    match config.model {
        Some(model) => Config {
            params_billions: model.params_billions(),
            ..config
        },
        None => config,
    }
}

fn config_of_fields(fields: Fields) -> Config {
    let (
        params_billions,
        gpus,
        gpu_mem_gb,
        (precision, gradients),
        optimizer,
        overhead,
        highlight,
        (show, controls),
        (model, fine_tuning),
    ) = fields;
    // Transformer Engine's FP8 trains fully (no adapters) and is not counted
    // with linear attention; a valid configuration takes BF16 instead.
    let linear = model.is_some_and(|m| m.architecture.linear.is_some());
    let precision = match (precision, fine_tuning.method.uses_adapters() || linear) {
        (Precision::Fp8 | Precision::Fp8Params, true) => Precision::Bf16,
        (p, _) => p,
    };
    Config {
        params_billions,
        gpus,
        gpu_mem_gb,
        precision,
        gradients,
        optimizer,
        overhead,
        highlight,
        show,
        controls,
        model,
        fine_tuning,
        ..Config::default()
    }
}

/// Full training without a model, or any method on a preset (adapters need
/// an architecture, and a dense one), with any rank, targets and storage.
fn any_fine_tuning() -> impl Strategy<Value = (Option<ModelSpec>, FineTuning)> {
    let tuning = (
        prop::sample::select(Method::ALL.to_vec()),
        1u32..=65_536,
        prop::sample::select(Targets::ALL.to_vec()),
        prop::sample::select(Quant::ALL.to_vec()),
        any::<bool>(),
        prop::sample::select(vec![0.0, 0.05, 0.1, 0.5]),
        prop::sample::select(AdapterDtype::ALL.to_vec()),
        (
            any::<bool>(),
            prop::sample::select(BnbRelease::ALL.to_vec()),
        ),
    )
        .prop_map(
            |(
                method,
                rank,
                targets,
                quant,
                double_quant,
                lora_dropout,
                adapter_dtype,
                (dora, bnb),
            )| {
                FineTuning {
                    method,
                    rank,
                    targets,
                    quant,
                    double_quant,
                    bnb,
                    lora_dropout,
                    adapter_dtype,
                    dora,
                    frozen_base_fp32: false,
                }
            },
        );
    prop_oneof![
        Just((None, FineTuning::default())),
        (
            prop::sample::select(MODEL_PRESETS.iter().collect::<Vec<_>>()),
            tuning
        )
            .prop_map(|(preset, tuning)| {
                // Adapters adapt dense models; a mixture of experts trains
                // fully, as does linear or gated attention.
                let a = preset.architecture;
                let tuning = match a.moe.is_moe()
                    || a.mla.is_latent()
                    || a.linear.is_some()
                    || a.gated_attention
                {
                    true => FineTuning::default(),
                    false => tuning,
                };
                (Some(ModelSpec::of(preset)), tuning)
            }),
    ]
}

/// Any non-empty set of the page's parts.
fn any_parts() -> impl Strategy<Value = Parts> {
    prop::sample::subsequence(Part::ALL.to_vec(), 1..=Part::ALL.len())
        .prop_map(|parts| parts.into_iter().fold(Parts::NONE, Parts::with))
}

/// Any configuration, valid or not, including NaN and infinities.
fn any_config() -> impl Strategy<Value = Config> {
    (
        any::<f64>(),
        any::<u32>(),
        any::<f64>(),
        (any_precision(), any_gradients()),
        any_optimizer(),
        any::<f64>(),
        any_strategy(),
        (any_parts(), any::<bool>()),
        any_fine_tuning(),
    )
        .prop_map(config_of)
}

/// Any configuration within every field's limits.
fn valid_config() -> impl Strategy<Value = Config> {
    (
        0.001f64..=1e6,
        1u32..=1_048_576,
        0.1f64..=1e4,
        (any_precision(), any_gradients()),
        any_optimizer(),
        prop_oneof![Just(0.0), 1e-9f64..=0.95],
        any_strategy(),
        (any_parts(), any::<bool>()),
        any_fine_tuning(),
    )
        .prop_map(config_of)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_config_gives_a_report_or_errors_naming_fields(config in any_config()) {
        match config.report() {
            Ok(report) => {
                for row in report.strategies {
                    prop_assert!(row.memory.total.get().is_finite());
                    prop_assert!(row.max_params.get().is_finite());
                }
            }
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                for error in errors {
                    prop_assert!(error.to_string().contains(error.field.key()));
                }
            }
        }
    }

    #[test]
    fn valid_configs_give_positive_finite_consistent_figures(config in valid_config()) {
        let report = config.report().expect("within limits");
        let mut previous_total = f64::INFINITY;
        for row in report.strategies {
            let m = row.memory;
            let parts = m.weights.get()
                + m.gradients.get()
                + m.optimizer_states.get()
                + m.activations.get()
                + m.buffers.get();
            prop_assert!(m.total.get() > 0.0 && m.total.get().is_finite());
            prop_assert!((parts - m.total.get()).abs() <= 1e-12 * m.total.get());
            // Each stage shards more, so it never needs more memory than the one before.
            prop_assert!(m.total.get() <= previous_total);
            previous_total = m.total.get();
            // The inverse: the largest model's states fill the usable memory
            // exactly, beside what the step's peak holds that does not grow
            // with the model (buffers, QLoRA's working copy, activations).
            let filled = row.max_params.get() * row.bytes_per_param.total();
            let usable = report.budget.usable().get();
            let peak = row.step.peak().1.get();
            let params = report.setup.params().get();
            let beside = peak - params * row.bytes_per_param.total();
            prop_assert!((row.beside_states.get() - beside).abs() <= 1e-9 * peak.max(1.0));
            let room = (usable - beside).max(0.0);
            prop_assert!((filled - room).abs() <= 1e-9 * usable.max(1.0));
            prop_assert_eq!(row.fits, m.total <= report.budget.usable());
            // The largest model and the verdict agree, away from the boundary.
            if (peak - usable).abs() > 1e-9 * usable.max(1.0) {
                prop_assert_eq!(row.max_params.get() >= params, row.fits);
            }
        }
    }

    #[test]
    fn the_form_reads_back_every_valid_configuration(config in valid_config()) {
        let parsed = vram_core::input::form::parse(|field| vram_core::input::form::text_of(&config, field));
        prop_assert_eq!(parsed, Ok(config));
    }

    #[test]
    fn encode_then_decode_is_identity(config in valid_config()) {
        let decoded = decode(&encode(&config));
        prop_assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        prop_assert_eq!(decoded.config, config);
    }
}

// The decoder's totality: 100,000 cases each of arbitrary strings and of link-shaped ones.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(100_000))]

    #[test]
    fn decode_never_panics_on_any_string(query in ".*") {
        let decoded = decode(&query);
        prop_assert!(decoded.config.check().is_ok(), "a decoded link is always valid: {:?}", decoded);
        if decoded.config.job == vram_core::config::job::Job::Serve {
            prop_assert!(decoded.config.serve_report().is_ok());
        }
        if decoded.config.job == vram_core::config::job::Job::Rl {
            prop_assert!(decoded.config.rl_report().is_ok());
        }
    }

    #[test]
    fn decode_never_panics_on_link_shaped_strings(
        pairs in prop::collection::vec(
            (prop::sample::select(
                vram_core::input::link::all_fields().map(Field::key).chain(["v", "x"]).collect::<Vec<_>>()
            ),
             prop_oneof![
                 "[-+.eE0-9a-zA-Z%<>\"'& =#?\u{4e03}]{0,12}",
                 "[0-9]{1,7}",
                 prop::sample::select(vec![
                     "llama2-70b", "qwen2.5-7b", "gpt3-175b", "h100-80gb", "t4", "swiglu", "gelu",
                     "full", "selective", "0", "1", "deepspeed", "all", "optimizer", "nvme",
                     "table", "form,memory", "scaling, Table", "table,",
                     "lora", "qlora", "attn", "mlp", "int8", "nf4", "64",
                     "serve", "train", "vllm", "sglang", "trtllm", "fp8", "mxfp4", "8", "32768",
                     "rl", "grpo", "ppo", "dpo", "adapters", "precomputed", "chunked", "fused", "2",
                     "distill", "qwen2.5-32b", "qwen3-8b", "split", "colocate", "verl", "openrlhf", "trl",
                 ]).prop_map(str::to_string),
             ]),
            0..10)
    ) {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let decoded = decode(&query.join("&"));
        // Valid for its job: training's report, or serving's.
        prop_assert!(decoded.config.check().is_ok());
        match decoded.config.job {
            vram_core::config::job::Job::Train => prop_assert!(decoded.config.report().is_ok()),
            vram_core::config::job::Job::Serve => prop_assert!(decoded.config.serve_report().is_ok()),
            vram_core::config::job::Job::Rl => prop_assert!(decoded.config.rl_report().is_ok()),
        }
        // The page's form, filled from the link, reads back to the same link
        // (a largest layer beside a model is the one value the form drops).
        let config = decoded.config;
        if config.model.is_none() || config.runtime.largest_layer_millions.is_none() {
            let parsed = vram_core::input::form::parse(|field| vram_core::input::form::text_of(&config, field));
            prop_assert_eq!(parsed.map(|c| encode(&c)), Ok(encode(&config)));
        }
        // Every problem names a key the link wrote (issue 41: `hidden=1` was
        // reported as `heads=""`), with the value it wrote.
        let joined = query.join("&");
        for problem in decoded.problems {
            let mut written = form_urlencoded::parse(joined.as_bytes());
            prop_assert!(written.any(|(k, _)| k == problem.key), "{} names a key not in {}", problem, joined);
        }
    }

    #[test]
    fn numeric_fields_accept_exactly_their_limits(value in any::<f64>()) {
        for field in [Field::Params, Field::GpuMemory, Field::Overhead, Field::LargestLayer, Field::MaxLive, Field::Bandwidth] {
            let limits = field.limits().unwrap();
            let resolved = field.resolution().is_none_or(|r| value == 0.0 || value.abs() >= r);
            prop_assert_eq!(field.check(value).is_ok(), value.is_finite() && limits.contains(value) && resolved);
            // What Rust prints, every field parses back, bit for bit.
            if let Ok(v) = field.parse_number(&value.to_string()) {
                prop_assert_eq!(v.to_bits(), value.to_bits());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// A pasted config.json of any family with any values: read or refused,
    /// and what is read gives a report or errors naming fields, never a panic.
    #[test]
    fn pasted_configs_never_panic(
        family in prop::sample::select(vram_core::model::hub::MODEL_TYPES.to_vec()),
        values in prop::collection::vec(
            prop_oneof![
                Just("0".to_string()),
                Just("null".to_string()),
                Just("true".to_string()),
                Just("-1".to_string()),
                Just("1e999".to_string()),
                (0u64..=u64::MAX).prop_map(|n| n.to_string()),
                (0u32..=8192).prop_map(|n| n.to_string()),
            ],
            24,
        ),
    ) {
        const KEYS: [&str; 24] = [
            "hidden_size", "num_attention_heads", "num_hidden_layers", "num_key_value_heads",
            "intermediate_size", "vocab_size", "head_dim", "tie_word_embeddings",
            "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
            "moe_intermediate_size", "shared_expert_intermediate_size", "n_shared_experts",
            "first_k_dense_replace", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
            "qk_nope_head_dim", "v_head_dim", "n_embd", "n_layer", "n_head",
        ];
        let body: Vec<String> = KEYS.iter().zip(&values).map(|(k, v)| format!("\"{k}\": {v}")).collect();
        let text = format!("{{\"model_type\": \"{family}\", {}}}", body.join(", "));
        if let Ok(hub) = vram_core::model::hub::read_config(&text) {
            if let Ok(config) = Config::default().with_hub_config(&hub) {
                let _ = config.report();
            }
        }
    }
}

// The page's random links (crates/app/tests/web.rs samples a few in the
// browser): natively, many more, over the core the page only displays. The
// same vocabulary of keys and of plausible, extreme and hostile values.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(5_000))]

    #[test]
    fn the_pages_random_links_give_finite_figures_in_every_row(
        pairs in prop::collection::vec(
            (prop::sample::select(vec![
                "v", "params", "gpus", "gpu_mem", "dtype", "opt", "overhead", "stage", "x", "",
                "acct", "offload", "offload_to", "nodes", "largest_layer", "zero_init",
                "sharding", "buffers", "bw",
            ]),
             prop::sample::select(vec![
                 "7", "13", "0", "-1", "1e6", "1e309", "NaN", "inf", "0.001", "1048576",
                 "1048577", "0.95", "0.2", "fp16", "BF16", "sgd", "adam", "ddp", "3",
                 "%3Cscript%3E", "%22%3E%3Cimg%20src%3Dx%3E", "%ZZ", "%", "+", "",
                 "%E4%B8%83", "8.5", "999999999999999999999", "0x10", "1,5", "%00",
                 "deepspeed", "all", "nvme", "fsdp2", "1",
             ])),
            0..9)
    ) {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let query = format!("?{}", query.join("&"));
        let report = decode(&query).config.report().expect("a decoded link always reports");
        // With everything offloaded, ZeRO-3's GPUs may hold nothing, and GPU
        // memory then bounds no model: the only case of 0 and of ∞.
        let unbounded = query.contains("offload=all");
        for row in &report.strategies {
            let total = row.memory.total.get();
            let max = row.max_params.get();
            prop_assert!(total.is_finite() && (total > 0.0 || unbounded), "{query}: total {total}");
            prop_assert!((max > 0.0 || !row.fits) && (max.is_finite() || unbounded), "{query}: max {max}");
            let shown = vram_core::format::format_bytes(row.memory.total, vram_core::format::MemoryUnit::Gb);
            prop_assert!(!shown.contains("NaN") && !shown.contains("inf"), "{query}: {shown}");
            if max.is_finite() {
                let shown = vram_core::format::format_params(row.max_params);
                prop_assert!(!shown.contains("NaN") && !shown.contains('∞'), "{query}: {shown}");
            }
        }
    }
}
