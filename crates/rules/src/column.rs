//! A column packed in one machine word.
//!
//! Every reachable column is `own` pieces of the owner's colour over
//! `prisoners` pieces of the other colour (rules.md), so a column is an
//! owner bit, two counts and one rank bit per piece:
//!
//! ```text
//! bits 0..32   king bits, bit 0 = the top piece (the commander)
//! bits 32..40  own count (0 means the square is empty)
//! bits 40..48  prisoner count
//! bit  48      owner: 0 white, 1 black
//! ```
//!
//! The word is canonical (unused bits are zero), so it can be hashed as is.

use super::geometry::Colour;

/// One piece: its colour and whether it is a king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// White or black.
    pub colour: Colour,
    /// A king (true) or a man.
    pub king: bool,
}

/// The most pieces a column can hold (all of Bashni's 24).
pub const MAX_HEIGHT: u32 = 32;

const RANKS: u64 = 0xFFFF_FFFF;
const OWN_SHIFT: u32 = 32;
const PRISONER_SHIFT: u32 = 40;
const OWNER_BIT: u64 = 1 << 48;
const COUNT_MASK: u64 = 0xFF;

/// A column of pieces on one square; `Column::EMPTY` is an empty square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Column(u64);

impl Column {
    /// No piece: an empty square.
    pub const EMPTY: Column = Column(0);

    /// A single piece.
    #[inline]
    pub fn single(piece: Piece) -> Column {
        Column::from_parts(piece.colour, 1, 0, piece.king as u64)
    }

    #[inline]
    fn from_parts(owner: Colour, own: u32, prisoners: u32, ranks: u64) -> Column {
        let owner_bit = if owner == Colour::Black { OWNER_BIT } else { 0 };
        Column(ranks | (own as u64) << OWN_SHIFT | (prisoners as u64) << PRISONER_SHIFT | owner_bit)
    }

    /// Build a column from its pieces, top first. Fails (with the index of
    /// the offending piece) when colours alternate, which no game can reach,
    /// or when the column is taller than any game allows.
    pub fn from_pieces(pieces: &[Piece]) -> Result<Column, ColumnError> {
        let Some(top) = pieces.first() else {
            return Ok(Column::EMPTY);
        };
        if pieces.len() > MAX_HEIGHT as usize {
            return Err(ColumnError::TooTall);
        }
        let own = pieces.iter().take_while(|p| p.colour == top.colour).count();
        if let Some(i) = pieces[own..].iter().position(|p| p.colour == top.colour) {
            return Err(ColumnError::AlternatingColours { index: own + i });
        }
        let ranks = pieces
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, p)| acc | (p.king as u64) << i);
        Ok(Column::from_parts(
            top.colour,
            own as u32,
            (pieces.len() - own) as u32,
            ranks,
        ))
    }

    /// The raw packed word (for hashing).
    #[inline]
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Whether no piece stands here.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The commander's colour; meaningless for an empty column.
    #[inline]
    pub fn owner(self) -> Colour {
        if self.0 & OWNER_BIT != 0 {
            Colour::Black
        } else {
            Colour::White
        }
    }

    /// Pieces of the owner's colour (the top block).
    #[inline]
    pub fn own(self) -> u32 {
        ((self.0 >> OWN_SHIFT) & COUNT_MASK) as u32
    }

    /// Enemy pieces held under the owner's block.
    #[inline]
    pub fn prisoners(self) -> u32 {
        ((self.0 >> PRISONER_SHIFT) & COUNT_MASK) as u32
    }

    /// All pieces, own and prisoners.
    #[inline]
    pub fn height(self) -> u32 {
        self.own() + self.prisoners()
    }

    /// The commander is a king.
    #[inline]
    pub fn top_is_king(self) -> bool {
        self.0 & 1 != 0
    }

    /// King bits, bit 0 the top.
    #[inline]
    pub fn king_bits(self) -> u64 {
        self.0 & RANKS
    }

    /// Pieces of `colour` in this column.
    #[inline]
    pub fn count(self, colour: Colour) -> u32 {
        if self.is_empty() {
            0
        } else if self.owner() == colour {
            self.own()
        } else {
            self.prisoners()
        }
    }

    /// The piece at `index` from the top.
    pub fn piece(self, index: u32) -> Option<Piece> {
        (index < self.height()).then(|| Piece {
            colour: if index < self.own() {
                self.owner()
            } else {
                !self.owner()
            },
            king: self.0 >> index & 1 != 0,
        })
    }

    /// The pieces from top to bottom.
    pub fn pieces(self) -> impl Iterator<Item = Piece> {
        (0..self.height()).filter_map(move |i| self.piece(i))
    }

    /// Remove the commander; returns what stays on the square and whether
    /// the taken piece was a king. The next piece down takes command.
    #[inline]
    pub fn take_top(self) -> (Column, bool) {
        let king = self.top_is_king();
        let ranks = (self.0 & RANKS) >> 1;
        let rest = if self.own() > 1 {
            Column::from_parts(self.owner(), self.own() - 1, self.prisoners(), ranks)
        } else if self.prisoners() > 0 {
            Column::from_parts(!self.owner(), self.prisoners(), 0, ranks)
        } else {
            Column::EMPTY
        };
        (rest, king)
    }

    /// Put a captured enemy piece under the bottom.
    #[inline]
    pub fn add_prisoner(self, king: bool) -> Column {
        Column((self.0 + (1 << PRISONER_SHIFT)) | ((king as u64) << self.height()))
    }

    /// Remove the bottom piece (undoing `add_prisoner`); returns its rank.
    #[inline]
    pub fn remove_bottom(self) -> (Column, bool) {
        let bottom = self.height() - 1;
        let king = self.0 >> bottom & 1 != 0;
        let rest = Column((self.0 & !(1u64 << bottom)) - (1 << PRISONER_SHIFT));
        (rest, king)
    }

    /// Put a piece on top (undoing `take_top`).
    #[inline]
    pub fn put_on_top(self, piece: Piece) -> Column {
        let ranks = (self.0 & RANKS) << 1 | piece.king as u64;
        if self.is_empty() {
            Column::single(piece)
        } else if self.owner() == piece.colour {
            Column::from_parts(piece.colour, self.own() + 1, self.prisoners(), ranks)
        } else {
            // The column below is all one colour: it becomes the prisoners.
            Column::from_parts(piece.colour, 1, self.own(), ranks)
        }
    }

    /// Crown the commander.
    #[inline]
    pub fn promote(self) -> Column {
        Column(self.0 | 1)
    }

    /// Undo `promote`.
    #[inline]
    pub fn demote(self) -> Column {
        Column(self.0 & !1)
    }
}

/// Why a list of pieces is not a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnError {
    /// The piece at this index (from the top) repeats the commander's colour
    /// below an enemy piece.
    AlternatingColours {
        /// Which piece (0 = top).
        index: usize,
    },
    /// More pieces than one column can hold.
    TooTall,
}

#[cfg(test)]
mod tests {
    use super::*;

    const WM: Piece = Piece {
        colour: Colour::White,
        king: false,
    };
    const WK: Piece = Piece {
        colour: Colour::White,
        king: true,
    };
    const BM: Piece = Piece {
        colour: Colour::Black,
        king: false,
    };
    const BK: Piece = Piece {
        colour: Colour::Black,
        king: true,
    };

    #[test]
    fn packing_roundtrips_pieces() {
        let pieces = [WK, WM, BM, BK];
        let col = Column::from_pieces(&pieces).unwrap();
        assert_eq!(col.owner(), Colour::White);
        assert_eq!((col.own(), col.prisoners()), (2, 2));
        assert!(col.top_is_king());
        assert_eq!(col.pieces().collect::<Vec<_>>(), pieces);
    }

    #[test]
    fn alternating_colours_are_rejected() {
        assert_eq!(
            Column::from_pieces(&[WM, BM, WM]),
            Err(ColumnError::AlternatingColours { index: 2 })
        );
    }

    #[test]
    fn taking_the_top_frees_prisoners_and_keeps_buried_ranks() {
        let col = Column::from_pieces(&[WM, BK, BM]).unwrap();
        let (rest, king) = col.take_top();
        assert!(!king);
        assert_eq!(rest.owner(), Colour::Black);
        assert_eq!(rest.pieces().collect::<Vec<_>>(), [BK, BM]);
        assert!(rest.top_is_king(), "a freed king leads as a king");
        let (last, king) = Column::single(BM).take_top();
        assert!(!king);
        assert!(last.is_empty());
    }

    #[test]
    fn prisoners_go_under_the_bottom_in_order() {
        let col = Column::single(WM).add_prisoner(true).add_prisoner(false);
        assert_eq!(col.pieces().collect::<Vec<_>>(), [WM, BK, BM]);
        let (back, king) = col.remove_bottom();
        assert!(!king);
        assert_eq!(back.pieces().collect::<Vec<_>>(), [WM, BK]);
    }

    #[test]
    fn put_on_top_undoes_take_top() {
        for pieces in [&[WM][..], &[WK, BM], &[BM, BM, WK], &[WM, WK, BM, BK]] {
            let col = Column::from_pieces(pieces).unwrap();
            let (rest, king) = col.take_top();
            let top = Piece {
                colour: col.owner(),
                king,
            };
            assert_eq!(rest.put_on_top(top), col);
        }
    }
}
