//! `vram`: the calculator in a terminal. Parsing and printing only; every figure,
//! rule and message comes from `vram-core`, through the same link decoder as the page.

pub mod json;
mod rows;

use std::ffi::OsString;
use std::fmt::Write as _;

use clap::{Arg, ArgAction, ArgMatches, Command};
use vram_core::config::job::Job;
use vram_core::format::{
    format_bytes, format_number, format_params, format_percent, format_seconds, Lang, MemoryUnit,
};
use vram_core::input::link::{self, all_fields, value_of};
use vram_core::memory::step::Phase;
use vram_core::report::table::{Align, Column, Table};
use vram_core::{Config, Field, Report};
use vram_view::text::{fill, CliText, Text};

/// Where `--link` points when `--base-url` is not given: what `scripts/serve` serves.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080/";

/// The name of the JSON schema that `--json` writes; a change to its meaning gets a new name.
pub const JSON_SCHEMA: &str = crate::json::SCHEMA;

/// How the result is printed, in the configuration's language (`lang`)
/// wherever it has words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The job's tables in the terminal: the strategy table, a
    /// deployment's or an RL run's.
    Table {
        /// Whether to colour it (only on a terminal).
        color: bool,
    },
    /// Every figure unrounded, as JSON.
    Json,
    /// The page's link for the configuration.
    Link,
    /// The job's tables in Markdown, for a homework or an issue.
    Markdown,
    /// Every figure unrounded, as CSV: a strategy a line in bytes
    /// (training), or a figure a line with its unit (serving, RL).
    Csv,
    /// The read-only view as a self-contained HTML fragment (training's
    /// with SVG charts).
    Html,
}

/// Bad input: one message per problem, each naming its option or link key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub Vec<String>);

impl UsageError {
    /// The core's verdicts on the input, each said with its option's name
    /// in `t`'s language.
    fn of(t: &Text, errors: &[vram_core::input::InputError]) -> UsageError {
        UsageError(errors.iter().map(|e| error_words(t, e)).collect())
    }
}

/// The command line: one option per key of the shared link, named after it.
pub fn command() -> Command {
    let command = Command::new("vram")
        .about("GPU memory per GPU for LLM training under DDP and DeepSpeed ZeRO-1/2/3")
        .long_about(
            "GPU memory per GPU for LLM training under DDP and DeepSpeed ZeRO-1/2/3, and the largest \
             model a cluster can train. Model states only (weights, gradients, optimizer states), as in \
             the course lesson \"06. VRAM Calculation and ZeRO\". GB = 10^9 bytes.",
        )
        .after_help(
            "Examples:\n  vram                           the lesson's example: 7 B, FP16, Adam, 8 x 80 GB\n  \
             vram --params 13 --stage 2     the lesson's Q6 with ZeRO-2 highlighted\n  \
             vram '?params=70&gpus=64'      a shared link or query string\n  \
             vram --opt sgd --json          every figure as JSON\n  \
             vram --lang zh                 the lesson's example in Chinese\n\n\
             Every job's table and notes, --plans, --fixes, --markdown, --html and the errors about\n\
             a value speak the configuration's language (--lang, or the link's lang): Chinese for\n\
             zh, else English. This help, --keys, --json, CSV headers and a malformed command\n\
             line's error stay English.\n",
        )
        .arg(
            Arg::new("link")
                .value_name("LINK")
                .help("A shared link of the page, or its query string (?params=13&gpus=8); options override it"),
        )
        .arg(
            Arg::new("import")
                .long("import")
                .value_name("FILE")
                .help("A launch command to read into the configuration: vllm serve, SGLang's launch_server, verl's main_ppo with its overrides, OpenRLHF's train_ppo_ray or train_dpo, a DeepSpeed JSON with its deepspeed or torchrun line before it or not, a Megatron-LM pretrain_gpt.py script, a torchtitan job TOML with its torchrun line before it or not, an accelerate YAML with the script's TrainingArguments, LoraConfig and BitsAndBytesConfig, LitGPT's finetune_lora or finetune_full command or its config YAML, or TRL's GRPOConfig, DPOConfig or DistillationConfig (- for standard input); what it read, and what it did not, go to standard error; options override it"),
        )
        .arg(
            Arg::new("log")
                .long("log")
                .value_name("FILE")
                .help("A run's log to put beside the figures (- for standard input): vLLM's or SGLang's start-up, Megatron-LM's or DeepSpeed's memory lines, verl's metrics, PyTorch's max_memory_allocated/reserved, nvidia-smi's table; each figure it printed is listed after the output with the page's own and the difference, and the settings a vLLM log states apply (options override them)"),
        )
        .arg(
            Arg::new("config")
                .long("config")
                .value_name("FILE")
                .help(format!(
                    "A Hugging Face config.json ({}): the model's architecture; options override it",
                    vram_core::model::hub::MODEL_TYPES.join(", ")
                )),
        );
    output_args(field_args(command))
}

/// One option per key of the shared link, named after it, with its default.
fn field_args(mut command: Command) -> Command {
    let defaults = Config::default();
    for field in all_fields() {
        let default = match value_of(&defaults, field) {
            value if value.is_empty() => String::new(),
            value => format!(" [default: {value}]"),
        };
        // The same words as `vram --keys` and docs/links.md: the declaration's.
        let help = format!(
            "{}: {}{default}",
            vram_view::text::field_text(english(), field).label,
            vram_view::text::accepts(field)
        );
        command = command.arg(
            Arg::new(field.key())
                .long(option_name(field))
                .alias(field.key())
                .value_name(field.value_name())
                .allow_hyphen_values(true)
                .help(help),
        );
    }
    command
}

/// The options that are no key of the link: what to print, and how.
fn output_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("keys")
                .long("keys")
                .action(ArgAction::SetTrue)
                .exclusive(true)
                .help(
                    "Print every key of the shared link (and option) with the values it accepts, \
                     its default and when a link writes it, as Markdown (docs/links.md)",
                ),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print every figure unrounded, with its unit, as JSON"),
        )
        .arg(
            Arg::new("plans")
                .long("plans")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["print-link"])
                .help(
                    "Rank every layout of the cluster (TP, PP, CP, SP, EP, ZeRO stage, \
                     recomputation, offload, micro-batch): the fastest that fit first",
                ),
        )
        .arg(
            Arg::new("export")
                .long("export")
                .value_name("KIND")
                .value_parser(clap::builder::PossibleValuesParser::new(
                    vram_launch::Target::ALL.map(vram_launch::Target::key),
                ))
                .conflicts_with_all([
                    "print-link",
                    "json",
                    "markdown",
                    "csv",
                    "html",
                    "plans",
                    "fixes",
                ])
                .help(
                    "Print the configuration as a framework's own: deepspeed (ds_config.json; \
                     the launch line on stderr), megatron (pretrain_gpt.py arguments), torchtitan \
                     (job TOML), accelerate (YAML with TrainingArguments), litgpt (its finetune_lora \
                     or finetune_full command), vllm and sglang (the \
                     launch command), verl (main_ppo overrides), openrlhf (train_ppo_ray or train_dpo), \
                     trl (GRPOConfig or DPOConfig)",
                ),
        )
        .arg(
            Arg::new("fixes")
                .long("fixes")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["print-link"])
                .help(
                    "When the highlighted strategy does not fit, what would make it fit: the \
                     smallest changes (recomputation, micro-batch, ZeRO stage, offload, layout, \
                     8-bit optimizer, LoRA/QLoRA, sequence, more or larger GPUs), each with its \
                     peak per GPU and its cost in GPU time per token",
                ),
        )
        .arg(
            Arg::new("print-link")
                .long("link")
                .action(ArgAction::SetTrue)
                .conflicts_with("json")
                .help("Print the page's link for this configuration"),
        )
        .arg(
            Arg::new("markdown")
                .long("markdown")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["json", "print-link"])
                .help(
                    "Print the job's tables in Markdown: training's strategy table with what it \
                     is of, its notes and its link; a deployment's or an RL run's tables",
                ),
        )
        .arg(
            Arg::new("csv")
                .long("csv")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["json", "print-link", "markdown", "plans", "fixes"])
                .help(
                    "Print every figure unrounded, as CSV: under training a strategy a line, \
                     in bytes; under job=serve and job=rl a figure a line \
                     (section,figure,value,unit,note)",
                ),
        )
        .arg(
            Arg::new("html")
                .long("html")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["json", "print-link", "markdown", "csv", "plans", "fixes"])
                .help(
                    "Print the read-only view (the job's tables and notes, training's SVG \
                     charts, a link to the page) as a self-contained HTML fragment, for a \
                     static site to include",
                ),
        )
        .arg(
            Arg::new("base-url")
                .long("base-url")
                .value_name("URL")
                .default_value(DEFAULT_BASE_URL)
                .help("The page's address, for --link and --html"),
        )
        .arg(
            Arg::new("color")
                .long("color")
                .value_name("WHEN")
                .value_parser(["auto", "always", "never"])
                .default_value("auto")
                .help(
                    "Colour the table: auto (on a terminal, unless NO_COLOR is set), always, never",
                ),
        )
}

/// Every key of the shared link as a Markdown table, in the order a link
/// writes them: its option, what it is ([`Field::meaning`], the declaration's
/// doc comment), the values it accepts beside the others (`vram_view::text::accepts`),
/// its default and when a link writes it. docs/links.md holds this table
/// between its `vram --keys` markers (tested).
pub fn keys_reference() -> String {
    use vram_core::input::Written;
    let defaults = Config::default();
    // A step's keys (sequence, micro-batch, EP …) default the same on every model.
    let with_model = Config {
        model: vram_core::input::link::default_model(),
        ..Config::default()
    };
    let mut out = String::from(
        "| key | option | job | what | accepts | default | in a link |\n\
         |-----|--------|-----|------|---------|---------|-----------|\n",
    );
    for field in all_fields() {
        let default = match value_of(&defaults, field) {
            _ if field.filled_by() == Some(Field::Model) => "the model's".to_string(),
            // No model trains a bare size; adapters start from one, serving
            // and RL from another.
            _ if field == Field::Model => format!(
                "none; `{}` with adapters; `{}` for serving and RL",
                vram_core::input::DEFAULT_ARCHITECTURE_PRESET,
                vram_core::config::job::DEFAULT_SERVED_MODEL
            ),
            value if value.is_empty() => match value_of(&with_model, field) {
                value if value.is_empty() => "none".to_string(),
                value => format!("`{value}`"),
            },
            value => format!("`{value}`"),
        };
        let written = match field.written() {
            Written::Always => "always",
            Written::WhenSet => "when set",
            Written::WithModel => "with a model",
            Written::WhenNotDense => "with a model, where not a dense model's or the preset's",
            Written::WhenNotPreset => "with a model, where not the preset's",
            Written::WhenNotDefault => "where not the default",
            Written::WhenNotFilled => "where not as the model's checkpoint ships",
            Written::ForItsJobs => "under its jobs always, else where not the default",
        };
        let jobs = match field.jobs() {
            vram_core::config::job::Jobs::ALL => "all".to_string(),
            jobs => jobs.iter().map(|j| j.key()).collect::<Vec<_>>().join(", "),
        };
        let _ = writeln!(
            out,
            "| `{}` | `--{}` | {jobs} | {} | {} | {default} | {written} |",
            field.key(),
            option_name(field),
            field.meaning(),
            vram_view::text::accepts(field),
        );
    }
    out
}

/// The page's English words, for what is said before a configuration
/// has a language (`--help`).
fn english() -> &'static Text {
    vram_view::text::of(Lang::En)
}

/// The page's words and the CLI's own in `config`'s language: the CLI says
/// what the page says.
fn words(config: &Config) -> (&'static Text, &'static CliText) {
    (
        vram_view::text::of(config.lang),
        vram_view::text::cli_of(config.lang),
    )
}

/// The language the arguments ask for, before they are decoded: `--lang`,
/// else the link's `lang`, read as the link decoder reads it (English for
/// none, `auto` or a value it sets aside).
fn language(matches: &ArgMatches) -> Lang {
    let key = Field::Lang.key();
    let given = matches.get_one::<String>(key).cloned().or_else(|| {
        let link = matches.get_one::<String>("link")?;
        form_urlencoded::parse(query_of(link).as_bytes())
            .find(|(k, _)| k == key)
            .map(|(_, value)| value.into_owned())
    });
    given.map_or(Lang::En, |value| {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair(key, &value)
            .finish();
        link::decode(&query).config.lang
    })
}

/// What is wrong with a value, as the page says it of a link's key: the
/// field's label, then the problem (`Number of GPUs: Enter 1 to 1,048,576.`).
fn error_words(t: &Text, error: &vram_core::input::InputError) -> String {
    fill(
        t.link_err_other,
        &[
            vram_view::text::field_text(t, error.field).label,
            &vram_view::text::error_words(t, error),
        ],
    )
}

/// `--gpu-mem` for the link's `gpu_mem`.
pub fn option_name(field: Field) -> String {
    field.key().replace('_', "-")
}

/// The configuration the arguments describe: the link's (or the defaults), then each option.
pub fn config_from(matches: &ArgMatches) -> Result<Config, UsageError> {
    config_and_hub_from(matches).map(|(config, _, _)| config)
}

/// Where a key of the configuration came from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    /// The link given.
    Link,
    /// The model of the `config.json` given with `--config`.
    ConfigJson,
    /// An option.
    Option,
    /// The launch command read with `--import`.
    Import,
    /// The settings a log read with `--log` states.
    Log,
}

/// The keys of one configuration, each once, with where it came from.
#[derive(Default)]
struct Keys(Vec<(String, String, Source)>);

impl Keys {
    /// Sets `key` to `value`, replacing what an earlier source gave; a preset
    /// (a model, a GPU) also takes away what earlier sources gave for the
    /// fields it fills, as choosing it in the form does.
    fn set(&mut self, key: &str, value: &str, source: Source) {
        let field = link::all_fields().find(|f| f.key() == key);
        if let Some(preset) = field.filter(|f| f.is_preset()) {
            self.0.retain(|(k, _, s)| {
                *s == source
                    || link::all_fields()
                        .find(|f| f.key() == k)
                        .is_none_or(|f| f.filled_by() != Some(preset))
            });
        }
        self.0.retain(|(k, _, _)| k != key);
        self.0.push((key.to_string(), value.to_string(), source));
    }

    /// The keys as one query string.
    fn query(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (key, value, _) in &self.0 {
            query.append_pair(key, value);
        }
        query.finish()
    }

    fn source_of(&self, key: &str) -> Source {
        self.0
            .iter()
            .find(|(k, _, _)| k == key)
            .map_or(Source::Link, |(_, _, s)| *s)
    }
}

/// `--job` as the page's job switch: what the switch fills
/// ([`form::edited`](vram_core::input::form::edited): RL's BF16, no reserve
/// and ZeRO-3 in place of the lesson's FP16, 20 % and DDP; serving's TP
/// where the model does not start at 1) is set on the keys given so far,
/// unless an option gives that key itself. The model each job needs
/// without one is the decoder's to fill.
fn switch_job(matches: &ArgMatches, keys: &mut Keys) {
    use vram_core::input::form;
    let Some(job) = matches.get_one::<String>(Field::Job.key()) else {
        return;
    };
    // What the switch fills follows the other options (the model, the GPUs):
    // the configuration they describe before the job changes.
    let mut others = Keys(keys.0.clone());
    for field in link::all_fields().filter(|f| *f != Field::Job) {
        if let Some(text) = matches.get_one::<String>(field.key()) {
            others.set(field.key(), text, Source::Option);
        }
    }
    let before = link::decode(&others.query()).config;
    // A link already of that job keeps what it says, as the page's switch
    // fills nothing when the job stays.
    if before.job.key() == job.as_str() {
        return;
    }
    let filled = form::edited(Field::Job, job, |field| form::text_of(&before, field));
    for (field, text) in filled {
        let by_model = field == Field::Model || field.filled_by() == Some(Field::Model);
        if by_model || matches.get_one::<String>(field.key()).is_some() {
            continue;
        }
        let mut switched = before;
        if form::apply_typed(&mut switched, field, &text).is_ok() {
            keys.set(field.key(), &value_of(&switched, field), Source::Link);
        }
    }
}

/// The keys of the launch command in `file` (`-`: standard input), over
/// the link's ([`vram_launch::import`]); what was read, what has no bearing
/// and what was not read said on standard error, a file that cannot be read
/// or holds no command a problem.
fn import_keys(
    file: &str,
    lang: vram_core::format::Lang,
    keys: &mut Keys,
    problems: &mut Vec<String>,
) {
    use vram_launch::import::{import_launch, ImportError};
    let c = vram_view::text::cli_of(lang);
    let text = match read_text(file) {
        Ok(text) => text,
        Err(error) => return problems.push(format!("--import {file:?}: {error}")),
    };
    let imported = match import_launch(&text) {
        Ok(imported) => imported,
        Err(ImportError::Empty) => return problems.push(fill(c.import_empty, &[file])),
        Err(ImportError::UnknownKind) => return problems.push(fill(c.import_unknown, &[file])),
    };
    for (key, value) in &imported.keys {
        keys.set(key, value, Source::Import);
    }
    let read: Vec<String> = imported
        .mapped
        .iter()
        .map(|(option, key)| format!("{option} → {key}"))
        .collect();
    for (words, list) in [
        (c.import_read, read),
        (c.import_ignored, imported.ignored.clone()),
        (c.import_unread, imported.unread.clone()),
    ] {
        if !list.is_empty() {
            eprintln!("{}", fill(words, &[file, &list.join(c.comma)]));
        }
    }
}

/// The text of `file`, or of standard input for `-`.
fn read_text(file: &str) -> std::io::Result<String> {
    use std::io::Read as _;
    match file {
        "-" => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map(|_| text)
        }
        path => std::fs::read_to_string(path),
    }
}

/// The log in `file` (`-`: standard input), read; a file that cannot be
/// read or holds no figure this reader knows, a problem in `lang`'s words.
fn read_log_file(
    file: &str,
    lang: vram_core::format::Lang,
) -> Result<vram_launch::log::Log, String> {
    use vram_launch::log::LogError;
    let c = vram_view::text::cli_of(lang);
    let text = read_text(file).map_err(|error| format!("--log {file:?}: {error}"))?;
    vram_launch::log::read_log(&text).map_err(|error| match error {
        LogError::Empty => fill(c.log_empty, &[file]),
        LogError::NothingRecognised => fill(c.log_unknown, &[file]),
    })
}

/// The link's keys a log gives: an engine's log is a serving
/// configuration of that engine, with the settings it states.
fn log_keys(log: &vram_launch::log::Log) -> Vec<(&'static str, String)> {
    use vram_launch::log::LogKind;
    let mut keys: Vec<(&'static str, String)> = match log.kind {
        LogKind::Vllm => vec![("job", "serve".into()), ("engine", "vllm".into())],
        LogKind::Sglang => vec![("job", "serve".into()), ("engine", "sglang".into())],
        _ => Vec::new(),
    };
    keys.extend(log.keys.iter().cloned());
    keys
}

/// [`config_from`], with what `--config` read.
///
/// One configuration from three sources, each on top of the one before: the
/// link, the model of a `config.json` (its architecture, whatever model the
/// link had; the link's other keys apply to it), then each option. The keys
/// are decoded once, by the link decoder, so that the rules between keys are
/// the page's; each problem names the option, the link key or the
/// `config.json` key that gave it.
fn config_and_hub_from(
    matches: &ArgMatches,
) -> Result<
    (
        Config,
        Option<vram_core::model::hub::HubConfig>,
        Option<vram_launch::log::Log>,
    ),
    UsageError,
> {
    let mut read_log = None;
    let mut pasted = None;
    let mut problems = Vec::new();
    let mut keys = Keys::default();
    let lang = language(matches);
    let t = vram_view::text::of(lang);
    if let Some(link) = matches.get_one::<String>("link") {
        let mut repeated: Vec<String> = Vec::new();
        for (key, value) in form_urlencoded::parse(query_of(link).as_bytes()) {
            // The first of a repeated key counts, as in the decoder, which
            // says so (once a key).
            match keys.0.iter().find(|(k, _, _)| *k == key) {
                None => keys.set(&key, &value, Source::Link),
                Some((_, first, _)) => {
                    let field = link::all_fields().find(|f| f.key() == key);
                    if let (Some(field), false) = (field, repeated.contains(&key.to_string())) {
                        let problem = link::LinkProblem {
                            key: key.to_string(),
                            value: value.to_string(),
                            error: Some(field.error(vram_core::input::InputErrorKind::GivenTwice)),
                            used: first.clone(),
                        };
                        problems.push(vram_view::text::link_problem(t, &problem));
                        repeated.push(key.to_string());
                    }
                }
            }
        }
    }
    // Options alone (or on a link with no key: the bare page) describe
    // today's configuration: the link version the page writes, not the
    // version 1 a link with keys and no `v` is read as.
    let carries_keys = keys
        .0
        .iter()
        .any(|(k, _, _)| k == link::VERSION_KEY || link::all_fields().any(|f| f.key() == k));
    if !carries_keys {
        keys.set(link::VERSION_KEY, link::LINK_VERSION, Source::Link);
        // And today's vLLM, the newest release (a link without the key
        // was written before it, under 0.20.0).
        let newest = vram_core::serve::kv_cache::VllmRelease::NEWEST.key();
        keys.set(Field::EngineVersion.key(), newest, Source::Link);
    }
    if let Some(file) = matches.get_one::<String>("import") {
        import_keys(file, lang, &mut keys, &mut problems);
    }
    if let Some(file) = matches.get_one::<String>("log") {
        match read_log_file(file, lang) {
            Ok(log) => {
                for (key, value) in log_keys(&log) {
                    keys.set(key, &value, Source::Log);
                }
                read_log = Some(log);
            }
            Err(problem) => problems.push(problem),
        }
    }
    let path = matches.get_one::<String>("config");
    if let Some(path) = path {
        match std::fs::read_to_string(path) {
            Err(error) => problems.push(format!("--config {path:?}: {error}")),
            Ok(text) => match vram_core::model::hub::read_config(&text) {
                Ok(hub) => {
                    let model = match Config::default().with_hub_config(&hub) {
                        Ok(config) => link::encode(&config),
                        Err(error) => {
                            // The config.json key whose value the field refuses.
                            let culprit = hub.read.iter().find(|(_, value)| {
                                value
                                    .parse::<f64>()
                                    .is_ok_and(|v| error.field.check(v).is_err())
                            });
                            let named =
                                culprit.map_or(String::new(), |(k, v)| format!("{k}={v}: "));
                            problems.push(format!(
                                "--config {path:?}: {named}{}",
                                error_words(t, &error)
                            ));
                            String::new()
                        }
                    };
                    for (key, value) in form_urlencoded::parse(model.as_bytes()) {
                        let field = link::all_fields().find(|f| f.key() == key);
                        if field.is_some_and(|f| {
                            f == Field::Model || f.filled_by() == Some(Field::Model)
                        }) {
                            keys.set(&key, &value, Source::ConfigJson);
                        }
                    }
                    pasted = Some(hub);
                }
                Err(error) => problems.push(format!(
                    "--config {path:?}: {}",
                    vram_view::replies::hub_error(vram_view::text::lazy_of(lang), &error)
                )),
            },
        }
    }
    switch_job(matches, &mut keys);
    for field in link::all_fields() {
        if let Some(text) = matches.get_one::<String>(field.key()) {
            keys.set(field.key(), text, Source::Option);
        }
    }
    let decoded = link::decode(&keys.query());
    for problem in &decoded.problems {
        let field = link::all_fields().find(|f| f.key() == problem.key);
        let line = match (keys.source_of(&problem.key), problem.error, field) {
            (Source::Option, Some(error), Some(field)) => format!(
                "--{} {:?}: {}",
                option_name(field),
                problem.value,
                error_words(t, &error)
            ),
            (Source::ConfigJson, Some(error), _) => {
                let json_key = pasted
                    .as_ref()
                    .and_then(|hub| json_key_of(hub, &problem.value));
                format!(
                    "--config {:?}: {}{}",
                    path.map_or("", String::as_str),
                    json_key.map_or(String::new(), |k| format!("{k}={}: ", problem.value)),
                    error_words(t, &error)
                )
            }
            (Source::Log, Some(error), _) => format!(
                "--log {:?}: {}={:?}: {}",
                matches.get_one::<String>("log").map_or("", String::as_str),
                problem.key,
                problem.value,
                error_words(t, &error)
            ),
            (Source::Import, Some(error), _) => format!(
                "--import {:?}: {}={:?}: {}",
                matches
                    .get_one::<String>("import")
                    .map_or("", String::as_str),
                problem.key,
                problem.value,
                error_words(t, &error)
            ),
            (_, Some(error), _) => format!(
                "{}={:?}: {}",
                problem.key,
                problem.value,
                error_words(t, &error)
            ),
            (_, None, _) => vram_view::text::link_problem(t, problem),
        };
        problems.push(line);
    }
    if problems.is_empty() {
        Ok((decoded.config, pasted, read_log))
    } else {
        Err(UsageError(problems))
    }
}

/// The `config.json` key that `hub` read with `value`, when one did.
fn json_key_of(hub: &vram_core::model::hub::HubConfig, value: &str) -> Option<String> {
    hub.read
        .iter()
        .find(|(_, read)| read == value)
        .map(|(key, _)| key.clone())
}

/// The query string of a link (`https://…/?a=1#x` → `a=1`), or the text itself.
pub fn query_of(link: &str) -> &str {
    let without_fragment = link.split('#').next().unwrap_or_default();
    match without_fragment.split_once('?') {
        Some((_, query)) => query,
        None => without_fragment,
    }
}

/// Runs the command on `args` (the first is the program's name) and returns what
/// to print on stdout, or clap's own error (help, version, usage), or bad input.
pub fn run<I, T>(args: I, terminal: bool) -> Result<String, RunError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = command()
        .try_get_matches_from(args)
        .map_err(RunError::Clap)?;
    if matches.get_flag("keys") {
        return Ok(keys_reference());
    }
    let (mut config, pasted, log) = config_and_hub_from(&matches).map_err(RunError::Usage)?;
    // A log's figures beside the page's own arithmetic, then the measured
    // ones taken where no `measured` was given (the link's or an option's).
    let log_lines = log.as_ref().map(|log| {
        let w = vram_view::text::lazy_of(config.lang.resolve(std::iter::empty()));
        vram_view::replies::log_lines(w, log, &config)
    });
    if let (Some(log), None) = (&log, config.serve.measured) {
        config.serve.measured = vram_launch::log::measured_of(&config, log);
    }
    let output = if matches.get_flag("json") {
        Output::Json
    } else if matches.get_flag("print-link") {
        Output::Link
    } else if matches.get_flag("markdown") {
        Output::Markdown
    } else if matches.get_flag("csv") {
        Output::Csv
    } else if matches.get_flag("html") {
        Output::Html
    } else {
        let color = match matches.get_one::<String>("color").map(String::as_str) {
            Some("always") => true,
            Some("never") => false,
            _ => terminal && std::env::var_os("NO_COLOR").is_none(),
        };
        Output::Table { color }
    };
    let base_url = matches
        .get_one::<String>("base-url")
        .map_or(DEFAULT_BASE_URL, String::as_str);
    if let Some(kind) = matches.get_one::<String>("export") {
        return export(&config, kind, base_url);
    }
    let mut text = render(&config, output, base_url).map_err(RunError::Usage)?;
    // A log's figures beside the configuration's, after the text output.
    if let (Some(lines), false) = (&log_lines, output == Output::Json) {
        text.push('\n');
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
    }
    let (with_plans, with_fixes) = (matches.get_flag("plans"), matches.get_flag("fixes"));
    let (t, c) = words(&config);
    let refused = |message: &str| Err(RunError::Usage(UsageError(vec![message.to_string()])));
    match config.job {
        Job::Rl if with_plans || with_fixes => return refused(c.rl_no_plans),
        Job::Rl => return Ok(text),
        Job::Serve if with_fixes => return refused(c.serve_no_fixes),
        Job::Serve if with_plans => {
            let ranking = config.serve_plans();
            match output {
                Output::Json => {
                    let report = config
                        .serve_report()
                        .map_err(|e| RunError::Usage(UsageError::of(t, &[e])))?;
                    let mut document = crate::json::ServeDocumentJson::new(&config, &report);
                    document.plans = Some(
                        ranking
                            .plans
                            .iter()
                            .map(|p| crate::json::ServePlanJson::new(&config, p))
                            .collect(),
                    );
                    text = json_text(&document);
                }
                _ => text.push_str(&appendix(
                    output,
                    &rows::serve_plans_table(&config, &ranking),
                )),
            }
            return Ok(text);
        }
        Job::Serve => return Ok(text),
        Job::Train => {}
    }
    let ranking = with_plans.then(|| vram_core::plans::rank(&config));
    match output {
        Output::Json if with_plans || with_fixes => {
            let mut report = config
                .report()
                .map_err(|e| RunError::Usage(UsageError::of(t, &e)))?;
            report.megatron = config.megatron_report();
            let mut document = crate::json::ReportJson::new(&config, &report, ranking.as_ref());
            if with_fixes {
                document.fixes = Some(crate::json::FixesJson::new(&config, &report));
            }
            text = json_text(&document);
        }
        _ => {
            if let Some(ranking) = &ranking {
                text.push_str(&appendix(output, &plans_table(&config, ranking)));
            }
            if with_fixes {
                text.push_str(&appendix(output, &fixes_text(&config)));
            }
        }
    }
    // Under the table, what a config.json gave (the JSON and the other formats stay as they are).
    if let (Some(hub), Output::Table { .. }) = (pasted, output) {
        text.push_str(&config_json_lines(c, &hub));
    }
    Ok(text)
}

/// What `--plans` or `--fixes` adds under the job's output: as the
/// terminal lays it out, in Markdown in a block of its own that keeps it so.
fn appendix(output: Output, text: &str) -> String {
    match output {
        Output::Markdown => format!("\n```text\n{}\n```\n", text.trim_matches('\n')),
        _ => text.to_string(),
    }
}

/// `--export KIND`: the framework's own text, or why it cannot run the
/// configuration (status 2). DeepSpeed's JSON carries no comment: its
/// launch line and link go to stderr, the JSON alone to stdout.
fn export(config: &Config, kind: &str, base_url: &str) -> Result<String, RunError> {
    use vram_launch::Target;
    let target = Target::from_key(kind).unwrap_or(Target::DeepSpeed);
    let link = page_link(config, base_url);
    match vram_launch::export(config, target, &link) {
        Ok(text) => {
            if target == Target::DeepSpeed {
                if let Some(line) = vram_launch::launch_line(config, target) {
                    eprintln!("# {link}\n# {line}");
                }
            }
            Ok(text)
        }
        Err(refusal) => Err(RunError::Usage(UsageError(vec![format!(
            "--export {kind}: {}",
            vram_view::launch::refusal(config.lang == Lang::Zh, target, refusal)
        )]))),
    }
}

/// What `--config` read, assumed and did not understand, a line each, in
/// `c`'s language.
fn config_json_lines(c: &CliText, hub: &vram_core::model::hub::HubConfig) -> String {
    let pairs = |list: &[(String, String)]| {
        list.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(c.comma)
    };
    let mut lines = fill(c.config_read, &[&hub.model_type, &pairs(&hub.read)]) + "\n";
    if !hub.assumed.is_empty() {
        lines += &(fill(c.config_assumed, &[&pairs(&hub.assumed)]) + "\n");
    }
    if !hub.not_understood.is_empty() {
        let keys = hub.not_understood.join(c.comma);
        lines += &(fill(c.config_not_understood, &[&keys]) + "\n");
    }
    if hub.mtp_layers > 0 {
        let params = u64::from(hub.mtp_layers) * hub.architecture.mtp_layer_params();
        lines += &(fill(
            c.config_mtp,
            &[&hub.mtp_layers.to_string(), &format_number(params as f64)],
        ) + "\n");
    }
    lines
}

/// Why `run` printed nothing on stdout.
#[derive(Debug)]
pub enum RunError {
    /// Help, version, or a malformed command line: clap prints it and picks the status.
    Clap(clap::Error),
    /// A value outside its limits, or a bad link: status 2.
    Usage(UsageError),
}

/// A malformed command line's error in one line, as every other error is
/// printed: clap's first line (`error: unexpected argument '--bogus' found`)
/// and where the options are listed.
pub fn usage_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let mut lines = rendered.lines().map(str::trim);
    let first = lines.next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // clap's suggestion, when it has one (`a similar argument exists: '--params'`).
    let tip = lines
        .find_map(|line| line.strip_prefix("tip: "))
        .map(|tip| format!("; {tip}"))
        .unwrap_or_default();
    format!("error: {first}{tip} (vram --help lists the options)")
}

/// What to print for a valid configuration, in its language (`lang`).
pub fn render(config: &Config, output: Output, base_url: &str) -> Result<String, UsageError> {
    match config.job {
        Job::Serve => return rows::render_serving(config, output, base_url),
        Job::Rl => return rows::render_rl(config, output, base_url),
        Job::Train => {}
    }
    let (t, c) = words(config);
    let mut report = config
        .report()
        .map_err(|errors| UsageError::of(t, &errors))?;
    // What Megatron-LM would print, under its accounting, in every format
    // (the page asks its lazily loaded module; the CLI computes it here).
    report.megatron = config.megatron_report();
    let zh = config.lang == Lang::Zh;
    Ok(match output {
        Output::Table { color } => {
            let mut text = table(t, c, &report, color);
            let lines = [
                vram_view::launch::process_line(zh, config, &report),
                vram_view::launch::loading_line(zh, config, &report),
            ];
            for line in lines.into_iter().flatten() {
                text.push_str(&line);
                text.push('\n');
            }
            text
        }
        Output::Json => json(config, &report),
        Output::Markdown => markdown(config, &report, &page_link(config, base_url)),
        Output::Csv => vram_core::report::export::csv(&report),
        Output::Html => vram_view::static_view::fragment(config, base_url)
            .map_err(|errors| UsageError::of(t, &errors))?,
        Output::Link => format!("{}\n", page_link(config, base_url)),
    })
}

/// The strategy table, as the page shows it, in `t`'s and `c`'s language.
pub fn table(t: &Text, c: &CliText, report: &Report, color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", budget_line(t, c, report));
    let _ = writeln!(out);
    out.push_str(&strategy_lines(t, report, color));
    let _ = writeln!(out);
    // The layout in words is the page's layout note, among the notes below.
    out.push_str(&step_lines(t, c, report));
    if let Some(line) = moe_line(c, report) {
        let _ = writeln!(out, "{line}");
    }
    // The page's notes, in its words: one wording of every figure.
    let notes = vram_view::notes::notes(t, report);
    if !notes.is_empty() {
        let _ = writeln!(out, "{notes}");
    }
    if let Some(line) = megatron_line(c, report) {
        let _ = writeln!(out, "{line}");
    }
    if report.accounting == vram_core::Accounting::DeepSpeed {
        let _ = writeln!(out, "{}", c.deepspeed_accounting);
    }
    let footer = fill(
        c.footer,
        &[
            report.highlight.label(),
            c.judged_on[usize::from(report.activations.is_some())],
            c.units[usize::from(report.unit == MemoryUnit::Gib)],
        ],
    );
    let _ = writeln!(out, "{footer}");
    out
}

/// `text` in the terminal's colour `code` when `color`, else as it is.
fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// How many columns `text` takes in a terminal: two for a CJK character or
/// a full-width form (Chinese words and punctuation), one for any other.
pub(crate) fn width(text: &str) -> usize {
    let wide = |c: char| {
        matches!(c,
            '\u{1100}'..='\u{115f}'
            | '\u{2e80}'..='\u{a4cf}'
            | '\u{ac00}'..='\u{d7a3}'
            | '\u{f900}'..='\u{faff}'
            | '\u{fe30}'..='\u{fe4f}'
            | '\u{ff00}'..='\u{ff60}'
            | '\u{ffe0}'..='\u{ffe6}')
    };
    text.chars().map(|c| if wide(c) { 2 } else { 1 }).sum()
}

/// `text` filled with spaces to `columns` terminal columns ([`width`]),
/// after it (`Align::Left`) or before it.
pub(crate) fn padded(text: &str, columns: usize, align: Align) -> String {
    let fill = " ".repeat(columns.saturating_sub(width(text)));
    match align {
        Align::Left => format!("{text}{fill}"),
        Align::Right => format!("{fill}{text}"),
    }
}

/// The table's first line: the setup, the cluster and the memory usable per GPU.
fn budget_line(t: &Text, c: &CliText, report: &Report) -> String {
    let setup = report.setup;
    let budget = report.budget;
    let unit = report.unit;
    let label = |labels: &[&'static str], index: Option<usize>| {
        index.and_then(|i| labels.get(i).copied()).unwrap_or("")
    };
    let precision = vram_core::Precision::ALL
        .iter()
        .position(|&p| p == setup.precision());
    let optimizer = vram_core::Optimizer::ALL
        .iter()
        .position(|&o| o == setup.optimizer());
    let context = match budget.context().get() > 0.0 {
        true => fill(c.budget_context, &[&format_bytes(budget.context(), unit)]),
        false => String::new(),
    };
    fill(
        c.budget,
        &[
            &format_params(setup.params()),
            label(&t.precision, precision),
            label(&t.optimizer, optimizer),
            &report.gpus().to_string(),
            if report.gpus() == 1 { "" } else { t.plural_s },
            &format_bytes(budget.gpu_memory(), unit),
            &format_percent(budget.reserved_fraction()),
            &context,
            &format_bytes(budget.usable(), unit),
        ],
    )
}

/// The strategies' rows under their header, a line each, the highlighted one
/// marked `*` (and bold, the fits column green or red, when `color`).
fn strategy_lines(t: &Text, report: &Report, color: bool) -> String {
    // The report's one table (vram_core::report::table), in the page's words.
    let words = vram_view::notes::table_words(t);
    let shown = Table::of(report);
    let header: Vec<String> = shown
        .headings(&words)
        .into_iter()
        .map(String::from)
        .collect();
    let rows: Vec<Vec<String>> = shown
        .texts(report.unit, &words)
        .into_iter()
        .zip(&report.strategies)
        .map(|(mut cells, row)| {
            let mark = if row.strategy == report.highlight {
                "*"
            } else {
                " "
            };
            cells[0] = format!("{mark} {}", cells[0]);
            cells
        })
        .collect();
    let fits_column = shown
        .columns
        .iter()
        .position(|&c| c == Column::Fits)
        .unwrap_or(0);
    let widths = column_widths(&header, &rows);
    let line = |cells: &[String], fits: Option<bool>, bold: bool| {
        let mut text = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let padded = padded(cell, widths[c], shown.columns[c].align());
            let styled = match (c == fits_column, fits) {
                (true, Some(true)) => paint(&padded, "32", color),
                (true, Some(false)) => paint(&padded, "31", color),
                _ => padded,
            };
            if c > 0 {
                text.push_str("  ");
            }
            text.push_str(&styled);
        }
        let text = text.trim_end().to_string();
        if bold {
            paint(&text, "1", color)
        } else {
            text
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(&header, None, true));
    for (row, cells) in report.strategies.iter().zip(&rows) {
        let _ = writeln!(
            out,
            "{}",
            line(cells, Some(row.fits), row.strategy == report.highlight)
        );
    }
    out
}

/// Each column's width in a terminal: its widest cell, the header's included.
fn column_widths(header: &[String], rows: &[Vec<String>]) -> Vec<usize> {
    (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| width(&r[c]))
                .chain([width(&header[c])])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The activations per GPU and the highlighted strategy's step, a line each,
/// when the report has a model's activations.
fn step_lines(t: &Text, c: &CliText, report: &Report) -> String {
    let unit = report.unit;
    let mut out = String::new();
    if let (Some(model), Some(activations)) = (report.model, report.activations) {
        let line = fill(
            c.activations,
            &[
                &format_bytes(activations.total, unit),
                &format_bytes(activations.per_layer, unit),
                &format_bytes(activations.embeddings_and_logits, unit),
                &model.seq_len.to_string(),
                &model.micro_batch.to_string(),
                &recompute_words(model.recompute, model.checkpointing),
                c.off_on[usize::from(model.flash_attention)],
            ],
        );
        let _ = writeln!(out, "{line}");
    }
    if report.activations.is_some() {
        let step = report.highlighted().step;
        let (at, peak) = step.peak();
        let name = |phase| vram_view::chart::phase_name(t, phase);
        let moments: Vec<String> = Phase::ALL
            .into_iter()
            .filter_map(|phase| {
                step.at(phase)
                    .map(|bytes| format!("{} {}", name(phase), format_bytes(bytes, unit)))
            })
            .collect();
        let line = fill(
            c.step_peak,
            &[
                report.highlight.label(),
                &format_bytes(peak, unit),
                name(at),
                &format_bytes(step.kept, unit),
                &moments.join(c.comma),
            ],
        );
        let _ = writeln!(out, "{line}");
    }
    out
}

/// What Megatron-LM's own estimate would print beside the page's figures.
fn megatron_line(c: &CliText, report: &Report) -> Option<String> {
    let m = report.megatron?;
    let unit = report.unit;
    // Megatron-LM's own printout, in its own words.
    let mb = |e: &vram_core::frameworks::megatron::MegatronEstimate| {
        format!(
            "weight and optimizer={:.2} MB, activation={:.2} MB, total={:.2} MB ({})",
            e.printed_mb[0],
            e.printed_mb[1],
            e.printed_mb[2],
            format_bytes(e.total, unit)
        )
    };
    let total = |s| format_bytes(report.strategy(s).memory.total, unit);
    let formula = usize::from(!m.without_distributed_optimizer.sequence_parallel_path);
    Some(fill(
        c.megatron,
        &[
            &mb(&m.without_distributed_optimizer),
            &mb(&m.with_distributed_optimizer),
            &total(vram_core::Strategy::Ddp),
            &total(vram_core::Strategy::Zero1),
            c.megatron_activations[formula],
        ],
    ))
}

/// The page's address with `config`'s link.
fn page_link(config: &Config, base_url: &str) -> String {
    format!(
        "{}?{}",
        base_url.split('?').next().unwrap_or(base_url),
        link::encode(config)
    )
}

/// What the table is of, the table in Markdown, then the page's notes, a
/// paragraph each, and the link (the page's own Markdown export), after the
/// mixture of experts' line; in the configuration's language.
fn markdown(config: &Config, report: &Report, url: &str) -> String {
    let (t, c) = words(config);
    let text = vram_view::notes::markdown_with_context(t, config, report, url);
    match moe_line(c, report) {
        Some(line) => format!("{text}\n{line}\n"),
        None => text,
    }
}

/// A mixture of experts' parameters in memory and active per token.
fn moe_line(c: &CliText, report: &Report) -> Option<String> {
    let arch = report
        .model
        .map(|m| m.architecture)
        .filter(|a| a.moe.is_moe())?;
    let shared = match arch.moe.shared_experts {
        0 => String::new(),
        n => fill(c.moe_shared, &[&n.to_string()]),
    };
    Some(fill(
        c.moe,
        &[
            &format_number(arch.param_count() as f64),
            &format_number(arch.active_param_count() as f64),
            &arch.moe.top_k.to_string(),
            &arch.moe.experts.to_string(),
            &shared,
        ],
    ))
}

/// The ranked plans: the ten fastest that fit (or, when none does, the ten
/// that come closest), a line each, and how many of how many fit; in the
/// configuration's language.
pub fn plans_table(config: &Config, ranking: &vram_core::plans::Ranking) -> String {
    let unit = config.unit;
    let (t, c) = words(config);
    let w = vram_view::text::lazy_of(config.lang);
    let mut out = String::new();
    let plans = &ranking.plans;
    let fitting = ranking.fitting;
    let _ = writeln!(out);
    if plans.is_empty() {
        let why = vram_view::plans::plans_count(w, config, ranking);
        let _ = writeln!(out, "{}", fill(c.plans_none, &[&why]));
        return out;
    }
    let ranked = match config.global_batch {
        Some(global) => fill(w.plans_ranked_global, &[&global.to_string()]),
        None => w.plans_ranked_own.to_string(),
    };
    let found = fill(
        c.plans_fit,
        &[
            &fitting.to_string(),
            &ranking.found.to_string(),
            c.plans_listed[usize::from(fitting == 0)],
            &ranked,
        ],
    );
    let _ = writeln!(out, "{found}");
    if !ranking.is_complete() {
        let partial = fill(
            c.plans_partial,
            &[
                &ranking.searched.to_string(),
                &ranking.layouts.to_string(),
                &format_number(ranking.evaluations as f64),
            ],
        );
        let _ = writeln!(out, "{partial}");
    }
    let header: Vec<String> = c.plans_columns.map(String::from).to_vec();
    let yes_no = |yes: bool| if yes { t.yes } else { t.no }.to_string();
    let rows: Vec<Vec<String>> = plans
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, p)| {
            vec![
                (i + 1).to_string(),
                p.layout.tp.to_string(),
                p.layout.pp.to_string(),
                p.layout.vpp.to_string(),
                p.layout.cp.to_string(),
                yes_no(p.layout.sp),
                p.ep.to_string(),
                p.dp.to_string(),
                p.strategy.label().into(),
                recompute_words(p.recompute, p.checkpointing),
                p.offload.key().into(),
                p.micro_batch.to_string(),
                p.microbatches.to_string(),
                format_bytes(p.peak, unit),
                yes_no(p.fits),
                p.time
                    .map_or("-".into(), |t| format_seconds(t.step_seconds)),
                p.time.map_or("-".into(), |t| {
                    format_number(t.tokens_per_second_per_gpu.round())
                }),
            ]
        })
        .collect();
    let widths = column_widths(&header, &rows);
    for cells in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, cell)| match c {
                7..=9 => padded(cell, widths[c], Align::Left),
                _ => padded(cell, widths[c], Align::Right),
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    if let Some(best) = plans.first() {
        let query = link::encode(&best.apply(config));
        let _ = writeln!(out, "{}", fill(c.plans_first, &[&query]));
    }
    out
}

/// What would make the configuration fit, a line each after a blank line:
/// the page's words in the configuration's language
/// ([`vram_view::fixes::lines`]), or that it fits.
pub fn fixes_text(config: &Config) -> String {
    let (t, _) = words(config);
    let w = vram_view::text::lazy_of(config.lang);
    let mut out = String::from("\n");
    match vram_core::fixes::fixes(config) {
        Some(fixes) => {
            for line in vram_view::fixes::lines(t, w, config, &fixes) {
                let _ = writeln!(out, "{line}");
            }
        }
        None => {
            let _ = writeln!(out, "{}{}{}", t.fixes_heading, t.word_space, w.fixes_fits);
        }
    }
    out
}

/// Every figure unrounded, with its unit: the schema [`JSON_SCHEMA`], described in README.
pub fn json(config: &Config, report: &Report) -> String {
    json_with_plans(config, report, None)
}

/// [`json`], with the ranked plans when given: the core's typed document
/// ([`crate::json::ReportJson`]) serialised.
pub fn json_with_plans(
    config: &Config,
    report: &Report,
    plans: Option<&vram_core::plans::Ranking>,
) -> String {
    json_text(&crate::json::ReportJson::new(config, report, plans))
}

/// A `--json` document as printed: indented, with a closing newline.
fn json_text(document: &impl serde::Serialize) -> String {
    let mut text = serde_json::to_string_pretty(document).unwrap_or_default();
    text.push('\n');
    text
}

/// Recomputation as Megatron-LM's options say it: `none`, `selective`,
/// `full`, or `full uniform 4` / `full block 20` beside per-layer checkpointing.
fn recompute_words(
    recompute: vram_core::memory::activations::Recompute,
    checkpointing: vram_core::memory::activations::Checkpointing,
) -> String {
    use vram_core::memory::activations::{Checkpointing, Recompute};
    match recompute {
        Recompute::Full if checkpointing != Checkpointing::EVERY_LAYER => format!(
            "full {} {}",
            checkpointing.method.key(),
            checkpointing.layers
        ),
        r => r.key().into(),
    }
}
