#![no_main]
//! Fuzz target `openings`: see `checks::openings_reader`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::openings_reader(data));
