//! The embedded sled store: the adapter behind the `ThreadStore` port and the
//! storage of every plain resource (orgs, keys, agents, configs, threads,
//! participants, usage).
//!
//! Layout, one module per concern: [`keys`] (trees and key shapes),
//! [`codec`] (versioned records), [`values`] (large values in files), [`durability`]
//! (group-commit flush), [`port`] (the `ThreadStore` port), [`threads`] and
//! [`purge`] (threads, participants, deletion), [`api_keys`] (orgs and keys),
//! [`agents`] (agents and their configuration), [`plans`],
//! [`usage`], [`update`] (compare-and-swap), `sealed` (encrypted fields),
//! [`format`] (the format version checked at open), [`gate`] (writes
//! against a backup), [`backup`] and [`check`] (the operator's commands),
//! [`publications`] and [`retention`] (public chats). Multi-key updates that
//! must agree (a record and its index entries) run in one sled transaction.
//! Every method here is synchronous and may touch the disk: async code calls them through
//! [`Store::run`], which moves them to the blocking pool, and acknowledges a
//! write only after [`Store::write`] has flushed it.

pub mod agents;
pub mod api_keys;
pub mod attached;
pub mod backup;
pub mod channels;
pub mod check;
pub mod code;
pub mod codec;
pub mod computer;
pub mod day_merges;
pub mod delegation;
pub mod durability;
pub mod format;
pub mod gate;
mod handle;
pub mod integrations;
pub mod key_cache;
pub mod keys;
pub mod knowledge;
pub mod marketplace;
pub mod mcps;
pub mod newest;
pub mod oauth;
pub mod opening;
pub mod participants;
pub mod pg;
pub mod plans;
pub mod port;
pub mod projects;
pub mod publications;
pub mod purge;
pub mod records;
pub mod retention;
pub mod runners;
pub mod scan;
pub mod schedules;
mod sealed;
pub mod skills;
mod sled_closures;
pub mod thread_access;
pub mod threads;
mod timeline;
pub mod tools;
pub mod traces;
pub mod update;
pub mod usage;
pub mod values;

#[cfg(test)]
mod testing;
#[cfg(test)]
pub(crate) use testing::{reopen_for_test, test_secrets, test_thread};

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, StoreError, ThreadId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sled::Tree;
use sled::transaction::{ConflictableTransactionError, TransactionError, TransactionalTree};

use self::codec::{decode, encode};
use self::durability::GroupCommit;
pub use self::handle::Store;
use self::keys::trees;
use self::purge::Purger;
pub use self::timeline::Page;
pub use self::usage::UsageFilter;
use crate::secrets::SecretBox;

/// sled's page cache capacity (its default is 1 GiB). Measured on sled
/// 0.34, this bound is not what sets the resident memory: 187 MiB written in
/// 32 KiB values kept about 150 MiB resident with 16 MiB or 64 MiB alike
/// (see docs/performance-history.md); the cap still keeps the cache itself modest.
pub const STORE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// What is told of each trace as it is stored: it must not block.
pub type TraceListener = Box<dyn Fn(&confer_actors::TraceRecord) + Send + Sync>;

/// Days traces are kept unless the operator says otherwise.
pub const DEFAULT_TRACE_RETENTION_DAYS: u32 = 30;

fn engine(error: sled::Error) -> StoreError {
    StoreError::Engine(error.to_string())
}

fn tx_error(error: TransactionError<StoreError>) -> StoreError {
    match error {
        TransactionError::Abort(error) => error,
        TransactionError::Storage(error) => engine(error),
    }
}

fn abort(error: StoreError) -> ConflictableTransactionError<StoreError> {
    ConflictableTransactionError::Abort(error)
}

/// Assigns a `created_at` unique within the org: `wanted`, or one microsecond
/// after the org's last assigned instant when that is not later.
fn next_org_instant(
    clocks: &TransactionalTree,
    org: OrgId,
    wanted: DateTime<Utc>,
) -> Result<u64, ConflictableTransactionError<StoreError>> {
    let last = clocks
        .get(org.as_bytes())?
        .map(|v| keys::read_u64(&v))
        .unwrap_or(0);
    let at = keys::micros(wanted).max(last + 1);
    clocks.insert(org.as_bytes(), &at.to_be_bytes())?;
    Ok(at)
}

/// The sled database and its trees.
pub struct SledStore {
    db: sled::Db,
    orgs: Tree,
    org_clocks: Tree,
    api_keys: Tree,
    /// Keys recently found by hash (`key_cache`).
    key_cache: key_cache::KeyCache,
    api_key_hashes: Tree,
    agents: Tree,
    agent_configs: Tree,
    threads: Tree,
    threads_by_agent: Tree,
    threads_by_user: Tree,
    /// Delegated threads under their parent (`agent-extras.md` §3).
    threads_by_parent: Tree,
    deleted_threads: Tree,
    api_key_used: Tree,
    meta: Tree,
    thread_seqs: Tree,
    /// The last turn number of each thread (`streams.md`).
    turn_seqs: Tree,
    /// Keyed sends' records, per thread (`streams.md`).
    idempotency: Tree,
    messages: Tree,
    context_seqs: Tree,
    context: Tree,
    /// Large messages and context entries (see `values`).
    values: values::ValueFiles,
    participants: Tree,
    usage: Tree,
    usage_by_thread: Tree,
    usage_by_agent: Tree,
    tools: Tree,
    tool_names: Tree,
    /// MCP servers, their slugs and attachments (see `mcps`).
    mcps: Tree,
    mcp_slugs: Tree,
    agent_mcps: Tree,
    /// MCP servers' OAuth clients and connected tokens (see `oauth`).
    oauth_registrations: Tree,
    oauth_tokens: Tree,
    /// Database integrations, their slugs and attachments (see `integrations`).
    integrations: Tree,
    integration_slugs: Tree,
    agent_integrations: Tree,
    plans: Tree,
    plans_by_thread: Tree,
    /// Publications and what the store keeps of their visitors: slugs, the
    /// tokens spent each day, threads (see `publications`, `retention`).
    publications: Tree,
    publication_slugs: Tree,
    publication_days: Tree,
    publication_threads: Tree,
    public_max_threads: std::sync::atomic::AtomicU64,
    org_settings: Tree,
    knowledge: knowledge::KnowledgeTrees,
    /// Runners and runs (see `runners`).
    runners: runners::RunnerTrees,
    /// Scheduled tasks, their due index and outbox (see `schedules`).
    schedules: schedules::ScheduleTrees,
    /// Skills, their files and attachments (see `skills`).
    skills: skills::SkillTrees,
    /// Projects, their members and listings (see `projects`).
    projects: projects::ProjectTrees,
    /// Computer instances (see `computer`).
    computer: computer::ComputerTrees,
    /// Code agents (see `code`).
    code: code::CodeTrees,
    /// Marketplace profiles, listings and avatars (see `marketplace`).
    marketplace: marketplace::MarketplaceTrees,
    /// Messaging channels, contacts and jobs (see `channels`).
    channels: channels::ChannelTrees,
    /// Traces and their indexes, in files of their own (see `traces`).
    trace_files: Arc<traces::TraceFiles>,
    /// The per-day analytics aggregates.
    trace_days: Tree,
    /// Day aggregates waiting for the next flush (see `day_merges`).
    day_merges: Arc<day_merges::DayMerges>,
    /// Told of each trace as it is stored (the OTLP export), if set.
    trace_listener: std::sync::OnceLock<TraceListener>,
    /// How many days traces are kept (`CONFER_TRACE_RETENTION_DAYS`).
    trace_retention_days: std::sync::atomic::AtomicU32,
    /// Held while a plan is created, so that two creations cannot both
    /// take a thread's last free place (see `plans`).
    plan_creation: std::sync::Mutex<()>,
    /// Held while a participant is added, so that two adds cannot both
    /// take a thread's last place (see `threads`).
    participant_adds: std::sync::Mutex<()>,
    /// Held while a visitor's thread is counted and made (see `retention`).
    visitor_creates: std::sync::Mutex<()>,
    commit: GroupCommit,
    purger: Purger,
    /// Seals the secrets records keep (see `sealed`).
    secrets: Arc<SecretBox>,
    /// sled's log file, synced after each flush (see `durability`).
    log: std::fs::File,
    /// The database directory.
    db_dir: std::path::PathBuf,
    /// Held by every write, taken whole by a backup (see `gate`).
    gate: gate::WriteGate,
}

impl SledStore {
    /// Opens (or creates) the database in `dir`, sealing secrets with `secrets`.
    pub fn open(dir: &Path, secrets: Arc<SecretBox>) -> Result<Self, StoreError> {
        let db = durability::open_waiting_for_the_lock(
            &sled::Config::new()
                .path(dir)
                .cache_capacity(STORE_CACHE_BYTES),
        )?;
        let io = |e: std::io::Error| StoreError::Engine(e.to_string());
        let log = std::fs::File::open(dir.join(durability::LOG_FILE)).map_err(io)?;
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        let trace_days = tree(trees::TRACE_DAYS)?;
        trace_days.set_merge_operator(crate::observability::aggregate::merge_operator);
        let day_merges = Arc::new(day_merges::DayMerges::new(trace_days.clone()));
        let merging = Arc::clone(&day_merges);
        // Traces were kept in sled by earlier builds of this version.
        for stale in ["traces", "trace_index"] {
            if db
                .tree_names()
                .iter()
                .any(|name| name.as_ref() == stale.as_bytes())
            {
                db.drop_tree(stale).map_err(engine)?;
            }
        }
        let trace_files = Arc::new(traces::TraceFiles::open(dir)?);
        let syncing = Arc::clone(&trace_files);
        Ok(Self {
            orgs: tree(trees::ORGS)?,
            org_clocks: tree(trees::ORG_CLOCKS)?,
            api_keys: tree(trees::API_KEYS)?,
            key_cache: key_cache::KeyCache::default(),
            api_key_hashes: tree(trees::API_KEY_HASHES)?,
            agents: tree(trees::AGENTS)?,
            agent_configs: tree(trees::AGENT_CONFIGS)?,
            threads: tree(trees::THREADS)?,
            threads_by_agent: tree(trees::THREADS_BY_AGENT)?,
            threads_by_user: tree(trees::THREADS_BY_USER)?,
            threads_by_parent: tree(trees::THREADS_BY_PARENT)?,
            deleted_threads: tree(trees::DELETED_THREADS)?,
            api_key_used: tree(trees::API_KEY_USED)?,
            meta: tree(trees::META)?,
            thread_seqs: tree(trees::THREAD_SEQS)?,
            turn_seqs: tree(trees::TURN_SEQS)?,
            idempotency: tree(trees::IDEMPOTENCY)?,
            messages: tree(trees::MESSAGES)?,
            context_seqs: tree(trees::CONTEXT_SEQS)?,
            context: tree(trees::CONTEXT)?,
            values: values::ValueFiles::new(dir),
            participants: tree(trees::PARTICIPANTS)?,
            usage: tree(trees::USAGE)?,
            usage_by_thread: tree(trees::USAGE_BY_THREAD)?,
            usage_by_agent: tree(trees::USAGE_BY_AGENT)?,
            tools: tree(trees::TOOLS)?,
            tool_names: tree(trees::TOOL_NAMES)?,
            mcps: tree(trees::MCPS)?,
            mcp_slugs: tree(trees::MCP_SLUGS)?,
            agent_mcps: tree(trees::AGENT_MCPS)?,
            oauth_registrations: tree(trees::OAUTH_REGISTRATIONS)?,
            oauth_tokens: tree(trees::OAUTH_TOKENS)?,
            integrations: tree(trees::INTEGRATIONS)?,
            integration_slugs: tree(trees::INTEGRATION_SLUGS)?,
            agent_integrations: tree(trees::AGENT_INTEGRATIONS)?,
            plans: tree(trees::PLANS)?,
            plans_by_thread: tree(trees::PLANS_BY_THREAD)?,
            publications: tree(trees::PUBLICATIONS)?,
            publication_slugs: tree(trees::PUBLICATION_SLUGS)?,
            publication_days: tree(trees::PUBLICATION_DAYS)?,
            publication_threads: tree(trees::PUBLICATION_THREADS)?,
            public_max_threads: std::sync::atomic::AtomicU64::new(100_000),
            org_settings: tree(trees::ORG_SETTINGS)?,
            knowledge: knowledge::KnowledgeTrees::open(&db, dir)?,
            runners: runners::RunnerTrees::open(&db)?,
            schedules: schedules::ScheduleTrees::open(&db)?,
            skills: skills::SkillTrees::open(&db)?,
            projects: projects::ProjectTrees::open(&db)?,
            computer: computer::ComputerTrees::open(&db)?,
            code: code::CodeTrees::open(&db)?,
            marketplace: marketplace::MarketplaceTrees::open(&db)?,
            channels: channels::ChannelTrees::open(&db)?,
            trace_files,
            trace_days,
            day_merges,
            trace_retention_days: std::sync::atomic::AtomicU32::new(DEFAULT_TRACE_RETENTION_DAYS),
            trace_listener: std::sync::OnceLock::new(),
            plan_creation: std::sync::Mutex::new(()),
            participant_adds: std::sync::Mutex::new(()),
            visitor_creates: std::sync::Mutex::new(()),
            commit: GroupCommit::start(
                db.clone(),
                log.try_clone().map_err(io)?,
                dir.join(durability::BLOB_DIR),
                Box::new(move || {
                    merging.drain()?;
                    syncing.sync()
                }),
            )
            .map_err(io)?,
            purger: Purger::idle(),
            secrets,
            log,
            db_dir: dir.to_owned(),
            gate: gate::WriteGate::default(),
            db,
        })
    }

    /// How long traces are kept.
    pub fn trace_retention(&self) -> chrono::TimeDelta {
        let days = self
            .trace_retention_days
            .load(std::sync::atomic::Ordering::Relaxed);
        chrono::TimeDelta::days(i64::from(days.max(1)))
    }

    /// Flushes synchronously (used at start and shutdown), pending day
    /// aggregates merged and trace files synced first like every flush:
    /// refused by a poisoned
    /// store, like every flush.
    pub fn flush_now(&self) -> Result<(), StoreError> {
        if let Some(error) = self.commit.poison() {
            return Err(StoreError::Unavailable(error));
        }
        self.day_merges.drain()?;
        self.trace_files.sync()?;
        let synced = durability::SyncedBlobs::default();
        let blobs = self.db_dir.join(durability::BLOB_DIR);
        durability::flush_durably(&self.db, &self.log, &blobs, &synced).map(drop)
    }

    fn get<T: DeserializeOwned>(tree: &Tree, key: &[u8]) -> Result<Option<T>, StoreError> {
        tree.get(key)
            .map_err(engine)?
            .map(|v| decode(&v))
            .transpose()
    }

    fn put<T: Serialize>(tree: &Tree, key: &[u8], record: &T) -> Result<(), StoreError> {
        tree.insert(key, encode(record)?).map_err(engine)?;
        Ok(())
    }

    /// The record of a scanned `messages` or `context` entry of `thread`,
    /// read from its file when large.
    fn filed_record<T: DeserializeOwned>(
        &self,
        thread: ThreadId,
        entry: sled::Result<(sled::IVec, sled::IVec)>,
    ) -> Result<T, StoreError> {
        let (_, value) = entry.map_err(engine)?;
        decode(&self.values.read(thread, &value)?)
    }
}
