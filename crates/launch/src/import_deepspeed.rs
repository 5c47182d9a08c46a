//! DeepSpeed's configuration JSON read back into the link's keys (issue 66),
//! the other direction of [`crate::deepspeed`]: the ZeRO stage, its offload
//! and buckets, the precision, the optimizer and the batch, in the names of
//! `deepspeed/runtime/config.py` and `deepspeed/runtime/zero/config.py`
//! (DeepSpeed 0.19.8). A launch line before the JSON (`deepspeed
//! --num_gpus 8 --num_nodes 2 …` or `torchrun --nproc-per-node 8 --nnodes 2
//! …`) gives the GPUs a node and the nodes; without one, the GPUs are the
//! data-parallel world the batch implies (`train_batch_size` ÷ (micro-batch
//! × accumulation)), said as such. The JSON names no model: the summary
//! says so, and the page keeps its own.

use serde_json::{Map, Value};

use crate::import::{Imported, ImportedEngine};

/// Whether `text`'s JSON object is a DeepSpeed configuration: it has one of
/// DeepSpeed's own sections and none of a model's `config.json`.
pub(crate) fn is_deepspeed(object: &Map<String, Value>) -> bool {
    const OWN: [&str; 6] = [
        "zero_optimization",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "fp16",
        "bf16",
    ];
    OWN.iter().any(|k| object.contains_key(*k)) && !object.contains_key("model_type")
}

/// The JSON object of `text` (after any launch line), if it holds one.
pub(crate) fn json_object(text: &str) -> Option<(Map<String, Value>, &str)> {
    let start = text.find('{')?;
    let (launch, json) = text.split_at(start);
    match serde_json::from_str::<Value>(json.trim_end()) {
        Ok(Value::Object(object)) => Some((object, launch)),
        _ => None,
    }
}

/// Reads a DeepSpeed configuration (`object`) with the launch line before
/// it (`launch`, possibly empty) into the link's keys.
pub(crate) fn import_config(object: &Map<String, Value>, launch: &str) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::DeepSpeed),
        ..Imported::default()
    };
    imported.keys.push(("job", "train".into()));
    let mut batch = Batch::default();
    for (name, value) in object {
        read_section(name, value, &mut batch, &mut imported);
    }
    // Neither 16-bit section on: DeepSpeed trains in fp32.
    if !batch.half {
        imported.keys.push(("dtype", "fp32".into()));
    }
    let placement = launch_placement(launch, &mut imported);
    batch_keys(&batch, placement, &mut imported);
    imported.unread.push(
        "model: a DeepSpeed configuration names none; choose it, or paste its config.json".into(),
    );
    imported
}

/// The batch's three numbers as read.
#[derive(Default)]
struct Batch {
    /// Whether an fp16 or bf16 section is enabled (else DeepSpeed runs fp32).
    half: bool,
    global: Option<u64>,
    micro: Option<u64>,
    accumulation: Option<u64>,
}

/// Sections and settings that change nothing the page computes.
const IGNORED: [&str; 12] = [
    "gradient_clipping",
    "steps_per_print",
    "wall_clock_breakdown",
    "scheduler",
    "prescale_gradients",
    "gradient_predivide_factor",
    "tensorboard",
    "wandb",
    "csv_monitor",
    "comms_logger",
    "flops_profiler",
    "dump_state",
];

/// One top-level setting.
fn read_section(name: &str, value: &Value, batch: &mut Batch, imported: &mut Imported) {
    let said = || format!("{name}: {value}");
    match name {
        "fp16" | "bf16" | "bfloat16" => {
            if enabled(value) == Some(true) {
                let dtype = if name == "fp16" { "fp16" } else { "bf16" };
                batch.half = true;
                imported.map(said(), "dtype", dtype);
            } else if enabled(value) == Some(false) {
                imported.mapped.push((said(), "dtype"));
            } else {
                // `"auto"`: the trainer's choice, not this file's.
                batch.half = true;
                imported.unread.push(said());
            }
        }
        "data_types" => match value.get("grad_accum_dtype").and_then(Value::as_str) {
            Some("fp32") => {
                imported.map(said(), "grad_acc", "fp32");
            }
            _ => imported.unread.push(said()),
        },
        "optimizer" => optimizer(value, imported),
        "train_batch_size" => batch.global = count(name, value, "global_batch", imported),
        "train_micro_batch_size_per_gpu" => batch.micro = count(name, value, "mbs", imported),
        "gradient_accumulation_steps" => {
            batch.accumulation = count(name, value, "global_batch", imported)
        }
        "tensor_parallel" => match value.get("autotp_size").and_then(Value::as_u64) {
            Some(tp) if (1..=65_536).contains(&tp) => {
                imported.map(said(), "tp", tp.to_string());
            }
            _ => imported.unread.push(said()),
        },
        "zero_optimization" => match value.as_object() {
            Some(zero) => zero_section(zero, imported),
            None => imported.unread.push(said()),
        },
        _ if IGNORED.contains(&name) => imported.ignored.push(said()),
        _ => imported.unread.push(said()),
    }
}

/// `{"enabled": …}` (or the bare boolean, or `"auto"`: not a choice here).
fn enabled(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Object(o) => match o.get("enabled") {
            Some(Value::Bool(b)) => Some(*b),
            None => Some(true),
            Some(_) => None,
        },
        _ => None,
    }
}

/// A whole number of sequences, read into `key`; `"auto"` (set by the
/// Hugging Face trainer) and anything else said unread.
fn count(name: &str, value: &Value, key: &'static str, imported: &mut Imported) -> Option<u64> {
    let n = value
        .as_u64()
        .filter(|&n| n > 0 && n <= u64::from(u32::MAX));
    match n {
        Some(_) => imported.mapped.push((format!("{name}: {value}"), key)),
        None => imported.unread.push(format!("{name}: {value}")),
    }
    n
}

/// The optimizer by DeepSpeed's type names (and torch.optim's), its
/// learning rate and decay of no bearing.
fn optimizer(value: &Value, imported: &mut Imported) {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    let momentum = value
        .pointer("/params/momentum")
        .and_then(Value::as_f64)
        .is_some_and(|m| m > 0.0);
    let key = match kind.as_deref() {
        Some("adam" | "adamw" | "fusedadam" | "cpuadam" | "deepspeedcpuadam") => "adam",
        Some("lion" | "fusedlion" | "cpulion") => "lion",
        Some("sgd") if momentum => "sgd-momentum",
        Some("sgd") => "sgd",
        Some("adafactor") => "adafactor",
        _ => return imported.unread.push(format!("optimizer: {value}")),
    };
    imported.map(format!("optimizer: {value}"), "opt", key);
}

/// `zero_optimization`: the stage, the offload and where it goes, the
/// buckets (elements, the page's keys in millions), the overlap.
fn zero_section(zero: &Map<String, Value>, imported: &mut Imported) {
    let mut offload = "none";
    let stage = zero.get("stage").and_then(Value::as_u64).unwrap_or(0);
    for (name, value) in zero {
        let said = format!("zero_optimization.{name}: {value}");
        let millions = |v: &Value| {
            v.as_f64()
                .filter(|&n| n >= 0.0)
                .map(|n| vram_core::decimal::shortest_decimal(n / 1e6))
        };
        let bucket = match name.as_str() {
            "reduce_bucket_size" => Some("reduce_bucket"),
            "allgather_bucket_size" => Some("allgather_bucket"),
            "stage3_prefetch_bucket_size" => Some("prefetch_bucket"),
            "stage3_max_live_parameters" => Some("max_live"),
            _ => None,
        };
        match (name.as_str(), bucket) {
            ("stage", _) => match value.as_u64() {
                Some(stage @ 0..=3) => {
                    let key = if stage == 0 {
                        "ddp".into()
                    } else {
                        stage.to_string()
                    };
                    imported.map(said, "stage", key);
                }
                _ => imported.unread.push(said),
            },
            (_, Some(key)) => match millions(value) {
                Some(m) => {
                    imported.keys.push((key, m));
                    imported.mapped.push((said, key));
                }
                None => imported.unread.push(said),
            },
            // DeepSpeed offloads parameters at ZeRO-3 alone.
            ("offload_param", _) if stage < 3 => imported.ignored.push(said),
            // The legacy switch, still read as the optimizer's offload to the CPU.
            ("cpu_offload", _) if value.as_bool() == Some(true) => {
                imported.keys.push(("offload_to", "cpu".into()));
                if offload == "none" {
                    offload = "optimizer";
                }
                imported.mapped.push((said, "offload"));
            }
            ("cpu_offload", _) if value.as_bool() == Some(false) => imported.ignored.push(said),
            ("offload_optimizer" | "offload_param", _) => {
                match value.get("device").and_then(Value::as_str) {
                    Some(device @ ("cpu" | "nvme")) => {
                        imported.keys.push(("offload_to", device.into()));
                        offload = match (name.as_str(), offload) {
                            ("offload_param", _) | (_, "all") => "all",
                            _ => "optimizer",
                        };
                        imported.mapped.push((said, "offload"));
                    }
                    Some("none") => imported.ignored.push(said),
                    _ => imported.unread.push(said),
                }
            }
            ("overlap_comm", _) => match value.as_bool() {
                Some(on) => {
                    imported
                        .keys
                        .push(("overlap_grad", u8::from(on).to_string()));
                    imported.mapped.push((said, "overlap_grad"));
                }
                None => imported.unread.push(said),
            },
            ("contiguous_gradients" | "round_robin_gradients" | "reduce_scatter", _) => {
                imported.ignored.push(said)
            }
            _ => imported.unread.push(said),
        }
    }
    if offload != "none" {
        imported.keys.push(("offload", offload.into()));
    }
}

/// The GPUs a node and the nodes a launch line gives: `deepspeed
/// --num_gpus N --num_nodes M` or `torchrun --nproc-per-node N --nnodes M`.
pub(crate) fn launch_placement(launch: &str, imported: &mut Imported) -> Option<(u64, u64)> {
    let words: Vec<&str> = launch
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.trim_end_matches('\\').split_whitespace())
        .collect();
    if !words
        .first()
        .is_some_and(|w| matches!(*w, "deepspeed" | "torchrun"))
    {
        return None;
    }
    let (mut gpus, mut nodes) = (None, None);
    let mut i = 0;
    while i < words.len() {
        let (flag, inline) = match words[i].split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (words[i], None),
        };
        let value = inline.or_else(|| words.get(i + 1).copied());
        let number = value
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|&n| n > 0 && n <= u64::from(u32::MAX));
        let key = match flag {
            "--num_gpus" | "--num-gpus" | "--nproc-per-node" | "--nproc_per_node" => {
                gpus = number;
                Some("gpus")
            }
            "--num_nodes" | "--num-nodes" | "--nnodes" => {
                nodes = number;
                Some("nodes")
            }
            _ => None,
        };
        if let Some(key) = key {
            let said = format!("{flag} {}", value.unwrap_or_default());
            match number {
                Some(_) => imported.mapped.push((said, key)),
                None => imported.unread.push(said),
            }
        }
        i += 1;
    }
    Some((gpus?, nodes.unwrap_or(1)))
}

/// The micro-batch, the global batch where it accumulates, and the GPUs: the
/// launch line's, else the data-parallel world the batch implies.
fn batch_keys(batch: &Batch, placement: Option<(u64, u64)>, imported: &mut Imported) {
    // DeepSpeed's rule: train_batch_size = micro-batch × accumulation ×
    // GPUs, any one derived from the others (`_configure_train_batch_size`).
    let from_batch = match (batch.global, batch.micro, batch.accumulation) {
        (Some(g), Some(m), Some(a)) if g % (m * a) == 0 => Some(g / (m * a)),
        _ => None,
    };
    let world = placement.map(|(g, n)| g * n).or(from_batch);
    let micro = batch
        .micro
        .or(match (batch.global, batch.accumulation, world) {
            (Some(g), Some(a), Some(w)) if g % (a * w) == 0 => Some(g / (a * w)),
            _ => None,
        });
    if let Some(micro) = micro {
        imported.keys.push(("mbs", micro.to_string()));
    }
    match (placement, from_batch) {
        (Some((gpus, nodes)), _) => {
            imported.keys.push(("gpus", gpus.to_string()));
            imported.keys.push(("nodes", nodes.to_string()));
        }
        (None, Some(world)) => {
            imported.keys.push(("gpus", world.to_string()));
            imported.keys.push(("nodes", "1".into()));
            imported.mapped.push((
                format!("train_batch_size ÷ (micro-batch × accumulation) = {world} GPUs, on one node: no launch line says how many a node"),
                "gpus",
            ));
        }
        (None, None) if batch.global.is_some() || batch.micro.is_some() => imported.unread.push(
            "the GPUs: DeepSpeed derives train_batch_size, the micro-batch or the accumulation from the other two and the GPUs, and not all are given; give gpus (or the deepspeed line)".into(),
        ),
        (None, None) => {}
    }
    // The global batch where it accumulates (one step of micro-batches is the page's default).
    if let (Some(global), Some(micro), Some(world)) = (batch.global, micro, world) {
        if global > micro.saturating_mul(world) {
            imported.keys.push(("global_batch", global.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::import_launch;

    /// Without a launch line the GPUs are the batch's data-parallel world,
    /// said; the Hugging Face trainer's `"auto"` is not read; a model's
    /// `config.json` is not taken for DeepSpeed's.
    #[test]
    fn the_world_follows_from_the_batch_and_auto_is_said() {
        let imported = import_launch(
            r#"{"fp16": {"enabled": "auto"}, "train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 2}}"#,
        )
        .unwrap();
        let query = imported.query();
        assert!(query.contains("gpus=8&nodes=1&global_batch=64"), "{query}");
        assert!(imported.unread.iter().any(|u| u.starts_with("fp16")));
        assert!(imported
            .mapped
            .iter()
            .any(|(said, _)| said.contains("8 GPUs")));
        let config_json = r#"{"model_type": "llama", "hidden_size": 4096, "fp16": true}"#;
        assert!(import_launch(config_json).is_err());
    }
}
