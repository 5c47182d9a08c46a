//! Transformer architectures: the exact parameter count of a decoder-only model
//! from its configuration, and the presets of well-known models.
//!
//! Counted, per layer: the attention projections (Q and O of `hidden × hidden`, K and
//! V of `hidden × kv_heads × head_dim`), the MLP (two matrices of `hidden × ffn` with
//! GELU, three with SwiGLU), the biases the model has, and two norms (RMSNorm: a
//! weight; LayerNorm: a weight and a bias). Outside the layers: the token embedding,
//! learned position embeddings if any, the final norm, and the output head unless it
//! is tied to the embedding.

use serde::{Deserialize, Serialize};

/// The feed-forward block of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mlp {
    /// Two matrices, `hidden → ffn → hidden`, with GELU between (GPT-2, GPT-3).
    Gelu,
    /// Three matrices: gate and up `hidden → ffn`, down `ffn → hidden`, with
    /// SiLU(gate) × up between (Llama, Mistral, Qwen).
    SwiGlu,
}

impl Mlp {
    /// Both kinds, in the order the page lists them.
    pub const ALL: [Mlp; 2] = [Mlp::SwiGlu, Mlp::Gelu];

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            Mlp::Gelu => "GELU (2 matrices)",
            Mlp::SwiGlu => "SwiGLU (3 matrices)",
        }
    }

    /// Weight matrices of `hidden × ffn` in the block.
    pub const fn matrices(self) -> u64 {
        match self {
            Mlp::Gelu => 2,
            Mlp::SwiGlu => 3,
        }
    }

    /// The value in the shared link's `mlp` key.
    pub const fn key(self) -> &'static str {
        match self {
            Mlp::Gelu => "gelu",
            Mlp::SwiGlu => "swiglu",
        }
    }
}

/// Which linear layers carry a bias vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Biases {
    /// No linear layer has a bias (Llama, Mistral).
    None,
    /// Only the Q, K and V projections (Qwen2, Qwen2.5).
    Qkv,
    /// Every linear layer of the blocks: Q, K, V, O and the MLP's (GPT-2, GPT-3).
    All,
}

/// The normalisation layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Norm {
    /// RMSNorm: one weight vector of `hidden`.
    RmsNorm,
    /// LayerNorm: a weight and a bias vector of `hidden`.
    LayerNorm,
}

impl Norm {
    /// Parameters of one norm layer over `hidden` features.
    pub const fn params(self, hidden: u64) -> u64 {
        match self {
            Norm::RmsNorm => hidden,
            Norm::LayerNorm => 2 * hidden,
        }
    }
}

/// The configuration of a decoder-only transformer, as in its `config.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Architecture {
    /// Transformer layers (`num_hidden_layers`, `n_layer`).
    pub layers: u32,
    /// Model width (`hidden_size`, `n_embd`).
    pub hidden: u32,
    /// Width of the MLP (`intermediate_size`; 4 × hidden in GPT).
    pub ffn: u32,
    /// Attention heads (`num_attention_heads`).
    pub heads: u32,
    /// Key/value heads (`num_key_value_heads`): equal to `heads` without grouped-query attention.
    pub kv_heads: u32,
    /// Vocabulary size (`vocab_size`).
    pub vocab: u32,
    /// Whether the output head shares the embedding's matrix (`tie_word_embeddings`).
    pub tied_embeddings: bool,
    /// The MLP's kind.
    pub mlp: Mlp,
    /// Which linear layers have biases.
    pub biases: Biases,
    /// The norm layers' kind.
    pub norm: Norm,
    /// Learned position embeddings (`n_positions`), 0 for rotary or none.
    pub learned_positions: u32,
}

/// Parameters of one part of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ParamBreakdown {
    /// Token and position embeddings.
    pub embeddings: u64,
    /// All transformer layers together.
    pub layers: u64,
    /// The final norm.
    pub final_norm: u64,
    /// The output head, 0 when tied to the embedding.
    pub output_head: u64,
}

impl ParamBreakdown {
    /// The whole model.
    pub const fn total(&self) -> u64 {
        self.embeddings + self.layers + self.final_norm + self.output_head
    }
}

impl Architecture {
    /// Width of one attention head: `hidden / heads`.
    pub const fn head_dim(&self) -> u64 {
        if self.heads == 0 {
            0
        } else {
            self.hidden as u64 / self.heads as u64
        }
    }

    /// Width of the keys (and of the values): `kv_heads × head_dim`.
    pub const fn kv_width(&self) -> u64 {
        self.kv_heads as u64 * self.head_dim()
    }

    /// Parameters of one transformer layer.
    pub const fn params_per_layer(&self) -> u64 {
        let h = self.hidden as u64;
        let kv = self.kv_width();
        let f = self.ffn as u64;
        let attention = 2 * h * h + 2 * h * kv;
        let attention_bias = match self.biases {
            Biases::None => 0,
            Biases::Qkv => h + 2 * kv,
            Biases::All => h + 2 * kv + h,
        };
        let mlp = self.mlp.matrices() * h * f;
        let mlp_bias = match self.biases {
            Biases::All => match self.mlp {
                Mlp::Gelu => f + h,
                Mlp::SwiGlu => 2 * f + h,
            },
            _ => 0,
        };
        attention + attention_bias + mlp + mlp_bias + 2 * self.norm.params(h)
    }

    /// Parameters of each part, exactly.
    pub const fn param_breakdown(&self) -> ParamBreakdown {
        let h = self.hidden as u64;
        let token_embedding = self.vocab as u64 * h;
        ParamBreakdown {
            embeddings: token_embedding + self.learned_positions as u64 * h,
            layers: self.layers as u64 * self.params_per_layer(),
            final_norm: self.norm.params(h),
            output_head: if self.tied_embeddings {
                0
            } else {
                token_embedding
            },
        }
    }

    /// The exact number of parameters.
    pub const fn param_count(&self) -> u64 {
        self.param_breakdown().total()
    }

    /// Parameters of the largest single layer (a weight matrix or the embedding),
    /// the unit that ZeRO-3 gathers at once: usually the embedding.
    pub fn largest_layer_params(&self) -> u64 {
        let h = self.hidden as u64;
        let embedding = self.vocab as u64 * h;
        let projection = h * h;
        let mlp_matrix = h * self.ffn as u64;
        embedding.max(projection).max(mlp_matrix)
    }
}

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
}

const fn llama(
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    kv_heads: u32,
    vocab: u32,
) -> Architecture {
    Architecture {
        layers,
        hidden,
        ffn,
        heads,
        kv_heads,
        vocab,
        tied_embeddings: false,
        mlp: Mlp::SwiGlu,
        biases: Biases::None,
        norm: Norm::RmsNorm,
        learned_positions: 0,
    }
}

const fn qwen2(layers: u32, hidden: u32, ffn: u32, heads: u32, kv_heads: u32) -> Architecture {
    Architecture {
        biases: Biases::Qkv,
        ..llama(layers, hidden, ffn, heads, kv_heads, 152_064)
    }
}

/// The presets, in the order the page lists them.
pub const MODEL_PRESETS: &[ModelPreset] = &[
    ModelPreset {
        id: "llama2-7b",
        name: "Llama 2 7B",
        architecture: llama(32, 4096, 11008, 32, 32, 32000),
    },
    ModelPreset {
        id: "llama2-13b",
        name: "Llama 2 13B",
        architecture: llama(40, 5120, 13824, 40, 40, 32000),
    },
    ModelPreset {
        id: "llama1-33b",
        name: "LLaMA 33B",
        architecture: llama(60, 6656, 17920, 52, 52, 32000),
    },
    ModelPreset {
        id: "llama1-65b",
        name: "LLaMA 65B",
        architecture: llama(80, 8192, 22016, 64, 64, 32000),
    },
    ModelPreset {
        id: "llama2-70b",
        name: "Llama 2 70B",
        architecture: llama(80, 8192, 28672, 64, 8, 32000),
    },
    ModelPreset {
        id: "llama3-8b",
        name: "Llama 3 8B",
        architecture: llama(32, 4096, 14336, 32, 8, 128_256),
    },
    ModelPreset {
        id: "llama3-70b",
        name: "Llama 3 70B",
        architecture: llama(80, 8192, 28672, 64, 8, 128_256),
    },
    ModelPreset {
        id: "mistral-7b",
        name: "Mistral 7B v0.1",
        architecture: llama(32, 4096, 14336, 32, 8, 32000),
    },
    ModelPreset {
        id: "qwen2.5-7b",
        name: "Qwen2.5 7B",
        architecture: qwen2(28, 3584, 18944, 28, 4),
    },
    ModelPreset {
        id: "qwen2.5-14b",
        name: "Qwen2.5 14B",
        architecture: qwen2(48, 5120, 13824, 40, 8),
    },
    ModelPreset {
        id: "qwen2.5-32b",
        name: "Qwen2.5 32B",
        architecture: qwen2(64, 5120, 27648, 40, 8),
    },
    ModelPreset {
        id: "qwen2.5-72b",
        name: "Qwen2.5 72B",
        architecture: qwen2(80, 8192, 29568, 64, 8),
    },
    ModelPreset {
        id: "gpt3-175b",
        name: "GPT-3 175B",
        architecture: Architecture {
            layers: 96,
            hidden: 12288,
            ffn: 4 * 12288,
            heads: 96,
            kv_heads: 96,
            vocab: 50257,
            tied_embeddings: true,
            mlp: Mlp::Gelu,
            biases: Biases::All,
            norm: Norm::LayerNorm,
            learned_positions: 2048,
        },
    },
];

/// The preset whose id is `id`.
pub fn model_preset(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS.iter().find(|preset| preset.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    fn count(id: &str) -> u64 {
        model_preset(id)
            .expect("a preset")
            .architecture
            .param_count()
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn published_counts_to_the_parameter() {
        assert_eq!(count("llama2-7b"), 6_738_415_616);
        assert_eq!(count("llama3-8b"), 8_030_261_248);
        assert_eq!(count("mistral-7b"), 7_241_732_096);
        assert_eq!(count("llama2-13b"), 13_015_864_320);
        assert_eq!(count("llama2-70b"), 68_976_648_192);
        assert_eq!(count("llama3-70b"), 70_553_706_496);
        assert_eq!(count("llama1-33b"), 32_528_943_616);
        assert_eq!(count("llama1-65b"), 65_285_660_672);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn every_preset_is_consistent() {
        for preset in MODEL_PRESETS {
            let a = preset.architecture;
            assert_eq!(a.hidden % a.heads, 0, "{}: heads divide hidden", preset.id);
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
