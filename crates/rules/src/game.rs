//! A game: its rule set, where it started, the moves played, and the keys
//! that decide repetitions. The protocol, the search's root, analysis and
//! the match referee all keep their game here.

use super::moves::Move;
use super::notation::NotationError;
use super::position::Position;
use super::ruleset::{DrawReason, GameEnd, RuleSet};

/// A game under one rule set.
#[derive(Clone, Debug)]
pub struct Game {
    rules: RuleSet,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Keys of the positions before the current one, back to the last
    /// capture or man move: no earlier position can occur again.
    keys_since_irreversible: Vec<u64>,
}

impl Game {
    /// A game from the rules' start position.
    pub fn new(rules: RuleSet) -> Game {
        Game::from_position(rules, Position::start(&rules))
    }

    /// A game from a position string (protocol notation).
    pub fn from_fen(rules: RuleSet, fen: &str) -> Result<Game, NotationError> {
        Ok(Game::from_position(rules, Position::from_fen(&rules, fen)?))
    }

    fn from_position(rules: RuleSet, start: Position) -> Game {
        Game {
            rules,
            position: start.clone(),
            start,
            moves: Vec::new(),
            keys_since_irreversible: Vec::new(),
        }
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Change the landing, capture and draw rules in the middle of the game
    /// (the protocol's `KingLanding`, `ForcedCapture`, `NoProgressPlies`
    /// and `MaxPlies` options). The landing and capture rules hold from the
    /// current position on; the variant
    /// stays the game's own, since a game cannot change its board.
    pub fn set_rules(&mut self, rules: RuleSet) {
        self.rules = RuleSet {
            variant: self.rules.variant,
            ..rules
        };
        self.start.set_king_landing(rules.king_landing);
        self.position.set_king_landing(rules.king_landing);
        self.start.set_forced_capture(rules.forced_capture);
        self.position.set_forced_capture(rules.forced_capture);
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played from the start, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of the earlier positions that the current one could repeat
    /// (since the last capture or man move), oldest first: what a search
    /// needs to see repetitions that reach back into the game.
    pub fn repetition_keys(&self) -> &[u64] {
        &self.keys_since_irreversible
    }

    /// Play `mv`, a legal move of the current position.
    pub fn play(&mut self, mv: &Move) {
        let before = self.position.key();
        self.position.make(mv);
        if self.position.no_progress_plies() == 0 {
            self.keys_since_irreversible.clear();
        } else {
            self.keys_since_irreversible.push(before);
        }
        self.moves.push(*mv);
    }

    /// Parse a move in input notation (`c3-d4`, `c3xe5xc7`, `c3:c7`) and
    /// play it; an illegal or malformed move leaves the game as it was.
    pub fn play_text(&mut self, text: &str) -> Result<Move, NotationError> {
        let mv = self.position.parse_move(text)?;
        self.play(&mv);
        Ok(mv)
    }

    /// How many times the current position has occurred with the same side
    /// to move, this time included.
    pub fn occurrences(&self) -> u32 {
        let key = self.position.key();
        1 + self
            .keys_since_irreversible
            .iter()
            .filter(|&&k| k == key)
            .count() as u32
    }

    /// Whether the repetition rule draws the game now.
    pub fn is_repetition(&self) -> bool {
        let needed = self.rules.draw.repetitions;
        needed > 0 && self.occurrences() >= needed
    }

    /// How the game has ended, if it has. A side without a legal move loses
    /// even when the move that left it so also reached a draw rule
    /// (docs/rules.md).
    pub fn result(&self) -> Option<GameEnd> {
        if self.position.count_moves() == 0 {
            return Some(GameEnd::NoLegalMove {
                loser: self.position.side_to_move(),
            });
        }
        self.draw_reason().map(GameEnd::Draw)
    }

    /// Which draw rule holds in the current position, if any, whether or
    /// not the side to move can still move.
    pub fn draw_reason(&self) -> Option<DrawReason> {
        self.rules.draw.reason(&self.position).or_else(|| {
            self.is_repetition()
                .then_some(DrawReason::Repetition(self.rules.draw.repetitions))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Colour, DrawRules, KingLanding, Variant};

    fn play_all(game: &mut Game, moves: &[&str]) {
        for m in moves {
            game.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
    }

    #[test]
    fn kings_shuffling_repeat_threefold_in_bashni_only() {
        let shuffle = ["a1-b2", "b8-a7", "b2-a1", "a7-b8"];
        let mut bashni = Game::from_fen(RuleSet::new(Variant::Bashni), "W:a1W,b8B 0 1").unwrap();
        play_all(&mut bashni, &shuffle);
        assert_eq!(bashni.occurrences(), 2);
        assert_eq!(bashni.result(), None);
        play_all(&mut bashni, &shuffle);
        assert_eq!(bashni.occurrences(), 3);
        assert!(bashni.is_repetition());
        assert_eq!(
            bashni.result(),
            Some(GameEnd::Draw(DrawReason::Repetition(3)))
        );
        assert_eq!(bashni.moves().len(), 8);

        let mut lasca = Game::from_fen(RuleSet::new(Variant::Lasca), "W:a1W,g7B 0 1").unwrap();
        play_all(&mut lasca, &["a1-b2", "g7-f6", "b2-a1", "f6-g7"]);
        play_all(&mut lasca, &["a1-b2", "g7-f6", "b2-a1", "f6-g7"]);
        assert_eq!(lasca.occurrences(), 3);
        assert!(!lasca.is_repetition());
        assert_eq!(lasca.result(), None);
    }

    #[test]
    fn an_irreversible_move_forgets_the_keys_before_it() {
        let mut game = Game::from_fen(RuleSet::default(), "W:a1W,c3w,h8B 0 1").unwrap();
        play_all(&mut game, &["a1-b2", "h8-g7"]);
        assert_eq!(game.repetition_keys().len(), 2);
        play_all(&mut game, &["c3-d4"]);
        assert!(game.repetition_keys().is_empty());
        assert_eq!(game.position().no_progress_plies(), 0);
    }

    #[test]
    fn no_legal_move_beats_a_draw_rule_reached_on_the_same_move() {
        // Black has no column left and the no-progress count stands at its
        // limit: the loss counts, not the draw.
        let rules = RuleSet::default().with_draw_rules(DrawRules {
            no_progress_plies: 1,
            max_plies: 0,
            repetitions: 3,
        });
        let game = Game::from_fen(rules, "B:a1W 5 10").unwrap();
        assert_eq!(
            game.result(),
            Some(GameEnd::NoLegalMove {
                loser: Colour::Black
            })
        );
        assert_eq!(game.draw_reason(), Some(DrawReason::NoProgress(1)));
        assert_eq!(
            game.result().and_then(|end| end.winner()),
            Some(Colour::White)
        );
    }

    #[test]
    fn counters_stop_at_their_limit_so_every_printed_position_reads_back() {
        let fen = format!("B:a3W,h8B {0} {0}", crate::MAX_COUNTER);
        let mut game = Game::from_fen(RuleSet::default(), &fen).unwrap();
        play_all(&mut game, &["h8-g7", "a3-b4"]);
        let printed = game.position().to_fen();
        assert_eq!(printed, format!("B:b4W,g7B {0} {0}", crate::MAX_COUNTER));
        assert!(Game::from_fen(RuleSet::default(), &printed).is_ok());
    }

    #[test]
    fn an_illegal_move_leaves_the_game_unchanged() {
        let mut game = Game::new(RuleSet::new(Variant::Lasca).with_king_landing(KingLanding::Free));
        let before = game.position().clone();
        assert!(game.play_text("c3-c5").is_err());
        assert_eq!(game.position(), &before);
        assert!(game.moves().is_empty());
        assert_eq!(game.position().king_landing(), KingLanding::Free);
    }
}
