//! Tests of the ladder: the rivals, the random-move decision, the
//! handicapped starts, the score and the run.

use super::*;
use bashni_engine::search::skill_ladder;
use bashni_rules::{Colour, Game, GameEnd, parse_square};

// ---- Rivals ------------------------------------------------------------

#[test]
fn rivals_one_to_seven_search_and_play_randomly_per_the_table() {
    let expected = [(1, 30), (2, 15), (3, 7), (4, 3), (5, 1), (6, 0), (7, 0)];
    for (i, &(depth, percent)) in expected.iter().enumerate() {
        let rival = Rival::for_level(i as u32 + 1).expect("rivals 1..=7 exist");
        assert_eq!(
            (rival.depth, rival.random_percent, rival.handicap),
            (depth, percent, 0)
        );
    }
}

#[test]
fn rivals_from_eight_are_rival_seven_with_one_man_more_of_handicap() {
    for number in 8..=MAX_RIVAL {
        let rival = Rival::for_level(number).expect("rivals 8..=18 exist");
        assert_eq!((rival.depth, rival.random_percent), (7, 0));
        assert_eq!(rival.handicap, number - 7);
    }
    assert_eq!(Rival::for_level(0), None);
    assert_eq!(Rival::for_level(MAX_RIVAL + 1), None);
}

#[test]
fn the_rivals_are_the_engines_skill_levels() {
    // docs/ladder.md and docs/strength.md say rival k is Skill Level
    // 0, 2, 4, 6, 8, 10, 11: the engine's table must agree exactly.
    for number in 1..=7 {
        let rival = Rival::for_level(number).expect("rivals 1..=7 exist");
        assert_eq!(
            skill_ladder(rival.skill_level()),
            Some((rival.depth, rival.random_percent)),
            "rival {number}"
        );
    }
    let levels: Vec<u32> = (1..=7)
        .filter_map(Rival::for_level)
        .map(|r| r.skill_level())
        .collect();
    assert_eq!(levels, [0, 2, 4, 6, 8, 10, 11]);
}

#[test]
fn each_board_ends_where_the_player_would_keep_one_man() {
    assert_eq!(last_rival(Variant::Bashni), 18);
    assert_eq!(last_rival(Variant::Lasca), 17);
    assert!(Rival::in_variant(Variant::Bashni, 18).is_ok());
    assert_eq!(
        Rival::in_variant(Variant::Lasca, 18),
        Err(LadderError::NoSuchRival {
            number: 18,
            variant: Variant::Lasca
        })
    );
}

// ---- The random-move decision -------------------------------------------

#[test]
fn the_rival_choice_is_a_pure_function_of_its_inputs() {
    let rival = Rival::for_level(1).expect("rival 1 exists");
    for ply in 0..200 {
        let first = rival_choice(7, 3, ply, &rival, 9);
        assert_eq!(first, rival_choice(7, 3, ply, &rival, 9));
        if let RivalChoice::Random(index) = first {
            assert!(index < 9);
        }
    }
}

#[test]
fn seeds_and_games_give_different_choices() {
    let rival = Rival::for_level(1).expect("rival 1 exists");
    let choices = |seed, game| -> Vec<RivalChoice> {
        (0..100)
            .map(|ply| rival_choice(seed, game, ply, &rival, 7))
            .collect()
    };
    assert_ne!(choices(1, 0), choices(2, 0));
    assert_ne!(choices(1, 0), choices(1, 1));
}

#[test]
fn random_moves_come_at_the_tables_rate() {
    // 10,000 turns: the binomial standard deviation at 30 % is 0.46 points,
    // so 1.5 points is more than three of them.
    for number in 1..=7 {
        let rival = Rival::for_level(number).expect("rivals 1..=7 exist");
        let randoms = (0..10_000u32)
            .filter(|&turn| {
                let choice = rival_choice(2026, turn / 250, turn % 250, &rival, 10);
                matches!(choice, RivalChoice::Random(_))
            })
            .count();
        let percent = randoms as f64 / 100.0;
        let expected = f64::from(rival.random_percent);
        assert!(
            (percent - expected).abs() <= 1.5,
            "rival {number}: {percent} % random"
        );
    }
}

#[test]
fn random_moves_are_spread_over_all_legal_moves() {
    let rival = Rival::for_level(1).expect("rival 1 exists");
    let mut counts = [0u32; 5];
    for ply in 0..20_000 {
        if let RivalChoice::Random(index) = rival_choice(99, 0, ply, &rival, 5) {
            counts[index] += 1;
        }
    }
    // About 6,000 random moves, 1,200 for each index.
    for (index, &count) in counts.iter().enumerate() {
        assert!((1_000..1_400).contains(&count), "index {index}: {count}");
    }
}

#[test]
fn full_strength_rivals_and_lost_positions_always_search() {
    let rival = Rival::for_level(6).expect("rival 6 exists");
    assert!((0..1_000).all(|ply| rival_choice(5, 0, ply, &rival, 8)
        == RivalChoice::Search {
            depth: 6,
            nodes: RIVAL_NODE_CAP
        }));
    let rival = Rival::for_level(1).expect("rival 1 exists");
    assert!((0..1_000).all(|ply| rival_choice(5, 0, ply, &rival, 0)
        == RivalChoice::Search {
            depth: 1,
            nodes: RIVAL_NODE_CAP
        }));
}

// ---- Handicapped starts -------------------------------------------------

/// The squares whose columns differ between two positions.
fn differing_squares(a: &Position, b: &Position) -> Vec<String> {
    a.geometry()
        .squares()
        .filter(|&sq| a.column(sq) != b.column(sq))
        .map(|sq| sq.to_string())
        .collect()
}

fn check_handicap(variant: Variant, number: u32, emptied: &[&str]) {
    let rival = Rival::in_variant(variant, number).expect("the board has this rival");
    let pos = start_position(variant, &rival).expect("a handicapped start");
    let start = Position::start(&ladder_rules(variant));
    let men = variant.pieces_per_side() - emptied.len() as u32;
    assert_eq!(
        pos.piece_count(Colour::White),
        men,
        "{variant} rival {number}"
    );
    assert_eq!(pos.piece_count(Colour::Black), variant.pieces_per_side());
    assert_eq!(differing_squares(&pos, &start), sorted(variant, emptied));
    for name in emptied {
        let sq = parse_square(variant, name).expect("a square of the board");
        assert!(pos.column(sq).is_empty(), "{name} is empty");
    }
    assert_eq!(pos.side_to_move(), Colour::White);
    assert_eq!((pos.no_progress_plies(), pos.fullmove_number()), (0, 1));
    // Legal: it reads back as itself and White has moves.
    let again = Position::from_fen(&ladder_rules(variant), &pos.to_fen()).expect("reads back");
    assert_eq!(again.to_fen(), pos.to_fen());
    assert!(!pos.legal_moves().is_empty());
}

/// Square names in board order (a1, c1, ..., rank by rank), as
/// `differing_squares` lists them.
fn sorted(variant: Variant, names: &[&str]) -> Vec<String> {
    let mut squares: Vec<_> = names
        .iter()
        .map(|name| parse_square(variant, name).expect("a square of the board"))
        .collect();
    squares.sort();
    squares.iter().map(|sq| sq.to_string()).collect()
}

#[test]
fn bashni_handicaps_of_rivals_8_12_and_18() {
    check_handicap(Variant::Bashni, 8, &["a1"]);
    check_handicap(Variant::Bashni, 12, &["a1", "g1", "c1", "e1", "b2"]);
    check_handicap(
        Variant::Bashni,
        18,
        &[
            "a1", "g1", "c1", "e1", "b2", "h2", "d2", "f2", "a3", "g3", "c3",
        ],
    );
}

#[test]
fn lasca_handicaps_of_rivals_8_12_and_17() {
    check_handicap(Variant::Lasca, 8, &["a1"]);
    check_handicap(Variant::Lasca, 12, &["a1", "g1", "c1", "e1", "b2"]);
    check_handicap(
        Variant::Lasca,
        17,
        &["a1", "g1", "c1", "e1", "b2", "f2", "d2", "a3", "g3", "c3"],
    );
}

#[test]
fn rivals_below_eight_start_from_the_start_position() {
    for variant in Variant::ALL {
        let start = Position::start(&ladder_rules(variant));
        for number in 1..=7 {
            let rival = Rival::for_level(number).expect("rivals 1..=7 exist");
            let pos = start_position(variant, &rival).expect("the start");
            assert_eq!(pos.to_fen(), start.to_fen());
        }
    }
}

#[test]
fn the_handicap_lists_empty_white_men_from_the_back_rank() {
    for variant in Variant::ALL {
        let start = Position::start(&ladder_rules(variant));
        let squares = handicap_squares(variant);
        assert_eq!(squares.len() as u32, variant.pieces_per_side() - 1);
        let mut ranks = Vec::new();
        for name in squares {
            let sq = parse_square(variant, name).expect("a square of the board");
            assert!(start.commanded_by(Colour::White).has(sq), "{name}");
            ranks.push(sq.rank());
        }
        assert!(
            ranks.windows(2).all(|w| w[0] <= w[1]),
            "{variant}: back rank first"
        );
        let last = start_position(
            variant,
            &Rival::for_level(last_rival(variant)).expect("exists"),
        )
        .expect("the last start");
        let e3 = parse_square(variant, "e3").expect("e3");
        assert!(last.commanded_by(Colour::White).has(e3));
    }
}

#[test]
fn a_rival_beyond_the_board_has_no_start() {
    let rival = Rival::for_level(18).expect("rival 18 exists");
    assert!(start_position(Variant::Lasca, &rival).is_err());
}

// ---- Score ---------------------------------------------------------------

#[test]
fn no_win_scores_nothing() {
    assert_eq!(score(0, 0), 0);
    assert_eq!(score(0, 123_456), 0);
}

#[test]
fn three_wins_at_41_7_seconds_a_game() {
    assert_eq!(score(3, 3 * 41_700), 39_582);
}

#[test]
fn the_average_is_rounded_down_to_a_tenth() {
    // 41.79 s a game is still 417 tenths.
    assert_eq!(score(3, 3 * 41_790), 39_582);
    assert_eq!(score(1, 99), 10_000 + 9_999);
    assert_eq!(score(1, 100), 10_000 + 9_998);
}

#[test]
fn a_slow_bonus_stops_at_zero_and_never_outweighs_a_win() {
    assert_eq!(score(2, 2 * 999_900), 20_000);
    assert_eq!(score(2, 2 * 5_000_000), 20_000);
    assert_eq!(score(2, u64::MAX), 20_000);
    assert!(score(1, 0) < score(2, u64::MAX));
}

// ---- Run -------------------------------------------------------------------

#[test]
fn a_win_moves_to_the_next_rival_and_counts_its_time() {
    let mut run = Run::new(Variant::Bashni, 1);
    assert_eq!(run.rival().map(|r| r.number), Some(1));
    assert_eq!(
        run.record_game(GameResult::Win, 50_000),
        Ok(RunStatus::Playing)
    );
    assert_eq!(
        run.record_game(GameResult::Win, 70_000),
        Ok(RunStatus::Playing)
    );
    assert_eq!(
        (run.wins(), run.think_ms_of_wins(), run.game_index()),
        (2, 120_000, 2)
    );
    assert_eq!(run.rival().map(|r| r.number), Some(3));
    assert_eq!(run.score(), 20_000 + 9_999 - 600);
}

#[test]
fn a_draw_ends_the_run_and_its_time_does_not_count() {
    let mut run = Run::new(Variant::Bashni, 1);
    run.record_game(GameResult::Win, 10_000).expect("playing");
    assert_eq!(
        run.record_game(GameResult::Draw, 500_000),
        Ok(RunStatus::Drawn)
    );
    assert!(run.is_over());
    assert_eq!(run.rival(), None);
    assert_eq!(run.start_position(), None);
    assert_eq!(run.think_ms_of_wins(), 10_000);
    assert_eq!(run.score(), 10_000 + 9_999 - 100);
    assert_eq!(
        run.record_game(GameResult::Win, 0),
        Err(LadderError::RunOver)
    );
}

#[test]
fn a_loss_ends_the_run() {
    let mut run = Run::new(Variant::Lasca, 1);
    assert_eq!(
        run.record_game(GameResult::Loss, 1_000),
        Ok(RunStatus::Lost)
    );
    assert_eq!((run.wins(), run.score()), (0, 0));
}

#[test]
fn a_bashni_run_completes_after_18_wins() {
    let mut run = Run::new(Variant::Bashni, 1);
    for number in 1..=18 {
        assert_eq!(run.rival().map(|r| r.number), Some(number));
        assert!(run.start_position().is_some());
        run.record_game(GameResult::Win, 1_000).expect("playing");
    }
    assert_eq!(run.status(), RunStatus::Complete);
    assert_eq!(run.rival(), None);
    assert_eq!(run.score(), 18 * 10_000 + 9_999 - 10);
    assert_eq!(
        run.record_game(GameResult::Win, 0),
        Err(LadderError::RunOver)
    );
}

#[test]
fn a_lasca_run_completes_after_17_wins() {
    let mut run = Run::new(Variant::Lasca, 1);
    for _ in 0..16 {
        assert_eq!(run.record_game(GameResult::Win, 0), Ok(RunStatus::Playing));
    }
    assert_eq!(run.record_game(GameResult::Win, 0), Ok(RunStatus::Complete));
    assert_eq!(run.wins(), 17);
}

#[test]
fn a_run_restores_from_its_stored_fields() {
    let mut run = Run::new(Variant::Lasca, 77);
    run.record_game(GameResult::Win, 12_345).expect("playing");
    let status: RunStatus = run.status().as_str().parse().expect("a status word");
    let variant: Variant = run.variant().name().parse().expect("a variant name");
    let again = Run::restore(
        variant,
        run.seed(),
        run.wins(),
        run.think_ms_of_wins(),
        status,
    );
    assert_eq!(again, Ok(run.clone()));
    assert_eq!(
        again.ok().and_then(|r| r.rival_choice(10, 5)),
        run.rival_choice(10, 5)
    );
}

#[test]
fn impossible_records_are_refused() {
    let bad = [
        (Variant::Bashni, 19, 0, RunStatus::Complete),
        (Variant::Bashni, 18, 0, RunStatus::Playing),
        (Variant::Lasca, 18, 0, RunStatus::Complete),
        (Variant::Lasca, 17, 0, RunStatus::Lost),
        (Variant::Bashni, 5, 0, RunStatus::Complete),
        (Variant::Bashni, 0, 10, RunStatus::Lost),
    ];
    for (variant, wins, ms, status) in bad {
        assert!(
            Run::restore(variant, 1, wins, ms, status).is_err(),
            "{wins} {status}"
        );
    }
    assert!("won".parse::<RunStatus>().is_err());
    assert!(Run::restore(Variant::Lasca, 1, 17, 0, RunStatus::Complete).is_ok());
}

#[test]
fn a_replay_from_the_seed_plays_the_same_game() {
    // The same seed, a stand-in for the engine's move (the first legal
    // one), and the rival's random choices: two replays agree move for
    // move, and another seed does not.
    let play = |seed: u64| -> Vec<String> {
        let run = Run::new(Variant::Bashni, seed);
        let start = run.start_position().expect("playing");
        let mut game = Game::from_fen(ladder_rules(Variant::Bashni), &start.to_fen())
            .expect("the start reads");
        let mut texts = Vec::new();
        while game.result().is_none() && texts.len() < 120 {
            let legal = game.position().legal_moves();
            let index = match run.rival_choice(game.position().game_ply(), legal.len()) {
                Some(RivalChoice::Random(i)) => i,
                _ => 0,
            };
            texts.push(format!("{:?}", legal[index]));
            game.play(&legal[index]);
        }
        texts
    };
    assert_eq!(play(3), play(3));
    assert_ne!(play(3), play(4));
}

#[test]
fn the_player_is_white() {
    assert_eq!(result_for_player(Some(Colour::White)), GameResult::Win);
    assert_eq!(result_for_player(Some(Colour::Black)), GameResult::Loss);
    assert_eq!(result_for_player(None), GameResult::Draw);
    let end = GameEnd::NoLegalMove {
        loser: Colour::Black,
    };
    assert_eq!(result_for_player(end.winner()), GameResult::Win);
}

#[test]
fn a_ladders_engine_seat_is_named_for_the_rival_of_each_game() {
    assert_eq!(seat_name_in_game(RIVAL_SEAT, true, 3), "Rival 3");
    // A person may be called Rival; an engine of another room keeps its name.
    assert_eq!(seat_name_in_game(RIVAL_SEAT, false, 3), "Rival");
    assert_eq!(
        seat_name_in_game("bashni (Skill 5)", true, 2),
        "bashni (Skill 5)"
    );
}
