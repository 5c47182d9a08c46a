//! Megatron-LM's arguments for `pretrain_gpt.py`, in the names of
//! `megatron/training/arguments.py` (megatron-core 0.19.2, whose
//! `parse_args` and `validate_args` `scripts/check-exports` runs on them):
//! the model's shape, the parallel layout (TP, PP with virtual stages or
//! uneven first and last stages, SP, CP, EP/ETP), the distributed optimizer
//! for ZeRO-1/2 (it shards the optimizer states and the reduced gradients)
//! or a fully sharded data parallelism for ZeRO-3 (PyTorch's FSDP2 where
//! Megatron-LM runs the layout under it, else Megatron-FSDP),
//! recomputation, precision and the batch. The tokenizer and data paths
//! are the user's: the comment says so.

use super::{batch, full_training_model, Refusal};
use vram_core::config::{Config, ModelSpec};
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::OffloadDevice;
use vram_core::memory::activations::{Recompute, RecomputeMethod, RecomputeModule};
use vram_core::memory::parallel::{CpComm, ExpertTp};
use vram_core::memory::{Optimizer, Precision, Strategy};
use vram_core::model::architecture::{Biases, Mlp, Norm, QkNorm};

/// The arguments, a flag (and its value) a line, after comments naming the
/// link and the launch.
pub(super) fn arguments(config: &Config, link: &str) -> Result<String, Refusal> {
    let model = full_training_model(config)?;
    let mut args: Vec<String> = Vec::new();
    let mut flag = |name: &str, value: Option<String>| {
        args.push(match value {
            Some(value) => format!("--{name} {value}"),
            None => format!("--{name}"),
        })
    };
    if model.recompute == Recompute::Selective
        && model.recompute_modules.has(RecomputeModule::PerOp)
    {
        return Err(Refusal::Recomputation);
    }
    model_arguments(&model, &mut flag)?;
    parallelism_arguments(config, &model, &mut flag);
    sharding_arguments(config, &mut flag)?;
    recomputation_arguments(&model, &mut flag);
    precision_arguments(config, &mut flag)?;
    // The batch.
    let b = batch(config);
    flag("micro-batch-size", Some(b.micro.to_string()));
    flag("global-batch-size", Some(b.global.to_string()));
    let mut text = format!(
        "# {link}\n# {}{}torchrun --nnodes {} --nproc-per-node {} pretrain_gpt.py, with these and your tokenizer, data and learning-rate arguments:\n",
        config.runtime.process.environment(),
        connections(config),
        config.runtime.nodes,
        config.gpus
    );
    for arg in args {
        text.push_str(&arg);
        text.push('\n');
    }
    Ok(text)
}

/// `CUDA_DEVICE_MAX_CONNECTIONS=1` where `validate_args` asks for it: TP or
/// CP above 1 before Blackwell ("Using tensor model parallelism or context
/// parallelism require setting the environment variable
/// CUDA_DEVICE_MAX_CONNECTIONS to 1"), except under FSDP, which asserts it
/// is not 1 ("FSDP always requires CUDA_DEVICE_MAX_CONNECTIONS value large
/// than one"; `megatron/training/arguments.py`, megatron-core 0.19.2): ZeRO-2
/// and ZeRO-3, both FSDP here.
fn connections(config: &Config) -> &'static str {
    let layout = config.runtime.layout;
    let blackwell = config
        .gpu
        .is_some_and(|g| g.generation == vram_core::gpu::Generation::Blackwell);
    // ZeRO-2 and ZeRO-3 are FSDP's (Megatron-FSDP or PyTorch's FSDP2).
    let fsdp = matches!(config.highlight, Strategy::Zero2 | Strategy::Zero3);
    match (layout.tp > 1 || layout.cp > 1) && !blackwell && !fsdp {
        true => "CUDA_DEVICE_MAX_CONNECTIONS=1 ",
        false => "",
    }
}

/// Whether PyTorch's FSDP2 (`--use-torch-fsdp2`) runs ZeRO-3 here:
/// `validate_args` refuses it with pipeline or expert parallelism, tied
/// embeddings and FP16 (megatron-core 0.19.2), it has no sharding group
/// (HSDP is Megatron-FSDP's outer data-parallel group), and Transformer
/// Engine 2.x gathers no FP8 weights under it ("FSDP2 FP8 param gather is
/// not supported yet in TE 2.0, will fallback to bf16"). Elsewhere
/// Megatron-FSDP shards the same states (`--use-megatron-fsdp` with
/// `optim_grads_params`, ZeRO-3), which runs all of these.
fn torch_fsdp2_runs(config: &Config) -> bool {
    let layout = config.runtime.layout;
    let model = config.model;
    layout.pp == 1
        && model.is_none_or(|m| m.ep == 1 && !m.architecture.tied_embeddings)
        && !matches!(config.precision, Precision::Fp16 | Precision::Fp8Params)
        && config.runtime.shard_group.is_none()
}

/// The rotary base of a preset's checkpoint (`rope_theta` in its
/// `config.json`) where it is not Megatron-LM's default of 10,000
/// (`--rotary-base`), and whether it scales its frequencies as Llama 3.1
/// does (`rope_scaling.rope_type: llama3`, factor 8: `--use-rope-scaling`).
fn rotary(model: &ModelSpec) -> (Option<u32>, bool) {
    rotary_of(model.preset().map(|p| p.id))
}

/// [`rotary`] of the model preset `id`.
pub(crate) fn rotary_of(id: Option<&str>) -> (Option<u32>, bool) {
    match id {
        Some("llama3-8b" | "llama3-70b" | "olmo2-7b" | "olmo2-13b" | "llama4-scout") => {
            (Some(500_000), false)
        }
        Some("llama3.1-8b" | "llama3.1-70b" | "llama3.1-405b") => (Some(500_000), true),
        Some("phi-4") => (Some(250_000), false),
        Some(
            "mistral-7b" | "qwen2.5-7b" | "qwen2.5-14b" | "qwen2.5-32b" | "qwen2.5-72b"
            | "qwen3-0.6b" | "qwen3-8b" | "qwen3-32b" | "qwen3-30b-a3b" | "qwen3-235b-a22b"
            | "mixtral-8x7b" | "mixtral-8x22b" | "glm-4.5-air" | "gemma-3-12b" | "gemma-3-27b",
        ) => (Some(1_000_000), false),
        _ => (None, false),
    }
}

/// The model's shape: layers, widths, heads, positions, MLP, norm, biases,
/// embeddings, q/k norms, experts (shared ones, leading dense layers, the
/// capacity), latent attention, multi-token prediction and dropout. What
/// no flag of `pretrain_gpt.py` says (attention biases without the MLP's,
/// full-width q/k norms, sandwich norms, soft-capped logits, a parallel
/// block, gated attention, linear or local attention, biased experts) is
/// refused.
fn model_arguments(
    model: &ModelSpec,
    flag: &mut impl FnMut(&str, Option<String>),
) -> Result<(), Refusal> {
    let arch = model.architecture;
    if arch.sandwich_norms
        || arch.logit_softcap
        || arch.parallel_block
        || arch.gated_attention
        || arch.linear.full_every > 1
        || arch.local.is_some()
        || arch.moe.biased
        || arch.qk_norm == QkNorm::Full
    {
        return Err(Refusal::Architecture);
    }
    flag("num-layers", Some(arch.layers.to_string()));
    flag("hidden-size", Some(arch.hidden.to_string()));
    flag("ffn-hidden-size", Some(arch.ffn.to_string()));
    flag("num-attention-heads", Some(arch.heads.to_string()));
    if arch.kv_heads != arch.heads {
        flag("group-query-attention", None);
        flag("num-query-groups", Some(arch.kv_heads.to_string()));
    }
    if arch.head_dim != 0 && arch.head_dim * arch.heads != arch.hidden {
        flag("kv-channels", Some(arch.head_dim.to_string()));
    }
    let positions = model.preset().map_or(0, |p| p.context).max(model.seq_len);
    flag("seq-length", Some(model.seq_len.to_string()));
    flag("max-position-embeddings", Some(positions.to_string()));
    match arch.learned_positions {
        0 => {
            flag("position-embedding-type", Some("rope".into()));
            let (base, scaling) = rotary(model);
            if let Some(base) = base {
                flag("rotary-base", Some(base.to_string()));
            }
            if scaling {
                flag("use-rope-scaling", None);
            }
        }
        _ => flag("position-embedding-type", Some("learned_absolute".into())),
    }
    if arch.qk_norm == QkNorm::PerHead {
        flag("qk-layernorm", None);
    }
    if arch.attention_sinks {
        flag("softmax-type", Some("learnable".into()));
    }
    let mla = arch.mla;
    if mla.is_latent() {
        flag("multi-latent-attention", None);
        if mla.q_rank > 0 {
            flag("q-lora-rank", Some(mla.q_rank.to_string()));
        }
        flag("kv-lora-rank", Some(mla.kv_rank.to_string()));
        flag("qk-head-dim", Some(mla.nope_dim.to_string()));
        flag("qk-pos-emb-head-dim", Some(mla.rope_dim.to_string()));
        flag("v-head-dim", Some(mla.v_dim.to_string()));
    }
    if arch.mlp == Mlp::SwiGlu {
        flag("swiglu", None);
    }
    if arch.norm == Norm::RmsNorm {
        flag("normalization", Some("RMSNorm".into()));
    }
    match arch.biases {
        Biases::None => flag("disable-bias-linear", None),
        Biases::Qkv => {
            flag("disable-bias-linear", None);
            flag("add-qkv-bias", None);
        }
        Biases::All => {}
        // Q, K, V and O biased, the MLP not: no flag says it.
        Biases::Attention => return Err(Refusal::Architecture),
    }
    if !arch.tied_embeddings {
        flag("untie-embeddings-and-output-weights", None);
    }
    let moe = arch.moe;
    if moe.experts > 0 {
        flag("num-experts", Some(moe.experts.to_string()));
        flag("moe-router-topk", Some(moe.top_k.to_string()));
        flag("moe-ffn-hidden-size", Some(moe.expert_ffn.to_string()));
        // The experts' GEMMs grouped, as Megatron-LM's MoE recipes run
        // them (and `TransformerConfig` asks of `moe_act` recomputation:
        // "moe_act in recompute_modules is only supported with
        // moe_grouped_gemm", `megatron/core/transformer/transformer_config.py`).
        flag("moe-grouped-gemm", None);
        if moe.shared_experts > 0 {
            flag(
                "moe-shared-expert-intermediate-size",
                Some((moe.shared_experts * moe.shared_ffn).to_string()),
            );
            if moe.shared_gate {
                flag("moe-shared-expert-gate", None);
            }
        }
        if moe.dense_layers > 0 {
            // A Python list expression, as `moe_freq_type` evaluates it.
            flag(
                "moe-layer-freq",
                Some(format!(
                    "'([0]*{}+[1]*{})'",
                    moe.dense_layers,
                    arch.layers - moe.dense_layers.min(arch.layers)
                )),
            );
        }
        if model.capacity != 1.0 {
            // Tokens past the capacity dropped, each expert's input padded
            // to it (the buffers the page counts); the all-to-all
            // dispatcher takes a capacity (Megatron-LM's MoE README).
            flag("moe-token-dispatcher-type", Some("alltoall".into()));
            flag(
                "moe-expert-capacity-factor",
                Some(model.capacity.to_string()),
            );
            flag("moe-pad-expert-input-to-capacity", None);
        }
    }
    if arch.mtp_layers > 0 {
        flag("mtp-num-layers", Some(arch.mtp_layers.to_string()));
    }
    flag("attention-dropout", Some(model.dropout.to_string()));
    flag("hidden-dropout", Some(model.dropout.to_string()));
    Ok(())
}

/// The parallel layout: TP with SP, PP with virtual stages, uneven first
/// and last stages, the embedding or the loss counted in the split, or
/// every stage named; CP and its communication, EP and the experts' TP.
fn parallelism_arguments(
    config: &Config,
    model: &ModelSpec,
    flag: &mut impl FnMut(&str, Option<String>),
) {
    let layout = config.runtime.layout;
    flag("tensor-model-parallel-size", Some(layout.tp.to_string()));
    if layout.sp && layout.tp > 1 {
        flag("sequence-parallel", None);
    }
    flag("pipeline-model-parallel-size", Some(layout.pp.to_string()));
    match layout.stage_map {
        // Every virtual stage named: the layout alone says the stages
        // (`validate_args` takes no other virtual-stage flag beside it and
        // derives VPP from it), quoted for the shell.
        Some(map) => flag("pipeline-model-parallel-layout", Some(format!("'{map}'"))),
        None => {
            // VPP as the virtual stages a rank holds: `validate_args` asks
            // for it with uneven first and last stages ("please use
            // --num-virtual-stages-per-pipeline-rank ... when enable uneven
            // pipeline parallelism"), and it holds whatever the split counts.
            if layout.vpp > 1 {
                flag(
                    "num-virtual-stages-per-pipeline-rank",
                    Some(layout.vpp.to_string()),
                );
            }
            if let Some(first) = layout.first_layers {
                flag("decoder-first-pipeline-num-layers", Some(first.to_string()));
            }
            if let Some(last) = layout.last_layers {
                flag("decoder-last-pipeline-num-layers", Some(last.to_string()));
            }
            if layout.embedding_in_split {
                flag("account-for-embedding-in-pipeline-split", None);
            }
            if layout.loss_in_split {
                flag("account-for-loss-in-pipeline-split", None);
            }
        }
    }
    if layout.cp > 1 {
        flag("context-parallel-size", Some(layout.cp.to_string()));
        flag(
            "cp-comm-type",
            Some(
                match layout.cp_comm {
                    CpComm::Ring => "p2p",
                    CpComm::AllToAll => "a2a",
                }
                .into(),
            ),
        );
    }
    if model.ep > 1 {
        flag("expert-model-parallel-size", Some(model.ep.to_string()));
        let etp = match layout.expert_tp {
            ExpertTp::AsTp => layout.tp,
            ExpertTp::One => 1,
        };
        flag("expert-tensor-parallel-size", Some(etp.to_string()));
    }
}

/// How the states are sharded: the distributed optimizer or FSDP2, the
/// optimizer's offload, the sharding group and the overlapped reductions.
/// NVMe, parameter offload and a sharding group that does not fit are refused.
fn sharding_arguments(
    config: &Config,
    flag: &mut impl FnMut(&str, Option<String>),
) -> Result<(), Refusal> {
    // Megatron-FSDP sharding as `strategy` says, with the checkpoints it needs.
    let mut megatron_fsdp = |strategy: &str| {
        flag("use-megatron-fsdp", None);
        flag("data-parallel-sharding-strategy", Some(strategy.into()));
        flag("ckpt-format", Some("fsdp_dtensor".into()));
    };
    match config.highlight {
        Strategy::Ddp => {}
        Strategy::Zero1 => flag("use-distributed-optimizer", None),
        // ZeRO-2: Megatron-FSDP sharding the optimizer states and gradients,
        // the parameters kept whole (`optim_grads`); the distributed
        // optimizer keeps every gradient whole in its buffer, ZeRO-1's
        // memory, not the plan's (issue 63: 63.79 GB written for a plan of
        // 48.36).
        Strategy::Zero2 => megatron_fsdp("optim_grads"),
        // `validate_args`: "--use-torch-fsdp2 is not supported with gradient
        // accumulation fusion", and it needs `torch_dist` or `torch_dcp`
        // checkpoints; Megatron-FSDP needs `fsdp_dtensor` ones.
        Strategy::Zero3 if torch_fsdp2_runs(config) => {
            flag("use-torch-fsdp2", None);
            flag("no-gradient-accumulation-fusion", None);
            flag("ckpt-format", Some("torch_dist".into()));
        }
        Strategy::Zero3 => megatron_fsdp("optim_grads_params"),
    }
    match config.runtime.offload.under(config.highlight) {
        Offload::None => {}
        Offload::Optimizer if config.runtime.offload_device == OffloadDevice::Nvme => {
            return Err(Refusal::NvmeOffload)
        }
        Offload::Optimizer => {
            // `validate_args`: "The optimizer cpu offload must be used in
            // conjunction with `--use-precision-aware-optimizer`" (its
            // dtypes left at fp32: the master weights, gradients and
            // moments the page counts).
            flag("optimizer-cpu-offload", None);
            flag("optimizer-offload-fraction", Some("1.0".into()));
            flag("use-precision-aware-optimizer", None);
        }
        Offload::All => return Err(Refusal::ParameterOffload),
    }
    if let Some(group) = config.runtime.shard_group {
        let b = batch(config);
        if config.highlight == Strategy::Ddp || b.data_parallel % group != 0 {
            return Err(Refusal::ShardGroup);
        }
        flag(
            "num-distributed-optimizer-instances",
            Some((b.data_parallel / group).to_string()),
        );
    }
    if config.speed.overlap_grad && config.highlight != Strategy::Ddp {
        flag("overlap-grad-reduce", None);
        if config.speed.overlap_param {
            flag("overlap-param-gather", None);
        }
    }
    Ok(())
}

/// Recomputation: selective with its modules (`core_attn` is Megatron's
/// default), or full with its method and number of layers.
fn recomputation_arguments(model: &ModelSpec, flag: &mut impl FnMut(&str, Option<String>)) {
    match model.recompute {
        Recompute::None => {}
        Recompute::Selective => {
            flag("recompute-granularity", Some("selective".into()));
            let modules = model.recompute_modules.key().replace(',', " ");
            if modules != "core_attn" {
                flag("recompute-modules", Some(modules));
            }
        }
        Recompute::Full => {
            flag("recompute-granularity", Some("full".into()));
            flag(
                "recompute-method",
                Some(
                    match model.checkpointing.method {
                        RecomputeMethod::Uniform => "uniform",
                        RecomputeMethod::Block => "block",
                    }
                    .into(),
                ),
            );
            flag(
                "recompute-num-layers",
                Some(model.checkpointing.layers.to_string()),
            );
        }
    }
}

/// Precision (FP8 with its format and recipe) and the optimizer. A pure
/// precision and an optimizer without a flag of its own are refused.
fn precision_arguments(
    config: &Config,
    flag: &mut impl FnMut(&str, Option<String>),
) -> Result<(), Refusal> {
    match config.precision {
        Precision::Fp16 => flag("fp16", None),
        Precision::Bf16 => flag("bf16", None),
        Precision::Fp32 => {}
        Precision::Fp8 | Precision::Fp8Params => {
            flag("bf16", None);
            flag("fp8-format", Some("hybrid".into()));
            flag("fp8-recipe", Some(config.fp8_recipe.key().into()));
            if config.precision == Precision::Fp8Params {
                flag("fp8-param-gather", None);
            }
        }
        Precision::Fp32Pure | Precision::Bf16Pure => return Err(Refusal::Precision),
    }
    match config.optimizer {
        Optimizer::Adam => flag("optimizer", Some("adam".into())),
        Optimizer::SgdMomentum => {
            flag("optimizer", Some("sgd".into()));
            flag("sgd-momentum", Some("0.9".into()));
        }
        Optimizer::Sgd => {
            flag("optimizer", Some("sgd".into()));
            flag("sgd-momentum", Some("0".into()));
        }
        Optimizer::Adam8bit | Optimizer::Adafactor | Optimizer::Lion => {
            return Err(Refusal::Optimizer)
        }
    }
    Ok(())
}
