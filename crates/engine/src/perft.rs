//! Perft and divide spread over threads (`bashni perft`, the protocol's
//! `go perft`). The rules crate counts on one thread and has no thread
//! pool; this is the same count shared out under rayon.

use bashni_rules::{Move, Position, perft};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Plies played out before the tree is shared among threads: at the
/// Bashni start 7 root moves balance badly, the 302 positions after three
/// plies balance well under rayon's work stealing.
const SPLIT_PLIES: u32 = 3;

/// Plies a count runs through without looking at the stop flag: a count
/// this deep takes milliseconds, so `stop` ends a perft of any depth at
/// once, and the flag is read rarely enough to cost nothing.
const UNSTOPPED_PLIES: u32 = 5;

/// Leaf count at `depth`, or none if `stop` was set before it was done.
fn perft_until(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth <= UNSTOPPED_PLIES {
        return Some(perft(&mut pos.clone(), depth));
    }
    let mut total = 0;
    for mv in pos.legal_moves() {
        let mut child = pos.clone();
        child.make(&mv);
        total += perft_until(&child, depth - 1, stop)?;
    }
    Some(total)
}

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
/// `threads` threads; none if `stop` was set before they were done.
fn root_counts(
    pos: &Position,
    moves: &[Move],
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
) -> Option<Vec<u64>> {
    let count = |mv: &Move| {
        let mut child = pos.clone();
        child.make(mv);
        perft_until(&child, depth - 1, stop)
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
    let results: Option<Vec<(usize, u64)>> = pool.install(|| {
        tasks
            .into_par_iter()
            .map(|(i, task)| Some((i, perft_until(&task, remaining, stop)?)))
            .collect()
    });
    let mut counts = vec![0; moves.len()];
    for (i, n) in results? {
        counts[i] += n;
    }
    Some(counts)
}

/// Each root move with its leaf count, sorted by move text, computed on up
/// to `threads` threads.
pub fn divide_parallel(pos: &Position, depth: u32, threads: usize) -> Vec<(String, u64)> {
    divide_until(pos, depth, threads, &AtomicBool::new(false))
        .expect("a count nothing stops is done")
}

/// [`divide_parallel`] that `stop` ends (the protocol's `go perft`):
/// none if it was set before the count was done.
pub fn divide_until(
    pos: &Position,
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
) -> Option<Vec<(String, u64)>> {
    let depth = depth.max(1);
    let moves = pos.legal_moves();
    let counts = root_counts(pos, &moves, depth, threads, stop)?;
    let mut lines: Vec<(String, u64)> = moves
        .iter()
        .zip(counts)
        .map(|(mv, n)| (mv.to_string(), n))
        .collect();
    lines.sort();
    Some(lines)
}

/// Leaf count at `depth` on up to `threads` threads.
pub fn perft_parallel(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth == 0 || threads <= 1 {
        return perft(&mut pos.clone(), depth);
    }
    let moves = pos.legal_moves();
    let counts = root_counts(pos, &moves, depth, threads, &AtomicBool::new(false));
    counts.expect("a count nothing stops is done").iter().sum()
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
