//! The KV cache as vLLM's v1 engine sizes it (vLLM 0.19.1 and 0.20.0, whose
//! `vllm/v1/kv_cache_interface.py` and `vllm/v1/core/kv_cache_utils.py`
//! match the tree at 001cabc): each layer's page (the bytes of one block of
//! `block_size` tokens), the groups the hybrid allocator forms, the blocks a
//! budget holds, the "Maximum concurrency" and "GPU KV cache size" it logs,
//! and the longest `max_model_len` a budget allows (its own binary search).
//!
//! All of it is integer arithmetic on bytes, as vLLM's: floor divisions and
//! `cdiv`, no rounding of ours.

use vram_shared::model::architecture::Architecture;

/// The vLLM releases whose arithmetic this module reproduces.
pub const VLLM_VERSIONS: &str = "0.19.1–0.20.0";

/// `CacheConfig.DEFAULT_BLOCK_SIZE`: tokens per block unless the attention
/// backend prefers another (`vllm/config/cache.py`).
pub const DEFAULT_BLOCK_SIZE: u32 = 16;

/// `⌈a ÷ b⌉` on whole numbers (vLLM's `cdiv`); 0 for `b = 0`.
const fn cdiv(a: u64, b: u64) -> u64 {
    match b {
        0 => 0,
        b => a.div_ceil(b),
    }
}

/// The KV cache's element type (`--kv-cache-dtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KvCacheDtype {
    /// `auto`: the model's dtype (2 bytes in 16-bit serving).
    #[default]
    Auto,
    /// `fp8` (`fp8_e4m3`, `fp8_e5m2`): one byte a value.
    Fp8,
}

impl KvCacheDtype {
    /// Bytes of one cached value when the model's weights are `model_bytes` wide.
    pub const fn bytes(self, model_bytes: u64) -> u64 {
        match self {
            KvCacheDtype::Auto => model_bytes,
            KvCacheDtype::Fp8 => 1,
        }
    }
}

/// What kind of cache a layer keeps (the class of its `KVCacheSpec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayerKind {
    /// `FullAttentionSpec` (and `MLAAttentionSpec`): every token's keys and
    /// values up to `max_model_len`.
    Full,
    /// `SlidingWindowSpec`: the last `window − 1` tokens and the tokens of a
    /// step (`max_num_batched_tokens`), one block more for the window's
    /// misaligned start.
    SlidingWindow(u32),
    /// `MambaSpec`: one block holding a sequence's whole recurrent state
    /// (Gated DeltaNet's convolution and delta-rule states).
    State,
}

/// One layer's cache on one GPU: its kind, its block size and its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayerSpec {
    /// The kind of cache.
    pub kind: LayerKind,
    /// Tokens a block holds (a state's block: the whole `max_model_len`).
    pub block_size: u32,
    /// Bytes of one block (`page_size_bytes`).
    pub page_bytes: u64,
}

impl LayerSpec {
    /// The most this layer's cache holds for one sequence of
    /// `max_model_len` tokens with `batched_tokens` scheduled in a step
    /// (`max_memory_usage_bytes`, without context parallelism or speculative
    /// tokens).
    pub fn max_memory_bytes(&self, max_model_len: u32, batched_tokens: u32) -> u64 {
        let bs = u64::from(self.block_size);
        let len = u64::from(max_model_len);
        match self.kind {
            LayerKind::Full => cdiv(len, bs) * self.page_bytes,
            LayerKind::SlidingWindow(window) => {
                let tokens = (u64::from(window) - 1 + u64::from(batched_tokens)).min(len);
                (cdiv(tokens, bs) + 1) * self.page_bytes
            }
            LayerKind::State => self.page_bytes,
        }
    }
}

/// Bytes one token's keys and values take in one attention layer on a GPU
/// of a `tp`-wide tensor-parallel group: `heads × (head_size + head_size_v)
/// × dtype` with `max(1, kv_heads ÷ TP)` heads (vLLM's `get_num_kv_heads`:
/// a head replicated where TP exceeds them); with latent attention one
/// latent of `kv_lora_rank + qk_rope_head_dim` values, whole on every GPU.
pub fn attention_bytes_per_token(arch: &Architecture, tp: u32, value_bytes: u64) -> u64 {
    match arch.mla.is_latent() {
        true => (u64::from(arch.mla.kv_rank) + u64::from(arch.mla.rope_dim)) * value_bytes,
        false => {
            let heads = (u64::from(arch.kv_heads) / u64::from(tp.max(1))).max(1);
            heads * 2 * arch.head_dim() * value_bytes
        }
    }
}

/// Bytes of one sequence's Gated DeltaNet state on a GPU
/// (`mamba/mamba_utils.py`, gated delta net): the convolution's last
/// `kernel − 1` inputs of q, k and v, `(kernel − 1) × (2·k_heads·k_dim +
/// v_heads·v_dim) ÷ TP`, and the delta rule's state, `v_heads ÷ TP × v_dim
/// × k_dim`, both in the model's dtype (`mamba_cache_dtype` and
/// `mamba_ssm_cache_dtype` `auto`).
pub fn linear_state_bytes(arch: &Architecture, tp: u32, model_bytes: u64) -> u64 {
    let l = arch.linear;
    let tp = u64::from(tp.max(1));
    let conv = (u64::from(l.conv_kernel).saturating_sub(1))
        * (2 * u64::from(l.k_heads) * u64::from(l.k_dim)
            + u64::from(l.v_heads) * u64::from(l.v_dim))
        / tp;
    let state = u64::from(l.v_heads) / tp * u64::from(l.v_dim) * u64::from(l.k_dim);
    (conv + state) * model_bytes
}

/// The block size vLLM's attention backend settles on for `arch` with KV
/// values of `value_bytes` on a GPU of compute capability `sm` (90 Hopper,
/// 100 Blackwell): 16, but latent attention's backends prefer their own
/// (FlashAttention-MLA 16 on Hopper in 16 bits, FlashMLA 64 there with FP8
/// values, FlashInfer-MLA 32 on Blackwell: `platforms/cuda.py`'s
/// priorities, each backend's `get_preferred_block_size`).
pub fn default_block_size(arch: &Architecture, value_bytes: u64, sm: u32) -> u32 {
    match (arch.mla.is_latent(), sm) {
        (false, _) => DEFAULT_BLOCK_SIZE,
        (true, sm) if sm >= 100 => 32,
        (true, 90) if value_bytes == 1 => 64,
        (true, _) => DEFAULT_BLOCK_SIZE,
    }
}

/// The layers of `layers` (a pipeline stage's, or all) as vLLM specifies
/// their caches on a GPU of a `tp`-wide group, blocks of `block_size`
/// tokens, values `value_bytes` wide in a model of `model_bytes`-wide
/// weights, serving `max_model_len` tokens. Chunked local attention
/// (Llama 4) costs full attention: vLLM turns its hybrid allocator off for
/// it (`config/vllm.py`). A model with linear-attention layers has its
/// attention block size raised until a block of every layer is one page
/// (`Platform._align_hybrid_block_size`, `platforms/interface.py`: `bs = a ×
/// ⌈state ÷ (a × per-token)⌉` with `a` the backend's smallest kernel block,
/// 16 (64 latent), or `block_size` where that is larger: 0.20.0; 0.19.1's
/// `HybridAttentionMambaModelConfig` aligned to 16 (64) whatever the block
/// size, so the two differ for a typed `--block-size` above it), its
/// state's page padded to it; a state's block is the whole `max_model_len`
/// (`mamba_block_size` without prefix caching, off by default for hybrid
/// models: `MambaModelConfig.verify_and_update_config`).
pub fn layer_specs(
    arch: &Architecture,
    layers: core::ops::Range<u32>,
    tp: u32,
    value_bytes: u64,
    model_bytes: u64,
    block_size: u32,
    max_model_len: u32,
) -> Vec<LayerSpec> {
    let per_token = attention_bytes_per_token(arch, tp, value_bytes);
    let state = linear_state_bytes(arch, tp, model_bytes);
    let has_state = layers.clone().any(|i| arch.is_linear_layer(i));
    let mut block = u64::from(block_size.max(1));
    let mut state_page = state;
    if has_state && per_token > 0 {
        // `kernel_block_alignment_size = max(min(kernel block sizes),
        // cache_config.block_size)`: a typed 64 aligns to 64, not 16.
        let align = block.max(if arch.mla.is_latent() { 64 } else { 16 });
        block = block.max(align * cdiv(state, align * per_token));
        state_page = state_page.max(block * per_token);
    }
    let windowed = !arch.local.chunked && arch.local.window > 0;
    layers
        .map(|i| {
            match (
                arch.is_linear_layer(i),
                windowed && arch.local.is_local_layer(i),
            ) {
                (true, _) => LayerSpec {
                    kind: LayerKind::State,
                    block_size: max_model_len,
                    page_bytes: state_page,
                },
                (false, true) => LayerSpec {
                    kind: LayerKind::SlidingWindow(arch.local.window),
                    block_size: u32::try_from(block).unwrap_or(u32::MAX),
                    page_bytes: block * per_token,
                },
                (false, false) => LayerSpec {
                    kind: LayerKind::Full,
                    block_size: u32::try_from(block).unwrap_or(u32::MAX),
                    page_bytes: block * per_token,
                },
            }
        })
        .collect()
}

/// A group of layers sharing block ids (vLLM's `KVCacheGroupSpec`): its
/// spec and how many layers it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The spec every layer of the group has.
    pub spec: LayerSpec,
    /// Its layers.
    pub layers: u32,
}

/// How vLLM lays out a GPU's KV cache (`get_kv_cache_groups` and
/// `get_kv_cache_config_from_groups`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvLayout {
    /// No layer keeps a cache.
    Empty,
    /// Every layer has one spec, or one kind with pages of their own
    /// (`UniformTypeKVCacheSpecs`): a block is a page of every layer.
    Uniform(Vec<LayerSpec>),
    /// A hybrid model: pages made equal, the layers bucketed by spec and cut
    /// into groups of `group_size`, each of the `group_size` tensors shared
    /// by one layer of every group.
    Hybrid {
        /// The groups, in the order their specs first appear.
        groups: Vec<Group>,
        /// Layers per group (the largest group's).
        group_size: u32,
        /// Every layer's page, made equal.
        page_bytes: u64,
    },
}

impl KvLayout {
    /// The layout vLLM forms for `specs` (the hybrid allocator on).
    pub fn of(specs: &[LayerSpec]) -> KvLayout {
        let Some(first) = specs.first() else {
            return KvLayout::Empty;
        };
        let same_kind = specs
            .iter()
            .all(|s| s.kind == first.kind && s.block_size == first.block_size);
        if same_kind {
            return KvLayout::Uniform(specs.to_vec());
        }
        // `unify_kv_cache_spec_page_size`: a smaller page's block grows
        // until its page is the largest (vLLM refuses pages that do not
        // divide it; here they grow to the next multiple).
        let page = specs.iter().map(|s| s.page_bytes).max().unwrap_or(0);
        let unified: Vec<LayerSpec> = specs
            .iter()
            .map(|s| {
                let times = cdiv(page, s.page_bytes.max(1));
                LayerSpec {
                    block_size: match s.kind {
                        LayerKind::State => s.block_size,
                        _ => u32::try_from(u64::from(s.block_size) * times).unwrap_or(u32::MAX),
                    },
                    page_bytes: page,
                    ..*s
                }
            })
            .collect();
        // `_get_kv_cache_groups_uniform_page_size`: buckets by spec in the
        // order first seen; the group size is the largest bucket's unless
        // it is 1.5 × the smallest's or more, then the smallest's.
        let mut buckets: Vec<(LayerSpec, u32)> = Vec::new();
        for spec in unified {
            match buckets.iter_mut().find(|(s, _)| *s == spec) {
                Some((_, n)) => *n += 1,
                None => buckets.push((spec, 1)),
            }
        }
        let smallest = buckets.iter().map(|b| b.1).min().unwrap_or(1);
        let largest = buckets.iter().map(|b| b.1).max().unwrap_or(1);
        let group_size = match 2 * largest < 3 * smallest {
            true => largest,
            false => smallest,
        };
        let mut groups = Vec::new();
        for (spec, n) in buckets {
            let count = n.div_ceil(group_size);
            for g in 0..count {
                // Group g takes layers g, g + count, g + 2·count, ….
                let layers = (n - g).div_ceil(count);
                groups.push(Group { spec, layers });
            }
        }
        KvLayout::Hybrid {
            groups,
            group_size,
            page_bytes: page,
        }
    }

    /// Blocks `available` bytes hold (`get_num_blocks`): the budget ÷ the
    /// sum of one page of every layer (uniform), or ÷ page ÷ group size.
    pub fn num_blocks(&self, available: u64) -> u64 {
        match self {
            KvLayout::Empty => 1,
            KvLayout::Uniform(specs) => {
                available / specs.iter().map(|s| s.page_bytes).sum::<u64>().max(1)
            }
            KvLayout::Hybrid {
                group_size,
                page_bytes,
                ..
            } => available / (*page_bytes).max(1) / u64::from(*group_size).max(1),
        }
    }

    /// Blocks one sequence of `max_model_len` tokens needs, `batched_tokens`
    /// a step: the largest layer's (uniform), or the sum over the groups.
    pub fn blocks_per_sequence(&self, max_model_len: u32, batched_tokens: u32) -> u64 {
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => specs
                .iter()
                .map(|s| {
                    cdiv(
                        s.max_memory_bytes(max_model_len, batched_tokens),
                        s.page_bytes,
                    )
                })
                .max()
                .unwrap_or(0),
            KvLayout::Hybrid {
                groups, page_bytes, ..
            } => groups
                .iter()
                .map(|g| {
                    cdiv(
                        g.spec.max_memory_bytes(max_model_len, batched_tokens),
                        *page_bytes,
                    )
                })
                .sum(),
        }
    }

    /// vLLM's "Maximum concurrency for `max_model_len` tokens per request":
    /// the blocks over what one sequence needs
    /// (`get_max_concurrency_for_kv_cache_config`).
    pub fn max_concurrency(&self, num_blocks: u64, max_model_len: u32, batched_tokens: u32) -> f64 {
        let per_sequence = self.blocks_per_sequence(max_model_len, batched_tokens);
        match per_sequence {
            0 => f64::INFINITY,
            n => num_blocks as f64 / n as f64,
        }
    }

    /// vLLM's "GPU KV cache size: N tokens" (0.19.1–0.20.0,
    /// `_report_kv_cache_config`): the blocks ÷ the groups × the smallest
    /// block size (a state's, `max_model_len`, where that is shorter than
    /// the attention's).
    pub fn kv_tokens(&self, num_blocks: u64) -> u64 {
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => {
                num_blocks
                    * specs
                        .iter()
                        .map(|s| u64::from(s.block_size))
                        .min()
                        .unwrap_or(0)
            }
            KvLayout::Hybrid { groups, .. } => {
                let smallest = groups
                    .iter()
                    .map(|g| u64::from(g.spec.block_size))
                    .min()
                    .unwrap_or(0);
                num_blocks / (groups.len() as u64).max(1) * smallest
            }
        }
    }

    /// Bytes one sequence of `max_model_len` tokens needs on this GPU, as
    /// vLLM checks it before starting (`_max_memory_usage_bytes_from_groups`:
    /// a hybrid layout's padding layers included).
    pub fn bytes_needed(&self, max_model_len: u32, batched_tokens: u32) -> u64 {
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => specs
                .iter()
                .map(|s| s.max_memory_bytes(max_model_len, batched_tokens))
                .sum(),
            KvLayout::Hybrid {
                group_size,
                page_bytes,
                ..
            } => {
                u64::from(*group_size)
                    * page_bytes
                    * self.blocks_per_sequence(max_model_len, batched_tokens)
            }
        }
    }

    /// The longest `max_model_len` up to `max_model_len` whose one sequence
    /// fits `available` bytes (`_estimate_max_model_len_from_groups`: a
    /// binary search over whole lengths); 0 when not even one token does.
    pub fn max_model_len_fits(
        &self,
        available: u64,
        max_model_len: u32,
        batched_tokens: u32,
    ) -> u32 {
        let fits = |len: u32| self.bytes_needed(len, batched_tokens) <= available;
        if !fits(1) {
            return 0;
        }
        let (mut low, mut high, mut best) = (1u32, max_model_len, 1u32);
        while low <= high {
            let mid = low + (high - low) / 2;
            match fits(mid) {
                true => {
                    best = mid;
                    low = mid + 1;
                }
                false => high = mid - 1,
            }
        }
        best
    }
}

/// The bytes vLLM gives the KV cache on one GPU (`Worker.determine_available_
/// memory`, 0.20.0): `⌈total × gpu_memory_utilization⌉` less the weights,
/// the profiled activation peak, the memory outside PyTorch's allocator that
/// appeared while profiling and the CUDA graphs' pool (estimated from 0.20.0
/// on, `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`); `None` when nothing is
/// left ("No available memory for the cache blocks"). A typed
/// `kv_cache_memory_bytes` bypasses all of it.
pub fn available_kv_bytes(
    total: u64,
    gpu_memory_utilization: f64,
    weights: u64,
    activation_peak: u64,
    non_torch: u64,
    cuda_graphs: u64,
) -> Option<u64> {
    let requested = (total as f64 * gpu_memory_utilization).ceil() as u64;
    requested
        .checked_sub(weights + activation_peak + non_torch + cuda_graphs)
        .filter(|&left| left > 0)
}

#[cfg(test)]
mod tests;
