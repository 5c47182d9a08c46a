//! A configuration checked as a whole and evaluated: its training setup, its
//! memory budget, its layout and step time, and the [`Report`] of every
//! strategy.

use crate::config::{Config, ModelSpec};
use crate::frameworks::hf::Framework;
use crate::frameworks::runtime::Accounting;
use crate::input::field::InputErrorKind;
use crate::input::{Field, InputError};
use crate::memory::accumulation::accumulation_steps;
use crate::memory::activations::{Recompute, RecomputeMethod, RecomputeModule, RecomputeModules};
use crate::memory::finetune::Adapters;
use crate::memory::parallel::{Layout, LayoutProblem, Splits};
use crate::memory::{MemoryBudget, TrainingSetup};
use crate::memory::{Precision, Recipe};
use crate::report::{MegatronReport, Report};
use crate::time::efficiency::AttentionKernel;
use vram_shared::model::architecture::Architecture;
use vram_shared::units::{Bytes, ParamCount};

impl ModelSpec {
    /// Checks the architecture and the step: each value within its field's limits,
    /// heads dividing the hidden size, key/value heads dividing the heads.
    pub fn validate(&self) -> Result<(), InputError> {
        let a = &self.architecture;
        for (field, value) in [
            (Field::Layers, a.layers),
            (Field::Hidden, a.hidden),
            (Field::Ffn, a.ffn),
            (Field::Heads, a.heads),
            (Field::KvHeads, a.kv_heads),
            (Field::Vocab, a.vocab),
            (Field::Seq, self.seq_len),
            (Field::MicroBatch, self.micro_batch),
        ] {
            field.check(f64::from(value))?;
        }
        // Every count the preset fills (the architecture beyond Llama's too),
        // through the field's own reading.
        let config = Config {
            model: Some(*self),
            ..Config::default()
        };
        for field in Field::ALL {
            if field.filled_by() == Some(Field::Model) && field.is_whole() {
                field.parse_count(&field.read(&config))?;
            }
        }
        Field::Capacity.check(self.capacity)?;
        Field::Positions.check(f64::from(a.learned_positions))?;
        let within = |field: Field, value: u32, min: f64, max: f64| {
            let limits = crate::input::field::Limits { min, max };
            match limits.contains(f64::from(value)) {
                true => Ok(()),
                false => Err(field.error(InputErrorKind::OutOfRange(limits))),
            }
        };
        // A head size of its own, or latent attention, need not divide the width.
        if a.head_dim == 0 && !a.mla.is_latent() && a.hidden % a.heads != 0 {
            return Err(Field::Heads.error(InputErrorKind::NotDivisible));
        }
        if a.heads % a.kv_heads != 0 {
            return Err(Field::KvHeads.error(InputErrorKind::NotDivisible));
        }
        if a.moe.is_moe() {
            within(Field::TopK, a.moe.top_k, 1.0, f64::from(a.moe.experts))?;
            within(Field::ExpertFfn, a.moe.expert_ffn, 1.0, 16_777_216.0)?;
            within(
                Field::DenseLayers,
                a.moe.dense_layers,
                0.0,
                f64::from(a.layers),
            )?;
            if a.moe.shared_experts > 0 {
                within(Field::SharedFfn, a.moe.shared_ffn, 1.0, 16_777_216.0)?;
            }
        }
        if a.linear.is_some() {
            let l = a.linear;
            // One full-attention layer at least every `layers + 1` (none).
            within(
                Field::FullEvery,
                l.full_every,
                2.0,
                f64::from(a.layers) + 1.0,
            )?;
            within(Field::LinearKeyHeads, l.k_heads, 1.0, 65_536.0)?;
            within(Field::LinearKeyDim, l.k_dim, 1.0, 65_536.0)?;
            within(Field::LinearValueDim, l.v_dim, 1.0, 65_536.0)?;
            within(Field::ConvKernel, l.conv_kernel, 1.0, 1_024.0)?;
            // transformers splits the value heads evenly over the key heads.
            if l.v_heads == 0 || l.v_heads % l.k_heads != 0 {
                return Err(Field::LinearValueHeads.error(InputErrorKind::NotDivisible));
            }
        }
        if a.mla.is_latent() {
            within(Field::RopeDim, a.mla.rope_dim, 1.0, 65_536.0)?;
            within(Field::NopeDim, a.mla.nope_dim, 1.0, 65_536.0)?;
            within(Field::VDim, a.mla.v_dim, 1.0, 65_536.0)?;
        }
        // At most a quadrillion parameters (the size's limit), estimated in
        // floating point before the exact count, which could not hold more.
        if let Some(limits) = Field::Params.limits() {
            if estimated_params(a) > limits.max * 1e9 {
                return Err(Field::Params.error(InputErrorKind::OutOfRange(limits)));
            }
        }
        Ok(())
    }
}

/// The parameter count in floating point (within a few parts in 10^16 of the
/// exact one), safe for any field values.
fn estimated_params(a: &Architecture) -> f64 {
    let h = f64::from(a.hidden);
    let heads = f64::from(a.heads);
    let d = if a.mla.is_latent() {
        f64::from(a.mla.nope_dim) + f64::from(a.mla.rope_dim)
    } else if a.head_dim > 0 {
        f64::from(a.head_dim)
    } else {
        h / heads
    };
    let latent = f64::from(a.mla.q_rank) * (h + heads * d)
        + f64::from(a.mla.kv_rank) * (h + heads * (d + f64::from(a.mla.v_dim)));
    let attention = 2.0 * h * heads * d + 2.0 * h * f64::from(a.kv_heads) * d + latent;
    let matrices = a.mlp.matrices() as f64;
    let mlp = matrices
        * h
        * (f64::from(a.ffn)
            + f64::from(a.moe.experts) * f64::from(a.moe.expert_ffn)
            + f64::from(a.moe.shared_experts) * f64::from(a.moe.shared_ffn));
    // A Gated DeltaNet layer's, exact: its fields are checked first, and one
    // layer's count stays below 2^56.
    let linear = a.linear.params(u64::from(a.hidden)) as f64;
    f64::from(a.layers) * (2.0 * attention + linear + mlp + 4.0 * h) + 2.0 * f64::from(a.vocab) * h
}

impl Config {
    /// The training setup, or the first error among model size and GPU count.
    pub fn setup(&self) -> Result<TrainingSetup, InputError> {
        let params = self.params()?;
        Field::Nodes.check(f64::from(self.runtime.nodes))?;
        if self.amp && !self.precision.is_mixed() {
            return Err(Field::Amp.error(InputErrorKind::NeedsMixedPrecision));
        }
        self.check_fp8()?;
        let zero_group = self.zero_group()?;
        // A run cannot achieve more than its GPU's peak.
        let peak = self.speed.tflops.or(self.gpu.map(|g| g.tflops_16bit));
        if let (Some(achieved), Some(peak)) = (self.speed.achieved_tflops, peak) {
            if achieved > peak {
                let limits = crate::input::field::Limits {
                    min: 0.001,
                    max: peak,
                };
                return Err(Field::Achieved.error(InputErrorKind::OutOfRange(limits)));
            }
        }
        self.check_recompute()?;
        // Megatron-LM's estimate needs an architecture and trains every parameter.
        if self.runtime.accounting == Accounting::Megatron {
            if self.model.is_none() {
                return Err(Field::Accounting.error(InputErrorKind::NeedsModel));
            }
            if self.fine_tuning.method.uses_adapters() {
                return Err(Field::Accounting.error(InputErrorKind::FullTrainingOnly));
            }
        }
        self.check_expert_parallel(zero_group)?;
        // Hugging Face's accounting was measured on SwiGLU models only,
        // LitGPT's on its dense models in bf16-true.
        if let Some(model) = self.model {
            let covered = match model.framework {
                Framework::Megatron => true,
                Framework::Hf => crate::frameworks::hf::covers(&model.architecture),
                Framework::LitGpt => crate::frameworks::litgpt::covers(&model.architecture),
            };
            if !covered {
                return Err(Field::Framework.error(InputErrorKind::NotCovered));
            }
            if model.framework == Framework::LitGpt && self.precision != Precision::Bf16Pure {
                return Err(Field::Framework.error(InputErrorKind::NotWith(Field::Precision)));
            }
            // LitGPT's GPT has its own output head (a checkpoint's tied
            // embedding is copied into `lm_head`): a tied count would miss it.
            if model.framework == Framework::LitGpt && model.architecture.tied_embeddings {
                return Err(Field::Framework.error(InputErrorKind::NotWith(Field::Tied)));
            }
            // Only LitGPT's accounting carries an earlier step's graph.
            if model.longest_first && model.framework != Framework::LitGpt {
                return Err(Field::LongestFirst.error(InputErrorKind::NotWith(Field::Framework)));
            }
            // LitGPT checkpoints whole blocks or nothing, and its GPT has
            // no dropout layers.
            if model.framework == Framework::LitGpt {
                if model.recompute == Recompute::Selective {
                    return Err(Field::Recompute.error(InputErrorKind::NotWith(Field::Framework)));
                }
                if model.dropout > 0.0 {
                    return Err(Field::Dropout.error(InputErrorKind::NotWith(Field::Framework)));
                }
            }
            // LitGPT's adapters take the model's dtype (Fabric's bf16-true
            // converts the whole module).
            if model.framework == Framework::LitGpt
                && self.fine_tuning.method.uses_adapters()
                && self.fine_tuning.adapter_dtype != crate::memory::finetune::AdapterDtype::Model
            {
                return Err(Field::Framework.error(InputErrorKind::NotWith(Field::AdapterDtype)));
            }
        }
        // A bare count's largest layer is one of its layers: no larger than the model.
        if let (None, Some(millions)) = (self.model, self.runtime.largest_layer_millions) {
            if ParamCount::from_millions(millions).get() > params.get() {
                return Err(Field::LargestLayer.error(InputErrorKind::LargerThanModel));
            }
        }
        self.check_sharding(zero_group)?;
        let setup = TrainingSetup::with_recipe(params, self.recipe(), zero_group)?
            .with_shard_group(self.runtime.shard_group)
            .with_linear_share(self.model.map_or(1.0, |m| m.architecture.layers_share()));
        Ok(match self.adapters()? {
            Some(adapters) => setup.with_adapters(adapters),
            None => setup,
        })
    }

    /// Checks FP8 training against the GPU, the method, the framework, the
    /// model, the sharding and the recipe; nothing without FP8.
    fn check_fp8(&self) -> Result<(), InputError> {
        // FP8 is Transformer Engine's, as Megatron-LM runs it: on FP8 tensor
        // cores, for full training, not under Hugging Face's accounting.
        if !self.precision.is_fp8() {
            // A recipe is FP8's: typed without it, it is refused, not dropped.
            return match self.fp8_recipe == crate::memory::Fp8Recipe::default() {
                true => Ok(()),
                false => Err(Field::Fp8Recipe.error(InputErrorKind::NotWith(Field::Precision))),
            };
        }
        let error = |kind| Err(Field::Precision.error(kind));
        if self.gpu.is_some_and(|g| g.tflops_fp8 == 0.0) {
            return error(InputErrorKind::NoFp8);
        }
        if self.fine_tuning.method.uses_adapters() {
            return error(InputErrorKind::FullTrainingOnly);
        }
        if self
            .model
            .is_some_and(|m| m.framework.measured_on_pytorch())
        {
            return error(InputErrorKind::NotWith(Field::Framework));
        }
        // Gated DeltaNet's kernels keep their own values: not counted in FP8.
        if self.model.is_some_and(|m| m.architecture.linear.is_some()) {
            return error(InputErrorKind::NotWith(Field::FullEvery));
        }
        // Megatron-LM turns `--fp8-param-gather` off under torch FSDP2 with
        // Transformer Engine 2.x ("FSDP2 FP8 param gather is not supported
        // yet in TE 2.0, will fallback to bf16", `arguments.py`): FP8
        // weights there are FP8 training's.
        if self.precision == Precision::Fp8Params
            && self.runtime.sharding == crate::frameworks::runtime::Sharding::Fsdp2
        {
            return error(InputErrorKind::NotWith(Field::Sharding));
        }
        // MXFP8 is Blackwell's (`transformer_config.py`: "'mxfp8' for
        // Blackwell architecture only"); block scaling needs Hopper's
        // FP8 GEMMs or newer (TE's `check_fp8_block_scaling_support`).
        use vram_shared::gpu::Generation;
        let generation = self.gpu.map(|g| g.generation);
        let refused = match self.fp8_recipe {
            crate::memory::Fp8Recipe::Mxfp8 => {
                generation.is_some_and(|g| g != Generation::Blackwell)
            }
            crate::memory::Fp8Recipe::Blockwise => {
                generation.is_some_and(|g| !matches!(g, Generation::Hopper | Generation::Blackwell))
            }
            _ => false,
        };
        if refused {
            return Err(Field::Fp8Recipe.error(InputErrorKind::NotWith(Field::Gpu)));
        }
        Ok(())
    }

    /// Checks recomputation: full recomputation's unit within a model chunk
    /// (one layer under Hugging Face's accounting), and selective
    /// recomputation's modules.
    fn check_recompute(&self) -> Result<(), InputError> {
        // How full recomputation groups its layers means nothing without it:
        // typed so, it is refused (Megatron-LM reads `--recompute-method`
        // under `--recompute-granularity full` only). `recompute_layers`
        // without it stays as links of v1 kept it: held, unused.
        if let Some(model) = self.model.filter(|m| m.recompute != Recompute::Full) {
            let every = crate::memory::activations::Checkpointing::EVERY_LAYER;
            if model.checkpointing.method != every.method {
                return Err(Field::RecomputeMethod.error(InputErrorKind::NotWith(Field::Recompute)));
            }
        }
        // Megatron-LM's recompute unit is at most a model chunk (a pipeline
        // rank's layers, or one virtual stage's); Hugging Face checkpoints
        // every layer on its own.
        if let Some(model) = self.model.filter(|m| m.recompute == Recompute::Full) {
            let chunk = self.runtime.layout.largest_chunk(model.architecture.layers);
            let limits = crate::input::field::Limits {
                min: 1.0,
                max: f64::from(chunk),
            };
            let n = model.checkpointing.layers;
            if !limits.contains(f64::from(n)) {
                return Err(Field::RecomputeLayers.error(InputErrorKind::OutOfRange(limits)));
            }
            if model.framework.measured_on_pytorch() {
                if model.checkpointing.method != RecomputeMethod::Uniform {
                    return Err(
                        Field::RecomputeMethod.error(InputErrorKind::NotWith(Field::Framework))
                    );
                }
                if n != 1 {
                    return Err(
                        Field::RecomputeLayers.error(InputErrorKind::NotWith(Field::Framework))
                    );
                }
            }
        }
        // transformers' accounting counts its own loss (an fp32 upcast).
        if let Some(model) = self.model {
            if model.framework.measured_on_pytorch()
                && model.loss != crate::memory::activations::Loss::Fused
            {
                return Err(Field::Loss.error(InputErrorKind::NotWith(Field::Framework)));
            }
        }
        // Megatron-LM's selective modules: `mla_up_proj` only with latent
        // attention (`transformer_config.py` raises otherwise), and beyond
        // the core attention none under Hugging Face's accounting.
        if let Some(model) = self.model.filter(|m| m.recompute == Recompute::Selective) {
            let modules = model.recompute_modules;
            if modules.has(RecomputeModule::PerOp) {
                return self.check_per_op(&model);
            }
            if modules.has(RecomputeModule::MlaUpProjection) && !model.architecture.mla.is_latent()
            {
                return Err(Field::RecomputeModules.error(InputErrorKind::NeedsLatentAttention));
            }
            // Delayed scaling cannot rebuild what it scaled from history.
            let output_discarding = modules.has(RecomputeModule::MoeActivation)
                || modules.has(RecomputeModule::LayerNorm);
            if self.precision.is_fp8()
                && self.fp8_recipe == crate::memory::Fp8Recipe::Delayed
                && output_discarding
            {
                return Err(
                    Field::RecomputeModules.error(InputErrorKind::NotWith(Field::Fp8Recipe))
                );
            }
            if model.framework.measured_on_pytorch() && modules != RecomputeModules::CORE_ATTENTION
            {
                return Err(
                    Field::RecomputeModules.error(InputErrorKind::NotWith(Field::Framework))
                );
            }
        }
        Ok(())
    }

    /// Checks torchtitan's per-op checkpointing (`recompute_modules=op`):
    /// alone (Megatron-LM's modules are another framework's), on a dense
    /// model with the usual attention (its policy saves other ops around
    /// experts, latent and linear attention, which the page does not count),
    /// with FlashAttention (the attention kernel's output is what it saves),
    /// not under Hugging Face's accounting (transformers has no such policy).
    fn check_per_op(&self, model: &crate::config::ModelSpec) -> Result<(), InputError> {
        let arch = &model.architecture;
        let error =
            |field: Field| Err(Field::RecomputeModules.error(InputErrorKind::NotWith(field)));
        if model.recompute_modules != RecomputeModules::PER_OP {
            return Err(Field::RecomputeModules.error(InputErrorKind::PerOpAlone));
        }
        if arch.moe.is_moe() {
            return error(Field::Experts);
        }
        if arch.mla.is_latent() {
            return error(Field::KvRank);
        }
        if arch.linear_layer_count() > 0 {
            return error(Field::FullEvery);
        }
        if !model.flash_attention {
            return error(Field::Flash);
        }
        if model.framework.measured_on_pytorch() {
            return error(Field::Framework);
        }
        Ok(())
    }

    /// Checks expert parallelism over ZeRO's group of `zero_group` GPUs: a
    /// mixture of experts, EP dividing its experts and the group, and not
    /// under DeepSpeed's estimator or offload.
    fn check_expert_parallel(&self, zero_group: u32) -> Result<(), InputError> {
        if let Some(model) = self.model.filter(|m| m.ep > 1) {
            let experts = model.architecture.moe.experts;
            let error = |kind| Err(Field::Ep.error(kind));
            if experts == 0 {
                return error(InputErrorKind::NeedsExperts);
            }
            // EP spans DP × CP, or with ETP = 1 the TP ranks too.
            let span = zero_group * self.runtime.layout.expert_fold();
            if experts % model.ep != 0 || span % model.ep != 0 {
                return error(InputErrorKind::NotDivisible);
            }
            if self.runtime.accounting == Accounting::DeepSpeed
                || self.runtime.offload != crate::frameworks::deepspeed::Offload::None
            {
                return error(InputErrorKind::NotInDeepSpeed);
            }
        }
        Ok(())
    }

    /// Checks the sharding over ZeRO's group of `zero_group` GPUs: FSDP2 and
    /// a sharding group, which DeepSpeed's estimator does not know.
    fn check_sharding(&self, zero_group: u32) -> Result<(), InputError> {
        // DeepSpeed's estimator knows no FSDP2.
        if self.runtime.sharding == crate::frameworks::runtime::Sharding::Fsdp2
            && self.runtime.accounting == Accounting::DeepSpeed
        {
            return Err(Field::Sharding.error(InputErrorKind::NotInDeepSpeed));
        }
        // A sharding group within ZeRO's group (HSDP, MiCS): it must divide
        // it, and DeepSpeed's estimator and expert parallelism have none.
        if let Some(g) = self.runtime.shard_group {
            if zero_group % g != 0 {
                return Err(Field::ShardGroup.error(InputErrorKind::Layout(
                    LayoutProblem::does_not_divide(Splits::Gpus(zero_group), g),
                )));
            }
            if self.runtime.accounting == Accounting::DeepSpeed {
                return Err(Field::ShardGroup.error(InputErrorKind::NotInDeepSpeed));
            }
            if self.model.is_some_and(|m| m.ep > 1) {
                return Err(Field::ShardGroup.error(InputErrorKind::NotWith(Field::Ep)));
            }
        }
        Ok(())
    }

    /// The adapters LoRA or QLoRA trains on this model (`None` for full
    /// training), its unquantised weights in the precision's format; an error
    /// on the method when there is no architecture to adapt.
    pub fn adapters(&self) -> Result<Option<Adapters>, InputError> {
        if !self.fine_tuning.method.uses_adapters() {
            return Ok(None);
        }
        let model = self
            .model
            .ok_or(Field::Method.error(InputErrorKind::NeedsModel))?;
        // PEFT adapts a mixture's attention projections (latent attention's
        // too) and, through `target_parameters`, transformers' fused expert
        // tensors; bitsandbytes does not quantise those, and QLoRA's count of
        // latent attention was not checked. Qwen3-Next's Gated DeltaNet
        // layers and gated queries were not measured with PEFT.
        let arch = model.architecture;
        // Linear attention's and the gated query's adapters are not counted.
        if arch.linear.is_some() || arch.gated_attention {
            return Err(Field::Method.error(InputErrorKind::DenseOnly));
        }
        let method = self.fine_tuning.method;
        if (arch.mla.is_latent() || arch.moe.is_moe())
            && method == crate::memory::finetune::Method::Qlora
        {
            return Err(Field::Method.error(InputErrorKind::DenseOnly));
        }
        // PEFT's `target_parameters` (the fused experts) refuse DoRA; under
        // autocast what it keeps was not reproduced (`measured/dora.json`).
        let t = self.fine_tuning;
        if t.dora && self.amp && model.framework == Framework::Hf {
            return Err(Field::Dora.error(InputErrorKind::NotWith(Field::Amp)));
        }
        if t.dora && arch.moe.is_moe() && t.targets.includes(crate::memory::finetune::Linear::MlpIn)
        {
            return Err(Field::Dora.error(InputErrorKind::NotWith(Field::Targets)));
        }
        if t.dora && model.framework == Framework::LitGpt {
            return Err(Field::Dora.error(InputErrorKind::NotWith(Field::Framework)));
        }
        let weight_bytes = self.precision.bytes_per_param() as u64;
        let adapters = self.fine_tuning.adapters(&model.architecture, weight_bytes);
        Ok(match model.framework {
            Framework::LitGpt => {
                adapters.map(|a| a.with_quantized_head(&model.architecture, &t, weight_bytes))
            }
            _ => adapters,
        })
    }

    /// This configuration with the model a pasted `config.json` describes:
    /// its architecture on its family's preset, the step (sequence,
    /// micro-batch, recomputation …) kept from the model chosen before; an
    /// error naming the first of the architecture's fields (`hidden`,
    /// `experts` …) whose value its link key would not accept, before anything
    /// is counted from it (a `hidden_size` of 10⁹ is refused, not counted).
    pub fn with_hub_config(
        &self,
        hub: &vram_shared::model::hub::HubConfig,
    ) -> Result<Config, InputError> {
        let step = self.model.unwrap_or(ModelSpec::of(hub.base));
        let model = ModelSpec {
            base: hub.base,
            architecture: hub.architecture,
            ..step
        };
        let uncounted = Config {
            model: Some(model),
            ..*self
        };
        // The architecture's own fields, each read without counting anything.
        for field in Field::ALL {
            let counted = field == Field::Params;
            if field.filled_by() == Some(Field::Model) && field.limits().is_some() && !counted {
                if let Ok(value) = field.read(&uncounted).parse::<f64>() {
                    field.check(value)?;
                }
            }
        }
        Ok(Config {
            params_billions: model.params_billions(),
            ..uncounted
        })
    }

    /// The GPUs ZeRO shards over: all of them (`gpus` × `nodes`) without a
    /// layout, the data-parallel × context-parallel ones with one; an error
    /// naming the layout's key that does not fit the model or the GPUs.
    pub fn zero_group(&self) -> Result<u32, InputError> {
        let world = self.data_parallel_gpus()?;
        let layout = self.runtime.layout;
        // How CP exchanges needs CP; the experts' own TP needs TP and
        // experts: typed without them, each is refused, not dropped.
        if layout.cp_comm != Layout::SINGLE.cp_comm && layout.cp < 2 {
            return Err(Field::CpComm.error(InputErrorKind::NotWith(Field::Cp)));
        }
        if layout.expert_tp != Layout::SINGLE.expert_tp {
            if self.model.is_some_and(|m| !m.architecture.moe.is_moe()) {
                return Err(Field::Etp.error(InputErrorKind::NeedsExperts));
            }
            if layout.tp < 2 {
                return Err(Field::Etp.error(InputErrorKind::NotWith(Field::Tp)));
            }
        }
        check_stage_keys(&layout)?;
        if layout.is_default() && (self.model.is_some() || layout == Layout::SINGLE) {
            return Ok(world);
        }
        // The first layout key that is not its default names the problem.
        let key = [
            (Field::Tp, layout.tp != 1),
            (Field::Pp, layout.pp != 1),
            (Field::Vpp, layout.vpp != 1),
            (Field::Cp, layout.cp != 1),
            (Field::PpFirst, layout.first_layers.is_some()),
            (Field::PpLast, layout.last_layers.is_some()),
            (Field::PpEmbedding, layout.embedding_in_split),
            (Field::PpLoss, layout.loss_in_split),
            (Field::PpLayout, layout.stage_map.is_some()),
            (Field::CpComm, layout.cp_comm != Layout::SINGLE.cp_comm),
            (Field::Etp, layout.expert_tp != Layout::SINGLE.expert_tp),
        ]
        .into_iter()
        .find_map(|(field, set)| set.then_some(field))
        .unwrap_or(Field::Sp);
        let model = self.model.ok_or(key.error(InputErrorKind::NeedsModel))?;
        if model.framework.measured_on_pytorch() || self.runtime.accounting == Accounting::DeepSpeed
        {
            return Err(key.error(InputErrorKind::NeedsMegatron));
        }
        if self.fine_tuning.method.uses_adapters() {
            return Err(key.error(InputErrorKind::FullTrainingOnly));
        }
        layout.validate(&model.architecture, model.seq_len)?;
        Ok(layout.zero_group(world)?)
    }

    /// The dense FP8 tensor peak in TFLOP/s beside a 16-bit peak of
    /// `tflops`: the GPU preset's, or twice a typed peak (the ratio of
    /// Hopper's, Ada's and Blackwell's datasheets).
    fn fp8_tflops(&self, tflops: f64) -> f64 {
        match (self.speed.tflops, self.gpu) {
            (None, Some(gpu)) if gpu.tflops_fp8 > 0.0 => gpu.tflops_fp8,
            _ => 2.0 * tflops,
        }
    }

    /// The peak and links the step runs on: the GPU preset's, or those typed
    /// (a custom GPU needs its peak; its links default to PCIe 4.0's 32 GB/s
    /// within a node and 12.5 GB/s between nodes).
    pub fn machine(&self) -> Option<crate::time::Machine> {
        let speed = self.speed;
        let tflops = speed.tflops.or(self.gpu.map(|g| g.tflops_16bit))?;
        let (nvlink, network, pcie) = self.gpu.map_or((32.0, 12.5, 32.0), |g| {
            (g.nvlink_gb_per_s, g.network_gb_per_s, g.pcie_gb_per_s)
        });
        Some(crate::time::Machine {
            peak_flops: tflops * 1e12,
            efficiency: match speed.kernel_model {
                false => crate::time::Efficiency::Typed(speed.mfu),
                true => crate::time::Efficiency::Kernels(self.gpu.map_or(
                    crate::time::efficiency::Kernels::unknown(tflops * 1e12),
                    |g| crate::time::efficiency::Kernels::of(g.generation, g.hbm_gb_per_s * 1e9),
                )),
            },
            nvlink_bytes_per_s: speed.nvlink_gb_per_s.unwrap_or(nvlink) * 1e9,
            network_bytes_per_s: speed.network_gb_per_s.unwrap_or(network) * 1e9,
            pcie_bytes_per_s: pcie * 1e9,
            gpus_per_node: self.gpus,
            achieved_flops: speed.achieved_tflops.map(|t| t * 1e12),
            fp8_peak_flops: match self.precision {
                Precision::Fp8 | Precision::Fp8Params => Some(self.fp8_tflops(tflops) * 1e12),
                _ => None,
            },
            fp8_amax_pass: self.precision.is_fp8() && self.fp8_recipe.extra_amax_pass(),
        })
    }

    /// The attention kernel the run's stack runs for `model`: unfused where
    /// the model asks for it ([`crate::config::ModelSpec::fused_attention`]);
    /// under transformers (its accounting, or one of its attention
    /// implementations named, as an RL actor's is) or PyTorch's FSDP2 (the
    /// PyTorch-native stacks: torchtitan, verl, accelerate, llm-foundry,
    /// fms-fsdp), PyTorch's SDPA or `flash-attn`, FlashAttention-2; under
    /// Megatron-LM, Transformer Engine's cuDNN attention.
    pub fn attention_kernel(&self, model: &crate::config::ModelSpec) -> AttentionKernel {
        let pytorch = model.framework.measured_on_pytorch()
            || model.attention.is_some()
            || self.runtime.sharding == crate::frameworks::runtime::Sharding::Fsdp2;
        match (model.fused_attention(), pytorch) {
            (false, _) => AttentionKernel::Unfused {
                dropout: model.dropout > 0.0,
            },
            (true, true) => AttentionKernel::FlashAttention2,
            (true, false) => AttentionKernel::Fused,
        }
    }

    /// Each strategy's step time on [`Config::machine`], `microbatches` per
    /// step, and the run of the highlighted one when tokens are given.
    fn time_steps(&self, report: &mut Report, microbatches: u32) {
        let (Some(model), Some(machine)) = (self.model, self.machine()) else {
            return;
        };
        let setup = report.setup;
        let layout = self.runtime.layout;
        let dp = report
            .layout
            .as_ref()
            .map_or(setup.gpus(), |l| l.data_parallel);
        let stages: Vec<(u64, u64)> = report.layout.as_ref().map_or(Vec::new(), |l| {
            l.stages
                .iter()
                .map(|s| (s.params, s.routed_experts))
                .collect()
        });
        let weight_bytes = setup.gathered_weight_bytes();
        let m = f64::from(microbatches);
        for row in &mut report.strategies {
            let (params_on_gpu, expert_params_on_gpu) =
                row.rank.and_then(|r| stages.get(r as usize)).map_or(
                    (
                        setup.params().get(),
                        model.architecture.routed_expert_params() as f64,
                    ),
                    |&(params, experts)| (params as f64, experts as f64),
                );
            let work = crate::time::StepWork {
                arch: &model.architecture,
                layout,
                dp,
                microbatches,
                micro_batch: model.micro_batch,
                seq_len: model.seq_len,
                rerun: crate::time::Rerun::of(
                    &model.architecture,
                    &model.activation_setup(&setup),
                    layout.largest_chunk(model.architecture.layers),
                ),
                activation_bytes: model.activation_setup(&setup).bytes_per_value,
                attention: self.attention_kernel(&model),
                strategy: row.strategy,
                ep: model.ep,
                params_on_gpu,
                expert_params_on_gpu,
                gradient_bytes: self.runtime.reduced_gradient_bytes(&setup, row.strategy),
                weight_bytes,
                offload_bytes_per_param: 0.0,
                speed: self.speed,
                shard_gpus: setup.shard_gpus(),
                trainable_fraction: setup
                    .adapters()
                    .map_or(1.0, |a| a.trainable as f64 / setup.params().get()),
            };
            let work = crate::time::StepWork {
                offload_bytes_per_param: crate::time::offload_bytes_per_param(
                    &work,
                    row.beyond.offload,
                ),
                ..work
            };
            row.time = Some(crate::time::step_time(&work, &machine));
        }
        report.machine = Some(machine);
        let tokens_per_step =
            m * f64::from(model.micro_batch) * f64::from(dp) * f64::from(model.seq_len);
        report.training = self
            .speed
            .tokens_billions
            .zip(report.highlighted().time)
            .map(|(tokens, time)| {
                crate::time::training(
                    tokens * 1e9,
                    tokens_per_step,
                    time.step_seconds,
                    f64::from(report.gpus()),
                    self.speed.price_per_gpu_hour,
                )
            });
    }

    /// What Megatron-LM would print for this configuration, under
    /// `acct=megatron` (`None` otherwise, or without a model), with its number
    /// of microbatches: the global batch's, else 1 (its default global batch
    /// is micro-batch × DP). [`Config::report`] leaves [`Report::megatron`] to
    /// this: the page asks its lazily loaded module for it.
    pub fn megatron_report(&self) -> Option<MegatronReport> {
        if self.runtime.accounting != Accounting::Megatron {
            return None;
        }
        let report = self.report().ok()?;
        let m = Some(report.accumulation_steps.and_then(Result::ok).unwrap_or(1));
        let (ddp, distributed) = (self.megatron_args(false)?, self.megatron_args(true)?);
        Some(MegatronReport {
            without_distributed_optimizer: crate::frameworks::megatron::estimate(&ddp, m),
            with_distributed_optimizer: crate::frameworks::megatron::estimate(&distributed, m),
        })
    }

    /// The arguments Megatron-LM would be given for this model, layout and
    /// GPUs, with its distributed optimizer (`distributed`, ZeRO-1) or without
    /// (DDP); `None` without a model.
    pub fn megatron_args(
        &self,
        distributed: bool,
    ) -> Option<crate::frameworks::megatron::MegatronArgs> {
        let model = self.model?;
        let world = self.data_parallel_gpus().ok()?;
        Some(crate::frameworks::megatron::args_of(
            &model.architecture,
            &self.runtime.layout,
            world,
            model.ep,
            distributed,
            model.seq_len,
            model.micro_batch,
            model.recompute,
        ))
    }

    /// The data-parallel degree: GPUs per node × nodes, within [`Field::Gpus`]' limits.
    pub fn data_parallel_gpus(&self) -> Result<u32, InputError> {
        let total = u64::from(self.gpus) * u64::from(self.runtime.nodes);
        let gpus = Field::Gpus.check(total as f64);
        match self.runtime.nodes {
            1 => gpus.map(|_| self.gpus),
            _ => gpus.map(|_| total as u32).map_err(|_| {
                Field::Nodes.error(InputErrorKind::TooManyGpus {
                    gpus_per_node: self.gpus,
                    total,
                })
            }),
        }
    }

    /// The parameter count: the architecture's, exactly, or the size typed.
    pub fn params(&self) -> Result<ParamCount, InputError> {
        match &self.model {
            Some(model) => {
                model.validate()?;
                let params = ParamCount::new(model.architecture.param_count() as f64);
                Field::Params.check(params.billions())?;
                Ok(params)
            }
            None => Ok(ParamCount::from_billions(
                Field::Params.check(self.params_billions)?,
            )),
        }
    }

    /// Precision, gradients' format and optimizer. Under Megatron-LM's
    /// accounting with BF16 the gradients are fp32 whatever is asked: Megatron
    /// accumulates and all-reduces them in fp32 for bfloat16
    /// (`megatron/training/arguments.py` sets
    /// `accumulate_allreduce_grads_in_fp32`), 2 + 4 + 12 = 18 B per parameter
    /// as its own estimate counts, and twice the gradient traffic.
    pub fn recipe(&self) -> Recipe {
        let gradients = match (self.runtime.accounting, self.precision) {
            // FP8 runs with `--bf16` in Megatron-LM: its gradients too.
            (Accounting::Megatron, Precision::Bf16 | Precision::Fp8 | Precision::Fp8Params) => {
                crate::memory::GradientPrecision::Fp32
            }
            _ => self.gradients,
        };
        Recipe {
            precision: self.precision,
            gradients,
            optimizer: self.optimizer,
            autocast: self.amp,
            fp8_transpose: !self
                .gpu
                .is_some_and(|g| g.generation == vram_shared::gpu::Generation::Blackwell),
            fp8_recipe: self.fp8_recipe,
        }
    }

    /// The per-GPU memory budget, or the first error among memory and overhead.
    pub fn budget(&self) -> Result<MemoryBudget, InputError> {
        Field::GpuMemory.check(self.gpu_mem_gb)?;
        Field::Overhead.check(self.overhead)?;
        Field::Context.check(self.runtime.context_gb)?;
        Ok(
            MemoryBudget::new(Bytes::from_gb(self.gpu_mem_gb), self.overhead)?
                .with_context(Bytes::from_gb(self.runtime.context_gb))?,
        )
    }

    /// Every figure for this configuration, or every input error, each naming its field.
    pub fn report(&self) -> Result<Report, Vec<InputError>> {
        match (self.setup(), self.budget()) {
            (Ok(setup), Ok(budget)) => {
                let mut report = Report::new(setup, budget, self.highlight);
                report.unit = self.unit;
                report.fine_tuning = self.fine_tuning;
                // Each data-parallel rank's share of the global batch, in micro-batches.
                let data_parallel = setup.gpus() / self.runtime.layout.cp;
                // Interleaved 1F1B runs only with microbatches a multiple of PP
                // (Megatron-LM's `schedules.py`).
                let layout = self.runtime.layout;
                report.accumulation_steps = self.global_batch.map(|global| {
                    let micro = self.model.map_or(1, |m| m.micro_batch);
                    Field::GlobalBatch.check(f64::from(global))?;
                    Field::MicroBatch.check(f64::from(micro))?;
                    let steps = accumulation_steps(global, micro, data_parallel);
                    steps.map_err(InputError::from).and_then(|m| {
                        match layout.vpp > 1 && m % layout.pp != 0 {
                            true => Err(Field::GlobalBatch.error(InputErrorKind::NotPerStage {
                                microbatches: m,
                                pp: layout.pp,
                            })),
                            false => Ok(m),
                        }
                    })
                });
                let microbatches = report.accumulation_steps.and_then(Result::ok);
                // The microbatches a micro-batch of b sequences gives, as above.
                let microbatches_of = |b: u32| {
                    let global = self.global_batch?;
                    accumulation_steps(global, b, data_parallel)
                        .ok()
                        .filter(|&m| layout.vpp == 1 || m % layout.pp == 0)
                };
                report.place(
                    &self.runtime,
                    self.gpus,
                    self.model.as_ref(),
                    &microbatches_of,
                );
                // Megatron-LM's own figures, with its number of microbatches
                // (1 without a global batch: its default global batch is
                // micro-batch × DP).
                self.time_steps(&mut report, microbatches.unwrap_or(1));
                Ok(report)
            }
            (setup, budget) => Err([setup.err(), budget.err()].into_iter().flatten().collect()),
        }
    }
}

/// The pipeline's split keys that Megatron-LM's `TransformerConfig` refuses
/// together (`__post_init__`, core 0.15 to main, commit d98e8a6): uneven
/// first and last stages beside the embedding or the loss counted in the
/// split, and a pipeline layout beside any of them; each refused at the
/// later key, naming the other.
fn check_stage_keys(layout: &Layout) -> Result<(), InputError> {
    let uneven = [
        (Field::PpFirst, layout.first_layers.is_some()),
        (Field::PpLast, layout.last_layers.is_some()),
    ];
    let accounted = [
        (Field::PpEmbedding, layout.embedding_in_split),
        (Field::PpLoss, layout.loss_in_split),
    ];
    let first_set = |keys: &[(Field, bool)]| keys.iter().find(|(_, set)| *set).map(|(f, _)| *f);
    if layout.stage_map.is_some() {
        if let Some(other) = first_set(&uneven).or(first_set(&accounted)) {
            return Err(Field::PpLayout.error(InputErrorKind::NotWith(other)));
        }
    }
    if let (Some(other), Some(counted)) = (first_set(&uneven), first_set(&accounted)) {
        return Err(counted.error(InputErrorKind::NotWith(other)));
    }
    Ok(())
}
