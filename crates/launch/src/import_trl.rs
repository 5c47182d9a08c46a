//! TRL's `GRPOConfig`, `DPOConfig` and `DistillationConfig` (TRL 1.16)
//! read back into the RL keys (issue 66), the other direction of TRL's
//! part of [`crate::rl`]: samples, batch and lengths, the colocated vLLM
//! engine (its memory fraction, context, TP and sleep, which TRL runs at
//! level 2: `self.llm.sleep(level=2)` in `grpo_trainer.py`) or `trl
//! vllm-serve` on GPUs of its own, the KL term's reference, the DPO
//! reference precomputed, the distillation's teacher, and the trainer's
//! model (`GRPOTrainer(model="…")`). The trainer's own arguments
//! (micro-batch, checkpointing, precision) are read as `TrainingArguments`
//! are ([`crate::import_hf`]).

use crate::import::{model_key, Imported};
use crate::import_python::{calls, Arguments, PyValue};

/// What the configuration says that needs another setting to become a key.
#[derive(Default)]
struct Read {
    generations: Option<u32>,
    generation_batch: Option<u32>,
    response: Option<u32>,
    context: Option<u32>,
    micro: Option<u32>,
    accumulation: Option<u32>,
    beta: Option<f64>,
}

/// Reads `arguments`, the call of TRL's configuration `name`, with the GPUs
/// (`world`) a launch line or accelerate's YAML gave.
pub(crate) fn trl_arguments(
    text: &str,
    name: &str,
    arguments: &Arguments,
    world: Option<u32>,
    imported: &mut Imported,
) {
    imported.keys.push(("rl_framework", "trl".into()));
    let algo = match name {
        "DPOConfig" => "dpo",
        "DistillationConfig" => "distill",
        _ => "grpo",
    };
    imported.keys.push(("algo", algo.into()));
    let mut read = Read::default();
    for (key, value) in arguments {
        read_argument(name, key, value, &mut read, imported);
    }
    server(text, &mut read, imported);
    lengths(&read, algo, imported);
    prompts(&read, algo, world, imported);
    if algo == "grpo" {
        let reference = match read.beta {
            Some(b) if b > 0.0 => "model",
            _ => "none",
        };
        imported.keys.push(("ref", reference.into()));
    }
}

/// One argument of TRL's own; the trainer's are read elsewhere.
fn read_argument(name: &str, key: &str, value: &PyValue, read: &mut Read, imported: &mut Imported) {
    let said = format!("{name}.{key}={}", value.said());
    let count = value.count().filter(|&n| n > 0);
    let mut map = |to: &'static str, v: String| {
        imported.keys.push((to, v));
        imported.mapped.push((said.clone(), to));
    };
    match (key, value) {
        ("num_generations", _) if count.is_some() => {
            read.generations = count;
            imported.mapped.push((said, "rollouts"));
        }
        ("generation_batch_size", _) if count.is_some() => {
            read.generation_batch = count;
            imported.mapped.push((said, "prompts"));
        }
        ("max_completion_length", _) if count.is_some() => {
            read.response = count;
            imported.mapped.push((said, "response_len"));
        }
        ("max_length" | "vllm_max_model_length", _) if count.is_some() => {
            read.context = count;
            imported.mapped.push((said, "prompt_len"));
        }
        ("per_device_train_batch_size", _) if count.is_some() => read.micro = count,
        ("gradient_accumulation_steps", _) if count.is_some() => {
            read.accumulation = count;
            imported.mapped.push((said, "prompts"));
        }
        ("beta", PyValue::Number(b)) if *b >= 0.0 => {
            read.beta = Some(*b);
            imported.mapped.push((said, "ref"));
        }
        ("use_vllm", PyValue::Bool(true)) => imported.ignored.push(said),
        ("vllm_mode", PyValue::Str(mode)) if mode == "colocate" || mode == "server" => {
            let placement = if mode == "colocate" {
                "colocate"
            } else {
                "split"
            };
            map("placement", placement.into());
        }
        ("vllm_gpu_memory_utilization", PyValue::Number(f)) if *f > 0.0 && *f <= 1.0 => {
            map("gpu_util", value.said());
        }
        ("vllm_tensor_parallel_size", _) if count.is_some() => map("rollout_tp", value.said()),
        // TRL sleeps its colocated engine at level 2 (`grpo_trainer.py`).
        ("vllm_enable_sleep_mode", PyValue::Bool(on)) => {
            map("sleep", if *on { "2" } else { "0" }.into());
        }
        ("precompute_ref_log_probs", PyValue::Bool(on)) => {
            map("ref", if *on { "precomputed" } else { "model" }.into());
        }
        ("teacher_model_name_or_path", PyValue::Str(repo)) => match crate::preset_of_repo(repo) {
            Some(id) => map("teacher", id.into()),
            None => imported.unread.push(format!(
                "{said}: no preset of this checkpoint; the teacher must be one"
            )),
        },
        // The trainer's own, read as TrainingArguments are.
        ("gradient_checkpointing" | "bf16" | "fp16" | "optim", _) => {}
        (
            "learning_rate" | "logging_steps" | "output_dir" | "num_train_epochs" | "max_steps"
            | "temperature" | "top_p" | "report_to" | "seed" | "save_steps",
            _,
        ) => imported.ignored.push(said),
        _ => imported.unread.push(said),
    }
}

/// The response and the prompt: GRPO's and the distillation's from the
/// completion and the engine's context (the prompt as what the context
/// leaves), DPO's `max_length` the pair's whole, kept as the prompt over
/// the page's response when it is longer.
fn lengths(read: &Read, algo: &str, imported: &mut Imported) {
    let response = match (algo, read.response) {
        ("dpo", _) => None,
        (_, r) => r,
    };
    if let Some(r) = response {
        imported.keys.push(("response_len", r.to_string()));
    }
    let Some(context) = read.context else { return };
    match algo {
        "dpo" => {
            // The pair's length is what the figures need; said as a prompt
            // and a response adding to it.
            let response = (context / 2).clamp(1, 1024);
            imported
                .keys
                .push(("prompt_len", (context - response).max(1).to_string()));
            imported.keys.push(("response_len", response.to_string()));
        }
        _ => {
            let response = response.unwrap_or(1024);
            if context > response {
                imported
                    .keys
                    .push(("prompt_len", (context - response).to_string()));
            }
        }
    }
}

/// The prompts a step: GRPO's generation batch over its samples; DPO's
/// and the distillation's from the micro-batch, the accumulation and the
/// GPUs.
fn prompts(read: &Read, algo: &str, world: Option<u32>, imported: &mut Imported) {
    let rollouts = match algo {
        "grpo" => read.generations.unwrap_or(8),
        _ => 1,
    };
    if algo != "dpo" {
        imported.keys.push(("rollouts", rollouts.to_string()));
    }
    if let Some(batch) = read.generation_batch {
        imported
            .keys
            .push(("prompts", (batch / rollouts.max(1)).max(1).to_string()));
        return;
    }
    let (micro, accumulation) = (read.micro.unwrap_or(8), read.accumulation.unwrap_or(1));
    match world {
        Some(world) => {
            let sequences = u64::from(micro) * u64::from(accumulation) * u64::from(world);
            let prompts = sequences.min(1 << 20);
            imported.keys.push(("prompts", prompts.to_string()));
        }
        None if algo != "grpo" => imported.unread.push(format!(
            "gradient_accumulation_steps={accumulation}: the prompts a step are per-device × {accumulation} × the GPUs, and nothing here says how many; give prompts (or the accelerate launch line)"
        )),
        None => {}
    }
}

/// `trl vllm-serve` on GPUs of its own (its TP × DP the rollout's GPUs,
/// its memory fraction and context; the command a launch script runs, or
/// the export's note naming it), and the trainer's model
/// (`GRPOTrainer(model="…")`).
fn server(text: &str, read: &mut Read, imported: &mut Imported) {
    for trainer in ["GRPOTrainer", "DPOTrainer", "DistillationTrainer"] {
        for arguments in calls(text, trainer) {
            for (key, value) in &arguments {
                if let ("model", PyValue::Str(repo)) = (key.as_str(), value) {
                    model_key(repo, imported);
                }
            }
        }
    }
    let Some(line) = text.lines().find(|l| l.contains("trl vllm-serve")) else {
        return;
    };
    let words: Vec<&str> = line[line.find("trl vllm-serve").unwrap_or(0)..]
        .split_whitespace()
        .collect();
    let (mut tp, mut dp) = (1u32, 1u32);
    for (i, word) in words.iter().enumerate() {
        let value = words.get(i + 1).copied().unwrap_or_default();
        let number = value.parse::<u32>().ok().filter(|&n| n > 0);
        let said = format!("trl vllm-serve {word} {value}");
        match (*word, number) {
            ("--model", _) => model_key(value, imported),
            ("--tensor-parallel-size", Some(n)) => {
                tp = n;
                imported.map(said, "rollout_tp", n.to_string());
            }
            ("--data-parallel-size", Some(n)) => {
                dp = n;
                imported.mapped.push((said, "rollout_gpus"));
            }
            ("--gpu-memory-utilization", _)
                if value.parse::<f64>().is_ok_and(|f| f > 0.0 && f <= 1.0) =>
            {
                imported.map(said, "gpu_util", value);
            }
            ("--max-model-len", Some(n)) => {
                read.context = Some(n);
                imported.mapped.push((said, "prompt_len"));
            }
            _ => {}
        }
    }
    let gpus = u64::from(tp) * u64::from(dp);
    imported
        .keys
        .push(("rollout_gpus", gpus.min(1 << 20).to_string()));
}
