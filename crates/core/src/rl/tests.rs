use super::*;
use crate::input::link::decode;
use crate::rl::timeline::Stage;
use wasm_bindgen_test::wasm_bindgen_test;

/// The configuration a link's `query` decodes to, and its RL report.
fn rl_case(query: &str) -> (Config, RlReport) {
    let config = decode(query).config;
    let report = config.rl_report().unwrap();
    (config, report)
}

/// The RL report of the configuration a link's `query` decodes to.
fn rl_report_of(query: &str) -> RlReport {
    rl_case(query).1
}

/// Qwen2.5-7B GRPO on 8 × H20 (the first case): FSDP (ZeRO-3),
/// vLLM at TP 2 with verl's 0.5, 1,024-token prompts and responses: both
/// phases on 96 GB, never added; the engine's weights go to host RAM while
/// the actor learns (sleep 1).
#[wasm_bindgen_test(unsupported = test)]
fn qwen2_5_7b_grpo_on_eight_h20s() {
    let (config, r) = rl_case(
        "job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2",
    );
    let generate = r.generate.as_ref().unwrap();
    assert!(generate.fits && r.learn.fits, "{r:#?}");
    // The two phases are compared with the GPU, each alone.
    assert!(generate.total_bytes <= generate.limit_bytes);
    assert!(r.learn.total_bytes <= r.learn.limit_bytes);
    // verl's reference waits in host RAM in fp32: 4 bytes a parameter a node.
    let params = config.model.unwrap().architecture.param_count() as f64;
    assert_eq!(r.learn.bytes(RlPart::Reference), 0.0);
    assert!(
        (r.host_bytes_per_node - params * 4.0).abs() < 8.0,
        "{}",
        r.host_bytes_per_node
    );
    // Kept on the GPU instead, it is the actor's 16-bit shard: 2 bytes a parameter ÷ 8.
    let kept = rl_report_of("job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2&ref_offload=0");
    assert!((kept.learn.bytes(RlPart::Reference) - params * 2.0 / 8.0).abs() < 1.0);
    // The engine at TP 2 holds half the weights; asleep at verl's level 2
    // its graphs and NCCL's buffers stay.
    let engine = r.rollout.as_ref().unwrap();
    assert!(
        (engine.weights_bytes / 1e9 - 7.6).abs() < 0.2,
        "{}",
        engine.weights_bytes
    );
    assert_eq!(
        r.learn.bytes(RlPart::EngineAsleep),
        (engine.cuda_graph_bytes + engine.non_torch_bytes) as f64
    );
    assert_eq!(r.sequences, 256 * 8);
    assert_eq!(r.tokens, 256 * 8 * 2048);
    let time = r.time.unwrap();
    assert!(time.rollout_seconds > 0.0 && time.learn_seconds > 0.0);
    assert_eq!(
        time.step_seconds,
        time.rollout_seconds + time.log_prob_seconds + time.learn_seconds + time.transfer.total()
    );
    // The sync gathers the whole 16-bit model over NVLink (the preset's
    // 200 GB/s on an H20); at verl's sleep level 2 nothing crosses PCIe.
    let nvlink = config.gpu.unwrap().nvlink_gb_per_s * 1e9;
    assert!((time.transfer.sync - params * 2.0 / nvlink).abs() < 1e-9);
    assert_eq!((time.transfer.wake, time.transfer.sleep), (0.0, 0.0));
    // The timeline: wake, sync, generate, sleep, log-probs, update, each
    // phase's bytes from the two phases, the generation the peak here.
    let stages: Vec<Stage> = r.timeline.stages.iter().map(|s| s.stage).collect();
    use Stage::*;
    assert_eq!(
        stages,
        [Wake, WeightSync, Generate, Sleep, LogProbs, Update]
    );
    let bytes = |stage| r.stage(stage).unwrap().bytes;
    assert_eq!(bytes(Generate), generate.total_bytes);
    assert_eq!(
        bytes(Wake),
        generate.total_bytes - generate.bytes(RlPart::EngineKv)
    );
    assert_eq!(bytes(Update), r.learn.total_bytes);
    assert_eq!(
        bytes(LogProbs),
        r.learn.total_bytes - r.learn.bytes(RlPart::ActorStep)
    );
    assert!(bytes(Sleep) <= bytes(LogProbs));
    assert_eq!(
        r.stage(Generate).unwrap().seconds,
        Some(time.rollout_seconds)
    );
    assert_eq!(r.timeline.peak, Generate, "{:#?}", r.timeline);
    assert_eq!(r.timeline.relief, Field::GpuUtil);
}

/// The peak moves with the run: a long micro-batch without recomputation
/// makes the update the peak, relieved by recomputation; at sleep level 1
/// the weights cross PCIe both ways; apart, the generation runs on the
/// engine's GPUs with no wake or sleep.
#[wasm_bindgen_test(unsupported = test)]
fn the_timeline_marks_the_peak_and_its_relief() {
    let heavy = rl_report_of("job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&recompute=none&mbs=8&prompt_len=1024&response_len=4096&gpu_util=0.3");
    assert_eq!(heavy.timeline.peak, Stage::Update, "{:#?}", heavy.timeline);
    assert_eq!(heavy.timeline.relief, Field::Recompute);
    let level1 = rl_report_of(
        "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&recompute=full&sleep=1",
    );
    let t = level1.time.unwrap();
    let engine = level1.rollout.as_ref().unwrap();
    assert!(
        (t.transfer.wake - engine.weights_bytes / 64e9).abs() < 1e-9,
        "{t:?}"
    );
    assert_eq!(t.transfer.wake, t.transfer.sleep);
    let split = rl_report_of("job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&recompute=full&placement=split&rl_framework=openrlhf");
    let stages: Vec<(Stage, bool)> = split
        .timeline
        .stages
        .iter()
        .map(|s| (s.stage, s.on_engine_gpus))
        .collect();
    use Stage::*;
    assert_eq!(
        stages,
        [
            (WeightSync, false),
            (Generate, true),
            (LogProbs, false),
            (Update, false)
        ]
    );
}

/// Without sleep the engine keeps all it took while the actor learns;
/// PPO's critic is a second copy of the states; DPO generates nothing and
/// doubles the micro-batch (chosen and rejected).
#[wasm_bindgen_test(unsupported = test)]
fn sleep_critic_and_dpo() {
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&recompute=full";
    let awake = rl_report_of(&format!("{base}&sleep=0"));
    let engine = awake.rollout.as_ref().unwrap().total_bytes;
    assert_eq!(awake.learn.bytes(RlPart::EngineAsleep), engine);
    let ppo = rl_report_of(&format!("{base}&algo=ppo"));
    // The critic: the actor's states for a value model, the untied
    // language-model head (152,064 × 3,584) swapped for a one-output one.
    let share = (7_615_616_512.0 - 152_064.0 * 3584.0 + 3584.0) / 7_615_616_512.0;
    assert!(
        (ppo.learn.bytes(RlPart::Critic) - share * ppo.learn.bytes(RlPart::ActorStates)).abs()
            < 1.0,
        "{}",
        ppo.learn.bytes(RlPart::Critic)
    );
    let (dpo_config, dpo) = rl_case(&format!("{base}&algo=dpo"));
    assert!(dpo.generate.is_none() && dpo.rollout.is_none());
    assert_eq!(dpo_config.rl_learn_config().model.unwrap().micro_batch, 2);
    // Without an entropy term the log-probs are the step's loss; with one,
    // 4 bytes a token and word as verl's function measured, or 12 a token fused.
    assert_eq!(dpo.learn.bytes(RlPart::LogProbs), 0.0);
    let vocab = 152_064.0;
    let entropy = rl_report_of(&format!("{base}&algo=dpo&entropy=1"));
    assert_eq!(
        entropy.learn.bytes(RlPart::LogProbs),
        4.0 * 2.0 * 2048.0 * vocab
    );
    let fused = rl_report_of(&format!("{base}&algo=dpo&entropy=1&logits=fused"));
    assert_eq!(fused.learn.bytes(RlPart::LogProbs), 12.0 * 2.0 * 2048.0);
}

/// Bad RL input names its key: a token budget below one prompt and
/// response, a critic under DPO, a rollout TP that does not divide the
/// heads, a response or prompt past the model's positions or the longest
/// sequence (never the internal `seq` or `max_len`); a link sets each aside.
#[wasm_bindgen_test(unsupported = test)]
fn bad_rl_input_names_its_key() {
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&stage=3";
    for (extra, field) in [
        ("&token_budget=1000", Field::TokenBudget),
        ("&algo=dpo&critic=1", Field::Critic),
        ("&rollout_tp=3", Field::RolloutTp),
        ("&ref=adapters", Field::Ref),
        ("&response_len=10000000", Field::ResponseLen),
        ("&response_len=40000", Field::ResponseLen),
        ("&prompt_len=40000", Field::PromptLen),
        // More sequences a step than verl's 8,192 tokens a step.
        ("&max_num_seqs=1048576", Field::MaxNumSeqs),
    ] {
        let query = format!("{base}{extra}");
        let decoded = decode(&query);
        assert_eq!(
            decoded
                .problems
                .iter()
                .map(|p| p.key.as_str())
                .collect::<Vec<_>>(),
            vec![field.key()],
            "{query}"
        );
        assert!(decoded.config.rl_report().is_ok(), "{query}");
    }
}

/// verl's published minimum configurations (`docs/perf/device_tuning.rst`
/// and the scripts under `examples/tuning/`, verl at b178a3c; GPU memory:
/// H100 and H800 80 GB, H20 96 GB), each with its own settings: GRPO,
/// actor parameters and optimizer offloaded, gradient checkpointing, the
/// rollout's TP and memory fraction as the script sets them, no entropy
/// term (`entropy_coeff=0`) in the full-parameter rows, 0.001 in the LoRA
/// row (rank 32 on every linear, the reference the actor without its
/// adapters, 512 + 1,024 tokens, 5 responses). Both phases fit on its GPUs
/// at its lengths: GSM8K's, packed by `use_remove_padding` (the scripts
/// state only the maxima; taken here as 120 prompt tokens — a question of
/// about 60 tokens, verl's instruction and Qwen2.5's chat template — and
/// 300 response tokens, an assumption; at the maxima the update, which
/// under verl holds the offloaded states back on the GPU, needs 80.3 and
/// 87.7 GiB of the H800s' 79.65 for the 7B and 14B rows). The 72B row
/// packs by a token budget, whatever the lengths. The rollout of the LoRA row ran at 0.2 with vLLM 0.8.3,
/// and with 0.20's budget (its graphs and sampler counted) needs at most
/// 0.3. The LoRA rows of 14B, 32B and 72B are not checked: their
/// micro-batches of 58, 45 and 22 sequences per GPU hold only with
/// `use_remove_padding` packing GSM8K's short answers, whose lengths the
/// scripts do not state (at the full 1,536 tokens they would need over
/// 130 GB a GPU).
/// GSM8K's mean lengths under verl's prompt, as assumed above.
const GSM8K_MEANS: &str = "prompt_mean=120&response_mean=300";

#[wasm_bindgen_test(unsupported = test)]
fn verls_minimum_configurations_fit() {
    let lora = "job=rl&dtype=bf16&stage=3&offload=all&method=lora&rank=32&targets=all&recompute=full&prompt_len=512&response_len=1024&rollouts=5&ref=adapters&batched_tokens=1536&entropy=1&overhead=0";
    let full = "job=rl&dtype=bf16&stage=3&offload=all&recompute=full&rollouts=5&overhead=0";
    for (query, needs_util) in [
        (format!("{lora}&model=qwen2.5-7b&gpu=h100-80gb&gpus=1&mbs=16&prompts=16&rollout_tp=1&gpu_util=0.2"), true),
        (format!("{full}&model=qwen2.5-7b&gpu=h800&gpus=2&mbs=16&prompt_len=1024&response_len=1024&prompts=1024&rollout_tp=2&gpu_util=0.6&{GSM8K_MEANS}"), false),
        (format!("{full}&model=qwen2.5-14b&gpu=h800&gpus=4&mbs=16&prompt_len=1024&response_len=1024&prompts=1024&rollout_tp=4&gpu_util=0.5&{GSM8K_MEANS}"), false),
        (format!("{full}&model=qwen2.5-72b&gpu=h20&gpus=8&nodes=4&token_budget=24000&prompt_len=512&response_len=512&prompts=1024&rollout_tp=16&gpu_util=0.6"), false),
    ] {
        let decoded = decode(&query);
        assert!(decoded.problems.is_empty(), "{query}: {:?}", decoded.problems);
        let r = decoded.config.rl_report().unwrap();
        assert!(r.learn.fits, "{query}: {:#?}", r.learn);
        match needs_util {
            false => assert!(r.fits(), "{query}"),
            true => {
                let util = r.min_gpu_util.unwrap();
                assert!((0.2..=0.3).contains(&util), "{util}");
                let at = query.replace("gpu_util=0.2", &format!("gpu_util={util}"));
                let again = rl_report_of(&at);
                assert!(again.fits(), "{query} at {util}");
            }
        }
    }
}

/// On-policy distillation of Qwen2.5-7B from Qwen2.5-32B on 8 H100s under
/// FSDP2: the teacher's 16-bit weights sharded eight ways beside the
/// student, in both phases; its logits and OpenRLHF's `KDLoss` terms, 19
/// bytes a token and vocabulary entry over the micro-batch; no reference;
/// the teacher's forward pass as the step's extra pass.
#[wasm_bindgen_test(unsupported = test)]
fn distillation_holds_the_teacher_and_its_logits() {
    let (config, r) = rl_case("job=rl&algo=distill&teacher=qwen2.5-32b&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&sharding=fsdp2");
    let teacher = vram_shared::model::presets::model_preset("qwen2.5-32b").unwrap();
    let teacher_params = teacher.architecture.param_count() as f64;
    let shard = teacher_params * 2.0 / 8.0;
    assert!((r.learn.bytes(RlPart::Teacher) - shard).abs() < 1.0);
    assert!((r.generate.as_ref().unwrap().bytes(RlPart::Teacher) - shard).abs() < 1.0);
    assert_eq!(r.learn.bytes(RlPart::Reference), 0.0);
    // 2,048 tokens (1,024 + 1,024, one sequence) × 152,064 × 19 bytes.
    assert_eq!(
        r.learn.bytes(RlPart::TeacherLogits),
        (2048u64 * 152_064 * DISTILL_BYTES_PER_LOGIT) as f64
    );
    let time = r.time.unwrap();
    let student = config.model.unwrap().architecture.active_param_count() as f64;
    let ratio = teacher.architecture.active_param_count() as f64 / student;
    // The learning pass is 3 forwards of the student; the teacher's one forward is `ratio` of one.
    assert!((time.log_prob_seconds / (time.learn_seconds / 3.0) - ratio).abs() < 1e-9);
    // A teacher is needed, and one of the student's vocabulary.
    let mut none = decode("job=rl&model=qwen2.5-7b").config;
    none.rl.algo = Algo::Distill;
    assert_eq!(
        none.rl_check().unwrap_err(),
        Field::Algo.error(InputErrorKind::NeedsTeacher)
    );
    let mut llama = none;
    llama.rl.teacher = vram_shared::model::presets::model_preset("llama3.1-8b");
    assert_eq!(
        llama.rl_check().unwrap_err(),
        Field::Teacher.error(InputErrorKind::OtherVocabulary {
            teacher: 128_256,
            student: 152_064
        })
    );
    // A link that asks for it without a teacher reads as GRPO, the problem said.
    let decoded = decode("job=rl&algo=distill&model=qwen2.5-7b");
    assert_eq!(decoded.config.rl.algo, Algo::Grpo);
    assert_eq!(decoded.problems.len(), 1);
}

/// The engine on GPUs of its own (OpenRLHF without `--train.colocate_all`):
/// it holds the whole of its fraction and a buffer for the largest weight,
/// nothing of the trainer's; the trainer holds no sleeping engine; the
/// engine's bound is its GPU, not the trainer's budget.
#[wasm_bindgen_test(unsupported = test)]
fn a_split_engine_is_alone_on_its_gpus() {
    let (config, r) = rl_case("job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&placement=split&rollout_gpus=4&rollout_tp=2&rl_framework=openrlhf");
    assert_eq!(config.rl_gpu_util(), 0.95);
    let generate = r.generate.as_ref().unwrap();
    assert_eq!(generate.bytes(RlPart::TrainerResident), 0.0);
    assert_eq!(generate.bytes(RlPart::Reference), 0.0);
    assert_eq!(r.learn.bytes(RlPart::EngineAsleep), 0.0);
    // Qwen2.5-7B's embedding: 152,064 × 3,584 in 16 bits.
    assert_eq!(
        generate.bytes(RlPart::WeightSync),
        2.0 * 152_064.0 * 3_584.0
    );
    let gpu = config.gpu.unwrap().memory().get();
    assert_eq!(generate.limit_bytes, gpu);
    assert!(generate.fits, "{generate:?}");
    // Two replicas of TP 2 on the four GPUs.
    assert_eq!(r.rollout.as_ref().unwrap().replicas, 2);
    // The rollout GPUs beyond a node are whole nodes.
    let mut uneven = config;
    uneven.rl.rollout_gpus = Some(12);
    assert_eq!(
        uneven.rl_check().unwrap_err(),
        Field::RolloutGpus.error(InputErrorKind::NotDivisible)
    );
}

/// Each framework's engine fraction unless set: verl's 0.5, OpenRLHF's
/// 0.95, TRL's 0.3 colocated and `trl vllm-serve`'s 0.9 apart.
#[wasm_bindgen_test(unsupported = test)]
fn each_framework_fills_its_own_fraction() {
    let util = |q: &str| {
        decode(&format!("job=rl&model=qwen2.5-7b&{q}"))
            .config
            .rl_gpu_util()
    };
    assert_eq!(util(""), VERL_GPU_MEMORY_UTILIZATION);
    assert_eq!(util("rl_framework=openrlhf"), 0.95);
    assert_eq!(util("rl_framework=trl"), 0.3);
    assert_eq!(util("rl_framework=trl&placement=split"), 0.9);
    assert_eq!(util("rl_framework=trl&gpu_util=0.4"), 0.4);
}

/// Unsloth's published GRPO breakdown for Llama 3.1 8B, LoRA, 8
/// generations of 20K context, "TRL + FA2" column (unsloth.ai/blog/grpo,
/// 2025-02-20; its "GB" are GiB): the inference cost 16 GB is the engine's
/// 16-bit weights; the KV cache for 20K context 2.5 GB is one sequence's
/// (32 layers × 8 KV heads × 128 × 2 × 2 bytes a token × 20,480); the GRPO
/// memory cost 78.3 GB is the loss's fp32 logits for the 8 × 20,480
/// tokens over 128,256 entries, which the step keeps beside the 16-bit
/// logits (Korthikanti's 4sbv beside 2sbv). Their "training memory cost"
/// (414 GB, TRL's activations as it ran them) is not pinned: it depends on
/// TRL's checkpointing defaults of the time, which the post does not state.
#[wasm_bindgen_test(unsupported = test)]
fn unsloths_published_grpo_breakdown() {
    let (config, r) = rl_case("job=rl&model=llama3.1-8b&gpu=h100-80gb&gpus=1&dtype=bf16&method=lora&mbs=8&prompts=1&rollouts=8&prompt_len=4096&response_len=16384&stage=ddp");
    let gib = 1024.0_f64.powi(3);
    let engine = r.rollout.as_ref().unwrap();
    assert!(
        (engine.weights_bytes / 1e9 - 16.06).abs() < 0.01,
        "{}",
        engine.weights_bytes
    );
    let kv_20k = engine.kv_bytes_per_token as f64 * 20_480.0 / gib;
    assert!((kv_20k - 2.5).abs() < 0.01, "{kv_20k}");
    let learn = config.rl_learn_config().report().unwrap();
    let logits = learn.activations.unwrap().embeddings_and_logits.get();
    let fp32_logits = 8.0 * 20_480.0 * 128_256.0 * 4.0;
    assert!(
        (fp32_logits / gib - 78.3).abs() < 0.05,
        "{}",
        fp32_logits / gib
    );
    // The step's logits: the fp32 copy and the 16-bit logits (6/4 of it),
    // and the few h-wide tensors beside them (under 5 %).
    let ratio = logits / fp32_logits;
    assert!((1.5..1.5 * 1.05).contains(&ratio), "{ratio}");
}

/// Offload's PCIe traffic joins the learning's time. Under DeepSpeed
/// (OpenRLHF) once an update, as training's step model times ZeRO-Offload;
/// under verl's FSDP the states go out between phases and come back for the
/// update: the learning holds them whole, host RAM holds them between, and
/// they cross PCIe once each way a step (verl 0.9.1, `workers/engine/base.py`).
#[wasm_bindgen_test(unsupported = test)]
fn offload_traffic_is_in_the_step() {
    let base =
        "job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2";
    let deepspeed = format!("{base}&rl_framework=openrlhf");
    // Awake (no DeepSpeed sleep either): nothing crosses PCIe without offload.
    let kept = rl_report_of(&format!("{deepspeed}&sleep=0")).time.unwrap();
    let (config, offloaded) = rl_case(&format!("{deepspeed}&offload=all"));
    let moved = offloaded.time.unwrap();
    let learn = config.rl_learn_config().report().unwrap();
    let pcie = learn.highlighted().time.unwrap().offload_seconds;
    assert!(pcie > 0.0);
    assert!((moved.learn_seconds - kept.learn_seconds - pcie).abs() < 1e-9 * pcie.max(1.0));
    // verl: the update holds what stays on the GPU without offload.
    let (verl_config, verl_kept) = rl_case(base);
    let (_, verl_moved) = rl_case(&format!("{base}&offload=all"));
    assert_eq!(
        verl_moved.learn.bytes(RlPart::ActorStates),
        verl_kept.learn.bytes(RlPart::ActorStates)
    );
    let memory = verl_config
        .rl_learn_config()
        .report()
        .unwrap()
        .highlighted()
        .memory;
    let out = memory.weights.get() + memory.optimizer_states.get();
    assert!(
        (verl_moved.host_bytes_per_node - verl_kept.host_bytes_per_node - 8.0 * out).abs() < 1.0,
        "{} {}",
        verl_moved.host_bytes_per_node,
        verl_kept.host_bytes_per_node
    );
    let pcie = verl_config.machine().unwrap().pcie_bytes_per_s;
    let (t_kept, t_moved) = (verl_kept.time.unwrap(), verl_moved.time.unwrap());
    assert!((t_moved.learn_seconds - t_kept.learn_seconds - 2.0 * out / pcie).abs() < 1e-6);
    // Generating, the offloaded states are not on the GPU.
    assert_eq!(
        verl_moved
            .generate
            .as_ref()
            .unwrap()
            .bytes(RlPart::TrainerResident),
        0.0
    );
}

/// Mean lengths below the longest: a micro-batch packs `mbs` sequences of
/// the means (verl's `use_remove_padding`), the step's tokens are the
/// means', the rollout engine still admits the longest; the figures at the
/// longest come beside them; a mean past its longest is named at its key.
#[wasm_bindgen_test(unsupported = test)]
fn mean_lengths_are_what_learning_packs() {
    let base = "job=rl&model=qwen2.5-7b&gpu=h800&gpus=2&dtype=bf16&stage=3&offload=all&recompute=full&mbs=16&prompt_len=1024&response_len=1024&prompts=1024&rollouts=5&rollout_tp=2&gpu_util=0.6";
    let (config, packed) = rl_case(&format!("{base}&prompt_mean=120&response_mean=300"));
    let longest = rl_report_of(base);
    assert_eq!(config.rl_learn_config().model.unwrap().seq_len, 420);
    assert_eq!(packed.tokens, 1024 * 5 * 420);
    assert_eq!(longest.tokens, 1024 * 5 * 2048);
    assert!(packed.learn.total_bytes < longest.learn.total_bytes);
    assert_eq!(packed.at_maximum.as_ref(), Some(&longest.learn));
    assert_eq!(longest.at_maximum, None);
    assert_eq!(
        packed.rollout.as_ref().unwrap().max_model_len,
        longest.rollout.as_ref().unwrap().max_model_len
    );
    for (query, key) in [
        (format!("{base}&prompt_mean=1025"), "prompt_mean"),
        (format!("{base}&response_mean=2000"), "response_mean"),
        // Past what a sequence may be at all: still the mean's key, not the
        // learner's sequence (the link contract's proptest found it).
        ("job=rl&prompt_mean=16777215".to_string(), "prompt_mean"),
    ] {
        let decoded = decode(&query);
        let keys: Vec<&str> = decoded.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, [key], "{query}");
    }
}

/// verl 0.9.1's rollout takes its own batch settings (8,192 tokens, 256
/// sequences) on any GPU, where `vllm serve` takes 2,048 and 256 on an
/// A100; OpenRLHF's keeps vLLM's (issue 61: the engine as the framework
/// runs it). A typed `max_num_seqs` wins.
#[wasm_bindgen_test(unsupported = test)]
fn the_rollout_engine_takes_the_frameworks_batch() {
    let base = "job=rl&model=qwen2.5-7b&gpu=a100-80gb&gpus=8&dtype=bf16&stage=3&recompute=full";
    let batch = |extra: &str| {
        let (_, r) = rl_case(&format!("{base}{extra}"));
        let rollout = r.rollout.expect("a rollout");
        (rollout.batched_tokens, rollout.max_num_seqs)
    };
    assert_eq!(batch(""), (8192, 256));
    assert_eq!(batch("&rl_framework=openrlhf"), (2048, 256));
    assert_eq!(batch("&max_num_seqs=512"), (8192, 512));
}

/// verl builds its actor in fp32 and computes in bf16 (the legacy
/// `fsdp_workers.py` and 0.9.1's `model_dtype: fp32`): a LoRA actor's frozen
/// base is 4 bytes a parameter on the GPU while it learns, where TRL's (built
/// in the weights' bf16) is 2; the reference by disabled adapters adds none.
/// Qwen2.5-7B, r = 32 on every linear, one H100, nothing offloaded.
#[wasm_bindgen_test(unsupported = test)]
fn verls_lora_actor_holds_its_frozen_base_in_fp32() {
    let query = |framework: &str| {
        format!(
            "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=1&dtype=bf16&stage=3&method=lora&rank=32&targets=all&recompute=full&prompt_len=512&response_len=1024&ref=adapters&mbs=16&prompts=16&rollouts=5&rollout_tp=1&gpu_util=0.2&rl_framework={framework}"
        )
    };
    let (config, verl) = rl_case(&query("verl"));
    let trl = rl_report_of(&query("trl"));
    let params = config.model.unwrap().architecture.param_count() as f64;
    let states = |r: &RlReport| r.learn.bytes(RlPart::ActorStates);
    // The adapters' own states are the same under both; the base differs by
    // 2 bytes a parameter.
    assert!(
        (states(&verl) - states(&trl) - 2.0 * params).abs() < 1.0,
        "{} {}",
        states(&verl),
        states(&trl)
    );
    // TRL's: the bf16 base and 16 bytes an adapter parameter (bf16 weight
    // and gradient, fp32 master, Adam's two moments).
    let arch = config.model.unwrap().architecture;
    let trainable =
        crate::memory::finetune::adapter_params(&arch, crate::memory::finetune::Targets::All, 32)
            as f64;
    assert!(
        (states(&trl) - 2.0 * params - 16.0 * trainable).abs() < 1.0,
        "{} {params} {trainable}",
        states(&trl)
    );
    assert_eq!(verl.learn.bytes(RlPart::Reference), 0.0);
    // A pure bf16 actor (`model_dtype: bf16`) holds 2 bytes, as TRL's.
    let pure = rl_report_of(&query("verl").replace("dtype=bf16", "dtype=bf16-pure"));
    assert!(
        (states(&pure) - states(&trl)).abs() < 1e9,
        "{}",
        states(&pure)
    );
}

/// verl asserts a step's responses (prompts × rollouts) are a multiple of
/// its GPUs under FSDP, of its Megatron data-parallel ranks × micro-batch
/// under Megatron (`RayPPOTrainer._validate_config`): said at `prompts`;
/// OpenRLHF's and TRL's runs are not held to it. A link sets aside the
/// first of the rule's keys it typed (`gpus=3` alone: the GPUs, never the
/// prompts it did not write), and what it keeps holds.
#[test]
fn verl_refuses_a_batch_its_gpus_do_not_divide() {
    let error = |query: &str| {
        let decoded = decode(query);
        assert!(decoded.config.rl_report().is_ok(), "{query}");
        decoded
            .problems
            .first()
            .and_then(|p| p.error)
            .map(|e| (e.field, e.kind))
    };
    assert_eq!(
        error("job=rl&gpus=3"),
        Some((Field::Gpus, InputErrorKind::VerlBatch { multiple_of: 3 }))
    );
    let mut config = decode("job=rl&model=qwen2.5-7b&gpus=8").config;
    config.rl.prompts = 3;
    config.rl.rollouts = 3;
    assert_eq!(
        config.rl_report().err().map(|e| (e.field, e.kind)),
        Some((Field::Prompts, InputErrorKind::VerlBatch { multiple_of: 8 }))
    );
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&offload=all";
    assert_eq!(
        error(&format!("{base}&prompts=3&rollouts=3")),
        Some((Field::Prompts, InputErrorKind::VerlBatch { multiple_of: 8 }))
    );
    assert_eq!(error(&format!("{base}&prompts=4&rollouts=2")), None);
    assert_eq!(
        error(&format!(
            "{base}&prompts=3&rollouts=3&rl_framework=openrlhf"
        )),
        None
    );
    // The Megatron actor: 8 GPUs ÷ TP 2 = 4 ranks × micro-batch 2.
    let megatron = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=1&tp=2&mbs=2";
    assert_eq!(
        error(&format!("{megatron}&prompts=6&rollouts=2")),
        Some((Field::Prompts, InputErrorKind::VerlBatch { multiple_of: 8 }))
    );
    assert_eq!(error(&format!("{megatron}&prompts=4&rollouts=2")), None);
}

/// verl's SGLang rollout (`rollout.name=sglang`): SGLang takes its pool as
/// `mem_fraction_static` of the memory free at its start, less its weights
/// (`pool_bytes`, SGLang 0.5.23), and under verl the trainer's resident
/// states and CUDA context are already there; asleep it frees the pool and
/// its weights, backed up in host RAM. Qwen2.5-7B on 8 H100s, verl's 0.5,
/// the actor's optimizer offloaded (its fp32 parameters stay: 30.5 GB).
#[wasm_bindgen_test(unsupported = test)]
fn verls_sglang_rollout_sizes_its_pool_from_free_memory() {
    use vram_serve::options::Engine;
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=ddp&offload=optimizer&recompute=full&overhead=0";
    let (config, sglang) = rl_case(&format!("{base}&engine=sglang"));
    let (_, vllm) = rl_case(base);
    assert_eq!(config.rl_engine(), Engine::Sglang);
    assert_eq!(sglang.rollout_engine, Some(Engine::Sglang));
    assert_eq!(vllm.rollout_engine, Some(Engine::Vllm));
    let generate = sglang.generate.as_ref().unwrap();
    let resident = generate.bytes(RlPart::TrainerResident);
    let weights = generate.bytes(RlPart::EngineWeights);
    assert!((resident - 30.46e9).abs() < 0.01e9, "{resident}");
    // The trainer's resident fp32 parameters and the default CUDA context.
    let held = resident + vram_shared::process::CUDA_CONTEXT_BYTES as f64;
    assert!((sglang.held_at_start_bytes as f64 - held).abs() < 1.0);
    let cuda_total = f64::from(config.gpu.unwrap().memory_mib) * 1_048_576.0
        - vram_serve::report::DRIVER_RESERVE_BYTES as f64;
    let pool = 0.5 * (cuda_total - held) - weights;
    let kv = generate.bytes(RlPart::EngineKv);
    assert!((kv - pool).abs() < 1e6, "{kv} {pool}");
    // No overheads counted apart: SGLang keeps the rest of the free memory back.
    assert_eq!(generate.bytes(RlPart::EngineOverheads), 0.0);
    // Asleep: nothing of the pool or the weights on the GPU; the weights
    // in host RAM, where vLLM at verl's level 2 discards them.
    assert_eq!(sglang.learn.bytes(RlPart::EngineAsleep), 0.0);
    let host_gap = sglang.host_bytes_per_node - vllm.host_bytes_per_node;
    assert!((host_gap - 8.0 * weights).abs() < 1e6, "{host_gap}");
}

/// A critic and a reward model of their own size (issue 61): OpenRLHF's
/// PPO of Llama 3 70B with an 8B critic and reward model counts each as
/// the 8B's body with a one-output head — the critic trained as the actor
/// is (its states per parameter), the reward model frozen in 16 bits like
/// the reference — and their forward passes at their size.
#[wasm_bindgen_test(unsupported = test)]
fn a_critic_and_a_reward_model_of_their_own_size() {
    let base = "job=rl&algo=ppo&model=llama3-70b&gpu=h100-80gb&gpus=8&nodes=4&dtype=bf16&stage=3&recompute=full&reward=model&rl_framework=openrlhf&ref_offload=0&sleep=0";
    let (_, same) = rl_case(base);
    let (config, small) = rl_case(&format!(
        "{base}&critic_model=llama3-8b&reward_model=llama3-8b"
    ));
    let actor = config.model.unwrap().architecture;
    let eight = vram_shared::model::presets::model_preset("llama3-8b")
        .unwrap()
        .architecture;
    let value = |a: &vram_shared::model::architecture::Architecture| {
        a.param_count() as f64 - f64::from(a.vocab) * f64::from(a.hidden) + f64::from(a.hidden)
    };
    assert_eq!(value_model_params(&eight), value(&eight));
    let states = small.learn.bytes(RlPart::ActorStates);
    let reference = small.learn.bytes(RlPart::Reference);
    let of_actor = |share: f64| share / actor.param_count() as f64;
    let critic = small.learn.bytes(RlPart::Critic);
    assert!(
        (critic - states * of_actor(value(&eight))).abs() < 1.0,
        "{critic}"
    );
    let reward = small.learn.bytes(RlPart::RewardModel);
    assert!(
        (reward - reference * of_actor(value(&eight))).abs() < 1.0,
        "{reward}"
    );
    // The actor's own: its body with a value head, as large as the actor but its head.
    assert!((same.learn.bytes(RlPart::Critic) - states * of_actor(value(&actor))).abs() < 1.0);
    // An 8B critic and scorer take about a ninth of the 70B's passes.
    let (small_time, same_time) = (small.time.unwrap(), same.time.unwrap());
    assert!(small_time.log_prob_seconds < 0.62 * same_time.log_prob_seconds);
    assert!(small_time.learn_seconds < 0.6 * same_time.learn_seconds);
}

/// verl's FSDP actor over more than one GPU keeps its root unit (the
/// embedding, final norm and untied head) whole in 16 bits through the
/// forward and backward (torch FSDP1's `_post_forward_reshard` spares the
/// root; FSDP2 does not reshard it): Qwen2.5-7B's 2 × (2 × 152,064 × 3,584
/// + 3,584) bytes on 8 GPUs; none on one GPU (NO_SHARD), under ZeRO-2
/// (every unit whole already), Megatron's actor or OpenRLHF's DeepSpeed.
#[wasm_bindgen_test(unsupported = test)]
fn verls_fsdp_keeps_its_root_unit_whole() {
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&dtype=bf16&recompute=full&overhead=0";
    let root = |extra: &str| {
        rl_report_of(&format!("{base}{extra}"))
            .learn
            .bytes(RlPart::FsdpRoot)
    };
    let whole = 2.0 * (2.0 * 152_064.0 * 3584.0 + 3584.0);
    let held_whole_only = ["&gpus=8&stage=3"];
    for extra in [
        "&gpus=8&stage=3",
        "&gpus=1&stage=3",
        "&gpus=8&stage=2",
        "&gpus=8&stage=1&tp=2",
        "&gpus=8&stage=3&rl_framework=openrlhf",
    ] {
        let want = if held_whole_only.contains(&extra) {
            whole
        } else {
            0.0
        };
        assert_eq!(root(extra), want, "{extra}");
    }
}

/// OpenRLHF's DeepSpeed sleep (`--ds.enable_sleep`, exported with vLLM's
/// when colocated): outside their own update the actor and the critic keep
/// only their 16-bit weight shards on the GPU (`offload_deepspeed_states`
/// moves optimizer states, fp32 masters and gradients to host RAM), the
/// critic updated before the actor: the engine generates beside those
/// shards, the actor learns beside the critic's, and what moved crosses
/// PCIe each way once a step. Not under Adam's offload, nor awake.
#[wasm_bindgen_test(unsupported = test)]
fn openrlhfs_deepspeed_sleep_keeps_the_16_bit_shards() {
    let base = "job=rl&algo=ppo&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2&rl_framework=openrlhf";
    let (config, asleep) = rl_case(base);
    let (_, awake) = rl_case(&format!("{base}&sleep=0"));
    assert!(config.rl_deepspeed_sleeps());
    let memory = config
        .rl_learn_config()
        .report()
        .unwrap()
        .highlighted()
        .memory;
    let (weights, rest) = (
        memory.weights.get(),
        memory.optimizer_states.get() + memory.gradients.get(),
    );
    let generate = asleep.generate.as_ref().unwrap();
    assert_eq!(generate.bytes(RlPart::TrainerResident), weights);
    let share = (7_615_616_512.0 - 152_064.0 * 3584.0 + 3584.0) / 7_615_616_512.0;
    assert!((asleep.learn.bytes(RlPart::Critic) - share * weights).abs() < 1.0);
    assert!(
        awake.learn.bytes(RlPart::Critic)
            > asleep.learn.bytes(RlPart::Critic) + rest * share * 0.99
    );
    assert!((asleep.host_bytes_per_node - awake.host_bytes_per_node - 8.0 * rest).abs() < 1e6);
    let pcie = config.machine().unwrap().pcie_bytes_per_s;
    let (t_asleep, t_awake) = (asleep.time.unwrap(), awake.time.unwrap());
    assert!((t_asleep.learn_seconds - t_awake.learn_seconds - 2.0 * rest / pcie).abs() < 1e-6);
    let (adam, _) = rl_case(&format!("{base}&offload=optimizer"));
    assert!(!adam.rl_deepspeed_sleeps());
}

/// TensorRT-LLM as verl's rollout engine (`rollout.name=trtllm`): its KV
/// cache is `free_gpu_memory_fraction` (verl's `gpu_memory_utilization`) of
/// the memory free after its profiling run, the trainer's share already
/// taken (`KvCacheCreator.configure_kv_cache_capacity`); asleep it keeps
/// neither cache nor weights, nothing in host RAM (`SleepConfig` restore
/// modes `NONE`).
#[wasm_bindgen_test(unsupported = test)]
fn verls_trtllm_rollout_takes_a_share_of_what_is_free() {
    let base = "job=rl&model=qwen2.5-7b&gpu=h100-80gb&gpus=8&dtype=bf16&stage=ddp&offload=optimizer&recompute=full&overhead=0&sleep=2";
    let (config, r) = rl_case(&format!("{base}&engine=trtllm"));
    assert_eq!(r.rollout_engine, Some(vram_serve::options::Engine::TrtLlm));
    let generate = r.generate.as_ref().unwrap();
    let engine = r.rollout.as_ref().unwrap();
    let cuda_total = f64::from(config.gpu.unwrap().memory_mib) * 1_048_576.0
        - vram_serve::report::DRIVER_RESERVE_BYTES as f64;
    let peak = engine.weights_bytes.ceil() + generate.bytes(RlPart::EngineOverheads);
    let free = cuda_total - r.held_at_start_bytes as f64 - peak;
    let kv = generate.bytes(RlPart::EngineKv);
    assert!(
        (kv - 0.5 * free).abs() < 1e6 + 0.001 * kv,
        "{kv} {}",
        0.5 * free
    );
    let asleep = r.learn.bytes(RlPart::EngineAsleep);
    assert!(asleep < engine.weights_bytes, "{asleep}");
    // A model whose layers TensorRT-LLM's allocation does not reproduce
    // (gpt-oss's windows): a link sets `engine` aside, the rollout vLLM's.
    let decoded = decode("job=rl&engine=trtllm&model=gpt-oss-20b");
    assert_eq!(
        decoded.problems.first().map(|p| p.key.as_str()),
        Some("engine")
    );
    let report = decoded.config.rl_report().unwrap();
    assert_eq!(
        report.rollout_engine,
        Some(vram_serve::options::Engine::Vllm)
    );
}
