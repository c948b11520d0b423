//! Random games for tests and benchmarks: a deterministic stream of the
//! positions real play meets, with no random-number crate.

use crate::{Position, RuleSet, SplitMix64};

/// Every position before each move of `games` random games under `rules`
/// (each at most `max_plies` plies), the moves drawn from a splitmix64
/// stream seeded with `seed`: the same seed gives the same positions.
///
/// ```
/// use bashni_rules::{RuleSet, Variant, random_game_positions};
/// let positions = random_game_positions(&RuleSet::new(Variant::Lasca), 2, 50, 1);
/// assert!(positions.len() > 2 && positions.len() <= 100);
/// assert_eq!(positions, random_game_positions(&RuleSet::new(Variant::Lasca), 2, 50, 1));
/// ```
pub fn random_game_positions(
    rules: &RuleSet,
    games: usize,
    max_plies: usize,
    seed: u64,
) -> Vec<Position> {
    let mut stream = SplitMix64::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start(rules);
        for _ in 0..max_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            out.push(pos.clone());
            pos.make(&moves[stream.next_u64() as usize % moves.len()]);
        }
    }
    out
}
