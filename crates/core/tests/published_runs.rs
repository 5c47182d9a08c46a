//! The step's time held to published runs. With no efficiency typed (the
//! kernel model, issue 48): 18 runs from NeMo, Megatron-Bridge, NeMo
//! AutoModel, llm-foundry and Megatron-LM's README, and Narayanan's Table 1.
//! With a typed efficiency: Narayanan et al. 2021 ("Efficient
//! Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"),
//! Table 1, GPT models from 1.7 B parameters on 32 A100s to 1 T on 3,072, each
//! with its layout (TP, PP, DP) and global batch, sequence 2,048, vocabulary
//! 51,200, full recomputation, plain data parallelism.
//!
//! The efficiency model, stated once: the kernels reach a share of the A100's
//! 312 TFLOP/s that grows with the matrices' size, as the paper explains its
//! 44 → 52 % (§5.1): 0.48 at h = 2,304, + 0.053 per doubling of h. Micro-batch
//! 1 (the most microbatches, the paper's smallest bubble). With it the page's
//! step (compute of the slowest stage, bubble, TP/PP and DP traffic on
//! 300 GB/s NVLink and 25 GB/s InfiniBand per GPU) gives each row's achieved
//! TFLOP/s per GPU within 15 % (seen: −4 % to +9 %).

use vram_core::input::link::decode;

/// A row of Table 1: parameters in billions, heads, hidden, layers, TP, PP,
/// GPUs, batch, achieved TFLOP/s per GPU.
type Row = (f64, u32, u32, u32, u32, u32, u32, u32, f64);

/// Table 1.
const TABLE_1: [Row; 10] = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137.0),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138.0),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142.0),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135.0),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138.0),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140.0),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148.0),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155.0),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163.0),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163.0),
];

#[test]
fn narayanan_table_1_within_15_percent() {
    for (billions, heads, h, layers, tp, pp, gpus, batch, achieved) in TABLE_1 {
        let efficiency = 0.48 + 0.053 * (f64::from(h) / 2304.0).log2();
        let query = format!(
            "model=gpt3-175b&layers={layers}&hidden={h}&heads={heads}&kv_heads={heads}\
             &ffn={}&vocab=51200&seq=2048&flash=0&dropout=0.1&mbs=1&recompute=full&gpu=a100-80gb&gpus=8\
             &nodes={}&tp={tp}&pp={pp}&global_batch={batch}&stage=ddp&mfu={efficiency}",
            4 * h,
            gpus / 8
        );
        let decoded = decode(&query);
        assert!(
            decoded.problems.is_empty(),
            "{billions} B: {:?}",
            decoded.problems
        );
        // The table rounds its counts (1.65 B reads 1.7).
        let report = decoded.config.report().expect("a valid configuration");
        assert!(
            (report.setup.params().billions() / billions - 1.0).abs() < 0.04,
            "{billions} B: the architecture counts {}",
            report.setup.params().billions()
        );
        let step = report.highlighted().time.expect("a step time");
        let predicted = step.flops / (step.step_seconds * f64::from(gpus)) / 1e12;
        assert!(
            (predicted / achieved - 1.0).abs() < 0.15,
            "{billions} B: {predicted:.1} TFLOP/s per GPU against the paper's {achieved}"
        );
    }
}

/// A measured run: where it was published, the page's link for it (version
/// 2, no efficiency typed), and the tokens per second per GPU it measured
/// (for the Megatron-LM README's rows, the model TFLOP/s per GPU).
struct Run {
    source: &'static str,
    query: &'static str,
    measured: f64,
}

/// NVIDIA's Megatron-LM and NeMo runs use the distributed optimizer with
/// `overlap_grad_reduce` and `overlap_param_gather` on (their recipes'
/// defaults): `stage=1&overlap_grad=1&overlap_param=1`. llm-foundry's and
/// AutoModel's FSDP (full shard) is ZeRO-3 on PyTorch's FSDP2.
const RUNS: [Run; 18] = [
    // NVIDIA/NeMo docs/source/performance/performance_summary.md @8e3d65dc
    // (NeMo 24.07, DGX-H100, FP8, per-tensor scaling).
    Run { source: "NeMo 24.07: GPT3 175B, 128 H100, FP8", query: "model=gpt3-175b&gpu=h100-80gb&gpus=8&nodes=16&dtype=fp8&tp=4&sp=1&pp=8&vpp=6&seq=2048&global_batch=256&stage=1&overlap_grad=1&overlap_param=1", measured: 716.0 },
    Run { source: "NeMo 24.07: GPT3 175B, 512 H100, FP8", query: "model=gpt3-175b&gpu=h100-80gb&gpus=8&nodes=64&dtype=fp8&tp=4&sp=1&pp=8&vpp=6&seq=2048&mbs=2&global_batch=2048&stage=1&overlap_grad=1&overlap_param=1", measured: 825.0 },
    Run { source: "NeMo 24.07: Llama 2 7B, 8 H100, FP8", query: "model=llama2-7b&gpu=h100-80gb&gpus=8&dtype=fp8&seq=4096&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 16934.0 },
    Run { source: "NeMo 24.07: Llama 2 13B, 16 H100, FP8", query: "model=llama2-13b&gpu=h100-80gb&gpus=8&nodes=2&dtype=fp8&pp=4&vpp=10&seq=4096&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 8715.0 },
    Run { source: "NeMo 24.07: Llama 2 70B, 64 H100, FP8", query: "model=llama2-70b&gpu=h100-80gb&gpus=8&nodes=8&dtype=fp8&tp=4&sp=1&pp=4&vpp=20&seq=4096&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 1728.0 },
    Run { source: "NeMo 24.07: Llama 3 8B, 8 H100, FP8, CP 2", query: "model=llama3-8b&gpu=h100-80gb&gpus=8&dtype=fp8&cp=2&seq=8192&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 12273.0 },
    Run { source: "NeMo 24.07: Llama 3 70B, 64 H100, FP8, CP 2", query: "model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=8&dtype=fp8&tp=4&sp=1&pp=4&vpp=5&cp=2&seq=8192&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 1524.0 },
    // NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md
    // (containers 25.11 and 26.04.01, DGX-H100).
    Run { source: "Megatron-Bridge 25.11: Llama 3 8B, 8 H100, FP8-CS, FSDP", query: "model=llama3-8b&gpu=h100-80gb&gpus=8&dtype=fp8&seq=8192&global_batch=128&stage=3", measured: 14451.0 },
    Run { source: "Megatron-Bridge 25.11: Llama 3 70B, 64 H100, FP8-CS", query: "model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=8&dtype=fp8&tp=4&sp=1&pp=8&vpp=5&seq=8192&global_batch=128&stage=1&overlap_grad=1&overlap_param=1", measured: 1602.0 },
    Run { source: "Megatron-Bridge 26.04.01: Qwen3 30B-A3B, 16 H100, FP8, EP 16", query: "model=qwen3-30b-a3b&gpu=h100-80gb&gpus=8&nodes=2&dtype=fp8&ep=16&seq=4096&global_batch=1024&stage=1&overlap_grad=1&overlap_param=1", measured: 8960.0 },
    // NVIDIA-NeMo/Automodel docs/performance-summary.md @01926a5c (DGX-H100, BF16).
    Run { source: "NeMo AutoModel: Qwen3 30B-A3B, 8 H100, BF16, EP 8, FSDP2", query: "model=qwen3-30b-a3b&gpu=h100-80gb&gpus=8&dtype=bf16&ep=8&seq=4096&mbs=4&global_batch=512&stage=3&sharding=fsdp2", measured: 12040.0 },
    // mosaicml/llm-foundry scripts/train/benchmarking/README.md @061f2c7c:
    // MPT (GELU, 4h FFN, vocabulary 50,432), FSDP full shard, amp_bf16;
    // activation checkpointing off but for the 70B.
    Run { source: "llm-foundry: MPT 7B, 8 H100, BF16", query: "model=gpt3-175b&layers=32&hidden=4096&heads=32&kv_heads=32&ffn=16384&mlp=gelu&vocab=50432&gpu=h100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=6&global_batch=48&stage=3&sharding=fsdp2", measured: 10643.0 },
    Run { source: "llm-foundry: MPT 70B, 64 H100, BF16, checkpointing", query: "model=gpt3-175b&layers=80&hidden=8192&heads=64&kv_heads=64&ffn=32768&mlp=gelu&vocab=50432&gpu=h100-80gb&gpus=8&nodes=8&dtype=bf16&seq=2048&mbs=8&global_batch=2048&stage=3&sharding=fsdp2&recompute=full", measured: 1039.0 },
    Run { source: "llm-foundry: MPT 7B, 8 A100, BF16", query: "model=gpt3-175b&layers=32&hidden=4096&heads=32&kv_heads=32&ffn=16384&mlp=gelu&vocab=50432&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=6&global_batch=96&stage=3&sharding=fsdp2", measured: 4641.0 },
    Run { source: "llm-foundry: MPT 13B, 8 A100, BF16", query: "model=gpt3-175b&layers=40&hidden=5120&heads=40&kv_heads=40&ffn=20480&mlp=gelu&vocab=50432&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=2&global_batch=48&stage=3&sharding=fsdp2", measured: 2262.0 },
    // NVIDIA/Megatron-LM README, images/model_table.png (H100, sequence
    // 4,096, vocabulary 131,072): model TFLOP/s per GPU.
    Run { source: "Megatron-LM README: GPT 16B, 192 H100, TP 4", query: "model=gpt3-175b&layers=32&hidden=6144&heads=48&kv_heads=48&ffn=24576&mlp=gelu&vocab=131072&gpu=h100-80gb&gpus=8&nodes=24&dtype=bf16&tp=4&sp=1&seq=4096&global_batch=192&stage=1&overlap_grad=1&overlap_param=1", measured: 489.1 },
    Run { source: "Megatron-LM README: GPT 177B, 2,304 H100, TP 8, PP 6", query: "model=gpt3-175b&layers=96&hidden=12288&heads=96&kv_heads=96&ffn=49152&mlp=gelu&vocab=131072&gpu=h100-80gb&gpus=8&nodes=288&dtype=bf16&tp=8&sp=1&pp=6&seq=4096&global_batch=1152&stage=1&overlap_grad=1&overlap_param=1", measured: 432.8 },
    Run { source: "Megatron-LM README: GPT 70B, 768 H100, TP 8, PP 2", query: "model=gpt3-175b&layers=84&hidden=8192&heads=64&kv_heads=64&ffn=32768&mlp=gelu&vocab=131072&gpu=h100-80gb&gpus=8&nodes=96&dtype=bf16&tp=8&sp=1&pp=2&seq=4096&global_batch=384&stage=1&overlap_grad=1&overlap_param=1", measured: 419.7 },
];

/// Issue 48: with no efficiency typed, the kernel model
/// (`vram_core::time::efficiency`) predicts each published run's
/// throughput within 25 %: 18 runs from five sources, dense and mixtures of
/// experts, BF16 and FP8, A100 and H100. Not held: NeMo's GPT-OSS 120B
/// (predicted 1.7 × its 5,824 tokens/s: its 2,880-wide experts and
/// attention sinks are beyond the model), torchtitan's runs (power-capped
/// 500 W H100s, eager PyTorch), Llama 3.1 405B and DeepSeek-V3 (their
/// interleaved layouts are written with `pp_embedding`/`pp_loss` and
/// `pp_layout` since issue 65; no throughput of theirs is held here yet).
#[test]
fn published_runs_with_the_default_efficiency() {
    let mut ratios = Vec::new();
    for run in RUNS {
        let decoded = decode(&format!("v=2&{}", run.query));
        assert!(
            decoded.problems.is_empty(),
            "{}: {:?}",
            run.source,
            decoded.problems
        );
        assert!(decoded.config.speed.kernel_model, "{}", run.source);
        let report = decoded.config.report().expect("a valid configuration");
        let step = report.highlighted().time.expect("a step time");
        let predicted = match run.source.starts_with("Megatron-LM README") {
            true => {
                let gpus = f64::from(decoded.config.gpus * decoded.config.runtime.nodes);
                step.model_flops / (step.step_seconds * gpus) / 1e12
            }
            false => step.tokens_per_second_per_gpu,
        };
        let ratio = predicted / run.measured;
        assert!(
            (ratio - 1.0).abs() < 0.25,
            "{}: {predicted:.0} predicted against {} measured ({ratio:.2})",
            run.source,
            run.measured
        );
        ratios.push(ratio);
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    assert!((median - 1.0).abs() < 0.1, "median {median:.2}");
}

/// Issue 48, error 3: FP8's speed-up is what NVIDIA reports (1.2–1.5 ×),
/// not the peaks' 2 × nor the flat model's 1.68 ×: the FP8 GEMMs reach a
/// smaller share of their peak, the attention and the logits stay 16-bit,
/// and the casts stream through memory. Llama 3 8B on 8 H100 and 70B on 64.
#[test]
fn fp8_speeds_a_step_up_as_nvidia_reports() {
    let tokens = |query: &str| {
        let report = decode(&format!("v=2&{query}")).config.report().unwrap();
        report.highlighted().time.unwrap().tokens_per_second_per_gpu
    };
    for base in [
        "model=llama3-8b&gpu=h100-80gb&gpus=8&seq=8192&global_batch=128&stage=1",
        "model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=8&tp=4&sp=1&pp=4&seq=8192&global_batch=128&stage=1",
    ] {
        let speed_up = tokens(&format!("{base}&dtype=fp8")) / tokens(&format!("{base}&dtype=bf16"));
        assert!((1.2..1.5).contains(&speed_up), "{base}: {speed_up:.2}");
    }
}

/// Narayanan et al.'s Table 1 with no efficiency typed, as their 2021
/// Megatron-LM ran it (the attention unfused, dropout 0.1): each row within
/// 15 % (seen −4 % to +14 %; −3 % to +37 % when counted as FlashAttention).
#[test]
fn narayanan_table_1_with_the_default_efficiency() {
    for (billions, heads, h, layers, tp, pp, gpus, batch, achieved) in TABLE_1 {
        let query = format!(
            "v=2&model=gpt3-175b&layers={layers}&hidden={h}&heads={heads}&kv_heads={heads}\
             &ffn={}&vocab=51200&seq=2048&flash=0&dropout=0.1&mbs=1&recompute=full&gpu=a100-80gb&gpus=8\
             &nodes={}&tp={tp}&pp={pp}&global_batch={batch}&stage=ddp",
            4 * h,
            gpus / 8
        );
        let report = decode(&query)
            .config
            .report()
            .expect("a valid configuration");
        let step = report.highlighted().time.expect("a step time");
        let predicted = step.flops / (step.step_seconds * f64::from(gpus)) / 1e12;
        assert!(
            (predicted / achieved - 1.0).abs() < 0.15,
            "{billions} B: {predicted:.1} TFLOP/s per GPU against the paper's {achieved}"
        );
    }
}
