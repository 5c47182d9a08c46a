//! LitGPT's `finetune_lora` (or `finetune`) and `finetune_full` commands
//! read back into the link's keys (issue 66): the other direction of
//! [`crate::litgpt`]'s text, each argument of the scripts' `setup`
//! (`litgpt/finetune/lora.py`, `full.py`, LitGPT 0.4.13) mapped to the key
//! the figures count, said as of no bearing, or not read. What the command
//! leaves out is LitGPT's default: LoRA r 8 with dropout 0.05 on q and v,
//! a micro-batch of 1 in a global batch of 16, AdamW.

use crate::import::{model_key, Imported, ImportedEngine};

/// The script a `litgpt` command runs, and the words after it.
pub(crate) fn head(words: &[String]) -> Option<(bool, &[String])> {
    let word = |i: usize| words.get(i).map(String::as_str);
    match (word(0)?, word(1)?) {
        ("litgpt", "finetune_lora" | "finetune") => Some((false, &words[2..])),
        ("litgpt", "finetune_full") => Some((true, &words[2..])),
        _ => None,
    }
}

/// Arguments that change nothing the page computes.
const IGNORED: [&str; 14] = [
    "--out_dir",
    "--lora_alpha",
    "--logger_name",
    "--seed",
    "--access_token",
    "--train.save_interval",
    "--train.log_interval",
    "--train.lr_warmup_steps",
    "--train.lr_warmup_fraction",
    "--train.epochs",
    "--train.max_steps",
    "--train.max_tokens",
    "--train.min_lr",
    "--train.max_norm",
];

/// What a checkpoint, a precision or a quantisation the page does not count is told.
const NOT_COUNTED: &str =
    ": not counted (the page counts LitGPT in bf16-true, with NF4 or LLM.int8 for QLoRA)";

/// Reads `words` (the checkpoint and the arguments after the script); `full`
/// for `finetune_full`.
pub(crate) fn import_command(words: &[String], full: bool) -> Imported {
    let mut unread = Vec::new();
    // `--name value` and `--name=value`, the positional checkpoint first.
    let mut arguments: Vec<(String, Option<String>)> = Vec::new();
    let mut checkpoint = None;
    for word in words {
        let first = arguments.is_empty();
        match (word.strip_prefix("--"), arguments.last_mut()) {
            (Some(_), _) => match word.split_once('=') {
                Some((name, value)) => arguments.push((name.to_string(), Some(value.to_string()))),
                None => arguments.push((word.clone(), None)),
            },
            (None, Some((_, value @ None))) => *value = Some(word.clone()),
            (None, _) if checkpoint.is_none() && first => checkpoint = Some(word.clone()),
            (None, _) => unread.push(word.clone()),
        }
    }
    import_arguments(checkpoint, arguments, unread, full)
}

/// LitGPT's configuration file (`litgpt finetune_lora --config …yaml`, its
/// config hub's): a mapping with `checkpoint_dir` and `train`, each entry
/// the argument of the same name (`train`'s and `eval`'s as `--train.…` and
/// `--eval.…`, `data` as a whole, the optimizer by its class); LoRA's
/// script where it sets `lora_r`, else the full one. `None` for any other text.
pub(crate) fn import_config(text: &str) -> Option<Imported> {
    use yaml_rust2::{Yaml, YamlLoader};
    let document = YamlLoader::load_from_str(text).ok()?.into_iter().next()?;
    let Yaml::Hash(hash) = document else {
        return None;
    };
    let key = |k: &str| Yaml::String(k.into());
    if !hash.contains_key(&key("checkpoint_dir")) || !hash.contains_key(&key("train")) {
        return None;
    }
    let scalar = |value: &Yaml| match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    };
    let mut checkpoint = None;
    let mut arguments: Vec<(String, Option<String>)> = Vec::new();
    for (name, value) in &hash {
        let Some(name) = name.as_str() else { continue };
        match (name, value) {
            ("checkpoint_dir", v) => checkpoint = scalar(v),
            (_, Yaml::Null) => {}
            ("train" | "eval", Yaml::Hash(section)) => {
                for (inner, v) in section {
                    if let (Some(inner), Some(v)) = (inner.as_str(), scalar(v)) {
                        arguments.push((format!("--{name}.{inner}"), Some(v)));
                    }
                }
            }
            ("data", Yaml::Hash(data)) => {
                let class = data.get(&key("class_path")).and_then(scalar);
                arguments.push(("--data".into(), Some(class.unwrap_or_default())));
            }
            // The optimizer by its class (`class_path: torch.optim.AdamW`), or
            // the older hub's `optim: {optimizer: adamw}`.
            ("optimizer", Yaml::Hash(optimizer)) => {
                let class = optimizer.get(&key("class_path")).and_then(scalar);
                let class = class.unwrap_or_default();
                let short = class.rsplit('.').next().unwrap_or_default().to_string();
                arguments.push(("--optimizer".into(), Some(short)));
            }
            ("optim", Yaml::Hash(optim)) => {
                let chosen = optim.get(&key("optimizer")).and_then(scalar);
                let name = match chosen.as_deref() {
                    Some("adamw") | None => "AdamW".to_string(),
                    Some(other) => other.to_string(),
                };
                arguments.push(("--optimizer".into(), Some(name)));
            }
            (_, v) => match scalar(v) {
                Some(v) => arguments.push((format!("--{name}"), Some(v))),
                None => arguments.push((format!("--{name}"), None)),
            },
        }
    }
    let full = !hash.contains_key(&key("lora_r"));
    Some(import_arguments(checkpoint, arguments, Vec::new(), full))
}

/// The arguments read: the checkpoint, each `--name` with its value, the
/// words not read already; `full` for `finetune_full`.
fn import_arguments(
    checkpoint: Option<String>,
    arguments: Vec<(String, Option<String>)>,
    unread: Vec<String>,
    full: bool,
) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::LitGpt),
        unread,
        ..Imported::default()
    };
    imported.keys.push(("job", "train".into()));
    imported.keys.push(("framework", "litgpt".into()));
    match &checkpoint {
        Some(path) => {
            model_key(path, &mut imported);
            // LitGPT's GPT has its own output head: a tied preset's
            // embedding is copied into it.
            let tied = imported
                .keys
                .iter()
                .find(|(k, _)| *k == "model")
                .and_then(|(_, id)| vram_core::model::presets::model_preset(id))
                .is_some_and(|p| p.architecture.tied_embeddings);
            if tied {
                imported.keys.push(("tied", "0".into()));
            }
        }
        None => imported
            .unread
            .push("the checkpoint directory: not given".into()),
    }
    let mut state = State::default();
    for (name, value) in arguments {
        let said = match &value {
            Some(v) => format!("{name} {v}"),
            None => name.clone(),
        };
        let Some(value) = value else {
            imported.unread.push(said);
            continue;
        };
        if !read(&name, &value, &said, full, &mut state, &mut imported) {
            imported.unread.push(said);
        }
    }
    state.keys(full, &mut imported);
    imported
}

/// What several arguments say together.
#[derive(Default)]
struct State {
    precision: Option<String>,
    quantize: Option<String>,
    devices: Option<u32>,
    nodes: Option<u32>,
    global: Option<u32>,
    targets: [Option<bool>; 5],
    head: bool,
    given: Vec<&'static str>,
}

/// Reads one argument; `false` when it is not read.
fn read(
    name: &str,
    value: &str,
    said: &str,
    full: bool,
    state: &mut State,
    imported: &mut Imported,
) -> bool {
    let flag = |v: &str| match v {
        "true" | "True" => Some(true),
        "false" | "False" => Some(false),
        _ => None,
    };
    let whole = |v: &str| v.parse::<u32>().ok().filter(|n| *n > 0);
    let key = |link: &'static str, v: String, state: &mut State, imported: &mut Imported| {
        imported.keys.push((link, v));
        imported.mapped.push((said.to_string(), link));
        state.given.push(link);
        true
    };
    match name {
        "--precision" => {
            state.precision = Some(value.to_string());
            imported.mapped.push((said.to_string(), "dtype"));
            true
        }
        "--quantize" if !full => {
            match matches!(value, "bnb.nf4" | "bnb.nf4-dq" | "bnb.int8-training") {
                true => {
                    state.quantize = Some(value.to_string());
                    imported.mapped.push((said.to_string(), "method"));
                }
                false => imported.unread.push(format!("{said}{NOT_COUNTED}")),
            }
            true
        }
        "--devices" => whole(value).is_some_and(|n| {
            state.devices = Some(n);
            imported.mapped.push((said.to_string(), "gpus"));
            true
        }),
        "--num_nodes" => whole(value).is_some_and(|n| {
            state.nodes = Some(n);
            imported.mapped.push((said.to_string(), "nodes"));
            true
        }),
        "--lora_r" if !full => {
            whole(value).is_some_and(|_| key("rank", value.into(), state, imported))
        }
        "--lora_dropout" if !full => value
            .parse::<f64>()
            .is_ok_and(|_| key("lora_dropout", value.into(), state, imported)),
        "--lora_query" | "--lora_key" | "--lora_value" | "--lora_projection" | "--lora_mlp"
            if !full =>
        {
            let at = [
                "--lora_query",
                "--lora_key",
                "--lora_value",
                "--lora_projection",
            ]
            .iter()
            .position(|n| *n == name)
            .unwrap_or(4);
            flag(value).is_some_and(|on| {
                state.targets[at] = Some(on);
                imported.mapped.push((said.to_string(), "targets"));
                true
            })
        }
        // The head's adapter is not counted: said below, not read.
        "--lora_head" if !full => match flag(value) {
            Some(false) => {
                imported.mapped.push((said.to_string(), "targets"));
                true
            }
            Some(true) => {
                state.head = true;
                true
            }
            None => false,
        },
        "--train.micro_batch_size" => {
            whole(value).is_some_and(|_| key("mbs", value.into(), state, imported))
        }
        "--train.global_batch_size" => whole(value).is_some_and(|n| {
            state.global = Some(n);
            imported.mapped.push((said.to_string(), "global_batch"));
            true
        }),
        "--train.max_seq_length" => {
            whole(value).is_some_and(|_| key("seq", value.into(), state, imported))
        }
        "--optimizer" => value == "AdamW" && key("opt", "adam".into(), state, imported),
        _ if IGNORED.contains(&name)
            || name.starts_with("--data")
            || name.starts_with("--eval.") =>
        {
            imported.ignored.push(said.to_string());
            true
        }
        _ => false,
    }
}

impl State {
    /// The keys the arguments give together, and LitGPT's defaults for what
    /// the command leaves out.
    fn keys(self, full: bool, imported: &mut Imported) {
        match self.precision.as_deref() {
            Some("bf16-true") => imported.keys.push(("dtype", "bf16-pure".into())),
            Some(other) => imported
                .unread
                .push(format!("--precision {other}{NOT_COUNTED}")),
            None => imported.unread.push(format!(
                "--precision: not given (LitGPT picks bf16-mixed){NOT_COUNTED}"
            )),
        }
        let devices = self.devices.unwrap_or(1);
        let nodes = self.nodes.unwrap_or(1);
        // LitGPT's global batch is one node's (`TrainArgs.batch_size(devices)`
        // divides it by the devices of a node): every node's together.
        let global = self.global.unwrap_or(16) * nodes;
        imported.keys.push(("global_batch", global.to_string()));
        imported.keys.push(("gpus", devices.to_string()));
        if nodes > 1 {
            imported.keys.push(("nodes", nodes.to_string()));
        }
        // More than one device: FSDP with every block checkpointed.
        match devices * nodes > 1 {
            true => {
                imported.keys.push(("stage", "3".into()));
                imported.keys.push(("recompute", "full".into()));
            }
            false => imported.keys.push(("recompute", "none".into())),
        }
        let defaults: [(&'static str, &str); 2] = [("mbs", "1"), ("opt", "adam")];
        for (link, value) in defaults {
            if !self.given.contains(&link) {
                imported.keys.push((link, value.into()));
            }
        }
        if !self.given.contains(&"seq") {
            imported
                .unread
                .push("--train.max_seq_length: not given (the data's longest sample)".into());
        }
        if full {
            imported.keys.push(("method", "full".into()));
            return;
        }
        let quantized = match self.quantize.as_deref() {
            None => None,
            Some("bnb.nf4") => Some(("nf4", "0")),
            Some("bnb.nf4-dq") => Some(("nf4", "1")),
            Some(_) => Some(("int8", "0")),
        };
        match quantized {
            None => imported.keys.push(("method", "lora".into())),
            Some((quant, double)) => {
                imported.keys.push(("method", "qlora".into()));
                imported.keys.push(("quant", quant.into()));
                imported.keys.push(("double_quant", double.into()));
            }
        }
        imported.keys.push(("adapter_dtype", "model".into()));
        for (link, value) in [("rank", "8"), ("lora_dropout", "0.05")] {
            if !self.given.contains(&link) {
                imported.keys.push((link, value.into()));
            }
        }
        // q and v by default, the others off.
        let on = |i: usize, default: bool| self.targets[i].unwrap_or(default);
        let targets = match (
            on(0, true),
            on(1, false),
            on(2, true),
            on(3, false),
            on(4, false),
        ) {
            (true, false, true, false, false) => Some("qv"),
            (true, true, true, true, false) => Some("attn"),
            (false, false, false, false, true) => Some("mlp"),
            (true, true, true, true, true) => Some("all"),
            _ => None,
        };
        match targets {
            Some(t) => imported.keys.push(("targets", t.into())),
            None => imported.unread.push(
                "--lora_query/key/value/projection/mlp: a set of adapted layers the page does not count (q and v, the attention's four, the MLP's, or all)".into(),
            ),
        }
        if self.head {
            imported
                .unread
                .push("--lora_head true: the output head's adapter is not counted".into());
        }
    }
}
