//! Group commit: one task writes the moves of every room, as many as are
//! waiting in one transaction, and answers each move once its transaction
//! has committed. A room awaits [`MoveWriter::append`] before it
//! broadcasts the move, so nothing a player saw can be lost, while the
//! database sees one commit (one fsync) per batch instead of per move.
//!
//! The rooms' other writes (a seat taken, a game started or finished,
//! offers) go through the same task ([`MoveWriter::write`]), each in its
//! own transaction between the batches. SQLite lets one writer in at a
//! time: a transaction that a room task held open while it waited its
//! turn on the runtime kept the batch waiting too (measured: 14 ms of a
//! 20 ms batch cycle under load), and writers on several connections
//! meet SQLite's busy handler, which sleeps rather than queues.
//!
//! A batch that fails because of one move (a doubled ply) would fail the
//! others with it; the writer then stores that batch's moves one by one,
//! so each move gets its own answer.

use super::{MoveRecord, Store, StoreError};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, oneshot};

/// Why a write (a move or another) was not stored.
#[derive(Debug)]
pub enum WriteError {
    /// The store refused it (see [`StoreError`]).
    Store(StoreError),
    /// The writer task has stopped; nothing more is stored.
    Closed,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Store(e) => e.fmt(f),
            WriteError::Closed => f.write_str("the move writer has stopped"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Store(e) => Some(e),
            WriteError::Closed => None,
        }
    }
}

/// A write other than a move: it is given the store and runs its own
/// transaction.
type Job = Box<dyn FnOnce(Store) -> JobFuture + Send>;
type JobFuture = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

enum Work {
    Move(MoveRecord),
    Job(Job),
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

    /// Run `write` on the store in the writer's turn; returns its answer
    /// once it has run.
    pub async fn write<F, Fut>(&self, write: F) -> Result<(), WriteError>
    where
        F: FnOnce(Store) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), StoreError>> + Send + 'static,
    {
        let job: Job = Box::new(move |store| Box::pin(write(store)));
        self.submit(Work::Job(job)).await
    }

    async fn submit(&self, work: Work) -> Result<(), WriteError> {
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

async fn run(
    store: Store,
    mut rx: mpsc::Receiver<Pending>,
    max_batch: usize,
    stats: Arc<WriterStats>,
) {
    let mut waiting = Vec::with_capacity(max_batch);
    while rx.recv_many(&mut waiting, max_batch).await > 0 {
        let mut moves = Vec::with_capacity(waiting.len());
        for Pending { work, done } in waiting.drain(..) {
            match work {
                Work::Move(record) => moves.push((record, done)),
                Work::Job(job) => {
                    let _ = done.send(job(store.clone()).await.map_err(WriteError::Store));
                }
            }
        }
        // Each room waits for its write before it makes the next, so no
        // room has two writes here and their order does not matter.
        store_batch(&store, moves, &stats).await;
    }
}

/// Store `moves` in one transaction, or one by one if that fails, and
/// answer each.
async fn store_batch(
    store: &Store,
    moves: Vec<(MoveRecord, oneshot::Sender<Result<(), WriteError>>)>,
    stats: &WriterStats,
) {
    if moves.is_empty() {
        return;
    }
    let (records, answers): (Vec<MoveRecord>, Vec<_>) = moves.into_iter().unzip();
    match store.append_moves(&records).await {
        Ok(()) => {
            stats.batches.fetch_add(1, Ordering::Relaxed);
            stats
                .moves
                .fetch_add(records.len() as u64, Ordering::Relaxed);
            for done in answers {
                let _ = done.send(Ok(()));
            }
        }
        Err(_) => {
            // Nothing of the batch was stored: store each on its own,
            // so only the move at fault is refused.
            for (record, done) in records.iter().zip(answers) {
                let result = store.append_move(record).await;
                if result.is_ok() {
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats.moves.fetch_add(1, Ordering::Relaxed);
                }
                let _ = done.send(result.map_err(WriteError::Store));
            }
        }
    }
}
