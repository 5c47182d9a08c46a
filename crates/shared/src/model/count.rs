//! The exact parameter count of an [`Architecture`], part by part, as the
//! Hugging Face modeling code creates the tensors (the rules are listed in
//! [`super::architecture`]).

use crate::model::architecture::{Architecture, Biases, Mlp, ParamBreakdown, QkNorm};

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

    /// Layers with linear attention ([`LinearAttention`](crate::model::architecture::LinearAttention)): all but every
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
    /// ([`Moe::biased`](crate::model::architecture::Moe::biased)): the router's one a expert, each expert's on its
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
            mtp: (self.mtp_layers as u64).saturating_mul(self.megatron_mtp_layer_params(routed)),
        }
    }

    /// Parameters of one multi-token-prediction layer as Megatron-LM builds
    /// it for training (`multi_token_prediction.py`, `MultiTokenPredictionLayer`):
    /// a decoder layer like the last with full attention (`routed` experts in
    /// a mixture's), the norms `enorm`, `hnorm` and `final_layernorm`, and
    /// `eh_proj` (2·hidden → hidden, no bias); the embedding and the output
    /// head are the model's own.
    pub const fn megatron_mtp_layer_params(&self, routed: u64) -> u64 {
        let h = self.hidden as u64;
        let mlp = if self.moe.is_moe() && self.moe.dense_layers < self.layers {
            self.moe_mlp_params(routed)
        } else {
            self.dense_mlp_params()
        };
        self.attention_params()
            + mlp
            + self.layer_norm_params()
            + 3 * self.norm.params(h)
            + 2 * h * h
    }

    /// The transformer layers' share of the parameters (their linears and
    /// small norms, multi-token prediction's included; not the embeddings,
    /// final norm and output head).
    pub fn layers_share(&self) -> f64 {
        let parts = self.param_breakdown();
        (parts.layers + parts.mtp) as f64 / parts.total().max(1) as f64
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
