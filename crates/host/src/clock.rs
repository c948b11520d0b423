//! Time controls and the game clocks a host keeps for both sides.
//!
//! One rule for an overdrawn clock: the host may let a side's clock fall
//! below zero by a margin it grants (pipe and scheduling delays are not
//! the engine's fault), and such a clock is sent to the engine as 1 ms,
//! never 0 or less. Negative times are not protocol, and 0 is read by some
//! engines as "no clock given" (Stockfish's time management switches on
//! only when `wtime` or `btime` is non-zero), which would turn an almost
//! lost clock into an unlimited search; 1 ms says "a clock, and it is
//! empty", so every engine moves at once.

use crate::Error;
use crate::protocol::Go;
use bashni_rules::Colour;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The least time a clock is sent as (see the module's rule).
pub const MIN_SENT_MS: i64 = 1;

/// A game clock: `base_ms` for the first `moves` moves (0 = the whole
/// game), plus `increment_ms` after every move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct TimeControl {
    /// Moves per period; 0 for one period for the whole game.
    #[cfg_attr(feature = "serde", serde(default))]
    pub moves: u32,
    /// The time of each period, in milliseconds.
    pub base_ms: u64,
    /// Added after every move, in milliseconds.
    pub increment_ms: u64,
}

/// `[moves/]base[+inc]` in seconds, as the command line writes it.
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.moves > 0 {
            write!(f, "{}/", self.moves)?;
        }
        write!(f, "{}", self.base_ms as f64 / 1000.0)?;
        if self.increment_ms > 0 {
            write!(f, "+{}", self.increment_ms as f64 / 1000.0)?;
        }
        Ok(())
    }
}

/// The inverse of `Display`: `40/60+0.6`, `10+0.1`, `5`.
impl FromStr for TimeControl {
    type Err = Error;

    fn from_str(text: &str) -> Result<TimeControl, Error> {
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (moves_per_period(m)?, rest),
            None => (0, text),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let base_ms = milliseconds(base, "base time")?;
        if base_ms == 0 {
            return Err(Error::TimeControl("base time must be above zero".into()));
        }
        Ok(TimeControl {
            moves,
            base_ms,
            increment_ms: milliseconds(increment, "increment")?,
        })
    }
}

fn moves_per_period(text: &str) -> Result<u32, Error> {
    text.parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(|| {
        Error::TimeControl(format!(
            "moves per period '{text}' must be a positive integer"
        ))
    })
}

fn milliseconds(text: &str, what: &str) -> Result<u64, Error> {
    let secs: f64 = text
        .parse()
        .map_err(|_| Error::TimeControl(format!("{what} '{text}' is not a number of seconds")))?;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(Error::TimeControl(format!(
            "{what} '{text}' is out of range"
        )));
    }
    Ok((secs * 1000.0).round() as u64)
}

/// What charging a move did to the mover's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Charge {
    /// The move came in time (within the margin); the increment was added.
    InTime,
    /// The clock fell more than the margin below zero: lost on time.
    Flagged,
}

/// Both sides' clocks, under one time control or one each (time odds).
/// Time is given to it (the caller measures), so it never reads a clock
/// itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// White's time control, then Black's.
    controls: [TimeControl; 2],
    /// Milliseconds left, White's then Black's; negative once overdrawn
    /// within the margin.
    left_ms: [i64; 2],
    moves_made: [u32; 2],
}

impl Clocks {
    /// Both clocks full under `control`, no move made.
    pub fn new(control: TimeControl) -> Clocks {
        Clocks::with_odds([control; 2])
    }

    /// Time odds: each side its own control, White's first; both clocks
    /// full, no move made.
    pub fn with_odds(controls: [TimeControl; 2]) -> Clocks {
        Clocks {
            controls,
            left_ms: controls.map(|c| ms(c.base_ms)),
            moves_made: [0; 2],
        }
    }

    /// The time control of `side`.
    pub fn control(&self, side: Colour) -> TimeControl {
        self.controls[side.index()]
    }

    /// The time left, White's then Black's, in milliseconds (negative when
    /// overdrawn).
    pub fn left_ms(&self) -> [i64; 2] {
        self.left_ms
    }

    /// The time left while `side` has been thinking for `thinking`, as a
    /// running clock shows it.
    pub fn left_while(&self, side: Colour, thinking: Duration) -> [i64; 2] {
        let mut left = self.left_ms;
        left[side.index()] -= ms(thinking.as_millis());
        left
    }

    /// How long `side` may think before it has lost on time.
    pub fn deadline(&self, side: Colour, margin: Duration) -> Duration {
        let left = self.left_ms[side.index()].max(0).unsigned_abs();
        Duration::from_millis(left) + margin
    }

    /// Charge `side`'s move that took `elapsed`: take the time, and unless
    /// the clock fell more than `margin` below zero, add the increment and
    /// start a new period when one is used up.
    pub fn charge(&mut self, side: Colour, elapsed: Duration, margin: Duration) -> Charge {
        let i = side.index();
        self.left_ms[i] -= ms(elapsed.as_millis());
        if self.left_ms[i] < -ms(margin.as_millis()) {
            return Charge::Flagged;
        }
        let tc = self.controls[i];
        self.left_ms[i] += ms(tc.increment_ms);
        self.moves_made[i] += 1;
        if tc.moves > 0 && self.moves_made[i].is_multiple_of(tc.moves) {
            self.left_ms[i] += ms(tc.base_ms);
        }
        Charge::InTime
    }

    /// Take `time` from `side`'s clock without a move: no increment, no
    /// move counted towards a period. Time spent on moves that a takeback
    /// undid stays spent, while the increments those moves earned come
    /// again when they are played again.
    pub fn spend(&mut self, side: Colour, time: Duration) {
        let left = &mut self.left_ms[side.index()];
        *left = left.saturating_sub(ms(time.as_millis()));
    }

    /// The `go` for `side` to move: both clocks (an overdrawn one as
    /// `MIN_SENT_MS`), the increments unless both are zero, and the moves
    /// to the end of `side`'s period under `moves/`.
    pub fn go(&self, side: Colour) -> Go {
        self.go_while(side, Duration::ZERO)
    }

    /// The `go` for `side` to move once it has been thinking for
    /// `thinking` already (a host whose clock runs before the search
    /// starts).
    pub fn go_while(&self, side: Colour, thinking: Duration) -> Go {
        let left = self.left_while(side, thinking);
        let [wtime, btime] = left.map(|t| t.max(MIN_SENT_MS).unsigned_abs());
        let tc = self.control(side);
        let made = self.moves_made[side.index()];
        let moves_to_go = (tc.moves > 0).then(|| tc.moves - made % tc.moves);
        Go::Clock {
            wtime,
            btime,
            winc: self.controls[0].increment_ms,
            binc: self.controls[1].increment_ms,
            moves_to_go,
        }
    }
}

/// Milliseconds as the signed clock counts them (saturating: a clock of
/// 292 million years is as good as endless).
fn ms(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARGIN: Duration = Duration::from_millis(50);

    fn clock(moves: u32, base_ms: u64, increment_ms: u64) -> Clocks {
        Clocks::new(TimeControl {
            moves,
            base_ms,
            increment_ms,
        })
    }

    fn go(c: &Clocks, side: Colour) -> String {
        c.go(side).to_string()
    }

    fn charge(c: &mut Clocks, side: Colour, ms: u64) -> Charge {
        c.charge(side, Duration::from_millis(ms), MARGIN)
    }

    #[test]
    fn time_control_forms() {
        let tc = |moves, base_ms, increment_ms| TimeControl {
            moves,
            base_ms,
            increment_ms,
        };
        assert_eq!("40/60+0.6".parse(), Ok(tc(40, 60_000, 600)));
        assert_eq!("10+0.1".parse(), Ok(tc(0, 10_000, 100)));
        assert_eq!("5".parse(), Ok(tc(0, 5_000, 0)));
        assert_eq!(tc(40, 60_000, 600).to_string(), "40/60+0.6");
        for bad in ["", "0", "x+1", "10+y", "0/10", "-5", "10+-1", "a/10"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks_charge_and_add_the_increment() {
        let mut c = clock(0, 10_000, 100);
        assert_eq!(
            go(&c, Colour::White),
            "go wtime 10000 btime 10000 winc 100 binc 100"
        );
        assert_eq!(charge(&mut c, Colour::White, 400), Charge::InTime);
        assert_eq!(c.left_ms(), [9_700, 10_000]);
        assert_eq!(
            c.deadline(Colour::White, MARGIN),
            Duration::from_millis(9_750)
        );
        let running = c.left_while(Colour::Black, Duration::from_millis(30));
        assert_eq!(running, [9_700, 9_970]);
    }

    #[test]
    fn an_overdrawn_clock_is_sent_as_one_millisecond() {
        // 40 ms over the clock is inside the margin; 60 ms is not.
        let mut c = clock(0, 1_000, 0);
        assert_eq!(charge(&mut c, Colour::Black, 1_040), Charge::InTime);
        assert_eq!(c.left_ms(), [1_000, -40]);
        assert_eq!(go(&c, Colour::White), "go wtime 1000 btime 1");
        assert_eq!(c.deadline(Colour::Black, MARGIN), MARGIN);
        let mut c = clock(0, 1_000, 0);
        assert_eq!(charge(&mut c, Colour::Black, 1_060), Charge::Flagged);
        let mut exact = clock(0, 1_000, 0);
        let no_margin = exact.charge(Colour::White, Duration::from_millis(1_000), Duration::ZERO);
        assert_eq!(no_margin, Charge::InTime);
        assert_eq!(go(&exact, Colour::Black), "go wtime 1 btime 1000");
    }

    #[test]
    fn time_odds_give_each_side_its_own_clock() {
        let tc = |s: &str| s.parse::<TimeControl>().expect("a time control");
        let mut c = Clocks::with_odds([tc("20+0.2"), tc("10+0.1")]);
        assert_eq!(c.control(Colour::Black), tc("10+0.1"));
        assert_eq!(
            go(&c, Colour::White),
            "go wtime 20000 btime 10000 winc 200 binc 100"
        );
        let _ = charge(&mut c, Colour::White, 1_000);
        let _ = charge(&mut c, Colour::Black, 1_000);
        assert_eq!(c.left_ms(), [19_200, 9_100]);
        let sudden = Clocks::with_odds([tc("5"), tc("5+1")]);
        assert_eq!(
            go(&sudden, Colour::Black),
            "go wtime 5000 btime 5000 winc 0 binc 1000"
        );
        let even = Clocks::with_odds([tc("5"), tc("5")]);
        assert_eq!(go(&even, Colour::Black), "go wtime 5000 btime 5000");
    }

    #[test]
    fn clocks_refill_after_each_period() {
        let mut c = clock(2, 1_000, 0);
        assert_eq!(
            go(&c, Colour::White),
            "go wtime 1000 btime 1000 movestogo 2"
        );
        let _ = charge(&mut c, Colour::White, 300);
        assert_eq!(go(&c, Colour::Black), "go wtime 700 btime 1000 movestogo 2");
        let _ = charge(&mut c, Colour::Black, 100);
        assert_eq!(go(&c, Colour::White), "go wtime 700 btime 900 movestogo 1");
        let _ = charge(&mut c, Colour::White, 300);
        // White's second move ends its period: 400 + 1000, a fresh period.
        assert_eq!(c.left_ms(), [1_400, 900]);
        assert_eq!(go(&c, Colour::Black), "go wtime 1400 btime 900 movestogo 1");
        let _ = charge(&mut c, Colour::Black, 100);
        assert_eq!(
            go(&c, Colour::White),
            "go wtime 1400 btime 1800 movestogo 2"
        );
    }

    #[test]
    fn time_spent_without_a_move_earns_nothing() {
        let mut c = clock(2, 1_000, 100);
        c.spend(Colour::White, Duration::from_millis(300));
        assert_eq!(c.left_ms(), [700, 1_000]);
        // No increment, and the period still has both its moves to go.
        assert_eq!(
            go(&c, Colour::White),
            "go wtime 700 btime 1000 winc 100 binc 100 movestogo 2"
        );
        c.spend(Colour::Black, Duration::MAX);
        c.spend(Colour::Black, Duration::MAX);
        assert_eq!(c.left_ms(), [700, i64::MIN], "saturated, not wrapped");
    }
}
