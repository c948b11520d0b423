//! How many rooms of a kind each address has at once: games against the
//! engine going, and rooms waiting for an opponent. The engines are
//! shared, and an engine seat's clock runs while it waits for one: one
//! address's dozen engine games at `1+0` kept every other engine seat
//! waiting until it lost on time. The lobby lists so many waiting rooms,
//! and a few addresses could fill it. An engine room counts while its
//! game goes on, again when a rematch starts another (a ladder run is one
//! room, one game at a time); a room of people while it waits. Rooms
//! brought back by a restart are not counted (their addresses are not
//! kept).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// The rooms of a kind each address opened.
pub struct AddressRooms {
    /// Per address, the rooms it opened that are still in memory (others
    /// are dropped when counted).
    rooms: Mutex<HashMap<IpAddr, Vec<String>>>,
    /// The most rooms that count one address may have.
    most: usize,
    /// The refusal, given `most`.
    refusal: fn(usize) -> String,
}

/// Whether a room counts now (`Some(true)`: a game against the engine
/// going, or waiting for its engine; or a room waiting for an opponent),
/// not now (`Some(false)`), or has left memory (`None`).
pub type Counts<'a> = &'a dyn Fn(&str) -> Option<bool>;

impl AddressRooms {
    /// No rooms yet; `most` rooms that count per address, refused in the
    /// words of `refusal`.
    pub fn new(most: usize, refusal: fn(usize) -> String) -> AddressRooms {
        AddressRooms {
            rooms: Mutex::new(HashMap::new()),
            most,
            refusal,
        }
    }

    /// At most `most` games against the engine going.
    pub fn engine_games(most: usize) -> AddressRooms {
        AddressRooms::new(most, |most| {
            format!(
                "at most {most} games against the engine at once from one address: finish one first"
            )
        })
    }

    /// At most `most` rooms waiting for an opponent.
    pub fn waiting_rooms(most: usize) -> AddressRooms {
        AddressRooms::new(most, |most| {
            format!(
                "at most {most} rooms waiting for an opponent at once from one address: close one first"
            )
        })
    }

    /// Count room `id`, about to open, as `addr`'s if it has fewer than
    /// the most that count. The caller opens rooms one at a time (a room
    /// counted here is in memory before the next is counted).
    pub fn admit(&self, addr: IpAddr, id: &str, counts: Counts) -> Result<(), String> {
        self.with_rooms(addr, counts, |rooms, counted| {
            self.refuse_at_most(counted)?;
            rooms.push(id.to_owned());
            Ok(())
        })
    }

    /// Whether `addr` may start another game in its room `id` (a
    /// rematch): a room of another address, or not of this kind, is not
    /// this count's.
    pub fn admit_again(&self, addr: IpAddr, id: &str, counts: Counts) -> Result<(), String> {
        self.with_rooms(addr, counts, |rooms, counted| {
            match rooms.iter().any(|room| room == id) {
                true => self.refuse_at_most(counted),
                false => Ok(()),
            }
        })
    }

    /// Run `then` on `addr`'s rooms still in memory and the count of
    /// those that count; an address left with none is forgotten.
    fn with_rooms(
        &self,
        addr: IpAddr,
        counts: Counts,
        then: impl FnOnce(&mut Vec<String>, usize) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut all = self
            .rooms
            .lock()
            .map_err(|_| "the server is restarting".to_string())?;
        let rooms = all.entry(addr).or_default();
        // One look at each room: kept while in memory, counted if it counts.
        let mut counted = 0;
        rooms.retain(|room| match counts(room) {
            Some(now) => {
                counted += usize::from(now);
                true
            }
            None => false,
        });
        let answer = then(rooms, counted);
        if rooms.is_empty() {
            all.remove(&addr);
        }
        answer
    }

    fn refuse_at_most(&self, counted: usize) -> Result<(), String> {
        match counted >= self.most {
            true => Err((self.refusal)(self.most)),
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
        let games = AddressRooms::engine_games(2);
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
            games.admit_again(ann, "a", &one_over).is_err(),
            "a rematch is another game"
        );
        assert!(
            games.admit_again(ann, "z", &one_over).is_ok(),
            "not an engine room of Ann's"
        );
        // Rooms that left memory are dropped.
        let left = states(&[("a", Some(false)), ("c", Some(true))]);
        games.admit_again(ann, "a", &left).expect("b left memory");
    }
}
