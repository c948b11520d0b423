//! Reading self-play data for the tuner: every position becomes a
//! [`Sample`] of its variant, some games are held out, and each file is
//! summarised for the provenance of the weights it helps fit.

use super::Sample;
use crate::selfplay::record::{self, DataLine, LineError};
use anyhow::Context;
use bashni_rules::Variant;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;

/// One variant's samples, split into (fit, held out), and where they came
/// from.
#[derive(Default)]
pub struct DataSet {
    /// The positions the fit moves the weights on.
    pub fit: Vec<Sample>,
    /// Every `--holdout-every`-th game: the error on games the fit never saw.
    pub held_out: Vec<Sample>,
    /// One line per data file with positions of this variant: its path,
    /// size and (if the file says) the command that made it.
    pub sources: Vec<String>,
}

/// A data line as the tuner keeps it: the sample is computed at once, in
/// parallel, so the positions themselves are never all held.
enum Read {
    Sample(Variant, Sample, bool),
    Origin(String),
    Skip,
}

/// Read every data file into the variants' sets (in `Variant::ALL`
/// order); every `holdout_every`-th game (0: none) is held out.
pub fn read_data(paths: &[PathBuf], holdout_every: u64) -> anyhow::Result<[(Variant, DataSet); 2]> {
    let mut sets = Variant::ALL.map(|v| (v, DataSet::default()));
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let lines: Vec<&str> = text.lines().collect();
        let read: Vec<Read> = lines
            .par_iter()
            .enumerate()
            .map(|(n, line)| read_line(n, line, holdout_every))
            .collect::<Result<_, LineError>>()
            .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.error))?;
        add_file(&mut sets, &path.display().to_string(), read);
    }
    Ok(sets)
}

/// Line `n` (0-based) as a sample, an origin, or nothing to keep.
fn read_line(n: usize, line: &str, holdout_every: u64) -> Result<Read, LineError> {
    Ok(match record::parse_numbered(n, line)? {
        DataLine::Record(r) => {
            let held = holdout_every > 0 && r.game.is_multiple_of(holdout_every);
            let sample = Sample {
                game: r.game,
                ..Sample::new(&r.position, r.result)
            };
            Read::Sample(r.position.variant(), sample, held)
        }
        DataLine::Origin(command) => Read::Origin(command),
        DataLine::GameEnd(_) | DataLine::Comment => Read::Skip,
    })
}

/// File the samples of one file under their variants, with a source line.
fn add_file(sets: &mut [(Variant, DataSet); 2], path: &str, read: Vec<Read>) {
    let mut origins: Vec<String> = Vec::new();
    let mut counts = [(0usize, HashSet::new()), (0usize, HashSet::new())];
    for item in read {
        match item {
            Read::Sample(variant, sample, held) => {
                let i = Variant::ALL.iter().position(|&v| v == variant).unwrap_or(0);
                counts[i].0 += 1;
                counts[i].1.insert(sample.game);
                let set = &mut sets[i].1;
                if held {
                    set.held_out.push(sample);
                } else {
                    set.fit.push(sample);
                }
            }
            Read::Origin(command) if !origins.contains(&command) => origins.push(command),
            Read::Origin(_) | Read::Skip => {}
        }
    }
    for ((_, set), (positions, games)) in sets.iter_mut().zip(counts) {
        if positions > 0 {
            set.sources
                .push(source_line(path, positions, games.len(), &origins));
        }
    }
}

/// `<path>: <n> positions of <g> games[, made by `<command>`; ...]`.
fn source_line(path: &str, positions: usize, games: usize, origins: &[String]) -> String {
    let made_by: Vec<String> = origins.iter().map(|c| format!("`{c}`")).collect();
    let made_by = if made_by.is_empty() {
        String::new()
    } else {
        format!(", made by {}", made_by.join("; "))
    };
    format!("{path}: {positions} positions of {games} games{made_by}")
}
