//! The report as JSON, typed: schema [`SCHEMA`], every figure unrounded with
//! its unit. The CLI's `--json` serialises [`ReportJson`]; nothing else
//! writes this document.
//!
//! Each struct lists its fields in alphabetical order, the order in which the
//! schema's first release printed its keys, so the document keeps its bytes.
//! Keys are added (optional parts are left out where absent), never renamed.

use serde::Serialize;

use vram_core::config::Config;
use vram_core::fixes::{Fixes, Lever};
use vram_core::input::link;
use vram_core::memory::activations::ActivationMemory;
use vram_core::plans::{Plan, Ranking};
use vram_core::report::{LayoutReport, Report, StrategyReport};

/// The name of the schema `--json` writes; a change to its meaning gets a new name.
pub const SCHEMA: &str = "vram-calculator/report/v1";

/// Where [`MegatronJson`]'s figures come from.
pub const MEGATRON_SOURCE: &str =
    "NVIDIA/Megatron-LM d98e8a6 megatron/training/theoretical_memory_usage.py";

/// A figure and its unit, as `{"unit": …, "value": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figure {
    /// "B", "GB", "parameters", "s", …
    pub unit: &'static str,
    /// The figure, unrounded.
    pub value: f64,
}

/// A figure in `unit`.
pub const fn figure(value: f64, unit: &'static str) -> Figure {
    Figure { unit, value }
}

const fn bytes(value: vram_core::units::Bytes) -> Figure {
    figure(value.get(), "B")
}

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportJson {
    /// Gradient-accumulation steps, when a global batch divides.
    pub accumulation_steps: Option<u32>,
    /// The activation formula with its numbers (Korthikanti et al.'s, or its
    /// generalisation), when counted by a formula: `null` without a model and
    /// under Hugging Face's measured accounting (its parts: `activations`).
    pub activation_derivation: Option<String>,
    /// Activation memory per GPU, when an architecture is known.
    pub activations: Option<ActivationsJson>,
    /// What a token goes through: a mixture of experts' top-k, all of a dense model.
    pub active_params: u64,
    /// A node's host RAM while its processes load the checkpoint
    /// ([`vram_core::frameworks::loading`]).
    pub checkpoint_loading: CheckpointLoadingJson,
    /// The configuration's inputs, in the units people type.
    pub config: ConfigJson,
    /// The highlighted strategy by the lesson's formula.
    pub derivation: Option<String>,
    /// What would make it fit, when asked for (`--fixes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixes: Option<FixesJson>,
    /// Bytes of the frozen base, with adapters.
    pub frozen_bytes: Option<Figure>,
    /// Parameters frozen (0 without adapters).
    pub frozen_params: u64,
    /// Each GPU's memory.
    pub gpu_memory: Figure,
    /// The highlighted strategy's CPU memory per node (offloaded states,
    /// DeepSpeed's buffers): what each node's host RAM must hold beside the GPUs.
    pub host_bytes_per_node: Figure,
    /// How the model is split, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutJson>,
    /// The configuration's link query.
    pub link: String,
    /// What LoRA's adapters keep for backward: their formula with its
    /// numbers (Hugging Face's accounting: the measured bytes), with adapters.
    pub lora_activation_derivation: Option<String>,
    /// What Megatron-LM would print, under its accounting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub megatron: Option<MegatronJson>,
    /// The model's parameters.
    pub params: Figure,
    /// The ranked plans, when asked for: the best [`vram_core::plans::KEPT_PLANS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plans: Option<Vec<PlanJson>>,
    /// How many plans the search found and fit, and how much of the
    /// cluster's layouts it searched, when the plans were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plans_search: Option<PlansSearchJson>,
    /// What the highlighted strategy's process holds beyond its peak, and
    /// so about what `nvidia-smi` shows ([`vram_core::process`]).
    pub runtime_overheads: RuntimeOverheadsJson,
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The highlighted strategy's step time, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<StepTimeJson>,
    /// One entry per strategy.
    pub strategies: Vec<StrategyJson>,
    /// Parameters trained: all of them without adapters.
    pub trainable_params: u64,
    /// The whole run, when training tokens are given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingJson>,
    /// Each GPU's memory less what is held back.
    pub usable_memory: Figure,
}

/// The configuration's inputs of the schema's first release.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct ConfigJson {
    pub acct: &'static str,
    pub bnb: &'static str,
    pub buffer_sizes: BufferSizesJson,
    pub buffers: bool,
    pub bw: Option<Figure>,
    pub double_quant: bool,
    pub dtype: &'static str,
    pub gpu: Option<&'static str>,
    pub gpu_mem: Figure,
    pub gpus: u32,
    pub grad_acc: &'static str,
    pub largest_layer: Option<Figure>,
    pub method: &'static str,
    pub model: Option<&'static str>,
    pub nodes: u32,
    pub offload: &'static str,
    pub offload_to: &'static str,
    pub opt: &'static str,
    pub overhead: Figure,
    pub params: Figure,
    pub quant: &'static str,
    pub rank: u32,
    pub sharding: &'static str,
    pub stage: &'static str,
    pub targets: &'static str,
    pub unit: &'static str,
    pub zero_init: bool,
}

/// DeepSpeed's bucket sizes, in millions of elements.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct BufferSizesJson {
    pub allgather_bucket: f64,
    pub max_live: f64,
    pub prefetch_bucket: f64,
    pub reduce_bucket: f64,
    pub unit: &'static str,
}

/// Activation memory per GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct ActivationsJson {
    pub adapters: Figure,
    pub embeddings_and_logits: Figure,
    pub layers: Figure,
    pub per_layer: Figure,
    pub total: Figure,
}

/// One strategy's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct StrategyJson {
    pub activations: Figure,
    pub buffers: Figure,
    pub bytes_per_param: BytesPerParamJson,
    pub communication_per_step: Figure,
    pub communication_seconds: Option<Figure>,
    pub cpu_per_node: Figure,
    pub fewest_gpus: Option<u32>,
    pub fits: bool,
    pub gradients: Figure,
    pub headroom: Figure,
    pub highlighted: bool,
    pub label: &'static str,
    pub max_micro_batch: Option<u32>,
    pub max_params: Figure,
    /// What bounds `max_params`: `gpu_memory`, `offload_memory` (`host_mem`),
    /// `none` (everything offloaded and `host_mem` not given: then
    /// `max_params`' value is null), or `not_run` (a strategy no framework
    /// runs with the layout: value null, `fewest_gpus` null).
    pub max_params_bound: &'static str,
    pub nvme_per_node: Figure,
    pub offload: &'static str,
    pub optimizer_states: Figure,
    pub step: StepJson,
    pub strategy: &'static str,
    /// Whether a framework runs it with the layout (DeepSpeed's pipeline
    /// engine runs ZeRO-1 only): false is the table's n/a.
    pub supported: bool,
    pub total: Figure,
    pub weights: Figure,
}

/// Bytes per parameter of each state on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct BytesPerParamJson {
    pub gradients: f64,
    pub optimizer_states: f64,
    pub total: f64,
    pub unit: &'static str,
    pub weights: f64,
}

/// The step's moments on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct StepJson {
    pub backward_start: Figure,
    pub forward_end: Figure,
    pub kept: Figure,
    pub optimizer_step: Figure,
    pub peak: Figure,
    pub peak_at: &'static str,
    pub recomputed_layer: Option<Figure>,
}

/// How the model is split over the GPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct LayoutJson {
    pub cp: u32,
    /// How context parallelism exchanges the sequence: `p2p` (ring) or `a2a` (Ulysses).
    pub cp_comm: &'static str,
    /// The routed experts' tensor parallelism: `tp` or `1`.
    pub etp: &'static str,
    pub dp: u32,
    pub microbatches: Option<u32>,
    pub most_loaded_rank: Option<u32>,
    pub pp: u32,
    pub sp: bool,
    pub stage_params: Vec<u64>,
    pub tensor_parallel_across_nodes: bool,
    pub tp: u32,
    pub vpp: u32,
}

/// Megatron-LM's printed estimate, without and with its distributed optimizer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct MegatronJson {
    pub source: &'static str,
    pub with_distributed_optimizer: MegatronEstimateJson,
    pub without_distributed_optimizer: MegatronEstimateJson,
}

/// One of Megatron-LM's estimates.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct MegatronEstimateJson {
    pub activations: Figure,
    pub printed_mb: [f64; 3],
    pub sequence_parallel_path: bool,
    pub total: Figure,
    pub weight_and_optimizer: Figure,
}

/// The highlighted strategy's step time, in seconds (FLOPs for the work).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct StepTimeJson {
    pub bubble_seconds: f64,
    pub compute_seconds: f64,
    pub context_parallel_seconds: f64,
    pub data_parallel_seconds: f64,
    pub expert_parallel_seconds: f64,
    pub exposed_communication_seconds: f64,
    pub flops: f64,
    /// The share of the 16-bit peak the slowest stage ran its FLOPs at.
    pub kernel_efficiency: f64,
    pub mfu: f64,
    pub model_flops: f64,
    pub offload_seconds: f64,
    pub step_seconds: f64,
    pub tensor_parallel_seconds: f64,
    pub tokens_per_second_per_gpu: f64,
}

impl StepTimeJson {
    fn new(t: vram_core::time::StepTime) -> StepTimeJson {
        StepTimeJson {
            bubble_seconds: t.bubble_seconds,
            compute_seconds: t.compute_seconds,
            context_parallel_seconds: t.context_parallel_seconds,
            data_parallel_seconds: t.data_parallel_seconds,
            expert_parallel_seconds: t.expert_parallel_seconds,
            exposed_communication_seconds: t.exposed_communication_seconds,
            flops: t.flops,
            kernel_efficiency: t.kernel_efficiency,
            mfu: t.mfu,
            model_flops: t.model_flops,
            offload_seconds: t.offload_seconds,
            step_seconds: t.step_seconds,
            tensor_parallel_seconds: t.tensor_parallel_seconds,
            tokens_per_second_per_gpu: t.tokens_per_second_per_gpu,
        }
    }
}

/// The whole run: tokens, optimizer steps, seconds, days and cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct TrainingJson {
    pub cost: Option<f64>,
    pub days: f64,
    pub seconds: f64,
    pub steps: f64,
    pub tokens: f64,
}

/// What would make the highlighted strategy fit ([`vram_core::fixes`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixesJson {
    /// The fixes, best first (empty when it fits already).
    pub fixes: Vec<FixJson>,
    /// Whether the highlighted strategy fits as it is.
    pub fits: bool,
    /// Its peak per GPU as it is.
    pub per_gpu: Figure,
    /// Tokens per second per GPU as it is, were it to fit, when known.
    pub tokens_per_second_per_gpu: Option<f64>,
    /// The usable memory per GPU as it is.
    pub usable: Figure,
}

/// One fix ([`vram_core::fixes::Fix`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixJson {
    /// The link keys it changes: each key, its value before and after.
    pub changes: Vec<ChangeJson>,
    /// The change in GPU time per token: 0.25 is a quarter more GPU-hours for
    /// the same tokens; `null` without a step time.
    pub gpu_time_per_token_change: Option<f64>,
    /// The levers it moves.
    pub levers: Vec<Lever>,
    /// The fixed configuration's link query.
    pub link: String,
    /// The highlighted strategy's peak per GPU with it.
    pub per_gpu: Figure,
    /// Tokens per second per GPU with it, when known.
    pub tokens_per_second_per_gpu: Option<f64>,
    /// The usable memory per GPU with it.
    pub usable: Figure,
}

/// One link key a fix changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeJson {
    /// Its value after.
    pub after: String,
    /// Its value before.
    pub before: String,
    /// The key.
    pub key: &'static str,
}

impl FixesJson {
    /// What would make `config`'s highlighted strategy fit, as `report`
    /// (its report) shows it: [`vram_core::fixes::fixes`], or none when it fits.
    pub fn new(config: &Config, report: &Report) -> FixesJson {
        let row = report.highlighted();
        let Some(found) = vram_core::fixes::fixes(config) else {
            return FixesJson {
                fixes: Vec::new(),
                fits: row.fits,
                per_gpu: bytes(row.step.peak().1),
                tokens_per_second_per_gpu: row.time.map(|t| t.tokens_per_second_per_gpu),
                usable: bytes(report.budget.usable()),
            };
        };
        FixesJson::of(config, &found)
    }

    fn of(config: &Config, found: &Fixes) -> FixesJson {
        FixesJson {
            fixes: found
                .fixes
                .iter()
                .map(|fix| FixJson {
                    changes: fix
                        .changes(config)
                        .into_iter()
                        .map(|(field, before, after)| ChangeJson {
                            after,
                            before,
                            key: field.key(),
                        })
                        .collect(),
                    gpu_time_per_token_change: fix.gpu_time_change(found.tokens_per_second_per_gpu),
                    levers: fix.levers.clone(),
                    link: link::encode(&fix.config),
                    per_gpu: bytes(fix.peak),
                    tokens_per_second_per_gpu: fix.tokens_per_second_per_gpu,
                    usable: bytes(fix.usable),
                })
                .collect(),
            fits: false,
            per_gpu: bytes(found.peak),
            tokens_per_second_per_gpu: found.tokens_per_second_per_gpu,
            usable: bytes(found.usable),
        }
    }
}

/// [`vram_core::frameworks::loading::CheckpointLoading`], each figure in bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointLoadingJson {
    /// The 16-bit checkpoint.
    pub checkpoint_bytes: Figure,
    /// The node's peak: the pages it maps and its processes' own copies.
    pub host_bytes_per_node: Figure,
    /// Who reads it: `per_rank`, `zero3_init`, `fsdp2_ram_efficient` or
    /// `distributed_checkpoint`.
    pub loader: &'static str,
    /// The checkpoint's pages the node maps, shared by its processes.
    pub page_cache_bytes: Figure,
    /// The processes' own copies.
    pub private_bytes: Figure,
}

impl CheckpointLoadingJson {
    fn new(l: &vram_core::frameworks::loading::CheckpointLoading) -> Self {
        let b = |v: u64| figure(v as f64, "B");
        CheckpointLoadingJson {
            checkpoint_bytes: b(l.checkpoint_bytes),
            host_bytes_per_node: b(l.host_bytes_per_node),
            loader: l.loader.id(),
            page_cache_bytes: b(l.page_cache_bytes),
            private_bytes: b(l.private_bytes),
        }
    }
}

/// [`vram_core::process::ProcessOverheads`], each figure in bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeOverheadsJson {
    /// The caching allocator's slack beyond the peak.
    pub allocator_slack_bytes: Figure,
    /// That slack as a fraction of the peak.
    pub allocator_slack_fraction: f64,
    /// cuBLAS's workspace.
    pub cublas_workspace_bytes: Figure,
    /// The CUDA context.
    pub cuda_context_bytes: Figure,
    /// NCCL's buffers, NVLink SHARP's included.
    pub nccl_bytes: Figure,
    /// The communicators each GPU belongs to.
    pub nccl_communicators: u32,
    /// The sum: about what `nvidia-smi` shows per GPU.
    pub nvidia_smi_bytes: Figure,
    /// The highlighted strategy's peak, as the table counts it.
    pub peak_bytes: Figure,
    /// The strategy they are of.
    pub strategy: &'static str,
}

impl RuntimeOverheadsJson {
    fn new(
        strategy: vram_core::memory::Strategy,
        o: &vram_core::process::ProcessOverheads,
    ) -> Self {
        let b = |v: u64| figure(v as f64, "B");
        RuntimeOverheadsJson {
            allocator_slack_bytes: b(o.allocator_slack_bytes),
            allocator_slack_fraction: o.allocator_slack_fraction,
            cublas_workspace_bytes: b(o.cublas_workspace_bytes),
            cuda_context_bytes: b(o.cuda_context_bytes),
            nccl_bytes: b(o.nccl_bytes),
            nccl_communicators: o.nccl_communicators,
            nvidia_smi_bytes: b(o.nvidia_smi_bytes),
            peak_bytes: b(o.peak_bytes),
            strategy: strategy.id(),
        }
    }
}

/// What the plans' search saw ([`Ranking`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlansSearchJson {
    /// Whether every layout was searched (false past the search's budget).
    pub complete: bool,
    /// Evaluations made (one pipeline rank's peak for one choice).
    pub evaluations: u64,
    /// Plans found that fit.
    pub fitting: usize,
    /// Plans found, listed or not.
    pub found: usize,
    /// The cluster's layouts that fit the model and the sequence.
    pub layouts: usize,
    /// Plans listed in `plans`: the best.
    pub listed: usize,
    /// Layouts searched, the simplest first.
    pub searched_layouts: usize,
}

/// One ranked plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct PlanJson {
    pub fits: bool,
    pub layout: PlanLayoutJson,
    pub micro_batch: u32,
    pub offload: &'static str,
    pub per_gpu: Figure,
    pub recompute: &'static str,
    /// Megatron-LM's `--recompute-num-layers`, with full recomputation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recompute_layers: Option<u32>,
    /// Megatron-LM's `--recompute-method`, with full recomputation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recompute_method: Option<&'static str>,
    pub step_seconds: Option<f64>,
    pub strategy: &'static str,
}

/// A plan's layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct PlanLayoutJson {
    pub cp: u32,
    /// `p2p` (ring) or `a2a` (Ulysses).
    pub cp_comm: &'static str,
    /// `tp` or `1`.
    pub etp: &'static str,
    pub dp: u32,
    pub ep: u32,
    pub microbatches: u32,
    pub pp: u32,
    pub sp: bool,
    pub tp: u32,
    pub vpp: u32,
}

impl ReportJson {
    /// The document of `report`, the report of `config`, with `plans` when given.
    pub fn new(config: &Config, report: &Report, plans: Option<&Ranking>) -> ReportJson {
        let setup = report.setup;
        let adapters = setup.adapters();
        let params = setup.params().get();
        ReportJson {
            accumulation_steps: report.accumulation_steps.and_then(Result::ok),
            activation_derivation: report.activation_formula(),
            lora_activation_derivation: report.lora_activation_derivation(),
            activations: report.activations.map(ActivationsJson::new),
            active_params: report
                .model
                .map_or(params as u64, |m| m.architecture.active_param_count()),
            config: ConfigJson::new(config),
            derivation: report.derivation("activations", "buffers"),
            fixes: None,
            frozen_bytes: adapters.map(|a| figure(a.frozen_bytes as f64, "B")),
            frozen_params: adapters.map_or(0, |a| a.frozen),
            gpu_memory: bytes(report.budget.gpu_memory()),
            layout: report
                .layout
                .as_ref()
                .map(|l| LayoutJson::new(l, report.highlighted().rank)),
            link: link::encode(config),
            megatron: report.megatron.map(|m| MegatronJson {
                source: MEGATRON_SOURCE,
                with_distributed_optimizer: MegatronEstimateJson::new(
                    &m.with_distributed_optimizer,
                ),
                without_distributed_optimizer: MegatronEstimateJson::new(
                    &m.without_distributed_optimizer,
                ),
            }),
            params: figure(params, "parameters"),
            plans: plans.map(|ranking| ranking.plans.iter().map(PlanJson::new).collect()),
            runtime_overheads: RuntimeOverheadsJson::new(
                report.highlight,
                &config.process_overheads(report),
            ),
            checkpoint_loading: CheckpointLoadingJson::new(&config.checkpoint_loading(report)),
            host_bytes_per_node: bytes(report.highlighted().beyond.cpu_per_node),
            plans_search: plans.map(|ranking| PlansSearchJson {
                complete: ranking.is_complete(),
                evaluations: ranking.evaluations,
                fitting: ranking.fitting,
                found: ranking.found,
                layouts: ranking.layouts,
                listed: ranking.plans.len(),
                searched_layouts: ranking.searched,
            }),
            schema: SCHEMA,
            step: report.highlighted().time.map(StepTimeJson::new),
            strategies: report
                .strategies
                .iter()
                .map(|row| StrategyJson::new(row, row.strategy == report.highlight))
                .collect(),
            trainable_params: adapters.map_or(params as u64, |a| a.trainable),
            training: report.training.map(|run| TrainingJson {
                cost: run.cost,
                days: run.days,
                seconds: run.seconds,
                steps: run.steps,
                tokens: run.tokens,
            }),
            usable_memory: bytes(report.budget.usable()),
        }
    }
}

impl ConfigJson {
    fn new(config: &Config) -> ConfigJson {
        let runtime = &config.runtime;
        let sizes = runtime.buffer_sizes;
        let tuning = &config.fine_tuning;
        ConfigJson {
            acct: runtime.accounting.key(),
            bnb: tuning.bnb.key(),
            buffer_sizes: BufferSizesJson {
                allgather_bucket: sizes.allgather_bucket,
                max_live: sizes.max_live_parameters,
                prefetch_bucket: sizes.prefetch_bucket,
                reduce_bucket: sizes.reduce_bucket,
                unit: "millions of elements",
            },
            buffers: runtime.buffers,
            bw: runtime.bandwidth_gb_per_s.map(|bw| figure(bw, "GB/s")),
            double_quant: tuning.double_quant,
            dtype: config.precision.key(),
            gpu: config.gpu.map(|g| g.id),
            gpu_mem: figure(config.gpu_mem_gb, "GB"),
            gpus: config.gpus,
            grad_acc: config.gradients.key(),
            largest_layer: runtime
                .largest_layer_millions
                .map(|l| figure(l, "millions of parameters")),
            method: tuning.method.key(),
            model: config.model.map(|m| m.base.id),
            nodes: runtime.nodes,
            offload: runtime.offload.key(),
            offload_to: runtime.offload_device.key(),
            sharding: runtime.sharding.key(),
            opt: config.optimizer.key(),
            overhead: figure(config.overhead, "fraction"),
            params: figure(config.params_billions, "billions of parameters"),
            quant: tuning.quant.key(),
            rank: tuning.rank,
            stage: config.highlight.key(),
            targets: tuning.targets.key(),
            unit: config.unit.key(),
            zero_init: runtime.zero_init,
        }
    }
}

impl ActivationsJson {
    fn new(a: ActivationMemory) -> ActivationsJson {
        ActivationsJson {
            adapters: bytes(a.adapters),
            embeddings_and_logits: bytes(a.embeddings_and_logits),
            layers: bytes(a.layers),
            per_layer: bytes(a.per_layer),
            total: bytes(a.total),
        }
    }
}

impl StrategyJson {
    fn new(row: &StrategyReport, highlighted: bool) -> StrategyJson {
        let per_param = row.bytes_per_param;
        let (peak_at, peak) = row.step.peak();
        StrategyJson {
            activations: bytes(row.memory.activations),
            buffers: bytes(row.memory.buffers),
            bytes_per_param: BytesPerParamJson {
                gradients: per_param.gradients,
                optimizer_states: per_param.optimizer_states,
                total: per_param.total(),
                unit: "B/parameter",
                weights: per_param.weights,
            },
            communication_per_step: bytes(row.beyond.communication),
            communication_seconds: row.beyond.communication_seconds.map(|s| figure(s, "s")),
            cpu_per_node: bytes(row.beyond.cpu_per_node),
            // A strategy no framework runs with the layout (ZeRO-2/3 under
            // DeepSpeed's pipeline) has no fewest GPUs and no largest model.
            fewest_gpus: row.fewest_gpus.filter(|_| row.supported),
            fits: row.fits,
            gradients: bytes(row.memory.gradients),
            headroom: bytes(row.headroom),
            highlighted,
            label: row.strategy.label(),
            max_micro_batch: row.max_micro_batch,
            max_params: figure(
                match row.supported {
                    true => row.max_params.get(),
                    false => f64::NAN,
                },
                "parameters",
            ),
            max_params_bound: match row.supported {
                true => row.largest_model_bound().id(),
                false => "not_run",
            },
            nvme_per_node: bytes(row.beyond.nvme_per_node),
            offload: row.beyond.offload.key(),
            optimizer_states: bytes(row.memory.optimizer_states),
            step: StepJson {
                backward_start: bytes(row.step.backward_start),
                forward_end: bytes(row.step.forward_end),
                kept: bytes(row.step.kept),
                optimizer_step: bytes(row.step.optimizer_step),
                peak: bytes(peak),
                peak_at: peak_at.key(),
                recomputed_layer: row.step.recomputed_layer.map(bytes),
            },
            strategy: row.strategy.id(),
            supported: row.supported,
            total: bytes(row.memory.total),
            weights: bytes(row.memory.weights),
        }
    }
}

impl LayoutJson {
    fn new(layout: &LayoutReport, most_loaded_rank: Option<u32>) -> LayoutJson {
        let l = layout.layout;
        LayoutJson {
            cp: l.cp,
            cp_comm: l.cp_comm.key(),
            etp: l.expert_tp.key(),
            dp: layout.data_parallel,
            microbatches: layout.microbatches,
            most_loaded_rank,
            pp: l.pp,
            sp: l.sp,
            stage_params: layout.stages.iter().map(|s| s.params).collect(),
            tensor_parallel_across_nodes: layout.across_nodes,
            tp: l.tp,
            vpp: l.vpp,
        }
    }
}

impl MegatronEstimateJson {
    fn new(e: &vram_core::frameworks::megatron::MegatronEstimate) -> MegatronEstimateJson {
        MegatronEstimateJson {
            activations: bytes(e.activations),
            printed_mb: e.printed_mb,
            sequence_parallel_path: e.sequence_parallel_path,
            total: bytes(e.total),
            weight_and_optimizer: bytes(e.weight_and_optimizer),
        }
    }
}

impl PlanJson {
    fn new(p: &Plan) -> PlanJson {
        let full = p.recompute == vram_core::memory::activations::Recompute::Full;
        PlanJson {
            fits: p.fits,
            layout: PlanLayoutJson {
                cp: p.layout.cp,
                cp_comm: p.layout.cp_comm.key(),
                etp: p.layout.expert_tp.key(),
                dp: p.dp,
                ep: p.ep,
                microbatches: p.microbatches,
                pp: p.layout.pp,
                sp: p.layout.sp,
                tp: p.layout.tp,
                vpp: p.layout.vpp,
            },
            micro_batch: p.micro_batch,
            offload: p.offload.key(),
            per_gpu: bytes(p.peak),
            recompute: p.recompute.key(),
            recompute_layers: full.then_some(p.checkpointing.layers),
            recompute_method: full.then_some(p.checkpointing.method.key()),
            step_seconds: p.time.map(|t| t.step_seconds),
            strategy: p.strategy.id(),
        }
    }
}

/// The name of the schema `--json` writes under `job=serve`.
pub const SERVE_SCHEMA: &str = "vram-calculator/serve/v1";

/// The whole document under `job=serve`: the link and the `serve` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServeDocumentJson {
    /// `serve`.
    pub job: &'static str,
    /// The configuration's link query.
    pub link: String,
    /// The layouts that run it, fastest per GPU first, when asked for (`--plans`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plans: Option<Vec<ServePlanJson>>,
    /// [`SERVE_SCHEMA`].
    pub schema: &'static str,
    /// The deployment's figures.
    pub serve: ServeJson,
}

/// A ranked serving layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServePlanJson {
    /// The price of a million output tokens, with a price.
    pub cost_per_million_tokens: Option<Figure>,
    /// Sequences at once per replica.
    pub concurrency: u32,
    /// Output tokens a second per GPU.
    pub decode_tokens_per_second_per_gpu: Option<Figure>,
    /// Expert-parallel GPUs.
    pub ep: u32,
    /// The KV cache's type.
    pub kv_dtype: &'static str,
    /// The link with this layout.
    pub link: String,
    /// Pipeline stages.
    pub pp: u32,
    /// Replicas.
    pub replicas: u32,
    /// Tensor-parallel GPUs.
    pub tp: u32,
    /// Time per output token.
    pub tpot: Option<Figure>,
    /// The weights' format.
    pub weights: &'static str,
}

impl ServePlanJson {
    /// The plan `plan` of `config`.
    pub fn new(config: &Config, plan: &vram_core::serve::plans::ServePlan) -> Self {
        let speed = plan.report.speed;
        ServePlanJson {
            cost_per_million_tokens: speed
                .and_then(|s| s.cost_per_million_tokens)
                .map(|c| figure(c, "per million tokens")),
            concurrency: plan.report.concurrency,
            decode_tokens_per_second_per_gpu: speed
                .map(|s| figure(s.decode_tokens_per_second_per_gpu, "tokens/s")),
            ep: plan.layout.ep,
            kv_dtype: plan.kv_dtype.key(),
            link: link::encode(&config.with_serve_plan(plan)),
            pp: plan.layout.pp,
            replicas: plan.report.replicas,
            tp: plan.layout.tp,
            tpot: speed.map(|s| figure(s.tpot_seconds, "s")),
            weights: plan.weights.key(),
        }
    }
}

/// A layer kind's KV page on the GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KvPageJson {
    /// Tokens a block holds.
    pub block_size: u32,
    /// `full`, `sliding_window` or `state`.
    pub kind: &'static str,
    /// The stage's layers of this kind.
    pub layers: u32,
    /// Bytes of one block of one layer.
    pub page_bytes: Figure,
    /// The window, for a sliding window; the chunk, for chunked local
    /// attention (`kind` `chunked_local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
}

/// A deployment's figures on the most loaded GPU of a replica; speeds per
/// replica unless named per GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServeJson {
    /// The profiled activation peak.
    pub activation_peak_bytes: Figure,
    /// Tokens a step schedules at most.
    pub batched_tokens: u32,
    /// Tokens per block.
    pub block_size: u32,
    /// Sequences decoded at once per replica.
    pub concurrency: u32,
    /// Sequences of `prompt_len + response_len` the cache holds.
    pub concurrency_holds: u64,
    /// The price of a million output tokens, with a price.
    pub cost_per_million_tokens: Option<Figure>,
    /// The CUDA graphs' pool.
    pub cuda_graph_bytes: Figure,
    /// The GPU's memory as CUDA reports it.
    pub cuda_total_bytes: Figure,
    /// Output tokens a second of one replica.
    pub decode_tokens_per_second: Option<Figure>,
    /// Output tokens a second per GPU.
    pub decode_tokens_per_second_per_gpu: Option<Figure>,
    /// `vllm`, `sglang` or `trtllm`.
    pub engine: &'static str,
    /// The engine's version reproduced.
    pub engine_version: &'static str,
    /// Whether it runs.
    pub fits: bool,
    /// The engine's memory fraction.
    pub gpu_util: f64,
    /// The KV cache's budget (`null`: nothing left).
    pub kv_budget_bytes: Option<Figure>,
    /// Blocks the budget holds.
    pub kv_blocks: u64,
    /// One token's keys and values over the stage's attention layers.
    pub kv_bytes_per_token: Figure,
    /// Each layer kind's page.
    pub kv_page_bytes: Vec<KvPageJson>,
    /// Tokens the cache holds.
    pub kv_tokens: u64,
    /// Sequences of `max_model_len` the cache holds.
    pub max_concurrency: f64,
    /// `max_model_len`.
    pub max_model_len: u32,
    /// The longest `max_model_len` that fits.
    pub max_model_len_fits: u32,
    /// Memory outside PyTorch's allocator.
    pub non_torch_bytes: Figure,
    /// GPUs per replica's pipeline stages.
    pub pp: u32,
    /// Prompt tokens a second one replica prefills.
    pub prefill_tokens_per_second: Option<Figure>,
    /// Replicas.
    pub replicas: u32,
    /// Why it does not run: `no_kv_memory`, `max_len` or `concurrency`.
    pub shortfall: Option<&'static str>,
    /// Tensor-parallel GPUs.
    pub tp: u32,
    /// What the engine takes of the GPU.
    pub total_bytes: Figure,
    /// Time per output token.
    pub tpot: Option<Figure>,
    /// Time to the first token.
    pub ttft: Option<Figure>,
    /// What the engine warns of.
    pub warnings: Vec<String>,
    /// The weights on the GPU.
    pub weights_bytes: Figure,
}

impl ServeDocumentJson {
    /// The document of `config`'s deployment `report`.
    pub fn new(config: &Config, report: &vram_core::serve::report::ServeReport) -> Self {
        use vram_core::serve::kv_cache::LayerKind;
        use vram_core::serve::report::{ServeWarning, Shortfall};
        let b = |v: f64| figure(v, "B");
        let speed = report.speed;
        let per_s = |f: fn(&vram_core::serve::speed::ServeSpeed) -> f64, unit| {
            speed.as_ref().map(|s| figure(f(s), unit))
        };
        ServeDocumentJson {
            job: "serve",
            link: link::encode(config),
            plans: None,
            schema: SERVE_SCHEMA,
            serve: ServeJson {
                activation_peak_bytes: b(report.activation_peak_bytes as f64),
                batched_tokens: report.batched_tokens,
                block_size: report.block_size,
                concurrency: report.concurrency,
                concurrency_holds: report.concurrency_holds,
                cost_per_million_tokens: speed
                    .and_then(|s| s.cost_per_million_tokens)
                    .map(|c| figure(c, "per million tokens")),
                cuda_graph_bytes: b(report.cuda_graph_bytes as f64),
                cuda_total_bytes: b(report.cuda_total_bytes as f64),
                decode_tokens_per_second: per_s(|s| s.decode_tokens_per_second, "tokens/s"),
                decode_tokens_per_second_per_gpu: per_s(
                    |s| s.decode_tokens_per_second_per_gpu,
                    "tokens/s",
                ),
                engine: report.engine.key(),
                engine_version: report.engine_version,
                fits: report.fits,
                gpu_util: report.gpu_util,
                kv_budget_bytes: report.kv_budget_bytes.map(|v| b(v as f64)),
                kv_blocks: report.kv_blocks,
                kv_bytes_per_token: b(report.kv_bytes_per_token as f64),
                kv_page_bytes: report
                    .pages
                    .iter()
                    .map(|p| KvPageJson {
                        block_size: p.block_size,
                        kind: match p.kind {
                            LayerKind::Full if p.chunk.is_some() => "chunked_local",
                            LayerKind::Full => "full",
                            LayerKind::SlidingWindow(_) => "sliding_window",
                            LayerKind::State => "state",
                        },
                        layers: p.layers,
                        page_bytes: b(p.page_bytes as f64),
                        window: match p.kind {
                            LayerKind::SlidingWindow(w) => Some(w),
                            _ => p.chunk,
                        },
                    })
                    .collect(),
                kv_tokens: report.kv_tokens,
                max_concurrency: report.max_concurrency,
                max_model_len: report.max_model_len,
                max_model_len_fits: report.max_model_len_fits,
                non_torch_bytes: b(report.non_torch_bytes as f64),
                pp: report.layout.pp,
                prefill_tokens_per_second: per_s(|s| s.prefill_tokens_per_second, "tokens/s"),
                replicas: report.replicas,
                shortfall: report.shortfall.map(|s| match s {
                    Shortfall::NoKvMemory => "no_kv_memory",
                    Shortfall::MaxLen { .. } => "max_len",
                    Shortfall::Concurrency { .. } => "concurrency",
                }),
                tp: report.layout.tp,
                total_bytes: b(report.total_bytes),
                tpot: per_s(|s| s.tpot_seconds, "s"),
                ttft: per_s(|s| s.ttft_seconds, "s"),
                warnings: report
                    .warnings
                    .iter()
                    .map(|w| match w {
                        ServeWarning::Capped { tokens } => {
                            format!("SGLang caps a request at {tokens} tokens")
                        }
                    })
                    .collect(),
                weights_bytes: b(report.weights_bytes),
            },
        }
    }
}

/// The name of the schema `--json` writes under `job=rl`.
/// v2: `step_seconds` counts the weights' trips around the rollout
/// (`transfer_seconds`), and `timeline` gives each phase in order.
pub const RL_SCHEMA: &str = "vram-calculator/rl/v2";

/// The whole document under `job=rl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RlDocumentJson {
    /// `rl`.
    pub job: &'static str,
    /// The configuration's link query.
    pub link: String,
    /// The run's figures.
    pub rl: RlJson,
    /// [`RL_SCHEMA`].
    pub schema: &'static str,
}

/// A phase on the most loaded GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseJson {
    /// Whether it fits.
    pub fits: bool,
    /// What it may use.
    pub limit_bytes: Figure,
    /// Each part, by name.
    pub parts: std::collections::BTreeMap<&'static str, Figure>,
    /// Their sum.
    pub total_bytes: Figure,
}

/// A phase of the step on one GPU, in the order it runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageJson {
    /// `wake`, `weight_sync`, `generate`, `sleep`, `log_probs` or `update`.
    pub stage: &'static str,
    /// What it holds at its peak.
    pub bytes: Figure,
    /// Its time a step, with a GPU whose peaks are known.
    pub seconds: Option<Figure>,
    /// Whether it runs on the engine's own GPUs.
    pub on_engine_gpus: bool,
}

/// The step's phases, the peak and the key that relieves it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineJson {
    /// The phase holding most against what its GPU may use.
    pub peak: &'static str,
    /// The link key of the input that most relieves the peak.
    pub relief: &'static str,
    /// The phases in order.
    pub stages: Vec<StageJson>,
}

/// The name of a phase in the JSON.
fn stage_name(stage: vram_core::rl::Stage) -> &'static str {
    use vram_core::rl::Stage;
    match stage {
        Stage::Wake => "wake",
        Stage::WeightSync => "weight_sync",
        Stage::Generate => "generate",
        Stage::Sleep => "sleep",
        Stage::LogProbs => "log_probs",
        Stage::Update => "update",
    }
}

impl TimelineJson {
    fn new(timeline: &vram_core::rl::RlTimeline) -> Self {
        TimelineJson {
            peak: stage_name(timeline.peak),
            relief: timeline.relief.key(),
            stages: timeline
                .stages
                .iter()
                .map(|s| StageJson {
                    stage: stage_name(s.stage),
                    bytes: figure(s.bytes, "B"),
                    seconds: s.seconds.map(|v| figure(v, "s")),
                    on_engine_gpus: s.on_engine_gpus,
                })
                .collect(),
        }
    }
}

/// An RL run's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RlJson {
    /// `grpo`, `ppo` or `dpo`.
    pub algo: &'static str,
    /// Generating (none under DPO).
    pub generate: Option<PhaseJson>,
    /// Host RAM each node holds.
    pub host_bytes_per_node: Figure,
    /// Learning.
    pub learn: PhaseJson,
    /// The log-prob passes' time a step.
    pub log_prob_seconds: Option<Figure>,
    /// The learning's time a step.
    pub learn_seconds: Option<Figure>,
    /// How far the run goes on these GPUs, when asked for (the CLI's `--json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<vram_core::rl::limits::RlLimits>,
    /// The smallest memory fraction at which the rollout engine fits.
    pub min_gpu_util: Option<f64>,
    /// The engine the rollout's figures are (`vllm`, or `sglang` under
    /// verl); `null` when nothing is generated.
    pub rollout_engine: Option<&'static str>,
    /// What the trainer holds on each GPU when a colocated engine starts
    /// (SGLang's pool is its fraction of the rest); 0 apart.
    pub held_at_start_bytes: Figure,
    /// The rollout's time a step.
    pub rollout_seconds: Option<Figure>,
    /// Sequences a step.
    pub sequences: u64,
    /// A step's time.
    pub step_seconds: Option<Figure>,
    /// The step's phases in order, its peak and what relieves it.
    pub timeline: TimelineJson,
    /// Tokens a step.
    pub tokens: u64,
    /// The weights' trips around the rollout (wake, sync, sleep) a step.
    pub transfer_seconds: Option<Figure>,
    /// The run as verl's overrides; `null` where verl does not run it as
    /// planned (DPO, distillation, the rollout on GPUs of its own).
    pub verl_overrides: Option<Vec<String>>,
}

impl RlDocumentJson {
    /// The document of `config`'s run `report`.
    pub fn new(config: &Config, report: &vram_core::rl::RlReport) -> Self {
        use vram_core::rl::{PhaseReport, RlPart};
        let b = |v: f64| figure(v, "B");
        let name = |part: RlPart| match part {
            RlPart::ActorStates => "actor_states",
            RlPart::ActorStep => "actor_step",
            RlPart::TrainerResident => "trainer_resident",
            RlPart::Reference => "reference",
            RlPart::Critic => "critic",
            RlPart::RewardModel => "reward_model",
            RlPart::LogProbs => "entropy",
            RlPart::EngineWeights => "engine_weights",
            RlPart::EngineOverheads => "engine_overheads",
            RlPart::EngineKv => "engine_kv",
            RlPart::EngineAsleep => "engine_asleep",
            RlPart::Teacher => "teacher",
            RlPart::TeacherLogits => "teacher_logits",
            RlPart::WeightSync => "weight_sync",
            RlPart::FsdpRoot => "fsdp_root",
            RlPart::Process => "process",
        };
        let phase = |p: &PhaseReport| PhaseJson {
            fits: p.fits,
            limit_bytes: b(p.limit_bytes),
            parts: p
                .parts
                .iter()
                .map(|(part, bytes)| (name(*part), b(*bytes)))
                .collect(),
            total_bytes: b(p.total_bytes),
        };
        let seconds =
            |f: fn(&vram_core::rl::RlTime) -> f64| report.time.as_ref().map(|t| figure(f(t), "s"));
        RlDocumentJson {
            job: "rl",
            link: link::encode(config),
            rl: RlJson {
                algo: config.rl.algo.key(),
                generate: report.generate.as_ref().map(phase),
                host_bytes_per_node: b(report.host_bytes_per_node),
                learn: phase(&report.learn),
                log_prob_seconds: seconds(|t| t.log_prob_seconds),
                learn_seconds: seconds(|t| t.learn_seconds),
                limits: None,
                min_gpu_util: report.min_gpu_util,
                rollout_engine: report.rollout_engine.map(|e| e.key()),
                held_at_start_bytes: b(report.held_at_start_bytes as f64),
                rollout_seconds: seconds(|t| t.rollout_seconds),
                sequences: report.sequences,
                step_seconds: seconds(|t| t.step_seconds),
                timeline: TimelineJson::new(&report.timeline),
                tokens: report.tokens,
                transfer_seconds: seconds(|t| t.transfer.total()),
                verl_overrides: vram_launch::verl::verl_overrides(config).ok(),
            },
            schema: RL_SCHEMA,
        }
    }
}
