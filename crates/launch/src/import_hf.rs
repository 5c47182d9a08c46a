//! Hugging Face's training configuration read back into the link's keys
//! (issue 66), the other direction of [`crate::hf`] and of TRL's part of
//! [`crate::rl`]: accelerate's YAML (`accelerate/commands/config/
//! config_args.py`, accelerate 1.16: DDP, DeepSpeed's plugin, FSDP 1 and 2,
//! HSDP's `parallelism_config`), an `accelerate launch` line, the
//! `TrainingArguments` (or TRL's `SFTConfig`), PEFT's `LoraConfig`,
//! bitsandbytes' `BitsAndBytesConfig`, the model a script loads with
//! `from_pretrained("…")`, and TRL's `GRPOConfig`, `DPOConfig` and
//! `DistillationConfig` (TRL 1.16) — Python read as literals
//! ([`crate::import_python`]), never run.

use yaml_rust2::{Yaml, YamlLoader};

use crate::import::{model_key, Imported, ImportedEngine};
use crate::import_python::{calls, Arguments, PyValue};

/// Whether `text` is one of these: a TRL configuration, an accelerate YAML,
/// or `TrainingArguments`.
pub(crate) fn is_hf(text: &str) -> bool {
    TRL_CONFIGS.iter().any(|c| !calls(text, c).is_empty())
        || accelerate_yaml(text).is_some()
        || ["TrainingArguments", "SFTConfig"]
            .iter()
            .any(|c| !calls(text, c).is_empty())
}

/// TRL's configurations this reader knows.
const TRL_CONFIGS: [&str; 3] = ["GRPOConfig", "DPOConfig", "DistillationConfig"];

/// The accelerate YAML at the head of `text`: its lines up to the first
/// that is Python or a shell command, if they are a mapping with
/// `distributed_type`.
fn accelerate_yaml(text: &str) -> Option<yaml_rust2::yaml::Hash> {
    let head: Vec<&str> = text
        .lines()
        .take_while(|line| {
            let t = line.trim_start();
            !(t.starts_with("from ")
                || t.starts_with("import ")
                || t.starts_with("accelerate ")
                || t.contains('('))
        })
        .collect();
    let documents = YamlLoader::load_from_str(&head.join("\n")).ok()?;
    match documents.into_iter().next()? {
        Yaml::Hash(hash) if hash.contains_key(&Yaml::String("distributed_type".into())) => {
            Some(hash)
        }
        _ => None,
    }
}

/// What the sources say together, for the keys that need several.
#[derive(Default)]
struct Run {
    world: Option<u32>,
    nodes: Option<u32>,
    micro: Option<u32>,
    accumulation: Option<u32>,
    mixed: Option<&'static str>,
}

/// Reads the text: a TRL configuration, or accelerate's YAML with the
/// trainer's arguments.
pub(crate) fn import_hf(text: &str) -> Imported {
    let trl = TRL_CONFIGS
        .iter()
        .find_map(|c| calls(text, c).into_iter().next().map(|a| (*c, a)));
    let mut imported = Imported {
        engine: Some(match trl {
            Some(_) => ImportedEngine::Trl,
            None => ImportedEngine::Accelerate,
        }),
        ..Imported::default()
    };
    imported.keys.push((
        "job",
        match trl {
            Some(_) => "rl",
            None => "train",
        }
        .into(),
    ));
    let mut run = Run::default();
    launch_line(text, &mut run, &mut imported);
    if let Some(yaml) = accelerate_yaml(text) {
        read_yaml(&yaml, &mut run, &mut imported);
    }
    for (name, arguments) in ["TrainingArguments", "SFTConfig"]
        .iter()
        .flat_map(|n| calls(text, n).into_iter().map(move |a| (*n, a)))
    {
        trainer_arguments(name, &arguments, &mut run, &mut imported);
    }
    if let Some((name, arguments)) = &trl {
        crate::import_trl::trl_arguments(text, name, arguments, run.world, &mut imported);
        trainer_arguments(name, arguments, &mut run, &mut imported);
    }
    adapters(text, &mut imported);
    for path in pretrained(text) {
        model_key(&path, &mut imported);
    }
    finish(&run, trl.is_some(), &mut imported);
    imported
}

/// `accelerate launch --num_processes N --num_machines M …`.
fn launch_line(text: &str, run: &mut Run, imported: &mut Imported) {
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("accelerate launch"))
    else {
        return;
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let (flag, inline) = word.split_once('=').unwrap_or((word, ""));
        let value = if inline.is_empty() {
            words.get(i + 1).copied().unwrap_or_default()
        } else {
            inline
        };
        let number = value.parse::<u32>().ok().filter(|&n| n > 0);
        match (flag, number) {
            ("--num_processes" | "--num-processes", Some(n)) => {
                run.world = Some(n);
                imported.mapped.push((format!("{flag} {value}"), "gpus"));
            }
            ("--num_machines" | "--num-machines", Some(n)) => {
                run.nodes = Some(n);
                imported.mapped.push((format!("{flag} {value}"), "nodes"));
            }
            _ => {}
        }
    }
}

/// A YAML scalar as text.
fn scalar(value: &Yaml) -> String {
    match value {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(n) => n.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        Yaml::Null => "null".into(),
        _ => "…".into(),
    }
}

/// Settings of accelerate's YAML that change nothing the page computes.
const YAML_IGNORED: [&str; 16] = [
    "compute_environment",
    "machine_rank",
    "main_training_function",
    "rdzv_backend",
    "same_network",
    "downcast_bf16",
    "debug",
    "enable_cpu_affinity",
    "gpu_ids",
    "main_process_ip",
    "main_process_port",
    "tpu_env",
    "tpu_use_cluster",
    "tpu_use_sudo",
    "dynamo_config",
    "num_cpu_threads_per_process",
];

fn read_yaml(yaml: &yaml_rust2::yaml::Hash, run: &mut Run, imported: &mut Imported) {
    for (key, value) in yaml {
        let key = scalar(key);
        let said = format!("{key}: {}", scalar(value));
        match (key.as_str(), value) {
            ("distributed_type", Yaml::String(kind)) => match kind.as_str() {
                "MULTI_GPU" => {
                    imported.map(said, "stage", "ddp");
                }
                "DEEPSPEED" | "FSDP" => imported.mapped.push((said, "stage")),
                "NO" => {
                    imported.keys.push(("stage", "ddp".into()));
                    run.world.get_or_insert(1);
                    imported.mapped.push((said, "gpus"));
                }
                _ => imported.unread.push(said),
            },
            ("deepspeed_config", Yaml::Hash(section)) => deepspeed_section(section, imported),
            ("fsdp_config", Yaml::Hash(section)) => fsdp_section(section, imported),
            ("parallelism_config", Yaml::Hash(section)) => {
                let shard = section
                    .get(&Yaml::String("parallelism_config_dp_shard_size".into()))
                    .and_then(Yaml::as_i64);
                match shard {
                    Some(n) if n > 0 && n <= i64::from(u32::MAX) => {
                        imported.map(said, "shard_group", n.to_string());
                    }
                    _ => imported.unread.push(said),
                }
            }
            ("mixed_precision", Yaml::String(p)) => match p.as_str() {
                "no" | "fp16" | "bf16" => {
                    run.mixed = Some(match p.as_str() {
                        "no" => "fp32",
                        "fp16" => "fp16",
                        _ => "bf16",
                    });
                    imported.mapped.push((said, "dtype"));
                }
                _ => imported.unread.push(said),
            },
            ("num_processes", Yaml::Integer(n)) if *n > 0 && *n <= i64::from(u32::MAX) => {
                run.world = Some(*n as u32);
                imported.mapped.push((said, "gpus"));
            }
            ("num_machines", Yaml::Integer(n)) if *n > 0 && *n <= i64::from(u32::MAX) => {
                run.nodes = Some(*n as u32);
                imported.mapped.push((said, "nodes"));
            }
            ("use_cpu", Yaml::Boolean(false)) => imported.ignored.push(said),
            (key, _) if YAML_IGNORED.contains(&key) => imported.ignored.push(said),
            _ => imported.unread.push(said),
        }
    }
}

fn deepspeed_section(section: &yaml_rust2::yaml::Hash, imported: &mut Imported) {
    let mut offload = "none";
    for (key, value) in section {
        let key = scalar(key);
        let said = format!("deepspeed_config.{key}: {}", scalar(value));
        match (key.as_str(), value) {
            ("zero_stage", Yaml::Integer(stage @ 0..=3)) => {
                let stage = if *stage == 0 {
                    "ddp".to_string()
                } else {
                    stage.to_string()
                };
                imported.map(said, "stage", stage);
            }
            ("offload_optimizer_device" | "offload_param_device", Yaml::String(device)) => {
                match device.as_str() {
                    "none" => imported.ignored.push(said),
                    "cpu" | "nvme" => {
                        imported.keys.push(("offload_to", device.clone()));
                        offload = match (key.as_str(), offload) {
                            ("offload_param_device", _) | (_, "all") => "all",
                            _ => "optimizer",
                        };
                        imported.mapped.push((said, "offload"));
                    }
                    _ => imported.unread.push(said),
                }
            }
            ("zero3_init_flag", Yaml::Boolean(on)) => {
                imported.map(said, "zero_init", u8::from(*on).to_string());
            }
            // The trainer's own accumulation is read from its arguments.
            ("gradient_accumulation_steps" | "gradient_clipping" | "zero3_save_16bit_model", _) => {
                imported.ignored.push(said)
            }
            _ => imported.unread.push(said),
        }
    }
    if offload != "none" {
        imported.keys.push(("offload", offload.into()));
    }
}

fn fsdp_section(section: &yaml_rust2::yaml::Hash, imported: &mut Imported) {
    let get = |name: &str| section.get(&Yaml::String(name.into()));
    let version = get("fsdp_version").and_then(Yaml::as_i64).unwrap_or(1);
    // FSDP1's sharding strategy, or FSDP2's resharding after the forward.
    let stage = match (
        version,
        get("fsdp_sharding_strategy").map(scalar).as_deref(),
    ) {
        (1, Some("FULL_SHARD" | "1" | "HYBRID_SHARD" | "4")) | (1, None) => "3",
        (1, Some("SHARD_GRAD_OP" | "2")) => "2",
        (1, Some("NO_SHARD" | "3")) => "ddp",
        (1, Some(_)) => "",
        _ => match get("fsdp_reshard_after_forward").and_then(Yaml::as_bool) {
            Some(false) => "2",
            _ => "3",
        },
    };
    if !stage.is_empty() {
        imported.keys.push(("stage", stage.into()));
        if stage == "3" {
            imported.keys.push(("sharding", "fsdp2".into()));
        }
    }
    for (key, value) in section {
        let key = scalar(key);
        let said = format!("fsdp_config.{key}: {}", scalar(value));
        match (key.as_str(), value) {
            ("fsdp_version" | "fsdp_sharding_strategy" | "fsdp_reshard_after_forward", _)
                if !stage.is_empty() =>
            {
                imported.mapped.push((said, "stage"))
            }
            ("fsdp_offload_params", Yaml::Boolean(on)) => {
                if *on {
                    imported.keys.push(("offload", "all".into()));
                }
                imported.mapped.push((said, "offload"));
            }
            ("fsdp_activation_checkpointing", Yaml::Boolean(on)) => {
                if *on {
                    imported.keys.push(("recompute", "full".into()));
                }
                imported.mapped.push((said, "recompute"));
            }
            (
                "fsdp_auto_wrap_policy"
                | "fsdp_cpu_ram_efficient_loading"
                | "fsdp_state_dict_type"
                | "fsdp_transformer_layer_cls_to_wrap"
                | "fsdp_backward_prefetch"
                | "fsdp_forward_prefetch"
                | "fsdp_use_orig_params"
                | "fsdp_sync_module_states",
                _,
            ) => imported.ignored.push(said),
            _ => imported.unread.push(said),
        }
    }
}

/// The trainer's arguments: the micro-batch, the accumulation,
/// checkpointing, precision, the optimizer, the sequence (`SFTConfig`'s
/// `max_length`). TRL's configurations pass through here for these too.
fn trainer_arguments(name: &str, arguments: &Arguments, run: &mut Run, imported: &mut Imported) {
    for (key, value) in arguments {
        let said = format!("{name}.{key}={}", value.said());
        match (key.as_str(), value) {
            ("per_device_train_batch_size", v) if v.count().is_some_and(|n| n > 0) => {
                run.micro = v.count();
                imported.map(said, "mbs", value.said());
            }
            ("gradient_accumulation_steps", v)
                if v.count().is_some_and(|n| n > 0) && !TRL_CONFIGS.contains(&name) =>
            {
                run.accumulation = v.count();
                imported.mapped.push((said, "global_batch"));
            }
            ("gradient_checkpointing", PyValue::Bool(on)) => {
                imported
                    .keys
                    .push(("recompute", if *on { "full" } else { "none" }.into()));
                imported.mapped.push((said, "recompute"));
            }
            ("bf16" | "fp16", PyValue::Bool(true)) => {
                run.mixed = Some(if key == "bf16" { "bf16" } else { "fp16" });
                imported.mapped.push((said, "dtype"));
            }
            ("bf16" | "fp16", PyValue::Bool(false)) => imported.ignored.push(said),
            ("optim", PyValue::Str(optim)) => match optimizer(optim) {
                Some(opt) => {
                    imported.map(said, "opt", opt);
                }
                None => imported.unread.push(said),
            },
            ("max_length" | "max_seq_length", v) if name == "SFTConfig" && v.count().is_some() => {
                imported.map(said, "seq", value.said());
            }
            (k, _) if TRAINER_IGNORED.contains(&k) => imported.ignored.push(said),
            // TRL's own arguments are read by its reader.
            _ if TRL_CONFIGS.contains(&name) => {}
            _ => imported.unread.push(said),
        }
    }
}

/// The trainer's arguments of no bearing on the figures.
const TRAINER_IGNORED: [&str; 22] = [
    "output_dir",
    "learning_rate",
    "lr_scheduler_type",
    "warmup_ratio",
    "warmup_steps",
    "weight_decay",
    "num_train_epochs",
    "max_steps",
    "logging_steps",
    "save_steps",
    "save_strategy",
    "eval_strategy",
    "evaluation_strategy",
    "report_to",
    "run_name",
    "seed",
    "max_grad_norm",
    "logging_dir",
    "push_to_hub",
    "save_total_limit",
    "dataloader_num_workers",
    "remove_unused_columns",
];

/// transformers' `optim` names by the page's optimizers.
fn optimizer(optim: &str) -> Option<&'static str> {
    Some(match optim {
        "adamw_torch" | "adamw_torch_fused" | "adamw_hf" | "adamw_apex_fused" | "adamw"
        | "adam" => "adam",
        "adamw_bnb_8bit" | "paged_adamw_8bit" | "adamw_8bit" | "bnb_8bit" => "adam8bit",
        "adafactor" => "adafactor",
        "lion_32bit" | "paged_lion_32bit" => "lion",
        "sgd" => "sgd",
        _ => return None,
    })
}

/// PEFT's `LoraConfig` and bitsandbytes' `BitsAndBytesConfig`.
fn adapters(text: &str, imported: &mut Imported) {
    let Some(lora) = calls(text, "LoraConfig").into_iter().next() else {
        return;
    };
    let quantised = calls(text, "BitsAndBytesConfig").into_iter().next();
    let method = if quantised.is_some() { "qlora" } else { "lora" };
    imported.keys.push(("method", method.into()));
    for (key, value) in &lora {
        let said = format!("LoraConfig.{key}={}", value.said());
        match (key.as_str(), value) {
            ("r", v) if v.count().is_some_and(|n| n > 0) => {
                imported.map(said, "rank", value.said());
            }
            ("target_modules", v) => match targets(v) {
                Some(t) => {
                    imported.map(said, "targets", t);
                }
                None => imported.unread.push(said),
            },
            ("lora_dropout", PyValue::Number(p)) if (0.0..=0.95).contains(p) => {
                imported.map(said, "lora_dropout", value.said());
            }
            ("use_dora", PyValue::Bool(on)) => {
                imported.map(said, "dora", u8::from(*on).to_string());
            }
            ("lora_alpha" | "bias" | "task_type" | "inference_mode", _) => {
                imported.ignored.push(said)
            }
            _ => imported.unread.push(said),
        }
    }
    for (key, value) in quantised.iter().flatten() {
        let said = format!("BitsAndBytesConfig.{key}={}", value.said());
        match (key.as_str(), value) {
            ("load_in_4bit", PyValue::Bool(true)) => {
                imported.map(said, "quant", "nf4");
            }
            ("load_in_8bit", PyValue::Bool(true)) => {
                imported.map(said, "quant", "int8");
            }
            ("bnb_4bit_quant_type", PyValue::Str(q)) if q == "nf4" => {
                imported.mapped.push((said, "quant"))
            }
            ("bnb_4bit_use_double_quant", PyValue::Bool(on)) => {
                imported
                    .keys
                    .push(("double_quant", u8::from(*on).to_string()));
                imported.mapped.push((said, "double_quant"));
            }
            // The adapters compute in the run's precision.
            ("bnb_4bit_compute_dtype", _) => imported.ignored.push(said),
            _ => imported.unread.push(said),
        }
    }
}

/// PEFT's `target_modules` as the page's target sets.
pub(crate) fn targets(value: &PyValue) -> Option<&'static str> {
    let names: Vec<&str> = match value {
        PyValue::Str(s) if s == "all-linear" => return Some("all"),
        PyValue::List(items) => items
            .iter()
            .filter_map(|i| match i {
                PyValue::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect(),
        _ => return None,
    };
    let set = |want: &[&str]| names.len() == want.len() && want.iter().all(|w| names.contains(w));
    Some(match () {
        _ if set(&["q_proj", "v_proj"]) => "qv",
        _ if set(&["q_proj", "k_proj", "v_proj", "o_proj"]) => "attn",
        _ if set(&["gate_proj", "up_proj", "down_proj"]) => "mlp",
        _ if set(&[
            "q_proj",
            "k_proj",
            "v_proj",
            "o_proj",
            "gate_proj",
            "up_proj",
            "down_proj",
        ]) =>
        {
            "all"
        }
        _ => return None,
    })
}

/// The checkpoints a script loads (`from_pretrained("org/name")`).
fn pretrained(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("from_pretrained(") {
        rest = &rest[at + "from_pretrained(".len()..];
        let trimmed = rest.trim_start();
        if let Some(q @ ('"' | '\'')) = trimmed.chars().next() {
            if let Some(end) = trimmed[1..].find(q) {
                let path = trimmed[1..1 + end].to_string();
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
    }
    paths
}

/// The precision, the GPUs and nodes, and training's global batch.
fn finish(run: &Run, rl: bool, imported: &mut Imported) {
    imported
        .keys
        .push(("dtype", run.mixed.unwrap_or("fp32").into()));
    if let Some(world) = run.world {
        let nodes = run.nodes.unwrap_or(1).max(1);
        imported
            .keys
            .push(("gpus", (world / nodes).max(1).to_string()));
        imported.keys.push(("nodes", nodes.to_string()));
    }
    if rl {
        return;
    }
    let (micro, accumulation) = (run.micro.unwrap_or(1), run.accumulation.unwrap_or(1));
    match (run.world, accumulation) {
        (_, 1) => {}
        (Some(world), _) => {
            let global = u64::from(micro) * u64::from(accumulation) * u64::from(world);
            imported.keys.push(("global_batch", global.to_string()));
        }
        (None, _) => imported.unread.push(format!(
            "gradient_accumulation_steps={accumulation}: the global batch is per-device × {accumulation} × the GPUs, and nothing here says how many; give gpus"
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{import_launch, ImportedEngine};

    /// accelerate's YAML for FSDP 1's hybrid sharding and its GPUs; an
    /// accumulation without GPUs said; a YAML of another tool is not read.
    #[test]
    fn an_fsdp1_yaml_is_read_and_what_is_missing_is_said() {
        let yaml = "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n  fsdp_offload_params: false\n  fsdp_backward_prefetch: BACKWARD_PRE\nmixed_precision: fp16\nnum_processes: 4\n";
        let query = import_launch(yaml).unwrap().query();
        crate::import::assert_has(&query, "stage=2 dtype=fp16 gpus=4 nodes=1");
        let imported = import_launch(
            "TrainingArguments(per_device_train_batch_size=1, gradient_accumulation_steps=8)",
        )
        .unwrap();
        assert!(imported.unread[0].starts_with("gradient_accumulation_steps=8"));
        assert!(import_launch("services:\n  web:\n    image: nginx\n").is_err());
    }

    /// TRL's DPO: the pair's length, the precomputed reference, the
    /// prompts from the GPUs a launch line gives, or said without one.
    #[test]
    fn a_dpo_configuration_is_read() {
        let text = "accelerate launch --num_processes 8 dpo.py\nDPOTrainer(model=\"Qwen/Qwen2.5-7B-Instruct\", args=DPOConfig(per_device_train_batch_size=2, gradient_accumulation_steps=8, max_length=3072, precompute_ref_log_probs=True, bf16=True))";
        crate::import::read_as(text, ImportedEngine::Trl, "job=rl algo=dpo rl_framework=trl model=qwen2.5-7b ref=precomputed prompt_len=2048 response_len=1024 prompts=128 mbs=2");
        let alone =
            import_launch(&text.replace("accelerate launch --num_processes 8 dpo.py\n", ""))
                .unwrap();
        assert!(alone.unread[0].starts_with("gradient_accumulation_steps=8"));
    }
}
