//! The core's speed: a full chart sweep and one whole report.
//! Run with `cargo bench -p vram-core` (scripts/bench prints it with the page's figures).

#![cfg_attr(target_arch = "wasm32", allow(unused))]

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    divan::main();
}

/// Benchmarks run natively only.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod benches {
    use vram_core::{
        max_trainable_sweep, Bytes, Config, MemoryBudget, Optimizer, Precision, Recipe,
    };

    /// Every strategy's largest trainable model for every GPU count from 1 to 1024.
    #[divan::bench]
    fn chart_sweep_1_to_1024_gpus() -> usize {
        let budget = MemoryBudget::new(Bytes::from_gb(80.0), 0.2).expect("valid budget");
        let sweep = max_trainable_sweep(
            divan::black_box(&budget),
            Recipe::lesson(Precision::Fp16, Optimizer::Adam),
            1..=1024,
        );
        sweep.len()
    }

    /// Everything the page's table shows, for the lesson's configuration.
    #[divan::bench]
    fn report_of_the_lesson() -> bool {
        let report = divan::black_box(Config::default()).report();
        report.is_ok()
    }
}
