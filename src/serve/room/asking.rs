//! How often a side may ask something of the other, as on lichess: an
//! offer is a question on the opponent's screen, so a draw may be
//! offered once in [`DRAW_OFFER_EVERY_PLIES`], and a declined takeback
//! is not asked again until a move changes the position. Kept for the
//! game being played, and stored beside its offers (a restart lets no
//! question through again).

use crate::serve::store::OffersRecord;
use bashni_rules::Colour;

/// A side that offered a draw may offer again this many plies (ten
/// moves) later.
pub const DRAW_OFFER_EVERY_PLIES: usize = 20;

/// What each side (White's, Black's) asked in the game being played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    /// The ply count at each side's last draw offer.
    draw_offered_at: [Option<usize>; 2],
    /// Whether each side's takeback was declined in this position.
    takeback_declined: [bool; 2],
    /// Whether each seat's (not side's: colours swap) rematch request was
    /// declined once the game was over.
    rematch_declined: [bool; 2],
}

impl Asked {
    /// How many plies `colour` must wait, at ply count `ply`, before it
    /// may offer a draw again (0: it may now).
    pub fn draw_wait(&self, colour: Colour, ply: usize) -> usize {
        self.draw_offered_at[colour.index()]
            .map_or(0, |at| (at + DRAW_OFFER_EVERY_PLIES).saturating_sub(ply))
    }

    /// `colour` offered a draw at ply count `ply`.
    pub fn offered_draw(&mut self, colour: Colour, ply: usize) {
        self.draw_offered_at[colour.index()] = Some(ply);
    }

    /// Whether `colour`'s takeback was declined in this position.
    pub fn takeback_declined(&self, colour: Colour) -> bool {
        self.takeback_declined[colour.index()]
    }

    /// `colour`'s takeback was declined.
    pub fn declined_takeback(&mut self, colour: Colour) {
        self.takeback_declined[colour.index()] = true;
    }

    /// The position changed (a move, a granted takeback): a declined
    /// takeback may be asked again.
    pub fn position_changed(&mut self) {
        self.takeback_declined = [false; 2];
    }

    /// Whether the rematch `seat` asked for was declined.
    pub fn rematch_declined(&self, seat: u8) -> bool {
        self.rematch_declined[usize::from(seat)]
    }

    /// The rematch `seat` asked for was declined.
    pub fn declined_rematch(&mut self, seat: u8) {
        self.rematch_declined[usize::from(seat)] = true;
    }

    /// What was asked, written into the `offers` the store keeps.
    pub fn record_into(&self, offers: &mut OffersRecord) {
        offers.draw_offered_at = self
            .draw_offered_at
            .map(|at| at.map(|ply| u32::try_from(ply).unwrap_or(u32::MAX)));
        offers.takeback_declined = self.takeback_declined;
        offers.rematch_declined = self.rematch_declined;
    }

    /// What was asked when `offers` were stored, in a game now `plies`
    /// long: a declined takeback only if no move was played since.
    pub fn restored(offers: &OffersRecord, plies: usize) -> Asked {
        let same_position = usize::try_from(offers.at_ply) == Ok(plies);
        Asked {
            draw_offered_at: offers
                .draw_offered_at
                .map(|at| at.and_then(|ply| usize::try_from(ply).ok())),
            takeback_declined: match same_position {
                true => offers.takeback_declined,
                false => [false; 2],
            },
            rematch_declined: offers.rematch_declined,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_is_offered_again_twenty_plies_later_and_a_takeback_after_a_move() {
        let mut asked = Asked::default();
        assert_eq!(asked.draw_wait(Colour::White, 4), 0);
        asked.offered_draw(Colour::White, 4);
        assert_eq!(asked.draw_wait(Colour::White, 5), 19);
        assert_eq!(asked.draw_wait(Colour::White, 24), 0);
        assert_eq!(asked.draw_wait(Colour::Black, 5), 0, "the other side's own");
        asked.declined_takeback(Colour::Black);
        assert!(asked.takeback_declined(Colour::Black));
        assert!(!asked.takeback_declined(Colour::White));
        asked.position_changed();
        assert!(!asked.takeback_declined(Colour::Black));
    }

    #[test]
    fn what_was_asked_comes_back_from_the_store_a_declined_takeback_only_in_its_position() {
        let mut asked = Asked::default();
        asked.offered_draw(Colour::Black, 7);
        asked.declined_takeback(Colour::White);
        let mut offers = OffersRecord {
            at_ply: 9,
            ..OffersRecord::default()
        };
        asked.record_into(&mut offers);
        assert_eq!(offers.draw_offered_at, [None, Some(7)]);
        assert_eq!(Asked::restored(&offers, 9), asked);
        let moved_since = Asked::restored(&offers, 10);
        assert_eq!(moved_since.draw_wait(Colour::Black, 10), 17);
        assert!(!moved_since.takeback_declined(Colour::White));
    }
}
