//! The chart: the largest trainable model per strategy, with the current model
//! size drawn across, so one sees which strategies can train it.

use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use vram_core::format::format_params;
use vram_core::{Report, Strategy};
use web_sys::HtmlCanvasElement;

use crate::text;

/// Colours of the chart, readable on the page's light background.
const FITS: RGBColor = RGBColor(0x1b, 0x7f, 0x5c);
const TOO_SMALL: RGBColor = RGBColor(0xb4, 0x3c, 0x3c);
const MODEL_LINE: RGBColor = RGBColor(0x1f, 0x3b, 0x8c);
const INK: RGBColor = RGBColor(0x22, 0x26, 0x2e);
const GRID: RGBColor = RGBColor(0xe3, 0xe6, 0xec);

/// Height of the chart in CSS pixels.
const HEIGHT_CSS: u32 = 300;

/// The chart component: a canvas redrawn whenever the report or the page width changes.
#[component]
pub fn MaxParamsChart(report: Memo<Report>) -> impl IntoView {
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    // The canvas's size in CSS pixels: read once, then on every resize. Reading it
    // forces a layout, which would otherwise cost every redraw a millisecond or more.
    let css_size = RwSignal::new(None::<(f64, f64)>);
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some(canvas) = canvas_ref.get_untracked() {
            css_size.set(Some(client_size(&canvas)));
        }
    });
    on_cleanup(move || resize.remove());
    Effect::new(move |_| {
        css_size.track();
        let report = report.read();
        if let Some(canvas) = canvas_ref.get() {
            let size = css_size.get_untracked().unwrap_or_else(|| {
                let size = client_size(&canvas);
                css_size.update_untracked(|stored| *stored = Some(size));
                size
            });
            // A drawing error leaves the previous picture; the table still holds every figure.
            let _ = draw(&canvas, &report, size);
            crate::timing::mark(crate::timing::CHART_DRAWN);
        }
    });
    let description = move || describe(&report.read());
    view! {
        <figure class="chart">
            <canvas
                node_ref=canvas_ref
                data-testid="chart-max-params"
                role="img"
                aria-label=description
                height=HEIGHT_CSS
            ></canvas>
            <figcaption>
                <span class="swatch fits"></span> {text::CHART_LEGEND_FITS} " "
                <span class="swatch too-small"></span> {text::CHART_LEGEND_TOO_SMALL} " "
                <span class="swatch model"></span> {text::CHART_LEGEND_MODEL}
            </figcaption>
        </figure>
    }
}

/// The chart's figures in words, for screen readers.
fn describe(report: &Report) -> String {
    let bars: Vec<String> = report
        .strategies
        .iter()
        .map(|row| format!("{} {}", row.strategy.label(), format_params(row.max_params)))
        .collect();
    format!(
        "{}: {}. {}: {}.",
        text::CHART_Y_AXIS,
        bars.join(", "),
        text::CHART_LEGEND_MODEL,
        format_params(report.setup.params())
    )
}

/// The canvas's laid-out size in CSS pixels (a default before layout).
fn client_size(canvas: &HtmlCanvasElement) -> (f64, f64) {
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
fn draw(canvas: &HtmlCanvasElement, report: &Report, css_size: (f64, f64)) -> Result<(), String> {
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
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2D context")?;
    let root = backend.into_drawing_area();
    plot(&root, report, scale, &measure).map_err(|e| e.to_string())
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
            context.set_font(&format!("{size_px}px {FONT_FAMILY}"));
            context.measure_text(text).ok().map(|m| m.width())
        });
        measured
            .unwrap_or(text.chars().count() as f64 * size_px * 0.6)
            .ceil() as i32
    }
}

/// The chart's typeface: the system's, as the page's.
const FONT_FAMILY: &str = "system-ui, sans-serif";

type Area = DrawingArea<CanvasBackend, Shift>;

fn plot(
    root: &Area,
    report: &Report,
    scale: f64,
    measure: &TextMeasure,
) -> Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>> {
    let px = |css: f64| (css * scale).round() as i32;
    let font = |size: f64| (FONT_FAMILY, size * scale).into_font();
    root.fill(&WHITE)?;

    let model = report.setup.params().billions();
    let tallest = report
        .strategies
        .iter()
        .map(|row| row.max_params.billions())
        .fold(model, f64::max);
    let y_max = tallest * 1.2;

    let mut chart = ChartBuilder::on(root)
        .margin_top(px(16.0))
        .margin_right(px(16.0))
        .margin_left(px(8.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(-0.5f64..3.5f64, 0f64..y_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .axis_style(INK.mix(0.6))
        .y_desc(text::CHART_Y_AXIS)
        .y_label_formatter(&|v| vram_core::format::format_number(*v))
        .label_style(font(12.0).color(&INK))
        .axis_desc_style(font(12.0).color(&INK))
        .draw()?;

    let half_width = 0.3;
    chart.draw_series(report.strategies.iter().enumerate().map(|(i, row)| {
        let x = i as f64;
        let color = if row.max_params.billions() >= model {
            FITS
        } else {
            TOO_SMALL
        };
        let style = if row.strategy == report.highlight {
            color.filled()
        } else {
            color.mix(0.75).filled()
        };
        Rectangle::new(
            [
                (x - half_width, 0.0),
                (x + half_width, row.max_params.billions()),
            ],
            style,
        )
    }))?;
    // Outline of the highlighted strategy's bar.
    let chosen = report.highlight as usize as f64;
    chart.draw_series(std::iter::once(Rectangle::new(
        [
            (chosen - half_width, 0.0),
            (
                chosen + half_width,
                report.highlighted().max_params.billions(),
            ),
        ],
        INK.stroke_width(px(2.0) as u32),
    )))?;
    // Value above each bar.
    let value_style = font(13.0)
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart.draw_series(report.strategies.iter().enumerate().map(|(i, row)| {
        Text::new(
            format_params(row.max_params),
            (i as f64, row.max_params.billions() + y_max * 0.01),
            value_style.clone(),
        )
    }))?;
    // The current model, across every bar.
    chart.draw_series(LineSeries::new(
        [(-0.5, model), (3.5, model)],
        MODEL_LINE.stroke_width(px(2.0) as u32),
    ))?;
    // Its label, right-aligned above the line on a white ground so bars never hide it.
    let model_label = format!(
        "{}: {}",
        text::CHART_LEGEND_MODEL,
        format_params(report.setup.params())
    );
    let label_font = font(12.0).color(&MODEL_LINE);
    let text_width = measure.width(&model_label, 12.0 * scale);
    let text_height = px(12.0);
    let (right, line_y) = chart.backend_coord(&(3.5, model));
    let pad = px(3.0);
    let top = (line_y - text_height - 2 * pad).max(0);
    root.draw(&Rectangle::new(
        [(right - text_width - 2 * pad, top), (right, line_y - 1)],
        WHITE.mix(0.9).filled(),
    ))?;
    root.draw_text(
        &model_label,
        &label_font.pos(Pos::new(HPos::Right, VPos::Top)),
        (right - pad, top + pad),
    )?;
    // Strategy names under the bars.
    let name_style = font(13.0)
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for strategy in Strategy::ALL {
        let (x, y) = chart.backend_coord(&(strategy as usize as f64, 0.0));
        root.draw_text(strategy.label(), &name_style, (x, y + px(8.0)))?;
    }
    root.present()?;
    Ok(())
}
