//! One or more tests per rule of `docs/rules.md`. Every expected
//! move list here was worked out by hand from the rules (the derivation is
//! in the comments), never copied from the generator's output.

mod support;

use bashni_rules::{Colour, KingLanding, Position, RuleSet, Variant, parse_square};
use support::positions::{after, assert_moves, bashni, lasca, pos};

const CONTINUE: KingLanding = KingLanding::Continue;
const FREE: KingLanding = KingLanding::Free;

fn sq(variant: Variant, name: &str) -> bashni_rules::Square {
    parse_square(variant, name).unwrap()
}

// ---------------------------------------------------------------- start

#[test]
fn start_positions_white_moves_first_with_its_front_rank() {
    // Bashni: the rank-3 men a3 c3 e3 g3 step into rank 4.
    let b = Position::start(&RuleSet::new(Variant::Bashni));
    assert_eq!(b.side_to_move(), Colour::White);
    assert_eq!(b.piece_count(Colour::White), 12);
    assert_eq!(b.piece_count(Colour::Black), 12);
    assert_moves(
        &b,
        &[
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4",
        ],
    );
    // Lasca: 7 files, so g3 has only f4.
    let l = Position::start(&RuleSet::new(Variant::Lasca));
    assert_eq!(l.side_to_move(), Colour::White);
    assert_eq!(l.piece_count(Colour::White), 11);
    assert_eq!(l.piece_count(Colour::Black), 11);
    assert_moves(&l, &["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4"]);
}

// ---------------------------------------------------------------- men

#[test]
fn man_steps_one_square_forward_only() {
    for variant in Variant::ALL {
        // White goes up the board, never back to c3/e3.
        assert_moves(&pos(variant, "W:d4w,a7b"), &["d4-c5", "d4-e5"]);
        // Black goes down the board, never back to c5/e5.
        assert_moves(&pos(variant, "B:a1w,d4b"), &["d4-c3", "d4-e3"]);
        // On the edge only one forward square exists.
        assert_moves(&pos(variant, "W:a3w,a7b"), &["a3-b4"]);
        // A man may not step onto an occupied square, own (c5) or enemy
        // (e5, which cannot be taken: f6 behind it is occupied).
        assert_moves(&pos(variant, "W:d4w,c5w,e5b,f6b,a7b"), &["c5-b6", "c5-d6"]);
    }
}

#[test]
fn bashni_men_capture_backwards() {
    // White d4 jumps the black man behind it (c3) onto b2; nothing follows.
    assert_moves(&pos(Variant::Bashni, "W:d4w,c3b"), &["d4xb2"]);
    // Black e5 jumps the white man behind it (f6) onto g7.
    assert_moves(&pos(Variant::Bashni, "B:e5b,f6w"), &["e5xg7"]);
}

#[test]
fn lasca_soldiers_capture_forwards_only() {
    // The same positions: the backward jump does not exist, so they step.
    assert_moves(&pos(Variant::Lasca, "W:d4w,c3b"), &["d4-c5", "d4-e5"]);
    assert_moves(&pos(Variant::Lasca, "B:e5b,f6w"), &["e5-d4", "e5-f4"]);
    // Forward they capture as usual.
    assert_moves(&pos(Variant::Lasca, "W:d4w,e5b"), &["d4xf6"]);
    assert_moves(&pos(Variant::Lasca, "B:e5b,d4w"), &["e5xc3"]);
}

// ---------------------------------------------------------------- captures

#[test]
fn capture_is_compulsory() {
    for variant in Variant::ALL {
        // c3 can take d4; the plain moves c3-b4, g3-f4 (and g3-h4) vanish.
        let p = pos(variant, "W:c3w,g3w,d4b");
        assert!(p.has_capture());
        assert_moves(&p, &["c3xe5"]);
    }
    // A flying king's capture also forbids the man's plain move g7-f8/h8.
    assert_moves(
        &bashni("W:a1W,c3b,g7w", CONTINUE),
        // Landings stop before the own man on g7.
        &["a1xd4", "a1xe5", "a1xf6"],
    );
}

#[test]
fn free_choice_among_captures_no_majority_rule() {
    // Bashni: c3 takes d4 then d6 (two pieces); h2 takes g3 (one piece).
    // Both are legal.
    assert_moves(
        &pos(Variant::Bashni, "W:c3w,h2w,d4b,d6b,g3b"),
        &["c3xe5xc7", "h2xf4"],
    );
    // Lasca: c3 takes d4 and d6 forwards; e1 takes f2 onto g3, then stops.
    assert_moves(
        &pos(Variant::Lasca, "W:c3w,e1w,d4b,d6b,f2b"),
        &["c3xe5xc7", "e1xg3"],
    );
}

#[test]
fn chain_must_continue_while_a_capture_is_available() {
    for variant in Variant::ALL {
        // After c1xe3 the man stands next to d4 with c5 empty: it must go on.
        // "c1xe3" alone is not a move.
        assert_moves(&pos(variant, "W:c1w,d2b,d4b"), &["c1xe3xc5"]);
        // A fork after the first jump: both branches, neither stopping early.
        assert_moves(
            &pos(variant, "W:c1w,d2b,d4b,f4b"),
            &["c1xe3xc5", "c1xe3xg5"],
        );
    }
}

#[test]
fn a_column_is_jumped_only_once_even_when_its_remainder_stands() {
    // c3 takes the top of d4 (three men) and lands on e5. The two men left
    // on d4 are an enemy column with an empty square (c3, the start) behind,
    // but it was already jumped in this move.
    for variant in Variant::ALL {
        // Bashni men capture backwards, Lasca officers in every direction:
        // both could otherwise jump back.
        let fen = match variant {
            Variant::Bashni => "W:c3w,d4bbb",
            Variant::Lasca => "W:c3W,d4bbb",
        };
        let p = pos(variant, fen);
        assert_moves(&p, &["c3xe5"]);
        let top = if variant == Variant::Bashni { "w" } else { "W" };
        assert_eq!(after(&p, "c3xe5").to_fen(), format!("B:d4bb,e5{top}b 0 1"));
    }
}

#[test]
fn flying_king_cannot_jump_a_remainder_column_again() {
    // a1 takes the top of c3 and may land d4..h8. Coming back south-west the
    // black man left on c3 would have b2 and a1 (the start) behind it, but
    // it cannot be jumped twice, so no landing continues.
    for landing in [CONTINUE, FREE] {
        assert_moves(
            &bashni("W:a1W,c3bb", landing),
            &["a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"],
        );
    }
}

#[test]
fn flying_king_cannot_cross_a_jumped_square_again() {
    // King d4, black men c3 and f6. South-west it takes c3 and lands on b2
    // or a1; north-east it takes f6 and lands on g7 or h8. From b2 the way
    // back north-east passes c3 (jumped: blocked even though it is empty
    // now), so "d4xb2xg7" does not exist. Same with a remainder on c3.
    for fen in ["W:d4W,c3b,f6b", "W:d4W,c3bb,f6b"] {
        for landing in [CONTINUE, FREE] {
            assert_moves(&bashni(fen, landing), &["d4xa1", "d4xb2", "d4xg7", "d4xh8"]);
        }
    }
}

// ---------------------------------------------------------------- start square

#[test]
fn lasca_officer_ends_a_loop_on_its_start_square() {
    // Officer c3, black men on b4 d4 b6 d6. Clockwise: over d4 to e5, over
    // d6 to c7, over b6 to a5, over b4 back to the (empty) start c3. Or the
    // other way round. Nothing is left to take on c3.
    let p = lasca("W:c3W,b4b,d4b,b6b,d6b");
    assert_moves(&p, &["c3xa5xc7xe5xc3", "c3xe5xc7xa5xc3"]);
    // The officer comes home with four prisoners.
    assert_eq!(after(&p, "c3xe5xc7xa5xc3").to_fen(), "B:c3Wbbbb 0 1");
}

#[test]
fn bashni_king_loop_landing_on_and_crossing_its_start_square() {
    // The same four men on 8x8 with a flying king on c3.
    // Continue rule, clockwise: over d4 only e5 continues (over d6); over d6
    // only c7 continues (over b6, b8 does not); over b6 only a5 exists; over
    // b4 the landings c3 (start), d2 and e1 (crossing the start) end the move.
    // Anticlockwise: over b4 to a5; over b6, c7 continues (d8 does not);
    // over d6, e5 continues (via d4 to the start); over d4: c3, b2, a1.
    let fen = "W:c3W,b4b,d4b,b6b,d6b";
    let continuing = [
        "c3xa5xc7xe5xa1",
        "c3xa5xc7xe5xb2",
        "c3xa5xc7xe5xc3",
        "c3xe5xc7xa5xc3",
        "c3xe5xc7xa5xd2",
        "c3xe5xc7xa5xe1",
    ];
    assert_moves(&bashni(fen, CONTINUE), &continuing);
    // Free landing adds every stop where nothing more can be taken: after d4
    // on f6/g7/h8, after d6 on b8, after b6 on d8, after d6 on f4/g3/h2.
    let mut free = continuing.to_vec();
    free.extend([
        "c3xf6",
        "c3xg7",
        "c3xh8",
        "c3xe5xb8",
        "c3xa5xd8",
        "c3xa5xc7xf4",
        "c3xa5xc7xg3",
        "c3xa5xc7xh2",
    ]);
    assert_moves(&bashni(fen, FREE), &free);
}

#[test]
fn bashni_king_crosses_its_start_square_to_capture() {
    // King c3; black b2, b4, b6, d6. Directly: c3xa1 over b2. Or over b4 to
    // a5, over b6 to c7 (d8 would stop), over d6 to e5, then south-west
    // through d4 and the empty start c3 to take b2 and land on a1.
    let fen = "W:c3W,b2b,b4b,b6b,d6b";
    assert_moves(&bashni(fen, CONTINUE), &["c3xa1", "c3xa5xc7xe5xa1"]);
    assert_moves(
        &bashni(fen, FREE),
        &[
            "c3xa1",
            "c3xa5xc7xe5xa1",
            "c3xa5xc7xf4",
            "c3xa5xc7xg3",
            "c3xa5xc7xh2",
            "c3xa5xd8",
        ],
    );
}

// ---------------------------------------------------------------- kings

#[test]
fn bashni_king_flies_along_free_diagonals() {
    // c1: north-west b2 a3, north-east d2 .. h6.
    assert_moves(
        &bashni("W:c1W,a7b", CONTINUE),
        &[
            "c1-a3", "c1-b2", "c1-d2", "c1-e3", "c1-f4", "c1-g5", "c1-h6",
        ],
    );
    // An own man on e3 stops the king at d2.
    assert_moves(
        &bashni("W:c1W,e3w,a7b", CONTINUE),
        &["c1-a3", "c1-b2", "c1-d2", "e3-d4", "e3-f4"],
    );
    // Two enemy columns in a row (f4, g5) cannot be jumped: they just block.
    assert_moves(
        &bashni("W:c1W,f4b,g5b", CONTINUE),
        &["c1-a3", "c1-b2", "c1-d2", "c1-e3"],
    );
}

#[test]
fn bashni_king_captures_at_distance_and_lands_anywhere_behind() {
    // a1 sees e5 across b2 c3 d4 and may land on f6, g7 or h8.
    assert_moves(&bashni("W:a1W,e5b", CONTINUE), &["a1xf6", "a1xg7", "a1xh8"]);
    // Black kings fly too: h8 over c3 (all between empty) to b2 or a1.
    assert_moves(&bashni("B:h8B,c3w", CONTINUE), &["h8xa1", "h8xb2"]);
}

#[test]
fn lasca_officers_step_one_square_and_do_not_fly() {
    // The officer on a1 only steps to b2; e5 is far away and not taken.
    assert_moves(&lasca("W:a1W,e5b"), &["a1-b2"]);
    assert_moves(&lasca("W:a1W,d4b"), &["a1-b2"]);
    // Steps in all four directions.
    assert_moves(&lasca("W:d4W,a7b"), &["d4-c3", "d4-c5", "d4-e3", "d4-e5"]);
    // Captures by the short jump, backwards too.
    assert_moves(&lasca("W:d4W,c3b"), &["d4xb2"]);
    // Black officer.
    assert_moves(&lasca("B:d4B,e5w"), &["d4xf6"]);
}

#[test]
fn king_landing_continue_versus_free() {
    // a1 takes the top of c3. Of the landings d4..h8 only e5 can capture
    // again (f4, onto g3 or h2); the man left on c3 does not count, it was
    // jumped already.
    let fen = "W:a1W,c3bb,f4b";
    assert_moves(&bashni(fen, CONTINUE), &["a1xe5xg3", "a1xe5xh2"]);
    // Free: any landing, but landing on e5 still forces the second capture.
    assert_moves(
        &bashni(fen, FREE),
        &["a1xd4", "a1xe5xg3", "a1xe5xh2", "a1xf6", "a1xg7", "a1xh8"],
    );
}

// ---------------------------------------------------------------- promotion

#[test]
fn bashni_man_crowned_mid_chain_goes_on_as_a_flying_king() {
    // b6 takes c7 and lands on d8: crowned. As a man it could go no further
    // (e7 is empty), as a king it sees f6 across e7. Behind f6: g5 and h4;
    // only g5 continues (across f4 to e3, landing d2 or c1).
    let fen = "W:b6w,c7b,f6b,e3b";
    let p = bashni(fen, CONTINUE);
    assert_moves(&p, &["b6xd8xg5xc1", "b6xd8xg5xd2"]);
    let mv = p.parse_move("b6xd8xg5xd2").unwrap();
    assert!(mv.promotes());
    assert_eq!(after(&p, "b6xd8xg5xd2").to_fen(), "B:d2Wbbb 0 1");
    // Free landing: h4 is allowed as well, and ends the move there.
    assert_moves(
        &bashni(fen, FREE),
        &["b6xd8xg5xc1", "b6xd8xg5xd2", "b6xd8xh4"],
    );
}

#[test]
fn lasca_promotion_ends_the_move() {
    // c5 takes d6 and is crowned on e7; the officer could take f6 next,
    // but the move stops.
    let p = lasca("W:c5w,d6b,f6b");
    assert_moves(&p, &["c5xe7"]);
    assert_eq!(after(&p, "c5xe7").to_fen(), "B:f6b,e7Wb 0 1");
}

#[test]
fn promotion_crowns_only_the_commander() {
    // A white man over a white man and a black prisoner steps onto the far
    // rank: only the top becomes a king.
    let p = pos(Variant::Bashni, "W:c7wwb,h2b");
    assert_moves(&p, &["c7-b8", "c7-d8"]);
    assert_eq!(after(&p, "c7-b8").to_fen(), "B:h2b,b8Wwb 0 1");
    let p = pos(Variant::Lasca, "W:b6wwb,e3b");
    assert_moves(&p, &["b6-a7", "b6-c7"]);
    assert_eq!(after(&p, "b6-c7").to_fen(), "B:e3b,c7Wwb 0 1");
    // Black is crowned on rank 1.
    let p = pos(Variant::Lasca, "B:b2bbw,e5w");
    assert_moves(&p, &["b2-a1", "b2-c1"]);
    assert_eq!(after(&p, "b2-c1").to_fen(), "W:c1Bbw,e5w 0 2");
}

// ---------------------------------------------------------------- columns

#[test]
fn a_column_moves_as_one_unit() {
    for variant in Variant::ALL {
        let p = pos(variant, "W:c3wwb,a7b");
        assert_moves(&p, &["c3-b4", "c3-d4"]);
        assert_eq!(after(&p, "c3-d4").to_fen(), "B:d4wwb,a7b 0 1");
    }
}

#[test]
fn only_the_top_piece_is_taken() {
    for variant in Variant::ALL {
        // d4 is two black men over a white prisoner: one black man stays in
        // command of d4, still holding the prisoner.
        let p = pos(variant, "W:c3w,d4bbw,a7b");
        assert_moves(&p, &["c3xe5"]);
        let next = after(&p, "c3xe5");
        assert_eq!(next.to_fen(), "B:d4bw,e5wb,a7b 0 1");
        assert_eq!(next.column(sq(variant, "d4")).owner(), Colour::Black);
    }
}

#[test]
fn taking_the_top_frees_the_prisoners() {
    for variant in Variant::ALL {
        // d4 is a black man over a white prisoner: the prisoner is free and
        // d4 now belongs to White.
        let p = pos(variant, "W:c3w,d4bw,a7b");
        let next = after(&p, "c3xe5");
        assert_eq!(next.to_fen(), "B:d4w,e5wb,a7b 0 1");
        assert_eq!(next.column(sq(variant, "d4")).owner(), Colour::White);
        assert!(next.commanded_by(Colour::White).has(sq(variant, "d4")));
    }
}

#[test]
fn captured_pieces_go_under_the_bottom_in_capture_order() {
    // The white man on c3 already holds one black prisoner. It takes the
    // black king on d4 first, then the black man on d6: c7 holds the white
    // man, the old prisoner, the king, the man. In Lasca c7 is the far rank
    // and only the top is crowned.
    for (variant, top) in [(Variant::Bashni, "w"), (Variant::Lasca, "W")] {
        let p = pos(variant, "W:c3wb,d4B,d6b");
        assert_moves(&p, &["c3xe5xc7"]);
        assert_eq!(after(&p, "c3xe5xc7").to_fen(), format!("B:c7{top}bBb 0 1"));
    }
}

#[test]
fn a_freed_king_keeps_its_rank_and_leads_as_a_king() {
    // d4 is a black man over a buried white king. Taking the man frees the
    // king, which then flies (Bashni) or steps (Lasca) on White's next turn.
    let p = pos(Variant::Bashni, "W:c3w,d4bW,h8b");
    let p = after(&p, "c3xe5");
    assert_eq!(p.to_fen(), "B:d4W,e5wb,h8b 0 1");
    assert!(p.kings().has(sq(Variant::Bashni, "d4")));
    assert_moves(&p, &["h8-g7"]);
    let p = after(&p, "h8-g7");
    assert_moves(
        &p,
        &[
            "d4-a1", "d4-a7", "d4-b2", "d4-b6", "d4-c3", "d4-c5", "d4-e3", "d4-f2", "d4-g1",
            "e5-d6", "e5-f6",
        ],
    );

    let p = lasca("W:c3w,d4bW,a7b");
    let p = after(&p, "c3xe5");
    assert_eq!(p.to_fen(), "B:d4W,e5wb,a7b 0 1");
    let p = after(&p, "a7-b6");
    assert_moves(&p, &["d4-c3", "d4-c5", "d4-e3", "e5-d6", "e5-f6"]);
}

#[test]
fn kings_uncovered_by_a_chain_lead_as_kings() {
    // White takes the tops of two columns whose second pieces are black
    // kings: the squares are left commanded by black kings, which then move
    // as kings. c3 over d4 to e5, over f6 to g7.
    let p = pos(Variant::Bashni, "W:c3w,d4bB,f6bB");
    assert_moves(&p, &["c3xe5xg7"]);
    let p = after(&p, "c3xe5xg7");
    assert_eq!(p.to_fen(), "B:d4B,f6B,g7wbb 0 1");
    // Black to move: f6 takes g7 (h8 behind it). From h8 nothing follows.
    assert_moves(&p, &["f6xh8"]);
}

// ---------------------------------------------------------------- ForcedCapture

/// A position under the variant's default rules but with captures optional
/// (`ForcedCapture` off).
fn optional(variant: Variant, landing: KingLanding, fen: &str) -> Position {
    let rules = RuleSet::new(variant)
        .with_king_landing(landing)
        .with_forced_capture(false);
    Position::from_fen(&rules, fen).unwrap_or_else(|e| panic!("test FEN {fen:?}: {e}"))
}

#[test]
fn optional_captures_allow_plain_moves_beside_a_capture() {
    // As in `capture_is_compulsory`: c3 can take d4. With the option off
    // the plain moves come back: c3-b4 (c3-d4 is taken), g3-f4 and, on
    // the 8x8 board, g3-h4.
    let p = optional(Variant::Bashni, CONTINUE, "W:c3w,g3w,d4b");
    assert!(!p.forced_capture() && p.has_capture());
    assert_moves(&p, &["c3xe5", "c3-b4", "g3-f4", "g3-h4"]);
    assert_moves(
        &optional(Variant::Lasca, CONTINUE, "W:c3w,g3w,d4b"),
        &["c3xe5", "c3-b4", "g3-f4"],
    );
    // A flying king's capture beside the man's steps g7-f8 and g7-h8
    // (crowning) and the king's own plain move a1-b2.
    assert_moves(
        &optional(Variant::Bashni, CONTINUE, "W:a1W,c3b,g7w"),
        &["a1xd4", "a1xe5", "a1xf6", "a1-b2", "g7-f8", "g7-h8"],
    );
    // Without a capture on the board nothing changes.
    assert_moves(
        &optional(Variant::Bashni, CONTINUE, "W:d4w,a7b"),
        &["d4-c5", "d4-e5"],
    );
}

#[test]
fn optional_captures_still_make_a_begun_chain_go_on() {
    // rules.md's chain: c3 takes d4, lands on e5, and must take d6 too;
    // `c3xe5` alone is not a move, but the plain c3-b4 is.
    assert_moves(
        &optional(Variant::Bashni, CONTINUE, "W:c3wb,d4B,d6b"),
        &["c3xe5xc7", "c3-b4"],
    );
    // Lasca: c3 takes d4 to e5, then d6 to c7, where it is crowned.
    assert_moves(
        &optional(Variant::Lasca, CONTINUE, "W:c3w,d4b,d6b"),
        &["c3xe5xc7", "c3-b4"],
    );
    // A flying king under `continue` must land on d4, from where it goes
    // on over c5 (to b6 or a7); its only plain move is a1-b2 (c3 blocks).
    assert_moves(
        &optional(Variant::Bashni, CONTINUE, "W:a1W,c3b,c5b"),
        &["a1xd4xa7", "a1xd4xb6", "a1-b2"],
    );
    // Under `free` it may stop on e5..h8, but never on d4, where the chain
    // can go on.
    assert_moves(
        &optional(Variant::Bashni, FREE, "W:a1W,c3b,c5b"),
        &[
            "a1xd4xa7", "a1xd4xb6", "a1xe5", "a1xf6", "a1xg7", "a1xh8", "a1-b2",
        ],
    );
}

#[test]
fn optional_captures_a_side_without_a_move_still_loses() {
    use bashni_rules::{Game, GameEnd};
    for variant in Variant::ALL {
        // a1 is blocked by b2 and cannot jump it (c3 is taken): no move.
        let p = optional(variant, CONTINUE, "W:a1w,b2b,c3b");
        assert!(p.legal_moves().is_empty() && p.count_moves() == 0);
        let rules = RuleSet::new(variant).with_forced_capture(false);
        let game = Game::from_fen(rules, "W:a1w,b2b,c3b").unwrap();
        assert_eq!(
            game.result(),
            Some(GameEnd::NoLegalMove {
                loser: Colour::White
            })
        );
        // A capture is a move: with c3 empty, a1xc3 is White's only move.
        assert_moves(&optional(variant, CONTINUE, "W:a1w,b2b"), &["a1xc3"]);
        // No column at all.
        assert!(
            optional(variant, CONTINUE, "B:d4w")
                .legal_moves()
                .is_empty()
        );
    }
}

#[test]
fn forced_capture_changes_with_the_game_rules_from_the_current_position() {
    use bashni_rules::Game;
    let rules = RuleSet::new(Variant::Bashni);
    let mut game = Game::from_fen(rules, "W:c3w,g3w,d4b,h8b").unwrap();
    assert_eq!(game.position().legal_moves().len(), 1);
    game.set_rules(rules.with_forced_capture(false));
    assert!(!game.position().forced_capture() && !game.start().forced_capture());
    // The plain move is now legal and can be played from text.
    game.play_text("g3-h4").unwrap();
    assert_eq!(game.position().to_fen(), "B:c3w,d4b,h4w,h8b 0 1");
    game.set_rules(rules);
    assert!(game.position().forced_capture());
}

// ---------------------------------------------------------------- game end

#[test]
fn side_without_a_legal_move_has_an_empty_list() {
    for variant in Variant::ALL {
        // a1 is blocked by b2, and the jump lands on the occupied c3.
        let p = pos(variant, "W:a1w,b2b,c3b");
        assert!(p.legal_moves().is_empty());
        assert!(!p.has_capture());
        // c1: both steps blocked, both jumps land on occupied squares.
        let p = pos(variant, "W:c1w,b2b,d2b,a3b,e3b");
        assert!(p.legal_moves().is_empty());
        // Black has no column at all.
        let p = pos(variant, "B:d4w");
        assert!(p.legal_moves().is_empty());
    }
}

// ---------------------------------------------------------------- counters

#[test]
fn no_progress_counts_king_moves_and_resets_on_man_moves_and_captures() {
    // King moves count up; the move number goes up after Black moves.
    let p = bashni("W:a1W,h6B 7 10", CONTINUE);
    let p = after(&p, "a1-b2");
    assert_eq!((p.no_progress_plies(), p.fullmove_number()), (8, 10));
    let p = after(&p, "h6-g5");
    assert_eq!((p.no_progress_plies(), p.fullmove_number()), (9, 11));
    assert_eq!(p.to_fen(), "W:b2W,g5B 9 11");

    // A man move resets the count.
    let p = after(&bashni("W:c3w,h6B 7 10", CONTINUE), "c3-d4");
    assert_eq!((p.no_progress_plies(), p.fullmove_number()), (0, 10));

    // A king's capture resets it too.
    let p = after(&bashni("W:a1W,c3B 7 10", CONTINUE), "a1xh8");
    assert_eq!(p.no_progress_plies(), 0);

    // Lasca keeps the same counters.
    let p = after(&lasca("B:d4B,a1w 3 5"), "d4-e5");
    assert_eq!((p.no_progress_plies(), p.fullmove_number()), (4, 6));
    let p = after(&lasca("B:d4b,a1w 3 5"), "d4-e3");
    assert_eq!((p.no_progress_plies(), p.fullmove_number()), (0, 6));
}
