//! Numeric precision of training: the format of weights and gradients, and
//! whether an fp32 master copy of the weights is kept.

use serde::{Deserialize, Serialize};

/// How weights (and, by default, gradients) are stored during training.
///
/// The lesson's modes keep an fp32 master copy of the weights, which it counts
/// among the optimizer states (4 of Adam's 12 bytes), even for FP32 training.
/// The two `…Pure` modes keep none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Precision {
    /// FP32 weights and gradients (4 bytes), counted as the lesson does: with an
    /// fp32 master copy (4 + 4 + 12 = 20 bytes per parameter with Adam).
    Fp32,
    /// Mixed precision: FP16 weights and gradients (2 bytes), fp32 master copy.
    Fp16,
    /// Mixed precision: BF16 weights and gradients (2 bytes), fp32 master copy.
    Bf16,
    /// Pure FP32 training: weights are their own master copy (4 + 4 + 8 = 16 with Adam).
    Fp32Pure,
    /// Pure BF16 training without a master copy: BF16 weights and gradients,
    /// and a PyTorch optimizer's moments in BF16 too (2 + 2 + 4 = 8 with
    /// Adam: [`crate::memory::Optimizer::moment_bytes_per_param`]).
    Bf16Pure,
    /// FP8 training as Megatron-LM runs it with Transformer Engine
    /// (`--fp8-format hybrid`): BF16 weights and gradients with an fp32
    /// master copy, the layers' linear GEMMs in FP8. Each linear weight keeps
    /// its FP8 copy across a step's microbatches, row-wise and column-wise
    /// ([`Precision::fp8_copy_bytes`]), and each linear's input is saved for
    /// the backward pass in FP8 (TE's `module/linear.py`).
    Fp8,
    /// FP8 with FP8 weights, as Megatron-LM's `--fp8-param-gather` keeps
    /// them ("keep the compute param in fp8 ... and perform the param
    /// all-gather in fp8", `megatron/training/arguments.py`): each linear
    /// weight is a TE FP8 tensor, its one-byte data and its one-byte
    /// transpose for the data gradient, in place of the BF16 weight and its
    /// copies; shards and gathers of the linears move one byte. The rest as
    /// [`Precision::Fp8`].
    Fp8Params,
}

impl Precision {
    /// Every precision, in the order the page lists them.
    pub const ALL: [Precision; 7] = [
        Precision::Fp32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp32Pure,
        Precision::Bf16Pure,
        Precision::Fp8,
        Precision::Fp8Params,
    ];

    /// Whether the layers' GEMMs run in FP8 (Transformer Engine's recipes).
    pub const fn is_fp8(self) -> bool {
        matches!(self, Precision::Fp8 | Precision::Fp8Params)
    }

    /// Whether this is a mixed precision (16-bit compute beside fp32 state),
    /// the only precisions autocast applies to.
    pub const fn is_mixed(self) -> bool {
        matches!(self, Precision::Fp16 | Precision::Bf16)
    }

    /// Bytes of one weight (and one gradient, unless accumulated in fp32).
    pub const fn bytes_per_param(self) -> f64 {
        match self {
            Precision::Fp32 | Precision::Fp32Pure => 4.0,
            Precision::Fp16
            | Precision::Bf16
            | Precision::Bf16Pure
            | Precision::Fp8
            | Precision::Fp8Params => 2.0,
        }
    }

    /// Bytes per linear weight of its cached FP8 copies: TE quantises each
    /// weight once a step (Megatron-LM passes `is_first_microbatch`) and keeps
    /// it row-wise for the forward and column-wise for the data gradient, one
    /// byte each (`module/linear.py`, Transformer Engine 2.x); 0 but in FP8.
    /// With FP8 weights none: the weight is its own row-wise copy and its
    /// one-byte transpose takes the place of the BF16 weight's second byte.
    pub const fn fp8_copy_bytes(self) -> f64 {
        match self {
            Precision::Fp8 => 2.0,
            _ => 0.0,
        }
    }

    /// Bytes per linear weight a shard or a gather saves on the 16-bit
    /// weight: 1 with FP8 weights (one byte, not two), 0 otherwise.
    pub const fn fp8_weight_saving(self) -> f64 {
        match self {
            Precision::Fp8Params => 1.0,
            _ => 0.0,
        }
    }

    /// Bytes per parameter of the fp32 master copy of the weights, kept with the
    /// optimizer states: 4 in the lesson's modes, 0 in the pure ones.
    pub const fn master_copy_bytes(self) -> f64 {
        match self {
            Precision::Fp32
            | Precision::Fp16
            | Precision::Bf16
            | Precision::Fp8
            | Precision::Fp8Params => 4.0,
            Precision::Fp32Pure | Precision::Bf16Pure => 0.0,
        }
    }

    /// The value of this precision in the shared link's `dtype` key.
    pub const fn key(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp32Pure => "fp32-pure",
            Precision::Bf16Pure => "bf16-pure",
            Precision::Fp8 => "fp8",
            Precision::Fp8Params => "fp8-params",
        }
    }

    /// The precision whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            Precision::Fp32 => "FP32",
            Precision::Fp16 => "FP16 (mixed)",
            Precision::Bf16 => "BF16 (mixed)",
            Precision::Fp32Pure => "FP32, no master copy",
            Precision::Bf16Pure => "BF16, no master copy",
            Precision::Fp8 => "FP8 (Transformer Engine)",
            Precision::Fp8Params => "FP8 weights (--fp8-param-gather)",
        }
    }
}

/// The format gradients are accumulated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum GradientPrecision {
    /// As the weights: the lesson and the ZeRO paper.
    #[default]
    AsWeights,
    /// fp32, as Megatron-LM and DeepSpeed keep them: 2 + 4 + 12 = 18 bytes per
    /// parameter for mixed-precision Adam.
    Fp32,
}

impl GradientPrecision {
    /// Every choice, in the order the page lists them.
    pub const ALL: [GradientPrecision; 2] = [GradientPrecision::AsWeights, GradientPrecision::Fp32];

    /// Bytes of one gradient when the weights are in `precision`.
    pub const fn bytes_per_param(self, precision: Precision) -> f64 {
        match self {
            GradientPrecision::AsWeights => precision.bytes_per_param(),
            GradientPrecision::Fp32 => 4.0,
        }
    }

    /// The value in the shared link's `grad_acc` key.
    pub const fn key(self) -> &'static str {
        match self {
            GradientPrecision::AsWeights => "model",
            GradientPrecision::Fp32 => "fp32",
        }
    }

    /// The choice whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.key() == key)
    }

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            GradientPrecision::AsWeights => "as the weights",
            GradientPrecision::Fp32 => "fp32",
        }
    }
}

/// How FP8 scales its tensors: Transformer Engine's recipes as Megatron-LM
/// names them (`--fp8-recipe`, `megatron/core/transformer/transformer_config.py`,
/// default `delayed`; TE 2.x `common/recipe/__init__.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Fp8Recipe {
    /// `DelayedScaling`: one scale a tensor from the amax history of earlier
    /// steps; each value one byte (`Float8Tensor`).
    #[default]
    Delayed,
    /// `Float8CurrentScaling`: one scale a tensor from its own amax, taken
    /// in a pass over the tensor before the cast; each value one byte.
    Tensorwise,
    /// `MXFP8BlockScaling` (Blackwell only): a one-byte E8M0 scale for every
    /// 32 values along the reduction, so each weight keeps a row-wise and a
    /// column-wise copy on every GPU (`MXFP8Tensor`).
    Mxfp8,
    /// `Float8BlockScaling` (DeepSeek-V3's): an fp32 scale for every 1 × 128
    /// values of an input and every 128 × 128 of a weight
    /// (`Float8BlockwiseQTensor`), row-wise and column-wise copies.
    Blockwise,
}

impl Fp8Recipe {
    /// Every recipe, in the order the page lists them.
    pub const ALL: [Fp8Recipe; 4] = [
        Fp8Recipe::Delayed,
        Fp8Recipe::Tensorwise,
        Fp8Recipe::Mxfp8,
        Fp8Recipe::Blockwise,
    ];

    /// Megatron-LM's name, the value in the shared link's `fp8_recipe`.
    pub const fn key(self) -> &'static str {
        match self {
            Fp8Recipe::Delayed => "delayed",
            Fp8Recipe::Tensorwise => "tensorwise",
            Fp8Recipe::Mxfp8 => "mxfp8",
            Fp8Recipe::Blockwise => "blockwise",
        }
    }

    /// Bytes of scales per FP8 value of a saved activation (a linear's input,
    /// kept column-wise for the weight gradient): none per tensor, 1/32
    /// (MXFP8's E8M0 per 32), 4/128 (an fp32 per 1 × 128 block).
    pub const fn activation_scale_bytes(self) -> f64 {
        match self {
            Fp8Recipe::Delayed | Fp8Recipe::Tensorwise => 0.0,
            Fp8Recipe::Mxfp8 => 1.0 / 32.0,
            Fp8Recipe::Blockwise => 4.0 / 128.0,
        }
    }

    /// Bytes per linear weight of its FP8 copies, cached across a step's
    /// microbatches: a per-tensor recipe's row-wise byte and, where the
    /// GPU's FP8 GEMMs read one layout (Hopper, Ada: `transpose`), its
    /// column-wise byte; a block-scaled recipe's two copies on any GPU, each
    /// with its scales (MXFP8 1/32 B a value, blockwise an fp32 per 128 × 128).
    pub const fn weight_copy_bytes(self, transpose: bool) -> f64 {
        match self {
            Fp8Recipe::Delayed | Fp8Recipe::Tensorwise => {
                if transpose {
                    2.0
                } else {
                    1.0
                }
            }
            Fp8Recipe::Mxfp8 => 2.0 * (1.0 + 1.0 / 32.0),
            Fp8Recipe::Blockwise => 2.0 * (1.0 + 4.0 / (128.0 * 128.0)),
        }
    }

    /// Whether the recipe takes each tensor's amax in a pass of its own
    /// before casting it (current per-tensor scaling): the casts read each
    /// input twice. Block scales are taken in the cast's own kernel.
    pub const fn extra_amax_pass(self) -> bool {
        matches!(self, Fp8Recipe::Tensorwise)
    }
}
