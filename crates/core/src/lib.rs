//! GPU memory of large-language-model training under DDP and DeepSpeed ZeRO-1/2/3.
//!
//! The core of the calculator: every formula, validation rule and unit
//! conversion, and the shared-link codec. Plain data in, plain data out, no I/O
//! and no web dependency; the page (`vram-app`) only displays what this crate
//! computes.
//!
//! ```
//! use vram_core::{Config, Strategy};
//!
//! // The lesson's example: 7 B parameters, FP16 + Adam, 8 GPUs of 80 GB, 20 % reserved.
//! let report = Config::default().report().unwrap();
//! assert_eq!(report.strategy(Strategy::Zero1).memory.total.gb(), 38.5);
//! assert!(!report.strategy(Strategy::Ddp).fits); // 112 GB > 64 GB usable
//! ```
//!
//! Sources: the course lesson "06. VRAM Calculation and ZeRO"; Rajbhandari et al.
//! 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models".

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod frameworks;
pub mod input;
pub mod memory;
pub mod report;
pub mod rl;
pub mod time;

// The crates below this one, under the names their rooms had here.
pub use vram_serve as serve;
pub use vram_shared::{decimal, format, gpu, layout, model, process, storage, units};

pub use config::parts::{Part, Parts};
pub use config::Config;
pub use frameworks::deepspeed::Offload;
pub use frameworks::runtime::{
    Accounting, BeyondGpu, BufferSizes, OffloadDevice, Placement, Runtime, Sharding,
};
pub use input::{parse_percent, percent_text, Field, InputError, InputErrorKind, Limits, Scope};
pub use memory::accumulation::accumulation_steps;
pub use memory::{
    max_trainable_params, max_trainable_sweep, BytesPerParam, GradientPrecision, MemoryBreakdown,
    MemoryBudget, Optimizer, Precision, Recipe, Strategy, TrainingSetup,
};
pub use report::{fixes, plans, Report, StrategyReport};
pub use units::{Bytes, ParamCount};

// Under `cargo test --target wasm32-unknown-unknown` the unit tests run in headless Chromium.
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
