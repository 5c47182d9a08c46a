//! DeepSpeed's configuration JSON (`ds_config.json`), in the names of
//! `deepspeed/runtime/config.py` and `deepspeed/runtime/zero/config.py`
//! (DeepSpeed 0.19.8, whose `DeepSpeedConfig` `scripts/check-exports` runs
//! on it): the ZeRO stage of the highlighted strategy (DDP is
//! stage 0), its offload, the buckets as the page counts them, the
//! precision and the batch.

use serde_json::{json, Map, Value};

use super::{batch, Refusal};
use vram_core::config::Config;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::{OffloadDevice, Sharding};
use vram_core::memory::{GradientPrecision, Optimizer, Precision, Strategy};

/// The JSON, keys in DeepSpeed's names (sorted, as `serde_json` writes them).
pub(super) fn config_json(config: &Config) -> Result<String, Refusal> {
    let layout = config.runtime.layout;
    let ep = config.model.map_or(1, |m| m.ep);
    if layout.tp > 1 || layout.pp > 1 || layout.cp > 1 || ep > 1 {
        return Err(Refusal::ModelParallel);
    }
    if config.amp {
        return Err(Refusal::Autocast);
    }
    let stage = match config.highlight {
        Strategy::Ddp => 0,
        Strategy::Zero1 => 1,
        Strategy::Zero2 => 2,
        Strategy::Zero3 if config.runtime.sharding == Sharding::Fsdp2 => {
            return Err(Refusal::Fsdp2)
        }
        Strategy::Zero3 => 3,
    };
    let mut root = Map::new();
    match config.precision {
        Precision::Fp16 => {
            root.insert("fp16".into(), json!({ "enabled": true }));
        }
        Precision::Bf16 => {
            root.insert("bf16".into(), json!({ "enabled": true }));
        }
        Precision::Fp32 | Precision::Fp32Pure => {}
        Precision::Bf16Pure | Precision::Fp8 | Precision::Fp8Params => {
            return Err(Refusal::Precision)
        }
    }
    // Gradients accumulated in fp32 under a 16-bit recipe (`data_types.grad_accum_dtype`).
    if config.gradients == GradientPrecision::Fp32
        && matches!(config.precision, Precision::Fp16 | Precision::Bf16)
    {
        root.insert("data_types".into(), json!({ "grad_accum_dtype": "fp32" }));
    }
    let optimizer = match config.optimizer {
        Optimizer::Adam => json!({ "type": "AdamW" }),
        Optimizer::Lion => json!({ "type": "Lion" }),
        // torch.optim's, by name: DeepSpeed builds what it does not know from torch.optim.
        Optimizer::Sgd => json!({ "type": "SGD", "params": { "lr": 0.01 } }),
        Optimizer::SgdMomentum => {
            json!({ "type": "SGD", "params": { "lr": 0.01, "momentum": 0.9 } })
        }
        Optimizer::Adafactor => json!({ "type": "Adafactor" }),
        Optimizer::Adam8bit => return Err(Refusal::Optimizer),
    };
    root.insert("optimizer".into(), optimizer);
    let b = batch(config);
    root.insert("train_batch_size".into(), json!(b.global));
    root.insert("train_micro_batch_size_per_gpu".into(), json!(b.micro));
    root.insert("gradient_accumulation_steps".into(), json!(b.accumulation));
    root.insert("gradient_clipping".into(), json!(1.0));
    root.insert("zero_optimization".into(), zero(config, stage)?);
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    Ok(text)
}

/// The `zero_optimization` section: the stage, offload and buckets
/// (elements, as the page's buffers count them); a sharding group is refused.
fn zero(config: &Config, stage: u8) -> Result<Value, Refusal> {
    let runtime = &config.runtime;
    let sizes = runtime.buffer_sizes;
    let elements = |millions: f64| json!((millions * 1e6).round() as u64);
    let mut zero = Map::new();
    zero.insert("stage".into(), json!(stage));
    if stage > 0 {
        // What the step's time assumed; unset, DeepSpeed's own default
        // (on under ZeRO-3 only, `DeepSpeedZeroConfig.overlap_comm_valid`).
        if config.speed.overlap_grad {
            zero.insert("overlap_comm".into(), json!(true));
        }
        zero.insert("contiguous_gradients".into(), json!(true));
        zero.insert("reduce_bucket_size".into(), elements(sizes.reduce_bucket));
    }
    if matches!(stage, 1 | 2) {
        zero.insert(
            "allgather_bucket_size".into(),
            elements(sizes.allgather_bucket),
        );
    }
    if stage == 3 {
        zero.insert(
            "stage3_prefetch_bucket_size".into(),
            elements(sizes.prefetch_bucket),
        );
        zero.insert(
            "stage3_max_live_parameters".into(),
            elements(sizes.max_live_parameters),
        );
    }
    let device = match runtime.offload_device {
        OffloadDevice::Cpu => json!({ "device": "cpu", "pin_memory": true }),
        OffloadDevice::Nvme => {
            json!({ "device": "nvme", "nvme_path": "/local_nvme", "pin_memory": true })
        }
    };
    let offload = runtime.offload.under(config.highlight);
    if offload != Offload::None {
        zero.insert("offload_optimizer".into(), device.clone());
    }
    if offload == Offload::All {
        zero.insert("offload_param".into(), device);
    }
    // DeepSpeed shards in groups no more: MiCS is gone ("MiCS ZeRO-3
    // sharding has been removed; 'zero_optimization.mics_shard_size' is no
    // longer supported", `_REMOVED_ZERO_CONFIG_KEYS` in
    // `deepspeed/runtime/config.py`, DeepSpeed 0.19.8), and ZeRO++'s hpZ
    // groups the weights' secondary copy only, not the states the page
    // shards in groups.
    if runtime.shard_group.is_some() {
        return Err(Refusal::ShardGroup);
    }
    Ok(Value::Object(zero))
}
