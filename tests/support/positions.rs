//! Positions and moves written as text, for tests that state a rule by
//! example: a typo in a test's own position string is a test bug.

use bashni_rules::{KingLanding, Move, Position, RuleSet, Variant};

/// Parse a position that the test itself wrote; a typo is a test bug.
pub fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(&RuleSet::new(variant), fen)
        .unwrap_or_else(|e| panic!("test FEN {fen:?}: {e}"))
}

/// A Bashni position with the given landing rule.
pub fn bashni(fen: &str, landing: KingLanding) -> Position {
    let rules = RuleSet::new(Variant::Bashni).with_king_landing(landing);
    Position::from_fen(&rules, fen).unwrap_or_else(|e| panic!("test FEN {fen:?}: {e}"))
}

pub fn lasca(fen: &str) -> Position {
    pos(Variant::Lasca, fen)
}

/// The legal moves in output notation, sorted.
pub fn move_strings(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(Move::to_string).collect();
    v.sort();
    v
}

/// Find a legal move by its full output text.
pub fn find_move(p: &Position, text: &str) -> Move {
    p.legal_moves()
        .into_iter()
        .find(|m| m.to_string() == text)
        .unwrap_or_else(|| {
            panic!(
                "{text} is not legal in {}: {:?}",
                p.to_fen(),
                move_strings(p)
            )
        })
}

/// Play a move given by its full output text and return the new position.
pub fn after(p: &Position, text: &str) -> Position {
    let mut next = p.clone();
    let mv = find_move(p, text);
    next.make(&mv);
    next
}

/// Compare the legal moves with a hand-derived list (any order).
#[track_caller]
pub fn assert_moves(p: &Position, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(
        move_strings(p),
        want,
        "legal moves of {} ({}, landing {})",
        p.to_fen(),
        p.variant(),
        p.king_landing()
    );
}
