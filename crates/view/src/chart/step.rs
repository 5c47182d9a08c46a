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
    report: &Report,
    scale: f64,
    measure: &TextMeasure,
    palette: Palette,
    t: &Text,
) -> Result<LabelBoxes, DrawingAreaErrorKind<B::ErrorType>> {
    let Palette {
        ground,
        ink,
        grid,
        model: usable_line,
        parts,
        ..
    } = palette;
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&ground)?;
    let unit = report.unit;
    let in_unit = |bytes: vram_core::Bytes| bytes.get() / unit.bytes();
    let points = step_points(t, report);
    let step = report.highlighted().step;
    let base = in_unit(step.optimizer_step);
    let usable = in_unit(report.budget.usable());
    let y_max = points
        .iter()
        .map(|(_, bytes)| in_unit(*bytes))
        .filter(|value| value.is_finite())
        .fold(usable, f64::max)
        * 1.2;
    let (width, height) = root.dim_in_pixel();
    let (left, right) = (px(64.0), width as i32 - px(16.0));
    let (top, bottom) = (px(16.0), height as i32 - px(44.0));
    let y_of =
        |value: f64| bottom - (value.min(y_max) / y_max * f64::from(bottom - top)).round() as i32;
    let slot = f64::from(right - left) / points.len() as f64;
    let x_of = |index: usize| left + (slot * (index as f64 + 0.5)).round() as i32;

    let tick = tick_step(y_max);
    let tick_style = font(12.0)
        .color(&ink)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for value in (0..12)
        .map(|i| f64::from(i) * tick)
        .take_while(|v| *v <= y_max)
    {
        let y = y_of(value);
        root.draw(&PathElement::new(vec![(left, y), (right, y)], grid))?;
        root.draw_text(&format_number(value), &tick_style, (left - px(6.0), y))?;
    }
    root.draw_text(
        &fill(t.chart_memory_axis, &[unit.symbol()]),
        &font(12.0)
            .transform(FontTransform::Rotate270)
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Top)),
        (px(4.0), (top + bottom) / 2),
    )?;

    // What stays all step long, then the activations' profile above it, from
    // the first moment's column to the last's.
    let (first, last) = (x_of(0), x_of(points.len() - 1));
    root.draw(&Rectangle::new(
        [(first, y_of(base)), (last, bottom)],
        parts[0].mix(0.85).filled(),
    ))?;
    let outline: Vec<(i32, i32)> = points
        .iter()
        .enumerate()
        .map(|(index, (_, bytes))| (x_of(index), y_of(in_unit(*bytes))))
        .collect();
    let profile: Vec<(i32, i32)> = outline
        .iter()
        .copied()
        .chain([(last, y_of(base)), (first, y_of(base))])
        .collect();
    root.draw(&Polygon::new(profile, parts[3].mix(0.85).filled()))?;
    root.draw(&PathElement::new(
        outline.clone(),
        ink.stroke_width(px(2.0) as u32),
    ))?;
    root.draw(&PathElement::new(
        vec![(left, top), (left, bottom), (right, bottom)],
        ink.mix(0.6),
    ))?;

    // Each moment's figure above it, its name below the axis (a word a line
    // where the column is too narrow for the whole name).
    let value_style = font(12.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    let (peak_phase, _) = step.peak();
    let peak_name = phase_name(t, peak_phase);
    // Where the figures are wider than their columns, only the peak's and the
    // optimizer step's are written (the table has every figure).
    let crowded = points.iter().any(|(_, bytes)| {
        f64::from(measure.width(&format_bytes(*bytes, unit), 13.0 * scale)) > slot * 0.9
    });
    let name_size = if crowded { 11.0 } else { 12.0 };
    let name_style = font(name_size)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Top));
    // The usable memory and what is kept across, each labelled where it
    // covers no figure, no name and no line.
    let lines = [
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
        .map(|line| {
            let y = y_of(line.0);
            [left, y - 1, right, y + 1]
        })
        .collect();
    // Where the figures are, so that no line's label covers one.
    let mut taken: Vec<[i32; 4]> = Vec::new();
    for (index, (name, bytes)) in points.iter().enumerate() {
        let (x, y) = outline[index];
        let figure = format_bytes(*bytes, unit);
        let written = !crowded || *name == peak_name || index + 1 == points.len();
        let figure = if written { figure } else { String::new() };
        let style = if *name == peak_name {
            font(13.0)
                .style(FontStyle::Bold)
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Bottom))
        } else {
            value_style.clone()
        };
        let half = measure.width(&figure, 13.0 * scale) / 2;
        let figure_box = above_lines(
            [x - half, y - px(19.0), x + half, y - px(4.0)],
            &line_boxes,
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

    for (value, color, name, bytes, weight) in lines {
        let y = y_of(value);
        root.draw(&PathElement::new(
            vec![(left, y), (right, y)],
            color.stroke_width(px(weight) as u32),
        ))?;
        let label = format!("{name}: {}", format_bytes(bytes, unit));
        label_line(
            root,
            &label,
            color,
            y,
            (left, right),
            &mut taken,
            &line_boxes,
            measure,
            scale,
            ground,
        )?;
    }
    root.present()?;
    Ok((taken, line_boxes))
}
