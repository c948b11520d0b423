//! Reading self-play data for training: each position of the wanted
//! variant becomes a [`Sample`] (features of both perspectives and the
//! target), split into fit and held-out sets by game.

use super::model::{Sample, sigmoid};
use crate::selfplay::record::{self, DataLine, LineError, SelfplayRecord};
use anyhow::Context;
use bashni_engine::nnue::{CP_PER_UNIT, features::active_features};
use bashni_rules::Variant;
use rayon::prelude::*;
use std::path::PathBuf;

/// One variant's samples and where they came from.
#[derive(Default)]
pub struct DataSet {
    /// The samples the fit learns from.
    pub fit: Vec<Sample>,
    /// Every `holdout_every`-th game: the loss on games never learned from.
    pub held_out: Vec<Sample>,
    /// Per file: its path, position count and the command that made it.
    pub sources: Vec<String>,
}

/// The target of a record for the side to move: `lambda` of the game's
/// result and the rest of the search score's win probability (the result
/// alone where the data has no score).
pub fn target(r: &SelfplayRecord, lambda: f32) -> f32 {
    let white = r.position.side_to_move() == bashni_rules::Colour::White;
    let result = if white { r.result } else { 1.0 - r.result } as f32;
    match r.score {
        Some(score) => {
            let score = if white { score } else { -score } as f32;
            lambda * result + (1.0 - lambda) * sigmoid(score / CP_PER_UNIT)
        }
        None => result,
    }
}

/// A record as a sample.
pub fn sample(r: &SelfplayRecord, lambda: f32) -> Sample {
    let stm = r.position.side_to_move();
    Sample {
        stm: active_features(&r.position, stm),
        other: active_features(&r.position, !stm),
        target: target(r, lambda),
    }
}

/// Read the positions of `variant` from every file.
pub fn read_data(
    paths: &[PathBuf],
    variant: Variant,
    lambda: f32,
    holdout_every: u64,
) -> anyhow::Result<DataSet> {
    let mut set = DataSet::default();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let lines: Vec<&str> = text.lines().collect();
        let read: Vec<Option<(Sample, bool)>> = lines
            .par_iter()
            .enumerate()
            .map(|(n, line)| read_line(n, line, variant, lambda, holdout_every))
            .collect::<Result<_, LineError>>()
            .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.error))?;
        let before = set.fit.len() + set.held_out.len();
        for (sample, held) in read.into_iter().flatten() {
            if held {
                set.held_out.push(sample);
            } else {
                set.fit.push(sample);
            }
        }
        let count = set.fit.len() + set.held_out.len() - before;
        let origins: Vec<String> = lines
            .iter()
            .filter_map(|l| match record::DataLine::parse(l) {
                Ok(DataLine::Origin(command)) => Some(format!("`{command}`")),
                _ => None,
            })
            .collect();
        let made_by = match origins.is_empty() {
            true => String::new(),
            false => format!(", made by {}", origins.join("; ")),
        };
        set.sources
            .push(format!("{}: {count} positions{made_by}", path.display()));
    }
    Ok(set)
}

/// Line `n` (0-based): a sample of `variant` and whether it is held out.
fn read_line(
    n: usize,
    line: &str,
    variant: Variant,
    lambda: f32,
    holdout_every: u64,
) -> Result<Option<(Sample, bool)>, LineError> {
    Ok(match record::parse_numbered(n, line)? {
        DataLine::Record(r) if r.position.variant() == variant => {
            let held = holdout_every > 0 && r.game.is_multiple_of(holdout_every);
            Some((sample(&r, lambda), held))
        }
        _ => None,
    })
}
