//! What a run printed, read back (issue 66): the memory lines of vLLM's
//! and SGLang's start-up, Megatron-LM's and DeepSpeed's memory reports,
//! verl's metrics, PyTorch's peaks and `nvidia-smi`'s table, each figure in
//! bytes (or a count) as the tool meant it — vLLM's and SGLang's "GB" are
//! GiB (both divide by 2³⁰), Megatron-LM's "MB" MiB, DeepSpeed's
//! `see_memory_usage` "GB" GiB, verl's `_gb` GiB, `nvidia-smi`'s MiB —
//! with the settings a vLLM log states (its non-default arguments) as the
//! link's keys, and [`compare`] puts each figure beside the page's own.
//! Nothing of a log but these numbers and keys is kept: paths, host names
//! and tokens never reach a link.

use vram_core::config::Config;

/// The tool whose log was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// vLLM's start-up (V0's profiling line or V1's).
    Vllm,
    /// SGLang's start-up.
    Sglang,
    /// Megatron-LM's `[Rank N] (after K iterations) memory (MB)` line.
    Megatron,
    /// DeepSpeed's `see_memory_usage` (`MA … Max_MA … CA … Max_CA …`).
    DeepSpeed,
    /// verl's metrics (`perf/max_memory_allocated_gb`, …).
    Verl,
    /// PyTorch's `torch.cuda.max_memory_allocated/reserved` printed.
    Torch,
    /// `nvidia-smi`'s table.
    NvidiaSmi,
}

/// A figure a log gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// The weights loaded on a GPU, bytes.
    Weights,
    /// The activation peak the engine profiled, bytes.
    ActivationPeak,
    /// Memory outside PyTorch's allocator, bytes.
    NonTorch,
    /// The CUDA graphs' pool, bytes.
    CudaGraphs,
    /// The KV cache's budget on a GPU, bytes.
    KvBudget,
    /// Tokens the KV cache holds (a count).
    KvTokens,
    /// Sequences of `max_model_len` at once (a count).
    Concurrency,
    /// PyTorch's peak allocated, bytes.
    MaxAllocated,
    /// PyTorch's peak reserved, bytes.
    MaxReserved,
    /// What `nvidia-smi` shows used on the busiest GPU, bytes.
    GpuUsed,
    /// The KV cache's blocks (a count; vLLM before 0.7.3 logged them, not
    /// the tokens).
    KvBlocks,
}

impl Term {
    /// Whether the figure is bytes (else a count).
    pub const fn is_bytes(self) -> bool {
        !matches!(self, Term::KvTokens | Term::Concurrency | Term::KvBlocks)
    }
}

/// One figure read: its term, its value (bytes or a count), and the line
/// (1-based) it was read from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Logged {
    /// What the figure is.
    pub term: Term,
    /// Bytes, or a count.
    pub value: f64,
    /// The line it was read from, 1-based.
    pub line: usize,
}

/// A log read.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// The tool.
    pub kind: LogKind,
    /// Each figure, the last of a term kept (the latest a run printed).
    pub figures: Vec<Logged>,
    /// The link's keys the log states (vLLM's non-default arguments).
    pub keys: Vec<(&'static str, String)>,
    /// The engine's release, when the log names it (`v0.8.3`).
    pub version: Option<String>,
}

/// Why nothing could be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogError {
    /// The text is empty.
    Empty,
    /// No line of a tool this reader knows.
    NothingRecognised,
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: f64 = (1u64 << 20) as f64;

/// Reads `text`, a log (10 MB at most are read; past that the rest is
/// passed over).
pub fn read_log(text: &str) -> Result<Log, LogError> {
    let text = &text[..floor_char_boundary(text, 10_000_000)];
    if text.trim().is_empty() {
        return Err(LogError::Empty);
    }
    let mut log = Log {
        kind: LogKind::Torch,
        figures: Vec::new(),
        keys: Vec::new(),
        version: None,
    };
    let mut kinds: Vec<LogKind> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        // A settings line hard-wrapped where it was published: joined to
        // its closing bracket.
        let joined;
        let line = match (
            line.contains("non-default args: {") && !line.contains('}'),
            line,
        ) {
            (true, first) => {
                let rest: Vec<&str> = lines[n + 1..]
                    .iter()
                    .take(40)
                    .scan(false, |closed, l| {
                        (!*closed).then(|| {
                            *closed = l.contains('}');
                            *l
                        })
                    })
                    .collect();
                joined = format!("{first}{}", rest.join(""));
                joined.as_str()
            }
            (false, line) => line,
        };
        let before = log.figures.len();
        let kind = read_line(line, n + 1, &mut log);
        if let Some(kind) =
            kind.filter(|_| log.figures.len() > before || kind == Some(LogKind::Vllm))
        {
            kinds.push(kind);
        }
    }
    if log.figures.is_empty() {
        return Err(LogError::NothingRecognised);
    }
    // The tool most lines were of.
    log.kind = [
        LogKind::Vllm,
        LogKind::Sglang,
        LogKind::Megatron,
        LogKind::DeepSpeed,
        LogKind::Verl,
        LogKind::NvidiaSmi,
        LogKind::Torch,
    ]
    .into_iter()
    .max_by_key(|k| kinds.iter().filter(|x| *x == k).count())
    .unwrap_or(LogKind::Torch);
    // The latest figure of each term; of a peak, the largest (the busiest
    // rank, the run's peak).
    let mut latest: Vec<Logged> = Vec::new();
    for figure in log.figures.iter().rev() {
        let peak = matches!(
            figure.term,
            Term::MaxAllocated | Term::MaxReserved | Term::GpuUsed
        );
        match latest.iter_mut().find(|f| f.term == figure.term) {
            None => latest.push(*figure),
            Some(kept) if peak && figure.value > kept.value => *kept = *figure,
            Some(_) => {}
        }
    }
    latest.reverse();
    log.figures = latest;
    Ok(log)
}

/// The largest char boundary at or below `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The number right after `label` in `line` (commas of thousands allowed),
/// and the unit word after it.
fn number_after<'a>(line: &'a str, label: &str) -> Option<(f64, &'a str)> {
    let at = line.find(label)? + label.len();
    let rest = line[at..].trim_start_matches([' ', '\t', ':', '=', '(']);
    // numpy's scalars as verl prints them: `np.float64(20.76)`.
    let rest = rest.strip_prefix("np.float64(").unwrap_or(rest);
    let digits = rest.strip_prefix('-').unwrap_or(rest);
    let end = rest.len() - digits.len()
        + digits
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(digits.len());
    let value: f64 = rest[..end].replace(',', "").parse().ok()?;
    let unit = rest[end..]
        .trim_start()
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or_default();
    value.is_finite().then_some((value, unit))
}

/// Bytes of `value` in `unit` as the tool printed it: `gib_for_gb` when the
/// tool's "GB" are GiB.
fn bytes(value: f64, unit: &str, gib_for_gb: bool) -> Option<f64> {
    Some(match unit {
        "GiB" => value * GIB,
        "GB" if gib_for_gb => value * GIB,
        "GB" => value * 1e9,
        "MiB" => value * MIB,
        "MB" if gib_for_gb => value * MIB,
        "MB" => value * 1e6,
        "B" | "bytes" => value,
        _ => return None,
    })
}

impl Log {
    /// A figure read on line `line`.
    fn add(&mut self, line: usize, term: Term, value: f64) {
        self.figures.push(Logged { term, value, line });
    }

    /// PyTorch's allocated and reserved peaks read on line `line`, where given.
    fn add_peaks(&mut self, line: usize, allocated: Option<f64>, reserved: Option<f64>) {
        for (term, value) in [
            (Term::MaxAllocated, allocated),
            (Term::MaxReserved, reserved),
        ] {
            if let Some(value) = value {
                self.add(line, term, value);
            }
        }
    }
}

/// The GiB after `label` in `line`, in bytes (the tools' "GB" being GiB).
fn gib_after(line: &str, label: &str) -> Option<f64> {
    number_after(line, label).and_then(|(v, u)| bytes(v, u, true))
}

/// One line: the tool it is of, its figures into `log`.
fn read_line(line: &str, n: usize, log: &mut Log) -> Option<LogKind> {
    // vLLM V1 (and V0's "Loading model weights took … GB", GiB).
    if line.contains("Model loading took") || line.contains("Loading model weights took") {
        let value = gib_after(line, "Model loading took")
            .or_else(|| gib_after(line, "Loading model weights took"))?;
        log.add(n, Term::Weights, value);
        return Some(LogKind::Vllm);
    }
    if line.contains("KV cache size:") && line.contains("tokens") {
        if let Some((tokens, _)) = number_after(line, "KV cache size:") {
            log.add(n, Term::KvTokens, tokens);
        }
        if let Some((x, _)) = line
            .find("tokens per request:")
            .and_then(|_| number_after(line, "tokens per request:"))
        {
            log.add(n, Term::Concurrency, x);
        }
        return Some(LogKind::Vllm);
    }
    // vLLM's lines that state one figure after their own words: in GiB,
    // or a count after the words that name it (after the KV cache's line,
    // which 0.33 prints with the concurrency on it).
    for (marker, term) in [
        ("Available KV cache memory", Term::KvBudget),
        ("Estimated CUDA graph memory", Term::CudaGraphs),
    ] {
        if line.contains(marker) {
            log.add(n, term, gib_after(line, marker)?);
            return Some(LogKind::Vllm);
        }
    }
    for (marker, term, before) in [
        ("# GPU blocks:", Term::KvBlocks, "# GPU blocks:"),
        (
            "Maximum concurrency for",
            Term::Concurrency,
            "tokens per request:",
        ),
    ] {
        if line.contains(marker) {
            log.add(n, term, number_after(line, before)?.0);
            return Some(LogKind::Vllm);
        }
    }
    if line.contains("Graph capturing finished") {
        log.add(n, Term::CudaGraphs, gib_after(line, "took")?);
        return Some(LogKind::Vllm);
    }
    // vLLM V0's profiling summary, on one line or as a table of its own.
    let summary = [
        ("model weights take", Term::Weights),
        ("non_torch_memory", Term::NonTorch),
        ("activation peak memory", Term::ActivationPeak),
        ("reserved for KV Cache is", Term::KvBudget),
        ("available_kv_cache_memory", Term::KvBudget),
    ];
    if summary.iter().any(|(label, _)| line.contains(label)) {
        for (label, term) in summary {
            let takes = format!("{label} takes");
            if let Some(v) = gib_after(line, &takes).or_else(|| gib_after(line, label)) {
                log.add(n, term, v);
            }
        }
        return Some(LogKind::Vllm);
    }
    if line.contains("non-default args:")
        || (line.contains("Initializing a") && line.contains("LLM engine"))
    {
        settings(line, log);
        return Some(LogKind::Vllm);
    }
    read_other(line, n, log)
}

/// SGLang, Megatron-LM, DeepSpeed, verl, PyTorch and nvidia-smi lines.
fn read_other(line: &str, n: usize, log: &mut Log) -> Option<LogKind> {
    // SGLang: "Load weight end. … mem usage=14.99 GB", "KV Cache is
    // allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB",
    // "Capture cuda graph end. … mem usage=0.54 GB".
    if line.contains("Load weight end") {
        log.add(n, Term::Weights, gib_after(line, "mem usage")?);
        return Some(LogKind::Sglang);
    }
    if line.contains("KV Cache is allocated") {
        if let Some((tokens, _)) = number_after(line, "#tokens") {
            log.add(n, Term::KvTokens, tokens);
        }
        match (
            gib_after(line, "K size"),
            gib_after(line, "V size"),
            gib_after(line, "KV size"),
        ) {
            (Some(k), Some(v), _) => log.add(n, Term::KvBudget, k + v),
            // One pool for latent attention, and SGLang's newer line.
            (_, _, Some(kv)) => log.add(n, Term::KvBudget, kv),
            _ => {}
        }
        return Some(LogKind::Sglang);
    }
    if line.contains("Capture cuda graph end") {
        log.add(n, Term::CudaGraphs, gib_after(line, "mem usage")?);
        return Some(LogKind::Sglang);
    }
    // Megatron-LM: "memory (MB) | allocated: … | max allocated: … |
    // reserved: … | max reserved: …", MiB.
    if line.contains("memory (MB)") && line.contains("max allocated") {
        let mib = |label: &str| number_after(line, label).map(|(v, _)| v * MIB);
        log.add_peaks(n, mib("max allocated"), mib("max reserved"));
        return Some(LogKind::Megatron);
    }
    // DeepSpeed's see_memory_usage: "MA 12.55 GB Max_MA 13.71 GB CA 14.23
    // GB Max_CA 14 GB" (GiB).
    if line.contains("Max_MA") && line.contains("Max_CA") {
        log.add_peaks(n, gib_after(line, "Max_MA"), gib_after(line, "Max_CA"));
        return Some(LogKind::DeepSpeed);
    }
    // verl's metrics (GiB).
    if line.contains("perf/max_memory_allocated_gb") || line.contains("perf/max_memory_reserved_gb")
    {
        let value = |label: &str| number_after(line, label).map(|(v, _)| v * GIB);
        log.add_peaks(
            n,
            value("perf/max_memory_allocated_gb"),
            value("perf/max_memory_reserved_gb"),
        );
        return Some(LogKind::Verl);
    }
    // nvidia-smi: "|  71234MiB / 81559MiB |" on each GPU's row.
    if line.contains("MiB /") && line.matches("MiB").count() >= 2 {
        let before = &line[..line.find("MiB /")?];
        let used: f64 = before
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        // Every GPU's row; the busiest is kept (a peak).
        log.add(n, Term::GpuUsed, used * MIB);
        return Some(LogKind::NvidiaSmi);
    }
    // PyTorch's own, printed by a script: `max_memory_allocated` then a
    // number with its unit (GB taken as 10⁹ bytes: a script's own words).
    for (label, term) in [
        ("max_memory_allocated", Term::MaxAllocated),
        ("max_memory_reserved", Term::MaxReserved),
    ] {
        if let Some(at) = line.find(label) {
            let rest = &line[at + label.len()..];
            let rest = rest.trim_start_matches(|c: char| !c.is_ascii_digit());
            if let Some((v, unit)) = number_after(&format!("x {rest}"), "x") {
                let value = match unit {
                    "" => v,
                    unit => bytes(v, unit, false)?,
                };
                log.add(n, term, value);
                return Some(LogKind::Torch);
            }
        }
    }
    None
}

/// The link's keys a vLLM line states: its non-default arguments
/// (`{'model': '…', 'tensor_parallel_size': 2, …}`) or its engine's
/// configuration (`model='…', tensor_parallel_size=2, max_seq_len=…`),
/// and the release (`(v0.8.3)`).
fn settings(line: &str, log: &mut Log) {
    if let Some(at) = line.find("(v") {
        let version: String = line[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        if !version.is_empty() {
            log.version = Some(version.trim_end_matches('.').to_string());
        }
    }
    let value_of = |names: &[&str]| {
        names.iter().find_map(|name| {
            let quoted = format!("'{name}':");
            let plain = format!("{name}=");
            let at = line
                .find(&quoted)
                .map(|a| a + quoted.len())
                .or_else(|| line.find(&plain).map(|a| a + plain.len()))?;
            let rest = line[at..].trim_start();
            let end = rest.find([',', '}', ')']).unwrap_or(rest.len());
            Some(rest[..end].trim().trim_matches('\'').to_string())
        })
    };
    let mut key = |to: &'static str, names: &[&str]| {
        if let Some(v) = value_of(names).filter(|v| v.parse::<f64>().is_ok()) {
            log.keys.retain(|(k, _)| *k != to);
            log.keys.push((to, v));
        }
    };
    key("tp", &["tensor_parallel_size"]);
    key("pp", &["pipeline_parallel_size"]);
    key("max_len", &["max_model_len", "max_seq_len"]);
    key("gpu_util", &["gpu_memory_utilization"]);
    key("max_num_seqs", &["max_num_seqs"]);
    key("batched_tokens", &["max_num_batched_tokens"]);
    if let Some(model) = value_of(&["model"]) {
        if let Some(id) = crate::preset_of_repo(&model) {
            log.keys.retain(|(k, _)| *k != "model");
            log.keys.push(("model", id.into()));
        }
    }
    if let Some(kv) = value_of(&["kv_cache_dtype"]) {
        let dtype = if kv.starts_with("fp8") { "fp8" } else { "auto" };
        log.keys.retain(|(k, _)| *k != "kv_dtype");
        log.keys.push(("kv_dtype", dtype.into()));
    }
    if value_of(&["enforce_eager"]).as_deref() == Some("True") {
        log.keys.retain(|(k, _)| *k != "cuda_graphs");
        log.keys.push(("cuda_graphs", "0".into()));
    }
}

/// What an engine's start-up log measured, for the serving configuration
/// `config` it ran (`job=serve`, the log's settings applied): the weights
/// and the CUDA graphs as logged, and the rest it kept back beside them —
/// vLLM V0's activation peak and non-torch memory as logged, or V1's from
/// its KV budget: what the page's budget would be with the logged weights
/// and graphs, less the logged budget, added to the page's rest. `None`
/// for a log of no serving figure or a configuration with no report.
pub fn measured_of(config: &Config, log: &Log) -> Option<vram_core::serve::options::Measured> {
    use vram_core::serve::options::Measured;
    if !matches!(log.kind, LogKind::Vllm | LogKind::Sglang) {
        return None;
    }
    let figure = |term: Term| log.figures.iter().find(|f| f.term == term).map(|f| f.value);
    let logged = |term: Term| figure(term).map(|v| v.max(0.0).round() as u64);
    let layout = config.serve_report().ok()?.layout;
    let mut measured = Measured {
        weights: logged(Term::Weights),
        rest: None,
        cuda_graphs: logged(Term::CudaGraphs),
        tp: layout.tp,
        pp: layout.pp,
    };
    measured.rest = match (logged(Term::ActivationPeak), logged(Term::NonTorch)) {
        (Some(a), Some(n)) => Some(a + n),
        _ => match (log.kind, figure(Term::KvBudget)) {
            (LogKind::Vllm, Some(_)) => {
                let budget = figure(Term::KvBudget).unwrap_or(0.0);
                // Twice: a release's margin on the activation peak (vLLM
                // 0.34's) makes the budget not quite linear in the rest.
                let mut with = *config;
                with.serve.measured = Some(measured);
                let mut rest = None;
                for _ in 0..2 {
                    let report = with.serve_report().ok()?;
                    let ours = report.activation_peak_bytes + report.non_torch_bytes;
                    let left = report.kv_budget_bytes.unwrap_or(0);
                    // A negative budget (the engine does not start) counts too.
                    let next = ((ours + left) as f64 - budget).max(0.0).round() as u64;
                    rest = Some(next);
                    with.serve.measured = Some(Measured { rest, ..measured });
                }
                rest
            }
            _ => None,
        },
    };
    (measured.weights.is_some() || measured.rest.is_some() || measured.cuda_graphs.is_some())
        .then_some(measured)
}

/// A figure of the log beside the page's own for the same term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// What the figure is.
    pub term: Term,
    /// The page's figure (bytes or a count); `None` where it has none.
    pub ours: Option<f64>,
    /// The log's.
    pub logged: f64,
    /// The line it was read from.
    pub line: usize,
}

/// Each figure of `log` beside the configuration's: a serving log beside
/// the deployment's terms, a training log's peaks beside the step's peak
/// (allocated) and with the allocator's slack (reserved), `nvidia-smi`
/// beside what it will show; an RL log's beside the learning phase.
pub fn compare(config: &Config, log: &Log) -> Vec<Comparison> {
    let serve = matches!(log.kind, LogKind::Vllm | LogKind::Sglang)
        .then(|| config.serve_report().ok())
        .flatten();
    let trainer = !matches!(log.kind, LogKind::Vllm | LogKind::Sglang);
    // An RL run's trainer peaks in its learning phase.
    let learn = (trainer && config.job == vram_core::config::job::Job::Rl)
        .then(|| config.rl_report().ok())
        .flatten()
        .map(|rl| rl.learn.total_bytes);
    let training = (trainer && learn.is_none())
        .then(|| config.report().ok())
        .flatten()
        .map(|report| config.process_overheads(&report));
    log.figures
        .iter()
        .map(|figure| {
            let ours = match (&serve, &training, figure.term) {
                (_, _, Term::MaxAllocated | Term::MaxReserved) if learn.is_some() => learn,
                (Some(s), _, Term::Weights) => Some(s.weights_bytes),
                (Some(s), _, Term::ActivationPeak) => Some(s.activation_peak_bytes as f64),
                (Some(s), _, Term::NonTorch) => Some(s.non_torch_bytes as f64),
                (Some(s), _, Term::CudaGraphs) => Some(s.cuda_graph_bytes as f64),
                // Nothing left: none.
                (Some(s), _, Term::KvBudget) => Some(s.kv_budget_bytes.unwrap_or(0) as f64),
                (Some(s), _, Term::KvTokens) => Some(s.kv_tokens as f64),
                (Some(s), _, Term::Concurrency) => Some(s.max_concurrency),
                (Some(s), _, Term::KvBlocks) => Some(s.kv_blocks as f64),
                (_, Some(o), Term::MaxAllocated) => Some(o.peak_bytes as f64),
                (_, Some(o), Term::MaxReserved) => {
                    Some((o.peak_bytes + o.allocator_slack_bytes) as f64)
                }
                (_, Some(o), Term::GpuUsed) => Some(o.nvidia_smi_bytes as f64),
                _ => None,
            };
            Comparison {
                term: figure.term,
                ours,
                logged: figure.value,
                line: figure.line,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(log: &Log, term: Term) -> Option<f64> {
        log.figures.iter().find(|f| f.term == term).map(|f| f.value)
    }

    /// vLLM V1's lines as releases print them: weights and the KV budget
    /// in GiB, the KV cache's tokens and concurrency on one line (0.33) or
    /// two (0.8), the graphs' pool, the non-default arguments as keys
    /// (a path that names no preset left out).
    #[test]
    fn a_vllm_startup_is_read() {
        let text = "INFO 07-22 [utils.py:326] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 32768, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85}\nINFO 07-22 [gpu_model_runner.py:1843] Model loading took 7.1324 GiB and 3.2 seconds\nINFO 07-22 [gpu_worker.py:232] Available KV cache memory: 58.21 GiB\nINFO 07-22 [kv_cache_utils.py:716] GPU KV cache size: 2,179,856 tokens, Maximum concurrency for 32,768 tokens per request: 66.52x\nINFO 07-22 [gpu_model_runner.py:2451] Graph capturing finished in 9 secs, took 0.54 GiB\n";
        let log = read_log(text).unwrap();
        assert_eq!(log.kind, LogKind::Vllm);
        let gib = |v: f64| v * GIB;
        assert_eq!(figure(&log, Term::Weights), Some(gib(7.1324)));
        assert_eq!(figure(&log, Term::KvBudget), Some(gib(58.21)));
        assert_eq!(figure(&log, Term::KvTokens), Some(2_179_856.0));
        assert_eq!(figure(&log, Term::Concurrency), Some(66.52));
        assert_eq!(figure(&log, Term::CudaGraphs), Some(gib(0.54)));
        for key in [
            ("model", "qwen2.5-7b"),
            ("max_len", "32768"),
            ("tp", "2"),
            ("gpu_util", "0.85"),
        ] {
            assert!(
                log.keys.contains(&(key.0, key.1.to_string())),
                "{key:?}: {:?}",
                log.keys
            );
        }
        // vLLM 0.7's "GB" are GiB; its concurrency on a line of its own.
        let old = read_log("INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB\nINFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x").unwrap();
        assert_eq!(figure(&old, Term::Weights), Some(gib(67.7229)));
        assert_eq!(figure(&old, Term::Concurrency), Some(10.79));
    }

    /// vLLM V0's profiling summary: every term on one line.
    #[test]
    fn a_vllm_v0_profile_is_read() {
        let log = read_log("INFO 11-20 worker.py:232] Memory profiling takes 4.35 seconds\nthe current vLLM instance can use total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB\nmodel weights take 14.99GiB; non_torch_memory takes 0.14GiB; PyTorch activation peak memory takes 4.35GiB; the rest of the memory reserved for KV Cache is 51.79GiB.").unwrap();
        assert_eq!(figure(&log, Term::NonTorch), Some(0.14 * GIB));
        assert_eq!(figure(&log, Term::ActivationPeak), Some(4.35 * GIB));
        assert_eq!(figure(&log, Term::KvBudget), Some(51.79 * GIB));
    }

    /// SGLang, Megatron-LM, DeepSpeed, verl, PyTorch and nvidia-smi, each
    /// in its own units.
    #[test]
    fn the_other_tools_are_read_in_their_units() {
        let sglang = read_log("[2025-07-22] Load weight end. type=Qwen3MoeForCausalLM, dtype=torch.bfloat16, avail mem=50.1 GB, mem usage=59.05 GB.\n[2025-07-22] KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB").unwrap();
        assert_eq!(sglang.kind, LogKind::Sglang);
        assert_eq!(figure(&sglang, Term::KvBudget), Some(16.46 * GIB));
        assert_eq!(figure(&sglang, Term::KvTokens), Some(367_404.0));
        let megatron = read_log(" [Rank 0] (after 10 iterations) memory (MB) | allocated: 20339.1 | max allocated: 36512.3 | reserved: 40194.0 | max reserved: 40194.0").unwrap();
        assert_eq!(megatron.kind, LogKind::Megatron);
        assert_eq!(figure(&megatron, Term::MaxAllocated), Some(36512.3 * MIB));
        let deepspeed = read_log("[INFO] [utils.py:782:see_memory_usage] MA 12.55 GB         Max_MA 13.71 GB         CA 14.23 GB         Max_CA 14 GB").unwrap();
        assert_eq!(figure(&deepspeed, Term::MaxReserved), Some(14.0 * GIB));
        let verl = read_log("step:1 - actor/pg_loss:0.01 - perf/max_memory_allocated_gb:63.21 - perf/max_memory_reserved_gb:70.5 - timing_s/gen:40.1").unwrap();
        assert_eq!(verl.kind, LogKind::Verl);
        assert_eq!(figure(&verl, Term::MaxAllocated), Some(63.21 * GIB));
        let smi = read_log("|   0  NVIDIA H100 80GB HBM3          On  | 00000000:18:00.0 Off |                    0 |\n| N/A   34C    P0            118W /  700W |   71234MiB /  81559MiB |      0%      Default |\n|   1  NVIDIA H100 80GB HBM3          On  | 00000000:2A:00.0 Off |                    0 |\n| N/A   33C    P0            116W /  700W |   73001MiB /  81559MiB |      0%      Default |").unwrap();
        assert_eq!(smi.kind, LogKind::NvidiaSmi);
        assert_eq!(figure(&smi, Term::GpuUsed), Some(73001.0 * MIB));
        let torch = read_log("print: torch.cuda.max_memory_allocated() = 12.5 GB").unwrap();
        assert_eq!(figure(&torch, Term::MaxAllocated), Some(12.5e9));
    }

    /// Nothing to read is said; a huge text is read to its first 10 MB
    /// without a panic.
    #[test]
    fn empty_unknown_and_huge_texts_are_refused_or_read() {
        assert_eq!(read_log("  \n"), Err(LogError::Empty));
        assert_eq!(read_log("hello\nworld"), Err(LogError::NothingRecognised));
        let huge = "Available KV cache memory: 1.0 GiB\n".repeat(400_000);
        assert_eq!(read_log(&huge).unwrap().figures.len(), 1);
    }

    /// The figures beside a serving configuration's own.
    #[test]
    fn a_serving_log_is_put_beside_the_deployment() {
        let config = vram_core::input::link::decode(
            "v=3&job=serve&model=qwen2.5-7b&gpu=h100-80gb&gpus=2&tp=2&max_len=32768&gpu_util=0.85",
        )
        .config;
        let log = read_log("Model loading took 7.1324 GiB\nAvailable KV cache memory: 58.21 GiB")
            .unwrap();
        let rows = compare(&config, &log);
        assert_eq!(rows.len(), 2);
        let report = config.serve_report().unwrap();
        assert_eq!(rows[0].ours, Some(report.weights_bytes));
        assert_eq!(rows[1].ours, report.kv_budget_bytes.map(|b| b as f64));
    }

    /// A V1 log's figures taken as the deployment's own: the KV budget the
    /// calibrated configuration gives is the log's (to the byte a hundredth
    /// of a GiB allows), and a what-if keeps them (fp8 KV: the tokens twice
    /// as many in the same budget).
    #[test]
    fn a_vllm_log_calibrates_the_deployment() {
        let mut config = vram_core::input::link::decode(
            "v=3&job=serve&model=llama3.1-8b&gpu=h100-80gb&gpus=1&max_len=16384&gpu_util=0.8",
        )
        .config;
        let log = read_log("Model loading took 14.99 GiB and 3.2 seconds\nAvailable KV cache memory: 46.5 GiB\nGraph capturing finished in 9 secs, took 0.61 GiB").unwrap();
        let measured = measured_of(&config, &log).unwrap();
        assert_eq!(measured.weights, Some((14.99 * GIB).round() as u64));
        assert_eq!(measured.cuda_graphs, Some((0.61 * GIB).round() as u64));
        // Through the link's form (GiB to the hundredth), as a shared link holds it.
        let text = measured.text();
        config.serve.measured = Some(vram_core::serve::options::Measured::parse(&text).unwrap());
        let report = config.serve_report().unwrap();
        let budget = report.kv_budget_bytes.unwrap() as f64;
        assert!(
            (budget - 46.5 * GIB).abs() < 0.006 * GIB,
            "{} GiB",
            budget / GIB
        );
        let mut fp8 = config;
        fp8.serve.kv_dtype = vram_core::serve::kv_cache::KvCacheDtype::Fp8;
        let doubled = fp8.serve_report().unwrap().kv_tokens as f64 / report.kv_tokens as f64;
        assert!((doubled - 2.0).abs() < 0.01, "{doubled}");
    }
}
