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
use vram_core::memory::activations::{Recompute, RecomputeMethod, RecomputeModule};
use vram_core::memory::finetune::{Method, Targets};
use vram_core::memory::parallel::{CpComm, ExpertTp};
use vram_core::memory::{Precision, Strategy};

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
    /// QLoRA's quantised base, DoRA's magnitudes, or adapters on the
    /// Megatron actor: verl's adapters are PEFT's plain LoRA on its FSDP
    /// actor's 16-bit model (`HFModelConfig` has a `lora_rank`, no
    /// quantisation and no `use_dora`, `verl/workers/config/model.py`);
    /// the Megatron actor's go through Megatron-Bridge, not checked here.
    Adapters,
    /// A precision other than BF16 (mixed, or pure on the FSDP actor): verl
    /// computes in bf16 unless its mixed-precision settings are rewritten,
    /// and its Megatron actor keeps an fp32 copy in its optimizer.
    Precision,
    /// A sharding neither of verl's actors has: its FSDP actor shards
    /// everything (ZeRO-3, or ZeRO-2 without resharding after the forward)
    /// or nothing (DDP, `fsdp_size=1`); its Megatron actor shards the
    /// optimizer (ZeRO-1, the distributed optimizer) or nothing.
    Sharding,
    /// A reward model: verl 0.9.1 serves it from an inference engine of its
    /// own (`reward.reward_model.rollout`), not held in the trainer as the
    /// figures count it.
    RewardModel,
    /// A sharding group: HSDP's `fsdp_size` below the GPUs, or the
    /// distributed optimizer's instances, are not written here.
    ShardGroup,
    /// A pipeline split verl's Megatron actor is not given here (uneven
    /// first or last stages, a stage map, the embedding or loss counted as
    /// layers).
    PipelineSplit,
    /// torchtitan's per-op recomputation (`recompute_modules=op`): verl's
    /// FSDP actor checkpoints whole layers, its Megatron actor Megatron-LM's
    /// modules.
    Recomputation,
}

/// Which of verl's engines trains the actor (and the critic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorEngine {
    /// FSDP (`model_engine=dp`, verl's default): data parallelism, the
    /// sequence split by Ulysses (`cp` with `cp_comm=a2a`).
    Fsdp,
    /// Megatron-LM's (`model_engine=megatron`): tensor, pipeline, context
    /// and expert parallelism ([`Config::rl_megatron_actor`]).
    Megatron,
}

impl ActorEngine {
    /// The engine that runs `config`'s layout.
    pub fn of(config: &Config) -> Self {
        match config.rl_megatron_actor() {
            true => ActorEngine::Megatron,
            false => ActorEngine::Fsdp,
        }
    }
}

/// What verl cannot run as `config` plans it, if anything.
fn refusal(config: &Config) -> Option<NotInVerl> {
    let engine = ActorEngine::of(config);
    let tuning = config.fine_tuning;
    let layout = config.runtime.layout;
    let strategy = config.highlight;
    Some(match config.rl.algo {
        Algo::Dpo => NotInVerl::Dpo,
        Algo::Distill => NotInVerl::Distillation,
        _ if config.rl.placement == Placement::Split => NotInVerl::SplitPlacement,
        _ if config.rl.reward == vram_core::config::rl::Reward::Model => NotInVerl::RewardModel,
        _ if config.model.is_some_and(|m| {
            m.recompute == Recompute::Selective && m.recompute_modules.has(RecomputeModule::PerOp)
        }) =>
        {
            NotInVerl::Recomputation
        }
        _ if tuning.method == Method::Qlora
            || (tuning.method.uses_adapters()
                && (tuning.dora || engine == ActorEngine::Megatron)) =>
        {
            NotInVerl::Adapters
        }
        _ => match (engine, config.precision, strategy) {
            (_, Precision::Bf16, _) | (ActorEngine::Fsdp, Precision::Bf16Pure, _) => {
                match (engine, strategy) {
                    (ActorEngine::Fsdp, Strategy::Zero1)
                    | (ActorEngine::Megatron, Strategy::Zero2 | Strategy::Zero3) => {
                        NotInVerl::Sharding
                    }
                    _ if config.runtime.shard_group.is_some() => NotInVerl::ShardGroup,
                    (ActorEngine::Megatron, _)
                        if layout.first_layers.is_some()
                            || layout.last_layers.is_some()
                            || layout.stage_map.is_some()
                            || layout.embedding_in_split
                            || layout.loss_in_split =>
                    {
                        NotInVerl::PipelineSplit
                    }
                    _ => return None,
                }
            }
            _ => NotInVerl::Precision,
        },
    })
}

/// The run as verl's Hydra overrides (`python3 -m verl.trainer.main_ppo …`),
/// a line each, in verl's names; or what verl does not run as planned.
pub fn verl_overrides(config: &Config) -> Result<Vec<String>, NotInVerl> {
    if let Some(why) = refusal(config) {
        return Err(why);
    }
    let rl = &config.rl;
    let serve = &config.serve;
    let engine = ActorEngine::of(config);
    let mut lines = Vec::new();
    let mut set = |key: &str, value: String| lines.push(format!("{key}={value}"));
    // The Megatron actor, reference and critic (`ppo_trainer.yaml`'s
    // `model_engine` group; `ppo_megatron_trainer.yaml` is its deprecated
    // alias).
    if engine == ActorEngine::Megatron {
        set("model_engine", "megatron".into());
    }
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
    set(
        "actor_rollout_ref.rollout.name",
        config.rl_engine().key().into(),
    );
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
    let micro = config.model.map_or(1, |m| m.micro_batch).to_string();
    batch_lines(config, &micro, &mut set);
    let actor = match engine {
        ActorEngine::Fsdp => fsdp_lines(config, "actor_rollout_ref.actor", "fsdp_config"),
        ActorEngine::Megatron => megatron_lines(config, "actor_rollout_ref.actor"),
    };
    for line in actor {
        lines.push(line);
    }
    let mut set = |key: &str, value: String| lines.push(format!("{key}={value}"));
    if engine == ActorEngine::Megatron {
        // verl's Megatron reference offloads as the actor does unless told
        // (`megatron_ref.yaml`); the figures keep it where `ref_offload` says.
        set(
            "actor_rollout_ref.ref.megatron.param_offload",
            python_bool(config.rl.ref_offload).into(),
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
    lines.extend(critic(config, &micro, engine));
    lines.push(format!("trainer.n_gpus_per_node={}", config.gpus));
    lines.push(format!("trainer.nnodes={}", config.runtime.nodes));
    Ok(lines)
}

/// The update's micro-batch (`micro` sequences), and the old and reference
/// log-prob passes' (`validate_config` asks for both when no token budget
/// is set; the reference's only when there is one, `need_reference_policy`).
fn batch_lines(config: &Config, micro: &str, set: &mut impl FnMut(&str, String)) {
    match config.rl.token_budget {
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
                micro.into(),
            );
            for pass in ["rollout", "ref"] {
                set(
                    &format!("actor_rollout_ref.{pass}.log_prob_micro_batch_size_per_gpu"),
                    micro.into(),
                );
            }
        }
    }
}

/// Whether the plan recomputes its activations.
fn recomputes(config: &Config) -> bool {
    config.model.is_some_and(|m| m.recompute != Recompute::None)
}

/// The FSDP engine's settings of the model trained under `of` (the actor,
/// or the critic, whose FSDP settings are `critic.fsdp`: `fsdp` as `engine`):
/// recomputation, Ulysses, offload between phases, the sharding, and a pure
/// bf16 model.
fn fsdp_lines(config: &Config, of: &str, engine: &str) -> Vec<String> {
    // The model's own flag sits beside the actor (`actor_rollout_ref.model`)
    // or under the critic (`critic.model`).
    let model_of = match of {
        "critic" => "critic.model",
        _ => "actor_rollout_ref.model",
    };
    let mut lines = vec![format!(
        "{model_of}.enable_gradient_checkpointing={}",
        python_bool(recomputes(config))
    )];
    let mut keys: Vec<(&str, String)> = Vec::new();
    // A pure bf16 actor: built in bf16, its optimizer's states too (verl
    // builds it in fp32 by default, `FSDPEngineConfig.model_dtype`).
    if config.precision == Precision::Bf16Pure {
        keys.push(("model_dtype", "bf16".into()));
    }
    keys.extend(offload_keys(config));
    match config.highlight {
        // ZeRO-2: the weights stay whole from the forward through the
        // backward (`reshard_after_forward: false`, FSDP's SHARD_GRAD_OP:
        // `get_sharding_strategy` in `verl/workers/engine/fsdp/transformer_impl.py`);
        // verl's default reshards after the forward, as ZeRO-3.
        Strategy::Zero2 => keys.push(("reshard_after_forward", "False".into())),
        // DDP: a sharding group of one GPU, every state whole on each.
        Strategy::Ddp => keys.push(("fsdp_size", "1".into())),
        Strategy::Zero1 | Strategy::Zero3 => {}
    }
    lines.extend(
        keys.into_iter()
            .map(|(k, v)| format!("{of}.{engine}.{k}={v}")),
    );
    // Ulysses: the sequence split over `cp` GPUs by all-to-alls (the
    // reference follows the actor's, `dp_ref.yaml`).
    let cp = config.runtime.layout.cp;
    if cp > 1 {
        lines.push(format!("{of}.ulysses_sequence_parallel_size={cp}"));
    }
    lines
}

/// The Megatron engine's settings of the model trained under `of`
/// (`actor_rollout_ref.actor` or `critic`, each with a `megatron` group,
/// `engine/megatron.yaml`): the layout, sequence parallelism, the
/// distributed optimizer, offload between phases and recomputation
/// (`override_transformer_config`, as Megatron-LM's `TransformerConfig`
/// names it).
fn megatron_lines(config: &Config, of: &str) -> Vec<String> {
    let layout = config.runtime.layout;
    let ep = config.model.map_or(1, |m| m.ep);
    // Keys of `megatron.yaml`, and those it does not list (added with `+`).
    let mut keys: Vec<(&str, String)> = Vec::new();
    let mut added: Vec<(&str, String)> = Vec::new();
    for (key, size) in [
        ("tensor_model_parallel_size", layout.tp),
        ("pipeline_model_parallel_size", layout.pp),
        ("virtual_pipeline_model_parallel_size", layout.vpp),
        ("context_parallel_size", layout.cp),
        ("expert_model_parallel_size", ep),
    ] {
        if size > 1 {
            keys.push((key, size.to_string()));
        }
    }
    // ETP: as TP unless set (`expert_tensor_parallel_size: null`).
    if ep > 1 && layout.expert_tp == ExpertTp::One && layout.tp > 1 {
        keys.push(("expert_tensor_parallel_size", "1".into()));
    }
    // verl turns sequence parallelism on with TP (`sequence_parallel: True`).
    if layout.tp > 1 && !layout.sp {
        keys.push(("sequence_parallel", "False".into()));
    }
    // DDP: every optimizer state whole; verl's default is ZeRO-1's
    // distributed optimizer.
    if config.highlight == Strategy::Ddp {
        keys.push(("use_distributed_optimizer", "False".into()));
    }
    keys.extend(offload_keys(config));
    if layout.cp > 1 && layout.cp_comm == CpComm::AllToAll {
        added.push(("override_transformer_config.cp_comm_type", "a2a".into()));
    }
    if let Some(model) = config.model {
        match model.recompute {
            Recompute::None => {}
            Recompute::Selective => {
                keys.push((
                    "override_transformer_config.recompute_granularity",
                    "selective".into(),
                ));
                let modules = model.recompute_modules.key();
                if modules != "core_attn" {
                    keys.push((
                        "override_transformer_config.recompute_modules",
                        format!("[{modules}]"),
                    ));
                }
            }
            Recompute::Full => {
                let method = match model.checkpointing.method {
                    RecomputeMethod::Uniform => "uniform",
                    RecomputeMethod::Block => "block",
                };
                keys.push((
                    "override_transformer_config.recompute_granularity",
                    "full".into(),
                ));
                keys.push((
                    "override_transformer_config.recompute_method",
                    method.into(),
                ));
                keys.push((
                    "override_transformer_config.recompute_num_layers",
                    model.checkpointing.layers.to_string(),
                ));
            }
        }
    }
    let written = keys
        .into_iter()
        .map(|(k, v)| format!("{of}.megatron.{k}={v}"));
    let plus = added
        .into_iter()
        .map(|(k, v)| format!("+{of}.megatron.{k}={v}"));
    written.chain(plus).collect()
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

/// The critic, as the page counts it: a value model trained as the actor
/// is (`rl_trainer_side`), on its own checkpoint (`critic_model`) or the
/// actor's, its micro-batch (`micro`) or token budget, recomputation,
/// offload, sharding, layout and adapters the actor's, on the actor's
/// `engine`. verl trains one for GAE unless
/// `critic.enable` says otherwise (`need_critic`, `verl/trainer/ppo/utils.py`);
/// its model path otherwise stays `critic.yaml`'s `~/models/deepseek-llm-7b-chat`,
/// `CriticConfig` asks for a micro-batch without a token budget
/// (`verl/workers/config/critic.py`), and its budget is 32,768 tokens
/// unless set; its FSDP settings are `critic.fsdp` (`dp_critic.yaml`), its
/// Megatron ones `critic.megatron` (`megatron_critic.yaml`).
fn critic(config: &Config, micro: &str, engine: ActorEngine) -> Vec<String> {
    let rl = &config.rl;
    let mut lines = Vec::new();
    if rl.has_critic() != (rl.algo == Algo::Ppo) {
        lines.push(format!("critic.enable={}", python_bool(rl.has_critic())));
    }
    if !rl.has_critic() {
        return lines;
    }
    let path = match rl.critic_model {
        Some(preset) => crate::preset_repo(Some(preset.id)),
        None => crate::hf_repo(config),
    };
    lines.push(format!("critic.model.path={path}"));
    lines.push(match rl.token_budget {
        Some(budget) => format!("critic.ppo_max_token_len_per_gpu={budget}"),
        None => format!("critic.ppo_micro_batch_size_per_gpu={micro}"),
    });
    lines.extend(match engine {
        ActorEngine::Fsdp => fsdp_lines(config, "critic", "fsdp"),
        ActorEngine::Megatron => megatron_lines(config, "critic"),
    });
    if config.fine_tuning.method.uses_adapters() {
        lines.extend(lora(config, "critic.model"));
    }
    lines
}

/// Offload between phases, as both of verl's engines name it: the
/// parameters at `offload=all`, the optimizer's states at either.
fn offload_keys(config: &Config) -> [(&'static str, String); 2] {
    let offload = config.runtime.offload;
    [
        ("param_offload", python_bool(offload == Offload::All).into()),
        (
            "optimizer_offload",
            python_bool(offload != Offload::None).into(),
        ),
    ]
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
