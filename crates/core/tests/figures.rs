//! Figures that must agree with the table's own evaluation (issue 41): the
//! largest micro-batch is one the table says fits, and one more is one it
//! says does not, on every model preset, with and without a layout, under
//! Megatron-LM's and Hugging Face's accounting.
//! Native only: tens of thousands of reports, and proptest does not target wasm32.
#![cfg(not(target_arch = "wasm32"))]

use vram_core::input::link::decode;
use vram_core::model::presets::MODEL_PRESETS;
use vram_core::Strategy;

/// Whether the table of `link` with its micro-batch set to `micro_batch`
/// says `strategy` fits.
fn fits_at(link: &str, strategy: Strategy, micro_batch: u32) -> bool {
    let mut config = decode(link).config;
    if let Some(model) = &mut config.model {
        model.micro_batch = micro_batch;
    }
    let report = config.report().expect("a valid configuration");
    report.strategy(strategy).fits
}

fn check(link: &str) -> Result<(), String> {
    let config = decode(link).config;
    let Ok(report) = config.report() else {
        return Ok(());
    };
    for row in &report.strategies {
        match row.max_micro_batch {
            Some(b) => {
                if !fits_at(link, row.strategy, b) {
                    return Err(format!(
                        "{link}: {:?} says {b}, which does not fit",
                        row.strategy
                    ));
                }
                if b < 16_777_216 && fits_at(link, row.strategy, b + 1) {
                    return Err(format!(
                        "{link}: {:?} says {b}, but {} fits",
                        row.strategy,
                        b + 1
                    ));
                }
            }
            None if report.model.is_some() && row.supported && fits_at(link, row.strategy, 1) => {
                return Err(format!("{link}: {:?} says none, but 1 fits", row.strategy));
            }
            None => {}
        }
    }
    Ok(())
}

#[test]
fn the_largest_micro_batch_fits_and_one_more_does_not() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for model in MODEL_PRESETS {
        for rest in [
            "gpu=h100-80gb",
            "gpu=h100-80gb&seq=4096&recompute=full",
            "gpu=h800&nodes=2&tp=2&pp=2&global_batch=64",
            "gpu=mi355x&seq=8192&nodes=8&tp=4&pp=2&cp=8",
            "gpu=a100-40gb&framework=hf&stage=3",
            "gpu=h20&framework=hf&attn=eager&seq=1024",
            "gpu=h100-80gb&pp=4&global_batch=32&mbs=2",
        ] {
            let link = format!("model={}&{rest}", model.id);
            checked += 1;
            if let Err(failure) = check(&link) {
                failures.push(failure);
            }
        }
    }
    assert!(checked > 200);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The two cases: Hugging Face's accounting said 1 though 2 fits;
/// under pipeline stages 8 was said though 6 does not fit.
#[test]
fn the_reported_cases() {
    let hf = decode("model=llama2-7b&gpu=h100-80gb&stage=3&framework=hf&mbs=2").config;
    let report = hf.report().unwrap();
    assert_eq!(report.strategy(Strategy::Zero3).max_micro_batch, Some(2));
    check("model=llama2-7b&gpu=h100-80gb&stage=3&framework=hf").unwrap();
    check("model=glm-4.5-air&gpu=mi355x&seq=8192&nodes=8&tp=4&pp=2&cp=8").unwrap();
}

/// Issue 41, failure 5: every figure is finite, or explicitly unbounded. With
/// everything offloaded the GPUs' memory sets no limit on the model: the
/// memory offload goes to does when given (`host_mem`), and the report says
/// which bounds it; the CSV never holds `inf`.
#[test]
fn every_figure_is_finite_or_explicitly_unbounded() {
    use vram_core::report::LargestModelBound;
    for model in [
        "",
        "model=llama2-7b&",
        "model=mixtral-8x7b&",
        "model=deepseek-v3&nodes=32&",
    ] {
        for rest in [
            "stage=3&offload=all",
            "stage=3&offload=all&host_mem=2048",
            "stage=3&offload=all&offload_to=nvme&host_mem=8000",
            "stage=2&offload=optimizer",
            "acct=deepspeed&stage=3&offload=all",
            "",
        ] {
            let link = format!("{model}{rest}");
            let report = decode(&link).config.report().unwrap();
            let csv = vram_core::report::export::csv(&report);
            assert!(
                !csv.contains("inf") && !csv.contains("NaN"),
                "{link}\n{csv}"
            );
            for row in &report.strategies {
                for bytes in [row.memory.total, row.headroom, row.step.peak().1] {
                    assert!(bytes.get().is_finite(), "{link}: {row:?}");
                }
                let bound = row.largest_model_bound();
                assert_eq!(
                    row.max_params.get().is_finite(),
                    bound != LargestModelBound::Unbounded,
                    "{link}: {:?}",
                    row.strategy
                );
                if rest.contains("host_mem") && row.strategy == Strategy::Zero3 && row.fits {
                    assert_eq!(bound, LargestModelBound::OffloadMemory, "{link}");
                }
            }
        }
    }
    // The lesson's 7 B on 8 GPUs, ZeRO-3 offloading everything to 2,048 GB of
    // RAM a node: 16 B a parameter over the node's 8 GPUs' shards, 112 GB
    // for 7 B, so 2,048 GB hold 128 B.
    let report = decode("stage=3&offload=all&host_mem=2048")
        .config
        .report()
        .unwrap();
    let zero3 = report.strategy(Strategy::Zero3);
    assert!((zero3.max_params.billions() - 128.0).abs() < 1e-9);
}
