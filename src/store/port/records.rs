//! Per-kind ports of the plain records (`scale.md` §2): asynchronous and
//! object-safe like the engine's `ThreadStore`, so one caller runs on
//! either store. sled's calls run on the blocking pool and a write
//! resolves once flushed; PostgreSQL's await its pool and a write resolves
//! once committed.
//!
//! Kinds move here one by one; `tests/api/store_conformance.rs` runs every
//! port on both stores, so a kind kept by one store only shows.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer_actors::{
    Agent, AgentId, ApiKeyId, CompactionConfig, ContextMessage, CredentialConfig, Message, OrgId,
    Participant, StoreError, StoreFuture, Thread, ThreadId, UsageRecord, run_blocking,
};

use crate::error::ApiError;
use crate::store::participants::ParticipantPut;
use crate::store::records::{ApiKey, Org};
use crate::store::thread_access::ThreadAccess;
use crate::store::threads::Created;
use crate::store::update::Updated;
use crate::store::{Page, SledStore, UsageFilter};

/// Organizations and their API keys.
pub trait OrgRecords: Send + Sync + 'static {
    /// Creates or replaces `org`.
    fn put_org(&self, org: Org) -> StoreFuture<()>;

    /// One organization.
    fn org(&self, id: OrgId) -> StoreFuture<Option<Org>>;

    /// Every organization (there are few).
    fn orgs(&self) -> StoreFuture<Vec<Org>>;

    /// Stores a key, found later by the SHA-256 of its secret.
    fn insert_api_key(&self, key: ApiKey, secret_sha256: [u8; 32]) -> StoreFuture<()>;

    /// The key whose secret hashes to `secret_sha256`, with its last use.
    fn api_key_by_hash(&self, secret_sha256: [u8; 32]) -> StoreFuture<Option<ApiKey>>;

    /// The keys of `org`, oldest first, with their last use.
    fn api_keys(&self, org: OrgId) -> StoreFuture<Vec<ApiKey>>;

    /// Deletes a key of `org`; false when it has none of that id. Once
    /// resolved, the key authenticates nothing on any node.
    fn delete_api_key(&self, org: OrgId, id: ApiKeyId) -> StoreFuture<bool>;

    /// The key whose secret hashes to `secret_sha256`, as authentication
    /// uses it: in one trip, its use noted at `now` when the last noted is
    /// older than `stale_after` (never bringing a deleted key back). The
    /// note is acknowledged to no one: a crash may forget it.
    fn use_api_key(
        &self,
        secret_sha256: [u8; 32],
        now: DateTime<Utc>,
        stale_after: chrono::TimeDelta,
    ) -> StoreFuture<Option<ApiKey>>;
}

/// A change to a stored agent (see [`AgentRecords::update_agent`]); it may
/// be called again when a concurrent change wins first.
pub type AgentSwap = Box<dyn FnMut(Agent) -> Result<Agent, ApiError> + Send>;

/// Agents and their configurations.
pub trait AgentRecords: Send + Sync + 'static {
    /// Creates or replaces `agent`.
    fn put_agent(&self, agent: Agent) -> StoreFuture<()>;

    /// The agent (a soft-deleted one included), `None` when not in `org`.
    fn agent(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Agent>>;

    /// The org's agents that are not deleted, by id (oldest first: ids
    /// are time-ordered).
    fn agents(&self, org: OrgId) -> StoreFuture<Vec<Agent>>;

    /// Changes a live agent atomically; `Gone` when it is absent or
    /// deleted (a concurrent delete is never undone). A project deleted
    /// meanwhile leaves the agent with none.
    fn update_agent(
        &self,
        org: OrgId,
        id: AgentId,
        change: AgentSwap,
    ) -> StoreFuture<Updated<Agent, ApiError>>;

    /// Replaces the agent's credential resolver configuration (its signing
    /// secret sealed at rest).
    fn put_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CredentialConfig,
    ) -> StoreFuture<()>;

    /// The agent's credential configuration, its secret opened (the
    /// default when unset).
    fn credentials(&self, org: OrgId, agent: AgentId) -> StoreFuture<CredentialConfig>;

    /// Replaces the agent's compaction configuration.
    fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CompactionConfig,
    ) -> StoreFuture<()>;
}

/// A change to a stored thread (see [`ThreadRecords::update_thread`]).
pub type ThreadSwap = Box<dyn FnMut(Thread) -> Result<Thread, ApiError> + Send>;

/// Threads, their history and their usage, as the API reads them.
pub trait ThreadRecords: Send + Sync + 'static {
    /// Stores a new thread; returns it as stored (`created_at` made unique
    /// within the org).
    fn create_thread(&self, thread: Thread) -> StoreFuture<Thread>;

    /// Stores a new thread with its owner participant, under a creation
    /// key (`keyed`: the key's hash with org and caller, and the request's
    /// hash, hex) checked in the same transaction, so two racing repeats
    /// make one thread; a key older than 24 hours counts as unseen.
    fn create_thread_keyed(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> StoreFuture<Created>;

    /// The thread, `None` when not in `org`.
    fn thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Option<Thread>>;

    /// The thread with what deciding `user`'s access to it needs (and its
    /// agent, `with_agent`), in one trip; `None` when not in `org`.
    fn thread_access(
        &self,
        org: OrgId,
        thread: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> StoreFuture<Option<ThreadAccess>>;

    /// Changes a thread atomically (its org, agent and creation never
    /// change); `Gone` when it was deleted. A project deleted meanwhile
    /// leaves it with none.
    fn update_thread(
        &self,
        org: OrgId,
        thread: ThreadId,
        change: ThreadSwap,
    ) -> StoreFuture<Updated<Thread, ApiError>>;

    /// Deletes a thread: readers see it gone at once and its history is
    /// purged afterwards; false when it was already gone.
    fn delete_thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<bool>;

    /// Listed messages after `offset` (at most `limit`) and how many the
    /// thread has.
    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> StoreFuture<(Vec<Message>, u64)>;

    /// The model's context, oldest first.
    fn context(&self, thread: ThreadId) -> StoreFuture<Vec<ContextMessage>>;

    /// Usage records, newest first, strictly older than `before`.
    fn usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<UsageRecord>>;

    /// The listed threads of an agent, newest first, strictly older than
    /// `before`; with `user`, those it created or joined.
    fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>>;

    /// A thread's delegated children, newest first, strictly older than
    /// `before`.
    fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>>;

    /// Adds or updates a participant of a live thread, keeping its first
    /// join time; with `cap`, a new one is refused once the thread has
    /// that many (two adds cannot both take the last place).
    fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut>;

    /// Every participant of a thread, ordered by user id.
    fn participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>>;

    /// Removes a participant (the thread stays listed for its creator);
    /// false when that user was not one.
    fn remove_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        user_id: String,
    ) -> StoreFuture<bool>;
}

/// sled behind the per-kind ports.
#[derive(Clone)]
pub struct SledRecords(pub(crate) Arc<SledStore>);

impl SledRecords {
    /// A read on the blocking pool.
    pub(super) fn read<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let store = Arc::clone(&self.0);
        Box::pin(run_blocking(move || f(&store)))
    }

    /// A write on the blocking pool, resolved once flushed.
    pub(super) fn write<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let store = Arc::clone(&self.0);
        Box::pin(async move {
            let writer = Arc::clone(&store);
            let value = run_blocking(move || f(&writer)).await?;
            store.commit.flush().await?;
            Ok(value)
        })
    }
}

impl OrgRecords for SledRecords {
    fn put_org(&self, org: Org) -> StoreFuture<()> {
        self.write(move |s| s.put_org(&org))
    }

    fn org(&self, id: OrgId) -> StoreFuture<Option<Org>> {
        self.read(move |s| s.org(id))
    }

    fn orgs(&self) -> StoreFuture<Vec<Org>> {
        self.read(|s| s.orgs())
    }

    fn insert_api_key(&self, key: ApiKey, secret_sha256: [u8; 32]) -> StoreFuture<()> {
        self.write(move |s| s.insert_api_key(&key, &secret_sha256))
    }

    /// From the node's cache of keys (dropped on delete) when it has the
    /// key: one node owns sled, so a delete there is seen here at once.
    fn api_key_by_hash(&self, secret_sha256: [u8; 32]) -> StoreFuture<Option<ApiKey>> {
        if let Some(key) = self.0.cached_api_key(&secret_sha256) {
            return Box::pin(std::future::ready(Ok(Some(key))));
        }
        self.read(move |s| s.api_key_by_hash(&secret_sha256))
    }

    fn api_keys(&self, org: OrgId) -> StoreFuture<Vec<ApiKey>> {
        self.read(move |s| s.api_keys(org))
    }

    fn delete_api_key(&self, org: OrgId, id: ApiKeyId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_api_key(org, id))
    }

    /// A key noted within `stale_after` is known from the node's cache,
    /// without a trip to the blocking pool.
    fn use_api_key(
        &self,
        secret_sha256: [u8; 32],
        now: DateTime<Utc>,
        stale_after: chrono::TimeDelta,
    ) -> StoreFuture<Option<ApiKey>> {
        let fresh = move |key: &ApiKey| key.last_used_at.is_some_and(|at| now - at <= stale_after);
        if let Some(key) = self.0.cached_api_key(&secret_sha256).filter(fresh) {
            return Box::pin(std::future::ready(Ok(Some(key))));
        }
        self.read(move |s| {
            let key = s.api_key_by_hash(&secret_sha256)?;
            if let Some(key) = &key
                && !fresh(key)
            {
                s.touch_api_key(key.id, now)?;
            }
            Ok(key)
        })
    }
}

impl AgentRecords for SledRecords {
    fn put_agent(&self, agent: Agent) -> StoreFuture<()> {
        self.write(move |s| s.put_agent(&agent))
    }

    fn agent(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Agent>> {
        self.read(move |s| s.agent(org, agent))
    }

    fn agents(&self, org: OrgId) -> StoreFuture<Vec<Agent>> {
        self.read(move |s| s.agents(org))
    }

    fn update_agent(
        &self,
        org: OrgId,
        id: AgentId,
        change: AgentSwap,
    ) -> StoreFuture<Updated<Agent, ApiError>> {
        self.write(move |s| s.update_agent(org, id, change))
    }

    fn put_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CredentialConfig,
    ) -> StoreFuture<()> {
        self.write(move |s| s.put_credentials(org, agent, &config))
    }

    fn credentials(&self, org: OrgId, agent: AgentId) -> StoreFuture<CredentialConfig> {
        self.read(move |s| s.credentials(org, agent))
    }

    fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CompactionConfig,
    ) -> StoreFuture<()> {
        self.write(move |s| s.put_compaction(org, agent, &config))
    }
}

impl ThreadRecords for SledRecords {
    fn create_thread(&self, thread: Thread) -> StoreFuture<Thread> {
        self.write(move |s| s.create_thread(&thread, None))
    }

    fn create_thread_keyed(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> StoreFuture<Created> {
        self.write(move |s| s.create_thread_keyed(&thread, owner.as_ref(), keyed))
    }

    fn thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Option<Thread>> {
        self.read(move |s| s.thread(org, thread))
    }

    fn thread_access(
        &self,
        org: OrgId,
        thread: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> StoreFuture<Option<ThreadAccess>> {
        self.read(move |s| s.thread_access(org, thread, user.as_deref(), with_agent))
    }

    fn update_thread(
        &self,
        org: OrgId,
        thread: ThreadId,
        change: ThreadSwap,
    ) -> StoreFuture<Updated<Thread, ApiError>> {
        self.write(move |s| s.update_thread(org, thread, change))
    }

    fn delete_thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_thread(org, thread))
    }

    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> StoreFuture<(Vec<Message>, u64)> {
        self.read(move |s| s.messages(thread, offset, limit))
    }

    fn context(&self, thread: ThreadId) -> StoreFuture<Vec<ContextMessage>> {
        self.read(move |s| s.context(thread))
    }

    fn usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<UsageRecord>> {
        self.read(move |s| s.list_usage(org, filter, before, limit, |_| Ok(true)))
    }

    fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.read(move |s| s.list_threads(org, agent, user.as_deref(), before, limit, |_| Ok(true)))
    }

    fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.read(move |s| s.child_threads(org, parent, before, limit))
    }

    fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut> {
        self.write(move |s| s.put_participant(org, thread, &participant, cap))
    }

    fn participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>> {
        self.read(move |s| s.participants(thread))
    }

    fn remove_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        user_id: String,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.remove_participant(org, thread, &user_id))
    }
}
