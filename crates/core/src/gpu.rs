//! GPUs: the memory each card reports, so users see why "80 GB" is not 80 × 10^9 bytes.

use crate::units::Bytes;

/// A GPU and the total memory `nvidia-smi` reports for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuPreset {
    /// The `gpu` key's value in the shared link.
    pub id: &'static str,
    /// The name people use.
    pub name: &'static str,
    /// Total memory in MiB (2^20 bytes), as `nvidia-smi` prints it.
    pub memory_mib: u32,
}

impl GpuPreset {
    /// The card's memory in bytes.
    pub fn memory(&self) -> Bytes {
        Bytes::new(f64::from(self.memory_mib) * 1_048_576.0)
    }
}

/// The presets, in the order the page lists them. Capacities are the "Total"
/// memory that `nvidia-smi` reports on each card.
pub const GPU_PRESETS: &[GpuPreset] = &[
    GpuPreset {
        id: "a100-80gb",
        name: "A100 80GB",
        memory_mib: 81_920,
    },
    GpuPreset {
        id: "h100-80gb",
        name: "H100 80GB",
        memory_mib: 81_559,
    },
    GpuPreset {
        id: "h200",
        name: "H200",
        memory_mib: 143_771,
    },
    GpuPreset {
        id: "a100-40gb",
        name: "A100 40GB",
        memory_mib: 40_960,
    },
    GpuPreset {
        id: "l40s",
        name: "L40S",
        memory_mib: 46_068,
    },
    GpuPreset {
        id: "v100-32gb",
        name: "V100 32GB",
        memory_mib: 32_510,
    },
    GpuPreset {
        id: "rtx4090",
        name: "RTX 4090",
        memory_mib: 24_564,
    },
    GpuPreset {
        id: "t4",
        name: "T4",
        memory_mib: 15_360,
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
