#![no_main]
//! Fuzz target `move_text`: see `checks::move_text`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::move_text(data));
