//! torchtitan's job TOML, in the names of `torchtitan/config/job_config.py`:
//! the parallel degrees (FSDP2 sharding, HSDP's replicas, TP, PP, CP, EP),
//! how FSDP2 reshards (ZeRO-3 after every forward, ZeRO-2 never), CPU
//! offload, activation checkpointing, float8 and the batch.

use super::{batch, full_training_model, launch_line, Refusal, Target};
use vram_core::config::Config;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::{OffloadDevice, Sharding};
use vram_core::memory::activations::Recompute;
use vram_core::memory::{Optimizer, Precision, Strategy};

/// torchtitan's model name and flavor of a preset it ships.
fn model_and_flavor(config: &Config) -> Option<(&'static str, &'static str)> {
    match config.model.and_then(|m| m.preset()).map(|p| p.id)? {
        "llama3-8b" | "llama3.1-8b" => Some(("llama3", "8B")),
        "llama3-70b" | "llama3.1-70b" => Some(("llama3", "70B")),
        "llama3.1-405b" => Some(("llama3", "405B")),
        "qwen3-0.6b" => Some(("qwen3", "0.6B")),
        "qwen3-8b" => Some(("qwen3", "8B")),
        "qwen3-32b" => Some(("qwen3", "32B")),
        "qwen3-30b-a3b" => Some(("qwen3", "30B-A3B")),
        "qwen3-235b-a22b" => Some(("qwen3", "235B-A22B")),
        "deepseek-v3" => Some(("deepseek_v3", "671B")),
        "llama4-scout" => Some(("llama4", "17bx16e")),
        _ => None,
    }
}

/// The TOML, after comments naming the link and the launch.
pub(super) fn job_toml(config: &Config, link: &str) -> Result<String, Refusal> {
    let model = full_training_model(config)?;
    let precision = match config.precision {
        Precision::Bf16 | Precision::Fp8 | Precision::Fp8Params => "bfloat16",
        Precision::Fp32 => "float32",
        Precision::Fp16 | Precision::Fp32Pure | Precision::Bf16Pure => {
            return Err(Refusal::Precision)
        }
    };
    let optimizer = match config.optimizer {
        Optimizer::Adam => "AdamW",
        _ => return Err(Refusal::Optimizer),
    };
    let layout = config.runtime.layout;
    let b = batch(config);
    // FSDP2's data-parallel mesh: replicas × shards.
    let (replicate, shard, reshard) = match config.highlight {
        Strategy::Ddp => (b.data_parallel, 1, None),
        Strategy::Zero1 => return Err(Refusal::Strategy(Strategy::Zero1)),
        Strategy::Zero3 if config.runtime.sharding != Sharding::Fsdp2 => {
            return Err(Refusal::DeepSpeedSharding)
        }
        Strategy::Zero2 | Strategy::Zero3 => {
            let group = config.runtime.shard_group.unwrap_or(b.data_parallel);
            if group == 0 || b.data_parallel % group != 0 {
                return Err(Refusal::ShardGroup);
            }
            let reshard = match config.highlight {
                Strategy::Zero2 => "never",
                _ => "always",
            };
            (b.data_parallel / group, group, Some(reshard))
        }
    };
    let offload = match config.runtime.offload.under(config.highlight) {
        Offload::None => false,
        Offload::Optimizer => return Err(Refusal::OptimizerOnlyOffload),
        Offload::All if config.runtime.offload_device == OffloadDevice::Nvme => {
            return Err(Refusal::NvmeOffload)
        }
        Offload::All => true,
    };
    let mut text = format!(
        "# {link}\n# {}\n",
        launch_line(config, Target::Torchtitan).unwrap_or_default()
    );
    text.push_str("\n[model]\n");
    match model_and_flavor(config) {
        Some((name, flavor)) => {
            text.push_str(&format!("name = \"{name}\"\nflavor = \"{flavor}\"\n"));
        }
        None => {
            let arch = model.architecture;
            text.push_str(&format!(
                "# torchtitan ships no flavor of this model: register one with {} layers, hidden {}, FFN {}, {} heads ({} KV), vocabulary {}.\nname = \"llama3\"\nflavor = \"custom\"\n",
                arch.layers, arch.hidden, arch.ffn, arch.heads, arch.kv_heads, arch.vocab
            ));
        }
    }
    if config.precision.is_fp8() {
        text.push_str("converters = [\"quantize.linear.float8\"]\n");
    }
    text.push_str(&format!("\n[optimizer]\nname = \"{optimizer}\"\n"));
    text.push_str(&format!(
        "\n[training]\nlocal_batch_size = {}\nglobal_batch_size = {}\nseq_len = {}\nmixed_precision_param = \"{precision}\"\nmixed_precision_reduce = \"float32\"\nenable_cpu_offload = {offload}\n",
        b.micro, b.global, model.seq_len
    ));
    text.push_str(&format!(
        "\n[parallelism]\ndata_parallel_replicate_degree = {replicate}\ndata_parallel_shard_degree = {shard}\n"
    ));
    if let Some(reshard) = reshard {
        text.push_str(&format!("fsdp_reshard_after_forward = \"{reshard}\"\n"));
    }
    text.push_str(&format!(
        "tensor_parallel_degree = {}\npipeline_parallel_degree = {}\ncontext_parallel_degree = {}\nexpert_parallel_degree = {}\n",
        layout.tp, layout.pp, layout.cp, model.ep
    ));
    if layout.pp > 1 {
        let schedule = match layout.vpp {
            1 => "1F1B",
            _ => "Interleaved1F1B",
        };
        text.push_str(&format!("pipeline_parallel_schedule = \"{schedule}\"\n"));
    }
    let mode = match model.recompute {
        Recompute::None => "none",
        Recompute::Selective => "selective",
        Recompute::Full => "full",
    };
    text.push_str(&format!("\n[activation_checkpoint]\nmode = \"{mode}\"\n"));
    if model.recompute == Recompute::Selective {
        text.push_str("selective_ac_option = \"op\"\n");
    }
    if config.precision.is_fp8() {
        text.push_str(&format!(
            "\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = {}\n",
            config.precision == Precision::Fp8Params
        ));
    }
    Ok(text)
}
