//! The largest trainable model per strategy as the GPUs grow.

use super::*;

/// The largest trainable model of each strategy ([`Report::scaling`]), on
/// 1, 2, 4, … 1,024 GPUs of this report's memory and recipe.
pub(super) fn scaling(report: &Report) -> Vec<(u32, [vram_core::ParamCount; 4])> {
    report.scaling((0..=10).map(|k| 1u32 << k))
}

/// The vertical axis's `title`, turned a quarter and centred on the left
/// edge between `top` and `bottom` (`scale` canvas pixels a CSS pixel).
pub(super) fn y_axis_title<B: DrawingBackend>(
    root: &Area<B>,
    title: &str,
    ink: RGBColor,
    scale: f64,
    (top, bottom): (i32, i32),
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    root.draw_text(
        title,
        &(FONT_FAMILY, 12.0 * scale)
            .into_font()
            .transform(FontTransform::Rotate270)
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Top)),
        ((4.0 * scale).round() as i32, (top + bottom) / 2),
    )
}

/// The largest trainable model against the number of GPUs, both on logarithmic
/// scales and titled, one line per strategy, the current number of GPUs
/// marked: DDP stays flat, ZeRO-1 and ZeRO-2 level off, ZeRO-3 grows with
/// the cluster.
pub(super) fn plot_scaling<B: DrawingBackend>(
    root: &Area<B>,
    sheet: &Sheet,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let Sheet {
        report, t, scale, ..
    } = *sheet;
    let Palette {
        ground,
        ink,
        grid,
        parts,
        ..
    } = sheet.palette;
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&ground)?;
    let sweep = scaling(report);
    let (low, high) = sweep
        .iter()
        .flat_map(|(_, params)| params.map(|p| p.billions()))
        .filter(|b| b.is_finite() && *b > 0.0)
        .fold((f64::MAX, f64::MIN), |(low, high), b| {
            (low.min(b), high.max(b))
        });
    let low = low.log10().floor();
    let high = high.log10().ceil().max(low + 1.0);
    let (width, height) = root.dim_in_pixel();
    let (left, right) = (px(64.0), width as i32 - px(16.0));
    let (top, bottom) = (px(16.0), height as i32 - px(50.0));
    let y_of = |billions: f64| {
        bottom - ((billions.log10() - low) / (high - low) * f64::from(bottom - top)).round() as i32
    };
    let x_of = |log2: f64| left + (log2 / 10.0 * f64::from(right - left)).round() as i32;
    let label = |h, v| font(12.0).color(&ink).pos(Pos::new(h, v));
    // Powers of ten across (bounded, whatever the figures), powers of two along.
    for exponent in (low as i32..=high as i32).take(12) {
        let y = y_of(10f64.powi(exponent));
        root.draw(&PathElement::new(vec![(left, y), (right, y)], grid))?;
        root.draw_text(
            &format_number(10f64.powi(exponent)),
            &label(HPos::Right, VPos::Center),
            (left - px(6.0), y),
        )?;
    }
    for k in (0..=10).step_by(2) {
        root.draw_text(
            &(1u32 << k).to_string(),
            &label(HPos::Center, VPos::Top),
            (x_of(f64::from(k)), bottom + px(8.0)),
        )?;
    }
    root.draw(&PathElement::new(
        vec![(left, top), (left, bottom), (right, bottom)],
        ink.mix(0.6),
    ))?;
    // The axes' titles: GPUs along, the largest model up.
    root.draw_text(
        t.label_gpus,
        &label(HPos::Center, VPos::Bottom),
        ((left + right) / 2, height as i32 - px(4.0)),
    )?;
    y_axis_title(root, t.chart_y_axis, ink, scale, (top, bottom))?;
    // The current number of GPUs (all of them: GPUs per node × nodes), where
    // the axis has it.
    let gpus = report.gpus();
    if gpus <= 1024 {
        let x = x_of(f64::from(gpus).log10() / std::f64::consts::LOG10_2);
        root.draw(&PathElement::new(
            vec![(x, top), (x, bottom)],
            ink.stroke_width(px(1.0) as u32),
        ))?;
    }
    for (index, color) in parts.into_iter().take(4).enumerate() {
        // A strategy no framework runs with the layout has no line.
        if !report.strategies[index].supported {
            continue;
        }
        let points: Vec<(i32, i32)> = sweep
            .iter()
            .map(|(gpus, params)| (f64::from(gpus.trailing_zeros()), params[index].billions()))
            .filter(|(_, b)| b.is_finite() && *b > 0.0)
            .map(|(k, b)| (x_of(k), y_of(b)))
            .collect();
        let width = if Strategy::ALL[index] == report.highlight {
            4.0
        } else {
            2.0
        };
        root.draw(&PathElement::new(
            points,
            color.stroke_width(px(width) as u32),
        ))?;
    }
    root.present()?;
    Ok(())
}
