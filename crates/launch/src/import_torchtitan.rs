//! torchtitan's job TOML read back into the link's keys (issue 66), the
//! other direction of [`crate::torchtitan`], in the names of
//! `torchtitan/config/job_config.py` (torchtitan 0.2.x): the model by its
//! name and flavor, FP8's converters, the batch, the precision, FSDP2's
//! degrees and resharding (ZeRO-3 after every forward, ZeRO-2 never, HSDP's
//! replicas a sharding group), TP, PP with its schedule and stages (the
//! modules of every stage read as a layout), CP, EP and the experts' TP,
//! CPU offload and activation checkpointing. A launch line before the TOML
//! (`torchrun --nnodes N --nproc_per_node M -m torchtitan.train …`, or
//! `NGPU=M ./run_train.sh`) gives the GPUs a node and the nodes; without
//! one the GPUs are the degrees' product, on one node, said.

use toml::{Table, Value};

use crate::import::{Imported, ImportedEngine};

/// The TOML of `text` (after any launch line) if it is a torchtitan job:
/// a `[model]` with a name, or a `[parallelism]` table.
pub(crate) fn job_table(text: &str) -> Option<(Table, &str)> {
    let start = text
        .lines()
        .position(|line| line.trim_start().starts_with('['))
        .map(|n| text.lines().take(n).map(|l| l.len() + 1).sum::<usize>())?;
    let (launch, toml) = text.split_at(start.min(text.len()));
    let table: Table = toml.parse().ok()?;
    let model = table
        .get("model")
        .and_then(Value::as_table)
        .is_some_and(|m| m.contains_key("name"));
    (model || table.contains_key("parallelism")).then_some((table, launch))
}

/// A torchtitan model name and flavor's preset.
fn preset_of(name: &str, flavor: &str) -> Option<&'static str> {
    Some(match (name, flavor) {
        // torchtitan's llama3 flavors are Llama 3.1's (its assets and RoPE scaling).
        ("llama3", "8B") => "llama3.1-8b",
        ("llama3", "70B") => "llama3.1-70b",
        ("llama3", "405B") => "llama3.1-405b",
        ("qwen3", "0.6B") => "qwen3-0.6b",
        ("qwen3", "8B") => "qwen3-8b",
        ("qwen3", "32B") => "qwen3-32b",
        ("qwen3", "30B-A3B") => "qwen3-30b-a3b",
        ("qwen3", "235B-A22B") => "qwen3-235b-a22b",
        ("deepseek_v3", "671B") => "deepseek-v3",
        ("llama4", "17bx16e") => "llama4-scout",
        _ => return None,
    })
}

/// Sections that change nothing the page computes.
const IGNORED: [&str; 10] = [
    "job",
    "metrics",
    "checkpoint",
    "profiling",
    "comm",
    "lr_scheduler",
    "validation",
    "fault_tolerance",
    "experimental",
    "float8",
];

/// Reads a job TOML (`table`) with the launch line before it (`launch`).
pub(crate) fn import_job(table: &Table, launch: &str) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::Torchtitan),
        ..Imported::default()
    };
    imported.keys.push(("job", "train".into()));
    // torchtitan's default parameters are bfloat16 (`mixed_precision_param`).
    let mut job = Job {
        bf16: true,
        ..Job::default()
    };
    for (name, value) in table {
        let section = value.as_table();
        match (name.as_str(), section) {
            ("model", Some(model)) => model_section(model, &mut job, &mut imported),
            ("optimizer", Some(optimizer)) => optimizer_section(optimizer, &mut imported),
            ("training", Some(training)) => training_section(training, &mut job, &mut imported),
            ("parallelism", Some(parallelism)) => {
                parallelism_section(parallelism, &mut job, &mut imported)
            }
            ("activation_checkpoint", Some(ac)) => checkpoint_section(ac, &mut imported),
            ("compile", Some(compile)) => compile_section(compile, &mut job, &mut imported),
            ("quantize", Some(quantize)) => quantize_section(quantize, &mut job, &mut imported),
            (name, _) if IGNORED.contains(&name) => imported.ignored.push(format!("[{name}]")),
            (name, _) => imported.unread.push(format!("[{name}]")),
        }
    }
    finish(&job, launch, &mut imported);
    imported
}

/// What the sections say together.
#[derive(Default)]
struct Job {
    /// Whether torch.compile runs the loss (`[compile]` with `loss` among
    /// its components, or 0.1's `[training] compile`): torchtitan's default
    /// is not.
    compiled_loss: bool,
    layers: Option<u32>,
    fp8: Option<&'static str>,
    fp8_params: bool,
    bf16: bool,
    local_batch: Option<i64>,
    global_batch: Option<i64>,
    pipeline_micro: Option<i64>,
    replicate: i64,
    shard: i64,
    reshard: Option<String>,
    degrees: [i64; 4],
    layers_per_stage: Option<i64>,
    stage_modules: Option<Vec<Vec<String>>>,
}

/// One setting of a section, said as `[section] key = value`.
fn said(section: &str, key: &str, value: &Value) -> String {
    format!("[{section}] {key} = {value}")
}

fn model_section(model: &Table, job: &mut Job, imported: &mut Imported) {
    let name = model
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let flavor = model
        .get("flavor")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match preset_of(name, flavor) {
        Some(id) => {
            imported.keys.insert(1, ("model", id.into()));
            imported
                .mapped
                .push((format!("[model] {name} {flavor}"), "model"));
            job.layers = vram_core::model::presets::model_preset(id).map(|p| p.architecture.layers);
        }
        None => imported.unread.push(format!(
            "[model] {name} {flavor}: no preset of this flavor; paste its config.json"
        )),
    }
    for (key, value) in model {
        match key.as_str() {
            "name" | "flavor" => {}
            "converters" => {
                let converters: Vec<&str> = value
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for converter in &converters {
                    match *converter {
                        "quantize.linear.float8" | "float8" => job.fp8 = Some("tensorwise"),
                        "quantize.linear.mx" | "mx" => job.fp8 = Some("mxfp8"),
                        _ => imported
                            .unread
                            .push(format!("[model] converter {converter}")),
                    }
                }
                if job.fp8.is_some() {
                    imported.mapped.push((said("model", key, value), "dtype"));
                }
            }
            "hf_assets_path" | "tokenizer_path" => imported.ignored.push(said("model", key, value)),
            _ => imported.unread.push(said("model", key, value)),
        }
    }
}

fn optimizer_section(optimizer: &Table, imported: &mut Imported) {
    for (key, value) in optimizer {
        match (key.as_str(), value.as_str()) {
            ("name", Some("AdamW" | "Adam")) => {
                imported.map(said("optimizer", key, value), "opt", "adam");
            }
            ("lr" | "eps" | "weight_decay" | "beta1" | "beta2" | "implementation", _) => {
                imported.ignored.push(said("optimizer", key, value))
            }
            _ => imported.unread.push(said("optimizer", key, value)),
        }
    }
}

/// A count within `u32`'s range (no size here is larger).
fn valid(n: i64) -> bool {
    (1..=i64::from(u32::MAX)).contains(&n)
}

fn training_section(training: &Table, job: &mut Job, imported: &mut Imported) {
    for (key, value) in training {
        let mapped = |imported: &mut Imported, to: &'static str| {
            imported.mapped.push((said("training", key, value), to));
        };
        match (key.as_str(), value) {
            // `batch_size`: the name before torchtitan 0.1's global batch.
            ("local_batch_size" | "batch_size", Value::Integer(n)) if valid(*n) => {
                job.local_batch = Some(*n);
                mapped(imported, "mbs");
            }
            ("global_batch_size", Value::Integer(n)) if valid(*n) => {
                job.global_batch = Some(*n);
                mapped(imported, "global_batch");
            }
            ("seq_len", Value::Integer(n)) if valid(*n) => {
                imported.keys.push(("seq", n.to_string()));
                mapped(imported, "seq");
            }
            ("mixed_precision_param", Value::String(p)) if p == "bfloat16" || p == "float32" => {
                job.bf16 = p == "bfloat16";
                mapped(imported, "dtype");
            }
            ("enable_cpu_offload", Value::Boolean(on)) => {
                if *on {
                    imported.keys.push(("offload", "all".into()));
                }
                mapped(imported, "offload");
            }
            ("mixed_precision_reduce", Value::String(r)) if r == "float32" => {
                imported.ignored.push(said("training", key, value))
            }
            // torchtitan 0.1's switch, the model and the loss together.
            ("compile", Value::Boolean(on)) => {
                job.compiled_loss = *on;
                mapped(imported, "loss");
            }
            ("steps" | "max_norm" | "dataset" | "dataset_path" | "warmup_steps" | "seed", _) => {
                imported.ignored.push(said("training", key, value))
            }
            _ => imported.unread.push(said("training", key, value)),
        }
    }
}

fn parallelism_section(parallelism: &Table, job: &mut Job, imported: &mut Imported) {
    (job.replicate, job.shard) = (1, 1);
    job.degrees = [1; 4];
    for (key, value) in parallelism {
        let n = value.as_integer().filter(|&n| {
            (1..=i64::from(u32::MAX)).contains(&n) || (n == -1 && key.contains("shard"))
        });
        let degree = match key.as_str() {
            "tensor_parallel_degree" => Some((0, "tp")),
            "pipeline_parallel_degree" => Some((1, "pp")),
            "context_parallel_degree" => Some((2, "cp")),
            "expert_parallel_degree" => Some((3, "ep")),
            _ => None,
        };
        let said = said("parallelism", key, value);
        match (key.as_str(), degree, n) {
            (_, Some((i, to)), Some(n)) => {
                job.degrees[i] = n;
                imported.keys.push((to, n.to_string()));
                imported.mapped.push((said, to));
            }
            ("data_parallel_replicate_degree", _, Some(n)) => {
                job.replicate = n;
                imported.mapped.push((said, "stage"));
            }
            ("data_parallel_shard_degree", _, Some(n)) => {
                job.shard = n;
                imported.mapped.push((said, "stage"));
            }
            ("expert_tensor_parallel_degree", _, Some(n)) => {
                let tp = parallelism
                    .get("tensor_parallel_degree")
                    .and_then(Value::as_integer)
                    .unwrap_or(1);
                let etp = if n == tp { "tp" } else { "1" };
                if n == tp || n == 1 {
                    imported.map(said, "etp", etp);
                } else {
                    imported.unread.push(said);
                }
            }
            ("pipeline_parallel_microbatch_size", _, Some(n)) => {
                job.pipeline_micro = Some(n);
                imported.mapped.push((said, "mbs"));
            }
            ("pipeline_parallel_layers_per_stage", _, Some(n)) => {
                job.layers_per_stage = Some(n);
                imported.mapped.push((said, "vpp"));
            }
            _ => other_parallelism(key, value, job, imported),
        }
    }
}

/// Resharding, the ring's rotation, the schedule and the stages' modules.
fn other_parallelism(key: &str, value: &Value, job: &mut Job, imported: &mut Imported) {
    let said = said("parallelism", key, value);
    match (key, value) {
        ("fsdp_reshard_after_forward", Value::String(r))
            if matches!(r.as_str(), "always" | "never" | "default") =>
        {
            job.reshard = Some(r.clone());
            imported.mapped.push((said, "stage"));
        }
        ("context_parallel_rotate_method", Value::String(r)) if r == "alltoall" => {
            imported.map(said, "cp_comm", "p2p");
        }
        ("pipeline_parallel_schedule", Value::String(s))
            if matches!(s.as_str(), "1F1B" | "Interleaved1F1B" | "GPipe") =>
        {
            imported.ignored.push(said)
        }
        (
            "pipeline_parallel_first_stage_less_layers"
            | "pipeline_parallel_last_stage_less_layers",
            Value::Integer(0),
        ) => imported.ignored.push(said),
        ("module_fqns_per_model_part", Value::Array(parts)) => {
            let stages: Option<Vec<Vec<String>>> = parts
                .iter()
                .map(|p| {
                    p.as_array().map(|m| {
                        m.iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect()
                    })
                })
                .collect();
            match stages {
                Some(stages) => {
                    job.stage_modules = Some(stages);
                    imported.mapped.push((said, "pp_layout"));
                }
                None => imported.unread.push(said),
            }
        }
        _ => imported.unread.push(said),
    }
}

/// torch.compile's section: the loss compiled where it is enabled with
/// `loss` among its components (both by default).
fn compile_section(compile: &Table, job: &mut Job, imported: &mut Imported) {
    let enabled = compile
        .get("enable")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let loss = match compile.get("components").and_then(Value::as_array) {
        Some(components) => components.iter().any(|c| c.as_str() == Some("loss")),
        None => true,
    };
    job.compiled_loss = enabled && loss;
    for (key, value) in compile {
        match key.as_str() {
            "enable" | "components" => imported.mapped.push((said("compile", key, value), "loss")),
            _ => imported.ignored.push(said("compile", key, value)),
        }
    }
}

fn checkpoint_section(ac: &Table, imported: &mut Imported) {
    for (key, value) in ac {
        match (key.as_str(), value.as_str()) {
            ("mode", Some(mode @ ("none" | "selective" | "full"))) => {
                imported.keys.push(("recompute", mode.into()));
                imported
                    .mapped
                    .push((said("activation_checkpoint", key, value), "recompute"));
            }
            ("selective_ac_option", Some("op")) => {
                imported.keys.push(("recompute_modules", "op".into()));
                imported.mapped.push((
                    said("activation_checkpoint", key, value),
                    "recompute_modules",
                ));
            }
            _ => imported
                .unread
                .push(said("activation_checkpoint", key, value)),
        }
    }
}

fn quantize_section(quantize: &Table, job: &mut Job, imported: &mut Imported) {
    let linear = quantize.get("linear").and_then(Value::as_table);
    for (kind, table) in linear.into_iter().flatten() {
        let Some(table) = table.as_table() else {
            continue;
        };
        for (key, value) in table {
            let section = format!("quantize.linear.{kind}");
            match (key.as_str(), value) {
                ("recipe_name", Value::String(r)) if r == "tensorwise" || r == "mxfp8_cublas" => {
                    imported
                        .mapped
                        .push((said(&section, key, value), "fp8_recipe"));
                }
                ("enable_fsdp_float8_all_gather", Value::Boolean(on)) => {
                    job.fp8_params = *on;
                    imported.mapped.push((said(&section, key, value), "dtype"));
                }
                ("filter_fqns", _) => imported.ignored.push(said(&section, key, value)),
                _ => imported.unread.push(said(&section, key, value)),
            }
        }
    }
}

/// The keys that follow from several sections: the precision, the
/// sharding, the GPUs and nodes, the batch, the pipeline's stages.
fn finish(job: &Job, launch: &str, imported: &mut Imported) {
    let dtype = match (job.fp8, job.fp8_params, job.bf16) {
        (Some(_), true, _) => "fp8-params",
        (Some(_), false, _) => "fp8",
        (None, _, true) => "bf16",
        (None, _, false) => "fp32",
    };
    imported.keys.push(("dtype", dtype.into()));
    // Uncompiled, torchtitan's cross_entropy_loss runs over an fp32 copy
    // of the logits (`torchtitan/components/loss.py`).
    if job.compiled_loss {
        imported.keys.push(("loss", "compiled".into()));
    } else {
        imported.keys.push(("loss", "fp32".into()));
    }
    if let Some(recipe) = job.fp8 {
        imported.keys.push(("fp8_recipe", recipe.into()));
    }
    let [tp, pp, cp, _] = job.degrees;
    // torchtitan's tensor parallelism shards the norms' sequence too
    // (`SequenceParallel` in every model's TP plan).
    if tp > 1 {
        imported.keys.push(("sp", "1".into()));
    }
    let placement = crate::import_deepspeed::launch_placement(launch, imported);
    let model_parallel = tp.saturating_mul(pp).saturating_mul(cp).max(1);
    // A shard degree of -1 takes the GPUs left.
    let shard = match (job.shard, placement) {
        (-1, Some((gpus, nodes))) => {
            (gpus * nodes) as i64 / model_parallel.saturating_mul(job.replicate.max(1))
        }
        // Sharded over GPUs no line gives.
        (-1, None) => -1,
        (n, _) => n,
    };
    let data_parallel = job.replicate.max(1).saturating_mul(shard.max(1));
    let group = (job.replicate > 1 && shard > 1).then_some(shard);
    // FSDP2 over the shards, replicated over the replicas (HSDP: a
    // sharding group); no resharding said and one shard: plain replicas.
    let stage = match (shard, job.reshard.as_deref()) {
        (1, None) => "ddp",
        (_, Some("never")) => "2",
        _ => "3",
    };
    imported.keys.push(("stage", stage.into()));
    if stage == "3" {
        imported.keys.push(("sharding", "fsdp2".into()));
    }
    if let Some(group) = group {
        imported.keys.push(("shard_group", group.to_string()));
    }
    match placement {
        Some((gpus, nodes)) => {
            imported.keys.push(("gpus", gpus.to_string()));
            imported.keys.push(("nodes", nodes.to_string()));
        }
        None if shard == -1 => imported.unread.push(
            "[parallelism] data_parallel_shard_degree = -1: the GPUs left, and no launch line says how many; give gpus and nodes".into(),
        ),
        None => {
            let world = data_parallel.saturating_mul(model_parallel);
            imported.keys.push(("gpus", world.to_string()));
            imported.keys.push(("nodes", "1".into()));
            imported.mapped.push((
                format!("the degrees' product, {world} GPUs, on one node: no launch line says how many a node"),
                "gpus",
            ));
        }
    }
    // Under PP a local batch is cut into the pipeline's micro-batches.
    let micro = match pp {
        1 => job.local_batch,
        _ => job.pipeline_micro.or(job.local_batch),
    };
    if let Some(micro) = micro {
        imported.keys.push(("mbs", micro.to_string()));
        if let Some(global) = job
            .global_batch
            .filter(|&g| g > micro.saturating_mul(data_parallel))
        {
            imported.keys.push(("global_batch", global.to_string()));
        }
    }
    stage_keys(job, pp, imported);
}

/// The pipeline's virtual stages: even ones from the layers a stage
/// holds; named modules as a layout (`E` the embedding, `t` a layer, `L`
/// the loss), their count over PP the virtual stages.
fn stage_keys(job: &Job, pp: i64, imported: &mut Imported) {
    if pp <= 1 {
        return;
    }
    if let Some(stages) = &job.stage_modules {
        let parts: Vec<String> = stages
            .iter()
            .map(|modules| {
                let layers = modules.iter().filter(|m| m.starts_with("layers.")).count();
                let mut part = String::new();
                if modules.iter().any(|m| m == "tok_embeddings") {
                    part.push('E');
                }
                if layers > 0 {
                    part.push_str(&format!("t*{layers}"));
                }
                if modules.iter().any(|m| m == "output") {
                    part.push('L');
                }
                part
            })
            .collect();
        imported.keys.push(("pp_layout", parts.join("|")));
        imported
            .keys
            .push(("vpp", (stages.len() as i64 / pp).max(1).to_string()));
        return;
    }
    if let (Some(per_stage), Some(layers)) = (job.layers_per_stage, job.layers) {
        let stages = i64::from(layers) / per_stage.max(1);
        imported
            .keys
            .push(("vpp", (stages / pp).max(1).to_string()));
    }
}

#[cfg(test)]
mod tests {
    use crate::import::import_launch;

    /// Without a launch line: the degrees' product, said; a shard degree of
    /// -1 said as GPUs no line gives; an unknown flavor said.
    #[test]
    fn the_gpus_follow_from_the_degrees_or_are_said_missing() {
        let imported = import_launch(
            "[model]\nname = \"llama3\"\nflavor = \"3B\"\n[parallelism]\ndata_parallel_shard_degree = 4\ntensor_parallel_degree = 2\nfsdp_reshard_after_forward = \"never\"",
        )
        .unwrap();
        let query = imported.query();
        crate::import::assert_has(&query, "stage=2 tp=2 sp=1 gpus=8 nodes=1 dtype=bf16");
        assert!(imported.unread[0].starts_with("[model] llama3 3B: no preset"));
        let imported = import_launch(
            "[model]\nname = \"qwen3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1",
        )
        .unwrap();
        assert!(!imported.query().contains("gpus="));
        assert!(imported.unread[0].contains("data_parallel_shard_degree = -1"));
    }
}
