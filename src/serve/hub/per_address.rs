//! How many rooms of a kind each address has at once: games against the
//! engine going, and rooms waiting for an opponent. The engines are
//! shared, and an engine seat's clock runs while it waits for one: one
//! address's dozen engine games at `1+0` kept every other engine seat
//! waiting until it lost on time. The lobby lists so many waiting rooms,
//! and a few addresses could fill it. An engine room counts while its
//! game goes on, again when a rematch starts another (a ladder run is one
//! room, one game at a time), against whoever asks for it; a room of
//! people while it waits in the lobby. A room counts from the moment it
//! is admitted, while it is being stored and opened, so requests at once
//! cannot all pass. Rooms brought back by a restart are not counted
//! (their addresses are not kept).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// The rooms of a kind each address opened.
pub struct AddressRooms {
    /// Per address, its rooms that are opening or still in memory (others
    /// are dropped when counted).
    rooms: Mutex<HashMap<IpAddr, Vec<Counted>>>,
    /// The most rooms that count one address may have.
    most: usize,
    /// The refusal, given `most`.
    refusal: fn(usize) -> String,
}

/// A room of an address's count.
struct Counted {
    id: String,
    /// Admitted and not yet open (or its rematch not yet started): it
    /// counts whatever its state.
    opening: bool,
}

/// Whether a room counts now (`Some(true)`: a game against the engine
/// going, or waiting for its engine; or a room waiting for an opponent),
/// not now (`Some(false)`), or has left memory (`None`).
pub type Counts<'a> = &'a dyn Fn(&str) -> Option<bool>;

/// A room admitted: it counts as opening until this is dropped (once it
/// is open, or failed to), then as it stands.
pub struct Counting<'a> {
    rooms: &'a AddressRooms,
    addr: IpAddr,
    id: String,
}

impl Drop for Counting<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.rooms.rooms.lock()
            && let Some(rooms) = all.get_mut(&self.addr)
        {
            for room in rooms.iter_mut().filter(|r| r.id == self.id) {
                room.opening = false;
            }
        }
    }
}

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

    /// Count room `id` as `addr`'s if the address has fewer than the most
    /// that count: a room about to open, or one about to start another
    /// game (a rematch, which counts against whoever asks for it: a
    /// seat's token goes from one address to another). It counts as
    /// opening while the answer is kept.
    pub fn admit(&self, addr: IpAddr, id: &str, counts: Counts) -> Result<Counting<'_>, String> {
        let mut all = self
            .rooms
            .lock()
            .map_err(|_| "the server is restarting".to_string())?;
        let rooms = all.entry(addr).or_default();
        // One look at each room: kept while opening or in memory, counted
        // if opening or it counts.
        let mut counted = 0;
        rooms.retain(|room| {
            let now = match room.opening {
                true => Some(true),
                false => counts(&room.id),
            };
            counted += usize::from(now == Some(true));
            now.is_some()
        });
        if counted >= self.most {
            if rooms.is_empty() {
                all.remove(&addr);
            }
            return Err((self.refusal)(self.most));
        }
        match rooms.iter_mut().find(|room| room.id == id) {
            Some(room) => room.opening = true,
            None => rooms.push(Counted {
                id: id.to_owned(),
                opening: true,
            }),
        }
        Ok(Counting {
            rooms: self,
            addr,
            id: id.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn states(going: &[(&'static str, Option<bool>)]) -> impl Fn(&str) -> Option<bool> {
        let going = going.to_vec();
        move |id: &str| {
            going
                .iter()
                .find(|(room, _)| *room == id)
                .and_then(|(_, g)| *g)
        }
    }

    #[test]
    fn an_address_has_at_most_so_many_engine_games_going_rematches_too() {
        let games = AddressRooms::engine_games(2);
        let (ann, bob) = (
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V4(Ipv4Addr::BROADCAST),
        );
        let two_going = states(&[("a", Some(true)), ("b", Some(true))]);
        drop(games.admit(ann, "a", &two_going).expect("first"));
        drop(games.admit(ann, "b", &two_going).expect("second"));
        assert!(games.admit(ann, "c", &two_going).is_err(), "a third");
        drop(games.admit(bob, "d", &two_going).expect("another address"));
        // One over: a new room opens; the old one's rematch waits.
        let one_over = states(&[("a", Some(false)), ("b", Some(true)), ("c", Some(true))]);
        drop(games.admit(ann, "c", &one_over).expect("a game ended"));
        assert!(
            games.admit(ann, "a", &one_over).is_err(),
            "a rematch is another game"
        );
        // A rematch counts against whoever asks: Bob, in Ann's room.
        let bob_rooms = states(&[("a", Some(false)), ("d", Some(true)), ("e", Some(true))]);
        drop(games.admit(bob, "e", &bob_rooms).expect("Bob's second"));
        assert!(
            games.admit(bob, "a", &bob_rooms).is_err(),
            "Bob has two going"
        );
        // Rooms that left memory are dropped.
        let left = states(&[("a", Some(false)), ("c", Some(true))]);
        drop(games.admit(ann, "a", &left).expect("b left memory"));
    }

    #[test]
    fn a_room_counts_while_it_opens_though_not_yet_in_memory() {
        let waiting = AddressRooms::waiting_rooms(2);
        let ann = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let none_in_memory = states(&[]);
        let first = waiting.admit(ann, "a", &none_in_memory).expect("first");
        let second = waiting.admit(ann, "b", &none_in_memory).expect("second");
        assert!(
            waiting.admit(ann, "c", &none_in_memory).is_err(),
            "two opening count"
        );
        // Once open, a room counts as it stands; one that failed to open
        // is gone.
        drop((first, second));
        let open = states(&[("a", Some(true)), ("c", Some(true))]);
        drop(waiting.admit(ann, "c", &open).expect("b never opened"));
        assert!(waiting.admit(ann, "d", &open).is_err(), "a and c");
    }
}
