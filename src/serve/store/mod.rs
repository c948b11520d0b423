//! The storage of `bashni serve`: rooms, seats, games, moves, results and
//! the players' chat, in SQLite (the default: one file, nothing to run) or
//! PostgreSQL (`postgres://...`: several servers on one database), from
//! one schema and one set of versioned migrations (`migrations/` at the
//! root of the repository, embedded in the binary).
//!
//! Why a small enum over the two pools rather than sqlx's `Any` driver:
//! each database gets its own connect options (SQLite's WAL journal, full
//! synchronous commits, foreign keys and busy timeout; PostgreSQL's pool),
//! values keep their native types instead of `Any`'s narrower mapping,
//! and no driver table has to be installed at run time. The `on_pool!`
//! macro writes each query once and compiles it for both pools, so the SQL
//! is still shared (it uses only `$1` parameters, `BIGINT`, `BOOLEAN` and
//! `TEXT`, and `ON CONFLICT`, which both databases read alike).
//!
//! Every write that belongs together runs in one transaction: a move is
//! committed (and so durable) when [`Store::append_moves`] returns, which
//! is what lets the server broadcast it only then; a batch of moves from
//! many rooms is one transaction (group commit), all or nothing. A ply
//! stored twice is an error ([`StoreError::DuplicatePly`]), never a second
//! row ([`writer::MoveWriter`] batches the moves of every room this way).
//! Instants are wall-clock Unix milliseconds, passed in by the caller
//! (only `stored_at` is read here).

pub mod writer;

use super::chat::ChatLine;
use super::config::{GameConfig, Opponent, RoomConfig, Strength};
use super::token::TokenHash;
use bashni_host::clock::TimeControl;
use bashni_rules::{Colour, DrawRules, KingLanding, Variant};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Row, SqlSafeStr};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{Semaphore, SemaphorePermit};

/// The schema's migrations, oldest first. A new migration is a new file
/// in `migrations/` and a new line here; an applied one is never edited
/// (sqlx checks its checksum).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "rooms",
        include_str!("../../../migrations/0001_rooms.sql"),
    ),
    (
        2,
        "ladder",
        include_str!("../../../migrations/0002_ladder.sql"),
    ),
    (
        3,
        "offers",
        include_str!("../../../migrations/0003_offers.sql"),
    ),
    (
        4,
        "stopped clocks",
        include_str!("../../../migrations/0004_stopped_clocks.sql"),
    ),
    (
        5,
        "runs by device",
        include_str!("../../../migrations/0005_runs_by_device.sql"),
    ),
    (
        6,
        "room opening",
        include_str!("../../../migrations/0006_room_opening.sql"),
    ),
    (
        7,
        "game analysis",
        include_str!("../../../migrations/0007_game_analysis.sql"),
    ),
    (8, "chat", include_str!("../../../migrations/0008_chat.sql")),
    (
        9,
        "quick rooms",
        include_str!("../../../migrations/0009_quick_rooms.sql"),
    ),
    (
        10,
        "asked",
        include_str!("../../../migrations/0010_asked.sql"),
    ),
    (
        11,
        "rematch declined",
        include_str!("../../../migrations/0011_rematch_declined.sql"),
    ),
    (
        12,
        "server lease",
        include_str!("../../../migrations/0012_server_lease.sql"),
    ),
];

/// The migrator for [`MIGRATIONS`].
fn migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    description.into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

/// What went wrong in the store.
#[derive(Debug)]
pub enum StoreError {
    /// The database URL is neither `sqlite:...` nor `postgres://...`.
    BadUrl(String),
    /// The database refused or failed.
    Database(sqlx::Error),
    /// The migrations could not be applied.
    Migrate(sqlx::migrate::MigrateError),
    /// This ply of this game is stored already; nothing was written.
    DuplicatePly {
        /// The room.
        room_id: String,
        /// The game in the room.
        game_no: u32,
        /// The ply.
        ply: u32,
    },
    /// The seat is taken already.
    SeatTaken,
    /// A row refers to a room or game that is not stored.
    Missing(String),
    /// A stored value does not read back as what it should be.
    Corrupt(String),
    /// Too many reads of stored games run now; asked again in a moment,
    /// this one will run.
    Busy,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::BadUrl(url) => write!(
                f,
                "database URL '{url}' is neither sqlite:PATH nor postgres://..."
            ),
            StoreError::Database(sqlx::Error::PoolTimedOut) => write!(
                f,
                "the database does not answer (no connection within {} s)",
                CONNECTION_PATIENCE.as_secs()
            ),
            StoreError::Database(e) => write!(f, "database: {e}"),
            StoreError::Migrate(e) => write!(f, "migrations: {e}"),
            StoreError::DuplicatePly {
                room_id,
                game_no,
                ply,
            } => write!(
                f,
                "ply {ply} of game {game_no} in room {room_id} is stored already"
            ),
            StoreError::SeatTaken => f.write_str("the seat is taken"),
            StoreError::Missing(what) => write!(f, "not stored: {what}"),
            StoreError::Corrupt(what) => write!(f, "stored value unreadable: {what}"),
            StoreError::Busy => {
                f.write_str("the server is busy reading other games; try again in a moment")
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Database(e) => Some(e),
            StoreError::Migrate(e) => Some(e),
            _ => None,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> StoreError {
        StoreError::Migrate(e)
    }
}

/// A row being inserted, to tell what the database's refusal of it means.
enum NewRow<'a> {
    Seat { room_id: &'a str },
    ChatLine { room_id: &'a str },
    Game { room_id: &'a str },
    Move(&'a MoveRecord),
    Result { room_id: &'a str, game_no: u32 },
}

impl NewRow<'_> {
    /// `e`, the failed insert of this row, as a [`StoreError`]: a second
    /// row with the key of a seat or a ply, a row referring to a room or
    /// game that is not stored, or the database's own failure.
    fn refused(&self, e: sqlx::Error) -> StoreError {
        let (unique, foreign) = e.as_database_error().map_or((false, false), |d| {
            (d.is_unique_violation(), d.is_foreign_key_violation())
        });
        match self {
            NewRow::Seat { .. } if unique => StoreError::SeatTaken,
            NewRow::Move(mv) if unique => StoreError::DuplicatePly {
                room_id: mv.room_id.clone(),
                game_no: mv.game_no,
                ply: mv.ply,
            },
            _ if foreign => StoreError::Missing(self.refers_to()),
            _ => StoreError::Database(e),
        }
    }

    /// What the row refers to, in words.
    fn refers_to(&self) -> String {
        match self {
            NewRow::Seat { room_id } | NewRow::Game { room_id } | NewRow::ChatLine { room_id } => {
                format!("room {room_id}")
            }
            NewRow::Move(mv) => format!("game {} in room {}", mv.game_no, mv.room_id),
            NewRow::Result { room_id, game_no } => format!("game {game_no} in room {room_id}"),
        }
    }
}

/// Where a room stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomStatus {
    /// Waiting for someone to take the other seat.
    Open,
    /// A game is being played.
    Playing,
    /// The last game has ended (a rematch makes it `Playing` again).
    Finished,
}

impl RoomStatus {
    fn as_str(self) -> &'static str {
        match self {
            RoomStatus::Open => "open",
            RoomStatus::Playing => "playing",
            RoomStatus::Finished => "finished",
        }
    }

    fn parse(text: &str) -> Result<RoomStatus, StoreError> {
        match text {
            "open" => Ok(RoomStatus::Open),
            "playing" => Ok(RoomStatus::Playing),
            "finished" => Ok(RoomStatus::Finished),
            other => Err(StoreError::Corrupt(format!("room status '{other}'"))),
        }
    }
}

/// A room to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRoom {
    /// Its id (see [`super::token::random_hex128`]).
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// When, in Unix milliseconds.
    pub created_at_ms: i64,
    /// How its first game opens.
    pub opening: Opening,
}

/// How a room's first game opens, as its creator chose: kept with the
/// room, so that one still waiting for its opponent comes back from a
/// restart as it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The colour the creator plays.
    pub creator_colour: Colour,
    /// The start position's FEN; `None` for the variant's own.
    pub start_fen: Option<String>,
    /// For a quick game, the browser that asked for it (its device id's
    /// hash, hex): the room is paired only with another browser's quick
    /// request. `None` for a room from the form.
    pub quick_device: Option<String>,
}

/// A seat as stored: seat 0 is the creator's, seat 1 the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// 0 or 1.
    pub seat: u8,
    /// The display name, as given (escaping is the page's job).
    pub name: String,
    /// The hash of the seat's token; `None` for an engine seat.
    pub token_hash: Option<TokenHash>,
    /// Whether the engine sits here.
    pub engine: bool,
    /// When it was taken, in Unix milliseconds.
    pub joined_at_ms: i64,
}

/// A game starting in a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// 1 for the room's first game, one more for each rematch.
    pub game_no: u32,
    /// The seat that plays White.
    pub white_seat: u8,
    /// When it started, in Unix milliseconds.
    pub started_at_ms: i64,
    /// Both clocks at the start (White's, Black's), or `None` without a
    /// clock.
    pub clock_ms: Option<[i64; 2]>,
    /// The position it starts from, or `None` for the variant's start.
    pub start_fen: Option<String>,
}

/// One move as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// The room.
    pub room_id: String,
    /// The game in the room.
    pub game_no: u32,
    /// 1 for the game's first move.
    pub ply: u32,
    /// The move in the rules' notation (`c3-d4`, `c3xe5xg7`).
    pub text: String,
    /// The time charged to the mover, in milliseconds.
    pub elapsed_ms: u64,
    /// Both clocks after the move (White's, Black's), or `None`.
    pub clock_ms: Option<[i64; 2]>,
    /// When the room accepted it, in Unix milliseconds: the next turn
    /// began then.
    pub moved_at_ms: i64,
}

/// How a game ended, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultRecord {
    /// `2-0`, `0-2` or `1-1` ([`bashni_host::pdn::result_token`]), or `*` for an
    /// aborted game.
    pub result: String,
    /// Why, in words, as the room's outcome says it (`Black resigned`,
    /// `White lost on time`, `threefold repetition`...).
    pub reason: String,
    /// When, in Unix milliseconds.
    pub finished_at_ms: i64,
    /// Both clocks as they stopped (White's, Black's), or `None` without a
    /// clock.
    pub clock_ms: Option<[i64; 2]>,
}

/// A game as loaded for a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game in the room.
    pub game_no: u32,
    /// The seat that plays White.
    pub white_seat: u8,
    /// When it started, in Unix milliseconds.
    pub started_at_ms: i64,
    /// The clocks after the last stored move (or at the start).
    pub clock_ms: Option<[i64; 2]>,
    /// When the side to move's turn began, in Unix milliseconds.
    pub turn_started_at_ms: i64,
    /// The position it started from, or `None` for the variant's start.
    pub start_fen: Option<String>,
    /// The moves, in order.
    pub moves: Vec<MoveRecord>,
    /// The result, once the game has ended.
    pub result: Option<ResultRecord>,
    /// The offers pending when last stored, if any.
    pub offers: Option<OffersRecord>,
    /// The finished game's analysis, once one is done.
    pub analysis: Option<AnalysisRecord>,
}

/// A finished game's analysis as stored: per move, its mark and the score
/// after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisRecord {
    /// Per move: `?`, `??` or none.
    pub marks: Vec<Option<String>>,
    /// Per position after each move: centipawns from White's view.
    pub evals: Vec<i32>,
}

impl AnalysisRecord {
    /// The two columns it is stored in: marks (`-` for none) and scores,
    /// each one token a move, separated by spaces.
    pub fn columns(&self) -> (String, String) {
        let marks: Vec<&str> = self
            .marks
            .iter()
            .map(|m| m.as_deref().unwrap_or("-"))
            .collect();
        let evals: Vec<String> = self.evals.iter().map(i32::to_string).collect();
        (marks.join(" "), evals.join(" "))
    }

    /// The record stored as `marks` and `evals` ([`AnalysisRecord::columns`]);
    /// a token that is no mark or no score, or columns of unequal length,
    /// are [`StoreError::Corrupt`].
    pub fn from_columns(marks: &str, evals: &str) -> Result<AnalysisRecord, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("analysis {what}"));
        let marks = marks
            .split_whitespace()
            .map(|token| match token {
                "-" => Ok(None),
                "?" | "??" => Ok(Some(token.to_owned())),
                other => Err(corrupt(&format!("mark '{other}'"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let evals = evals
            .split_whitespace()
            .map(|token| {
                token
                    .parse()
                    .map_err(|_| corrupt(&format!("score '{token}'")))
            })
            .collect::<Result<Vec<i32>, _>>()?;
        if marks.len() != evals.len() {
            return Err(corrupt("with unequal columns"));
        }
        Ok(AnalysisRecord { marks, evals })
    }
}

/// The offers pending in a game, as stored after each offer, answer or
/// rematch request. Any move clears them in the room, so they are only
/// taken back at the ply they were stored at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OffersRecord {
    /// The game's plies when they were stored.
    pub at_ply: u32,
    /// Who offers a draw.
    pub draw_offer: Option<Colour>,
    /// Who asks for a takeback.
    pub takeback_by: Option<Colour>,
    /// Which seats asked for a rematch.
    pub rematch: [bool; 2],
    /// The ply count at White's, and Black's, last draw offer in the
    /// game (a side offers once in so many plies, whatever was played
    /// since).
    pub draw_offered_at: [Option<u32>; 2],
    /// Whether White's, and Black's, takeback was declined at `at_ply`.
    pub takeback_declined: [bool; 2],
    /// Which seats' rematch request was declined.
    pub rematch_declined: [bool; 2],
}

impl GameRecord {
    /// How long the side to move had been thinking when the server
    /// stopped: from the start of its turn to the server's last stored
    /// heartbeat (`last_alive_ms`), never less than zero; nothing without
    /// a heartbeat. The time the server was down is not charged.
    pub fn thought_before_stop(&self, last_alive_ms: Option<i64>) -> Duration {
        let ms = last_alive_ms.map_or(0, |alive| alive.saturating_sub(self.turn_started_at_ms));
        Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    }
}

#[cfg(test)]
impl MoveRecord {
    /// Ply `ply` of room `r`'s first game, `text`, with no time kept: a
    /// stored move as tests build one.
    pub fn bare(ply: u32, text: &str) -> MoveRecord {
        MoveRecord {
            room_id: "r".into(),
            game_no: 1,
            ply,
            text: text.into(),
            elapsed_ms: 0,
            clock_ms: None,
            moved_at_ms: 0,
        }
    }
}

#[cfg(test)]
impl GameRecord {
    /// A first game with `moves` from the variant's start, seat 0 White,
    /// no clock and nothing else stored: a game as tests build one.
    pub fn first_with(moves: Vec<MoveRecord>) -> GameRecord {
        GameRecord {
            game_no: 1,
            white_seat: 0,
            started_at_ms: 0,
            clock_ms: None,
            turn_started_at_ms: 0,
            start_fen: None,
            moves,
            result: None,
            offers: None,
            analysis: None,
        }
    }
}

/// A room as loaded for a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedRoom {
    /// Its id.
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// Where it stands.
    pub status: RoomStatus,
    /// When it was created, in Unix milliseconds.
    pub created_at_ms: i64,
    /// How its first game opens (the creator White from the usual start
    /// for rooms stored before this was kept).
    pub opening: Opening,
    /// The seats taken, seat 0 first.
    pub seats: Vec<SeatRecord>,
    /// Its latest game, if one has started.
    pub game: Option<GameRecord>,
    /// What its players said, oldest first.
    pub chat: Vec<ChatLine>,
}

/// A line of the lobby: a public room waiting for an opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomSummary {
    /// Its id.
    pub id: String,
    /// What it was created with.
    pub config: RoomConfig,
    /// Who waits in it.
    pub creator: String,
    /// When it was created, in Unix milliseconds.
    pub created_at_ms: i64,
}

/// The two pools a store can hold.
#[derive(Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Run `$body` with `$pool` bound to whichever pool the store writes
/// through: the body is written once and compiled for each database.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
}

/// `on_pool!` for queries that only read: they go to the store's readers.
macro_rules! on_readers {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.readers {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
}

/// Insert a seat through `$executor`; a taken seat is
/// [`StoreError::SeatTaken`]. (A macro, like `on_pool!`, so it compiles for
/// both databases without spelling out sqlx's trait bounds.)
macro_rules! insert_seat {
    ($executor:expr, $room_id:expr, $seat:expr) => {{
        let room_id: &str = $room_id;
        let seat: &SeatRecord = $seat;
        let inserted = sqlx::query(
            "INSERT INTO seats (room_id, seat, display_name, token_hash, engine, joined_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(room_id)
        .bind(i64::from(seat.seat))
        .bind(&seat.name)
        .bind(seat.token_hash.as_ref().map(|h| h.as_str()))
        .bind(seat.engine)
        .bind(seat.joined_at_ms)
        .execute($executor)
        .await;
        inserted
            .map(|_| ())
            .map_err(|e| NewRow::Seat { room_id }.refused(e))
    }};
}

mod history;
mod ladder_runs;
mod tx;
pub use history::{StoredRoom, YourRoom};
pub use ladder_runs::{BoardLine, RunRecord};
pub use tx::{Tx, Work, Write};

/// Milliseconds since the Unix epoch now (for `stored_at`).
pub fn unix_ms_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Store {
    /// A turn to read stored games, waited for up to
    /// [`HISTORY_READ_PATIENCE`].
    async fn history_turn(&self) -> Result<SemaphorePermit<'_>, StoreError> {
        turn_of(&self.history_reads).await
    }

    /// A turn to read the rooms of a browser's "Your games", one at a
    /// time whoever asks, waited for as [`Store::history_turn`]: a crowd
    /// of such lists never takes the turns of replays and downloads.
    async fn own_games_turn(&self) -> Result<SemaphorePermit<'_>, StoreError> {
        turn_of(&self.own_games_reads).await
    }
}

/// A turn of `reads`, waited for up to [`HISTORY_READ_PATIENCE`].
async fn turn_of(reads: &Semaphore) -> Result<SemaphorePermit<'_>, StoreError> {
    match tokio::time::timeout(HISTORY_READ_PATIENCE, reads.acquire()).await {
        Ok(Ok(turn)) => Ok(turn),
        _ => Err(StoreError::Busy),
    }
}

/// The count of [`HISTORY_READS_AT_ONCE`], shared by a store's clones.
fn history_reads() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(HISTORY_READS_AT_ONCE))
}

/// The database's handle: cheap to clone, safe to share between tasks.
#[derive(Clone)]
pub struct Store {
    /// Where every write goes. With SQLite this is one connection: the
    /// database lets one writer in at a time, and writers on several
    /// connections would meet SQLite's busy handler, which sleeps (1, 2,
    /// 5, 10... ms) instead of queueing, and put those sleeps into the
    /// moves' latency. One connection makes them wait in turn instead.
    pool: Pool,
    /// Where reads go: with SQLite, read-only connections that the WAL
    /// journal lets run beside the writer; with PostgreSQL, the same pool.
    readers: Pool,
    /// Reads of a room's stored games (a replay, a PDN download) running
    /// now ([`HISTORY_READS_AT_ONCE`]).
    history_reads: Arc<Semaphore>,
    /// Reads of a browser's own games running now (one).
    own_games_reads: Arc<Semaphore>,
}

/// Reads of stored games that run at once. Anyone may replay or download
/// any room, and a crowd of them on long ladder runs must not hold every
/// connection (with PostgreSQL, the one pool the moves are written with):
/// more wait their turn, up to two seconds. One count for
/// the server, as behind a proxy every request has the proxy's address.
pub const HISTORY_READS_AT_ONCE: usize = 4;

/// How long a request waits for a connection to the database before it
/// is told the database does not answer (sqlx waits 30 s, and a room's
/// task, which waits with it, answers nobody meanwhile).
const CONNECTION_PATIENCE: Duration = Duration::from_secs(5);

/// How long a read of stored games waits for its turn before it is
/// answered [`StoreError::Busy`].
const HISTORY_READ_PATIENCE: Duration = Duration::from_secs(2);

impl Store {
    /// Connect to `url` and bring its schema up to date: `sqlite:PATH`
    /// (`sqlite://PATH`, the file is created if missing) or
    /// `postgres://user@host:port/db` (`postgresql://` too).
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = PgConnectOptions::from_str(url)?;
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(CONNECTION_PATIENCE)
                .connect_with(options)
                .await?;
            Store::migrated(Pool::Postgres(pool)).await
        } else if url.starts_with("sqlite:") {
            Store::open_sqlite_with(SqliteConnectOptions::from_str(url)?).await
        } else {
            Err(StoreError::BadUrl(url.to_owned()))
        }
    }

    /// Open (or create) the SQLite file at `path` and bring its schema up
    /// to date.
    pub async fn open_sqlite(path: &Path) -> Result<Store, StoreError> {
        Store::open_sqlite_with(SqliteConnectOptions::new().filename(path)).await
    }

    /// The writer connection first (it creates the file and migrates it),
    /// then the readers on the file as it now is.
    async fn open_sqlite_with(options: SqliteConnectOptions) -> Result<Store, StoreError> {
        let writer = sqlite_pool(options.clone().create_if_missing(true), 1).await?;
        let store = Store::migrated(Pool::Sqlite(writer)).await?;
        let readers = sqlite_pool(options.read_only(true), SQLITE_READERS).await?;
        Ok(Store {
            history_reads: history_reads(),
            readers: Pool::Sqlite(readers),
            ..store
        })
    }

    async fn migrated(pool: Pool) -> Result<Store, StoreError> {
        let store = Store {
            history_reads: history_reads(),
            own_games_reads: Arc::new(Semaphore::new(1)),
            readers: pool.clone(),
            pool,
        };
        let migrator = migrator();
        on_pool!(store, p => migrator.run(p).await)?;
        Ok(store)
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self.pool {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    /// Close every connection (waits for the ones in use).
    pub async fn close(&self) {
        on_readers!(self, p => p.close().await);
        on_pool!(self, p => p.close().await)
    }

    /// Store a new room with its creator's seat (seat 0).
    pub async fn create_room(
        &self,
        room: &NewRoom,
        creator: &SeatRecord,
    ) -> Result<(), StoreError> {
        let c = &room.config;
        let (skill, elo) = match c.opponent {
            Opponent::Engine(Strength::Skill(s)) => (Some(i64::from(s)), None),
            Opponent::Engine(Strength::Elo(e)) => (None, Some(i64::from(e))),
            _ => (None, None),
        };
        let clock = c.clock;
        on_pool!(self, p => {
            let mut tx = p.begin().await?;
            sqlx::query(
                "INSERT INTO rooms (id, variant, forced_capture, king_landing, \
                 no_progress_plies, max_plies, repetitions, clock_base_ms, \
                 clock_increment_ms, clock_moves, opponent, engine_skill, engine_elo, \
                 status, created_at, creator_colour, start_fen, quick_device) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                 $16, $17, $18)",
            )
            .bind(&room.id)
            .bind(c.game.variant.name())
            .bind(c.game.forced_capture)
            .bind(c.game.king_landing.to_string())
            .bind(i64::from(c.game.draw.no_progress_plies))
            .bind(i64::from(c.game.draw.max_plies))
            .bind(i64::from(c.game.draw.repetitions))
            .bind(clock.map(|t| to_i64(t.base_ms)))
            .bind(clock.map_or(0, |t| to_i64(t.increment_ms)))
            .bind(clock.map_or(0, |t| i64::from(t.moves)))
            .bind(c.opponent.kind())
            .bind(skill)
            .bind(elo)
            .bind(RoomStatus::Open.as_str())
            .bind(room.created_at_ms)
            .bind(room.opening.creator_colour.name())
            .bind(room.opening.start_fen.as_deref())
            .bind(room.opening.quick_device.as_deref())
            .execute(&mut *tx)
            .await?;
            insert_seat!(&mut *tx, &room.id, creator)?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// Every stored move of a room, finished games too: game by game,
    /// ply by ply (what an audit or a load test compares with what the
    /// players saw).
    pub async fn room_moves(&self, room_id: &str) -> Result<Vec<MoveRecord>, StoreError> {
        on_readers!(self, p => {
            sqlx::query("SELECT * FROM moves WHERE room_id = $1 ORDER BY game_no, ply")
                .bind(room_id)
                .fetch_all(p)
                .await?
                .iter()
                .map(move_from_row)
                .collect::<Result<Vec<_>, _>>()
        })
    }

    /// Public rooms (anyone may join) waiting for an opponent, oldest
    /// first, at most `limit`: the lobby as the database has it. The
    /// server lists rooms from memory (`lobby.rs`); this is the list
    /// servers sharing a database would read (docs/serve.md, "Growing
    /// past one machine"), and what the store tests check room states
    /// by.
    pub async fn list_open_rooms(&self, limit: u32) -> Result<Vec<RoomSummary>, StoreError> {
        on_readers!(self, p => {
            sqlx::query(
                "SELECT rooms.*, seats.display_name FROM rooms \
                 JOIN seats ON seats.room_id = rooms.id AND seats.seat = 0 \
                 WHERE rooms.status = $1 AND rooms.opponent = $2 \
                 ORDER BY rooms.created_at, rooms.id LIMIT $3",
            )
            .bind(RoomStatus::Open.as_str())
            .bind(Opponent::Anyone.kind())
            .bind(i64::from(limit))
            .fetch_all(p)
            .await?
            .iter()
            .map(|row| -> Result<RoomSummary, StoreError> {
                Ok(RoomSummary {
                    id: row.try_get("id")?,
                    config: config_from_row(row)?,
                    creator: row.try_get("display_name")?,
                    created_at_ms: row.try_get("created_at")?,
                })
            })
            .collect()
        })
    }

    /// Record that `server` is alive at `now_ms` (called every few
    /// seconds): on a restart, a turn is charged only up to this instant,
    /// so the time the server was down is not.
    pub async fn heartbeat(&self, server: &str, now_ms: i64) -> Result<(), StoreError> {
        on_pool!(self, p => {
            sqlx::query(
                "INSERT INTO heartbeats (server, alive_at) VALUES ($1, $2) \
                 ON CONFLICT (server) DO UPDATE SET alive_at = excluded.alive_at",
            )
            .bind(server)
            .bind(now_ms)
            .execute(p)
            .await?;
            Ok(())
        })
    }

    /// Take the database for the process `holder` (a random id), named
    /// `server`, at `now_ms`, unless another holds it: its last renewal
    /// is younger than `stale_ms`. One statement, so of two servers
    /// starting at once one alone takes it. `None` once taken; else the
    /// holder's name and last renewal.
    pub async fn take_lease(
        &self,
        holder: &str,
        server: &str,
        now_ms: i64,
        stale_ms: i64,
    ) -> Result<Option<(String, i64)>, StoreError> {
        let taken = on_pool!(self, p => {
            sqlx::query(
                "UPDATE server_lease SET holder = $1, server = $2, renewed_at = $3 \
                 WHERE id = 1 AND (renewed_at < $4 OR holder = $1)",
            )
            .bind(holder)
            .bind(server)
            .bind(now_ms)
            .bind(now_ms.saturating_sub(stale_ms))
            .execute(p)
            .await?
            .rows_affected()
        });
        if taken == 1 {
            return Ok(None);
        }
        on_pool!(self, p => {
            let row = sqlx::query("SELECT server, renewed_at FROM server_lease WHERE id = 1")
                .fetch_one(p)
                .await?;
            Ok(Some((row.try_get("server")?, row.try_get("renewed_at")?)))
        })
    }

    /// Renew the lease of `holder` at `now_ms`: whether it still holds it
    /// (another server takes a lease left stale).
    pub async fn renew_lease(&self, holder: &str, now_ms: i64) -> Result<bool, StoreError> {
        on_pool!(self, p => {
            let renewed = sqlx::query(
                "UPDATE server_lease SET renewed_at = $2 WHERE id = 1 AND holder = $1",
            )
            .bind(holder)
            .bind(now_ms)
            .execute(p)
            .await?
            .rows_affected();
            Ok(renewed == 1)
        })
    }

    /// The newest sign of life any server stored: which, and when.
    pub async fn latest_heartbeat(&self) -> Result<Option<(String, i64)>, StoreError> {
        on_readers!(self, p => {
            let row = sqlx::query(
                "SELECT server, alive_at FROM heartbeats ORDER BY alive_at DESC LIMIT 1",
            )
            .fetch_optional(p)
            .await?;
            Ok(match row {
                Some(row) => Some((row.try_get("server")?, row.try_get("alive_at")?)),
                None => None,
            })
        })
    }

    /// The stored token hashes of a room's seats, seat 0 first (`None` for
    /// an engine seat): for tests and audits that tokens are kept hashed.
    pub async fn token_hashes(&self, room_id: &str) -> Result<Vec<Option<String>>, StoreError> {
        on_readers!(self, p => {
            sqlx::query("SELECT token_hash FROM seats WHERE room_id = $1 ORDER BY seat")
                .bind(room_id)
                .fetch_all(p)
                .await?
                .iter()
                .map(|row| -> Result<Option<String>, StoreError> {
                    Ok(row.try_get::<Option<String>, _>("token_hash")?)
                })
                .collect()
        })
    }
}

/// Read-only SQLite connections beside the one writer: replays, PDN
/// downloads and restarts read while moves are written.
const SQLITE_READERS: u32 = 4;

/// A SQLite pool of `connections` with the options the store relies on:
/// WAL (readers do not wait for the writer), full synchronous commits (a
/// committed move survives a power cut, not only `kill -9`), foreign keys
/// on, and a busy timeout (another process, or a checkpoint, may hold the
/// file for a moment).
async fn sqlite_pool(
    options: SqliteConnectOptions,
    connections: u32,
) -> Result<SqlitePool, StoreError> {
    let options = options
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10));
    Ok(SqlitePoolOptions::new()
        .max_connections(connections)
        .acquire_timeout(CONNECTION_PATIENCE)
        .connect_with(options)
        .await?)
}

/// Rows per multi-row statement: at 9 parameters a row, far below the
/// parameters a statement may have (32,766 in SQLite, 65,535 in
/// PostgreSQL).
const ROWS_PER_STATEMENT: usize = 256;

/// The last move of each game among `moves` (it sets the game's clock
/// state), in the order the games first appear.
fn last_move_of_each_game(moves: &[MoveRecord]) -> Vec<&MoveRecord> {
    let mut index: HashMap<(&str, u32), usize> = HashMap::new();
    let mut last: Vec<&MoveRecord> = Vec::new();
    for mv in moves {
        match index.entry((mv.room_id.as_str(), mv.game_no)) {
            Entry::Occupied(at) => last[*at.get()] = mv,
            Entry::Vacant(at) => {
                at.insert(last.len());
                last.push(mv);
            }
        }
    }
    last
}

/// Clock values for the store: milliseconds saturate at `i64::MAX`.
fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn to_u32(value: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value}")))
}

/// A pair of flags (White's and Black's, or seat 0's and 1's) as a
/// column's bits: bit 0 the first, bit 1 the second.
fn bits_of(pair: [bool; 2]) -> i64 {
    i64::from(pair[0]) | i64::from(pair[1]) << 1
}

/// The pair of flags [`bits_of`] stored (NULL: neither).
fn pair_of(bits: Option<i64>) -> [bool; 2] {
    let bits = bits.unwrap_or(0);
    [bits & 1 != 0, bits & 2 != 0]
}

fn to_u64(value: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value}")))
}

fn to_seat(value: i64) -> Result<u8, StoreError> {
    match value {
        0 => Ok(0),
        1 => Ok(1),
        other => Err(StoreError::Corrupt(format!("seat {other}"))),
    }
}

fn split_clock(clock: Option<[i64; 2]>) -> [Option<i64>; 2] {
    match clock {
        Some([white, black]) => [Some(white), Some(black)],
        None => [None, None],
    }
}

fn join_clock(white: Option<i64>, black: Option<i64>) -> Option<[i64; 2]> {
    Some([white?, black?])
}

/// Read the room's configuration columns.
fn config_from_row<R>(row: &R) -> Result<RoomConfig, StoreError>
where
    R: Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> Option<i64>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> bool: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let variant: String = row.try_get("variant")?;
    let variant = Variant::from_str(&variant).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let king_landing: String = row.try_get("king_landing")?;
    let king_landing =
        KingLanding::from_str(&king_landing).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let draw = DrawRules {
        no_progress_plies: to_u32(row.try_get("no_progress_plies")?, "no_progress_plies")?,
        max_plies: to_u32(row.try_get("max_plies")?, "max_plies")?,
        repetitions: to_u32(row.try_get("repetitions")?, "repetitions")?,
    };
    let clock = match row.try_get::<Option<i64>, _>("clock_base_ms")? {
        None => None,
        Some(base) => Some(TimeControl {
            moves: to_u32(row.try_get("clock_moves")?, "clock_moves")?,
            base_ms: to_u64(base, "clock_base_ms")?,
            increment_ms: to_u64(row.try_get("clock_increment_ms")?, "clock_increment_ms")?,
        }),
    };
    let opponent: String = row.try_get("opponent")?;
    let opponent = match opponent.as_str() {
        "anyone" => Opponent::Anyone,
        "link" => Opponent::LinkOnly,
        "engine" => {
            let skill: Option<i64> = row.try_get("engine_skill")?;
            let elo: Option<i64> = row.try_get("engine_elo")?;
            match (skill, elo) {
                (Some(s), None) => Opponent::Engine(Strength::Skill(to_u32(s, "engine_skill")?)),
                (None, Some(e)) => Opponent::Engine(Strength::Elo(to_u32(e, "engine_elo")?)),
                _ => return Err(StoreError::Corrupt("engine strength".into())),
            }
        }
        other => return Err(StoreError::Corrupt(format!("opponent '{other}'"))),
    };
    Ok(RoomConfig {
        game: GameConfig {
            forced_capture: row.try_get("forced_capture")?,
            king_landing,
            draw,
            ..GameConfig::new(variant)
        },
        clock,
        opponent,
    })
}

fn seat_from_row<R>(row: &R) -> Result<SeatRecord, StoreError>
where
    R: Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> Option<String>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> bool: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let token_hash = match row.try_get::<Option<String>, _>("token_hash")? {
        None => None,
        Some(text) => Some(
            TokenHash::from_stored(&text)
                .ok_or_else(|| StoreError::Corrupt("token hash".into()))?,
        ),
    };
    Ok(SeatRecord {
        seat: to_seat(row.try_get("seat")?)?,
        name: row.try_get("display_name")?,
        token_hash,
        engine: row.try_get("engine")?,
        joined_at_ms: row.try_get("joined_at")?,
    })
}

fn move_from_row<R>(row: &R) -> Result<MoveRecord, StoreError>
where
    R: Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> Option<i64>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(MoveRecord {
        room_id: row.try_get("room_id")?,
        game_no: to_u32(row.try_get("game_no")?, "game_no")?,
        ply: to_u32(row.try_get("ply")?, "ply")?,
        text: row.try_get("move_text")?,
        elapsed_ms: to_u64(row.try_get("elapsed_ms")?, "elapsed_ms")?,
        clock_ms: join_clock(row.try_get("white_ms")?, row.try_get("black_ms")?),
        moved_at_ms: row.try_get("moved_at")?,
    })
}

fn result_from_row<R>(row: &R) -> Result<ResultRecord, StoreError>
where
    R: Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(ResultRecord {
        result: row.try_get("result")?,
        reason: row.try_get("reason")?,
        finished_at_ms: row.try_get("finished_at")?,
        clock_ms: join_clock(row.try_get("white_ms")?, row.try_get("black_ms")?),
    })
}

#[cfg(test)]
mod tests {
    use super::{AnalysisRecord, HISTORY_READS_AT_ONCE, MIGRATIONS, Store, StoreError};

    /// While as many reads of stored games run as may, one more waits its
    /// turn and is then told the server is busy; once one ends, it runs.
    #[tokio::test]
    async fn reads_of_stored_games_wait_their_turn() {
        let path = std::env::temp_dir().join(format!(
            "bashni-history-reads-{}-{}.db",
            std::process::id(),
            super::unix_ms_now()
        ));
        let store = Store::open_sqlite(&path).await.expect("a store");
        let reads = store.history_reads.clone();
        let running = reads
            .acquire_many(HISTORY_READS_AT_ONCE as u32)
            .await
            .expect("every turn");
        let room = "0".repeat(32);
        let waited = store.stored_room(&room).await;
        assert!(matches!(waited, Err(StoreError::Busy)), "{waited:?}");
        assert!(matches!(
            store.stored_game(&room, 1).await,
            Err(StoreError::Busy)
        ));
        drop(running);
        assert!(matches!(store.stored_room(&room).await, Ok(None)));
        store.close().await;
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{end}", path.display()));
        }
    }

    #[test]
    fn an_analysis_reads_back_as_stored_and_a_damaged_one_is_an_error() {
        let analysis = AnalysisRecord {
            marks: vec![None, Some("??".into()), Some("?".into())],
            evals: vec![35, -1000, 12],
        };
        let (marks, evals) = analysis.columns();
        assert_eq!((marks.as_str(), evals.as_str()), ("- ?? ?", "35 -1000 12"));
        let read = |marks: &str, evals: &str| AnalysisRecord::from_columns(marks, evals).ok();
        assert_eq!(read(&marks, &evals), Some(analysis));
        assert_eq!(read("", ""), Some(AnalysisRecord::default()));
        for (marks, evals) in [("- !", "1 2"), ("- -", "1 x"), ("- -", "1")] {
            assert!(
                matches!(
                    AnalysisRecord::from_columns(marks, evals),
                    Err(StoreError::Corrupt(_))
                ),
                "{marks} / {evals}"
            );
        }
    }

    /// A migration file that is not in [`MIGRATIONS`] is never applied:
    /// every file of `migrations/` is there, by its number, word for word.
    #[test]
    fn every_migration_file_is_applied() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("the migrations folder") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
            let version: i64 = name
                .split('_')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{name} starts with its number"));
            let text = std::fs::read_to_string(&path).expect("readable");
            files.push((version, text));
        }
        files.sort();
        let listed: Vec<(i64, String)> = MIGRATIONS
            .iter()
            .map(|&(version, _, sql)| (version, sql.to_owned()))
            .collect();
        assert_eq!(files, listed);
    }
}
