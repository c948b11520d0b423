//! The network's inputs: which features a column switches on, seen from
//! one perspective (docs/tuning.md, "Learned evaluation").
//!
//! A feature is `square * PER_SQUARE + detail`, where `square` is the
//! dense index of the playable square (0..32 in Bashni, 0..25 in Lasca),
//! turned 180 degrees for Black so that both perspectives see their own
//! men walking up the board.

use bashni_rules::{Colour, Column, Position, Square, Variant};

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

/// The features `col` on `sq` switches on from both perspectives at once,
/// White's to `white` and Black's to `black` (the same count): what
/// [`column_features`] gives for each, with the column read once. Seen
/// from the other side, the square turns and "mine" and "theirs" swap,
/// which moves each feature's detail by a fixed step within its group.
#[inline]
pub fn column_features_both(
    variant: Variant,
    sq: Square,
    col: Column,
    white: &mut [u16; MAX_PER_COLUMN],
    black: &mut [u16; MAX_PER_COLUMN],
) -> usize {
    let n = column_features(variant, sq, col, Colour::White, white);
    if n == 0 {
        return 0;
    }
    let white_base = dense_square(variant, sq, Colour::White) * PER_SQUARE;
    let black_base = dense_square(variant, sq, Colour::Black) * PER_SQUARE;
    // Black's owner is "theirs" to White: one step up each group for a
    // column White owns, one down for one Black owns.
    let sign: isize = if col.owner() == Colour::White { 1 } else { -1 };
    for i in 0..n {
        let detail = white[i] as usize - white_base;
        // The top-and-under group steps by a whole "top" row (5 values),
        // two of them (my/their man and king); the others by 4.
        let step = if i == 0 { 10 } else { 4 };
        black[i] = (black_base as isize + detail as isize + sign * step) as u16;
    }
    n
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
