//! Every string the page shows, in one place, and the wording of errors.
//!
//! Messages are built from the core's typed errors; the numbers in them (limits,
//! defaults) come from the core too.

use vram_core::format::{format_number, format_percent};
use vram_core::link::{value_of, LinkProblem};
use vram_core::{Config, Field, InputError, InputErrorKind};

pub const TITLE: &str = "GPU memory for LLM training";
pub const TITLE_ZH: &str = "大模型训练显存计算器：DDP 与 ZeRO-1/2/3";
pub const INTRO: &str = "How much memory each GPU needs for the model states (weights, gradients, \
optimizer states) under DDP and DeepSpeed ZeRO, and the largest model your cluster can train. \
GB = 10⁹ bytes.";

pub const LABEL_PARAMS: &str = "Model size";
pub const UNIT_PARAMS: &str = "B params";
pub const LABEL_GPUS: &str = "Number of GPUs";
pub const UNIT_GPUS: &str = "GPUs";
pub const LABEL_GPU_MEM: &str = "Memory per GPU";
pub const UNIT_GPU_MEM: &str = "GB";
pub const LABEL_OVERHEAD: &str = "Reserved overhead";
pub const UNIT_OVERHEAD: &str = "%";
pub const HINT_OVERHEAD: &str = "Held back for activations, buffers and the framework.";
pub const LABEL_PRECISION: &str = "Precision";
pub const LABEL_GRAD_ACC: &str = "Gradients accumulated in";
pub const LABEL_OPTIMIZER: &str = "Optimizer";
pub const LABEL_STAGE: &str = "Highlighted strategy";
pub const LABEL_UNIT: &str = "Show memory in";
pub const LABEL_THEME: &str = "Colours";

pub const FORM_HEADING: &str = "Configuration";
pub const RESULTS_HEADING: &str = "Memory per GPU";
pub const CHART_HEADING: &str = "Largest trainable model";
pub const STALE: &str = "Showing the last valid result: correct the highlighted field.";

pub const COL_STRATEGY: &str = "Strategy";
pub const COL_WEIGHTS: &str = "Weights";
pub const COL_GRADS: &str = "Gradients";
pub const COL_OPTIM: &str = "Optimizer";
pub const COL_TOTAL: &str = "Total";
pub const COL_FITS: &str = "Fits?";
pub const COL_MAX: &str = "Largest model";
pub const FITS_YES: &str = "✓ fits";
pub const FITS_NO: &str = "✗ too big";
pub const FITS_WITH: &str = "fits on";

pub const COPY_LINK: &str = "Copy link";
pub const COPIED: &str = "Link copied.";
pub const COPY_FAILED: &str = "Could not copy: select the link and copy it.";
pub const SHARE_LABEL: &str = "Link to this configuration";
pub const DISMISS: &str = "Dismiss";
pub const LINK_PROBLEMS_HEADING: &str = "Some values in this link could not be used:";

pub const CHART_LEGEND_FITS: &str = "can train your model";
pub const CHART_LEGEND_TOO_SMALL: &str = "cannot";
pub const CHART_LEGEND_MODEL: &str = "your model";
pub const CHART_Y_AXIS: &str = "Largest trainable model (B parameters)";

pub const FOOTNOTE: &str =
    "Model states only, as in the lesson “06. VRAM Calculation and ZeRO” and the \
ZeRO paper (Rajbhandari et al. 2020): weights and gradients in the chosen precision, 12 bytes per \
parameter of Adam states (fp32 master weights, momentum, variance) or 4 of SGD; ZeRO-1 shards the \
optimizer states over the GPUs, ZeRO-2 the gradients too, ZeRO-3 the weights too. Activations and \
buffers must fit in the reserved part.";

/// What to tell the user about a field's error, in the unit the form shows.
pub fn field_error(error: &InputError) -> String {
    match error.kind {
        InputErrorKind::Empty => "Enter a value.".into(),
        InputErrorKind::NotANumber => "Not a number: use digits, like 7 or 6.7.".into(),
        InputErrorKind::NotFinite => "Too large: enter a finite number.".into(),
        InputErrorKind::NotWhole => "Enter a whole number.".into(),
        InputErrorKind::OutOfRange(limits) => {
            if error.field == Field::Overhead {
                format!(
                    "Enter {} to {}.",
                    format_percent(limits.min),
                    format_percent(limits.max)
                )
            } else {
                format!(
                    "Enter {} to {}.",
                    format_number(limits.min),
                    format_number(limits.max)
                )
            }
        }
        InputErrorKind::BelowResolution(resolution) => {
            format!("Use 0, or at least {}.", format_percent(resolution))
        }
        InputErrorKind::UnknownChoice => "Choose one of the listed values.".into(),
        InputErrorKind::NotDivisible => "Must divide evenly.".into(),
    }
}

/// One line about a key of the shared link that was set aside.
pub fn link_problem(problem: &LinkProblem) -> String {
    let written = format!("{}={}", problem.key, problem.value);
    match &problem.error {
        Some(error) => format!(
            "“{written}”: {} The default, {}, is used.",
            field_error_for_link(error),
            default_of(error.field)
        ),
        None => format!("“{written}”: unknown link version; read as version 1."),
    }
}

/// Link values are in the link's units (the overhead as a fraction), so the
/// limits are said that way.
fn field_error_for_link(error: &InputError) -> String {
    match (error.field, error.kind) {
        (Field::Overhead, InputErrorKind::OutOfRange(limits)) => format!(
            "Enter a fraction from {} to {}.",
            format_number(limits.min),
            format_number(limits.max)
        ),
        (_, InputErrorKind::UnknownChoice) => {
            format!("Use one of: {}.", error.field.choices().join(", "))
        }
        _ => field_error(error),
    }
}

fn default_of(field: Field) -> String {
    value_of(&Config::default(), field)
}

pub const CRASH_HEADING: &str = "The calculator stopped";
pub const CRASH_EXPLANATION: &str = "An internal error stopped the calculator. Reload to try the \
same link again, or reset to the lesson's example. Please report the details below.";
pub const CRASH_RELOAD: &str = "Reload";
pub const CRASH_RESET: &str = "Reset";
pub const CRASH_DETAILS: &str = "Details";

pub const SCENARIOS: &str = "Lesson Q6 on 8 × A100 80GB, 2,048 tokens, micro-batch 1:";
pub const MOMENTS: &str = "moments";
pub const MASTER_COPY: &str = "master copy";
pub const PER_PARAMETER: &str = "per parameter";
pub const LABEL_MODEL: &str = "Model";
pub const MODEL_BY_SIZE: &str = "By size only (the lesson)";
pub const PARAMETERS: &str = "parameters";
pub const CUSTOM_FROM: &str = "custom, from";
pub const ARCHITECTURE: &str = "Architecture and step";
pub const LABEL_LAYERS: &str = "Layers";
pub const LABEL_HIDDEN: &str = "Hidden size";
pub const LABEL_FFN: &str = "FFN size";
pub const LABEL_HEADS: &str = "Attention heads";
pub const LABEL_KV_HEADS: &str = "Key/value heads";
pub const LABEL_VOCAB: &str = "Vocabulary";
pub const LABEL_MLP: &str = "MLP";
pub const LABEL_TIED: &str = "Tied embeddings";
pub const LABEL_SEQ: &str = "Sequence length";
pub const UNIT_TOKENS: &str = "tokens";
pub const LABEL_MBS: &str = "Micro-batch per GPU";
pub const UNIT_SEQUENCES: &str = "seqs";
pub const LABEL_RECOMPUTE: &str = "Activation recomputation";
pub const LABEL_FLASH: &str = "FlashAttention";
pub const YES: &str = "yes";
pub const NO: &str = "no";
pub const LABEL_GPU: &str = "GPU";
pub const GPU_CUSTOM: &str = "Custom memory";
pub const LABEL_GLOBAL_BATCH: &str = "Global batch (optional)";
pub const HINT_GLOBAL_BATCH: &str = "For the gradient-accumulation steps.";
pub const COL_ACT: &str = "Activations";
pub const COL_FEWEST: &str = "Min GPUs";
pub const NONE: &str = "none";
pub const FREE: &str = "free";
pub const OVER: &str = "over";
pub const ACTIVATIONS_LINE: &str = "Activations per GPU (not sharded by ZeRO)";
pub const PER_LAYER: &str = "per layer";
pub const OUTSIDE_LAYERS: &str = "embeddings and logits";
pub const MAX_MICRO_BATCH: &str = "largest micro-batch that fits with";
pub const ACCUMULATION: &str = "Gradient accumulation";
pub const STEPS: &str = "steps per optimizer step";
pub const RUNTIME: &str = "DeepSpeed: accounting, offload, nodes, communication";
pub const LABEL_ACCOUNTING: &str = "Accounting";
pub const ACCOUNTING_COURSE: &str = "The lesson's formulas";
pub const ACCOUNTING_DEEPSPEED: &str = "DeepSpeed's estimator";
pub const LABEL_OFFLOAD: &str = "Offload";
pub const OFFLOAD_NONE: &str = "Nothing";
pub const OFFLOAD_OPTIMIZER: &str = "Optimizer states";
pub const OFFLOAD_ALL: &str = "Optimizer + parameters";
pub const LABEL_OFFLOAD_TO: &str = "Offload to";
pub const OFFLOAD_CPU: &str = "CPU memory";
pub const OFFLOAD_NVME: &str = "NVMe";
pub const LABEL_NODES: &str = "Nodes";
pub const UNIT_NODES: &str = "nodes";
pub const HINT_NODES: &str = "Data-parallel GPUs = GPUs × nodes.";
pub const LABEL_LARGEST_LAYER: &str = "Largest layer";
pub const UNIT_MILLIONS: &str = "M params";
pub const HINT_LARGEST_LAYER: &str = "ZeRO-3 gathers it whole; a chosen model gives its own.";
pub const LABEL_ZERO_INIT: &str = "zero_init (ZeRO-3)";
pub const LABEL_BUFFERS: &str = "Count DeepSpeed's buffers";
pub const BUFFER_LABELS: [&str; 4] = [
    "Reduce bucket",
    "All-gather bucket (ZeRO-1/2)",
    "Prefetch bucket (ZeRO-3)",
    "Most live parameters (ZeRO-3)",
];
pub const UNIT_MILLION_ELEMENTS: &str = "M values";
pub const LABEL_BANDWIDTH: &str = "Bandwidth per GPU";
pub const UNIT_BANDWIDTH: &str = "GB/s";
pub const HINT_BANDWIDTH: &str = "For the least time a step's communication takes.";
pub const COL_BUFFERS: &str = "Buffers";
pub const PLACEMENT_HEADING: &str = "Where the bytes live, and what each step sends";
pub const COL_GPU: &str = "Per GPU";
pub const COL_CPU: &str = "CPU per node";
pub const COL_NVME: &str = "NVMe per node";
pub const COL_COMM: &str = "Sent per step";
pub const COL_COMM_TIME: &str = "Least time";
pub const PER_GPU: &str = "per GPU";
pub const PER_NODE_CPU: &str = "CPU per node";
pub const PLACEMENT_COURSE: &str = "The lesson's accounting: offloaded states move to the CPU (or NVMe) as they are. \
Each GPU sends and receives 2Ψ(N−1)/N gradient values per step, 3Ψ(N−1)/N under ZeRO-3 (ZeRO paper, §7).";
pub const PLACEMENT_DEEPSPEED: &str =
    "DeepSpeed's estimator (mixed precision, Adam; CPU memory × 1.5 for buffers). \
Its own figures, model states only, in GiB (which DeepSpeed labels “GB”):";
