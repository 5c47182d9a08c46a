//! LoRA on a frozen base, measured: what one training step keeps for backward
//! with PEFT 0.21's adapters (`scripts/measure-lora-activations`: transformers
//! 5.24, torch 2.15, CPU; 192 cases in `measured/lora.json`), reproduced to the
//! byte by `framework=hf` with `method=lora` through links
//! (`vram_core::frameworks::hf::HfLora` says what each term is). The runs with
//! adapter dropout are reproduced with the CPU's dropout (a noise tensor kept
//! in the dropout's dtype); the page counts a GPU's (a one-byte mask).
//! Native only (it reads JSON with serde_json).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use serde::Deserialize;
use vram_core::frameworks::hf::{hf_activation_memory, numerics_of, HfLora};
use vram_core::input::link;

#[derive(Deserialize)]
struct Row {
    #[serde(flatten)]
    step: common::Step,
    targets: String,
    rank: u32,
    lora_dropout: f64,
    kept: u64,
    trainable: u64,
    #[serde(default)]
    dora: bool,
}

fn measured() -> common::Measured<Row> {
    common::fixture(include_str!("measured/lora.json"))
}

/// The row as a link: Llama 2 7B's keys edited (Qwen2 from the Qwen2.5 preset),
/// the step, LoRA's settings and the numerics (autocast as `amp=1`).
fn query(row: &Row) -> String {
    let (dtype, adapter_dtype) = match row.step.numerics.as_str() {
        "fp32" => ("fp32-pure", "fp32"),
        "bf16-fp32-adapters" => ("bf16-pure", "fp32"),
        "bf16-bf16-adapters" => ("bf16-pure", "model"),
        _ => ("bf16&amp=1", "fp32"),
    };
    format!(
        "{}&attn=sdpa&dtype={dtype}&method=lora&rank={}&targets={}\
         &lora_dropout={}&adapter_dtype={adapter_dtype}",
        row.step.keys(),
        row.rank,
        if row.targets == "qv" { "qv" } else { "all" },
        row.lora_dropout,
    )
}

/// A link's adapters under `framework=hf`: their trainable parameters, what
/// they keep with the CPU's dropout (as measured) and what the page shows
/// (a GPU's one-byte dropout mask).
fn counted(query: &str) -> (u64, f64, f64) {
    let config = common::decoded(query);
    let report = config.report().expect("a report");
    let adapters = report.setup.adapters().expect("LoRA");
    let kept = report.activations.expect("activations").total.get();
    let model = config.model.expect("a model");
    let precision = report.setup.precision();
    let on_cpu = hf_activation_memory(
        &model.architecture,
        &model.activation_setup(&report.setup),
        numerics_of(precision),
        model.hf_attention(),
        Some(HfLora {
            adapters,
            dropout_on_cpu: true,
        }),
    )
    .total
    .get();
    (adapters.trainable, on_cpu, kept)
}

#[test]
fn every_measured_lora_step_is_kept_to_the_byte() {
    let measured = measured();
    assert_eq!(measured.peft, "0.21.0");
    assert_eq!(measured.transformers, "5.24.0");
    assert_eq!(measured.rows.len(), 192);
    for row in &measured.rows {
        let query = query(row);
        let (trainable, on_cpu, kept) = counted(&query);
        assert_eq!(trainable, row.trainable, "{query}");
        assert_eq!(on_cpu, row.kept as f64, "{query}");
        // Without dropout the CPU and the GPU keep the same; with it a GPU's
        // one-byte mask is less than the CPU's noise tensor, and only where a
        // dropout's input passes a gradient (never with checkpointing).
        if row.lora_dropout == 0.0 || row.step.checkpointing {
            assert_eq!(kept, on_cpu, "{query}");
        } else {
            assert!(kept < on_cpu, "{query}");
        }
    }
}

/// What changes from full training, in one case worked by hand: Llama-MHA's
/// first row (s = 64, b = 1, fp32, LoRA on q and v, no dropout). Full training
/// keeps 3,465,484 B; LoRA drops per layer three of the norms' four fp32
/// tensors of width h (the normalised tensors their weights need, and the
/// second norm's output, which only the frozen MLP read; the first's output is
/// the adapters' input) and the MLP's product (4·sbf), then the first layer's
/// first norm (4·sbh + 4·sb), the token ids (8·sb) and the final norm's two
/// (2 × 4·sbh), and adds lora_B's r-wide inputs (2 × 4·sb·r a layer).
#[test]
fn lora_keeps_less_than_full_training_as_worked_by_hand() {
    let rows = measured().rows;
    let row = &rows[0];
    assert_eq!(
        (
            row.step.seq,
            row.step.micro_batch,
            row.step.numerics.as_str(),
            row.targets.as_str()
        ),
        (64, 1, "fp32", "qv")
    );
    let (sb, h, f, r) = (64.0, 256.0, 688.0, 8.0);
    let (sbh, sbf) = (sb * h, sb * f);
    let full = 3_465_484.0;
    let dropped =
        2.0 * (3.0 * 4.0 * sbh + 4.0 * sbf) + (4.0 * sbh + 4.0 * sb) + 8.0 * sb + 2.0 * 4.0 * sbh;
    let added = 2.0 * (2.0 * 4.0 * sb * r);
    assert_eq!(full - dropped + added, row.kept as f64);
}

/// LoRA on mixtures of experts: what PEFT 0.21 trains on transformers 5.24's
/// fused expert tensors (`target_parameters`, each expert its own pair), their
/// attention and their shared experts' and dense layers' MLPs, for random
/// configs of every mixture family read, DeepSeek's latent attention among
/// them (`scripts/measure-lora-experts`, `measured/lora-experts.json`: 96
/// cases), counted by the page exactly.
#[test]
fn lora_on_experts_trains_what_peft_counts() {
    use vram_core::memory::finetune::{adapter_params, Targets};
    let measured: serde_json::Value = common::fixture(include_str!("measured/lora-experts.json"));
    assert_eq!(measured["peft"], "0.21.0");
    let rows = measured["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 96);
    for row in rows {
        let mut config = row["config"].clone();
        config["model_type"] = row["model_type"].clone();
        let text = config.to_string();
        let hub =
            vram_core::model::hub::read_config(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let targets = match row["targets"].as_str().unwrap() {
            "qv" => Targets::Qv,
            "attn" => Targets::Attn,
            "mlp" => Targets::Mlp,
            _ => Targets::All,
        };
        let rank = row["rank"].as_u64().unwrap() as u32;
        assert_eq!(
            adapter_params(&hub.architecture, targets, rank),
            row["trainable"].as_u64().unwrap(),
            "{text} {targets:?}"
        );
    }
}

/// DoRA (`use_dora=True`), measured by `scripts/measure-dora` (PEFT 0.21, CPU,
/// `measured/dora.json`): only the tensors still alive when the forward pass
/// ends are counted, as DoRA builds and drops a graph of its own each step
/// (its plain-LoRA runs, counted the same way, equal `measured/lora.json`'s).
/// Trainable: LoRA's pairs and one magnitude a row of each adapted weight.
/// Kept: every run to the byte, fp32 and pure bf16 with either adapter dtype;
/// under autocast the page refuses DoRA.
#[test]
fn every_measured_dora_step_is_kept_to_the_byte() {
    let measured: common::Measured<Row> = common::fixture(include_str!("measured/dora.json"));
    assert_eq!(measured.peft, "0.21.0");
    let mut checked = 0;
    for row in &measured.rows {
        if row.step.numerics.starts_with("autocast") {
            // Refused with DoRA (not reproduced: with dropout it keeps up to
            // 27 % more than the pure-precision terms say, autocast's casts
            // of the weights among it); plain LoRA is measured/lora.json's.
            if row.dora {
                let decoded = link::decode(&(query(row) + "&dora=1"));
                assert_eq!(decoded.problems.len(), 1, "{}", query(row));
                assert_eq!(decoded.problems[0].key, "dora");
            }
            continue;
        }
        let query = query(row) + if row.dora { "&dora=1" } else { "" };
        let (trainable, on_cpu, _) = counted(&query);
        assert_eq!(trainable, row.trainable, "{query}");
        assert_eq!(on_cpu, row.kept as f64, "{query}");
        checked += 1;
    }
    assert_eq!(checked, 288);
}

/// QLoRA under bitsandbytes before 0.43.2 (`bnb=0.43.1`): each 4-bit
/// linear's `MatMul4Bit` saved its input (`ctx.tensors = (A, B)` in the
/// 0.42.0 and 0.43.1 wheels' `autograd/_functions.py`, `(None, B)` from
/// 0.43.2). Llama 2 7B with adapters on q and v in the model's dtype and no
/// dropout, 1 × 512 tokens in bf16: q, k and v read the tensor their
/// adapters keep already; each layer keeps the MLP's input (4,096 values a
/// token) and the down projection's (11,008) besides, 2 bytes each.
#[test]
fn old_bitsandbytes_keeps_each_4_bit_layers_input() {
    let query = "model=llama2-7b&gpu=a100-80gb&gpus=1&dtype=bf16-pure&method=qlora&rank=8\
                 &targets=qv&adapter_dtype=model&seq=512&mbs=1&framework=hf";
    let kept = |query: &str| {
        let report = common::decoded(query).report().expect("a report");
        report.activations.expect("activations").total.get()
    };
    let today = kept(query);
    let before = kept(&format!("{query}&bnb=0.43.1"));
    let by_hand = 32.0 * 2.0 * 512.0 * (4_096.0 + 11_008.0);
    assert_eq!(before - today, by_hand, "{before} - {today}");
    // bitsandbytes from 0.43.2 (the default) and LLM.int8 keep none.
    assert_eq!(kept(&format!("{query}&bnb=0.43.2")), today);
    let int8 = format!("{query}&quant=int8");
    assert_eq!(kept(&format!("{int8}&bnb=0.43.1")), kept(&int8));
}
