//! The RL run in OpenRLHF's and TRL's own names, beside verl's overrides
//! ([`crate::verl`]): OpenRLHF v0.11.0's dotted flags
//! (`openrlhf/cli/train_ppo_ray.py`, `train_dpo.py`, read at 3c3be62; the
//! flat `--actor_num_nodes` names before v0.10.2 are gone) and TRL's
//! `GRPOConfig`/`DPOConfig`/`DistillationConfig` fields
//! (`trl/trainer/grpo_config.py`, `dpo_config.py`, `distillation_config.py`;
//! TRL 1.16.0, whose `__post_init__` `scripts/check-exports` runs).

use super::{hf_repo, preset_repo, Refusal};
use vram_core::config::rl::{Algo, Placement, Reference};
use vram_core::config::Config;
use vram_core::decimal::shortest_decimal;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::memory::activations::Recompute;
use vram_core::memory::finetune::{Method, Targets};
use vram_core::memory::{Precision, Strategy};

fn zero_stage(config: &Config) -> u8 {
    match config.highlight {
        Strategy::Ddp => 0,
        Strategy::Zero1 => 1,
        Strategy::Zero2 => 2,
        Strategy::Zero3 => 3,
    }
}

fn param_dtype(config: &Config) -> Result<&'static str, Refusal> {
    match config.precision {
        Precision::Bf16 => Ok("bf16"),
        Precision::Fp16 => Ok("fp16"),
        _ => Err(Refusal::Precision),
    }
}

fn targets(config: &Config) -> &'static str {
    match config.fine_tuning.targets {
        Targets::Qv => "q_proj v_proj",
        Targets::Attn => "q_proj k_proj v_proj o_proj",
        Targets::Mlp => "gate_proj up_proj down_proj",
        Targets::All => "all-linear",
    }
}

/// One shell command continued with `\`, an argument a line.
/// Whether the actor's layout goes beyond data parallelism (tensor,
/// pipeline, context or expert parallelism): OpenRLHF's and TRL's texts
/// here train it over DeepSpeed's data parallelism only.
fn model_parallel(config: &Config) -> Result<(), Refusal> {
    let layout = config.runtime.layout;
    let ep = config.model.map_or(1, |m| m.ep);
    match layout.tp > 1 || layout.pp > 1 || layout.cp > 1 || ep > 1 {
        true => Err(Refusal::ModelParallel),
        false => Ok(()),
    }
}

fn command(head: &str, args: &[String]) -> String {
    let mut text = head.to_string();
    for arg in args {
        text.push_str(" \\\n    ");
        text.push_str(arg);
    }
    text.push('\n');
    text
}

/// OpenRLHF's command: `train_ppo_ray` with every model colocated
/// (`--train.colocate_all`, the hybrid engine) for GRPO and PPO,
/// `train_dpo` for DPO.
/// OpenRLHF's critic and reward model, beside the actor on its GPUs as the
/// figures count them: their checkpoints, their own where the page counts
/// one (`critic_model`, `reward_model`), else the actor's, which the user
/// replaces by theirs (the page then counts them at the actor's size).
fn value_model_flags(config: &Config) -> Vec<(&'static str, String)> {
    let rl = &config.rl;
    let (nodes, gpus) = (config.runtime.nodes.to_string(), config.gpus.to_string());
    let own = |preset: Option<&vram_core::model::presets::ModelPreset>| {
        preset.map_or(hf_repo(config), |p| crate::preset_repo(Some(p.id)))
    };
    let mut flags = Vec::new();
    if rl.has_critic() {
        flags.push((
            "critic.model_name_or_path",
            own(rl.critic_model).to_string(),
        ));
        flags.push(("critic.num_nodes", nodes.clone()));
        flags.push(("critic.num_gpus_per_node", gpus.clone()));
    }
    if rl.reward == vram_core::config::rl::Reward::Model {
        flags.push((
            "reward.model_name_or_path",
            own(rl.reward_model).to_string(),
        ));
        flags.push(("reward.num_nodes", nodes));
        flags.push(("reward.num_gpus_per_node", gpus));
    }
    flags
}

pub(super) fn openrlhf(config: &Config, link: &str) -> Result<String, Refusal> {
    let rl = &config.rl;
    let serve = &config.serve;
    model_parallel(config)?;
    let dtype = param_dtype(config)?;
    let model = config.model.ok_or(Refusal::NeedsModel)?;
    let repo = hf_repo(config);
    let (nodes, gpus) = (config.runtime.nodes, config.gpus);
    let mut args: Vec<String> = Vec::new();
    let mut set = |flag: &str, value: Option<String>| {
        args.push(match value {
            Some(value) => format!("--{flag} {value}"),
            None => format!("--{flag}"),
        })
    };
    let lora = config.fine_tuning.method != Method::Full;
    if rl.algo == Algo::Distill {
        return Err(Refusal::Distillation);
    }
    let split = rl.placement == Placement::Split;
    // Apart from the engines, OpenRLHF gives the critic and the reward
    // model GPUs of their own (only `--train.colocate_all` puts them with
    // the actor; `--train.colocate_critic_reward` pairs them elsewhere):
    // the page counts them beside the actor (`train_ppo_ray.py`, 3c3be62).
    let value_models = rl.has_critic() || rl.reward == vram_core::config::rl::Reward::Model;
    if split && rl.algo != Algo::Dpo && value_models {
        return Err(Refusal::SplitValueModels);
    }
    let mut text = format!("# {link}\n");
    if rl.algo == Algo::Dpo {
        set("model.model_name_or_path", Some(repo.into()));
        if rl.reference == Reference::Model {
            set("ref.model_name_or_path", Some(repo.into()));
            if rl.ref_offload {
                set("ref.offload", None);
            }
        }
        set("train.batch_size", Some(rl.prompts.to_string()));
        if model.recompute != Recompute::None {
            set("model.gradient_checkpointing_enable", None);
        }
    } else {
        set("actor.model_name_or_path", Some(repo.into()));
        set("actor.num_nodes", Some(nodes.to_string()));
        set("actor.num_gpus_per_node", Some(gpus.to_string()));
        // OpenRLHF builds a reference only with a KL term (`algo.kl.init_coef` > 0).
        match rl.reference {
            Reference::Model => {
                set("ref.num_nodes", Some(nodes.to_string()));
                set("ref.num_gpus_per_node", Some(gpus.to_string()));
                // Apart from the engines, the reference shares the actor's
                // GPUs as the page counts it only when told to (else a
                // placement group of its own: `train_ppo_ray.py`).
                if split {
                    set("train.colocate_actor_ref", None);
                }
                set("algo.kl.use_loss", None);
                // As a loss, k3 (verl's `low_var_kl`, GRPO's); OpenRLHF's
                // default k1 is its reward penalty's, and it says so.
                set("algo.kl.estimator", Some("k3".into()));
                if rl.ref_offload {
                    set("ref.offload", None);
                }
            }
            _ => set("algo.kl.init_coef", Some("0".into())),
        }
        for (flag, value) in value_model_flags(config) {
            set(flag, Some(value));
        }
        // Colocated, the engines take the actor's GPUs; apart, their own
        // (`create_vllm_engines` places them in a group of their own).
        let tp = rl.rollout_tp.unwrap_or(config.runtime.layout.tp).max(1);
        let engine_gpus = match split {
            true => config.rl_rollout_gpus(),
            false => {
                set("train.colocate_all", None);
                nodes * gpus
            }
        };
        set(
            "vllm.num_engines",
            Some((engine_gpus / tp).max(1).to_string()),
        );
        set("vllm.tensor_parallel_size", Some(tp.to_string()));
        set(
            "vllm.gpu_memory_utilization",
            Some(shortest_decimal(config.rl_gpu_util())),
        );
        // Apart, OpenRLHF never puts the engines to sleep (train_ppo_ray.py).
        if rl.sleep > 0 && !split {
            set("vllm.enable_sleep", None);
            set("ds.enable_sleep", None);
        }
        set(
            "algo.advantage.estimator",
            Some(if rl.has_critic() { "gae" } else { "group_norm" }.into()),
        );
        set(
            "rollout.n_samples_per_prompt",
            Some(rl.rollouts.to_string()),
        );
        set("rollout.batch_size", Some(rl.prompts.to_string()));
        set(
            "train.batch_size",
            Some((rl.prompts * rl.rollouts).to_string()),
        );
        set(
            "rollout.max_new_tokens",
            Some(serve.response_len.to_string()),
        );
        if model.recompute != Recompute::None {
            set("actor.gradient_checkpointing_enable", None);
        }
        if let Some(budget) = rl.token_budget {
            set("train.dynamic_batch_enable", None);
            set("train.max_tokens_per_gpu", Some(budget.to_string()));
        }
        if rl.entropy {
            set("actor.entropy_coef", Some("0.001".into()));
        }
        if rl.sleep == 2 && !split {
            text.push_str("# OpenRLHF's vLLM sleeps at level 1 (its weights kept in host RAM), not level 2 as this plan's figures assume.\n");
        }
    }
    // What both trainers take alike.
    set(
        "train.micro_batch_size",
        Some(model.micro_batch.to_string()),
    );
    set(
        "data.max_len",
        Some((serve.prompt_len + serve.response_len).to_string()),
    );
    set("ds.zero_stage", Some(zero_stage(config).to_string()));
    set("ds.param_dtype", Some(dtype.into()));
    if config.runtime.offload.under(config.highlight) != Offload::None {
        set("ds.adam_offload", None);
    }
    if lora {
        set("ds.lora.rank", Some(config.fine_tuning.rank.to_string()));
        // The flag is `nargs="*"`: `all-linear` given would reach PEFT as
        // ["all-linear"], which it matches as a module name (none is); its
        // shorthand is the string, OpenRLHF's default.
        if config.fine_tuning.targets != Targets::All {
            set("ds.lora.target_modules", Some(targets(config).into()));
        }
        if config.fine_tuning.method == Method::Qlora {
            set("ds.load_in_4bit", None);
        }
    }
    let head = match rl.algo {
        Algo::Dpo => "deepspeed --module openrlhf.cli.train_dpo",
        _ => "python3 -m openrlhf.cli.train_ppo_ray",
    };
    text.push_str(&command(head, &args));
    Ok(text)
}

/// TRL's configuration, as Python: `GRPOConfig` (vLLM colocated in the
/// trainer's processes) or `DPOConfig`. TRL's PPO lives in
/// `trl.experimental` and is not written.
pub(super) fn trl(config: &Config, link: &str) -> Result<String, Refusal> {
    let rl = &config.rl;
    let serve = &config.serve;
    let model = config.model.ok_or(Refusal::NeedsModel)?;
    if rl.algo == Algo::Ppo || rl.has_critic() {
        return Err(Refusal::Algorithm);
    }
    // A reward model is one of the trainer's `reward_funcs`, not in the
    // configuration written here.
    if rl.reward == vram_core::config::rl::Reward::Model {
        return Err(Refusal::RewardModel);
    }
    model_parallel(config)?;
    let precision = match config.precision {
        Precision::Bf16 => "bf16=True",
        Precision::Fp16 => "fp16=True",
        _ => return Err(Refusal::Precision),
    };
    let world = (config.gpus * config.runtime.nodes).max(1);
    let micro = model.micro_batch.max(1);
    let mut fields: Vec<String> = Vec::new();
    let split = rl.placement == Placement::Split;
    let tp = rl.rollout_tp.unwrap_or(config.runtime.layout.tp).max(1);
    let mut notes: Vec<String> = Vec::new();
    // The engine's context, a prompt and its response as the page counts
    // the KV cache: unset, TRL's vLLM takes the checkpoint's own
    // (`vllm_max_model_length`: "if omitted, it is inferred from the model
    // config", `trl/trainer/grpo_config.py`, TRL 1.16).
    let engine = config.rl_rollout_config();
    let max_model_len = engine
        .serve_report()
        .map(|r| r.max_model_len)
        .ok()
        .or(engine.serve.max_len)
        .unwrap_or(serve.prompt_len + serve.response_len);
    // The engine: in the trainer's processes, or `trl vllm-serve` on GPUs
    // of its own (its memory fraction, TP and context are the server's).
    let vllm = |fields: &mut Vec<String>, notes: &mut Vec<String>| {
        fields.push("use_vllm=True".into());
        match split {
            false => {
                fields.push("vllm_mode=\"colocate\"".into());
                fields.push(format!(
                    "vllm_gpu_memory_utilization={}",
                    shortest_decimal(config.rl_gpu_util())
                ));
                fields.push(format!("vllm_max_model_length={max_model_len}"));
                fields.push(format!("vllm_tensor_parallel_size={tp}"));
                fields.push(format!(
                    "vllm_enable_sleep_mode={}",
                    if rl.sleep > 0 { "True" } else { "False" }
                ));
            }
            true => {
                fields.push("vllm_mode=\"server\"".into());
                let gpus = config.rl_rollout_gpus();
                notes.push(format!(
                    "# On {gpus} GPUs of its own: trl vllm-serve --model {} --tensor-parallel-size {tp} --data-parallel-size {} --gpu-memory-utilization {} --max-model-len {max_model_len}",
                    hf_repo(config),
                    (gpus / tp).max(1),
                    shortest_decimal(config.rl_gpu_util())
                ));
            }
        }
    };
    let head = match rl.algo {
        Algo::Distill => {
            let teacher = rl.teacher.ok_or(Refusal::NeedsModel)?;
            let sequences = rl.prompts * rl.rollouts;
            let accumulation = (sequences / (micro * world)).max(1);
            if rl.rollouts > 1 {
                notes.push(format!(
                    "# TRL's DistillationTrainer draws one completion a prompt: {sequences} prompts a step stand for {} × {}.",
                    rl.prompts, rl.rollouts
                ));
            }
            fields.push(format!(
                "teacher_model_name_or_path=\"{}\"",
                preset_repo(Some(teacher.id))
            ));
            fields.push(format!("per_device_train_batch_size={micro}"));
            fields.push(format!("gradient_accumulation_steps={accumulation}"));
            fields.push(format!("max_completion_length={}", serve.response_len));
            vllm(&mut fields, &mut notes);
            "from trl import DistillationConfig\n\nconfig = DistillationConfig("
        }
        Algo::Dpo => {
            let accumulation = (rl.prompts / (micro * world)).max(1);
            fields.push(format!("per_device_train_batch_size={micro}"));
            fields.push(format!("gradient_accumulation_steps={accumulation}"));
            fields.push(format!(
                "max_length={}",
                serve.prompt_len + serve.response_len
            ));
            fields.push(format!(
                "precompute_ref_log_probs={}",
                if rl.reference == Reference::Precomputed {
                    "True"
                } else {
                    "False"
                }
            ));
            "from trl import DPOConfig\n\nconfig = DPOConfig("
        }
        _ => {
            let sequences = rl.prompts * rl.rollouts;
            let accumulation = (sequences / (micro * world)).max(1);
            fields.push(format!("num_generations={}", rl.rollouts));
            fields.push(format!("per_device_train_batch_size={micro}"));
            fields.push(format!("gradient_accumulation_steps={accumulation}"));
            fields.push(format!("generation_batch_size={sequences}"));
            fields.push(format!("max_completion_length={}", serve.response_len));
            vllm(&mut fields, &mut notes);
            // TRL loads a reference only for a KL term (beta > 0), and not
            // with PEFT's adapters, which it disables instead.
            fields.push(format!(
                "beta={}",
                match rl.reference {
                    Reference::Model | Reference::Adapters => "0.001",
                    _ => "0.0",
                }
            ));
            "from trl import GRPOConfig\n\nconfig = GRPOConfig("
        }
    };
    fields.push(format!(
        "gradient_checkpointing={}",
        if model.recompute != Recompute::None {
            "True"
        } else {
            "False"
        }
    ));
    fields.push(precision.into());
    let mut text = format!("# {link}\n{head}\n");
    for field in fields {
        text.push_str(&format!("    {field},\n"));
    }
    text.push_str(")\n");
    for note in notes {
        text.push_str(&note);
        text.push('\n');
    }
    if config.fine_tuning.method != Method::Full {
        text.push_str(&format!(
            "# peft_config=LoraConfig(r={}, target_modules={}) goes to the trainer, not the config.\n",
            config.fine_tuning.rank,
            match config.fine_tuning.targets {
                Targets::All => "\"all-linear\"".to_string(),
                _ => format!(
                    "[{}]",
                    targets(config)
                        .split(' ')
                        .map(|t| format!("\"{t}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        ));
    }
    Ok(text)
}
