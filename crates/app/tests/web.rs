//! The page mounted in headless Chromium: inputs change the table, the chart
//! and the link; a link fills the form; bad input and bad links are handled.
#![cfg(target_arch = "wasm32")]

use leptos::mount::mount_to;
use vram_app::App;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{
    CanvasRenderingContext2d, Event, EventInit, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlSelectElement,
};

wasm_bindgen_test_configure!(run_in_browser);

/// Tolerance for figures read back from `data-value` (GB or billions): they are
/// printed with Rust's shortest round-trip form, so the only error is the core's own.
const TOLERANCE: f64 = 1e-9;

/// A mounted calculator; unmounted when dropped.
struct Page {
    root: HtmlElement,
    _handle: Box<dyn std::any::Any>,
}

impl Page {
    /// Mounts the page as if opened with `query` in the address bar.
    async fn open(query: &str) -> Page {
        let window = web_sys::window().unwrap();
        window
            .history()
            .unwrap()
            .replace_state_with_url(&JsValue::NULL, "", Some(&format!("/{query}")))
            .unwrap();
        let document = window.document().unwrap();
        let root: HtmlElement = document.create_element("div").unwrap().unchecked_into();
        document.body().unwrap().append_child(&root).unwrap();
        let handle = mount_to(root.clone(), App);
        leptos::task::tick().await;
        Page {
            root,
            _handle: Box::new(handle),
        }
    }

    fn find(&self, selector: &str) -> web_sys::Element {
        self.root
            .query_selector(selector)
            .unwrap()
            .unwrap_or_else(|| panic!("no element matches {selector}"))
    }

    fn testid(&self, id: &str) -> web_sys::Element {
        self.find(&format!("[data-testid='{id}']"))
    }

    /// The unrounded figure of `data-testid=id`.
    fn value(&self, id: &str) -> f64 {
        let text = self.testid(id).get_attribute("data-value").unwrap();
        text.parse()
            .unwrap_or_else(|_| panic!("{id}: data-value {text:?} is not a number"))
    }

    fn flag(&self, id: &str) -> String {
        self.testid(id).get_attribute("data-value").unwrap()
    }

    fn input(&self, name: &str) -> HtmlInputElement {
        self.find(&format!("input[name='{name}']")).unchecked_into()
    }

    fn select(&self, name: &str) -> HtmlSelectElement {
        self.find(&format!("select[name='{name}']"))
            .unchecked_into()
    }

    /// Types `text` into the field named `name`, as a user would: value, then a bubbling `input` event.
    async fn type_into(&self, name: &str, text: &str) {
        let input = self.input(name);
        input.set_value(text);
        dispatch(&input, "input");
        leptos::task::tick().await;
    }

    async fn choose(&self, name: &str, value: &str) {
        let select = self.select(name);
        select.set_value(value);
        dispatch(&select, "change");
        leptos::task::tick().await;
    }

    fn assert_figure(&self, id: &str, expected: f64) {
        let actual = self.value(id);
        assert!(
            (actual - expected).abs() < TOLERANCE,
            "{id}: expected {expected}, got {actual}"
        );
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.root.remove();
    }
}

fn dispatch(target: &web_sys::EventTarget, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

fn location_search() -> String {
    web_sys::window().unwrap().location().search().unwrap()
}

/// A fingerprint of the canvas's pixels and the number of pixels that are not white.
fn canvas_pixels(page: &Page) -> (u64, usize) {
    let canvas: HtmlCanvasElement = page.testid("chart-max-params").unchecked_into();
    let context: CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let data = context
        .get_image_data(
            0.0,
            0.0,
            f64::from(canvas.width()),
            f64::from(canvas.height()),
        )
        .unwrap()
        .data();
    let inked = data
        .chunks(4)
        .filter(|px| px[0] < 250 || px[1] < 250 || px[2] < 250)
        .count();
    let hash = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    });
    (hash, inked)
}

#[wasm_bindgen_test]
async fn bare_page_shows_the_lessons_numbers() {
    let page = Page::open("").await;
    for (strategy, total) in [
        ("ddp", 112.0),
        ("zero1", 38.5),
        ("zero2", 26.25),
        ("zero3", 14.0),
    ] {
        page.assert_figure(&format!("mem-total-{strategy}"), total);
    }
    page.assert_figure("mem-weights-zero3", 1.75);
    page.assert_figure("mem-grads-zero2", 1.75);
    page.assert_figure("mem-optim-zero1", 10.5);
    page.assert_figure("max-params-ddp", 4.0);
    page.assert_figure("max-params-zero3", 32.0);
    assert_eq!(page.flag("fits-ddp"), "false");
    assert_eq!(page.flag("fits-zero1"), "true");
    assert_eq!(
        page.testid("mem-total-zero2")
            .text_content()
            .unwrap()
            .trim(),
        "26.25 GB"
    );
    assert_eq!(
        page.testid("max-params-ddp").text_content().unwrap().trim(),
        "4 B"
    );
    // The address bar now holds the whole configuration.
    assert_eq!(
        location_search(),
        "?v=1&params=7&gpus=8&gpu_mem=80&dtype=fp16&opt=adam&overhead=0.2&stage=ddp"
    );
}

#[wasm_bindgen_test]
async fn a_changed_input_changes_table_link_and_chart() {
    let page = Page::open("").await;
    let (before, inked) = canvas_pixels(&page);
    assert!(inked > 5_000, "the chart drew only {inked} pixels");

    page.type_into("params", "13").await;
    page.assert_figure("mem-total-zero2", 48.75);
    page.assert_figure("mem-total-zero1", 71.5);
    assert_eq!(page.flag("fits-zero1"), "false");
    assert!(
        location_search().contains("params=13&"),
        "{}",
        location_search()
    );
    let (after, _) = canvas_pixels(&page);
    assert_ne!(before, after, "the chart was not redrawn");

    page.choose("opt", "sgd").await;
    page.assert_figure("mem-total-ddp", 13.0 * 8.0);
    assert!(location_search().contains("opt=sgd"));

    page.type_into("overhead", "50").await;
    assert!(location_search().contains("overhead=0.5"));
    // 80 GB × (1 − 0.5) = 40 GB usable; SGD under DDP takes 2 + 2 + 4 = 8 bytes per parameter.
    page.assert_figure("max-params-ddp", 5.0);
}

#[wasm_bindgen_test]
async fn a_shared_link_fills_the_form_and_highlights_its_strategy() {
    let page = Page::open("?params=13&gpus=8&gpu_mem=80&stage=2").await;
    assert_eq!(page.input("params").value(), "13");
    assert_eq!(page.input("gpus").value(), "8");
    assert_eq!(page.select("stage").value(), "2");
    let highlighted = page.find("tr.highlighted [data-testid^='mem-total-']");
    assert_eq!(
        highlighted.get_attribute("data-testid").unwrap(),
        "mem-total-zero2"
    );
    page.assert_figure("mem-total-zero2", 48.75);
    assert!(page
        .testid("summary")
        .text_content()
        .unwrap()
        .contains("ZeRO-2 needs 48.75 GB"));
    assert!(location_search().contains("stage=2"));
}

#[wasm_bindgen_test]
async fn an_invalid_link_value_is_named_and_takes_its_default() {
    let page = Page::open("?params=13&gpus=abc&dtype=%3Cscript%3E").await;
    let notice = page.testid("link-problems").text_content().unwrap();
    assert!(notice.contains("gpus=abc"), "{notice}");
    assert!(notice.contains("dtype=<script>"), "shown as text: {notice}");
    assert_eq!(page.input("gpus").value(), "8");
    assert_eq!(page.select("dtype").value(), "fp16");
    page.assert_figure("mem-total-ddp", 13.0 * 16.0);
    assert!(page.root.query_selector("script").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn invalid_input_keeps_the_text_and_the_last_result_marked_stale() {
    let page = Page::open("").await;
    page.type_into("params", "13").await;
    page.type_into("params", "13x").await;
    assert_eq!(page.input("params").value(), "13x");
    assert_eq!(
        page.input("params")
            .get_attribute("aria-invalid")
            .as_deref(),
        Some("true")
    );
    let message = page.testid("error-params").text_content().unwrap();
    assert!(message.contains("Not a number"), "{message}");
    assert_eq!(
        page.find("section.output")
            .get_attribute("data-stale")
            .as_deref(),
        Some("true")
    );
    page.assert_figure("mem-total-zero2", 48.75);
    assert!(location_search().contains("params=13&"));

    page.type_into("gpus", "0").await;
    assert!(page
        .testid("error-gpus")
        .text_content()
        .unwrap()
        .contains("Enter 1 to 1,048,576"));

    page.type_into("params", "7").await;
    page.type_into("gpus", "8").await;
    assert_eq!(
        page.find("section.output")
            .get_attribute("data-stale")
            .as_deref(),
        Some("false")
    );
    assert_eq!(page.testid("error-params").text_content().unwrap(), "");
    page.assert_figure("mem-total-zero2", 26.25);
}

#[wasm_bindgen_test]
async fn clicking_a_strategy_highlights_it() {
    let page = Page::open("").await;
    let button: HtmlElement = page.find("tbody tr:nth-child(4) button").unchecked_into();
    button.click();
    leptos::task::tick().await;
    assert_eq!(page.select("stage").value(), "3");
    assert!(
        location_search().ends_with("stage=3"),
        "{}",
        location_search()
    );
    assert_eq!(
        button.get_attribute("aria-pressed").as_deref(),
        Some("true")
    );
}
