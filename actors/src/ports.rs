//! Ports: the traits through which the engine reaches the outside world.
//!
//! `ThreadStore` is what a thread's turn needs from durable storage. Its calls
//! may touch the disk, so async callers run them on a blocking pool; `flush`
//! is the one asynchronous call: it resolves once every write made before it
//! is on disk (implementations share one fsync between concurrent callers).

use std::future::Future;
use std::pin::Pin;

use crate::domain::{Agent, CredentialConfig, Message, Thread, UsageRecord};
use crate::ids::{AgentId, OrgId, ThreadId};
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
}

/// The future a store's asynchronous call returns.
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send>>;

/// Durable state of threads, as the conversation runtime sees it.
pub trait ThreadStore: Send + Sync + 'static {
    /// The agent, including a soft-deleted one.
    fn agent(&self, org: OrgId, agent: AgentId) -> Result<Option<Agent>, StoreError>;

    /// The thread, if it exists in this org.
    fn thread(&self, org: OrgId, thread: ThreadId) -> Result<Option<Thread>, StoreError>;

    /// Appends to a thread in one atomic write: a listed message (its `seq`
    /// assigned; returned) and entries of the model's context.
    fn append(
        &self,
        thread: ThreadId,
        listed: Option<Message>,
        context: Vec<ContextMessage>,
    ) -> Result<Option<Message>, StoreError>;

    /// The model's context of a thread, oldest first.
    fn context(&self, thread: ThreadId) -> Result<Vec<ContextMessage>, StoreError>;

    /// An agent's credential resolver configuration.
    fn credentials(&self, org: OrgId, agent: AgentId) -> Result<CredentialConfig, StoreError>;

    /// `limit` messages starting after `offset`, oldest first, and the total.
    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> Result<(Vec<Message>, u64), StoreError>;

    /// Stores a usage record (its `created_at` is made unique within the org).
    fn record_usage(&self, record: UsageRecord) -> Result<UsageRecord, StoreError>;

    /// Resolves once every write made before the call is durable.
    fn flush(&self) -> StoreFuture<()>;
}
