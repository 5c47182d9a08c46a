//! The exports (`vram --export`, "Copy as …") as the frameworks' own parsers
//! read them: `scripts/measure-exports` asked the CLI for each case's text
//! and ran DeepSpeed's `DeepSpeedConfig`, Megatron-LM's argument parser,
//! torchtitan's config manager, accelerate's config loader, vLLM's
//! `EngineArgs`, SGLang's `ServerArgs`, TRL's `GRPOConfig`/`DPOConfig`,
//! OpenRLHF's own `train_ppo_ray`/`train_dpo` scripts and verl's `main_ppo`
//! (its Hydra config, `validate_config` and worker configs) on it (versions in
//! `measured/exports.json`). Here the core writes each text again, byte for
//! byte, and every text a parser could run on was accepted, with every
//! consistency check `scripts/check-exports` made of it passing; what it read
//! back agrees with the configuration. The combinations the CLI refuses
//! (`refusals`) are refused again, for the same reason. Native only
//! (serde_json).
#![cfg(not(target_arch = "wasm32"))]

use serde::Deserialize;
use serde_json::Value;
use vram_core::config::rl::{Algo, Reference};
use vram_core::frameworks::deepspeed::Offload;
use vram_core::input::link;
use vram_core::memory::finetune::{Method, Targets};
use vram_launch::{export, Target};

#[derive(Deserialize)]
struct Measured {
    versions: serde_json::Map<String, Value>,
    cases: Vec<Case>,
    #[serde(default)]
    refusals: Vec<Refused>,
}

/// A combination the CLI refuses: the refusal (its `Debug` name) and the
/// message the CLI printed.
#[derive(Deserialize)]
struct Refused {
    name: String,
    kind: String,
    query: String,
    refusal: String,
    message: String,
}

/// One of `scripts/check-exports`' consistency checks.
#[derive(Deserialize)]
struct Check {
    check: String,
    ok: bool,
    detail: String,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    kind: String,
    query: String,
    url: String,
    text: String,
    accepted: Option<bool>,
    error: Option<String>,
    parsed: Value,
    #[serde(default)]
    checks: Option<Vec<Check>>,
}

fn measured() -> Measured {
    let text = include_str!("measured/exports.json");
    serde_json::from_str(text).expect("measured/exports.json")
}

/// The configuration of the case `name`'s `query`, which decodes without a
/// problem, and the target its `kind` names.
fn decoded(name: &str, query: &str, kind: &str) -> (vram_core::Config, Target) {
    let decoded = link::decode(query);
    assert!(
        decoded.problems.is_empty(),
        "{name}: {:?}",
        decoded.problems
    );
    (decoded.config, Target::from_key(kind).expect("a target"))
}

#[test]
fn every_export_is_the_text_its_framework_accepted() {
    let measured = measured();
    assert!(!measured.versions.is_empty());
    assert!(measured.cases.len() >= 10);
    for case in &measured.cases {
        let (config, target) = decoded(&case.name, &case.query, &case.kind);
        let url = format!("{}?{}", case.url, link::encode(&config));
        let text = export(&config, target, &url).unwrap_or_else(|r| panic!("{}: {r:?}", case.name));
        assert_eq!(text, case.text, "{}: the text its parser read", case.name);
        assert_eq!(
            case.accepted,
            Some(true),
            "{}: its parser said {:?}",
            case.name,
            case.error
        );
        for check in case.checks.iter().flatten() {
            assert!(
                check.ok,
                "{}: {} ({})",
                case.name, check.check, check.detail
            );
        }
        read_back_agrees(case, &config);
    }
}

/// Issue 66: a serving command the page wrote reads back to its
/// configuration. Each vLLM and SGLang case's command is imported
/// (`vram_launch::import`), every option mapped (none unread or ignored),
/// and the configuration it gives, with what no command carries taken from
/// the case (the GPU, the lengths and load, a checkpoint's own format), is
/// exported again: the same command, byte for byte.
#[test]
fn a_serving_command_reads_back_to_its_configuration() {
    let measured = measured();
    let mut read = 0;
    for case in measured.cases.iter().filter(|c| {
        matches!(
            c.kind.as_str(),
            "vllm"
                | "sglang"
                | "verl"
                | "openrlhf"
                | "deepspeed"
                | "megatron"
                | "torchtitan"
                | "accelerate"
                | "trl"
                | "litgpt"
        )
    }) {
        // Megatron-LM's arguments as a script runs them: after the
        // `torchrun` line their comment names.
        let text = match case.kind.as_str() {
            "megatron" => format!("{} \\\n{}", torchrun_line(&case.text), case.text),
            "torchtitan" => format!("{}\n{}", torchrun_line(&case.text), case.text),
            // TRL's configuration as a script runs it: under `accelerate
            // launch` with the GPUs the case has.
            "trl" => format!(
                "accelerate launch --num_processes {} --num_machines {} train.py\n{}",
                world_of(&case.query),
                nodes_of(&case.query),
                case.text
            ),
            _ => case.text.clone(),
        };
        let imported = vram_launch::import::import_launch(&text)
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.name));
        // verl's text repeats what follows from its keys (the mini-batch, the
        // log-prob passes, the critic's settings): of no bearing, not unread.
        let ignored_ok = matches!(
            case.kind.as_str(),
            "verl"
                | "openrlhf"
                | "deepspeed"
                | "megatron"
                | "torchtitan"
                | "accelerate"
                | "trl"
                | "litgpt"
        ) || imported.ignored.is_empty();
        // DeepSpeed's JSON names no model: said, and taken from the case.
        let unread_ok = imported
            .unread
            .iter()
            .all(|u| case.kind == "deepspeed" && u.starts_with("model:"));
        assert!(
            unread_ok && ignored_ok,
            "{}: {:?} {:?}",
            case.name,
            imported.unread,
            imported.ignored
        );
        // What the command does not carry, from the case.
        let mut query = imported.query();
        // The pipeline's split is one thing however it is said: a layout
        // read stands for the case's uneven stages.
        const SPLIT: [&str; 5] = [
            "pp_layout",
            "pp_first",
            "pp_last",
            "pp_embedding",
            "pp_loss",
        ];
        let split_given = imported.keys.iter().any(|(k, _)| *k == "pp_layout");
        for pair in case.query.split('&') {
            let key = pair.split('=').next().unwrap_or_default();
            let given = key == "v"
                || imported.keys.iter().any(|(k, _)| *k == key)
                || (split_given && SPLIT.contains(&key));
            if !given {
                query.push('&');
                query.push_str(pair);
            }
        }
        let (config, target) = decoded(&case.name, &query, &case.kind);
        let text =
            export(&config, target, "LINK").unwrap_or_else(|r| panic!("{}: {r:?}", case.name));
        // The command's lines: the link's comment and the notes (a
        // checkpoint's format, OpenRLHF's sleep level) are not the command.
        let command = |t: &str| {
            t.lines()
                .filter(|line| !line.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(
            command(&text),
            command(&case.text),
            "{}: {query}",
            case.name
        );
        read += 1;
    }
    assert!(read >= 114, "{read}");
}

/// The GPUs per node times the nodes a case's query gives (8 and 1 unset).
fn world_of(query: &str) -> u32 {
    let value = |key: &str, default: u32| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{key}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    value("gpus", 8) * value("nodes", 1)
}

/// The nodes a case's query gives (1 unset).
fn nodes_of(query: &str) -> u32 {
    query
        .split('&')
        .find_map(|p| p.strip_prefix("nodes="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// The `torchrun` command a Megatron-LM or torchtitan export's comment
/// names (Megatron-LM's up to `pretrain_gpt.py`), its environment included.
fn torchrun_line(text: &str) -> String {
    let comment = text
        .lines()
        .find(|line| line.contains("torchrun"))
        .unwrap_or_default();
    let command = comment.trim_start_matches("# ");
    match command.find("pretrain_gpt.py") {
        Some(at) => command[..at + "pretrain_gpt.py".len()].to_string(),
        None => command.to_string(),
    }
}

/// Every framework and job has its cases: the matrix of issue 62, each
/// framework's release named.
#[test]
fn the_matrix_covers_every_framework() {
    let measured = measured();
    assert!(measured.cases.len() >= 60, "{} cases", measured.cases.len());
    for target in Target::ALL {
        let cases = measured
            .cases
            .iter()
            .filter(|c| c.kind == target.key())
            .count();
        assert!(cases > 0, "no case for {}", target.key());
        // The package each framework's release is recorded under: its key,
        // but for the two whose parser ships under another name.
        let release = match target {
            Target::Megatron => "megatron-core",
            Target::Torchtitan => "torchtitan (TOML parser)",
            other => other.key(),
        };
        assert!(
            measured.versions.get(release).is_some_and(Value::is_string),
            "{}: no release of {release} in versions",
            target.key()
        );
    }
}

/// What the CLI refuses it refuses still, for the reason recorded (and
/// with a message).
#[test]
fn every_refusal_is_refused_for_its_reason() {
    let measured = measured();
    assert!(!measured.refusals.is_empty());
    for refused in &measured.refusals {
        let (config, target) = decoded(&refused.name, &refused.query, &refused.kind);
        let got = export(&config, target, "")
            .map(|_| ())
            .expect_err(&refused.name);
        assert_eq!(
            format!("{got:?}"),
            refused.refusal,
            "{}: refused as {got:?}",
            refused.name
        );
        assert!(
            refused.message.contains(target.label()),
            "{}: {}",
            refused.name,
            refused.message
        );
    }
}

/// What the framework's parser read is the configuration's: its parallel
/// degrees, batch and lengths (for RL: the rollouts, the sequences an
/// optimizer step and the rollout engine's layout).
fn read_back_agrees(case: &Case, config: &vram_core::Config) {
    let e = Expected::new(case, config);
    let int = |key: &str| e.int(key);
    let layout = config.runtime.layout;
    let (world, model_parallel, micro, global) = (e.world, e.model_parallel, e.micro, e.global);
    match case.kind.as_str() {
        "deepspeed" => e.read_back(&[
            ("zero_stage", e.stage),
            ("world_size_seen", world),
            ("train_batch_size", global),
            ("train_micro_batch_size_per_gpu", micro),
        ]),
        "megatron" => {
            let arch = config.model.unwrap().architecture;
            e.read_back(&[
                ("tensor_model_parallel_size", u64::from(layout.tp)),
                ("pipeline_model_parallel_size", u64::from(layout.pp)),
                ("data_parallel_size", world / model_parallel),
                ("num_layers", u64::from(arch.layers)),
                ("global_batch_size", global),
            ]);
            // The sharding as the figures count it: ZeRO-2 is Megatron-FSDP's
            // optim_grads (the distributed optimizer keeps whole gradients),
            // ZeRO-3 an FSDP of the parameters too, ZeRO-1 the distributed
            // optimizer alone.
            let p = &case.parsed;
            let fsdp = p["use_megatron_fsdp"] == true || p["use_torch_fsdp2"] == true;
            match e.stage {
                2 => assert_eq!(
                    (
                        p["use_megatron_fsdp"].clone(),
                        p["data_parallel_sharding_strategy"].clone()
                    ),
                    (Value::Bool(true), Value::from("optim_grads")),
                    "{}",
                    case.name
                ),
                3 => assert!(fsdp, "{}", case.name),
                _ => assert!(!fsdp, "{}", case.name),
            }
        }
        "torchtitan" => {
            assert_eq!(int("tensor_parallel_degree"), u64::from(layout.tp));
            assert_eq!(
                int("data_parallel_replicate_degree") * int("data_parallel_shard_degree"),
                world / model_parallel,
                "{}",
                case.name
            );
            assert_eq!(int("seq_len"), u64::from(config.model.unwrap().seq_len));
        }
        "accelerate" => assert_eq!(int("num_processes"), world, "{}", case.name),
        "vllm" | "sglang" => serving_agrees(&e),
        "trl" => trl_agrees(&e),
        "openrlhf" => openrlhf_agrees(&e),
        "verl" => verl_agrees(&e),
        "litgpt" => {
            let model = config.model.unwrap();
            // LitGPT's global batch is one node's.
            e.read_back(&[
                ("micro_batch_size", micro),
                (
                    "global_batch_size",
                    global / u64::from(config.runtime.nodes),
                ),
                ("max_seq_length", u64::from(model.seq_len)),
            ]);
            assert_eq!(int("devices") * int("num_nodes"), world, "{}", case.name);
            let lora = config.fine_tuning.method != vram_core::memory::finetune::Method::Full;
            if lora {
                assert_eq!(
                    int("lora_r"),
                    u64::from(config.fine_tuning.rank),
                    "{}",
                    case.name
                );
            }
        }
        other => panic!("{}: no check for {other}", case.name),
    }
}

/// A case's figures as its configuration gives them, to compare with what
/// its framework's parser read.
struct Expected<'a> {
    case: &'a Case,
    config: &'a vram_core::Config,
    /// Every GPU of every node.
    world: u64,
    /// The GPUs a model replica spans: TP × PP × CP.
    model_parallel: u64,
    micro: u64,
    global: u64,
    /// The ZeRO stage.
    stage: u64,
    /// The sequences an RL optimizer step learns from.
    sequences: u64,
    /// The rollout engine's TP.
    rollout_tp: u64,
    /// A sequence's prompt and response.
    max_len: u64,
}

impl<'a> Expected<'a> {
    fn new(case: &'a Case, config: &'a vram_core::Config) -> Self {
        let layout = config.runtime.layout;
        let world = u64::from(config.gpus * config.runtime.nodes);
        let model_parallel = u64::from(layout.tp * layout.pp * layout.cp);
        let micro = u64::from(config.model.map_or(1, |m| m.micro_batch));
        let global = config
            .global_batch
            .map_or(micro * world / model_parallel, u64::from);
        let stage = match config.highlight {
            vram_core::Strategy::Ddp => 0,
            vram_core::Strategy::Zero1 => 1,
            vram_core::Strategy::Zero2 => 2,
            vram_core::Strategy::Zero3 => 3,
        };
        let rl = &config.rl;
        let serve = &config.serve;
        let sequences = match rl.algo {
            Algo::Dpo => u64::from(rl.prompts),
            _ => u64::from(rl.prompts * rl.rollouts),
        };
        let rollout_tp = u64::from(rl.rollout_tp.unwrap_or(layout.tp));
        let max_len = u64::from(serve.prompt_len + serve.response_len);
        Expected {
            case,
            config,
            world,
            model_parallel,
            micro,
            global,
            stage,
            sequences,
            rollout_tp,
            max_len,
        }
    }

    /// Asserts that the parser read each key of `expected` as its number.
    fn read_back(&self, expected: &[(&str, u64)]) {
        for &(key, number) in expected {
            assert_eq!(self.int(key), number, "{}: {key}", self.case.name);
        }
    }

    /// Asserts that `read[key]` is the rollout engine's memory fraction, the
    /// share of each GPU's memory the configuration gives it.
    fn rollout_fraction(&self, read: &Value, key: &str) {
        assert_eq!(
            read[key].as_f64(),
            Some(self.config.rl_gpu_util()),
            "{}: {key}",
            self.case.name
        );
    }

    /// The whole number the parser read for `key`.
    fn int(&self, key: &str) -> u64 {
        let p = &self.case.parsed;
        p[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{}: {key} in {p}", self.case.name))
    }
}

/// vLLM's and SGLang's: the engine's TP, context and memory fraction.
fn serving_agrees(e: &Expected) {
    let (case, config, p) = (e.case, e.config, &e.case.parsed);
    let int = |key: &str| e.int(key);
    let report = config.serve_report().unwrap();
    let (tp, len, fraction) = match case.kind.as_str() {
        "vllm" => (
            "tensor_parallel_size",
            "max_model_len",
            "gpu_memory_utilization",
        ),
        _ => ("tp_size", "context_length", "mem_fraction_static"),
    };
    assert_eq!(int(tp), u64::from(report.layout.tp), "{}", case.name);
    assert_eq!(int(len), u64::from(report.max_model_len), "{}", case.name);
    assert_eq!(p[fraction].as_f64(), Some(report.gpu_util), "{}", case.name);
}

/// TRL's: the batch, the precision, the rollout engine and the algorithm's own.
fn trl_agrees(e: &Expected) {
    let (case, config, p) = (e.case, e.config, &e.case.parsed);
    let int = |key: &str| e.int(key);
    let (rl, serve) = (&config.rl, &config.serve);
    let (world, micro, sequences) = (e.world, e.micro, e.sequences);
    let (rollout_tp, max_len) = (e.rollout_tp, e.max_len);
    e.read_back(&[
        ("world_size_seen", world),
        ("per_device_train_batch_size", micro),
        ("sequences_per_optimizer_step", sequences),
    ]);
    let dtype = match config.precision {
        vram_core::Precision::Bf16 => "bf16",
        _ => "fp16",
    };
    assert_eq!(p[dtype], true, "{}", case.name);
    let split = rl.placement == vram_core::config::rl::Placement::Split;
    if rl.algo.generates() {
        assert_eq!(int("max_completion_length"), u64::from(serve.response_len));
        // Colocated, the engine's TP and fraction are the config's;
        // apart, `trl vllm-serve`'s (the comment's command line).
        let mode = if split { "server" } else { "colocate" };
        assert_eq!(p["vllm_mode"], mode, "{}", case.name);
        // Colocated, the engine's context is the longest sequence.
        let engine = match split {
            false => {
                assert_eq!(int("vllm_tensor_parallel_size"), rollout_tp);
                assert_eq!(int("vllm_max_model_length"), max_len, "{}", case.name);
                p.clone()
            }
            true => {
                let server = &p["vllm_serve"];
                assert_eq!(server["tensor_parallel_size"].as_u64(), Some(rollout_tp));
                assert_eq!(server["max_model_len"].as_u64(), Some(max_len));
                serde_json::json!({
                    "vllm_gpu_memory_utilization": server["gpu_memory_utilization"]
                })
            }
        };
        e.rollout_fraction(&engine, "vllm_gpu_memory_utilization");
    }
    match rl.algo {
        Algo::Dpo => assert_eq!(int("max_length"), max_len, "{}", case.name),
        Algo::Distill => {
            let teacher = rl.teacher.expect("a teacher").id;
            let repo = p["teacher_model_name_or_path"].as_str().unwrap_or_default();
            // The teacher's repository names its family and size.
            let size = teacher.rsplit('-').next().unwrap_or_default();
            assert!(repo.to_lowercase().contains(size), "{repo} for {teacher}");
        }
        Algo::Grpo | Algo::Ppo => {
            assert_eq!(int("num_generations"), u64::from(rl.rollouts));
            assert_eq!(int("generation_batch_size"), sequences, "{}", case.name);
            assert_eq!(
                int("steps_per_generation"),
                int("gradient_accumulation_steps"),
                "{}",
                case.name
            );
        }
    }
}

/// OpenRLHF's: the ZeRO stage, the batch, LoRA, and the actor's and the
/// engines' GPUs, the rollouts, the critic and the reference (DPO: the
/// accumulation).
fn openrlhf_agrees(e: &Expected) {
    let (case, config, p) = (e.case, e.config, &e.case.parsed);
    // A reward model beside the actor where the figures count one.
    let reward = config.rl.reward == vram_core::config::rl::Reward::Model;
    if config.rl.algo != Algo::Dpo {
        assert_eq!(
            p["reward_model_name_or_path"].is_string(),
            reward,
            "{}",
            case.name
        );
        if let (true, Some(own)) = (reward, config.rl.reward_model) {
            assert_eq!(
                p["reward_model_name_or_path"],
                vram_launch::preset_repo_of(own.id),
                "{}",
                case.name
            );
        }
    }
    let int = |key: &str| e.int(key);
    let rl = &config.rl;
    let serve = &config.serve;
    let (world, micro, sequences) = (e.world, e.micro, e.sequences);
    let (rollout_tp, max_len) = (e.rollout_tp, e.max_len);
    e.read_back(&[
        ("zero_stage", e.stage),
        ("micro_batch_size", micro),
        ("train_batch_size", sequences),
        ("max_len", max_len),
    ]);
    let lora = config.fine_tuning.method != Method::Full;
    assert_eq!(
        int("lora_rank"),
        if lora {
            u64::from(config.fine_tuning.rank)
        } else {
            0
        },
        "{}",
        case.name
    );
    // PEFT's shorthand is the string (OpenRLHF's default), not a list.
    if lora && config.fine_tuning.targets == Targets::All {
        assert_eq!(p["lora_target_modules"], "all-linear", "{}", case.name);
    }
    if rl.algo == Algo::Dpo {
        assert_eq!(
            int("deepspeed_gradient_accumulation_steps") * micro * world,
            sequences,
            "{}",
            case.name
        );
    } else {
        assert_eq!(
            int("actor_num_nodes") * int("actor_num_gpus_per_node"),
            world,
            "{}",
            case.name
        );
        // The engines take the actor's GPUs, or their own.
        let engine_gpus = match rl.placement {
            vram_core::config::rl::Placement::Colocate => world,
            vram_core::config::rl::Placement::Split => u64::from(config.rl_rollout_gpus()),
        };
        assert_eq!(
            int("vllm_num_engines") * int("vllm_tensor_parallel_size"),
            engine_gpus,
            "{}",
            case.name
        );
        e.read_back(&[
            ("vllm_tensor_parallel_size", rollout_tp),
            ("n_samples_per_prompt", u64::from(rl.rollouts)),
            ("rollout_batch_size", u64::from(rl.prompts)),
            ("rollout_max_new_tokens", u64::from(serve.response_len)),
        ]);
        e.rollout_fraction(p, "vllm_gpu_memory_utilization");
        assert_eq!(
            p["critic_model_name_or_path"].is_string(),
            rl.has_critic(),
            "{}",
            case.name
        );
        if let (true, Some(own)) = (rl.has_critic(), rl.critic_model) {
            assert_eq!(
                p["critic_model_name_or_path"],
                vram_launch::preset_repo_of(own.id),
                "{}",
                case.name
            );
        }
        // OpenRLHF builds a reference only with a KL term.
        assert_eq!(
            p["kl_init_coef"].as_f64().unwrap() > 0.0,
            rl.reference == Reference::Model,
            "{}",
            case.name
        );
        if let Some(budget) = rl.token_budget {
            assert_eq!(int("max_tokens_per_gpu"), u64::from(budget));
        }
    }
}

/// verl's actor engine as the figures count its layout and sharding: FSDP
/// (ZeRO-3, ZeRO-2 without resharding after the forward, DDP as a sharding
/// group of one; Ulysses over `cp`), or Megatron's (TP, PP, CP, EP; ZeRO-1
/// as the distributed optimizer, DDP without; sequence parallelism with
/// TP; recomputation; the reference's offload as `ref_offload`).
fn verl_layout_agrees(e: &Expected) {
    let (case, config, p) = (e.case, e.config, &e.case.parsed);
    let layout = config.runtime.layout;
    let highlight = config.highlight;
    let name = &case.name;
    match config.rl_megatron_actor() {
        false => {
            assert_eq!(p["strategy"], "fsdp", "{name}");
            assert_eq!(p["reshard_after_forward"], e.stage != 2, "{name}");
            let whole = highlight == vram_core::memory::Strategy::Ddp;
            assert_eq!(p["fsdp_size"] == 1, whole, "{name}");
            e.read_back(&[("ulysses_sequence_parallel_size", u64::from(layout.cp))]);
        }
        true => {
            assert_eq!(p["strategy"], "megatron", "{name}");
            let ep = config.model.map_or(1, |m| m.ep);
            e.read_back(&[
                ("megatron_tensor_model_parallel_size", u64::from(layout.tp)),
                (
                    "megatron_pipeline_model_parallel_size",
                    u64::from(layout.pp),
                ),
                ("megatron_context_parallel_size", u64::from(layout.cp)),
                ("megatron_expert_model_parallel_size", u64::from(ep)),
            ]);
            let zero1 = highlight == vram_core::memory::Strategy::Zero1;
            assert_eq!(p["megatron_use_distributed_optimizer"], zero1, "{name}");
            let sp = layout.sp && layout.tp > 1;
            assert_eq!(p["megatron_sequence_parallel"], sp, "{name}");
            let granularity = match config.model.map(|m| m.recompute) {
                Some(vram_core::memory::activations::Recompute::Full) => Value::from("full"),
                Some(vram_core::memory::activations::Recompute::Selective) => {
                    Value::from("selective")
                }
                _ => Value::Null,
            };
            assert_eq!(
                p["megatron_recompute"]["recompute_granularity"], granularity,
                "{name}"
            );
            if config.rl.reference == Reference::Model {
                assert_eq!(p["ref_param_offload"], config.rl.ref_offload, "{name}");
            }
        }
    }
}

/// verl's: the GPUs, the batch and its micro-batches or token budget, the
/// lengths and rollouts, the rollout engine as the page counts it (TP,
/// memory fraction, `max_model_len`, the scheduler's caps), offload,
/// adapters, the reference and the critic.
fn verl_agrees(e: &Expected) {
    let (case, config, p) = (e.case, e.config, &e.case.parsed);
    let int = |key: &str| e.int(key);
    let rl = &config.rl;
    let serve = &config.serve;
    let engine = config.rl_rollout_config().serve_report().unwrap();
    let flag = |key: &str| {
        p[key]
            .as_bool()
            .unwrap_or_else(|| panic!("{}: {key} in {p}", case.name))
    };
    assert_eq!(
        int("n_gpus_per_node") * int("nnodes"),
        e.world,
        "{}",
        case.name
    );
    e.read_back(&[
        ("train_batch_size", u64::from(rl.prompts)),
        ("ppo_mini_batch_size", u64::from(rl.prompts)),
        ("rollout_n", u64::from(rl.rollouts)),
        ("max_prompt_length", u64::from(serve.prompt_len)),
        ("max_response_length", u64::from(serve.response_len)),
        ("rollout_tensor_model_parallel_size", e.rollout_tp),
        ("max_model_len_served", u64::from(engine.max_model_len)),
        ("max_num_batched_tokens", u64::from(engine.batched_tokens)),
        ("max_num_seqs", u64::from(engine.max_num_seqs)),
    ]);
    assert_eq!(e.max_len, u64::from(engine.max_model_len), "{}", case.name);
    e.rollout_fraction(p, "gpu_memory_utilization");
    // A micro-batch of `mbs` sequences, or the token budget's packing, in
    // the update and in both log-prob passes.
    match rl.token_budget {
        Some(budget) => {
            assert!(flag("use_dynamic_bsz"), "{}", case.name);
            e.read_back(&[
                ("ppo_max_token_len_per_gpu", u64::from(budget)),
                ("rollout_log_prob_max_token_len_per_gpu", u64::from(budget)),
            ]);
        }
        None => {
            assert!(!flag("use_dynamic_bsz"), "{}", case.name);
            e.read_back(&[
                ("ppo_micro_batch_size_per_gpu", e.micro),
                ("rollout_log_prob_micro_batch_size_per_gpu", e.micro),
            ]);
        }
    }
    let offload = config.runtime.offload;
    assert_eq!(
        flag("param_offload"),
        offload == Offload::All,
        "{}",
        case.name
    );
    assert_eq!(
        flag("optimizer_offload"),
        offload != Offload::None,
        "{}",
        case.name
    );
    verl_layout_agrees(e);
    let adapters = config.fine_tuning.method != Method::Full;
    let rank = if adapters {
        u64::from(config.fine_tuning.rank)
    } else {
        0
    };
    assert_eq!(int("lora_rank"), rank, "{}", case.name);
    // A frozen reference model, or the actor with its adapters off
    // (`ref_in_actor`); verl forces its reference's weights to host RAM
    // (`forward_only`), the page's `ref_offload`.
    let reference = matches!(rl.reference, Reference::Model | Reference::Adapters);
    assert_eq!(flag("use_kl_loss"), reference, "{}", case.name);
    assert_eq!(flag("ref_in_actor"), adapters, "{}", case.name);
    if rl.reference == Reference::Model && !adapters {
        assert_eq!(p["ref_forward_only"], true, "{}", case.name);
        assert!(rl.ref_offload, "{}", case.name);
    }
    assert_eq!(flag("use_critic"), rl.has_critic(), "{}", case.name);
    if rl.has_critic() {
        // The critic's own checkpoint where the page counts one, else the actor's.
        match rl.critic_model {
            Some(critic) => assert_eq!(
                p["critic_model_path"],
                vram_launch::preset_repo_of(critic.id),
                "{}",
                case.name
            ),
            None => assert_eq!(p["critic_model_path"], p["model_path"], "{}", case.name),
        }
        assert_eq!(int("critic_lora_rank"), rank, "{}", case.name);
        assert_eq!(flag("critic_param_offload"), flag("param_offload"));
        assert_eq!(flag("critic_optimizer_offload"), flag("optimizer_offload"));
        match rl.token_budget {
            Some(budget) => e.read_back(&[("critic_ppo_max_token_len_per_gpu", u64::from(budget))]),
            None => e.read_back(&[("critic_ppo_micro_batch_size_per_gpu", e.micro)]),
        }
    }
}
