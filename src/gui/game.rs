//! The game the page shows: a start position and the moves played, checked
//! by the rules core, with a cursor for navigating the move list.

use crate::rules::{Colour, DrawRules, Move, Position, Variant};
use crate::tournament::pdn::{PdnGame, parse_pdn, today};
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
    fn of(mv: &Move) -> LegalMove {
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

/// A game: where it started, the moves, and which ply is on the board.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    /// The positions after each move; `positions[0]` is `start`.
    positions: Vec<Position>,
    moves: Vec<LegalMove>,
    /// How many moves of `moves` are on the board.
    cursor: usize,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start.clone()],
            start,
            moves: Vec::new(),
            cursor: 0,
        }
    }

    /// A game from a variant and an optional position string.
    pub fn from_fen(variant: Variant, fen: Option<&str>) -> Result<Game, String> {
        let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(fen) => Position::from_fen(variant, fen)
                .map_err(|e| format!("bad position '{fen}': {e}"))?,
            None => Position::start(variant),
        };
        Ok(Game::new(start))
    }

    pub fn variant(&self) -> Variant {
        self.start.variant()
    }

    pub fn start_fen(&self) -> String {
        self.start.to_fen()
    }

    /// The position on the board.
    pub fn current(&self) -> &Position {
        &self.positions[self.cursor]
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn moves(&self) -> &[LegalMove] {
        &self.moves
    }

    /// Whether the board shows the last position of the game.
    pub fn at_end(&self) -> bool {
        self.cursor == self.moves.len()
    }

    /// Show the position after `ply` moves (clamped to the game).
    pub fn go_to(&mut self, ply: usize) {
        self.cursor = ply.min(self.moves.len());
    }

    pub fn legal_moves(&self) -> Vec<LegalMove> {
        if self.result().is_some() {
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
        if let Some(result) = self.result() {
            return Err(format!("the game is over ({})", result.1));
        }
        let mut pos = self.current().clone();
        let mv = pos.parse_move(text).map_err(|e| e.to_string())?;
        pos.make(&mv);
        self.moves.truncate(self.cursor);
        self.positions.truncate(self.cursor + 1);
        self.moves.push(LegalMove::of(&mv));
        self.positions.push(pos);
        self.cursor += 1;
        Ok(())
    }

    /// The `position` command for the engine at the cursor.
    pub fn position_command(&self) -> String {
        let mut line = format!("position fen {}", self.start_fen());
        if self.cursor > 0 {
            line += " moves";
            for mv in &self.moves[..self.cursor] {
                line.push(' ');
                line += &mv.text;
            }
        }
        line
    }

    /// The result at the cursor in PDN form and in words, if the game is
    /// over there: a side with no legal move has lost; the counting draw
    /// rules of the variant apply.
    pub fn result(&self) -> Option<(&'static str, String)> {
        let pos = self.current();
        if pos.count_moves() == 0 {
            return Some(match pos.side_to_move() {
                Colour::White => ("0-2", "White cannot move: Black wins".into()),
                Colour::Black => ("2-0", "Black cannot move: White wins".into()),
            });
        }
        DrawRules::for_variant(self.variant())
            .reason(pos)
            .map(|why| ("1-1", format!("draw by the {why}")))
    }

    /// The whole game as PDN.
    pub fn to_pdn(&self, white: &str, black: &str) -> String {
        let last = Game {
            cursor: self.moves.len(),
            ..self.clone()
        };
        let result = last.result().map_or("*", |r| r.0);
        let tags = [
            ("Event", "bashni gui".to_string()),
            ("Date", today()),
            ("White", white.to_string()),
            ("Black", black.to_string()),
            ("Result", result.to_string()),
            ("FEN", self.start_fen()),
            ("Variant", self.variant().to_string()),
        ];
        PdnGame {
            tags: tags.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
            moves: self.moves.iter().map(|m| m.text.clone()).collect(),
            result: result.to_string(),
        }
        .to_pdn()
    }

    /// The first game of a PDN text, every move checked; the board shows
    /// its last position.
    pub fn from_pdn(text: &str) -> Result<Game, String> {
        let games = parse_pdn(text).map_err(|e| format!("bad PDN: {e}"))?;
        let pdn = games.first().ok_or("bad PDN: no game in it")?;
        let variant = match pdn.tag("Variant") {
            Some(name) => name.parse()?,
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
        let texts: Vec<_> = game.moves().iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["c3-d4", "f6-e5"]);
        assert!(game.play("a1-b2").is_err());
        assert_eq!(
            game.position_command(),
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
        game.play("c3-d4").unwrap();
        game.play("b6-c5").unwrap();
        let text = game.to_pdn("me", "bashni");
        let back = Game::from_pdn(&text).unwrap();
        assert_eq!(back.variant(), Variant::Lasca);
        assert_eq!(back.current().to_fen(), game.current().to_fen());
        let broken = text.replace("b6-c5", "b6-b5");
        assert!(Game::from_pdn(&broken).unwrap_err().contains("move 2"));
    }

    #[test]
    fn a_side_without_moves_has_lost() {
        let game = Game::from_fen(Variant::Bashni, Some("W:a1w,c3b,b2b 0 1")).unwrap();
        assert_eq!(game.result().map(|r| r.0), Some("0-2"));
        assert!(game.legal_moves().is_empty());
    }
}
