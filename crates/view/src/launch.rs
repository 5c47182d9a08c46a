//! What the exports say when a framework cannot run the configuration
//! ([`vram_core::launch::Refusal`]), in both languages: the reason, and
//! where it can run.

use vram_core::config::job::Job;
use vram_core::launch::{Refusal, Target};
use vram_core::Strategy;

/// Why `target` cannot run the configuration, in Chinese when `zh`.
pub fn refusal(zh: bool, target: Target, refusal: Refusal) -> String {
    let name = target.label();
    let job = |job: Job| match (job, zh) {
        (Job::Train, false) => "training",
        (Job::Serve, false) => "serving",
        (Job::Rl, false) => "RL post-training",
        (Job::Train, true) => "训练",
        (Job::Serve, true) => "推理部署",
        (Job::Rl, true) => "强化学习后训练",
    };
    match (refusal, zh) {
        (Refusal::OtherJob { wants }, false) => {
            format!("{name}'s configuration is for {}: switch the job to it.", job(wants))
        }
        (Refusal::OtherJob { wants }, true) => {
            format!("{name} 的配置用于{}：请先切换到该任务。", job(wants))
        }
        (Refusal::Invalid, false) => {
            "The configuration has errors: fix the fields named on the page first.".into()
        }
        (Refusal::Invalid, true) => "配置有误：请先修正页面上标出的字段。".into(),
        (Refusal::NeedsModel, false) => format!(
            "{name} needs the model's architecture: pick a model or paste its config.json."
        ),
        (Refusal::NeedsModel, true) => {
            format!("{name} 需要模型结构：请选择模型或粘贴 config.json。")
        }
        (Refusal::ModelParallel, false) => format!(
            "{name}'s configuration runs data parallelism and ZeRO/FSDP only; tensor, pipeline, context or expert parallelism run under Megatron-LM or torchtitan."
        ),
        (Refusal::ModelParallel, true) => format!(
            "{name} 的配置只有数据并行与 ZeRO/FSDP；张量、流水线、上下文或专家并行请用 Megatron-LM 或 torchtitan。"
        ),
        (Refusal::Strategy(strategy), false) => format!(
            "{name} shards with FSDP2, which has no counterpart of {}: choose ZeRO-2 (never reshard) or ZeRO-3.",
            strategy_label(strategy)
        ),
        (Refusal::Strategy(strategy), true) => format!(
            "{name} 用 FSDP2 分片，没有与 {} 对应的做法：请选 ZeRO-2（前向后不重新分片）或 ZeRO-3。",
            strategy_label(strategy)
        ),
        (Refusal::Fsdp2, false) => {
            "FSDP2 shards this ZeRO-3 (sharding=fsdp2), not DeepSpeed: copy it as torchtitan or accelerate, or set sharding to DeepSpeed.".into()
        }
        (Refusal::Fsdp2, true) => {
            "这里的 ZeRO-3 由 FSDP2 分片（sharding=fsdp2），不是 DeepSpeed：请导出为 torchtitan 或 accelerate，或把分片方改为 DeepSpeed。".into()
        }
        (Refusal::DeepSpeedSharding, false) => format!(
            "{name} shards with FSDP2: set sharding to FSDP2 to plan what it runs."
        ),
        (Refusal::DeepSpeedSharding, true) => {
            format!("{name} 用 FSDP2 分片：请把分片方设为 FSDP2 再规划。")
        }
        (Refusal::OptimizerOnlyOffload, false) => format!(
            "{name} offloads with FSDP2's CPUOffloadPolicy, which moves parameters, gradients and optimizer states together: choose offload=all, or DeepSpeed."
        ),
        (Refusal::OptimizerOnlyOffload, true) => format!(
            "{name} 用 FSDP2 的 CPUOffloadPolicy 卸载，参数、梯度和优化器状态一起移走：请选“全部卸载”，或改用 DeepSpeed。"
        ),
        (Refusal::ParameterOffload, false) => format!(
            "{name} offloads the optimizer only (--optimizer-cpu-offload), not the parameters: choose offload=optimizer, or DeepSpeed's ZeRO-3."
        ),
        (Refusal::ParameterOffload, true) => format!(
            "{name} 只能卸载优化器（--optimizer-cpu-offload），不能卸载参数：请选“卸载优化器”，或用 DeepSpeed ZeRO-3。"
        ),
        (Refusal::NvmeOffload, false) => {
            format!("Only DeepSpeed (ZeRO-Infinity) offloads to NVMe; {name} offloads to CPU memory.")
        }
        (Refusal::NvmeOffload, true) => {
            format!("只有 DeepSpeed（ZeRO-Infinity）能卸载到 NVMe；{name} 只能卸载到 CPU 内存。")
        }
        (Refusal::Precision, false) => format!(
            "{name} does not train in this precision: torchtitan trains in BF16 or FP32, DeepSpeed's JSON has no FP8 and keeps an fp32 master copy, Megatron-LM keeps one too."
        ),
        (Refusal::Precision, true) => format!(
            "{name} 不支持这种精度：torchtitan 只用 BF16 或 FP32，DeepSpeed 的 JSON 没有 FP8 且保留 fp32 主权重，Megatron-LM 也保留主权重。"
        ),
        (Refusal::Optimizer, false) => format!(
            "{name} does not build this optimizer: Megatron-LM has Adam and SGD, torchtitan AdamW, DeepSpeed's JSON no 8-bit Adam (pass bitsandbytes' as the client optimizer)."
        ),
        (Refusal::Optimizer, true) => format!(
            "{name} 不提供这个优化器：Megatron-LM 只有 Adam 与 SGD，torchtitan 只有 AdamW，DeepSpeed 的 JSON 没有 8-bit Adam（可把 bitsandbytes 的优化器作为客户端优化器传入）。"
        ),
        (Refusal::Adapters, false) => format!(
            "{name} does not train LoRA or QLoRA adapters: copy it as accelerate (PEFT)."
        ),
        (Refusal::Adapters, true) => {
            format!("{name} 不训练 LoRA/QLoRA 适配器：请导出为 accelerate（PEFT）。")
        }
        (Refusal::Autocast, false) => format!(
            "{name}'s configuration has no autocast over fp32 weights: turn autocast off, or copy it as accelerate."
        ),
        (Refusal::Autocast, true) => format!(
            "{name} 的配置无法表达 fp32 权重上的 autocast：请关闭 autocast，或导出为 accelerate。"
        ),
        (Refusal::ShardGroup, false) => format!(
            "{name} cannot shard in groups with this strategy: DeepSpeed's MiCS is ZeRO-3's, HSDP is FSDP2's, Megatron-LM's is its distributed optimizer's."
        ),
        (Refusal::ShardGroup, true) => format!(
            "{name} 在这个策略下不能分组分片：DeepSpeed 的 MiCS 属于 ZeRO-3，HSDP 属于 FSDP2，Megatron-LM 的分组属于分布式优化器。"
        ),
        (Refusal::Architecture, false) => format!(
            "{name}'s arguments cannot express this architecture (biases on the attention's projections alone)."
        ),
        (Refusal::Architecture, true) => {
            format!("{name} 的参数无法表达这种结构（只有注意力投影带偏置）。")
        }
        (Refusal::Algorithm, false) => format!(
            "{name} does not run this algorithm here: TRL's PPO trainer is experimental (trl.experimental) and TRL trains no critic beside GRPO; copy it as verl or OpenRLHF."
        ),
        (Refusal::Algorithm, true) => format!(
            "{name} 不支持这个算法：TRL 的 PPO 仍在 trl.experimental 中，GRPO 也不训练 critic；请导出为 verl 或 OpenRLHF。"
        ),
        (Refusal::OtherEngine, false) => format!(
            "The deployment is planned for another engine: set the engine to {name} for its figures and its command."
        ),
        (Refusal::OtherEngine, true) => {
            format!("当前部署按另一个推理引擎计算：请把引擎设为 {name}，得到它的数字和命令。")
        }
        (Refusal::Dpo, false) => format!(
            "{name}'s main_ppo trains from rollouts only, not DPO: copy it as OpenRLHF or TRL."
        ),
        (Refusal::Dpo, true) => {
            format!("{name} 的 main_ppo 只从 rollout 训练，不做 DPO：请导出为 OpenRLHF 或 TRL。")
        }
        (Refusal::Distillation, false) => match target {
            Target::Verl => format!(
                "{name} serves the teacher from an inference pool of its own (distillation.*, returning top-k log-probs), not held in the trainer as this plan counts it: copy it as TRL."
            ),
            _ => format!(
                "{name} removed its knowledge-distillation trainer in v0.10 (train_kd ran up to v0.9.5): copy it as TRL."
            ),
        },
        (Refusal::Distillation, true) => match target {
            Target::Verl => format!(
                "{name} 的教师模型由独立的推理资源池提供（distillation.*，返回 top-k log-prob），不像本方案那样放在训练进程里：请导出为 TRL。"
            ),
            _ => format!(
                "{name} 在 v0.10 移除了知识蒸馏训练器（train_kd 只到 v0.9.5）：请导出为 TRL。"
            ),
        },
        (Refusal::SplitPlacement, false) => format!(
            "{name} gives the rollout GPUs of its own only off-policy (its one-step-off and fully asynchronous trainers), not in main_ppo's synchronous step: copy it as OpenRLHF or TRL."
        ),
        (Refusal::SplitPlacement, true) => format!(
            "{name} 只在异步（one-step-off、fully async）训练中让 rollout 独占 GPU，main_ppo 的同步步骤不支持：请导出为 OpenRLHF 或 TRL。"
        ),
    }
}

fn strategy_label(strategy: Strategy) -> &'static str {
    strategy.label()
}

/// What `nvidia-smi` will show for the highlighted strategy: its peak and
/// what the process holds beside it, each term named, and whether the
/// share held back covers them; in Chinese when `zh`
/// ([`vram_core::process`]). `None` for the lesson's view (no
/// GPU and no model chosen), whose 20 % held back stands for all of it.
pub fn process_line(
    zh: bool,
    config: &vram_core::Config,
    report: &vram_core::Report,
) -> Option<String> {
    if config.gpu.is_none() && config.model.is_none() {
        return None;
    }
    use vram_core::format::format_bytes;
    use vram_core::Bytes;
    let o = config.process_overheads(report);
    let unit = report.unit;
    let b = |v: u64| format_bytes(Bytes::new(v as f64), unit);
    let strategy = report.highlight.label();
    let beside = o.nvidia_smi_bytes.saturating_sub(o.peak_bytes);
    let held_back = report.budget.gpu_memory().get() - report.budget.usable().get();
    let verdict = match (report.highlighted().fits, beside as f64 <= held_back) {
        (false, _) => 0,
        (true, true) => 1,
        (true, false) => 2,
    };
    let percent =
        vram_core::decimal::shortest_decimal((o.allocator_slack_fraction * 1000.0).round() / 10.0);
    let process = config.runtime.process;
    let slack_source = match (
        process.allocator_slack.is_some(),
        process.expandable_segments,
    ) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    Some(if zh {
        format!(
            "nvidia-smi 将显示（{strategy}）：约 {}：峰值 {}，另有 CUDA 上下文 {}、NCCL 缓冲 {}（{} 个通信组）、cuBLAS 工作区 {}、缓存分配器余量 {}（峰值的 {percent} %{}）。{}",
            b(o.nvidia_smi_bytes),
            b(o.peak_bytes),
            b(o.cuda_context_bytes),
            b(o.nccl_bytes),
            o.nccl_communicators,
            b(o.cublas_workspace_bytes),
            b(o.allocator_slack_bytes),
            ["，实测值", "，已开启 expandable_segments", "；开启 expandable_segments 约 5 %"][slack_source],
            ["峰值本身已放不下。", "预留的份额足以容纳这些开销。", "这些开销超出了预留的份额。"][verdict]
        )
    } else {
        format!(
            "What nvidia-smi will show ({strategy}): about {}: the peak {}, and beside it the CUDA context {}, NCCL's buffers {} ({} communicator{}), cuBLAS's workspace {}, the caching allocator's slack {} ({percent} % of the peak{}). {}",
            b(o.nvidia_smi_bytes),
            b(o.peak_bytes),
            b(o.cuda_context_bytes),
            b(o.nccl_bytes),
            o.nccl_communicators,
            if o.nccl_communicators == 1 { "" } else { "s" },
            b(o.cublas_workspace_bytes),
            b(o.allocator_slack_bytes),
            [
                ", as measured",
                ", with expandable_segments",
                "; about 5 % with expandable_segments"
            ][slack_source],
            [
                "The peak alone does not fit.",
                "The share held back covers them.",
                "They exceed the share held back."
            ][verdict]
        )
    })
}

/// A node's host RAM while its processes load the checkpoint, and why
/// ([`vram_core::frameworks::loading`]); against the node's host memory
/// when given. `None` where [`process_line`] is.
pub fn loading_line(
    zh: bool,
    config: &vram_core::Config,
    report: &vram_core::Report,
) -> Option<String> {
    use vram_core::format::format_bytes;
    use vram_core::frameworks::loading::Loader;
    use vram_core::Bytes;
    if config.gpu.is_none() && config.model.is_none() {
        return None;
    }
    let l = config.checkpoint_loading(report);
    let b = |v: u64| format_bytes(Bytes::new(v as f64), report.unit);
    let why = match (l.loader, l.private_bytes > 0) {
        (Loader::PerRank, false) => 0,
        (Loader::PerRank, true) => 1,
        (Loader::Zero3Init, _) => 2,
        (Loader::Fsdp2RamEfficient, _) => 3,
        (Loader::DistributedCheckpoint, _) => 4,
    };
    let over = config
        .runtime
        .host_mem_gb
        .filter(|&gb| l.host_bytes_per_node as f64 > gb * 1e9);
    Some(if zh {
        let why = [
            "各进程映射同一文件，不另行复制",
            "每个进程把权重转成 fp32，各自一份",
            "ZeRO-3 的 zero.Init 下每个进程只建自己的分片",
            "FSDP2 的 cpu_ram_efficient_loading：rank 0 的 fp32 可训练权重，以及 transformers 5 在其余进程上填零的 16 位副本",
            "分布式检查点：每个进程只读自己的分片",
        ][why];
        let over = over.map_or(String::new(), |gb| {
            format!(" 超出每节点 {} 的主机内存。", b((gb * 1e9) as u64))
        });
        let private = match l.private_bytes {
            0 => "，无私有副本".to_string(),
            bytes => format!("，进程私有副本 {}", b(bytes)),
        };
        format!(
            "加载检查点（16 位 safetensors，transformers 5）时每节点主机内存约 {}：映射的文件 {}（页缓存，节点内进程共享）{private}（{why}）。{over}",
            b(l.host_bytes_per_node),
            b(l.page_cache_bytes),
        )
    } else {
        let why = [
            "every process maps the same file and copies none of it",
            "each process casts the weights to fp32, a copy each",
            "under ZeRO-3's zero.Init each process builds only its partition",
            "FSDP2's cpu_ram_efficient_loading: rank 0's fp32 trainable weights, and the 16-bit copies transformers 5 fills with zeros on the other ranks",
            "a distributed checkpoint: each rank reads only its shards",
        ][why];
        let over = over.map_or(String::new(), |gb| {
            format!(
                " More than the node's {} of host memory.",
                b((gb * 1e9) as u64)
            )
        });
        let private = match l.private_bytes {
            0 => String::new(),
            bytes => format!(" and {} of their own copies", b(bytes)),
        };
        format!(
            "Loading the checkpoint (16-bit safetensors, transformers 5): about {} of host RAM per node: the file mapped once {} (page cache, shared by the node's processes){private} ({why}).{over}",
            b(l.host_bytes_per_node),
            b(l.page_cache_bytes),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama 2 7B under ZeRO-1 on 8 H100s: the peak and each term, in both
    /// languages; none on the lesson's bare view.
    #[test]
    fn the_nvidia_smi_line() {
        let config =
            vram_core::input::link::decode("v=2&model=llama2-7b&gpu=h100-80gb&stage=1").config;
        let report = config.report().unwrap();
        let o = config.process_overheads(&report);
        let en = process_line(false, &config, &report).unwrap();
        let zh = process_line(true, &config, &report).unwrap();
        let gb = |v: u64| {
            vram_core::format::format_bytes(
                vram_core::Bytes::new(v as f64),
                vram_core::format::MemoryUnit::Gb,
            )
        };
        for line in [&en, &zh] {
            assert!(line.contains(&gb(o.nvidia_smi_bytes)), "{line}");
            assert!(line.contains(&gb(o.peak_bytes)), "{line}");
            assert!(line.contains("0.537 GB"), "{line}");
        }
        assert!(en.ends_with("The share held back covers them."), "{en}");
        assert!(zh.ends_with("预留的份额足以容纳这些开销。"), "{zh}");
        // Loading: every rank maps the 13.48 GB file, none copies it.
        let loading = loading_line(false, &config, &report).unwrap();
        assert!(
            loading.starts_with("Loading the checkpoint (16-bit safetensors, transformers 5): about 13.48 GB of host RAM per node: the file mapped once 13.48 GB (page cache, shared by the node's processes) (every process"),
            "{loading}"
        );
        assert!(loading_line(true, &config, &report)
            .unwrap()
            .contains("13.48 GB"));
        // FSDP2 on the same node: rank 0's fp32 copy and seven zero-filled ones.
        let fsdp2 = vram_core::input::link::decode(
            "v=2&model=llama2-7b&gpu=h100-80gb&stage=3&sharding=fsdp2&host_mem=128",
        )
        .config;
        let line = loading_line(false, &fsdp2, &fsdp2.report().unwrap()).unwrap();
        assert!(
            line.contains("about 134.77 GB of host RAM per node"),
            "{line}"
        );
        assert!(
            line.ends_with("More than the node's 128 GB of host memory."),
            "{line}"
        );
        // Expandable segments: 5 % of the peak, said so.
        let expandable = vram_core::input::link::decode(
            "v=2&model=llama2-7b&gpu=h100-80gb&stage=1&expandable=1",
        )
        .config;
        let line = process_line(false, &expandable, &expandable.report().unwrap()).unwrap();
        assert!(
            line.contains("(5 % of the peak, with expandable_segments)"),
            "{line}"
        );
        let lesson = vram_core::Config::default();
        assert_eq!(
            process_line(false, &lesson, &lesson.report().unwrap()),
            None
        );
    }
}
