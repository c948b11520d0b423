//! Static evaluation: a tapered sum of terms over the columns.
//!
//! Each term is a (midgame, endgame) pair counted from White's view: White's
//! part minus Black's. The phase measures how far the game has moved from
//! many small columns (midgame) toward few tall columns and kings (endgame),
//! and the score blends the two parts by it. Every weight is in the
//! [`Weights`] table of its variant ([`BASHNI_WEIGHTS`], [`LASCA_WEIGHTS`]), so tuning never
//! touches the code.
//!
//! The column terms follow strong players' advice on columns: judge a
//! column by what sits under its top. Own pieces under the commander are
//! armour (they keep the square when the top is taken); enemy prisoners
//! under it are the enemy's potential material, worth the more to the enemy
//! the fewer own pieces guard them, and handed back by one jump when the
//! commander stands alone on them.
//!
//! The whole evaluation is bitboard counts and one pass over the columns,
//! with no allocation (see docs/tt-and-eval.md for its cost).

use crate::rules::{Bitboard, Colour, Position, Variant};
use std::fmt::Write as _;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// A (midgame, endgame) pair in centi-men.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub mg: i32,
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
#[derive(Clone, Debug)]
pub struct Weights {
    /// Each column a side commands, whatever its top.
    pub commander: Pair,
    /// Extra for a king on top: flying in Bashni, a stepping officer in Lasca.
    pub king: Pair,
    /// Extra for a king on the long diagonal a1-h8 (Bashni's main road).
    pub king_long_diagonal: Pair,
    /// Each own piece under the commander: it keeps the square when the top
    /// is taken.
    pub armour: Pair,
    /// Extra for an own king inside the armour: it leads as a king once
    /// uncovered.
    pub buried_king: Pair,
    /// Each piece held prisoner, counted for its own side, by the guard of
    /// the column holding it (own pieces there: 1, 2, 3 or more). Under a
    /// lone commander one jump frees them all.
    pub prisoner: [Pair; 3],
    /// Extra for a king held prisoner, by the same guard.
    pub prisoner_king: [Pair; 3],
    /// Man-commanded columns by rank counted from the own side.
    pub advancement: [Pair; 8],
    /// Man-commanded columns on the own back rank: they stop enemy crowning.
    pub back_rank: Pair,
    /// Columns on the centre squares.
    pub centre: Pair,
    /// Each empty square a man could step to.
    pub man_mobility: Pair,
    /// Each empty square a king could move to.
    pub king_mobility: Pair,
    /// Each column the enemy could jump at once.
    pub attacked: Pair,
    /// Each prisoner such a jump would free (a lone commander on prisoners).
    pub attacked_prisoner: Pair,
    /// For the side to move.
    pub tempo: Pair,
    /// Columns on the board (less one per king) at and above which the game
    /// is all midgame.
    pub midgame_columns: i32,
    /// Columns (less one per king) at and below which it is all endgame.
    pub endgame_columns: i32,
}

/// Russian column draughts: flying kings are worth far more than men.
pub const BASHNI_WEIGHTS: Weights = Weights {
    commander: pair(100, 100),
    king: pair(150, 220),
    king_long_diagonal: pair(10, 20),
    armour: pair(60, 70),
    buried_king: pair(40, 60),
    prisoner: [pair(35, 30), pair(15, 12), pair(5, 5)],
    prisoner_king: [pair(25, 30), pair(10, 12), pair(3, 4)],
    advancement: [
        pair(0, 0),
        pair(1, 2),
        pair(3, 5),
        pair(5, 9),
        pair(7, 14),
        pair(10, 22),
        pair(14, 32),
        pair(0, 0),
    ],
    back_rank: pair(10, 0),
    centre: pair(6, 2),
    man_mobility: pair(2, 2),
    king_mobility: pair(2, 3),
    attacked: pair(12, 16),
    attacked_prisoner: pair(25, 30),
    tempo: pair(8, 4),
    midgame_columns: 24,
    endgame_columns: 4,
};

/// Lasca: officers step and soldiers capture forwards only, so kings are
/// worth less and columns (the game's real material) count for more.
pub const LASCA_WEIGHTS: Weights = Weights {
    commander: pair(100, 100),
    king: pair(60, 90),
    king_long_diagonal: pair(0, 0),
    armour: pair(65, 70),
    buried_king: pair(30, 40),
    prisoner: [pair(40, 35), pair(15, 12), pair(5, 5)],
    prisoner_king: [pair(20, 25), pair(8, 10), pair(3, 4)],
    advancement: [
        pair(0, 0),
        pair(1, 3),
        pair(3, 7),
        pair(6, 12),
        pair(9, 18),
        pair(12, 25),
        pair(0, 0),
        pair(0, 0),
    ],
    back_rank: pair(8, 0),
    centre: pair(8, 3),
    man_mobility: pair(2, 2),
    king_mobility: pair(2, 3),
    attacked: pair(12, 16),
    attacked_prisoner: pair(25, 30),
    tempo: pair(8, 4),
    midgame_columns: 22,
    endgame_columns: 4,
};

/// The weights a variant is evaluated with.
pub fn weights(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Bashni => &BASHNI_WEIGHTS,
        Variant::Lasca => &LASCA_WEIGHTS,
    }
}

/// The evaluation terms, in the order `explain` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Commanders,
    Kings,
    Armour,
    Prisoners,
    Advancement,
    BackRank,
    Centre,
    Mobility,
    Vulnerability,
    Tempo,
}

impl Term {
    pub const ALL: [Term; 10] = [
        Term::Commanders,
        Term::Kings,
        Term::Armour,
        Term::Prisoners,
        Term::Advancement,
        Term::BackRank,
        Term::Centre,
        Term::Mobility,
        Term::Vulnerability,
        Term::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Term::Commanders => "commanders",
            Term::Kings => "kings",
            Term::Armour => "armour",
            Term::Prisoners => "prisoners",
            Term::Advancement => "advancement",
            Term::BackRank => "back-rank",
            Term::Centre => "centre",
            Term::Mobility => "mobility",
            Term::Vulnerability => "vulnerability",
            Term::Tempo => "tempo",
        }
    }
}

/// Phase is out of this: all midgame.
pub const PHASE_MAX: i32 = 256;

/// Scores stay inside this, well clear of the search's mate scores.
pub const MAX_EVAL: i32 = 10_000;

/// Every term from White's view, and the phase.
#[derive(Clone, Debug)]
pub struct Breakdown {
    /// Indexed by `Term as usize`.
    pub terms: [Pair; Term::ALL.len()],
    /// 0 (endgame) ..= `PHASE_MAX` (midgame).
    pub phase: i32,
}

impl Breakdown {
    /// The sum of the terms.
    pub fn total(&self) -> Pair {
        self.terms.iter().fold(Pair::default(), |a, &t| a + t)
    }

    /// The tapered score from White's view.
    pub fn white_score(&self) -> i32 {
        blend(self.total(), self.phase)
    }
}

/// The diagonal a1-h8 (a1-g7 on the Lasca board).
const LONG_DIAGONAL: Bitboard = Bitboard(0x8040_2010_0804_0201);

/// Centre squares: c3 e3 d4 f4 c5 e5 d6 f6 (Bashni), c3 e3 d4 c5 e5 (Lasca).
/// Both sets are symmetric under the half turn that swaps the sides.
const fn centre(variant: Variant) -> Bitboard {
    let (low, high) = match variant {
        Variant::Bashni => (2, 5),
        Variant::Lasca => (2, 4),
    };
    let mut bb = 0;
    let mut rank = low;
    while rank <= high {
        let mut file = low;
        while file <= high {
            if (rank + file) % 2 == 0 {
                bb |= 1u64 << (rank * 8 + file);
            }
            file += 1;
        }
        rank += 1;
    }
    Bitboard(bb)
}

const CENTRE: [Bitboard; 2] = [centre(Variant::Bashni), centre(Variant::Lasca)];

/// Where the terms go: `evaluate` only needs their sum, `explain` each one.
/// Making the evaluation generic over this keeps one code path for both
/// with no per-term bookkeeping at the leaves.
trait Sink {
    fn add(&mut self, term: Term, value: Pair);
}

/// Sums every term.
#[derive(Default)]
struct Total(Pair);

impl Sink for Total {
    #[inline(always)]
    fn add(&mut self, _: Term, value: Pair) {
        self.0 += value;
    }
}

/// Keeps every term apart.
#[derive(Default)]
struct PerTerm([Pair; Term::ALL.len()]);

impl Sink for PerTerm {
    fn add(&mut self, term: Term, value: Pair) {
        self.0[term as usize] += value;
    }
}

/// Everything one side has, counted for White (Black's parts negated).
/// `BASHNI_RULES` selects the game: flying kings and men capturing
/// backwards, or not.
#[inline(always)]
fn side_terms<const BASHNI_RULES: bool, const WHITE: bool>(
    pos: &Position,
    w: &Weights,
    sink: &mut impl Sink,
) {
    let colour = if WHITE { Colour::White } else { Colour::Black };
    let g = pos.geometry();
    let own = pos.commanded_by(colour);
    let kings = own & pos.kings();
    let men = own & !kings;
    let mut put = |term, value: Pair| sink.add(term, if WHITE { value } else { -value });

    // One pass over the columns for what sits under each top. Prisoners
    // are the other side's potential material; their value is counted
    // here and handed over below.
    let mut armour = 0;
    let mut buried_kings = 0;
    let mut potential = Pair::default();
    let mut advancement = Pair::default();
    let last_rank = g.size - 1;
    for sq in own {
        let col = pos.column(sq);
        let from_own_side = if WHITE {
            sq.rank()
        } else {
            last_rank - sq.rank()
        };
        let man = !col.top_is_king() as i32;
        advancement += w.advancement[from_own_side as usize & 7] * man;
        let n = col.own();
        armour += n as i32 - 1;
        let guard = n.clamp(1, 3) as usize - 1;
        potential += w.prisoner[guard] * col.prisoners() as i32;
        // Kings below the top are rare: count them only when present.
        let kb = col.king_bits();
        if kb > 1 {
            buried_kings += (kb & ((1u64 << n) - 2)).count_ones() as i32;
            potential += w.prisoner_king[guard] * (kb >> n).count_ones() as i32;
        }
    }
    put(Term::Commanders, w.commander * own.len() as i32);
    put(
        Term::Kings,
        w.king * kings.len() as i32
            + w.king_long_diagonal * (kings & LONG_DIAGONAL).len() as i32
            + w.buried_king * buried_kings,
    );
    put(Term::Armour, w.armour * armour);
    put(Term::Prisoners, -potential);

    put(Term::Advancement, advancement);
    let back_rank = g.promotion[(!colour).index()];
    put(Term::BackRank, w.back_rank * (men & back_rank).len() as i32);
    let centre = CENTRE[!BASHNI_RULES as usize];
    put(Term::Centre, w.centre * (own & centre).len() as i32);

    // Moves and jumps, as the rules define them.
    let reach = pos.reach(colour);
    put(
        Term::Mobility,
        w.man_mobility * reach.man_moves as i32 + w.king_mobility * reach.king_moves as i32,
    );

    // Enemy columns this side could jump: the more so where a lone
    // commander would hand its prisoners back.
    let mut freed = 0;
    for sq in reach.jumpable {
        let col = pos.column(sq);
        if col.own() == 1 {
            freed += col.prisoners() as i32;
        }
    }
    put(
        Term::Vulnerability,
        w.attacked * reach.jumpable.len() as i32 + w.attacked_prisoner * freed,
    );
}

/// Feeds every term of `pos` from White's view to `sink`; returns the phase.
#[inline(always)]
fn terms_for<const BASHNI_RULES: bool>(pos: &Position, sink: &mut impl Sink) -> i32 {
    let w = if BASHNI_RULES {
        &BASHNI_WEIGHTS
    } else {
        &LASCA_WEIGHTS
    };
    side_terms::<BASHNI_RULES, true>(pos, w, sink);
    side_terms::<BASHNI_RULES, false>(pos, w, sink);
    let tempo = match pos.side_to_move() {
        Colour::White => w.tempo,
        Colour::Black => -w.tempo,
    };
    sink.add(Term::Tempo, tempo);

    // Many small columns: midgame. Captures merge columns and kings open
    // the board, both moving toward the endgame.
    let columns = pos.occupied().len() as i32 - pos.kings().len() as i32;
    ((columns - w.endgame_columns) * PHASE_MAX / (w.midgame_columns - w.endgame_columns))
        .clamp(0, PHASE_MAX)
}

#[inline(always)]
fn terms(pos: &Position, sink: &mut impl Sink) -> i32 {
    match pos.variant() {
        Variant::Bashni => terms_for::<true>(pos, sink),
        Variant::Lasca => terms_for::<false>(pos, sink),
    }
}

/// The tapered score from White's view. Division truncates toward zero,
/// so a colour-mirrored position gets exactly the negated score.
#[inline]
fn blend(total: Pair, phase: i32) -> i32 {
    let blended = (total.mg * phase + total.eg * (PHASE_MAX - phase)) / PHASE_MAX;
    blended.clamp(-MAX_EVAL, MAX_EVAL)
}

/// Every term of `pos` from White's view, and the phase.
pub fn breakdown(pos: &Position) -> Breakdown {
    let mut per_term = PerTerm::default();
    let phase = terms(pos, &mut per_term);
    Breakdown {
        terms: per_term.0,
        phase,
    }
}

/// Static score in centi-men from the side to move's view; |score| <= 10_000.
pub fn evaluate(pos: &Position) -> i32 {
    let mut total = Total::default();
    let phase = terms(pos, &mut total);
    let white = blend(total.0, phase);
    if pos.side_to_move() == Colour::White {
        white
    } else {
        -white
    }
}

/// A multi-line human-readable breakdown for the protocol's `eval` command:
/// each term with its midgame and endgame part (from White's view), the
/// phase, and the final score (from White's view and side to move's view).
pub fn explain(pos: &Position) -> String {
    let b = breakdown(pos);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<14} {:>8} {:>8}   (centi-men, White's view)",
        "term", "midgame", "endgame"
    );
    for term in Term::ALL {
        let p = b.terms[term as usize];
        let _ = writeln!(out, "{:<14} {:>8} {:>8}", term.name(), p.mg, p.eg);
    }
    let total = b.total();
    let _ = writeln!(out, "{:<14} {:>8} {:>8}", "total", total.mg, total.eg);
    let _ = writeln!(
        out,
        "phase {} of {} (midgame {}%, endgame {}%)",
        b.phase,
        PHASE_MAX,
        b.phase * 100 / PHASE_MAX,
        100 - b.phase * 100 / PHASE_MAX
    );
    let _ = writeln!(out, "score, White's view: {}", b.white_score());
    let side = pos.side_to_move();
    let _ = write!(out, "score, side to move ({side}): {}", evaluate(pos));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{RuleSet, Square};

    fn position(variant: Variant, fen: &str) -> Position {
        Position::from_fen(&RuleSet::new(variant), fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
    }

    /// The score from White's view.
    fn white_view(variant: Variant, fen: &str) -> i32 {
        breakdown(&position(variant, fen)).white_score()
    }

    /// How a square maps when the board is turned for the other side.
    #[derive(Clone, Copy)]
    enum Mirror {
        /// The half turn: the only colour swap that keeps the 8x8 board's
        /// dark squares dark (and its long diagonal a1-h8 in place).
        HalfTurn,
        /// Flip top to bottom: possible on the 7x7 board, whose corners are
        /// all playable.
        Vertical,
    }

    /// The position with colours swapped, the board turned and the other
    /// side to move, built as a position string.
    fn mirrored(pos: &Position, mirror: Mirror) -> Position {
        let size = pos.geometry().size;
        let mut columns = Vec::new();
        for sq in pos.geometry().squares() {
            let col = pos.column(sq);
            if col.is_empty() {
                continue;
            }
            let (file, rank) = match mirror {
                Mirror::HalfTurn => (size - 1 - sq.file(), size - 1 - sq.rank()),
                Mirror::Vertical => (sq.file(), size - 1 - sq.rank()),
            };
            let pieces: String = col
                .pieces()
                .map(|p| match (p.colour, p.king) {
                    (Colour::White, false) => 'b',
                    (Colour::White, true) => 'B',
                    (Colour::Black, false) => 'w',
                    (Colour::Black, true) => 'W',
                })
                .collect();
            columns.push(format!("{}{pieces}", Square::new(file, rank)));
        }
        let side = match pos.side_to_move() {
            Colour::White => 'B',
            Colour::Black => 'W',
        };
        position(pos.variant(), &format!("{side}:{}", columns.join(",")))
    }

    /// Positions met in random games: every position before each move.
    pub(super) fn random_positions(variant: Variant, games: usize, seed: u64) -> Vec<Position> {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = Position::start(&RuleSet::new(variant));
            for _ in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                out.push(pos.clone());
                pos.make(&moves[next() as usize % moves.len()]);
            }
        }
        out
    }

    #[test]
    fn mirrored_positions_score_the_same_for_the_side_to_move() {
        for variant in Variant::ALL {
            let mirrors: &[Mirror] = match variant {
                Variant::Bashni => &[Mirror::HalfTurn],
                Variant::Lasca => &[Mirror::HalfTurn, Mirror::Vertical],
            };
            let positions = random_positions(variant, 40, 7);
            assert!(
                positions.len() > 2000,
                "{variant}: {} positions",
                positions.len()
            );
            for pos in &positions {
                for &mirror in mirrors {
                    let other = mirrored(pos, mirror);
                    assert_eq!(evaluate(pos), evaluate(&other), "{pos:?} vs {other:?}");
                    assert_eq!(breakdown(pos).phase, breakdown(&other).phase);
                }
            }
        }
    }

    #[test]
    fn start_position_is_level_but_for_the_tempo() {
        for variant in Variant::ALL {
            let start = Position::start(&RuleSet::new(variant));
            let b = breakdown(&start);
            assert_eq!(b.phase, PHASE_MAX, "{variant} starts in the midgame");
            assert_eq!(
                b.total(),
                weights(variant).tempo,
                "{variant}: {}",
                explain(&start)
            );
            assert_eq!(evaluate(&start), weights(variant).tempo.mg);
        }
    }

    #[test]
    fn more_material_kings_and_armour_score_higher() {
        for variant in Variant::ALL {
            let v = |fen| white_view(variant, fen);
            // A man more.
            assert!(v("W:c1w,e1w,a5b") > v("W:c1w,a5b") + 50, "{variant}");
            assert!(v("W:c1w,a5b") > v("W:c1w,a5b,c5b") + 50, "{variant}");
            // A king instead of a man.
            assert!(v("W:c3W,a5b") > v("W:c3w,a5b") + 40, "{variant}");
            // Armour: an own piece under the commander.
            assert!(v("W:c3ww,a5b") > v("W:c3w,a5b") + 40, "{variant}");
            // A buried own king.
            assert!(v("W:c3wW,a5b") > v("W:c3ww,a5b"), "{variant}");
        }
        // A king is worth more in Bashni, where it flies.
        let king_gain =
            |variant| white_view(variant, "W:c3W,a5b") - white_view(variant, "W:c3w,a5b");
        assert!(king_gain(Variant::Bashni) > king_gain(Variant::Lasca) + 50);
    }

    #[test]
    fn capturing_onto_armour_beats_capturing_onto_prisoners() {
        // Stacking a prisoner onto a column of own pieces makes it
        // nearly unbreakable; onto a column of prisoners, a bigger target.
        // Same pieces, same squares; only which column took the prisoner.
        for variant in Variant::ALL {
            let onto_armour = white_view(variant, "W:c1wwwb,g1wbb,a7b");
            let onto_prisoners = white_view(variant, "W:c1www,g1wbbb,a7b");
            assert!(
                onto_armour > onto_prisoners + 20,
                "{variant}: {onto_armour} vs {onto_prisoners}"
            );
            // And of two columns of one height, the armoured one is worth
            // more to its owner than the one on prisoners.
            let armoured = white_view(variant, "W:c1wwbb,g1wb,a7b");
            let laden = white_view(variant, "W:c1wbbb,g1ww,a7b");
            assert!(armoured > laden, "{variant}: {armoured} vs {laden}");
        }
    }

    #[test]
    fn a_lone_commander_on_prisoners_under_attack_is_the_weakest() {
        // Black's man on e5 can jump d4 and land on c3; f6 is taken, so
        // d4 cannot jump e5 back.
        let vulnerability =
            |fen| breakdown(&position(Variant::Bashni, fen)).terms[Term::Vulnerability as usize];
        let safe = vulnerability("B:d4wbb,a7b");
        let armoured = vulnerability("B:d4wwbb,e5b,f6b");
        let laden = vulnerability("B:d4wbbb,e5b,f6b");
        assert_eq!(safe, Pair::default());
        assert!(
            armoured.mg < 0 && laden.mg < armoured.mg,
            "{armoured:?} {laden:?}"
        );
        // A flying king attacks from afar; a Lasca officer only next door.
        assert!(vulnerability("B:d4w,h8B").mg < 0);
        let lasca =
            |fen| breakdown(&position(Variant::Lasca, fen)).terms[Term::Vulnerability as usize];
        assert_eq!(lasca("B:c3w,g7B"), Pair::default());
        assert_eq!(lasca("B:c3w,e5B"), Pair::default());
        assert!(lasca("B:c3w,b2B").mg < 0);
        // Lasca soldiers capture forwards only: Black's man on b2 cannot
        // jump c3 backwards.
        assert_eq!(lasca("B:c3w,b2b"), Pair::default());
        assert!(lasca("B:c3w,d4b,e5b").mg < 0);
    }

    #[test]
    fn phase_moves_toward_the_endgame_as_columns_merge() {
        let phase = |fen| breakdown(&position(Variant::Bashni, fen)).phase;
        assert_eq!(phase(Variant::Bashni.start_fen()), PHASE_MAX);
        let merged = phase(
            "W:a1wwww,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b",
        );
        assert!(merged < PHASE_MAX);
        assert!(
            phase("W:a1W,c1w,e1w,g1w,b2w,b6b,d6b,f6b,h6b,g7B")
                < phase("W:a1w,c1w,e1w,g1w,b2w,b6b,d6b,f6b,h6b,g7b")
        );
        assert_eq!(phase("W:c3wwwwww,f6bbbbbb"), 0);
    }

    #[test]
    fn explain_lists_every_term_and_agrees_with_evaluate() {
        for variant in Variant::ALL {
            for pos in random_positions(variant, 3, 21).iter().step_by(7) {
                let text = explain(pos);
                for term in Term::ALL {
                    assert!(
                        text.lines()
                            .any(|l| l.split_whitespace().next() == Some(term.name())),
                        "{} missing from\n{text}",
                        term.name()
                    );
                }
                assert!(text.contains("phase"));
                let last = text.lines().last().unwrap();
                assert!(last.starts_with("score, side to move"), "{last}");
                let shown: i32 = last.rsplit(' ').next().unwrap().parse().unwrap();
                assert_eq!(shown, evaluate(pos), "{text}");
                let white: i32 = text
                    .lines()
                    .find(|l| l.starts_with("score, White's view"))
                    .and_then(|l| l.rsplit(' ').next())
                    .unwrap()
                    .parse()
                    .unwrap();
                let sign = if pos.side_to_move() == Colour::White {
                    1
                } else {
                    -1
                };
                assert_eq!(white * sign, evaluate(pos));
            }
        }
    }

    #[test]
    fn scores_stay_in_bounds() {
        for variant in Variant::ALL {
            for pos in random_positions(variant, 20, 3) {
                assert!(evaluate(&pos).abs() <= MAX_EVAL);
            }
        }
        let kings = "W:a1W,c1W,e1W,g1W,b2W,d2W,f2W,h2W,a3W,c3W,e3W,g3Wbbbbbbbbbbbb";
        let score = evaluate(&position(Variant::Bashni, kings));
        assert!(score > 2000 && score <= MAX_EVAL, "{score}");
    }

    /// Speed figures for docs/tt-and-eval.md:
    /// `cargo test --release --lib eval_speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn eval_speed() {
        use std::hint::black_box;
        use std::time::Instant;
        /// Kept out of line so `valgrind --tool=callgrind
        /// --toggle-collect='*measured_evaluate*'` can count its instructions.
        #[inline(never)]
        fn measured_evaluate(pos: &Position) -> i32 {
            evaluate(pos)
        }
        /// The fastest of several rounds (other jobs share the cores),
        /// in ns per call.
        fn time(positions: &[Position], repeat: usize) -> f64 {
            let mut best = f64::MAX;
            for _ in 0..30 {
                let start = Instant::now();
                for _ in 0..repeat {
                    for pos in positions {
                        black_box(measured_evaluate(black_box(pos)));
                    }
                }
                let calls = (repeat * positions.len()) as f64;
                best = best.min(start.elapsed().as_nanos() as f64 / calls);
            }
            best
        }
        for variant in Variant::ALL {
            let all = random_positions(variant, 200, 1);
            // A search evaluates a position it has just made, so it is in
            // L1; 64 positions (36 KB) stay there, the whole set does not.
            let hot: Vec<Position> = all
                .iter()
                .step_by(all.len() / 64)
                .take(64)
                .cloned()
                .collect();
            println!(
                "evaluate {variant}: {:.1} ns/call cached (64 positions), {:.1} ns/call over all {} positions of 200 random games",
                time(&hot, 200),
                time(&all, 1),
                all.len()
            );
        }
    }
}
