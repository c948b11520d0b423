//! Group commit: one task writes the moves of every room, as many as are
//! waiting in one transaction, and answers each move once its transaction
//! has committed. A room awaits [`MoveWriter::append`] before it
//! broadcasts the move, so nothing a player saw can be lost, while the
//! database sees one commit (one fsync) per batch instead of per move.
//!
//! A batch that fails because of one move (a doubled ply) would fail the
//! others with it; the writer then stores that batch's moves one by one,
//! so each move gets its own answer.

use super::{MoveRecord, Store, StoreError};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Why a move was not stored.
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

struct Pending {
    record: MoveRecord,
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
    /// Start the writer task on the current tokio runtime: at most
    /// `max_batch` moves per transaction, at most `queue` moves waiting
    /// (senders wait when it is full: back-pressure, not loss).
    pub fn spawn(store: Store, max_batch: usize, queue: usize) -> (MoveWriter, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let stats = Arc::new(WriterStats::default());
        let task = tokio::spawn(run(store, rx, max_batch.max(1), Arc::clone(&stats)));
        (MoveWriter { queue: tx, stats }, task)
    }

    /// Store `record`; returns once it is committed (or refused).
    pub async fn append(&self, record: MoveRecord) -> Result<(), WriteError> {
        let (done, answer) = oneshot::channel();
        self.queue
            .send(Pending { record, done })
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
    let mut batch = Vec::with_capacity(max_batch);
    while rx.recv_many(&mut batch, max_batch).await > 0 {
        let (records, answers): (Vec<MoveRecord>, Vec<_>) =
            batch.drain(..).map(|p| (p.record, p.done)).unzip();
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
}
