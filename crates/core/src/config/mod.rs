//! A whole configuration as the page, the shared link and the CLI hold it:
//! every input, in the units the user types them in. What it computes is in
//! [`crate::report`]; [`parts`] which parts of the page a link shows.

pub mod job;
pub mod parts;
pub mod rl;

use crate::frameworks::hf::{Attention, Framework};
use crate::frameworks::runtime::Runtime;
use crate::memory::activations::{ActivationSetup, Checkpointing, Recompute, RecomputeModules};
use crate::memory::finetune::FineTuning;
use crate::memory::{GradientPrecision, Optimizer, Precision, Strategy};
use crate::time::Speed;
use parts::Parts;
use vram_shared::format::{Lang, MemoryUnit, Theme};
use vram_shared::gpu::GpuPreset;
use vram_shared::model::architecture::Architecture;
use vram_shared::model::presets::ModelPreset;
use vram_shared::units::ParamCount;

/// A model given by its architecture, and how a step runs: what activations need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpec {
    /// The preset the architecture starts from; what the link cannot carry
    /// (biases, norm, position embeddings) comes from it.
    pub base: &'static ModelPreset,
    /// The architecture.
    pub architecture: Architecture,
    /// Sequence length in tokens.
    pub seq_len: u32,
    /// Micro-batch per GPU, in sequences.
    pub micro_batch: u32,
    /// What the backward pass recomputes.
    pub recompute: Recompute,
    /// Which layers full recomputation checkpoints.
    pub checkpointing: Checkpointing,
    /// Which modules selective recomputation rebuilds.
    pub recompute_modules: RecomputeModules,
    /// Whether attention runs as FlashAttention.
    pub flash_attention: bool,
    /// The attention and hidden dropout probability (0: none, as the presets train).
    pub dropout: f64,
    /// Whose activation accounting: Korthikanti's (Megatron-LM), Hugging Face's or LitGPT's.
    pub framework: Framework,
    /// transformers' attention implementation; without it, `flash_attention` decides
    /// (SDPA's flash kernel, or eager).
    pub attention: Option<Attention>,
    /// How the loss holds the logits (Megatron-LM's fused cross-entropy, or
    /// PyTorch's over an fp32 copy).
    pub loss: crate::memory::activations::Loss,
    /// Whether the run's first step is its longest, so that no earlier
    /// step's graph is alive at that length (lit-gpt's loop of 2023 feeds
    /// the longest example first, `finetune/lora.py`: `get_batch(...,
    /// longest_seq_ix if iter_num == 0 else None)`); LitGPT's accounting.
    pub longest_first: bool,
    /// The routed experts' capacity factor (1: uniform routing).
    pub capacity: f64,
    /// Expert parallelism: the routed experts divided over this many ranks,
    /// their states sharded over the expert-data-parallel group (GPUs ÷ EP).
    pub ep: u32,
}

impl ModelSpec {
    /// This model without what goes beyond a dense model's defaults: no head
    /// size of its own, q/k norms, experts or latent attention, uniform
    /// routing, no expert parallelism, no dropout, Megatron's activation
    /// accounting and no attention implementation named. A link writes a
    /// field of these only where the model differs from this.
    pub fn dense(self) -> ModelSpec {
        ModelSpec {
            architecture: vram_shared::model::presets::dense(self.architecture),
            capacity: 1.0,
            ep: 1,
            dropout: 0.0,
            loss: crate::memory::activations::Loss::Fused,
            longest_first: false,
            framework: Framework::Megatron,
            attention: None,
            checkpointing: Checkpointing::EVERY_LAYER,
            recompute_modules: RecomputeModules::CORE_ATTENTION,
            ..self
        }
    }

    /// The preset `preset` with a 2,048-token sequence, micro-batch 1,
    /// FlashAttention and no recomputation.
    pub const fn of(preset: &'static ModelPreset) -> Self {
        ModelSpec {
            base: preset,
            architecture: preset.architecture,
            seq_len: 2048,
            micro_batch: 1,
            recompute: Recompute::None,
            checkpointing: Checkpointing::EVERY_LAYER,
            recompute_modules: RecomputeModules::CORE_ATTENTION,
            flash_attention: true,
            dropout: 0.0,
            framework: Framework::Megatron,
            attention: None,
            loss: crate::memory::activations::Loss::Fused,
            longest_first: false,
            capacity: 1.0,
            ep: 1,
        }
    }

    /// The attention implementation Hugging Face runs: the chosen one, or SDPA
    /// with FlashAttention on and eager without.
    pub fn hf_attention(&self) -> Attention {
        self.attention.unwrap_or(match self.flash_attention {
            true => Attention::Sdpa,
            false => Attention::Eager,
        })
    }

    /// Whether the attention's core runs as one fused kernel: FlashAttention
    /// under Megatron-LM's accounting; under Hugging Face's, every
    /// implementation but eager; under LitGPT's, SDPA but for Gemma 2's
    /// soft-capped attention.
    pub fn fused_attention(&self) -> bool {
        match self.framework {
            Framework::Hf => self.hf_attention() != Attention::Eager,
            Framework::LitGpt => !self.architecture.logit_softcap,
            Framework::Megatron => self.flash_attention,
        }
    }

    /// The architecture's exact parameter count in billions, the unit of the
    /// link's `params` and the form's model size.
    pub fn params_billions(&self) -> f64 {
        ParamCount::new(self.architecture.param_count() as f64).billions()
    }

    /// The preset, if the architecture is still exactly its; `None` once edited (custom).
    pub fn preset(&self) -> Option<&'static ModelPreset> {
        (self.architecture == self.base.architecture).then_some(self.base)
    }

    /// The activation setup of `training`: values of its precision's width;
    /// with dropout, masks of one byte per value, as on a GPU (Korthikanti et
    /// al. 2022); with LoRA or QLoRA, the frozen base's linears keep no input
    /// of their own ([`crate::memory::finetune::Adapters::frozen_inputs`]).
    pub fn activation_setup(&self, training: &crate::memory::TrainingSetup) -> ActivationSetup {
        let precision = training.precision();
        ActivationSetup {
            seq_len: self.seq_len,
            micro_batch: self.micro_batch,
            bytes_per_value: precision.bytes_per_param(),
            flash_attention: self.flash_attention,
            recompute: self.recompute,
            checkpointing: self.checkpointing,
            modules: self.recompute_modules,
            dropout: self.dropout > 0.0,
            capacity: self.capacity,
            fp8: precision.is_fp8(),
            fp8_scales: match precision.is_fp8() {
                true => training.recipe().fp8_recipe.activation_scale_bytes(),
                false => 0.0,
            },
            frozen: training
                .adapters()
                .map_or(crate::memory::activations::FrozenInputs::NONE, |a| {
                    a.frozen_inputs()
                }),
            loss: self.loss,
        }
    }
}

/// Every input of the calculator, in the units the user types them in.
///
/// The default is the lesson's example: 7 B parameters, 8 GPUs of 80 GB, FP16,
/// Adam, 20 % reserved, DDP highlighted.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// The model's architecture, if given: its exact parameter count replaces
    /// `params_billions`, and activations are counted.
    pub model: Option<ModelSpec>,
    /// The GPU preset whose memory `gpu_mem_gb` holds, if one was chosen.
    pub gpu: Option<&'static GpuPreset>,
    /// Global batch size in sequences, for the gradient-accumulation steps.
    pub global_batch: Option<u32>,
    /// The unit memory is shown in (figures stay in bytes).
    pub unit: MemoryUnit,
    /// The page's colours.
    pub theme: Theme,
    /// The page's language.
    pub lang: Lang,
    /// Whether the page sits in an iframe of another page (compact, reports its height).
    pub embed: bool,
    /// The parts of the page shown (`show`); all by default.
    pub show: Parts,
    /// Whether the page can be changed (`controls`); without, a read-only figure
    /// with a link to the whole calculator.
    pub controls: bool,
    /// Accounting, offload, nodes, buffers and bandwidth; `gpus` is then per node.
    pub runtime: Runtime,
    /// What the step's time assumes: throughput, links, tokens and price.
    pub speed: Speed,
    /// What is trained: every parameter, or LoRA/QLoRA adapters on a frozen base.
    pub fine_tuning: FineTuning,
    /// Whether the mixed precision runs under autocast (`amp`): fp32 weights
    /// and gradients, no master copy (docs/formulas.md).
    pub amp: bool,
    /// How FP8 scales its tensors (`fp8_recipe`; ignored outside FP8).
    pub fp8_recipe: crate::memory::Fp8Recipe,
    /// What is planned: training (the default) or serving.
    pub job: job::Job,
    /// How the model is served, under `job=serve`, and its rollouts under `job=rl`.
    pub serve: vram_serve::options::ServeOptions,
    /// The RL run, under `job=rl`.
    pub rl: rl::RlOptions,
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
            model: None,
            gpu: None,
            global_batch: None,
            unit: MemoryUnit::Gb,
            theme: Theme::Auto,
            lang: Lang::Auto,
            embed: false,
            show: Parts::ALL,
            controls: true,
            runtime: Runtime::default(),
            speed: Speed::DEFAULT,
            fine_tuning: FineTuning::default(),
            amp: false,
            fp8_recipe: crate::memory::Fp8Recipe::Delayed,
            job: job::Job::Train,
            serve: vram_serve::options::ServeOptions::default(),
            rl: rl::RlOptions::default(),
        }
    }
}
