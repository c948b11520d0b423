//! Reading rooms back: every unfinished room for a restart, one room on
//! demand (a finished game's page, after its room has left memory or the
//! server has restarted), every game of a room (a ladder run's replay and
//! its PDN), and the offers pending in a game.

use super::{
    AnalysisRecord, GameRecord, LoadedRoom, OffersRecord, Opening, Pool, RoomStatus, SeatRecord,
    Store, StoreError, config_from_row, join_clock, move_from_row, result_from_row, seat_from_row,
    to_seat, to_u32,
};
use crate::serve::config::RoomConfig;
use bashni_rules::Colour;
use sqlx::Row;

/// A room with every game it played, first to last: what a replay and a
/// PDN file of the room need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    /// Its id.
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// The seats taken, seat 0 first.
    pub seats: Vec<SeatRecord>,
    /// Its games, game 1 first.
    pub games: Vec<GameRecord>,
}

/// A room's own row.
struct RoomRow {
    config: RoomConfig,
    status: RoomStatus,
    created_at_ms: i64,
    opening: Opening,
}

/// How the room's first game opens; a row from before this was kept
/// (no colour) opens as such rooms always did, the creator White.
fn opening_from_row<R>(row: &R) -> Result<Opening, StoreError>
where
    R: Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> Option<String>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let colour: Option<String> = row.try_get("creator_colour")?;
    let creator_colour = match colour.as_deref() {
        None => Colour::White,
        Some(name) => Colour::from_name(name)
            .ok_or_else(|| StoreError::Corrupt(format!("creator colour '{name}'")))?,
    };
    Ok(Opening {
        creator_colour,
        start_fen: row.try_get("start_fen")?,
    })
}

/// Which games of a room to read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Games {
    Latest,
    All,
}

impl Store {
    /// Every room that is not finished (open or playing), with its seats
    /// and its latest game's moves and clock state: what a restart needs.
    pub async fn load_unfinished(&self) -> Result<Vec<LoadedRoom>, StoreError> {
        let ids: Vec<String> = on_readers!(self, p => {
            sqlx::query_scalar("SELECT id FROM rooms WHERE status <> $1 ORDER BY created_at, id")
                .bind(RoomStatus::Finished.as_str())
                .fetch_all(p)
                .await?
        });
        let mut rooms = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(room) = self.load_room(&id).await? {
                rooms.push(room);
            }
        }
        Ok(rooms)
    }

    /// One room, whatever its status, with its latest game; `None` if no
    /// room has this id.
    pub async fn load_room(&self, id: &str) -> Result<Option<LoadedRoom>, StoreError> {
        let Some(row) = self.room_row(id).await? else {
            return Ok(None);
        };
        Ok(Some(LoadedRoom {
            id: id.to_owned(),
            config: row.config,
            status: row.status,
            created_at_ms: row.created_at_ms,
            opening: row.opening,
            seats: self.seats_of(id).await?,
            game: self.games_of(id, Games::Latest).await?.pop(),
        }))
    }

    /// One room with every game it played; `None` if no room has this id.
    pub async fn stored_room(&self, id: &str) -> Result<Option<StoredRoom>, StoreError> {
        let Some(row) = self.room_row(id).await? else {
            return Ok(None);
        };
        Ok(Some(StoredRoom {
            id: id.to_owned(),
            config: row.config,
            seats: self.seats_of(id).await?,
            games: self.games_of(id, Games::All).await?,
        }))
    }

    /// The room's own row.
    async fn room_row(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        on_readers!(self, p => {
            let Some(row) = sqlx::query("SELECT * FROM rooms WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await?
            else {
                return Ok(None);
            };
            Ok(Some(RoomRow {
                config: config_from_row(&row)?,
                status: RoomStatus::parse(&row.try_get::<String, _>("status")?)?,
                created_at_ms: row.try_get("created_at")?,
                opening: opening_from_row(&row)?,
            }))
        })
    }

    async fn seats_of(&self, room_id: &str) -> Result<Vec<SeatRecord>, StoreError> {
        on_readers!(self, p => {
            sqlx::query("SELECT * FROM seats WHERE room_id = $1 ORDER BY seat")
                .bind(room_id)
                .fetch_all(p)
                .await?
                .iter()
                .map(seat_from_row)
                .collect()
        })
    }

    /// The room's games (the latest or all), oldest first, each with its
    /// moves, result, pending offers and analysis: three queries, however
    /// many games (a ladder run plays dozens).
    async fn games_of(&self, room_id: &str, which: Games) -> Result<Vec<GameRecord>, StoreError> {
        let sql = match which {
            Games::Latest => "SELECT * FROM games WHERE room_id = $1 ORDER BY game_no DESC LIMIT 1",
            Games::All => "SELECT * FROM games WHERE room_id = $1 ORDER BY game_no",
        };
        on_readers!(self, p => {
            let rows = sqlx::query(sql).bind(room_id).fetch_all(p).await?;
            let mut games = rows.iter().map(game_from_row).collect::<Result<Vec<_>, _>>()?;
            let Some(first) = games.first().map(|g| i64::from(g.game_no)) else {
                return Ok(games);
            };
            let moves = sqlx::query(
                "SELECT * FROM moves WHERE room_id = $1 AND game_no >= $2 ORDER BY game_no, ply",
            )
            .bind(room_id)
            .bind(first)
            .fetch_all(p)
            .await?;
            for row in &moves {
                let mv = move_from_row(row)?;
                if let Some(game) = games.iter_mut().find(|g| g.game_no == mv.game_no) {
                    game.moves.push(mv);
                }
            }
            let results = sqlx::query("SELECT * FROM results WHERE room_id = $1 AND game_no >= $2")
                .bind(room_id)
                .bind(first)
                .fetch_all(p)
                .await?;
            for row in &results {
                let game_no = to_u32(row.try_get("game_no")?, "game_no")?;
                if let Some(game) = games.iter_mut().find(|g| g.game_no == game_no) {
                    game.result = Some(result_from_row(row)?);
                }
            }
            Ok(games)
        })
    }
}

/// A game's own row, without its moves and result (read apart).
fn game_from_row<R>(g: &R) -> Result<GameRecord, StoreError>
where
    R: Row,
    for<'c> &'c str: sqlx::ColumnIndex<R>,
    for<'v> Option<String>: sqlx::Decode<'v, R::Database> + sqlx::Type<R::Database>,
    for<'v> Option<i64>: sqlx::Decode<'v, R::Database> + sqlx::Type<R::Database>,
    for<'v> i64: sqlx::Decode<'v, R::Database> + sqlx::Type<R::Database>,
{
    let offers = match g.try_get::<Option<i64>, _>("offers_ply")? {
        None => None,
        Some(ply) => Some(OffersRecord {
            at_ply: to_u32(ply, "offers_ply")?,
            draw_offer: colour_of(g.try_get("draw_offer")?)?,
            takeback_by: colour_of(g.try_get("takeback_by")?)?,
            rematch: rematch_of(g.try_get("rematch_seats")?),
        }),
    };
    let analysis = match (
        g.try_get::<Option<String>, _>("analysis_marks")?,
        g.try_get::<Option<String>, _>("analysis_evals")?,
    ) {
        (Some(marks), Some(evals)) => Some(AnalysisRecord::from_columns(&marks, &evals)?),
        _ => None,
    };
    Ok(GameRecord {
        game_no: to_u32(g.try_get("game_no")?, "game_no")?,
        white_seat: to_seat(g.try_get("white_seat")?)?,
        started_at_ms: g.try_get("started_at")?,
        clock_ms: join_clock(g.try_get("white_ms")?, g.try_get("black_ms")?),
        turn_started_at_ms: g.try_get("turn_started_at")?,
        start_fen: g.try_get("start_fen")?,
        moves: Vec::new(),
        result: None,
        offers,
        analysis,
    })
}

fn colour_of(text: Option<String>) -> Result<Option<Colour>, StoreError> {
    match text.as_deref() {
        None => Ok(None),
        Some(name) => Colour::from_name(name)
            .map(Some)
            .ok_or_else(|| StoreError::Corrupt(format!("colour '{name}'"))),
    }
}

fn rematch_of(bits: Option<i64>) -> [bool; 2] {
    let bits = bits.unwrap_or(0);
    [bits & 1 != 0, bits & 2 != 0]
}
