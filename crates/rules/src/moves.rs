//! The move type: a plain step or a whole capture chain.

use super::geometry::Square;
use std::fmt;

/// The longest chain possible: a jumped square is never on the edge, and
/// the 8x8 board has 18 playable inner squares.
pub const MAX_CAPTURES: usize = 18;

/// A complete move. A capture lists every landing square and, in the same
/// order, the square jumped to reach it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub(super) from: u8,
    pub(super) to: u8,
    pub(super) captures: u8,
    pub(super) promotes: bool,
    pub(super) landings: [u8; MAX_CAPTURES],
    pub(super) jumped: [u8; MAX_CAPTURES],
}

impl Move {
    pub(super) fn quiet(from: Square, to: Square, promotes: bool) -> Move {
        Move {
            from: from.0,
            to: to.0,
            captures: 0,
            promotes,
            landings: [0; MAX_CAPTURES],
            jumped: [0; MAX_CAPTURES],
        }
    }

    /// The square the column starts on.
    #[inline]
    pub fn from(&self) -> Square {
        Square(self.from)
    }

    /// The square it ends on.
    #[inline]
    pub fn to(&self) -> Square {
        Square(self.to)
    }

    /// Whether it jumps at least one column.
    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captures > 0
    }

    /// Number of pieces taken.
    #[inline]
    pub fn capture_count(&self) -> usize {
        self.captures as usize
    }

    /// The moving man becomes a king.
    #[inline]
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// Landing squares of a capture, in order (empty for a plain move).
    pub fn landings(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.landings[..self.capture_count()]
            .iter()
            .map(|&s| Square(s))
    }

    /// A non-zero 32-bit code for the transposition table; two legal moves
    /// of one position get different codes (the landing path is folded in).
    pub fn tt_code(&self) -> u32 {
        let path = self.landings[..self.capture_count()]
            .iter()
            .fold(0u32, |h, &sq| {
                h.wrapping_mul(67).wrapping_add(sq as u32 + 1)
            });
        (self.from as u32 | (self.to as u32) << 6 | path << 12) | 1 << 31
    }

    /// Jumped squares of a capture, in the order taken.
    pub fn jumped(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.jumped[..self.capture_count()]
            .iter()
            .map(|&s| Square(s))
    }
}

/// `c3-d4` or `c3xe5xc7`: the output notation of protocol.md.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from())?;
        if self.is_capture() {
            for sq in self.landings() {
                write!(f, "x{sq}")?;
            }
            Ok(())
        } else {
            write!(f, "-{}", self.to())
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
