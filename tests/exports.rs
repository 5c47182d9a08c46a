//! The export buttons on the release build: the Markdown table goes to the
//! clipboard, the CSV and each chart's PNG download as data: links, each of
//! exactly what the page shows (the Markdown and the CSV made by the lazily
//! loaded module).

use std::time::{Duration, Instant};

use vram_e2e::{Browser, TIMEOUT};

/// Clicks the element with `data-testid=id` from the page's own script.
async fn click(browser: &Browser, id: &str) {
    browser
        .eval(&format!(
            "document.querySelector(\"[data-testid='{id}']\").click(); return true;"
        ))
        .await;
}

/// Clicks "Copy results as Markdown" and returns what went to the clipboard, as
/// the page sees it (headless Chromium may refuse the real one).
async fn copied_markdown(browser: &Browser) -> String {
    copied_by(browser, "export-markdown").await
}

/// Clicks the button `id` and returns what went to the clipboard.
async fn copied_by(browser: &Browser, id: &str) -> String {
    browser
        .eval(
            "window.copied = null;
             navigator.clipboard.writeText = text => { window.copied = text; return Promise.resolve(); };
             navigator.clipboard.write = async items => {
               const blob = await items[0].getType('text/plain');
               window.copied = await blob.text();
             };
             return true;",
        )
        .await;
    click(browser, id).await;
    let started = Instant::now();
    loop {
        if let Some(text) = browser.eval("return window.copied;").await.as_str() {
            return text.to_string();
        }
        assert!(started.elapsed() < TIMEOUT, "nothing was copied");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn markdown_of_a_model_carries_the_formulas_as_paragraphs() {
    let browser = Browser::start().await;
    browser
        .open("?model=llama2-7b&stage=2&global_batch=64")
        .await;
    let markdown = copied_markdown(&browser).await;
    let paragraphs: Vec<&str> = markdown.trim_end().split("\n\n").collect();
    // What it is of first (issue 47, item 7): the model, the step, the GPUs.
    assert!(
        paragraphs[0]
            .starts_with("**6,738,415,616 parameters (Llama 2 7B) · Sequence length 2048 tokens"),
        "{markdown}"
    );
    assert!(paragraphs[1].starts_with("| Strategy |"), "{markdown}");
    assert!(
        paragraphs[2]
            .starts_with("ZeRO-2 per GPU, by the lesson's formula: (2 + 2 ÷ 8 + 12 ÷ 8) B"),
        "{markdown}"
    );
    assert!(
        paragraphs.iter().any(|p| p.starts_with(
            "L·[e·s·b·(6h + 2k + m·f)] + 2e·s·b·h + (e + 4)·s·b·v = 32 × [2 × 2048 × 1 × "
        )),
        "{markdown}"
    );
    assert!(
        paragraphs[paragraphs.len() - 2].contains("Gradient accumulation: 8 steps"),
        "{markdown}"
    );
    // And the link that opens it, with the units.
    let last = paragraphs.last().unwrap();
    assert!(
        last.starts_with("Open it in the calculator: <http://127.0.0.1:"),
        "{last}"
    );
    assert!(
        last.ends_with("&model=llama2-7b&layers=32&hidden=4096&ffn=11008&heads=32&kv_heads=32&vocab=32000&tied=0&mlp=swiglu&seq=2048&mbs=1&recompute=none&flash=1&global_batch=64&mfu=0.4>. GB = 10⁹ bytes."),
        "{last}"
    );
    browser.close().await;
}

#[tokio::test]
async fn markdown_csv_and_png_hold_what_the_page_shows() {
    let browser = Browser::start().await;
    browser.open("?stage=1").await;

    let markdown = copied_markdown(&browser).await;
    let (head, markdown) = markdown.split_once("\n\n").unwrap();
    assert!(head.starts_with("**7,000,000,000 parameters · "), "{head}");
    assert!(head.ends_with("**. Usable per GPU: 64 GB."), "{head}");
    let (markdown, link) = markdown.trim_end().rsplit_once("\n\n").unwrap();
    assert!(
        link.ends_with("/?v=3&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=1>. GB = 10⁹ bytes."),
        "{link}"
    );
    assert_eq!(
        format!("{markdown}\n"),
        "| Strategy | Weights | Gradients | Optimizer | Total | Fits? | Min GPUs | Largest model | Sent per step |\n\
         | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n\
         | DDP | 14 GB | 14 GB | 84 GB | 112 GB | no | none | 4 B | 24.5 GB |\n\
         | ZeRO-1 | 14 GB | 14 GB | 10.5 GB | 38.5 GB | yes | 3 | 11.64 B | 24.5 GB |\n\
         | ZeRO-2 | 14 GB | 1.75 GB | 10.5 GB | 26.25 GB | yes | 2 | 17.07 B | 24.5 GB |\n\
         | ZeRO-3 | 1.75 GB | 1.75 GB | 10.5 GB | 14 GB | yes | 2 | 32 B | 36.75 GB |\n\
         \n\
         ZeRO-1 per GPU, by the lesson's formula: (2 + 2 + 12 ÷ 8) B × 7 × 10⁹ = 38.5 GB.\n"
    );
    assert_eq!(browser.text("copy-status").await, "Markdown table copied.");

    // The CSV is made by the lazily loaded module, then downloaded.
    click(&browser, "export-csv").await;
    let started = Instant::now();
    let csv = loop {
        let csv = browser
            .eval(
                "const href = document.querySelector(\"[data-testid='export-csv']\").getAttribute('href');
                 return href.startsWith('data:') ? decodeURIComponent(href.slice('data:text/csv;charset=utf-8,'.length)) : null;",
            )
            .await;
        if let Some(csv) = csv.as_str() {
            break csv.to_string();
        }
        assert!(started.elapsed() < TIMEOUT, "no CSV was made");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert!(
        lines[0].starts_with("strategy,weights_bytes,"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2].starts_with("zero1,14000000000,14000000000,10500000000,0,0,38500000000,true,"),
        "{}",
        lines[2]
    );
    assert_eq!(lines.len(), 6);

    // After a change the module is already there and answers within the
    // click: the CSV follows the change, and nothing is logged. (Issue 47
    // reports "closure invoked recursively or after being dropped" on the
    // first CSV after a change; this sequence does not reproduce it here.)
    browser.console_messages().await;
    browser
        .eval(
            "const input = document.querySelector(\"input[name='params']\");
             input.value = '13';
             input.dispatchEvent(new Event('input', { bubbles: true }));
             return true;",
        )
        .await;
    browser.wait_for_query("params=13&").await;
    click(&browser, "export-csv").await;
    let started = Instant::now();
    loop {
        let href = browser
            .eval("return decodeURIComponent(document.querySelector(\"[data-testid='export-csv']\").getAttribute('href'));")
            .await;
        if href
            .as_str()
            .is_some_and(|h| h.contains("zero1,26000000000,"))
        {
            break;
        }
        assert!(started.elapsed() < TIMEOUT, "no CSV for the change: {href}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logged = browser.console_messages().await;
    assert!(
        logged
            .iter()
            .all(|m| !m.contains("recursively") && !m.starts_with("SEVERE")),
        "{logged:?}"
    );

    click(&browser, "export-png-max-params").await;
    let png = browser
        .eval("return document.querySelector(\"[data-testid='export-png-max-params']\").getAttribute('href');")
        .await;
    let png = png.as_str().expect("a link");
    assert!(
        png.starts_with("data:image/png;base64,") && png.len() > 10_000,
        "{}",
        &png[..40.min(png.len())]
    );
    // Issue 47, item 7: the picture carries its title, the configuration and
    // the legend: as wide as the chart, taller by them.
    let sizes = browser
        .eval(
            "const link = document.querySelector(\"[data-testid='export-png-max-params']\");
             const canvas = document.querySelector(\"canvas[data-testid='chart-max-params']\");
             return new Promise((done) => {
               const image = new Image();
               image.onload = () => done([image.width, image.height, canvas.width, canvas.height]);
               image.src = link.getAttribute('href');
             });",
        )
        .await;
    let sizes: Vec<f64> = sizes
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(sizes[0], sizes[2], "{sizes:?}");
    assert!(sizes[1] > sizes[3] + 40.0, "{sizes:?}");
    browser.close().await;
}

/// "Copy as …" (issue 46): the frameworks of the job on show, each copying
/// the core's own text of the configuration with the page's link in it; a
/// framework that cannot run it says why, and copies nothing.
#[tokio::test]
async fn copy_as_gives_the_frameworks_own_configuration() {
    let query = "?lang=en&model=llama2-7b&stage=3&offload=optimizer&dtype=bf16";
    let browser = Browser::start().await;
    browser.open(query).await;
    let offered: Vec<String> = browser
        .eval("return [...document.querySelectorAll(\"[data-testid^='copy-as-']\")].map(b => b.textContent);")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        offered,
        [
            "DeepSpeed",
            "Megatron-LM",
            "torchtitan",
            "accelerate",
            "LitGPT"
        ]
    );
    let copied = copied_by(&browser, "copy-as-deepspeed").await;
    let config = vram_core::input::link::decode(query).config;
    let expected = vram_launch::export(&config, vram_launch::Target::DeepSpeed, "").unwrap();
    assert_eq!(copied, expected);
    let accelerate = copied_by(&browser, "copy-as-accelerate").await;
    let url = browser.text("share-url").await;
    let url = if url.is_empty() {
        browser
            .eval("return document.querySelector(\"[data-testid='share-url']\").value;")
            .await
            .as_str()
            .unwrap()
            .to_string()
    } else {
        url
    };
    assert!(
        accelerate.starts_with(&format!("# {url}\n")),
        "{accelerate}"
    );
    assert!(
        accelerate.contains("  zero_stage: 3\n  offload_optimizer_device: cpu\n"),
        "{accelerate}"
    );
    // torchtitan shards with FSDP2, not as DeepSpeed's ZeRO-3 is counted.
    click(&browser, "copy-as-torchtitan").await;
    browser
        .wait_until(
            "return !document.querySelector(\"[data-testid='copy-refused']\").hidden;",
            "the refusal",
        )
        .await;
    let refusal = browser.text("copy-refused").await;
    assert!(refusal.contains("set sharding to FSDP2"), "{refusal}");
    // Serving offers its engine's command.
    browser
        .open("?lang=en&job=serve&model=llama3.1-8b&gpu=h100-80gb")
        .await;
    let serve_copy = copied_by(&browser, "copy-as-vllm").await;
    assert!(
        serve_copy.contains("vllm serve meta-llama/Llama-3.1-8B-Instruct"),
        "{serve_copy}"
    );
    browser.close().await;
}

/// Each ranked plan can be copied as a framework writes it (issue 46): the
/// row's choice copies the core's text of that plan, or says why the
/// framework cannot run it.
#[tokio::test]
async fn a_ranked_plan_is_copied_as_a_framework_writes_it() {
    let browser = Browser::start().await;
    browser
        .open("?lang=en&model=llama2-70b&gpu=h100-80gb&gpus=8&nodes=2&seq=4096#plans")
        .await;
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(fantoccini::Locator::Css("[data-testid='plan-copy-0']"))
        .await
        .expect("the plans appear");
    browser
        .eval(
            "window.copied = null;
             navigator.clipboard.writeText = text => { window.copied = text; return Promise.resolve(); };
             navigator.clipboard.write = async items => {
               const blob = await items[0].getType('text/plain');
               window.copied = await blob.text();
             };
             const s = document.querySelector(\"[data-testid='plan-copy-0']\");
             s.value = 'megatron';
             s.dispatchEvent(new Event('change', { bubbles: true }));
             return true;",
        )
        .await;
    browser
        .wait_until(
            "return document.querySelector(\"[data-testid='plans-copy-status']\").textContent.length > 0;",
            "the copy's status",
        )
        .await;
    let query = browser
        .eval("return document.querySelector(\"[data-testid='plan-copy-0']\").dataset.query;")
        .await
        .as_str()
        .unwrap()
        .to_string();
    let plan = vram_core::input::link::decode(&query).config;
    let status = browser.text("plans-copy-status").await;
    match vram_launch::export(&plan, vram_launch::Target::Megatron, "") {
        Ok(text) => {
            let copied = browser.eval("return window.copied;").await;
            let copied = copied.as_str().expect("copied");
            // The same text but for the first line, the plan's link.
            assert_eq!(
                copied.split_once('\n').unwrap().1,
                text.split_once('\n').unwrap().1
            );
            assert!(copied.contains(&query), "{copied}");
            assert!(status.starts_with("Copied"), "{status}");
        }
        // The reason, in words (vram_view::launch::refusal's), and nothing copied.
        Err(refusal) => {
            assert!(!status.starts_with("Copied"), "{refusal:?}: {status}");
            assert!(status.contains("Megatron-LM"), "{refusal:?}: {status}");
        }
    }
    // The choice resets, for the next.
    let value = browser
        .eval("return document.querySelector(\"[data-testid='plan-copy-0']\").value;")
        .await;
    assert_eq!(value.as_str(), Some(""));
    browser.close().await;
}

/// A ranked serving layout is copied as its engine's launch line (issue
/// 46): the row's choice copies the core's `vllm serve` text of that layout.
#[tokio::test]
async fn a_ranked_serving_layout_is_copied_as_its_launch_line() {
    let browser = Browser::start().await;
    browser
        .open("?job=serve&model=llama3.1-70b&gpu=h100-80gb&gpus=8&max_len=32768&lang=en")
        .await;
    browser
        .eval("document.querySelector(\"[data-testid='serve-plans-details']\").open = true; return true;")
        .await;
    browser
        .wait_until(
            "return !!document.querySelector(\"[data-testid='serve-plan-copy-0']\");",
            "the ranked layouts",
        )
        .await;
    browser
        .eval(
            "window.copied = null;
             navigator.clipboard.writeText = text => { window.copied = text; return Promise.resolve(); };
             navigator.clipboard.write = async items => {
               const blob = await items[0].getType('text/plain');
               window.copied = await blob.text();
             };
             const s = document.querySelector(\"[data-testid='serve-plan-copy-0']\");
             s.value = 'vllm';
             s.dispatchEvent(new Event('change', { bubbles: true }));
             return true;",
        )
        .await;
    browser
        .wait_until(
            "return document.querySelector(\"[data-testid='serve-plans-copy-status']\").textContent.length > 0;",
            "the copy's status",
        )
        .await;
    let query = browser
        .eval("return document.querySelector(\"[data-testid='serve-plan-copy-0']\").dataset.query;")
        .await
        .as_str()
        .unwrap()
        .to_string();
    let plan = vram_core::input::link::decode(&query).config;
    let text = vram_launch::export(&plan, vram_launch::Target::Vllm, "").unwrap();
    let copied = browser.eval("return window.copied;").await;
    let copied = copied.as_str().expect("copied");
    // The same text but for the first line, the plan's link.
    assert_eq!(
        copied.split_once('\n').unwrap().1,
        text.split_once('\n').unwrap().1
    );
    assert!(copied.contains(&query), "{copied}");
    // The fastest per GPU under load: two replicas of TP 2 × PP 2.
    assert!(copied.contains("--tensor-parallel-size 2"), "{copied}");
    assert!(copied.contains("--pipeline-parallel-size 2"), "{copied}");
    let status = browser.text("serve-plans-copy-status").await;
    assert!(status.starts_with("Copied"), "{status}");
    browser.close().await;
}

/// Issue 63: "Copy as DeepSpeed" refused only after the click. In every
/// ranked plan's list, a framework's option is disabled exactly where the
/// core's export refuses that plan, its reason the option's title, and
/// offered where it writes a text.
#[tokio::test]
async fn a_plans_refusing_frameworks_are_marked_before_the_click() {
    let browser = Browser::start().await;
    browser
        .open("?lang=en&model=llama2-70b&gpu=h100-80gb&gpus=8&nodes=2&seq=4096#plans")
        .await;
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(fantoccini::Locator::Css("[data-testid='plan-copy-0']"))
        .await
        .expect("the plans appear");
    let rows = browser
        .eval(
            "return [...document.querySelectorAll('select.copy-plan')].map(s => [s.dataset.query,
                 [...s.options].slice(1).map(o => [o.value, o.disabled, o.title])]);",
        )
        .await;
    let rows = rows.as_array().expect("the plans' lists").clone();
    assert!(rows.len() >= 3, "{rows:?}");
    let (mut offered, mut refused) = (0, 0);
    for row in rows {
        let query = row[0].as_str().unwrap();
        let plan = vram_core::input::link::decode(query).config;
        for option in row[1].as_array().unwrap() {
            let target = vram_launch::Target::ALL
                .into_iter()
                .find(|t| t.key() == option[0].as_str().unwrap())
                .expect("a target");
            let disabled = option[1].as_bool().unwrap();
            match vram_launch::export(&plan, target, "") {
                Ok(_) => {
                    assert!(!disabled, "{query}: {target:?} writes a text");
                    offered += 1;
                }
                Err(refusal) => {
                    assert!(disabled, "{query}: {target:?} refuses ({refusal:?})");
                    let title = option[2].as_str().unwrap();
                    assert_eq!(
                        title,
                        vram_view::launch::refusal(false, target, refusal),
                        "{query}"
                    );
                    refused += 1;
                }
            }
        }
    }
    assert!(
        offered > 0 && refused > 0,
        "{offered} offered, {refused} refused"
    );
    browser.close().await;
}

/// Issue 66: the other direction on the page: Megatron-LM's own GPT-3 175B
/// example script pasted in Chinese becomes its training configuration
/// (the preset its shape is, TP 8, the batch), its arguments of no bearing
/// said, and what its one node cannot hold (PP 16 over 8 GPUs: the script
/// says to change NUM_NODES) said as read but not applied, in the page's
/// language.
#[tokio::test]
async fn a_pasted_megatron_script_becomes_the_training_run() {
    let browser = Browser::start().await;
    browser.open("?v=3&lang=zh&gpu=h100-80gb&nodes=16").await;
    let script = include_str!("../crates/launch/tests/inputs/megatron-gpt3-175b.sh.txt");
    browser
        .eval(&format!(
            "const area = document.querySelector(\"[data-testid='paste-text']\");
             area.value = {};
             area.dispatchEvent(new Event('input', {{ bubbles: true }}));
             document.querySelector(\"[data-testid='paste-read']\").click();
             return true;",
            serde_json::to_string(script).unwrap()
        ))
        .await;
    let query = browser.wait_for_query("model=gpt3-175b").await;
    for part in ["tp=8", "dtype=fp16", "global_batch=1536", "gpu=h100-80gb"] {
        assert!(query.contains(part), "{part}: {query}");
    }
    let said = browser
        .eval("return document.querySelector(\"[data-testid='paste-summary']\").textContent;")
        .await;
    let said = said.as_str().unwrap_or_default();
    for part in [
        "已读取 --tensor-model-parallel-size 8 → tp",
        "与数字无关：--lr 6.0e-5",
        "已读取但未应用：pp=16：",
    ] {
        assert!(said.contains(part), "{part}: {said}");
    }
    browser.close().await;
}
