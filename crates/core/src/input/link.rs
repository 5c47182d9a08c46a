//! The shared link: a [`Config`] in a URL's query string, version 1.
//!
//! Keys (every one optional; an absent key takes the lesson's default):
//!
//! | key        | value                          | default |
//! |------------|--------------------------------|---------|
//! | `v`        | contract version: `1`          | `1`     |
//! | `params`   | model size, billions of params | `7`     |
//! | `gpus`     | number of GPUs, whole          | `8`     |
//! | `gpu_mem`  | memory per GPU, GB (10^9 B)    | `80`    |
//! | `dtype`    | `fp32`, `fp16`, `bf16`, `fp32-pure`, `bf16-pure` | `fp16` |
//! | `grad_acc` | `model`, `fp32`                | `model` |
//! | `opt`      | `adam`, `sgd`, `sgd-momentum`, `adam8bit`, `adafactor`, `lion` | `adam` |
//! | `overhead` | reserved fraction, 0 to 0.95   | `0.2`   |
//! | `stage`    | `ddp`, `1`, `2`, `3`           | `ddp`   |
//!
//! The contract: once a key exists, a link that uses it decodes to the same
//! configuration forever. Unknown keys are ignored (they may come from a newer
//! page); an invalid value is reported as a [`LinkProblem`] naming its key, and
//! that key takes its default. Decoding is total: no string makes it panic.

use crate::config::{Config, ModelSpec};
use crate::frameworks::deepspeed::Offload;
use crate::frameworks::hf::{Attention, Framework};
use crate::frameworks::runtime::{Accounting, OffloadDevice};
use crate::gpu::gpu_preset;
use crate::input::decimal::shortest_decimal;
use crate::input::view::Parts;
use crate::input::{Field, InputError, InputErrorKind};
use crate::memory::activations::Recompute;
use crate::memory::finetune::{Method, Quant, Targets};
use crate::memory::{GradientPrecision, Optimizer, Precision, Strategy};
use crate::model::architecture::{model_preset, Architecture, Mla, Mlp, Moe};
use crate::report::format::{Lang, MemoryUnit, Theme};

/// The version of the link contract that [`encode`] writes.
pub const LINK_VERSION: &str = "1";

/// The key of the contract version.
pub const VERSION_KEY: &str = "v";

/// The fields that the link carries, in the order [`encode`] writes them.
pub const LINK_FIELDS: [Field; 8] = [
    Field::Params,
    Field::Gpus,
    Field::GpuMemory,
    Field::Precision,
    Field::GradAcc,
    Field::Optimizer,
    Field::Overhead,
    Field::Stage,
];

/// A key of a shared link whose value could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkProblem {
    /// The key, as written in the link.
    pub key: String,
    /// The value, percent-decoded, as written in the link.
    pub value: String,
    /// What is wrong with it, or `None` for an unsupported version.
    pub error: Option<InputError>,
}

impl core::fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.error {
            Some(error) => write!(f, "link key {}={:?}: {error}", self.key, self.value),
            None => write!(
                f,
                "link key {}={:?}: unsupported version, read as version {LINK_VERSION}",
                self.key, self.value
            ),
        }
    }
}

/// A decoded link: the configuration, and the keys that were set aside.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedLink {
    /// The configuration: every good key's value, the default for every other.
    pub config: Config,
    /// One entry per key whose value could not be used.
    pub problems: Vec<LinkProblem>,
}

/// Writes `config` as a query string, without the leading `?`, every key explicit
/// so that a link never depends on defaults: `v=1&params=7&gpus=8&…`.
///
/// Numbers are written in their shortest decimal form that reads back to the same `f64`
/// ([`shortest_decimal`]).
/// The GPU, model and global-batch keys are written when they are set.
pub fn encode(config: &Config) -> String {
    let mut query = format!("{VERSION_KEY}={LINK_VERSION}");
    let mut fields: Vec<Field> = LINK_FIELDS.to_vec();
    if config.gpu.is_some() {
        fields.push(Field::Gpu);
    }
    if let Some(model) = config.model {
        fields.extend(MODEL_FIELDS);
        // Written only when used, so links without it keep their meaning.
        if model.dropout != 0.0 {
            fields.push(Field::Dropout);
        }
        if model.framework != crate::frameworks::hf::Framework::Megatron {
            fields.push(Field::Framework);
        }
        if model.attention.is_some() {
            fields.push(Field::Attention);
        }
        // A dense model's defaults (0, off, uniform routing) are not written.
        let dense = ModelSpec {
            architecture: Architecture {
                head_dim: 0,
                qk_norm: false,
                moe: Moe::DENSE,
                mla: Mla::NONE,
                ..model.architecture
            },
            capacity: 1.0,
            ep: 1,
            ..model
        };
        let dense = Config {
            model: Some(dense),
            ..*config
        };
        fields.extend(
            EXTRA_ARCHITECTURE_FIELDS
                .into_iter()
                .chain([Field::Capacity, Field::Ep])
                .filter(|&field| value_of(config, field) != value_of(&dense, field)),
        );
        // Learned positions come from the preset unless they differ from it.
        if model.architecture.learned_positions != model.base.architecture.learned_positions {
            fields.push(Field::Positions);
        }
    }
    if config.global_batch.is_some() {
        fields.push(Field::GlobalBatch);
    }
    if config.unit != MemoryUnit::Gb {
        fields.push(Field::Unit);
    }
    if config.theme != Theme::Auto {
        fields.push(Field::Theme);
    }
    if config.lang != Lang::Auto {
        fields.push(Field::Lang);
    }
    if config.embed {
        fields.push(Field::Embed);
    }
    // A lesson's embed: which parts, and read-only; absent from every other link.
    if config.show != Parts::ALL {
        fields.push(Field::Show);
    }
    if !config.controls {
        fields.push(Field::Controls);
    }
    if config.amp {
        fields.push(Field::Amp);
    }
    // The runtime's keys only where they differ from the default, so links
    // without them keep meaning what they meant.
    let default = Config::default();
    fields.extend(
        RUNTIME_FIELDS
            .into_iter()
            .chain(FINE_TUNING_FIELDS)
            .chain(PARALLEL_FIELDS)
            .filter(|&field| value_of(config, field) != value_of(&default, field)),
    );
    for field in fields {
        let value = value_of(config, field);
        query.push('&');
        query.push_str(field.key());
        query.push('=');
        match field.is_list() {
            // Keys of lowercase letters and commas: nothing to escape (a comma is
            // one of RFC 3986's sub-delims), so `show=table,memory` stays readable.
            true => query.push_str(&value),
            false => query.extend(form_urlencoded::byte_serialize(value.as_bytes())),
        }
    }
    query
}

pub use crate::input::{ARCHITECTURE_FIELDS, EXTRA_ARCHITECTURE_FIELDS, MODEL_FIELDS};

/// The fields of [`Runtime`](crate::frameworks::runtime::Runtime), in the order [`encode`] writes them
/// (each only when it differs from the default).
pub const RUNTIME_FIELDS: [Field; 14] = [
    Field::Accounting,
    Field::Offload,
    Field::OffloadTo,
    Field::Nodes,
    Field::LargestLayer,
    Field::ZeroInit,
    Field::Buffers,
    Field::ReduceBucket,
    Field::AllgatherBucket,
    Field::PrefetchBucket,
    Field::MaxLive,
    Field::Bandwidth,
    Field::BufferFactor,
    Field::Context,
];

/// The layout over the GPUs and what the step's time assumes, in the order
/// [`encode`] writes them (each only when it differs from the default: no
/// model parallelism, 40 % MFU, the GPU preset's peak and links, no run).
pub const PARALLEL_FIELDS: [Field; 11] = [
    Field::Tp,
    Field::Pp,
    Field::Vpp,
    Field::Cp,
    Field::Sp,
    Field::Mfu,
    Field::Tflops,
    Field::Nvlink,
    Field::Network,
    Field::Tokens,
    Field::Price,
];

/// The global batch, and how the page shows what it computes: each written
/// only when set or when it differs from its default.
const SHOWING_FIELDS: [Field; 7] = [
    Field::GlobalBatch,
    Field::Unit,
    Field::Theme,
    Field::Lang,
    Field::Embed,
    Field::Show,
    Field::Controls,
];

/// The fields of [`FineTuning`](crate::memory::finetune::FineTuning), in the order
/// [`encode`] writes them (each only when it differs from the default).
pub const FINE_TUNING_FIELDS: [Field; 5] = [
    Field::Method,
    Field::Rank,
    Field::Targets,
    Field::Quant,
    Field::DoubleQuant,
];

/// Every field a link may carry, in the order [`decode`] applies them: the model
/// and the GPU preset first, so that explicit values refine what a preset filled.
pub fn decode_order() -> impl Iterator<Item = Field> {
    MODEL_FIELDS
        .into_iter()
        .chain(EXTRA_ARCHITECTURE_FIELDS)
        .chain([
            Field::Capacity,
            Field::Ep,
            Field::Positions,
            Field::Dropout,
            Field::Framework,
            Field::Attention,
            Field::Gpu,
        ])
        .chain(LINK_FIELDS)
        .chain(SHOWING_FIELDS)
        .chain(RUNTIME_FIELDS)
        .chain(FINE_TUNING_FIELDS)
        .chain([Field::Amp])
        .chain(PARALLEL_FIELDS)
}

/// Every field a link may carry, in the order [`encode`] writes them.
pub fn all_fields() -> impl Iterator<Item = Field> {
    LINK_FIELDS
        .into_iter()
        .chain([Field::Gpu])
        .chain(MODEL_FIELDS)
        .chain(EXTRA_ARCHITECTURE_FIELDS)
        .chain([
            Field::Capacity,
            Field::Ep,
            Field::Positions,
            Field::Dropout,
            Field::Framework,
            Field::Attention,
        ])
        .chain(SHOWING_FIELDS)
        .chain([Field::Amp])
        .chain(RUNTIME_FIELDS)
        .chain(FINE_TUNING_FIELDS)
        .chain(PARALLEL_FIELDS)
}

/// The model used when architecture keys come without a `model` key.
pub const DEFAULT_ARCHITECTURE_PRESET: &str = "llama2-7b";

fn default_model() -> Option<ModelSpec> {
    model_preset(DEFAULT_ARCHITECTURE_PRESET).map(ModelSpec::of)
}

fn millions(millions: f64) -> String {
    shortest_decimal(millions)
}

fn flag(value: bool) -> String {
    if value { "1" } else { "0" }.to_string()
}

/// The link's text for one field of `config` (empty for a field it does not hold).
pub fn value_of(config: &Config, field: Field) -> String {
    let model = config.model.as_ref();
    let runtime = &config.runtime;
    let arch =
        |get: fn(&Architecture) -> String| model.map(|m| get(&m.architecture)).unwrap_or_default();
    match field {
        Field::Params => match model {
            Some(m) => shortest_decimal(m.params_billions()),
            None => shortest_decimal(config.params_billions),
        },
        Field::Gpus => config.gpus.to_string(),
        Field::GpuMemory => shortest_decimal(config.gpu_mem_gb),
        Field::Precision => config.precision.key().to_string(),
        Field::GradAcc => config.gradients.key().to_string(),
        Field::Optimizer => config.optimizer.key().to_string(),
        Field::Overhead => shortest_decimal(config.overhead),
        Field::Stage => config.highlight.key().to_string(),
        Field::GlobalBatch => config
            .global_batch
            .map(|b| b.to_string())
            .unwrap_or_default(),
        Field::Gpu => config.gpu.map(|g| g.id.to_string()).unwrap_or_default(),
        Field::Model => model.map(|m| m.base.id.to_string()).unwrap_or_default(),
        Field::Layers => arch(|a| a.layers.to_string()),
        Field::Hidden => arch(|a| a.hidden.to_string()),
        Field::Ffn => arch(|a| a.ffn.to_string()),
        Field::Heads => arch(|a| a.heads.to_string()),
        Field::KvHeads => arch(|a| a.kv_heads.to_string()),
        Field::Vocab => arch(|a| a.vocab.to_string()),
        Field::Tied => arch(|a| flag(a.tied_embeddings)),
        Field::Mlp => arch(|a| a.mlp.key().to_string()),
        Field::QkNorm => arch(|a| flag(a.qk_norm)),
        Field::SharedGate => arch(|a| flag(a.moe.shared_gate)),
        Field::HeadDim
        | Field::Experts
        | Field::TopK
        | Field::ExpertFfn
        | Field::SharedExperts
        | Field::SharedFfn
        | Field::DenseLayers
        | Field::QRank
        | Field::KvRank
        | Field::RopeDim
        | Field::NopeDim
        | Field::VDim => model
            .map(|m| count_getter(field)(m).to_string())
            .unwrap_or_default(),
        Field::Capacity => model
            .map(|m| shortest_decimal(m.capacity))
            .unwrap_or_default(),
        Field::Positions => arch(|a| a.learned_positions.to_string()),
        Field::Ep => model.map(|m| m.ep.to_string()).unwrap_or_default(),
        Field::Seq => model.map(|m| m.seq_len.to_string()).unwrap_or_default(),
        Field::MicroBatch => model.map(|m| m.micro_batch.to_string()).unwrap_or_default(),
        Field::Recompute => model
            .map(|m| m.recompute.key().to_string())
            .unwrap_or_default(),
        Field::Flash => model.map(|m| flag(m.flash_attention)).unwrap_or_default(),
        Field::Dropout => model
            .map(|m| shortest_decimal(m.dropout))
            .unwrap_or_default(),
        Field::Framework => model
            .map(|m| m.framework.key().to_string())
            .unwrap_or_default(),
        Field::Attention => model
            .and_then(|m| m.attention)
            .map(|a| a.key().to_string())
            .unwrap_or_default(),
        Field::Unit => config.unit.key().to_string(),
        Field::Theme => config.theme.key().to_string(),
        Field::Lang => config.lang.key().to_string(),
        Field::Embed => flag(config.embed),
        Field::Show => config.show.key(),
        Field::Controls => flag(config.controls),
        Field::Method => config.fine_tuning.method.key().to_string(),
        Field::Rank => config.fine_tuning.rank.to_string(),
        Field::Targets => config.fine_tuning.targets.key().to_string(),
        Field::Quant => config.fine_tuning.quant.key().to_string(),
        Field::DoubleQuant => flag(config.fine_tuning.double_quant),
        Field::Amp => flag(config.amp),
        Field::Accounting => runtime.accounting.key().to_string(),
        Field::Offload => runtime.offload.key().to_string(),
        Field::OffloadTo => runtime.offload_device.key().to_string(),
        Field::Nodes => runtime.nodes.to_string(),
        Field::LargestLayer => runtime
            .largest_layer_millions
            .map(shortest_decimal)
            .unwrap_or_default(),
        Field::ZeroInit => flag(runtime.zero_init),
        Field::Buffers => flag(runtime.buffers),
        Field::ReduceBucket => millions(runtime.buffer_sizes.reduce_bucket),
        Field::AllgatherBucket => millions(runtime.buffer_sizes.allgather_bucket),
        Field::PrefetchBucket => millions(runtime.buffer_sizes.prefetch_bucket),
        Field::MaxLive => millions(runtime.buffer_sizes.max_live_parameters),
        Field::Bandwidth => runtime
            .bandwidth_gb_per_s
            .map(shortest_decimal)
            .unwrap_or_default(),
        Field::BufferFactor => shortest_decimal(runtime.buffer_factor),
        Field::Context => shortest_decimal(runtime.context_gb),
        Field::Tp => runtime.layout.tp.to_string(),
        Field::Pp => runtime.layout.pp.to_string(),
        Field::Vpp => runtime.layout.vpp.to_string(),
        Field::Cp => runtime.layout.cp.to_string(),
        Field::Sp => flag(runtime.layout.sp),
        Field::Mfu => shortest_decimal(runtime.speed.mfu),
        Field::Tflops => optional(runtime.speed.tflops),
        Field::Nvlink => optional(runtime.speed.nvlink_gb_per_s),
        Field::Network => optional(runtime.speed.network_gb_per_s),
        Field::Tokens => optional(runtime.speed.tokens_billions),
        Field::Price => optional(runtime.speed.price_per_gpu_hour),
    }
}

fn optional(value: Option<f64>) -> String {
    value.map(shortest_decimal).unwrap_or_default()
}

/// Reads a query string (with or without its leading `?`) into a configuration.
///
/// When a key appears more than once the first occurrence counts, as with the
/// browser's `URLSearchParams.get`. The version key `v` chooses the reader; a
/// link without it is version 1. A future version 2 gets a reader of its own
/// here, and version-1 links keep being read by [`decode_v1`].
pub fn decode(query: &str) -> DecodedLink {
    let query = query.strip_prefix('?').unwrap_or(query);
    // Only known keys matter, so only they are remembered: no hashing of hostile input.
    let known = |key: &str| key == VERSION_KEY || all_fields().any(|f| f.key() == key);
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        if known(&key) && !pairs.iter().any(|(seen, _)| *seen == key) {
            pairs.push((key.into_owned(), value.into_owned()));
        }
    }
    let mut problems = Vec::new();
    match pairs.iter().find(|(key, _)| key == VERSION_KEY) {
        None => {}
        Some((_, version)) if version.trim() == LINK_VERSION => {}
        Some((key, version)) => problems.push(LinkProblem {
            key: key.clone(),
            value: version.clone(),
            error: None,
        }),
    }
    let mut decoded = decode_v1(&pairs);
    problems.append(&mut decoded.problems);
    decoded.problems = problems;
    decoded
}

/// The problem of `field`'s value, valid alone but not with the others, which
/// the decoder sets aside: the key and the value as the link wrote them.
fn set_aside(pairs: &[(String, String)], field: Field, error: InputError) -> LinkProblem {
    let key = field.key();
    let value = pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    LinkProblem {
        key: key.to_string(),
        value,
        error: Some(error),
    }
}

/// Applies fields to the defaults in [`decode_order`]: `apply_one` stores a
/// field's value, or gives `None` for a field it has no value for. Every error is
/// kept, in that order; a field that fails keeps its value from before. The link
/// decoder and the page's form ([`crate::input::form::parse`]) both read through here.
pub fn apply_in_order(
    mut apply_one: impl FnMut(&mut Config, Field) -> Option<Result<(), InputError>>,
) -> (Config, Vec<InputError>) {
    let mut config = Config::default();
    let mut errors = Vec::new();
    for field in decode_order() {
        if let Some(Err(error)) = apply_one(&mut config, field) {
            errors.push(error);
        }
    }
    (config, errors)
}

/// Version 1 of the contract: each known key parsed by its field's rules; unknown
/// keys (and `v`) ignored; a bad value reported and left at its default.
pub fn decode_v1(pairs: &[(String, String)]) -> DecodedLink {
    let value = |field: Field| pairs.iter().find(|(key, _)| key == field.key());
    let (mut config, errors) =
        apply_in_order(|config, field| value(field).map(|(_, text)| apply(config, field, text)));
    let mut problems: Vec<LinkProblem> = errors
        .into_iter()
        .map(|error| set_aside(pairs, error.field, error))
        .collect();
    // An architecture whose values are each in range may still be impossible (heads
    // not dividing the hidden size) or too large: it is set aside for its preset's.
    if let Some(model) = &mut config.model {
        let whole = Config {
            model: Some(*model),
            ..Config::default()
        };
        if let Err(error) = whole.params() {
            problems.push(set_aside(pairs, error.field, error));
            model.architecture = model.base.architecture;
        }
        config.params_billions = model.params_billions();
    }
    // Adapters need an architecture: without a model, the one the step keys
    // start from (Llama 2 7B), as they do.
    if config.fine_tuning.method.uses_adapters() && config.model.is_none() {
        config.model = default_model();
        if let Some(model) = &config.model {
            config.params_billions = model.params_billions();
        }
    }
    // GPUs per node × nodes within the GPU limit, or the nodes are set aside.
    if let Err(error) = config.data_parallel_gpus() {
        problems.push(set_aside(pairs, Field::Nodes, error));
        config.runtime.nodes = 1;
    }
    // Hugging Face's accounting on a model it does not cover, a largest layer
    // larger than the model, and autocast without a mixed precision are set
    // aside.
    for _ in 0..10 {
        match config.setup() {
            Err(error) if error.kind == InputErrorKind::DenseOnly => {
                problems.push(set_aside(pairs, error.field, error));
                match error.field {
                    Field::Targets => config.fine_tuning.targets = Default::default(),
                    _ => config.fine_tuning.method = crate::memory::finetune::Method::Full,
                }
            }
            Err(error) if error.field == Field::Ep => {
                problems.push(set_aside(pairs, Field::Ep, error));
                if let Some(model) = &mut config.model {
                    model.ep = 1;
                }
            }
            Err(error) if PARALLEL_FIELDS[..5].contains(&error.field) => {
                problems.push(set_aside(pairs, error.field, error));
                let layout = &mut config.runtime.layout;
                let single = crate::memory::parallel::Layout::SINGLE;
                match error.field {
                    Field::Tp => layout.tp = single.tp,
                    Field::Pp => layout.pp = single.pp,
                    Field::Vpp => layout.vpp = single.vpp,
                    Field::Cp => layout.cp = single.cp,
                    _ => layout.sp = single.sp,
                }
            }
            Err(error) if error.field == Field::Accounting => {
                problems.push(set_aside(pairs, Field::Accounting, error));
                config.runtime.accounting = Accounting::Course;
            }
            Err(error) if error.field == Field::Amp => {
                problems.push(set_aside(pairs, Field::Amp, error));
                config.amp = false;
            }
            Err(error) if error.field == Field::Framework => {
                problems.push(set_aside(pairs, Field::Framework, error));
                if let Some(model) = &mut config.model {
                    model.framework = Framework::Megatron;
                }
            }
            Err(error) if error.field == Field::LargestLayer => {
                problems.push(set_aside(pairs, Field::LargestLayer, error));
                config.runtime.largest_layer_millions = None;
            }
            _ => break,
        }
    }
    // A context reserve that leaves nothing usable is set aside.
    if let Err(error) = config.budget() {
        if error.field == Field::Context {
            problems.push(set_aside(pairs, Field::Context, error));
            config.runtime.context_gb = 0.0;
        }
    }
    // Problems in the order the link wrote them.
    problems.sort_unstable_by_key(|p| pairs.iter().position(|(key, _)| *key == p.key));
    DecodedLink { config, problems }
}

/// The item of `all` whose key is `choice`.
fn pick<T: Copy>(all: &[T], key: fn(T) -> &'static str, choice: &str) -> Option<T> {
    all.iter().copied().find(|&item| key(item) == choice)
}

/// Where a whole-number field of the model is stored (nowhere for other fields).
fn count_setter(field: Field) -> fn(&mut ModelSpec, u32) {
    match field {
        Field::Layers => |m, v| m.architecture.layers = v,
        Field::Hidden => |m, v| m.architecture.hidden = v,
        Field::Ffn => |m, v| m.architecture.ffn = v,
        Field::Heads => |m, v| m.architecture.heads = v,
        Field::KvHeads => |m, v| m.architecture.kv_heads = v,
        Field::Vocab => |m, v| m.architecture.vocab = v,
        Field::Seq => |m, v| m.seq_len = v,
        Field::MicroBatch => |m, v| m.micro_batch = v,
        Field::HeadDim => |m, v| m.architecture.head_dim = v,
        Field::Experts => |m, v| m.architecture.moe.experts = v,
        Field::TopK => |m, v| m.architecture.moe.top_k = v,
        Field::ExpertFfn => |m, v| m.architecture.moe.expert_ffn = v,
        Field::SharedExperts => |m, v| m.architecture.moe.shared_experts = v,
        Field::SharedFfn => |m, v| m.architecture.moe.shared_ffn = v,
        Field::DenseLayers => |m, v| m.architecture.moe.dense_layers = v,
        Field::QRank => |m, v| m.architecture.mla.q_rank = v,
        Field::KvRank => |m, v| m.architecture.mla.kv_rank = v,
        Field::RopeDim => |m, v| m.architecture.mla.rope_dim = v,
        Field::NopeDim => |m, v| m.architecture.mla.nope_dim = v,
        Field::VDim => |m, v| m.architecture.mla.v_dim = v,
        Field::Positions => |m, v| m.architecture.learned_positions = v,
        Field::Ep => |m, v| m.ep = v,
        _ => |_, _| {},
    }
}

/// The value of a whole-number field beyond the base architecture.
pub(crate) fn count_of(model: &ModelSpec, field: Field) -> u32 {
    count_getter(field)(model)
}

/// Where a whole-number field beyond the base architecture is read from.
fn count_getter(field: Field) -> fn(&ModelSpec) -> u32 {
    match field {
        Field::HeadDim => |m| m.architecture.head_dim,
        Field::Experts => |m| m.architecture.moe.experts,
        Field::TopK => |m| m.architecture.moe.top_k,
        Field::ExpertFfn => |m| m.architecture.moe.expert_ffn,
        Field::SharedExperts => |m| m.architecture.moe.shared_experts,
        Field::SharedFfn => |m| m.architecture.moe.shared_ffn,
        Field::DenseLayers => |m| m.architecture.moe.dense_layers,
        Field::QRank => |m| m.architecture.mla.q_rank,
        Field::KvRank => |m| m.architecture.mla.kv_rank,
        Field::RopeDim => |m| m.architecture.mla.rope_dim,
        Field::NopeDim => |m| m.architecture.mla.nope_dim,
        Field::VDim => |m| m.architecture.mla.v_dim,
        _ => |_| 0,
    }
}

/// Parses `text` as `field`'s value and stores it in `config`; on error `config` is unchanged.
pub fn apply(config: &mut Config, field: Field, text: &str) -> Result<(), InputError> {
    let choice = text.trim().to_ascii_lowercase();
    let unknown = || field.error(InputErrorKind::UnknownChoice);
    let flag = |text: &str| match text {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(unknown()),
    };

    // Architecture fields edit the model, which they create (as custom) if needed.
    // Any architecture or step key implies a model: Llama 2 7B's unless `model`
    // named one. An edited architecture is custom: no longer its preset.
    let mut edit_model = |edit: &mut dyn FnMut(&mut ModelSpec)| {
        let mut model = config.model.or_else(default_model).ok_or_else(unknown)?;
        edit(&mut model);
        config.model = Some(model);
        Ok(())
    };
    match field {
        Field::Params => config.params_billions = field.parse_number(text)?,
        Field::Gpus => config.gpus = field.parse_count(text)?,
        Field::GpuMemory => {
            let gb = field.parse_number(text)?;
            if config.gpu.is_some_and(|gpu| gpu.memory().gb() != gb) {
                config.gpu = None;
            }
            config.gpu_mem_gb = gb;
        }
        Field::Overhead => config.overhead = field.parse_number(text)?,
        Field::Precision => config.precision = Precision::from_key(&choice).ok_or_else(unknown)?,
        Field::GradAcc => {
            config.gradients = GradientPrecision::from_key(&choice).ok_or_else(unknown)?;
        }
        Field::Optimizer => config.optimizer = Optimizer::from_key(&choice).ok_or_else(unknown)?,
        Field::Stage => config.highlight = Strategy::from_key(&choice).ok_or_else(unknown)?,
        Field::GlobalBatch => config.global_batch = Some(field.parse_count(text)?),
        Field::Gpu => {
            let gpu = gpu_preset(&choice).ok_or_else(unknown)?;
            config.gpu = Some(gpu);
            config.gpu_mem_gb = gpu.memory().gb();
        }
        Field::Model => {
            let preset = model_preset(&choice).ok_or_else(unknown)?;
            let mut model = config.model.unwrap_or(ModelSpec::of(preset));
            model.base = preset;
            model.architecture = preset.architecture;
            config.model = Some(model);
        }
        Field::Tied => {
            let v = flag(&choice)?;
            edit_model(&mut |m| m.architecture.tied_embeddings = v)?;
        }
        Field::QkNorm => {
            let v = flag(&choice)?;
            edit_model(&mut |m| m.architecture.qk_norm = v)?;
        }
        Field::SharedGate => {
            let v = flag(&choice)?;
            edit_model(&mut |m| m.architecture.moe.shared_gate = v)?;
        }
        Field::Capacity => {
            let v = field.parse_number(text)?;
            edit_model(&mut |m| m.capacity = v)?;
        }
        Field::Mlp => {
            let v = Mlp::ALL
                .into_iter()
                .find(|m| m.key() == choice)
                .ok_or_else(unknown)?;
            edit_model(&mut |m| m.architecture.mlp = v)?;
        }
        Field::Layers
        | Field::Hidden
        | Field::Ffn
        | Field::Heads
        | Field::KvHeads
        | Field::Vocab
        | Field::Seq
        | Field::MicroBatch
        | Field::HeadDim
        | Field::Experts
        | Field::TopK
        | Field::ExpertFfn
        | Field::SharedExperts
        | Field::SharedFfn
        | Field::DenseLayers
        | Field::QRank
        | Field::KvRank
        | Field::RopeDim
        | Field::NopeDim
        | Field::VDim
        | Field::Positions
        | Field::Ep => {
            let value = field.parse_count(text)?;
            let set = count_setter(field);
            edit_model(&mut |m| set(m, value))?;
        }
        Field::Dropout => {
            let p = field.parse_number(text)?;
            edit_model(&mut |m| m.dropout = p)?;
        }
        Field::Framework => {
            let framework = pick(&Framework::ALL, Framework::key, &choice).ok_or_else(unknown)?;
            edit_model(&mut |m| m.framework = framework)?;
        }
        Field::Attention => {
            let attention = pick(&Attention::ALL, Attention::key, &choice).ok_or_else(unknown)?;
            edit_model(&mut |m| m.attention = Some(attention))?;
        }
        Field::Embed => config.embed = flag(&choice)?,
        Field::Show => config.show = Parts::from_key(&choice).ok_or_else(unknown)?,
        Field::Controls => config.controls = flag(&choice)?,
        Field::Method => {
            config.fine_tuning.method =
                pick(&Method::ALL, Method::key, &choice).ok_or_else(unknown)?
        }
        Field::Rank => config.fine_tuning.rank = field.parse_count(text)?,
        Field::Targets => {
            config.fine_tuning.targets =
                pick(&Targets::ALL, Targets::key, &choice).ok_or_else(unknown)?
        }
        Field::Quant => {
            config.fine_tuning.quant = pick(&Quant::ALL, Quant::key, &choice).ok_or_else(unknown)?
        }
        Field::DoubleQuant => config.fine_tuning.double_quant = flag(&choice)?,
        Field::Amp => config.amp = flag(&choice)?,
        Field::Accounting => {
            config.runtime.accounting =
                pick(&Accounting::ALL, Accounting::key, &choice).ok_or_else(unknown)?
        }
        Field::Offload => {
            config.runtime.offload =
                pick(&Offload::ALL, Offload::key, &choice).ok_or_else(unknown)?
        }
        Field::OffloadTo => {
            config.runtime.offload_device =
                pick(&OffloadDevice::ALL, OffloadDevice::key, &choice).ok_or_else(unknown)?;
        }
        Field::Nodes => config.runtime.nodes = field.parse_count(text)?,
        Field::LargestLayer => {
            let millions = field.parse_number(text)?;
            config.runtime.largest_layer_millions = Some(millions);
        }
        Field::ZeroInit => config.runtime.zero_init = flag(&choice)?,
        Field::Buffers => {
            config.runtime.buffers = flag(&choice)?;
        }
        Field::ReduceBucket | Field::AllgatherBucket | Field::PrefetchBucket | Field::MaxLive => {
            let millions = field.parse_number(text)?;
            let sizes = &mut config.runtime.buffer_sizes;
            *match field {
                Field::ReduceBucket => &mut sizes.reduce_bucket,
                Field::AllgatherBucket => &mut sizes.allgather_bucket,
                Field::PrefetchBucket => &mut sizes.prefetch_bucket,
                _ => &mut sizes.max_live_parameters,
            } = millions;
        }
        Field::Bandwidth => config.runtime.bandwidth_gb_per_s = Some(field.parse_number(text)?),
        Field::BufferFactor => config.runtime.buffer_factor = field.parse_number(text)?,
        Field::Context => config.runtime.context_gb = field.parse_number(text)?,
        Field::Tp => config.runtime.layout.tp = field.parse_count(text)?,
        Field::Pp => config.runtime.layout.pp = field.parse_count(text)?,
        Field::Vpp => config.runtime.layout.vpp = field.parse_count(text)?,
        Field::Cp => config.runtime.layout.cp = field.parse_count(text)?,
        Field::Sp => config.runtime.layout.sp = flag(&choice)?,
        Field::Mfu => config.runtime.speed.mfu = field.parse_number(text)?,
        Field::Tflops => config.runtime.speed.tflops = Some(field.parse_number(text)?),
        Field::Nvlink => config.runtime.speed.nvlink_gb_per_s = Some(field.parse_number(text)?),
        Field::Network => config.runtime.speed.network_gb_per_s = Some(field.parse_number(text)?),
        Field::Tokens => config.runtime.speed.tokens_billions = Some(field.parse_number(text)?),
        Field::Price => config.runtime.speed.price_per_gpu_hour = Some(field.parse_number(text)?),
        Field::Lang => config.lang = pick(&Lang::ALL, Lang::key, &choice).ok_or_else(unknown)?,
        Field::Theme => {
            config.theme = Theme::ALL
                .into_iter()
                .find(|t| t.key() == choice)
                .ok_or_else(unknown)?;
        }
        Field::Unit => {
            config.unit = MemoryUnit::ALL
                .into_iter()
                .find(|u| u.key() == choice)
                .ok_or_else(unknown)?;
        }
        Field::Recompute => {
            let v = [Recompute::None, Recompute::Selective, Recompute::Full]
                .into_iter()
                .find(|r| r.key() == choice)
                .ok_or_else(unknown)?;
            edit_model(&mut |m| m.recompute = v)?;
        }
        Field::Flash => {
            let v = flag(&choice)?;
            edit_model(&mut |m| m.flash_attention = v)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn a_lesson_embed_is_written_readably_and_only_when_used() {
        use crate::input::view::Part;
        let lesson = Config {
            show: Parts::NONE.with(Part::MemoryChart).with(Part::Table),
            controls: false,
            ..Config::default()
        };
        let query = encode(&lesson);
        assert!(query.ends_with("&show=table,memory&controls=0"), "{query}");
        assert_eq!(decode(&query).config, lesson);
        let whole = encode(&Config::default());
        assert!(!whole.contains("show=") && !whole.contains("controls="));
        // Without a list the text is what form_urlencoded's serializer writes.
        let model = encode(&decode("model=llama2-70b&gpu=h100-80gb&bw=1e3").config);
        let mut serializer = form_urlencoded::Serializer::new(String::new());
        serializer.extend_pairs(form_urlencoded::parse(model.as_bytes()));
        assert_eq!(serializer.finish(), model);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn default_config_encodes_every_key() {
        assert_eq!(
            encode(&Config::default()),
            "v=1&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp"
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn every_choice_listed_by_a_field_decodes() {
        for field in LINK_FIELDS {
            for choice in field.choices() {
                let mut config = Config::default();
                assert_eq!(
                    apply(&mut config, field, choice),
                    Ok(()),
                    "{}={choice}",
                    field.key()
                );
                assert_eq!(value_of(&config, field), *choice);
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn every_value_of_every_choice_is_listed() {
        let keys = |field: Field| field.choices().to_vec();
        assert_eq!(keys(Field::Precision), Precision::ALL.map(Precision::key));
        assert_eq!(
            keys(Field::GradAcc),
            GradientPrecision::ALL.map(GradientPrecision::key)
        );
        assert_eq!(keys(Field::Optimizer), Optimizer::ALL.map(Optimizer::key));
        assert_eq!(keys(Field::Stage), Strategy::ALL.map(Strategy::key));
        assert_eq!(keys(Field::Mlp), Mlp::ALL.map(Mlp::key));
        assert_eq!(keys(Field::Recompute), Recompute::ALL.map(Recompute::key));
        assert_eq!(keys(Field::Unit), MemoryUnit::ALL.map(MemoryUnit::key));
        assert_eq!(keys(Field::Theme), Theme::ALL.map(Theme::key));
        assert_eq!(keys(Field::Lang), Lang::ALL.map(Lang::key));
        assert_eq!(
            keys(Field::Accounting),
            Accounting::ALL.map(Accounting::key)
        );
        assert_eq!(keys(Field::Offload), Offload::ALL.map(Offload::key));
        assert_eq!(
            keys(Field::OffloadTo),
            OffloadDevice::ALL.map(OffloadDevice::key)
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn links_without_grad_acc_keep_the_lessons_gradients() {
        let old = decode("?params=7&dtype=bf16&opt=adam");
        assert_eq!(old.config.gradients, GradientPrecision::AsWeights);
        let megatron = decode("?dtype=bf16&grad_acc=fp32").config.report().unwrap();
        // 2 + 4 + 12 = 18 bytes per parameter: 7 B × 18 = 126 GB under DDP.
        assert_eq!(megatron.strategy(Strategy::Ddp).memory.total.gb(), 126.0);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn model_and_gpu_presets_decode_and_round_trip() {
        let decoded = decode("?gpus=8&model=llama2-70b&gpu=h100-80gb&seq=4096&recompute=full&flash=0&global_batch=512");
        assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        let config = decoded.config;
        let model = config.model.unwrap();
        assert_eq!(model.preset().map(|p| p.id), Some("llama2-70b"));
        assert_eq!((model.seq_len, model.micro_batch), (4096, 1));
        assert_eq!(model.recompute, Recompute::Full);
        assert!(!model.flash_attention);
        assert_eq!(config.gpu.map(|g| g.id), Some("h100-80gb"));
        assert_eq!(config.gpu_mem_gb, 81_559.0 * 1_048_576.0 / 1e9);
        assert_eq!(config.global_batch, Some(512));
        let again = decode(&encode(&config));
        assert!(again.problems.is_empty());
        assert_eq!(again.config, config);
        let report = config.report().unwrap();
        assert_eq!(report.setup.params().get(), 68_976_648_192.0);
        assert_eq!(report.accumulation_steps, Some(Ok(64)));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn edited_architectures_are_custom() {
        let edited = decode("?model=llama2-7b&layers=40").config.model.unwrap();
        assert_eq!(edited.preset(), None);
        assert_eq!(edited.base.id, "llama2-7b");
        assert_eq!(edited.architecture.layers, 40);
        let same = decode("?model=llama2-7b&layers=32").config.model.unwrap();
        assert_eq!(same.preset().map(|p| p.id), Some("llama2-7b"));
        let bare = decode("?layers=40").config.model.unwrap();
        assert_eq!((bare.preset(), bare.architecture.hidden), (None, 4096));
        // What the link does not carry comes from the base: Qwen's QKV biases stay.
        let qwen = decode("?model=qwen2.5-7b&layers=30").config;
        assert_eq!(decode(&encode(&qwen)).config, qwen);
        // An impossible architecture is set aside, and named.
        let impossible = decode("?model=qwen2.5-72b&heads=7");
        assert_eq!(impossible.problems[0].key, "heads");
        assert!(impossible.config.report().is_ok());
        let explicit_memory = decode("?gpu=a100-80gb&gpu_mem=80").config;
        assert_eq!(
            (explicit_memory.gpu, explicit_memory.gpu_mem_gb),
            (None, 80.0)
        );
        assert!(decode("?model=gpt5").problems[0].key == "model");
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn empty_query_is_the_lesson_default() {
        for query in ["", "?", "?v=1", "utm_source=course"] {
            assert_eq!(
                decode(query),
                DecodedLink {
                    config: Config::default(),
                    problems: vec![]
                }
            );
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn the_13b_zero2_link_of_the_issue() {
        let decoded = decode("?params=13&gpus=8&gpu_mem=80&stage=2");
        assert!(decoded.problems.is_empty());
        assert_eq!(
            decoded.config,
            Config {
                params_billions: 13.0,
                highlight: Strategy::Zero2,
                ..Config::default()
            }
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn every_key_decodes() {
        let decoded =
            decode("v=1&params=70.5&gpus=64&gpu_mem=40&dtype=bf16&grad_acc=model&opt=sgd&overhead=0.1&stage=3");
        assert!(decoded.problems.is_empty());
        assert_eq!(
            decoded.config,
            Config {
                params_billions: 70.5,
                gpus: 64,
                gpu_mem_gb: 40.0,
                precision: Precision::Bf16,
                gradients: GradientPrecision::AsWeights,
                optimizer: Optimizer::Sgd,
                overhead: 0.1,
                highlight: Strategy::Zero3,
                ..Config::default()
            }
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn bad_values_take_their_default_and_are_named() {
        let decoded = decode("params=abc&gpus=0&dtype=fp8&overhead=0.5&stage=4&opt=SGD");
        assert_eq!(
            decoded.config,
            Config {
                overhead: 0.5,
                optimizer: Optimizer::Sgd,
                ..Config::default()
            }
        );
        let keys: Vec<&str> = decoded.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["params", "gpus", "dtype", "stage"]);
        assert_eq!(decoded.problems[0].value, "abc");
        assert_eq!(
            decoded.problems[0].to_string(),
            "link key params=\"abc\": model size (params) is not a number"
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn values_are_percent_decoded_and_first_key_wins() {
        let decoded = decode("params=%3Cscript%3E&params=9&gpus=%2016%20&dtype=bf%31%36");
        assert_eq!(decoded.config.gpus, 16);
        assert_eq!(decoded.config.params_billions, 7.0);
        assert_eq!(decoded.config.precision, Precision::Bf16);
        assert_eq!(decoded.problems.len(), 1);
        assert_eq!(decoded.problems[0].value, "<script>");
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn unsupported_version_is_reported_and_read_as_v1() {
        let decoded = decode("v=2&params=13");
        assert_eq!(decoded.config.params_billions, 13.0);
        assert_eq!(decoded.problems.len(), 1);
        assert_eq!(decoded.problems[0].key, "v");
        assert_eq!(decoded.problems[0].error, None);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn decode_reads_back_what_encode_wrote() {
        let config = Config {
            params_billions: 6.738_415_616,
            gpus: 1024,
            gpu_mem_gb: 81.920_000_001,
            precision: Precision::Fp32,
            gradients: GradientPrecision::Fp32,
            optimizer: Optimizer::Sgd,
            overhead: 0.0,
            highlight: Strategy::Zero1,
            ..Config::default()
        };
        assert_eq!(
            decode(&encode(&config)),
            DecodedLink {
                config,
                problems: vec![]
            }
        );
    }
}
