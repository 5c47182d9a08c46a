//! One step of the highlighted strategy over time: its memory phase by phase.

use super::*;

/// The moments of the highlighted strategy's step, in order, each with its
/// name: the start (states and buffers), the forward's end, the backward's
/// start, the rebuilt layer under full recomputation, the optimizer's update.
pub(super) fn step_points(t: &Text, report: &Report) -> Vec<(&'static str, vram_core::Bytes)> {
    use vram_core::memory::step::Phase;
    let step = report.highlighted().step;
    std::iter::once((t.phase_start, step.optimizer_step))
        .chain(
            Phase::ALL
                .into_iter()
                .filter_map(|phase| step.at(phase).map(|bytes| (phase_name(t, phase), bytes))),
        )
        .collect()
}

/// The highlighted strategy's memory over one step: the states and buffers
/// held throughout, the activations rising through the forward pass to the
/// loss, the backward's start, the rebuilt layer, and freed for the
/// optimizer's update; the usable memory and what is kept drawn across.
pub(super) fn plot_step<B: DrawingBackend>(
    root: &Area<B>,
    sheet: &Sheet,
) -> Result<LabelBoxes, DrawingAreaErrorKind<B::ErrorType>> {
    let Sheet { report, t, .. } = *sheet;
    let Palette {
        ground,
        ink,
        model: usable_line,
        ..
    } = sheet.palette;
    root.fill(&ground)?;
    let unit = report.unit;
    let in_unit = |bytes: vram_core::Bytes| bytes.get() / unit.bytes();
    let points = step_points(t, report);
    let step = report.highlighted().step;
    let usable = in_unit(report.budget.usable());
    let y_max = points
        .iter()
        .map(|(_, bytes)| in_unit(*bytes))
        .filter(|value| value.is_finite())
        .fold(usable, f64::max)
        * 1.2;
    let frame = Frame::new(
        sheet.scale,
        &sheet.measure,
        unit,
        root.dim_in_pixel(),
        y_max,
        points.len(),
    );

    let axis = fill(t.chart_memory_axis, &[unit.symbol()]);
    frame.columns.draw_y_grid(root, (ink, sheet.palette.grid))?;
    frame.columns.draw_y_title(root, &axis, ink)?;
    let outline: Vec<(i32, i32)> = points
        .iter()
        .enumerate()
        .map(|(index, (_, bytes))| (frame.columns.x_of(index), frame.y_of(in_unit(*bytes))))
        .collect();
    draw_profile(
        root,
        &frame,
        sheet.palette,
        &outline,
        in_unit(step.optimizer_step),
    )?;

    // The usable memory and what is kept across, each labelled where it
    // covers no figure, no name and no line.
    let lines: [StepLine; 2] = [
        (
            usable,
            usable_line,
            t.chart_usable,
            report.budget.usable(),
            2.0,
        ),
        (in_unit(step.kept), ink, t.chart_kept, step.kept, 1.0),
    ];
    let line_boxes: Vec<[i32; 4]> = lines
        .iter()
        .map(|line| frame.columns.line_box(frame.y_of(line.0)))
        .collect();
    let (peak_phase, _) = step.peak();
    let peak_name = phase_name(t, peak_phase);
    // Where the figures are, so that no line's label covers one.
    let taken = draw_moments(root, &frame, ink, &points, &outline, peak_name, &line_boxes)?;
    let lines = lines.map(|(value, color, name, bytes, weight)| {
        let label = format!("{name}: {}", format_bytes(bytes, unit));
        (frame.y_of(value), color, weight, label)
    });
    let boxes = draw_reference_lines(root, sheet, &frame.columns, lines, (taken, line_boxes))?;
    root.present()?;
    Ok(boxes)
}

/// A line across the step's chart: its value on the axis, its colour, its
/// name, the bytes it stands for and its width in CSS pixels.
type StepLine = (f64, RGBColor, &'static str, vram_core::Bytes, f64);

/// Each moment's figure above its point of the `outline`, its name below
/// the axis (a word a line where the column is too narrow for the whole
/// name); the peak's figure in bold, every figure clear of the lines
/// (`line_boxes`). Returns where the figures are.
fn draw_moments<B: DrawingBackend>(
    root: &Area<B>,
    frame: &Frame,
    ink: RGBColor,
    points: &[(&'static str, vram_core::Bytes)],
    outline: &[(i32, i32)],
    peak_name: &str,
    line_boxes: &[[i32; 4]],
) -> Result<Vec<[i32; 4]>, DrawingAreaErrorKind<B::ErrorType>> {
    let Frame { measure, unit, .. } = *frame;
    let columns = frame.columns;
    let Columns {
        scale,
        bottom,
        slot,
        ..
    } = columns;
    let px = |css: f64| columns.px(css);
    let value_style = columns
        .font(12.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    // Where the figures are wider than their columns, only the peak's and the
    // optimizer step's are written (the table has every figure).
    let crowded = points.iter().any(|(_, bytes)| {
        f64::from(measure.width(&format_bytes(*bytes, unit), 13.0 * scale)) > slot * 0.9
    });
    let name_size = if crowded { 11.0 } else { 12.0 };
    let name_style = columns
        .font(name_size)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let mut taken: Vec<[i32; 4]> = Vec::new();
    for (index, (name, bytes)) in points.iter().enumerate() {
        let (x, y) = outline[index];
        let figure = format_bytes(*bytes, unit);
        let written = !crowded || *name == peak_name || index + 1 == points.len();
        let figure = if written { figure } else { String::new() };
        let style = if *name == peak_name {
            columns
                .font(13.0)
                .style(FontStyle::Bold)
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Bottom))
        } else {
            value_style.clone()
        };
        let half = measure.width(&figure, 13.0 * scale) / 2;
        let figure_box = above_lines(
            [x - half, y - px(19.0), x + half, y - px(4.0)],
            line_boxes,
            px(2.0),
        );
        if !figure.is_empty() {
            taken.push(figure_box);
        }
        root.draw_text(&figure, &style, (x, figure_box[3]))?;
        let lines: Vec<&str> = if f64::from(measure.width(name, name_size * scale)) > slot * 0.95 {
            name.split(' ').collect()
        } else {
            vec![name]
        };
        for (row, line) in lines.iter().enumerate() {
            root.draw_text(line, &name_style, (x, bottom + px(6.0 + 14.0 * row as f64)))?;
        }
    }
    Ok(taken)
}

/// Where the step's chart is drawn, in device pixels, how a figure maps to
/// a height, and how wide a text is there.
#[derive(Clone, Copy)]
struct Frame<'a> {
    measure: &'a TextMeasure,
    /// The page's unit, the axis'.
    unit: vram_core::format::MemoryUnit,
    /// A column a moment, the axis up to its top in the page's unit.
    columns: Columns,
}

impl<'a> Frame<'a> {
    /// The frame of `moments` columns up to `y_max` on an area of `width` ×
    /// `height` pixels.
    fn new(
        scale: f64,
        measure: &'a TextMeasure,
        unit: vram_core::format::MemoryUnit,
        (width, height): (u32, u32),
        y_max: f64,
        moments: usize,
    ) -> Frame<'a> {
        Frame {
            measure,
            unit,
            columns: Columns::new(scale, (width, height), 44.0, moments, y_max),
        }
    }

    /// The height of `value`, the axis' top at most.
    fn y_of(&self, value: f64) -> i32 {
        self.columns.y_of(value.min(self.columns.y_max))
    }
}

/// What stays all step long (`base`), then the activations' profile above
/// it (`outline`, a point per moment), from the first moment's column to the
/// last's; then the axes' lines.
fn draw_profile<B: DrawingBackend>(
    root: &Area<B>,
    frame: &Frame,
    palette: Palette,
    outline: &[(i32, i32)],
    base: f64,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let Palette { ink, parts, .. } = palette;
    let columns = frame.columns;
    let (first, last) = (columns.x_of(0), columns.x_of(outline.len() - 1));
    root.draw(&Rectangle::new(
        [(first, frame.y_of(base)), (last, columns.bottom)],
        parts[0].mix(0.85).filled(),
    ))?;
    let profile: Vec<(i32, i32)> = outline
        .iter()
        .copied()
        .chain([(last, frame.y_of(base)), (first, frame.y_of(base))])
        .collect();
    root.draw(&Polygon::new(profile, parts[3].mix(0.85).filled()))?;
    root.draw(&PathElement::new(
        outline.to_vec(),
        ink.stroke_width(columns.px(2.0) as u32),
    ))?;
    columns.draw_axis_lines(root, ink)
}
