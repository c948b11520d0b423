//! The rooms of one server: creating them (within the limits), finding
//! them by id, and bringing back the unfinished ones after a restart.

use super::actor::{self, Kept, RoomHandle, Shared, ToRoom};
use super::chat::Chat;
use super::config::{Opponent, RoomConfig, Strength};
use super::desk::ANALYSES_PER_ADDRESS;
use super::history::{YourGameView, your_game};
use super::ladder::RIVAL_SEAT;
use super::listener::AddressCounts;
use super::room::{Phase, Player, Room, RoomError};
use super::store::{LoadedRoom, NewRoom, Opening, RoomStatus, SeatRecord, Write, unix_ms_now};
use super::token::{SeatToken, TokenHash, is_hex128, random_hex128};
use super::view::{AnalysisView, Json, ServerMessage, VariantInfo, Welcome};
use super::wire::{
    CLOCK_INCREMENT_SECONDS, CLOCK_MINUTES, RoomSetup, SeatClaim, StrengthRanges, clip,
};
use bashni_rules::Colour;
use dashmap::DashMap;
use rand::RngExt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

mod pairing;
mod per_address;
mod per_minute;
mod runs;
pub use pairing::Quick;
use per_address::{AddressRooms, Counting};
use per_minute::PerMinute;
pub use runs::LadderStart;

/// What the server refuses beyond.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Rooms in memory at once.
    pub max_rooms: usize,
    /// Rooms one address may create per minute.
    pub rooms_per_minute: usize,
    /// Stored rooms (finished ones, games without a clock) one address
    /// may bring back into memory per minute.
    pub rooms_reopened_per_minute: usize,
    /// Games against the engine one address may have going at once.
    pub engine_games_per_address: usize,
    /// Rooms waiting for an opponent one address may have at once.
    pub waiting_rooms_per_address: usize,
    /// Messages per second one connection may send (a burst of twice as
    /// many is let through).
    pub messages_per_second: u32,
    /// Connections open at once from one address.
    pub connections_per_address: usize,
    /// How often each page is pinged; silent for three pings, it is gone.
    pub ping_every: std::time::Duration,
}

/// Why [`Hub::find`] has no room to give.
#[derive(Debug, PartialEq, Eq)]
pub enum FindError {
    /// No room to show has this id (none ever had it, or it was closed
    /// before anyone joined); why, for the page, which goes back to the
    /// lobby.
    Missing(String),
    /// The room exists but cannot be shown now; why.
    Unavailable(String),
}

impl From<String> for FindError {
    fn from(why: String) -> FindError {
        FindError::Unavailable(why)
    }
}

impl From<FindError> for String {
    fn from(error: FindError) -> String {
        match error {
            FindError::Missing(why) => why,
            FindError::Unavailable(why) => why,
        }
    }
}

/// The server's rooms.
pub struct Hub {
    /// What every room shares.
    pub shared: Shared,
    /// The limits.
    pub limits: Limits,
    /// The first message of every connection, as JSON.
    pub welcome: Json,
    /// The lobby, as JSON, newest.
    pub lobby: watch::Receiver<Json>,
    ranges: StrengthRanges,
    rooms: Arc<DashMap<String, RoomHandle>>,
    created: PerMinute,
    /// Stored rooms each address brought back into memory: opening one
    /// costs a task and a place among `max_rooms` for the idle time, and
    /// finished rooms' ids are shown to anyone.
    reopened: PerMinute,
    /// The games against the engine each address has going.
    engine_games: AddressRooms,
    /// The rooms waiting for an opponent in the lobby each address opened.
    waiting_rooms: AddressRooms,
    connections: AddressCounts,
    /// The analysis boards' analyses each address has running or
    /// waiting.
    pub analyses: Arc<AddressCounts>,
    loading: tokio::sync::Mutex<()>,
    /// Held while a ladder run is looked for and started: two requests of
    /// one browser at once would each find none going and start one.
    ladder_starts: tokio::sync::Mutex<()>,
    /// Held while a quick game is looked for and joined or made: two
    /// players asking at once would each make a room and wait.
    pairings: tokio::sync::Mutex<()>,
    /// The quick games in memory, each with the browser (its device id's
    /// hash) that asked for it: quick requests meet only in these, never in a
    /// room whose creator chose a colour or a start, and a player's two
    /// tabs do not meet.
    quick_rooms: Arc<DashMap<String, String>>,
}

impl Hub {
    /// A hub with no rooms yet.
    pub fn new(shared: Shared, limits: Limits, ranges: StrengthRanges) -> Hub {
        let welcome = Welcome {
            variants: VariantInfo::all(),
            strength: ranges,
            clocks: vec!["1+0", "3+2", "5+3", "10+5", "15+10"],
            clock_minutes: CLOCK_MINUTES,
            clock_increment_seconds: CLOCK_INCREMENT_SECONDS,
            online_no_progress_plies: super::config::GameConfig::FIFTEEN_MOVES_PLIES,
            max_message_bytes: super::wire::MAX_CLIENT_MESSAGE_BYTES,
        };
        let welcome = serde_json::to_string(&ServerMessage::Welcome(&welcome))
            .unwrap_or_else(|_| "{}".into());
        let lobby = shared.lobby.publisher();
        Hub {
            shared,
            limits,
            welcome: Json::from(welcome),
            lobby,
            ranges,
            rooms: Arc::new(DashMap::new()),
            created: PerMinute::new(limits.rooms_per_minute),
            reopened: PerMinute::new(limits.rooms_reopened_per_minute),
            engine_games: AddressRooms::engine_games(limits.engine_games_per_address),
            waiting_rooms: AddressRooms::waiting_rooms(limits.waiting_rooms_per_address),
            connections: AddressCounts::new(limits.connections_per_address),
            analyses: Arc::new(AddressCounts::new(ANALYSES_PER_ADDRESS)),
            loading: tokio::sync::Mutex::new(()),
            ladder_starts: tokio::sync::Mutex::new(()),
            pairings: tokio::sync::Mutex::new(()),
            quick_rooms: Arc::new(DashMap::new()),
        }
    }

    /// The room with this id, if it is in memory.
    pub fn room(&self, id: &str) -> Option<RoomHandle> {
        self.rooms.get(id).map(|r| r.value().clone())
    }

    /// The room with this id: in memory, or one brought back from the
    /// store: a finished room (its page shows the result, the replay and
    /// the analysis, and a rematch may follow), or a game without a clock
    /// that left memory while nobody looked, its side to move charged the
    /// time since its turn began (a ladder's score counts it). A room
    /// brought back for a page counts against its address `by`
    /// ([`Limits::rooms_reopened_per_minute`]).
    pub async fn find(&self, id: &str, by: Option<IpAddr>) -> Result<RoomHandle, FindError> {
        if let Some(handle) = self.room(id) {
            return Ok(handle);
        }
        let unknown = || {
            FindError::Missing(format!(
                "no room '{}' here: is the address right?",
                clip(id, 40)
            ))
        };
        if !is_hex128(id) {
            return Err(unknown());
        }
        // One load at a time, so two pages opening the same finished room
        // get one task for it.
        let _loading = self.loading.lock().await;
        if let Some(handle) = self.room(id) {
            return Ok(handle);
        }
        let store = &self.shared.store;
        let loaded = store
            .load_room(id)
            .await
            .map_err(|e| format!("cannot read room {id}: {e}"))?
            .ok_or_else(unknown)?;
        let thinking = match (&loaded.status, &loaded.game) {
            (RoomStatus::Open, _) => return Err(unknown()),
            (_, None) => {
                let why = "that room was closed before anyone joined";
                return Err(FindError::Missing(why.into()));
            }
            (RoomStatus::Finished, Some(_)) => Duration::ZERO,
            (RoomStatus::Playing, Some(game)) => game.thought_before_stop(Some(unix_ms_now())),
        };
        if let Some(addr) = by {
            let counted = self.reopened.take(addr, Instant::now());
            counted.map_err(|most| {
                FindError::Unavailable(format!(
                    "at most {most} stored rooms opened a minute from one address"
                ))
            })?;
        }
        self.room_for_one_more()?;
        let revived = self.revive(&loaded, thinking, Instant::now()).await?;
        revived.map_err(|e| FindError::Unavailable(format!("room {id} cannot be shown: {e}")))
    }

    /// Count a new connection from `addr`; false when it has too many.
    pub fn connect(&self, addr: IpAddr) -> bool {
        self.connections.enter(addr)
    }

    /// A connection from `addr` closed.
    pub fn disconnect(&self, addr: IpAddr) {
        self.connections.leave(addr);
    }

    /// Create a room from `setup` for `name` at `addr`: the room's id and
    /// the creator's token (seat 0).
    pub async fn create(
        &self,
        addr: IpAddr,
        name: &str,
        setup: &RoomSetup,
    ) -> Result<(String, SeatToken), String> {
        let (config, colour) = setup.check(&self.ranges).map_err(|e| e.0)?;
        let start = setup.start_position(&config).map_err(|e| e.0)?;
        let choice = Choice {
            colour,
            start: start.as_deref(),
            quick_device: None,
        };
        self.found(addr, name, config, choice).await
    }

    /// Create a room of `config` for `name` at `addr`, opening as the
    /// creator chose: the room's id and the creator's token.
    async fn found(
        &self,
        addr: IpAddr,
        name: &str,
        config: RoomConfig,
        choice: Choice<'_>,
    ) -> Result<(String, SeatToken), String> {
        let token = SeatToken::generate();
        let creator = Player::human(name, token.hash()).map_err(|e| e.to_string())?;
        let colour = choice
            .colour
            .unwrap_or_else(|| match rand::rng().random::<bool>() {
                true => Colour::White,
                false => Colour::Black,
            });
        let mut founding = Founding::new(config, creator, colour, choice.start)?;
        founding.row.opening.quick_device = choice.quick_device.map(|d| d.as_str().to_owned());
        // Counted from here until the room is open (or failed to).
        let _counted = match config.opponent {
            Opponent::Engine(_) => Some(self.admit_engine_game(addr, &founding.row.id)?),
            Opponent::Anyone => Some(self.admit_waiting_room(addr, &founding.row.id)?),
            Opponent::LinkOnly => None,
        };
        self.admit(addr)?;
        self.shared
            .store
            .create_room(&founding.row, &founding.seat)
            .await
            .map_err(|e| format!("cannot store the room: {e}"))?;
        let id = founding.row.id.clone();
        self.note_quick(&id, &founding.row.opening);
        let handle = self.spawn(founding.room, Kept::default());
        if let Opponent::Engine(strength) = config.opponent {
            seat_engine(&handle, &engine_name(strength)).await?;
        }
        Ok((id, token))
    }

    /// Take the free seat of room `id` as `name`: the seat and its token.
    pub async fn join(
        &self,
        addr: IpAddr,
        id: &str,
        name: &str,
    ) -> Result<(u8, SeatToken), String> {
        let handle = self.find(id, Some(addr)).await?;
        let token = SeatToken::generate();
        let player = Player::human(name, token.hash()).map_err(|e| e.to_string())?;
        let seat = handle.ask(|reply| ToRoom::Join { player, reply }).await??;
        Ok((seat, token))
    }

    /// Whether memory takes one more room ([`Limits::max_rooms`]).
    fn room_for_one_more(&self) -> Result<(), String> {
        if self.rooms.len() >= self.limits.max_rooms {
            return Err("the server has as many rooms as it takes; try again later".into());
        }
        Ok(())
    }

    /// Whether `addr` may create a room now (counting it if so).
    fn admit(&self, addr: IpAddr) -> Result<(), String> {
        self.room_for_one_more()?;
        (self.created.take(addr, Instant::now()))
            .map_err(|most| format!("at most {most} new rooms a minute from one address"))
    }

    /// Pair `id` with quick requests if `opening` is a quick game's (its
    /// task forgets it when it ends).
    fn note_quick(&self, id: &str, opening: &Opening) {
        if let Some(device) = &opening.quick_device {
            self.quick_rooms.insert(id.to_owned(), device.clone());
        }
    }

    /// Count room `id` against the engine as `addr`'s, if the address has
    /// fewer than [`Limits::engine_games_per_address`] going; it counts as
    /// going while the answer is kept (keep it until the room is open).
    fn admit_engine_game(&self, addr: IpAddr, id: &str) -> Result<Counting<'_>, String> {
        self.engine_games
            .admit(addr, id, &|room| self.game_going(room))
    }

    /// Count room `id`, which will wait for an opponent in the lobby, as
    /// `addr`'s, if the address has fewer than
    /// [`Limits::waiting_rooms_per_address`] waiting; it counts as waiting
    /// while the answer is kept.
    fn admit_waiting_room(&self, addr: IpAddr, id: &str) -> Result<Counting<'_>, String> {
        let waiting = |room: &str| {
            self.room(room)
                .map(|h| h.state.borrow().phase == Phase::Waiting)
        };
        self.waiting_rooms.admit(addr, id, &waiting)
    }

    /// Whether `addr` may start another game in room `id` (a rematch): in
    /// a room against the engine, as `addr`'s engine games go, the room
    /// counting as going while the answer is kept (keep it until the
    /// rematch has started).
    pub fn admit_rematch(&self, addr: IpAddr, id: &str) -> Result<Option<Counting<'_>>, String> {
        let engine_room = self.room(id).is_some_and(|h| h.engine_room);
        if !engine_room {
            return Ok(None);
        }
        self.engine_games
            .admit(addr, id, &|room| self.game_going(room))
            .map(Some)
    }

    /// Whether room `id` has a game going; `None` once it left memory.
    fn game_going(&self, id: &str) -> Option<bool> {
        self.room(id)
            .map(|handle| !matches!(handle.state.borrow().phase, Phase::Over(_)))
    }

    fn spawn(&self, room: Room, kept: Kept) -> RoomHandle {
        let id = room.id().to_owned();
        let rooms = Arc::clone(&self.rooms);
        let quick_rooms = Arc::clone(&self.quick_rooms);
        let handle = actor::spawn(room, self.shared.clone(), kept, move |id| {
            rooms.remove(id);
            quick_rooms.remove(id);
        });
        self.rooms.insert(id, handle.clone());
        handle
    }

    /// Bring back every unfinished room of the store: its moves replayed,
    /// its clocks charged only up to `alive`, the last heartbeat the
    /// server stored before it stopped (Unix milliseconds). Rooms that do
    /// not replay are reported and left out.
    pub async fn restore(&self, alive: Option<i64>) -> Result<usize, String> {
        let store = &self.shared.store;
        let loaded = store.load_unfinished().await.map_err(|e| e.to_string())?;
        let now = Instant::now();
        let mut restored = 0;
        for room in &loaded {
            let thinking = room
                .game
                .as_ref()
                .map_or(Duration::ZERO, |g| g.thought_before_stop(alive));
            match self.revive(room, thinking, now).await? {
                Ok(_) => restored += 1,
                Err(e) => eprintln!("bashni serve: room {} not restored: {e}", room.id),
            }
        }
        Ok(restored)
    }

    /// Bring `loaded` back into memory, its side to move charged
    /// `thinking` at `now`, and make the store whole where a server
    /// stopped halfway: the turn counted from its new start, a result the
    /// moves reached stored, the engine seated in a room made for it. The
    /// inner error: the room does not replay (it is left out); the outer:
    /// the store failed.
    async fn revive(
        &self,
        loaded: &LoadedRoom,
        thinking: Duration,
        now: Instant,
    ) -> Result<Result<RoomHandle, RoomError>, String> {
        let room = match Room::restore(loaded, thinking, now) {
            Ok(room) => room,
            Err(e) => return Ok(Err(e)),
        };
        self.restart_turn(&room, thinking).await?;
        self.store_reached_result(loaded, &room).await?;
        let climb = self.climb_of(&loaded.id).await?;
        let engine = engine_to_seat(&room, climb.is_some());
        let analysis = loaded.game.as_ref().and_then(|game| {
            let record = game.analysis.as_ref()?;
            Some(AnalysisView::stored(game.game_no, record))
        });
        let kept = Kept {
            climb,
            analysis,
            chat: Chat::new(loaded.chat.clone()),
        };
        if loaded.status == RoomStatus::Open {
            self.note_quick(&loaded.id, &loaded.opening);
        }
        let handle = self.spawn(room, kept);
        if let Some(name) = engine {
            seat_engine(&handle, &name).await?;
        }
        Ok(Ok(handle))
    }

    /// Store the result of `loaded`'s game when its moves ended it and
    /// the result was not stored with them (servers before one action's
    /// writes were stored together), so the replay and the PDN have it.
    async fn store_reached_result(&self, loaded: &LoadedRoom, room: &Room) -> Result<(), String> {
        let (Phase::Over(outcome), Some(game)) = (room.phase(), &loaded.game) else {
            return Ok(());
        };
        if game.result.is_some() {
            return Ok(());
        }
        let write = Write::GameEnd {
            room_id: loaded.id.clone(),
            game_no: game.game_no,
            result: outcome.record(room.clock_ms(Instant::now()), unix_ms_now()),
        };
        self.shared
            .writer
            .write(write)
            .await
            .map_err(|e| format!("room {}: cannot store its result: {e}", loaded.id))
    }

    /// Store where the turn of a restored `room`'s game being played now
    /// counts from (`thinking` ago): the time the server was down is left
    /// out, and a second restart in the same turn must not charge it.
    async fn restart_turn(&self, room: &Room, thinking: Duration) -> Result<(), String> {
        if room.phase() != Phase::Playing {
            return Ok(());
        }
        let thought_ms = i64::try_from(thinking.as_millis()).unwrap_or(i64::MAX);
        let write = Write::TurnStart {
            room_id: room.id().to_owned(),
            game_no: room.game_no(),
            turn_started_at_ms: unix_ms_now().saturating_sub(thought_ms),
        };
        self.shared
            .writer
            .write(write)
            .await
            .map_err(|e| format!("room {}: cannot store its turn: {e}", room.id()))
    }
}

impl Hub {
    /// The lines of a browser's own games, newest first: the rooms of
    /// `claims` whose token is one of their seats' (others are left out).
    pub async fn your_games(&self, claims: &[SeatClaim]) -> Result<Vec<YourGameView>, String> {
        let seats = SeatClaim::check_all(claims)?;
        let rooms = (self.shared.store.your_rooms(&seats).await).map_err(|e| e.to_string())?;
        let mut lines: Vec<YourGameView> = rooms.iter().filter_map(your_game).collect();
        lines.sort_by_key(|line| std::cmp::Reverse(line.at_ms));
        Ok(lines)
    }
}

/// What a creator chose of how a new room opens.
#[derive(Clone, Copy, Default)]
pub struct Choice<'a> {
    /// Their colour in the first game; a random one if none.
    pub colour: Option<Colour>,
    /// The start position; the variant's if none.
    pub start: Option<&'a str>,
    /// For a quick game, the browser that asked (its device id's hash).
    pub quick_device: Option<&'a TokenHash>,
}

/// A room about to be opened: its rows for the store, and the room its
/// task starts with.
struct Founding {
    row: NewRoom,
    seat: SeatRecord,
    room: Room,
}

impl Founding {
    /// A room with a new id for `config`, `creator` in seat 0 playing
    /// `colour` in the first game, its games starting from `start` if
    /// given (checked by the room's rules before anything is stored).
    fn new(
        config: RoomConfig,
        creator: Player,
        colour: Colour,
        start: Option<&str>,
    ) -> Result<Founding, String> {
        let id = random_hex128();
        let now_ms = unix_ms_now();
        let seat = creator.seat_record(0, now_ms);
        let mut room = Room::new(id.clone(), config, creator, colour, Instant::now());
        if let Some(fen) = start {
            room = room.with_start(fen).map_err(|e| e.to_string())?;
        }
        let row = NewRoom {
            id,
            config,
            created_at_ms: now_ms,
            opening: Opening {
                creator_colour: colour,
                start_fen: start.map(str::to_owned),
                quick_device: None,
            },
        };
        Ok(Founding { row, seat, room })
    }
}

/// Lines of the ladder's leaderboard.
pub const LEADERBOARD_LINES: u32 = 20;

/// The hash of a browser's device id (32 lowercase hex digits it made and
/// keeps, as secret as a seat token: it proves a ladder run), or why the
/// id is none.
fn device_hash(device: &str) -> Result<TokenHash, String> {
    SeatToken::parse(device)
        .map(|device| device.hash())
        .ok_or_else(|| "device: 32 lowercase hex digits".into())
}

/// The engine's display name at `strength`: "Engine (Skill 5)" (not the
/// program's name, which in a Lasca game read as the other game's).
fn engine_name(strength: Strength) -> String {
    format!("Engine ({strength})")
}

/// The name of the engine a restored `room` still waits for, if it was
/// made for the engine and the server stopped before the engine sat down
/// (nobody else may take that seat): a ladder's rival or the engine at
/// the room's strength.
fn engine_to_seat(room: &Room, ladder: bool) -> Option<String> {
    let Opponent::Engine(strength) = room.config().opponent else {
        return None;
    };
    if room.phase() != Phase::Waiting || room.player(1).is_some() {
        return None;
    }
    Some(match ladder {
        true => RIVAL_SEAT.to_owned(),
        false => engine_name(strength),
    })
}

/// Seat the engine, shown as `name`, in the room's free seat.
async fn seat_engine(handle: &RoomHandle, name: &str) -> Result<(), String> {
    let player = Player::engine(name);
    handle
        .ask(|reply| ToRoom::Join { player, reply })
        .await?
        .map(|_| ())
}
