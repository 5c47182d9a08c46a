//! The strategy table as data: which columns a [`Report`] shows and what each
//! cell holds, typed (bytes, a parameter count, a verdict, a GPU count,
//! seconds). Every renderer — the page, the CLI's table, Markdown and CSV —
//! draws this one table, so they show the same columns and the same figures,
//! and a strategy no framework runs says n/a in each of them.

use crate::memory::Strategy;
use crate::report::{Report, StrategyReport};
use vram_shared::decimal::shortest_decimal;
use vram_shared::format::{format_bytes_like, format_params, format_seconds, MemoryUnit};
use vram_shared::units::{Bytes, ParamCount};

/// A column of the strategy table, in the order the tables show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// The strategy's name.
    Strategy,
    /// Weights on one GPU.
    Weights,
    /// Gradients on one GPU.
    Gradients,
    /// Optimizer states on one GPU.
    OptimizerStates,
    /// Activations kept on one GPU, when an architecture is known.
    Activations,
    /// DeepSpeed's communication buffers, when counted.
    Buffers,
    /// What one GPU keeps: the sum of the parts.
    Total,
    /// The step's peak (`memory::step`), when activations are counted.
    Peak,
    /// Whether the peak fits in the usable memory, or n/a.
    Fits,
    /// Usable memory left at the peak (negative when it does not fit).
    Headroom,
    /// The fewest GPUs on which the strategy fits.
    FewestGpus,
    /// The largest model whose states fit (the lesson's question).
    LargestModel,
    /// Each node's CPU memory, when something is offloaded there.
    CpuPerNode,
    /// Each node's NVMe, when something is offloaded there.
    NvmePerNode,
    /// Bytes each GPU sends and receives per step.
    Communication,
    /// The least time that takes, when a bandwidth is known.
    CommunicationSeconds,
}

/// Left for words, right for figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Words: the strategy and the verdict.
    Left,
    /// Figures.
    Right,
}

impl Column {
    /// Every column, in the tables' order.
    pub const ALL: [Column; 16] = [
        Column::Strategy,
        Column::Weights,
        Column::Gradients,
        Column::OptimizerStates,
        Column::Activations,
        Column::Buffers,
        Column::Total,
        Column::Peak,
        Column::Fits,
        Column::Headroom,
        Column::FewestGpus,
        Column::LargestModel,
        Column::CpuPerNode,
        Column::NvmePerNode,
        Column::Communication,
        Column::CommunicationSeconds,
    ];

    /// The CSV's columns, in the order its header has named them since the
    /// first release: [`Self::ALL`]'s, the largest model before the fewest
    /// GPUs; the step's peak came later and is appended.
    pub const CSV: [Column; 16] = {
        let mut csv = [Column::Peak; 16];
        let (mut from, mut to) = (0, 0);
        while from < Column::ALL.len() {
            let column = match Column::ALL[from] {
                Column::FewestGpus => Column::LargestModel,
                Column::LargestModel => Column::FewestGpus,
                column => column,
            };
            if !matches!(column, Column::Peak) {
                csv[to] = column;
                to += 1;
            }
            from += 1;
        }
        csv
    };

    /// The column's name in CSV's header, its unit in the name.
    pub const fn csv_name(self) -> &'static str {
        match self {
            Column::Strategy => "strategy",
            Column::Weights => "weights_bytes",
            Column::Gradients => "gradients_bytes",
            Column::OptimizerStates => "optimizer_states_bytes",
            Column::Activations => "activations_bytes",
            Column::Buffers => "buffers_bytes",
            Column::Total => "total_bytes",
            Column::Peak => "peak_bytes",
            Column::Fits => "fits",
            Column::Headroom => "headroom_bytes",
            Column::FewestGpus => "fewest_gpus",
            Column::LargestModel => "max_params",
            Column::CpuPerNode => "cpu_per_node_bytes",
            Column::NvmePerNode => "nvme_per_node_bytes",
            Column::Communication => "communication_bytes_per_step",
            Column::CommunicationSeconds => "communication_seconds",
        }
    }

    /// Where the column's cells line up.
    pub const fn align(self) -> Align {
        match self {
            Column::Strategy | Column::Fits => Align::Left,
            _ => Align::Right,
        }
    }

    /// Whether a table of `report` shows this column: the activations and the
    /// step's peak when they are counted, buffers and each node's memory when
    /// any strategy has some, the time when a bandwidth is known. The headroom
    /// is written beside the verdict (the page) or in CSV, not as a column.
    pub fn shown(self, report: &Report) -> bool {
        let any = |part: fn(&StrategyReport) -> Bytes| {
            report.strategies.iter().any(|r| part(r).get() > 0.0)
        };
        match self {
            Column::Activations | Column::Peak => report.activations.is_some(),
            Column::Buffers => any(|r| r.memory.buffers),
            Column::CpuPerNode => any(|r| r.beyond.cpu_per_node),
            Column::NvmePerNode => any(|r| r.beyond.nvme_per_node),
            Column::CommunicationSeconds => report
                .strategies
                .iter()
                .any(|r| r.beyond.communication_seconds.is_some()),
            Column::Headroom => false,
            _ => true,
        }
    }

    /// What `row` holds in this column. A strategy no framework runs with the
    /// layout has no verdict, fewest GPUs or largest model: n/a.
    pub fn cell(self, row: &StrategyReport) -> Cell {
        let not_run = !row.supported;
        match self {
            Column::Strategy => Cell::Strategy(row.strategy),
            Column::Weights => Cell::Bytes(row.memory.weights),
            Column::Gradients => Cell::Bytes(row.memory.gradients),
            Column::OptimizerStates => Cell::Bytes(row.memory.optimizer_states),
            Column::Activations => Cell::Bytes(row.memory.activations),
            Column::Buffers => Cell::Bytes(row.memory.buffers),
            Column::Total => Cell::Bytes(row.memory.total),
            Column::Peak => Cell::Bytes(row.step.peak().1),
            Column::Fits => Cell::Verdict(match (row.supported, row.fits) {
                (false, _) => Verdict::NotRun,
                (true, true) => Verdict::Fits,
                (true, false) => Verdict::DoesNotFit,
            }),
            Column::Headroom if not_run => Cell::NotRun,
            Column::Headroom => Cell::Bytes(row.headroom),
            Column::FewestGpus if not_run => Cell::NotRun,
            Column::FewestGpus => Cell::Gpus(row.fewest_gpus),
            Column::LargestModel if not_run => Cell::NotRun,
            Column::LargestModel => Cell::Params(row.max_params),
            Column::CpuPerNode => Cell::Bytes(row.beyond.cpu_per_node),
            Column::NvmePerNode => Cell::Bytes(row.beyond.nvme_per_node),
            Column::Communication => Cell::Bytes(row.beyond.communication),
            Column::CommunicationSeconds => Cell::Seconds(row.beyond.communication_seconds),
        }
    }
}

/// Whether a strategy fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The step's peak is within the usable memory.
    Fits,
    /// It is not.
    DoesNotFit,
    /// No framework runs this strategy with the layout (DeepSpeed's pipeline
    /// engine and ZeRO-2/3).
    NotRun,
}

/// One cell of the table, typed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    /// The strategy: its name for people, its id for programs.
    Strategy(Strategy),
    /// A memory figure.
    Bytes(Bytes),
    /// A count of parameters.
    Params(ParamCount),
    /// Fits or not.
    Verdict(Verdict),
    /// A count of GPUs; `None` when no count up to 2^20 will do.
    Gpus(Option<u32>),
    /// Seconds; `None` when the time is not known.
    Seconds(Option<f64>),
    /// A figure that does not apply: the strategy is not run.
    NotRun,
}

/// The words a table is written in: one heading per [`Column`] (in
/// [`Column::ALL`]'s order), then the verdicts, n/a and "none".
#[derive(Debug, Clone, Copy)]
pub struct TableWords<'a> {
    /// One heading per column, in [`Column::ALL`]'s order.
    pub headings: [&'a str; 16],
    /// "Fits".
    pub yes: &'a str,
    /// "Does not fit".
    pub no: &'a str,
    /// "n/a": a strategy no framework runs.
    pub not_run: &'a str,
    /// No number of GPUs will do.
    pub none: &'a str,
    /// The GPUs' memory sets no limit on the model (everything offloaded,
    /// and the memory offload goes to not given).
    pub unbounded: &'a str,
    /// A figure that needs an input not given (the least communication time
    /// without a bandwidth): "–".
    pub not_given: &'a str,
}

#[cfg(test)]
impl TableWords<'static> {
    /// English words for the core's own tests (the front ends' words are
    /// `vram_view::notes::table_words`).
    pub const ENGLISH: TableWords<'static> = TableWords {
        headings: [
            "Strategy",
            "Weights",
            "Gradients",
            "Optimizer states",
            "Activations",
            "Buffers",
            "Total per GPU",
            "Peak of step",
            "Fits",
            "Headroom",
            "Fewest GPUs",
            "Largest model",
            "CPU per node",
            "NVMe per node",
            "Sent per step",
            "Least comm. time",
        ],
        yes: "yes",
        no: "no",
        not_run: "n/a",
        none: "none",
        unbounded: "no GPU limit",
        not_given: "–",
    };
}

impl<'a> TableWords<'a> {
    /// The heading of `column`.
    pub fn heading(&self, column: Column) -> &'a str {
        let index = Column::ALL.iter().position(|&c| c == column).unwrap_or(0);
        self.headings[index]
    }
}

impl Column {
    /// The largest memory figure of this column in `report` (zero for a
    /// column of other figures): the column is written in its unit.
    pub fn largest(self, report: &Report) -> Bytes {
        let largest = report
            .strategies
            .iter()
            .filter_map(|row| match self.cell(row) {
                Cell::Bytes(bytes) if bytes.get().is_finite() => Some(bytes.get().abs()),
                _ => None,
            })
            .fold(0.0, f64::max);
        Bytes::new(largest)
    }
}

impl Cell {
    /// The cell for people: memory in `unit`, rounded as the page shows it.
    pub fn text(self, unit: MemoryUnit, words: &TableWords<'_>) -> String {
        self.text_like(unit, words, None)
    }

    /// [`Cell::text`], memory in the unit `like` would be written in (a
    /// column's largest figure, [`Column::largest`]) when given.
    pub fn text_like(
        self,
        unit: MemoryUnit,
        words: &TableWords<'_>,
        like: Option<Bytes>,
    ) -> String {
        match self {
            Cell::Strategy(strategy) => strategy.label().to_string(),
            Cell::Bytes(bytes) => format_bytes_like(bytes, unit, like.unwrap_or(bytes)),
            Cell::Params(params) if !params.get().is_finite() => words.unbounded.to_string(),
            // No model fits beside what the configuration holds apart from
            // its states: "none", not a bare 0 without a unit.
            Cell::Params(params) if params.get() <= 0.0 => words.none.to_string(),
            Cell::Params(params) => format_params(params),
            Cell::Verdict(Verdict::Fits) => words.yes.to_string(),
            Cell::Verdict(Verdict::DoesNotFit) => words.no.to_string(),
            Cell::Verdict(Verdict::NotRun) | Cell::NotRun => words.not_run.to_string(),
            Cell::Gpus(Some(gpus)) => gpus.to_string(),
            Cell::Gpus(None) => words.none.to_string(),
            Cell::Seconds(Some(seconds)) => format_seconds(seconds),
            // Not "none" on every row: the time needs a bandwidth.
            Cell::Seconds(None) => words.not_given.to_string(),
        }
    }

    /// The cell for a program: bytes, parameters and seconds unrounded, fits
    /// as `true`/`false` (a strategy not run does not fit), empty where there
    /// is no figure.
    pub fn raw(self) -> String {
        match self {
            Cell::Strategy(strategy) => strategy.id().to_string(),
            // Whole bytes: what the floating-point sums leave below a byte
            // (24925243392.000004) is noise, not a figure.
            Cell::Bytes(bytes) => shortest_decimal(bytes.get().round()),
            // No figure where nothing bounds it (the JSON says why).
            Cell::Params(params) if !params.get().is_finite() => String::new(),
            Cell::Params(params) => shortest_decimal(params.get()),
            // n/a is no verdict: empty, as its other figures.
            Cell::Verdict(Verdict::NotRun) => String::new(),
            Cell::Verdict(verdict) => (verdict == Verdict::Fits).to_string(),
            Cell::Gpus(gpus) => gpus.map(|g| g.to_string()).unwrap_or_default(),
            Cell::Seconds(seconds) => seconds.map(shortest_decimal).unwrap_or_default(),
            Cell::NotRun => String::new(),
        }
    }
}

/// The strategy table of a report: the columns it shows and one row of cells
/// per strategy, in [`crate::memory::Strategy::ALL`]'s order.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The columns shown, in order.
    pub columns: Vec<Column>,
    /// One row per strategy, a cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// The table `report` shows.
    pub fn of(report: &Report) -> Table {
        let columns: Vec<Column> = Column::ALL
            .into_iter()
            .filter(|c| c.shown(report))
            .collect();
        Table::with_columns(report, columns)
    }

    /// The table of `report` with the given columns.
    pub fn with_columns(report: &Report, columns: Vec<Column>) -> Table {
        let rows = report
            .strategies
            .iter()
            .map(|row| columns.iter().map(|c| c.cell(row)).collect())
            .collect();
        Table { columns, rows }
    }

    /// The table's headings in `words`.
    pub fn headings<'a>(&self, words: &TableWords<'a>) -> Vec<&'a str> {
        self.columns.iter().map(|&c| words.heading(c)).collect()
    }

    /// Each row's cells as people read them, each column of memory in one
    /// unit, that of its largest figure.
    pub fn texts(&self, unit: MemoryUnit, words: &TableWords<'_>) -> Vec<Vec<String>> {
        let largest: Vec<Bytes> = (0..self.columns.len())
            .map(|c| {
                let biggest = self
                    .rows
                    .iter()
                    .filter_map(|row| match row[c] {
                        Cell::Bytes(bytes) if bytes.get().is_finite() => Some(bytes.get().abs()),
                        _ => None,
                    })
                    .fold(0.0, f64::max);
                Bytes::new(biggest)
            })
            .collect();
        self.rows
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&largest)
                    .map(|(cell, &like)| cell.text_like(unit, words, Some(like)))
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Issue 47, item 9: a largest model of 0 read "0" without a unit, and
    /// the least communication time "none" on every row where no bandwidth
    /// was given; the first is "none" (no model fits), the second "–" (not
    /// given).
    #[wasm_bindgen_test(unsupported = test)]
    fn no_model_and_no_bandwidth_say_so() {
        let words = TableWords::ENGLISH;
        let unit = MemoryUnit::Gb;
        assert_eq!(
            Cell::Params(ParamCount::new(0.0)).text(unit, &words),
            "none"
        );
        assert_eq!(Cell::Params(ParamCount::new(4e9)).text(unit, &words), "4 B");
        assert_eq!(Cell::Seconds(None).text(unit, &words), "–");
        assert_eq!(Cell::Gpus(None).text(unit, &words), "none");
        // For a program: n/a is no verdict, and bytes are whole.
        assert_eq!(Cell::Verdict(Verdict::NotRun).raw(), "");
        assert_eq!(
            Cell::Bytes(Bytes::new(24_925_243_392.000_004)).raw(),
            "24925243392"
        );
    }
}
