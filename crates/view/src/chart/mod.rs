//! The charts, one canvas each, drawn with plotters' elements: each GPU's memory
//! per strategy, stacked by part, with the usable memory and the card's capacity
//! drawn across; and the largest trainable model per strategy, with the current
//! model drawn across, so one sees which strategies can train it.
//!
//! This file holds what every chart shares (kinds, colours, the entry points
//! for a canvas and for SVG, the words for screen readers, labels and axes);
//! each picture is drawn in its own file: `bars.rs` (memory and the largest
//! model), `scaling.rs`, `step.rs` and `plans.rs`.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use plotters_canvas::CanvasBackend;
use vram_core::decimal::shortest_decimal;
use vram_core::format::{format_bytes, format_number, format_params};
use vram_core::plans::Plan;
use vram_core::{Report, Strategy};
use web_sys::HtmlCanvasElement;

use crate::text::{fill, Text};

mod bars;
mod plans;
mod scaling;
mod step;

use bars::plot;
use plans::plot_plans;
use scaling::{plot_scaling, scaling, y_axis_title};
use step::{plot_step, step_points};

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
    /// Every ranked plan: its most loaded GPU's memory against its tokens per second per GPU.
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
            // What fits, what does not, and the line it is judged against:
            // the model's size for a strategy, the usable memory for a plan.
            ChartKind::MaxParams | ChartKind::Plans => {
                let (too_small, line) = match self {
                    ChartKind::Plans => (t.plans_legend_over, t.chart_usable),
                    _ => (t.chart_legend_too_small, t.chart_legend_model),
                };
                vec![
                    ("fits", t.chart_legend_fits),
                    ("too-small", too_small),
                    ("model", line),
                ]
            }
            ChartKind::Scaling => Strategy::ALL
                .iter()
                .zip(["part-0", "part-1", "part-2", "part-3"])
                .map(|(strategy, class)| (class, strategy.label()))
                .chain([("capacity", t.chart_gpus_now)])
                .collect(),
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

/// The chart of `kind` as SVG text of `size` pixels, in the light palette
/// (the static view's, `vram --html`): the same drawing as the page's canvas,
/// at a scale of 1, its labels placed with estimated text widths.
#[cfg(any(not(target_arch = "wasm32"), feature = "svg"))]
pub fn svg(report: &Report, t: &Text, kind: ChartKind, size: (u32, u32)) -> Result<String, String> {
    use plotters::backend::SVGBackend;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        let sheet = Sheet::light(report, t);
        let drawn = match kind {
            ChartKind::Scaling => plot_scaling(&root, &sheet),
            ChartKind::Step => plot_step(&root, &sheet).map(drop),
            _ => plot(&root, &sheet, kind).map(drop),
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
    let sheet = Sheet {
        report,
        t,
        palette: Palette::of(canvas),
        scale,
        measure: TextMeasure::of(canvas),
    };
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2D context")?;
    let root = backend.into_drawing_area();
    match kind {
        ChartKind::Scaling => plot_scaling(&root, &sheet),
        ChartKind::Step => plot_step(&root, &sheet).map(drop),
        ChartKind::Plans => plot_plans(&root, &sheet, plans),
        _ => plot(&root, &sheet, kind).map(drop),
    }
    .map_err(|e| e.to_string())
}

/// The picture on `canvas` as a PNG `data:` URL that says what it is
/// (issue 47, item 7: a chart downloaded alone lost its context): `title`
/// above it with `caption` (the configuration in words) under the title,
/// wrapped to the width, and the legend of `kind` under the picture, each
/// swatch in the chart's colour, on the chart's ground. `None` where the
/// browser gives no 2D context.
pub fn png_with_context(
    canvas: &HtmlCanvasElement,
    kind: ChartKind,
    title: &str,
    caption: &str,
    t: &'static Text,
) -> Option<String> {
    use wasm_bindgen::JsCast;
    let palette = Palette::of(canvas);
    let scale = f64::from(canvas.width()) / f64::from(canvas.client_width().max(1));
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let document = web_sys::window()?.document()?;
    let picture: HtmlCanvasElement = document.create_element("canvas").ok()?.dyn_into().ok()?;
    let context = |c: &HtmlCanvasElement| {
        c.get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    };
    let width = f64::from(canvas.width());
    let pad = 12.0 * scale;
    let (title_px, text_px) = (16.0 * scale, 12.0 * scale);
    let font = |px: f64, bold: bool| {
        format!(
            "{}{}px {FONT_FAMILY}",
            if bold { "bold " } else { "" },
            shortest_decimal(px.round())
        )
    };
    // The caption's lines, broken at its separators (or spaces) to fit.
    let measure = context(&picture)?;
    measure.set_font(&font(text_px, false));
    let mut lines: Vec<String> = Vec::new();
    for word in caption.split_inclusive([' ', '·']) {
        let fits = lines.last().is_some_and(|line| {
            measure
                .measure_text(&format!("{line}{word}"))
                .is_ok_and(|m| m.width() <= width - 2.0 * pad)
        });
        match (fits, lines.last_mut()) {
            (true, Some(line)) => line.push_str(word),
            _ => lines.push(word.trim_start().to_string()),
        }
    }
    let line_height = text_px * 1.4;
    let header = pad + title_px * 1.3 + lines.len() as f64 * line_height + pad / 2.0;
    let legend_height = line_height + pad;
    picture.set_width(canvas.width());
    picture.set_height((f64::from(canvas.height()) + header + legend_height).ceil() as u32);
    let c = context(&picture)?;
    let css = |color: RGBColor| format!("rgb({},{},{})", color.0, color.1, color.2);
    c.set_fill_style_str(&css(palette.ground));
    c.fill_rect(0.0, 0.0, width, f64::from(picture.height()));
    c.set_fill_style_str(&css(palette.ink));
    c.set_text_baseline("top");
    c.set_font(&font(title_px, true));
    c.fill_text(title, pad, pad).ok()?;
    c.set_font(&font(text_px, false));
    for (i, line) in lines.iter().enumerate() {
        let y = pad + title_px * 1.3 + i as f64 * line_height;
        c.fill_text(line.trim_end(), pad, y).ok()?;
    }
    c.draw_image_with_html_canvas_element(canvas, 0.0, header)
        .ok()?;
    // The legend, as the figure's caption draws it.
    let mut x = pad;
    let y = header + f64::from(canvas.height()) + pad / 2.0;
    for (class, label) in kind.legend(t) {
        let (color, line) = match class {
            "fits" => (palette.fits, false),
            "too-small" => (palette.too_small, false),
            "model" => (palette.model, true),
            "capacity" => (palette.ink, true),
            part => {
                let i = part
                    .trim_start_matches("part-")
                    .parse::<usize>()
                    .unwrap_or(0);
                (palette.parts[i.min(4)], false)
            }
        };
        c.set_fill_style_str(&css(color));
        let swatch = text_px;
        match line {
            true => c.fill_rect(x, y + swatch / 2.0 - scale, swatch, 3.0 * scale),
            false => c.fill_rect(x, y, swatch, swatch),
        }
        c.set_fill_style_str(&css(palette.ink));
        c.fill_text(label, x + swatch + 4.0 * scale, y).ok()?;
        let label_width = c.measure_text(label).map_or(0.0, |m| m.width());
        x += swatch + 4.0 * scale + label_width + 14.0 * scale;
    }
    picture.to_data_url().ok()
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

/// What every chart is drawn from and with: the report and the words, the
/// colours, device pixels a CSS pixel, and text widths.
struct Sheet<'a> {
    report: &'a Report,
    t: &'a Text,
    palette: Palette,
    scale: f64,
    measure: TextMeasure,
}

impl<'a> Sheet<'a> {
    /// The static view's (and the snapshots'): the light palette, at a scale
    /// of 1, text widths estimated.
    #[cfg(any(not(target_arch = "wasm32"), feature = "svg"))]
    fn light(report: &'a Report, t: &'a Text) -> Sheet<'a> {
        Sheet {
            report,
            t,
            palette: Palette::LIGHT,
            scale: 1.0,
            measure: TextMeasure(None),
        }
    }
}

/// The chart's typeface: the system's, as the page's.
const FONT_FAMILY: &str = "system-ui, sans-serif";

type Area<B> = DrawingArea<B, Shift>;

/// Where a chart of equal columns (the strategies' bars, the step's
/// moments) is drawn, in device pixels: the axes' edges, each column's
/// width, and the y axis' top.
#[derive(Clone, Copy)]
struct Columns {
    /// Device pixels a CSS pixel.
    scale: f64,
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
    /// Each column's width.
    slot: f64,
    /// The y axis' top, in the chart's unit (the page's memory unit, or
    /// billions of parameters).
    y_max: f64,
}

impl Columns {
    /// `count` columns on an area of `width` × `height` device pixels, the
    /// y axis' values at their left and `below_css` CSS pixels under them
    /// for their names; the axis up to `y_max`.
    fn new(
        scale: f64,
        (width, height): (u32, u32),
        below_css: f64,
        count: usize,
        y_max: f64,
    ) -> Columns {
        let px = |css: f64| (css * scale).round() as i32;
        let (left, right) = (px(64.0), width as i32 - px(16.0));
        let (top, bottom) = (px(16.0), height as i32 - px(below_css));
        Columns {
            scale,
            left,
            right,
            top,
            bottom,
            slot: f64::from(right - left) / count as f64,
            y_max,
        }
    }

    /// `css` pixels in device pixels.
    fn px(&self, css: f64) -> i32 {
        (css * self.scale).round() as i32
    }

    /// The chart's typeface at `size` CSS pixels.
    fn font(&self, size: f64) -> FontDesc<'static> {
        (FONT_FAMILY, size * self.scale).into_font()
    }

    /// The height of `value` (in the axis' unit): above the axis' top where
    /// `value` is.
    fn y_of(&self, value: f64) -> i32 {
        self.bottom - (value / self.y_max * f64::from(self.bottom - self.top)).round() as i32
    }

    /// The middle of column `index`.
    fn x_of(&self, index: usize) -> i32 {
        self.left + (self.slot * (index as f64 + 0.5)).round() as i32
    }

    /// The box (left, top, right, bottom) a reference line at height `y`
    /// covers, a pixel either side, that labels keep clear of.
    fn line_box(&self, y: i32) -> [i32; 4] {
        [self.left, y - 1, self.right, y + 1]
    }

    /// The y axis' grid and values at 1, 2 or 5 × 10^k ([`y_grid`]): the
    /// values in the first of `colours`, the lines in the second.
    fn draw_y_grid<B: DrawingBackend>(
        &self,
        root: &Area<B>,
        colours: (RGBColor, RGBColor),
    ) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
        let (left, right, y_max, scale) = (self.left, self.right, self.y_max, self.scale);
        y_grid(root, (left, right), y_max, scale, colours, |tick| {
            self.y_of(tick)
        })
    }

    /// The y axis' `title`, in `ink`, turned along its left edge.
    fn draw_y_title<B: DrawingBackend>(
        &self,
        root: &Area<B>,
        title: &str,
        ink: RGBColor,
    ) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
        y_axis_title(root, title, ink, self.scale, (self.top, self.bottom))
    }

    /// The y axis' line and the x axis'.
    fn draw_axis_lines<B: DrawingBackend>(
        &self,
        root: &Area<B>,
        ink: RGBColor,
    ) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
        root.draw(&PathElement::new(
            vec![
                (self.left, self.top),
                (self.left, self.bottom),
                (self.right, self.bottom),
            ],
            ink.mix(0.6),
        ))
    }
}

/// Draws each of `lines` across `columns` at its height, in its colour, its
/// width in CSS pixels thick, and writes its label on it, on the chart's
/// ground, in the first free place of: above the line at the right, below
/// it, then the same at the left; free of the labels so far and of the
/// lines (the boxes given), the labels' of which each joins. Returns the
/// boxes, the lines' labels among them.
fn draw_reference_lines<B: DrawingBackend>(
    root: &Area<B>,
    sheet: &Sheet,
    columns: &Columns,
    lines: impl IntoIterator<Item = (i32, RGBColor, f64, String)>,
    (mut taken, boxed_lines): LabelBoxes,
) -> Result<LabelBoxes, DrawingAreaErrorKind<B::ErrorType>> {
    let Columns {
        left, right, scale, ..
    } = *columns;
    let px = |css: f64| columns.px(css);
    for (line_y, color, width_css, label) in lines {
        root.draw(&PathElement::new(
            vec![(left, line_y), (right, line_y)],
            color.stroke_width(px(width_css) as u32),
        ))?;
        let (w, h) = (
            sheet.measure.width(&label, 12.0 * scale) + px(6.0),
            px(18.0),
        );
        let places = [
            [right - w, line_y - h, right, line_y - 1],
            [right - w, line_y + 2, right, line_y + h + 1],
            [left + 1, line_y - h, left + 1 + w, line_y - 1],
            [left + 1, line_y + 2, left + 1 + w, line_y + h + 1],
        ];
        let free = |b: &[i32; 4]| !taken.iter().chain(&boxed_lines).any(|t| overlap(t, b));
        let place = places.into_iter().find(free).unwrap_or(places[0]);
        taken.push(place);
        root.draw(&Rectangle::new(
            [(place[0], place[1]), (place[2], place[3])],
            sheet.palette.ground.mix(0.9).filled(),
        ))?;
        root.draw_text(
            &label,
            &columns
                .font(12.0)
                .color(&color)
                .pos(Pos::new(HPos::Left, VPos::Top)),
            (place[0] + px(3.0), place[1] + px(3.0)),
        )?;
    }
    Ok((taken, boxed_lines))
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

/// The y axis' grid and values at 1, 2 or 5 × 10^k up to `y_max`, across
/// `left..right` at the heights `y_of` gives, in a chart drawn at `scale`
/// device pixels a CSS pixel: at most twelve, so a non-finite maximum
/// cannot hang the page.
fn y_grid<B: DrawingBackend>(
    root: &DrawingArea<B, Shift>,
    (left, right): (i32, i32),
    y_max: f64,
    scale: f64,
    (ink, grid): (RGBColor, RGBColor),
    y_of: impl Fn(f64) -> i32,
) -> Result<(), DrawingAreaErrorKind<B::ErrorType>> {
    let step = tick_step(y_max);
    let label_style = (FONT_FAMILY, 12.0 * scale)
        .into_font()
        .color(&ink)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for tick in (0..12)
        .map(|i| f64::from(i) * step)
        .take_while(|tick| *tick <= y_max)
    {
        let y = y_of(tick);
        root.draw(&PathElement::new(vec![(left, y), (right, y)], grid))?;
        root.draw_text(
            &format_number(tick),
            &label_style,
            (left - (6.0 * scale).round() as i32, y),
        )?;
    }
    Ok(())
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
            let sheet = Sheet::light(&report, &crate::text::EN);
            match kind {
                ChartKind::Scaling => plot_scaling(&root, &sheet),
                ChartKind::Step => plot_step(&root, &sheet).map(drop),
                _ => plot(&root, &sheet, kind).map(drop),
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
        let sheet = Sheet::light(&report, &crate::text::EN);
        match kind {
            ChartKind::Step => plot_step(&root, &sheet),
            _ => plot(&root, &sheet, kind),
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
    /// FlashAttention on 78 GB GPUs does not fit under ZeRO-1 (63.29 GB of
    /// 62.4: its bar is in the "too small" colour, 6.58 B below the model's
    /// 6.74) and fits under
    /// ZeRO-3; with PP, ZeRO-2 and ZeRO-3 draw no bar and say n/a.
    #[test]
    fn the_largest_model_chart_follows_the_verdict() {
        let query = "model=llama2-7b&flash=0&stage=1&gpu_mem=78";
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
