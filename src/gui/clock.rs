//! The game clock of `Play` mode: base time plus an increment per move,
//! kept by the server for both sides, as a GUI host keeps it.

use bashni_rules::Colour;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// A time control: `base_ms` for the game, `increment_ms` after each move.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    pub base_ms: u64,
    pub increment_ms: u64,
}

/// Both clocks; the side to move's runs from `since`.
#[derive(Clone, Debug)]
pub struct Clocks {
    left_ms: [i64; 2],
    increment_ms: i64,
    since: Instant,
}

impl Clocks {
    pub fn new(control: TimeControl) -> Clocks {
        let base = control.base_ms as i64;
        Clocks {
            left_ms: [base, base],
            increment_ms: control.increment_ms as i64,
            since: Instant::now(),
        }
    }

    /// The time left now, White's then Black's, with `mover`'s clock running.
    pub fn now(&self, mover: Colour) -> [i64; 2] {
        let mut left = self.left_ms;
        left[mover.index()] -= self.since.elapsed().as_millis() as i64;
        left
    }

    /// `mover` has moved: charge its time, add the increment, start the
    /// other clock. Returns false when the mover's time had run out.
    pub fn moved(&mut self, mover: Colour) -> bool {
        self.left_ms = self.now(mover);
        self.since = Instant::now();
        let in_time = self.left_ms[mover.index()] >= 0;
        self.left_ms[mover.index()] += self.increment_ms;
        in_time
    }

    /// The `go` command for the engine.
    pub fn go_command(&self, mover: Colour) -> String {
        let [white, black] = self.now(mover).map(|ms| ms.max(0));
        let inc = self.increment_ms;
        format!("go wtime {white} btime {black} winc {inc} binc {inc}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_charges_the_mover_and_adds_the_increment() {
        let mut clocks = Clocks::new(TimeControl {
            base_ms: 60_000,
            increment_ms: 1_000,
        });
        assert!(clocks.moved(Colour::White));
        let [white, black] = clocks.now(Colour::Black);
        assert!((60_000..=61_000).contains(&white), "{white}");
        assert!(black <= 60_000 && black > 59_000, "{black}");
        assert!(clocks.go_command(Colour::Black).starts_with("go wtime "));
        assert!(
            clocks
                .go_command(Colour::Black)
                .ends_with(" winc 1000 binc 1000")
        );
        let mut empty = Clocks::new(TimeControl {
            base_ms: 0,
            increment_ms: 0,
        });
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(!empty.moved(Colour::White), "out of time");
    }
}
