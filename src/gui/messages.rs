//! What the page and the server say to each other over the WebSocket: one
//! JSON object per message, tagged by `type`.

use super::game::LegalMove;
use bashni_host::clock::TimeControl;
use bashni_host::info::Info;
use bashni_host::protocol::Client;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The engine options the page sets, by their protocol names. Their
/// ranges come from the engine's own declarations in the handshake and go
/// to the page with every state: nothing else declares them.
pub const PAGE_OPTIONS: [&str; 5] = ["Threads", "Hash", "Move Overhead", "Skill Level", "MultiPV"];

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
    /// The engine's `Skill Level` in `Play` mode; `None` for full strength
    /// (the top of the engine's range).
    #[serde(default)]
    pub skill: Option<i64>,
    /// Lines shown in `Analysis` mode (`MultiPV`).
    pub multipv: i64,
    /// `Threads`; `None` leaves the engine's own.
    #[serde(default)]
    pub threads: Option<i64>,
    /// `Hash`, in MiB; `None` leaves the engine's own.
    #[serde(default)]
    pub hash_mb: Option<i64>,
    /// `Move Overhead`, in milliseconds; `None` leaves the engine's own.
    #[serde(default)]
    pub move_overhead_ms: Option<i64>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            mode: Mode::Play,
            engine_side: Side::Black,
            movetime_ms: 1000,
            clock: None,
            skill: None,
            multipv: 3,
            threads: None,
            hash_mb: None,
            move_overhead_ms: None,
        }
    }
}

impl Settings {
    /// The engine options these settings set, as (name, value); `None`
    /// leaves the option as it is.
    pub fn engine_options(&self) -> [(&'static str, Option<i64>); 5] {
        [
            ("Threads", self.threads),
            ("Hash", self.hash_mb),
            ("Move Overhead", self.move_overhead_ms),
            ("Skill Level", self.skill),
            ("MultiPV", Some(self.multipv)),
        ]
    }

    /// Refuse values no engine should be sent: out of the host's limits,
    /// or out of the ranges the engine declared.
    pub fn check(&self, ranges: &OptionRanges) -> Result<(), String> {
        if !(10..=600_000).contains(&self.movetime_ms) {
            return Err("time per move must be 10 ms to 600 s".into());
        }
        if let Some(clock) = self.clock
            && (!(1_000..=36_000_000).contains(&clock.base_ms) || clock.increment_ms > 600_000)
        {
            return Err("the clock must be 1 s to 10 h, plus at most 600 s a move".into());
        }
        for (name, value) in self.engine_options() {
            if let (Some(value), Some(range)) = (value, ranges.get(name))
                && !(range.min..=range.max).contains(&value)
            {
                return Err(format!("{name} must be {} to {}", range.min, range.max));
            }
        }
        Ok(())
    }
}

/// The range an engine declared for a spin option.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct OptionRange {
    /// The least value.
    pub min: i64,
    /// The greatest value.
    pub max: i64,
    /// The engine's default, which the page shows until the user sets one.
    pub default: i64,
}

/// The declared ranges of the page's options, by protocol name; an option
/// the engine does not declare is missing (and its control hidden).
pub type OptionRanges = BTreeMap<String, OptionRange>;

/// The ranges of `PAGE_OPTIONS` the engine declared in its handshake.
pub fn option_ranges(client: &Client) -> OptionRanges {
    let spin = |name: &str| {
        let option = client.option(name)?;
        let (min, max) = option.range()?;
        let default = match option.kind {
            bashni_host::options::OptionKind::Spin { default, .. } => default,
            _ => min,
        };
        Some((name.to_string(), OptionRange { min, max, default }))
    };
    PAGE_OPTIONS.iter().filter_map(|name| spin(name)).collect()
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
    /// `+0.35`, `-1.20`, `+M3` (White mates in 3), `-M2`.
    pub score: String,
    /// Centipawns for the bar and the graph (a mate beyond any of them).
    pub cp: i32,
    pub pv: Vec<String>,
}

impl PvLine {
    /// The line an `info` report shows, if it has a score and moves;
    /// `white_to_move` turns the engine's side-to-move score into White's.
    pub fn from_info(info: Info, white_to_move: bool) -> Option<PvLine> {
        let score = info.score?.for_white(white_to_move);
        (!info.pv.is_empty()).then(|| PvLine {
            multipv: info.multipv,
            depth: info.depth.unwrap_or(0),
            score: score.to_string(),
            cp: score.centipawns(),
            pv: info.pv,
        })
    }
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
    /// The ranges of the page's engine options, from the engine.
    pub engine_options: OptionRanges,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_show_scores_from_whites_view() {
        let info = |line: &str| Info::parse(line).expect("an info line");
        let report = "info depth 7 multipv 2 score cp 35 nodes 10 pv c3-d4 f6-g5";
        let white = PvLine::from_info(info(report), true).expect("a line");
        assert_eq!((white.multipv, white.depth, white.cp), (2, 7, 35));
        assert_eq!((white.score.as_str(), white.pv.len()), ("+0.35", 2));
        let black = PvLine::from_info(info(report), false).expect("a line");
        assert_eq!((black.score.as_str(), black.cp), ("-0.35", -35));
        let mate = PvLine::from_info(info("info depth 3 score mate 2 pv a1-b2"), false);
        assert_eq!(mate.map(|l| l.score), Some("-M2".to_string()));
        for bare in ["info depth 3 nodes 5 pv a1-b2", "info depth 3 score cp 1"] {
            assert_eq!(PvLine::from_info(info(bare), true), None, "{bare}");
        }
    }

    #[test]
    fn settings_are_checked_against_the_declared_ranges() {
        let range = OptionRange {
            min: 1,
            max: 4,
            default: 1,
        };
        let ranges = OptionRanges::from([("Threads".to_string(), range)]);
        let mut settings = Settings {
            threads: Some(4),
            ..Settings::default()
        };
        assert_eq!(settings.check(&ranges), Ok(()));
        settings.threads = Some(5);
        assert_eq!(
            settings.check(&ranges),
            Err("Threads must be 1 to 4".into())
        );
        // An option the engine does not declare is not sent, so not checked.
        settings.threads = Some(1);
        settings.hash_mb = Some(-3);
        assert_eq!(settings.check(&ranges), Ok(()));
    }
}
