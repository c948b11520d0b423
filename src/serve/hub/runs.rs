//! The ladder's side of the hub: starting a run (or leading a browser
//! back to the one it has going), the run of a room brought back after a
//! restart, and the leaderboard.

use super::{Founding, Hub, LEADERBOARD_LINES, device_hash, seat_engine};
use crate::serve::actor::{Kept, RoomHandle, ToRoom};
use crate::serve::climb::Climb;
use crate::serve::config::{GameConfig, Opponent, RoomConfig, Strength};
use crate::serve::ladder::{RIVAL_SEAT, Run, ladder_rules};
use crate::serve::room::Player;
use crate::serve::store::{BoardLine, RunRecord};
use crate::serve::token::{SeatToken, random_hex128};
use crate::serve::wire::parse_variant;
use bashni_rules::{Colour, Variant};
use rand::RngExt;
use std::net::IpAddr;

/// What "Climb the ladder" leads to: a run's room and the player's
/// token, of a new run or of the run this browser has going in the
/// variant.
pub type LadderStart = (String, SeatToken);

impl Hub {
    /// Start a ladder run in `variant` for `name` on the browser whose
    /// device id is `device` (32 hex digits): a private room against
    /// rival 1, the player White; or, if this browser has a run going in
    /// the variant, that run (one at a time: a second run would leave the
    /// first going for ever), its seat given a new token: the device is
    /// the run's proof, and the token the run began with may never have
    /// reached the browser (a server stopped before it answered).
    pub async fn start_ladder(
        &self,
        addr: IpAddr,
        name: &str,
        device: &str,
        variant: &str,
    ) -> Result<LadderStart, String> {
        let variant = parse_variant(variant)?;
        let device_hash = device_hash(device)?;
        let _one_at_a_time = self.ladder_starts.lock().await;
        if let Some((room, handle)) = self.run_going(variant, device_hash.as_str()).await? {
            let token = SeatToken::generate();
            let reissued = token.clone();
            handle
                .ask(|reply| ToRoom::Reissue {
                    seat: 0,
                    token: reissued,
                    reply,
                })
                .await??;
            return Ok((room, token));
        }
        let token = SeatToken::generate();
        let player = Player::human(name, token.hash()).map_err(|e| e.to_string())?;
        let run = Run::new(variant, rand::rng().random());
        let rival = run.rival().ok_or("the ladder has no rival")?;
        let start = run
            .start_position()
            .ok_or("the ladder has no start")?
            .to_fen();
        let config = RoomConfig {
            game: GameConfig {
                draw: ladder_rules(variant).draw,
                ..GameConfig::new(variant)
            },
            clock: None,
            opponent: Opponent::Engine(Strength::Skill(rival.skill_level())),
        };
        let founding = Founding::new(config, player, Colour::White, Some(&start))?;
        let id = founding.row.id.clone();
        // Counted from here until the room is open (or failed to).
        let _counted = self.admit_engine_game(addr, &id)?;
        self.admit(addr)?;
        let record = RunRecord {
            id: random_hex128(),
            room_id: id.clone(),
            variant,
            player_name: founding.seat.name.clone(),
            device_hash: device_hash.as_str().to_owned(),
            seed: run.seed(),
            wins: 0,
            think_ms: 0,
            score: 0,
            status: run.status().as_str().to_owned(),
        };
        let store = &self.shared.store;
        let stored = async {
            store.create_room(&founding.row, &founding.seat).await?;
            store
                .create_run(&record, founding.row.created_at_ms)
                .await?;
            store
                .best_score(variant, &record.player_name, &record.device_hash)
                .await
        };
        let best_before = stored
            .await
            .map_err(|e| format!("cannot store the run: {e}"))?
            .unwrap_or(0);
        let climb = Climb {
            run,
            record,
            best_before,
        };
        let kept = Kept {
            climb: Some(climb),
            ..Kept::default()
        };
        let handle = self.spawn(founding.room, kept);
        seat_engine(&handle, RIVAL_SEAT).await?;
        Ok((id, token))
    }

    /// The room of the newest run of this device still going in `variant`
    /// that can be shown (a room that no longer loads is passed over).
    async fn run_going(
        &self,
        variant: Variant,
        device_hash: &str,
    ) -> Result<Option<(String, RoomHandle)>, String> {
        let rooms = self
            .shared
            .store
            .runs_going(variant, device_hash)
            .await
            .map_err(|e| format!("cannot read the ladder runs: {e}"))?;
        for room in rooms {
            if let Ok(handle) = self.find(&room, None).await {
                return Ok(Some((room, handle)));
            }
        }
        Ok(None)
    }

    /// The ladder run of a restored room, if it is a ladder's.
    pub(super) async fn climb_of(&self, room_id: &str) -> Result<Option<Climb>, String> {
        let store = &self.shared.store;
        let Some(record) = store
            .run_of_room(room_id)
            .await
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let best = store
            .best_score(record.variant, &record.player_name, &record.device_hash)
            .await
            .map_err(|e| e.to_string())?
            .unwrap_or(0);
        Ok(Climb::restore(record, best))
    }

    /// The best score of `name` on the browser whose device id is
    /// `device` in `variant`'s ladder; none before a run.
    pub async fn ladder_best(
        &self,
        variant: &str,
        name: &str,
        device: &str,
    ) -> Result<Option<u64>, String> {
        let variant = parse_variant(variant)?;
        let device_hash = device_hash(device)?;
        (self.shared.store)
            .best_score(variant, name.trim(), device_hash.as_str())
            .await
            .map_err(|e| e.to_string())
    }

    /// The best runs of `variant`, as the leaderboard shows them.
    pub async fn leaderboard(&self, variant: &str) -> Result<Vec<BoardLine>, String> {
        let variant = parse_variant(variant)?;
        self.shared
            .store
            .leaderboard(variant, LEADERBOARD_LINES)
            .await
            .map_err(|e| e.to_string())
    }
}
