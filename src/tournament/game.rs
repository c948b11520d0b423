//! One game between two engines, refereed by the rules core: the runner
//! keeps the board, the clocks and the draw rules, and checks every move.

use super::adjudication::{Adjudication, Adjudicator, Verdict};
use bashni_host::Error;
use bashni_host::blocking::Engine;
use bashni_host::clock::{Charge, Clocks, TimeControl};
use bashni_host::info::Score;
use bashni_host::pdn;
use bashni_host::protocol::{Command, Go};
use bashni_rules::{Colour, DrawReason, Game, GameEnd, RuleSet};
use std::time::Duration;

/// How each move is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    /// The runner keeps both clocks and sends `go wtime btime ...`.
    Clock(TimeControl),
    /// `go movetime`, milliseconds.
    MoveTime(u64),
    /// `go depth`.
    Depth(u32),
    /// `go nodes`.
    Nodes(u64),
}

/// Everything about a game except the engines and the opening.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules the referee plays by: the variant's own, with the
    /// runner's ply limit and repetition adjudication added.
    pub rules: RuleSet,
    /// The limit of every search.
    pub limit: SearchLimit,
    /// How long a `bestmove` may take under a non-clock limit.
    pub hang_timeout: Duration,
    /// Grace beyond an empty clock.
    pub time_margin: Duration,
    /// Score adjudication (`--resign`, `--draw`).
    pub adjudication: Adjudication,
}

/// The game's result from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// A draw.
    Draw,
}

impl GameResult {
    fn win_for(colour: Colour) -> GameResult {
        match colour {
            Colour::White => GameResult::WhiteWins,
            Colour::Black => GameResult::BlackWins,
        }
    }

    /// The draughts PDN result: 2 points a win, 1 a draw.
    pub fn pdn(self) -> &'static str {
        pdn::result_token(self.winner())
    }

    /// The result a PDN result token stands for.
    pub fn from_pdn(text: &str) -> Option<GameResult> {
        pdn::winner_of(text).map(|winner| match winner {
            Some(colour) => GameResult::win_for(colour),
            None => GameResult::Draw,
        })
    }

    fn winner(self) -> Option<Colour> {
        match self {
            GameResult::WhiteWins => Some(Colour::White),
            GameResult::BlackWins => Some(Colour::Black),
            GameResult::Draw => None,
        }
    }
}

/// How a game ended. PDN's `[Termination]` tag and the report print it
/// (`Display`), and `stats` reads it back from PDN (`FromStr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move had no legal move.
    Normal,
    /// A draw rule of the game's rule set (repetition, no progress, ply
    /// limit).
    Draw(DrawReason),
    /// Both engines' scores said the game was lost (`--resign`); the engine
    /// named lost.
    ScoreResign(String),
    /// Both engines' scores said the game was level (`--draw`).
    ScoreDraw,
    /// The engine's clock ran out.
    TimeForfeit(String),
    /// The engine did not answer in time under a non-clock limit.
    Stalled(String),
    /// The engine exited, closed its output or could not be restarted.
    Crashed(String),
    /// The engine's `bestmove` (shown safely) was not a legal move.
    IllegalMove {
        /// The engine's name.
        engine: String,
        /// What it sent.
        text: String,
    },
    /// The engine answered its setup with an error.
    SetupRefused {
        /// The engine's name.
        engine: String,
        /// Its error.
        why: String,
    },
}

impl Termination {
    /// What the report counts: the kind without engine names or moves.
    pub fn kind(&self) -> String {
        match self {
            Termination::ScoreResign(_) => "adjudication: score (resign)".into(),
            Termination::TimeForfeit(_) => "time forfeit".into(),
            Termination::Stalled(_) => "stalled connection".into(),
            Termination::Crashed(_) => "engine crashed".into(),
            Termination::IllegalMove { .. } => "illegal move".into(),
            Termination::SetupRefused { .. } => "setup refused".into(),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Termination::Normal => write!(f, "normal"),
            Termination::Draw(reason) => write!(f, "adjudication: {reason}"),
            Termination::ScoreResign(name) => write!(f, "adjudication: score, {name} resigns"),
            Termination::ScoreDraw => write!(f, "adjudication: score (draw)"),
            Termination::TimeForfeit(name) => write!(f, "time forfeit: {name}"),
            Termination::Stalled(name) => write!(f, "stalled connection: {name}"),
            Termination::Crashed(name) => write!(f, "engine crashed: {name}"),
            Termination::IllegalMove { engine, text } => {
                write!(f, "illegal move: {text} by {engine}")
            }
            Termination::SetupRefused { engine, why } => {
                write!(f, "setup refused: {engine}: {why}")
            }
        }
    }
}

impl std::str::FromStr for Termination {
    type Err = String;

    /// The inverse of `Display`.
    fn from_str(text: &str) -> Result<Termination, String> {
        let named = |prefix: &str| text.strip_prefix(prefix).map(str::to_string);
        Ok(match text {
            "normal" => Termination::Normal,
            "adjudication: score (draw)" => Termination::ScoreDraw,
            _ => {
                if let Some(reason) = text
                    .strip_prefix("adjudication: ")
                    .and_then(parse_draw_reason)
                {
                    Termination::Draw(reason)
                } else if let Some(name) = text
                    .strip_prefix("adjudication: score, ")
                    .and_then(|r| r.strip_suffix(" resigns"))
                {
                    Termination::ScoreResign(name.to_string())
                } else if let Some(name) = named("time forfeit: ") {
                    Termination::TimeForfeit(name)
                } else if let Some(name) = named("stalled connection: ") {
                    Termination::Stalled(name)
                } else if let Some(name) = named("engine crashed: ") {
                    Termination::Crashed(name)
                } else if let Some((text, engine)) = text
                    .strip_prefix("illegal move: ")
                    // The move text is one word; the name may have spaces.
                    .and_then(|r| r.split_once(" by "))
                {
                    Termination::IllegalMove {
                        engine: engine.to_string(),
                        text: text.to_string(),
                    }
                } else if let Some((engine, why)) = text
                    .strip_prefix("setup refused: ")
                    .and_then(|r| r.split_once(": "))
                {
                    Termination::SetupRefused {
                        engine: engine.to_string(),
                        why: why.to_string(),
                    }
                } else {
                    return Err(format!("unknown termination '{text}'"));
                }
            }
        })
    }
}

/// The inverse of `DrawReason`'s `Display`.
fn parse_draw_reason(text: &str) -> Option<DrawReason> {
    let plies = |rest: &str| rest.strip_suffix(" plies)")?.parse().ok();
    if text == "threefold repetition" {
        Some(DrawReason::Repetition(3))
    } else if let Some(rest) = text.strip_prefix("no-progress rule (") {
        plies(rest).map(DrawReason::NoProgress)
    } else if let Some(rest) = text.strip_prefix("ply limit (") {
        plies(rest).map(DrawReason::PlyLimit)
    } else {
        let n = text.strip_suffix("-fold repetition")?.parse().ok()?;
        Some(DrawReason::Repetition(n))
    }
}

/// A move of the game with what its engine said about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// In the protocol's full notation.
    pub text: String,
    /// The engine's last reported score, from the mover's view.
    pub score: Option<Score>,
    /// The depth the engine reported last, if any.
    pub depth: Option<u32>,
    /// Time the engine took.
    pub elapsed: Duration,
}

impl PlayedMove {
    /// The PDN comment cutechess writes: `+0.12/12 0.51s`.
    pub fn comment(&self) -> String {
        let score = self.score.map_or("?".to_string(), |s| s.to_string());
        let depth = self.depth.map_or(String::new(), |d| format!("/{d}"));
        format!("{score}{depth} {:.2}s", self.elapsed.as_secs_f64())
    }
}

/// How a game ended and what it left behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// How the game ended, in points.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
    /// Every move with what the engine said of it.
    pub moves: Vec<PlayedMove>,
    /// The side whose engine misbehaved and must be restarted.
    pub failed: Option<Colour>,
}

/// Play one game from `opening_fen`; `engines` is indexed by colour
/// (white first), and so is `odds`, an engine's own time control in a
/// clock match. Both engines must have had `new_game`.
pub fn play_game(
    engines: [&mut Engine; 2],
    opening_fen: &str,
    settings: &GameSettings,
    odds: [Option<TimeControl>; 2],
) -> anyhow::Result<GameOutcome> {
    let mut game = Game::from_fen(settings.rules, opening_fen)
        .map_err(|e| anyhow::anyhow!("bad opening '{opening_fen}': {e}"))?;
    let mut moves: Vec<PlayedMove> = Vec::new();
    let mut clocks = match settings.limit {
        SearchLimit::Clock(control) => Some(Clocks::with_odds(odds.map(|o| o.unwrap_or(control)))),
        _ => None,
    };
    let mut adjudicator = Adjudicator::new(settings.adjudication);
    let end = |result, termination, moves, failed| {
        Ok(GameOutcome {
            result,
            termination,
            moves,
            failed,
        })
    };

    loop {
        let side = game.position().side_to_move();
        match game.result() {
            Some(GameEnd::NoLegalMove { loser }) => {
                return end(
                    GameResult::win_for(!loser),
                    Termination::Normal,
                    moves,
                    None,
                );
            }
            Some(GameEnd::Draw(reason)) => {
                return end(GameResult::Draw, Termination::Draw(reason), moves, None);
            }
            None => {}
        }
        let engine = &mut *engines[side.index()];
        let name = engine.name().to_string();
        let position = position_command(opening_fen, &moves);
        let (go, timeout) = go_command(settings, clocks.as_ref(), side);
        let loses = GameResult::win_for(!side);
        let reply = match engine.search(position, go, timeout) {
            Ok(reply) => reply,
            Err(failure) => {
                let termination = search_failure(failure, settings.limit, name);
                return end(loses, termination, moves, Some(side));
            }
        };
        let charge = clocks
            .as_mut()
            .map(|c| c.charge(side, reply.elapsed, settings.time_margin));
        if charge == Some(Charge::Flagged) {
            // It answered, late: it loses but needs no restart.
            return end(loses, Termination::TimeForfeit(name), moves, None);
        }
        let Ok(mv) = game.play_text(&reply.best_move) else {
            let text = printable(&reply.best_move);
            let termination = Termination::IllegalMove { engine: name, text };
            return end(loses, termination, moves, Some(side));
        };
        moves.push(PlayedMove {
            text: mv.to_string(),
            score: reply.score,
            depth: reply.depth,
            elapsed: reply.elapsed,
        });
        match adjudicator.after_move(side, reply.score) {
            Some(Verdict::Draw) => {
                return end(GameResult::Draw, Termination::ScoreDraw, moves, None);
            }
            Some(Verdict::Lost(loser)) => {
                let name = engines[loser.index()].name().to_string();
                let result = GameResult::win_for(!loser);
                return end(result, Termination::ScoreResign(name), moves, None);
            }
            None => {}
        }
    }
}

/// `position fen <opening> [moves ...]`.
fn position_command(opening_fen: &str, moves: &[PlayedMove]) -> Command {
    Command::Position {
        fen: opening_fen.to_string(),
        moves: moves.iter().map(|m| m.text.clone()).collect(),
    }
}

/// The `go` for the side to move and how long it may take.
fn go_command(settings: &GameSettings, clocks: Option<&Clocks>, side: Colour) -> (Go, Duration) {
    let hang = settings.hang_timeout;
    match (settings.limit, clocks) {
        (SearchLimit::Clock(_), Some(clocks)) => {
            (clocks.go(side), clocks.deadline(side, settings.time_margin))
        }
        (SearchLimit::MoveTime(ms), _) => (Go::MoveTime(ms), hang),
        (SearchLimit::Depth(d), _) => (Go::Depth(d), hang),
        (SearchLimit::Nodes(n), _) => (Go::Nodes(n), hang),
        // Clocks exist exactly under a clock limit.
        (SearchLimit::Clock(_), None) => (Go::Infinite, hang),
    }
}

/// The termination when an engine failed to answer `go`.
fn search_failure(failure: Error, limit: SearchLimit, name: String) -> Termination {
    match failure {
        Error::Stalled(_) => match limit {
            SearchLimit::Clock(_) => Termination::TimeForfeit(name),
            _ => Termination::Stalled(name),
        },
        // A search fails only by a crash or a stall; anything else is a
        // crash too.
        _ => Termination::Crashed(name),
    }
}

/// An engine's move text fit for a PDN tag: control characters become
/// `?` and a long text is cut, so junk cannot break the file.
fn printable(text: &str) -> String {
    if text.is_empty() {
        return "(no move)".into();
    }
    let mut shown: String = text
        .chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > 40 {
        shown.push_str("...");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_moves_are_shown_safely() {
        assert_eq!(printable(""), "(no move)");
        assert_eq!(printable("a\u{0}b\u{7f}"), "a?b?");
        assert_eq!(
            printable(&"z".repeat(100)),
            format!("{}...", "z".repeat(40))
        );
    }

    #[test]
    fn terminations_read_back_what_they_print() {
        let all = [
            Termination::Normal,
            Termination::Draw(DrawReason::Repetition(3)),
            Termination::Draw(DrawReason::Repetition(4)),
            Termination::Draw(DrawReason::NoProgress(50)),
            Termination::Draw(DrawReason::PlyLimit(6)),
            Termination::ScoreResign("old one".into()),
            Termination::ScoreDraw,
            Termination::TimeForfeit("a".into()),
            Termination::Stalled("b".into()),
            Termination::Crashed("c".into()),
            Termination::IllegalMove {
                engine: "fake by name".into(),
                text: "e1-f2".into(),
            },
            Termination::SetupRefused {
                engine: "d".into(),
                why: "option Hash: bad".into(),
            },
        ];
        for t in all {
            assert_eq!(t.to_string().parse::<Termination>(), Ok(t.clone()), "{t}");
        }
        assert_eq!(Termination::Crashed("x".into()).kind(), "engine crashed");
        assert_eq!(
            Termination::Draw(DrawReason::NoProgress(50)).kind(),
            "adjudication: no-progress rule (50 plies)"
        );
        assert!(
            "adjudication: ply limit (x plies)"
                .parse::<Termination>()
                .is_err()
        );
        assert!("won on points".parse::<Termination>().is_err());
    }

    #[test]
    fn move_comments_in_cutechess_form() {
        let mut mv = PlayedMove {
            text: "c3-d4".into(),
            score: Some(Score::Cp(12)),
            depth: Some(12),
            elapsed: Duration::from_millis(514),
        };
        assert_eq!(mv.comment(), "+0.12/12 0.51s");
        mv.score = None;
        mv.depth = None;
        assert_eq!(mv.comment(), "? 0.51s");
    }

    #[test]
    fn results_in_pdn() {
        for r in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
        ] {
            assert_eq!(GameResult::from_pdn(r.pdn()), Some(r));
        }
        assert_eq!(GameResult::from_pdn("1-0"), None);
    }
}
