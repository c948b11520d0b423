//! Perft: count the leaf nodes of the legal move tree, with bulk counting
//! at the last ply. Draw rules are ignored, as chess perft ignores the
//! fifty-move rule.
//!
//! The last two plies never touch the board: at depth 2 each move's child
//! is derived as bitboards (`Bits`) and its moves are counted from those.
//! Every move is still generated for real; there is no hash table.

use std::marker::PhantomData;

use super::bitboard::Bitboard;
use super::geometry::Square;
use super::movegen::{Bits, ChainSink, Rules, generate, with_rules};
use super::moves::Move;
use super::position::Position;

/// Leaf count at `depth`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    with_rules!(pos, R => {
        let mut buffers = vec![Vec::with_capacity(64); depth as usize];
        perft_inner::<R>(pos, depth, &mut buffers)
    })
}

fn perft_inner<R: Rules>(pos: &mut Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    match depth {
        0 => 1,
        1 => Bits::of(pos).count_moves::<R>(),
        2 => perft2::<R>(pos),
        _ => {
            let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
            let bits = Bits::of(pos);
            let mut total = 0;
            // With captures optional, `generate` gives the plain moves too.
            if bits.has_capture::<R>() {
                generate::<R>(pos, moves);
                for mv in moves {
                    let undo = pos.make_unkeyed(mv);
                    total += perft_inner::<R>(pos, depth - 1, rest);
                    pos.unmake(mv, undo);
                }
            } else {
                // Plain moves straight from the bitboards: no `Move` built.
                bits.for_each_quiet::<R>(|from, to| {
                    let (undo, crowned) = pos.make_quiet_unkeyed(from, to);
                    total += perft_inner::<R>(pos, depth - 1, rest);
                    pos.unmake_quiet(from, to, undo, crowned);
                });
            }
            total
        }
    }
}

/// Perft 2 without making moves: each child is derived as bitboards and
/// its moves counted.
fn perft2<R: Rules>(pos: &Position) -> u64 {
    let bits = Bits::of(pos);
    let mut children = CaptureChildren::<R> {
        pos,
        bits,
        total: 0,
        rules: PhantomData,
    };
    if bits.for_each_capture::<R, _>(&mut children) > 0 && R::FORCED_CAPTURE {
        return children.total;
    }
    // Optional captures: the plain moves' children count as well.
    let mut total = if R::FORCED_CAPTURE { 0 } else { children.total };
    let next = NextSide::<R>::new(&bits);
    for (dir, targets) in bits.man_step_targets::<R>() {
        for to in targets {
            total += next.count_after(&bits, dir.shift_back(to.bb()), to.bb());
        }
    }
    bits.for_each_king_step::<R>(|from, to| {
        total += bits.after_quiet::<R>(from.bb(), to.bb()).count_moves::<R>();
    });
    total
}

/// The side to move after our plain moves keeps its pieces, so its men's
/// step targets are the same in every child: a child only frees `from`
/// and fills `to`. Unless that side has kings or a capture, its move count
/// is the parent's step count corrected for those two squares.
struct NextSide<R> {
    left: Bitboard,
    right: Bitboard,
    steps: u64,
    men_only: bool,
    rules: PhantomData<R>,
}

impl<R: Rules> NextSide<R> {
    #[inline(always)]
    fn new(bits: &Bits) -> Self {
        let next = Bits {
            own: bits.enemy,
            enemy: bits.own,
            kings: bits.kings,
            side: !bits.side,
        };
        let (left, right) = next.men_steps();
        let empty = bits.empty::<R>();
        NextSide {
            left,
            right,
            steps: (left & empty).len() as u64 + (right & empty).len() as u64,
            men_only: next.own_kings().is_empty(),
            rules: PhantomData,
        }
    }

    /// The number of moves after our plain move `from`-`to`.
    #[inline(always)]
    fn count_after(&self, bits: &Bits, from: Bitboard, to: Bitboard) -> u64 {
        let child = bits.after_quiet::<R>(from, to);
        let reach = |sq: Bitboard| self.left.meets(sq) as u64 + self.right.meets(sq) as u64;
        if !R::FORCED_CAPTURE {
            let quiet = if self.men_only {
                self.steps + reach(from) - reach(to)
            } else {
                child.count_quiet::<R>()
            };
            return child.count_captures::<R>() + quiet;
        }
        match child.count_captures::<R>() {
            0 if !self.men_only => child.count_quiet::<R>(),
            0 => self.steps + reach(from) - reach(to),
            captures => captures,
        }
    }
}

/// Counts the moves after each capture chain of a depth-2 node.
struct CaptureChildren<'p, R> {
    pos: &'p Position,
    bits: Bits,
    total: u64,
    rules: PhantomData<R>,
}

impl<R: Rules> ChainSink for CaptureChildren<'_, R> {
    const PATH: bool = false;
    #[inline]
    fn leaf(
        &mut self,
        from: Square,
        to: Square,
        jumped: Bitboard,
        king: bool,
        _: bool,
        _: &[u8],
        _: &[u8],
    ) {
        let child = self
            .bits
            .after_capture(self.pos, from.bb(), to.bb(), jumped, king);
        self.total += child.count_moves::<R>();
    }
}

/// Each root move with its leaf count, sorted by move text (`depth` >= 1;
/// a depth of 0 counts as 1). The parallel form lives in the engine crate,
/// so that this crate needs no thread pool.
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let depth = depth.max(1);
    let mut lines: Vec<(String, u64)> = pos
        .legal_moves()
        .iter()
        .map(|mv| {
            let mut child = pos.clone();
            child.make(mv);
            (mv.to_string(), perft(&mut child, depth - 1))
        })
        .collect();
    lines.sort();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RuleSet, Variant};

    #[test]
    fn divide_sums_to_perft() {
        for variant in Variant::ALL {
            let pos = Position::start(&RuleSet::new(variant));
            for depth in 1..=5 {
                let split: u64 = divide(&pos, depth).iter().map(|(_, n)| n).sum();
                assert_eq!(split, perft(&mut pos.clone(), depth), "{variant} {depth}");
            }
        }
    }
}
