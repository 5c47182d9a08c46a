//! RL post-training (`job=rl`, issue 45) on the release build: the issue's
//! first case shows both phases per GPU with the core's figures, the
//! host RAM, the step and verl's overrides; the job switch reaches it;
//! bad RL input is said next to its field.

use vram_core::format::{format_bytes, MemoryUnit};
use vram_core::input::link;
use vram_core::Bytes;
use vram_e2e::Browser;

/// Qwen2.5-7B GRPO on 8 × H20.
const QWEN_GRPO: &str =
    "?job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2";

#[tokio::test]
async fn grpo_on_eight_h20s_shows_both_phases() {
    let report = link::decode(QWEN_GRPO).config.rl_report().expect("valid");
    let browser = Browser::start().await;
    browser.open(&format!("{QWEN_GRPO}&lang=en")).await;
    let verdict = browser.text("rl-verdict").await;
    assert!(verdict.starts_with("Both phases fit"), "{verdict}");
    let generate = report.generate.as_ref().unwrap();
    let shown = format_bytes(Bytes::new(generate.total_bytes), MemoryUnit::Gb);
    assert!(verdict.contains(&shown), "{verdict} {shown}");
    let learn = browser.text("rl-learn").await;
    assert!(
        learn.contains("Actor: weights, gradients, optimizer"),
        "{learn}"
    );
    let overrides = browser.text("rl-overrides").await;
    assert!(
        overrides.contains("actor_rollout_ref.rollout.tensor_model_parallel_size=2"),
        "{overrides}"
    );
    let step = browser.text("rl-step").await;
    assert!(step.contains("Host RAM per node"), "{step}");
    // How far it goes, as the core's search finds it.
    let limits = link::decode(QWEN_GRPO).config.rl_limits();
    let shown = browser.text("rl-limits").await;
    let longest = vram_core::format::format_number(f64::from(
        limits.largest_response_len.expect("a response fits"),
    ));
    assert!(shown.contains(&longest), "{shown} {longest}");
    assert!(shown.contains("Fewest GPUs that run it"), "{shown}");
    // Each phase's bar names its parts' colours, none twice.
    let legends = browser
        .eval(
            "return [...document.querySelectorAll(\"[data-testid='rl-legend']\")].map(l => \
             [...l.querySelectorAll('.swatch')].map(s => getComputedStyle(s).backgroundColor));",
        )
        .await;
    let legends = legends.as_array().unwrap();
    assert_eq!(legends.len(), 2, "{legends:?}");
    for colours in legends {
        let colours: Vec<&str> = colours
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let mut distinct = colours.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), colours.len(), "{colours:?}");
    }
    // The step's timeline: six phases, the generation the peak, the relief
    // named with its key; each phase's bytes the core's.
    let timeline = browser.text("rl-timeline").await;
    for stage in &report.timeline.stages {
        let bytes = format_bytes(Bytes::new(stage.bytes), MemoryUnit::Gb);
        assert!(timeline.contains(&bytes), "{timeline} {bytes}");
    }
    assert!(timeline.contains("the peak"), "{timeline}");
    assert!(timeline.contains("(gpu_util)"), "{timeline}");
    let peak = browser
        .eval("return document.querySelector(\"[data-testid='rl-timeline-bars'] li.peak\").textContent;")
        .await;
    assert_eq!(peak, "Generate the responses");
    browser.close().await;
}

#[tokio::test]
async fn the_switch_reaches_rl_and_bad_input_is_named() {
    let browser = Browser::start().await;
    browser.open("?lang=zh").await;
    browser
        .eval("document.querySelector(\"[data-testid='job-rl']\").click(); return true;")
        .await;
    browser
        .wait_until(
            "const v = document.querySelector(\"[data-testid='rl-verdict']\"); \
             return !!v && v.textContent.length > 0 && !document.querySelector(\"[data-testid='rl-fields']\").hidden;",
            "the RL view",
        )
        .await;
    let query = browser.wait_for_query("job=rl").await;
    assert!(query.contains("model=llama3.1-8b"), "{query}");
    // RL trains in BF16: the lesson's mixed FP16 is training's (issue 63).
    assert!(query.contains("dtype=bf16&"), "{query}");
    // Nor the lesson's 20 % reserve: each phase is held to the GPU.
    assert!(query.contains("overhead=0&"), "{query}");
    browser
        .eval(
            "const b = document.getElementById('token_budget'); b.value = '100'; \
             b.dispatchEvent(new Event('input', { bubbles: true })); return true;",
        )
        .await;
    browser
        .wait_until(
            "return document.querySelector(\"[data-testid='error-token_budget']\").textContent.length > 0;",
            "the token budget's error",
        )
        .await;
    let error = browser.text("error-token_budget").await;
    assert!(error.contains("2,048"), "{error}");
    browser.close().await;
}

/// On-policy distillation from a teacher, and the engine on GPUs of its own
/// (issue 45): the teacher's rows with the core's figures, verl's refusal
/// in place of its overrides; the split view's heading and no sleeping
/// engine; choosing distillation without a teacher names the teacher.
#[tokio::test]
async fn distillation_and_a_split_engine_show_their_parts() {
    const DISTILL: &str = "?job=rl&algo=distill&teacher=qwen2.5-32b&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&sharding=fsdp2";
    let report = link::decode(DISTILL).config.rl_report().expect("valid");
    let browser = Browser::start().await;
    browser.open(&format!("{DISTILL}&lang=en")).await;
    let learn = browser.text("rl-learn").await;
    let teacher = format_bytes(
        Bytes::new(report.learn.bytes(vram_core::rl::RlPart::Teacher)),
        MemoryUnit::Gb,
    );
    assert!(learn.contains("Teacher's weights"), "{learn}");
    assert!(learn.contains(&teacher), "{learn} {teacher}");
    assert!(
        learn.contains("Teacher's logits and the distillation loss"),
        "{learn}"
    );
    let overrides = browser.text("rl-overrides").await;
    assert!(
        overrides.starts_with("verl serves the teacher"),
        "{overrides}"
    );
    // Apart, on four GPUs of its own.
    const SPLIT: &str = "?job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&placement=split&rollout_gpus=4&rollout_tp=2&rl_framework=openrlhf&lang=en";
    browser.open(SPLIT).await;
    let verdict = browser.text("rl-verdict").await;
    assert!(verdict.starts_with("Both fit: generating"), "{verdict}");
    let generate = browser.text("rl-generate").await;
    assert!(
        generate.contains("Buffer for the trainer's weights"),
        "{generate}"
    );
    assert!(!generate.contains("Actor left on the GPU"), "{generate}");
    let learn = browser.text("rl-learn").await;
    assert!(!learn.contains("Engine while asleep"), "{learn}");
    // verl's SGLang rollout is counted as SGLang sizes its pool, and said
    // (issue 61: the link's engine was once silently ignored); under
    // OpenRLHF, which runs vLLM only, the page says the figures are vLLM's.
    const SGLANG: &str = "?job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&offload=all&engine=sglang&lang=en";
    browser.open(SGLANG).await;
    let engine = browser.text("rl-engine").await;
    assert!(
        engine.starts_with(
            "SGLang's rollout (rollout.name=sglang): its KV pool is mem_fraction_static (0.5)"
        ),
        "{engine}"
    );
    let generate = browser.text("rl-generate").await;
    assert!(!generate.contains("Engine: activations"), "{generate}");
    browser
        .open(&format!("{SGLANG}&rl_framework=openrlhf"))
        .await;
    let engine = browser.text("rl-engine").await;
    assert_eq!(
        engine,
        "The rollout is counted as vLLM runs it: SGLang's rollout is not counted under OpenRLHF."
    );
    browser.close().await;
}
