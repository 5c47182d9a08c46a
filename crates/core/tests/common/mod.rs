//! What the measured-fixture tests share.

use vram_core::input::link;
use vram_core::Report;

/// The report of a link that must decode without a problem, with exactly
/// `params` parameters (the measured model's count).
pub fn report_of_exact_link(query: &str, params: u64) -> Report {
    let decoded = link::decode(query);
    assert!(
        decoded.problems.is_empty(),
        "{query}: {:?}",
        decoded.problems
    );
    let report = decoded.config.report().expect("a report");
    assert_eq!(report.setup.params().get(), params as f64, "{query}");
    report
}
