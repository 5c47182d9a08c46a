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
