//! Time management for game clocks: how long to think on this move.

use std::time::Duration;

/// The clock part of `go`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Our remaining time and increment, in milliseconds.
    pub time: u64,
    pub increment: u64,
    pub moves_to_go: Option<u64>,
}

/// Soft and hard limits for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Start no new iteration after this much (scaled by best-move instability).
    pub optimum: Duration,
    /// Never think longer than this.
    pub maximum: Duration,
}

/// Moves we plan for when the clock gives no `movestogo`.
const HORIZON_MOVES: u64 = 30;

impl TimeBudget {
    /// Budget a move from the clock; `overhead` (the `Move Overhead` option)
    /// is kept back for the transport of every move we may still have to
    /// make, so the clock never falls.
    pub fn for_clock(clock: Clock, overhead: u64) -> TimeBudget {
        let moves = clock
            .moves_to_go
            .unwrap_or(HORIZON_MOVES)
            .clamp(1, HORIZON_MOVES);
        // What we may use at all: the clock minus a reserve for overheads.
        let usable = clock
            .time
            .saturating_sub(overhead.saturating_mul(2).max(overhead + 5));
        // Saturating: the numbers come from the GUI and may be absurd.
        let share = (usable / moves).saturating_add(clock.increment / 4 * 3);
        let optimum = share.min(usable / 2);
        // With few moves to the time control, a long think could flag.
        let hard_cap = if moves == 1 {
            usable / 4 * 3
        } else {
            usable / 3
        };
        let maximum = optimum.saturating_mul(4).min(hard_cap).max(optimum);
        TimeBudget {
            optimum: Duration::from_millis(optimum),
            maximum: Duration::from_millis(maximum),
        }
    }

    /// A fixed time per move (`go movetime`), less the overhead.
    pub fn fixed(movetime: u64, overhead: u64) -> TimeBudget {
        let t = Duration::from_millis(movetime.saturating_sub(overhead).max(1));
        TimeBudget {
            optimum: t,
            maximum: t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_plans_beyond_the_clock() {
        for time in [1, 5, 20, 100, 1000, 60_000] {
            for inc in [0, 10, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let clock = Clock {
                        time,
                        increment: inc,
                        moves_to_go: mtg,
                    };
                    let b = TimeBudget::for_clock(clock, 10);
                    assert!(
                        b.maximum.as_millis() as u64 + 10 <= time.max(10),
                        "{clock:?} {b:?}"
                    );
                    assert!(b.optimum <= b.maximum);
                }
            }
        }
    }

    #[test]
    fn absurd_clocks_do_not_overflow() {
        let clock = Clock {
            time: u64::MAX,
            increment: u64::MAX,
            moves_to_go: Some(1),
        };
        let b = TimeBudget::for_clock(clock, 5000);
        assert!(b.optimum <= b.maximum);
        let fixed = TimeBudget::fixed(u64::MAX, 0);
        assert!(fixed.maximum > Duration::from_secs(1 << 40));
    }

    #[test]
    fn more_time_means_a_longer_think() {
        let short = TimeBudget::for_clock(
            Clock {
                time: 1_000,
                ..Clock::default()
            },
            10,
        );
        let long = TimeBudget::for_clock(
            Clock {
                time: 60_000,
                ..Clock::default()
            },
            10,
        );
        assert!(long.optimum > short.optimum * 10);
    }
}
