//! The page's reproduction of Megatron-LM's memory estimate and FLOPs count
//! against what Megatron-LM's own functions return
//! (`scripts/measure-megatron`, `measured/megatron.json`): for each
//! configuration, the arguments the page would give Megatron are the ones
//! written by hand from the model's published config, and every figure is
//! the same float, to the last bit.

mod common;

use serde::Deserialize;
use vram_core::frameworks::megatron::{estimate, MegatronArgs};
use vram_core::input::link::decode;

#[derive(Deserialize)]
struct Case {
    link: String,
    args: MegatronArgs,
    num_microbatches: u32,
    global_batch: u32,
    weight_and_optimizer_bytes: f64,
    activation_bytes: f64,
    reported_mb: [f64; 3],
    flops: f64,
}

#[derive(Deserialize)]
struct Fixture {
    source: String,
    cases: Vec<Case>,
}

fn fixture() -> Fixture {
    common::fixture(include_str!("measured/megatron.json"))
}

#[test]
fn megatrons_own_estimate_to_the_bit() {
    let fixture = fixture();
    assert!(fixture.source.starts_with("NVIDIA/Megatron-LM d98e8a6"));
    assert!(fixture.cases.len() >= 20);
    for case in &fixture.cases {
        let config = common::decoded(&case.link);
        let distributed = case.args.use_distributed_optimizer;
        let args = config.megatron_args(distributed).unwrap();
        assert_eq!(args, case.args, "{}", case.link);
        let e = estimate(&args, Some(case.num_microbatches));
        assert_eq!(
            e.weight_and_optimizer.get(),
            case.weight_and_optimizer_bytes,
            "{}",
            case.link
        );
        assert_eq!(e.activations.get(), case.activation_bytes, "{}", case.link);
        assert_eq!(e.printed_mb, case.reported_mb, "{}", case.link);
        // The report under acct=megatron carries the same figures.
        let query = format!("{}&acct=megatron", case.link);
        let applied = decode(&query).config;
        let m = applied.megatron_report().unwrap();
        let shown = match distributed {
            true => m.with_distributed_optimizer,
            false => m.without_distributed_optimizer,
        };
        assert_eq!(shown.printed_mb, case.reported_mb, "{query}");
        // Megatron's FLOPs of the global batch.
        let arch = config.model.unwrap().architecture;
        let flops = vram_core::time::megatron_flops(
            &arch,
            f64::from(case.global_batch),
            args.seq_length,
            args.padded_vocab_size,
        );
        assert_eq!(flops, case.flops, "{}", case.link);
    }
}
