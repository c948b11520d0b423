#![no_main]
//! Fuzz target `pdn`: see `checks::pdn_reader`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::pdn_reader(data));
