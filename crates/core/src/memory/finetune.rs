//! Fine-tuning with adapters: LoRA on a frozen 16-bit base, QLoRA on a 4-bit
//! (or 8-bit) one. What is trained, what is frozen, and what each costs.
//!
//! Sources, read in their code:
//! - PEFT (huggingface/peft, `src/peft/tuners/lora/layer.py`): LoRA on a linear
//!   layer `d_in → d_out` adds `lora_A` (`d_in → r`) and `lora_B` (`r → d_out`),
//!   both without bias, so `r·(d_in + d_out)` trainable parameters; PEFT's
//!   default targets for Llama-style models are `q_proj` and `v_proj`, and
//!   `all-linear` is every linear layer of the blocks, the output head left out.
//! - bitsandbytes: the quantised base's bytes, per tensor, as
//!   [`vram_shared::storage`] models them (NF4 with or without double
//!   quantisation, LLM.int8).
//! - Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs".

use serde::{Deserialize, Serialize};

use crate::memory::activations::{ActivationSetup, FrozenInputs, Recompute};
use vram_shared::model::architecture::{Architecture, Mlp};
use vram_shared::storage;
use vram_shared::units::Bytes;

/// What is trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Method {
    /// Every parameter (the lesson's case).
    #[default]
    Full,
    /// LoRA adapters on a frozen base in the weights' 16-bit format.
    Lora,
    /// LoRA adapters on a quantised frozen base (QLoRA).
    Qlora,
}

impl Method {
    /// Every method, in the order the page lists them.
    pub const ALL: [Method; 3] = [Method::Full, Method::Lora, Method::Qlora];

    /// The value in the link's `method` key.
    pub const fn key(self) -> &'static str {
        match self {
            Method::Full => "full",
            Method::Lora => "lora",
            Method::Qlora => "qlora",
        }
    }

    /// The method's name.
    pub const fn label(self) -> &'static str {
        match self {
            Method::Full => "full training",
            Method::Lora => "LoRA",
            Method::Qlora => "QLoRA",
        }
    }

    /// Whether adapters are trained on a frozen base.
    pub const fn uses_adapters(self) -> bool {
        !matches!(self, Method::Full)
    }
}

/// Which linear layers of each block get an adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Targets {
    /// The query and value projections (PEFT's default for Llama-style models).
    #[default]
    Qv,
    /// The four attention projections: query, key, value, output.
    Attn,
    /// The MLP's matrices (gate, up, down; or the two of a GELU MLP).
    Mlp,
    /// Every linear layer of the blocks (PEFT's `all-linear`, without the output head).
    All,
}

impl Targets {
    /// Every target set, in the order the page lists them.
    pub const ALL: [Targets; 4] = [Targets::Qv, Targets::Attn, Targets::Mlp, Targets::All];

    /// The value in the link's `targets` key.
    pub const fn key(self) -> &'static str {
        match self {
            Targets::Qv => "qv",
            Targets::Attn => "attn",
            Targets::Mlp => "mlp",
            Targets::All => "all",
        }
    }

    /// Whether a linear layer of `kind` gets an adapter.
    pub const fn includes(self, kind: Linear) -> bool {
        let mlp = matches!(kind, Linear::MlpIn | Linear::MlpOut);
        match self {
            Targets::Qv => matches!(kind, Linear::Query | Linear::Value),
            Targets::Attn => !mlp,
            Targets::Mlp => mlp,
            Targets::All => true,
        }
    }
}

/// How QLoRA stores the frozen base's linear weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Quant {
    /// 4-bit NormalFloat in blocks of 64 (bitsandbytes `nf4`).
    #[default]
    Nf4,
    /// LLM.int8: one byte per weight and an fp32 scale per output row.
    Int8,
}

impl Quant {
    /// Every format, in the order the page lists them.
    pub const ALL: [Quant; 2] = [Quant::Nf4, Quant::Int8];

    /// The value in the link's `quant` key.
    pub const fn key(self) -> &'static str {
        match self {
            Quant::Nf4 => "nf4",
            Quant::Int8 => "int8",
        }
    }
}

/// The bitsandbytes release QLoRA's 4-bit base runs on, as far as what its
/// matmul saves for the backward is concerned. Through 0.43.1,
/// `MatMul4Bit.forward` saved its input whenever the input or the weight
/// needed a gradient (`ctx.tensors = (A, B)`), so each frozen 4-bit linear
/// kept its input though no weight gradient needs it; from 0.43.2 it saves
/// none (`(None, B)`). Read in the 0.42.0, 0.43.1 and 0.43.2 wheels,
/// `bitsandbytes/autograd/_functions.py`. LLM.int8 is not changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BnbRelease {
    /// 0.43.1 and before: each 4-bit linear keeps its input.
    Before0432,
    /// 0.43.2 and after (what `pip install bitsandbytes` gives today).
    #[default]
    Current,
}

impl BnbRelease {
    /// Every release, oldest first.
    pub const ALL: [BnbRelease; 2] = [BnbRelease::Before0432, BnbRelease::Current];

    /// The value in the link's `bnb` key: the last release that behaves so.
    pub const fn key(self) -> &'static str {
        match self {
            BnbRelease::Before0432 => "0.43.1",
            BnbRelease::Current => "0.43.2",
        }
    }
}

/// The dtype PEFT gives the adapters' weights on a 16-bit base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum AdapterDtype {
    /// fp32 (`get_peft_model(..., autocast_adapter_dtype=True)`, PEFT's default):
    /// each adapted layer casts its input to fp32 for `lora_A`.
    #[default]
    Fp32,
    /// The base model's dtype (`autocast_adapter_dtype=False`).
    Model,
}

impl AdapterDtype {
    /// Every dtype, in the order the page lists them.
    pub const ALL: [AdapterDtype; 2] = [AdapterDtype::Fp32, AdapterDtype::Model];

    /// The value in the link's `adapter_dtype` key.
    pub const fn key(self) -> &'static str {
        match self {
            AdapterDtype::Fp32 => "fp32",
            AdapterDtype::Model => "model",
        }
    }
}

/// How a model is fine-tuned: the method, and for adapters their rank and
/// targets, dropout and dtype, and the base's storage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FineTuning {
    /// What is trained.
    pub method: Method,
    /// The adapters' rank `r`.
    pub rank: u32,
    /// Which linear layers get adapters.
    pub targets: Targets,
    /// How QLoRA stores the base.
    pub quant: Quant,
    /// Whether QLoRA's NF4 absmaxes are quantised too (`bnb_4bit_use_double_quant`).
    pub double_quant: bool,
    /// The bitsandbytes release the 4-bit base runs on.
    #[serde(default)]
    pub bnb: BnbRelease,
    /// The adapters' dropout probability (`LoraConfig.lora_dropout`, 0 by default).
    pub lora_dropout: f64,
    /// The adapters' dtype on a 16-bit base.
    pub adapter_dtype: AdapterDtype,
    /// DoRA (`LoraConfig.use_dora`): each adapted weight's magnitude, one
    /// value a row, trained beside LoRA's pair (Liu et al. 2024).
    #[serde(default)]
    pub dora: bool,
    /// Whether the frozen base is held in fp32 beside 16-bit compute, not in
    /// the weights' 16 bits: verl builds its actor in fp32
    /// (`fsdp_config.model_dtype: fp32`, verl 0.9.1's `FSDPEngineConfig`)
    /// and FSDP casts each unit to bf16 as it gathers it, so a LoRA actor's
    /// base costs 4 bytes a parameter. Not a key: the RL learner sets it.
    #[serde(skip)]
    pub frozen_base_fp32: bool,
}

impl Default for FineTuning {
    /// Full training; for adapters PEFT's defaults (r = 8 on q and v) and the
    /// QLoRA paper's NF4 with double quantisation.
    fn default() -> Self {
        FineTuning {
            method: Method::Full,
            rank: 8,
            targets: Targets::Qv,
            quant: Quant::Nf4,
            double_quant: true,
            bnb: BnbRelease::Current,
            lora_dropout: 0.0,
            adapter_dtype: AdapterDtype::Fp32,
            dora: false,
            frozen_base_fp32: false,
        }
    }
}

/// A linear layer's role in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linear {
    /// The query projection.
    Query,
    /// The key projection.
    Key,
    /// The value projection.
    Value,
    /// The attention's output projection.
    Output,
    /// An MLP matrix reading the block's normalised input (gate, up).
    MlpIn,
    /// The MLP's down projection, reading the MLP's hidden width.
    MlpOut,
}

/// The linear layers of one block, as `(role, d_in, d_out)`: the attention
/// projections, then the MLP's matrices (gate, up, down for SwiGLU; up, down for
/// GELU). Latent attention's are DeepSeek's: the query's `q_proj`, or `q_a_proj`
/// and `q_b_proj` through its low rank (roles `Query`), `kv_a_proj_with_mqa`
/// and `kv_b_proj` (roles `Key`: there is no value projection of its own) and
/// `o_proj`.
pub fn block_linears(arch: &Architecture) -> impl Iterator<Item = (Linear, u64, u64)> {
    let h = u64::from(arch.hidden);
    let kv = arch.kv_width();
    let f = u64::from(arch.ffn);
    let mlp: &[Linear] = match arch.mlp {
        Mlp::SwiGlu => &[Linear::MlpIn, Linear::MlpIn, Linear::MlpOut],
        Mlp::Gelu => &[Linear::MlpIn, Linear::MlpOut],
    };
    let q = arch.q_width();
    let m = arch.mla;
    let attention: [Option<(Linear, u64, u64)>; 5] = if m.is_latent() {
        let heads = u64::from(arch.heads);
        let (q_rank, kv_rank) = (u64::from(m.q_rank), u64::from(m.kv_rank));
        let query = heads * arch.head_dim();
        [
            Some(match q_rank {
                0 => (Linear::Query, h, query),
                _ => (Linear::Query, h, q_rank),
            }),
            (q_rank > 0).then_some((Linear::Query, q_rank, query)),
            Some((Linear::Key, h, kv_rank + u64::from(m.rope_dim))),
            Some((
                Linear::Key,
                kv_rank,
                heads * u64::from(m.nope_dim + m.v_dim),
            )),
            Some((Linear::Output, arch.v_width(), h)),
        ]
    } else {
        [
            Some((Linear::Query, h, q)),
            Some((Linear::Key, h, kv)),
            Some((Linear::Value, h, kv)),
            Some((Linear::Output, q, h)),
            None,
        ]
    };
    attention
        .into_iter()
        .flatten()
        .chain(mlp.iter().map(move |&role| match role {
            Linear::MlpOut => (role, f, h),
            _ => (role, h, f),
        }))
}

/// The adapters' parameters, exactly as PEFT counts them: `r·(d_in + d_out)`
/// for each targeted linear layer of each block. A mixture's layers keep their
/// attention's; with the MLPs targeted, each routed expert gets its own rank-r
/// pair on transformers' fused tensors (PEFT's `target_parameters`):
/// `r·E·(h + 2f_e)` on `gate_up_proj` (one pair for gate and up) and
/// `r·E·(f_e + h)` on `down_proj`. The router, the shared experts and a
/// mixture's leading dense layers' MLPs stay frozen.
pub fn adapter_params(arch: &Architecture, targets: Targets, rank: u32) -> u64 {
    let r = u64::from(rank);
    let attention: u64 = block_linears(arch)
        .filter(|&(kind, _, _)| targets.includes(kind))
        .map(|(kind, d_in, d_out)| match kind {
            Linear::MlpIn | Linear::MlpOut if arch.moe.is_moe() => 0,
            _ => r * (d_in + d_out),
        })
        .sum();
    let moe = arch.moe;
    let experts = match moe.is_moe() && targets.includes(Linear::MlpIn) {
        true => {
            let (h, f) = (u64::from(arch.hidden), u64::from(moe.expert_ffn));
            let first = (arch.mlp.matrices() - 1) * f;
            u64::from(arch.layers - arch.dense_layer_count())
                * r
                * u64::from(moe.experts)
                * ((h + first) + (f + h))
        }
        false => 0,
    };
    u64::from(arch.layers) * attention + experts
}

/// How many linear layers of each block get an adapter.
pub fn adapted_per_layer(arch: &Architecture, targets: Targets) -> u64 {
    block_linears(arch)
        .filter(|&(kind, _, _)| targets.includes(kind))
        .count() as u64
}

/// The weights of the blocks' linear layers: what QLoRA quantises (biases,
/// norms, embeddings and the output head stay in 16 bits).
pub fn block_linear_params(arch: &Architecture) -> u64 {
    let per_layer: u64 = block_linears(arch).map(|(_, i, o)| i * o).sum();
    u64::from(arch.layers) * per_layer
}

/// The largest linear weight of a block, in values: what QLoRA dequantises
/// into a 16-bit working buffer for each matrix product.
pub fn largest_block_linear(arch: &Architecture) -> u64 {
    block_linears(arch)
        .map(|(_, i, o)| i * o)
        .max()
        .unwrap_or(0)
}

/// Bytes of one weight of `n` values stored as `quant`, with all its
/// quantisation constants, for a layer of `d_out` output rows
/// ([`vram_shared::storage`]'s layouts).
pub fn quantized_tensor_bytes(n: u64, d_out: u64, quant: Quant, double_quant: bool) -> u64 {
    match quant {
        Quant::Int8 => storage::int8_tensor_bytes(n, d_out),
        Quant::Nf4 => storage::nf4_tensor_bytes(n, double_quant),
    }
}

/// Bytes of all the blocks' linear weights stored as `quant`.
pub fn quantized_bytes(arch: &Architecture, quant: Quant, double_quant: bool) -> u64 {
    let per_layer: u64 = block_linears(arch)
        .map(|(_, d_in, d_out)| quantized_tensor_bytes(d_in * d_out, d_out, quant, double_quant))
        .sum();
    let shared = match (quant, double_quant) {
        (Quant::Nf4, true) => storage::SHARED_DYNAMIC_MAP_BYTES,
        _ => 0,
    };
    u64::from(arch.layers) * per_layer + shared
}

/// What adapters change in a model: the trainable and frozen parameters, and
/// the bytes of the frozen base as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adapters {
    /// The adapters' parameters: the only ones with gradients and optimizer states.
    pub trainable: u64,
    /// The base's parameters, frozen.
    pub frozen: u64,
    /// Bytes of the frozen base: 16-bit, or quantised linear weights and the rest in 16 bits.
    pub frozen_bytes: u64,
    /// QLoRA's working buffer: the largest linear weight dequantised to 16 bits.
    pub working_bytes: u64,
    /// How many linear layers of each block have an adapter.
    pub adapted_per_layer: u64,
    /// The adapters' rank.
    pub rank: u32,
    /// Which linear layers have one.
    pub targets: Targets,
    /// Whether the frozen base's linears keep their inputs all the same:
    /// QLoRA's NF4 under bitsandbytes before 0.43.2 ([`BnbRelease`]).
    #[serde(skip)]
    pub keeps_base_inputs: bool,
    /// Whether the adapters' dropout is on (`lora_dropout` above 0).
    pub dropout: bool,
    /// The adapters' dtype on a 16-bit base.
    pub adapter_dtype: AdapterDtype,
    /// DoRA's magnitudes: the adapted layers' output widths summed over one
    /// block (`d`), or 0 for plain LoRA.
    pub dora_outputs: u64,
}

impl Adapters {
    /// The base linears whose inputs no weight gradient needs and no adapter
    /// reads ([`FrozenInputs`]): under q,v or the attention's targets the
    /// MLP's, under the MLP's the query/key/value projection's.
    pub const fn frozen_inputs(&self) -> FrozenInputs {
        if self.keeps_base_inputs {
            return FrozenInputs::NONE;
        }
        let (attention, mlp) = match self.targets {
            Targets::Qv | Targets::Attn => (true, false),
            Targets::Mlp => (false, true),
            Targets::All => (true, true),
        };
        FrozenInputs {
            qkv: !attention,
            mlp_in: !mlp,
            mlp_out: !mlp,
        }
    }

    /// What the adapters keep for the backward pass on one GPU: the output of
    /// each adapted layer's `lora_A`, `r` values per token, which `lora_B`
    /// needs (the input of `lora_A` is the base layer's, already counted; with
    /// PEFT's default `lora_dropout = 0` it is the same tensor); with DoRA
    /// also each adapted layer's base and LoRA outputs, `2·d` values per token,
    /// which the magnitude's gradient needs (PEFT's `DoraLinearLayer`,
    /// measured: `measured/dora.json`). Full recomputation keeps only the
    /// layers' inputs, so nothing more.
    pub fn activations(&self, arch: &Architecture, setup: &ActivationSetup) -> Bytes {
        if setup.recompute == Recompute::Full {
            return Bytes::ZERO;
        }
        let tokens = f64::from(setup.seq_len) * f64::from(setup.micro_batch);
        let values = self.adapted_per_layer * u64::from(self.rank) + 2 * self.dora_outputs;
        let per_layer = values as f64 * tokens;
        Bytes::new(f64::from(arch.layers) * per_layer * setup.bytes_per_value)
    }
}

impl Adapters {
    /// QLoRA with the output head quantised too, as LitGPT's Lightning
    /// `BitsandbytesPrecision` swaps every `nn.Linear` (its
    /// `_convert_layers`, no module ignored by `finetune/lora.py`): the
    /// head's `vocab × hidden` weight stored as `quant` instead of
    /// `weight_bytes` a value, and the working buffer the larger of the
    /// blocks' and the head's dequantised weight, twice: the plugin
    /// quantises each weight from fp16 (`_Linear4bit.quantize`:
    /// `weight.to(dtype=torch.half)`), so bitsandbytes' `dequantize_4bit`
    /// writes an fp16 weight (its `quant_state.dtype`) and `MatMul4Bit`
    /// casts it to the bf16 input's dtype while it is alive, in the forward
    /// and in the backward (bitsandbytes 0.42.0, Lightning 2.4). A tied head
    /// is the embedding's matrix, left as it is; not QLoRA: unchanged.
    pub fn with_quantized_head(
        self,
        arch: &Architecture,
        tuning: &FineTuning,
        weight_bytes: u64,
    ) -> Adapters {
        if tuning.method != Method::Qlora || arch.tied_embeddings {
            return self;
        }
        let head = u64::from(arch.vocab) * u64::from(arch.hidden);
        let stored = quantized_tensor_bytes(
            head,
            u64::from(arch.vocab),
            tuning.quant,
            tuning.double_quant,
        );
        Adapters {
            frozen_bytes: self.frozen_bytes.saturating_sub(head * weight_bytes) + stored,
            working_bytes: 2 * self.working_bytes.max(head * 2),
            ..self
        }
    }
}

impl FineTuning {
    /// The method's name (`QLoRA`).
    pub const fn method_label(&self) -> &'static str {
        self.method.label()
    }

    /// The adapters of `arch` fine-tuned this way, its unquantised weights of
    /// `weight_bytes` bytes each (4 where the base is held in fp32,
    /// [`Self::frozen_base_fp32`]); `None` for full training.
    pub fn adapters(&self, arch: &Architecture, weight_bytes: u64) -> Option<Adapters> {
        let weight_bytes = match self.frozen_base_fp32 {
            true => weight_bytes.max(4),
            false => weight_bytes,
        };
        let base = arch.param_count();
        let (frozen_bytes, working_bytes) = match self.method {
            Method::Full => return None,
            Method::Lora => (base * weight_bytes, 0),
            Method::Qlora => {
                let quantized = block_linear_params(arch);
                (
                    base.saturating_sub(quantized) * weight_bytes
                        + quantized_bytes(arch, self.quant, self.double_quant),
                    largest_block_linear(arch) * 2,
                )
            }
        };
        let dora_outputs = match self.dora {
            true => block_linears(arch)
                .filter(|&(kind, _, _)| self.targets.includes(kind))
                .map(|(_, _, d_out)| d_out)
                .sum(),
            false => 0,
        };
        Some(Adapters {
            trainable: adapter_params(arch, self.targets, self.rank)
                + u64::from(arch.layers) * dora_outputs,
            frozen: base,
            frozen_bytes,
            working_bytes,
            adapted_per_layer: adapted_per_layer(arch, self.targets),
            rank: self.rank,
            targets: self.targets,
            keeps_base_inputs: matches!(
                (self.method, self.quant, self.bnb),
                (Method::Qlora, Quant::Nf4, BnbRelease::Before0432)
            ),
            dropout: self.lora_dropout > 0.0,
            adapter_dtype: self.adapter_dtype,
            dora_outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::{model_preset, MODEL_PRESETS};
    use wasm_bindgen_test::wasm_bindgen_test;

    fn arch(id: &str) -> Architecture {
        model_preset(id).expect("a preset").architecture
    }

    /// PEFT's `print_trainable_parameters` for Llama 2 7B, r = 8, q and v.
    #[wasm_bindgen_test(unsupported = test)]
    fn peft_counts_llama2_7b_with_its_defaults() {
        let llama = arch("llama2-7b");
        let trainable = adapter_params(&llama, Targets::Qv, 8);
        assert_eq!(trainable, 4_194_304);
        assert_eq!(llama.param_count() + trainable, 6_742_609_920);
    }

    /// DoRA on Llama 2 7B, r = 8, q and v: a magnitude a row of each adapted
    /// weight (32 × (4096 + 4096) more than LoRA's 4,194,304), and under the
    /// page's Korthikanti-style accounting each adapted layer's base and LoRA
    /// outputs beside lora_A's r-wide output: 32 × (2 × 8 + 2 × 8192) × 2048
    /// tokens × 2 bytes.
    #[wasm_bindgen_test(unsupported = test)]
    fn dora_adds_a_magnitude_a_row_and_two_outputs_a_token() {
        let llama = arch("llama2-7b");
        let tuning = |dora| FineTuning {
            method: Method::Lora,
            dora,
            ..FineTuning::default()
        };
        let (lora, dora) = (
            tuning(false).adapters(&llama, 2).unwrap(),
            tuning(true).adapters(&llama, 2).unwrap(),
        );
        assert_eq!(dora.trainable - lora.trainable, 32 * 8192);
        assert_eq!(dora.trainable, 4_456_448);
        let setup = crate::memory::parallel::tests::flash_setup(2048, Recompute::None);
        let kept = |a: &Adapters| a.activations(&llama, &setup).get();
        assert_eq!(kept(&lora), 32.0 * 16.0 * 2048.0 * 2.0);
        assert_eq!(kept(&dora), 32.0 * (16.0 + 2.0 * 8192.0) * 2048.0 * 2.0);
    }

    /// Every preset, every target set, r = 8, 16, 64: the sum over the blocks of
    /// r·(d_in + d_out), written out per target set from the shapes.
    #[wasm_bindgen_test(unsupported = test)]
    fn adapter_counts_follow_the_shapes_for_every_preset() {
        // LoRA adapts dense models (not experts nor latent attention).
        for preset in MODEL_PRESETS
            .iter()
            .filter(|p| !p.architecture.moe.is_moe() && !p.architecture.mla.is_latent())
        {
            let a = preset.architecture;
            let (l, h, q, kv, f) = (
                u64::from(a.layers),
                u64::from(a.hidden),
                a.q_width(),
                a.kv_width(),
                u64::from(a.ffn),
            );
            let mlp_matrices = match a.mlp {
                Mlp::SwiGlu => 3,
                Mlp::Gelu => 2,
            };
            for r in [8u64, 16, 64] {
                let qv = r * (h + q) + r * (h + kv);
                let attn = r * (h + q) * 2 + r * (h + kv) * 2;
                let mlp = mlp_matrices * r * (h + f);
                let rank = r as u32;
                assert_eq!(
                    adapter_params(&a, Targets::Qv, rank),
                    l * qv,
                    "{}",
                    preset.id
                );
                assert_eq!(adapter_params(&a, Targets::Attn, rank), l * attn);
                assert_eq!(adapter_params(&a, Targets::Mlp, rank), l * mlp);
                assert_eq!(adapter_params(&a, Targets::All, rank), l * (attn + mlp));
            }
        }
    }

    /// Llama 3 8B's grouped-query attention: k and v project to 1,024 features.
    #[wasm_bindgen_test(unsupported = test)]
    fn grouped_query_attention_narrows_the_key_and_value_adapters() {
        let llama3 = arch("llama3-8b");
        assert_eq!(llama3.kv_width(), 1024);
        // 32 layers × 16 × [(4096 + 4096) + (4096 + 1024)].
        assert_eq!(adapter_params(&llama3, Targets::Qv, 16), 6_815_744);
        // PEFT's all-linear at r = 16 on Llama 3 8B: 41,943,040.
        assert_eq!(adapter_params(&llama3, Targets::All, 16), 41_943_040);
    }

    /// The QLoRA paper's constants: 0.5 bits per parameter of fp32 absmaxes,
    /// 0.127 with double quantisation, on top of 4 bits per value.
    #[wasm_bindgen_test(unsupported = test)]
    fn nf4_constants_cost_what_the_qlora_paper_says() {
        let llama = arch("llama1-65b");
        let n = block_linear_params(&llama) as f64;
        let bits = |double| 8.0 * quantized_bytes(&llama, Quant::Nf4, double) as f64 / n;
        assert!((bits(false) - 4.5).abs() < 1e-4, "{}", bits(false));
        assert!((bits(true) - 4.127).abs() < 1e-3, "{}", bits(true));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn full_training_has_no_adapters_and_lora_freezes_the_whole_base() {
        let llama = arch("llama2-7b");
        assert_eq!(FineTuning::default().adapters(&llama, 2), None);
        let lora = FineTuning {
            method: Method::Lora,
            ..FineTuning::default()
        };
        let adapters = lora.adapters(&llama, 2).unwrap();
        assert_eq!(adapters.frozen, 6_738_415_616);
        assert_eq!(adapters.frozen_bytes, 2 * 6_738_415_616);
        assert_eq!(adapters.working_bytes, 0);
        assert_eq!(adapters.adapted_per_layer, 2);
        // Held in fp32 (verl's actor), the base costs 4 bytes a parameter.
        let fp32_base = FineTuning {
            frozen_base_fp32: true,
            ..lora
        };
        let held = fp32_base.adapters(&llama, 2).unwrap();
        assert_eq!(held.frozen_bytes, 4 * 6_738_415_616);
        assert_eq!(held.trainable, adapters.trainable);
        let qlora = FineTuning {
            method: Method::Qlora,
            ..lora
        };
        let adapters = qlora.adapters(&llama, 2).unwrap();
        let linear = block_linear_params(&llama);
        assert_eq!(
            adapters.frozen_bytes,
            (6_738_415_616 - linear) * 2 + quantized_bytes(&llama, Quant::Nf4, true)
        );
        // The MLP's 4096 × 11008 matrices are the largest.
        assert_eq!(adapters.working_bytes, 2 * 4096 * 11008);
    }

    fn report_of(query: &str) -> crate::report::Report {
        let decoded = crate::input::link::decode(query);
        assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        decoded.config.report().expect("a report")
    }

    /// LoRA on Llama 2 7B, FP16 + Adam, 8 GPUs: the frozen base in 2 bytes per
    /// parameter, the lesson's 2 + 2 + 12 on the adapters only, each sharded as
    /// the strategy shards it. Within 0.01 byte (the figures go through f64).
    #[wasm_bindgen_test(unsupported = test)]
    fn lora_memory_is_the_frozen_base_and_the_recipe_on_the_adapters() {
        use crate::memory::Strategy;
        let report = report_of("model=llama2-7b&method=lora&recompute=full");
        let (base, t) = (6_738_415_616.0, 4_194_304.0);
        assert_eq!(report.setup.params().get(), base + t);
        let expect = [
            (Strategy::Ddp, 2.0 * base + 2.0 * t, 2.0 * t, 12.0 * t),
            (
                Strategy::Zero1,
                2.0 * base + 2.0 * t,
                2.0 * t,
                12.0 * t / 8.0,
            ),
            (
                Strategy::Zero2,
                2.0 * base + 2.0 * t,
                2.0 * t / 8.0,
                12.0 * t / 8.0,
            ),
            (
                Strategy::Zero3,
                (2.0 * base + 2.0 * t) / 8.0,
                2.0 * t / 8.0,
                12.0 * t / 8.0,
            ),
        ];
        for (strategy, weights, gradients, optimizer) in expect {
            let memory = report.strategy(strategy).memory;
            for (got, want) in [
                (memory.weights.get(), weights),
                (memory.gradients.get(), gradients),
                (memory.optimizer_states.get(), optimizer),
            ] {
                assert!((got - want).abs() < 0.01, "{strategy:?}: {got} ≠ {want}");
            }
        }
        // Full recomputation: no adapter activations beyond the layers' inputs.
        assert_eq!(report.activations.unwrap().adapters.get(), 0.0);
    }

    /// Without recomputation each adapted layer keeps s·b·r values.
    #[wasm_bindgen_test(unsupported = test)]
    fn adapters_keep_their_r_wide_intermediates() {
        let report = report_of("model=llama2-7b&method=lora&rank=16&targets=all&seq=2048&mbs=2");
        // 32 layers × 7 adapted layers × 2,048 × 2 tokens × r 16 × 2 bytes.
        let adapters = report.activations.unwrap().adapters.get();
        assert_eq!(adapters, 32.0 * 7.0 * 4096.0 * 16.0 * 2.0);
        let without = report_of("model=llama2-7b&seq=2048&mbs=2")
            .activations
            .unwrap();
        let total = report.activations.unwrap().total.get();
        assert_eq!(total, without.total.get() + adapters);
    }

    /// Dettmers et al. 2023, abstract: fine-tuning a 65B model takes more than
    /// 780 GB in 16 bits and under 48 GB with QLoRA (r = 64 on every linear
    /// layer, 8-bit paged Adam, gradient checkpointing; here at 512 tokens, one
    /// sequence, the adapters in bf16 as the paper's `qlora.py` keeps them).
    #[wasm_bindgen_test(unsupported = test)]
    fn the_qlora_papers_bounds_hold_for_llama_65b() {
        use crate::memory::Strategy;
        let step = "model=llama1-65b&gpus=1&seq=512&mbs=1&recompute=full&flash=1";
        let full = report_of(&format!("{step}&dtype=bf16"));
        assert!(full.strategy(Strategy::Ddp).memory.total.gb() > 780.0);
        let qlora = report_of(&format!(
            "{step}&dtype=bf16-pure&opt=adam8bit&method=qlora&rank=64&targets=all"
        ));
        let total = qlora.strategy(Strategy::Ddp).memory.total.gb();
        assert!(total < 48.0, "{total} GB");
        assert!(
            total > 35.0,
            "{total} GB: the 4-bit base alone is about 35 GB"
        );
    }

    /// Full training is what it was: no adapter term anywhere.
    #[wasm_bindgen_test(unsupported = test)]
    fn full_training_keeps_the_lessons_figures() {
        // The lesson's own link, and with LoRA's keys (ignored).
        for query in ["", "rank=64&targets=all&quant=int8"] {
            let report = report_of(query);
            let zero1 = report.strategy(crate::memory::Strategy::Zero1);
            assert_eq!(zero1.memory.total.gb(), 38.5, "{query}");
        }
    }

    /// A link asking for adapters without a model uses Llama 2 7B's
    /// architecture, as the step keys do.
    #[wasm_bindgen_test(unsupported = test)]
    fn adapters_without_a_model_adapt_the_default_architecture() {
        let config = crate::input::link::decode("params=70&method=qlora").config;
        assert_eq!(config.model.map(|m| m.base.id), Some("llama2-7b"));
        // The form, where a model can be taken away, says what is missing.
        let bare = crate::config::Config {
            model: None,
            ..config
        };
        assert_eq!(
            bare.setup().unwrap_err(),
            crate::input::Field::Method.error(crate::input::InputErrorKind::NeedsModel)
        );
    }
}
