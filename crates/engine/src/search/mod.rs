//! Iterative deepening with aspiration windows over a principal-variation
//! search, shared by Lazy SMP threads through the transposition table.
//!
//! The search knows nothing of the protocol: it takes a position, the keys
//! of the game so far, limits and a callback for progress reports, and
//! returns the move it chose.

pub mod params;
mod skill;
mod time;
mod worker;

pub use params::{DEFAULT_HASH_MB, MATE, MAX_DEPTH, MAX_PLY, SKILL_FULL};
pub use skill::{ELO_RANGE, skill_for_elo};
pub use time::{Clock, Progress, TimeBudget, start_next_iteration};

use crate::nnue::Network;
use crate::tt::{Bound, Table};
use bashni_rules::{DrawRules, Move, Position};
use params::{
    ASPIRATION_DELTA, ASPIRATION_MIN_DEPTH, HELPER_ADDRESS_SPACE_MB, MULTIPV_PROGRESS_AFTER_MS,
    SKILL_TABLE, THREAD_HEADROOM_MB,
};
use rand::RngExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::{RootMove, Worker};

/// Whether a score is a forced win or loss.
pub fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE - MAX_PLY as i32 * 2
}

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// `go depth`: plies.
    pub depth: Option<u32>,
    /// `go nodes`.
    pub nodes: Option<u64>,
    /// `go movetime`, in milliseconds.
    pub movetime: Option<u64>,
    /// `wtime`/`btime`/`winc`/`binc`/`movestogo`, for the side to move.
    pub clock: Option<Clock>,
    /// `go mate`: moves.
    pub mate: Option<u32>,
    /// `go infinite`: search until `stop`.
    pub infinite: bool,
    /// `go ponder`: search until `stop` or `ponderhit`.
    pub ponder: bool,
    /// `go searchmoves`: only these root moves (all when empty).
    pub search_moves: Vec<Move>,
}

impl Limits {
    /// Whether the search ends by itself (`infinite` and `ponder` wait for
    /// `stop`; `mate` alone may never be satisfied).
    pub fn is_bounded(&self) -> bool {
        !self.infinite
            && !self.ponder
            && (self.depth.is_some()
                || self.nodes.is_some()
                || self.movetime.is_some()
                || self.clock.is_some())
    }
}

/// How the engine is set up (the protocol's options).
#[derive(Clone, Debug)]
pub struct Config {
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// Lines reported per iteration.
    pub multi_pv: usize,
    /// 0..=19 play weaker (params::SKILL_TABLE); `SKILL_FULL` is full strength.
    pub skill_level: u32,
    /// Milliseconds kept back from every move for the host's overhead.
    pub move_overhead: u64,
    /// When a game is drawn (scored 0 inside the tree).
    pub draw_rules: DrawRules,
    /// The learned evaluation, used for positions of its variant; `None`
    /// (the default) evaluates with the linear evaluation.
    pub network: Option<Arc<Network>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            multi_pv: 1,
            skill_level: SKILL_FULL,
            move_overhead: 10,
            draw_rules: DrawRules::for_variant(bashni_rules::Variant::Bashni),
            network: None,
        }
    }
}

/// Signals the protocol sends to a running search.
#[derive(Debug, Default)]
pub struct Signals {
    /// End the search as soon as possible.
    pub stop: AtomicBool,
    /// The pondered move was played: go on under the clock.
    pub ponderhit: AtomicBool,
}

/// One line of progress (one `info` line).
#[derive(Clone, Debug)]
pub struct Report {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// Line number, 1 = best.
    pub multipv: usize,
    /// Score for the side to move, in centipawns or as a mate score.
    pub score: i32,
    /// Set when the score is only a bound (aspiration fail).
    pub bound: Option<Bound>,
    /// Nodes so far, all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Permille of the table used by this search.
    pub hashfull: u32,
    /// Time since the search started.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The search's answer.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The move chosen (`None` without a legal move).
    pub best: Option<Move>,
    /// The expected reply, to ponder on.
    pub ponder: Option<Move>,
    /// Score of the chosen move for the side to move.
    pub score: i32,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// Set when Skill Level replaced the best move by a random one.
    pub random_move: bool,
    /// The time plan of a timed search.
    pub budget: Option<TimeBudget>,
    /// The soft limit after the last iteration (the plan, scaled).
    pub soft_limit: Option<Duration>,
    /// How long the search took (pondering included).
    pub elapsed: Duration,
    /// Helper threads the system refused; the search ran without them.
    pub refused_threads: usize,
}

/// State shared by the threads of one search.
pub(crate) struct Shared<'a, T: Table> {
    tt: &'a T,
    signals: &'a Signals,
    /// Set by the main thread to end the helpers (and by the limits).
    halt: AtomicBool,
    pondering: bool,
    /// When `go` arrived; after a ponder hit the clock counts from here too,
    /// since pondering time is thinking time.
    start: Instant,
    hard_limit: Option<Duration>,
    /// The current soft limit in ms (u64::MAX: none); after a ponder hit
    /// the search stops as soon as it is passed.
    soft_limit_ms: AtomicU64,
    node_limit: Option<u64>,
    helper_nodes: AtomicU64,
    main_nodes: AtomicU64,
    /// A node limit waits for depth 1, so there is always a searched move.
    first_iteration_done: AtomicBool,
    /// The deepest iteration a helper has completed (single-PV searches).
    helper_best: Mutex<Option<HelperResult>>,
    /// The learned evaluation when it is on and fits the variant.
    network: Option<Arc<Network>>,
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

    /// Time since `go` (pondering included); `None` while pondering,
    /// when no limit applies yet.
    fn clock_elapsed(&self) -> Option<Duration> {
        let waiting = self.pondering && !self.signals.ponderhit.load(Ordering::Relaxed);
        (!waiting).then(|| self.start.elapsed())
    }

    /// Called by the main thread every few hundred nodes.
    fn check_limits(&self) {
        // A node limit waits for depth 1, so a fixed-nodes search always
        // answers with a searched move. The clock does not wait: a first
        // iteration can take minutes in a capture-rich position, and the
        // answer is then the best move searched so far.
        if let Some(limit) = self.node_limit
            && self.first_iteration_done.load(Ordering::Relaxed)
            && self.total_nodes() >= limit
        {
            self.halt.store(true, Ordering::Relaxed);
        }
        let Some(elapsed) = self.clock_elapsed() else {
            return;
        };
        if self.hard_limit.is_some_and(|limit| elapsed >= limit) {
            self.halt.store(true, Ordering::Relaxed);
        }
        // The ponder hit came after the plan was spent pondering.
        let soft = Duration::from_millis(self.soft_limit_ms.load(Ordering::Relaxed));
        if self.pondering && self.hard_limit.is_some() && elapsed >= soft {
            self.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// The plies searched and the percent of random moves of a `Skill Level`
/// below full strength (params::SKILL_TABLE); `None` at full strength.
pub fn skill_ladder(level: u32) -> Option<(u32, u32)> {
    SKILL_TABLE.get(level as usize).copied()
}

/// Signals nobody sends: for a search that only its limits end.
static NO_SIGNALS: Signals = Signals {
    stop: AtomicBool::new(false),
    ponderhit: AtomicBool::new(false),
};

/// The engine's searcher: a table, a configuration and the signals that
/// stop it, set up once and run on any number of positions.
pub struct Searcher<'a, T: Table> {
    tt: &'a T,
    config: Config,
    signals: &'a Signals,
}

impl<'a, T: Table> Searcher<'a, T> {
    /// A searcher that only its limits stop.
    pub fn new(tt: &'a T, config: Config) -> Self {
        Searcher {
            tt,
            config,
            signals: &NO_SIGNALS,
        }
    }

    /// The same, stopped also by `stop` and told of `ponderhit` here.
    pub fn with_signals(self, signals: &'a Signals) -> Self {
        Searcher { signals, ..self }
    }

    /// The configuration it searches with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Search `pos` and return the chosen move. `game_keys` are the keys
    /// of the positions since the last irreversible move, before `pos`
    /// (`rules::Game::repetition_keys`); `report` is called for every
    /// finished iteration (and MultiPV line).
    pub fn search(
        &self,
        pos: &Position,
        game_keys: &[u64],
        limits: &Limits,
        report: &mut dyn FnMut(&Report),
    ) -> Outcome {
        think(
            pos,
            game_keys,
            limits,
            &self.config,
            self.tt,
            self.signals,
            report,
        )
    }
}

/// The body of `Searcher::search`.
fn think<T: Table>(
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
    let budget = time_budget(limits, config);
    let mut outcome = Outcome {
        best: legal.first().copied(),
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        random_move: false,
        budget,
        soft_limit: budget.map(|b| b.optimum),
        elapsed: Duration::ZERO,
        refused_threads: 0,
    };
    if legal.is_empty() {
        outcome.score = -MATE; // no legal move: the side to move has lost
        return outcome;
    }
    // Under a game clock a single legal move is played at once.
    if legal.len() == 1 && limits.clock.is_some() && !limits.infinite && !limits.ponder {
        return outcome;
    }
    let skill = skill_ladder(config.skill_level);
    let max_depth = limits
        .depth
        .unwrap_or(MAX_DEPTH)
        .min(skill.map_or(MAX_DEPTH, |(plies, _)| plies))
        .clamp(1, MAX_DEPTH) as i32;
    let shared = Shared {
        tt,
        signals,
        halt: AtomicBool::new(false),
        pondering: limits.ponder,
        start,
        hard_limit: budget.filter(|_| !limits.infinite).map(|b| b.maximum),
        soft_limit_ms: AtomicU64::new(budget.map_or(u64::MAX, |b| b.optimum.as_millis() as u64)),
        node_limit: limits.nodes,
        helper_nodes: AtomicU64::new(0),
        main_nodes: AtomicU64::new(0),
        first_iteration_done: AtomicBool::new(false),
        helper_best: Mutex::new(None),
        network: config
            .network
            .clone()
            .filter(|net| net.variant() == pos.variant()),
    };
    tt.new_search();
    let roots: Vec<RootMove> = legal.iter().map(|&mv| RootMove::new(mv)).collect();
    let multi_pv = config.multi_pv.clamp(1, roots.len());
    std::thread::scope(|scope| {
        let mut main = Worker::new(pos.clone(), game_keys, &shared, config.draw_rules, true);
        let job = HelperJob {
            pos,
            game_keys,
            shared: &shared,
            rules: config.draw_rules,
            max_depth,
            multi_pv,
        };
        outcome.refused_threads = job.spawn(scope, config.threads, &roots);
        let search = MainSearch {
            shared: &shared,
            limits,
            budget: budget.filter(|_| !limits.infinite),
            max_depth,
            multi_pv,
        };
        search.iterate(&mut main, roots, &mut outcome, report);
        adopt_deeper_helper(&shared, main.nodes, &mut outcome, report);
        outcome.nodes = main.nodes;
        shared.halt.store(true, Ordering::Relaxed);
    });
    outcome.nodes += shared.helper_nodes.load(Ordering::Relaxed);
    outcome.elapsed = start.elapsed();
    if let Some((_, percent)) = skill {
        play_at_skill(percent, &legal, &mut outcome);
    }
    outcome
}

/// Whether the address space has room for one more helper thread and a
/// margin beyond it. A thread spawned into the last megabytes would start,
/// and the process would abort on the first allocation that no longer fits
/// (Rust cannot recover from that), so the room is probed first: a
/// reservation that is never touched costs no memory, only address space.
fn room_for_another_thread() -> bool {
    let mut probe: Vec<u8> = Vec::new();
    let fits = probe
        .try_reserve_exact((HELPER_ADDRESS_SPACE_MB + THREAD_HEADROOM_MB) << 20)
        .is_ok();
    std::hint::black_box(&probe);
    fits
}

/// The plan for this move: a fixed `movetime`, or a share of the clock.
fn time_budget(limits: &Limits, config: &Config) -> Option<TimeBudget> {
    match (limits.movetime, limits.clock) {
        (Some(ms), _) => Some(TimeBudget::fixed(ms, config.move_overhead)),
        (None, Some(clock)) => Some(TimeBudget::for_clock(clock, config.move_overhead)),
        (None, None) => None,
    }
}

/// What a Lazy SMP helper thread needs to search the same root.
struct HelperJob<'s, 'a, T: Table> {
    pos: &'s Position,
    game_keys: &'s [u64],
    shared: &'s Shared<'a, T>,
    rules: DrawRules,
    max_depth: i32,
    multi_pv: usize,
}

impl<'s, 'a: 's, T: Table> HelperJob<'s, 'a, T> {
    /// Start helpers so that `threads` search in all, the main one
    /// included; returns how many the system refused. It may refuse a
    /// thread (address space, limits): the search goes on with those it
    /// gave, at least the main one.
    ///
    /// Each helper is started only once the one before it has made its
    /// worker (and so its malloc arena): otherwise the room probed for one
    /// helper could be taken by others still starting, and an allocation
    /// past the limit aborts the process.
    fn spawn<'scope>(
        &self,
        scope: &'scope std::thread::Scope<'scope, 's>,
        threads: usize,
        roots: &[RootMove],
    ) -> usize {
        for id in 1..threads.max(1) {
            let (job, roots) = (HelperJob { ..*self }, roots.to_vec());
            let (ready, started) = std::sync::mpsc::sync_channel(1);
            let refused = !room_for_another_thread()
                || std::thread::Builder::new()
                    .spawn_scoped(scope, move || job.run(id, roots, ready))
                    .is_err();
            if refused {
                return threads - id;
            }
            // An error means the helper ended before it was ready, which
            // leaves the room it would have taken.
            let _ = started.recv();
        }
        0
    }

    /// Search the root, skipping depths in a pattern of helper `id`'s own,
    /// and offer each finished iteration to the main thread. `ready` is
    /// told once the helper's memory is allocated.
    fn run(self, id: usize, mut roots: Vec<RootMove>, ready: SyncSender<()>) {
        let HelperJob {
            pos,
            game_keys,
            shared,
            rules,
            max_depth,
            multi_pv,
        } = self;
        let mut worker = Worker::new(pos.clone(), game_keys, shared, rules, false);
        // The spawner waits for this before it probes for the next helper.
        let _ = ready.send(());
        for depth in 1..=max_depth {
            if depth < max_depth && helper_skips(id, depth) {
                continue;
            }
            aspiration(&mut worker, &mut roots, 0, depth);
            if worker.aborted {
                return;
            }
            if multi_pv == 1 {
                shared.offer(depth, &roots[0]);
            }
        }
        // The requested depth is reached: the search is done.
        if multi_pv == 1 {
            shared.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// The main thread's iterative deepening and its time decisions.
struct MainSearch<'s, 'a, T: Table> {
    shared: &'s Shared<'a, T>,
    limits: &'s Limits,
    /// The clock's plan, unless the search is infinite.
    budget: Option<TimeBudget>,
    max_depth: i32,
    multi_pv: usize,
}

impl<T: Table> MainSearch<'_, '_, T> {
    fn iterate(
        &self,
        main: &mut Worker<T>,
        mut roots: Vec<RootMove>,
        outcome: &mut Outcome,
        report: &mut dyn FnMut(&Report),
    ) {
        let mut trend = Progress::default();
        for depth in 1..=self.max_depth {
            if !self.search_lines(main, &mut roots, depth, report) {
                // The answer's line is reported, so that `bestmove` is
                // always the first move of the last line a host saw.
                if let Some(answer) = best_of_cut_iteration(&roots, depth, outcome) {
                    report(&progress(self.shared, main.nodes, depth, 1, answer));
                }
                return;
            }
            self.shared
                .first_iteration_done
                .store(true, Ordering::Relaxed);
            outcome.depth = depth as u32;
            outcome.score = roots[0].score;
            outcome.best = Some(roots[0].mv);
            outcome.ponder = roots[0].pv.get(1).copied();
            if self.done(depth, &roots[0], &mut trend, outcome) {
                return;
            }
        }
    }

    /// Search the MultiPV lines of one depth, reporting them best first;
    /// false if the search was stopped.
    fn search_lines(
        &self,
        main: &mut Worker<T>,
        roots: &mut [RootMove],
        depth: i32,
        report: &mut dyn FnMut(&Report),
    ) -> bool {
        for line in 0..self.multi_pv {
            aspiration(main, roots, line, depth);
            if main.aborted {
                return false;
            }
            // As Stockfish: the lines found so far, best first, so line 1
            // is always the best line (a later line may beat it).
            roots[..=line].sort_by_key(|r| std::cmp::Reverse(r.score));
            let last_line = line + 1 == self.multi_pv;
            let slow =
                self.shared.start.elapsed() >= Duration::from_millis(MULTIPV_PROGRESS_AFTER_MS);
            if !last_line && !slow {
                continue;
            }
            for (i, root) in roots.iter().enumerate().take(line + 1) {
                report(&progress(self.shared, main.nodes, depth, i + 1, root));
            }
        }
        true
    }

    /// After a finished iteration: whether the search should end now.
    fn done(
        &self,
        depth: i32,
        best: &RootMove,
        progress: &mut Progress,
        outcome: &mut Outcome,
    ) -> bool {
        if let Some(n) = self.limits.mate
            && best.score >= MATE - (2 * n as i32 - 1)
        {
            return true;
        }
        let timed = !self.limits.infinite;
        if timed && is_mate_score(best.score) && depth > MATE - best.score.abs() + 2 {
            return true; // the mate is proven; deeper search cannot change it
        }
        let (Some(budget), Some(elapsed)) = (self.budget, self.shared.clock_elapsed()) else {
            return false;
        };
        let drop = progress.record(best.mv, best.score, elapsed);
        let soft = budget.soft_limit(progress.instability, drop);
        outcome.soft_limit = Some(soft);
        self.shared
            .soft_limit_ms
            .store(soft.as_millis() as u64, Ordering::Relaxed);
        !start_next_iteration(&budget, soft, elapsed, progress.predicted_next())
    }
}

/// An iteration cut short by the clock or `stop` is not wasted (as in
/// Stockfish): its best finished root move answers, and is returned. A
/// later move finishes only by beating the first one, so it is the better
/// move. Only scores this iteration set count (others are an earlier
/// iteration's), and no fail-low bound; the outcome's depth stays the last
/// completed one. If nothing finished, the last iteration's answer stands
/// (after a cut first iteration: the first legal move).
fn best_of_cut_iteration<'r>(
    roots: &'r [RootMove],
    depth: i32,
    outcome: &mut Outcome,
) -> Option<&'r RootMove> {
    let finished = roots
        .iter()
        .filter(|r| r.depth == depth && r.bound != Bound::Upper);
    let best = finished.fold(None, |best: Option<&RootMove>, r| match best {
        Some(b) if b.score >= r.score => Some(b),
        _ => Some(r),
    })?;
    outcome.best = Some(best.mv);
    outcome.ponder = best.pv.get(1).copied();
    outcome.score = best.score;
    Some(best)
}

/// Lazy SMP's "best thread": a helper that completed a deeper iteration
/// than the main thread answers for it.
fn adopt_deeper_helper<T: Table>(
    shared: &Shared<T>,
    main_nodes: u64,
    outcome: &mut Outcome,
    report: &mut dyn FnMut(&Report),
) {
    let helper = shared
        .helper_best
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let Some(h) = helper.filter(|h| h.depth > outcome.depth as i32 && !h.pv.is_empty()) else {
        return;
    };
    outcome.depth = h.depth as u32;
    outcome.score = h.score;
    outcome.best = h.pv.first().copied();
    outcome.ponder = h.pv.get(1).copied();
    let root = RootMove {
        mv: h.pv[0],
        score: h.score,
        bound: Bound::Exact,
        pv: h.pv,
        seldepth: h.seldepth,
        depth: h.depth,
    };
    report(&progress(shared, main_nodes, h.depth, 1, &root));
}

/// Skill Level: with `percent` chance, a uniformly random legal move
/// replaces the searched one.
fn play_at_skill(percent: u32, legal: &[Move], outcome: &mut Outcome) {
    let mut rng = rand::rng();
    if percent > 0 && rng.random_range(0..100) < percent {
        outcome.best = Some(legal[rng.random_range(0..legal.len())]);
        outcome.ponder = None;
        outcome.random_move = true;
    }
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

/// One `info` report of the search so far: `root`'s line at `depth`.
fn progress<T: Table>(
    shared: &Shared<T>,
    main_nodes: u64,
    depth: i32,
    multipv: usize,
    root: &RootMove,
) -> Report {
    let elapsed = shared.start.elapsed();
    let nodes = shared.total_nodes().max(main_nodes);
    Report {
        depth: depth as u32,
        seldepth: root.seldepth.max(depth as usize),
        multipv,
        score: root.score,
        bound: (root.bound != Bound::Exact).then_some(root.bound),
        nodes,
        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64,
        hashfull: shared.tt.hashfull(),
        elapsed,
        pv: root.pv.clone(),
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
    let mut delta = ASPIRATION_DELTA;
    let (mut alpha, mut beta) =
        if depth >= ASPIRATION_MIN_DEPTH && !is_mate_score(previous) && previous > -MATE {
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

#[cfg(test)]
mod tests;
