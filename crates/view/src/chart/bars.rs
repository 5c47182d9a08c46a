//! The two bar charts: each GPU's memory per strategy, stacked by part, and
//! the largest model each strategy can train, with their reference lines.

use super::*;

pub(super) fn plot<B: DrawingBackend>(
    root: &Area<B>,
    report: &Report,
    scale: f64,
    measure: &TextMeasure,
    palette: Palette,
    t: &Text,
    kind: ChartKind,
) -> Result<LabelBoxes, DrawingAreaErrorKind<B::ErrorType>> {
    let Palette {
        ground,
        ink,
        grid,
        fits,
        too_small,
        model: model_line,
        parts,
    } = palette;
    // Drawn with plotters' elements on the drawing area directly: its chart
    // builder and mesh would cost the page some 25 KB of WebAssembly.
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&ground)?;

    let model = report.setup.params().billions();
    // Memory in the page's unit, so the axis reads as the table does.
    let in_unit = |bytes: vram_core::Bytes| bytes.get() / report.unit.bytes();
    // A strategy no framework runs with the layout has no largest model (n/a).
    let value_of = |row: &vram_core::StrategyReport| match kind {
        ChartKind::Memory => in_unit(row.memory.total),
        _ if !row.supported => 0.0,
        _ => row.max_params.billions(),
    };
    let (reference, axis) = match kind {
        ChartKind::Memory => (
            in_unit(report.budget.gpu_memory()),
            fill(t.chart_memory_axis, &[report.unit.symbol()]),
        ),
        _ => (model, t.chart_y_axis.to_string()),
    };
    // The tallest value and the next (without a sort: its code would cost
    // the page kilobytes).
    let (tallest, next) = report
        .strategies
        .iter()
        .map(value_of)
        .filter(|value| value.is_finite())
        .fold((reference, 0.0), |(first, second), value| {
            if value > first {
                (value, first)
            } else {
                (first, second.max(value))
            }
        });
    // One bar that dwarfs the others (DDP's terabyte beside ZeRO-3's
    // gigabytes) is cut, and the axis broken, so the others stay legible.
    let broken = tallest > 3.0 * next;
    let y_max = if broken { next * 1.5 } else { tallest * 1.2 };

    let (width, height) = root.dim_in_pixel();
    let (left, right) = (px(64.0), width as i32 - px(16.0));
    let (top, bottom) = (px(16.0), height as i32 - px(34.0));
    let y_of = |value: f64| bottom - (value / y_max * f64::from(bottom - top)).round() as i32;
    let slot = f64::from(right - left) / Strategy::ALL.len() as f64;
    let x_of = |index: usize| left + (slot * (index as f64 + 0.5)).round() as i32;
    let half_bar = (slot * 0.3).round() as i32;

    // Grid and values of the y axis, at 1, 2 or 5 × 10^k.
    let step = tick_step(y_max);
    let label_style = font(12.0)
        .color(&ink)
        .pos(Pos::new(HPos::Right, VPos::Center));
    // Bounded, whatever the figures: a non-finite maximum must not hang the page.
    for tick in (0..12)
        .map(|i| f64::from(i) * step)
        .take_while(|tick| *tick <= y_max)
    {
        let y = y_of(tick);
        root.draw(&PathElement::new(vec![(left, y), (right, y)], grid))?;
        root.draw_text(&format_number(tick), &label_style, (left - px(6.0), y))?;
    }
    root.draw(&PathElement::new(
        vec![(left, top), (left, bottom), (right, bottom)],
        ink.mix(0.6),
    ))?;
    root.draw_text(
        &axis,
        &font(12.0)
            .transform(FontTransform::Rotate270)
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Top)),
        (px(4.0), (top + bottom) / 2),
    )?;

    // Bars, their values, and the strategies' names.
    let value_style = font(13.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    let name_style = font(13.0)
        .color(&ink)
        .pos(Pos::new(HPos::Center, VPos::Top));
    // Lines across every bar, each labelled on the chart's ground: the current
    // model; or the usable memory and the card's capacity.
    let lines = match kind {
        ChartKind::Memory => vec![
            (
                in_unit(report.budget.usable()),
                model_line,
                t.chart_usable,
                report.budget.usable(),
            ),
            (
                in_unit(report.budget.gpu_memory()),
                ink,
                t.chart_capacity,
                report.budget.gpu_memory(),
            ),
        ],
        _ => vec![(
            model,
            model_line,
            t.chart_legend_model,
            vram_core::Bytes::ZERO,
        )],
    };
    // Where the lines are and where labels are, so that no label is drawn
    // over a line or another label.
    let line_boxes: Vec<[i32; 4]> = lines
        .iter()
        .map(|line| {
            let y = y_of(line.0);
            [left, y - 1, right, y + 1]
        })
        .collect();
    let mut taken: Vec<[i32; 4]> = Vec::new();
    for (index, row) in report.strategies.iter().enumerate() {
        let x = x_of(index);
        // An unbounded model (everything offloaded) fills the chart's height.
        let bar_top = y_of(value_of(row).min(y_max));
        let highlighted = row.strategy == report.highlight;
        let shade = |color: RGBColor| {
            if highlighted {
                color.filled()
            } else {
                color.mix(0.75).filled()
            }
        };
        let label = match kind {
            ChartKind::Memory => {
                // Weights, gradients, optimizer states, activations, buffers, stacked.
                let m = row.memory;
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
                    let top = base + in_unit(part);
                    root.draw(&Rectangle::new(
                        [
                            (x - half_bar, y_of(top.min(y_max))),
                            (x + half_bar, y_of(base.min(y_max))),
                        ],
                        shade(color),
                    ))?;
                    base = top;
                }
                format_bytes(m.total, report.unit)
            }
            _ if !row.supported => t.not_run.to_string(),
            _ => {
                let color = if row.max_params.billions() >= model {
                    fits
                } else {
                    too_small
                };
                root.draw(&Rectangle::new(
                    [(x - half_bar, bar_top), (x + half_bar, bottom)],
                    shade(color),
                ))?;
                format_params(row.max_params)
            }
        };
        if highlighted {
            root.draw(&Rectangle::new(
                [(x - half_bar, bar_top), (x + half_bar, bottom)],
                ink.stroke_width(px(2.0) as u32),
            ))?;
        }
        if value_of(row) > y_max {
            // The axis' break, across the cut bar.
            for dy in [px(10.0), px(16.0)] {
                root.draw(&PathElement::new(
                    vec![
                        (x - half_bar - px(3.0), bar_top + dy + px(4.0)),
                        (x + half_bar + px(3.0), bar_top + dy - px(4.0)),
                    ],
                    ground.stroke_width(px(3.0) as u32),
                ))?;
            }
        }
        let half = measure.width(&label, 13.0 * scale) / 2;
        let label_box = above_lines(
            [x - half, bar_top - px(18.0), x + half, bar_top - px(3.0)],
            &line_boxes,
            px(2.0),
        );
        let label_y = label_box[3];
        taken.push(label_box);
        root.draw_text(&label, &value_style, (x, label_y))?;
        root.draw_text(row.strategy.label(), &name_style, (x, bottom + px(8.0)))?;
    }

    for (value, color, name, bytes) in lines {
        let line_y = y_of(value);
        root.draw(&PathElement::new(
            vec![(left, line_y), (right, line_y)],
            color.stroke_width(px(2.0) as u32),
        ))?;
        let shown = match kind {
            ChartKind::Memory => format_bytes(bytes, report.unit),
            _ => format_params(report.setup.params()),
        };
        let line_label = format!("{name}: {shown}");
        label_line(
            root,
            &line_label,
            color,
            line_y,
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
