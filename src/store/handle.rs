//! [`Store`]: the cheap, cloneable handle async code holds, which runs the
//! store's synchronous methods on the blocking pool and acknowledges writes
//! once the group commit has flushed them.

use std::path::Path;
use std::sync::Arc;

use confer_actors::{StoreError, ThreadStore};

use super::port::{
    AgentConfigs, AgentRecords, OrgRecords, PlanRecords, ProjectRecords, ThreadRecords, ToolRecords,
};
use super::{SledStore, TraceListener};
use crate::secrets::SecretBox;

/// A cheap handle to the store for async code.
#[derive(Clone)]
pub struct Store {
    inner: Arc<SledStore>,
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
        let inner = Arc::new(SledStore::open(dir, secrets)?);
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
            inner,
            orgs: records.clone(),
            agents: records.clone(),
            configs: records.clone(),
            threads: records.clone(),
            tools: records.clone(),
            plans: records.clone(),
            projects: records,
        })
    }

    /// A 32-byte key for one purpose, derived from the secret key
    /// ([`SecretBox::derive`]).
    pub fn derive_key(&self, info: &[u8]) -> [u8; 32] {
        self.inner.secrets.derive(info)
    }

    /// The store as the engine's port.
    pub fn as_port(&self) -> Arc<dyn ThreadStore> {
        Arc::new(super::port::SledPort(self.inner.clone()))
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

    /// The store behind the per-kind ports (`port::records`).
    pub fn records(&self) -> super::port::SledRecords {
        super::port::SledRecords(self.inner.clone())
    }

    /// Runs `f` on the blocking pool, off the async workers (a bounded number
    /// at a time, see `confer_actors::run_blocking`).
    pub async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        confer_actors::run_blocking(move || f(&inner)).await
    }

    /// Runs a write on the blocking pool and resolves once it is durable.
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let value = self.run(f).await?;
        self.inner.commit.flush().await?;
        Ok(value)
    }

    /// Runs `sweep` (given the time now) as a flushed write every hour,
    /// the first at once, on the current runtime (it ends with it); logs
    /// what a sweep did, unless nothing.
    pub fn sweep_hourly<T, F>(&self, name: &'static str, sweep: F)
    where
        T: std::fmt::Debug + Default + PartialEq + Send + 'static,
        F: Fn(&SledStore, chrono::DateTime<chrono::Utc>) -> Result<T, StoreError>
            + Clone
            + Send
            + 'static,
    {
        let store = self.clone();
        actix_web::rt::spawn(async move {
            let mut ticks = tokio::time::interval(std::time::Duration::from_secs(3600));
            loop {
                ticks.tick().await;
                let (sweep, now) = (sweep.clone(), chrono::Utc::now());
                match store.write(move |s| sweep(s, now)).await {
                    Ok(swept) if swept == T::default() => {}
                    Ok(swept) => tracing::info!(?swept, "{name}"),
                    Err(error) => tracing::warn!(%error, "{name} failed"),
                }
            }
        });
    }

    /// Runs `f` on the store on this thread (for the command-line tools,
    /// which have no async runtime).
    pub fn with_inner<T>(&self, f: impl FnOnce(&SledStore) -> T) -> T {
        f(&self.inner)
    }

    /// Flushes synchronously (at shutdown).
    pub fn flush_now(&self) -> Result<(), StoreError> {
        self.inner.flush_now()
    }

    /// Tells `listener` of each trace as it is stored (once per store).
    pub fn on_trace_stored(&self, listener: TraceListener) {
        if self.inner.trace_listener.set(listener).is_err() {
            tracing::warn!("a trace listener was already set");
        }
    }

    /// Keeps traces `days` days (at least 1); the sweep applies it.
    /// Sets how many threads one publication may hold.
    pub fn set_public_max_threads(&self, max: u64) {
        self.inner
            .public_max_threads
            .store(max, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn set_trace_retention_days(&self, days: u32) {
        self.inner
            .trace_retention_days
            .store(days.max(1), std::sync::atomic::Ordering::Relaxed);
        self.inner.purger.wake();
    }

    /// The failure that poisoned the store, if a flush failed.
    pub fn failure(&self) -> Option<String> {
        self.inner.commit.poison()
    }

    /// Resolves with the error once a flush has failed (see `durability`).
    pub fn poisoned(&self) -> impl std::future::Future<Output = String> + Send + 'static {
        self.inner.commit.poisoned()
    }
}
