//! What an RL post-training run asks (`job=rl`): the algorithm, the
//! rollouts, the reference and critic models, how the phases switch, and
//! how the log-probs are computed. The lengths and the rollout engine's
//! memory fraction are serving's ([`vram_serve::options::ServeOptions`]).

/// The algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algo {
    /// GRPO (and its shape: DAPO, RLOO): rollouts, no critic.
    #[default]
    Grpo,
    /// PPO: rollouts and a critic trained beside the actor.
    Ppo,
    /// DPO: no rollouts; chosen and rejected responses in one forward.
    Dpo,
    /// On-policy distillation: the student's rollouts scored token by
    /// token by a frozen teacher's distribution over the vocabulary (TRL's
    /// `GKDTrainer` and `DistillationTrainer`, OpenRLHF's `KDLoss`).
    Distill,
}

impl Algo {
    /// Every algorithm, in the `algo` key's order.
    pub const ALL: [Algo; 4] = [Algo::Grpo, Algo::Ppo, Algo::Dpo, Algo::Distill];

    /// The `algo` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Algo::Grpo => "grpo",
            Algo::Ppo => "ppo",
            Algo::Dpo => "dpo",
            Algo::Distill => "distill",
        }
    }

    /// Whether the run generates its responses (a rollout phase).
    pub const fn generates(self) -> bool {
        !matches!(self, Algo::Dpo)
    }
}

/// Where the reference policy's log-probs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reference {
    /// A frozen copy of the model in 16 bits, sharded like the actor.
    #[default]
    Model,
    /// The actor with its LoRA adapters disabled (verl's `ref_in_actor`): no copy.
    Adapters,
    /// Computed before the run (DPO's precomputed reference log-probs): no model.
    Precomputed,
    /// No KL term (GRPO without `use_kl_loss`, DAPO): no reference.
    None,
}

impl Reference {
    /// Every choice, in the `ref` key's order.
    pub const ALL: [Reference; 4] = [
        Reference::Model,
        Reference::Adapters,
        Reference::Precomputed,
        Reference::None,
    ];

    /// The `ref` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Reference::Model => "model",
            Reference::Adapters => "adapters",
            Reference::Precomputed => "precomputed",
            Reference::None => "none",
        }
    }
}

/// The reward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reward {
    /// A rule or a verifier: nothing on the GPUs.
    #[default]
    Rule,
    /// A reward model, frozen in 16 bits, sharded like the actor.
    Model,
}

impl Reward {
    /// Both, in the `reward` key's order.
    pub const ALL: [Reward; 2] = [Reward::Rule, Reward::Model];

    /// The `reward` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Reward::Rule => "rule",
            Reward::Model => "model",
        }
    }
}

/// How the entropy over the vocabulary is computed (the log-probs are a
/// cross-entropy, counted as the training step counts its loss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Logits {
    /// Whole: verl's `entropy_from_logits`, fp32 terms for every token of a micro-batch.
    #[default]
    Full,
    /// In chunks of tokens (verl's `entropy_from_logits_with_chunking`).
    Chunked,
    /// A fused kernel that never holds the vocabulary's logits (verl's `use_fused_kernels`).
    Fused,
}

impl Logits {
    /// Every choice, in the `logits` key's order.
    pub const ALL: [Logits; 3] = [Logits::Full, Logits::Chunked, Logits::Fused];

    /// The `logits` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Logits::Full => "full",
            Logits::Chunked => "chunked",
            Logits::Fused => "fused",
        }
    }
}

/// Whose defaults fill what the user leaves unset, and whose settings the
/// page offers first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RlFramework {
    /// verl (its `ppo_trainer.yaml` and `rollout.yaml`).
    #[default]
    Verl,
    /// OpenRLHF v0.11.0 (`openrlhf/cli/train_ppo_ray.py`).
    OpenRlhf,
    /// TRL (`GRPOConfig`, `trl vllm-serve`).
    Trl,
}

impl RlFramework {
    /// Every framework, in the `rl_framework` key's order.
    pub const ALL: [RlFramework; 3] = [RlFramework::Verl, RlFramework::OpenRlhf, RlFramework::Trl];

    /// The `rl_framework` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            RlFramework::Verl => "verl",
            RlFramework::OpenRlhf => "openrlhf",
            RlFramework::Trl => "trl",
        }
    }

    /// The rollout engine's `max_num_batched_tokens` and `max_num_seqs`
    /// unless set: verl 0.9.1's rollout config passes 8,192 and 256 on every
    /// GPU (`verl/trainer/config/rollout/rollout.yaml`:
    /// `max_num_batched_tokens`, `max_num_seqs`), where `vllm serve` would
    /// take 2,048 and 256 on an A100 or a GPU under 70 GiB; OpenRLHF and TRL
    /// leave vLLM's own defaults here.
    pub const fn rollout_batch(self) -> (Option<u32>, Option<u32>) {
        match self {
            RlFramework::Verl => (Some(8192), Some(256)),
            RlFramework::OpenRlhf | RlFramework::Trl => (None, None),
        }
    }

    /// The rollout engine's memory fraction unless set: verl's 0.5
    /// (`rollout.gpu_memory_utilization`, either placement); OpenRLHF's
    /// `--vllm.gpu_memory_utilization` 0.95; TRL's
    /// `vllm_gpu_memory_utilization` 0.3 colocated, and `trl vllm-serve`'s
    /// 0.9 on GPUs of its own.
    pub const fn gpu_util(self, placement: Placement) -> f64 {
        match (self, placement) {
            (RlFramework::Verl, _) => 0.5,
            (RlFramework::OpenRlhf, _) => 0.95,
            (RlFramework::Trl, Placement::Colocate) => 0.3,
            (RlFramework::Trl, Placement::Split) => 0.9,
        }
    }
}

/// Where the rollout engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Placement {
    /// On the trainer's GPUs, the two phases taking turns (verl's hybrid
    /// engine, OpenRLHF's `--train.colocate_all`, TRL's `vllm_mode="colocate"`).
    #[default]
    Colocate,
    /// On GPUs of its own (`rollout_gpus`), the trainer's weights sent to
    /// it after each step (OpenRLHF without `--train.colocate_all`, TRL's
    /// `vllm_mode="server"`).
    Split,
}

impl Placement {
    /// Both, in the `placement` key's order.
    pub const ALL: [Placement; 2] = [Placement::Colocate, Placement::Split];

    /// The `placement` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Placement::Colocate => "colocate",
            Placement::Split => "split",
        }
    }
}

/// An RL run as the user asks for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlOptions {
    /// The algorithm.
    pub algo: Algo,
    /// Prompts a step (verl's `data.train_batch_size`).
    pub prompts: u32,
    /// Responses a prompt (`rollout.n`).
    pub rollouts: u32,
    /// The rollout engine's tensor parallelism; unset: the actor's TP.
    pub rollout_tp: Option<u32>,
    /// vLLM's sleep level while the actor learns: 0 keeps the engine, 1
    /// moves its weights to host RAM and frees the KV cache, 2 frees both
    /// (what verl's hybrid engine runs: `vllm_async_server.py`'s `sleep`).
    pub sleep: u8,
    /// The reference policy.
    pub reference: Reference,
    /// Whether the reference's weights live in host RAM between its passes
    /// (verl forces FSDP's CPU offload on its reference: `fsdp_workers.py`).
    pub ref_offload: bool,
    /// Whether a critic is trained; unset: PPO's.
    pub critic: Option<bool>,
    /// The reward.
    pub reward: Reward,
    /// Tokens a micro-batch packs (verl's `ppo_max_token_len_per_gpu` with
    /// `use_dynamic_bsz`); unset: `mbs` sequences.
    pub token_budget: Option<u32>,
    /// The mean prompt the data has, tokens (verl's `use_remove_padding`
    /// packs the real lengths, as do OpenRLHF's and TRL's packing); unset:
    /// the longest, `prompt_len`.
    pub prompt_mean: Option<u32>,
    /// The mean response generated, tokens; unset: the longest, `response_len`.
    pub response_mean: Option<u32>,
    /// How the entropy's terms are computed.
    pub logits: Logits,
    /// Whether the loss has an entropy term (verl's `entropy_coeff` above
    /// 0; 0 by default): its fp32 terms over the vocabulary beside the
    /// log-probs, which the training step's loss already counts.
    pub entropy: bool,
    /// Whose defaults fill what is unset.
    pub framework: RlFramework,
    /// Where the rollout engine runs.
    pub placement: Placement,
    /// The rollout engine's own GPUs under `Placement::Split`; unset: one
    /// node's worth (`gpus`).
    pub rollout_gpus: Option<u32>,
    /// The frozen teacher under `Algo::Distill`.
    pub teacher: Option<&'static vram_shared::model::presets::ModelPreset>,
    /// The critic's base model when it is not the actor's (verl's
    /// `critic.model.path`, OpenRLHF's `--critic.model_name_or_path`).
    pub critic_model: Option<&'static vram_shared::model::presets::ModelPreset>,
    /// The reward model's base when it is not the actor's (OpenRLHF's
    /// `--reward.model_name_or_path`).
    pub reward_model: Option<&'static vram_shared::model::presets::ModelPreset>,
}

impl Default for RlOptions {
    fn default() -> Self {
        RlOptions {
            algo: Algo::Grpo,
            prompts: 256,
            rollouts: 8,
            rollout_tp: None,
            sleep: 2,
            reference: Reference::Model,
            ref_offload: true,
            critic: None,
            reward: Reward::Rule,
            token_budget: None,
            prompt_mean: None,
            response_mean: None,
            logits: Logits::Full,
            entropy: false,
            framework: RlFramework::Verl,
            placement: Placement::Colocate,
            rollout_gpus: None,
            teacher: None,
            critic_model: None,
            reward_model: None,
        }
    }
}

impl RlOptions {
    /// Whether a critic is trained.
    pub fn has_critic(&self) -> bool {
        self.critic.unwrap_or(self.algo == Algo::Ppo)
    }

    /// Whether a reference policy is held as a model: none under
    /// distillation, whose teacher takes its place.
    pub fn reference_model(&self) -> bool {
        self.reference == Reference::Model && self.algo != Algo::Distill
    }
}
