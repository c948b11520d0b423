//! The engine processes of the play server: at most `--max-engines` run
//! at once; a search past the cap waits its turn (the room shows how many
//! wait). Processes are kept between searches and reused; one that
//! crashes, stalls or answers nonsense is dropped (killed), and the next
//! search starts a fresh one, from the position the room holds.
//!
//! A room chooses only its variant, rules and one whitelisted strength
//! ([`Strength`]); the options sent are built here, never taken from a
//! client.

use super::config::{GameConfig, Strength};
use bashni_host::Error;
use bashni_host::asynchronous::{Engine, EngineEvent};
use bashni_host::protocol::{Command, Event, Go};
use bashni_host::spec::EngineSpec;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::{self, UnboundedReceiver};
use tokio::sync::{Semaphore, SemaphorePermit};

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
    /// The limit: the room's clocks, or a time per move.
    pub go: Go,
}

impl SearchJob {
    /// The options this job sets, in order: the variant first (setting
    /// it resets the draw options), then the rules, then the strength.
    fn options(&self) -> Vec<(String, String)> {
        let game = &self.game;
        let mut options = vec![
            ("UCI_Variant".to_string(), game.variant.to_string()),
            ("KingLanding".into(), game.king_landing.to_string()),
            ("ForcedCapture".into(), game.forced_capture.to_string()),
            (
                "NoProgressPlies".into(),
                game.draw.no_progress_plies.to_string(),
            ),
            ("MaxPlies".into(), game.draw.max_plies.to_string()),
        ];
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

/// A started engine with the receiver of its lines.
struct Worker {
    engine: Engine,
    inbox: UnboundedReceiver<EngineEvent>,
}

/// The pool.
pub struct EnginePool {
    spec: EngineSpec,
    slots: Semaphore,
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

    /// Engine processes started so far (a restart after a crash counts).
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// The most that run at once.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Wait for a free engine slot (the caller sees [`EnginePool::waiting`]
    /// count it meanwhile).
    pub async fn slot(&self) -> Result<SemaphorePermit<'_>, Error> {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let permit = self.slots.acquire().await;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        permit.map_err(|_| Error::Crashed("the engine pool is closed".into()))
    }

    /// The engine's move for `job`, searched in a slot the caller holds.
    /// The move text is the engine's: the room checks it.
    pub async fn search(
        &self,
        job: &SearchJob,
        _slot: &SemaphorePermit<'_>,
    ) -> Result<String, Error> {
        let mut worker = match self.take_idle() {
            Some(worker) => worker,
            None => self.start().await?,
        };
        let answer = tokio::time::timeout(job.patience(), run_job(&mut worker, job)).await;
        match answer {
            Ok(Ok(text)) => {
                self.give_back(worker);
                Ok(text)
            }
            // Dropping the worker kills its process.
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Error::Stalled("no bestmove in time".into())),
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

/// Set the job's options, search, and wait for `bestmove`.
async fn run_job(worker: &mut Worker, job: &SearchJob) -> Result<String, Error> {
    let engine = &mut worker.engine;
    for (name, value) in job.options() {
        engine.send(&Command::set_option(name, value)).await?;
    }
    engine.send(&Command::NewGame).await?;
    engine.go(job.position.clone(), job.go).await?;
    while let Some(event) = worker.inbox.recv().await {
        match event {
            EngineEvent::Line(g, line) if g == engine.generation() => {
                if let Some(Event::BestMove(best)) = engine.feed(&line) {
                    return Ok(best.text);
                }
            }
            EngineEvent::Exited(g) if g == engine.generation() => {
                let how = engine.exit_status().await;
                return Err(Error::Crashed(format!("the engine {how}")));
            }
            _ => {}
        }
    }
    Err(Error::Crashed("the engine's output is gone".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::Variant;

    #[test]
    fn a_job_sets_the_rules_then_only_a_whitelisted_strength() {
        let job = SearchJob {
            game: GameConfig::online(Variant::Lasca),
            strength: Strength::Elo(1500),
            position: Command::Position {
                fen: Variant::Lasca.start_fen().into(),
                moves: Vec::new(),
            },
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
}
