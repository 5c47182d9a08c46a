//! The two bar charts: each GPU's memory per strategy, stacked by part, and
//! the largest model each strategy can train, with their reference lines.

use super::*;

/// A reference line across the bars: its value on the axis, its colour, its
/// name and the bytes it stands for (none on the largest-model chart).
type Line = (f64, RGBColor, &'static str, vram_core::Bytes);

pub(super) fn plot<B: DrawingBackend>(
    root: &Area<B>,
    sheet: &Sheet,
    kind: ChartKind,
) -> Result<LabelBoxes, DrawingAreaErrorKind<B::ErrorType>> {
    let Sheet {
        report, t, scale, ..
    } = *sheet;
    let Palette { ground, ink, .. } = sheet.palette;
    // Drawn with plotters' elements on the drawing area directly: its chart
    // builder and mesh would cost the page some 25 KB of WebAssembly.
    root.fill(&ground)?;
    let bars = Bars::new(report, kind, scale, root.dim_in_pixel());
    let columns = bars.columns;
    let px = |css: f64| columns.px(css);
    draw_axes(root, &bars, sheet.palette, &bars.axis_title(t))?;

    // Bars, their values, and the strategies' names.
    let value_style = columns
        .font(13.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    let name_style = columns
        .font(13.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let lines = reference_lines(report, t, kind, sheet.palette);
    // Where the lines are and where labels are, so that no label is drawn
    // over a line or another label.
    let line_boxes: Vec<[i32; 4]> = lines
        .iter()
        .map(|line| columns.line_box(columns.y_of(line.0)))
        .collect();
    let mut taken: Vec<[i32; 4]> = Vec::new();
    for (index, row) in report.strategies.iter().enumerate() {
        let label = draw_bar(root, &bars, sheet.palette, t, index, row)?;
        let (x, bar_top) = (columns.x_of(index), bars.bar_top(row));
        let half = sheet.measure.width(&label, 13.0 * scale) / 2;
        let label_box = above_lines(
            [x - half, bar_top - px(18.0), x + half, bar_top - px(3.0)],
            &line_boxes,
            px(2.0),
        );
        let label_y = label_box[3];
        taken.push(label_box);
        root.draw_text(&label, &value_style, (x, label_y))?;
        root.draw_text(
            row.strategy.label(),
            &name_style,
            (x, columns.bottom + px(8.0)),
        )?;
    }

    let lines = lines.into_iter().map(|(value, color, name, bytes)| {
        let shown = match kind {
            ChartKind::Memory => format_bytes(bytes, report.unit),
            _ => format_params(report.setup.params()),
        };
        (columns.y_of(value), color, 2.0, format!("{name}: {shown}"))
    });
    let boxes = draw_reference_lines(root, sheet, &columns, lines, (taken, line_boxes))?;
    root.present()?;
    Ok(boxes)
}

/// One bar chart's figures and where they go, in device pixels.
struct Bars<'a> {
    report: &'a Report,
    kind: ChartKind,
    /// A column a strategy, the axis up to its top in the bars' unit.
    columns: Columns,
}

impl<'a> Bars<'a> {
    /// The chart of `kind` for `report` on an area of `width` × `height` pixels.
    fn new(report: &'a Report, kind: ChartKind, scale: f64, (width, height): (u32, u32)) -> Self {
        let mut bars = Bars {
            report,
            kind,
            columns: Columns::new(scale, (width, height), 34.0, Strategy::ALL.len(), 0.0),
        };
        bars.columns.y_max = bars.axis_top();
        bars
    }

    /// The axis' top: above the tallest bar and the reference, or, where
    /// one bar dwarfs the others (DDP's terabyte beside ZeRO-3's gigabytes),
    /// above the next, that bar cut and the axis broken, so the others stay
    /// legible.
    fn axis_top(&self) -> f64 {
        let reference = match self.kind {
            ChartKind::Memory => self.in_unit(self.report.budget.gpu_memory()),
            _ => self.model(),
        };
        // The tallest value and the next (without a sort: its code would cost
        // the page kilobytes).
        let (tallest, next) = self
            .report
            .strategies
            .iter()
            .map(|row| self.value_of(row))
            .filter(|value| value.is_finite())
            .fold((reference, 0.0), |(first, second), value| {
                if value > first {
                    (value, first)
                } else {
                    (first, second.max(value))
                }
            });
        let broken = tallest > 3.0 * next;
        if broken {
            next * 1.5
        } else {
            tallest * 1.2
        }
    }

    /// The model's parameters, in billions.
    fn model(&self) -> f64 {
        self.report.setup.params().billions()
    }

    /// Memory in the page's unit, so the axis reads as the table does.
    fn in_unit(&self, bytes: vram_core::Bytes) -> f64 {
        bytes.get() / self.report.unit.bytes()
    }

    /// A strategy's bar: its memory, or its largest model. A strategy no
    /// framework runs with the layout has no largest model (n/a).
    fn value_of(&self, row: &vram_core::StrategyReport) -> f64 {
        match self.kind {
            ChartKind::Memory => self.in_unit(row.memory.total),
            _ if !row.supported => 0.0,
            _ => row.max_params.billions(),
        }
    }

    /// The y axis' title.
    fn axis_title(&self, t: &Text) -> String {
        match self.kind {
            ChartKind::Memory => fill(t.chart_memory_axis, &[self.report.unit.symbol()]),
            _ => t.chart_y_axis.to_string(),
        }
    }

    fn half_bar(&self) -> i32 {
        (self.columns.slot * 0.3).round() as i32
    }

    /// A bar's top: an unbounded model (everything offloaded) fills the
    /// chart's height.
    fn bar_top(&self, row: &vram_core::StrategyReport) -> i32 {
        let columns = self.columns;
        columns.y_of(self.value_of(row).min(columns.y_max))
    }
}

/// The y axis: its grid and values at 1, 2 or 5 × 10^k, its line and the x
/// axis', and its title.
fn draw_axes<B: DrawingBackend>(
    root: &Area<B>,
    bars: &Bars,
    palette: Palette,
    axis: &str,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let Palette { ink, grid, .. } = palette;
    let columns = bars.columns;
    columns.draw_y_grid(root, (ink, grid))?;
    columns.draw_axis_lines(root, ink)?;
    columns.draw_y_title(root, axis, ink)
}

/// Lines across every bar, each labelled on the chart's ground: the current
/// model; or the usable memory and the card's capacity.
fn reference_lines(report: &Report, t: &Text, kind: ChartKind, palette: Palette) -> Vec<Line> {
    let in_unit = |bytes: vram_core::Bytes| bytes.get() / report.unit.bytes();
    match kind {
        ChartKind::Memory => vec![
            (
                in_unit(report.budget.usable()),
                palette.model,
                t.chart_usable,
                report.budget.usable(),
            ),
            (
                in_unit(report.budget.gpu_memory()),
                palette.ink,
                t.chart_capacity,
                report.budget.gpu_memory(),
            ),
        ],
        _ => vec![(
            report.setup.params().billions(),
            palette.model,
            t.chart_legend_model,
            vram_core::Bytes::ZERO,
        )],
    }
}

/// Strategy `index`'s bar: stacked by part on the memory chart, in the
/// colour of whether the model fits on the other; outlined when highlighted,
/// broken where cut. Returns the label of its value.
fn draw_bar<B: DrawingBackend>(
    root: &Area<B>,
    bars: &Bars,
    palette: Palette,
    t: &Text,
    index: usize,
    row: &vram_core::StrategyReport,
) -> Result<String, DrawingAreaErrorKind<B::ErrorType>> {
    let columns = bars.columns;
    let px = |css: f64| columns.px(css);
    let x = columns.x_of(index);
    let half_bar = bars.half_bar();
    let bar_top = bars.bar_top(row);
    let highlighted = row.strategy == bars.report.highlight;
    let label = match bars.kind {
        ChartKind::Memory => {
            draw_stack(root, bars, palette.parts, x, row, highlighted)?;
            format_bytes(row.memory.total, bars.report.unit)
        }
        _ if !row.supported => t.not_run.to_string(),
        _ => {
            let color = if row.max_params.billions() >= bars.model() {
                palette.fits
            } else {
                palette.too_small
            };
            root.draw(&Rectangle::new(
                [(x - half_bar, bar_top), (x + half_bar, columns.bottom)],
                shade(color, highlighted),
            ))?;
            format_params(row.max_params)
        }
    };
    if highlighted {
        root.draw(&Rectangle::new(
            [(x - half_bar, bar_top), (x + half_bar, columns.bottom)],
            palette.ink.stroke_width(px(2.0) as u32),
        ))?;
    }
    if bars.value_of(row) > columns.y_max {
        // The axis' break, across the cut bar.
        for dy in [px(10.0), px(16.0)] {
            root.draw(&PathElement::new(
                vec![
                    (x - half_bar - px(3.0), bar_top + dy + px(4.0)),
                    (x + half_bar + px(3.0), bar_top + dy - px(4.0)),
                ],
                palette.ground.stroke_width(px(3.0) as u32),
            ))?;
        }
    }
    Ok(label)
}

/// A memory bar: weights, gradients, optimizer states, activations,
/// buffers, stacked, each in its part's colour.
fn draw_stack<B: DrawingBackend>(
    root: &Area<B>,
    bars: &Bars,
    parts: [RGBColor; 5],
    x: i32,
    row: &vram_core::StrategyReport,
    highlighted: bool,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let m = row.memory;
    let (half_bar, columns) = (bars.half_bar(), bars.columns);
    let y_max = columns.y_max;
    let mut base = 0.0;
    for (part, color) in [
        m.weights,
        m.gradients,
        m.optimizer_states,
        m.activations,
        m.buffers,
    ]
    .into_iter()
    .zip(parts)
    {
        let top = base + bars.in_unit(part);
        root.draw(&Rectangle::new(
            [
                (x - half_bar, columns.y_of(top.min(y_max))),
                (x + half_bar, columns.y_of(base.min(y_max))),
            ],
            shade(color, highlighted),
        ))?;
        base = top;
    }
    Ok(())
}

/// A bar's fill: full for the highlighted strategy's, lighter for the others'.
fn shade(color: RGBColor, highlighted: bool) -> ShapeStyle {
    if highlighted {
        color.filled()
    } else {
        color.mix(0.75).filled()
    }
}
