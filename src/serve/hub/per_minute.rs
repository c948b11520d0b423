//! How often each address did something in the last minute: rooms
//! created, and stored rooms brought back into memory. An address that
//! did nothing for a minute is forgotten, so the map holds only the
//! addresses of the last minute.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The times each address did the thing, over the last minute.
pub struct PerMinute {
    times: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    /// The most times a minute one address may.
    most: usize,
}

/// A minute.
const MINUTE: Duration = Duration::from_secs(60);

impl PerMinute {
    /// At most `most` times a minute per address.
    pub fn new(most: usize) -> PerMinute {
        PerMinute {
            times: Mutex::new(HashMap::new()),
            most,
        }
    }

    /// Count one more for `addr` at `now`, if it has not done it `most`
    /// times in the minute before; `Err(most)` if it has.
    pub fn take(&self, addr: IpAddr, now: Instant) -> Result<(), usize> {
        let Ok(mut all) = self.times.lock() else {
            return Err(self.most);
        };
        let minute_ago = now.checked_sub(MINUTE);
        let recent = |t: &Instant| Some(*t) >= minute_ago;
        all.retain(|_, times| {
            while times.front().is_some_and(|t| !recent(t)) {
                times.pop_front();
            }
            !times.is_empty()
        });
        let times = all.entry(addr).or_default();
        if times.len() >= self.most {
            return Err(self.most);
        }
        times.push_back(now);
        Ok(())
    }

    /// The addresses remembered.
    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.times.lock().map_or(0, |all| all.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_held_to_its_rate_and_forgotten_after_a_minute() {
        let window = PerMinute::new(2);
        let (ann, bob): (IpAddr, IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let start = Instant::now();
        assert_eq!(window.take(ann, start), Ok(()));
        assert_eq!(window.take(ann, start + Duration::from_secs(1)), Ok(()));
        assert_eq!(window.take(ann, start + Duration::from_secs(2)), Err(2));
        assert_eq!(window.take(bob, start + Duration::from_secs(2)), Ok(()));
        assert_eq!(window.addresses(), 2);
        // Over a minute after its first, one more is allowed.
        assert_eq!(window.take(ann, start + Duration::from_secs(61)), Ok(()));
        // A minute after all of them, an address is forgotten.
        assert_eq!(window.take(bob, start + Duration::from_secs(125)), Ok(()));
        assert_eq!(window.addresses(), 1);
    }
}
