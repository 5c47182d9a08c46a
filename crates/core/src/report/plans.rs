//! Ranked plans: every layout of the cluster the page can evaluate, its
//! most loaded GPU's memory and its step time, fastest fitting first.
//!
//! The search runs over tensor parallelism (the divisors of the GPUs per
//! node that divide the heads and KV heads), pipeline stages (the divisors of
//! the layers) with 1, 2 or 4 virtual stages each (interleaved 1F1B, where
//! the microbatches are a multiple of PP as Megatron-LM requires), context
//! parallelism (for sequences of 8,192 tokens or more), sequence parallelism
//! with TP, expert parallelism for a mixture of experts, each strategy
//! (ZeRO-2 and ZeRO-3 only without pipeline stages, as DeepSpeed runs them),
//! recomputation none/selective/full (per layer, or Megatron-LM's block
//! method on ¼, ½ or ¾ of each stage) and offload none/optimizer/all where
//! the strategy allows it; for each, the fastest micro-batch dividing each
//! data-parallel rank's share of the global batch that fits (or the
//! configured one without a global batch). Each plan's figures are the
//! report's for the configuration [`Plan::apply`] gives (tested): the same
//! functions, evaluated on the pipeline ranks that can be the most loaded
//! (the first, the second and the last). With LoRA or QLoRA the model is not
//! split (Megatron-LM's tensor and pipeline parallelism are not modelled with
//! adapters): their plans are each ZeRO stage, recomputation, offload and
//! micro-batch on the data-parallel GPUs.

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::frameworks::deepspeed::Offload;
use crate::memory::activations::stage_activations;
use crate::memory::activations::{
    ActivationMemory, ActivationSetup, Checkpointing, Recompute, RecomputeMethod,
};
use crate::memory::parallel::{stage_params, CpComm, ExpertTp, Layout, StageParams};
use crate::memory::step::{megatron_step_transients, StepMemory};
use crate::memory::Strategy;
use crate::memory::TrainingSetup;
use crate::report::place_with_experts;
use crate::time::{step_time, Rerun, StepTime, StepWork};
use vram_shared::units::{Bytes, ParamCount};

/// One evaluated layout.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// TP, PP, VPP, CP, SP.
    pub layout: Layout,
    /// Expert-parallel ranks.
    pub ep: u32,
    /// Data-parallel degree.
    pub dp: u32,
    /// The strategy over DP × CP.
    pub strategy: Strategy,
    /// Recomputation.
    pub recompute: Recompute,
    /// Which layers full recomputation checkpoints: every one, or Megatron-LM's
    /// block method on part of each stage.
    pub checkpointing: Checkpointing,
    /// What is offloaded.
    pub offload: Offload,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Microbatches per step on each pipeline.
    pub microbatches: u32,
    /// The pipeline rank of the most loaded GPU.
    pub rank: u32,
    /// The peak of the step on that GPU.
    pub peak: Bytes,
    /// Whether it fits in the usable memory.
    pub fits: bool,
    /// The step's time, when the GPU's peak is known.
    pub time: Option<StepTime>,
}

impl Plan {
    /// The step's seconds (infinite without a known peak).
    pub fn step_seconds(&self) -> f64 {
        self.time.map_or(f64::INFINITY, |t| t.step_seconds)
    }

    /// Tokens trained per second on each GPU (0 without a known time): what
    /// plans are ranked by. Without a global batch each plan's step trains
    /// its own DP × micro-batch sequences, so its step time says nothing of
    /// its speed (issue 47: the "fastest" plan trained half the tokens per
    /// second of one ranked below it); with one, every plan trains the same
    /// sequences a step and this orders them as their step times do.
    pub fn tokens_per_second_per_gpu(&self) -> f64 {
        self.time.map_or(0.0, |t| t.tokens_per_second_per_gpu)
    }

    /// `config` with this plan's layout, strategy, recomputation, offload and
    /// micro-batch: the configuration whose report shows this plan.
    pub fn apply(&self, config: &Config) -> Config {
        self.choice().apply(config)
    }

    /// What the plan chose, without its figures.
    fn choice(&self) -> Choice {
        Choice {
            layout: self.layout,
            ep: self.ep,
            strategy: self.strategy,
            offload: self.offload,
            recompute: self.recompute,
            checkpointing: self.checkpointing,
            micro_batch: self.micro_batch,
        }
    }
}

/// The choices a plan makes, before it is evaluated.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Choice {
    layout: Layout,
    ep: u32,
    strategy: Strategy,
    offload: Offload,
    recompute: Recompute,
    checkpointing: Checkpointing,
    micro_batch: u32,
}

impl Choice {
    /// `config` with these choices ([`Plan::apply`]).
    fn apply(&self, config: &Config) -> Config {
        let mut applied = *config;
        applied.runtime.layout = self.layout;
        applied.runtime.offload = self.offload;
        applied.highlight = self.strategy;
        if let Some(model) = &mut applied.model {
            model.recompute = self.recompute;
            model.checkpointing = self.checkpointing;
            model.micro_batch = self.micro_batch;
            model.ep = self.ep;
        }
        applied
    }

    /// Whether the report accepts `config` with these choices: the one
    /// validation, the report's own ([`Config::setup`]), so that no plan is
    /// a configuration its own link would refuse (issue 41: a sharding group
    /// with expert parallelism was ranked, and refused when applied).
    fn accepted(&self, config: &Config) -> bool {
        self.apply(config).setup().is_ok()
    }
}

/// The divisors of `n` up to `limit`, ascending.
fn divisors(n: u32, limit: u32) -> impl DoubleEndedIterator<Item = u32> {
    (1..=limit.min(n)).filter(move |d| n % d == 0)
}

/// The pipeline splits to try for `layers` layers, as `(PP, first, last)`:
/// every PP dividing them, evenly; and each power of two that does not, with
/// Megatron-LM's uneven first and last stages (`--decoder-first/last-
/// pipeline-num-layers`) around stages in between of ⌊layers/PP⌋ or one more,
/// the last one layer lighter or not (its logits), the first within two
/// layers of the others.
fn pipeline_splits(layers: u32) -> Vec<(u32, Option<u32>, Option<u32>)> {
    let mut splits: Vec<_> = divisors(layers, layers).map(|p| (p, None, None)).collect();
    let mut p = 2;
    while p <= layers / 2 {
        if layers % p != 0 {
            let low = layers / p;
            for each in [low, low + 1] {
                let Some(ends) = layers.checked_sub((p - 2) * each) else {
                    continue;
                };
                for last in [each - 1, each] {
                    let first = ends.saturating_sub(last);
                    let split = (p, Some(first), Some(last));
                    if last >= 1 && first >= 1 && first <= each + 2 && !splits.contains(&split) {
                        splits.push(split);
                    }
                }
            }
        }
        p *= 2;
    }
    splits
}

/// Every layout of `world` GPUs, `gpus_per_node` a node, that fits the model
/// and the sequence, with its data-parallel degree: TP within a node, PP
/// dividing the layers or split unevenly ([`pipeline_splits`]), CP for
/// sequences of at least 4,096 × CP tokens, SP with TP (always with TP on a
/// mixture of experts).
fn layouts(
    arch: &vram_shared::model::architecture::Architecture,
    seq: u32,
    world: u32,
    gpus_per_node: u32,
) -> Vec<(Layout, u32)> {
    let mut all = Vec::new();
    for tp in divisors(gpus_per_node, gpus_per_node) {
        for (pp, first_layers, last_layers) in pipeline_splits(arch.layers) {
            for cp in [1, 2, 4, 8] {
                if cp > 1 && seq < 4096 * cp {
                    continue;
                }
                for sp in [false, true] {
                    // Megatron-LM refuses a mixture of experts with TP but
                    // without SP in training (`moe_layer.py`).
                    if arch.moe.is_moe() && tp > 1 && !sp {
                        continue;
                    }
                    // Interleaved 1F1B with 2 or 4 virtual stages where the
                    // layers divide: a smaller bubble for more pipeline sends.
                    for vpp in [1, 2, 4] {
                        if vpp > 1 && pp == 1 {
                            continue;
                        }
                        // Context parallelism as a ring or as Ulysses' all-to-alls;
                        // a mixture's experts split as the layers or whole (ETP = 1).
                        for cp_comm in CpComm::ALL {
                            if cp == 1 && cp_comm != CpComm::Ring {
                                continue;
                            }
                            for expert_tp in ExpertTp::ALL {
                                if expert_tp == ExpertTp::One && (tp == 1 || !arch.moe.is_moe()) {
                                    continue;
                                }
                                let layout = Layout {
                                    tp,
                                    pp,
                                    vpp,
                                    cp,
                                    sp,
                                    first_layers,
                                    last_layers,
                                    cp_comm,
                                    expert_tp,
                                    ..Layout::SINGLE
                                };
                                if layout.validate(arch, seq).is_ok() {
                                    if let Ok(dp) = layout.data_parallel(world) {
                                        all.push((layout, dp));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    all
}

/// The pipeline ranks that can hold the most: the first (most microbatches
/// in flight, the embedding), the second, the first whose layers are all
/// past a mixture of experts' leading dense layers (the earliest, so the
/// most in flight, of the heaviest; uneven stages can put it beyond the
/// second) and the last (the output head).
fn candidate_ranks(
    layout: &Layout,
    arch: &vram_shared::model::architecture::Architecture,
) -> Vec<u32> {
    let pp = layout.pp;
    let dense = arch.dense_layer_count().min(arch.layers.saturating_sub(1));
    let past_dense = layout.rank_of_layer(dense, arch.layers);
    let mut ranks = vec![0];
    for rank in [1, past_dense, past_dense + 1, pp - 1] {
        if rank < pp && !ranks.contains(&rank) {
            ranks.push(rank);
        }
    }
    ranks
}

/// Why a configuration has no plans to rank ([`plans`] is then empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoPlans {
    /// A bare parameter count: layouts divide a model's layers and heads.
    NoModel,
    /// DeepSpeed's estimator or Hugging Face's accounting: neither splits a model.
    Accounting,
    /// The configuration is invalid as it stands.
    Invalid,
}

/// Why `config` has no plans, or `None` when it has some to rank.
pub fn no_plans(config: &Config) -> Option<NoPlans> {
    let Some(model) = config.model else {
        return Some(NoPlans::NoModel);
    };
    if config.runtime.accounting == crate::frameworks::runtime::Accounting::DeepSpeed
        || model.framework == crate::frameworks::hf::Framework::Hf
    {
        return Some(NoPlans::Accounting);
    }
    searched(config).err()
}

/// What the search starts from: the model, the whole model's setup on the
/// data-parallel GPUs, the memory budget and the data-parallel degree.
fn searched(
    config: &Config,
) -> Result<
    (
        crate::config::ModelSpec,
        TrainingSetup,
        crate::memory::MemoryBudget,
        u32,
    ),
    NoPlans,
> {
    let model = config.model.ok_or(NoPlans::NoModel)?;
    let single = Config {
        runtime: crate::frameworks::runtime::Runtime {
            layout: Layout::SINGLE,
            ..config.runtime
        },
        ..*config
    };
    match (single.setup(), config.budget(), config.data_parallel_gpus()) {
        (Ok(whole), Ok(budget), Ok(world)) => Ok((model, whole, budget, world)),
        _ => Err(NoPlans::Invalid),
    }
}

/// At most this many plans are kept, the best; the rest are counted
/// ([`Ranking::found`]). The page shows ten, the CLI's table ten, its JSON
/// every kept one.
pub const KEPT_PLANS: usize = 100;

/// The most evaluations (one pipeline rank's peak for one choice) a search
/// makes, about 0.1 s natively (0.4 µs each). DeepSeek-V3 on 256 × 8 H200s
/// with a global batch takes 62,170 and Llama 3 8B on 128 GPUs with 32K
/// tokens 63,323: every cluster people run is searched whole. Past the
/// budget (a "node" of 55,440 GPUs and a model of as many heads made 44 s of
/// work), the layouts not yet searched are left out and counted
/// ([`Ranking::searched`]), so that the page's tab never freezes.
pub const SEARCH_BUDGET: u64 = 250_000;

/// What a search found: the best plans and how much it saw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ranking {
    /// The best plans, fastest fitting first (then the others by their
    /// peak), at most [`KEPT_PLANS`]; then the configuration's own plan
    /// when it ranks below them.
    pub plans: Vec<Plan>,
    /// Plans found, the kept ones and those past [`KEPT_PLANS`].
    pub found: usize,
    /// Of those, the plans that fit.
    pub fitting: usize,
    /// The layouts of the cluster that fit the model and the sequence.
    pub layouts: usize,
    /// Of those, the layouts searched within [`SEARCH_BUDGET`], the simplest
    /// first: all of them unless the cluster's divisors are very many.
    pub searched: usize,
    /// The evaluations the search made (at most [`SEARCH_BUDGET`] and the
    /// layout it was in when it reached it).
    pub evaluations: u64,
}

impl Ranking {
    /// Whether every layout was searched.
    pub fn is_complete(&self) -> bool {
        self.searched == self.layouts
    }
}

/// Every plan for `config`'s model and cluster, the best [`KEPT_PLANS`]
/// ([`rank`]'s plans).
pub fn plans(config: &Config) -> Vec<Plan> {
    rank(config).plans
}

/// The order layouts are searched in, and of equally fast plans the one
/// kept: powers of two before other sizes, even stages before uneven ones,
/// less model parallelism before more.
fn simplicity(layout: &Layout) -> (u32, bool, u64, u32, u32, u32, u32, bool) {
    let odd = [layout.tp, layout.pp, layout.cp]
        .iter()
        .filter(|d| !d.is_power_of_two())
        .count() as u32;
    let size = u64::from(layout.tp) * u64::from(layout.pp) * u64::from(layout.cp);
    (
        odd,
        layout.is_uneven(),
        size,
        layout.vpp,
        layout.tp,
        layout.pp,
        layout.cp,
        !layout.sp,
    )
}

/// Sorts `plans` best first and keeps one of each equally fast group: the
/// fastest that fit (most tokens per second per GPU,
/// [`Plan::tokens_per_second_per_gpu`]), then the others by their peak; of
/// plans as fast as each other, the one that needs least memory (then the
/// simplest, the one searched first).
fn sort_and_dedup(plans: &mut Vec<Plan>) {
    plans.sort_by(|a, b| {
        b.fits
            .cmp(&a.fits)
            .then(
                b.tokens_per_second_per_gpu()
                    .total_cmp(&a.tokens_per_second_per_gpu()),
            )
            .then(a.peak.get().total_cmp(&b.peak.get()))
    });
    plans.dedup_by(|later, kept| {
        let (later_speed, kept_speed) = (
            later.tokens_per_second_per_gpu(),
            kept.tokens_per_second_per_gpu(),
        );
        later.fits == kept.fits
            && later.time.is_some()
            && (later_speed - kept_speed).abs() <= 1e-9 * kept_speed
    });
}

/// Ranks every plan for `config`'s model and cluster within [`SEARCH_BUDGET`],
/// keeping the best [`KEPT_PLANS`]; no plans without a model, when the
/// configuration is invalid as it stands, or where the page splits nothing
/// (Hugging Face's accounting, DeepSpeed's estimator); with LoRA or QLoRA, the
/// data-parallel plans only.
pub fn rank(config: &Config) -> Ranking {
    if no_plans(config).is_some() {
        return Ranking::default();
    }
    let Ok((model, whole, budget, world)) = searched(config) else {
        return Ranking::default();
    };
    let search = Search {
        config,
        model,
        whole,
        budget,
        machine: config.machine(),
        evaluations: core::cell::Cell::new(0),
    };
    // With adapters the page splits no model (Megatron-LM's tensor and
    // pipeline parallelism are not modelled with them): their plans are the
    // data-parallel ones, each ZeRO stage, recomputation and offload.
    let mut layouts = match config.fine_tuning.method.uses_adapters() {
        true => vec![(Layout::SINGLE, world)],
        false => layouts(&model.architecture, model.seq_len, world, config.gpus),
    };
    layouts.sort_by_key(|(layout, _)| simplicity(layout));
    let mut ranking = Ranking {
        layouts: layouts.len(),
        ..Ranking::default()
    };
    let mut plans = Vec::new();
    // Plans past the kept ones, sorted out as the search goes: the memory
    // stays bounded whatever the cluster. The configuration's own plan is
    // kept wherever it ranks, for the page to mark the one in use.
    let (mut dropped, mut dropped_fitting) = (0, 0);
    let mut own = None;
    let mut drop_past_kept = |plans: &mut Vec<Plan>| {
        sort_and_dedup(plans);
        for plan in plans.drain(KEPT_PLANS.min(plans.len())..) {
            dropped += 1;
            dropped_fitting += usize::from(plan.fits);
            if own.is_none() && plan.apply(config) == *config {
                own = Some(plan);
            }
        }
    };
    for (layout, dp) in layouts {
        if search.evaluations.get() >= SEARCH_BUDGET {
            break;
        }
        ranking.searched += 1;
        search.layout(layout, dp, &mut plans);
        if plans.len() > 4 * KEPT_PLANS {
            drop_past_kept(&mut plans);
        }
    }
    drop_past_kept(&mut plans);
    ranking.found = plans.len() + dropped;
    ranking.fitting = plans.iter().filter(|p| p.fits).count() + dropped_fitting;
    plans.extend(own);
    ranking.plans = plans;
    ranking.evaluations = search.evaluations.get();
    ranking
}

/// What every evaluation shares.
struct Search<'a> {
    config: &'a Config,
    model: crate::config::ModelSpec,
    whole: TrainingSetup,
    budget: crate::memory::MemoryBudget,
    machine: Option<crate::time::Machine>,
    /// Evaluations made so far, against [`SEARCH_BUDGET`].
    evaluations: core::cell::Cell<u64>,
}

impl Search<'_> {
    /// The plans of one layout: for each expert-parallel size, recomputation,
    /// strategy and offload, the fastest micro-batch that fits, the largest
    /// among equally fast (the smallest when none fits).
    fn layout(&self, layout: Layout, dp: u32, plans: &mut Vec<Plan>) {
        let arch = self.model.architecture;
        let group = dp * layout.cp;
        // A sharding group must divide ZeRO's group, as the report requires.
        if self
            .config
            .runtime
            .shard_group
            .is_some_and(|g| group % g != 0)
        {
            return;
        }
        let Some(micro_batches) = self.micro_batches(layout, dp) else {
            return;
        };
        if micro_batches.is_empty() {
            return;
        }
        let ranks = candidate_ranks(&layout, &arch);
        let stages: Vec<_> = ranks
            .iter()
            .map(|&r| stage_params(&arch, &layout, r))
            .collect();
        // EP spans DP × CP, or with ETP = 1 the TP ranks too.
        let span = group * layout.expert_fold();
        let eps: Vec<u32> = match arch.moe.experts {
            0 => vec![1],
            experts => divisors(experts, experts)
                .filter(|e| span % e == 0)
                .collect(),
        };
        for &ep in &eps {
            if self.evaluations.get() >= SEARCH_BUDGET {
                return;
            }
            let candidate = Candidate {
                layout,
                dp,
                group,
                ep,
                ranks: &ranks,
                stages: &stages,
            };
            self.candidate(&candidate, &micro_batches, plans);
        }
    }

    /// Each micro-batch to try with its microbatches per step, largest
    /// first: the divisors (up to 64) of each data-parallel rank's share of
    /// the global batch, or the configured micro-batch without one; `None`
    /// where the layout cannot run the global batch.
    fn micro_batches(&self, layout: Layout, dp: u32) -> Option<Vec<(u32, u32)>> {
        // Megatron-LM's interleaved schedule needs the microbatches to be a
        // multiple of PP (`schedules.py`); without a global batch there is one.
        let interleaved_runs = |m: u32| layout.vpp == 1 || m % layout.pp == 0;
        match self.config.global_batch {
            Some(global) if global % dp == 0 => {
                let share = global / dp;
                Some(
                    divisors(share, 64)
                        .rev()
                        .map(|b| (b, share / b))
                        .filter(|&(_, m)| interleaved_runs(m))
                        .collect(),
                )
            }
            Some(_) => None,
            None if layout.vpp > 1 => None,
            None => Some(vec![(self.model.micro_batch, 1)]),
        }
    }

    /// The recomputations to try on `layout`: each kind per layer, and
    /// Megatron-LM's block method on part of each stage.
    fn recomputes(&self, layout: Layout) -> Vec<(Recompute, Checkpointing)> {
        // With FlashAttention selective recomputation keeps what none
        // does. Full recomputation checkpoints every layer, or (Megatron-LM's
        // block method) a quarter, half or three quarters of each stage's,
        // storing the rest: less recomputation where memory allows.
        let chunk = layout.largest_chunk(self.model.architecture.layers);
        let mut recomputes: Vec<(Recompute, Checkpointing)> = Recompute::ALL
            .into_iter()
            .filter(|&r| !(self.model.flash_attention && r == Recompute::Selective))
            .map(|r| (r, Checkpointing::EVERY_LAYER))
            .collect();
        for quarters in 1..4 {
            let layers = chunk * quarters / 4;
            let block = Checkpointing {
                method: RecomputeMethod::Block,
                layers,
            };
            if layers > 0 && layers < chunk && !recomputes.contains(&(Recompute::Full, block)) {
                recomputes.push((Recompute::Full, block));
            }
        }
        recomputes
    }

    /// Whether the report accepts the candidate with each offload of
    /// [`Offload::ALL`], in its order.
    fn offloads_accepted(&self, candidate: &Candidate, micro_batch: u32) -> Vec<bool> {
        Offload::ALL
            .iter()
            .map(|&offload| {
                Choice {
                    layout: candidate.layout,
                    ep: candidate.ep,
                    strategy: Strategy::Ddp,
                    offload,
                    recompute: Recompute::None,
                    checkpointing: Checkpointing::EVERY_LAYER,
                    micro_batch,
                }
                .accepted(self.config)
            })
            .collect()
    }

    /// The plans of one layout at one expert-parallel size: for each
    /// recomputation, strategy and offload, the fastest of `micro_batches`
    /// (each with its microbatches per step) that fits.
    fn candidate(
        &self,
        candidate: &Candidate,
        micro_batches: &[(u32, u32)],
        plans: &mut Vec<Plan>,
    ) {
        let combos =
            strategy_offloads(candidate.layout, candidate.ep, self.config.runtime.sharding);
        let recomputes = self.recomputes(candidate.layout);
        let offload_accepted = self.offloads_accepted(candidate, micro_batches[0].0);
        for (recompute, checkpointing) in recomputes {
            let mut found: Vec<Option<Plan>> = vec![None; combos.len()];
            // A choice the report refuses is never ranked: checked once
            // per offload (the report's rules look at the layout, EP and
            // offload; the strategy shown and the recomputation the
            // search builds within a chunk change nothing they check).
            let accepted: Vec<bool> = combos
                .iter()
                .map(|&(_, offload)| {
                    let at = Offload::ALL.iter().position(|&o| o == offload).unwrap_or(0);
                    offload_accepted[at]
                })
                .collect();
            for (i, &(micro_batch, microbatches)) in micro_batches.iter().enumerate() {
                let last = i + 1 == micro_batches.len();
                let shape = self.shape(
                    candidate,
                    recompute,
                    checkpointing,
                    micro_batch,
                    microbatches,
                );
                for ((slot, &(strategy, offload)), _) in found
                    .iter_mut()
                    .zip(&combos)
                    .zip(&accepted)
                    .filter(|(_, &accepted)| accepted)
                {
                    // Without a fitting one, the smallest micro-batch
                    // shows how close it comes.
                    let shown_unfitting = last && slot.is_none();
                    let Some(plan) =
                        self.plan(candidate, &shape, strategy, offload, shown_unfitting)
                    else {
                        continue;
                    };
                    // Every micro-batch that fits is tried and the fastest
                    // kept (the largest among equals): with PP a smaller
                    // one means more microbatches and a smaller bubble.
                    let better = match slot {
                        None => true,
                        Some(kept) => {
                            !kept.fits
                                || plan.tokens_per_second_per_gpu()
                                    > kept.tokens_per_second_per_gpu()
                        }
                    };
                    if better {
                        *slot = Some(plan);
                    }
                }
            }
            plans.extend(found.into_iter().flatten());
        }
    }

    /// A micro-batch under one recomputation and what each candidate rank
    /// keeps of its activations.
    fn shape(
        &self,
        candidate: &Candidate,
        recompute: Recompute,
        checkpointing: Checkpointing,
        micro_batch: u32,
        microbatches: u32,
    ) -> Shape {
        let arch = self.model.architecture;
        let layout = candidate.layout;
        let setup = ActivationSetup {
            micro_batch,
            recompute,
            checkpointing,
            ..self.model.activation_setup(&self.whole)
        };
        let in_flight = self.config.global_batch.map(|_| microbatches);
        // LoRA's adapters keep their own inputs, as the report adds them
        // (`report::place`).
        let adapters = self.whole.adapters();
        let kept: Vec<_> = candidate
            .ranks
            .iter()
            .map(|&r| {
                let mut kept = stage_activations(&arch, &setup, &layout, r, in_flight);
                if let Some(adapters) = adapters {
                    kept.adapters = adapters.activations(&arch, &setup);
                    kept.total = kept.total + kept.adapters;
                    kept.at_loss = kept.at_loss + kept.adapters;
                    kept.rebuilding = kept.rebuilding.map(|r| r + kept.adapters);
                }
                kept
            })
            .collect();
        Shape {
            recompute,
            checkpointing,
            micro_batch,
            microbatches,
            setup,
            kept,
        }
    }

    /// The plan of one strategy and offload for the candidate and shape,
    /// on its most loaded rank; `None` when it does not fit, unless
    /// `shown_unfitting`.
    fn plan(
        &self,
        candidate: &Candidate,
        shape: &Shape,
        strategy: Strategy,
        offload: Offload,
        shown_unfitting: bool,
    ) -> Option<Plan> {
        let arch = self.model.architecture;
        let Candidate {
            layout,
            dp,
            group,
            ep,
            ..
        } = *candidate;
        let runtime = crate::frameworks::runtime::Runtime {
            offload,
            layout,
            ..self.config.runtime
        };
        let (rank, peak, params_on_gpu, expert_params_on_gpu) =
            self.most_loaded(candidate, shape, &runtime, strategy)?;
        // Unsplit, the GPU holds the whole setup's parameters, as the
        // report counts them (with adapters: the base and the adapters).
        let params_on_gpu = match layout == Layout::SINGLE {
            true => self.whole.params().get(),
            false => params_on_gpu,
        };
        let fits = self.budget.fits(peak);
        if !(fits || shown_unfitting) {
            return None;
        }
        let work = StepWork {
            arch: &arch,
            layout,
            dp,
            microbatches: shape.microbatches,
            micro_batch: shape.micro_batch,
            seq_len: self.model.seq_len,
            rerun: Rerun::of(&arch, &shape.setup, layout.largest_chunk(arch.layers)),
            activation_bytes: shape.setup.bytes_per_value,
            attention: self.config.attention_kernel(&self.model),
            strategy,
            ep,
            params_on_gpu,
            expert_params_on_gpu,
            gradient_bytes: runtime.reduced_gradient_bytes(&self.whole, strategy),
            weight_bytes: self.whole.gathered_weight_bytes(),
            offload_bytes_per_param: 0.0,
            speed: self.config.speed,
            trainable_fraction: self
                .whole
                .adapters()
                .map_or(1.0, |a| a.trainable as f64 / self.whole.params().get()),
            shard_gpus: self.whole.shard_of(group),
        };
        let work = StepWork {
            offload_bytes_per_param: crate::time::offload_bytes_per_param(&work, offload),
            ..work
        };
        Some(Plan {
            layout,
            ep,
            dp,
            strategy,
            recompute: shape.recompute,
            checkpointing: shape.checkpointing,
            offload,
            micro_batch: shape.micro_batch,
            microbatches: shape.microbatches,
            rank,
            peak,
            fits,
            time: self.machine.map(|machine| step_time(&work, &machine)),
        })
    }

    /// The most loaded of the candidate ranks under `runtime` and
    /// `strategy` (counted as evaluations): its rank, its step's peak, and
    /// its stage's parameters and routed experts' parameters.
    fn most_loaded(
        &self,
        candidate: &Candidate,
        shape: &Shape,
        runtime: &crate::frameworks::runtime::Runtime,
        strategy: Strategy,
    ) -> Option<(u32, Bytes, f64, f64)> {
        let ranks = candidate.ranks;
        let mut most: Option<(u32, Bytes, f64, f64)> = None;
        self.evaluations
            .set(self.evaluations.get() + ranks.len() as u64);
        for ((&rank, stage), kept) in ranks.iter().zip(candidate.stages).zip(&shape.kept) {
            let peak = self.rank_peak(candidate, stage, kept, runtime, strategy);
            if most.is_none_or(|(_, p, _, _)| peak.get() > p.get()) {
                most = Some((rank, peak, stage.params as f64, stage.routed_experts as f64));
            }
        }
        most
    }

    /// The step's peak on a rank whose stage is `stage` and whose kept
    /// activations are `kept`, bytes: its states as the report places
    /// them, its activations, QLoRA's working weight and the step's
    /// transients.
    fn rank_peak(
        &self,
        candidate: &Candidate,
        stage: &StageParams,
        kept: &ActivationMemory,
        runtime: &crate::frameworks::runtime::Runtime,
        strategy: Strategy,
    ) -> Bytes {
        let arch = self.model.architecture;
        let Candidate {
            layout, group, ep, ..
        } = *candidate;
        let adapters = self.whole.adapters();
        // Unsplit, the whole setup's parameters, as the report
        // places them (QLoRA's count keeps what bitsandbytes
        // leaves unquantised).
        let params = match layout == Layout::SINGLE {
            true => self.whole.params(),
            false => ParamCount::new(stage.params as f64),
        };
        let shard = TrainingSetup {
            params,
            gpus: group,
            ..self.whole
        };
        let largest = Some(runtime.gathered_unit(&arch, ep));
        let gpus_per_node = self.config.gpus;
        let placement = match ep {
            1 => runtime.place(&shard, strategy, gpus_per_node, largest),
            ep => place_with_experts(
                runtime,
                &shard,
                strategy,
                gpus_per_node,
                largest,
                stage.routed_experts as f64,
                ep,
                layout.expert_fold(),
            ),
        };
        // Under DeepSpeed's ZeRO-3 in FP8 TE's saved FP8
        // weights are kept for the backward too (`report::place`).
        let saved = crate::memory::step::fp8_saved_weights(
            strategy,
            shard.recipe(),
            runtime.sharding == crate::frameworks::runtime::Sharding::Fsdp2,
            (shard.params().get() - stage.routed_experts as f64 * (1.0 - 1.0 / f64::from(ep)))
                * shard.linear_share,
        );
        let activations = Bytes::new(kept.total.get() + saved.get());
        let mut memory = placement.gpu;
        memory.activations = activations;
        memory.total = memory.total + activations;
        // QLoRA's dequantised weight, on every GPU (`report::place`).
        let working = Bytes::new(adapters.map_or(0, |a| a.working_bytes) as f64);
        memory.buffers = memory.buffers + working;
        memory.total = memory.total + working;
        let transients = megatron_step_transients(kept);
        StepMemory::of(&memory, Some(&transients)).peak().1
    }
}

/// One layout at one expert-parallel size, as the search evaluates it.
struct Candidate<'a> {
    /// TP, PP, VPP, CP, SP.
    layout: Layout,
    /// Data-parallel degree.
    dp: u32,
    /// ZeRO's group: DP × CP.
    group: u32,
    /// Expert-parallel ranks.
    ep: u32,
    /// The pipeline ranks that can be the most loaded.
    ranks: &'a [u32],
    /// Their stages' parameters, in the same order.
    stages: &'a [StageParams],
}

/// A micro-batch under one recomputation, with what each candidate rank keeps.
struct Shape {
    recompute: Recompute,
    checkpointing: Checkpointing,
    /// Sequences per micro-batch.
    micro_batch: u32,
    /// Microbatches per step on each pipeline.
    microbatches: u32,
    /// The activations' setup.
    setup: ActivationSetup,
    /// Activations each candidate rank keeps, in the order of its ranks.
    kept: Vec<ActivationMemory>,
}

/// The strategies and offloads to try with `layout` at `ep` under
/// `sharding`: with pipeline stages only what runs beside them
/// ([`crate::report::place::runs_with_pipeline`]: FSDP2's ZeRO-3, without
/// offload), each offload the strategy allows (none with expert
/// parallelism).
fn strategy_offloads(
    layout: Layout,
    ep: u32,
    sharding: crate::frameworks::runtime::Sharding,
) -> Vec<(Strategy, Offload)> {
    Strategy::ALL
        .into_iter()
        .filter(|&s| crate::report::place::runs_with_pipeline(s, layout.pp, sharding))
        .flat_map(|s| {
            Offload::ALL
                .into_iter()
                .filter(move |&o| {
                    o.under(s) == o
                        && (ep == 1 || o == Offload::None)
                        && (layout.pp == 1 || o == Offload::None || !matches!(s, Strategy::Zero3))
                })
                .map(move |o| (s, o))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::link::decode;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// FSDP2's ZeRO-3 is ranked beside pipeline stages (torch's schedules
    /// run it), without offload; DeepSpeed's ZeRO-2 and ZeRO-3 are not.
    #[wasm_bindgen_test(unsupported = test)]
    fn fsdp2_zero3_is_ranked_beside_pipeline_stages() {
        let base = "v=3&model=llama3.1-70b&gpu=h100-80gb&gpus=8&nodes=2&dtype=bf16&pp=2&stage=3";
        let (_, fsdp2) = plans_of(&format!("{base}&sharding=fsdp2"));
        let piped = |p: &&Plan| p.layout.pp > 1 && p.strategy == Strategy::Zero3;
        assert!(fsdp2.iter().any(|p| piped(&p)));
        assert!(fsdp2
            .iter()
            .filter(piped)
            .all(|p| p.offload == Offload::None));
        let (_, deepspeed) = plans_of(base);
        assert!(!deepspeed
            .iter()
            .any(|p| p.layout.pp > 1 && matches!(p.strategy, Strategy::Zero2 | Strategy::Zero3)));
    }

    /// The configuration a link's `query` decodes to, and its plans.
    fn plans_of(query: &str) -> (Config, Vec<Plan>) {
        let config = decode(query).config;
        let all = plans(&config);
        (config, all)
    }

    /// The plans of `config` that fit, in their rank.
    fn fitting_plans(config: &Config) -> Vec<Plan> {
        plans(config).into_iter().filter(|p| p.fits).collect()
    }

    /// Asserts that `report`, of the configuration `plan` applies, shows the
    /// plan's figures on its highlighted row: the same peak, the same step
    /// time; `case` names what is checked.
    fn assert_reports_the_plan(report: &crate::report::Report, plan: &Plan, case: &str) {
        let row = report.highlighted();
        assert_eq!(row.step.peak().1, plan.peak, "{case} {plan:?}");
        assert_eq!(row.time, plan.time, "{case} {plan:?}");
    }

    /// Each plan's figures are those of the report of the configuration it
    /// applies: the same peak on the same rank, the same step time.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_plan_is_what_its_configuration_reports() {
        for query in [
            "model=llama2-70b&gpu=a100-80gb&gpus=8&seq=2048&global_batch=64",
            "model=llama3-8b&gpu=h100-80gb&gpus=8&nodes=2&seq=8192&global_batch=128",
            "model=mixtral-8x7b&gpu=h100-80gb&gpus=8&nodes=2&seq=4096&global_batch=256",
            "model=deepseek-v3&gpu=h200&gpus=8&nodes=32&seq=4096&global_batch=512",
            "model=llama3-8b&gpu=h100-80gb&gpus=8&nodes=2&seq=8192&global_batch=128&dtype=fp8",
            "model=qwen3-32b&gpu=rtx4090&gpus=4&method=lora&dtype=bf16&global_batch=16",
            "model=llama3-8b&gpu=h100-80gb&gpus=8&nodes=2&dtype=bf16&sharding=fsdp2&stage=3",
            "model=llama2-70b&gpu=a100-80gb&gpus=8&method=qlora&dtype=bf16&seq=4096",
        ] {
            let (config, all) = plans_of(query);
            assert!(!all.is_empty(), "{query}");
            for plan in all.iter().take(12).chain(all.iter().rev().take(3)) {
                let applied = plan.apply(&config);
                let report = applied.report().unwrap();
                assert_reports_the_plan(&report, plan, query);
                let row = report.highlighted();
                assert_eq!(row.fits, plan.fits, "{query} {plan:?}");
                assert_eq!(row.rank.unwrap_or(0), plan.rank, "{query} {plan:?}");
            }
        }
    }

    /// Issue 41, failure 2: a plan is a configuration the report accepts. A
    /// sharding group does not go with expert parallelism, so Mixtral on two
    /// nodes with an 8-GPU sharding group ranks no plan with EP (101 of 159
    /// plans were such), and every plan's own link decodes without a
    /// problem to the plan's figures.
    #[wasm_bindgen_test(unsupported = test)]
    fn every_plan_is_a_configuration_the_report_accepts() {
        for query in [
            "model=mixtral-8x7b&gpus=8&nodes=2&shard_group=8&gpu=h100-80gb",
            "model=mixtral-8x7b&gpus=8&nodes=2&shard_group=8&gpu=h100-80gb&global_batch=64",
            "model=deepseek-v2-lite&gpus=8&nodes=2&offload=optimizer&stage=2&global_batch=32",
        ] {
            let (config, all) = plans_of(query);
            assert!(all.iter().any(|p| p.fits), "{query}");
            for plan in &all {
                let link = crate::input::link::encode(&plan.apply(&config));
                let decoded = decode(&link);
                assert_eq!(decoded.problems, [], "{query}: {plan:?}");
                let report = decoded.config.report().expect("accepted");
                assert_reports_the_plan(&report, plan, query);
            }
        }
    }

    /// Issue 41, failure 3: the search is bounded. A "node" of 55,440 GPUs
    /// and a model with as many heads has 5,354 layouts (44 s and 365,031
    /// plans before): the simplest are searched within the budget, the best
    /// hundred kept and the rest counted. The clusters people run are
    /// searched whole, and keep every plan when they have fewer than a hundred.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_search_is_bounded_and_says_so() {
        let wide = decode(
            "model=llama2-7b&gpus=55440&heads=55440&kv_heads=55440&hidden=110880&ffn=1000\
             &layers=720&vocab=1000&global_batch=55440",
        )
        .config;
        let ranking = rank(&wide);
        assert!(!ranking.is_complete(), "{} layouts", ranking.layouts);
        assert!(ranking.searched > 100 && ranking.searched < ranking.layouts);
        // At most one expert-parallel size's choices past the budget.
        assert!(
            ranking.evaluations < SEARCH_BUDGET + 20_000,
            "{}",
            ranking.evaluations
        );
        assert!((KEPT_PLANS..=KEPT_PLANS + 1).contains(&ranking.plans.len()));
        assert!(ranking.found > KEPT_PLANS && ranking.fitting <= ranking.found);
        assert!(ranking.plans.windows(2).all(|w| w[0].fits >= w[1].fits));
        for plan in ranking.plans.iter().take(5) {
            assert!(plan.apply(&wide).report().is_ok(), "{plan:?}");
        }
        let deepseek =
            decode("model=deepseek-v3&gpu=h200&gpus=8&nodes=256&seq=4096&global_batch=4096").config;
        let ranking = rank(&deepseek);
        assert!(ranking.is_complete() && ranking.evaluations < SEARCH_BUDGET / 2);
        assert!((KEPT_PLANS..=KEPT_PLANS + 1).contains(&ranking.plans.len()));
        assert!(ranking.found > KEPT_PLANS);
        let small = rank(&decode("model=mixtral-8x7b&gpus=8&shard_group=8").config);
        assert!(small.is_complete() && small.found == small.plans.len());
    }

    /// Issue 28, item 9: a model whose layers no power of two divides gets
    /// pipeline sizes with Megatron-LM's uneven first and last stages.
    /// DeepSeek-V3's 61 layers: PP 2, 4, 8 and 16 exist only unevenly
    /// (e.g. 16 + 2 × 15 + 15 on PP 4); the split candidates are valid
    /// Megatron-LM layouts, and the fastest uneven plans report as planned.
    #[wasm_bindgen_test(unsupported = test)]
    fn plans_split_awkward_layer_counts_unevenly() {
        let splits = pipeline_splits(61);
        assert!(splits.contains(&(4, Some(16), Some(15))), "{splits:?}");
        assert!(splits
            .iter()
            .all(|&(p, ..)| p == 1 || p == 61 || p.is_power_of_two()));
        for &(pp, first_layers, last_layers) in &splits {
            let layout = Layout {
                pp,
                first_layers,
                last_layers,
                ..Layout::SINGLE
            };
            let arch = vram_shared::model::presets::model_preset("deepseek-v3")
                .unwrap()
                .architecture;
            assert_eq!(layout.validate(&arch, 4096), Ok(()), "{layout:?}");
        }
        // 80 layers divide by every PP the search tries: nothing uneven.
        assert!(pipeline_splits(80).iter().all(|s| s.1.is_none()));
        let query = "model=deepseek-v3&gpu=h200&gpus=8&nodes=32&seq=4096&global_batch=512";
        let (config, all) = plans_of(query);
        let uneven: Vec<_> = all.iter().filter(|p| p.layout.is_uneven()).collect();
        assert!(uneven.iter().any(|p| p.fits), "{} plans", all.len());
        for plan in uneven.iter().take(5) {
            let report = plan.apply(&config).report().unwrap();
            assert_reports_the_plan(&report, plan, query);
        }
    }

    /// Issue 47, item 1: without a global batch each plan's step trains its
    /// own DP × micro-batch sequences, so the plans are ranked by tokens per
    /// second per GPU, not by step time: ranked by step time, Mixtral's and
    /// DeepSeek-V3's first plans trained half the tokens a second of plans
    /// below them. With a global batch both orders agree.
    #[wasm_bindgen_test(unsupported = test)]
    fn plans_are_ranked_by_throughput_not_step_time() {
        for query in [
            "model=mixtral-8x7b&gpu=h100-80gb&gpus=8&nodes=2&seq=4096",
            "model=deepseek-v3&gpu=h200&gpus=8&nodes=32&seq=4096",
            "model=llama2-70b&gpu=a100-80gb&gpus=8&seq=2048&recompute=full",
        ] {
            let fitting = fitting_plans(&decode(query).config);
            assert!(fitting.len() > 3, "{query}: {} fit", fitting.len());
            for pair in fitting.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                assert!(
                    a.tokens_per_second_per_gpu() >= b.tokens_per_second_per_gpu(),
                    "{query}: {a:?} ranked before {b:?}"
                );
            }
            let best = fitting[0].tokens_per_second_per_gpu();
            assert!(best > 0.0, "{query}");
            // The shortest step is not the best plan here: it trains fewer
            // sequences a step, not more tokens a second.
            let shortest = fitting
                .iter()
                .min_by(|a, b| a.step_seconds().total_cmp(&b.step_seconds()))
                .unwrap();
            assert!(
                shortest.tokens_per_second_per_gpu() < best,
                "{query}: the shortest step is also the fastest, the case shows nothing"
            );
        }
        // With a global batch every plan trains the same tokens a step.
        let config =
            decode("model=llama3-8b&gpu=h100-80gb&gpus=8&nodes=2&seq=8192&global_batch=128").config;
        let fitting = fitting_plans(&config);
        assert!(fitting
            .windows(2)
            .all(|w| w[0].step_seconds() <= w[1].step_seconds() * (1.0 + 1e-9)));
    }

    /// The lesson's Q6: no ZeRO stage fits 70 B on 8 × A100 80GB alone, some
    /// layouts (with offload) do; fitting plans come first, fastest first.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_lessons_q6_has_plans() {
        let config = decode(
            "model=llama2-70b&gpu=a100-80gb&gpus=8&seq=2048&mbs=1&flash=1&recompute=full&stage=3&global_batch=64",
        )
        .config;
        let report = config.report().unwrap();
        assert!(report.strategies.iter().all(|r| !r.fits));
        let all = plans(&config);
        let fitting: Vec<_> = all.iter().filter(|p| p.fits).collect();
        assert!(!fitting.is_empty());
        assert!(fitting.iter().all(|p| p.offload != Offload::None));
        assert!(fitting
            .windows(2)
            .all(|w| w[0].step_seconds() <= w[1].step_seconds()));
        assert!(all.iter().skip(fitting.len()).all(|p| !p.fits));
    }

    /// Partial recomputation (issue 28): Megatron-LM's block method is
    /// searched beside per-layer checkpointing. For the lesson's Q6 70B on
    /// eight A100s the fastest plan that recomputes at all recomputes part of
    /// each stage, faster than the fastest that checkpoints every layer, and
    /// its report agrees.
    #[wasm_bindgen_test(unsupported = test)]
    fn plans_recompute_only_part_of_each_stage_where_that_is_faster() {
        let (config, all) = plans_of(
            "model=llama2-70b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1\
             &recompute=full&stage=3&global_batch=64",
        );
        let first = *all
            .iter()
            .find(|p| p.recompute == Recompute::Full)
            .expect("plans with recomputation");
        assert!(first.fits);
        let chunk = first.layout.largest_chunk(80);
        assert_eq!(first.checkpointing.method, RecomputeMethod::Block);
        assert!(first.checkpointing.layers < chunk, "{first:?}");
        // The same plan checkpointing every layer fits too, and is slower.
        let mut every = first.apply(&config);
        if let Some(model) = &mut every.model {
            model.checkpointing = Checkpointing::EVERY_LAYER;
        }
        let every = every.report().expect("valid");
        let every = every.strategy(first.strategy);
        assert!(every.fits);
        assert!(first.step_seconds() < every.time.unwrap().step_seconds);
        let report = first.apply(&config).report().expect("valid");
        let row = report.strategy(first.strategy);
        assert_eq!(row.time.unwrap().step_seconds, first.step_seconds());
    }

    /// Issue 28, item 9: interleaved 1F1B is searched (2 and 4 virtual
    /// stages), only with microbatches a multiple of PP as Megatron-LM's
    /// `schedules.py` requires; beside the same plan without it, its bubble
    /// is smaller, and its report agrees.
    #[wasm_bindgen_test(unsupported = test)]
    fn plans_interleave_virtual_stages_where_megatron_allows() {
        let (config, all) = plans_of(
            "model=llama2-70b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1\
             &recompute=full&stage=1&global_batch=64",
        );
        let interleaved: Vec<_> = all.iter().filter(|p| p.layout.vpp > 1).collect();
        assert!(!interleaved.is_empty());
        let mut compared = 0;
        for plan in &interleaved {
            assert_eq!(plan.microbatches % plan.layout.pp, 0, "{plan:?}");
            let plain = all.iter().find(|p| {
                p.layout
                    == Layout {
                        vpp: 1,
                        ..plan.layout
                    }
                    && (
                        p.strategy,
                        p.recompute,
                        p.checkpointing,
                        p.offload,
                        p.micro_batch,
                    ) == (
                        plan.strategy,
                        plan.recompute,
                        plan.checkpointing,
                        plan.offload,
                        plan.micro_batch,
                    )
            });
            if let (Some(plain), Some(time)) = (plain, plan.time) {
                assert!(time.bubble_seconds < plain.time.unwrap().bubble_seconds);
                compared += 1;
            }
        }
        assert!(compared > 0);
        let first = interleaved[0];
        let report = first.apply(&config).report().expect("valid");
        let row = report.strategy(first.strategy);
        assert_eq!(row.time.unwrap().step_seconds, first.step_seconds());
        assert_eq!(row.step.peak().1, first.peak);
    }

    /// Issue 28, item 9: every micro-batch that fits is tried and the fastest
    /// kept: with PP the smallest (more microbatches, a smaller bubble, where
    /// the largest that fits maximised it); without PP, where the step does
    /// not depend on it, the largest.
    #[wasm_bindgen_test(unsupported = test)]
    fn plans_take_the_fastest_micro_batch_not_the_largest() {
        let (config, all) =
            plans_of("model=llama3-8b&gpu=h100-80gb&gpus=8&seq=4096&global_batch=64");
        let piped: Vec<_> = all.iter().filter(|p| p.fits && p.layout.pp > 1).collect();
        assert!(!piped.is_empty());
        assert!(piped.iter().all(|p| p.micro_batch == 1), "{piped:?}");
        // Without PP no larger micro-batch that fits is faster than the one kept.
        let unpiped: Vec<_> = all.iter().filter(|p| p.fits && p.layout.pp == 1).collect();
        assert!(unpiped.iter().any(|p| p.micro_batch > 1), "{unpiped:?}");
        for plan in unpiped.iter().take(10) {
            let mut larger = plan.apply(&config);
            if let Some(model) = &mut larger.model {
                model.micro_batch = plan.micro_batch * 2;
            }
            if let Ok(report) = larger.report() {
                let row = report.strategy(plan.strategy);
                if row.fits {
                    assert!(plan.step_seconds() <= row.time.unwrap().step_seconds);
                }
            }
        }
        // The fastest is at least as fast as the largest that fits would be.
        for plan in piped.iter().take(5) {
            let mut largest = plan.apply(&config);
            if let Some(model) = &mut largest.model {
                model.micro_batch = 8;
            }
            if let Ok(report) = largest.report() {
                let row = report.strategy(plan.strategy);
                if row.fits {
                    assert!(plan.step_seconds() <= row.time.unwrap().step_seconds);
                }
            }
        }
    }

    /// Issue 28, item 4: Megatron-LM refuses a mixture of experts with TP
    /// but without SP in training, so no plan offers one; dense models keep
    /// both.
    #[wasm_bindgen_test(unsupported = test)]
    fn no_plan_runs_experts_with_tp_but_without_sp() {
        let moe = plans(&decode("model=mixtral-8x7b&gpu=h100-80gb&gpus=8&global_batch=64").config);
        assert!(moe.iter().any(|p| p.layout.tp > 1));
        assert!(
            moe.iter().all(|p| p.layout.tp == 1 || p.layout.sp),
            "{moe:?}"
        );
        let dense = plans(&decode("model=llama2-13b&gpu=h100-80gb&gpus=8&global_batch=64").config);
        assert!(dense.iter().any(|p| p.layout.tp > 1 && !p.layout.sp));
    }

    /// A configuration with no plans says why (issue 25: LoRA showed "0 of 0
    /// plans fit"), and one with plans has no such reason.
    #[wasm_bindgen_test(unsupported = test)]
    fn no_plans_says_why() {
        let why = |query: &str| {
            let config = decode(query).config;
            let reason = no_plans(&config);
            assert_eq!(reason.is_none(), !plans(&config).is_empty(), "{query}");
            reason
        };
        assert_eq!(why("params=70"), Some(NoPlans::NoModel));
        // Issue 47, item 2: LoRA and QLoRA get plans too, unsplit (each ZeRO
        // stage, recomputation and offload).
        assert_eq!(why("model=llama2-7b&method=lora"), None);
        assert_eq!(why("model=llama2-7b&method=qlora"), None);
        let lora = plans(&decode("model=llama2-7b&method=lora&gpus=2").config);
        assert!(lora.iter().all(|p| p.layout == Layout::SINGLE), "{lora:?}");
        assert!(lora.iter().any(|p| p.strategy == Strategy::Zero3));
        assert_eq!(
            why("model=llama2-7b&acct=deepspeed&stage=3"),
            Some(NoPlans::Accounting)
        );
        assert_eq!(why("model=llama2-70b&gpu=a100-80gb&global_batch=64"), None);
    }
}
