#![no_main]
//! Fuzz target `client_message`: see `checks::client_message`.

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::client_message(data));
