//! The ranked plans of any link: the search stays within its budget and its
//! kept plans, and every plan is a configuration the report accepts whose
//! own link decodes without a problem to the plan's figures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::{decode, encode};
use vram_core::plans::{rank, KEPT_PLANS, SEARCH_BUDGET};

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let config = decode(&query).config;
    let ranking = rank(&config);
    // One expert-parallel size's choices at most past the budget.
    assert!(ranking.evaluations <= SEARCH_BUDGET + 65_536 * 4);
    assert!(ranking.plans.len() <= KEPT_PLANS + 1);
    assert!(ranking.fitting <= ranking.found && ranking.searched <= ranking.layouts);
    for plan in ranking.plans.iter().take(3) {
        let applied = plan.apply(&config);
        let decoded = decode(&encode(&applied));
        assert!(decoded.problems.is_empty(), "{plan:?}: {:?}", decoded.problems);
        let report = decoded.config.report().expect("a plan the report accepts");
        assert_eq!(report.highlighted().step.peak().1, plan.peak);
    }
});
