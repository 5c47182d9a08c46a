//! Optimizers and the memory their states take.

use serde::{Deserialize, Serialize};

use crate::memory::Precision;

/// The optimizer whose states are kept for every parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Optimizer {
    /// Adam or AdamW: first and second moments, in fp32 (8 bytes) but over
    /// pure 16-bit weights (4).
    Adam,
    /// Plain SGD: no state of its own.
    Sgd,
    /// SGD with momentum: one buffer, fp32 (4 bytes) but over pure 16-bit weights.
    SgdMomentum,
    /// 8-bit Adam (Dettmers et al. 2022, bitsandbytes): both moments in 8 bits, 2 bytes
    /// (plus one fp32 scale per block of 2048 values, negligible).
    Adam8bit,
    /// Adafactor (Shazeer and Stern 2018) without momentum: the second moment of a
    /// matrix is factored into a row and a column vector, about 4(1/rows + 1/cols)
    /// bytes per parameter, counted as 0.
    Adafactor,
    /// Lion (Chen et al. 2023): one momentum buffer, as SGD's.
    Lion,
}

impl Optimizer {
    /// Every optimizer, in the order the page lists them.
    pub const ALL: [Optimizer; 6] = [
        Optimizer::Adam,
        Optimizer::Sgd,
        Optimizer::SgdMomentum,
        Optimizer::Adam8bit,
        Optimizer::Adafactor,
        Optimizer::Lion,
    ];

    /// Bytes per parameter of the optimizer's own states (moments) over
    /// weights stored in `storage`, without the fp32 master copy that mixed
    /// precision adds ([`crate::memory::Precision::master_copy_bytes`]).
    ///
    /// Beside a master copy, or over fp32 weights, each buffer is fp32 (Adam's
    /// two 8 bytes). Over 16-bit weights with no master copy
    /// ([`Precision::Bf16Pure`]) a PyTorch optimizer keeps its buffers in the
    /// weights' dtype: `torch.optim.AdamW` creates `exp_avg` and
    /// `exp_avg_sq` as `torch.zeros_like(param)` (`torch/optim/adam.py`,
    /// `_init_group`), SGD's momentum is a clone of the gradient: Adam 4
    /// bytes, one buffer 2. Every framework that runs pure bf16 here
    /// (transformers' Trainer over a bf16 model, torchtune, LitGPT's
    /// `bf16-true`, verl's bf16 actor) steps a `torch.optim` optimizer;
    /// DeepSpeed, Megatron-LM and torchtitan keep a master copy. 8-bit
    /// Adam's moments are 8-bit either way; Adafactor's factored ones are
    /// counted 0.
    pub const fn moment_bytes_per_param(self, storage: Precision) -> f64 {
        let buffer = match storage {
            Precision::Bf16Pure => 2.0,
            _ => 4.0,
        };
        match self {
            Optimizer::Adam => 2.0 * buffer,
            Optimizer::Sgd | Optimizer::Adafactor => 0.0,
            Optimizer::SgdMomentum | Optimizer::Lion => buffer,
            Optimizer::Adam8bit => 2.0,
        }
    }

    /// Bytes of optimizer state per parameter over weights stored in
    /// `storage`: master copy plus moments.
    ///
    /// With the lesson's mixed precision: Adam 4 + 4 + 4 = 12 (fp32 master weights,
    /// momentum, variance), SGD 4. Source: the lesson (Q1), after Rajbhandari et al.
    /// 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
    /// section 3.1 (K = 12).
    pub const fn state_bytes_per_param(self, storage: Precision) -> f64 {
        storage.master_copy_bytes() + self.moment_bytes_per_param(storage)
    }

    /// Where its bytes per parameter come from.
    pub const fn source(self) -> &'static str {
        match self {
            Optimizer::Adam => "Kingma & Ba 2015; ZeRO paper §3.1",
            Optimizer::Sgd => "the lesson",
            Optimizer::SgdMomentum => "PyTorch torch.optim.SGD",
            Optimizer::Adam8bit => "Dettmers et al. 2022",
            Optimizer::Adafactor => "Shazeer & Stern 2018",
            Optimizer::Lion => "Chen et al. 2023",
        }
    }

    /// The value of this optimizer in the shared link's `opt` key.
    pub const fn key(self) -> &'static str {
        match self {
            Optimizer::Adam => "adam",
            Optimizer::Sgd => "sgd",
            Optimizer::SgdMomentum => "sgd-momentum",
            Optimizer::Adam8bit => "adam8bit",
            Optimizer::Adafactor => "adafactor",
            Optimizer::Lion => "lion",
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
            Optimizer::SgdMomentum => "SGD with momentum",
            Optimizer::Adam8bit => "8-bit Adam",
            Optimizer::Adafactor => "Adafactor",
            Optimizer::Lion => "Lion",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::GradientPrecision;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn bytes_per_parameter_of_each_recipe() {
        let total = |p: Precision, o: Optimizer, g: GradientPrecision| {
            p.bytes_per_param() + g.bytes_per_param(p) + o.state_bytes_per_param(p)
        };
        use GradientPrecision::{AsWeights, Fp32};
        assert_eq!(total(Precision::Fp16, Optimizer::Adam, AsWeights), 16.0); // the lesson
        assert_eq!(total(Precision::Bf16, Optimizer::Adam, Fp32), 18.0); // Megatron-LM, DeepSpeed
        assert_eq!(total(Precision::Fp16, Optimizer::Sgd, AsWeights), 8.0); // the lesson's 56 GB / 7 B
        assert_eq!(total(Precision::Fp32, Optimizer::Adam, AsWeights), 20.0); // the lesson's fp32
        assert_eq!(total(Precision::Fp32Pure, Optimizer::Adam, AsWeights), 16.0);
        // torch's AdamW over bf16 weights: bf16 moments (2 + 2 + 2 + 2).
        assert_eq!(total(Precision::Bf16Pure, Optimizer::Adam, AsWeights), 8.0);
        assert_eq!(total(Precision::Bf16Pure, Optimizer::Lion, AsWeights), 6.0);
        assert_eq!(
            total(Precision::Bf16Pure, Optimizer::Adam8bit, AsWeights),
            6.0
        );
        assert_eq!(total(Precision::Bf16, Optimizer::Adam8bit, AsWeights), 10.0);
        assert_eq!(total(Precision::Bf16, Optimizer::Lion, AsWeights), 12.0);
        assert_eq!(
            total(Precision::Bf16, Optimizer::SgdMomentum, AsWeights),
            12.0
        );
        assert_eq!(
            total(Precision::Bf16Pure, Optimizer::Adafactor, AsWeights),
            4.0
        );
    }
}
