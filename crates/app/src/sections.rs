//! The form's sections, in the order the page shows them: model, hardware,
//! training, parallel layout, then the folds of step time and framework
//! details; the page's unit, language and theme sit in the header. A new
//! field goes in one of these lists (see CONTRIBUTING.md).

use vram_core::Field::{self, *};

/// The model: a preset or a bare size.
pub const MODEL: [Field; 2] = [Model, Params];
/// A model's architecture (shown with a model only).
pub const ARCHITECTURE: [Field; 8] = [Layers, Hidden, Ffn, Heads, KvHeads, Vocab, Mlp, Tied];
/// Beyond a Llama: a head size of its own, q/k norms, biases and norms,
/// learned positions, experts, latent and linear attention (in a fold of
/// their own).
pub const BEYOND_LLAMA: [Field; 30] = [
    HeadDim,
    QkNorm,
    Biases,
    Norm,
    SandwichNorms,
    ParallelBlock,
    Softcap,
    Sinks,
    Positions,
    Experts,
    TopK,
    ExpertFfn,
    SharedExperts,
    SharedFfn,
    SharedGate,
    ExpertBiases,
    DenseLayers,
    Capacity,
    QRank,
    KvRank,
    RopeDim,
    NopeDim,
    VDim,
    GatedAttention,
    FullEvery,
    LinearKeyHeads,
    LinearValueHeads,
    LinearKeyDim,
    LinearValueDim,
    ConvKernel,
];
/// The GPU (its memory said in both units underneath).
pub const GPU: [Field; 2] = [Gpu, GpuMemory];
/// How many, how they are linked, and what is kept back on each.
pub const CLUSTER: [Field; 6] = [Gpus, Nodes, Nvlink, Network, Overhead, Context];
/// The numbers' formats and the optimizer (its bytes said underneath).
pub const RECIPE: [Field; 3] = [Precision, Amp, Optimizer];
/// What is trained: every parameter, or adapters (their settings hidden without).
pub const FINE_TUNING: [Field; 8] = [
    Method,
    Rank,
    Targets,
    LoraDropout,
    AdapterDtype,
    Dora,
    Quant,
    DoubleQuant,
];
/// The step: gradients' format, batch, sequence and what is kept for backward.
pub const STEP: [Field; 9] = [
    GradAcc,
    Seq,
    MicroBatch,
    GlobalBatch,
    Recompute,
    RecomputeMethod,
    RecomputeLayers,
    Flash,
    Dropout,
];
/// The highlighted strategy, and how the GPUs split the model (with a model only).
pub const PARALLEL: [Field; 10] = [Stage, ShardGroup, Tp, Pp, Vpp, PpFirst, PpLast, Cp, Sp, Ep];
/// What the step's time assumes (a fold).
pub const SPEED: [Field; 6] = [Mfu, Tflops, Achieved, OverlapGrad, Tokens, Price];
/// Accounting, and what each framework keeps and moves (a fold).
pub const FRAMEWORK: [Field; 16] = [
    Accounting,
    Framework,
    Attention,
    Offload,
    OffloadTo,
    HostMemory,
    BufferFactor,
    LargestLayer,
    ZeroInit,
    Sharding,
    Buffers,
    ReduceBucket,
    AllgatherBucket,
    PrefetchBucket,
    MaxLive,
    Bandwidth,
];
/// How the page shows its results, in the header.
pub const DISPLAY: [Field; 3] = [Unit, Lang, Theme];
/// What a read-only figure's caption names after the parameter count (then
/// the gradients' format and DeepSpeed's settings where they differ from
/// their defaults): the step, the
/// GPUs and the recipe, not the architecture's shape (the count and the
/// model's name say it).
pub const CAPTION: [Field; 11] = [
    Seq,
    MicroBatch,
    Recompute,
    Flash,
    Gpus,
    Gpu,
    GpuMemory,
    Overhead,
    Precision,
    Optimizer,
    GlobalBatch,
];
