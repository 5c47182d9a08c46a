//! The other direction of the engines' launch lines (issue 66, its first
//! formats): a `vllm serve` or SGLang `launch_server` command read back into
//! the shared link's keys, with what was read and mapped, what was read and
//! means nothing to the figures, and what could not be read — nothing
//! guessed silently. [`crate::engines`] writes these commands; a command it
//! wrote comes back to the same configuration (`tests/exports_measured.rs`
//! over the export matrix).

use vram_core::serve::kv_cache::VllmRelease;

/// The engine whose command was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportedEngine {
    /// `vllm serve MODEL …` (or `python -m vllm.entrypoints.openai.api_server --model MODEL …`).
    Vllm,
    /// `python3 -m sglang.launch_server --model-path MODEL …` (or `sglang serve`).
    Sglang,
    /// verl's `python3 -m verl.trainer.main_ppo` with its Hydra overrides (an
    /// RL run, not an engine).
    Verl,
    /// OpenRLHF's `train_ppo_ray` or `train_dpo` (an RL run).
    OpenRlhf,
    /// DeepSpeed's configuration JSON, with or without its launch line (a
    /// training run).
    DeepSpeed,
    /// Megatron-LM's `pretrain_gpt.py` with its arguments (a training run).
    Megatron,
    /// torchtitan's job TOML, with or without its launch line (a training run).
    Torchtitan,
    /// accelerate's YAML with the trainer's, PEFT's and bitsandbytes'
    /// arguments (a training run).
    Accelerate,
    /// TRL's `GRPOConfig`, `DPOConfig` or `DistillationConfig` (an RL run).
    Trl,
    /// LitGPT's `finetune_lora` or `finetune_full` (a training run).
    LitGpt,
}

/// A launch command read back: the link's keys it gives, and an account of
/// every option.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Imported {
    /// The engine, when the command names one.
    pub engine: Option<ImportedEngine>,
    /// The shared link's keys the command gives, in the order read.
    pub keys: Vec<(&'static str, String)>,
    /// What was read and mapped: the option, and the key it became.
    pub mapped: Vec<(String, &'static str)>,
    /// What was read and means nothing to the figures (a port, a host, a name).
    pub ignored: Vec<String>,
    /// What could not be read: an option unknown here, a value that is not a
    /// number, a model path that names no preset.
    pub unread: Vec<String>,
}

/// Why nothing could be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportError {
    /// The text holds no command.
    Empty,
    /// The text is not a command this reader knows (its first words).
    UnknownKind,
}

/// Options that change nothing the page computes.
const IGNORED: [&str; 21] = [
    "--host",
    "--port",
    "--served-model-name",
    "--api-key",
    "--trust-remote-code",
    "--disable-log-requests",
    "--disable-log-stats",
    "--uvicorn-log-level",
    "--log-level",
    "--seed",
    "--tokenizer",
    "--chat-template",
    "--download-dir",
    "--enable-prefix-caching",
    "--no-enable-prefix-caching",
    // Host memory for preempted sequences, not the GPU's.
    "--swap-space",
    "--distributed-executor-backend",
    "--enable-chunked-prefill",
    "--enable-auto-tool-choice",
    "--tool-call-parser",
    "--reasoning-parser",
];

/// Reads a launch command of vLLM or SGLang, comment lines and `\` line
/// continuations allowed, into the link's keys.
pub fn import_launch(text: &str) -> Result<Imported, ImportError> {
    // DeepSpeed's JSON, its launch line before it or not.
    if let Some((object, launch)) = crate::import_deepspeed::json_object(text) {
        return match crate::import_deepspeed::is_deepspeed(&object) {
            true => Ok(crate::import_deepspeed::import_config(&object, launch)),
            false => Err(ImportError::UnknownKind),
        };
    }
    // LitGPT's configuration file (its config hub's YAML).
    if let Some(imported) = crate::import_litgpt::import_config(text) {
        return Ok(imported);
    }
    // Hugging Face's: TRL's configurations, accelerate's YAML, the
    // trainer's arguments.
    if crate::import_hf::is_hf(text) {
        return Ok(crate::import_hf::import_hf(text));
    }
    // torchtitan's job TOML, its launch line before it or not.
    if let Some((table, launch)) = crate::import_torchtitan::job_table(text) {
        return Ok(crate::import_torchtitan::import_job(&table, launch));
    }
    use crate::import_shell::{one_command, shell_words, substituted};
    let words: Vec<String> = substituted(&shell_words(text))
        .into_iter()
        .flat_map(|word| {
            // A command passed as one quoted string (`srun bash -c "…"`,
            // `sbatch --wrap="…"`): its own words.
            let command = word.contains(char::is_whitespace)
                && ["torchrun ", "vllm serve ", "python3 ", "python "]
                    .iter()
                    .any(|c| word.contains(c));
            match command {
                true => substituted(&shell_words(word.trim_start_matches("--wrap="))),
                false => vec![word],
            }
        })
        .collect();
    if words.iter().all(|w| w == ";") {
        return Err(ImportError::Empty);
    }
    // LitGPT's command, after whatever precedes it.
    if let Some((full, rest)) =
        (0..words.len()).find_map(|i| crate::import_litgpt::head(&words[i..]))
    {
        return Ok(crate::import_litgpt::import_command(
            one_command(rest),
            full,
        ));
    }
    // The command, after whatever precedes it (`set -x`, an environment,
    // `ray job submit … --`), up to a pipe or the next command.
    let found =
        (0..words.len()).find_map(|i| head(&words[i..]).map(|(engine, rest)| (engine, i, rest)));
    let Some((engine, at, rest)) = found else {
        return match crate::import_megatron::is_megatron(&words) {
            true => Ok(crate::import_megatron::import_arguments(&words, text)),
            false => Err(ImportError::UnknownKind),
        };
    };
    let rest = one_command(rest);
    match engine {
        ImportedEngine::Verl => return Ok(crate::import_verl::import_overrides(rest)),
        ImportedEngine::OpenRlhf => {
            let dpo = words[at..]
                .iter()
                .take(4)
                .any(|w| w == "openrlhf.cli.train_dpo");
            return Ok(crate::import_openrlhf::import_command(rest, dpo));
        }
        ImportedEngine::Vllm | ImportedEngine::Sglang => {}
        // Read above, by their own readers.
        ImportedEngine::DeepSpeed
        | ImportedEngine::Megatron
        | ImportedEngine::Torchtitan
        | ImportedEngine::Accelerate
        | ImportedEngine::Trl
        | ImportedEngine::LitGpt => return Err(ImportError::UnknownKind),
    }
    let mut imported = Imported {
        engine: Some(engine),
        ..Imported::default()
    };
    imported.keys.push(("job", "serve".into()));
    imported.keys.push((
        "engine",
        match engine {
            ImportedEngine::Sglang => "sglang",
            _ => "vllm",
        }
        .into(),
    ));
    // A command names no release: today's, the newest the page reproduces.
    if engine == ImportedEngine::Vllm {
        let newest = VllmRelease::NEWEST.key();
        imported.keys.push(("engine_version", newest.into()));
    }
    let options = read_options(engine, rest, &mut imported);
    layout_keys(&options, &mut imported);
    Ok(imported)
}

/// The engine and the words after its command's head: a command of its own
/// (`vllm serve`, `sglang serve`), a Python module run with `-m` by
/// `python` or `python3`, or OpenRLHF's DPO run by `deepspeed --module`.
fn head(words: &[String]) -> Option<(ImportedEngine, &[String])> {
    use ImportedEngine::{OpenRlhf, Sglang, Verl, Vllm};
    let word = |i: usize| words.get(i).map(String::as_str);
    let (engine, skip) = match (word(0)?, word(1), word(2)) {
        ("vllm", Some("serve"), _) => (Vllm, 2),
        ("sglang", Some("serve"), _) => (Sglang, 2),
        ("python" | "python3", Some("-m"), Some(module)) => (
            match module {
                "vllm.entrypoints.openai.api_server" => Vllm,
                "sglang.launch_server" => Sglang,
                "verl.trainer.main_ppo" => Verl,
                "openrlhf.cli.train_ppo_ray" => OpenRlhf,
                _ => return None,
            },
            3,
        ),
        ("deepspeed", Some("--module"), Some("openrlhf.cli.train_dpo")) => (OpenRlhf, 3),
        _ => return None,
    };
    Some((engine, &words[skip..]))
}

/// The parallel sizes a command gives, for the keys that follow from them
/// together (the GPUs, expert parallelism).
#[derive(Default)]
struct Sizes {
    tp: Option<u32>,
    pp: Option<u32>,
    dp: Option<u32>,
    ep: Option<u32>,
    expert_parallel: bool,
    dp_local: Option<u32>,
}

/// Reads every option into `imported`'s keys, or its ignored and unread
/// lists; the parallel sizes are returned for [`layout_keys`].
fn read_options(engine: ImportedEngine, words: &[String], imported: &mut Imported) -> Sizes {
    let mut sizes = Sizes::default();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        // `--flag=value` or `--flag value`; a flag without a value.
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (word.clone(), None),
        };
        // vLLM's parser takes `--tensor_parallel_size` as `--tensor-parallel-size`.
        let flag = match (engine, flag.strip_prefix("--")) {
            (ImportedEngine::Vllm, Some(name)) => format!("--{}", name.replace('_', "-")),
            _ => flag,
        };
        let takes_value = !matches!(
            flag.as_str(),
            "--enable-expert-parallel"
                | "--enforce-eager"
                | "--disable-cuda-graph"
                | "--trust-remote-code"
                | "--disable-log-requests"
                | "--disable-log-stats"
                | "--enable-prefix-caching"
        );
        let value = match (inline, takes_value) {
            (Some(v), _) => Some(v),
            (None, true) => words
                .get(i + 1)
                .filter(|v| !v.starts_with("--"))
                .cloned()
                .inspect(|_| i += 1),
            (None, false) => None,
        };
        i += 1;
        if !flag.starts_with('-') {
            // vLLM's model is its first positional word.
            model_key(&flag, imported);
            continue;
        }
        read_option(engine, &flag, value.as_deref(), &mut sizes, imported);
    }
    sizes
}

/// One option: a key, a parallel size, an ignored or an unread option.
fn read_option(
    engine: ImportedEngine,
    flag: &str,
    value: Option<&str>,
    sizes: &mut Sizes,
    imported: &mut Imported,
) {
    let said = |value: Option<&str>| match value {
        Some(v) => format!("{flag} {v}"),
        None => flag.to_string(),
    };
    let number = |value: Option<&str>| value.and_then(|v| v.parse::<u32>().ok());
    let key = |imported: &mut Imported, key: &'static str, v: String| {
        imported.keys.push((key, v));
        imported.mapped.push((said(value), key));
    };
    use ImportedEngine::{Sglang, Vllm};
    match (engine, flag) {
        (_, "--model" | "--model-path") => match value {
            Some(model) => model_key(model, imported),
            None => imported.unread.push(said(value)),
        },
        (Vllm, "--tensor-parallel-size" | "-tp") | (Sglang, "--tp-size" | "--tp")
            if number(value).is_some() =>
        {
            sizes.tp = number(value);
            imported.mapped.push((said(value), "tp"));
        }
        (Vllm, "--pipeline-parallel-size" | "-pp") | (Sglang, "--pp-size" | "--pp")
            if number(value).is_some() =>
        {
            sizes.pp = number(value);
            imported.mapped.push((said(value), "pp"));
        }
        (Vllm, "--data-parallel-size" | "-dp") | (Sglang, "--dp-size" | "--dp")
            if number(value).is_some() =>
        {
            sizes.dp = number(value);
            imported.mapped.push((said(value), "gpus"));
        }
        // This node's replicas of a data-parallel deployment over nodes.
        (Vllm, "--data-parallel-size-local" | "-dpl") if number(value).is_some() => {
            sizes.dp_local = number(value);
            imported.mapped.push((said(value), "gpus"));
        }
        (Sglang, "--ep-size" | "--ep") if number(value).is_some() => {
            sizes.ep = number(value);
            imported.mapped.push((said(value), "ep"));
        }
        (Vllm, "--enable-expert-parallel") => {
            sizes.expert_parallel = true;
            imported.mapped.push((said(value), "ep"));
        }
        (Vllm, "--max-model-len") | (Sglang, "--context-length") if number(value).is_some() => {
            key(imported, "max_len", value.unwrap_or_default().into())
        }
        (Vllm, "--gpu-memory-utilization") | (Sglang, "--mem-fraction-static")
            if value.is_some_and(|v| v.parse::<f64>().is_ok()) =>
        {
            key(imported, "gpu_util", value.unwrap_or_default().into())
        }
        (Vllm, "--kv-cache-memory-bytes") if value.is_some_and(|v| v.parse::<f64>().is_ok()) => {
            let bytes: f64 = value.unwrap_or_default().parse().unwrap_or_default();
            let gb = vram_core::decimal::shortest_decimal(bytes / 1e9);
            key(imported, "kv_memory", gb)
        }
        (_, "--kv-cache-dtype") => match value {
            Some("auto") => key(imported, "kv_dtype", "auto".into()),
            Some(v) if v.starts_with("fp8") => key(imported, "kv_dtype", "fp8".into()),
            _ => imported.unread.push(said(value)),
        },
        (Vllm, "--block-size") | (Sglang, "--page-size") if number(value).is_some() => {
            key(imported, "block", value.unwrap_or_default().into())
        }
        (Vllm, "--max-num-batched-tokens") | (Sglang, "--chunked-prefill-size")
            if number(value).is_some() =>
        {
            key(imported, "batched_tokens", value.unwrap_or_default().into())
        }
        (Vllm, "--max-num-seqs") | (Sglang, "--max-running-requests")
            if number(value).is_some() =>
        {
            key(imported, "max_num_seqs", value.unwrap_or_default().into())
        }
        (_, "--quantization") => match value {
            Some("fp8") => key(imported, "weights", "fp8".into()),
            Some("bitsandbytes") => key(imported, "weights", "nf4".into()),
            _ => imported.unread.push(said(value)),
        },
        (Vllm, "--enforce-eager") | (Sglang, "--disable-cuda-graph") => {
            key(imported, "cuda_graphs", "0".into())
        }
        (_, flag) if IGNORED.contains(&flag) => imported.ignored.push(said(value)),
        _ => imported.unread.push(said(value)),
    }
}

/// What a model's checkpoint that names no preset is told.
const MODEL_UNKNOWN: &str = ": no preset of this checkpoint; paste its config.json";

/// The model's key where its checkpoint names a preset; else said unread.
pub(crate) fn model_key(path: &str, imported: &mut Imported) {
    match crate::preset_of_repo(path) {
        Some(id) => {
            imported.keys.push(("model", id.into()));
            imported.mapped.push((path.to_string(), "model"));
        }
        None => imported.unread.push(format!("{path}{MODEL_UNKNOWN}")),
    }
}

/// A critic's or reward model's checkpoint `path` (said as `said`) as its
/// link key `link` (`critic_model`, `reward_model`): the preset it names;
/// one the actor's own checkpoint names is the default, dropped by
/// [`drop_value_models_of_the_actor`] once the actor is known.
pub(crate) fn value_model_key(
    link: &'static str,
    path: &str,
    said: String,
    imported: &mut Imported,
) {
    match crate::preset_of_repo(path) {
        Some(id) => {
            imported.keys.push((link, id.into()));
            imported.mapped.push((said, link));
        }
        None => imported.unread.push(format!("{said}{VALUE_MODEL_UNKNOWN}")),
    }
}

/// What a critic's or reward model's checkpoint that names no preset is told.
const VALUE_MODEL_UNKNOWN: &str =
    ": no preset of this checkpoint; its size is taken as the actor's";

/// The critic's and reward model's keys that name the actor's own model:
/// the default, so no key; said as of no bearing.
pub(crate) fn drop_value_models_of_the_actor(imported: &mut Imported) {
    let actor = imported
        .keys
        .iter()
        .rev()
        .find(|(k, _)| *k == "model")
        .map(|(_, v)| v.clone());
    let same = |k: &str, v: &str| {
        matches!(k, "critic_model" | "reward_model") && Some(v) == actor.as_deref()
    };
    let dropped: Vec<&'static str> = imported
        .keys
        .iter()
        .filter(|(k, v)| same(k, v))
        .map(|(k, _)| *k)
        .collect();
    imported.keys.retain(|(k, v)| !same(k, v));
    // A checkpoint no preset names, the actor's own: as the actor's, of no
    // bearing beside the actor's own line.
    let actor_paths: Vec<String> = imported
        .unread
        .iter()
        .filter_map(|u| u.strip_suffix(MODEL_UNKNOWN).map(str::to_string))
        .collect();
    let (unread, of_actor): (Vec<_>, Vec<_>) = core::mem::take(&mut imported.unread)
        .into_iter()
        .partition(|u| {
            !u.strip_suffix(VALUE_MODEL_UNKNOWN).is_some_and(|said| {
                actor_paths
                    .iter()
                    .any(|p| said.ends_with(&format!("={p}")) || said.ends_with(&format!(" {p}")))
            })
        });
    imported.unread = unread;
    imported.ignored.extend(
        of_actor
            .into_iter()
            .filter_map(|u| u.strip_suffix(VALUE_MODEL_UNKNOWN).map(str::to_string)),
    );
    let (kept, moved): (Vec<_>, Vec<_>) = core::mem::take(&mut imported.mapped)
        .into_iter()
        .partition(|(_, link)| !dropped.contains(link));
    // Said as of no bearing unless it turned on another key too (OpenRLHF's
    // `--critic.model_name_or_path` is also `critic=1`).
    for (said, _) in moved {
        if !kept.iter().any(|(other, _)| *other == said) {
            imported.ignored.push(said);
        }
    }
    imported.mapped = kept;
}

/// The layout's keys: TP and PP, the GPUs a node holds (TP × PP × DP
/// replicas), and expert parallelism (vLLM's is TP × DP with
/// `--enable-expert-parallel`; SGLang's its `--ep-size`).
fn layout_keys(sizes: &Sizes, imported: &mut Imported) {
    let (tp, pp, dp) = (
        sizes.tp.unwrap_or(1),
        sizes.pp.unwrap_or(1),
        sizes.dp.unwrap_or(1),
    );
    // The GPUs of this node: its own replicas where the command says them.
    let node_dp = sizes.dp_local.unwrap_or(dp);
    imported.keys.push(("tp", tp.to_string()));
    imported.keys.push(("pp", pp.to_string()));
    imported
        .keys
        .push(("gpus", (tp * pp * node_dp).to_string()));
    let ep = match (sizes.expert_parallel, sizes.ep) {
        (true, _) => Some(tp * dp),
        (false, Some(ep)) => Some(ep),
        (false, None) => None,
    };
    if let Some(ep) = ep.filter(|&ep| ep > 1) {
        imported.keys.push(("ep", ep.to_string()));
    }
}

impl Imported {
    /// The link's `key` set to `value`, said as read from `said`.
    pub(crate) fn map(
        &mut self,
        said: impl Into<String>,
        key: &'static str,
        value: impl Into<String>,
    ) {
        self.keys.push((key, value.into()));
        self.mapped.push((said.into(), key));
    }

    /// The keys as a link's query (`v` the contract version the page
    /// writes); a key given twice (a default, then what an option said)
    /// keeps the last.
    pub fn query(&self) -> String {
        let mut query = format!(
            "{}={}",
            vram_core::input::link::VERSION_KEY,
            vram_core::input::link::LINK_VERSION
        );
        let last = |i: usize, key: &str| !self.keys[i + 1..].iter().any(|(k, _)| *k == key);
        for (i, (key, value)) in self.keys.iter().enumerate() {
            if !last(i, key) {
                continue;
            }
            query.push('&');
            query.push_str(key);
            query.push('=');
            query.push_str(value);
        }
        query
    }
}

/// Test support: `text` read by the reader of `engine`, giving each of
/// `parts` (`key=value` words).
#[cfg(test)]
pub(crate) fn read_as(text: &str, engine: ImportedEngine, parts: &str) -> (Imported, String) {
    let imported = import_launch(text).unwrap();
    assert_eq!(imported.engine, Some(engine));
    let query = imported.query();
    assert_has(&query, parts);
    (imported, query)
}

/// Test support: each of `parts` (`key=value` words) is in `query`.
#[cfg(test)]
pub(crate) fn assert_has(query: &str, parts: &str) {
    for part in parts.split_whitespace() {
        assert!(query.contains(part), "{part}: {query}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint without a preset is said, not guessed; other text is refused.
    #[test]
    fn what_cannot_be_read_is_said() {
        let imported =
            import_launch("python3 -m sglang.launch_server --model-path /data/my-model --tp 2")
                .unwrap();
        assert!(!imported.query().contains("model="));
        assert!(imported.unread[0].starts_with("/data/my-model: no preset"));
        assert_eq!(
            import_launch("  \n# only a comment"),
            Err(ImportError::Empty)
        );
        assert_eq!(
            import_launch("torchrun train.py"),
            Err(ImportError::UnknownKind)
        );
    }
}
