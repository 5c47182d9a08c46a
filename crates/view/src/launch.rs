//! What the exports say when a framework cannot run the configuration
//! ([`vram_launch::Refusal`]), in both languages: the reason, and
//! where it can run.

use crate::text::{fill, LAUNCH_EN, LAUNCH_ZH};
use vram_core::config::job::Job;
use vram_launch::{Refusal, Target};

/// Why `target` cannot run the configuration, in Chinese when `zh`: the
/// words of [`crate::text::LaunchText`], the framework's name and what the refusal names.
pub fn refusal(zh: bool, target: Target, refusal: Refusal) -> String {
    let t = launch_text(zh);
    let name = target.label();
    let job = |job: Job| match job {
        Job::Train => t.job_training,
        Job::Serve => t.job_serving,
        Job::Rl => t.job_rl,
    };
    match refusal {
        Refusal::OtherJob { wants } => fill(t.other_job, &[name, job(wants)]),
        Refusal::Invalid => fill(t.invalid, &[name]),
        Refusal::NeedsModel => fill(t.needs_model, &[name]),
        Refusal::ModelParallel => match target {
            Target::Verl => fill(t.model_parallel_verl, &[name]),
            Target::OpenRlhf | Target::Trl => fill(t.model_parallel_rl, &[name]),
            _ => fill(t.model_parallel, &[name]),
        },
        Refusal::Strategy(strategy) => fill(t.strategy, &[name, strategy.label()]),
        Refusal::Fsdp2 => fill(t.fsdp2, &[name]),
        Refusal::DeepSpeedSharding => fill(t.deep_speed_sharding, &[name]),
        Refusal::OptimizerOnlyOffload => fill(t.optimizer_only_offload, &[name]),
        Refusal::ParameterOffload => fill(t.parameter_offload, &[name]),
        Refusal::NvmeOffload => fill(t.nvme_offload, &[name]),
        Refusal::Precision => fill(t.precision, &[name]),
        Refusal::Optimizer => fill(t.optimizer, &[name]),
        Refusal::Adapters => match target.job() {
            Job::Rl => fill(t.adapters_rl, &[name]),
            _ => fill(t.adapters, &[name]),
        },
        Refusal::Autocast => fill(t.autocast, &[name]),
        Refusal::ShardGroup => fill(t.shard_group, &[name]),
        Refusal::Architecture => fill(t.architecture, &[name]),
        Refusal::Algorithm => fill(t.algorithm, &[name]),
        Refusal::OtherEngine => fill(t.other_engine, &[name]),
        Refusal::Dpo => fill(t.dpo, &[name]),
        Refusal::Distillation => match target {
            Target::Verl => fill(t.distillation_apart, &[name]),
            _ => fill(t.distillation_removed, &[name]),
        },
        Refusal::SplitPlacement => fill(t.split_placement, &[name]),
        Refusal::SplitValueModels => fill(t.split_value_models, &[name]),
        Refusal::ActorSharding => fill(t.actor_sharding, &[name]),
        Refusal::Recomputation => match target {
            Target::Torchtitan => fill(t.recomputation_modules, &[name]),
            Target::LitGpt => fill(t.recomputation_litgpt, &[name]),
            _ => fill(t.recomputation_per_op, &[name]),
        },
        Refusal::ChunkedLoss => fill(t.chunked_loss, &[name]),
        Refusal::ChunkedOutputLoss => fill(t.chunked_output_loss, &[name]),
        Refusal::CompiledLoss => fill(t.compiled_loss, &[name]),
        Refusal::Accounting => fill(t.accounting_litgpt, &[name]),
        Refusal::QuantizedMultiGpu => fill(t.quantized_multi_gpu, &[name]),
        Refusal::RewardModel => match target {
            Target::Verl => fill(t.reward_model_apart, &[name]),
            _ => fill(t.reward_model_funcs, &[name]),
        },
    }
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
    let b = bytes_text(config, report)?;
    let o = config.process_overheads(report);
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
    let t = launch_text(zh);
    let communicators = t.communicators[usize::from(o.nccl_communicators != 1)];
    Some(fill(
        t.process_line,
        &[
            strategy,
            &b(o.nvidia_smi_bytes),
            &b(o.peak_bytes),
            &b(o.cuda_context_bytes),
            &b(o.nccl_bytes),
            &o.nccl_communicators.to_string(),
            communicators,
            &b(o.cublas_workspace_bytes),
            &b(o.allocator_slack_bytes),
            &percent,
            t.slack_sources[slack_source],
            t.process_verdicts[verdict],
        ],
    ))
}

/// A node's host RAM while its processes load the checkpoint, and why
/// ([`vram_core::frameworks::loading`]); against the node's host memory
/// when given. `None` where [`process_line`] is, and under LitGPT's
/// accounting (LitGPT loads its own `lit_model.pth`, not transformers'
/// safetensors: its loader is not counted).
pub fn loading_line(
    zh: bool,
    config: &vram_core::Config,
    report: &vram_core::Report,
) -> Option<String> {
    use vram_core::frameworks::loading::Loader;
    if config
        .model
        .is_some_and(|m| m.framework == vram_core::frameworks::hf::Framework::LitGpt)
    {
        return None;
    }
    let b = bytes_text(config, report)?;
    let l = config.checkpoint_loading(report);
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
    let t = launch_text(zh);
    let over = over.map_or(String::new(), |gb| {
        fill(t.loading_over, &[&b((gb * 1e9) as u64)])
    });
    let private = match l.private_bytes {
        0 => t.loading_no_private.to_string(),
        bytes => fill(t.loading_private, &[&b(bytes)]),
    };
    Some(fill(
        t.loading_line,
        &[
            &b(l.host_bytes_per_node),
            &b(l.page_cache_bytes),
            &private,
            t.loaders[why],
            &over,
        ],
    ))
}

/// How [`process_line`] and [`loading_line`] write a count of bytes: in the
/// report's unit. `None` for the lesson's view (no GPU and no model chosen),
/// which says neither line.
fn bytes_text(
    config: &vram_core::Config,
    report: &vram_core::Report,
) -> Option<impl Fn(u64) -> String> {
    if config.gpu.is_none() && config.model.is_none() {
        return None;
    }
    let unit = report.unit;
    Some(move |bytes: u64| {
        vram_core::format::format_bytes(vram_core::Bytes::new(bytes as f64), unit)
    })
}

/// The launch words in Chinese when `zh`, else in English.
fn launch_text(zh: bool) -> &'static crate::text::LaunchText {
    match zh {
        true => &LAUNCH_ZH,
        false => &LAUNCH_EN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The English line that `line` writes for the link `query`, whose
    /// configuration must make a report and the line.
    fn english_line(
        line: fn(bool, &vram_core::Config, &vram_core::Report) -> Option<String>,
        query: &str,
    ) -> String {
        let config = vram_core::input::link::decode(query).config;
        line(false, &config, &config.report().unwrap()).unwrap()
    }

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
        let line = english_line(
            loading_line,
            "v=2&model=llama2-7b&gpu=h100-80gb&stage=3&sharding=fsdp2&host_mem=128",
        );
        assert!(
            line.contains("about 134.77 GB of host RAM per node"),
            "{line}"
        );
        assert!(
            line.ends_with("More than the node's 128 GB of host memory."),
            "{line}"
        );
        // Expandable segments: 5 % of the peak, said so.
        let line = english_line(
            process_line,
            "v=2&model=llama2-7b&gpu=h100-80gb&stage=1&expandable=1",
        );
        assert!(
            line.contains("(5 % of the peak, with expandable_segments)"),
            "{line}"
        );
        let lesson = vram_core::Config::default();
        assert_eq!(
            process_line(false, &lesson, &lesson.report().unwrap()),
            None
        );
        // LitGPT loads its own checkpoint: no line about transformers' loader.
        let litgpt = vram_core::input::link::decode(
            "v=3&model=llama2-7b&gpu=h100-80gb&gpus=1&dtype=bf16-pure&framework=litgpt",
        )
        .config;
        assert_eq!(
            loading_line(false, &litgpt, &litgpt.report().unwrap()),
            None
        );
    }
}
