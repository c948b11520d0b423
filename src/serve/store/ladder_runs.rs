//! Ladder runs in the store: one row per climb, its score kept up to date
//! after every game, so that a player's best and the leaderboard are one
//! query away. The games of a run are the games of its room.

use super::super::ladder::RunStatus;
use super::{Pool, Store, StoreError, to_i64, to_u32, to_u64};
use bashni_rules::Variant;
use sqlx::Row;
use std::str::FromStr;

/// A run as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRecord {
    /// Its id.
    pub id: String,
    /// The room its games are played in.
    pub room_id: String,
    /// Bashni or Lasca.
    pub variant: Variant,
    /// The player's display name.
    pub player_name: String,
    /// The hash of the browser's device id.
    pub device_hash: String,
    /// The seed of the rivals' random moves.
    pub seed: u64,
    /// Games won.
    pub wins: u32,
    /// The player's thinking in the games won, in milliseconds.
    pub think_ms: u64,
    /// The score.
    pub score: u64,
    /// `playing`, `lost`, `drawn` or `complete`.
    pub status: String,
}

/// A line of the leaderboard: a player's best run (by name and device).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardLine {
    /// The player's display name.
    pub name: String,
    /// The best score.
    pub best: u64,
    /// The most wins in one run.
    pub wins: u32,
}

impl Store {
    /// Store a new run.
    pub async fn create_run(&self, run: &RunRecord, now_ms: i64) -> Result<(), StoreError> {
        on_pool!(self, p => {
            sqlx::query(
                "INSERT INTO ladder_runs (id, room_id, variant, player_name, device_hash, seed, \
                 wins, think_ms, score, status, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)",
            )
            .bind(&run.id)
            .bind(&run.room_id)
            .bind(run.variant.name())
            .bind(&run.player_name)
            .bind(&run.device_hash)
            // The seed's 64 bits as they are (a BIGINT is signed).
            .bind(run.seed as i64)
            .bind(i64::from(run.wins))
            .bind(to_i64(run.think_ms))
            .bind(to_i64(run.score))
            .bind(&run.status)
            .bind(now_ms)
            .execute(p)
            .await?;
            Ok(())
        })
    }

    /// The run played in `room_id`, if the room is a ladder's.
    pub async fn run_of_room(&self, room_id: &str) -> Result<Option<RunRecord>, StoreError> {
        on_readers!(self, p => {
            let row = sqlx::query("SELECT * FROM ladder_runs WHERE room_id = $1")
                .bind(room_id)
                .fetch_optional(p)
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let variant: String = row.try_get("variant")?;
            Ok(Some(RunRecord {
                id: row.try_get("id")?,
                room_id: row.try_get("room_id")?,
                variant: Variant::from_str(&variant)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                player_name: row.try_get("player_name")?,
                device_hash: row.try_get("device_hash")?,
                seed: row.try_get::<i64, _>("seed")? as u64,
                wins: to_u32(row.try_get("wins")?, "wins")?,
                think_ms: to_u64(row.try_get("think_ms")?, "think_ms")?,
                score: to_u64(row.try_get("score")?, "score")?,
                status: row.try_get("status")?,
            }))
        })
    }

    /// The rooms of the runs still going on this device in `variant`,
    /// newest first.
    pub async fn runs_going(
        &self,
        variant: Variant,
        device_hash: &str,
    ) -> Result<Vec<String>, StoreError> {
        on_readers!(self, p => {
            let rows = sqlx::query(
                "SELECT room_id FROM ladder_runs \
                 WHERE device_hash = $1 AND variant = $2 AND status = $3 \
                 ORDER BY created_at DESC",
            )
            .bind(device_hash)
            .bind(variant.name())
            .bind(RunStatus::Playing.as_str())
            .fetch_all(p)
            .await?;
            Ok(rows
                .iter()
                .map(|row| row.try_get("room_id"))
                .collect::<Result<Vec<String>, _>>()?)
        })
    }

    /// The best score of `name` on this device in `variant`, if any run.
    pub async fn best_score(
        &self,
        variant: Variant,
        name: &str,
        device_hash: &str,
    ) -> Result<Option<u64>, StoreError> {
        on_readers!(self, p => {
            let best: Option<i64> = sqlx::query(
                "SELECT MAX(score) AS best FROM ladder_runs \
                 WHERE variant = $1 AND player_name = $2 AND device_hash = $3",
            )
            .bind(variant.name())
            .bind(name)
            .bind(device_hash)
            .fetch_one(p)
            .await?
            .try_get("best")?;
            best.map(|b| to_u64(b, "score")).transpose()
        })
    }

    /// The best runs of `variant`, one line per player and device, best
    /// first, at most `limit`.
    pub async fn leaderboard(
        &self,
        variant: Variant,
        limit: u32,
    ) -> Result<Vec<BoardLine>, StoreError> {
        on_readers!(self, p => {
            sqlx::query(
                "SELECT player_name, MAX(score) AS best, MAX(wins) AS wins FROM ladder_runs \
                 WHERE variant = $1 AND score > 0 GROUP BY player_name, device_hash \
                 ORDER BY best DESC, player_name LIMIT $2",
            )
            .bind(variant.name())
            .bind(i64::from(limit))
            .fetch_all(p)
            .await?
            .iter()
            .map(|row| -> Result<BoardLine, StoreError> {
                Ok(BoardLine {
                    name: row.try_get("player_name")?,
                    best: to_u64(row.try_get("best")?, "best")?,
                    wins: to_u32(row.try_get("wins")?, "wins")?,
                })
            })
            .collect()
        })
    }
}
