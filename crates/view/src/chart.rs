//! The charts, one canvas each, drawn with plotters' elements: each GPU's memory
//! per strategy, stacked by part, with the usable memory and the card's capacity
//! drawn across; and the largest trainable model per strategy, with the current
//! model drawn across, so one sees which strategies can train it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use plotters_canvas::CanvasBackend;
use vram_core::decimal::shortest_decimal;
use vram_core::format::{format_bytes, format_number, format_params};
use vram_core::time::plans::Plan;
use vram_core::{Report, Strategy};
use web_sys::HtmlCanvasElement;

use crate::text::{fill, Text};

/// What a chart shows.
#[derive(Clone, Copy, PartialEq)]
pub enum ChartKind {
    /// Each GPU's memory per strategy, stacked by part.
    Memory,
    /// The largest trainable model per strategy.
    MaxParams,
    /// The largest trainable model against the number of GPUs, 1 to 1,024.
    Scaling,
    /// The highlighted strategy's memory over one step.
    Step,
    /// Every ranked plan: its most loaded GPU's memory against its step time.
    Plans,
}

impl ChartKind {
    /// The chart's name in test ids: `chart-memory`, `export-png-max-params`.
    pub fn id(self) -> &'static str {
        match self {
            ChartKind::Memory => "memory",
            ChartKind::MaxParams => "max-params",
            ChartKind::Scaling => "scaling",
            ChartKind::Step => "step",
            ChartKind::Plans => "plans",
        }
    }

    /// The legend: each swatch's class and label.
    pub fn legend(self, t: &'static Text) -> Vec<(&'static str, &'static str)> {
        match self {
            ChartKind::Memory => vec![
                ("part-0", t.col_weights),
                ("part-1", t.col_grads),
                ("part-2", t.col_optim),
                ("part-3", t.col_act),
                ("part-4", t.col_buffers),
                ("model", t.chart_usable),
                ("capacity", t.chart_capacity),
            ],
            ChartKind::MaxParams => vec![
                ("fits", t.chart_legend_fits),
                ("too-small", t.chart_legend_too_small),
                ("model", t.chart_legend_model),
            ],
            ChartKind::Scaling => Strategy::ALL
                .iter()
                .zip(["part-0", "part-1", "part-2", "part-3"])
                .map(|(strategy, class)| (class, strategy.label()))
                .chain([("capacity", t.chart_gpus_now)])
                .collect(),
            ChartKind::Plans => vec![
                ("fits", t.chart_legend_fits),
                ("too-small", t.plans_legend_over),
                ("model", t.chart_usable),
            ],
            ChartKind::Step => vec![
                ("part-0", t.chart_states),
                ("part-3", t.chart_step_activations),
                ("model", t.chart_usable),
                ("capacity", t.chart_kept),
            ],
        }
    }
}

/// The chart's colours, read from the style sheet's variables so that the chart
/// follows the page's theme (light or dark).
#[derive(Clone, Copy)]
struct Palette {
    ground: RGBColor,
    ink: RGBColor,
    grid: RGBColor,
    fits: RGBColor,
    too_small: RGBColor,
    model: RGBColor,
    /// Weights, gradients, optimizer states, activations, buffers.
    parts: [RGBColor; 5],
}

impl Palette {
    fn of(canvas: &HtmlCanvasElement) -> Palette {
        let style = web_sys::window().and_then(|w| w.get_computed_style(canvas).ok().flatten());
        let color = |name: &str, fallback: RGBColor| {
            style
                .as_ref()
                .and_then(|s| s.get_property_value(name).ok())
                .and_then(|value| parse_hex(value.trim()))
                .unwrap_or(fallback)
        };
        let light = Palette::LIGHT;
        Palette {
            ground: color("--chart-ground", light.ground),
            ink: color("--ink", light.ink),
            grid: color("--chart-grid", light.grid),
            fits: color("--chart-fits", light.fits),
            too_small: color("--chart-too-small", light.too_small),
            model: color("--accent", light.model),
            parts: [
                color("--part-0", light.parts[0]),
                color("--part-1", light.parts[1]),
                color("--part-2", light.parts[2]),
                color("--part-3", light.parts[3]),
                color("--part-4", light.parts[4]),
            ],
        }
    }

    /// The light theme's colours (web/style.css), where the style sheet gives none.
    const LIGHT: Palette = Palette {
        ground: RGBColor(0xff, 0xff, 0xff),
        ink: RGBColor(0x22, 0x26, 0x2e),
        grid: RGBColor(0xe3, 0xe6, 0xec),
        fits: RGBColor(0x1b, 0x7f, 0x5c),
        too_small: RGBColor(0xb4, 0x3c, 0x3c),
        model: RGBColor(0x1f, 0x3b, 0x8c),
        parts: [
            RGBColor(0x1f, 0x3b, 0x8c),
            RGBColor(0x4a, 0x7b, 0xd0),
            RGBColor(0xd0, 0x8a, 0x2e),
            RGBColor(0x2e, 0x9e, 0x8f),
            RGBColor(0x8e, 0x8e, 0x99),
        ],
    };
}

/// `#rrggbb` as a colour.
fn parse_hex(text: &str) -> Option<RGBColor> {
    let hex = text.strip_prefix('#').filter(|h| h.len() == 6)?;
    let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some(RGBColor(channel(0)?, channel(2)?, channel(4)?))
}

/// Height of the chart in CSS pixels.
pub const HEIGHT_CSS: u32 = 300;

/// Draws `plans` on `canvas` at its laid-out size (the lazily loaded module's
/// part of [`crate::plans::render`]).
pub fn draw_plans(canvas: &HtmlCanvasElement, report: &Report, plans: &[Plan], t: &Text) {
    let _ = draw(
        canvas,
        report,
        plans,
        client_size(canvas),
        t,
        ChartKind::Plans,
    );
}

/// Every plan as a dot: its step time across, its most loaded GPU's memory
/// up; those that fit in one colour, the others in another; the usable memory
/// drawn across.
fn plot_plans<B: DrawingBackend>(
    root: &Area<B>,
    report: &Report,
    plans: &[Plan],
    scale: f64,
    palette: Palette,
    t: &Text,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&palette.ground)?;
    let unit = report.unit;
    let usable = report.budget.usable().get() / unit.bytes();
    let finite = |v: f64| v.is_finite();
    let x_max = plans
        .iter()
        .map(Plan::step_seconds)
        .filter(|v| finite(*v))
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
    root.draw_text(
        &fill(t.chart_memory_axis, &[unit.symbol()]),
        &font(12.0)
            .transform(FontTransform::Rotate270)
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Top)),
        (px(4.0), (top + bottom) / 2),
    )?;
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
        for plan in plans
            .iter()
            .filter(|p| p.fits == fits && finite(p.step_seconds()))
        {
            let at = (
                x_of(plan.step_seconds()),
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

/// The chart of `kind` as SVG text of `size` pixels, in the light palette
/// (the static view's, `vram --html`): the same drawing as the page's canvas,
/// at a scale of 1, its labels placed with estimated text widths.
#[cfg(not(target_arch = "wasm32"))]
pub fn svg(report: &Report, t: &Text, kind: ChartKind, size: (u32, u32)) -> Result<String, String> {
    use plotters::backend::SVGBackend;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        let (palette, measure) = (Palette::LIGHT, TextMeasure(None));
        let drawn = match kind {
            ChartKind::Scaling => plot_scaling(&root, report, 1.0, palette, t),
            ChartKind::Step => plot_step(&root, report, 1.0, &measure, palette, t).map(drop),
            _ => plot(&root, report, 1.0, &measure, palette, t, kind).map(drop),
        };
        drawn.map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The chart's figures in words, for screen readers.
pub fn describe(t: &Text, report: &Report, kind: ChartKind) -> String {
    let figure = |row: &vram_core::StrategyReport| match kind {
        ChartKind::Memory => format_bytes(row.memory.total, report.unit),
        _ if !row.supported => t.not_run.to_string(),
        _ => format_params(row.max_params),
    };
    if kind == ChartKind::Scaling {
        let (_, at_most) = &scaling(report)[10];
        let lines: Vec<String> = Strategy::ALL
            .iter()
            .zip(at_most)
            .map(|(strategy, params)| format!("{} {}", strategy.label(), format_params(*params)))
            .collect();
        return fill(t.chart_scaling_alt, &[&lines.join(", ")]);
    }
    if kind == ChartKind::Step {
        let moments: Vec<String> = step_points(t, report)
            .into_iter()
            .map(|(name, bytes)| format!("{name} {}", format_bytes(bytes, report.unit)))
            .collect();
        return fill(
            t.chart_step_alt,
            &[report.highlight.label(), &moments.join(", ")],
        );
    }
    let bars: Vec<String> = report
        .strategies
        .iter()
        .map(|row| format!("{} {}", row.strategy.label(), figure(row)))
        .collect();
    let (axis, line, value) = match kind {
        ChartKind::Memory => (
            fill(t.chart_memory_axis, &[report.unit.symbol()]),
            t.chart_usable,
            format_bytes(report.budget.usable(), report.unit),
        ),
        _ => (
            t.chart_y_axis.to_string(),
            t.chart_legend_model,
            format_params(report.setup.params()),
        ),
    };
    format!("{axis}: {}. {line}: {value}.", bars.join(", "))
}

/// The canvas's laid-out size in CSS pixels (a default before layout).
pub fn client_size(canvas: &HtmlCanvasElement) -> (f64, f64) {
    let width = match canvas.client_width() {
        w if w > 0 => f64::from(w),
        _ => 640.0,
    };
    let height = match canvas.client_height() {
        h if h > 0 => f64::from(h),
        _ => f64::from(HEIGHT_CSS),
    };
    (width, height)
}

/// Draws the chart at the device's pixel density on a canvas of `css_size`.
pub fn draw(
    canvas: &HtmlCanvasElement,
    report: &Report,
    plans: &[Plan],
    css_size: (f64, f64),
    t: &Text,
    kind: ChartKind,
) -> Result<(), String> {
    // The step's chart is hidden without a model: nothing to draw.
    if (kind == ChartKind::Step && report.activations.is_none())
        || (kind == ChartKind::Plans && plans.is_empty())
    {
        return Ok(());
    }
    let scale = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .max(1.0);
    let (css_width, css_height) = css_size;
    let (width, height) = (
        (css_width * scale).round() as u32,
        (css_height * scale).round() as u32,
    );
    // Assigning a canvas's size, even the same size, reallocates and clears it: only on change.
    if canvas.width() != width || canvas.height() != height {
        canvas.set_width(width);
        canvas.set_height(height);
    }
    let measure = TextMeasure::of(canvas);
    let palette = Palette::of(canvas);
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2D context")?;
    let root = backend.into_drawing_area();
    match kind {
        ChartKind::Scaling => plot_scaling(&root, report, scale, palette, t),
        ChartKind::Step => plot_step(&root, report, scale, &measure, palette, t).map(drop),
        ChartKind::Plans => plot_plans(&root, report, plans, scale, palette, t),
        _ => plot(&root, report, scale, &measure, palette, t, kind).map(drop),
    }
    .map_err(|e| e.to_string())
}

/// Text widths from the canvas itself. plotters' own estimate measures a
/// `<span>` given an inline `style`, which a strict Content-Security-Policy
/// (no `style-src-attr`) forbids.
struct TextMeasure(Option<web_sys::CanvasRenderingContext2d>);

impl TextMeasure {
    fn of(canvas: &HtmlCanvasElement) -> TextMeasure {
        use wasm_bindgen::JsCast;
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok());
        TextMeasure(context)
    }

    /// Width in canvas pixels of `text` in a `size_px` font of [`FONT_FAMILY`]
    /// (an estimate if the canvas cannot tell).
    fn width(&self, text: &str, size_px: f64) -> i32 {
        let measured = self.0.as_ref().and_then(|context| {
            context.set_font(&format!("{}px {FONT_FAMILY}", shortest_decimal(size_px)));
            context.measure_text(text).ok().map(|m| m.width())
        });
        measured
            .unwrap_or(text.chars().count() as f64 * size_px * 0.6)
            .ceil() as i32
    }
}

/// The chart's typeface: the system's, as the page's.
const FONT_FAMILY: &str = "system-ui, sans-serif";

type Area<B> = DrawingArea<B, Shift>;

fn plot<B: DrawingBackend>(
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

/// Writes `label` on a reference line at `line_y`, on the chart's ground,
/// in the first free place of: above the line at the right, below it, then
/// the same at the left; free of the labels `taken` (which it joins) and of
/// the `lines`.
#[allow(clippy::too_many_arguments)]
fn label_line<B: DrawingBackend>(
    root: &Area<B>,
    label: &str,
    color: RGBColor,
    line_y: i32,
    (left, right): (i32, i32),
    taken: &mut Vec<[i32; 4]>,
    lines: &[[i32; 4]],
    measure: &TextMeasure,
    scale: f64,
    ground: RGBColor,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let px = |css: f64| (css * scale).round() as i32;
    let (w, h) = (measure.width(label, 12.0 * scale) + px(6.0), px(18.0));
    let places = [
        [right - w, line_y - h, right, line_y - 1],
        [right - w, line_y + 2, right, line_y + h + 1],
        [left + 1, line_y - h, left + 1 + w, line_y - 1],
        [left + 1, line_y + 2, left + 1 + w, line_y + h + 1],
    ];
    let free = |b: &[i32; 4]| !taken.iter().chain(lines).any(|t| overlap(t, b));
    let place = places.into_iter().find(free).unwrap_or(places[0]);
    taken.push(place);
    root.draw(&Rectangle::new(
        [(place[0], place[1]), (place[2], place[3])],
        ground.mix(0.9).filled(),
    ))?;
    root.draw_text(
        label,
        &(FONT_FAMILY, 12.0 * scale)
            .into_font()
            .color(&color)
            .pos(Pos::new(HPos::Left, VPos::Top)),
        (place[0] + px(3.0), place[1] + px(3.0)),
    )
}

/// `label` (a box), moved up above each line that would cross it, `gap`
/// pixels clear of it.
fn above_lines(mut label: [i32; 4], lines: &[[i32; 4]], gap: i32) -> [i32; 4] {
    for _ in 0..lines.len() {
        let Some(line) = lines.iter().find(|line| overlap(line, &label)) else {
            break;
        };
        let lift = label[3] - (line[1] - gap);
        label[1] -= lift;
        label[3] -= lift;
    }
    label
}

/// Where a bar chart drew its labels (bars' values, then the lines' names)
/// and its lines, as boxes (left, top, right, bottom) in pixels.
type LabelBoxes = (Vec<[i32; 4]>, Vec<[i32; 4]>);

/// Whether two boxes (left, top, right, bottom) share any pixel.
fn overlap(a: &[i32; 4], b: &[i32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// The largest trainable model of each strategy ([`Report::scaling`]), on
/// 1, 2, 4, … 1,024 GPUs of this report's memory and recipe.
fn scaling(report: &Report) -> Vec<(u32, [vram_core::ParamCount; 4])> {
    report.scaling((0..=10).map(|k| 1u32 << k))
}

/// The largest trainable model against the number of GPUs, both on logarithmic
/// scales and titled, one line per strategy, the current number of GPUs
/// marked: DDP stays flat, ZeRO-1 and ZeRO-2 level off, ZeRO-3 grows with
/// the cluster.
fn plot_scaling<B: DrawingBackend>(
    root: &Area<B>,
    report: &Report,
    scale: f64,
    palette: Palette,
    t: &Text,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let Palette {
        ground,
        ink,
        grid,
        parts,
        ..
    } = palette;
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
    root.draw_text(
        t.chart_y_axis,
        &font(12.0)
            .transform(FontTransform::Rotate270)
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Top)),
        (px(4.0), (top + bottom) / 2),
    )?;
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

/// The moments of the highlighted strategy's step, in order, each with its
/// name: the start (states and buffers), the forward's end, the backward's
/// start, the rebuilt layer under full recomputation, the optimizer's update.
fn step_points(t: &Text, report: &Report) -> Vec<(&'static str, vram_core::Bytes)> {
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

/// A moment's name in the page's language.
pub fn phase_name(t: &Text, phase: vram_core::memory::step::Phase) -> &'static str {
    use vram_core::memory::step::Phase;
    match phase {
        Phase::ForwardEnd => t.phase_forward_end,
        Phase::BackwardStart => t.phase_backward_start,
        Phase::RecomputedLayer => t.phase_recomputed_layer,
        Phase::OptimizerStep => t.phase_optimizer_step,
    }
}

/// The highlighted strategy's memory over one step: the states and buffers
/// held throughout, the activations rising through the forward pass to the
/// loss, the backward's start, the rebuilt layer, and freed for the
/// optimizer's update; the usable memory and what is kept drawn across.
fn plot_step<B: DrawingBackend>(
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

/// A round step for about five grid lines up to `max`: 1, 2 or 5 × 10^k.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powi(raw.log10().floor() as i32);
    let nice = match raw / magnitude {
        r if r <= 1.0 => 1.0,
        r if r <= 2.0 => 2.0,
        r if r <= 5.0 => 5.0,
        _ => 10.0,
    };
    nice * magnitude
}

/// Each chart drawn natively through plotters' SVG backend, the page's
/// drawing code unchanged, and compared with a reviewed snapshot
/// (`src/snapshots/`): the bars and their heights, the labels and their
/// places, the reference lines. Text widths are plotters' estimate here, as
/// the page's are where the canvas cannot measure.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod snapshots {
    use super::*;
    use plotters::backend::SVGBackend;

    /// The chart of `kind` for the configuration of `query`, as SVG text.
    fn svg(query: &str, kind: ChartKind) -> String {
        let report = vram_core::input::link::decode(query)
            .config
            .report()
            .expect("a valid configuration");
        let (width, height) = (640, HEIGHT_CSS);
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
            let palette = Palette::LIGHT;
            let measure = TextMeasure(None);
            let t = &crate::text::EN;
            match kind {
                ChartKind::Scaling => plot_scaling(&root, &report, 1.0, palette, t),
                ChartKind::Step => plot_step(&root, &report, 1.0, &measure, palette, t).map(drop),
                _ => plot(&root, &report, 1.0, &measure, palette, t, kind).map(drop),
            }
            .expect("drawn");
            root.present().expect("written");
        }
        text
    }

    /// The texts an SVG shows, in drawing order.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                t.split_once('>')
                    .and_then(|(_, rest)| rest.split_once("</text>"))
            })
            .map(|(text, _)| text.trim().to_string())
            .collect()
    }

    #[test]
    fn the_lessons_memory_chart() {
        let chart = svg("", ChartKind::Memory);
        // The lesson's four totals label their bars.
        let labels = texts(&chart);
        for total in ["112 GB", "38.5 GB", "26.25 GB", "14 GB"] {
            assert!(labels.iter().any(|l| l == total), "{total} in {labels:?}");
        }
        insta::assert_snapshot!(chart);
    }

    #[test]
    fn the_lessons_largest_model_chart() {
        let chart = svg("", ChartKind::MaxParams);
        let labels = texts(&chart);
        for largest in ["4 B", "32 B"] {
            assert!(
                labels.iter().any(|l| l.contains(largest)),
                "{largest} in {labels:?}"
            );
        }
        insta::assert_snapshot!(chart);
    }

    #[test]
    fn the_lessons_scaling_chart() {
        insta::assert_snapshot!(svg("", ChartKind::Scaling));
    }

    #[test]
    fn a_models_step_chart() {
        let query = "model=llama2-7b&gpu=a100-80gb&stage=2&seq=4096";
        insta::assert_snapshot!(svg(query, ChartKind::Step));
    }

    #[test]
    fn a_models_memory_chart_with_activations() {
        let query = "model=llama2-70b&gpu=h100-80gb&seq=4096&recompute=full&stage=3";
        insta::assert_snapshot!(svg(query, ChartKind::Memory));
    }

    /// The label and line boxes a bar chart drew for `query`.
    fn label_boxes(query: &str, kind: ChartKind) -> LabelBoxes {
        let report = vram_core::input::link::decode(query)
            .config
            .report()
            .unwrap();
        let mut text = String::new();
        let root = SVGBackend::with_string(&mut text, (640, HEIGHT_CSS)).into_drawing_area();
        let (palette, t) = (Palette::LIGHT, &crate::text::EN);
        match kind {
            ChartKind::Step => plot_step(&root, &report, 1.0, &TextMeasure(None), palette, t),
            _ => plot(&root, &report, 1.0, &TextMeasure(None), palette, t, kind),
        }
        .unwrap()
    }

    /// Issue 25: no label covers another or a line, where a line meets
    /// another (all the memory usable: the usable line on the GPU's), meets
    /// a bar's value (ZeRO-3's 64 GB for 32 B; 32 B trainable for a 32 B
    /// model) or runs just above one (ZeRO-3's 60 GB under 64).
    #[test]
    fn no_label_covers_another_or_a_line() {
        for query in [
            "",
            "overhead=0",
            "params=32",
            "params=30",
            "params=32&overhead=0",
            "params=65&gpus=16",
            "params=70&gpus=1024",
        ] {
            for kind in [ChartKind::Memory, ChartKind::MaxParams] {
                let (labels, lines) = label_boxes(query, kind);
                let line_count = if kind == ChartKind::Memory { 2 } else { 1 };
                assert_eq!((labels.len(), lines.len()), (4 + line_count, line_count));
                for (i, a) in labels.iter().enumerate() {
                    for b in labels[i + 1..].iter().chain(&lines) {
                        assert!(!overlap(a, b), "{query:?} {:?}: {a:?} and {b:?}", kind.id());
                    }
                }
            }
        }
        // The step's chart: its figures, the usable memory and what is kept
        // (Llama 2 7B's kept line ran through its first figure).
        for query in [
            "model=llama2-7b&gpu=a100-80gb&stage=2",
            "model=llama2-7b&gpu=a100-80gb&stage=2&seq=4096",
            "model=llama2-70b&gpu=h100-80gb&seq=4096&recompute=full&stage=3",
            "model=llama2-13b&stage=0&overhead=0",
        ] {
            let (labels, lines) = label_boxes(query, ChartKind::Step);
            assert_eq!(lines.len(), 2);
            for (i, a) in labels.iter().enumerate() {
                for b in labels[i + 1..].iter().chain(&lines) {
                    assert!(!overlap(a, b), "{query:?} step: {a:?} and {b:?}");
                }
            }
        }
    }

    /// One bar that dwarfs the others is cut and the axis broken: DDP's
    /// 1,120 GB on 1,024 GPUs beside ZeRO-2's 141 GB leaves ZeRO-2's bar a
    /// quarter of the chart's height (a tenth on an unbroken axis), and DDP's
    /// label still says its value.
    #[test]
    fn a_bar_that_dwarfs_the_others_breaks_the_axis() {
        let query = "params=70&gpus=1024&stage=3";
        let chart = svg(query, ChartKind::Memory);
        assert!(
            texts(&chart).iter().any(|l| l == "1,120 GB"),
            "{:?}",
            texts(&chart)
        );
        let (boxes, _) = label_boxes(query, ChartKind::Memory);
        // The bars' value labels sit on their tops: ZeRO-2's a quarter up.
        let (top, bottom) = (16, HEIGHT_CSS as i32 - 34);
        assert!(boxes[2][3] + 3 < bottom - (bottom - top) / 4, "{boxes:?}");
        insta::assert_snapshot!(chart);
    }

    /// The largest-model chart agrees with the verdict: Llama 2 7B without
    /// FlashAttention does not fit under ZeRO-1 (64.73 GB of 64: its bar is in
    /// the "too small" colour, 6.6 B below the model's line) and fits under
    /// ZeRO-3; with PP, ZeRO-2 and ZeRO-3 draw no bar and say n/a.
    #[test]
    fn the_largest_model_chart_follows_the_verdict() {
        let query = "model=llama2-7b&flash=0&stage=1";
        let report = vram_core::input::link::decode(query)
            .config
            .report()
            .unwrap();
        assert!(!report.strategy(Strategy::Zero1).fits);
        assert!(report.strategy(Strategy::Zero3).fits);
        let chart = svg(query, ChartKind::MaxParams);
        let bar =
            |color: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", color.0, color.1, color.2);
        let Palette {
            fits, too_small, ..
        } = Palette::LIGHT;
        let rects: Vec<&str> = chart.split("<rect").skip(1).collect();
        assert!(
            rects.iter().any(|r| r.contains(&bar(too_small))),
            "a bar too small"
        );
        assert!(
            rects.iter().any(|r| r.contains(&bar(fits))),
            "a bar that fits"
        );
        let piped = svg("model=llama2-7b&gpus=8&pp=2", ChartKind::MaxParams);
        let labels = texts(&piped);
        assert_eq!(
            labels.iter().filter(|l| *l == "n/a").count(),
            2,
            "{labels:?}"
        );
    }
}
