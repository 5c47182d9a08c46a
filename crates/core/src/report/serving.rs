//! A configuration under `job=serve`: its rules, each naming the field it
//! concerns, and its [`ServeReport`] ([`crate::serve::report`]).

use crate::config::job::Job;
use crate::config::Config;
use crate::input::field::{InputErrorKind, Limits};
use crate::input::{Field, InputError};
use crate::memory::parallel::Layout;
use crate::serve::report::{self, Hardware, ServeLayout, ServeProblem, ServeReport};

impl Config {
    /// The hardware a deployment runs on: the GPU, its memory, GPUs per
    /// node, nodes and links.
    pub fn serve_hardware(&self) -> Hardware {
        Hardware {
            memory_bytes: (self.gpu_mem_gb * 1e9).round() as u64,
            gpu: self.gpu,
            gpus_per_node: self.gpus,
            nodes: self.runtime.nodes,
            tflops: self.speed.tflops,
            nvlink_gb_per_s: self
                .speed
                .nvlink_gb_per_s
                .or(self.gpu.map(|g| g.nvlink_gb_per_s))
                .unwrap_or(0.0),
            network_gb_per_s: self
                .speed
                .network_gb_per_s
                .or(self.gpu.map(|g| g.network_gb_per_s))
                .unwrap_or(0.0),
        }
    }

    /// The serving layout: the link's TP, PP and EP.
    pub fn serve_layout(&self) -> ServeLayout {
        let Layout { tp, pp, .. } = self.runtime.layout;
        ServeLayout {
            tp,
            pp,
            ep: self.model.map_or(1, |m| m.ep),
        }
    }

    /// The field and the error of a serving rule broken.
    fn serve_error(&self, problem: ServeProblem) -> InputError {
        let arch = self.model.map(|m| m.architecture);
        match problem {
            ServeProblem::Tp(problem) => Field::Tp.error(InputErrorKind::Layout(problem)),
            ServeProblem::Pp(problem) => Field::Pp.error(InputErrorKind::Layout(problem)),
            ServeProblem::Ep => match arch.is_some_and(|a| a.moe.is_moe()) {
                true => Field::Ep.error(InputErrorKind::NotDivisible),
                false => Field::Ep.error(InputErrorKind::NeedsExperts),
            },
            ServeProblem::KvDtypeNoFp8 => Field::KvDtype.error(InputErrorKind::NoFp8),
            ServeProblem::WeightsNeedExperts => Field::Weights.error(InputErrorKind::NeedsExperts),
            ServeProblem::EngineModel => Field::Engine.error(InputErrorKind::EngineNotModelled),
            ServeProblem::KvMemory => Field::KvMemory.error(InputErrorKind::OutOfRange(Limits {
                min: 0.001,
                max: self.gpu_mem_gb,
            })),
            ServeProblem::Block => Field::Block.error(InputErrorKind::NotPowerOfTwo),
        }
    }

    /// Checks a serving configuration: the model and the sizes, then the
    /// deployment's rules ([`report::check`]).
    pub fn serve_check(&self) -> Result<(), InputError> {
        self.params()?;
        self.data_parallel_gpus()?;
        Field::GpuMemory.check(self.gpu_mem_gb)?;
        let Some(model) = self.model else {
            return Err(Field::Model.error(InputErrorKind::Empty));
        };
        report::check(
            &model.architecture,
            &self.serve_hardware(),
            self.serve_layout(),
            &self.serve,
        )
        .map_err(|problem| self.serve_error(problem))
    }

    /// Checks the configuration as its job does: training's setup and
    /// budget, or serving's rules.
    pub fn check(&self) -> Result<(), InputError> {
        match self.job {
            Job::Train => self.setup().and(self.budget()).map(|_| ()),
            Job::Serve => self.serve_check(),
            Job::Rl => self.rl_check(),
        }
    }

    /// The deployment's figures, or the first input error.
    pub fn serve_report(&self) -> Result<ServeReport, InputError> {
        self.serve_check()?;
        let model = self
            .model
            .ok_or(Field::Model.error(InputErrorKind::Empty))?;
        let price = self.speed.price_per_gpu_hour;
        report::evaluate(
            &model.architecture,
            model.base.context,
            &self.serve_hardware(),
            self.serve_layout(),
            &self.serve,
            price,
        )
        .map_err(|problem| self.serve_error(problem))
    }

    /// The serving layouts that run this deployment, fastest per GPU first
    /// ([`crate::serve::plans::rank`]), and how many were tried and run; none for
    /// a configuration that is not valid.
    pub fn serve_plans(&self) -> crate::serve::plans::ServeRanking {
        let Some(model) = self.model else {
            return Default::default();
        };
        if self.params().is_err() || self.data_parallel_gpus().is_err() {
            return Default::default();
        }
        crate::serve::plans::rank(
            &model.architecture,
            model.base.context,
            &self.serve_hardware(),
            &self.serve,
            self.speed.price_per_gpu_hour,
        )
    }

    /// This configuration with `plan`'s layout, weights and KV type.
    pub fn with_serve_plan(&self, plan: &crate::serve::plans::ServePlan) -> Config {
        let mut config = *self;
        config.runtime.layout.tp = plan.layout.tp;
        config.runtime.layout.pp = plan.layout.pp;
        if let Some(model) = &mut config.model {
            model.ep = plan.layout.ep;
        }
        config.serve.weights = plan.weights;
        config.serve.kv_dtype = plan.kv_dtype;
        config
    }
}
