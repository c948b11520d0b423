//! The rooms of one server: creating them (within the limits), finding
//! them by id, and bringing back the unfinished ones after a restart.

use super::actor::{self, RoomHandle, Shared, ToRoom};
use super::config::{Opponent, Strength};
use super::room::{Player, Room};
use super::store::{NewRoom, SeatRecord, unix_ms_now};
use super::token::{SeatToken, random_hex128};
use super::view::{ServerMessage, VariantInfo, Welcome};
use super::wire::{RoomSetup, StrengthRanges};
use bashni_rules::Colour;
use dashmap::DashMap;
use rand::RngExt;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, watch};

/// What the server refuses beyond.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Rooms in memory at once.
    pub max_rooms: usize,
    /// Rooms one address may create per minute.
    pub rooms_per_minute: usize,
    /// Watchers per room.
    pub watchers_per_room: usize,
    /// Messages per second one connection may send (a burst of twice as
    /// many is let through).
    pub messages_per_second: u32,
    /// Connections open at once from one address.
    pub connections_per_address: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_rooms: 10_000,
            rooms_per_minute: 10,
            watchers_per_room: 500,
            messages_per_second: 20,
            connections_per_address: 64,
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
    pub welcome: Arc<str>,
    /// The lobby, as JSON, newest.
    pub lobby: watch::Receiver<Arc<str>>,
    ranges: StrengthRanges,
    rooms: Arc<DashMap<String, RoomHandle>>,
    created: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    connections: DashMap<IpAddr, usize>,
}

impl Hub {
    /// A hub with no rooms yet.
    pub fn new(shared: Shared, limits: Limits, ranges: StrengthRanges) -> Hub {
        let welcome = Welcome {
            variants: VariantInfo::all(),
            strength: ranges,
            clocks: vec!["1+0", "3+2", "5+3", "10+5", "15+10"],
            online_no_progress_plies: super::config::GameConfig::FIFTEEN_MOVES_PLIES,
        };
        let welcome = serde_json::to_string(&ServerMessage::Welcome(&welcome))
            .unwrap_or_else(|_| "{}".into());
        let lobby = shared.lobby.publisher();
        Hub {
            shared,
            limits,
            welcome: Arc::from(welcome),
            lobby,
            ranges,
            rooms: Arc::new(DashMap::new()),
            created: Mutex::new(HashMap::new()),
            connections: DashMap::new(),
        }
    }

    /// The room with this id, if it is in memory.
    pub fn room(&self, id: &str) -> Option<RoomHandle> {
        self.rooms.get(id).map(|r| r.value().clone())
    }

    /// Rooms in memory.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// Count a new connection from `addr`; false when it has too many.
    pub fn connect(&self, addr: IpAddr) -> bool {
        let mut count = self.connections.entry(addr).or_insert(0);
        if *count >= self.limits.connections_per_address {
            return false;
        }
        *count += 1;
        true
    }

    /// A connection from `addr` closed.
    pub fn disconnect(&self, addr: IpAddr) {
        if let Some(mut count) = self.connections.get_mut(&addr) {
            *count = count.saturating_sub(1);
        }
        self.connections.remove_if(&addr, |_, n| *n == 0);
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
        let token = SeatToken::generate();
        let creator = Player::human(name, token.hash()).map_err(|e| e.to_string())?;
        self.admit(addr)?;
        let colour = colour.unwrap_or_else(|| match rand::rng().random::<bool>() {
            true => Colour::White,
            false => Colour::Black,
        });
        let id = random_hex128();
        let now_ms = unix_ms_now();
        let new_room = NewRoom {
            id: id.clone(),
            config,
            created_at_ms: now_ms,
        };
        let seat = SeatRecord {
            seat: 0,
            name: creator.name.clone(),
            token_hash: creator.token_hash.clone(),
            engine: false,
            joined_at_ms: now_ms,
        };
        self.shared
            .store
            .create_room(&new_room, &seat)
            .await
            .map_err(|e| format!("cannot store the room: {e}"))?;
        let room = Room::new(id.clone(), config, creator, colour, Instant::now());
        let handle = self.spawn(room);
        if let Opponent::Engine(strength) = config.opponent {
            seat_engine(&handle, strength).await?;
        }
        Ok((id, token))
    }

    /// Whether `addr` may create a room now (counting it if so).
    fn admit(&self, addr: IpAddr) -> Result<(), String> {
        if self.rooms.len() >= self.limits.max_rooms {
            return Err("the server has as many rooms as it takes; try again later".into());
        }
        let mut created = self
            .created
            .lock()
            .map_err(|_| "the server is restarting".to_string())?;
        let times = created.entry(addr).or_default();
        let minute_ago = Instant::now().checked_sub(Duration::from_secs(60));
        while times.front().is_some_and(|&t| Some(t) < minute_ago) {
            times.pop_front();
        }
        if times.len() >= self.limits.rooms_per_minute {
            return Err(format!(
                "at most {} new rooms a minute from one address",
                self.limits.rooms_per_minute
            ));
        }
        times.push_back(Instant::now());
        Ok(())
    }

    fn spawn(&self, room: Room) -> RoomHandle {
        let id = room.id().to_owned();
        let rooms = Arc::clone(&self.rooms);
        let handle = actor::spawn(room, self.shared.clone(), move |id| {
            rooms.remove(id);
        });
        self.rooms.insert(id, handle.clone());
        handle
    }

    /// Bring back every unfinished room of the store: its moves replayed,
    /// its clocks charged only up to the last heartbeat of `server`.
    /// Rooms that do not replay are reported and left out.
    pub async fn restore(&self, server: &str) -> Result<usize, String> {
        let store = &self.shared.store;
        let alive = store
            .last_heartbeat(server)
            .await
            .map_err(|e| e.to_string())?;
        let loaded = store.load_unfinished().await.map_err(|e| e.to_string())?;
        let now = Instant::now();
        let mut restored = 0;
        for room in &loaded {
            let thinking = room
                .game
                .as_ref()
                .map_or(Duration::ZERO, |g| g.thought_before_stop(alive));
            match Room::restore(room, thinking, now) {
                Ok(room) => {
                    self.spawn(room);
                    restored += 1;
                }
                Err(e) => eprintln!("bashni serve: room {} not restored: {e}", room.id),
            }
        }
        Ok(restored)
    }
}

/// Seat the engine at `strength` in the room's free seat.
async fn seat_engine(handle: &RoomHandle, strength: Strength) -> Result<(), String> {
    let name = match strength {
        Strength::Skill(level) => format!("bashni (Skill {level})"),
        Strength::Elo(elo) => format!("bashni (Elo {elo})"),
    };
    let (reply, answer) = oneshot::channel();
    let join = ToRoom::Join {
        player: Player::engine(&name),
        reply,
    };
    handle
        .tx
        .send(join)
        .await
        .map_err(|_| "the room has closed".to_string())?;
    answer
        .await
        .map_err(|_| "the room has closed".to_string())?
        .map(|_| ())
}
