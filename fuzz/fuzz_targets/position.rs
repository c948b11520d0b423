#![no_main]
//! Fuzz target `position`: see `checks::position`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::position(data));
