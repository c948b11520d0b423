//! Perft and divide spread over threads (`bashni perft`, the protocol's
//! `go perft`). The rules crate counts on one thread and has no thread
//! pool; this is the same count shared out under rayon.

use bashni_rules::{Move, Position, perft};
use rayon::prelude::*;

/// Plies played out before the tree is shared among threads: at the
/// Bashni start 7 root moves balance badly, the 302 positions after three
/// plies balance well under rayon's work stealing.
const SPLIT_PLIES: u32 = 3;

/// Every position `plies` moves after `pos`, tagged with `tag`.
fn expand(pos: &Position, plies: u32, tag: usize, out: &mut Vec<(usize, Position)>) {
    if plies == 0 {
        out.push((tag, pos.clone()));
        return;
    }
    for mv in pos.legal_moves() {
        let mut child = pos.clone();
        child.make(&mv);
        expand(&child, plies - 1, tag, out);
    }
}

/// Leaf counts below each root move of `pos` (`depth` >= 1), on up to
/// `threads` threads.
fn root_counts(pos: &Position, moves: &[Move], depth: u32, threads: usize) -> Vec<u64> {
    let count = |mv: &Move| {
        let mut child = pos.clone();
        child.make(mv);
        perft(&mut child, depth - 1)
    };
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
        })
        .flatten();
    let Some(pool) = pool else {
        return moves.iter().map(count).collect();
    };
    // Split below the root move too, but leave at least two plies per task.
    let extra = (SPLIT_PLIES - 1).min(depth.saturating_sub(3));
    let mut tasks = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let mut child = pos.clone();
        child.make(mv);
        expand(&child, extra, i, &mut tasks);
    }
    let remaining = depth - 1 - extra;
    let results: Vec<(usize, u64)> = pool.install(|| {
        tasks
            .into_par_iter()
            .map(|(i, mut task)| (i, perft(&mut task, remaining)))
            .collect()
    });
    let mut counts = vec![0; moves.len()];
    for (i, n) in results {
        counts[i] += n;
    }
    counts
}

/// Each root move with its leaf count, sorted by move text, computed on up
/// to `threads` threads.
pub fn divide_parallel(pos: &Position, depth: u32, threads: usize) -> Vec<(String, u64)> {
    let depth = depth.max(1);
    let moves = pos.legal_moves();
    let counts = root_counts(pos, &moves, depth, threads);
    let mut lines: Vec<(String, u64)> = moves
        .iter()
        .zip(counts)
        .map(|(mv, n)| (mv.to_string(), n))
        .collect();
    lines.sort();
    lines
}

/// Leaf count at `depth` on up to `threads` threads.
pub fn perft_parallel(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth == 0 || threads <= 1 {
        return perft(&mut pos.clone(), depth);
    }
    let moves = pos.legal_moves();
    root_counts(pos, &moves, depth, threads).iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::{RuleSet, Variant, divide};

    #[test]
    fn parallel_and_divide_agree_with_serial() {
        for variant in Variant::ALL {
            let pos = Position::start(&RuleSet::new(variant));
            for depth in 0..=6 {
                let serial = perft(&mut pos.clone(), depth);
                assert_eq!(perft_parallel(&pos, depth, 2), serial, "{variant} {depth}");
                let split = divide_parallel(&pos, depth, 2);
                assert_eq!(split, divide(&pos, depth), "{variant} {depth}");
            }
        }
    }
}
