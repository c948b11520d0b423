//! The answer of an iteration the clock cut short.

use super::worker::RootMove;
use super::{Outcome, best_of_cut_iteration};
use crate::tt::Bound;
use bashni_rules::{Move, Position, RuleSet, Variant};
use std::time::Duration;

/// What the search answers, and what the cut iteration returned, when an
/// iteration to `depth` is cut with three root moves marked
/// (score, bound, iteration that set the score). The last completed
/// iteration (depth 6) answered with the first move, scoring 30.
fn answer(marks: [(i32, Bound, i32); 3], depth: i32) -> (usize, i32, Option<usize>, u32) {
    let legal = Position::start(&RuleSet::new(Variant::Bashni)).legal_moves();
    let moves: Vec<Move> = legal[..3].to_vec();
    let mut roots: Vec<RootMove> = moves.iter().map(|&mv| RootMove::new(mv)).collect();
    for (root, (score, bound, depth)) in roots.iter_mut().zip(marks) {
        (root.score, root.bound, root.depth) = (score, bound, depth);
    }
    let mut outcome = Outcome {
        best: Some(moves[0]),
        ponder: None,
        score: 30,
        depth: 6,
        nodes: 0,
        random_move: false,
        budget: None,
        soft_limit: None,
        elapsed: Duration::ZERO,
        refused_threads: 0,
    };
    let index = |mv: Move| moves.iter().position(|&m| m == mv);
    let returned = best_of_cut_iteration(&roots, depth, &mut outcome).and_then(|r| index(r.mv));
    let best = outcome.best.and_then(index).unwrap_or(usize::MAX);
    (best, outcome.score, returned, outcome.depth)
}

#[test]
fn a_move_the_cut_iteration_finished_above_the_old_best_answers() {
    let marks = [
        (20, Bound::Exact, 7),
        (45, Bound::Exact, 7),
        (0, Bound::Exact, 6),
    ];
    // The reported depth stays the completed one.
    assert_eq!(answer(marks, 7), (1, 45, Some(1), 6));
}

#[test]
fn scores_an_earlier_iteration_left_behind_do_not_answer() {
    // Move 3's 90 is from depth 5; the cut depth 7 finished only move 1.
    let marks = [
        (25, Bound::Exact, 7),
        (10, Bound::Exact, 6),
        (90, Bound::Exact, 5),
    ];
    assert_eq!(answer(marks, 7), (0, 25, Some(0), 6));
}

#[test]
fn a_fail_high_answers_and_a_fail_low_bound_does_not() {
    let failed_high = [
        (80, Bound::Lower, 7),
        (30, Bound::Exact, 6),
        (0, Bound::Exact, 0),
    ];
    assert_eq!(answer(failed_high, 7), (0, 80, Some(0), 6));
    let failed_low = [
        (-40, Bound::Upper, 7),
        (0, Bound::Exact, 6),
        (0, Bound::Exact, 0),
    ];
    assert_eq!(answer(failed_low, 7), (0, 30, None, 6));
}

#[test]
fn a_cut_first_iteration_answers_with_its_best_searched_move() {
    let marks = [
        (5, Bound::Exact, 1),
        (12, Bound::Exact, 1),
        (0, Bound::Exact, 0),
    ];
    assert_eq!(answer(marks, 1), (1, 12, Some(1), 6));
}
