//! Delegation's records (`agent-extras.md` §3): each agent's delegates
//! (`agent_configs`, kind [`ConfigKind::Delegation`]) and the listing of
//! delegated threads under their parent (`threads_by_parent`), which the
//! purge follows so a root's children go with it.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, StoreError, Thread, ThreadId, UsageRecord};

use super::keys::{self, ConfigKind};
use super::{Page, SledStore, engine};
use crate::tools::delegate::config::DelegationConfig;

/// The `threads_by_parent` entry of a delegated thread.
pub(super) fn parent_entry(thread: &Thread) -> Option<Vec<u8>> {
    let parent = thread.delegation.as_ref()?.parent_thread_id;
    let prefix = keys::pair(thread.org_id.as_bytes(), parent.as_bytes());
    Some(keys::timeline(
        &prefix,
        keys::micros(thread.created_at),
        thread.id.as_bytes(),
    ))
}

impl SledStore {
    /// An agent's delegates, when it has any.
    pub fn delegation_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Option<DelegationConfig>, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Delegation);
        Self::get(&self.agent_configs, &key)
    }

    /// Every delegation of `org` (its graph, for the cycle rule).
    pub fn org_delegations(&self, org: OrgId) -> Result<Vec<DelegationConfig>, StoreError> {
        let mut all = Vec::new();
        for entry in self.agent_configs.scan_prefix(org.as_bytes()) {
            let (key, value) = entry.map_err(engine)?;
            if key.len() == 33 && key[32] == ConfigKind::Delegation as u8 {
                all.push(super::codec::decode(&value)?);
            }
        }
        Ok(all)
    }

    /// Replaces an agent's delegates (an empty list removes the record).
    pub fn put_delegation_config(&self, config: &DelegationConfig) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(config.org_id, config.agent_id, ConfigKind::Delegation);
        if config.delegates.is_empty() {
            self.agent_configs.remove(key).map_err(engine)?;
            return Ok(());
        }
        Self::put(&self.agent_configs, &key, config)
    }

    /// The delegated threads under `parent`, newest first, strictly older
    /// than `before`.
    pub fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> Result<Page<Thread>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), parent.as_bytes());
        self.thread_timeline(&self.threads_by_parent, &prefix, org, before, limit, |_| {
            Ok(true)
        })
    }

    /// Deletes up to `batch` of a deleted thread's children (each then
    /// purged in turn, and its own children with it); how many went.
    pub(super) fn delete_children(
        &self,
        org: OrgId,
        parent: ThreadId,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let prefix = keys::pair(org.as_bytes(), parent.as_bytes());
        let mut removed = 0;
        for key in self
            .threads_by_parent
            .scan_prefix(prefix)
            .keys()
            .take(batch)
        {
            let key = key.map_err(engine)?;
            if let Some(id) = keys::timeline_id(&key) {
                self.delete_thread(org, ThreadId::from_bytes(id))?;
            }
            // Gone with the child's delete; a child already gone left it.
            self.threads_by_parent.remove(key).map_err(engine)?;
            removed += 1;
        }
        Ok(removed)
    }
}

/// Descendants one listing follows at most (a root's turns each make at
/// most 20 calls; a thread of many turns may still have many).
pub const MAX_DESCENDANTS: usize = 10_000;

impl SledStore {
    /// `thread` and its delegated descendants, nearest first (at most
    /// [`MAX_DESCENDANTS`] of them).
    pub fn thread_and_descendants(
        &self,
        org: OrgId,
        thread: ThreadId,
    ) -> Result<Vec<ThreadId>, StoreError> {
        let mut all = vec![thread];
        let mut next = 0;
        while next < all.len() && all.len() <= MAX_DESCENDANTS {
            let prefix = keys::pair(org.as_bytes(), all[next].as_bytes());
            for key in self.threads_by_parent.scan_prefix(prefix).keys() {
                if let Some(id) = keys::timeline_id(&key.map_err(engine)?) {
                    all.push(ThreadId::from_bytes(id));
                }
            }
            next += 1;
        }
        all.truncate(MAX_DESCENDANTS + 1);
        Ok(all)
    }

    /// The usage records of `threads`, newest first, strictly older than
    /// `before`: each thread's page, merged.
    pub fn usage_of_threads(
        &self,
        org: OrgId,
        threads: &[ThreadId],
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> Result<Page<UsageRecord>, StoreError> {
        let mut items = Vec::new();
        let mut more = false;
        for &thread in threads {
            let filter = super::UsageFilter {
                agent: None,
                thread: Some(thread),
            };
            let page = self.list_usage(org, filter, before, limit, |_| Ok(true))?;
            more |= page.next_cursor.is_some();
            items.extend(page.items);
        }
        items.sort_by_key(|r| std::cmp::Reverse(r.created_at));
        if items.len() > limit {
            more = true;
            items.truncate(limit);
        }
        let next_cursor = more.then(|| items.last().map(|r| r.created_at)).flatten();
        Ok(Page { items, next_cursor })
    }
}
