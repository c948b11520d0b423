//! The lines of a self-play data file: the one place that knows their
//! format. `bashni selfplay` writes them, `bashni tune` reads them, and
//! so will anything else trained on self-play data. The format
//! (docs/tuning.md, "Format") is unchanged since the first data sets, so
//! old files load as they are:
//!
//! ```text
//! # made by: bashni selfplay --variant bashni ... --seed 3 ...
//! <position string>\t<result>\t<variant>\t<game index>[\t<search score>]
//! # game <index> <variant> result <result> plies <plies> positions <count>
//! ```
//!
//! A position line is a [`SelfplayRecord`]; the marker closing a complete
//! game is a [`GameEnd`]; a `# made by: ` line says which command wrote
//! the games after it (files older than it have none); every other `#`
//! line and blank line is a comment.

use bashni_rules::{Position, RuleSet, Variant};
use std::fmt;
use std::str::FromStr;

/// One position of a self-play game, labelled with the game's result.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfplayRecord {
    /// The position (its variant is the line's variant).
    pub position: Position,
    /// The game's result from White's view: 1, 0.5 or 0 (any probability
    /// in 0..=1 reads).
    pub result: f64,
    /// The index of the game in its run (positions of one game share it).
    pub game: u64,
    /// The search's score of the position in centi-men from White's view,
    /// when the data has it (a fifth field; older files have four).
    pub score: Option<i32>,
}

/// Why a line is not a record or marker. The reader adds the line number
/// ([`LineError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Not four or five tab-separated fields; holds how many there were.
    FieldCount(usize),
    /// The search score is not a whole number.
    Score(String),
    /// The result is not a number in 0..=1.
    Result(String),
    /// The variant is unknown (the message says so).
    Variant(bashni_rules::ParseRuleError),
    /// The game index is not a whole number.
    Game(String),
    /// The position string does not parse in the variant.
    Position {
        /// The position string.
        fen: String,
        /// What the rules said.
        reason: String,
    },
    /// A `# game ` marker that does not read.
    Marker(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::FieldCount(n) => {
                write!(f, "expected 4 or 5 tab-separated fields, got {n}")
            }
            RecordError::Score(s) => write!(f, "bad search score '{s}'"),
            RecordError::Result(r) => write!(f, "bad result '{r}' (expected 0..=1)"),
            RecordError::Variant(error) => error.fmt(f),
            RecordError::Game(g) => write!(f, "bad game index '{g}'"),
            RecordError::Position { fen, reason } => write!(f, "bad position '{fen}': {reason}"),
            RecordError::Marker(line) => write!(f, "bad game marker '{line}'"),
        }
    }
}

impl std::error::Error for RecordError {}

impl fmt::Display for SelfplayRecord {
    /// The line without its line break.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = &self.position;
        let (fen, variant) = (pos.to_fen(), pos.variant());
        write!(f, "{fen}\t{}\t{variant}\t{}", self.result, self.game)?;
        match self.score {
            Some(score) => write!(f, "\t{score}"),
            None => Ok(()),
        }
    }
}

impl FromStr for SelfplayRecord {
    type Err = RecordError;

    fn from_str(line: &str) -> Result<Self, RecordError> {
        let fields: Vec<&str> = line.split('\t').collect();
        let (fen, result, variant, game, score) = match fields[..] {
            [fen, result, variant, game] => (fen, result, variant, game, None),
            [fen, result, variant, game, score] => (fen, result, variant, game, Some(score)),
            _ => return Err(RecordError::FieldCount(fields.len())),
        };
        let score = score
            .map(|s| s.parse().map_err(|_| RecordError::Score(s.into())))
            .transpose()?;
        let variant: Variant = variant.parse().map_err(RecordError::Variant)?;
        Ok(SelfplayRecord {
            result: parse_result(result)?,
            game: game.parse().map_err(|_| RecordError::Game(game.into()))?,
            score,
            position: Position::from_fen(&RuleSet::new(variant), fen).map_err(|e| {
                RecordError::Position {
                    fen: fen.into(),
                    reason: e.to_string(),
                }
            })?,
        })
    }
}

/// A result: a number in 0..=1.
fn parse_result(text: &str) -> Result<f64, RecordError> {
    text.parse()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| RecordError::Result(text.into()))
}

/// The marker after a game's positions: the game is complete.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEnd {
    /// The game's index.
    pub game: u64,
    /// Its variant.
    pub variant: Variant,
    /// Its result from White's view.
    pub result: f64,
    /// Plies played, from the opening position on.
    pub plies: usize,
    /// Position lines written for it.
    pub positions: usize,
}

/// How a marker line starts.
const MARKER: &str = "# game ";

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{MARKER}{} {} result {} plies {} positions {}",
            self.game, self.variant, self.result, self.plies, self.positions
        )
    }
}

impl FromStr for GameEnd {
    type Err = RecordError;

    fn from_str(line: &str) -> Result<Self, RecordError> {
        let bad = || RecordError::Marker(line.to_string());
        let rest = line.strip_prefix(MARKER).ok_or_else(bad)?;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let [
            game,
            variant,
            "result",
            result,
            "plies",
            plies,
            "positions",
            positions,
        ] = words[..]
        else {
            return Err(bad());
        };
        Ok(GameEnd {
            game: game.parse().map_err(|_| bad())?,
            variant: variant.parse().map_err(|_| bad())?,
            result: parse_result(result).map_err(|_| bad())?,
            plies: plies.parse().map_err(|_| bad())?,
            positions: positions.parse().map_err(|_| bad())?,
        })
    }
}

/// Whether a line is a game marker (read it as a [`GameEnd`]).
pub fn is_marker(line: &str) -> bool {
    line.starts_with(MARKER)
}

/// How a line naming the command that wrote the data starts.
const ORIGIN: &str = "# made by: ";

/// The line that says which command wrote the games after it.
pub fn origin_line(command: &str) -> String {
    format!("{ORIGIN}{command}")
}

/// The command an origin line names (`None` for any other line).
pub fn origin_command(line: &str) -> Option<&str> {
    line.strip_prefix(ORIGIN).map(str::trim)
}

/// Any line of a data file.
#[derive(Clone, Debug, PartialEq)]
pub enum DataLine {
    /// A labelled position (boxed: it is ten times the other lines' size).
    Record(Box<SelfplayRecord>),
    /// The marker closing a complete game.
    GameEnd(GameEnd),
    /// The command that wrote the games after it.
    Origin(String),
    /// A comment or a blank line.
    Comment,
}

impl DataLine {
    /// Read one line (without its line break).
    pub fn parse(line: &str) -> Result<DataLine, RecordError> {
        if let Some(command) = origin_command(line) {
            Ok(DataLine::Origin(command.to_string()))
        } else if line.starts_with(MARKER) {
            line.trim_end().parse().map(DataLine::GameEnd)
        } else if line.starts_with('#') || line.trim().is_empty() {
            Ok(DataLine::Comment)
        } else {
            line.parse().map(|r| DataLine::Record(Box::new(r)))
        }
    }
}

/// A line that does not read, with its number (1-based) in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// The line's number.
    pub line: usize,
    /// What is wrong with it.
    pub error: RecordError,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for LineError {}

/// Read line `index` (0-based, as `enumerate` gives it) of a file.
pub fn parse_numbered(index: usize, line: &str) -> Result<DataLine, LineError> {
    DataLine::parse(line).map_err(|error| LineError {
        line: index + 1,
        error,
    })
}

/// Every line of a data file's text, in order.
pub fn parse_data(text: &str) -> impl Iterator<Item = Result<DataLine, LineError>> + '_ {
    text.lines()
        .enumerate()
        .map(|(n, line)| parse_numbered(n, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: &str) -> SelfplayRecord {
        line.parse().unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn lines_of_the_first_data_sets_read_and_write_back_the_same() {
        // As `selfplay` has always written them (f32 results).
        let text = "# made by: bashni selfplay --seed 3\n\
                    W:c3w,f6b 0 1\t1\tbashni\t7\n\
                    B:a1w,g7b 2 30\t0.5\tlasca\t8\n\
                    # game 7 bashni result 1 plies 40 positions 1\n\
                    \n# other comment\n";
        let lines: Vec<DataLine> = parse_data(text).collect::<Result<_, _>>().unwrap();
        let [origin, a, b, end, blank, comment] = &lines[..] else {
            panic!("{lines:?}");
        };
        assert_eq!(origin, &DataLine::Origin("bashni selfplay --seed 3".into()));
        assert_eq!((blank, comment), (&DataLine::Comment, &DataLine::Comment));
        let DataLine::Record(a) = a else { panic!() };
        assert_eq!(
            (a.result, a.game, a.position.variant()),
            (1.0, 7, Variant::Bashni)
        );
        let DataLine::Record(b) = b else { panic!() };
        assert_eq!((b.result, b.position.variant()), (0.5, Variant::Lasca));
        let written: Vec<String> = text.lines().take(4).skip(1).map(str::to_string).collect();
        let DataLine::GameEnd(end) = end else {
            panic!()
        };
        assert_eq!([a.to_string(), b.to_string(), end.to_string()], written[..]);
        assert_eq!(record(&a.to_string()), **a);
        assert_eq!(a.score, None);
    }

    #[test]
    fn a_fifth_field_is_the_search_score_and_writes_back() {
        let line = "W:c3w,f6b 0 1\t1\tbashni\t7\t-35";
        let r = record(line);
        assert_eq!(r.score, Some(-35));
        assert_eq!(r.to_string(), line);
        assert_eq!(
            "W:c3w,f6b 0 1\t1\tbashni\t7\tx".parse::<SelfplayRecord>(),
            Err(RecordError::Score("x".into()))
        );
    }

    #[test]
    fn bad_lines_say_why_and_where() {
        let err = |line: &str| line.parse::<SelfplayRecord>().unwrap_err();
        assert_eq!(err("W:c3w\t1\tbashni"), RecordError::FieldCount(3));
        assert_eq!(
            err("W:c3w,f6b 0 1\t2\tbashni\t7"),
            RecordError::Result("2".into())
        );
        assert_eq!(
            err("W:c3w,f6b 0 1\t1\tbashni\tx"),
            RecordError::Game("x".into())
        );
        assert!(matches!(err("W:c3w\t1\tchess\t1"), RecordError::Variant(_)));
        assert!(matches!(
            err("W:z9w\t1\tlasca\t1"),
            RecordError::Position { .. }
        ));
        let text = "W:c3w,f6b 0 1\t1\tbashni\t7\n# game x bashni result 1 plies 4 positions 1\n";
        let errors: Vec<LineError> = parse_data(text).filter_map(Result::err).collect();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().starts_with("line 2: bad game marker"),
            "{}",
            errors[0]
        );
    }
}
