//! The first layer's sums for both perspectives, built from scratch or
//! updated with the features a move removes and adds.

use super::features::{MAX_PER_COLUMN, active_features, column_features_both};
use super::network::{L1, Network};
use bashni_rules::{Colour, Column, Move, Position, Square, Variant};
use std::mem::MaybeUninit;

/// The first hidden layer of one position: `L1` i16 sums per
/// perspective (White's first).
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(align(64))]
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
        let parent = self.clone();
        self.apply_from(&parent, net, variant, delta);
    }

    /// Become `parent`'s sums with the column changes of one move applied,
    /// in one pass per perspective: the parent's sums are read once, every
    /// changed row added or subtracted in registers, and the result stored
    /// once. A feature a column keeps through the move is neither removed
    /// nor added.
    #[inline]
    pub fn apply_from(
        &mut self,
        parent: &Accumulator,
        net: &Network,
        variant: Variant,
        delta: &MoveDelta,
    ) {
        let mut removed = FeatureLists::new();
        let mut added = FeatureLists::new();
        let mut old = [[0u16; MAX_PER_COLUMN]; 2];
        let mut new = [[0u16; MAX_PER_COLUMN]; 2];
        for i in 0..delta.len {
            let sq = delta.squares[i];
            let [old_w, old_b] = &mut old;
            let n_old = column_features_both(variant, sq, delta.before[i], old_w, old_b);
            let [new_w, new_b] = &mut new;
            let n_new = column_features_both(variant, sq, delta.after[i], new_w, new_b);
            // A feature the column keeps (the same in both perspectives'
            // lists, by construction) is neither removed nor added.
            removed.push_missing(&old, n_old, &new[0][..n_new]);
            added.push_missing(&new, n_new, &old[0][..n_old]);
        }
        for side in 0..2 {
            net.backend.update(
                &mut self.values[side],
                &parent.values[side],
                &net.ft_weights,
                removed.side(side),
                added.side(side),
            );
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
    /// No move: nothing changes.
    pub const NONE: MoveDelta = MoveDelta {
        squares: [Square(0); MAX_TOUCHED],
        before: [Column::EMPTY; MAX_TOUCHED],
        after: [Column::EMPTY; MAX_TOUCHED],
        len: 0,
    };

    /// The squares `mv` touches in `pos` (before it is made), each once
    /// (a chain may jump one column twice or end where it began), with
    /// their columns now.
    #[inline]
    pub fn before(pos: &Position, mv: &Move) -> MoveDelta {
        let mut delta = MoveDelta::NONE;
        delta.record_before(pos, mv);
        delta
    }

    /// [`MoveDelta::before`] in place (a delta is a few hundred bytes:
    /// the search's stack fills its entries without copying one).
    #[inline]
    pub fn record_before(&mut self, pos: &Position, mv: &Move) {
        self.len = 0;
        for sq in [mv.from(), mv.to()].into_iter().chain(mv.jumped()) {
            if !self.squares[..self.len].contains(&sq) {
                self.squares[self.len] = sq;
                self.before[self.len] = pos.column(sq);
                self.len += 1;
            }
        }
    }

    /// Record the columns of the same squares in `pos` after the move.
    #[inline]
    pub fn after(&mut self, pos: &Position) {
        for i in 0..self.len {
            self.after[i] = pos.column(self.squares[i]);
        }
    }
}

/// The features one update removes (or adds), both perspectives (White's
/// first), left uninitialised beyond `len`: a move may touch
/// `MAX_TOUCHED` squares, so each list has room for 80 features, and
/// zeroing that room for every update cost more than filling it.
struct FeatureLists {
    features: [[MaybeUninit<u16>; MAX_TOUCHED * MAX_PER_COLUMN]; 2],
    len: usize,
}

impl FeatureLists {
    #[inline]
    fn new() -> FeatureLists {
        FeatureLists {
            features: [[MaybeUninit::uninit(); MAX_TOUCHED * MAX_PER_COLUMN]; 2],
            len: 0,
        }
    }

    /// Append the first `n` of `features` (both perspectives) whose
    /// White-perspective index is not in `kept_white`.
    #[inline]
    fn push_missing(
        &mut self,
        features: &[[u16; MAX_PER_COLUMN]; 2],
        n: usize,
        kept_white: &[u16],
    ) {
        let [white, black] = features;
        for (&w, &b) in white[..n].iter().zip(&black[..n]) {
            if !kept_white.contains(&w) {
                // Indexing checks the room (a move touches at most
                // MAX_TOUCHED squares, so it never runs out).
                self.features[0][self.len].write(w);
                self.features[1][self.len].write(b);
                self.len += 1;
            }
        }
    }

    /// The list of `side` (0 White, 1 Black).
    #[inline]
    fn side(&self, side: usize) -> &[u16] {
        let list = &self.features[side][..self.len];
        // SAFETY: `push_missing` wrote the first `len` of both lists, and
        // `MaybeUninit<u16>` has `u16`'s layout.
        unsafe { std::slice::from_raw_parts(list.as_ptr().cast::<u16>(), list.len()) }
    }
}
