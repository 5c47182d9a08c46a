//! The results to take away: a Markdown table for a homework or an issue, in
//! the reader's words, and CSV for a spreadsheet, in bytes and unrounded.

use crate::report::table::{Align, Column, Table, TableWords};
use crate::report::Report;

/// The strategy table ([`Table::of`]) in Markdown, in `words`, memory in the
/// report's unit rounded as the page shows it: the same columns as the CLI's
/// table and the same n/a where a strategy is not run.
pub fn markdown(report: &Report, words: &TableWords<'_>) -> String {
    let table = Table::of(report);
    let row = |cells: &[&str]| format!("| {} |\n", cells.join(" | "));
    let mut text = row(&table.headings(words));
    let rule: Vec<&str> = table
        .columns
        .iter()
        .map(|c| match c.align() {
            Align::Left => "---",
            Align::Right => "---:",
        })
        .collect();
    text.push_str(&row(&rule));
    for cells in table.texts(report.unit, words) {
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        text.push_str(&row(&cells));
    }
    text
}

/// The CSV's header: every figure of a strategy ([`Column::CSV`]), units in the names.
pub fn csv_header() -> String {
    Column::CSV.map(Column::csv_name).join(",")
}

/// One line per strategy after [`csv_header`], every column whether or not a
/// table shows it, values unrounded (empty where there is none, as for a
/// strategy not run), lines ended by CRLF as RFC 4180 has them.
pub fn csv(report: &Report) -> String {
    let table = Table::with_columns(report, Column::CSV.to_vec());
    let mut text = format!("{}\r\n", csv_header());
    for cells in &table.rows {
        let raw: Vec<String> = cells.iter().map(|cell| cell.raw()).collect();
        text.push_str(&raw.join(","));
        text.push_str("\r\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::input::link;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn the_lessons_table_in_markdown() {
        let report = Config::default().report().unwrap();
        assert_eq!(
            markdown(&report, &TableWords::ENGLISH),
            "| Strategy | Weights | Gradients | Optimizer states | Total per GPU | Fits | Fewest GPUs | Largest model | Sent per step |\n\
             | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n\
             | DDP | 14 GB | 14 GB | 84 GB | 112 GB | no | none | 4 B | 24.5 GB |\n\
             | ZeRO-1 | 14 GB | 14 GB | 10.5 GB | 38.5 GB | yes | 3 | 11.64 B | 24.5 GB |\n\
             | ZeRO-2 | 14 GB | 1.75 GB | 10.5 GB | 26.25 GB | yes | 2 | 17.07 B | 24.5 GB |\n\
             | ZeRO-3 | 1.75 GB | 1.75 GB | 10.5 GB | 14 GB | yes | 2 | 32 B | 36.75 GB |\n"
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn the_lessons_table_in_csv_is_unrounded_bytes() {
        let report = Config::default().report().unwrap();
        let text = csv(&report);
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(
            lines.len(),
            6,
            "header, four strategies, and the last line's end"
        );
        assert_eq!(
            lines[0],
            "strategy,weights_bytes,gradients_bytes,optimizer_states_bytes,activations_bytes,\
             buffers_bytes,total_bytes,fits,headroom_bytes,max_params,fewest_gpus,cpu_per_node_bytes,\
             nvme_per_node_bytes,communication_bytes_per_step,communication_seconds,peak_bytes",
            "the first release's columns in their order, the step's peak appended"
        );
        assert_eq!(
            lines[2],
            "zero1,14000000000,14000000000,10500000000,0,0,38500000000,true,25500000000,\
             11636363636.363636,3,0,0,24500000000,,38500000000"
        );
        let columns = lines[0].split(',').count();
        assert!(lines[1..5].iter().all(|l| l.split(',').count() == columns));
    }

    /// DeepSpeed's pipeline engine runs ZeRO-1 only: ZeRO-2's and ZeRO-3's
    /// rows have no verdict, fewest GPUs or largest model in any export.
    #[wasm_bindgen_test(unsupported = test)]
    fn strategies_not_run_say_n_a_in_every_export() {
        let report = link::decode("model=llama2-7b&gpus=8&pp=2")
            .config
            .report()
            .unwrap();
        let markdown = markdown(&report, &TableWords::ENGLISH);
        let zero3 = markdown
            .lines()
            .find(|l| l.starts_with("| ZeRO-3"))
            .unwrap();
        let cells: Vec<&str> = zero3
            .trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .collect();
        let headings: Vec<&str> = markdown
            .lines()
            .next()
            .unwrap()
            .trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .collect();
        for heading in ["Fits", "Fewest GPUs", "Largest model"] {
            let at = headings.iter().position(|h| *h == heading).unwrap();
            assert_eq!(cells[at], "n/a", "{heading}: {markdown}");
        }
        let zero1 = markdown
            .lines()
            .find(|l| l.starts_with("| ZeRO-1"))
            .unwrap();
        assert!(!zero1.contains("n/a"), "{zero1}");
        let csv = csv(&report);
        let zero2 = csv.split("\r\n").find(|l| l.starts_with("zero2,")).unwrap();
        let fields: Vec<&str> = zero2.split(',').collect();
        // fits, headroom, largest model and fewest GPUs all empty: n/a is no
        // verdict (issue 47, item 7: it read `false`, as if it were run and
        // did not fit).
        assert_eq!(&fields[7..11], ["", "", "", ""], "{zero2}");
    }
}
