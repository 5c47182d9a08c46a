//! The user's inputs: their fields, their limits, parsing and typed errors.
//!
//! The page's form and the shared-link decoder both parse through
//! [`Field::parse_number`] and [`Field::parse_count`], so a value means the same
//! wherever it was typed.

use core::fmt;

use crate::input::decimal::shortest_decimal;
use crate::input::view::Part;

/// Declares `Field` and `Field::ALL` from one list, so the two cannot drift apart.
macro_rules! fields {
    ($(#[$enum_meta:meta])* pub enum Field { $($(#[$meta:meta])* $name:ident,)* }) => {
        $(#[$enum_meta])*
        pub enum Field { $($(#[$meta])* $name,)* }

        impl Field {
            /// Every field, in the order of its declaration: `Field::ALL[f.index()] == f`.
            pub const ALL: [Field; [$(Field::$name),*].len()] = [$(Field::$name),*];
        }
    };
}

fields! {
/// An input that the user sets, by a form control or a key of the shared link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// Model size, in billions of parameters.
    Params,
    /// Number of data-parallel GPUs.
    Gpus,
    /// Memory per GPU, in GB (10^9 bytes).
    GpuMemory,
    /// Fraction of each GPU's memory held back for activations, buffers and the framework.
    Overhead,
    /// Precision of weights and gradients.
    Precision,
    /// Format gradients are accumulated in.
    GradAcc,
    /// Optimizer.
    Optimizer,
    /// Strategy shown highlighted.
    Stage,
    /// Global batch size, in samples.
    GlobalBatch,
    /// Micro-batch per GPU, in samples.
    MicroBatch,
    /// Model preset, or `custom`.
    Model,
    /// Transformer layers.
    Layers,
    /// Hidden size.
    Hidden,
    /// FFN (intermediate) size.
    Ffn,
    /// Attention heads.
    Heads,
    /// Key/value heads.
    KvHeads,
    /// Vocabulary size.
    Vocab,
    /// Whether the output head is tied to the embedding.
    Tied,
    /// MLP kind.
    Mlp,
    /// GPU preset.
    Gpu,
    /// Sequence length, in tokens.
    Seq,
    /// Activation recomputation.
    Recompute,
    /// FlashAttention.
    Flash,
    /// The unit memory is shown in.
    Unit,
    /// Light or dark colours.
    Theme,
    /// Compact layout for an iframe in another page.
    Embed,
    /// Which parts of the page are shown (a list of [`crate::input::view::Part`]s).
    Show,
    /// Whether the page can be changed: `0` shows a read-only figure.
    Controls,
    /// Whose accounting: the lesson's or DeepSpeed's estimator.
    Accounting,
    /// What is offloaded from the GPUs.
    Offload,
    /// Where offloaded states go.
    OffloadTo,
    /// Nodes, each with the configuration's GPUs.
    Nodes,
    /// Parameters of the largest layer, in millions.
    LargestLayer,
    /// DeepSpeed's `zero_init`.
    ZeroInit,
    /// Whether DeepSpeed's communication buffers are counted.
    Buffers,
    /// Bandwidth per GPU, in GB/s.
    Bandwidth,
    /// DeepSpeed's `reduce_bucket_size`, in millions of elements.
    ReduceBucket,
    /// DeepSpeed's `allgather_bucket_size`, in millions of elements.
    AllgatherBucket,
    /// DeepSpeed's `stage3_prefetch_bucket_size`, in millions of elements.
    PrefetchBucket,
    /// DeepSpeed's `stage3_max_live_parameters`, in millions of elements.
    MaxLive,
    /// The page's language.
    Lang,
    /// What is trained: every parameter, LoRA or QLoRA adapters.
    Method,
    /// The adapters' rank.
    Rank,
    /// Which linear layers get adapters.
    Targets,
    /// How QLoRA stores the frozen base's linear weights.
    Quant,
    /// Whether QLoRA's NF4 constants are quantised too.
    DoubleQuant,
    /// DeepSpeed's `additional_buffer_factor` on its CPU figures.
    BufferFactor,
    /// The attention and hidden dropout probability.
    Dropout,
    /// Whose activation accounting: Megatron-LM's (Korthikanti) or Hugging Face's.
    Framework,
    /// transformers' attention implementation.
    Attention,
    /// The CUDA context and allocator reserve per GPU, in GB.
    Context,
    /// Whether the mixed precision runs under autocast (fp32 weights).
    Amp,
    /// Width of one attention head, when not hidden ÷ heads (0: hidden ÷ heads).
    HeadDim,
    /// Whether q and k get an RMSNorm of the head's width (Qwen3).
    QkNorm,
    /// Routed experts per MoE layer (0: a dense model).
    Experts,
    /// Routed experts each token goes to.
    TopK,
    /// Width of a routed expert's MLP.
    ExpertFfn,
    /// Shared experts every token goes through.
    SharedExperts,
    /// Width of each shared expert's MLP.
    SharedFfn,
    /// Whether the shared expert has Qwen2-MoE's gate.
    SharedGate,
    /// Leading layers with a dense MLP (DeepSeek's `first_k_dense_replace`).
    DenseLayers,
    /// Latent attention's query rank (`q_lora_rank`; 0: direct queries).
    QRank,
    /// Latent attention's key/value rank (`kv_lora_rank`; 0: no latent attention).
    KvRank,
    /// Latent attention's rotary part of each query and key head.
    RopeDim,
    /// Latent attention's part of each query and key head without position.
    NopeDim,
    /// Latent attention's value head width.
    VDim,
    /// The routed experts' capacity factor (1: uniform routing).
    Capacity,
    /// Learned position embeddings (GPT-2's `n_positions`; 0 for rotary).
    Positions,
    /// Expert parallelism: the ranks the routed experts are divided over.
    Ep,
    /// Tensor-parallel size, in GPUs.
    Tp,
    /// Pipeline-parallel stages.
    Pp,
    /// Virtual pipeline stages per pipeline rank (interleaved 1F1B).
    Vpp,
    /// Context-parallel size, in GPUs.
    Cp,
    /// Sequence parallelism (with tensor parallelism).
    Sp,
    /// Model FLOPs utilisation: the fraction of the GPU's peak its kernels reach.
    Mfu,
    /// The GPU's dense 16-bit tensor peak, in TFLOP/s (10^12 per second).
    Tflops,
    /// Bandwidth per GPU within a node (NVLink), in GB/s of 10^9 bytes, each way.
    Nvlink,
    /// Bandwidth per GPU between nodes (the network), in GB/s of 10^9 bytes.
    Network,
    /// Training tokens, in billions.
    Tokens,
    /// Price of one GPU-hour, in the user's currency.
    Price,
}
}

/// The fields of a model given by its architecture, in the order the link writes them
/// ([`crate::input::link::encode`]):
/// the preset, its architecture ([`ARCHITECTURE_FIELDS`], which a preset fills)
/// and the training step (the last four, which a preset leaves as they are).
pub const MODEL_FIELDS: [Field; 13] = [
    Field::Model,
    Field::Layers,
    Field::Hidden,
    Field::Ffn,
    Field::Heads,
    Field::KvHeads,
    Field::Vocab,
    Field::Tied,
    Field::Mlp,
    Field::Seq,
    Field::MicroBatch,
    Field::Recompute,
    Field::Flash,
];

/// The fields of a model's architecture: what choosing a model preset fills.
pub const ARCHITECTURE_FIELDS: &[Field] = MODEL_FIELDS.split_at(9).0.split_at(1).1;

/// The architecture's fields beyond [`ARCHITECTURE_FIELDS`]: a head size of
/// its own, q/k norms, a mixture of experts and latent attention. A preset
/// fills them too; a link writes each only where it is not a dense model's
/// default (0, or off), so links without them keep their meaning.
pub const EXTRA_ARCHITECTURE_FIELDS: [Field; 14] = [
    Field::HeadDim,
    Field::QkNorm,
    Field::Experts,
    Field::TopK,
    Field::ExpertFfn,
    Field::SharedExperts,
    Field::SharedFfn,
    Field::SharedGate,
    Field::DenseLayers,
    Field::QRank,
    Field::KvRank,
    Field::RopeDim,
    Field::NopeDim,
    Field::VDim,
];

/// Every field a model preset fills: [`ARCHITECTURE_FIELDS`], then
/// [`EXTRA_ARCHITECTURE_FIELDS`], then the learned positions.
pub const PRESET_FIELDS: [Field; 23] = {
    let mut all = [Field::Positions; 23];
    let mut i = 0;
    while i < 8 {
        all[i] = MODEL_FIELDS[i + 1];
        i += 1;
    }
    while i < 22 {
        all[i] = EXTRA_ARCHITECTURE_FIELDS[i - 8];
        i += 1;
    }
    all
};

/// The keys of [`Part::ALL`], the choices of [`Field::Show`].
const PART_KEYS: [&str; Part::ALL.len()] = {
    let mut keys = [""; Part::ALL.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = Part::ALL[i].key();
        i += 1;
    }
    keys
};

/// The smallest non-zero reserved fraction: 10^-9 (80 bytes of 80 GB). Finer
/// fractions mean nothing in memory, and every accepted fraction then reads back
/// from its shortest decimal form exactly (see [`crate::input::decimal`]).
pub const OVERHEAD_RESOLUTION: f64 = 1e-9;

/// The smallest non-zero count given in millions (a largest layer, a DeepSpeed
/// buffer): 10^-6, one parameter or one element. Finer values mean nothing, and
/// every accepted one reads back from its shortest decimal form exactly.
pub const MILLIONS_RESOLUTION: f64 = 1e-6;

/// The range a numeric field accepts, in the unit the user types it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Smallest accepted value (inclusive).
    pub min: f64,
    /// Largest accepted value (inclusive).
    pub max: f64,
}

impl Limits {
    /// Whether `value` lies in the range (NaN never does).
    pub fn contains(self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }
}

/// When the page's form uses a field: a model's architecture brings its own
/// size and layers, so some fields mean something only with a model, some only
/// without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Always used.
    Always,
    /// Used only with a model's architecture (its layers, its step).
    WithModel,
    /// Used only for a bare parameter count (the size itself, the largest layer).
    WithoutModel,
}

impl Scope {
    /// Whether a field of this scope is used, with or without a model.
    pub const fn applies(self, with_model: bool) -> bool {
        match self {
            Scope::Always => true,
            Scope::WithModel => with_model,
            Scope::WithoutModel => !with_model,
        }
    }
}

impl Field {
    /// The field's position in [`Field::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the field takes a number (the others take one of their choices).
    pub const fn is_number(self) -> bool {
        self.limits().is_some()
    }

    /// Whether the field's number is a whole count (GPUs, layers, tokens).
    pub const fn is_whole(self) -> bool {
        matches!(
            self,
            Field::Gpus
                | Field::GlobalBatch
                | Field::MicroBatch
                | Field::Layers
                | Field::Hidden
                | Field::Ffn
                | Field::Heads
                | Field::KvHeads
                | Field::Vocab
                | Field::Seq
                | Field::Nodes
                | Field::Rank
                | Field::HeadDim
                | Field::Experts
                | Field::TopK
                | Field::ExpertFfn
                | Field::SharedExperts
                | Field::SharedFfn
                | Field::DenseLayers
                | Field::QRank
                | Field::KvRank
                | Field::RopeDim
                | Field::NopeDim
                | Field::VDim
                | Field::Positions
                | Field::Ep
                | Field::Tp
                | Field::Pp
                | Field::Vpp
                | Field::Cp
        )
    }

    /// Whether the field may be left unset: an empty form field, or no key in the link.
    pub const fn is_optional(self) -> bool {
        matches!(
            self,
            Field::GlobalBatch
                | Field::LargestLayer
                | Field::Bandwidth
                | Field::Model
                | Field::Gpu
                | Field::Attention
                | Field::Tflops
                | Field::Nvlink
                | Field::Network
                | Field::Tokens
                | Field::Price
        )
    }

    /// When the form uses the field (see [`Scope`]): a model's fields only with
    /// a model (the preset itself always), the size only without one.
    pub fn scope(self) -> Scope {
        match self {
            Field::Params | Field::LargestLayer => Scope::WithoutModel,
            Field::Model => Scope::Always,
            Field::Dropout | Field::Framework | Field::Attention => Scope::WithModel,
            _ if EXTRA_ARCHITECTURE_FIELDS.contains(&self) => Scope::WithModel,
            Field::Capacity | Field::Positions | Field::Ep => Scope::WithModel,
            Field::Tp | Field::Pp | Field::Vpp | Field::Cp | Field::Sp => Scope::WithModel,
            _ if MODEL_FIELDS.contains(&self) => Scope::WithModel,
            _ => Scope::Always,
        }
    }

    /// Whether the field takes a comma-separated list of its choices (`show=table,memory`).
    pub const fn is_list(self) -> bool {
        matches!(self, Field::Show)
    }

    /// Whether the form shows the field as a percentage of its link value (the
    /// reserved fraction 0.2 is typed as 20).
    pub const fn is_percent(self) -> bool {
        matches!(self, Field::Overhead)
    }
}

impl Field {
    /// The field's key in the shared link and its `name` in the page's form.
    pub const fn key(self) -> &'static str {
        match self {
            Field::Params => "params",
            Field::Gpus => "gpus",
            Field::GpuMemory => "gpu_mem",
            Field::Overhead => "overhead",
            Field::Precision => "dtype",
            Field::GradAcc => "grad_acc",
            Field::Optimizer => "opt",
            Field::Stage => "stage",
            Field::GlobalBatch => "global_batch",
            Field::MicroBatch => "mbs",
            Field::Model => "model",
            Field::Layers => "layers",
            Field::Hidden => "hidden",
            Field::Ffn => "ffn",
            Field::Heads => "heads",
            Field::KvHeads => "kv_heads",
            Field::Vocab => "vocab",
            Field::Tied => "tied",
            Field::Mlp => "mlp",
            Field::Gpu => "gpu",
            Field::Seq => "seq",
            Field::Recompute => "recompute",
            Field::Flash => "flash",
            Field::Unit => "unit",
            Field::Theme => "theme",
            Field::Embed => "embed",
            Field::Show => "show",
            Field::Controls => "controls",
            Field::Accounting => "acct",
            Field::Offload => "offload",
            Field::OffloadTo => "offload_to",
            Field::Nodes => "nodes",
            Field::LargestLayer => "largest_layer",
            Field::ZeroInit => "zero_init",
            Field::Buffers => "buffers",
            Field::Bandwidth => "bw",
            Field::ReduceBucket => "reduce_bucket",
            Field::AllgatherBucket => "allgather_bucket",
            Field::PrefetchBucket => "prefetch_bucket",
            Field::MaxLive => "max_live",
            Field::Lang => "lang",
            Field::Method => "method",
            Field::Rank => "rank",
            Field::Targets => "targets",
            Field::Quant => "quant",
            Field::DoubleQuant => "double_quant",
            Field::BufferFactor => "buffer_factor",
            Field::Dropout => "dropout",
            Field::Framework => "framework",
            Field::Attention => "attn",
            Field::Context => "context",
            Field::Amp => "amp",
            Field::HeadDim => "head_dim",
            Field::QkNorm => "qk_norm",
            Field::Experts => "experts",
            Field::TopK => "top_k",
            Field::ExpertFfn => "expert_ffn",
            Field::SharedExperts => "shared_experts",
            Field::SharedFfn => "shared_ffn",
            Field::SharedGate => "shared_gate",
            Field::DenseLayers => "dense_layers",
            Field::QRank => "q_rank",
            Field::KvRank => "kv_rank",
            Field::RopeDim => "rope_dim",
            Field::NopeDim => "nope_dim",
            Field::VDim => "v_dim",
            Field::Capacity => "capacity",
            Field::Positions => "positions",
            Field::Ep => "ep",
            Field::Tp => "tp",
            Field::Pp => "pp",
            Field::Vpp => "vpp",
            Field::Cp => "cp",
            Field::Sp => "sp",
            Field::Mfu => "mfu",
            Field::Tflops => "tflops",
            Field::Nvlink => "nvlink",
            Field::Network => "net",
            Field::Tokens => "tokens",
            Field::Price => "price",
        }
    }

    /// What the field is, in words, without its unit (see [`unit`](Self::unit)).
    pub const fn label(self) -> &'static str {
        match self {
            Field::Params => "model size",
            Field::Gpus => "number of GPUs",
            Field::GpuMemory => "memory per GPU",
            Field::Overhead => "reserved overhead",
            Field::Precision => "precision",
            Field::GradAcc => "gradient accumulation format",
            Field::Optimizer => "optimizer",
            Field::Stage => "highlighted strategy",
            Field::GlobalBatch => "global batch size",
            Field::MicroBatch => "micro-batch per GPU",
            Field::Model => "model",
            Field::Layers => "layers",
            Field::Hidden => "hidden size",
            Field::Ffn => "FFN size",
            Field::Heads => "attention heads",
            Field::KvHeads => "key/value heads",
            Field::Vocab => "vocabulary",
            Field::Tied => "tied embeddings",
            Field::Mlp => "MLP",
            Field::Gpu => "GPU",
            Field::Seq => "sequence length",
            Field::Recompute => "activation recomputation",
            Field::Flash => "FlashAttention",
            Field::Unit => "memory unit",
            Field::Theme => "theme",
            Field::Embed => "embedded layout",
            Field::Show => "parts shown",
            Field::Controls => "editable controls",
            Field::Accounting => "accounting",
            Field::Offload => "offload",
            Field::OffloadTo => "offload target",
            Field::Nodes => "nodes",
            Field::LargestLayer => "largest layer",
            Field::ZeroInit => "zero_init",
            Field::Buffers => "communication buffers",
            Field::Bandwidth => "bandwidth per GPU",
            Field::ReduceBucket => "reduce bucket",
            Field::AllgatherBucket => "all-gather bucket",
            Field::PrefetchBucket => "prefetch bucket",
            Field::MaxLive => "most live parameters",
            Field::Lang => "language",
            Field::Method => "fine-tuning method",
            Field::Rank => "LoRA rank",
            Field::Targets => "LoRA targets",
            Field::Quant => "base quantisation",
            Field::DoubleQuant => "double quantisation",
            Field::BufferFactor => "CPU buffer factor",
            Field::Dropout => "dropout probability",
            Field::Framework => "activation accounting",
            Field::Attention => "attention implementation",
            Field::Context => "CUDA context and allocator reserve",
            Field::Amp => "autocast (fp32 weights, 16-bit compute)",
            Field::HeadDim => "head size",
            Field::QkNorm => "q/k norms",
            Field::Experts => "routed experts",
            Field::TopK => "experts per token",
            Field::ExpertFfn => "expert FFN size",
            Field::SharedExperts => "shared experts",
            Field::SharedFfn => "shared expert FFN size",
            Field::SharedGate => "shared expert gate",
            Field::DenseLayers => "leading dense layers",
            Field::QRank => "latent query rank",
            Field::KvRank => "latent key/value rank",
            Field::RopeDim => "rotary head size",
            Field::NopeDim => "non-rotary head size",
            Field::VDim => "value head size",
            Field::Capacity => "expert capacity factor",
            Field::Positions => "learned positions",
            Field::Ep => "expert parallelism",
            Field::Tp => "tensor parallelism",
            Field::Pp => "pipeline stages",
            Field::Vpp => "virtual stages per pipeline rank",
            Field::Cp => "context parallelism",
            Field::Sp => "sequence parallelism",
            Field::Mfu => "model FLOPs utilisation",
            Field::Tflops => "peak 16-bit throughput per GPU",
            Field::Nvlink => "bandwidth per GPU within a node",
            Field::Network => "bandwidth per GPU between nodes",
            Field::Tokens => "training tokens",
            Field::Price => "price per GPU-hour",
        }
    }

    /// The unit a numeric field is given in (in the link and on the command line).
    pub const fn unit(self) -> Option<&'static str> {
        match self {
            Field::Params => Some("billions of parameters"),
            Field::Gpus => Some("GPUs"),
            Field::GpuMemory => Some("GB of 10^9 bytes"),
            Field::Overhead => Some("fraction of each GPU's memory"),
            Field::GlobalBatch | Field::MicroBatch => Some("sequences"),
            Field::Layers | Field::Heads | Field::KvHeads => Some("count"),
            Field::Hidden | Field::Ffn => Some("features"),
            Field::Vocab => Some("tokens"),
            Field::Seq => Some("tokens"),
            Field::Nodes => Some("nodes"),
            Field::Rank => Some("count"),
            Field::Experts | Field::TopK | Field::SharedExperts | Field::DenseLayers => {
                Some("count")
            }
            Field::HeadDim
            | Field::ExpertFfn
            | Field::SharedFfn
            | Field::QRank
            | Field::KvRank
            | Field::RopeDim
            | Field::NopeDim
            | Field::VDim => Some("features"),
            Field::Capacity => Some("multiples of uniform routing"),
            Field::Positions => Some("positions"),
            Field::Ep => Some("ranks"),
            Field::Tp | Field::Cp => Some("GPUs"),
            Field::Pp => Some("stages"),
            Field::Vpp => Some("stages per rank"),
            Field::Mfu => Some("fraction of peak"),
            Field::Tflops => Some("TFLOP/s"),
            Field::Nvlink | Field::Network => Some("GB/s of 10^9 bytes"),
            Field::Tokens => Some("billions of tokens"),
            Field::Price => Some("per GPU-hour"),
            Field::BufferFactor => Some("multiples"),
            Field::Context => Some("GB of 10^9 bytes per GPU"),
            Field::Dropout => Some("fraction (0.1 = 10 %)"),
            Field::LargestLayer => Some("millions of parameters"),
            Field::Bandwidth => Some("GB/s of 10^9 bytes"),
            Field::ReduceBucket
            | Field::AllgatherBucket
            | Field::PrefetchBucket
            | Field::MaxLive => Some("millions of elements"),
            _ => None,
        }
    }

    /// The values a choice field accepts; empty for a numeric field.
    pub const fn choices(self) -> &'static [&'static str] {
        match self {
            Field::Precision => &["fp32", "fp16", "bf16", "fp32-pure", "bf16-pure"],
            Field::GradAcc => &["model", "fp32"],
            Field::Optimizer => &[
                "adam",
                "sgd",
                "sgd-momentum",
                "adam8bit",
                "adafactor",
                "lion",
            ],
            Field::Stage => &["ddp", "1", "2", "3"],
            Field::Tied | Field::Flash => &["0", "1"],
            Field::Mlp => &["swiglu", "gelu"],
            Field::Recompute => &["none", "selective", "full"],
            Field::Unit => &["gb", "gib"],
            Field::Theme => &["auto", "light", "dark"],
            Field::Lang => &["auto", "zh", "en"],
            Field::Embed | Field::Controls | Field::ZeroInit | Field::Buffers => &["0", "1"],
            Field::Show => &PART_KEYS,
            Field::Method => &["full", "lora", "qlora"],
            Field::Targets => &["qv", "attn", "mlp", "all"],
            Field::Quant => &["nf4", "int8"],
            Field::DoubleQuant | Field::Amp | Field::QkNorm | Field::SharedGate | Field::Sp => {
                &["0", "1"]
            }
            Field::Framework => &["megatron", "hf"],
            Field::Attention => &["eager", "sdpa", "flash_attention_2"],
            Field::Accounting => &["course", "deepspeed", "megatron"],
            Field::Offload => &["none", "optimizer", "all"],
            Field::OffloadTo => &["cpu", "nvme"],
            _ => &[],
        }
    }

    /// The accepted range of a numeric field in its typed unit; `None` for a choice.
    ///
    /// Model size: 0.001 to 10^6 billion parameters (1 M to 1 quadrillion);
    /// GPUs: 1 to 2^20; memory: 0.1 to 10^4 GB; overhead: 0 to 0.95 (a fraction:
    /// at 1 nothing would be left to train in); batches: 1 to 2^24 samples.
    pub const fn limits(self) -> Option<Limits> {
        let (min, max) = match self {
            Field::Params => (0.001, 1e6),
            Field::Gpus => (1.0, 1_048_576.0),
            Field::GpuMemory => (0.1, 1e4),
            Field::Overhead => (0.0, 0.95),
            Field::GlobalBatch | Field::MicroBatch => (1.0, 16_777_216.0),
            Field::Layers => (1.0, 10_000.0),
            Field::Hidden => (1.0, 1_048_576.0),
            Field::Ffn => (1.0, 16_777_216.0),
            Field::Heads | Field::KvHeads => (1.0, 65_536.0),
            Field::Vocab => (1.0, 16_777_216.0),
            Field::Seq => (1.0, 1e7),
            Field::Nodes => (1.0, 65_536.0),
            Field::Rank => (1.0, 65_536.0),
            Field::HeadDim
            | Field::QRank
            | Field::KvRank
            | Field::RopeDim
            | Field::NopeDim
            | Field::VDim => (0.0, 65_536.0),
            Field::Experts | Field::TopK | Field::SharedExperts => (0.0, 65_536.0),
            Field::ExpertFfn | Field::SharedFfn => (0.0, 16_777_216.0),
            Field::DenseLayers => (0.0, 10_000.0),
            Field::Capacity => (1.0, 64.0),
            Field::Positions => (0.0, 1e7),
            Field::Ep => (1.0, 65_536.0),
            Field::Tp | Field::Pp | Field::Cp => (1.0, 65_536.0),
            Field::Vpp => (1.0, 1024.0),
            Field::Mfu => (0.01, 1.0),
            Field::Tflops => (0.001, 1e6),
            Field::Nvlink | Field::Network => (0.001, 1e6),
            Field::Tokens => (0.000_001, 1e6),
            Field::Price => (0.0, 1e6),
            Field::BufferFactor => (1.0, 100.0),
            Field::Context => (0.0, 1000.0),
            Field::Dropout => (0.0, 0.95),
            Field::LargestLayer => (0.0, 1e9),
            Field::Bandwidth => (0.001, 1e6),
            Field::ReduceBucket
            | Field::AllgatherBucket
            | Field::PrefetchBucket
            | Field::MaxLive => (0.0, 1e6),
            Field::Precision
            | Field::GradAcc
            | Field::Optimizer
            | Field::Stage
            | Field::Model
            | Field::Tied
            | Field::Mlp
            | Field::Gpu
            | Field::Recompute
            | Field::Flash
            | Field::Unit
            | Field::Theme
            | Field::Embed
            | Field::Show
            | Field::Controls
            | Field::Accounting
            | Field::Offload
            | Field::OffloadTo
            | Field::ZeroInit
            | Field::Buffers
            | Field::Lang
            | Field::Method
            | Field::Targets
            | Field::Quant
            | Field::DoubleQuant
            | Field::Amp
            | Field::QkNorm
            | Field::SharedGate
            | Field::Framework
            | Field::Attention
            | Field::Sp => return None,
        };
        Some(Limits { min, max })
    }

    /// Parses a decimal number typed for this field and checks it against the field's limits.
    ///
    /// Surrounding whitespace is ignored; `inf`, `NaN` and the like are refused.
    pub fn parse_number(self, text: &str) -> Result<f64, InputError> {
        let value = self
            .parse_number_unchecked(text)
            .map_err(|kind| self.error(kind))?;
        self.check(value)
    }

    /// Parses a whole number typed for this field (`8` or `8.0`; `8.5` is refused) and checks its limits.
    pub fn parse_count(self, text: &str) -> Result<u32, InputError> {
        let value = self.parse_number(text)?;
        if value.fract() != 0.0 {
            return Err(self.error(InputErrorKind::NotWhole));
        }
        // In range, so below 2^24 at most and exactly representable.
        Ok(value as u32)
    }

    /// Checks a value already in the field's unit against the field's limits.
    pub fn check(self, value: f64) -> Result<f64, InputError> {
        if !value.is_finite() {
            return Err(self.error(InputErrorKind::NotFinite));
        }
        match self.limits() {
            Some(limits) if !limits.contains(value) => {
                Err(self.error(InputErrorKind::OutOfRange(limits)))
            }
            _ => match self.resolution() {
                Some(resolution) if value != 0.0 && value.abs() < resolution => {
                    Err(self.error(InputErrorKind::BelowResolution(resolution)))
                }
                _ => Ok(value),
            },
        }
    }

    /// The smallest non-zero value of a field whose range starts at 0.
    pub const fn resolution(self) -> Option<f64> {
        match self {
            Field::Overhead => Some(OVERHEAD_RESOLUTION),
            Field::LargestLayer
            | Field::ReduceBucket
            | Field::AllgatherBucket
            | Field::PrefetchBucket
            | Field::MaxLive => Some(MILLIONS_RESOLUTION),
            _ => None,
        }
    }

    /// An error of this field.
    pub const fn error(self, kind: InputErrorKind) -> InputError {
        InputError { field: self, kind }
    }
}

/// What is wrong with an input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputErrorKind {
    /// Nothing was given.
    Empty,
    /// The text is not a decimal number.
    NotANumber,
    /// The number is infinite or NaN.
    NotFinite,
    /// A whole number was expected.
    NotWhole,
    /// The number lies outside the field's limits.
    OutOfRange(Limits),
    /// The number is not zero but smaller than the field's resolution.
    BelowResolution(f64),
    /// The value is none of the field's choices.
    UnknownChoice,
    /// The numbers do not divide as they must (the global batch by micro-batch × GPUs).
    NotDivisible,
    /// The value needs a model's architecture, and none is chosen (LoRA's adapters).
    NeedsModel,
    /// GPUs per node × nodes is more data-parallel GPUs than [`Field::Gpus`] allows.
    TooManyGpus {
        /// The `gpus` key's value.
        gpus_per_node: u32,
        /// Their product with the nodes.
        total: u64,
    },
    /// A part of the model (its largest layer) larger than the whole model.
    LargerThanModel,
    /// The choice does not cover this model (Hugging Face's measured accounting
    /// and a GELU MLP).
    NotCovered,
    /// Autocast with a precision that is not mixed (fp16 or bf16).
    NeedsMixedPrecision,
    /// The choice counts dense models' linear layers only (LoRA on experts or
    /// latent attention).
    DenseOnly,
    /// Expert parallelism without a mixture of experts.
    NeedsExperts,
    /// Expert parallelism under DeepSpeed's estimator, which has none, or with
    /// offload, which the page does not place per expert.
    NotInDeepSpeed,
    /// A layout size that does not divide what it splits; `largest` is the
    /// largest size up to the one typed that would.
    DoesNotDivide {
        /// What the size splits.
        splits: Splits,
        /// The largest size that divides it.
        largest: u32,
    },
    /// Virtual stages without pipeline stages.
    NeedsPipeline,
    /// Sequence parallelism without tensor parallelism.
    NeedsTensorParallel,
    /// Model parallelism where the accounting is DeepSpeed's estimator or
    /// Hugging Face's Trainer, which have none.
    NeedsMegatron,
    /// Model parallelism with LoRA or QLoRA, which the page counts on one GPU's whole model.
    FullTrainingOnly,
}

/// What a layout size splits, and how many of it there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Splits {
    /// All GPUs (nodes × GPUs per node).
    Gpus(u32),
    /// The attention heads.
    Heads(u32),
    /// The key/value heads.
    KvHeads(u32),
    /// The transformer layers (pipeline stages × virtual stages).
    Layers(u32),
    /// The sequence's tokens (in 2 × CP chunks).
    Sequence(u32),
}

impl Splits {
    /// How many there are.
    pub const fn count(self) -> u32 {
        match self {
            Splits::Gpus(n)
            | Splits::Heads(n)
            | Splits::KvHeads(n)
            | Splits::Layers(n)
            | Splits::Sequence(n) => n,
        }
    }

    /// What they are, in words: `the 8 key/value heads`.
    pub fn words(self) -> String {
        match self {
            Splits::Gpus(n) => format!("the {n} GPUs"),
            Splits::Heads(n) => format!("the {n} attention heads"),
            Splits::KvHeads(n) => format!("the {n} key/value heads"),
            Splits::Layers(n) => format!("the {n} layers"),
            Splits::Sequence(n) => format!("the sequence's {n} tokens in 2 × CP chunks"),
        }
    }
}

/// A typed error that names the field it is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputError {
    /// The field whose value is wrong.
    pub field: Field,
    /// What is wrong with it.
    pub kind: InputErrorKind,
}

impl InputError {
    /// What is wrong, without naming the field: `must be between 1 and 1048576 (GPUs)`.
    pub fn problem(&self) -> String {
        match self.kind {
            InputErrorKind::Empty => "is empty".into(),
            InputErrorKind::NotANumber => "is not a number".into(),
            InputErrorKind::NotFinite => "must be a finite number".into(),
            InputErrorKind::NotWhole => "must be a whole number".into(),
            InputErrorKind::OutOfRange(Limits { min, max }) => match self.field.unit() {
                Some(unit) => format!(
                    "must be between {} and {} ({unit})",
                    shortest_decimal(min),
                    shortest_decimal(max)
                ),
                None => format!(
                    "must be between {} and {}",
                    shortest_decimal(min),
                    shortest_decimal(max)
                ),
            },
            InputErrorKind::BelowResolution(resolution) => {
                format!("must be 0 or at least {}", shortest_decimal(resolution))
            }
            InputErrorKind::UnknownChoice if self.field.choices().is_empty() => {
                "is not one of the presets".into()
            }
            InputErrorKind::UnknownChoice => {
                format!("must be one of {}", self.field.choices().join(", "))
            }
            InputErrorKind::NotDivisible => match self.field {
                Field::Heads => "must divide the hidden size".into(),
                Field::KvHeads => "must divide the number of heads".into(),
                _ => "must be a multiple of micro-batch × number of GPUs".into(),
            },
            InputErrorKind::NeedsModel => "needs a model's architecture: choose a model".into(),
            InputErrorKind::TooManyGpus {
                gpus_per_node,
                total,
            } => format!(
                "times gpus ({gpus_per_node}) is {total} GPUs, more than {}",
                Field::Gpus.limits().map_or(0.0, |l| l.max)
            ),
            InputErrorKind::LargerThanModel => "is larger than the model (params)".into(),
            InputErrorKind::NotCovered => {
                "covers dense Llama-, Mistral- and Qwen2-style models (SwiGLU), not this one".into()
            }
            InputErrorKind::NeedsMixedPrecision => {
                "needs a mixed precision (dtype fp16 or bf16)".into()
            }
            InputErrorKind::NeedsExperts => "needs a mixture of experts (experts > 0)".into(),
            InputErrorKind::NotInDeepSpeed => {
                "is counted with the lesson's accounting and without offload only".into()
            }
            InputErrorKind::DoesNotDivide { splits, largest } => {
                format!("must divide {} ({largest} would)", splits.words())
            }
            InputErrorKind::NeedsPipeline => "needs pipeline stages (pp > 1)".into(),
            InputErrorKind::NeedsTensorParallel => "needs tensor parallelism (tp > 1)".into(),
            InputErrorKind::FullTrainingOnly => {
                "splits full training only (method full)".into()
            }
            InputErrorKind::NeedsMegatron => {
                "splits the model as Megatron-LM does: not under DeepSpeed's estimator nor Hugging Face's accounting".into()
            }
            InputErrorKind::DenseOnly => {
                "adapts a mixture of experts' attention only (LoRA, targets qv or attn), and not latent attention".into()
            }
        }
    }
}

impl fmt::Display for InputError {
    /// `number of GPUs (gpus) must be between 1 and 1048576 (GPUs)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field;
        write!(f, "{} ({}) {}", field.label(), field.key(), self.problem())
    }
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn numbers_parse_within_limits() {
        assert_eq!(Field::Params.parse_number(" 7 "), Ok(7.0));
        assert_eq!(Field::Params.parse_number("1e3"), Ok(1000.0));
        assert_eq!(Field::Overhead.parse_number("0"), Ok(0.0));
        assert_eq!(Field::Gpus.parse_count("8"), Ok(8));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn each_bad_value_has_its_own_error_naming_the_field() {
        let kind =
            |field: Field, text: &str| field.parse_number(text).map_err(|e| (e.field, e.kind));
        assert_eq!(
            kind(Field::Params, ""),
            Err((Field::Params, InputErrorKind::Empty))
        );
        assert_eq!(
            kind(Field::Params, "seven"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "inf"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "NaN"),
            Err((Field::Params, InputErrorKind::NotANumber))
        );
        assert_eq!(
            kind(Field::Params, "1e400"),
            Err((Field::Params, InputErrorKind::NotFinite))
        );
        assert!(matches!(
            kind(Field::Params, "0"),
            Err((Field::Params, InputErrorKind::OutOfRange(_)))
        ));
        assert!(matches!(
            kind(Field::Overhead, "1"),
            Err((Field::Overhead, InputErrorKind::OutOfRange(_)))
        ));
        assert!(matches!(
            kind(Field::GpuMemory, "-80"),
            Err((Field::GpuMemory, InputErrorKind::OutOfRange(_)))
        ));
        assert_eq!(
            Field::Gpus.parse_count("8.5").map_err(|e| e.kind),
            Err(InputErrorKind::NotWhole)
        );
        assert!(matches!(
            Field::Gpus.parse_count("0").map_err(|e| e.kind),
            Err(InputErrorKind::OutOfRange(_))
        ));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn messages_name_the_field_and_its_key() {
        let message = Field::Gpus.parse_count("0").unwrap_err().to_string();
        assert_eq!(
            message,
            "number of GPUs (gpus) must be between 1 and 1048576 (GPUs)"
        );
        let message = Field::Precision
            .error(InputErrorKind::UnknownChoice)
            .to_string();
        assert_eq!(
            message,
            "precision (dtype) must be one of fp32, fp16, bf16, fp32-pure, bf16-pure"
        );
    }
}

/// Parses a percentage typed for a fraction field (`20` → `0.2`) and checks the
/// fraction against the field's limits.
///
/// The typed decimal is divided by 100 before it is rounded to an `f64`, so `7`
/// gives exactly the `f64` nearest 0.07 and `0.0000001` the one nearest 10^-9.
pub fn parse_percent(field: Field, text: &str) -> Result<f64, InputError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(field.error(InputErrorKind::Empty));
    }
    let fraction = crate::input::decimal::parse_decimal_times_ten_to(text, -2)
        .ok_or(field.error(InputErrorKind::NotANumber))?;
    field.check(fraction)
}

/// A fraction written as a percentage for a form field: `0.2` → `20`, `0.07` → `7`.
///
/// The fraction's shortest decimal with its point moved two places, so there is
/// no binary noise (`0.07 × 100 = 7.000000000000001`) and [`parse_percent`] reads
/// the text back to the same fraction, every digit kept.
pub fn percent_text(fraction: f64) -> String {
    let decimal = crate::input::decimal::shortest_decimal(fraction);
    if decimal.contains(['e', 'E']) {
        // Not written so for a fraction within the field's limits and resolution.
        let percent = ((fraction * 100.0) * 1e10).round() / 1e10;
        return crate::input::decimal::shortest_decimal(percent);
    }
    let (sign, unsigned) = match decimal.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", decimal.as_str()),
    };
    let (whole, fraction_digits) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let padded = format!("{fraction_digits:0<2}");
    let (moved, rest) = padded.split_at(2);
    let whole = format!("{whole}{moved}");
    let whole = match whole.trim_start_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    match rest.trim_end_matches('0') {
        "" => format!("{sign}{whole}"),
        rest => format!("{sign}{whole}.{rest}"),
    }
}

impl Field {
    /// Parses a decimal number without checking limits; errors are bare kinds.
    fn parse_number_unchecked(self, text: &str) -> Result<f64, InputErrorKind> {
        let text = text.trim();
        if text.is_empty() {
            return Err(InputErrorKind::Empty);
        }
        // Digits only: no "inf" or "NaN" (see `decimal` for why not `str::parse`).
        let value = crate::input::decimal::parse_decimal(text).ok_or(InputErrorKind::NotANumber)?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(InputErrorKind::NotFinite)
        }
    }
}

#[cfg(test)]
mod percent_tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn percentages_convert_both_ways_without_noise() {
        assert_eq!(parse_percent(Field::Overhead, "20"), Ok(0.2));
        assert_eq!(parse_percent(Field::Overhead, "7"), Ok(0.07));
        assert_eq!(percent_text(0.2), "20");
        assert_eq!(percent_text(0.07), "7");
        assert_eq!(percent_text(0.125), "12.5");
        assert_eq!(percent_text(0.0), "0");
        assert_eq!(percent_text(0.000_000_001), "0.0000001");
        assert_eq!(percent_text(0.123_456_789_012_345), "12.3456789012345");
        for fraction in [
            0.000_000_001,
            0.123_456_789_012_345,
            0.95,
            0.5,
            0.010_000_000_000_000_002,
        ] {
            let text = percent_text(fraction);
            assert_eq!(
                parse_percent(Field::Overhead, &text),
                Ok(fraction),
                "{text}"
            );
        }
        for text in ["0", "7", "12.5", "33.3", "95"] {
            let fraction = parse_percent(Field::Overhead, text).unwrap();
            assert_eq!(percent_text(fraction), text);
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn percentages_outside_limits_are_errors_of_the_fraction() {
        let err = parse_percent(Field::Overhead, "96").unwrap_err();
        assert_eq!(err.field, Field::Overhead);
        assert!(matches!(err.kind, InputErrorKind::OutOfRange(_)));
        assert_eq!(
            parse_percent(Field::Overhead, "x").unwrap_err().kind,
            InputErrorKind::NotANumber
        );
    }
}
