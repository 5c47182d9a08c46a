//! The page's form as data: what a person types, field by field, shown from a
//! configuration and read back by the shared link's own rules.
//!
//! The form keeps one text per [`Field`] (a choice is its key, as in the link)
//! and nothing else. [`parse`] starts from the defaults and applies each text in
//! the link decoder's order with [`link::apply`], then checks what only the whole
//! configuration can tell (heads dividing the hidden size, GPUs × nodes). So a
//! value typed in the form means exactly what it means in a link.
//!
//! What the form does differently from a link, each a rule of its own here:
//! - a fraction (the reserved share, the allocator's slack) is typed as a percentage ([`Field::is_percent`]);
//! - an optional field left empty is unset ([`Field::is_optional`]);
//! - a field outside its [`Scope`] is not read: the size without a model, the
//!   architecture with one;
//! - choosing a preset fills the fields it determines ([`edited`]).

use crate::config::Config;
use crate::input::field::{default_model, DEFAULT_ARCHITECTURE_PRESET};
use crate::input::link::{self, apply, value_of};
use crate::input::{parse_percent, percent_text, Field, InputError, Scope};

/// What the form's control of `field` shows for `config`.
///
/// Like the link's [`value_of`], but a fraction is a percentage, and
/// without a model the architecture fields show the model a link's architecture
/// keys would start from (they are hidden then, and ready when one is chosen),
/// and a GPU's memory reads as people write it (85.9 GB, which the form reads
/// back as the card's exact 85.89934592).
pub fn text_of(config: &Config, field: Field) -> String {
    if field.is_percent() {
        // The link's fraction, as a percentage; an unset optional one empty.
        let fraction = value_of(config, field);
        return match vram_shared::decimal::parse_decimal(&fraction) {
            Some(fraction) => percent_text(fraction),
            None => fraction,
        };
    }
    if let (Field::GpuMemory, Some(gpu)) = (field, config.gpu) {
        return vram_shared::decimal::shortest_decimal(gpu.memory_gb_shown());
    }
    match (config.model, field.scope()) {
        (None, Scope::WithModel) => {
            let with_model = Config {
                model: default_model(),
                ..*config
            };
            value_of(&with_model, field)
        }
        _ => value_of(config, field),
    }
}

/// The keys a choice field's control offers, in order: its [`Field::choices`],
/// or for a preset field none (`""`: the size only, or custom memory) and then
/// every preset's id; a text's none alone (what is typed is its own).
pub fn options(field: Field) -> Vec<&'static str> {
    use vram_shared::gpu::GPU_PRESETS;
    use vram_shared::model::presets::MODEL_PRESETS;
    match field {
        Field::Model => core::iter::once("")
            .chain(MODEL_PRESETS.iter().map(|m| m.id))
            .collect(),
        Field::Teacher | Field::CriticModel | Field::RewardModel => {
            core::iter::once("").chain(field.preset_ids()).collect()
        }
        Field::Gpu => core::iter::once("")
            .chain(GPU_PRESETS.iter().map(|g| g.id))
            .collect(),
        // Unset: FlashAttention decides (SDPA's flash kernel, or eager).
        Field::Attention => core::iter::once("")
            .chain(field.choices().iter().copied())
            .collect(),
        // A text: unset, or what is typed.
        _ if field.is_text() => vec![""],
        _ => field.choices().to_vec(),
    }
}

/// Whether the list `text` (a list field's comma-separated keys, as typed or
/// as the link holds it) names `key`, case and spaces around each ignored.
pub fn lists(text: &str, key: &str) -> bool {
    text.split(',')
        .any(|item| item.trim().eq_ignore_ascii_case(key))
}

/// The list `text` of `field` with `key` turned on or off: the field's keys
/// that are on, in the order of its [`Field::choices`], comma-separated (an
/// unknown item is dropped; nothing on gives the empty text, which the field
/// refuses with its own message).
pub fn toggled(field: Field, text: &str, key: &str, on: bool) -> String {
    field
        .choices()
        .iter()
        .filter(|&&k| if k == key { on } else { lists(text, k) })
        .copied()
        .collect::<Vec<_>>()
        .join(",")
}

/// Stores what the form's control of `field` holds in `config`: [`link::apply`],
/// with a fraction read as a percentage.
pub fn apply_typed(config: &mut Config, field: Field, text: &str) -> Result<(), InputError> {
    if field.is_percent() && !(field.is_optional() && text.trim().is_empty()) {
        let fraction = parse_percent(field, text)?;
        return apply(
            config,
            field,
            &vram_shared::decimal::shortest_decimal(fraction),
        );
    }
    apply(config, field, text)
}

/// The configuration the form describes, given each field's text, or every
/// problem, each naming its field.
///
/// Each field is applied in [`link::decode_order`] (the model and the GPU first)
/// unless it is an optional field left empty or outside its scope; every field
/// that fails is reported. Then the rules between fields are checked.
pub fn parse(mut text: impl FnMut(Field) -> String) -> Result<Config, Vec<InputError>> {
    let (mut config, errors) = link::apply_in_order(|config, field| {
        let typed = text(field);
        let unset = field.is_optional() && typed.trim().is_empty();
        let used = field.scope().applies(config.model.is_some());
        (!unset && used).then(|| apply_typed(config, field, &typed))
    });
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Some(model) = &config.model {
        config.params_billions = model.params_billions();
    }
    // The architecture as a whole, the model's size, GPUs × nodes; or
    // serving's rules.
    config.check().map(|_| config).map_err(|e| vec![e])
}

/// The other fields whose text changes when the user sets `field` to `text`,
/// with their new text, given what every field holds now (`text_of_field`).
///
/// Choosing a model fills its architecture (the step, sequence and micro-batch,
/// stays as typed); choosing a GPU fills its memory; typing a memory other than
/// the chosen GPU's makes the GPU custom.
pub fn edited(
    field: Field,
    text: &str,
    text_of_field: impl Fn(Field) -> String,
) -> Vec<(Field, String)> {
    let mut filled = preset_and_job_fills(field, text, &text_of_field);
    if let Some(tp) = serving_tp(field, text, &text_of_field, &filled) {
        filled.push(tp);
    }
    filled
}

/// Serving's TP where the engine does not start at the TP the form holds,
/// when the job switches to serving or a model is chosen while serving: the
/// smallest TP within the node that starts it ([`Config::serve_runnable_tp`];
/// issue 63: serving opened at TP 1 whatever the model, and Llama 3.1 70B
/// did not start). A TP that starts the model stays, and so does a layout
/// with pipeline stages.
fn serving_tp(
    field: Field,
    text: &str,
    text_of_field: &dyn Fn(Field) -> String,
    filled: &[(Field, String)],
) -> Option<(Field, String)> {
    let with = |f: Field| match (f == field, filled.iter().find(|(g, _)| *g == f)) {
        (true, _) => text.to_string(),
        (false, Some((_, t))) => t.clone(),
        (false, None) => text_of_field(f),
    };
    let serving = with(Field::Job) == crate::config::job::Job::Serve.key();
    let asked = matches!(field, Field::Job | Field::Model);
    if !(serving && asked && with(Field::Pp) == "1") {
        return None;
    }
    let config = parse(with).ok()?;
    let current = config.runtime.layout.tp;
    let starts = config.serve_report().is_ok_and(|r| {
        !matches!(
            r.shortfall,
            Some(
                vram_serve::report::Shortfall::NoKvMemory
                    | vram_serve::report::Shortfall::MaxLen { .. }
            )
        )
    });
    let tp = config
        .serve_runnable_tp()
        .filter(|&tp| !starts && tp != current)?;
    Some((Field::Tp, tp.to_string()))
}

/// What choosing a preset or switching the job fills ([`edited`]).
fn preset_and_job_fills(
    field: Field,
    text: &str,
    text_of_field: &dyn Fn(Field) -> String,
) -> Vec<(Field, String)> {
    let mut preset = Config::default();
    match field {
        Field::Model | Field::Gpu if apply(&mut preset, field, text).is_ok() => filled_by(field)
            .iter()
            .map(|&filled| (filled, value_of(&preset, filled)))
            .collect(),
        Field::GpuMemory => {
            let gpu = text_of_field(Field::Gpu);
            let mut chosen = Config::default();
            let keeps_gpu = gpu.is_empty()
                || (apply(&mut chosen, Field::Gpu, &gpu).is_ok()
                    && apply(&mut chosen, Field::GpuMemory, text).is_ok()
                    && chosen.gpu.is_some());
            match keeps_gpu {
                true => Vec::new(),
                false => vec![(Field::Gpu, String::new())],
            }
        }
        // Adapters need a model's layers: with none chosen, the model a link's
        // step keys start from is filled in, as a link without one would use.
        Field::Method if text != "full" && text_of_field(Field::Model).is_empty() => {
            let model = DEFAULT_ARCHITECTURE_PRESET.to_string();
            let mut filled = preset_and_job_fills(Field::Model, &model, text_of_field);
            filled.push((Field::Model, model));
            filled
        }
        // Serving and RL need a model: with none chosen, the served default.
        // RL trains in BF16 as verl, OpenRLHF and TRL run it: the lesson's
        // mixed FP16 becomes BF16 (a link keeps the `dtype` it wrote).
        Field::Job if text != "train" => {
            let rl = text == crate::config::job::Job::Rl.key();
            let to_bf16 = rl && text_of_field(Field::Precision) == "fp16";
            // The lesson's 20 % reserve is training's rule of thumb; RL's
            // phases are held to the GPU less what the engine and the
            // trainer count themselves, as the frameworks' own runs are.
            let to_no_reserve =
                rl && text_of_field(Field::Overhead) == percent_text(Config::default().overhead);
            // The lesson's DDP keeps every state whole on each GPU; the
            // actor learns sharded, as verl's FSDP workers shard it (ZeRO-3).
            let to_zero3 = rl && text_of_field(Field::Stage) == Config::default().highlight.key();
            let mut filled = Vec::new();
            if text_of_field(Field::Model).is_empty() {
                let model = crate::config::job::DEFAULT_SERVED_MODEL.to_string();
                filled = preset_and_job_fills(Field::Model, &model, text_of_field);
                filled.push((Field::Model, model));
            }
            if to_bf16 {
                filled.push((Field::Precision, "bf16".to_string()));
            }
            if to_no_reserve {
                filled.push((Field::Overhead, "0".to_string()));
            }
            if to_zero3 {
                let zero3 = crate::memory::Strategy::Zero3.key();
                filled.push((Field::Stage, zero3.to_string()));
            }
            filled
        }
        _ => Vec::new(),
    }
}

/// The choice fields whose options the form marks as refused before one is
/// chosen ([`refuses`]): the serving engine, whose allocation is not
/// reproduced for every model's layers (TensorRT-LLM under windows).
pub const MARKS_REFUSED_OPTIONS: [Field; 1] = [Field::Engine];

/// Whether choosing `key` for `field` would be refused for that field
/// itself, given what every other field holds (`text_of_field`): its own
/// error, not another field's, so that the form can mark the option before
/// it is chosen.
pub fn refuses(field: Field, key: &str, text_of_field: impl Fn(Field) -> String) -> bool {
    let with_key = |f: Field| match f == field {
        true => key.to_string(),
        false => text_of_field(f),
    };
    match parse(with_key) {
        Ok(_) => false,
        Err(errors) => errors.iter().any(|error| error.field == field),
    }
}

/// Whether the form's control of `field` takes input, given what every field
/// holds now: a field outside its [`Scope`] is greyed (the size when a model
/// gives it), and so is one whose declaration [`needs`](crate::input::Declaration::needs)
/// what the others do not give (DeepSpeed's buffer sizes while its buffers are
/// not counted, LoRA's settings under full training; they are still read, so
/// that a link's values are kept).
pub fn is_enabled(field: Field, text_of_field: impl Fn(Field) -> String) -> bool {
    let with_model = !text_of_field(Field::Model).is_empty();
    let needed = field
        .declaration()
        .needs
        .is_none_or(|needs| needs(&text_of_field));
    let job = crate::config::job::Job::ALL
        .into_iter()
        .find(|j| j.key() == text_of_field(Field::Job))
        .unwrap_or_default();
    field.scope().applies(with_model) && needed && field.jobs().contains(job)
}

/// The fields a preset field fills when a preset is chosen (their
/// [`Field::filled_by`]), in their declaration's order.
pub fn filled_by(field: Field) -> Vec<Field> {
    Field::ALL
        .into_iter()
        .filter(|f| f.filled_by() == Some(field))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::field::InputErrorKind;
    use crate::input::link::decode;
    use crate::memory::Strategy;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The form's texts for `config`, as the page loads them.
    fn texts(config: &Config) -> Vec<String> {
        Field::ALL.iter().map(|&f| text_of(config, f)).collect()
    }

    fn parse_texts(texts: &[String]) -> Result<Config, Vec<InputError>> {
        parse(|field| texts[field.index()].clone())
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn field_all_is_in_declaration_order() {
        for (i, field) in Field::ALL.into_iter().enumerate() {
            assert_eq!(field.index(), i, "{field:?}");
        }
        // Every field the link knows is in the table, and only those.
        let mut linked: Vec<Field> = link::all_fields().collect();
        linked.sort_by_key(|f| f.index());
        assert_eq!(linked, Field::ALL);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn the_lessons_form_shows_the_lessons_values() {
        let texts = texts(&Config::default());
        let at = |f: Field| texts[f.index()].as_str();
        assert_eq!(at(Field::Params), "7");
        assert_eq!(at(Field::Overhead), "20");
        assert_eq!(at(Field::Precision), "fp16");
        assert_eq!(at(Field::Model), "");
        assert_eq!(at(Field::GlobalBatch), "");
        // Hidden until a model is chosen, and ready then: Llama 2 7B's.
        assert_eq!((at(Field::Layers), at(Field::Vocab)), ("32", "32000"));
        assert_eq!(parse_texts(&texts), Ok(Config::default()));
    }

    /// Issue 25: an A100 80GB's memory reads 85.9 GB in the form, not
    /// 85.89934592, and means the card's exact memory read back; another
    /// figure makes the GPU custom.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_gpus_memory_reads_as_people_write_it_and_means_the_card() {
        for (gpu, shown) in [
            ("a100-80gb", "85.9"),
            ("h100-80gb", "85.52"),
            ("t4", "16.11"),
        ] {
            let config = decode(&format!("gpu={gpu}")).config;
            let mut texts = texts(&config);
            assert_eq!(texts[Field::GpuMemory.index()], shown, "{gpu}");
            assert_eq!(parse_texts(&texts), Ok(config), "{gpu}");
            // The exact figure, as old links and the link write it, too.
            texts[Field::GpuMemory.index()] =
                vram_shared::decimal::shortest_decimal(config.gpu_mem_gb);
            assert_eq!(parse_texts(&texts), Ok(config), "{gpu}");
            texts[Field::GpuMemory.index()] = "80".into();
            let custom = parse_texts(&texts).unwrap();
            assert_eq!((custom.gpu, custom.gpu_mem_gb), (None, 80.0), "{gpu}");
        }
        assert_eq!(
            link::encode(&decode("v=2&gpu=a100-80gb").config),
            "v=3&params=7&gpus=8&gpu_mem=85.89934592&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp&gpu=a100-80gb"
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_golden_configuration_reads_back_from_its_form() {
        let golden = include_str!("../../tests/links.golden");
        let mut checked = 0;
        for line in golden.lines().filter(|l| !l.starts_with('#')) {
            let query = line.split('\t').next().unwrap_or_default();
            let config = decode(query).config;
            // What the link writes is what the form makes of it, except a largest
            // layer beside a model, which the form has no use for.
            if config.model.is_some() && config.runtime.largest_layer_millions.is_some() {
                continue;
            }
            let parsed = parse_texts(&texts(&config));
            assert_eq!(
                parsed.map(|c| link::encode(&c)),
                Ok(link::encode(&config)),
                "{query}"
            );
            checked += 1;
        }
        assert!(checked > 80, "{checked}");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_bad_field_is_reported_and_fields_out_of_scope_are_not_read() {
        let mut texts = texts(&Config::default());
        texts[Field::Params.index()] = "13x".into();
        texts[Field::Gpus.index()] = "0".into();
        texts[Field::Layers.index()] = "many".into(); // hidden: no model
        let errors = parse_texts(&texts).unwrap_err();
        let fields: Vec<Field> = errors.iter().map(|e| e.field).collect();
        assert_eq!(fields, [Field::Params, Field::Gpus]);
        assert_eq!(errors[0].kind, InputErrorKind::NotANumber);
        // With a model, the size is the architecture's and its text is not read:
        // Llama 2 7B's widths with 40 layers, a custom model.
        texts[Field::Model.index()] = "llama2-7b".into();
        texts[Field::Gpus.index()] = "8".into();
        texts[Field::Layers.index()] = "40".into();
        let model = parse_texts(&texts).unwrap().model.unwrap();
        assert_eq!(model.params_billions(), 8.357_482_496);
        assert_eq!(model.preset(), None);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn empty_optional_fields_are_unset_and_rules_between_fields_are_errors() {
        let mut texts = texts(&decode("?global_batch=64&bw=400").config);
        assert_eq!(texts[Field::GlobalBatch.index()], "64");
        texts[Field::GlobalBatch.index()] = " ".into();
        texts[Field::Bandwidth.index()] = String::new();
        let config = parse_texts(&texts).unwrap();
        assert_eq!(
            (config.global_batch, config.runtime.bandwidth_gb_per_s),
            (None, None)
        );
        // Heads that do not divide the hidden size: an error, not a preset's value.
        let mut texts = self::texts(&decode("?model=llama2-7b").config);
        texts[Field::Heads.index()] = "33".into();
        let errors = parse_texts(&texts).unwrap_err();
        assert_eq!(errors, [Field::Heads.error(InputErrorKind::NotDivisible)]);
        // Too many GPUs in all: the nodes are named.
        let mut texts = self::texts(&Config::default());
        texts[Field::Nodes.index()] = "65536".into();
        texts[Field::Gpus.index()] = "1024".into();
        assert_eq!(parse_texts(&texts).unwrap_err()[0].field, Field::Nodes);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn choosing_presets_fills_their_fields_and_other_memory_makes_the_gpu_custom() {
        let config = decode("?model=llama2-7b&seq=4096&gpu=a100-40gb").config;
        let texts = texts(&config);
        let now = |f: Field| texts[f.index()].clone();
        assert_eq!(
            filled_by(Field::Model)[..8],
            [
                Field::Layers,
                Field::Hidden,
                Field::Ffn,
                Field::Heads,
                Field::KvHeads,
                Field::Vocab,
                Field::Tied,
                Field::Mlp
            ]
        );
        let filled = edited(Field::Model, "llama3-8b", now);
        assert!(
            filled.contains(&(Field::Vocab, "128256".into())),
            "{filled:?}"
        );
        assert!(filled.contains(&(Field::KvHeads, "8".into())));
        // A mixture of experts fills its experts; back to a dense preset empties them.
        let mixtral = edited(Field::Model, "mixtral-8x7b", now);
        assert!(
            mixtral.contains(&(Field::Experts, "8".into())),
            "{mixtral:?}"
        );
        assert!(mixtral.contains(&(Field::TopK, "2".into())));
        use Field::*;
        assert_eq!(
            filled_by(Field::Model),
            [
                Layers,
                Hidden,
                Ffn,
                Heads,
                KvHeads,
                Vocab,
                Tied,
                Mlp,
                HeadDim,
                QkNorm,
                Experts,
                TopK,
                ExpertFfn,
                SharedExperts,
                SharedFfn,
                SharedGate,
                DenseLayers,
                QRank,
                KvRank,
                RopeDim,
                NopeDim,
                VDim,
                Positions,
                Biases,
                Norm,
                SandwichNorms,
                Sinks,
                Softcap,
                ParallelBlock,
                ExpertBiases,
                GatedAttention,
                FullEvery,
                LinearKeyHeads,
                LinearValueHeads,
                LinearKeyDim,
                LinearValueDim,
                ConvKernel,
                Window,
                GlobalEvery,
                Chunked,
                Mtp,
                Weights
            ]
        );
        // gpt-oss is served as it ships, in MXFP4 (issue 60).
        let gpt_oss = edited(Field::Model, "gpt-oss-120b", now);
        assert!(
            gpt_oss.contains(&(Field::Weights, "mxfp4".into())),
            "{gpt_oss:?}"
        );
        assert!(
            filled.iter().all(|(f, _)| *f != Field::Seq),
            "the step stays"
        );
        assert_eq!(edited(Field::Model, "", now), []);
        assert_eq!(
            edited(Field::Gpu, "h100-80gb", now),
            [(Field::GpuMemory, "85.520809984".into())]
        );
        assert_eq!(edited(Field::GpuMemory, "42.94967296", now), []);
        assert_eq!(
            edited(Field::GpuMemory, "40", now),
            [(Field::Gpu, String::new())]
        );
        assert_eq!(
            edited(Field::GpuMemory, "4x", now),
            [(Field::Gpu, String::new())]
        );
        assert_eq!(edited(Field::Params, "13", now), []);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn fields_are_greyed_where_they_mean_nothing() {
        let bare = texts(&Config::default());
        let enabled = |texts: &[String], f: Field| is_enabled(f, |g| texts[g.index()].clone());
        assert!(enabled(&bare, Field::Params) && enabled(&bare, Field::LargestLayer));
        assert!(!enabled(&bare, Field::Layers) && !enabled(&bare, Field::ReduceBucket));
        let model = texts(&decode("?model=llama2-7b&buffers=1").config);
        assert!(!enabled(&model, Field::Params) && !enabled(&model, Field::LargestLayer));
        assert!(enabled(&model, Field::Seq) && enabled(&model, Field::MaxLive));
        assert!(enabled(&model, Field::Gpus));
        // What each field needs, from its declaration.
        let with = |query: &str, f: Field| enabled(&texts(&decode(query).config), f);
        let model = "model=llama2-7b";
        assert!(!with(model, Field::Rank) && with(&format!("{model}&method=lora"), Field::Rank));
        assert!(!with(&format!("{model}&method=lora"), Field::Quant));
        assert!(with(&format!("{model}&method=qlora"), Field::DoubleQuant));
        assert!(!with(
            &format!("{model}&method=qlora&quant=int8"),
            Field::DoubleQuant
        ));
        assert!(!with(model, Field::Vpp) && with(&format!("{model}&pp=2"), Field::Vpp));
        assert!(!with(model, Field::Sp) && with(&format!("{model}&tp=2"), Field::Sp));
        assert!(!with(model, Field::BufferFactor) && with("acct=deepspeed", Field::BufferFactor));
        assert!(!with(model, Field::TopK) && with("model=mixtral-8x7b", Field::TopK));
        assert!(with("model=mixtral-8x7b", Field::Ep) && !with(model, Field::Capacity));
        assert!(
            !with("model=mixtral-8x7b", Field::QRank) && with("model=deepseek-v3", Field::QRank)
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_option_of_every_choice_applies() {
        for field in Field::ALL.into_iter().filter(|f| !f.is_number()) {
            let options = options(field);
            assert!(!options.is_empty(), "{field:?}");
            for option in options {
                let mut config = Config::default();
                let result = apply_typed(&mut config, field, option);
                match option {
                    "" => assert!(field.is_optional(), "{field:?}"),
                    _ => assert_eq!(result, Ok(()), "{}={option}", field.key()),
                }
            }
        }
        let mut config = Config::default();
        apply_typed(&mut config, Field::Stage, "3").unwrap();
        assert_eq!(config.highlight, Strategy::Zero3);
    }

    #[test]
    fn a_list_toggles_in_its_fields_order() {
        let f = Field::RecomputeModules;
        assert!(lists("core_attn, MLP", "mlp"));
        assert!(!lists("core_attn", "mlp"));
        assert_eq!(toggled(f, "mlp", "core_attn", true), "core_attn,mlp");
        assert_eq!(toggled(f, "core_attn,mlp", "core_attn", false), "mlp");
        assert_eq!(toggled(f, "core_attn", "core_attn", false), "");
        // An unknown item does not survive a toggle.
        assert_eq!(toggled(f, "bogus,moe", "moe_act", true), "moe_act,moe");
    }
}

#[cfg(test)]
mod refused_option_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Issue 63: TensorRT-LLM was offered for gpt-oss, then refused. Its
    /// option is marked as refused for a model with windows, not for
    /// Llama 3.1 8B; vLLM's never.
    #[wasm_bindgen_test(unsupported = test)]
    fn trtllm_is_refused_before_it_is_chosen_for_windowed_layers() {
        let serving = |model: &'static str| {
            let config = crate::input::link::decode(&format!(
                "v=3&job=serve&model={model}&gpu=h100-80gb&gpus=1"
            ))
            .config;
            move |field: Field| text_of(&config, field)
        };
        assert!(refuses(Field::Engine, "trtllm", serving("gpt-oss-120b")));
        assert!(!refuses(Field::Engine, "vllm", serving("gpt-oss-120b")));
        assert!(!refuses(Field::Engine, "trtllm", serving("llama3.1-8b")));
    }
}

#[cfg(test)]
mod job_switch_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Issue 63: serving opened at TP 1 whatever the model. Switching to
    /// serving, or choosing a model while serving, fills the smallest TP
    /// within the node at which vLLM starts; a model that starts at TP 1,
    /// or a TP already set, stays as it is.
    #[wasm_bindgen_test(unsupported = test)]
    fn serving_opens_at_the_tp_that_starts_the_engine() {
        let texts = |query: &'static str| {
            let config = crate::input::link::decode(query).config;
            move |field: Field| text_of(&config, field)
        };
        let tp_of = |filled: Vec<(Field, String)>| {
            filled
                .into_iter()
                .find(|(f, _)| *f == Field::Tp)
                .map(|(_, t)| t)
        };
        let training = texts("v=3&model=llama3.1-70b&gpu=h200&gpus=8");
        assert_eq!(
            tp_of(edited(Field::Job, "serve", training)),
            Some("2".into())
        );
        let serving = texts("v=3&job=serve&model=llama3.1-8b&gpu=h200&gpus=8");
        assert_eq!(
            tp_of(edited(Field::Model, "deepseek-v3", serving)),
            Some("8".into())
        );
        assert_eq!(tp_of(edited(Field::Model, "llama3.1-8b", serving)), None);
        // A TP that starts the model stays; one that does not moves.
        let at_four = texts("v=3&job=serve&model=llama3.1-8b&gpu=h200&gpus=8&tp=4");
        assert_eq!(tp_of(edited(Field::Model, "llama3.1-70b", at_four)), None);
        assert_eq!(
            tp_of(edited(Field::Model, "deepseek-v3", at_four)),
            Some("8".into())
        );
        let set = texts("v=3&job=serve&model=llama3.1-8b&gpu=h200&gpus=8&pp=2");
        assert_eq!(tp_of(edited(Field::Model, "deepseek-v3", set)), None);
        // The lesson's switch: its served default, Llama 3.1 8B, starts at TP 1.
        let lesson = texts("");
        assert_eq!(tp_of(edited(Field::Job, "serve", lesson)), None);
    }

    /// Switching the form to serving or RL without a model fills the served
    /// default; RL's switch also takes the lesson's mixed FP16 to BF16, its
    /// 20 % reserve to none and its DDP to ZeRO-3, as the RL frameworks train
    /// (issue 63), and leaves any other value as set.
    #[wasm_bindgen_test(unsupported = test)]
    fn a_job_switch_fills_what_the_job_runs() {
        let lesson = |field: Field| match field {
            Field::Precision => "fp16".to_string(),
            Field::Overhead => "20".to_string(),
            Field::Stage => "ddp".to_string(),
            _ => String::new(),
        };
        let rl = edited(Field::Job, "rl", lesson);
        assert!(rl.contains(&(Field::Model, "llama3.1-8b".into())), "{rl:?}");
        assert!(rl.contains(&(Field::Precision, "bf16".into())), "{rl:?}");
        // The lesson's 20 % reserve gives way to the frameworks' own accounting.
        assert!(rl.contains(&(Field::Overhead, "0".into())), "{rl:?}");
        // The lesson's DDP gives way to the actor's sharding (verl's FSDP).
        assert!(rl.contains(&(Field::Stage, "3".into())), "{rl:?}");
        // A value the user chose stays: ZeRO-2, a 10 % reserve.
        for (chosen, text) in [(Field::Stage, "2"), (Field::Overhead, "10")] {
            let typed = |field: Field| match field == chosen {
                true => text.to_string(),
                false => lesson(field),
            };
            assert!(edited(Field::Job, "rl", typed)
                .iter()
                .all(|(f, _)| *f != chosen));
        }
        let serve = edited(Field::Job, "serve", lesson);
        assert!(
            serve.iter().all(|(f, _)| *f != Field::Precision),
            "{serve:?}"
        );
        let pure = |field: Field| match field {
            Field::Precision => "bf16-pure".to_string(),
            Field::Model => "qwen2.5-7b".to_string(),
            _ => String::new(),
        };
        assert_eq!(edited(Field::Job, "rl", pure), Vec::new());
    }
}
