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
    Agent, AgentId, ApiKeyId, CompactionConfig, CredentialConfig, OrgId, StoreError, StoreFuture,
    run_blocking,
};

use crate::error::ApiError;
use crate::store::SledStore;
use crate::store::records::{ApiKey, Org};
use crate::store::update::Updated;

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

    /// The start-up credentials, made once however many nodes start
    /// together: when `only_when_empty` and an org exists, nothing
    /// (`false`). Otherwise org `default`, made when absent, gets `key`
    /// (its org set to it) unless a key with its hash exists; `true` when
    /// the key was stored.
    fn bootstrap(
        &self,
        key: ApiKey,
        secret_sha256: [u8; 32],
        only_when_empty: bool,
    ) -> StoreFuture<bool>;
}

/// A change to a stored agent (see [`AgentRecords::update_agent`]); it may
/// be called again when a concurrent change wins first.
pub type AgentSwap = Box<dyn FnMut(Agent) -> Result<Agent, ApiError> + Send>;

/// A change to an agent's credential resolver configuration; it may be
/// called again when a concurrent change wins first.
pub type CredentialSwap =
    Box<dyn FnMut(CredentialConfig) -> Result<CredentialConfig, ApiError> + Send>;

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

    /// Changes the agent's credential resolver configuration atomically
    /// (`change` sees its signing secret opened, the default when unset;
    /// the secret is sealed as stored).
    fn update_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        change: CredentialSwap,
    ) -> StoreFuture<Updated<CredentialConfig, ApiError>>;

    /// Replaces the agent's compaction configuration.
    fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CompactionConfig,
    ) -> StoreFuture<()>;
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

    fn bootstrap(
        &self,
        mut key: ApiKey,
        secret_sha256: [u8; 32],
        only_when_empty: bool,
    ) -> StoreFuture<bool> {
        self.write(move |s| {
            if only_when_empty && !s.orgs()?.is_empty() {
                return Ok(false);
            }
            key.org_id = s.default_org()?.id;
            if s.api_key_by_hash(&secret_sha256)?.is_some() {
                return Ok(false);
            }
            s.insert_api_key(&key, &secret_sha256)?;
            Ok(true)
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

    fn update_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        change: CredentialSwap,
    ) -> StoreFuture<Updated<CredentialConfig, ApiError>> {
        self.write(move |s| s.update_credentials(org, agent, change))
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
