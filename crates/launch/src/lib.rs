//! From plan to launch: the configuration on the page as the frameworks'
//! own configuration, ready to paste (issue 46). Each export is written in
//! the framework's names and units, from the figures the calculator ran
//! ([`Config`]), never from a second copy of the rules; a layout the
//! framework cannot run is refused with the reason ([`Refusal`]), not
//! silently bent.
//!
//! | Export | What it writes | Names read in |
//! | --- | --- | --- |
//! | [`Target::DeepSpeed`] | the `ds_config.json` | `deepspeed/runtime/zero/config.py`, `deepspeed/runtime/config.py` |
//! | [`Target::Megatron`] | `pretrain_gpt.py` arguments | `megatron/training/arguments.py` |
//! | [`Target::Torchtitan`] | the job TOML | `torchtitan/config/job_config.py` |
//! | [`Target::Accelerate`] | `accelerate launch`'s YAML | `accelerate/commands/config/config_args.py` |
//! | [`Target::LitGpt`] | `litgpt finetune_lora` / `finetune_full` | `litgpt/finetune/lora.py`, `litgpt/args.py` (0.4.13) |
//! | [`Target::Vllm`] | `vllm serve` | `vllm/engine/arg_utils.py` |
//! | [`Target::Sglang`] | `sglang.launch_server` | `sglang/srt/server_args.py` |
//! | [`Target::Verl`] | `verl.trainer.main_ppo` overrides | [`crate::verl`] |
//! | [`Target::OpenRlhf`] | `openrlhf.cli.train_ppo_ray` / `train_dpo` | `openrlhf/cli/train_ppo_ray.py` (v0.11.0) |
//! | [`Target::Trl`] | `GRPOConfig` / `DPOConfig` | `trl/trainer/grpo_config.py`, `dpo_config.py` |
//!
//! A crate above the core: it reads every job's figures through `vram-core`
//! and nothing below reads it (the build forbids it).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod deepspeed;
mod engines;
mod hf;
pub mod import;
mod import_deepspeed;
mod import_hf;
mod import_litgpt;
mod import_megatron;
mod import_openrlhf;
mod import_python;
mod import_shell;
mod import_torchtitan;
mod import_trl;
mod import_verl;
mod litgpt;
pub mod log;
mod megatron;
mod rl;
mod torchtitan;
pub mod verl;

#[cfg(test)]
mod tests;

use vram_core::config::job::Job;
use vram_core::config::{Config, ModelSpec};
use vram_core::memory::finetune::Method;
use vram_core::memory::Strategy;

/// A framework whose configuration the calculator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// DeepSpeed's configuration JSON.
    DeepSpeed,
    /// Megatron-LM's command-line arguments.
    Megatron,
    /// torchtitan's job TOML.
    Torchtitan,
    /// Hugging Face accelerate's configuration YAML, with the
    /// `TrainingArguments` (and PEFT's `LoraConfig`) that go with it.
    Accelerate,
    /// LitGPT's `finetune_lora` or `finetune_full` command line.
    LitGpt,
    /// `vllm serve`'s command line.
    Vllm,
    /// SGLang's `launch_server` command line.
    Sglang,
    /// verl's Hydra overrides of `main_ppo`.
    Verl,
    /// OpenRLHF's `train_ppo_ray` (or `train_dpo`) command line.
    OpenRlhf,
    /// TRL's `GRPOConfig` or `DPOConfig`.
    Trl,
}

impl Target {
    /// Every target, in the order the page offers them.
    pub const ALL: [Target; 10] = [
        Target::DeepSpeed,
        Target::Megatron,
        Target::Torchtitan,
        Target::Accelerate,
        Target::LitGpt,
        Target::Vllm,
        Target::Sglang,
        Target::Verl,
        Target::OpenRlhf,
        Target::Trl,
    ];

    /// The name `vram --export` takes.
    pub const fn key(self) -> &'static str {
        match self {
            Target::DeepSpeed => "deepspeed",
            Target::Megatron => "megatron",
            Target::Torchtitan => "torchtitan",
            Target::Accelerate => "accelerate",
            Target::LitGpt => "litgpt",
            Target::Vllm => "vllm",
            Target::Sglang => "sglang",
            Target::Verl => "verl",
            Target::OpenRlhf => "openrlhf",
            Target::Trl => "trl",
        }
    }

    /// The target named `key`.
    pub fn from_key(key: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.key() == key)
    }

    /// The framework's name, as its project writes it.
    pub const fn label(self) -> &'static str {
        match self {
            Target::DeepSpeed => "DeepSpeed",
            Target::Megatron => "Megatron-LM",
            Target::Torchtitan => "torchtitan",
            Target::Accelerate => "accelerate",
            Target::LitGpt => "LitGPT",
            Target::Vllm => "vLLM",
            Target::Sglang => "SGLang",
            Target::Verl => "verl",
            Target::OpenRlhf => "OpenRLHF",
            Target::Trl => "TRL",
        }
    }

    /// The job whose configuration it writes.
    pub const fn job(self) -> Job {
        match self {
            Target::DeepSpeed
            | Target::Megatron
            | Target::Torchtitan
            | Target::Accelerate
            | Target::LitGpt => Job::Train,
            Target::Vllm | Target::Sglang => Job::Serve,
            Target::Verl | Target::OpenRlhf | Target::Trl => Job::Rl,
        }
    }

    /// The targets of `config`'s job (under serving, its engine's), in the
    /// order the page offers them.
    /// An RL run's own framework (`rl_framework`) comes first, and LitGPT's
    /// command for a run counted as LitGPT keeps it (`framework=litgpt`).
    pub fn of(config: &Config) -> impl Iterator<Item = Target> + '_ {
        use vram_core::config::rl::RlFramework;
        let litgpt = config
            .model
            .is_some_and(|m| m.framework == vram_core::frameworks::hf::Framework::LitGpt);
        let first = match (config.job, config.rl.framework) {
            (Job::Train, _) if litgpt => Target::LitGpt,
            (_, RlFramework::Verl) => Target::Verl,
            (_, RlFramework::OpenRlhf) => Target::OpenRlhf,
            (_, RlFramework::Trl) => Target::Trl,
        };
        let mut targets: Vec<Target> = Target::ALL
            .into_iter()
            .filter(move |t| t.job() == config.job)
            .filter(move |t| match t {
                Target::Vllm => config.serve.engine == vram_core::serve::options::Engine::Vllm,
                Target::Sglang => config.serve.engine == vram_core::serve::options::Engine::Sglang,
                _ => true,
            })
            .collect();
        // A stable sort: the framework first, the others in their order.
        targets.sort_by_key(|&t| t != first);
        targets.into_iter()
    }

    /// The file the text is saved as, where the framework reads a file.
    pub const fn file_name(self) -> Option<&'static str> {
        match self {
            Target::DeepSpeed => Some("ds_config.json"),
            Target::Torchtitan => Some("job.toml"),
            Target::Accelerate => Some("accelerate.yaml"),
            Target::Megatron
            | Target::LitGpt
            | Target::Vllm
            | Target::Sglang
            | Target::Verl
            | Target::OpenRlhf
            | Target::Trl => None,
        }
    }
}

/// Why a framework cannot run the configuration as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The export is another job's (DeepSpeed's JSON for a deployment).
    OtherJob {
        /// The job the export is for.
        wants: Job,
    },
    /// The configuration has errors of its own: the page names them.
    Invalid,
    /// The export needs a model's architecture (a preset or a config.json),
    /// not a bare parameter count.
    NeedsModel,
    /// Tensor, pipeline, context or expert parallelism, which this
    /// framework's configuration does not express (DeepSpeed's JSON,
    /// accelerate): Megatron-LM or torchtitan run them.
    ModelParallel,
    /// The highlighted strategy has no counterpart (ZeRO-1 under FSDP2).
    Strategy(Strategy),
    /// FSDP2 shards the ZeRO-3 column (`sharding=fsdp2`): DeepSpeed does not.
    Fsdp2,
    /// DeepSpeed's ZeRO-3 under the highlight, sharded by DeepSpeed, asked of
    /// an FSDP2 framework.
    DeepSpeedSharding,
    /// Offloading only the optimizer, which FSDP2 does not (its
    /// `CPUOffloadPolicy` moves parameters, gradients and optimizer states together).
    OptimizerOnlyOffload,
    /// Offloading the parameters, which Megatron-LM does not.
    ParameterOffload,
    /// NVMe offload, which only DeepSpeed does.
    NvmeOffload,
    /// A precision the framework does not train in (FP16 in torchtitan,
    /// FP8 in DeepSpeed's JSON, pure BF16 under DeepSpeed or Megatron).
    Precision,
    /// An optimizer the framework does not build.
    Optimizer,
    /// LoRA or QLoRA, which the framework does not train.
    Adapters,
    /// Mixed precision under autocast, which the framework's configuration
    /// does not express.
    Autocast,
    /// A sharding group (HSDP, MiCS) the framework cannot express with
    /// this strategy.
    ShardGroup,
    /// A part of the architecture the framework's arguments cannot express
    /// (Megatron-LM has no flags for q and k normed over their full width, windows, soft-capping, parallel blocks, gated or linear attention, biased experts).
    Architecture,
    /// An algorithm the framework's trainer does not run (TRL's PPO lives
    /// in `trl.experimental`; TRL trains no critic beside GRPO).
    Algorithm,
    /// The deployment is planned for another engine: its figures are that
    /// engine's.
    OtherEngine,
    /// DPO, which the framework's trainer does not run (verl's `main_ppo`).
    Dpo,
    /// Distillation with the teacher in the trainer, which the framework
    /// does not run (verl serves its teacher apart; OpenRLHF removed its
    /// knowledge-distillation trainer in v0.10).
    Distillation,
    /// The rollout on GPUs of its own, which the framework runs only
    /// off-policy (verl).
    SplitPlacement,
    /// A critic or a reward model beside the actor while the rollout has
    /// GPUs of its own, which the framework places on GPUs of their own
    /// (OpenRLHF without `--train.colocate_all`).
    SplitValueModels,
    /// A reward model held in the trainer, which the framework's text does
    /// not carry (verl serves it from an engine of its own; TRL takes it as
    /// the trainer's `reward_funcs`).
    RewardModel,
    /// A sharding of the RL actor its framework does not have (verl: FSDP
    /// shards everything or nothing, Megatron's distributed optimizer the
    /// optimizer or nothing).
    ActorSharding,
    /// torchtitan's chunked loss (`loss=chunked`), which no framework's
    /// text the page writes runs (torchtitan 0.3.0 sets it in its Python
    /// configs; 0.2.2's TOML, the page's torchtitan text, has none).
    ChunkedLoss,
    /// torchtune's chunked output loss (`loss=chunked_output`), which no
    /// framework the page writes for runs.
    ChunkedOutputLoss,
    /// A compiled PyTorch loss (`loss=compiled`) in a framework's text that
    /// does not compile its loss (all but torchtitan's `[compile]`): the
    /// figures would count less than it holds.
    CompiledLoss,
    /// The figures count another framework's activations (`framework`):
    /// LitGPT's command for a plan counted as Megatron-LM or transformers
    /// keep them.
    Accounting,
    /// QLoRA on more than one GPU, which the framework does not train
    /// (LitGPT: "Quantization is currently not supported for multi-GPU
    /// training").
    QuantizedMultiGpu,
    /// A selective recomputation the framework does not run: torchtitan's
    /// per-op policy (`recompute_modules=op`) under Megatron-LM, Megatron-
    /// LM's modules under torchtitan.
    Recomputation,
}

impl From<crate::verl::NotInVerl> for Refusal {
    fn from(why: crate::verl::NotInVerl) -> Self {
        use crate::verl::NotInVerl;
        match why {
            NotInVerl::Dpo => Refusal::Dpo,
            NotInVerl::Distillation => Refusal::Distillation,
            NotInVerl::SplitPlacement => Refusal::SplitPlacement,
            NotInVerl::Adapters => Refusal::Adapters,
            NotInVerl::Precision => Refusal::Precision,
            NotInVerl::Sharding => Refusal::ActorSharding,
            NotInVerl::ShardGroup => Refusal::ShardGroup,
            NotInVerl::PipelineSplit => Refusal::ModelParallel,
            NotInVerl::Recomputation => Refusal::Recomputation,
            NotInVerl::RewardModel => Refusal::RewardModel,
        }
    }
}

/// The text of `target` for `config`, whose link is `link` (each text but
/// JSON opens with a comment naming it), or why the framework cannot run it.
pub fn export(config: &Config, target: Target, link: &str) -> Result<String, Refusal> {
    if config.job != target.job() {
        return Err(Refusal::OtherJob {
            wants: target.job(),
        });
    }
    if config.check().is_err() {
        return Err(Refusal::Invalid);
    }
    let loss = config.model.map(|m| m.loss);
    match loss {
        Some(vram_core::memory::activations::Loss::Chunked) => return Err(Refusal::ChunkedLoss),
        Some(vram_core::memory::activations::Loss::ChunkedOutput) => {
            return Err(Refusal::ChunkedOutputLoss)
        }
        Some(vram_core::memory::activations::Loss::Compiled) if target != Target::Torchtitan => {
            return Err(Refusal::CompiledLoss)
        }
        _ => {}
    }
    match target {
        Target::DeepSpeed => deepspeed::config_json(config),
        Target::Megatron => megatron::arguments(config, link),
        Target::Torchtitan => torchtitan::job_toml(config, link),
        Target::Accelerate => hf::accelerate_yaml(config, link),
        Target::LitGpt => litgpt::finetune_command(config, link),
        Target::Vllm => engines::vllm_serve(config, link),
        Target::Sglang => engines::sglang_launch(config, link),
        Target::OpenRlhf => rl::openrlhf(config, link),
        Target::Trl => rl::trl(config, link),
        Target::Verl => {
            let mut text = format!("# {link}\npython3 -m verl.trainer.main_ppo \\\n");
            let lines = crate::verl::verl_overrides(config)?;
            let last = lines.len().saturating_sub(1);
            for (i, line) in lines.iter().enumerate() {
                text.push_str("    ");
                text.push_str(line);
                text.push_str(if i == last { "\n" } else { " \\\n" });
            }
            Ok(text)
        }
    }
}

/// The launch command that reads the text, for a target whose text is a
/// file (DeepSpeed's JSON has no comment to carry it): the GPUs and nodes
/// of `config`. `None` for a target whose text is the command itself.
pub fn launch_line(config: &Config, target: Target) -> Option<String> {
    let nodes = config.runtime.nodes;
    let gpus = config.gpus;
    // The allocator's and NCCL's settings the plan assumes, as the
    // environment the launcher passes to every rank.
    let env = config.runtime.process.environment();
    match target {
        Target::DeepSpeed => Some(format!(
            "{env}deepspeed --num_nodes {nodes} --num_gpus {gpus} train.py --deepspeed ds_config.json"
        )),
        Target::Torchtitan => Some(format!(
            "{env}torchrun --nnodes {nodes} --nproc_per_node {gpus} -m torchtitan.train --job.config_file job.toml"
        )),
        Target::Accelerate => Some(format!(
            "{env}accelerate launch --config_file accelerate.yaml{} train.py",
            match nodes {
                1 => String::new(),
                _ => " --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR".to_string(),
            }
        )),
        _ => None,
    }
}

/// The data-parallel degree, micro-batch and accumulation steps of a
/// training configuration: global batch ÷ (micro-batch × data-parallel
/// GPUs), one step when no global batch is set.
pub(crate) fn batch(config: &Config) -> Batch {
    let layout = config.runtime.layout;
    let world = config.gpus.saturating_mul(config.runtime.nodes).max(1);
    let model_parallel = (layout.tp * layout.pp * layout.cp).max(1);
    let data_parallel = (world / model_parallel).max(1);
    let micro = config.model.map_or(1, |m| m.micro_batch).max(1);
    let accumulation = config
        .global_batch
        .and_then(|g| {
            vram_core::memory::accumulation::accumulation_steps(g, micro, data_parallel).ok()
        })
        .unwrap_or(1);
    Batch {
        data_parallel,
        micro,
        accumulation,
        global: micro * data_parallel * accumulation,
    }
}

/// The model Megatron-LM and torchtitan train: every weight trained (no
/// adapters), without autocast; else why they cannot.
pub(crate) fn full_training_model(config: &Config) -> Result<ModelSpec, Refusal> {
    let model = config.model.ok_or(Refusal::NeedsModel)?;
    if config.fine_tuning.method != Method::Full {
        return Err(Refusal::Adapters);
    }
    if config.amp {
        return Err(Refusal::Autocast);
    }
    Ok(model)
}

/// A training step's batch as the frameworks count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batch {
    /// Data-parallel GPUs.
    pub data_parallel: u32,
    /// Sequences per GPU per micro-batch.
    pub micro: u32,
    /// Micro-batches per optimizer step.
    pub accumulation: u32,
    /// Sequences per optimizer step.
    pub global: u32,
}

/// The Hugging Face repository of a preset, for the engines' `--model`
/// (Instruct checkpoints where the family ships one, as they are served).
pub(crate) fn hf_repo(config: &Config) -> &'static str {
    preset_repo(config.model.and_then(|m| m.preset()).map(|p| p.id))
}

/// The model preset whose Hugging Face repository is `repo` (what
/// [`preset_repo`] writes), if any: the repository itself, its base or
/// chat variant (`-Instruct`, `-Chat`, `-it`, `-hf` and the like name the
/// same architecture), a local path ending in it, or a checkpoint whose
/// `config.json` has the preset's architecture under another name
/// ([`SAME_ARCHITECTURE`]).
pub(crate) fn preset_of_repo(repo: &str) -> Option<&'static str> {
    let repo = repo.trim_end_matches('/');
    let exact = |repo: &str| {
        vram_core::model::presets::MODEL_PRESETS
            .iter()
            .map(|p| p.id)
            .find(|&id| preset_repo(Some(id)) == repo)
    };
    if let Some(id) = exact(repo) {
        return Some(id);
    }
    let name = |repo: &str| {
        let name = repo.rsplit('/').next().unwrap_or(repo).to_ascii_lowercase();
        let mut name = name.as_str();
        for suffix in ["-instruct", "-chat", "-it", "-hf", "-base"] {
            name = name.strip_suffix(suffix).unwrap_or(name);
        }
        name.to_string()
    };
    let wanted = name(repo);
    if let Some((_, id)) = SAME_ARCHITECTURE
        .iter()
        .find(|(other, _)| name(other) == wanted)
    {
        return Some(id);
    }
    vram_core::model::presets::MODEL_PRESETS
        .iter()
        .map(|p| p.id)
        .find(|&id| {
            let ours = preset_repo(Some(id));
            !ours.is_empty() && name(ours) == wanted
        })
}

/// Checkpoints published under another name whose `config.json` gives a
/// preset's architecture to the last dimension (Qwen2's 7B and 72B are
/// Qwen2.5's shapes; DeepSeek's V3-0324, V3.1 and R1 are V3's; Llama 3.1's
/// base checkpoints are the instruct ones'), so their scripts name a preset.
const SAME_ARCHITECTURE: [(&str, &str); 6] = [
    ("Qwen/Qwen2-7B-Instruct", "qwen2.5-7b"),
    ("Qwen/Qwen2-72B-Instruct", "qwen2.5-72b"),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"),
    ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3"),
    ("deepseek-ai/DeepSeek-R1", "deepseek-v3"),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek-v3"),
];

/// The Hugging Face repository of the model preset `id`.
/// The Hugging Face repository the exports write for the model preset
/// `id` (a teacher's, critic's or reward model's as the actor's).
pub fn preset_repo_of(id: &str) -> &'static str {
    preset_repo(Some(id))
}

pub(crate) fn preset_repo(id: Option<&str>) -> &'static str {
    match id {
        Some("llama2-7b") => "meta-llama/Llama-2-7b-hf",
        Some("llama2-13b") => "meta-llama/Llama-2-13b-hf",
        Some("llama2-70b") => "meta-llama/Llama-2-70b-hf",
        Some("llama3-8b") => "meta-llama/Meta-Llama-3-8B-Instruct",
        Some("llama3-70b") => "meta-llama/Meta-Llama-3-70B-Instruct",
        Some("llama3.1-8b") => "meta-llama/Llama-3.1-8B-Instruct",
        Some("llama3.1-70b") => "meta-llama/Llama-3.1-70B-Instruct",
        Some("llama3.1-405b") => "meta-llama/Llama-3.1-405B-Instruct",
        Some("mistral-7b") => "mistralai/Mistral-7B-Instruct-v0.3",
        Some("phi-4") => "microsoft/phi-4",
        Some("olmo2-7b") => "allenai/OLMo-2-1124-7B-Instruct",
        Some("olmo2-13b") => "allenai/OLMo-2-1124-13B-Instruct",
        Some("gemma2-9b") => "google/gemma-2-9b-it",
        Some("gemma2-27b") => "google/gemma-2-27b-it",
        Some("gemma-3-12b") => "google/gemma-3-12b-it",
        Some("gemma-3-27b") => "google/gemma-3-27b-it",
        Some("qwen2.5-7b") => "Qwen/Qwen2.5-7B-Instruct",
        Some("qwen2.5-14b") => "Qwen/Qwen2.5-14B-Instruct",
        Some("qwen2.5-32b") => "Qwen/Qwen2.5-32B-Instruct",
        Some("qwen2.5-72b") => "Qwen/Qwen2.5-72B-Instruct",
        Some("qwen3-0.6b") => "Qwen/Qwen3-0.6B",
        Some("qwen3-8b") => "Qwen/Qwen3-8B",
        Some("qwen3-32b") => "Qwen/Qwen3-32B",
        Some("qwen3-30b-a3b") => "Qwen/Qwen3-30B-A3B",
        Some("qwen3-235b-a22b") => "Qwen/Qwen3-235B-A22B",
        Some("qwen3-next-80b-a3b") => "Qwen/Qwen3-Next-80B-A3B-Instruct",
        Some("mixtral-8x7b") => "mistralai/Mixtral-8x7B-Instruct-v0.1",
        Some("mixtral-8x22b") => "mistralai/Mixtral-8x22B-Instruct-v0.1",
        Some("glm-4.5-air") => "zai-org/GLM-4.5-Air",
        Some("llama4-scout") => "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        Some("gpt-oss-20b") => "openai/gpt-oss-20b",
        Some("gpt-oss-120b") => "openai/gpt-oss-120b",
        Some("deepseek-v2-lite") => "deepseek-ai/DeepSeek-V2-Lite-Chat",
        Some("deepseek-v3") => "deepseek-ai/DeepSeek-V3",
        // A custom architecture or a pasted config.json: the user's own checkpoint.
        _ => "/path/to/checkpoint",
    }
}
