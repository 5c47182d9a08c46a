//! Every string the page shows, in Simplified Chinese and English, in one table.
//!
//! One typed table: each entry names its English and its Chinese text, so a
//! missing translation does not compile, and `every_string_is_translated`
//! fails on an empty or untranslated one. Sentences with figures are templates
//! whose `{}` are filled in order ([`fill`]); the figures come from the core.

use vram_core::format::{format_number, format_percent, Lang};
use vram_core::input::field::{LayoutProblem, Splits};
use vram_core::input::link::LinkProblem;
use vram_core::{Field, InputError, InputErrorKind};

mod errors;
mod fields;
mod rules;

pub use errors::*;
pub use fields::*;
pub use rules::*;

macro_rules! texts {
    ($text:ident, $en_name:ident, $zh_name:ident; $($name:ident: $ty:ty = $en:expr, $zh:expr;)*) => {
        /// The strings of one table in one language.
        pub struct $text {
            $(pub $name: $ty,)*
        }

        /// English.
        pub static $en_name: $text = $text { $($name: $en,)* };

        /// Simplified Chinese.
        pub static $zh_name: $text = $text { $($name: $zh,)* };

        #[cfg(test)]
        impl $text {
            /// Every entry: its name and its strings.
            pub(crate) fn entries(&self) -> Vec<(&'static str, Vec<&'static str>)> {
                vec![$((stringify!($name), Strings::strings(&self.$name)),)*]
            }
        }
    };
}

// After `texts!`, which it uses.
mod cli;
pub use cli::*;

#[cfg(test)]
trait Strings {
    fn strings(&self) -> Vec<&'static str>;
}

#[cfg(test)]
impl Strings for &'static str {
    fn strings(&self) -> Vec<&'static str> {
        vec![*self]
    }
}

#[cfg(test)]
impl<const N: usize> Strings for [&'static str; N] {
    fn strings(&self) -> Vec<&'static str> {
        self.to_vec()
    }
}

/// The strings of `lang`.
pub fn of(lang: Lang) -> &'static Text {
    match lang {
        Lang::Zh => &ZH,
        _ => &EN,
    }
}

/// `template` with each `{}` replaced by the next of `args`.
pub fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut args = args.iter();
    let mut rest = template;
    while let Some(at) = rest.find("{}") {
        out.push_str(&rest[..at]);
        out.push_str(args.next().copied().unwrap_or_default());
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

texts! {
    Text, EN, ZH;
    html_lang: &'static str = "en", "zh-Hans";
    title: &'static str = "GPU memory for LLM training", "大模型训练显存计算器";
    intro: &'static str =
        "Memory per GPU for the model states under DDP and DeepSpeed ZeRO, and the largest model \
         your cluster can train.",
        "DDP 与 DeepSpeed ZeRO 下每张 GPU 的模型状态显存，以及集群能训练的最大模型。";
    title_serve: &'static str = "GPU memory for LLM serving", "大模型推理部署显存计算器";
    intro_serve: &'static str =
        "Weights and KV cache per GPU as vLLM, SGLang and TensorRT-LLM allocate them, what the engine \
         holds beside them, and how fast it decodes.",
        "按 vLLM、SGLang、TensorRT-LLM 的分配方式计算每张 GPU 的权重与 KV 缓存、引擎另外占用的显存，以及解码速度。";
    title_rl: &'static str = "GPU memory for LLM RL post-training", "大模型强化学习后训练显存计算器";
    intro_rl: &'static str =
        "Each GPU's memory in the rollout and the learning of GRPO, PPO, DPO or distillation, as verl, \
         OpenRLHF and TRL run them, and how long a step takes.",
        "按 verl、OpenRLHF、TRL 的运行方式计算 GRPO、PPO、DPO 或蒸馏在生成与学习两个阶段每张 GPU 的显存，以及每步耗时。";
    label_lang: &'static str = "Language", "语言";
    lang: [&'static str; 3] = ["as the browser", "中文", "English"], ["跟随浏览器", "中文", "English"];
    label_params: &'static str = "Model size", "模型规模";
    unit_params: &'static str = "B params", "B 参数";
    label_gpus: &'static str = "Number of GPUs", "GPU 数量";
    unit_gpus: &'static str = "GPUs", "张";
    label_gpu_mem: &'static str = "Memory per GPU", "单卡显存";
    unit_gb: &'static str = "GB", "GB";
    label_overhead: &'static str = "Reserved overhead", "预留比例";
    unit_percent: &'static str = "%", "%";
    hint_overhead: &'static str =
        "Without a model, for activations, buffers and the framework. With one, activations have their own column: for what no column counts (the CUDA context, the allocator's fragmentation, communication buffers).",
        "不选模型时，留给激活值、缓冲区和框架。选了模型后激活值单独成列：留给表中没有计入的部分（CUDA 上下文、分配器碎片、通信缓冲区）。";
    label_precision: &'static str = "Precision", "精度";
    precision: [&'static str; 7] =
        ["FP32", "FP16 (mixed)", "BF16 (mixed)", "FP32, no master copy", "BF16, no master copy", "FP8 (Transformer Engine)", "FP8 weights (--fp8-param-gather)"],
        ["FP32", "FP16（混合精度）", "BF16（混合精度）", "FP32（无主权重副本）", "BF16（无主权重副本）", "FP8（Transformer Engine）", "FP8 权重（--fp8-param-gather）"];
    label_grad_acc: &'static str = "Gradients accumulated in", "梯度累加格式";
    gradients: [&'static str; 2] = ["as the weights", "fp32"], ["与权重相同", "fp32"];
    label_optimizer: &'static str = "Optimizer", "优化器";
    optimizer: [&'static str; 6] =
        ["Adam / AdamW", "SGD", "SGD with momentum", "8-bit Adam", "Adafactor", "Lion"],
        ["Adam / AdamW", "SGD", "带动量的 SGD", "8-bit Adam", "Adafactor", "Lion"];
    optimizer_note: &'static str = "{} B moments + {} B master copy = {} B per parameter ({})",
        "{} B 优化器状态 + {} B 主权重副本 = 每参数 {} B（{}）";
    optimizer_source: [&'static str; 6] =
        ["Kingma & Ba 2015; ZeRO paper §3.1", "the lesson", "PyTorch torch.optim.SGD", "Dettmers et al. 2022", "Shazeer & Stern 2018", "Chen et al. 2023"],
        ["Kingma 与 Ba，2015；ZeRO 论文第 3.1 节", "课程", "PyTorch 的 torch.optim.SGD", "Dettmers 等，2022", "Shazeer 与 Stern，2018", "Chen 等，2023"];
    model_named: &'static str = " ({})", "（{}）";
    label_stage: &'static str = "Highlighted strategy", "高亮的策略";
    label_unit: &'static str = "Show memory in", "显存单位";
    unit: [&'static str; 2] = ["GB (10^9 bytes)", "GiB (2^30 bytes)"], ["GB（10^9 字节）", "GiB（2^30 字节）"];
    label_theme: &'static str = "Colours", "配色";
    theme: [&'static str; 3] = ["as the system", "light", "dark"], ["跟随系统", "浅色", "深色"];
    form_heading: &'static str = "Configuration", "配置";
    results_heading: &'static str = "Memory per GPU", "每张 GPU 的显存";
    to_results: &'static str = "Results ↓", "查看结果 ↓";
    chart_heading: &'static str = "Largest trainable model", "可训练的最大模型";
    stale: &'static str = "Showing the last valid result: correct the highlighted field.",
        "显示的是上一次有效的结果：请修改标红的输入。";
    col_strategy: &'static str = "Strategy", "策略";
    col_weights: &'static str = "Weights", "权重";
    col_grads: &'static str = "Gradients", "梯度";
    col_optim: &'static str = "Optimizer", "优化器状态";
    col_act: &'static str = "Activations", "激活值";
    col_buffers: &'static str = "Buffers", "缓冲区";
    col_total: &'static str = "Total", "合计";
    col_fits: &'static str = "Fits?", "放得下？";
    col_peak: &'static str = "Peak of step", "单步峰值";
    col_headroom: &'static str = "Headroom", "余量";
    col_fewest: &'static str = "Min GPUs", "最少 GPU";
    col_max: &'static str = "Largest model", "最大模型";
    fits_yes: &'static str = "✓ fits", "✓ 放得下";
    fits_no: &'static str = "✗ too big", "✗ 放不下";
    free: &'static str = "{} free", "余 {}";
    over: &'static str = "{} over", "超 {}";
    none: &'static str = "none", "无";
    unbounded: &'static str = "no GPU limit", "不受显存限制";
    copy_link: &'static str = "Copy link", "复制链接";
    copy_markdown: &'static str = "Copy results as Markdown", "复制结果（Markdown 表格）";
    markdown_copied: &'static str = "Markdown table copied.", "Markdown 表格已复制。";
    download_csv: &'static str = "Download CSV", "下载 CSV";
    copy_as: &'static str = "Copy as", "复制为";
    // A framework that cannot run the plan, in its "Copy as" list; `{}`: the framework.
    copy_refused: &'static str = "{} (cannot run this)", "{}（无法运行此方案）";
    export_copied: &'static str = "Copied, in the framework's own names: paste it into its configuration.", "已按该框架自己的参数名复制，粘贴到它的配置即可。";
    download_png: &'static str = "Chart as PNG", "下载图表 PNG";
    copied: &'static str = "Link copied.", "链接已复制。";
    copy_failed: &'static str = "Could not copy: select the link and copy it.", "复制失败：请选中链接后手动复制。";
    share_label: &'static str = "Link to this configuration", "本配置的链接";
    dismiss: &'static str = "Dismiss", "关闭";
    link_problems_heading: &'static str = "Some values in this link could not be used:",
        "链接中有些值无法使用：";
    link_problem: &'static str = "“{}”: {} The default, {}, is used.", "“{}”：{}已改用默认值 {}。";
    link_err_other: &'static str = "{}: {}", "{}：{}";
    link_version: &'static str = "“{}”: unknown link version; read as version 1.",
        "“{}”：未知的链接版本，按版本 1 读取。";
    chart_memory_heading: &'static str = "Memory per GPU, by part", "每张 GPU 的显存构成";
    chart_memory_axis: &'static str = "Memory per GPU ({})", "每张 GPU 的显存（{}）";
    chart_usable: &'static str = "usable", "可用";
    chart_step_heading: &'static str = "One step of the highlighted strategy, over time",
        "高亮策略的一步训练：显存随时间的变化";
    chart_step_alt: &'static str = "Memory per GPU over one step of {}: {}.",
        "{} 一步训练中每张 GPU 的显存：{}。";
    chart_states: &'static str = "states and buffers", "模型状态与缓冲区";
    chart_step_activations: &'static str = "activations and the loss's tensors", "激活值与损失的张量";
    chart_kept: &'static str = "kept", "保存总量";
    phase_start: &'static str = "start", "开始";
    phase_forward_end: &'static str = "forward end", "前向结束";
    phase_backward_start: &'static str = "backward start", "反向开始";
    phase_recomputed_layer: &'static str = "recomputed layer", "重算一层";
    phase_optimizer_step: &'static str = "optimizer step", "优化器更新";
    peak_sub: &'static str = "peak {}", "峰值 {}";
    summary_needs_peak: &'static str = "{} needs {} per GPU at the peak of its step ({}; {} kept): {}.",
        "{} 在一步训练的峰值需要每张 GPU {}（{}；保存总量 {}）：{}。";
    chart_capacity: &'static str = "GPU", "单卡容量";
    chart_scaling_heading: &'static str = "Largest trainable model on 1 to 1,024 GPUs",
        "1 到 1,024 张 GPU 可训练的最大模型";
    chart_scaling_alt: &'static str = "Largest trainable model on 1,024 GPUs, by the lesson's formula: {}.",
        "1,024 张 GPU 时可训练的最大模型（课程公式）：{}。";
    chart_gpus_now: &'static str = "your GPUs", "你的 GPU 数";
    chart_legend_fits: &'static str = "can train your model", "能训练你的模型";
    chart_legend_too_small: &'static str = "cannot", "不能";
    chart_legend_model: &'static str = "your model", "你的模型";
    chart_y_axis: &'static str = "Largest trainable model (B parameters)", "可训练的最大模型（B 参数）";
    footnote: &'static str =
        "Formulas of the lesson “06. VRAM Calculation and ZeRO” and the ZeRO paper (Rajbhandari \
         et al. 2020): ZeRO-1 shards the optimizer states over the GPUs, ZeRO-2 the gradients too, \
         ZeRO-3 the weights too. Without an architecture, activations and buffers must fit in the \
         reserved part. GB = 10⁹ bytes, GiB = 2³⁰ bytes.",
        "公式出自课程《06. 显存计算与 ZeRO》与 ZeRO 论文（Rajbhandari 等，2020）：ZeRO-1 把优化器状态\
         切分到各 GPU，ZeRO-2 再切分梯度，ZeRO-3 再切分权重。不给模型结构时，激活值和缓冲区需放在\
         预留部分里。GB = 10⁹ 字节，GiB = 2³⁰ 字节。";
    err_empty: &'static str = "Enter a value.", "请输入一个值。";
    err_not_a_number: &'static str = "Not a number: use digits, like 7 or 6.7.", "不是数字：请输入如 7 或 6.7 的数字。";
    err_not_finite: &'static str = "Too large: enter a finite number.", "太大了：请输入有限的数。";
    err_not_whole: &'static str = "Enter a whole number.", "请输入整数。";
    err_range: &'static str = "Enter {} to {}.", "请输入 {} 到 {} 之间的值。";
    err_resolution: &'static str = "Use 0, or at least {}.", "请输入 0，或不小于 {} 的值。";
    err_choice: &'static str = "Choose one of the listed values.", "请从列出的选项中选择。";
    err_divisible: &'static str = "Must divide evenly.", "必须能整除。";
    err_too_many_gpus: &'static str = "{} GPUs per node × these nodes = {} GPUs, more than {}.",
        "每节点 {} 张 GPU × 节点数 = {} 张 GPU，超过上限 {}。";
    err_larger_than_model: &'static str = "Larger than the whole model.", "比整个模型还大。";
    err_not_covered: &'static str = "Measured on Llama-, Mistral- and Qwen2-style (SwiGLU) models only.",
        "仅对 Llama、Mistral、Qwen2 式（SwiGLU）模型实测过。";
    err_needs_model: &'static str = "This needs a model's layers: choose a model.", "这需要模型的结构：请选择一个模型。";
    err_heads: &'static str = "Must divide the hidden size.", "必须能整除隐藏层维度。";
    err_kv_heads: &'static str = "Must divide the number of heads.", "必须能整除注意力头数。";
    err_batch: &'static str = "Must be a multiple of micro-batch × number of GPUs.", "必须是 微批次 × GPU 数 的整数倍。";
    link_err_fraction: &'static str = "Enter a fraction from {} to {}.", "请输入 {} 到 {} 之间的比例。";
    link_err_choice: &'static str = "Use one of: {}.", "可用的值：{}。";
    link_err_parts: &'static str = "List one or more of {}, separated by commas.",
        "请列出以下一项或多项，用英文逗号分隔：{}。";
    open_full: &'static str = "Open in the calculator ↗", "在计算器中打开 ↗";
    caption_heading: &'static str = "Configuration:", "配置：";
    crash_heading: &'static str = "The calculator stopped", "计算器停止运行了";
    crash_explanation: &'static str =
        "An internal error stopped the calculator. Reload the page to try the same link again, or \
         reset to the lesson's example. Please report the details below.",
        "内部错误使计算器停止运行。可以刷新页面再试一次同一个链接，或重置为课程中的例子。\
         请把下面的详细信息反馈给我们。";
    crash_reset: &'static str = "Reset to the lesson's example", "重置为课程中的例子";
    all_settings: &'static str = "All settings ▾", "全部设置 ▾";
    fewer_settings: &'static str = "The lesson's settings only ▴", "只看课程的设置 ▴";
    lesson_heading: &'static str = "The lesson, Q1 to Q5 (each sets the page and answers with its figures):", "课程 Q1–Q5（每一步都会设置页面，并用页面上的数字作答）：";
    // The lesson's Q6 (the scenarios 13B, 33B, 70B on 8 GPUs of 80 GB).
    lesson_q6_13b: &'static str =
        "Q6, 13 B on 8 GPUs of 80 GB: ZeRO-2 needs {} per GPU of {} usable: {}. Click 13B again for the real Llama 2 13B on A100s, its activations counted.",
        "第 6 题，8 张 80 GB GPU 上的 13 B：ZeRO-2 每张 GPU 需要 {}，可用 {}：{}。再点一次 13B：真实的 Llama 2 13B 在 A100 上，计入激活值。";
    lesson_q6_33b: &'static str =
        "Q6, 33 B: ZeRO-2 needs {} per GPU and ZeRO-3 {}, of {} usable: ZeRO-2 {}, ZeRO-3 {}. Click 33B again for the real LLaMA 33B on A100s.",
        "第 6 题，33 B：ZeRO-2 每张 GPU 需要 {}，ZeRO-3 需要 {}，可用 {}：ZeRO-2 {}，ZeRO-3 {}。再点一次 33B：真实的 LLaMA 33B 在 A100 上。";
    lesson_q6_70b: &'static str =
        "Q6, 70 B: even ZeRO-3 needs {} per GPU of {} usable for the model states alone: {}. Click 70B again for the real Llama 2 70B on A100s and the ranked layouts (TP, PP, offload, recomputation) that fit.",
        "第 6 题，70 B：仅模型状态，ZeRO-3 每张 GPU 也需要 {}，可用 {}：{}。再点一次 70B：真实的 Llama 2 70B 在 A100 上，以及能放下的布局排名（TP、PP、卸载、重算）。";
    lesson_q6_real: &'static str =
        "Q6, the real {} on 8 × {} ({} a GPU, {} usable), activations counted: {} needs {} per GPU: {}. The ranked layouts below list the fastest that fit.",
        "第 6 题，真实的 {} 在 8 张 {} 上（每张 {}，可用 {}），计入激活值：{} 每张 GPU 需要 {}：{}。下方的布局排名列出能放下的最快方案。";
    lesson_q1: &'static str =
        "Q1: {} + {} + {} = {} bytes per parameter: the 16-bit weights and gradients, and Adam's fp32 master copy ({}) with its two moments ({}).",
        "Q1：{} + {} + {} = {} 字节/参数：16 位的权重和梯度，加上 Adam 的 fp32 主权重副本（{}）和两个动量（{}）。";
    lesson_q2: &'static str =
        "Q2: {} B parameters × {} bytes = {} on one GPU of {}, of which {} usable: {}.",
        "Q2：{} B 参数 × {} 字节 = {}，而单张 {} 的 GPU 只有 {} 可用：{}。";
    lesson_q3: &'static str =
        "Q3: ZeRO-1 on {} GPUs keeps the weights and gradients whole and divides the optimizer states: {} + {} + {} = {} per GPU (DDP: {}).",
        "Q3：ZeRO-1 在 {} 张 GPU 上保留完整的权重和梯度，只切分优化器状态：每张 GPU {} + {} + {} = {}（DDP：{}）。";
    lesson_q4: &'static str =
        "Q4: ZeRO-3 on {} GPUs divides all three: {} + {} + {} = {} per GPU (DDP: {}), the floor of the states alone; gathers, buffers and activations come on top.",
        "Q4：ZeRO-3 在 {} 张 GPU 上三者都切分：每张 GPU {} + {} + {} = {}（DDP：{}），这只是模型状态的下限；参数收集、缓冲区和激活值另计。";
    lesson_q5: &'static str =
        "Q5: at {} tokens, Llama 2 7B keeps {} of activations without FlashAttention, {} with it, and {} with full recomputation too (the Activations column; both are switched in the form's step).",
        "Q5：序列 {} 词元时，Llama 2 7B 的激活值不用 FlashAttention 为 {}，用了为 {}，再加完全重计算为 {}（见“激活值”列；两者都在表单的训练步骤里切换）。";
    scenarios: &'static str = "Lesson Q6, 8 GPUs of 80 GB (the lesson's question; click again: the real model on A100s):",
        "课程第 6 题，8 张 80 GB GPU（先按原题；再点一次：真实模型与 A100）：";
    label_model: &'static str = "Model", "模型";
    model_by_size: &'static str = "By size only (the lesson)", "只按参数量（课程做法）";
    parameters: &'static str = "parameters", "个参数";
    custom_from: &'static str = "custom, from", "自定义，基于";
    architecture: &'static str = "Architecture", "模型结构";
    group_model: &'static str = "Model", "模型";
    group_hardware: &'static str = "Hardware", "硬件";
    group_training: &'static str = "Training", "训练";
    speed_heading: &'static str = "Step time: efficiency, peak, overlap, tokens, price", "单步时间：效率、峰值算力、通信掩盖、词元、价格";
    label_layers: &'static str = "Layers", "层数";
    label_hidden: &'static str = "Hidden size", "隐藏层维度";
    label_ffn: &'static str = "FFN size", "FFN 维度";
    label_heads: &'static str = "Attention heads", "注意力头数";
    label_kv_heads: &'static str = "Key/value heads", "KV 头数";
    label_vocab: &'static str = "Vocabulary", "词表大小";
    label_mlp: &'static str = "MLP", "MLP 类型";
    mlp: [&'static str; 2] = ["SwiGLU (3 matrices)", "GELU (2 matrices)"], ["SwiGLU（3 个矩阵）", "GELU（2 个矩阵）"];
    label_biases: &'static str = "Linear biases", "线性层偏置";
    biases: [&'static str; 4] = ["none (Llama)", "q, k, v (Qwen2)", "every linear layer (GPT-2)", "q, k, v, o"],
        ["无（Llama）", "q、k、v（Qwen2）", "所有线性层（GPT-2）", "q、k、v、o"];
    label_norm: &'static str = "Normalisation", "归一化";
    norm: [&'static str; 2] = ["RMSNorm (or LayerNorm without bias)", "LayerNorm (with bias)"], ["RMSNorm（或无偏置 LayerNorm）", "LayerNorm（带偏置）"];
    qk_norm: [&'static str; 3] = ["no", "per head (Qwen3)", "full width (OLMo 2)"], ["否", "按单个头（Qwen3）", "整个宽度（OLMo 2）"];
    label_tied: &'static str = "Tied embeddings", "输入输出嵌入共享";
    label_seq: &'static str = "Sequence length", "序列长度";
    unit_tokens: &'static str = "tokens", "词元";
    label_mbs: &'static str = "Micro-batch per GPU", "单卡微批次";
    unit_sequences: &'static str = "seqs", "条";
    label_recompute: &'static str = "Activation recomputation", "激活重计算";
    recompute: [&'static str; 3] =
        ["none (store everything)", "selective (chosen modules)", "full (gradient checkpointing)"],
        ["不重计算（全部保存）", "选择性（所选模块）", "完全（梯度检查点）"];
    label_recompute_modules: &'static str = "Recomputed modules", "重计算的模块";
    hint_recompute_modules: &'static str = "Megatron-LM's --recompute-modules: each module's values are rebuilt in the backward pass instead of kept; op is torchtitan's per-op selective checkpointing: the linears' outputs (every second one rebuilt) and the attention's are kept, the rest rebuilt.",
        "即 Megatron-LM 的 --recompute-modules：所选模块的激活在反向时重算，不再保存；op 是 torchtitan 的逐算子选择性重计算：保存线性层的输出（每隔一个重算一个）与注意力的输出，其余重算。";
    recompute_modules: [&'static str; 8] =
        ["core attention (core_attn)", "experts' activation (moe_act)", "norms (layernorm)", "MLA up-projections (mla_up_proj)", "dense MLP (mlp)", "whole MoE layer (moe)", "shared experts (shared_experts)", "torchtitan's per-op policy (op)"],
        ["核心注意力（core_attn）", "专家激活函数（moe_act）", "归一化层（layernorm）", "MLA 上投影（mla_up_proj）", "稠密 MLP（mlp）", "整个 MoE 层（moe）", "共享专家（shared_experts）", "torchtitan 逐算子策略（op）"];
    label_fp8_recipe: &'static str = "FP8 scaling recipe", "FP8 缩放方案";
    hint_fp8_recipe: &'static str = "Megatron-LM's --fp8-recipe: delayed and tensorwise scale each tensor; mxfp8 (Blackwell) and blockwise keep scales per block and two copies of each weight.",
        "即 Megatron-LM 的 --fp8-recipe：delayed 与 tensorwise 每个张量一个缩放因子；mxfp8（Blackwell）与 blockwise 按块保存缩放因子，每个权重存两份。";
    fp8_recipe: [&'static str; 4] =
        ["delayed (per tensor, amax history)", "tensorwise (per tensor, current)", "mxfp8 (blocks of 32, Blackwell)", "blockwise (1×128 and 128×128 blocks)"],
        ["delayed（每张量，历史 amax）", "tensorwise（每张量，当前 amax）", "mxfp8（每 32 个一块，Blackwell）", "blockwise（1×128 与 128×128 块）"];
    label_cp_comm: &'static str = "Context-parallel exchange", "上下文并行的通信方式";
    hint_cp_comm: &'static str = "Megatron-LM's --cp-comm-type: a ring passes keys and values around; Ulysses (DeepSpeed, verl) trades the sequence split for a head split by all-to-alls.",
        "即 Megatron-LM 的 --cp-comm-type：环形（ring）依次传递 K/V；Ulysses（DeepSpeed、verl）用 all-to-all 把按序列切分换成按头切分。";
    cp_comm: [&'static str; 2] = ["ring (p2p)", "Ulysses all-to-all (a2a)"], ["环形（p2p）", "Ulysses all-to-all（a2a）"];
    label_job: &'static str = "Plan", "规划";
    job: [&'static str; 3] = ["Training and fine-tuning", "Serving", "RL post-training"], ["训练与\u{200b}微调", "推理部署", "强化学习\u{200b}后训练"];
    group_serving: &'static str = "Serving", "推理部署";
    engine_settings: &'static str = "The engine's settings", "推理引擎的设置";
    // The fold of what each GPU's process holds beside the model (Section::Process).
    process_heading: &'static str = "What each process holds beside the model (CUDA context, allocator, NCCL)", "每个进程在模型之外占用的显存（CUDA 上下文、分配器、NCCL）";
    label_engine: &'static str = "Engine", "推理引擎";
    label_engine_version: &'static str = "vLLM release", "vLLM 版本";
    hint_engine_version: &'static str = "The release whose KV-cache arithmetic and defaults are reproduced; 0.34.0 is the newest. A link keeps the release it was written with.", "复现其 KV 缓存算法与默认值的版本；0.34.0 为最新。链接保留写入时的版本。";
    engine: [&'static str; 3] = ["vLLM", "SGLang", "TensorRT-LLM"], ["vLLM", "SGLang", "TensorRT-LLM"];
    label_weights: &'static str = "Weights' format", "权重格式";
    hint_weights: &'static str = "How the checkpoint stores its linear layers; embeddings, norms and the router stay in 16 bits.", "检查点如何存储线性层；嵌入、归一化和路由器仍为 16 位。";
    weights: [&'static str; 8] = ["BF16 / FP16", "FP8, a scale per tensor", "FP8, 128 × 128 blocks", "INT8 (W8A8)", "INT4, AWQ / GPTQ (groups of 128)", "NF4 (bitsandbytes)", "MXFP4 (gpt-oss's experts)", "NVFP4"], ["BF16 / FP16", "FP8（每个张量一个缩放）", "FP8（128 × 128 分块）", "INT8（W8A8）", "INT4，AWQ / GPTQ（每组 128）", "NF4（bitsandbytes）", "MXFP4（gpt-oss 的专家）", "NVFP4"];
    label_kv_dtype: &'static str = "KV cache type", "KV 缓存类型";
    kv_dtype: [&'static str; 2] = ["auto (the model's 16 bits)", "fp8 (1 byte a value)"], ["auto（模型的 16 位）", "fp8（每个值 1 字节）"];
    label_max_len: &'static str = "Longest sequence (max_model_len)", "最长序列（max_model_len）";
    hint_max_len: &'static str = "Empty: the model's own context, as vLLM defaults it.", "留空：模型自身的上下文长度，与 vLLM 的默认一致。";
    label_prompt_len: &'static str = "Prompt", "提示词长度";
    label_response_len: &'static str = "Response", "回复长度";
    label_concurrency: &'static str = "Sequences at once", "同时处理的序列数";
    hint_concurrency: &'static str = "Per replica. Empty: as many as the KV cache and max_num_seqs hold.", "每个副本。留空：KV 缓存和 max_num_seqs 能容纳的最大数量。";
    label_gpu_util: &'static str = "Memory fraction", "显存占用比例";
    hint_gpu_util: &'static str = "vLLM's gpu_memory_utilization (0.9), SGLang's mem_fraction_static, TensorRT-LLM's free_gpu_memory_fraction (0.9). Empty: the engine's default.", "vLLM 的 gpu_memory_utilization（0.9）、SGLang 的 mem_fraction_static、TensorRT-LLM 的 free_gpu_memory_fraction（0.9）。留空：引擎默认值。";
    label_kv_memory: &'static str = "KV cache per GPU", "每卡 KV 缓存";
    hint_kv_memory: &'static str = "Given directly, as vLLM's --kv-cache-memory-bytes: the budget's arithmetic is skipped.", "直接指定，相当于 vLLM 的 --kv-cache-memory-bytes：不再按预算推算。";
    label_measured: &'static str = "Measured on your GPUs", "在您的 GPU 上实测";
    hint_measured: &'static str = "From a start-up log pasted below: the weights (w), the activation peak and non-torch memory together (r) and the CUDA graphs (g), in GiB, at the layout measured (tp, pp). They replace the page's own at that layout; at another TP the weights are shared out by it.", "来自下方粘贴的启动日志：权重（w）、激活峰值与 non-torch 显存之和（r）、CUDA 图（g），单位 GiB，以及测得时的布局（tp、pp）。在该布局下取代本页的估算；换用其他 TP 时权重按 TP 均分。";
    label_block: &'static str = "Tokens per block", "每块 token 数";
    hint_block: &'static str = "Empty: the engine's (vLLM's attention backend's, SGLang's 1, TensorRT-LLM's 32).", "留空：引擎默认（vLLM 由注意力后端决定，SGLang 为 1，TensorRT-LLM 为 32）。";
    label_batched_tokens: &'static str = "Tokens per step", "每步 token 数";
    hint_batched_tokens: &'static str = "max_num_batched_tokens (SGLang's chunked_prefill_size). Empty: the engine's default for the GPU.", "max_num_batched_tokens（SGLang 的 chunked_prefill_size）。留空：引擎针对该 GPU 的默认值。";
    label_max_num_seqs: &'static str = "Sequences per step", "每步序列数";
    hint_max_num_seqs: &'static str = "max_num_seqs (SGLang's max_running_requests, TensorRT-LLM's max_batch_size); vLLM wants at most the tokens per step. Empty: the engine's default for the GPU.", "max_num_seqs（SGLang 的 max_running_requests，TensorRT-LLM 的 max_batch_size）；vLLM 要求不超过每步 token 数。留空：引擎针对该 GPU 的默认值。";
    label_cuda_graphs: &'static str = "CUDA graphs", "CUDA Graph";
    serve_footnote: &'static str = "The KV cache as vLLM 0.19.1, 0.20.0 or 0.34.0 sizes it (the release chosen; each one's own code run in the tests, to the block), SGLang 0.5.23's token pool and TensorRT-LLM's blocks of 32; what the engines measure at start-up (the activation peak, memory outside PyTorch, CUDA graphs) modelled from their code and llm-d's measurements on H100; speeds held to published runs. GB = 10⁹ bytes.", "KV 缓存按 vLLM 0.19.1、0.20.0 或 0.34.0（所选版本）的分配方式计算（测试中运行各版本源码，精确到块），SGLang 0.5.23 的 token 池与 TensorRT-LLM 的 32 token 块同理；引擎启动时实测的部分（激活峰值、PyTorch 之外的显存、CUDA Graph）依据其代码与 llm-d 在 H100 上的实测建模；速度以公开的实测校准。GB = 10⁹ 字节。";
    serve_memory_heading: &'static str = "What the engine takes of each GPU", "引擎在每张 GPU 上占用的显存";
    serve_kv_heading: &'static str = "The KV cache", "KV 缓存";
    serve_speed_heading: &'static str = "Speed", "速度";
    serve_fits: &'static str = "Runs on {}: {} tokens of KV cache, {} sequences of {} tokens at once.", "可以在 {} 上运行：KV 缓存可容纳 {} 个 token，可同时容纳 {} 条长度为 {} 的序列。";
    serve_no_kv: &'static str = "Does not run on {}: nothing is left for the KV cache (\"No available memory for the cache blocks\").", "无法在 {} 上运行：没有显存留给 KV 缓存（\"No available memory for the cache blocks\"）。";
    // What starts the engine ([`vram_core::report::serving::ServeRemedy`]); `{}`: the TP.
    serve_try_tp: &'static str = " At TP {} it starts.", "张量并行设为 {} 即可启动。";
    // The same with FP8 weights quantised at load; `{}`: the TP.
    serve_try_fp8: &'static str = " With FP8 weights at TP {} it starts.", "改用 FP8 权重、张量并行设为 {} 即可启动。";
    // Neither starts it within a node.
    serve_try_more: &'static str = " No TP within a node starts it: more GPUs for each copy (pipeline stages), a smaller format or a higher memory fraction.", "单个节点内任何张量并行都无法启动：需要为每份副本配更多 GPU（流水线并行）、更小的权重格式或更高的显存占用比例。";
    serve_max_len: &'static str = "{} does not start: one sequence of {} tokens needs more than the KV cache; the longest that fits is {} tokens.", "{} 无法启动：一条 {} token 的序列超出 KV 缓存；能放下的最长为 {} token。";
    serve_capped: &'static str = "SGLang limits a request to {} tokens, what its pool holds, below max_model_len {}.", "SGLang 会把单个请求限制在 {} token（其缓存池的容量），低于 max_model_len {}。";
    serve_concurrency_short: &'static str = "{} sequences at once do not fit: the KV cache holds {}.", "同时 {} 条序列放不下：KV 缓存只能容纳 {} 条。";
    serve_weights: &'static str = "Weights", "权重";
    serve_weights_note: &'static str = "the most loaded GPU at TP {}, PP {}, EP {}", "负载最重的 GPU，TP {}、PP {}、EP {}";
    serve_activations: &'static str = "Activation peak", "激活峰值";
    serve_activations_note: &'static str = "the profiling run at {} tokens (vLLM's sampler and MLP)", "按 {} 个 token 的剖析运行（vLLM 的采样器与 MLP）";
    serve_non_torch: &'static str = "Outside PyTorch", "PyTorch 之外";
    // A term the engine measured (a start-up log read, the `measured` key).
    serve_measured: &'static str = "measured on your GPUs", "在您的 GPU 上实测";
    serve_measured_scaled: &'static str = "measured at another TP, shared out by TP {}", "在另一 TP 下实测，按 TP {} 均分";
    serve_measured_rest: &'static str = "measured with the memory outside PyTorch: together what your log's budget left out", "与 PyTorch 之外的显存一并实测：即日志中预算扣除的其余部分";
    serve_non_torch_note: &'static str = "NCCL, cuBLAS: llm-d's measurements with vLLM 0.19 on H100", "NCCL、cuBLAS：llm-d 在 H100 上用 vLLM 0.19 的实测";
    serve_graphs: &'static str = "CUDA graphs", "CUDA Graph";
    serve_graphs_note: &'static str = "vLLM 0.20's estimate before sizing the cache (an estimate from one measured log)", "vLLM 0.20 在分配缓存前的估算（依据一份实测日志）";
    serve_graphs_note_after: &'static str = "captured after vLLM 0.19 sizes the cache, out of what the utilisation leaves (an estimate from one measured log)", "vLLM 0.19 在分配缓存之后捕获，占用利用率之外的显存（依据一份实测日志估算）";
    serve_graphs_note_captured: &'static str = "captured before vLLM 0.34 sizes the cache from what is left (an estimate from one measured log)", "vLLM 0.34 先捕获，再按剩余显存分配缓存（依据一份实测日志估算）";
    serve_kv_budget: &'static str = "KV cache", "KV 缓存";
    serve_kv_budget_note: &'static str = "what is left of {} of {}", "{} × {} 中剩下的部分";
    serve_kv_budget_note_after_capture: &'static str = "what is left of {} of {} after warm-up, less a margin of max(1 GiB, 0.75 × the activation peak) and the peak", "预热后 {} × {} 中剩下的部分，再减去 max（1 GiB，0.75 × 激活峰值）的余量与峰值本身";
    serve_nothing_left: &'static str = "nothing left", "没有剩余";
    serve_plans_heading: &'static str = "Layouts that run it, fastest per GPU first", "能运行的布局（按每卡速度排序）";
    serve_plans_found: &'static str = "Of {} layouts tried (TP × PP × EP, the weights' format, the KV type), {} run it with the lengths and concurrency above.", "共尝试 {} 种布局（TP × PP × EP、权重格式、KV 类型），其中 {} 种能按上面的长度与并发运行。";
    serve_plans_none: &'static str = "No layout of these GPUs runs it: fewer tokens per sequence, fewer sequences at once or more GPUs.", "这些 GPU 上没有能运行的布局：请减少每条序列的 token 数、同时处理的序列数，或增加 GPU。";
    group_rollouts: &'static str = "Rollouts", "生成（Rollout）";
    group_rl: &'static str = "RL post-training", "强化学习后训练";
    label_algo: &'static str = "Algorithm", "算法";
    algo: [&'static str; 4] = ["GRPO (DAPO, RLOO)", "PPO (with a critic)", "DPO (no rollouts)", "On-policy distillation (a teacher)"], ["GRPO（DAPO、RLOO）", "PPO（带 critic）", "DPO（无 rollout）", "在线蒸馏（教师模型）"];
    label_rl_framework: &'static str = "Framework", "框架";
    rl_framework: [&'static str; 3] = ["verl", "OpenRLHF", "TRL"], ["verl", "OpenRLHF", "TRL"];
    hint_rl_framework: &'static str = "Whose defaults fill what is left empty: the engine's memory fraction (verl 0.5, OpenRLHF 0.95, TRL 0.3 colocated and 0.9 apart).", "留空的设置按哪个框架的默认值：推理引擎的显存比例（verl 0.5，OpenRLHF 0.95，TRL 同卡 0.3、独占 0.9）。";
    label_placement: &'static str = "Rollout engine placed", "推理引擎放置";
    placement: [&'static str; 2] = ["on the trainer's GPUs, taking turns", "on GPUs of its own"], ["与训练同卡，交替运行", "独占 GPU"];
    label_rollout_gpus: &'static str = "Rollout GPUs", "Rollout GPU 数";
    hint_rollout_gpus: &'static str = "GPUs of the engine's own, beside the trainer's. Empty: one node's.", "推理引擎独占的 GPU 数（不含训练用的）。留空：一个节点的数量。";
    label_teacher: &'static str = "Teacher model", "教师模型";
    hint_teacher: &'static str = "Frozen in 16 bits beside the student, sharded like it; same vocabulary.", "冻结、16 位，与学生模型同卡并同样分片；词表须相同。";
    no_teacher: &'static str = "choose a teacher", "请选择教师模型";
    label_critic_model: &'static str = "Critic's model", "Critic 模型";
    hint_critic_model: &'static str = "Its base when not the actor's: that model's body with a value head, trained as the actor is (verl's critic.model.path).", "与 actor 不同时 critic 的基座：该模型主体加价值头，训练方式同 actor（verl 的 critic.model.path）。";
    label_reward_model: &'static str = "Reward model's base", "奖励模型基座";
    hint_reward_model: &'static str = "When not the actor's: that model's body with a score head, frozen in 16 bits (OpenRLHF's --reward.model_name_or_path).", "与 actor 不同时：该模型主体加打分头，冻结、16 位（OpenRLHF 的 --reward.model_name_or_path）。";
    same_as_actor: &'static str = "the actor's", "同 actor";
    label_prompts: &'static str = "Prompts a step", "每步提示词数";
    label_rollouts: &'static str = "Responses a prompt (rollout.n)", "每个提示词的回复数（rollout.n）";
    label_rollout_tp: &'static str = "Rollout TP", "Rollout 张量并行";
    hint_rollout_tp: &'static str = "The vLLM engine's tensor parallelism. Empty: the actor's TP.", "vLLM 引擎的张量并行。留空：与 actor 的 TP 相同。";
    label_sleep: &'static str = "Engine while learning", "训练时的推理引擎";
    sleep: [&'static str; 3] = ["asleep, weights discarded (level 2)", "asleep, weights to host RAM (level 1)", "awake (no sleep)"], ["休眠，丢弃权重（level 2）", "休眠，权重移到主机内存（level 1）", "不休眠"];
    label_ref: &'static str = "Reference policy", "参考策略";
    ref_choices: [&'static str; 4] = ["a frozen copy", "the actor without its adapters", "log-probs computed before", "none (no KL)"], ["冻结副本", "去掉适配器的 actor", "预先计算的 log-prob", "无（不加 KL）"];
    label_ref_offload: &'static str = "Reference in host RAM", "参考模型放在主机内存";
    label_critic: &'static str = "Critic", "Critic 模型";
    hint_critic: &'static str = "Empty: PPO's.", "留空：PPO 才有。";
    label_reward: &'static str = "Reward", "奖励";
    reward: [&'static str; 2] = ["a rule or verifier", "a reward model"], ["规则或验证器", "奖励模型"];
    label_token_budget: &'static str = "Tokens a micro-batch", "每个 micro-batch 的 token 数";
    hint_token_budget: &'static str = "verl's ppo_max_token_len_per_gpu with use_dynamic_bsz. Empty: mbs whole sequences.", "verl 的 ppo_max_token_len_per_gpu（配合 use_dynamic_bsz）。留空：mbs 条完整序列。";
    label_prompt_mean: &'static str = "Mean prompt", "平均提示长度";
    hint_prompt_mean: &'static str = "What the data's prompts average; packed without padding (verl's use_remove_padding), learning holds these. Empty: the longest.", "数据中提示的平均长度；去除填充打包后（verl 的 use_remove_padding），训练阶段按此计算。留空：按最长。";
    label_response_mean: &'static str = "Mean response", "平均回复长度";
    hint_response_mean: &'static str = "What the responses average. Empty: the longest; the verdict then also gives the maximum's need.", "回复的平均长度。留空：按最长；填写后结论同时给出按最长计算的需求。";
    rl_at_maximum: &'static str = "These figures are at the mean lengths ({} tokens a sequence); at the longest ({} tokens) learning needs {} of {}.", "以上按平均长度计算（每条序列 {} 个 token）；按最长长度（{} 个 token），训练阶段需要 {}，上限 {}。";
    label_logits: &'static str = "Entropy computed", "熵的计算方式";
    logits: [&'static str; 3] = ["whole, in fp32", "in chunks of 2,048 tokens", "by a fused kernel"], ["整体 fp32", "每 2,048 个 token 分块", "融合算子"];
    label_entropy: &'static str = "Entropy in the loss", "损失中含熵项";
    hint_entropy: &'static str = "verl's entropy_coeff above 0: fp32 terms over the vocabulary beside the log-probs.", "verl 的 entropy_coeff 大于 0：在 log-prob 之外还有覆盖整个词表的 fp32 张量。";
    rl_footnote: &'static str = "As verl, OpenRLHF and TRL run GRPO, PPO, DPO and on-policy distillation (FSDP or DeepSpeed workers, a vLLM rollout engine on the same GPUs that sleeps while the actor learns, or on GPUs of its own): the learning phase is the training table's step for the actor with what RL adds beside it; the generating phase is the serving view's engine at the framework's memory fraction beside what the trainer keeps. Colocated, the phases take turns: each is compared with the GPU, never added. GB = 10⁹ bytes.", "按 verl、OpenRLHF 与 TRL 运行 GRPO、PPO、DPO 与在线蒸馏的方式（FSDP 或 DeepSpeed 训练进程；vLLM 推理引擎与训练同卡、训练时休眠，或独占 GPU）：训练阶段是 actor 在训练表中的一步，加上强化学习额外需要的部分；生成阶段是推理视图中的引擎（按框架的显存比例）与训练进程留下的部分。同卡时两个阶段交替进行，分别与 GPU 比较，不相加。GB = 10⁹ 字节。";
    rl_generate_heading: &'static str = "Generating: the rollout engine beside the trainer", "生成阶段：推理引擎与训练进程同卡";
    rl_learn_heading: &'static str = "Learning: the actor's step", "训练阶段：actor 的一步";
    rl_step_heading: &'static str = "The step", "每一步";
    rl_overrides_heading: &'static str = "As verl's overrides", "verl 的配置参数";
    // After an RL verdict whose limits keep back a reserve; `{}`: the GPU's memory, then the share reserved.
    rl_reserved: &'static str = " The limits are each GPU's {} less the {} reserved (overhead; 0 counts only what the phases hold).", "上限为每张 GPU 的 {} 减去预留的 {}（overhead；设为 0 则只计各阶段实际占用）。";
    rl_fits: &'static str = "Both phases fit on each GPU: generating {}, learning {} (of {} and {}); they take turns, never added.", "两个阶段都能放进每张 GPU：生成 {}，训练 {}（上限分别为 {} 和 {}）；两者交替进行，不相加。";
    rl_short_generate: &'static str = "Generating does not fit: {} with the trainer beside the engine (learning {}; of {} and {}).", "生成阶段放不下：训练进程与推理引擎共 {}（训练 {}；上限 {} 和 {}）。";
    rl_short_learn_phase: &'static str = "Learning does not fit: {} generating, {} learning (of {} and {}).", "训练阶段放不下：生成 {}，训练 {}（上限 {} 和 {}）。";
    rl_short_both: &'static str = "Neither phase fits: generating {}, learning {} (of {} and {}).", "两个阶段都放不下：生成 {}，训练 {}（上限 {} 和 {}）。";
    rl_fits_learn: &'static str = "It fits: {} per GPU of {} usable.", "可以放下：每卡 {}，可用 {}。";
    rl_short_learn: &'static str = "It does not fit: {} per GPU of {} usable.", "放不下：每卡 {}，可用 {}。";
    rl_needs_util: &'static str = "At gpu_util {} the rollout engine has no room for a sequence; from {} it has, beside the trainer.", "gpu_util 为 {} 时推理引擎放不下一条序列；从 {} 起可以（与训练进程同卡）。";
    rl_lower_util: &'static str = "At gpu_util {} the engine and what the trainer keeps beside it outgrow the GPU; a smaller fraction fits, from {} (the engine still holding a sequence).", "gpu_util 为 {} 时推理引擎加上训练进程留在卡上的部分超出显存；更小的比例可以放下，从 {} 起（引擎仍能容纳一条序列）。";
    rl_no_util: &'static str = "No memory fraction leaves the rollout engine room beside the trainer: offload the actor, raise the rollout TP or use more GPUs.", "任何显存比例都无法让推理引擎与训练进程同卡：请卸载 actor、增大 rollout TP 或增加 GPU。";
    rl_actor_states: &'static str = "Actor: weights, gradients, optimizer", "Actor：权重、梯度、优化器";
    rl_actor_step: &'static str = "Actor: activations and the step", "Actor：激活与单步峰值";
    rl_trainer_resident: &'static str = "Actor left on the GPU", "留在 GPU 上的 actor";
    rl_reference: &'static str = "Reference policy", "参考策略";
    rl_critic: &'static str = "Critic: weights, gradients, optimizer", "Critic：权重、梯度、优化器";
    rl_reward_model: &'static str = "Reward model", "奖励模型";
    rl_log_probs: &'static str = "Entropy over the vocabulary", "词表上的熵";
    rl_engine_weights: &'static str = "Engine: weights", "推理引擎：权重";
    rl_engine_overheads: &'static str = "Engine: activations, NCCL, CUDA graphs", "推理引擎：激活、NCCL、CUDA Graph";
    rl_engine_kv: &'static str = "Engine: KV cache", "推理引擎：KV 缓存";
    rl_engine_asleep: &'static str = "Engine while asleep", "休眠中的推理引擎";
    rl_teacher: &'static str = "Teacher's weights", "教师模型权重";
    rl_host_short: &'static str = "Host RAM: {} per node, more than the node's {} (host_mem). To free it: {}.", "主机内存：每节点需要 {}，超过节点的 {}（host_mem）。可以：{}。";
    rl_engine_not_counted: &'static str = "The rollout is counted as vLLM runs it: {}'s rollout is not counted under {}.", "推理引擎按 vLLM 计算：{} 的 rollout 在 {} 下不计算。";
    rl_engine_trtllm: &'static str = "TensorRT-LLM's rollout (rollout.name=trtllm): its KV cache is free_gpu_memory_fraction ({}) of the memory free after its profiling run, the trainer holding {} then. Asleep it frees the cache and its weights, nothing kept to restore (the trainer's weights refill them).", "TensorRT-LLM 的 rollout（rollout.name=trtllm）：KV 缓存为其 profiling 之后空闲显存的 free_gpu_memory_fraction（{}）（训练进程此时已占 {}）。休眠时释放缓存与权重，不保留副本（由训练权重同步重新填入）。";
    rl_engine_sglang: &'static str = "SGLang's rollout (rollout.name=sglang): its KV pool is mem_fraction_static ({}) of the memory free when it starts, the trainer holding {} then, less its weights; the rest it keeps back for its activations and CUDA graphs, not counted apart. Asleep it frees the pool and its weights (kept in host RAM).", "SGLang 的 rollout（rollout.name=sglang）：KV 池为其启动时空闲显存的 mem_fraction_static（{}）减去权重（启动时训练进程已占 {}）；其余留给激活与 CUDA Graph，不单独计算。休眠时释放 KV 池与权重（权重保存在主机内存）。";
    rl_host_sleep: &'static str = "sleep=2 discards the engine's weights instead of keeping them there", "sleep=2 直接丢弃推理引擎的权重，而不是放在主机内存";
    rl_host_ref: &'static str = "ref_offload=0 keeps the reference on the GPUs", "ref_offload=0 把参考模型留在 GPU 上";
    rl_host_offload: &'static str = "offload less of the actor", "减少 actor 的卸载";
    list_separator: &'static str = "; ", "；";
    rl_teacher_logits: &'static str = "Teacher's logits and the distillation loss", "教师 logits 与蒸馏损失";
    rl_weight_sync: &'static str = "Buffer for the trainer's weights", "接收训练权重的缓冲";
    rl_process: &'static str = "CUDA contexts, NCCL's buffers, the driver's reserve", "CUDA 上下文、NCCL 缓冲、驱动保留";
    rl_fsdp_root: &'static str = "FSDP's root unit, whole (embedding and head)", "FSDP 根单元（嵌入与输出头）完整副本";
    rl_generate_split_heading: &'static str = "Generating: the rollout engine on GPUs of its own", "生成阶段：推理引擎独占 GPU";
    rl_fits_split: &'static str = "Both fit: generating {} on each rollout GPU, learning {} on each trainer GPU (of {} and {}).", "都能放下：每张 rollout GPU 生成 {}，每张训练 GPU 训练 {}（上限分别为 {} 和 {}）。";
    rl_short_generate_split: &'static str = "Generating does not fit: {} on each rollout GPU (learning {}; of {} and {}).", "生成阶段放不下：每张 rollout GPU {}（训练 {}；上限 {} 和 {}）。";
    rl_total: &'static str = "On each GPU", "每卡合计";
    rl_of: &'static str = "of {}", "上限 {}";
    rl_sequences: &'static str = "Sequences a step", "每步序列数";
    rl_tokens: &'static str = "{} tokens", "{} 个 token";
    rl_limits_heading: &'static str = "How far it goes on these GPUs", "这些 GPU 上的极限";
    rl_longest_response: &'static str = "Longest response that fits", "放得下的最长回复";
    rl_longest_response_note: &'static str = "response_len with this prompt, both phases fitting", "在当前提示长度下，两个阶段都放得下的 response_len";
    rl_largest_budget: &'static str = "Largest token budget that fits", "放得下的最大 token 预算";
    rl_largest_budget_note: &'static str = "tokens a micro-batch packs per GPU (ppo_max_token_len_per_gpu)", "每张 GPU 一个 micro-batch 打包的 token 数（ppo_max_token_len_per_gpu）";
    rl_fewest_gpus: &'static str = "Fewest GPUs that run it", "能跑起来的最少 GPU";
    rl_fewest_gpus_note: &'static str = "as it stands: {} per node × {} node(s)", "保持其余设置：每节点 {} 张 × {} 个节点";
    rl_none_fits: &'static str = "none fits", "都放不下";
    rl_host: &'static str = "Host RAM per node", "每节点主机内存";
    rl_host_note: &'static str = "offloaded states, the reference in fp32, the sleeping engine's weights", "卸载的状态、fp32 参考模型、休眠引擎的权重";
    rl_step: &'static str = "Time a step", "每步时间";
    rl_step_note: &'static str = "rollout {}, weights moved {}, log-prob passes {}, learning {}", "生成 {}，权重搬运 {}，log-prob 前向 {}，训练 {}";
    rl_timeline_heading: &'static str = "A step, phase by phase, on one GPU", "一步的各个阶段（单卡）";
    rl_stage_wake: &'static str = "Engine wakes", "引擎唤醒";
    rl_stage_sync: &'static str = "Trainer's weights into the engine", "训练权重同步到引擎";
    rl_stage_generate: &'static str = "Generate the responses", "生成回复";
    rl_stage_sleep: &'static str = "Engine sleeps", "引擎休眠";
    rl_stage_log_probs: &'static str = "Old and reference log-probs", "旧策略与参考模型 log-prob";
    rl_stage_update: &'static str = "Update the actor", "更新 actor";
    rl_stage_seconds: &'static str = "{} a step", "每步 {}";
    rl_stage_peak: &'static str = "the peak", "峰值";
    rl_stage_engine_gpus: &'static str = "on the engine's GPUs", "在引擎独占的 GPU 上";
    rl_relief: &'static str = "Relieves the peak", "缓解峰值";
    rl_relief_note: &'static str = "the input governing the peak phase's largest part", "决定峰值阶段最大一项的输入";
    serve_use: &'static str = "Use", "采用";
    serve_col_layout: &'static str = "Layout", "布局";
    serve_col_replicas: &'static str = "Replicas", "副本";
    serve_col_weights: &'static str = "Weights", "权重";
    serve_col_kv: &'static str = "KV", "KV";
    serve_col_concurrency: &'static str = "Sequences", "序列数";
    serve_col_tpot: &'static str = "Per token", "每 token";
    serve_col_per_gpu: &'static str = "Tokens/s per GPU", "每卡 token/秒";
    serve_col_cost: &'static str = "Per million tokens", "每百万 token";
    serve_free: &'static str = "Free", "空闲";
    serve_total: &'static str = "The engine's share", "引擎占用合计";
    serve_total_note: &'static str = "of {} as CUDA reports it", "CUDA 报告的总量为 {}";
    serve_kv_token: &'static str = "A token's keys and values", "每个 token 的 K 和 V";
    serve_kv_token_note: &'static str = "over this GPU's attention layers", "该 GPU 上所有注意力层合计";
    serve_page: &'static str = "Page, {}", "页大小，{}";
    serve_page_full: &'static str = "full attention", "全注意力";
    serve_page_window: &'static str = "window of {}", "{} 窗口";
    serve_page_chunked: &'static str = "local chunks of {}", "{} 局部分块";
    serve_page_state: &'static str = "linear-attention state", "线性注意力状态";
    serve_page_note: &'static str = "blocks of {} tokens, {} layers", "每块 {} 个 token，{} 层";
    serve_kv_blocks: &'static str = "Blocks", "块数";
    serve_kv_tokens: &'static str = "Tokens cached", "可缓存 token 数";
    serve_kv_tokens_note: &'static str = "vLLM's \"GPU KV cache size\"", "即 vLLM 日志中的 \"GPU KV cache size\"";
    serve_max_concurrency: &'static str = "Sequences of {} tokens", "{} token 序列的并发数";
    serve_max_concurrency_note: &'static str = "vLLM's \"Maximum concurrency\": whole sequences of max_model_len at once", "即 vLLM 日志中的 \"Maximum concurrency\"：按 max_model_len 长度的整条序列计";
    serve_max_len_fits: &'static str = "Longest max_model_len that fits", "能放下的最长 max_model_len";
    serve_max_len_fits_note: &'static str = "vLLM's binary search over one sequence", "vLLM 对单条序列的二分搜索";
    serve_page_note_one: &'static str = "pages of one token, {} layers", "每页 1 个 token，{} 层";
    sglang_kv_tokens_note: &'static str = "SGLang's max_total_num_tokens", "即 SGLang 的 max_total_num_tokens";
    sglang_max_concurrency_note: &'static str = "the token pool ÷ the length", "token 池 ÷ 序列长度";
    sglang_max_len_fits_note: &'static str = "what the pool holds: SGLang caps a request there", "token 池能容纳的长度：SGLang 将单个请求限制在此";
    trtllm_kv_tokens_note: &'static str = "TensorRT-LLM's blocks × tokens a block", "即 TensorRT-LLM 的块数 × 每块 token 数";
    trtllm_max_concurrency_note: &'static str = "its blocks ÷ a sequence's", "总块数 ÷ 每条序列的块数";
    trtllm_max_len_fits_note: &'static str = "what its blocks hold for one sequence", "全部块能容纳的单条序列长度";
    serve_concurrency: &'static str = "Sequences decoded at once", "同时解码的序列数";
    serve_concurrency_note: &'static str = "per replica; the cache holds {} of prompt + response, where vLLM's \"Maximum concurrency\" counts whole sequences of max_model_len", "每个副本；缓存可容纳 {} 条“提示词 + 回复”长度的序列，而 vLLM 的 \"Maximum concurrency\" 按 max_model_len 长度的整条序列计";
    // The same under SGLang or TensorRT-LLM, whose logs have no such line; `{}`: the sequences held.
    serve_concurrency_note_other: &'static str = "per replica; the cache holds {} of prompt + response, where the sequences above count whole sequences of max_model_len", "每个副本；缓存可容纳 {} 条“提示词 + 回复”长度的序列，而上文的序列数按 max_model_len 长度的整条序列计";
    serve_ttft: &'static str = "Time to first token", "首 token 延迟";
    serve_ttft_note: &'static str = "one prompt alone, at {} of the tensor peak", "单条提示词，按张量峰值的 {}";
    serve_tpot: &'static str = "Time per output token", "每个输出 token 的时间";
    serve_bound_memory: &'static str = "bound by reading weights and KV at {} of the memory's bandwidth (routed experts at {}), and each step's fixed costs", "受限于以 {} 显存带宽读取权重和 KV（路由专家为 {}），外加每步的固定开销";
    serve_bound_compute: &'static str = "bound by the tensor cores at {} of their peak", "受限于张量核心（按峰值的 {}）";
    serve_decode: &'static str = "Output tokens per second", "每秒输出 token 数";
    serve_decode_note: &'static str = "per replica; {} per GPU, {} per sequence", "每个副本；每卡 {}，每条序列 {}";
    serve_prefill: &'static str = "Prompt tokens per second", "每秒预填充 token 数";
    serve_tokens_per_second: &'static str = "{} tokens/s", "{} token/秒";
    serve_cost: &'static str = "Price of a million output tokens", "每百万输出 token 的价格";
    serve_cost_note: &'static str = "at the GPU-hour's price, decode alone", "按 GPU 小时价格，仅计解码";
    err_not_power_of_two: &'static str = "Must be a power of two (1, 2, 4, … 1024).", "必须是 2 的幂（1、2、4……1024）。";
    err_measured_terms: &'static str = "Write them as w7.13,r1.6,g0.54,tp2,pp1: the weights, the rest kept back and the CUDA graphs in GiB, the layout measured.", "请写成 w7.13,r1.6,g0.54,tp2,pp1：权重、其余预留与 CUDA 图（GiB），以及测得时的布局。";
    err_engine_not_modelled: &'static str = "This engine's allocation is not reproduced for this model's layers (linear attention, or windows under TensorRT-LLM); vLLM's is.", "尚未复现该引擎对此模型层（线性注意力，或 TensorRT-LLM 下的滑动窗口）的分配方式；vLLM 的已复现。";
    label_etp: &'static str = "Experts' tensor parallelism", "专家的张量并行";
    hint_etp: &'static str = "Megatron-LM's --expert-tensor-parallel-size: split like the layers (TP), or 1: each expert whole, EP over the TP ranks too.",
        "即 Megatron-LM 的 --expert-tensor-parallel-size：与各层一样切分（TP），或 1：每个专家完整放在一张卡上，EP 也跨 TP 的卡。";
    etp: [&'static str; 2] = ["as TP", "1 (experts whole)"], ["与 TP 相同", "1（专家不切分）"];
    label_mtp: &'static str = "Multi-token prediction layers", "多 token 预测（MTP）层数";
    hint_mtp: &'static str = "Megatron-LM's --mtp-num-layers: each a layer like the last, with its own logits, on the last pipeline stage. DeepSeek-V3 trained 1.",
        "即 Megatron-LM 的 --mtp-num-layers：每层与最后一层相同，另算一份 logits，位于最后一个流水线段。DeepSeek-V3 训练时用 1 层。";
    label_recompute_method: &'static str = "Recomputation method", "重计算方式";
    recompute_method: [&'static str; 2] =
        ["uniform (groups of N)", "block (N per stage)"],
        ["均匀（每 N 层一组）", "分块（每段 N 层）"];
    label_recompute_layers: &'static str = "Layers per recomputation (N)", "每次重计算的层数（N）";
    hint_recompute_layers: &'static str = "Megatron-LM's --recompute-num-layers: uniform keeps one input per N layers; block recomputes N layers per stage.",
        "即 Megatron-LM 的 --recompute-num-layers：均匀每 N 层存一个输入；分块每段重算 N 层。";
    label_flash: &'static str = "FlashAttention", "FlashAttention";
    yes: &'static str = "yes", "是";
    no: &'static str = "no", "否";
    label_gpu: &'static str = "GPU", "GPU 型号";
    gpu_custom: &'static str = "Custom memory", "自定义显存";
    label_global_batch: &'static str = "Global batch (optional)", "全局批次（可选）";
    hint_global_batch: &'static str = "For the gradient-accumulation steps.", "用于计算梯度累积步数。";
    hf_parts: &'static str =
        "Hugging Face transformers 5.24 on PyTorch 2.15, {} attention, {}: {} per layer, {} all layers, {} outside them (with the logits) = {} kept for backward",
        "Hugging Face transformers 5.24、PyTorch 2.15，{} 注意力，{}：每层 {}，全部层 {}，层外 {}（含 logits），共 {} 为反向保存";
    litgpt_parts: &'static str =
        "LitGPT 0.4.13 on PyTorch 2.15, bf16-true, its head and loss in 128-token chunks over the fp32 logits Fabric returns: {} per layer, {} all layers, {} outside them (with the logits) = {} kept for backward",
        "LitGPT 0.4.13、PyTorch 2.15，bf16-true，输出层与损失按 128 个词元分块，作用于 Fabric 返回的 fp32 logits：每层 {}，全部层 {}，层外 {}（含 logits），共 {} 为反向保存";
    hf_numerics: [&'static str; 3] = ["fp32", "pure 16-bit", "16-bit autocast"], ["fp32", "纯 16 位", "16 位 autocast"];
    activations_line_hf: &'static str =
        "Activations per GPU (as measured; not sharded by ZeRO), {} × {} tokens:\n{}.\nLargest micro-batch that fits with {}: {}.",
        "每张 GPU 的激活值（实测口径；ZeRO 不切分），{} × {} 词元：\n{}。\n{} 下放得下的最大微批次：{}。";
    activations_line: &'static str =
        "Activations per GPU (Korthikanti et al. 2022; not sharded by ZeRO), {} × {} tokens:\n{},\nwith L \
         layers, e bytes per value, s tokens, b micro-batch, h hidden size, k key/value width, m 3 for \
         SwiGLU (fused, as Megatron-LM) or 2 for GELU, f FFN width, a heads, v vocabulary.\nLargest micro-batch that fits with {}: {}.",
        "每张 GPU 的激活值（Korthikanti 等，2022；ZeRO 不切分），{} × {} 词元：\n{}，\n其中 L 为层数，e 为每个值的\
         字节数，s 为词元数，b 为微批次，h 为隐藏维度，k 为键/值宽度，m 在 SwiGLU 取 3（融合算子，与 Megatron-LM 一致）、GELU 取 2，f 为 FFN \
         宽度，a 为注意力头数，v 为词表大小。\n{} 下放得下的最大微批次：{}。";
    lora_adds: &'static str =
        "; LoRA adds {} (n adapted matrices per layer, r their rank; DoRA: d their outputs' widths); the frozen base's linears keep no input of their own, as Transformer Engine saves one only for a weight gradient (the − e·s·b·(…) term)",
        "；LoRA 另加 {}（n 为每层加了适配器的矩阵数，r 为秩；DoRA：d 为其输出宽度之和）；冻结的基座线性层不保存自身输入，因为 Transformer Engine 只为权重梯度保存输入（即 − e·s·b·(…) 项）";
    lora_adds_hf: &'static str =
        "; LoRA's adapters keep {} more (each adapted layer's input, cast to the adapters' dtype, with dropout its own copy and mask; lora_B's r-wide input; with DoRA its base and LoRA outputs, and with dropout in another dtype the weight's cast copy), as PEFT 0.21 keeps them",
        "；LoRA 适配器另保留 {}（每个加了适配器的层的输入，转成适配器精度；开启 dropout 时各自一份副本和掩码；lora_B 的 r 维输入；DoRA 另有基座与 LoRA 的输出，dropout 且精度不同时还有权重的转换副本），与 PEFT 0.21 实测一致";
    activations_line_general: &'static str =
        "Activations per GPU (Korthikanti et al. 2022, generalised; not sharded by ZeRO), {} × {} tokens:\n{},\n\
         with L_d dense and L_e expert layers (L_dG, L_eG: linear attention's, G values and g fp32 bytes a token \
         for A), A the attention's values per token (4h + q + k + v + o, latent \
         attention's compressed vectors, the output gate's 2q or the q/k norms' inputs q + k added), e bytes per value, s tokens, b micro-batch, h hidden size, m 3 \
         for SwiGLU (fused, as Megatron-LM) or 2 for GELU, f, f_e and f_s the dense, expert and shared FFN widths, t experts per token, \
         c the capacity factor, n shared experts, E routed experts, a heads, v vocabulary.\nLargest \
         micro-batch that fits with {}: {}.",
        "每张 GPU 的激活值（Korthikanti 等，2022，推广形式；ZeRO 不切分），{} × {} 词元：\n{}，\n其中 L_d 为稠密层数、\
         L_e 为专家层数（L_dG、L_eG 为线性注意力层，每个词元以 G 个值与 g 字节 fp32 代替 A），\
         A 为注意力每个词元保存的值数（4h + q + k + v + o，潜在注意力另加压缩向量，输出门控另加 2q，q/k 归一化另加其输入 q + k），e 为每个值的字节数，\
         s 为词元数，b 为微批次，h 为隐藏维度，m 在 SwiGLU 取 3（融合算子，与 Megatron-LM 一致）、GELU 取 2，f、f_e、f_s 分别为稠密、专家、共享专家的 \
         FFN 宽度，t 为每个词元的专家数，c 为容量因子，n 为共享专家数，E 为路由专家数，a 为注意力头数，v 为词表大小。\
         \n{} 下放得下的最大微批次：{}。";
    derivation: &'static str = "{} per GPU, by the lesson's formula: {}.", "{} 每张 GPU，按课程公式：{}。";
    word_activations: &'static str = "activations", "激活值";
    word_buffers: &'static str = "buffers", "缓冲区";
    accumulation: &'static str = "Gradient accumulation: {} steps per optimizer step.",
        "梯度累积：每次优化器更新 {} 步。";
    accumulation_error: &'static str = "Gradient accumulation: {}", "梯度累积：{}";
    summary_model: &'static str = "{} parameters on {} GPU{}", "{} 参数，{} 张 GPU{}";
    plural_s: &'static str = "s", "";
    sentence_end: &'static str = ". ", "。";
    word_space: &'static str = " ", "";
    summary_usable: &'static str = "{} usable per GPU ({} − {} reserved).", "每张 GPU 可用 {}（{} − 预留 {}）。";
    summary_needs: &'static str = "{} needs {} per GPU: {}.", "{} 每张 GPU 需要 {}：{}。";
    it_fits: &'static str = "it fits", "放得下";
    it_does_not_fit: &'static str = "it does not fit", "放不下";
    least_sharding: &'static str = " The simplest strategy that fits is {} ({}).", "放得下的最简单策略是 {}（{}）。";
    zero3_fits_on: &'static str = " No strategy fits; ZeRO-3 fits on {} GPUs, or offload, or a smaller model.",
        "没有策略放得下；ZeRO-3 需要 {} 张 GPU，或者卸载，或者换更小的模型。";
    plans_see: &'static str = "See the ranked layouts ↓", "查看布局排名 ↓";
    // The button beside the least sharding that fits; `{}`: the strategy.
    show_strategy: &'static str = "Show {}", "查看 {}";
    nothing_fits: &'static str = " No number of GPUs fits it as it is.",
        "照现在的设置，多少张 GPU 都放不下。";
    export_usable: &'static str = "Usable per GPU: {}.", "每张 GPU 可用：{}。";
    export_link: &'static str = "Open it in the calculator: <{}>. {}", "在计算器中打开：<{}>。{}";
    export_units: [&'static str; 2] = ["GB = 10⁹ bytes.", "GiB = 2³⁰ bytes."], ["GB = 10⁹ 字节。", "GiB = 2³⁰ 字节。"];
    fixes_see: &'static str = "What would make it fit? ↓", "怎样才能放得下？↓";
    runtime: &'static str = "Framework details: accounting, offload, buffers, communication", "框架细节：口径、卸载、缓冲区、通信";
    label_accounting: &'static str = "Accounting", "计算口径";
    accounting: [&'static str; 3] = ["The lesson's formulas", "DeepSpeed's estimator", "Beside Megatron-LM's estimate"], ["课程公式", "DeepSpeed 估算器", "并列 Megatron-LM 的估算"];
    label_offload: &'static str = "Offload", "卸载";
    offload: [&'static str; 3] = ["Nothing", "Optimizer states", "Optimizer + parameters"],
        ["不卸载", "优化器状态", "优化器 + 参数"];
    label_offload_to: &'static str = "Offload to", "卸载到";
    label_host_mem: &'static str = "Offload memory per node", "每节点卸载容量";
    hint_host_mem: &'static str =
        "The host RAM (or NVMe) per node that offload goes to: it bounds the largest model once the GPUs hold nothing per parameter.",
        "卸载目标（主机内存或 NVMe）每节点的容量：GPU 不再按参数存放任何内容时，它决定最大可训练模型。";
    offload_to: [&'static str; 2] = ["CPU memory", "NVMe"], ["CPU 内存", "NVMe"];
    label_method: &'static str = "Fine-tuning method", "微调方法";
    method: [&'static str; 3] = ["Full (every parameter)", "LoRA (16-bit base)", "QLoRA (quantised base)"],
        ["全参数训练", "LoRA（冻结的 16 位基座）", "QLoRA（冻结的量化基座）"];
    hint_method: &'static str = "LoRA adapts a model's linear layers: without a chosen model, Llama 2 7B's.",
        "LoRA 作用于模型的线性层：未选模型时使用 Llama 2 7B 的结构。";
    label_rank: &'static str = "LoRA rank r", "LoRA 秩 r";
    label_targets: &'static str = "Adapted layers", "加适配器的层";
    targets: [&'static str; 4] = ["q and v (PEFT's default)", "attention: q, k, v, o", "MLP", "every linear layer (all-linear)"],
        ["q 与 v（PEFT 默认）", "注意力：q、k、v、o", "MLP", "全部线性层（all-linear）"];
    label_quant: &'static str = "Base stored as", "基座存储格式";
    quant: [&'static str; 2] = ["NF4, 4 bits", "LLM.int8, 8 bits"], ["NF4（4 位）", "LLM.int8（8 位）"];
    label_double_quant: &'static str = "Double quantisation", "双重量化";
    label_bnb: &'static str = "bitsandbytes release", "bitsandbytes 版本";
    bnb: [&'static str; 2] = ["0.43.1 or earlier", "0.43.2 or later"], ["0.43.1 及更早", "0.43.2 及更新"];
    hint_bnb: &'static str = "Through 0.43.1 each 4-bit layer kept its input for the backward pass.", "0.43.1 及更早版本中，每个 4 位层会为反向传播保存其输入。";
    label_lora_dropout: &'static str = "LoRA dropout", "LoRA dropout 概率";
    hint_lora_dropout: &'static str =
        "With dropout each adapter keeps its own copy of its input and a mask (Hugging Face's accounting).",
        "开启后每个适配器各自保留一份输入副本和掩码（Hugging Face 口径）。";
    label_adapter_dtype: &'static str = "Adapter dtype", "适配器精度";
    label_dora: &'static str = "DoRA (a magnitude a weight row)", "DoRA（每行权重一个幅值）";
    adapter_dtype: [&'static str; 2] = ["fp32 (PEFT's default)", "the model's"], ["fp32（PEFT 默认）", "与模型相同"];
    label_amp: &'static str = "Autocast (AMP)", "自动混合精度（autocast）";
    hint_amp: &'static str = "fp32 weights and gradients, 16-bit compute, no master copy (Trainer(bf16=True)).",
        "fp32 权重与梯度、16 位计算、无主副本（Trainer(bf16=True) 的做法）。";
    err_needs_mixed: &'static str = "Needs a mixed precision: FP16 or BF16 (mixed).", "需要混合精度：FP16 或 BF16（混合）。";
    adapters_line: &'static str =
        "{}: {} trainable parameters of {} ({} %), each with the recipe's bytes; the frozen base holds {} ({}).",
        "{}：可训练参数 {} / {}（{} %），按所选精度与优化器计；冻结的基座占 {}（{}）。";
    frozen_16bit: &'static str = "16-bit weights", "16 位权重";
    frozen_quantised: &'static str = "linear weights quantised, the rest in 16 bits", "线性层权重量化，其余为 16 位";
    label_buffer_factor: &'static str = "CPU buffer factor", "CPU 缓冲系数";
    label_dropout: &'static str = "Dropout probability", "Dropout 概率";
    label_framework: &'static str = "Activations counted as", "激活值口径";
    label_context: &'static str = "CUDA context and allocator", "CUDA 上下文与分配器";
    hint_context: &'static str = "Held back per GPU beside the reserved share; 0 keeps the lesson's view.",
        "在预留比例之外每张 GPU 再扣除；0 即课程的算法。";
    label_expandable: &'static str = "Expandable segments", "expandable_segments";
    hint_expandable: &'static str = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the allocator's slack about 5 % of the peak, not 15 %.",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True：分配器余量约为峰值的 5 %，而非 15 %。";
    label_slack: &'static str = "Allocator slack", "分配器余量";
    hint_slack: &'static str = "Reserved beyond the allocated peak, as measured (torch.cuda.max_memory_reserved ÷ max_memory_allocated − 1); empty: 15 %, or 5 % with expandable segments.",
        "已分配峰值之外被缓存分配器保留的部分，按实测填写（max_memory_reserved ÷ max_memory_allocated − 1）；留空：15 %，开启 expandable_segments 时 5 %。";
    label_nvls: &'static str = "NVLink SHARP buffers", "NVLink SHARP 缓冲";
    label_nccl_mib: &'static str = "NCCL buffers per communicator", "每个通信组的 NCCL 缓冲";
    hint_nccl_mib: &'static str = "As measured (NCCL_BUFFSIZE and NCCL_MAX_NCHANNELS change them). Empty: 192 MiB, 16 channels × 12 MiB.", "按实测填写（NCCL_BUFFSIZE 与 NCCL_MAX_NCHANNELS 会改变它）。留空：192 MiB，即 16 个通道 × 12 MiB。";
    hint_nvls: &'static str = "NCCL_NVLS_ENABLE: 256 MiB a communicator on Hopper NVSwitch nodes (384 MiB on Blackwell); off: none.",
        "NCCL_NVLS_ENABLE：Hopper NVSwitch 节点上每个通信组 256 MiB（Blackwell 384 MiB）；关闭则没有。";
    summary_usable_context: &'static str = "{} usable per GPU ({} − {} reserved − {} context).",
        "每张 GPU 可用 {}（{} − 预留 {} − 上下文 {}）。";
    framework: [&'static str; 3] = ["Megatron-LM (Korthikanti)", "Hugging Face (measured)", "LitGPT (measured)"],
        ["Megatron-LM（Korthikanti）", "Hugging Face（实测）", "LitGPT（实测）"];
    label_attention: &'static str = "Attention implementation", "注意力实现";
    label_loss: &'static str = "Loss over the logits", "基于 logits 的损失";
    label_longest_first: &'static str = "Longest example first", "最长样本先跑";
    hint_longest_first: &'static str = "1: the run's first step is its longest, as lit-gpt's loop of 2023 ran it, so no earlier step's graph (QLoRA's 4-bit inputs under bitsandbytes before 0.43.2, the last step's logits) is alive at that length; the shorter steps after it are taken to peak lower. 0: every step may run at the planned length after another one (LitGPT 0.4 and later). LitGPT's accounting only.", "1：第一步就是最长的一步（lit-gpt 2023 年的训练循环如此），该长度下没有前一步的计算图仍存活（bitsandbytes 0.43.2 之前 QLoRA 的 4 位输入、上一步的 logits）；之后较短的步按峰值更低计。0：每一步都可能紧跟另一步以计划长度运行（LitGPT 0.4 及之后）。仅用于 LitGPT 的计法。";
    hint_loss: &'static str = "fused: Megatron-LM's cross-entropy keeps one fp32 copy; compiled: PyTorch's under torch.compile (torchtitan's [compile] with the loss) keeps only the 16-bit logits and, at the backward's start, their 16-bit gradient; fp32: PyTorch's cross_entropy over an fp32 copy, uncompiled (torchtitan without compiling its loss), holds up to 6 bytes a logit more; chunked: torchtitan 0.3.0's ChunkedLossWrapper (the loss of its Llama 3 and Qwen3 configs) runs the head and the loss over 8 chunks of the sequence and keeps no logits; chunked_output: torchtune's CEWithChunkedOutputLoss keeps the 16-bit logits of 8 chunks and upcasts one chunk at a time.",
        "fused：Megatron-LM 的交叉熵只保留一份 fp32 副本；compiled：torch.compile 下的 PyTorch 损失（torchtitan 的 [compile] 含 loss）只保留 16 位 logits，反向开始时再加上它们的 16 位梯度；fp32：PyTorch 对 fp32 副本做 cross_entropy、未编译（torchtitan 未编译损失时），每个 logit 最多多占 6 字节；chunked：torchtitan 0.3.0 的 ChunkedLossWrapper（其 Llama 3 与 Qwen3 配置的损失）把序列分成 8 块依次计算输出层与损失，不保留 logits；chunked_output：torchtune 的 CEWithChunkedOutputLoss 保留 8 块的 16 位 logits，每次只把一块升到 fp32。";
    moe_details: &'static str = "Beyond a Llama: head size, norms, biases, experts, latent attention", "Llama 之外：头维度、归一化、偏置、专家、潜在注意力";
    label_head_dim: &'static str = "Head size", "注意力头维度";
    hint_head_dim: &'static str = "0: hidden size ÷ heads. Qwen3 sets its own (128).", "0 表示 隐藏层维度 ÷ 头数；Qwen3 单独设定（128）。";
    label_qk_norm: &'static str = "Norms on q and k", "q、k 上的归一化";
    label_sandwich_norms: &'static str = "Four norms a layer (Gemma)", "每层四个归一化（Gemma）";
    label_parallel: &'static str = "Attention and MLP in parallel, one norm (Cohere)", "注意力与 MLP 并行、一个归一化（Cohere）";
    label_softcap: &'static str = "Soft-capped logits (Gemma 2)", "logits 软上限（Gemma 2）";
    label_sinks: &'static str = "Attention sinks (gpt-oss)", "注意力 sink（gpt-oss）";
    label_expert_bias: &'static str = "Router and expert biases (gpt-oss)", "路由器与专家偏置（gpt-oss）";
    label_experts: &'static str = "Routed experts", "路由专家数";
    hint_experts: &'static str = "0: a dense model. Memory follows all experts; compute the active ones.",
        "0 表示稠密模型。显存按全部专家计，计算量按激活的专家计。";
    label_top_k: &'static str = "Experts per token", "每个词元的专家数";
    label_expert_ffn: &'static str = "Expert FFN size", "专家 FFN 维度";
    label_shared_experts: &'static str = "Shared experts", "共享专家数";
    label_shared_ffn: &'static str = "Shared expert FFN size", "共享专家 FFN 维度";
    label_shared_gate: &'static str = "Shared expert gate", "共享专家门控";
    label_dense_layers: &'static str = "Leading dense layers", "前置稠密层数";
    label_q_rank: &'static str = "Latent query rank", "潜在查询秩";
    label_kv_rank: &'static str = "Latent key/value rank", "潜在键值秩";
    hint_kv_rank: &'static str = "0: no latent attention. DeepSeek-V3: 512.", "0 表示不用潜在注意力（MLA）；DeepSeek-V3 为 512。";
    label_rope_dim: &'static str = "Rotary head size", "旋转位置部分的头维度";
    label_nope_dim: &'static str = "Non-rotary head size", "非旋转部分的头维度";
    label_v_dim: &'static str = "Value head size", "值的头维度";
    label_attn_gate: &'static str = "Gated attention output (Qwen3-Next)", "注意力输出门控（Qwen3-Next）";
    label_window: &'static str = "Local attention window (tokens; 0: global everywhere)", "局部注意力窗口（词元；0 表示全部为全局注意力）";
    hint_window: &'static str = "A local layer's query sees only this many keys before it (a sliding window: Mistral, Gemma 2 and 3, gpt-oss), or only its own chunk of this many tokens (Llama 4): its attention FLOPs grow with the window, not the sequence.",
        "局部注意力层的查询只看到它之前这么多个键（滑动窗口：Mistral、Gemma 2/3、gpt-oss），或只看到它所在的这么长的块（Llama 4）：其注意力 FLOPs 随窗口而非序列长度增长。";
    label_global_every: &'static str = "Global attention every n-th layer (0: none global)", "每 n 层一层全局注意力（0 表示没有全局层）";
    label_chunked: &'static str = "Chunks instead of a sliding window", "分块而非滑动窗口";
    label_full_every: &'static str = "Full attention every n-th layer (0: no linear attention)", "每 n 层一层全注意力（0 表示无线性注意力）";
    label_lin_k_heads: &'static str = "Linear attention key heads", "线性注意力键头数";
    label_lin_v_heads: &'static str = "Linear attention value heads", "线性注意力值头数";
    label_lin_k_dim: &'static str = "Linear attention key head size", "线性注意力键头维度";
    label_lin_v_dim: &'static str = "Linear attention value head size", "线性注意力值头维度";
    label_lin_conv: &'static str = "Linear attention convolution width", "线性注意力卷积宽度";
    label_capacity: &'static str = "Expert capacity factor", "专家容量因子";
    hint_capacity: &'static str = "Copies of each token's activations per routed expert: 1 for uniform routing.",
        "每个路由专家按词元保存的激活值份数：均匀路由为 1。";
    active_params: &'static str = "{} active per token", "每个词元激活 {}";
    label_positions: &'static str = "Learned positions", "可学习位置嵌入数";
    label_ep: &'static str = "Expert parallelism (EP)", "专家并行（EP）";
    hint_ep: &'static str = "Routed experts divided over EP GPUs; their states sharded over GPUs ÷ EP (× TP with experts' TP 1).",
        "路由专家分到 EP 张 GPU 上；它们的状态在 GPU 数 ÷ EP（专家 TP 为 1 时再 × TP）的组内切分。";
    err_needs_experts: &'static str = "Needs a mixture of experts (routed experts > 0).", "需要混合专家模型（路由专家数 > 0）。";
    err_needs_latent_attention: &'static str = "mla_up_proj needs latent attention (KV rank > 0), as Megatron-LM requires.", "mla_up_proj 需要潜在注意力（KV 秩 > 0），与 Megatron-LM 的要求一致。";
    err_per_op_alone: &'static str = "op is torchtitan's per-op policy and stands alone: Megatron-LM's modules are another framework's.",
        "op 是 torchtitan 的逐算子策略，只能单独选择：Megatron-LM 的模块属于另一个框架。";
    err_verl_batch: &'static str = "verl needs prompts × rollouts to be a multiple of {} (its GPUs, or its Megatron data-parallel ranks × micro-batch): its trainer asserts it.",
        "verl 要求提示词数 × 每个提示词的回答数为 {} 的整数倍（即 GPU 数，或 Megatron 数据并行组数 × 微批次），否则其训练器会报错。";
    err_not_in_deepspeed: &'static str = "Counted with the lesson's accounting and without offload only.", "仅在课程口径且不卸载时计算。";
    parallel_heading: &'static str = "Parallel layout", "并行布局";
    not_run: &'static str = "n/a", "不适用";
    fixes_heading: &'static str = "What would make it fit?", "怎样才能放得下？";
    plans_heading: &'static str = "Which layout? Ranked plans for these GPUs", "选哪种并行布局？这些 GPU 上的方案排名";
    plans_hint: &'static str =
        "Every layout (TP within a node, PP, CP, SP, EP, ZeRO stage, recomputation, offload) with its fastest micro-batch that fits; the most tokens per second per GPU first.",
        "枚举所有布局（节点内 TP、PP、CP、SP、EP、ZeRO 阶段、重计算、卸载），各取放得下且最快的微批；每张 GPU 每秒词元数最多的在前。";
    plans_legend_over: &'static str = "over the usable memory", "超出可用显存";
    model_custom: &'static str = "custom (config.json)", "自定义（config.json）";
    plans_axis: &'static str = "Tokens per second per GPU", "每张 GPU 每秒词元数";
    layout_note: &'static str =
        "Layout: {} = {} GPUs; ZeRO over DP × CP = {}. Most loaded GPU ({}): pipeline rank {} of {}, {} layers, {} parameters, {} microbatches in flight, {} of activations.",
        "布局：{} = {} 张 GPU；ZeRO 在 DP × CP = {} 上切分。负载最重的 GPU（{}）：第 {}/{} 级流水线，{} 层、{} 参数，在途 {} 个微批，激活值 {}。";
    layout_activations: &'static str =
        "Activations on pipeline rank {} of {} (Korthikanti et al. 2022, Table 2{}): {} microbatches in flight × {} layers × {}{} + {} outside the layers = {}.",
        "第 {}/{} 级流水线的激活值（Korthikanti 等，2022，表 2{}）：在途 {} 个微批 × {} 层 × {}{} + 层外 {} = {}。";
    layout_split_tp: &'static str = ", TP {} dividing the tensor-parallel region", "，TP {} 切分张量并行区域";
    layout_split_tp_sp: &'static str = ", TP {} with SP dividing all of it", "，TP {} 加 SP 切分全部";
    layout_split_cp: &'static str = ", CP {} dividing the sequence", "，CP {} 切分序列";
    layout_rebuilt_at_once: &'static str = " (each checkpoint's input) + {} × {} (rebuilt at once)", "（每个检查点的输入） + {} × {}（一次重算）";
    layout_rebuilt_stored: &'static str = " (each checkpoint's input) + {} × {} × {} (stored whole)", "（每个检查点的输入） + {} × {} × {}（整层保存）";
    tp_across_nodes: &'static str = "Tensor parallelism spans nodes: its all-reduces run over the network.", "张量并行跨越节点：它的 all-reduce 走节点间网络。";
    zero_with_pipeline: &'static str = "ZeRO-2 and ZeRO-3 are n/a: DeepSpeed's pipeline engine runs ZeRO-1 only.", "ZeRO-2 与 ZeRO-3 不适用：DeepSpeed 的流水线引擎只支持 ZeRO-1。";
    zero2_with_pipeline: &'static str = "ZeRO-2 is n/a: DeepSpeed's pipeline engine runs ZeRO-1 only. ZeRO-3 is FSDP2's, which runs under torch's pipeline schedules (torchtitan) holding each stage's weights and fp32 gradients whole until its last microbatch.", "ZeRO-2 不适用：DeepSpeed 的流水线引擎只支持 ZeRO-1。ZeRO-3 为 FSDP2，可在 torch 的流水线调度下运行（torchtitan），在最后一个微批次之前各阶段的权重与 fp32 梯度保持完整不切分。";
    time_note: &'static str =
        "Step time ({}, kernels at {}): {} = {}; {} tokens/s per GPU; MFU {} (PaLM's: model FLOPs by Megatron-LM's count, no recomputation, over the whole step).",
        "单步时间（{}，{}）：{} = {}；每张 GPU 每秒 {} 个词元；MFU {}（PaLM 定义：按 Megatron-LM 计数的模型 FLOPs，不含重计算，除以整步时间）。";
    time_kernels_typed: &'static str = "{} of {} TFLOP/s", "内核效率 {}，峰值 {} TFLOP/s";
    time_kernel_model: &'static str = "{} of {} TFLOP/s, by their shapes", "内核效率 {}（按算子形状估计），峰值 {} TFLOP/s";
    time_compute: &'static str = "compute", "计算";
    time_bubble: &'static str = "bubble", "流水线气泡";
    time_tensor: &'static str = "tensor/pipeline parallel", "张量/流水线并行通信";
    time_expert: &'static str = "expert all-to-all", "专家 all-to-all";
    time_context: &'static str = "context parallelism's exchange, not hidden", "上下文并行的通信（未被掩盖）";
    time_data: &'static str = "data parallel, not hidden", "未被掩盖的数据并行通信";
    time_offload: &'static str = "offload", "卸载";
    training_note: &'static str = "{} B tokens: {} steps, {} days on {} GPUs", "{} B 词元：{} 步，共 {} 天（{} 张 GPU）";
    training_cost: &'static str = ", cost {}.", "，费用 {}。";
    label_tp: &'static str = "Tensor parallelism (TP)", "张量并行（TP）";
    label_pp: &'static str = "Pipeline stages (PP)", "流水线级数（PP）";
    label_vpp: &'static str = "Virtual stages per rank", "每个流水线级的虚拟级数（VPP）";
    hint_vpp: &'static str = "Interleaved 1F1B: a smaller bubble, more microbatches in flight.", "交错式 1F1B：气泡更小，但同时在途的微批更多。";
    label_cp: &'static str = "Context parallelism (CP)", "上下文并行（CP）";
    label_sp: &'static str = "Sequence parallelism (SP)", "序列并行（SP）";
    label_mfu: &'static str = "Kernel efficiency", "内核效率";
    hint_mfu: &'static str = "The fraction of the peak every compute kernel reaches on the FLOPs it runs (recomputation included); the bubble and exposed communication come on top. Empty: each GEMM by its shape, the attention and the element-wise kernels as the GPU runs them (held to 18 published runs within 25 %). The step's MFU follows.",
        "计算内核在实际执行的 FLOPs（含重计算）上达到峰值算力的比例；流水线气泡和未被掩盖的通信另算。留空则按 GPU 估计：每个矩阵乘按其形状、注意力与逐元素算子分别计算（与 18 个公开实测相差不超过 25%）。单步的 MFU 由此得出。";
    label_achieved: &'static str = "Achieved throughput (a run's)", "实测吞吐（某次运行）";
    hint_achieved: &'static str = "TFLOP/s per GPU as a paper or log reports it (recomputation counted): sets the step time directly.",
        "论文或日志报告的每卡 TFLOP/s（计入重计算）：直接给出单步时间。";
    label_tflops: &'static str = "Peak 16-bit throughput", "16 位峰值算力";
    unit_tflops: &'static str = "TFLOP/s", "TFLOP/s";
    hint_tflops: &'static str = "Dense BF16/FP16 tensor peak per GPU (the GPU preset's datasheet figure when empty).",
        "每张 GPU 的稠密 BF16/FP16 张量峰值（留空则用所选 GPU 数据手册的数值）。";
    label_nvlink: &'static str = "Bandwidth within a node", "节点内带宽";
    label_network: &'static str = "Bandwidth between nodes", "节点间带宽";
    hint_links: &'static str = "Per GPU, each way (the GPU preset's when empty).", "每张 GPU、单向（留空则用所选 GPU 的数值）。";
    label_tokens: &'static str = "Training tokens", "训练词元数";
    unit_billion_tokens: &'static str = "B tokens", "B 词元";
    label_price: &'static str = "Price per GPU-hour", "每 GPU 小时价格";
    label_shard_group: &'static str = "Sharding group (optional)", "分片组（可选）";
    label_pp_first: &'static str = "Layers on the first stage (optional)", "第一级的层数（可选）";
    label_pp_last: &'static str = "Layers on the last stage (optional)", "最后一级的层数（可选）";
    label_pp_embedding: &'static str = "Count the embedding as a layer", "嵌入层计为一层";
    hint_pp_counted: &'static str = "Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split: the first rank's first and the last rank's last virtual stage build one layer fewer.",
        "即 Megatron-LM 的 --account-for-embedding-in-pipeline-split 与 --account-for-loss-in-pipeline-split：首个流水线 rank 的第一个虚拟阶段、最后一个 rank 的最后一个虚拟阶段各少建一层。";
    label_pp_loss: &'static str = "Count the loss as a layer", "损失计为一层";
    label_pp_layout: &'static str = "Pipeline layout (optional)", "流水线布局（可选）";
    hint_pp_layout: &'static str = "Megatron-LM's --pipeline-model-parallel-layout: every virtual stage's layers, E the embedding, t a transformer layer, m an MTP layer, L the loss, | between stages (Et|(tt|)*30mL); PP × VPP stages. Empty: the keys above split the layers.",
        "即 Megatron-LM 的 --pipeline-model-parallel-layout：逐个虚拟阶段写出其中的层，E 为嵌入层，t 为 Transformer 层，m 为 MTP 层，L 为损失，| 分隔各阶段（如 Et|(tt|)*30mL）；共 PP × VPP 个阶段。留空：按上面的设置切分。";
    pp_layout_none: &'static str = "none", "无";
    err_stage_count: &'static str = "The layout names {} virtual stages: PP × VPP must be as many (now {} × {}).",
        "该布局共 {} 个虚拟阶段：PP × VPP 须与之相等（当前为 {} × {}）。";
    err_stage_layers: &'static str = "The layout holds {} transformer layers (t); the model has {}.",
        "该布局含 {} 个 Transformer 层（t），而模型有 {} 层。";
    err_stage_mtp: &'static str = "The layout holds {} MTP layers (m); the model has {} (mtp).",
        "该布局含 {} 个 MTP 层（m），而模型有 {} 个（mtp）。";
    stage_rule: [&'static str; 6] = [
        "Megatron-LM's layout takes E, t, m and L, | between stages, and repeats such as t*3 or (tt|)*29.",
        "The embedding E must come once, first.",
        "The loss L must come once, last.",
        "No transformer layer t may follow an MTP layer m.",
        "The MTP layers m must be together, in the last virtual stage of their pipeline rank.",
        "More than 128 virtual stages, or 65,535 layers in one.",
    ], [
        "Megatron-LM 的布局只接受 E、t、m、L，用 | 分隔各阶段，可用 t*3 或 (tt|)*29 表示重复。",
        "嵌入层 E 必须恰好出现一次，且在最前。",
        "损失 L 必须恰好出现一次，且在最后。",
        "MTP 层 m 之后不能再有 Transformer 层 t。",
        "MTP 层 m 必须全部位于同一个虚拟阶段，且是其流水线 rank 的最后一个虚拟阶段。",
        "虚拟阶段超过 128 个，或单个阶段超过 65,535 层。",
    ];
    splits_counted_layers: &'static str = "the {} layers with the embedding or the loss counted", "计入嵌入层或损失后的 {} 层";
    hint_pp_uneven: &'static str = "Megatron-LM's uneven stages: with the last stage's below, the stages in between share the rest evenly; empty: an even split.",
        "Megatron-LM 的不均匀切分：连同下面的最后一级，中间各级平分其余的层；留空：均分。";
    err_no_fp8: &'static str = "This GPU has no FP8 tensor cores (Hopper, Ada and Blackwell have).", "这块 GPU 没有 FP8 张量核心（Hopper、Ada、Blackwell 才有）。";
    err_no_layers_left: &'static str = "Leaves no layers to the stages in between (the model has {}).", "没有给中间各级留下层（模型共 {} 层）。";
    err_uneven_middle: &'static str = "Leaves {} layers to {} stages in between: not a whole number each.", "留给中间各级 {} 层，共 {} 级：不能平分。";
    hint_shard_group: &'static str = "ZeRO shards within groups of this many GPUs (HSDP, MiCS); empty: all.",
        "ZeRO 在每组这么多块 GPU 内分片（HSDP、MiCS）；留空：全部。";
    label_overlap_grad: &'static str = "Overlap gradient reduction", "梯度归约与反向传播重叠";
    hint_overlap_grad: &'static str =
        "Megatron-LM's --overlap-grad-reduce, DeepSpeed's overlap_comm: the data-parallel reduction runs during the last microbatch's backward pass.",
        "即 Megatron-LM 的 --overlap-grad-reduce、DeepSpeed 的 overlap_comm：数据并行的梯度归约在最后一个微批次的反向传播期间进行。";
    label_overlap_param: &'static str = "Overlap the weights' gather", "权重收集与前向传播重叠";
    hint_overlap_param: &'static str =
        "Megatron-LM's --overlap-param-gather (with the gradient overlap above): ZeRO-1/2's gather of the updated weights runs during the next step's first forward pass.",
        "即 Megatron-LM 的 --overlap-param-gather（需同时开启上面的梯度重叠）：ZeRO-1/2 对更新后权重的收集在下一步第一个微批次的前向传播期间进行。";
    err_divides: &'static str = "Must divide {}; {} would.", "必须整除{}；{} 可以。";
    err_needs_uneven: &'static str = "Must divide the {} layers; {} would, or keep it with uneven stages: {} ({}).",
        "必须整除 {} 层；{} 可以，或保持不变并让首末级层数不同：{}（{}）。";
    uneven_first_last: &'static str = "first stage {} and last stage {} layers", "首级 {} 层、末级 {} 层";
    uneven_first: &'static str = "first stage {} layers", "首级 {} 层";
    splits_gpus: &'static str = "the {} GPUs", "GPU 总数 {}";
    splits_heads: &'static str = "the {} attention heads", "注意力头数 {}";
    splits_kv_heads: &'static str = "the {} key/value heads", "KV 头数 {}";
    splits_layers: &'static str = "the {} layers", "层数 {}";
    splits_ffn: &'static str = "the MLP's intermediate width of {}", "MLP 中间维度 {}";
    splits_sequence: &'static str = "the sequence's {} tokens in 2 × CP chunks", "序列长度 {}（分成 2 × CP 块）";
    err_needs_pipeline: &'static str = "Needs pipeline stages (PP > 1).", "需要流水线并行（PP > 1）。";
    err_needs_tp: &'static str = "Needs tensor parallelism (TP > 1).", "需要张量并行（TP > 1）。";
    err_needs_megatron: &'static str = "Splits the model as Megatron-LM does: not under DeepSpeed's estimator nor Hugging Face's accounting.",
        "按 Megatron-LM 的方式切分模型：不适用于 DeepSpeed 估算器或 Hugging Face 口径。";
    err_full_training_only: &'static str = "Splits full training only (method: full).", "仅对全参数训练切分（方法：全参数）。";
    err_given_twice: &'static str = "Given more than once: the first value counts.", "重复给出：以第一个值为准。";
    link_repeated: &'static str = "“{}”: the key is given again; its first value, {}, is used.", "“{}”：该键重复出现，以第一个值 {} 为准。";
    err_needs_teacher: &'static str = "Distillation needs a teacher model with the student's vocabulary: choose one (teacher).", "蒸馏需要一个与学生模型词表相同的教师模型：请选择一个（teacher）。";
    err_other_vocabulary: &'static str = "The teacher's vocabulary ({} tokens) is not the student's ({}): their distributions over the tokens cannot be compared.", "教师模型的词表（{} 个词元）与学生模型的（{}）不同，无法逐词元比较两者的分布。";
    err_not_with: &'static str = "Does not go with the current “{}”.", "与当前的“{}”不兼容。";
    err_not_per_stage: &'static str = "{} microbatches: interleaved stages need a multiple of PP ({}).", "{} 个微批次：交错流水线需要 PP（{}）的整数倍。";
    paste_heading: &'static str = "Paste a config.json, a launch command or a log", "粘贴 config.json、启动命令或日志";
    paste_hint: &'static str = "A Hugging Face config.json (Llama, Mistral, Gemma 2/3, Phi-3/4, OLMo 2, Granite, Qwen2, Qwen3, Mixtral, Qwen2-MoE, Qwen3-MoE, DeepSeek-V3, GPT-2) fills the architecture; a vllm serve or SGLang launch_server command, the deployment; verl's main_ppo or OpenRLHF's train_ppo_ray / train_dpo command, the RL run; a DeepSpeed JSON (its deepspeed or torchrun line before it, if you have it), a Megatron-LM pretrain_gpt.py script, a torchtitan job TOML, an accelerate YAML with its TrainingArguments and LoraConfig or LitGPT's finetune_lora / finetune_full command or config YAML, the training run; TRL's GRPOConfig, DPOConfig or DistillationConfig, the RL run; a run's log (vLLM's or SGLang's start-up, Megatron-LM's or DeepSpeed's memory lines, verl's metrics, nvidia-smi), its figures beside these, and a serving log's as the deployment's own. It stays in this page.",
        "Hugging Face 的 config.json（Llama、Mistral、Gemma 2/3、Phi-3/4、OLMo 2、Granite、Qwen2、Qwen3、Mixtral、Qwen2-MoE、Qwen3-MoE、DeepSeek-V3、GPT-2）会填入模型结构；vllm serve 或 SGLang launch_server 命令会填入部署配置；verl 的 main_ppo 或 OpenRLHF 的 train_ppo_ray / train_dpo 命令会填入强化学习配置；DeepSpeed 的 JSON 配置（可在前面附上 deepspeed 或 torchrun 启动行）、Megatron-LM 的 pretrain_gpt.py 脚本、torchtitan 的任务 TOML、accelerate 的 YAML（连同 TrainingArguments 与 LoraConfig）或 LitGPT 的 finetune_lora / finetune_full 命令或配置 YAML 会填入训练配置；TRL 的 GRPOConfig、DPOConfig 或 DistillationConfig 会填入强化学习配置；运行日志（vLLM 或 SGLang 的启动日志、Megatron-LM 或 DeepSpeed 的显存行、verl 的指标、nvidia-smi）的各项数字会与本页对照，推理日志的数字还会作为该部署的实测值。内容不离开本页。";
    paste_read: &'static str = "Read it", "读取";
    hub_unavailable: &'static str = "The reader could not be loaded; reload the page and try again.", "读取器未能加载；请刷新页面后重试。";
    paste_file: &'static str = "or choose a file", "或选择文件";
    err_dense_only: &'static str = "Not counted: LoRA on linear or gated attention, QLoRA beyond dense models with the usual attention.",
        "未计算：线性或门控注意力上的 LoRA，常规注意力稠密模型以外的 QLoRA。";
    attention: [&'static str; 4] = ["as FlashAttention says", "eager", "SDPA", "FlashAttention-2"],
        ["按 FlashAttention 设置", "eager", "SDPA", "FlashAttention-2"];
    loss: [&'static str; 5] = ["fused (Megatron-LM)", "fp32 copy, uncompiled", "in chunks (torchtitan)", "chunked output (torchtune)", "compiled (torch.compile)"],
        ["融合（Megatron-LM）", "fp32 副本，未编译", "分块（torchtitan）", "分块输出（torchtune）", "已编译（torch.compile）"];
    hint_dropout: &'static str = "Above 0, each dropout keeps a 1-byte mask per value, as on a GPU.",
        "大于 0 时，每个 dropout 为每个值保存 1 字节的掩码，与 GPU 上实际保存的一致。";
    hint_buffer_factor: &'static str = "DeepSpeed's additional_buffer_factor: its CPU figures × this.",
        "DeepSpeed 的 additional_buffer_factor：其 CPU 内存估算乘以此系数。";
    label_nodes: &'static str = "Nodes", "节点数";
    unit_nodes: &'static str = "nodes", "个";
    hint_nodes: &'static str = "Data-parallel GPUs = GPUs × nodes.", "数据并行 GPU 数 = 每节点 GPU 数 × 节点数。";
    label_largest_layer: &'static str = "Largest layer", "最大层";
    unit_millions: &'static str = "M params", "M 参数";
    hint_largest_layer: &'static str = "ZeRO-3 gathers it whole; a model gives its own.",
        "ZeRO-3 会完整聚合它；选了模型则自动计算。";
    label_zero_init: &'static str = "zero_init (ZeRO-3)", "zero_init（ZeRO-3）";
    label_sharding: &'static str = "ZeRO-3 by", "ZeRO-3 实现";
    sharding: [&'static str; 2] = ["DeepSpeed", "PyTorch FSDP2"], ["DeepSpeed", "PyTorch FSDP2"];
    label_buffers: &'static str = "Count communication buffers", "计入通信缓冲区";
    buffer_labels: [&'static str; 4] = [
            "Reduce bucket",
            "All-gather bucket (ZeRO-1/2)",
            "Prefetch bucket (ZeRO-3)",
            "Most live parameters (ZeRO-3)",
        ],
        ["Reduce 桶", "All-gather 桶（ZeRO-1/2）", "预取桶（ZeRO-3）", "最多常驻参数（ZeRO-3）"];
    unit_million_elements: &'static str = "M values", "M 个值";
    label_bandwidth: &'static str = "Bandwidth per GPU", "单卡带宽";
    unit_bandwidth: &'static str = "GB/s", "GB/s";
    hint_bandwidth: &'static str = "For the least communication time per step.", "用于估算每步最短通信时间。";
    placement_heading: &'static str = "Where the bytes live, and what each step sends", "数据放在哪里，每步通信多少";
    col_gpu: &'static str = "Per GPU", "每张 GPU";
    col_cpu: &'static str = "CPU per node", "每节点 CPU 内存";
    col_nvme: &'static str = "NVMe per node", "每节点 NVMe";
    col_comm: &'static str = "Sent per step", "每步通信量";
    col_comm_time: &'static str = "Least time", "最短时间";
    placement_course: &'static str =
        "The lesson's accounting: offloaded states move to the CPU (or NVMe) as they are. Each GPU \
         sends and receives 2Ψ(N−1)/N gradient values per step, 3Ψ(N−1)/N under ZeRO-3 (ZeRO paper, §7).",
        "课程口径：卸载的状态原样移到 CPU（或 NVMe）。每张 GPU 每步收发 2Ψ(N−1)/N 个梯度值，\
         ZeRO-3 为 3Ψ(N−1)/N（ZeRO 论文第 7 节）。";
    placement_deepspeed: &'static str =
        "DeepSpeed's estimator (mixed precision, Adam; CPU memory × 1.5 for buffers). Its own \
         figures, model states only, in GiB (which DeepSpeed labels “GB”): ZeRO-3 {} per GPU, {} \
         CPU per node.",
        "DeepSpeed 估算器口径（混合精度、Adam；CPU 内存 × 1.5 作缓冲）。它自己的数字（仅模型状态，\
         单位 GiB，DeepSpeed 写作 “GB”）：ZeRO-3 每张 GPU {}，每节点 CPU 内存 {}。";
}

texts! {
    LazyText, LAZY_EN, LAZY_ZH;
    plans_found: &'static str = " None of DDP and ZeRO-1/2/3 fits on its own; {} of {} layouts fit, the fastest: {}.",
        "DDP 与 ZeRO-1/2/3 单独都放不下；有 {} 个布局放得下（共 {} 个），最快的是 {}。";
    fixes_intro: &'static str = "{} needs {} per GPU; {} are usable.", "{} 每张 GPU 需要 {}，可用 {}。";
    fixes_ranked: &'static str =
        "The smallest changes that make it fit, fewest first, then settings before what is trained before the GPUs, then the least GPU time per token:",
        "能放得下的最小改动：改动少的在前，其次先改设置、再改训练方式、最后换 GPU，再按每词元 GPU 时间从少到多：";
    fixes_none: &'static str =
        "No change of up to three settings makes it fit: a smaller model, or many more or larger GPUs.",
        "改动至多三项设置都放不下：请换更小的模型，或大幅增加 GPU 数量或换更大显存的 GPU。";
    fixes_fits: &'static str = "Nothing: the highlighted strategy fits.", "无需改动：当前高亮的策略放得下。";
    fix_colon: &'static str = ": ", "：";
    fix_memory: &'static str = "{} per GPU of {} usable", "每张 GPU {}（可用 {}）";
    fix_speed: &'static str = ", {} tokens/s per GPU", "，每张 GPU 每秒 {} 个词元";
    fix_cost: &'static str = ", GPU time per token {}", "，每词元 GPU 时间 {}";
    plans_offloaded: &'static str = "{} offloaded", "卸载{}";
    plans_block: &'static str = "block: {} of {} layers per stage recomputed", "分块：每段 {}/{} 层重算";
    plans_count: &'static str = "{} of {} plans fit.", "{} / {} 个方案放得下。";
    plans_ranked_global: &'static str =
        "Ranked by tokens per second per GPU, every plan at the global batch of {} sequences a step.",
        "按每张 GPU 每秒词元数排序，所有方案每步都是全局批次 {} 条序列。";
    plans_ranked_own: &'static str =
        "Ranked by tokens per second per GPU: without a global batch each plan's step trains its own DP × micro-batch sequences, so a shorter step is not a faster plan.",
        "按每张 GPU 每秒词元数排序：未设全局批次时，每个方案每步训练各自的 DP × 微批条序列，单步更短并不代表更快。";
    plans_partial: &'static str =
        "The cluster has very many layouts: the {} simplest of {} were searched.",
        "集群的布局太多：只搜索了最简单的 {} 个（共 {} 个）。";
    plans_none: &'static str =
        "Nothing fits, even with offload: try an 8-bit optimizer, LoRA or QLoRA, or more GPUs. The closest:",
        "即使卸载也放不下：可试 8 位优化器、LoRA 或 QLoRA，或更多 GPU。最接近的方案：";
    plans_no_model: &'static str = "Choose a model: layouts divide its layers and attention heads.",
        "请先选择模型：并行布局要切分它的层和注意力头。";
    plans_accounting: &'static str = "No ranked layouts under DeepSpeed's estimator or Hugging Face's accounting: neither splits a model. Choose the lesson's or Megatron-LM's accounting.",
        "DeepSpeed 估算器和 Hugging Face 口径下没有布局排名：二者都不切分模型。请选择课程口径或 Megatron-LM 口径。";
    plans_invalid: &'static str = "Correct the highlighted field first.", "请先修改标红的输入。";
    plans_apply: &'static str = "Use", "采用";
    plans_in_use: &'static str = "In use", "已采用";
    plans_applied: &'static str = "Applied: {}.", "已采用：{}。";
    col_layout: &'static str = "Layout", "布局";
    col_recompute: &'static str = "Recompute", "重计算";
    col_offload: &'static str = "Offload", "卸载";
    col_micro: &'static str = "Micro-batch × m", "微批 × m";
    col_step: &'static str = "Step", "单步";
    col_tokens: &'static str = "Tokens/s per GPU", "每卡每秒词元";
    megatron_printed: &'static str = "weight and optimizer={} MB, activation={} MB, total={} MB", "weight and optimizer={} MB, activation={} MB, total={} MB";
    megatron_note: &'static str =
        "Megatron-LM (d98e8a6) prints (MB = 2^20 B): DDP {}; ZeRO-1 (distributed optimizer) {}. This page: {}, {}. Megatron counts 18 B per parameter and Table 2's constants for the first stage.",
        "Megatron-LM（d98e8a6）打印（MB = 2^20 B）：DDP {}；ZeRO-1（分布式优化器）{}。本页：{}、{}。Megatron 按每参数 18 B、用表 2 常数算第一级。";
    paste_done: &'static str = "Read {} ({}): {}.", "已读取 {}（{}）：{}。";
    paste_assumed: &'static str = "Assumed (absent): {}.", "缺省（未给出，按默认）：{}。";
    paste_not_understood: &'static str = "Not understood, may change the count: {}.", "未能理解、可能影响参数量：{}。";
    paste_mtp: &'static str = "Its {} multi-token-prediction layer(s), {} parameters as its checkpoint stores them, are counted apart: transformers does not build them.",
        "其 {} 个多词元预测（MTP）层按检查点存储共 {} 个参数，单独计算、不计入总数：transformers 不构建它们。";
    paste_multimodal: &'static str = "A multimodal config ({}): its language model (text_config) is counted, its vision tower (vision_config) is not.",
        "多模态配置（{}）：只计算其语言模型（text_config），不计视觉塔（vision_config）。";
    hub_json: &'static str = "Not valid JSON (line {}, column {}).", "不是有效的 JSON（第 {} 行，第 {} 列）。";
    hub_not_object: &'static str = "Not a JSON object.", "不是 JSON 对象。";
    hub_no_type: &'static str = "No \"model_type\".", "缺少 \"model_type\"。";
    // A launch command read (vram_launch::import): an option and the key it
    // became; what has no bearing on the figures; what was not read.
    import_read_line: &'static str = "Read {} → {}", "已读取 {} → {}";
    import_ignored_line: &'static str = "No bearing on the figures: {}", "与数字无关：{}";
    import_unread_line: &'static str = "Not read: {}", "未能读取：{}";
    import_not_applied: &'static str = "Read but not applied: {}: {} ({} kept)", "已读取但未应用：{}：{}（保留 {}）";
    import_no_gpu: &'static str = "The GPU, the lengths and the load are not in a command: set them here.", "GPU、长度与负载不在命令中：请在此设置。";
    // A log read (vram_launch::log): the tool, each figure beside the
    // page's (the term, ours, the log's, its line, the difference), a
    // figure the page has none of, the settings the log applied.
    log_kinds: [&'static str; 7] = ["vLLM", "SGLang", "Megatron-LM", "DeepSpeed", "verl", "PyTorch", "nvidia-smi"],
        ["vLLM", "SGLang", "Megatron-LM", "DeepSpeed", "verl", "PyTorch", "nvidia-smi"];
    log_heading: &'static str = "{}'s log: each figure it printed beside this configuration's.", "{} 日志：其打印的每个数字与本配置的对照。";
    log_terms: [&'static str; 11] = ["Weights", "Activation peak", "Outside PyTorch (non-torch)", "CUDA graphs", "KV cache budget", "KV cache tokens", "Concurrency at max_model_len", "Peak allocated (torch)", "Peak reserved (torch)", "Used on the busiest GPU (nvidia-smi)", "KV cache blocks"],
        ["权重", "激活峰值", "PyTorch 之外（non-torch）", "CUDA 图", "KV 缓存预算", "KV 缓存词元数", "max_model_len 下的并发数", "峰值已分配（torch）", "峰值已保留（torch）", "最忙 GPU 已用（nvidia-smi）", "KV 缓存块数"];
    log_line: &'static str = "{}: ours {}, your log {} (line {}; ours {})", "{}：本页 {}，日志 {}（第 {} 行；本页{}）";
    log_line_alone: &'static str = "{}: your log {} (line {}); the page has no such figure for this configuration", "{}：日志 {}（第 {} 行）；本页此配置下无对应数字";
    log_keys: &'static str = "Its settings applied: {}", "已应用其设置：{}";
    hub_unknown_type: &'static str = "model_type \"{}\" is not counted here (these are: {}).", "此处不计算 model_type \"{}\"（可读取的有：{}）。";
    hub_missing: &'static str = "\"{}\" is missing.", "缺少 \"{}\"。";
    hub_invalid: &'static str = "\"{}\" has an impossible value.", "\"{}\" 的值不可能。";
    hub_unsupported: &'static str = "\"{}\" describes layers not counted here.", "\"{}\" 描述的层此处不计算。";
}

// What `crate::launch` says: why a framework cannot run the configuration
// ([`vram_launch::Refusal`]), for the exports, the CLI and the RL view;
// what nvidia-smi will show, and the host RAM while the checkpoint loads.
texts! {
    LaunchText, LAUNCH_EN, LAUNCH_ZH;
    // The job a framework's configuration is for, in a refusal.
    job_training: &'static str = "training", "训练";
    // The serving job, in a refusal.
    job_serving: &'static str = "serving", "推理部署";
    // The RL job, in a refusal.
    job_rl: &'static str = "RL post-training", "强化学习后训练";
    // [`Refusal::OtherJob`]; each `{}`: the framework, then the job it is for.
    other_job: &'static str = "{}'s configuration is for {}: switch the job to it.", "{} 的配置用于{}：请先切换到该任务。";
    // [`Refusal::Invalid`].
    invalid: &'static str = "The configuration has errors: fix the fields named on the page first.", "配置有误：请先修正页面上标出的字段。";
    // [`Refusal::NeedsModel`]; each `{}`: the framework.
    needs_model: &'static str = "{} needs the model's architecture: pick a model or paste its config.json.", "{} 需要模型结构：请选择模型或粘贴 config.json。";
    // [`Refusal::ModelParallel`]; each `{}`: the framework.
    model_parallel: &'static str = "{}'s configuration cannot express this parallel layout (its tensor, pipeline, context or expert parallelism as planned here): copy it as Megatron-LM.", "{} 的配置无法表达这种并行布局（此处规划的张量、流水线、上下文或专家并行）：请导出为 Megatron-LM。";
    // [`Refusal::ModelParallel`] of OpenRLHF or TRL; each `{}`: the framework.
    model_parallel_rl: &'static str = "{} is exported here with the actor over data parallelism only (DeepSpeed ZeRO), not this tensor, pipeline, context or expert parallel layout: copy it as verl, whose Megatron actor runs it.", "{} 在这里导出的配置中 actor 只做数据并行（DeepSpeed ZeRO），无法表达这种张量、流水线、上下文或专家并行布局：请导出为 verl，它的 Megatron actor 可以运行。";
    // [`Refusal::ModelParallel`] of verl; each `{}`: the framework.
    model_parallel_verl: &'static str = "{}'s Megatron actor is not given this pipeline split here (uneven first or last stages, a stage map, the embedding or loss counted as layers): split the layers evenly.", "这里不会把这种流水线切分（首末 stage 层数不均、stage map、把 embedding 或 loss 计为一层）交给 {} 的 Megatron actor：请把各层均匀切分。";
    // [`Refusal::RewardModel`] of verl; each `{}`: the framework.
    reward_model_apart: &'static str = "{} serves its reward model from an inference engine of its own (reward.reward_model.rollout), not held in the trainer as the figures count it: choose reward=rule, or copy it as OpenRLHF.", "{} 的奖励模型由独立的推理引擎提供（reward.reward_model.rollout），不像本方案那样放在训练进程里：请选 reward=rule，或导出为 OpenRLHF。";
    // [`Refusal::RewardModel`] of TRL; each `{}`: the framework.
    reward_model_funcs: &'static str = "{} takes a reward model as one of the trainer's reward_funcs, which the configuration written here does not carry: choose reward=rule, or copy it as OpenRLHF.", "{} 的奖励模型作为训练器的 reward_funcs 传入，此处导出的配置不包含它：请选 reward=rule，或导出为 OpenRLHF。";
    // [`Refusal::ActorSharding`]; each `{}`: the framework.
    actor_sharding: &'static str = "{}'s actor shards as FSDP (ZeRO-3, or ZeRO-2 without resharding after the forward) or not at all (DDP) under data parallelism alone, and as Megatron's distributed optimizer (ZeRO-1) or not at all under tensor, pipeline or expert parallelism: choose one of those.", "{} 的 actor 在纯数据并行时用 FSDP 分片（ZeRO-3，或前向后不重新分片的 ZeRO-2）或不分片（DDP）；在张量、流水线或专家并行下用 Megatron 的分布式优化器（ZeRO-1）或不分片：请从中选择。";
    // [`Refusal::Adapters`] of an RL framework; each `{}`: the framework.
    adapters_rl: &'static str = "{} does not train these adapters as planned (a 4-bit base, DoRA, or LoRA on its Megatron actor): copy it as TRL (PEFT).", "{} 无法按此规划训练这些适配器（4 位基座、DoRA，或在 Megatron actor 上的 LoRA）：请导出为 TRL（PEFT）。";
    // [`Refusal::Strategy`]; each `{}`: the framework, then the strategy.
    strategy: &'static str = "{} shards with FSDP2, which has no counterpart of {}: choose ZeRO-2 (never reshard) or ZeRO-3.", "{} 用 FSDP2 分片，没有与 {} 对应的做法：请选 ZeRO-2（前向后不重新分片）或 ZeRO-3。";
    // [`Refusal::Fsdp2`].
    fsdp2: &'static str = "FSDP2 shards this ZeRO-3 (sharding=fsdp2), not DeepSpeed: copy it as torchtitan or accelerate, or set sharding to DeepSpeed.", "这里的 ZeRO-3 由 FSDP2 分片（sharding=fsdp2），不是 DeepSpeed：请导出为 torchtitan 或 accelerate，或把分片方改为 DeepSpeed。";
    // [`Refusal::DeepSpeedSharding`]; each `{}`: the framework.
    deep_speed_sharding: &'static str = "{} shards with FSDP2: set sharding to FSDP2 to plan what it runs.", "{} 用 FSDP2 分片：请把分片方设为 FSDP2 再规划。";
    // [`Refusal::OptimizerOnlyOffload`]; each `{}`: the framework.
    optimizer_only_offload: &'static str = "{} offloads with FSDP2's CPUOffloadPolicy, which moves parameters, gradients and optimizer states together: choose offload=all, or DeepSpeed.", "{} 用 FSDP2 的 CPUOffloadPolicy 卸载，参数、梯度和优化器状态一起移走：请选“全部卸载”，或改用 DeepSpeed。";
    // [`Refusal::ParameterOffload`]; each `{}`: the framework.
    parameter_offload: &'static str = "{} offloads the optimizer only (--optimizer-cpu-offload), not the parameters: choose offload=optimizer, or DeepSpeed's ZeRO-3.", "{} 只能卸载优化器（--optimizer-cpu-offload），不能卸载参数：请选“卸载优化器”，或用 DeepSpeed ZeRO-3。";
    // [`Refusal::NvmeOffload`]; each `{}`: the framework.
    nvme_offload: &'static str = "Only DeepSpeed (ZeRO-Infinity) offloads to NVMe; {} offloads to CPU memory.", "只有 DeepSpeed（ZeRO-Infinity）能卸载到 NVMe；{} 只能卸载到 CPU 内存。";
    // [`Refusal::Precision`]; each `{}`: the framework.
    precision: &'static str = "{} does not train in this precision or FP8 recipe as the figures count it: choose another precision, or another framework.", "{} 不支持按这里的数字所计的这种精度或 FP8 方案：请换一种精度或换一个框架。";
    // [`Refusal::Optimizer`]; each `{}`: the framework.
    optimizer: &'static str = "{} does not build this optimizer: Megatron-LM has Adam and SGD, torchtitan and LitGPT's command AdamW, DeepSpeed's JSON no 8-bit Adam (pass bitsandbytes' as the client optimizer).", "{} 不提供这个优化器：Megatron-LM 只有 Adam 与 SGD，torchtitan 与 LitGPT 的命令只有 AdamW，DeepSpeed 的 JSON 没有 8-bit Adam（可把 bitsandbytes 的优化器作为客户端优化器传入）。";
    // [`Refusal::Adapters`]; each `{}`: the framework.
    adapters: &'static str = "{} does not train these adapters as planned (a 4-bit base, DoRA or adapters at all): copy it as accelerate (PEFT).", "{} 无法按此规划训练这些适配器（4 位基座、DoRA 或适配器本身）：请导出为 accelerate（PEFT）。";
    // [`Refusal::Autocast`]; each `{}`: the framework.
    autocast: &'static str = "{}'s configuration has no autocast over fp32 weights: turn autocast off, or copy it as accelerate.", "{} 的配置无法表达 fp32 权重上的 autocast：请关闭 autocast，或导出为 accelerate。";
    // [`Refusal::ShardGroup`]; each `{}`: the framework.
    shard_group: &'static str = "{} cannot shard in groups with this strategy: HSDP is FSDP2's, Megatron-LM's is its distributed optimizer's; DeepSpeed's JSON no longer has one.", "{} 在这个策略下不能分组分片：HSDP 属于 FSDP2，Megatron-LM 的分组属于分布式优化器；DeepSpeed 的 JSON 已不再支持。";
    recomputation_modules: &'static str = "{} recomputes selectively per op (recompute_modules=op) or per layer: Megatron-LM's modules have no counterpart in it.", "{} 的选择性重计算是逐算子（recompute_modules=op）或逐层：Megatron-LM 的模块在其中没有对应项。";
    recomputation_per_op: &'static str = "{} has no per-op recomputation: op is torchtitan's policy.", "{} 没有逐算子重计算：op 是 torchtitan 的策略。";
    accounting_litgpt: &'static str = "{} runs its own model: its figures are LitGPT's accounting (Activations counted as: LitGPT).", "{} 运行它自己的模型：对应的数字是 LitGPT 口径（激活值口径：LitGPT）。";
    quantized_multi_gpu: &'static str = "{} quantises on one GPU only (\"Quantization is currently not supported for multi-GPU training\"): choose 1 GPU, or LoRA.", "{} 只在单卡上量化（“Quantization is currently not supported for multi-GPU training”）：请选 1 张 GPU，或改用 LoRA。";
    recomputation_litgpt: &'static str = "{} checkpoints every block when it shards over several GPUs and none on one: choose full recomputation with more GPUs, none on one.", "{} 多卡分片时对每个 Block 做检查点，单卡时不做：多卡请选完全重计算，单卡请选不重计算。";
    chunked_output_loss: &'static str = "{} computes the loss over the whole logits: the chunked output loss counted here is torchtune's CEWithChunkedOutputLoss, and the page writes no torchtune recipe.", "{} 在完整的 logits 上计算损失：这里计入的分块输出损失是 torchtune 的 CEWithChunkedOutputLoss，而本页不生成 torchtune 的配置。";
    compiled_loss: &'static str = "{} does not compile its loss: the loss counted here is PyTorch's under torch.compile (torchtitan's [compile] with the loss), which keeps only the 16-bit logits; choose fused for its own.", "{} 不编译损失：这里计入的是 torch.compile 下的 PyTorch 损失（torchtitan 的 [compile] 含 loss），只保留 16 位 logits；请选 fused 按其自身计算。";
    chunked_loss: &'static str = "{} computes the loss over the whole logits: the chunked loss counted here is torchtitan 0.3.0's ChunkedLossWrapper, set in its Python configs, which the page does not write (its torchtitan text is the TOML of 0.2.2, which has none).", "{} 在完整的 logits 上计算损失：这里计入的分块损失是 torchtitan 0.3.0 的 ChunkedLossWrapper，设在其 Python 配置中，本页不生成这种配置（本页的 torchtitan 文本是 0.2.2 的 TOML，其中没有分块损失）。";
    // [`Refusal::Architecture`]; each `{}`: the framework.
    architecture: &'static str = "{}'s arguments cannot express a part of this architecture: its export would train another model.", "{} 的参数无法表达这种结构的某一部分：导出的配置会训练另一个模型。";
    // [`Refusal::Algorithm`]; each `{}`: the framework.
    algorithm: &'static str = "{} does not run this algorithm here: TRL's PPO trainer is experimental (trl.experimental) and TRL trains no critic beside GRPO; copy it as verl or OpenRLHF.", "{} 不支持这个算法：TRL 的 PPO 仍在 trl.experimental 中，GRPO 也不训练 critic；请导出为 verl 或 OpenRLHF。";
    // [`Refusal::OtherEngine`]; each `{}`: the framework.
    other_engine: &'static str = "The deployment is planned for another engine: set the engine to {} for its figures and its command.", "当前部署按另一个推理引擎计算：请把引擎设为 {}，得到它的数字和命令。";
    // [`Refusal::Dpo`]; each `{}`: the framework.
    dpo: &'static str = "{}'s main_ppo trains from rollouts only, not DPO: copy it as OpenRLHF or TRL.", "{} 的 main_ppo 只从 rollout 训练，不做 DPO：请导出为 OpenRLHF 或 TRL。";
    // verl refuses distillation: it serves the teacher apart; `{}` the framework.
    distillation_apart: &'static str = "{} serves the teacher from an inference pool of its own (distillation.*, returning top-k log-probs), not held in the trainer as this plan counts it: copy it as TRL.", "{} 的教师模型由独立的推理资源池提供（distillation.*，返回 top-k log-prob），不像本方案那样放在训练进程里：请导出为 TRL。";
    // OpenRLHF refuses distillation: its trainer was removed; `{}` the framework.
    distillation_removed: &'static str = "{} removed its knowledge-distillation trainer in v0.10 (train_kd ran up to v0.9.5): copy it as TRL.", "{} 在 v0.10 移除了知识蒸馏训练器（train_kd 只到 v0.9.5）：请导出为 TRL。";
    // [`Refusal::SplitPlacement`]; each `{}`: the framework.
    split_placement: &'static str = "{} gives the rollout GPUs of its own only off-policy (its one-step-off and fully asynchronous trainers), not in main_ppo's synchronous step: copy it as OpenRLHF or TRL.", "{} 只在异步（one-step-off、fully async）训练中让 rollout 独占 GPU，main_ppo 的同步步骤不支持：请导出为 OpenRLHF 或 TRL。";
    // [`Refusal::SplitValueModels`]; each `{}`: the framework.
    split_value_models: &'static str = "With the rollout on GPUs of its own, {} places the critic and the reward model on GPUs of their own too (only --train.colocate_all puts them with the actor), where this plan counts them beside the actor: colocate the rollout, or leave them out.", "rollout 独占 GPU 时，{} 也让 critic 与奖励模型各占独立的 GPU（只有 --train.colocate_all 才与 actor 同卡），而本方案把它们算在 actor 旁边：请让 rollout 同卡，或不用它们。";
    // What nvidia-smi will show: the strategy, the total, the peak, the CUDA
    // context, NCCL's buffers, their communicators and the word for them,
    // cuBLAS's workspace, the allocator's slack, its percentage of the peak,
    // where the slack comes from, and the verdict.
    process_line: &'static str = "What nvidia-smi will show ({}): about {}: the peak {}, and beside it the CUDA context {}, NCCL's buffers {} ({} {}), cuBLAS's workspace {}, the caching allocator's slack {} ({} % of the peak{}). {}", "nvidia-smi 将显示（{}）：约 {}：峰值 {}，另有 CUDA 上下文 {}、NCCL 缓冲 {}（{} {}）、cuBLAS 工作区 {}、缓存分配器余量 {}（峰值的 {} %{}）。{}";
    // One communicator, and more.
    communicators: [&'static str; 2] = ["communicator", "communicators"], ["个通信组", "个通信组"];
    // The slack: as measured, with expandable segments, or assumed without them.
    slack_sources: [&'static str; 3] = [", as measured", ", with expandable_segments", "; about 5 % with expandable_segments"], ["，实测值", "，已开启 expandable_segments", "；开启 expandable_segments 约 5 %"];
    // The peak does not fit; what the share held back covers; what it does not.
    process_verdicts: [&'static str; 3] = ["The peak alone does not fit.", "The share held back covers them.", "They exceed the share held back."], ["峰值本身已放不下。", "预留的份额足以容纳这些开销。", "这些开销超出了预留的份额。"];
    // Host RAM while the checkpoint loads: per node, the file mapped, the
    // processes' own copies, why, and past the node's host memory.
    loading_line: &'static str = "Loading the checkpoint (16-bit safetensors, transformers 5): about {} of host RAM per node: the file mapped once {} (page cache, shared by the node's processes){} ({}).{}", "加载检查点（16 位 safetensors，transformers 5）时每节点主机内存约 {}：映射的文件 {}（页缓存，节点内进程共享）{}（{}）。{}";
    // No copies of the processes' own.
    loading_no_private: &'static str = "", "，无私有副本";
    // The processes' own copies.
    loading_private: &'static str = " and {} of their own copies", "，进程私有副本 {}";
    // More than the node's host memory.
    loading_over: &'static str = " More than the node's {} of host memory.", " 超出每节点 {} 的主机内存。";
    // Why, by the loader: one shared file, fp32 copies, ZeRO-3's zero.Init,
    // FSDP2's RAM-efficient loading, a distributed checkpoint.
    loaders: [&'static str; 5] = ["every process maps the same file and copies none of it", "each process casts the weights to fp32, a copy each", "under ZeRO-3's zero.Init each process builds only its partition", "FSDP2's cpu_ram_efficient_loading: rank 0's fp32 trainable weights, and the 16-bit copies transformers 5 fills with zeros on the other ranks", "a distributed checkpoint: each rank reads only its shards"], ["各进程映射同一文件，不另行复制", "每个进程把权重转成 fp32，各自一份", "ZeRO-3 的 zero.Init 下每个进程只建自己的分片", "FSDP2 的 cpu_ram_efficient_loading：rank 0 的 fp32 可训练权重，以及 transformers 5 在其余进程上填零的 16 位副本", "分布式检查点：每个进程只读自己的分片"];
}

/// The words in `lang` that only the lazily loaded module shows (the ranked
/// plans, the `config.json` reader's answer, Megatron-LM's printout), so they
/// are not part of the page's first view.
pub fn lazy_of(lang: Lang) -> &'static LazyText {
    match lang {
        Lang::Zh => &LAZY_ZH,
        _ => &LAZY_EN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries that read the same in both languages: units, names and code.
    const SAME_IN_BOTH: &[&str] = &[
        "unit_gb",
        "log_kinds",
        "engine",
        "rl_framework",
        "serve_col_kv",
        "sharding",
        "unit_percent",
        "label_flash",
        "unit_bandwidth",
        "unit_tflops",
        "megatron_printed",
        "lang",
    ];

    /// Entries that one language leaves empty: Chinese has no plural ending.
    const EMPTY_IN_ONE: &[&str] = &["plural_s", "subtitle", "word_space", "loading_no_private"];

    /// Issue 41, failure 6: a link's problem names the key the link wrote,
    /// the other field it conflicts with and the value used instead, in
    /// both languages.
    #[test]
    fn a_link_problem_names_the_key_written_and_the_field_it_breaks() {
        let decoded = vram_core::input::link::decode("?model=qwen3-0.6b&hidden=1");
        let problem = &decoded.problems[0];
        let en = link_problem(&EN, problem);
        assert!(en.starts_with("“hidden=1”: Model size: "), "{en}");
        assert!(en.ends_with("The default, 1024, is used."), "{en}");
        let zh = link_problem(&ZH, problem);
        assert!(zh.starts_with("“hidden=1”：模型规模："), "{zh}");
        assert!(zh.ends_with("已改用默认值 1024。"), "{zh}");
    }

    /// Issue 47, item 6: the reserve looked counted twice. With a model the
    /// activations have their own column, and the reserve's hint says what it
    /// is then for, in both languages.
    #[test]
    fn the_reserve_says_what_it_holds_once_activations_are_counted() {
        for (t, activations_column, what) in [
            (&EN, "activations have their own column", "CUDA context"),
            (&ZH, "激活值单独成列", "CUDA 上下文"),
        ] {
            let hint = field_text(t, Field::Overhead).hint.unwrap();
            assert!(hint.contains(activations_column), "{hint}");
            assert!(hint.contains(what), "{hint}");
        }
    }

    #[test]
    fn every_string_is_translated() {
        let en = EN
            .entries()
            .into_iter()
            .chain(LAZY_EN.entries())
            .chain(LAUNCH_EN.entries())
            .chain(CLI_EN.entries());
        let zh: Vec<_> = ZH
            .entries()
            .into_iter()
            .chain(LAZY_ZH.entries())
            .chain(LAUNCH_ZH.entries())
            .chain(CLI_ZH.entries())
            .collect();
        let en: Vec<_> = en.collect();
        assert_eq!(en.len(), zh.len());
        for ((name, english), (_, chinese)) in en.iter().zip(&zh) {
            for (e, c) in english.iter().zip(chinese) {
                assert!(
                    EMPTY_IN_ONE.contains(name) || !e.trim().is_empty() && !c.trim().is_empty(),
                    "{name} is empty"
                );
                assert_eq!(
                    e.matches("{}").count(),
                    c.matches("{}").count(),
                    "{name}: both must take the same figures"
                );
            }
            if !SAME_IN_BOTH.contains(name) {
                assert_ne!(english, chinese, "{name} is not translated");
            }
        }
    }

    /// Chinese reads as Chinese: punctuation that touches a Chinese character
    /// is full-width (，。：；？！（）), so "(Llama 2 7B)" after Chinese text
    /// is "（Llama 2 7B）"; formulas between Latin text keep their ASCII.
    #[test]
    fn chinese_punctuation_is_full_width() {
        let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
        let mut wrong = Vec::new();
        for (name, strings) in ZH
            .entries()
            .into_iter()
            .chain(LAZY_ZH.entries())
            .chain(LAUNCH_ZH.entries())
            .chain(CLI_ZH.entries())
        {
            for text in strings {
                let chars: Vec<char> = text.chars().collect();
                for (i, &c) in chars.iter().enumerate() {
                    if !",.:;?!()".contains(c) {
                        continue;
                    }
                    // A decimal point or a path is not punctuation.
                    let before = i.checked_sub(1).map(|j| chars[j]);
                    let after = chars.get(i + 1).copied();
                    let touches = before.is_some_and(cjk) || after.is_some_and(cjk);
                    // "(" opening before Chinese, or ")" closing after it, with a space between.
                    let spaced = (c == '('
                        && chars
                            .get(i + 1..i + 3)
                            .is_some_and(|w| w[0] == ' ' && cjk(w[1])))
                        || (c == ')' && i >= 2 && chars[i - 1] == ' ' && cjk(chars[i - 2]));
                    if touches || spaced {
                        wrong.push(format!("{name}: {c:?} in {text:?}"));
                    }
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "half-width punctuation in Chinese:\n{}",
            wrong.join("\n")
        );
    }

    /// The lists of choices are in the order of the core's lists, whose English
    /// names they repeat: a list out of order would label one choice as another.
    #[test]
    fn choice_labels_follow_the_cores_order() {
        use vram_core::format::{MemoryUnit, Theme};
        use vram_core::memory::activations::Recompute;
        use vram_core::model::architecture::Mlp;
        use vram_core::{GradientPrecision, Optimizer, Precision};
        assert_eq!(EN.precision, Precision::ALL.map(Precision::label));
        assert_eq!(
            EN.gradients,
            GradientPrecision::ALL.map(GradientPrecision::label)
        );
        assert_eq!(EN.optimizer, Optimizer::ALL.map(Optimizer::label));
        assert_eq!(EN.mlp, Mlp::ALL.map(Mlp::label));
        assert_eq!(EN.recompute, Recompute::ALL.map(Recompute::label));
        assert_eq!(EN.unit, MemoryUnit::ALL.map(MemoryUnit::label));
        assert_eq!(EN.theme, Theme::ALL.map(Theme::label));
        assert_eq!(EN.lang.len(), vram_core::format::Lang::ALL.len());
        assert_eq!(EN.accounting.len(), vram_core::Accounting::ALL.len());
        assert_eq!(EN.offload.len(), vram_core::Offload::ALL.len());
        assert_eq!(EN.offload_to.len(), vram_core::OffloadDevice::ALL.len());
        assert_eq!(EN.sharding.len(), vram_core::Sharding::ALL.len());
    }

    /// Every choice field has a word for each of its options, in both languages,
    /// and every field a label.
    #[test]
    fn every_field_has_its_words() {
        use vram_core::input::form::options;
        for t in [&EN, &ZH] {
            for field in Field::ALL {
                assert!(!field_text(t, field).label.is_empty(), "{field:?}");
                if !field.is_number() {
                    assert_eq!(
                        choice_labels(t, field).len(),
                        options(field).len(),
                        "{field:?}"
                    );
                }
            }
        }
        // The flags' words follow their keys, "0" then "1".
        assert_eq!(options(Field::Flash), ["0", "1"]);
        assert_eq!(choice_labels(&EN, Field::Flash), [EN.no, EN.yes]);
    }

    #[test]
    fn templates_fill_in_order() {
        assert_eq!(fill("{} to {}.", &["1", "2"]), "1 to 2.");
        assert_eq!(fill("no slots", &["x"]), "no slots");
        assert_eq!(fill("{} and {}", &["only"]), "only and ");
    }
}
