//! Quick games: a player names a variant and a clock and meets the first
//! player waiting for the same game, or waits in a new room the lobby
//! lists for the next one (lichess's quick pairing). The rules are the
//! variant's online ones, the colours drawn at random. A browser waits
//! for one such game at a time: asking again (from another tab) leads it
//! back to the room it waits in.

use super::{Choice, Hub};
use crate::serve::config::{GameConfig, Opponent, RoomConfig};
use crate::serve::room::Player;
use crate::serve::token::SeatToken;
use crate::serve::view::ConfigView;
use crate::serve::wire::{parse_clock, parse_variant};
use std::net::IpAddr;
use tokio::sync::MutexGuard;

/// What a quick game request became.
pub enum Quick<'a> {
    /// A seat, in a room joined or made.
    Paired(Paired<'a>),
    /// The browser already waits for this game in this room (its token
    /// is the browser's, which opens it).
    AlreadyWaiting(String),
}

/// A quick game request's seat: the room, the seat taken in it,
/// and the seat's token; and the turn of pairing, held until the page
/// shows the seat (then a new room is listed, and the next request finds
/// it: two players asking at once meet).
pub struct Paired<'a> {
    /// The room's id.
    pub room: String,
    /// 0 for a new room (its creator), 1 for one joined.
    pub seat: u8,
    /// The seat's token.
    pub token: SeatToken,
    /// Pairing's turn: drop it once the seat is shown.
    pub turn: MutexGuard<'a, ()>,
}

impl Hub {
    /// Pair `name` (from `addr`, in the browser `device`) for a game of
    /// `variant` with `clock` (none, or empty, without): the seat of the
    /// oldest waiting quick game of the same kind that another browser
    /// asked for, or a new room's; or the room where this browser already
    /// waits for such a game.
    pub async fn quick(
        &self,
        addr: IpAddr,
        name: &str,
        device: &str,
        variant: &str,
        clock: Option<&str>,
    ) -> Result<Quick<'_>, String> {
        let device = super::device_hash(device)?;
        // A bad name is said once, not met at every waiting room.
        Player::check_name(name).map_err(|e| e.to_string())?;
        let clock = clock.filter(|c| !c.trim().is_empty());
        let config = RoomConfig {
            game: GameConfig::online(parse_variant(variant)?),
            clock: clock.map(parse_clock).transpose().map_err(|e| e.0)?,
            opponent: Opponent::Anyone,
        };
        let turn = self.pairings.lock().await;
        for room in self.shared.lobby.waiting_like(&ConfigView::of(&config)) {
            // Only quick games: a room from the form may have a colour or
            // a start position its creator chose.
            let Some(asker) = self.quick_rooms.get(&room).map(|d| d.clone()) else {
                continue;
            };
            if asker == device.as_str() {
                return Ok(Quick::AlreadyWaiting(room));
            }
            // Taken meanwhile, or closed: the next one, or a new room.
            if let Ok((seat, token)) = self.join(addr, &room, name).await {
                let seat_taken = Paired {
                    room,
                    seat,
                    token,
                    turn,
                };
                return Ok(Quick::Paired(seat_taken));
            }
        }
        let choice = Choice {
            quick_device: Some(&device),
            ..Choice::default()
        };
        let (room, token) = self.found(addr, name, config, choice).await?;
        Ok(Quick::Paired(Paired {
            room,
            seat: 0,
            token,
            turn,
        }))
    }
}
