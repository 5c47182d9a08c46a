//! The serving layouts ranked: for a model on the GPUs given, every tensor
//! × pipeline × expert split, weight format and KV type that runs the
//! deployment asked for (its lengths, its concurrency), fastest per GPU
//! first, as the training plans are ranked.

use crate::kv_cache::KvCacheDtype;
use crate::options::{ServeLayout, ServeOptions};
use crate::report::{evaluate, Hardware, ServeReport};
use crate::weights::WeightFormat;
use vram_shared::model::architecture::Architecture;

/// The most plans kept.
pub const KEPT_SERVE_PLANS: usize = 12;

/// A layout that runs, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ServePlan {
    /// The layout.
    pub layout: ServeLayout,
    /// The weights' format.
    pub weights: WeightFormat,
    /// The KV cache's type.
    pub kv_dtype: KvCacheDtype,
    /// Its figures.
    pub report: ServeReport,
}

impl ServePlan {
    /// Output tokens a second per GPU (0 without a speed).
    pub fn tokens_per_second_per_gpu(&self) -> f64 {
        self.report
            .speed
            .map_or(0.0, |s| s.decode_tokens_per_second_per_gpu)
    }

    /// `options` as this plan runs them: its weights' format and KV cache's
    /// type (the layout is the caller's, which holds it).
    pub fn with_formats(&self, options: ServeOptions) -> ServeOptions {
        ServeOptions {
            weights: self.weights,
            kv_dtype: self.kv_dtype,
            ..options
        }
    }
}

/// The formats worth trying for a checkpoint shipped in `shipped` on a
/// GPU, as an engine loads it: the checkpoint's own; FP8 quantised at load
/// from a 16-bit checkpoint where the GPU has FP8 tensor cores (vLLM's and
/// SGLang's `--quantization fp8`); and the format `asked` in the options,
/// whatever it is. Formats the model is not published in (AWQ's INT4,
/// MXFP4 for another model than gpt-oss, NVFP4) only when asked (issue 63:
/// DeepSeek-V3 was offered MXFP4 and INT4, never its own FP8 blocks).
fn formats(shipped: WeightFormat, asked: WeightFormat, hardware: &Hardware) -> Vec<WeightFormat> {
    let fp8 = hardware.gpu.is_none_or(|g| g.tflops_fp8 > 0.0);
    let mut formats = vec![shipped];
    if shipped == WeightFormat::Bf16 && fp8 {
        formats.push(WeightFormat::Fp8);
    }
    if !formats.contains(&asked) {
        formats.push(asked);
    }
    formats
}

/// What the search found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServeRanking {
    /// Layouts tried.
    pub tried: usize,
    /// Layouts that run it.
    pub fits: usize,
    /// The fastest per GPU, at most [`KEPT_SERVE_PLANS`].
    pub plans: Vec<ServePlan>,
}

/// Every layout of `arch` on `hardware` that runs `options` (its engine,
/// lengths and concurrency; its layout, weights and KV type are what is
/// searched), fastest per GPU first, then the shortest time to the first
/// token; at most [`KEPT_SERVE_PLANS`] kept.
pub fn rank(
    arch: &Architecture,
    context: u32,
    shipped: WeightFormat,
    hardware: &Hardware,
    options: &ServeOptions,
    price: Option<f64>,
) -> ServeRanking {
    let gpus = hardware.gpus_per_node * hardware.nodes;
    let mut plans = Vec::new();
    let mut tried = 0;
    let fp8 = hardware.gpu.is_none_or(|g| g.tflops_fp8 > 0.0);
    let kv_types: &[KvCacheDtype] = match fp8 {
        true => &KvCacheDtype::ALL,
        false => &[KvCacheDtype::Auto],
    };
    let powers = || (0..=10).map(|k| 1u32 << k);
    for tp in powers().filter(|&tp| tp <= hardware.gpus_per_node && tp <= gpus) {
        for pp in powers().filter(|&pp| tp * pp <= gpus && gpus % (tp * pp) == 0) {
            let replicas = gpus / (tp * pp);
            let eps = match arch.moe.is_moe() && tp * replicas > 1 {
                true => vec![1, tp * replicas],
                false => vec![1],
            };
            for ep in eps {
                for weights in formats(shipped, options.weights, hardware) {
                    for &kv_dtype in kv_types {
                        tried += 1;
                        let layout = ServeLayout { tp, pp, ep };
                        let asked = ServeOptions {
                            weights,
                            kv_dtype,
                            ..*options
                        };
                        let Ok(report) = evaluate(arch, context, hardware, layout, &asked, price)
                        else {
                            continue;
                        };
                        if report.fits {
                            plans.push(ServePlan {
                                layout,
                                weights,
                                kv_dtype,
                                report,
                            });
                        }
                    }
                }
            }
        }
    }
    plans.sort_by(|a, b| {
        let speed = |p: &ServePlan| p.tokens_per_second_per_gpu();
        let ttft = |p: &ServePlan| p.report.speed.map_or(f64::INFINITY, |s| s.ttft_seconds);
        speed(b)
            .total_cmp(&speed(a))
            .then(ttft(a).total_cmp(&ttft(b)))
    });
    let fits = plans.len();
    plans.truncate(KEPT_SERVE_PLANS);
    ServeRanking { tried, fits, plans }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::gpu::gpu_preset;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Llama 3.1 70B on eight H100s at 32k: 16 bits needs TP 2 at least
    /// (two GPUs' weights), every kept plan runs, the fastest per GPU comes
    /// first, and FP8 (half the bytes to read a token) beats 16 bits.
    #[wasm_bindgen_test(unsupported = test)]
    fn layouts_for_llama_3_1_70b_on_eight_h100s() {
        let arch = model_preset("llama3.1-70b").unwrap().architecture;
        let gpu = gpu_preset("h100-80gb").unwrap();
        let hardware = Hardware {
            memory_bytes: u64::from(gpu.memory_mib) << 20,
            gpu: Some(gpu),
            gpus_per_node: 8,
            nodes: 1,
            tflops: None,
            nvlink_gb_per_s: gpu.nvlink_gb_per_s,
            network_gb_per_s: gpu.network_gb_per_s,
        };
        let options = ServeOptions {
            max_len: Some(32_768),
            ..ServeOptions::default()
        };
        let ServeRanking { tried, fits, plans } = rank(
            &arch,
            131_072,
            WeightFormat::Bf16,
            &hardware,
            &options,
            Some(2.0),
        );
        assert!(tried >= 30, "{tried}");
        assert!(fits >= plans.len());
        assert!(!plans.is_empty());
        assert!(plans.iter().all(|p| p.report.fits));
        let speeds: Vec<f64> = plans
            .iter()
            .map(ServePlan::tokens_per_second_per_gpu)
            .collect();
        assert!(speeds.windows(2).all(|w| w[0] >= w[1]), "{speeds:?}");
        assert!(!plans
            .iter()
            .any(|p| p.weights == WeightFormat::Bf16 && p.layout.tp == 1));
        let best_16 = plans.iter().find(|p| p.weights == WeightFormat::Bf16);
        let best_fp8 = plans
            .iter()
            .find(|p| p.weights == WeightFormat::Fp8)
            .unwrap();
        if let Some(best_16) = best_16 {
            assert!(best_fp8.tokens_per_second_per_gpu() > best_16.tokens_per_second_per_gpu());
        }
        // The price follows the speed: cheaper per million tokens first.
        let cost = |p: &ServePlan| p.report.speed.unwrap().cost_per_million_tokens.unwrap();
        assert!(cost(&plans[0]) <= cost(plans.last().unwrap()));
    }
}
