//! A launch command or a run's log read back (`vram --import`, `vram
//! --log`, the page's paste box) on arbitrary bytes: reading either never
//! panics, the keys a command gives decode to a configuration whose
//! figures are computed or refused, and a log's figures are put beside
//! that configuration's without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vram_core::input::link::decode;
use vram_launch::import::import_launch;
use vram_launch::log::{compare, read_log};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let config = match import_launch(&text) {
        Ok(imported) => decode(&imported.query()).config,
        Err(_) => decode("").config,
    };
    let _ = config.serve_report();
    let _ = config.report();
    if let Ok(log) = read_log(&text) {
        let _ = compare(&config, &log);
    }
});
