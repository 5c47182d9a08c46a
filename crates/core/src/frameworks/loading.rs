//! Host RAM while the checkpoint loads: a peak of its own before the first
//! step, per node, as transformers 5 and the trainers that call it read a
//! 16-bit safetensors checkpoint. Read from transformers 5.20.2
//! (`modeling_utils.py`, `core_model_loading.py`), accelerate 1.16.0
//! (`utils/fsdp_utils.py`) and DeepSpeed 0.19.8, and measured on the CPU
//! (a 267 M-parameter bf16 Llama in two shards: loading in its own dtype
//! adds 0.08 × the checkpoint of private memory, 1.03 × once every weight
//! is read, nearly all of it the file's pages; loading it in fp32 adds a
//! private fp32 copy).
//!
//! transformers 5 builds the model on the meta device (`low_cpu_mem_usage`
//! is gone: always so) and maps every shard (`safe_open(..., "mmap")`): a
//! weight kept in the checkpoint's dtype stays a view of the mapped file,
//! whose pages the node's processes share (page cache: reclaimable, but
//! counted against a container's memory limit). A cast to another dtype
//! makes a private copy per process.

use serde::Serialize;

/// Bytes a parameter takes in the checkpoint: 16 bits, as models are published.
pub const CHECKPOINT_BYTES_PER_PARAM: u64 = 2;

/// Who reads the checkpoint, and so how much of it each process holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Loader {
    /// Every rank calls `from_pretrained` (DDP, ZeRO-1/2, QLoRA): the
    /// mapped file once per node; a private copy per rank only for a cast
    /// (fp32 weights).
    PerRank,
    /// ZeRO-3 under `deepspeed.zero.Init` (transformers'
    /// `is_deepspeed_zero3_enabled`): each rank builds its partition, rank
    /// 0 copies each module in under `GatheredParameters`.
    Zero3Init,
    /// FSDP2 through accelerate with `fsdp_cpu_ram_efficient_loading` (as
    /// the accelerate export writes it): local rank 0 keeps the weights and
    /// upcasts the trainable ones to fp32 under mixed precision
    /// (`fsdp2_prepare_model`); transformers 5 fills every other rank's
    /// model with zeros on the CPU (`_move_missing_keys_from_meta_to_device`,
    /// `torch.zeros_like`), a private 16-bit copy each, before rank 0
    /// broadcasts (`fsdp2_load_full_state_dict`).
    Fsdp2RamEfficient,
    /// A distributed checkpoint (Megatron-LM's `torch_dist`, torchtitan's
    /// DCP): each rank reads only its shards.
    DistributedCheckpoint,
}

impl Loader {
    /// The loader's id in `--json`.
    pub const fn id(self) -> &'static str {
        match self {
            Loader::PerRank => "per_rank",
            Loader::Zero3Init => "zero3_init",
            Loader::Fsdp2RamEfficient => "fsdp2_ram_efficient",
            Loader::DistributedCheckpoint => "distributed_checkpoint",
        }
    }
}

/// A node's host RAM while its processes load the checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CheckpointLoading {
    /// Who reads it.
    pub loader: Loader,
    /// The whole checkpoint, bytes.
    pub checkpoint_bytes: u64,
    /// The checkpoint's pages the node maps, shared by its processes, bytes.
    pub page_cache_bytes: u64,
    /// The node's processes' own copies, bytes.
    pub private_bytes: u64,
    /// Both: what the node's RAM holds at the load's peak, bytes (beyond
    /// each process's libraries).
    pub host_bytes_per_node: u64,
}

/// A model of `params` parameters, `trainable` of them trained, loaded by
/// `loader` on a node of `gpus_per_node` processes of `world` in all.
/// `cast_to_fp32`: the weights are loaded in fp32 (fp32 training), a
/// private copy each. `fp32_master`: mixed precision, whose trainable
/// weights accelerate upcasts on the CPU before sharding.
pub fn checkpoint_loading(
    loader: Loader,
    params: u64,
    trainable: u64,
    gpus_per_node: u32,
    world: u32,
    cast_to_fp32: bool,
    fp32_master: bool,
) -> CheckpointLoading {
    let checkpoint = params.saturating_mul(CHECKPOINT_BYTES_PER_PARAM);
    let processes = u64::from(gpus_per_node.max(1));
    let cast = match cast_to_fp32 {
        true => params.saturating_mul(4),
        false => 0,
    };
    let (page_cache, private) = match loader {
        Loader::PerRank => (checkpoint, processes.saturating_mul(cast)),
        Loader::Zero3Init => (checkpoint, 0),
        Loader::Fsdp2RamEfficient => {
            let upcast = match fp32_master || cast_to_fp32 {
                true => trainable.saturating_mul(4),
                false => 0,
            };
            (
                checkpoint,
                upcast.saturating_add((processes - 1).saturating_mul(checkpoint)),
            )
        }
        Loader::DistributedCheckpoint => (
            (u128::from(checkpoint) * u128::from(processes))
                .div_ceil(u128::from(world.max(1)))
                .min(u128::from(checkpoint)) as u64,
            0,
        ),
    };
    CheckpointLoading {
        loader,
        checkpoint_bytes: checkpoint,
        page_cache_bytes: page_cache,
        private_bytes: private,
        host_bytes_per_node: page_cache.saturating_add(private),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P70: u64 = 70_553_706_496;

    /// Llama 3.1 70B on a node of 8: every rank mapping the 16-bit file
    /// shares it (141 GB); FSDP2's RAM-efficient loading under
    /// transformers 5 holds rank 0's fp32 copy and seven zero-filled
    /// 16-bit ones (HF's blog counted 70B × 4 B × 8 ≈ 2 TB for the fp32
    /// loads before it); a distributed checkpoint over 32 ranks, a quarter.
    #[test]
    fn llama_70b_on_a_node_of_eight() {
        let per_rank = checkpoint_loading(Loader::PerRank, P70, P70, 8, 8, false, true);
        assert_eq!(per_rank.host_bytes_per_node, 2 * P70);
        let fp32 = checkpoint_loading(Loader::PerRank, P70, P70, 8, 8, true, false);
        assert_eq!(fp32.private_bytes, 8 * 4 * P70);
        let fsdp2 = checkpoint_loading(Loader::Fsdp2RamEfficient, P70, P70, 8, 8, false, true);
        assert_eq!(fsdp2.private_bytes, 4 * P70 + 7 * 2 * P70);
        assert_eq!(fsdp2.host_bytes_per_node, 20 * P70);
        let dcp = checkpoint_loading(Loader::DistributedCheckpoint, P70, P70, 8, 32, false, true);
        assert_eq!(dcp.page_cache_bytes, 2 * P70 / 4);
        assert_eq!(dcp.private_bytes, 0);
    }

    /// LoRA under FSDP2: only the adapters are upcast on rank 0.
    #[test]
    fn lora_upcasts_only_the_adapters() {
        let lora = checkpoint_loading(Loader::Fsdp2RamEfficient, 8_000, 40, 4, 4, false, true);
        assert_eq!(lora.private_bytes, 4 * 40 + 3 * 16_000);
    }
}
