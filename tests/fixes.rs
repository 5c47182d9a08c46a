//! "What would make it fit?" on the release build (issue 47, item 2): the
//! verdict of a configuration that does not fit points at the fold, which
//! lists the smallest changes that make it fit, in the page's language; one
//! click applies one, and the page then fits.

use vram_e2e::Browser;

/// Qwen3-32B with LoRA on one RTX 4090 said only "choose a smaller model".
#[tokio::test]
async fn the_verdict_leads_to_fixes_and_one_click_makes_it_fit() {
    let browser = Browser::start().await;
    browser
        .open("?model=qwen3-32b&gpu=rtx4090&gpus=1&method=lora&dtype=bf16&lang=en")
        .await;
    let summary = browser.text("summary").await;
    assert!(summary.contains("it does not fit"), "{summary}");
    assert!(!summary.contains("smaller model"), "{summary}");
    assert!(summary.contains("What would make it fit?"), "{summary}");
    // The verdict's link opens the fold, which asks the lazily loaded module.
    browser
        .eval("document.querySelector(\"[data-testid='summary-fixes']\").click(); return true;")
        .await;
    browser
        .wait_until(
            "return !!document.querySelector(\"[data-testid='fix-use-0']\");",
            "the fixes listed",
        )
        .await;
    let intro = browser.text("fixes-intro").await;
    assert!(
        intro.starts_with("DDP needs 92.29 GB per GPU; 20.61 GB are usable."),
        "{intro}"
    );
    let second = browser.text("fix-1").await;
    assert!(second.contains("Activation recomputation"), "{second}");
    assert!(second.contains("GPU time per token +"), "{second}");
    // One click applies it: the page fits, and the fold goes.
    browser
        .eval("document.querySelector(\"[data-testid='fix-use-1']\").click(); return true;")
        .await;
    browser
        .wait_until(
            "return document.querySelector(\"[data-testid='fixes']\").hidden;",
            "the fold hidden once it fits",
        )
        .await;
    let summary = browser.text("summary").await;
    assert!(summary.contains("it fits"), "{summary}");
    let url = browser.wait_for_query("recompute=full").await;
    assert!(url.contains("stage=3"), "{url}");
}

/// The same in Chinese; and a configuration that fits has no fold to open.
#[tokio::test]
async fn fixes_speak_chinese_and_hide_when_it_fits() {
    let browser = Browser::start().await;
    browser
        .open("?model=llama2-70b&gpu=a100-80gb&gpus=8&seq=4096&stage=3&lang=zh")
        .await;
    browser
        .eval("document.querySelector(\"[data-testid='summary-fixes']\").click(); return true;")
        .await;
    browser
        .wait_until(
            "return !!document.querySelector(\"[data-testid='fix-use-0']\");",
            "the fixes listed",
        )
        .await;
    let intro = browser.text("fixes-intro").await;
    assert!(intro.starts_with("ZeRO-3 每张 GPU 需要"), "{intro}");
    browser.open("?stage=3&lang=en").await;
    let hidden = browser
        .eval("return document.querySelector(\"[data-testid='fixes']\").hidden;")
        .await;
    assert_eq!(hidden, serde_json::json!(true));
}

/// Issue 47, item 2: the ranked plans' fold is hidden, not empty, where the
/// page ranks no layouts (no model, an accounting that splits nothing), and
/// there for a model trained whole or with adapters (whose plans are the
/// data-parallel ones).
#[tokio::test]
async fn the_plans_fold_is_hidden_where_no_layouts_are_ranked() {
    let browser = Browser::start().await;
    let hidden = "return document.querySelector(\"[data-testid='plans']\").hidden;";
    for (query, expected) in [
        ("?lang=en", true),
        ("?model=llama2-7b&method=lora", false),
        ("?model=llama2-7b&acct=deepspeed", true),
        ("?model=llama2-7b", false),
    ] {
        browser.open(query).await;
        assert_eq!(
            browser.eval(hidden).await,
            serde_json::json!(expected),
            "{query}"
        );
    }
    browser.close().await;
}

/// Issue 63: Llama 3 70B on 64 H100s with DDP highlighted, where only ZeRO-3
/// fits: the verdict names ZeRO-3 and its figure, one click highlights it,
/// and on a phone the pinned bar says what fits beside what does not.
#[tokio::test]
async fn where_only_zero3_fits_one_click_shows_it() {
    let browser = Browser::start().await;
    let query = "?v=3&lang=en&model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=8";
    browser.open(query).await;
    let summary = browser.text("summary").await;
    assert!(
        summary.contains("The simplest strategy that fits is ZeRO-3 (64.24 GB)"),
        "{summary}"
    );
    assert_eq!(browser.text("summary-show-fitting").await, "Show ZeRO-3");
    browser
        .eval("document.querySelector(\"[data-testid='summary-show-fitting']\").click(); return true;")
        .await;
    let url = browser.wait_for_query("stage=3").await;
    assert!(url.contains("model=llama3-70b"), "{url}");
    let summary = browser.text("summary").await;
    assert!(summary.contains("ZeRO-3 needs"), "{summary}");
    assert!(summary.contains("it fits"), "{summary}");
    let hidden = browser
        .eval("return document.querySelector(\"[data-testid='summary-show-fitting']\").hidden;")
        .await;
    assert_eq!(hidden, serde_json::json!(true));
    // On a phone, the bar pinned above says what fits beside what does not.
    browser
        .client
        .set_window_size(375, 800)
        .await
        .expect("window resized");
    browser.open(&query.replace("lang=en", "lang=zh")).await;
    let bar = browser.text("verdict-bar").await;
    assert!(bar.contains("放不下"), "{bar}");
    assert!(bar.contains("ZeRO-3（64.24 GB）"), "{bar}");
    browser.close().await;
}
