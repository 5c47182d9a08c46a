//! Per-GPU memory of the model states (weights, gradients, optimizer states)
//! under each strategy, and its inverse: the largest model a budget can train.
//!
//! Source: the lesson's formulas, which are those of Rajbhandari et al. 2020,
//! "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
//! section 5.1 and figure 1: with Ψ parameters, N GPUs, weights and gradients of
//! `p` bytes each and `K` bytes of optimizer state per parameter, each GPU holds
//!
//! | strategy | bytes per GPU              |
//! |----------|----------------------------|
//! | DDP      | (p + p + K) Ψ              |
//! | ZeRO-1   | (p + p + K/N) Ψ            |
//! | ZeRO-2   | (p + (p + K)/N) Ψ          |
//! | ZeRO-3   | (p + p + K) Ψ / N          |
//!
//! Activations, temporary buffers and fragmentation are not model states; the
//! lesson leaves room for them with a reserved fraction of each GPU's memory.

use serde::{Deserialize, Serialize};

use crate::memory::finetune::Adapters;
use crate::memory::{GradientPrecision, Refused};
use crate::memory::{Optimizer, Precision, Strategy};
use vram_shared::units::{Bytes, ParamCount};

/// Bytes per parameter of each model state on one GPU, after sharding.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BytesPerParam {
    /// Weights: `p`, or `p / N` under ZeRO-3.
    pub weights: f64,
    /// Gradients: `p`, or `p / N` under ZeRO-2 and ZeRO-3.
    pub gradients: f64,
    /// Optimizer states: `K`, or `K / N` under every ZeRO stage.
    pub optimizer_states: f64,
}

impl BytesPerParam {
    /// Bytes per parameter of one strategy, for weights of `precision`, gradients
    /// of `gradients`, the states of `optimizer`, sharded over `gpus` GPUs.
    ///
    /// In FP8 the weights add their cached FP8 copies
    /// ([`Precision::fp8_copy_bytes`]), here for every parameter (a bare count
    /// is taken for linears'; [`TrainingSetup::with_linear_share`] narrows it
    /// to a model's), but under ZeRO-3, which gathers a layer, quantises it
    /// and frees it again: nothing stays.
    pub fn of(strategy: Strategy, recipe: Recipe, gpus: u32) -> Self {
        let n = f64::from(gpus.max(1));
        let shard = |sharded: bool, bytes: f64| if sharded { bytes / n } else { bytes };
        BytesPerParam {
            weights: shard(
                strategy.shards_weights(),
                recipe.storage().bytes_per_param(),
            ) + Self::fp8_copies(strategy, recipe, gpus),
            gradients: shard(
                strategy.shards_gradients(),
                recipe.gradients.bytes_per_param(recipe.storage()),
            ),
            optimizer_states: shard(
                strategy.shards_optimizer_states(),
                recipe.optimizer.state_bytes_per_param(recipe.storage()),
            ),
        }
    }

    /// Bytes per linear parameter FP8 adds to the 16-bit weight under
    /// `strategy` on `gpus` sharding GPUs: its cached copies (none under
    /// ZeRO-3, which quantises a gathered layer and frees it), less what FP8
    /// weights save on a ZeRO-3 shard (one byte of two, ÷ N). 0 but in FP8.
    pub fn fp8_copies(strategy: Strategy, recipe: Recipe, gpus: u32) -> f64 {
        match strategy.shards_weights() {
            true => -recipe.precision.fp8_weight_saving() / f64::from(gpus.max(1)),
            false => recipe.fp8_copy_bytes(),
        }
    }

    /// Bytes per parameter of all model states together (the lesson's 16 for
    /// mixed-precision Adam under DDP).
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer_states
    }
}

/// How the model is trained, numerically: precision, gradient format, optimizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Recipe {
    /// Weights' format and master copy.
    pub precision: Precision,
    /// Gradients' format.
    pub gradients: GradientPrecision,
    /// The optimizer.
    pub optimizer: Optimizer,
    /// Whether a mixed precision runs under autocast (`torch.autocast`, what
    /// `Trainer(bf16=True)` does): fp32 weights and gradients, the optimizer's
    /// moments without a master copy, 16-bit compute.
    pub autocast: bool,
    /// Whether FP8 keeps each linear weight's transpose for the data
    /// gradient: on Hopper and Ada, whose FP8 GEMMs read one layout, TE's
    /// per-tensor recipes keep a column-wise copy; Blackwell's (sm100+) read
    /// either, and TE keeps none (`Float8Tensor`'s transpose cache, issue 48,
    /// error 7). Off: FP8 caches one byte a linear weight, not two, and FP8
    /// weights are one byte.
    pub fp8_transpose: bool,
    /// How FP8 scales its tensors (ignored outside FP8).
    #[serde(default)]
    pub fp8_recipe: crate::memory::Fp8Recipe,
}

impl Recipe {
    /// Bytes per linear weight FP8 adds to its 16-bit storage across a step:
    /// [`Precision::fp8_copy_bytes`] where a transpose is kept, a byte less
    /// where none is (FP8 weights: their transpose's byte saved).
    pub fn fp8_copy_bytes(&self) -> f64 {
        match self.precision {
            Precision::Fp8 => self.fp8_weight_copy_bytes(),
            Precision::Fp8Params if !self.fp8_transpose => -1.0,
            _ => 0.0,
        }
    }

    /// Bytes per linear weight of its FP8 copies under this recipe
    /// ([`crate::memory::Fp8Recipe::weight_copy_bytes`]); 0 but in FP8.
    pub fn fp8_weight_copy_bytes(&self) -> f64 {
        match self.precision.is_fp8() {
            true => self.fp8_recipe.weight_copy_bytes(self.fp8_transpose),
            false => 0.0,
        }
    }

    /// The lesson's recipe with `precision` and `optimizer`: gradients as the weights.
    pub const fn lesson(precision: Precision, optimizer: Optimizer) -> Self {
        Recipe {
            precision,
            gradients: GradientPrecision::AsWeights,
            optimizer,
            autocast: false,
            fp8_transpose: true,
            fp8_recipe: crate::memory::Fp8Recipe::Delayed,
        }
    }

    /// The format the states are stored in: the precision's, or under
    /// autocast fp32 weights that are their own master copy (4 + 4 + 8 bytes
    /// with Adam: the lesson's 16, split so ZeRO shards 8 or 12 of them, not
    /// 12 or 14).
    pub const fn storage(&self) -> Precision {
        if self.autocast && self.precision.is_mixed() {
            Precision::Fp32Pure
        } else {
            self.precision
        }
    }
}

/// A model to train and how: the inputs of the per-GPU memory formulas.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainingSetup {
    pub(crate) params: ParamCount,
    pub(crate) recipe: Recipe,
    pub(crate) gpus: u32,
    /// LoRA's adapters on a frozen base; `None` when every parameter is trained.
    pub(crate) adapters: Option<Adapters>,
    /// GPUs per sharding group (PyTorch's HSDP, DeepSpeed's MiCS, Megatron-FSDP):
    /// ZeRO shards the states within each group and replicates them across
    /// groups; `None` shards over all the data-parallel GPUs.
    #[serde(default)]
    pub(crate) shard_group: Option<u32>,
    /// The share of the parameters in linear layers (what FP8 keeps copies
    /// of): a model's transformer layers, not its embeddings, final norm and
    /// output head, which Megatron-LM runs outside Transformer Engine; 1 for
    /// a bare parameter count.
    #[serde(default = "every_parameter")]
    pub(crate) linear_share: f64,
}

/// [`TrainingSetup::linear_share`] of a bare parameter count.
const fn every_parameter() -> f64 {
    1.0
}

impl TrainingSetup {
    /// A setup of `params` parameters trained in `precision` with `optimizer`
    /// on `gpus` data-parallel GPUs.
    ///
    /// Errors: a parameter count that is not positive and finite, no GPU.
    pub fn new(
        params: ParamCount,
        precision: Precision,
        optimizer: Optimizer,
        gpus: u32,
    ) -> Result<Self, Refused> {
        Self::with_recipe(params, Recipe::lesson(precision, optimizer), gpus)
    }

    /// A setup of `params` parameters trained with `recipe` on `gpus` GPUs.
    pub fn with_recipe(params: ParamCount, recipe: Recipe, gpus: u32) -> Result<Self, Refused> {
        let billions = params.billions();
        if !(billions.is_finite() && billions > 0.0) {
            return Err(Refused::Params { billions });
        }
        if gpus == 0 {
            return Err(Refused::Gpus);
        }
        Ok(TrainingSetup {
            params,
            recipe,
            gpus,
            adapters: None,
            shard_group: None,
            linear_share: every_parameter(),
        })
    }

    /// This setup with `share` of its parameters in linear layers (a model's
    /// transformer layers' share of its count).
    pub fn with_linear_share(self, share: f64) -> Self {
        TrainingSetup {
            linear_share: share.clamp(0.0, 1.0),
            ..self
        }
    }

    /// This setup with only `adapters` trained on a frozen base: the parameters
    /// become the base's and the adapters' (PEFT's "all params").
    pub fn with_adapters(self, adapters: Adapters) -> Self {
        TrainingSetup {
            params: ParamCount::new((adapters.frozen + adapters.trainable) as f64),
            adapters: Some(adapters),
            ..self
        }
    }

    /// The adapters, when only they are trained.
    pub fn adapters(&self) -> Option<Adapters> {
        self.adapters
    }

    /// The number of parameters.
    pub fn params(&self) -> ParamCount {
        self.params
    }

    /// The precision chosen: what activations are computed in.
    pub fn precision(&self) -> Precision {
        self.recipe.precision
    }

    /// Bytes of one gradient value: the weights' format, or fp32 when accumulated in it.
    pub fn gradient_bytes_per_param(&self) -> f64 {
        self.recipe.gradients.bytes_per_param(self.recipe.storage())
    }

    /// The optimizer.
    pub fn optimizer(&self) -> Optimizer {
        self.recipe.optimizer
    }

    /// Precision, gradients' format and optimizer together.
    pub fn recipe(&self) -> Recipe {
        self.recipe
    }

    /// Bytes per parameter of a weight as ZeRO gathers it: the 16-bit
    /// weight's, one byte less on the linears' share with FP8 weights.
    pub fn gathered_weight_bytes(&self) -> f64 {
        let precision = self.recipe.storage();
        precision.bytes_per_param() - precision.fp8_weight_saving() * self.linear_share
    }

    /// Number of data-parallel GPUs.
    pub fn gpus(&self) -> u32 {
        self.gpus
    }

    /// This setup with ZeRO sharding within groups of `gpus` GPUs.
    pub fn with_shard_group(self, gpus: Option<u32>) -> Self {
        TrainingSetup {
            shard_group: gpus,
            ..self
        }
    }

    /// The GPUs each state is sharded over on `n` data-parallel GPUs: all of
    /// them, or within a sharding group the largest size dividing both
    /// (the group itself wherever `n` is a multiple of it).
    pub fn shard_of(&self, n: u32) -> u32 {
        match self.shard_group {
            None => n,
            Some(g) => {
                let (mut a, mut b) = (n.max(1), g.max(1));
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                a
            }
        }
    }

    /// The GPUs each state is sharded over: [`Self::shard_of`] the setup's GPUs.
    pub fn shard_gpus(&self) -> u32 {
        self.shard_of(self.gpus)
    }

    /// Bytes per parameter on each GPU under `strategy`.
    ///
    /// With adapters, per parameter of the whole (base and adapters): the frozen
    /// base's bytes are weights (sharded by ZeRO-3 only), and the recipe's
    /// bytes apply to the adapters' share `t` of the parameters alone:
    /// weights `(frozen + t·p)`, gradients `t·p`, optimizer states `t·K`, each
    /// divided by N where the strategy shards it.
    pub fn bytes_per_param(&self, strategy: Strategy) -> BytesPerParam {
        let mut full = BytesPerParam::of(strategy, self.recipe, self.shard_gpus());
        // FP8's copies of the linears' weights only.
        full.weights -= BytesPerParam::fp8_copies(strategy, self.recipe, self.shard_gpus())
            * (1.0 - self.linear_share);
        let Some(adapters) = self.adapters else {
            return full;
        };
        let all = self.params.get().max(1.0);
        let trained = adapters.trainable as f64 / all;
        let frozen = adapters.frozen_bytes as f64 / all;
        let n = f64::from(self.shard_gpus().max(1));
        let frozen = if strategy.shards_weights() {
            frozen / n
        } else {
            frozen
        };
        BytesPerParam {
            weights: frozen + trained * full.weights,
            gradients: trained * full.gradients,
            optimizer_states: trained * full.optimizer_states,
        }
    }

    /// Memory of the model states on each GPU under `strategy`.
    pub fn per_gpu_memory(&self, strategy: Strategy) -> MemoryBreakdown {
        let per_param = self.bytes_per_param(strategy);
        MemoryBreakdown {
            weights: self.params * per_param.weights,
            gradients: self.params * per_param.gradients,
            optimizer_states: self.params * per_param.optimizer_states,
            activations: Bytes::ZERO,
            buffers: Bytes::ZERO,
            total: self.params * per_param.total(),
        }
    }
}

/// Memory of the model states on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryBreakdown {
    /// The model's weights (or this GPU's shard of them).
    pub weights: Bytes,
    /// The gradients (or this GPU's shard).
    pub gradients: Bytes,
    /// The optimizer states (or this GPU's shard).
    pub optimizer_states: Bytes,
    /// Activations, when the architecture is known (never sharded).
    pub activations: Bytes,
    /// Communication buffers and ZeRO-3's gathered largest layer, when counted.
    pub buffers: Bytes,
    /// Everything above: Ψ × total bytes per parameter, plus activations and buffers.
    pub total: Bytes,
}

/// How much of each GPU's memory the model states may use.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryBudget {
    pub(crate) gpu_memory: Bytes,
    pub(crate) reserved_fraction: f64,
    /// A fixed reserve per GPU (the CUDA context, the allocator's cache), 0 in the lesson.
    #[serde(default)]
    pub(crate) context: Bytes,
}

impl MemoryBudget {
    /// A GPU of `gpu_memory` of which `reserved_fraction` (0 to 0.95) is held back
    /// for activations, buffers and the framework.
    pub fn new(gpu_memory: Bytes, reserved_fraction: f64) -> Result<Self, Refused> {
        let gb = gpu_memory.gb();
        if !(gb.is_finite() && gb > 0.0) {
            return Err(Refused::GpuMemory { gb });
        }
        if !(0.0..1.0).contains(&reserved_fraction) {
            return Err(Refused::Reserved {
                fraction: reserved_fraction,
            });
        }
        Ok(MemoryBudget {
            gpu_memory,
            reserved_fraction,
            context: Bytes::ZERO,
        })
    }

    /// This budget with `context` bytes more held back on each GPU (the CUDA
    /// context and the allocator's reserve, named apart from the reserved
    /// fraction); [`Refused::Context`] if nothing would be left.
    pub fn with_context(self, context: Bytes) -> Result<Self, Refused> {
        let room = self.gpu_memory * (1.0 - self.reserved_fraction);
        if context.get() >= room.get() {
            return Err(Refused::Context { room });
        }
        Ok(MemoryBudget { context, ..self })
    }

    /// The fixed reserve per GPU.
    pub fn context(&self) -> Bytes {
        self.context
    }

    /// The GPU's whole memory.
    pub fn gpu_memory(&self) -> Bytes {
        self.gpu_memory
    }

    /// The fraction held back.
    pub fn reserved_fraction(&self) -> f64 {
        self.reserved_fraction
    }

    /// Memory left for model states: memory × (1 − reserved fraction) − context.
    pub fn usable(&self) -> Bytes {
        Bytes::new((self.gpu_memory * (1.0 - self.reserved_fraction)).get() - self.context.get())
    }

    /// Whether model states of `bytes` per GPU fit in the usable memory.
    pub fn fits(&self, bytes: Bytes) -> bool {
        bytes <= self.usable()
    }
}

/// The largest model whose states fit in `budget` on each GPU: usable memory ÷
/// bytes per parameter (the lesson's `max_trainable_params`).
pub fn max_trainable_params(
    budget: &MemoryBudget,
    strategy: Strategy,
    recipe: Recipe,
    gpus: u32,
) -> ParamCount {
    let per_param = BytesPerParam::of(strategy, recipe, gpus);
    ParamCount::new(budget.usable().get() / per_param.total())
}

#[cfg(test)]
mod tests {
    //! The lesson's checks, named after them. GB = 10^9 bytes; the tolerance is
    //! the lesson's own (1e-9 GB), though most results are exact in f64.
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    const TOLERANCE_GB: f64 = 1e-9;

    /// `billions` of parameters trained in `precision` with `optimizer` on
    /// `gpus` GPUs.
    fn training(
        billions: f64,
        precision: Precision,
        optimizer: Optimizer,
        gpus: u32,
    ) -> TrainingSetup {
        TrainingSetup::new(
            ParamCount::from_billions(billions),
            precision,
            optimizer,
            gpus,
        )
        .unwrap()
    }

    fn seven_b(optimizer: Optimizer) -> TrainingSetup {
        training(7.0, Precision::Fp16, optimizer, 8)
    }

    fn assert_gb(actual: Bytes, expected_gb: f64) {
        assert!(
            (actual.gb() - expected_gb).abs() < TOLERANCE_GB,
            "expected {expected_gb} GB, got {} GB",
            actual.gb()
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn ddp_7b_fp16_adam_is_112_gb() {
        let memory = seven_b(Optimizer::Adam).per_gpu_memory(Strategy::Ddp);
        assert_gb(memory.total, 112.0);
        assert_gb(memory.weights, 14.0);
        assert_gb(memory.gradients, 14.0);
        assert_gb(memory.optimizer_states, 84.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn ddp_7b_fp16_sgd_is_56_gb() {
        assert_gb(
            seven_b(Optimizer::Sgd).per_gpu_memory(Strategy::Ddp).total,
            56.0,
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn zero1_7b_on_8_gpus_is_38_5_gb() {
        let memory = seven_b(Optimizer::Adam).per_gpu_memory(Strategy::Zero1);
        assert_gb(memory.total, 38.5);
        assert_gb(memory.optimizer_states, 10.5);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn zero2_7b_on_8_gpus_is_26_25_gb() {
        let memory = seven_b(Optimizer::Adam).per_gpu_memory(Strategy::Zero2);
        assert_gb(memory.total, 26.25);
        assert_gb(memory.gradients, 1.75);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn zero3_7b_on_8_gpus_is_14_gb() {
        let memory = seven_b(Optimizer::Adam).per_gpu_memory(Strategy::Zero3);
        assert_gb(memory.total, 14.0);
        assert_gb(memory.weights, 1.75);
    }

    fn lesson_budget() -> MemoryBudget {
        MemoryBudget::new(Bytes::from_gb(80.0), 0.2).unwrap()
    }

    /// The lesson's largest trainable model under `strategy`, in billions:
    /// 8 × 80 GB, 20 % reserved, fp16 mixed precision with Adam.
    fn lesson_max(strategy: Strategy) -> f64 {
        max_trainable_params(
            &lesson_budget(),
            strategy,
            Recipe::lesson(Precision::Fp16, Optimizer::Adam),
            8,
        )
        .billions()
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn max_trainable_ddp_on_8x80gb_20pct_reserved_is_4b() {
        let max = lesson_max(Strategy::Ddp);
        assert!((max - 4.0).abs() < 1e-9, "{max}");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn max_trainable_zero3_on_8x80gb_20pct_reserved_is_32b() {
        let max = lesson_max(Strategy::Zero3);
        assert!((max - 32.0).abs() < 1e-9, "{max}");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn strategy_table_of_the_lesson_part_3() {
        // 64 GB usable / (4 + 12/8), / (2 + 14/8): 11.636… B and 17.066… B.
        assert!((lesson_max(Strategy::Zero1) - 64.0 / 5.5).abs() < 1e-9);
        assert!((lesson_max(Strategy::Zero2) - 64.0 / 3.75).abs() < 1e-9);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn fp32_weights_take_four_bytes() {
        let setup = training(1.0, Precision::Fp32, Optimizer::Adam, 4);
        assert_gb(setup.per_gpu_memory(Strategy::Ddp).total, 20.0);
        assert_gb(setup.per_gpu_memory(Strategy::Zero3).total, 5.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn one_gpu_shards_nothing() {
        let setup = training(7.0, Precision::Bf16, Optimizer::Adam, 1);
        for strategy in Strategy::ALL {
            assert_gb(setup.per_gpu_memory(strategy).total, 112.0);
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn fits_compares_with_usable_memory() {
        let budget = lesson_budget();
        assert_gb(budget.usable(), 64.0);
        assert!(budget.fits(Bytes::from_gb(64.0)));
        assert!(!budget.fits(Bytes::from_gb(64.000_001)));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn constructors_reject_values_outside_limits() {
        use crate::input::{Field, InputError};
        let field = |e: Refused| InputError::from(e).field;
        let err = TrainingSetup::new(ParamCount::new(0.0), Precision::Fp16, Optimizer::Adam, 8)
            .map_err(field)
            .unwrap_err();
        assert_eq!(err, Field::Params);
        let err = TrainingSetup::new(
            ParamCount::from_billions(7.0),
            Precision::Fp16,
            Optimizer::Adam,
            0,
        )
        .map_err(field)
        .unwrap_err();
        assert_eq!(err, Field::Gpus);
        let err = MemoryBudget::new(Bytes::from_gb(f64::NAN), 0.2).map_err(field);
        assert_eq!(err, Err(Field::GpuMemory));
        let err = MemoryBudget::new(Bytes::from_gb(80.0), 1.0).map_err(field);
        assert_eq!(err, Err(Field::Overhead));
    }
}

/// The largest trainable model of every strategy (in [`Strategy::ALL`]'s order)
/// for each GPU count in `gpu_counts`: the data of a scaling chart.
///
/// ZeRO-1 and ZeRO-2 level off as N grows (toward usable ÷ (2p) and usable ÷ p);
/// ZeRO-3 grows in proportion to N.
pub fn max_trainable_sweep(
    budget: &MemoryBudget,
    recipe: Recipe,
    gpu_counts: impl IntoIterator<Item = u32>,
) -> Vec<(u32, [ParamCount; 4])> {
    gpu_counts
        .into_iter()
        .map(|gpus| {
            let per_strategy =
                Strategy::ALL.map(|strategy| max_trainable_params(budget, strategy, recipe, gpus));
            (gpus, per_strategy)
        })
        .collect()
}

#[cfg(test)]
mod sweep_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn zero1_and_zero2_level_off_while_zero3_grows_with_the_cluster() {
        let budget = MemoryBudget::new(Bytes::from_gb(80.0), 0.2).unwrap();
        let sweep = max_trainable_sweep(
            &budget,
            Recipe::lesson(Precision::Fp16, Optimizer::Adam),
            1..=1024,
        );
        assert_eq!(sweep.len(), 1024);
        let at = |gpus: u32, strategy: Strategy| {
            sweep[gpus as usize - 1].1[strategy as usize].billions()
        };
        // One GPU: every strategy is DDP, 64 GB / 16 B = 4 B.
        for strategy in Strategy::ALL {
            assert!((at(1, strategy) - 4.0).abs() < 1e-9);
        }
        // DDP never grows; ZeRO-1 tends to 64 / 4 = 16 B, ZeRO-2 to 64 / 2 = 32 B; ZeRO-3 = 4 N B.
        assert!((at(1024, Strategy::Ddp) - 4.0).abs() < 1e-9);
        assert!(at(1024, Strategy::Zero1) < 16.0 && at(1024, Strategy::Zero1) > 15.9);
        // 64 / (2 + 14 / 1024) = 31.78 B.
        assert!((at(1024, Strategy::Zero2) - 64.0 / (2.0 + 14.0 / 1024.0)).abs() < 1e-9);
        assert!(at(1024, Strategy::Zero2) < 32.0);
        assert!((at(1024, Strategy::Zero3) - 4096.0).abs() < 1e-6);
    }
}
