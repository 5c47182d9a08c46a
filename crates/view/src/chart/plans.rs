//! The ranked plans as dots: tokens per second per GPU across (what they are
//! ranked by, the best to the right), memory up.

use super::*;

/// Every plan as a dot: its tokens per second per GPU across, its most
/// loaded GPU's memory up; those that fit in one colour, the others in another; the usable memory
/// drawn across.
pub(super) fn plot_plans<B: DrawingBackend>(
    root: &Area<B>,
    sheet: &Sheet,
    plans: &[Plan],
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let Sheet {
        report,
        t,
        palette,
        scale,
        ..
    } = *sheet;
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&palette.ground)?;
    let unit = report.unit;
    let usable = report.budget.usable().get() / unit.bytes();
    let timed = |p: &&Plan| p.time.is_some();
    let x_max = plans
        .iter()
        .filter(timed)
        .map(Plan::tokens_per_second_per_gpu)
        .fold(0.0, f64::max)
        * 1.05;
    let y_max = plans
        .iter()
        .map(|p| p.peak.get() / unit.bytes())
        .fold(usable, f64::max)
        * 1.1;
    let (width, height) = root.dim_in_pixel();
    let (left, right) = (px(64.0), width as i32 - px(16.0));
    let (top, bottom) = (px(16.0), height as i32 - px(44.0));
    let y_of = |v: f64| bottom - (v / y_max * f64::from(bottom - top)).round() as i32;
    let x_of = |v: f64| left + (v / x_max.max(1e-9) * f64::from(right - left)).round() as i32;
    let ink = palette.ink;
    let tick_style = font(12.0).color(&ink);
    for value in (0..12)
        .map(|i| f64::from(i) * tick_step(y_max))
        .take_while(|v| *v <= y_max)
    {
        let y = y_of(value);
        root.draw(&PathElement::new(vec![(left, y), (right, y)], palette.grid))?;
        root.draw_text(
            &format_number(value),
            &tick_style.pos(Pos::new(HPos::Right, VPos::Center)),
            (left - px(6.0), y),
        )?;
    }
    for value in (0..12)
        .map(|i| f64::from(i) * tick_step(x_max))
        .take_while(|v| *v <= x_max)
    {
        root.draw_text(
            &format_number(value),
            &tick_style.pos(Pos::new(HPos::Center, VPos::Top)),
            (x_of(value), bottom + px(6.0)),
        )?;
    }
    let title = fill(t.chart_memory_axis, &[unit.symbol()]);
    super::scaling::y_axis_title(root, &title, ink, scale, (top, bottom))?;
    root.draw_text(
        t.plans_axis,
        &tick_style.pos(Pos::new(HPos::Center, VPos::Bottom)),
        ((left + right) / 2, height as i32 - px(2.0)),
    )?;
    let y = y_of(usable);
    root.draw(&PathElement::new(
        vec![(left, y), (right, y)],
        palette.model.stroke_width(px(2.0) as u32),
    ))?;
    // Those that do not fit first, so the fitting ones are drawn on top.
    for fits in [false, true] {
        let color = if fits {
            palette.fits
        } else {
            palette.too_small
        };
        for plan in plans.iter().filter(|p| p.fits == fits).filter(timed) {
            let at = (
                x_of(plan.tokens_per_second_per_gpu()),
                y_of(plan.peak.get() / unit.bytes()),
            );
            root.draw(&Circle::new(at, px(3.5), color.mix(0.8).filled()))?;
        }
    }
    root.draw(&PathElement::new(
        vec![(left, top), (left, bottom), (right, bottom)],
        ink.mix(0.6),
    ))?;
    Ok(())
}
