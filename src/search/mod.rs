//! Iterative deepening with aspiration windows over a principal-variation
//! search, shared by Lazy SMP threads through the transposition table.
//!
//! The search knows nothing of the protocol: it takes a position, the keys
//! of the game so far, limits and a callback for progress reports, and
//! returns the move it chose.

mod time;
mod worker;

pub use time::{Clock, TimeBudget};

use crate::rules::{DrawRules, Move, Position};
use crate::tt::{Bound, Table};
use rand::RngExt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use worker::{RootMove, Worker};

/// The deepest the search goes (plies from the root, extensions included).
pub const MAX_PLY: usize = 128;
/// The largest `go depth`.
pub const MAX_DEPTH: u32 = 100;
/// A win at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;

/// Whether a score is a forced win or loss.
pub fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE - MAX_PLY as i32 * 2
}

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub clock: Option<Clock>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub search_moves: Vec<Move>,
}

/// How the engine is set up (the protocol's options).
#[derive(Clone, Debug)]
pub struct Config {
    pub threads: usize,
    pub multi_pv: usize,
    /// 0 = full strength; 1..=7 the seed 004 ladder.
    pub skill_level: u32,
    pub move_overhead: u64,
    pub draw_rules: DrawRules,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            multi_pv: 1,
            skill_level: 0,
            move_overhead: 10,
            draw_rules: DrawRules::for_variant(crate::rules::Variant::Bashni),
        }
    }
}

/// Signals the protocol sends to a running search.
#[derive(Debug, Default)]
pub struct Signals {
    pub stop: AtomicBool,
    pub ponderhit: AtomicBool,
}

/// One line of progress (one `info` line).
#[derive(Clone, Debug)]
pub struct Report {
    pub depth: u32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    /// Set when the score is only a bound (aspiration fail).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub elapsed: Duration,
    pub pv: Vec<Move>,
}

/// The search's answer.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    /// Set when Skill Level replaced the best move by a random one.
    pub random_move: bool,
}

/// State shared by the threads of one search.
pub(crate) struct Shared<'a, T: Table> {
    tt: &'a T,
    signals: &'a Signals,
    /// Set by the main thread to end the helpers (and by the limits).
    halt: AtomicBool,
    pondering: bool,
    start: Instant,
    /// When the ponder hit arrived: the clock runs from then.
    ponder_start: Mutex<Option<Instant>>,
    hard_limit: Option<Duration>,
    node_limit: Option<u64>,
    helper_nodes: AtomicU64,
    main_nodes: AtomicU64,
    /// Time and node limits wait for depth 1, so there is always a searched move.
    first_iteration_done: AtomicBool,
    /// The deepest iteration a helper has completed (single-PV searches).
    helper_best: Mutex<Option<HelperResult>>,
}

/// A helper's completed iteration, which the main thread may adopt.
struct HelperResult {
    depth: i32,
    score: i32,
    seldepth: usize,
    pv: Vec<Move>,
}

impl<T: Table> Shared<'_, T> {
    fn publish_nodes(&self, main: bool, nodes: u64) {
        if main {
            self.main_nodes.store(nodes, Ordering::Relaxed);
        } else {
            self.helper_nodes.fetch_add(256, Ordering::Relaxed);
        }
    }

    /// A helper finished `depth`: keep its answer if it is the deepest.
    fn offer(&self, depth: i32, best: &RootMove) {
        let mut slot = self.helper_best.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|h| depth > h.depth) {
            *slot = Some(HelperResult {
                depth,
                score: best.score,
                seldepth: best.seldepth,
                pv: best.pv.clone(),
            });
        }
    }

    fn total_nodes(&self) -> u64 {
        self.main_nodes.load(Ordering::Relaxed) + self.helper_nodes.load(Ordering::Relaxed)
    }

    /// Time on the clock since the search (or the ponder hit) started;
    /// `None` while pondering, when no clock runs.
    fn clock_elapsed(&self) -> Option<Duration> {
        if self.pondering {
            if !self.signals.ponderhit.load(Ordering::Relaxed) {
                return None;
            }
            let mut start = self.ponder_start.lock().unwrap_or_else(|e| e.into_inner());
            return Some(start.get_or_insert_with(Instant::now).elapsed());
        }
        Some(self.start.elapsed())
    }

    /// Called by the main thread every few hundred nodes.
    fn check_limits(&self) {
        if !self.first_iteration_done.load(Ordering::Relaxed) {
            return;
        }
        if let Some(limit) = self.node_limit
            && self.total_nodes() >= limit
        {
            self.halt.store(true, Ordering::Relaxed);
        }
        if let (Some(limit), Some(elapsed)) = (self.hard_limit, self.clock_elapsed())
            && elapsed >= limit
        {
            self.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// Skill Level k (1..=7): plies searched and the chance in percent of a
/// uniformly random move (seed 004's ladder of rivals).
pub fn skill_ladder(level: u32) -> Option<(u32, u32)> {
    const RANDOM_PERCENT: [u32; 7] = [30, 15, 7, 3, 1, 0, 0];
    (1..=7)
        .contains(&level)
        .then(|| (level, RANDOM_PERCENT[level as usize - 1]))
}

/// Search `pos` and return the chosen move. `game_keys` are the keys of
/// the positions before it in the game (for repetitions); `report` is
/// called for every finished iteration (and MultiPV line).
pub fn think<T: Table>(
    pos: &Position,
    game_keys: &[u64],
    limits: &Limits,
    config: &Config,
    tt: &T,
    signals: &Signals,
    report: &mut dyn FnMut(&Report),
) -> Outcome {
    let start = Instant::now();
    let mut legal = pos.legal_moves();
    if !limits.search_moves.is_empty() {
        legal.retain(|m| limits.search_moves.contains(m));
    }
    let mut outcome = Outcome {
        best: legal.first().copied(),
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        random_move: false,
    };
    if legal.is_empty() {
        outcome.score = -MATE; // no legal move: the side to move has lost
        return outcome;
    }
    let skill = skill_ladder(config.skill_level);
    let budget = if let Some(ms) = limits.movetime {
        Some(TimeBudget::fixed(ms, config.move_overhead))
    } else {
        limits
            .clock
            .map(|c| TimeBudget::for_clock(c, config.move_overhead))
    };
    // Under a game clock a single legal move is played at once.
    if legal.len() == 1 && limits.clock.is_some() && !limits.infinite && !limits.ponder {
        return outcome;
    }
    let max_depth = skill
        .map(|(plies, _)| plies)
        .or(limits.depth)
        .unwrap_or(MAX_DEPTH)
        .clamp(1, MAX_DEPTH);
    let timed = !limits.infinite;
    let shared = Shared {
        tt,
        signals,
        halt: AtomicBool::new(false),
        pondering: limits.ponder,
        start,
        ponder_start: Mutex::new(None),
        hard_limit: budget.filter(|_| timed).map(|b| b.maximum),
        node_limit: limits.nodes,
        helper_nodes: AtomicU64::new(0),
        main_nodes: AtomicU64::new(0),
        first_iteration_done: AtomicBool::new(false),
        helper_best: Mutex::new(None),
    };
    tt.new_search();
    let roots: Vec<RootMove> = legal
        .iter()
        .map(|&mv| RootMove {
            mv,
            score: -MATE,
            bound: Bound::Exact,
            pv: vec![mv],
            seldepth: 0,
        })
        .collect();
    let multi_pv = config.multi_pv.clamp(1, roots.len());

    std::thread::scope(|scope| {
        for id in 1..config.threads.max(1) {
            let shared = &shared;
            let mut roots = roots.clone();
            let rules = config.draw_rules;
            scope.spawn(move || {
                let mut worker = Worker::new(pos.clone(), game_keys, shared, rules, false);
                for depth in 1..=max_depth as i32 {
                    if depth < max_depth as i32 && helper_skips(id, depth) {
                        continue;
                    }
                    aspiration(&mut worker, &mut roots, 0, depth);
                    if worker.aborted {
                        break;
                    }
                    if multi_pv == 1 {
                        shared.offer(depth, &roots[0]);
                    }
                }
                // The requested depth is reached: the search is done.
                if !worker.aborted && multi_pv == 1 {
                    shared.halt.store(true, Ordering::Relaxed);
                }
            });
        }
        let mut main = Worker::new(pos.clone(), game_keys, &shared, config.draw_rules, true);
        let mut roots = roots;
        let mut best_changes = 0.0f64;
        let mut last_best = None;
        for depth in 1..=max_depth as i32 {
            for line in 0..multi_pv {
                let score = aspiration(&mut main, &mut roots, line, depth);
                if main.aborted {
                    break;
                }
                // All lines once per depth; after 3 s also as each line
                // completes, so a long search still shows progress.
                let last_line = line + 1 == multi_pv;
                if !last_line && start.elapsed() < Duration::from_secs(3) {
                    continue;
                }
                for (i, root) in roots.iter().enumerate().take(line + 1) {
                    report(&progress(
                        &shared,
                        main.nodes,
                        depth,
                        root.seldepth,
                        i + 1,
                        if i == line { score } else { root.score },
                        (root.bound != Bound::Exact).then_some(root.bound),
                        &root.pv,
                    ));
                }
            }
            if main.aborted {
                break;
            }
            shared.first_iteration_done.store(true, Ordering::Relaxed);
            outcome.depth = depth as u32;
            outcome.score = roots[0].score;
            outcome.best = Some(roots[0].mv);
            outcome.ponder = roots[0].pv.get(1).copied();
            if last_best != outcome.best {
                best_changes += 1.0;
            }
            best_changes *= 0.5;
            last_best = outcome.best;
            if let Some(n) = limits.mate
                && roots[0].score >= MATE - (2 * n as i32 - 1)
            {
                break;
            }
            if is_mate_score(roots[0].score)
                && depth as usize > (MATE - roots[0].score.abs()) as usize + 2
                && timed
            {
                break; // the mate is proven; deeper search cannot change it
            }
            if let (Some(b), Some(elapsed)) = (budget.filter(|_| timed), shared.clock_elapsed()) {
                // An unstable best move earns more time, up to the maximum.
                let scale = 1.0 + best_changes * 1.5;
                if elapsed >= b.optimum.mul_f64(scale.min(3.0)).min(b.maximum) {
                    break;
                }
            }
        }
        // Lazy SMP's "best thread": a helper that completed a deeper
        // iteration than the main thread answers for it.
        let helper = shared
            .helper_best
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(h) = helper.filter(|h| h.depth > outcome.depth as i32 && !h.pv.is_empty()) {
            outcome.depth = h.depth as u32;
            outcome.score = h.score;
            outcome.best = h.pv.first().copied();
            outcome.ponder = h.pv.get(1).copied();
            report(&progress(
                &shared, main.nodes, h.depth, h.seldepth, 1, h.score, None, &h.pv,
            ));
        }
        outcome.nodes = main.nodes;
        shared.halt.store(true, Ordering::Relaxed);
        outcome.nodes += shared.helper_nodes.load(Ordering::Relaxed);
    });

    if let Some((_, percent)) = skill
        && percent > 0
    {
        let mut rng = rand::rng();
        if rng.random_range(0..100) < percent {
            outcome.best = Some(legal[rng.random_range(0..legal.len())]);
            outcome.ponder = None;
            outcome.random_move = true;
        }
    }
    outcome
}

/// A score as UCI writes it: `cp N`, or `mate N` in moves (negative when
/// losing).
pub fn score_text(score: i32) -> String {
    if is_mate_score(score) {
        let moves = (MATE - score.abs() + 1) / 2;
        format!("mate {}", if score > 0 { moves } else { -moves })
    } else {
        format!("cp {score}")
    }
}

/// One `info` report of the search so far.
#[allow(clippy::too_many_arguments)]
fn progress<T: Table>(
    shared: &Shared<T>,
    main_nodes: u64,
    depth: i32,
    seldepth: usize,
    multipv: usize,
    score: i32,
    bound: Option<Bound>,
    pv: &[Move],
) -> Report {
    let elapsed = shared.start.elapsed();
    let nodes = shared.total_nodes().max(main_nodes);
    Report {
        depth: depth as u32,
        seldepth: seldepth.max(depth as usize),
        multipv,
        score,
        bound,
        nodes,
        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64,
        hashfull: shared.tt.hashfull(),
        elapsed,
        pv: pv.to_vec(),
    }
}

/// Lazy SMP diversity, as in Stockfish 9: helper `id` skips depths in a
/// pattern of its own, so the threads are spread over neighbouring depths
/// and fill the shared table with different parts of the tree.
fn helper_skips(id: usize, depth: i32) -> bool {
    const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id - 1) % 20;
    ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 == 1
}

/// Search one MultiPV line with a window around the last score, widening
/// it until the score falls inside.
fn aspiration<T: Table>(
    worker: &mut Worker<T>,
    roots: &mut [RootMove],
    line: usize,
    depth: i32,
) -> i32 {
    let previous = roots[line].score;
    let mut delta = 25;
    let (mut alpha, mut beta) = if depth >= 4 && !is_mate_score(previous) && previous > -MATE {
        (previous - delta, previous + delta)
    } else {
        (-MATE, MATE)
    };
    loop {
        let score = worker.search_root(roots, line, depth, alpha, beta);
        if worker.aborted {
            return score;
        }
        if score <= alpha && alpha > -MATE {
            alpha = (alpha - delta).max(-MATE);
        } else if score >= beta && beta < MATE {
            beta = (beta + delta).min(MATE);
        } else {
            return score;
        }
        delta *= 2;
    }
}
