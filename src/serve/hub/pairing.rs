//! Quick games: a player names a variant and a clock and meets the first
//! player waiting for the same game, or waits in a new room the lobby
//! lists for the next one (lichess's quick pairing). The rules are the
//! variant's online ones, the colours drawn at random.

use super::Hub;
use crate::serve::config::{GameConfig, Opponent, RoomConfig};
use crate::serve::token::{SeatToken, is_hex128};
use crate::serve::view::ConfigView;
use crate::serve::wire::{parse_clock, parse_variant};
use std::net::IpAddr;

/// What a quick game request became: the room, the seat taken in it,
/// and the seat's token.
pub struct Paired {
    /// The room's id.
    pub room: String,
    /// 0 for a new room (its creator), 1 for one joined.
    pub seat: u8,
    /// The seat's token.
    pub token: SeatToken,
}

impl Hub {
    /// Pair `name` (from `addr`, in the browser `device`) for a game of
    /// `variant` with `clock` (none without): the seat of the oldest
    /// waiting room of the same game that another browser made, or a new
    /// room's.
    pub async fn quick(
        &self,
        addr: IpAddr,
        name: &str,
        device: &str,
        variant: &str,
        clock: Option<&str>,
    ) -> Result<Paired, String> {
        if !is_hex128(device) {
            return Err("device: 32 hex digits".into());
        }
        let config = RoomConfig {
            game: GameConfig::online(parse_variant(variant)?),
            clock: clock.map(parse_clock).transpose().map_err(|e| e.0)?,
            opponent: Opponent::Anyone,
        };
        let _turn = self.pairings.lock().await;
        for room in self.shared.lobby.waiting_like(&ConfigView::of(&config)) {
            let own = self.quick_devices.get(&room).is_some_and(|d| *d == device);
            if own {
                continue;
            }
            // Taken meanwhile, or closed: the next one, or a new room.
            if let Ok((seat, token)) = self.join(&room, name).await {
                return Ok(Paired { room, seat, token });
            }
        }
        let (room, token) = self.found(addr, name, config, None, None).await?;
        self.quick_devices.insert(room.clone(), device.to_owned());
        Ok(Paired {
            room,
            seat: 0,
            token,
        })
    }
}
