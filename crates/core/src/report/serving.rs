//! A configuration under `job=serve`: its rules, each naming the field it
//! concerns, and its [`ServeReport`] ([`vram_serve::report`]).

use crate::config::job::Job;
use crate::config::Config;
use crate::input::field::InputErrorKind;
use crate::input::problems::serve_problem_at_field;
use crate::input::{Field, InputError};
use crate::memory::parallel::Layout;
use vram_serve::report::{self, Hardware, ServeLayout, ServeReport};

/// What starts an engine that does not start as configured
/// ([`Config::serve_remedy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeRemedy {
    /// This tensor parallelism, the weights as they are.
    Tp(u32),
    /// FP8 weights (quantised at load), at this tensor parallelism.
    Fp8AtTp(u32),
}

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
            model.base.context,
            &self.serve_hardware(),
            self.serve_layout(),
            &self.serve,
        )
        .map_err(|problem| serve_problem_at_field(self, problem))
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
        .map_err(|problem| serve_problem_at_field(self, problem))
    }

    /// The smallest tensor parallelism within a node at which the engine
    /// starts (one sequence of `max_model_len` fits its KV cache): a power
    /// of two dividing the GPUs per node, the pipeline and experts as they
    /// are; `None` when none within the node does, or the configuration is
    /// not valid.
    pub fn serve_runnable_tp(&self) -> Option<u32> {
        let starts = |config: &Config| {
            config.serve_report().is_ok_and(|r| {
                !matches!(
                    r.shortfall,
                    Some(report::Shortfall::NoKvMemory | report::Shortfall::MaxLen { .. })
                )
            })
        };
        std::iter::successors(Some(1u32), |tp| tp.checked_mul(2))
            .take_while(|&tp| tp <= self.gpus)
            .filter(|tp| self.gpus % tp == 0)
            .find(|&tp| {
                let mut config = *self;
                config.runtime.layout.tp = tp;
                starts(&config)
            })
    }

    /// What would start an engine that does not start as configured, within
    /// a node: the smallest TP that does, or FP8 weights (for a 16-bit
    /// checkpoint) at the smallest TP that then does; `None` where it starts
    /// already, or neither does.
    pub fn serve_remedy(&self) -> Option<ServeRemedy> {
        let report = self.serve_report().ok()?;
        let stuck = matches!(
            report.shortfall,
            Some(report::Shortfall::NoKvMemory | report::Shortfall::MaxLen { .. })
        );
        if !stuck {
            return None;
        }
        if let Some(tp) = self.serve_runnable_tp() {
            return Some(ServeRemedy::Tp(tp));
        }
        let sixteen_bits = self.serve.weights == vram_serve::weights::WeightFormat::Bf16;
        let mut fp8 = *self;
        fp8.serve.weights = vram_serve::weights::WeightFormat::Fp8;
        match sixteen_bits {
            true => fp8.serve_runnable_tp().map(ServeRemedy::Fp8AtTp),
            false => None,
        }
    }

    /// The serving layouts that run this deployment, fastest per GPU first
    /// ([`vram_serve::plans::rank`]), and how many were tried and run; none for
    /// a configuration that is not valid.
    pub fn serve_plans(&self) -> vram_serve::plans::ServeRanking {
        let Some(model) = self.model else {
            return Default::default();
        };
        if self.params().is_err() || self.data_parallel_gpus().is_err() {
            return Default::default();
        }
        vram_serve::plans::rank(
            &model.architecture,
            model.base.context,
            vram_serve::weights::WeightFormat::shipped(model.base.id),
            &self.serve_hardware(),
            &self.serve,
            self.speed.price_per_gpu_hour,
        )
    }

    /// This configuration with `plan`'s layout, weights and KV type.
    pub fn with_serve_plan(&self, plan: &vram_serve::plans::ServePlan) -> Config {
        let mut config = *self;
        config.runtime.layout.tp = plan.layout.tp;
        config.runtime.layout.pp = plan.layout.pp;
        if let Some(model) = &mut config.model {
            model.ep = plan.layout.ep;
        }
        config.serve = plan.with_formats(config.serve);
        config
    }
}

#[cfg(test)]
mod tests {
    use crate::input::field::InputErrorKind;
    use crate::input::link::decode;
    use vram_shared::layout::{LayoutProblem, Splits};
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The engine's own refusals, each set aside at the key the user typed
    /// (issue 60): TP 5 on Qwen2.5-14B at `tp` (its 8 KV heads), 80 GB of
    /// KV beside an 8B model at `kv_memory`, a length past the positions at
    /// `max_len`, fewer tokens a step than sequences at whichever of the two
    /// was typed; an FP8 cache on an A100 under vLLM kept.
    #[wasm_bindgen_test(unsupported = test)]
    fn each_engine_refusal_is_set_aside_at_the_key_typed() {
        let serve = "v=2&job=serve&gpu=h100-80gb";
        let tp5 = decode(&format!("{serve}&model=qwen2.5-14b&gpus=5&tp=5"));
        let kv_heads = LayoutProblem::DoesNotDivide {
            splits: Splits::KvHeads(8),
            largest: 4,
        };
        assert_eq!(
            tp5.only_problem(),
            ("tp", Some(InputErrorKind::Layout(kv_heads)))
        );
        let kv = decode(&format!("{serve}&model=llama3.1-8b&gpus=1&kv_memory=80"));
        let ("kv_memory", Some(InputErrorKind::OutOfRange(limits))) = kv.only_problem() else {
            panic!("{:?}", kv.problems);
        };
        assert!((limits.max - 69.46).abs() < 0.01, "{limits:?}");
        let long = decode(&format!("{serve}&model=llama3.1-8b&gpus=1&max_len=262144"));
        assert_eq!(long.only_problem().0, "max_len");
        let seqs = decode(&format!(
            "{serve}&model=llama3.1-8b&gpus=1&max_num_seqs=16384"
        ));
        assert_eq!(seqs.only_problem().0, "max_num_seqs");
        let both = format!("{serve}&model=llama3.1-8b&gpus=1&max_num_seqs=512&batched_tokens=256");
        assert_eq!(decode(&both).only_problem().0, "batched_tokens");
        let a100 = decode("v=2&job=serve&gpu=a100-80gb&model=llama3.1-8b&gpus=1&kv_dtype=fp8");
        assert!(a100.problems.is_empty(), "{:?}", a100.problems);
    }
}

#[cfg(test)]
mod runnable_tp_tests {
    use crate::input::link::decode;
    use crate::Config;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// A deployment of today's link contract, `query` its keys.
    fn serving(query: &str) -> Config {
        decode(&format!("v=3&job=serve&{query}")).config
    }

    /// The smallest TP within a node at which vLLM starts: Llama 3.1 70B's
    /// 141 GB of bf16 weights and its 131,072-token context need TP 2 on
    /// H200s; DeepSeek-V3's 671 GB of FP8 weights, all eight; Llama 3.1 8B
    /// runs whole on one. On one 80 GB GPU nothing runs DeepSeek-V3.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_smallest_tp_that_starts_the_engine() {
        let tp = |query: &str| serving(query).serve_runnable_tp();
        assert_eq!(tp("model=llama3.1-8b&gpu=h200&gpus=8"), Some(1));
        assert_eq!(tp("model=llama3.1-70b&gpu=h200&gpus=8"), Some(2));
        assert_eq!(tp("model=deepseek-v3&gpu=h200&gpus=8"), Some(8));
        assert_eq!(tp("model=deepseek-v3&gpu=h100-80gb&gpus=1"), None);
    }

    /// What starts an engine that does not: a larger TP, else FP8 weights
    /// for a 16-bit checkpoint; nothing where it starts, or nothing does.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_remedy_names_what_starts_the_engine() {
        use super::ServeRemedy;
        let remedy = |query: &str| serving(query).serve_remedy();
        assert_eq!(
            remedy("model=llama3.1-70b&gpu=h200&gpus=8"),
            Some(ServeRemedy::Tp(2))
        );
        assert_eq!(remedy("model=llama3.1-70b&gpu=h200&gpus=8&tp=2"), None);
        // 141 GB of bf16 weights in 2 × 48 GB: FP8 halves them, and TP 2 starts.
        assert_eq!(
            remedy("model=llama3.1-70b&gpu=l40s&gpus=2&max_len=8192"),
            Some(ServeRemedy::Fp8AtTp(2))
        );
        // DeepSeek-V3 ships FP8: on one H100 nothing starts it.
        assert_eq!(remedy("model=deepseek-v3&gpu=h100-80gb&gpus=1"), None);
    }
}
