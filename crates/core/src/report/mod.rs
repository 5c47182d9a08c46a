//! Training's answer: the report of every strategy for a configuration,
//! built once here ([`evaluate`] checks and evaluates a configuration) and
//! rendered by every view, its exports (Markdown and CSV, [`export`]), the
//! layouts that fit ranked ([`plans`]) and what would make it fit
//! ([`fixes`]), each evaluated as the report evaluates.

mod derivation;
pub use derivation::{LayoutDerivation, Rebuilt};
pub mod evaluate;
pub mod export;
pub mod fixes;
pub(crate) mod place;
pub mod plans;
pub mod serving;
pub mod table;

use serde::{Deserialize, Serialize};

use crate::config::{Config, ModelSpec};
use crate::frameworks::deepspeed::Offload;
use crate::frameworks::hf::{hf_activation_memory, hf_step_transients, Framework, HfLora};
use crate::frameworks::runtime::{Accounting, BeyondGpu, OffloadDevice, Runtime};
use crate::input::{Field, InputError};
use crate::memory::activations::stage_activations;
use crate::memory::activations::{
    activation_derivation, ActivationMemory, ActivationSetup, Recompute,
};
use crate::memory::finetune::FineTuning;
use crate::memory::parallel::{stage_params, Layout, StageParams};
use crate::memory::step::{megatron_step_transients, StepMemory, StepTransients};
use crate::memory::Strategy;
use crate::memory::{BytesPerParam, MemoryBreakdown, MemoryBudget, TrainingSetup};
use vram_shared::format::MemoryUnit;
use vram_shared::model::architecture::Architecture;
use vram_shared::units::{Bytes, ParamCount};

/// The figures of one strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    /// Which strategy.
    pub strategy: Strategy,
    /// Bytes per parameter of each model state on one GPU.
    pub bytes_per_param: BytesPerParam,
    /// Memory of the model states on one GPU.
    pub memory: MemoryBreakdown,
    /// The step's moments around [`memory.total`](MemoryBreakdown::total),
    /// what is kept.
    pub step: StepMemory,
    /// Whether the peak of the step fits in the usable memory.
    pub fits: bool,
    /// Usable memory left over at the peak of the step (negative when it does
    /// not fit).
    pub headroom: Bytes,
    /// The largest model that fits beside what this configuration holds apart
    /// from its states (activations of the chosen shape, buffers, the step's
    /// transients): judged on the same peak as [`fits`](Self::fits), so it is
    /// at least the model's count exactly when the model fits. Without an
    /// architecture, the lesson's usable memory ÷ bytes per parameter.
    pub max_params: ParamCount,
    /// What the step's peak holds beside the states that grow with the
    /// parameters (activations, buffers, transients), on the most loaded GPU.
    #[serde(default)]
    pub beside_states: Bytes,
    /// The fewest GPUs with which this strategy fits, up to 2^20; `None` if none do.
    pub fewest_gpus: Option<u32>,
    /// The largest micro-batch that fits, when activations are counted.
    pub max_micro_batch: Option<u32>,
    /// Each node's CPU memory and NVMe, and the network.
    pub beyond: BeyondGpu,
    /// With a layout: the pipeline rank of the most loaded GPU, whose figures these are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Whether a framework runs this strategy with the layout: DeepSpeed's
    /// pipeline engine refuses ZeRO-2 and ZeRO-3 (`PipelineEngine` asserts a
    /// stage below 2). An unsupported strategy never fits.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub supported: bool,
    /// The step's time, with a model on a GPU whose peak is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<crate::time::StepTime>,
}

const fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

/// One pipeline rank as the report evaluates it.
struct Stage {
    params: Option<StageParams>,
    kept: Option<ActivationMemory>,
    transients: Option<StepTransients>,
    per_sequence: Option<Bytes>,
}

/// The layout's figures: how the GPUs divide, and each stage's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutReport {
    /// The layout.
    pub layout: Layout,
    /// The data-parallel degree: GPUs ÷ (TP × PP × CP).
    pub data_parallel: u32,
    /// Microbatches per step on each pipeline, when a global batch is given.
    pub microbatches: Option<u32>,
    /// One GPU's parameters on each pipeline rank.
    pub stages: Vec<StageParams>,
    /// Whether tensor parallelism spans nodes (it then runs over the slow link).
    pub across_nodes: bool,
}

/// Every figure the page shows for a valid configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The model and how it is trained.
    pub setup: TrainingSetup,
    /// Each GPU's memory and the part held back.
    pub budget: MemoryBudget,
    /// The strategy highlighted.
    pub highlight: Strategy,
    /// One entry per strategy, in [`Strategy::ALL`]'s order.
    pub strategies: [StrategyReport; 4],
    /// The model's architecture and step, when given.
    pub model: Option<ModelSpec>,
    /// Activation memory per GPU, when the architecture is known.
    pub activations: Option<ActivationMemory>,
    /// What the step holds around the kept activations, when they are known.
    pub step: Option<StepTransients>,
    /// Gradient-accumulation steps for the global batch, when one was given.
    pub accumulation_steps: Option<Result<u32, InputError>>,
    /// The unit memory is shown in.
    pub unit: MemoryUnit,
    /// Whose accounting the memory figures follow.
    pub accounting: Accounting,
    /// What is trained (the adapters' counts are in [`TrainingSetup::adapters`]).
    pub fine_tuning: FineTuning,
    /// How the model is split over the GPUs, when it is.
    pub layout: Option<LayoutReport>,
    /// What Megatron-LM would print, under `acct=megatron`: filled by
    /// [`Config::megatron_report`] where it is wanted (the CLI), `None` from
    /// [`Config::report`].
    pub megatron: Option<MegatronReport>,
    /// The whole run of the highlighted strategy, when training tokens are given.
    pub training: Option<crate::time::Training>,
    /// The peak and links the step times assume.
    pub machine: Option<crate::time::Machine>,
}

/// Megatron-LM's estimate for this configuration: without its distributed
/// optimizer (the page's DDP row) and with it (ZeRO-1's). Megatron has no
/// ZeRO-2 or ZeRO-3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MegatronReport {
    /// `--use-distributed-optimizer` off.
    pub without_distributed_optimizer: crate::frameworks::megatron::MegatronEstimate,
    /// `--use-distributed-optimizer` on.
    pub with_distributed_optimizer: crate::frameworks::megatron::MegatronEstimate,
}

impl Default for Report {
    /// The report of the lesson's example, [`Config::default`].
    fn default() -> Self {
        let config = Config::default();
        let setup = TrainingSetup {
            params: ParamCount::from_billions(config.params_billions),
            recipe: config.recipe(),
            gpus: config.gpus,
            adapters: None,
            shard_group: None,
            linear_share: 1.0,
        };
        let budget = MemoryBudget {
            gpu_memory: Bytes::from_gb(config.gpu_mem_gb),
            reserved_fraction: config.overhead,
            context: Bytes::ZERO,
        };
        Report::new(setup, budget, config.highlight)
    }
}

/// A strategy's placement with expert parallelism (Megatron-LM's layout):
/// the dense parameters as data parallelism places them over every GPU, the
/// routed experts divided over `ep` ranks, each rank's experts replicated
/// over the expert-data-parallel group of N ÷ EP GPUs (N × TP ÷ EP with
/// ETP = 1, `fold` = TP), where ZeRO shards their
/// states: a state the strategy shards takes `bytes ÷ (N ÷ EP)` for each of
/// the rank's `routed ÷ EP` parameters (`bytes ÷ N` per routed parameter),
/// one it does not shard `bytes` (`bytes ÷ EP` per routed parameter). Bytes per
/// parameter are given per parameter of the whole model. Offload and
/// DeepSpeed's estimator are refused with EP (see [`Config::setup`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn place_with_experts(
    runtime: &Runtime,
    setup: &TrainingSetup,
    strategy: Strategy,
    gpus_per_node: u32,
    largest: Option<ParamCount>,
    routed: f64,
    ep: u32,
    fold: u32,
) -> crate::frameworks::runtime::Placement {
    let all = setup.params().get();
    let dense_setup = TrainingSetup {
        params: ParamCount::new(all - routed),
        ..*setup
    };
    let dense = runtime.place(&dense_setup, strategy, gpus_per_node, largest);
    let ep = f64::from(ep);
    let sharded = setup.bytes_per_param(strategy);
    // A sharded state spreads over the expert-data-parallel group, N × fold
    // ÷ EP GPUs (fold: TP with ETP = 1): `bytes ÷ fold` of the per-GPU share.
    let fold = f64::from(fold.max(1));
    let part = |bytes: f64, shards: bool| if shards { bytes / fold } else { bytes / ep };
    let expert = BytesPerParam {
        weights: part(sharded.weights, strategy.shards_weights()),
        gradients: part(sharded.gradients, strategy.shards_gradients()),
        optimizer_states: part(sharded.optimizer_states, strategy.shards_optimizer_states()),
    };
    let add = |a: Bytes, per_param: f64| Bytes::new(a.get() + routed * per_param);
    let dense_share = (all - routed) / all;
    let d = dense.bytes_per_param;
    let weigh = |d: f64, e: f64| d * dense_share + e * routed / all;
    // Each rank's experts' gradients are reduced within its group of N ÷ EP.
    let groups = (setup.gpus() as f64 * fold / ep).max(1.0) as u32;
    let expert_elements =
        crate::frameworks::deepspeed::communication_elements(strategy, routed / ep, groups);
    let communication = Bytes::new(
        dense.beyond.communication.get() + expert_elements * setup.gradient_bytes_per_param(),
    );
    crate::frameworks::runtime::Placement {
        gpu: MemoryBreakdown {
            weights: add(dense.gpu.weights, expert.weights),
            gradients: add(dense.gpu.gradients, expert.gradients),
            optimizer_states: add(dense.gpu.optimizer_states, expert.optimizer_states),
            activations: Bytes::ZERO,
            buffers: dense.gpu.buffers,
            total: add(dense.gpu.total, expert.total()),
        },
        bytes_per_param: BytesPerParam {
            weights: weigh(d.weights, expert.weights),
            gradients: weigh(d.gradients, expert.gradients),
            optimizer_states: weigh(d.optimizer_states, expert.optimizer_states),
        },
        fixed: dense.fixed,
        beyond: BeyondGpu {
            communication,
            communication_seconds: runtime
                .bandwidth_gb_per_s
                .map(|bw| crate::frameworks::deepspeed::communication_seconds(communication, bw)),
            ..dense.beyond
        },
    }
}

impl Report {
    /// Computes every strategy's figures under the lesson's accounting.
    pub fn new(setup: TrainingSetup, budget: MemoryBudget, highlight: Strategy) -> Self {
        let strategies = Strategy::ALL.map(|strategy| StrategyReport {
            strategy,
            bytes_per_param: setup.bytes_per_param(strategy),
            memory: setup.per_gpu_memory(strategy),
            step: StepMemory::of(&setup.per_gpu_memory(strategy), None),
            fits: false,
            headroom: Bytes::ZERO,
            max_params: ParamCount::new(0.0),
            beside_states: Bytes::ZERO,
            fewest_gpus: None,
            max_micro_batch: None,
            beyond: BeyondGpu::NOTHING,
            rank: None,
            supported: true,
            time: None,
        });
        let mut report = Report {
            setup,
            budget,
            highlight,
            strategies,
            model: None,
            activations: None,
            step: None,
            accumulation_steps: None,
            unit: MemoryUnit::Gb,
            accounting: Accounting::Course,
            fine_tuning: FineTuning::default(),
            layout: None,
            megatron: None,
            training: None,
            machine: None,
        };
        report.place(&Runtime::default(), setup.gpus(), None, &|_| None);
        report
    }

    /// All the GPUs: the data-parallel (ZeRO) group, times TP × PP with a layout.
    pub fn gpus(&self) -> u32 {
        match &self.layout {
            Some(layout) => layout.data_parallel * layout.layout.model_parallel() as u32,
            None => self.setup.gpus(),
        }
    }

    /// The largest trainable model of every strategy (in [`Strategy::ALL`]'s
    /// order) on each of `gpu_counts` GPUs, in the usable memory less what
    /// each strategy holds beside its states
    /// ([`StrategyReport::beside_states`]): the strategy's own bytes per
    /// parameter, changed with N as the lesson's formula shards them. On this
    /// configuration's own GPUs without a layout, each is that strategy's
    /// [`StrategyReport::max_params`], whatever the accounting.
    pub fn scaling(
        &self,
        gpu_counts: impl IntoIterator<Item = u32>,
    ) -> Vec<(u32, [ParamCount; 4])> {
        let recipe = self.setup.recipe();
        let usable = self.budget.usable().get();
        gpu_counts
            .into_iter()
            .map(|gpus| {
                let per_strategy = self.strategies.map(|row| {
                    let own = row.bytes_per_param.total();
                    let lesson =
                        |n| BytesPerParam::of(row.strategy, recipe, self.setup.shard_of(n)).total();
                    let per_param = own * lesson(gpus) / lesson(self.setup.gpus());
                    let room = usable - row.beside_states.get();
                    match per_param > 0.0 {
                        true => ParamCount::new((room / per_param).max(0.0)),
                        // Nothing per parameter on the GPUs: as the table says.
                        false => row.max_params,
                    }
                });
                (gpus, per_strategy)
            })
            .collect()
    }

    /// The figures of `strategy`.
    pub fn strategy(&self, strategy: Strategy) -> &StrategyReport {
        // `strategies` follows Strategy::ALL, whose order is the enum's.
        &self.strategies[strategy as usize]
    }

    /// The highlighted strategy's figures.
    pub fn highlighted(&self) -> &StrategyReport {
        self.strategy(self.highlight)
    }

    /// The strategy with the least memory per GPU that fits, if any does.
    pub fn least_sharding_that_fits(&self) -> Option<Strategy> {
        self.strategies
            .iter()
            .find(|row| row.fits)
            .map(|row| row.strategy)
    }
}

/// The largest model whose per-parameter bytes fit in `room`; when the GPUs
/// hold nothing per parameter (everything offloaded, ZeRO-Infinity), GPU
/// memory no longer bounds the model: if the rest `fits`, the memory offload
/// goes to does (`offloaded`, when its size is given), else nothing does
/// (infinite: [`StrategyReport::largest_model_bound`] says so); none if the
/// rest does not fit.
fn max_params(
    room: Bytes,
    per_param: BytesPerParam,
    fits: bool,
    offloaded: Option<ParamCount>,
) -> ParamCount {
    let per_param = per_param.total();
    ParamCount::new(match (per_param > 0.0, fits) {
        (true, _) => (room.get() / per_param).max(0.0),
        (false, true) => offloaded.map_or(f64::INFINITY, |p| p.get()),
        (false, false) => 0.0,
    })
}

/// What bounds a strategy's largest model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LargestModelBound {
    /// The GPUs' memory: they hold bytes per parameter.
    GpuMemory,
    /// The memory offload goes to (`host_mem`): the GPUs hold nothing per parameter.
    OffloadMemory,
    /// Nothing the configuration gives: the GPUs hold nothing per parameter
    /// and the memory offload goes to is not given (`host_mem`).
    Unbounded,
}

impl LargestModelBound {
    /// Its id in the JSON: `gpu_memory`, `offload_memory`, `none`.
    pub const fn id(self) -> &'static str {
        match self {
            LargestModelBound::GpuMemory => "gpu_memory",
            LargestModelBound::OffloadMemory => "offload_memory",
            LargestModelBound::Unbounded => "none",
        }
    }
}

impl StrategyReport {
    /// What bounds [`max_params`](Self::max_params): the GPUs' memory, the
    /// memory offload goes to, or nothing given (then it is infinite).
    pub fn largest_model_bound(&self) -> LargestModelBound {
        if self.bytes_per_param.total() > 0.0 {
            LargestModelBound::GpuMemory
        } else if self.max_params.get().is_finite() {
            LargestModelBound::OffloadMemory
        } else {
            LargestModelBound::Unbounded
        }
    }
}

/// The fewest GPUs (up to [`Field::Gpus`]' limit) with which `params` parameters
/// of `bytes_per_param(N)` bytes each, plus `fixed` bytes, fit in `budget` on each GPU.
///
/// Every accounting's bytes per parameter have the form `fixed + sharded / N`,
/// so two values give both parts, and N is the smallest whole number with
/// `sharded / N ≤ (usable − fixed bytes) / Ψ − fixed per parameter`.
pub fn fewest_gpus(
    budget: &MemoryBudget,
    params: ParamCount,
    bytes_per_param: impl Fn(u32) -> f64,
    fixed: Bytes,
) -> Option<u32> {
    let (one, two) = (bytes_per_param(1), bytes_per_param(2));
    let shardable = 2.0 * (one - two);
    let unsharded = one - shardable;
    let room = (budget.usable().get() - fixed.get()) / params.get() - unsharded;
    let max = Field::Gpus.limits().map_or(1.0, |l| l.max);
    if room < 0.0 || (room == 0.0 && shardable > 0.0) {
        return None;
    }
    let needed = if shardable <= 0.0 {
        1.0
    } else {
        (shardable / room).ceil().max(1.0)
    };
    // The division may land a hair above a whole number: check the one below.
    let fits_with =
        |n: f64| params.get() * (unsharded + shardable / n) + fixed.get() <= budget.usable().get();
    let needed = if needed > 1.0 && fits_with(needed - 1.0) {
        needed - 1.0
    } else {
        needed
    };
    (needed <= max).then_some(needed as u32)
}

#[cfg(test)]
mod tests;

impl Config {
    /// What the highlighted strategy's process holds beyond its peak, on
    /// this configuration's GPU and in its communicators (the data-parallel
    /// group and each model-parallel group above 1):
    /// [`vram_shared::process`].
    pub fn process_overheads(&self, report: &Report) -> vram_shared::process::ProcessOverheads {
        let layout = self.runtime.layout;
        let data_parallel = report.layout.as_ref().map_or_else(
            || self.gpus.saturating_mul(self.runtime.nodes),
            |l| l.data_parallel,
        );
        let ep = self.model.map_or(1, |m| m.ep);
        vram_shared::process::process_overheads(
            self.gpu,
            &[data_parallel, layout.tp, layout.pp, layout.cp, ep],
            report.highlighted().step.peak().1,
            self.runtime.process,
            (self.runtime.context_gb > 0.0)
                .then(|| vram_shared::units::Bytes::from_gb(self.runtime.context_gb)),
        )
    }

    /// A node's host RAM while its processes load the checkpoint
    /// ([`crate::frameworks::loading`]), read by the loader the layout
    /// implies: a distributed checkpoint under model parallelism, FSDP2's
    /// or DeepSpeed's ZeRO-3 loading for the highlighted ZeRO-3, every rank
    /// otherwise.
    pub fn checkpoint_loading(
        &self,
        report: &Report,
    ) -> crate::frameworks::loading::CheckpointLoading {
        use crate::frameworks::loading::{checkpoint_loading, Loader};
        use crate::frameworks::runtime::Sharding;
        let layout = self.runtime.layout;
        let ep = self.model.map_or(1, |m| m.ep);
        let loader = match (layout.tp * layout.pp * layout.cp * ep > 1, report.highlight) {
            (true, _) => Loader::DistributedCheckpoint,
            (false, Strategy::Zero3) => match self.runtime.sharding {
                Sharding::Fsdp2 => Loader::Fsdp2RamEfficient,
                Sharding::DeepSpeed if self.runtime.zero_init => Loader::Zero3Init,
                Sharding::DeepSpeed => Loader::PerRank,
            },
            (false, _) => Loader::PerRank,
        };
        let params = report.setup.params.get().max(0.0).round() as u64;
        let trainable = report.setup.adapters.map_or(params, |a| a.trainable);
        checkpoint_loading(
            loader,
            params,
            trainable,
            self.gpus,
            self.gpus.saturating_mul(self.runtime.nodes),
            matches!(
                self.precision,
                crate::memory::Precision::Fp32 | crate::memory::Precision::Fp32Pure
            ),
            self.precision.is_mixed(),
        )
    }
}
