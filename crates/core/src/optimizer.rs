//! Optimizers and the memory their states take.

use serde::{Deserialize, Serialize};

/// The optimizer whose states are kept for every parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// Adam or AdamW in mixed precision: an fp32 master copy of the weights,
    /// the first moment (momentum) and the second moment (variance), 4 bytes each.
    Adam,
    /// Plain SGD as the lesson counts it: the fp32 master copy of the weights only.
    Sgd,
}

impl Optimizer {
    /// Every optimizer, in the order the page lists them.
    pub const ALL: [Optimizer; 2] = [Optimizer::Adam, Optimizer::Sgd];

    /// Bytes of optimizer state per parameter.
    ///
    /// Adam: 4 + 4 + 4 = 12 (fp32 master weights, momentum, variance); SGD: 4.
    /// Source: the lesson (Q1), after Rajbhandari et al. 2020, "ZeRO: Memory
    /// Optimizations Toward Training Trillion Parameter Models", section 3.1 (K = 12).
    pub const fn state_bytes_per_param(self) -> f64 {
        match self {
            Optimizer::Adam => 12.0,
            Optimizer::Sgd => 4.0,
        }
    }

    /// The value of this optimizer in the shared link's `opt` key.
    pub const fn key(self) -> &'static str {
        match self {
            Optimizer::Adam => "adam",
            Optimizer::Sgd => "sgd",
        }
    }

    /// The optimizer whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.key() == key)
    }

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            Optimizer::Adam => "Adam / AdamW",
            Optimizer::Sgd => "SGD",
        }
    }
}
