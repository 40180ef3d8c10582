//! Usage records: one per model call, listed newest first by org, thread or
//! agent from their time-ordered indexes.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, MessageId, OrgId, StoreError, ThreadId, UsageRecord};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::{decode, encode};
use super::{Page, SledStore, abort, keys, next_org_instant};

/// Which usage records to list.
#[derive(Clone, Copy, Debug, Default)]
pub struct UsageFilter {
    pub agent: Option<AgentId>,
    pub thread: Option<ThreadId>,
}

/// `record` when there is one and `visible` accepts it.
fn keep<T>(
    record: Option<T>,
    visible: &mut impl FnMut(&T) -> Result<bool, StoreError>,
) -> Result<Option<T>, StoreError> {
    match record {
        Some(record) if visible(&record)? => Ok(Some(record)),
        _ => Ok(None),
    }
}

impl SledStore {
    /// Usage records, newest first, strictly older than `before`, keeping
    /// those `visible` accepts.
    pub fn list_usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
        mut visible: impl FnMut(&UsageRecord) -> Result<bool, StoreError>,
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
                    |key, _| {
                        let record = by_id(key)?.filter(|r| agent.is_none_or(|a| r.agent_id == a));
                        keep(record, &mut visible)
                    },
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
                    |key, _| keep(by_id(key)?, &mut visible),
                    record_of,
                )
            }
            (None, None) => self.timeline_page(
                &self.usage,
                org_bytes,
                before,
                limit,
                |_, value| keep(Some(decode(value)?), &mut visible),
                record_of,
            ),
        }
    }
}
/// The usage trees inside a transaction: the record, its two indexes and
/// the org's clock (which makes `created_at` unique within the org).
pub(super) struct UsageTrees<'a> {
    pub(super) usage: &'a TransactionalTree,
    pub(super) by_thread: &'a TransactionalTree,
    pub(super) by_agent: &'a TransactionalTree,
    pub(super) clocks: &'a TransactionalTree,
    pub(super) publication_days: &'a TransactionalTree,
}

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

impl<'a> UsageTrees<'a> {
    /// Stores a new record at the org's next instant; returns it as stored.
    pub(super) fn insert(&self, mut record: UsageRecord) -> TxResult<UsageRecord> {
        let org = record.org_id;
        let at = next_org_instant(self.clocks, org, record.created_at)?;
        record.created_at = keys::from_micros(at);
        let id = record.id.as_bytes();
        let org_bytes = org.as_bytes();
        self.usage.insert(
            keys::timeline(org_bytes, at, id),
            encode(&record).map_err(abort)?,
        )?;
        if let Some(thread) = record.thread_id {
            let thread_prefix = keys::pair(org_bytes, thread.as_bytes());
            self.by_thread
                .insert(keys::timeline(&thread_prefix, at, id), &[])?;
        }
        let agent_prefix = keys::pair(org_bytes, record.agent_id.as_bytes());
        self.by_agent
            .insert(keys::timeline(&agent_prefix, at, id), &[])?;
        // A visitor's call counts against its publication's day, in the
        // record's own transaction (so in its flush).
        if let Some(publication) = record.publication_id {
            let key = keys::publication_day(publication, keys::day_number(record.created_at));
            let spent = self
                .publication_days
                .get(key)?
                .map_or(0, |v| keys::read_u64(&v));
            let tokens = record.input_tokens + record.output_tokens;
            self.publication_days
                .insert(&key, &spent.saturating_add(tokens).to_be_bytes())?;
        }
        Ok(record)
    }

    /// Rewrites a stored record (its key unchanged) to point at `answer`.
    pub(super) fn link(&self, stored: &UsageRecord, answer: Option<MessageId>) -> TxResult<()> {
        let key = keys::timeline(
            stored.org_id.as_bytes(),
            keys::micros(stored.created_at),
            stored.id.as_bytes(),
        );
        let linked = UsageRecord {
            message_id: answer,
            ..stored.clone()
        };
        self.usage.insert(key, encode(&linked).map_err(abort)?)?;
        Ok(())
    }
}
