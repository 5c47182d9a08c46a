//! Where each strategy's bytes go: the report's placement of the model states,
//! activations and buffers on every rank (GPU, host memory, NVMe), the largest
//! micro-batch that fits, and the step's time.

use super::*;
use crate::frameworks::hf::{Attention, Numerics};
use crate::frameworks::litgpt::{litgpt_activation_memory, litgpt_step_transients};
use crate::frameworks::runtime::Placement;
use crate::memory::finetune::Adapters;

/// How far the peak of the step rises above what is kept, in bytes: the
/// largest moment's difference (none of the frameworks the page follows holds
/// less than what it keeps at every moment).
fn peak_beyond_kept(transients: &StepTransients) -> f64 {
    [
        Some(transients.forward_end),
        Some(transients.backward_start),
        transients.recomputed_layer,
    ]
    .into_iter()
    .flatten()
    .fold(0.0, |most, bytes| bytes.get().max(most))
}

/// The largest `b` from 1 to `most` for which `fits(b)` holds and
/// `fits(b + 1)` does not (or `most`), searched from `guess` by steps that
/// double, then halve; `None` when 1 does not fit. A few evaluations where
/// the guess is right or close.
fn largest_fitting(guess: u32, most: u32, fits: impl Fn(u32) -> bool) -> Option<u32> {
    let guess = guess.clamp(1, most);
    // `low` fits and `high` does not.
    let (mut low, mut high);
    let mut step = 1u32;
    if fits(guess) {
        low = guess;
        loop {
            if low == most {
                return Some(most);
            }
            let next = low.saturating_add(step).min(most);
            if !fits(next) {
                high = next;
                break;
            }
            low = next;
            step = step.saturating_mul(2);
        }
    } else {
        high = guess;
        loop {
            if high == 1 {
                return None;
            }
            let next = high.saturating_sub(step).max(1);
            if fits(next) {
                low = next;
                break;
            }
            high = next;
            step = step.saturating_mul(2);
        }
    }
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        match fits(middle) {
            true => low = middle,
            false => high = middle,
        }
    }
    Some(low)
}

impl Report {
    /// Places every strategy's bytes as `runtime` says, on `gpus_per_node` GPUs per
    /// node, with `model`'s activations on every GPU (they are per GPU, whatever
    /// the sharding), `microbatches(b)` per step on each pipeline with a
    /// micro-batch of `b` sequences, when known. The default runtime gives the
    /// lesson's figures.
    pub(super) fn place(
        &mut self,
        runtime: &Runtime,
        gpus_per_node: u32,
        model: Option<&ModelSpec>,
        microbatches_of: &dyn Fn(u32) -> Option<u32>,
    ) {
        let microbatches = model.and_then(|m| microbatches_of(m.micro_batch));
        let placer = Placer::new(self, runtime, gpus_per_node, model, microbatches_of);
        let stages = placer.stages();
        let (layout, whole, split) = (placer.layout, placer.whole, placer.split);
        for row in &mut self.strategies {
            let strategy = row.strategy;
            let (rank, report) = placer.strategy_report(&stages, strategy);
            *row = report;
            if strategy == self.highlight {
                self.activations = stages[rank].kept;
                self.step = stages[rank].transients;
            }
        }
        self.layout = split.then(|| LayoutReport {
            layout,
            data_parallel: whole.gpus() / layout.cp,
            microbatches,
            stages: stages.iter().filter_map(|s| s.params).collect(),
            across_nodes: layout.tp > gpus_per_node,
        });
        self.model = model.copied();
        self.accounting = runtime.accounting;
    }
}

/// What placing a report's strategies reads ([`Report::place`]): the
/// runtime, the model and its layout, how its activations are counted, and
/// the report's setup and budget.
struct Placer<'a> {
    /// Where the bytes go.
    runtime: &'a Runtime,
    /// GPUs per node.
    gpus_per_node: u32,
    /// The model, when known.
    model: Option<&'a ModelSpec>,
    /// Microbatches per step on each pipeline for a micro-batch of `b`.
    microbatches_of: &'a dyn Fn(u32) -> Option<u32>,
    /// Parameters the ZeRO-3 column gathers at once on a GPU.
    largest: Option<ParamCount>,
    /// Each node's memory for offloaded bytes, when given.
    offload_room: Option<Bytes>,
    /// The model's architecture and its activations' setup.
    step: Option<(Architecture, ActivationSetup)>,
    /// LoRA's or QLoRA's adapters.
    adapters: Option<Adapters>,
    /// Hugging Face's numerics and attention, under its accounting.
    hf: Option<(Numerics, Attention)>,
    /// Under LitGPT's accounting.
    litgpt: bool,
    /// The layout.
    layout: Layout,
    /// QLoRA's dequantised weight, bytes on every GPU.
    working: Bytes,
    /// The report's memory budget.
    budget: MemoryBudget,
    /// The report's setup: the whole model.
    whole: TrainingSetup,
    /// Whether a layout splits the model.
    split: bool,
    /// Expert-parallel ranks (1 without).
    ep: u32,
}

impl<'a> Placer<'a> {
    /// The placing of `report`'s strategies ([`Report::place`]'s arguments).
    fn new(
        report: &Report,
        runtime: &'a Runtime,
        gpus_per_node: u32,
        model: Option<&'a ModelSpec>,
        microbatches_of: &'a dyn Fn(u32) -> Option<u32>,
    ) -> Self {
        let adapters = report.setup.adapters();
        let precision = report.setup.precision();
        let layout = runtime.layout;
        Placer {
            runtime,
            gpus_per_node,
            model,
            microbatches_of,
            largest: model.map(|m| runtime.gathered_unit(&m.architecture, m.ep)),
            offload_room: runtime.host_mem_gb.map(Bytes::from_gb),
            step: model.map(|m| (m.architecture, m.activation_setup(&report.setup))),
            adapters,
            hf: model.filter(|m| m.framework == Framework::Hf).map(|m| {
                (
                    crate::frameworks::hf::numerics_of(precision),
                    m.hf_attention(),
                )
            }),
            litgpt: model.is_some_and(|m| m.framework == Framework::LitGpt),
            layout,
            // QLoRA's dequantised weight is on every GPU, whatever the sharding.
            working: Bytes::new(adapters.map_or(0, |a| a.working_bytes) as f64),
            budget: report.budget,
            whole: report.setup,
            split: !layout.is_default() && model.is_some(),
            ep: model.map_or(1, |m| m.ep),
        }
    }

    /// What rank `rank` keeps of `arch`'s activations for `setup`, bytes:
    /// Hugging Face's measured accounting, or the stage's with its
    /// microbatches in flight, and the adapters' own.
    fn memory_of(
        &self,
        arch: &Architecture,
        setup: &ActivationSetup,
        rank: u32,
    ) -> ActivationMemory {
        if self.litgpt {
            return litgpt_activation_memory(arch, setup, self.adapters.as_ref());
        }
        let mut memory = match self.hf {
            // Hugging Face's accounting has LoRA's own (measured with PEFT).
            Some((numerics, attention)) => {
                let lora = self.adapters.map(HfLora::on_gpu);
                return hf_activation_memory(arch, setup, numerics, attention, lora);
            }
            None => {
                let microbatches = (self.microbatches_of)(setup.micro_batch);
                stage_activations(arch, setup, &self.layout, rank, microbatches)
            }
        };
        if let Some(adapters) = self.adapters {
            memory.adapters = adapters.activations(arch, setup);
            memory.total = memory.total + memory.adapters;
            memory.at_loss = memory.at_loss + memory.adapters;
            memory.rebuilding = memory.rebuilding.map(|r| r + memory.adapters);
        }
        memory
    }

    /// What the step holds beyond the `kept` activations of `arch` for `setup`.
    fn transients_of(
        &self,
        arch: &Architecture,
        setup: &ActivationSetup,
        kept: &ActivationMemory,
    ) -> StepTransients {
        if self.litgpt {
            let earlier_step = !self.model.is_some_and(|m| m.longest_first);
            return litgpt_step_transients(arch, setup, self.adapters.as_ref(), kept, earlier_step);
        }
        match self.hf {
            Some((numerics, attention)) => hf_step_transients(arch, setup, numerics, attention),
            None => megatron_step_transients(kept),
        }
    }

    /// Each pipeline rank: one GPU's parameters, its activations, what its
    /// step holds beyond them, and that for one sequence (activations, and
    /// what the step holds beyond them, grow in proportion to the micro-batch).
    fn stages(&self) -> Vec<Stage> {
        let ranks = if self.model.is_some() {
            self.layout.pp
        } else {
            1
        };
        (0..ranks)
            .map(|rank| {
                let params = self
                    .model
                    .map(|m| stage_params(&m.architecture, &self.layout, rank));
                let kept = self
                    .step
                    .map(|(arch, setup)| self.memory_of(&arch, &setup, rank));
                let transients = self
                    .step
                    .zip(kept.as_ref())
                    .map(|((arch, setup), kept)| self.transients_of(&arch, &setup, kept));
                let per_sequence = self.step.map(|(arch, setup)| {
                    let setup = ActivationSetup {
                        micro_batch: 1,
                        ..setup
                    };
                    let kept = self.memory_of(&arch, &setup, rank);
                    Bytes::new(
                        kept.total.get()
                            + peak_beyond_kept(&self.transients_of(&arch, &setup, &kept)),
                    )
                });
                Stage {
                    params,
                    kept,
                    transients,
                    per_sequence,
                }
            })
            .collect()
    }

    /// Where `strategy`'s bytes live for `setup`: expert parallelism divides
    /// the `routed` experts' parameters (on this GPU) over EP.
    fn place(&self, setup: &TrainingSetup, strategy: Strategy, routed: f64) -> Placement {
        let (runtime, gpus_per_node, largest) = (self.runtime, self.gpus_per_node, self.largest);
        match self.ep {
            1 => runtime.place(setup, strategy, gpus_per_node, largest),
            ep => place_with_experts(
                runtime,
                setup,
                strategy,
                gpus_per_node,
                largest,
                routed,
                ep,
                self.layout.expert_fold(),
            ),
        }
    }

    /// One stage's GPU: its share of the model, of which routed experts'
    /// parameters, and where its bytes live.
    fn placed(&self, stage: &Stage, strategy: Strategy) -> (TrainingSetup, f64, Placement) {
        let whole = self.whole;
        let (setup, routed) = match stage.params.filter(|_| self.split) {
            Some(params) => (
                TrainingSetup {
                    params: ParamCount::new(params.params as f64),
                    ..whole
                },
                params.routed_experts as f64,
            ),
            None => (
                whole,
                self.model
                    .map_or(0.0, |m| m.architecture.routed_expert_params() as f64),
            ),
        };
        (setup, routed, self.place(&setup, strategy, routed))
    }

    /// Under LitGPT's FSDP (the ZeRO-3 column on more than one GPU), the
    /// gradients its flat parameters hold in place of the column's
    /// ([`crate::frameworks::litgpt::fsdp_gradient_bytes`]) and the
    /// parameters it gathers in place of its buffers
    /// ([`crate::frameworks::litgpt::fsdp_gathered_bytes`]): more than one
    /// micro-batch a step (the planned micro-batch's, also while the
    /// largest micro-batch is searched) holds them unsharded.
    fn litgpt_fsdp_gradients(
        &self,
        memory: &mut MemoryBreakdown,
        setup: &TrainingSetup,
        strategy: Strategy,
    ) {
        let (Some(model), Some((_, step))) = (self.model.filter(|_| self.litgpt), self.step) else {
            return;
        };
        let micro_batch = step.micro_batch;
        if strategy != Strategy::Zero3 || setup.gpus() < 2 {
            return;
        }
        let accumulates = (self.microbatches_of)(micro_batch).is_some_and(|m| m > 1);
        let held = crate::frameworks::litgpt::fsdp_gradient_bytes(
            &model.architecture,
            self.adapters.is_some(),
            setup.gpus(),
            accumulates,
        );
        let extra = Bytes::new((held - memory.gradients.get()).max(0.0));
        memory.gradients = memory.gradients + extra;
        memory.total = memory.total + extra;
        // Its gathered parameters in place of the column's buffers.
        let gathered = crate::frameworks::litgpt::fsdp_gathered_bytes(&model.architecture);
        let extra = Bytes::new((gathered - memory.buffers.get()).max(0.0));
        memory.buffers = memory.buffers + extra;
        memory.total = memory.total + extra;
    }

    /// The FP8 weights `strategy` keeps for the backward on `setup`'s GPU,
    /// bytes: the GPU's own linears, EP leaving it 1 ÷ EP of the stage's
    /// `routed` experts.
    fn saved_weights(&self, setup: &TrainingSetup, strategy: Strategy, routed: f64) -> Bytes {
        let here = setup.params().get() - routed * (1.0 - 1.0 / f64::from(self.ep));
        crate::memory::step::fp8_saved_weights(
            strategy,
            setup.recipe(),
            self.runtime.sharding == crate::frameworks::runtime::Sharding::Fsdp2,
            here * setup.linear_share,
        )
    }

    /// `strategy`'s report on its most loaded GPU, the rank whose step peaks
    /// highest of `stages`, and that rank.
    fn strategy_report(&self, stages: &[Stage], strategy: Strategy) -> (usize, StrategyReport) {
        let supported = runs_with_pipeline(strategy, self.layout.pp, self.runtime.sharding);
        // The most loaded GPU: the rank whose step peaks highest.
        let (rank, mut report) = stages
            .iter()
            .enumerate()
            .map(|(i, stage)| (i, self.evaluate(stage, strategy, supported)))
            .fold(
                None,
                |most: Option<(usize, StrategyReport)>, (i, r)| match most {
                    Some((_, m)) if m.step.peak().1.get() >= r.step.peak().1.get() => most,
                    _ => Some((i, r)),
                },
            )
            .expect("at least one rank");
        // The largest micro-batch: every rank's step peak, evaluated as
        // the table evaluates it (the microbatches in flight that
        // micro-batch gives, Hugging Face's measured activations), from
        // the guess until one fits and one more does not. The most loaded
        // rank may change as the micro-batch grows (issue 41).
        report.max_micro_batch = match report.max_micro_batch {
            Some(guess) if supported => self.max_micro_batch(stages, strategy, guess),
            _ => None,
        };
        (rank, report)
    }

    /// `strategy`'s figures on one `stage`'s GPU; `supported` when a
    /// framework runs it with this layout. Its largest micro-batch is the
    /// guess from this rank's bytes per sequence.
    fn evaluate(&self, stage: &Stage, strategy: Strategy, supported: bool) -> StrategyReport {
        let usable = self.budget.usable();
        let (setup, routed, placement) = self.placed(stage, strategy);
        // Kept for the backward: the layers' activations, and under
        // DeepSpeed's ZeRO-3 in FP8 TE's saved FP8 weights.
        let saved = self.saved_weights(&setup, strategy, routed);
        let activation_bytes = stage
            .kept
            .map_or(Bytes::ZERO, |a| Bytes::new(a.total.get() + saved.get()));
        let beyond_kept = stage.transients.as_ref().map_or(0.0, peak_beyond_kept);
        let mut memory = placement.gpu;
        memory.activations = activation_bytes;
        self.litgpt_fsdp_gradients(&mut memory, &setup, strategy);
        memory.buffers = memory.buffers + self.working;
        memory.total = memory.total + activation_bytes + self.working;
        let fixed = placement.fixed + self.working;
        let states = memory.total.get() - activation_bytes.get();
        let step = StepMemory::of(&memory, stage.transients.as_ref());
        let peak = step.peak().1;
        // With a layout, the model's whole count per GPU share.
        let scale = self.whole.params().get() / setup.params().get();
        let per_param = placement.bytes_per_param.total();
        let beside_states = Bytes::new(peak.get() - setup.params().get() * per_param);
        let fits_peak = self.budget.fits(peak);
        StrategyReport {
            strategy,
            bytes_per_param: placement.bytes_per_param,
            memory,
            step,
            fits: supported && fits_peak,
            headroom: Bytes::new(usable.get() - peak.get()),
            max_params: ParamCount::new(
                max_params(
                    Bytes::new(usable.get() - beside_states.get()),
                    placement.bytes_per_param,
                    fits_peak,
                    self.offloadable_params(&setup, &placement),
                )
                .get()
                    * scale,
            ),
            beside_states,
            // A strategy no framework runs with this layout needs no count of GPUs.
            fewest_gpus: supported.then_some(()).and(self.fewest_gpus(
                &setup,
                strategy,
                routed,
                Bytes::new(fixed.get() + activation_bytes.get() + beyond_kept),
            )),
            // Guessed from this rank's bytes per sequence; searched below.
            max_micro_batch: stage.per_sequence.map(|per_sequence| {
                let fitting = ((usable.get() - states) / per_sequence.get()).floor();
                fitting.clamp(1.0, f64::from(u32::MAX)) as u32
            }),
            beyond: placement.beyond,
            rank: self.split.then_some(stage.params.map_or(0, |p| p.rank)),
            supported,
            time: None,
        }
    }

    /// Parameters of `setup`'s share the offload room holds, when given and
    /// `placement` offloads any bytes to the offload device.
    fn offloadable_params(
        &self,
        setup: &TrainingSetup,
        placement: &Placement,
    ) -> Option<ParamCount> {
        self.offload_room.and_then(|room| {
            let beyond = match self.runtime.offload_device {
                OffloadDevice::Cpu => placement.beyond.cpu_per_node,
                OffloadDevice::Nvme => placement.beyond.nvme_per_node,
            };
            // Offloaded bytes on each node per parameter of this share.
            let per_param = beyond.get() / setup.params().get();
            (per_param > 0.0).then(|| ParamCount::new(room.get() / per_param))
        })
    }

    /// The fewest GPUs on which `strategy` fits `setup` (of which `routed`
    /// experts' parameters) beside `fixed` bytes that do not shard, whole
    /// model copies of them; `None` when none fits within the field's limit.
    fn fewest_gpus(
        &self,
        setup: &TrainingSetup,
        strategy: Strategy,
        routed: f64,
        fixed: Bytes,
    ) -> Option<u32> {
        let layout = self.layout;
        let model_parallel = layout.model_parallel() as f64;
        fewest_gpus(
            &self.budget,
            setup.params(),
            |gpus| {
                let setup = TrainingSetup { gpus, ..*setup };
                self.place(&setup, strategy, routed).bytes_per_param.total()
            },
            fixed,
        )
        // Within a sharding group of g, memory stops falling at
        // g, and the GPUs are a multiple of it.
        .and_then(|n| match setup.shard_group {
            Some(g) => (n <= g).then_some(g),
            None => Some(n),
        })
        // A multiple of EP's share of the data-parallel ranks (EP ÷ TP
        // with the experts whole, `etp=1`: EP spans the TP ranks too) and
        // of CP (memory only falls with more), times the GPUs of one model copy.
        .and_then(|n| {
            let fold = layout.expert_fold().max(1);
            let ep_in_dp = match self.ep % fold {
                0 => (self.ep / fold).max(1),
                _ => self.ep,
            };
            n.checked_next_multiple_of(ep_in_dp)
        })
        .and_then(|n| n.checked_next_multiple_of(layout.cp))
        .and_then(|n| {
            let all = f64::from(n) / f64::from(layout.cp) * model_parallel;
            let max = Field::Gpus.limits().map_or(1.0, |l| l.max);
            (all <= max).then_some(all as u32)
        })
    }

    /// The largest micro-batch at which every rank's step fits under
    /// `strategy`, searched from `guess`; `None` without a model, or when
    /// one sequence does not fit.
    fn max_micro_batch(&self, stages: &[Stage], strategy: Strategy, guess: u32) -> Option<u32> {
        let (arch, setup) = self.step?;
        let bases: Vec<(MemoryBreakdown, Bytes)> = stages
            .iter()
            .map(|stage| {
                let (setup, routed, placement) = self.placed(stage, strategy);
                let mut memory = placement.gpu;
                self.litgpt_fsdp_gradients(&mut memory, &setup, strategy);
                memory.buffers = memory.buffers + self.working;
                memory.total = memory.total + self.working;
                (memory, self.saved_weights(&setup, strategy, routed))
            })
            .collect();
        let fits_at = |micro_batch: u32| {
            let setup = ActivationSetup {
                micro_batch,
                ..setup
            };
            bases.iter().enumerate().all(|(rank, (base, saved))| {
                let kept = self.memory_of(&arch, &setup, rank as u32);
                let transients = self.transients_of(&arch, &setup, &kept);
                let mut memory = *base;
                let activations = Bytes::new(kept.total.get() + saved.get());
                memory.activations = activations;
                memory.total = memory.total + activations;
                let peak = StepMemory::of(&memory, Some(&transients)).peak().1;
                self.budget.fits(peak)
            })
        };
        let most = Field::MicroBatch.limits().map_or(1.0, |l| l.max) as u32;
        largest_fitting(guess, most, fits_at)
    }
}

/// Whether `strategy` runs beside `pp` pipeline stages: DeepSpeed's pipeline
/// engine refuses ZeRO-2 and ZeRO-3 (`PipelineEngine` asserts ZeRO below
/// 2); PyTorch's FSDP2 runs the ZeRO-3 column under torch's pipeline
/// schedules (torchtitan), holding each stage whole between its first and
/// last microbatch ([`crate::frameworks::runtime::Runtime::place`]).
pub(crate) fn runs_with_pipeline(
    strategy: Strategy,
    pp: u32,
    sharding: crate::frameworks::runtime::Sharding,
) -> bool {
    use crate::frameworks::runtime::Sharding;
    match strategy {
        _ if pp <= 1 => true,
        Strategy::Ddp | Strategy::Zero1 => true,
        Strategy::Zero2 => false,
        Strategy::Zero3 => sharding == Sharding::Fsdp2,
    }
}
