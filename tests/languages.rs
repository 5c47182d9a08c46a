//! Languages, units, themes and layouts on the release build: each link gives
//! its texts and the same figures, a language switch keeps what was typed, and
//! screenshots of both languages and themes at phone and desktop widths are
//! written under `target/screenshots/` for people to look at.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use vram_e2e::{Browser, TIMEOUT};

/// The text of the first element matching `css`.
async fn text_of(browser: &Browser, css: &str) -> String {
    browser
        .client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .text()
        .await
        .expect("text read")
}

/// Waits until `script` (a JavaScript expression) is true in the page.
async fn wait_until(browser: &Browser, script: &str) {
    let started = Instant::now();
    loop {
        let done = browser.eval(&format!("return !!({script});")).await;
        if done.as_bool() == Some(true) {
            return;
        }
        assert!(started.elapsed() < TIMEOUT, "never true: {script}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn each_language_unit_and_theme_link_gives_its_texts_and_the_same_figures() {
    let browser = Browser::start().await;
    browser.open("?lang=zh").await;
    assert_eq!(text_of(&browser, "h1").await, "大模型训练显存计算器");
    let lang = browser.eval("return document.documentElement.lang;").await;
    assert_eq!(lang.as_str(), Some("zh-Hans"));
    assert_eq!(browser.figure("mem-total-zero1").await, 38.5);
    assert_eq!(browser.text("mem-total-zero1").await, "38.5 GB");
    assert!(browser.text("fits-zero1").await.starts_with("✓ 放得下"));
    assert!(browser
        .text("summary")
        .await
        .contains("每张 GPU 可用 64 GB"));
    // The chart's text alternative is in the page's language too.
    let label = browser.attribute("chart-max-params", "aria-label").await;
    assert!(label.starts_with("可训练的最大模型"), "{label}");

    browser.open("?lang=en&unit=gib").await;
    assert_eq!(text_of(&browser, "h1").await, "GPU memory for LLM training");
    assert_eq!(browser.text("mem-total-ddp").await, "104.31 GiB");
    assert_eq!(browser.figure("mem-total-ddp").await, 112.0);
    assert!(browser
        .text("summary")
        .await
        .contains("59.6 GiB usable per GPU"));

    browser.open("?lang=zh&theme=dark").await;
    let ground = browser
        .eval("return getComputedStyle(document.body).backgroundColor;")
        .await;
    assert_ne!(ground.as_str(), Some("rgb(255, 255, 255)"), "dark ground");
    assert_eq!(text_of(&browser, "h1").await, "大模型训练显存计算器");
    browser.close().await;
}

#[tokio::test]
async fn a_language_switch_shows_the_page_in_it_in_place_and_keeps_what_was_typed() {
    let browser = Browser::start().await;
    browser.open("?params=13&stage=2").await;
    // An invalid value, which the link cannot carry; a mark on the window,
    // which a reload would lose (issue 42: the page is mounted anew in place).
    browser
        .eval(
            r#"window.vramNotReloaded = true;
               const input = document.querySelector("input[name='gpus']");
               input.value = "8x";
               input.dispatchEvent(new Event("input", { bubbles: true }));
               const lang = document.querySelector("select[name='lang']");
               lang.value = "zh";
               lang.dispatchEvent(new Event("change", { bubbles: true }));
               return true;"#,
        )
        .await;
    wait_until(&browser, "document.querySelector('h1') && document.querySelector('h1').textContent === '大模型训练显存计算器'").await;
    wait_until(&browser, "document.querySelector(\"input[name='gpus']\")").await;
    let typed = browser
        .eval("return document.querySelector(\"input[name='gpus']\").value;")
        .await;
    assert_eq!(
        typed.as_str(),
        Some("8x"),
        "what was typed survives the switch"
    );
    let query = browser.wait_for_query("lang=zh").await;
    assert!(
        query.contains("params=13") && query.contains("stage=2"),
        "{query}"
    );
    assert!(
        !browser.text("error-gpus").await.is_empty(),
        "and is still named wrong"
    );
    assert_eq!(
        browser
            .eval("return window.vramNotReloaded === true;")
            .await,
        serde_json::json!(true),
        "the page was reloaded"
    );
    // One page, not two: the old one was unmounted.
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('h1').length;")
            .await,
        serde_json::json!(1)
    );
    browser.close().await;
}

/// Where the screenshots go: `target/screenshots/`.
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    std::fs::create_dir_all(&dir).expect("target/screenshots");
    dir
}

#[tokio::test]
async fn screenshots_of_both_languages_and_themes_at_phone_and_desktop_widths() {
    let browser = Browser::start().await;
    let dir = screenshot_dir();
    // The narrowest phones: nothing wider than the window in either language.
    for lang in ["zh", "en"] {
        browser
            .client
            .set_window_size(320, 900)
            .await
            .expect("window size");
        browser
            .open(&format!("?lang={lang}&model=llama2-70b&buffers=1&bw=25"))
            .await;
        let inner = browser.eval("return window.innerWidth;").await.as_i64();
        assert_eq!(inner, Some(320), "the window is as narrow as asked");
        let overflow = browser
            .eval("return document.documentElement.scrollWidth - window.innerWidth;")
            .await
            .as_i64()
            .unwrap_or(i64::MAX);
        assert!(overflow <= 0, "{lang} at 320 px: {overflow} px too wide");
    }
    for width in [375u32, 1280] {
        for lang in ["zh", "en"] {
            for theme in ["light", "dark"] {
                browser
                    .client
                    .set_window_size(width, 1000)
                    .await
                    .expect("window size");
                browser
                    .open(&format!(
                        "?lang={lang}&theme={theme}&model=llama2-7b&gpu=a100-80gb&stage=2&bw=300"
                    ))
                    .await;
                // Nothing wider than the window: no sideways scrolling of the page.
                let overflow = browser
                    .eval("return document.documentElement.scrollWidth - window.innerWidth;")
                    .await
                    .as_i64()
                    .unwrap_or(i64::MAX);
                assert!(
                    overflow <= 0,
                    "{lang} {theme} at {width} px: {overflow} px too wide"
                );
                // The whole page, in one picture.
                let height = browser
                    .eval("return document.documentElement.scrollHeight;")
                    .await
                    .as_u64()
                    .unwrap_or(1000) as u32;
                browser
                    .client
                    .set_window_size(width, height.min(8000) + 140)
                    .await
                    .expect("window size");
                tokio::time::sleep(Duration::from_millis(300)).await;
                let png = browser.client.screenshot().await.expect("screenshot");
                assert!(png.len() > 10_000, "an empty screenshot");
                let path = dir.join(format!("{lang}-{theme}-{width}.png"));
                std::fs::write(&path, png).expect("screenshot written");
            }
        }
    }
    // README's third picture: the top of the page at 1,280 × 1,000 for Llama 2 70B on
    // 8 × H100, 4,096 tokens, full recomputation, with its activation formula.
    browser
        .client
        .set_window_size(1280, 1000)
        .await
        .expect("window size");
    browser
        .open("?lang=en&model=llama2-70b&gpu=h100-80gb&seq=4096&recompute=full&stage=3&global_batch=512")
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let png = browser.client.screenshot().await.expect("screenshot");
    std::fs::write(dir.join("readme-70b-h100.png"), png).expect("screenshot written");
    // QLoRA on one GPU, in both languages: Llama 2 70B fits one H100.
    for lang in ["en", "zh"] {
        browser
            .open(&format!(
                "?lang={lang}&model=llama2-70b&gpu=h100-80gb&gpus=1&method=qlora&rank=64&targets=all\
                 &dtype=bf16-pure&opt=adam8bit&recompute=full"
            ))
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(browser.attribute("fits-ddp", "data-value").await, "true");
        let png = browser.client.screenshot().await.expect("screenshot");
        std::fs::write(dir.join(format!("qlora-70b-{lang}.png")), png).expect("screenshot written");
    }
    browser.close().await;
}

/// Issue 63: the job switch broke "训练与微调" mid-word ("训练与微/调") on a
/// desktop. In Chinese, at 1,280 px and at 390 px, each job's name is one
/// line or breaks between its words only (训练与/微调, 强化学习/后训练).
#[tokio::test]
async fn the_job_switch_keeps_chinese_words_whole() {
    let browser = Browser::start().await;
    for width in [1280, 390] {
        browser
            .client
            .set_window_size(width, 900)
            .await
            .expect("window resized");
        browser.open("?lang=zh").await;
        // Each name as its lines, split where a character starts a new line.
        let lines = browser
            .eval(
                "return [...document.querySelectorAll('.job-switch button')].map(b => {
                     const text = b.firstChild;
                     const s = text.textContent;
                     let out = '', top = null;
                     for (let i = 0; i < s.length; i++) {
                         const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                         const t = Math.round(r.getBoundingClientRect().top);
                         if (s[i] === '\\u200b') continue;
                         if (top !== null && t > top + 2) out += '/';
                         top = t; out += s[i];
                     }
                     return out;
                 });",
            )
            .await;
        let lines: Vec<String> = serde_json::from_value(lines).unwrap();
        let whole = [
            ["训练与微调", "训练与/微调"],
            ["推理部署", "推理/部署"],
            ["强化学习后训练", "强化学习/后训练"],
        ];
        for (line, allowed) in lines.iter().zip(whole) {
            assert!(allowed.contains(&line.as_str()), "{width} px: {line}");
        }
    }
    browser.close().await;
}
