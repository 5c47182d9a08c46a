//! The shared link: a [`Config`] in a URL's query string, version 2.
//!
//! Keys (every one optional; an absent key takes the lesson's default):
//!
//! | key        | value                          | default |
//! |------------|--------------------------------|---------|
//! | `v`        | contract version: `1` or `2`   | `1`     |
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

use crate::config::job::{default_served_model, Job};
use crate::config::{Config, ModelSpec};
use crate::input::{Field, InputError, InputErrorKind, Written};

/// The version of the link contract that [`encode`] writes. Version 2 (issue
/// 48): an absent `mfu` means the kernel model's efficiency
/// ([`crate::time::efficiency`]); in version 1 it meant 0.4, and a version-1
/// link still reads so. Version 3 (issue 60): an absent `weights` means the
/// format the model's checkpoint ships in
/// ([`WeightFormat::shipped`](vram_serve::weights::WeightFormat::shipped));
/// before, 16 bits, and an older link still reads so. Every other key means
/// what it meant in version 1.
pub const LINK_VERSION: &str = "3";

/// The versions [`decode`] reads.
const VERSIONS: [&str; 3] = ["1", "2", "3"];

/// The key of the contract version.
pub const VERSION_KEY: &str = "v";

/// A key of a shared link whose value could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkProblem {
    /// The key, as written in the link.
    pub key: String,
    /// The value, percent-decoded, as written in the link.
    pub value: String,
    /// What is wrong with it, or `None` for an unsupported version.
    pub error: Option<InputError>,
    /// The value the configuration holds for the key instead, as a link
    /// writes it: the default, or the model preset's (empty for `v`).
    pub used: String,
}

impl core::fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.error {
            Some(error) => write!(f, "link key {}={:?}: {error}", self.key, self.value),
            None => write!(
                f,
                "link key {}={:?}: unsupported version, read as version 1",
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

#[cfg(test)]
impl DecodedLink {
    /// The link's one problem (a test's check that there is exactly one), as
    /// its key and its error's kind (`None` for an unsupported version).
    pub(crate) fn only_problem(&self) -> (&str, Option<InputErrorKind>) {
        assert_eq!(self.problems.len(), 1, "{:?}", self.problems);
        let problem = &self.problems[0];
        (problem.key.as_str(), problem.error.map(|e| e.kind))
    }
}

/// Writes `config` as a query string, without the leading `?`: `v=1&params=7&gpus=8&…`.
///
/// The fields in their declaration's order, each when its [`Written`] rule
/// says: the lesson's inputs always, a preset or a batch when set, a model's
/// architecture and step with a model, and every key added since only where it
/// differs from its default, so that a link never depends on defaults the
/// lesson chose and old links keep their text. Numbers are written in their
/// shortest decimal form that reads back to the same `f64` ([`shortest_decimal`](vram_shared::decimal::shortest_decimal)).
pub fn encode(config: &Config) -> String {
    let default = Config::default();
    // What a model's fields would read without what goes beyond a dense model
    // (experts, latent attention, dropout …) and as its preset has them.
    let dense = config.model.map(|model| Config {
        model: Some(model.dense()),
        ..*config
    });
    // The configuration as choosing its model's preset again fills it (the
    // architecture, the checkpoint's format), the step kept.
    let preset = config.model.map(|model| {
        let mut preset = *config;
        // The model's own id names a preset: writing it back cannot fail.
        let _ = Field::Model.write(&mut preset, model.base.id);
        preset
    });
    let mut query = format!("{VERSION_KEY}={LINK_VERSION}");
    for field in Field::ALL {
        let value = value_of(config, field);
        let differs = |other: &Option<Config>| {
            other
                .as_ref()
                .is_some_and(|other| value != value_of(other, field))
        };
        let written = match field.written() {
            Written::Always => true,
            Written::WhenSet => !value.is_empty(),
            Written::WithModel => config.model.is_some(),
            // A beyond-dense value the preset sets is written too when the
            // user took it back to the dense default (Mixtral with no experts):
            // without the key the decoder would give the preset's.
            Written::WhenNotDense => differs(&dense) || differs(&preset),
            Written::WhenNotPreset => differs(&preset),
            Written::WhenNotDefault => value != value_of(&default, field),
            Written::ForItsJobs => {
                field.jobs().contains(config.job) || value != value_of(&default, field)
            }
            Written::WhenNotFilled => match &preset {
                Some(_) => differs(&preset),
                None => value != value_of(&default, field),
            },
        };
        if !written {
            continue;
        }
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

/// Every field a link may carry, in the order [`decode`] applies them: the
/// presets first (the GPU, the model), so that explicit values refine what a
/// preset filled, then every other field in its declaration's order.
pub fn decode_order() -> impl Iterator<Item = Field> {
    let presets = Field::ALL.into_iter().filter(|f| f.is_preset());
    presets.chain(Field::ALL.into_iter().filter(|f| !f.is_preset()))
}

/// Whether `query`, a link [`encode`] wrote, carries `field`: a key written
/// only where it differs from its default (or its preset's value) is there
/// exactly when the field was set.
pub fn carries(query: &str, field: Field) -> bool {
    query
        .trim_start_matches('?')
        .split('&')
        .any(|pair| pair.split('=').next() == Some(field.key()))
}

/// Every field a link may carry, in the order [`encode`] writes them.
pub fn all_fields() -> impl Iterator<Item = Field> {
    Field::ALL.into_iter()
}

pub use crate::input::field::{default_model, DEFAULT_ARCHITECTURE_PRESET};

/// The link's text for one field of `config` (empty for a field it does not
/// hold): the field's [`Field::read`].
pub fn value_of(config: &Config, field: Field) -> String {
    field.read(config)
}

/// Reads a query string (with or without its leading `?`) into a configuration.
///
/// When a key appears more than once the first occurrence counts, as with the
/// browser's `URLSearchParams.get`, and the second is said as a problem. The version key `v` chooses the reader; a
/// link without it is version 1. Every version reads every key by
/// [`decode_keys`]; a version-1 link with a model then keeps its meaning of an
/// absent `mfu`, 0.4 for every kernel (without a model there is no step
/// time, and it reads as today's).
pub fn decode(query: &str) -> DecodedLink {
    let query = query.strip_prefix('?').unwrap_or(query);
    // Only known keys matter, so only they are remembered: no hashing of hostile input.
    let known = |key: &str| key == VERSION_KEY || all_fields().any(|f| f.key() == key);
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut problems = Vec::new();
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        if !known(&key) {
            continue;
        }
        match pairs.iter().find(|(seen, _)| *seen == key) {
            None => pairs.push((key.into_owned(), value.into_owned())),
            // Given again: said, once a key, and the first value kept.
            Some((_, first)) => {
                let field = all_fields().find(|f| f.key() == key);
                let said = problems.iter().any(|p: &LinkProblem| p.key == key);
                if let (Some(field), false) = (field, said) {
                    problems.push(LinkProblem {
                        key: key.into_owned(),
                        value: value.into_owned(),
                        error: Some(field.error(InputErrorKind::GivenTwice)),
                        used: first.clone(),
                    });
                }
            }
        }
    }
    // A link without `v` is version 1.
    let version = match pairs.iter().find(|(key, _)| key == VERSION_KEY) {
        None => "1",
        Some((_, version)) => match VERSIONS.iter().find(|v| **v == version.trim()) {
            Some(known) => known,
            // As before version 2: an unknown version is read as version 1.
            None => {
                problems.push(LinkProblem {
                    key: VERSION_KEY.to_string(),
                    value: version.clone(),
                    error: None,
                    used: "1".to_string(),
                });
                "1"
            }
        },
    };
    let mut decoded = decode_keys(&pairs, version);
    // Version 1's absent efficiency was 0.4, every kernel: a version-1 link
    // with a model (the step time needs one) keeps it. Without a model no
    // figure depends on it, and the link reads as today's (the bare page,
    // an embed's `?embed=1`).
    if version == "1" && decoded.config.model.is_some() {
        decoded.config.speed.kernel_model = false;
    }
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
        used: String::new(),
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

/// The keys of a link of contract `version`: each known key parsed by its
/// field's rules; unknown keys (and `v`) ignored; a bad value reported and
/// left at its default; then the rules between keys, each break set aside.
fn decode_keys(pairs: &[(String, String)], version: &str) -> DecodedLink {
    let value = |field: Field| pairs.iter().find(|(key, _)| key == field.key());
    let (mut config, errors) =
        apply_in_order(|config, field| value(field).map(|(_, text)| apply(config, field, text)));
    // Before version 3 an absent `weights` meant 16 bits, whatever the model.
    if matches!(version, "1" | "2") && value(Field::Weights).is_none() {
        config.serve.weights = vram_serve::weights::WeightFormat::Bf16;
    }
    // A serving or RL link without `engine_version` was written before the
    // key, when vLLM 0.20.0's arithmetic was the only one.
    if Field::EngineVersion.jobs().contains(config.job) && value(Field::EngineVersion).is_none() {
        config.serve.vllm_release = vram_serve::kv_cache::VllmRelease::V0_20_0;
    }
    let mut problems: Vec<LinkProblem> = errors
        .into_iter()
        .map(|error| set_aside(pairs, error.field, error))
        .collect();
    set_aside_impossible_model(pairs, &mut config, &mut problems);
    if let Some(model) = &config.model {
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
    // Serving and RL need a model: without one, the served default.
    if config.job != Job::Train && config.model.is_none() {
        config.model = default_served_model();
        if let Some(model) = &config.model {
            config.params_billions = model.params_billions();
        }
    }
    apply_job_rules(pairs, &mut config, &mut problems);
    // A context reserve that leaves nothing usable is set aside.
    if let Err(error) = config.budget() {
        if error.field == Field::Context {
            problems.push(set_aside(pairs, Field::Context, error));
            config.runtime.context_gb = 0.0;
        }
    }
    let problems = in_link_order(pairs, problems, &config);
    DecodedLink { config, problems }
}

/// An architecture whose values are each in range may still be impossible (heads
/// not dividing the hidden size) or too large or small: the key the link
/// wrote that makes it so is set aside for its preset's value, and named
/// (the error names the other field it conflicts with).
fn set_aside_impossible_model(
    pairs: &[(String, String)],
    config: &mut Config,
    problems: &mut Vec<LinkProblem>,
) {
    for _ in 0..pairs.len() {
        let Some(model) = config.model else { break };
        let Err(error) = model_check(model) else {
            break;
        };
        let culprit = pairs
            .iter()
            .rev()
            .filter_map(|(key, _)| all_fields().find(|f| f.key() == key))
            .filter(|f| f.filled_by() == Some(Field::Model))
            .find(|&field| model_check(with_preset_value(model, field)) != Err(error));
        match culprit {
            Some(field) => {
                problems.push(set_aside(pairs, field, error));
                config.model = Some(with_preset_value(model, field));
            }
            None => {
                let typed = pairs
                    .iter()
                    .filter_map(|(key, _)| all_fields().find(|f| f.key() == key))
                    .find(|f| f.filled_by() == Some(Field::Model))
                    .unwrap_or(error.field);
                problems.push(set_aside(pairs, typed, error));
                config.model = Some(ModelSpec {
                    architecture: model.base.architecture,
                    ..model
                });
                break;
            }
        }
    }
}

/// A set of rules between fields as a check: the error of the first rule a
/// configuration breaks, if any.
type RuleCheck = fn(&Config) -> Result<(), InputError>;

/// What a set of rules does with an error: takes its field back to its
/// default, or false for an error the rules do not set aside.
type RuleReset = fn(&mut Config, InputError) -> bool;

/// The rules of the link's job, each key that breaks one set aside for its
/// default: training's (Hugging Face's accounting on a model it does not
/// cover, a largest layer larger than the model, autocast without a mixed
/// precision; a serving link keeps its training keys as written), serving's,
/// or RL's (training's for the actor's keys, serving's for the rollout's,
/// RL's own), for at most 10, 10 or 40 rounds.
fn apply_job_rules(
    pairs: &[(String, String)],
    config: &mut Config,
    problems: &mut Vec<LinkProblem>,
) {
    let (rounds, check, reset): (usize, RuleCheck, RuleReset) = match config.job {
        Job::Train => (10, |config| config.setup().map(drop), reset_for_training),
        Job::Serve => (10, Config::serve_check, reset_for_serving),
        Job::Rl => (40, Config::rl_check, |config, error| {
            !matches!(error.kind, InputErrorKind::VerlBatch { .. })
                && reset_for_rl(config, error.field)
        }),
    };
    if config.job == Job::Rl {
        set_aside_verl_batch(pairs, config, problems);
    }
    set_aside_each_break(pairs, config, problems, rounds, check, reset);
    if config.job == Job::Rl {
        set_aside_verl_batch(pairs, config, problems);
    }
}

/// verl's batch rule (prompts × rollouts a multiple of its GPUs or
/// data-parallel micro-batches, `Config::check_verl_batch`) spans several
/// keys: the one set aside is the first the link typed of the prompts, the
/// rollouts, the GPUs, the nodes, the micro-batch and the layout, named
/// with the rule, never a key the link did not write.
fn set_aside_verl_batch(
    pairs: &[(String, String)],
    config: &mut Config,
    problems: &mut Vec<LinkProblem>,
) {
    const KEYS: [Field; 8] = [
        Field::Prompts,
        Field::Rollouts,
        Field::Gpus,
        Field::Nodes,
        Field::MicroBatch,
        Field::Tp,
        Field::Pp,
        Field::Cp,
    ];
    for _ in 0..KEYS.len() {
        let Err(error) = config.check_verl_batch() else {
            break;
        };
        let typed = |f: &Field| pairs.iter().any(|(k, _)| k == f.key());
        let already = |f: &Field| problems.iter().any(|p| p.key == f.key());
        let Some(field) = KEYS.into_iter().find(|f| typed(f) && !already(f)) else {
            break;
        };
        reset_to_default(config, field);
        problems.push(set_aside(pairs, field, field.error(error.kind)));
    }
}

/// Sets aside, one key a round and for at most `rounds` rounds, the key
/// whose value breaks the first rule `check` finds: `reset` takes the
/// error's field back to its default, or says false for an error these
/// rules do not set aside, which ends the rounds as a passing check does.
fn set_aside_each_break(
    pairs: &[(String, String)],
    config: &mut Config,
    problems: &mut Vec<LinkProblem>,
    rounds: usize,
    check: RuleCheck,
    reset: RuleReset,
) {
    for _ in 0..rounds {
        let Err(error) = check(config) else {
            break;
        };
        if !reset(config, error) {
            break;
        }
        problems.push(set_aside(pairs, error.field, error));
    }
}

/// Takes `field` back to its default when `job`'s rules set it aside (its
/// declaration's `set_aside`); false for a field they do not, or one of
/// the model's without a model.
fn set_aside_by(config: &mut Config, field: Field, job: Job) -> bool {
    field.declaration().set_aside.contains(job) && reset_to_default(config, field)
}

/// Takes `field` back to its default: the default configuration's value,
/// or for one of the model's, the value its preset chosen afresh has
/// (no expert parallelism, a micro-batch of 1, every layer recomputed
/// when recomputing, Megatron's accounting), its architecture kept.
/// False where the field cannot hold that value (a model's without a model).
fn reset_to_default(config: &mut Config, field: Field) -> bool {
    let defaults = Config {
        model: config.model.map(|model| ModelSpec {
            architecture: model.architecture,
            ..ModelSpec::of(model.base)
        }),
        ..Config::default()
    };
    match field.read(&defaults) {
        text if text.is_empty() && field.is_optional() => {
            (field.declaration().unset)(config);
            true
        }
        // One of the model's, without a model: nothing to go back to.
        text if text.is_empty() => false,
        text => field.write(config, &text).is_ok(),
    }
}

/// Takes the field of `error`, which breaks one of training's rules, back
/// to its default; false for an error these rules do not set aside. An
/// adapter that needs a dense model is checked first, whatever its field:
/// its targets, or else the adapter itself, go.
fn reset_for_training(config: &mut Config, error: InputError) -> bool {
    match (error.kind, error.field) {
        (InputErrorKind::DenseOnly, Field::Targets) => reset_to_default(config, Field::Targets),
        (InputErrorKind::DenseOnly, _) => reset_to_default(config, Field::Method),
        (_, field) => set_aside_by(config, field, Job::Train),
    }
}

/// Takes the field of `error`, which breaks one of serving's rules, back to
/// its default; false for an error these rules do not set aside.
fn reset_for_serving(config: &mut Config, error: InputError) -> bool {
    set_aside_by(config, error.field, Job::Serve)
}

/// Takes `field`, which breaks one of RL's rules, back to its default; an
/// adapter's targets take the adapter with them, and one of
/// recomputation's fields the whole of it. False for a field these rules
/// do not set aside, or one of the model's without a model.
fn reset_for_rl(config: &mut Config, field: Field) -> bool {
    match field {
        Field::Targets => reset_to_default(config, Field::Method),
        Field::RecomputeMethod | Field::RecomputeLayers | Field::RecomputeModules => [
            Field::RecomputeMethod,
            Field::RecomputeLayers,
            Field::RecomputeModules,
        ]
        .into_iter()
        .all(|field| reset_to_default(config, field)),
        field => set_aside_by(config, field, Job::Rl),
    }
}

/// Problems in the order the link wrote them (those of no key first), by
/// a pass over the keys: the standard sort's code would be 1.5 KB of the
/// page's first view, for a handful of problems. Each then says the value
/// `config` holds for its key instead.
fn in_link_order(
    pairs: &[(String, String)],
    mut problems: Vec<LinkProblem>,
    config: &Config,
) -> Vec<LinkProblem> {
    let mut ordered = Vec::with_capacity(problems.len());
    for (key, _) in pairs {
        if let Some(i) = problems.iter().position(|p| p.key == *key) {
            ordered.push(problems.remove(i));
        }
    }
    problems.append(&mut ordered);
    for problem in &mut problems {
        if let Some(field) = all_fields().find(|f| f.key() == problem.key) {
            problem.used = field.read(config);
        }
    }
    problems
}

/// Whether `model`'s architecture is possible on its own: [`Config::params`].
fn model_check(model: ModelSpec) -> Result<(), InputError> {
    let whole = Config {
        model: Some(model),
        ..Config::default()
    };
    whole.params().map(|_| ())
}

/// `model` with `field`, a field its preset fills, back at the preset's value.
fn with_preset_value(model: ModelSpec, field: Field) -> ModelSpec {
    let preset = Config {
        model: Some(ModelSpec {
            architecture: model.base.architecture,
            ..model
        }),
        ..Config::default()
    };
    let mut config = Config {
        model: Some(model),
        ..Config::default()
    };
    // The preset's own value is in range: writing it back cannot fail.
    let _ = field.write(&mut config, &field.read(&preset));
    config.model.unwrap_or(model)
}

/// Parses `text` as `field`'s value and stores it in `config`; on error
/// `config` is unchanged: the field's [`Field::write`].
pub fn apply(config: &mut Config, field: Field, text: &str) -> Result<(), InputError> {
    field.write(config, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parts::Parts;
    use crate::frameworks::deepspeed::Offload;
    use crate::frameworks::runtime::Accounting;
    use crate::frameworks::runtime::OffloadDevice;
    use crate::memory::activations::Recompute;
    use crate::memory::{GradientPrecision, Optimizer, Precision, Strategy};
    use vram_shared::format::{Lang, MemoryUnit, Theme};
    use vram_shared::model::architecture::Mlp;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[test]
    fn a_field_set_aside_takes_its_default_and_an_optional_one_is_unset() {
        // Away from the defaults in every field a job's rules set aside: a
        // model with experts, each choice its first other value, each
        // number one in range; written as they are, the rules between
        // fields not applied.
        let mut away = decode("job=rl&model=qwen3-30b-a3b").config;
        let numbers = "gpus=16&tp=2&pp=2&vpp=2&cp=2&ep=2&pp_first=10&pp_last=10\
            &recompute_layers=2&shard_group=8&achieved=300&largest_layer=500&block=32\
            &batched_tokens=4096&max_num_seqs=64&rollout_tp=2&rollout_gpus=8\
            &token_budget=8192&prompt_mean=400&response_mean=900&context=1&slack=0.5\
            &prompt_len=500&response_len=900&kv_memory=20&max_len=4096&measured=w7.13,r1.6\
            &pp_layout=Et|tL&teacher=qwen3-8b&critic_model=qwen3-8b&reward_model=qwen3-8b";
        for (key, value) in form_urlencoded::parse(numbers.as_bytes()) {
            let field = all_fields().find(|f| f.key() == key);
            let field = field.unwrap_or_else(|| panic!("{key} is no key"));
            field
                .write(&mut away, &value)
                .unwrap_or_else(|e| panic!("{key}: {e:?}"));
        }
        for field in Field::ALL.into_iter().filter(|f| !f.choices().is_empty()) {
            let now = field.read(&away);
            if let Some(other) = field.choices().iter().find(|&&c| c != now) {
                let _ = field.write(&mut away, other);
            }
        }
        let defaults = Config::default();
        let mut moved = 0;
        for field in Field::ALL {
            if field.declaration().set_aside == crate::config::job::Jobs::NONE {
                continue;
            }
            let mut config = away;
            assert!(reset_to_default(&mut config, field), "{field:?}");
            // A model's field goes back to what its preset chosen afresh has.
            let default = field.read(&Config {
                model: away.model.map(|m| ModelSpec {
                    architecture: m.architecture,
                    ..ModelSpec::of(m.base)
                }),
                ..defaults
            });
            assert_eq!(field.read(&config), default, "{field:?}");
            moved += usize::from(field.read(&away) != default);
        }
        // The link moved most of them away from their defaults.
        assert!(moved >= 45, "{moved} fields moved");
    }

    /// A fold's summary names what the link carries: a key set away from its
    /// default, or a model's own (Mixtral's experts), never a key that only
    /// starts like it.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_link_carries_the_fields_set_away_from_their_defaults() {
        let query = encode(&decode("?model=mixtral-8x7b&tp=2&offload=optimizer").config);
        assert!(carries(&query, Field::Tp) && carries(&query, Field::Offload));
        assert!(carries(&query, Field::Experts) && !carries(&query, Field::Pp));
        assert!(!carries(&query, Field::OffloadTo), "{query}");
        let query = encode(&decode("?model=llama2-7b").config);
        assert!(!carries(&query, Field::Experts) && !carries(&query, Field::HeadDim));
    }

    /// Issue 41, failure 6: an impossible architecture names the key the
    /// link wrote, the error the other field it conflicts with, and the value
    /// used instead the preset's; the rest of what the link wrote is kept.
    #[wasm_bindgen_test(unsupported = test)]
    fn an_impossible_architecture_names_the_key_the_link_wrote() {
        let decoded = decode("?model=qwen3-0.6b&hidden=1&layers=30");
        assert_eq!(decoded.problems.len(), 1, "{:?}", decoded.problems);
        let problem = &decoded.problems[0];
        assert_eq!(
            (problem.key.as_str(), problem.value.as_str()),
            ("hidden", "1")
        );
        assert_eq!(problem.error.unwrap().field, Field::Params);
        assert_eq!(problem.used, "1024");
        let model = decoded.config.model.unwrap();
        assert_eq!(
            (model.architecture.hidden, model.architecture.layers),
            (1024, 30)
        );
        let decoded = decode("?hidden=1");
        let problem = &decoded.problems[0];
        assert_eq!(problem.key, "hidden");
        assert_eq!(problem.error.unwrap().field, Field::Heads);
        assert_eq!(problem.used, "4096");
        assert_eq!(problem.error.unwrap().kind, InputErrorKind::NotDivisible);
        // Two keys that each break it are both named, the last first undone.
        let decoded = decode("?model=llama2-7b&hidden=4100&heads=41");
        let keys: Vec<_> = decoded.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["hidden", "heads"]);
        assert_eq!(
            decoded.config.model.unwrap().architecture,
            decode("model=llama2-7b").config.model.unwrap().architecture
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn a_lesson_embed_is_written_readably_and_only_when_used() {
        use crate::config::parts::Part;
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

    #[wasm_bindgen_test(unsupported = test)]
    fn default_config_encodes_every_key() {
        assert_eq!(
            encode(&Config::default()),
            "v=3&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp"
        );
    }

    /// Version 2 (issue 48): an absent `mfu` is the kernel model; a
    /// version-1 link with a model (`v=1`, or keys and no `v`) keeps its 0.4
    /// for every kernel, and writing it again says so (`mfu=0.4`), so the
    /// page's version-2 link means what the old one did. Without a model
    /// (no step time) a version-1 link reads as today's.
    #[wasm_bindgen_test(unsupported = test)]
    fn version_1_keeps_its_efficiency_and_version_2_models_the_kernels() {
        let old = decode("v=1&model=llama3-8b&gpu=h100-80gb").config;
        assert!(!old.speed.kernel_model);
        assert_eq!(old.speed.mfu, 0.4);
        assert!(!decode("model=llama3-8b").config.speed.kernel_model);
        let written = encode(&old);
        assert!(
            written.starts_with("v=3&") && written.ends_with("&mfu=0.4"),
            "{written}"
        );
        assert_eq!(decode(&written).config, old);
        let new = decode("v=2&model=llama3-8b&gpu=h100-80gb").config;
        assert!(new.speed.kernel_model);
        assert!(!encode(&new).contains("mfu="));
        let typed = decode("v=2&model=llama3-8b&mfu=0.5").config;
        assert_eq!((typed.speed.kernel_model, typed.speed.mfu), (false, 0.5));
        assert!(decode("v=1&params=13").config.speed.kernel_model);
        // The step differs: the kernel model's H100 runs Llama 3 8B's kernels
        // at more than 0.4 of the peak.
        let step = |c: Config| c.report().unwrap().highlighted().time.unwrap();
        assert!(step(new).step_seconds < step(old).step_seconds);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_choice_listed_by_a_field_decodes() {
        for field in Field::ALL {
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

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
    fn links_without_grad_acc_keep_the_lessons_gradients() {
        let old = decode("?params=7&dtype=bf16&opt=adam");
        assert_eq!(old.config.gradients, GradientPrecision::AsWeights);
        let megatron = decode("?dtype=bf16&grad_acc=fp32").config.report().unwrap();
        // 2 + 4 + 12 = 18 bytes per parameter: 7 B × 18 = 126 GB under DDP.
        assert_eq!(megatron.strategy(Strategy::Ddp).memory.total.gb(), 126.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
    fn empty_query_is_the_lesson_default() {
        for query in ["", "?", "?v=1", "?v=2", "utm_source=course"] {
            assert_eq!(
                decode(query),
                DecodedLink {
                    config: Config::default(),
                    problems: vec![]
                }
            );
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
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

    #[wasm_bindgen_test(unsupported = test)]
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

    // The English words are the CLI's: the WebAssembly build leaves the
    // fields' labels out (`for_target`), so this runs natively only.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn bad_values_take_their_default_and_are_named() {
        let decoded = decode("params=abc&gpus=0&dtype=fp4&overhead=0.5&stage=4&opt=SGD");
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
            decoded.problems[0].error.map(|e| e.kind),
            Some(InputErrorKind::NotANumber)
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn values_are_percent_decoded_and_first_key_wins() {
        let decoded = decode("params=%3Cscript%3E&params=9&gpus=%2016%20&dtype=bf%31%36");
        assert_eq!(decoded.config.gpus, 16);
        assert_eq!(decoded.config.params_billions, 7.0);
        assert_eq!(decoded.config.precision, Precision::Bf16);
        // The bad first value, and the second `params` said, not silently dropped.
        assert_eq!(decoded.problems.len(), 2);
        assert_eq!(decoded.problems[0].value, "9");
        assert_eq!(
            decoded.problems[0].error.map(|e| e.kind),
            Some(InputErrorKind::GivenTwice)
        );
        assert_eq!(decoded.problems[0].used, "<script>");
        assert_eq!(decoded.problems[1].value, "<script>");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn unsupported_version_is_reported_and_read_as_v1() {
        // `v=3` here before version 3 came (issue 60); still unknown: `v=4`.
        let decoded = decode("v=4&params=13");
        assert_eq!(decoded.config.params_billions, 13.0);
        assert_eq!(decoded.only_problem(), ("v", None));
    }

    /// Version 3 (issue 60): a model is served as its checkpoint ships
    /// (gpt-oss in MXFP4, DeepSeek-V3 in FP8 blocks) unless `weights` says
    /// otherwise; an older link without `weights` keeps 16 bits, and
    /// writing it again says so. A 16-bit model's link carries no `weights`.
    #[wasm_bindgen_test(unsupported = test)]
    fn version_3_serves_a_model_as_its_checkpoint_ships() {
        use vram_serve::weights::WeightFormat;
        let gpt_oss = "job=serve&model=gpt-oss-120b&gpu=h100-80gb&gpus=1";
        let new = decode(&format!("v=3&{gpt_oss}")).config;
        assert_eq!(new.serve.weights, WeightFormat::Mxfp4);
        assert!(!encode(&new).contains("weights="), "{}", encode(&new));
        let old = decode(&format!("v=2&{gpt_oss}")).config;
        assert_eq!(old.serve.weights, WeightFormat::Bf16);
        let written = encode(&old);
        assert!(written.contains("&weights=bf16"), "{written}");
        assert_eq!(decode(&written).config, old);
        assert_eq!(decode(gpt_oss).config.serve.weights, WeightFormat::Bf16);
        let deepseek = decode("v=3&job=serve&model=deepseek-v3&gpu=h200&gpus=8&tp=8").config;
        assert_eq!(deepseek.serve.weights, WeightFormat::Fp8Block);
        let llama = decode("v=3&job=serve&model=llama3.1-8b&weights=fp8").config;
        assert_eq!(llama.serve.weights, WeightFormat::Fp8);
        assert!(encode(&llama).contains("&weights=fp8"));
    }

    /// A serving or RL link carries its vLLM release (issue 60): one from
    /// before the key reads as 0.20.0 and is written back so; a new one takes
    /// the newest, and writes it, so that a later release leaves it alone; a
    /// training link carries none.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_serving_link_keeps_its_vllm_release() {
        use vram_serve::kv_cache::VllmRelease;
        let old = decode("v=2&job=serve&model=llama3.1-8b").config;
        assert_eq!(old.serve.vllm_release, VllmRelease::V0_20_0);
        assert!(encode(&old).contains("&engine_version=0.20.0"));
        let rl = decode("v=3&job=rl&model=qwen2.5-7b").config;
        assert_eq!(rl.serve.vllm_release, VllmRelease::V0_20_0);
        assert_eq!(Config::default().serve.vllm_release, VllmRelease::NEWEST);
        let new = decode("v=3&job=serve&engine_version=0.34.0").config;
        assert_eq!(new.serve.vllm_release, VllmRelease::V0_34_0);
        let written = encode(&new);
        assert!(written.contains("&engine_version=0.34.0"), "{written}");
        assert_eq!(decode(&written).config, new);
        assert!(!encode(&Config::default()).contains("engine_version"));
        let bad = decode("v=3&job=serve&engine_version=0.19.0");
        assert_eq!(
            bad.only_problem(),
            ("engine_version", Some(InputErrorKind::UnknownChoice))
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
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
