use super::*;
use crate::kv_cache::VllmRelease;
use vram_shared::gpu::gpu_preset;
use vram_shared::model::architecture::Architecture;
use vram_shared::model::presets::model_preset;
use wasm_bindgen_test::wasm_bindgen_test;

use vram_shared::units::GIB;

fn h100s(gpus: u32) -> Hardware {
    cards("h100-80gb", gpus)
}

/// The example: Llama 3.1 70B on 2 × H100 at TP 2, 32k context,
/// FP8 KV. In 16 bits each GPU holds 70.6 GB of weights, and vLLM's 90 %
/// leaves nothing once the activation peak, NCCL's buffers and the graphs
/// are counted ("No available memory for the cache blocks"); with FP8
/// weights half of that, and the rest goes to the KV cache at 160 KiB a
/// token (80 layers × 8 ÷ 2 heads × 128 × 2 values of 1 byte). vLLM 0.20.0
/// at 90 %, as the issue ran it.
#[wasm_bindgen_test(unsupported = test)]
fn llama_3_1_70b_on_two_h100s() {
    let arch = model_preset("llama3.1-70b").unwrap().architecture;
    let options = ServeOptions {
        max_len: Some(32_768),
        kv_dtype: KvCacheDtype::Fp8,
        gpu_util: Some(0.9),
        vllm_release: VllmRelease::V0_20_0,
        ..ServeOptions::default()
    };
    let layout = ServeLayout {
        tp: 2,
        pp: 1,
        ep: 1,
    };
    let r = evaluate(&arch, 131_072, &h100s(2), layout, &options, None).unwrap();
    assert!(
        (r.weights_bytes / 1e9 - 70.6).abs() < 0.1,
        "{}",
        r.weights_bytes
    );
    assert_eq!(r.kv_budget_bytes, None);
    assert_eq!(r.shortfall, Some(Shortfall::NoKvMemory));
    let fp8 = ServeOptions {
        weights: WeightFormat::Fp8,
        ..options
    };
    let r = evaluate(&arch, 131_072, &h100s(2), layout, &fp8, None).unwrap();
    assert_eq!(r.kv_bytes_per_token, 80 * 4 * 128 * 2);
    assert_eq!(r.block_size, 16);
    assert_eq!(r.pages[0].page_bytes, 16 * 4 * 128 * 2);
    let budget = r.kv_budget_bytes.unwrap();
    assert_eq!(r.kv_blocks, budget / (80 * 16 * 1024));
    assert_eq!(r.kv_tokens, r.kv_blocks * 16);
    assert!(r.fits);
    assert_eq!(r.max_model_len_fits, 32_768);
    assert!((25 * GIB..35 * GIB).contains(&budget), "{budget}");
    assert!(r.speed.is_some());
}

/// One node of `gpus` cards of the preset `id`, at the preset's links.
fn cards(id: &str, gpus: u32) -> Hardware {
    let gpu = gpu_preset(id).unwrap();
    Hardware {
        memory_bytes: u64::from(gpu.memory_mib) << 20,
        gpu: Some(gpu),
        gpus_per_node: gpus,
        nodes: 1,
        tflops: None,
        nvlink_gb_per_s: gpu.nvlink_gb_per_s,
        network_gb_per_s: gpu.network_gb_per_s,
    }
}

/// The time per output token of published decode runs at one sequence,
/// each within 25 % with the one stated bandwidth efficiency
/// ([`crate::speed::DECODE_BANDWIDTH_EFFICIENCY`]) and the
/// collectives' latency:
/// - gpt-fast (`pytorch-labs/gpt-fast` README at 32971d3, batch 1, A100
///   80GB): Llama 3.1 8B 93.89 tokens/s (10.65 ms), Llama 3.1 70B at TP 8
///   58.78 tokens/s (17.0 ms);
/// - LMDeploy's static benchmark (`InternLM/lmdeploy`
///   docs/en/benchmark/a100_fp16.md at f44ba31 and 3e391df, A100 80GB,
///   batch 1, 128 in, 2,048 out): Llama 2 7B 98.92 tokens/s (10.11 ms),
///   Llama 2 70B at TP 4 32.38 tokens/s (30.9 ms);
/// - NVIDIA NIM 1.8.0 (docs.nvidia.com/nim/benchmarking/llm, TensorRT-LLM):
///   Llama 3.3 70B (Llama 3.1 70B's shape) in FP8 at TP 2 on two H100s,
///   500 in, 2,000 out, concurrency 1: 18.91 ms between tokens;
/// - SGLang 0.5.6's cookbook (`sgl-project/sgl-cookbook`
///   docs/autoregressive/Llama/Llama3.1.md at 1e3601b): Llama 3.1 70B in
///   BF16 at TP 8 on A100s, concurrency 1, about 610 in and 422 out:
///   median 18.63 ms.
#[wasm_bindgen_test(unsupported = test)]
fn decode_speed_of_published_runs() {
    let runs = [
        (
            "llama3.1-8b",
            "a100-80gb",
            1,
            WeightFormat::Bf16,
            5,
            200,
            10.65e-3,
        ),
        (
            "llama3.1-70b",
            "a100-80gb",
            8,
            WeightFormat::Bf16,
            5,
            200,
            17.0e-3,
        ),
        (
            "llama2-7b",
            "a100-80gb",
            1,
            WeightFormat::Bf16,
            128,
            2048,
            10.11e-3,
        ),
        (
            "llama2-70b",
            "a100-80gb",
            4,
            WeightFormat::Bf16,
            128,
            2048,
            30.9e-3,
        ),
        (
            "llama3.1-70b",
            "h100-80gb",
            2,
            WeightFormat::Fp8,
            500,
            2000,
            18.91e-3,
        ),
        (
            "llama3.1-70b",
            "a100-80gb",
            8,
            WeightFormat::Bf16,
            610,
            422,
            18.63e-3,
        ),
    ];
    for (model, gpu, tp, weights, prompt, response, measured) in runs {
        let arch = model_preset(model).unwrap().architecture;
        let options = ServeOptions {
            weights,
            max_len: Some(4096),
            prompt_len: prompt,
            response_len: response,
            concurrency: Some(1),
            gpu_util: Some(0.95),
            ..ServeOptions::default()
        };
        let layout = ServeLayout { tp, pp: 1, ep: 1 };
        let r = evaluate(&arch, 0, &cards(gpu, tp), layout, &options, None).unwrap();
        let tpot = r.speed.unwrap().tpot_seconds;
        let error = tpot / measured - 1.0;
        eprintln!(
            "{model} on {tp} × {gpu}: {:.2} ms, measured {:.2} ({:+.0} %)",
            tpot * 1e3,
            measured * 1e3,
            error * 100.0
        );
        assert!(
            error.abs() < 0.25,
            "{model} on {tp} × {gpu}: {tpot} s, measured {measured}"
        );
    }
}

fn tp(tp: u32) -> ServeLayout {
    ServeLayout { tp, pp: 1, ep: 1 }
}

/// TP splits the key/value heads and every MLP's width as vLLM's linear
/// layers assert (`divide`): Qwen2.5-14B's 8 KV heads and 13,824-wide FFN
/// refuse TP 5 (its 40 query heads alone would take it); an FFN of 14,010
/// refuses TP 8 (6 would divide it); past the KV heads
/// TP replicates them when it is a multiple (Llama 3.1 8B at TP 16), and
/// refuses otherwise; gpt-oss-120b's experts (2,880 wide) split by TP 8;
/// latent attention has no KV heads to split.
#[wasm_bindgen_test(unsupported = test)]
fn tp_splits_kv_heads_and_mlp_widths_as_vllm_asserts() {
    let options = ServeOptions::default();
    let refused = |splits, largest| {
        Err(ServeProblem::Tp(LayoutProblem::DoesNotDivide {
            splits,
            largest,
        }))
    };
    let qwen = model_preset("qwen2.5-14b").unwrap().architecture;
    let llama = model_preset("llama3.1-8b").unwrap().architecture;
    let odd = Architecture {
        kv_heads: 4,
        heads: 24,
        ..llama
    };
    let narrow = Architecture {
        ffn: 14_010,
        ..llama
    };
    let gpt_oss = model_preset("gpt-oss-120b").unwrap().architecture;
    let deepseek = model_preset("deepseek-v3").unwrap().architecture;
    // (model, context, TP, what vLLM says)
    let cases = [
        (qwen, 32_768, 5, refused(Splits::KvHeads(8), 4)),
        (qwen, 32_768, 8, Ok(())),
        (llama, 131_072, 16, Ok(())),
        (odd, 131_072, 6, refused(Splits::KvHeads(4), 4)),
        (narrow, 131_072, 8, refused(Splits::Ffn(14_010), 6)),
        (gpt_oss, 131_072, 8, Ok(())),
        (deepseek, 163_840, 8, Ok(())),
    ];
    for (arch, context, gpus, expected) in cases {
        let hardware = cards("h100-80gb", gpus);
        assert_eq!(
            check(&arch, context, &hardware, tp(gpus), &options),
            expected,
            "TP {gpus} on {} layers",
            arch.layers
        );
    }
}

/// An FP8 KV cache where the release serves it: vLLM and SGLang on any GPU
/// (an A100 too), TensorRT-LLM only with FP8 tensor cores.
#[wasm_bindgen_test(unsupported = test)]
fn fp8_kv_cache_is_refused_only_where_the_engine_refuses_it() {
    let arch = model_preset("llama3.1-8b").unwrap().architecture;
    let a100 = cards("a100-80gb", 1);
    let fp8 = |engine| ServeOptions {
        engine,
        kv_dtype: KvCacheDtype::Fp8,
        ..ServeOptions::default()
    };
    assert_eq!(
        check(&arch, 131_072, &a100, tp(1), &fp8(Engine::Vllm)),
        Ok(())
    );
    assert_eq!(
        check(&arch, 131_072, &a100, tp(1), &fp8(Engine::Sglang)),
        Ok(())
    );
    assert_eq!(
        check(&arch, 131_072, &a100, tp(1), &fp8(Engine::TrtLlm)),
        Err(ServeProblem::KvDtypeNoFp8)
    );
    assert_eq!(
        check(&arch, 131_072, &h100s(1), tp(1), &fp8(Engine::TrtLlm)),
        Ok(())
    );
}

/// A KV budget given in GB sits beside the weights: 80 GB beside Llama 3.1
/// 8B's 16.06 GB on an H100 (81,559 MiB, 85.52 GB) is refused, at most
/// the GPU less the weights; a length past the model's positions is refused
/// as vLLM refuses it, the context itself accepted.
#[wasm_bindgen_test(unsupported = test)]
fn kv_memory_beside_the_weights_and_max_len_within_the_positions() {
    let arch = model_preset("llama3.1-8b").unwrap().architecture;
    let h100 = h100s(1);
    let given = |gb| ServeOptions {
        kv_memory_gb: Some(gb),
        ..ServeOptions::default()
    };
    let Err(ServeProblem::KvMemory { max_bytes }) =
        check(&arch, 131_072, &h100, tp(1), &given(80.0))
    else {
        panic!("80 GB of KV beside 16 GB of weights accepted");
    };
    let weights = weights_bytes(&arch, tp(1), &ServeOptions::default(), &h100);
    assert!((weights / 1e9 - 16.06).abs() < 0.01, "{weights}");
    assert_eq!(max_bytes, (h100.memory_bytes as f64 - weights) as u64);
    assert_eq!(check(&arch, 131_072, &h100, tp(1), &given(60.0)), Ok(()));
    let long = |len| ServeOptions {
        max_len: Some(len),
        ..ServeOptions::default()
    };
    assert_eq!(check(&arch, 131_072, &h100, tp(1), &long(131_072)), Ok(()));
    assert_eq!(
        check(&arch, 131_072, &h100, tp(1), &long(131_073)),
        Err(ServeProblem::MaxLenBeyondContext { context: 131_072 })
    );
}

/// vLLM 0.34.0 sizes the cache after warmup and graph capture (the
/// extensible KV cache, `gpu_memory_utilization` unset read as 1.0): all
/// the memory CUDA reports less what stays resident, a margin of
/// max(1 GiB, 0.75 × the activation peak) and the peak itself; 0.20.0
/// takes 92 % less the same parts and the peak. Llama 3.1 8B on one H100:
/// the newer release leaves more to the cache, in blocks of 64 tokens.
#[wasm_bindgen_test(unsupported = test)]
fn vllm_0_34_sizes_the_cache_after_capture() {
    let arch = model_preset("llama3.1-8b").unwrap().architecture;
    let at = |vllm_release| {
        let options = ServeOptions {
            vllm_release,
            ..ServeOptions::default()
        };
        evaluate(&arch, 131_072, &h100s(1), tp(1), &options, None).unwrap()
    };
    let (old, new) = (at(VllmRelease::V0_20_0), at(VllmRelease::V0_34_0));
    assert_eq!(
        (old.engine_version, new.engine_version),
        ("0.20.0", "0.34.0")
    );
    assert_eq!((old.block_size, new.block_size), (16, 64));
    assert_eq!((old.gpu_util, new.gpu_util), (0.92, 1.0));
    let total = old.cuda_total_bytes;
    let resident = old.weights_bytes.ceil() as u64 + old.non_torch_bytes + old.cuda_graph_bytes;
    let peak = old.activation_peak_bytes;
    let requested = (total as f64 * 0.92).ceil() as u64;
    assert_eq!(old.kv_budget_bytes, Some(requested - resident - peak));
    let margin = GIB.max((peak as f64 * 0.75) as u64);
    assert_eq!(new.kv_budget_bytes, Some(total - resident - margin - peak));
    assert!(new.kv_budget_bytes > old.kv_budget_bytes);
    assert_eq!(
        new.kv_blocks,
        new.kv_budget_bytes.unwrap() / (32 * 64 * 8 * 128 * 2 * 2)
    );
}

/// Llama 4 Scout's pages as its layers are: 36 of local chunks of 8,192
/// tokens and 12 of full attention, each listed apart.
#[wasm_bindgen_test(unsupported = test)]
fn llama4_lists_its_chunked_and_full_pages_apart() {
    let arch = model_preset("llama4-scout").unwrap().architecture;
    let options = ServeOptions {
        max_len: Some(131_072),
        ..ServeOptions::default()
    };
    let r = evaluate(&arch, 10_485_760, &h100s(8), tp(8), &options, None).unwrap();
    let pages: Vec<_> = r.pages.iter().map(|p| (p.chunk, p.layers)).collect();
    assert_eq!(pages, [(Some(8192), 36), (None, 12)]);
}

/// SGLang caches Mistral 7B v0.1 (a window in every layer, no hybrid) in
/// its one pool, every layer whole: tokens as many as the pool holds at a
/// token's bytes over all 32 layers (issue 62: it said 0 tokens and
/// `--max-running-requests 0`).
#[wasm_bindgen_test(unsupported = test)]
fn sglang_caches_a_model_windowed_in_every_layer_whole() {
    let arch = model_preset("mistral-7b").unwrap().architecture;
    let options = ServeOptions {
        engine: Engine::Sglang,
        ..ServeOptions::default()
    };
    let r = evaluate(&arch, 32_768, &h100s(1), tp(1), &options, None).unwrap();
    let pool = r.kv_budget_bytes.unwrap();
    let cell = sglang::cell_bytes(&arch, 32, 1, 2);
    assert_eq!(r.kv_tokens, sglang::max_total_tokens(pool, cell, 1));
    assert!(r.kv_tokens > 300_000, "{}", r.kv_tokens);
    assert!(r.max_num_seqs > 0 && r.fits);
}
