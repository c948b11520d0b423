//! Static evaluation: a tapered sum of terms over the columns.
//!
//! Each term is a (midgame, endgame) pair counted from White's view: White's
//! part minus Black's. The phase measures how far the game has moved from
//! many small columns (midgame) toward few tall columns and kings (endgame),
//! and the score blends the two parts by it. Every weight is one entry of
//! its variant's table in [`weights`](mod@weights), indexed by [`Param`] (declared once,
//! with names, terms and tuning, in `params.rs`), and the tables are data
//! files compiled in by the build script, so tuning (`bashni tune`,
//! src/tune.rs) rewrites a file and never the code.
//!
//! The score is linear in the weights: every parameter's weight is
//! multiplied by a count (White's count minus Black's) and summed. The
//! evaluation hands those counts to a `CountSink`: `evaluate` multiplies at
//! once, `explain` keeps each term and side apart, and [`features`] keeps
//! the counts themselves for the tuner.
//!
//! The column terms follow strong players' advice on columns: judge a
//! column by what sits under its top. Own pieces under the commander are
//! armour (they keep the square when the top is taken); enemy prisoners
//! under it are the enemy's potential material, worth the more to the enemy
//! the fewer own pieces guard them, and handed back by one jump when the
//! commander stands alone on them.
//!
//! The whole evaluation is bitboard counts and one pass over the columns,
//! with no allocation (see docs/tt-and-eval.md for its cost; `cargo bench
//! --bench micro` measures it).

mod params;
mod table;
pub mod weights;
pub mod weights_file;

pub use params::{PARAMS, Param, ParamInfo, Term, Tuning, WEIGHT_LIMIT};
pub use table::{Pair, Weights, pair};
pub use weights::{BASHNI_WEIGHTS, LASCA_WEIGHTS};

use bashni_rules::{Bitboard, Colour, Position, Variant};
use std::fmt::Write as _;

/// The weights a variant is evaluated with.
pub fn weights(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Bashni => &BASHNI_WEIGHTS,
        Variant::Lasca => &LASCA_WEIGHTS,
    }
}

/// Phase is out of this: all midgame.
pub const PHASE_MAX: i32 = 256;

/// Scores stay inside this, well clear of the search's mate scores.
pub const MAX_EVAL: i32 = 10_000;

/// Every term for each side (from that side's own view), and the phase.
#[derive(Clone, Debug)]
pub struct Breakdown {
    /// Indexed by `Colour::index()`, then `Term as usize`.
    pub sides: [[Pair; Term::ALL.len()]; 2],
    /// 0 (endgame) ..= `PHASE_MAX` (midgame).
    pub phase: i32,
}

impl Breakdown {
    /// A term from White's view: White's part minus Black's.
    pub fn term(&self, term: Term) -> Pair {
        self.sides[0][term as usize] - self.sides[1][term as usize]
    }

    /// The sum of the terms from White's view.
    pub fn total(&self) -> Pair {
        Term::ALL
            .iter()
            .fold(Pair::default(), |a, &t| a + self.term(t))
    }

    /// The tapered score from White's view.
    pub fn white_score(&self) -> i32 {
        blend(self.total(), self.phase)
    }
}

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

/// Where the counts go: `evaluate` only needs the weighted sum, `explain`
/// each term and side, the tuner the counts. Making the evaluation generic
/// over this keeps one code path for all three with no bookkeeping at the
/// leaves.
trait CountSink {
    /// `count` times parameter `param` for one side.
    fn add(&mut self, side: Colour, param: usize, count: i32);
}

/// Sums the weighted counts from White's view.
struct Total<'a> {
    weights: &'a Weights,
    sum: Pair,
}

impl CountSink for Total<'_> {
    #[inline(always)]
    fn add(&mut self, side: Colour, param: usize, count: i32) {
        let value = self.weights.params[param] * count;
        match side {
            Colour::White => self.sum += value,
            Colour::Black => self.sum = self.sum - value,
        }
    }
}

/// Keeps every term and side apart.
struct PerTerm<'a> {
    weights: &'a Weights,
    sides: [[Pair; Term::ALL.len()]; 2],
}

impl CountSink for PerTerm<'_> {
    fn add(&mut self, side: Colour, param: usize, count: i32) {
        self.sides[side.index()][Param::term(param) as usize] += self.weights.params[param] * count;
    }
}

/// Keeps the counts: White's minus Black's, per parameter.
struct Counts([i32; Param::COUNT]);

impl CountSink for Counts {
    fn add(&mut self, side: Colour, param: usize, count: i32) {
        match side {
            Colour::White => self.0[param] += count,
            Colour::Black => self.0[param] -= count,
        }
    }
}

/// Everything one side has. `BASHNI_RULES` selects the game: flying kings
/// and men capturing backwards, or not.
#[inline(always)]
fn side_terms<const BASHNI_RULES: bool>(pos: &Position, colour: Colour, sink: &mut impl CountSink) {
    let g = pos.geometry();
    let own = pos.commanded_by(colour);
    let kings = own & pos.kings();
    let men = own & !kings;
    let mut put = |param, count: i32| sink.add(colour, param, count);

    // One pass over the columns for what sits under each top. Prisoners
    // are the other side's potential material: they count against the
    // side holding them.
    let last_rank = g.size - 1;
    for sq in own {
        let col = pos.column(sq);
        let n = col.own();
        if !col.top_is_king() {
            let from_own_side = match colour {
                Colour::White => sq.rank(),
                Colour::Black => last_rank - sq.rank(),
            };
            put(Param::ADVANCEMENT + (from_own_side as usize & 7), 1);
        }
        // Armour by depth: the first, second, and third and deeper piece.
        if n > 1 {
            put(Param::ARMOUR, 1);
            if n > 2 {
                put(Param::ARMOUR + 1, 1);
                if n > 3 {
                    put(Param::ARMOUR + 2, n as i32 - 3);
                }
            }
        }
        let guard = n.clamp(1, 3) as usize - 1;
        let prisoners = col.prisoners();
        if prisoners > 0 {
            put(Param::PRISONER + guard, -(prisoners as i32));
        }
        // Kings below the top are rare: count them only when present.
        let kb = col.king_bits();
        if kb > 1 {
            put(
                Param::BURIED_KING,
                (kb & ((1u64 << n) - 2)).count_ones() as i32,
            );
            let held = (kb >> n).count_ones();
            put(Param::PRISONER_KING + guard, -(held as i32));
        }
    }
    put(Param::COMMANDER, own.len() as i32);
    put(Param::KING, kings.len() as i32);
    let back_rank = g.promotion[(!colour).index()];
    put(Param::BACK_RANK, (men & back_rank).len() as i32);
    let centre = CENTRE[!BASHNI_RULES as usize];
    put(Param::CENTRE, (own & centre).len() as i32);

    // Moves, as the rules define them.
    let reach = pos.reach(colour);
    put(Param::MAN_MOBILITY, reach.man_moves as i32);
    put(Param::KING_MOBILITY, reach.king_moves as i32);

    // Enemy columns this side could jump at once: the more so where a
    // lone commander would hand its prisoners back, or a king would fall.
    let mut freed = 0;
    for sq in reach.jumpable {
        let col = pos.column(sq);
        if col.own() == 1 {
            freed += col.prisoners();
        }
    }
    put(Param::ATTACKED, reach.jumpable.len() as i32);
    put(Param::ATTACKED_PRISONER, freed as i32);
    put(
        Param::ATTACKED_KING,
        (reach.jumpable & pos.kings()).len() as i32,
    );
}

/// Feeds every count of `pos` to `sink`; returns the phase.
#[inline(always)]
fn terms_for<const BASHNI_RULES: bool>(
    pos: &Position,
    w: &Weights,
    sink: &mut impl CountSink,
) -> i32 {
    side_terms::<BASHNI_RULES>(pos, Colour::White, sink);
    side_terms::<BASHNI_RULES>(pos, Colour::Black, sink);
    sink.add(pos.side_to_move(), Param::TEMPO, 1);

    // Many small columns: midgame. Captures merge columns and kings open
    // the board, both moving toward the endgame.
    let columns = pos.occupied().len() as i32 - pos.kings().len() as i32;
    ((columns - w.endgame_columns) * PHASE_MAX / (w.midgame_columns - w.endgame_columns))
        .clamp(0, PHASE_MAX)
}

#[inline(always)]
fn terms(pos: &Position, w: &Weights, sink: &mut impl CountSink) -> i32 {
    match pos.variant() {
        Variant::Bashni => terms_for::<true>(pos, w, sink),
        Variant::Lasca => terms_for::<false>(pos, w, sink),
    }
}

/// The tapered score from White's view. Division truncates toward zero,
/// so a colour-mirrored position gets exactly the negated score.
#[inline]
fn blend(total: Pair, phase: i32) -> i32 {
    let blended = (total.mg * phase + total.eg * (PHASE_MAX - phase)) / PHASE_MAX;
    blended.clamp(-MAX_EVAL, MAX_EVAL)
}

/// Every term of `pos` for each side, and the phase.
pub fn breakdown(pos: &Position) -> Breakdown {
    let w = weights(pos.variant());
    let mut per_term = PerTerm {
        weights: w,
        sides: Default::default(),
    };
    let phase = terms(pos, w, &mut per_term);
    Breakdown {
        sides: per_term.sides,
        phase,
    }
}

/// What the tuner needs of a position: each parameter's count (White's
/// minus Black's) and the phase. The score from White's view is
/// `blend(sum of weight * count, phase)` for any weight table.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// White's count minus Black's, per parameter.
    pub counts: [i32; Param::COUNT],
    /// The game phase the weights are blended by.
    pub phase: i32,
}

/// The parameter counts and phase of `pos`.
pub fn features(pos: &Position) -> Features {
    let mut counts = Counts([0; Param::COUNT]);
    let phase = terms(pos, weights(pos.variant()), &mut counts);
    Features {
        counts: counts.0,
        phase,
    }
}

/// The score from White's view of a position with these features under
/// the table `w`: what `evaluate` gives, for any table.
pub fn white_score_with(features: &Features, w: &Weights) -> i32 {
    let total = (0..Param::COUNT).fold(Pair::default(), |sum, p| {
        sum + w.params[p] * features.counts[p]
    });
    blend(total, features.phase)
}

/// Static score in centi-men from the side to move's view; |score| <= 10_000.
pub fn evaluate(pos: &Position) -> i32 {
    let w = weights(pos.variant());
    let mut total = Total {
        weights: w,
        sum: Pair::default(),
    };
    let phase = terms(pos, w, &mut total);
    let white = blend(total.sum, phase);
    if pos.side_to_move() == Colour::White {
        white
    } else {
        -white
    }
}

/// A multi-line human-readable breakdown for the protocol's `eval` command:
/// each term with its midgame and endgame part for White, for Black (each
/// from its own side's view) and the difference (White's view), the phase,
/// and the final score (from White's view and the side to move's view).
pub fn explain(pos: &Position) -> String {
    let b = breakdown(pos);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<14} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}   (centi-men)",
        "term", "white-mg", "white-eg", "black-mg", "black-eg", "net-mg", "net-eg"
    );
    let mut line = |name: &str, white: Pair, black: Pair| {
        let net = white - black;
        let _ = writeln!(
            out,
            "{name:<14} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            white.mg, white.eg, black.mg, black.eg, net.mg, net.eg
        );
    };
    let mut sums = [Pair::default(); 2];
    for term in Term::ALL {
        let (white, black) = (b.sides[0][term as usize], b.sides[1][term as usize]);
        sums[0] += white;
        sums[1] += black;
        line(term.name(), white, black);
    }
    line("total", sums[0], sums[1]);
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
    use bashni_rules::{RuleSet, Square};

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
        /// dark squares dark.
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
        bashni_rules::random_game_positions(&RuleSet::new(variant), games, 300, seed)
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
                weights(variant).params[Param::TEMPO],
                "{variant}: {}",
                explain(&start)
            );
            assert_eq!(evaluate(&start), weights(variant).params[Param::TEMPO].mg);
        }
    }

    /// White's count minus Black's of parameter `param` in `fen`.
    fn count(variant: Variant, fen: &str, param: usize) -> i32 {
        features(&position(variant, fen)).counts[param]
    }

    #[test]
    fn more_material_kings_and_armour_score_higher() {
        for variant in Variant::ALL {
            let v = |fen| white_view(variant, fen);
            // A man more.
            assert!(v("W:c1w,e1w,a5b") > v("W:c1w,a5b") + 50, "{variant}");
            assert!(v("W:c1w,a5b") > v("W:c1w,a5b,c5b") + 50, "{variant}");
            // A king instead of a man.
            assert!(v("W:c3W,a5b") > v("W:c3w,a5b"), "{variant}");
            // Armour: an own piece under the commander.
            assert!(v("W:c3ww,a5b") > v("W:c3w,a5b") + 40, "{variant}");
            // A buried own king is counted as one.
            assert_eq!(count(variant, "W:c3wW,a5b", Param::BURIED_KING), 1);
            assert_eq!(count(variant, "W:c3ww,a5bB", Param::BURIED_KING), -1);
        }
    }

    #[test]
    fn an_armoured_column_scores_above_the_same_column_on_prisoners() {
        // Same own pieces, same squares, same heights: the column with own
        // pieces under its top is worth more to its owner than the one
        // standing on prisoners, even when the laden side holds two more
        // prisoners (the first and last pairs). In bare Bashni endings the
        // tuned weights prefer the prisoners by 10-16 centi-men
        // (docs/tuning.md), so those are not asserted.
        for (variant, armoured, laden) in [
            (
                Variant::Bashni,
                "W:c3wwwb,e1w,g1w,b6b,d6b,f6b,h6b,a7b",
                "W:c3wbbb,e1ww,g1ww,b6b,d6b,f6b,h6b,a7b",
            ),
            (Variant::Lasca, "W:c1wwbb,g1wb,a7b", "W:c1wbbb,g1ww,a7b"),
            (
                Variant::Lasca,
                "W:c3wwwb,e1w,g1w,b6b,d6b,f6b,a7b",
                "W:c3wbbb,e1ww,g1ww,b6b,d6b,f6b,a7b",
            ),
        ] {
            let (a, l) = (white_view(variant, armoured), white_view(variant, laden));
            assert!(a > l, "{variant}: {armoured} {a} vs {laden} {l}");
        }
    }

    #[test]
    fn jumpable_columns_and_the_prisoners_a_jump_frees_are_counted() {
        // Black's man on e5 can jump d4 and land on c3; f6 is taken, so
        // d4 cannot jump e5 back. Counts are White's minus Black's.
        let threat = |variant, fen| {
            let f = features(&position(variant, fen));
            (
                f.counts[Param::ATTACKED],
                f.counts[Param::ATTACKED_PRISONER],
            )
        };
        let bashni = |fen| threat(Variant::Bashni, fen);
        assert_eq!(bashni("B:d4wbb,a7b"), (0, 0));
        assert_eq!(bashni("B:d4wwbb,e5b,f6b"), (-1, 0), "armour: nothing freed");
        assert_eq!(
            bashni("B:d4wbbb,e5b,f6b"),
            (-1, -3),
            "a lone commander frees all"
        );
        // A flying king attacks from afar; a Lasca officer only next door.
        assert_eq!(bashni("B:d4w,h8B"), (-1, 0));
        let lasca = |fen| threat(Variant::Lasca, fen);
        assert_eq!(lasca("B:c3w,g7B"), (0, 0));
        assert_eq!(lasca("B:c3w,e5B"), (0, 0));
        assert_eq!(lasca("B:c3w,b2B"), (-1, 0));
        // Lasca soldiers capture forwards only: Black's man on b2 cannot
        // jump c3 backwards.
        assert_eq!(lasca("B:c3w,b2b"), (0, 0));
        assert_eq!(lasca("B:c3w,d4b,e5b"), (-1, 0));
        assert_eq!(
            count(Variant::Bashni, "B:d4W,e5b,f6b", Param::ATTACKED_KING),
            -1
        );
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
}
