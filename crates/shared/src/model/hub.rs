//! A Hugging Face `config.json`, read into an [`Architecture`]: what a user
//! pastes to describe any model of a family the page counts.
//!
//! Families, with the keys each reads as transformers 5.24's configuration
//! classes and modeling code use them: `llama`, `mistral`, `phi3` (Phi-3 and
//! Phi-4: fused `qkv_proj` and `gate_up_proj`, the counts of Llama's), `olmo2`
//! (q and k normed over their full width), `granite` (Llama's layers; its
//! multipliers have no parameters), `gemma2` and `gemma3_text` (four norms a
//! layer; Gemma 3's per-head q/k norms), `qwen2`, `qwen3`
//! (`head_dim`, q/k norms), `mixtral`, `qwen2_moe` (experts, `qkv_bias`), `qwen3_moe` (experts),
//! `qwen3_next`, `qwen3_5_text` and `qwen3_5_moe_text` (Gated DeltaNet linear
//! attention in all but every fourth layer, gated full attention, Qwen2-MoE's
//! shared expert or a dense MLP),
//! `deepseek_v3` (experts and latent attention) and `gpt2`. A key the family
//! reads but the text leaves out takes the configuration class's default,
//! and is listed as assumed; a key that would change the count but that the
//! page does not read is listed as not understood. Nothing leaves the page.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::architecture::{
    Architecture, Biases, LinearAttention, LocalAttention, Mla, Moe, QkNorm,
};
use crate::model::presets::{gpt, llama, ModelPreset, CUSTOM_MODEL, MODEL_PRESETS};

/// What a `config.json` gave. Serde's form is what the lazily loaded reader
/// (`crates/lazy`) sends the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HubConfig {
    /// Its `model_type`.
    pub model_type: String,
    /// The architecture it describes.
    pub architecture: Architecture,
    /// The preset of its family, for what a link cannot carry (biases, norms).
    #[serde(with = "crate::model::presets::preset_by_id")]
    pub base: &'static ModelPreset,
    /// Each key read, with its value as written.
    pub read: Vec<(String, String)>,
    /// Each key the family reads that the text left out, with the default used.
    pub assumed: Vec<(String, String)>,
    /// Keys that look like they change the count but that the page does not read.
    pub not_understood: Vec<String>,
    /// DeepSeek's multi-token-prediction layers, which are not counted.
    pub mtp_layers: u32,
}

/// Why a `config.json` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HubConfigError {
    /// Not JSON: the parser's message, at a line and column (from 1).
    Json {
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
    },
    /// JSON, but not an object.
    NotAnObject,
    /// No `model_type` string.
    NoModelType,
    /// A `model_type` the page does not count.
    UnknownModelType(String),
    /// A key the family needs is missing.
    Missing(String),
    /// A key has the wrong type or an impossible value (a negative count, a
    /// fraction, more than 2^32 − 1, or what the model cannot have).
    Invalid(String),
    /// A key's value describes layers the page does not count (a bias on the
    /// output projection, experts on only some layers).
    Unsupported(String),
}

/// The families read (`model_type`). A reading takes the preset of exactly
/// its shape, or is a custom model ([`CUSTOM_MODEL`]).
pub const MODEL_TYPES: [&str; 22] = [
    "llama",
    "llama4_text",
    "mistral",
    "phi3",
    "olmo2",
    "granite",
    "gemma2",
    "gemma3_text",
    "qwen2",
    "qwen3",
    "mixtral",
    "qwen2_moe",
    "qwen3_moe",
    "qwen3_next",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "glm4_moe",
    "deepseek_v2",
    "deepseek_v3",
    "gpt_oss",
    "cohere2",
    "gpt2",
];

/// Keys read by no family that still do not change the count.
const HARMLESS: &[&str] = &[
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "max_position_embeddings",
    "max_window_layers",
    "sliding_window",
    "use_sliding_window",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "partial_rotary_factor",
    "initializer_range",
    "use_cache",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "torch_dtype",
    "dtype",
    "transformers_version",
    "architectures",
    "model_type",
    "hidden_act",
    "activation_function",
    "attention_dropout",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "router_aux_loss_coef",
    "output_router_logits",
    "router_jitter_noise",
    "norm_topk_prob",
    "routed_scaling_factor",
    "n_group",
    "topk_group",
    "topk_method",
    "scoring_func",
    "aux_loss_alpha",
    "seq_aux",
    "ep_size",
    "pretraining_tp",
    "quantization_config",
    "n_ctx",
    "layer_types",
    "auto_map",
    "rope_interleave",
    "original_max_position_embeddings",
    "full_attn_mod",
    "interpolate_factor",
    "query_pre_attn_scalar",
    "final_logit_softcapping",
    "attn_logit_softcapping",
    "hidden_activation",
    "sliding_window_pattern",
    "logit_scale",
    "sliding_window_size",
    "rope_local_base_freq",
    "use_bidirectional_attention",
    "cache_implementation",
    "embedding_multiplier",
    "residual_multiplier",
    "attention_multiplier",
    "logits_scaling",
    "no_rope_layers",
    "no_rope_layer_interval",
    "attention_chunk_size",
    "attn_temperature_tuning",
    "floor_scale",
    "attn_scale",
];

/// Words in a key that suggest it changes the count.
const COUNTING_WORDS: &[&str] = &[
    "size",
    "dim",
    "rank",
    "expert",
    "layer",
    "head",
    "bias",
    "vocab",
    "norm",
    "tie",
    "embd",
    "inner",
    "positions",
    "n_",
];

struct Reader<'a> {
    object: &'a Map<String, Value>,
    read: Vec<(String, String)>,
    assumed: Vec<(String, String)>,
}

impl Reader<'_> {
    /// A count: a whole number from 0 to 2^32 − 1; `default` when absent (or
    /// null, where `null_is` says what null means).
    fn count(&mut self, key: &'static str, default: Option<u32>) -> Result<u32, HubConfigError> {
        match self.object.get(key) {
            None | Some(Value::Null) => match default {
                Some(value) => {
                    if self.object.get(key).is_none() {
                        self.assumed.push((key.into(), value.to_string()));
                    } else {
                        self.read.push((key.into(), "null".into()));
                    }
                    Ok(value)
                }
                None => Err(HubConfigError::Missing(key.into())),
            },
            Some(value) => {
                let n = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or(HubConfigError::Invalid(key.into()))?;
                self.read.push((key.into(), n.to_string()));
                Ok(n)
            }
        }
    }

    fn flag(&mut self, key: &'static str, default: bool) -> Result<bool, HubConfigError> {
        match self.object.get(key) {
            None => {
                self.assumed.push((key.into(), default.to_string()));
                Ok(default)
            }
            Some(value) => {
                let b = value.as_bool().ok_or(HubConfigError::Invalid(key.into()))?;
                self.read.push((key.into(), b.to_string()));
                Ok(b)
            }
        }
    }

    /// A list of layer indices, each below `layers` (none when absent).
    fn layer_list(&mut self, key: &'static str, layers: u32) -> Result<Vec<u32>, HubConfigError> {
        let Some(value) = self.object.get(key) else {
            return Ok(Vec::new());
        };
        let invalid = || HubConfigError::Invalid(key.into());
        let items = value.as_array().ok_or_else(invalid)?;
        let list = items
            .iter()
            .map(|item| {
                item.as_u64()
                    .and_then(|i| u32::try_from(i).ok())
                    .filter(|&i| i < layers)
                    .ok_or_else(invalid)
            })
            .collect::<Result<Vec<u32>, _>>()?;
        let words: Vec<String> = list.iter().map(u32::to_string).collect();
        self.read
            .push((key.into(), format!("[{}]", words.join(", "))));
        Ok(list)
    }

    /// `layer_types` read as `full` says ([`full_layers`]): how many layers
    /// are `other` and how many `full_attention`.
    fn read_layer_types(&mut self, full: &[bool], other: &str) {
        let others = full.iter().filter(|&&f| !f).count();
        self.read.push((
            "layer_types".into(),
            format!("{others} {other}, {} full_attention", full.len() - others),
        ));
    }
}

/// Reads `text`, a `config.json`. A multimodal model's (Gemma 3's `gemma3`,
/// Llama 4's `llama4`) is read by its `text_config` when that is a family
/// read: the language model is counted, and the vision tower is named among
/// the keys not understood (`vision_config`), so it is said, not counted.
pub fn read_config(text: &str) -> Result<HubConfig, HubConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|e| HubConfigError::Json {
        line: e.line(),
        column: e.column(),
    })?;
    let object = value.as_object().ok_or(HubConfigError::NotAnObject)?;
    let model_type = object
        .get("model_type")
        .and_then(Value::as_str)
        .ok_or(HubConfigError::NoModelType)?;
    let text_model = object
        .get("text_config")
        .and_then(Value::as_object)
        .filter(|text| {
            text.get("model_type")
                .and_then(Value::as_str)
                .is_some_and(|t| MODEL_TYPES.contains(&t))
        });
    if let (false, Some(text)) = (MODEL_TYPES.contains(&model_type), text_model) {
        let mut hub = read_object(text)?;
        hub.read.insert(
            0,
            ("model_type".into(), model_type.chars().take(64).collect()),
        );
        hub.not_understood.extend(
            object
                .keys()
                .filter(|key| key.contains("vision") || key.contains("audio"))
                .take(8)
                .map(|key| key.chars().take(64).collect()),
        );
        return Ok(hub);
    }
    read_object(object)
}

/// A configuration transformers would refuse or could not build, named by
/// the key at fault: no layers, width, heads or vocabulary; heads not
/// dividing the width (without a head size of their own or latent
/// attention); key/value heads not dividing the heads; more experts per
/// token than experts; more leading dense layers than layers.
fn impossible(model_type: &str, a: &Architecture) -> Result<(), HubConfigError> {
    let gpt2 = model_type == "gpt2";
    let key = |hf: &str, gpt: &str| HubConfigError::Invalid(if gpt2 { gpt } else { hf }.into());
    let checks = [
        (a.layers == 0, key("num_hidden_layers", "n_layer")),
        (a.hidden == 0, key("hidden_size", "n_embd")),
        (a.vocab == 0, key("vocab_size", "vocab_size")),
        (
            a.heads == 0 || a.head_dim == 0 && !a.mla.is_latent() && a.hidden % a.heads != 0,
            key("num_attention_heads", "n_head"),
        ),
        (
            a.kv_heads == 0 || a.heads % a.kv_heads.max(1) != 0,
            key("num_key_value_heads", "n_head"),
        ),
        (
            a.moe.is_moe() && (a.moe.top_k == 0 || a.moe.top_k > a.moe.experts),
            key("num_experts_per_tok", "n_head"),
        ),
        (
            a.moe.is_moe() && a.moe.dense_layers > a.layers,
            key("first_k_dense_replace", "n_layer"),
        ),
        // transformers splits the value heads evenly over the key heads.
        (
            a.linear.is_some()
                && (a.linear.k_heads == 0 || a.linear.v_heads % a.linear.k_heads != 0),
            key("linear_num_key_heads", "n_head"),
        ),
    ];
    match checks.into_iter().find(|(wrong, _)| *wrong) {
        Some((_, error)) => Err(error),
        None => Ok(()),
    }
}

/// `layer_types`, one entry a layer, as whether each layer is a
/// `full_attention` one (else `other`); any other entry, or a list of
/// another length, is invalid.
fn full_layers(types: &Value, layers: u32, other: &str) -> Result<Vec<bool>, HubConfigError> {
    let invalid = || HubConfigError::Invalid("layer_types".into());
    types
        .as_array()
        .filter(|items| items.len() == layers as usize)
        .ok_or_else(invalid)?
        .iter()
        .map(|kind| match kind.as_str() {
            Some("full_attention") => Ok(true),
            Some(kind) if kind == other => Ok(false),
            _ => Err(invalid()),
        })
        .collect()
}

/// Qwen3-Next's layer pattern: every n-th layer with full attention, the
/// others linear, from `layer_types` (which must be such a pattern, one entry
/// a layer) or else `full_attention_interval` (4 by default). No full layer
/// at all is `layers + 1`.
fn full_attention_every(r: &mut Reader, layers: u32) -> Result<u32, HubConfigError> {
    let Some(types) = r.object.get("layer_types") else {
        let every = r.count("full_attention_interval", Some(4))?;
        return match every {
            0 => Err(HubConfigError::Invalid("full_attention_interval".into())),
            n => Ok(n),
        };
    };
    let full = full_layers(types, layers, "linear_attention")?;
    let every = full
        .iter()
        .position(|&f| f)
        .map_or(layers.saturating_add(1), |i| i as u32 + 1);
    if full
        .iter()
        .enumerate()
        .any(|(i, &f)| f != ((i as u32 + 1) % every == 0))
    {
        return Err(HubConfigError::Unsupported("layer_types".into()));
    }
    // The list overrides the interval (read, then set aside).
    if r.object.contains_key("full_attention_interval") {
        r.count("full_attention_interval", Some(4))?;
    }
    r.read_layer_types(&full, "linear_attention");
    Ok(every)
}

/// Local attention as a `config.json` of `model_type` says it: a sliding
/// window (`sliding_window`: Mistral, Gemma 2 and 3, gpt-oss, Cohere2) or
/// Llama 4's chunks (`attention_chunk_size`), and which layers stay global:
/// `layer_types` (`sliding_attention`, `full_attention`: every n-th full, or
/// none), else `sliding_window_pattern`, else the family's (Gemma 2 and
/// gpt-oss every 2nd, Gemma 3 every 6th, Cohere2 every 4th, Llama 4's
/// rope-less layers every 4th, Mistral none).
fn read_local_attention(
    r: &mut Reader,
    model_type: &str,
    layers: u32,
) -> Result<LocalAttention, HubConfigError> {
    let (window_key, family_every, chunked): (&'static str, u32, bool) = match model_type {
        "mistral" => ("sliding_window", 0, false),
        "gemma2" | "gpt_oss" => ("sliding_window", 2, false),
        "gemma3_text" => ("sliding_window", 6, false),
        "cohere2" => ("sliding_window", 4, false),
        "llama4_text" => ("attention_chunk_size", 4, true),
        _ => return Ok(LocalAttention::NONE),
    };
    let window = r.count(window_key, Some(0))?;
    if window == 0 {
        return Ok(LocalAttention::NONE);
    }
    let every = match r.object.get("layer_types") {
        Some(types) if !chunked => {
            let full = full_layers(types, layers, "sliding_attention")?;
            let every = full.iter().position(|&f| f).map_or(0, |i| i as u32 + 1);
            let pattern = |i: usize| every != 0 && (i as u32 + 1) % every == 0;
            if full.iter().enumerate().any(|(i, &f)| f != pattern(i)) {
                return Err(HubConfigError::Unsupported("layer_types".into()));
            }
            r.read_layer_types(&full, "sliding_attention");
            every
        }
        _ if r.object.contains_key("sliding_window_pattern") => {
            r.count("sliding_window_pattern", Some(family_every))?
        }
        _ => family_every,
    };
    Ok(LocalAttention {
        window,
        global_every: every,
        chunked,
    })
}

/// The mixture of experts a `config.json` of `model_type` describes (a dense
/// model's none), given its `layers`, dense `ffn` and experts' `expert_ffn`
/// as read before; DeepSeek's and GLM's multi-token-prediction layers, read
/// here, go to `mtp_layers` (counted apart).
fn read_moe(
    r: &mut Reader,
    model_type: &str,
    (layers, ffn, expert_ffn): (u32, u32, u32),
    mtp_layers: &mut u32,
) -> Result<Moe, HubConfigError> {
    let object = r.object;
    let deepseek = matches!(model_type, "deepseek_v2" | "deepseek_v3");
    let next = matches!(
        model_type,
        "qwen3_next" | "qwen3_5_text" | "qwen3_5_moe_text"
    );
    Ok(match model_type {
        "mixtral" => Moe {
            experts: r.count("num_local_experts", Some(8))?,
            top_k: r.count("num_experts_per_tok", Some(2))?,
            expert_ffn: ffn,
            ..Moe::DENSE
        },
        // gpt-oss: every layer a mixture whose router and experts carry
        // biases; `experts_per_token` repeats `num_experts_per_tok` for
        // OpenAI's own code and is not read by transformers.
        "gpt_oss" => {
            if object.contains_key("experts_per_token") {
                r.count("experts_per_token", Some(4))?;
            }
            Moe {
                experts: r.count("num_local_experts", Some(128))?,
                top_k: r.count("num_experts_per_tok", Some(4))?,
                expert_ffn: ffn,
                biased: true,
                ..Moe::DENSE
            }
        }
        // Qwen3.5-MoE: every layer a mixture with Qwen2-MoE's shared expert.
        "qwen3_5_moe_text" => Moe {
            experts: r.count("num_experts", Some(256))?,
            top_k: r.count("num_experts_per_tok", Some(8))?,
            expert_ffn,
            shared_experts: 1,
            shared_ffn: r.count("shared_expert_intermediate_size", Some(512))?,
            shared_gate: true,
            dense_layers: 0,
            biased: false,
        },
        "qwen2_moe" | "qwen3_moe" | "qwen3_next" => {
            // Layer i is a mixture of experts unless it is in
            // `mlp_only_layers` or (i + 1) is no multiple of
            // `decoder_sparse_step`; the others are dense, counted as
            // leading (their place changes only which pipeline stage
            // holds them).
            let step = r.count("decoder_sparse_step", Some(1))?;
            if step == 0 {
                return Err(HubConfigError::Invalid("decoder_sparse_step".into()));
            }
            let dense_only = r.layer_list("mlp_only_layers", layers)?;
            let dense_layers = (0..layers)
                .filter(|i| dense_only.contains(i) || (i + 1) % step != 0)
                .count() as u32;
            let shared_ffn = match model_type {
                "qwen2_moe" => r.count("shared_expert_intermediate_size", None)?,
                "qwen3_next" => r.count("shared_expert_intermediate_size", Some(512))?,
                _ => 0,
            };
            // Qwen3-Next's class gives every size a default.
            let default = |n: u32| next.then_some(n);
            Moe {
                experts: r.count("num_experts", default(512))?,
                top_k: r.count("num_experts_per_tok", default(10))?,
                expert_ffn: r.count("moe_intermediate_size", default(512))?,
                shared_experts: u32::from(shared_ffn > 0),
                shared_ffn,
                shared_gate: shared_ffn > 0,
                dense_layers,
                biased: false,
            }
        }
        // Llama 4: every layer's experts and one shared expert of
        // `intermediate_size`, a bias-free router; the layers in
        // `moe_layers` (else every `interleave_moe_layer_step`-th) are
        // mixtures, the others dense (counted as leading); its q/k norm
        // is an L2 norm without weights.
        "llama4_text" => {
            let experts = r.count("num_local_experts", Some(16))?;
            let moe_layers = match object.contains_key("moe_layers") {
                // The list overrides the step (read, then set aside).
                true => {
                    if object.contains_key("interleave_moe_layer_step") {
                        r.count("interleave_moe_layer_step", Some(1))?;
                    }
                    r.layer_list("moe_layers", layers)?
                }
                false => {
                    let step = r.count("interleave_moe_layer_step", Some(1))?;
                    if step == 0 {
                        return Err(HubConfigError::Invalid("interleave_moe_layer_step".into()));
                    }
                    (step - 1..layers).step_by(step as usize).collect()
                }
            };
            r.flag("use_qk_norm", true)?;
            let sparse = (0..layers).filter(|i| moe_layers.contains(i)).count() as u32;
            Moe {
                experts,
                top_k: r.count("num_experts_per_tok", Some(1))?,
                expert_ffn,
                shared_experts: 1,
                shared_ffn: expert_ffn,
                shared_gate: false,
                dense_layers: layers - sparse,
                biased: false,
            }
        }
        // GLM-4.5: DeepSeek-V3's mixture (leading dense layers, shared
        // experts fused into one MLP, a router without bias parameters);
        // its multi-token prediction layer is not built by transformers.
        "glm4_moe" => {
            let defaults = [Some(1408), Some(1), Some(128), Some(8), Some(1)];
            read_deepseek_moe(r, defaults, Some(1), mtp_layers)?
        }
        _ if deepseek => {
            if r.count("moe_layer_freq", Some(1))? != 1 {
                return Err(HubConfigError::Unsupported("moe_layer_freq".into()));
            }
            // DeepseekV2Config's default is two shared experts, V3's one.
            let v2 = model_type == "deepseek_v2";
            let defaults = [None, Some(if v2 { 2 } else { 1 }), None, None, Some(0)];
            let mtp = (!v2 || object.contains_key("num_nextn_predict_layers")).then_some(0);
            read_deepseek_moe(r, defaults, mtp, mtp_layers)?
        }
        _ => Moe::DENSE,
    })
}

/// DeepSeek's mixture, GLM-4.5's too: routed experts, shared experts fused
/// into one MLP of the experts' width, leading dense layers and a router
/// without bias parameters. `defaults` are the family's class's for
/// `moe_intermediate_size`, `n_shared_experts`, `n_routed_experts`,
/// `num_experts_per_tok` and `first_k_dense_replace` (none: required); the
/// multi-token prediction layers go to `mtp_layers`, read after the shared
/// experts where `mtp` gives their default.
fn read_deepseek_moe(
    r: &mut Reader,
    [expert_ffn, shared, experts, top_k, dense]: [Option<u32>; 5],
    mtp: Option<u32>,
    mtp_layers: &mut u32,
) -> Result<Moe, HubConfigError> {
    let expert_ffn = r.count("moe_intermediate_size", expert_ffn)?;
    let shared_experts = r.count("n_shared_experts", shared)?;
    if let Some(default) = mtp {
        *mtp_layers = r.count("num_nextn_predict_layers", Some(default))?;
    }
    Ok(Moe {
        experts: r.count("n_routed_experts", experts)?,
        top_k: r.count("num_experts_per_tok", top_k)?,
        expert_ffn,
        shared_experts,
        shared_ffn: if shared_experts > 0 { expert_ffn } else { 0 },
        shared_gate: false,
        dense_layers: r.count("first_k_dense_replace", dense)?,
        biased: false,
    })
}

/// Reads one family's configuration object.
fn read_object(object: &Map<String, Value>) -> Result<HubConfig, HubConfigError> {
    let model_type = object
        .get("model_type")
        .and_then(Value::as_str)
        .ok_or(HubConfigError::NoModelType)?;
    if !MODEL_TYPES.contains(&model_type) {
        return Err(HubConfigError::UnknownModelType(
            model_type.chars().take(64).collect(),
        ));
    }
    let mut r = Reader {
        object,
        read: Vec::new(),
        assumed: Vec::new(),
    };
    let mut mtp_layers = 0;
    let architecture = if model_type == "gpt2" {
        read_gpt2(&mut r)?
    } else {
        read_decoder(&mut r, model_type, &mut mtp_layers)?
    };
    impossible(model_type, &architecture)?;
    let not_understood = object
        .keys()
        .filter(|key| {
            !r.read.iter().any(|(k, _)| k == *key)
                && !r.assumed.iter().any(|(k, _)| k == *key)
                && !HARMLESS.contains(&key.as_str())
                && COUNTING_WORDS.iter().any(|word| key.contains(word))
        })
        .take(32)
        .map(|key| key.chars().take(64).collect())
        .collect();
    // The preset of exactly this shape, or none: a custom model.
    let base = MODEL_PRESETS
        .iter()
        .find(|p| p.architecture == architecture)
        .unwrap_or(&CUSTOM_MODEL);
    Ok(HubConfig {
        model_type: model_type.to_string(),
        architecture,
        base,
        read: r.read,
        assumed: r.assumed,
        not_understood,
        mtp_layers,
    })
}

/// GPT-2's architecture, in its own keys (`n_embd`, `n_layer` …): GELU,
/// biases everywhere, LayerNorm and learned positions ([`gpt`]).
fn read_gpt2(r: &mut Reader) -> Result<Architecture, HubConfigError> {
    let hidden = r.count("n_embd", Some(768))?;
    let inner = r.count("n_inner", Some(hidden.saturating_mul(4)))?;
    let heads = r.count("n_head", Some(12))?;
    let layers = r.count("n_layer", Some(12))?;
    let vocab = r.count("vocab_size", Some(50257))?;
    let tied_embeddings = r.flag("tie_word_embeddings", true)?;
    let positions = r.count("n_positions", Some(1024))?;
    Ok(Architecture {
        tied_embeddings,
        ..gpt(layers, hidden, inner, heads, vocab, positions)
    })
}

/// Every other family's architecture (Llama's keys, SwiGLU and RMSNorm:
/// [`llama`] edited),
/// read key by key in a fixed order (the order `read` and `assumed` list
/// them): the shape, the attention, the mixture of experts, latent, linear
/// and local attention. DeepSeek's and GLM's multi-token-prediction layers
/// go to `mtp_layers`.
fn read_decoder(
    r: &mut Reader,
    model_type: &str,
    mtp_layers: &mut u32,
) -> Result<Architecture, HubConfigError> {
    let object = r.object;
    let hidden = r.count("hidden_size", None)?;
    let heads = r.count("num_attention_heads", None)?;
    let layers = r.count("num_hidden_layers", None)?;
    // Gemma 2 and 3 (text): four norms a layer, tied embeddings, heads of
    // 256 and 4 KV heads unless the text says otherwise (their classes'
    // defaults); Gemma 3 norms q and k per head.
    let gemma = matches!(model_type, "gemma2" | "gemma3_text");
    let logit_softcap = read_logit_softcap(r, model_type, gemma)?;
    let gpt_oss = model_type == "gpt_oss";
    // Qwen3-Next and Qwen3.5's text models: Gated DeltaNet in all but
    // every fourth layer, gated full attention with Qwen3's per-head q/k
    // norms; Qwen2-MoE's mixture (Qwen3-Next, Qwen3.5-MoE) or a dense MLP
    // (Qwen3.5).
    let next = matches!(
        model_type,
        "qwen3_next" | "qwen3_5_text" | "qwen3_5_moe_text"
    );
    // Cohere2: one bias-free LayerNorm a layer before the attention and
    // the MLP side by side, tied embeddings, heads of hidden ÷ heads
    // (its config class overwrites any `head_dim`).
    let cohere = model_type == "cohere2";
    let kv_heads = r.count(
        "num_key_value_heads",
        Some(kv_heads_default(model_type, heads)),
    )?;
    let (expert_ffn, ffn) = read_mlp_widths(r, model_type, next)?;
    let vocab = r.count("vocab_size", vocab_default(model_type))?;
    let tied = r.flag("tie_word_embeddings", gemma || cohere)?;
    let qwen3 = matches!(model_type, "qwen3" | "qwen3_moe");
    let head_dim = read_head_dim(r, model_type)?;
    let biases = read_biases(r, model_type)?;
    let moe = read_moe(r, model_type, (layers, ffn, expert_ffn), mtp_layers)?;
    let mla = match model_type {
        "deepseek_v2" | "deepseek_v3" => Mla {
            q_rank: r.count("q_lora_rank", Some(0))?,
            kv_rank: r.count("kv_lora_rank", None)?,
            rope_dim: r.count("qk_rope_head_dim", None)?,
            nope_dim: r.count("qk_nope_head_dim", None)?,
            v_dim: r.count("v_head_dim", None)?,
        },
        _ => Mla::NONE,
    };
    // Qwen3.5's multi-token prediction layers: transformers builds none, and
    // the page counts none (read, so not said to be misunderstood).
    if matches!(model_type, "qwen3_5_moe_text" | "qwen3_5_text")
        && object.contains_key("mtp_num_hidden_layers")
    {
        r.count("mtp_num_hidden_layers", Some(0))?;
    }
    // transformers gates Qwen3.5's attention output whatever this says.
    if next && object.contains_key("attn_output_gate") {
        r.flag("attn_output_gate", true)?;
    }
    let linear = match next {
        true => read_linear_attention(r, layers)?,
        false => LinearAttention::NONE,
    };
    let local = read_local_attention(r, model_type, layers)?;
    // Every layer with full attention is no linear attention at all.
    let linear = if linear.is_some() {
        linear
    } else {
        LinearAttention::NONE
    };
    Ok(Architecture {
        tied_embeddings: tied,
        biases,
        head_dim,
        qk_norm: match model_type {
            _ if qwen3 || next => QkNorm::PerHead,
            "gemma3_text" => QkNorm::PerHead,
            "olmo2" => QkNorm::Full,
            "glm4_moe" if r.flag("use_qk_norm", false)? => QkNorm::PerHead,
            _ => QkNorm::None,
        },
        sandwich_norms: gemma,
        attention_sinks: gpt_oss,
        logit_softcap,
        parallel_block: cohere,
        gated_attention: next,
        moe,
        mla,
        linear,
        local,
        ..llama(layers, hidden, ffn, heads, kv_heads, vocab)
    })
}

/// Gemma's soft-capped output logits: a number, or null for none
/// (Gemma 2's class caps at 30 by default, Gemma 3's does not). Other
/// families have none.
fn read_logit_softcap(
    r: &mut Reader,
    model_type: &str,
    gemma: bool,
) -> Result<bool, HubConfigError> {
    Ok(match r.object.get("final_logit_softcapping") {
        _ if !gemma => false,
        None => {
            let default = model_type == "gemma2";
            r.assumed
                .push(("final_logit_softcapping".into(), default.to_string()));
            default
        }
        Some(Value::Null) => false,
        Some(Value::Number(cap)) => {
            r.read
                .push(("final_logit_softcapping".into(), cap.to_string()));
            true
        }
        Some(_) => return Err(HubConfigError::Invalid("final_logit_softcapping".into())),
    })
}

/// The key/value heads a family's class gives when `num_key_value_heads` is
/// absent: Gemma's 4, Llama 4's and gpt-oss's 8, Qwen3.5's 4, Qwen3-Next's
/// and Qwen3.5-MoE's 2, else as many as the `heads`.
fn kv_heads_default(model_type: &str, heads: u32) -> u32 {
    if matches!(model_type, "gemma2" | "gemma3_text") {
        4
    } else if matches!(model_type, "llama4_text" | "gpt_oss") {
        8
    } else if model_type == "qwen3_5_text" {
        4
    } else if matches!(model_type, "qwen3_next" | "qwen3_5_moe_text") {
        2
    } else {
        heads
    }
}

/// The vocabulary a family's class gives when `vocab_size` is absent, or
/// none where the key is required.
fn vocab_default(model_type: &str) -> Option<u32> {
    // Gemma's classes' own vocabularies where a text config leaves it out.
    match model_type {
        "gemma2" => Some(256_000),
        "gemma3_text" => Some(262_208),
        "gpt_oss" => Some(201_088),
        "cohere2" => Some(256_000),
        "qwen3_next" => Some(151_936),
        "qwen3_5_text" | "qwen3_5_moe_text" => Some(248_320),
        _ => None,
    }
}

/// The experts' MLP width and the dense layers', in that order (`next` for
/// Qwen3-Next and Qwen3.5's defaults).
fn read_mlp_widths(
    r: &mut Reader,
    model_type: &str,
    next: bool,
) -> Result<(u32, u32), HubConfigError> {
    // Llama 4: `intermediate_size` is the experts' (and the shared
    // expert's), `intermediate_size_mlp` the dense layers'.
    // Qwen3.5-MoE has no dense MLP: its experts' width stands in.
    let expert_ffn = match model_type {
        "qwen3_5_moe_text" => r.count("moe_intermediate_size", Some(512))?,
        "qwen3_5_text" => r.count("intermediate_size", Some(12288))?,
        _ => r.count("intermediate_size", next.then_some(5632))?,
    };
    let ffn = match model_type == "llama4_text" {
        true => r.count("intermediate_size_mlp", Some(16384))?,
        false => expert_ffn,
    };
    Ok((expert_ffn, ffn))
}

/// The attention's head size: a family's own `head_dim` (with its class's
/// default), none for DeepSeek's latent attention and Cohere2 (hidden ÷
/// heads), else `head_dim` where the text gives it.
fn read_head_dim(r: &mut Reader, model_type: &str) -> Result<u32, HubConfigError> {
    let next = matches!(
        model_type,
        "qwen3_next" | "qwen3_5_text" | "qwen3_5_moe_text"
    );
    Ok(match model_type {
        "deepseek_v2" | "deepseek_v3" => 0,
        "qwen3" | "qwen3_moe" => r.count("head_dim", Some(128))?,
        _ if next => r.count("head_dim", Some(256))?,
        "gemma2" | "gemma3_text" => r.count("head_dim", Some(256))?,
        "llama4_text" => r.count("head_dim", Some(128))?,
        "gpt_oss" => r.count("head_dim", Some(64))?,
        "cohere2" => 0,
        _ if r.object.contains_key("head_dim") => r.count("head_dim", Some(0))?,
        _ => 0,
    })
}

/// Which linears carry biases, from the keys of a family's class
/// (`attention_bias`, `mlp_bias`, `qkv_bias`); a bias the page does not
/// count is unsupported.
fn read_biases(r: &mut Reader, model_type: &str) -> Result<Biases, HubConfigError> {
    Ok(match model_type {
        "qwen2" => Biases::Qkv,
        // gpt-oss's q, k, v and o take `attention_bias` (true by default).
        "gpt_oss" => match r.flag("attention_bias", true)? {
            true => Biases::Attention,
            false => Biases::None,
        },
        // GLM-4.5's q, k and v take `attention_bias` (o never does).
        "glm4_moe" => match r.flag("attention_bias", false)? {
            true => Biases::Qkv,
            false => Biases::None,
        },
        // Qwen2-MoE's q, k and v take `qkv_bias` (true by default).
        "qwen2_moe" => match r.flag("qkv_bias", true)? {
            true => Biases::Qkv,
            false => Biases::None,
        },
        // transformers' Phi3 builds its linears without biases whatever
        // Phi-4-mini's keys say.
        "phi3" => {
            for key in ["attention_bias", "mlp_bias", "lm_head_bias"] {
                if r.object.contains_key(key) {
                    r.flag(key, false)?;
                }
            }
            Biases::None
        }
        // DeepSeek's `attention_bias` is on its latent projections: not counted.
        "deepseek_v2" | "deepseek_v3" => {
            if r.flag("attention_bias", false)? {
                return Err(HubConfigError::Unsupported("attention_bias".into()));
            }
            if model_type == "deepseek_v2" && r.flag("mlp_bias", false)? {
                return Err(HubConfigError::Unsupported("mlp_bias".into()));
            }
            Biases::None
        }
        // These classes give q, k, v and o `attention_bias`, and Llama's
        // and Granite's MLPs `mlp_bias` (every linear with both).
        "llama" | "llama4_text" | "olmo2" | "granite" | "gemma2" | "gemma3_text" | "qwen3"
        | "qwen3_moe" | "qwen3_next" | "qwen3_5_text" | "qwen3_5_moe_text" | "cohere2" => {
            let attention = r.flag("attention_bias", false)?;
            let mlp = matches!(model_type, "llama" | "granite") && r.flag("mlp_bias", false)?;
            match (attention, mlp) {
                (false, false) => Biases::None,
                (true, false) => Biases::Attention,
                (true, true) => Biases::All,
                (false, true) => return Err(HubConfigError::Unsupported("mlp_bias".into())),
            }
        }
        _ => Biases::None,
    })
}

/// Qwen3-Next's and Qwen3.5's Gated DeltaNet: its layer pattern
/// ([`full_attention_every`]), heads and sizes, with their classes' defaults.
fn read_linear_attention(r: &mut Reader, layers: u32) -> Result<LinearAttention, HubConfigError> {
    Ok(LinearAttention {
        full_every: full_attention_every(r, layers)?,
        k_heads: r.count("linear_num_key_heads", Some(16))?,
        v_heads: r.count("linear_num_value_heads", Some(32))?,
        k_dim: r.count("linear_key_head_dim", Some(128))?,
        v_dim: r.count("linear_value_head_dim", Some(128))?,
        conv_kernel: r.count("linear_conv_kernel_dim", Some(4))?,
    })
}
