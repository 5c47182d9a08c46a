//! Every field the user sets, each declared once.
//!
//! A field's declaration ([`Declaration`]) holds everything about it: its link
//! key (also the CLI's option and the form control's `name`), its label, the
//! kind of value it takes (a number in a [`Unit`] within limits, a choice, a
//! preset), when the form uses it ([`Scope`]), when the link writes it
//! ([`Written`]), and how it reads from and writes into a [`Config`]. The link
//! codec, the form, the CLI's options and help, and the JSON's configuration
//! all walk [`Field::ALL`] and ask each field's declaration; none lists fields
//! of its own.
//!
//! The declarations stand in the order the link writes its keys: links written
//! before stay byte for byte the same.
//!
//! This file is the table; beside it: [`value`] the kinds of value and the
//! declaration's shape, the field's accessors (`accessors.rs`), [`error`] what
//! can be wrong with an input, and [`percent`] fractions typed as percentages.

mod accessors;
pub mod error;
pub mod percent;
pub mod value;

pub use error::*;
pub use percent::{parse_percent, percent_text};
pub use value::*;

use core::fmt;

use crate::config::job::{Job, Jobs};
use crate::config::parts::{Part, Parts};
use crate::config::rl::{Algo, Logits, Placement, Reference, Reward, RlFramework};
use crate::config::{Config, ModelSpec};
use crate::frameworks::deepspeed::Offload;
use crate::frameworks::hf::{Attention, Framework};
use crate::frameworks::runtime::{Accounting, OffloadDevice, Sharding};
use crate::memory::activations::{
    Recompute, RecomputeMethod, RecomputeModule, RecomputeModules as RecomputeModuleSet,
};
use crate::memory::stage_map::StageMap;
use vram_serve::kv_cache::{KvCacheDtype, VllmRelease};
use vram_serve::options::{Engine, WEIGHT_FORMATS};
use vram_serve::weights::WeightFormat;
use vram_shared::decimal::shortest_decimal;
use vram_shared::format::{Lang, MemoryUnit, Theme};
use vram_shared::gpu::gpu_preset;

use crate::memory::finetune::{AdapterDtype, BnbRelease, Method, Quant, Targets};
use crate::memory::{GradientPrecision, Optimizer, Precision, Strategy};
use vram_shared::model::architecture::{Biases, Mlp, Norm, QkNorm as QkNormKind};
use vram_shared::model::presets::model_preset;

/// The link keys of an enum's choices, in the order of its `ALL`, from its
/// `const fn key`: a declaration takes its choices from the enum, so the two
/// cannot drift.
macro_rules! keys_of {
    ($ty:ty) => {
        keys_of!(in <$ty>::ALL)
    };
    (in $all:expr) => {{
        const KEYS: [&str; $all.len()] = {
            let mut keys = [""; $all.len()];
            let mut i = 0;
            while i < keys.len() {
                keys[i] = $all[i].key();
                i += 1;
            }
            keys
        };
        &KEYS
    }};
}

/// Megatron-LM's names of the modules selective recomputation rebuilds.
const RECOMPUTE_MODULE_KEYS: &[&str] = keys_of!(RecomputeModule);

/// Declares `Field`, `Field::ALL` and every field's [`Declaration`] from one
/// list, so that nothing about a field is written twice.
macro_rules! fields {
    ($($(#[doc = $doc:literal])* $name:ident in $section:ident($rank:literal) => $declaration:expr,)*) => {
        /// An input that the user sets, by a form control, a link key or a CLI option.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Field { $($(#[doc = $doc])* $name,)* }

        impl Field {
            /// Every field, in the order of its declaration (the order the link
            /// writes them): `Field::ALL[f.index()] == f`.
            pub const ALL: [Field; [$(Field::$name),*].len()] = [$(Field::$name),*];

            /// What the field is, as its declaration's doc comment says it, one
            /// line a source line: docs/links.md's key table (`vram --keys`).
            /// Only the CLI asks, so the page's WebAssembly links none of it.
            fn doc_lines(self) -> &'static str {
                match self { $(Field::$name => concat!($($doc, "\n"),*),)* }
            }

            /// Where the page's form shows the field: its section, and its
            /// rank there (lower first), written beside its name in the table.
            pub const fn place(self) -> Place {
                match self { $(Field::$name => Place { section: Section::$section, rank: $rank },)* }
            }
        }

        /// Every field's declaration, at its index.
        static DECLARATIONS: [Declaration; Field::ALL.len()] = [$($declaration,)*];
    };
}

fields! {
    // The lesson's inputs, in every link.

    /// Model size, in billions of parameters.
    Params in Model(20) => Declaration {
        key: "params",
        value: number(Unit::BillionsOfParams, 0.001, 1e6),
        scope: Scope::WithoutModel,
        written: Written::Always,
        read: |c| shortest_decimal(c.model.map_or(c.params_billions, |m| m.params_billions())),
        write: |c, f, t| set(&mut c.params_billions, f.parse_number(without_billions_suffix(t))),
        ..BASE
    },
    /// Number of GPUs per node.
    Gpus in Cluster(10) => Declaration {
        key: "gpus",
        value: count(Unit::Gpus, 1.0, 1_048_576.0),
        written: Written::Always,
        read: |c| c.gpus.to_string(),
        write: |c, f, t| set(&mut c.gpus, f.parse_count(t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Memory per GPU, in GB (10^9 bytes).
    GpuMemory in Gpu(20) => Declaration {
        key: "gpu_mem",
        value: number(Unit::Gb, 0.1, 1e4),
        written: Written::Always,
        filled_by: Some(Field::Gpu),
        read: |c| shortest_decimal(c.gpu_mem_gb),
        write: |c, f, t| {
            let gb = f.parse_number(t)?;
            // Another memory than the chosen GPU's makes the GPU custom; its
            // own, exact or as the form shows it, keeps the GPU and its
            // exact memory.
            match c.gpu {
                Some(gpu) if gb == gpu.memory().gb() || gb == gpu.memory_gb_shown() => {
                    c.gpu_mem_gb = gpu.memory().gb();
                }
                _ => {
                    c.gpu = None;
                    c.gpu_mem_gb = gb;
                }
            }
            Ok(())
        },
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Precision of weights and gradients.
    Precision in Recipe(10) => Declaration {
        set_aside: Jobs::LEARN,
        key: "dtype",
        value: Value::Choice(keys_of!(Precision)),
        written: Written::Always,
        read: |c| c.precision.key().to_string(),
        write: |c, f, t| set(&mut c.precision, pick(f, &Precision::ALL, Precision::key, t)),
        ..BASE
    },
    /// Format gradients are accumulated in.
    GradAcc in Step(10) => Declaration {
        needs: Some(chosen_gradients),
        key: "grad_acc",
        value: Value::Choice(keys_of!(GradientPrecision)),
        written: Written::Always,
        read: |c| c.gradients.key().to_string(),
        write: |c, f, t| {
            let all = &GradientPrecision::ALL;
            set(&mut c.gradients, pick(f, all, GradientPrecision::key, t))
        },
        ..BASE
    },
    /// Optimizer.
    Optimizer in Recipe(30) => Declaration {
        key: "opt",
        value: Value::Choice(keys_of!(Optimizer)),
        written: Written::Always,
        read: |c| c.optimizer.key().to_string(),
        write: |c, f, t| set(&mut c.optimizer, pick(f, &Optimizer::ALL, Optimizer::key, t)),
        ..BASE
    },
    /// Fraction of each GPU's memory held back for activations, buffers and the framework.
    Overhead in Cluster(50) => Declaration {
        key: "overhead",
        // 10^-9 is 80 bytes of 80 GB: finer fractions mean nothing in memory,
        // and every accepted fraction reads back from its shortest decimal.
        value: fine(Unit::ReservedFraction, 0.95, OVERHEAD_RESOLUTION),
        written: Written::Always,
        percent: true,
        read: |c| shortest_decimal(c.overhead),
        write: |c, f, t| set(&mut c.overhead, f.parse_number(t)),
        ..BASE
    },
    /// Strategy shown highlighted.
    Stage in Parallel(10) => Declaration {
        key: "stage",
        value: Value::Choice(keys_of!(Strategy)),
        written: Written::Always,
        read: |c| c.highlight.key().to_string(),
        write: |c, f, t| set(&mut c.highlight, pick(f, &Strategy::ALL, Strategy::key, t)),
        ..BASE
    },

    // Presets, written when chosen.

    /// GPU preset.
    Gpu in Gpu(10) => Declaration {
        key: "gpu",
        optional: true,
        unset: |c| c.gpu = None,
        written: Written::WhenSet,
        read: |c| c.gpu.map(|g| g.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            let gpu = gpu_preset(&choice(t)).ok_or(f.error(InputErrorKind::UnknownChoice))?;
            c.gpu = Some(gpu);
            c.gpu_mem_gb = gpu.memory().gb();
            Ok(())
        },
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Model preset, or none for a bare size.
    Model in Model(10) => Declaration {
        key: "model",
        optional: true,
        unset: |c| c.model = None,
        written: Written::WithModel,
        read: |c| c.model.map(|m| m.base.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            let preset = model_preset(&choice(t)).ok_or(f.error(InputErrorKind::UnknownChoice))?;
            // The step (sequence, micro-batch, recomputation) stays as it was.
            let mut model = c.model.unwrap_or(ModelSpec::of(preset));
            model.base = preset;
            model.architecture = preset.architecture;
            c.model = Some(model);
            // Served as its checkpoint ships (a link before version 3 without
            // `weights` keeps 16 bits: `link::decode`).
            c.serve.weights = WeightFormat::shipped(preset.id);
            Ok(())
        },
        jobs: Jobs::ALL,
        ..BASE
    },

    // A model's architecture (filled by its preset) and its step.

    /// Transformer layers.
    Layers in Architecture(10) => architecture(
        "layers", count(Unit::Count, 1.0, 10_000.0),
        |c| model_count(c, |m| m.architecture.layers),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.layers),
    ),
    /// Hidden size.
    Hidden in Architecture(20) => architecture(
        "hidden", count(Unit::Features, 1.0, 1_048_576.0),
        |c| model_count(c, |m| m.architecture.hidden),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.hidden),
    ),
    /// FFN (intermediate) size.
    Ffn in Architecture(30) => architecture(
        "ffn", count(Unit::Features, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.ffn),
    ),
    /// Attention heads.
    Heads in Architecture(40) => architecture(
        "heads", count(Unit::Count, 1.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.heads),
    ),
    /// Key/value heads.
    KvHeads in Architecture(50) => architecture(
        "kv_heads", count(Unit::Count, 1.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.kv_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.kv_heads),
    ),
    /// Vocabulary size.
    Vocab in Architecture(60) => architecture(
        "vocab", count(Unit::Tokens, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.vocab),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.vocab),
    ),
    /// Whether the output head is tied to the embedding.
    Tied in Architecture(80) => architecture(
        "tied", FLAG,
        |c| model_flag(c, |m| m.architecture.tied_embeddings),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.tied_embeddings),
    ),
    /// MLP kind.
    Mlp in Architecture(70) => architecture(
        "mlp", Value::Choice(keys_of!(Mlp)),
        |c| model_text(c, |m| m.architecture.mlp.key().to_string()),
        |c, f, t| {
            let mlp = pick(f, &Mlp::ALL, Mlp::key, t)?;
            edit_model(c, f, |m| m.architecture.mlp = mlp)
        },
    ),
    /// Sequence length, in tokens.
    Seq in Step(20) => Declaration {
        // RL's sequence is its prompt and response.
        jobs: Jobs::TRAIN,
        ..step(
            "seq", count(Unit::Tokens, 1.0, 1e7),
            |c| model_count(c, |m| m.seq_len),
            |c, f, t| edit_count(c, f, t, |m| &mut m.seq_len),
        )
    },
    /// Micro-batch per GPU, in samples.
    MicroBatch in Step(30) => step(
        "mbs", count(Unit::Sequences, 1.0, 16_777_216.0),
        |c| model_count(c, |m| m.micro_batch),
        |c, f, t| edit_count(c, f, t, |m| &mut m.micro_batch),
    ),
    /// Activation recomputation.
    Recompute in Step(50) => step(
        "recompute", Value::Choice(keys_of!(Recompute)),
        |c| model_text(c, |m| m.recompute.key().to_string()),
        |c, f, t| {
            let recompute = pick(f, &Recompute::ALL, Recompute::key, t)?;
            edit_model(c, f, |m| m.recompute = recompute)
        },
    ),
    /// FlashAttention.
    Flash in Step(80) => step(
        "flash", FLAG,
        |c| model_flag(c, |m| m.flash_attention),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.flash_attention),
    ),

    // How the step is accounted, written where it differs from a dense model's default.

    /// The attention and hidden dropout probability.
    Dropout in Step(90) => Declaration {
        written: Written::WhenNotDense,
        ..step(
            "dropout", number(Unit::Probability, 0.0, 0.95),
            |c| model_text(c, |m| shortest_decimal(m.dropout)),
            |c, f, t| {
                let p = f.parse_number(t)?;
                edit_model(c, f, |m| m.dropout = p)
            },
        )
    },
    /// Whose activation accounting: Megatron-LM's (Korthikanti), Hugging Face's or LitGPT's.
    Framework in Framework(20) => Declaration {
        set_aside: Jobs::LEARN,
        written: Written::WhenNotDense,
        ..step(
            "framework", Value::Choice(keys_of!(Framework)),
            |c| model_text(c, |m| m.framework.key().to_string()),
            |c, f, t| {
                let framework = pick(f, &Framework::ALL, Framework::key, t)?;
                edit_model(c, f, |m| m.framework = framework)
            },
        )
    },
    /// transformers' attention implementation.
    Attention in Framework(30) => Declaration {
        written: Written::WhenNotDense,
        optional: true,
        unset: |c| {
            if let Some(model) = &mut c.model {
                model.attention = None;
            }
        },
        ..step(
            "attn",
            Value::Choice(keys_of!(Attention)),
            |c| model_text(c, |m| m.attention.map(|a| a.key().to_string()).unwrap_or_default()),
            |c, f, t| {
                let attention = pick(f, &Attention::ALL, Attention::key, t)?;
                edit_model(c, f, |m| m.attention = Some(attention))
            },
        )
    },
    /// How the loss holds the logits: Megatron-LM's fused cross-entropy,
    /// PyTorch's over an fp32 copy (torchtitan without a compiled loss) or
    /// compiled (torchtitan's `[compile]` with the loss), or chunked.
    Loss in Framework(35) => Declaration {
        set_aside: Jobs::TRAIN,
        written: Written::WhenNotDense,
        ..step(
            "loss",
            Value::Choice(keys_of!(crate::memory::activations::Loss)),
            |c| model_text(c, |m| m.loss.key().to_string()),
            |c, f, t| {
                use crate::memory::activations::Loss;
                let loss = pick(f, &Loss::ALL, Loss::key, t)?;
                edit_model(c, f, |m| m.loss = loss)
            },
        )
    },
    /// Whether the run's first step is its longest, no earlier step's graph
    /// alive at that length (lit-gpt's loop of 2023); LitGPT's accounting.
    LongestFirst in Framework(36) => Declaration {
        set_aside: Jobs::TRAIN,
        written: Written::WhenNotDense,
        needs: Some(|t| t(Field::Framework) == "litgpt"),
        ..step(
            "longest_first",
            FLAG,
            |c| model_text(c, |m| flag_text(m.longest_first)),
            |c, f, t| {
                let first = parse_flag(f, t)?;
                edit_model(c, f, |m| m.longest_first = first)
            },
        )
    },

    // The architecture beyond Llama's: written where not a dense model's default.

    /// Width of one attention head, when not hidden ÷ heads (0: hidden ÷ heads).
    HeadDim in BeyondLlama(10) => beyond_dense(
        "head_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.head_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.head_dim),
    ),
    /// The norms on q and k: none, a head's width (Qwen3), full width (OLMo 2).
    QkNorm in BeyondLlama(20) => beyond_dense(
        "qk_norm", Value::Choice(keys_of!(QkNormKind)),
        |c| model_text(c, |m| m.architecture.qk_norm.key().to_string()),
        |c, f, t| {
            let kind = pick(f, &QkNormKind::ALL, QkNormKind::key, t)?;
            edit_model(c, f, |m| m.architecture.qk_norm = kind)
        },
    ),
    /// Routed experts per MoE layer (0: a dense model).
    Experts in BeyondLlama(100) => beyond_dense(
        "experts", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.experts),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.experts),
    ),
    /// Routed experts each token goes to.
    TopK in BeyondLlama(110) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "top_k", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.top_k),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.top_k),
    )
    },
    /// Width of a routed expert's MLP.
    ExpertFfn in BeyondLlama(120) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "expert_ffn", count(Unit::Features, 0.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.moe.expert_ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.expert_ffn),
    )
    },
    /// Shared experts every token goes through.
    SharedExperts in BeyondLlama(130) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_experts", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.moe.shared_experts),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.shared_experts),
    )
    },
    /// Width of each shared expert's MLP.
    SharedFfn in BeyondLlama(140) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_ffn", count(Unit::Features, 0.0, 16_777_216.0),
        |c| model_count(c, |m| m.architecture.moe.shared_ffn),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.shared_ffn),
    )
    },
    /// Whether the shared expert has Qwen2-MoE's gate.
    SharedGate in BeyondLlama(150) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "shared_gate", FLAG,
        |c| model_flag(c, |m| m.architecture.moe.shared_gate),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.moe.shared_gate),
    )
    },
    /// Leading layers with a dense MLP (DeepSeek's `first_k_dense_replace`).
    DenseLayers in BeyondLlama(170) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "dense_layers", count(Unit::Count, 0.0, 10_000.0),
        |c| model_count(c, |m| m.architecture.moe.dense_layers),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.moe.dense_layers),
    )
    },
    /// Latent attention's query rank (`q_lora_rank`; 0: direct queries).
    QRank in BeyondLlama(190) => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "q_rank", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.q_rank),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.q_rank),
    )
    },
    /// Latent attention's key/value rank (`kv_lora_rank`; 0: no latent attention).
    KvRank in BeyondLlama(200) => beyond_dense(
        "kv_rank", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.kv_rank),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.kv_rank),
    ),
    /// Latent attention's rotary part of each query and key head.
    RopeDim in BeyondLlama(210) => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "rope_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.rope_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.rope_dim),
    )
    },
    /// Latent attention's part of each query and key head without position.
    NopeDim in BeyondLlama(220) => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "nope_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.nope_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.nope_dim),
    )
    },
    /// Latent attention's value head width.
    VDim in BeyondLlama(230) => Declaration {
        needs: Some(with_latent_attention),
        ..beyond_dense(
        "v_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.mla.v_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mla.v_dim),
    )
    },
    /// The routed experts' capacity factor (1: uniform routing).
    Capacity in BeyondLlama(180) => Declaration {
        needs: Some(with_experts),
        filled_by: None,
        jobs: Jobs::LEARN,
        ..beyond_dense(
            "capacity", number(Unit::RoutingMultiple, 1.0, 64.0),
            |c| model_text(c, |m| shortest_decimal(m.capacity)),
            |c, f, t| {
                let factor = f.parse_number(t)?;
                edit_model(c, f, |m| m.capacity = factor)
            },
        )
    },
    /// Expert parallelism: the ranks the routed experts are divided over.
    Ep in Parallel(100) => Declaration {
        set_aside: Jobs::ALL,
        needs: Some(with_experts),
        filled_by: None,
        ..beyond_dense(
            "ep", count(Unit::Ranks, 1.0, 65_536.0),
            |c| model_count(c, |m| m.ep),
            |c, f, t| edit_count(c, f, t, |m| &mut m.ep),
        )
    },
    /// Learned position embeddings (GPT-2's `n_positions`; 0 for rotary).
    Positions in BeyondLlama(90) => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "positions", count(Unit::Positions, 0.0, 1e7),
            |c| model_count(c, |m| m.architecture.learned_positions),
            |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.learned_positions),
        )
    },

    // The batch, and how the page shows what it computes.

    /// Global batch size, in samples.
    GlobalBatch in Step(40) => Declaration {
        jobs: Jobs::TRAIN,
        key: "global_batch",
        value: count(Unit::Sequences, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.global_batch = None,
        written: Written::WhenSet,
        read: |c| c.global_batch.map(|b| b.to_string()).unwrap_or_default(),
        write: |c, f, t| set(&mut c.global_batch, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The unit memory is shown in.
    Unit in Display(10) => Declaration {
        key: "unit",
        value: Value::Choice(keys_of!(MemoryUnit)),
        read: |c| c.unit.key().to_string(),
        write: |c, f, t| set(&mut c.unit, pick(f, &MemoryUnit::ALL, MemoryUnit::key, t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Light or dark colours.
    Theme in Display(30) => Declaration {
        key: "theme",
        value: Value::Choice(keys_of!(Theme)),
        read: |c| c.theme.key().to_string(),
        write: |c, f, t| set(&mut c.theme, pick(f, &Theme::ALL, Theme::key, t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// The page's language.
    Lang in Display(20) => Declaration {
        key: "lang",
        value: Value::Choice(keys_of!(Lang)),
        read: |c| c.lang.key().to_string(),
        write: |c, f, t| set(&mut c.lang, pick(f, &Lang::ALL, Lang::key, t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Compact layout for an iframe in another page.
    Embed in LinkOnly(0) => Declaration {
        key: "embed",
        value: FLAG,
        read: |c| flag_text(c.embed),
        write: |c, f, t| set(&mut c.embed, parse_flag(f, t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Which parts of the page are shown (a list of [`Part`]s).
    Show in LinkOnly(0) => Declaration {
        key: "show",
        value: Value::List(&PART_KEYS),
        read: |c| c.show.key(),
        write: |c, f, t| {
            let parts = Parts::from_key(&choice(t));
            set(&mut c.show, parts.ok_or(f.error(InputErrorKind::UnknownChoice)))
        },
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Whether the page can be changed: `0` shows a read-only figure.
    Controls in LinkOnly(0) => Declaration {
        key: "controls",
        value: FLAG,
        read: |c| flag_text(c.controls),
        write: |c, f, t| set(&mut c.controls, parse_flag(f, t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// How FP8 scales its tensors (Megatron-LM's `--fp8-recipe`): written
    /// where not `delayed`, its default.
    Fp8Recipe in Recipe(15) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| matches!(t(Field::Precision).as_str(), "fp8" | "fp8-params")),
        key: "fp8_recipe",
        value: Value::Choice(keys_of!(crate::memory::Fp8Recipe)),
        read: |c| c.fp8_recipe.key().to_string(),
        write: |c, f, t| {
            set(
                &mut c.fp8_recipe,
                pick(f, &crate::memory::Fp8Recipe::ALL, crate::memory::Fp8Recipe::key, t),
            )
        },
        ..BASE
    },
    /// Whether the mixed precision runs under autocast (fp32 weights).
    Amp in Recipe(20) => Declaration {
        set_aside: Jobs::LEARN,
        key: "amp",
        value: FLAG,
        read: |c| flag_text(c.amp),
        write: |c, f, t| set(&mut c.amp, parse_flag(f, t)),
        ..BASE
    },

    // How the training runs: DeepSpeed's accounting, offload, nodes and buffers.

    /// Whose accounting: the lesson's, DeepSpeed's estimator or Megatron-LM's.
    Accounting in Framework(10) => Declaration {
        set_aside: Jobs::LEARN,
        key: "acct",
        value: Value::Choice(keys_of!(Accounting)),
        read: |c| c.runtime.accounting.key().to_string(),
        write: |c, f, t| {
            let accounting = pick(f, &Accounting::ALL, Accounting::key, t);
            set(&mut c.runtime.accounting, accounting)
        },
        ..BASE
    },
    /// What is offloaded from the GPUs.
    Offload in Framework(40) => Declaration {
        key: "offload",
        value: Value::Choice(keys_of!(Offload)),
        read: |c| c.runtime.offload.key().to_string(),
        write: |c, f, t| set(&mut c.runtime.offload, pick(f, &Offload::ALL, Offload::key, t)),
        ..BASE
    },
    /// Where offloaded states go.
    OffloadTo in Framework(50) => Declaration {
        key: "offload_to",
        value: Value::Choice(keys_of!(OffloadDevice)),
        read: |c| c.runtime.offload_device.key().to_string(),
        write: |c, f, t| {
            let device = pick(f, &OffloadDevice::ALL, OffloadDevice::key, t);
            set(&mut c.runtime.offload_device, device)
        },
        ..BASE
    },
    /// Nodes, each with the configuration's GPUs.
    Nodes in Cluster(20) => Declaration {
        key: "nodes",
        value: count(Unit::Nodes, 1.0, 65_536.0),
        read: |c| c.runtime.nodes.to_string(),
        write: |c, f, t| set(&mut c.runtime.nodes, f.parse_count(t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Parameters of the largest layer, in millions.
    LargestLayer in Framework(80) => Declaration {
        set_aside: Jobs::LEARN,
        key: "largest_layer",
        value: fine(Unit::MillionsOfParams, 1e9, MILLIONS_RESOLUTION),
        optional: true,
        unset: |c| c.runtime.largest_layer_millions = None,
        scope: Scope::WithoutModel,
        read: |c| optional_text(c.runtime.largest_layer_millions),
        write: |c, f, t| set(&mut c.runtime.largest_layer_millions, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// DeepSpeed's `zero_init`.
    ZeroInit in Framework(90) => Declaration {
        key: "zero_init",
        value: FLAG,
        read: |c| flag_text(c.runtime.zero_init),
        write: |c, f, t| set(&mut c.runtime.zero_init, parse_flag(f, t)),
        ..BASE
    },
    /// Who shards the ZeRO-3 column: DeepSpeed or PyTorch's FSDP2.
    Sharding in Framework(100) => Declaration {
        set_aside: Jobs::LEARN,
        key: "sharding",
        value: Value::Choice(keys_of!(Sharding)),
        read: |c| c.runtime.sharding.key().to_string(),
        write: |c, f, t| set(&mut c.runtime.sharding, pick(f, &Sharding::ALL, Sharding::key, t)),
        ..BASE
    },
    /// Whether DeepSpeed's communication buffers are counted.
    Buffers in Framework(110) => Declaration {
        key: "buffers",
        value: FLAG,
        read: |c| flag_text(c.runtime.buffers),
        write: |c, f, t| set(&mut c.runtime.buffers, parse_flag(f, t)),
        ..BASE
    },
    /// DeepSpeed's `reduce_bucket_size`, in millions of elements.
    ReduceBucket in Framework(120) => Declaration {
        needs: Some(with_buffers),
        key: "reduce_bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.reduce_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.reduce_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `allgather_bucket_size`, in millions of elements.
    AllgatherBucket in Framework(130) => Declaration {
        needs: Some(with_buffers),
        key: "allgather_bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.allgather_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.allgather_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `stage3_prefetch_bucket_size`, in millions of elements.
    PrefetchBucket in Framework(140) => Declaration {
        needs: Some(with_buffers),
        key: "prefetch_bucket",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.prefetch_bucket),
        write: |c, f, t| set(&mut c.runtime.buffer_sizes.prefetch_bucket, f.parse_number(t)),
        ..BASE
    },
    /// DeepSpeed's `stage3_max_live_parameters`, in millions of elements.
    MaxLive in Framework(150) => Declaration {
        needs: Some(with_buffers),
        key: "max_live",
        value: fine(Unit::MillionsOfElements, 1e6, MILLIONS_RESOLUTION),
        read: |c| shortest_decimal(c.runtime.buffer_sizes.max_live_parameters),
        write: |c, f, t| {
            set(&mut c.runtime.buffer_sizes.max_live_parameters, f.parse_number(t))
        },
        ..BASE
    },
    /// Bandwidth per GPU, in GB/s.
    Bandwidth in Framework(160) => Declaration {
        key: "bw",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        unset: |c| c.runtime.bandwidth_gb_per_s = None,
        read: |c| optional_text(c.runtime.bandwidth_gb_per_s),
        write: |c, f, t| set(&mut c.runtime.bandwidth_gb_per_s, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// DeepSpeed's `additional_buffer_factor` on its CPU figures.
    BufferFactor in Framework(70) => Declaration {
        needs: Some(|t| t(Field::Accounting) == "deepspeed"),
        key: "buffer_factor",
        value: number(Unit::Multiples, 1.0, 100.0),
        read: |c| shortest_decimal(c.runtime.buffer_factor),
        write: |c, f, t| set(&mut c.runtime.buffer_factor, f.parse_number(t)),
        ..BASE
    },
    /// The CUDA context and allocator reserve per GPU, in GB.
    Context in Process(60) => Declaration {
        set_aside: Jobs::RL,
        key: "context",
        value: number(Unit::GbPerGpu, 0.0, 1000.0),
        read: |c| shortest_decimal(c.runtime.context_gb),
        write: |c, f, t| set(&mut c.runtime.context_gb, f.parse_number(t)),
        ..BASE
    },

    // What is trained.

    /// What is trained: every parameter, LoRA or QLoRA adapters.
    Method in FineTuning(10) => Declaration {
        set_aside: Jobs::RL,
        key: "method",
        value: Value::Choice(keys_of!(Method)),
        read: |c| c.fine_tuning.method.key().to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.method, pick(f, &Method::ALL, Method::key, t)),
        ..BASE
    },
    /// The adapters' rank.
    Rank in FineTuning(20) => Declaration {
        needs: Some(with_adapters),
        key: "rank",
        value: count(Unit::Count, 1.0, 65_536.0),
        read: |c| c.fine_tuning.rank.to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.rank, f.parse_count(t)),
        ..BASE
    },
    /// Which linear layers get adapters.
    Targets in FineTuning(30) => Declaration {
        set_aside: Jobs::RL,
        needs: Some(with_adapters),
        key: "targets",
        value: Value::Choice(keys_of!(Targets)),
        read: |c| c.fine_tuning.targets.key().to_string(),
        write: |c, f, t| {
            set(&mut c.fine_tuning.targets, pick(f, &Targets::ALL, Targets::key, t))
        },
        ..BASE
    },
    /// How QLoRA stores the frozen base's linear weights.
    Quant in FineTuning(70) => Declaration {
        needs: Some(with_qlora),
        key: "quant",
        value: Value::Choice(keys_of!(Quant)),
        read: |c| c.fine_tuning.quant.key().to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.quant, pick(f, &Quant::ALL, Quant::key, t)),
        ..BASE
    },
    /// Whether QLoRA's NF4 constants are quantised too.
    DoubleQuant in FineTuning(80) => Declaration {
        needs: Some(|t| with_qlora(t) && t(Field::Quant) == "nf4"),
        key: "double_quant",
        value: FLAG,
        read: |c| flag_text(c.fine_tuning.double_quant),
        write: |c, f, t| set(&mut c.fine_tuning.double_quant, parse_flag(f, t)),
        ..BASE
    },
    /// The bitsandbytes release the NF4 base runs on: `0.43.2` (and after,
    /// the default) or `0.43.1` (and before, when each 4-bit linear kept its
    /// input for the backward).
    Bnb in FineTuning(90) => Declaration {
        needs: Some(|t| with_qlora(t) && t(Field::Quant) == "nf4"),
        key: "bnb",
        value: Value::Choice(keys_of!(BnbRelease)),
        read: |c| c.fine_tuning.bnb.key().to_string(),
        write: |c, f, t| set(&mut c.fine_tuning.bnb, pick(f, &BnbRelease::ALL, BnbRelease::key, t)),
        ..BASE
    },

    /// The adapters' dropout probability (PEFT's `lora_dropout`).
    LoraDropout in FineTuning(40) => Declaration {
        needs: Some(with_adapters),
        key: "lora_dropout",
        value: number(Unit::Probability, 0.0, 0.95),
        read: |c| shortest_decimal(c.fine_tuning.lora_dropout),
        write: |c, f, t| set(&mut c.fine_tuning.lora_dropout, f.parse_number(t)),
        ..BASE
    },
    /// The adapters' dtype on a 16-bit base (PEFT's `autocast_adapter_dtype`).
    AdapterDtype in FineTuning(50) => Declaration {
        needs: Some(with_adapters),
        key: "adapter_dtype",
        value: Value::Choice(keys_of!(AdapterDtype)),
        read: |c| c.fine_tuning.adapter_dtype.key().to_string(),
        write: |c, f, t| {
            set(
                &mut c.fine_tuning.adapter_dtype,
                pick(f, &AdapterDtype::ALL, AdapterDtype::key, t),
            )
        },
        ..BASE
    },
    /// DoRA: a magnitude a row of each adapted weight (PEFT's `use_dora`).
    Dora in FineTuning(60) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(with_adapters),
        key: "dora",
        value: FLAG,
        read: |c| flag_text(c.fine_tuning.dora),
        write: |c, f, t| set(&mut c.fine_tuning.dora, parse_flag(f, t)),
        ..BASE
    },

    // The layout over the GPUs (with a model) and what the step's time assumes.

    /// Tensor-parallel size, in GPUs.
    Tp in Parallel(30) => Declaration {
        set_aside: Jobs::ALL,
        key: "tp",
        value: count(Unit::Gpus, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.tp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.tp, f.parse_count(t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Pipeline-parallel stages.
    Pp in Parallel(40) => Declaration {
        set_aside: Jobs::ALL,
        key: "pp",
        value: count(Unit::Stages, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.pp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.pp, f.parse_count(t)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Virtual pipeline stages per pipeline rank (interleaved 1F1B).
    Vpp in Parallel(50) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "vpp",
        value: count(Unit::StagesPerRank, 1.0, 1024.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.vpp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.vpp, f.parse_count(t)),
        ..BASE
    },
    /// Context-parallel size, in GPUs.
    Cp in Parallel(80) => Declaration {
        set_aside: Jobs::LEARN,
        key: "cp",
        value: count(Unit::Gpus, 1.0, 65_536.0),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.cp.to_string(),
        write: |c, f, t| set(&mut c.runtime.layout.cp, f.parse_count(t)),
        ..BASE
    },
    /// How context parallelism exchanges the sequence (Megatron-LM's
    /// `--cp-comm-type`): `p2p`, ring attention, or `a2a`, Ulysses'
    /// all-to-alls of the heads (DeepSpeed-Ulysses, verl).
    CpComm in Parallel(85) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Cp, "1")),
        key: "cp_comm",
        value: Value::Choice(keys_of!(crate::memory::parallel::CpComm)),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.cp_comm.key().to_string(),
        write: |c, f, t| {
            use crate::memory::parallel::CpComm;
            set(&mut c.runtime.layout.cp_comm, pick(f, &CpComm::ALL, CpComm::key, t))
        },
        ..BASE
    },
    /// The routed experts' tensor parallelism (Megatron-LM's
    /// `--expert-tensor-parallel-size`): `tp`, split as the layers, or `1`,
    /// whole on each GPU with EP over the TP ranks too.
    Etp in Parallel(87) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Tp, "1") && beyond(t, Field::Experts, "0")),
        key: "etp",
        value: Value::Choice(keys_of!(crate::memory::parallel::ExpertTp)),
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.expert_tp.key().to_string(),
        write: |c, f, t| {
            use crate::memory::parallel::ExpertTp;
            set(&mut c.runtime.layout.expert_tp, pick(f, &ExpertTp::ALL, ExpertTp::key, t))
        },
        ..BASE
    },
    /// Sequence parallelism (with tensor parallelism).
    Sp in Parallel(90) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Tp, "1")),
        key: "sp",
        value: FLAG,
        scope: Scope::WithModel,
        read: |c| flag_text(c.runtime.layout.sp),
        write: |c, f, t| set(&mut c.runtime.layout.sp, parse_flag(f, t)),
        ..BASE
    },
    /// The kernels' efficiency: the fraction of the GPU's peak every kernel
    /// reaches, when typed; unset, the kernel model's (`time::efficiency`).
    Mfu in Speed(10) => Declaration {
        key: "mfu",
        value: number(Unit::FractionOfPeak, 0.01, 1.0),
        optional: true,
        unset: |c| c.speed.kernel_model = true,
        read: |c| match c.speed.kernel_model {
            true => String::new(),
            false => shortest_decimal(c.speed.mfu),
        },
        write: |c, f, t| {
            let typed = f.parse_number(t)?;
            c.speed.mfu = typed;
            c.speed.kernel_model = false;
            Ok(())
        },
        ..BASE
    },
    /// The GPU's dense 16-bit tensor peak, in TFLOP/s (10^12 per second).
    Tflops in Speed(20) => Declaration {
        key: "tflops",
        value: number(Unit::Tflops, 0.001, 1e6),
        optional: true,
        unset: |c| c.speed.tflops = None,
        read: |c| optional_text(c.speed.tflops),
        write: |c, f, t| set(&mut c.speed.tflops, f.parse_number(t).map(Some)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Bandwidth per GPU within a node (NVLink), in GB/s of 10^9 bytes, each way.
    Nvlink in Cluster(30) => Declaration {
        key: "nvlink",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        unset: |c| c.speed.nvlink_gb_per_s = None,
        read: |c| optional_text(c.speed.nvlink_gb_per_s),
        write: |c, f, t| set(&mut c.speed.nvlink_gb_per_s, f.parse_number(t).map(Some)),
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Bandwidth per GPU between nodes (the network), in GB/s of 10^9 bytes.
    Network in Cluster(40) => Declaration {
        key: "net",
        value: number(Unit::GbPerSecond, 0.001, 1e6),
        optional: true,
        unset: |c| c.speed.network_gb_per_s = None,
        read: |c| optional_text(c.speed.network_gb_per_s),
        write: |c, f, t| {
            set(&mut c.speed.network_gb_per_s, f.parse_number(t).map(Some))
        },
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Training tokens, in billions.
    Tokens in Speed(50) => Declaration {
        jobs: Jobs::TRAIN,
        key: "tokens",
        value: number(Unit::BillionsOfTokens, 0.000_001, 1e6),
        optional: true,
        unset: |c| c.speed.tokens_billions = None,
        read: |c| optional_text(c.speed.tokens_billions),
        write: |c, f, t| set(&mut c.speed.tokens_billions, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// Price of one GPU-hour, in the user's currency.
    Price in Speed(60) => Declaration {
        key: "price",
        value: number(Unit::PerGpuHour, 0.0, 1e6),
        optional: true,
        unset: |c| c.speed.price_per_gpu_hour = None,
        read: |c| optional_text(c.speed.price_per_gpu_hour),
        write: |c, f, t| {
            set(&mut c.speed.price_per_gpu_hour, f.parse_number(t).map(Some))
        },
        jobs: Jobs::ALL,
        ..BASE
    },
    /// Which linear layers have biases (Qwen2's q/k/v, GPT-2's every one):
    /// written where it differs from the model's preset, as for a pasted
    /// `config.json` that matches none.
    Biases in BeyondLlama(30) => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "biases", Value::Choice(keys_of!(Biases)),
            |c| model_text(c, |m| m.architecture.biases.key().to_string()),
            |c, f, t| {
                let biases = pick(f, &Biases::ALL, Biases::key, t)?;
                edit_model(c, f, |m| m.architecture.biases = biases)
            },
        )
    },
    /// RMSNorm or LayerNorm (with its bias vector): written where it differs
    /// from the model's preset.
    Norm in BeyondLlama(40) => Declaration {
        written: Written::WhenNotPreset,
        ..architecture(
            "norm", Value::Choice(keys_of!(Norm)),
            |c| model_text(c, |m| m.architecture.norm.key().to_string()),
            |c, f, t| {
                let norm = pick(f, &Norm::ALL, Norm::key, t)?;
                edit_model(c, f, |m| m.architecture.norm = norm)
            },
        )
    },
    /// Whether the data-parallel gradient reduction overlaps the last
    /// microbatch's backward pass (Megatron-LM's `--overlap-grad-reduce`,
    /// DeepSpeed's `overlap_comm`); off, as both ship it below ZeRO-3.
    OverlapGrad in Speed(40) => Declaration {
        key: "overlap_grad",
        value: FLAG,
        read: |c| flag_text(c.speed.overlap_grad),
        write: |c, f, t| set(&mut c.speed.overlap_grad, parse_flag(f, t)),
        ..BASE
    },
    /// The throughput a paper or a log reports, TFLOP/s per GPU of the FLOPs
    /// the GPUs run (Narayanan et al.'s count, recomputation included): it
    /// gives the step's time directly, bubble and communication included.
    Achieved in Speed(30) => Declaration {
        set_aside: Jobs::LEARN,
        key: "achieved",
        value: number(Unit::Tflops, 0.001, 1e6),
        optional: true,
        unset: |c| c.speed.achieved_tflops = None,
        read: |c| optional_text(c.speed.achieved_tflops),
        write: |c, f, t| set(&mut c.speed.achieved_tflops, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// How full recomputation groups each model chunk's layers (Megatron-LM's
    /// `--recompute-method`): written where it is not `uniform`.
    RecomputeMethod in Step(60) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(full_recompute),
        written: Written::WhenNotDense,
        ..step(
            "recompute_method", Value::Choice(keys_of!(RecomputeMethod)),
            |c| model_text(c, |m| m.checkpointing.method.key().to_string()),
            |c, f, t| {
                let method = pick(f, &RecomputeMethod::ALL, RecomputeMethod::key, t)?;
                edit_model(c, f, |m| m.checkpointing.method = method)
            },
        )
    },
    /// The modules selective recomputation rebuilds (Megatron-LM's
    /// `--recompute-modules`): written where not `core_attn` alone.
    RecomputeModules in Step(55) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| t(Field::Recompute) == "selective"),
        written: Written::WhenNotDense,
        ..step(
            "recompute_modules",
            Value::List(RECOMPUTE_MODULE_KEYS),
            |c| model_text(c, |m| m.recompute_modules.key()),
            |c, f, t| {
                let modules = RecomputeModuleSet::from_key(t)
                    .ok_or(f.error(InputErrorKind::UnknownChoice))?;
                edit_model(c, f, |m| m.recompute_modules = modules)
            },
        )
    },
    /// Layers per recomputed group (uniform) or recomputed layers per chunk
    /// (block), Megatron-LM's `--recompute-num-layers`: written where not 1.
    RecomputeLayers in Step(70) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(full_recompute),
        written: Written::WhenNotDense,
        ..step(
            "recompute_layers", count(Unit::Count, 1.0, 10_000.0),
            |c| model_count(c, |m| m.checkpointing.layers),
            |c, f, t| edit_count(c, f, t, |m| &mut m.checkpointing.layers),
        )
    },
    /// GPUs per sharding group: ZeRO shards within each group and replicates
    /// across them (PyTorch's HSDP, DeepSpeed's MiCS, Megatron-FSDP).
    ShardGroup in Parallel(20) => Declaration {
        set_aside: Jobs::LEARN,
        key: "shard_group",
        value: count(Unit::Gpus, 1.0, 1_048_576.0),
        optional: true,
        unset: |c| c.runtime.shard_group = None,
        read: |c| optional_count(c.runtime.shard_group),
        write: |c, f, t| set(&mut c.runtime.shard_group, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The first pipeline stage's transformer layers, when not an even share
    /// (Megatron-LM's `--decoder-first-pipeline-num-layers`).
    PpFirst in Parallel(60) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_first",
        value: count(Unit::Count, 1.0, 10_000.0),
        optional: true,
        unset: |c| c.runtime.layout.first_layers = None,
        scope: Scope::WithModel,
        read: |c| optional_count(c.runtime.layout.first_layers),
        write: |c, f, t| set(&mut c.runtime.layout.first_layers, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The last pipeline stage's transformer layers, when not an even share
    /// (`--decoder-last-pipeline-num-layers`).
    PpLast in Parallel(70) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_last",
        value: count(Unit::Count, 1.0, 10_000.0),
        optional: true,
        unset: |c| c.runtime.layout.last_layers = None,
        scope: Scope::WithModel,
        read: |c| optional_count(c.runtime.layout.last_layers),
        write: |c, f, t| set(&mut c.runtime.layout.last_layers, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// Four norms a layer, around the attention and the MLP (Gemma 2 and 3).
    SandwichNorms in BeyondLlama(50) => beyond_dense(
        "sandwich_norms", FLAG,
        |c| model_flag(c, |m| m.architecture.sandwich_norms),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.sandwich_norms),
    ),
    /// Attention sinks, a learned logit a head (gpt-oss).
    Sinks in BeyondLlama(80) => beyond_dense(
        "sinks", FLAG,
        |c| model_flag(c, |m| m.architecture.attention_sinks),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.attention_sinks),
    ),
    /// Soft-capped output logits (Gemma 2).
    Softcap in BeyondLlama(70) => beyond_dense(
        "softcap", FLAG,
        |c| model_flag(c, |m| m.architecture.logit_softcap),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.logit_softcap),
    ),
    /// The attention and the MLP in parallel on one norm (Cohere).
    ParallelBlock in BeyondLlama(60) => beyond_dense(
        "parallel", FLAG,
        |c| model_flag(c, |m| m.architecture.parallel_block),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.parallel_block),
    ),
    /// Biases on the router and the experts (gpt-oss).
    ExpertBiases in BeyondLlama(160) => Declaration {
        needs: Some(with_experts),
        ..beyond_dense(
        "expert_bias", FLAG,
        |c| model_flag(c, |m| m.architecture.moe.biased),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.moe.biased),
    )
    },
    /// The attention's output gated by a second half of the query
    /// projection (Qwen3-Next).
    GatedAttention in BeyondLlama(240) => beyond_dense(
        "attn_gate", FLAG,
        |c| model_flag(c, |m| m.architecture.gated_attention),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.gated_attention),
    ),
    /// Full attention every n-th layer, linear attention (Gated DeltaNet) in
    /// the others (Qwen3-Next's `full_attention_interval`; 0: no linear attention).
    FullEvery in BeyondLlama(250) => beyond_dense(
        "full_every", count(Unit::Count, 0.0, 10_001.0),
        |c| model_count(c, |m| m.architecture.linear.full_every),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.full_every),
    ),
    /// Linear attention's key heads.
    LinearKeyHeads in BeyondLlama(260) => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_k_heads", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.k_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.k_heads),
    )
    },
    /// Linear attention's value heads.
    LinearValueHeads in BeyondLlama(270) => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_v_heads", count(Unit::Count, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.v_heads),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.v_heads),
    )
    },
    /// Linear attention's key head size.
    LinearKeyDim in BeyondLlama(280) => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_k_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.k_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.k_dim),
    )
    },
    /// Linear attention's value head size.
    LinearValueDim in BeyondLlama(290) => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_v_dim", count(Unit::Features, 0.0, 65_536.0),
        |c| model_count(c, |m| m.architecture.linear.v_dim),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.v_dim),
    )
    },
    /// Linear attention's causal convolution width.
    ConvKernel in BeyondLlama(300) => Declaration {
        needs: Some(with_linear_attention),
        ..beyond_dense(
        "lin_conv", count(Unit::Count, 0.0, 1_024.0),
        |c| model_count(c, |m| m.architecture.linear.conv_kernel),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.linear.conv_kernel),
    )
    },
    /// Local attention's window in tokens (a sliding window, or Llama 4's
    /// chunks); 0: every layer global.
    Window in BeyondLlama(310) => beyond_dense(
        "window", count(Unit::Tokens, 0.0, 1e7),
        |c| model_count(c, |m| m.architecture.local.window),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.local.window),
    ),
    /// Global attention every n-th layer, local in the others (0: none global).
    GlobalEvery in BeyondLlama(320) => Declaration {
        needs: Some(with_local_attention),
        ..beyond_dense(
        "global_every", count(Unit::Count, 0.0, 10_001.0),
        |c| model_count(c, |m| m.architecture.local.global_every),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.local.global_every),
    )
    },
    /// Chunks of the window's length instead of a sliding window (Llama 4).
    Chunked in BeyondLlama(330) => Declaration {
        needs: Some(with_local_attention),
        ..beyond_dense(
        "chunked", FLAG,
        |c| model_flag(c, |m| m.architecture.local.chunked),
        |c, f, t| edit_flag(c, f, t, |m| &mut m.architecture.local.chunked),
    )
    },
    /// Multi-token-prediction layers trained beside the model (Megatron-LM's
    /// `--mtp-num-layers`; DeepSeek-V3 trained 1): 0, as transformers runs it.
    Mtp in BeyondLlama(340) => beyond_dense(
        "mtp", count(Unit::Count, 0.0, 16.0),
        |c| model_count(c, |m| m.architecture.mtp_layers),
        |c, f, t| edit_count(c, f, t, |m| &mut m.architecture.mtp_layers),
    ),
    /// The memory per node that offload goes to (the host's RAM, or its
    /// NVMe with `offload_to=nvme`): what bounds the largest model once the
    /// GPUs hold nothing per parameter (ZeRO-Infinity).
    HostMemory in Framework(60) => Declaration {
        key: "host_mem",
        value: number(Unit::Gb, 1.0, 1e7),
        optional: true,
        unset: |c| c.runtime.host_mem_gb = None,
        // Offload's bound; in RL also the sleeping engine's and the reference's.
        needs: Some(|t| beyond(t, Field::Offload, "none") || t(Field::Job) == "rl"),
        read: |c| optional_text(c.runtime.host_mem_gb),
        write: |c, f, t| set(&mut c.runtime.host_mem_gb, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// Whether ZeRO-1/2's gather of the updated weights overlaps the next
    /// step's first forward pass (Megatron-LM's `--overlap-param-gather`,
    /// which needs `--overlap-grad-reduce`: `overlap_grad=1`); off, as
    /// Megatron ships it.
    OverlapParam in Speed(45) => Declaration {
        key: "overlap_param",
        value: FLAG,
        needs: Some(|t| t(Field::OverlapGrad) == "1"),
        read: |c| flag_text(c.speed.overlap_param),
        write: |c, f, t| set(&mut c.speed.overlap_param, parse_flag(f, t)),
        ..BASE
    },

    // The job, and how a model is served (`job=serve`): written where not
    // their defaults, so that every link before them keeps its meaning.

    /// What is planned: `train` (training or fine-tuning, the default),
    /// `serve` (an inference engine's memory and speed) or `rl` (RL
    /// post-training: the trainer and the rollout engine on the same GPUs).
    Job in Job(10) => Declaration {
        key: "job",
        value: Value::Choice(keys_of!(Job)),
        jobs: Jobs::ALL,
        read: |c| c.job.key().to_string(),
        write: |c, f, t| set(&mut c.job, pick(f, &Job::ALL, Job::key, t)),
        ..BASE
    },
    /// The inference engine whose allocation is reproduced: vLLM's v1
    /// engine, SGLang or TensorRT-LLM's PyTorch backend; under RL the
    /// rollout's (any of them under verl, vLLM's otherwise).
    Engine in Serving(10) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "engine",
        value: Value::Choice(keys_of!(Engine)),
        // RL's rollout engine too: SGLang's under verl, vLLM's otherwise
        // (`Config::rl_engine`).
        jobs: Jobs::GENERATE,
        read: |c| c.serve.engine.key().to_string(),
        write: |c, f, t| set(&mut c.serve.engine, pick(f, &Engine::ALL, Engine::key, t)),
        ..BASE
    },
    /// The vLLM release whose arithmetic and defaults apply (`0.19.1`,
    /// `0.20.0`, `0.34.0`); written in every serving and RL link, so a link keeps its
    /// release when a newer one becomes the default; absent from such a
    /// link (written before the key): `0.20.0`.
    EngineVersion in Serving(15) => Declaration {
        key: "engine_version",
        value: Value::Choice(keys_of!(VllmRelease)),
        jobs: Jobs::GENERATE,
        written: Written::ForItsJobs,
        needs: Some(with_vllm),
        read: |c| c.serve.vllm_release.key().to_string(),
        write: |c, f, t| set(&mut c.serve.vllm_release, pick(f, &VllmRelease::ALL, VllmRelease::key, t)),
        ..BASE
    },
    /// How the checkpoint stores its weights: 16-bit, FP8 per tensor or in
    /// 128 × 128 blocks, INT8, AWQ/GPTQ INT4 (groups of 128), NF4, MXFP4
    /// (gpt-oss's experts), NVFP4; unset: as the model's checkpoint ships
    /// (DeepSeek-V3 `fp8-block`, gpt-oss `mxfp4`, others `bf16`; in a link
    /// before version 3, `bf16`).
    Weights in Serving(20) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "weights",
        value: Value::Choice(keys_of!(in WEIGHT_FORMATS)),
        jobs: Jobs::SERVE,
        filled_by: Some(Field::Model),
        written: Written::WhenNotFilled,
        read: |c| c.serve.weights.key().to_string(),
        write: |c, f, t| set(&mut c.serve.weights, pick(f, &WEIGHT_FORMATS, WeightFormat::key, t)),
        ..BASE
    },
    /// The KV cache's element type (`--kv-cache-dtype`): `auto`, the
    /// model's 16 bits, or `fp8`, one byte a value.
    KvDtype in Serving(30) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "kv_dtype",
        value: Value::Choice(keys_of!(KvCacheDtype)),
        jobs: Jobs::SERVE,
        read: |c| c.serve.kv_dtype.key().to_string(),
        write: |c, f, t| set(&mut c.serve.kv_dtype, pick(f, &KvCacheDtype::ALL, KvCacheDtype::key, t)),
        ..BASE
    },
    /// The longest sequence served (`--max-model-len`), in tokens; unset:
    /// the model's own context, as vLLM defaults it.
    MaxLen in Serving(40) => Declaration {
        set_aside: Jobs::SERVE,
        key: "max_len",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.serve.max_len = None,
        jobs: Jobs::SERVE,
        read: |c| optional_count(c.serve.max_len),
        write: |c, f, t| set(&mut c.serve.max_len, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// A request's prompt, in tokens (the time to its first token, and
    /// with the response what each sequence holds).
    PromptLen in Serving(50) => Declaration {
        set_aside: Jobs::RL,
        key: "prompt_len",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        jobs: Jobs::GENERATE,
        read: |c| c.serve.prompt_len.to_string(),
        write: |c, f, t| set(&mut c.serve.prompt_len, f.parse_count(t)),
        ..BASE
    },
    /// A request's response, in tokens.
    ResponseLen in Serving(60) => Declaration {
        set_aside: Jobs::RL,
        key: "response_len",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        jobs: Jobs::GENERATE,
        read: |c| c.serve.response_len.to_string(),
        write: |c, f, t| set(&mut c.serve.response_len, f.parse_count(t)),
        ..BASE
    },
    /// Sequences decoded at once on each replica; unset: as many as the
    /// KV cache and the engine's `max_num_seqs` hold.
    Concurrency in Serving(70) => Declaration {
        key: "concurrency",
        value: count(Unit::Sequences, 1.0, 1_048_576.0),
        optional: true,
        unset: |c| c.serve.concurrency = None,
        jobs: Jobs::SERVE,
        read: |c| optional_count(c.serve.concurrency),
        write: |c, f, t| set(&mut c.serve.concurrency, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The fraction of each GPU the engine may take (vLLM's
    /// `--gpu-memory-utilization`, SGLang's `--mem-fraction-static`,
    /// TensorRT-LLM's `free_gpu_memory_fraction`); unset: the engine's default.
    GpuUtil in Engine(10) => Declaration {
        key: "gpu_util",
        value: number(Unit::ReservedFraction, 0.01, 1.0),
        optional: true,
        unset: |c| c.serve.gpu_util = None,
        jobs: Jobs::GENERATE,
        read: |c| optional_text(c.serve.gpu_util),
        write: |c, f, t| set(&mut c.serve.gpu_util, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// The KV cache's bytes on each GPU given directly, in GB (vLLM's
    /// `--kv-cache-memory-bytes`); unset: what the engine's budget leaves.
    KvMemory in Engine(20) => Declaration {
        set_aside: Jobs::SERVE,
        key: "kv_memory",
        value: number(Unit::GbPerGpu, 0.001, 1e4),
        optional: true,
        unset: |c| c.serve.kv_memory_gb = None,
        jobs: Jobs::SERVE,
        read: |c| optional_text(c.serve.kv_memory_gb),
        write: |c, f, t| set(&mut c.serve.kv_memory_gb, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// What the engine measured on each GPU at start-up (issue 66: a log
    /// read), `w7.13,r1.6,g0.54,tp2,pp1` in GiB
    /// ([`vram_serve::options::Measured`]): the serving report's own terms
    /// at that layout; unset: the page's arithmetic alone.
    Measured in Engine(25) => Declaration {
        set_aside: Jobs::SERVE,
        key: "measured",
        value: Value::Text { value_name: "TERMS" },
        optional: true,
        unset: |c| c.serve.measured = None,
        jobs: Jobs::SERVE,
        read: |c| c.serve.measured.map(|m| m.text()).unwrap_or_default(),
        write: |c, f, t| {
            c.serve.measured = match t.trim() {
                "" => None,
                text => Some(
                    vram_serve::options::Measured::parse(text)
                        .map_err(|_| f.error(InputErrorKind::MeasuredTerms))?,
                ),
            };
            Ok(())
        },
        ..BASE
    },
    /// Tokens per KV block (`--block-size`, SGLang's `--page-size`);
    /// unset: the engine's (vLLM's attention backend's, SGLang's 1,
    /// TensorRT-LLM's 32).
    Block in Engine(30) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "block",
        value: count(Unit::TokensPerBlock, 1.0, 1024.0),
        optional: true,
        unset: |c| c.serve.block = None,
        jobs: Jobs::SERVE,
        read: |c| optional_count(c.serve.block),
        write: |c, f, t| set(&mut c.serve.block, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// Tokens a step schedules at most (`--max-num-batched-tokens`,
    /// SGLang's `--chunked-prefill-size`); unset: the engine's default for
    /// the GPU.
    BatchedTokens in Engine(40) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "batched_tokens",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.serve.batched_tokens = None,
        jobs: Jobs::GENERATE,
        read: |c| optional_count(c.serve.batched_tokens),
        write: |c, f, t| set(&mut c.serve.batched_tokens, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// Sequences a step runs at most on each replica (vLLM's
    /// `--max-num-seqs`, SGLang's `--max-running-requests`, TensorRT-LLM's
    /// `max_batch_size`); unset: the engine's default for the GPU.
    MaxNumSeqs in Engine(45) => Declaration {
        set_aside: Jobs::GENERATE,
        key: "max_num_seqs",
        value: count(Unit::Sequences, 1.0, 1_048_576.0),
        optional: true,
        unset: |c| c.serve.max_num_seqs = None,
        jobs: Jobs::GENERATE,
        read: |c| optional_count(c.serve.max_num_seqs),
        write: |c, f, t| set(&mut c.serve.max_num_seqs, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// Whether the engine captures CUDA graphs (`0`: vLLM's
    /// `--enforce-eager`, SGLang's `--disable-cuda-graph`).
    CudaGraphs in Engine(50) => Declaration {
        key: "cuda_graphs",
        value: FLAG,
        jobs: Jobs::SERVE,
        read: |c| flag_text(c.serve.cuda_graphs),
        write: |c, f, t| set(&mut c.serve.cuda_graphs, parse_flag(f, t)),
        ..BASE
    },

    // RL post-training (`job=rl`): written where not their defaults.

    /// The algorithm: `grpo` (DAPO and RLOO are its shape), `ppo` (with a
    /// critic) or `dpo` (no rollouts).
    Algo in Rl(10) => Declaration {
        set_aside: Jobs::RL,
        key: "algo",
        value: Value::Choice(keys_of!(Algo)),
        jobs: Jobs::RL,
        read: |c| c.rl.algo.key().to_string(),
        write: |c, f, t| set(&mut c.rl.algo, pick(f, &Algo::ALL, Algo::key, t)),
        ..BASE
    },
    /// Prompts a step (verl's `data.train_batch_size`).
    Prompts in Rl(20) => Declaration {
        key: "prompts",
        value: count(Unit::Sequences, 1.0, 1_048_576.0),
        jobs: Jobs::RL,
        read: |c| c.rl.prompts.to_string(),
        write: |c, f, t| set(&mut c.rl.prompts, f.parse_count(t)),
        ..BASE
    },
    /// Responses generated a prompt (`rollout.n`).
    Rollouts in Rl(30) => Declaration {
        key: "rollouts",
        value: count(Unit::Sequences, 1.0, 1024.0),
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Algo) != "dpo"),
        read: |c| c.rl.rollouts.to_string(),
        write: |c, f, t| set(&mut c.rl.rollouts, f.parse_count(t)),
        ..BASE
    },
    /// The rollout engine's tensor parallelism (`rollout.tensor_model_parallel_size`);
    /// unset: the actor's TP.
    RolloutTp in Rl(40) => Declaration {
        set_aside: Jobs::RL,
        key: "rollout_tp",
        value: count(Unit::Gpus, 1.0, 65_536.0),
        optional: true,
        unset: |c| c.rl.rollout_tp = None,
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Algo) != "dpo"),
        read: |c| optional_count(c.rl.rollout_tp),
        write: |c, f, t| set(&mut c.rl.rollout_tp, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// vLLM's sleep level while the actor learns: `2` frees its weights and
    /// KV cache (verl's), `1` moves the weights to host RAM, `0` keeps the engine.
    Sleep in Rl(50) => Declaration {
        key: "sleep",
        value: Value::Choice(&["2", "1", "0"]),
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Algo) != "dpo" && t(Field::Placement) != "split"),
        read: |c| c.rl.sleep.to_string(),
        write: |c, f, t| {
            let level = pick(f, &[2u8, 1, 0], |l| match l { 0 => "0", 1 => "1", _ => "2" }, t);
            set(&mut c.rl.sleep, level)
        },
        ..BASE
    },
    /// The reference policy: a frozen `model`, the actor with its
    /// `adapters` disabled, `precomputed` log-probs, or `none` (no KL).
    Ref in Rl(60) => Declaration {
        set_aside: Jobs::RL,
        key: "ref",
        value: Value::Choice(keys_of!(Reference)),
        jobs: Jobs::RL,
        // Distillation's teacher takes the reference's place.
        needs: Some(|t| t(Field::Algo) != "distill"),
        read: |c| c.rl.reference.key().to_string(),
        write: |c, f, t| set(&mut c.rl.reference, pick(f, &Reference::ALL, Reference::key, t)),
        ..BASE
    },
    /// Whether the reference's weights wait in host RAM between its passes
    /// (`1`, as verl forces it).
    RefOffload in Rl(70) => Declaration {
        key: "ref_offload",
        value: FLAG,
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Ref) == "model" && t(Field::Algo) != "distill"),
        read: |c| flag_text(c.rl.ref_offload),
        write: |c, f, t| set(&mut c.rl.ref_offload, parse_flag(f, t)),
        ..BASE
    },
    /// Whether a critic is trained beside the actor; unset: PPO's.
    Critic in Rl(80) => Declaration {
        set_aside: Jobs::RL,
        key: "critic",
        value: FLAG,
        optional: true,
        unset: |c| c.rl.critic = None,
        jobs: Jobs::RL,
        read: |c| c.rl.critic.map(flag_text).unwrap_or_default(),
        write: |c, f, t| set(&mut c.rl.critic, parse_flag(f, t).map(Some)),
        ..BASE
    },
    /// The critic's base model, a preset, when it is not the actor's:
    /// counted as that model's body with a value head (no language-model
    /// head), trained as the actor is; unset: the actor's.
    CriticModel in Rl(81) => Declaration {
        set_aside: Jobs::RL,
        key: "critic_model",
        optional: true,
        unset: |c| c.rl.critic_model = None,
        jobs: Jobs::RL,
        needs: Some(|t| {
            t(Field::Critic) == "1" || (t(Field::Critic).is_empty() && t(Field::Algo) == "ppo")
        }),
        read: |c| c.rl.critic_model.map(|m| m.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            c.rl.critic_model = Some(known_model_preset(f, t)?);
            Ok(())
        },
        ..BASE
    },
    /// The reward: a `rule` (or verifier), or a reward `model` on the GPUs.
    Reward in Rl(90) => Declaration {
        key: "reward",
        value: Value::Choice(keys_of!(Reward)),
        jobs: Jobs::RL,
        read: |c| c.rl.reward.key().to_string(),
        write: |c, f, t| set(&mut c.rl.reward, pick(f, &Reward::ALL, Reward::key, t)),
        ..BASE
    },
    /// The reward model's base, a preset, when it is not the actor's:
    /// counted as that model's body with a score head, frozen in 16 bits;
    /// unset: the actor's.
    RewardModel in Rl(91) => Declaration {
        set_aside: Jobs::RL,
        key: "reward_model",
        optional: true,
        unset: |c| c.rl.reward_model = None,
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Reward) == "model"),
        read: |c| c.rl.reward_model.map(|m| m.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            c.rl.reward_model = Some(known_model_preset(f, t)?);
            Ok(())
        },
        ..BASE
    },
    /// Tokens a micro-batch packs (verl's `ppo_max_token_len_per_gpu` with
    /// `use_dynamic_bsz`); unset: `mbs` whole sequences.
    TokenBudget in Rl(100) => Declaration {
        set_aside: Jobs::RL,
        key: "token_budget",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.rl.token_budget = None,
        jobs: Jobs::RL,
        read: |c| optional_count(c.rl.token_budget),
        write: |c, f, t| set(&mut c.rl.token_budget, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The mean prompt the data has, in tokens: a micro-batch packs
    /// `mbs` sequences of the mean lengths (verl's `use_remove_padding`);
    /// unset: `prompt_len`, the longest.
    PromptMean in Rl(101) => Declaration {
        set_aside: Jobs::RL,
        key: "prompt_mean",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.rl.prompt_mean = None,
        jobs: Jobs::RL,
        read: |c| optional_count(c.rl.prompt_mean),
        write: |c, f, t| set(&mut c.rl.prompt_mean, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The mean response generated, in tokens; unset: `response_len`, the longest.
    ResponseMean in Rl(102) => Declaration {
        set_aside: Jobs::RL,
        key: "response_mean",
        value: count(Unit::Tokens, 1.0, 16_777_216.0),
        optional: true,
        unset: |c| c.rl.response_mean = None,
        jobs: Jobs::RL,
        read: |c| optional_count(c.rl.response_mean),
        write: |c, f, t| set(&mut c.rl.response_mean, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// How the entropy over the vocabulary is computed: `full` fp32
    /// terms, `chunked` (2,048 tokens at a time), or `fused` (no logits kept).
    Logits in Rl(110) => Declaration {
        key: "logits",
        value: Value::Choice(keys_of!(Logits)),
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Entropy) == "1" || t(Field::Algo) == "distill"),
        read: |c| c.rl.logits.key().to_string(),
        write: |c, f, t| set(&mut c.rl.logits, pick(f, &Logits::ALL, Logits::key, t)),
        ..BASE
    },
    /// Whether the loss has an entropy term (verl's `entropy_coeff` above 0).
    Entropy in Rl(105) => Declaration {
        key: "entropy",
        value: FLAG,
        jobs: Jobs::RL,
        read: |c| flag_text(c.rl.entropy),
        write: |c, f, t| set(&mut c.rl.entropy, parse_flag(f, t)),
        ..BASE
    },

    // How each process is launched: what nvidia-smi shows beside the peak.

    /// PyTorch's `expandable_segments` (`PYTORCH_CUDA_ALLOC_CONF`): the
    /// caching allocator's slack 5 % of the peak instead of 15 %.
    Expandable in Process(62) => Declaration {
        key: "expandable",
        jobs: Jobs::TRAIN,
        value: FLAG,
        read: |c| flag_text(c.runtime.process.expandable_segments),
        write: |c, f, t| set(&mut c.runtime.process.expandable_segments, parse_flag(f, t)),
        ..BASE
    },
    /// The caching allocator's slack beyond the step's peak, as measured
    /// (reserved ÷ allocated − 1); unset: 15 %, or 5 % with `expandable`.
    Slack in Process(64) => Declaration {
        set_aside: Jobs::RL,
        key: "slack",
        jobs: Jobs::TRAIN,
        value: number(Unit::FractionOfPeakMemory, 0.0, 2.0),
        optional: true,
        unset: |c| c.runtime.process.allocator_slack = None,
        percent: true,
        read: |c| optional_text(c.runtime.process.allocator_slack),
        write: |c, f, t| set(&mut c.runtime.process.allocator_slack, f.parse_number(t).map(Some)),
        ..BASE
    },
    /// NVLink SHARP's buffers on NVSwitch nodes (`NCCL_NVLS_ENABLE`).
    Nvls in Process(66) => Declaration {
        key: "nvls",
        jobs: Jobs::TRAIN,
        value: FLAG,
        read: |c| flag_text(c.runtime.process.nvls),
        write: |c, f, t| set(&mut c.runtime.process.nvls, parse_flag(f, t)),
        ..BASE
    },
    /// NCCL's buffers per communicator, in MiB, as measured (they change
    /// with `NCCL_BUFFSIZE` and `NCCL_MAX_NCHANNELS`); unset: 192.
    NcclMib in Process(68) => Declaration {
        key: "nccl_mib",
        jobs: Jobs::TRAIN,
        value: count(Unit::MibPerCommunicator, 0.0, 65_536.0),
        optional: true,
        unset: |c| c.runtime.process.nccl_mib = None,
        read: |c| optional_count(c.runtime.process.nccl_mib),
        write: |c, f, t| set(&mut c.runtime.process.nccl_mib, f.parse_count(t).map(Some)),
        ..BASE
    },

    // RL's framework, placement and teacher.

    /// Whose defaults fill what an RL run leaves unset (the rollout
    /// engine's memory fraction): `verl`, `openrlhf` or `trl`.
    RlFramework in Rl(5) => Declaration {
        key: "rl_framework",
        value: Value::Choice(keys_of!(RlFramework)),
        jobs: Jobs::RL,
        read: |c| c.rl.framework.key().to_string(),
        write: |c, f, t| set(&mut c.rl.framework, pick(f, &RlFramework::ALL, RlFramework::key, t)),
        ..BASE
    },
    /// Where the rollout engine runs: on the trainer's GPUs (`colocate`)
    /// or on GPUs of its own (`split`).
    Placement in Rl(45) => Declaration {
        key: "placement",
        value: Value::Choice(keys_of!(Placement)),
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Algo) != "dpo"),
        read: |c| c.rl.placement.key().to_string(),
        write: |c, f, t| set(&mut c.rl.placement, pick(f, &Placement::ALL, Placement::key, t)),
        ..BASE
    },
    /// The rollout engine's own GPUs under `placement=split`, in all;
    /// unset: one node's (`gpus`).
    RolloutGpus in Rl(46) => Declaration {
        set_aside: Jobs::RL,
        key: "rollout_gpus",
        value: count(Unit::Gpus, 1.0, 1_048_576.0),
        optional: true,
        unset: |c| c.rl.rollout_gpus = None,
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Placement) == "split" && t(Field::Algo) != "dpo"),
        read: |c| optional_count(c.rl.rollout_gpus),
        write: |c, f, t| set(&mut c.rl.rollout_gpus, f.parse_count(t).map(Some)),
        ..BASE
    },
    /// The frozen teacher under `algo=distill`: a model preset sharing the
    /// student's vocabulary.
    Teacher in Rl(15) => Declaration {
        set_aside: Jobs::RL,
        key: "teacher",
        optional: true,
        unset: |c| c.rl.teacher = None,
        jobs: Jobs::RL,
        needs: Some(|t| t(Field::Algo) == "distill"),
        read: |c| c.rl.teacher.map(|m| m.id.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            c.rl.teacher = Some(known_model_preset(f, t)?);
            Ok(())
        },
        ..BASE
    },
    /// The embedding counted as one more layer in the pipeline's split
    /// (Megatron-LM's `--account-for-embedding-in-pipeline-split`): the
    /// first rank's first virtual stage builds one transformer layer fewer.
    PpEmbedding in Parallel(72) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_embedding",
        value: FLAG,
        scope: Scope::WithModel,
        read: |c| flag_text(c.runtime.layout.embedding_in_split),
        write: |c, f, t| set(&mut c.runtime.layout.embedding_in_split, parse_flag(f, t)),
        ..BASE
    },
    /// The loss counted as one more layer (Megatron-LM's
    /// `--account-for-loss-in-pipeline-split`): the last rank's last virtual
    /// stage builds one fewer.
    PpLoss in Parallel(74) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_loss",
        value: FLAG,
        scope: Scope::WithModel,
        read: |c| flag_text(c.runtime.layout.loss_in_split),
        write: |c, f, t| set(&mut c.runtime.layout.loss_in_split, parse_flag(f, t)),
        ..BASE
    },
    /// Every virtual stage's layers (Megatron-LM's
    /// `--pipeline-model-parallel-layout`): PP × VPP stages in Megatron-LM's
    /// order, stage i being virtual stage i ÷ PP of rank i mod PP.
    PpLayout in Parallel(76) => Declaration {
        set_aside: Jobs::LEARN,
        needs: Some(|t| beyond(t, Field::Pp, "1")),
        key: "pp_layout",
        value: Value::Text { value_name: "LAYOUT" },
        optional: true,
        unset: |c| c.runtime.layout.stage_map = None,
        scope: Scope::WithModel,
        read: |c| c.runtime.layout.stage_map.map(|m| m.to_string()).unwrap_or_default(),
        write: |c, f, t| {
            let map = match t.trim() {
                "" => None,
                text => Some(StageMap::parse(text).map_err(|rule| {
                    f.error(InputErrorKind::Layout(LayoutProblem::StageLayout(rule)))
                })?),
            };
            c.runtime.layout.stage_map = map;
            Ok(())
        },
        ..BASE
    },
}

/// A model size as people write it, `7b` or `70B`: the number without its
/// `b` (the field is in billions already). Issue 47: "7b" was refused as not
/// a number.
fn without_billions_suffix(text: &str) -> &str {
    let text = text.trim();
    text.strip_suffix(['b', 'B']).unwrap_or(text)
}

/// An optional count's text: empty when unset.
fn optional_count(value: Option<u32>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

/// A field of a model's architecture: filled by the model's preset, written
/// whenever there is a model.
const fn architecture(key: &'static str, value: Value, read: Read, write: Write) -> Declaration {
    Declaration {
        key,
        value,
        scope: Scope::WithModel,
        written: Written::WithModel,
        filled_by: Some(Field::Model),
        jobs: Jobs::ALL,
        read,
        write,
        ..BASE
    }
}

/// A field of a model's training step: kept when another preset is chosen.
const fn step(key: &'static str, value: Value, read: Read, write: Write) -> Declaration {
    Declaration {
        filled_by: None,
        jobs: Jobs::LEARN,
        ..architecture(key, value, read, write)
    }
}

/// A field of the architecture beyond Llama's (a head size of its own, q/k
/// norms, experts, latent attention): written only where it is not a dense
/// model's default, so that links without it keep their meaning.
const fn beyond_dense(key: &'static str, value: Value, read: Read, write: Write) -> Declaration {
    Declaration {
        written: Written::WhenNotDense,
        ..architecture(key, value, read, write)
    }
}

/// The smallest non-zero reserved fraction: 10^-9 (80 bytes of 80 GB). Finer
/// fractions mean nothing in memory, and every accepted fraction then reads back
/// from its shortest decimal form exactly (see [`vram_shared::decimal`]).
pub const OVERHEAD_RESOLUTION: f64 = 1e-9;

/// The smallest non-zero count given in millions (a largest layer, a DeepSpeed
/// buffer): 10^-6, one parameter or one element. Finer values mean nothing, and
/// every accepted one reads back from its shortest decimal form exactly.
pub const MILLIONS_RESOLUTION: f64 = 1e-6;

/// The keys of [`Part::ALL`], the choices of [`Field::Show`].
const PART_KEYS: [&str; Part::ALL.len()] = {
    let mut keys = [""; Part::ALL.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = Part::ALL[i].key();
        i += 1;
    }
    keys
};

/// Whether `field`'s text is set and not `off` (`0` or `1` for a size, a count or a switch).
fn beyond(text: &dyn Fn(Field) -> String, field: Field, off: &str) -> bool {
    let text = text(field);
    let text = text.trim();
    !text.is_empty() && text != off
}

/// DeepSpeed's buffers are counted.
fn with_buffers(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Buffers) == "1"
}

/// Adapters are trained (LoRA or QLoRA).
fn with_adapters(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Method) != "full"
}

/// The gradients' format is the user's, except under Megatron-LM's
/// accounting with BF16, where Megatron keeps them in fp32 whatever is asked
/// ([`Config::recipe`]).
fn chosen_gradients(text: &dyn Fn(Field) -> String) -> bool {
    !(text(Field::Accounting) == "megatron" && matches!(&*text(Field::Precision), "bf16" | "fp8"))
}

/// QLoRA quantises the base.
fn with_qlora(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Method) == "qlora"
}

/// The model has routed experts.
/// The engine is vLLM (the default).
fn with_vllm(text: &dyn Fn(Field) -> String) -> bool {
    matches!(text(Field::Engine).as_str(), "" | "vllm")
}

fn with_experts(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::Experts, "0")
}

/// Full recomputation is chosen.
fn full_recompute(text: &dyn Fn(Field) -> String) -> bool {
    text(Field::Recompute) == "full"
}

/// The model has latent attention.
fn with_latent_attention(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::KvRank, "0")
}

/// Whether some layers may have linear attention (`full_every` set).
fn with_linear_attention(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::FullEvery, "0")
}

/// Whether some layers may attend locally (`window` set).
fn with_local_attention(text: &dyn Fn(Field) -> String) -> bool {
    beyond(text, Field::Window, "0")
}

/// Stores a parsed value.
fn set<T>(place: &mut T, value: Result<T, InputError>) -> Result<(), InputError> {
    *place = value?;
    Ok(())
}

/// The model preset named by `text` (not the custom one), for a field
/// that names another model than the one trained (a teacher, a critic, a
/// reward model).
fn known_model_preset(
    field: Field,
    text: &str,
) -> Result<&'static vram_shared::model::presets::ModelPreset, InputError> {
    model_preset(&choice(text))
        .filter(|m| m.id != vram_shared::model::presets::CUSTOM_MODEL.id)
        .ok_or(field.error(InputErrorKind::UnknownChoice))
}

/// A choice as typed, trimmed and in lowercase (`BF16 ` is `bf16`).
fn choice(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

/// The item of `all` whose key is `text`.
fn pick<T: Copy>(
    field: Field,
    all: &[T],
    key: fn(T) -> &'static str,
    text: &str,
) -> Result<T, InputError> {
    let text = choice(text);
    all.iter()
        .copied()
        .find(|&item| key(item) == text)
        .ok_or(field.error(InputErrorKind::UnknownChoice))
}

/// `1` or `0`.
fn flag_text(value: bool) -> String {
    if value { "1" } else { "0" }.to_string()
}

/// Reads `1` or `0`.
fn parse_flag(field: Field, text: &str) -> Result<bool, InputError> {
    match choice(text).as_str() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(field.error(InputErrorKind::UnknownChoice)),
    }
}

/// An optional number's shortest decimal, or nothing.
fn optional_text(value: Option<f64>) -> String {
    value.map(shortest_decimal).unwrap_or_default()
}

/// A text of the model, or nothing without one.
fn model_text(config: &Config, text: impl Fn(&ModelSpec) -> String) -> String {
    config.model.as_ref().map(text).unwrap_or_default()
}

/// A count of the model, or nothing without one.
fn model_count(config: &Config, count: fn(&ModelSpec) -> u32) -> String {
    model_text(config, |m| count(m).to_string())
}

/// A switch of the model, or nothing without one.
fn model_flag(config: &Config, flag: fn(&ModelSpec) -> bool) -> String {
    model_text(config, |m| flag_text(flag(m)))
}

/// The model the architecture and step keys start from when no `model` key
/// named one (and the one LoRA without a model trains).
pub const DEFAULT_ARCHITECTURE_PRESET: &str = "llama2-7b";

/// The model the architecture and step keys start from when no `model` key
/// named one: [`DEFAULT_ARCHITECTURE_PRESET`]'s.
pub fn default_model() -> Option<ModelSpec> {
    model_preset(DEFAULT_ARCHITECTURE_PRESET).map(ModelSpec::of)
}

/// Edits the model, which it creates if there is none. An edited architecture
/// is custom: no longer its preset's.
fn edit_model(
    config: &mut Config,
    field: Field,
    edit: impl FnOnce(&mut ModelSpec),
) -> Result<(), InputError> {
    let mut model = config
        .model
        .or_else(default_model)
        .ok_or(field.error(InputErrorKind::UnknownChoice))?;
    edit(&mut model);
    config.model = Some(model);
    Ok(())
}

/// Parses a count and stores it in the model.
fn edit_count(
    config: &mut Config,
    field: Field,
    text: &str,
    place: fn(&mut ModelSpec) -> &mut u32,
) -> Result<(), InputError> {
    let value = field.parse_count(text)?;
    edit_model(config, field, |m| *place(m) = value)
}

/// Parses a switch and stores it in the model.
fn edit_flag(
    config: &mut Config,
    field: Field,
    text: &str,
    place: fn(&mut ModelSpec) -> &mut bool,
) -> Result<(), InputError> {
    let value = parse_flag(field, text)?;
    edit_model(config, field, |m| *place(m) = value)
}

#[cfg(test)]
mod declaration_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn a_model_size_may_end_in_b() {
        let size = |text: &str| {
            let mut config = Config::default();
            Field::Params
                .write(&mut config, text)
                .map(|()| config.params_billions)
        };
        assert_eq!(size("7b"), Ok(7.0));
        assert_eq!(size(" 70B "), Ok(70.0));
        assert_eq!(size("6.7b"), Ok(6.7));
        assert_eq!(size("7"), Ok(7.0));
        assert!(size("b").is_err());
        assert!(size("7bb").is_err());
        assert_eq!(size("7 B"), Ok(7.0));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn each_form_field_has_a_place_of_its_own() {
        let mut places = std::collections::HashMap::new();
        for field in Field::ALL {
            let place = field.place();
            if place.section == Section::LinkOnly {
                continue;
            }
            let taken = places.insert((place.section, place.rank), field);
            assert_eq!(taken, None, "{field:?} and {taken:?} share {place:?}");
        }
        // The sections list their fields by rank: a Llama's shape as the page shows it.
        use Field::{Ffn, Heads, Hidden, KvHeads, Layers, Mlp, Tied, Vocab};
        let llama = [Layers, Hidden, Ffn, Heads, KvHeads, Vocab, Mlp, Tied];
        assert_eq!(Section::Architecture.fields(), llama);
        // Only how an embedded page looks stays off the form.
        assert_eq!(
            Section::LinkOnly.fields(),
            [Field::Embed, Field::Show, Field::Controls]
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_field_is_declared_whole_and_once() {
        let mut keys = std::collections::HashSet::new();
        for (i, field) in Field::ALL.into_iter().enumerate() {
            assert_eq!(field.index(), i, "{field:?}");
            let key = field.key();
            assert!(keys.insert(key), "{key} declared twice");
            assert!(
                key.starts_with(|c: char| c.is_ascii_lowercase())
                    && key
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{field:?}: key {key:?}"
            );
            match field.declaration().value {
                Value::Number { limits, .. } => assert!(limits.min <= limits.max, "{field:?}"),
                Value::Choice(choices) | Value::List(choices) => {
                    assert!(choices.len() >= 2, "{field:?}")
                }
                Value::Preset => assert!(field.is_optional(), "{field:?}: a preset may be unset"),
                Value::Text { value_name } => {
                    assert!(field.is_optional(), "{field:?}: a text may be unset");
                    assert!(!value_name.is_empty(), "{field:?}");
                }
            }
            // A field filled by a preset is the preset's to fill, and its
            // scope is the preset's.
            if let Some(preset) = field.filled_by() {
                assert!(preset.is_preset(), "{field:?} filled by {preset:?}");
            }
        }
    }

    /// The placeholder `--help` shows says the unit the value is in (the help
    /// once called `--mfu` and `--tokens` MILLIONS).
    #[wasm_bindgen_test(unsupported = test)]
    fn every_value_name_matches_its_unit() {
        for field in Field::ALL {
            let name = field.value_name();
            let Some(unit) = field.unit() else {
                let expected = match () {
                    _ if field.is_preset() => "ID",
                    _ if field == Field::Measured => "TERMS",
                    _ if field.is_text() => "LAYOUT",
                    _ if field.is_list() => "PARTS",
                    _ => "CHOICE",
                };
                assert_eq!(name, expected, "{field:?}");
                continue;
            };
            let words = unit.words();
            let expected = match () {
                _ if words.starts_with("billions") => "BILLIONS",
                _ if words.starts_with("millions") => "MILLIONS",
                _ if words.starts_with("GB/s") => "GB_PER_S",
                _ if words.starts_with("GB") => "GB",
                _ if words.starts_with("TFLOP/s") => "TFLOP_PER_S",
                _ if words.starts_with("fraction") => "FRACTION",
                _ if words.starts_with("multiples") => "FACTOR",
                _ if words.starts_with("per ") => "PRICE",
                _ => "N",
            };
            assert_eq!(name, expected, "{field:?} in {words}");
            // A count is typed as a whole number, and only a count is "N".
            assert_eq!(name == "N", field.is_whole(), "{field:?} in {words}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_field_reads_back_what_it_writes() {
        let bare = Config::default();
        let mut with_model = bare;
        Field::Model.write(&mut with_model, "mixtral-8x7b").unwrap();
        Field::Gpu.write(&mut with_model, "a100-80gb").unwrap();
        for config in [bare, with_model] {
            let used = Field::ALL
                .into_iter()
                .filter(|f| f.scope().applies(config.model.is_some()));
            for field in used {
                let text = field.read(&config);
                if text.is_empty() {
                    assert!(field.is_optional(), "{field:?} reads nothing");
                    continue;
                }
                let mut again = config;
                let written = field.write(&mut again, &text);
                assert_eq!(written, Ok(()), "{field:?} {text:?}");
                assert_eq!(again, config, "{field:?} {text:?}");
            }
        }
    }
}
