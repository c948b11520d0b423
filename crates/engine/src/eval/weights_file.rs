//! The text format of a weights file (`src/eval/weights/<variant>.txt`):
//! one variant's table and where it came from. The build script parses
//! the files with this module (it includes this file through `#[path]`)
//! and compiles them into constants; `bashni tune --write` writes them
//! with it. The format, one item a line:
//!
//! ```text
//! # comment (and blank lines): skipped
//! variant bashni
//! phase-columns 24 4          midgame and endgame column counts
//! data <text>                 the data fitted to (any number of lines)
//! command <text>              the command that wrote the table
//! commit <text>               the commit of the binary that ran it
//! loss <text>                 the fit's errors (any number of lines)
//! note <text>                 anything else (any number of lines)
//! weight <parameter> <midgame> <endgame>
//! ```
//!
//! `variant`, `phase-columns`, `command` and `commit` appear once; there is
//! one `weight` line for every parameter of [`PARAMS`], by its name, in any
//! order, each part within [`WEIGHT_LIMIT`]. Texts run to the end of their
//! line; the writer puts them back as they were read, so a file parses to
//! what was written ([`Provenance::line`] makes any text fit on a line).

use super::params::{PARAMS, Param, WEIGHT_LIMIT};
use super::table::{Pair, Weights, pair};
use std::fmt;

/// Where a table came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The data fitted to: file, size, how it was made.
    pub data: Vec<String>,
    /// The exact command that wrote the table.
    pub command: String,
    /// The commit of the binary that ran the command.
    pub commit: String,
    /// The fit's errors (training and held out, before and after).
    pub losses: Vec<String>,
    /// Anything else worth knowing about the table.
    pub notes: Vec<String>,
}

impl Provenance {
    /// `text` made into one line: line breaks and runs of blanks become
    /// one space, and the ends are trimmed, so it reads back unchanged.
    pub fn line(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// One variant's weights file.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsFile {
    /// The variant's name (`bashni`, `lasca`): the file's own name.
    pub variant: String,
    /// The table.
    pub weights: Weights,
    /// Where it came from.
    pub provenance: Provenance,
}

/// What is wrong with a weights file, and on which line (1-based; for
/// something missing, the line after the last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The line at fault.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FormatError {}

/// The fields as they are read, before the whole is checked.
#[derive(Default)]
struct Fields {
    variant: Option<String>,
    phase: Option<(i32, i32)>,
    command: Option<String>,
    commit: Option<String>,
    weights: [Option<Pair>; Param::COUNT],
    provenance: Provenance,
}

/// Parse a weights file's text.
pub fn parse(text: &str) -> Result<WeightsFile, FormatError> {
    let mut fields = Fields::default();
    let mut lines = 0;
    for (n, raw) in text.lines().enumerate() {
        lines = n + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        read_item(&mut fields, key, value.trim()).map_err(|message| FormatError {
            line: n + 1,
            message,
        })?;
    }
    finish(fields).map_err(|message| FormatError {
        line: lines + 1,
        message,
    })
}

/// Store one `key value` line.
fn read_item(fields: &mut Fields, key: &str, value: &str) -> Result<(), String> {
    let p = &mut fields.provenance;
    match key {
        "variant" => once(&mut fields.variant, key, word(value)?),
        "phase-columns" => once(&mut fields.phase, key, phase(value)?),
        "command" => once(&mut fields.command, key, value.to_string()),
        "commit" => once(&mut fields.commit, key, value.to_string()),
        "data" => append(&mut p.data, value),
        "loss" => append(&mut p.losses, value),
        "note" => append(&mut p.notes, value),
        "weight" => read_weight(&mut fields.weights, value),
        other => Err(format!(
            "unknown item '{other}' (expected variant, phase-columns, data, command, commit, loss, note or weight)"
        )),
    }
}

/// Set an item that may appear only once.
fn once<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), String> {
    match slot.replace(value) {
        Some(_) => Err(format!("'{key}' given twice")),
        None => Ok(()),
    }
}

/// Add an item that may appear any number of times.
fn append(list: &mut Vec<String>, value: &str) -> Result<(), String> {
    list.push(value.to_string());
    Ok(())
}

/// A single word.
fn word(value: &str) -> Result<String, String> {
    match value.split_whitespace().collect::<Vec<_>>()[..] {
        [one] => Ok(one.to_string()),
        _ => Err(format!("expected one word, got '{value}'")),
    }
}

/// `<midgame> <endgame>` column counts; the midgame one must be larger,
/// since the phase divides by their difference.
fn phase(value: &str) -> Result<(i32, i32), String> {
    let (mg, eg) = two_numbers(value)?;
    if mg <= eg {
        return Err(format!(
            "phase-columns: the midgame count {mg} must exceed the endgame count {eg}"
        ));
    }
    Ok((mg, eg))
}

/// Two whole numbers.
fn two_numbers(value: &str) -> Result<(i32, i32), String> {
    let numbers: Vec<&str> = value.split_whitespace().collect();
    let [a, b] = numbers[..] else {
        return Err(format!("expected two whole numbers, got '{value}'"));
    };
    let number = |s: &str| {
        s.parse::<i32>()
            .map_err(|_| format!("'{s}' is not a whole number"))
    };
    Ok((number(a)?, number(b)?))
}

/// `<parameter> <midgame> <endgame>`.
fn read_weight(weights: &mut [Option<Pair>; Param::COUNT], value: &str) -> Result<(), String> {
    let (name, numbers) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    let param = Param::by_name(name).ok_or_else(|| {
        format!(
            "weight: no parameter '{name}' (one of: {})",
            Param::names().collect::<Vec<_>>().join(", ")
        )
    })?;
    let (mg, eg) = two_numbers(numbers).map_err(|e| format!("weight {name}: {e}"))?;
    for part in [mg, eg] {
        if part.abs() > WEIGHT_LIMIT {
            return Err(format!(
                "weight {name}: {part} is outside -{WEIGHT_LIMIT}..={WEIGHT_LIMIT}"
            ));
        }
    }
    match weights[param].replace(pair(mg, eg)) {
        Some(_) => Err(format!("weight {name} given twice")),
        None => Ok(()),
    }
}

/// Check that nothing is missing and build the file.
fn finish(fields: Fields) -> Result<WeightsFile, String> {
    let missing = |item: &str| format!("no '{item}' line");
    let variant = fields.variant.ok_or_else(|| missing("variant"))?;
    let (midgame_columns, endgame_columns) =
        fields.phase.ok_or_else(|| missing("phase-columns"))?;
    let mut params = [Pair::default(); Param::COUNT];
    for (p, weight) in fields.weights.iter().enumerate() {
        params[p] = weight.ok_or_else(|| format!("no weight for {}", PARAMS[p].name))?;
    }
    Ok(WeightsFile {
        variant,
        weights: Weights {
            params,
            midgame_columns,
            endgame_columns,
        },
        provenance: Provenance {
            command: fields.command.ok_or_else(|| missing("command"))?,
            commit: fields.commit.ok_or_else(|| missing("commit"))?,
            ..fields.provenance
        },
    })
}

impl fmt::Display for WeightsFile {
    /// The file's text: a header saying what it is, the provenance, then
    /// the weights in parameter order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.provenance;
        writeln!(
            f,
            "# The {} evaluation weights in centi-men, (midgame, endgame) per",
            self.variant
        )?;
        writeln!(
            f,
            "# parameter; written by `bashni tune --write`, compiled in by the"
        )?;
        writeln!(
            f,
            "# engine's build script. Format: crates/engine/src/eval/weights_file.rs."
        )?;
        writeln!(f, "variant {}", self.variant)?;
        let w = &self.weights;
        writeln!(
            f,
            "phase-columns {} {}",
            w.midgame_columns, w.endgame_columns
        )?;
        for data in &p.data {
            writeln!(f, "data {data}")?;
        }
        writeln!(f, "command {}", p.command)?;
        writeln!(f, "commit {}", p.commit)?;
        for loss in &p.losses {
            writeln!(f, "loss {loss}")?;
        }
        for note in &p.notes {
            writeln!(f, "note {note}")?;
        }
        let width = PARAMS.iter().map(|p| p.name.len()).max().unwrap_or(0);
        for (info, Pair { mg, eg }) in PARAMS.iter().zip(&w.params) {
            writeln!(f, "weight {:<width$} {mg:>5} {eg:>5}", info.name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with every item, the weights counting up from -14.
    fn sample() -> WeightsFile {
        let mut params = [Pair::default(); Param::COUNT];
        for (p, w) in params.iter_mut().enumerate() {
            *w = pair(p as i32 - 14, 2 * p as i32);
        }
        WeightsFile {
            variant: "lasca".into(),
            weights: Weights {
                params,
                midgame_columns: 22,
                endgame_columns: 4,
            },
            provenance: Provenance {
                data: vec!["a.txt: 10 positions".into(), "b.txt: 20".into()],
                command: "bashni tune a.txt b.txt --write".into(),
                commit: "0123abcd".into(),
                losses: vec!["fit 0.2 -> 0.1".into()],
                notes: vec![Provenance::line("two\nlines  ")],
            },
        }
    }

    #[test]
    fn a_written_file_parses_to_what_was_written() {
        let file = sample();
        let text = file.to_string();
        assert_eq!(parse(&text), Ok(file.clone()));
        assert_eq!(parse(&text).unwrap().to_string(), text);
        assert_eq!(file.provenance.notes, ["two lines"]);
    }

    /// The error for `sample()`'s text with line `line` (1-based) replaced.
    fn error_with(line: usize, replacement: &str) -> FormatError {
        let text = sample().to_string();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[line - 1] = replacement;
        parse(&lines.join("\n")).unwrap_err()
    }

    #[test]
    fn malformed_lines_are_named() {
        // Lines 1-3 are the header comment, 4 the variant, 5 the phase.
        let e = error_with(5, "phase-columns 4 22");
        assert_eq!(e.line, 5);
        assert!(e.message.contains("must exceed"), "{e}");
        let e = error_with(4, "varient lasca");
        assert!(
            e.to_string().starts_with("line 4: unknown item 'varient'"),
            "{e}"
        );
        let e = error_with(4, "note variant given as a note, then twice:");
        assert!(e.message.contains("no 'variant' line"), "{e}");
        let text = sample().to_string();
        let last = text.lines().count();
        let e = error_with(last, "weight tempo 1 1001");
        assert_eq!(e.line, last);
        assert!(e.message.contains("outside"), "{e}");
        let e = error_with(last, "weight tempi 1 1");
        assert!(e.message.contains("no parameter 'tempi'"), "{e}");
        let e = error_with(last, "weight commander 1 1");
        assert!(e.message.contains("weight commander given twice"), "{e}");
        let e = error_with(last, "# tempo left out");
        assert_eq!(
            (e.line, e.message.as_str()),
            (last + 1, "no weight for tempo")
        );
    }
}
