//! The pages each seat's player has open on the room, and since when a
//! seat has had none: a player whose opponent has been gone for
//! `--claim-after-seconds` may end the game, won or drawn, as lichess
//! offers when an opponent leaves. Without it a game with no clock that
//! one player left was held open for good, and with a long clock for as
//! long as it ran.

use std::time::{Duration, Instant};

/// The pages of a room's two seats, as the room's task counts them.
#[derive(Clone, Copy, Debug)]
pub struct Presence {
    /// Per seat: the pages open on the room.
    pages: [usize; 2],
    /// Per seat: since when it has had no page on the room, or `None`
    /// while it has one.
    away_since: [Option<Instant>; 2],
    /// How long a seat must be gone before its opponent may claim.
    claim_after: Duration,
}

impl Presence {
    /// Both seats away since `now`: no page has come yet (a room just
    /// made, or brought back after a restart, whose players may never
    /// return).
    pub fn new(claim_after: Duration, now: Instant) -> Presence {
        Presence {
            pages: [0; 2],
            away_since: [Some(now); 2],
            claim_after,
        }
    }

    /// The pages open per seat.
    pub fn pages(&self) -> [usize; 2] {
        self.pages
    }

    /// `seat` opened a page on the room (`delta` 1) or closed one (-1)
    /// at `now`.
    pub fn count(&mut self, seat: u8, delta: isize, now: Instant) {
        let seat = usize::from(seat.min(1));
        let pages = &mut self.pages[seat];
        *pages = pages.saturating_add_signed(delta);
        let since = &mut self.away_since[seat];
        *since = match *pages {
            0 => Some(since.unwrap_or(now)),
            _ => None,
        };
    }

    /// How long `seat` waits at `now` before it may claim the game its
    /// opponent left: zero once it may; `None` while the opponent is
    /// here.
    pub fn claim_in(&self, seat: u8, now: Instant) -> Option<Duration> {
        let since = self.away_since[usize::from(1 - seat.min(1))]?;
        Some(
            self.claim_after
                .saturating_sub(now.saturating_duration_since(since)),
        )
    }

    /// The next instant after `now` at which a seat may claim, if one is
    /// still ahead.
    pub fn next_claim(&self, now: Instant) -> Option<Instant> {
        [0, 1]
            .into_iter()
            .filter_map(|seat| self.claim_in(seat, now))
            .filter(|wait| !wait.is_zero())
            .map(|wait| now + wait)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_opens_once_the_opponent_has_been_gone_long_enough() {
        let t0 = Instant::now();
        let minute = Duration::from_secs(60);
        let mut presence = Presence::new(minute, t0);
        presence.count(0, 1, t0);
        let later = t0 + Duration::from_secs(20);
        assert_eq!(presence.claim_in(1, later), None, "seat 0 is here");
        assert_eq!(presence.claim_in(0, later), Some(Duration::from_secs(40)));
        assert_eq!(presence.next_claim(later), Some(t0 + minute));
        presence.count(1, 1, later);
        presence.count(1, 1, later);
        assert_eq!(presence.pages(), [1, 2]);
        assert_eq!(presence.claim_in(0, later), None, "seat 1 came");
        assert_eq!(presence.next_claim(later), None);
        presence.count(1, -1, later);
        assert_eq!(presence.claim_in(0, later + minute), None, "a page is left");
        presence.count(1, -1, later);
        assert_eq!(presence.claim_in(0, later + minute / 2), Some(minute / 2));
        assert_eq!(
            presence.claim_in(0, later + minute),
            Some(Duration::ZERO),
            "gone since its last page closed"
        );
        assert_eq!(presence.next_claim(later + minute), None, "open already");
    }
}
