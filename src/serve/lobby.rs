//! The lobby: the public rooms (waiting for an opponent, or being
//! played and open to watchers), kept up to date by the rooms' tasks and
//! sent to every page that shows the lobby. The list is built once per
//! change (at most every [`LOBBY_PERIOD`]) and shared as JSON.

use super::view::{Json, LobbyRoom, ServerMessage};
use dashmap::DashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// The lobby goes out at most this often, however busy the rooms are.
pub const LOBBY_PERIOD: Duration = Duration::from_millis(200);

/// The most rooms the lobby lists (the waiting ones first).
pub const LOBBY_ROOMS: usize = 200;

/// The rooms the lobby lists.
pub struct Lobby {
    rooms: DashMap<String, LobbyRoom>,
    changed: watch::Sender<u64>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            rooms: DashMap::new(),
            changed: watch::channel(0).0,
        }
    }
}

impl Lobby {
    /// List `room` (or update its line).
    pub fn put(&self, room: LobbyRoom) {
        let same = self.rooms.get(&room.id).is_some_and(|old| *old == room);
        if !same {
            self.rooms.insert(room.id.clone(), room);
            self.changed.send_modify(|n| *n += 1);
        }
    }

    /// Drop the room from the list.
    pub fn remove(&self, id: &str) {
        if self.rooms.remove(id).is_some() {
            self.changed.send_modify(|n| *n += 1);
        }
    }

    /// The list: rooms waiting for an opponent first, then games being
    /// played; oldest first within each (ids are random, so the order is
    /// by the room's line, which is stable).
    pub fn list(&self) -> Vec<LobbyRoom> {
        let mut rooms: Vec<LobbyRoom> = self.rooms.iter().map(|r| r.value().clone()).collect();
        rooms.sort_by(|a, b| (a.phase != "waiting", &a.id).cmp(&(b.phase != "waiting", &b.id)));
        rooms.truncate(LOBBY_ROOMS);
        rooms
    }

    /// Publish the lobby's JSON whenever it changes, at most every
    /// [`LOBBY_PERIOD`], until the server stops.
    pub fn publisher(self: &Arc<Lobby>) -> watch::Receiver<Json> {
        let (tx, rx) = watch::channel(self.json());
        let lobby = Arc::clone(self);
        let mut changed = self.changed.subscribe();
        tokio::spawn(async move {
            while changed.changed().await.is_ok() {
                tx.send_replace(lobby.json());
                tokio::time::sleep(LOBBY_PERIOD).await;
            }
        });
        rx
    }

    fn json(&self) -> Json {
        let rooms = self.list();
        let message = ServerMessage::Lobby { rooms: &rooms };
        Json::from(serde_json::to_string(&message).unwrap_or_else(|_| "{}".into()))
    }
}
