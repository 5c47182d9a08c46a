//! What a GPU process holds beyond the tensors the formulas count, for
//! every job: training's and RL's (below) and a serving engine's memory
//! outside PyTorch's allocator ([`non_torch_bytes`]). What
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
use crate::units::{Bytes, GIB, MIB};

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

/// The caching allocator's slack with `expandable_segments:True` in
/// `PYTORCH_CUDA_ALLOC_CONF`: 5 % of the peak. A segment grows by mapping
/// more pages into one virtual range, so freed blocks at its end merge
/// with the next request (`ExpandableSegment` in
/// `CUDACachingAllocator.cpp`); torchtune#1185's QLoRA run reserved
/// 10.83 GiB with it against 16.39 GiB without.
pub const EXPANDABLE_ALLOCATOR_SLACK: f64 = 0.05;

/// How the process is launched, where it changes what it holds beside the
/// step's peak: each a default a user can change.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProcessSettings {
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.
    pub expandable_segments: bool,
    /// The allocator's slack as a fraction of the peak, when measured;
    /// unset: [`ALLOCATOR_SLACK`] or [`EXPANDABLE_ALLOCATOR_SLACK`].
    pub allocator_slack: Option<f64>,
    /// NVLink SHARP (`NCCL_NVLS_ENABLE`, on by default on NVSwitch nodes).
    pub nvls: bool,
    /// NCCL's buffers per communicator in MiB, when measured (or changed
    /// by `NCCL_BUFFSIZE`, `NCCL_MAX_NCHANNELS`); unset:
    /// [`NCCL_BYTES_PER_COMMUNICATOR`].
    #[serde(default)]
    pub nccl_mib: Option<u32>,
}

impl Default for ProcessSettings {
    fn default() -> Self {
        ProcessSettings::DEFAULT
    }
}

impl ProcessSettings {
    /// PyTorch's and NCCL's defaults.
    pub const DEFAULT: ProcessSettings = ProcessSettings {
        expandable_segments: false,
        allocator_slack: None,
        nvls: true,
        nccl_mib: None,
    };

    /// The allocator's slack, a fraction of the peak.
    pub fn slack(&self) -> f64 {
        self.allocator_slack
            .unwrap_or(match self.expandable_segments {
                true => EXPANDABLE_ALLOCATOR_SLACK,
                false => ALLOCATOR_SLACK,
            })
    }

    /// The environment a launch line sets for these settings, each
    /// `NAME=value ` with its trailing space; empty for the defaults.
    pub fn environment(&self) -> String {
        let mut env = String::new();
        if self.expandable_segments {
            env.push_str("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ");
        }
        if !self.nvls {
            env.push_str("NCCL_NVLS_ENABLE=0 ");
        }
        env
    }
}

/// What one GPU's process holds beyond the step's peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProcessOverheads {
    /// The CUDA context ([`CUDA_CONTEXT_BYTES`], or the `context` the user measured).
    pub cuda_context_bytes: u64,
    /// Communicators this GPU belongs to (one per parallel dimension above 1).
    pub nccl_communicators: u32,
    /// Their buffers, NVLink SHARP's included.
    pub nccl_bytes: u64,
    /// cuBLAS's workspace.
    pub cublas_workspace_bytes: u64,
    /// The allocator's slack beyond the peak ([`ProcessSettings::slack`]).
    pub allocator_slack_bytes: u64,
    /// That slack as a fraction of the peak.
    pub allocator_slack_fraction: f64,
    /// The step's peak, as the table counts it.
    pub peak_bytes: u64,
    /// All of it: about what `nvidia-smi` shows.
    pub nvidia_smi_bytes: u64,
}

/// The overheads of a process on `gpu` (NVIDIA's Hopper when no preset is
/// chosen) whose step peaks at `peak`, in communicators of `groups` GPUs
/// each (the data-parallel, tensor, pipeline, context and expert groups;
/// sizes of 1 create none), launched with `settings`; `context` is the
/// CUDA context when the user measured it.
pub fn process_overheads(
    gpu: Option<&GpuPreset>,
    groups: &[u32],
    peak: Bytes,
    settings: ProcessSettings,
    context: Option<Bytes>,
) -> ProcessOverheads {
    let generation = gpu.map_or(Generation::Hopper, |g| g.generation);
    // NVLink SHARP needs an NVSwitch: the SXM boards' fast links.
    let nvswitch = settings.nvls && gpu.is_none_or(|g| g.nvlink_gb_per_s >= 400.0);
    let communicators = groups.iter().filter(|&&n| n > 1).count() as u32;
    let nvls = groups
        .iter()
        .filter(|&&n| n >= 3 && nvswitch)
        .map(|_| nvls_bytes(generation))
        .sum::<u64>();
    let per_communicator = settings
        .nccl_mib
        .map_or(NCCL_BYTES_PER_COMMUNICATOR, |mib| u64::from(mib) * MIB);
    let nccl_bytes = u64::from(communicators) * per_communicator + nvls;
    let peak_bytes = peak.get().max(0.0).round() as u64;
    let cublas = cublas_workspace_bytes(generation);
    let slack_fraction = settings.slack();
    let slack = (peak_bytes as f64 * slack_fraction).round() as u64;
    let cuda_context = context.map_or(CUDA_CONTEXT_BYTES, |c| c.get().max(0.0).round() as u64);
    ProcessOverheads {
        cuda_context_bytes: cuda_context,
        nccl_communicators: communicators,
        nccl_bytes,
        cublas_workspace_bytes: cublas,
        allocator_slack_bytes: slack,
        allocator_slack_fraction: slack_fraction,
        peak_bytes,
        nvidia_smi_bytes: peak_bytes + slack + cuda_context + nccl_bytes + cublas,
    }
}

/// Serving: memory outside PyTorch's allocator that appears while vLLM profiles
/// (NCCL's communicators, cuBLAS's and the backend's buffers), in bytes, as
/// llm-d's planner measured it on H100 with vLLM 0.19.0
/// (`data/configuration/vllm_memory_constants.json` at 964c9dc; PR #205):
/// 0.27 GiB at TP 1 on the stage that samples, 0.07 on the others, 2.10
/// from TP 2 (the logits' all-gather builds a communicator of its own
/// inside the profile, by our reading). Other GPUs and NCCL set-ups differ.
pub fn non_torch_bytes(tp: u32, samples: bool) -> u64 {
    let gib = GIB as f64;
    let measured = match (tp > 1, samples) {
        (true, _) => 2.10,
        (false, true) => 0.27,
        (false, false) => 0.07,
    };
    (measured * gib) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lesson's 7 B ZeRO-1 on 8 H100s (38.5 GB): one data-parallel
    /// communicator with NVLink SHARP, the context, cuBLAS's 32 MiB, 15 %.
    #[test]
    fn zero1_on_eight_h100s() {
        let h100 = crate::gpu::gpu_preset("h100-80gb").unwrap();
        let o = process_overheads(
            Some(h100),
            &[8, 1, 1],
            Bytes::new(38.5e9),
            ProcessSettings::default(),
            None,
        );
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
        let o = process_overheads(
            Some(l40s),
            &[4, 2],
            Bytes::new(10e9),
            ProcessSettings::default(),
            None,
        );
        assert_eq!(o.nccl_communicators, 2);
        assert_eq!(o.nccl_bytes, 2 * 192 * MIB);
        assert_eq!(o.cublas_workspace_bytes, 20 * MIB);
    }

    /// What a user changes: expandable segments take the slack to 5 %, a
    /// measured slack replaces either, NVLink SHARP off drops its buffers
    /// and the environment says both; a measured context replaces 512 MiB.
    #[test]
    fn settings_a_user_changes() {
        let h100 = crate::gpu::gpu_preset("h100-80gb").unwrap();
        let peak = Bytes::new(40e9);
        let expandable = ProcessSettings {
            expandable_segments: true,
            ..ProcessSettings::default()
        };
        let o = process_overheads(Some(h100), &[8], peak, expandable, None);
        assert_eq!(o.allocator_slack_bytes, 2_000_000_000);
        let measured = ProcessSettings {
            allocator_slack: Some(0.08),
            nvls: false,
            ..expandable
        };
        let o = process_overheads(Some(h100), &[8], peak, measured, Some(Bytes::new(0.6e9)));
        assert_eq!(o.allocator_slack_bytes, 3_200_000_000);
        assert_eq!(o.nccl_bytes, 192 * MIB);
        // NCCL's buffers as measured: 300 MiB a communicator, two of them.
        let nccl = ProcessSettings {
            nccl_mib: Some(300),
            ..measured
        };
        let two = process_overheads(Some(h100), &[8, 2], peak, nccl, None);
        assert_eq!(two.nccl_bytes, 2 * 300 * MIB);
        assert_eq!(o.cuda_context_bytes, 600_000_000);
        assert_eq!(
            measured.environment(),
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True NCCL_NVLS_ENABLE=0 "
        );
        assert_eq!(ProcessSettings::default().environment(), "");
    }
}
