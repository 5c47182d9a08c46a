//! Transformer architectures: the exact parameter count of a decoder-only model
//! from its configuration, and the presets of well-known models.
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
}

impl ParamBreakdown {
    /// The whole model.
    pub const fn total(&self) -> u64 {
        self.embeddings
            .saturating_add(self.layers)
            .saturating_add(self.final_norm)
            .saturating_add(self.output_head)
    }
}

impl Architecture {
    /// Width of one attention head: `head_dim`, or `hidden / heads` without it
    /// (under latent attention, a query's and a key's: nope + rope).
    pub const fn head_dim(&self) -> u64 {
        if self.mla.is_latent() {
            (self.mla.nope_dim + self.mla.rope_dim) as u64
        } else if self.head_dim > 0 {
            self.head_dim as u64
        } else if self.heads == 0 {
            0
        } else {
            self.hidden as u64 / self.heads as u64
        }
    }

    /// Width of the queries (and of the attention's output): `heads × head_dim`,
    /// `hidden` unless the head size is set apart (Qwen3) or latent.
    pub const fn q_width(&self) -> u64 {
        self.heads as u64 * self.head_dim()
    }

    /// Width of the keys: `kv_heads × head_dim` (latent: every head's key).
    pub const fn kv_width(&self) -> u64 {
        if self.mla.is_latent() {
            self.heads as u64 * self.head_dim()
        } else {
            self.kv_heads as u64 * self.head_dim()
        }
    }

    /// Width of the values and of the output projection's input.
    pub const fn v_width(&self) -> u64 {
        if self.mla.is_latent() {
            self.heads as u64 * self.mla.v_dim as u64
        } else {
            self.q_width()
        }
    }

    /// Parameters of one layer's attention: projections, their biases, the
    /// q/k norms or the latent attention's norms.
    pub const fn attention_params(&self) -> u64 {
        let h = self.hidden as u64;
        let heads = self.heads as u64;
        if self.mla.is_latent() {
            let m = self.mla;
            let qk = self.head_dim();
            let q = if m.q_rank > 0 {
                h * m.q_rank as u64 + m.q_rank as u64 + m.q_rank as u64 * heads * qk
            } else {
                h * heads * qk
            };
            let kv_rank = m.kv_rank as u64;
            let kv = h * (kv_rank + m.rope_dim as u64)
                + kv_rank
                + kv_rank * heads * (m.nope_dim as u64 + m.v_dim as u64);
            return q + kv + self.v_width() * h;
        }
        let q = self.q_width();
        let kv = self.kv_width();
        // The gated attention's query projection carries the gate too.
        let q_out = if self.gated_attention { 2 * q } else { q };
        let biases = match self.biases {
            Biases::None => 0,
            Biases::Qkv => q_out + 2 * kv,
            Biases::All | Biases::Attention => q_out + 2 * kv + h,
        };
        let sinks = if self.attention_sinks { heads } else { 0 };
        h * q_out + h * q + 2 * h * kv + biases + self.qk_norm_params() + sinks
    }

    /// Layers with linear attention ([`LinearAttention`]): all but every
    /// `full_every`-th.
    pub const fn linear_layer_count(&self) -> u32 {
        if self.linear.is_some() {
            self.layers - self.layers / self.linear.full_every
        } else {
            0
        }
    }

    /// Whether layer `index` (from 0) has linear attention.
    pub const fn is_linear_layer(&self, index: u32) -> bool {
        self.linear.is_some() && (index + 1) % self.linear.full_every != 0
    }

    /// Parameters of one layer's token mixer: the attention, or in a linear
    /// layer the Gated DeltaNet.
    pub const fn mixer_params(&self, linear: bool) -> u64 {
        if linear {
            self.linear.params(self.hidden as u64)
        } else {
            self.attention_params()
        }
    }

    /// The norms around one layer's attention and MLP: two, four with
    /// [`Self::sandwich_norms`], one with [`Self::parallel_block`].
    pub const fn layer_norm_params(&self) -> u64 {
        let norms = if self.parallel_block {
            1
        } else if self.sandwich_norms {
            4
        } else {
            2
        };
        norms * self.norm.params(self.hidden as u64)
    }

    /// The q/k norms' parameters of one layer ([`QkNorm`]).
    pub const fn qk_norm_params(&self) -> u64 {
        match self.qk_norm {
            QkNorm::None => 0,
            QkNorm::PerHead => 2 * self.head_dim(),
            QkNorm::Full => self.q_width() + self.kv_width(),
        }
    }

    /// Parameters of a dense MLP of width `ffn`, with its biases.
    pub const fn dense_mlp_params(&self) -> u64 {
        let h = self.hidden as u64;
        let f = self.ffn as u64;
        let biases = match self.biases {
            Biases::All => match self.mlp {
                Mlp::Gelu => f + h,
                Mlp::SwiGlu => 2 * f + h,
            },
            _ => 0,
        };
        self.mlp.matrices() * h * f + biases
    }

    /// Parameters of a mixture-of-experts MLP with `routed` of its routed
    /// experts: the router, those experts, the shared experts and their gate.
    const fn moe_mlp_params(&self, routed: u64) -> u64 {
        let h = self.hidden as u64;
        let m = self.moe;
        let matrices = self.mlp.matrices();
        let gate = if m.shared_gate { h } else { 0 };
        m.experts as u64 * h
            + routed * matrices * h * m.expert_ffn as u64
            + m.shared_experts as u64 * matrices * h * m.shared_ffn as u64
            + gate
            + self.moe_biases(routed)
    }

    /// The router's and `routed` experts' biases of a biased mixture
    /// ([`Moe::biased`]): the router's one a expert, each expert's on its
    /// first matrices' outputs (2 × its width for SwiGLU) and on its output.
    pub const fn moe_biases(&self, routed: u64) -> u64 {
        if !self.moe.biased {
            return 0;
        }
        let first = (self.mlp.matrices() - 1) * self.moe.expert_ffn as u64;
        self.moe.experts as u64 + routed * (first + self.hidden as u64)
    }

    /// Layers whose MLP is dense: all of a dense model's, the leading ones of
    /// a mixture of experts.
    pub const fn dense_layer_count(&self) -> u32 {
        if !self.moe.is_moe() {
            self.layers
        } else if self.moe.dense_layers < self.layers {
            self.moe.dense_layers
        } else {
            self.layers
        }
    }

    /// Parameters of one dense layer (every layer of a dense model).
    pub const fn params_per_layer(&self) -> u64 {
        self.attention_params() + self.dense_mlp_params() + self.layer_norm_params()
    }

    /// Parameters of one mixture-of-experts layer, all its experts counted.
    pub const fn params_per_moe_layer(&self) -> u64 {
        self.attention_params()
            + self.moe_mlp_params(self.moe.experts as u64)
            + self.layer_norm_params()
    }

    /// Parameters of each part, exactly.
    pub const fn param_breakdown(&self) -> ParamBreakdown {
        self.breakdown(self.moe.experts as u64)
    }

    /// The parts with `routed` routed experts per MoE layer.
    const fn breakdown(&self, routed: u64) -> ParamBreakdown {
        let h = self.hidden as u64;
        let token_embedding = self.vocab as u64 * h;
        let layers = self.layers as u64;
        let dense = self.dense_layer_count() as u64;
        let sparse = layers - dense;
        let linear = self.linear_layer_count() as u64;
        // One layer's parts fit in a u64 within the link's limits; all layers'
        // may not (65,536 experts of 2^24 features on 10,000 layers): the sums
        // saturate, and a model that large is refused by its size's limit
        // instead of counted wrong.
        let mixers = (layers - linear)
            .saturating_mul(self.attention_params())
            .saturating_add(linear.saturating_mul(self.mixer_params(true)));
        let mlps = dense
            .saturating_mul(self.dense_mlp_params())
            .saturating_add(sparse.saturating_mul(self.moe_mlp_params(routed)));
        ParamBreakdown {
            embeddings: token_embedding + self.learned_positions as u64 * h,
            layers: mixers
                .saturating_add(mlps)
                .saturating_add(layers.saturating_mul(self.layer_norm_params())),
            final_norm: self.norm.params(h),
            output_head: if self.tied_embeddings {
                0
            } else {
                token_embedding
            },
        }
    }

    /// The transformer layers' share of the parameters (their linears and
    /// small norms; not the embeddings, final norm and output head).
    pub fn layers_share(&self) -> f64 {
        let parts = self.param_breakdown();
        parts.layers as f64 / parts.total().max(1) as f64
    }

    /// The exact number of parameters.
    pub const fn param_count(&self) -> u64 {
        self.param_breakdown().total()
    }

    /// The parameters a token goes through: every dense part and, in each MoE
    /// layer, the router, its `top_k` routed experts and the shared ones (the
    /// embedding and the output head included). A dense model's are all.
    pub const fn active_param_count(&self) -> u64 {
        let routed = if self.moe.top_k < self.moe.experts {
            self.moe.top_k
        } else {
            self.moe.experts
        };
        self.breakdown(routed as u64).total()
    }

    /// Parameters of one multi-token-prediction layer as DeepSeek-V3's
    /// checkpoint stores it (`model.layers.61.*`, which transformers does not
    /// build): a decoder layer like the last (`self_attn`, `mlp`, two norms),
    /// `enorm` and `hnorm`, `eh_proj` (2·hidden → hidden), its own
    /// `embed_tokens` and `shared_head` (a norm and the output head). Counted
    /// apart from [`param_count`](Self::param_count).
    pub const fn mtp_layer_params(&self) -> u64 {
        let h = self.hidden as u64;
        let block = if self.moe.is_moe() && self.moe.dense_layers < self.layers {
            self.params_per_moe_layer()
        } else {
            self.params_per_layer()
        };
        block + 2 * h + 2 * h * h + h + 2 * self.vocab as u64 * h
    }

    /// The routed experts' parameters, all layers: what expert parallelism divides.
    pub const fn routed_expert_params(&self) -> u64 {
        let sparse = (self.layers - self.dense_layer_count()) as u64;
        let experts = self.moe.experts as u64;
        // A biased mixture's experts' biases (the router's stays with the router).
        let biases = match self.moe.biased {
            true => self.moe_biases(experts) - experts,
            false => 0,
        };
        sparse.saturating_mul(
            experts * self.mlp.matrices() * self.hidden as u64 * self.moe.expert_ffn as u64
                + biases,
        )
    }

    /// Parameters of FSDP2's largest unit as torchtitan wraps a model
    /// (`apply_fsdp` in `torchtitan/models/llama3/infra/parallelize.py`): the
    /// token embedding (with learned positions), one transformer layer (a
    /// mixture of experts' layer with its routed experts ÷ `ep`), or the
    /// final norm with the output head.
    pub fn fsdp2_unit_params(&self, ep: u32) -> u64 {
        let parts = self.param_breakdown();
        // The larger token mixer where both kinds are present.
        let mixer = match self.linear_layer_count() {
            0 => self.attention_params(),
            n if n == self.layers => self.mixer_params(true),
            _ => self.attention_params().max(self.mixer_params(true)),
        };
        let dense = if self.dense_layer_count() > 0 {
            mixer + self.dense_mlp_params() + self.layer_norm_params()
        } else {
            0
        };
        let moe = if self.moe.is_moe() && self.dense_layer_count() < self.layers {
            let routed = (self.moe.experts as u64).div_ceil(u64::from(ep.max(1)));
            mixer + self.moe_mlp_params(routed) + self.layer_norm_params()
        } else {
            0
        };
        parts
            .embeddings
            .max(dense)
            .max(moe)
            .max(parts.final_norm + parts.output_head)
    }

    /// Parameters of the largest single tensor (a weight matrix, the embedding,
    /// or the routed experts' fused weights as transformers stores them), the
    /// unit that ZeRO-3 gathers at once: usually the embedding.
    pub fn largest_layer_params(&self) -> u64 {
        let h = self.hidden as u64;
        let embedding = self.vocab as u64 * h;
        let q_out = if self.gated_attention { 2 } else { 1 } * self.q_width();
        let projection = h * q_out.max(self.v_width());
        // Gated DeltaNet's `in_proj_qkvz`.
        let linear = match self.linear.is_some() {
            true => h * (2 * self.linear.key_width() + 2 * self.linear.value_width()),
            false => 0,
        };
        let mlp_matrix = h * self.ffn as u64;
        // gate and up of every expert in one tensor (`experts.gate_up_proj`).
        let experts = if self.moe.is_moe() {
            (self.mlp.matrices() - 1) * self.moe.experts as u64 * h * self.moe.expert_ffn as u64
        } else {
            0
        };
        embedding
            .max(projection)
            .max(linear)
            .max(mlp_matrix)
            .max(experts)
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
    }
}

const fn qwen2(layers: u32, hidden: u32, ffn: u32, heads: u32, kv_heads: u32) -> Architecture {
    Architecture {
        biases: Biases::Qkv,
        ..llama(layers, hidden, ffn, heads, kv_heads, 152_064)
    }
}

const fn qwen3(
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    kv_heads: u32,
    tied_embeddings: bool,
) -> Architecture {
    Architecture {
        head_dim: 128,
        qk_norm: QkNorm::PerHead,
        tied_embeddings,
        ..llama(layers, hidden, ffn, heads, kv_heads, 151_936)
    }
}

/// OLMo 2: Llama's layers with q and k normed over their full width, a
/// 100,352-token vocabulary, untied.
const fn olmo2(layers: u32, hidden: u32, ffn: u32, heads: u32) -> Architecture {
    Architecture {
        qk_norm: QkNorm::Full,
        ..llama(layers, hidden, ffn, heads, heads, 100_352)
    }
}

/// Gemma 2: four norms a layer, heads of `head_dim`, a 256,000-token
/// vocabulary, tied; its gated GELU has SwiGLU's three matrices.
const fn gemma2(
    layers: u32,
    hidden: u32,
    ffn: u32,
    heads: u32,
    kv_heads: u32,
    head_dim: u32,
) -> Architecture {
    Architecture {
        head_dim,
        sandwich_norms: true,
        attention_sinks: false,
        logit_softcap: true,
        parallel_block: false,
        tied_embeddings: true,
        ..llama(layers, hidden, ffn, heads, kv_heads, 256_000)
    }
}

/// Routed experts only, no shared ones, every layer sparse (Mixtral, Qwen3-MoE).
/// gpt-oss: width 2,880, 64 heads of 64 with 8 KV heads, q/k/v/o biases and
/// attention sinks; every layer a mixture of `experts` biased experts, 4 a token.
const fn gpt_oss(layers: u32, experts: u32) -> Architecture {
    Architecture {
        biases: Biases::Attention,
        head_dim: 64,
        attention_sinks: true,
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
        id: "llama3.1-8b",
        name: "Llama 3.1 8B",
        architecture: llama(32, 4096, 14336, 32, 8, 128_256),
    },
    ModelPreset {
        id: "llama3.1-70b",
        name: "Llama 3.1 70B",
        architecture: llama(80, 8192, 28672, 64, 8, 128_256),
    },
    ModelPreset {
        id: "llama3.1-405b",
        name: "Llama 3.1 405B",
        architecture: llama(126, 16384, 53248, 128, 8, 128_256),
    },
    ModelPreset {
        id: "mistral-7b",
        name: "Mistral 7B v0.1",
        architecture: llama(32, 4096, 14336, 32, 8, 32000),
    },
    ModelPreset {
        id: "phi-4",
        name: "Phi-4 (14B)",
        architecture: llama(40, 5120, 17920, 40, 10, 100352),
    },
    ModelPreset {
        id: "olmo2-7b",
        name: "OLMo 2 7B",
        architecture: olmo2(32, 4096, 11008, 32),
    },
    ModelPreset {
        id: "olmo2-13b",
        name: "OLMo 2 13B",
        architecture: olmo2(40, 5120, 13824, 40),
    },
    ModelPreset {
        id: "gemma2-9b",
        name: "Gemma 2 9B",
        architecture: gemma2(42, 3584, 14336, 16, 8, 256),
    },
    ModelPreset {
        id: "gemma2-27b",
        name: "Gemma 2 27B",
        architecture: gemma2(46, 4608, 36864, 32, 16, 128),
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
        id: "qwen3-0.6b",
        name: "Qwen3 0.6B",
        architecture: qwen3(28, 1024, 3072, 16, 8, true),
    },
    ModelPreset {
        id: "qwen3-8b",
        name: "Qwen3 8B",
        architecture: qwen3(36, 4096, 12288, 32, 8, false),
    },
    ModelPreset {
        id: "qwen3-32b",
        name: "Qwen3 32B",
        architecture: qwen3(64, 5120, 25600, 64, 8, false),
    },
    ModelPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        architecture: Architecture {
            moe: routed(8, 2, 14336),
            ..llama(32, 4096, 14336, 32, 8, 32000)
        },
    },
    ModelPreset {
        id: "mixtral-8x22b",
        name: "Mixtral 8x22B",
        architecture: Architecture {
            moe: routed(8, 2, 16384),
            ..llama(56, 6144, 16384, 48, 8, 32768)
        },
    },
    ModelPreset {
        id: "qwen3-30b-a3b",
        name: "Qwen3-30B-A3B",
        architecture: Architecture {
            moe: routed(128, 8, 768),
            ..qwen3(48, 2048, 6144, 32, 4, false)
        },
    },
    ModelPreset {
        id: "qwen3-235b-a22b",
        name: "Qwen3-235B-A22B",
        architecture: Architecture {
            moe: routed(128, 8, 1536),
            ..qwen3(94, 4096, 12288, 64, 4, false)
        },
    },
    ModelPreset {
        id: "qwen3-next-80b-a3b",
        name: "Qwen3-Next-80B-A3B",
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
            ..qwen3(48, 2048, 5120, 16, 2, false)
        },
    },
    ModelPreset {
        id: "glm-4.5-air",
        name: "GLM-4.5-Air",
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
        architecture: Architecture {
            head_dim: 256,
            qk_norm: QkNorm::PerHead,
            sandwich_norms: true,
            tied_embeddings: true,
            ..llama(48, 3840, 15360, 16, 8, 262_208)
        },
    },
    ModelPreset {
        id: "gemma-3-27b",
        name: "Gemma 3 27B (text)",
        architecture: Architecture {
            head_dim: 128,
            qk_norm: QkNorm::PerHead,
            sandwich_norms: true,
            tied_embeddings: true,
            ..llama(62, 5376, 21504, 32, 16, 262_208)
        },
    },
    ModelPreset {
        id: "llama4-scout",
        name: "Llama 4 Scout (text)",
        architecture: Architecture {
            head_dim: 128,
            moe: Moe {
                shared_experts: 1,
                shared_ffn: 8192,
                ..routed(16, 1, 8192)
            },
            ..llama(48, 5120, 16384, 40, 8, 202_048)
        },
    },
    ModelPreset {
        id: "gpt-oss-20b",
        name: "gpt-oss-20b",
        architecture: gpt_oss(24, 32),
    },
    ModelPreset {
        id: "gpt-oss-120b",
        name: "gpt-oss-120b",
        architecture: gpt_oss(36, 128),
    },
    ModelPreset {
        id: "deepseek-v2-lite",
        name: "DeepSeek-V2-Lite",
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
        },
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
        assert_eq!(count("llama2-7b"), 6_738_415_616);
        assert_eq!(count("llama3-8b"), 8_030_261_248);
        assert_eq!(count("mistral-7b"), 7_241_732_096);
        // transformers 5.24 (scripts/measure-counts, tests/configs/phi-4.json).
        assert_eq!(count("phi-4"), 14_659_507_200);
        // OLMo 2's full-width q/k norms (tests/configs/olmo2-*.json).
        assert_eq!(count("olmo2-7b"), 7_298_617_344);
        assert_eq!(count("olmo2-13b"), 13_716_198_400);
        // Gemma 2's four norms a layer (tests/configs/gemma2-*.json).
        assert_eq!(count("gemma2-9b"), 9_241_705_984);
        assert_eq!(count("gemma2-27b"), 27_227_128_320);
        assert_eq!(count("llama2-13b"), 13_015_864_320);
        assert_eq!(count("llama2-70b"), 68_976_648_192);
        assert_eq!(count("llama3-70b"), 70_553_706_496);
        assert_eq!(count("llama1-33b"), 32_528_943_616);
        assert_eq!(count("llama1-65b"), 65_285_660_672);
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
