//! Data-parallel strategies: DDP and the three stages of DeepSpeed ZeRO.

use serde::{Deserialize, Serialize};

/// How the model states are spread over the N data-parallel GPUs.
///
/// Source: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
/// Trillion Parameter Models", section 5 (P_os, P_os+g, P_os+g+p).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Strategy {
    /// Distributed data parallel: every GPU holds every state in full.
    Ddp,
    /// ZeRO stage 1: optimizer states sharded over the N GPUs.
    Zero1,
    /// ZeRO stage 2: optimizer states and gradients sharded.
    Zero2,
    /// ZeRO stage 3: optimizer states, gradients and weights sharded.
    Zero3,
}

impl Strategy {
    /// Every strategy, from least to most sharding.
    pub const ALL: [Strategy; 4] = [
        Strategy::Ddp,
        Strategy::Zero1,
        Strategy::Zero2,
        Strategy::Zero3,
    ];

    /// Whether each GPU keeps only 1/N of the optimizer states.
    pub const fn shards_optimizer_states(self) -> bool {
        !matches!(self, Strategy::Ddp)
    }

    /// Whether each GPU keeps only 1/N of the gradients.
    pub const fn shards_gradients(self) -> bool {
        matches!(self, Strategy::Zero2 | Strategy::Zero3)
    }

    /// Whether each GPU keeps only 1/N of the weights.
    pub const fn shards_weights(self) -> bool {
        matches!(self, Strategy::Zero3)
    }

    /// The value of this strategy in the shared link's `stage` key: `ddp`, `1`, `2`, `3`.
    pub const fn key(self) -> &'static str {
        match self {
            Strategy::Ddp => "ddp",
            Strategy::Zero1 => "1",
            Strategy::Zero2 => "2",
            Strategy::Zero3 => "3",
        }
    }

    /// The strategy whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }

    /// A short identifier for markup and file names: `ddp`, `zero1`, `zero2`, `zero3`.
    pub const fn id(self) -> &'static str {
        match self {
            Strategy::Ddp => "ddp",
            Strategy::Zero1 => "zero1",
            Strategy::Zero2 => "zero2",
            Strategy::Zero3 => "zero3",
        }
    }

    /// The name people write: `DDP`, `ZeRO-1`, `ZeRO-2`, `ZeRO-3`.
    pub const fn label(self) -> &'static str {
        match self {
            Strategy::Ddp => "DDP",
            Strategy::Zero1 => "ZeRO-1",
            Strategy::Zero2 => "ZeRO-2",
            Strategy::Zero3 => "ZeRO-3",
        }
    }
}
