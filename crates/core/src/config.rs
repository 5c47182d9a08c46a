//! A whole configuration as the page and the shared link hold it, and the report
//! computed from it: every figure the page shows.

use serde::{Deserialize, Serialize};

use crate::input::{Field, InputError};
use crate::memory::Recipe;
use crate::memory::{
    max_trainable_params, BytesPerParam, MemoryBreakdown, MemoryBudget, TrainingSetup,
};
use crate::units::{Bytes, ParamCount};
use crate::{GradientPrecision, Optimizer, Precision, Strategy};

/// Every input of the calculator, in the units the user types them in.
///
/// The default is the lesson's example: 7 B parameters, 8 GPUs of 80 GB, FP16,
/// Adam, 20 % reserved, DDP highlighted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Model size, in billions of parameters.
    pub params_billions: f64,
    /// Number of data-parallel GPUs.
    pub gpus: u32,
    /// Memory per GPU, in GB (10^9 bytes).
    pub gpu_mem_gb: f64,
    /// Precision of weights and gradients.
    pub precision: Precision,
    /// Format gradients are accumulated in.
    pub gradients: GradientPrecision,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Fraction of each GPU's memory held back (0.2 = 20 %).
    pub overhead: f64,
    /// The strategy the page highlights.
    pub highlight: Strategy,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            params_billions: 7.0,
            gpus: 8,
            gpu_mem_gb: 80.0,
            precision: Precision::Fp16,
            gradients: GradientPrecision::AsWeights,
            optimizer: Optimizer::Adam,
            overhead: 0.2,
            highlight: Strategy::Ddp,
        }
    }
}

impl Config {
    /// The training setup, or the first error among model size and GPU count.
    pub fn setup(&self) -> Result<TrainingSetup, InputError> {
        Field::Params.check(self.params_billions)?;
        TrainingSetup::with_recipe(
            ParamCount::from_billions(self.params_billions),
            self.recipe(),
            self.gpus,
        )
    }

    /// Precision, gradients' format and optimizer.
    pub fn recipe(&self) -> Recipe {
        Recipe {
            precision: self.precision,
            gradients: self.gradients,
            optimizer: self.optimizer,
        }
    }

    /// The per-GPU memory budget, or the first error among memory and overhead.
    pub fn budget(&self) -> Result<MemoryBudget, InputError> {
        Field::GpuMemory.check(self.gpu_mem_gb)?;
        MemoryBudget::new(Bytes::from_gb(self.gpu_mem_gb), self.overhead)
    }

    /// Every figure for this configuration, or every input error, each naming its field.
    pub fn report(&self) -> Result<Report, Vec<InputError>> {
        match (self.setup(), self.budget()) {
            (Ok(setup), Ok(budget)) => Ok(Report::new(setup, budget, self.highlight)),
            (setup, budget) => Err([setup.err(), budget.err()].into_iter().flatten().collect()),
        }
    }
}

/// The figures of one strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    /// Which strategy.
    pub strategy: Strategy,
    /// Bytes per parameter of each model state on one GPU.
    pub bytes_per_param: BytesPerParam,
    /// Memory of the model states on one GPU.
    pub memory: MemoryBreakdown,
    /// Whether [`memory.total`](MemoryBreakdown::total) fits in the usable memory.
    pub fits: bool,
    /// The largest model whose states fit in the usable memory.
    pub max_params: ParamCount,
}

/// Every figure the page shows for a valid configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The model and how it is trained.
    pub setup: TrainingSetup,
    /// Each GPU's memory and the part held back.
    pub budget: MemoryBudget,
    /// The strategy highlighted.
    pub highlight: Strategy,
    /// One entry per strategy, in [`Strategy::ALL`]'s order.
    pub strategies: [StrategyReport; 4],
}

impl Default for Report {
    /// The report of the lesson's example, [`Config::default`].
    fn default() -> Self {
        let config = Config::default();
        let setup = TrainingSetup {
            params: ParamCount::from_billions(config.params_billions),
            recipe: config.recipe(),
            gpus: config.gpus,
        };
        let budget = MemoryBudget {
            gpu_memory: Bytes::from_gb(config.gpu_mem_gb),
            reserved_fraction: config.overhead,
        };
        Report::new(setup, budget, config.highlight)
    }
}

impl Report {
    /// Computes every strategy's figures.
    pub fn new(setup: TrainingSetup, budget: MemoryBudget, highlight: Strategy) -> Self {
        let strategies = Strategy::ALL.map(|strategy| {
            let memory = setup.per_gpu_memory(strategy);
            StrategyReport {
                strategy,
                bytes_per_param: setup.bytes_per_param(strategy),
                memory,
                fits: budget.fits(memory.total),
                max_params: max_trainable_params(&budget, strategy, setup.recipe(), setup.gpus()),
            }
        });
        Report {
            setup,
            budget,
            highlight,
            strategies,
        }
    }

    /// The figures of `strategy`.
    pub fn strategy(&self, strategy: Strategy) -> &StrategyReport {
        // `strategies` follows Strategy::ALL, whose order is the enum's.
        &self.strategies[strategy as usize]
    }

    /// The highlighted strategy's figures.
    pub fn highlighted(&self) -> &StrategyReport {
        self.strategy(self.highlight)
    }

    /// The strategy with the least memory per GPU that fits, if any does.
    pub fn least_sharding_that_fits(&self) -> Option<Strategy> {
        self.strategies
            .iter()
            .find(|row| row.fits)
            .map(|row| row.strategy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::InputErrorKind;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn default_report_is_the_lessons_table() {
        let report = Config::default().report().unwrap();
        let totals: Vec<f64> = report
            .strategies
            .iter()
            .map(|r| r.memory.total.gb())
            .collect();
        assert_eq!(totals, [112.0, 38.5, 26.25, 14.0]);
        let fits: Vec<bool> = report.strategies.iter().map(|r| r.fits).collect();
        assert_eq!(fits, [false, true, true, true]);
        assert!((report.strategy(Strategy::Ddp).max_params.billions() - 4.0).abs() < 1e-9);
        assert!((report.strategy(Strategy::Zero3).max_params.billions() - 32.0).abs() < 1e-9);
        assert_eq!(report.least_sharding_that_fits(), Some(Strategy::Zero1));
        assert_eq!(report.highlighted().strategy, Strategy::Ddp);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn default_report_is_the_default_configs() {
        assert_eq!(Report::default(), Config::default().report().unwrap());
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn report_lists_every_bad_field() {
        let config = Config {
            params_billions: -1.0,
            gpu_mem_gb: f64::INFINITY,
            ..Config::default()
        };
        let errors = config.report().unwrap_err();
        assert_eq!(
            errors.iter().map(|e| (e.field, e.kind)).collect::<Vec<_>>(),
            [
                (
                    Field::Params,
                    InputErrorKind::OutOfRange(Field::Params.limits().unwrap())
                ),
                (Field::GpuMemory, InputErrorKind::NotFinite),
            ]
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn thirteen_b_on_8x80gb_fits_from_zero2() {
        // The lesson's Q6: 13 B with FP16 + AdamW on 8 × A100 80GB.
        let config = Config {
            params_billions: 13.0,
            highlight: Strategy::Zero2,
            ..Config::default()
        };
        let report = config.report().unwrap();
        let zero2 = report.highlighted();
        assert_eq!(zero2.strategy, Strategy::Zero2);
        assert!((zero2.memory.total.gb() - 48.75).abs() < 1e-9);
        assert!(zero2.fits);
        assert!(!report.strategy(Strategy::Zero1).fits); // 71.5 GB > 64 GB
    }
}
