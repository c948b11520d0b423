//! One game between two engines, refereed by the rules core: the runner
//! keeps the board, the clocks and the draw rules, and checks every move.

use super::TimeControl;
use super::engine::{Engine, EngineFailure};
use crate::rules::{Colour, Game, GameEnd, RuleSet};
use std::time::Duration;

/// How each move is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    /// The runner keeps both clocks and sends `go wtime btime ...`.
    Clock(TimeControl),
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

/// Everything about a game except the engines and the opening.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules the referee plays by: the variant's own, with the
    /// runner's ply limit and repetition adjudication added.
    pub rules: RuleSet,
    pub limit: SearchLimit,
    /// How long a `bestmove` may take under a non-clock limit.
    pub hang_timeout: Duration,
    /// Grace beyond an empty clock.
    pub time_margin: Duration,
}

/// The game's result from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
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
        match self {
            GameResult::WhiteWins => "2-0",
            GameResult::BlackWins => "0-2",
            GameResult::Draw => "1-1",
        }
    }

    pub fn from_pdn(text: &str) -> Option<GameResult> {
        match text {
            "2-0" => Some(GameResult::WhiteWins),
            "0-2" => Some(GameResult::BlackWins),
            "1-1" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// How a game ended and what it left behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    pub result: GameResult,
    /// For the PDN `[Termination]` tag.
    pub termination: String,
    /// The moves played, in the protocol's full notation.
    pub moves: Vec<String>,
    /// The side whose engine misbehaved and must be restarted.
    pub failed: Option<Colour>,
}

/// Play one game from `opening_fen`; `engines` is indexed by colour
/// (white first). Both engines must have had `new_game`.
pub fn play_game(
    engines: [&mut Engine; 2],
    opening_fen: &str,
    settings: &GameSettings,
) -> anyhow::Result<GameOutcome> {
    let mut game = Game::from_fen(settings.rules, opening_fen)
        .map_err(|e| anyhow::anyhow!("bad opening '{opening_fen}': {e}"))?;
    let [white, black] = engines;
    let mut engines = [white, black];
    let mut moves: Vec<String> = Vec::new();
    let mut clocks = Clocks::new(settings.limit);

    let end = |result, termination: String, moves: Vec<String>, failed| {
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
                return end(GameResult::win_for(!loser), "normal".into(), moves, None);
            }
            Some(GameEnd::Draw(reason)) => {
                return end(
                    GameResult::Draw,
                    format!("adjudication: {reason}"),
                    moves,
                    None,
                );
            }
            None => {}
        }

        let engine = &mut engines[side.index()];
        let name = engine.name().to_string();
        let position = if moves.is_empty() {
            format!("position fen {opening_fen}")
        } else {
            format!("position fen {opening_fen} moves {}", moves.join(" "))
        };
        let (go, timeout) = match settings.limit {
            SearchLimit::Clock(_) => (
                clocks.go_command(side),
                clocks.deadline(side, settings.time_margin),
            ),
            SearchLimit::MoveTime(ms) => (format!("go movetime {ms}"), settings.hang_timeout),
            SearchLimit::Depth(d) => (format!("go depth {d}"), settings.hang_timeout),
            SearchLimit::Nodes(n) => (format!("go nodes {n}"), settings.hang_timeout),
        };
        let loses = GameResult::win_for(!side);
        let reply = match engine.search(&position, &go, timeout) {
            Ok(reply) => reply,
            // Refused comes only from setup; a search never answers with it.
            Err(EngineFailure::Crashed(_) | EngineFailure::Refused(_)) => {
                return end(loses, format!("engine crashed: {name}"), moves, Some(side));
            }
            Err(EngineFailure::Stalled(_)) => {
                let termination = match settings.limit {
                    SearchLimit::Clock(_) => format!("time forfeit: {name}"),
                    _ => format!("stalled connection: {name}"),
                };
                return end(loses, termination, moves, Some(side));
            }
        };
        if clocks
            .charge(side, reply.elapsed, settings.time_margin)
            .is_err()
        {
            // It answered, late: it loses but needs no restart.
            return end(loses, format!("time forfeit: {name}"), moves, None);
        }
        let mv = match game.play_text(&reply.best_move) {
            Ok(mv) => mv,
            Err(_) => {
                let shown = printable(&reply.best_move);
                return end(
                    loses,
                    format!("illegal move: {shown} by {name}"),
                    moves,
                    Some(side),
                );
            }
        };
        moves.push(mv.to_string());
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

/// Both sides' clocks under a time control (idle for other limits).
struct Clocks {
    control: Option<TimeControl>,
    /// Milliseconds left; negative once overdrawn within the margin.
    left_ms: [i64; 2],
    moves_made: [u32; 2],
}

/// The side's clock fell more than the margin below zero.
struct Flagged;

impl Clocks {
    fn new(limit: SearchLimit) -> Clocks {
        let control = match limit {
            SearchLimit::Clock(tc) => Some(tc),
            _ => None,
        };
        let base = control.map_or(0, |tc| tc.base_ms as i64);
        Clocks {
            control,
            left_ms: [base; 2],
            moves_made: [0; 2],
        }
    }

    /// `go wtime .. btime .. [winc binc] [movestogo]` for the side to move.
    fn go_command(&self, side: Colour) -> String {
        let Some(tc) = self.control else {
            return "go".into();
        };
        // The protocol rejects negative numbers; a clock overdrawn within
        // the margin is sent as 1 ms.
        let [w, b] = self.left_ms.map(|ms| ms.max(1));
        let mut go = format!("go wtime {w} btime {b}");
        if tc.increment_ms > 0 {
            go += &format!(" winc {0} binc {0}", tc.increment_ms);
        }
        if tc.moves > 0 {
            let made = self.moves_made[side.index()];
            go += &format!(" movestogo {}", tc.moves - made % tc.moves);
        }
        go
    }

    /// How long `side` may think before it has lost on time.
    fn deadline(&self, side: Colour, margin: Duration) -> Duration {
        let left = self.left_ms[side.index()].max(0) as u64;
        Duration::from_millis(left) + margin
    }

    /// Charge a move's time, add the increment and start a new period when
    /// one is used up.
    fn charge(&mut self, side: Colour, elapsed: Duration, margin: Duration) -> Result<(), Flagged> {
        let Some(tc) = self.control else {
            return Ok(());
        };
        let i = side.index();
        self.left_ms[i] -= elapsed.as_millis() as i64;
        if self.left_ms[i] < -(margin.as_millis() as i64) {
            return Err(Flagged);
        }
        self.left_ms[i] += tc.increment_ms as i64;
        self.moves_made[i] += 1;
        if tc.moves > 0 && self.moves_made[i].is_multiple_of(tc.moves) {
            self.left_ms[i] += tc.base_ms as i64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(moves: u32, base_ms: u64, increment_ms: u64) -> Clocks {
        Clocks::new(SearchLimit::Clock(TimeControl {
            moves,
            base_ms,
            increment_ms,
        }))
    }

    #[test]
    fn clocks_charge_and_add_the_increment() {
        let margin = Duration::from_millis(50);
        let mut c = clock(0, 10_000, 100);
        assert_eq!(
            c.go_command(Colour::White),
            "go wtime 10000 btime 10000 winc 100 binc 100"
        );
        assert!(
            c.charge(Colour::White, Duration::from_millis(400), margin)
                .is_ok()
        );
        assert_eq!(c.left_ms, [9_700, 10_000]);
        assert_eq!(
            c.deadline(Colour::White, margin),
            Duration::from_millis(9_750)
        );
        // 40 ms over the clock is inside the margin; 60 ms is not.
        let mut c = clock(0, 1_000, 0);
        assert!(
            c.charge(Colour::Black, Duration::from_millis(1_040), margin)
                .is_ok()
        );
        assert_eq!(c.go_command(Colour::White), "go wtime 1000 btime 1");
        let mut c = clock(0, 1_000, 0);
        assert!(
            c.charge(Colour::Black, Duration::from_millis(1_060), margin)
                .is_err()
        );
    }

    #[test]
    fn clocks_refill_after_each_period() {
        let margin = Duration::from_millis(50);
        let mut c = clock(2, 1_000, 0);
        assert_eq!(
            c.go_command(Colour::White),
            "go wtime 1000 btime 1000 movestogo 2"
        );
        c.charge(Colour::White, Duration::from_millis(300), margin)
            .ok();
        assert_eq!(
            c.go_command(Colour::Black),
            "go wtime 700 btime 1000 movestogo 2"
        );
        c.charge(Colour::Black, Duration::from_millis(100), margin)
            .ok();
        assert_eq!(
            c.go_command(Colour::White),
            "go wtime 700 btime 900 movestogo 1"
        );
        c.charge(Colour::White, Duration::from_millis(300), margin)
            .ok();
        // White's second move ends its period: 400 + 1000, a fresh period.
        assert_eq!(c.left_ms, [1_400, 900]);
        assert_eq!(
            c.go_command(Colour::Black),
            "go wtime 1400 btime 900 movestogo 1"
        );
        c.charge(Colour::Black, Duration::from_millis(100), margin)
            .ok();
        assert_eq!(
            c.go_command(Colour::White),
            "go wtime 1400 btime 1800 movestogo 2"
        );
    }

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
