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

/// `vllm serve`.
pub(super) fn vllm_serve(config: &Config, link: &str) -> Result<String, Refusal> {
    if config.serve.engine != Engine::Vllm {
        return Err(Refusal::OtherEngine);
    }
    let report = config.serve_report().map_err(|_| Refusal::Invalid)?;
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
    match serve.weights {
        WeightFormat::Fp8 => args.push("--quantization fp8".into()),
        WeightFormat::Nf4 => args.push("--quantization bitsandbytes".into()),
        _ => {}
    }
    if !serve.cuda_graphs {
        args.push("--enforce-eager".into());
    }
    let mut text = format!("# {link}\n");
    if let Some(note) = checkpoint_note(serve.weights) {
        text.push_str(&format!(
            "# Serve {note}: vLLM reads its format from the checkpoint.\n"
        ));
    }
    text.push_str(&command(format!("vllm serve {}", hf_repo(config)), args));
    Ok(text)
}

/// SGLang's `launch_server`.
pub(super) fn sglang_launch(config: &Config, link: &str) -> Result<String, Refusal> {
    if config.serve.engine != Engine::Sglang {
        return Err(Refusal::OtherEngine);
    }
    let report = config.serve_report().map_err(|_| Refusal::Invalid)?;
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
    match serve.weights {
        WeightFormat::Fp8 => args.push("--quantization fp8".into()),
        WeightFormat::Nf4 => args.push("--quantization bitsandbytes".into()),
        _ => {}
    }
    if !serve.cuda_graphs {
        args.push("--disable-cuda-graph".into());
    }
    let mut text = format!("# {link}\n");
    if let Some(note) = checkpoint_note(serve.weights) {
        text.push_str(&format!(
            "# Serve {note}: SGLang reads its format from the checkpoint.\n"
        ));
    }
    text.push_str(&command("python3 -m sglang.launch_server".into(), args));
    Ok(text)
}
