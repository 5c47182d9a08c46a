//! Every reader of `vram_launch::import` over arbitrary input (issue 66):
//! commands, configurations and scripts of the flags and settings each
//! reader knows and others, with values of every kind. Reading never
//! panics, what is read is accounted for (mapped, of no bearing or not
//! read), and the keys decode to figures or a refusal, never a panic; a
//! run's log read from the same text is put beside them without a panic.
//! Native only (proptest's random source is not built for wasm32).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use vram_launch::import::{import_launch, Imported};

/// Reads `text`, and when it is read, decodes its keys and computes every
/// job's figures; the log reader reads the same text beside them.
fn read_and_compute(text: &str) -> Option<Imported> {
    let imported = import_launch(text).ok()?;
    let config = vram_core::input::link::decode(&imported.query()).config;
    let _ = config.report();
    let _ = config.serve_report();
    if let Ok(log) = vram_launch::log::read_log(text) {
        let _ = vram_launch::log::compare(&config, &log);
    }
    Some(imported)
}

/// What a reader accounted for.
fn accounted(imported: &Imported) -> usize {
    imported.mapped.len() + imported.ignored.len() + imported.unread.len()
}

/// `count` pairs of a flag or setting from `names` and a value from `values`.
fn pairs(
    names: Vec<&'static str>,
    values: Vec<&'static str>,
    count: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
    proptest::collection::vec(
        (
            proptest::sample::select(names),
            proptest::sample::select(values),
        ),
        count,
    )
}

proptest! {
    /// vLLM's and SGLang's commands.
    #[test]
    fn any_engine_command_is_read_or_refused(
        engine in proptest::sample::select(vec!["vllm serve", "python3 -m sglang.launch_server"]),
        options in pairs(
            vec![
                "--tensor-parallel-size", "--tp", "--pp-size", "--data-parallel-size",
                "--dp", "--ep-size", "--enable-expert-parallel", "--max-model-len",
                "--context-length", "--gpu-memory-utilization", "--mem-fraction-static",
                "--kv-cache-memory-bytes", "--kv-cache-dtype", "--block-size",
                "--page-size", "--max-num-seqs", "--quantization", "--enforce-eager",
                "--port", "--model-path", "--swap-space", "--data-parallel-size-local",
            ],
            vec![
                "0", "1", "3", "8", "0.9", "-1", "1e30", "fp8", "auto", "awq",
                "4294967296", "meta-llama/Llama-3.1-8B-Instruct", "x",
            ],
            0..8,
        ),
    ) {
        let mut text = format!("{engine} meta-llama/Llama-3.1-8B-Instruct");
        for (flag, value) in &options {
            text.push_str(&format!(" {flag} {value}"));
        }
        let imported = read_and_compute(&text);
        prop_assert!(imported.is_some_and(|i| accounted(&i) >= options.len().min(1)), "{text}");
    }

    /// DeepSpeed's JSON; a JSON without DeepSpeed's sections is not read.
    #[test]
    fn any_deepspeed_configuration_is_read_or_refused(
        settings in pairs(
            vec![
                "fp16", "bf16", "train_batch_size", "train_micro_batch_size_per_gpu",
                "gradient_accumulation_steps", "optimizer", "zero_optimization",
                "data_types", "gradient_clipping", "scheduler", "sparse_attention",
                "tensor_parallel",
            ],
            vec![
                "0", "1", "3", "-1", "1e30", "\"auto\"", "true", "null", "[1, 2]",
                "{\"enabled\": true}", "{\"type\": \"SGD\", \"params\": {\"momentum\": 0.9}}",
                "{\"stage\": 3, \"offload_param\": {\"device\": \"nvme\"}, \"reduce_bucket_size\": -5}",
                "{\"stage\": 1, \"offload_param\": {\"device\": \"cpu\"}, \"cpu_offload\": true}",
                "{\"grad_accum_dtype\": \"fp32\"}", "{\"autotp_size\": 2}",
            ],
            1..8,
        ),
    ) {
        let body: Vec<String> = settings.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
        let text = format!("{{{}}}", body.join(", "));
        if let Some(imported) = read_and_compute(&text) {
            prop_assert!(accounted(&imported) >= 1, "{text}");
        }
    }

    /// Megatron-LM's arguments, bash's variables and arithmetic among them.
    #[test]
    fn any_megatron_arguments_are_read_or_refused(
        options in pairs(
            vec![
                "--hidden-size", "--ffn-hidden-size", "--num-attention-heads",
                "--num-query-groups", "--group-query-attention", "--kv-channels",
                "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                "--num-virtual-stages-per-pipeline-rank", "--context-parallel-size",
                "--expert-model-parallel-size", "--num-experts", "--moe-layer-freq",
                "--pipeline-model-parallel-layout", "--recompute-modules",
                "--num-distributed-optimizer-instances", "--fp8-format", "--optimizer",
                "--micro-batch-size", "--nproc_per_node", "--use-megatron-fsdp",
                "--data-parallel-sharding-strategy", "--swiglu", "--vocab-size",
                "--num-layers-per-virtual-pipeline-stage", "--unknown-flag",
            ],
            vec![
                "0", "1", "2", "3", "7", "8", "64", "-1", "1e30", "x", "hybrid", "sgd",
                "optim_grads", "'([0]*1+[1]*3)'", "Et*4|t*4L", "$UNSET", "${ARR[@]}",
                "$((2*4))", "$((1/0))",
            ],
            0..10,
        ),
    ) {
        let mut text = String::from("torchrun pretrain_gpt.py --num-layers 8 --hidden-size 512 --num-attention-heads 8");
        for (flag, value) in &options {
            text.push_str(&format!(" {flag} {value}"));
        }
        prop_assert!(read_and_compute(&text).is_some(), "{text}");
    }

    /// torchtitan's job TOML, each setting once.
    #[test]
    fn any_torchtitan_job_is_read_or_refused(
        settings in pairs(
            vec![
                "local_batch_size", "global_batch_size", "seq_len",
                "data_parallel_replicate_degree", "data_parallel_shard_degree",
                "tensor_parallel_degree", "pipeline_parallel_degree",
                "context_parallel_degree", "expert_parallel_degree",
                "pipeline_parallel_layers_per_stage", "module_fqns_per_model_part",
                "fsdp_reshard_after_forward", "enable_cpu_offload", "other",
            ],
            vec![
                "0", "1", "2", "3", "8", "-1", "4294967296", "true", "\"never\"",
                "\"x\"", "[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\", \"output\"]]",
            ],
            0..8,
        ),
    ) {
        let mut text = String::from("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n");
        let mut seen = std::collections::HashSet::new();
        for (key, value) in &settings {
            if seen.insert(*key) {
                text.push_str(&format!("{key} = {value}\n"));
            }
        }
        prop_assert!(read_and_compute(&text).is_some(), "{text}");
    }
}
