//! A pasted Hugging Face `config.json` (`vram_core::model::hub`): each family's
//! published config (`tests/configs/`) gives the count transformers 5.24
//! builds from it (`measured/counts.json`, `scripts/measure-counts`), the
//! preset of that model where there is one, and a link that carries it; bad
//! JSON of every kind is a typed error, never a panic. Native only (it reads
//! the fixture with serde_json and the files from disk).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;

use vram_core::input::link;
use vram_core::model::hub::{read_config, HubConfig, HubConfigError};
use vram_core::model::presets::model_preset;
use vram_core::Config;

/// `measured/counts.json`: each published config's count, the multimodal
/// models' and the random variants'.
fn counts() -> serde_json::Value {
    common::fixture(include_str!("measured/counts.json"))
}

fn measured() -> BTreeMap<String, u64> {
    serde_json::from_value(counts()["configs"].clone()).expect("configs")
}

fn config_text(file: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/configs/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("a config")
}

/// The published config `file`, read with nothing in it left not understood.
fn read_whole(file: &str) -> HubConfig {
    let hub = read_config(&config_text(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    assert!(
        hub.not_understood.is_empty(),
        "{file}: {:?}",
        hub.not_understood
    );
    hub
}

#[test]
fn every_published_config_counts_as_transformers_builds_it() {
    let measured = measured();
    assert_eq!(measured.len(), 34);
    for (file, params) in &measured {
        let hub = read_config(&config_text(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        assert_eq!(hub.architecture.param_count(), *params, "{file}");
        // The preset of the same name, where there is one, is the same model.
        if let Some(preset) = model_preset(file.trim_end_matches(".json")) {
            assert_eq!(hub.architecture, preset.architecture, "{file}");
        }
        // The page's link carries it: decoding the link gives the same count.
        let config = Config::default().with_hub_config(&hub).unwrap();
        let decoded = link::decode(&link::encode(&config));
        assert!(
            decoded.problems.is_empty(),
            "{file}: {:?}",
            decoded.problems
        );
        assert_eq!(
            decoded.config.model.unwrap().architecture,
            hub.architecture,
            "{file}"
        );
        assert!(config.report().is_ok(), "{file}");
    }
}

/// Phi-3 and Phi-4 (issue 26): Llama's counts in fused projections, and
/// Phi-4-mini's bias and remote-code keys read or known as harmless; Granite's
/// multipliers known as parameterless: none left not understood.
#[test]
fn phi_and_granite_configs_read_with_nothing_left_over() {
    for file in [
        "phi-3-mini-4k.json",
        "phi-4.json",
        "phi-4-mini.json",
        "granite-3.1-8b.json",
    ] {
        read_whole(file);
    }
    let mini = read_config(&config_text("phi-4-mini.json")).unwrap();
    assert!(mini.architecture.tied_embeddings);
    assert_eq!(
        (mini.architecture.heads, mini.architecture.kv_heads),
        (24, 8)
    );
}

/// OLMo 2 (issue 26): q and k normed over their full width, read to
/// transformers' count and to the presets of the same name.
#[test]
fn olmo2_norms_q_and_k_over_their_full_width() {
    for file in ["olmo2-7b.json", "olmo2-13b.json"] {
        let hub = read_whole(file);
        assert_eq!(
            hub.architecture.qk_norm,
            vram_core::model::architecture::QkNorm::Full
        );
        assert_eq!(hub.base.id, file.trim_end_matches(".json"));
    }
}

/// Gemma 2 and Gemma 3 (text) (issue 26): four norms a layer, Gemma 3's
/// per-head q/k norms, their soft-capping and sliding-window keys known as
/// parameterless; read to transformers' count and to the presets of the same
/// name.
#[test]
fn gemma_reads_four_norms_a_layer() {
    use vram_core::model::architecture::QkNorm;
    for (file, qk_norm) in [
        ("gemma2-9b.json", QkNorm::None),
        ("gemma2-27b.json", QkNorm::None),
        ("gemma3-1b.json", QkNorm::PerHead),
    ] {
        let hub = read_whole(file);
        assert!(hub.architecture.sandwich_norms, "{file}");
        assert_eq!(hub.architecture.qk_norm, qk_norm, "{file}");
    }
}

/// GLM-4.5 and DeepSeek-V2 (issue 26): DeepSeek's mixture (leading dense
/// layers, shared experts), GLM's q/k/v biases and optional per-head q/k
/// norms, DeepSeek-V2-Lite's query without a low-rank projection; their
/// multi-token prediction layers are not what transformers builds (said in
/// `mtp_layers`). Published totals: V2-Lite 15.7 B, V2 236 B, GLM-4.5-Air
/// 106 B and GLM-4.5 355 B with their MTP layer (measured here without).
#[test]
fn glm_and_deepseek_v2_read_as_transformers_builds_them() {
    use vram_core::model::architecture::{Biases, QkNorm};
    for (file, biases, qk_norm, dense, mtp) in [
        ("glm-4.5-air.json", Biases::Qkv, QkNorm::None, 1, 1),
        ("glm-4.5.json", Biases::Qkv, QkNorm::PerHead, 3, 1),
        ("deepseek-v2-lite.json", Biases::None, QkNorm::None, 1, 0),
        ("deepseek-v2.json", Biases::None, QkNorm::None, 1, 0),
    ] {
        let hub = read_whole(file);
        let arch = hub.architecture;
        assert_eq!(
            (
                arch.biases,
                arch.qk_norm,
                arch.moe.dense_layers,
                hub.mtp_layers
            ),
            (biases, qk_norm, dense, mtp),
            "{file}"
        );
    }
    let lite = read_config(&config_text("deepseek-v2-lite.json")).unwrap();
    assert_eq!(lite.architecture.mla.q_rank, 0);
    assert_eq!(lite.architecture.moe.shared_experts, 2);
}

/// Qwen's MoE knobs (issue 26): layers made dense by `mlp_only_layers` or
/// `decoder_sparse_step` are counted dense (as leading layers), an index
/// past the layers is refused with its key; `attention_bias` gives q, k, v
/// and o biases, with Llama's `mlp_bias` every linear's.
#[test]
fn qwen_moe_knobs_and_attention_biases_are_read() {
    use vram_core::model::architecture::Biases;
    let qwen = |extra: &str| {
        read_config(&format!(
            r#"{{"model_type": "qwen3_moe", "hidden_size": 64, "num_attention_heads": 4,
                "num_hidden_layers": 6, "intermediate_size": 96, "vocab_size": 100,
                "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32{extra}}}"#
        ))
    };
    let dense = |extra: &str| qwen(extra).unwrap().architecture.moe.dense_layers;
    assert_eq!(dense(""), 0);
    // Layers 2, 4 and 6 (1-based) are MoE at step 2; layer 4 made dense too.
    assert_eq!(dense(r#", "decoder_sparse_step": 2"#), 3);
    assert_eq!(
        dense(r#", "decoder_sparse_step": 2, "mlp_only_layers": [3]"#),
        4
    );
    assert_eq!(
        qwen(r#", "mlp_only_layers": [6]"#),
        Err(HubConfigError::Invalid("mlp_only_layers".into()))
    );
    assert_eq!(
        qwen(r#", "decoder_sparse_step": 0"#),
        Err(HubConfigError::Invalid("decoder_sparse_step".into()))
    );
    let biases = qwen(r#", "attention_bias": true"#)
        .unwrap()
        .architecture
        .biases;
    assert_eq!(biases, Biases::Attention);
    let llama = read_config(
        r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "num_hidden_layers": 2, "intermediate_size": 96, "vocab_size": 100,
            "attention_bias": true, "mlp_bias": true}"#,
    )
    .unwrap();
    assert_eq!(llama.architecture.biases, Biases::All);
}

/// Llama 4's text model (issue 26): Scout's 48 layers all mixtures of 16
/// experts, Maverick's every other layer of 128 with dense layers of
/// `intermediate_size_mlp`; one shared expert each; their chunked-attention
/// and no-RoPE keys known as parameterless. 107,769,861,120 and
/// 400,711,848,960 parameters as transformers builds the text models.
#[test]
fn llama4_interleaves_its_mixtures() {
    for (file, experts, dense, ffn) in [
        ("llama4-scout.json", 16, 0, 16384),
        ("llama4-maverick.json", 128, 24, 16384),
    ] {
        let arch = read_whole(file).architecture;
        assert_eq!(
            (
                arch.moe.experts,
                arch.moe.dense_layers,
                arch.ffn,
                arch.moe.shared_ffn
            ),
            (experts, dense, ffn, 8192),
            "{file}"
        );
    }
}

/// Gemma 3's published configs are multimodal (`gemma3`): their
/// `text_config` is read and counted as transformers builds the language model
/// (11,766,034,176 for 12B, 27,009,346,304 for 27B, the class's vocabulary of
/// 262,208 assumed), and the vision tower is said, not counted: `vision_config`
/// is listed as not understood (the whole models hold 12,187,325,040 and
/// 27,432,406,640, `measured/counts.json`).
#[test]
fn a_multimodal_config_is_read_by_its_language_model() {
    let value = counts();
    for file in ["gemma-3-12b.json", "gemma-3-27b.json"] {
        let hub = read_config(&config_text(file)).unwrap();
        assert_eq!(hub.model_type, "gemma3_text");
        assert_eq!(hub.not_understood, ["vision_config"], "{file}");
        assert!(hub
            .assumed
            .contains(&("vocab_size".into(), "262208".into())));
        let whole = &value["multimodal"][file];
        assert_eq!(
            hub.architecture.param_count(),
            whole["text"].as_u64().unwrap()
        );
        assert!(whole["total"].as_u64().unwrap() > hub.architecture.param_count());
    }
    // A multimodal config whose language model is no family read is refused
    // by its own type.
    assert_eq!(
        read_config(r#"{"model_type": "llava", "text_config": {"model_type": "vicuna"}}"#),
        Err(HubConfigError::UnknownModelType("llava".into()))
    );
}

/// Valid JSON describing an impossible model is refused by the key at fault
/// (issue 26): heads not dividing the width, key/value heads not dividing the
/// heads, more experts per token than experts, more leading dense layers
/// than layers, no layers.
#[test]
fn an_impossible_config_names_its_key() {
    let base = r#""model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
        "intermediate_size": 64, "vocab_size": 50, "num_experts": 4,
        "moe_intermediate_size": 8, "head_dim": 0"#;
    for (extra, key) in [
        (r#""num_attention_heads": 7"#, "num_attention_heads"),
        (
            r#""num_attention_heads": 4, "num_key_value_heads": 3"#,
            "num_key_value_heads",
        ),
        (
            r#""num_attention_heads": 4, "num_experts_per_tok": 5"#,
            "num_experts_per_tok",
        ),
        (
            r#""num_attention_heads": 4, "num_experts_per_tok": 0"#,
            "num_experts_per_tok",
        ),
        (
            r#""num_attention_heads": 4, "num_hidden_layers": 0"#,
            "num_hidden_layers",
        ),
    ] {
        let text = format!("{{{base}, \"num_experts_per_tok\": 2, {extra}}}");
        assert_eq!(
            read_config(&text),
            Err(HubConfigError::Invalid(key.into())),
            "{extra}"
        );
    }
    let glm = r#"{"model_type": "glm4_moe", "hidden_size": 64, "num_attention_heads": 4,
        "num_hidden_layers": 2, "intermediate_size": 64, "vocab_size": 50,
        "first_k_dense_replace": 3}"#;
    assert_eq!(
        read_config(glm),
        Err(HubConfigError::Invalid("first_k_dense_replace".into()))
    );
    let gpt2 = r#"{"model_type": "gpt2", "n_embd": 100, "n_head": 7}"#;
    assert_eq!(
        read_config(gpt2),
        Err(HubConfigError::Invalid("n_head".into()))
    );
}

/// Issue 26: random variants of every family read (seeded, small shapes,
/// `scripts/measure-counts`) count as transformers 5.24 builds them.
#[test]
fn random_variants_of_every_family_count_as_transformers_builds_them() {
    let value = counts();
    let variants = value["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 94);
    let mut families = std::collections::BTreeSet::new();
    for variant in variants {
        let config = variant["config"].to_string();
        let hub = read_config(&config).unwrap_or_else(|e| panic!("{config}: {e:?}"));
        assert_eq!(
            hub.architecture.param_count(),
            variant["params"].as_u64().unwrap(),
            "{config}"
        );
        families.insert(hub.model_type);
    }
    // Every family read but DeepSeek-V3 (its published config is measured).
    assert_eq!(families.len(), vram_core::model::hub::MODEL_TYPES.len() - 1);
}

/// gpt-oss (issue 26): attention sinks (one logit a head), q, k, v and o
/// biases, a biased router and biased experts, every layer a mixture; its
/// MXFP4 `quantization_config`, `experts_per_token` and layer types read or
/// known as parameterless. gpt-oss-20b by hand: a layer's attention
/// 2880 × (4096 + 2 × 512) + 4096 × 2880 + biases 4096 + 2 × 512 + 2880 + 64
/// sinks = 26,550,144; its mixture 32 × 2880 router + 32 router biases +
/// 32 × (3 × 2880 × 2880 + 2 × 2880 + 2880) = 796,631,072; two norms 5,760;
/// 24 layers, two 201,088 × 2880 embeddings and a final norm: 20,914,757,184,
/// the model card's 20.9 B (and transformers' count). Active: 4 of 32 experts.
#[test]
fn gpt_oss_reads_sinks_and_biased_experts() {
    let a = read_whole("gpt-oss-20b.json").architecture;
    assert!(a.attention_sinks && a.moe.biased);
    assert_eq!(a.attention_params(), 26_550_144);
    assert_eq!(a.param_count(), 20_914_757_184);
    let per_expert = 3 * 2880 * 2880 + 2 * 2880 + 2880;
    assert_eq!(
        a.active_param_count(),
        20_914_757_184 - 24 * 28 * per_expert
    );
    let big = read_config(&config_text("gpt-oss-120b.json")).unwrap();
    assert_eq!(big.architecture.param_count(), 116_829_156_672);
}

/// Cohere2 (issue 26): one bias-free LayerNorm a layer (h parameters, as an
/// RMSNorm's) before the attention and the MLP side by side; its class
/// defaults by hand: 40 layers × (4 × 8192² + 3 × 8192 × 22528 + 8192) and a
/// tied 256,000 × 8192 embedding and a final norm: 34,980,831,232.
#[test]
fn cohere2_reads_one_norm_a_layer() {
    let hub = read_config(&config_text("cohere2-class-defaults.json")).unwrap();
    let a = hub.architecture;
    assert!(a.parallel_block && a.tied_embeddings);
    assert_eq!(a.layer_norm_params(), 8192);
    let layer = 4 * 8192 * 8192 + 3 * 8192 * 22528 + 8192;
    assert_eq!(a.param_count(), 40 * layer + 256_000 * 8192 + 8192);
    assert_eq!(a.param_count(), 34_980_831_232);
}

#[test]
fn what_was_read_assumed_and_not_understood_is_listed() {
    let hub = read_whole("deepseek-v3.json");
    assert_eq!(hub.model_type, "deepseek_v3");
    assert_eq!(hub.mtp_layers, 1);
    // Its prediction layer, counted apart from the tensors of the checkpoint's
    // `model.layers.61`: the latent attention (q_a 7168 × 1536 and its norm,
    // q_b 1536 × 128·192, kv_a 7168 × 576 and its norm, kv_b 512 × 128·256,
    // o 16384 × 7168), the router and 256 + 1 experts, two norms; enorm, hnorm,
    // eh_proj 14336 × 7168, embed_tokens and shared_head (norm, head).
    let attention =
        7168 * 1536 + 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 + 512 * 128 * 256 + 16384 * 7168;
    let experts = 256 * 7168 + 257 * 3 * 7168 * 2048;
    let mtp = attention + experts + 2 * 7168 + 2 * 7168 + 14336 * 7168 + 7168 + 2 * 129_280 * 7168;
    assert_eq!(hub.architecture.mtp_layer_params(), mtp);
    assert_eq!(mtp, 13_463_426_048);
    assert!(hub.read.contains(&("kv_lora_rank".into(), "512".into())));
    // Qwen1.5-MoE-A2.7B: its shared expert and gate; 14.3 B, 2.7 B active (its name).
    let qwen_moe = read_config(&config_text("qwen1.5-moe-a2.7b.json")).unwrap();
    assert!(qwen_moe.architecture.moe.shared_gate);
    assert_eq!(qwen_moe.architecture.active_param_count(), 2_689_173_504);
    // Qwen3 without `head_dim` takes Qwen3Config's 128; without
    // `num_key_value_heads`, one key/value head per head.
    let qwen3 = read_config(
        r#"{"model_type": "qwen3", "hidden_size": 1024, "num_attention_heads": 16,
        "num_hidden_layers": 28, "intermediate_size": 3072, "vocab_size": 151936,
        "tie_word_embeddings": true, "num_experts_soon": 4}"#,
    )
    .unwrap();
    assert!(qwen3.assumed.contains(&("head_dim".into(), "128".into())));
    assert!(qwen3
        .assumed
        .contains(&("num_key_value_heads".into(), "16".into())));
    assert_eq!(qwen3.not_understood, ["num_experts_soon"]);
}

#[test]
fn bad_json_is_a_clear_error() {
    let text = config_text("mixtral-8x7b.json");
    let full = text.trim_end();
    // Truncated anywhere: an error (JSON, or a key missing), never a panic.
    for end in 0..full.len() {
        if let Ok(hub) = read_config(&full[..end]) {
            panic!("{end}: {hub:?}");
        }
    }
    assert_eq!(
        read_config("{\"model_type\": \"llama\",\n \"hidden_size\": }"),
        Err(HubConfigError::Json {
            line: 2,
            column: 17
        })
    );
    assert_eq!(read_config("[1, 2]"), Err(HubConfigError::NotAnObject));
    assert_eq!(read_config("{}"), Err(HubConfigError::NoModelType));
    assert_eq!(
        read_config(r#"{"model_type": "gemma9"}"#),
        Err(HubConfigError::UnknownModelType("gemma9".into()))
    );
    let llama = |extra: &str| {
        read_config(&format!(
            r#"{{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000{extra}}}"#
        ))
    };
    assert!(llama("").is_ok());
    for (extra, error) in [
        (
            r#", "hidden_size": "4096""#,
            HubConfigError::Invalid("hidden_size".into()),
        ),
        (
            r#", "num_hidden_layers": -1"#,
            HubConfigError::Invalid("num_hidden_layers".into()),
        ),
        (
            r#", "num_hidden_layers": 2.5"#,
            HubConfigError::Invalid("num_hidden_layers".into()),
        ),
        (
            r#", "vocab_size": 1e300"#,
            HubConfigError::Invalid("vocab_size".into()),
        ),
        (
            r#", "vocab_size": 4294967296"#,
            HubConfigError::Invalid("vocab_size".into()),
        ),
        (
            r#", "tie_word_embeddings": "no""#,
            HubConfigError::Invalid("tie_word_embeddings".into()),
        ),
        (
            r#", "mlp_bias": true"#,
            HubConfigError::Unsupported("mlp_bias".into()),
        ),
        (
            r#", "attention_bias": 1"#,
            HubConfigError::Invalid("attention_bias".into()),
        ),
    ] {
        // A repeated key: serde_json keeps the last, as Python's json does.
        assert_eq!(llama(extra), Err(error), "{extra}");
    }
    assert_eq!(
        read_config(r#"{"model_type": "llama", "hidden_size": 4096}"#),
        Err(HubConfigError::Missing("num_attention_heads".into()))
    );
    // Hostile: deep nesting stops at serde_json's recursion limit; a huge
    // string is just an unknown type.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        read_config(&deep),
        Err(HubConfigError::Json { .. })
    ));
    let long = format!(r#"{{"model_type": "{}"}}"#, "x".repeat(1_000_000));
    match read_config(&long) {
        Err(HubConfigError::UnknownModelType(t)) => assert_eq!(t.len(), 64),
        other => panic!("{other:?}"),
    }
    // Impossible architectures are refused by the key at fault.
    assert_eq!(
        llama(r#", "num_attention_heads": 0"#),
        Err(HubConfigError::Invalid("num_attention_heads".into()))
    );
}

/// What the lazily loaded reader sends the page is the link of the form with
/// the config applied (`vram_view::replies::ReadReply`): every published
/// config, applied to the lesson's form and to a layout with LoRA, decodes
/// from that link to exactly the configuration it made, where that is valid
/// (a link sets aside what cannot be computed: LoRA on DeepSeek-V3's latent
/// attention).
#[test]
fn a_read_config_travels_exactly_as_its_link() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/configs");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let hub = read_config(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for form in ["", "gpus=16&nodes=2&tp=2&seq=4096&method=lora&unit=gib"] {
            let config = link::decode(form).config.with_hub_config(&hub).unwrap();
            if config.report().is_err() {
                continue;
            }
            assert_eq!(
                link::decode(&link::encode(&config)).config,
                config,
                "{} on {form:?}",
                path.display()
            );
        }
        read += 1;
    }
    assert!(read >= 10);
}

/// A pasted config takes the preset of exactly its shape, and otherwise is a
/// custom model (issue 25: Llama 3 70B pasted read "Llama 3 8B", the family's
/// preset): its link says `model=config-json` and carries every key of its
/// shape, including the biases and norms no preset then gives.
#[test]
fn a_config_matching_no_preset_is_a_custom_model() {
    // Llama 3 8B and 3.1 8B have one shape (only RoPE's scaling differs):
    // the first preset of that shape names it.
    let llama = read_config(&config_text("llama3.1-8b.json")).unwrap();
    assert_eq!(llama.base.id, "llama3-8b");
    let deeper = config_text("llama3.1-8b.json")
        .replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 40");
    let custom = read_config(&deeper).unwrap();
    assert_eq!(custom.architecture.layers, 40);
    assert_eq!(custom.base.id, "config-json");
    let config = Config::default().with_hub_config(&custom).unwrap();
    let query = link::encode(&config);
    assert!(query.contains("&model=config-json&layers=40&"), "{query}");
    assert!(
        !query.contains("biases=") && !query.contains("norm="),
        "{query}"
    );
    assert_eq!(
        link::decode(&query).config.model.unwrap().architecture,
        custom.architecture
    );
    // GPT-2 XL is no preset: LayerNorm and biases everywhere travel as keys.
    let gpt2 = read_config(&config_text("gpt2-xl.json")).unwrap();
    assert_eq!(gpt2.base.id, "config-json");
    let query = link::encode(&Config::default().with_hub_config(&gpt2).unwrap());
    assert!(
        query.contains("biases=all") && query.contains("norm=layernorm"),
        "{query}"
    );
    assert_eq!(
        link::decode(&query).config.model.unwrap().architecture,
        gpt2.architecture
    );
}

/// Qwen3-Next-80B-A3B worked by hand: 12 gated full-attention layers (q_proj
/// 2048 × 2·16·256 with its gate, k and v 2048 × 512, o 4096 × 2048, per-head
/// q/k norms), 36 Gated DeltaNet layers (conv1d 8192 × 4, in_proj_qkvz 2048 ×
/// 12288, in_proj_ba 2048 × 64, dt_bias and A_log 32 each, a norm of 128,
/// out_proj 4096 × 2048), 48 mixtures (router, 512 experts of 3 × 2048 × 512,
/// the shared expert and its gate), two norms a layer, untied 151,936 × 2048
/// embeddings and a final norm. 79,674,391,296 is also the total the Hub
/// publishes for Qwen3-Next's checkpoints; 10 of 512 routed experts a token
/// leave 3,874,929,408 active.
#[test]
fn qwen3_next_counts_its_linear_and_full_attention_layers() {
    let a = read_whole("qwen3-next-80b-a3b.json").architecture;
    assert_eq!((a.linear_layer_count(), a.linear.full_every), (36, 4));
    assert!(a.gated_attention && !a.is_linear_layer(3) && a.is_linear_layer(4));
    let full = 2048 * 8192 + 2 * 2048 * 512 + 4096 * 2048 + 2 * 256;
    let linear = 8192 * 4 + 2048 * 12288 + 2048 * 64 + 2 * 32 + 128 + 4096 * 2048;
    assert_eq!((a.attention_params(), a.mixer_params(true)), (full, linear));
    let moe = |routed: u64| 512 * 2048 + routed * 3 * 2048 * 512 + 3 * 2048 * 512 + 2048;
    let outside = 2 * 151_936 * 2048 + 2048;
    let total = |routed| 12 * full + 36 * linear + 48 * (moe(routed) + 2 * 2048) + outside;
    assert_eq!(a.param_count(), total(512));
    assert_eq!(a.param_count(), 79_674_391_296);
    assert_eq!(a.active_param_count(), total(10));
    assert_eq!(a.active_param_count(), 3_874_929_408);
    // A layer pattern other than every n-th full is refused by its key, as is
    // a pattern of the wrong length; all full is no linear attention.
    let with_types = |types: &str| {
        let text = config_text("qwen3-next-80b-a3b.json")
            .replace(
                "\"full_attention_interval\": 4,",
                &format!("\"layer_types\": {types},"),
            )
            .replace("\"num_hidden_layers\": 48", "\"num_hidden_layers\": 3");
        read_config(&text)
    };
    let err = |key: &str| Some(key.to_string());
    let key = |r: Result<_, HubConfigError>| match r {
        Err(HubConfigError::Unsupported(k) | HubConfigError::Invalid(k)) => Some(k),
        _ => None,
    };
    let mixed = r#"["full_attention", "linear_attention", "linear_attention"]"#;
    assert_eq!(key(with_types(mixed)), err("layer_types"));
    assert_eq!(
        key(with_types(r#"["linear_attention"]"#)),
        err("layer_types")
    );
    let every = r#"["linear_attention", "full_attention", "linear_attention"]"#;
    assert_eq!(with_types(every).unwrap().architecture.linear.full_every, 2);
    let all_full = r#"["full_attention", "full_attention", "full_attention"]"#;
    assert!(!with_types(all_full).unwrap().architecture.linear.is_some());
    // Value heads not a multiple of the key heads.
    let text = config_text("qwen3-next-80b-a3b.json").replace(
        "\"linear_num_value_heads\": 32",
        "\"linear_num_value_heads\": 24",
    );
    assert_eq!(key(read_config(&text)), err("linear_num_key_heads"));
}

/// A `config.json` whose dimension its link key would refuse is refused
/// before anything is counted from it (a debug build overflowed multiplying
/// `hidden_size` 10⁹; a release build counted it wrong), and a link at the
/// edges of every MoE key is refused by the model's size, not counted wrong.
#[test]
fn dimensions_beyond_the_links_limits_are_refused_before_counting() {
    let json = r#"{"model_type": "llama", "hidden_size": 1000000000, "intermediate_size": 11008,
        "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000}"#;
    let hub = vram_core::model::hub::read_config(json).unwrap();
    let error = Config::default().with_hub_config(&hub).unwrap_err();
    assert_eq!(error.field, vram_core::input::Field::Hidden);
    assert!(matches!(
        error.kind,
        vram_core::input::InputErrorKind::OutOfRange(_)
    ));
    let decoded = link::decode(
        "model=mixtral-8x7b&experts=65536&expert_ffn=16777216&hidden=1048576&layers=10000",
    );
    assert!(!decoded.problems.is_empty());
    assert!(decoded.config.report().is_ok());
}
