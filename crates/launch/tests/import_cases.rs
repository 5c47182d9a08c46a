//! Hand-written inputs of every reader (issue 66), each read as written:
//! the reader it goes to, the link keys it must give and must not, and
//! exactly what it must say it passed over and did not read — nothing
//! guessed. One table, one loop; the real inputs are `imports_real.rs`'s.

use vram_launch::import::import_launch;

/// One input and what reading it must give.
struct Case {
    /// What the input is.
    name: &'static str,
    /// The text pasted.
    text: &'static str,
    /// The reader, as `ImportedEngine`'s name.
    engine: &'static str,
    /// `key=value` words the link must hold.
    has: &'static str,
    /// Words the link must not hold.
    lacks: &'static str,
    /// What is of no bearing, in order (each entry's start).
    ignored: &'static [&'static str],
    /// What is not read, in order (each entry's start).
    unread: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "a vLLM line: every option mapped, ignored or unread",
        text: "# serve it\nvllm serve meta-llama/Llama-3.1-70B-Instruct \\\n  --tensor-parallel-size 4 --data-parallel-size 2 \\\n  --max-model-len=32768 --kv-cache-dtype fp8_e4m3 --port 8000 --max-loras 4",
        engine: "Vllm",
        has: "job=serve engine=vllm model=llama3.1-70b max_len=32768 kv_dtype=fp8 tp=4 pp=1 gpus=8",
        lacks: "",
        ignored: &["--port 8000"],
        unread: &["--max-loras 4"],
    },
    Case {
        name: "a DeepSpeed configuration with its launch line",
        text: r#"deepspeed --num_nodes 2 --num_gpus 8 train.py --deepspeed ds.json
{
  "bf16": {"enabled": true},
  "train_batch_size": 128,
  "train_micro_batch_size_per_gpu": 2,
  "gradient_accumulation_steps": 4,
  "gradient_clipping": 1.0,
  "optimizer": {"type": "AdamW", "params": {"lr": 2e-5}},
  "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"},
    "stage3_prefetch_bucket_size": 5e7, "sub_group_size": 1e9},
  "activation_checkpointing": {"partition_activations": true}
}"#,
        engine: "DeepSpeed",
        has: "job=train dtype=bf16 mbs=2 opt=adam stage=3 offload=optimizer offload_to=cpu prefetch_bucket=50 gpus=8 nodes=2 global_batch=128",
        lacks: "",
        ignored: &["gradient_clipping: 1.0"],
        unread: &["activation_checkpointing", "zero_optimization.sub_group_size", "model:"],
    },
    Case {
        name: "a Megatron-LM script of arrays, variables and inline comments",
        text: "#!/bin/bash\nTP=4\nMODEL_ARGS=(\n  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 # Llama 3\n  --num-attention-heads 32 --group-query-attention --num-query-groups 8\n  --seq-length 8192 --max-position-embeddings 8192 --position-embedding-type rope\n  --swiglu --normalization RMSNorm --disable-bias-linear --untie-embeddings-and-output-weights\n)\ntorchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py ${MODEL_ARGS[@]} \\\n  --tensor-model-parallel-size $TP --sequence-parallel --use-distributed-optimizer \\\n  --recompute-granularity selective --recompute-modules core_attn mlp --bf16 \\\n  --micro-batch-size 2 --global-batch-size 512 --lr 3e-4 --fp8-amax-history-len 1024",
        engine: "Megatron",
        has: "model=llama3-8b seq=8192 tp=4 sp=1 gpus=8 nodes=2 stage=1 recompute=selective recompute_modules=core_attn,mlp dtype=bf16 mbs=2 global_batch=512",
        lacks: "layers=",
        ignored: &["--max-position-embeddings 8192", "--lr 3e-4"],
        unread: &["--fp8-amax-history-len 1024"],
    },
    Case {
        name: "a torchtitan job with HSDP, FP8 and its launch line",
        text: "torchrun --nnodes 2 --nproc_per_node 8 -m torchtitan.train --job.config_file job.toml\n[model]\nname = \"llama3\"\nflavor = \"8B\"\nconverters = [\"quantize.linear.float8\"]\n[training]\nlocal_batch_size = 2\nglobal_batch_size = 128\nseq_len = 8192\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 8\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"2\"\n[compile]\nenable = true",
        engine: "Torchtitan",
        has: "model=llama3.1-8b seq=8192 dtype=fp8-params fp8_recipe=tensorwise stage=3 sharding=fsdp2 shard_group=8 gpus=8 nodes=2 mbs=2 global_batch=128 recompute=selective loss=compiled",
        lacks: "loss=fp32",
        ignored: &[],
        unread: &["[activation_checkpoint] selective_ac_option = \"2\""],
    },
    Case {
        name: "a torchtitan job that compiles the model only, and per-op checkpointing",
        text: "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = 8\n[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n[compile]\nenable = true\ncomponents = [\"model\"]\nbackend = \"inductor\"",
        engine: "Torchtitan",
        has: "model=llama3.1-8b stage=3 sharding=fsdp2 recompute=selective recompute_modules=op loss=fp32",
        lacks: "",
        ignored: &["[compile] backend"],
        unread: &[],
    },
    Case {
        name: "a training script under FSDP with adapters and its launch line",
        text: "accelerate launch --num_processes 16 --num_machines 2 train.py\nmodel = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-3.1-8B-Instruct\")\nargs = SFTConfig(per_device_train_batch_size=2, gradient_accumulation_steps=4, max_length=4096, bf16=True, learning_rate=2e-4, packing=True)\npeft = LoraConfig(r=64, lora_alpha=16, target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"])",
        engine: "Accelerate",
        has: "job=train model=llama3.1-8b mbs=2 seq=4096 method=lora rank=64 targets=attn dtype=bf16 gpus=8 nodes=2 global_batch=128",
        lacks: "",
        ignored: &["SFTConfig.learning_rate", "LoraConfig.lora_alpha"],
        unread: &["SFTConfig.packing=True"],
    },
    Case {
        name: "LitGPT's finetune_lora with its defaults, a quantisation and an adapter the page does not count",
        text: "litgpt finetune_lora checkpoints/google/gemma-2-9b-it --quantize bnb.fp4 --devices=1 \\\n  --lora_head true --data Alpaca2k --train.epochs 2",
        engine: "LitGpt",
        has: "job=train framework=litgpt model=gemma2-9b tied=0 gpus=1 recompute=none mbs=1 global_batch=16 opt=adam method=lora adapter_dtype=model rank=8 lora_dropout=0.05 targets=qv",
        lacks: "dtype=bf16-pure method=qlora",
        ignored: &["--data Alpaca2k", "--train.epochs 2"],
        unread: &[
            "--quantize bnb.fp4: not counted",
            "--precision: not given",
            "--train.max_seq_length: not given",
            "--lora_head true: the output head's adapter is not counted",
        ],
    },
    Case {
        name: "LitGPT's finetune_full on two nodes: FSDP with every block checkpointed, the global batch one node's",
        text: "litgpt finetune_full checkpoints/meta-llama/Llama-2-7b-hf --precision bf16-true --devices 8 --num_nodes 2 --train.micro_batch_size 2 --train.global_batch_size 256 --train.max_seq_length 4096 --out_dir out/full",
        engine: "LitGpt",
        has: "job=train framework=litgpt model=llama2-7b dtype=bf16-pure gpus=8 nodes=2 stage=3 recompute=full mbs=2 global_batch=512 seq=4096 method=full",
        lacks: "tied=0 rank=8",
        ignored: &["--out_dir out/full"],
        unread: &[],
    },
];

/// Whether `said` are, in order, entries starting with `starts`.
fn said_as(said: &[String], starts: &[&str]) -> bool {
    said.len() == starts.len() && said.iter().zip(starts).all(|(s, w)| s.starts_with(w))
}

#[test]
fn each_hand_written_input_is_read_as_written() {
    for case in CASES {
        let imported = import_launch(case.text).unwrap_or_else(|e| panic!("{}: {e:?}", case.name));
        let engine = format!("{:?}", imported.engine);
        assert_eq!(engine, format!("Some({})", case.engine), "{}", case.name);
        let query = imported.query();
        for part in case.has.split_whitespace() {
            assert!(query.contains(part), "{}: {part} in {query}", case.name);
        }
        for part in case.lacks.split_whitespace() {
            assert!(!query.contains(part), "{}: {part} in {query}", case.name);
        }
        assert!(
            said_as(&imported.ignored, case.ignored),
            "{}: {:?}",
            case.name,
            imported.ignored
        );
        assert!(
            said_as(&imported.unread, case.unread),
            "{}: {:?}",
            case.name,
            imported.unread
        );
    }
}
