//! The one error type of the crate.

use std::fmt;

/// Everything that can go wrong in `bashni-host`: text that does not
/// parse (an engine spec, a time control, PDN, an opening book) and an
/// engine that cannot go on (it crashed, stalled, or refused its setup).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// An engine spec (`--engine`, `--each`) that does not parse.
    Spec(String),
    /// A time control (`[moves/]base+inc`) that does not parse.
    TimeControl(String),
    /// PDN text that does not parse.
    Pdn(String),
    /// An opening book that does not parse or does not fit the variant;
    /// `line` counts from 1, 0 for the book as a whole.
    Book {
        /// The line of the book at fault.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// The engine could not be started, exited, or closed its output.
    Crashed(String),
    /// The engine sent nothing useful before the deadline.
    Stalled(String),
    /// The engine answered its setup (`setoption`) with errors.
    Refused(String),
}

impl Error {
    /// A book error at `line` (from 1).
    pub(crate) fn book(line: usize, why: impl Into<String>) -> Error {
        Error::Book {
            line,
            why: why.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spec(why) | Error::TimeControl(why) => write!(f, "{why}"),
            Error::Pdn(why) => write!(f, "{why}"),
            Error::Book { line: 0, why } => write!(f, "{why}"),
            Error::Book { line, why } => write!(f, "line {line}: {why}"),
            Error::Crashed(why) => write!(f, "crashed: {why}"),
            Error::Stalled(why) => write!(f, "stalled: {why}"),
            Error::Refused(why) => write!(f, "refused its setup: {why}"),
        }
    }
}

impl std::error::Error for Error {}
