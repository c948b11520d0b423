//! The game the page shows: a start position and the moves played, checked
//! by the rules core, with a cursor for navigating the move list.

use bashni_host::pdn::{PdnGame, parse_pdn, result_token, today};
use bashni_host::protocol::Command;
use bashni_rules::ParseRuleError;
use bashni_rules::{self as rules, Move, Position, RuleSet, Variant};
use serde::Serialize;

/// One legal move as the page needs it: the text to send back, and the
/// squares to click (the start, then every landing).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LegalMove {
    pub text: String,
    pub from: String,
    pub path: Vec<String>,
    /// Squares of the columns jumped, for the last-move marks.
    pub jumped: Vec<String>,
}

impl LegalMove {
    pub fn of(mv: &Move) -> LegalMove {
        let path = if mv.is_capture() {
            mv.landings().map(|s| s.to_string()).collect()
        } else {
            vec![mv.to().to_string()]
        };
        LegalMove {
            text: mv.to_string(),
            from: mv.from().to_string(),
            path,
            jumped: mv.jumped().map(|s| s.to_string()).collect(),
        }
    }
}

/// The game of the page: the whole line played, and the same game cut at
/// the ply the board shows (the move list can be navigated).
#[derive(Clone, Debug)]
pub struct Game {
    /// The game before its first move, to replay from.
    start: rules::Game,
    line: rules::Game,
    shown: rules::Game,
    /// How many moves of `line` are on the board.
    cursor: usize,
}

impl Game {
    /// A game from its start; the board shows its start.
    fn new(start: rules::Game) -> Game {
        Game {
            line: start.clone(),
            shown: start.clone(),
            start,
            cursor: 0,
        }
    }

    /// A game from the start position of a variant.
    pub fn start(variant: Variant) -> Game {
        Game::new(rules::Game::new(RuleSet::new(variant)))
    }

    /// A game from a variant and an optional position string.
    pub fn from_fen(variant: Variant, fen: Option<&str>) -> Result<Game, String> {
        match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(fen) => rules::Game::from_fen(RuleSet::new(variant), fen)
                .map(Game::new)
                .map_err(|e| format!("bad position '{fen}': {e}")),
            None => Ok(Game::start(variant)),
        }
    }

    pub fn variant(&self) -> Variant {
        self.line.rules().variant
    }

    pub fn start_fen(&self) -> String {
        self.line.start().to_fen()
    }

    /// The position on the board.
    pub fn current(&self) -> &Position {
        self.shown.position()
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Every move of the line, also those after the cursor.
    pub fn moves(&self) -> Vec<LegalMove> {
        self.line.moves().iter().map(LegalMove::of).collect()
    }

    pub fn move_count(&self) -> usize {
        self.line.moves().len()
    }

    /// Whether the board shows the last position of the game.
    pub fn at_end(&self) -> bool {
        self.cursor == self.move_count()
    }

    /// Show the position after `ply` moves (clamped to the game): the
    /// game is replayed, so repetitions count as in the game itself.
    pub fn go_to(&mut self, ply: usize) {
        self.cursor = ply.min(self.move_count());
        let mut shown = self.start.clone();
        for mv in &self.line.moves()[..self.cursor] {
            shown.play(mv);
        }
        self.shown = shown;
    }

    pub fn legal_moves(&self) -> Vec<LegalMove> {
        if self.shown.result().is_some() {
            return Vec::new();
        }
        self.current()
            .legal_moves()
            .iter()
            .map(LegalMove::of)
            .collect()
    }

    /// Play `text` on the board position. Moves after the cursor are
    /// dropped: playing from an earlier position starts a new line.
    pub fn play(&mut self, text: &str) -> Result<(), String> {
        if let Some(end) = self.shown.result() {
            return Err(format!("the game is over ({end})"));
        }
        let mut next = self.shown.clone();
        next.play_text(text).map_err(|e| e.to_string())?;
        self.line = next.clone();
        self.shown = next;
        self.cursor += 1;
        Ok(())
    }

    /// The `position` command for the engine at the cursor.
    pub fn position_command(&self) -> Command {
        let moves = &self.line.moves()[..self.cursor];
        Command::Position {
            fen: self.start_fen(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    /// The result at the cursor in PDN form and in words, if the game is
    /// over there.
    pub fn result(&self) -> Option<(&'static str, String)> {
        result_of(&self.shown)
    }

    /// The whole game as PDN.
    pub fn to_pdn(&self, white: &str, black: &str) -> String {
        let result = result_of(&self.line).map_or("*", |r| r.0);
        let tags = [
            ("Event", "bashni gui".to_string()),
            ("Date", today()),
            ("White", white.to_string()),
            ("Black", black.to_string()),
            ("Result", result.to_string()),
            ("FEN", self.start_fen()),
            ("Variant", self.variant().to_string()),
        ];
        PdnGame::new(
            tags.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
            self.line.moves().iter().map(|m| m.to_string()).collect(),
            result,
        )
        .to_pdn()
    }

    /// The first game of a PDN text, every move checked; the board shows
    /// its last position.
    pub fn from_pdn(text: &str) -> Result<Game, String> {
        let games = parse_pdn(text).map_err(|e| format!("bad PDN: {e}"))?;
        let pdn = games.first().ok_or("bad PDN: no game in it")?;
        let variant = match pdn.tag("Variant") {
            Some(name) => name.parse().map_err(|e: ParseRuleError| e.to_string())?,
            None => Variant::Bashni,
        };
        let mut game = Game::from_fen(variant, pdn.tag("FEN"))?;
        for (i, mv) in pdn.moves.iter().enumerate() {
            game.play(mv)
                .map_err(|e| format!("bad PDN: move {} '{mv}': {e}", i + 1))?;
        }
        Ok(game)
    }
}

/// A game's result in PDN form and in words, if it is over.
fn result_of(game: &rules::Game) -> Option<(&'static str, String)> {
    let end = game.result()?;
    Some((result_token(end.winner()), end.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playing_from_an_earlier_ply_starts_a_new_line() {
        let mut game = Game::from_fen(Variant::Bashni, None).unwrap();
        game.play("c3-d4").unwrap();
        game.play("f6-g5").unwrap();
        game.go_to(1);
        game.play("f6-e5").unwrap();
        let texts: Vec<_> = game.moves().into_iter().map(|m| m.text).collect();
        assert_eq!(texts, ["c3-d4", "f6-e5"]);
        assert!(game.at_end());
        assert!(game.play("a1-b2").is_err());
        assert_eq!(
            game.position_command().to_string(),
            format!(
                "position fen {} moves c3-d4 f6-e5",
                Variant::Bashni.start_fen()
            )
        );
    }

    #[test]
    fn captures_list_their_landings_and_jumped_squares() {
        let game = Game::from_fen(Variant::Bashni, Some("W:c3w,d4b,f6b 0 1")).unwrap();
        let moves = game.legal_moves();
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].text, "c3xe5xg7");
        assert_eq!(moves[0].path, ["e5", "g7"]);
        assert_eq!(moves[0].jumped, ["d4", "f6"]);
    }

    #[test]
    fn pdn_round_trip_and_bad_pdn() {
        let mut game = Game::from_fen(Variant::Lasca, None).unwrap();
        game.play("a3-b4").unwrap();
        game.play("c5xa3").unwrap();
        let text = game.to_pdn("me", "bashni");
        let back = Game::from_pdn(&text).unwrap();
        assert_eq!(back.variant(), Variant::Lasca);
        assert_eq!(back.current().to_fen(), game.current().to_fen());
        let broken = text.replace("c5xa3", "c5-d4");
        assert!(Game::from_pdn(&broken).unwrap_err().contains("move 2"));
    }

    #[test]
    fn a_side_without_moves_has_lost() {
        let game = Game::from_fen(Variant::Bashni, Some("W:a1w,c3b,b2b 0 1")).unwrap();
        assert_eq!(game.result().map(|r| r.0), Some("0-2"));
        assert!(game.legal_moves().is_empty());
    }
}
