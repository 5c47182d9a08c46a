//! A pasted `config.json` on arbitrary bytes: reading it never panics, and a
//! model it gives travels in a link as every model does: the link written for
//! it decodes to a valid configuration whose link is the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::{decode, encode};
use vram_core::model::hub::read_config;
use vram_core::Config;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(hub) = read_config(&text) else {
        return;
    };
    // An architecture its link keys would refuse is refused before counting.
    let Ok(config) = Config::default().with_hub_config(&hub) else {
        return;
    };
    let decoded = decode(&encode(&config));
    assert!(decoded.config.report().is_ok());
    let written = encode(&decoded.config);
    let again = decode(&written);
    assert!(again.problems.is_empty(), "{written}: {:?}", again.problems);
    assert_eq!(again.config, decoded.config);
});
