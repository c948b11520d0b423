//! How many games against the engine each address has going. The
//! engines are shared, and an engine seat's clock runs while it waits
//! for one: one address's dozen engine games at `1+0` kept every other
//! engine seat waiting until it lost on time. A room counts while its
//! game goes on, again when a rematch starts another; a ladder run is
//! one room, one game at a time. Rooms brought back by a restart are
//! not counted (their addresses are not kept).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// The engine rooms each address opened.
pub struct EngineGames {
    /// Per address, the rooms it opened against the engine that are
    /// still in memory (others are dropped when counted).
    rooms: Mutex<HashMap<IpAddr, Vec<String>>>,
    /// The most games one address may have going.
    most: usize,
}

/// Whether a room has a game going (`Some(true)`; waiting for its engine
/// too), its game is over (`Some(false)`), or it has left memory
/// (`None`).
pub type Going<'a> = &'a dyn Fn(&str) -> Option<bool>;

impl EngineGames {
    /// No rooms yet; `most` a game going per address.
    pub fn new(most: usize) -> EngineGames {
        EngineGames {
            rooms: Mutex::new(HashMap::new()),
            most,
        }
    }

    /// Count room `id`, about to open, as `addr`'s if it has fewer than
    /// the most games going. The caller opens rooms one at a time (a
    /// room counted here is in memory before the next is counted).
    pub fn admit(&self, addr: IpAddr, id: &str, going: Going) -> Result<(), String> {
        self.with_rooms(addr, going, |rooms, playing| {
            self.refuse_at_most(playing)?;
            rooms.push(id.to_owned());
            Ok(())
        })
    }

    /// Whether `addr` may start another game in its engine room `id` (a
    /// rematch): a room of another address, or not against the engine,
    /// is not this count's.
    pub fn admit_rematch(&self, addr: IpAddr, id: &str, going: Going) -> Result<(), String> {
        self.with_rooms(addr, going, |rooms, playing| {
            match rooms.iter().any(|room| room == id) {
                true => self.refuse_at_most(playing),
                false => Ok(()),
            }
        })
    }

    /// Run `then` on `addr`'s rooms still in memory and the count of
    /// those with a game going; an address left with none is forgotten.
    fn with_rooms(
        &self,
        addr: IpAddr,
        going: Going,
        then: impl FnOnce(&mut Vec<String>, usize) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut all = self
            .rooms
            .lock()
            .map_err(|_| "the server is restarting".to_string())?;
        let rooms = all.entry(addr).or_default();
        // One look at each room: kept while in memory, counted if going.
        let mut playing = 0;
        rooms.retain(|room| match going(room) {
            Some(game_going) => {
                playing += usize::from(game_going);
                true
            }
            None => false,
        });
        let answer = then(rooms, playing);
        if rooms.is_empty() {
            all.remove(&addr);
        }
        answer
    }

    fn refuse_at_most(&self, playing: usize) -> Result<(), String> {
        match playing >= self.most {
            true => Err(format!(
                "at most {} games against the engine at once from one address: finish one first",
                self.most
            )),
            false => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn an_address_has_at_most_so_many_engine_games_going_rematches_too() {
        let games = EngineGames::new(2);
        let (ann, bob) = (
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V4(Ipv4Addr::BROADCAST),
        );
        let states = |going: &[(&'static str, Option<bool>)]| {
            let going = going.to_vec();
            move |id: &str| {
                going
                    .iter()
                    .find(|(room, _)| *room == id)
                    .and_then(|(_, g)| *g)
            }
        };
        let two_going = states(&[("a", Some(true)), ("b", Some(true))]);
        games.admit(ann, "a", &two_going).expect("first");
        games.admit(ann, "b", &two_going).expect("second");
        assert!(games.admit(ann, "c", &two_going).is_err(), "a third");
        games.admit(bob, "d", &two_going).expect("another address");
        // One over: a new room opens; the old one's rematch waits.
        let one_over = states(&[("a", Some(false)), ("b", Some(true)), ("c", Some(true))]);
        games.admit(ann, "c", &one_over).expect("a game ended");
        assert!(
            games.admit_rematch(ann, "a", &one_over).is_err(),
            "a rematch is another game"
        );
        assert!(
            games.admit_rematch(ann, "z", &one_over).is_ok(),
            "not an engine room of Ann's"
        );
        // Rooms that left memory are dropped.
        let left = states(&[("a", Some(false)), ("c", Some(true))]);
        games.admit_rematch(ann, "a", &left).expect("b left memory");
    }
}
