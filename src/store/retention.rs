//! Public chats' threads (`publishing.md` "Visitors" rules 3 and 12): the
//! `publication_threads` index counts each publication's visitor threads
//! (the cap of `CONFER_PUBLIC_MAX_THREADS`, checked in the thread's own
//! transaction) and holds each one's last known activity, which the hourly
//! retention sweep reads. The index is the sweep's whole state, so a restart
//! resumes it: an entry idle past its publication's `retention_days` is
//! checked against the thread's last message and, still idle, the thread is
//! deleted (a tombstone; the purge removes its history); otherwise the
//! entry learns the newer activity.

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::{OrgId, PublicationId, StoreError, ThreadId};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::decode;
use super::{SledStore, engine, keys};
use crate::publishing::Publication;

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// Entries read per batch of the sweep.
pub const SWEEP_BATCH: usize = 1_000;

fn entry(activity_micros: u64, org: OrgId) -> [u8; 24] {
    let mut value = [0u8; 24];
    value[..8].copy_from_slice(&activity_micros.to_be_bytes());
    value[8..].copy_from_slice(org.as_bytes());
    value
}

fn count(tree: &TransactionalTree, publication: PublicationId) -> TxResult<u64> {
    Ok(tree
        .get(publication.as_bytes())?
        .map_or(0, |v| keys::read_u64(&v)))
}

/// Counts a new thread of `publication` (created at `at` µs) unless it
/// already holds `max`; false then, and nothing is written.
pub(super) fn count_in(
    tree: &TransactionalTree,
    publication: PublicationId,
    thread: ThreadId,
    at: u64,
    org: OrgId,
    max: u64,
) -> TxResult<bool> {
    let held = count(tree, publication)?;
    if held >= max {
        return Ok(false);
    }
    tree.insert(publication.as_bytes(), &(held + 1).to_be_bytes())?;
    tree.insert(
        &keys::pair(publication.as_bytes(), thread.as_bytes())[..],
        &entry(at, org),
    )?;
    Ok(true)
}

/// Forgets a deleted thread of `publication`.
pub(super) fn uncount_in(
    tree: &TransactionalTree,
    publication: PublicationId,
    thread: ThreadId,
) -> TxResult<()> {
    let key = keys::pair(publication.as_bytes(), thread.as_bytes());
    if tree.remove(&key[..])?.is_some() {
        let held = count(tree, publication)?;
        tree.insert(
            publication.as_bytes(),
            &held.saturating_sub(1).to_be_bytes(),
        )?;
    }
    Ok(())
}

impl SledStore {
    /// Whether the creator of `thread`, a thread of `publication`, may
    /// make another ([`crate::publishing::MAX_THREADS_PER_VISITOR`]); the
    /// guard to hold until the thread is stored, so that two creations
    /// cannot both take the visitor's last place.
    pub(super) fn visitor_room(
        &self,
        thread: &confer_actors::Thread,
        publication: PublicationId,
    ) -> Result<(bool, std::sync::MutexGuard<'_, ()>), StoreError> {
        let guard = self
            .visitor_creates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let prefix = keys::user_threads(thread.org_id, thread.agent_id, &thread.created_by);
        let mut held = 0;
        for key in self.threads_by_user.scan_prefix(&prefix).keys() {
            let key = key.map_err(engine)?;
            let id = uuid::Uuid::from_slice(&key[key.len().saturating_sub(16)..])
                .map_err(|_| StoreError::Codec("a user's thread key".into()))?;
            let found: Option<confer_actors::Thread> = Self::get(
                &self.threads,
                &keys::pair(thread.org_id.as_bytes(), id.as_bytes()),
            )?;
            if found.is_some_and(|t| t.publication_id == Some(publication)) {
                held += 1;
            }
        }
        Ok((held < crate::publishing::MAX_THREADS_PER_VISITOR, guard))
    }

    /// The threads `publication` holds.
    pub fn publication_threads(&self, publication: PublicationId) -> Result<u64, StoreError> {
        Ok(self
            .publication_threads
            .get(publication.as_bytes())
            .map_err(engine)?
            .map_or(0, |v| keys::read_u64(&v)))
    }

    /// Drops a deleted publication's index (its threads stay, out of
    /// retention).
    pub fn forget_publication_threads(&self, publication: PublicationId) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        for key in self
            .publication_threads
            .scan_prefix(publication.as_bytes())
            .keys()
        {
            self.publication_threads
                .remove(key.map_err(engine)?)
                .map_err(engine)?;
        }
        Ok(())
    }

    /// When `thread` last saw a message (its creation before the first);
    /// `None` when it is gone.
    fn last_activity(
        &self,
        org: OrgId,
        thread: ThreadId,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let Some(record) = self.thread(org, thread)? else {
            return Ok(None);
        };
        let seq = self
            .thread_seqs
            .get(thread.as_bytes())
            .map_err(engine)?
            .map_or(0, |v| keys::read_u64(&v));
        if seq == 0 {
            return Ok(Some(record.created_at));
        }
        let (last, _) = self.messages(thread, seq - 1, 1)?;
        Ok(Some(
            last.first().map_or(record.created_at, |m| m.created_at),
        ))
    }

    /// One retention sweep at `now`, reading the index `batch` entries at a
    /// time; the threads it deleted.
    pub fn sweep_retention(&self, now: DateTime<Utc>, batch: usize) -> Result<usize, StoreError> {
        let publications: Vec<Publication> = self
            .publications
            .iter()
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect::<Result<_, _>>()?;
        let mut deleted = 0;
        for publication in publications {
            let Some(days) = publication.retention_days else {
                continue;
            };
            let cutoff = now - TimeDelta::days(i64::from(days));
            deleted += self.sweep_publication(publication.id, cutoff, batch.max(1))?;
        }
        Ok(deleted)
    }

    fn sweep_publication(
        &self,
        publication: PublicationId,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let prefix = publication.as_bytes();
        // Entries are `publication ++ thread`; the count's key (the bare
        // publication) sorts before them.
        let mut from = keys::pair(prefix, &[0; 16]).to_vec();
        let end = keys::pair(prefix, &[0xff; 16]).to_vec();
        let mut deleted = 0;
        loop {
            let chunk: Vec<(sled::IVec, sled::IVec)> = self
                .publication_threads
                .range(from.clone()..=end.clone())
                .take(batch)
                .collect::<Result<_, _>>()
                .map_err(engine)?;
            let Some((last, _)) = chunk.last() else {
                return Ok(deleted);
            };
            from = last.to_vec();
            from.push(0);
            for (key, value) in chunk {
                let (Some(thread), Some(activity), Some(org)) =
                    (keys::timeline_id(&key), value.get(..8), value.get(8..24))
                else {
                    continue;
                };
                let thread = ThreadId::from_bytes(thread);
                if keys::from_micros(keys::read_u64(activity)) >= cutoff {
                    continue;
                }
                let mut org_bytes = [0u8; 16];
                org_bytes.copy_from_slice(org);
                let org = OrgId::from_bytes(org_bytes);
                match self.last_activity(org, thread)? {
                    Some(last) if last >= cutoff => {
                        let _writing = self.gate.writing();
                        self.publication_threads
                            .insert(&key, &entry(keys::micros(last), org))
                            .map_err(engine)?;
                    }
                    Some(_) => {
                        if self.delete_thread(org, thread)? {
                            deleted += 1;
                        }
                    }
                    // Gone some other way: the entry goes too.
                    None => {
                        let _writing = self.gate.writing();
                        self.publication_threads.remove(&key).map_err(engine)?;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::{reopen_for_test, test_secrets, test_thread};

    fn public_thread(
        org: OrgId,
        publication: &Publication,
        at: DateTime<Utc>,
    ) -> confer_actors::Thread {
        let mut thread = test_thread(org, publication.agent_id, "visitor:v");
        thread.publication_id = Some(publication.id);
        thread.created_at = at;
        thread.updated_at = at;
        thread
    }

    #[test]
    fn the_sweep_deletes_idle_threads_in_batches_and_resumes_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let org = OrgId::new();
        let mut publication = Publication::new(org, confer_actors::AgentId::new(), "swept".into());
        publication.retention_days = Some(1);
        let now = Utc::now();
        let old = now - TimeDelta::days(5);
        let ids: Vec<ThreadId> = {
            let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
            store.create_publication(&publication).unwrap();
            let ids = (0..3)
                .map(|_| {
                    store
                        .create_thread(&public_thread(org, &publication, old), None)
                        .unwrap()
                        .id
                })
                .collect();
            assert_eq!(store.publication_threads(publication.id).unwrap(), 3);
            // One batch of one entry per pass would be slow; batches of
            // two still reach all three.
            store.flush_now().unwrap();
            ids
        };
        let store = reopen_for_test(dir.path());
        // A sweep as of a moment when none is idle yet deletes nothing.
        assert_eq!(
            store
                .sweep_retention(old + TimeDelta::hours(12), 2)
                .unwrap(),
            0
        );
        assert_eq!(store.sweep_retention(now, 2).unwrap(), 3);
        for id in ids {
            assert!(store.thread(org, id).unwrap().is_none());
        }
        assert_eq!(store.publication_threads(publication.id).unwrap(), 0);
    }

    #[test]
    fn newer_activity_keeps_a_thread_and_the_cap_holds() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        store
            .public_max_threads
            .store(1, std::sync::atomic::Ordering::Relaxed);
        let org = OrgId::new();
        let mut publication = Publication::new(org, confer_actors::AgentId::new(), "kept".into());
        publication.retention_days = Some(1);
        store.create_publication(&publication).unwrap();
        let now = Utc::now();
        let thread = store
            .create_thread(&public_thread(org, &publication, now), None)
            .unwrap();
        assert!(
            store
                .create_thread(&public_thread(org, &publication, now), None)
                .is_err()
        );
        // The index thinks it idle; the thread says otherwise.
        let key = keys::pair(publication.id.as_bytes(), thread.id.as_bytes());
        let stale = entry(keys::micros(now - TimeDelta::days(9)), org);
        store
            .publication_threads
            .insert(&key[..], &stale[..])
            .unwrap();
        assert_eq!(store.sweep_retention(now, SWEEP_BATCH).unwrap(), 0);
        assert!(store.thread(org, thread.id).unwrap().is_some());
        let learned = store.publication_threads.get(&key[..]).unwrap().unwrap();
        assert_eq!(
            keys::read_u64(&learned[..8]),
            keys::micros(thread.created_at)
        );
        // Deleting frees the place.
        assert!(store.delete_thread(org, thread.id).unwrap());
        assert!(
            store
                .create_thread(&public_thread(org, &publication, now), None)
                .is_ok()
        );
    }
}
