//! The shared-link decoder on arbitrary bytes: it must never panic, every
//! configuration it yields must be valid, every problem must name a key the
//! link wrote, and the link written back must decode to the same
//! configuration with no problem and be written the same way again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::{decode, encode};

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let decoded = decode(&query);
    assert!(decoded.config.check().is_ok(), "decoded an invalid configuration from {query:?}");
    // Serving's figures (`job=serve`), or training's report.
    if decoded.config.job == vram_core::config::job::Job::Serve {
        let served = decoded.config.serve_report();
        assert!(served.is_ok(), "{query:?}");
        if let Ok(served) = served {
            assert!(served.weights_bytes.is_finite() && served.total_bytes.is_finite());
        }
    }
    if decoded.config.job == vram_core::config::job::Job::Rl {
        assert!(decoded.config.rl_report().is_ok(), "{query:?}");
    }
    let report = match decoded.config.job {
        vram_core::config::job::Job::Serve | vram_core::config::job::Job::Rl => None,
        vram_core::config::job::Job::Train => Some(decoded.config.report()),
    };
    assert!(report.as_ref().is_none_or(Result::is_ok), "decoded an invalid configuration from {query:?}");
    let written = encode(&decoded.config);
    let again = decode(&written);
    assert!(again.problems.is_empty(), "{written}: {:?}", again.problems);
    assert_eq!(again.config, decoded.config, "{written}");
    assert_eq!(encode(&again.config), written);
    let keys: Vec<String> = form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
        .map(|(key, _)| key.into_owned())
        .collect();
    for problem in &decoded.problems {
        assert!(keys.contains(&problem.key), "{problem} names a key not in {query:?}");
    }
    // Every figure finite, or explicitly unbounded.
    if let Some(Ok(report)) = report {
        for row in &report.strategies {
            assert!(row.memory.total.get().is_finite() && row.step.peak().1.get().is_finite());
            let unbounded = row.largest_model_bound() == vram_core::report::LargestModelBound::Unbounded;
            assert_eq!(row.max_params.get().is_finite(), !unbounded);
        }
    }
});
