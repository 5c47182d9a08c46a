//! The release build under a strict Content-Security-Policy, and with no request
//! to any other host.

use std::time::{Duration, Instant};

use vram_e2e::{dist_dir, strict_csp, Browser, StaticServer, CSP_CANARY_PATH};

/// How long violation reports are given to arrive.
const REPORT_WAIT: Duration = Duration::from_secs(3);

async fn browser_under_csp() -> (Browser, String) {
    let dist = dist_dir();
    let policy = strict_csp(&dist);
    let server = StaticServer::start_with_headers(
        dist,
        vec![("Content-Security-Policy".into(), policy.clone())],
    );
    (Browser::start_on(server).await, policy)
}

#[tokio::test]
async fn the_page_works_under_a_strict_csp_with_no_violation() {
    let (browser, policy) = browser_under_csp().await;
    assert!(
        policy.contains("'sha256-"),
        "Trunk's loader is inline, so its hash is in the policy: {policy}"
    );

    // The check can fail: a page with an inline script is reported.
    browser
        .client
        .goto(&browser.server.url(CSP_CANARY_PATH))
        .await
        .unwrap();
    let started = Instant::now();
    while browser.server.csp_reports().is_empty() {
        assert!(
            started.elapsed() < REPORT_WAIT * 3,
            "the canary's violation was never reported"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        browser.client.title().await.unwrap(),
        "canary",
        "the inline script was blocked"
    );
    let canary_reports = browser.server.csp_reports().len();

    // The calculator loads, computes, draws and follows input under the policy.
    browser.open("?params=13&stage=2").await;
    assert_eq!(browser.figure("mem-total-zero2").await, 48.75);
    let params = browser
        .client
        .find(fantoccini::Locator::Css("input[name='params']"))
        .await
        .unwrap();
    params.clear().await.unwrap();
    params.send_keys("70").await.unwrap();
    browser.wait_for_query("params=70&").await;
    let inked = browser
        .eval(
            "const c = document.querySelector(\"[data-testid='chart-max-params']\");
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 250) n++; return n;",
        )
        .await;
    assert!(
        inked.as_u64().unwrap_or(0) > 5_000,
        "the chart drew under the policy"
    );
    tokio::time::sleep(REPORT_WAIT).await;
    let reports = browser.server.csp_reports();
    assert_eq!(
        reports.len(),
        canary_reports,
        "violations: {:?}",
        &reports[canary_reports..]
    );
    browser.close().await;
}

#[tokio::test]
async fn the_page_requests_nothing_from_any_other_host() {
    let browser = Browser::start().await;
    browser.open("?params=70&gpus=64&stage=3").await;
    let copy = browser
        .client
        .find(fantoccini::Locator::Css("[data-testid='copy-link']"))
        .await
        .unwrap();
    copy.click().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let resources = browser
        .eval(
            "return [location.href, ...performance.getEntriesByType('resource').map(e => e.name)];",
        )
        .await;
    let origin = browser.server.origin();
    let urls: Vec<&str> = resources
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        urls.len() >= 4,
        "the page, its script, module and styles: {urls:?}"
    );
    for url in urls {
        assert!(url.starts_with(&origin), "a request to another host: {url}");
    }
    browser.close().await;
}

#[test]
fn scripts_csp_prints_the_policy_the_tests_use() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/csp");
    let output = std::process::Command::new("bash")
        .arg(script)
        .output()
        .expect("bash scripts/csp");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8(output.stdout).unwrap();
    let tested = strict_csp(&dist_dir());
    let without_reporting = tested.split("; report-uri").next().unwrap();
    assert_eq!(printed.trim(), without_reporting);
}

/// The config.json reader is WebAssembly of its own: not part of the first
/// view (nothing of it is fetched until a config.json is read, and then after
/// the page has shown its figures), under the strict policy with no violation,
/// and what it reads fills the form: Mixtral's experts, its exact count and its
/// active parameters; a truncated text is said next to the box and the form
/// keeps what it had.
#[tokio::test]
async fn a_pasted_config_json_is_read_by_the_reader_loaded_on_demand() {
    let (browser, _) = browser_under_csp().await;
    browser.open("?lang=en").await;
    let lazy_fetched = "
        const figures = performance.getEntriesByName('vram-first-figure')[0];
        const lazy = performance.getEntriesByType('resource').filter(e => e.name.includes('/reader/'));
        return [lazy.length, lazy.every(e => e.startTime >= figures.startTime)];";
    assert_eq!(
        browser.eval(lazy_fetched).await,
        serde_json::json!([0, true]),
        "the first view fetched the paste box's readers"
    );
    let paste = |text: &str| {
        format!(
            "const area = document.querySelector(\"[data-testid='paste-text']\");
             area.value = {};
             area.dispatchEvent(new Event('input', {{ bubbles: true }}));
             document.querySelector(\"[data-testid='paste-read']\").click();",
            serde_json::to_string(text).unwrap()
        )
    };
    let wait_for = |id: &'static str| {
        let browser = &browser;
        async move {
            browser
                .client
                .wait()
                .at_most(Duration::from_secs(20))
                .for_element(fantoccini::Locator::Css(&format!("[data-testid='{id}']")))
                .await
                .unwrap_or_else(|e| panic!("no {id}: {e}"));
        }
    };
    browser
        .eval(&paste(include_str!(
            "../crates/core/tests/configs/mixtral-8x7b.json"
        )))
        .await;
    wait_for("paste-summary").await;
    assert_eq!(browser.figure("params-count").await, 46_702_792_704.0);
    let fetched = browser.eval(lazy_fetched).await;
    assert!(
        fetched[0].as_u64().unwrap_or(0) >= 2 && fetched[1] == true,
        "{fetched}"
    );
    let count = browser.text("params-count").await;
    assert!(count.contains("12,879,925,248 active per token"), "{count}");
    // The fold is closed: its words are read as the page holds them.
    let text_of =
        |id: &str| format!("return document.querySelector(\"[data-testid='{id}']\").textContent");
    let summary = browser.eval(&text_of("paste-summary")).await;
    let summary = summary.as_str().unwrap_or_default();
    assert!(
        summary.contains("Read mixtral") && summary.contains("num_local_experts = 8"),
        "{summary}"
    );
    browser.wait_for_query("experts=8&top_k=2").await;
    // Truncated JSON: its line and column; the model stays Mixtral.
    browser
        .eval(&paste("{\"model_type\": \"llama\",\n \"hidden_size\": "))
        .await;
    wait_for("paste-error").await;
    let error = browser.eval(&text_of("paste-error")).await;
    let error = error.as_str().unwrap_or_default();
    assert!(error.contains("Not valid JSON (line 2"), "{error}");
    assert_eq!(browser.figure("params-count").await, 46_702_792_704.0);
    // Megatron-LM's printout, in the page's words from the same module,
    // beside the page's own DDP figure.
    browser
        .open("?lang=zh&model=llama2-7b&acct=megatron&tp=2")
        .await;
    let ddp = browser.text("mem-total-ddp").await;
    let started = std::time::Instant::now();
    let megatron = loop {
        let line = browser.eval(&text_of("megatron")).await;
        let line = line.as_str().unwrap_or_default().to_string();
        if !line.is_empty() || started.elapsed() > Duration::from_secs(20) {
            break line;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        megatron.starts_with("Megatron-LM（")
            && megatron.contains("total=")
            && megatron.contains(&format!("本页：{ddp}、")),
        "{megatron}"
    );
    tokio::time::sleep(REPORT_WAIT).await;
    let reports = browser.server.csp_reports();
    assert!(reports.is_empty(), "violations: {reports:?}");
    browser.close().await;
}

/// The lesson's Q6 70B button opens the ranked plans, which the module
/// loaded on demand searches and draws (under the strict policy): 70 B fits
/// on 8 × A100 80GB only with a layout and offload, the first is the fastest
/// that fits, and one click puts it into the form and the link.
#[tokio::test]
async fn the_lessons_q6_opens_its_ranked_plans() {
    let (browser, _) = browser_under_csp().await;
    browser.open("?lang=en").await;
    browser
        .eval("document.querySelector(\"[data-testid='scenario-70B']\").click();")
        .await;
    // The lesson's question first, then the real model, whose plans open.
    browser
        .eval("document.querySelector(\"[data-testid='scenario-70B']\").click();")
        .await;
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(fantoccini::Locator::Css("[data-testid='plan-use-0']"))
        .await
        .expect("the plans appear");
    let count = browser.text("plans-count").await;
    assert!(count.contains(" plans fit."), "{count}");
    let fitting: u32 = count.split(' ').next().unwrap().parse().unwrap();
    assert!(fitting > 0, "{count}");
    // No strategy fits on its own: the verdict says what the plans found, the
    // same count and the same first layout, instead of "choose a smaller model".
    let summary = browser.text("summary").await;
    assert!(
        summary.contains(&format!(
            "None of DDP and ZeRO-1/2/3 fits on its own; {fitting} of "
        )),
        "{summary}"
    );
    let first_layout = browser
        .eval("return document.querySelector(\"[data-testid='plan-0'] td\").textContent;")
        .await;
    let first_layout = first_layout.as_str().expect("the first plan's layout");
    assert!(
        summary.contains(&format!("the fastest: {first_layout} · ")),
        "{summary} / {first_layout}"
    );
    assert!(!summary.contains("smaller model"), "{summary}");
    let first = browser.text("plan-0").await;
    assert!(
        first.contains("TP ") && first.contains("Optimizer"),
        "{first}"
    );
    let inked = browser
        .eval(
            "const c = document.querySelector(\"[data-testid='chart-plans']\");
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 250) n++; return n;",
        )
        .await;
    assert!(inked.as_u64().unwrap_or(0) > 5_000, "the plans' chart drew");
    browser
        .eval("document.querySelector(\"[data-testid='plan-use-0']\").click();")
        .await;
    let query = browser.wait_for_query("&offload=").await;
    assert!(query.contains("&tp="), "{query}");
    // The table now shows that plan highlighted, and it fits.
    let stage = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("stage="))
        .unwrap()
        .to_string();
    let id = match stage.as_str() {
        "ddp" => "ddp".to_string(),
        n => format!("zero{n}"),
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        browser.attribute(&format!("fits-{id}"), "data-value").await,
        "true"
    );
    // The plans, ranked again for the applied configuration, mark it as in
    // use and say what it changed (issue 25).
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(fantoccini::Locator::Css("[data-testid='plans-applied']"))
        .await
        .expect("the change is said");
    let applied = browser.text("plans-applied").await;
    assert!(
        applied.starts_with("Applied: ") && applied.contains("Tensor parallelism (TP) 1 → "),
        "{applied}"
    );
    let marked = browser
        .eval(
            "const rows = [...document.querySelectorAll(\".plans-table tr[aria-current='true']\")];
             return rows.map(r => r.dataset.testid + ' ' + r.querySelector('button').disabled);",
        )
        .await;
    assert_eq!(marked, serde_json::json!(["plan-0 true"]));
    assert_eq!(browser.text("plan-use-0").await, "In use");
    let reports = browser.server.csp_reports();
    assert!(reports.is_empty(), "violations: {reports:?}");
    browser.close().await;
}
