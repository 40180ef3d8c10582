//! The engine's asynchronous `ThreadStore` port on sled: each call is one
//! trip to the blocking pool ([`run_blocking`]) running the store's
//! synchronous reads, and a turn's writes go to the flusher, which makes
//! them just before the fsync that covers them.

use std::sync::Arc;

use confer_actors::{
    AdmissionReads, AppendDone, LastTurn, OrgId, StoreError, StoreFuture, ThreadAppend, ThreadId,
    ThreadStore, TurnInputs, UsageRecord, run_blocking,
};

use super::QueuedAppend;
use crate::store::SledStore;

/// `SledStore` as the engine's port.
pub struct SledPort(pub(crate) Arc<SledStore>);

impl SledPort {
    /// `f` on the blocking pool, with the store.
    fn call<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let store = Arc::clone(&self.0);
        Box::pin(run_blocking(move || f(&store)))
    }
}

impl ThreadStore for SledPort {
    fn turn_inputs(
        &self,
        org: OrgId,
        thread: ThreadId,
        with_history: bool,
    ) -> StoreFuture<Option<TurnInputs>> {
        self.call(move |s| {
            let Some(thread) = s.thread(org, thread)? else {
                return Ok(None);
            };
            let agent = thread.agent_id;
            Ok(Some(TurnInputs {
                agent: s.agent(org, agent)?,
                credentials: s.credentials(org, agent)?,
                compaction: s.compaction(org, agent)?,
                plans: s.plan_config(org, agent)?,
                knowledge: s.knowledge_config(org, agent)?,
                history: with_history.then(|| s.context(thread.id)).transpose()?,
                thread,
            }))
        })
    }

    fn admission_reads(
        &self,
        thread: ThreadId,
        key: Option<[u8; 32]>,
        tail: bool,
    ) -> StoreFuture<AdmissionReads> {
        self.call(move |s| {
            Ok(AdmissionReads {
                keyed: key
                    .map(|key| s.idempotency(thread, &key))
                    .transpose()?
                    .flatten(),
                tail: tail.then(|| s.context_tail(thread)).transpose()?,
            })
        })
    }

    fn last_turn(&self, thread: ThreadId) -> StoreFuture<LastTurn> {
        self.call(move |s| {
            s.last_turn(thread)
                .map(|turn| LastTurn { turn, node: None })
        })
    }

    fn record_usage(&self, record: UsageRecord) -> StoreFuture<UsageRecord> {
        self.call(move |s| s.record_usage(record))
    }

    fn flush(&self) -> StoreFuture<()> {
        Box::pin(self.0.commit.flush())
    }

    /// Hands the append to the flusher (see `durability`), or, when too many
    /// already wait there, makes it on the blocking pool and then flushes.
    fn append_durably(&self, thread: ThreadId, write: ThreadAppend) -> StoreFuture<AppendDone> {
        let (reply, done) = tokio::sync::oneshot::channel();
        let queued = QueuedAppend {
            store: Arc::clone(&self.0),
            thread,
            write: Some(write),
            stored: None,
            reply,
        };
        match self.0.commit.submit(queued) {
            Ok(()) => Box::pin(async move {
                done.await
                    .map_err(|_| StoreError::Engine("the store's flusher stopped".into()))?
            }),
            Err(mut queued) => {
                let write = queued.write.take().unwrap_or_default();
                drop(queued);
                let store = Arc::clone(&self.0);
                Box::pin(async move {
                    let writer = Arc::clone(&store);
                    let listed = run_blocking(move || writer.append(thread, write)).await?;
                    let applied_at = std::time::Instant::now();
                    store.commit.flush().await?;
                    Ok(AppendDone { listed, applied_at })
                })
            }
        }
    }
}
