//! GPUs: the memory each card reports, so users see why "80 GB" is not 80 × 10^9 bytes,
//! and what the step's time needs of each: its dense 16-bit tensor peak and its links.

use crate::units::Bytes;

/// A GPU and the total memory `nvidia-smi` (or AMD's `rocm-smi`) reports for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPreset {
    /// The `gpu` key's value in the shared link.
    pub id: &'static str,
    /// The name people use.
    pub name: &'static str,
    /// Total memory in MiB (2^20 bytes), as `nvidia-smi` prints it (AMD's
    /// `rocm-smi` prints bytes: divided by 2^20).
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
    /// The memory's bandwidth, GB/s, from the datasheet: what the layers'
    /// element-wise kernels (norms, activations, residuals, FP8's casts)
    /// stream at (`vram_core::time::efficiency`).
    pub hbm_gb_per_s: f64,
    /// Streaming multiprocessors (AMD's compute units, Ascend's AI cores),
    /// from the vendors' datasheets: what vLLM's sampler sizes a buffer by
    /// (`vram_serve::deployment::activation_peak_bytes`). Blackwell's
    /// 148 is B200's, assumed for GB200 and B300.
    pub sms: u32,
    /// The architecture whose kernels' efficiency the step assumes.
    pub generation: Generation,
    /// The host link (offload), GB/s each way: PCIe 3.0, 4.0 or 5.0 x16, or
    /// NVLink-C2C to the Grace CPU on a GB200.
    pub pcie_gb_per_s: f64,
}

/// A GPU architecture, for the efficiency its kernels reach
/// (`vram_core::time::efficiency::Kernels::of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generation {
    /// NVIDIA Volta (V100).
    Volta,
    /// NVIDIA Turing (T4).
    Turing,
    /// NVIDIA Ampere (A100, A800).
    Ampere,
    /// NVIDIA Ada Lovelace (L40S, L20, RTX 4090).
    Ada,
    /// NVIDIA Hopper (H100, H200, H800, H20).
    Hopper,
    /// NVIDIA Blackwell (B200, GB200, B300).
    Blackwell,
    /// AMD CDNA 3 and 4 (MI300X, MI355X).
    Cdna,
    /// Huawei Ascend 910B and 910C (Da Vinci cores): no FP8; kernel shares
    /// assumed, not measured.
    Ascend,
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

/// The A100 80GB, the A800's and the A100 40GB's base.
const A100_80GB: GpuPreset = GpuPreset {
    id: "a100-80gb",
    name: "A100 80GB",
    memory_mib: 81_920,
    tflops_16bit: 312.0,
    tflops_fp8: 0.0,
    nvlink_gb_per_s: 300.0,
    network_gb_per_s: 25.0,
    hbm_gb_per_s: 2039.0,
    sms: 108,
    generation: Generation::Ampere,
    pcie_gb_per_s: 32.0,
};

/// The H100 SXM, the other Hoppers' base.
const H100: GpuPreset = GpuPreset {
    id: "h100-80gb",
    name: "H100 80GB",
    memory_mib: 81_559,
    tflops_16bit: 989.0,
    tflops_fp8: 1979.0,
    nvlink_gb_per_s: 450.0,
    network_gb_per_s: 50.0,
    hbm_gb_per_s: 3350.0,
    sms: 132,
    generation: Generation::Hopper,
    pcie_gb_per_s: 64.0,
};

/// The B200 (HGX), the other Blackwells' base.
const B200: GpuPreset = GpuPreset {
    id: "b200",
    name: "B200",
    memory_mib: 183_359,
    tflops_16bit: 2250.0,
    tflops_fp8: 4500.0,
    nvlink_gb_per_s: 900.0,
    network_gb_per_s: 50.0,
    hbm_gb_per_s: 8000.0,
    sms: 148,
    generation: Generation::Blackwell,
    pcie_gb_per_s: 64.0,
};

/// The L40S, the L20's base.
const L40S: GpuPreset = GpuPreset {
    id: "l40s",
    name: "L40S",
    memory_mib: 46_068,
    tflops_16bit: 362.05,
    tflops_fp8: 733.0,
    nvlink_gb_per_s: 32.0,
    network_gb_per_s: 12.5,
    hbm_gb_per_s: 864.0,
    sms: 142,
    generation: Generation::Ada,
    pcie_gb_per_s: 32.0,
};

/// The Ascend 910B3, the 910C's base.
const ASCEND_910B3: GpuPreset = GpuPreset {
    id: "ascend-910b3",
    name: "Ascend 910B3",
    memory_mib: 65_536,
    tflops_16bit: 313.0,
    tflops_fp8: 0.0,
    nvlink_gb_per_s: 196.0,
    network_gb_per_s: 25.0,
    hbm_gb_per_s: 1600.0,
    sms: 20,
    generation: Generation::Ascend,
    pcie_gb_per_s: 32.0,
};

/// The presets, in the order the page lists them. Capacities are the "Total"
/// memory `nvidia-smi` reports on each card (B200 183,359 MiB with driver
/// 570, GB200 189,471 and B300 275,040 MiB with driver 580, all seen on
/// running machines), and for AMD's the bytes `rocm-smi --showmeminfo vram`
/// reports (MI300X 206,141,652,992, MI355X 309,220,868,096: 16 MiB under
/// 192 and 288 GiB). Dense (no sparsity) peaks from the vendors' datasheets,
/// 16-bit / FP8 TFLOP/s: A100 312 / none; H100 and H200 SXM 989 / 1,979;
/// B200 (HGX) and B300 (HGX) 2,250 / 4,500 (half the 36 and 72 PFLOP/s "with
/// sparsity" of eight); GB200 2,500 / 5,000 (NVL72's 360 and 720 PFLOP/s
/// sparse ÷ 72 ÷ 2); MI300X 1,307.4 / 2,614.9; MI355X 2,516.6 / 5,033.2
/// (AMD's "2.5 PF": 1,024 matrix cores × 2.4 GHz × 1,024 FLOPs a clock);
/// L40S 362.05 / 733; V100 SXM2 125 / none; RTX 4090 165.2 / 330.3 with FP32
/// accumulation (the Ada whitepaper); T4 65 / none. Links per GPU, each way:
/// NVLink A100 300 GB/s, H100/H200 450, Blackwell 900 (NVLink 5's 1.8 TB/s),
/// V100 150; AMD's seven Infinity Fabric links, MI300X 7 × 64 = 448 GB/s,
/// MI355X 7 × 76.8 = 537.6; PCIe x16 for the cards without them. Networks:
/// one 400 Gb/s port a GPU (50 GB/s; B300's ConnectX-8, 800 Gb/s: 100). Host
/// links: PCIe 5.0 (64 GB/s; B300's own PCIe 6.0 waits on the hosts' 5.0),
/// GB200's NVLink-C2C 900 GB/s both ways (450). The cards rented in China,
/// their memory as `nvidia-smi` prints it on running machines: H800 81,559
/// MiB (H100's), H20 97,871 MiB, A800 80GB 81,920 (A100's), L20 46,068
/// (L40S's); peaks from NVIDIA's datasheets: H800 SXM as H100 SXM, 989 /
/// 1,979, with NVLink cut to 400 GB/s both ways (200 each way); H20 148 /
/// 296 with H100's NVLink (900 GB/s, 450 each way); A800 SXM as A100, 312,
/// NVLink 400 GB/s (200 each way); L20 119.5 / 239 on PCIe 4.0. Memory
/// bandwidth from the same datasheets, GB/s: A100/A800 80GB 2,039, A100 40GB
/// 1,555, H100/H800 SXM 3,350, H200 4,800, H20 4,000, B200/GB200/B300 8,000,
/// MI300X 5,300, MI355X 8,000, L40S/L20 864, V100 900, RTX 4090 1,008, T4 320.
pub const GPU_PRESETS: &[GpuPreset] = &[
    A100_80GB,
    H100,
    GpuPreset {
        id: "h200",
        name: "H200",
        memory_mib: 143_771,
        hbm_gb_per_s: 4800.0,
        ..H100
    },
    // The Hopper and Ampere cards sold in China, with their own NVLink:
    // H800 and A800 at 400 GB/s both ways (200 each way), H20's 96 GB at
    // H100's 900 GB/s but 148 / 296 dense TFLOP/s.
    GpuPreset {
        id: "h800",
        name: "H800",
        nvlink_gb_per_s: 200.0,
        ..H100
    },
    GpuPreset {
        id: "h20",
        name: "H20",
        memory_mib: 97_871,
        tflops_16bit: 148.0,
        tflops_fp8: 296.0,
        hbm_gb_per_s: 4000.0,
        sms: 78,
        ..H100
    },
    GpuPreset {
        id: "a800-80gb",
        name: "A800 80GB",
        nvlink_gb_per_s: 200.0,
        ..A100_80GB
    },
    B200,
    GpuPreset {
        id: "gb200",
        name: "GB200",
        memory_mib: 189_471,
        tflops_16bit: 2500.0,
        tflops_fp8: 5000.0,
        pcie_gb_per_s: 450.0,
        ..B200
    },
    GpuPreset {
        id: "b300",
        name: "B300",
        memory_mib: 275_040,
        network_gb_per_s: 100.0,
        ..B200
    },
    GpuPreset {
        id: "mi300x",
        name: "MI300X",
        memory_mib: 196_592,
        tflops_16bit: 1307.4,
        tflops_fp8: 2614.9,
        nvlink_gb_per_s: 448.0,
        network_gb_per_s: 50.0,
        hbm_gb_per_s: 5300.0,
        sms: 304,
        generation: Generation::Cdna,
        pcie_gb_per_s: 64.0,
    },
    GpuPreset {
        id: "mi355x",
        name: "MI355X",
        memory_mib: 294_896,
        tflops_16bit: 2516.6,
        tflops_fp8: 5033.2,
        nvlink_gb_per_s: 537.6,
        network_gb_per_s: 50.0,
        hbm_gb_per_s: 8000.0,
        sms: 256,
        generation: Generation::Cdna,
        pcie_gb_per_s: 64.0,
    },
    GpuPreset {
        id: "a100-40gb",
        name: "A100 40GB",
        memory_mib: 40_960,
        hbm_gb_per_s: 1555.0,
        ..A100_80GB
    },
    L40S,
    GpuPreset {
        id: "l20",
        name: "L20",
        tflops_16bit: 119.5,
        tflops_fp8: 239.0,
        sms: 92,
        ..L40S
    },
    // Huawei's Ascend NPUs (issue 48), their memory as `npu-smi info` prints
    // it on running machines: 65,536 MB (MiB) a 910B3, and a 910C's two dies
    // each a device of its own with 65,536 (vllm-ascend's issues #1903,
    // #2534, #2082). Their peaks and links as commonly cited, not from a
    // datasheet Huawei publishes in full: the memory holds exactly, the time
    // is an estimate (docs/formulas.md).
    ASCEND_910B3,
    GpuPreset {
        id: "ascend-910c",
        name: "Ascend 910C (one die)",
        tflops_16bit: 376.0,
        network_gb_per_s: 50.0,
        sms: 48,
        ..ASCEND_910B3
    },
    GpuPreset {
        id: "v100-32gb",
        name: "V100 32GB",
        memory_mib: 32_510,
        tflops_16bit: 125.0,
        tflops_fp8: 0.0,
        nvlink_gb_per_s: 150.0,
        network_gb_per_s: 12.5,
        hbm_gb_per_s: 900.0,
        sms: 80,
        generation: Generation::Volta,
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
        hbm_gb_per_s: 1008.0,
        sms: 128,
        generation: Generation::Ada,
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
        hbm_gb_per_s: 320.0,
        sms: 40,
        generation: Generation::Turing,
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
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The cards rented in China (issue 48): an H20's 96 GB are 97,871 MiB
    /// (102.63 GB) at an eighth of H100's 16-bit peak; H800 and A800 keep
    /// their twins' memory and peaks with NVLink cut to 200 GB/s each way.
    #[wasm_bindgen_test(unsupported = test)]
    fn the_cards_rented_in_china() {
        let h20 = gpu_preset("h20").unwrap();
        assert_eq!(h20.memory_gb_shown(), 102.63);
        assert_eq!(h20.tflops_16bit, 148.0);
        for (card, twin) in [("h800", "h100-80gb"), ("a800-80gb", "a100-80gb")] {
            let (card, twin) = (gpu_preset(card).unwrap(), gpu_preset(twin).unwrap());
            assert_eq!(card.memory(), twin.memory());
            assert_eq!(card.tflops_16bit, twin.tflops_16bit);
            assert_eq!(card.nvlink_gb_per_s, 200.0);
            assert!(twin.nvlink_gb_per_s > card.nvlink_gb_per_s);
        }
        assert_eq!(
            gpu_preset("l20").unwrap().memory(),
            gpu_preset("l40s").unwrap().memory()
        );
    }

    /// Ascend (issue 48): `npu-smi` prints 65,536 MB for a 910B3 and for
    /// each of a 910C's two dies, 64 GiB, 68.72 GB; neither has FP8.
    #[wasm_bindgen_test(unsupported = test)]
    fn ascend_npus_as_npu_smi_reports_them() {
        for id in ["ascend-910b3", "ascend-910c"] {
            let npu = gpu_preset(id).unwrap();
            assert_eq!(npu.memory().gib(), 64.0, "{id}");
            assert_eq!(npu.memory_gb_shown(), 68.72, "{id}");
            assert_eq!(npu.tflops_fp8, 0.0, "{id}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn an_a100_80gb_has_85_9_gb_or_80_gib() {
        let a100 = gpu_preset("a100-80gb").unwrap().memory();
        assert_eq!(a100.gib(), 80.0);
        assert!((a100.gb() - 85.899_345_92).abs() < 1e-9);
        let h100 = gpu_preset("h100-80gb").unwrap().memory();
        assert!((h100.gib() - 79.647_460_937_5).abs() < 1e-12);
    }

    /// What the form shows for the newer cards: a "180 GB" B200 reports
    /// 183,359 MiB = 192.27 GB, an MI300X's "192 GB" are GiB (206.14 GB).
    #[wasm_bindgen_test(unsupported = test)]
    fn newer_cards_show_their_reported_memory_in_gb() {
        let shown = |id| gpu_preset(id).unwrap().memory_gb_shown();
        assert_eq!(shown("b200"), 192.27);
        assert_eq!(shown("gb200"), 198.67);
        assert_eq!(shown("b300"), 288.4);
        assert_eq!(shown("mi300x"), 206.14);
        assert_eq!(shown("mi355x"), 309.22);
        let mi300x = gpu_preset("mi300x").unwrap().memory();
        assert_eq!(mi300x.get(), 206_141_652_992.0);
    }

    /// Every data-centre card since Hopper doubles its 16-bit dense peak in
    /// FP8 (the datasheets' ratio, to their rounding: 1,979 / 989; a typo in one
    /// of the fourteen figures fails).
    #[wasm_bindgen_test(unsupported = test)]
    fn fp8_peaks_are_twice_the_16_bit_ones_since_hopper() {
        for id in [
            "h100-80gb",
            "h200",
            "b200",
            "gb200",
            "b300",
            "mi300x",
            "mi355x",
        ] {
            let gpu = gpu_preset(id).unwrap();
            let ratio = gpu.tflops_fp8 / gpu.tflops_16bit;
            assert!((ratio - 2.0).abs() < 2.5e-3, "{id}: {ratio}");
        }
    }
}
