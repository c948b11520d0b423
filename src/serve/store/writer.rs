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
//! batch is written again with each write, and then each move, in a
//! savepoint of its own, so that only what is at fault is refused.

use super::{MoveRecord, Store, StoreError, Tx, Write};
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
            WriteError::Batch(e) => write!(f, "not stored: {e}"),
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

/// What the writer stores: a move, in the group commits, or any other
/// write, in its own transaction in the writer's turn.
#[derive(Debug)]
pub enum Work {
    /// A move.
    Move(MoveRecord),
    /// Anything else.
    Other(Write),
}

struct Pending {
    work: Work,
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
        self.submit(Work::Move(record)).await
    }

    /// Store `write`; returns once it is committed (or refused).
    pub async fn write(&self, write: Write) -> Result<(), WriteError> {
        self.submit(Work::Other(write)).await
    }

    /// Store `work`; returns once it is committed (or refused).
    pub async fn submit(&self, work: Work) -> Result<(), WriteError> {
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
        let (mut writes, mut moves) = (Vec::new(), Vec::with_capacity(waiting.len()));
        for Pending { work, done } in waiting.drain(..) {
            match work {
                Work::Move(record) => moves.push((record, done)),
                Work::Other(write) => writes.push((write, done)),
            }
        }
        // Each room waits for its write before it makes the next, so no
        // room has two writes here and their order does not matter.
        store_batch(&store, writes, moves, &stats).await;
    }
}

/// Store `writes` and `moves` in one transaction and answer each.
async fn store_batch(
    store: &Store,
    writes: Vec<(Write, Answer)>,
    moves: Vec<(MoveRecord, Answer)>,
    stats: &WriterStats,
) {
    let (writes, write_answers): (Vec<Write>, Vec<Answer>) = writes.into_iter().unzip();
    let (moves, move_answers): (Vec<MoveRecord>, Vec<Answer>) = moves.into_iter().unzip();
    let answers = write_answers.into_iter().chain(move_answers);
    match write_batch(store, &writes, &moves).await {
        Ok(outcomes) => {
            stats.batches.fetch_add(1, Ordering::Relaxed);
            let stored = outcomes[writes.len()..].iter().filter(|o| o.is_ok());
            stats
                .moves
                .fetch_add(stored.count() as u64, Ordering::Relaxed);
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

/// Run `writes`, then store `moves`, in one transaction: the outcome of
/// each write, then of each move, once committed; an error if the
/// transaction itself failed (then nothing of it is stored).
async fn write_batch(
    store: &Store,
    writes: &[Write],
    moves: &[MoveRecord],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut tx = store.begin().await?;
    if write_all(&mut tx, writes, moves).await.is_ok() {
        tx.commit().await?;
        return Ok((0..writes.len() + moves.len()).map(|_| Ok(())).collect());
    }
    tx.rollback().await?;
    let mut tx = store.begin().await?;
    let outcomes = write_each_alone(&mut tx, writes, moves).await?;
    tx.commit().await?;
    Ok(outcomes)
}

/// Run `writes` and store `moves`, stopping at the first refusal.
async fn write_all(tx: &mut Tx, writes: &[Write], moves: &[MoveRecord]) -> Result<(), StoreError> {
    for write in writes {
        tx.apply(write).await?;
    }
    tx.append_moves_together(moves).await
}

/// Run each of `writes`, then store `moves`, each in a savepoint: the
/// outcome of each; an error if the transaction itself failed.
async fn write_each_alone(
    tx: &mut Tx,
    writes: &[Write],
    moves: &[MoveRecord],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut outcomes = Vec::with_capacity(writes.len() + moves.len());
    for write in writes {
        outcomes.push(tx.apply_alone(write).await?);
    }
    for mv in moves {
        outcomes.push(tx.append_moves_alone(std::slice::from_ref(mv)).await?);
    }
    Ok(outcomes)
}
