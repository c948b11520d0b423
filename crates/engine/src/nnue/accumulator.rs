//! The first layer's sums for both perspectives, built from scratch or
//! updated with the features a move removes and adds.

use super::features::{MAX_PER_COLUMN, active_features, column_features};
use super::network::{L1, Network};
use bashni_rules::{Colour, Column, Move, Position, Square, Variant};

/// The first hidden layer of one position: `L1` i16 sums per
/// perspective (White's first).
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(align(32))]
pub struct Accumulator {
    values: [[i16; L1]; 2],
}

impl Accumulator {
    /// The sums of `pos` computed from nothing.
    pub fn from_position(net: &Network, pos: &Position) -> Accumulator {
        let white = active_features(pos, Colour::White);
        let black = active_features(pos, Colour::Black);
        Accumulator::from_features(net, [&white, &black])
    }

    /// The sums of explicit feature lists, White's perspective first:
    /// for training, which works on feature lists, and its tests.
    pub fn from_features(net: &Network, features: [&[u16]; 2]) -> Accumulator {
        let mut acc = Accumulator {
            values: [[0; L1]; 2],
        };
        for (half, list) in acc.values.iter_mut().zip(features) {
            half.copy_from_slice(&net.ft_bias);
            for &feature in list {
                net.backend.add(half, net.ft_row(feature));
            }
        }
        acc
    }

    /// The sums seen from `perspective`.
    #[inline]
    pub fn values(&self, perspective: Colour) -> &[i16; L1] {
        &self.values[perspective.index()]
    }

    /// Take the `removed` features out of `perspective`'s sums and put
    /// the `added` ones in.
    #[inline]
    pub fn update(&mut self, net: &Network, perspective: Colour, removed: &[u16], added: &[u16]) {
        let half = &mut self.values[perspective.index()];
        for &feature in removed {
            net.backend.sub(half, net.ft_row(feature));
        }
        for &feature in added {
            net.backend.add(half, net.ft_row(feature));
        }
    }

    /// Apply the column changes of one move to both perspectives.
    pub fn apply(&mut self, net: &Network, variant: Variant, delta: &MoveDelta) {
        let (mut old, mut new) = ([0u16; MAX_PER_COLUMN], [0u16; MAX_PER_COLUMN]);
        for perspective in [Colour::White, Colour::Black] {
            for i in 0..delta.len {
                let sq = delta.squares[i];
                let n_old = column_features(variant, sq, delta.before[i], perspective, &mut old);
                let n_new = column_features(variant, sq, delta.after[i], perspective, &mut new);
                self.update(net, perspective, &old[..n_old], &new[..n_new]);
            }
        }
    }
}

/// The most distinct squares one move touches: from, to and every jumped
/// square.
const MAX_TOUCHED: usize = 2 + bashni_rules::MAX_CAPTURES;

/// The columns a move changes, before and after it: all an accumulator
/// needs to follow the move.
#[derive(Clone, Copy, Debug)]
pub struct MoveDelta {
    squares: [Square; MAX_TOUCHED],
    before: [Column; MAX_TOUCHED],
    after: [Column; MAX_TOUCHED],
    len: usize,
}

impl MoveDelta {
    /// The squares `mv` touches in `pos` (before it is made), each once
    /// (a chain may jump one column twice or end where it began), with
    /// their columns now.
    #[inline]
    pub fn before(pos: &Position, mv: &Move) -> MoveDelta {
        let mut delta = MoveDelta {
            squares: [Square(0); MAX_TOUCHED],
            before: [Column::EMPTY; MAX_TOUCHED],
            after: [Column::EMPTY; MAX_TOUCHED],
            len: 0,
        };
        for sq in [mv.from(), mv.to()].into_iter().chain(mv.jumped()) {
            if !delta.squares[..delta.len].contains(&sq) {
                delta.squares[delta.len] = sq;
                delta.before[delta.len] = pos.column(sq);
                delta.len += 1;
            }
        }
        delta
    }

    /// Record the columns of the same squares in `pos` after the move.
    #[inline]
    pub fn after(&mut self, pos: &Position) {
        for i in 0..self.len {
            self.after[i] = pos.column(self.squares[i]);
        }
    }
}
