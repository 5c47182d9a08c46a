//! How long a training step takes: the model's FLOPs at a fraction of the
//! GPUs' peak, the pipeline's bubble, and the communication the step cannot
//! hide.
//!
//! Sources: Megatron-LM's `num_floating_point_operations`
//! (`megatron/training/training.py`, commit d98e8a6) for the FLOPs of one
//! global batch; Narayanan et al. 2021, "Efficient Large-Scale Language Model
//! Training on GPU Clusters" (§2.2 the bubble (p − 1)/(m·v), §3.3 the 4/3 of
//! full recomputation, §5.1 the published training times); Rajbhandari et al.
//! 2020 §7 for data parallelism's and ZeRO's traffic; ring all-reduce sends
//! 2(n − 1)/n of the buffer per GPU.

use serde::{Deserialize, Serialize};

pub mod efficiency;

use crate::memory::activations::{ActivationSetup, Recompute};
use crate::memory::parallel::Layout;
use crate::memory::Strategy;
use vram_shared::model::architecture::{Architecture, Mlp};

/// What the step's time assumes beyond the GPU's preset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// The kernels' efficiency when typed: the fraction of the peak every
    /// compute kernel reaches (the bubble and exposed communication come on
    /// top). Read only without [`Self::kernel_model`].
    pub mfu: f64,
    /// Whether the kernels' efficiency comes from the kernel model
    /// ([`efficiency`]: each GEMM by its shape, the attention, the
    /// element-wise kernels at the memory's bandwidth): no efficiency typed.
    /// Off, [`Self::mfu`] applies to every kernel: a typed efficiency, or a
    /// version-1 link's, whose absent `mfu` meant 0.4.
    pub kernel_model: bool,
    /// The GPU's dense 16-bit tensor peak in TFLOP/s, when typed (else the preset's).
    pub tflops: Option<f64>,
    /// Bandwidth per GPU within a node in GB/s each way, when typed.
    pub nvlink_gb_per_s: Option<f64>,
    /// Bandwidth per GPU between nodes in GB/s each way, when typed.
    pub network_gb_per_s: Option<f64>,
    /// Training tokens in billions, when given: the run's days and cost follow.
    pub tokens_billions: Option<f64>,
    /// Price of one GPU-hour, when given.
    pub price_per_gpu_hour: Option<f64>,
    /// Whether the data-parallel gradient reduction overlaps the last
    /// microbatch's backward pass ([`step_time`]). Off by default, as the
    /// frameworks ship it: Megatron-LM's `--overlap-grad-reduce` is off
    /// (`megatron/training/arguments.py`), and DeepSpeed's `overlap_comm` is
    /// on for ZeRO-3 only (`DeepSpeedZeroConfig.overlap_comm_valid`).
    pub overlap_grad: bool,
    /// Whether ZeRO-1 and ZeRO-2's gather of the updated weights overlaps
    /// the next step's first forward pass (Megatron-LM's
    /// `--overlap-param-gather`: its distributed optimizer launches each
    /// bucket's all-gather ahead of the layers that use it). Off, as Megatron
    /// ships it; Megatron refuses it without `--overlap-grad-reduce`
    /// (`megatron/training/arguments.py`), so it counts only with
    /// [`Self::overlap_grad`].
    pub overlap_param: bool,
    /// The achieved TFLOP/s per GPU a paper or a log reports, of the FLOPs
    /// the GPUs run (Narayanan et al.'s count, recomputation included); when
    /// given, the step is those FLOPs at that rate, everything included.
    pub achieved_tflops: Option<f64>,
}

impl Speed {
    /// The kernel model (0.4 if switched off), the preset's links, no run.
    pub const DEFAULT: Speed = Speed {
        mfu: 0.4,
        kernel_model: true,
        tflops: None,
        nvlink_gb_per_s: None,
        network_gb_per_s: None,
        tokens_billions: None,
        price_per_gpu_hour: None,
        overlap_grad: false,
        overlap_param: false,
        achieved_tflops: None,
    };
}

impl Default for Speed {
    fn default() -> Self {
        Speed::DEFAULT
    }
}

/// The FLOPs of one global batch of `sequences` sequences of `seq_len`
/// tokens, forward and backward, as Megatron-LM's
/// `num_floating_point_operations` counts them for a transformer (BSHD, no
/// multi-token prediction, its vocabulary padded to `vocab`, see
/// [`crate::frameworks::megatron::padded_vocab`]): 3 GEMMs per weight
/// (forward, weight and data gradients) × 2 per multiply–add × tokens ×
/// (MLP, routed and shared experts, attention's projections, the logits),
/// plus the causal attention's QKᵀ and softmax·V per token pair.
pub fn megatron_flops(arch: &Architecture, sequences: f64, seq_len: u32, vocab: u32) -> f64 {
    let (weights, attention_core) = megatron_flops_parts(arch, sequences, seq_len, vocab);
    weights + attention_core
}

/// [`megatron_flops`] in its two parts: the GEMMs with a weight (three per
/// weight: forward, data gradient, weight gradient), and the attention's
/// QKᵀ and softmax·V, which have none.
pub fn megatron_flops_parts(
    arch: &Architecture,
    sequences: f64,
    seq_len: u32,
    vocab: u32,
) -> (f64, f64) {
    let s = f64::from(seq_len);
    let tokens = sequences * s;
    let h = f64::from(arch.hidden);
    let fwd_bwd = 3.0;
    let fma = 2.0;
    let ffn_factor = match arch.mlp {
        Mlp::SwiGlu => 3.0,
        Mlp::Gelu => 2.0,
    };
    let moe = arch.moe;
    // Multi-token prediction's layers count as layers like the last
    // (Megatron-LM's `num_floating_point_operations`: `last_layer_is_moe`),
    // with full attention.
    let mtp = f64::from(arch.mtp_layers);
    let last_is_moe = arch.layers > arch.dense_layer_count();
    let dense_layers = f64::from(arch.dense_layer_count()) + if last_is_moe { 0.0 } else { mtp };
    let moe_layers = f64::from(arch.layers) - f64::from(arch.dense_layer_count())
        + if last_is_moe { mtp } else { 0.0 };
    let heads = f64::from(arch.heads);
    let (attention, core) = if arch.mla.is_latent() {
        let m = arch.mla;
        let (nope, rope, v) = (
            f64::from(m.nope_dim),
            f64::from(m.rope_dim),
            f64::from(m.v_dim),
        );
        let q_term = if m.q_rank == 0 {
            h * heads * (nope + rope)
        } else {
            f64::from(m.q_rank) * (h + heads * (nope + rope) + 1.0)
        };
        let linear = fwd_bwd
            * fma
            * (q_term
                + f64::from(m.kv_rank) * (h + heads * (nope + v) + 1.0)
                + h * rope
                + heads * v * h);
        let core = fwd_bwd * fma * (heads * (nope + rope) / 2.0 + heads * v / 2.0);
        (linear, core)
    } else {
        let q = arch.q_width() as f64;
        let kv = arch.kv_width() as f64;
        // The gated attention's query projection is twice as wide.
        let q_out = if arch.gated_attention { 2.0 * q } else { q };
        let linear = fwd_bwd * fma * (h * (q_out + kv + kv) + q * h);
        let core = fwd_bwd * fma * q / 2.0 * 2.0;
        (linear, core)
    };
    // Gated DeltaNet layers replace the attention: their projections and
    // convolution, and the chunked delta rule, per token and value head
    // about 2·d_k·d_v (the state read and updated) + 2·C·(d_k + d_v) (within
    // each chunk of C = 64 tokens) multiply-adds: an estimate from the
    // algorithm (Yang et al. 2024), not a framework's count.
    let linear_layers = f64::from(arch.linear_layer_count());
    let full_layers = f64::from(arch.layers) - linear_layers + mtp;
    let (delta_linear, delta_core) = if linear_layers > 0.0 {
        let l = arch.linear;
        let (k, v, heads) = (
            l.key_width() as f64,
            l.value_width() as f64,
            f64::from(l.v_heads),
        );
        let (dk, dv) = (f64::from(l.k_dim), f64::from(l.v_dim));
        let projections = h * (2.0 * k + 2.0 * v + 2.0 * heads) + v * h;
        let conv = (2.0 * k + v) * f64::from(l.conv_kernel);
        let rule = heads * (2.0 * dk * dv + 2.0 * 64.0 * (dk + dv));
        (
            fwd_bwd * fma * projections * linear_layers,
            fwd_bwd * fma * (conv + rule) * linear_layers,
        )
    } else {
        (0.0, 0.0)
    };
    let routed = if moe.is_moe() {
        f64::from(moe.expert_ffn) * f64::from(moe.top_k) * ffn_factor
    } else {
        0.0
    };
    (
        tokens
            * (fwd_bwd
                * fma
                * h
                * (f64::from(arch.ffn) * ffn_factor * dense_layers
                    + routed * moe_layers
                    + f64::from(moe.shared_experts)
                        * f64::from(moe.shared_ffn)
                        * ffn_factor
                        * moe_layers)
                + attention * full_layers
                + delta_linear
                // MTP's three norms (as Megatron-LM counts them) and eh_proj.
                + fwd_bwd * fma * mtp * (3.0 * h + 2.0 * h * h)
                // The logits, and each MTP layer's own.
                + fwd_bwd * fma * h * f64::from(vocab) * (1.0 + mtp)),
        sequences * core * (attended_pairs(arch, seq_len) + mtp * s * s) + tokens * delta_core,
    )
}

/// The query–key pairs one sequence's attention computes, summed over the
/// layers with attention (linear attention's have none), as Megatron-LM
/// counts a global layer's, s² (its causal half in the core's ½), and a
/// local layer's (a sliding window or chunks: issue 48) as twice its causal
/// pairs, 2sw − w² + w for a window of w once s passes it
/// ([`vram_shared::model::architecture::LocalAttention::causal_pairs`]).
pub fn attended_pairs(arch: &Architecture, seq_len: u32) -> f64 {
    let s = f64::from(seq_len);
    let (mut global, mut local) = (0.0, 0.0);
    for i in 0..arch.layers {
        if arch.is_linear_layer(i) {
            continue;
        }
        match arch.local.is_local_layer(i) {
            true => local += 1.0,
            false => global += 1.0,
        }
    }
    let local_pairs = match arch.local.window >= seq_len {
        true => s * s,
        false => 2.0 * arch.local.causal_pairs(seq_len, true),
    };
    global * s * s + local * local_pairs
}

/// Bytes the host's Adam step moves per parameter: reads and writes its fp32
/// weight and two moments (24), reads its 16-bit gradient and writes the
/// 16-bit weight (4).
pub const HOST_ADAM_BYTES_PER_PARAM: f64 = 28.0;

/// What a node's memory streams in practice, bytes per second: the page's
/// assumption for the host's optimizer step under offload (a two-socket
/// server's eight or more DDR channels peak at several times this).
pub const HOST_BYTES_PER_S: f64 = 100e9;

/// The links and peak a step runs on, per GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    /// Dense 16-bit tensor peak, FLOP/s.
    pub peak_flops: f64,
    /// How fast the kernels run the FLOPs they execute, recomputation
    /// included; bubble and communication come on top.
    pub efficiency: Efficiency,
    /// Within a node, bytes per second each way.
    pub nvlink_bytes_per_s: f64,
    /// Between nodes, bytes per second each way.
    pub network_bytes_per_s: f64,
    /// Host to GPU (offload), bytes per second each way.
    pub pcie_bytes_per_s: f64,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// The achieved FLOP/s per GPU, when a run's is given ([`Speed::achieved_tflops`]).
    pub achieved_flops: Option<f64>,
    /// In FP8 training, the GPU's dense FP8 tensor peak in FLOP/s, at which
    /// the transformer layers' GEMMs run (Transformer Engine's linears:
    /// forward, data and weight gradients); the attention's core and the
    /// logits stay at [`Self::peak_flops`]. `None` otherwise.
    pub fp8_peak_flops: Option<f64>,
    /// Whether FP8 takes each tensor's amax in a pass of its own before the
    /// cast (per-tensor current scaling,
    /// [`crate::memory::Fp8Recipe::extra_amax_pass`]).
    pub fp8_amax_pass: bool,
}

/// The kernels' efficiency: one typed share of the peak for every kernel,
/// or the kernel model of [`efficiency`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Efficiency {
    /// The share of the peak (0 to 1) every kernel reaches: the link's `mfu`
    /// key, typed (or a version-1 link's 0.4). FP8 GEMMs reach it of the FP8 peak.
    Typed(f64),
    /// Each GEMM by its shape, the attention and the element-wise kernels
    /// as [`efficiency::layer_rates`] says.
    Kernels(efficiency::Kernels),
}

impl Machine {
    /// The peak in TFLOP/s as the step's words give it: the 16-bit one, and
    /// in FP8 the FP8 one its layers' GEMMs run at (`989 (FP8 1,979)`).
    pub fn peak_words(&self) -> String {
        let peak = vram_shared::format::format_number(self.peak_flops / 1e12);
        match self.fp8_peak_flops {
            Some(fp8) => format!(
                "{peak} (FP8 {})",
                vram_shared::format::format_number(fp8 / 1e12)
            ),
            None => peak,
        }
    }
}

/// What of each layer's forward pass the backward pass runs again, as shares
/// of the forward's own work, part by part.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rerun {
    /// Of the layers' GEMM FLOPs (the adapters' and the element-wise
    /// kernels' with them).
    pub gemms: f64,
    /// Of the attention's core (and context parallelism's ring with it).
    pub attention: f64,
    /// Of the tensor-parallel collectives.
    pub tensor_parallel: f64,
    /// Of a mixture of experts' all-to-alls.
    pub all_to_all: f64,
}

impl Rerun {
    /// Nothing recomputed.
    pub const NONE: Rerun = Rerun {
        gemms: 0.0,
        attention: 0.0,
        tensor_parallel: 0.0,
        all_to_all: 0.0,
    };

    /// A `share` of the layers rebuilt whole (full recomputation).
    pub const fn whole(share: f64) -> Rerun {
        Rerun {
            gemms: share,
            attention: share,
            tensor_parallel: share,
            all_to_all: share,
        }
    }

    /// What `setup` runs again on `arch` with model chunks of `chunk` layers:
    /// full recomputation's share of the layers whole
    /// ([`ActivationSetup::recomputed_share`]); under selective recomputation
    /// each module's own forward (Megatron-LM's `--recompute-modules`): the
    /// core attention's; a dense MLP's GEMMs and its collective (one of a
    /// layer's two); a whole mixture's routed and shared GEMMs, its
    /// collective and its all-to-alls; the shared experts' GEMMs; latent
    /// attention's up-projections. The norms and the experts' activation
    /// function are element-wise, rebuilt in a small fraction of the step:
    /// not counted.
    pub fn of(arch: &Architecture, setup: &ActivationSetup, chunk: u32) -> Rerun {
        use crate::memory::activations::RecomputeModule as M;
        match setup.recompute {
            Recompute::None => Rerun::NONE,
            Recompute::Full => Rerun::whole(setup.recomputed_share(chunk)),
            Recompute::Selective => {
                let has = |module| setup.modules.has(module);
                let (h, layers) = (f64::from(arch.hidden), f64::from(arch.layers.max(1)));
                // A SwiGLU's three weight matrices, a GELU MLP's two.
                let ffn_factor = match arch.mlp {
                    Mlp::SwiGlu => 3.0,
                    Mlp::Gelu => 2.0,
                };
                let dense = f64::from(arch.dense_layer_count());
                let sparse = f64::from(arch.layers) - dense;
                let attended = f64::from(arch.layers - arch.linear_layer_count());
                let moe = arch.moe;
                // Forward GEMM weights a token meets, over the model's layers.
                let dense_mlp = dense * ffn_factor * h * f64::from(arch.ffn);
                let routed =
                    sparse * f64::from(moe.top_k) * ffn_factor * h * f64::from(moe.expert_ffn);
                let shared = sparse
                    * f64::from(moe.shared_experts)
                    * ffn_factor
                    * h
                    * f64::from(moe.shared_ffn);
                let m = arch.mla;
                let up_projections = match m.is_latent() {
                    true => {
                        attended
                            * f64::from(arch.heads)
                            * (f64::from(m.q_rank) * f64::from(m.nope_dim + m.rope_dim)
                                + f64::from(m.kv_rank) * f64::from(m.nope_dim + m.v_dim))
                    }
                    false => 0.0,
                };
                let mut rebuilt = 0.0;
                if has(M::PerOp) {
                    // torchtitan's per-op policy: the linears it does not
                    // save, every layer; the attention kernel's output is
                    // saved; the all-gathers ahead of the column-parallel
                    // linears (half a layer's collectives) run again, the
                    // reduce-scatters' outputs are saved.
                    let linears = crate::memory::activations::per_op_linears(arch);
                    let unsaved: f64 = linears.iter().filter(|l| !l.saved).map(|l| l.weights).sum();
                    rebuilt += layers * unsaved;
                }
                if has(M::Mlp) {
                    rebuilt += dense_mlp;
                }
                if has(M::Moe) {
                    rebuilt += routed + shared;
                } else if has(M::SharedExperts) {
                    rebuilt += shared;
                }
                if has(M::MlaUpProjection) {
                    rebuilt += up_projections;
                }
                // Every layer GEMM of one token, forward and backward
                // (Megatron-LM's count without the logits).
                let vocab = arch.vocab;
                let (with_logits, _) = megatron_flops_parts(arch, 1.0, 1, vocab);
                let layer_gemms = with_logits - 6.0 * h * f64::from(vocab);
                let collectives = (if has(M::Mlp) { dense } else { 0.0 }
                    + if has(M::Moe) { sparse } else { 0.0 }
                    + if has(M::PerOp) { layers } else { 0.0 })
                    / (2.0 * layers);
                Rerun {
                    gemms: match layer_gemms > 0.0 {
                        true => 6.0 * rebuilt / layer_gemms,
                        false => 0.0,
                    },
                    attention: f64::from(u8::from(has(M::CoreAttention))),
                    tensor_parallel: collectives,
                    all_to_all: f64::from(u8::from(has(M::Moe) && moe.is_moe())),
                }
            }
        }
    }
}

/// One step's work, what it moves and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepWork<'a> {
    /// The model.
    pub arch: &'a Architecture,
    /// The layout (validated).
    pub layout: Layout,
    /// Data-parallel degree.
    pub dp: u32,
    /// Microbatches per step on each pipeline (global batch ÷ (micro-batch × DP)).
    pub microbatches: u32,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Tokens per sequence.
    pub seq_len: u32,
    /// What of the layers' forward pass runs again in the backward pass
    /// ([`Rerun::of`]): none without recomputation, all of it with every
    /// layer rebuilt, N ÷ chunk with Megatron-LM's block method, the chosen
    /// modules' with selective recomputation.
    pub rerun: Rerun,
    /// Bytes of one activation value (TP's and the pipeline's messages).
    pub activation_bytes: f64,
    /// How the attention's core runs (FlashAttention, or the score matrix
    /// written out).
    pub attention: efficiency::AttentionKernel,
    /// The ZeRO stage (or DDP) over DP × CP.
    pub strategy: Strategy,
    /// Expert-parallel ranks (1 without).
    pub ep: u32,
    /// Parameters on one GPU (its stage's share; routed experts ÷ TP, not
    /// yet ÷ EP).
    pub params_on_gpu: f64,
    /// Of which routed experts' (÷ TP): EP divides them, and their gradients
    /// reduce over the expert-data-parallel group, DP × CP ÷ EP.
    pub expert_params_on_gpu: f64,
    /// Bytes of one gradient element as reduced.
    pub gradient_bytes: f64,
    /// Bytes of one weight element as gathered.
    pub weight_bytes: f64,
    /// Bytes per parameter moved over PCIe each step by offload (0 without).
    pub offload_bytes_per_param: f64,
    /// The step's settings as typed: [`Speed::overlap_grad`] and the switches
    /// a later step-time field adds, read by the formula they change.
    pub speed: Speed,
    /// The share of the parameters trained: 1 in full training, the adapters'
    /// share with LoRA or QLoRA, whose frozen base has no gradients to reduce.
    pub trainable_fraction: f64,
    /// GPUs per sharding group ([`crate::memory::TrainingSetup::shard_gpus`]);
    /// DP × CP (or 0) shards over all of them.
    pub shard_gpus: u32,
}

/// The time of one step, its parts in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    /// FLOPs the GPUs run for the global batch: Megatron-LM's count, the
    /// transformer layers' × 4/3 under full recomputation (not the logits').
    pub flops: f64,
    /// Model FLOPs of the global batch (PaLM's definition: Megatron-LM's
    /// count, no recomputation).
    pub model_flops: f64,
    /// Model FLOPs utilisation (PaLM, Chowdhery et al. 2022, appendix B):
    /// model FLOPs ÷ (step × GPUs × peak), bubble and communication included.
    pub mfu: f64,
    /// The compute of the slowest pipeline stage (the last: its layers and
    /// the logits), its FLOPs run at the kernels' efficiency × peak.
    pub compute_seconds: f64,
    /// The share of the 16-bit peak at which the slowest stage ran its FLOPs
    /// (its GEMMs, attention and element-wise kernels together): the typed
    /// efficiency, or what the kernel model gives for this shape (above
    /// the share of a 16-bit GEMM in FP8).
    pub kernel_efficiency: f64,
    /// The pipeline's idle time: (p − 1)/(m·v) of the compute.
    pub bubble_seconds: f64,
    /// Tensor parallelism's all-reduces (or SP's all-gathers and
    /// reduce-scatters), not overlapped, and the pipeline's sends.
    pub tensor_parallel_seconds: f64,
    /// Expert parallelism's all-to-alls (each token's top-k copies dispatched
    /// and combined, forward and backward), not overlapped.
    pub expert_parallel_seconds: f64,
    /// Context parallelism's ring exchange of keys and values (and their
    /// gradients backward) beyond the attention it overlaps.
    pub context_parallel_seconds: f64,
    /// Data parallelism's and ZeRO's traffic beyond what the backward pass hides.
    pub data_parallel_seconds: f64,
    /// Offload's PCIe traffic.
    pub offload_seconds: f64,
    /// Everything exposed beyond the compute and bubble.
    pub exposed_communication_seconds: f64,
    /// The step.
    pub step_seconds: f64,
    /// Tokens per second per GPU.
    pub tokens_per_second_per_gpu: f64,
}

/// The step's time for `work` on `machine`.
///
/// Tensor parallelism sends, per layer and microbatch, two all-reduces of the
/// layer's s·b·h activations forward and two backward (three of each with
/// full recomputation, which runs the forward again); a ring all-reduce moves
/// 2(t − 1)/t of the buffer per GPU, as do SP's all-gather plus reduce-scatter.
/// The pipeline sends each microbatch's activations forward and its gradient
/// back across each stage boundary. Data parallelism: DDP all-reduces the
/// gradients once a step (2Ψ(n − 1)/n elements); ZeRO-1 reduce-scatters them
/// once and gathers the updated weights (Ψ(n − 1)/n each); ZeRO-2
/// reduce-scatters them every microbatch and gathers the weights once; ZeRO-3 gathers the
/// weights forward and backward and reduce-scatters the gradients every
/// microbatch (3Ψ(n − 1)/n each). A gradient reduction hides behind at most
/// the one backward pass it follows (2/3 of a microbatch's compute), and only
/// where it is overlapped: with `overlap_grad`, and under ZeRO-3, whose
/// `overlap_comm` DeepSpeed turns on by default; otherwise it waits for the
/// backward to end, as Megatron-LM (`--overlap-grad-reduce` off, the first
/// m − 1 microbatches under `no_sync`) and DeepSpeed below ZeRO-3 run it.
/// ZeRO-3's gathers hide behind the forward passes (1/3 of the compute); the
/// rest is exposed. Offload moves each GPU's own partition over PCIe once a
/// step, unhidden, and the host runs the optimizer step on its node's shards
/// at [`HOST_BYTES_PER_S`].
///
/// The compute is the slowest pipeline stage's (1F1B: the last, with the
/// logits), its FLOPs (full recomputation reruns the layers' forward, not the
/// logits') at the kernels' efficiency × peak ([`Efficiency`]); the bubble
/// (p − 1)/(m·v) of it. The step's model FLOPs utilisation is PaLM's.
pub fn step_time(work: &StepWork, machine: &Machine) -> StepTime {
    let l = work.layout;
    let world = f64::from(work.dp) * l.model_parallel() as f64;
    let m = f64::from(work.microbatches.max(1));
    let f = step_flops(work, m);
    let flops = f.layers_run + f.logits_run;
    let stage = slowest_stage(work, machine, &f, world);
    let compute = stage.seconds;
    let kernel_efficiency = stage.flops / (compute * stage.per_stage_gpus * machine.peak_flops);
    let (p, v) = (f64::from(l.pp), f64::from(l.vpp));
    // Narayanan et al.'s (p − 1)/(m·v) of the slowest stage: p − 1 virtual
    // stages fill and drain the pipeline. Where a rank's virtual stages
    // differ, each of those slots lasts the longest one's microbatch.
    let bubble = match l.chunks_may_differ() {
        false => compute * (p - 1.0) / (m * v),
        true => stage.longest_chunk * (p - 1.0) / m,
    };
    let x = Exchange::of(work, machine, m, stage.layers);
    let tensor = tensor_parallel_seconds(&x, &f, &stage);
    let pipeline = pipeline_seconds(&x);
    let expert = expert_parallel_seconds(&x);
    let context = context_parallel_seconds(&x, &f, &stage);
    let data_parallel = data_parallel_seconds(work, &x.links, m, compute);
    let offload = offload_seconds(work, machine);
    let exposed = tensor + pipeline + expert + context + data_parallel + offload;
    let step = compute + bubble + exposed;
    let time = StepTime {
        flops,
        model_flops: f.model_flops,
        mfu: f.model_flops / (step * world * machine.peak_flops),
        compute_seconds: compute,
        kernel_efficiency,
        bubble_seconds: bubble,
        tensor_parallel_seconds: tensor + pipeline,
        expert_parallel_seconds: expert,
        context_parallel_seconds: context,
        data_parallel_seconds: data_parallel,
        offload_seconds: offload,
        exposed_communication_seconds: exposed,
        step_seconds: step,
        tokens_per_second_per_gpu: f.sequences * f64::from(work.seq_len) / step / world,
    };
    // A run's achieved throughput gives the step directly: its FLOPs at that
    // rate on every GPU, the bubble and the communication inside it.
    match machine.achieved_flops {
        Some(achieved) => {
            let step = flops / (world * achieved);
            StepTime {
                mfu: f.model_flops / (step * world * machine.peak_flops),
                compute_seconds: step,
                kernel_efficiency: achieved / machine.peak_flops,
                bubble_seconds: 0.0,
                tensor_parallel_seconds: 0.0,
                expert_parallel_seconds: 0.0,
                context_parallel_seconds: 0.0,
                data_parallel_seconds: 0.0,
                offload_seconds: 0.0,
                exposed_communication_seconds: 0.0,
                step_seconds: step,
                tokens_per_second_per_gpu: f.sequences * f64::from(work.seq_len) / step / world,
                ..time
            }
        }
        None => time,
    }
}

/// The FLOPs of one step's global batch, part by part: what the model needs
/// and what the GPUs run, recomputation included ([`step_flops`]).
#[derive(Debug, Clone, Copy)]
struct StepFlops {
    /// Sequences in the global batch.
    sequences: f64,
    /// The vocabulary as Megatron-LM pads it for TP.
    vocab: u32,
    /// The output layer's GEMMs and each MTP layer's own, FLOPs.
    logits: f64,
    /// The MTP layers' GEMMs beside the logits, FLOPs.
    mtp_gemms: f64,
    /// The MTP layers' attention core, FLOPs.
    mtp_core: f64,
    /// The transformer layers' GEMMs with a weight, FLOPs.
    layer_gemms: f64,
    /// The transformer layers' QKᵀ and softmax·V, FLOPs.
    attention_core: f64,
    /// The share of a weight's three GEMMs that run: 1, or 2/3 for a frozen
    /// weight (no weight gradient).
    kept_gemms: f64,
    /// The adapters' own GEMMs, FLOPs.
    adapters: f64,
    /// 1 + the share of the GEMMs' forward run again ÷ 3.
    recompute: f64,
    /// 1 + the share of the attention core's forward run again ÷ 3.
    recompute_attention: f64,
    /// Model FLOPs (PaLM's definition: no recomputation).
    model_flops: f64,
    /// FLOPs the GPUs run in the transformer layers.
    layers_run: f64,
    /// FLOPs the last stage runs beyond its layers: the logits and the MTP layers.
    logits_run: f64,
}

/// The FLOPs of `work`'s global batch of `m` microbatches per pipeline, in
/// the parts the step's time runs at different rates.
fn step_flops(work: &StepWork, m: f64) -> StepFlops {
    let l = work.layout;
    let sequences = m * f64::from(work.micro_batch) * f64::from(work.dp);
    // Each part's forward again, a third of its forward and backward.
    let rerun = work.rerun;
    let (recompute, recompute_attention) = (1.0 + rerun.gemms / 3.0, 1.0 + rerun.attention / 3.0);
    let vocab = crate::frameworks::megatron::padded_vocab(work.arch.vocab, l.tp);
    let (weight_gemms, attention_core) =
        megatron_flops_parts(work.arch, sequences, work.seq_len, vocab);
    let tokens = sequences * f64::from(work.seq_len);
    // The output layer's three GEMMs: on the last pipeline stage, and not
    // recomputed (Megatron-LM's full recomputation reruns the transformer
    // layers' forward only).
    let mtp = f64::from(work.arch.mtp_layers);
    let logits = 6.0 * tokens * f64::from(work.arch.hidden) * f64::from(vocab) * (1.0 + mtp);
    // Multi-token prediction's layers run on the last stage beside the
    // logits: their GEMMs and attention, what the count adds for them.
    let (mtp_gemms, mtp_core) = match work.arch.mtp_layers {
        0 => (0.0, 0.0),
        _ => {
            let without = Architecture {
                mtp_layers: 0,
                ..*work.arch
            };
            let (gemms, core) = megatron_flops_parts(&without, sequences, work.seq_len, vocab);
            let head = 6.0 * tokens * f64::from(work.arch.hidden) * f64::from(vocab);
            (
                weight_gemms - gemms - (logits - head),
                attention_core - core,
            )
        }
    };
    let layer_gemms = weight_gemms - logits - mtp_gemms;
    let attention_core = attention_core - mtp_core;
    // A frozen weight has no weight gradient: its forward and data gradient
    // remain (two of three GEMMs); the adapters' own three GEMMs per trained
    // parameter come on top.
    let (kept_gemms, adapters) = match work.trainable_fraction < 1.0 {
        false => (1.0, 0.0),
        true => (
            2.0 / 3.0,
            6.0 * work.trainable_fraction * work.params_on_gpu * tokens,
        ),
    };
    // Model FLOPs (PaLM's definition: what the model needs, no recomputation)
    // and what the GPUs run: full recomputation runs the layers' forward
    // again (a third more of their GEMMs, the attention's and the adapters').
    let model_flops = weight_gemms * kept_gemms + attention_core + mtp_core + adapters;
    let layers_run = layer_gemms * kept_gemms
        + attention_core
        + adapters
        + (layer_gemms + adapters) * (recompute - 1.0)
        + attention_core * (recompute_attention - 1.0);
    // The last stage's own: the logits (never recomputed) and the MTP
    // layers (rebuilt as the others).
    let logits_run = logits * kept_gemms
        + mtp_gemms * (kept_gemms + recompute - 1.0)
        + mtp_core * recompute_attention;
    StepFlops {
        sequences,
        vocab,
        logits,
        mtp_gemms,
        mtp_core,
        layer_gemms,
        attention_core,
        kept_gemms,
        adapters,
        recompute,
        recompute_attention,
        model_flops,
        layers_run,
        logits_run,
    }
}

/// The pipeline stage that sets the step's pace ([`slowest_stage`]).
#[derive(Debug, Clone, Copy)]
struct StageCompute {
    /// Its compute, seconds.
    seconds: f64,
    /// The FLOPs it runs.
    flops: f64,
    /// Its transformer layers.
    layers: u32,
    /// GPUs per pipeline stage.
    per_stage_gpus: f64,
    /// The rates its kernels run at, as shares of the 16-bit peak.
    rates: efficiency::Rates,
    /// The longest virtual stage of any rank, seconds over the step.
    longest_chunk: f64,
}

/// The kernels' rates for `work`'s layers on `machine` (its vocabulary
/// padded to `vocab`), the bytes per second the element-wise kernels stream
/// (0 for a typed efficiency), and the FP8 peak ÷ the 16-bit one in FP8.
fn kernel_rates(
    work: &StepWork,
    machine: &Machine,
    vocab: u32,
) -> (efficiency::Rates, f64, Option<f64>) {
    let l = work.layout;
    // Each part at its rate: the layers' GEMMs (in FP8 at their share of
    // the FP8 peak), the attention's core, the adapters' GEMMs and the
    // logits, as shares of the 16-bit peak; the element-wise kernels at the
    // memory's bandwidth (the kernel model only).
    let fp8_over_16bit = machine.fp8_peak_flops.map(|fp8| fp8 / machine.peak_flops);
    let shape = efficiency::LayerShape {
        tokens: f64::from(work.micro_batch) * f64::from(work.seq_len) / f64::from(l.cp),
        tp: f64::from(l.tp),
        expert_tp: f64::from(l.expert_tp_size()),
        ep: f64::from(work.ep.max(1)),
        fp8: fp8_over_16bit.is_some(),
        amax_pass: machine.fp8_amax_pass,
        activation_bytes: work.activation_bytes,
        attention: work.attention,
        keys: f64::from(work.seq_len),
    };
    let (rates, streaming) = match machine.efficiency {
        Efficiency::Typed(share) => (efficiency::Rates::flat(share, fp8_over_16bit), 0.0),
        Efficiency::Kernels(kernels) => (
            efficiency::layer_rates(
                work.arch,
                &kernels,
                &shape,
                vocab,
                fp8_over_16bit.unwrap_or(1.0),
            ),
            kernels.hbm_bytes_per_s * kernels.streaming,
        ),
    };
    (rates, streaming, fp8_over_16bit)
}

/// The slowest pipeline stage of `work` on `machine` over `world` GPUs: its
/// FLOPs `f` at the kernels' rates, seconds.
fn slowest_stage(work: &StepWork, machine: &Machine, f: &StepFlops, world: f64) -> StageCompute {
    let l = work.layout;
    let (rates, streaming, fp8_over_16bit) = kernel_rates(work, machine, f.vocab);
    let (recompute, recompute_attention) = (f.recompute, f.recompute_attention);
    let sixteen_bit_layers = rates.layers / fp8_over_16bit.unwrap_or(1.0);
    // The layers' FLOPs as FLOPs at the 16-bit peak.
    let layers_cost = f.layer_gemms * (f.kept_gemms + recompute - 1.0) / rates.layers
        + f.attention_core * recompute_attention / rates.attention
        + f.adapters * recompute / sixteen_bit_layers;
    let logits_cost = f.logits * f.kept_gemms / rates.logits
        + f.mtp_gemms * (f.kept_gemms + recompute - 1.0) / rates.layers
        + f.mtp_core * recompute_attention / rates.attention;
    // Each layer's element-wise seconds on one GPU: the tokens its TP group
    // runs in the step, forward again under recomputation.
    let tokens = f.sequences * f64::from(work.seq_len);
    let group_tokens = tokens / (f64::from(work.dp) * f64::from(l.cp));
    // The unfused attention's score matrix: its forward again where the
    // core attention is recomputed.
    let (score_forward, score_backward) = rates.score_bytes_per_token;
    let scores = score_forward * (1.0 + work.rerun.attention) + score_backward;
    let streamed_per_layer = match streaming > 0.0 {
        true => group_tokens * (rates.streamed_bytes_per_token * recompute + scores) / streaming,
        false => 0.0,
    };
    // The slowest pipeline stage sets the pace (1F1B): of an even split the
    // last, which runs its share of the layers and the logits; with uneven
    // first and last stages (Megatron-LM's `--decoder-first/last-pipeline-
    // num-layers`) whichever stage's layers and logits run longest; with
    // the embedding or loss counted in the split, or a pipeline layout, any
    // rank's (a layout's multi-token-prediction layers on their own rank).
    let p = f64::from(l.pp);
    let layers = work.arch.layers;
    let per_stage_gpus = world / p;
    let rate = per_stage_gpus * machine.peak_flops;
    let mtp_apart = l.mtp_rank() + 1 != l.pp;
    let (end_cost, end_run) = match mtp_apart {
        false => (logits_cost, f.logits_run),
        true => (
            f.logits * f.kept_gemms / rates.logits,
            f.logits * f.kept_gemms,
        ),
    };
    let mtp_cost = logits_cost - end_cost;
    let mtp_run = f.logits_run - end_run;
    let ranks: Vec<u32> = match l.chunks_may_differ() {
        true => (0..l.pp).collect(),
        false => vec![0, 1.min(l.pp - 1), l.pp - 1],
    };
    let mut pace = (0.0, 0.0, 0);
    let mut longest_chunk: f64 = 0.0;
    for rank in ranks {
        let here = l.stage_layers(rank, layers);
        let share = f64::from(here) / f64::from(layers.max(1));
        let last = rank + 1 == l.pp;
        let mtp_here = mtp_apart && rank == l.mtp_rank();
        let cost = layers_cost * share
            + if last { end_cost } else { 0.0 }
            + if mtp_here { mtp_cost } else { 0.0 };
        let seconds = cost / rate + streamed_per_layer * f64::from(here);
        let run = f.layers_run * share
            + if last { end_run } else { 0.0 }
            + if mtp_here { mtp_run } else { 0.0 };
        // Its longest virtual stage: its layers' seconds in the chunk's
        // share, what runs beside the layers spread over its chunks.
        let beside = (cost - layers_cost * share) / rate;
        let chunk = l
            .chunk_counts(rank, layers)
            .map(|n| (seconds - beside) * f64::from(n) / f64::from(here.max(1)))
            .fold(0.0, f64::max)
            + beside / f64::from(l.vpp);
        longest_chunk = longest_chunk.max(chunk);
        if seconds > pace.0 {
            pace = (seconds, run, here);
        }
    }
    let (seconds, flops, pace_layers) = pace;
    StageCompute {
        seconds,
        flops,
        layers: pace_layers,
        per_stage_gpus,
        rates,
        longest_chunk,
    }
}

/// The links a group of neighbouring ranks communicates over: NVLink within
/// a node, the network beyond it.
#[derive(Debug, Clone, Copy)]
struct Links {
    /// GPUs per node.
    node: u64,
    /// Within a node, bytes per second each way.
    nvlink_bytes_per_s: f64,
    /// Between nodes, bytes per second each way.
    network_bytes_per_s: f64,
}

impl Links {
    /// `machine`'s links.
    fn of(machine: &Machine) -> Links {
        Links {
            node: u64::from(machine.gpus_per_node.max(1)),
            nvlink_bytes_per_s: machine.nvlink_bytes_per_s,
            network_bytes_per_s: machine.network_bytes_per_s,
        }
    }

    /// Bytes per second each way across a group of `span` neighbouring ranks:
    /// the network once it spans more than a node, one GPU's share of it
    /// (what a point-to-point send or an all-to-all gets: each GPU drives
    /// its own NIC).
    fn link(&self, span: u64) -> f64 {
        if span > self.node {
            self.network_bytes_per_s
        } else {
            self.nvlink_bytes_per_s
        }
    }

    /// Bytes per second each way a ring collective (all-reduce, all-gather,
    /// reduce-scatter) reaches per GPU over a group of `span` ranks spaced
    /// `stride` apart. Within a node, NVLink's. Across nodes, NCCL lays one
    /// ring per channel through the group's members on each node and out by
    /// a different NIC each (rail-optimised rings), so the data crossing
    /// between two nodes is split over as many NICs as the group has
    /// members on a node: `net` × those members, at most NVLink's (NCCL's
    /// ring algorithm, `ncclTopoCompute`'s channels; nccl-tests' bus
    /// bandwidth across DGX nodes is the node's NICs together, not one
    /// GPU's).
    fn ring(&self, span: u64, stride: u64) -> f64 {
        if span > self.node {
            let members = (self.node / stride.max(1)).max(1);
            (self.network_bytes_per_s * members as f64).min(self.nvlink_bytes_per_s)
        } else {
            self.nvlink_bytes_per_s
        }
    }
}

/// What the model-parallel collectives of a step share: the work, its links,
/// one microbatch's activation message and the pace-setting stage's layers.
struct Exchange<'a> {
    /// The step's work.
    work: &'a StepWork<'a>,
    /// The machine it runs on.
    machine: &'a Machine,
    /// Its links.
    links: Links,
    /// Microbatches per step on each pipeline.
    m: f64,
    /// Tokens of one microbatch on one CP rank.
    tokens_local: f64,
    /// One microbatch's activations on one CP rank (s·b·h), bytes.
    message: f64,
    /// The pace-setting stage's layers.
    layers_here: f64,
    /// Of which a mixture of experts' share.
    moe_layers: f64,
}

impl<'a> Exchange<'a> {
    /// The exchange of `work` on `machine`, `m` microbatches a step, its
    /// pace set by a stage of `pace_layers` layers.
    fn of(work: &'a StepWork<'a>, machine: &'a Machine, m: f64, pace_layers: u32) -> Self {
        let l = work.layout;
        let layers = work.arch.layers;
        // Megatron's rank order puts TP innermost, then CP, DP, PP outermost.
        let links = Links::of(machine);
        let tokens_local = f64::from(work.seq_len) / f64::from(l.cp) * f64::from(work.micro_batch);
        let message = tokens_local * f64::from(work.arch.hidden) * work.activation_bytes;
        // The pace-setting stage's layers, of which a mixture of experts' share.
        let layers_here = f64::from(pace_layers);
        let moe_layers = f64::from(layers - work.arch.dense_layer_count()) * layers_here
            / f64::from(layers.max(1));
        Exchange {
            work,
            machine,
            links,
            m,
            tokens_local,
            message,
            layers_here,
            moe_layers,
        }
    }

    /// One microbatch's activations as a tensor-parallel rank sends them,
    /// bytes: with sequence parallelism each rank holds 1/TP of the
    /// sequence, without it the whole [`Self::message`].
    fn rank_message(&self) -> f64 {
        let l = self.work.layout;
        if l.sp {
            self.message / f64::from(l.tp)
        } else {
            self.message
        }
    }

    /// The pace-setting stage's layers with full attention (not linear).
    fn full_attention_here(&self) -> f64 {
        let arch = self.work.arch;
        self.layers_here * f64::from(arch.layers - arch.linear_layer_count())
            / f64::from(arch.layers.max(1))
    }
}

/// Tensor parallelism's collectives a step leaves exposed on the
/// pace-setting stage, seconds (0 without TP).
fn tensor_parallel_seconds(x: &Exchange, f: &StepFlops, stage: &StageCompute) -> f64 {
    let (work, l) = (x.work, x.work.layout);
    let tp = f64::from(l.tp);
    // A layer's forward all-reduces (or SP's all-gather and reduce-scatter)
    // once around the attention and once around the MLP. A mixture of
    // experts' MLP instead gathers its routed tokens, t copies of each, over
    // the expert-tensor-parallel group (ETP = TP) and reduce-scatters their
    // outputs (Megatron-LM's `token_dispatcher.py`), and its shared experts
    // all-reduce as a dense MLP does: 1 + t + [n > 0] messages for 2.
    let moe = work.arch.moe;
    // With ETP = 1 no routed copies are gathered over TP: the all-to-all
    // carries them.
    let gathered_copies = match l.expert_tp {
        crate::memory::parallel::ExpertTp::AsTp => f64::from(moe.top_k),
        crate::memory::parallel::ExpertTp::One => 0.0,
    };
    let moe_messages = 1.0 + gathered_copies + f64::from(u8::from(moe.shared_experts > 0));
    let messages = (x.layers_here - x.moe_layers) + x.moe_layers * moe_messages / 2.0;
    // In units of one all-gather or reduce-scatter of a message (an
    // all-reduce is two), as Transformer Engine's linears run them
    // (`module/linear.py`, `layernorm_linear.py`): forward, the two
    // row-parallel outputs' all-reduces (with SP: the two column-parallel
    // inputs' all-gathers and the two outputs' reduce-scatters), 4 units,
    // exposed, and again in a recomputed forward; backward, the two
    // column-parallel data gradients' all-reduces (SP: reduce-scatters)
    // run asynchronously behind the weight-gradient GEMMs, and with SP TE
    // gathers each column-parallel input again for its weight gradient,
    // asynchronously behind the data-gradient GEMM, and gathers the two
    // row-parallel output gradients, exposed: with SP 10 units a layer
    // where 8 move without it (issue 48, error 10), 4 of them hidden as
    // far as the backward's GEMMs last.
    if l.tp > 1 {
        let unit = messages * x.m * x.message * (tp - 1.0) / tp / x.links.ring(u64::from(l.tp), 1);
        let exposed = 4.0 + 4.0 * work.rerun.tensor_parallel + if l.sp { 2.0 } else { 0.0 };
        let backward_gemms = f.layer_gemms * f.kept_gemms * 2.0 / 3.0 / stage.rates.layers
            * f64::from(stage.layers)
            / f64::from(work.arch.layers.max(1))
            / (stage.per_stage_gpus * x.machine.peak_flops);
        unit * exposed + (unit * 4.0 - backward_gemms).max(0.0)
    } else {
        0.0
    }
}

/// The pipeline's sends of each microbatch's activations forward and their
/// gradients back across a stage boundary, seconds (0 without PP).
fn pipeline_seconds(x: &Exchange) -> f64 {
    let (work, l) = (x.work, x.work.layout);
    let v = f64::from(l.vpp);
    let inner = u64::from(l.tp) * u64::from(l.cp) * u64::from(work.dp);
    if l.pp > 1 {
        2.0 * x.m * v * x.rank_message() / x.links.link(inner + 1)
    } else {
        0.0
    }
}

/// Expert parallelism's all-to-alls on the pace-setting stage, seconds (0
/// without EP or experts).
fn expert_parallel_seconds(x: &Exchange) -> f64 {
    let (work, l, machine) = (x.work, x.work.layout, x.machine);
    if work.ep > 1 && work.arch.moe.is_moe() {
        let ep = f64::from(work.ep);
        let message = x.rank_message();
        // The EP group: ETP × EP neighbouring ranks (Megatron-LM builds the
        // expert grid with CP = 1; ETP is TP, or 1), so TP 1 · CP 2 · EP 8 on 8-GPU nodes
        // stays on NVLink. A group wider than a node sends to its peers in
        // the node over NVLink and to the others over the network at once:
        // the slower of the two shares sets the time.
        let peers_in_node = (f64::from(machine.gpus_per_node.max(1))
            / f64::from(l.expert_tp_size()))
        .floor()
        .clamp(1.0, ep);
        // Dispatch and combine, forward and backward, and again in a
        // recomputed forward.
        let passes = 4.0 + 2.0 * work.rerun.all_to_all;
        let copies = x.moe_layers * x.m * passes * f64::from(work.arch.moe.top_k) * message;
        let within = copies * (peers_in_node - 1.0) / ep / machine.nvlink_bytes_per_s;
        let across = copies * (ep - peers_in_node) / ep / machine.network_bytes_per_s;
        within.max(across)
    } else {
        0.0
    }
}

/// Context parallelism's exchange of keys and values beyond the attention
/// it overlaps, seconds (0 without CP).
///
/// Context parallelism (Megatron-LM with Transformer Engine's ring
/// attention, `cp_comm_type` p2p: `attention/dot_product_attention/
/// context_parallel.py`): each of a layer's full-attention passes sends
/// this rank's K and V chunk around the ring, CP − 1 hops, each hop
/// overlapped with the attention on the chunk before; backward sends K,
/// V and their gradients (twice the forward's), and a recomputed forward
/// sends again. Per layer and microbatch the exposed time is what the
/// exchange takes beyond the layer's own attention.
fn context_parallel_seconds(x: &Exchange, f: &StepFlops, stage: &StageCompute) -> f64 {
    let l = x.work.layout;
    if l.cp > 1 && l.cp_comm == crate::memory::parallel::CpComm::AllToAll {
        ulysses_seconds(x)
    } else if l.cp > 1 {
        ring_attention_seconds(x, f, stage)
    } else {
        0.0
    }
}

/// Ulysses's all-to-alls (`cp_comm_type` a2a; DeepSpeed-Ulysses), seconds:
/// before each full-attention layer's attention an all-to-all of q, k and v
/// trades the sequence split for a head split, after it one of the output
/// trades back; backward the same for their gradients, and again in a
/// recomputed forward. Each GPU sends (CP − 1)/CP of its part, exposed
/// (nothing runs beside it).
fn ulysses_seconds(x: &Exchange) -> f64 {
    let (work, l) = (x.work, x.work.layout);
    let tp = f64::from(l.tp);
    let cp = f64::from(l.cp);
    let (q, kv) = (
        work.arch.q_width() as f64 / tp,
        work.arch.kv_width() as f64 / tp,
    );
    let per_pass = x.tokens_local * (q + 2.0 * kv + q) * work.activation_bytes * (cp - 1.0) / cp;
    let full_here = x.full_attention_here();
    per_pass * (2.0 + work.rerun.attention) * full_here * x.m
        / x.links.link(u64::from(l.tp) * u64::from(l.cp))
}

/// The ring attention's exchange (`cp_comm_type` p2p) beyond the attention
/// each hop overlaps, seconds.
fn ring_attention_seconds(x: &Exchange, f: &StepFlops, stage: &StageCompute) -> f64 {
    let (work, l) = (x.work, x.work.layout);
    let tp = f64::from(l.tp);
    let cp = f64::from(l.cp);
    let kv = work.arch.kv_width() as f64 / tp;
    let chunk = 2.0 * x.tokens_local * kv * work.activation_bytes;
    let hops = (cp - 1.0) * chunk * (3.0 + work.rerun.attention);
    let exchange = hops / x.links.link(u64::from(l.tp) * u64::from(l.cp));
    let full_here = x.full_attention_here();
    let full_layers = f64::from((work.arch.layers - work.arch.linear_layer_count()).max(1));
    let attention = f.attention_core * f.recompute_attention
        / stage.rates.attention
        / (full_layers * x.m * stage.per_stage_gpus * x.machine.peak_flops);
    (exchange - attention).max(0.0) * full_here * x.m
}

/// Expert parallelism's degree (at least 1), and the routed experts'
/// parameters on one GPU before EP divides them (at most all of them).
fn expert_split(work: &StepWork) -> (f64, f64) {
    let ep = f64::from(work.ep.max(1));
    let experts = work.expert_params_on_gpu.min(work.params_on_gpu);
    (ep, experts)
}

/// The data-parallel group ZeRO shards over.
#[derive(Debug, Clone, Copy)]
struct ShardGroup {
    /// GPUs over which the model states are replicated or sharded: DP × CP.
    n: f64,
    /// GPUs per sharding group: n, or the HSDP/MiCS group's.
    g: f64,
    /// Whether ZeRO shards within groups smaller than n.
    sharded: bool,
}

/// `work`'s sharding group: a sharding group (HSDP, MiCS) of g GPUs runs
/// ZeRO's reduce-scatters and gathers within it, and each GPU's Ψ/g
/// gradients are all-reduced across the n ÷ g groups once a step. DDP
/// shards nothing.
fn shard_group(work: &StepWork) -> ShardGroup {
    let l = work.layout;
    let n = f64::from(work.dp) * f64::from(l.cp);
    let sharded =
        work.strategy != Strategy::Ddp && work.shard_gpus > 0 && work.shard_gpus < work.dp * l.cp;
    let g = if sharded {
        f64::from(work.shard_gpus)
    } else {
        n
    };
    ShardGroup { n, g, sharded }
}

/// Data parallelism's and ZeRO's traffic in a step of `m` microbatches at
/// the `links`, seconds: the gradients' reductions and the weights' gathers.
fn data_parallel_traffic(work: &StepWork, links: &Links, m: f64) -> (f64, f64) {
    let l = work.layout;
    let ShardGroup { n, g, sharded } = shard_group(work);
    // Expert parallelism divides the routed experts, whose gradients reduce
    // over the expert-data-parallel group (Megatron-LM's expert grid:
    // world ÷ (EP × ETP × PP), ETP = TP, so DP × CP ÷ EP); the rest over DP × CP.
    let (ep, experts) = expert_split(work);
    let groups = [
        (work.params_on_gpu - experts, g),
        (experts / ep, (n * f64::from(l.expert_fold()) / ep).max(1.0)),
    ];
    // The elements each GPU sends, summed over the groups: a reduction of
    // `x` elements over `g` GPUs moves x·(g − 1)/g of them.
    let moved = |share: f64| {
        groups
            .iter()
            .map(|&(x, g)| share * x * (g - 1.0) / g)
            .sum::<f64>()
    };
    // Only what is trained has gradients, and only it is updated: a frozen
    // base moves under ZeRO-3's gathers alone.
    let trained = moved(work.trainable_fraction);
    let all = moved(1.0);
    // ZeRO-1 reduce-scatters the gradients once a step and all-gathers the
    // updated weights: 2Ψ as DDP's all-reduce (ZeRO paper §7.2.1), but the
    // gather waits for the optimizer step, behind no backward pass.
    let (gradient_elements, gather_elements) = match work.strategy {
        Strategy::Ddp => (2.0 * trained, 0.0),
        Strategy::Zero1 => (trained, trained),
        Strategy::Zero2 => (m * trained, trained),
        Strategy::Zero3 => (m * trained, 2.0 * m * all),
    };
    // The data-parallel ranks are TP apart (Megatron-LM's order: TP, CP,
    // DP, PP); a sharding group is g of them, the replicas g · TP apart.
    let tp = u64::from(l.tp);
    let dp_link = links.ring(tp * u64::from(l.cp) * u64::from(work.dp), tp * g as u64);
    let group_link = links.ring(tp * g as u64, tp);
    let across = if sharded {
        let r = n / g;
        2.0 * work.trainable_fraction * (work.params_on_gpu / g) * (r - 1.0) / r
    } else {
        0.0
    };
    let gradients = gradient_elements * work.gradient_bytes / group_link
        + across * work.gradient_bytes / dp_link;
    let gathers = gather_elements * work.weight_bytes / group_link;
    (gradients, gathers)
}

/// Data parallelism's and ZeRO's traffic beyond what the compute hides, in
/// a step of `m` microbatches and `compute` seconds of compute, seconds.
fn data_parallel_seconds(work: &StepWork, links: &Links, m: f64, compute: f64) -> f64 {
    let (gradients, gathers) = data_parallel_traffic(work, links, m);
    // DDP and ZeRO-1 reduce once, after the last microbatch; ZeRO-2 and
    // ZeRO-3 after every microbatch, each behind its own backward at most.
    let reductions = match work.strategy {
        Strategy::Ddp | Strategy::Zero1 => 1.0,
        Strategy::Zero2 | Strategy::Zero3 => m,
    };
    let overlapped = work.speed.overlap_grad || work.strategy == Strategy::Zero3;
    let behind_backward = match overlapped {
        true => reductions * compute * 2.0 / 3.0 / m,
        false => 0.0,
    };
    // ZeRO-3 gathers each layer's weights ahead of its forward pass and
    // again ahead of its backward pass (DeepSpeed's and FSDP's prefetch):
    // the forward's half hides behind the forward passes (1/3 of the
    // compute), the backward's shares the backward passes (2/3) with the
    // gradients' reduce-scatters. ZeRO-1 and ZeRO-2 gather the updated
    // weights once, after the optimizer step: exposed, unless Megatron's
    // --overlap-param-gather (with --overlap-grad-reduce) launches them
    // during the first microbatch's forward (1/3 of its compute).
    let overlapped_gather = work.speed.overlap_param && work.speed.overlap_grad;
    match work.strategy {
        Strategy::Zero3 => {
            (gathers / 2.0 - compute / 3.0).max(0.0)
                + (gathers / 2.0 + gradients - behind_backward).max(0.0)
        }
        Strategy::Zero1 | Strategy::Zero2 if overlapped_gather => {
            (gradients - behind_backward).max(0.0) + (gathers - compute / 3.0 / m).max(0.0)
        }
        _ => (gradients - behind_backward).max(0.0) + gathers,
    }
}

/// Offload's seconds a step: the bytes over PCIe, and the optimizer step on
/// the host, which streams each offloaded parameter's fp32 copy and moments
/// in and out (0 without offload).
fn offload_seconds(work: &StepWork, machine: &Machine) -> f64 {
    // Each GPU moves its own ZeRO partition (DeepSpeed's stage_1_and_2.py
    // copies the partition's gradients to the host and its updated 16-bit
    // weights back; ZeRO-3 fetches each partition), Ψ/n of the stage's.
    if work.offload_bytes_per_param > 0.0 {
        let (ep, experts) = expert_split(work);
        let psi = work.params_on_gpu - experts + experts / ep;
        let partition = psi / shard_group(work).g;
        let host_params = partition * f64::from(machine.gpus_per_node);
        partition * work.offload_bytes_per_param / machine.pcie_bytes_per_s
            + host_params * HOST_ADAM_BYTES_PER_PARAM / HOST_BYTES_PER_S
    } else {
        0.0
    }
}

/// A whole run: `tokens` training tokens in steps of `tokens_per_step`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Training {
    /// Training tokens.
    pub tokens: f64,
    /// Steps (rounded up).
    pub steps: f64,
    /// Seconds.
    pub seconds: f64,
    /// Days of 86,400 seconds.
    pub days: f64,
    /// Price × GPU-hours, when a price is given.
    pub cost: Option<f64>,
}

/// The run of `tokens` at `step` seconds a step of `tokens_per_step`, on
/// `gpus` GPUs at `price` per GPU-hour.
pub fn training(
    tokens: f64,
    tokens_per_step: f64,
    step: f64,
    gpus: f64,
    price: Option<f64>,
) -> Training {
    let steps = (tokens / tokens_per_step).ceil();
    let seconds = steps * step;
    Training {
        tokens,
        steps,
        seconds,
        days: seconds / 86_400.0,
        cost: price.map(|p| p * gpus * seconds / 3600.0),
    }
}

/// Bytes per parameter offload moves over PCIe each step: the gradients to
/// the host and the updated weights back; with the weights offloaded too,
/// each microbatch's forward and backward fetch them.
pub fn offload_bytes_per_param(
    work: &StepWork,
    offload: crate::frameworks::deepspeed::Offload,
) -> f64 {
    let both = work.gradient_bytes + work.weight_bytes;
    match offload {
        crate::frameworks::deepspeed::Offload::None => 0.0,
        crate::frameworks::deepspeed::Offload::Optimizer => both,
        crate::frameworks::deepspeed::Offload::All => {
            both + 2.0 * f64::from(work.microbatches) * work.weight_bytes
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::architecture::Moe;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Llama 2 7B's step on one GPU: one microbatch of one 4,096-token
    /// sequence under DDP, 16-bit weights, gradients and activations, every
    /// parameter trained; each test changes what it is about.
    fn llama2_7b_work(arch: &Architecture) -> StepWork<'_> {
        StepWork {
            arch,
            layout: Layout::SINGLE,
            dp: 1,
            microbatches: 1,
            micro_batch: 1,
            seq_len: 4096,
            rerun: Rerun::NONE,
            activation_bytes: 2.0,
            attention: efficiency::AttentionKernel::Fused,
            strategy: Strategy::Ddp,
            ep: 1,
            params_on_gpu: 6.74e9,
            expert_params_on_gpu: 0.0,
            gradient_bytes: 2.0,
            weight_bytes: 2.0,
            offload_bytes_per_param: 0.0,
            speed: Speed::DEFAULT,
            trainable_fraction: 1.0,
            shard_gpus: 0,
        }
    }

    /// Eight A100s a node at 40 % of the BF16 peak, NVLink 300 GB/s and a
    /// 25 GB/s network per GPU each way, PCIe 4.0.
    const A100: Machine = Machine {
        peak_flops: 312e12,
        efficiency: Efficiency::Typed(0.4),
        nvlink_bytes_per_s: 300e9,
        network_bytes_per_s: 25e9,
        pcie_bytes_per_s: 32e9,
        gpus_per_node: 8,
        achieved_flops: None,
        fp8_peak_flops: None,
        fp8_amax_pass: false,
    };

    /// [`A100`]s one a node: every collective over two or more crosses the
    /// network at one NIC's 25 GB/s.
    const ONE_A_NODE: Machine = Machine {
        gpus_per_node: 1,
        ..A100
    };

    /// A ring across nodes runs over as many NICs as the group has GPUs on
    /// a node, at most NVLink's pace: DDP over 16 A100s on two nodes
    /// all-reduces at 8 × 25 GB/s, with TP 8 inside each node (one DP rank
    /// a node) at one NIC's 25 GB/s, on GPUs alone in their nodes at 25 GB/s.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_ring_across_nodes_runs_over_each_nodes_nics() {
        let arch = model_preset("llama2-7b").unwrap().architecture;
        let work = |tp| StepWork {
            layout: Layout {
                tp,
                ..Layout::SINGLE
            },
            dp: 16,
            microbatches: 4,
            ..llama2_7b_work(&arch)
        };
        let all_reduce = 2.0 * 6.74e9 * 15.0 / 16.0 * 2.0;
        let seconds = |work: &StepWork, machine: &Machine| {
            data_parallel_traffic(work, &Links::of(machine), 4.0).0
        };
        let ratio = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-12;
        assert!(ratio(seconds(&work(1), &A100), all_reduce / 200e9));
        assert!(ratio(seconds(&work(8), &A100), all_reduce / 25e9));
        assert!(ratio(seconds(&work(1), &ONE_A_NODE), all_reduce / 25e9));
        // Sixteen NICs of 25 GB/s a node would outrun NVLink's 300: capped.
        let fat = Machine {
            gpus_per_node: 16,
            ..A100
        };
        let work32 = StepWork { dp: 32, ..work(1) };
        let reduce32 = 2.0 * 6.74e9 * 31.0 / 32.0 * 2.0;
        assert!(ratio(seconds(&work32, &fat), reduce32 / 300e9));
    }

    /// [`A100`] at 50 % of the BF16 peak.
    const A100_AT_HALF: Machine = Machine {
        efficiency: Efficiency::Typed(0.5),
        ..A100
    };

    /// Eight H100s a node at 40 % of the BF16 peak, NVLink 450 GB/s and a
    /// 50 GB/s network per GPU each way, PCIe 5.0.
    const H100: Machine = Machine {
        peak_flops: 989e12,
        efficiency: Efficiency::Typed(0.4),
        nvlink_bytes_per_s: 450e9,
        network_bytes_per_s: 50e9,
        pcie_bytes_per_s: 64e9,
        gpus_per_node: 8,
        achieved_flops: None,
        fp8_peak_flops: None,
        fp8_amax_pass: false,
    };

    /// Narayanan et al. 2021, §5.1: with the throughput set to the achieved
    /// figure, GPT-3 175B on 1,024 A100s at 140 TFLOP/s per GPU for 300 B
    /// tokens trains in about 34 days; the 1 T model on 3,072 GPUs at 163
    /// TFLOP/s for 450 B tokens in about 84 days (full recomputation). The
    /// compute part within 5 %.
    #[wasm_bindgen_test(unsupported = test)]
    fn published_training_times() {
        let days = |arch: &Architecture, gpus: f64, achieved: f64, tokens: f64| {
            let batch = 1536.0;
            let flops = megatron_flops(arch, batch, 2048, arch.vocab) * 4.0 / 3.0;
            let step = flops / (gpus * achieved);
            training(tokens, batch * 2048.0, step, gpus, None).days
        };
        let gpt3 = model_preset("gpt3-175b").unwrap().architecture;
        let d = days(&gpt3, 1024.0, 140e12, 300e9);
        assert!((d / 34.0 - 1.0).abs() < 0.05, "{d}");
        // The 1 T model of the paper's Table 1: 128 layers, h = 25,600, 160 heads.
        let one_t = Architecture {
            layers: 128,
            hidden: 25_600,
            ffn: 4 * 25_600,
            heads: 160,
            kv_heads: 160,
            ..gpt3
        };
        let d = days(&one_t, 3072.0, 163e12, 450e9);
        assert!((d / 84.0 - 1.0).abs() < 0.05, "{d}");
    }

    /// Issue 28: the published runs through the `achieved` key, the page's
    /// whole path (link, report, run): GPT-3 175B on 1,024 A100s (TP 8 ·
    /// PP 16 · DP 8) at Narayanan et al.'s 140 TFLOP/s, full recomputation,
    /// 300 B tokens, about 34 days (§5.1) within 5 %; the step's MFU below
    /// the achieved share of the peak by the recomputation's quarter of the
    /// layers. An achieved figure above the GPU's peak is set aside, named.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_published_run_through_the_achieved_key() {
        use crate::input::link::decode;
        let query = "model=gpt3-175b&gpu=a100-80gb&gpus=8&nodes=128&tp=8&pp=16&sp=1&seq=2048\
                     &global_batch=1536&recompute=full&achieved=140&tokens=300";
        let decoded = decode(query);
        assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        let report = decoded.config.report().unwrap();
        let days = report.training.unwrap().days;
        assert!((days / 34.0 - 1.0).abs() < 0.05, "{days}");
        let time = report.highlighted().time.unwrap();
        assert!((time.flops / (time.step_seconds * 1024.0) / 140e12 - 1.0).abs() < 1e-12);
        assert!(
            time.mfu < 140.0 / 312.0 && time.mfu > 0.7 * 140.0 / 312.0,
            "{}",
            time.mfu
        );
        let over = decode(&query.replace("achieved=140", "achieved=400"));
        assert_eq!(over.config.speed.achieved_tflops, None);
        assert!(
            over.problems.iter().any(|p| p.key == "achieved"),
            "{:?}",
            over.problems
        );
    }

    /// Issue 65: where a rank's virtual stages differ, each of the p − 1
    /// slots that fill and drain the pipeline lasts the longest virtual
    /// stage's microbatch. An even split written out as a pipeline layout is
    /// the even split: the same compute, bubble and activations; counting
    /// the embedding and the loss as layers (Llama 2 7B's shape with 30
    /// layers on PP 4 × VPP 2, 32 counted: 3 + 4 | 4 + 4 | 4 + 4 | 4 + 3)
    /// lightens the first and last ranks' outer chunks, and the bubble is
    /// 3/m of the longest chunk: between a middle rank's half and the
    /// slowest rank's whole.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_bubble_follows_the_longest_virtual_stage() {
        let run = |keys: &str| {
            let query = format!(
                "v=3&model=llama2-7b&layers=30&gpu=h100-80gb&gpus=8&pp=4&vpp=2&global_batch=32{keys}"
            );
            let decoded = crate::input::link::decode(&query);
            assert!(
                decoded.problems.is_empty(),
                "{query}: {:?}",
                decoded.problems
            );
            decoded.config.report().unwrap()
        };
        let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-12;
        let even = crate::input::link::decode(
            "v=3&model=llama2-7b&gpu=h100-80gb&gpus=8&pp=4&vpp=2&global_batch=32",
        )
        .config
        .report()
        .unwrap();
        let written = crate::input::link::decode(
            "v=3&model=llama2-7b&gpu=h100-80gb&gpus=8&pp=4&vpp=2&global_batch=32\
             &pp_layout=Et*4|(t*4|)*6t*4L",
        )
        .config
        .report()
        .unwrap();
        let (a, b) = (even.highlighted(), written.highlighted());
        let (ta, tb) = (a.time.unwrap(), b.time.unwrap());
        assert!(close(ta.compute_seconds, tb.compute_seconds));
        assert!(close(ta.bubble_seconds, tb.bubble_seconds));
        assert!(close(
            a.memory.activations.get(),
            b.memory.activations.get()
        ));
        // 30 layers and the two ends counted: 4-layer chunks but the outer two.
        let counted = run("&pp_embedding=1&pp_loss=1");
        let t = counted.highlighted().time.unwrap();
        let m = 32.0 / 2.0;
        // The longest chunk is at least a middle rank's half and at most the
        // slowest rank's whole.
        assert!(t.bubble_seconds >= t.compute_seconds * 3.0 / (2.0 * m) * 0.8);
        assert!(t.bubble_seconds <= t.compute_seconds * 3.0 / m);
        let layout = counted.layout.as_ref().unwrap().layout;
        assert_eq!(layout.chunk_counts(0, 30).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(layout.chunk_counts(3, 30).collect::<Vec<_>>(), [4, 3]);
    }

    /// The bubble is (p − 1)/(m·v) of the compute; no TP, no traffic.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_bubble_follows_the_schedule() {
        let arch = model_preset("llama2-70b").unwrap().architecture;
        let machine = A100_AT_HALF;
        let work = StepWork {
            layout: Layout {
                pp: 4,
                vpp: 2,
                ..Layout::SINGLE
            },
            microbatches: 16,
            params_on_gpu: 1e9,
            ..llama2_7b_work(&arch)
        };
        let t = step_time(&work, &machine);
        assert_eq!(t.bubble_seconds, t.compute_seconds * 3.0 / 32.0);
        assert_eq!(t.data_parallel_seconds, 0.0);
        // The last of four stages paces the pipeline: a quarter of the
        // layers and all of the logits.
        let logits = 6.0 * 16.0 * 4096.0 * 8192.0 * 32_000.0;
        let layers = megatron_flops(&arch, 16.0, 4096, arch.vocab) - logits;
        let expected = (layers / 4.0 + logits) / (312e12 * 0.5);
        assert!((t.compute_seconds / expected - 1.0).abs() < 1e-12);
    }

    /// Issue 28, items 1 and 2, on Llama 2 7B over 8 A100s: offload moves
    /// each GPU's own ZeRO partition over PCIe (Ψ/8, not Ψ), and ZeRO-1
    /// moves what ZeRO-2 moves in a one-microbatch step (2Ψ, ZeRO paper
    /// §7.2.1, its weights' gather behind no backward), and never more with
    /// more microbatches (ZeRO-2 reduce-scatters after every one).
    #[wasm_bindgen_test(unsupported = test)]
    fn offload_moves_a_partition_and_zero1_moves_what_zero2_does() {
        let arch = model_preset("llama2-7b").unwrap().architecture;
        let machine = A100;
        let work = |strategy, microbatches, overlap_grad, offload: f64| StepWork {
            dp: 8,
            microbatches,
            strategy,
            offload_bytes_per_param: offload,
            speed: Speed {
                overlap_grad,
                ..Speed::DEFAULT
            },
            ..llama2_7b_work(&arch)
        };
        let offloaded = step_time(&work(Strategy::Zero3, 1, false, 4.0), &machine);
        let host = 6.74e9 / 8.0 * 8.0 * HOST_ADAM_BYTES_PER_PARAM / HOST_BYTES_PER_S;
        let pcie = 6.74e9 / 8.0 * 4.0 / 32e9;
        assert!((offloaded.offload_seconds - (pcie + host)).abs() < 1e-12);
        let dp = |strategy, m, overlap| {
            step_time(&work(strategy, m, overlap, 0.0), &machine).data_parallel_seconds
        };
        for overlap in [false, true] {
            let (zero1, zero2) = (
                dp(Strategy::Zero1, 1, overlap),
                dp(Strategy::Zero2, 1, overlap),
            );
            assert!((zero1 - zero2).abs() < 1e-12, "{zero1} {zero2} {overlap}");
            // Four reduce-scatters: exposed, more than ZeRO-1's one; each
            // behind its own backward, as hidden as ZeRO-1's.
            let (zero1, zero2) = (
                dp(Strategy::Zero1, 4, overlap),
                dp(Strategy::Zero2, 4, overlap),
            );
            assert!(
                zero1 < zero2 || overlap && (zero1 - zero2).abs() < 1e-12,
                "{zero1} {zero2}"
            );
        }
        // Overlapped, ZeRO-1's gradients hide and its gather stays: DDP's
        // all-reduce hides whole where ZeRO-1 still waits for its gather.
        let gather = 6.74e9 * 7.0 / 8.0 * 2.0 / 300e9;
        assert!((dp(Strategy::Zero1, 1, true) - gather).abs() < 1e-12);
    }

    /// Issue 28, item 4: the routed experts' gradients reduce over the
    /// expert-data-parallel group (DP × CP ÷ EP), on the experts ÷ EP; the
    /// EP all-to-all spans TP × EP ranks, so TP 1 · CP 2 · EP 8 on two nodes
    /// of 8 stays on NVLink.
    #[wasm_bindgen_test(unsupported = test)]
    fn experts_reduce_over_their_own_group_and_exchange_within_tp_times_ep() {
        let arch = model_preset("mixtral-8x7b").unwrap().architecture;
        let machine = H100;
        let experts = arch.routed_expert_params() as f64;
        let total = arch.param_count() as f64;
        let work = |cp, ep| StepWork {
            layout: Layout {
                cp,
                ..Layout::SINGLE
            },
            dp: 8,
            seq_len: 8192,
            ep,
            params_on_gpu: total,
            expert_params_on_gpu: experts,
            ..llama2_7b_work(&arch)
        };
        // DP 8 on one node, EP 8: each expert lives on one GPU of the
        // expert-data-parallel group of 1, so only the dense part reduces.
        let t = step_time(&work(1, 8), &machine);
        let dense = 2.0 * (total - experts) * 7.0 / 8.0 * 2.0 / 450e9;
        assert!((t.data_parallel_seconds / dense - 1.0).abs() < 1e-12);
        // CP 2 over two nodes: the DP × CP group crosses the network, the
        // experts' group of 2 too, each ring over a node's eight NICs
        // (8 × 50 GB/s); the all-to-all of EP 8 does not cross it.
        let t = step_time(&work(2, 8), &machine);
        let grads = 2.0 * ((total - experts) * 15.0 / 16.0 + experts / 8.0 / 2.0) * 2.0 / 400e9;
        assert!((t.data_parallel_seconds / grads - 1.0).abs() < 1e-12);
        let moe_layers = f64::from(arch.layers);
        let message = 8192.0 / 2.0 * f64::from(arch.hidden) * 2.0;
        let all_to_all = moe_layers * 4.0 * 2.0 * message * 7.0 / 8.0 / 450e9;
        assert!((t.expert_parallel_seconds / all_to_all - 1.0).abs() < 1e-12);
    }

    /// Issue 28, item 4: with ETP = TP > 1 a mixture of experts' layer
    /// gathers its routed tokens over TP and reduce-scatters their outputs
    /// (Megatron-LM's `token_dispatcher.py`, A2A(EP) → AG(TP)): Mixtral's two
    /// copies of each token cost two messages where a dense MLP's all-reduce
    /// costs one, so its layers move 3 messages for a dense layer's 2.
    #[wasm_bindgen_test(unsupported = test)]
    fn routed_tokens_gathered_over_tensor_parallelism_count_in_its_time() {
        let arch = model_preset("mixtral-8x7b").unwrap().architecture;
        // The step's tensor-parallel time on H100s with TP 2 and SP, DP 4.
        let tensor_parallel_seconds = |arch: &Architecture| {
            let work = StepWork {
                layout: Layout {
                    tp: 2,
                    sp: true,
                    ..Layout::SINGLE
                },
                dp: 4,
                params_on_gpu: 23e9,
                expert_params_on_gpu: 22e9,
                ..llama2_7b_work(arch)
            };
            step_time(&work, &H100).tensor_parallel_seconds
        };
        let message = 4096.0 * f64::from(arch.hidden) * 2.0;
        // 32 layers × 3/2 of a dense layer's exposed collectives with SP:
        // two all-gathers and two reduce-scatters forward, the two output
        // gradients' gathers backward, each (2 − 1)/2 of the message on
        // NVLink (the backward's other four hide behind its GEMMs).
        let expected = 32.0 * 1.5 * 6.0 * message * 0.5 / 450e9;
        assert!((tensor_parallel_seconds(&arch) / expected - 1.0).abs() < 1e-12);
        // The same layers without experts: two all-reduces a forward.
        let dense = Architecture {
            moe: Moe::DENSE,
            ..arch
        };
        assert!((tensor_parallel_seconds(&dense) / (expected / 1.5) - 1.0).abs() < 1e-12);
    }

    /// Issue 28, item 5: the slowest stage sets the pace. Llama 3 8B on 4
    /// pipeline stages at 8,192 tokens: the last stage's logits (a 128,256
    /// vocabulary) make the compute 15–30 % longer than an even split; one
    /// stage is the even split itself.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_last_pipeline_stage_sets_the_pace() {
        let arch = model_preset("llama3-8b").unwrap().architecture;
        let machine = H100;
        let work = |pp| StepWork {
            layout: Layout {
                pp,
                ..Layout::SINGLE
            },
            microbatches: 8,
            seq_len: 8192,
            params_on_gpu: 2e9,
            ..llama2_7b_work(&arch)
        };
        let (one, four) = (step_time(&work(1), &machine), step_time(&work(4), &machine));
        let even = one.compute_seconds / 4.0;
        let slower = four.compute_seconds / even - 1.0;
        assert!((0.15..0.30).contains(&slower), "{slower}");
        assert_eq!(one.flops, four.flops);
        // Issue 28, item 9: Megatron-LM's uneven stages move layers off the
        // last stage. 8 + 9 + 9 + 6: the logits (about 2.4 layers' worth)
        // leave the last stage below a middle one, which sets the pace at
        // 9 layers instead of 8 and the logits.
        let uneven = |first, last| StepWork {
            layout: Layout {
                first_layers: first,
                last_layers: last,
                ..work(4).layout
            },
            ..work(4)
        };
        let balanced = step_time(&uneven(Some(8), Some(6)), &machine);
        let faster = balanced.compute_seconds / four.compute_seconds;
        assert!((0.88..0.90).contains(&faster), "{faster}");
        assert_eq!(balanced.flops, four.flops);
        // The middle stage's 9 of the 32 layers and nothing else.
        let logits = 6.0 * 8.0 * 8192.0 * 4096.0 * 128_256.0;
        let middle = (one.flops - logits) * 9.0 / 32.0 / (989e12 * 0.4);
        assert!((balanced.compute_seconds / middle - 1.0).abs() < 1e-12);
        // The even split written unevenly is the even split.
        let written = step_time(&uneven(Some(8), Some(8)), &machine);
        assert_eq!(written.compute_seconds, four.compute_seconds);
    }

    /// Issue 28, item 8: one definition of MFU, PaLM's (model FLOPs, no
    /// recomputation, over the whole step). The `mfu` key is the kernels'
    /// efficiency on the FLOPs they run: full recomputation adds a third of
    /// the layers' FLOPs (not the logits', which Megatron-LM does not
    /// recompute), and the step's MFU falls below the key.
    #[wasm_bindgen_test(unsupported = test)]
    fn mfu_is_model_flops_over_the_step() {
        let arch = model_preset("llama2-7b").unwrap().architecture;
        let machine = A100_AT_HALF;
        let work = |recomputed| StepWork {
            microbatches: 4,
            rerun: Rerun::whole(recomputed),
            ..llama2_7b_work(&arch)
        };
        let (plain, full) = (
            step_time(&work(0.0), &machine),
            step_time(&work(1.0), &machine),
        );
        let model = megatron_flops(&arch, 4.0, 4096, arch.vocab);
        assert_eq!((plain.model_flops, full.model_flops), (model, model));
        assert_eq!(plain.flops, model);
        let logits = 6.0 * 4.0 * 4096.0 * 4096.0 * 32_000.0;
        assert!((full.flops / ((model - logits) * 4.0 / 3.0 + logits) - 1.0).abs() < 1e-12);
        // One GPU, no traffic: the step is the compute, its MFU the key's.
        assert!((plain.mfu - 0.5).abs() < 1e-12);
        assert!((full.mfu - 0.5 * model / full.flops).abs() < 1e-12);
        // Megatron-LM's block method on 16 of 32 layers reruns half the
        // layers' forward: a sixth more of their FLOPs.
        let half = step_time(&work(0.5), &machine);
        assert!((half.flops / ((model - logits) * 7.0 / 6.0 + logits) - 1.0).abs() < 1e-12);
    }

    /// The gradients' reduction waits for the backward to end unless it is
    /// overlapped, and then hides behind the one backward pass it follows:
    /// DDP's all-reduce of 2Ψ(n − 1)/n elements after the last of m
    /// microbatches hides at most 2/3 of one microbatch's compute. ZeRO-3 is
    /// overlapped as DeepSpeed ships it, with or without the switch.
    #[wasm_bindgen_test(unsupported = test)]
    fn gradient_reduction_overlaps_at_most_the_backward_it_follows() {
        let arch = model_preset("llama2-7b").unwrap().architecture;
        let work = |strategy, overlap_grad| StepWork {
            dp: 16,
            microbatches: 4,
            strategy,
            speed: Speed {
                overlap_grad,
                ..Speed::DEFAULT
            },
            ..llama2_7b_work(&arch)
        };
        // 16 GPUs, one a node: the all-reduce crosses the network at one
        // NIC's pace.
        let machine = ONE_A_NODE;
        let all_reduce = 2.0 * 6.74e9 * 15.0 / 16.0 * 2.0 / 25e9;
        let off = step_time(&work(Strategy::Ddp, false), &machine);
        assert!((off.data_parallel_seconds / all_reduce - 1.0).abs() < 1e-12);
        let on = step_time(&work(Strategy::Ddp, true), &machine);
        let one_backward = off.compute_seconds * 2.0 / 3.0 / 4.0;
        assert!(
            all_reduce > one_backward,
            "the case must leave some exposed"
        );
        assert!((on.data_parallel_seconds - (all_reduce - one_backward)).abs() < 1e-9);
        assert!(on.step_seconds < off.step_seconds);
        let zero3 = |overlap| step_time(&work(Strategy::Zero3, overlap), &machine);
        assert_eq!(zero3(false), zero3(true));
    }
    /// ZeRO-1's gather of the updated weights (Ψ(n − 1)/n elements after the
    /// optimizer step) is exposed whole unless Megatron-LM's
    /// `--overlap-param-gather` runs it during the first microbatch's forward
    /// pass (1/3 of one of m microbatches' compute); Megatron refuses the switch
    /// without `--overlap-grad-reduce`, so alone it changes nothing.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_weights_gather_overlaps_at_most_the_first_forward() {
        let arch = model_preset("llama2-7b").unwrap().architecture;
        let machine = ONE_A_NODE;
        let work = |strategy, overlap_grad, overlap_param| StepWork {
            dp: 16,
            microbatches: 4,
            strategy,
            speed: Speed {
                overlap_grad,
                overlap_param,
                ..Speed::DEFAULT
            },
            ..llama2_7b_work(&arch)
        };
        // 16 GPUs, one a node: the gather crosses the network.
        let gather = 6.74e9 * 15.0 / 16.0 * 2.0 / 25e9;
        let grad_only = step_time(&work(Strategy::Zero1, true, false), &machine);
        let both = step_time(&work(Strategy::Zero1, true, true), &machine);
        let one_forward = both.compute_seconds / 3.0 / 4.0;
        assert!(gather > one_forward, "the case must leave some exposed");
        let hidden = grad_only.data_parallel_seconds - both.data_parallel_seconds;
        assert!((hidden - one_forward).abs() < 1e-9, "{hidden} s hidden");
        // Without the gradients' overlap Megatron refuses it: nothing changes.
        assert_eq!(
            step_time(&work(Strategy::Zero1, false, true), &machine),
            step_time(&work(Strategy::Zero1, false, false), &machine)
        );
        // DDP gathers nothing; ZeRO-3's gathers already run ahead of each forward.
        for strategy in [Strategy::Ddp, Strategy::Zero3] {
            assert_eq!(
                step_time(&work(strategy, true, true), &machine),
                step_time(&work(strategy, true, false), &machine)
            );
        }
    }

    /// Issue 48: context parallelism's ring exchange is no longer free. Llama
    /// 3 70B on 64 H100s with TP 8 × CP 8 puts CP across eight nodes: at
    /// 8,192 tokens each hop's K and V (2 × 1,024 tokens × 128 × 2 B) take
    /// longer over 50 GB/s than the attention on a chunk that short, and the
    /// rest is exposed; at 32,768 tokens the quadratic attention hides it. CP
    /// 2 on one node's NVLink hides it too.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_context_parallel_ring_costs_what_the_attention_does_not_hide() {
        let step = |query: &str| {
            let config = crate::input::link::decode(query).config;
            config.report().unwrap().highlighted().time.unwrap()
        };
        let across = "v=2&model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=8&tp=8&sp=1&cp=8\
                      &global_batch=64&stage=1&recompute=full";
        let short = step(&format!("{across}&seq=8192"));
        assert!(
            short.context_parallel_seconds > 0.05 * short.step_seconds,
            "{short:?}"
        );
        let long = step(&format!("{across}&seq=32768"));
        assert_eq!(long.context_parallel_seconds, 0.0);
        let node = step("v=2&model=llama3-8b&gpu=h100-80gb&gpus=8&cp=2&seq=8192&global_batch=128");
        assert_eq!(node.context_parallel_seconds, 0.0);
        // Without the ring's cost the step is what it was before.
        assert!(
            (short.step_seconds
                - short.context_parallel_seconds
                - short.compute_seconds
                - short.tensor_parallel_seconds
                - short.data_parallel_seconds
                - short.bubble_seconds)
                .abs()
                < 1e-9
        );
    }

    /// Issue 48: sliding-window and chunked attention layers compute the
    /// pairs their window allows, not the sequence's. Gemma 2 9B at 32,768
    /// tokens: 21 global layers of s² and 21 local ones of twice
    /// w(w + 1)/2 + (s − w)·w, w = 4,096; its step's FLOPs fall by 14.5 %
    /// against every layer global (the 14–32 % at 32k). Llama 4 Scout's chunks of 8,192:
    /// four whole chunks' pairs each.
    #[wasm_bindgen_test(unsupported = test)]
    fn local_attention_computes_the_pairs_its_window_allows() {
        let gemma = model_preset("gemma2-9b").unwrap().architecture;
        let (s, w) = (32_768.0_f64, 4_096.0_f64);
        let local = 2.0 * (w * (w + 1.0) / 2.0 + (s - w) * w);
        assert_eq!(attended_pairs(&gemma, 32_768), 21.0 * s * s + 21.0 * local);
        let global = Architecture {
            local: vram_shared::model::architecture::LocalAttention::NONE,
            ..gemma
        };
        assert_eq!(attended_pairs(&global, 32_768), 42.0 * s * s);
        let flops = |arch: &Architecture| megatron_flops(arch, 1.0, 32_768, arch.vocab);
        let saved = 1.0 - flops(&gemma) / flops(&global);
        assert!((0.14..0.15).contains(&saved), "{saved}");
        // Below the window nothing changes.
        assert_eq!(
            attended_pairs(&gemma, 4_096),
            attended_pairs(&global, 4_096)
        );
        let scout = model_preset("llama4-scout").unwrap().architecture;
        let chunk = 8_192.0_f64;
        let chunks = 4.0 * 2.0 * chunk * (chunk + 1.0) / 2.0;
        assert_eq!(attended_pairs(&scout, 32_768), 12.0 * s * s + 36.0 * chunks);
    }

    /// Issue 48, error 10: with SP, Transformer Engine gathers each
    /// column-parallel input again for its weight gradient: 10 collectives
    /// a layer where 8 move without SP. On a link too slow for the
    /// backward's GEMMs to hide anything, SP's TP time is 10/8 of plain
    /// TP's; on NVLink the backward's four hide behind the GEMMs (TE runs
    /// them asynchronously), and SP exposes 6 where plain TP exposes 4.
    #[wasm_bindgen_test(unsupported = test)]
    fn sequence_parallelism_gathers_its_input_again_in_the_backward() {
        let arch = model_preset("llama3-8b").unwrap().architecture;
        let work = |sp: bool| StepWork {
            layout: Layout {
                tp: 4,
                sp,
                ..Layout::SINGLE
            },
            dp: 2,
            params_on_gpu: 2e9,
            ..llama2_7b_work(&arch)
        };
        let slow = Machine {
            nvlink_bytes_per_s: 1e6,
            ..H100
        };
        let ratio = step_time(&work(true), &slow).tensor_parallel_seconds
            / step_time(&work(false), &slow).tensor_parallel_seconds;
        assert!((ratio - 1.25).abs() < 1e-3, "{ratio}");
        let fast = step_time(&work(true), &H100).tensor_parallel_seconds
            / step_time(&work(false), &H100).tensor_parallel_seconds;
        assert!((fast - 1.5).abs() < 1e-9, "{fast}");
    }

    /// Issue 48: selective recomputation's modules run their own forward
    /// again. Llama 3 8B's dense MLP is 3·4096·14336 of a layer's
    /// 4096·(4096 + 2·1024) + 4096·4096 + 3·4096·14336 GEMM weights; the
    /// core attention is the attention's forward; a whole mixture's layer
    /// runs its all-to-alls again.
    #[wasm_bindgen_test(unsupported = test)]
    fn selective_modules_rerun_their_forward() {
        use crate::memory::activations::{Checkpointing, FrozenInputs, RecomputeModules};
        let setup = |modules: &str| ActivationSetup {
            seq_len: 4096,
            micro_batch: 1,
            bytes_per_value: 2.0,
            flash_attention: true,
            recompute: Recompute::Selective,
            checkpointing: Checkpointing::EVERY_LAYER,
            modules: RecomputeModules::from_key(modules).unwrap(),
            dropout: false,
            capacity: 1.0,
            fp8: false,
            fp8_scales: 0.0,
            frozen: FrozenInputs::NONE,
            loss: crate::memory::activations::Loss::Fused,
        };
        let llama = model_preset("llama3-8b").unwrap().architecture;
        let mlp = Rerun::of(&llama, &setup("mlp"), 32);
        let (attention, dense) = (4096.0 * 6144.0 + 4096.0 * 4096.0, 3.0 * 4096.0 * 14336.0);
        assert!(
            (mlp.gemms - dense / (attention + dense)).abs() < 1e-12,
            "{mlp:?}"
        );
        assert_eq!(
            (mlp.attention, mlp.tensor_parallel, mlp.all_to_all),
            (0.0, 0.5, 0.0)
        );
        assert_eq!(
            Rerun::of(&llama, &setup("core_attn"), 32),
            Rerun {
                attention: 1.0,
                ..Rerun::NONE
            }
        );
        // Element-wise modules cost no GEMM.
        assert_eq!(Rerun::of(&llama, &setup("layernorm"), 32), Rerun::NONE);
        let mixtral = model_preset("mixtral-8x7b").unwrap().architecture;
        let moe = Rerun::of(&mixtral, &setup("moe"), 32);
        assert_eq!((moe.tensor_parallel, moe.all_to_all), (0.5, 1.0));
        // Two experts of 3·4096·14336 beside the attention's 4096·(4096 + 2·1024) + 4096².
        let experts = 2.0 * 3.0 * 4096.0 * 14336.0;
        assert!(
            (moe.gemms - experts / (experts + attention)).abs() < 1e-12,
            "{moe:?}"
        );
        // The step: the MLP's forward again, a third of its FLOPs more.
        let work = |rerun| StepWork {
            microbatches: 4,
            rerun,
            params_on_gpu: 8.03e9,
            ..llama2_7b_work(&llama)
        };
        let (none, rebuilt) = (
            step_time(&work(Rerun::NONE), &A100),
            step_time(&work(mlp), &A100),
        );
        let tokens = 4.0 * 4096.0;
        assert!(
            (rebuilt.flops - none.flops - 2.0 * 32.0 * dense * tokens).abs() < 1.0,
            "{} {}",
            rebuilt.flops,
            none.flops
        );
    }
}
