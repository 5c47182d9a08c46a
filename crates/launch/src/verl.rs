//! The run as verl's own configuration: the Hydra overrides of
//! `python3 -m verl.trainer.main_ppo`, ready to paste. Names and rules are
//! verl 0.9.1's (the newest on PyPI): the keys of
//! `verl/trainer/config/ppo_trainer.yaml` and the files it composes
//! (`actor/dp_actor.yaml`, `ref/dp_ref.yaml`, `rollout/rollout.yaml`,
//! `critic/dp_critic.yaml`, `model/hf_model.yaml`, `engine/fsdp.yaml`), as
//! `scripts/check-exports` runs them through verl's own `validate_config`
//! (`verl/utils/config.py`) and the dataclasses of `verl/workers/config/`.

use vram_core::config::rl::{Algo, Logits, Placement, Reference};
use vram_core::config::Config;
use vram_core::decimal::shortest_decimal;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::memory::finetune::{Method, Targets};
use vram_core::memory::Strategy;

/// What verl's `main_ppo` does not run as the plan counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotInVerl {
    /// DPO: `main_ppo` trains from rollouts only.
    Dpo,
    /// Distillation with the teacher held in the trainer: verl's serves
    /// the teacher from an inference pool of its own (`distillation.*`,
    /// v0.9.0) and returns top-k log-probs.
    Distillation,
    /// The rollout on GPUs of its own: verl does so only off-policy (its
    /// one-step-off and fully asynchronous trainers), not in `main_ppo`'s
    /// synchronous step.
    SplitPlacement,
    /// QLoRA's quantised base, or DoRA's magnitudes: verl's adapters are
    /// PEFT's plain LoRA on the 16-bit model (`HFModelConfig` has a
    /// `lora_rank`, no quantisation and no `use_dora`,
    /// `verl/workers/config/model.py`).
    Adapters,
}

/// The run as verl's Hydra overrides (`python3 -m verl.trainer.main_ppo …`),
/// a line each, in verl's names; or what verl does not run as planned.
pub fn verl_overrides(config: &Config) -> Result<Vec<String>, NotInVerl> {
    match config.rl.algo {
        Algo::Dpo => return Err(NotInVerl::Dpo),
        Algo::Distill => return Err(NotInVerl::Distillation),
        Algo::Grpo | Algo::Ppo => {}
    }
    if config.rl.placement == Placement::Split {
        return Err(NotInVerl::SplitPlacement);
    }
    if config.fine_tuning.method == Method::Qlora
        || (config.fine_tuning.method.uses_adapters() && config.fine_tuning.dora)
    {
        return Err(NotInVerl::Adapters);
    }
    let rl = &config.rl;
    let serve = &config.serve;
    let model = config.model;
    let mut lines = Vec::new();
    let mut set = |key: &str, value: String| lines.push(format!("{key}={value}"));
    set(
        "algorithm.adv_estimator",
        match rl.algo {
            Algo::Ppo => "gae",
            _ => "grpo",
        }
        .into(),
    );
    // The checkpoint, and the rollout engine verl's config leaves `???`.
    set(
        "actor_rollout_ref.model.path",
        crate::hf_repo(config).into(),
    );
    set("actor_rollout_ref.rollout.name", "vllm".into());
    set("data.train_batch_size", rl.prompts.to_string());
    // One optimizer step a batch, as the figures count it (verl's default
    // of 256 prompts raises when the batch has fewer).
    set(
        "actor_rollout_ref.actor.ppo_mini_batch_size",
        rl.prompts.to_string(),
    );
    set("data.max_prompt_length", serve.prompt_len.to_string());
    set("data.max_response_length", serve.response_len.to_string());
    set("actor_rollout_ref.rollout.n", rl.rollouts.to_string());
    set(
        "actor_rollout_ref.rollout.tensor_model_parallel_size",
        rl.rollout_tp
            .unwrap_or(config.runtime.layout.tp)
            .to_string(),
    );
    set(
        "actor_rollout_ref.rollout.gpu_memory_utilization",
        shortest_decimal(config.rl_gpu_util()),
    );
    for (key, value) in engine_caps(config) {
        set(key, value);
    }
    // The engine kept whole while the actor learns (`sleep=0`): verl puts
    // it to sleep after each rollout unless `free_cache_engine` is off
    // (`vllm_async_server.py`; the level is verl's own: 1 under LoRA
    // adapters, else 2).
    if rl.sleep == 0 {
        set(
            "actor_rollout_ref.rollout.free_cache_engine",
            "False".into(),
        );
    }
    // The update's micro-batch, and the old and reference log-prob passes'
    // (`validate_config` asks for both when no token budget is set; the
    // reference's only when there is one, `need_reference_policy`).
    let micro = model.map_or(1, |m| m.micro_batch).to_string();
    match rl.token_budget {
        Some(budget) => {
            set("actor_rollout_ref.actor.use_dynamic_bsz", "True".into());
            set(
                "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
                budget.to_string(),
            );
            for pass in ["rollout", "ref"] {
                set(
                    &format!("actor_rollout_ref.{pass}.log_prob_use_dynamic_bsz"),
                    "True".into(),
                );
                set(
                    &format!("actor_rollout_ref.{pass}.log_prob_max_token_len_per_gpu"),
                    budget.to_string(),
                );
            }
        }
        None => {
            set(
                "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
                micro.clone(),
            );
            for pass in ["rollout", "ref"] {
                set(
                    &format!("actor_rollout_ref.{pass}.log_prob_micro_batch_size_per_gpu"),
                    micro.clone(),
                );
            }
        }
    }
    let recompute =
        model.is_some_and(|m| m.recompute != vram_core::memory::activations::Recompute::None);
    set(
        "actor_rollout_ref.model.enable_gradient_checkpointing",
        python_bool(recompute).into(),
    );
    // A pure bf16 actor: built in bf16, its optimizer's states too (verl
    // builds it in fp32 by default, `FSDPEngineConfig.model_dtype`).
    if config.precision == vram_core::memory::Precision::Bf16Pure {
        set(
            "actor_rollout_ref.actor.fsdp_config.model_dtype",
            "bf16".into(),
        );
    }
    let offload = config.runtime.offload;
    set(
        "actor_rollout_ref.actor.fsdp_config.param_offload",
        python_bool(offload == Offload::All).into(),
    );
    set(
        "actor_rollout_ref.actor.fsdp_config.optimizer_offload",
        python_bool(offload != Offload::None).into(),
    );
    // ZeRO-2: the weights stay whole from the forward through the backward
    // (`reshard_after_forward: false`, FSDP's SHARD_GRAD_OP:
    // `get_sharding_strategy` in `verl/workers/engine/fsdp/transformer_impl.py`);
    // verl's default reshards after the forward, as ZeRO-3.
    let zero2 = config.highlight == Strategy::Zero2;
    if zero2 {
        set(
            "actor_rollout_ref.actor.fsdp_config.reshard_after_forward",
            "False".into(),
        );
    }
    // A KL term with a reference: a frozen model, whose weights verl keeps
    // in host RAM between its passes whatever is set (FSDP's CPUOffload
    // for a `forward_only` engine, `_build_fsdp_module`), or the actor with
    // its adapters off (`ref_in_actor` with a LoRA rank).
    set(
        "actor_rollout_ref.actor.use_kl_loss",
        python_bool(matches!(
            rl.reference,
            Reference::Model | Reference::Adapters
        ))
        .into(),
    );
    set(
        "actor_rollout_ref.actor.entropy_coeff",
        if rl.entropy { "0.001" } else { "0" }.into(),
    );
    if rl.entropy {
        match rl.logits {
            Logits::Chunked => set(
                "actor_rollout_ref.actor.entropy_from_logits_with_chunking",
                "True".into(),
            ),
            Logits::Fused => set("actor_rollout_ref.model.use_fused_kernels", "True".into()),
            Logits::Full => {}
        }
    }
    if config.fine_tuning.method.uses_adapters() {
        lines.extend(lora(config, "actor_rollout_ref.model"));
    }
    lines.extend(critic(config, &micro, recompute, zero2));
    lines.push(format!("trainer.n_gpus_per_node={}", config.gpus));
    lines.push(format!("trainer.nnodes={}", config.runtime.nodes));
    Ok(lines)
}

/// The rollout engine as the page counts it ([`Config::rl_rollout_config`]):
/// a sequence of prompt and response as `max_model_len` (verl passes vLLM
/// the checkpoint's `max_position_embeddings` when it is unset,
/// `vllm_async_server.py`'s `_validate_configs`), and the scheduler's two
/// caps always written: `rollout.yaml` sets `max_num_seqs: 256` where the
/// page counts 1,024 unless set (`RlFramework::rollout_batch`).
fn engine_caps(config: &Config) -> Vec<(&'static str, String)> {
    let engine = config.rl_rollout_config();
    let (max_len, tokens, seqs) = match engine.serve_report() {
        Ok(report) => (
            Some(report.max_model_len),
            Some(report.batched_tokens),
            Some(report.max_num_seqs),
        ),
        Err(_) => (
            engine.serve.max_len,
            engine.serve.batched_tokens,
            engine.serve.max_num_seqs,
        ),
    };
    [
        ("actor_rollout_ref.rollout.max_model_len", max_len),
        ("actor_rollout_ref.rollout.max_num_batched_tokens", tokens),
        ("actor_rollout_ref.rollout.max_num_seqs", seqs),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.map(|v| (key, v.to_string())))
    .collect()
}

/// The adapters of the model under `of` on the layers the page counts
/// (`HFModelConfig.target_modules`: "all-linear" or a list of module names,
/// `verl/workers/config/model.py`); a list, in brackets, quoted for the shell.
fn lora(config: &Config, of: &str) -> [String; 2] {
    let modules = match config.fine_tuning.targets {
        Targets::Qv => "[q_proj,v_proj]",
        Targets::Attn => "[q_proj,k_proj,v_proj,o_proj]",
        Targets::Mlp => "[gate_proj,up_proj,down_proj]",
        Targets::All => "all-linear",
    };
    let targets = format!("{of}.target_modules={modules}");
    [
        format!("{of}.lora_rank={}", config.fine_tuning.rank),
        match modules.starts_with('[') {
            true => format!("'{targets}'"),
            false => targets,
        },
    ]
}

/// The critic, as the page counts it: the actor's states again
/// (`rl_trainer_side`), so its checkpoint, micro-batch (`micro`) or token
/// budget, recomputation, offload, sharding and adapters are the actor's.
/// verl trains one for GAE unless `critic.enable` says otherwise
/// (`need_critic`, `verl/trainer/ppo/utils.py`); its model path otherwise
/// stays `critic.yaml`'s `~/models/deepseek-llm-7b-chat`, `CriticConfig`
/// asks for a micro-batch without a token budget
/// (`verl/workers/config/critic.py`), and its budget is 32,768 tokens
/// unless set; its FSDP settings are `critic.fsdp` (`dp_critic.yaml`).
fn critic(config: &Config, micro: &str, recompute: bool, zero2: bool) -> Vec<String> {
    let rl = &config.rl;
    let mut lines = Vec::new();
    if rl.has_critic() != (rl.algo == Algo::Ppo) {
        lines.push(format!("critic.enable={}", python_bool(rl.has_critic())));
    }
    if !rl.has_critic() {
        return lines;
    }
    lines.push(format!("critic.model.path={}", crate::hf_repo(config)));
    lines.push(match rl.token_budget {
        Some(budget) => format!("critic.ppo_max_token_len_per_gpu={budget}"),
        None => format!("critic.ppo_micro_batch_size_per_gpu={micro}"),
    });
    lines.push(format!(
        "critic.model.enable_gradient_checkpointing={}",
        python_bool(recompute)
    ));
    let offload = config.runtime.offload;
    lines.push(format!(
        "critic.fsdp.param_offload={}",
        python_bool(offload == Offload::All)
    ));
    lines.push(format!(
        "critic.fsdp.optimizer_offload={}",
        python_bool(offload != Offload::None)
    ));
    if zero2 {
        lines.push("critic.fsdp.reshard_after_forward=False".into());
    }
    if config.fine_tuning.method.uses_adapters() {
        lines.extend(lora(config, "critic.model"));
    }
    lines
}

/// A boolean as Hydra's overrides write it.
fn python_bool(value: bool) -> &'static str {
    match value {
        true => "True",
        false => "False",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_core::input::link::decode;

    /// A pure bf16 actor is built in bf16 (`model_dtype=bf16`), as the
    /// figures count its frozen LoRA base at 2 bytes; under a mixed
    /// precision verl's own fp32 stays unsaid.
    #[test]
    fn a_pure_bf16_actor_is_built_in_bf16() {
        let lines = |dtype: &str| {
            let query = format!(
                "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&stage=3&method=lora&rank=32&targets=all&dtype={dtype}"
            );
            verl_overrides(&decode(&query).config).unwrap()
        };
        let key = "actor_rollout_ref.actor.fsdp_config.model_dtype=bf16";
        assert!(lines("bf16-pure").iter().any(|line| line == key));
        assert!(!lines("bf16")
            .iter()
            .any(|line| line.contains("model_dtype")));
    }
}
