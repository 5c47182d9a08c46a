//! The KV cache as vLLM's v1 engine sizes it, release by release
//! ([`VllmRelease`]: 0.19.1, 0.20.0 and 0.34.0; the two older, whose
//! `vllm/v1/kv_cache_interface.py` and `vllm/v1/core/kv_cache_utils.py`
//! match the tree at 001cabc): each layer's page (the bytes of one block of
//! `block_size` tokens), the groups the hybrid allocator forms, the blocks a
//! budget holds, the "Maximum concurrency" and "GPU KV cache size" it logs,
//! and the longest `max_model_len` a budget allows (its own binary search).
//!
//! All of it is integer arithmetic on bytes, as vLLM's: floor divisions and
//! `cdiv`, no rounding of ours (0.34.0's logged tokens and the concurrency are
//! vLLM's own float product and division).

use vram_shared::model::architecture::Architecture;

/// `CacheConfig.DEFAULT_BLOCK_SIZE` of vLLM 0.19.1–0.20.0: tokens per block
/// unless the attention backend prefers another (`vllm/config/cache.py`).
/// vLLM 0.34.0's is 64: [`VllmRelease::default_block_size`].
pub const DEFAULT_BLOCK_SIZE: u32 = 16;

/// A vLLM release whose KV-cache arithmetic this module reproduces. Every
/// function here whose result differs between releases takes one.
///
/// The default is the newest, [`VllmRelease::NEWEST`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VllmRelease {
    /// vLLM 0.19.1: 0.20.0's KV arithmetic but for a hybrid model's block
    /// (aligned to 16 whatever `--block-size` was typed), its budget before
    /// CUDA graphs are captured (nothing kept back for them) and a default
    /// `gpu_memory_utilization` of 0.9; the release of most published
    /// start-up logs (`tests/measured/vllm-startup-logs.json`).
    V0_19_1,
    /// vLLM 0.20.0: the tree at 001cabc.
    V0_20_0,
    /// vLLM 0.34.0 (`docs/upstream/vllm-0.34-kv.md` lists what changed).
    #[default]
    V0_34_0,
}

impl VllmRelease {
    /// Every release, oldest first.
    pub const ALL: [VllmRelease; 3] = [
        VllmRelease::V0_19_1,
        VllmRelease::V0_20_0,
        VllmRelease::V0_34_0,
    ];

    /// The newest release (the default).
    pub const NEWEST: VllmRelease = VllmRelease::V0_34_0;

    /// The release's version string: "0.20.0", "0.34.0".
    pub const fn key(self) -> &'static str {
        match self {
            VllmRelease::V0_19_1 => "0.19.1",
            VllmRelease::V0_20_0 => "0.20.0",
            VllmRelease::V0_34_0 => "0.34.0",
        }
    }

    /// Tokens a block holds when the user gives no `--block-size` and the
    /// backend takes the default (`CacheConfig.DEFAULT_BLOCK_SIZE`,
    /// `vllm/config/cache.py`): 16 in 0.20.0; 64 in 0.34.0, which
    /// `CacheConfig._apply_block_size_default` fills in and
    /// `Platform.update_block_size_for_backend` →
    /// `_preferred_block_size_for_backends` (`vllm/platforms/interface.py`)
    /// keeps for every backend that accepts it.
    pub const fn default_block_size(self) -> u32 {
        match self {
            VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => DEFAULT_BLOCK_SIZE,
            VllmRelease::V0_34_0 => 64,
        }
    }

    /// `gpu_memory_utilization` when the user gives none: 0.9 in 0.19.1,
    /// 0.92 in 0.20.0
    /// (`CacheConfig`); in 0.34.0 `resolved_gpu_memory_utilization`
    /// (`vllm/config/cache.py`) reads an unset value as 1.0 under the
    /// extensible KV cache, its default on CUDA.
    pub const fn default_gpu_memory_utilization(self) -> f64 {
        match self {
            VllmRelease::V0_19_1 => 0.9,
            VllmRelease::V0_20_0 => 0.92,
            VllmRelease::V0_34_0 => 1.0,
        }
    }

    /// Batches of `max_num_batched_tokens` a sliding-window or chunked-local
    /// layer reserves room for (with pipeline parallelism 1): one in 0.20.0
    /// (`max_memory_usage_bytes` adds `max_num_batched_tokens` once); two in
    /// 0.34.0, whose `SlidingWindowSpec` and `ChunkedLocalAttentionSpec`
    /// `max_admission_blocks_per_request` (`vllm/v1/kv_cache_interface.py`)
    /// add `VllmConfig.max_in_flight_tokens` (`vllm/config/vllm.py`):
    /// `max_concurrent_batches` × `max_num_batched_tokens`, where
    /// `max_concurrent_batches` is PP + 1 with async scheduling, on by
    /// default. Deeper pipelines (PP + 1 batches) are not modelled here.
    pub const fn batches_in_flight(self) -> u64 {
        match self {
            VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => 1,
            VllmRelease::V0_34_0 => 2,
        }
    }

    /// Pages one Gated DeltaNet layer's state holds for a sequence
    /// (`MambaSpec.max_memory_usage_bytes`): one in 0.20.0 (prefix caching
    /// off for hybrid models, `mamba_cache_mode` "none"); three in 0.34.0,
    /// where `ModelConfig.is_prefix_caching_supported`
    /// (`vllm/config/model.py`) turns prefix caching on for hybrid models,
    /// so `MambaModelConfig.verify_and_update_config`
    /// (`vllm/model_executor/models/config.py`) picks "align" mode (two
    /// pages), and `QwenGatedDeltaNetAttention.get_kv_cache_spec`
    /// (`mamba/gdn/qwen_gdn_linear_attn.py`) adds one prefill-checkpoint
    /// page with FlashInfer's GDN prefill (Hopper's).
    pub const fn state_pages(self) -> u64 {
        match self {
            VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => 1,
            VllmRelease::V0_34_0 => 3,
        }
    }
}

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
    /// values up to `max_model_len`. With [`LayerSpec::attention_chunk`]
    /// set, a `ChunkedLocalAttentionSpec` instead.
    Full,
    /// `SlidingWindowSpec`: the last `window − 1` tokens and the tokens in
    /// flight ([`VllmRelease::batches_in_flight`] × `max_num_batched_tokens`),
    /// one block more for the window's misaligned start.
    SlidingWindow(u32),
    /// `MambaSpec`: a sequence's whole recurrent state (Gated DeltaNet's
    /// convolution and delta-rule states) in one page, held
    /// [`VllmRelease::state_pages`] times.
    State,
}

/// One layer's cache on one GPU: its kind, its block size and its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayerSpec {
    /// The kind of cache.
    pub kind: LayerKind,
    /// Tokens a block holds (a state's block: the whole `max_model_len` in
    /// 0.20.0, the attention's block in 0.34.0).
    pub block_size: u32,
    /// Bytes of one block (`page_size_bytes`).
    pub page_bytes: u64,
    /// Chunked local attention (Llama 4's `attention_chunk_size`, tokens):
    /// `Some` on a [`LayerKind::Full`] layer makes it vLLM's
    /// `ChunkedLocalAttentionSpec` (`vllm/v1/kv_cache_interface.py`), its
    /// own kind to the hybrid allocator (kept beside the kind, as vLLM's
    /// `FullAttentionSpec.attention_chunk_size`, so that matches on
    /// [`LayerKind`] elsewhere stay whole); `None` otherwise.
    pub attention_chunk: Option<u32>,
}

impl LayerSpec {
    /// Whether this is a chunked-local-attention layer
    /// (`ChunkedLocalAttentionSpec`).
    pub const fn is_chunked_local(&self) -> bool {
        matches!(
            (self.kind, self.attention_chunk),
            (LayerKind::Full, Some(_))
        )
    }

    /// The most bytes this layer's cache holds for one sequence of
    /// `max_model_len` tokens with `batched_tokens` scheduled a step
    /// (`max_memory_usage_bytes`, without context parallelism or
    /// speculative tokens) under `release`:
    /// - full attention: ⌈`max_model_len` ÷ block⌉ pages;
    /// - a window of w: one page more than ⌈min(w − 1 + in flight,
    ///   `max_model_len`) ÷ block⌉, in flight being
    ///   [`VllmRelease::batches_in_flight`] × `batched_tokens` (0.34.0:
    ///   `SlidingWindowSpec.max_admission_blocks_per_request`);
    /// - chunks of c: ⌈min(c + in flight, `max_model_len`) ÷ block⌉ pages
    ///   (0.34.0: `ChunkedLocalAttentionSpec.max_admission_blocks_per_request`);
    /// - a state: [`VllmRelease::state_pages`] pages.
    pub fn max_memory_bytes(
        &self,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> u64 {
        let bs = u64::from(self.block_size);
        let len = u64::from(max_model_len);
        let in_flight = release.batches_in_flight() * u64::from(batched_tokens);
        match (self.kind, self.attention_chunk) {
            (LayerKind::Full, Some(chunk)) => {
                cdiv((u64::from(chunk) + in_flight).min(len), bs) * self.page_bytes
            }
            (LayerKind::Full, None) => cdiv(len, bs) * self.page_bytes,
            (LayerKind::SlidingWindow(window), _) => {
                let tokens = (u64::from(window) - 1 + in_flight).min(len);
                (cdiv(tokens, bs) + 1) * self.page_bytes
            }
            (LayerKind::State, _) => release.state_pages() * self.page_bytes,
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
/// 100 Blackwell) when the user gives no `--block-size`, before a hybrid
/// model's alignment ([`layer_specs`]), in tokens.
/// - 0.20.0: 16, but latent attention's backends prefer their own
///   (FlashAttention-MLA 16 on Hopper in 16 bits, FlashMLA 64 there with FP8
///   values, FlashInfer-MLA 32 on Blackwell: `platforms/cuda.py`'s
///   priorities, each backend's `get_preferred_block_size`).
/// - 0.34.0: 64 ([`VllmRelease::default_block_size`]), which FlashAttention
///   (`MultipleOf(16)`), FlashAttention-MLA, FlashMLA (64) and
///   FlashInfer-MLA (32 or 64) all accept, so
///   `Platform._preferred_block_size_for_backends`
///   (`vllm/platforms/interface.py`) keeps it. (FlashAttention 4's head-256
///   and SM90 FP8 kernel sizes, which would raise it, are not modelled.)
pub fn default_block_size(
    arch: &Architecture,
    value_bytes: u64,
    sm: u32,
    release: VllmRelease,
) -> u32 {
    if release == VllmRelease::V0_34_0 {
        return release.default_block_size();
    }
    match (arch.mla.is_latent(), sm) {
        (false, _) => DEFAULT_BLOCK_SIZE,
        (true, sm) if sm >= 100 => 32,
        (true, 90) if value_bytes == 1 => 64,
        (true, _) => DEFAULT_BLOCK_SIZE,
    }
}

/// Gated DeltaNet's prefill-checkpoint alignment with FlashInfer's GDN
/// prefill, tokens (0.34.0: `FLASHINFER_GDN_CHECKPOINT_ALIGNMENT`,
/// `vllm/v1/attention/backends/gdn_attn.py`).
const GDN_CHECKPOINT_ALIGNMENT: u64 = 64;

/// The tokens of a hybrid model's attention block: `block` raised until a
/// block of attention holds a state of `state` bytes at `per_token` bytes a
/// token (`Platform._align_hybrid_block_size`, `vllm/platforms/interface.py`):
/// `a × ⌈state ÷ (a × per_token)⌉`, `a` the larger of the backend's smallest
/// kernel block (16; 64 latent) and `block`.
/// 0.34.0 also rounds `a` to a multiple of 128 for latent attention and,
/// in "align" Mamba mode, takes the least common multiple with the layers'
/// prefill-checkpoint alignment (64 with FlashInfer's GDN prefill:
/// `mamba/abstract.py` `get_mamba_prefill_checkpoint_alignment`).
fn hybrid_block(block: u64, state: u64, per_token: u64, latent: bool, release: VllmRelease) -> u64 {
    let align = match release {
        // `kernel_block_alignment_size = max(min(kernel block sizes),
        // cache_config.block_size)`: a typed 64 aligns to 64, not 16.
        VllmRelease::V0_19_1 => {
            if latent {
                64
            } else {
                16
            }
        }
        VllmRelease::V0_20_0 => block.max(if latent { 64 } else { 16 }),
        VllmRelease::V0_34_0 => {
            let kernel = block.max(if latent { 128 } else { 16 });
            kernel / gcd(kernel, GDN_CHECKPOINT_ALIGNMENT) * GDN_CHECKPOINT_ALIGNMENT
        }
    };
    block.max(align * cdiv(state, align * per_token))
}

/// The greatest common divisor (Euclid's).
const fn gcd(a: u64, b: u64) -> u64 {
    match b {
        0 => a,
        b => gcd(b, a % b),
    }
}

/// The layers of `layers` (a pipeline stage's, or all) as vLLM `release`
/// specifies their caches on a GPU of a `tp`-wide group, blocks of
/// `block_size` tokens, values `value_bytes` wide in a model of
/// `model_bytes`-wide weights, serving `max_model_len` tokens.
///
/// Chunked local attention (Llama 4) is vLLM's `ChunkedLocalAttentionSpec`
/// ([`LayerSpec::attention_chunk`]) in both releases: the hybrid allocator
/// stays on for it (`VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE`
/// defaults to 1), so its layers form groups of their own.
///
/// A model with linear-attention layers has its attention block size raised
/// until a block of every layer is one page (`hybrid_block`; 0.19.1's
/// `HybridAttentionMambaModelConfig` aligned to 16 (64) whatever the block
/// size, so it differs from 0.20.0 for a typed `--block-size` above it), its
/// state's page padded to it. A state's block is the whole `max_model_len`
/// in 0.20.0 (`mamba_block_size` without prefix caching, off by default for
/// hybrid models: `MambaModelConfig.verify_and_update_config`) and the
/// attention's block in 0.34.0 (prefix caching on, "align" mode:
/// `mamba_block_size` = `block_size`, the same function).
#[allow(clippy::too_many_arguments)] // One parameter per vLLM input, and the release.
pub fn layer_specs(
    arch: &Architecture,
    layers: core::ops::Range<u32>,
    tp: u32,
    value_bytes: u64,
    model_bytes: u64,
    block_size: u32,
    max_model_len: u32,
    release: VllmRelease,
) -> Vec<LayerSpec> {
    let per_token = attention_bytes_per_token(arch, tp, value_bytes);
    let state = linear_state_bytes(arch, tp, model_bytes);
    let has_state = layers.clone().any(|i| arch.is_linear_layer(i));
    let mut block = u64::from(block_size.max(1));
    let mut state_page = state;
    if has_state && per_token > 0 {
        block = hybrid_block(block, state, per_token, arch.mla.is_latent(), release);
        state_page = state_page.max(block * per_token);
    }
    let attention_block = u32::try_from(block).unwrap_or(u32::MAX);
    let state_block = match release {
        VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => max_model_len,
        VllmRelease::V0_34_0 => attention_block,
    };
    let local = arch.local.window > 0;
    let chunk = (local && arch.local.chunked).then_some(arch.local.window);
    let window = !arch.local.chunked && local;
    layers
        .map(|i| {
            let spec = |kind, block_size, page_bytes, attention_chunk| LayerSpec {
                kind,
                block_size,
                page_bytes,
                attention_chunk,
            };
            let page = block * per_token;
            match (arch.is_linear_layer(i), arch.local.is_local_layer(i)) {
                (true, _) => spec(LayerKind::State, state_block, state_page, None),
                (false, true) if window => spec(
                    LayerKind::SlidingWindow(arch.local.window),
                    attention_block,
                    page,
                    None,
                ),
                (false, true) => spec(LayerKind::Full, attention_block, page, chunk),
                (false, false) => spec(LayerKind::Full, attention_block, page, None),
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
        // One kind: the same class, window or chunk, and block size
        // (`UniformTypeKVCacheSpecs.is_uniform_type`).
        let same_kind = specs.iter().all(|s| {
            s.kind == first.kind
                && s.attention_chunk == first.attention_chunk
                && s.block_size == first.block_size
        });
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

    /// Blocks `available` bytes hold (`get_num_blocks`): the budget ÷
    /// [`KvLayout::bytes_per_block`]. The same in both releases (0.34.0
    /// allocates from the whole budget, the null block included).
    pub fn num_blocks(&self, available: u64) -> u64 {
        match self {
            KvLayout::Empty => 1,
            _ => available / self.bytes_per_block().max(1),
        }
    }

    /// Bytes one block takes across every layer of the pool: the sum of one
    /// page of every layer (uniform), or the page × the group size (the
    /// widest group's layers); 0 with no layers. 0.34.0 calls it
    /// `_pool_bytes_per_block_from_builder` (`vllm/v1/core/kv_cache_planning.py`;
    /// with the layer-outermost layout, LBNHC, that FlashAttention and
    /// FlashMLA leave in place, it equals 0.20.0's divisor).
    pub fn bytes_per_block(&self) -> u64 {
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => specs.iter().map(|s| s.page_bytes).sum(),
            KvLayout::Hybrid {
                group_size,
                page_bytes,
                ..
            } => page_bytes * u64::from(*group_size),
        }
    }

    /// Blocks one sequence of `max_model_len` tokens needs, `batched_tokens`
    /// a step, under `release`: the largest layer's ⌈max memory ÷ page⌉
    /// (uniform), or the sum over the groups of theirs. 0.34.0's
    /// `get_max_concurrency_for_kv_cache_config` (`kv_cache_utils.py`) sums
    /// it per group; 0.20.0 rounded the groups' total once, which is the
    /// same here, every group's max memory being whole pages.
    pub fn blocks_per_sequence(
        &self,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> u64 {
        let most = |s: &LayerSpec| s.max_memory_bytes(max_model_len, batched_tokens, release);
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => specs
                .iter()
                .map(|s| cdiv(most(s), s.page_bytes))
                .max()
                .unwrap_or(0),
            KvLayout::Hybrid {
                groups, page_bytes, ..
            } => groups
                .iter()
                .map(|g| cdiv(most(&g.spec), *page_bytes))
                .sum(),
        }
    }

    /// vLLM's "Maximum concurrency for `max_model_len` tokens per request"
    /// (sequences): the blocks over what one sequence needs
    /// (`get_max_concurrency_for_kv_cache_config`).
    pub fn max_concurrency(
        &self,
        num_blocks: u64,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> f64 {
        let per_sequence = self.blocks_per_sequence(max_model_len, batched_tokens, release);
        match per_sequence {
            0 => f64::INFINITY,
            n => num_blocks as f64 / n as f64,
        }
    }

    /// vLLM's "GPU KV cache size: N tokens" for `num_blocks` blocks.
    /// - 0.20.0 (and 0.19.1, `_report_kv_cache_config`): the blocks ÷ the
    ///   groups × the smallest block size (a state's, `max_model_len`,
    ///   where that is shorter than the attention's).
    /// - 0.34.0 (`kv_cache_utils.py` `get_kv_cache_capacity`, logged by
    ///   `update_kv_cache_capacity`): the integer part of the maximum
    ///   concurrency × `max_model_len`, tokens at `max_model_len` a request
    ///   rather than the pool's slots.
    pub fn kv_tokens(
        &self,
        num_blocks: u64,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> u64 {
        if release == VllmRelease::V0_34_0 {
            return match self {
                KvLayout::Empty => 0,
                _ => {
                    let concurrency =
                        self.max_concurrency(num_blocks, max_model_len, batched_tokens, release);
                    (concurrency * f64::from(max_model_len)) as u64
                }
            };
        }
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
    pub fn bytes_needed(
        &self,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> u64 {
        match self {
            KvLayout::Empty => 0,
            KvLayout::Uniform(specs) => specs
                .iter()
                .map(|s| s.max_memory_bytes(max_model_len, batched_tokens, release))
                .sum(),
            KvLayout::Hybrid { .. } => {
                self.bytes_per_block()
                    * self.blocks_per_sequence(max_model_len, batched_tokens, release)
            }
        }
    }

    /// The bytes of `available` vLLM `release` plans sequences against:
    /// all of it in 0.20.0; in 0.34.0 one block less, the null block the
    /// block pool holds back (`get_kv_cache_configs`,
    /// `vllm/v1/core/kv_cache_planning.py`: its fit check and auto-fit take
    /// the budget less [`KvLayout::bytes_per_block`]).
    pub fn planned_bytes(&self, available: u64, release: VllmRelease) -> u64 {
        match release {
            VllmRelease::V0_19_1 | VllmRelease::V0_20_0 => available,
            VllmRelease::V0_34_0 => available.saturating_sub(self.bytes_per_block()),
        }
    }

    /// Whether vLLM `release` starts with `available` bytes: one sequence of
    /// `max_model_len` tokens fits the planned bytes
    /// ([`KvLayout::planned_bytes`]); otherwise "To serve at least one
    /// request with the model's max seq len …" (or, with nothing left once
    /// the null block is held back, "No available memory for the cache
    /// blocks").
    pub fn starts(
        &self,
        available: u64,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> bool {
        let planned = self.planned_bytes(available, release);
        match self {
            KvLayout::Empty => true,
            _ => {
                planned > 0 && self.bytes_needed(max_model_len, batched_tokens, release) <= planned
            }
        }
    }

    /// The longest `max_model_len` up to `max_model_len` whose one sequence
    /// fits the bytes vLLM `release` plans against out of `available`
    /// ([`KvLayout::planned_bytes`]; `_estimate_max_model_len_from_groups`:
    /// a binary search over whole lengths), tokens; 0 when not even one
    /// token does. 0.34.0's is thus usually a block shorter than 0.20.0's.
    pub fn max_model_len_fits(
        &self,
        available: u64,
        max_model_len: u32,
        batched_tokens: u32,
        release: VllmRelease,
    ) -> u32 {
        let planned = self.planned_bytes(available, release);
        let needed = |len: u32| self.bytes_needed(len, batched_tokens, release);
        longest_fit(max_model_len, |len| needed(len) <= planned)
    }
}

/// vLLM's binary search for the longest length in `1..=max_model_len` that
/// `fits` (both releases' `_estimate_max_model_len_from_groups` and
/// `estimate_max_model_len`); 0 when 1 does not.
fn longest_fit(max_model_len: u32, fits: impl Fn(u32) -> bool) -> u32 {
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

/// vLLM's public `estimate_max_model_len` (`kv_cache_planning.py` in 0.34.0,
/// `kv_cache_utils.py` in 0.20.0): the longest `max_model_len` up to
/// `max_model_len` at which every layer's own spec of `specs` (unpadded, no
/// groups) holds one sequence in `available` bytes, tokens; 0 when not even
/// one token does. It plans against the whole budget in both releases (no
/// null block), and the engine itself uses the group-aware
/// [`KvLayout::max_model_len_fits`] instead.
pub fn estimate_max_model_len(
    specs: &[LayerSpec],
    available: u64,
    max_model_len: u32,
    batched_tokens: u32,
    release: VllmRelease,
) -> u32 {
    let needed = |len: u32| -> u64 {
        specs
            .iter()
            .map(|s| s.max_memory_bytes(len, batched_tokens, release))
            .sum()
    };
    longest_fit(max_model_len, |len| needed(len) <= available)
}

/// What a vLLM engine holds on one GPU beside its KV cache, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldBeside {
    /// The weights.
    pub weights: u64,
    /// The profiled activation peak (transient).
    pub activation_peak: u64,
    /// The memory outside PyTorch's allocator.
    pub non_torch: u64,
    /// The CUDA graphs' pool.
    pub cuda_graphs: u64,
}

/// The least headroom vLLM 0.34.0 keeps beside the extensible KV cache,
/// bytes (`KV_CACHE_MARGIN_FLOOR_BYTES`, 1 GiB on CUDA).
pub const KV_CACHE_MARGIN_FLOOR_BYTES: u64 = 1 << 30;

/// The bytes vLLM gives the KV cache on one GPU of `total` bytes (as CUDA
/// reports it); `None` when nothing is left ("No available memory for the
/// cache blocks"). A typed `kv_cache_memory_bytes` bypasses all of it.
///
/// - 0.19.1: the same, the cache sized before the graphs are captured
///   (none kept back for them; they come out of what the utilisation leaves).
/// - 0.20.0 (`Worker.determine_available_memory`): `⌈total ×
///   gpu_memory_utilization⌉` less everything `held` (the CUDA graphs'
///   pool estimated before sizing, `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`).
/// - 0.34.0, the extensible KV cache sized after warmup and graph capture
///   (`measure_kv_cache_bytes`, `vllm/v1/worker/extensible_kv_cache.py`):
///   the smaller of `⌈total × gpu_memory_utilization⌉` and the device less a
///   margin of max(1 GiB, 0.75 × the activation peak), each less what stays
///   resident (weights, non-torch memory, graphs), then less the peak itself,
///   kept free in full (torch's reserve growth, which warmup measures, taken
///   as none).
pub fn available_kv_bytes(
    release: VllmRelease,
    total: u64,
    gpu_memory_utilization: f64,
    held: HeldBeside,
) -> Option<u64> {
    let requested = (total as f64 * gpu_memory_utilization).ceil() as u64;
    let resident = held.weights + held.non_torch + held.cuda_graphs;
    let peak = held.activation_peak;
    let room = match release {
        // 0.19.1 sizes the cache before capturing graphs: none kept back.
        VllmRelease::V0_19_1 => requested.checked_sub(resident - held.cuda_graphs)?,
        VllmRelease::V0_20_0 => requested.checked_sub(resident)?,
        VllmRelease::V0_34_0 => {
            let margin = KV_CACHE_MARGIN_FLOOR_BYTES.max((peak as f64 * 0.75) as u64);
            let within_device = total.checked_sub(resident + margin)?;
            requested.checked_sub(resident)?.min(within_device)
        }
    };
    room.checked_sub(peak).filter(|&left| left > 0)
}

#[cfg(test)]
mod tests;
