//! The read-only view of a configuration as one self-contained HTML fragment
//! (`vram --html`), in the configuration's language: for training the
//! strategy table, the notes under it and the charts as SVG, drawn by the
//! same code as the page's canvases; for a deployment and an RL run their
//! rows' tables ([`crate::serving`], [`crate::rl`]); with a link that opens
//! the configuration in the calculator. A static site includes it at its own
//! build time: no script, no WebAssembly, no request. Native only (plotters'
//! SVG backend).

use vram_core::input::link;
use vram_core::report::table::{Align, Table};
use vram_core::{Config, InputError};

use crate::chart::{self, ChartKind, HEIGHT_CSS};
use crate::notes::{notes, table_words};
use crate::text;

/// The charts' drawn width in pixels (the SVG scales to its container).
const CHART_WIDTH: u32 = 640;

/// The fragment's look, in `style` attributes: readable on any host page
/// whatever its style sheet, and kept by hosts that compile HTML as templates
/// (VitePress drops a `<style>` element inside a page's markup).
mod look {
    pub const SECTION: &str = "font:14px/1.45 system-ui,sans-serif;color:#1d2129;max-width:100%";
    pub const SCROLL: &str = "overflow-x:auto";
    pub const TABLE: &str = "border-collapse:collapse;width:100%;margin:8px 0";
    pub const CELL: &str =
        "padding:4px 8px;border-bottom:1px solid #d9dde4;white-space:nowrap;text-align:";
    pub const CHOSEN: &str = ";background:#eef2fc;font-weight:600";
    pub const NOTE: &str = "margin:2px 0;font-size:13px";
    pub const FIGURE: &str = "margin:12px 0";
    pub const CAPTION: &str = "font-weight:600;margin-bottom:4px";
    pub const SVG: &str = "max-width:100%;height:auto;background:#fff";
    pub const KEY: &str = "font-size:12px;margin:2px 0 0";
    pub const CODE: &str = "font:12px/1.4 ui-monospace,monospace;overflow-x:auto;margin:4px 0";
    pub const SWATCH: &str =
        "display:inline-block;width:12px;border-radius:2px;margin:0 2px 0 8px;";

    /// A legend swatch's colour and shape, by the page's class for it (its
    /// light theme's colours, `web/style.css`).
    pub fn swatch(class: &str) -> String {
        let (colour, line) = match class {
            "fits" => ("#1b7f5c", false),
            "too-small" => ("#b43c3c", false),
            "model" => ("#1f3b8c", true),
            "capacity" => ("#1d2129", true),
            "part-0" => ("#1f3b8c", false),
            "part-1" => ("#4a7bd0", false),
            "part-2" => ("#c9822a", false),
            "part-3" => ("#2a9486", false),
            _ => ("#8a8f9c", false),
        };
        let shape = match line {
            true => "height:3px;vertical-align:3px",
            false => "height:12px;vertical-align:-1px",
        };
        format!("{SWATCH}{shape};background:{colour}")
    }
}

/// The fragment of `config`'s read-only view in `lang` (English for `Auto`),
/// its link to `page_url` (the calculator's address) carrying the
/// configuration; the configuration's errors if it has no report.
pub fn fragment(config: &Config, page_url: &str) -> Result<String, Vec<InputError>> {
    match config.job {
        vram_core::config::job::Job::Serve => {
            return serving_fragment(config, page_url).map_err(|e| vec![e])
        }
        vram_core::config::job::Job::Rl => {
            return rl_fragment(config, page_url).map_err(|e| vec![e])
        }
        vram_core::config::job::Job::Train => {}
    }
    let report = config.report()?;
    let t = words_of(config);
    let words = table_words(t);
    let table = Table::of(&report);
    let mut html = format!("<h3>{}</h3>\n", escape(t.results_heading));
    html.push_str(&format!(
        "<div style=\"{}\"><table style=\"{}\">\n<thead><tr>",
        look::SCROLL,
        look::TABLE
    ));
    for (heading, column) in table.headings(&words).iter().zip(&table.columns) {
        let style = cell_style(column.align(), false);
        html.push_str(&format!("<th style=\"{style}\">{}</th>", escape(heading)));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for (row, cells) in report
        .strategies
        .iter()
        .zip(table.texts(report.unit, &words))
    {
        let chosen = row.strategy == report.highlight;
        html.push_str(if chosen {
            "<tr class=\"chosen\">"
        } else {
            "<tr>"
        });
        for (cell, column) in cells.iter().zip(&table.columns) {
            let style = cell_style(column.align(), chosen);
            html.push_str(&format!("<td style=\"{style}\">{}</td>", escape(cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table></div>\n<div class=\"notes\">\n");
    for line in notes(t, &report).lines().filter(|l| !l.is_empty()) {
        html.push_str(&paragraph(look::NOTE, line));
    }
    html.push_str("</div>\n");
    let charts = [
        (ChartKind::Memory, t.chart_memory_heading),
        (ChartKind::Step, t.chart_step_heading),
        (ChartKind::MaxParams, t.chart_heading),
        (ChartKind::Scaling, t.chart_scaling_heading),
    ];
    for (kind, heading) in charts {
        // The step's chart needs a model's activations, as on the page.
        if kind == ChartKind::Step && report.activations.is_none() {
            continue;
        }
        let Ok(svg) = chart::svg(&report, t, kind, (CHART_WIDTH, HEIGHT_CSS)) else {
            continue;
        };
        let label = escape(&chart::describe(t, &report, kind));
        let svg = svg.replacen(
            "<svg ",
            &format!(
                "<svg role=\"img\" aria-label=\"{label}\" style=\"{}\" ",
                look::SVG
            ),
            1,
        );
        // The page's legend under each chart: its swatches and words.
        let key: String = kind
            .legend(t)
            .into_iter()
            .map(|(class, label)| {
                let style = look::swatch(class);
                format!("<span style=\"{style}\"></span>{}", escape(label))
            })
            .collect();
        html.push_str(&format!(
            "<figure style=\"{}\">\n<figcaption style=\"{}\">{}</figcaption>\n{}\n<p style=\"{}\">{key}</p>\n</figure>\n",
            look::FIGURE,
            look::CAPTION,
            escape(heading),
            svg.trim(),
            look::KEY
        ));
    }
    Ok(section(config, t, page_url, &html))
}

/// The read-only view of a deployment (`job=serve`): the verdict, the
/// engine's warnings, and its tables of memory, KV cache and speed.
fn serving_fragment(config: &Config, page_url: &str) -> Result<String, InputError> {
    use crate::serving;
    let report = config.serve_report()?;
    let t = words_of(config);
    let mut html = paragraph(look::CAPTION, &serving::verdict(t, config, &report));
    for warning in serving::warnings(t, &report) {
        html.push_str(&paragraph(look::NOTE, &warning));
    }
    for (heading, rows) in serving::sections(t, &report, config.unit) {
        html.push_str(&rows_table(heading, &rows));
    }
    Ok(section(config, t, page_url, &html))
}

/// The read-only view of an RL run (`job=rl`), as `vram` prints it: what
/// is trained on what, the verdict and what it needs, the tables of each
/// phase, the step, the step phase by phase and how far it goes, and the
/// run as verl's overrides (or why verl does not run it as planned).
fn rl_fragment(config: &Config, page_url: &str) -> Result<String, InputError> {
    use crate::rl;
    let report = config.rl_report()?;
    let lang = config.lang.resolve(std::iter::empty());
    let (t, c) = (text::of(lang), text::cli_of(lang));
    let mut html = paragraph(look::CAPTION, &rl::heading(c, config));
    html.push_str(&paragraph(
        look::NOTE,
        &rl::verdict(t, config, &report, config.unit),
    ));
    for note in rl::notes(t, config, &report, config.unit) {
        html.push_str(&paragraph(look::NOTE, &note));
    }
    for (heading, rows) in rl::sections(t, config, &report, &config.rl_limits()) {
        html.push_str(&rows_table(heading, &rows));
    }
    html.push_str(&format!("<h3>{}</h3>\n", escape(t.rl_overrides_heading)));
    match vram_launch::verl::verl_overrides(config) {
        Ok(lines) => html.push_str(&format!(
            "<pre style=\"{}\"><code>{}</code></pre>\n",
            look::CODE,
            escape(&lines.join("\n"))
        )),
        Err(why) => {
            let zh = lang == vram_core::format::Lang::Zh;
            let refusal = crate::launch::refusal(zh, vram_launch::Target::Verl, why.into());
            html.push_str(&paragraph(look::NOTE, &refusal));
        }
    }
    Ok(section(config, t, page_url, &html))
}

/// A table of a deployment's or an RL run's rows under its `heading`:
/// label, figure (right-aligned), note; nothing for no rows.
fn rows_table(heading: &str, rows: &[crate::serving::Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<h3>{}</h3>\n<div style=\"{}\"><table style=\"{}\">\n<tbody>\n",
        escape(heading),
        look::SCROLL,
        look::TABLE
    );
    for row in rows {
        html.push_str(&format!(
            "<tr><td style=\"{}\">{}</td><td style=\"{}\">{}</td><td style=\"{}\">{}</td></tr>\n",
            cell_style(Align::Left, false),
            escape(&row.label),
            cell_style(Align::Right, false),
            escape(&row.value),
            cell_style(Align::Left, false),
            escape(&row.note)
        ));
    }
    html.push_str("</tbody>\n</table></div>\n");
    html
}

/// The words of `config`'s language (English for `Auto`).
fn words_of(config: &Config) -> &'static text::Text {
    text::of(config.lang.resolve(std::iter::empty()))
}

/// The fragment's section around `body`, in `t`'s language, carrying
/// `config`'s link and ending with the link that opens it at `page_url`
/// (the calculator's address).
fn section(config: &Config, t: &text::Text, page_url: &str, body: &str) -> String {
    let query = escape(&link::encode(config));
    let page = escape(page_url.split('?').next().unwrap_or(page_url));
    format!(
        "<section class=\"vram-static\" lang=\"{}\" data-vram-link=\"{query}\" style=\"{}\">\n\
         {body}<p><a href=\"{page}?{query}\">{}</a></p>\n</section>\n",
        t.html_lang,
        look::SECTION,
        escape(t.open_full)
    )
}

/// A paragraph of `text` in `style`.
fn paragraph(style: &str, text: &str) -> String {
    format!("<p style=\"{style}\">{}</p>\n", escape(text))
}

/// A cell's style: numbers right-aligned, the highlighted strategy's row marked.
fn cell_style(align: Align, chosen: bool) -> String {
    let side = match align {
        Align::Left => "left",
        Align::Right => "right",
    };
    let chosen = if chosen { look::CHOSEN } else { "" };
    format!("{}{side}{chosen}", look::CELL)
}

/// `text` safe inside HTML text and double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment_of(query: &str) -> String {
        fragment(&link::decode(query).config, "https://example.org/calc/").expect("a view")
    }

    /// The lesson's figures, in order, the three charts, and the link that
    /// opens the same configuration.
    #[test]
    fn the_lessons_view_has_its_figures_charts_and_link() {
        let html = fragment_of("");
        let mut at = 0;
        for figure in ["112 GB", "38.5 GB", "26.25 GB", "14 GB"] {
            let found = html[at..]
                .find(figure)
                .unwrap_or_else(|| panic!("{figure}"));
            at += found;
        }
        assert_eq!(html.matches("<svg ").count(), 3);
        assert_eq!(html.matches("<figure ").count(), 3);
        assert!(html.contains("<tr class=\"chosen\"><td style="), "{html}");
        let chosen = html.split("<tr class=\"chosen\">").nth(1).unwrap();
        assert!(chosen.split("</tr>").next().unwrap().contains(">DDP</td>"));
        let query = link::encode(&link::decode("").config).replace('&', "&amp;");
        assert!(html.contains(&format!("href=\"https://example.org/calc/?{query}\"")));
    }

    /// In Chinese with a model: the step's chart too, the words Chinese.
    #[test]
    fn a_chinese_view_with_a_model_has_four_charts() {
        let html = fragment_of("model=llama2-7b&lang=zh");
        assert!(html.contains("lang=\"zh-Hans\""));
        assert!(html.contains("每张 GPU 的显存"));
        assert_eq!(html.matches("<svg ").count(), 4);
    }

    /// A deployment's view: its verdict and figures in tables, no chart,
    /// the link keeping `job=serve`.
    #[test]
    fn a_serving_view_has_its_verdict_and_tables() {
        let html = fragment_of("job=serve&model=llama3.1-8b&gpu=h100-80gb&gpus=1");
        assert!(html.contains("Runs on vLLM"), "{html}");
        assert_eq!(html.matches("<table ").count(), 3);
        assert!(html.contains("job=serve"));
        assert!(!html.contains("<svg "));
    }

    /// An RL run's view (issue 62: it was the terminal's text): the heading,
    /// the verdict, a table for each phase, the step, the step phase by
    /// phase and the limits, then verl's overrides; no chart, the link
    /// keeping `job=rl`. In Chinese, the same in Chinese.
    #[test]
    fn an_rl_view_has_its_tables_timeline_and_overrides() {
        let query = "job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full";
        let html = fragment_of(query);
        assert!(
            html.contains(">GRPO of Qwen2.5 7B on 8 × H20</p>"),
            "{html}"
        );
        assert!(html.contains("Both phases fit on each GPU"), "{html}");
        assert_eq!(html.matches("<table ").count(), 5);
        for heading in [
            "Generating: the rollout engine beside the trainer",
            "A step, phase by phase, on one GPU",
            "How far it goes on these GPUs",
            "As verl's overrides",
        ] {
            assert!(html.contains(&format!("<h3>{heading}</h3>")), "{heading}");
        }
        assert!(html.contains(">Generate the responses</td>"), "{html}");
        assert!(
            html.contains("<code>algorithm.adv_estimator=grpo\n"),
            "{html}"
        );
        assert!(html.contains("job=rl") && !html.contains("<svg "));
        let chinese = fragment_of(&format!("{query}&lang=zh"));
        assert!(chinese.contains("lang=\"zh-Hans\""));
        assert!(
            chinese.contains(">GRPO 后训练 Qwen2.5 7B，8 × H20</p>"),
            "{chinese}"
        );
        assert!(
            chinese.contains("<h3>一步的各个阶段（单卡）</h3>"),
            "{chinese}"
        );
        assert!(
            chinese.contains(">显存占用比例（gpu_util）</td>"),
            "{chinese}"
        );
    }

    /// Text from the configuration is escaped: a link's values never make markup.
    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        let html = fragment_of("");
        assert!(!html.contains("<script") && !html.contains("<style"));
    }
}
