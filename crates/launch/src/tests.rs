//! The exports of known plans, pinned line by line, and the refusals.

use super::*;
use vram_core::input::link;

fn export_of(query: &str, target: Target) -> Result<String, Refusal> {
    let config = link::decode(query).config;
    export(&config, target, "LINK")
}

/// Asserts that each of `expected` is a whole line of `text`.
fn assert_lines(text: &str, expected: &[&str]) {
    for expected in expected {
        assert!(
            text.lines().any(|l| l == *expected),
            "{expected} in\n{text}"
        );
    }
}

/// Asserts that each of `expected` is a line of `text` without its indent
/// (a command's arguments, one a line).
fn assert_trimmed_lines(text: &str, expected: &[&str]) {
    for expected in expected {
        assert!(
            text.lines().any(|l| l.trim() == *expected),
            "{expected} in\n{text}"
        );
    }
}

/// `query`'s export to `target`, which must answer, each of `expected` a
/// line of it as `assert` checks ([`assert_lines`], [`assert_trimmed_lines`]).
fn export_with(
    query: &str,
    target: Target,
    assert: fn(&str, &[&str]),
    expected: &[&str],
) -> String {
    let text = export_of(query, target).unwrap();
    assert(&text, expected);
    text
}

/// The lesson's ZeRO-2 on 8 GPUs, as a DeepSpeed JSON: stage 2, FP16, the
/// buckets at DeepSpeed's defaults and one sequence a GPU.
#[test]
fn the_lessons_zero2_as_deepspeed_json() {
    let text = export_of("v=2&stage=2", Target::DeepSpeed).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["zero_optimization"]["stage"], 2);
    assert_eq!(json["zero_optimization"]["reduce_bucket_size"], 500_000_000);
    assert_eq!(
        json["zero_optimization"]["allgather_bucket_size"],
        500_000_000
    );
    assert_eq!(json["fp16"]["enabled"], true);
    assert_eq!(json["train_batch_size"], 8);
    assert_eq!(json["train_micro_batch_size_per_gpu"], 1);
    assert_eq!(json["gradient_accumulation_steps"], 1);
    assert!(json
        .get("zero_optimization")
        .unwrap()
        .get("offload_optimizer")
        .is_none());
}

/// ZeRO-3 with everything offloaded to NVMe on 2 nodes, a global batch of
/// 64 at micro-batch 2: 16 GPUs, 2 accumulation steps.
#[test]
fn zero3_offloaded_with_accumulation() {
    let text = export_of(
        "v=2&model=llama2-7b&stage=3&offload=all&offload_to=nvme&nodes=2&mbs=2&global_batch=64&dtype=bf16",
        Target::DeepSpeed,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let zero = &json["zero_optimization"];
    assert_eq!(zero["stage"], 3);
    assert_eq!(zero["offload_param"]["device"], "nvme");
    assert_eq!(zero["offload_optimizer"]["device"], "nvme");
    assert_eq!(zero["stage3_prefetch_bucket_size"], 50_000_000);
    assert_eq!(zero["stage3_max_live_parameters"], 1_000_000_000);
    assert_eq!(json["bf16"]["enabled"], true);
    assert_eq!(json["train_batch_size"], 64);
    assert_eq!(json["train_micro_batch_size_per_gpu"], 2);
    assert_eq!(json["gradient_accumulation_steps"], 2);
    assert_eq!(
        launch_line(&link::decode("v=2&nodes=2").config, Target::DeepSpeed).unwrap(),
        "deepspeed --num_nodes 2 --num_gpus 8 train.py --deepspeed ds_config.json"
    );
    // The allocator's and NCCL's settings the plan assumes go with it.
    assert_eq!(
        launch_line(
            &link::decode("v=2&expandable=1&nvls=0").config,
            Target::DeepSpeed
        )
        .unwrap(),
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True NCCL_NVLS_ENABLE=0 \
         deepspeed --num_nodes 1 --num_gpus 8 train.py --deepspeed ds_config.json"
    );
}

/// What DeepSpeed's JSON cannot say is refused with the reason.
#[test]
fn deepspeed_refuses_what_it_does_not_run() {
    assert_eq!(
        export_of("v=2&model=llama2-7b&tp=2", Target::DeepSpeed),
        Err(Refusal::ModelParallel)
    );
    assert_eq!(
        export_of("v=2&stage=3&sharding=fsdp2", Target::DeepSpeed),
        Err(Refusal::Fsdp2)
    );
    assert_eq!(
        export_of("v=2&dtype=fp8&model=llama2-7b", Target::DeepSpeed),
        Err(Refusal::Precision)
    );
    assert_eq!(
        export_of("v=2&job=serve&model=llama3.1-8b", Target::DeepSpeed),
        Err(Refusal::OtherJob { wants: Job::Train })
    );
}

/// torchtitan's chunked loss is 0.3.0's, set in its Python configs: every
/// training framework's text (torchtitan 0.2.2's TOML included) computes the loss
/// over the whole logits, so each refuses a plan that counts it chunked,
/// and the same plan with the compiled loss exports.
#[test]
fn a_chunked_loss_is_refused_by_every_training_framework() {
    let base = "v=3&model=llama3.1-8b&gpu=h100-80gb&dtype=bf16&stage=3&sharding=fsdp2";
    for target in [Target::Torchtitan, Target::Accelerate] {
        assert_eq!(
            export_of(&format!("{base}&loss=chunked"), target),
            Err(Refusal::ChunkedLoss),
            "{target:?}"
        );
        assert!(export_of(base, target).is_ok(), "{target:?}");
    }
    let megatron = "v=3&model=llama3.1-8b&gpu=h100-80gb&dtype=bf16&tp=2&loss=chunked";
    assert_eq!(
        export_of(megatron, Target::Megatron),
        Err(Refusal::ChunkedLoss)
    );
    let deepspeed = "v=3&model=llama3.1-8b&gpu=h100-80gb&dtype=bf16&stage=3&loss=chunked";
    assert_eq!(
        export_of(deepspeed, Target::DeepSpeed),
        Err(Refusal::ChunkedLoss)
    );
    // A compiled loss: torchtitan's `[compile]` alone compiles it.
    let compiled = format!("{base}&loss=compiled");
    let toml = export_of(&compiled, Target::Torchtitan).expect("torchtitan");
    assert!(
        toml.contains("[compile]\nenable = true\ncomponents = [\"loss\"]"),
        "{toml}"
    );
    for target in [Target::Accelerate, Target::DeepSpeed] {
        assert_eq!(
            export_of(&compiled, target),
            Err(Refusal::CompiledLoss),
            "{target:?}"
        );
    }
    assert_eq!(
        export_of(&megatron.replace("chunked", "compiled"), Target::Megatron),
        Err(Refusal::CompiledLoss)
    );
    // torchtune's chunked output loss: no framework the page writes for runs it.
    for target in [Target::Torchtitan, Target::Accelerate, Target::DeepSpeed] {
        assert_eq!(
            export_of(&format!("{base}&loss=chunked_output"), target),
            Err(Refusal::ChunkedOutputLoss),
            "{target:?}"
        );
    }
}

/// Llama 2 70B with TP 8 × PP 2, virtual stages, selective recomputation
/// and the distributed optimizer, as Megatron-LM's arguments.
#[test]
fn megatron_arguments_of_a_3d_layout() {
    let text = export_of(
        "v=2&model=llama2-70b&gpu=h100-80gb&nodes=4&tp=8&pp=2&vpp=5&sp=1&stage=1&dtype=bf16&recompute=selective&seq=4096&global_batch=1024",
        Target::Megatron,
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# LINK");
    assert_lines(
        &text,
        &[
            "--num-layers 80",
            "--hidden-size 8192",
            "--ffn-hidden-size 28672",
            "--num-attention-heads 64",
            "--group-query-attention",
            "--num-query-groups 8",
            "--seq-length 4096",
            "--swiglu",
            "--normalization RMSNorm",
            "--disable-bias-linear",
            "--untie-embeddings-and-output-weights",
            "--tensor-model-parallel-size 8",
            "--sequence-parallel",
            "--pipeline-model-parallel-size 2",
            "--num-virtual-stages-per-pipeline-rank 5",
            "--use-distributed-optimizer",
            "--recompute-granularity selective",
            "--bf16",
            "--micro-batch-size 1",
            "--global-batch-size 1024",
        ],
    );
    assert!(!text.contains("--recompute-modules"), "{text}");
    // TP before Blackwell: validate_args wants CUDA_DEVICE_MAX_CONNECTIONS=1.
    assert!(lines[1].starts_with("# CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun"));
}

/// ZeRO-3 as Megatron-LM runs it (megatron-core 0.19.2's `validate_args`):
/// PyTorch's FSDP2 without gradient accumulation fusion, nor
/// `CUDA_DEVICE_MAX_CONNECTIONS=1`; Megatron-FSDP where FSDP2 is refused
/// (PP, tied embeddings); the optimizer's offload with the
/// precision-aware optimizer; the checkpoint's rotary base.
#[test]
fn megatron_zero3_and_offload_as_validate_args_wants() {
    let fsdp2 = export_with(
        "v=3&model=llama3.1-8b&gpu=h100-80gb&tp=2&stage=3&sharding=fsdp2&dtype=bf16",
        Target::Megatron,
        assert_lines,
        &[
            "--use-torch-fsdp2",
            "--no-gradient-accumulation-fusion",
            "--ckpt-format torch_dist",
            "--rotary-base 500000",
            "--use-rope-scaling",
        ],
    );
    assert!(!fsdp2.contains("CUDA_DEVICE_MAX_CONNECTIONS"), "{fsdp2}");
    for query in [
        "v=3&model=llama3.1-70b&gpu=h100-80gb&nodes=4&pp=4&stage=3&dtype=bf16",
        "v=3&model=qwen3-0.6b&stage=3&dtype=bf16",
    ] {
        let text = export_with(
            query,
            Target::Megatron,
            assert_lines,
            &[
                "--use-megatron-fsdp",
                "--data-parallel-sharding-strategy optim_grads_params",
                "--ckpt-format fsdp_dtensor",
            ],
        );
        assert!(!text.contains("--use-torch-fsdp2"), "{text}");
    }
    export_with(
        "v=3&model=llama3.1-8b&stage=2&offload=optimizer&dtype=bf16",
        Target::Megatron,
        assert_lines,
        &["--optimizer-cpu-offload", "--use-precision-aware-optimizer"],
    );
    // What no flag says: full-width q/k norms, a sliding window.
    for model in ["olmo2-7b", "gemma2-9b"] {
        assert_eq!(
            export_of(
                &format!("v=3&model={model}&stage=1&dtype=bf16"),
                Target::Megatron
            ),
            Err(Refusal::Architecture)
        );
    }
}

/// Full recomputation in blocks, uneven stages, FP8 with FP8 parameters.
#[test]
fn megatron_uneven_stages_and_fp8() {
    export_with(
        "v=2&model=llama3.1-70b&gpu=h100-80gb&nodes=2&tp=4&pp=4&pp_first=19&pp_last=19&stage=1&dtype=fp8-params&recompute=full&recompute_method=block&recompute_layers=4",
        Target::Megatron,
        assert_lines,
        &[
            "--decoder-first-pipeline-num-layers 19",
            "--decoder-last-pipeline-num-layers 19",
            "--recompute-granularity full",
            "--recompute-method block",
            "--recompute-num-layers 4",
            "--fp8-format hybrid",
            "--fp8-param-gather",
        ],
    );
    assert_eq!(
        export_of("v=2&model=llama2-7b&method=lora", Target::Megatron),
        Err(Refusal::Adapters)
    );
    assert_eq!(export_of("v=2", Target::Megatron), Err(Refusal::NeedsModel));
}

/// Llama 3.1 8B under FSDP2 with HSDP groups of 8 on 4 nodes, as
/// torchtitan's TOML.
#[test]
fn torchtitan_hsdp() {
    export_with(
        "v=2&model=llama3.1-8b&gpu=h100-80gb&nodes=4&stage=3&sharding=fsdp2&shard_group=8&dtype=bf16&recompute=full&seq=8192",
        Target::Torchtitan,
        assert_lines,
        &[
            "name = \"llama3\"",
            "flavor = \"8B\"",
            "data_parallel_replicate_degree = 4",
            "data_parallel_shard_degree = 8",
            "fsdp_reshard_after_forward = \"always\"",
            "seq_len = 8192",
            "global_batch_size = 32",
            "mode = \"full\"",
            "mixed_precision_param = \"bfloat16\"",
        ],
    );
    assert_eq!(
        export_of(
            "v=2&model=llama3.1-8b&stage=1&dtype=bf16",
            Target::Torchtitan
        ),
        Err(Refusal::Strategy(Strategy::Zero1))
    );
    assert_eq!(
        export_of(
            "v=2&model=llama3.1-8b&stage=3&dtype=bf16",
            Target::Torchtitan
        ),
        Err(Refusal::DeepSpeedSharding)
    );
    assert_eq!(
        export_of(
            "v=2&model=llama3.1-8b&stage=3&sharding=fsdp2&offload=optimizer&dtype=bf16",
            Target::Torchtitan
        ),
        Err(Refusal::OptimizerOnlyOffload)
    );
}

/// QLoRA under DeepSpeed's ZeRO-2 plugin, as accelerate's YAML and the
/// configurations the script passes.
#[test]
fn accelerate_with_qlora() {
    export_with(
        "v=2&model=llama2-7b&method=qlora&rank=16&targets=all&stage=2&dtype=bf16&recompute=full&mbs=4",
        Target::Accelerate,
        assert_lines,
        &[
            "distributed_type: DEEPSPEED",
            "  zero_stage: 2",
            "  offload_optimizer_device: none",
            "mixed_precision: bf16",
            "num_processes: 8",
            "# TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=1, gradient_checkpointing=True, bf16=True, optim=\"adamw_torch_fused\")",
            "# LoraConfig(r=16, target_modules=\"all-linear\", lora_dropout=0)",
            "# BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)",
        ],
    );
    // Figures counted for bitsandbytes before 0.43.2 say which release they need.
    let qlora = "v=2&model=llama2-7b&method=qlora&rank=16&targets=all&stage=2&dtype=bf16&recompute=full&mbs=4";
    let pin = "# pip install \"bitsandbytes<=0.43.1\"";
    let old = export_of(&format!("{qlora}&bnb=0.43.1"), Target::Accelerate).unwrap();
    assert!(old.contains(pin), "{old}");
    assert!(!export_of(qlora, Target::Accelerate).unwrap().contains(pin));
    let fsdp = export_of(
        "v=2&model=llama2-7b&stage=3&sharding=fsdp2&dtype=bf16",
        Target::Accelerate,
    )
    .unwrap();
    assert!(
        fsdp.contains("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n"),
        "{fsdp}"
    );
    // FSDP checkpoints the layers itself: transformers' Trainer refuses
    // gradient_checkpointing beside it. HSDP is accelerate's
    // parallelism_config.
    let hsdp = export_with(
        "v=3&model=llama3.1-8b&nodes=2&stage=3&sharding=fsdp2&shard_group=8&dtype=bf16&recompute=full",
        Target::Accelerate,
        assert_lines,
        &[
            "  fsdp_activation_checkpointing: true",
            "  parallelism_config_dp_replicate_size: 2",
            "  parallelism_config_dp_shard_size: 8",
        ],
    );
    assert!(!hsdp.contains("gradient_checkpointing=True"), "{hsdp}");
    // DeepSpeed 0.19.8 removed MiCS: no sharding group under DeepSpeed.
    assert_eq!(
        export_of(
            "v=3&model=llama3.1-8b&nodes=2&stage=3&shard_group=8&dtype=bf16",
            Target::DeepSpeed
        ),
        Err(Refusal::ShardGroup)
    );
}

/// The issue 44 deployment as `vllm serve` and, under SGLang, its launch.
#[test]
fn the_deployment_as_engine_command_lines() {
    let query = "v=2&job=serve&model=llama3.1-70b&gpu=h100-80gb&gpus=2&tp=2&max_len=32768&kv_dtype=fp8&weights=fp8";
    let text = export_of(query, Target::Vllm).unwrap();
    assert!(
        text.starts_with("# LINK\nvllm serve meta-llama/Llama-3.1-70B-Instruct \\\n"),
        "{text}"
    );
    assert_trimmed_lines(
        &text,
        &[
            "--tensor-parallel-size 2 \\",
            "--max-model-len 32768 \\",
            "--gpu-memory-utilization 0.92 \\",
            "--kv-cache-dtype fp8 \\",
            "--quantization fp8",
        ],
    );
    assert_eq!(export_of(query, Target::Sglang), Err(Refusal::OtherEngine));
    let sglang = export_of(&format!("{query}&engine=sglang"), Target::Sglang).unwrap();
    assert!(sglang.contains("--kv-cache-dtype fp8_e4m3"), "{sglang}");
    assert!(sglang.contains("--context-length 32768"), "{sglang}");
}

/// verl's overrides as one command.
#[test]
fn verl_as_a_command() {
    let text = export_of(
        "v=2&job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2",
        Target::Verl,
    )
    .unwrap();
    assert!(
        text.starts_with(
            "# LINK\npython3 -m verl.trainer.main_ppo \\\n    algorithm.adv_estimator=grpo \\\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("trainer.nnodes=1\n"), "{text}");
    // What verl's config leaves mandatory or validates (issue 62: the
    // export could not start).
    assert_trimmed_lines(
        &text,
        &[
            "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \\",
            "actor_rollout_ref.rollout.name=vllm \\",
            "actor_rollout_ref.actor.ppo_mini_batch_size=256 \\",
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \\",
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \\",
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \\",
            // The engine as the page counts it: verl 0.9.1's rollout.yaml
            // caps max_num_seqs at 256 and leaves max_model_len to the
            // checkpoint's max_position_embeddings.
            "actor_rollout_ref.rollout.max_model_len=2048 \\",
            "actor_rollout_ref.rollout.max_num_batched_tokens=8192 \\",
            "actor_rollout_ref.rollout.max_num_seqs=256 \\",
        ],
    );
    // PPO's critic is the actor's checkpoint, micro-batch and states (verl's
    // default critic.model.path is ~/models/deepseek-llm-7b-chat, and
    // CriticConfig asks for a micro-batch); LoRA on the layers counted.
    let ppo = export_with(
        "v=2&job=rl&algo=ppo&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=2&offload=optimizer&mbs=2&method=lora&rank=16&targets=qv",
        Target::Verl,
        assert_trimmed_lines,
        &[
            "algorithm.adv_estimator=gae \\",
            "actor_rollout_ref.actor.fsdp_config.reshard_after_forward=False \\",
            "'actor_rollout_ref.model.target_modules=[q_proj,v_proj]' \\",
            "critic.model.path=Qwen/Qwen2.5-7B-Instruct \\",
            "critic.ppo_micro_batch_size_per_gpu=2 \\",
            "critic.fsdp.optimizer_offload=True \\",
            "critic.model.lora_rank=16 \\",
        ],
    );
    assert!(!ppo.contains("critic.enable"), "{ppo}");
    export_with(
        "v=2&job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&token_budget=16384&max_num_seqs=256",
        Target::Verl,
        assert_trimmed_lines,
        &[
            "actor_rollout_ref.rollout.max_num_seqs=256 \\",
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True \\",
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=16384 \\",
        ],
    );
}

/// The issue 45 GRPO run in OpenRLHF's dotted flags and TRL's GRPOConfig;
/// TRL refuses PPO.
#[test]
fn grpo_as_openrlhf_and_trl() {
    let query =
        "v=2&job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2";
    export_with(
        query,
        Target::OpenRlhf,
        assert_trimmed_lines,
        &[
            "--actor.num_gpus_per_node 8 \\",
            "--train.colocate_all \\",
            "--vllm.num_engines 4 \\",
            "--vllm.tensor_parallel_size 2 \\",
            "--algo.advantage.estimator group_norm \\",
            "--rollout.n_samples_per_prompt 8 \\",
            "--train.batch_size 2048 \\",
            "--ds.zero_stage 3 \\",
        ],
    );
    export_with(
        query,
        Target::Trl,
        assert_trimmed_lines,
        &[
            "num_generations=8,",
            "generation_batch_size=2048,",
            "gradient_accumulation_steps=256,",
            "vllm_mode=\"colocate\",",
            "vllm_tensor_parallel_size=2,",
            "max_completion_length=1024,",
        ],
    );
    assert_eq!(
        export_of(&format!("{query}&algo=ppo"), Target::Trl),
        Err(Refusal::Algorithm)
    );
    let dpo = export_of(&format!("{query}&algo=dpo&ref=precomputed"), Target::Trl).unwrap();
    assert!(
        dpo.contains("DPOConfig(") && dpo.contains("precompute_ref_log_probs=True"),
        "{dpo}"
    );
    // OpenRLHF's `--ds.lora.target_modules` is `nargs="*"`: `all-linear`
    // is left to its default (the string PEFT reads as the shorthand).
    let lora_on = |targets: &str| {
        export_of(
            &format!("{query}&method=lora&targets={targets}"),
            Target::OpenRlhf,
        )
        .unwrap()
    };
    let all = lora_on("all");
    assert!(
        all.contains("--ds.lora.rank 8") && !all.contains("target_modules"),
        "{all}"
    );
    let attn = lora_on("attn");
    assert!(
        attn.contains("--ds.lora.target_modules q_proj k_proj v_proj o_proj"),
        "{attn}"
    );
}

/// Every target refuses or answers for every job without panicking, and
/// a target is offered only for its job.
#[test]
fn every_target_answers_every_job() {
    for query in [
        "v=2",
        "v=2&model=llama2-7b&stage=3",
        "v=2&job=serve&model=llama3.1-8b",
        "v=2&job=serve&model=llama3.1-8b&engine=sglang",
        "v=2&job=rl&model=qwen2.5-7b",
    ] {
        let config = link::decode(query).config;
        for target in Target::ALL {
            let offered = Target::of(&config).any(|t| t == target);
            let outcome = export(&config, target, "LINK");
            if target.job() != config.job {
                assert!(!offered);
                assert_eq!(
                    outcome,
                    Err(Refusal::OtherJob {
                        wants: target.job()
                    })
                );
            }
        }
    }
}

/// What the RL frameworks do not run as planned is refused, each with its
/// reason: verl's main_ppo trains no DPO, serves a teacher apart and puts
/// the engine on GPUs of its own only off-policy; OpenRLHF removed its
/// distillation trainer.
#[test]
fn rl_frameworks_refuse_what_they_do_not_run() {
    let rl = "v=2&job=rl&model=qwen2.5-7b&gpu=h100-80gb&dtype=bf16&stage=3";
    assert_eq!(
        export_of(&format!("{rl}&algo=dpo"), Target::Verl),
        Err(Refusal::Dpo)
    );
    let distill = format!("{rl}&algo=distill&teacher=qwen2.5-32b");
    assert_eq!(
        export_of(&distill, Target::Verl),
        Err(Refusal::Distillation)
    );
    assert_eq!(
        export_of(&distill, Target::OpenRlhf),
        Err(Refusal::Distillation)
    );
    assert!(export_of(&distill, Target::Trl)
        .unwrap()
        .contains("teacher_model_name_or_path=\"Qwen/Qwen2.5-32B-Instruct\""));
    let split = format!("{rl}&placement=split&rollout_gpus=4");
    assert_eq!(
        export_of(&split, Target::Verl),
        Err(Refusal::SplitPlacement)
    );
    let openrlhf = export_of(&split, Target::OpenRlhf).unwrap();
    assert!(!openrlhf.contains("--train.colocate_all"), "{openrlhf}");
    assert!(openrlhf.contains("--vllm.num_engines 4"), "{openrlhf}");
}

/// An RL run's own framework is offered first, and a training run's
/// LitGPT under `framework=litgpt`; the others in their order.
#[test]
fn the_runs_framework_comes_first() {
    let targets = |q: &str| Target::of(&link::decode(q).config).collect::<Vec<_>>();
    assert_eq!(
        targets("job=rl"),
        [Target::Verl, Target::OpenRlhf, Target::Trl]
    );
    assert_eq!(
        targets("job=rl&rl_framework=trl"),
        [Target::Trl, Target::Verl, Target::OpenRlhf]
    );
    assert_eq!(
        targets("v=2"),
        [
            Target::DeepSpeed,
            Target::Megatron,
            Target::Torchtitan,
            Target::Accelerate,
            Target::LitGpt,
        ]
    );
    // Counted as LitGPT keeps it, LitGPT's command comes first.
    assert_eq!(
        targets("v=3&model=llama2-7b&dtype=bf16-pure&framework=litgpt")[0],
        Target::LitGpt
    );
}

/// LitGPT's command for the run its published table measured (Phi-2, LoRA
/// on every linear, 4 × 512 tokens, one A10G: 13.98 GB, the page 13.92):
/// `finetune_lora` with what the figures count, every adapter flag
/// written, the head's adapter off (the page does not count it). Its own
/// parser (jsonargparse over `finetune/lora.py`'s `setup`, as `litgpt`'s
/// CLI builds it) accepts the command (run by hand: LitGPT 0.4.13).
#[test]
fn litgpt_writes_the_lora_run_its_figures_count() {
    let phi2 = "v=3&model=config-json&layers=32&hidden=2560&ffn=10240&heads=32&kv_heads=32&vocab=51200&tied=0&mlp=gelu&norm=layernorm&biases=all&parallel=1&gpu_mem=24&gpus=1&dtype=bf16-pure&method=lora&rank=8&targets=all&lora_dropout=0.05&adapter_dtype=model&seq=512&mbs=4&overhead=0&framework=litgpt";
    let text = export_with(
        phi2,
        Target::LitGpt,
        assert_trimmed_lines,
        &[
            "litgpt finetune_lora /path/to/checkpoint \\",
            "--precision bf16-true \\",
            "--devices 1 \\",
            "--lora_r 8 \\",
            "--lora_dropout 0.05 \\",
            "--lora_query true --lora_key true --lora_value true \\",
            "--lora_projection true --lora_mlp true --lora_head false \\",
            "--train.micro_batch_size 4 \\",
            "--train.global_batch_size 4 \\",
            "--train.max_seq_length 512 \\",
            "--optimizer AdamW",
        ],
    );
    assert!(text.starts_with("# LINK\n"), "{text}");
    assert!(
        !text.contains("litgpt download"),
        "a custom checkpoint: {text}"
    );
}

/// QLoRA on one GPU with the bitsandbytes the figures assume, and full
/// training on four GPUs as LitGPT shards them (FSDP, every block
/// checkpointed: the page's ZeRO-3 with full recomputation).
#[test]
fn litgpt_writes_qlora_and_sharded_full_training() {
    let qlora = "v=3&model=llama2-7b&gpus=1&gpu=a100-40gb&dtype=bf16-pure&method=qlora&adapter_dtype=model&bnb=0.43.1&lora_dropout=0.05&seq=1304&framework=litgpt";
    let text = export_with(
        qlora,
        Target::LitGpt,
        assert_trimmed_lines,
        &[
            "# pip install \"bitsandbytes<=0.43.1\"",
            "# litgpt download meta-llama/Llama-2-7b-hf",
            "litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf \\",
            "--quantize bnb.nf4-dq \\",
            "--lora_query true --lora_key false --lora_value true \\",
            "--train.max_seq_length 1304 \\",
        ],
    );
    assert!(!text.contains("--num_nodes"), "{text}");
    let full = "v=3&model=llama2-7b&gpus=4&dtype=bf16-pure&stage=3&recompute=full&framework=litgpt&global_batch=64";
    let text = export_with(
        full,
        Target::LitGpt,
        assert_trimmed_lines,
        &[
            "litgpt finetune_full checkpoints/meta-llama/Llama-2-7b-hf \\",
            "--devices 4 \\",
            "--train.micro_batch_size 1 \\",
            "--train.global_batch_size 64 \\",
        ],
    );
    assert!(!text.contains("--lora"), "{text}");
    // Two nodes: LitGPT divides the global batch by one node's devices, so
    // it is written as one node's share (64 of the plan's 128).
    let nodes = "v=3&model=llama2-7b&gpus=4&nodes=2&dtype=bf16-pure&stage=3&recompute=full&framework=litgpt&global_batch=128";
    export_with(
        nodes,
        Target::LitGpt,
        assert_trimmed_lines,
        &[
            "--devices 4 \\",
            "--num_nodes 2 \\",
            "--train.global_batch_size 64 \\",
        ],
    );
}

/// What LitGPT does not run as the figures count it is refused, each with
/// its reason: another accounting, QLoRA on several GPUs, a sharded run
/// not checkpointed or not ZeRO-3, a single GPU checkpointed, another
/// optimizer, an offload (LitGPT's FSDP keeps everything on the GPUs).
#[test]
fn litgpt_refuses_what_it_does_not_run() {
    let base = "v=3&model=llama2-7b&dtype=bf16-pure&framework=litgpt";
    let cases = [
        (
            "v=3&model=llama2-7b&dtype=bf16-pure&gpus=1".to_string(),
            Refusal::Accounting,
        ),
        (
            format!("{base}&gpus=2&stage=3&recompute=full&method=qlora&adapter_dtype=model"),
            Refusal::QuantizedMultiGpu,
        ),
        (format!("{base}&gpus=4&stage=3"), Refusal::Recomputation),
        (
            format!("{base}&gpus=4&stage=2&recompute=full"),
            Refusal::Strategy(Strategy::Zero2),
        ),
        (
            format!("{base}&gpus=1&recompute=full"),
            Refusal::Recomputation,
        ),
        (format!("{base}&gpus=1&opt=sgd"), Refusal::Optimizer),
        (
            format!("{base}&gpus=4&stage=3&recompute=full&offload=optimizer"),
            Refusal::OptimizerOnlyOffload,
        ),
    ];
    for (query, refusal) in cases {
        assert_eq!(export_of(&query, Target::LitGpt), Err(refusal), "{query}");
    }
}
