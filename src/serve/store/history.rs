//! Reading rooms back: every unfinished room for a restart (with its
//! chat), one room on demand (a finished game's page, after its room has left memory or the
//! server has restarted), every game of a room (a ladder run's replay and
//! its PDN), the offers pending in a game, and the rooms a browser holds
//! seats in (its "Your games").

use super::{
    AnalysisRecord, GameRecord, LoadedRoom, OffersRecord, Opening, Pool, RoomStatus, RunRecord,
    SeatRecord, Store, StoreError, config_from_row, join_clock, move_from_row, pair_of,
    result_from_row, seat_from_row, to_seat, to_u32,
};
use crate::serve::chat::ChatLine;
use crate::serve::config::RoomConfig;
use crate::serve::token::TokenHash;
use bashni_rules::Colour;
use sqlx::Row;

/// A room with the games read of it (every game, first to last, for a
/// PDN file; one game for a replay).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    /// Its id.
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// The seats taken, seat 0 first.
    pub seats: Vec<SeatRecord>,
    /// The games read, oldest first.
    pub games: Vec<GameRecord>,
    /// How many games the room has stored.
    pub game_count: u32,
}

/// A room a browser holds a seat in, for its list of its own games.
#[derive(Clone, Debug)]
pub struct YourRoom {
    /// Its id.
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// Whether it waits, plays or is over.
    pub status: RoomStatus,
    /// When it was created, in Unix milliseconds.
    pub created_at_ms: i64,
    /// The seat the browser's token is for.
    pub your_seat: u8,
    /// The colour seat 0 plays in the first game.
    pub creator_colour: Colour,
    /// The seats taken, seat 0 first.
    pub seats: Vec<SeatRecord>,
    /// Its latest game, with its moves and result, once one began.
    pub latest: Option<GameRecord>,
    /// The ladder run played in it, if it is a run's room.
    pub run: Option<RunRecord>,
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
    Ok(Opening {
        creator_colour: colour_of(row.try_get("creator_colour")?)?.unwrap_or(Colour::White),
        start_fen: row.try_get("start_fen")?,
        quick_device: row.try_get("quick_device")?,
    })
}

/// Which games of a room to read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Games {
    Latest,
    All,
    One(u32),
}

impl Games {
    /// The query of their rows in `games`, oldest first: the room is its
    /// `$1`, and the game, if one is named, its `$2`.
    fn query(self) -> (&'static str, Option<i64>) {
        match self {
            Games::Latest => (
                "SELECT * FROM games WHERE room_id = $1 ORDER BY game_no DESC LIMIT 1",
                None,
            ),
            Games::All => (
                "SELECT * FROM games WHERE room_id = $1 ORDER BY game_no",
                None,
            ),
            Games::One(game_no) => (
                "SELECT * FROM games WHERE room_id = $1 AND game_no = $2",
                Some(i64::from(game_no)),
            ),
        }
    }
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
            chat: self.chat_lines(id).await?,
        }))
    }

    /// One room with every game it played; `None` if no room has this
    /// id. It waits its turn among the reads of stored games
    /// ([`StoreError::Busy`] if that takes too long).
    pub async fn stored_room(&self, id: &str) -> Result<Option<StoredRoom>, StoreError> {
        self.stored_games(id, Games::All).await
    }

    /// One room with its game `game_no` alone (none if it has no such
    /// game), as [`Store::stored_room`].
    pub async fn stored_game(
        &self,
        id: &str,
        game_no: u32,
    ) -> Result<Option<StoredRoom>, StoreError> {
        self.stored_games(id, Games::One(game_no)).await
    }

    async fn stored_games(&self, id: &str, which: Games) -> Result<Option<StoredRoom>, StoreError> {
        let _turn = self.history_turn().await?;
        let Some(row) = self.room_row(id).await? else {
            return Ok(None);
        };
        let games = self.games_of(id, which).await?;
        let game_count = match which {
            Games::One(_) => self.game_count(id).await?,
            _ => u32::try_from(games.len()).unwrap_or(u32::MAX),
        };
        Ok(Some(StoredRoom {
            id: id.to_owned(),
            config: row.config,
            seats: self.seats_of(id).await?,
            games,
            game_count,
        }))
    }

    /// The rooms of `seats` (a room's id and the hash of the token a
    /// browser keeps for it) where that token is a seat's, in the order
    /// asked: a room not there, or none of whose seats the token is, is
    /// left out. One such read runs at a time.
    pub async fn your_rooms(
        &self,
        seats: &[(String, TokenHash)],
    ) -> Result<Vec<YourRoom>, StoreError> {
        let _turn = self.own_games_turn().await?;
        let mut rooms = Vec::with_capacity(seats.len());
        for (id, hash) in seats {
            let Some(row) = self.room_row(id).await? else {
                continue;
            };
            let room_seats = self.seats_of(id).await?;
            let Some(your_seat) = room_seats
                .iter()
                .find(|s| s.token_hash.as_ref() == Some(hash))
                .map(|s| s.seat)
            else {
                continue;
            };
            rooms.push(YourRoom {
                id: id.clone(),
                config: row.config,
                status: row.status,
                created_at_ms: row.created_at_ms,
                your_seat,
                creator_colour: row.opening.creator_colour,
                seats: room_seats,
                latest: self.games_of(id, Games::Latest).await?.pop(),
                run: self.run_of_room(id).await?,
            });
        }
        Ok(rooms)
    }

    async fn game_count(&self, room_id: &str) -> Result<u32, StoreError> {
        let count: i64 = on_readers!(self, p => {
            sqlx::query_scalar("SELECT COUNT(*) FROM games WHERE room_id = $1")
                .bind(room_id)
                .fetch_one(p)
                .await?
        });
        to_u32(count, "game count")
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

    /// What the room's players said, oldest first.
    pub async fn chat_lines(&self, room_id: &str) -> Result<Vec<ChatLine>, StoreError> {
        on_readers!(self, p => {
            sqlx::query("SELECT * FROM chat_lines WHERE room_id = $1 ORDER BY line_no")
                .bind(room_id)
                .fetch_all(p)
                .await?
                .iter()
                .map(|row| -> Result<ChatLine, StoreError> {
                    Ok(ChatLine {
                        seat: to_seat(row.try_get("seat")?)?,
                        text: row.try_get("text")?,
                        sent_at_ms: row.try_get("sent_at")?,
                    })
                })
                .collect()
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

    /// The room's games (the latest, all, or one), oldest first, each
    /// with its moves, result, pending offers and analysis: three queries,
    /// however many games (a ladder run plays dozens).
    async fn games_of(&self, room_id: &str, which: Games) -> Result<Vec<GameRecord>, StoreError> {
        on_readers!(self, p => {
            let (sql, game_no) = which.query();
            let mut query = sqlx::query(sql).bind(room_id);
            if let Some(game_no) = game_no {
                query = query.bind(game_no);
            }
            let rows = query.fetch_all(p).await?;
            let mut games = rows.iter().map(game_from_row).collect::<Result<Vec<_>, _>>()?;
            let (Some(first), Some(last)) = (games.first(), games.last()) else {
                return Ok(games);
            };
            let (first, last) = (i64::from(first.game_no), i64::from(last.game_no));
            let moves = sqlx::query(
                "SELECT * FROM moves WHERE room_id = $1 AND game_no BETWEEN $2 AND $3 \
                 ORDER BY game_no, ply",
            )
            .bind(room_id)
            .bind(first)
            .bind(last)
            .fetch_all(p)
            .await?;
            for row in &moves {
                let mv = move_from_row(row)?;
                if let Some(game) = games.iter_mut().find(|g| g.game_no == mv.game_no) {
                    game.moves.push(mv);
                }
            }
            let results = sqlx::query(
                "SELECT * FROM results WHERE room_id = $1 AND game_no BETWEEN $2 AND $3",
            )
            .bind(room_id)
            .bind(first)
            .bind(last)
            .fetch_all(p)
            .await?;
            for row in &results {
                let game_no = to_u32(row.try_get("game_no")?, "game_no")?;
                if let Some(game) = games.iter_mut().find(|g| g.game_no == game_no) {
                    game.result = Some(result_from_row(row)?);
                }
            }
            for game in &mut games {
                drop_unfitting_analysis(room_id, game);
            }
            Ok(games)
        })
    }
}

/// Leave out `game`'s analysis if it does not judge each of its moves
/// (a damaged row): a mark or a score on the wrong move is worse than
/// none.
fn drop_unfitting_analysis(room_id: &str, game: &mut GameRecord) {
    let moves = game.moves.len();
    if game
        .analysis
        .as_ref()
        .is_some_and(|a| a.marks.len() != moves)
    {
        eprintln!(
            "bashni serve: the analysis of game {} in room {room_id} does not fit its {moves} moves; left out",
            game.game_no
        );
        game.analysis = None;
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
            rematch: pair_of(g.try_get("rematch_seats")?),
            draw_offered_at: [
                ply_of(g.try_get("white_draw_ply")?, "white_draw_ply")?,
                ply_of(g.try_get("black_draw_ply")?, "black_draw_ply")?,
            ],
            takeback_declined: pair_of(g.try_get("takeback_declined")?),
            rematch_declined: pair_of(g.try_get("rematch_declined")?),
        }),
    };
    // An analysis that does not read is reported and left out: the game
    // is whole without it, and may be analysed again.
    let analysis = match (
        g.try_get::<Option<String>, _>("analysis_marks")?,
        g.try_get::<Option<String>, _>("analysis_evals")?,
    ) {
        (Some(marks), Some(evals)) => AnalysisRecord::from_columns(&marks, &evals)
            .inspect_err(|e| eprintln!("bashni serve: a game's analysis left out: {e}"))
            .ok(),
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

fn ply_of(ply: Option<i64>, what: &str) -> Result<Option<u32>, StoreError> {
    ply.map(|ply| to_u32(ply, what)).transpose()
}

fn colour_of(text: Option<String>) -> Result<Option<Colour>, StoreError> {
    match text.as_deref() {
        None => Ok(None),
        Some(name) => Colour::from_name(name)
            .map(Some)
            .ok_or_else(|| StoreError::Corrupt(format!("colour '{name}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::store::MoveRecord;

    #[test]
    fn an_analysis_that_does_not_fit_the_moves_is_left_out() {
        let analysis = |moves: usize| AnalysisRecord {
            marks: vec![None; moves],
            evals: vec![0; moves],
        };
        let mut game = GameRecord {
            analysis: Some(analysis(2)),
            ..GameRecord::first_with(vec![
                MoveRecord::bare(1, "c3-d4"),
                MoveRecord::bare(2, "c3-d4"),
            ])
        };
        drop_unfitting_analysis("r", &mut game);
        assert_eq!(game.analysis, Some(analysis(2)), "it fits");
        game.analysis = Some(analysis(3));
        drop_unfitting_analysis("r", &mut game);
        assert_eq!(game.analysis, None, "one score too many");
    }
}
