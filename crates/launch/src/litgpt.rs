//! LitGPT's command line (`litgpt finetune_lora` or `finetune_full`), in
//! the names of its `setup` functions (`litgpt/finetune/lora.py`,
//! `litgpt/finetune/full.py`) and `TrainArgs` (`litgpt/args.py`), LitGPT
//! 0.4.13: the run the page counts under `framework=litgpt` (its own
//! `GPT`, `--precision bf16-true`). One GPU runs it as it stands (Fabric's
//! `strategy="auto"`); more run FSDP with each `Block` wrapped and
//! checkpointed (`FSDPStrategy(auto_wrap_policy={Block},
//! activation_checkpointing_policy={Block})`), which is the page's ZeRO-3
//! with full recomputation; QLoRA runs on one GPU only (`setup` raises
//! "Quantization is currently not supported for multi-GPU training").

use super::{batch, hf_repo, Refusal};
use vram_core::config::Config;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::hf::Framework;
use vram_core::memory::activations::Recompute;
use vram_core::memory::finetune::{AdapterDtype, BnbRelease, Method, Quant, Targets};
use vram_core::memory::{Optimizer, Strategy};

/// The command, after comments naming the link and the download.
pub(super) fn finetune_command(config: &Config, link: &str) -> Result<String, Refusal> {
    let model = config.model.ok_or(Refusal::NeedsModel)?;
    if model.framework != Framework::LitGpt {
        return Err(Refusal::Accounting);
    }
    let layout = config.runtime.layout;
    if layout.tp > 1 || layout.pp > 1 || layout.cp > 1 || model.ep > 1 {
        return Err(Refusal::ModelParallel);
    }
    if config.optimizer != Optimizer::Adam {
        return Err(Refusal::Optimizer);
    }
    match config.runtime.offload.under(config.highlight) {
        Offload::None => {}
        Offload::Optimizer => return Err(Refusal::OptimizerOnlyOffload),
        Offload::All => return Err(Refusal::ParameterOffload),
    }
    let devices = config.gpus;
    let nodes = config.runtime.nodes;
    let sharded = devices * nodes > 1;
    // FSDP checkpoints every block; one GPU checkpoints none.
    let recompute = match sharded {
        true => Recompute::Full,
        false => Recompute::None,
    };
    if model.recompute != recompute {
        return Err(Refusal::Recomputation);
    }
    if sharded && config.highlight != Strategy::Zero3 {
        return Err(Refusal::Strategy(config.highlight));
    }
    if sharded && config.runtime.shard_group.is_some() {
        return Err(Refusal::ShardGroup);
    }
    let t = config.fine_tuning;
    let script = match t.method {
        Method::Full => "finetune_full",
        Method::Lora | Method::Qlora => "finetune_lora",
    };
    let repo = hf_repo(config);
    // A preset's repository, downloaded into `checkpoints/`; a custom
    // architecture's own converted checkpoint, where it lies.
    let (checkpoint, download) = match repo.starts_with('/') {
        true => (repo.to_string(), None),
        false => (format!("checkpoints/{repo}"), Some(repo)),
    };
    let b = batch(config);
    let mut lines = vec![
        format!("litgpt {script} {checkpoint}"),
        "--precision bf16-true".to_string(),
    ];
    if t.method == Method::Qlora {
        if sharded {
            return Err(Refusal::QuantizedMultiGpu);
        }
        let quantize = match (t.quant, t.double_quant) {
            (Quant::Nf4, false) => "bnb.nf4",
            (Quant::Nf4, true) => "bnb.nf4-dq",
            (Quant::Int8, _) => "bnb.int8-training",
        };
        lines.push(format!("--quantize {quantize}"));
    }
    lines.push(format!("--devices {devices}"));
    if nodes > 1 {
        lines.push(format!("--num_nodes {nodes}"));
    }
    if t.method != Method::Full {
        // LitGPT's adapters take the model's dtype (Fabric's bf16-true
        // converts the whole module).
        if t.adapter_dtype != AdapterDtype::Model {
            return Err(Refusal::Precision);
        }
        let (query, key, value, projection, mlp) = match t.targets {
            Targets::Qv => (true, false, true, false, false),
            Targets::Attn => (true, true, true, true, false),
            Targets::Mlp => (false, false, false, false, true),
            Targets::All => (true, true, true, true, true),
        };
        lines.push(format!("--lora_r {}", t.rank));
        lines.push(format!("--lora_dropout {}", t.lora_dropout));
        lines.push(format!(
            "--lora_query {query} --lora_key {key} --lora_value {value}"
        ));
        lines.push(format!(
            "--lora_projection {projection} --lora_mlp {mlp} --lora_head false"
        ));
    }
    lines.push(format!("--train.micro_batch_size {}", b.micro));
    // LitGPT 0.4.13 divides the global batch by the devices of one node
    // (`TrainArgs.batch_size(devices)`), not by every node's: the batch one
    // node's ranks take between optimizer steps, so that the nodes together
    // take the plan's.
    lines.push(format!(
        "--train.global_batch_size {}",
        b.global / nodes.max(1)
    ));
    lines.push(format!("--train.max_seq_length {}", model.seq_len));
    lines.push("--optimizer AdamW".to_string());
    let mut text = format!("# {link}\n");
    if t.method == Method::Qlora && t.bnb == BnbRelease::Before0432 {
        text.push_str("# pip install \"bitsandbytes<=0.43.1\"\n");
    }
    if let Some(repo) = download {
        text.push_str(&format!("# litgpt download {repo}\n"));
    }
    text.push_str(&lines.join(" \\\n  "));
    text.push('\n');
    Ok(text)
}
