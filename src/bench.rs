//! `bench`: a fixed search over built-in positions. With one thread the
//! node count is the same every run, a checksum of the search's behaviour.

use crate::rules::{Position, RuleSet, Variant};
use crate::search::{self, Config, Limits, Signals, score_text};
use crate::tt::{LockFreeTable, Table};
use std::time::Instant;

/// The bench positions, built into the binary so `bench` runs anywhere.
pub const POSITIONS: &str = include_str!("../bench-positions/bench.txt");

/// Depth searched per position unless told otherwise.
pub const DEFAULT_DEPTH: u32 = 13;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub threads: usize,
    pub depth: u32,
    pub hash_mb: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            threads: 1,
            depth: DEFAULT_DEPTH,
            hash_mb: 64,
        }
    }
}

pub struct BenchReport {
    /// One line per position, then the total line `<nodes> nodes <nps> nps`.
    pub lines: Vec<String>,
    pub nodes: u64,
    pub nps: u64,
}

/// The built-in positions as (variant, position).
pub fn positions() -> Vec<(Variant, Position)> {
    POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (variant, fen) = l.split_once(' ')?;
            let variant: Variant = variant.parse().ok()?;
            Some((
                variant,
                Position::from_fen(&RuleSet::new(variant), fen).ok()?,
            ))
        })
        .collect()
}

/// Search every bench position to a fixed depth, clearing the table
/// before each (so one thread gives the same node count every run).
pub fn run(options: &BenchOptions) -> anyhow::Result<BenchReport> {
    run_with::<LockFreeTable>(options)
}

/// The same with any table type (to compare tables on equal work).
pub fn run_with<T: Table>(options: &BenchOptions) -> anyhow::Result<BenchReport> {
    let mut searching = std::time::Duration::ZERO;
    let mut lines = Vec::new();
    let mut nodes = 0;
    let tt = T::try_with_megabytes(options.hash_mb)
        .ok_or_else(|| anyhow::anyhow!("cannot allocate a {} MiB table", options.hash_mb))?;
    for (i, (variant, pos)) in positions().into_iter().enumerate() {
        tt.clear();
        let config = Config {
            threads: options.threads,
            draw_rules: RuleSet::new(variant).draw,
            ..Config::default()
        };
        let limits = Limits {
            depth: Some(options.depth),
            ..Limits::default()
        };
        let start = Instant::now();
        let outcome = search::think(
            &pos,
            &[],
            &limits,
            &config,
            &tt,
            &Signals::default(),
            &mut |_| {},
        );
        searching += start.elapsed();
        nodes += outcome.nodes;
        let best = outcome.best.map_or("(none)".to_string(), |m| m.to_string());
        lines.push(format!(
            "position {:>2} {variant:<6} bestmove {best:<12} score {:<9} nodes {}",
            i + 1,
            score_text(outcome.score),
            outcome.nodes
        ));
    }
    // Only the searches are timed: clearing a large table between
    // positions is not search speed.
    let secs = searching.as_secs_f64().max(1e-3);
    let nps = (nodes as f64 / secs) as u64;
    lines.push(format!("Total time (ms) : {}", (secs * 1000.0) as u64));
    lines.push(format!("{nodes} nodes {nps} nps"));
    Ok(BenchReport { lines, nodes, nps })
}
