//! A launch command read back (`vram --import`, the page's paste box) on
//! arbitrary bytes: reading it never panics, and the keys it gives decode to
//! a configuration whose serving figures are computed or refused, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::decode;
use vram_launch::import::import_launch;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(imported) = import_launch(&text) else {
        return;
    };
    let config = decode(&imported.query()).config;
    let _ = config.serve_report();
});
