//! RL post-training (`job=rl`): a composition, not a third copy. The
//! *learn* phase is training's report for the actor (its states,
//! activations and step, [`crate::report`]) with what RL adds beside it (a
//! frozen reference, a critic, a reward model, the log-probs over the
//! vocabulary); the *generate* phase is serving's report for the rollout
//! engine ([`vram_serve::report`]) beside what the trainer leaves on the
//! GPU. On colocated GPUs the two phases take turns: each is compared with
//! the GPU, never added to the other. As verl runs them (FSDP workers, a
//! vLLM rollout engine put to sleep while the actor learns).

use crate::config::job::Job;
use crate::config::rl::{Algo, Logits, Placement, Reference, Reward};
use crate::config::Config;
use crate::frameworks::deepspeed::Offload;
use crate::input::field::{InputErrorKind, Limits};
use crate::input::problems::{learner_error_at_field, rollout_error_at_field};
use crate::input::{Field, InputError};
use crate::memory::{MemoryBreakdown, Strategy};
use crate::report::StrategyReport;
use vram_serve::report::ServeReport;

pub mod limits;
pub mod timeline;

pub use timeline::{RlTimeline, Stage, StageFigure, TransferSeconds};

/// vLLM's memory fraction in verl's rollout unless set
/// (`actor_rollout_ref.rollout.gpu_memory_utilization`, 0.5 in
/// `ppo_trainer.yaml`): of the GPU's whole memory, the trainer's beside it.
/// Each framework's: [`crate::config::rl::RlFramework::gpu_util`].
pub const VERL_GPU_MEMORY_UTILIZATION: f64 = 0.5;

/// Bytes the entropy's terms hold at their peak per token and vocabulary
/// entry, on 16-bit logits: twice the logits' bytes (verl 0.9.1's
/// `entropy_from_logits`, measured on the CPU: a softmax and its product
/// with the logits; `torch.compile` keeps none of them for the backward).
pub const ENTROPY_BYTES_PER_LOGIT: u64 = 4;

/// Bytes a distillation step holds per token and vocabulary entry beside
/// the student's logits, which the training step's loss already counts:
/// the teacher's logits in 16 bits (2) and the loss's fp32 terms, as
/// OpenRLHF's `KDLoss` makes them (`openrlhf/models/loss.py`, v0.9.5): the
/// teacher's softmax (4), its infinity mask (1), the student's log-softmax
/// (4), their product (4) and the masked product (4): 17 measured at the
/// forward's peak on the CPU (`scripts/measure-rl-logits`). TRL's
/// generalized JSD holds 16 at its `DistillationConfig` default (beta
/// 1.0, reverse KL) and 30 at GKD's beta 0.5 (measured, TRL 1.16.0).
pub const DISTILL_BYTES_PER_LOGIT: u64 = 2 + 4 + 1 + 4 + 4 + 4;

/// Tokens a chunk of the chunked log-probs holds
/// (`entropy_from_logits_with_chunking`'s 2,048).
pub const LOGITS_CHUNK_TOKENS: u64 = 2048;

/// What a phase holds on a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RlPart {
    /// The actor's weights, gradients and optimizer states, as training places them.
    ActorStates,
    /// The actor's activations and the step's transients at its peak.
    ActorStep,
    /// The actor's weights and optimizer states left on the GPU while the
    /// engine generates (gradients freed; nothing of what is offloaded).
    TrainerResident,
    /// The frozen reference policy's weights.
    Reference,
    /// The critic's weights, gradients and optimizer states.
    Critic,
    /// The reward model's weights.
    RewardModel,
    /// The log-probs and entropy over the vocabulary, in fp32.
    LogProbs,
    /// The rollout engine's weights.
    EngineWeights,
    /// The engine's activation peak, memory outside PyTorch and CUDA graphs.
    EngineOverheads,
    /// The engine's KV cache.
    EngineKv,
    /// What the sleeping engine keeps while the actor learns (level 0: all of it).
    EngineAsleep,
    /// The frozen teacher's weights (distillation), in 16 bits, sharded like the actor's.
    Teacher,
    /// The teacher's logits and the distillation loss's terms over the vocabulary.
    TeacherLogits,
    /// verl's FSDP root unit (the embedding, the final norm and an untied
    /// head) whole in 16 bits from the forward to the backward, when FSDP
    /// shards over more than one GPU.
    FsdpRoot,
    /// What the processes hold outside PyTorch's tensors on the GPU when no
    /// reserve covers it (`overhead=0`): the driver's reserve, the trainer's
    /// CUDA context and its communicators' NCCL buffers, and an engine
    /// process's own context.
    Process,
    /// The engine's buffer for the trainer's weights, one parameter at a
    /// time (its largest: the embedding), on GPUs of its own (OpenRLHF's
    /// `broadcast_to_vllm`, TRL's `update_named_param`).
    WeightSync,
}

/// One phase on the most loaded GPU, against what each GPU may use (its
/// memory less the reserve and the context, as training's budget).
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseReport {
    /// Each part and its bytes.
    pub parts: Vec<(RlPart, f64)>,
    /// Their sum, bytes.
    pub total_bytes: f64,
    /// What the phase may use, bytes.
    pub limit_bytes: f64,
    /// Whether it fits.
    pub fits: bool,
}

/// A step's time and its shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlTime {
    /// Generating the responses.
    pub rollout_seconds: f64,
    /// The old, reference and value passes over every token.
    pub log_prob_seconds: f64,
    /// The actor's (and critic's) forward and backward passes.
    pub learn_seconds: f64,
    /// The weights' trips around each generation: wake, sync, sleep.
    pub transfer: TransferSeconds,
    /// All four.
    pub step_seconds: f64,
}

/// Every figure of an RL run.
#[derive(Debug, Clone, PartialEq)]
pub struct RlReport {
    /// The algorithm's phases: rollouts (none under DPO).
    pub generate: Option<PhaseReport>,
    /// Learning.
    pub learn: PhaseReport,
    /// The rollout engine's own report.
    pub rollout: Option<ServeReport>,
    /// The engine the rollout's figures are ([`Config::rl_engine`]), when
    /// it generates.
    pub rollout_engine: Option<vram_serve::options::Engine>,
    /// What the trainer holds on each GPU when a colocated engine starts
    /// (its resident states and CUDA context), bytes: SGLang takes its
    /// pool's fraction of the rest; 0 apart or without a rollout.
    pub held_at_start_bytes: u64,
    /// The actor's training figures (the highlighted strategy).
    pub actor: StrategyReport,
    /// Host RAM each node holds for the run (the sleeping engine's weights,
    /// offloaded states and reference), bytes.
    pub host_bytes_per_node: f64,
    /// Sequences a step: prompts × responses (DPO: pairs).
    pub sequences: u64,
    /// Tokens a step.
    pub tokens: u64,
    /// The step's time, with a GPU whose peaks are known.
    pub time: Option<RlTime>,
    /// The smallest memory fraction (by hundredths) at which the rollout
    /// engine holds a whole sequence, and the phase still fits beside the
    /// trainer; `None` when none does or nothing is generated.
    pub min_gpu_util: Option<f64>,
    /// The step's phases in order on one GPU, its peak and what relieves it.
    pub timeline: RlTimeline,
    /// Learning at the longest prompt and response, when mean lengths below
    /// them are given (the figures above are at the means).
    pub at_maximum: Option<PhaseReport>,
}

impl RlReport {
    /// Whether both phases fit.
    pub fn fits(&self) -> bool {
        self.learn.fits && self.generate.as_ref().is_none_or(|g| g.fits)
    }
}

/// A part's bytes in a phase, 0 when absent.
fn part(phase: &PhaseReport, which: RlPart) -> f64 {
    phase
        .parts
        .iter()
        .find(|(p, _)| *p == which)
        .map_or(0.0, |(_, b)| *b)
}

impl PhaseReport {
    /// The bytes of `which`, 0 when the phase does not hold it.
    pub fn bytes(&self, which: RlPart) -> f64 {
        part(self, which)
    }

    fn of(parts: Vec<(RlPart, f64)>, limit_bytes: f64) -> PhaseReport {
        let parts: Vec<(RlPart, f64)> = parts.into_iter().filter(|(_, b)| *b > 0.0).collect();
        let total_bytes = parts.iter().map(|(_, b)| b).sum();
        PhaseReport {
            fits: total_bytes <= limit_bytes,
            parts,
            total_bytes,
            limit_bytes,
        }
    }
}

/// What the trainer holds on each GPU beside the actor's step, bytes.
#[derive(Debug, Clone, Copy)]
struct TrainerSide {
    /// A frozen 16-bit copy of the actor's weights, sharded as the actor's are.
    frozen: f64,
    /// The actor's weights, gradients and optimizer states.
    states: f64,
    /// The frozen reference policy kept on the GPU (not offloaded).
    reference: f64,
    /// The critic's weights, gradients and optimizer states.
    critic: f64,
    /// The critic's size against the actor's (0 without one): what it
    /// keeps while the engine generates is the actor's share at that size.
    critic_share: f64,
    /// The reward model's weights.
    reward: f64,
    /// The frozen teacher's weights (distillation).
    teacher: f64,
}

/// The generate phase and what it leaves for the learn phase.
#[derive(Debug, Clone)]
struct Generation {
    /// The phase on the most loaded GPU.
    phase: PhaseReport,
    /// The rollout engine's report.
    engine: ServeReport,
    /// What the sleeping engine keeps on the GPU while the actor learns, bytes.
    asleep: f64,
    /// What the sleeping engine keeps in host RAM, bytes per GPU.
    host: f64,
    /// What the trainer holds on the engine's GPU when it starts, bytes.
    held_at_start: u64,
}

/// Parameters of a value model on `base` (a critic or a reward model): its
/// body and a one-output head, without the language-model head (an untied
/// one: a tied head is the embedding, which stays).
pub fn value_model_params(base: &vram_shared::model::architecture::Architecture) -> f64 {
    base.param_count() as f64 - value_model_head_saving(base)
}

/// What a value model on `base` has fewer than `base` itself: the untied
/// language-model head, less the one-output head.
fn value_model_head_saving(base: &vram_shared::model::architecture::Architecture) -> f64 {
    let head = match base.tied_embeddings {
        true => 0.0,
        false => f64::from(base.vocab) * f64::from(base.hidden),
    };
    head - f64::from(base.hidden)
}

impl Config {
    /// A value model's (the critic's or the reward model's) forward pass
    /// against the actor's, by active parameters: on `base`, or the
    /// actor's own model.
    fn rl_value_model_cost(&self, base: Option<&vram_shared::model::presets::ModelPreset>) -> f64 {
        let Some(actor) = self.model.map(|m| m.architecture) else {
            return 1.0;
        };
        let arch = base.map_or(actor, |p| p.architecture);
        (arch.active_param_count() as f64 - value_model_head_saving(&arch))
            / (actor.active_param_count() as f64).max(1.0)
    }
}

impl Config {
    /// The longest sequence a step holds: the prompt and the response.
    fn rl_sequence(&self) -> u32 {
        self.serve
            .prompt_len
            .saturating_add(self.serve.response_len)
    }

    /// The mean sequence a step trains on: the mean prompt and response
    /// where given, each the longest otherwise. Packed without padding (verl's
    /// `use_remove_padding`, on in its examples; OpenRLHF's and TRL's
    /// packing), a micro-batch of `mbs` sequences holds `mbs` × this.
    fn rl_mean_sequence(&self) -> u32 {
        let prompt = self.rl.prompt_mean.unwrap_or(self.serve.prompt_len);
        let response = self.rl.response_mean.unwrap_or(self.serve.response_len);
        prompt.saturating_add(response)
    }

    /// Whether a mean length is given below its longest.
    fn rl_means_below_maxima(&self) -> bool {
        self.rl_mean_sequence() < self.rl_sequence()
    }

    /// The actor's training configuration: the prompt and response as its
    /// sequence, a micro-batch of `mbs` sequences (or the token budget's
    /// worth), chosen and rejected together under DPO.
    pub fn rl_learn_config(&self) -> Config {
        let mut config = Config {
            job: Job::Train,
            global_batch: None,
            ..*self
        };
        // verl's FSDP workers offload between phases, not during one: the
        // update loads the parameters and optimizer states back to the GPU
        // (`BaseEngineCtx._context_switch` under `train_mode`, verl 0.9.1's
        // `workers/engine/base.py`), so the step holds them whole.
        if self.rl_offloads_between_phases() {
            config.runtime.offload = Offload::None;
        }
        // verl builds its actor in fp32 and computes in bf16: a LoRA actor's
        // frozen base is held in fp32 (`model_dtype: fp32`).
        config.fine_tuning.frozen_base_fp32 = self.rl_actor_in_fp32();
        let sequence = self.rl_mean_sequence().max(1);
        if let Some(model) = &mut config.model {
            model.seq_len = sequence;
            // verl, OpenRLHF and TRL load the actor through transformers
            // (verl's and OpenRLHF's `flash_attention_2`, TRL's SDPA, whose
            // flash backend is the same kernel): FlashAttention-2's speed.
            if model.flash_attention && model.attention.is_none() {
                model.attention = Some(crate::frameworks::hf::Attention::FlashAttention2);
            }
            let per_micro_batch = match self.rl.token_budget {
                Some(budget) => (budget / sequence).max(1),
                None => model.micro_batch,
            };
            model.micro_batch = match self.rl.algo {
                Algo::Dpo => per_micro_batch.saturating_mul(2),
                _ => per_micro_batch,
            };
        }
        config
    }

    /// The rollout engine: the one the link names under verl, which runs
    /// each (`actor_rollout_ref.rollout.name`: SGLang with its
    /// `gpu_memory_utilization` passed as `mem_fraction_static`,
    /// TensorRT-LLM with it as `free_gpu_memory_fraction`); vLLM otherwise,
    /// the only engine OpenRLHF and TRL run.
    pub fn rl_engine(&self) -> vram_serve::options::Engine {
        use vram_serve::options::Engine;
        match self.rl.framework {
            crate::config::rl::RlFramework::Verl => self.serve.engine,
            _ => Engine::Vllm,
        }
    }

    /// The rollout engine's serving configuration: [`Config::rl_engine`] at
    /// the rollout's TP, the actor's weights in 16 bits, the prompt and
    /// response as its `max_model_len`, verl's memory fraction unless set.
    pub fn rl_rollout_config(&self) -> Config {
        let mut config = Config {
            job: Job::Serve,
            ..*self
        };
        config.runtime.layout.tp = self.rl.rollout_tp.unwrap_or(self.runtime.layout.tp);
        config.runtime.layout.pp = 1;
        if let Some(model) = &mut config.model {
            model.ep = 1;
        }
        config.serve.engine = self.rl_engine();
        // The engine holds the trainer's 16-bit weights, synced each step,
        // whatever format the published checkpoint ships in.
        config.serve.weights = vram_serve::weights::WeightFormat::Bf16;
        config.serve.max_len = Some(self.rl_sequence());
        // verl hands SGLang its sequence cap (`max_running_requests`) but
        // not its batched tokens: SGLang picks its own prefill chunk.
        let (tokens, seqs) = match config.serve.engine {
            vram_serve::options::Engine::Sglang => (None, self.rl.framework.rollout_batch().1),
            _ => self.rl.framework.rollout_batch(),
        };
        config.serve.batched_tokens = self.serve.batched_tokens.or(tokens);
        config.serve.max_num_seqs = self.serve.max_num_seqs.or(seqs);
        config.serve.gpu_util = Some(self.rl_gpu_util());
        config.serve.kv_memory_gb = None;
        // Apart, the engine has its own GPUs: a node's worth or fewer on
        // one node, whole nodes beyond.
        if self.rl.placement == Placement::Split {
            let gpus = self.rl_rollout_gpus();
            let (per_node, nodes) = match gpus <= self.gpus {
                true => (gpus, 1),
                false => (self.gpus, gpus / self.gpus.max(1)),
            };
            config.gpus = per_node;
            config.runtime.nodes = nodes;
        }
        config
    }

    /// Whether `offload` moves the actor's states out between phases and
    /// back for each (verl's FSDP `param_offload` and `optimizer_offload`),
    /// not for the whole step as DeepSpeed's ZeRO-Offload does (OpenRLHF's
    /// `--ds.adam_offload`, TRL's DeepSpeed configs).
    pub fn rl_offloads_between_phases(&self) -> bool {
        self.rl.framework == crate::config::rl::RlFramework::Verl
    }

    /// Whether the actor's parameters are held in fp32 beside 16-bit
    /// compute: verl's FSDP actor under a mixed precision (its
    /// `fsdp_config.model_dtype` defaults to fp32 for training, verl 0.9.1's
    /// `FSDPEngineConfig`; the legacy `fsdp_workers.py` builds the actor in
    /// fp32 and the reference in bf16). Full training counts fp32 masters
    /// already; with LoRA it is the frozen base that takes 4 bytes.
    pub fn rl_actor_in_fp32(&self) -> bool {
        self.rl.framework == crate::config::rl::RlFramework::Verl
            && self.precision.is_mixed()
            && !self.rl_megatron_actor()
    }

    /// Whether verl trains the actor with its Megatron engine
    /// (`model_engine=megatron`): the layout has tensor, pipeline or expert
    /// parallelism, or ring context parallelism, which its FSDP engine does
    /// not run (that one splits the sequence by Ulysses' all-to-alls only,
    /// `ulysses_sequence_parallel_size`). Megatron's actor keeps its
    /// parameters in bf16 beside the optimizer's fp32 copy, as training's
    /// Megatron-LM does.
    pub fn rl_megatron_actor(&self) -> bool {
        let layout = self.runtime.layout;
        let ep = self.model.map_or(1, |m| m.ep);
        self.rl.framework == crate::config::rl::RlFramework::Verl
            && (layout.tp > 1
                || layout.pp > 1
                || ep > 1
                || (layout.cp > 1 && layout.cp_comm == crate::memory::parallel::CpComm::Ring))
    }

    /// verl's FSDP actor, sharded (ZeRO-3) over more than one GPU, keeps its
    /// root unit — what the wrapping leaves outside the decoder layers: the
    /// embedding, the final norm and an untied head — whole in 16 bits from
    /// the forward to the backward, and through the log-prob passes: torch's
    /// FSDP1 reshards every unit after its forward but the root
    /// (`_post_forward_reshard`: `free_unsharded_flat_param = not
    /// state._is_root and …`), FSDP2 does not reshard the root after its
    /// forward (`FSDPState._lazy_init`); over one GPU FSDP1 runs NO_SHARD
    /// and frees the 16-bit copy after each forward. Bytes on each GPU
    /// beyond the shard the states count; 0 otherwise.
    fn rl_fsdp_root_bytes(&self) -> f64 {
        let verl_fsdp =
            self.rl.framework == crate::config::rl::RlFramework::Verl && !self.rl_megatron_actor();
        let world = self.gpus.saturating_mul(self.runtime.nodes);
        let shards = self.runtime.shard_group.unwrap_or(world).min(world);
        match (verl_fsdp, self.highlight, self.model) {
            (true, Strategy::Zero3, Some(model)) if shards > 1 => {
                let a = model.architecture;
                let table = f64::from(a.vocab) * f64::from(a.hidden);
                let head = if a.tied_embeddings { 0.0 } else { table };
                2.0 * (table + head + f64::from(a.hidden))
            }
            _ => 0.0,
        }
    }

    /// The actor's bytes on each GPU that `offload` moves to host RAM
    /// between phases (verl): the optimizer states, and at `all` the
    /// parameters too; 0 where offload lasts the whole step.
    fn rl_offloaded_between_phases(&self, memory: &MemoryBreakdown) -> f64 {
        if self.rl_deepspeed_sleeps() {
            return memory.optimizer_states.get() + memory.gradients.get();
        }
        if !self.rl_offloads_between_phases() {
            return 0.0;
        }
        match self.runtime.offload {
            Offload::None => 0.0,
            Offload::Optimizer => memory.optimizer_states.get(),
            Offload::All => memory.optimizer_states.get() + memory.weights.get(),
        }
    }

    /// What the processes on a GPU hold beside PyTorch's tensors, bytes, in
    /// the learn phase (`learning`) or the generate phase, when no reserve
    /// covers it (`overhead=0`; a reserve above 0 stands for all of it, as
    /// in training): the driver's reserve (469 MiB below `nvidia-smi`'s
    /// total), the trainer's CUDA context unless typed (`context`, then in
    /// the limit already), the NCCL buffers of its communicators, idle or
    /// not (verl RFC #6266: they stay allocated through the other phase),
    /// as training's process model counts them ([`Config::process_overheads`]),
    /// and a rollout engine's own process context (verl's vLLM and SGLang
    /// servers and OpenRLHF's engines are processes of their own; TRL's
    /// colocated vLLM runs in the trainer's). Apart, the engine's GPUs hold
    /// the driver's reserve and its context; the trainer's, its own.
    fn rl_process_bytes(
        &self,
        learn_config: &Config,
        report: &crate::report::Report,
        learning: bool,
    ) -> f64 {
        use vram_shared::process::CUDA_CONTEXT_BYTES;
        if self.overhead > 0.0 {
            return 0.0;
        }
        let driver = vram_serve::report::DRIVER_RESERVE_BYTES as f64;
        let context = CUDA_CONTEXT_BYTES as f64;
        let trainer = match self.runtime.context_gb > 0.0 {
            true => 0.0,
            false => context,
        } + learn_config.process_overheads(report).nccl_bytes as f64;
        let engine_process = match self.rl.framework {
            crate::config::rl::RlFramework::Trl => 0.0,
            _ => context,
        };
        match (self.rl.placement, learning) {
            (Placement::Split, true) => driver + trainer,
            (Placement::Split, false) => driver + context,
            (Placement::Colocate, _) if !self.rl.algo.generates() => driver + trainer,
            (Placement::Colocate, _) => driver + trainer + engine_process,
        }
    }

    /// Whether OpenRLHF's DeepSpeed sleep (`--ds.enable_sleep`, which the
    /// export writes beside vLLM's sleep when colocated) moves the actor's
    /// and the critic's optimizer states, fp32 masters and gradients to host
    /// RAM outside their own update, their 16-bit weight shards staying
    /// (`offload_deepspeed_states`: `optim_states`, `contiguous_grad_buffer`,
    /// `hp_params`, `lp_grads`; not `lp_params`), the critic updated before
    /// the actor, each reloaded for its own (`PPOTrainer.ppo_train`'s reload
    /// → fit → offload; OpenRLHF 3c3be62). Not under Adam's offload, which
    /// keeps them in host RAM already (`offload_deepspeed_states` returns).
    pub fn rl_deepspeed_sleeps(&self) -> bool {
        self.rl.framework == crate::config::rl::RlFramework::OpenRlhf
            && self.rl.placement == Placement::Colocate
            && self.rl.sleep > 0
            && self.rl.algo.generates()
            && self.runtime.offload == Offload::None
    }

    /// The actor's step peak, bytes: training's, but under verl the loss
    /// keeps the 16-bit logits only, not the fp32 log-softmax beside them that
    /// training counts for Megatron-LM's loss: verl's `logprobs_from_logits`
    /// runs flash-attn's Triton cross-entropy with its backward in place
    /// (verl 0.9.1, `verl/utils/torch_functional.py`), so every moment that
    /// holds activations holds 4 bytes a logit less (÷ TP, the vocabulary
    /// split). Hugging Face's accounting is left as measured.
    fn rl_step_peak(&self, actor: &StrategyReport, tokens_per_micro_batch: u64) -> f64 {
        use crate::memory::step::Phase;
        let verl_loss = self.rl.framework == crate::config::rl::RlFramework::Verl
            && self
                .model
                .is_some_and(|m| m.framework == crate::frameworks::hf::Framework::Megatron);
        if !verl_loss {
            return actor.step.peak().1.get();
        }
        let vocab = self.model.map_or(0, |m| u64::from(m.architecture.vocab)) as f64;
        let tp = f64::from(self.runtime.layout.tp.max(1));
        let fp32_log_softmax = 4.0 * tokens_per_micro_batch as f64 * vocab / tp;
        Phase::ALL
            .into_iter()
            .filter_map(|phase| {
                let bytes = actor.step.at(phase)?.get();
                Some(match phase {
                    Phase::OptimizerStep => bytes,
                    _ => bytes - fp32_log_softmax,
                })
            })
            .fold(0.0, f64::max)
    }

    /// The rollout engine's memory fraction: as set, or the framework's.
    pub fn rl_gpu_util(&self) -> f64 {
        self.serve
            .gpu_util
            .unwrap_or(self.rl.framework.gpu_util(self.rl.placement))
    }

    /// The rollout engine's own GPUs under a split placement: as set, or a node's.
    pub fn rl_rollout_gpus(&self) -> u32 {
        self.rl.rollout_gpus.unwrap_or(self.gpus)
    }

    /// Checks an RL configuration: the actor's training rules, the rollout
    /// engine's (its TP named as `rollout_tp`), and RL's own.
    pub fn rl_check(&self) -> Result<(), InputError> {
        if self.model.is_none() {
            return Err(Field::Model.error(InputErrorKind::Empty));
        }
        // A mean is at most its longest.
        for (field, mean, longest) in [
            (
                Field::PromptMean,
                self.rl.prompt_mean,
                self.serve.prompt_len,
            ),
            (
                Field::ResponseMean,
                self.rl.response_mean,
                self.serve.response_len,
            ),
        ] {
            if mean.is_some_and(|mean| mean > longest) {
                let limits = Limits {
                    min: 1.0,
                    max: f64::from(longest),
                };
                return Err(field.error(InputErrorKind::OutOfRange(limits)));
            }
        }
        let learn = self.rl_learn_config();
        let at_field = |error| learner_error_at_field(self, error);
        learn.setup().map_err(at_field)?;
        learn.budget().map_err(at_field)?;
        let sequence = self.rl_sequence();
        if let Some(budget) = self.rl.token_budget {
            if budget < sequence {
                let limits = Limits {
                    min: f64::from(sequence),
                    max: 16_777_216.0,
                };
                return Err(Field::TokenBudget.error(InputErrorKind::OutOfRange(limits)));
            }
        }
        if matches!(self.rl.algo, Algo::Dpo | Algo::Distill) && self.rl.critic == Some(true) {
            return Err(Field::Critic.error(InputErrorKind::NotWith(Field::Algo)));
        }
        self.check_verl_batch()?;
        if self.rl.algo == Algo::Distill {
            let teacher = self
                .rl
                .teacher
                .ok_or(Field::Algo.error(InputErrorKind::NeedsTeacher))?;
            let student = self.model.map_or(0, |m| m.architecture.vocab);
            if teacher.architecture.vocab != student {
                return Err(Field::Teacher.error(InputErrorKind::OtherVocabulary {
                    teacher: teacher.architecture.vocab,
                    student,
                }));
            }
        }
        let split = self.rl.placement == Placement::Split && self.rl.algo.generates();
        if split {
            let gpus = self.rl_rollout_gpus();
            if gpus > self.gpus && gpus % self.gpus.max(1) != 0 {
                return Err(Field::RolloutGpus.error(InputErrorKind::NotDivisible));
            }
        }
        if self.rl.reference == Reference::Adapters && !self.fine_tuning.method.uses_adapters() {
            return Err(Field::Ref.error(InputErrorKind::NotWith(Field::Method)));
        }
        if self.rl.algo.generates() {
            self.rl_rollout_config()
                .serve_check()
                .map_err(|error| rollout_error_at_field(self, error, split))?;
        }
        Ok(())
    }

    /// verl's own check of a step's batch (`RayPPOTrainer._validate_config`,
    /// `verl/trainer/ppo/ray_trainer.py`): its responses, prompts ×
    /// rollouts, a multiple of the trainer's GPUs (FSDP), or of its
    /// Megatron data-parallel ranks × micro-batch; verl asserts otherwise.
    /// Said at `prompts`, what the user most often sets.
    pub(crate) fn check_verl_batch(&self) -> Result<(), InputError> {
        let verl = self.rl.framework == crate::config::rl::RlFramework::Verl;
        if !verl || !self.rl.algo.generates() {
            return Ok(());
        }
        let layout = self.runtime.layout;
        let gpus = u64::from(self.gpus) * u64::from(self.runtime.nodes);
        let minimal = match self.rl_megatron_actor() {
            true => {
                let model_parallel =
                    u64::from(layout.tp) * u64::from(layout.pp) * u64::from(layout.cp);
                let micro_batch = self.model.map_or(1, |m| m.micro_batch);
                (gpus / model_parallel.max(1)) * u64::from(micro_batch)
            }
            false => gpus,
        };
        let responses = u64::from(self.rl.prompts) * u64::from(self.rl.rollouts);
        match minimal > 0 && responses % minimal != 0 {
            true => Err(Field::Prompts.error(InputErrorKind::VerlBatch {
                multiple_of: minimal,
            })),
            false => Ok(()),
        }
    }

    /// Every figure of the RL run, or the first input error.
    pub fn rl_report(&self) -> Result<RlReport, InputError> {
        self.rl_check()?;
        let learn_config = self.rl_learn_config();
        let report = learn_config.report().map_err(|errors| {
            errors
                .into_iter()
                .next()
                .unwrap_or(Field::Model.error(InputErrorKind::Empty))
        })?;
        let strategy = report.highlight;
        let actor = *report.strategy(strategy);
        let memory = actor.memory;
        let usable = report.budget.usable().get();
        let gpus_per_node = f64::from(self.gpus);
        let side = self.rl_trainer_side(&memory);
        let frozen = side.frozen;
        let states = side.states;
        let tokens_per_micro_batch = u64::from(learn_config.model.map_or(1, |m| m.micro_batch))
            * u64::from(self.rl_mean_sequence());
        let log_probs = self.rl_entropy_bytes(tokens_per_micro_batch);
        let teacher_logits = self.rl_teacher_logit_bytes(tokens_per_micro_batch);
        let step_peak = self.rl_step_peak(&actor, tokens_per_micro_batch);
        let step_extra = (step_peak - states).max(0.0);
        let sequences = match self.rl.algo {
            Algo::Dpo => u64::from(self.rl.prompts),
            _ => u64::from(self.rl.prompts) * u64::from(self.rl.rollouts),
        };
        let tokens = sequences * u64::from(self.rl_mean_sequence());

        // Generating: the engine beside what the trainer keeps.
        let (generate, rollout, engine_asleep, engine_host, held) = match self.rl.algo.generates() {
            false => (None, None, 0.0, 0.0, 0),
            true => {
                let process = self.rl_process_bytes(&learn_config, &report, false);
                let generation =
                    self.rl_generation(&memory, &side, &report.budget, sequences, process)?;
                (
                    Some(generation.phase),
                    Some(generation.engine),
                    generation.asleep,
                    generation.host,
                    generation.held_at_start,
                )
            }
        };
        let learn = PhaseReport::of(
            vec![
                (RlPart::ActorStates, states),
                (RlPart::ActorStep, step_extra),
                (RlPart::Reference, side.reference),
                (RlPart::Critic, side.critic),
                (RlPart::RewardModel, side.reward),
                (RlPart::Teacher, side.teacher),
                (RlPart::LogProbs, log_probs),
                (RlPart::TeacherLogits, teacher_logits),
                (RlPart::EngineAsleep, engine_asleep),
                (RlPart::FsdpRoot, self.rl_fsdp_root_bytes()),
                (
                    RlPart::Process,
                    self.rl_process_bytes(&learn_config, &report, true),
                ),
            ],
            usable,
        );
        let host_bytes_per_node = gpus_per_node
            * (engine_host
                + self.rl_offloaded_between_phases(&memory)
                + match (self.rl.reference_model(), self.rl.ref_offload) {
                    (true, true) => 2.0 * frozen,
                    _ => 0.0,
                })
            + actor.beyond.cpu_per_node.get();
        let time = self.rl_time(&report, strategy, rollout.as_ref(), tokens);
        let min_gpu_util = match (&generate, &rollout) {
            (Some(phase), Some(engine)) => self.rl_min_gpu_util(phase, engine, held),
            _ => None,
        };
        let timeline = self.rl_timeline(generate.as_ref(), &learn, time.as_ref());
        // At the longest lengths, when the means are below them: the same
        // run with the means unset.
        let at_maximum = match self.rl_means_below_maxima() {
            false => None,
            true => {
                let mut longest = *self;
                longest.rl.prompt_mean = None;
                longest.rl.response_mean = None;
                longest.rl_report().ok().map(|r| r.learn)
            }
        };
        Ok(RlReport {
            at_maximum,
            timeline,
            min_gpu_util,
            rollout_engine: self.rl.algo.generates().then(|| self.rl_engine()),
            held_at_start_bytes: held,
            generate,
            learn,
            rollout,
            actor,
            host_bytes_per_node,
            sequences,
            tokens,
            time,
        })
    }

    /// The frozen teacher's architecture under distillation.
    fn rl_teacher(&self) -> Option<vram_shared::model::architecture::Architecture> {
        match (self.rl.algo, self.rl.teacher) {
            (Algo::Distill, Some(teacher)) => Some(teacher.architecture),
            _ => None,
        }
    }

    /// What the trainer holds on each GPU beside the actor's step, bytes:
    /// the actor's states and the frozen reference, critic, reward model
    /// and teacher that stay on the GPU.
    fn rl_trainer_side(&self, memory: &MemoryBreakdown) -> TrainerSide {
        let model = self.model.map(|m| m.architecture);
        // A frozen copy of the actor's weights on this GPU, in 16 bits,
        // sharded as the actor's are; in fp32 in host RAM (verl's
        // `model_dtype: fp32`).
        let held = match self.rl_actor_in_fp32() && self.fine_tuning.method.uses_adapters() {
            true => 4.0,
            false => self.precision.bytes_per_param().max(1.0),
        };
        let frozen = memory.weights.get() * 2.0 / held;
        let reference = match (self.rl.reference_model(), self.rl.ref_offload) {
            (true, false) => frozen,
            _ => 0.0,
        };
        // The critic and the reward model are value models: the base's
        // body and a one-output head in place of the language-model head
        // (verl's `AutoModelForTokenClassification` with one label,
        // OpenRLHF's `get_llm_for_sequence_regression`), of their own base
        // or the actor's; the critic trained as the actor is, the reward
        // model frozen like the reference.
        let actor_params = model.map_or(0, |a| a.param_count()) as f64;
        let share = |base: Option<&vram_shared::model::presets::ModelPreset>| {
            let arch = base.map(|p| p.architecture).or(model);
            arch.map_or(1.0, |a| value_model_params(&a) / actor_params.max(1.0))
        };
        let reward = match self.rl.reward {
            Reward::Model => frozen * share(self.rl.reward_model),
            Reward::Rule => 0.0,
        };
        let states = memory.weights.get() + memory.gradients.get() + memory.optimizer_states.get();
        // Under OpenRLHF's DeepSpeed sleep the critic updates before the
        // actor does and goes back to its 16-bit weights: beside the
        // actor's update it holds those only.
        let critic_resident = match self.rl_deepspeed_sleeps() {
            true => memory.weights.get(),
            false => states,
        };
        let critic_share = match self.rl.has_critic() {
            true => share(self.rl.critic_model),
            false => 0.0,
        };
        let critic = critic_resident * critic_share;
        // The teacher: frozen in 16 bits and sharded as the actor's
        // weights are (TRL's `prepare_deepspeed` and OpenRLHF's eval
        // engine: ZeRO-3's partitions under ZeRO-3, a whole copy otherwise).
        let teacher = self.rl_teacher().map_or(0.0, |t| {
            frozen * t.param_count() as f64 / actor_params.max(1.0)
        });
        TrainerSide {
            frozen,
            states,
            reference,
            critic,
            critic_share,
            reward,
            teacher,
        }
    }

    /// The entropy's bytes on each GPU for a micro-batch of
    /// `tokens_per_micro_batch` tokens.
    ///
    /// The entropy of a micro-batch of T tokens over the vocabulary V,
    /// beside the log-probs the step's loss already counts, as measured
    /// on the CPU with verl 0.9.1's own functions on the 16-bit logits
    /// its actor computes (scripts/measure-rl-logits,
    /// tests/measured/rl-logits.json): whole, a 16-bit softmax and
    /// product at the forward's peak, 4 bytes a logit
    /// (`entropy_from_logits`; verl's `perf_tuning.rst` estimated 7);
    /// chunked with gradients, every chunk's fp32 copy and softmax kept
    /// for the backward pass, 8 bytes a logit, and the chunk at work 4
    /// more (`entropy_from_logits_with_chunking`); fused, three fp32
    /// values a token (`use_fused_kernels`).
    fn rl_entropy_bytes(&self, tokens_per_micro_batch: u64) -> f64 {
        let vocab = self.model.map_or(0, |m| u64::from(m.architecture.vocab));
        (match (self.rl.entropy, self.rl.logits) {
            (false, _) => 0,
            (true, Logits::Full) => ENTROPY_BYTES_PER_LOGIT * tokens_per_micro_batch * vocab,
            (true, Logits::Chunked) => {
                (8 * tokens_per_micro_batch + 4 * tokens_per_micro_batch.min(LOGITS_CHUNK_TOKENS))
                    * vocab
            }
            (true, Logits::Fused) => 12 * tokens_per_micro_batch,
        }) as f64
    }

    /// Distillation's bytes on each GPU over the vocabulary for a
    /// micro-batch of `tokens_per_micro_batch` tokens (0 without a teacher):
    /// whole for the micro-batch, by chunks of tokens, or none kept (a fused
    /// kernel from the hidden states: Liger's `LigerFusedLinearJSDLoss`).
    fn rl_teacher_logit_bytes(&self, tokens_per_micro_batch: u64) -> f64 {
        let vocab = self.model.map_or(0, |m| u64::from(m.architecture.vocab));
        (match (self.rl_teacher().is_some(), self.rl.logits) {
            (false, _) => 0,
            (true, Logits::Full) => DISTILL_BYTES_PER_LOGIT * tokens_per_micro_batch * vocab,
            (true, Logits::Chunked) => {
                DISTILL_BYTES_PER_LOGIT * tokens_per_micro_batch.min(LOGITS_CHUNK_TOKENS) * vocab
            }
            (true, Logits::Fused) => 12 * tokens_per_micro_batch,
        }) as f64
    }

    /// The generate phase: the rollout engine, decoding as many of the
    /// step's `sequences` at once as fit, beside what the trainer keeps
    /// (`budget`: what each GPU may use), and what the engine keeps asleep
    /// while the actor learns.
    fn rl_generation(
        &self,
        memory: &MemoryBreakdown,
        side: &TrainerSide,
        budget: &crate::memory::MemoryBudget,
        sequences: u64,
        process: f64,
    ) -> Result<Generation, InputError> {
        let (usable, gpu_memory) = (budget.usable().get(), budget.gpu_memory().get());
        let split = self.rl.placement == Placement::Split;
        let offloaded = |offload: Offload| self.runtime.offload == offload;
        let model = self.model.map(|m| m.architecture);
        // verl's FSDP actor built in fp32 (full training under a mixed
        // precision) keeps fp32 parameters, which are their own master
        // copy, and no 16-bit copy between steps: the optimizer's 12 bytes
        // a parameter, where the breakdown's 2 + 4 + 8 counts a 16-bit copy.
        let fp32_params = self.rl_actor_in_fp32() && !self.fine_tuning.method.uses_adapters();
        let trainer_resident = match () {
            _ if split => 0.0,
            _ if self.rl_deepspeed_sleeps() => memory.weights.get(),
            _ if offloaded(Offload::All) => 0.0,
            _ if offloaded(Offload::Optimizer) && fp32_params => 2.0 * memory.weights.get(),
            _ if offloaded(Offload::Optimizer) => memory.weights.get(),
            _ if fp32_params => memory.optimizer_states.get(),
            _ => memory.weights.get() + memory.optimizer_states.get(),
        };
        let mut rollout_config = self.rl_rollout_config();
        // Colocated, the trainer's process already holds its resident
        // states and its CUDA context when the engine starts (verl offloads
        // before it launches the rollout servers); the context as measured
        // (`context`) or, unset, the default one (the reserve covers it
        // in training's budget, but SGLang's measure of free memory sees it).
        if !split {
            let context = match budget.context().get() {
                c if c > 0.0 => c,
                _ => vram_shared::process::CUDA_CONTEXT_BYTES as f64,
            };
            rollout_config.serve.held_at_start_bytes = (trainer_resident + context).round() as u64;
        }
        // The engine decodes a step's sequences over its replicas, as many at once as fit.
        let engine_probe = rollout_config.serve_report()?;
        let replicas = u64::from(engine_probe.replicas.max(1));
        let wanted = sequences.div_ceil(replicas);
        let at_once = wanted
            .min(engine_probe.concurrency_holds.max(1))
            .min(u64::from(engine_probe.max_num_seqs));
        rollout_config.serve.concurrency = Some(at_once.max(1) as u32);
        let engine = rollout_config.serve_report()?;
        let engine_kv = engine.kv_budget_bytes.unwrap_or(0) as f64;
        let overheads = (engine.activation_peak_bytes
            + engine.non_torch_bytes
            + engine.cuda_graph_bytes) as f64;
        // Apart, the engine's GPUs hold it alone, and a buffer for
        // the trainer's weights as they arrive: the largest, the
        // embedding, in 16 bits.
        let (beside, sync) = match split {
            true => (
                0.0,
                model.map_or(0.0, |a| 2.0 * f64::from(a.vocab) * f64::from(a.hidden)),
            ),
            false => (1.0, 0.0),
        };
        let phase = PhaseReport::of(
            vec![
                (RlPart::TrainerResident, trainer_resident),
                (RlPart::Reference, beside * side.reference),
                // The critic keeps what the actor keeps, at its size: its
                // gradients freed after its update, as the actor's.
                (
                    RlPart::Critic,
                    beside * trainer_resident * side.critic_share,
                ),
                (RlPart::RewardModel, beside * side.reward),
                (RlPart::Teacher, beside * side.teacher),
                (RlPart::EngineWeights, engine.weights_bytes),
                (RlPart::EngineOverheads, overheads),
                (RlPart::EngineKv, engine_kv),
                (RlPart::WeightSync, sync),
                (RlPart::Process, process),
            ],
            usable,
        );
        // Apart, the engine's fraction of the whole GPU is its own
        // bound (no trainer to hold a share back for).
        let phase = match split {
            true => PhaseReport {
                limit_bytes: gpu_memory,
                fits: engine.fits && phase.total_bytes <= gpu_memory,
                ..phase
            },
            false => PhaseReport {
                fits: phase.fits && engine.fits,
                ..phase
            },
        };
        // Asleep, vLLM frees its KV cache (and its weights: to host
        // RAM at level 1, discarded at level 2); its CUDA graphs,
        // NCCL's buffers and its context stay. SGLang under verl releases
        // its KV pool and its weights, backed up in host RAM
        // (`release_memory_occupation` with tags `kv_cache` and `weights`,
        // `enable_weights_cpu_backup`: verl's `async_sglang_server.py`),
        // whatever the level; its CUDA graphs stay.
        let kept = (engine.cuda_graph_bytes + engine.non_torch_bytes) as f64;
        // TensorRT-LLM under verl releases its weights and KV cache with
        // nothing kept to restore (`SleepConfig` restore modes `NONE`:
        // the trainer's sync refills the weights).
        let engine_kind = rollout_config.serve.engine;
        let (asleep, host) = match self.rl.sleep {
            _ if split => (0.0, 0.0),
            0 => (engine.total_bytes, 0.0),
            _ if engine_kind == vram_serve::options::Engine::Sglang => (kept, engine.weights_bytes),
            _ if engine_kind == vram_serve::options::Engine::TrtLlm => (kept, 0.0),
            1 => (kept, engine.weights_bytes),
            _ => (kept, 0.0),
        };
        Ok(Generation {
            phase,
            engine,
            asleep,
            host,
            held_at_start: rollout_config.serve.held_at_start_bytes,
        })
    }

    /// The rollout's time on `engine`: each replica decodes its share of
    /// the step's sequences `concurrency` at a time and starts the next as
    /// one ends (continuous batching), so at full batch it takes its
    /// responses' tokens over that concurrency in decode steps — whole waves
    /// of `response_len` when every response runs to the cap — then the
    /// long tail: the longest response (the cap, `response_len`) runs on
    /// past the mean (`response_mean`) alone, each step at a batch of one's
    /// time, the decode floor (the weights are read every step). Each
    /// prompt is prefilled once at the engine's prefill speed.
    fn rl_rollout_seconds(&self, engine: &ServeReport) -> Option<f64> {
        let speed = engine.speed?;
        let sequences = match self.rl.algo {
            Algo::Dpo => 0,
            Algo::Grpo | Algo::Ppo | Algo::Distill => {
                u64::from(self.rl.prompts) * u64::from(self.rl.rollouts)
            }
        };
        let per_replica = sequences.div_ceil(u64::from(engine.replicas.max(1)));
        let at_once = u64::from(engine.concurrency.max(1));
        let waves = per_replica.div_ceil(at_once) as f64;
        let longest = f64::from(self.serve.response_len);
        let prefill_rate = speed.prefill_tokens_per_second.max(1e-9);
        let (prefill, full_steps, tail_steps) = match (self.rl.prompt_mean, self.rl.response_mean) {
            (None, None) => (
                waves * f64::from(engine.concurrency) * f64::from(self.serve.prompt_len)
                    / prefill_rate,
                waves * longest,
                0.0,
            ),
            (prompt, response) => {
                let prompt = f64::from(prompt.unwrap_or(self.serve.prompt_len));
                let mean = response.map_or(longest, f64::from).min(longest);
                (
                    per_replica as f64 * prompt / prefill_rate,
                    per_replica as f64 * mean / at_once as f64,
                    longest - mean,
                )
            }
        };
        let floor = match tail_steps > 0.0 {
            false => 0.0,
            true => {
                let mut alone = self.rl_rollout_config();
                alone.serve.concurrency = Some(1);
                alone
                    .serve_report()
                    .ok()
                    .and_then(|r| r.speed)
                    .map_or(speed.tpot_seconds, |s| s.tpot_seconds)
            }
        };
        Some(prefill + full_steps * speed.tpot_seconds + tail_steps * floor)
    }

    /// The smallest memory fraction, by hundredths from 0.05 to 0.99, at
    /// which the rollout engine fits and the generate `phase` still fits
    /// beside what the trainer keeps; `engine` is the phase's engine, which
    /// found `held_at_start` bytes of the trainer's on the GPU.
    fn rl_min_gpu_util(
        &self,
        phase: &PhaseReport,
        engine: &ServeReport,
        held_at_start: u64,
    ) -> Option<f64> {
        let beside = phase.total_bytes
            - engine.weights_bytes
            - (engine.activation_peak_bytes + engine.non_torch_bytes + engine.cuda_graph_bytes)
                as f64
            - engine.kv_budget_bytes.unwrap_or(0) as f64;
        (5..=99).map(|h| f64::from(h) / 100.0).find(|&util| {
            let mut probe = self.rl_rollout_config();
            probe.serve.gpu_util = Some(util);
            probe.serve.held_at_start_bytes = held_at_start;
            probe
                .serve_report()
                .is_ok_and(|e| e.fits && beside + e.total_bytes <= phase.limit_bytes)
        })
    }

    /// The step's time: the weights' trips around the rollout
    /// ([`Config::rl_transfer_seconds`]), the rollout at the engine's speed (its sequences in
    /// waves of what the cache holds, each a prefill and `response_len`
    /// decode steps), the log-prob passes (old, reference, values) as
    /// forward passes and the learning as forward and backward passes over
    /// every token at the actor's step efficiency, with offload's PCIe
    /// traffic once an update.
    fn rl_time(
        &self,
        report: &crate::report::Report,
        strategy: Strategy,
        rollout: Option<&ServeReport>,
        tokens: u64,
    ) -> Option<RlTime> {
        let gpu = self.gpu?;
        let model = self.model?;
        let peak = self.speed.tflops.unwrap_or(gpu.tflops_16bit) * 1e12;
        let efficiency = report
            .strategy(strategy)
            .time
            .map_or(0.4, |t| t.kernel_efficiency.clamp(0.05, 1.0));
        let gpus = f64::from(self.gpus) * f64::from(self.runtime.nodes);
        let active = model.architecture.active_param_count() as f64;
        let forward = 2.0 * active * tokens as f64 / (gpus * peak * efficiency);
        let rollout_seconds = match rollout {
            None => 0.0,
            Some(engine) => self.rl_rollout_seconds(engine)?,
        };
        // The old log-probs, the reference's, the critic's values and the
        // reward model's scores: a forward pass each, the value models' at
        // their own size.
        let critic = match self.rl.has_critic() {
            true => self.rl_value_model_cost(self.rl.critic_model),
            false => 0.0,
        };
        let scorer = match self.rl.reward {
            Reward::Model => self.rl_value_model_cost(self.rl.reward_model),
            Reward::Rule => 0.0,
        };
        let passes =
            1.0 + f64::from(u8::from(
                self.rl.reference == Reference::Model || self.rl.reference == Reference::Adapters,
            )) + critic
                + scorer;
        let log_prob_seconds = match self.rl.algo {
            // Distillation's one extra pass is the teacher's forward.
            Algo::Distill => self.rl.teacher.map_or(0.0, |t| {
                forward * t.architecture.active_param_count() as f64 / active.max(1.0)
            }),
            // DPO's reference pass is its only extra one.
            Algo::Dpo => {
                forward
                    * f64::from(u8::from(matches!(
                        self.rl.reference,
                        Reference::Model | Reference::Adapters
                    )))
            }
            _ => passes * forward,
        };
        let recompute = match model.recompute {
            crate::memory::activations::Recompute::Full => 4.0 / 3.0,
            _ => 1.0,
        };
        let learners = 1.0 + critic;
        // Offload's PCIe traffic, once an update: the states `offload`
        // moves out and back, as training's step model times it (one
        // optimizer update a step).
        let offload = report
            .strategy(strategy)
            .time
            .map_or(0.0, |t| t.offload_seconds);
        // verl's between-phase offload: what it moves out comes back for the
        // update and goes out again, once a step each way over PCIe.
        let between = self.rl_offloaded_between_phases(&report.strategy(strategy).memory) * 2.0
            / self.machine().map_or(1.0, |m| m.pcie_bytes_per_s.max(1.0));
        let learn_seconds = learners * 3.0 * forward * recompute + offload + between;
        let transfer = match rollout {
            Some(engine) => self.rl_transfer_seconds(engine.weights_bytes)?,
            None => TransferSeconds::default(),
        };
        Some(RlTime {
            rollout_seconds,
            log_prob_seconds,
            learn_seconds,
            transfer,
            step_seconds: rollout_seconds + log_prob_seconds + learn_seconds + transfer.total(),
        })
    }
}

#[cfg(test)]
mod tests;
