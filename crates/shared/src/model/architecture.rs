//! Transformer architectures: the shape of a decoder-only model as its
//! configuration gives it. Its exact parameter count is in [`super::count`], the
//! presets of well-known models in [`super::presets`].
//!
//! Counted, per layer, as the Hugging Face modeling code creates the tensors:
//! the attention projections (Q `hidden → heads × head_dim`, K and V `hidden →
//! kv_heads × head_dim`, O back; Qwen3's RMSNorms of `head_dim` on q and k; or
//! DeepSeek's multi-head latent attention, [`Mla`]), the MLP (two matrices of
//! `hidden × ffn` with GELU, three with SwiGLU; or a mixture of experts, [`Moe`]:
//! a router, the routed experts, the shared ones), the biases the model has, and
//! two norms (RMSNorm: a weight; LayerNorm: a weight and a bias). Outside the
//! layers: the token embedding, learned position embeddings if any, the final
//! norm, and the output head unless it is tied to the embedding. DeepSeek-V3's
//! multi-token-prediction layer is not counted: transformers' model code does
//! not build it (671 B; the Hub's checkpoint with it holds 685 B).

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
    /// The attention's four projections, Q, K, V and O, and no MLP's (a
    /// Qwen3-MoE with `attention_bias`).
    Attention,
}

impl Biases {
    /// Every kind, in the order the page lists them.
    pub const ALL: [Biases; 4] = [Biases::None, Biases::Qkv, Biases::All, Biases::Attention];

    /// The value in the shared link's `biases` key.
    pub const fn key(self) -> &'static str {
        match self {
            Biases::None => "none",
            Biases::Qkv => "qkv",
            Biases::All => "all",
            Biases::Attention => "attn",
        }
    }
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
    /// Both kinds, in the order the page lists them.
    pub const ALL: [Norm; 2] = [Norm::RmsNorm, Norm::LayerNorm];

    /// The value in the shared link's `norm` key.
    pub const fn key(self) -> &'static str {
        match self {
            Norm::RmsNorm => "rmsnorm",
            Norm::LayerNorm => "layernorm",
        }
    }

    /// Parameters of one norm layer over `hidden` features.
    pub const fn params(self, hidden: u64) -> u64 {
        match self {
            Norm::RmsNorm => hidden,
            Norm::LayerNorm => 2 * hidden,
        }
    }
}

/// Norms on the queries and keys after their projections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum QkNorm {
    /// None (Llama).
    #[default]
    None,
    /// An RMSNorm of one head's width each, shared by the heads (Qwen3's
    /// `q_norm` and `k_norm`): `2 · head_dim` parameters.
    PerHead,
    /// An RMSNorm over all the queries and one over all the keys (OLMo 2's
    /// `q_norm` of `heads · head_dim` and `k_norm` of `kv_heads · head_dim`).
    Full,
}

impl QkNorm {
    /// Every kind, in the order the page lists them.
    pub const ALL: [QkNorm; 3] = [QkNorm::None, QkNorm::PerHead, QkNorm::Full];

    /// The value in the shared link's `qk_norm` key (`0` and `1` as when it
    /// was a switch).
    pub const fn key(self) -> &'static str {
        match self {
            QkNorm::None => "0",
            QkNorm::PerHead => "1",
            QkNorm::Full => "full",
        }
    }

    /// The name people write.
    pub const fn label(self) -> &'static str {
        match self {
            QkNorm::None => "none",
            QkNorm::PerHead => "per head (Qwen3)",
            QkNorm::Full => "full width (OLMo 2)",
        }
    }

    /// Whether there are any.
    pub const fn is_some(self) -> bool {
        !matches!(self, QkNorm::None)
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
    /// Width of one attention head (`head_dim`); 0 for `hidden / heads`.
    pub head_dim: u32,
    /// The norms on q and k ([`QkNorm`]).
    pub qk_norm: QkNorm,
    /// Four norms a layer, before and after the attention and the MLP
    /// (Gemma 2 and 3's `pre_`/`post_feedforward_layernorm` beside Llama's
    /// two), instead of two.
    #[serde(default)]
    pub sandwich_norms: bool,
    /// Attention sinks: one learned logit a head and layer that the softmax
    /// sees beside the keys' (gpt-oss's `sinks`).
    #[serde(default)]
    pub attention_sinks: bool,
    /// The output logits soft-capped, `cap·tanh(logits / cap)` (Gemma 2's
    /// `final_logit_softcapping`): their tanh keeps one more copy for backward.
    #[serde(default)]
    pub logit_softcap: bool,
    /// The attention and the MLP side by side on one norm's output, summed
    /// into the residual (Cohere's parallel block): one norm a layer.
    #[serde(default)]
    pub parallel_block: bool,
    /// The attention's output gated per query value: the query projection
    /// twice as wide, its second half a sigmoid gate on the attention's
    /// output (Qwen3-Next's `q_proj` of `2 × heads × head_dim`).
    #[serde(default)]
    pub gated_attention: bool,
    /// The mixture of experts; [`Moe::DENSE`] for a dense model.
    pub moe: Moe,
    /// Multi-head latent attention; [`Mla::NONE`] for the usual projections.
    pub mla: Mla,
    /// Linear attention in all but every `full_every`-th layer;
    /// [`LinearAttention::NONE`] for attention in every layer.
    #[serde(default)]
    pub linear: LinearAttention,
    /// Local attention (a sliding window or chunks) in all but every
    /// `global_every`-th layer; [`LocalAttention::NONE`] for global attention
    /// in every layer.
    #[serde(default)]
    pub local: LocalAttention,
    /// Multi-token-prediction layers trained beside the model (Megatron-LM's
    /// `--mtp-num-layers`, `megatron/core/transformer/multi_token_prediction.py`;
    /// DeepSeek-V3 trained one): each a decoder layer like the last with full
    /// attention, the norms of its two inputs (`enorm`, `hnorm`), a 2h → h
    /// projection of them (`eh_proj`) and a final norm, sharing the
    /// embedding and the output head, on the last pipeline stage; 0 for the
    /// model as transformers runs it (which builds no MTP layer).
    #[serde(default)]
    pub mtp_layers: u32,
}

/// Local attention: a layer's queries see only the `window` keys before
/// them (Mistral 7B v0.1, Gemma 2 and 3, gpt-oss, Cohere2: transformers'
/// `sliding_window`), or only the keys of their own chunk of `window`
/// tokens (`chunked`: Llama 4's `attention_chunk_size`). Layer i keeps
/// global attention when `(i + 1)` is a multiple of `global_every` (Gemma
/// 2 and gpt-oss 2, Llama 4 4, Gemma 3 6, as their `layer_types`,
/// `sliding_window_pattern` and `no_rope_layers` say); 0: no layer global.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct LocalAttention {
    /// Tokens a local layer's query sees (or a chunk's length); 0: none.
    pub window: u32,
    /// Every `global_every`-th layer is global; 0: none is.
    pub global_every: u32,
    /// Chunks instead of a sliding window.
    pub chunked: bool,
}

impl LocalAttention {
    /// Global attention in every layer.
    pub const NONE: LocalAttention = LocalAttention {
        window: 0,
        global_every: 0,
        chunked: false,
    };

    /// A sliding window of `window` tokens, every `global_every`-th layer global.
    pub const fn sliding(window: u32, global_every: u32) -> LocalAttention {
        LocalAttention {
            window,
            global_every,
            chunked: false,
        }
    }

    /// Whether some layers attend locally.
    pub const fn is_some(&self) -> bool {
        self.window > 0 && self.global_every != 1
    }

    /// Whether layer `index` (from 0) attends locally.
    pub const fn is_local_layer(&self, index: u32) -> bool {
        self.is_some() && (self.global_every == 0 || (index + 1) % self.global_every != 0)
    }

    /// Query–key pairs one sequence of `seq` tokens computes in a causal
    /// layer: all of them, s(s + 1)/2, in a global one; in a sliding window
    /// of w, w(w + 1)/2 + (s − w)·w once s passes w; in chunks of w, each
    /// chunk's own w(w + 1)/2.
    pub fn causal_pairs(&self, seq: u32, local: bool) -> f64 {
        let s = f64::from(seq);
        let w = f64::from(self.window);
        if !local || w <= 0.0 || s <= w {
            return s * (s + 1.0) / 2.0;
        }
        match self.chunked {
            false => w * (w + 1.0) / 2.0 + (s - w) * w,
            true => {
                let whole = (s / w).floor();
                let rest = s - whole * w;
                whole * w * (w + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0
            }
        }
    }
}

/// Gated DeltaNet linear attention (Yang et al. 2024, "Gated Delta Networks"),
/// as transformers' `Qwen3NextGatedDeltaNet` builds it: `in_proj_qkvz`
/// (`hidden → 2·k + 2·v`, k = key heads × key head size, v = value heads ×
/// value head size), `in_proj_ba` (`hidden → 2 × value heads`), a depthwise
/// causal `conv1d` over q, k and v (`(2·k + v) × kernel`, no bias), `dt_bias`
/// and `A_log` (one a value head), a gated RMSNorm of one value head's width
/// and `out_proj` (`v → hidden`). Layer i keeps full attention when `(i + 1)`
/// is a multiple of `full_every` (`full_attention_interval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct LinearAttention {
    /// Every `full_every`-th layer has full attention; 0 (or 1): every layer.
    pub full_every: u32,
    /// `linear_num_key_heads`.
    pub k_heads: u32,
    /// `linear_num_value_heads`.
    pub v_heads: u32,
    /// `linear_key_head_dim`.
    pub k_dim: u32,
    /// `linear_value_head_dim`.
    pub v_dim: u32,
    /// `linear_conv_kernel_dim`.
    pub conv_kernel: u32,
}

impl LinearAttention {
    /// Full attention in every layer.
    pub const NONE: LinearAttention = LinearAttention {
        full_every: 0,
        k_heads: 0,
        v_heads: 0,
        k_dim: 0,
        v_dim: 0,
        conv_kernel: 0,
    };

    /// Whether some layers have linear attention.
    pub const fn is_some(&self) -> bool {
        self.full_every > 1
    }

    /// Width of the keys (and of the queries): key heads × their size.
    pub const fn key_width(&self) -> u64 {
        self.k_heads as u64 * self.k_dim as u64
    }

    /// Width of the values (and of the output gate `z`).
    pub const fn value_width(&self) -> u64 {
        self.v_heads as u64 * self.v_dim as u64
    }

    /// Parameters of one layer's Gated DeltaNet over `hidden` features.
    pub const fn params(&self, hidden: u64) -> u64 {
        let (k, v, heads) = (self.key_width(), self.value_width(), self.v_heads as u64);
        let conv = (2 * k + v) * self.conv_kernel as u64;
        let projections = hidden * (2 * k + 2 * v) + hidden * 2 * heads + v * hidden;
        conv + projections + 2 * heads + self.v_dim as u64
    }
}

/// A mixture-of-experts MLP (Mixtral, Qwen3-MoE, DeepSeek-V3), as the Hub's
/// `config.json` describes it. Zero routed experts is a dense model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Moe {
    /// Routed experts per MoE layer (`num_local_experts`, `num_experts`, `n_routed_experts`).
    pub experts: u32,
    /// Routed experts each token goes to (`num_experts_per_tok`).
    pub top_k: u32,
    /// Width of a routed expert's MLP (`moe_intermediate_size`; Mixtral's `intermediate_size`).
    pub expert_ffn: u32,
    /// Shared experts every token goes through (`n_shared_experts`; 1 for Qwen2-MoE's).
    pub shared_experts: u32,
    /// Width of each shared expert's MLP (`moe_intermediate_size` in DeepSeek,
    /// `shared_expert_intermediate_size` in Qwen2-MoE).
    pub shared_ffn: u32,
    /// Qwen2-MoE's `shared_expert_gate`, a `hidden → 1` projection.
    pub shared_gate: bool,
    /// Leading dense layers with the dense `ffn` (`first_k_dense_replace`).
    pub dense_layers: u32,
    /// The router and every routed expert carry biases (gpt-oss: the router's
    /// `bias`, each expert's `gate_up_proj_bias` and `down_proj_bias`).
    #[serde(default)]
    pub biased: bool,
}

impl Moe {
    /// No experts: every layer's MLP is dense.
    pub const DENSE: Moe = Moe {
        experts: 0,
        top_k: 0,
        expert_ffn: 0,
        shared_experts: 0,
        shared_ffn: 0,
        shared_gate: false,
        dense_layers: 0,
        biased: false,
    };

    /// Whether the MLP is a mixture of experts.
    pub const fn is_moe(&self) -> bool {
        self.experts > 0
    }
}

/// DeepSeek's multi-head latent attention (`DeepseekV3Attention`): queries
/// through an optional low-rank `q_lora_rank`, keys and values through a
/// shared latent of `kv_lora_rank` plus a rotary part of `qk_rope_head_dim`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Mla {
    /// `q_lora_rank`; 0 projects the queries directly.
    pub q_rank: u32,
    /// `kv_lora_rank`; 0 is no latent attention.
    pub kv_rank: u32,
    /// `qk_rope_head_dim`: the rotary part of each query and key head.
    pub rope_dim: u32,
    /// `qk_nope_head_dim`: the part without position.
    pub nope_dim: u32,
    /// `v_head_dim`.
    pub v_dim: u32,
}

impl Mla {
    /// The usual attention projections.
    pub const NONE: Mla = Mla {
        q_rank: 0,
        kv_rank: 0,
        rope_dim: 0,
        nope_dim: 0,
        v_dim: 0,
    };

    /// Whether the attention is latent.
    pub const fn is_latent(&self) -> bool {
        self.kv_rank > 0
    }
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
    /// The multi-token-prediction layers trained beside the model (0 without).
    pub mtp: u64,
}

impl ParamBreakdown {
    /// The whole model.
    pub const fn total(&self) -> u64 {
        self.embeddings
            .saturating_add(self.layers)
            .saturating_add(self.final_norm)
            .saturating_add(self.output_head)
            .saturating_add(self.mtp)
    }
}
