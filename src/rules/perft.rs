//! Perft: count the leaf nodes of the legal move tree, with bulk counting
//! at the last ply. Draw rules are ignored, as chess perft ignores the
//! fifty-move rule.

use super::moves::Move;
use super::position::Position;
use rayon::prelude::*;

/// Leaf count at `depth`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut buffers = vec![Vec::with_capacity(64); depth as usize + 1];
    perft_inner(pos, depth, &mut buffers)
}

fn perft_inner(pos: &mut Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    match depth {
        0 => 1,
        1 => pos.count_moves(moves) as u64,
        _ => {
            pos.generate_moves(moves);
            let mut total = 0;
            for mv in moves.iter() {
                let undo = pos.make(mv);
                total += perft_inner(pos, depth - 1, rest);
                pos.unmake(mv, undo);
            }
            total
        }
    }
}

/// Each root move with its leaf count, sorted by move text, computed on up
/// to `threads` threads (root moves are shared out).
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(String, u64)> {
    let depth = depth.max(1);
    let moves = pos.legal_moves();
    let count = |mv: &Move| {
        let mut child = pos.clone();
        child.make(mv);
        (mv.to_string(), perft(&mut child, depth - 1))
    };
    let mut counts: Vec<(String, u64)> = if threads <= 1 {
        moves.iter().map(count).collect()
    } else {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(|| moves.par_iter().map(count).collect()),
            Err(_) => moves.iter().map(count).collect(),
        }
    };
    counts.sort();
    counts
}

/// Leaf count at `depth` on up to `threads` threads.
pub fn perft_parallel(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    if threads <= 1 {
        return perft(&mut pos.clone(), depth);
    }
    divide(pos, depth, threads).iter().map(|(_, n)| n).sum()
}
