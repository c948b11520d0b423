//! Wall-clock checks that stay honest on a loaded machine.
//!
//! A check of elapsed time can fail once because the machine was busy (a
//! thread not scheduled for 50 ms), never because of that three times in
//! a row; a real regression (a search that runs to the end of an
//! iteration, a `stop` that is not heard) fails every time. So a timing
//! check runs up to three times and passes on the first attempt that
//! holds, and fails with every attempt's reason.

/// How many times a timing check is tried before it fails.
pub const ATTEMPTS: usize = 3;

/// Run `attempt` until it returns `Ok`, at most [`ATTEMPTS`] times; panic
/// with all the reasons if none held.
pub fn holds_within_attempts(what: &str, mut attempt: impl FnMut() -> Result<(), String>) {
    let mut reasons = Vec::new();
    for _ in 0..ATTEMPTS {
        match attempt() {
            Ok(()) => return,
            Err(reason) => reasons.push(reason),
        }
    }
    panic!("{what} failed {ATTEMPTS} times: {reasons:#?}");
}

/// `Ok` when `condition` holds, else `Err(message)`: the `assert!` of an
/// attempt.
pub fn check(condition: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if condition { Ok(()) } else { Err(message()) }
}
