//! The weights as an inference engine loads them: each checkpoint format's
//! bytes per quantised weight, with the scales and zero points its files
//! store beside them, and the parts every format keeps in 16 bits (the
//! embeddings, the output head, the norms, a mixture's router).

use vram_shared::gpu::Generation;
use vram_shared::model::architecture::Architecture;
use vram_shared::storage;

/// How a checkpoint stores its linear layers' weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WeightFormat {
    /// BF16 or FP16: 2 bytes a weight, nothing quantised.
    #[default]
    Bf16,
    /// FP8 with a scale per tensor (compressed-tensors' and ModelOpt's FP8
    /// checkpoints): 1 byte a weight (the scales, one fp32 a matrix, not counted).
    Fp8,
    /// FP8 with an fp32 scale per 128 × 128 block (DeepSeek-V3's
    /// `weight_scale_inv`): 1 + 4/16,384 bytes.
    Fp8Block,
    /// INT8 with an fp32 scale per output channel (W8A8): 1 + 4/h bytes.
    Int8,
    /// AWQ or GPTQ INT4 in groups of `group` inputs: a half byte a weight,
    /// an fp16 scale and a 4-bit zero point a group (AWQ's `scales`,
    /// `qzeros`; GPTQ's packed the same): 0.5 + 2.5/group bytes.
    Int4 {
        /// Inputs per group (128 in most checkpoints).
        group: u32,
    },
    /// bitsandbytes NF4 in blocks of 64 with an fp32 absmax each: 0.5 + 4/64
    /// ([`vram_shared::storage::nf4_bytes_per_weight`]).
    Nf4,
    /// MXFP4 (gpt-oss): a half byte a weight and an E8M0 scale per 32, on the
    /// routed experts only (the attention stays in 16 bits): 0.5 + 1/32.
    Mxfp4,
    /// NVFP4: a half byte a weight and an FP8 scale per 16: 0.5 + 1/16.
    Nvfp4,
}

impl WeightFormat {
    /// The format a published model's checkpoint ships in, by its preset's
    /// id, as its `config.json`'s `quantization_config` says: DeepSeek-V3's
    /// FP8 in 128 × 128 blocks (`deepseek-ai/DeepSeek-V3`: `fp8`,
    /// `weight_block_size` [128, 128]); gpt-oss's MXFP4 experts
    /// (`openai/gpt-oss-20b` and `-120b`: `mxfp4`, attention, router,
    /// embeddings and head not converted); 16 bits for every other preset.
    pub fn shipped(preset_id: &str) -> WeightFormat {
        match preset_id {
            "deepseek-v3" => WeightFormat::Fp8Block,
            "gpt-oss-20b" | "gpt-oss-120b" => WeightFormat::Mxfp4,
            _ => WeightFormat::Bf16,
        }
    }

    /// Bytes one quantised weight of `arch` takes with its share of the scales.
    pub fn bytes_per_weight(self, arch: &Architecture) -> f64 {
        match self {
            WeightFormat::Bf16 => 2.0,
            WeightFormat::Fp8 => 1.0,
            WeightFormat::Fp8Block => 1.0 + 4.0 / (128.0 * 128.0),
            WeightFormat::Int8 => storage::int8_bytes_per_weight(arch.hidden),
            WeightFormat::Int4 { group } => 0.5 + 2.5 / f64::from(group.max(1)),
            WeightFormat::Nf4 => storage::nf4_bytes_per_weight(),
            WeightFormat::Mxfp4 => 0.5 + 1.0 / 32.0,
            WeightFormat::Nvfp4 => 0.5 + 1.0 / 16.0,
        }
    }

    /// The parameters of `arch` this format quantises: the routed experts'
    /// matrices for MXFP4 (as gpt-oss ships it); every transformer layer's
    /// linear weights otherwise (their norms and a mixture's router stay in
    /// 16 bits; biases are counted with their linears, under a part in
    /// 10,000). None in 16 bits.
    pub fn quantised_params(self, arch: &Architecture) -> u64 {
        match self {
            WeightFormat::Bf16 => 0,
            WeightFormat::Mxfp4 => arch.routed_expert_params(),
            _ => linear_params(arch),
        }
    }

    /// Whether the format quantises the linears outside the routed experts.
    pub const fn quantises_dense_linears(self) -> bool {
        !matches!(self, WeightFormat::Bf16 | WeightFormat::Mxfp4)
    }
}

/// Every transformer layer's linear weights (the routed experts' included):
/// the layers' parameters less their norms and a mixture's router (biases
/// are counted with their linears, under a part in 10,000).
pub fn linear_params(arch: &Architecture) -> u64 {
    let parts = arch.param_breakdown();
    let norms = u64::from(arch.layers) * arch.layer_norm_params()
        + u64::from(arch.layers - arch.linear_layer_count()) * arch.qk_norm_params();
    let router = match arch.moe.is_moe() {
        true => {
            u64::from(arch.layers - arch.dense_layer_count())
                * u64::from(arch.moe.experts)
                * u64::from(arch.hidden)
        }
        false => 0,
    };
    (parts.layers + parts.mtp).saturating_sub(norms + router)
}

/// The multiples vLLM pads MXFP4 experts' hidden size and each GPU's share
/// of their intermediate size to on `generation`, for the MoE kernel it
/// picks there (vLLM 0.34, `fused_moe/oracle/mxfp4.py`: gpt-oss's backend
/// priorities in `select_mxfp4_moe_backend`, then
/// `mxfp4_round_up_hidden_size_and_intermediate_size`): Hopper runs OpenAI's
/// Triton kernels, which vLLM vendors (the intermediate to 64, the hidden
/// size as it is); Blackwell FlashInfer's TRT-LLM kernels, and the cards
/// before Hopper Marlin (both the hidden size to 256 and the intermediate to
/// 128); AMD's CDNA ROCm's kernels (both to 256: gpt-oss's activation is
/// not SiLU). `None` where no such kernel runs (no GPU chosen; Volta, whose
/// emulation pads to 32; Ascend's own plugin). The older releases' logs
/// agree: gpt-oss-120b on Hopper under 0.10.1's Marlin loaded 65.97 GiB,
/// 65.83 with this padding (vllm-project/vllm#23278, `startup_logs.rs` I5).
pub fn mxfp4_alignment(generation: Option<Generation>) -> Option<(u32, u32)> {
    match generation? {
        Generation::Hopper => Some((1, 64)),
        Generation::Blackwell | Generation::Ampere | Generation::Ada | Generation::Turing => {
            Some((256, 128))
        }
        Generation::Cdna => Some((256, 256)),
        Generation::Volta | Generation::Ascend => None,
    }
}

/// The routed experts' bytes as vLLM holds them in MXFP4 on `generation`,
/// over what the checkpoint holds: the hidden size and each of the `shares`
/// GPUs' part of the intermediate size padded ([`mxfp4_alignment`]); 1
/// where nothing is padded. gpt-oss-120b on an A100 (2,880 → 3,072 and
/// 2,880 → 2,944): 1.09.
pub fn mxfp4_expert_padding(
    arch: &Architecture,
    generation: Option<Generation>,
    shares: u32,
) -> f64 {
    let Some((hidden_align, ffn_align)) = mxfp4_alignment(generation) else {
        return 1.0;
    };
    let (hidden, ffn) = (u64::from(arch.hidden), u64::from(arch.moe.expert_ffn));
    let shares = u64::from(shares.max(1));
    if hidden == 0 || ffn == 0 {
        return 1.0;
    }
    let hidden_padded = hidden.next_multiple_of(u64::from(hidden_align));
    let ffn_padded = (ffn / shares).next_multiple_of(u64::from(ffn_align)) * shares;
    (hidden_padded * ffn_padded) as f64 / (hidden * ffn) as f64
}

/// The bytes of `arch`'s weights in `format`: its quantised weights at the
/// format's bytes, everything else in 16 bits.
pub fn weight_bytes(arch: &Architecture, format: WeightFormat) -> f64 {
    let quantised = format.quantised_params(arch);
    let kept = arch.param_count().saturating_sub(quantised);
    quantised as f64 * format.bytes_per_weight(arch) + kept as f64 * 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_shared::model::presets::model_preset;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn arch(id: &str) -> Architecture {
        model_preset(id).unwrap().architecture
    }

    /// OpenAI's model card gives the MXFP4 checkpoints' sizes: gpt-oss-120b
    /// 60.8 GiB, gpt-oss-20b 12.8 GiB. Experts in MXFP4 and the rest in BF16
    /// come within 0.5 % of each.
    #[wasm_bindgen_test(unsupported = test)]
    fn gpt_oss_checkpoints_are_their_published_size() {
        for (id, gib) in [("gpt-oss-120b", 60.8), ("gpt-oss-20b", 12.8)] {
            let bytes = weight_bytes(&arch(id), WeightFormat::Mxfp4);
            let ratio = bytes / (gib * f64::from(1u32 << 30));
            assert!((ratio - 1.0).abs() < 0.005, "{id}: {bytes} B, {ratio}");
        }
    }

    /// vLLM pads gpt-oss's MXFP4 experts (hidden 2,880, intermediate 2,880)
    /// for its kernel: Marlin before Hopper and FlashInfer's TRT-LLM on
    /// Blackwell to 3,072 × 2,944 (1.09), nothing on Hopper at TP 1 (2,880 is
    /// a multiple of 64), each GPU's 1,440 to 1,472 there at TP 2; ROCm both
    /// to 3,072; nothing without a GPU chosen or on Volta.
    #[wasm_bindgen_test(unsupported = test)]
    fn mxfp4_experts_padded_for_vllms_kernel() {
        let gpt = arch("gpt-oss-120b");
        let padding = |g, shares| mxfp4_expert_padding(&gpt, g, shares);
        let marlin = 3072.0 * 2944.0 / (2880.0 * 2880.0);
        assert_eq!(padding(Some(Generation::Ampere), 1), marlin);
        assert_eq!(padding(Some(Generation::Blackwell), 1), marlin);
        assert_eq!(padding(Some(Generation::Hopper), 1), 1.0);
        assert_eq!(padding(Some(Generation::Hopper), 2), 2944.0 / 2880.0);
        assert_eq!(
            padding(Some(Generation::Cdna), 1),
            3072.0 * 3072.0 / (2880.0 * 2880.0)
        );
        assert_eq!(padding(None, 4), 1.0);
        assert_eq!(padding(Some(Generation::Volta), 1), 1.0);
    }

    /// Llama 3 8B: 16 bits are twice the parameters; AWQ INT4 in groups of
    /// 128 quantises the 32 layers' linears (6,979,321,856 weights) at
    /// 0.5 + 2.5/128 bytes and keeps the embedding, the head and the norms.
    #[wasm_bindgen_test(unsupported = test)]
    fn llama3_8b_in_16_bits_and_in_awq() {
        let llama = arch("llama3-8b");
        assert_eq!(weight_bytes(&llama, WeightFormat::Bf16), 16_060_522_496.0);
        let awq = WeightFormat::Int4 { group: 128 };
        let linears = awq.quantised_params(&llama);
        assert_eq!(
            linears,
            32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336)
        );
        let kept = llama.param_count() - linears;
        assert_eq!(kept, 2 * 128_256 * 4096 + 32 * 2 * 4096 + 4096);
        let bytes = weight_bytes(&llama, awq);
        assert_eq!(
            bytes,
            linears as f64 * (0.5 + 2.5 / 128.0) + kept as f64 * 2.0
        );
        // FP8 per tensor: a byte a linear weight.
        assert_eq!(
            weight_bytes(&llama, WeightFormat::Fp8),
            linears as f64 + kept as f64 * 2.0
        );
    }
}
