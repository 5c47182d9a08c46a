//! OpenRLHF's `train_ppo_ray` and `train_dpo` commands read back into the
//! link's keys (issue 66): the other direction of [`crate::rl`]'s OpenRLHF
//! text, each flag mapped to the key the figures count, said as of no
//! bearing, or not read.

use crate::import::{model_key, Imported, ImportedEngine};

/// The flags that take no value.
const SWITCHES: [&str; 22] = [
    "--algo.kl.use_loss",
    "--train.colocate_actor_ref",
    "--train.colocate_critic_reward",
    "--ref.offload",
    "--train.colocate_all",
    "--vllm.enable_sleep",
    "--ds.enable_sleep",
    "--actor.gradient_checkpointing_enable",
    "--model.gradient_checkpointing_enable",
    "--train.dynamic_batch_enable",
    "--ds.adam_offload",
    "--ds.load_in_4bit",
    "--flash_attn",
    "--packing_samples",
    "--ds.packing_samples",
    "--ckpt.save_hf",
    "--data.apply_chat_template",
    "--reward.normalize_enable",
    "--algo.advantage.is_correction_enable",
    "--vllm.enforce_eager",
    "--ckpt.load_enable",
    "--algo.dynamic_filtering_enable",
];

/// Reads `words` (the flags after the command's head); `dpo` for `train_dpo`.
pub(crate) fn import_command(words: &[String], dpo: bool) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::OpenRlhf),
        ..Imported::default()
    };
    for (key, value) in [
        ("job", "rl"),
        ("rl_framework", "openrlhf"),
        ("overhead", "0"),
        // train_ppo_ray's defaults: the `gae` estimator (PPO) and a KL
        // coefficient of 0.01, so a reference (`algo.kl.init_coef` > 0).
        ("algo", if dpo { "dpo" } else { "ppo" }),
        ("recompute", "none"),
        // train_dpo always builds its reference (`train_dpo.py`).
        ("ref", "model"),
    ] {
        imported.keys.push((key, value.into()));
    }
    let mut flags: Vec<(String, Vec<String>)> = Vec::new();
    for word in words {
        match (word.starts_with("--"), flags.last_mut()) {
            (true, _) => flags.push((word.clone(), Vec::new())),
            (false, Some((_, values))) => values.push(word.clone()),
            (false, None) => imported.unread.push(word.clone()),
        }
    }
    let mut state = State::default();
    for (flag, values) in &flags {
        let takes = !SWITCHES.contains(&flag.as_str());
        // A switch with a value, or a flag without one.
        if takes == values.is_empty() {
            imported.unread.push(said(flag, values));
            continue;
        }
        if !read_flag(flag, values, &mut state, &mut imported) {
            imported.unread.push(said(flag, values));
        }
    }
    state.keys(&mut imported);
    crate::import::drop_value_models_of_the_actor(&mut imported);
    imported
}

/// Says that `said` was read into `link` (whose value follows from several
/// flags together).
fn noted(imported: &mut Imported, said: String, link: &'static str) -> bool {
    imported.mapped.push((said, link));
    true
}

/// A flag and its values as written.
fn said(flag: &str, values: &[String]) -> String {
    std::iter::once(flag.to_string())
        .chain(values.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What follows from several flags together.
#[derive(Default)]
struct State {
    max_len: Option<u32>,
    response_len: Option<u32>,
    engines: Option<u32>,
    rollout_tp: Option<u32>,
    colocated: bool,
    sleep: bool,
    lora: bool,
    qlora: bool,
    targets: bool,
    reference: bool,
    ref_offload: bool,
}

impl State {
    /// The prompt (the whole length less the response), the rollout's GPUs
    /// apart, the sleep, and the adapters' method.
    fn keys(&self, imported: &mut Imported) {
        match (self.max_len, self.response_len) {
            (Some(max_len), Some(response)) => {
                let prompt = max_len.saturating_sub(response).max(1);
                imported.keys.push(("prompt_len", prompt.to_string()));
                imported.keys.push(("response_len", response.to_string()));
            }
            // The whole length without a cap on new tokens (OpenRLHF
            // generates up to `data.max_len`; DPO's pair is that long): the
            // figures need the sum, kept as two halves.
            (Some(max_len), None) => {
                let response = (max_len / 2).max(1);
                let prompt = max_len.saturating_sub(response).max(1);
                imported.keys.push(("prompt_len", prompt.to_string()));
                imported.keys.push(("response_len", response.to_string()));
            }
            _ => {}
        }
        if !self.colocated && self.engines.is_some() {
            let gpus = self.engines.unwrap_or(1) * self.rollout_tp.unwrap_or(1);
            imported.keys.push(("placement", "split".into()));
            imported.keys.push(("rollout_gpus", gpus.to_string()));
        }
        // OpenRLHF's vLLM sleeps at level 1 (its weights kept in host RAM).
        let sleep = match (self.sleep, self.colocated) {
            (true, _) => Some("1"),
            (false, true) => Some("0"),
            (false, false) => None,
        };
        if let Some(sleep) = sleep {
            imported.keys.push(("sleep", sleep.into()));
        }
        if self.lora {
            let method = if self.qlora { "qlora" } else { "lora" };
            imported.keys.push(("method", method.into()));
            // Without the flag, OpenRLHF's own default: every linear layer.
            if !self.targets {
                imported.keys.push(("targets", "all".into()));
            }
        }
        // A reference kept on the GPU unless `--ref.offload` says otherwise.
        if self.reference && !self.ref_offload {
            imported.keys.push(("ref_offload", "0".into()));
        }
    }
}

/// One flag; false when it is not read.
fn read_flag(flag: &str, values: &[String], state: &mut State, imported: &mut Imported) -> bool {
    let value = values.join(" ");
    let number = value.parse::<u32>().ok();
    let said = said(flag, values);
    let dpo = imported
        .keys
        .iter()
        .any(|(k, v)| *k == "algo" && v == "dpo");
    if flag == "--ds.lora.target_modules" {
        state.targets = true;
    }
    // A critic's or reward model's checkpoint: its size, beside the key it turns on.
    match flag {
        "--critic.model_name_or_path" => {
            crate::import::value_model_key("critic_model", &value, said.clone(), imported)
        }
        "--reward.model_name_or_path" => {
            crate::import::value_model_key("reward_model", &value, said.clone(), imported)
        }
        _ => {}
    }
    let mut map = |link: &'static str, v: String| {
        imported.keys.push((link, v));
        imported.mapped.push((said.clone(), link));
        true
    };
    match (flag, number) {
        ("--actor.model_name_or_path" | "--model.model_name_or_path", _) => {
            model_key(&value, imported);
            true
        }
        ("--ref.model_name_or_path", _) | ("--algo.kl.use_loss", _) => {
            state.reference = true;
            map("ref", "model".into())
        }
        ("--ref.offload", _) => {
            state.ref_offload = true;
            map("ref_offload", "1".into())
        }
        ("--critic.model_name_or_path", _) => map("critic", "1".into()),
        ("--reward.model_name_or_path", _) => map("reward", "model".into()),
        ("--actor.num_nodes", Some(n)) => map("nodes", n.to_string()),
        ("--actor.num_gpus_per_node", Some(n)) => map("gpus", n.to_string()),
        ("--algo.kl.init_coef", _) => match value.parse::<f64>() {
            Ok(c) if c > 0.0 => map("ref", "model".into()),
            Ok(_) => map("ref", "none".into()),
            Err(_) => false,
        },
        ("--algo.advantage.estimator", _) => match value.as_str() {
            "gae" => map("algo", "ppo".into()),
            // A group's responses and no critic: GRPO's shape.
            "group_norm" | "dr_grpo" | "rloo" | "reinforce_baseline" | "reinforce" => {
                map("algo", "grpo".into())
            }
            _ => false,
        },
        ("--vllm.num_engines", Some(n)) => {
            state.engines = Some(n);
            noted(imported, said, "rollout_gpus")
        }
        ("--vllm.tensor_parallel_size", Some(n)) => {
            state.rollout_tp = Some(n);
            map("rollout_tp", n.to_string())
        }
        ("--vllm.gpu_memory_utilization", _) => map("gpu_util", value),
        ("--train.colocate_all", _) => {
            state.colocated = true;
            noted(imported, said, "placement")
        }
        ("--vllm.enable_sleep", _) => {
            state.sleep = true;
            noted(imported, said, "sleep")
        }
        ("--rollout.n_samples_per_prompt", Some(n)) => map("rollouts", n.to_string()),
        ("--rollout.batch_size", Some(n)) => map("prompts", n.to_string()),
        ("--train.batch_size", Some(n)) if dpo => map("prompts", n.to_string()),
        ("--rollout.max_new_tokens", Some(n)) => {
            state.response_len = Some(n);
            noted(imported, said, "response_len")
        }
        ("--data.max_len", Some(n)) => {
            state.max_len = Some(n);
            noted(imported, said, "prompt_len")
        }
        ("--actor.gradient_checkpointing_enable" | "--model.gradient_checkpointing_enable", _) => {
            map("recompute", "full".into())
        }
        ("--train.max_tokens_per_gpu", Some(n)) => map("token_budget", n.to_string()),
        ("--actor.entropy_coef", _) => {
            let on = value.parse::<f64>().is_ok_and(|v| v > 0.0);
            map("entropy", u8::from(on).to_string())
        }
        ("--train.micro_batch_size", Some(n)) => map("mbs", n.to_string()),
        ("--ds.zero_stage", Some(n)) if n <= 3 => {
            let stage = if n == 0 {
                "ddp".to_string()
            } else {
                n.to_string()
            };
            map("stage", stage)
        }
        ("--ds.param_dtype", _) if matches!(value.as_str(), "bf16" | "fp16") => map("dtype", value),
        ("--ds.adam_offload", _) => map("offload", "optimizer".into()),
        ("--ds.lora.rank", Some(n)) => {
            state.lora = true;
            map("rank", n.to_string())
        }
        ("--ds.lora.target_modules", _) => match value.as_str() {
            "q_proj v_proj" => map("targets", "qv".into()),
            "q_proj k_proj v_proj o_proj" => map("targets", "attn".into()),
            "gate_proj up_proj down_proj" => map("targets", "mlp".into()),
            "all-linear" => map("targets", "all".into()),
            _ => false,
        },
        ("--ds.load_in_4bit", _) => {
            state.qlora = true;
            noted(imported, said, "method")
        }
        // What follows from the keys above (the models' nodes and GPUs, the
        // sleep of DeepSpeed's states beside vLLM's, dynamic batches with
        // their budget) or has no bearing on the figures.
        (flag, _) if of_no_bearing(flag, &value) => {
            imported.ignored.push(said);
            true
        }
        _ => false,
    }
}

/// What follows from the keys read (the models' nodes and GPUs, the sleep
/// of DeepSpeed's states beside vLLM's, dynamic batches with their budget)
/// or has no bearing on the figures (data, schedules, checkpoints, logs).
fn of_no_bearing(flag: &str, value: &str) -> bool {
    flag.ends_with(".num_nodes")
        || flag.ends_with(".num_gpus_per_node")
        || matches!(
            flag,
            "--ds.enable_sleep"
                | "--train.colocate_actor_ref"
                | "--train.dynamic_batch_enable"
                | "--algo.kl.estimator"
                | "--flash_attn"
                | "--packing_samples"
                | "--ds.packing_samples"
                | "--train.batch_size"
                | "--train.max_epochs"
                | "--data.max_samples"
                | "--data.prompt_dataset"
                | "--data.input_key"
                | "--data.apply_chat_template"
                | "--reward.normalize_enable"
                | "--vllm.sync_backend"
                | "--algo.advantage.is_correction_enable"
                | "--ckpt.save_hf"
                | "--ckpt.output_dir"
                | "--ckpt.path"
                | "--ckpt.save_steps"
                | "--logger.logging_steps"
                | "--eval.steps"
        )
        || flag.ends_with(".adam.lr")
        || flag == "--adam.lr"
        || flag == "--model.beta"
        || (flag == "--ds.attn_implementation" && value == "flash_attention_2")
        || matches!(
            flag,
            "--data.dataset"
                | "--data.chosen_key"
                | "--data.rejected_key"
                | "--data.label_key"
                | "--train.num_episodes"
                | "--train.agent_func_path"
                | "--algo.dynamic_filtering_enable"
                | "--algo.dynamic_filtering_range"
                | "--algo.advantage.is_correction_type"
        )
        || flag.starts_with("--logger.")
        || flag.starts_with("--ckpt.")
}
