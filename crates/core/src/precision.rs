//! Numeric precision of the weights and gradients.

use serde::{Deserialize, Serialize};

/// The number format that weights and gradients are kept in during training.
///
/// As in the lesson, the optimizer's states are counted separately by
/// [`crate::Optimizer::state_bytes_per_param`], whatever the precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE 754 single precision: 4 bytes.
    Fp32,
    /// IEEE 754 half precision: 2 bytes.
    Fp16,
    /// bfloat16 (8-bit exponent, 7-bit mantissa): 2 bytes.
    Bf16,
}

impl Precision {
    /// Every precision, in the order the page lists them.
    pub const ALL: [Precision; 3] = [Precision::Fp32, Precision::Fp16, Precision::Bf16];

    /// Bytes that one parameter's weight, or one gradient, takes in this format.
    pub const fn bytes_per_param(self) -> f64 {
        match self {
            Precision::Fp32 => 4.0,
            Precision::Fp16 | Precision::Bf16 => 2.0,
        }
    }

    /// The value of this precision in the shared link's `dtype` key.
    pub const fn key(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
        }
    }

    /// The precision whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }

    /// The name people write: `FP32`, `FP16`, `BF16`.
    pub const fn label(self) -> &'static str {
        match self {
            Precision::Fp32 => "FP32",
            Precision::Fp16 => "FP16",
            Precision::Bf16 => "BF16",
        }
    }
}
