//! `vram-bench`: the figures of the performance budgets, measured on this
//! machine. Run through `scripts/bench`, which builds the release page and runs
//! the core's divan benchmark first. Prints a table and writes `target/bench.json`.
//!
//! Arguments: the divan output file, the commit, the date.

use std::time::Duration;

use serde_json::json;
use vram_e2e::{
    baseline_path, dist_dir, first_view_sizes, read_baseline, stable_name, Browser, StaticServer,
};

const COLD_LOADS: usize = 10;
const UPDATES: usize = 60;
const LOAD_BUDGET_MS: f64 = 250.0;
const UPDATE_P50_BUDGET_MS: f64 = 8.0;
const UPDATE_P95_BUDGET_MS: f64 = 16.0;
const SWEEP_BUDGET_US: f64 = 1000.0;
/// The job switch: the other job's view painted after the click (issue 64).
const JOB_SWITCH_BUDGET_MS: f64 = 300.0;

/// The slow link a learner may be on, as the DevTools protocol emulates it:
/// 150 ms latency per request, 1.6 Mbit/s down, 0.75 Mbit/s up.
const SLOW_LATENCY_MS: f64 = 150.0;
const SLOW_DOWN_BYTES_PER_S: f64 = 1.6e6 / 8.0;
const SLOW_UP_BYTES_PER_S: f64 = 0.75e6 / 8.0;
/// Requests one after another before the page can run: the document, then its
/// script, WebAssembly and style sheet at once (the document preloads them).
const CRITICAL_ROUND_TRIPS: f64 = 2.0;
/// The throttled page's interactivity budget (the WebAssembly's figures), as a
/// multiple of the link's floor.
const THROTTLED_BUDGET_FLOOR_RATIO: f64 = 1.3;
/// The throttled bare page's first figure and charts, painted from its HTML.
const WRITTEN_FIGURE_BUDGET_MS: f64 = 350.0;
/// The same unthrottled, from 127.0.0.1.
const WRITTEN_FIGURE_LOCAL_BUDGET_MS: f64 = 60.0;
/// Every link's figures and charts painted, unthrottled, in a browser already
/// running (issue 42).
const RUNNING_LINK_BUDGET_MS: f64 = 150.0;

/// A page that holds one figure and nothing else: what this browser on this
/// machine needs to paint anything at all, the first paint's floor, measured
/// in the same run as the page.
const ONE_LINE_PAGE: &str =
    "<!doctype html><html lang=en><meta charset=utf-8><title>floor</title><p>DDP 112 GB</p>";

/// The first contentful paint on the page's clock, once there is one.
const FIRST_PAINT: &str = "
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return paint ? paint.startTime : null;";
/// The most layout shift allowed when the WebAssembly replaces the written view.
const LAYOUT_SHIFT_BUDGET: f64 = 0.01;
/// A link besides the bare page whose wait is budgeted (issues 42 and 64).
struct BenchLink {
    /// Its query, with its `?`.
    link: &'static str,
    /// What it is, in the table.
    what: &'static str,
    /// A training link of the lesson's own fields: its budget is 1.3 × the
    /// floor a first view of [`LESSON_FIRST_VIEW_BYTES`] sets, whatever it loads.
    lesson: bool,
    /// The `data-testid` of the verdict a serving or RL link shows first
    /// (it draws no chart on a canvas); `None` for a training link, whose
    /// figures and charts must come in one paint.
    verdict: Option<&'static str>,
}

/// The links besides the bare page: the lesson's Q6 embed and a Chinese
/// lesson link with a size typed, a shared model link, a deployment and a
/// GRPO run.
const BENCH_LINKS: [BenchLink; 5] = [
    BenchLink {
        link: "?embed=1&params=13&stage=2",
        what: "the lesson's Q6 embed",
        lesson: true,
        verdict: None,
    },
    BenchLink {
        link: "?lang=zh&params=33&stage=3",
        what: "a Chinese lesson link with a size typed",
        lesson: true,
        verdict: None,
    },
    BenchLink {
        link: "?model=llama3.1-70b&gpu=h100-80gb&gpus=8&nodes=2&seq=8192&stage=3",
        what: "a shared model link (Llama 3.1 70B on 16 H100s)",
        lesson: false,
        verdict: None,
    },
    BenchLink {
        link: "?v=3&job=serve&model=llama3.1-8b&gpu=h100-80gb&gpus=1",
        what: "a deployment (Llama 3.1 8B on an H100, vLLM)",
        lesson: false,
        verdict: Some("serve-verdict"),
    },
    BenchLink {
        link: "?v=3&job=rl&model=qwen2.5-7b&gpu=h800&gpus=8",
        what: "a GRPO run (Qwen2.5 7B on 8 H800s, verl)",
        lesson: false,
        verdict: Some("rl-verdict"),
    },
];

/// The first view a lesson link is budgeted against (issue 64): what the page
/// weighed before serving and RL joined it, rounded.
const LESSON_FIRST_VIEW_BYTES: f64 = 200_000.0;

/// The bytes the browser received for the document and every resource that
/// had arrived by `arguments[0]` ms on the page's clock (resource timing's
/// `transferSize`: the encoded body and the headers), and for all of them.
const BYTES_RECEIVED: &str = "
    const by = arguments[0];
    const navigation = performance.getEntriesByType('navigation')[0];
    const entries = performance.getEntriesByType('resource');
    const before = entries.filter(r => r.responseEnd <= by).reduce((sum, r) => sum + r.transferSize, 0);
    const all = entries.reduce((sum, r) => sum + r.transferSize, 0);
    const page = navigation ? navigation.transferSize : 0;
    return [page + before, page + all];";

/// Milliseconds from navigation to a serving or RL link's verdict painted:
/// the first contentful paint, or the page's first figure if later; null
/// while the verdict `arguments[0]` is not in the document.
const VERDICT_PAINTED: &str = "
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const mounted = performance.getEntriesByName('vram-first-figure').pop();
    if (!paint || !mounted || !document.querySelector(`[data-testid='${arguments[0]}']`)) return null;
    return Math.max(paint.startTime, mounted.startTime);";

/// Clicks the job switch's button `arguments[0]` and times, on the page's
/// clock, until the job's verdict `arguments[1]` is in the document and a
/// frame with it has been painted (two animation frames later); whether a
/// frame came in between with the page's results area empty.
const JOB_SWITCH: &str = "
    const [job, verdict, done] = arguments;
    const results = () => document.querySelector('main');
    let blank = false;
    const t0 = performance.now();
    document.querySelector(`[data-testid='job-${job}']`).click();
    const check = () => {
        if (!results() || results().innerText.trim() === '') blank = true;
        if (document.querySelector(`[data-testid='${verdict}']`)) {
            requestAnimationFrame(() => requestAnimationFrame(() => done([performance.now() - t0, blank])));
        } else if (performance.now() - t0 > 10000) {
            done([-1, blank]);
        } else {
            requestAnimationFrame(check);
        }
    };
    check();";

/// On the page's clock (0 = navigation): the WebAssembly's figures first in the
/// document (the page interactive), the last chart drawn on a canvas, when the
/// JS and the WebAssembly were requested and fully received, when the
/// document's first byte arrived, and when the view written into the HTML
/// (its figures and charts) was first painted (NaN if its guard hid it).
const LOAD_TIMES: &str = "
    const last = name => (performance.getEntriesByName(name).pop() || {startTime: NaN}).startTime;
    const resource = suffix => performance.getEntriesByType('resource')
        .find(r => r.name.includes('/vram-app') && r.name.split('?')[0].endsWith(suffix))
        || {startTime: NaN, responseEnd: NaN};
    const js = resource('.js'), wasm = resource('.wasm');
    const document = performance.getEntriesByType('navigation')[0] || {responseStart: NaN};
    const painted = (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: NaN}).startTime;
    const written = !window.document.documentElement.classList.contains('vram-fresh');
    const patched = last('vram-written-painted');
    return [last('vram-first-figure'), last('vram-chart-drawn'),
            js.startTime, js.responseEnd, wasm.startTime, wasm.responseEnd, document.responseStart,
            written ? (isNaN(patched) ? painted : patched) : NaN, painted];";

/// Milliseconds from navigation to the figures and the charts painted: the
/// written view's first paint (its charts are SVG in it), or for any other
/// link the first contentful paint, or the last chart drawn if that came
/// later (then the figures and charts were not one paint).
const FIGURES_AND_CHARTS: &str = "
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const drawn = performance.getEntriesByName('vram-chart-drawn').pop();
    const patched = performance.getEntriesByName('vram-written-painted').pop();
    const written = !document.documentElement.classList.contains('vram-fresh');
    if (patched) return patched.startTime;
    if (!paint || (!written && !drawn)) return null;
    return written ? paint.startTime : Math.max(paint.startTime, drawn.startTime);";

/// Medians (ms) of [`COLD_LOADS`] loads of `link` in one browser already
/// running and past one load of it, unthrottled, its cache disabled: to the
/// figures and charts painted ([`FIGURES_AND_CHARTS`]).
async fn running_browser_paints(link: &str, verdict: Option<&str>) -> f64 {
    let browser = Browser::start_on(StaticServer::start_compressed(dist_dir())).await;
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }))
        .await;
    let mut times = Vec::new();
    for load in 0..=COLD_LOADS {
        browser.open(link).await;
        let started = std::time::Instant::now();
        let time = loop {
            let painted = match verdict {
                Some(id) => {
                    browser
                        .client
                        .execute(VERDICT_PAINTED, vec![json!(id)])
                        .await
                }
                None => browser.client.execute(FIGURES_AND_CHARTS, vec![]).await,
            };
            if let Some(ms) = painted.ok().and_then(|v| v.as_f64()) {
                break ms;
            }
            if started.elapsed() > Duration::from_secs(10) {
                break f64::NAN;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        if load > 0 {
            times.push(time);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    browser.close().await;
    times.sort_by(f64::total_cmp);
    percentile(&times, 50.0)
}

/// Milliseconds from navigation to the results, the link and the chart all done.
const LOAD_TIME: &str = "
    const last = name => (performance.getEntriesByName(name).pop() || {startTime: NaN}).startTime;
    return Math.max(last('vram-chart-drawn'), last('vram-link-written'));";

/// Types a model size through a real bubbling `input` event and times, on the
/// page's clock, until every effect of it has run (a macrotask after the event).
const UPDATE_TIME: &str = "
    const [value, done] = arguments;
    const input = document.querySelector(\"input[name='params']\");
    input.value = value;
    const t0 = performance.now();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
        const t1 = performance.now();
        const drawn = performance.getEntriesByName('vram-chart-drawn').pop();
        done([t1 - t0, drawn ? drawn.startTime - t0 : -1,
              document.querySelector(\"[data-testid='share-url']\").value,
              document.querySelector(\"[data-testid='mem-total-ddp']\").dataset.value]);
    };
    channel.port2.postMessage(0);";

/// One update with the ranked plans open: the GPU count typed, then the time
/// until the table, the link and the charts are updated (a macrotask after the
/// event, as for `UPDATE_TIME`), and until the plans have followed (searched
/// and drawn by the lazily loaded module after the update's paint: the
/// `vram-plans-shown` mark after the event), with the first plan's step then shown.
const UPDATE_WITH_PLANS: &str = "
    const [value, done] = arguments;
    const input = document.querySelector(\"input[name='gpus']\");
    input.value = value;
    const t0 = performance.now();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
        const t1 = performance.now();
        const started = performance.now();
        const follow = () => {
            const shown = performance.getEntriesByName('vram-plans-shown').pop();
            if (shown && shown.startTime > t0) {
                const first = document.querySelector(\"[data-testid='plan-0']\");
                done([t1 - t0, shown.startTime - t0, first ? first.textContent : '']);
            } else if (performance.now() - started > 10000) {
                done([t1 - t0, -1, '']);
            } else {
                setTimeout(follow, 1);
            }
        };
        follow();
    };
    channel.port2.postMessage(0);";

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The median of a divan benchmark, in microseconds, from its printed table.
fn divan_median_us(output: &str, bench: &str) -> Option<f64> {
    let line = output.lines().find(|line| line.contains(bench))?;
    let median = line.split('│').nth(2)?.trim();
    let (number, unit) = median.split_once(' ')?;
    let value: f64 = number.parse().ok()?;
    let factor = match unit.trim() {
        "ns" => 1e-3,
        "µs" | "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => return None,
    };
    Some(value * factor)
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "OVER BUDGET"
    }
}

/// Emulates the slow link in `browser`, its cache disabled.
async fn slow_link(browser: &Browser) {
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }))
        .await;
    browser
        .cdp(
            "Network.emulateNetworkConditions",
            json!({
                "offline": false,
                "latency": SLOW_LATENCY_MS,
                "downloadThroughput": SLOW_DOWN_BYTES_PER_S,
                "uploadThroughput": SLOW_UP_BYTES_PER_S,
            }),
        )
        .await;
}

/// Where a browser paints first.
#[derive(Clone, Copy, PartialEq)]
enum Paint {
    /// A new browser with a new profile for each load: its renderer starts cold.
    NewBrowser,
    /// One browser, already running and past one load of the page, its cache
    /// disabled: a learner who opens the lesson's link in their browser.
    RunningBrowser,
}

/// The first paints (ms, sorted) of [`COLD_LOADS`] loads of the page under
/// `root`, gzip-encoded, on the slow link or unthrottled.
async fn first_paints(root: &std::path::Path, slow: bool, paint: Paint) -> Vec<f64> {
    async fn one_load(browser: &Browser) -> f64 {
        browser
            .client
            .goto(&browser.server.url("/"))
            .await
            .expect("page loads");
        let started = std::time::Instant::now();
        loop {
            if let Some(ms) = browser.eval(FIRST_PAINT).await.as_f64() {
                return ms;
            }
            if started.elapsed() > Duration::from_secs(10) {
                return f64::NAN;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    async fn browser_on(root: &std::path::Path, slow: bool) -> Browser {
        let browser = Browser::start_on(StaticServer::start_compressed(root.to_path_buf())).await;
        browser.cdp("Network.enable", json!({})).await;
        browser
            .cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }))
            .await;
        if slow {
            slow_link(&browser).await;
        }
        browser
    }
    let mut paints = Vec::new();
    match paint {
        Paint::NewBrowser => {
            for _ in 0..COLD_LOADS {
                let browser = browser_on(root, slow).await;
                paints.push(one_load(&browser).await);
                browser.close().await;
            }
        }
        Paint::RunningBrowser => {
            let browser = browser_on(root, slow).await;
            one_load(&browser).await;
            for _ in 0..COLD_LOADS {
                paints.push(one_load(&browser).await);
                // The page's own work after its paint (the WebAssembly) done.
                tokio::time::sleep(Duration::from_millis(if slow { 2500 } else { 600 })).await;
            }
            browser.close().await;
        }
    }
    paints.sort_by(f64::total_cmp);
    paints
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let core_output = args
        .get(1)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let commit = args.get(2).cloned().unwrap_or_default();
    let date = args.get(3).cloned().unwrap_or_default();

    let sizes = first_view_sizes(&dist_dir());
    let total_raw: u64 = sizes.iter().map(|f| f.raw).sum();
    let total_gzip: u64 = sizes.iter().map(|f| f.gzip).sum();
    // The least time the slow link needs for the first view's bytes.
    let slow_floor =
        CRITICAL_ROUND_TRIPS * SLOW_LATENCY_MS + total_gzip as f64 / SLOW_DOWN_BYTES_PER_S * 1e3;

    let mut shifts = Vec::new();
    let (loads, cold) = cold_loads(&mut shifts).await;
    let throttled = throttled_loads(&mut shifts).await;
    let median_of = |i: usize| column_median(&throttled, i);
    let slow_interactive = median_of(0);
    let slow_written = median_of(7);
    shifts.sort_by(f64::total_cmp);
    let worst_shift = shifts.last().copied().unwrap_or(f64::NAN);
    let links = slow_link_loads().await;
    let switches = job_switches().await;
    let paints = first_paint_medians().await;
    // Every link unthrottled in a browser already running.
    let mut running = Vec::new();
    running.push(("", running_browser_paints("", None).await));
    for link in &BENCH_LINKS {
        running.push((
            link.link,
            running_browser_paints(link.link, link.verdict).await,
        ));
    }
    let updates = update_times().await;
    let (with_plans, plans_followed) = update_times_with_plans().await;

    // Bytes are held by the ratchet (tests/budget.rs); the bench shows where
    // the first view stands against its baseline.
    let baseline = read_baseline(&std::fs::read_to_string(baseline_path()).unwrap_or_default());
    let baseline_gzip: u64 = sizes
        .iter()
        .filter_map(|f| {
            let name = stable_name(&f.name);
            baseline.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
        })
        .sum();
    let bench = Bench {
        load_median: percentile(&loads, 50.0),
        slow_interactive,
        slow_written,
        // The first figure is the written view's, painted from the HTML.
        slow_first_figure: slow_written.min(slow_interactive),
        worst_shift,
        slow_charts: median_of(1),
        js: (median_of(2), median_of(3)),
        wasm: (median_of(4), median_of(5)),
        update_p50: percentile(&updates, 50.0),
        update_p95: percentile(&updates, 95.0),
        plans_p50: percentile(&with_plans, 50.0),
        plans_p95: percentile(&with_plans, 95.0),
        followed_p50: percentile(&plans_followed, 50.0),
        followed_p95: percentile(&plans_followed, 95.0),
        sweep_us: divan_median_us(&core_output, "chart_sweep_1_to_1024_gpus"),
        report_ns: divan_median_us(&core_output, "report_of_the_lesson").map(|us| us * 1e3),
        date,
        commit,
        sizes,
        total_raw,
        total_gzip,
        baseline_gzip,
        slow_floor,
        loads,
        cold,
        throttled,
        shifts,
        links,
        switches,
        paints,
        running,
        updates,
        with_plans,
    };
    print_bench(&bench);
    write_tables(&bench);
    let json = bench_json(&bench);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
    )
    .expect("target/bench.json");
    println!();
    println!("written to {}", path.display());
}

/// Every figure measured, and what the benchmark was given: the printed
/// table's and `target/bench.json`'s.
struct Bench {
    date: String,
    commit: String,
    /// The first view's files.
    sizes: Vec<vram_e2e::FileSize>,
    total_raw: u64,
    total_gzip: u64,
    baseline_gzip: u64,
    /// The least time the slow link needs for the first view's bytes.
    slow_floor: f64,
    /// Cold loads to results + chart, sorted.
    loads: Vec<f64>,
    load_median: f64,
    /// Each cold load's [`LOAD_TIMES`].
    cold: Vec<[f64; 8]>,
    /// Each cold load's [`LOAD_TIMES`] on the slow link.
    throttled: Vec<[f64; 8]>,
    slow_interactive: f64,
    slow_written: f64,
    slow_first_figure: f64,
    slow_charts: f64,
    /// Requested and received, medians on the slow link.
    js: (f64, f64),
    wasm: (f64, f64),
    /// Every cold load's layout shift, sorted.
    shifts: Vec<f64>,
    worst_shift: f64,
    /// [`BENCH_LINKS`] on the slow link: the medians of their paints and bytes.
    links: Vec<LinkLoads>,
    /// The job switch: each switch's median and whether a frame was blank.
    switches: Vec<(&'static str, f64, bool)>,
    /// On the slow link or not, in which browser: the page's and the
    /// one-line page's median first paints.
    paints: Vec<(bool, Paint, f64, f64)>,
    /// Every link in a browser already running: its median figures and charts.
    running: Vec<(&'static str, f64)>,
    /// Updates, sorted.
    updates: Vec<f64>,
    update_p50: f64,
    update_p95: f64,
    /// Updates with the plans open, sorted.
    with_plans: Vec<f64>,
    plans_p50: f64,
    plans_p95: f64,
    followed_p50: f64,
    followed_p95: f64,
    sweep_us: Option<f64>,
    report_ns: Option<f64>,
}

/// The median of column `i` of loads' [`LOAD_TIMES`].
fn column_median(loads: &[[f64; 8]], i: usize) -> f64 {
    let mut column: Vec<f64> = loads.iter().map(|t| t[i]).collect();
    column.sort_by(f64::total_cmp);
    percentile(&column, 50.0)
}

/// Cold loads of the bare page, unthrottled, each in a new browser with a
/// new profile: nothing cached, nothing compiled. Each load's time to
/// results + chart (sorted) and its [`LOAD_TIMES`]; each load's layout shift
/// joins `shifts`.
async fn cold_loads(shifts: &mut Vec<f64>) -> (Vec<f64>, Vec<[f64; 8]>) {
    let mut loads = Vec::new();
    let mut cold: Vec<[f64; 8]> = Vec::new();
    for _ in 0..COLD_LOADS {
        // A new browser with a new profile each time: nothing cached, nothing compiled.
        let browser = Browser::start().await;
        browser.open("").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let ms = browser.eval(LOAD_TIME).await.as_f64().unwrap_or(f64::NAN);
        loads.push(ms);
        let times = browser.eval(LOAD_TIMES).await;
        cold.push(std::array::from_fn(|i| {
            times[i].as_f64().unwrap_or(f64::NAN)
        }));
        shifts.push(browser.layout_shift().await);
        browser.close().await;
    }
    loads.sort_by(f64::total_cmp);
    (loads, cold)
}

/// Cold loads on the slow link: a new browser each time, its cache disabled,
/// the files gzip-encoded as a static host sends them. Each load's
/// [`LOAD_TIMES`]; its layout shift joins `shifts`.
async fn throttled_loads(shifts: &mut Vec<f64>) -> Vec<[f64; 8]> {
    let mut throttled: Vec<[f64; 8]> = Vec::new();
    for _ in 0..COLD_LOADS {
        let browser = Browser::start_on(StaticServer::start_compressed(dist_dir())).await;
        slow_link(&browser).await;
        browser.open("").await;
        // Every chart is drawn by an effect after the first figure: wait for the
        // last one, then a little more in case another follows.
        let started = std::time::Instant::now();
        while browser.eval(LOAD_TIMES).await[1].as_f64().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "no chart was drawn"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let times = browser.eval(LOAD_TIMES).await;
        let time = |i: usize| times[i].as_f64().unwrap_or(f64::NAN);
        throttled.push(std::array::from_fn(time));
        shifts.push(browser.layout_shift().await);
        browser.close().await;
    }
    throttled
}

/// One link's cold loads on the slow link, medians: its figures painted,
/// its charts painted (a serving or RL link: its verdict, for both), and the
/// bytes received by then and in all.
struct LinkLoads {
    link: &'static BenchLink,
    figures: f64,
    charts: f64,
    bytes_by_figures: f64,
    bytes_in_all: f64,
    /// Whether, in every load, no frame was rendered between the figures and
    /// the last chart ([`FRAMES`]).
    one_paint: bool,
}

impl LinkLoads {
    /// The least time the slow link needs for what the link is budgeted on:
    /// a lesson link, a first view of [`LESSON_FIRST_VIEW_BYTES`]; any other,
    /// the bytes it received before its figures.
    fn floor(&self) -> f64 {
        let bytes = if self.link.lesson {
            LESSON_FIRST_VIEW_BYTES
        } else {
            self.bytes_by_figures
        };
        CRITICAL_ROUND_TRIPS * SLOW_LATENCY_MS + bytes / SLOW_DOWN_BYTES_PER_S * 1e3
    }

    /// Figures and charts within 1.3 × the floor, in one paint.
    fn within(&self) -> bool {
        self.charts <= THROTTLED_BUDGET_FLOOR_RATIO * self.floor() && self.one_paint
    }
}

/// The milliseconds of `link`'s figures and charts (or verdict) painted in
/// `browser`, once they are: a serving or RL link's verdict for both; a
/// training link's figures first painted (the written view's, where the link
/// has one, else the WebAssembly's page) and its last chart drawn.
async fn painted(browser: &Browser, link: &BenchLink) -> (f64, f64) {
    let started = std::time::Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "nothing painted for {}",
            link.link
        );
        if let Some(id) = link.verdict {
            let verdict = browser
                .client
                .execute(VERDICT_PAINTED, vec![json!(id)])
                .await;
            if let Some(ms) = verdict.ok().and_then(|v| v.as_f64()) {
                return (ms, ms);
            }
        } else if browser.eval(LOAD_TIMES).await[1].as_f64().is_some() {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let times = browser.eval(LOAD_TIMES).await;
            let time = |i: usize| times[i].as_f64().unwrap_or(f64::NAN);
            // The written view's paint where the link has one; else the
            // WebAssembly's figures (its mark) once a frame has painted them,
            // not the words that say the page is loading.
            // The written view's charts are SVG in it: one paint with its figures.
            if time(7).is_finite() {
                return (time(7), time(7));
            }
            let figures = time(0).max(time(8));
            return (figures, time(1).max(figures));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Run in each document before its own scripts: the page's clock each time
/// the browser runs its animation frames' callbacks (`performance.now()` in
/// the callback, not its frame's timestamp, which may precede the task before
/// it). A frame rendered between the figures and the last chart splits them
/// into two paints; marks set in one task and its microtasks have none
/// between them, however long the task.
const FRAMES: &str = "window.__vramFrames = [];
    (function frame() { window.__vramFrames.push(performance.now()); requestAnimationFrame(frame); })();";

/// Whether any frame's callbacks ran strictly between arguments[0] and arguments[1] (ms).
const FRAME_BETWEEN: &str =
    "return (window.__vramFrames || []).some(t => t > arguments[0] && t < arguments[1]);";

/// [`BENCH_LINKS`] cold on the slow link, each in a new browser, half of
/// [`COLD_LOADS`] times: the medians of its paints and bytes.
async fn slow_link_loads() -> Vec<LinkLoads> {
    let mut links = Vec::new();
    for link in &BENCH_LINKS {
        let (mut figures, mut charts, mut by_figures, mut in_all) =
            (vec![], vec![], vec![], vec![]);
        let mut one_paint = true;
        for _ in 0..COLD_LOADS / 2 {
            let browser = Browser::start_on(StaticServer::start_compressed(dist_dir())).await;
            slow_link(&browser).await;
            browser
                .cdp(
                    "Page.addScriptToEvaluateOnNewDocument",
                    json!({ "source": FRAMES }),
                )
                .await;
            browser.open(link.link).await;
            let (figures_ms, charts_ms) = painted(&browser, link).await;
            let split = browser
                .client
                .execute(FRAME_BETWEEN, vec![json!(figures_ms), json!(charts_ms)])
                .await
                .expect("frames");
            one_paint &= split == json!(false);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let bytes = browser
                .client
                .execute(BYTES_RECEIVED, vec![json!(figures_ms)])
                .await
                .expect("resource timing");
            figures.push(figures_ms);
            charts.push(charts_ms);
            by_figures.push(bytes[0].as_f64().unwrap_or(f64::NAN));
            in_all.push(bytes[1].as_f64().unwrap_or(f64::NAN));
            browser.close().await;
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            percentile(&v, 50.0)
        };
        links.push(LinkLoads {
            link,
            figures: median(figures),
            charts: median(charts),
            bytes_by_figures: median(by_figures),
            bytes_in_all: median(in_all),
            one_paint,
        });
    }
    links
}

/// The job switch, unthrottled in a browser already running the bare page:
/// training to serving, serving to RL, RL back to training, each
/// [`COLD_LOADS`] times. Each switch's median milliseconds from the click to
/// a painted frame with the job's verdict, and whether any frame between
/// showed the page without its content.
async fn job_switches() -> Vec<(&'static str, f64, bool)> {
    const SWITCHES: [(&str, &str, &str); 3] = [
        ("serve", "serve-verdict", "training to serving"),
        ("rl", "rl-verdict", "serving to RL"),
        ("train", "mem-total-ddp", "RL to training"),
    ];
    let browser = Browser::start().await;
    browser.open("").await;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); SWITCHES.len()];
    let mut blank = [false; SWITCHES.len()];
    for _ in 0..COLD_LOADS {
        for (i, (job, verdict, _)) in SWITCHES.iter().enumerate() {
            let result = browser
                .client
                .execute_async(JOB_SWITCH, vec![json!(job), json!(verdict)])
                .await
                .expect("the job switch runs");
            let ms = result[0].as_f64().unwrap_or(-1.0);
            assert!(ms >= 0.0, "the {job} view did not come");
            times[i].push(ms);
            blank[i] |= result[1].as_bool().unwrap_or(true);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    browser.close().await;
    SWITCHES
        .iter()
        .zip(times)
        .zip(blank)
        .map(|(((_, _, what), mut t), blank)| {
            t.sort_by(f64::total_cmp);
            (*what, percentile(&t, 50.0), blank)
        })
        .collect()
}

/// First paints: the page's written view and a one-line page, in a new
/// browser and in one already running, unthrottled and on the slow link;
/// their medians.
async fn first_paint_medians() -> Vec<(bool, Paint, f64, f64)> {
    let one_line =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-one-line");
    std::fs::create_dir_all(&one_line).expect("target/bench-one-line");
    std::fs::write(one_line.join("index.html"), ONE_LINE_PAGE).expect("the one-line page");
    let mut paints = Vec::new();
    for slow in [false, true] {
        for paint in [Paint::NewBrowser, Paint::RunningBrowser] {
            let page = first_paints(&dist_dir(), slow, paint).await;
            let floor = first_paints(&one_line, slow, paint).await;
            paints.push((
                slow,
                paint,
                percentile(&page, 50.0),
                percentile(&floor, 50.0),
            ));
        }
    }
    paints
}

/// [`UPDATES`] model sizes typed into the bare page, each checked to have
/// updated the table, the chart and the link: their times, sorted.
async fn update_times() -> Vec<f64> {
    let browser = Browser::start().await;
    browser.open("").await;
    let mut updates = Vec::new();
    for i in 0..UPDATES {
        let value = format!("{}", 8 + (i % 50)); // never the current 7, never twice in a row
        let result = browser
            .client
            .execute_async(UPDATE_TIME, vec![json!(value)])
            .await
            .expect("the update script runs");
        let [elapsed, drawn, link, total] = &result.as_array().expect("four results")[..] else {
            panic!("unexpected result {result}");
        };
        let expected_total = value.parse::<f64>().unwrap() * 16.0;
        let total: f64 = total
            .as_str()
            .and_then(|t| t.parse().ok())
            .unwrap_or(f64::NAN);
        assert!(
            (total - expected_total).abs() < 1e-9,
            "the table did not follow: {total}"
        );
        assert!(
            drawn.as_f64().unwrap_or(-1.0) >= 0.0,
            "the chart was not redrawn"
        );
        assert!(link
            .as_str()
            .unwrap_or_default()
            .contains(&format!("params={value}&")));
        updates.push(elapsed.as_f64().unwrap_or(f64::NAN));
    }
    // The address bar follows at most every 100 ms; the last value lands.
    let last = 8 + (UPDATES - 1) % 50;
    browser.wait_for_query(&format!("params={last}&")).await;
    browser.close().await;
    updates.sort_by(f64::total_cmp);
    updates
}

/// The same with a model and the ranked plans open (Llama 2 13B on A100s,
/// a global batch of 64): each update also ranks and draws every plan. The
/// updates' times and the plans' following them, each sorted.
async fn update_times_with_plans() -> (Vec<f64>, Vec<f64>) {
    let browser = Browser::start().await;
    browser
        .client
        .goto(
            &browser
                .server
                .url("/?model=llama2-13b&gpu=a100-80gb&global_batch=64#plans"),
        )
        .await
        .expect("page loads");
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(fantoccini::Locator::Css("[data-testid='plan-use-0']"))
        .await
        .expect("the plans appear");
    let mut with_plans = Vec::new();
    let mut plans_followed = Vec::new();
    for i in 0..UPDATES {
        let value = ["16", "8", "32", "4"][i % 4];
        let result = browser
            .client
            .execute_async(UPDATE_WITH_PLANS, vec![json!(value)])
            .await
            .expect("the update script runs");
        let [elapsed, followed, first] = &result.as_array().expect("three results")[..] else {
            panic!("unexpected result {result}");
        };
        assert!(
            first.as_str().unwrap_or_default().contains("TP "),
            "the plans did not follow: {first}"
        );
        with_plans.push(elapsed.as_f64().unwrap_or(f64::NAN));
        plans_followed.push(followed.as_f64().unwrap_or(f64::NAN));
    }
    browser.close().await;
    with_plans.sort_by(f64::total_cmp);
    plans_followed.sort_by(f64::total_cmp);
    (with_plans, plans_followed)
}

/// The benchmark's table, on stdout.
fn print_bench(bench: &Bench) {
    print_first_view(bench);
    print_loads(bench);
    print_paints(bench);
}

/// The table's head: the first view's files and their bytes against the baseline.
fn print_first_view(bench: &Bench) {
    let Bench {
        ref date,
        ref commit,
        ref sizes,
        total_raw,
        total_gzip,
        baseline_gzip,
        ..
    } = *bench;
    println!("vram-calculator benchmark  {date}  {commit}");
    println!();
    println!(
        "{:<38} {:>10} {:>10}",
        "first view file", "raw B", "gzip -9 B"
    );
    for file in sizes {
        println!("{:<38} {:>10} {:>10}", file.name, file.raw, file.gzip);
    }
    println!(
        "{:<38} {:>10} {:>10}   baseline {} B ({:+.2} %)",
        "total",
        total_raw,
        total_gzip,
        baseline_gzip,
        (total_gzip as f64 / baseline_gzip.max(1) as f64 - 1.0) * 100.0
    );
    println!();
}

/// The loads, cold and on the slow link, and the updates.
fn print_loads(bench: &Bench) {
    let Bench {
        total_gzip,
        slow_floor,
        ref loads,
        load_median,
        ref cold,
        slow_interactive,
        slow_first_figure,
        slow_charts,
        ref links,
        ref switches,
        update_p50,
        update_p95,
        plans_p50,
        plans_p95,
        ..
    } = *bench;
    let cold_median = |i: usize| column_median(cold, i);
    println!(
        "cold load to results + chart ({COLD_LOADS}x)   median {load_median:.1} ms  min {:.1}  max {:.1}   budget {LOAD_BUDGET_MS} ms: {}",
        loads[0],
        loads[loads.len() - 1],
        verdict(load_median <= LOAD_BUDGET_MS)
    );
    println!(
        "  medians: document's first byte {:.0} ms, written view painted {:.0}, JS received {:.0}, WebAssembly received {:.0}, interactive {:.0}, last canvas drawn {:.0}",
        cold_median(6),
        cold_median(7),
        cold_median(3),
        cold_median(5),
        cold_median(0),
        cold_median(1)
    );
    println!(
        "input to table + link + chart ({UPDATES}x)   p50 {update_p50:.2} ms  p95 {update_p95:.2} ms   budget {UPDATE_P50_BUDGET_MS}/{UPDATE_P95_BUDGET_MS} ms: {}",
        verdict(update_p50 <= UPDATE_P50_BUDGET_MS && update_p95 <= UPDATE_P95_BUDGET_MS)
    );
    println!(
        "the same with a model and the plans open ({UPDATES}x)   p50 {plans_p50:.2} ms  p95 {plans_p95:.2} ms   budget {UPDATE_P50_BUDGET_MS}/{UPDATE_P95_BUDGET_MS} ms: {}",
        verdict(plans_p50 <= UPDATE_P50_BUDGET_MS && plans_p95 <= UPDATE_P95_BUDGET_MS)
    );
    println!(
        "slow link ({SLOW_LATENCY_MS} ms, 1.6/0.75 Mbit/s, no cache; {COLD_LOADS}x medians)   floor {slow_floor:.0} ms = {CRITICAL_ROUND_TRIPS} x {SLOW_LATENCY_MS} ms + {total_gzip} B / 1.6 Mbit/s"
    );
    println!(
        "  to the first figure and the charts, painted from the HTML   {slow_first_figure:.0} ms   budget {WRITTEN_FIGURE_BUDGET_MS} ms: {}",
        verdict(slow_first_figure <= WRITTEN_FIGURE_BUDGET_MS)
    );
    println!(
        "  to the page interactive (the WebAssembly's figures)         {slow_interactive:.0} ms = {:.2} x floor   budget {THROTTLED_BUDGET_FLOOR_RATIO} x: {}",
        slow_interactive / slow_floor,
        verdict(slow_interactive <= THROTTLED_BUDGET_FLOOR_RATIO * slow_floor)
    );
    println!("  to every canvas drawn (the WebAssembly taking over)         {slow_charts:.0} ms");
    println!(
        "  other links ({} x medians; a lesson link's floor is a {LESSON_FIRST_VIEW_BYTES} B first view's, any other's its own bytes'):",
        COLD_LOADS / 2
    );
    for loads in links {
        println!(
            "    {:<62} figures {:>5.0} ms, charts {:>5.0} ms = {:.2} x floor {:.0} ms ({:.0} B received by then, {:.0} B in all)   budget {THROTTLED_BUDGET_FLOOR_RATIO} x, in one paint: {}",
            loads.link.link,
            loads.figures,
            loads.charts,
            loads.charts / loads.floor(),
            loads.floor(),
            loads.bytes_by_figures,
            loads.bytes_in_all,
            verdict(loads.within())
        );
    }
    println!("the job switch, 127.0.0.1, a browser already running ({COLD_LOADS}x medians): click to the job's verdict painted");
    for (what, ms, blank) in switches {
        println!(
            "    {what:<24} {ms:>6.1} ms   budget {JOB_SWITCH_BUDGET_MS} ms, no blank frame: {}",
            verdict(*ms <= JOB_SWITCH_BUDGET_MS && !blank)
        );
    }
}

/// The paints in a browser already running and the first paints, the
/// plans following an update, the layout shift, the order of the JS and the
/// WebAssembly, and the core's benchmarks.
fn print_paints(bench: &Bench) {
    let Bench {
        js: (js_requested, js_received),
        wasm: (wasm_requested, wasm_received),
        ref shifts,
        worst_shift,
        ref paints,
        ref running,
        followed_p50,
        followed_p95,
        sweep_us,
        report_ns,
        ..
    } = *bench;
    println!("every link's figures and charts painted, 127.0.0.1, a browser already running (medians of {COLD_LOADS})");
    for (link, ms) in running {
        println!(
            "  {:<64} {ms:>5.0} ms   budget {RUNNING_LINK_BUDGET_MS} ms: {}",
            if link.is_empty() {
                "the bare page"
            } else {
                link
            },
            verdict(*ms <= RUNNING_LINK_BUDGET_MS)
        );
    }
    println!(
        "the plans following an update (searched and drawn after its paint)   p50 {followed_p50:.2} ms  p95 {followed_p95:.2} ms"
    );
    println!("first paint, medians of {COLD_LOADS} (the page's written view; a one-line HTML page, the floor)");
    for (slow, paint, page, floor) in paints {
        let budget = if *slow {
            WRITTEN_FIGURE_BUDGET_MS
        } else {
            WRITTEN_FIGURE_LOCAL_BUDGET_MS
        };
        println!(
            "  {:<10} {:<26} page {page:>4.0} ms   one-line page {floor:>4.0} ms   budget {budget} ms: {}",
            if *slow { "slow link" } else { "127.0.0.1" },
            match paint { Paint::NewBrowser => "a new browser each load", Paint::RunningBrowser => "a browser already running" },
            verdict(*page <= budget)
        );
    }
    println!(
        "layout shift when the WebAssembly takes over ({} loads)   worst {worst_shift:.4}   budget {LAYOUT_SHIFT_BUDGET}: {}",
        shifts.len(),
        verdict(worst_shift <= LAYOUT_SHIFT_BUDGET)
    );
    println!(
        "  JS requested at {js_requested:.0} ms, received {js_received:.0} ms; WebAssembly requested at {wasm_requested:.0} ms, received {wasm_received:.0} ms ({})",
        if wasm_requested < js_received { "in parallel" } else { "ONE AFTER THE OTHER" }
    );
    match sweep_us {
        Some(us) => println!(
            "core sweep, 4 strategies x 1..1024 GPUs  median {us:.2} µs   budget {SWEEP_BUDGET_US} µs: {}",
            verdict(us <= SWEEP_BUDGET_US)
        ),
        None => println!("core sweep: no divan output given"),
    }
    if let Some(ns) = report_ns {
        println!("core report of the lesson               median {ns:.1} ns");
    }
}

/// The benchmark's figures as `target/bench.json` holds them.
fn bench_json(bench: &Bench) -> serde_json::Value {
    let Bench {
        ref date,
        ref commit,
        ref sizes,
        total_raw,
        total_gzip,
        baseline_gzip,
        slow_floor,
        ref loads,
        load_median,
        ref cold,
        ref throttled,
        slow_interactive,
        slow_written,
        slow_first_figure,
        slow_charts,
        js: (js_requested, js_received),
        wasm: (wasm_requested, wasm_received),
        ref shifts,
        worst_shift,
        ref links,
        ref switches,
        ref paints,
        ref running,
        ref updates,
        update_p50,
        update_p95,
        ref with_plans,
        plans_p50,
        plans_p95,
        followed_p50,
        followed_p95,
        sweep_us,
        report_ns,
    } = *bench;
    let cold_median = |i: usize| column_median(cold, i);
    json!({
        "date": date,
        "commit": commit,
        "first_view": {
            "files": sizes.iter().map(|f| json!({"name": f.name, "raw_bytes": f.raw, "gzip9_bytes": f.gzip})).collect::<Vec<_>>(),
            "total_raw_bytes": total_raw,
            "total_gzip9_bytes": total_gzip,
            "baseline_gzip9_bytes": baseline_gzip,
        },
        "cold_load_ms": {"median": load_median, "min": loads[0], "max": loads[loads.len() - 1], "samples": loads, "budget_median": LOAD_BUDGET_MS},
        "slow_link_ms": {
            "latency": SLOW_LATENCY_MS, "down_bytes_per_s": SLOW_DOWN_BYTES_PER_S, "up_bytes_per_s": SLOW_UP_BYTES_PER_S,
            "floor": slow_floor, "first_figure_median": slow_first_figure, "interactive_median": slow_interactive,
            "written_view_painted_median": slow_written, "every_canvas_median": slow_charts,
            "budget_first_figure_ms": WRITTEN_FIGURE_BUDGET_MS,
            "js_requested": js_requested, "js_received": js_received,
            "wasm_requested": wasm_requested, "wasm_received": wasm_received,
            "budget_first_figure_floor_ratio": THROTTLED_BUDGET_FLOOR_RATIO,
            "samples": throttled,
        },
        "layout_shift": {"worst": worst_shift, "loads": shifts.len(), "budget": LAYOUT_SHIFT_BUDGET},
        "slow_link_other_links": links.iter().map(|l| json!({
            "link": l.link.link, "what": l.link.what, "lesson": l.link.lesson,
            "figures_ms": l.figures, "charts_ms": l.charts, "floor_ms": l.floor(),
            "bytes_received_by_figures": l.bytes_by_figures, "bytes_received_in_all": l.bytes_in_all,
            "budget_floor_ratio": THROTTLED_BUDGET_FLOOR_RATIO, "within": l.within(),
        })).collect::<Vec<_>>(),
        "job_switch_ms": switches.iter().map(|(what, ms, blank)| json!({
            "switch": what, "median": ms, "blank_frame": blank, "budget": JOB_SWITCH_BUDGET_MS,
        })).collect::<Vec<_>>(),
        "first_paint_ms": paints.iter().map(|(slow, paint, page, floor)| json!({
            "link": if *slow { "slow" } else { "127.0.0.1" },
            "browser": match paint { Paint::NewBrowser => "new", Paint::RunningBrowser => "running" },
            "page_median": page, "one_line_page_median": floor,
            "budget": if *slow { WRITTEN_FIGURE_BUDGET_MS } else { WRITTEN_FIGURE_LOCAL_BUDGET_MS },
        })).collect::<Vec<_>>(),
        "cold_written_view_painted_ms_median": cold_median(7),
        "update_ms": {"p50": update_p50, "p95": update_p95, "samples": updates.len(), "budget_p50": UPDATE_P50_BUDGET_MS, "budget_p95": UPDATE_P95_BUDGET_MS},
        "update_with_plans_ms": {"p50": plans_p50, "p95": plans_p95, "samples": with_plans.len(), "budget_p50": UPDATE_P50_BUDGET_MS, "budget_p95": UPDATE_P95_BUDGET_MS},
        "plans_followed_ms": {"p50": followed_p50, "p95": followed_p95},
        "running_browser_links_ms": running.iter().map(|(link, ms)| json!({
            "link": link, "figures_and_charts_median": ms, "budget": RUNNING_LINK_BUDGET_MS,
        })).collect::<Vec<_>>(),
        "core": {"sweep_median_us": sweep_us, "report_median_ns": report_ns, "budget_sweep_us": SWEEP_BUDGET_US},
    })
}

/// The figures as a Markdown table, what README.md and docs/speed.md show
/// between their `vram-bench` markers: generated, never typed.
fn markdown_table(bench: &Bench) -> String {
    let mark = |ok: bool| if ok { "" } else { " **over**" };
    // A link over its budget in time, or within it but with a frame
    // rendered between its figures and its last chart.
    let over = |l: &LinkLoads| {
        if l.charts > THROTTLED_BUDGET_FLOOR_RATIO * l.floor() {
            " **over**"
        } else if !l.within() {
            " **not in one paint**"
        } else {
            ""
        }
    };
    let bytes = |b: f64| {
        let b = b.round() as u64;
        let (thousands, rest) = (b / 1000, b % 1000);
        if thousands > 0 {
            format!("{thousands},{rest:03} B")
        } else {
            format!("{rest} B")
        }
    };
    let wasm_gzip = bench
        .sizes
        .iter()
        .filter(|f| f.name.ends_with(".wasm"))
        .map(|f| f.gzip)
        .sum::<u64>();
    let html_gzip = bench
        .sizes
        .iter()
        .filter(|f| f.name.ends_with(".html"))
        .map(|f| f.gzip)
        .sum::<u64>();
    let paint = |slow: bool, which: Paint| {
        bench
            .paints
            .iter()
            .find(|(s, p, _, _)| *s == slow && *p == which)
            .map(|(_, _, page, floor)| (*page, *floor))
    };
    let mut rows = vec![format!(
        "| first view, gzip -9 (WebAssembly, JS, the HTML with its written views and style sheet) | {} (WebAssembly {}, HTML {}) | each served file within 2 % of `tests/sizes.baseline` |",
        bytes(bench.total_gzip as f64), bytes(wasm_gzip as f64), bytes(html_gzip as f64)
    )];
    if let (Some((new, new_floor)), Some((running, running_floor))) = (
        paint(true, Paint::NewBrowser),
        paint(true, Paint::RunningBrowser),
    ) {
        rows.push(format!(
            "| slow link: the bare page's figures and charts, painted from the HTML, in a new browser; in one already running | {new:.0} ms (a one-line page: {new_floor:.0} ms); {running:.0} ms ({running_floor:.0} ms){} | {WRITTEN_FIGURE_BUDGET_MS} ms |",
            mark(new <= WRITTEN_FIGURE_BUDGET_MS && running <= WRITTEN_FIGURE_BUDGET_MS)
        ));
    }
    rows.push(format!(
        "| slow link: the bare page interactive | {:.0} ms = {:.2} × its floor ({:.0} ms){} | {THROTTLED_BUDGET_FLOOR_RATIO} × |",
        bench.slow_interactive, bench.slow_interactive / bench.slow_floor, bench.slow_floor,
        mark(bench.slow_interactive <= THROTTLED_BUDGET_FLOOR_RATIO * bench.slow_floor)
    ));
    for l in &bench.links {
        let shown = if l.link.verdict.is_some() {
            format!("verdict {:.0} ms", l.figures)
        } else {
            format!("figures {:.0} ms, charts {:.0} ms", l.figures, l.charts)
        };
        rows.push(format!(
            "| slow link: {} (`{}`) | {shown} = {:.2} × the floor of {} ({:.0} ms); {} received by then, {} in all{} | {THROTTLED_BUDGET_FLOOR_RATIO} ×{} |",
            l.link.what, l.link.link, l.charts / l.floor(),
            if l.link.lesson { format!("a {} first view", bytes(LESSON_FIRST_VIEW_BYTES)) } else { "its bytes".to_string() },
            l.floor(), bytes(l.bytes_by_figures), bytes(l.bytes_in_all), over(l),
            if l.link.verdict.is_some() { "" } else { ", in one paint" }
        ));
    }
    rows.push(format!(
        "| 127.0.0.1, a new browser each load: results and charts | {:.1} ms{} | {LOAD_BUDGET_MS} ms |",
        bench.load_median, mark(bench.load_median <= LOAD_BUDGET_MS)
    ));
    let running = bench.running.iter().map(|(link, ms)| {
        let what = BENCH_LINKS
            .iter()
            .find(|l| l.link == *link)
            .map_or("the bare page", |l| l.what);
        format!("{what}: {ms:.0} ms{}", mark(*ms <= RUNNING_LINK_BUDGET_MS))
    });
    rows.push(format!(
        "| 127.0.0.1, a browser already running: figures and charts (a verdict) painted | {} | {RUNNING_LINK_BUDGET_MS} ms |",
        running.collect::<Vec<_>>().join("; ")
    ));
    let switches = bench.switches.iter().map(|(what, ms, blank)| {
        format!(
            "{what} {ms:.0} ms{}{}",
            if *blank { ", a blank frame" } else { "" },
            mark(*ms <= JOB_SWITCH_BUDGET_MS && !blank)
        )
    });
    rows.push(format!(
        "| the job switch, 127.0.0.1: the click to the other job's view painted | {} | {JOB_SWITCH_BUDGET_MS} ms, no blank frame |",
        switches.collect::<Vec<_>>().join("; ")
    ));
    rows.push(format!(
        "| input to table, link and charts updated | p50 {:.1} ms, p95 {:.1} ms{} | {UPDATE_P50_BUDGET_MS} / {UPDATE_P95_BUDGET_MS} ms |",
        bench.update_p50, bench.update_p95,
        mark(bench.update_p50 <= UPDATE_P50_BUDGET_MS && bench.update_p95 <= UPDATE_P95_BUDGET_MS)
    ));
    rows.push(format!(
        "| the same with the ranked plans open (Llama 2 13B); the plans following after the paint | p50 {:.1} ms, p95 {:.1} ms{}; p50 {:.1} ms, p95 {:.1} ms | {UPDATE_P50_BUDGET_MS} / {UPDATE_P95_BUDGET_MS} ms; none |",
        bench.plans_p50, bench.plans_p95,
        mark(bench.plans_p50 <= UPDATE_P50_BUDGET_MS && bench.plans_p95 <= UPDATE_P95_BUDGET_MS),
        bench.followed_p50, bench.followed_p95
    ));
    rows.push(format!(
        "| layout shift when the WebAssembly takes over (worst of {} loads) | {:.4}{} | {LAYOUT_SHIFT_BUDGET} |",
        bench.shifts.len(), bench.worst_shift, mark(bench.worst_shift <= LAYOUT_SHIFT_BUDGET)
    ));
    format!(
        "`bash scripts/bench` at {} ({}), on this project's 2-core machine: headless Chromium, the release \
         build served gzip-encoded from 127.0.0.1; the slow link {SLOW_LATENCY_MS} ms, 1.6 Mbit/s down, cache \
         off; medians of {COLD_LOADS} loads ({} for the other links) and {UPDATES} updates. Bytes received are \
         the browser's own (resource timing). Generated by the bench; not typed.\n\n\
         | figure | measured | budget |\n|--------|----------|--------|\n{}\n",
        bench.commit, bench.date, COLD_LOADS / 2, rows.join("\n")
    )
}

/// Writes [`markdown_table`] between the `vram-bench` markers of README.md
/// and docs/speed.md; a file without them is left alone, and said so.
fn write_tables(bench: &Bench) {
    const BEGIN: &str = "<!-- vram-bench: begin -->\n";
    const END: &str = "<!-- vram-bench: end -->";
    let table = markdown_table(bench);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in ["README.md", "docs/speed.md"] {
        let path = root.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
            println!("{file}: no vram-bench markers, not written");
            continue;
        };
        let written = format!("{}{BEGIN}{table}{}", &text[..begin], &text[end..]);
        std::fs::write(&path, written).expect("the table written");
        println!("the table written into {file}");
    }
}
