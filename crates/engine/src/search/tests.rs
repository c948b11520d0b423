//! The answer of an iteration the clock cut short.

use super::worker::RootMove;
use super::{Outcome, best_of_cut_iteration};
use crate::tt::Bound;
use bashni_rules::{Move, Position, RuleSet, Variant};
use std::time::Duration;

fn three_moves() -> [Move; 3] {
    let legal = Position::start(&RuleSet::new(Variant::Bashni)).legal_moves();
    [legal[0], legal[1], legal[2]]
}

/// Roots as an iteration leaves them: (score, bound, depth that set it).
fn roots(moves: &[Move; 3], marks: [(i32, Bound, i32); 3]) -> Vec<RootMove> {
    let mut roots: Vec<RootMove> = moves.iter().map(|&mv| RootMove::new(mv)).collect();
    for (root, (score, bound, depth)) in roots.iter_mut().zip(marks) {
        (root.score, root.bound, root.depth) = (score, bound, depth);
    }
    roots
}

/// The last completed iteration's answer: the first move, scoring 30.
fn answer_of_last_iteration(best: Move) -> Outcome {
    Outcome {
        best: Some(best),
        ponder: None,
        score: 30,
        depth: 6,
        nodes: 0,
        random_move: false,
        budget: None,
        soft_limit: None,
        elapsed: Duration::ZERO,
        refused_threads: 0,
    }
}

#[test]
fn a_move_the_cut_iteration_finished_above_the_old_best_answers() {
    let moves = three_moves();
    let mut outcome = answer_of_last_iteration(moves[0]);
    let cut = roots(
        &moves,
        [
            (20, Bound::Exact, 7),
            (45, Bound::Exact, 7),
            (0, Bound::Exact, 6),
        ],
    );
    let answer = best_of_cut_iteration(&cut, 7, &mut outcome).map(|r| r.mv);
    assert_eq!(answer, Some(moves[1]));
    assert_eq!(outcome.best, Some(moves[1]));
    assert_eq!(outcome.score, 45);
    assert_eq!(
        outcome.depth, 6,
        "the reported depth stays the completed one"
    );
}

#[test]
fn scores_an_earlier_iteration_left_behind_do_not_answer() {
    let moves = three_moves();
    let mut outcome = answer_of_last_iteration(moves[0]);
    // Move 3's 90 is from depth 5; the cut depth 7 finished only move 1.
    let cut = roots(
        &moves,
        [
            (25, Bound::Exact, 7),
            (10, Bound::Exact, 6),
            (90, Bound::Exact, 5),
        ],
    );
    best_of_cut_iteration(&cut, 7, &mut outcome);
    assert_eq!(outcome.best, Some(moves[0]));
    assert_eq!(outcome.score, 25);
}

#[test]
fn a_fail_high_answers_and_a_fail_low_bound_does_not() {
    let moves = three_moves();
    let mut outcome = answer_of_last_iteration(moves[0]);
    let failed_high = roots(
        &moves,
        [
            (80, Bound::Lower, 7),
            (30, Bound::Exact, 6),
            (0, Bound::Exact, 0),
        ],
    );
    best_of_cut_iteration(&failed_high, 7, &mut outcome);
    assert_eq!((outcome.best, outcome.score), (Some(moves[0]), 80));

    let mut outcome = answer_of_last_iteration(moves[0]);
    let failed_low = roots(
        &moves,
        [
            (-40, Bound::Upper, 7),
            (0, Bound::Exact, 6),
            (0, Bound::Exact, 0),
        ],
    );
    assert!(best_of_cut_iteration(&failed_low, 7, &mut outcome).is_none());
    assert_eq!((outcome.best, outcome.score), (Some(moves[0]), 30));
}

#[test]
fn a_cut_first_iteration_answers_with_its_best_searched_move() {
    let moves = three_moves();
    let mut outcome = answer_of_last_iteration(moves[0]);
    let cut = roots(
        &moves,
        [
            (5, Bound::Exact, 1),
            (12, Bound::Exact, 1),
            (0, Bound::Exact, 0),
        ],
    );
    best_of_cut_iteration(&cut, 1, &mut outcome);
    assert_eq!((outcome.best, outcome.score), (Some(moves[1]), 12));
}
