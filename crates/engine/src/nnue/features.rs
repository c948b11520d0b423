//! The network's inputs: which features a column switches on, seen from
//! one perspective (docs/tuning.md, "Learned evaluation").
//!
//! A feature is `square * PER_SQUARE + detail`, where `square` is the
//! dense index of the playable square (0..32 in Bashni, 0..25 in Lasca),
//! turned 180 degrees for Black so that both perspectives see their own
//! men walking up the board.

use bashni_rules::{Colour, Column, Piece, Position, Square, Variant};
use std::sync::LazyLock;

/// Features per playable square.
pub const PER_SQUARE: usize = 44;
/// The most features one column switches on (per perspective).
pub const MAX_PER_COLUMN: usize = 4;
/// The largest feature count of any variant (Bashni's 32 squares).
pub const MAX_FEATURES: usize = 32 * PER_SQUARE;

// Where each group starts inside a square's block (docs/tuning.md).
const TOP_UNDER: usize = 0;
const THIRD: usize = 20;
const OWN_BENEATH: usize = 28;
const PRISONERS: usize = 36;

/// The number of features of `variant`: its playable squares times
/// `PER_SQUARE`.
pub fn feature_count(variant: Variant) -> usize {
    variant.geometry().square_count as usize * PER_SQUARE
}

/// The dense index of `sq` from `perspective`'s side of the board.
#[inline]
fn dense_square(variant: Variant, sq: Square, perspective: Colour) -> usize {
    let geometry = variant.geometry();
    let size = geometry.size as usize;
    let dense = (sq.rank() as usize * size + sq.file() as usize) / 2;
    match perspective {
        Colour::White => dense,
        Colour::Black => geometry.square_count as usize - 1 - dense,
    }
}

/// 1, 2, 3..=4, 5.. pieces -> bucket 0..=3 (`n` is at least 1).
#[inline]
fn bucket(n: u32) -> usize {
    match n {
        0 | 1 => 0,
        2 => 1,
        3 | 4 => 2,
        _ => 3,
    }
}

/// The piece at `index` relative to the top: 0 same-colour man, 1
/// same-colour king, 2 other man, 3 other king; `None` below the bottom.
#[inline]
fn relative_piece(col: Column, index: u32) -> Option<usize> {
    let piece = col.piece(index)?;
    let other = piece.colour != col.owner();
    Some(2 * other as usize + piece.king as usize)
}

/// The features `col` on `sq` switches on from `perspective`, written to
/// `out`; returns how many (0 for an empty square, at most
/// `MAX_PER_COLUMN`).
#[inline]
pub fn column_features(
    variant: Variant,
    sq: Square,
    col: Column,
    perspective: Colour,
    out: &mut [u16; MAX_PER_COLUMN],
) -> usize {
    if col.is_empty() {
        return 0;
    }
    let base = dense_square(variant, sq, perspective) * PER_SQUARE;
    let theirs = (col.owner() != perspective) as usize;
    let top = 2 * theirs + col.top_is_king() as usize;
    let under = relative_piece(col, 1).map_or(0, |p| p + 1);
    out[0] = (base + TOP_UNDER + top * 5 + under) as u16;
    let mut n = 1;
    if let Some(third) = relative_piece(col, 2) {
        out[n] = (base + THIRD + theirs * 4 + third) as u16;
        n += 1;
    }
    if col.own() > 1 {
        out[n] = (base + OWN_BENEATH + theirs * 4 + bucket(col.own() - 1)) as u16;
        n += 1;
    }
    if col.prisoners() > 0 {
        out[n] = (base + PRISONERS + theirs * 4 + bucket(col.prisoners())) as u16;
        n += 1;
    }
    n
}

/// What a column switches on apart from its square: each feature's
/// detail (the feature minus its square's first) from White's and from
/// Black's side, and how many there are.
#[derive(Clone, Copy, Debug, Default)]
struct Details {
    white: [u8; MAX_PER_COLUMN],
    black: [u8; MAX_PER_COLUMN],
    n: u8,
}

/// Entries of [`DETAILS`]: owner, three king bits and two counts of 3 bits.
const DETAIL_ENTRIES: usize = 1 << 10;

/// The details of every column by [`details_index`], computed once from
/// [`column_features`]: reading a column piece by piece and bucketing
/// its counts for every column of every ply brought up to date cost more
/// than the first layer's arithmetic.
static DETAILS: LazyLock<[Details; DETAIL_ENTRIES]> = LazyLock::new(details_table);

/// All a column's features depend on besides its square: the owner, the
/// king bits of the top three pieces (which pieces exist and their
/// colours follow from the counts) and both counts up to 7 (the buckets
/// stop at 5, the "third piece is mine" test at 3).
#[inline]
fn details_index(col: Column) -> usize {
    let owner = (col.owner() == Colour::Black) as usize;
    let kings = (col.king_bits() & 0b111) as usize;
    let own = col.own().min(7) as usize;
    let prisoners = col.prisoners().min(7) as usize;
    owner << 9 | kings << 6 | own << 3 | prisoners
}

/// [`DETAILS`], built from a column of each index on one square.
fn details_table() -> [Details; DETAIL_ENTRIES] {
    let mut table = [Details::default(); DETAIL_ENTRIES];
    let variant = Variant::Bashni;
    let Some(sq) = variant.geometry().squares().next() else {
        return table;
    };
    for (index, details) in table.iter_mut().enumerate() {
        let Some(col) = column_of_index(index) else {
            continue;
        };
        for (perspective, out) in [
            (Colour::White, &mut details.white),
            (Colour::Black, &mut details.black),
        ] {
            let mut features = [0; MAX_PER_COLUMN];
            let n = column_features(variant, sq, col, perspective, &mut features);
            let base = dense_square(variant, sq, perspective) * PER_SQUARE;
            for (detail, &feature) in out.iter_mut().zip(&features[..n]) {
                *detail = (feature as usize - base) as u8;
            }
            details.n = n as u8;
        }
    }
    table
}

/// A column whose [`details_index`] is `index`, if any is (a king bit
/// below the bottom piece, or no piece of the owner, has none).
fn column_of_index(index: usize) -> Option<Column> {
    let owner = if index >> 9 & 1 == 1 {
        Colour::Black
    } else {
        Colour::White
    };
    let (kings, own, prisoners) = (index >> 6 & 0b111, index >> 3 & 0b111, index & 0b111);
    let height = own + prisoners;
    if own == 0 || kings >> height.min(3) != 0 {
        return None;
    }
    let pieces: Vec<Piece> = (0..height)
        .map(|i| Piece {
            colour: if i < own { owner } else { !owner },
            king: kings >> i & 1 == 1,
        })
        .collect();
    let col = Column::from_pieces(&pieces).ok()?;
    (details_index(col) == index).then_some(col)
}

/// The features `col` on `sq` switches on from both perspectives at once,
/// White's to `white` and Black's to `black` (the same count): what
/// [`column_features`] gives for each, from a table of what the column
/// switches on and the square's first feature from each side.
#[inline]
pub fn column_features_both(
    variant: Variant,
    sq: Square,
    col: Column,
    white: &mut [u16; MAX_PER_COLUMN],
    black: &mut [u16; MAX_PER_COLUMN],
) -> usize {
    if col.is_empty() {
        return 0;
    }
    let details = &DETAILS[details_index(col)];
    let white_base = dense_square(variant, sq, Colour::White) * PER_SQUARE;
    let black_base = dense_square(variant, sq, Colour::Black) * PER_SQUARE;
    // All four written (past `n` they are unused): no branch per feature.
    for i in 0..MAX_PER_COLUMN {
        white[i] = (white_base + details.white[i] as usize) as u16;
        black[i] = (black_base + details.black[i] as usize) as u16;
    }
    details.n as usize
}

/// Every feature of `pos` from `perspective`, in square order: what an
/// accumulator built from scratch sums, and what training reads.
pub fn active_features(pos: &Position, perspective: Colour) -> Vec<u16> {
    let variant = pos.variant();
    let mut out = Vec::with_capacity(2 * variant.pieces_per_side() as usize);
    let mut buf = [0u16; MAX_PER_COLUMN];
    for sq in pos.occupied().iter() {
        let n = column_features(variant, sq, pos.column(sq), perspective, &mut buf);
        out.extend_from_slice(&buf[..n]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::RuleSet;

    /// Every feature of every square is in range, and the two
    /// perspectives of a square meet all dense indices exactly once.
    #[test]
    fn dense_squares_cover_the_board_once_per_perspective() {
        for variant in Variant::ALL {
            let geometry = variant.geometry();
            for perspective in [Colour::White, Colour::Black] {
                let mut seen: Vec<usize> = geometry
                    .squares()
                    .map(|sq| dense_square(variant, sq, perspective))
                    .collect();
                seen.sort_unstable();
                let all: Vec<usize> = (0..geometry.square_count as usize).collect();
                assert_eq!(seen, all, "{variant:?} {perspective:?}");
            }
        }
    }

    /// The start position looks the same from both sides: the features
    /// of White's view equal Black's, as sets.
    #[test]
    fn start_position_is_symmetric() {
        for variant in Variant::ALL {
            let pos = Position::start(&RuleSet::new(variant));
            let mut white = active_features(&pos, Colour::White);
            let mut black = active_features(&pos, Colour::Black);
            white.sort_unstable();
            black.sort_unstable();
            assert_eq!(white, black);
            assert!(white.iter().all(|&f| (f as usize) < feature_count(variant)));
        }
    }

    /// Both perspectives at once give what each gives alone, on every
    /// column of random games.
    #[test]
    fn both_perspectives_at_once_match_each_alone() {
        for variant in Variant::ALL {
            let mut pos = Position::start(&RuleSet::new(variant));
            let mut seed = 0x1234_5678_u64;
            for _ in 0..400 {
                for sq in variant.geometry().squares() {
                    let col = pos.column(sq);
                    let (mut w, mut b) = ([0; MAX_PER_COLUMN], [0; MAX_PER_COLUMN]);
                    let n = column_features_both(variant, sq, col, &mut w, &mut b);
                    let (mut w1, mut b1) = ([0; MAX_PER_COLUMN], [0; MAX_PER_COLUMN]);
                    assert_eq!(n, column_features(variant, sq, col, Colour::White, &mut w1));
                    assert_eq!(n, column_features(variant, sq, col, Colour::Black, &mut b1));
                    assert_eq!((&w[..n], &b[..n]), (&w1[..n], &b1[..n]));
                }
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.game_ply() > 150 {
                    pos = Position::start(&RuleSet::new(variant));
                    continue;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.make(&moves[(seed % moves.len() as u64) as usize]);
            }
        }
    }

    /// The table agrees with reading the column for every column of up
    /// to 9 pieces with kings anywhere among the top three, and for tall
    /// ones: the counts are cut at 7 in the index.
    #[test]
    fn the_details_table_matches_reading_the_column() {
        let variant = Variant::Lasca;
        for sq in variant.geometry().squares() {
            for owner in [Colour::White, Colour::Black] {
                for (own, prisoners) in (1..=9).flat_map(|o| (0..=9).map(move |p| (o, p))) {
                    for kings in 0..8u32 {
                        let pieces: Vec<Piece> = (0..own + prisoners)
                            .map(|i| Piece {
                                colour: if i < own { owner } else { !owner },
                                king: i < 3 && kings >> i & 1 == 1 || i == 6,
                            })
                            .collect();
                        let col = Column::from_pieces(&pieces).unwrap();
                        let (mut w, mut b) = ([0; MAX_PER_COLUMN], [0; MAX_PER_COLUMN]);
                        let n = column_features_both(variant, sq, col, &mut w, &mut b);
                        let (mut w1, mut b1) = ([0; MAX_PER_COLUMN], [0; MAX_PER_COLUMN]);
                        assert_eq!(n, column_features(variant, sq, col, Colour::White, &mut w1));
                        assert_eq!(n, column_features(variant, sq, col, Colour::Black, &mut b1));
                        assert_eq!((&w[..n], &b[..n]), (&w1[..n], &b1[..n]), "{pieces:?}");
                    }
                }
            }
        }
    }

    /// A tall column switches on all four groups, each in its block.
    #[test]
    fn a_tall_column_reports_its_pieces_and_counts() {
        let rules = RuleSet::new(Variant::Bashni);
        // White king over two white men over three black pieces.
        let pos = Position::from_fen(&rules, "W:d4WwwbBb 0 1").unwrap();
        let features = active_features(&pos, Colour::White);
        let details: Vec<usize> = features.iter().map(|&f| f as usize % PER_SQUARE).collect();
        // top my king (1) * 5 + under same man (1); third same man (0);
        // own beneath 2 -> bucket 1; prisoners 3 -> bucket 2.
        assert_eq!(details, [6, THIRD, OWN_BENEATH + 1, PRISONERS + 2]);
        let black: Vec<usize> = active_features(&pos, Colour::Black)
            .iter()
            .map(|&f| f as usize % PER_SQUARE)
            .collect();
        assert_eq!(
            black,
            [3 * 5 + 1, THIRD + 4, OWN_BENEATH + 5, PRISONERS + 6]
        );
    }
}
