//! What the process holds beyond the tensors the formulas count: what
//! `nvidia-smi` shows is the caching allocator's reserved memory (the
//! step's peak and the allocator's slack) plus what never goes through it
//! (the CUDA context, NCCL's buffers). Each default below is a published
//! figure or read from the code, with its source; the lesson's 20 % held
//! back is what covers them (Fujii et al. 2024, arXiv 2411.06465: in 454
//! runs on A100 and H100, "when the estimated memory usage is below 80% of
//! the available GPU memory, the training never encounters out-of-memory
//! errors").

use serde::Serialize;

use crate::gpu::{Generation, GpuPreset};
use crate::units::Bytes;

const MIB: u64 = 1 << 20;

/// The CUDA context per process with lazy module loading (the default since
/// CUDA 12.2 on Linux): 512 MiB. Measured: 254 MiB (PyTorch PR #86509, total
/// less free after a first tensor, less its 20 MiB segment), "around 400MB
/// if CUDA >= 11.7 is used and lazy module loading enabled" (pytorch/pytorch
/// #109888); it grows with the SMs (the local-memory stack: 216 MiB measured
/// on an A100's 108 SMs). 512 MiB covers a Hopper's or Blackwell's.
pub const CUDA_CONTEXT_BYTES: u64 = 512 * MIB;

/// NCCL's buffers per communicator: 16 channels × 12 MiB. Per channel and
/// connection the receiver allocates the LL (512 KiB), LL128 (4.69 MiB) and
/// SIMPLE (`NCCL_BUFFSIZE`, 4 MiB) buffers rounded up to 2 MiB, 10 MiB, and
/// the sender 2 MiB (NCCL `src/init.cc`, `src/transport/p2p.cc`; the two
/// sizes seen on 8 × H100 in NVIDIA/nccl#1685). None of it goes through
/// PyTorch's allocator.
pub const NCCL_BYTES_PER_COMMUNICATOR: u64 = 16 * 12 * MIB;

/// NVLink SHARP's buffers (NCCL 2.21 and later, `src/transport/nvls.cc`),
/// per communicator of three or more GPUs of an NVSwitch node: 256 MiB on a
/// Hopper (16 channels), 384 MiB on a Blackwell. NCCL 2.17–2.20 took
/// 1.5 GiB; `NCCL_NVLS_ENABLE=0` takes none.
pub const fn nvls_bytes(generation: Generation) -> u64 {
    match generation {
        Generation::Hopper => 256 * MIB,
        Generation::Blackwell => 384 * MIB,
        _ => 0,
    }
}

/// cuBLAS's workspace as PyTorch sizes it (`aten/src/ATen/cuda/CublasHandlePool.cpp`,
/// `getChosenWorkspaceSize`): 32 MiB on Hopper and Blackwell; elsewhere
/// 8.125 MiB, held in a 20 MiB segment of the caching allocator.
pub const fn cublas_workspace_bytes(generation: Generation) -> u64 {
    match generation {
        Generation::Hopper | Generation::Blackwell => 32 * MIB,
        _ => 20 * MIB,
    }
}

/// The caching allocator's slack, reserved beyond the allocated peak:
/// 15 % of it without `expandable_segments`, about 5 % with. Blocks of
/// different segments never merge (`c10/cuda/CUDACachingAllocator.cpp`);
/// measured gaps run from 6 % (torchtitan, "active: 32Gb reserved: 34Gb",
/// pytorch/pytorch#160113) to 51 % (torchtune#1185, a QLoRA run, 16.39 GiB
/// reserved without expandable segments, 10.83 GiB with), 15 % an assumption
/// between them.
pub const ALLOCATOR_SLACK: f64 = 0.15;

/// What one GPU's process holds beyond the step's peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProcessOverheads {
    /// The CUDA context ([`CUDA_CONTEXT_BYTES`]).
    pub cuda_context_bytes: u64,
    /// Communicators this GPU belongs to (one per parallel dimension above 1).
    pub nccl_communicators: u32,
    /// Their buffers, NVLink SHARP's included.
    pub nccl_bytes: u64,
    /// cuBLAS's workspace.
    pub cublas_workspace_bytes: u64,
    /// The allocator's slack beyond the peak ([`ALLOCATOR_SLACK`]).
    pub allocator_slack_bytes: u64,
    /// The step's peak, as the table counts it.
    pub peak_bytes: u64,
    /// All of it: about what `nvidia-smi` shows.
    pub nvidia_smi_bytes: u64,
}

/// The overheads of a process on `gpu` (NVIDIA's Hopper when no preset is
/// chosen) whose step peaks at `peak`, in communicators of `groups` GPUs
/// each (the data-parallel, tensor, pipeline, context and expert groups;
/// sizes of 1 create none).
pub fn process_overheads(gpu: Option<&GpuPreset>, groups: &[u32], peak: Bytes) -> ProcessOverheads {
    let generation = gpu.map_or(Generation::Hopper, |g| g.generation);
    // NVLink SHARP needs an NVSwitch: the SXM boards' fast links.
    let nvswitch = gpu.is_none_or(|g| g.nvlink_gb_per_s >= 400.0);
    let communicators = groups.iter().filter(|&&n| n > 1).count() as u32;
    let nvls = groups
        .iter()
        .filter(|&&n| n >= 3 && nvswitch)
        .map(|_| nvls_bytes(generation))
        .sum::<u64>();
    let nccl_bytes = u64::from(communicators) * NCCL_BYTES_PER_COMMUNICATOR + nvls;
    let peak_bytes = peak.get().max(0.0).round() as u64;
    let cublas = cublas_workspace_bytes(generation);
    let slack = (peak_bytes as f64 * ALLOCATOR_SLACK).round() as u64;
    ProcessOverheads {
        cuda_context_bytes: CUDA_CONTEXT_BYTES,
        nccl_communicators: communicators,
        nccl_bytes,
        cublas_workspace_bytes: cublas,
        allocator_slack_bytes: slack,
        peak_bytes,
        nvidia_smi_bytes: peak_bytes + slack + CUDA_CONTEXT_BYTES + nccl_bytes + cublas,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lesson's 7 B ZeRO-1 on 8 H100s (38.5 GB): one data-parallel
    /// communicator with NVLink SHARP, the context, cuBLAS's 32 MiB, 15 %.
    #[test]
    fn zero1_on_eight_h100s() {
        let h100 = crate::gpu::gpu_preset("h100-80gb").unwrap();
        let o = process_overheads(Some(h100), &[8, 1, 1], Bytes::new(38.5e9));
        assert_eq!(o.nccl_communicators, 1);
        assert_eq!(o.nccl_bytes, 192 * MIB + 256 * MIB);
        assert_eq!(o.cublas_workspace_bytes, 32 * MIB);
        assert_eq!(o.allocator_slack_bytes, 5_775_000_000);
        assert_eq!(
            o.nvidia_smi_bytes,
            38_500_000_000 + 5_775_000_000 + (512 + 448 + 32) * MIB
        );
    }

    /// An L40S (PCIe, no NVSwitch) with TP 2 and 4 data-parallel groups:
    /// two communicators, no NVLink SHARP, the 20 MiB cuBLAS segment.
    #[test]
    fn pcie_cards_have_no_nvls() {
        let l40s = crate::gpu::gpu_preset("l40s").unwrap();
        let o = process_overheads(Some(l40s), &[4, 2], Bytes::new(10e9));
        assert_eq!(o.nccl_communicators, 2);
        assert_eq!(o.nccl_bytes, 2 * 192 * MIB);
        assert_eq!(o.cublas_workspace_bytes, 20 * MIB);
    }
}
