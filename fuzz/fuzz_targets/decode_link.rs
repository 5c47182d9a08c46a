//! The shared-link decoder on arbitrary bytes: it must never panic, every
//! configuration it yields must be valid, and re-encoding it must read back
//! to the same configuration with no problem.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::{decode, encode};

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let decoded = decode(&query);
    let report = decoded.config.report();
    assert!(report.is_ok(), "decoded an invalid configuration from {query:?}");
    let again = decode(&encode(&decoded.config));
    assert!(again.problems.is_empty());
    assert_eq!(again.config, decoded.config);
    for problem in &decoded.problems {
        let _ = problem.to_string();
    }
});
