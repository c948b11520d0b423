//! Time management for game clocks: how long to think on this move.
//!
//! A move gets a plan (`optimum`) and a hard limit (`maximum`). Between
//! iterations the plan is scaled by how settled the search is (best-move
//! changes, a falling score) into a soft limit; a new iteration starts only
//! if it is expected to end in time. Inside the search only the hard limit
//! is checked.

use super::params::{
    CLOCK_RESERVE_MS, DEFAULT_GROWTH, HARD_LIMIT_CLOCK_PERCENT, HARD_LIMIT_RATIO, HORIZON_MOVES,
    INSTABILITY_DECAY, INSTABILITY_WEIGHT, LAST_MOVE_CLOCK_PERCENT, MAX_GROWTH, MIN_GROWTH,
    NEXT_ITERATION_SLACK, SCORE_DROP_FULL_CP, SCORE_DROP_MAX_FACTOR, STABLE_FACTOR,
};
use std::time::Duration;

/// The clock part of `go`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Our remaining time and increment, in milliseconds.
    pub time: u64,
    /// Increment per move, in milliseconds.
    pub increment: u64,
    /// Moves until the next time control, if the clock has one.
    pub moves_to_go: Option<u64>,
}

/// The plan and the hard limit for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// The planned time, before scaling by the search's stability.
    pub optimum: Duration,
    /// Never think longer than this.
    pub maximum: Duration,
}

fn percent(value: u64, percent: u64) -> u64 {
    (value / 100).saturating_mul(percent) + value % 100 * percent / 100
}

impl TimeBudget {
    /// Budget a move from the clock. `overhead` (the `Move Overhead`
    /// option) is kept back for every move still to be made before the
    /// clock is refilled, so the transport of moves never flags.
    pub fn for_clock(clock: Clock, overhead: u64) -> TimeBudget {
        let moves = clock
            .moves_to_go
            .unwrap_or(HORIZON_MOVES)
            .clamp(1, HORIZON_MOVES);
        // What this move may use at all.
        let usable = clock
            .time
            .saturating_sub(overhead.saturating_add(CLOCK_RESERVE_MS));
        // The time until the control (or over the horizon): the clock plus
        // the increments still to come, less one overhead per move.
        // Saturating: the numbers come from the GUI and may be absurd.
        let pool = clock
            .time
            .saturating_add(clock.increment.saturating_mul(moves - 1))
            .saturating_sub(
                overhead
                    .saturating_add(CLOCK_RESERVE_MS)
                    .saturating_mul(moves + 1),
            );
        let cap = if moves == 1 {
            percent(usable, LAST_MOVE_CLOCK_PERCENT)
        } else {
            percent(usable, HARD_LIMIT_CLOCK_PERCENT)
        };
        let optimum = (pool / moves).min(cap / 2).max(u64::from(usable > 0));
        let maximum = optimum
            .saturating_mul(HARD_LIMIT_RATIO)
            .min(cap)
            .max(optimum);
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

    /// A fixed time per move, which is used in full (a clock's plan and
    /// hard limit differ).
    pub fn is_fixed(&self) -> bool {
        self.optimum == self.maximum
    }

    /// The soft limit after an iteration: the plan scaled by the search's
    /// instability (see `Progress`), never beyond the hard limit.
    pub fn soft_limit(&self, instability: f64, score_drop: i32) -> Duration {
        if self.is_fixed() {
            return self.maximum;
        }
        let stability = STABLE_FACTOR + instability * INSTABILITY_WEIGHT;
        let fall = score_drop.clamp(0, SCORE_DROP_FULL_CP) as f64 / SCORE_DROP_FULL_CP as f64;
        let drop = 1.0 + (SCORE_DROP_MAX_FACTOR - 1.0) * fall;
        self.optimum.mul_f64(stability * drop).min(self.maximum)
    }
}

/// What the time manager learns from each finished iteration.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Best-move changes, each halved per iteration since.
    pub instability: f64,
    last_best: Option<bashni_rules::Move>,
    last_score: Option<i32>,
    /// When the last iteration ended (since the start).
    last_end: Duration,
    /// How long the last two iterations took, older first.
    durations: [Option<Duration>; 2],
}

impl Progress {
    /// Record an iteration that ended at `elapsed` with `best` and `score`;
    /// returns the score drop since the previous one (0 if it rose).
    pub fn record(&mut self, best: bashni_rules::Move, score: i32, elapsed: Duration) -> i32 {
        if self.last_best.is_some_and(|b| b != best) {
            self.instability += 1.0;
        }
        self.instability *= INSTABILITY_DECAY;
        self.last_best = Some(best);
        let drop = self.last_score.map_or(0, |s| (s - score).max(0));
        self.last_score = Some(score);
        let took = elapsed.saturating_sub(self.last_end);
        self.durations = [self.durations[1], Some(took)];
        self.last_end = elapsed;
        drop
    }

    /// How long the next iteration is expected to take: the last one times
    /// the growth from the one before.
    pub fn predicted_next(&self) -> Duration {
        let [before, Some(last)] = self.durations else {
            return Duration::ZERO;
        };
        let growth = match before {
            Some(b) if b > Duration::ZERO => {
                (last.as_secs_f64() / b.as_secs_f64()).clamp(MIN_GROWTH, MAX_GROWTH)
            }
            _ => DEFAULT_GROWTH,
        };
        last.mul_f64(growth)
    }
}

/// Whether to start another iteration at `elapsed`: not once the soft limit
/// is reached, nor when the next iteration is not expected to end within
/// the soft limit's slack and the hard limit. A fixed movetime is used to
/// its end, as in Stockfish: the time is granted whatever the search does
/// with it, and an iteration the hard limit cuts still answers with the
/// root move it finished best. (Stopping at the last iteration predicted
/// to fit left about 35 % of a 10 ms or 290 ms search unused, and more
/// with two threads, whose iteration times vary more.)
pub fn start_next_iteration(
    budget: &TimeBudget,
    soft: Duration,
    elapsed: Duration,
    predicted: Duration,
) -> bool {
    if budget.is_fixed() {
        return elapsed < budget.maximum;
    }
    let finish = elapsed + predicted;
    elapsed < soft && finish <= soft.mul_f64(NEXT_ITERATION_SLACK).min(budget.maximum)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time: u64, increment: u64, moves_to_go: Option<u64>) -> Clock {
        Clock {
            time,
            increment,
            moves_to_go,
        }
    }

    #[test]
    fn never_plans_beyond_the_clock() {
        for time in [1, 5, 20, 100, 1000, 60_000] {
            for inc in [0, 10, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    for overhead in [0, 10, 100] {
                        let c = clock(time, inc, mtg);
                        let b = TimeBudget::for_clock(c, overhead);
                        assert!(
                            b.maximum.as_millis() as u64 + overhead + CLOCK_RESERVE_MS
                                <= time.max(overhead + CLOCK_RESERVE_MS),
                            "{c:?} {b:?}"
                        );
                        assert!(b.optimum <= b.maximum);
                    }
                }
            }
        }
    }

    #[test]
    fn ten_seconds_plan_a_fifteenth_and_cap_at_three_times() {
        let b = TimeBudget::for_clock(clock(10_000, 0, None), 10);
        // (10000 - 16 x 15) / 15 = 650 ms planned, hard limit 3x.
        assert_eq!(b.optimum, Duration::from_millis(650));
        assert_eq!(b.maximum, Duration::from_millis(1950));
    }

    #[test]
    fn increments_and_moves_to_go_count() {
        let plain = TimeBudget::for_clock(clock(10_000, 0, None), 10);
        let inc = TimeBudget::for_clock(clock(10_000, 100, None), 10);
        assert!(inc.optimum > plain.optimum + Duration::from_millis(90));
        let few = TimeBudget::for_clock(clock(10_000, 0, Some(5)), 10);
        assert!(few.optimum > plain.optimum * 2);
        // The hard limit stays a third of the clock.
        assert!(few.maximum <= Duration::from_millis(3300));
    }

    #[test]
    fn overhead_is_kept_back_for_every_move() {
        let none = TimeBudget::for_clock(clock(1_000, 10, None), 0);
        let some = TimeBudget::for_clock(clock(1_000, 10, None), 20);
        assert!(some.optimum + Duration::from_millis(15) <= none.optimum);
    }

    #[test]
    fn absurd_clocks_do_not_overflow() {
        let b = TimeBudget::for_clock(clock(u64::MAX, u64::MAX, Some(1)), 5000);
        assert!(b.optimum <= b.maximum);
        let b = TimeBudget::for_clock(clock(u64::MAX, u64::MAX, None), u64::MAX);
        assert!(b.optimum <= b.maximum);
        let fixed = TimeBudget::fixed(u64::MAX, 0);
        assert!(fixed.maximum > Duration::from_secs(1 << 40));
    }

    #[test]
    fn more_time_means_a_longer_think() {
        let short = TimeBudget::for_clock(clock(1_000, 0, None), 10);
        let long = TimeBudget::for_clock(clock(60_000, 0, None), 10);
        assert!(long.optimum > short.optimum * 10);
    }

    #[test]
    fn soft_limit_grows_with_instability_and_a_falling_score() {
        let b = TimeBudget::for_clock(clock(60_000, 0, None), 10);
        // A settled search gets its plan, no more.
        let settled = b.soft_limit(0.0, 0);
        assert_eq!(settled, b.optimum);
        assert!(b.soft_limit(1.0, 0) > b.optimum);
        assert!(b.soft_limit(0.0, 200) > settled);
        assert_eq!(
            b.soft_limit(0.0, 200),
            b.soft_limit(0.0, SCORE_DROP_FULL_CP)
        );
        assert_eq!(b.soft_limit(100.0, 1000), b.maximum);
        // A fixed movetime is not scaled.
        let fixed = TimeBudget::fixed(500, 10);
        assert_eq!(fixed.soft_limit(0.0, 0), Duration::from_millis(490));
    }

    #[test]
    fn progress_tracks_changes_drops_and_growth() {
        let start = bashni_rules::Position::start(&bashni_rules::RuleSet::default());
        let moves = start.legal_moves();
        let mut p = Progress::default();
        assert_eq!(p.record(moves[0], 50, Duration::from_millis(10)), 0);
        // One iteration known: the next is assumed to take twice as long.
        assert_eq!(p.predicted_next(), Duration::from_millis(20));
        assert_eq!(p.record(moves[1], 20, Duration::from_millis(40)), 30);
        assert!(p.instability > 0.0);
        // 10 ms then 30 ms: growth 3, so 90 ms next.
        assert_eq!(p.predicted_next(), Duration::from_millis(90));
        p.record(moves[1], 25, Duration::from_millis(140));
        p.record(moves[1], 25, Duration::from_millis(500));
        assert!(p.instability < 0.2);
        // 100 ms then 360 ms: growth 3.6.
        assert_eq!(p.predicted_next(), Duration::from_millis(1296));
    }

    #[test]
    fn an_iteration_that_cannot_end_in_time_is_not_started() {
        let b = TimeBudget::for_clock(clock(10_000, 0, None), 10);
        let soft = b.optimum;
        assert!(start_next_iteration(&b, soft, soft / 4, soft / 2));
        // Before the plan, but the next would end past twice the plan.
        assert!(!start_next_iteration(&b, soft, soft / 2, soft * 2));
        // Within twice the soft limit, but past the hard limit.
        let unstable = b.maximum.mul_f64(0.9);
        assert!(!start_next_iteration(&b, unstable, soft, b.maximum));
        // A fixed movetime goes on whatever the prediction, until its end.
        let fixed = TimeBudget::fixed(500, 10);
        let limit = fixed.maximum;
        assert!(start_next_iteration(&fixed, limit, limit / 2, limit * 10));
        assert!(!start_next_iteration(&fixed, limit, limit, Duration::ZERO));
        // Past the plan: never.
        assert!(!start_next_iteration(
            &b,
            soft,
            soft + soft / 100,
            Duration::ZERO
        ));
    }
}
