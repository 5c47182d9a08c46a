//! The lesson's path on the release build (issue 47, item 4): Q1–Q5 each set
//! the page and answer with its own figures, next to the verdict, in both
//! languages, on a desktop and on a phone; Q6 stays the scenario buttons.

use vram_e2e::Browser;

async fn click(browser: &Browser, id: &str) {
    browser
        .eval(&format!(
            "document.querySelector(\"[data-testid='{id}']\").click(); return true;"
        ))
        .await;
}

async fn answer(browser: &Browser) -> String {
    browser
        .wait_until(
            "return !document.querySelector(\"[data-testid='lesson-answer']\").hidden;",
            "the lesson's answer shown",
        )
        .await;
    browser.text("lesson-answer").await
}

#[tokio::test]
async fn each_question_sets_the_page_and_answers_with_its_figures() {
    let browser = Browser::start().await;
    browser.open("?lang=en").await;
    click(&browser, "lesson-q1").await;
    assert!(
        answer(&browser)
            .await
            .starts_with("Q1: 2 + 2 + 12 = 16 bytes per parameter"),
        "{}",
        answer(&browser).await
    );
    // The question shown looks pressed, as the job switch's button does.
    let looks = browser
        .eval(
            "const bg = id => getComputedStyle(document.querySelector(`[data-testid='${id}']`)).backgroundColor; \
             return [bg('lesson-q1'), bg('lesson-q2'), bg('job-train')];",
        )
        .await;
    assert_eq!(looks[0], looks[2], "{looks}");
    assert_ne!(looks[0], looks[1], "{looks}");
    click(&browser, "lesson-q2").await;
    let q2 = answer(&browser).await;
    assert!(q2.contains("= 112 GB on one GPU of 80 GB"), "{q2}");
    // The table says the same: one GPU, DDP's 112 GB.
    assert_eq!(browser.text("mem-total-ddp").await, "112 GB");
    click(&browser, "lesson-q3").await;
    assert!(answer(&browser).await.contains("= 38.5 GB per GPU"));
    assert_eq!(browser.text("mem-total-zero1").await, "38.5 GB");
    click(&browser, "lesson-q5").await;
    let q5 = answer(&browser).await;
    assert!(
        q5.starts_with("Q5: at 4096 tokens, Llama 2 7B keeps "),
        "{q5}"
    );
    // Changed by hand, the page is no longer the question: no answer.
    browser
        .eval(
            "const gpus = document.querySelector(\"input[name='gpus']\");
             gpus.value = '4';
             gpus.dispatchEvent(new Event('input', { bubbles: true }));
             return true;",
        )
        .await;
    browser
        .wait_until(
            "return document.querySelector(\"[data-testid='lesson-answer']\").hidden;",
            "the answer gone once the page changed",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn the_path_works_in_chinese_on_a_phone() {
    let browser = Browser::start().await;
    browser
        .client
        .set_window_size(390, 844)
        .await
        .expect("window size");
    browser.open("?lang=zh").await;
    click(&browser, "lesson-q4").await;
    let q4 = answer(&browser).await;
    assert!(
        q4.starts_with("Q4：ZeRO-3 在 8 张 GPU 上三者都切分"),
        "{q4}"
    );
    assert!(q4.contains("= 14 GB"), "{q4}");
    // Far below the form's buttons on a phone, it is brought into view
    // (to within a pixel: the browser scrolls by whole pixels, the layout
    // places the answer at fractions of one).
    // At the top, under the pinned verdict, with the table's first row in
    // view after it (issue 63: it landed at the screen's bottom edge).
    browser
        .wait_until(
            "const r = document.querySelector(\"[data-testid='lesson-answer']\").getBoundingClientRect();
             const bar = document.querySelector(\"[data-testid='verdict-bar']\").getBoundingClientRect();
             const row = document.querySelector(\"[data-testid='mem-total-ddp']\").getBoundingClientRect();
             return r.top >= bar.bottom - 1 && r.bottom <= innerHeight + 1 && row.bottom <= innerHeight;",
            "the answer in view",
        )
        .await;
    browser.close().await;
}

/// Issue 47, item 5: a lesson's embed in a course site's 688 px column shows
/// the lesson's few settings, then the verdict and the results right under
/// them, so an edit is answered in view; "All settings" opens the rest.
#[tokio::test]
async fn a_lessons_embed_answers_an_edit_in_view() {
    let browser = Browser::start().await;
    browser
        .client
        .set_window_size(688, 900)
        .await
        .expect("window size");
    browser.open("?embed=1&params=13&stage=2").await;
    let placed = "const summary = document.querySelector(\"[data-testid='summary']\").getBoundingClientRect();
                  const form = document.querySelector('form.controls').getBoundingClientRect();
                  const nodes = document.querySelector(\"[data-key='nodes']\");
                  return [form.bottom <= summary.top, summary.top < 1400, getComputedStyle(nodes).display];";
    assert_eq!(
        browser.eval(placed).await,
        serde_json::json!([true, true, "none"])
    );
    // An edit of a lesson's field: the verdict right under it says the new figure.
    browser
        .eval(
            "const params = document.querySelector(\"input[name='params']\");
             params.value = '33';
             params.dispatchEvent(new Event('input', { bubbles: true }));
             return true;",
        )
        .await;
    browser.wait_for_query("params=33").await;
    let summary = browser.text("summary").await;
    assert!(summary.contains("33 B parameters"), "{summary}");
    click(&browser, "all-settings").await;
    let shown = browser
        .eval("return getComputedStyle(document.querySelector(\"[data-key='nodes']\")).display;")
        .await;
    assert_ne!(shown, serde_json::json!("none"));
    browser.close().await;
}
