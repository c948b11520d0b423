#![no_main]
//! Fuzz target `protocol_line`: see `checks::protocol_line`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::protocol_line(data));
