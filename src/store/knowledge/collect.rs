//! Memory collections to run (`knowledge.md` §5, auto-collect).
//!
//! | tree                  | key                      | value        |
//! |-----------------------|--------------------------|--------------|
//! | `memory_collect_jobs` | thread ++ turn (u64 BE)  | `CollectJob` |
//!
//! A job is written once a turn answered and removed when its collection
//! ended (written, nothing to keep, or its last attempt failed); one key
//! per (thread, turn), so a turn is collected once however often it is
//! told.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, StoreError, ThreadId};
use serde::{Deserialize, Serialize};

use crate::store::codec::{decode, encode};
use crate::store::{SledStore, engine};

/// A turn whose memories are to be collected.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CollectJob {
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub thread_id: ThreadId,
    pub turn: u64,
    /// The turn's sender (the resolver's rule): whose memories it writes
    /// with a `user` tool scope, and whose key the call uses.
    pub user_id: String,
    /// A multiplayer thread's turn: only shared memories are written.
    pub multiplayer: bool,
    /// The model the turn answered with.
    pub model: String,
    /// The turn cut to the collection's budget.
    pub transcript: String,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt may run.
    pub due_at: DateTime<Utc>,
}

fn job_key(thread: ThreadId, turn: u64) -> Vec<u8> {
    let mut key = thread.as_bytes().to_vec();
    key.extend_from_slice(&turn.to_be_bytes());
    key
}

impl SledStore {
    /// Stores `job` unless its turn has one already; whether it did.
    pub fn put_collect_job(&self, job: &CollectJob) -> Result<bool, StoreError> {
        let stored = self
            .knowledge
            .collect_jobs
            .compare_and_swap(
                job_key(job.thread_id, job.turn),
                None::<&[u8]>,
                Some(encode(job)?),
            )
            .map_err(engine)?;
        Ok(stored.is_ok())
    }

    /// Up to `limit` jobs due at `now`, in key order.
    pub fn due_collect_jobs(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<CollectJob>, StoreError> {
        let mut due = Vec::new();
        for entry in self.knowledge.collect_jobs.iter() {
            let (_, bytes) = entry.map_err(engine)?;
            let job: CollectJob = decode(&bytes)?;
            if job.due_at <= now {
                due.push(job);
                if due.len() == limit {
                    break;
                }
            }
        }
        Ok(due)
    }

    /// Every pending job (what `confer migrate` copies).
    pub fn collect_jobs(&self) -> Result<Vec<CollectJob>, StoreError> {
        self.knowledge
            .collect_jobs
            .iter()
            .values()
            .map(|bytes| decode(&bytes.map_err(engine)?))
            .collect()
    }

    /// Replaces the job's record (an attempt failed and is retried).
    pub fn update_collect_job(&self, job: &CollectJob) -> Result<(), StoreError> {
        self.knowledge
            .collect_jobs
            .insert(job_key(job.thread_id, job.turn), encode(job)?)
            .map_err(engine)?;
        Ok(())
    }

    /// Removes the job of (`thread`, `turn`).
    pub fn remove_collect_job(&self, thread: ThreadId, turn: u64) -> Result<(), StoreError> {
        self.knowledge
            .collect_jobs
            .remove(job_key(thread, turn))
            .map_err(engine)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(thread: ThreadId, turn: u64, due_at: DateTime<Utc>) -> CollectJob {
        CollectJob {
            org_id: OrgId::new(),
            agent_id: AgentId::new(),
            thread_id: thread,
            turn,
            user_id: "u".into(),
            multiplayer: false,
            model: "builtin/echo".into(),
            transcript: "User: hi".into(),
            attempts: 0,
            due_at,
        }
    }

    #[test]
    fn a_turn_is_queued_once_and_due_jobs_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::testing::reopen_for_test(dir.path());
        let thread = ThreadId::new();
        let now = Utc::now();
        assert!(store.put_collect_job(&job(thread, 1, now)).unwrap());
        assert!(!store.put_collect_job(&job(thread, 1, now)).unwrap());
        let later = job(thread, 2, now + chrono::TimeDelta::seconds(60));
        assert!(store.put_collect_job(&later).unwrap());
        let due = store.due_collect_jobs(now, 10).unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].turn, 1);
        store.remove_collect_job(thread, 1).unwrap();
        assert!(store.due_collect_jobs(now, 10).unwrap().is_empty());
        let mut retried = later.clone();
        retried.due_at = now;
        retried.attempts = 1;
        store.update_collect_job(&retried).unwrap();
        assert_eq!(store.due_collect_jobs(now, 10).unwrap(), vec![retried]);
    }
}
