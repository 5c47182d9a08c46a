//! The run as verl's own configuration: the Hydra overrides of
//! `python3 -m verl.trainer.main_ppo` (verl at b178a3c, its names in
//! `verl/trainer/config/ppo_trainer.yaml`), ready to paste.

use vram_core::config::rl::{Algo, Logits, Placement, Reference};
use vram_core::config::Config;
use vram_core::decimal::shortest_decimal;
use vram_core::frameworks::deepspeed::Offload;

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
    if let Some(tokens) = serve.batched_tokens {
        set(
            "actor_rollout_ref.rollout.max_num_batched_tokens",
            tokens.to_string(),
        );
    }
    if let Some(seqs) = serve.max_num_seqs {
        set("actor_rollout_ref.rollout.max_num_seqs", seqs.to_string());
    }
    // The update's micro-batch, and the old and reference log-prob passes'
    // (verl's validation asks for both when no token budget is set).
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
            let micro = model.map_or(1, |m| m.micro_batch).to_string();
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
        if recompute { "True" } else { "False" }.into(),
    );
    let offload = config.runtime.offload;
    set(
        "actor_rollout_ref.actor.fsdp_config.param_offload",
        if offload == Offload::All {
            "True"
        } else {
            "False"
        }
        .into(),
    );
    set(
        "actor_rollout_ref.actor.fsdp_config.optimizer_offload",
        if offload != Offload::None {
            "True"
        } else {
            "False"
        }
        .into(),
    );
    set(
        "actor_rollout_ref.actor.use_kl_loss",
        if matches!(rl.reference, Reference::Model | Reference::Adapters) {
            "True"
        } else {
            "False"
        }
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
        set(
            "actor_rollout_ref.model.lora_rank",
            config.fine_tuning.rank.to_string(),
        );
        set(
            "actor_rollout_ref.model.target_modules",
            "all-linear".into(),
        );
    }
    set("trainer.n_gpus_per_node", config.gpus.to_string());
    set("trainer.nnodes", config.runtime.nodes.to_string());
    Ok(lines)
}
