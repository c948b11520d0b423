//! `bench`: a fixed search over built-in positions. With one thread the
//! node count is the same every run, a checksum of the search's behaviour.

use crate::nnue::{self, Network};
use crate::protocol::{EMBEDDED, HASH_RANGE, LINEAR, THREADS_RANGE};
use crate::search::{self, Config, DEFAULT_HASH_MB, Limits, MAX_DEPTH, score_text};
use crate::tt::{LockFreeTable, Table};
use bashni_rules::{Position, RuleSet, Variant};
use std::sync::Arc;
use std::time::Instant;

/// The bench positions, built into the binary so `bench` runs anywhere.
pub const POSITIONS: &str = include_str!("bench.txt");

/// Depth searched per position unless told otherwise.
pub const DEFAULT_DEPTH: u32 = 13;

/// The ranges of `--threads` and `--hash` (MiB), the protocol's own
/// `Threads` and `Hash` ranges; `--depth` runs 1 to `MAX_DEPTH`.
pub const THREADS: (u32, u32) = (THREADS_RANGE.0 as u32, THREADS_RANGE.1 as u32);
/// See [`THREADS`].
pub const HASH_MB: (u32, u32) = (HASH_RANGE.0 as u32, HASH_RANGE.1 as u32);

/// The arguments of `bench`, the same on the command line and in the
/// protocol (`bench --depth 9 --threads 2`).
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Search threads.
    pub threads: u32,
    /// Depth searched per position.
    pub depth: u32,
    /// Hash size in MiB (the engine's default).
    pub hash_mb: u32,
    /// `EvalFile` values. Empty: every position with the default
    /// evaluation, its variant's built-in network. `linear` alone: every
    /// position with the linear evaluation. Else networks (a file, or
    /// `embedded` for the built-in ones): only the positions of a variant
    /// some value has a network for, each searched twice in one run, with
    /// the linear evaluation and with the network, and both speeds
    /// reported.
    pub eval_files: Vec<String>,
    /// The positions searched instead of the built-in ones (the command
    /// line's `--book`): two evaluations' time to a depth compared on a
    /// few hundred openings, where 14 positions are too few to say.
    pub positions: Option<Vec<(Variant, Position)>>,
}

/// Why `bench` could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// An argument of the protocol's `bench` that is not one of its flags.
    UnknownArgument(String),
    /// A flag without its value.
    MissingValue(String),
    /// A value outside its range.
    OutOfRange {
        /// The flag.
        flag: String,
        /// What was given.
        value: String,
        /// The smallest value allowed.
        min: u32,
        /// The largest value allowed.
        max: u32,
    },
    /// A bench line that is not `<variant> <fen>`, with its 1-based number.
    BadLine {
        /// Line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The system would not give a table of this many MiB.
    TableTooLarge(u32),
    /// An `--eval-file` value that did not load, and why.
    EvalFile(String),
    /// `--eval-file` values with no network for any bench position.
    NoNetwork,
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            BenchError::UnknownArgument(flag) => write!(
                f,
                "unexpected argument '{flag}' (expected --depth, --threads, --hash or --eval-file)"
            ),
            BenchError::MissingValue(flag) => write!(f, "{flag} needs a value"),
            BenchError::OutOfRange {
                flag,
                value,
                min,
                max,
            } => {
                write!(
                    f,
                    "{flag}: '{value}' is not a whole number in {min}..={max}"
                )
            }
            BenchError::BadLine { line, problem } => write!(f, "bench line {line}: {problem}"),
            BenchError::TableTooLarge(mb) => write!(f, "cannot allocate a {mb} MiB table"),
            BenchError::EvalFile(e) => write!(f, "--eval-file: {e}"),
            BenchError::NoNetwork => {
                write!(
                    f,
                    "--eval-file: no network for the variant of any bench position"
                )
            }
        }
    }
}

impl std::error::Error for BenchError {}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            threads: 1,
            depth: DEFAULT_DEPTH,
            hash_mb: DEFAULT_HASH_MB as u32,
            eval_files: Vec::new(),
            positions: None,
        }
    }
}

impl BenchOptions {
    /// Parse the arguments of the protocol's `bench` (the protocol is part
    /// of the library, which builds without clap); the error is one line.
    pub fn from_args(args: &[&str]) -> Result<BenchOptions, BenchError> {
        let mut options = BenchOptions::default();
        let mut words = args.iter();
        while let Some(&flag) = words.next() {
            if flag == "--eval-file" {
                let value = words
                    .next()
                    .ok_or_else(|| BenchError::MissingValue(flag.to_string()))?;
                options.eval_files.push(value.to_string());
                continue;
            }
            let (field, (min, max)) = match flag {
                "--threads" => (&mut options.threads, THREADS),
                "--depth" => (&mut options.depth, (1, MAX_DEPTH)),
                "--hash" => (&mut options.hash_mb, HASH_MB),
                _ => return Err(BenchError::UnknownArgument(flag.to_string())),
            };
            let value = words
                .next()
                .ok_or_else(|| BenchError::MissingValue(flag.to_string()))?;
            *field = value
                .parse()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| BenchError::OutOfRange {
                    flag: flag.to_string(),
                    value: value.to_string(),
                    min,
                    max,
                })?;
        }
        Ok(options)
    }
}

/// What `bench` found.
pub struct BenchReport {
    /// One line per position, then the total line `<nodes> nodes <nps> nps`.
    pub lines: Vec<String>,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Nodes per second over the searches alone.
    pub nps: u64,
}

/// The positions of a bench file (`<variant> <fen>` per line, `#`
/// comments) as (variant, position); a line that is neither is an error.
pub fn parse_positions(text: &str) -> Result<Vec<(Variant, Position)>, BenchError> {
    let mut positions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |problem: String| BenchError::BadLine {
            line: index + 1,
            problem,
        };
        let (variant, fen) = line
            .split_once(' ')
            .ok_or_else(|| bad("expected '<variant> <fen>'".into()))?;
        let variant = variant.parse::<Variant>().map_err(|e| bad(e.to_string()))?;
        let pos = Position::from_fen(&RuleSet::new(variant), fen)
            .map_err(|e| bad(format!("bad position '{fen}': {e}")))?;
        positions.push((variant, pos));
    }
    Ok(positions)
}

/// The built-in positions as (variant, position).
pub fn positions() -> Result<Vec<(Variant, Position)>, BenchError> {
    parse_positions(POSITIONS)
}

/// Search every bench position to a fixed depth, clearing the table
/// before each (so one thread gives the same node count every run).
pub fn run(options: &BenchOptions) -> Result<BenchReport, BenchError> {
    run_with::<LockFreeTable>(options)
}

/// The network for `variant` among the `--eval-file` values: the first
/// that has one (`embedded`: the built-in network, if any; a file: its
/// network, if made for `variant`).
fn network_for(values: &[String], variant: Variant) -> Result<Option<Arc<Network>>, BenchError> {
    for value in values {
        if value == LINEAR {
            continue;
        }
        if value == EMBEDDED {
            if let Some(net) = nnue::embedded(variant) {
                return net
                    .map(|n| Some(Arc::new(n)))
                    .map_err(|e| BenchError::EvalFile(format!("{value}: {e}")));
            }
            continue;
        }
        let bytes =
            std::fs::read(value).map_err(|e| BenchError::EvalFile(format!("{value}: {e}")))?;
        let net = Network::from_bytes(&bytes)
            .map_err(|e| BenchError::EvalFile(format!("{value}: {e}")))?;
        if net.variant() == variant {
            return Ok(Some(Arc::new(net)));
        }
    }
    Ok(None)
}

/// The evaluations one position is searched with (`None`: the linear
/// one), in order; none when a comparison has no network for `variant`.
fn evaluations_for(
    values: &[String],
    variant: Variant,
) -> Result<Vec<Option<Arc<Network>>>, BenchError> {
    Ok(match values {
        [] => vec![network_for(&[EMBEDDED.to_string()], variant)?],
        [only] if only == LINEAR => vec![None],
        _ => match network_for(values, variant)? {
            Some(net) => vec![None, Some(net)],
            None => Vec::new(),
        },
    })
}

/// Whether `values` ask for linear and learned searches side by side.
fn is_comparison(values: &[String]) -> bool {
    match values {
        [] => false,
        [only] => only != LINEAR,
        _ => true,
    }
}

/// Nodes and time of a series of searches.
#[derive(Default)]
struct Tally {
    nodes: u64,
    searching: std::time::Duration,
}

impl Tally {
    fn nps(&self) -> u64 {
        (self.nodes as f64 / self.searching.as_secs_f64().max(1e-3)) as u64
    }
}

/// The same with any table type (to compare tables on equal work).
pub fn run_with<T: Table>(options: &BenchOptions) -> Result<BenchReport, BenchError> {
    let mut lines = Vec::new();
    let tt = T::try_with_megabytes(options.hash_mb as usize)
        .ok_or(BenchError::TableTooLarge(options.hash_mb))?;
    let compare = is_comparison(&options.eval_files);
    let (mut linear, mut learned) = (Tally::default(), Tally::default());
    let built_in;
    let positions = match &options.positions {
        Some(given) => given,
        None => {
            built_in = positions()?;
            &built_in
        }
    };
    // Each variant's networks are loaded once, not once per position (a
    // book may hold hundreds).
    let mut by_variant = Vec::new();
    for variant in Variant::ALL {
        if positions.iter().any(|(v, _)| *v == variant) {
            by_variant.push((variant, evaluations_for(&options.eval_files, variant)?));
        }
    }
    for (i, &(variant, ref pos)) in positions.iter().enumerate() {
        let runs = by_variant.iter().find(|(v, _)| *v == variant);
        for network in runs.map_or(&[][..], |(_, runs)| runs) {
            tt.clear();
            let label = match (compare, &network) {
                (false, _) => "",
                (true, Some(_)) => "learned ",
                (true, None) => "linear  ",
            };
            let config = Config {
                threads: options.threads as usize,
                draw_rules: RuleSet::new(variant).draw,
                network: network.clone(),
                ..Config::default()
            };
            let limits = Limits {
                depth: Some(options.depth),
                ..Limits::default()
            };
            let start = Instant::now();
            let outcome = search::Searcher::new(&tt, config).search(pos, &[], &limits, &mut |_| {});
            let tally = if network.is_some() {
                &mut learned
            } else {
                &mut linear
            };
            tally.searching += start.elapsed();
            tally.nodes += outcome.nodes;
            let best = outcome.best.map_or("(none)".to_string(), |m| m.to_string());
            lines.push(format!(
                "{label}position {:>2} {variant:<6} bestmove {best:<12} score {:<9} nodes {}",
                i + 1,
                score_text(outcome.score),
                outcome.nodes
            ));
        }
    }
    if compare && learned.nodes == 0 {
        return Err(BenchError::NoNetwork);
    }
    // Only the searches are timed: clearing a large table between
    // positions is not search speed.
    let total = if compare {
        lines.push(format!(
            "linear : {} nodes {} nps",
            linear.nodes,
            linear.nps()
        ));
        lines.push(format!(
            "learned: {} nodes {} nps ({:.1} % of linear)",
            learned.nodes,
            learned.nps(),
            100.0 * learned.nps() as f64 / linear.nps().max(1) as f64
        ));
        learned
    } else {
        // One evaluation for every position; a variant without a built-in
        // network (none today) searches with the linear one.
        Tally {
            nodes: linear.nodes + learned.nodes,
            searching: linear.searching + learned.searching,
        }
    };
    lines.push(format!("Total time (ms) : {}", total.searching.as_millis()));
    lines.push(format!("{} nodes {} nps", total.nodes, total.nps()));
    Ok(BenchReport {
        lines,
        nodes: total.nodes,
        nps: total.nps(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_line_is_a_position() {
        let count = POSITIONS
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
            .count();
        assert_eq!(positions().unwrap().len(), count);
    }

    #[test]
    fn a_malformed_line_is_an_error_that_names_it() {
        let text = "# comment\nbashni W:a1w 0 1\nbashni W:zz9w 0 1\n";
        let e = parse_positions(text).unwrap_err().to_string();
        assert!(e.starts_with("bench line 3: bad position"), "{e}");
        let e = parse_positions("chess W:a1w\n").unwrap_err().to_string();
        assert!(e.starts_with("bench line 1: "), "{e}");
        assert!(parse_positions("bashni\n").is_err());
    }

    #[test]
    fn protocol_arguments_are_the_command_line_ones() {
        let o =
            BenchOptions::from_args(&["--depth", "5", "--threads", "2", "--hash", "8"]).unwrap();
        assert_eq!((o.depth, o.threads, o.hash_mb), (5, 2, 8));
        let d = BenchOptions::from_args(&[]).unwrap();
        assert_eq!(
            (d.depth, d.threads, d.hash_mb),
            (DEFAULT_DEPTH, 1, DEFAULT_HASH_MB as u32)
        );
        let e =
            BenchOptions::from_args(&["--eval-file", "a.nnue", "--eval-file", "embedded"]).unwrap();
        assert_eq!(e.eval_files, ["a.nnue", "embedded"]);
        for bad in [
            &["--eval-file"][..],
            &["--depth", "0"],
            &["--depth"],
            &["--nope", "1"],
            &["7"],
        ] {
            assert!(BenchOptions::from_args(bad).is_err(), "{bad:?}");
        }
    }
}
