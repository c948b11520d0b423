#![no_main]
//! Fuzz target `analyse`: see `checks::analyse_reader`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::analyse_reader(data));
