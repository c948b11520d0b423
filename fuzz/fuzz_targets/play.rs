#![no_main]
//! Fuzz target `play`: see `checks::play`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::play(data));
