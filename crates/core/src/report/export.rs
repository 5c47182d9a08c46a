//! The results to take away: a Markdown table for a homework or an issue, in
//! the reader's words, and CSV for a spreadsheet, in bytes and unrounded.

use crate::format::{format_bytes, format_params};
use crate::input::decimal::shortest_decimal;
use crate::report::Report;

/// The Markdown table's headings and verdicts, in the page's language: strategy,
/// weights, gradients, optimizer states, activations, total, fits, largest model;
/// then the words for "yes" and "no".
pub type MarkdownWords<'a> = ([&'a str; 8], [&'a str; 2]);

/// One row per strategy, memory in the report's unit, rounded as the page shows
/// it; the activations column only when they are counted.
pub fn markdown(report: &Report, (headings, [yes, no]): MarkdownWords<'_>) -> String {
    let unit = report.unit;
    let with_activations = report.activations.is_some();
    let keep = |column: &usize| *column != 4 || with_activations;
    let row = |cells: Vec<String>| {
        let kept: Vec<&str> = cells
            .iter()
            .enumerate()
            .filter(|(column, _)| keep(column))
            .map(|(_, cell)| cell.as_str())
            .collect();
        format!("| {} |\n", kept.join(" | "))
    };
    let mut table = row(headings.iter().map(|h| h.to_string()).collect());
    let rule = (0..8)
        .filter(keep)
        .map(|column| {
            if column == 0 || column == 6 {
                "---"
            } else {
                "---:"
            }
        })
        .collect::<Vec<_>>()
        .join(" | ");
    table.push_str(&format!("| {rule} |\n"));
    for r in &report.strategies {
        let bytes = |b| format_bytes(b, unit);
        table.push_str(&row(vec![
            r.strategy.label().to_string(),
            bytes(r.memory.weights),
            bytes(r.memory.gradients),
            bytes(r.memory.optimizer_states),
            bytes(r.memory.activations),
            bytes(r.memory.total),
            if r.fits { yes } else { no }.to_string(),
            format_params(r.max_params),
        ]));
    }
    table
}

/// The CSV's header: every figure of a strategy, units in the names.
pub const CSV_HEADER: &str = "strategy,weights_bytes,gradients_bytes,optimizer_states_bytes,\
activations_bytes,buffers_bytes,total_bytes,fits,headroom_bytes,max_params,fewest_gpus,\
cpu_per_node_bytes,nvme_per_node_bytes,communication_bytes_per_step,communication_seconds";

/// One line per strategy after [`CSV_HEADER`], values unrounded (empty when
/// there is none), lines ended by CRLF as RFC 4180 has them.
pub fn csv(report: &Report) -> String {
    let mut text = format!("{CSV_HEADER}\r\n");
    for r in &report.strategies {
        let m = r.memory;
        let figures = [
            m.weights,
            m.gradients,
            m.optimizer_states,
            m.activations,
            m.buffers,
            m.total,
        ]
        .map(|b| shortest_decimal(b.get()));
        let optional = |value: Option<f64>| value.map(shortest_decimal).unwrap_or_default();
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{}\r\n",
            r.strategy.id(),
            figures.join(","),
            r.fits,
            shortest_decimal(r.headroom.get()),
            shortest_decimal(r.max_params.get()),
            optional(r.fewest_gpus.map(f64::from)),
            [
                r.beyond.cpu_per_node,
                r.beyond.nvme_per_node,
                r.beyond.communication
            ]
            .map(|b| shortest_decimal(b.get()))
            .join(","),
            optional(r.beyond.communication_seconds),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    const WORDS: MarkdownWords<'static> = (
        [
            "Strategy",
            "Weights",
            "Gradients",
            "Optimizer",
            "Activations",
            "Total",
            "Fits",
            "Largest model",
        ],
        ["yes", "no"],
    );

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn the_lessons_table_in_markdown() {
        let report = Config::default().report().unwrap();
        assert_eq!(
            markdown(&report, WORDS),
            "| Strategy | Weights | Gradients | Optimizer | Total | Fits | Largest model |\n\
             | --- | ---: | ---: | ---: | ---: | --- | ---: |\n\
             | DDP | 14 GB | 14 GB | 84 GB | 112 GB | no | 4 B |\n\
             | ZeRO-1 | 14 GB | 14 GB | 10.5 GB | 38.5 GB | yes | 11.64 B |\n\
             | ZeRO-2 | 14 GB | 1.75 GB | 10.5 GB | 26.25 GB | yes | 17.07 B |\n\
             | ZeRO-3 | 1.75 GB | 1.75 GB | 10.5 GB | 14 GB | yes | 32 B |\n"
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
    fn the_lessons_table_in_csv_is_unrounded_bytes() {
        let report = Config::default().report().unwrap();
        let text = csv(&report);
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(
            lines.len(),
            6,
            "header, four strategies, and the last line's end"
        );
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[2],
            "zero1,14000000000,14000000000,10500000000,0,0,38500000000,true,25500000000,\
             11636363636.363636,3,0,0,24500000000,"
        );
        let columns = CSV_HEADER.split(',').count();
        assert!(lines[1..5].iter().all(|l| l.split(',').count() == columns));
    }
}
