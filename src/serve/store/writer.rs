//! Group commit: one task writes for every room. It takes every write
//! waiting (moves, and the rooms' other writes: a seat taken, a game
//! started or finished, offers...) and stores them in one transaction,
//! then answers each once it has committed. A room awaits its answer
//! before it broadcasts what it wrote, so nothing a player saw can be
//! lost, while the database sees one commit (one fsync) per batch
//! instead of one per write.
//!
//! SQLite lets one writer in at a time: a transaction that a room task
//! held open while it waited its turn on the runtime kept the batch
//! waiting too (measured: 14 ms of a 20 ms batch cycle under load), and
//! writers on several connections meet SQLite's busy handler, which
//! sleeps rather than queues. So every write of a room goes through here.
//!
//! One refused write must not fail the others. A batch is first written
//! as it comes, in as few statements as it takes: with SQLite each
//! statement is a round trip to sqlx's database thread, and under load
//! each round trip waits for a CPU. If anything in it is refused, the
//! batch is written again with each room's action, and then each move,
//! in a savepoint of its own, so that only what is at fault is refused.
//! An action's writes (a move and the result it brings, a seat and the
//! game it starts) are stored together or not at all, so a room that
//! goes back to where it was when the store refuses finds the store
//! where it left it.

use super::{MoveRecord, Store, StoreError, Tx, Work, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, oneshot};

/// Why a write (a move or another) was not stored.
#[derive(Debug)]
pub enum WriteError {
    /// The store refused it (see [`StoreError`]).
    Store(StoreError),
    /// The batch's transaction failed: nothing of it was stored.
    Batch(String),
    /// The writer task has stopped; nothing more is stored.
    Closed,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Store(e) => e.fmt(f),
            WriteError::Batch(e) => f.write_str(e),
            WriteError::Closed => f.write_str("the move writer has stopped"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Store(e) => Some(e),
            WriteError::Batch(_) | WriteError::Closed => None,
        }
    }
}

/// What one room hands the writer at once: the writes of one action (a
/// seat and the game it starts, a move and the result it brings, the
/// offers they leave), stored all or none, in order.
struct Pending {
    work: Vec<Work>,
    done: oneshot::Sender<Result<(), WriteError>>,
}

/// Counters of what the writer did.
#[derive(Debug, Default)]
pub struct WriterStats {
    moves: AtomicU64,
    batches: AtomicU64,
}

impl WriterStats {
    /// Moves stored.
    pub fn moves(&self) -> u64 {
        self.moves.load(Ordering::Relaxed)
    }

    /// Transactions committed.
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }
}

/// The handle rooms send their moves to; cheap to clone. When every
/// handle is dropped, the writer stores what it holds and stops.
#[derive(Clone)]
pub struct MoveWriter {
    queue: mpsc::Sender<Pending>,
    stats: Arc<WriterStats>,
}

impl MoveWriter {
    /// Start the writer on a thread of its own: at most `max_batch`
    /// writes per turn, at most `queue` waiting (senders wait when it is
    /// full: back-pressure, not loss). The receiver answers once the
    /// writer has stored what it held and stopped.
    ///
    /// Its own thread, with its own runtime, because a transaction is
    /// several round trips to the database's thread, and on the server's
    /// runtime each answer waited behind every ready room and connection
    /// before the next statement went out (measured under load: about
    /// 8,000 moves a second on the shared runtime, 9,000 to 10,000 here).
    pub fn spawn(
        store: Store,
        max_batch: usize,
        queue: usize,
    ) -> std::io::Result<(MoveWriter, oneshot::Receiver<()>)> {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let stats = Arc::new(WriterStats::default());
        let work = run(store, rx, max_batch.max(1), Arc::clone(&stats));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stopped, on_stop) = oneshot::channel();
        std::thread::Builder::new()
            .name("bashni-writer".into())
            .spawn(move || {
                runtime.block_on(work);
                let _ = stopped.send(());
            })?;
        Ok((MoveWriter { queue: tx, stats }, on_stop))
    }

    /// Store `record`; returns once it is committed (or refused).
    pub async fn append(&self, record: MoveRecord) -> Result<(), WriteError> {
        self.submit(vec![Work::Move(record)]).await
    }

    /// Store `write`; returns once it is committed (or refused).
    pub async fn write(&self, write: Write) -> Result<(), WriteError> {
        self.submit(vec![Work::Other(write)]).await
    }

    /// Store all of `work` in order, or none of it; returns once it is
    /// committed (or refused).
    pub async fn submit(&self, work: Vec<Work>) -> Result<(), WriteError> {
        if work.is_empty() {
            return Ok(());
        }
        let (done, answer) = oneshot::channel();
        self.queue
            .send(Pending { work, done })
            .await
            .map_err(|_| WriteError::Closed)?;
        answer.await.unwrap_or(Err(WriteError::Closed))
    }

    /// What the writer has done so far.
    pub fn stats(&self) -> &WriterStats {
        &self.stats
    }
}

type Answer = oneshot::Sender<Result<(), WriteError>>;

async fn run(
    store: Store,
    mut rx: mpsc::Receiver<Pending>,
    max_batch: usize,
    stats: Arc<WriterStats>,
) {
    let mut waiting = Vec::with_capacity(max_batch);
    while rx.recv_many(&mut waiting, max_batch).await > 0 {
        let (mut actions, mut moves) = (Vec::new(), Vec::with_capacity(waiting.len()));
        for Pending { mut work, done } in waiting.drain(..) {
            match work.as_slice() {
                [Work::Move(_)] => {
                    if let Some(Work::Move(record)) = work.pop() {
                        moves.push((record, done));
                    }
                }
                _ => actions.push((work, done)),
            }
        }
        // Each room waits for its write before it makes the next, so no
        // room has two writes here and their order does not matter.
        store_batch(&store, actions, moves, &stats).await;
    }
}

/// Store `actions` and `moves` in one transaction and answer each.
async fn store_batch(
    store: &Store,
    actions: Vec<(Vec<Work>, Answer)>,
    moves: Vec<(MoveRecord, Answer)>,
    stats: &WriterStats,
) {
    let (actions, action_answers): (Vec<Vec<Work>>, Vec<Answer>) = actions.into_iter().unzip();
    let (moves, move_answers): (Vec<MoveRecord>, Vec<Answer>) = moves.into_iter().unzip();
    let answers = action_answers.into_iter().chain(move_answers);
    match write_batch(store, &actions, &moves).await {
        Ok(outcomes) => {
            stats.batches.fetch_add(1, Ordering::Relaxed);
            let stored = stored_moves(&actions, &outcomes);
            stats.moves.fetch_add(stored, Ordering::Relaxed);
            for (done, outcome) in answers.zip(outcomes) {
                let _ = done.send(outcome.map_err(WriteError::Store));
            }
        }
        Err(e) => {
            let why = e.to_string();
            for done in answers {
                let _ = done.send(Err(WriteError::Batch(why.clone())));
            }
        }
    }
}

/// How many moves a batch whose `actions` came before its lone moves
/// stored, by the `outcomes` of each.
fn stored_moves(actions: &[Vec<Work>], outcomes: &[Result<(), StoreError>]) -> u64 {
    let moves_in = |work: &Vec<Work>| work.iter().filter(|w| matches!(w, Work::Move(_))).count();
    let (of_actions, alone) = outcomes.split_at(actions.len());
    let in_actions: usize = actions
        .iter()
        .zip(of_actions)
        .filter(|(_, outcome)| outcome.is_ok())
        .map(|(work, _)| moves_in(work))
        .sum();
    (in_actions + alone.iter().filter(|o| o.is_ok()).count()) as u64
}

/// Run `actions`, then store `moves`, in one transaction: the outcome of
/// each action, then of each move, once committed; an error if the
/// transaction itself failed (then nothing of it is stored).
async fn write_batch(
    store: &Store,
    actions: &[Vec<Work>],
    moves: &[MoveRecord],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut tx = store.begin().await?;
    if write_all(&mut tx, actions, moves).await.is_ok() {
        tx.commit().await?;
        return Ok((0..actions.len() + moves.len()).map(|_| Ok(())).collect());
    }
    tx.rollback().await?;
    let mut tx = store.begin().await?;
    let outcomes = write_each_alone(&mut tx, actions, moves).await?;
    tx.commit().await?;
    Ok(outcomes)
}

/// Run `actions` and store `moves`, stopping at the first refusal.
async fn write_all(
    tx: &mut Tx,
    actions: &[Vec<Work>],
    moves: &[MoveRecord],
) -> Result<(), StoreError> {
    for work in actions {
        tx.run(work).await?;
    }
    tx.append_moves_together(moves).await
}

/// Run each of `actions`, then store each of `moves`, in a savepoint of
/// its own: the outcome of each; an error if the transaction itself
/// failed.
async fn write_each_alone(
    tx: &mut Tx,
    actions: &[Vec<Work>],
    moves: &[MoveRecord],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut outcomes = Vec::with_capacity(actions.len() + moves.len());
    for work in actions {
        outcomes.push(tx.run_alone(work).await?);
    }
    for mv in moves {
        outcomes.push(tx.append_moves_alone(std::slice::from_ref(mv)).await?);
    }
    Ok(outcomes)
}
