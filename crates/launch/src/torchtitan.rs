//! torchtitan's job TOML, in the names of `torchtitan/config/job_config.py`
//! of torchtitan 0.2.x (0.2.2 is the last release that reads a job TOML:
//! 0.3.0 takes Python config functions, and the text says so): the
//! parallel degrees (FSDP2 sharding, HSDP's replicas, TP, PP with its
//! stages, CP, EP and the experts' TP), how FSDP2 reshards (ZeRO-3 after
//! every forward, ZeRO-2 never), CPU offload, activation checkpointing,
//! FP8 (float8 per tensor, MXFP8) and the batch.

use super::{batch, full_training_model, launch_line, Refusal, Target};
use vram_core::config::Config;
use vram_core::frameworks::deepspeed::Offload;
use vram_core::frameworks::runtime::{OffloadDevice, Sharding};
use vram_core::memory::activations::{Loss, Recompute, RecomputeMethod, RecomputeModules};
use vram_core::memory::parallel::{CpComm, ExpertTp};
use vram_core::memory::{Fp8Recipe, Optimizer, Precision, Strategy};

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
    // torchtitan's flavors build no multi-token-prediction layer.
    if model.architecture.mtp_layers > 0 {
        return Err(Refusal::Architecture);
    }
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
    // FP8: torchao's float8 scales each tensor from its own amax
    // (`recipe_name = "tensorwise"`; torchao has no delayed scaling, the
    // same bytes a value), MXFP8 is its `quantize.linear.mx` converter
    // (Blackwell; no FP8 all-gather there); torchtitan 0.2.2 has no
    // block-scaled FP8 (`Float8Linear.recipe_name` is tensorwise, rowwise or
    // rowwise_with_gw_hp).
    let fp8 = match (config.precision.is_fp8(), config.fp8_recipe) {
        (false, _) => None,
        (true, Fp8Recipe::Delayed | Fp8Recipe::Tensorwise) => Some(false),
        (true, Fp8Recipe::Mxfp8) if config.precision == Precision::Fp8 => Some(true),
        (true, _) => return Err(Refusal::Precision),
    };
    // torchtitan's context parallelism passes the keys and values around
    // the ring (its "alltoall" rotation, shard by shard as Megatron-LM's
    // p2p; "allgather" would hold them all); it has no Ulysses all-to-all
    // of the heads.
    if layout.cp > 1 && layout.cp_comm == CpComm::AllToAll {
        return Err(Refusal::ModelParallel);
    }
    // torchtitan's selective recomputation is per op or per layer; the
    // figures count its per-op policy as `recompute_modules=op`, and
    // Megatron-LM's modules as something it does not run.
    if model.recompute == Recompute::Selective
        && model.recompute_modules != RecomputeModules::PER_OP
    {
        return Err(Refusal::Recomputation);
    }
    let mut text = format!(
        "# {link}\n# {}\n# torchtitan 0.2.x's job TOML (0.2.2 is the last release to read one; 0.3 takes Python configs).\n",
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
    match fp8 {
        Some(false) => text.push_str("converters = [\"quantize.linear.float8\"]\n"),
        Some(true) => text.push_str("converters = [\"quantize.linear.mx\"]\n"),
        None => {}
    }
    text.push_str(&format!("\n[optimizer]\nname = \"{optimizer}\"\n"));
    // Under PP a step's local batch is cut into the pipeline's
    // micro-batches (`pipeline_parallel_microbatch_size`), as Megatron-LM
    // pipelines its accumulation steps; without PP each accumulation step
    // is a local batch.
    let local = match layout.pp {
        1 => b.micro,
        _ => b.micro * b.accumulation,
    };
    text.push_str(&format!(
        "\n[training]\nlocal_batch_size = {local}\nglobal_batch_size = {}\nseq_len = {}\nmixed_precision_param = \"{precision}\"\nmixed_precision_reduce = \"float32\"\nenable_cpu_offload = {offload}\n",
        b.global, model.seq_len
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
    if model.ep > 1 {
        // torchtitan's default is 1; the page's `etp=tp` splits the experts
        // as the layers ("etp = tp" or "etp = 1", `ParallelDims`).
        let etp = match layout.expert_tp {
            ExpertTp::AsTp => layout.tp,
            ExpertTp::One => 1,
        };
        text.push_str(&format!("expert_tensor_parallel_degree = {etp}\n"));
    }
    if layout.cp > 1 {
        text.push_str("context_parallel_rotate_method = \"alltoall\"\n");
    }
    if layout.pp > 1 {
        text.push_str(&pipeline_stages(config, model.architecture.layers, b.micro));
    }
    text.push_str(&checkpoint_section(&model));
    // The loss as the figures count it: compiled (`loss=compiled`, fused
    // kernels over the 16-bit logits; `loss=fused` counts the same compiled
    // loss with an fp32 copy kept, more than it holds), or torchtitan's
    // default, uncompiled over an fp32 copy (`loss=fp32`).
    if matches!(model.loss, Loss::Fused | Loss::Compiled) {
        text.push_str("\n[compile]\nenable = true\ncomponents = [\"loss\"]\n");
    }
    match fp8 {
        // The output layer stays in 16 bits, as Megatron-LM's and as
        // torchtitan's MX converter leaves it by default.
        Some(false) => text.push_str(&format!(
            "\n{}[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\nenable_fsdp_float8_all_gather = {}\nfilter_fqns = [\"output\"]\n",
            match config.fp8_recipe {
                Fp8Recipe::Delayed => "# torchao's float8 has no delayed scaling: it scales each tensor at each step (tensorwise), the same byte a value.\n",
                _ => "",
            },
            config.precision == Precision::Fp8Params
        )),
        Some(true) => text.push_str(
            "\n[quantize.linear.mx]\nrecipe_name = \"mxfp8_cublas\"\nfilter_fqns = [\"output\"]\n",
        ),
        None => {}
    }
    Ok(text)
}

/// The `[activation_checkpoint]` section: the recomputation as the figures
/// count it (per-op selective checkpointing is `op`; a Megatron-LM grouping
/// of full recomputation is said in a comment, torchtitan checkpointing
/// every layer).
fn checkpoint_section(model: &vram_core::config::ModelSpec) -> String {
    let mut text = String::new();
    let mode = match model.recompute {
        Recompute::None => "none",
        Recompute::Selective => "selective",
        Recompute::Full => "full",
    };
    text.push_str(&format!("\n[activation_checkpoint]\nmode = \"{mode}\"\n"));
    if model.recompute == Recompute::Selective {
        text.push_str("selective_ac_option = \"op\"\n");
    }
    let checkpointing = model.checkpointing;
    if model.recompute == Recompute::Full
        && (checkpointing.method != RecomputeMethod::Uniform || checkpointing.layers != 1)
    {
        text.push_str(&format!(
            "# torchtitan checkpoints every layer; the plan's {} recomputation of {} layers a group is Megatron-LM's.\n",
            match checkpointing.method {
                RecomputeMethod::Uniform => "uniform",
                RecomputeMethod::Block => "block",
            },
            checkpointing.layers
        ));
    }
    text
}

/// The pipeline's schedule, micro-batch and stages: each virtual stage
/// `layers` ÷ (PP × VPP) layers, the embedding and the output head counted
/// as none (`pipeline_llm` in `torchtitan/distributed/pipeline_parallel.py`
/// weighs each as one layer unless told otherwise), or where the stages
/// differ (uneven first and last stages, the embedding or the loss counted
/// in the split, a layout naming every stage) every stage's modules named,
/// in stage order (rank `r` holds stages `r`, `r + PP`, …, as Megatron-LM's
/// virtual stages).
fn pipeline_stages(config: &Config, layers: u32, micro: u32) -> String {
    let layout = config.runtime.layout;
    let schedule = match layout.vpp {
        1 => "1F1B",
        _ => "Interleaved1F1B",
    };
    let mut text = format!(
        "pipeline_parallel_schedule = \"{schedule}\"\npipeline_parallel_microbatch_size = {micro}\n"
    );
    if !layout.is_uneven() && !layout.chunks_may_differ() {
        text.push_str(&format!(
            "pipeline_parallel_layers_per_stage = {}\npipeline_parallel_first_stage_less_layers = 0\npipeline_parallel_last_stage_less_layers = 0\n",
            layers / (layout.pp * layout.vpp).max(1)
        ));
        return text;
    }
    let stages = layout.pp * layout.vpp;
    let mut parts = Vec::new();
    for stage in 0..stages {
        let (chunk, rank) = (stage / layout.pp, stage % layout.pp);
        let (start, count) = layout.chunk_span(chunk, rank, layers);
        let mut modules: Vec<String> = Vec::new();
        if stage == 0 {
            modules.push("\"tok_embeddings\"".into());
        }
        for layer in start..start + count {
            modules.push(format!("\"layers.{layer}\""));
        }
        if stage + 1 == stages {
            modules.push("\"norm\"".into());
            modules.push("\"output\"".into());
        }
        parts.push(format!("[{}]", modules.join(", ")));
    }
    text.push_str(&format!(
        "module_fqns_per_model_part = [{}]\n",
        parts.join(", ")
    ));
    text
}
