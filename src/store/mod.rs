//! The embedded sled store: the adapter behind the `ThreadStore` port and the
//! storage of every plain resource (orgs, keys, agents, configs, threads,
//! participants, usage).
//!
//! Layout: [`keys`] (trees and key shapes), [`codec`] (versioned records),
//! [`durability`] (group-commit flush). Multi-key updates that must agree (a
//! record and its index entries) run in one sled transaction. Every method here
//! is synchronous and may touch the disk: async code calls them through
//! [`Store::run`], which moves them to the blocking pool, and acknowledges a
//! write only after [`Store::flush`].

pub mod codec;
pub mod durability;
pub mod keys;
pub mod records;

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer_actors::{
    Agent, AgentId, ApiKeyId, CompactionConfig, ContextMessage, CredentialConfig, Message, OrgId,
    Participant, StoreError, StoreFuture, Thread, ThreadId, ThreadStore, UsageRecord,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sled::transaction::{ConflictableTransactionError, TransactionError, TransactionalTree};
use sled::{Transactional, Tree};

use self::codec::{decode, encode};
use self::durability::GroupCommit;
use self::keys::{ConfigKind, trees};
use self::records::{ApiKey, Org};

/// Which usage records to list.
#[derive(Clone, Copy, Debug, Default)]
pub struct UsageFilter {
    pub agent: Option<AgentId>,
    pub thread: Option<ThreadId>,
}

/// One page of a newest-first listing.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// The `created_at` of the last item when more items follow.
    pub next_cursor: Option<DateTime<Utc>>,
}

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
    api_key_hashes: Tree,
    agents: Tree,
    agent_configs: Tree,
    threads: Tree,
    threads_by_agent: Tree,
    thread_seqs: Tree,
    messages: Tree,
    context_seqs: Tree,
    context: Tree,
    participants: Tree,
    usage: Tree,
    usage_by_thread: Tree,
    usage_by_agent: Tree,
    commit: GroupCommit,
    /// sled's log file, synced after each flush (see `durability`).
    log: std::fs::File,
}

impl SledStore {
    /// Opens (or creates) the database in `dir`.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        let db = sled::Config::new().path(dir).open().map_err(engine)?;
        let io = |e: std::io::Error| StoreError::Engine(e.to_string());
        let log = std::fs::File::open(dir.join(durability::LOG_FILE)).map_err(io)?;
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            orgs: tree(trees::ORGS)?,
            org_clocks: tree(trees::ORG_CLOCKS)?,
            api_keys: tree(trees::API_KEYS)?,
            api_key_hashes: tree(trees::API_KEY_HASHES)?,
            agents: tree(trees::AGENTS)?,
            agent_configs: tree(trees::AGENT_CONFIGS)?,
            threads: tree(trees::THREADS)?,
            threads_by_agent: tree(trees::THREADS_BY_AGENT)?,
            thread_seqs: tree(trees::THREAD_SEQS)?,
            messages: tree(trees::MESSAGES)?,
            context_seqs: tree(trees::CONTEXT_SEQS)?,
            context: tree(trees::CONTEXT)?,
            participants: tree(trees::PARTICIPANTS)?,
            usage: tree(trees::USAGE)?,
            usage_by_thread: tree(trees::USAGE_BY_THREAD)?,
            usage_by_agent: tree(trees::USAGE_BY_AGENT)?,
            commit: GroupCommit::start(db.clone(), log.try_clone().map_err(io)?).map_err(io)?,
            log,
            db,
        })
    }

    /// Flushes synchronously (used at shutdown).
    pub fn flush_now(&self) -> Result<(), StoreError> {
        durability::flush_durably(&self.db, &self.log)
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

    // ---- orgs -------------------------------------------------------------

    /// Stores an organization.
    pub fn put_org(&self, org: &Org) -> Result<(), StoreError> {
        Self::put(&self.orgs, org.id.as_bytes(), org)
    }

    /// One organization.
    pub fn org(&self, id: OrgId) -> Result<Option<Org>, StoreError> {
        Self::get(&self.orgs, id.as_bytes())
    }

    /// Every organization (there are few; used at start and by platform admins).
    pub fn orgs(&self) -> Result<Vec<Org>, StoreError> {
        self.orgs
            .iter()
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    // ---- API keys ---------------------------------------------------------

    /// Stores a key and its hash index entry together.
    pub fn insert_api_key(&self, key: &ApiKey, secret_sha256: &[u8; 32]) -> Result<(), StoreError> {
        let record = encode(key)?;
        (&self.api_keys, &self.api_key_hashes)
            .transaction(|(keys_tx, hashes)| {
                keys_tx.insert(key.id.as_bytes(), record.clone())?;
                hashes.insert(&secret_sha256[..], key.id.as_bytes())?;
                Ok(())
            })
            .map_err(tx_error)
    }

    /// The key whose secret hashes to `secret_sha256`.
    pub fn api_key_by_hash(&self, secret_sha256: &[u8; 32]) -> Result<Option<ApiKey>, StoreError> {
        let Some(id) = self.api_key_hashes.get(secret_sha256).map_err(engine)? else {
            return Ok(None);
        };
        Self::get(&self.api_keys, &id)
    }

    /// Keys of one org, oldest first.
    pub fn api_keys(&self, org: OrgId) -> Result<Vec<ApiKey>, StoreError> {
        let mut keys = Vec::new();
        for value in self.api_keys.iter().values() {
            let key: ApiKey = decode(&value.map_err(engine)?)?;
            if key.org_id == org {
                keys.push(key);
            }
        }
        keys.sort_by_key(|k| k.created_at);
        Ok(keys)
    }

    /// Deletes a key of `org` and its hash entry; false when there is none.
    pub fn delete_api_key(&self, org: OrgId, id: ApiKeyId) -> Result<bool, StoreError> {
        (&self.api_keys, &self.api_key_hashes)
            .transaction(|(keys_tx, hashes)| {
                let Some(bytes) = keys_tx.get(id.as_bytes())? else {
                    return Ok(false);
                };
                let key: ApiKey = decode(&bytes).map_err(abort)?;
                if key.org_id != org {
                    return Ok(false);
                }
                let hash = hex::decode(&key.secret_sha256)
                    .map_err(|e| abort(StoreError::Codec(e.to_string())))?;
                keys_tx.remove(id.as_bytes())?;
                hashes.remove(hash)?;
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// Records a key's use. Best effort and unflushed: losing it costs nothing.
    pub fn touch_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
        if let Some(mut key) = Self::get::<ApiKey>(&self.api_keys, id.as_bytes())? {
            key.last_used_at = Some(at);
            Self::put(&self.api_keys, id.as_bytes(), &key)?;
        }
        Ok(())
    }

    // ---- agents and their configuration ------------------------------------

    /// Creates or replaces an agent.
    pub fn put_agent(&self, agent: &Agent) -> Result<(), StoreError> {
        Self::put(
            &self.agents,
            &keys::pair(agent.org_id.as_bytes(), agent.id.as_bytes()),
            agent,
        )
    }

    /// The org's agents that are not deleted, oldest first.
    pub fn agents(&self, org: OrgId) -> Result<Vec<Agent>, StoreError> {
        let mut agents = Vec::new();
        for value in self.agents.scan_prefix(org.as_bytes()).values() {
            let agent: Agent = decode(&value.map_err(engine)?)?;
            if !agent.is_deleted() {
                agents.push(agent);
            }
        }
        Ok(agents)
    }

    /// An agent's credential resolver configuration (the default when unset).
    pub fn credentials(&self, org: OrgId, agent: AgentId) -> Result<CredentialConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Credentials);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// Replaces an agent's credential resolver configuration.
    pub fn put_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: &CredentialConfig,
    ) -> Result<(), StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Credentials);
        Self::put(&self.agent_configs, &key, config)
    }

    /// An agent's compaction configuration (the default when unset).
    pub fn compaction(&self, org: OrgId, agent: AgentId) -> Result<CompactionConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Compaction);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// Replaces an agent's compaction configuration.
    pub fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: &CompactionConfig,
    ) -> Result<(), StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Compaction);
        Self::put(&self.agent_configs, &key, config)
    }

    // ---- threads -----------------------------------------------------------

    /// Stores a new thread (and its first participant, if any) with a
    /// `created_at` unique within its org; returns the thread as stored.
    pub fn create_thread(
        &self,
        thread: &Thread,
        owner: Option<&Participant>,
    ) -> Result<Thread, StoreError> {
        let org = thread.org_id;
        (
            &self.threads,
            &self.threads_by_agent,
            &self.org_clocks,
            &self.participants,
        )
            .transaction(|(threads, by_agent, clocks, participants)| {
                let at = next_org_instant(clocks, org, thread.created_at)?;
                let mut stored = thread.clone();
                stored.created_at = keys::from_micros(at);
                stored.updated_at = stored.created_at;
                let id = stored.id.as_bytes();
                threads.insert(
                    &keys::pair(org.as_bytes(), id)[..],
                    encode(&stored).map_err(abort)?,
                )?;
                let prefix = keys::pair(org.as_bytes(), stored.agent_id.as_bytes());
                by_agent.insert(keys::timeline(&prefix, at, id), &[])?;
                if let Some(owner) = owner {
                    participants.insert(
                        keys::participant(stored.id, &owner.user_id),
                        encode(owner).map_err(abort)?,
                    )?;
                }
                Ok(stored)
            })
            .map_err(tx_error)
    }

    /// Replaces a thread's record (its org, agent and created_at never change).
    pub fn update_thread(&self, thread: &Thread) -> Result<(), StoreError> {
        Self::put(
            &self.threads,
            &keys::pair(thread.org_id.as_bytes(), thread.id.as_bytes()),
            thread,
        )
    }

    /// Deletes a thread, its index entry, its history and its participants.
    pub fn delete_thread(&self, thread: &Thread) -> Result<(), StoreError> {
        let org = thread.org_id.as_bytes();
        let index_prefix = keys::pair(org, thread.agent_id.as_bytes());
        let index_key = keys::timeline(
            &index_prefix,
            keys::micros(thread.created_at),
            thread.id.as_bytes(),
        );
        // The record and its index go together; the history below is then
        // unreachable, so removing it in batches after is safe to interrupt.
        (
            &self.threads,
            &self.threads_by_agent,
            &self.thread_seqs,
            &self.context_seqs,
        )
            .transaction(|(threads, by_agent, seqs, context_seqs)| {
                threads.remove(&keys::pair(org, thread.id.as_bytes())[..])?;
                by_agent.remove(index_key.as_slice())?;
                seqs.remove(thread.id.as_bytes())?;
                context_seqs.remove(thread.id.as_bytes())?;
                Ok(())
            })
            .map_err(tx_error)?;
        for tree in [&self.messages, &self.context, &self.participants] {
            let mut batch = sled::Batch::default();
            for key in tree.scan_prefix(thread.id.as_bytes()).keys() {
                batch.remove(key.map_err(engine)?);
            }
            tree.apply_batch(batch).map_err(engine)?;
        }
        Ok(())
    }

    /// Threads of one agent, newest first, strictly older than `before`,
    /// keeping those `visible` accepts.
    pub fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        before: Option<DateTime<Utc>>,
        limit: usize,
        visible: impl Fn(&Thread) -> Result<bool, StoreError>,
    ) -> Result<Page<Thread>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), agent.as_bytes());
        self.timeline_page(
            &self.threads_by_agent,
            &prefix,
            before,
            limit,
            |key, _| {
                let Some(id) = keys::timeline_id(key) else {
                    return Ok(None);
                };
                let thread: Option<Thread> =
                    Self::get(&self.threads, &keys::pair(org.as_bytes(), &id))?;
                Ok(match thread {
                    Some(thread) if visible(&thread)? => Some(thread),
                    _ => None,
                })
            },
            |thread| thread.created_at,
        )
    }

    /// A reverse scan of a timeline index from `before`, loading each entry
    /// with `load` (which may skip it) until `limit` items are found; one more
    /// match is looked for to know whether a next page exists.
    fn timeline_page<T>(
        &self,
        index: &Tree,
        prefix: &[u8],
        before: Option<DateTime<Utc>>,
        limit: usize,
        mut load: impl FnMut(&[u8], &[u8]) -> Result<Option<T>, StoreError>,
        created_at: impl Fn(&T) -> DateTime<Utc>,
    ) -> Result<Page<T>, StoreError> {
        let end = keys::timeline_end(prefix, before.map(keys::micros));
        let mut items = Vec::with_capacity(limit.min(128));
        let mut more = false;
        for entry in index.range(prefix.to_vec()..end).rev() {
            let (key, value) = entry.map_err(engine)?;
            if let Some(item) = load(&key, &value)? {
                if items.len() == limit {
                    more = true;
                    break;
                }
                items.push(item);
            }
        }
        let next_cursor = if more {
            items.last().map(&created_at)
        } else {
            None
        };
        Ok(Page { items, next_cursor })
    }

    // ---- participants --------------------------------------------------------

    /// Adds or updates a participant; true when it replaced an existing one.
    pub fn put_participant(
        &self,
        thread: ThreadId,
        participant: &Participant,
    ) -> Result<bool, StoreError> {
        let previous = self
            .participants
            .insert(
                keys::participant(thread, &participant.user_id),
                encode(participant)?,
            )
            .map_err(engine)?;
        Ok(previous.is_some())
    }

    /// One participant of a thread.
    pub fn participant(
        &self,
        thread: ThreadId,
        user_id: &str,
    ) -> Result<Option<Participant>, StoreError> {
        Self::get(&self.participants, &keys::participant(thread, user_id))
    }

    /// Every participant of a thread, ordered by user ID.
    pub fn participants(&self, thread: ThreadId) -> Result<Vec<Participant>, StoreError> {
        self.participants
            .scan_prefix(thread.as_bytes())
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    /// Removes a participant; false when that user was not one.
    pub fn remove_participant(&self, thread: ThreadId, user_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .participants
            .remove(keys::participant(thread, user_id))
            .map_err(engine)?
            .is_some())
    }

    // ---- usage ---------------------------------------------------------------

    /// Usage records, newest first, strictly older than `before`.
    pub fn list_usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> Result<Page<UsageRecord>, StoreError> {
        let org_bytes = org.as_bytes();
        let by_id = |key: &[u8]| -> Result<Option<UsageRecord>, StoreError> {
            // Index keys end in `created ++ id`, like the primary key.
            let Some(suffix) = key.len().checked_sub(24).map(|start| &key[start..]) else {
                return Ok(None);
            };
            let mut primary = org_bytes.to_vec();
            primary.extend_from_slice(suffix);
            Self::get(&self.usage, &primary)
        };
        let record_of = |r: &UsageRecord| r.created_at;
        match (filter.thread, filter.agent) {
            (Some(thread), agent) => {
                let prefix = keys::pair(org_bytes, thread.as_bytes());
                self.timeline_page(
                    &self.usage_by_thread,
                    &prefix,
                    before,
                    limit,
                    |key, _| Ok(by_id(key)?.filter(|r| agent.is_none_or(|a| r.agent_id == a))),
                    record_of,
                )
            }
            (None, Some(agent)) => {
                let prefix = keys::pair(org_bytes, agent.as_bytes());
                self.timeline_page(
                    &self.usage_by_agent,
                    &prefix,
                    before,
                    limit,
                    |key, _| by_id(key),
                    record_of,
                )
            }
            (None, None) => self.timeline_page(
                &self.usage,
                org_bytes,
                before,
                limit,
                |_, value| decode(value).map(Some),
                record_of,
            ),
        }
    }
}

impl ThreadStore for SledStore {
    fn agent(&self, org: OrgId, agent: AgentId) -> Result<Option<Agent>, StoreError> {
        Self::get(&self.agents, &keys::pair(org.as_bytes(), agent.as_bytes()))
    }

    fn thread(&self, org: OrgId, thread: ThreadId) -> Result<Option<Thread>, StoreError> {
        Self::get(
            &self.threads,
            &keys::pair(org.as_bytes(), thread.as_bytes()),
        )
    }

    fn append(
        &self,
        thread: ThreadId,
        listed: Option<Message>,
        context: Vec<ContextMessage>,
    ) -> Result<Option<Message>, StoreError> {
        let encoded: Vec<Vec<u8>> = context.iter().map(encode).collect::<Result<_, _>>()?;
        (
            &self.thread_seqs,
            &self.messages,
            &self.context_seqs,
            &self.context,
        )
            .transaction(|(seqs, messages, context_seqs, context_tree)| {
                let next = |tree: &TransactionalTree| -> Result<u64, ConflictableTransactionError<StoreError>> {
                    Ok(tree.get(thread.as_bytes())?.map(|v| keys::read_u64(&v)).unwrap_or(0) + 1)
                };
                let stored = match &listed {
                    Some(message) => {
                        let seq = next(seqs)?;
                        let mut stored = message.clone();
                        stored.seq = seq;
                        seqs.insert(thread.as_bytes(), &seq.to_be_bytes())?;
                        messages.insert(
                            &keys::message(thread, seq)[..],
                            encode(&stored).map_err(abort)?,
                        )?;
                        Some(stored)
                    }
                    None => None,
                };
                if !encoded.is_empty() {
                    let first = next(context_seqs)?;
                    let mut seq = first;
                    for entry in &encoded {
                        context_tree.insert(&keys::message(thread, seq)[..], entry.clone())?;
                        seq += 1;
                    }
                    context_seqs.insert(thread.as_bytes(), &(seq - 1).to_be_bytes())?;
                }
                Ok(stored)
            })
            .map_err(tx_error)
    }

    fn context(&self, thread: ThreadId) -> Result<Vec<ContextMessage>, StoreError> {
        self.context
            .scan_prefix(thread.as_bytes())
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    fn credentials(&self, org: OrgId, agent: AgentId) -> Result<CredentialConfig, StoreError> {
        SledStore::credentials(self, org, agent)
    }

    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> Result<(Vec<Message>, u64), StoreError> {
        let total = self
            .thread_seqs
            .get(thread.as_bytes())
            .map_err(engine)?
            .map(|v| keys::read_u64(&v))
            .unwrap_or(0);
        let start = keys::message(thread, offset.saturating_add(1));
        let end = keys::message(thread, u64::MAX);
        let messages = self
            .messages
            .range(start..=end)
            .values()
            .take(limit)
            .map(|v| decode(&v.map_err(engine)?))
            .collect::<Result<_, _>>()?;
        Ok((messages, total))
    }

    fn record_usage(&self, record: UsageRecord) -> Result<UsageRecord, StoreError> {
        let org = record.org_id;
        (
            &self.usage,
            &self.usage_by_thread,
            &self.usage_by_agent,
            &self.org_clocks,
        )
            .transaction(|(usage, by_thread, by_agent, clocks)| {
                let at = next_org_instant(clocks, org, record.created_at)?;
                let mut stored = record.clone();
                stored.created_at = keys::from_micros(at);
                let id = stored.id.as_bytes();
                let org_bytes = org.as_bytes();
                usage.insert(
                    keys::timeline(org_bytes, at, id),
                    encode(&stored).map_err(abort)?,
                )?;
                let thread_prefix = keys::pair(org_bytes, stored.thread_id.as_bytes());
                by_thread.insert(keys::timeline(&thread_prefix, at, id), &[])?;
                let agent_prefix = keys::pair(org_bytes, stored.agent_id.as_bytes());
                by_agent.insert(keys::timeline(&agent_prefix, at, id), &[])?;
                Ok(stored)
            })
            .map_err(tx_error)
    }

    fn flush(&self) -> StoreFuture<()> {
        Box::pin(self.commit.flush())
    }
}

/// A cheap handle to the store for async code.
#[derive(Clone)]
pub struct Store {
    inner: Arc<SledStore>,
}

impl Store {
    /// Opens the database in `dir`.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            inner: Arc::new(SledStore::open(dir)?),
        })
    }

    /// The store as the engine's port.
    pub fn as_port(&self) -> Arc<dyn ThreadStore> {
        self.inner.clone()
    }

    /// Runs `f` on the blocking pool, off the async workers.
    pub async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&inner))
            .await
            .map_err(|e| StoreError::Engine(format!("store task failed: {e}")))?
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

    /// Flushes synchronously (at shutdown).
    pub fn flush_now(&self) -> Result<(), StoreError> {
        self.inner.flush_now()
    }
}
