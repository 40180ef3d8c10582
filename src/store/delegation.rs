//! Delegation's records (`agent-extras.md` §3): each agent's delegates
//! (`agent_configs`, kind `ConfigKind::Delegation`, through the configs
//! port: `crate::tools::delegate::delegation_config`) and the listing of
//! delegated threads under their parent (`threads_by_parent`), which the
//! purge follows so a root's children go with it.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, StoreError, Thread, ThreadId};

use super::keys;
use super::{Page, SledStore, engine};

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
