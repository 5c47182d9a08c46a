//! The calculator in a real VitePress course site, as the course embeds it:
//! README's snippets in a two-page site built with VitePress (installed by
//! `scripts/setup --browser`), the calculator's release build under `/vram/`.
//! Checked in headless Chromium: no console error nor warning (a hydration
//! mismatch is one); each
//! iframe as tall as the calculator inside it on a direct load, after a
//! client-side navigation, after the calculator grows and after a resize;
//! VitePress's dark switch turns the calculator dark. Screenshots of the lesson
//! in both themes, and of its read-only table, go to `target/screenshots/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::json;
use vram_e2e::{dist_dir, Browser, StaticServer, TIMEOUT};

/// `.vitepress/config.mjs`: README's snippet, the host script in every page's head.
const CONFIG: &str = r#"export default {
  title: 'LLM engineering',
  head: [['script', { src: '/vram/embed.js', defer: '' }]],
}
"#;

const INDEX: &str = "# LLM engineering\n\n- [06. VRAM Calculation and ZeRO](/lesson)\n- [06. The figures, static](/figures)\n";

/// A lesson page that includes the lesson's figures as static markup at the
/// site's build time (README's `vram --html` snippet): no iframe, no script.
const FIGURES: &str =
    "# 06. The lesson's figures\n\n<!--@include: ./parts/lesson-figures.html-->\n";

/// A lesson with README's two iframes: the whole calculator, and the lesson's
/// Q6 13B case as a read-only table.
const LESSON: &str = r#"# 06. VRAM Calculation and ZeRO

The calculator, with the lesson's example:

<iframe data-vram-calculator src="/vram/?embed=1" title="GPU memory calculator" style="width: 100%; height: 600px; border: 0"></iframe>

Q6: Llama 2 13B on 8 × A100 80GB with ZeRO-2.

<iframe data-vram-calculator src="/vram/?embed=1&model=llama2-13b&gpu=a100-80gb&gpus=8&seq=2048&mbs=1&flash=1&recompute=none&stage=2&show=table&controls=0" title="Llama 2 13B on 8 × A100 80GB" style="width: 100%; height: 600px; border: 0"></iframe>
"#;

/// For each calculator iframe: its height, its document's height, whether its
/// document scrolls sideways, and whether it is dark.
const FRAMES: &str = "
    return [...document.querySelectorAll('iframe[data-vram-calculator]')].map((frame) => {
        const inner = frame.contentDocument;
        const root = inner && inner.documentElement;
        const ready = !!(inner && inner.querySelector(\"[data-testid='mem-total-zero3'][data-value]\"));
        return {
            ready,
            frame: frame.getBoundingClientRect().height,
            content: root ? root.getBoundingClientRect().height : -1,
            sideways: root ? root.scrollWidth - root.clientWidth : -1,
            dark: frame.contentWindow.matchMedia('(prefers-color-scheme: dark)').matches,
        };
    });";

/// Builds the course site with VitePress in a folder of its own for `test`
/// (the tests run at once) and returns the folder it wrote.
fn build_site(test: &str) -> PathBuf {
    let home = std::env::var_os("VRAM_VITEPRESS_HOME").map(PathBuf::from).expect(
        "VRAM_VITEPRESS_HOME: run through scripts/test (scripts/setup --browser installs VitePress)",
    );
    // Below the folder whose node_modules holds VitePress, so that node finds it.
    let site = home
        .join("sites")
        .join(format!("course-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&site);
    let write = |path: &str, text: &str| {
        let path = site.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("site folder");
        std::fs::write(path, text).expect("site file");
    };
    write(".vitepress/config.mjs", CONFIG);
    write("index.md", INDEX);
    write("lesson.md", LESSON);
    write("figures.md", FIGURES);
    // What `vram --html --base-url /vram/` prints for the lesson's example.
    let figures = vram_cli::render(
        &vram_core::input::link::decode("").config,
        vram_cli::Output::Html,
        "/vram/",
    )
    .expect("the lesson's view");
    write("parts/lesson-figures.html", &figures);
    // A site's own icon (else the browser's request for one is a console error).
    write("public/favicon.ico", "");
    copy_dir(&dist_dir(), &site.join("public/vram"));
    let output = Command::new("node")
        .arg(home.join("node_modules/vitepress/bin/vitepress.js"))
        .arg("build")
        .arg(&site)
        .output()
        .expect("node runs VitePress");
    assert!(
        output.status.success(),
        "vitepress build failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    site.join(".vitepress/dist")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("dist/").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("a copied file");
        }
    }
}

/// The frames once both calculators are ready and every iframe is as tall as
/// its document (within 2 px), or a failure that says what was seen.
async fn frames_fitted(browser: &Browser, when: &str) -> Vec<serde_json::Value> {
    let started = Instant::now();
    loop {
        let frames = browser.eval(FRAMES).await;
        let frames = frames.as_array().cloned().unwrap_or_default();
        let fitted = frames.len() == 2
            && frames.iter().all(|f| {
                f["ready"] == json!(true)
                    && (f["frame"].as_f64().unwrap_or(0.0) - f["content"].as_f64().unwrap_or(-9.0))
                        .abs()
                        <= 2.0
            });
        if fitted {
            return frames;
        }
        assert!(
            started.elapsed() < TIMEOUT,
            "{when}: the iframes never took their calculators' heights: {frames:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The console's warnings and errors, of the host page and of every
/// calculator in it (VitePress reports a hydration mismatch as one).
async fn problems(browser: &Browser) -> Vec<String> {
    browser
        .console_messages()
        .await
        .into_iter()
        .filter(|m| m.starts_with("SEVERE") || m.starts_with("WARNING"))
        .collect()
}

#[tokio::test]
async fn a_vitepress_lesson_sizes_its_calculators_and_follows_the_dark_switch() {
    let site = build_site("lesson");
    let server = StaticServer::start(site.clone());
    let browser = Browser::start().await;
    // A client-side navigation from the index: VitePress's router puts the lesson in.
    browser
        .client
        .goto(&server.url("/"))
        .await
        .expect("the index loads");
    browser
        .client
        .wait()
        .at_most(TIMEOUT)
        .for_element(Locator::Css("a[href='/lesson.html'], a[href='/lesson']"))
        .await
        .expect("the index links to the lesson")
        .click()
        .await
        .expect("the link is followed");
    let frames = frames_fitted(&browser, "after a client-side navigation").await;
    // The whole calculator is long; the lesson's table alone is not.
    let content = |f: &serde_json::Value| f["content"].as_f64().unwrap_or(0.0);
    assert!(content(&frames[0]) > 1500.0, "{frames:?}");
    assert!(
        (300.0..content(&frames[0]) / 2.0).contains(&content(&frames[1])),
        "{frames:?}"
    );
    // The second is a read-only figure of the lesson's case, with the way out.
    let second = browser
        .eval(
            "const inner = document.querySelectorAll('iframe[data-vram-calculator]')[1].contentDocument;
             return {
                 controls: inner.querySelectorAll('form, input, select, canvas').length,
                 fits: inner.querySelector(\"[data-testid='fits-zero2']\").dataset.value,
                 open: inner.querySelector(\"[data-testid='open-full']\").href,
             };",
        )
        .await;
    assert_eq!(second["controls"], json!(0), "{second}");
    assert_eq!(second["fits"], json!("true"), "{second}");
    let open = second["open"].as_str().unwrap_or_default();
    assert!(
        open.contains("/vram/?v=3&")
            && open.contains("model=llama2-13b")
            && !open.contains("show="),
        "{open}"
    );
    assert_eq!(problems(&browser).await, Vec::<String>::new());

    // A direct load of the lesson.
    browser
        .client
        .goto(&server.url("/lesson.html"))
        .await
        .expect("the lesson loads");
    let before = frames_fitted(&browser, "on a direct load").await;

    // Choosing a model in the first calculator shows its architecture: taller.
    browser
        .eval(
            "const inner = document.querySelector('iframe[data-vram-calculator]').contentDocument;
             const select = inner.querySelector(\"select[name='model']\");
             select.value = 'llama2-7b';
             select.dispatchEvent(new Event('change', { bubbles: true }));
             return true;",
        )
        .await;
    let grown = frames_fitted(&browser, "after choosing a model").await;
    let height = |frames: &[serde_json::Value]| frames[0]["frame"].as_f64().unwrap_or(0.0);
    assert!(
        height(&grown) > height(&before) + 300.0,
        "{} then {}",
        height(&before),
        height(&grown)
    );

    // A narrower window reflows the calculators: the iframes follow.
    browser
        .client
        .set_window_size(820, 1000)
        .await
        .expect("window resized");
    let narrow = frames_fitted(&browser, "after a resize").await;
    assert_ne!(height(&narrow), height(&grown));
    browser
        .client
        .set_window_size(1280, 1000)
        .await
        .expect("window resized");
    frames_fitted(&browser, "after a resize back").await;
    assert!(frames_fitted(&browser, "light")
        .await
        .iter()
        .all(|f| f["dark"] == json!(false)));
    let dir = screenshots();
    let png = browser.client.screenshot().await.expect("screenshot");
    std::fs::write(dir.join("vitepress-lesson-light.png"), png).expect("screenshot written");
    std::fs::write(
        dir.join("vitepress-table-light.png"),
        second_frame_shot(&browser).await,
    )
    .expect("screenshot written");

    // VitePress's dark switch turns both calculators dark.
    browser
        .client
        .find(Locator::Css(".VPSwitchAppearance"))
        .await
        .expect("VitePress's appearance switch")
        .click()
        .await
        .expect("the switch is clicked");
    let started = Instant::now();
    while !browser
        .eval(FRAMES)
        .await
        .as_array()
        .is_some_and(|f| f.iter().all(|f| f["dark"] == json!(true)))
    {
        assert!(started.elapsed() < TIMEOUT, "the calculators stayed light");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    frames_fitted(&browser, "dark").await;
    let png = browser.client.screenshot().await.expect("screenshot");
    std::fs::write(dir.join("vitepress-lesson-dark.png"), png).expect("screenshot written");
    std::fs::write(
        dir.join("vitepress-table-dark.png"),
        second_frame_shot(&browser).await,
    )
    .expect("screenshot written");
    assert_eq!(problems(&browser).await, Vec::<String>::new());
    // The log does see both the host's console and a calculator's.
    browser
        .eval(
            "console.error('host canary');
             document.querySelector('iframe[data-vram-calculator]').contentWindow.console.warn('frame canary');
             return true;",
        )
        .await;
    let seen = problems(&browser).await.join("\n");
    assert!(
        seen.contains("host canary") && seen.contains("frame canary"),
        "{seen}"
    );
    browser.close().await;
    let _ = std::fs::remove_dir_all(site.join("../.."));
}

/// A screenshot with the lesson's second calculator (its read-only table) in view.
async fn second_frame_shot(browser: &Browser) -> Vec<u8> {
    browser
        .eval(
            "document.querySelectorAll('iframe[data-vram-calculator]')[1].scrollIntoView();
             window.scrollBy(0, -80);
             return true;",
        )
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let png = browser.client.screenshot().await.expect("screenshot");
    browser.eval("window.scrollTo(0, 0); return true;").await;
    png
}

/// Where the screenshots go: `target/screenshots/`.
fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    std::fs::create_dir_all(&dir).expect("target/screenshots");
    dir
}

/// Issue 27: the lesson's figures included as static markup (`vram --html`)
/// in a VitePress page, with JavaScript off in the calculator's sense: no
/// iframe, no WebAssembly requested; the four totals in its table, three SVG
/// charts, the link to the calculator, and no console problem (VitePress
/// compiles the page's markup as a Vue template: a hydration mismatch or a
/// dropped element would be one).
#[tokio::test]
async fn a_static_include_shows_the_lessons_figures() {
    let site = build_site("figures");
    let server = StaticServer::start(site.clone());
    let browser = Browser::start().await;
    browser
        .client
        .goto(&server.url("/figures.html"))
        .await
        .expect("the page");
    let seen = browser
        .eval(
            "const view = document.querySelector('.vram-static');
             return view && {
                 cells: [...view.querySelectorAll('td')].map((c) => c.textContent),
                 charts: view.querySelectorAll('svg[role=img]').length,
                 link: view.querySelector('a').getAttribute('href'),
                 frames: document.querySelectorAll('iframe').length,
                 wasm: performance.getEntriesByType('resource').some((e) => e.name.endsWith('.wasm')),
                 width: view.getBoundingClientRect().width,
             };",
        )
        .await;
    let cells: Vec<&str> = seen["cells"]
        .as_array()
        .expect("the static view")
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    for total in ["112 GB", "38.5 GB", "26.25 GB", "14 GB"] {
        assert!(cells.contains(&total), "{total} in {cells:?}");
    }
    assert_eq!(seen["charts"], json!(3));
    assert_eq!(seen["frames"], json!(0));
    assert_eq!(seen["wasm"], json!(false));
    assert!(seen["width"].as_f64().unwrap_or(0.0) > 200.0, "{seen}");
    assert!(
        seen["link"]
            .as_str()
            .is_some_and(|l| l.starts_with("/vram/?v=3&params=7")),
        "{seen}"
    );
    assert_eq!(problems(&browser).await, Vec::<String>::new());
    let png = browser.client.screenshot().await.expect("screenshot");
    std::fs::write(screenshots().join("vitepress-static-figures.png"), png)
        .expect("screenshot written");
}
