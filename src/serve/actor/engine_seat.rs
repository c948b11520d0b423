//! A room's engine seat: when to ask the engine pool for a move (a
//! ladder's rival may move at random instead), with which limit, and what
//! to do with the answer.

use super::{Actor, ToRoom};
use crate::serve::climb::RivalMove;
use crate::serve::config::{Opponent, RoomConfig};
use crate::serve::engines::SearchJob;
use crate::serve::room::Phase;
use bashni_host::protocol::{Command, Go};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an engine seat waits before it tries again after a failure.
const ENGINE_RETRY: Duration = Duration::from_secs(1);

/// The time an engine seat thinks per move in a room without a clock.
const ENGINE_MOVETIME_MS: u64 = 1000;

/// The most time left, and the most increment, an engine seat is shown
/// on a room's clock: it thinks seconds a move whatever the clock (as
/// lichess's engines do), so that rooms with long clocks cannot hold the
/// pool's engines for hours, and an engine left searching by a killed
/// server soon ends.
const ENGINE_CLOCK_CAP_MS: u64 = 60_000;
const ENGINE_INCREMENT_CAP_MS: u64 = 3_000;

/// The clock as an engine seat is shown it: capped at
/// [`ENGINE_CLOCK_CAP_MS`] and [`ENGINE_INCREMENT_CAP_MS`].
pub(super) fn engine_clock(go: Go) -> Go {
    let (time, inc) = (ENGINE_CLOCK_CAP_MS, ENGINE_INCREMENT_CAP_MS);
    match go {
        Go::Clock {
            wtime,
            btime,
            winc,
            binc,
            moves_to_go,
        } => Go::Clock {
            wtime: wtime.min(time),
            btime: btime.min(time),
            winc: winc.min(inc),
            binc: binc.min(inc),
            moves_to_go,
        },
        other => other,
    }
}

impl Actor {
    pub(super) fn engine_seat(&self) -> Option<u8> {
        (0u8..2).find(|&s| self.room.player(s).is_some_and(|p| p.engine))
    }

    /// The game and ply now, if it is the engine seat's turn.
    pub(super) fn engine_turn(&self) -> Option<(u8, (u32, usize))> {
        let seat = self.engine_seat()?;
        let game = self.room.game();
        let on_move = self.room.phase() == Phase::Playing
            && self.room.colour_of(seat) == game.position().side_to_move();
        on_move.then_some((seat, (self.room.game_no(), game.moves().len())))
    }

    /// Start the engine's search if it is its turn and none runs for it.
    pub(super) fn ask_engine(&mut self) {
        let Some((_, at)) = self.engine_turn() else {
            if self.engine_status.take().is_some() {
                self.publish();
            }
            return;
        };
        if self.engine_asked == Some(at) {
            return;
        }
        if let Some(RivalMove::Play(text)) = self.rival_move() {
            // The seed chose a random move: no engine needed.
            self.engine_asked = Some(at);
            let me = self.me.clone();
            tokio::spawn(async move {
                let answer = Ok(text);
                let _ = me.send(ToRoom::EngineAnswer { at, answer }).await;
            });
            return;
        }
        let Some(job) = self.search_job() else {
            return;
        };
        self.engine_asked = Some(at);
        let pool = Arc::clone(&self.shared.engines);
        self.engine_status = Some(match pool.is_full() {
            true => format!("waiting for a free engine: {} ahead", pool.waiting()),
            false => "thinking".into(),
        });
        self.publish();
        let me = self.me.clone();
        let delay = match self.engine_failures {
            0 => Duration::ZERO,
            n => ENGINE_RETRY * n.min(30),
        };
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let answer = match pool.slot().await {
                Ok(slot) => {
                    let _ = me.send(ToRoom::EngineThinking { at }).await;
                    pool.search(&job, &slot).await.map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            let _ = me.send(ToRoom::EngineAnswer { at, answer }).await;
        });
    }

    /// A ladder rival's move now, if the room is a ladder's.
    pub(super) fn rival_move(&self) -> Option<RivalMove> {
        let climb = self.climb.as_ref()?;
        let game = self.room.game();
        let legal: Vec<String> = game
            .position()
            .legal_moves()
            .iter()
            .map(ToString::to_string)
            .collect();
        let ply = u32::try_from(game.moves().len()).unwrap_or(u32::MAX);
        climb.rival_move(ply, &legal)
    }

    pub(super) fn search_job(&self) -> Option<SearchJob> {
        let RoomConfig {
            game: config,
            opponent: Opponent::Engine(strength),
            ..
        } = *self.room.config()
        else {
            return None;
        };
        let game = self.room.game();
        let (strength, go) = match self.rival_move() {
            Some(RivalMove::Search {
                depth,
                nodes,
                strength,
            }) => (strength, Go::DepthWithin { depth, nodes }),
            _ => (strength, self.clock_go()),
        };
        Some(SearchJob {
            game: config,
            strength,
            position: Command::Position {
                fen: game.start().to_fen(),
                moves: game.moves().iter().map(ToString::to_string).collect(),
            },
            to_move: game.position().clone(),
            go,
        })
    }

    /// The search limit of an engine seat: the room's clocks (capped),
    /// or a time per move without one.
    pub(super) fn clock_go(&self) -> Go {
        self.room
            .engine_go(Instant::now())
            .map_or(Go::MoveTime(ENGINE_MOVETIME_MS), engine_clock)
    }

    pub(super) async fn engine_answer(&mut self, at: (u32, usize), answer: Result<String, String>) {
        if self.engine_asked != Some(at) {
            return;
        }
        let Some((seat, now_at)) = self.engine_turn() else {
            return;
        };
        if now_at != at {
            return;
        }
        let failure = match answer {
            Ok(text) => {
                let before = self.room.clone();
                match self.room.play(seat, &text, Instant::now()) {
                    Ok(events) => self.commit(events, before).await.err(),
                    Err(e) => Some(format!("the engine played '{text}': {e}")),
                }
            }
            Err(e) => Some(e),
        };
        match failure {
            None => self.engine_failures = 0,
            Some(why) => {
                // Ask again (a fresh process), from the position the room
                // holds; the engine's clock keeps running meanwhile.
                eprintln!("bashni serve: room {}: engine: {why}", self.room.id());
                self.engine_failures += 1;
                self.engine_asked = None;
                self.engine_status = Some(format!("restarting the engine ({why})"));
                self.publish();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_seat_sees_at_most_a_minute_and_three_seconds_a_move() {
        let go = |wtime, btime, inc| Go::Clock {
            wtime,
            btime,
            winc: inc,
            binc: inc,
            moves_to_go: None,
        };
        // Three hours plus three minutes a move read as a minute plus
        // three seconds; what is under the caps stays.
        let long = go(10_800_000, 10_000, 180_000);
        assert_eq!(engine_clock(long), go(60_000, 10_000, 3_000));
        assert_eq!(
            engine_clock(go(5_000, 7_000, 2_000)),
            go(5_000, 7_000, 2_000)
        );
        assert_eq!(engine_clock(Go::MoveTime(1000)), Go::MoveTime(1000));
    }
}
