//! The position: columns, bitboards, side to move, draw counters and the
//! Zobrist-style key; make and unmake.

use super::bitboard::Bitboard;
use super::column::{Column, Piece};
use super::geometry::{Colour, Geometry, Square, Variant};
use super::mix::mix64;
use super::movegen::RulesKind;
use super::moves::Move;
use super::ruleset::{ParseRuleError, RuleSet};

/// How a flying king may land after a capture (Bashni only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KingLanding {
    /// If some landing squares let the capture go on, land on one
    /// of them.
    #[default]
    Continue,
    /// Any empty square behind the captured column.
    Free,
}

impl std::str::FromStr for KingLanding {
    type Err = ParseRuleError;
    fn from_str(s: &str) -> Result<Self, ParseRuleError> {
        match s.to_ascii_lowercase().as_str() {
            "continue" => Ok(KingLanding::Continue),
            "free" => Ok(KingLanding::Free),
            _ => Err(ParseRuleError::UnknownKingLanding(s.to_string())),
        }
    }
}

impl std::fmt::Display for KingLanding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KingLanding::Continue => "continue",
            KingLanding::Free => "free",
        })
    }
}

/// What `make` returns and `unmake` needs; everything else is recomputed.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    key: u64,
    no_progress: u32,
    fullmove: u32,
}

/// A full game state.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(super) geometry: &'static Geometry,
    pub(super) king_landing: KingLanding,
    /// Whether a side that can capture must (the `ForcedCapture` rule).
    pub(super) forced_capture: bool,
    /// The variant, landing and capture rules as move generation needs
    /// them (kept in step with the three).
    pub(super) rules_kind: RulesKind,
    pub(super) columns: [Column; 64],
    /// Squares by the commander's colour.
    pub(super) by_colour: [Bitboard; 2],
    /// Squares whose commander is a king.
    pub(super) kings: Bitboard,
    pub(super) side: Colour,
    /// Plies since the last capture or man move.
    pub(super) no_progress: u32,
    /// Starts at 1, goes up after Black moves.
    pub(super) fullmove: u32,
    pub(super) key: u64,
}

/// The largest value of either counter (no-progress plies, move number).
/// Far beyond any game (MaxPlies is at most 100,000), small enough that no
/// counter arithmetic (`game_ply` doubles the move number) overflows. The
/// counters stop there instead of growing, so every position the engine
/// prints is one it reads back.
pub const MAX_COUNTER: u32 = 1 << 30;

/// A counter one higher, held at `MAX_COUNTER`.
#[inline(always)]
fn count_up(counter: u32) -> u32 {
    (counter + 1).min(MAX_COUNTER)
}

const SIDE_KEY: u64 = 0x6A09_E667_F3BC_C909;

/// The key of one square: a mix of the packed column and a per-square salt,
/// the same cost at any column height.
#[inline]
fn square_key(sq: usize, col: Column) -> u64 {
    if col.is_empty() {
        0
    } else {
        mix64(col.bits() ^ (sq as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

impl Position {
    /// An empty board with White to move.
    pub fn empty(rules: &RuleSet) -> Position {
        Position {
            geometry: rules.variant.geometry(),
            king_landing: rules.king_landing,
            forced_capture: rules.forced_capture,
            rules_kind: RulesKind::of(rules.variant, rules.king_landing, rules.forced_capture),
            columns: [Column::EMPTY; 64],
            by_colour: [Bitboard::EMPTY; 2],
            kings: Bitboard::EMPTY,
            side: Colour::White,
            no_progress: 0,
            fullmove: 1,
            key: 0,
        }
    }

    /// The start position of the rules' variant.
    pub fn start(rules: &RuleSet) -> Position {
        Position::from_fen(rules, rules.variant.start_fen()).expect("start FEN is valid")
    }

    /// The game this position belongs to.
    #[inline]
    pub fn variant(&self) -> Variant {
        self.geometry.variant
    }

    /// The board.
    #[inline]
    pub fn geometry(&self) -> &'static Geometry {
        self.geometry
    }

    /// How flying kings land after a capture here.
    pub fn king_landing(&self) -> KingLanding {
        self.king_landing
    }

    /// Chooses the landing rule; it only matters in Bashni. Positions get
    /// theirs from a `RuleSet`; a game changes it through `Game::set_rules`.
    pub(super) fn set_king_landing(&mut self, rule: KingLanding) {
        self.king_landing = rule;
        self.rules_kind = RulesKind::of(self.variant(), rule, self.forced_capture);
    }

    /// Whether captures are compulsory here (the rule set's
    /// `forced_capture`): if not, plain moves are legal beside captures.
    #[inline]
    pub fn forced_capture(&self) -> bool {
        self.forced_capture
    }

    /// Chooses whether captures are compulsory; positions get it from a
    /// `RuleSet`, and a game changes it through `Game::set_rules`.
    pub(super) fn set_forced_capture(&mut self, forced: bool) {
        self.forced_capture = forced;
        self.rules_kind = RulesKind::of(self.variant(), self.king_landing, forced);
    }

    /// The side whose turn it is.
    #[inline]
    pub fn side_to_move(&self) -> Colour {
        self.side
    }

    /// The column on `sq` (empty if none).
    #[inline]
    pub fn column(&self, sq: Square) -> Column {
        self.columns[sq.index()]
    }

    /// Squares commanded by `colour`.
    #[inline]
    pub fn commanded_by(&self, colour: Colour) -> Bitboard {
        self.by_colour[colour.index()]
    }

    /// Squares commanded by a king (of either colour).
    #[inline]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }

    /// Squares holding a column.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_colour[0] | self.by_colour[1]
    }

    /// Plies since the last capture or man move.
    #[inline]
    pub fn no_progress_plies(&self) -> u32 {
        self.no_progress
    }

    /// The move number: starts at 1, goes up after Black moves.
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Plies played since move 1 with White to move.
    #[inline]
    pub fn game_ply(&self) -> u32 {
        (self.fullmove - 1) * 2 + self.side.index() as u32
    }

    /// The hash key of the full column state and side to move.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key computed from nothing: tests check it against `key()`.
    pub fn key_from_scratch(&self) -> u64 {
        let squares = (0..64).fold(0, |k, sq| k ^ square_key(sq, self.columns[sq]));
        squares
            ^ if self.side == Colour::Black {
                SIDE_KEY
            } else {
                0
            }
    }

    /// Set up a square; keeps bitboards and key in step.
    #[inline]
    pub(super) fn set(&mut self, sq: usize, col: Column) {
        self.put::<true>(sq, col);
    }

    /// Set up a square, keeping the bitboards (and the key if `KEYED`) in
    /// step.
    #[inline(always)]
    fn put<const KEYED: bool>(&mut self, sq: usize, col: Column) {
        if KEYED {
            self.key ^= square_key(sq, self.columns[sq]) ^ square_key(sq, col);
        }
        self.columns[sq] = col;
        let bit = Square::from_index(sq as u8).bb();
        self.by_colour[0] &= !bit;
        self.by_colour[1] &= !bit;
        self.kings &= !bit;
        if !col.is_empty() {
            self.by_colour[col.owner().index()] |= bit;
            if col.top_is_king() {
                self.kings |= bit;
            }
        }
    }

    pub(super) fn set_side(&mut self, side: Colour) {
        if side != self.side {
            self.side = side;
            self.key ^= SIDE_KEY;
        }
    }

    pub(super) fn set_counters(&mut self, no_progress: u32, fullmove: u32) {
        self.no_progress = no_progress;
        self.fullmove = fullmove;
    }

    /// Pieces of `colour` anywhere on the board, buried ones included.
    pub fn piece_count(&self, colour: Colour) -> u32 {
        self.columns.iter().map(|c| c.count(colour)).sum()
    }

    /// What `unmake` restores besides the board.
    #[inline(always)]
    fn undo_point(&self) -> Undo {
        Undo {
            key: self.key,
            no_progress: self.no_progress,
            fullmove: self.fullmove,
        }
    }

    /// Hand the move to the other side; the move number goes up after Black.
    #[inline(always)]
    fn pass_turn(&mut self) {
        if self.side == Colour::Black {
            self.fullmove = count_up(self.fullmove);
        }
        self.side = !self.side;
    }

    /// Play a legal move of this position.
    #[inline]
    pub fn make(&mut self, mv: &Move) -> Undo {
        self.make_with::<true>(mv)
    }

    /// `make` without updating the hash key, for perft, which never reads
    /// it; `unmake` restores the position (key included) all the same.
    #[inline]
    pub(super) fn make_unkeyed(&mut self, mv: &Move) -> Undo {
        self.make_with::<false>(mv)
    }

    #[inline(always)]
    fn make_with<const KEYED: bool>(&mut self, mv: &Move) -> Undo {
        let undo = self.undo_point();
        let from = mv.from as usize;
        let mut col = self.columns[from];
        let man_moved = !col.top_is_king();
        self.put::<KEYED>(from, Column::EMPTY);
        for &sq in &mv.jumped[..mv.captures as usize] {
            let (rest, king) = self.columns[sq as usize].take_top();
            self.put::<KEYED>(sq as usize, rest);
            col = col.add_prisoner(king);
        }
        if mv.promotes {
            col = col.promote();
        }
        self.put::<KEYED>(mv.to as usize, col);
        self.no_progress = if man_moved || mv.captures > 0 {
            0
        } else {
            count_up(self.no_progress)
        };
        self.pass_turn();
        if KEYED {
            self.key ^= SIDE_KEY;
        }
        undo
    }

    /// Take back `mv`, which must be the last move made. The key comes back
    /// from `undo`, so squares are restored without rehashing them.
    #[inline]
    pub fn unmake(&mut self, mv: &Move, undo: Undo) {
        self.side = !self.side;
        let enemy = !self.side;
        let mut col = self.columns[mv.to as usize];
        self.put::<false>(mv.to as usize, Column::EMPTY);
        if mv.promotes {
            col = col.demote();
        }
        for &sq in mv.jumped[..mv.captures as usize].iter().rev() {
            let (rest, king) = col.remove_bottom();
            col = rest;
            let back = self.columns[sq as usize].put_on_top(Piece {
                colour: enemy,
                king,
            });
            self.put::<false>(sq as usize, back);
        }
        self.put::<false>(mv.from as usize, col);
        self.no_progress = undo.no_progress;
        self.fullmove = undo.fullmove;
        self.fullmove = undo.fullmove;
        self.key = undo.key;
    }

    /// Play the plain move `from`-`to` without touching the key, for
    /// perft: no `Move` is built and only the two squares change. Returns
    /// what `unmake_quiet` needs, including whether a man was crowned.
    #[inline(always)]
    pub(super) fn make_quiet_unkeyed(&mut self, from: Square, to: Square) -> (Undo, bool) {
        let undo = self.undo_point();
        let (f, t) = (from.index(), to.index());
        let moved = from.bb() | to.bb();
        let mut col = self.columns[f];
        self.by_colour[self.side.index()] ^= moved;
        let crowned = if col.top_is_king() {
            self.kings ^= moved;
            self.no_progress = count_up(self.no_progress);
            false
        } else {
            self.no_progress = 0;
            let crowned = self.geometry.promotion[self.side.index()].has(to);
            if crowned {
                col = col.promote();
                self.kings |= to.bb();
            }
            crowned
        };
        self.columns[t] = col;
        self.columns[f] = Column::EMPTY;
        self.pass_turn();
        (undo, crowned)
    }

    /// Take back `make_quiet_unkeyed(from, to)`.
    #[inline(always)]
    pub(super) fn unmake_quiet(&mut self, from: Square, to: Square, undo: Undo, crowned: bool) {
        self.side = !self.side;
        let (f, t) = (from.index(), to.index());
        let moved = from.bb() | to.bb();
        let mut col = self.columns[t];
        self.by_colour[self.side.index()] ^= moved;
        if crowned {
            col = col.demote();
            self.kings &= !to.bb();
        } else if col.top_is_king() {
            self.kings ^= moved;
        }
        self.columns[f] = col;
        self.columns[t] = Column::EMPTY;
        self.no_progress = undo.no_progress;
        self.fullmove = undo.fullmove;
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random games: after every make the key matches a fresh computation,
    /// and unmake (keyed or not) gives back the exact position.
    #[test]
    fn make_and_unmake_keep_key_and_position() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for variant in Variant::ALL {
            for _ in 0..50 {
                let mut pos = Position::start(&RuleSet::new(variant));
                for _ in 0..150 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for mv in &moves {
                        let before = pos.clone();
                        let undo = pos.make_unkeyed(mv);
                        let after = pos.clone();
                        pos.unmake(mv, undo);
                        assert_eq!(pos, before);
                        if !mv.is_capture() {
                            let (undo, crowned) = pos.make_quiet_unkeyed(mv.from(), mv.to());
                            assert_eq!(crowned, mv.promotes());
                            assert_eq!(pos, after);
                            pos.unmake_quiet(mv.from(), mv.to(), undo, crowned);
                            assert_eq!(pos, before);
                        }
                    }
                    let mv = moves[(next() % moves.len() as u64) as usize];
                    let before = pos.clone();
                    let undo = pos.make(&mv);
                    assert_eq!(pos.key(), pos.key_from_scratch(), "{mv} from {before:?}");
                    let mut back = pos.clone();
                    back.unmake(&mv, undo);
                    assert_eq!(back, before);
                }
            }
        }
    }
}
