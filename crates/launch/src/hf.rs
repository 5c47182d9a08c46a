//! Hugging Face accelerate's configuration YAML (`accelerate launch
//! --config_file`), in the names of `accelerate/commands/config/config_args.py`
//! and `accelerate/utils/dataclasses.py` (accelerate 1.16): FSDP2
//! (`fsdp_version: 2`, HSDP through `parallelism_config`) where FSDP2
//! shards the column, DeepSpeed's plugin
//! for ZeRO, plain data parallelism for DDP; under it, as comments, the
//! `TrainingArguments` that matter and PEFT's `LoraConfig` (with
//! bitsandbytes' `BitsAndBytesConfig` for QLoRA).

use super::{batch, Refusal};
use vram_core::config::Config;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::{OffloadDevice, Sharding};
use vram_core::memory::activations::Recompute;
use vram_core::memory::finetune::{BnbRelease, Method, Quant, Targets};
use vram_core::memory::{Optimizer, Precision, Strategy};

/// The YAML, after a comment naming the link.
pub(super) fn accelerate_yaml(config: &Config, link: &str) -> Result<String, Refusal> {
    let layout = config.runtime.layout;
    let ep = config.model.map_or(1, |m| m.ep);
    if layout.tp > 1 || layout.pp > 1 || layout.cp > 1 || ep > 1 {
        return Err(Refusal::ModelParallel);
    }
    let mixed = match (config.precision, config.amp) {
        (Precision::Fp16, _) => "fp16",
        (Precision::Bf16, _) => "bf16",
        (Precision::Fp32, false) | (Precision::Fp32Pure, _) => "no",
        (Precision::Fp32, true) => "bf16",
        (Precision::Bf16Pure | Precision::Fp8 | Precision::Fp8Params, _) => {
            return Err(Refusal::Precision)
        }
    };
    let b = batch(config);
    let world = config.gpus * config.runtime.nodes;
    let offload = config.runtime.offload.under(config.highlight);
    let mut text = format!(
        "# {link}\n# accelerate launch --config_file accelerate.yaml train.py\ncompute_environment: LOCAL_MACHINE\n"
    );
    match (config.highlight, config.runtime.sharding) {
        (Strategy::Ddp, _) => text.push_str("distributed_type: MULTI_GPU\n"),
        (Strategy::Zero3, Sharding::Fsdp2) => {
            let cpu_offload = match offload {
                Offload::None => false,
                Offload::All if config.runtime.offload_device == OffloadDevice::Cpu => true,
                Offload::All => return Err(Refusal::NvmeOffload),
                Offload::Optimizer => return Err(Refusal::OptimizerOnlyOffload),
            };
            let recompute = config.model.is_some_and(|m| m.recompute != Recompute::None);
            text.push_str(&format!(
                "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n  fsdp_reshard_after_forward: true\n  fsdp_offload_params: {cpu_offload}\n  fsdp_cpu_ram_efficient_loading: true\n  fsdp_state_dict_type: SHARDED_STATE_DICT\n  fsdp_activation_checkpointing: {recompute}\n"
            ));
            // HSDP: FSDP2 shards within each group and replicates across
            // them, accelerate's `ParallelismConfig` (`dp_replicate_size`
            // × `dp_shard_size`; FSDP2 only, `_validate_launch_command`).
            if let Some(group) = config.runtime.shard_group {
                if group == 0 || b.data_parallel % group != 0 {
                    return Err(Refusal::ShardGroup);
                }
                text.push_str(&format!(
                    "parallelism_config:\n  parallelism_config_dp_replicate_size: {}\n  parallelism_config_dp_shard_size: {group}\n",
                    b.data_parallel / group
                ));
            }
        }
        (strategy, _) => {
            if config.runtime.shard_group.is_some() {
                return Err(Refusal::ShardGroup);
            }
            let stage = match strategy {
                Strategy::Zero1 => 1,
                Strategy::Zero2 => 2,
                _ => 3,
            };
            let device = match config.runtime.offload_device {
                OffloadDevice::Cpu => "cpu",
                OffloadDevice::Nvme => "nvme",
            };
            let (optimizer_device, param_device) = match offload {
                Offload::None => ("none", "none"),
                Offload::Optimizer => (device, "none"),
                Offload::All => (device, device),
            };
            text.push_str(&format!(
                "distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: {stage}\n  offload_optimizer_device: {optimizer_device}\n  offload_param_device: {param_device}\n  gradient_accumulation_steps: {}\n  gradient_clipping: 1.0\n  zero3_init_flag: {}\n",
                b.accumulation,
                stage == 3 && config.runtime.zero_init
            ));
        }
    }
    text.push_str(&format!(
        "mixed_precision: {mixed}\nnum_machines: {}\nnum_processes: {world}\nmachine_rank: 0\nmain_training_function: main\nrdzv_backend: static\nsame_network: true\nuse_cpu: false\n",
        config.runtime.nodes
    ));
    // Under FSDP the layers are checkpointed by `fsdp_activation_checkpointing`
    // alone: transformers' Trainer raises "The activation_checkpointing in
    // FSDP config and the gradient_checkpointing in training arg can't be
    // set to True simultaneously" (`transformers/trainer.py`,
    // `create_accelerator_and_postprocess`, transformers 5.20).
    let fsdp = config.highlight == Strategy::Zero3 && config.runtime.sharding == Sharding::Fsdp2;
    text.push_str(&training_arguments(config, b.micro, b.accumulation, !fsdp)?);
    Ok(text)
}

/// `TrainingArguments`, and PEFT's and bitsandbytes' configurations for
/// adapters, as comments: what the training script passes
/// (`gradient_checkpointing` where the trainer checkpoints the layers,
/// `checkpointing`).
fn training_arguments(
    config: &Config,
    micro: u32,
    accumulation: u32,
    checkpointing: bool,
) -> Result<String, Refusal> {
    let mut args = vec![
        format!("per_device_train_batch_size={micro}"),
        format!("gradient_accumulation_steps={accumulation}"),
    ];
    if let Some(model) = config.model {
        if model.recompute != Recompute::None && checkpointing {
            args.push("gradient_checkpointing=True".into());
        }
    }
    match config.precision {
        Precision::Bf16 => args.push("bf16=True".into()),
        Precision::Fp16 => args.push("fp16=True".into()),
        _ if config.amp => args.push("bf16=True".into()),
        _ => {}
    }
    let optim = match config.optimizer {
        Optimizer::Adam => "adamw_torch_fused",
        Optimizer::Adam8bit => "adamw_bnb_8bit",
        Optimizer::Adafactor => "adafactor",
        Optimizer::Lion => "lion_32bit",
        Optimizer::Sgd | Optimizer::SgdMomentum => "sgd",
    };
    args.push(format!("optim=\"{optim}\""));
    let mut text = format!("# TrainingArguments({})\n", args.join(", "));
    let tuning = &config.fine_tuning;
    if tuning.method == Method::Full {
        return Ok(text);
    }
    let targets = match tuning.targets {
        Targets::Qv => "[\"q_proj\", \"v_proj\"]",
        Targets::Attn => "[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"]",
        Targets::Mlp => "[\"gate_proj\", \"up_proj\", \"down_proj\"]",
        Targets::All => "\"all-linear\"",
    };
    let mut lora = vec![
        format!("r={}", tuning.rank),
        format!("target_modules={targets}"),
        format!("lora_dropout={}", tuning.lora_dropout),
    ];
    if tuning.dora {
        lora.push("use_dora=True".into());
    }
    text.push_str(&format!("# LoraConfig({})\n", lora.join(", ")));
    if tuning.method == Method::Qlora {
        let compute = match config.precision {
            Precision::Fp16 => "torch.float16",
            _ => "torch.bfloat16",
        };
        text.push_str(&match tuning.quant {
            Quant::Nf4 => format!(
                "# BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant={}, bnb_4bit_compute_dtype={compute})\n",
                if tuning.double_quant { "True" } else { "False" }
            ),
            Quant::Int8 => "# BitsAndBytesConfig(load_in_8bit=True)\n".to_string(),
        });
        // The figures count each 4-bit linear's saved input (`bnb=0.43.1`):
        // the release that keeps it.
        if tuning.quant == Quant::Nf4 && tuning.bnb == BnbRelease::Before0432 {
            text.push_str("# pip install \"bitsandbytes<=0.43.1\"  (its 4-bit layers keep their inputs, as the figures count)\n");
        }
    }
    Ok(text)
}
