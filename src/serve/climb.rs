//! A ladder run as the play server keeps it: the run's rules
//! ([`super::ladder::Run`]), its stored row, and what the page is shown.
//! The room's task owns one of these when its room is a ladder's: after
//! each game it records the result and stores the run, and the next
//! rival's game starts in the same room when the player asks for it; on
//! the rival's turns it decides between a seeded random move and a search
//! of the rival's depth.

use super::config::Strength;
use super::ladder::{
    GameResult, Rival, RivalChoice, Run, RunStatus, average_think_tenths, last_rival,
    result_for_player,
};
use super::store::RunRecord;
use bashni_rules::Colour;
use serde::Serialize;
use std::str::FromStr;

/// A run played in a room.
#[derive(Clone, Debug)]
pub struct Climb {
    /// The run's rules and standing.
    pub run: Run,
    /// Its stored row.
    pub record: RunRecord,
    /// The player's best score before this run (by name and device).
    pub best_before: u64,
}

/// What the page shows of a run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClimbView {
    /// The rival now (or the last one played, once over).
    pub rival: u32,
    /// The last rival of this board.
    pub last_rival: u32,
    /// The men the player starts without against that rival (0 before
    /// rival 8).
    pub handicap: u32,
    /// Games won.
    pub wins: u32,
    /// The score so far.
    pub score: u64,
    /// The player's average thinking time per won game, in tenths of a
    /// second as the score counts it (its speed bonus falls with it);
    /// none before a win.
    pub think_tenths_per_win: Option<u64>,
    /// The player's best, this run included.
    pub best: u64,
    /// The player's thinking in the game shown so far, in milliseconds
    /// (its turn included until the state was sent): what a win adds to
    /// the run's thinking time.
    pub game_think_ms: u64,
    /// `playing`, `lost`, `drawn` or `complete`.
    pub status: &'static str,
}

/// What the rival does on its turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RivalMove {
    /// Play this legal move (the random one the seed chose).
    Play(String),
    /// Search this many plies at full strength, within a node cap.
    Search {
        /// Plies.
        depth: u32,
        /// The most nodes to spend.
        nodes: u64,
        /// The strength to search at (always full: the depth limits it).
        strength: Strength,
    },
}

impl Climb {
    /// A run from its stored row; `None` if the row does not read back.
    pub fn restore(record: RunRecord, best_before: u64) -> Option<Climb> {
        let status = RunStatus::from_str(&record.status).ok()?;
        let run = Run::restore(
            record.variant,
            record.seed,
            record.wins,
            record.think_ms,
            status,
        )
        .ok()?;
        Some(Climb {
            run,
            record,
            best_before,
        })
    }

    /// The page's view of the run, the player having thought
    /// `game_think_ms` in the game shown.
    pub fn view(&self, game_think_ms: u64) -> ClimbView {
        let last = last_rival(self.run.variant());
        // Once over: the rival of the last game, the one after the last
        // beaten (or the last rival, all beaten).
        let rival = (self.run.rival()).map_or((self.run.wins() + 1).min(last), |r| r.number);
        ClimbView {
            rival,
            last_rival: last,
            handicap: Rival::for_level(rival).map_or(0, |r| r.handicap),
            wins: self.run.wins(),
            score: self.run.score(),
            think_tenths_per_win: average_think_tenths(
                self.run.wins(),
                self.run.think_ms_of_wins(),
            ),
            best: self.best_before.max(self.run.score()),
            game_think_ms,
            status: self.run.status().as_str(),
        }
    }

    /// The rival's move at `ply` of the current game, given the legal
    /// moves: the seeded random one, or a search of the rival's depth.
    pub fn rival_move(&self, ply: u32, legal: &[String]) -> Option<RivalMove> {
        match self.run.rival_choice(ply, legal.len())? {
            RivalChoice::Random(index) => legal.get(index).cloned().map(RivalMove::Play),
            RivalChoice::Search { depth, nodes } => Some(RivalMove::Search {
                depth,
                nodes,
                strength: Strength::Skill(bashni_engine::search::SKILL_FULL),
            }),
        }
    }

    /// Record a finished game (`winner`, the player's thinking time in
    /// it): the stored row follows. A run that is over records nothing.
    pub fn record(&mut self, winner: Option<Colour>, think_ms: u64) {
        let result: GameResult = result_for_player(winner);
        if self.run.record_game(result, think_ms).is_err() {
            return;
        }
        self.record.wins = self.run.wins();
        self.record.think_ms = self.run.think_ms_of_wins();
        self.record.score = self.run.score();
        self.record.status = self.run.status().as_str().to_owned();
    }

    /// Whether the run has counted game `game_no` of its room: every game
    /// counted but the last was won, and the last one counted ended the
    /// run unless it was won too.
    pub fn has_recorded(&self, game_no: u32) -> bool {
        let counted = self.run.wins() + u32::from(self.run.is_over());
        counted >= game_no
    }

    /// The next game's start position; `None` once the run is over.
    pub fn next_start(&self) -> Option<String> {
        self.run.start_position().map(|p| p.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::Variant;

    /// A Bashni run still playing after `wins` wins.
    fn playing_after(wins: u32) -> Climb {
        let record = RunRecord {
            id: "run".into(),
            room_id: "room".into(),
            variant: Variant::Bashni,
            player_name: "Lia".into(),
            device_hash: "device".into(),
            seed: 7,
            wins,
            think_ms: u64::from(wins) * 1_000,
            score: 0,
            status: "playing".into(),
        };
        Climb::restore(record, 0).expect("a run")
    }

    #[test]
    fn the_view_says_how_many_men_short_the_player_starts() {
        let handicap = |wins| playing_after(wins).view(0).handicap;
        assert_eq!((playing_after(6).view(0).rival, handicap(6)), (7, 0));
        assert_eq!((playing_after(7).view(0).rival, handicap(7)), (8, 1));
        assert_eq!(handicap(17), 11, "rival 18, one man left");
    }
}
