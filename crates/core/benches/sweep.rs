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

    /// The shortest decimal of a figure the page shows (13.476831232 GB), as a
    /// `data-value` and in the link: the page writes some 60 per update.
    #[divan::bench]
    fn shortest_decimal_of_a_figure() -> String {
        vram_core::decimal::shortest_decimal(divan::black_box(13.476_831_232))
    }

    /// The shared link of a configuration with a model: written on every update.
    #[divan::bench]
    fn link_of_a_model() -> String {
        let config =
            vram_core::input::link::decode("model=llama2-7b&gpu=a100-80gb&stage=2&bw=300").config;
        vram_core::input::link::encode(divan::black_box(&config))
    }

    /// Everything the page's table shows, for the lesson's configuration.
    #[divan::bench]
    fn report_of_the_lesson() -> bool {
        let report = divan::black_box(Config::default()).report();
        report.is_ok()
    }

    /// One whole report of Llama 3 70B over 32 nodes with TP 8 × PP 4 and SP.
    #[divan::bench]
    fn report_of_a_layout() -> bool {
        let config = vram_core::input::link::decode(
            "v=2&model=llama3-70b&gpu=a100-80gb&gpus=8&nodes=32&tp=8&pp=4&sp=1&recompute=selective&global_batch=1024",
        )
        .config;
        divan::black_box(config).report().is_ok()
    }

    /// Every plan of Llama 3 70B on 128 nodes of 8 A100s (1,024 GPUs).
    #[divan::bench]
    fn plans_of_llama3_70b_on_1024_gpus() -> usize {
        let config = vram_core::input::link::decode(
            "v=2&model=llama3-70b&gpu=a100-80gb&gpus=8&nodes=128&seq=4096&global_batch=1024",
        )
        .config;
        vram_core::plans::plans(divan::black_box(&config)).len()
    }
}
