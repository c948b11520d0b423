//! What the page and the server say to each other over the WebSocket: one
//! JSON object per message, tagged by `type`.

use super::clock::TimeControl;
use super::game::LegalMove;
use serde::{Deserialize, Serialize};

/// What the page asks for.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// A new game from the start position or a position string.
    NewGame {
        variant: String,
        #[serde(default)]
        fen: Option<String>,
    },
    /// A move on the board position (a human's, or one from an analysis line).
    Move {
        text: String,
    },
    /// Several moves in a row, as an analysis line.
    Line {
        moves: Vec<String>,
    },
    /// Show the position after this many moves.
    GoTo {
        ply: usize,
    },
    Settings(Settings),
    /// Start a fresh engine process (after a crash or an illegal move).
    Restart,
    ExportPdn,
    ImportPdn {
        text: String,
    },
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A human against the engine.
    Play,
    /// Two humans; the engine stays idle.
    Humans,
    /// The engine searches the board position until it changes.
    Analysis,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    White,
    Black,
}

/// How the engine is used.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub mode: Mode,
    /// The engine's side in `Play` mode.
    pub engine_side: Side,
    /// Time per engine move, milliseconds (when there is no clock).
    pub movetime_ms: u64,
    /// A game clock for both sides in `Play` mode, instead of a time per move.
    #[serde(default)]
    pub clock: Option<TimeControl>,
    /// The engine's `Skill Level` in `Play` mode (0 = full strength).
    pub skill: u32,
    /// Lines shown in `Analysis` mode.
    pub multipv: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            mode: Mode::Play,
            engine_side: Side::Black,
            movetime_ms: 1000,
            clock: None,
            skill: 0,
            multipv: 3,
        }
    }
}

impl Settings {
    /// Refuse values no engine should be sent.
    pub fn check(&self) -> Result<(), String> {
        if !(10..=600_000).contains(&self.movetime_ms) {
            return Err("time per move must be 10 ms to 600 s".into());
        }
        if let Some(clock) = self.clock
            && (!(1_000..=36_000_000).contains(&clock.base_ms) || clock.increment_ms > 600_000)
        {
            return Err("the clock must be 1 s to 10 h, plus at most 600 s a move".into());
        }
        if self.skill > 7 {
            return Err("Skill Level must be 0 to 7".into());
        }
        if !(1..=8).contains(&self.multipv) {
            return Err("analysis lines must be 1 to 8".into());
        }
        Ok(())
    }
}

/// What the engine process is doing.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EngineStatus {
    Idle,
    Thinking,
    Analysing,
    /// Not running (it crashed, could not start, or misbehaved).
    Stopped,
}

/// One line of the engine's search, scores from White's view.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PvLine {
    pub multipv: u32,
    pub depth: u32,
    /// `+0.35`, `-1.20`, `#3` (White mates in 3), `#-2`.
    pub score: String,
    /// Centipawns for the bar and the graph (a mate is ±100 pawns).
    pub cp: i32,
    pub pv: Vec<String>,
}

/// Everything the page draws.
#[derive(Debug, Serialize)]
pub struct GameView {
    pub variant: String,
    pub start_fen: String,
    /// The board position (at the cursor).
    pub fen: String,
    pub moves: Vec<String>,
    pub cursor: usize,
    pub last_move: Option<LegalMove>,
    pub legal: Vec<LegalMove>,
    /// The result at the cursor, in words, when the game is over there.
    pub result: Option<String>,
    /// Time left, White's then Black's, in `Play` mode with a clock.
    pub clocks_ms: Option<[i64; 2]>,
    /// Evaluation by ply (position after that many moves), White's view.
    pub evals: Vec<Option<i32>>,
    pub settings: Settings,
    pub engine_name: String,
    pub engine_status: EngineStatus,
    /// Why the engine stopped, until it is restarted.
    pub engine_error: Option<String>,
}

/// What the server tells the page.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    State(Box<GameView>),
    Analysis { ply: usize, lines: Vec<PvLine> },
    Error { message: String },
    Pdn { text: String },
}
