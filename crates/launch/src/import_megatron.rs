//! Megatron-LM's `pretrain_gpt.py` arguments read back into the link's keys
//! (issue 66), the other direction of [`crate::megatron`], in the names of
//! `megatron/training/arguments.py` (megatron-core 0.19.2): the model's
//! shape (a preset where one has it, the vocabulary being the tokenizer's),
//! the parallel layout, how the states are sharded, recomputation,
//! precision, the optimizer and the batch. A script's `NAME=value`
//! assignments are substituted into its `$NAME` and `${NAME}`, so the
//! examples' `GPT_MODEL_ARGS=( … )` arrays read as they run; `torchrun`'s
//! `--nproc-per-node` and `--nnodes` give the GPUs and nodes.

use crate::import::{Imported, ImportedEngine};

/// Whether the words are a Megatron-LM launch: `pretrain_gpt.py` run, or
/// its arguments alone (the model's layers and width among them).
pub(crate) fn is_megatron(words: &[String]) -> bool {
    words.iter().any(|w| w.ends_with("pretrain_gpt.py"))
        || (words
            .iter()
            .find(|w| *w != ";")
            .is_some_and(|w| w.starts_with("--"))
            && words.iter().any(|w| w == "--num-layers")
            && words.iter().any(|w| w == "--hidden-size"))
}

/// Flags that take no value (`store_true` in `arguments.py`, or torchrun's).
const SWITCHES: &[&str] = &[
    "--group-query-attention",
    "--use-rope-scaling",
    "--qk-layernorm",
    "--multi-latent-attention",
    "--swiglu",
    "--quick-geglu",
    "--disable-bias-linear",
    "--add-qkv-bias",
    "--untie-embeddings-and-output-weights",
    "--moe-grouped-gemm",
    "--moe-shared-expert-gate",
    "--moe-pad-expert-input-to-capacity",
    "--sequence-parallel",
    "--account-for-embedding-in-pipeline-split",
    "--account-for-loss-in-pipeline-split",
    "--use-distributed-optimizer",
    "--use-megatron-fsdp",
    "--use-torch-fsdp2",
    "--no-gradient-accumulation-fusion",
    "--optimizer-cpu-offload",
    "--use-precision-aware-optimizer",
    "--overlap-grad-reduce",
    "--overlap-param-gather",
    "--fp16",
    "--bf16",
    "--fp8-param-gather",
    "--use-mcore-models",
    "--use-flash-attn",
    "--attention-softmax-in-fp32",
    "--no-masked-softmax-fusion",
    "--standalone",
    "--no-bias-swiglu-fusion",
    "--no-rope-fusion",
];

/// Options that change nothing the page computes: data, tokenizer,
/// schedule, logging, checkpoints, initialisation.
const IGNORED: &[&str] = &[
    "--tokenizer-type",
    "--tokenizer-model",
    "--vocab-file",
    "--merge-file",
    "--data-path",
    "--data-cache-path",
    "--split",
    "--lr",
    "--min-lr",
    "--lr-decay-style",
    "--lr-warmup-iters",
    "--lr-warmup-fraction",
    "--lr-decay-iters",
    "--weight-decay",
    "--clip-grad",
    "--adam-beta1",
    "--adam-beta2",
    "--adam-eps",
    "--init-method-std",
    "--train-iters",
    "--train-samples",
    "--log-interval",
    "--save-interval",
    "--eval-interval",
    "--eval-iters",
    "--save",
    "--load",
    "--tensorboard-dir",
    "--wandb-project",
    "--wandb-exp-name",
    "--seed",
    "--distributed-backend",
    "--transformer-impl",
    "--ckpt-format",
    "--rotary-base",
    "--max-position-embeddings",
    "--use-mcore-models",
    "--use-flash-attn",
    "--attention-softmax-in-fp32",
    "--no-masked-softmax-fusion",
    "--moe-grouped-gemm",
    "--moe-token-dispatcher-type",
    "--moe-pad-expert-input-to-capacity",
    "--use-precision-aware-optimizer",
    "--no-gradient-accumulation-fusion",
    "--no-bias-swiglu-fusion",
    "--no-rope-fusion",
    "--use-rope-scaling",
    "--make-vocab-size-divisible-by",
    "--recompute-activations",
    // torchrun's own, beside the GPUs and nodes.
    "--master-addr",
    "--master_addr",
    "--master-port",
    "--master_port",
    "--node-rank",
    "--node_rank",
    "--rdzv-backend",
    "--rdzv_backend",
    "--rdzv-endpoint",
    "--rdzv_endpoint",
    "--rdzv-id",
    "--rdzv_id",
    "--standalone",
    // The batch's ramp-up: the steady state's batch is the global one.
    "--rampup-batch-size",
];

/// Flags of no bearing on the figures, by their start: schedules,
/// logging, profiling, data loading, checkpoints, the loss's coefficients.
const NO_BEARING_PREFIXES: &[&str] = &[
    "--lr",
    "--decoupled-",
    "--min-lr",
    "--log-",
    "--logging-",
    "--profile",
    "--exit-",
    "--eval-",
    "--save",
    "--load",
    "--no-load-",
    "--wandb-",
    "--tensorboard",
    "--distributed-timeout",
    "--manual-gc",
    "--num-workers",
    "--mock-data",
    "--tiktoken-",
    "--tokenizer-",
    "--no-create-attention-mask-in-dataloader",
    "--no-mmap-bin-files",
    "--auto-detect-ckpt-format",
    "--dist-ckpt-",
    "--calculate-per-token-loss",
    "--no-check-for-nan",
    "--moe-aux-loss-coeff",
    "--moe-z-loss-coeff",
    "--moe-router-load-balancing-type",
    "--moe-per-layer-logging",
    "--record-memory-history",
    "--norm-epsilon",
    "--rotary-percent",
    "--rotary-scaling-factor",
    "--mscale",
    "--mtp-loss-scaling-factor",
    "--no-position-embedding",
    "--apply-layernorm-1p",
    "--disable-bf16-reduced-precision-matmul",
];

/// Flags whose value is every word up to the next flag (`nargs='*'`).
const LISTS: &[&str] = &["--recompute-modules", "--rampup-batch-size"];

/// The flags as read: each one's value (a switch's is empty), in order.
struct Flags(Vec<(String, String)>);

impl Flags {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(f, _)| f == name)
            .map(|(_, v)| v.as_str())
    }
    fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
    /// A whole number within `u32`'s range (no size here is larger).
    fn number(&self, name: &str) -> Option<u64> {
        self.get(name)
            .and_then(|v| v.parse().ok())
            .filter(|&n| n <= u64::from(u32::MAX))
    }
}

/// Reads `words` (a script's shell words) into the link's keys.
pub(crate) fn import_arguments(words: &[String], text: &str) -> Imported {
    let mut imported = Imported {
        engine: Some(ImportedEngine::Megatron),
        ..Imported::default()
    };
    imported.keys.push(("job", "train".into()));
    let command = command_of(words);
    let flags = flags(command);
    placement(command, &flags, text, &mut imported);
    let mut used: Vec<&str> = Vec::new();
    let mut key = |imported: &mut Imported, flag: &'static str, key: &'static str, v: String| {
        imported.keys.push((key, v));
        imported.mapped.push((said(&flags, flag), key));
        used.push(flag);
    };
    shape_keys(&flags, &mut imported, &mut key);
    layout_keys(&flags, &mut imported, &mut key);
    state_keys(&flags, &mut imported, &mut key);
    for (flag, value) in &flags.0 {
        if used.contains(&flag.as_str()) {
            continue;
        }
        // Megatron-FSDP runs on the distributed optimizer's flag too.
        if flag == "--use-distributed-optimizer" && flags.has("--use-megatron-fsdp") {
            imported.mapped.push((flag.clone(), "stage"));
            continue;
        }
        let said = if value.is_empty() {
            flag.clone()
        } else {
            format!("{flag} {value}")
        };
        let no_bearing = IGNORED.contains(&flag.as_str())
            || NO_BEARING_PREFIXES.iter().any(|p| flag.starts_with(p));
        match no_bearing {
            true => imported.ignored.push(said),
            false => imported.unread.push(said),
        }
    }
    model_from_shape(&flags, &mut imported);
    imported
}

/// How an option was written.
fn said(flags: &Flags, flag: &str) -> String {
    match flags.get(flag) {
        Some("") | None => flag.to_string(),
        Some(v) => format!("{flag} {v}"),
    }
}

/// The GPUs and nodes where no torchrun flag gives them: a Slurm batch
/// script's `#SBATCH --nodes` with `--ntasks-per-node` or `--gpus-per-node`
/// (one process a GPU), or torchrun's own default of one process on one
/// node.
fn placement(command: &[String], flags: &Flags, text: &str, imported: &mut Imported) {
    if flags.has("--nproc-per-node") || flags.has("--nnodes") {
        return;
    }
    let sbatch = |names: &[&str]| {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("#SBATCH"))
            .flat_map(str::split_whitespace)
            .find_map(|option| {
                let (name, value) = option.split_once('=')?;
                names
                    .contains(&name)
                    .then(|| value.parse::<u32>().ok())
                    .flatten()
                    .filter(|&n| n > 0)
            })
    };
    let nodes = sbatch(&["--nodes", "-N"]);
    let per_node = sbatch(&["--ntasks-per-node", "--gpus-per-node"]);
    if let (Some(nodes), Some(per_node)) = (nodes, per_node) {
        imported.keys.push(("gpus", per_node.to_string()));
        imported.keys.push(("nodes", nodes.to_string()));
        imported.mapped.push((
            format!("#SBATCH --nodes={nodes} with {per_node} tasks a node"),
            "gpus",
        ));
        return;
    }
    let torchrun = command
        .iter()
        .any(|w| w.ends_with("torchrun") || w.starts_with("torch.distributed."));
    if torchrun {
        imported.keys.push(("gpus", "1".into()));
        imported.keys.push(("nodes", "1".into()));
        imported.mapped.push((
            "torchrun without --nproc-per-node: one process".into(),
            "gpus",
        ));
    }
}

/// The command that runs `pretrain_gpt.py` (from the launcher to the next
/// command), or every word of arguments alone.
fn command_of(words: &[String]) -> &[String] {
    let separator = |w: &String| matches!(w.as_str(), ";" | "|" | "||" | "&&" | "&");
    // The launcher of a command's line: torchrun, python -m torch.distributed.run, deepspeed.
    let launcher = |w: &String| {
        w.ends_with("torchrun")
            || w.starts_with("torch.distributed.")
            || w.ends_with("python")
            || w.ends_with("python3")
            || w.ends_with("deepspeed")
    };
    // The script as a launcher runs it (not a message naming it).
    let scripts: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.ends_with("pretrain_gpt.py"))
        .map(|(i, _)| i)
        .collect();
    let launched = scripts.iter().copied().find(|&i| {
        words[..i]
            .iter()
            .rev()
            .take_while(|w| !separator(w))
            .any(launcher)
    });
    let Some(script) = launched.or(scripts.last().copied()) else {
        return words;
    };
    let start = words[..script]
        .iter()
        .rposition(|w| launcher(w) || separator(w))
        .map_or(0, |n| n + usize::from(separator(&words[n])));
    // Arguments listed a line each after the command go with it.
    let mut end = script;
    while end < words.len() {
        let next_is_flag = words.get(end + 1).is_some_and(|w| w.starts_with("--"));
        match words[end].as_str() {
            ";" if next_is_flag => {}
            ";" | "|" | "||" | "&&" | "&" => break,
            w if w.starts_with('>') || w.starts_with("2>") || w.starts_with("1>") => break,
            _ => {}
        }
        end += 1;
    }
    &words[start..end]
}

/// Every `--flag` with its value, in order; a word that is no flag's
/// value (the launcher, the script) is passed over.
fn flags(words: &[String]) -> Flags {
    let mut flags = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        i += 1;
        if !word.starts_with("--") {
            continue;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (word.clone(), None),
        };
        let value = match inline {
            Some(v) => v,
            None if SWITCHES.contains(&flag.as_str()) => String::new(),
            None if LISTS.contains(&flag.as_str()) => {
                let mut items = Vec::new();
                while let Some(v) = words.get(i).filter(|v| !v.starts_with("--") && *v != ";") {
                    items.push(v.clone());
                    i += 1;
                }
                items.join(" ")
            }
            None => match words.get(i).filter(|v| !v.starts_with("--") && *v != ";") {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => String::new(),
            },
        };
        // torchrun writes its own flags with underscores too.
        flags.push((flag.replace("nproc_per_node", "nproc-per-node"), value));
    }
    Flags(flags)
}

/// Each flag of `table` given as a whole number, as its key.
fn whole_numbers(
    flags: &Flags,
    table: &[(&'static str, &'static str)],
    imported: &mut Imported,
    key: &mut KeyOf,
) {
    for &(flag, name) in table {
        if let Some(n) = flags.number(flag) {
            key(imported, flag, name, n.to_string());
        }
    }
}

/// A key from a flag: its name, the flag, the key and the value.
type KeyOf<'a> = dyn FnMut(&mut Imported, &'static str, &'static str, String) + 'a;

/// The model's shape.
fn shape_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    // The shape's and the layout's sizes, the GPUs a node.
    let numbers: [(&str, &str); 22] = [
        ("--num-layers", "layers"),
        ("--hidden-size", "hidden"),
        ("--ffn-hidden-size", "ffn"),
        ("--num-attention-heads", "heads"),
        ("--seq-length", "seq"),
        ("--num-experts", "experts"),
        ("--moe-router-topk", "top_k"),
        ("--moe-ffn-hidden-size", "expert_ffn"),
        ("--q-lora-rank", "q_rank"),
        ("--kv-lora-rank", "kv_rank"),
        ("--qk-head-dim", "nope_dim"),
        ("--qk-pos-emb-head-dim", "rope_dim"),
        ("--v-head-dim", "v_dim"),
        ("--mtp-num-layers", "mtp"),
        ("--tensor-model-parallel-size", "tp"),
        ("--pipeline-model-parallel-size", "pp"),
        ("--num-virtual-stages-per-pipeline-rank", "vpp"),
        ("--decoder-first-pipeline-num-layers", "pp_first"),
        ("--decoder-last-pipeline-num-layers", "pp_last"),
        ("--context-parallel-size", "cp"),
        ("--expert-model-parallel-size", "ep"),
        ("--nproc-per-node", "gpus"),
    ];
    whole_numbers(flags, &numbers, imported, key);
    if let Some(vocab) = flags.number("--vocab-size") {
        key(imported, "--vocab-size", "vocab", vocab.to_string());
    }
    // The experts' width where none is given: the layers' (`moe_ffn_hidden_size`
    // defaults to `ffn_hidden_size`, `validate_args`).
    if let (Some(_), None, Some(ffn)) = (
        flags.number("--num-experts"),
        flags.number("--moe-ffn-hidden-size"),
        flags.number("--ffn-hidden-size"),
    ) {
        imported.keys.push(("expert_ffn", ffn.to_string()));
    }
    // Megatron-LM's own width where none is given: 4 × hidden, or with
    // SwiGLU two thirds of it down to a multiple of 64 (`validate_args`).
    if let (None, Some(hidden)) = (
        flags.number("--ffn-hidden-size"),
        flags.number("--hidden-size"),
    ) {
        let ffn = match flags.has("--swiglu") {
            true => 4 * hidden * 2 / 3 / 64 * 64,
            false => 4 * hidden,
        };
        imported.keys.push(("ffn", ffn.to_string()));
    }
    if let Some(backend) = flags.get("--attention-backend") {
        match backend {
            "auto" | "flash" | "fused" => key(imported, "--attention-backend", "flash", "1".into()),
            "unfused" | "local" => key(imported, "--attention-backend", "flash", "0".into()),
            _ => {}
        }
    }
    let heads = flags.number("--num-attention-heads");
    match (
        flags.has("--group-query-attention"),
        flags.number("--num-query-groups"),
    ) {
        (true, Some(groups)) => {
            key(
                imported,
                "--num-query-groups",
                "kv_heads",
                groups.to_string(),
            );
            key(
                imported,
                "--group-query-attention",
                "kv_heads",
                groups.to_string(),
            );
        }
        _ => {
            if let Some(heads) = heads {
                imported.keys.push(("kv_heads", heads.to_string()));
            }
        }
    }
    if let Some(channels) = flags.number("--kv-channels") {
        key(imported, "--kv-channels", "head_dim", channels.to_string());
    }
    // A gated MLP (SwiGLU, or gpt-oss's quick GeGLU: two input projections
    // the same), else GELU's one.
    let gated = flags.has("--swiglu") || flags.has("--quick-geglu");
    let mlp = if gated { "swiglu" } else { "gelu" };
    imported.keys.push(("mlp", mlp.into()));
    for flag in ["--swiglu", "--quick-geglu"] {
        if flags.has(flag) {
            key(imported, flag, "mlp", mlp.into());
        }
    }
    match flags.get("--normalization") {
        Some("RMSNorm") => key(imported, "--normalization", "norm", "rmsnorm".into()),
        Some("LayerNorm") | None => imported.keys.push(("norm", "layernorm".into())),
        Some(_) => {}
    }
    let biases = match (
        flags.has("--disable-bias-linear"),
        flags.has("--add-qkv-bias"),
    ) {
        (false, _) => "all",
        (true, false) => "none",
        (true, true) => "qkv",
    };
    imported.keys.push(("biases", biases.into()));
    for flag in ["--disable-bias-linear", "--add-qkv-bias"] {
        if flags.has(flag) {
            key(imported, flag, "biases", biases.into());
        }
    }
    let untied = flags.has("--untie-embeddings-and-output-weights");
    imported
        .keys
        .push(("tied", if untied { "0" } else { "1" }.into()));
    if untied {
        key(
            imported,
            "--untie-embeddings-and-output-weights",
            "tied",
            "0".into(),
        );
    }
    attention_keys(flags, imported, key);
    expert_keys(flags, imported, key);
}

/// Positions, q/k norms, sinks, latent attention and dropout.
fn attention_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    // Megatron-LM's default is learned positions.
    match flags.get("--position-embedding-type") {
        Some("learned_absolute") | None => {
            if let Some(positions) = flags.number("--max-position-embeddings") {
                key(
                    imported,
                    "--max-position-embeddings",
                    "positions",
                    positions.to_string(),
                );
                if flags.has("--position-embedding-type") {
                    key(
                        imported,
                        "--position-embedding-type",
                        "positions",
                        positions.to_string(),
                    );
                }
            }
        }
        Some("rope") => {
            imported.keys.push(("positions", "0".into()));
            key(
                imported,
                "--position-embedding-type",
                "positions",
                "0".into(),
            );
        }
        Some(_) => {}
    }
    let qk_norm = flags.has("--qk-layernorm");
    imported
        .keys
        .push(("qk_norm", u8::from(qk_norm).to_string()));
    if qk_norm {
        key(imported, "--qk-layernorm", "qk_norm", "1".into());
    }
    if flags.get("--softmax-type") == Some("learnable") {
        key(imported, "--softmax-type", "sinks", "1".into());
    }
    if let (true, Some(rank)) = (
        flags.has("--multi-latent-attention"),
        flags.number("--kv-lora-rank"),
    ) {
        key(
            imported,
            "--multi-latent-attention",
            "kv_rank",
            rank.to_string(),
        );
    }
    let dropout = (
        flags.get("--attention-dropout"),
        flags.get("--hidden-dropout"),
    );
    if let (Some(a), Some(h)) = dropout {
        if a == h && a.parse::<f64>().is_ok() {
            key(imported, "--attention-dropout", "dropout", a.into());
            key(imported, "--hidden-dropout", "dropout", h.into());
        }
    }
}

/// The experts beyond their count: shared experts, dense leading layers,
/// the capacity.
fn expert_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    if let Some(shared) = flags.number("--moe-shared-expert-intermediate-size") {
        key(
            imported,
            "--moe-shared-expert-intermediate-size",
            "shared_experts",
            "1".into(),
        );
        imported.keys.push(("shared_ffn", shared.to_string()));
    }
    if flags.has("--moe-shared-expert-gate") {
        key(
            imported,
            "--moe-shared-expert-gate",
            "shared_gate",
            "1".into(),
        );
    }
    // `([0]*k+[1]*n)`: k dense layers first.
    if let Some(freq) = flags.get("--moe-layer-freq") {
        let dense = freq
            .trim_matches(|c| c == '\'' || c == '"' || c == '(' || c == ')')
            .strip_prefix("[0]*")
            .and_then(|rest| rest.split('+').next())
            .and_then(|k| k.parse::<u32>().ok());
        if let Some(dense) = dense {
            key(
                imported,
                "--moe-layer-freq",
                "dense_layers",
                dense.to_string(),
            );
        }
    }
    if let Some(capacity) = flags.get("--moe-expert-capacity-factor") {
        if capacity.parse::<f64>().is_ok() {
            key(
                imported,
                "--moe-expert-capacity-factor",
                "capacity",
                capacity.into(),
            );
        }
    }
}

/// TP, SP, PP with its virtual stages and uneven or named stages, CP, EP
/// and the experts' TP, the GPUs and nodes.
fn layout_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    // The older spelling: layers a virtual stage holds.
    if let (Some(per), Some(layers), Some(pp)) = (
        flags.number("--num-layers-per-virtual-pipeline-stage"),
        flags.number("--num-layers"),
        flags.number("--pipeline-model-parallel-size"),
    ) {
        if per > 0 && pp > 0 && layers % (per * pp) == 0 {
            let vpp = layers / (per * pp);
            key(
                imported,
                "--num-layers-per-virtual-pipeline-stage",
                "vpp",
                vpp.to_string(),
            );
        }
    }
    if let Some(nodes) = flags.number("--nnodes") {
        key(imported, "--nnodes", "nodes", nodes.to_string());
    }
    let switches: [(&str, &str); 3] = [
        ("--sequence-parallel", "sp"),
        ("--account-for-embedding-in-pipeline-split", "pp_embedding"),
        ("--account-for-loss-in-pipeline-split", "pp_loss"),
    ];
    for (flag, name) in switches {
        if flags.has(flag) {
            key(imported, flag, name, "1".into());
        }
    }
    if let Some(layout) = flags.get("--pipeline-model-parallel-layout") {
        let layout = layout.trim_matches(|c| c == '\'' || c == '"');
        key(
            imported,
            "--pipeline-model-parallel-layout",
            "pp_layout",
            layout.into(),
        );
    }
    if let Some(comm @ ("p2p" | "a2a")) = flags.get("--cp-comm-type") {
        key(imported, "--cp-comm-type", "cp_comm", comm.into())
    }
    let tp = flags.number("--tensor-model-parallel-size").unwrap_or(1);
    if let Some(etp) = flags.number("--expert-tensor-parallel-size") {
        match etp {
            1 if tp > 1 => key(imported, "--expert-tensor-parallel-size", "etp", "1".into()),
            _ if etp == tp => key(
                imported,
                "--expert-tensor-parallel-size",
                "etp",
                "tp".into(),
            ),
            _ => {}
        }
    }
}

/// Sharding, offload, overlap, recomputation, precision, the optimizer
/// and the batch.
fn state_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    let strategy = flags.get("--data-parallel-sharding-strategy");
    match (flags.has("--use-megatron-fsdp"), strategy) {
        (true, Some(s @ ("optim_grads" | "optim_grads_params" | "optim" | "no_shard"))) => {
            let stage = match s {
                "optim_grads" => "2",
                "optim_grads_params" => "3",
                "optim" => "1",
                _ => "ddp",
            };
            key(imported, "--use-megatron-fsdp", "stage", stage.into());
            key(
                imported,
                "--data-parallel-sharding-strategy",
                "stage",
                stage.into(),
            );
        }
        _ if flags.has("--use-torch-fsdp2") => {
            key(imported, "--use-torch-fsdp2", "stage", "3".into());
            imported.keys.push(("sharding", "fsdp2".into()));
        }
        _ if flags.has("--use-distributed-optimizer") => {
            key(imported, "--use-distributed-optimizer", "stage", "1".into())
        }
        _ => imported.keys.push(("stage", "ddp".into())),
    }
    if flags.has("--optimizer-cpu-offload")
        && flags
            .get("--optimizer-offload-fraction")
            .is_none_or(|f| f == "1.0" || f == "1")
    {
        key(
            imported,
            "--optimizer-cpu-offload",
            "offload",
            "optimizer".into(),
        );
        if flags.has("--optimizer-offload-fraction") {
            key(
                imported,
                "--optimizer-offload-fraction",
                "offload",
                "optimizer".into(),
            );
        }
    }
    if let Some(instances) = flags.number("--num-distributed-optimizer-instances") {
        let world =
            flags.number("--nproc-per-node").unwrap_or(8) * flags.number("--nnodes").unwrap_or(1);
        let model_parallel = [
            "--tensor-model-parallel-size",
            "--pipeline-model-parallel-size",
            "--context-parallel-size",
        ]
        .iter()
        .map(|f| flags.number(f).unwrap_or(1))
        .fold(1u64, u64::saturating_mul)
        .max(1);
        let data_parallel = world / model_parallel;
        if instances > 0 && data_parallel % instances == 0 && flags.has("--nproc-per-node") {
            let group = data_parallel / instances;
            key(
                imported,
                "--num-distributed-optimizer-instances",
                "shard_group",
                group.to_string(),
            );
        }
    }
    for (flag, name) in [
        ("--overlap-grad-reduce", "overlap_grad"),
        ("--overlap-param-gather", "overlap_param"),
    ] {
        if flags.has(flag) {
            key(imported, flag, name, "1".into());
        }
    }
    recompute_keys(flags, imported, key);
    precision_keys(flags, imported, key);
    for (flag, name) in [
        ("--micro-batch-size", "mbs"),
        ("--global-batch-size", "global_batch"),
    ] {
        if let Some(n) = flags.number(flag) {
            key(imported, flag, name, n.to_string());
        }
    }
}

/// Recomputation: its granularity, modules, method and layers.
fn recompute_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    // The old switch for selective recomputation.
    if flags.has("--recompute-activations") && !flags.has("--recompute-granularity") {
        key(
            imported,
            "--recompute-activations",
            "recompute",
            "selective".into(),
        );
    }
    match flags.get("--recompute-granularity") {
        Some(g @ ("selective" | "full")) => {
            key(imported, "--recompute-granularity", "recompute", g.into())
        }
        Some(_) => {}
        None if flags.has("--recompute-activations") => {}
        None => imported.keys.push(("recompute", "none".into())),
    }
    if let Some(modules) = flags.get("--recompute-modules") {
        let modules = modules
            .trim_matches(|c| c == '\'' || c == '"')
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(",");
        key(
            imported,
            "--recompute-modules",
            "recompute_modules",
            modules,
        );
    }
    if let Some(m @ ("uniform" | "block")) = flags.get("--recompute-method") {
        key(imported, "--recompute-method", "recompute_method", m.into())
    }
    if let Some(n) = flags.number("--recompute-num-layers") {
        key(
            imported,
            "--recompute-num-layers",
            "recompute_layers",
            n.to_string(),
        );
    }
}

/// Precision (FP8 with its recipe, its weights gathered in FP8) and the
/// optimizer.
fn precision_keys(flags: &Flags, imported: &mut Imported, key: &mut KeyOf) {
    let fp8 = flags
        .get("--fp8-format")
        .filter(|f| matches!(*f, "hybrid" | "e4m3"));
    let dtype = match (
        fp8,
        flags.has("--fp8-param-gather"),
        flags.has("--bf16"),
        flags.has("--fp16"),
    ) {
        (Some(_), true, _, _) => "fp8-params",
        (Some(_), false, _, _) => "fp8",
        (None, _, true, _) => "bf16",
        (None, _, _, true) => "fp16",
        _ => "fp32",
    };
    imported.keys.push(("dtype", dtype.into()));
    for flag in ["--fp8-format", "--fp8-param-gather", "--bf16", "--fp16"] {
        if flags.has(flag) && !(flag == "--fp8-format" && fp8.is_none()) {
            key(imported, flag, "dtype", dtype.into());
        }
    }
    if fp8.is_some() {
        if let Some(r @ ("delayed" | "tensorwise" | "mxfp8" | "blockwise")) =
            flags.get("--fp8-recipe")
        {
            key(imported, "--fp8-recipe", "fp8_recipe", r.into())
        }
    }
    let momentum = flags
        .get("--sgd-momentum")
        .and_then(|m| m.parse::<f64>().ok());
    match flags.get("--optimizer") {
        Some("adam") | None => {
            imported.keys.push(("opt", "adam".into()));
            if flags.has("--optimizer") {
                key(imported, "--optimizer", "opt", "adam".into());
            }
        }
        Some("sgd") => {
            let opt = match momentum {
                Some(m) if m > 0.0 => "sgd-momentum",
                Some(_) => "sgd",
                // Megatron-LM's default momentum is 0.9.
                None => "sgd-momentum",
            };
            key(imported, "--optimizer", "opt", opt.into());
            if momentum.is_some() {
                key(imported, "--sgd-momentum", "opt", opt.into());
            }
        }
        Some(_) => {}
    }
}

/// The model: the preset whose architecture the shape is (the
/// vocabulary aside, which Megatron-LM takes from the tokenizer; Llama 3
/// and 3.1 told apart by the rotary scaling and the positions; the shared
/// experts' one width, `--moe-shared-expert-intermediate-size`, as the
/// preset splits it), its keys then the preset's; else the shape alone, the vocabulary said unread.
fn model_from_shape(flags: &Flags, imported: &mut Imported) {
    if !flags.has("--num-layers") || !flags.has("--hidden-size") {
        return;
    }
    let shape = vram_core::input::link::decode(&imported.query()).config;
    let Some(shape) = shape.model else { return };
    let scaling = flags.has("--use-rope-scaling");
    let positions = flags.number("--max-position-embeddings");
    let preset = vram_core::model::presets::MODEL_PRESETS.iter().find(|p| {
        let mut architecture = shape.architecture;
        architecture.vocab = p.architecture.vocab;
        architecture.mtp_layers = p.architecture.mtp_layers;
        // A head's width written or implied (hidden ÷ heads).
        let width = |a: &vram_core::model::architecture::Architecture| match a.head_dim {
            0 => a.hidden / a.heads.max(1),
            d => d,
        };
        if width(&architecture) == width(&p.architecture) {
            architecture.head_dim = p.architecture.head_dim;
        }
        // One width for every shared expert together: n experts of a width
        // are one of n times it.
        let (moe, theirs) = (&mut architecture.moe, p.architecture.moe);
        let width = |n: u32, ffn: u32| u64::from(n) * u64::from(ffn);
        if width(moe.shared_experts, moe.shared_ffn)
            == width(theirs.shared_experts, theirs.shared_ffn)
        {
            (moe.shared_experts, moe.shared_ffn) = (theirs.shared_experts, theirs.shared_ffn);
        }
        architecture == p.architecture
            && crate::megatron::rotary_of(Some(p.id)).1 == scaling
            // The preset's positions, or the sequence's where the model
            // differs from it (more MTP layers: no preset's context known).
            && positions.is_none_or(|n| {
                n == u64::from(p.context.max(shape.seq_len)) || n == u64::from(shape.seq_len)
            })
    });
    match preset {
        Some(preset) => {
            // The preset gives the shape: its keys stand for the flags'.
            const SHAPE: [&str; 25] = [
                "layers",
                "hidden",
                "ffn",
                "heads",
                "kv_heads",
                "head_dim",
                "mlp",
                "norm",
                "biases",
                "tied",
                "positions",
                "qk_norm",
                "sinks",
                "experts",
                "top_k",
                "expert_ffn",
                "shared_experts",
                "shared_ffn",
                "shared_gate",
                "dense_layers",
                "q_rank",
                "kv_rank",
                "rope_dim",
                "nope_dim",
                "v_dim",
            ];
            imported.keys.retain(|(k, v)| {
                !SHAPE.contains(k)
                    && *k != "mtp"
                    && !(*k == "vocab" && v.parse() == Ok(preset.architecture.vocab))
            });
            imported.keys.insert(1, ("model", preset.id.into()));
            imported
                .mapped
                .push((format!("the shape of {}", preset.name), "model"));
            if shape.architecture.mtp_layers != preset.architecture.mtp_layers {
                imported
                    .keys
                    .push(("mtp", shape.architecture.mtp_layers.to_string()));
            }
        }
        None if flags.has("--vocab-size") => {
            imported.keys.insert(1, ("model", "config-json".into()));
        }
        None => {
            imported.keys.insert(1, ("model", "config-json".into()));
            imported.unread.push(
                "the vocabulary: Megatron-LM takes it from the tokenizer and no preset has this shape; 32,000 until you type it (vocab) or paste the model's config.json".into(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::import_launch;

    /// Megatron-LM's defaults where a flag is absent: learned positions,
    /// a 4h FFN, LayerNorm, biases, tied embeddings; a shape no preset has
    /// is `config-json`, its vocabulary said.
    #[test]
    fn absent_flags_take_megatron_defaults_and_a_new_shape_says_its_vocabulary() {
        let imported = import_launch(
            "--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 1024 --max-position-embeddings 1024",
        )
        .unwrap();
        let query = imported.query();
        crate::import::assert_has(&query, "model=config-json ffn=8192 norm=layernorm biases=all tied=1 positions=1024 mlp=gelu kv_heads=16 stage=ddp dtype=fp32");
        assert!(imported.unread[0].starts_with("the vocabulary"));
        let config = vram_core::input::link::decode(&query).config;
        assert!(config.report().is_ok());
    }
}
