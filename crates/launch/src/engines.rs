//! The serving engines' command lines, with every setting the page's
//! figures assumed written out (the engine's default included), so the
//! engine starts with the budget the page computed: `vllm serve` in the
//! names of `vllm/engine/arg_utils.py` (vLLM 0.20) and SGLang's
//! `launch_server` in those of `sglang/srt/server_args.py`.

use super::{hf_repo, Refusal};
use vram_core::config::Config;
use vram_core::decimal::shortest_decimal;
use vram_core::serve::kv_cache::KvCacheDtype;
use vram_core::serve::options::Engine;
use vram_core::serve::report::ServeReport;
use vram_core::serve::weights::WeightFormat;

/// The checkpoint a weight format is served from, when it is not the
/// 16-bit one quantised at load: a comment, the engine reads the format
/// from its `quantization_config`.
fn checkpoint_note(weights: WeightFormat) -> Option<&'static str> {
    match weights {
        WeightFormat::Bf16 | WeightFormat::Fp8 | WeightFormat::Nf4 => None,
        WeightFormat::Fp8Block => Some("a block-scaled FP8 checkpoint"),
        WeightFormat::Int8 => Some("an INT8 (W8A8) checkpoint"),
        WeightFormat::Int4 { .. } => Some("an AWQ or GPTQ INT4 checkpoint"),
        WeightFormat::Mxfp4 => Some("the MXFP4 checkpoint"),
        WeightFormat::Nvfp4 => Some("an NVFP4 checkpoint"),
    }
}

/// One line of a shell command continued with `\`.
fn command(head: String, args: Vec<String>) -> String {
    let mut text = head;
    for arg in args {
        text.push_str(" \\\n    ");
        text.push_str(&arg);
    }
    text.push('\n');
    text
}

/// The deployment's figures where `config` serves on `engine`; else why
/// its command cannot be written.
fn report_on(config: &Config, engine: Engine) -> Result<ServeReport, Refusal> {
    if config.serve.engine != engine {
        return Err(Refusal::OtherEngine);
    }
    config.serve_report().map_err(|_| Refusal::Invalid)
}

/// The quantisation an engine applies at load to the 16-bit checkpoint for
/// `weights` (FP8, or NF4 through bitsandbytes): the same option in vLLM and
/// SGLang.
fn load_quantization(weights: WeightFormat) -> Option<String> {
    match weights {
        WeightFormat::Fp8 => Some("--quantization fp8".into()),
        WeightFormat::Nf4 => Some("--quantization bitsandbytes".into()),
        _ => None,
    }
}

/// An engine's launch as the page writes it: `link` in a comment, the
/// checkpoint `weights` are served from where `engine` reads their format
/// from it, then the command `head` with `args`.
fn launch_text(
    link: &str,
    weights: WeightFormat,
    engine: &str,
    head: String,
    args: Vec<String>,
) -> String {
    let mut text = format!("# {link}\n");
    if let Some(note) = checkpoint_note(weights) {
        text.push_str(&format!(
            "# Serve {note}: {engine} reads its format from the checkpoint.\n"
        ));
    }
    text.push_str(&command(head, args));
    text
}

/// `vllm serve`.
pub(super) fn vllm_serve(config: &Config, link: &str) -> Result<String, Refusal> {
    let report = report_on(config, Engine::Vllm)?;
    let serve = &config.serve;
    let mut args = vec![
        format!("--tensor-parallel-size {}", report.layout.tp),
        format!("--pipeline-parallel-size {}", report.layout.pp),
    ];
    if report.replicas > 1 {
        args.push(format!("--data-parallel-size {}", report.replicas));
    }
    if report.layout.ep > 1 {
        args.push("--enable-expert-parallel".into());
    }
    args.push(format!("--max-model-len {}", report.max_model_len));
    match serve.kv_memory_gb {
        Some(gb) => args.push(format!(
            "--kv-cache-memory-bytes {}",
            (gb * 1e9).round() as u64
        )),
        None => args.push(format!(
            "--gpu-memory-utilization {}",
            shortest_decimal(report.gpu_util)
        )),
    }
    if serve.kv_dtype == KvCacheDtype::Fp8 {
        args.push("--kv-cache-dtype fp8".into());
    }
    args.push(format!("--block-size {}", report.block_size));
    args.push(format!(
        "--max-num-batched-tokens {}",
        report.batched_tokens
    ));
    args.push(format!("--max-num-seqs {}", report.max_num_seqs));
    args.extend(load_quantization(serve.weights));
    if !serve.cuda_graphs {
        args.push("--enforce-eager".into());
    }
    let head = format!("vllm serve {}", hf_repo(config));
    Ok(launch_text(link, serve.weights, "vLLM", head, args))
}

/// SGLang's `launch_server`.
pub(super) fn sglang_launch(config: &Config, link: &str) -> Result<String, Refusal> {
    let report = report_on(config, Engine::Sglang)?;
    let serve = &config.serve;
    let mut args = vec![
        format!("--model-path {}", hf_repo(config)),
        format!("--tp-size {}", report.layout.tp),
        format!("--pp-size {}", report.layout.pp),
    ];
    if report.replicas > 1 {
        args.push(format!("--dp-size {}", report.replicas));
    }
    if report.layout.ep > 1 {
        args.push(format!("--ep-size {}", report.layout.ep));
    }
    args.push(format!("--context-length {}", report.max_model_len));
    args.push(format!(
        "--mem-fraction-static {}",
        shortest_decimal(report.gpu_util)
    ));
    if serve.kv_dtype == KvCacheDtype::Fp8 {
        args.push("--kv-cache-dtype fp8_e4m3".into());
    }
    args.push(format!("--page-size {}", report.block_size));
    args.push(format!("--chunked-prefill-size {}", report.batched_tokens));
    args.push(format!("--max-running-requests {}", report.max_num_seqs));
    args.extend(load_quantization(serve.weights));
    if !serve.cuda_graphs {
        args.push("--disable-cuda-graph".into());
    }
    let head = "python3 -m sglang.launch_server".into();
    Ok(launch_text(link, serve.weights, "SGLang", head, args))
}
