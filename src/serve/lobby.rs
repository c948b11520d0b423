//! The lobby: the public rooms (waiting for an opponent, or being
//! played and open to watchers), kept up to date by the rooms' tasks and
//! sent to every page that shows the lobby. The list is built once per
//! change (at most every [`LOBBY_PERIOD`]) and shared as JSON.

use super::room::Phase;
use super::view::{ConfigView, Json, LobbyRoom, ServerMessage, phase_name};
use dashmap::DashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::watch;

/// The lobby goes out at most this often, however busy the rooms are.
pub const LOBBY_PERIOD: Duration = Duration::from_millis(200);

/// The most rooms the lobby lists (the waiting ones first).
pub const LOBBY_ROOMS: usize = 200;

/// The rooms the lobby lists, each with the number of its listing (the
/// order rooms came in, kept while a room stays listed).
pub struct Lobby {
    rooms: DashMap<String, (u64, LobbyRoom)>,
    listings: AtomicU64,
    changed: watch::Sender<u64>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            rooms: DashMap::new(),
            listings: AtomicU64::new(0),
            changed: watch::channel(0).0,
        }
    }
}

impl Lobby {
    /// List `room` (or update its line).
    pub fn put(&self, room: LobbyRoom) {
        let listed = self.rooms.get(&room.id).map(|old| (old.0, old.1 == room));
        let listing = match listed {
            Some((_, true)) => return,
            Some((listing, false)) => listing,
            None => self.listings.fetch_add(1, Ordering::Relaxed),
        };
        self.rooms.insert(room.id.clone(), (listing, room));
        self.changed.send_modify(|n| *n += 1);
    }

    /// Drop the room from the list.
    pub fn remove(&self, id: &str) {
        if self.rooms.remove(id).is_some() {
            self.changed.send_modify(|n| *n += 1);
        }
    }

    /// The list: rooms waiting for an opponent first, then games being
    /// played; within each, the longest listed first.
    pub fn list(&self) -> Vec<LobbyRoom> {
        let mut rooms: Vec<(u64, LobbyRoom)> =
            self.rooms.iter().map(|r| r.value().clone()).collect();
        let waiting = phase_name(Phase::Waiting);
        rooms.sort_by_key(|(listing, room)| (room.phase != waiting, *listing));
        rooms.truncate(LOBBY_ROOMS);
        rooms.into_iter().map(|(_, room)| room).collect()
    }

    /// The rooms waiting for an opponent that play `config`, the longest
    /// listed first.
    pub fn waiting_like(&self, config: &ConfigView) -> Vec<String> {
        let waiting = phase_name(Phase::Waiting);
        let mut rooms: Vec<(u64, String)> = self
            .rooms
            .iter()
            .filter(|r| r.value().1.phase == waiting && r.value().1.config == *config)
            .map(|r| (r.value().0, r.key().clone()))
            .collect();
        rooms.sort();
        rooms.into_iter().map(|(_, id)| id).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::config::{GameConfig, Opponent, RoomConfig};
    use crate::serve::view::ConfigView;
    use bashni_rules::Variant;

    fn line(id: &str, phase: &'static str, watchers: usize) -> LobbyRoom {
        let config = RoomConfig {
            game: GameConfig::online(Variant::Bashni),
            clock: None,
            opponent: Opponent::Anyone,
        };
        LobbyRoom {
            id: id.into(),
            config: ConfigView::of(&config),
            players: [Some("Ann".into()), None],
            watchers,
            phase,
            from_position: false,
        }
    }

    #[test]
    fn waiting_rooms_come_first_then_the_longest_listed() {
        let lobby = Lobby::default();
        for (id, phase) in [("ff", "waiting"), ("aa", "playing"), ("cc", "waiting")] {
            lobby.put(line(id, phase, 0));
        }
        lobby.put(line("ff", "waiting", 3));
        let ids: Vec<String> = lobby.list().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, ["ff", "cc", "aa"], "an update keeps a room's place");
        assert_eq!(lobby.list()[0].watchers, 3);
    }
}
