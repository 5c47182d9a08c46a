//! How quantised weights are stored, in bytes: one model of each format's
//! layout, read by training (QLoRA's frozen base, `memory::finetune`),
//! serving (a checkpoint's weights, `serve::weights`) and RL (through both).
//!
//! Sources, read in their code:
//! - bitsandbytes (`bitsandbytes/functional.py`, `quantize_4bit`,
//!   `QuantState`): a weight of `n` values in NF4 is `(n + 1) / 2` bytes of
//!   packed values, one fp32 absmax per block of 64 and the 16-value code in
//!   fp32; with double quantisation (`compress_statistics`) the absmaxes are
//!   one byte each, with an fp32 absmax per 256 of them, an fp32 offset, and
//!   the shared 256-value dynamic map. LLM.int8 (`Linear8bitLt`) keeps one
//!   byte per weight and an fp32 scale per output row.
//! - Dettmers et al. 2023, "QLoRA": 0.127 bits of constants per parameter
//!   with double quantisation (8/64 + 32/(64·256)).

/// Bytes of an fp32 value: absmaxes, scales, offsets and codes.
const FP32_BYTES: u64 = 4;

/// Values per NF4 block, each block with its own absmax (bitsandbytes'
/// default `blocksize` for 4-bit weights).
pub const NF4_BLOCK: u64 = 64;

/// Absmaxes per block of double quantisation's second level.
const DOUBLE_QUANT_BLOCK: u64 = 256;

/// The 16-value NF4 code, in fp32, that each quantised tensor keeps.
const NF4_CODE_BYTES: u64 = 16 * FP32_BYTES;

/// The 256-value fp32 dynamic map that double quantisation shares among all
/// tensors (bitsandbytes' `name2qmap["dynamic"]`).
pub const SHARED_DYNAMIC_MAP_BYTES: u64 = 256 * FP32_BYTES;

/// Bytes of one tensor of `n` values in NF4 with all its constants:
/// `(n + 1) / 2` packed bytes (two values a byte), the code, and an fp32
/// absmax per block, or with `double_quant` a byte per absmax, an fp32
/// absmax per 256 of them and the fp32 offset.
pub fn nf4_tensor_bytes(n: u64, double_quant: bool) -> u64 {
    let packed = n.div_ceil(2);
    let blocks = n.div_ceil(NF4_BLOCK);
    let absmax = match double_quant {
        true => blocks + FP32_BYTES * blocks.div_ceil(DOUBLE_QUANT_BLOCK) + FP32_BYTES,
        false => FP32_BYTES * blocks,
    };
    packed + NF4_CODE_BYTES + absmax
}

/// Bytes of one NF4 weight with its share of the absmaxes, in a tensor large
/// enough that the code and the rounding vanish: 0.5 + 4/64. What a
/// checkpoint of many large tensors averages to ([`nf4_tensor_bytes`] per
/// tensor over its values, within a part in 10^6 for a 4,096 × 4,096 matrix).
pub fn nf4_bytes_per_weight() -> f64 {
    0.5 + FP32_BYTES as f64 / NF4_BLOCK as f64
}

/// Bytes of one tensor of `n` values and `rows` output rows in LLM.int8 (or
/// any INT8 with an fp32 scale per output channel): a byte a value and the
/// scales.
pub fn int8_tensor_bytes(n: u64, rows: u64) -> u64 {
    n + FP32_BYTES * rows
}

/// Bytes of one INT8 weight with an fp32 scale per output channel of
/// `inputs` values: 1 + 4/inputs ([`int8_tensor_bytes`] over `n` values).
pub fn int8_bytes_per_weight(inputs: u32) -> f64 {
    1.0 + FP32_BYTES as f64 / f64::from(inputs.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// A 4,096 × 4,096 matrix: 8,388,608 packed bytes, the 64-byte code and
    /// 262,144 fp32 absmaxes; double quantised, 262,144 one-byte absmaxes,
    /// 1,024 fp32 second-level ones and the offset.
    #[wasm_bindgen_test(unsupported = test)]
    fn nf4_tensor_as_bitsandbytes_allocates_it() {
        let n = 4096 * 4096;
        assert_eq!(nf4_tensor_bytes(n, false), 8_388_608 + 64 + 4 * 262_144);
        assert_eq!(
            nf4_tensor_bytes(n, true),
            8_388_608 + 64 + 262_144 + 4 * 1_024 + 4
        );
        // An odd count's last value takes a byte of its own.
        assert_eq!(nf4_tensor_bytes(3, false), 2 + 64 + 4);
        assert_eq!(int8_tensor_bytes(n, 4096), n + 4 * 4096);
    }

    /// The per-weight figure serving uses is the per-tensor layout's limit.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_per_weight_bytes_are_the_tensor_layouts_limit() {
        let n = 4096 * 4096;
        let per_weight = nf4_tensor_bytes(n, false) as f64 / n as f64;
        assert!((per_weight / nf4_bytes_per_weight() - 1.0).abs() < 1e-5);
        assert_eq!(nf4_bytes_per_weight(), 0.5625);
        let int8 = int8_tensor_bytes(n, 4096) as f64 / n as f64;
        assert_eq!(int8, int8_bytes_per_weight(4096));
    }
}
