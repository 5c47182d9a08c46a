//! Megatron-LM's arguments for `pretrain_gpt.py`, in the names of
//! `megatron/training/arguments.py` (Megatron-LM core_r0.14): the model's
//! shape, the parallel layout (TP, PP with virtual stages or uneven first
//! and last stages, SP, CP, EP/ETP), the distributed optimizer for ZeRO-1/2
//! (it shards the optimizer states and the reduced gradients) or PyTorch's
//! FSDP2 for ZeRO-3, recomputation, precision and the batch. The tokenizer
//! and data paths are the user's: the comment says so.

use super::{batch, full_training_model, Refusal};
use vram_core::config::{Config, ModelSpec};
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::OffloadDevice;
use vram_core::memory::activations::{Recompute, RecomputeMethod};
use vram_core::memory::parallel::{CpComm, ExpertTp};
use vram_core::memory::{Optimizer, Precision, Strategy};
use vram_core::model::architecture::{Biases, Mlp, Norm};

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
        "# {link}\n# {}torchrun --nnodes {} --nproc-per-node {} pretrain_gpt.py, with these and your tokenizer, data and learning-rate arguments:\n",
        config.runtime.process.environment(),
        config.runtime.nodes,
        config.gpus
    );
    for arg in args {
        text.push_str(&arg);
        text.push('\n');
    }
    Ok(text)
}

/// The model's shape: layers, widths, heads, positions, MLP, norm, biases,
/// embeddings, experts and dropout. A bias layout no flag says is refused.
fn model_arguments(
    model: &ModelSpec,
    flag: &mut impl FnMut(&str, Option<String>),
) -> Result<(), Refusal> {
    let arch = model.architecture;
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
        0 => flag("position-embedding-type", Some("rope".into())),
        _ => flag("position-embedding-type", Some("learned_absolute".into())),
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
    if arch.moe.experts > 0 {
        flag("num-experts", Some(arch.moe.experts.to_string()));
        flag("moe-router-topk", Some(arch.moe.top_k.to_string()));
        flag("moe-ffn-hidden-size", Some(arch.moe.expert_ffn.to_string()));
    }
    flag("attention-dropout", Some(model.dropout.to_string()));
    flag("hidden-dropout", Some(model.dropout.to_string()));
    Ok(())
}

/// The parallel layout: TP with SP, PP with virtual stages or uneven first
/// and last stages, CP and its communication, EP and the experts' TP.
fn parallelism_arguments(
    config: &Config,
    model: &ModelSpec,
    flag: &mut impl FnMut(&str, Option<String>),
) {
    let arch = model.architecture;
    let layout = config.runtime.layout;
    flag("tensor-model-parallel-size", Some(layout.tp.to_string()));
    if layout.sp && layout.tp > 1 {
        flag("sequence-parallel", None);
    }
    flag("pipeline-model-parallel-size", Some(layout.pp.to_string()));
    if layout.vpp > 1 {
        let per_chunk = arch.layers / (layout.pp * layout.vpp).max(1);
        flag(
            "num-layers-per-virtual-pipeline-stage",
            Some(per_chunk.to_string()),
        );
    }
    if let Some(first) = layout.first_layers {
        flag("decoder-first-pipeline-num-layers", Some(first.to_string()));
    }
    if let Some(last) = layout.last_layers {
        flag("decoder-last-pipeline-num-layers", Some(last.to_string()));
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
    match config.highlight {
        Strategy::Ddp => {}
        Strategy::Zero1 | Strategy::Zero2 => flag("use-distributed-optimizer", None),
        Strategy::Zero3 => {
            flag("use-torch-fsdp2", None);
            flag("ckpt-format", Some("torch_dist".into()));
        }
    }
    match config.runtime.offload.under(config.highlight) {
        Offload::None => {}
        Offload::Optimizer if config.runtime.offload_device == OffloadDevice::Nvme => {
            return Err(Refusal::NvmeOffload)
        }
        Offload::Optimizer => {
            flag("optimizer-cpu-offload", None);
            flag("optimizer-offload-fraction", Some("1.0".into()));
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
