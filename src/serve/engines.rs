//! The engine processes of the play server: at most `--max-engines` run
//! at once; a search past the cap waits its turn (the room shows how many
//! wait). Processes are kept between searches and reused; one that
//! crashes, stalls or answers nonsense (a move not legal in the position)
//! is dropped (killed), and the next search starts a fresh one, from the
//! position the room holds.
//!
//! A room chooses only its variant, rules and one whitelisted strength
//! ([`Strength`]); the options sent are built here, never taken from a
//! client.

use super::config::{GameConfig, Strength};
use super::wire::clip;
use crate::annotate::EngineAnswer;
use bashni_host::Error;
use bashni_host::asynchronous::{Engine, EngineEvent};
use bashni_host::info::{Info, Score};
use bashni_host::protocol::{Command, Event, Go};
use bashni_host::spec::EngineSpec;
use bashni_rules::Position;
use serde::Serialize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::{self, Sender, UnboundedReceiver};
use tokio::sync::{Semaphore, SemaphorePermit, oneshot};

/// Beyond the time the search was given, how long the pool waits for the
/// answer before it calls the engine stalled.
const ANSWER_GRACE: Duration = Duration::from_secs(5);

/// One search for a room's engine seat.
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// The rules the room plays.
    pub game: GameConfig,
    /// The engine's strength.
    pub strength: Strength,
    /// The position: start and moves.
    pub position: Command,
    /// The same position, to check the answer by: a process that plays a
    /// move not legal there is not asked again.
    pub to_move: Position,
    /// The limit: the room's clocks, or a time per move.
    pub go: Go,
}

impl SearchJob {
    /// The options this job sets, in order: the variant first (setting
    /// it resets the draw options), then the rules, then the strength.
    fn options(&self) -> Vec<(String, String)> {
        let mut options = rule_options(&self.game);
        match self.strength {
            Strength::Skill(level) => {
                options.push(("UCI_LimitStrength".into(), "false".into()));
                options.push(("Skill Level".into(), level.to_string()));
            }
            Strength::Elo(elo) => {
                options.push(("UCI_LimitStrength".into(), "true".into()));
                options.push(("UCI_Elo".into(), elo.to_string()));
            }
        }
        options
    }

    /// How long the answer may take before the engine counts as stalled.
    fn patience(&self) -> Duration {
        let allowed_ms = match self.go {
            Go::Clock { wtime, btime, .. } => wtime.max(btime),
            Go::MoveTime(ms) => ms,
            _ => 60_000,
        };
        Duration::from_millis(allowed_ms) + ANSWER_GRACE
    }
}

/// The options that set `game`'s rules, in order: the variant first
/// (setting it resets the draw options), then the rules.
fn rule_options(game: &GameConfig) -> Vec<(String, String)> {
    vec![
        ("UCI_Variant".to_string(), game.variant.to_string()),
        ("KingLanding".into(), game.king_landing.to_string()),
        ("ForcedCapture".into(), game.forced_capture.to_string()),
        (
            "NoProgressPlies".into(),
            game.draw.no_progress_plies.to_string(),
        ),
        ("MaxPlies".into(), game.draw.max_plies.to_string()),
    ]
}

/// How long one analysis on the analysis board may search: the server's
/// cap, whatever the page asks.
pub const ANALYSIS_MS: u64 = 30_000;

/// The lines one analysis may show.
pub const ANALYSIS_LINES: (u32, u32) = (1, 5);

/// How often gathered lines go out while an analysis runs.
const LINES_FLUSH: Duration = Duration::from_millis(100);

/// How long a stopped analysis waits for the engine's last answer before
/// the engine is killed instead of kept.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// An analysis of one position for the analysis board, at full strength.
#[derive(Clone, Debug)]
pub struct AnalysisJob {
    /// The rules the line is played by.
    pub game: GameConfig,
    /// The position: start and moves.
    pub position: Command,
    /// Lines to show, within [`ANALYSIS_LINES`].
    pub lines: u32,
    /// Whether White is to move (the lines are scored from White's view).
    pub white_to_move: bool,
}

impl AnalysisJob {
    /// The options this job sets: the rules, full strength, and the
    /// lines.
    fn options(&self) -> Vec<(String, String)> {
        full_strength_options(&self.game, self.lines)
    }
}

/// The options of a search at full strength by `game`'s rules, showing
/// `lines` lines.
fn full_strength_options(game: &GameConfig, lines: u32) -> Vec<(String, String)> {
    let skill_full = bashni_engine::protocol::SKILL_RANGE.1;
    let mut options = rule_options(game);
    options.extend([
        ("UCI_LimitStrength".into(), "false".into()),
        ("Skill Level".into(), skill_full.to_string()),
        ("MultiPV".into(), lines.to_string()),
    ]);
    options
}

/// The positions of a finished game, each searched a fixed number of
/// nodes at full strength: what its review (the marks and the graph
/// after a game) is made of.
#[derive(Clone, Debug)]
pub struct ReviewJob {
    /// The rules the game was played by.
    pub game: GameConfig,
    /// The positions, in order: each as the engine is sent it, and as
    /// the answer is checked in (a process that plays a move not legal
    /// there is not asked again).
    pub positions: Vec<(Command, Position)>,
    /// Nodes per position.
    pub nodes: u64,
    /// How long the whole review may take before the engine counts as
    /// stalled (and is dropped): a slow engine must not hold the
    /// analyses' share of the pool for long.
    pub time: Duration,
}

/// What an analysis reports as it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisUpdate {
    /// The search started.
    Started,
    /// The lines so far, best first.
    Lines(Vec<PvLine>),
    /// The search reached its cap.
    Done,
    /// It failed; the engine was dropped, and the next analysis starts a
    /// fresh one.
    Failed(String),
}

/// One line of an engine's analysis, scores from White's view.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PvLine {
    /// Its rank (1 is the best).
    pub multipv: u32,
    /// The depth searched.
    pub depth: u32,
    /// `+0.35`, `-1.20`, `+M3` (White mates in 3), `-M2`.
    pub score: String,
    /// Centipawns (a mate beyond any of them).
    pub cp: i32,
    /// The moves, the line's first move first.
    pub pv: Vec<String>,
}

impl PvLine {
    /// The line an `info` report shows, if it has a score and moves;
    /// `white_to_move` turns the engine's side-to-move score into White's.
    pub fn from_info(info: Info, white_to_move: bool) -> Option<PvLine> {
        let score = info.score?.for_white(white_to_move);
        (!info.pv.is_empty()).then(|| PvLine {
            multipv: info.multipv,
            depth: info.depth.unwrap_or(0),
            score: score.to_string(),
            cp: score.centipawns(),
            pv: info.pv,
        })
    }
}

/// A started engine with the receiver of its lines.
struct Worker {
    engine: Engine,
    inbox: UnboundedReceiver<EngineEvent>,
}

/// The pool.
pub struct EnginePool {
    spec: EngineSpec,
    slots: Semaphore,
    /// The share of the slots analyses may hold at once (half, rounded
    /// up): anyone may ask for an analysis, and a crowd of them must not
    /// leave the rooms' engine seats waiting until their clocks run out.
    analysis_share: Semaphore,
    capacity: usize,
    idle: Mutex<Vec<Worker>>,
    waiting: AtomicUsize,
    generation: AtomicU64,
    started: AtomicU64,
}

impl EnginePool {
    /// A pool of at most `max_engines` processes of `spec`.
    pub fn new(spec: EngineSpec, max_engines: usize) -> EnginePool {
        let capacity = max_engines.max(1);
        EnginePool {
            spec,
            slots: Semaphore::new(capacity),
            analysis_share: Semaphore::new(capacity - capacity / 2),
            capacity,
            idle: Mutex::new(Vec::new()),
            waiting: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            started: AtomicU64::new(0),
        }
    }

    /// Searches waiting for a free engine now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Whether a search asked for now would have to wait.
    pub fn is_full(&self) -> bool {
        self.slots.available_permits() == 0
    }

    /// Whether an analysis asked for now would have to wait: for the
    /// analyses' share, or for any free slot.
    pub fn analysis_would_wait(&self) -> bool {
        self.analysis_share.available_permits() == 0 || self.slots.available_permits() == 0
    }

    /// Engine processes started so far (a restart after a crash counts).
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// The most that run at once.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Wait for a free engine slot for an analysis: within the analyses'
    /// share of the pool, then a slot as any search. Hold both while the
    /// analysis runs.
    pub async fn analysis_slot(&self) -> Result<[SemaphorePermit<'_>; 2], Error> {
        let share = self.analysis_share.acquire().await.map_err(pool_closed)?;
        Ok([share, self.slot().await?])
    }

    /// Wait for a free engine slot (the caller sees [`EnginePool::waiting`]
    /// count it meanwhile).
    pub async fn slot(&self) -> Result<SemaphorePermit<'_>, Error> {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let permit = self.slots.acquire().await;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        permit.map_err(pool_closed)
    }

    /// The engine's move for `job`, searched in a slot the caller holds.
    /// The move text is the engine's: the room checks it.
    pub async fn search(
        &self,
        job: &SearchJob,
        _slot: &SemaphorePermit<'_>,
    ) -> Result<String, Error> {
        let mut worker = self.worker().await?;
        let answer = tokio::time::timeout(job.patience(), run_job(&mut worker, job)).await;
        // Dropping the worker kills its process.
        let text = answer.map_err(|_| Error::Stalled("no bestmove in time".into()))??;
        legal_in(&job.to_move, &text)?;
        self.give_back(worker);
        Ok(text)
    }

    /// Run `job` in a slot of the pool, sending what it finds to
    /// `updates` until the search ends, `stop` fires (or is dropped), or
    /// nobody listens any more. The slot is released at the end, and the
    /// engine kept for the next search unless it failed.
    pub async fn analyse(
        &self,
        job: AnalysisJob,
        updates: Sender<AnalysisUpdate>,
        mut stop: oneshot::Receiver<()>,
    ) {
        let slot = tokio::select! {
            slot = self.analysis_slot() => slot,
            _ = &mut stop => return,
        };
        let Ok(_slot) = slot else {
            let _ =
                (updates.send(AnalysisUpdate::Failed("the engine pool is closed".into()))).await;
            return;
        };
        let mut worker = match self.worker().await {
            Ok(worker) => worker,
            Err(e) => {
                let _ = updates
                    .send(AnalysisUpdate::Failed(format!("engine {e}")))
                    .await;
                return;
            }
        };
        match run_analysis(&mut worker, &job, &updates, &mut stop).await {
            Ok(()) => {
                // The next room search must not show several lines.
                let multipv = Command::set_option("MultiPV", "1");
                if worker.engine.send(&multipv).await.is_ok() {
                    self.give_back(worker);
                }
            }
            Err(e) => {
                let _ = updates
                    .send(AnalysisUpdate::Failed(format!("engine: {e}")))
                    .await;
            }
        }
    }

    /// The engine's best move (legal, checked) and score in each position
    /// of `job`, in order, searched in an analysis slot the caller holds
    /// ([`EnginePool::analysis_slot`]).
    pub async fn review(
        &self,
        job: &ReviewJob,
        _slot: &[SemaphorePermit<'_>; 2],
    ) -> Result<Vec<EngineAnswer>, Error> {
        let mut worker = self.worker().await?;
        // Dropping the worker on an error kills its process.
        let answers = tokio::time::timeout(job.time, review_with(&mut worker, job))
            .await
            .map_err(|_| Error::Stalled("the review took too long".into()))??;
        self.give_back(worker);
        Ok(answers)
    }

    /// An idle engine, or a new one.
    async fn worker(&self) -> Result<Worker, Error> {
        match self.take_idle() {
            Some(worker) => Ok(worker),
            None => self.start().await,
        }
    }

    fn take_idle(&self) -> Option<Worker> {
        self.idle.lock().ok()?.pop()
    }

    fn give_back(&self, worker: Worker) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(worker);
        }
    }

    async fn start(&self) -> Result<Worker, Error> {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let (events, mut inbox) = mpsc::unbounded_channel();
        let engine = Engine::start(&self.spec, generation, &[], events, &mut inbox).await?;
        self.started.fetch_add(1, Ordering::Relaxed);
        Ok(Worker { engine, inbox })
    }
}

/// Set the analysis's options and search until the cap, a stop, or the
/// listener going; `Ok` when the engine ends free for the next search.
async fn run_analysis(
    worker: &mut Worker,
    job: &AnalysisJob,
    updates: &Sender<AnalysisUpdate>,
    stop: &mut oneshot::Receiver<()>,
) -> Result<(), Error> {
    set_options(worker, job.options()).await?;
    let go = Go::MoveTime(ANALYSIS_MS);
    worker.engine.go(job.position.clone(), go).await?;
    if updates.send(AnalysisUpdate::Started).await.is_err() {
        return stop_search(worker).await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_millis(ANALYSIS_MS) + ANSWER_GRACE;
    let mut lines: Vec<PvLine> = Vec::new();
    let mut dirty = false;
    let mut flush = tokio::time::interval(LINES_FLUSH);
    loop {
        tokio::select! {
            event = worker.inbox.recv() => match next_event(worker, event).await? {
                Some(Event::Info(info)) => {
                    if let Some(line) = PvLine::from_info(info, job.white_to_move) {
                        merge_line(&mut lines, line);
                        dirty = true;
                    }
                }
                Some(Event::BestMove(_)) => {
                    let _ = updates.send(AnalysisUpdate::Lines(lines)).await;
                    let _ = updates.send(AnalysisUpdate::Done).await;
                    return Ok(());
                }
                _ => {}
            },
            _ = flush.tick(), if dirty => {
                dirty = false;
                if updates.send(AnalysisUpdate::Lines(lines.clone())).await.is_err() {
                    return stop_search(worker).await;
                }
            }
            _ = &mut *stop => return stop_search(worker).await,
            _ = tokio::time::sleep_until(deadline) => {
                return Err(Error::Stalled("no answer at the end of the analysis".into()));
            }
        }
    }
}

/// Keep one line per rank and per first move: an engine that re-sorts
/// its lines moves a root move from one rank to another between depths,
/// and its old line must go.
fn merge_line(lines: &mut Vec<PvLine>, line: PvLine) {
    let first = line.pv.first().cloned();
    lines.retain(|l| l.multipv != line.multipv && l.pv.first() != first.as_ref());
    lines.push(line);
    lines.sort_by_key(|l| l.multipv);
}

/// What an engine event means for the running search: an error when the
/// engine is gone.
async fn next_event(
    worker: &mut Worker,
    event: Option<EngineEvent>,
) -> Result<Option<Event>, Error> {
    let engine = &mut worker.engine;
    match event {
        Some(EngineEvent::Line(g, line)) if g == engine.generation() => Ok(engine.feed(&line)),
        Some(EngineEvent::Exited(g)) if g == engine.generation() => {
            let how = engine.exit_status().await;
            Err(Error::Crashed(format!("the engine {how}")))
        }
        Some(_) => Ok(None),
        None => Err(Error::Crashed("the engine's output is gone".into())),
    }
}

/// Stop the search and wait for its (dropped) answer, so the engine is
/// free for the next one.
async fn stop_search(worker: &mut Worker) -> Result<(), Error> {
    worker.engine.stop().await?;
    let answered = async {
        loop {
            let event = worker.inbox.recv().await;
            if let Some(Event::StaleBestMove | Event::BestMove(_)) =
                next_event(worker, event).await?
            {
                return Ok(());
            }
        }
    };
    tokio::time::timeout(STOP_GRACE, answered)
        .await
        .unwrap_or_else(|_| Err(Error::Stalled("no answer to stop".into())))
}

/// Set the job's options, search, and wait for `bestmove`.
async fn run_job(worker: &mut Worker, job: &SearchJob) -> Result<String, Error> {
    set_options(worker, job.options()).await?;
    worker.engine.send(&Command::NewGame).await?;
    let (best, _) = answer(worker, job.position.clone(), job.go).await?;
    Ok(best)
}

/// Set the review's options and search each of its positions in turn.
async fn review_with(worker: &mut Worker, job: &ReviewJob) -> Result<Vec<EngineAnswer>, Error> {
    set_options(worker, full_strength_options(&job.game, 1)).await?;
    worker.engine.send(&Command::NewGame).await?;
    let mut answers = Vec::with_capacity(job.positions.len());
    for (position, to_move) in &job.positions {
        let (best, score) = answer(worker, position.clone(), Go::Nodes(job.nodes)).await?;
        legal_in(to_move, &best)?;
        answers.push(EngineAnswer { best, score });
    }
    Ok(answers)
}

/// Search `position` with `go` and wait for `bestmove`: the move, and
/// the main line's last score if the engine gave one (an engine may
/// answer a forced move at once, without a search to report).
async fn answer(
    worker: &mut Worker,
    position: Command,
    go: Go,
) -> Result<(String, Option<Score>), Error> {
    worker.engine.go(position, go).await?;
    let mut score = None;
    loop {
        let event = worker.inbox.recv().await;
        match next_event(worker, event).await? {
            Some(Event::Info(info)) if info.is_main_line() && info.score.is_some() => {
                score = info.score;
            }
            Some(Event::BestMove(best)) => return Ok((best.text, score)),
            _ => {}
        }
    }
}

/// An engine's move `text` is legal in `position`; else the engine is
/// broken (and is dropped, not asked again).
fn legal_in(position: &Position, text: &str) -> Result<(), Error> {
    position.parse_move(text).map(drop).map_err(|e| {
        Error::Crashed(format!(
            "played '{}', not a legal move here: {e}",
            clip(text, 40)
        ))
    })
}

/// Send `options` to the engine, in order.
async fn set_options(worker: &mut Worker, options: Vec<(String, String)>) -> Result<(), Error> {
    for (name, value) in options {
        worker
            .engine
            .send(&Command::set_option(name, value))
            .await?;
    }
    Ok(())
}

/// A slot asked of a pool whose semaphores were closed.
fn pool_closed<E>(_: E) -> Error {
    Error::Crashed("the engine pool is closed".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::Variant;

    /// Analyses hold at most half the pool (rounded up): with two slots,
    /// a second analysis waits while an engine seat's search goes ahead.
    #[tokio::test]
    async fn analyses_leave_half_the_pool_to_the_engine_seats() {
        let spec = EngineSpec {
            name: "unused".into(),
            cmd: "unused".into(),
            args: Vec::new(),
            options: Vec::new(),
            tc: None,
        };
        let pool = EnginePool::new(spec, 2);
        let first = pool.analysis_slot().await.expect("the analyses' share");
        let patience = Duration::from_millis(100);
        let second = tokio::time::timeout(patience, pool.analysis_slot()).await;
        assert!(second.is_err(), "a second analysis waits");
        let seat = tokio::time::timeout(patience, pool.slot()).await;
        assert!(seat.is_ok(), "an engine seat's search does not");
        drop(first);
        let second = tokio::time::timeout(patience, pool.analysis_slot()).await;
        assert!(second.is_ok(), "once the first is done, it runs");
    }

    /// A review that outlasts its time fails as stalled, and its engine
    /// (here one that never answers) is not kept.
    #[tokio::test]
    async fn a_review_past_its_time_is_cut_and_its_engine_dropped() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.sh");
        let spec = EngineSpec {
            name: "hang".into(),
            cmd: script.into(),
            args: vec!["hang".into()],
            options: Vec::new(),
            tc: None,
        };
        let pool = EnginePool::new(spec, 2);
        let game = GameConfig::online(Variant::Bashni);
        let start = bashni_rules::Game::new(game.rules());
        let position = Command::Position {
            fen: Variant::Bashni.start_fen().into(),
            moves: Vec::new(),
        };
        let job = ReviewJob {
            game,
            positions: vec![(position, start.position().clone())],
            nodes: 1000,
            time: Duration::from_millis(500),
        };
        let slot = pool.analysis_slot().await.expect("a slot");
        let reviewed = tokio::time::timeout(Duration::from_secs(10), pool.review(&job, &slot))
            .await
            .expect("cut at its time, not later");
        assert!(matches!(reviewed, Err(Error::Stalled(_))), "{reviewed:?}");
        assert!(pool.take_idle().is_none(), "the engine is not kept");
    }

    #[test]
    fn a_job_sets_the_rules_then_only_a_whitelisted_strength() {
        let job = SearchJob {
            game: GameConfig::online(Variant::Lasca),
            strength: Strength::Elo(1500),
            position: Command::Position {
                fen: Variant::Lasca.start_fen().into(),
                moves: Vec::new(),
            },
            to_move: bashni_rules::Game::new(GameConfig::online(Variant::Lasca).rules())
                .position()
                .clone(),
            go: Go::MoveTime(100),
        };
        let names: Vec<String> = job.options().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names[0], "UCI_Variant");
        assert_eq!(
            names,
            [
                "UCI_Variant",
                "KingLanding",
                "ForcedCapture",
                "NoProgressPlies",
                "MaxPlies",
                "UCI_LimitStrength",
                "UCI_Elo"
            ]
        );
        assert_eq!(job.patience(), Duration::from_millis(100) + ANSWER_GRACE);
    }

    #[test]
    fn an_analysis_sets_full_strength_and_its_lines_only() {
        let job = AnalysisJob {
            game: GameConfig {
                king_landing: bashni_rules::KingLanding::Free,
                ..GameConfig::new(Variant::Bashni)
            },
            position: Command::Position {
                fen: Variant::Bashni.start_fen().into(),
                moves: Vec::new(),
            },
            lines: 3,
            white_to_move: true,
        };
        let options = job.options();
        assert_eq!(options[0], ("UCI_Variant".into(), "bashni".into()));
        assert!(options.contains(&("MultiPV".into(), "3".into())));
        assert!(options.contains(&("KingLanding".into(), "free".into())));
        assert!(options.contains(&("UCI_LimitStrength".into(), "false".into())));
    }

    #[test]
    fn a_root_move_stands_in_one_line_only() {
        let line = |multipv, first: &str| PvLine {
            multipv,
            depth: 1,
            score: "+0.00".into(),
            cp: 0,
            pv: vec![first.into()],
        };
        let mut lines = vec![line(1, "c3-d4"), line(2, "a3-b4")];
        merge_line(&mut lines, line(1, "a3-b4"));
        assert_eq!(lines, vec![line(1, "a3-b4")]);
    }

    #[test]
    fn lines_show_scores_from_whites_view() {
        let info = |line: &str| Info::parse(line).expect("an info line");
        let report = "info depth 7 multipv 2 score cp 35 nodes 10 pv c3-d4 f6-g5";
        let white = PvLine::from_info(info(report), true).expect("a line");
        assert_eq!((white.multipv, white.depth, white.cp), (2, 7, 35));
        assert_eq!((white.score.as_str(), white.pv.len()), ("+0.35", 2));
        let black = PvLine::from_info(info(report), false).expect("a line");
        assert_eq!((black.score.as_str(), black.cp), ("-0.35", -35));
        let mate = PvLine::from_info(info("info depth 3 score mate 2 pv a1-b2"), false);
        assert_eq!(mate.map(|l| l.score), Some("-M2".to_string()));
        for bare in ["info depth 3 nodes 5 pv a1-b2", "info depth 3 score cp 1"] {
            assert_eq!(PvLine::from_info(info(bare), true), None, "{bare}");
        }
    }
}
