//! The words only `vram` and its static view say, in both languages: the
//! training table's lines around the page's table and notes, the ranked
//! plans' table, what a `config.json` gave, a deployment's and an RL run's
//! heading, and the command line's own refusals. A table of its own, as
//! [`super::LazyText`] is, so that the page's first view never carries them.

use super::*;

texts! {
    CliText, CLI_EN, CLI_ZH;
    // The training table's first line: the parameters, the precision, the
    // optimizer, the GPUs and their plural ending, each GPU's memory, the
    // share reserved, the CUDA context ([`CliText::budget_context`] or
    // nothing) and the memory usable per GPU.
    budget: &'static str = "{} parameters, {}, {}, {} GPU{} of {}, {} reserved{}: {} usable per GPU",
        "{} 参数，{}，{}，{} 张 GPU{}（每张 {}），预留 {}{}：每张 GPU 可用 {}";
    budget_context: &'static str = " and {} of CUDA context", "，CUDA 上下文 {}";
    // Activations per GPU: in all, per layer, outside the layers, the
    // tokens, the sequences, the recomputation (Megatron-LM's words) and
    // FlashAttention ([`CliText::off_on`]).
    activations: &'static str = "Activations per GPU: {} ({} per layer, {} outside the layers): {} tokens x {} sequences, recompute {}, FlashAttention {}.",
        "每张 GPU 的激活值 {}（每层 {}，层外 {}）：{} 词元 × {} 条序列，重计算 {}，FlashAttention {}。";
    off_on: [&'static str; 2] = ["off", "on"], ["关", "开"];
    // The highlighted strategy's step: the strategy, its peak, the moment of
    // the peak, what is kept, and each moment with its bytes.
    step_peak: &'static str = "Peak of the step ({}): {} at {}; kept {}; {}.",
        "单步峰值（{}）：{}，出现在{}；保存总量 {}；{}。";
    // Between the items of a list.
    comma: &'static str = ", ", "，";
    // What `--import FILE` read: the file, then what it read and the key
    // each became; what has no bearing on the figures; what was not read.
    // `--log FILE` holding nothing, or nothing a reader knows.
    log_empty: &'static str = "--log {}: empty", "--log {}：内容为空";
    log_unknown: &'static str = "--log {}: no line of a log read here (vLLM's or SGLang's start-up, Megatron-LM's or DeepSpeed's memory, verl's metrics, PyTorch's peaks, nvidia-smi)", "--log {}：没有可读取的日志行（vLLM 或 SGLang 的启动日志、Megatron-LM 或 DeepSpeed 的显存行、verl 的指标、PyTorch 的峰值、nvidia-smi）";
    import_read: &'static str = "--import {}: read {}", "--import {}：已读取 {}";
    import_ignored: &'static str = "--import {}: no bearing on the figures: {}", "--import {}：与数字无关：{}";
    import_unread: &'static str = "--import {}: not read: {}", "--import {}：未能读取：{}";
    import_empty: &'static str = "--import {}: no command in it", "--import {}：其中没有命令";
    import_unknown: &'static str = "--import {}: not a command read here (vllm serve, python3 -m sglang.launch_server, python3 -m verl.trainer.main_ppo, python3 -m openrlhf.cli.train_ppo_ray, deepspeed --module openrlhf.cli.train_dpo, a DeepSpeed JSON, Megatron-LM's pretrain_gpt.py arguments, a torchtitan job TOML, an accelerate YAML or TrainingArguments, TRL's GRPOConfig, DPOConfig or DistillationConfig)", "--import {}：不是可读取的命令（vllm serve、python3 -m sglang.launch_server、python3 -m verl.trainer.main_ppo、python3 -m openrlhf.cli.train_ppo_ray、deepspeed --module openrlhf.cli.train_dpo、DeepSpeed 的 JSON 配置、Megatron-LM 的 pretrain_gpt.py 参数、torchtitan 的任务 TOML、accelerate 的 YAML 或 TrainingArguments、TRL 的 GRPOConfig、DPOConfig 或 DistillationConfig）";
    // A mixture of experts: its parameters, those active per token, the
    // experts per token, the routed experts and the shared ones.
    moe: &'static str = "Mixture of experts: {} parameters in memory, {} active per token ({} of {} routed experts{}).",
        "混合专家：显存中 {} 个参数，每个词元激活 {} 个（每个词元 {} 个，共 {} 个路由专家{}）。";
    moe_shared: &'static str = ", {} shared", "，另有 {} 个共享专家";
    // What Megatron-LM would print without and with its distributed
    // optimizer, the page's DDP and ZeRO-1, and its activations' formula
    // ([`CliText::megatron_activations`]).
    megatron: &'static str = "Megatron-LM (d98e8a6, theoretical_memory_usage.py) would print, MB = 2^20 bytes: DDP (no distributed optimizer) {}; ZeRO-1 (its distributed optimizer) {}. The page: DDP {}, ZeRO-1 {} per GPU. Megatron counts 18 B per parameter (bf16 weights, fp32 main gradients, weights and Adam moments; 6 + 12/DP distributed), its first pipeline stage's activations with Table 2's h-wide constants ({}), not the head size, experts or the step's peak.",
        "Megatron-LM（d98e8a6，theoretical_memory_usage.py）会打印（MB = 2^20 字节）：DDP（无分布式优化器）{}；ZeRO-1（其分布式优化器）{}。本页：每张 GPU 上 DDP {}，ZeRO-1 {}。Megatron 按每参数 18 B 计（bf16 权重、fp32 主梯度、权重与 Adam 动量；分布式时 6 + 12/DP），激活值按第一级流水线、用表 2 中以 h 为宽度的常数计（{}），不计头维度、专家与单步峰值。";
    // With sequence parallelism, and without.
    megatron_activations: [&'static str; 2] = ["SP with selective recomputation: (18 + 4·ffn/h)·sbh per layer ÷ TP", "without SP: (10 + 24/TP)·sbh per layer, 5 % added"],
        ["SP 加选择性重计算：每层 (18 + 4·ffn/h)·sbh ÷ TP", "无 SP：每层 (10 + 24/TP)·sbh，另加 5 %"];
    deepspeed_accounting: &'static str = "Accounting: DeepSpeed's estimator for ZeRO-1/2/3 (mixed precision, Adam); it prints GiB and labels them GB.",
        "口径：DeepSpeed 对 ZeRO-1/2/3 的估算器（混合精度、Adam）；它输出的是 GiB，却标为 GB。";
    // The table's last line: the highlighted strategy, what the fit is
    // judged on ([`CliText::judged_on`]) and the unit ([`CliText::units`]).
    footer: &'static str = "* highlighted ({}). Fits: {} per GPU <= usable memory. {}.",
        "* 为高亮的策略（{}）。放得下：每张 GPU 的{} <= 可用显存。{}。";
    // Without a model's activations, and with them.
    judged_on: [&'static str; 2] = ["total", "the step's peak"], ["合计", "单步峰值"];
    units: [&'static str; 2] = ["GB = 10^9 bytes", "GiB = 2^30 bytes"], ["GB = 10^9 字节", "GiB = 2^30 字节"];
    // What `--config` read: its model type and the keys with their values.
    config_read: &'static str = "config.json ({}): read {}.", "config.json（{}）：读取了 {}。";
    config_assumed: &'static str = "config.json: assumed (absent) {}.", "config.json：未给出，按默认值 {}。";
    config_not_understood: &'static str = "config.json: not understood, may change the count: {}.",
        "config.json：未能理解，可能影响参数量：{}。";
    // Its multi-token-prediction layers and their parameters.
    config_mtp: &'static str = "config.json: {} multi-token-prediction layer(s), {} parameters as the checkpoint stores them, counted apart.",
        "config.json：{} 个多词元预测（MTP）层，按检查点存储共 {} 个参数，单独计算。";
    // `--plans` or `--fixes` under `job=rl`.
    rl_no_plans: &'static str = "--plans and --fixes: ranked layouts and fixes are training's and serving's; under job=rl, vary the rollout and the actor's keys",
        "--plans 与 --fixes：布局排名和修改建议属于训练与推理部署；job=rl 下请调整 rollout 与 actor 的参数";
    // `--fixes` under `job=serve`.
    serve_no_fixes: &'static str = "--fixes: what would make it fit is training's (job=train); under job=serve, --plans ranks the layouts that run it",
        "--fixes：“怎样才能放得下”属于训练（job=train）；job=serve 下用 --plans 排出能运行的布局";
    // A deployment: the model, the GPUs, the GPU, the replicas and their
    // plural ending, TP, PP, EP ([`CliText::serve_ep`] or nothing), the
    // engine, its release, the weights' format and the KV cache's type.
    serve_heading: &'static str = "{} on {} × {}: {} replica{} of TP {} × PP {}{}, {} ({}), weights {}, KV cache {}",
        "{}，{} × {}：{} 个副本{}，每个 TP {} × PP {}{}，{}（{}），权重 {}，KV 缓存 {}";
    serve_ep: &'static str = ", EP {}", "，EP {}";
    // An engine's warning, in the terminal.
    warning: &'static str = "warning: {}", "注意：{}";
    // An RL run: the algorithm, the model, the GPUs and the GPU.
    rl_heading: &'static str = "{} of {} on {} × {}", "{} 后训练 {}，{} × {}";
    // A heading's model when none is chosen.
    a_model: &'static str = "a model", "未指定的模型";
    // A preset whose architecture was edited, by the preset's name.
    custom_model: &'static str = "a custom model (from {})", "自定义模型（基于 {}）";
    // The ranked plans when there are none, and why.
    plans_none: &'static str = "Plans: none to rank. {}", "方案：没有可排名的。{}";
    // The plans that fit, the plans found, which are listed
    // ([`CliText::plans_listed`]) and how they are ranked.
    plans_fit: &'static str = "Plans: {} of {} layouts fit{}. {}", "方案：{} 个布局放得下（共 {} 个）{}。{}";
    // Some fit, and none does.
    plans_listed: [&'static str; 2] = ["; the fastest are listed", "; the closest are listed"],
        ["；列出最快的", "；列出最接近的"];
    plans_partial: &'static str = "The cluster has very many layouts: the {} simplest of {} were searched ({} evaluations).",
        "集群的布局太多：只搜索了最简单的 {} 个（共 {} 个，评估 {} 次）。";
    plans_columns: [&'static str; 17] = ["#", "TP", "PP", "VPP", "CP", "SP", "EP", "DP", "Strategy", "Recompute", "Offload", "mbs", "m", "Peak per GPU", "Fits", "Step", "Tokens/s/GPU"],
        ["#", "TP", "PP", "VPP", "CP", "SP", "EP", "DP", "策略", "重计算", "卸载", "mbs", "m", "每卡峰值", "放得下", "单步", "每卡 token/秒"];
    plans_first: &'static str = "The first as a link: ?{}", "第一个方案的链接：?{}";
}

/// The words of `lang` that only `vram` and its static view say.
pub fn cli_of(lang: Lang) -> &'static CliText {
    match lang {
        Lang::Zh => &CLI_ZH,
        _ => &CLI_EN,
    }
}
