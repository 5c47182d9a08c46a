//! The presets of well-known models: each published `config.json` as an
//! [`Architecture`], counted to the parameter in the tests below.

use crate::model::architecture::{
    Architecture, Biases, LinearAttention, LocalAttention, Mla, Mlp, Moe, Norm, QkNorm,
};

/// A well-known model: its id in the shared link, its name and its configuration.
///
/// Sources: each model's `config.json` as published by its authors
/// (meta-llama/Llama-2-{7,13,70}b-hf, meta-llama/Meta-Llama-3-{8,70}B,
/// huggyllama/llama-30b and llama-65b for LLaMA 33B and 65B, mistralai/Mistral-7B-v0.1,
/// Qwen/Qwen2.5-{7,14,32,72}B); GPT-3 from Brown et al. 2020, "Language Models are
/// Few-Shot Learners", table 2.1, with GPT-2's layout. README lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelPreset {
    /// The `model` key's value.
    pub id: &'static str,
    /// The name people use.
    pub name: &'static str,
    /// The configuration.
    pub architecture: Architecture,
    /// The longest sequence its `config.json` allows
    /// (`max_position_embeddings`; Qwen2.5's Instruct checkpoints' 32,768),
    /// the `max_model_len` vLLM serves it at by default; 0 where unknown.
    pub context: u32,
}

/// A dense decoder with nothing beyond one and no size yet: Llama's SwiGLU,
/// RMSNorm and rotary positions, no biases, untied; no head size of its
/// own, q/k norms, sandwich norms, attention sinks, soft-capping, parallel
/// block nor gated attention; no experts, latent, linear or local attention
/// and no multi-token prediction. The presets, the read configs and
/// [`dense`] fill it in.
pub const PLAIN: Architecture = Architecture {
    layers: 0,
    hidden: 0,
    ffn: 0,
    heads: 0,
    kv_heads: 0,
    vocab: 0,
    tied_embeddings: false,
    mlp: Mlp::SwiGlu,
    biases: Biases::None,
    norm: Norm::RmsNorm,
    learned_positions: 0,
    head_dim: 0,
    qk_norm: QkNorm::None,
    sandwich_norms: false,
    attention_sinks: false,
    logit_softcap: false,
    parallel_block: false,
    gated_attention: false,
    moe: Moe::DENSE,
    mla: Mla::NONE,
    linear: LinearAttention::NONE,
    local: LocalAttention::NONE,
    mtp_layers: 0,
};

/// `arch` without what goes beyond a dense model: its sizes, MLP, biases,
/// norm, positions and tying kept, the rest [`PLAIN`]'s.
pub const fn dense(arch: Architecture) -> Architecture {
    Architecture {
        layers: arch.layers,
        hidden: arch.hidden,
        ffn: arch.ffn,
        heads: arch.heads,
        kv_heads: arch.kv_heads,
        vocab: arch.vocab,
        tied_embeddings: arch.tied_embeddings,
        mlp: arch.mlp,
        biases: arch.biases,
        norm: arch.norm,
        learned_positions: arch.learned_positions,
        ..PLAIN
    }
}

/// `family`'s layout in layers of these sizes: `layers` blocks `hidden`
/// wide, an MLP `ffn` wide, `heads` query heads and `kv_heads` key/value
/// heads.
const fn sized(
    family: Architecture,
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    kv_heads: u32,
) -> Architecture {
    Architecture {
        layers,
        hidden,
        ffn,
        heads,
        kv_heads,
        ..family
    }
}

/// Llama's layers of these sizes and a `vocab`-token vocabulary, [`PLAIN`]
/// otherwise.
pub(crate) const fn llama(
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    kv_heads: u32,
    vocab: u32,
) -> Architecture {
    sized(
        Architecture { vocab, ..PLAIN },
        layers,
        hidden,
        ffn,
        heads,
        kv_heads,
    )
}

/// GPT-2's layout, GPT-3's too: a GELU MLP of `ffn`, biases everywhere,
/// LayerNorm, `learned_positions` learned positions, tied embeddings, every
/// head its own keys and values.
pub const fn gpt(
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    vocab: u32,
    learned_positions: u32,
) -> Architecture {
    Architecture {
        tied_embeddings: true,
        mlp: Mlp::Gelu,
        biases: Biases::All,
        norm: Norm::LayerNorm,
        learned_positions,
        ..llama(layers, hidden, ffn, heads, heads, vocab)
    }
}

/// Qwen2.5, a family for [`sized`]: Llama's layers with biases on q, k and
/// v, a 152,064-token vocabulary.
const QWEN2: Architecture = Architecture {
    biases: Biases::Qkv,
    vocab: 152_064,
    ..PLAIN
};

/// Qwen3, a family for [`sized`]: Llama's layers with heads of 128 and q and
/// k normed per head, a 151,936-token vocabulary, untied.
const QWEN3: Architecture = Architecture {
    head_dim: 128,
    qk_norm: QkNorm::PerHead,
    vocab: 151_936,
    ..PLAIN
};

/// OLMo 2, a family for [`sized`]: Llama's layers with q and k normed over
/// their full width, a 100,352-token vocabulary, untied.
const OLMO2: Architecture = Architecture {
    qk_norm: QkNorm::Full,
    vocab: 100_352,
    ..PLAIN
};

/// Gemma 2, a family for [`sized`]: four norms a layer, soft-capped logits,
/// every other layer a 4,096-token window, a 256,000-token vocabulary, tied;
/// its gated GELU has SwiGLU's three matrices. Each preset gives its head size.
const GEMMA2: Architecture = Architecture {
    sandwich_norms: true,
    attention_sinks: false,
    logit_softcap: true,
    parallel_block: false,
    tied_embeddings: true,
    local: LocalAttention::sliding(4096, 2),
    vocab: 256_000,
    ..PLAIN
};

/// Routed experts only, no shared ones, every layer sparse (Mixtral, Qwen3-MoE).
/// gpt-oss: width 2,880, 64 heads of 64 with 8 KV heads, q/k/v/o biases and
/// attention sinks; every layer a mixture of `experts` biased experts, 4 a token.
const fn gpt_oss(layers: u32, experts: u32) -> Architecture {
    Architecture {
        biases: Biases::Attention,
        head_dim: 64,
        attention_sinks: true,
        local: LocalAttention::sliding(128, 2),
        moe: Moe {
            biased: true,
            ..routed(experts, 4, 2880)
        },
        ..llama(layers, 2880, 2880, 64, 8, 201_088)
    }
}

const fn routed(experts: u32, top_k: u32, expert_ffn: u32) -> Moe {
    Moe {
        experts,
        top_k,
        expert_ffn,
        ..Moe::DENSE
    }
}

/// The presets, in the order the page lists them.
pub const MODEL_PRESETS: &[ModelPreset] = &[
    ModelPreset {
        id: "llama2-7b",
        name: "Llama 2 7B",
        context: 4096,
        architecture: llama(32, 4096, 11008, 32, 32, 32000),
    },
    ModelPreset {
        id: "llama2-13b",
        name: "Llama 2 13B",
        context: 4096,
        architecture: llama(40, 5120, 13824, 40, 40, 32000),
    },
    ModelPreset {
        id: "llama1-33b",
        name: "LLaMA 33B",
        context: 2048,
        architecture: llama(60, 6656, 17920, 52, 52, 32000),
    },
    ModelPreset {
        id: "llama1-65b",
        name: "LLaMA 65B",
        context: 2048,
        architecture: llama(80, 8192, 22016, 64, 64, 32000),
    },
    ModelPreset {
        id: "llama2-70b",
        name: "Llama 2 70B",
        context: 4096,
        architecture: llama(80, 8192, 28672, 64, 8, 32000),
    },
    ModelPreset {
        id: "llama3-8b",
        name: "Llama 3 8B",
        context: 8192,
        architecture: llama(32, 4096, 14336, 32, 8, 128_256),
    },
    ModelPreset {
        id: "llama3-70b",
        name: "Llama 3 70B",
        context: 8192,
        architecture: llama(80, 8192, 28672, 64, 8, 128_256),
    },
    ModelPreset {
        id: "llama3.1-8b",
        name: "Llama 3.1 8B",
        context: 131072,
        architecture: llama(32, 4096, 14336, 32, 8, 128_256),
    },
    ModelPreset {
        id: "llama3.1-70b",
        name: "Llama 3.1 70B",
        context: 131072,
        architecture: llama(80, 8192, 28672, 64, 8, 128_256),
    },
    ModelPreset {
        id: "llama3.1-405b",
        name: "Llama 3.1 405B",
        context: 131072,
        architecture: llama(126, 16384, 53248, 128, 8, 128_256),
    },
    ModelPreset {
        id: "mistral-7b",
        name: "Mistral 7B v0.1",
        context: 32768,
        architecture: Architecture {
            local: LocalAttention::sliding(4096, 0),
            ..llama(32, 4096, 14336, 32, 8, 32000)
        },
    },
    ModelPreset {
        id: "phi-4",
        name: "Phi-4 (14B)",
        context: 16384,
        architecture: llama(40, 5120, 17920, 40, 10, 100352),
    },
    ModelPreset {
        id: "olmo2-7b",
        name: "OLMo 2 7B",
        context: 4096,
        architecture: sized(OLMO2, 32, 4096, 11008, 32, 32),
    },
    ModelPreset {
        id: "olmo2-13b",
        name: "OLMo 2 13B",
        context: 4096,
        architecture: sized(OLMO2, 40, 5120, 13824, 40, 40),
    },
    ModelPreset {
        id: "gemma2-9b",
        name: "Gemma 2 9B",
        context: 8192,
        architecture: Architecture {
            head_dim: 256,
            ..sized(GEMMA2, 42, 3584, 14336, 16, 8)
        },
    },
    ModelPreset {
        id: "gemma2-27b",
        name: "Gemma 2 27B",
        context: 8192,
        architecture: Architecture {
            head_dim: 128,
            ..sized(GEMMA2, 46, 4608, 36864, 32, 16)
        },
    },
    ModelPreset {
        id: "qwen2.5-7b",
        name: "Qwen2.5 7B",
        context: 32768,
        architecture: sized(QWEN2, 28, 3584, 18944, 28, 4),
    },
    ModelPreset {
        id: "qwen2.5-14b",
        name: "Qwen2.5 14B",
        context: 32768,
        architecture: sized(QWEN2, 48, 5120, 13824, 40, 8),
    },
    ModelPreset {
        id: "qwen2.5-32b",
        name: "Qwen2.5 32B",
        context: 32768,
        architecture: sized(QWEN2, 64, 5120, 27648, 40, 8),
    },
    ModelPreset {
        id: "qwen2.5-72b",
        name: "Qwen2.5 72B",
        context: 32768,
        architecture: sized(QWEN2, 80, 8192, 29568, 64, 8),
    },
    ModelPreset {
        id: "qwen3-0.6b",
        name: "Qwen3 0.6B",
        context: 40960,
        architecture: Architecture {
            tied_embeddings: true,
            ..sized(QWEN3, 28, 1024, 3072, 16, 8)
        },
    },
    ModelPreset {
        id: "qwen3-8b",
        name: "Qwen3 8B",
        context: 40960,
        architecture: sized(QWEN3, 36, 4096, 12288, 32, 8),
    },
    ModelPreset {
        id: "qwen3-32b",
        name: "Qwen3 32B",
        context: 40960,
        architecture: sized(QWEN3, 64, 5120, 25600, 64, 8),
    },
    ModelPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        context: 32768,
        architecture: Architecture {
            moe: routed(8, 2, 14336),
            ..llama(32, 4096, 14336, 32, 8, 32000)
        },
    },
    ModelPreset {
        id: "mixtral-8x22b",
        name: "Mixtral 8x22B",
        context: 65536,
        architecture: Architecture {
            moe: routed(8, 2, 16384),
            ..llama(56, 6144, 16384, 48, 8, 32768)
        },
    },
    ModelPreset {
        id: "qwen3-30b-a3b",
        name: "Qwen3-30B-A3B",
        context: 40960,
        architecture: Architecture {
            moe: routed(128, 8, 768),
            ..sized(QWEN3, 48, 2048, 6144, 32, 4)
        },
    },
    ModelPreset {
        id: "qwen3-235b-a22b",
        name: "Qwen3-235B-A22B",
        context: 40960,
        architecture: Architecture {
            moe: routed(128, 8, 1536),
            ..sized(QWEN3, 94, 4096, 12288, 64, 4)
        },
    },
    ModelPreset {
        id: "qwen3-next-80b-a3b",
        name: "Qwen3-Next-80B-A3B",
        context: 262144,
        architecture: Architecture {
            head_dim: 256,
            gated_attention: true,
            moe: Moe {
                shared_experts: 1,
                shared_ffn: 512,
                shared_gate: true,
                ..routed(512, 10, 512)
            },
            linear: LinearAttention {
                full_every: 4,
                k_heads: 16,
                v_heads: 32,
                k_dim: 128,
                v_dim: 128,
                conv_kernel: 4,
            },
            ..sized(QWEN3, 48, 2048, 5120, 16, 2)
        },
    },
    ModelPreset {
        id: "glm-4.5-air",
        name: "GLM-4.5-Air",
        context: 131072,
        architecture: Architecture {
            biases: Biases::Qkv,
            head_dim: 128,
            moe: Moe {
                shared_experts: 1,
                shared_ffn: 1408,
                dense_layers: 1,
                ..routed(128, 8, 1408)
            },
            ..llama(46, 4096, 10944, 96, 8, 151_552)
        },
    },
    ModelPreset {
        id: "gemma-3-12b",
        name: "Gemma 3 12B (text)",
        context: 131072,
        architecture: Architecture {
            head_dim: 256,
            qk_norm: QkNorm::PerHead,
            sandwich_norms: true,
            tied_embeddings: true,
            local: LocalAttention::sliding(1024, 6),
            ..llama(48, 3840, 15360, 16, 8, 262_208)
        },
    },
    ModelPreset {
        id: "gemma-3-27b",
        name: "Gemma 3 27B (text)",
        context: 131072,
        architecture: Architecture {
            head_dim: 128,
            qk_norm: QkNorm::PerHead,
            sandwich_norms: true,
            tied_embeddings: true,
            local: LocalAttention::sliding(1024, 6),
            ..llama(62, 5376, 21504, 32, 16, 262_208)
        },
    },
    ModelPreset {
        id: "llama4-scout",
        name: "Llama 4 Scout (text)",
        context: 10485760,
        architecture: Architecture {
            head_dim: 128,
            moe: Moe {
                shared_experts: 1,
                shared_ffn: 8192,
                ..routed(16, 1, 8192)
            },
            local: LocalAttention {
                window: 8192,
                global_every: 4,
                chunked: true,
            },
            ..llama(48, 5120, 16384, 40, 8, 202_048)
        },
    },
    ModelPreset {
        id: "gpt-oss-20b",
        name: "gpt-oss-20b",
        context: 131072,
        architecture: gpt_oss(24, 32),
    },
    ModelPreset {
        id: "gpt-oss-120b",
        name: "gpt-oss-120b",
        context: 131072,
        architecture: gpt_oss(36, 128),
    },
    ModelPreset {
        id: "deepseek-v2-lite",
        name: "DeepSeek-V2-Lite",
        context: 163840,
        architecture: Architecture {
            moe: Moe {
                shared_experts: 2,
                shared_ffn: 1408,
                dense_layers: 1,
                ..routed(64, 6, 1408)
            },
            mla: Mla {
                q_rank: 0,
                kv_rank: 512,
                rope_dim: 64,
                nope_dim: 128,
                v_dim: 128,
            },
            ..llama(27, 2048, 10944, 16, 16, 102_400)
        },
    },
    ModelPreset {
        id: "deepseek-v3",
        name: "DeepSeek-V3",
        context: 163840,
        architecture: Architecture {
            moe: Moe {
                experts: 256,
                top_k: 8,
                expert_ffn: 2048,
                shared_experts: 1,
                shared_ffn: 2048,
                shared_gate: false,
                dense_layers: 3,
                biased: false,
            },
            mla: Mla {
                q_rank: 1536,
                kv_rank: 512,
                rope_dim: 64,
                nope_dim: 128,
                v_dim: 128,
            },
            ..llama(61, 7168, 18432, 128, 128, 129_280)
        },
    },
    ModelPreset {
        id: "gpt3-175b",
        name: "GPT-3 175B",
        context: 2048,
        architecture: gpt(96, 12288, 4 * 12288, 96, 50257, 2048),
    },
    CUSTOM_MODEL,
];

/// A model that matches no preset, such as a pasted `config.json` of a
/// fine-tune or a size nobody published: its link names it `model=config-json`
/// and carries every architecture key, which replace this placeholder's
/// (Llama 2 7B's shape).
pub const CUSTOM_MODEL: ModelPreset = ModelPreset {
    id: "config-json",
    name: "custom (config.json)",
    context: 0,
    architecture: llama(32, 4096, 11008, 32, 32, 32000),
};

/// The preset whose id is `id`.
pub fn model_preset(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS.iter().find(|preset| preset.id == id)
}

/// A preset in serde's form: its id (`#[serde(with = "preset_by_id")]`).
pub mod preset_by_id {
    use super::{model_preset, ModelPreset};
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the preset's id.
    pub fn serialize<S: Serializer>(
        preset: &&'static ModelPreset,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(preset.id)
    }

    /// Reads a preset's id.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<&'static ModelPreset, D::Error> {
        let id = <&str>::deserialize(deserializer)?;
        model_preset(id).ok_or_else(|| serde::de::Error::custom("an unknown preset"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn count(id: &str) -> u64 {
        model_preset(id)
            .expect("a preset")
            .architecture
            .param_count()
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn published_counts_to_the_parameter() {
        // Each preset's parameters as its authors' checkpoints hold them.
        let published: &[(&str, u64)] = &[
            ("llama2-7b", 6_738_415_616),
            ("llama3-8b", 8_030_261_248),
            ("mistral-7b", 7_241_732_096),
            // transformers 5.24 (scripts/measure-counts, tests/configs/phi-4.json).
            ("phi-4", 14_659_507_200),
            // OLMo 2's full-width q/k norms (tests/configs/olmo2-*.json).
            ("olmo2-7b", 7_298_617_344),
            ("olmo2-13b", 13_716_198_400),
            // Gemma 2's four norms a layer (tests/configs/gemma2-*.json).
            ("gemma2-9b", 9_241_705_984),
            ("gemma2-27b", 27_227_128_320),
            ("llama2-13b", 13_015_864_320),
            ("llama2-70b", 68_976_648_192),
            ("llama3-70b", 70_553_706_496),
            ("llama1-33b", 32_528_943_616),
            ("llama1-65b", 65_285_660_672),
        ];
        for &(id, params) in published {
            assert_eq!(count(id), params, "{id}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn llama2_7b_breaks_down_as_its_tensors() {
        let parts = model_preset("llama2-7b")
            .unwrap()
            .architecture
            .param_breakdown();
        assert_eq!(parts.embeddings, 32_000 * 4096);
        assert_eq!(parts.output_head, 32_000 * 4096);
        assert_eq!(parts.final_norm, 4096);
        // 4 × 4096² attention + 3 × 4096 × 11008 MLP + 2 × 4096 norms, 32 times.
        assert_eq!(
            parts.layers,
            32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096)
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn gpt3_is_175_billion_and_qwen_has_qkv_biases() {
        // GPT-3's paper gives 175.0 B; the layout above counts 174.6 B.
        let gpt3 = count("gpt3-175b") as f64 / 1e9;
        assert!((gpt3 - 174.6).abs() < 0.1, "{gpt3}");
        let qwen = model_preset("qwen2.5-7b").unwrap().architecture;
        let without_biases = Architecture {
            biases: Biases::None,
            ..qwen
        };
        // q (3584) + k and v (4 heads × 128 = 512 each), in 28 layers.
        assert_eq!(
            qwen.param_count() - without_biases.param_count(),
            28 * (3584 + 2 * 512)
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn every_preset_is_consistent() {
        for preset in MODEL_PRESETS {
            let a = preset.architecture;
            // A head size of its own (GLM-4.5-Air's 96 heads of 128 over
            // 4,096) or latent attention need not divide the width.
            assert!(
                a.head_dim > 0 || a.mla.is_latent() || a.hidden % a.heads == 0,
                "{}: heads divide hidden",
                preset.id
            );
            assert_eq!(
                a.heads % a.kv_heads,
                0,
                "{}: kv heads divide heads",
                preset.id
            );
            assert!(a.largest_layer_params() >= a.hidden as u64 * a.hidden as u64);
            assert_eq!(model_preset(preset.id), Some(preset));
        }
    }
}
