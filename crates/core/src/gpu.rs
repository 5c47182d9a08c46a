//! GPUs: the memory each card reports, so users see why "80 GB" is not 80 × 10^9 bytes,
//! and what the step's time needs of each: its dense 16-bit tensor peak and its links.

use crate::units::Bytes;

/// A GPU and the total memory `nvidia-smi` reports for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPreset {
    /// The `gpu` key's value in the shared link.
    pub id: &'static str,
    /// The name people use.
    pub name: &'static str,
    /// Total memory in MiB (2^20 bytes), as `nvidia-smi` prints it.
    pub memory_mib: u32,
    /// Dense (no sparsity) BF16/FP16 tensor peak with FP32 accumulation, in
    /// TFLOP/s, from the vendor's datasheet.
    pub tflops_16bit: f64,
    /// Dense FP8 tensor peak in TFLOP/s (FP32 accumulation), from the same
    /// datasheet; 0 for a card without FP8 tensor cores.
    pub tflops_fp8: f64,
    /// Bandwidth to the node's other GPUs, GB/s each way: NVLink's, or
    /// PCIe's where the card has none.
    pub nvlink_gb_per_s: f64,
    /// The network per GPU between nodes, GB/s each way: a typical cluster's
    /// (one 200 Gb/s HDR or 400 Gb/s NDR InfiniBand port per GPU for the
    /// data-centre cards, 100 Gb/s for the others).
    pub network_gb_per_s: f64,
    /// The host link (offload), GB/s each way: PCIe 3.0, 4.0 or 5.0 x16.
    pub pcie_gb_per_s: f64,
}

impl GpuPreset {
    /// The card's memory in bytes.
    pub fn memory(&self) -> Bytes {
        Bytes::new(f64::from(self.memory_mib) * 1_048_576.0)
    }

    /// The memory as the form shows it, in GB to two decimals: an A100 80GB's
    /// 81,920 MiB read as 85.9, not 85.89934592. Typed back, it still means
    /// this card's exact memory (the link keeps the exact value).
    pub fn memory_gb_shown(&self) -> f64 {
        // A correctly rounded division: the nearest double to the decimal.
        (self.memory().gb() * 100.0).round() / 100.0
    }
}

/// The presets, in the order the page lists them. Capacities are the "Total"
/// memory that `nvidia-smi` reports on each card. Peaks from NVIDIA's
/// datasheets (A100: 312 TFLOP/s BF16; H100 and H200 SXM: 989; L40S: 362.05;
/// V100 SXM2: 125; RTX 4090: 165.2 with FP32 accumulation; T4: 65; FP8, dense:
/// H100 and H200 SXM 1,979, L40S 733, RTX 4090 330.3 with FP32 accumulation
/// (the Ada whitepaper), none on Ampere, Volta and Turing), NVLink
/// per GPU each way (A100: 600 GB/s both ways, H100/H200: 900, V100: 300),
/// PCIe x16 for the cards without it.
pub const GPU_PRESETS: &[GpuPreset] = &[
    GpuPreset {
        id: "a100-80gb",
        name: "A100 80GB",
        memory_mib: 81_920,
        tflops_16bit: 312.0,
        tflops_fp8: 0.0,
        nvlink_gb_per_s: 300.0,
        network_gb_per_s: 25.0,
        pcie_gb_per_s: 32.0,
    },
    GpuPreset {
        id: "h100-80gb",
        name: "H100 80GB",
        memory_mib: 81_559,
        tflops_16bit: 989.0,
        tflops_fp8: 1979.0,
        nvlink_gb_per_s: 450.0,
        network_gb_per_s: 50.0,
        pcie_gb_per_s: 64.0,
    },
    GpuPreset {
        id: "h200",
        name: "H200",
        memory_mib: 143_771,
        tflops_16bit: 989.0,
        tflops_fp8: 1979.0,
        nvlink_gb_per_s: 450.0,
        network_gb_per_s: 50.0,
        pcie_gb_per_s: 64.0,
    },
    GpuPreset {
        id: "a100-40gb",
        name: "A100 40GB",
        memory_mib: 40_960,
        tflops_16bit: 312.0,
        tflops_fp8: 0.0,
        nvlink_gb_per_s: 300.0,
        network_gb_per_s: 25.0,
        pcie_gb_per_s: 32.0,
    },
    GpuPreset {
        id: "l40s",
        name: "L40S",
        memory_mib: 46_068,
        tflops_16bit: 362.05,
        tflops_fp8: 733.0,
        nvlink_gb_per_s: 32.0,
        network_gb_per_s: 12.5,
        pcie_gb_per_s: 32.0,
    },
    GpuPreset {
        id: "v100-32gb",
        name: "V100 32GB",
        memory_mib: 32_510,
        tflops_16bit: 125.0,
        tflops_fp8: 0.0,
        nvlink_gb_per_s: 150.0,
        network_gb_per_s: 12.5,
        pcie_gb_per_s: 16.0,
    },
    GpuPreset {
        id: "rtx4090",
        name: "RTX 4090",
        memory_mib: 24_564,
        tflops_16bit: 165.2,
        tflops_fp8: 330.3,
        nvlink_gb_per_s: 32.0,
        network_gb_per_s: 12.5,
        pcie_gb_per_s: 32.0,
    },
    GpuPreset {
        id: "t4",
        name: "T4",
        memory_mib: 15_360,
        tflops_16bit: 65.0,
        tflops_fp8: 0.0,
        nvlink_gb_per_s: 16.0,
        network_gb_per_s: 12.5,
        pcie_gb_per_s: 16.0,
    },
];

/// The preset whose id is `id`.
pub fn gpu_preset(id: &str) -> Option<&'static GpuPreset> {
    GPU_PRESETS.iter().find(|gpu| gpu.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn an_a100_80gb_has_85_9_gb_or_80_gib() {
        let a100 = gpu_preset("a100-80gb").unwrap().memory();
        assert_eq!(a100.gib(), 80.0);
        assert!((a100.gb() - 85.899_345_92).abs() < 1e-9);
        let h100 = gpu_preset("h100-80gb").unwrap().memory();
        assert!((h100.gib() - 79.647_460_937_5).abs() < 1e-12);
    }
}
