//! [`Store`]: the cheap, cloneable handle async code holds. Each record
//! kind is reached through its port (`port`), kept by sled or by
//! PostgreSQL; code not yet on a port runs a closure over sled on the
//! blocking pool, and a write resolves once the group commit has flushed
//! it. On PostgreSQL such a closure runs nothing and fails with
//! `StoreError::NotOnThisStore` (501 `NOT_ON_THIS_STORE`): a node never
//! keeps part of a cluster's records on its own disk.

use std::path::Path;
use std::sync::Arc;

use confer_actors::{StoreError, ThreadStore};

use super::pg::PgStore;
use super::port::{
    AgentConfigs, AgentRecords, DocumentRecords, EmbeddingRecords, IntegrationRecords,
    MarketplaceRecords, McpRecords, MemoryRecords, OrgRecords, PlanRecords, ProjectRecords,
    PublicationRecords, ScheduleRecords, SkillRecords, ThreadRecords, ToolRecords,
};
use super::{SledStore, TraceListener};
use crate::secrets::SecretBox;

/// A cheap handle to the store for async code.
#[derive(Clone)]
pub struct Store {
    /// The sled store; `None` on PostgreSQL.
    pub(super) sled: Option<Arc<SledStore>>,
    /// The PostgreSQL store; `None` on sled.
    pg: Option<PgStore>,
    secrets: Arc<SecretBox>,
    /// The engine's port (a turn's reads and writes).
    engine: Arc<dyn ThreadStore>,
    /// Organizations and API keys, through their port (`scale.md` §2).
    orgs: Arc<dyn OrgRecords>,
    /// Agents and their configurations, through their port.
    agents: Arc<dyn AgentRecords>,
    /// Agents' plain configurations, through their port.
    configs: Arc<dyn AgentConfigs>,
    /// Threads, their history and participants, through their port.
    threads: Arc<dyn ThreadRecords>,
    /// Org tools, through their port.
    tools: Arc<dyn ToolRecords>,
    /// Plans, through their port.
    plans: Arc<dyn PlanRecords>,
    /// Projects and their members, through their port.
    projects: Arc<dyn ProjectRecords>,
    /// Scheduled tasks and their outbox, through their port.
    schedules: Arc<dyn ScheduleRecords>,
    /// Publications and the orgs' publishing settings, through their port.
    publications: Arc<dyn PublicationRecords>,
    /// Skills, their files and attachments, through their port.
    skills: Arc<dyn SkillRecords>,
    /// MCP servers, their attachments and OAuth state, through their port.
    mcps: Arc<dyn McpRecords>,
    /// Database integrations and their attachments, through their port.
    integrations: Arc<dyn IntegrationRecords>,
    /// Memories and the search index's change feed, through their port.
    memories: Arc<dyn MemoryRecords>,
    documents: Arc<dyn DocumentRecords>,
    /// Embedding configurations and vectors, through their port.
    embeddings: Arc<dyn EmbeddingRecords>,
    /// Marketplace profiles, avatars, the catalogue and adoptions.
    marketplace: Arc<dyn MarketplaceRecords>,
}

impl Store {
    /// Opens the database in `dir` with the secret key of `dir` (created
    /// when absent): for tools and benchmarks.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        let secrets = SecretBox::load(None, None, None, dir)
            .map_err(|e| StoreError::Engine(e.to_string()))?;
        Self::open_with(dir, Arc::new(secrets))
    }

    /// Opens the database in `dir`, sealing secrets with `secrets`.
    pub fn open_with(dir: &Path, secrets: Arc<SecretBox>) -> Result<Self, StoreError> {
        let inner = Arc::new(SledStore::open(dir, Arc::clone(&secrets))?);
        inner.check_format()?;
        inner.migrate()?;
        inner.mark_format()?;
        let sealed = inner.seal_plain_secrets()?;
        if sealed > 0 {
            inner.flush_now()?;
            tracing::info!(
                sealed,
                "encrypted signing secrets stored in plain text by an earlier version"
            );
        }
        inner
            .purger
            .start(Arc::downgrade(&inner))
            .map_err(|e| StoreError::Engine(format!("starting the purge: {e}")))?;
        let records = Arc::new(super::port::SledRecords(Arc::clone(&inner)));
        Ok(Self {
            engine: Arc::new(super::port::SledPort(Arc::clone(&inner))),
            sled: Some(inner),
            pg: None,
            secrets,
            orgs: records.clone(),
            agents: records.clone(),
            configs: records.clone(),
            threads: records.clone(),
            tools: records.clone(),
            plans: records.clone(),
            projects: records.clone(),
            schedules: records.clone(),
            publications: records.clone(),
            skills: records.clone(),
            mcps: records.clone(),
            integrations: records.clone(),
            memories: records.clone(),
            documents: records.clone(),
            embeddings: records.clone(),
            marketplace: records,
        })
    }

    /// The store on PostgreSQL (`scale.md`): every ported kind through
    /// `pg`; the others answer `StoreError::NotOnThisStore`.
    pub fn on_postgres(pg: PgStore, secrets: Arc<SecretBox>) -> Self {
        let database = pg.clone();
        let pg = Arc::new(pg);
        Self {
            sled: None,
            pg: Some(database),
            secrets,
            engine: pg.clone(),
            orgs: pg.clone(),
            agents: pg.clone(),
            configs: pg.clone(),
            threads: pg.clone(),
            tools: pg.clone(),
            plans: pg.clone(),
            projects: pg.clone(),
            schedules: pg.clone(),
            publications: pg.clone(),
            skills: pg.clone(),
            mcps: pg.clone(),
            integrations: pg.clone(),
            memories: pg.clone(),
            documents: pg.clone(),
            embeddings: pg.clone(),
            marketplace: pg,
        }
    }

    /// Whether the records are in PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        self.sled.is_none()
    }

    /// The PostgreSQL store, for the cluster's own work (leases, jobs).
    pub fn postgres(&self) -> Option<&PgStore> {
        self.pg.as_ref()
    }

    /// What seals and opens stored secrets (a configuration's sealed
    /// field, through a port that keeps it as given).
    pub fn secrets(&self) -> Arc<SecretBox> {
        Arc::clone(&self.secrets)
    }

    /// A 32-byte key for one purpose, derived from the secret key
    /// ([`SecretBox::derive`]).
    pub fn derive_key(&self, info: &[u8]) -> [u8; 32] {
        self.secrets.derive(info)
    }

    /// The store as the engine's port.
    pub fn as_port(&self) -> Arc<dyn ThreadStore> {
        Arc::clone(&self.engine)
    }

    /// Organizations and API keys.
    pub fn orgs(&self) -> &dyn OrgRecords {
        self.orgs.as_ref()
    }

    /// Agents and their configurations.
    pub fn agents(&self) -> &dyn AgentRecords {
        self.agents.as_ref()
    }

    /// Agents' plain configurations (see `port::agent_config`).
    pub fn configs(&self) -> &dyn AgentConfigs {
        self.configs.as_ref()
    }

    /// Threads, their history and participants.
    pub fn threads(&self) -> &dyn ThreadRecords {
        self.threads.as_ref()
    }

    /// Org tools.
    pub fn tools(&self) -> &dyn ToolRecords {
        self.tools.as_ref()
    }

    /// Plans and their todos.
    pub fn plans(&self) -> &dyn PlanRecords {
        self.plans.as_ref()
    }

    /// Projects and their members.
    pub fn projects(&self) -> &dyn ProjectRecords {
        self.projects.as_ref()
    }

    /// Scheduled tasks and the outbox of their sends.
    pub fn schedules(&self) -> &dyn ScheduleRecords {
        self.schedules.as_ref()
    }

    /// Publications and the orgs' publishing settings.
    pub fn publications(&self) -> &dyn PublicationRecords {
        self.publications.as_ref()
    }

    /// Skills, their files and their attachments.
    pub fn skills(&self) -> &dyn SkillRecords {
        self.skills.as_ref()
    }

    /// MCP servers, their attachments, registrations and tokens.
    pub fn mcps(&self) -> &dyn McpRecords {
        self.mcps.as_ref()
    }

    /// Database integrations and their attachments.
    pub fn integrations(&self) -> &dyn IntegrationRecords {
        self.integrations.as_ref()
    }

    /// Memories and the search index's change feed.
    pub fn memories(&self) -> &dyn MemoryRecords {
        self.memories.as_ref()
    }

    /// Knowledge documents, their chunks, jobs and files.
    pub fn documents(&self) -> &dyn DocumentRecords {
        self.documents.as_ref()
    }

    /// Embedding configurations and vectors.
    pub fn embeddings(&self) -> &dyn EmbeddingRecords {
        self.embeddings.as_ref()
    }

    /// Marketplace profiles, avatars, the catalogue and adoptions.
    pub fn marketplace(&self) -> &dyn MarketplaceRecords {
        self.marketplace.as_ref()
    }

    /// The sled store behind the per-kind ports (`port::records`); `None`
    /// on PostgreSQL.
    pub fn records(&self) -> Option<super::port::SledRecords> {
        self.sled.clone().map(super::port::SledRecords)
    }

    /// Flushes synchronously (at shutdown); PostgreSQL has committed
    /// every acknowledged write already.
    pub fn flush_now(&self) -> Result<(), StoreError> {
        match &self.sled {
            Some(sled) => sled.flush_now(),
            None => Ok(()),
        }
    }

    /// Tells `listener` of each trace as it is stored (once per store): on
    /// PostgreSQL once the answer's transaction committed.
    pub fn on_trace_stored(&self, listener: TraceListener) {
        let set = match (&self.sled, &self.pg) {
            (Some(sled), _) => sled.trace_listener.set(listener).is_ok(),
            (None, Some(pg)) => pg.trace_listener.set(listener).is_ok(),
            (None, None) => true,
        };
        if !set {
            tracing::warn!("a trace listener was already set");
        }
    }

    /// Sets how many threads one publication may hold.
    pub fn set_public_max_threads(&self, max: u64) {
        let held = match (&self.sled, &self.pg) {
            (Some(sled), _) => &sled.public_max_threads,
            (None, Some(pg)) => &*pg.public_max_threads,
            (None, None) => return,
        };
        held.store(max, std::sync::atomic::Ordering::Relaxed);
    }

    /// Keeps traces `days` days (at least 1); the sweep applies it. On
    /// PostgreSQL the cluster's job loop sweeps with the setting it read.
    pub fn set_trace_retention_days(&self, days: u32) {
        if let Some(sled) = &self.sled {
            sled.trace_retention_days
                .store(days.max(1), std::sync::atomic::Ordering::Relaxed);
            sled.purger.wake();
        }
    }

    /// The failure that poisoned the store, if a flush failed (sled only:
    /// PostgreSQL answers each failed statement on its own).
    pub fn failure(&self) -> Option<String> {
        self.sled.as_ref().and_then(|sled| sled.commit.poison())
    }

    /// Resolves with the error once a flush has failed (see `durability`);
    /// never on PostgreSQL.
    pub fn poisoned(&self) -> impl std::future::Future<Output = String> + Send + 'static {
        let sled = self.sled.clone();
        async move {
            match sled {
                Some(sled) => sled.commit.poisoned().await,
                None => std::future::pending().await,
            }
        }
    }
}
