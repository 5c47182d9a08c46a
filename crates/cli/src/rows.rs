//! A deployment (`job=serve`) and an RL run (`job=rl`) in every format:
//! their rows ([`vram_view::serving::Row`]) under their headings, the same
//! rows the page and the static view show, in the configuration's language.

use std::fmt::Write as _;

use vram_core::input::InputError;
use vram_core::Config;
use vram_view::serving::Row;
use vram_view::text::{fill, CliText, Text};

use crate::{json_text, padded, page_link, width, words, Output, UsageError};
use vram_core::report::table::Align;

/// A deployment's figures (`job=serve`) in `output`'s format.
pub(crate) fn render_serving(
    config: &Config,
    output: Output,
    base_url: &str,
) -> Result<String, UsageError> {
    let page = Page::of(config, config.serve_report(), |t, c, report| Page {
        heading: vram_view::serving::heading(t, c, config, &report),
        verdict: vram_view::serving::verdict(t, config, &report),
        notes: vram_view::serving::warnings(t, &report),
        table_note: |c, warning| fill(c.warning, &[warning]),
        sections: vram_view::serving::sections(t, &report, config.unit).into(),
        after: None,
        json: Box::new(move || json_text(&crate::json::ServeDocumentJson::new(config, &report))),
    })?;
    page.render(config, output, base_url)
}

/// An RL run's figures (`job=rl`) in `output`'s format.
pub(crate) fn render_rl(
    config: &Config,
    output: Output,
    base_url: &str,
) -> Result<String, UsageError> {
    let page = Page::of(config, config.rl_report(), |t, c, report| {
        let limits = config.rl_limits();
        // verl's overrides, or why verl does not run the plan.
        let overrides = vram_launch::verl::verl_overrides(config).map_err(|why| {
            let zh = config.lang == vram_core::format::Lang::Zh;
            vram_view::launch::refusal(zh, vram_launch::Target::Verl, why.into())
        });
        Page {
            heading: vram_view::rl::heading(c, config),
            verdict: vram_view::rl::verdict(t, config, &report, config.unit),
            notes: vram_view::rl::notes(t, config, &report, config.unit),
            table_note: |_, note| note.to_string(),
            sections: vram_view::rl::sections(t, config, &report, &limits),
            after: Some((t.rl_overrides_heading, overrides)),
            json: Box::new(move || {
                let mut document = crate::json::RlDocumentJson::new(config, &report);
                document.rl.limits = Some(limits);
                json_text(&document)
            }),
        }
    })?;
    page.render(config, output, base_url)
}

/// What a job's figures (`job=serve`, `job=rl`) show in every format but
/// HTML.
struct Page<'a> {
    /// What runs on what: the first line.
    heading: String,
    /// Whether it fits, under the heading.
    verdict: String,
    /// Warnings or notes under the verdict, as Markdown quotes them.
    notes: Vec<String>,
    /// A note as a table's line words it.
    table_note: fn(&CliText, &str) -> String,
    /// The rows, each section under its heading.
    sections: Vec<(&'static str, Vec<Row>)>,
    /// A block after the sections: its heading and its lines, or why it has
    /// none (an RL run's verl overrides).
    after: Option<(&'static str, Result<Vec<String>, String>)>,
    /// The job's JSON document.
    json: Box<dyn FnOnce() -> String + 'a>,
}

impl<'a> Page<'a> {
    /// The job's page as `build` words its `report` in `config`'s language;
    /// the core's verdicts on the input where it has no report.
    fn of<R>(
        config: &Config,
        report: Result<R, InputError>,
        build: impl FnOnce(&'static Text, &'static CliText, R) -> Page<'a>,
    ) -> Result<Self, UsageError> {
        let (t, c) = words(config);
        let report = report.map_err(|e| UsageError::of(t, &[e]))?;
        Ok(build(t, c, report))
    }

    /// The page in `output`'s format.
    fn render(self, config: &Config, output: Output, base_url: &str) -> Result<String, UsageError> {
        let (t, c) = words(config);
        let (heading, verdict) = (&self.heading, &self.verdict);
        Ok(match output {
            Output::Json => (self.json)(),
            Output::Link => format!("{}\n", page_link(config, base_url)),
            Output::Csv => csv(&self.sections),
            Output::Html => vram_view::static_view::fragment(config, base_url)
                .map_err(|errors| UsageError::of(t, &errors))?,
            Output::Markdown => {
                let mut out = format!("**{heading}**\n\n{verdict}\n");
                for note in &self.notes {
                    let _ = writeln!(out, "\n> {note}");
                }
                markdown_sections(&mut out, &self.sections);
                if let Some((title, block)) = &self.after {
                    let _ = write!(out, "\n### {title}\n\n");
                    match block {
                        Ok(lines) => {
                            let _ = writeln!(out, "```text\n{}\n```", lines.join("\n"));
                        }
                        Err(why) => {
                            let _ = writeln!(out, "{why}");
                        }
                    }
                }
                let _ = write!(out, "\n{}\n", page_link(config, base_url));
                out
            }
            Output::Table { .. } => {
                let mut out = format!("{heading}\n{verdict}\n");
                for note in &self.notes {
                    let _ = writeln!(out, "{}", (self.table_note)(c, note));
                }
                for (section, rows) in &self.sections {
                    write_rows(&mut out, section, rows);
                }
                if let Some((title, block)) = &self.after {
                    let _ = write!(out, "\n{title}\n");
                    match block {
                        Ok(lines) => {
                            for line in lines {
                                let _ = writeln!(out, "  {line}");
                            }
                        }
                        Err(why) => {
                            let _ = writeln!(out, "  {why}");
                        }
                    }
                }
                out
            }
        })
    }
}

/// A section of a deployment's or an RL run's rows under its heading:
/// labels, then figures aligned right, then their notes (nothing for a
/// section without rows).
fn write_rows(out: &mut String, section: &str, rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let _ = write!(out, "\n{section}\n");
    let widest = |text: fn(&Row) -> &str| rows.iter().map(|r| width(text(r))).max().unwrap_or(0);
    let (label_width, value_width) = (widest(|r| &r.label), widest(|r| &r.value));
    for row in rows {
        let line = format!(
            "  {}  {}  {}",
            padded(&row.label, label_width, Align::Left),
            padded(&row.value, value_width, Align::Right),
            row.note
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// Each section with rows as a Markdown table of three columns (what,
/// figure, note) under its heading.
fn markdown_sections(out: &mut String, sections: &[(&str, Vec<Row>)]) {
    let cell = |text: &str| text.replace('|', "\\|");
    for (section, rows) in sections {
        if rows.is_empty() {
            continue;
        }
        let _ = write!(out, "\n### {section}\n\n| | | |\n|---|--:|---|\n");
        for row in rows {
            let (label, value, note) = (cell(&row.label), cell(&row.value), cell(&row.note));
            let _ = writeln!(out, "| {label} | {value} | {note} |");
        }
    }
}

/// The CSV's header: what each line of [`csv`] holds.
pub const CSV_HEADER: &str = "section,figure,value,unit,note";

/// Every row as a line of CSV under [`CSV_HEADER`]: its section and label
/// in the configuration's words, its figure unrounded as the core gives it
/// and its unit (`B`, `s`, `tokens` …; where the figure is words, as the
/// KV cache's "nothing left" or the field that relieves a peak, those words
/// and no unit), and its note. Quoted where RFC 4180 asks, lines ended by
/// CRLF, as the training CSV's.
fn csv(sections: &[(&str, Vec<Row>)]) -> String {
    let quoted = |text: &str| {
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    let mut out = format!("{CSV_HEADER}\r\n");
    for (section, rows) in sections {
        for row in rows {
            let (value, unit) = match row.raw {
                Some((value, unit)) => (value.to_string(), unit),
                None => (row.value.clone(), ""),
            };
            let cells = [*section, &row.label, &value, unit, &row.note].map(quoted);
            let _ = write!(out, "{}\r\n", cells.join(","));
        }
    }
    out
}

/// The ranked serving layouts as a table, in the configuration's words.
pub(crate) fn serve_plans_table(
    config: &Config,
    ranking: &vram_core::serve::plans::ServeRanking,
) -> String {
    let (t, _) = words(config);
    let rows = vram_view::serving::plan_rows(t, config, &ranking.plans);
    let mut out = String::from("\n");
    if rows.is_empty() {
        let _ = writeln!(out, "{}", t.serve_plans_none);
        return out;
    }
    let _ = writeln!(
        out,
        "{}\n{}",
        t.serve_plans_heading,
        fill(
            t.serve_plans_found,
            &[&ranking.tried.to_string(), &ranking.fits.to_string()]
        )
    );
    let header = [
        t.serve_col_layout,
        t.serve_col_replicas,
        t.serve_col_weights,
        t.serve_col_kv,
        t.serve_col_concurrency,
        t.serve_col_tpot,
        t.serve_col_per_gpu,
        t.serve_col_cost,
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.layout.clone(),
                r.replicas.clone(),
                r.weights.to_string(),
                r.kv_dtype.to_string(),
                r.concurrency.clone(),
                r.tpot.clone(),
                r.per_gpu.clone(),
                r.cost.clone(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..8)
        .map(|i| {
            cells
                .iter()
                .map(|c| width(&c[i]))
                .chain([width(header[i])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[&str]| {
        cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| match i {
                0 | 2 | 3 => padded(c, *w, Align::Left),
                _ => padded(c, *w, Align::Right),
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let _ = writeln!(out, "{}", line(&header).trim_end());
    for row in &cells {
        let refs: Vec<&str> = row.iter().map(String::as_str).collect();
        let _ = writeln!(out, "{}", line(&refs).trim_end());
    }
    out
}
