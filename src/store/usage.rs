//! Usage records: one per model call, listed newest first by org, thread or
//! agent from their time-ordered indexes.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, StoreError, ThreadId, UsageRecord};

use super::codec::decode;
use super::{Page, SledStore, keys};

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
