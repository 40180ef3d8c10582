//! Plans (`plans.md`): one record per plan with its todos, so that every
//! change is one compare-and-swap ([`SledStore::update_plan`]), and a
//! per-thread index for "the thread's plans, newest first". A plan is
//! created only on a live thread, in one transaction with its index entry;
//! the per-thread limit is counted under a creation lock. A thread's purge
//! removes its plans ([`SledStore::purge_plans`]).

use confer_actors::{OrgId, PlanId, StoreError, ThreadId};
use sled::Transactional;

use super::codec::{decode, encode};
use super::{SledStore, abort, engine, keys, tx_error};
use crate::plans::{MAX_PLANS_PER_THREAD, Plan};

/// Why a plan was not created.
#[derive(Debug, PartialEq, Eq)]
pub enum PlanCreate {
    /// The thread holds [`MAX_PLANS_PER_THREAD`] plans already.
    ThreadFull,
    /// The thread is gone.
    ThreadGone,
}

/// What a plan delete did.
#[derive(Debug)]
pub enum PlanDelete {
    Deleted,
    /// There was no such plan.
    Gone,
    /// `If-Match` named another version: the plan as it is.
    Stale(Box<Plan>),
}

fn index_key(plan: &Plan) -> Vec<u8> {
    keys::timeline(
        plan.thread_id.as_bytes(),
        keys::micros(plan.created_at),
        plan.id.as_bytes(),
    )
}

impl SledStore {
    /// Stores a new plan of a live thread, unless the thread is full.
    pub fn create_plan(&self, plan: &Plan) -> Result<Result<(), PlanCreate>, StoreError> {
        let _writing = self.gate.writing();
        // Counting and inserting must not interleave with another creation.
        let _creating = self
            .plan_creation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let held = self.plans_by_thread.scan_prefix(plan.thread_id.as_bytes());
        if held.count() >= MAX_PLANS_PER_THREAD {
            return Ok(Err(PlanCreate::ThreadFull));
        }
        let record = encode(plan)?;
        let key = keys::pair(plan.org_id.as_bytes(), plan.id.as_bytes());
        let thread = keys::pair(plan.org_id.as_bytes(), plan.thread_id.as_bytes());
        let index = index_key(plan);
        (&self.threads, &self.plans, &self.plans_by_thread)
            .transaction(|(threads, plans, by_thread)| {
                // A thread delete is a transaction on `threads`: either it
                // comes first and this refuses, or its purge sees the plan.
                if threads.get(&thread[..])?.is_none() {
                    return Ok(Err(PlanCreate::ThreadGone));
                }
                plans.insert(&key[..], record.as_slice())?;
                by_thread.insert(index.as_slice(), plan.org_id.as_bytes().as_slice())?;
                Ok(Ok(()))
            })
            .map_err(tx_error)
    }

    /// One plan of the org.
    pub fn plan(&self, org: OrgId, id: PlanId) -> Result<Option<Plan>, StoreError> {
        Self::get(&self.plans, &keys::pair(org.as_bytes(), id.as_bytes()))
    }

    /// A thread's plans, newest first.
    pub fn thread_plans(&self, org: OrgId, thread: ThreadId) -> Result<Vec<Plan>, StoreError> {
        let mut plans = Vec::new();
        for key in self
            .plans_by_thread
            .scan_prefix(thread.as_bytes())
            .keys()
            .rev()
        {
            let key = key.map_err(engine)?;
            let Some(id) = keys::timeline_id(&key) else {
                continue;
            };
            if let Some(plan) = self.plan(org, PlanId::from_bytes(id))? {
                plans.push(plan);
            }
        }
        Ok(plans)
    }

    /// Deletes a plan and its todos, if it is at version `expect` (any
    /// version when `None`).
    pub fn delete_plan(
        &self,
        org: OrgId,
        id: PlanId,
        expect: Option<u64>,
    ) -> Result<PlanDelete, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        (&self.plans, &self.plans_by_thread)
            .transaction(|(plans, by_thread)| {
                let Some(bytes) = plans.get(&key[..])? else {
                    return Ok(PlanDelete::Gone);
                };
                let plan: Plan = decode(&bytes).map_err(abort)?;
                if expect.is_some_and(|v| v != plan.version) {
                    return Ok(PlanDelete::Stale(Box::new(plan)));
                }
                plans.remove(&key[..])?;
                by_thread.remove(index_key(&plan))?;
                Ok(PlanDelete::Deleted)
            })
            .map_err(tx_error)
    }

    /// Removes up to `batch` plans of a deleted thread; how many went.
    pub(super) fn purge_plans(
        &self,
        org: OrgId,
        thread: ThreadId,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let mut removed = 0;
        for key in self
            .plans_by_thread
            .scan_prefix(thread.as_bytes())
            .keys()
            .take(batch)
        {
            let key = key.map_err(engine)?;
            if let Some(id) = keys::timeline_id(&key) {
                self.delete_plan(org, PlanId::from_bytes(id), None)?;
            }
            // An entry whose record is gone goes too.
            self.plans_by_thread.remove(key).map_err(engine)?;
            removed += 1;
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::edit::{self, NewPlan};
    use crate::plans::{PlanError, PlanStatus};
    use crate::store::test_secrets;
    use crate::store::update::Updated;
    use chrono::Utc;
    use confer_actors::AgentId;

    fn plan(org: OrgId, thread: ThreadId, title: &str) -> Plan {
        let new = NewPlan {
            title: title.into(),
            description: None,
            status: PlanStatus::InProgress,
            todos: Vec::new(),
            created_by: "u".into(),
        };
        edit::create(org, thread, new, Utc::now()).unwrap()
    }

    #[test]
    fn plans_are_listed_newest_first_limited_and_purged_with_their_thread() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let org = OrgId::new();
        let thread = crate::store::test_thread(org, AgentId::new(), "u");
        let thread = store.create_thread(&thread, None).unwrap();
        let orphan = plan(org, ThreadId::new(), "no thread");
        assert_eq!(
            store.create_plan(&orphan).unwrap(),
            Err(PlanCreate::ThreadGone)
        );
        let mut made = Vec::new();
        for n in 0..MAX_PLANS_PER_THREAD {
            let p = plan(org, thread.id, &format!("plan {n}"));
            store.create_plan(&p).unwrap().unwrap();
            made.push(p.id);
        }
        let checked = store.check().unwrap();
        assert!(checked.problems.is_empty(), "{:?}", checked.problems);
        assert_eq!(checked.counts["plans"], MAX_PLANS_PER_THREAD as u64);
        let extra = plan(org, thread.id, "one too many");
        assert_eq!(
            store.create_plan(&extra).unwrap(),
            Err(PlanCreate::ThreadFull)
        );
        let listed: Vec<PlanId> = store
            .thread_plans(org, thread.id)
            .unwrap()
            .iter()
            .map(|p| p.id)
            .collect();
        made.reverse();
        assert_eq!(listed, made, "newest first");
        assert!(
            store
                .thread_plans(OrgId::new(), thread.id)
                .unwrap()
                .is_empty()
        );

        // A change is a compare-and-swap; a refusal stores nothing.
        let refused = store
            .update_plan(org, made[0], |mut p| {
                p.title = "changed".into();
                Err::<Plan, _>(PlanError::TodoNotFound)
            })
            .unwrap();
        assert!(matches!(refused, Updated::Refused(PlanError::TodoNotFound)));
        assert_eq!(store.plan(org, made[0]).unwrap().unwrap().title, "plan 19");

        let stale = store.delete_plan(org, made[0], Some(7)).unwrap();
        assert!(matches!(stale, PlanDelete::Stale(p) if p.version == 1));
        let deleted = store.delete_plan(org, made[0], Some(1)).unwrap();
        assert!(matches!(deleted, PlanDelete::Deleted));
        let again = store.delete_plan(org, made[0], None).unwrap();
        assert!(matches!(again, PlanDelete::Gone));
        let gone = store.update_plan(org, made[0], Ok::<_, PlanError>).unwrap();
        assert!(
            matches!(gone, Updated::Gone),
            "a deleted plan stays deleted"
        );

        assert!(store.delete_thread(org, thread.id).unwrap());
        store.purge(thread.id).unwrap();
        assert!(store.plans.is_empty() && store.plans_by_thread.is_empty());
    }
}
