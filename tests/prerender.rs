//! The view written into `index.html` at build time (crates/prerender): the
//! bare page paints the lesson's figures and its charts from the HTML before
//! any WebAssembly runs; a link that asks for anything else shows none of
//! them as its own; the live page takes over without moving anything.

use fantoccini::Locator;
use serde_json::json;
use vram_e2e::{Browser, LIVE_AND_DRAWN};

/// Keeps the page's WebAssembly from arriving (the view written at build
/// time is all there is), for the pages opened after it.
async fn without_webassembly(browser: &Browser) {
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp("Network.setBlockedURLs", json!({ "urls": ["*.wasm"] }))
        .await;
}

/// Opens `query` and waits for the document, not for the WebAssembly.
async fn goto(browser: &Browser, query: &str) {
    browser
        .client
        .goto(&browser.server.url(&format!("/{query}")))
        .await
        .expect("page loads");
}

/// Whether the view written at build time is seen: present and not hidden.
const WRITTEN_VIEW_SEEN: &str = r#"
    const view = document.querySelector("main[data-prerendered]");
    return view !== null && getComputedStyle(view).visibility === "visible";
"#;

#[tokio::test]
async fn the_bare_page_paints_the_lessons_figures_and_charts_from_its_html() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    goto(&browser, "").await;
    assert_eq!(browser.eval(WRITTEN_VIEW_SEEN).await, json!(true));
    assert_eq!(
        browser.eval(WRITTEN_VIEWS_SHOWN).await,
        json!([true, false])
    );
    for (strategy, total) in [
        ("ddp", "112 GB"),
        ("zero1", "38.5 GB"),
        ("zero2", "26.25 GB"),
        ("zero3", "14 GB"),
    ] {
        assert_eq!(browser.text(&format!("mem-total-{strategy}")).await, total);
    }
    // The three charts as SVG, each with its words for screen readers.
    for chart in ["memory", "max-params", "scaling"] {
        let picture = browser
            .client
            .find(Locator::Css(&format!(
                "[data-testid='chart-svg-{chart}'] svg"
            )))
            .await
            .unwrap_or_else(|e| panic!("no chart {chart}: {e}"));
        let size = picture.rectangle().await.expect("its box");
        assert!(size.2 > 200.0 && size.3 > 200.0, "chart {chart}: {size:?}");
    }
    let label = browser.attribute("chart-svg-memory", "aria-label").await;
    assert!(label.contains("ZeRO-2 26.25 GB"), "{label}");
    // The form holds the default configuration's values.
    let params = browser
        .eval("return document.getElementById('params').value")
        .await;
    assert_eq!(params, json!("7"));
    browser.close().await;
}

/// While the document is still arriving, a written view whose end has not
/// been parsed is not seen (its table's columns would widen as its rows
/// arrive): the end marker taken away, the view is hidden; put back, seen.
#[tokio::test]
async fn a_written_view_is_seen_whole_or_not_at_all() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    goto(&browser, "").await;
    let seen = browser
        .eval(
            r#"const view = document.querySelector("main[data-prerendered][data-lang=en]");
               const end = view.nextElementSibling;
               const seen = () => getComputedStyle(view).visibility === "visible";
               const whole = seen();
               end.remove();
               const cut = seen();
               view.after(end);
               return [end.matches("template[data-prerendered-end]"), whole, cut, seen()];"#,
        )
        .await;
    assert_eq!(seen, json!([true, true, false, true]));
    browser.close().await;
}

/// Which written views are displayed: `[English, Chinese]`.
const WRITTEN_VIEWS_SHOWN: &str = r#"
    return ["en", "zh"].map((lang) => {
        const view = document.querySelector(`main[data-prerendered][data-lang=${lang}]`);
        return view !== null && getComputedStyle(view).display !== "none"
            && getComputedStyle(view).visibility === "visible";
    });
"#;

/// With JavaScript off altogether (no guard, no loader), the figures are
/// read from the HTML, with the line that says whose they are: on the bare
/// page and on a lesson's embed (laid out as the bare page, then).
#[tokio::test]
async fn with_javascript_off_the_bare_page_still_reads() {
    let browser = Browser::start().await;
    browser
        .cdp(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": true }),
        )
        .await;
    for query in ["", "?embed=1"] {
        goto(&browser, query).await;
        read_without_javascript(&browser).await;
    }
    browser.close().await;
}

/// The English written view's figures and charts are there and the Chinese
/// one is not displayed.
async fn read_without_javascript(browser: &Browser) {
    for (strategy, total) in [("ddp", "112 GB"), ("zero1", "38.5 GB"), ("zero3", "14 GB")] {
        let cell = browser
            .client
            .find(Locator::Css(&format!(
                "main[data-lang=en] [data-testid='mem-total-{strategy}']"
            )))
            .await
            .expect("the cell");
        assert_eq!(cell.text().await.expect("its text"), total);
    }
    let charts = browser
        .client
        .find_all(Locator::Css("main[data-lang=en] .chart-svg svg"))
        .await
        .expect("the charts");
    assert_eq!(charts.len(), 3);
    let chinese = browser
        .client
        .find(Locator::Css("main[data-lang=zh]"))
        .await
        .expect("the Chinese view");
    assert!(!chinese.is_displayed().await.expect("displayed or not"));
}

/// A lesson's embed of the default configuration (`?embed=1`, or the link
/// the page writes for it) is the written view in the compact layout: the
/// lesson's few settings, the results right under them, every other setting
/// folded (issue 47, item 5: the form came last, 4,802 px down), no
/// masthead, before any WebAssembly.
#[tokio::test]
async fn a_lessons_embed_paints_from_its_html_in_the_compact_layout() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    let written_back =
        "?v=1&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp&embed=1";
    for query in ["?embed=1", written_back] {
        goto(&browser, query).await;
        assert_eq!(
            browser.eval(WRITTEN_VIEW_SEEN).await,
            json!(true),
            "{query}"
        );
        let layout = browser
            .eval(
                r#"const view = document.querySelector("main[data-prerendered][data-lang=en]");
                   const results = view.querySelector("[data-testid=mem-total-zero2]").getBoundingClientRect();
                   const form = view.querySelector("form.controls").getBoundingClientRect();
                   const summary = view.querySelector("[data-testid=summary]").getBoundingClientRect();
                   return [document.documentElement.getAttribute("data-embed"),
                           getComputedStyle(view.querySelector(".masthead")).display,
                           form.bottom <= summary.top && summary.top < 1400,
                           getComputedStyle(view.querySelector("[data-key=nodes]")).display];"#,
            )
            .await;
        assert_eq!(layout, json!(["1", "none", true, "none"]), "{query}");
        assert_eq!(browser.text("mem-total-zero2").await, "26.25 GB");
    }
    browser.close().await;
}

#[tokio::test]
async fn a_browser_that_prefers_chinese_sees_the_chinese_view() {
    let browser = Browser::start().await;
    browser
        .cdp(
            "Emulation.setUserAgentOverride",
            json!({ "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156", "acceptLanguage": "zh-CN,zh,en" }),
        )
        .await;
    without_webassembly(&browser).await;
    goto(&browser, "").await;
    let languages = browser.eval("return navigator.languages[0]").await;
    assert_eq!(languages, json!("zh-CN"), "the browser's languages");
    assert_eq!(
        browser.eval(WRITTEN_VIEWS_SHOWN).await,
        json!([false, true])
    );
    let total = browser
        .eval("return document.querySelector('main[data-lang=zh] [data-testid=mem-total-zero2]').textContent")
        .await;
    assert_eq!(total, json!("26.25 GB"));
    let heading = browser
        .eval("return document.querySelector('main[data-lang=zh] h1').textContent")
        .await;
    assert!(
        heading.as_str().is_some_and(|h| h.contains("显存")),
        "{heading}"
    );
    // The document's language and title are the Chinese page's already.
    let document = browser
        .eval("return [document.documentElement.lang, document.title]")
        .await;
    assert_eq!(document, json!(["zh-Hans", "大模型训练显存计算器"]));
    browser.close().await;
}

/// Issue 47, item 3: the Chinese default a student copies (`?lang=zh`, or
/// the page's own link with `&lang=zh`) paints from the HTML in Chinese, in
/// any browser; `lang=en` the English view in a browser preferring Chinese.
#[tokio::test]
async fn a_links_language_picks_the_written_view() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    let default_link =
        "?v=1&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp";
    for (query, shown) in [
        ("?lang=zh".to_string(), [false, true]),
        (format!("{default_link}&lang=zh"), [false, true]),
        ("?lang=en".to_string(), [true, false]),
        ("?embed=1&lang=zh".to_string(), [false, true]),
    ] {
        goto(&browser, &query).await;
        assert_eq!(
            browser.eval(WRITTEN_VIEWS_SHOWN).await,
            json!(shown),
            "{query}"
        );
    }
    let document = browser
        .eval("return [document.documentElement.lang, document.title]")
        .await;
    assert_eq!(document, json!(["zh-Hans", "大模型训练显存计算器"]));
    browser.close().await;
}

/// Issue 47, item 3: a link whose figures the HTML does not hold says it is
/// loading, in the link's language, and where the WebAssembly cannot run
/// says so in words instead of staying blank.
#[tokio::test]
async fn a_link_says_it_is_loading_and_when_it_cannot_run() {
    const SAID: &str = r#"
        const said = getComputedStyle(document.body, "::before").content;
        return [said, document.documentElement.classList.contains("vram-failed")];
    "#;
    let browser = Browser::start().await;
    // Held back: the document is all there is for now.
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp(
            "Network.setBlockedURLs",
            json!({ "urls": ["*.js", "*.wasm"] }),
        )
        .await;
    goto(&browser, "?params=13").await;
    let said = browser.eval(SAID).await;
    assert_eq!(
        said,
        json!(["\"Loading the calculator…\"", false]),
        "{said}"
    );
    goto(&browser, "?params=13&lang=zh").await;
    assert_eq!(browser.eval(SAID).await[0], json!("\"正在加载计算器……\""));
    // The module arrives but its WebAssembly cannot: the page says so.
    browser
        .cdp("Network.setBlockedURLs", json!({ "urls": ["*.wasm"] }))
        .await;
    goto(&browser, "?params=13").await;
    browser
        .wait_until(
            "return document.documentElement.classList.contains('vram-failed');",
            "the failure marked",
        )
        .await;
    let said = browser.eval(SAID).await;
    assert!(
        said[0]
            .as_str()
            .is_some_and(|s| s.contains("needs WebAssembly")),
        "{said}"
    );
    browser.close().await;
}

#[tokio::test]
async fn a_link_with_other_keys_never_shows_the_defaults_figures() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    for query in [
        "?params=13",
        "?params=13&lang=zh",
        "?embed=1&params=13",
        "?embed=1#plans",
        "#plans",
    ] {
        goto(&browser, query).await;
        assert_eq!(
            browser.eval(WRITTEN_VIEW_SEEN).await,
            json!(false),
            "{query}: the default view is seen"
        );
    }
    // The link the page itself writes for the default configuration is the default.
    let default_link =
        "?v=1&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp";
    goto(&browser, default_link).await;
    assert_eq!(browser.eval(WRITTEN_VIEW_SEEN).await, json!(true));
    browser.close().await;
    // With the WebAssembly, the link's own figures.
    let browser = Browser::start().await;
    browser.open("?params=13").await;
    assert_eq!(browser.text("mem-total-zero2").await, "48.75 GB");
    let left = browser
        .eval("return document.querySelectorAll('main').length")
        .await;
    assert_eq!(left, json!(1), "one page, the live one");
    browser.close().await;
}

#[tokio::test]
async fn the_live_page_takes_over_without_moving_anything() {
    let browser = Browser::start().await;
    // The bare page on a desktop and a phone; a lesson's embed in a course
    // site's 688 px column.
    for (query, width, height) in [("", 1280, 900), ("", 390, 844), ("?embed=1", 688, 900)] {
        browser
            .client
            .set_window_size(width, height)
            .await
            .expect("window size");
        browser.open(query).await;
        browser
            .wait_until(LIVE_AND_DRAWN, "the live page and its charts")
            .await;
        // The pictures written at build time are gone once the canvases are drawn.
        let kept = browser
            .eval("return document.querySelectorAll('.chart-svg').length")
            .await;
        assert_eq!(kept, json!(0), "{query} at {width} px");
        let shift = browser.layout_shift().await;
        assert!(shift < 0.01, "layout shift {shift}: {query} at {width} px");
    }
    let problems: Vec<String> = browser
        .console_messages()
        .await
        .into_iter()
        .filter(|m| m.starts_with("SEVERE") || m.starts_with("WARNING"))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    browser.close().await;
}

/// axe-core's WCAG 2.x A and AA rules run on the page: the violations, each
/// as its rule, impact and the first element's selector.
async fn accessibility_violations(browser: &Browser) -> Vec<String> {
    let path = std::env::var("VRAM_AXE")
        .expect("VRAM_AXE: axe-core's axe.min.js (scripts/setup --browser installs it)");
    let axe = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    browser.eval(&format!("{axe}\nreturn true;")).await;
    let found = browser
        .eval(
            "return axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })
               .then(r => r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes[0].target.join(' ')}`));",
        )
        .await;
    found
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_written_view_and_the_live_page_pass_axe() {
    let browser = Browser::start().await;
    without_webassembly(&browser).await;
    goto(&browser, "").await;
    assert_eq!(browser.eval(WRITTEN_VIEW_SEEN).await, json!(true));
    let written = accessibility_violations(&browser).await;
    browser.close().await;
    let browser = Browser::start().await;
    browser.open("").await;
    let live = accessibility_violations(&browser).await;
    browser.close().await;
    assert!(
        written.is_empty() && live.is_empty(),
        "written view: {written:?}; live page: {live:?}"
    );
}

/// A lesson link's figures before the page's WebAssembly (issue 64): the
/// first-paint module (crates/first) brings the written view to the link, in
/// its language and layout, with no figure of the default's left; a link
/// beyond the lesson's fields waits for the page.
#[tokio::test]
async fn a_lesson_link_paints_its_own_figures_before_the_page() {
    let browser = Browser::start().await;
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp(
            "Network.setBlockedURLs",
            json!({ "urls": ["*vram-app*.wasm"] }),
        )
        .await;
    let painted = "return performance.getEntriesByName('vram-written-painted').length > 0;";
    // The lesson's Q6 embed: 13 B under ZeRO-2 on 8 GPUs of 80 GB.
    goto(&browser, "?embed=1&params=13&stage=2").await;
    browser.wait_until(painted, "the first paint").await;
    assert_eq!(
        browser.eval(WRITTEN_VIEWS_SHOWN).await,
        json!([true, false])
    );
    assert_eq!(
        browser
            .eval("return document.documentElement.dataset.embed")
            .await,
        json!("1")
    );
    for (strategy, total) in [("ddp", "208 GB"), ("zero2", "48.75 GB"), ("zero3", "26 GB")] {
        assert_eq!(browser.text(&format!("mem-total-{strategy}")).await, total);
    }
    let pressed = browser
        .eval("return document.querySelector('[data-testid=strategy-zero2]').getAttribute('aria-pressed')")
        .await;
    assert_eq!(pressed, json!("true"));
    let chart = browser
        .eval("return document.querySelector('[data-testid=chart-svg-memory]').getAttribute('aria-label')")
        .await;
    assert!(
        chart
            .as_str()
            .is_some_and(|c| c.contains("ZeRO-2 48.75 GB")),
        "{chart}"
    );
    // The page's WebAssembly never comes: the figures shown are said to be the link's.
    browser
        .wait_until(
            "return document.documentElement.classList.contains('vram-failed');",
            "the failure marked",
        )
        .await;
    let said = browser
        .eval(r#"return getComputedStyle(document.body, "::before").content;"#)
        .await;
    assert!(
        said.as_str().is_some_and(|s| s.contains("this link's")),
        "{said}"
    );
    // A Chinese lesson link with a size typed: the Chinese view, its own figures.
    goto(&browser, "?lang=zh&params=33&stage=3").await;
    browser.wait_until(painted, "the first paint").await;
    assert_eq!(
        browser.eval(WRITTEN_VIEWS_SHOWN).await,
        json!([false, true])
    );
    let zh = "main[data-lang=zh] [data-testid=mem-total-zero3]";
    let total = browser
        .eval(&format!(
            "return document.querySelector('{zh}').textContent.trim()"
        ))
        .await;
    assert_eq!(total, json!("66 GB"));
    let typed = browser
        .eval("return document.querySelector('main[data-lang=zh] [name=params]').value")
        .await;
    assert_eq!(typed, json!("33"));
    // Beyond the lesson's fields: nothing shown until the page draws it.
    goto(&browser, "?params=13&seq=4096").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(browser.eval(WRITTEN_VIEW_SEEN).await, json!(false));
    assert_eq!(browser.eval(painted).await, json!(false));
    browser.close().await;
}
