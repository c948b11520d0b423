//! The two boards: squares, diagonal neighbours and promotion ranks.
//!
//! Both boards use one layout: a square is `rank * 8 + file` in a 64-bit
//! bitboard, and only the dark squares (`(rank + file)` even) are playable.
//! A diagonal step is a shift by 7 or 9; any step that wraps around an edge
//! lands on a light or off-board square, so masking with `playable` after a
//! shift is the whole edge handling.

use super::bitboard::Bitboard;
use super::ruleset::ParseRuleError;
use std::fmt;
use std::str::FromStr;

/// The side: White moves first in both games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// Moves first; starts on ranks 1-3.
    White = 0,
    /// Starts on the far ranks.
    Black = 1,
}

impl Colour {
    /// 0 for White, 1 for Black: an index into per-colour tables.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name used by the protocol and stores (`white`, `black`).
    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }

    /// The colour [`Colour::name`] names.
    pub fn from_name(name: &str) -> Option<Colour> {
        match name {
            "white" => Some(Colour::White),
            "black" => Some(Colour::Black),
            _ => None,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::White => "White",
            Colour::Black => "Black",
        })
    }
}

impl std::ops::Not for Colour {
    type Output = Colour;
    #[inline]
    fn not(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// Which game is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Russian column draughts: 8x8, flying kings, men capture backwards.
    #[default]
    Bashni,
    /// Lasker's game: 7x7, stepping officers, soldiers capture forwards only.
    Lasca,
}

impl Variant {
    /// Both games.
    pub const ALL: [Variant; 2] = [Variant::Bashni, Variant::Lasca];

    /// The name used by the protocol (`bashni`, `lasca`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Bashni => "bashni",
            Variant::Lasca => "lasca",
        }
    }

    /// The board this game is played on.
    pub fn geometry(self) -> &'static Geometry {
        match self {
            Variant::Bashni => &BASHNI,
            Variant::Lasca => &LASCA,
        }
    }

    /// Pieces each side starts with (and can never exceed).
    pub fn pieces_per_side(self) -> u32 {
        match self {
            Variant::Bashni => 12,
            Variant::Lasca => 11,
        }
    }

    /// Kings fly (Bashni) or step (Lasca).
    pub fn flying_kings(self) -> bool {
        self == Variant::Bashni
    }

    /// A man crowned mid-chain goes on capturing (Bashni) or stops (Lasca).
    pub fn promotion_ends_move(self) -> bool {
        self == Variant::Lasca
    }

    /// The start position in the notation of protocol.md.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::Bashni => {
                "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1"
            }
            Variant::Lasca => {
                "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,a5b,c5b,e5b,g5b,b6b,d6b,f6b,a7b,c7b,e7b,g7b 0 1"
            }
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseRuleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "bashni" => Ok(Variant::Bashni),
            "lasca" => Ok(Variant::Lasca),
            _ => Err(ParseRuleError::UnknownVariant(s.to_string())),
        }
    }
}

/// A square index `rank * 8 + file`; only playable squares appear in positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    /// The square on `file` (0 = a) and `rank` (0 = 1).
    #[inline]
    pub fn new(file: u8, rank: u8) -> Square {
        Square(rank * 8 + file)
    }
    /// 0 for the a-file.
    #[inline]
    pub fn file(self) -> u8 {
        self.0 & 7
    }
    /// 0 for the first rank.
    #[inline]
    pub fn rank(self) -> u8 {
        self.0 >> 3
    }
    /// The square with bit index `index` (`rank * 8 + file`, below 64).
    #[inline(always)]
    pub const fn from_index(index: u8) -> Square {
        Square(index)
    }
    /// The bit index `rank * 8 + file`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The square as a one-square set.
    #[inline(always)]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// The four diagonal directions, as bitboard shifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Towards higher files and ranks.
    NorthEast = 0,
    /// Towards lower files, higher ranks.
    NorthWest = 1,
    /// Towards higher files, lower ranks.
    SouthEast = 2,
    /// Towards lower files and ranks.
    SouthWest = 3,
}

impl Direction {
    /// All four, in move-generation order.
    pub const ALL: [Direction; 4] = [
        Direction::NorthEast,
        Direction::NorthWest,
        Direction::SouthEast,
        Direction::SouthWest,
    ];

    /// The two directions a man of `colour` moves in.
    #[inline]
    pub fn forward(colour: Colour) -> [Direction; 2] {
        match colour {
            Colour::White => [Direction::NorthEast, Direction::NorthWest],
            Colour::Black => [Direction::SouthEast, Direction::SouthWest],
        }
    }

    /// Shift every square of `bb` one step against this direction
    /// (unmasked).
    #[inline]
    pub fn shift_back(self, bb: Bitboard) -> Bitboard {
        match self {
            Direction::NorthEast => bb >> 9,
            Direction::NorthWest => bb >> 7,
            Direction::SouthEast => bb << 7,
            Direction::SouthWest => bb << 9,
        }
    }

    /// The reverse direction.
    #[inline]
    pub fn opposite(self) -> Direction {
        match self {
            Direction::NorthEast => Direction::SouthWest,
            Direction::NorthWest => Direction::SouthEast,
            Direction::SouthEast => Direction::NorthWest,
            Direction::SouthWest => Direction::NorthEast,
        }
    }

    /// Directions whose shift is a left shift (towards higher squares): the
    /// nearest square of a ray is its lowest bit, else its highest.
    #[inline]
    pub fn is_upward(self) -> bool {
        matches!(self, Direction::NorthEast | Direction::NorthWest)
    }

    /// The nearest square to the ray's origin among `bb` (non-empty), for
    /// a subset of a ray in this direction.
    #[inline]
    pub fn nearest(self, bb: Bitboard) -> Square {
        if self.is_upward() {
            bb.lowest()
        } else {
            bb.highest()
        }
    }

    /// Shift every square of `bb` one step in this direction (unmasked).
    #[inline]
    pub fn shift(self, bb: Bitboard) -> Bitboard {
        match self {
            Direction::NorthEast => bb << 9,
            Direction::NorthWest => bb << 7,
            Direction::SouthEast => bb >> 7,
            Direction::SouthWest => bb >> 9,
        }
    }
}

/// Marks "no square" in the neighbour table.
pub const NO_SQUARE: u8 = 64;

/// Everything about one board's shape, computed at compile time.
pub struct Geometry {
    /// The game this board belongs to.
    pub variant: Variant,
    /// Files and ranks: 8 or 7.
    pub size: u8,
    /// The dark squares.
    pub playable: Bitboard,
    /// `next[sq][dir]`: the diagonal neighbour, or `NO_SQUARE`.
    pub next: [[u8; 4]; 64],
    /// `promotion[colour]`: the far rank where that colour's men are crowned.
    pub promotion: [Bitboard; 2],
    /// Number of playable squares (32 or 25).
    pub square_count: u32,
    /// `rays[sq][dir]`: every square beyond `sq` in `dir` up to the edge
    /// (not `sq` itself). Flying kings find their first blocker with one
    /// bit scan of `rays & occupied` instead of stepping square by square.
    pub rays: [[Bitboard; 4]; 64],
}

impl Geometry {
    /// Whether `sq` is a dark square of this board.
    #[inline]
    pub fn is_playable(&self, sq: Square) -> bool {
        sq.0 < 64 && self.playable.has(sq)
    }

    /// The diagonal neighbour of `sq` along `dir`, if it is on the board.
    #[inline]
    pub fn step(&self, sq: Square, dir: Direction) -> Option<Square> {
        let n = self.next[sq.index()][dir as usize];
        (n != NO_SQUARE).then_some(Square(n))
    }

    /// Playable squares in display order: a1, c1, e1, ... rank by rank.
    pub fn squares(&self) -> impl Iterator<Item = Square> {
        self.playable.iter()
    }

    /// Square from file and rank, if it is on this board (playable or not).
    pub fn square_on_board(&self, file: u8, rank: u8) -> Option<Square> {
        (file < self.size && rank < self.size).then(|| Square::new(file, rank))
    }
}

/// A board is known by its variant.
impl PartialEq for Geometry {
    fn eq(&self, other: &Self) -> bool {
        self.variant == other.variant
    }
}
impl Eq for Geometry {}

const fn build(variant: Variant, size: u8) -> Geometry {
    let mut playable = 0u64;
    let mut rank = 0;
    while rank < size {
        let mut file = 0;
        while file < size {
            if (rank + file) % 2 == 0 {
                playable |= 1u64 << (rank * 8 + file);
            }
            file += 1;
        }
        rank += 1;
    }
    let mut next = [[NO_SQUARE; 4]; 64];
    let deltas: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
    let mut sq = 0;
    while sq < 64 {
        if playable & (1u64 << sq) != 0 {
            let file = (sq % 8) as i8;
            let rank = (sq / 8) as i8;
            let mut d = 0;
            while d < 4 {
                let f = file + deltas[d].0;
                let r = rank + deltas[d].1;
                if f >= 0 && r >= 0 && f < size as i8 && r < size as i8 {
                    next[sq][d] = (r * 8 + f) as u8;
                }
                d += 1;
            }
        }
        sq += 1;
    }
    let mut rays = [[0u64; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let mut at = next[sq][d];
            while at != NO_SQUARE {
                rays[sq][d] |= 1u64 << at;
                at = next[at as usize][d];
            }
            d += 1;
        }
        sq += 1;
    }
    let first_rank = 0xFFu64 >> (8 - size);
    let last_rank = first_rank << ((size as u64 - 1) * 8);
    let mut ray_sets = [[Bitboard::EMPTY; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            ray_sets[sq][d] = Bitboard(rays[sq][d]);
            d += 1;
        }
        sq += 1;
    }
    Geometry {
        variant,
        size,
        playable: Bitboard(playable),
        next,
        promotion: [
            Bitboard(last_rank & playable),
            Bitboard(first_rank & playable),
        ],
        square_count: playable.count_ones(),
        rays: ray_sets,
    }
}

pub static BASHNI: Geometry = build(Variant::Bashni, 8);
pub static LASCA: Geometry = build(Variant::Lasca, 7);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_sizes_and_corners() {
        assert_eq!(BASHNI.square_count, 32);
        assert_eq!(LASCA.square_count, 25);
        // a1 is playable in both; Lasca has all four corners.
        for sq in ["a1", "a7", "g1", "g7"] {
            let s = Square::new(sq.as_bytes()[0] - b'a', sq.as_bytes()[1] - b'1');
            assert!(LASCA.is_playable(s), "{sq}");
        }
        assert!(BASHNI.is_playable(Square::new(0, 0)));
        assert!(!BASHNI.is_playable(Square::new(7, 0)));
    }

    #[test]
    fn rays_follow_the_neighbour_table() {
        for g in [&BASHNI, &LASCA] {
            for sq in g.squares() {
                for dir in Direction::ALL {
                    let mut walked = Bitboard::EMPTY;
                    let mut at = sq;
                    while let Some(n) = g.step(at, dir) {
                        walked |= n.bb();
                        at = n;
                    }
                    let ray = g.rays[sq.index()][dir as usize];
                    assert_eq!(ray, walked, "{sq} {dir:?} on {}", g.size);
                    if ray.any() {
                        let first = g.step(sq, dir).unwrap();
                        assert_eq!(dir.nearest(ray), first);
                    }
                }
            }
        }
    }

    #[test]
    fn shifts_agree_with_neighbour_table() {
        for g in [&BASHNI, &LASCA] {
            for sq in g.squares() {
                for dir in Direction::ALL {
                    let shifted = dir.shift(sq.bb()) & g.playable;
                    let table = g.step(sq, dir).map_or(Bitboard::EMPTY, Square::bb);
                    assert_eq!(shifted, table, "{sq} {dir:?} on {}", g.size);
                }
            }
        }
    }
}
