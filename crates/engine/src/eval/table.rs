//! The shape of a weight table: a (midgame, endgame) [`Pair`] per
//! parameter and the phase bounds. Like `params.rs`, this file is also
//! included by the build script, so it uses nothing but [`super::params`].

use super::params::Param;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// A (midgame, endgame) pair in centi-men.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    /// Midgame weight.
    pub mg: i32,
    /// Endgame weight.
    pub eg: i32,
}

/// Shorthand for weight tables.
pub const fn pair(mg: i32, eg: i32) -> Pair {
    Pair { mg, eg }
}

impl Add for Pair {
    type Output = Pair;
    #[inline]
    fn add(self, o: Pair) -> Pair {
        pair(self.mg + o.mg, self.eg + o.eg)
    }
}

impl Sub for Pair {
    type Output = Pair;
    #[inline]
    fn sub(self, o: Pair) -> Pair {
        pair(self.mg - o.mg, self.eg - o.eg)
    }
}

impl Neg for Pair {
    type Output = Pair;
    #[inline]
    fn neg(self) -> Pair {
        pair(-self.mg, -self.eg)
    }
}

impl AddAssign for Pair {
    #[inline]
    fn add_assign(&mut self, o: Pair) {
        *self = *self + o;
    }
}

impl Mul<i32> for Pair {
    type Output = Pair;
    #[inline]
    fn mul(self, k: i32) -> Pair {
        pair(self.mg * k, self.eg * k)
    }
}

/// The weights of one variant, in centi-men (a man on top is 100).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Indexed by the [`Param`] constants.
    pub params: [Pair; Param::COUNT],
    /// Columns on the board (less one per king) at and above which the game
    /// is all midgame. Not tuned: the phase is not linear in it.
    pub midgame_columns: i32,
    /// Columns (less one per king) at and below which it is all endgame.
    pub endgame_columns: i32,
}
