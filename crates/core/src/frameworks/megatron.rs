//! What Megatron-LM prints at start-up as its "theoretical memory footprint":
//! `megatron/training/theoretical_memory_usage.py` (NVIDIA/Megatron-LM at
//! commit d98e8a6, `core_v0.15.0rc7-2333`), reproduced operation for
//! operation, so that every input it accepts gives its figures exactly.
//!
//! Its weight-and-optimizer memory counts 18 bytes per parameter (bf16
//! weights, fp32 main gradients, fp32 main weights, fp32 Adam moments), or
//! 6 + 12 ÷ DP with the distributed optimizer, on the most loaded model shard
//! (the first pipeline stage, with the embedding; the output head too without
//! pipeline parallelism); routed experts shard over the expert-data-parallel
//! group. Its activation memory is Korthikanti et al. 2022's Table 2 for the
//! first stage: with sequence parallelism and selective recomputation the
//! `18 + 4·ffn/h` path ÷ TP, otherwise `10 + 24/TP` per layer and 5 % on top.
//! Neither looks at the attention's head size, at latent attention or at
//! experts in its activations, nor at full recomputation.

use serde::{Deserialize, Serialize};

use crate::memory::activations::Recompute;
use crate::memory::parallel::Layout;
use vram_shared::model::architecture::{Architecture, Biases, Mlp, Norm};
use vram_shared::units::Bytes;

/// The arguments Megatron-LM's estimate reads, named as its `args` are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MegatronArgs {
    /// `--num-layers`.
    pub num_layers: u32,
    /// `--hidden-size`.
    pub hidden_size: u32,
    /// `--ffn-hidden-size`.
    pub ffn_hidden_size: u32,
    /// `--num-attention-heads`.
    pub num_attention_heads: u32,
    /// `--kv-channels` (hidden ÷ heads unless given).
    pub kv_channels: u32,
    /// `--group-query-attention`.
    pub group_query_attention: bool,
    /// `--num-query-groups`.
    pub num_query_groups: u32,
    /// `--swiglu`.
    pub swiglu: bool,
    /// `--normalization`: `RMSNorm` or `LayerNorm`.
    pub normalization: String,
    /// `--untie-embeddings-and-output-weights`.
    pub untie_embeddings_and_output_weights: bool,
    /// The vocabulary padded to a multiple of 128 × TP.
    pub padded_vocab_size: u32,
    /// `--add-bias-linear` (the router's bias).
    pub add_bias_linear: bool,
    /// `--num-experts` (None for a dense model).
    pub num_experts: Option<u32>,
    /// `--moe-layer-freq` as a list: 1 for each MoE layer.
    pub moe_layer_freq: Vec<u32>,
    /// `--moe-ffn-hidden-size`.
    pub moe_ffn_hidden_size: Option<u32>,
    /// `--moe-router-topk`.
    pub moe_router_topk: u32,
    /// `--moe-shared-expert-intermediate-size` (all shared experts together).
    pub moe_shared_expert_intermediate_size: Option<u32>,
    /// `--moe-shared-expert-gate`.
    pub moe_shared_expert_gate: bool,
    /// `--multi-latent-attention`.
    pub multi_latent_attention: bool,
    /// `--q-lora-rank` (None: direct queries).
    pub q_lora_rank: Option<u32>,
    /// `--kv-lora-rank`.
    pub kv_lora_rank: u32,
    /// `--qk-head-dim` (the part without position).
    pub qk_head_dim: u32,
    /// `--qk-pos-emb-head-dim`.
    pub qk_pos_emb_head_dim: u32,
    /// `--v-head-dim`.
    pub v_head_dim: u32,
    /// `--tensor-model-parallel-size`.
    pub tensor_model_parallel_size: u32,
    /// `--pipeline-model-parallel-size`.
    pub pipeline_model_parallel_size: u32,
    /// `--num-virtual-stages-per-pipeline-rank` (None without interleaving).
    pub virtual_pipeline_model_parallel_size: Option<u32>,
    /// `--expert-model-parallel-size`.
    pub expert_model_parallel_size: u32,
    /// `--expert-tensor-parallel-size` (TP unless given).
    pub expert_tensor_parallel_size: u32,
    /// All GPUs.
    pub world_size: u32,
    /// world ÷ (TP × PP × CP).
    pub data_parallel_size: u32,
    /// `--use-distributed-optimizer`.
    pub use_distributed_optimizer: bool,
    /// `--sequence-parallel`.
    pub sequence_parallel: bool,
    /// `--recompute-granularity`: `selective`, `full` or None.
    pub recompute_granularity: Option<String>,
    /// `--seq-length`.
    pub seq_length: u32,
    /// `--micro-batch-size`.
    pub micro_batch_size: u32,
}

/// Megatron-LM's figures, in bytes (it prints them ÷ 2^20 as "MB").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MegatronEstimate {
    /// `compute_weight_and_optimizer_memory`.
    pub weight_and_optimizer: Bytes,
    /// The activation function it chooses.
    pub activations: Bytes,
    /// Their sum.
    pub total: Bytes,
    /// What it prints, in its "MB" (2^20 bytes): the two parts and their sum,
    /// added in that unit as it adds them.
    pub printed_mb: [f64; 3],
    /// Whether it took the sequence-parallel path (SP with selective recomputation).
    pub sequence_parallel_path: bool,
}

/// Megatron's vocabulary padding (`vocab_size_with_padding`,
/// `megatron/core/tokenizers/utils/build_tokenizer.py`): up to a multiple of
/// `make_vocab_size_divisible_by` (128) × TP.
pub fn padded_vocab(vocab: u32, tp: u32) -> u32 {
    let multiple = 128 * u64::from(tp);
    (u64::from(vocab).div_ceil(multiple) * multiple) as u32
}

/// The arguments Megatron-LM would be given for this model and layout on
/// `world` GPUs, `ep` expert-parallel ranks, with (`distributed`) or
/// without its distributed optimizer.
#[allow(clippy::too_many_arguments)]
pub fn args_of(
    arch: &Architecture,
    layout: &Layout,
    world: u32,
    ep: u32,
    distributed: bool,
    seq_len: u32,
    micro_batch: u32,
    recompute: Recompute,
) -> MegatronArgs {
    let moe = arch.moe;
    let dense = arch.dense_layer_count();
    let latent = arch.mla.is_latent();
    MegatronArgs {
        num_layers: arch.layers,
        hidden_size: arch.hidden,
        ffn_hidden_size: arch.ffn,
        num_attention_heads: arch.heads,
        // Latent attention's heads are its own; Megatron's default then.
        kv_channels: if latent {
            arch.hidden / arch.heads
        } else {
            arch.head_dim() as u32
        },
        group_query_attention: !latent && arch.kv_heads != arch.heads,
        num_query_groups: if latent { arch.heads } else { arch.kv_heads },
        swiglu: arch.mlp == Mlp::SwiGlu,
        normalization: match arch.norm {
            Norm::RmsNorm => "RMSNorm",
            Norm::LayerNorm => "LayerNorm",
        }
        .into(),
        untie_embeddings_and_output_weights: !arch.tied_embeddings,
        padded_vocab_size: padded_vocab(arch.vocab, layout.tp),
        add_bias_linear: arch.biases == Biases::All,
        num_experts: moe.is_moe().then_some(moe.experts),
        moe_layer_freq: (0..arch.layers)
            .map(|i| u32::from(moe.is_moe() && i >= dense))
            .collect(),
        moe_ffn_hidden_size: moe.is_moe().then_some(moe.expert_ffn),
        // Megatron's default top-k (2) where there are no experts.
        moe_router_topk: if moe.is_moe() { moe.top_k } else { 2 },
        moe_shared_expert_intermediate_size: (moe.shared_experts > 0)
            .then_some(moe.shared_experts * moe.shared_ffn),
        moe_shared_expert_gate: moe.shared_gate,
        multi_latent_attention: latent,
        q_lora_rank: (arch.mla.q_rank > 0).then_some(arch.mla.q_rank),
        kv_lora_rank: arch.mla.kv_rank,
        qk_head_dim: arch.mla.nope_dim,
        qk_pos_emb_head_dim: arch.mla.rope_dim,
        v_head_dim: arch.mla.v_dim,
        tensor_model_parallel_size: layout.tp,
        pipeline_model_parallel_size: layout.pp,
        virtual_pipeline_model_parallel_size: (layout.vpp > 1).then_some(layout.vpp),
        expert_model_parallel_size: ep,
        expert_tensor_parallel_size: layout.expert_tp_size(),
        world_size: world,
        data_parallel_size: (u64::from(world) / layout.model_parallel()) as u32,
        use_distributed_optimizer: distributed,
        sequence_parallel: layout.sp,
        recompute_granularity: match recompute {
            Recompute::None => None,
            Recompute::Selective => Some("selective".into()),
            Recompute::Full => Some("full".into()),
        },
        seq_length: seq_len,
        micro_batch_size: micro_batch,
    }
}

/// `compute_weight_and_optimizer_memory(args)`, in bytes.
pub fn weight_and_optimizer_memory(args: &MegatronArgs) -> f64 {
    let f = |n: u32| f64::from(n);
    let h = f(args.hidden_size);
    let heads = f(args.num_attention_heads);
    let query_projection_size = f(args.kv_channels) * heads;
    let query_projection_to_hidden_size_ratio = query_projection_size / h;
    let num_query_groups = if args.group_query_attention {
        f(args.num_query_groups)
    } else {
        heads
    };
    let num_experts = args.num_experts.map_or(1.0, f);
    let gated_linear_multiplier = if args.swiglu { 3.0 / 2.0 } else { 1.0 };
    let shared_expert_ffn_hidden_size = args.moe_shared_expert_intermediate_size.map_or(0.0, f);
    let (num_dense_layers, num_moe_layers, moe_ffn_hidden_size) = match args.num_experts {
        Some(_) => {
            let moe_layers: u32 = args.moe_layer_freq.iter().sum();
            (
                f(args.num_layers - moe_layers),
                f(moe_layers),
                args.moe_ffn_hidden_size.map_or(0.0, f),
            )
        }
        None => (f(args.num_layers), 0.0, 0.0),
    };
    let norm_size = if args.normalization == "RMSNorm" {
        1.0
    } else {
        2.0
    };
    let self_attn_term = if args.multi_latent_attention {
        let qk = f(args.qk_head_dim) + f(args.qk_pos_emb_head_dim);
        let q_term = match args.q_lora_rank {
            None => h * heads * qk,
            Some(rank) => f(rank) * (h + heads * qk + norm_size),
        };
        q_term
            + f(args.kv_lora_rank)
                * (h + heads * (f(args.qk_head_dim) + f(args.v_head_dim)) + norm_size)
            + h * f(args.qk_pos_emb_head_dim)
            + (heads * f(args.v_head_dim)) * h
    } else {
        2.0 * h * h * ((1.0 + (num_query_groups / heads)) * query_projection_to_hidden_size_ratio)
    };
    let embedding_size = h * f(args.padded_vocab_size);
    let final_layernorm = norm_size * h;
    let attention_params = self_attn_term;
    let dense_mlp_params = 2.0 * h * f(args.ffn_hidden_size) * gated_linear_multiplier;
    let shared_expert_params = 2.0 * h * shared_expert_ffn_hidden_size * gated_linear_multiplier;
    let routed_expert_params =
        2.0 * h * moe_ffn_hidden_size * num_experts * gated_linear_multiplier;
    let layernorm_params = 2.0 * h * norm_size;
    let router_params = match args.num_experts {
        Some(_) => {
            (h * num_experts)
                + if args.add_bias_linear {
                    num_experts
                } else {
                    0.0
                }
        }
        None => 0.0,
    };
    let shared_expert_gate_params =
        if shared_expert_ffn_hidden_size > 0.0 && args.moe_shared_expert_gate {
            h
        } else {
            0.0
        };
    let tp = f(args.tensor_model_parallel_size);
    let pp = f(args.pipeline_model_parallel_size);
    let etp = f(args.expert_tensor_parallel_size);
    let ep = f(args.expert_model_parallel_size);
    let expert_tensor_model_pipeline_parallel_size = args.expert_tensor_parallel_size
        * args.expert_model_parallel_size
        * args.pipeline_model_parallel_size;
    let expert_data_parallel_size = args.world_size / expert_tensor_model_pipeline_parallel_size;
    let tp_sharded_params_in_transformer_block = (attention_params + dense_mlp_params)
        * num_dense_layers
        + (attention_params + shared_expert_params) * num_moe_layers;
    let replicated_params_in_transformer_block = layernorm_params * num_dense_layers
        + (layernorm_params + router_params + shared_expert_gate_params) * num_moe_layers
        + final_layernorm;
    let expert_sharded_params_in_transformer_block = routed_expert_params * num_moe_layers;
    // No multi-token prediction: its block adds nothing.
    let mut tp_sharded_params_on_most_loaded_shard =
        ((tp_sharded_params_in_transformer_block / pp) + 0.0 + embedding_size) / tp;
    let replicated_params_on_most_loaded_shard =
        (replicated_params_in_transformer_block / pp) + 0.0;
    let expert_sharded_params_on_most_loaded_shard =
        ((expert_sharded_params_in_transformer_block / pp) + 0.0) / (etp * ep);
    if args.untie_embeddings_and_output_weights && args.pipeline_model_parallel_size == 1 {
        tp_sharded_params_on_most_loaded_shard += embedding_size / tp;
    }
    let bytes_per_parameter = |data_parallel_size: u32| {
        if args.use_distributed_optimizer {
            6.0 + (12.0 / f(data_parallel_size))
        } else {
            18.0
        }
    };
    (tp_sharded_params_on_most_loaded_shard + replicated_params_on_most_loaded_shard)
        * bytes_per_parameter(args.data_parallel_size)
        + expert_sharded_params_on_most_loaded_shard
            * bytes_per_parameter(expert_data_parallel_size)
}

/// The in-flight factor both activation functions apply: the interleaved
/// schedule's penalty, or, without it, min(1, m ÷ PP) when m is known.
fn pipeline_factor(args: &MegatronArgs, num_microbatches: Option<u32>, memory: f64) -> f64 {
    let pp = f64::from(args.pipeline_model_parallel_size);
    let mut memory = memory;
    if let Some(vpp) = args.virtual_pipeline_model_parallel_size {
        let interleaved_schedule_memory_penalty = 1.0 + ((pp - 1.0) / (pp * f64::from(vpp)));
        memory *= interleaved_schedule_memory_penalty;
    }
    if args.virtual_pipeline_model_parallel_size.is_none() && args.pipeline_model_parallel_size > 1
    {
        if let Some(m) = num_microbatches {
            memory *= (f64::from(m) / pp).min(1.0);
        }
    }
    memory
}

/// `compute_activation_memory(args, num_microbatches)`: the sequence-parallel path.
pub fn activation_memory_with_sp(args: &MegatronArgs, num_microbatches: Option<u32>) -> f64 {
    let s = f64::from(args.seq_length);
    let b = f64::from(args.micro_batch_size);
    let h = f64::from(args.hidden_size);
    let pp = f64::from(args.pipeline_model_parallel_size);
    let mut activation_memory =
        (s * b * h) * (18.0 + (4.0 * (f64::from(args.ffn_hidden_size) / h)));
    activation_memory *= f64::from(args.num_layers);
    activation_memory += 8.0 * s * b * pp;
    activation_memory += s * b * h * pp;
    activation_memory = pipeline_factor(args, num_microbatches, activation_memory);
    if args.pipeline_model_parallel_size == 1 {
        activation_memory += s * b * h * 4.0 * (1.0 + (f64::from(args.padded_vocab_size) / h));
    }
    activation_memory / f64::from(args.tensor_model_parallel_size)
}

/// `compute_activation_memory_without_sp(args, num_microbatches)`.
pub fn activation_memory_without_sp(args: &MegatronArgs, num_microbatches: Option<u32>) -> f64 {
    let s = f64::from(args.seq_length);
    let b = f64::from(args.micro_batch_size);
    let h = f64::from(args.hidden_size);
    let tp = f64::from(args.tensor_model_parallel_size);
    let pp = f64::from(args.pipeline_model_parallel_size);
    let per_layer_memory = s * b * h * (10.0 + (24.0 / tp));
    let mut total = per_layer_memory * f64::from(args.num_layers);
    total += 8.0 * s * b * pp;
    total += s * b * h * pp;
    total = pipeline_factor(args, num_microbatches, total);
    if args.pipeline_model_parallel_size == 1 {
        let mut logits_size = s * b * f64::from(args.padded_vocab_size);
        logits_size /= tp;
        let final_ln_output = s * b * h;
        total += (logits_size + final_ln_output) * 2.0;
    }
    total * 1.05
}

/// `report_theoretical_memory(args, num_microbatches)`: both parts, the
/// activation path it chooses, and their sum (it adds them in MB, ÷ 2^20).
pub fn estimate(args: &MegatronArgs, num_microbatches: Option<u32>) -> MegatronEstimate {
    const MB: f64 = 1024.0 * 1024.0;
    let weights = weight_and_optimizer_memory(args);
    let sp_path =
        args.sequence_parallel && args.recompute_granularity.as_deref() == Some("selective");
    let activations = if sp_path {
        activation_memory_with_sp(args, num_microbatches)
    } else {
        activation_memory_without_sp(args, num_microbatches)
    };
    MegatronEstimate {
        weight_and_optimizer: Bytes::new(weights),
        activations: Bytes::new(activations),
        total: Bytes::new(weights + activations),
        printed_mb: [
            weights / MB,
            activations / MB,
            weights / MB + activations / MB,
        ],
        sequence_parallel_path: sp_path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn the_vocabulary_is_padded_to_128_times_tp() {
        assert_eq!(padded_vocab(32_000, 1), 32_000);
        assert_eq!(padded_vocab(32_000, 8), 32_768);
        assert_eq!(padded_vocab(50_257, 1), 50_304);
        assert_eq!(padded_vocab(128_256, 8), 129_024);
    }
}
