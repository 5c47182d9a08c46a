//! What the lazily loaded module answers the page, in the page's words: the
//! `config.json` reader's outcome and Megatron-LM's printout. The module
//! answers in words (and a link), so the page links neither the answers'
//! types nor a decoder for them.

use vram_core::format::{format_bytes, format_number};
use vram_core::input::link;
use vram_core::memory::Strategy;
use vram_core::model::hub::{HubConfig, HubConfigError};
use vram_core::Config;

use crate::text::{self, LazyText, Text};

/// What reading a `config.json` gave the page: the link of the form with its
/// architecture applied and what was read, in words; or why it could not be
/// read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadReply {
    /// The configuration to load (as a link) and the lines that say what was
    /// read, assumed and not understood.
    Read { query: String, lines: Vec<String> },
    /// Why the text could not be read, in one sentence.
    Refused(String),
}

impl ReadReply {
    /// Reads `source`, a `config.json`, into the configuration whose link is
    /// `query`, in `t`'s and `w`'s words (the same language's).
    pub fn of(t: &Text, w: &LazyText, source: &str, query: &str) -> ReadReply {
        // A launch command (issue 66): its keys over the page's.
        if let Ok(imported) = vram_launch::import::import_launch(source) {
            return Self::of_command(t, w, &imported, query);
        }
        // A run's log (issue 66): its figures beside the configuration's.
        if let Ok(log) = vram_launch::log::read_log(source) {
            return Self::of_log(w, &log, query);
        }
        match vram_core::model::hub::read_config(source) {
            Ok(hub) => match link::decode(query).config.with_hub_config(&hub) {
                Ok(config) => ReadReply::Read {
                    query: link::encode(&config),
                    lines: hub_summary(w, &hub),
                },
                // A dimension its link key would refuse (`hidden_size` 10⁹).
                Err(error) => ReadReply::Refused(text::fill(
                    t.link_err_other,
                    &[
                        text::field_text(t, error.field).label,
                        &text::error_words(t, &error),
                    ],
                )),
            },
            Err(error) => ReadReply::Refused(hub_error(w, &error)),
        }
    }

    /// The reply as one text for the page: `+`, the link, then one line per
    /// sentence; or `-` and the sentence.
    pub fn to_message(&self) -> String {
        match self {
            ReadReply::Read { query, lines } => {
                let mut message = format!("+{query}");
                for line in lines {
                    message.push('\n');
                    message.push_str(line);
                }
                message
            }
            ReadReply::Refused(why) => format!("-{why}"),
        }
    }

    /// The reply a [`to_message`](Self::to_message) text holds; `None` for
    /// another text (an empty one: the module did not answer).
    pub fn from_message(message: &str) -> Option<ReadReply> {
        if let Some(why) = message.strip_prefix('-') {
            return Some(ReadReply::Refused(why.to_string()));
        }
        let mut lines = message.strip_prefix('+')?.split('\n').map(String::from);
        let query = lines.next()?;
        Some(ReadReply::Read {
            query,
            lines: lines.collect(),
        })
    }
}

impl ReadReply {
    /// A log read beside the configuration whose link is `query`: the
    /// settings the log states over the link's (an engine's log makes it a
    /// serving configuration of that engine), then a line for each figure
    /// beside the page's own.
    fn of_log(w: &LazyText, log: &vram_launch::log::Log, query: &str) -> ReadReply {
        use vram_launch::log::LogKind;
        let mut keys: Vec<(&str, String)> = match log.kind {
            LogKind::Vllm => vec![("job", "serve".into()), ("engine", "vllm".into())],
            LogKind::Sglang => vec![("job", "serve".into()), ("engine", "sglang".into())],
            _ => Vec::new(),
        };
        keys.extend(log.keys.iter().cloned());
        let given = |key: &str| keys.iter().any(|(k, _)| *k == key);
        let mut merged: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        merged.extend(
            query
                .split('&')
                .filter(|pair| {
                    let key = pair.split('=').next().unwrap_or_default();
                    !key.is_empty() && !given(key)
                })
                .map(str::to_string),
        );
        let mut config = link::decode(&merged.join("&")).config;
        // Each figure beside the page's own arithmetic; then the page takes
        // the measured ones (the `measured` key), for the what-ifs.
        let lines = log_lines(w, log, &config);
        if let Some(measured) = vram_launch::log::measured_of(&config, log) {
            config.serve.measured = Some(measured);
        }
        ReadReply::Read {
            query: link::encode(&config),
            lines,
        }
    }

    /// A launch command read into the configuration whose link is `query`:
    /// the command's keys over the link's, and a line for each option read,
    /// of no bearing, or not read.
    fn of_command(
        t: &Text,
        w: &LazyText,
        imported: &vram_launch::import::Imported,
        query: &str,
    ) -> ReadReply {
        let given = |key: &str| imported.keys.iter().any(|(k, _)| *k == key);
        let mut merged: Vec<String> = query
            .split('&')
            .filter(|pair| {
                let key = pair.split('=').next().unwrap_or_default();
                !key.is_empty() && key != "v" && !given(key)
            })
            .map(str::to_string)
            .collect();
        merged.insert(0, imported.query());
        let decoded = link::decode(&merged.join("&"));
        let config = decoded.config;
        let mut lines: Vec<String> = imported
            .mapped
            .iter()
            .map(|(option, key)| text::fill(w.import_read_line, &[option, key]))
            .collect();
        lines.extend(
            imported
                .ignored
                .iter()
                .map(|option| text::fill(w.import_ignored_line, &[option])),
        );
        lines.extend(
            imported
                .unread
                .iter()
                .map(|option| text::fill(w.import_unread_line, &[option])),
        );
        // What the command gave and the page's rules set aside (a layout
        // its GPUs cannot hold), with why and what is kept instead.
        for problem in decoded.problems.iter().filter(|p| given(&p.key)) {
            let why = problem
                .error
                .as_ref()
                .map(|e| text::error_words(t, e))
                .unwrap_or_default();
            lines.push(text::fill(
                w.import_not_applied,
                &[
                    &format!("{}={}", problem.key, problem.value),
                    &why,
                    &problem.used,
                ],
            ));
        }
        lines.push(w.import_no_gpu.to_string());
        ReadReply::Read {
            query: link::encode(&config),
            lines,
        }
    }
}

/// The words of a `config.json` that could not be read, in `w`'s language:
/// the page's reply and the CLI's `--config` error alike.
pub fn hub_error(w: &LazyText, error: &HubConfigError) -> String {
    use HubConfigError as E;
    match error {
        E::Json { line, column } => {
            text::fill(w.hub_json, &[&line.to_string(), &column.to_string()])
        }
        E::NotAnObject => w.hub_not_object.into(),
        E::NoModelType => w.hub_no_type.into(),
        E::UnknownModelType(kind) => text::fill(
            w.hub_unknown_type,
            &[kind, &vram_core::model::hub::MODEL_TYPES.join(", ")],
        ),
        E::Missing(key) => text::fill(w.hub_missing, &[key]),
        E::Invalid(key) => text::fill(w.hub_invalid, &[key]),
        E::Unsupported(key) => text::fill(w.hub_unsupported, &[key]),
    }
}

/// What a read `config.json` gave, in words: the keys read, those assumed,
/// those not understood, and DeepSeek's uncounted prediction layers.
fn hub_summary(w: &LazyText, hub: &HubConfig) -> Vec<String> {
    let pairs = |list: &[(String, String)]| {
        list.iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = vec![text::fill(
        w.paste_done,
        &[
            &hub.model_type,
            &format_number(hub.architecture.param_count() as f64),
            &pairs(&hub.read),
        ],
    )];
    if !hub.assumed.is_empty() {
        lines.push(text::fill(w.paste_assumed, &[&pairs(&hub.assumed)]));
    }
    if !hub.not_understood.is_empty() {
        lines.push(text::fill(
            w.paste_not_understood,
            &[&hub.not_understood.join(", ")],
        ));
    }
    // Read by its text_config: the multimodal type was recorded first.
    if let Some((_, multimodal)) = hub.read.first().filter(|(key, _)| key == "model_type") {
        lines.push(text::fill(w.paste_multimodal, &[multimodal]));
    }
    if hub.mtp_layers > 0 {
        let params = u64::from(hub.mtp_layers) * hub.architecture.mtp_layer_params();
        lines.push(text::fill(
            w.paste_mtp,
            &[&hub.mtp_layers.to_string(), &format_number(params as f64)],
        ));
    }
    lines
}

/// What Megatron-LM would print for `config`, beside the page's DDP and
/// ZeRO-1 figures, in `w`'s words; `None` when it has no estimate (not under
/// Megatron's accounting, or no model).
pub fn megatron_line(w: &LazyText, config: &Config) -> Option<String> {
    let m = config.megatron_report()?;
    let report = config.report().ok()?;
    // As Megatron prints them: two decimals.
    let mb = |e: &vram_core::frameworks::megatron::MegatronEstimate| {
        let [weights, activations, total] = e.printed_mb.map(|v| {
            let cents = (v * 100.0).round() as u64;
            format!("{}.{:02}", cents / 100, cents % 100)
        });
        text::fill(w.megatron_printed, &[&weights, &activations, &total])
    };
    Some(text::fill(
        w.megatron_note,
        &[
            &mb(&m.without_distributed_optimizer),
            &mb(&m.with_distributed_optimizer),
            &format_bytes(report.strategy(Strategy::Ddp).memory.total, report.unit),
            &format_bytes(report.strategy(Strategy::Zero1).memory.total, report.unit),
        ],
    ))
}

/// A log's figures beside `config`'s, a line each, in `w`'s words: the
/// tool, then each figure (bytes in GiB, as the tools print them; counts as
/// numbers) with the page's own and the difference, then the settings the
/// log applied.
pub fn log_lines(w: &LazyText, log: &vram_launch::log::Log, config: &Config) -> Vec<String> {
    use vram_launch::log::{LogKind, Term};
    let kind = match log.kind {
        LogKind::Vllm => 0,
        LogKind::Sglang => 1,
        LogKind::Megatron => 2,
        LogKind::DeepSpeed => 3,
        LogKind::Verl => 4,
        LogKind::Torch => 5,
        LogKind::NvidiaSmi => 6,
    };
    let mut lines = vec![text::fill(w.log_heading, &[w.log_kinds[kind]])];
    let shown = |term: Term, value: f64| match term.is_bytes() {
        true => format!(
            "{} GiB",
            format_number((value / f64::from(1u32 << 30) * 100.0).round() / 100.0)
        ),
        false => format_number(value),
    };
    for row in vram_launch::log::compare(config, log) {
        let term = w.log_terms[row.term as usize];
        let line = row.line.to_string();
        lines.push(match row.ours {
            Some(ours) if row.logged > 0.0 => {
                let diff = (ours - row.logged) / row.logged * 100.0;
                let rounded = (diff.abs() * 10.0).round() / 10.0;
                let diff = match rounded == 0.0 {
                    true => "0 %".to_string(),
                    false => format!(
                        "{}{} %",
                        if diff >= 0.0 { "+" } else { "−" },
                        format_number(rounded)
                    ),
                };
                text::fill(
                    w.log_line,
                    &[
                        term,
                        &shown(row.term, ours),
                        &shown(row.term, row.logged),
                        &line,
                        &diff,
                    ],
                )
            }
            _ => text::fill(
                w.log_line_alone,
                &[term, &shown(row.term, row.logged), &line],
            ),
        });
    }
    if !log.keys.is_empty() {
        let keys: Vec<String> = log.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        lines.push(text::fill(w.log_keys, &[&keys.join(", ")]));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{LAZY_EN, LAZY_ZH};

    /// Issue 66: the paste box reads a launch command too. Its keys go over
    /// the page's (the GPU kept), and each option is said: read and the key
    /// it became, of no bearing, or not read; in the page's language.
    #[test]
    fn a_pasted_launch_command_becomes_the_deployment() {
        let command = "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --max-model-len 32768 --port 8000 --max-loras 4";
        let reply = ReadReply::of(
            &crate::text::EN,
            &LAZY_EN,
            command,
            "v=3&gpu=h100-80gb&gpus=2",
        );
        let ReadReply::Read { query, lines } = reply else {
            panic!("{reply:?}");
        };
        let config = link::decode(&query).config;
        assert_eq!(config.job, vram_core::config::job::Job::Serve);
        assert_eq!(config.gpu.map(|g| g.id), Some("h100-80gb"));
        assert_eq!((config.runtime.layout.tp, config.gpus), (4, 4));
        assert_eq!(config.serve.max_len, Some(32_768));
        assert!(
            lines.contains(&"Read --tensor-parallel-size 4 → tp".to_string()),
            "{lines:?}"
        );
        assert!(lines.contains(&"No bearing on the figures: --port 8000".to_string()));
        assert!(lines.contains(&"Not read: --max-loras 4".to_string()));
        let zh = ReadReply::of(&crate::text::ZH, &LAZY_ZH, command, "v=3");
        let ReadReply::Read { lines, .. } = zh else {
            panic!("{zh:?}");
        };
        assert!(
            lines.contains(&"未能读取：--max-loras 4".to_string()),
            "{lines:?}"
        );
    }

    #[test]
    fn a_read_config_travels_as_its_link_and_words() {
        let source = r#"{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
            "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
            "vocab_size": 32000, "tie_word_embeddings": false}"#;
        let reply = ReadReply::of(
            text::of(vram_core::format::Lang::En),
            &LAZY_EN,
            source,
            "gpus=4",
        );
        let ReadReply::Read { query, lines } = &reply else {
            panic!("{reply:?}");
        };
        // Llama 2 7B's shape is its preset; the form's other fields stay.
        let config = link::decode(query).config;
        assert_eq!(config.gpus, 4);
        assert_eq!(config.params().map(|p| p.get()), Ok(6_738_415_616.0));
        assert!(
            lines[0].starts_with("Read llama (6,738,415,616): "),
            "{lines:?}"
        );
        assert_eq!(ReadReply::from_message(&reply.to_message()), Some(reply));
    }

    #[test]
    fn a_refusal_travels_as_its_sentence() {
        let reply = ReadReply::of(
            text::of(vram_core::format::Lang::Zh),
            &LAZY_ZH,
            "{\"model_type\": \"gemma9\"}",
            "",
        );
        assert_eq!(
            reply,
            ReadReply::Refused(
                "此处不计算 model_type \"gemma9\"（可读取的有：llama, llama4_text, mistral, phi3, olmo2, granite, gemma2, gemma3_text, qwen2, qwen3, \
                 mixtral, qwen2_moe, qwen3_moe, qwen3_next, qwen3_5_text, qwen3_5_moe_text, glm4_moe, deepseek_v2, deepseek_v3, gpt_oss, cohere2, gpt2）。"
                    .into()
            )
        );
        assert_eq!(ReadReply::from_message(&reply.to_message()), Some(reply));
        assert_eq!(ReadReply::from_message(""), None);
    }

    #[test]
    fn megatrons_line_quotes_its_printout_beside_the_pages_figures() {
        let config = link::decode("model=llama2-7b&acct=megatron&tp=2").config;
        let line = megatron_line(&LAZY_EN, &config).expect("an estimate");
        let m = config.megatron_report().unwrap();
        let [_, _, total] = m.without_distributed_optimizer.printed_mb;
        let cents = (total * 100.0).round() as u64;
        assert!(
            line.contains(&format!("total={}.{:02} MB", cents / 100, cents % 100)),
            "{line}"
        );
        let report = config.report().unwrap();
        let ddp = format_bytes(report.strategy(Strategy::Ddp).memory.total, report.unit);
        assert!(line.contains(&format!("This page: {ddp}, ")), "{line}");
        assert_eq!(megatron_line(&LAZY_EN, &Config::default()), None);
    }
}
