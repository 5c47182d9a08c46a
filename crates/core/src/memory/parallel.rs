//! Tensor, pipeline, sequence and context parallelism: how Megatron-LM lays a
//! model out over GPUs, what each GPU then holds, and what it keeps for the
//! backward pass.
//!
//! Sources: Shoeybi et al. 2019, "Megatron-LM" (tensor parallelism: column-
//! and row-parallel linear layers, the vocabulary-parallel embedding);
//! Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
//! Clusters" (pipeline stages, 1F1B and its interleaved schedule); Korthikanti
//! et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
//! (sequence parallelism, selective recomputation, Table 2 and §4.2.3 for the
//! pipeline's microbatches in flight); Megatron-LM's modules for what is split
//! and what is replicated (`megatron/core/transformer/`, `tensor_parallel/`).

use serde::{Deserialize, Serialize};

use crate::memory::stage_map::StageMap;
use vram_shared::model::architecture::{Architecture, Biases};
// A layout's rules in words every job shares (serving checks its own
// layouts with them): what a size splits, and what is wrong with it.
pub use vram_shared::layout::{largest_divisor, LayoutProblem, Splits};

/// How the GPUs split the model: the sizes of the tensor-, pipeline- and
/// context-parallel groups, the interleaved stages and sequence parallelism.
/// What is left over is data parallelism, over which ZeRO shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Tensor-parallel size: each layer's matrices split over this many GPUs.
    pub tp: u32,
    /// Pipeline stages: the layers split into this many consecutive groups.
    pub pp: u32,
    /// Virtual stages per pipeline rank (the interleaved 1F1B schedule); 1 without.
    pub vpp: u32,
    /// Context-parallel size: the sequence split over this many GPUs.
    pub cp: u32,
    /// Sequence parallelism: what tensor parallelism leaves whole (norms,
    /// dropout) split along the sequence over the same GPUs.
    pub sp: bool,
    /// The first stage's transformer layers, when set (Megatron-LM's
    /// `--decoder-first-pipeline-num-layers`); the stages in between share
    /// what the first and last leave evenly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_layers: Option<u32>,
    /// The last stage's transformer layers, when set
    /// (`--decoder-last-pipeline-num-layers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_layers: Option<u32>,
    /// The embedding counted as one more layer in the split (Megatron-LM's
    /// `--account-for-embedding-in-pipeline-split`): the first rank's first
    /// virtual stage builds one transformer layer fewer than the others.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub embedding_in_split: bool,
    /// The loss counted as one more layer (Megatron-LM's
    /// `--account-for-loss-in-pipeline-split`): the last rank's last virtual
    /// stage builds one fewer.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub loss_in_split: bool,
    /// Every virtual stage's layers named (`--pipeline-model-parallel-layout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage_map: Option<StageMap>,
    /// How context parallelism exchanges the sequence: a ring of keys and
    /// values, or all-to-alls of the heads (DeepSpeed-Ulysses).
    #[serde(default)]
    pub cp_comm: CpComm,
    /// The routed experts' tensor parallelism: split as the layers are
    /// (ETP = TP), or whole on each GPU with expert parallelism folded over
    /// the TP ranks too (ETP = 1).
    #[serde(default)]
    pub expert_tp: ExpertTp,
}

/// How a mixture's routed experts are split beside tensor parallelism
/// (Megatron-LM's `--expert-tensor-parallel-size`, `megatron/core/
/// parallel_state.py`'s expert grid: world ÷ (ETP × EP × PP) expert-data-
/// parallel ranks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ExpertTp {
    /// ETP = TP (Megatron-LM's default): each expert's matrices split over
    /// the TP ranks, its tokens gathered over them; EP over DP × CP.
    #[default]
    AsTp,
    /// ETP = 1: each expert whole on its GPU, the TP ranks' tokens
    /// dispatched by the all-to-all; EP over TP × CP × DP (MoE recipes' EP
    /// 32 beside TP 2).
    One,
}

impl ExpertTp {
    /// Every choice, in the order the page lists them.
    pub const ALL: [ExpertTp; 2] = [ExpertTp::AsTp, ExpertTp::One];

    /// The value in the shared link's `etp`.
    pub const fn key(self) -> &'static str {
        match self {
            ExpertTp::AsTp => "tp",
            ExpertTp::One => "1",
        }
    }
}

/// How context parallelism's ranks see the whole sequence (Megatron-LM's
/// `--cp-comm-type`, Transformer Engine's `attention/dot_product_attention/
/// context_parallel.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum CpComm {
    /// `p2p`: ring attention, each rank's keys and values passed around the
    /// ring, each hop behind the attention on the chunk before.
    #[default]
    Ring,
    /// `a2a`: Ulysses (DeepSpeed-Ulysses, verl's `ulysses_sequence_parallel_size`):
    /// an all-to-all before the attention trades the sequence split for a
    /// head split (q, k, v), another after it trades back (the output);
    /// the heads on each TP rank must divide among the CP ranks.
    AllToAll,
}

impl CpComm {
    /// Every way, in the order the page lists them.
    pub const ALL: [CpComm; 2] = [CpComm::Ring, CpComm::AllToAll];

    /// Megatron-LM's name, the value in the shared link's `cp_comm`.
    pub const fn key(self) -> &'static str {
        match self {
            CpComm::Ring => "p2p",
            CpComm::AllToAll => "a2a",
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::SINGLE
    }
}

impl Layout {
    /// Every GPU holds the whole model (data parallelism only).
    pub const SINGLE: Layout = Layout {
        tp: 1,
        pp: 1,
        vpp: 1,
        cp: 1,
        sp: false,
        first_layers: None,
        last_layers: None,
        embedding_in_split: false,
        loss_in_split: false,
        stage_map: None,
        cp_comm: CpComm::Ring,
        expert_tp: ExpertTp::AsTp,
    };

    /// Whether every size is its default: [`Layout::SINGLE`], however
    /// context parallelism would exchange (`cp_comm` means nothing at CP 1).
    pub fn is_default(&self) -> bool {
        Layout {
            cp_comm: CpComm::Ring,
            expert_tp: ExpertTp::AsTp,
            ..*self
        } == Layout::SINGLE
    }

    /// The ranks each routed expert's matrices are split over: TP, or 1
    /// with ETP = 1.
    pub const fn expert_tp_size(&self) -> u32 {
        match self.expert_tp {
            ExpertTp::AsTp => self.tp,
            ExpertTp::One => 1,
        }
    }

    /// How many times more ranks expert parallelism spans than DP × CP: TP
    /// with ETP = 1 (it folds over the TP ranks), 1 otherwise.
    pub const fn expert_fold(&self) -> u32 {
        self.tp / self.expert_tp_size()
    }

    /// Whether the layout splits the model at all.
    pub const fn is_single(&self) -> bool {
        self.tp == 1 && self.pp == 1 && self.cp == 1
    }

    /// GPUs that share one copy of the model: TP × PP × CP.
    pub const fn model_parallel(&self) -> u64 {
        self.tp as u64 * self.pp as u64 * self.cp as u64
    }

    /// The data-parallel degree on `world` GPUs: world ÷ (TP × PP × CP), or an
    /// error naming the first size that does not divide.
    pub fn data_parallel(&self, world: u32) -> Result<u32, LayoutError> {
        for (at_fault, size) in [
            (LayoutSize::Tp, self.tp),
            (LayoutSize::Pp, self.pp),
            (LayoutSize::Cp, self.cp),
        ] {
            if world % size != 0 {
                return Err(not_dividing(at_fault, Splits::Gpus(world), size));
            }
        }
        let shared = self.model_parallel();
        if u64::from(world) % shared != 0 {
            // Each divides alone, not together: the outermost size set
            // (CP, then PP, then TP) is named, against the GPUs the others
            // leave it (PP 4 · CP 4 on 8 GPUs: CP must divide the 2 left).
            let (at_fault, size) = [
                (LayoutSize::Cp, self.cp),
                (LayoutSize::Pp, self.pp),
                (LayoutSize::Tp, self.tp),
            ]
            .into_iter()
            .find(|&(_, size)| size > 1)
            .unwrap_or((LayoutSize::Tp, self.tp));
            let others = shared / u64::from(size);
            let left = (u64::from(world) / others.max(1)) as u32;
            return Err(not_dividing(at_fault, Splits::Gpus(left), size));
        }
        Ok((u64::from(world) / shared) as u32)
    }

    /// ZeRO's group: the data-parallel GPUs times the context-parallel ones
    /// (Megatron-LM's distributed optimizer shards over DP × CP).
    pub fn zero_group(&self, world: u32) -> Result<u32, LayoutError> {
        Ok(self.data_parallel(world)? * self.cp)
    }

    /// Checks the layout against the model and the step: TP must divide the
    /// attention heads and the KV heads, the stages split the layers as
    /// Megatron-LM allows ([`Self::validate_split`]), 2 × CP the sequence
    /// (Megatron-LM splits it into 2·CP chunks to balance the causal mask),
    /// and SP needs TP > 1.
    pub fn validate(&self, arch: &Architecture, seq_len: u32) -> Result<(), LayoutError> {
        if arch.heads % self.tp != 0 {
            return Err(not_dividing(
                LayoutSize::Tp,
                Splits::Heads(arch.heads),
                self.tp,
            ));
        }
        if !arch.mla.is_latent() && arch.kv_heads % self.tp != 0 {
            return Err(not_dividing(
                LayoutSize::Tp,
                Splits::KvHeads(arch.kv_heads),
                self.tp,
            ));
        }
        self.validate_split(arch)?;
        if self.cp > 1 && seq_len % (2 * self.cp) != 0 {
            return Err(not_dividing(
                LayoutSize::Cp,
                Splits::Sequence(seq_len),
                self.cp,
            ));
        }
        // Ulysses splits each TP rank's heads, queries' and keys', over CP.
        if self.cp > 1 && self.cp_comm == CpComm::AllToAll {
            let (heads, kv_heads) = (arch.heads / self.tp, arch.kv_heads / self.tp);
            if heads % self.cp != 0 {
                return Err(not_dividing(LayoutSize::Cp, Splits::Heads(heads), self.cp));
            }
            if !arch.mla.is_latent() && kv_heads % self.cp != 0 {
                return Err(not_dividing(
                    LayoutSize::Cp,
                    Splits::KvHeads(kv_heads),
                    self.cp,
                ));
            }
        }
        if self.sp && self.tp == 1 {
            return Err(LayoutSize::Sp.refused(LayoutProblem::NeedsTensorParallel));
        }
        Ok(())
    }

    /// The layers' split over the pipeline's (virtual) stages as Megatron-LM
    /// checks it (`TransformerConfig.__post_init__`, `validate_args`,
    /// `get_num_layers_to_build`; core 0.15 to main, commit d98e8a6): a
    /// pipeline layout names the model's layers in PP × VPP stages
    /// ([`StageMap::check`]); the embedding and loss counted in the split
    /// make L + 1 (+ 1) layers that PP, then VPP on each rank, must divide;
    /// uneven first and last stages leave the stages in between a whole
    /// number each ([`Self::validate_uneven`]); otherwise PP divides the
    /// layers. VPP needs PP > 1 and divides each rank's layers.
    fn validate_split(&self, arch: &Architecture) -> Result<(), LayoutError> {
        let layers = arch.layers;
        let counted = self.counted_layers(layers);
        if let Some(map) = self.stage_map {
            map.check(self.pp, self.vpp, layers, arch.mtp_layers)
                .map_err(|problem| LayoutSize::PpLayout.refused(problem))?;
        } else if self.is_accounted() {
            if counted % self.pp != 0 {
                return Err(not_dividing(
                    LayoutSize::Pp,
                    Splits::CountedLayers(counted),
                    self.pp,
                ));
            }
        } else if self.is_uneven() {
            self.validate_uneven(layers)?;
        } else if layers % self.pp != 0 {
            return Err(match uneven_split(layers, self.pp) {
                Some((first, last)) => LayoutSize::Pp.refused(LayoutProblem::NeedsUnevenStages {
                    layers,
                    largest: largest_divisor(layers, self.pp),
                    first,
                    last,
                }),
                None => not_dividing(LayoutSize::Pp, Splits::Layers(layers), self.pp),
            });
        }
        if self.vpp == 1 {
            return Ok(());
        }
        if self.pp == 1 {
            return Err(LayoutSize::Vpp.refused(LayoutProblem::NeedsPipeline));
        }
        if self.stage_map.is_some() {
            return Ok(());
        }
        if self.is_accounted() {
            let per_rank = counted / self.pp;
            return match per_rank % self.vpp {
                0 => Ok(()),
                _ => Err(not_dividing(
                    LayoutSize::Vpp,
                    Splits::CountedLayers(per_rank),
                    self.vpp,
                )),
            };
        }
        // Every rank's layers split into VPP chunks.
        for rank in 0..self.pp.min(3) {
            let rank = if rank == 2 { self.pp - 1 } else { rank };
            let here = self.stage_layers(rank, layers);
            if here % self.vpp != 0 {
                return Err(not_dividing(
                    LayoutSize::Vpp,
                    Splits::Layers(here),
                    self.vpp,
                ));
            }
        }
        Ok(())
    }

    /// Whether the embedding or the loss is counted as a layer in the split.
    pub const fn is_accounted(&self) -> bool {
        self.embedding_in_split || self.loss_in_split
    }

    /// Whether a rank's virtual stages may hold different numbers of layers:
    /// the embedding or the loss counted in the split, or a pipeline layout.
    /// (Even and uneven first and last stages give each rank's chunks one
    /// size.)
    pub const fn chunks_may_differ(&self) -> bool {
        self.stage_map.is_some() || self.is_accounted()
    }

    /// The layers the split counts: the transformer layers, and the
    /// embedding and the loss each as one where they are counted.
    const fn counted_layers(&self, layers: u32) -> u32 {
        layers + self.embedding_in_split as u32 + self.loss_in_split as u32
    }

    /// The pipeline rank of the multi-token-prediction layers: the last
    /// (Megatron-LM's `mtp_on_this_rank`), or a pipeline layout's `m`.
    pub const fn mtp_rank(&self) -> u32 {
        match self.stage_map {
            Some(map) if map.mtp() > 0 => map.mtp_stage() % self.pp,
            _ => self.pp - 1,
        }
    }

    /// The first layer (from 0) and the layers of virtual stage `chunk` of
    /// pipeline rank `rank`, as Megatron-LM builds them
    /// (`get_transformer_layer_offset` in `transformer_layer.py`,
    /// `get_num_layers_to_build` in `transformer_block.py`; core 0.15 to
    /// main, commit d98e8a6). A pipeline layout: the stage's own, after every
    /// earlier stage's. The embedding or loss counted: N = L + 1 (+ 1)
    /// layers, N ÷ (PP × VPP) per chunk, the rounds N ÷ VPP apart, the
    /// first chunk one fewer with the embedding (every later one starting a
    /// layer earlier), the last one fewer with the loss. Otherwise each rank's
    /// stage ÷ VPP, one chunk per rank in each round ([`Self::chunk_start`]).
    pub fn chunk_span(&self, chunk: u32, rank: u32, layers: u32) -> (u32, u32) {
        if let Some(map) = self.stage_map {
            let stage = chunk * self.pp + rank;
            return (map.offset(stage), map.decoders(stage));
        }
        if self.is_accounted() {
            if self.pp == 1 {
                // One stage builds every layer (Megatron-LM adds the
                // embedding and loss to the count and takes them away again).
                return (0, layers);
            }
            let counted = self.counted_layers(layers);
            let per_chunk = counted / self.pp / self.vpp;
            let first = rank == 0 && chunk == 0;
            let last = rank + 1 == self.pp && chunk + 1 == self.vpp;
            let start = chunk * (counted / self.vpp) + rank * per_chunk;
            let embedding = u32::from(self.embedding_in_split);
            let start = if first { start } else { start - embedding };
            let fewer = u32::from(first) * embedding + u32::from(last && self.loss_in_split);
            return (start, per_chunk.saturating_sub(fewer));
        }
        (
            self.even_chunk_start(chunk, rank, layers),
            self.stage_layers(rank, layers) / self.vpp,
        )
    }

    /// The layers of virtual stage `chunk` of rank `rank`: [`Self::chunk_span`]'s
    /// count, without summing a layout's earlier stages.
    fn chunk_count(&self, chunk: u32, rank: u32, layers: u32) -> u32 {
        match self.stage_map {
            Some(map) => map.decoders(chunk * self.pp + rank),
            None => self.chunk_span(chunk, rank, layers).1,
        }
    }

    /// The layers of each of rank `rank`'s virtual stages, in order.
    pub fn chunk_counts(&self, rank: u32, layers: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.vpp).map(move |c| self.chunk_count(c, rank, layers))
    }

    /// The most of rank `rank`'s model chunks its schedule holds at once,
    /// each chunk counted by how many of its microbatches are in flight at
    /// the moment the held `weight` (a chunk's bytes per microbatch) peaks.
    /// One chunk per rank: 1F1B's min(m, PP − rank). Interleaved: Megatron-
    /// LM's schedule (`schedules.py`, `forward_backward_pipelining_with_
    /// interleaving`): the warm-up's 2 × (PP − rank − 1) + (VPP − 1) × PP
    /// forwards, then each step one forward before one backward, the chunk
    /// of the k-th forward from `get_schedule_table` (groups of PP
    /// microbatches, chunk by chunk) and backwards in the reverse chunk
    /// order; unknown microbatches count the pipeline full.
    pub fn held_chunks(
        &self,
        rank: u32,
        microbatches: Option<u32>,
        weight: impl Fn(u32) -> f64,
    ) -> Vec<u32> {
        let (pp, vpp) = (self.pp, self.vpp);
        if vpp == 1 {
            return vec![microbatches.map_or(pp - rank, |m| m.min(pp - rank))];
        }
        let chunk_of = |k: u32| schedule_chunk(k, pp, vpp, microbatches);
        let total = microbatches.map_or(u32::MAX, |m| m.saturating_mul(vpp));
        let warm_up = (2 * (pp - rank - 1) + (vpp - 1) * pp).min(total);
        let mut counts = vec![0u32; vpp as usize];
        let mut held = 0.0;
        for k in 0..warm_up {
            counts[chunk_of(k) as usize] += 1;
            held += weight(chunk_of(k));
        }
        // The schedule repeats every PP × VPP steps: one period holds the peak.
        let (mut peak, mut at_peak) = (held, counts.clone());
        for j in 0..(total - warm_up).min(pp * vpp) {
            let forward = chunk_of(warm_up + j);
            counts[forward as usize] += 1;
            held += weight(forward);
            if held > peak || j == 0 {
                (peak, at_peak) = (held, counts.clone());
            }
            let backward = vpp - 1 - chunk_of(j);
            counts[backward as usize] = counts[backward as usize].saturating_sub(1);
            held -= weight(backward);
        }
        at_peak
    }

    /// Microbatches in flight on rank `rank`, in whole stages' worth of its
    /// layers: [`Self::in_flight`], or where its chunks differ the chunks
    /// [`Self::held_chunks`] holds (weighed by their layers) ÷ its layers.
    pub fn layers_in_flight(&self, rank: u32, microbatches: Option<u32>, layers: u32) -> f64 {
        if !self.chunks_may_differ() {
            return self.in_flight(rank, microbatches);
        }
        let counts: Vec<u32> = self.chunk_counts(rank, layers).collect();
        let held = self.held_chunks(rank, microbatches, |c| f64::from(counts[c as usize]));
        let here: u32 = counts.iter().sum();
        let kept: u32 = held.iter().zip(&counts).map(|(n, c)| n * c).sum();
        f64::from(kept) / f64::from(here.max(1))
    }

    /// Whether the first or the last stage has a layer count of its own.
    pub const fn is_uneven(&self) -> bool {
        self.first_layers.is_some() || self.last_layers.is_some()
    }

    /// Megatron-LM's rules for uneven stages (`TransformerConfig`'s checks,
    /// commit d98e8a6): they need PP > 1; the first and last stages' layers
    /// leave the stages in between at least one layer each, or none with no
    /// such stage, in a whole number per stage.
    fn validate_uneven(&self, layers: u32) -> Result<(), LayoutError> {
        let at_fault = match self.last_layers {
            Some(_) => LayoutSize::PpLast,
            None => LayoutSize::PpFirst,
        };
        if self.pp == 1 {
            return Err(at_fault.refused(LayoutProblem::NeedsPipeline));
        }
        match self.middle(layers) {
            (Some(left), stages) if left > 0 || stages == 0 => {
                if left % stages.max(1) != 0 || stages == 0 && left > 0 {
                    return Err(at_fault.refused(LayoutProblem::UnevenMiddle {
                        layers: left,
                        stages,
                    }));
                }
                Ok(())
            }
            _ => Err(at_fault.refused(LayoutProblem::NoLayersLeft { layers })),
        }
    }

    /// The layers the first and last stages leave (`None`: more than all of
    /// them) and the stages in between that share them.
    const fn middle(&self, layers: u32) -> (Option<u32>, u32) {
        let (mut left, mut stages) = (Some(layers), self.pp);
        if let Some(first) = self.first_layers {
            left = match left {
                Some(l) => l.checked_sub(first),
                None => None,
            };
            stages -= 1;
        }
        if let Some(last) = self.last_layers {
            left = match left {
                Some(l) => l.checked_sub(last),
                None => None,
            };
            stages = stages.saturating_sub(1);
        }
        (left, stages)
    }

    /// The transformer layers of pipeline rank `rank`: `layers` ÷ PP, or
    /// with uneven stages the first's and last's own and the rest shared by
    /// the ranks in between, or its virtual stages' ([`Self::chunk_span`])
    /// (Megatron-LM's `get_num_layers_to_build`).
    pub fn stage_layers(&self, rank: u32, layers: u32) -> u32 {
        if self.chunks_may_differ() {
            return self.chunk_counts(rank, layers).sum();
        }
        if !self.is_uneven() {
            return layers / self.pp;
        }
        match (rank, self.first_layers, self.last_layers) {
            (0, Some(first), _) => first,
            (r, _, Some(last)) if r + 1 == self.pp => last,
            _ => match self.middle(layers) {
                (Some(left), stages) if stages > 0 => left / stages,
                _ => 0,
            },
        }
    }

    /// The layers of one model chunk of rank `rank`: its stage's ÷ VPP (its
    /// largest where its chunks differ), at least 1.
    pub fn chunk_layers(&self, rank: u32, layers: u32) -> u32 {
        let chunk = match self.chunks_may_differ() {
            true => self.chunk_counts(rank, layers).max().unwrap_or(0),
            false => self.stage_layers(rank, layers) / self.vpp,
        };
        if chunk == 0 {
            1
        } else {
            chunk
        }
    }

    /// The largest model chunk of any rank (the bound of
    /// `--recompute-num-layers`, which Megatron-LM clamps to each chunk).
    pub fn largest_chunk(&self, layers: u32) -> u32 {
        if self.chunks_may_differ() {
            return (0..self.pp)
                .map(|r| self.chunk_layers(r, layers))
                .max()
                .unwrap_or(1);
        }
        (0..self.pp.min(3))
            .map(|r| self.chunk_layers(if r == 2 { self.pp - 1 } else { r }, layers))
            .max()
            .unwrap_or(1)
    }

    /// The first layer (from 0) of virtual stage `chunk` on rank `rank`: the
    /// model is cut into VPP rounds of one chunk per rank, in rank order
    /// (Megatron-LM's `get_transformer_layer_offset`).
    pub fn chunk_start(&self, chunk: u32, rank: u32, layers: u32) -> u32 {
        self.chunk_span(chunk, rank, layers).0
    }

    /// [`Self::chunk_start`] of an even split or uneven first and last stages.
    fn even_chunk_start(&self, chunk: u32, rank: u32, layers: u32) -> u32 {
        let before: u32 = (0..rank).map(|r| self.chunk_layers(r, layers)).sum();
        chunk * self.round_layers(layers) + before
    }

    /// The layers of one round of chunks, one per rank.
    fn round_layers(&self, layers: u32) -> u32 {
        match self.is_uneven() {
            false => self.pp * self.chunk_layers(0, layers),
            true => (0..self.pp).map(|r| self.chunk_layers(r, layers)).sum(),
        }
    }

    /// The stages' layers when the first or last has its own count, as
    /// `[16 + 2 × 15 + 15]` (first, the stages in between, last); `None` for
    /// an even split.
    pub fn uneven_words(&self, layers: u32) -> Option<String> {
        if self.chunks_may_differ() {
            return Some(self.rank_words(layers));
        }
        if !self.is_uneven() {
            return None;
        }
        let (_, middle) = self.middle(layers);
        let mut parts = Vec::new();
        if let Some(first) = self.first_layers {
            parts.push(first.to_string());
        }
        if middle > 0 {
            let each = self.stage_layers(u32::from(self.first_layers.is_some()), layers);
            parts.push(match middle {
                1 => each.to_string(),
                m => format!("{m} × {each}"),
            });
        }
        if let Some(last) = self.last_layers {
            parts.push(last.to_string());
        }
        Some(format!("[{}]", parts.join(" + ")))
    }

    /// Each rank's layers, runs of equal counts as `n × count`:
    /// `[5 + 13 × 4 + 2 + 2]`.
    fn rank_words(&self, layers: u32) -> String {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for rank in 0..self.pp {
            let here = self.stage_layers(rank, layers);
            match runs.last_mut() {
                Some((count, n)) if *count == here => *n += 1,
                _ => runs.push((here, 1)),
            }
        }
        let parts: Vec<String> = runs
            .into_iter()
            .map(|(count, n)| match n {
                1 => count.to_string(),
                n => format!("{n} × {count}"),
            })
            .collect();
        format!("[{}]", parts.join(" + "))
    }

    /// The pipeline rank that holds layer `layer` (from 0): the layers are cut
    /// into chunks, dealt to the ranks in turn ([`Self::chunk_start`]).
    pub fn rank_of_layer(&self, layer: u32, layers: u32) -> u32 {
        if self.chunks_may_differ() {
            // The virtual stages hold the layers in turn, round by round.
            let mut end = 0;
            for chunk in 0..self.vpp {
                for rank in 0..self.pp {
                    end += self.chunk_count(chunk, rank, layers);
                    if layer < end {
                        return rank;
                    }
                }
            }
            return self.pp - 1;
        }
        if !self.is_uneven() {
            return (layer / self.chunk_layers(0, layers)) % self.pp;
        }
        let mut within = layer % self.round_layers(layers).max(1);
        for rank in 0..self.pp {
            let here = self.chunk_layers(rank, layers);
            if within < here {
                return rank;
            }
            within -= here;
        }
        self.pp - 1
    }

    /// Microbatches in flight on pipeline rank `rank` under 1F1B (Narayanan et
    /// al. 2021, §2.2), in whole stages' worth of activations: it runs
    /// min(m, PP − rank) forward passes before its first backward. The
    /// interleaved schedule holds Megatron-LM's warm-up count of model chunks
    /// plus the one its first 1F1B step adds (`schedules.py`,
    /// `forward_backward_pipelining_with_interleaving`: 2 × (PP − rank − 1) +
    /// (VPP − 1) × PP, the microbatch group per virtual stage defaulting to
    /// PP; at most m × VPP chunks), each chunk 1/VPP of the stage: on the
    /// first rank Korthikanti et al.'s (2022, §4.2.3) PP × (1 + (PP − 1)/(PP ×
    /// VPP)), on later ranks more than that factor times PP − rank.
    /// `microbatches` unknown (no global batch) counts the pipeline full.
    pub fn in_flight(&self, rank: u32, microbatches: Option<u32>) -> f64 {
        let waiting = self.pp - rank;
        if self.vpp == 1 {
            return f64::from(microbatches.map_or(waiting, |m| m.min(waiting)));
        }
        let warm_up = 2 * (waiting - 1) + (self.vpp - 1) * self.pp;
        let chunks = microbatches.map_or(warm_up + 1, |m| (warm_up + 1).min(m * self.vpp));
        f64::from(chunks) / f64::from(self.vpp)
    }
}

/// A size of the layout, as a [`LayoutError`] names the one at fault (the
/// input layer says which field that is: `InputError: From<LayoutError>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutSize {
    /// The tensor-parallel size.
    Tp,
    /// The pipeline stages.
    Pp,
    /// The virtual stages per pipeline rank.
    Vpp,
    /// The context-parallel size.
    Cp,
    /// Sequence parallelism.
    Sp,
    /// The first stage's own layer count.
    PpFirst,
    /// The last stage's own layer count.
    PpLast,
    /// The pipeline layout (Megatron-LM's `--pipeline-model-parallel-layout`).
    PpLayout,
}

impl LayoutSize {
    const fn refused(self, problem: LayoutProblem) -> LayoutError {
        LayoutError {
            size: self,
            problem,
        }
    }
}

/// A layout that Megatron-LM would refuse, naming the size at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutError {
    /// The size at fault.
    pub size: LayoutSize,
    /// What is wrong with it.
    pub problem: LayoutProblem,
}

/// The model chunk of the `k`-th virtual microbatch in Megatron-LM's
/// interleaved schedule (`get_schedule_table`, the microbatch group per
/// virtual stage at its default, PP): groups of PP microbatches, each run
/// through every chunk in turn; the last group takes what is left of `m`.
fn schedule_chunk(k: u32, pp: u32, vpp: u32, microbatches: Option<u32>) -> u32 {
    let full_groups = microbatches.map_or(u32::MAX, |m| m / pp);
    let group = pp * vpp;
    match k / group < full_groups {
        true => (k / pp) % vpp,
        false => {
            let left = microbatches.map_or(pp, |m| m - full_groups * pp).max(1);
            ((k - full_groups * group) / left).min(vpp - 1)
        }
    }
}

/// The first and last stages' layers that let `pp` stages hold `layers` that
/// `pp` does not divide, as Megatron-LM's `--decoder-first-pipeline-num-
/// layers` and `--decoder-last-pipeline-num-layers` would: the stages in
/// between ⌈L ÷ PP⌉ each and the first and last the rest, halved (Llama 3.1
/// 405B's 126 on PP 16: 7 + 14 × 8 + 7, as Meta ran it), or the first alone
/// with an odd rest (DeepSeek-V3's 61 on PP 8: 5 + 7 × 8, `(first, None)`);
/// `None` where no such split leaves each stage at least one layer.
pub fn uneven_split(layers: u32, pp: u32) -> Option<(u32, Option<u32>)> {
    if pp < 2 || layers % pp == 0 {
        return None;
    }
    let each = layers.div_ceil(pp);
    let rest = layers.checked_sub(each * (pp - 2))?;
    if pp > 2 && rest >= 2 && rest % 2 == 0 {
        return Some((rest / 2, Some(rest / 2)));
    }
    let first = layers.checked_sub(each * (pp - 1))?;
    (first >= 1).then_some((first, None))
}

/// The error of a layout size that does not divide what it splits: the key,
/// what it splits, and the largest size up to `typed` that would divide it.
fn not_dividing(size: LayoutSize, splits: Splits, typed: u32) -> LayoutError {
    size.refused(LayoutProblem::does_not_divide(splits, typed))
}

/// One GPU's share of the parameters of one pipeline stage, exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageParams {
    /// The pipeline rank (0 is the first stage).
    pub rank: u32,
    /// Its transformer layers.
    pub layers: u32,
    /// Parameters on one of its GPUs: the split matrices' shares, the
    /// replicated norms and biases, its experts' shares (÷ TP, not yet ÷ EP).
    pub params: u64,
    /// Of which routed experts' (÷ TP; expert parallelism divides them further).
    pub routed_experts: u64,
}

/// Parameters of one layer, split as Megatron-LM's modules hold them:
/// `(split over TP, replicated, routed experts)`.
///
/// Split: the column-parallel q/k/v (and the MLP's first matrices) with their
/// biases, the row-parallel output projection and down projection (their
/// biases replicated, added after the all-reduce). Replicated: the norms, the
/// q/k norms, the router and the shared expert's gate, and latent attention's
/// down projections and their norms (`linear_q_down_proj`,
/// `linear_kv_down_proj`: `parallel_mode="duplicated"`). Routed experts are
/// split over the expert-tensor-parallel size, which defaults to TP. A
/// linear-attention layer's Gated DeltaNet splits by heads (its projections,
/// convolution, `dt_bias` and `A_log`) but for its gated norm of one value
/// head's width, replicated (Megatron-LM's `GatedDeltaNet`).
fn layer_split(arch: &Architecture, moe_layer: bool, linear: bool) -> (u64, u64, u64) {
    let h = u64::from(arch.hidden);
    let norms = arch.layer_norm_params();
    let (attention_split, attention_replicated) = if linear {
        let norm = u64::from(arch.linear.v_dim);
        (arch.mixer_params(true) - norm, norm)
    } else if arch.mla.is_latent() {
        let m = arch.mla;
        let (q_rank, kv_rank) = (u64::from(m.q_rank), u64::from(m.kv_rank));
        let down = if q_rank > 0 { h * q_rank + q_rank } else { 0 }
            + h * (kv_rank + u64::from(m.rope_dim))
            + kv_rank;
        (arch.attention_params() - down, down)
    } else {
        let o_bias = match arch.biases {
            Biases::All | Biases::Attention => h,
            _ => 0,
        };
        let qk_norms = arch.qk_norm_params();
        let replicated = o_bias + qk_norms;
        (arch.attention_params() - replicated, replicated)
    };
    if !moe_layer {
        let down_bias = if arch.biases == Biases::All { h } else { 0 };
        let mlp = arch.dense_mlp_params();
        return (
            attention_split + mlp - down_bias,
            attention_replicated + norms + down_bias,
            0,
        );
    }
    let moe = arch.moe;
    let matrices = arch.mlp.matrices();
    let shared = u64::from(moe.shared_experts) * matrices * h * u64::from(moe.shared_ffn);
    // A biased mixture's router bias replicated, its experts' biases with them.
    let router_bias = if moe.biased {
        u64::from(moe.experts)
    } else {
        0
    };
    let router = u64::from(moe.experts) * h + router_bias;
    let gate = if moe.shared_gate { h } else { 0 };
    let routed = u64::from(moe.experts) * matrices * h * u64::from(moe.expert_ffn)
        + arch.moe_biases(u64::from(moe.experts))
        - router_bias;
    (
        attention_split + shared,
        attention_replicated + norms + router + gate,
        routed,
    )
}

/// One GPU's parameters on pipeline rank `rank` under `layout` (validated):
/// its layers' split parts ÷ TP (rounded up) and replicated parts; the first
/// stage the vocabulary-parallel embedding (vocab ÷ TP rows) and learned
/// positions; the last the final norm and the output head, or with tied
/// embeddings and PP > 1 its own copy of the embedding (Megatron-LM keeps one
/// on the last stage and all-reduces their gradients).
pub fn stage_params(arch: &Architecture, layout: &Layout, rank: u32) -> StageParams {
    let tp = u64::from(layout.tp);
    let share = |n: u64| n.div_ceil(tp);
    let dense_layers = arch.dense_layer_count();
    let (mut split, mut replicated, mut routed, mut layers) = (0, 0, 0, 0);
    for layer in 0..arch.layers {
        if layout.rank_of_layer(layer, arch.layers) != rank {
            continue;
        }
        let (s, r, e) = layer_split(arch, layer >= dense_layers, arch.is_linear_layer(layer));
        split += s;
        replicated += r;
        routed += e;
        layers += 1;
    }
    let h = u64::from(arch.hidden);
    let embedding_share = share(u64::from(arch.vocab)) * h;
    let first = rank == 0;
    let last = rank == layout.pp - 1;
    let mut params = share(split) + replicated;
    if first {
        params += embedding_share + u64::from(arch.learned_positions) * h;
    }
    if last {
        params += arch.norm.params(h);
        if !arch.tied_embeddings || layout.pp > 1 {
            params += embedding_share;
        }
    }
    if rank == layout.mtp_rank() {
        // Multi-token prediction on the last stage, or a pipeline layout's
        // (Megatron-LM's `mtp_on_this_rank`): each a layer like the last,
        // its column-parallel `eh_proj` (2h × h) and three norms.
        let mtp = u64::from(arch.mtp_layers);
        let moe_last = arch.layers > dense_layers;
        let (s, r, e) = layer_split(arch, moe_last, false);
        params += mtp * (share(s + 2 * h * h) + r + 3 * arch.norm.params(h));
        routed += mtp * e;
    }
    // With ETP = 1 the experts are whole on each GPU (EP divides them later).
    let routed_experts = match layout.expert_tp {
        ExpertTp::AsTp => share(routed),
        ExpertTp::One => routed,
    };
    StageParams {
        rank,
        layers,
        params: params + routed_experts,
        routed_experts,
    }
}

/// The tests of the layouts; [`tests::paper_setup`] serves the memory's
/// other tests too.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::memory::activations::{
        stage_activations, ActivationSetup, Checkpointing, FrozenInputs, Recompute,
    };
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Korthikanti et al. 2022's setup: 2,048 tokens, one sequence, 16-bit
    /// values with dropout, every layer checkpointed under full
    /// recomputation; no FP8 and nothing frozen.
    pub(crate) fn paper_setup(recompute: Recompute, flash_attention: bool) -> ActivationSetup {
        ActivationSetup {
            seq_len: 2048,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention,
            recompute,
            checkpointing: Checkpointing::EVERY_LAYER,
            modules: Default::default(),
            dropout: true,
            capacity: 1.0,
            fp8: false,
            fp8_scales: 0.0,
            frozen: FrozenInputs::NONE,
            loss: crate::memory::activations::Loss::Fused,
        }
    }

    /// `seq_len` tokens a sequence with FlashAttention and no dropout, as
    /// models train now, `recompute` recomputed; the paper's otherwise.
    pub(crate) fn flash_setup(seq_len: u32, recompute: Recompute) -> ActivationSetup {
        ActivationSetup {
            seq_len,
            dropout: false,
            ..paper_setup(recompute, true)
        }
    }

    fn arch(id: &str) -> Architecture {
        model_preset(id).unwrap().architecture
    }

    /// What `validate` says, as `(size, problem)`, of a `size` that does not
    /// divide `splits`: `largest`, the largest size that would.
    fn not_divided(
        size: LayoutSize,
        splits: Splits,
        largest: u32,
    ) -> Result<(), (LayoutSize, LayoutProblem)> {
        Err((size, LayoutProblem::DoesNotDivide { splits, largest }))
    }

    fn layout(tp: u32, pp: u32, sp: bool) -> Layout {
        Layout {
            tp,
            pp,
            sp,
            ..Layout::SINGLE
        }
    }

    /// Korthikanti et al. 2022, Table 2, for GPT-3 175B (a = 96, h = 12,288,
    /// s = 2,048, b = 1) at t = 8, per layer, 16-bit with dropout: sbh × (34 +
    /// 5as/h) without parallelism, (10 + 24/t + 5as/(ht)) with TP, (34/t +
    /// 5as/(ht)) with SP, (10 + 24/t) TP + selective, 34/t SP + selective.
    #[wasm_bindgen_test(unsupported = test)]
    fn table_2_of_korthikanti_et_al() {
        let gpt3 = arch("gpt3-175b");
        let (s, h, a, t) = (2048.0, 12288.0, 96.0, 8.0);
        let sbh = s * h;
        let per_layer = |layout: Layout, recompute: Recompute| {
            let setup = paper_setup(recompute, false);
            stage_activations(&gpt3, &setup, &layout, 0, None)
                .per_layer
                .get()
        };
        let rows = [
            (
                layout(1, 1, false),
                Recompute::None,
                sbh * (34.0 + 5.0 * a * s / h),
            ),
            (
                layout(8, 1, false),
                Recompute::None,
                sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t)),
            ),
            (
                layout(8, 1, true),
                Recompute::None,
                sbh * (34.0 / t + 5.0 * a * s / (h * t)),
            ),
            (
                layout(8, 1, false),
                Recompute::Selective,
                sbh * (10.0 + 24.0 / t),
            ),
            (layout(8, 1, true), Recompute::Selective, sbh * 34.0 / t),
        ];
        for (layout, recompute, expected) in rows {
            assert_eq!(
                per_layer(layout, recompute),
                expected,
                "{layout:?} {recompute:?}"
            );
        }
        // Full recomputation keeps 2sbh per layer, ÷ t with SP (Table 2's last rows).
        let full = |layout: Layout| {
            let setup = paper_setup(Recompute::Full, true);
            let m = stage_activations(&gpt3, &setup, &layout, 0, None);
            (m.layers.get() - m.per_layer.get()) / 96.0
        };
        assert_eq!(full(layout(8, 1, false)), 2.0 * sbh);
        assert_eq!(full(layout(8, 1, true)), 2.0 * sbh / t);
    }

    /// Summed over TP ranks and stages, the split and replicated parts give
    /// back every parameter once (untied, or tied on one stage); with tied
    /// embeddings over stages the last stage adds its copy.
    #[wasm_bindgen_test(unsupported = test)]
    fn stages_hold_every_parameter() {
        for id in [
            "llama2-70b",
            "qwen3-30b-a3b",
            "deepseek-v3",
            "gpt3-175b",
            "qwen3-0.6b",
        ] {
            let a = arch(id);
            let single = stage_params(&a, &Layout::SINGLE, 0);
            assert_eq!(single.params, a.param_count(), "{id}");
            assert_eq!(single.routed_experts, a.routed_expert_params(), "{id}");
            let split = layout(1, a.layers.min(4), false);
            if a.layers % split.pp == 0 {
                let sum: u64 = (0..split.pp)
                    .map(|r| stage_params(&a, &split, r).params)
                    .sum();
                let copy = if a.tied_embeddings {
                    u64::from(a.vocab) * u64::from(a.hidden)
                } else {
                    0
                };
                assert_eq!(sum, a.param_count() + copy, "{id}");
            }
        }
        // Llama 2 70B at TP 8 PP 4: 20 layers a stage; the first adds the
        // embedding's 4,000 rows × 8,192, the last the head's and the norm.
        let a = arch("llama2-70b");
        let l = layout(8, 4, false);
        let first = stage_params(&a, &l, 0);
        let last = stage_params(&a, &l, 3);
        assert_eq!(first.layers, 20);
        let layer = a.params_per_layer() - 2 * 8192;
        assert_eq!(first.params, 20 * (layer / 8 + 2 * 8192) + 4000 * 8192);
        assert_eq!(last.params, first.params + 8192);
    }

    /// Megatron-LM's uneven stages (`--decoder-first-pipeline-num-layers`,
    /// `--decoder-last-pipeline-num-layers`): DeepSeek-V3's 61 layers on PP 4
    /// as 16 + 15 + 15 + 15, every parameter held once; Llama 2 7B's 32 on PP
    /// 4 × VPP 2 as 6 + 8 + 8 + 10, each rank's chunks where
    /// `get_transformer_layer_offset` puts them (rank 3's second chunk starts
    /// at 16 + 3 + 4 + 4 = 27).
    #[wasm_bindgen_test(unsupported = test)]
    fn uneven_first_and_last_stages_as_megatron_builds_them() {
        let a = arch("deepseek-v3");
        let l = Layout {
            first_layers: Some(16),
            last_layers: Some(15),
            ..layout(1, 4, false)
        };
        assert_eq!(l.validate(&a, 4096), Ok(()));
        let stages: Vec<_> = (0..4).map(|r| stage_params(&a, &l, r)).collect();
        assert_eq!(
            stages.iter().map(|s| s.layers).collect::<Vec<_>>(),
            [16, 15, 15, 15]
        );
        let sum: u64 = stages.iter().map(|s| s.params).sum();
        assert_eq!(sum, a.param_count());
        assert_eq!(l.rank_of_layer(15, 61), 0);
        assert_eq!(l.rank_of_layer(16, 61), 1);
        assert_eq!(l.rank_of_layer(45, 61), 2);
        assert_eq!(l.rank_of_layer(46, 61), 3);
        // Even, 61 layers do not split over 4 stages.
        assert!(layout(1, 4, false).validate(&a, 4096).is_err());

        let a = arch("llama2-7b");
        let l = Layout {
            vpp: 2,
            first_layers: Some(6),
            last_layers: Some(10),
            ..layout(1, 4, false)
        };
        assert_eq!(l.validate(&a, 4096), Ok(()));
        let chunks: Vec<_> = (0..4).map(|r| l.chunk_layers(r, 32)).collect();
        assert_eq!(chunks, [3, 4, 4, 5]);
        assert_eq!(l.chunk_start(1, 3, 32), 27);
        assert_eq!(l.chunk_start(1, 0, 32), 16);
        assert_eq!(l.largest_chunk(32), 5);
        let owners: Vec<u32> = (0..32).map(|i| l.rank_of_layer(i, 32)).collect();
        for rank in 0..4 {
            let here = owners.iter().filter(|&&r| r == rank).count() as u32;
            assert_eq!(here, l.stage_layers(rank, 32), "rank {rank}");
            for c in 0..2 {
                let start = l.chunk_start(c, rank, 32);
                assert_eq!(owners[start as usize], rank);
            }
        }
        // An even split written unevenly is the even split.
        let even = layout(1, 4, false);
        let written = Layout {
            first_layers: Some(8),
            last_layers: Some(8),
            ..even
        };
        for layer in 0..32 {
            assert_eq!(
                written.rank_of_layer(layer, 32),
                even.rank_of_layer(layer, 32)
            );
        }
    }

    /// Uneven stages that Megatron-LM's `TransformerConfig` refuses, each
    /// naming the key at fault: no stages in between left a layer, a middle
    /// that does not split, one pipeline stage, and VPP not dividing a stage.
    #[wasm_bindgen_test(unsupported = test)]
    fn uneven_stages_that_megatron_refuses() {
        let a = arch("llama2-7b");
        let uneven = |pp, first, last| Layout {
            first_layers: first,
            last_layers: last,
            ..layout(1, pp, false)
        };
        let kind = |l: Layout| l.validate(&a, 4096).map_err(|e| (e.size, e.problem));
        assert_eq!(
            kind(uneven(4, Some(20), Some(12))),
            Err((
                LayoutSize::PpLast,
                LayoutProblem::NoLayersLeft { layers: 32 }
            ))
        );
        assert_eq!(
            kind(uneven(4, Some(40), None)),
            Err((
                LayoutSize::PpFirst,
                LayoutProblem::NoLayersLeft { layers: 32 }
            ))
        );
        assert_eq!(
            kind(uneven(4, Some(7), None)),
            Err((
                LayoutSize::PpFirst,
                LayoutProblem::UnevenMiddle {
                    layers: 25,
                    stages: 3
                }
            ))
        );
        assert_eq!(
            kind(uneven(2, Some(10), Some(10))),
            Err((
                LayoutSize::PpLast,
                LayoutProblem::UnevenMiddle {
                    layers: 12,
                    stages: 0
                }
            ))
        );
        assert_eq!(kind(uneven(2, Some(10), Some(22))), Ok(()));
        assert_eq!(
            kind(uneven(1, Some(32), None)),
            Err((LayoutSize::PpFirst, LayoutProblem::NeedsPipeline))
        );
        let interleaved = Layout {
            vpp: 2,
            ..uneven(4, Some(5), Some(9))
        };
        assert_eq!(
            kind(interleaved),
            not_divided(LayoutSize::Vpp, Splits::Layers(5), 1)
        );
    }

    /// Issue 65: four published Megatron-LM runs with interleaved stages and
    /// first and last stages of their own decode without a problem, each
    /// rank building what Megatron-LM builds (`measured/pipeline-split.json`
    /// holds the split to megatron-core's own functions). DeepSeek-V3 on
    /// 2,048 H800s (its report: PP 16, EP 64, ZeRO-1 over DP 128, FP8, one
    /// MTP layer) as Megatron-LM's user guide lays it out on PP 16 × VPP 2;
    /// DeepSeek-V3 on 1,024 H100s and Qwen3-235B-A22B on 256 (EP 32 beyond
    /// DP 16, over TP with ETP 1) and Llama 3.1 405B on 1,024 as
    /// Megatron-Bridge's performance recipes run them.
    #[wasm_bindgen_test(unsupported = test)]
    fn published_interleaved_runs_with_stages_of_their_own() {
        let runs: [(&str, &[u32]); 4] = [
            (
                "v=3&model=deepseek-v3&gpu=h800&gpus=8&nodes=256&pp=16&vpp=2&ep=64&mtp=1\
                 &pp_layout=Et*3|(tt|)*29,m|L&seq=4096&dtype=fp8&stage=1",
                &[5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2],
            ),
            (
                "v=3&model=deepseek-v3&gpu=h100-80gb&gpus=8&nodes=128&tp=2&sp=1&pp=8&vpp=4\
                 &ep=64&etp=1&mtp=1&pp_layout=Et|(tt|)*30mL&seq=4096&global_batch=16384&stage=1",
                &[7, 8, 8, 8, 8, 8, 8, 6],
            ),
            (
                "v=3&model=qwen3-235b-a22b&gpu=h100-80gb&gpus=8&nodes=32&tp=2&sp=1&pp=8&vpp=4\
                 &ep=32&etp=1&pp_embedding=1&pp_loss=1&seq=4096&global_batch=8192&stage=1",
                &[11, 12, 12, 12, 12, 12, 12, 11],
            ),
            (
                "v=3&model=llama3.1-405b&gpu=h100-80gb&gpus=8&nodes=128&tp=8&sp=1&pp=8&vpp=8\
                 &cp=2&pp_embedding=1&pp_loss=1&seq=8192&global_batch=1536&stage=1",
                &[15, 16, 16, 16, 16, 16, 16, 15],
            ),
        ];
        for (query, ranks) in runs {
            let decoded = crate::input::link::decode(query);
            assert!(
                decoded.problems.is_empty(),
                "{query}: {:?}",
                decoded.problems
            );
            let config = decoded.config;
            let layers = config.model.unwrap().architecture.layers;
            let l = config.runtime.layout;
            let here: Vec<u32> = (0..l.pp).map(|r| l.stage_layers(r, layers)).collect();
            assert_eq!(here, ranks, "{query}");
            let report = config.report().expect("a report");
            assert!(report.highlighted().time.is_some(), "{query}");
        }
        // DeepSeek-V3's layout: the MTP layer on rank 14, apart from the loss.
        let guide = crate::input::link::decode(runs[0].0).config.runtime.layout;
        assert_eq!(guide.mtp_rank(), 14);
        assert_eq!(guide.chunk_span(1, 14, 61), (61, 0));
        assert_eq!(guide.chunk_span(1, 0, 61), (33, 2));
        // Qwen3-235B-A22B: the first and last ranks' outer chunks build one
        // layer fewer (96 = 8 × 4 × 3 with the embedding and loss counted).
        let qwen = crate::input::link::decode(runs[2].0).config.runtime.layout;
        let chunks = |l: Layout, r| l.chunk_counts(r, 94).collect::<Vec<_>>();
        assert_eq!(chunks(qwen, 0), [2, 3, 3, 3]);
        assert_eq!(chunks(qwen, 7), [3, 3, 3, 2]);
        assert_eq!(qwen.chunk_span(1, 0, 94), (23, 3));
        assert_eq!(qwen.largest_chunk(94), 3);
    }

    /// The interleaved schedule's peak, by hand for PP 4 × VPP 2 on the
    /// first rank: a warm-up of 2 × 3 + 4 = 10 forwards (chunks 0,0,0,0,
    /// 1,1,1,1,0,0), then one forward before each backward; 11 chunks are
    /// held at each peak, [7, 4] or [8, 3] of the two chunks as the
    /// schedule goes on, whichever weighs more. Four microbatches are all
    /// forward before the first backward.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_interleaved_schedule_holds_its_heaviest_mix_of_chunks() {
        let l = Layout {
            vpp: 2,
            ..layout(1, 4, false)
        };
        assert_eq!(l.held_chunks(0, None, |c| [1.0, 2.0][c as usize]), [7, 4]);
        assert_eq!(l.held_chunks(0, None, |c| [2.0, 1.0][c as usize]), [8, 3]);
        assert_eq!(l.held_chunks(0, None, |_| 1.0), [7, 4]);
        assert_eq!(l.held_chunks(0, Some(4), |_| 1.0), [4, 4]);
        // The last rank: 4 of warm-up, 5 held, as `in_flight` counts.
        let last: u32 = l.held_chunks(3, Some(64), |_| 1.0).iter().sum();
        assert_eq!(f64::from(last) / 2.0, l.in_flight(3, Some(64)));
        // With equal chunks the layers in flight are the stages' worth.
        let counted = Layout {
            embedding_in_split: true,
            loss_in_split: true,
            ..l
        };
        assert_eq!(counted.stage_layers(0, 30), 7);
        assert_eq!(
            counted.layers_in_flight(1, Some(64), 30),
            l.in_flight(1, Some(64))
        );
        // Rank 0 holds its light first chunk (3 layers) 7 times, its second
        // (4) 4 times: 37 layers, 37/7 of its stage.
        assert_eq!(counted.layers_in_flight(0, None, 30), 37.0 / 7.0);
    }

    /// Megatron-LM's rules for the embedding and loss counted in the split
    /// and for pipeline layouts, each refused at the key at fault.
    #[wasm_bindgen_test(unsupported = test)]
    fn counted_ends_and_layouts_that_megatron_refuses() {
        let v3 = arch("deepseek-v3");
        let kind =
            |l: Layout, a: &Architecture| l.validate(a, 4096).map_err(|e| (e.size, e.problem));
        let counted = Layout {
            embedding_in_split: true,
            loss_in_split: true,
            ..layout(1, 8, false)
        };
        assert_eq!(
            kind(counted, &v3),
            not_divided(LayoutSize::Pp, Splits::CountedLayers(63), 7)
        );
        let qwen = arch("qwen3-235b-a22b");
        assert_eq!(kind(Layout { vpp: 4, ..counted }, &qwen), Ok(()));
        assert_eq!(
            kind(Layout { vpp: 8, ..counted }, &qwen),
            not_divided(LayoutSize::Vpp, Splits::CountedLayers(12), 6)
        );
        let map = |text: &str| Some(StageMap::parse(text).unwrap());
        let mtp = Architecture {
            mtp_layers: 1,
            ..v3
        };
        let laid = Layout {
            vpp: 4,
            stage_map: map("Et|(tt|)*30mL"),
            ..layout(2, 8, true)
        };
        assert_eq!(kind(laid, &mtp), Ok(()));
        assert_eq!(
            kind(laid, &v3),
            Err((
                LayoutSize::PpLayout,
                LayoutProblem::StageMtp { found: 1, mtp: 0 }
            ))
        );
        assert_eq!(
            kind(Layout { vpp: 2, ..laid }, &mtp),
            Err((
                LayoutSize::PpLayout,
                LayoutProblem::StageCount {
                    stages: 32,
                    pp: 8,
                    vpp: 2
                }
            ))
        );
        // Issue 65: first and last stages of their own cannot interleave
        // DeepSeek-V3's 61 layers (VPP would divide the first's, the last's
        // and each middle rank's, so all 61): Megatron-LM refuses 5 + 7 × 8
        // on VPP 4 as the page does.
        let uneven = Layout {
            vpp: 4,
            first_layers: Some(5),
            ..layout(1, 8, false)
        };
        assert_eq!(
            kind(uneven, &v3),
            not_divided(LayoutSize::Vpp, Splits::Layers(5), 1)
        );
    }

    /// Each wrong size names its key and the largest that divides.
    #[wasm_bindgen_test(unsupported = test)]
    fn sizes_that_do_not_divide_say_what_would() {
        let a = arch("llama2-70b"); // 64 heads, 8 KV heads, 80 layers
        let kind = |l: Layout, seq: u32| l.validate(&a, seq).map_err(|e| (e.size, e.problem));
        assert_eq!(
            kind(layout(16, 1, false), 4096),
            not_divided(LayoutSize::Tp, Splits::KvHeads(8), 8)
        );
        assert_eq!(
            kind(layout(1, 3, false), 4096),
            Err((
                LayoutSize::Pp,
                LayoutProblem::NeedsUnevenStages {
                    layers: 80,
                    largest: 2,
                    first: 26,
                    last: None,
                }
            ))
        );
        let cp = Layout {
            cp: 3,
            ..Layout::SINGLE
        };
        assert_eq!(
            kind(cp, 4096),
            not_divided(LayoutSize::Cp, Splits::Sequence(4096), 2)
        );
        assert_eq!(
            kind(layout(1, 1, true), 4096),
            Err((LayoutSize::Sp, LayoutProblem::NeedsTensorParallel))
        );
        assert_eq!(
            layout(4, 1, false).data_parallel(6).map_err(|e| e.size),
            Err(LayoutSize::Tp)
        );
        assert_eq!(layout(2, 2, false).data_parallel(16), Ok(4));
    }

    /// 1F1B: the first of 4 stages holds 4 microbatches, the last 1; fewer
    /// microbatches than stages hold fewer; interleaving 2 adds (p−1)/(p·v)
    /// on the first rank.
    #[wasm_bindgen_test(unsupported = test)]
    fn microbatches_in_flight() {
        let l = layout(1, 4, false);
        assert_eq!(l.in_flight(0, None), 4.0);
        assert_eq!(l.in_flight(3, None), 1.0);
        assert_eq!(l.in_flight(0, Some(2)), 2.0);
        let v = Layout { vpp: 2, ..l };
        assert_eq!(v.in_flight(0, Some(64)), 4.0 * (1.0 + 3.0 / 8.0));
        // Issue 28, item 6: later ranks hold Megatron-LM's warm-up count
        // (2 × (p − r − 1) + (v − 1) × p, plus one) of half-stage chunks:
        // the last of 4 ranks 5 chunks, 2.5 stages' worth (the scaled 1F1B
        // count said 1.375); two microbatches cap every rank at 4 chunks.
        assert_eq!(v.in_flight(3, Some(64)), 2.5);
        assert_eq!(v.in_flight(1, None), 4.5);
        assert_eq!(v.in_flight(0, Some(2)), 2.0);
        assert_eq!(v.in_flight(3, Some(2)), 2.0);
    }

    /// Issue 48: a PP that does not divide the layers says which uneven
    /// first and last stages would hold them. Llama 3.1 405B's 126 layers on
    /// PP 16: 7 + 14 × 8 + 7, as Meta ran it; DeepSeek-V3's 61 on PP 8:
    /// 5 + 7 × 8; the split it names validates.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_refused_pp_names_the_uneven_split_that_would_hold_the_layers() {
        assert_eq!(uneven_split(126, 16), Some((7, Some(7))));
        assert_eq!(uneven_split(61, 8), Some((5, None)));
        assert_eq!(uneven_split(94, 8), Some((11, Some(11))));
        assert_eq!(uneven_split(80, 8), None);
        let arch = vram_shared::model::presets::model_preset("llama3.1-405b")
            .unwrap()
            .architecture;
        let layout = Layout {
            tp: 8,
            pp: 16,
            ..Layout::SINGLE
        };
        let error = layout.validate(&arch, 8192).unwrap_err();
        assert_eq!(
            error.problem,
            LayoutProblem::NeedsUnevenStages {
                layers: 126,
                largest: 14,
                first: 7,
                last: Some(7),
            }
        );
        let uneven = Layout {
            first_layers: Some(7),
            last_layers: Some(7),
            ..layout
        };
        assert!(uneven.validate(&arch, 8192).is_ok());
    }

    /// Issue 48: Megatron-LM's multi-token-prediction layer is DeepSeek-V3's
    /// checkpointed one (`model.layers.61.*`) without its own embedding and
    /// head (Megatron-LM shares the model's); the model grows by it, the
    /// last pipeline stage holds it, and Megatron-LM's FLOPs count it as one
    /// more layer like the last, its norms, `eh_proj` and its logits
    /// (`num_floating_point_operations`).
    #[wasm_bindgen_test(unsupported = test)]
    fn multi_token_prediction_as_megatron_trains_it() {
        let v3 = vram_shared::model::presets::model_preset("deepseek-v3")
            .unwrap()
            .architecture;
        let (h, v) = (7168u64, 129_280u64);
        let layer = v3.megatron_mtp_layer_params(256);
        assert_eq!(layer, v3.mtp_layer_params() - 2 * v * h);
        let with = vram_shared::model::architecture::Architecture {
            mtp_layers: 1,
            ..v3
        };
        assert_eq!(with.param_count(), v3.param_count() + layer);
        let layout = Layout {
            pp: 8,
            ..Layout::SINGLE
        };
        let added = |rank| {
            stage_params(&with, &layout, rank).params - stage_params(&v3, &layout, rank).params
        };
        assert_eq!((added(0), added(7)), (0, layer));
        // FLOPs: one more mixture-of-experts layer, the norms and eh_proj,
        // the logits again; its attention over the whole sequence.
        let (tokens, s) = (4096.0, 4096);
        let parts = |a: &vram_shared::model::architecture::Architecture| {
            crate::time::megatron_flops_parts(a, 1.0, s, 129_280)
        };
        let one_more = vram_shared::model::architecture::Architecture { layers: 62, ..v3 };
        let hf = h as f64;
        let expected = parts(&one_more).0 - parts(&v3).0
            + 6.0 * tokens * (3.0 * hf + 2.0 * hf * hf + hf * 129_280.0);
        assert!((parts(&with).0 - parts(&v3).0 - expected).abs() < 1.0);
        assert!((parts(&with).1 - parts(&one_more).1).abs() < 1.0);
    }
}
