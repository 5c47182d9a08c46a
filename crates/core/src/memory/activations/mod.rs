//! Activation memory of training, per GPU, after Korthikanti et al. 2022,
//! "Reducing Activation Recomputation in Large Transformer Models", section 4.
//!
//! With sequence length `s`, micro-batch `b`, hidden size `h`, heads `a`, 16-bit
//! activations and 1-byte dropout masks, a GPT layer stores `sbh(34 + 5as/h)` bytes
//! for its backward pass. The 34 is made of
//!
//! * attention, `11sbh`: the QKV input 2, Q 2, K 2, V 2, the output projection's
//!   input 2, its dropout mask 1;
//! * MLP, `19sbh`: its input 2, the GELU's input `2 × 4h/h = 8`, the second
//!   matrix's input 8, the dropout mask 1;
//! * the two LayerNorms' inputs, `4sbh`;
//!
//! and `5as²b` is the attention scores: softmax output 2, dropout mask 1, dropout
//! output 2. In general, with activations of `e` bytes, an FFN of width `f`, keys
//! and values of width `k = kv_heads × head_dim` (grouped-query attention):
//!
//! `e·sb(6h + 2k + m·f) + 2sbh + (2e + 1)·as²b`, with `m = 2` for GELU (its input and
//! the second matrix's) and `m = 4` for SwiGLU (gate, up, SiLU(gate), their product),
//! and the `2sbh` and `as²b` masks only with dropout. For GPT (`e = 2`, `k = h`,
//! `f = 4h`, GELU) this is the paper's `34sbh + 5as²b`.
//!
//! FlashAttention never stores the scores (the `as²b` terms), nor does the paper's
//! selective recomputation. Full recomputation stores each layer's input (`e·sbh`)
//! and, during the backward pass, one layer's whole working set.
//! Activations are per GPU: data parallelism and ZeRO do not shard them.

use serde::{Deserialize, Serialize};

use crate::memory::parallel::Layout;
use vram_shared::format::MemoryUnit;
use vram_shared::model::architecture::{Architecture, Mlp, QkNorm};
use vram_shared::units::Bytes;

mod derivation;
pub use derivation::activation_derivation;

/// What the backward pass recomputes instead of storing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Recompute {
    /// Everything is stored.
    None,
    /// The attention scores are recomputed (Korthikanti et al. §4.2).
    Selective,
    /// Only each layer's input is stored; the layer is recomputed in the backward
    /// pass (gradient checkpointing per layer).
    Full,
}

impl Recompute {
    /// Every choice, in the order the page lists them.
    pub const ALL: [Recompute; 3] = [Recompute::None, Recompute::Selective, Recompute::Full];

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            Recompute::None => "none (store everything)",
            Recompute::Selective => "selective (chosen modules)",
            Recompute::Full => "full (gradient checkpointing)",
        }
    }

    /// The value in the shared link's `recompute` key.
    pub const fn key(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
}

/// A submodule selective recomputation rebuilds: Megatron-LM's
/// `--recompute-modules` (`megatron/core/transformer/transformer_config.py`,
/// `recompute_modules`; read at d98e8a6). `core_attn`, `mlp`, `moe` and
/// `shared_experts` run under an ordinary checkpoint (their input kept,
/// everything inside rebuilt); `moe_act`, `layernorm` and `mla_up_proj`
/// discard one output and rebuild it before the backward needs it
/// (`CheckpointWithoutOutput`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RecomputeModule {
    /// The core attention (`attention.py`, `checkpoint_core_attention`): its
    /// scores without FlashAttention; its own saved output in FP8.
    CoreAttention,
    /// A dense layer's MLP (`transformer_layer.py`, `recompute_mlp`; not a
    /// mixture's): its first linear's input and its `m·f` values.
    Mlp,
    /// The routed experts' activation function (`moe/experts.py`,
    /// `activation_recompute`): the second linears' inputs `t·c·f_e`.
    MoeActivation,
    /// The norms that are modules of their own (`recompute_input_layernorm`,
    /// `recompute_pre_mlp_layernorm`): with Transformer Engine the input norm
    /// is fused into the QKV linear unless latent attention runs, and the
    /// pre-MLP norm into the first linear unless a mixture of experts does
    /// (`models/gpt/gpt_layer_specs.py`): their outputs, `h` each.
    LayerNorm,
    /// Latent attention's up-projections and rotary embedding
    /// (`multi_latent_attention.py`, `recompute_up_proj`): q, k and v.
    MlaUpProjection,
    /// A mixture of experts' whole layer (`moe/moe_layer.py`): everything but
    /// its input, its all-to-alls run again.
    Moe,
    /// The shared experts (`moe/shared_experts.py`): their `m·f_s` values.
    SharedExperts,
    /// Not Megatron-LM's: torchtitan's per-op selective checkpointing
    /// (`selective_ac_option = "op"`, `SelectiveAC` in
    /// `torchtitan/distributed/activation_checkpoint.py`). Each layer is
    /// checkpointed with a policy that saves the outputs of the ops costly to
    /// rebuild — the attention kernel's, the linears' but every second
    /// unbiased one's — and rebuilds everything else; alone, on a dense
    /// model with FlashAttention ([`per_op_linears`]).
    PerOp,
}

impl RecomputeModule {
    /// Every module, in Megatron-LM's order of its documentation.
    pub const ALL: [RecomputeModule; 8] = [
        RecomputeModule::CoreAttention,
        RecomputeModule::MoeActivation,
        RecomputeModule::LayerNorm,
        RecomputeModule::MlaUpProjection,
        RecomputeModule::Mlp,
        RecomputeModule::Moe,
        RecomputeModule::SharedExperts,
        RecomputeModule::PerOp,
    ];

    /// Megatron-LM's name, the value in the shared link's `recompute_modules`.
    pub const fn key(self) -> &'static str {
        match self {
            RecomputeModule::CoreAttention => "core_attn",
            RecomputeModule::Mlp => "mlp",
            RecomputeModule::MoeActivation => "moe_act",
            RecomputeModule::LayerNorm => "layernorm",
            RecomputeModule::MlaUpProjection => "mla_up_proj",
            RecomputeModule::Moe => "moe",
            RecomputeModule::SharedExperts => "shared_experts",
            RecomputeModule::PerOp => "op",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The modules selective recomputation rebuilds; Megatron-LM's default is
/// the core attention alone, what `recompute=selective` has always meant here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RecomputeModules(u8);

impl Default for RecomputeModules {
    fn default() -> Self {
        RecomputeModules::CORE_ATTENTION
    }
}

impl RecomputeModules {
    /// torchtitan's per-op policy alone ([`RecomputeModule::PerOp`]).
    pub const PER_OP: RecomputeModules = RecomputeModules(RecomputeModule::PerOp.bit());

    /// Megatron-LM's default, `["core_attn"]`.
    pub const CORE_ATTENTION: RecomputeModules =
        RecomputeModules(RecomputeModule::CoreAttention.bit());

    /// No module.
    pub const NONE: RecomputeModules = RecomputeModules(0);

    /// Whether `module` is rebuilt.
    pub const fn has(self, module: RecomputeModule) -> bool {
        self.0 & module.bit() != 0
    }

    /// The set with `module` added.
    pub const fn with(self, module: RecomputeModule) -> RecomputeModules {
        RecomputeModules(self.0 | module.bit())
    }

    /// The modules, comma-separated in [`RecomputeModule::ALL`]'s order, as
    /// the link writes them.
    pub fn key(self) -> String {
        RecomputeModule::ALL
            .into_iter()
            .filter(|m| self.has(*m))
            .map(RecomputeModule::key)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Reads a comma-separated list of module names, in any order, repeats
    /// allowed, case and spaces around each ignored. `None` for an empty list
    /// or an unknown name.
    pub fn from_key(list: &str) -> Option<RecomputeModules> {
        let mut set = RecomputeModules::NONE;
        for name in list.split(',') {
            let name = name.trim().to_ascii_lowercase();
            let module = RecomputeModule::ALL.into_iter().find(|m| m.key() == name)?;
            set = set.with(module);
        }
        Some(set)
    }
}

/// How full recomputation groups a model chunk's layers (Megatron-LM's
/// `--recompute-method`, `megatron/core/transformer/transformer_block.py`,
/// `_checkpointed_forward`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RecomputeMethod {
    /// The chunk's layers cut into groups of `N`: each group keeps its input
    /// and is rebuilt whole in the backward pass.
    Uniform,
    /// The chunk's first `N` layers each keep their input and are rebuilt one
    /// at a time; the others store everything.
    Block,
}

impl RecomputeMethod {
    /// Every choice, in the order the page lists them.
    pub const ALL: [RecomputeMethod; 2] = [RecomputeMethod::Uniform, RecomputeMethod::Block];

    /// The value in the shared link's `recompute_method` key, Megatron-LM's word.
    pub const fn key(self) -> &'static str {
        match self {
            RecomputeMethod::Uniform => "uniform",
            RecomputeMethod::Block => "block",
        }
    }
}

/// Which layers full recomputation checkpoints: Megatron-LM's
/// `--recompute-method` and `--recompute-num-layers`, per model chunk (a
/// pipeline rank's layers, or one virtual stage's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Checkpointing {
    /// How the layers are grouped.
    pub method: RecomputeMethod,
    /// `N`: layers per group (uniform) or layers checkpointed (block).
    pub layers: u32,
}

/// A model chunk of `n` layers under [`Checkpointing`]: how many inputs it
/// keeps, how many layers it stores whole, how many it rebuilds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkCheckpoints {
    /// Checkpointed inputs: ⌈n ÷ N⌉ (uniform) or min(N, n) (block).
    pub inputs: u32,
    /// Layers that store everything: none (uniform) or n − min(N, n) (block).
    pub stored: u32,
    /// Layers rebuilt at once in the backward pass: min(N, n) (uniform) or
    /// one (block).
    pub rebuilt: u32,
}

impl Checkpointing {
    /// Every layer checkpointed on its own: gradient checkpointing per layer,
    /// what `recompute=full` means without the two keys.
    pub const EVERY_LAYER: Checkpointing = Checkpointing {
        method: RecomputeMethod::Uniform,
        layers: 1,
    };

    /// What a chunk of `n` layers keeps, as `_checkpointed_forward` runs it.
    pub fn chunk(self, n: u32) -> ChunkCheckpoints {
        let group = self.layers.clamp(1, n.max(1));
        match self.method {
            RecomputeMethod::Uniform => ChunkCheckpoints {
                inputs: n.div_ceil(group),
                stored: 0,
                rebuilt: group.min(n),
            },
            RecomputeMethod::Block => ChunkCheckpoints {
                inputs: group.min(n),
                stored: n - group.min(n),
                rebuilt: u32::from(n > 0),
            },
        }
    }

    /// The share of a chunk of `n` layers whose forward pass runs again: all
    /// of it (uniform), N ÷ n (block).
    pub fn recomputed_share(self, n: u32) -> f64 {
        match self.method {
            RecomputeMethod::Uniform => 1.0,
            RecomputeMethod::Block => f64::from(self.chunk(n).inputs) / f64::from(n.max(1)),
        }
    }
}

/// How the loss holds the logits over the vocabulary, beyond the 16-bit
/// logits and the one fp32 copy the kept activations count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Loss {
    /// Megatron-LM's vocab-parallel cross-entropy
    /// (`megatron/core/tensor_parallel/cross_entropy.py`): the fp32 copy is
    /// turned into the softmax in place and saved, its gradient written
    /// into the same buffer; nothing beyond the count. A compiled PyTorch
    /// loss holds less ([`Loss::Compiled`]).
    #[default]
    Fused,
    /// PyTorch's `cross_entropy` over an fp32 copy of the logits, not
    /// compiled (`F.cross_entropy(pred.flatten(0, 1).float(), labels)`:
    /// torchtitan's `cross_entropy_loss` without `compile`'s loss
    /// component). The log-softmax saves its own fp32 output: at the loss
    /// the 16-bit logits, the copy and that output, 4 bytes a logit more;
    /// at the backward's start that output, the fp32 gradient arriving at
    /// it and the one it computes, 12 bytes, the 16-bit logits dropped
    /// (torchtitan's `del pred`): 6 more.
    Fp32,
    /// torchtitan's `ChunkedLossWrapper` (`components/loss.py`, on its main
    /// branch since 9530a87, 2026-06-26, released in 0.3.0, whose Llama 3
    /// and Qwen3 configs use it): the model stops at the final norm,
    /// and the output head and the loss run over the sequence in
    /// [`Loss::CHUNKS`] chunks, each chunk's backward at once, its
    /// gradient gathered into an fp32 buffer of the hidden states. No
    /// logits are kept through the forward; at the loss one chunk's logits
    /// and fp32 copy and that buffer; at the backward's start the buffer.
    Chunked,
    /// torchtune's `CEWithChunkedOutputLoss` (`torchtune/modules/loss/`,
    /// its decoder's `num_output_chunks` of [`Loss::CHUNKS`], the loss's
    /// `compute_cross_entropy` compiled as its recipes compile it): the
    /// output head runs over the sequence in chunks whose 16-bit logits are
    /// all kept, each chunk's cross-entropy over its own fp32 upcast. Kept:
    /// the 16-bit logits alone; at the loss one chunk's fp32 copy; at the
    /// backward's start one chunk's fp32 gradient and its 16-bit one.
    ChunkedOutput,
    /// PyTorch's cross-entropy over an fp32 upcast under `torch.compile`
    /// (torchtitan's `cross_entropy_loss` with `loss` among `[compile]`'s
    /// components): inductor fuses the upcast and the log-softmax into one
    /// reduction a row and saves only the 16-bit logits (and one fp32
    /// log-sum-exp a row); its backward writes the logits' 16-bit gradient
    /// beside them. Kept: the 16-bit logits; at the loss nothing more; at the
    /// backward's start their gradient, `e` bytes a logit (measured on the
    /// CPU: `measured/losses.json`).
    Compiled,
}

impl Loss {
    /// Every form, in the `loss` key's order.
    pub const ALL: [Loss; 5] = [
        Loss::Fused,
        Loss::Fp32,
        Loss::Chunked,
        Loss::ChunkedOutput,
        Loss::Compiled,
    ];

    /// The chunks `ChunkedLossWrapper` splits the sequence into (its
    /// `num_chunks` default).
    pub const CHUNKS: u32 = 8;

    /// The value in the shared link's `loss` key.
    pub const fn key(self) -> &'static str {
        match self {
            Loss::Fused => "fused",
            Loss::Fp32 => "fp32",
            Loss::Chunked => "chunked",
            Loss::ChunkedOutput => "chunked_output",
            Loss::Compiled => "compiled",
        }
    }

    /// Bytes a logit held beyond the kept count, `e` bytes a 16-bit value,
    /// the vocabulary split over tensor-parallel ranks or not: at the loss,
    /// and at the backward's start.
    /// Split, PyTorch's uncompiled loss is computed by hand over each rank's
    /// shard (PyTorch's `loss_parallel()`, and torchtitan 0.3.0's
    /// `_LossParallelCrossEntropy`): the fp32 copy, the shifted logits and
    /// their exponentials live at once before the log-softmax (12 bytes a
    /// logit at the loss, not 8), and the backward builds the one-hot, the
    /// probabilities and their sum beside the saved log-softmax (16, not
    /// 12), measured on the CPU (`measured/losses.json`).
    /// A chunked loss keeps no logits: its own figures are the stage's
    /// ([`stage_activations`]).
    pub const fn beyond_kept(self, e: f64, vocab_parallel: bool) -> (f64, f64) {
        match (self, vocab_parallel) {
            (Loss::Fused | Loss::Chunked | Loss::ChunkedOutput, _) => (0.0, 0.0),
            (Loss::Fp32, false) => (4.0, 6.0),
            (Loss::Fp32, true) => (8.0, 10.0),
            (Loss::Compiled, _) => (0.0, e),
        }
    }

    /// Bytes of fp32 a logit the loss keeps for the backward beside the
    /// logits: the log-softmax's output, but under `torch.compile`.
    pub const fn kept_fp32_bytes(self) -> f64 {
        match self {
            Loss::Compiled => 0.0,
            _ => 4.0,
        }
    }
}

/// How a step runs, as far as activations are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActivationSetup {
    /// Sequence length in tokens.
    pub seq_len: u32,
    /// Micro-batch per GPU, in sequences.
    pub micro_batch: u32,
    /// Bytes of one activation value: 2 for 16-bit training, 4 for fp32.
    pub bytes_per_value: f64,
    /// Whether FlashAttention computes attention (no score matrix is stored).
    pub flash_attention: bool,
    /// What the backward pass recomputes.
    pub recompute: Recompute,
    /// Which layers full recomputation checkpoints (ignored otherwise).
    pub checkpointing: Checkpointing,
    /// Which modules selective recomputation rebuilds (ignored otherwise).
    #[serde(default)]
    pub modules: RecomputeModules,
    /// Whether the model applies dropout (1-byte masks are stored).
    pub dropout: bool,
    /// How many copies of its tokens each routed expert takes, relative to
    /// uniform routing (Megatron-LM's `moe_expert_capacity_factor`; 1 for
    /// uniform, more for imbalance). Dense models ignore it.
    pub capacity: f64,
    /// Whether the linears run in FP8 (Transformer Engine): each saves its
    /// input for the weight gradient quantised, one byte a value
    /// ([`LayerValues`]' linear inputs).
    #[serde(default)]
    pub fp8: bool,
    /// Bytes of scales per saved FP8 value: 0 under per-tensor recipes, 1/32
    /// with MXFP8, 4/128 with blockwise scaling
    /// ([`crate::memory::Fp8Recipe::activation_scale_bytes`]).
    #[serde(default)]
    pub fp8_scales: f64,
    /// Which linears are frozen and keep no input for a weight gradient
    /// (LoRA and QLoRA's base: [`FrozenInputs`]); none in full training.
    #[serde(default)]
    pub frozen: FrozenInputs,
    /// How the loss holds the logits ([`Loss`]).
    #[serde(default)]
    pub loss: Loss,
}

/// The linears' inputs a frozen base does not keep: Transformer Engine's
/// linear saves its input only for the weight gradient, and skips it when
/// the weight needs none (`module/linear.py`, `layernorm_linear.py`:
/// `weight.requires_grad`). An input an adapter reads (LoRA's `lora_A`
/// takes the base linear's input) is kept all the same; the output
/// projection's input is the attention's output, which the attention keeps
/// for its own backward, and the SwiGLU's input its own kernel keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FrozenInputs {
    /// The query/key/value projection's input (`h`) is not kept: no adapter
    /// on q, k or v.
    pub qkv: bool,
    /// The MLP's first linears' input (`h`; a mixture's routed copies'
    /// `t·c·h`) is not kept: no adapter on the gate or up projection.
    pub mlp_in: bool,
    /// The MLP's second linear's input (`f`; experts' `t·c·f_e + n·f_s`)
    /// is not kept: no adapter on the down projection.
    pub mlp_out: bool,
}

impl FrozenInputs {
    /// Full training: every linear keeps its input.
    pub const NONE: FrozenInputs = FrozenInputs {
        qkv: false,
        mlp_in: false,
        mlp_out: false,
    };
}

impl ActivationSetup {
    /// The share of a model chunk of `chunk` layers whose forward pass runs
    /// again: 0 without full recomputation, else [`Checkpointing::recomputed_share`].
    pub fn recomputed_share(&self, chunk: u32) -> f64 {
        match self.recompute {
            Recompute::Full => self.checkpointing.recomputed_share(chunk),
            Recompute::None | Recompute::Selective => 0.0,
        }
    }

    /// Whether the attention scores count: stored per layer without
    /// recomputation, or in the one working set full recomputation rebuilds;
    /// never with FlashAttention nor when selective recomputation rebuilds
    /// the core attention.
    fn scores_counted(&self) -> bool {
        !self.flash_attention && !self.rebuilds(RecomputeModule::CoreAttention)
    }

    /// Whether selective recomputation rebuilds `module`.
    pub fn rebuilds(&self, module: RecomputeModule) -> bool {
        self.recompute == Recompute::Selective && self.modules.has(module)
    }
}

/// Activation memory on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActivationMemory {
    /// What one layer stores for the backward pass, all recomputation aside.
    pub per_layer: Bytes,
    /// What all layers keep at the peak of the backward pass.
    pub layers: Bytes,
    /// Outside the layers: the embedding's dropout mask, the final norm's and the
    /// output head's inputs, the logits, and their fp32 copy for the loss.
    pub embeddings_and_logits: Bytes,
    /// What LoRA's adapters keep: each adapted layer's r-wide intermediate
    /// (zero without adapters; see [`crate::memory::finetune::Adapters::activations`]).
    pub adapters: Bytes,
    /// Everything above: the larger of [`Self::at_loss`] and [`Self::rebuilding`].
    pub total: Bytes,
    /// What is held at the loss: everything, or under full recomputation the
    /// checkpoints and stored layers, no layer's working set rebuilt yet.
    pub at_loss: Bytes,
    /// Under full recomputation, what is held while checkpointed layers are
    /// rebuilt in the backward pass (`None` otherwise).
    pub rebuilding: Option<Bytes>,
    /// What the loss holds beyond the kept logits on this GPU, at the loss
    /// and at the backward's start ([`Loss::beyond_kept`]; the last pipeline
    /// stage's only). A moment of the step, not kept: not in `total`.
    #[serde(skip)]
    pub loss_beyond_kept: (Bytes, Bytes),
}

impl ActivationMemory {
    /// What a step keeps without adapters, from its parts in bytes: `per_layer`
    /// for one layer, `layers` for all of them at the loss, `outside` outside
    /// them and, under full recomputation, `rebuilding` for the layers while
    /// one is rebuilt. The layers' figure and the total are taken at the
    /// larger of the two moments.
    pub(crate) fn without_adapters(
        per_layer: f64,
        layers: f64,
        outside: f64,
        rebuilding: Option<f64>,
    ) -> Self {
        let peak = rebuilding.map_or(layers, |r| r.max(layers));
        ActivationMemory {
            per_layer: Bytes::new(per_layer),
            layers: Bytes::new(peak),
            embeddings_and_logits: Bytes::new(outside),
            adapters: Bytes::ZERO,
            total: Bytes::new(peak + outside),
            at_loss: Bytes::new(layers + outside),
            rebuilding: rebuilding.map(|r| Bytes::new(r + outside)),
            loss_beyond_kept: (Bytes::ZERO, Bytes::ZERO),
        }
    }
}

/// Bytes one layer keeps per token (per query–key pair for the scores),
/// split as tensor parallelism splits them (Korthikanti et al. 2022, §4.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerValues {
    /// Outside the tensor-parallel region: the two norms' inputs, the QKV and
    /// MLP inputs (`4h`), latent attention's compressed vectors, the two
    /// dropout masks (`2h`, 1 byte each) and a mixture of experts' fp32 router
    /// logits: what sequence parallelism divides.
    pub outside: f64,
    /// Inside it: Q, K, V, the output projection's input and the MLP's
    /// activations, divided by tensor parallelism.
    pub inside: f64,
    /// Gathered whole on every tensor-parallel rank: the routed experts'
    /// dispatched inputs (`t·c·h`). Megatron-LM's token dispatchers
    /// (`megatron/core/transformer/moe/token_dispatcher.py`) all-gather the
    /// tokens over the expert-tensor-parallel group (ETP = TP) before the
    /// experts' first linear, which keeps its whole input; only the experts'
    /// own width `m·f_e` is split.
    pub gathered: f64,
    /// The attention scores per query and key: the softmax's output and its
    /// input (`2e`) and its dropout mask, times the heads.
    pub scores: f64,
}

/// [`LayerValues`] of a dense layer, or of a mixture of experts' layer
/// (`moe`), with full attention or Gated DeltaNet linear attention (`linear`).
pub fn layer_values(
    arch: &Architecture,
    setup: &ActivationSetup,
    moe: bool,
    linear: bool,
) -> LayerValues {
    let h = f64::from(arch.hidden);
    let e = setup.bytes_per_value;
    let mask = if setup.dropout { 1.0 } else { 0.0 };
    let (dense_mlp, moe_mlp) = mlp_terms(arch, setup.capacity);
    // A Gated DeltaNet layer keeps its own values and no scores (FP8 is not
    // counted with it).
    let (attention, split, scores, fp32) = match linear {
        true => (
            norm_inputs(arch) + linear_values(arch),
            linear_values(arch),
            0.0,
            linear_fp32_bytes(arch),
        ),
        false => {
            let attention = attention_term(arch);
            let split = attention - norm_inputs(arch) - latent_term(arch);
            (
                attention,
                split,
                (2.0 * e + mask) * f64::from(arch.heads),
                0.0,
            )
        }
    };
    let router = if moe {
        4.0 * f64::from(arch.moe.experts)
    } else {
        0.0
    };
    let (mlp, gathered) = match moe {
        true => {
            let inputs = f64::from(arch.moe.top_k) * setup.capacity * h;
            (moe_mlp - inputs, inputs)
        }
        false => (dense_mlp, 0.0),
    };
    // In FP8 each Transformer Engine linear saves its input in one byte
    // (`module/linear.py`: quantised, column-wise only): the QKV projection's
    // and a dense MLP's first linear's inputs outside the TP region (a
    // mixture of experts' router is no TE linear), the output projection's
    // and the second linears' inside it, and the experts' gathered inputs.
    // The output projection is the exception: the fused attention keeps its
    // output in 16 bits for its own backward (`attention/dot_product_attention/
    // backends.py` saves `out`), and `linear_proj` saves its FP8 copy beside
    // it, so that input costs e + 1 bytes, not e.
    let (fp8_outside, fp8_inside, fp8_copies) = match setup.fp8 {
        false => (0.0, 0.0, 0.0),
        true => (
            if moe { h } else { 2.0 * h },
            second_linear_inputs(arch, setup.capacity, moe),
            output_width(arch),
        ),
    };
    // A saved FP8 value costs its byte and its share of the scales.
    let fp8_value = 1.0 + setup.fp8_scales;
    let fp8_copies = fp8_copies * fp8_value;
    let one_byte = if setup.fp8 { e - fp8_value } else { 0.0 };
    // A frozen base's linears keep no input of their own (issue 48, error 6).
    let frozen = setup.frozen;
    let no_qkv = if frozen.qkv && !linear { h } else { 0.0 };
    let (no_mlp_in, no_gathered) = match (frozen.mlp_in, moe) {
        (false, _) => (0.0, 0.0),
        (true, false) => (h, 0.0),
        (true, true) => (0.0, gathered),
    };
    let no_mlp_out = match frozen.mlp_out {
        true => second_linear_inputs(arch, setup.capacity, moe),
        false => 0.0,
    };
    let mut values = LayerValues {
        outside: e * (attention - split - no_qkv - no_mlp_in) + mask * 2.0 * h + router
            - one_byte * fp8_outside,
        inside: e * (split + mlp - no_mlp_out) - one_byte * fp8_inside + fp8_copies + fp32,
        gathered: (e - one_byte) * (gathered - no_gathered),
        scores,
    };
    if setup.recompute != Recompute::Selective {
        return values;
    }
    if setup.modules.has(RecomputeModule::PerOp) {
        return per_op_values(arch, setup);
    }
    // What selective recomputation's modules rebuild instead of keeping
    // (issue 48; [`RecomputeModule`]), each as this layer counts it above: a
    // linear's input in one byte under FP8, none for a frozen weight's.
    let kept = |frozen: bool| match (frozen, setup.fp8) {
        (true, _) => 0.0,
        (false, true) => fp8_value,
        (false, false) => e,
    };
    let m = f64::from(mlp_multiplier(arch.mlp));
    let moe_shape = arch.moe;
    // The MLP's values inside the TP region (its first linears' outputs and
    // its second linears' inputs; a mixture's routed and shared experts').
    let mlp_inside = e * (mlp - no_mlp_out) - one_byte * fp8_inside;
    let whole_moe = moe && setup.modules.has(RecomputeModule::Moe);
    if setup.modules.has(RecomputeModule::CoreAttention) && setup.fp8 && !linear {
        // The fused attention keeps no 16-bit output of its own; the output
        // projection's FP8 copy remains.
        values.inside -= e * output_width(arch);
    }
    if setup.modules.has(RecomputeModule::Mlp) && !moe {
        values.outside -= kept(frozen.mlp_in) * h;
        values.inside -= mlp_inside;
    }
    if whole_moe {
        // The layer's input (the pre-MLP norm's output) stays as the checkpoint's.
        values.outside -= router;
        values.inside -= mlp_inside;
        values.gathered = 0.0;
    }
    if setup.modules.has(RecomputeModule::MoeActivation) && moe && !whole_moe {
        let routed = f64::from(moe_shape.top_k) * setup.capacity * f64::from(moe_shape.expert_ffn);
        values.inside -= kept(frozen.mlp_out) * routed;
    }
    if setup.modules.has(RecomputeModule::SharedExperts) && moe && !whole_moe {
        let shared = f64::from(moe_shape.shared_experts) * f64::from(moe_shape.shared_ffn);
        values.inside -= e * (m - 1.0) * shared + kept(frozen.mlp_out) * shared;
    }
    if setup.modules.has(RecomputeModule::MlaUpProjection) && arch.mla.is_latent() && !linear {
        let (q, k, v) = (
            arch.q_width() as f64,
            arch.kv_width() as f64,
            arch.v_width() as f64,
        );
        values.inside -= e * (q + k + v);
    }
    if setup.modules.has(RecomputeModule::LayerNorm) {
        // The input norm is a module of its own only beside latent attention
        // (its output, the down-projections' input), the pre-MLP norm only
        // before a mixture of experts (its output, the router's input).
        if arch.mla.is_latent() && !linear {
            values.outside -= kept(frozen.qkv) * h;
        }
        if moe && !whole_moe {
            values.outside -= e * h;
        }
    }
    values
}

/// One linear of a layer as torchtitan's per-op checkpointing sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpLinear {
    /// Its output's width per token.
    pub width: f64,
    /// Its FLOPs per token ÷ 2 (inputs × outputs).
    pub weights: f64,
    /// Whether tensor parallelism divides its output (a column-parallel
    /// linear: Q, K, V and the MLP's first); the others' outputs are the
    /// hidden size.
    pub inside: bool,
    /// Whether the policy saves its output.
    pub saved: bool,
}

/// A dense layer's linears in forward order — Q, K, V, the output
/// projection, then the MLP's (SwiGLU's gate, up and down; GELU's up and
/// down) — and whether torchtitan's per-op policy saves each output: a
/// biased linear is an `addmm`, always saved and not counted; an unbiased
/// one is an `mm`, counted, and every second one rebuilt (the policy's
/// `meta["forward_mm_count"] % 2 == 0`). In FP8 the same: the policy's
/// dispatch mode sees torchao's float8 linear as an `mm` of its float8
/// tensors (a mode runs before a tensor subclass's own dispatch), whose
/// 16-bit output it saves or not by the same count.
pub fn per_op_linears(arch: &Architecture) -> Vec<OpLinear> {
    use vram_shared::model::architecture::Biases;
    let h = f64::from(arch.hidden);
    let q = arch.q_width() as f64;
    let q_out = if arch.gated_attention { 2.0 * q } else { q };
    let kv = arch.kv_width() as f64;
    let f = f64::from(arch.ffn);
    let (qkv_bias, o_bias, mlp_bias) = match arch.biases {
        Biases::None => (false, false, false),
        Biases::Qkv => (true, false, false),
        Biases::Attention => (true, true, false),
        Biases::All => (true, true, true),
    };
    let mut shapes = vec![
        (q_out, h, true, qkv_bias),
        (kv, h, true, qkv_bias),
        (kv, h, true, qkv_bias),
        (h, q, false, o_bias),
    ];
    match arch.mlp {
        Mlp::SwiGlu => shapes.extend([
            (f, h, true, mlp_bias),
            (f, h, true, mlp_bias),
            (h, f, false, mlp_bias),
        ]),
        Mlp::Gelu => shapes.extend([(f, h, true, mlp_bias), (h, f, false, mlp_bias)]),
    }
    let mut counted = 0;
    shapes
        .into_iter()
        .map(|(width, input, inside, biased)| {
            let saved = biased || {
                counted += 1;
                counted % 2 == 1
            };
            OpLinear {
                width,
                weights: width * input,
                inside,
                saved,
            }
        })
        .collect()
}

/// What torchtitan's per-op checkpointing keeps of a dense layer per token:
/// its input (the checkpoint's), the attention kernel's output and its fp32
/// log-sum-exp a head, and the outputs [`per_op_linears`] saves, in the
/// activations' width; every element-wise op (norms, rotary embedding,
/// the activation function, residual additions) is rebuilt. The output
/// projection's and the MLP's last linear's outputs are counted as
/// sequence parallelism's share under TP (their reduce-scattered outputs,
/// which the policy saves too).
fn per_op_values(arch: &Architecture, setup: &ActivationSetup) -> LayerValues {
    let e = setup.bytes_per_value;
    let h = f64::from(arch.hidden);
    let q = arch.q_width() as f64;
    let mut values = LayerValues {
        outside: e * h,
        inside: e * q + 4.0 * f64::from(arch.heads),
        gathered: 0.0,
        scores: 0.0,
    };
    for linear in per_op_linears(arch).into_iter().filter(|l| l.saved) {
        match linear.inside {
            true => values.inside += e * linear.width,
            false => values.outside += e * linear.width,
        }
    }
    values
}

/// The attention's output projection's input width per token: q's, or
/// under latent attention the heads' values'.
fn output_width(arch: &Architecture) -> f64 {
    match arch.mla.is_latent() {
        true => arch.v_width() as f64,
        false => arch.q_width() as f64,
    }
}

/// The MLP's second linears' inputs per token: a dense MLP's `f`, or a
/// mixture of experts' routed copies' `t·c·f_e` and shared experts' `n·f_s`.
fn second_linear_inputs(arch: &Architecture, capacity: f64, moe: bool) -> f64 {
    let m = arch.moe;
    match moe {
        false => f64::from(arch.ffn),
        true => {
            f64::from(m.top_k) * capacity * f64::from(m.expert_ffn)
                + f64::from(m.shared_experts) * f64::from(m.shared_ffn)
        }
    }
}

/// Values per token of one layer's attention, kept in 16 bits (times `e`):
/// the QKV input, Q, K, V, the output projection's input, the two norms'
/// inputs and the MLP's input, `4h + q + k + v + o`: Korthikanti's `6h + 2k`
/// when q and the output are `hidden` wide (with Gemma's four norms `6h + …`,
/// [`norm_inputs`]). Latent attention adds its compressed query and key/value
/// (each a norm's input and the up-projection's input, `2·q_rank +
/// 2·kv_rank`, and the rotary key, `rope`).
fn attention_term(arch: &Architecture) -> f64 {
    let (q, k) = (arch.q_width() as f64, arch.kv_width() as f64);
    let (v, o) = if arch.mla.is_latent() {
        (arch.v_width() as f64, arch.v_width() as f64)
    } else {
        (k, q)
    };
    // The gated attention's output before the gate and the gate's sigmoid.
    let gate = if arch.gated_attention { 2.0 * q } else { 0.0 };
    norm_inputs(arch) + q + k + v + o + gate + qk_norm_inputs(arch) + latent_term(arch)
}

/// Values per token the query and key norms keep (Qwen3, Gemma 3, OLMo 2,
/// GLM-4.5): their inputs, q and k before the norm, beside the normed q and
/// k the attention saves. Megatron-LM's `SelfAttention` runs `q_layernorm`
/// and `k_layernorm` as norm modules of their own on the projection's
/// outputs (`megatron/core/transformer/attention.py`), and a norm keeps its
/// input for the backward pass: `q + k` more (0 without the norms).
fn qk_norm_inputs(arch: &Architecture) -> f64 {
    match arch.qk_norm {
        QkNorm::None => 0.0,
        QkNorm::PerHead | QkNorm::Full => (arch.q_width() + arch.kv_width()) as f64,
    }
}

/// The chunk of tokens Gated DeltaNet's kernels work in (flash-linear-
/// attention's `chunk_gated_delta_rule`, BT = 64).
const DELTA_RULE_CHUNK: f64 = 64.0;

/// Values per token one Gated DeltaNet layer keeps at the model's precision
/// beside its norms' `4h`, as transformers' `Qwen3NextGatedDeltaNet` runs on
/// a GPU with its fast kernels (not measured: read from the code): the
/// convolution's input q, k, v (`causal_conv1d_fn` keeps it, `2k + v`);
/// `chunk_gated_delta_rule`'s q and k (l2-normalised copies) and v (`2k + v`),
/// β and its chunk-local matrix `A` (`(64 + 1)` a value head; it recomputes
/// the chunks' states in backward rather than keeping them); the gated norm's
/// input and gate `z` and the output projection's input (`3v`). k and v are
/// the key and value widths, heads × head size.
fn linear_values(arch: &Architecture) -> f64 {
    let l = arch.linear;
    let (k, v) = (l.key_width() as f64, l.value_width() as f64);
    // The kernel's q and k are repeated to the value heads first (transformers'
    // `repeat_interleave` by v_heads ÷ k_heads before `chunk_gated_delta_rule`,
    // as Megatron-LM's `gated_delta_net.py`), so it saves them v_heads × k_dim wide.
    let repeated = f64::from(l.v_heads) * f64::from(l.k_dim);
    (2.0 * k + v) + (2.0 * repeated + v) + 3.0 * v + (DELTA_RULE_CHUNK + 1.0) * f64::from(l.v_heads)
}

/// Bytes per token one Gated DeltaNet layer keeps in fp32: the decay's
/// softplus input and output, its chunk-wise cumulative sum and the gated
/// norm's reciprocal RMS (one each a value head), q's and k's l2-norm
/// reciprocals (one each a key head).
fn linear_fp32_bytes(arch: &Architecture) -> f64 {
    let l = arch.linear;
    4.0 * (4.0 * f64::from(l.v_heads) + 2.0 * f64::from(l.k_heads))
}

/// The values per token outside the tensor-parallel region that the layer's
/// norms and first linears keep: the two norms' inputs and the QKV and MLP
/// inputs, `4h`; with Gemma's four norms the post-norms' inputs too (the
/// attention's and the MLP's outputs), `6h`; in Cohere's parallel block one
/// norm's input and its output, which QKV and the MLP both read, `2h`.
fn norm_inputs(arch: &Architecture) -> f64 {
    let norms = if arch.parallel_block {
        2.0
    } else if arch.sandwich_norms {
        6.0
    } else {
        4.0
    };
    norms * f64::from(arch.hidden)
}

/// Latent attention's compressed query and key/value per token, each a
/// norm's input and an up-projection's input, and the rotary key:
/// `2·q_rank + 2·kv_rank + rope` (0 without latent attention).
fn latent_term(arch: &Architecture) -> f64 {
    if arch.mla.is_latent() {
        2.0 * f64::from(arch.mla.q_rank)
            + 2.0 * f64::from(arch.mla.kv_rank)
            + f64::from(arch.mla.rope_dim)
    } else {
        0.0
    }
}

/// `m`, the values per token of the MLP's width `f` that a layer keeps, as
/// Megatron-LM runs it: GELU's input and the second linear's input (2); a
/// SwiGLU's gate and up outputs, which its fused kernel saves as its one
/// input (`megatron/core/fusions/fused_bias_swiglu.py`, on by default:
/// `--no-bias-swiglu-fusion` turns it off), and the second linear's input,
/// their product (3). transformers' unfused MLP keeps a fourth, SiLU(gate)
/// (measured: [`crate::frameworks::hf`]). Routed and shared experts alike.
pub const fn mlp_multiplier(mlp: Mlp) -> u8 {
    match mlp {
        Mlp::Gelu => 2,
        Mlp::SwiGlu => 3,
    }
}

/// Values per token of a dense MLP (`m·f`, [`mlp_multiplier`]) and of a
/// mixture of experts: each token's `top_k` routed copies (× the capacity
/// factor) keep their dispatched input and the expert's `m·f_e`, and every
/// shared expert its `m·f_s`.
fn mlp_terms(arch: &Architecture, capacity: f64) -> (f64, f64) {
    let m = f64::from(mlp_multiplier(arch.mlp));
    let moe = arch.moe;
    let routed =
        f64::from(moe.top_k) * capacity * (f64::from(arch.hidden) + m * f64::from(moe.expert_ffn));
    let shared = f64::from(moe.shared_experts) * m * f64::from(moe.shared_ffn);
    (m * f64::from(arch.ffn), routed + shared)
}

/// Whether the architecture is the one Korthikanti's formula is written for
/// (dense, `hidden`-wide queries, no latent attention): the derivation then
/// shows the paper's terms.
pub const fn is_plain(arch: &Architecture) -> bool {
    !arch.moe.is_moe()
        && !arch.mla.is_latent()
        && !arch.sandwich_norms
        && !arch.parallel_block
        && !arch.gated_attention
        && !arch.linear.is_some()
        && matches!(arch.qk_norm, QkNorm::None)
        && arch.mtp_layers == 0
        && arch.q_width() == arch.hidden as u64
}

/// Bytes a logit keeps for backward: the logits (e) and the loss's fp32
/// log-softmax (4, none when compiled: [`Loss::kept_fp32_bytes`]), and
/// soft-capped logits' tanh output (e more, measured on Gemma 2:
/// `measured/attention-variants.json`).
fn logit_bytes(arch: &Architecture, e: f64, loss: Loss) -> f64 {
    let fp32 = loss.kept_fp32_bytes();
    if arch.logit_softcap {
        2.0 * e + fp32
    } else {
        e + fp32
    }
}

/// What one GPU of pipeline rank `rank` keeps for the backward pass under
/// `layout`, `microbatches` per step (unknown: the pipeline full).
///
/// Korthikanti et al. 2022, Table 2, generalised as [`crate::memory::activations`]
/// does: TP divides what lives inside the tensor-parallel region (Q, K, V, the
/// output projection's input, the MLP, the attention scores), SP divides the
/// rest too (the norms' inputs, the dropout masks, the QKV and MLP inputs);
/// neither divides the routed experts' inputs, gathered over TP (Megatron-LM
/// runs the experts with ETP = TP; [`LayerValues::gathered`]);
/// full recomputation keeps each layer's input (÷ TP with SP) and rebuilds one
/// layer; CP divides the sequence (each rank keeps its s ÷ CP queries' values,
/// and without FlashAttention their scores against all s keys). The rank's
/// layers are held [`Layout::in_flight`] times; the first stage adds the
/// embedding's dropout mask, the last the final norm's and the output head's
/// inputs and the vocabulary-parallel logits (÷ TP).
pub fn stage_activations(
    arch: &Architecture,
    setup: &ActivationSetup,
    layout: &Layout,
    rank: u32,
    microbatches: Option<u32>,
) -> ActivationMemory {
    let tp = f64::from(layout.tp);
    let cp = f64::from(layout.cp);
    let outside = if layout.sp { tp } else { 1.0 };
    let s = f64::from(setup.seq_len) / cp;
    let b = f64::from(setup.micro_batch);
    let h = f64::from(arch.hidden);
    let v = f64::from(arch.vocab);
    let e = setup.bytes_per_value;
    let mask = if setup.dropout { 1.0 } else { 0.0 };
    let scores_counted = setup.scores_counted();
    // With ETP = 1 a GPU's experts take its own tokens' copies (the
    // all-to-all spans the TP ranks), not the TP group's gathered ones.
    let fold = f64::from(layout.expert_fold());
    let layer = |moe: bool, linear: bool| {
        let values = layer_values(arch, setup, moe, linear);
        (values.outside / outside + values.inside / tp + values.gathered / fold) * s * b
    };
    // Each kind of layer (dense or a mixture, full or linear attention), the
    // scores kept by full attention's only.
    let scores = if scores_counted {
        (2.0 * e + mask) * f64::from(arch.heads) * s * f64::from(setup.seq_len) * b / tp
    } else {
        0.0
    };
    let mut kinds = [[0.0; 2]; 2];
    for kind in 0..4 {
        let (moe, linear) = (kind / 2, kind % 2);
        let unscored = if linear == 1 { 0.0 } else { scores };
        kinds[moe][linear] = layer(moe == 1, linear == 1) + unscored;
    }
    let full = setup.recompute == Recompute::Full;
    let kept = rank_layers(arch, setup, layout, rank, &kinds);
    let (here, kept_here, stored) = (kept.kinds, kept.kept, kept.stored);
    // One layer: the largest kind the rank holds (its scores included).
    let widest = (0..4)
        .filter(|k| here[k / 2][k % 2] > 0.0)
        .map(|k| kinds[k / 2][k % 2])
        .fold(0.0, f64::max);
    // One layer's own values, without the scores it rebuilds with.
    let bare = || {
        (0..4)
            .filter(|k| here[k / 2][k % 2] > 0.0)
            .map(|k| layer(k / 2 == 1, k % 2 == 1))
            .fold(0.0, f64::max)
    };
    let input = e * s * b * h / outside;
    let embedding_mask = match rank {
        0 => mask * s * b * h / outside,
        _ => 0.0,
    };
    let (per_layer, layers, rebuilding, embedding_held) = if layout.chunks_may_differ() {
        let held = ChunksHeld {
            chunks: &kept.chunks,
            full,
            input,
            widest,
            embedding_mask,
        };
        held.of(layout, rank, microbatches, bare())
    } else {
        let in_flight = layout.in_flight(rank, microbatches);
        let checkpoints = kept.chunks[0].checkpoints;
        if full {
            // The checkpointed inputs and the stored layers of every microbatch
            // in flight; while a group is rebuilt, its own chunk's stored layers
            // are already freed (the backward pass reaches them first).
            let inputs = f64::from(checkpoints.inputs * layout.vpp);
            let held = (inputs * input + stored) * in_flight;
            let rebuilding =
                held - stored / f64::from(layout.vpp) + f64::from(checkpoints.rebuilt) * widest;
            (bare(), held, Some(rebuilding), in_flight)
        } else {
            (widest, kept_here * in_flight, None, in_flight)
        }
    };
    let mut outside_layers = 0.0;
    if rank == 0 {
        outside_layers += embedding_mask * embedding_held;
    }
    let mut loss_beyond_kept = (Bytes::ZERO, Bytes::ZERO);
    if rank == layout.pp - 1 {
        // The final norm's and the output head's inputs, and the logits.
        let inputs = 2.0 * e * s * b * h / outside;
        let logits = s * b * v / tp;
        loss_beyond_kept = match setup.loss {
            Loss::Chunked => {
                outside_layers += inputs;
                let chunk = logit_bytes(arch, e, Loss::Chunked) * logits / f64::from(Loss::CHUNKS);
                let gathered = 4.0 * s * b * h / outside;
                (Bytes::new(chunk + gathered), Bytes::new(gathered))
            }
            Loss::ChunkedOutput => {
                let softcapped = logit_bytes(arch, e, Loss::ChunkedOutput) - (e + 4.0);
                outside_layers += inputs + (e + softcapped) * logits;
                let chunk = logits / f64::from(Loss::CHUNKS);
                (Bytes::new(4.0 * chunk), Bytes::new((4.0 + e) * chunk))
            }
            loss => {
                outside_layers += inputs + logit_bytes(arch, e, loss) * logits;
                let (at_loss, backward) = loss.beyond_kept(e, layout.tp > 1);
                (Bytes::new(at_loss * logits), Bytes::new(backward * logits))
            }
        };
    }
    if rank == layout.mtp_rank() {
        outside_layers += f64::from(arch.mtp_layers) * mtp_layer_bytes(arch, setup, layout) * s * b;
    }
    ActivationMemory {
        loss_beyond_kept,
        ..ActivationMemory::without_adapters(per_layer, layers, outside_layers, rebuilding)
    }
}

/// One model chunk's bytes per microbatch: every layer's, the stored
/// layers' (block recomputation), and what its checkpoints keep.
struct ChunkKept {
    /// Every layer's bytes.
    kept: f64,
    /// The bytes of the layers block recomputation leaves stored whole.
    stored: f64,
    /// What full recomputation keeps of the chunk.
    checkpoints: ChunkCheckpoints,
}

/// A rank's layers: how many of each kind (dense or a mixture, full or
/// linear attention), their bytes, the stored layers', each chunk's.
struct RankLayers {
    /// Layers by kind, `[moe][linear]`.
    kinds: [[f64; 2]; 2],
    /// Every layer's bytes.
    kept: f64,
    /// The stored layers' bytes.
    stored: f64,
    /// Each model chunk's, in order.
    chunks: Vec<ChunkKept>,
}

/// Rank `rank`'s layers under `layout`, each kind's bytes `kinds`: its
/// chunks, one in every round of virtual stages ([`Layout::chunk_span`]),
/// visited without the other ranks' layers; block recomputation leaves each
/// chunk's layers after its first N stored.
fn rank_layers(
    arch: &Architecture,
    setup: &ActivationSetup,
    layout: &Layout,
    rank: u32,
    kinds: &[[f64; 2]; 2],
) -> RankLayers {
    let dense_layers = arch.dense_layer_count();
    let mut rank_layers = RankLayers {
        kinds: [[0.0; 2]; 2],
        kept: 0.0,
        stored: 0.0,
        chunks: Vec::new(),
    };
    for c in 0..layout.vpp {
        let (first, chunk) = match layout.chunks_may_differ() {
            true => layout.chunk_span(c, rank, arch.layers),
            false => (
                layout.chunk_start(c, rank, arch.layers),
                layout.chunk_layers(rank, arch.layers),
            ),
        };
        let checkpoints = setup.checkpointing.chunk(chunk);
        let mut own = ChunkKept {
            kept: 0.0,
            stored: 0.0,
            checkpoints,
        };
        for i in first..(first + chunk).min(arch.layers) {
            let (moe, linear) = (
                usize::from(i >= dense_layers),
                usize::from(arch.is_linear_layer(i)),
            );
            rank_layers.kinds[moe][linear] += 1.0;
            let kept = kinds[moe][linear];
            rank_layers.kept += kept;
            own.kept += kept;
            if i - first >= chunk - checkpoints.stored {
                rank_layers.stored += kept;
                own.stored += kept;
            }
        }
        rank_layers.chunks.push(own);
    }
    rank_layers
}

/// A rank's chunks where they differ in layers (the embedding or the loss
/// counted in Megatron-LM's split, a pipeline layout), and what one
/// microbatch of each keeps.
struct ChunksHeld<'a> {
    /// Each chunk's bytes.
    chunks: &'a [ChunkKept],
    /// Whether full recomputation keeps the checkpoints' inputs alone.
    full: bool,
    /// A checkpoint's input, bytes.
    input: f64,
    /// The widest layer's bytes, scores included.
    widest: f64,
    /// The embedding's dropout mask on the first rank (0 elsewhere), held
    /// with its first chunk.
    embedding_mask: f64,
}

impl ChunksHeld<'_> {
    /// What each microbatch of chunk `c` keeps: its layers, or under full
    /// recomputation its checkpoints' inputs and stored layers.
    fn own(&self, c: usize) -> f64 {
        let chunk = &self.chunks[c];
        match self.full {
            true => f64::from(chunk.checkpoints.inputs) * self.input + chunk.stored,
            false => chunk.kept,
        }
    }

    /// `(per_layer, layers, rebuilding, embedding_held)`: each chunk's own
    /// bytes as many times as the schedule holds it at its peak
    /// ([`Layout::held_chunks`], the embedding's mask weighing the first);
    /// under full recomputation a chunk being rebuilt has freed its stored
    /// layers and holds its rebuilt group, `bare` bytes a layer otherwise.
    fn of(
        &self,
        layout: &Layout,
        rank: u32,
        microbatches: Option<u32>,
        bare: f64,
    ) -> (f64, f64, Option<f64>, f64) {
        let weight = |c: u32| self.own(c as usize) + if c == 0 { self.embedding_mask } else { 0.0 };
        let counts = layout.held_chunks(rank, microbatches, weight);
        let held: f64 = counts
            .iter()
            .enumerate()
            .map(|(c, &n)| f64::from(n) * self.own(c))
            .sum();
        let embedding_held = f64::from(counts.first().copied().unwrap_or(0));
        match self.full {
            true => {
                let rebuilt = self
                    .chunks
                    .iter()
                    .map(|c| f64::from(c.checkpoints.rebuilt) * self.widest - c.stored)
                    .fold(f64::NEG_INFINITY, f64::max);
                (bare, held, Some(held + rebuilt), embedding_held)
            }
            false => (self.widest, held, None, embedding_held),
        }
    }
}

/// Bytes per token (of the rank's `s/CP`) one multi-token-prediction layer
/// keeps on the last stage (Megatron-LM's `MultiTokenPredictionLayer`):
/// `enorm`'s and `hnorm`'s inputs and `eh_proj`'s (their concatenation,
/// `2h`), a decoder layer like the last with full attention (its scores as
/// counted; under full recomputation its checkpointed input alone), the
/// final norm's and the output head's inputs, and its own logits as the
/// model's.
fn mtp_layer_bytes(arch: &Architecture, setup: &ActivationSetup, layout: &Layout) -> f64 {
    let tp = f64::from(layout.tp);
    let outside = if layout.sp { tp } else { 1.0 };
    let (e, h, v) = (
        setup.bytes_per_value,
        f64::from(arch.hidden),
        f64::from(arch.vocab),
    );
    let moe = arch.layers > arch.dense_layer_count();
    let layer = match setup.recompute {
        Recompute::Full => e * h / outside,
        _ => {
            let values = layer_values(arch, setup, moe, false);
            let mask = if setup.dropout { 1.0 } else { 0.0 };
            let scores = match setup.scores_counted() {
                true => (2.0 * e + mask) * f64::from(arch.heads) * f64::from(setup.seq_len) / tp,
                false => 0.0,
            };
            values.outside / outside
                + values.inside / tp
                + values.gathered / f64::from(layout.expert_fold())
                + scores
        }
    };
    e * 4.0 * h / outside
        + layer
        + 2.0 * e * h / outside
        + logit_bytes(arch, e, setup.loss) * v / tp
}

/// The activation memory of `architecture` trained as `setup`, per GPU.
pub fn activation_memory(architecture: &Architecture, setup: &ActivationSetup) -> ActivationMemory {
    stage_activations(architecture, setup, &Layout::SINGLE, 0, None)
}

#[cfg(test)]
mod tests;
