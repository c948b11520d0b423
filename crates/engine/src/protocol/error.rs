//! What can be wrong with a protocol command. The engine prints each as one
//! `info string error: ...` line, which says what is wrong and where.

use super::eval_file::EvalFileError;
use crate::bench::BenchError;
use bashni_rules::{NotationError, ParseRuleError};
use std::fmt;

/// Why a command was refused. Nothing changes when a command is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// A command word the engine does not know.
    UnknownCommand(String),
    /// `setoption` without `name <option>` (or `variant <name>`).
    SetoptionSyntax,
    /// `setoption name` followed by no name.
    MissingOptionName,
    /// An option the engine does not have.
    UnknownOption(String),
    /// An option that needs a value was given none.
    MissingValue {
        /// The option, as given.
        option: String,
    },
    /// A spin option's value that is not a whole number.
    NotANumber {
        /// The option, as given.
        option: String,
        /// The value given.
        text: String,
    },
    /// A spin option's value outside its range.
    OutOfRange {
        /// The option, as given.
        option: String,
        /// The value given (a negative one is out of range too, not "not a
        /// whole number").
        value: i128,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A check option's value other than `true` or `false`.
    NotABool {
        /// The option, as given.
        option: String,
    },
    /// A variant or king landing rule the engine does not know.
    UnknownRule {
        /// The option, as given.
        option: String,
        /// What is wrong with its value.
        error: ParseRuleError,
    },
    /// `Hash` asked for more memory than the system gives.
    HashTooLarge {
        /// MiB asked for.
        wanted: usize,
        /// MiB of the table kept instead.
        kept: usize,
    },
    /// `position` followed by neither `startpos` nor `fen`.
    PositionKind {
        /// What came instead, if anything.
        got: Option<String>,
    },
    /// `position fen` without a position string.
    MissingFen,
    /// A position string that does not describe a legal set-up.
    BadPosition {
        /// The position string given.
        fen: String,
        /// What is wrong with it.
        error: NotationError,
    },
    /// A move after `position ... moves` that is not legal where it stands.
    BadMove {
        /// Which move of the list, from 1.
        number: usize,
        /// What is wrong with it.
        error: NotationError,
    },
    /// A `go` keyword without its number.
    GoMissingNumber {
        /// The keyword (`depth`, `wtime`, ...).
        keyword: String,
    },
    /// A `go` keyword whose value is not a non-negative whole number.
    GoNotANumber {
        /// The keyword.
        keyword: String,
        /// The value given.
        text: String,
    },
    /// A `go` keyword that must be at least 1 was given 0.
    GoZero {
        /// The keyword.
        keyword: String,
    },
    /// A move after `go searchmoves` that is not legal here.
    SearchMove(NotationError),
    /// A clock for the other side only.
    MissingClock {
        /// `wtime` or `btime`, whichever the side to move lacks.
        missing: &'static str,
    },
    /// `winc`, `binc` or `movestogo` without the clock they belong to.
    ClockPartWithoutTime {
        /// The part given.
        part: &'static str,
    },
    /// A wrong `bench` argument, or a bench that could not run.
    Bench(BenchError),
    /// `EvalFile` names a network that did not load.
    EvalFile(EvalFileError),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ProtocolError::*;
        match self {
            UnknownCommand(word) => write!(f, "unknown command '{word}'"),
            SetoptionSyntax => f.write_str("setoption: expected 'name <option> [value <value>]'"),
            MissingOptionName => f.write_str("setoption: missing option name"),
            UnknownOption(name) => write!(f, "unknown option '{name}'"),
            MissingValue { option } => write!(f, "option {option} needs a value"),
            NotANumber { option, text } => {
                write!(f, "option {option}: '{text}' is not a whole number")
            }
            OutOfRange {
                option,
                value,
                min,
                max,
            } => write!(f, "option {option}: {value} is outside {min}..{max}"),
            NotABool { option } => write!(f, "option {option} takes true or false"),
            UnknownRule { option, error } => write!(f, "option {option}: {error}"),
            HashTooLarge { wanted, kept } => write!(
                f,
                "option Hash: cannot allocate {wanted} MiB; keeping {kept} MiB"
            ),
            PositionKind { got: Some(got) } => {
                write!(f, "position: expected startpos or fen, got '{got}'")
            }
            PositionKind { got: None } => f.write_str("position: expected startpos or fen"),
            MissingFen => f.write_str("position fen needs a position string"),
            BadPosition { fen, error } => write!(f, "bad position '{fen}': {error}"),
            BadMove { number, error } => write!(f, "move {number} of position: {error}"),
            GoMissingNumber { keyword } => write!(f, "go {keyword} needs a number"),
            GoNotANumber { keyword, text } => write!(
                f,
                "go {keyword}: '{text}' is not a non-negative whole number"
            ),
            GoZero { keyword } => write!(f, "go {keyword}: must be at least 1"),
            SearchMove(error) => write!(f, "go searchmoves: {error}"),
            MissingClock { missing } => {
                write!(f, "go: {missing} is missing for the side to move")
            }
            ClockPartWithoutTime { part } => write!(f, "go: {part} needs wtime and btime"),
            Bench(error) => write!(f, "bench: {error}"),
            EvalFile(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ProtocolError {}

impl From<BenchError> for ProtocolError {
    fn from(error: BenchError) -> ProtocolError {
        ProtocolError::Bench(error)
    }
}

impl From<EvalFileError> for ProtocolError {
    fn from(error: EvalFileError) -> ProtocolError {
        ProtocolError::EvalFile(error)
    }
}
