//! Ports: the traits through which the engine reaches the outside world.
//!
//! `ThreadStore` is what a thread's turn needs from durable storage. Its calls
//! may touch the disk, so async callers run them on a blocking pool; `flush`
//! is the one asynchronous call: it resolves once every write made before it
//! is on disk (implementations share one fsync between concurrent callers).

use std::future::Future;
use std::pin::Pin;

use crate::domain::{
    Agent, CompactionConfig, CredentialConfig, Message, PlanConfig, Thread, UsageRecord,
};
use crate::idempotency::IdempotencyRecord;
use crate::ids::{OrgId, ThreadId};
use crate::provider::ContextMessage;

/// A storage failure. The detail is for logs, never for API clients.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The storage engine failed (I/O, corruption).
    #[error("storage engine: {0}")]
    Engine(String),
    /// A record could not be decoded (unknown version or bad bytes).
    #[error("record codec: {0}")]
    Codec(String),
    /// A flush failed earlier: the store accepts no more writes until the
    /// process restarts (an acknowledged write must never be lost).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// The database did not answer, or refused a statement, this time
    /// (the PostgreSQL store): nothing was written, and a retry may
    /// succeed. Unlike [`StoreError::Unavailable`], later writes are
    /// accepted.
    #[error("store unreachable: {0}")]
    Unreachable(String),
    /// The write was made under a lease this node no longer holds
    /// (`scale.md` §3.4): nothing of it was kept, and the turn ends with
    /// `NODE_LOST_LEASE`.
    #[error("the thread's shard is no longer this node's")]
    Fenced,
    /// The store cannot keep a value of the named field (PostgreSQL's
    /// `jsonb` refuses U+0000 in text): nothing was written, and the
    /// caller must change the field.
    #[error("`{0}` holds a character this store cannot keep (U+0000)")]
    Unstorable(String),
    /// The record kind is not kept by this store yet (a PostgreSQL store
    /// while kinds move to it, `scale.md` §2): nothing was read or written.
    #[error("this kind of record is not kept in PostgreSQL yet")]
    NotOnThisStore,
}

/// The lease a thread's writes are made under when several nodes share
/// the store (`scale.md` §3.4): the node, the thread's shard and the
/// epoch its owner held when the thread's actor started. A write whose
/// lease moved fails with [`StoreError::Fenced`]. A store without leases
/// (sled) ignores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    pub node: uuid::Uuid,
    pub shard: u16,
    pub epoch: i64,
}

/// A thread's last turn number, and the node its newest `turns` row names
/// (PostgreSQL keeps one per started turn; sled none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LastTurn {
    /// The highest turn number stored (0 for none).
    pub turn: u64,
    /// The node that started the thread's newest turn, where known.
    pub node: Option<uuid::Uuid>,
}

impl LastTurn {
    /// The number the thread's next send gets on the node `fence` names
    /// (`scale.md` §3.6): after another node's turns, the numbers its
    /// running and queued sends may have shown clients (never stored) are
    /// skipped, so no client sees one number twice.
    pub fn next_for(self, fence: Option<&Fence>, max_queued: usize) -> u64 {
        match (fence, self.node) {
            (Some(fence), Some(node)) if node != fence.node => {
                self.turn + u64::try_from(max_queued).unwrap_or(u64::MAX / 2) + 2
            }
            _ => self.turn + 1,
        }
    }
}

/// How a turn ended, as its `turns` row keeps it (`scale.md` §3.5): what
/// a reader reattaching on another node is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnEnd {
    pub turn: u64,
    /// `done` when true, else `failed`.
    pub ok: bool,
    /// The error code a failed turn ended with.
    pub code: Option<String>,
    /// The index its `done` frame has: a reader past it missed nothing.
    pub last_frame: u64,
}

/// What a write tells the `turns` table (the PostgreSQL store; sled keeps
/// no such rows). Needs the write's [`Fence`]: the row names its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnMark {
    /// The turn's first write: its row, `running`.
    Started {
        turn: u64,
        trace_id: Option<crate::TraceId>,
    },
    /// The turn's last write.
    Ended(TurnEnd),
}

/// Store calls that may run at once on the blocking pool unless the
/// server sets another bound ([`set_store_concurrency`]): one more than the
/// CPUs this process may use. A store call is mostly CPU work in sled's
/// cache, so more threads than cores do not finish more calls; they only
/// share the cores with the HTTP workers relaying tokens. With 32 at once
/// (the bound before), 500 paced streams on one core waited 33 ms for a
/// store read and 13 ms per token; with 2, 1.2 ms (docs/performance-history.md).
/// Past the bound calls wait for a slot, and the pool stays small.
fn default_store_concurrency() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from) + 1
}

static STORE_SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();

/// Sets how many store calls may run at once (0: the default), before the
/// first store call as the server does at start; later it changes nothing.
pub fn set_store_concurrency(calls: usize) {
    let calls = match calls {
        0 => default_store_concurrency(),
        n => n,
    };
    let _ = STORE_SLOTS.set(tokio::sync::Semaphore::new(calls));
}

fn store_slots() -> &'static tokio::sync::Semaphore {
    STORE_SLOTS.get_or_init(|| tokio::sync::Semaphore::new(default_store_concurrency()))
}

/// Runs a synchronous store call on the blocking pool, at most the store
/// concurrency ([`set_store_concurrency`], by default the CPUs + 1) at a time.
pub async fn run_blocking<T, F>(f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, StoreError> + Send + 'static,
{
    let _slot = store_slots()
        .acquire()
        .await
        .map_err(|_| StoreError::Engine("store slots closed".into()))?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Engine(format!("store task: {e}")))?
}

/// The future a store's asynchronous call returns.
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send>>;

/// One atomic write of a turn: what the user sent at its start, or the
/// answer at its end.
#[derive(Debug, Default)]
pub struct ThreadAppend {
    /// The turn's number, noted with its first write (the thread keeps the
    /// highest it has used, so numbers are never reused after a restart).
    pub turn: Option<u64>,
    /// A message of the listed history; its `seq` is assigned by the store.
    pub listed: Option<Message>,
    /// Entries of the model's context, in order.
    pub context: Vec<ContextMessage>,
    /// The keyed send's record (with the turn's outcome, on the answer's
    /// write, where the store fills in the answer's id and seq).
    pub keyed: Option<([u8; 32], IdempotencyRecord)>,
    /// The usage record of the model call that just ended, stored here and
    /// linked to `listed`.
    pub usage: Option<UsageRecord>,
    /// Usage records stored (unlinked) earlier in the turn (a compaction's
    /// summary call, whose summary was stored then); linked to `listed` here.
    pub billed: Vec<UsageRecord>,
    /// Usage records of the turn's earlier model calls (tool steps,
    /// replaced fallbacks), kept in memory until now: stored here, linked
    /// to `listed`. A crash before this write forgets them, as it forgets
    /// the unfinished turn; nothing of them was acknowledged.
    pub earlier_calls: Vec<UsageRecord>,
    /// The turn's trace, on the answer's write.
    pub trace: Option<Box<crate::trace::TraceRecord>>,
    /// The lease the write is made under (a cluster's store checks it
    /// first).
    pub fence: Option<Fence>,
    /// What the `turns` table learns from this write.
    pub mark: Option<TurnMark>,
}

/// A write [`ThreadStore::append_durably`] made durable.
#[derive(Debug)]
pub struct AppendDone {
    /// The listed message as stored (its `seq` assigned).
    pub listed: Option<Message>,
    /// When the write was made; from then on the caller waited for the
    /// flush.
    pub applied_at: std::time::Instant,
}

/// Everything a turn reads before it starts, in one store call.
#[derive(Debug)]
pub struct TurnInputs {
    pub thread: Thread,
    /// The thread's agent, including a soft-deleted one (`None`: gone).
    pub agent: Option<Agent>,
    pub credentials: CredentialConfig,
    pub compaction: CompactionConfig,
    pub plans: PlanConfig,
    pub knowledge: crate::domain::KnowledgeConfig,
    /// The model's context, oldest first, when asked for.
    pub history: Option<Vec<ContextMessage>>,
}

/// What admitting a send may read, in one store call.
#[derive(Debug, Default)]
pub struct AdmissionReads {
    /// The keyed send's record, expired or not.
    pub keyed: Option<IdempotencyRecord>,
    /// The end of the thread's context from its last assistant entry on
    /// (all of it when there is none): what the send rules need.
    pub tail: Option<Vec<ContextMessage>>,
}

/// Durable state of threads, as the conversation runtime sees it.
///
/// Asynchronous and object-safe (`scale.md` §2), so one engine runs on
/// either store: sled's calls run on the blocking pool ([`run_blocking`]),
/// PostgreSQL's await its pool. Each method is what one step of a turn
/// needs, read or written in one call, so a turn makes no more trips to
/// the store than it has steps.
pub trait ThreadStore: Send + Sync + 'static {
    /// The thread (`None`: not in this org) and what its turn reads with
    /// it; the context only when `with_history`.
    fn turn_inputs(
        &self,
        org: OrgId,
        thread: ThreadId,
        with_history: bool,
    ) -> StoreFuture<Option<TurnInputs>>;

    /// The record of a keyed send on `thread` (when `key` is given) and
    /// the context's tail (when `tail`).
    fn admission_reads(
        &self,
        thread: ThreadId,
        key: Option<[u8; 32]>,
        tail: bool,
    ) -> StoreFuture<AdmissionReads>;

    /// The highest turn number the thread has used (0 for none), and the
    /// node of its newest turn where the store knows it.
    fn last_turn(&self, thread: ThreadId) -> StoreFuture<LastTurn>;

    /// Stores a usage record (its `created_at` is made unique within the org)
    /// and returns it as stored: how a model call that is not the turn's last
    /// is billed when it ends, to be linked by the answer's [`ThreadAppend`].
    fn record_usage(&self, record: UsageRecord) -> StoreFuture<UsageRecord>;

    /// Resolves once every write made before the call is durable.
    fn flush(&self) -> StoreFuture<()>;

    /// Writes `write` to the thread in one atomic transaction (the listed
    /// message's `seq` assigned) and resolves once it is durable: how a
    /// turn writes. The sled store makes the write where it flushes.
    fn append_durably(&self, thread: ThreadId, write: ThreadAppend) -> StoreFuture<AppendDone>;

    /// Records how a turn ended when its last write was not an append
    /// (`scale.md` §3.5); a store without a `turns` table (sled) has
    /// nothing to do.
    fn end_turn(&self, thread: ThreadId, fence: Option<Fence>, end: TurnEnd) -> StoreFuture<()> {
        let _ = (thread, fence, end);
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn blocking_store_calls_are_bounded() {
        let now = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..200)
            .map(|_| {
                let (now, peak) = (Arc::clone(&now), Arc::clone(&peak));
                tokio::spawn(run_blocking(move || {
                    let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(running, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    now.fetch_sub(1, Ordering::SeqCst);
                    Ok(())
                }))
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
        let peak = peak.load(Ordering::SeqCst);
        let bound = default_store_concurrency();
        assert_eq!(peak, bound, "calls run concurrently up to the bound");
    }
}
