//! Invariants checked at every ply of seeded random games, in both variants
//! and under both landing rules. A failure names the seed, the ply, the
//! position and the move, so it can be replayed.

use bashni_rules::{Bitboard, Colour, KingLanding, Move, Position, RuleSet, Variant};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::HashSet;

const GAMES: u64 = 300;
const MAX_PLIES: u32 = 300;

/// Where one check runs: enough to replay it.
struct Ctx<'a> {
    variant: Variant,
    landing: KingLanding,
    seed: u64,
    ply: u32,
    fen: &'a str,
}

impl std::fmt::Display for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} landing {} seed {} ply {} position {}",
            self.variant, self.landing, self.seed, self.ply, self.fen
        )
    }
}

/// The board's own bookkeeping agrees with its columns, and every column
/// is a block of the commander's colour over a block of the other.
fn check_board(pos: &Position, ctx: &Ctx) {
    let g = pos.geometry();
    for colour in [Colour::White, Colour::Black] {
        assert_eq!(
            pos.commanded_by(colour) & !g.playable,
            Bitboard::EMPTY,
            "{colour:?} commands a light or off-board square: {ctx}"
        );
    }
    for sq in g.squares() {
        let col = pos.column(sq);
        let white = pos.commanded_by(Colour::White).has(sq);
        let black = pos.commanded_by(Colour::Black).has(sq);
        let king = pos.kings().has(sq);
        if col.is_empty() {
            assert!(
                !white && !black && !king,
                "empty {sq} marked occupied: {ctx}"
            );
            continue;
        }
        assert_eq!(
            white,
            col.owner() == Colour::White,
            "owner bit of {sq}: {ctx}"
        );
        assert_eq!(
            black,
            col.owner() == Colour::Black,
            "owner bit of {sq}: {ctx}"
        );
        assert_eq!(king, col.top_is_king(), "king bit of {sq}: {ctx}");

        let colours: Vec<Colour> = col.pieces().map(|p| p.colour).collect();
        assert_eq!(colours.len() as u32, col.height(), "height of {sq}: {ctx}");
        assert_eq!(colours[0], col.owner(), "commander of {sq}: {ctx}");
        let changes = colours.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(
            changes <= 1,
            "colours alternate on {sq}: {colours:?}: {ctx}"
        );
        assert_eq!(
            col.count(col.owner()),
            col.own(),
            "own block of {sq}: {ctx}"
        );
    }
}

/// Make `mv`, check what it did, unmake it and check everything is back.
fn check_move(pos: &mut Position, mv: &Move, counts: [u32; 2], ctx: &Ctx) {
    let before = pos.clone();
    let mover = pos.side_to_move();
    let moved = pos.column(mv.from());
    let was_man = !moved.top_is_king();
    let promotion = pos.geometry().promotion[mover.index()];

    let jumped: Vec<_> = mv.jumped().collect();
    let distinct: HashSet<_> = jumped.iter().collect();
    assert_eq!(
        distinct.len(),
        jumped.len(),
        "{mv} jumps a square twice: {ctx}"
    );
    let reached_far_rank =
        mv.landings().any(|s| promotion.has(s)) || (!mv.is_capture() && promotion.has(mv.to()));
    assert_eq!(
        mv.promotes(),
        was_man && reached_far_rank,
        "{mv} promotion flag: {ctx}"
    );
    if mv.promotes() && pos.variant() == Variant::Lasca {
        assert_eq!(
            mv.landings().filter(|&s| promotion.has(s)).count() as u32,
            u32::from(mv.is_capture()),
            "{mv}: a Lasca chain goes on after crowning: {ctx}"
        );
        assert!(promotion.has(mv.to()), "{mv} Lasca crowning: {ctx}");
    }

    let undo = pos.make(mv);
    assert_eq!(pos.key(), pos.key_from_scratch(), "key after {mv}: {ctx}");
    check_board(pos, ctx);
    for colour in [Colour::White, Colour::Black] {
        assert_eq!(
            pos.piece_count(colour),
            counts[colour.index()],
            "{colour:?} pieces after {mv}: {ctx}"
        );
    }
    let landed = pos.column(mv.to());
    assert_eq!(landed.owner(), mover, "{mv} owner at {}: {ctx}", mv.to());
    assert_eq!(
        landed.height(),
        moved.height() + mv.capture_count() as u32,
        "{mv} height at {}: {ctx}",
        mv.to()
    );
    assert_eq!(
        landed.top_is_king(),
        !was_man || mv.promotes(),
        "{mv} rank: {ctx}"
    );
    if mv.from() != mv.to() {
        assert!(
            pos.column(mv.from()).is_empty(),
            "{mv} left its start: {ctx}"
        );
    }
    for sq in &jumped {
        assert_eq!(
            pos.column(*sq).height() + 1,
            before.column(*sq).height(),
            "{mv} takes one piece from {sq}: {ctx}"
        );
    }
    assert_eq!(pos.side_to_move(), !mover, "side after {mv}: {ctx}");
    let expected_np = if was_man || mv.is_capture() {
        0
    } else {
        before.no_progress_plies() + 1
    };
    assert_eq!(
        pos.no_progress_plies(),
        expected_np,
        "no-progress after {mv}: {ctx}"
    );
    let expected_move = before.fullmove_number() + u32::from(mover == Colour::Black);
    assert_eq!(
        pos.fullmove_number(),
        expected_move,
        "move number after {mv}: {ctx}"
    );

    pos.unmake(mv, undo);
    assert_eq!(*pos, before, "unmake {mv}: {ctx}");
    assert_eq!(pos.key(), before.key(), "key after unmake {mv}: {ctx}");
}

/// Checks on the position itself and its move list; returns the moves.
fn check_position(pos: &Position, ctx: &Ctx) -> Vec<Move> {
    assert_eq!(pos.key(), pos.key_from_scratch(), "key: {ctx}");
    check_board(pos, ctx);

    let rules = RuleSet::new(pos.variant()).with_king_landing(pos.king_landing());
    let reparsed = Position::from_fen(&rules, &pos.to_fen())
        .unwrap_or_else(|e| panic!("own FEN rejected: {e}: {ctx}"));
    assert_eq!(&reparsed, pos, "FEN round trip: {ctx}");

    let moves = pos.legal_moves();
    assert_eq!(pos.count_moves(), moves.len(), "count_moves: {ctx}");
    let texts: HashSet<String> = moves.iter().map(Move::to_string).collect();
    assert_eq!(
        texts.len(),
        moves.len(),
        "two moves print the same: {moves:?}: {ctx}"
    );

    let captures = moves.iter().filter(|m| m.is_capture()).count();
    assert_eq!(pos.has_capture(), captures > 0, "has_capture: {ctx}");
    assert!(
        captures == 0 || captures == moves.len(),
        "plain moves beside a capture: {moves:?}: {ctx}"
    );
    for mv in &moves {
        let text = mv.to_string();
        assert_eq!(
            pos.parse_move(&text).as_ref(),
            Ok(mv),
            "parse {text}: {ctx}"
        );
    }

    // With captures optional (`ForcedCapture` off) the captures are the
    // same, and the plain moves are there whether or not a capture is.
    let rules = RuleSet::new(pos.variant())
        .with_king_landing(pos.king_landing())
        .with_forced_capture(false);
    let optional = Position::from_fen(&rules, &pos.to_fen()).expect("own FEN");
    let free_moves = optional.legal_moves();
    assert_eq!(optional.count_moves(), free_moves.len(), "optional: {ctx}");
    assert_eq!(optional.has_capture(), pos.has_capture(), "optional: {ctx}");
    let free_captures: Vec<Move> = free_moves
        .iter()
        .filter(|m| m.is_capture())
        .copied()
        .collect();
    if captures > 0 {
        assert_eq!(free_captures, moves, "optional captures: {ctx}");
    } else {
        assert_eq!(free_moves, moves, "optional, no capture: {ctx}");
    }
    for mv in &free_moves {
        assert_eq!(
            optional.parse_move(&mv.to_string()).as_ref(),
            Ok(mv),
            "optional {mv}: {ctx}"
        );
    }

    if pos.variant() == Variant::Lasca {
        // Officers do not fly, so the landing rule must change nothing.
        let flipped = match pos.king_landing() {
            KingLanding::Continue => KingLanding::Free,
            KingLanding::Free => KingLanding::Continue,
        };
        let rules = RuleSet::new(pos.variant()).with_king_landing(flipped);
        let other = Position::from_fen(&rules, &pos.to_fen()).expect("own FEN");
        assert_eq!(
            other.legal_moves(),
            moves,
            "Lasca depends on the landing rule: {ctx}"
        );
    }
    moves
}

/// What the random games went through, so a weak harness shows up.
#[derive(Debug, Default)]
struct Coverage {
    plies: u64,
    games_ended: u32,
    tallest_column: u32,
    promotions: u32,
    chains: u32,
    king_captures: u32,
    /// Moves that go on capturing after a man is crowned (Bashni only).
    crowned_mid_chain: u32,
}

fn random_games(variant: Variant, landing: KingLanding, seed_base: u64) -> Coverage {
    let mut seen = Coverage::default();
    for game in 0..GAMES {
        let seed = seed_base + game;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut pos = Position::start(&RuleSet::new(variant).with_king_landing(landing));
        let counts = [
            pos.piece_count(Colour::White),
            pos.piece_count(Colour::Black),
        ];
        for ply in 0..MAX_PLIES {
            let fen = pos.to_fen();
            let ctx = Ctx {
                variant,
                landing,
                seed,
                ply,
                fen: &fen,
            };
            let moves = check_position(&pos, &ctx);
            if moves.is_empty() {
                seen.games_ended += 1;
                break;
            }
            for mv in &moves {
                check_move(&mut pos, mv, counts, &ctx);
                seen.promotions += u32::from(mv.promotes());
                seen.chains += u32::from(mv.capture_count() >= 2);
                seen.king_captures += u32::from(mv.is_capture() && pos.kings().has(mv.from()));
                let far = pos.geometry().promotion[pos.side_to_move().index()];
                let crowned_at = mv.landings().position(|s| far.has(s));
                seen.crowned_mid_chain += u32::from(
                    mv.promotes() && crowned_at.is_some_and(|i| i + 1 < mv.capture_count()),
                );
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos.make(&mv);
            seen.plies += 1;
            seen.tallest_column = seen.tallest_column.max(pos.column(mv.to()).height());
        }
    }
    eprintln!("{variant} {landing}: {seen:?}");
    seen
}

/// The games must reach the interesting cases, or the checks prove little.
fn assert_covered(seen: &Coverage) {
    assert!(seen.plies > GAMES * 50, "{seen:?}");
    assert!(seen.games_ended > GAMES as u32 / 4, "{seen:?}");
    assert!(seen.tallest_column >= 6, "{seen:?}");
    assert!(seen.promotions > 100, "{seen:?}");
    assert!(seen.chains > 100, "{seen:?}");
    assert!(seen.king_captures > 100, "{seen:?}");
}

fn assert_crowning_goes_on(seen: &Coverage, goes_on: bool) {
    assert_eq!(seen.crowned_mid_chain > 0, goes_on, "{seen:?}");
}

#[test]
fn random_bashni_games_keep_every_invariant_with_continue_landing() {
    let seen = random_games(Variant::Bashni, KingLanding::Continue, 1_000);
    assert_covered(&seen);
    assert_crowning_goes_on(&seen, true);
}

#[test]
fn random_bashni_games_keep_every_invariant_with_free_landing() {
    let seen = random_games(Variant::Bashni, KingLanding::Free, 2_000);
    assert_covered(&seen);
    assert_crowning_goes_on(&seen, true);
}

#[test]
fn random_lasca_games_keep_every_invariant() {
    let seen = random_games(Variant::Lasca, KingLanding::Continue, 3_000);
    assert_covered(&seen);
    assert_crowning_goes_on(&seen, false);
}
