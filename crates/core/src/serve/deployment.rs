//! One deployment of a model on vLLM: the weights on each GPU under tensor,
//! pipeline and expert parallelism, the KV budget vLLM forms from what is
//! left, and what that budget holds ([`crate::serve::kv_cache`]).

use crate::model::architecture::Architecture;
use crate::serve::kv_cache::{self, KvCacheDtype, KvLayout};
use crate::serve::weights::WeightFormat;

/// How the model is split and served.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deployment {
    /// The checkpoint's weight format.
    pub weights: WeightFormat,
    /// The KV cache's element type.
    pub kv_dtype: KvCacheDtype,
    /// Tensor-parallel GPUs.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Expert-parallel GPUs (vLLM's `--enable-expert-parallel`: the routed
    /// experts whole, divided over TP × DP); 1 without.
    pub ep: u32,
    /// Tokens per block.
    pub block_size: u32,
    /// `max_model_len`.
    pub max_model_len: u32,
    /// `max_num_batched_tokens`.
    pub batched_tokens: u32,
}

/// What vLLM measures at start-up and the deployment must be told: the
/// GPU's total memory, `gpu_memory_utilization`, and beside the weights the
/// profiled activation peak, the memory outside PyTorch's allocator and the
/// CUDA graphs' pool, in bytes; or the KV bytes given directly
/// (`--kv-cache-memory`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// `gpu_memory_utilization` of `total`, less what runs.
    Utilisation {
        /// The GPU's memory.
        total: u64,
        /// `gpu_memory_utilization` (0.9 by default).
        utilisation: f64,
        /// The profiled activation peak at `max_num_batched_tokens`.
        activation_peak: u64,
        /// Memory outside PyTorch's allocator (NCCL, cuBLAS, the backend's).
        non_torch: u64,
        /// The CUDA graphs' pool.
        cuda_graphs: u64,
    },
    /// `kv_cache_memory_bytes`.
    KvBytes(u64),
}

/// The deployment's figures on its most loaded GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeFigures {
    /// The weights on the GPU.
    pub weights_bytes: f64,
    /// The KV budget (`None`: nothing left, vLLM's "No available memory for
    /// the cache blocks").
    pub kv_budget_bytes: Option<u64>,
    /// The layout of the GPU's KV cache.
    pub kv: KvLayout,
    /// Blocks the budget holds.
    pub kv_blocks: u64,
    /// "GPU KV cache size: N tokens".
    pub kv_tokens: u64,
    /// "Maximum concurrency for `max_model_len` tokens per request".
    pub max_concurrency: f64,
    /// The longest `max_model_len` one sequence fits in (vLLM's estimate).
    pub max_model_len_fits: u32,
}

/// The weights on the most loaded GPU: each stage's ⌈layers ÷ PP⌉ layers
/// (quantised linears ÷ TP, or the routed experts ÷ EP whole), the
/// vocabulary-parallel embedding and head ÷ TP (on the first and last
/// stages; both on one without PP), norms and router on every GPU.
pub fn weights_per_gpu(arch: &Architecture, d: &Deployment) -> f64 {
    let tp = f64::from(d.tp.max(1));
    let pp = d.pp.max(1);
    let parts = arch.param_breakdown();
    let format = d.weights;
    let per_quantised = format.bytes_per_weight(arch);
    let linear = crate::serve::weights::linear_params(arch) as f64;
    let experts = arch.routed_expert_params() as f64;
    let layer_params = (parts.layers + parts.mtp) as f64;
    // The routed experts, the other linears (÷ TP) and what every GPU keeps
    // (norms, router), each at its format's bytes.
    let expert_bytes = experts
        * match format {
            WeightFormat::Bf16 => 2.0,
            _ => per_quantised,
        };
    let split = (linear - experts)
        * match format.quantises_dense_linears() {
            true => per_quantised,
            false => 2.0,
        };
    let replicated = (layer_params - linear) * 2.0;
    let experts_here = match d.ep {
        0 | 1 => expert_bytes / tp,
        ep => expert_bytes / f64::from(ep),
    };
    let stage = f64::from(arch.layers.div_ceil(pp)) / f64::from(arch.layers.max(1));
    let layers = (split / tp + experts_here + replicated) * stage;
    let embedding = parts.embeddings as f64 * 2.0 / tp;
    let head = (parts.output_head as f64 * 2.0 + parts.final_norm as f64 * 2.0 * tp) / tp;
    match pp {
        1 => layers + embedding + head,
        _ => layers + embedding.max(head),
    }
}

/// The deployment of `arch` as `d` on a GPU whose KV budget is `budget`.
pub fn serve(arch: &Architecture, d: &Deployment, budget: Budget) -> ServeFigures {
    let weights_bytes = weights_per_gpu(arch, d);
    let kv_budget_bytes = match budget {
        Budget::KvBytes(bytes) => Some(bytes),
        Budget::Utilisation {
            total,
            utilisation,
            activation_peak,
            non_torch,
            cuda_graphs,
        } => kv_cache::available_kv_bytes(
            total,
            utilisation,
            weights_bytes.ceil() as u64,
            activation_peak,
            non_torch,
            cuda_graphs,
        ),
    };
    let model_bytes = 2;
    let value_bytes = d.kv_dtype.bytes(model_bytes);
    let layers = 0..arch.layers.div_ceil(d.pp.max(1)).min(arch.layers);
    let specs = kv_cache::layer_specs(arch, layers, d.tp, value_bytes, model_bytes, d.block_size);
    let kv = KvLayout::of(&specs);
    let available = kv_budget_bytes.unwrap_or(0);
    let kv_blocks = kv.num_blocks(available);
    ServeFigures {
        weights_bytes,
        kv_budget_bytes,
        kv_tokens: kv.kv_tokens(kv_blocks),
        max_concurrency: kv.max_concurrency(kv_blocks, d.max_model_len, d.batched_tokens),
        max_model_len_fits: kv.max_model_len_fits(available, d.max_model_len, d.batched_tokens),
        kv_blocks,
        kv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    const GIB: u64 = 1 << 30;

    fn deployment(tp: u32) -> Deployment {
        Deployment {
            weights: WeightFormat::Bf16,
            kv_dtype: KvCacheDtype::Auto,
            tp,
            pp: 1,
            ep: 1,
            block_size: 16,
            max_model_len: 8192,
            batched_tokens: 8192,
        }
    }

    /// Llama 3 8B in BF16 on one H100 (81,559 MiB) at vLLM's 0.9, with a
    /// 2 GiB activation peak, 0.5 GiB outside PyTorch and 1 GiB of graphs:
    /// the KV budget is what is left of 90 %, 128 KiB a token. At TP 2 each
    /// GPU holds half the linears, embedding and head, and half the heads.
    #[wasm_bindgen_test(unsupported = test)]
    fn llama3_8b_on_an_h100() {
        let llama = model_preset("llama3-8b").unwrap().architecture;
        let total = 81_559 * (1 << 20);
        let budget = Budget::Utilisation {
            total,
            utilisation: 0.9,
            activation_peak: 2 * GIB,
            non_torch: GIB / 2,
            cuda_graphs: GIB,
        };
        let one = serve(&llama, &deployment(1), budget);
        assert_eq!(one.weights_bytes, 16_060_522_496.0);
        let left = (total as f64 * 0.9).ceil() as u64 - 16_060_522_496 - 2 * GIB - GIB / 2 - GIB;
        assert_eq!(one.kv_budget_bytes, Some(left));
        assert_eq!(one.kv_blocks, left / (32 * 65_536));
        assert_eq!(one.kv_tokens, one.kv_blocks * 16);
        assert_eq!(one.max_concurrency, one.kv_blocks as f64 / 512.0);
        assert_eq!(one.max_model_len_fits, 8192);
        let two = serve(&llama, &deployment(2), budget);
        // The norms (32 layers × 2 × 4,096 + 4,096) stay whole on each GPU.
        let norms = (32 * 2 * 4096 + 4096) as f64 * 2.0;
        assert_eq!(two.weights_bytes, (16_060_522_496.0 - norms) / 2.0 + norms);
        assert_eq!(two.kv.num_blocks(GIB), GIB / (32 * 32_768));
        // A budget given directly is the budget.
        let direct = serve(&llama, &deployment(1), Budget::KvBytes(GIB));
        assert_eq!((direct.kv_blocks, direct.max_concurrency), (512, 1.0));
    }
}
