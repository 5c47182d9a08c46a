//! The training page's figures as words and attributes, each a pure function
//! of the report that the page's components (`vram-app`) and the first-paint
//! module (`crates/first`) both call; and [`patches`], the changes that bring
//! the view written at build time (the default configuration's, `vram-prerender`)
//! to another lesson link's figures before the page's WebAssembly arrives.
//!
//! A lesson link ([`lesson_config`]) changes only the lesson's fields (the
//! model's size, the GPUs, their memory and reserve, the formats, the
//! optimizer) and the highlighted strategy: the written view's markup stays,
//! its words, attributes and charts change. `crates/prerender/tests/written.rs`
//! holds the written view so changed equal to the view the same components
//! render for the link, for every lesson link it draws.

use vram_core::decimal::shortest_decimal;
use vram_core::format::{format_bytes, format_number, format_params, format_percent, MemoryUnit};
use vram_core::input::form::{is_enabled, options, text_of};
use vram_core::input::link;
use vram_core::report::table::{Cell, Column, TableWords, Verdict};
use vram_core::{Bytes, Config, Field, Report, Strategy, StrategyReport};

use crate::chart::ChartKind;
use crate::notes::{model_note, notes, table_words};
use crate::text::{self, Text};

/// The keys a lesson link may hold: the lesson's fields, the highlighted
/// strategy, and how the page is shown (its language, embedded or not, the
/// link's version). A link with any other key is drawn by the page alone.
pub const LESSON_KEYS: [&str; 11] = [
    "v", "lang", "embed", "params", "gpus", "gpu_mem", "dtype", "grad_acc", "opt", "overhead",
    "stage",
];

/// The configuration of `query` (without its `?`) when it is a lesson link
/// the written view can show: only [`LESSON_KEYS`], each read without a
/// problem, and a configuration the report evaluates. `None` otherwise.
pub fn lesson_config(query: &str) -> Option<Config> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let keys_are_the_lessons = form_urlencoded::parse(query.as_bytes())
        .all(|(key, _)| LESSON_KEYS.contains(&key.as_ref()));
    let decoded = link::decode(query);
    let config = decoded.config;
    (keys_are_the_lessons
        && decoded.problems.is_empty()
        && config.model.is_none()
        && same_fields_as_written(&config))
    .then_some(config)
}

/// Whether `config`'s form shows the fields the written view shows (the
/// default's): a field it hides is written without its control (FP8's
/// recipe, shown under `dtype=fp8`), which no patch can bring.
fn same_fields_as_written(config: &Config) -> bool {
    let default = Config::default();
    Field::ALL.into_iter().all(|field| {
        is_enabled(field, |f| text_of(config, f)) == is_enabled(field, |f| text_of(&default, f))
    })
}

/// Where a change goes in the written view.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// The element with this `data-testid`.
    TestId(String),
    /// The form's control whose `name` is this key (an `<input>` or a `<select>`).
    Control(&'static str),
}

/// What changes there.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The element's own text (its text children, as one, where the last
    /// was). [`patches`] writes an empty text as one space, as the page's
    /// renderer does (tachys 0.2, `view/strings.rs`: the text node exists).
    Text(String),
    /// An attribute set to a value (`Some("")` for a bare one such as
    /// `hidden`), or removed (`None`).
    Attr(&'static str, Option<String>),
    /// Everything inside the element (a chart's SVG).
    Inner(String),
}

/// One change of the written view.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub target: Target,
    pub change: Change,
}

/// `Some("")` where `on`: a bare attribute present, else absent.
fn bare(on: bool) -> Option<String> {
    on.then(String::new)
}

/// The model's parameter count as the form's note says it, with a mixture of
/// experts' active parameters and the model's note after it.
pub fn params_line(t: &Text, config: &Config) -> String {
    format!(
        "{} {} {}{}",
        format_number(params_count(config)),
        t.parameters,
        model_note(t, config),
        active_note(t, config)
    )
}

/// The model's own parameter count (with LoRA the report's parameters
/// include the adapters); zero without a model or size.
pub fn params_count(config: &Config) -> f64 {
    config.params().map_or(0.0, |p| p.get())
}

/// A mixture of experts' active parameters per token, after its total.
pub fn active_note(t: &Text, config: &Config) -> String {
    match config.model.map(|m| m.architecture) {
        Some(arch) if arch.moe.is_moe() => format!(
            " · {}",
            text::fill(
                t.active_params,
                &[&format_number(arch.active_param_count() as f64)]
            )
        ),
        _ => String::new(),
    }
}

/// The optimizer's bytes per parameter and their source.
pub fn optimizer_note(t: &Text, config: &Config) -> String {
    let (optimizer, precision) = (config.optimizer, config.precision);
    text::fill(
        t.optimizer_note,
        &[
            &format_number(optimizer.moment_bytes_per_param(precision)),
            &format_number(precision.master_copy_bytes()),
            &format_number(optimizer.state_bytes_per_param(precision)),
            vram_core::memory::Optimizer::ALL
                .iter()
                .position(|&o| o == optimizer)
                .map_or("", |i| t.optimizer_source[i]),
        ],
    )
}

/// The memory per GPU in both units, so "80 GB" cards read honestly.
pub fn gpu_capacity(config: &Config) -> String {
    let memory = Bytes::from_gb(config.gpu_mem_gb);
    let gib = format_bytes(memory, MemoryUnit::Gib);
    match config.gpu {
        Some(gpu) => format!(
            "{}: {} MiB = {} = {}",
            gpu.name,
            gpu.memory_mib,
            format_bytes(memory, MemoryUnit::Gb),
            gib
        ),
        None => format!("= {gib}"),
    }
}

/// The verdict above the table, in its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryLine {
    /// "7 B parameters on 8 GPUs".
    pub model: String,
    /// The sentence's end and the usable memory per GPU, with the space after it.
    pub usable: String,
    /// The highlighted strategy's verdict, and where it does not fit what does: the bar's words.
    pub bar: String,
    /// What does fit, after the bar where the highlighted strategy fits (empty where it is in the bar).
    pub after_bar: String,
    /// Whether the highlighted strategy fits.
    pub fits: bool,
    /// The least sharding that fits, where the highlighted one does not.
    pub fitting: Option<Strategy>,
}

impl SummaryLine {
    /// The verdict on `report`; `plans` what the ranked plans found when no
    /// strategy fits on its own (empty until they are asked).
    pub fn of(t: &Text, report: &Report, plans: Option<&str>) -> SummaryLine {
        let unit = report.unit;
        let budget = report.budget;
        let chosen = report.highlighted();
        let usable = text::fill(
            match budget.context().get() > 0.0 {
                true => t.summary_usable_context,
                false => t.summary_usable,
            },
            &[
                &format_bytes(budget.usable(), unit),
                &format_bytes(budget.gpu_memory(), unit),
                &format_percent(budget.reserved_fraction()),
                &format_bytes(budget.context(), unit),
            ],
        );
        let gpus = report.gpus().to_string();
        let model = text::fill(
            t.summary_model,
            &[
                &format_params(report.setup.params()),
                &gpus,
                if report.gpus() == 1 { "" } else { t.plural_s },
            ],
        );
        let fits = if chosen.fits {
            t.it_fits
        } else {
            t.it_does_not_fit
        };
        // What is kept, or the step's peak where it rises above it.
        let (phase, peak) = chosen.step.peak();
        let kept = format_bytes(chosen.memory.total, unit);
        let verdict = if report.activations.is_some() && peak.get() > chosen.memory.total.get() {
            text::fill(
                t.summary_needs_peak,
                &[
                    chosen.strategy.label(),
                    &format_bytes(peak, unit),
                    crate::chart::phase_name(t, phase),
                    &kept,
                    fits,
                ],
            )
        } else {
            text::fill(t.summary_needs, &[chosen.strategy.label(), &kept, fits])
        };
        let advice = match report.least_sharding_that_fits() {
            Some(best) if best == chosen.strategy => String::new(),
            Some(best) => text::fill(
                t.least_sharding,
                &[
                    best.label(),
                    &format_bytes(report.strategy(best).memory.total, unit),
                ],
            ),
            None => match (plans, report.strategy(Strategy::Zero3).fewest_gpus) {
                (Some(words), _) => words.to_string(),
                (None, Some(gpus)) => text::fill(t.zero3_fits_on, &[&gpus.to_string()]),
                (None, None) => t.nothing_fits.into(),
            },
        };
        let fitting = report
            .least_sharding_that_fits()
            .filter(|best| *best != chosen.strategy && !chosen.fits);
        let (bar, after_bar) = match chosen.fits {
            true => (verdict, advice),
            false => (format!("{verdict}{advice}"), String::new()),
        };
        SummaryLine {
            model,
            usable: format!("{}{}{}", t.sentence_end, usable, t.word_space),
            bar,
            after_bar,
            fits: chosen.fits,
            fitting,
        }
    }

    /// The button's words that highlight the least sharding that fits.
    pub fn show_fitting(&self, t: &Text) -> Option<String> {
        self.fitting
            .map(|best| text::fill(t.show_strategy, &[best.label()]))
    }
}

/// A table cell's unrounded figure, as `data-value` holds it: GB for memory,
/// billions for parameters, empty where there is none.
pub fn cell_value(cell: Cell) -> String {
    match cell {
        Cell::Bytes(bytes) => shortest_decimal(bytes.gb()),
        Cell::Params(params) => shortest_decimal(params.billions()),
        Cell::Gpus(Some(gpus)) => gpus.to_string(),
        Cell::Seconds(Some(seconds)) => shortest_decimal(seconds),
        _ => String::new(),
    }
}

/// A table cell's words: memory in its column's unit.
pub fn cell_text(
    report: &Report,
    strategy: Strategy,
    column: Column,
    words: &TableWords,
) -> String {
    column.cell(report.strategy(strategy)).text_like(
        report.unit,
        words,
        Some(column.largest(report)),
    )
}

/// The step's peak under a strategy's total, where it rises above what is kept.
pub fn peak_note(t: &Text, row: &StrategyReport, unit: MemoryUnit) -> Option<String> {
    let (kept, peak) = (row.memory.total, row.step.peak().1);
    (peak.get() > kept.get()).then(|| text::fill(t.peak_sub, &[&format_bytes(peak, unit)]))
}

/// The verdict's word in the "fits?" column.
pub fn fits_word(t: &Text, row: &StrategyReport) -> &'static str {
    match Column::Fits.cell(row) {
        Cell::Verdict(Verdict::Fits) => t.fits_yes,
        Cell::Verdict(Verdict::DoesNotFit) => t.fits_no,
        _ => t.not_run,
    }
}

/// What is free, or over, under the verdict.
pub fn headroom_note(t: &Text, row: &StrategyReport, unit: MemoryUnit) -> String {
    let headroom = row.headroom;
    let amount = format_bytes(Bytes::new(headroom.get().abs()), unit);
    text::fill(
        if headroom.get() >= 0.0 {
            t.free
        } else {
            t.over
        },
        &[&amount],
    )
}

/// The memory table's columns after the strategy's, up to the total: each
/// cell's test id, and the report's column.
pub const MEMORY_COLUMNS: [(&str, Column); 5] = [
    ("mem-weights", Column::Weights),
    ("mem-grads", Column::Gradients),
    ("mem-optim", Column::OptimizerStates),
    ("mem-act", Column::Activations),
    ("mem-buf", Column::Buffers),
];

/// The memory table's last columns: fewest GPUs and the largest model.
pub const LAST_COLUMNS: [(&str, Column); 2] = [
    ("fewest-gpus", Column::FewestGpus),
    ("max-params", Column::LargestModel),
];

/// The placement table's columns: each cell's test id, and the report's column.
pub const PLACEMENT_COLUMNS: [(&str, Column); 5] = [
    ("mem-gpu", Column::Total),
    ("mem-cpu", Column::CpuPerNode),
    ("mem-nvme", Column::NvmePerNode),
    ("comm", Column::Communication),
    ("comm-time", Column::CommunicationSeconds),
];

/// The note under the placement table: DeepSpeed's estimate where its
/// accounting is asked for, else the lesson's.
pub fn placement_note(t: &Text, report: &Report) -> String {
    match report.strategy(Strategy::Zero3).beyond.deepspeed {
        Some(estimate) => text::fill(
            t.placement_deepspeed,
            &[
                &format_bytes(estimate.gpu, MemoryUnit::Gib),
                &format_bytes(estimate.cpu_per_node, MemoryUnit::Gib),
            ],
        ),
        None => t.placement_course.to_string(),
    }
}

/// The changes that bring the written view of the default configuration, in
/// `t`'s language, to `config`'s (a [`lesson_config`]) with its `report`:
/// the form's values, the verdict, the tables, the notes and the charts
/// (`svg`: a chart drawn at the written view's size).
pub fn patches(
    t: &Text,
    config: &Config,
    report: &Report,
    svg: impl Fn(ChartKind) -> String,
) -> Vec<Patch> {
    let mut out = Vec::with_capacity(400);
    let mut put = |target: Target, change: Change| {
        let change = match change {
            Change::Text(text) if text.is_empty() => Change::Text(" ".to_string()),
            change => change,
        };
        out.push(Patch { target, change })
    };
    let id = |s: &str| Target::TestId(s.to_string());
    form_patches(t, config, &mut put);
    let count = params_count(config);
    put(
        id("params-count"),
        Change::Attr("data-value", Some(shortest_decimal(count))),
    );
    put(id("params-count"), Change::Text(params_line(t, config)));
    put(
        id("gpu-capacity"),
        Change::Attr("data-value", Some(shortest_decimal(config.gpu_mem_gb))),
    );
    put(id("gpu-capacity"), Change::Text(gpu_capacity(config)));
    put(
        id("optimizer-bytes"),
        Change::Text(optimizer_note(t, config)),
    );
    let line = SummaryLine::of(t, report, None);
    put(
        id("summary"),
        Change::Attr("class", Some(with_class("summary", "fits", line.fits))),
    );
    put(id("summary-model"), Change::Text(line.model.clone()));
    put(id("summary-usable"), Change::Text(line.usable.clone()));
    put(id("verdict-bar"), Change::Text(line.bar.clone()));
    put(
        id("summary-after-bar"),
        Change::Text(line.after_bar.clone()),
    );
    put(
        id("summary-show-fitting"),
        Change::Attr("hidden", bare(line.fitting.is_none())),
    );
    put(
        id("summary-show-fitting"),
        Change::Text(line.show_fitting(t).unwrap_or_default()),
    );
    put(id("summary-fixes"), Change::Attr("hidden", bare(line.fits)));
    // What would make it fit: a fold hidden while the highlighted strategy fits.
    put(id("fixes"), Change::Attr("hidden", bare(line.fits)));
    put(
        id("usable"),
        Change::Text(format!(
            "≤ {}",
            format_bytes(report.budget.usable(), report.unit)
        )),
    );
    let words = table_words(t);
    for strategy in Strategy::ALL {
        table_row_patches(t, report, strategy, &words, &mut put);
    }
    let activations = report.activations;
    let figure = |bytes: Option<Bytes>| bytes.map_or(String::new(), |b| shortest_decimal(b.gb()));
    let note = notes(t, report);
    put(
        id("activations"),
        Change::Attr("hidden", bare(note.is_empty())),
    );
    put(
        id("act-per-layer"),
        Change::Attr("data-value", Some(figure(activations.map(|a| a.per_layer)))),
    );
    put(
        id("act-total"),
        Change::Attr("data-value", Some(figure(activations.map(|a| a.total)))),
    );
    put(id("activations"), Change::Text(note));
    put(
        id("placement-note"),
        Change::Text(placement_note(t, report)),
    );
    for kind in [ChartKind::Memory, ChartKind::MaxParams, ChartKind::Scaling] {
        let chart = format!("chart-svg-{}", kind.id());
        put(
            id(&chart),
            Change::Attr("aria-label", Some(crate::chart::describe(t, report, kind))),
        );
        put(id(&chart), Change::Inner(svg(kind)));
    }
    out
}

/// `base` with `class` after it where `on`.
fn with_class(base: &str, class: &str, on: bool) -> String {
    match on {
        true => format!("{base} {class}"),
        false => base.to_string(),
    }
}

/// Every field's control set to `config`'s text (a choice's `<select>`
/// holding its chosen option alone, as the written view holds the default's),
/// the fields shown the written view's ([`lesson_config`]). A list's boxes
/// are not among a lesson link's fields.
fn form_patches(t: &Text, config: &Config, put: &mut impl FnMut(Target, Change)) {
    use vram_core::input::field::Section;
    let text = |field: Field| text_of(config, field);
    for field in Field::ALL {
        if field.place().section == Section::LinkOnly || field.is_list() {
            continue;
        }
        let key = field.key();
        let chosen = text(field);
        let is_choice =
            field.is_preset() || !field.choices().is_empty() || field == Field::Attention;
        if !is_choice {
            put(Target::Control(key), Change::Attr("value", Some(chosen)));
            continue;
        }
        // The header's lists (the display's) hold every option, as wide as
        // their longest; a list as wide as its box only its chosen one.
        let every = field.place().section == Section::Display;
        let option = options(field)
            .into_iter()
            .zip(text::choice_labels(t, field))
            .filter(|(option, _)| every || *option == chosen)
            .map(|(option, label)| {
                let selected = if *option == chosen { " selected" } else { "" };
                format!(
                    "<option value=\"{}\"{selected}>{}</option>",
                    escape_html(option),
                    escape_html(label)
                )
            })
            .collect::<String>();
        put(Target::Control(key), Change::Inner(option));
    }
}

/// `text` safe inside an element or a double-quoted attribute.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A strategy's row of the memory table and of the placement table.
fn table_row_patches(
    t: &Text,
    report: &Report,
    strategy: Strategy,
    words: &TableWords,
    put: &mut impl FnMut(Target, Change),
) {
    let sid = strategy.id();
    let id = |prefix: &str| Target::TestId(format!("{prefix}-{sid}"));
    let row = report.strategy(strategy);
    let chosen = report.highlighted().strategy == strategy;
    let unit = report.unit;
    let class = match (chosen, row.fits) {
        (true, true) => "highlighted fits",
        (true, false) => "highlighted",
        (false, true) => "fits",
        (false, false) => "",
    };
    put(id("row"), Change::Attr("class", Some(class.to_string())));
    put(
        id("row"),
        Change::Attr("aria-current", chosen.then(|| "true".to_string())),
    );
    put(
        id("strategy"),
        Change::Attr("aria-pressed", Some(chosen.to_string())),
    );
    let mut cell = |testid: &str, column: Column| {
        put(
            id(testid),
            Change::Attr("data-value", Some(cell_value(column.cell(row)))),
        );
        put(
            id(testid),
            Change::Text(cell_text(report, strategy, column, words)),
        );
    };
    for (testid, column) in MEMORY_COLUMNS
        .into_iter()
        .chain(LAST_COLUMNS)
        .chain(PLACEMENT_COLUMNS)
    {
        cell(testid, column);
    }
    put(
        id("mem-total"),
        Change::Attr("data-value", Some(shortest_decimal(row.memory.total.gb()))),
    );
    put(
        id("mem-total"),
        Change::Text(format_bytes(row.memory.total, unit)),
    );
    let peak = peak_note(t, row, unit);
    put(
        id("peak"),
        Change::Attr("data-value", Some(shortest_decimal(row.step.peak().1.gb()))),
    );
    put(id("peak"), Change::Attr("hidden", bare(peak.is_none())));
    put(id("peak"), Change::Text(peak.unwrap_or_default()));
    put(
        id("fits"),
        Change::Attr("data-value", Some(row.fits.to_string())),
    );
    put(id("fits"), Change::Text(fits_word(t, row).to_string()));
    put(
        id("headroom"),
        Change::Attr("data-value", Some(shortest_decimal(row.headroom.gb()))),
    );
    put(id("headroom"), Change::Attr("hidden", bare(!row.supported)));
    put(id("headroom"), Change::Text(headroom_note(t, row, unit)));
}
