//! Every tunable of the search and of the time manager, each defined once
//! with the reason for its value.

/// The deepest the search goes (plies from the root, extensions included).
pub const MAX_PLY: usize = 128;
/// The largest `go depth` (a deeper request is clamped to it).
pub const MAX_DEPTH: u32 = 100;
/// A win at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// The transposition table's default size in MiB: enough for minutes of
/// search at a few M nodes/s without crowding a small machine.
pub const DEFAULT_HASH_MB: usize = 64;

// ---- Search ------------------------------------------------------------

/// Half-width of the first aspiration window in centipawns: about the size
/// of a score change between two iterations in a quiet position.
pub const ASPIRATION_DELTA: i32 = 25;
/// Aspiration windows start at this depth: shallower scores swing too much.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Late move reductions start with the move at this index: the first
/// moves are the table, capture and killer moves, searched in full.
pub const LMR_MIN_MOVES: usize = 4;
/// Late move reductions need this much depth left to be worth a re-search.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Move-ordering bands, highest first: the table move, then captures and
/// promotions, then killers, then quiet moves by history.
pub const ORDER_TT_MOVE: i32 = 1 << 30;
/// Move-ordering score of a capture (above killers and history).
pub const ORDER_CAPTURE: i32 = 1 << 28;
/// Move-ordering score of a killer move.
pub const ORDER_KILLER: i32 = 1 << 26;
/// After this long a MultiPV search reports each line as it completes,
/// so a long search still shows progress.
pub const MULTIPV_PROGRESS_AFTER_MS: u64 = 3_000;

// ---- Time manager ------------------------------------------------------

/// Moves we plan for when the clock gives no `movestogo` (and at most, when
/// it does): the plan is this share of the clock and the increments to
/// come. 15 beat 30 by +45 Elo (SPRT \[0,30\] accepted, 256 games at 1+0.01,
/// docs/benchmarks.md): a column-draughts game is mostly decided in its
/// first twenty moves, so time saved for the end is time wasted.
pub const HORIZON_MOVES: u64 = 15;
/// Kept back from the clock beyond `Move Overhead`, for the process
/// scheduler: the clock must never fall.
pub const CLOCK_RESERVE_MS: u64 = 5;
/// The hard limit is at most this many times the planned time: room for
/// an unstable position without spending several moves' share on one.
pub const HARD_LIMIT_RATIO: u64 = 3;
/// The hard limit never takes more than this part of the clock (in
/// percent), and the plan never more than half of that, with moves to go.
pub const HARD_LIMIT_CLOCK_PERCENT: u64 = 33;
/// With the last move before the time control the hard limit may take this
/// part of the clock (in percent): the clock is refilled after it.
pub const LAST_MOVE_CLOCK_PERCENT: u64 = 75;
/// A stable best move uses this fraction of the plan (Stockfish's
/// best-move stability idea scales it down further): 0.8 left a fifth of
/// every plan unused, and the game ended with most of its clock.
pub const STABLE_FACTOR: f64 = 1.0;
/// Each change of best move (decayed by half per iteration) adds this much
/// of the plan: an unsettled search deserves more time.
pub const INSTABILITY_WEIGHT: f64 = 1.5;
/// How fast old best-move changes are forgotten, per iteration.
pub const INSTABILITY_DECAY: f64 = 0.5;
/// A score that fell by this many centipawns since the previous iteration
/// earns the most extra time (`SCORE_DROP_MAX_FACTOR`): a falling score is
/// a threat the search has just seen.
pub const SCORE_DROP_FULL_CP: i32 = 100;
/// The largest factor a falling score puts on the plan.
pub const SCORE_DROP_MAX_FACTOR: f64 = 1.5;
/// An iteration may start only if it is expected to end within this
/// multiple of the soft limit (and within the hard limit). 1.3 stopped
/// most searches at about half their plan: iteration times grow by 2-3x,
/// so the last one that fits ends well before the soft limit. With 2.0
/// a game uses about 85 % of its planned time, and the hard limit still
/// cuts an iteration that runs long.
pub const NEXT_ITERATION_SLACK: f64 = 2.0;
/// Without two finished iterations to compare, the next is assumed to take
/// this many times the last (a typical effective branching factor).
pub const DEFAULT_GROWTH: f64 = 2.0;
/// Bounds on the measured growth from one iteration to the next: very
/// short iterations are noise.
pub const MIN_GROWTH: f64 = 1.2;
/// The most the soft limit grows by, as a multiple of the plan.
pub const MAX_GROWTH: f64 = 5.0;

// ---- Strength ----------------------------------------------------------

/// The full-strength `Skill Level` (the default).
pub const SKILL_FULL: u32 = 20;
/// `Skill Level` 0..=19 as (plies searched, percent of uniformly random
/// moves). The ladder of rivals of docs/rules.md (depth 1..7 with 30, 15,
/// 7, 3, 1, 0, 0 % random moves) sits at levels 0, 2, 4, 6, 8, 10, 11;
/// the levels between halve the step, and 12..19 search deeper.
pub const SKILL_TABLE: [(u32, u32); 20] = [
    (1, 30),
    (1, 20),
    (2, 15),
    (2, 10),
    (3, 7),
    (3, 5),
    (4, 3),
    (4, 2),
    (5, 1),
    (5, 0),
    (6, 0),
    (7, 0),
    (8, 0),
    (9, 0),
    (10, 0),
    (11, 0),
    (12, 0),
    (13, 0),
    (14, 0),
    (16, 0),
];

/// `UCI_Elo` calibration: (Skill Level, Elo) measured with `bashni match`
/// at 20 ms a move with the default evaluation (the embedded networks),
/// the full engine anchored at 2000: levels 8 and 11 against the full
/// engine since it uses a fixed movetime in full, the lower ones chained
/// from level 8 (docs/strength.md has the games, intervals and commands).
/// Levels 14 and 17 measured no weaker than 20 at that speed, so the
/// levels between 11 and 20 are left out to keep the table increasing.
pub const SKILL_ELO: [(u32, u32); 6] = [
    (0, 542),
    (2, 811),
    (4, 1097),
    (8, 1531),
    (11, 1823),
    (20, 2000),
];

/// Address space a helper thread may take: its stack (2 MiB), a malloc
/// arena of its own (glibc reserves 64 MiB for each) and its worker.
pub const HELPER_ADDRESS_SPACE_MB: usize = 72;

/// Address space left free after the last helper is started, for the
/// threads' own allocations and the rest of the engine.
pub const THREAD_HEADROOM_MB: usize = 64;
