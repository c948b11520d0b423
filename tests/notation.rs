//! The position string and move notation of protocol.md: what is accepted,
//! and that every rejection says what is wrong and where.

mod support;

use bashni_rules::{NotationError, Position, RuleSet, Variant, parse_square};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};
use support::positions::{bashni, lasca, pos};

use bashni_rules::KingLanding::Continue;

/// `fen` must be rejected with a message containing every needle.
#[track_caller]
fn rejected(variant: Variant, fen: &str, needles: &[&str]) -> NotationError {
    let err = match Position::from_fen(&RuleSet::new(variant), fen) {
        Ok(p) => panic!("{variant} accepted {fen:?} as {}", p.to_fen()),
        Err(e) => e,
    };
    let msg = err.to_string();
    for needle in needles {
        assert!(
            msg.contains(needle),
            "{variant} {fen:?}: message {msg:?} should mention {needle:?}"
        );
    }
    err
}

#[track_caller]
fn accepted(variant: Variant, fen: &str) -> Position {
    Position::from_fen(&RuleSet::new(variant), fen)
        .unwrap_or_else(|e| panic!("{variant} {fen:?}: {e}"))
}

// ---------------------------------------------------------------- squares

#[test]
fn light_squares_are_rejected_by_name() {
    for (variant, fen, square) in [
        (Variant::Bashni, "W:b1w", "b1"),
        (Variant::Bashni, "W:c3w,h1b", "h1"),
        (Variant::Lasca, "W:a2w", "a2"),
        (Variant::Lasca, "B:c3w,g6b", "g6"),
    ] {
        let err = rejected(variant, fen, &[square, "light"]);
        assert!(
            matches!(err, NotationError::UnplayableSquare { .. }),
            "{err:?}"
        );
    }
}

#[test]
fn off_board_squares_are_rejected_by_name() {
    for (variant, fen, square) in [
        (Variant::Bashni, "W:i1w", "i1"),
        (Variant::Bashni, "W:a9w", "a9"),
        (Variant::Bashni, "W:a0w", "a0"),
        (Variant::Bashni, "W:a10w", "a10"),
        (Variant::Lasca, "W:h8b", "h8"),
        (Variant::Lasca, "W:c3w,a8b", "a8"),
    ] {
        let err = rejected(variant, fen, &[square, "off the board"]);
        assert!(matches!(err, NotationError::BadSquare { .. }), "{err:?}");
    }
    for text in ["", "3c", "c", "cc", "c3x", "é3"] {
        assert!(parse_square(Variant::Bashni, text).is_err(), "{text:?}");
    }
    // Upper case is fine.
    assert_eq!(
        parse_square(Variant::Bashni, "C3").unwrap(),
        parse_square(Variant::Bashni, "c3").unwrap()
    );
}

// ---------------------------------------------------------------- columns

#[test]
fn alternating_colours_are_rejected_by_square() {
    for variant in Variant::ALL {
        for (fen, square) in [("W:c3wbw", "c3"), ("W:a1w,e5bWb", "e5"), ("B:d4BwwB", "d4")] {
            let err = rejected(variant, fen, &[square, "alternates colours"]);
            assert!(
                matches!(err, NotationError::AlternatingColours { .. }),
                "{err:?}"
            );
        }
    }
}

#[test]
fn a_man_commanding_on_its_own_promotion_rank_is_rejected() {
    for (variant, fen, square) in [
        (Variant::Bashni, "W:b8w", "b8"),
        (Variant::Bashni, "B:c1b", "c1"),
        (Variant::Bashni, "W:h8wbb", "h8"),
        (Variant::Lasca, "W:a7w", "a7"),
        (Variant::Lasca, "B:g1b", "g1"),
        (Variant::Lasca, "W:c7wwb", "c7"),
    ] {
        let err = rejected(variant, fen, &[square, "promotion rank"]);
        assert!(matches!(err, NotationError::PromotedMan { .. }), "{err:?}");
    }
}

#[test]
fn men_on_their_own_promotion_rank_are_fine_when_buried_or_on_the_far_side() {
    // A king on top, a buried man below it; an enemy man on top.
    for fen in ["W:b8Ww,c1Bb", "W:b8bw,c1wb", "W:a1w,h8b"] {
        accepted(Variant::Bashni, fen);
    }
    for fen in ["W:a7Ww,g1Bb", "W:a7bw,g1wb", "W:a1w,g7b"] {
        accepted(Variant::Lasca, fen);
    }
}

#[test]
fn too_many_pieces_of_a_colour_are_rejected() {
    let w = |n| "w".repeat(n);
    let b = |n| "b".repeat(n);
    // Bashni has 12 a side: 12 white fit, 13 do not (buried ones count).
    accepted(Variant::Bashni, &format!("W:c3{}", w(12)));
    let err = rejected(
        Variant::Bashni,
        &format!("W:c3{},e3w", w(12)),
        &["13", "white", "12"],
    );
    assert!(
        matches!(err, NotationError::TooManyPieces { .. }),
        "{err:?}"
    );
    rejected(
        Variant::Bashni,
        &format!("W:c3w{},e5{}", b(7), b(6)),
        &["13", "black", "12"],
    );
    // Lasca has 11 a side.
    accepted(Variant::Lasca, &format!("W:c3{}", b(11)));
    rejected(
        Variant::Lasca,
        &format!("W:c3{}", b(12)),
        &["12", "black", "11"],
    );
    rejected(
        Variant::Lasca,
        "B:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,d4w",
        &["12", "white", "11"],
    );
}

#[test]
fn absurdly_tall_or_empty_columns_are_rejected_by_square() {
    let tall = format!("W:c3{}", "w".repeat(40));
    let err = rejected(Variant::Bashni, &tall, &["c3", "too tall"]);
    assert!(
        matches!(err, NotationError::ColumnTooTall { .. }),
        "{err:?}"
    );
    let err = rejected(Variant::Bashni, "W:c3,e5b", &["c3", "no pieces"]);
    assert!(matches!(err, NotationError::EmptyColumn { .. }), "{err:?}");
}

#[test]
fn a_square_given_twice_is_rejected() {
    for variant in Variant::ALL {
        for fen in ["W:c3w,c3b", "W:c3w,e5b,C3w"] {
            let err = rejected(variant, fen, &["c3", "twice"]);
            assert!(
                matches!(err, NotationError::DuplicateSquare { .. }),
                "{err:?}"
            );
        }
    }
}

#[test]
fn bad_side_bad_piece_and_garbage_are_rejected_with_the_offending_text() {
    for variant in Variant::ALL {
        let err = rejected(variant, "X:c3w", &["'X'", "side"]);
        assert!(matches!(err, NotationError::BadSide { .. }), "{err:?}");
        rejected(variant, ":c3w", &["side"]);
        rejected(variant, "WB:c3w", &["'WB'"]);

        let err = rejected(variant, "W:c3wx", &["c3", "'x'"]);
        assert!(matches!(err, NotationError::BadPiece { .. }), "{err:?}");
        rejected(variant, "W:a1w,c3k", &["c3", "'k'"]);
        rejected(variant, "W:c3w;e5b", &["c3", "';'"]);

        rejected(variant, "", &["empty"]);
        rejected(variant, "   ", &["empty"]);
        rejected(variant, "hello", &["hello"]);
        rejected(variant, "W:c3w 0 1 extra", &["extra"]);
    }
}

#[test]
fn bad_counters_are_rejected_naming_the_field() {
    for variant in Variant::ALL {
        for (fen, needles) in [
            ("W:c3w -1 1", &["no-progress", "-1"][..]),
            ("W:c3w x 1", &["no-progress", "'x'"]),
            ("W:c3w 1.5 1", &["no-progress", "1.5"]),
            ("W:c3w 0 0", &["move number", "0"]),
            ("W:c3w 0 -3", &["move number", "-3"]),
            (
                "W:c3w 0 99999999999999999999999",
                &["move number", "99999999999999999999999"],
            ),
        ] {
            let err = rejected(variant, fen, needles);
            assert!(matches!(err, NotationError::BadNumber { .. }), "{err:?}");
        }
        // The numbers are optional and default to 0 1.
        let p = accepted(variant, "B:c3w");
        assert_eq!((p.no_progress_plies(), p.fullmove_number()), (0, 1));
        let p = accepted(variant, "B:c3w 12");
        assert_eq!((p.no_progress_plies(), p.fullmove_number()), (12, 1));
    }
}

#[test]
fn input_order_case_and_whitespace_do_not_matter_output_is_canonical() {
    // Columns in any order, tabs and repeated spaces between the fields.
    let p = accepted(Variant::Bashni, "W:e5Bw,c3wb,a1W\t 4  9 ");
    assert_eq!(p.to_fen(), "W:a1W,c3wb,e5Bw 4 9");
    let l = accepted(Variant::Lasca, "B:g7B,a1w");
    assert_eq!(l.to_fen(), "B:a1w,g7B 0 1");
    // The start positions print as protocol.md writes them.
    assert_eq!(
        Position::start(&RuleSet::new(Variant::Bashni)).to_fen(),
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1"
    );
    assert_eq!(
        Position::start(&RuleSet::new(Variant::Lasca)).to_fen(),
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,a5b,c5b,e5b,g5b,b6b,d6b,f6b,a7b,c7b,e7b,g7b 0 1"
    );
}

// ---------------------------------------------------------------- moves

#[test]
fn captures_accept_colons_upper_case_and_unique_shortening() {
    let p = bashni("W:c3w,d4b,d6b", Continue);
    let full = p.parse_move("c3xe5xc7").unwrap();
    assert_eq!(full.to_string(), "c3xe5xc7");
    for text in ["c3:e5:c7", "C3XE5XC7", "C3:e5xC7", "c3xc7", "C3:C7"] {
        assert_eq!(p.parse_move(text), Ok(full), "{text}");
    }
    let q = pos(Variant::Lasca, "W:c3w,a7b");
    assert_eq!(q.parse_move("C3-D4").unwrap().to_string(), "c3-d4");
}

#[test]
fn a_move_off_the_board_names_its_square_and_numbered_squares_are_told_apart() {
    // h4 is on Bashni's board, not on Lasca's seven files.
    let err = pos(Variant::Lasca, "W:g3w,a7b")
        .parse_move("g3-h4")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "malformed move 'g3-h4': bad square 'h4': off the board"
    );
    let err = pos(Variant::Lasca, "W:c3w,a7b")
        .parse_move("22-18")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "malformed move '22-18': squares are named by file letter and rank (c3), not numbered"
    );
}

#[test]
fn a_plain_move_where_a_capture_is_due_says_so() {
    // c3 must take d4; b2 could otherwise step to a3.
    let p = pos(Variant::Bashni, "W:c3w,b2w,d4b,h8b");
    assert_eq!(
        p.parse_move("b2-a3").unwrap_err().to_string(),
        "illegal move 'b2-a3': a capture is compulsory"
    );
    // A plain move that is no move at all, with no capture due.
    let q = pos(Variant::Bashni, "W:c3w,h8b");
    assert_eq!(
        q.parse_move("c3-e5").unwrap_err(),
        NotationError::IllegalMove {
            text: "c3-e5".into()
        }
    );
}

#[test]
fn a_capture_stopped_part_of_the_way_says_it_goes_on() {
    // c3 takes d4 and then d6: the chain is taken whole.
    let p = bashni("W:c3w,d4b,d6b", Continue);
    assert_eq!(
        p.parse_move("c3xe5").unwrap_err().to_string(),
        "illegal move 'c3xe5': the capture goes on (c3xe5xc7)"
    );
    // A king of Lasca with two ways on from the first landing.
    let q = lasca("W:c3W,d4b,d6b,f6b");
    let err = q.parse_move("c3xe5").unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal move 'c3xe5': the capture goes on (c3xe5xc7 or c3xe5xg7)"
    );
    // A wrong landing is still an illegal move, not a chain going on.
    assert_eq!(
        p.parse_move("c3xa5").unwrap_err(),
        NotationError::IllegalMove {
            text: "c3xa5".into()
        }
    );
}

#[test]
fn an_ambiguous_shortened_capture_lists_the_candidates() {
    // Both loops of the officer start and end on c3.
    for p in [
        lasca("W:c3W,b4b,d4b,b6b,d6b"),
        bashni("W:c3W,b4b,d4b,b6b,d6b", Continue),
    ] {
        let err = p.parse_move("c3xc3").unwrap_err();
        assert!(
            matches!(err, NotationError::AmbiguousMove { .. }),
            "{err:?}"
        );
        let msg = err.to_string();
        for needle in ["c3xc3", "ambiguous", "c3xa5xc7xe5xc3", "c3xe5xc7xa5xc3"] {
            assert!(msg.contains(needle), "{msg:?} should mention {needle}");
        }
        // The full path is not ambiguous.
        assert!(p.parse_move("c3xe5xc7xa5xc3").is_ok());
    }
    // Bashni: a1 over c3 lands d4..h8; "a1xe5" is one of them, exactly.
    let p = bashni("W:a1W,c3b", Continue);
    assert_eq!(p.parse_move("a1xe5").unwrap().to_string(), "a1xe5");
}

#[test]
fn illegal_moves_are_errors_naming_the_move() {
    let p = bashni("W:c3w,d4b,d6b", Continue);
    for text in [
        "c3-b4", // a plain move while a capture is compulsory
        "c3xe5", // the chain stops early
        "c3xe5xc7xa5",
        "d4xc3", // not our column
        "e3-f4", // empty square
        "c3-e5", // a capture written as a plain move
    ] {
        let err = p.parse_move(text).unwrap_err();
        // A plain move here is one while a capture is due: told so.
        assert!(
            matches!(
                err,
                NotationError::IllegalMove { .. }
                    | NotationError::CaptureCompulsory { .. }
                    | NotationError::CaptureGoesOn { .. }
            ),
            "{text}: {err:?}"
        );
        assert!(err.to_string().contains(text), "{err} should name {text}");
    }
    for text in [
        "", "c3", "c3-", "c3-d4-e5", "zz-top", "c3-d9", "c3xb1", "c3x", "x", "--",
    ] {
        let err = p.parse_move(text).unwrap_err();
        assert!(
            err.to_string().contains(&format!("'{text}'")),
            "{err} should name {text:?}"
        );
    }
}

// ---------------------------------------------------------------- fuzzing

/// Positions that exercise the parser: start positions and odd columns.
const SAMPLES: [&str; 6] = [
    "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1",
    "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,a5b,c5b,e5b,g5b,b6b,d6b,f6b,a7b,c7b,e7b,g7b 0 1",
    "W:c3W,b4b,d4b,b6b,d6b",
    "B:c1Bbbbbwww,a3wbb,f4wwbb,a5bw,f6WWwwwbb 1 36",
    "W:b4BbBbbBB,f4W,a5Wwwwww,c5WW,b6Wbb,e7WbB 10 75",
    "W:a1W,e1wb,c3bbw,g3Bw,d4w,f4bW,b6Ww,h6bbbw,c7Bb,e7b,g7wWb 0 1",
];

const ALPHABET: &[u8] = b"wWbBxX:-,0123456789 abcdefghijk\t\r\n;.+";

fn mutate(rng: &mut StdRng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..=bytes.len());
        let byte = if rng.random_bool(0.9) {
            ALPHABET[rng.random_range(0..ALPHABET.len())]
        } else {
            rng.random()
        };
        match rng.random_range(0..3) {
            0 if at < bytes.len() => bytes[at] = byte,
            1 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, byte),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parse `text` in both variants; an accepted position must round-trip,
/// generate its moves and play each of them without trouble. Returns how
/// many variants accepted it.
fn exercise_fen(text: &str) -> usize {
    let mut accepted = 0;
    for variant in Variant::ALL {
        let Ok(mut p) = Position::from_fen(&RuleSet::new(variant), text) else {
            continue;
        };
        let again = Position::from_fen(&RuleSet::new(variant), &p.to_fen())
            .unwrap_or_else(|e| panic!("{variant}: accepted {text:?} but not its output: {e}"));
        assert_eq!(again, p, "{variant}: {text:?} does not round-trip");
        for mv in p.legal_moves() {
            let undo = p.make(&mv);
            p.unmake(&mv, undo);
        }
        assert_eq!(p, again, "{variant}: make/unmake on {text:?}");
        accepted += 1;
    }
    accepted
}

#[track_caller]
fn no_panic(what: &str, input: &str, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        panic!("{what} panicked on {input:?}");
    }
}

#[test]
fn random_bytes_never_panic_the_parsers() {
    let mut rng = StdRng::seed_from_u64(7);
    let positions: Vec<Position> = SAMPLES
        .iter()
        .flat_map(|fen| Variant::ALL.map(|v| Position::from_fen(&RuleSet::new(v), fen).ok()))
        .flatten()
        .collect();
    assert!(positions.len() >= SAMPLES.len());
    for _ in 0..5_000 {
        let len = rng.random_range(0..40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.random_bool(0.5) {
                    ALPHABET[rng.random_range(0..ALPHABET.len())]
                } else {
                    rng.random()
                }
            })
            .collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        no_panic("from_fen", &text, || {
            exercise_fen(&text);
        });
        no_panic("parse_square", &text, || {
            for variant in Variant::ALL {
                let _ = parse_square(variant, &text);
            }
        });
        for p in &positions {
            no_panic("parse_move", &text, || {
                let _ = p.parse_move(&text);
            });
        }
    }
}

#[test]
fn mutated_positions_and_moves_never_panic_and_accepted_ones_are_consistent() {
    let mut rng = StdRng::seed_from_u64(11);
    let (mut tried, mut accepted, mut moves_accepted) = (0, 0, 0);
    for fen in SAMPLES {
        for variant in Variant::ALL {
            let Ok(p) = Position::from_fen(&RuleSet::new(variant), fen) else {
                continue;
            };
            let moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
            for _ in 0..1_000 {
                let text = mutate(&mut rng, fen);
                no_panic("from_fen", &text, || accepted += exercise_fen(&text));
                tried += 1;
            }
            for mv in &moves {
                for _ in 0..200 {
                    let text = mutate(&mut rng, mv);
                    no_panic("parse_move", &text, || {
                        // Whatever is accepted must be one of the legal moves.
                        if let Ok(m) = p.parse_move(&text) {
                            assert!(
                                moves.contains(&m.to_string()),
                                "{text:?} parsed to {m}, not legal"
                            );
                            moves_accepted += 1;
                        }
                    });
                }
            }
        }
    }
    // Some mutations (a changed digit or piece) stay valid, so the
    // round-trip checks above did real work.
    assert!(
        accepted > 300,
        "{accepted} of {tried} mutated positions accepted"
    );
    assert!(
        moves_accepted > 100,
        "{moves_accepted} mutated moves accepted"
    );
}

/// A black king on d4 that can step to e5, with the given counters.
fn with_counters(no_progress: u64, fullmove: u64) -> String {
    format!("B:a1w,d4B {no_progress} {fullmove}")
}

/// The largest value of one counter that a position string may carry,
/// found by bisection over what `from_fen` accepts (the other counter
/// stays at its default): the test does not restate the engine's limit.
fn largest_accepted(fen: impl Fn(u64) -> String) -> u64 {
    let bashni_rules = RuleSet::new(Variant::Bashni);
    let (mut accepted, mut refused) = (1, u64::from(u32::MAX) + 1);
    assert!(Position::from_fen(&bashni_rules, &fen(accepted)).is_ok());
    assert!(Position::from_fen(&bashni_rules, &fen(refused)).is_err());
    while refused - accepted > 1 {
        let mid = accepted + (refused - accepted) / 2;
        match Position::from_fen(&bashni_rules, &fen(mid)) {
            Ok(_) => accepted = mid,
            Err(_) => refused = mid,
        }
    }
    accepted
}

#[test]
fn counters_past_the_limit_are_refused_naming_the_field() {
    // Each position string breaks exactly one counter, the other valid.
    let no_progress = largest_accepted(|n| with_counters(n, 1));
    let fullmove = largest_accepted(|n| with_counters(0, n));
    // Enough for any game (MaxPlies goes up to 100000), and small enough
    // that `game_ply`, twice the move number, fits in a u32.
    assert!(no_progress >= 100_000 && fullmove >= 100_000);
    assert!(fullmove <= u64::from(u32::MAX / 2));
    let too_big = [
        (
            with_counters(no_progress + 1, 1),
            "no-progress count",
            no_progress + 1,
        ),
        (
            with_counters(u32::MAX.into(), 1),
            "no-progress count",
            u32::MAX.into(),
        ),
        (with_counters(0, fullmove + 1), "move number", fullmove + 1),
        (
            with_counters(0, u32::MAX.into()),
            "move number",
            u32::MAX.into(),
        ),
    ];
    for (fen, field, value) in too_big {
        let err = rejected(Variant::Bashni, &fen, &[field, &format!("'{value}'")]);
        assert_eq!(
            err,
            NotationError::BadNumber {
                field,
                text: value.to_string()
            }
        );
    }
}

#[test]
fn the_largest_accepted_counters_survive_a_move_and_read_back() {
    let no_progress = largest_accepted(|n| with_counters(n, 1));
    let fullmove = largest_accepted(|n| with_counters(0, n));
    // At the limit, just below it, and a typical game for comparison.
    for (quiet, number) in [
        (no_progress, fullmove),
        (no_progress - 1, fullmove - 1),
        (3, 20),
    ] {
        let fen = with_counters(quiet, number);
        let p = accepted(Variant::Bashni, &fen);
        assert_eq!(p.game_ply(), 2 * (p.fullmove_number() - 1) + 1, "{fen}");
        let mut next = p.clone();
        let king_step = next.parse_move("d4-e5").unwrap();
        let undo = next.make(&king_step);
        // A king move is quiet, and Black's move starts a new move number;
        // both stop at the largest a position string may carry.
        assert_eq!(
            (
                next.no_progress_plies().into(),
                next.fullmove_number().into()
            ),
            ((quiet + 1).min(no_progress), (number + 1).min(fullmove)),
            "{fen}: counters after d4-e5"
        );
        assert_eq!(next.game_ply(), 2 * (next.fullmove_number() - 1), "{fen}");
        let text = next.to_fen();
        assert_eq!(
            accepted(Variant::Bashni, &text),
            next,
            "{fen}: after d4-e5 the position prints as {text:?}"
        );
        next.unmake(&king_step, undo);
        assert_eq!(next, p, "{fen}: unmake restores the counters");
    }
}
