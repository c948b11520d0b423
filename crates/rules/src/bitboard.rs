//! A set of squares, one bit per `rank * 8 + file`.

use super::geometry::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// A set of squares: bit `rank * 8 + file` stands for that square. The
/// operators are the set operations (`&` meet, `|` union, `^` symmetric
/// difference, `!` complement over all 64 bits); shifts move every square
/// by that many bit positions, which is how diagonal steps are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether no square is in the set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether some square is in the set.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// How many squares are in the set.
    #[inline(always)]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 & (1u64 << sq.index()) != 0
    }

    /// Whether the two sets share a square.
    #[inline(always)]
    pub const fn meets(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The lowest square (index order); the set must not be empty.
    #[inline(always)]
    pub fn lowest(self) -> Square {
        debug_assert!(self.any());
        Square::from_index(self.0.trailing_zeros() as u8)
    }

    /// The highest square (index order); the set must not be empty.
    #[inline(always)]
    pub fn highest(self) -> Square {
        debug_assert!(self.any());
        Square::from_index(63 - self.0.leading_zeros() as u8)
    }

    /// The squares, lowest first.
    #[inline(always)]
    pub fn iter(self) -> Squares {
        Squares(self.0)
    }

    /// The squares, highest first.
    #[inline(always)]
    pub fn iter_down(self) -> impl Iterator<Item = Square> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let index = 63 - bits.leading_zeros() as u8;
                bits ^= 1 << index;
                Square::from_index(index)
            })
        })
    }
}

/// The squares of a [`Bitboard`], lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index(index))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline(always)]
    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        sq.bb()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(squares: I) -> Bitboard {
        squares
            .into_iter()
            .fold(Bitboard::EMPTY, |bb, sq| bb | sq.bb())
    }
}

macro_rules! set_operator {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $method(self, other: Bitboard) -> Bitboard {
                Bitboard(self.0 $op other.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign(&mut self, other: Bitboard) {
                self.0 = self.0 $op other.0;
            }
        }
    };
}

set_operator!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
set_operator!(BitOr, bitor, BitOrAssign, bitor_assign, |);
set_operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl Shl<u32> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn shl(self, by: u32) -> Bitboard {
        Bitboard(self.0 << by)
    }
}

impl Shr<u32> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn shr(self, by: u32) -> Bitboard {
        Bitboard(self.0 >> by)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations_and_iteration_agree_with_the_squares() {
        let (a, c, h) = (Square::new(0, 0), Square::new(2, 2), Square::new(7, 7));
        let set: Bitboard = [h, a, c].into_iter().collect();
        assert_eq!(set.len(), 3);
        assert!(set.has(c) && !set.has(Square::new(1, 1)));
        assert_eq!(set.iter().collect::<Vec<_>>(), [a, c, h]);
        assert_eq!(set.iter_down().collect::<Vec<_>>(), [h, c, a]);
        assert_eq!((set.lowest(), set.highest()), (a, h));
        assert_eq!((set & !Bitboard::from(c)).len(), 2);
        assert!(Bitboard::EMPTY.is_empty() && set.meets(h.bb()));
        assert_eq!(set.iter().size_hint(), (3, Some(3)));
    }
}
