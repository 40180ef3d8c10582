//! What a turn reads and writes on sled (threads, agents, credentials,
//! history, context, usage), each multi-key write in one transaction,
//! large values in files (see `values`); `engine` makes it the engine's
//! asynchronous `ThreadStore` port.

use std::sync::Arc;
use std::time::Instant;

use confer_actors::{
    Agent, AgentId, AppendDone, ContextMessage, IdempotencyRecord, Message, OrgId, StoreError,
    Thread, ThreadAppend, ThreadId, UsageRecord,
};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::encode;
use super::durability::QueuedWrite;
use super::traces::TraceWrite;
use super::usage::UsageTrees;
use super::{SledStore, engine, keys, tx_error};

/// The next seq of `thread` in a per-thread counter tree, inside a transaction.
fn next_seq(
    tree: &TransactionalTree,
    thread: ThreadId,
) -> Result<u64, ConflictableTransactionError<StoreError>> {
    Ok(tree
        .get(thread.as_bytes())?
        .map(|v| keys::read_u64(&v))
        .unwrap_or(0)
        + 1)
}

impl SledStore {
    /// Read backwards from the end, so a long thread costs no more than a
    /// short one.
    pub fn context_tail(&self, thread: ThreadId) -> Result<Vec<ContextMessage>, StoreError> {
        let mut tail: Vec<ContextMessage> = Vec::new();
        for entry in self.context.scan_prefix(thread.as_bytes()).rev() {
            let entry: ContextMessage = self.filed_record(thread, entry)?;
            let assistant = entry.role == confer_actors::ContextRole::Assistant;
            tail.push(entry);
            if assistant {
                break;
            }
        }
        tail.reverse();
        Ok(tail)
    }

    pub fn agent(&self, org: OrgId, agent: AgentId) -> Result<Option<Agent>, StoreError> {
        Self::get(&self.agents, &keys::pair(org.as_bytes(), agent.as_bytes()))?
            .map(|agent| self.agent_in_live_project(agent))
            .transpose()
    }

    pub fn thread(&self, org: OrgId, thread: ThreadId) -> Result<Option<Thread>, StoreError> {
        Self::get(
            &self.threads,
            &keys::pair(org.as_bytes(), thread.as_bytes()),
        )?
        .map(|thread| self.live_project_of(thread))
        .transpose()
    }

    pub fn append(
        &self,
        thread: ThreadId,
        write: ThreadAppend,
    ) -> Result<Option<Message>, StoreError> {
        let _writing = self.gate.writing();
        let ThreadAppend {
            turn,
            listed,
            context,
            keyed,
            usage,
            billed,
            earlier_calls,
            mut trace,
            // One node owns sled: no lease to check, no `turns` table.
            fence: _,
            mark: _,
        } = write;
        // Large values go to files first (see `values`), so the transaction
        // only writes stubs. The listed message's encoding holds its seq:
        // it is encoded with the seq read here, and written only if no other
        // append took that seq meanwhile (else the loop encodes again).
        let mut batch = self.values.batch(thread);
        let mut context_values = Vec::with_capacity(context.len());
        for entry in &context {
            context_values.push(batch.put(encode(entry)?)?);
        }
        let trees = (
            &self.thread_seqs,
            &self.messages,
            &self.context_seqs,
            &self.context,
            &self.idempotency,
            &self.turn_seqs,
            &self.usage,
            &self.usage_by_thread,
            &self.usage_by_agent,
            &self.org_clocks,
            &self.publication_days,
        );
        let mut trace_write = None;
        let stored = loop {
            let seq = self
                .thread_seqs
                .get(thread.as_bytes())
                .map_err(engine)?
                .map_or(0, |v| keys::read_u64(&v))
                + 1;
            let message = match &listed {
                Some(message) => {
                    let mut stored = message.clone();
                    stored.seq = seq;
                    let value = batch.put(encode(&stored)?)?;
                    Some((stored, value))
                }
                None => None,
            };
            // The files are durable before the records that point at them
            // (sled may flush the records on its own at any time).
            batch.sync()?;
            // The keyed send's record; on the answer's write it learns where
            // the answer went.
            let keyed_value = match &keyed {
                Some((key, record)) => {
                    let mut record = record.clone();
                    if let (Some(outcome), Some((answer, _))) = (record.outcome.as_mut(), &message)
                    {
                        outcome.answer_seq = Some(answer.seq);
                        outcome.message_id = Some(answer.id);
                    }
                    Some((keys::keyed_send(thread.as_bytes(), key), encode(&record)?))
                }
                None => None,
            };
            let answer = message.as_ref().map(|(stored, _)| stored.id);
            // Sealed here, on the first pass (a retry keeps it): its store
            // span ends as the transaction begins.
            if let Some(record) = trace.take() {
                let bytes = context_values.iter().map(Vec::len).sum::<usize>()
                    + message.as_ref().map_or(0, |(_, v)| v.len());
                trace_write = Some(TraceWrite::new(*record, bytes as u64)?);
            }
            let written = trees
                .transaction(|t| {
                    let (seqs, messages, context_seqs, context_tree, keyed_tree, turns, ..) = t;
                    if let Some(turn) = turn {
                        let last = turns
                            .get(thread.as_bytes())?
                            .map_or(0, |v| keys::read_u64(&v));
                        turns.insert(thread.as_bytes(), &last.max(turn).to_be_bytes())?;
                    }
                    if let Some((key, value)) = &keyed_value {
                        keyed_tree.insert(key.as_slice(), value.as_slice())?;
                    }
                    if let Some((_, value)) = &message {
                        if next_seq(seqs, thread)? != seq {
                            return Ok(false);
                        }
                        seqs.insert(thread.as_bytes(), &seq.to_be_bytes())?;
                        messages.insert(&keys::message(thread, seq), value.as_slice())?;
                    }
                    if !context_values.is_empty() {
                        let mut at = next_seq(context_seqs, thread)?;
                        for value in &context_values {
                            context_tree.insert(&keys::message(thread, at), value.as_slice())?;
                            at += 1;
                        }
                        context_seqs.insert(thread.as_bytes(), &(at - 1).to_be_bytes())?;
                    }
                    let usage_trees = UsageTrees {
                        usage: &t.6,
                        by_thread: &t.7,
                        by_agent: &t.8,
                        clocks: &t.9,
                        publication_days: &t.10,
                    };
                    for record in &billed {
                        usage_trees.link(record, answer)?;
                    }
                    for record in &earlier_calls {
                        usage_trees.insert(UsageRecord {
                            message_id: answer,
                            ..record.clone()
                        })?;
                    }
                    if let Some(record) = &usage {
                        usage_trees.insert(UsageRecord {
                            message_id: answer,
                            ..record.clone()
                        })?;
                    }
                    Ok(true)
                })
                .map_err(tx_error)?;
            if written {
                if let Some(write) = trace_write.take() {
                    self.trace_stored(write)?;
                }
                break message.map(|(stored, _)| stored);
            }
        };
        Ok(stored)
    }

    pub fn idempotency(
        &self,
        thread: ThreadId,
        key: &[u8; 32],
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        Self::get(&self.idempotency, &keys::keyed_send(thread.as_bytes(), key))
    }

    pub fn put_idempotency(
        &self,
        thread: ThreadId,
        key: &[u8; 32],
        record: &IdempotencyRecord,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        Self::put(
            &self.idempotency,
            &keys::keyed_send(thread.as_bytes(), key),
            record,
        )
    }

    pub fn last_turn(&self, thread: ThreadId) -> Result<u64, StoreError> {
        Ok(self
            .turn_seqs
            .get(thread.as_bytes())
            .map_err(engine)?
            .map_or(0, |v| keys::read_u64(&v)))
    }

    pub fn context(&self, thread: ThreadId) -> Result<Vec<ContextMessage>, StoreError> {
        self.context
            .scan_prefix(thread.as_bytes())
            .map(|entry| self.filed_record(thread, entry))
            .collect()
    }

    pub fn messages(
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
            .take(limit)
            .map(|entry| self.filed_record(thread, entry))
            .collect::<Result<_, _>>()?;
        Ok((messages, total))
    }

    pub fn record_usage(&self, record: UsageRecord) -> Result<UsageRecord, StoreError> {
        let _writing = self.gate.writing();
        (
            &self.usage,
            &self.usage_by_thread,
            &self.usage_by_agent,
            &self.org_clocks,
            &self.publication_days,
        )
            .transaction(|(usage, by_thread, by_agent, clocks, publication_days)| {
                let trees = UsageTrees {
                    usage,
                    by_thread,
                    by_agent,
                    clocks,
                    publication_days,
                };
                trees.insert(record.clone())
            })
            .map_err(tx_error)
    }
}

/// A turn's append waiting for the flusher: made just before a flush,
/// answered once that flush has ended.
struct QueuedAppend {
    store: Arc<SledStore>,
    thread: ThreadId,
    write: Option<ThreadAppend>,
    /// What the append returned, and when it was made.
    stored: Option<(Result<Option<Message>, StoreError>, Instant)>,
    reply: tokio::sync::oneshot::Sender<Result<AppendDone, StoreError>>,
}

impl QueuedWrite for QueuedAppend {
    fn write(&mut self) {
        if let Some(write) = self.write.take() {
            self.stored = Some((self.store.append(self.thread, write), Instant::now()));
        }
    }

    fn flushed(self: Box<Self>, flushed: Result<(), StoreError>) {
        let QueuedAppend { stored, reply, .. } = *self;
        let outcome = match (stored, flushed) {
            (Some((Err(error), _)), _) | (Some(_), Err(error)) => Err(error),
            (Some((Ok(listed), applied_at)), Ok(())) => Ok(AppendDone { listed, applied_at }),
            // The store failed before this write's turn came: never made.
            (None, Err(error)) => Err(error),
            (None, Ok(())) => Err(StoreError::Engine("a queued write was not made".into())),
        };
        // The turn may have gone (its task cancelled): nothing to tell.
        let _ = reply.send(outcome);
    }
}

pub mod configs;
pub mod documents;
pub mod embeddings;
mod engine;
pub mod integrations;
pub mod marketplace;
pub mod mcps;
pub mod memories;
pub mod plans;
pub mod projects;
pub mod publications;
pub mod records;
pub mod schedules;
pub mod skills;
pub mod threads;
pub mod tools;
pub use configs::{
    AgentConfigs, ConfigSwap, PlainConfig, agent_config, config_of, update_agent_config,
};
pub use documents::{ChunkPlace, DocumentFilter, DocumentRecords, FileToParse};
pub use embeddings::{ChunkKey, EmbeddingNews, EmbeddingRecords};
pub use engine::SledPort;
pub use integrations::IntegrationRecords;
pub use marketplace::{ListingFilter, MarketplaceRecords, ProfileSwap};
pub use mcps::{McpChange, McpRecords};
pub use memories::{MemoryFilter, MemoryRecords};
pub use plans::{PlanRecords, PlanSwap};
pub use projects::{MemberRule, ProjectRecords, ProjectSwap, ProjectWithRole};
pub use publications::{OrgSettingsSwap, PublicationRecords, PublicationSwap};
pub use records::{AgentRecords, AgentSwap, CredentialSwap, OrgRecords, SledRecords};
pub use schedules::ScheduleRecords;
pub use skills::{SkillRecords, SkillTouch};
pub use threads::{ThreadRecords, ThreadSwap};
pub use tools::{ToolChange, ToolRecords};

#[cfg(test)]
mod tests;
