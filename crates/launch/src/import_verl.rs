//! verl's `main_ppo` overrides read back into the link's keys (issue 66):
//! the other direction of [`crate::verl`], each override mapped to the key
//! the figures count, said as of no bearing, or not read.

use crate::import::{
    drop_value_models_of_the_actor, model_key, value_model_key, Imported, ImportedEngine,
};

/// What a value of `key=value` means as a Python boolean.
fn truthy(value: &str) -> Option<bool> {
    match value {
        "True" | "true" => Some(true),
        "False" | "false" => Some(false),
        _ => None,
    }
}

/// The actor's and the critic's engine settings, gathered before their keys
/// (offload and sharding follow from several overrides together).
#[derive(Default)]
struct Engine {
    megatron: bool,
    param_offload: bool,
    optimizer_offload: bool,
    reshard_after_forward: Option<bool>,
    fsdp_size_one: bool,
    distributed_optimizer: Option<bool>,
    sequence_parallel: Option<bool>,
    tp: u32,
    /// What verl decides from what is absent: `use_kl_loss` and
    /// `algorithm.use_kl_in_reward` (a reference only with one of them),
    /// the estimator (`gae` unset) and `rollout.n` (1 unset).
    kl_loss: Option<bool>,
    kl_in_reward: Option<bool>,
    estimator_given: bool,
    samples_given: bool,
    checkpointing_given: bool,
}

/// Reads `words` (the overrides after `python3 -m verl.trainer.main_ppo`).
pub(crate) fn import_overrides(words: &[String]) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::Verl),
        ..Imported::default()
    };
    imported.keys.push(("job", "rl".into()));
    imported.keys.push(("rl_framework", "verl".into()));
    imported.keys.push(("dtype", "bf16".into()));
    // As the page's job switch: the phases counted, nothing held back.
    imported.keys.push(("overhead", "0".into()));
    let mut engine = Engine {
        tp: 1,
        ..Engine::default()
    };
    for word in words {
        // The script's own arguments, passed on.
        if word == "$@" || word == "$*" {
            imported.ignored.push(word.clone());
            continue;
        }
        let Some((key, value)) = word.split_once('=') else {
            imported.unread.push(word.clone());
            continue;
        };
        let key = key.trim_start_matches('+');
        if !read_override(key, value, &mut engine, &mut imported) {
            imported.unread.push(word.clone());
        }
    }
    engine_keys(&engine, &mut imported);
    defaults(&engine, &mut imported);
    drop_value_models_of_the_actor(&mut imported);
    imported
}

/// What verl runs where an override is absent: the `gae` estimator (PPO),
/// one response a prompt, gradient checkpointing under FSDP
/// (`enable_gradient_checkpointing: true`), a reference only for a KL term (`need_reference_policy`:
/// `use_kl_loss` or `use_kl_in_reward`), and a Megatron reference offloaded
/// as the actor is (`megatron_ref.yaml`: the actor's `param_offload`).
fn defaults(engine: &Engine, imported: &mut Imported) {
    let recompute_given = imported.keys.iter().any(|(k, _)| *k == "recompute");
    if !engine.checkpointing_given && !recompute_given && !engine.megatron {
        imported.keys.push(("recompute", "full".into()));
    }
    let ref_offload_given = imported.keys.iter().any(|(k, _)| *k == "ref_offload");
    if engine.megatron && !ref_offload_given {
        imported
            .keys
            .push(("ref_offload", u8::from(engine.param_offload).to_string()));
    }
    if !engine.estimator_given {
        imported.keys.push(("algo", "ppo".into()));
    }
    if !engine.samples_given {
        imported.keys.push(("rollouts", "1".into()));
    }
    let kl = engine.kl_loss == Some(true) || engine.kl_in_reward == Some(true);
    let adapters = imported
        .keys
        .iter()
        .any(|(k, v)| *k == "ref" && v == "adapters");
    match (kl, adapters) {
        (false, _) => imported.keys.push(("ref", "none".into())),
        (true, true) => {}
        (true, false) => imported.keys.push(("ref", "model".into())),
    }
}

/// One of the rollout engine's overrides (`actor_rollout_ref.rollout.*`
/// but its `n`) into `imported`'s keys: `Some(false)` when it is not read,
/// `None` when it is no such override.
fn read_rollout_override(key: &str, value: &str, imported: &mut Imported) -> Option<bool> {
    let number = value.parse::<u32>().is_ok();
    let link = match key.strip_prefix("actor_rollout_ref.rollout.")? {
        // verl's engines: vLLM (the calculator's default), SGLang, TensorRT-LLM.
        "name" if value == "sglang" || value == "trtllm" => "engine",
        "name" => return Some(value == "vllm"),
        "gpu_memory_utilization" => "gpu_util",
        "tensor_model_parallel_size" if number => "rollout_tp",
        "max_num_batched_tokens" if number => "batched_tokens",
        "max_num_seqs" if number => "max_num_seqs",
        _ => return None,
    };
    imported.keys.push((link, value.into()));
    imported.mapped.push((format!("{key}={value}"), link));
    Some(true)
}

/// One override into `imported`'s keys, or into `engine`; false when it is
/// not read.
fn read_override(key: &str, value: &str, engine: &mut Engine, imported: &mut Imported) -> bool {
    if let Some(read) = read_rollout_override(key, value, imported) {
        return read;
    }
    if key == "critic.model.path" {
        value_model_key("critic_model", value, format!("{key}={value}"), imported);
        return true;
    }
    let said = format!("{key}={value}");
    let map = |imported: &mut Imported, link: &'static str, v: String| {
        imported.keys.push((link, v));
        imported.mapped.push((said.clone(), link));
        true
    };
    let number = value.parse::<u32>().is_ok();
    let flag = truthy(value);
    const ACTOR: &str = "actor_rollout_ref.actor.";
    let actor_engine = key.strip_prefix(ACTOR).and_then(|k| {
        k.strip_prefix("fsdp_config.")
            .or(k.strip_prefix("megatron."))
    });
    match (key, actor_engine) {
        ("model_engine", _) => {
            engine.megatron = value == "megatron";
            imported.mapped.push((said, "stage"));
            true
        }
        ("algorithm.adv_estimator", _) => {
            engine.estimator_given = true;
            match value {
                "gae" => map(imported, "algo", "ppo".into()),
                // GRPO's shape: a group's responses, no critic (DAPO's and
                // RLOO's too).
                "grpo" | "rloo" | "grpo_passk" | "reinforce_plus_plus_baseline" => {
                    map(imported, "algo", "grpo".into())
                }
                _ => false,
            }
        }
        // The Megatron actor's configuration (`ppo_megatron_trainer.yaml`).
        ("--config-name", _) => {
            engine.megatron = value.trim_matches('\'').starts_with("ppo_megatron_trainer");
            imported.mapped.push((said, "stage"));
            true
        }
        ("--config-path", _) => {
            imported.ignored.push(said);
            true
        }
        ("reward_model.enable", _) if flag.is_some() => {
            let reward = if flag == Some(true) { "model" } else { "rule" };
            map(imported, "reward", reward.into())
        }
        // verl keeps an FSDP reference's weights in host RAM between its
        // passes whatever this says (`_build_fsdp_module` wraps a
        // forward-only engine in CPUOffload).
        ("actor_rollout_ref.ref.fsdp_config.param_offload", _) => {
            imported.ignored.push(said);
            true
        }
        // Packing sequences to their lengths: the figures follow the mean
        // lengths when they are given (prompt_mean, response_mean).
        ("actor_rollout_ref.model.use_remove_padding", _) => {
            imported.ignored.push(said);
            true
        }
        ("algorithm.use_kl_in_reward", _) if flag.is_some() => {
            engine.kl_in_reward = flag;
            imported.mapped.push((said, "ref"));
            true
        }
        ("actor_rollout_ref.actor.use_kl_loss", _) if flag.is_some() => {
            engine.kl_loss = flag;
            imported.mapped.push((said, "ref"));
            true
        }
        ("actor_rollout_ref.model.path", _) => {
            model_key(value, imported);
            true
        }
        ("data.train_batch_size", _) if number => map(imported, "prompts", value.into()),
        ("data.max_prompt_length", _) if number => map(imported, "prompt_len", value.into()),
        ("data.max_response_length", _) if number => map(imported, "response_len", value.into()),
        ("actor_rollout_ref.rollout.n", _) if number => {
            engine.samples_given = true;
            map(imported, "rollouts", value.into())
        }
        ("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", _) if number => {
            map(imported, "mbs", value.into())
        }
        ("actor_rollout_ref.actor.ppo_max_token_len_per_gpu", _) if number => {
            map(imported, "token_budget", value.into())
        }
        ("actor_rollout_ref.model.enable_gradient_checkpointing", _) if flag.is_some() => {
            engine.checkpointing_given = true;
            let recompute = if flag == Some(true) { "full" } else { "none" };
            map(imported, "recompute", recompute.into())
        }
        ("actor_rollout_ref.actor.entropy_coeff", _) => {
            let on = value.parse::<f64>().is_ok_and(|v| v > 0.0);
            map(imported, "entropy", u8::from(on).to_string())
        }
        ("actor_rollout_ref.actor.entropy_from_logits_with_chunking", _) if flag == Some(true) => {
            map(imported, "logits", "chunked".into())
        }
        ("actor_rollout_ref.model.use_fused_kernels", _) if flag == Some(true) => {
            map(imported, "logits", "fused".into())
        }
        ("actor_rollout_ref.model.lora_rank", _) if number => {
            imported.keys.push(("method", "lora".into()));
            imported.keys.push(("ref", "adapters".into()));
            map(imported, "rank", value.into())
        }
        ("actor_rollout_ref.model.target_modules", _) => match targets(value) {
            Some(targets) => map(imported, "targets", targets.into()),
            None => false,
        },
        ("actor_rollout_ref.actor.ulysses_sequence_parallel_size", _) if number => {
            imported.keys.push(("cp_comm", "a2a".into()));
            map(imported, "cp", value.into())
        }
        ("actor_rollout_ref.rollout.free_cache_engine", _) if flag == Some(false) => {
            map(imported, "sleep", "0".into())
        }
        ("actor_rollout_ref.ref.megatron.param_offload", _) if flag.is_some() => map(
            imported,
            "ref_offload",
            u8::from(flag == Some(true)).to_string(),
        ),
        ("critic.enable", _) if flag.is_some() => {
            map(imported, "critic", u8::from(flag == Some(true)).to_string())
        }
        ("trainer.n_gpus_per_node", _) if number => map(imported, "gpus", value.into()),
        ("trainer.nnodes", _) if number => map(imported, "nodes", value.into()),
        (_, Some(setting)) => read_engine(setting, value, &said, engine, imported),
        // What follows from the keys above: the mini-batch (the whole batch),
        // the log-prob passes' batches (the update's), the rollout's
        // max_model_len (prompt + response), the critic's settings (the
        // actor's).
        _ if key.starts_with("critic.")
            || key.starts_with("actor_rollout_ref.rollout.log_prob_")
            || key.starts_with("actor_rollout_ref.ref.log_prob_")
            || key == "actor_rollout_ref.actor.use_dynamic_bsz"
            || key == "actor_rollout_ref.actor.ppo_mini_batch_size"
            || key == "actor_rollout_ref.rollout.max_model_len" =>
        {
            imported.ignored.push(said);
            true
        }
        // Names, files, schedules, learning rates and loss weights: no
        // bearing on memory or time.
        _ if NO_BEARING.iter().any(|prefix| key.starts_with(prefix)) => {
            imported.ignored.push(said);
            true
        }
        _ => false,
    }
}

/// Overrides of no bearing on the figures, by prefix.
const NO_BEARING: [&str; 24] = [
    "trainer.project_name",
    "trainer.experiment_name",
    "trainer.logger",
    "trainer.save_freq",
    "trainer.test_freq",
    "trainer.total_epochs",
    "trainer.total_training_steps",
    "trainer.val_before_train",
    "trainer.critic_warmup",
    "trainer.default_local_dir",
    "data.train_files",
    "data.val_files",
    "data.filter_overlong_prompts",
    "data.truncation",
    "data.shuffle",
    "actor_rollout_ref.actor.optim.",
    "actor_rollout_ref.actor.kl_loss_",
    "algorithm.kl_ctrl.",
    "actor_rollout_ref.rollout.temperature",
    "data.return_raw_chat",
    "actor_rollout_ref.rollout.mode",
    "trainer.use_legacy_worker_impl",
    // The reference's Megatron layout is the actor's.
    "actor_rollout_ref.ref.megatron.tensor_model_parallel_size",
    "actor_rollout_ref.ref.megatron.pipeline_model_parallel_size",
];

/// An actor engine's setting (`fsdp_config.*` or `megatron.*`).
fn read_engine(
    setting: &str,
    value: &str,
    said: &str,
    engine: &mut Engine,
    imported: &mut Imported,
) -> bool {
    let flag = truthy(value);
    let size = value.parse::<u32>().ok();
    let mut map = |link: &'static str, v: String| {
        imported.keys.push((link, v));
        imported.mapped.push((said.to_string(), link));
        true
    };
    match (setting, flag, size) {
        ("param_offload", Some(f), _) => engine.param_offload = f,
        ("optimizer_offload", Some(f), _) => engine.optimizer_offload = f,
        ("reshard_after_forward", Some(f), _) => engine.reshard_after_forward = Some(f),
        ("fsdp_size", _, Some(n)) => engine.fsdp_size_one = n == 1,
        ("model_dtype", _, _) if value == "bf16" => return map("dtype", "bf16-pure".into()),
        ("use_distributed_optimizer", Some(f), _) => engine.distributed_optimizer = Some(f),
        ("sequence_parallel", Some(f), _) => engine.sequence_parallel = Some(f),
        ("tensor_model_parallel_size", _, Some(n)) => {
            engine.tp = n;
            return map("tp", n.to_string());
        }
        ("pipeline_model_parallel_size", _, Some(n)) => return map("pp", n.to_string()),
        ("virtual_pipeline_model_parallel_size", _, Some(n)) => return map("vpp", n.to_string()),
        ("context_parallel_size", _, Some(n)) => return map("cp", n.to_string()),
        ("expert_model_parallel_size", _, Some(n)) => return map("ep", n.to_string()),
        ("expert_tensor_parallel_size", _, Some(1)) => return map("etp", "1".into()),
        ("override_transformer_config.cp_comm_type", _, _) if value == "a2a" => {
            return map("cp_comm", "a2a".into())
        }
        ("override_transformer_config.recompute_granularity", _, _) => {
            return match value {
                "full" | "selective" => map("recompute", value.into()),
                _ => false,
            }
        }
        ("override_transformer_config.recompute_method", _, _) => {
            return map("recompute_method", value.into())
        }
        ("override_transformer_config.recompute_num_layers", _, Some(n)) => {
            return map("recompute_layers", n.to_string())
        }
        _ => return false,
    }
    let link = match setting {
        "param_offload" | "optimizer_offload" => "offload",
        "sequence_parallel" => "sp",
        _ => "stage",
    };
    imported.mapped.push((said.to_string(), link));
    true
}

/// The keys that follow from the actor engine's settings together: the
/// offload, the sharding (the highlighted strategy) and sequence parallelism.
fn engine_keys(engine: &Engine, imported: &mut Imported) {
    let offload = match (engine.param_offload, engine.optimizer_offload) {
        (true, _) => "all",
        (false, true) => "optimizer",
        (false, false) => "none",
    };
    imported.keys.push(("offload", offload.into()));
    let stage = match engine.megatron {
        true => match engine.distributed_optimizer {
            Some(false) => "ddp",
            _ => "1",
        },
        false => match (engine.fsdp_size_one, engine.reshard_after_forward) {
            (true, _) => "ddp",
            (false, Some(false)) => "2",
            _ => "3",
        },
    };
    imported.keys.push(("stage", stage.into()));
    if engine.megatron && engine.tp > 1 {
        let sp = engine.sequence_parallel.unwrap_or(true);
        imported.keys.push(("sp", u8::from(sp).to_string()));
    }
}

/// The link's `targets` of verl's `target_modules` (what [`crate::verl`] writes).
fn targets(value: &str) -> Option<&'static str> {
    match value.trim_matches('\'') {
        "all-linear" => Some("all"),
        "[q_proj,v_proj]" => Some("qv"),
        "[q_proj,k_proj,v_proj,o_proj]" => Some("attn"),
        "[gate_proj,up_proj,down_proj]" => Some("mlp"),
        _ => None,
    }
}
