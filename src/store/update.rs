//! Read-modify-write of one record as compare-and-swap.
//!
//! A handler that read a record, changed it and wrote it back could undo a
//! concurrent delete (the late write resurrected the record). Every update
//! here reads the stored bytes, applies the change and swaps only if the bytes
//! are still the ones read; on a conflict it reads again and reapplies. A
//! record deleted in between is never written back: the update reports it as
//! gone (the handler's 404). sled orders compare-and-swap with its
//! transactions, so a delete transaction and an update cannot interleave.

use confer_actors::{
    Agent, AgentId, CompactionConfig, CredentialConfig, KnowledgeConfig, OrgId, PlanConfig, PlanId,
    StoreError, Thread, ThreadId,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sled::{Transactional, Tree};

use super::codec::{decode, encode};
use super::keys::{self, ConfigKind};
use super::{SledStore, engine};
use crate::knowledge::memory::MemoryConfig;
use crate::plans::Plan;

/// The outcome of an update: the record as stored, `Gone` when there was
/// none (or it was deleted meanwhile), or the change's own refusal.
#[derive(Debug)]
pub enum Updated<T, E> {
    Stored(T),
    Gone,
    Refused(E),
}

/// Compare-and-swap loop over one key. `current` maps the stored bytes (or
/// their absence) to the record to change, or `None` to stop with `Gone`.
pub(super) fn swap<T, E>(
    tree: &Tree,
    key: &[u8],
    current: impl Fn(Option<&[u8]>) -> Result<Option<T>, StoreError>,
    mut change: impl FnMut(T) -> Result<T, E>,
) -> Result<Updated<T, E>, StoreError>
where
    T: Serialize + DeserializeOwned,
{
    swap_encoded(tree, key, current, &mut change, encode)
}

/// [`swap`] with its own encoding (sealed fields, say).
fn swap_encoded<T, E>(
    tree: &Tree,
    key: &[u8],
    current: impl Fn(Option<&[u8]>) -> Result<Option<T>, StoreError>,
    mut change: impl FnMut(T) -> Result<T, E>,
    encode: impl Fn(&T) -> Result<Vec<u8>, StoreError>,
) -> Result<Updated<T, E>, StoreError> {
    loop {
        let old = tree.get(key).map_err(engine)?;
        let Some(record) = current(old.as_deref())? else {
            return Ok(Updated::Gone);
        };
        let record = match change(record) {
            Ok(record) => record,
            Err(refusal) => return Ok(Updated::Refused(refusal)),
        };
        let new = encode(&record)?;
        match tree.compare_and_swap(key, old, Some(new)).map_err(engine)? {
            Ok(()) => return Ok(Updated::Stored(record)),
            Err(_) => continue, // written meanwhile: read again
        }
    }
}

/// The decoded configuration, its default when absent.
pub(super) fn or_default<T: DeserializeOwned + Default>(
    bytes: Option<&[u8]>,
) -> Result<Option<T>, StoreError> {
    Ok(Some(existing(bytes)?.unwrap_or_default()))
}

/// The decoded record, `None` when absent.
pub(super) fn existing<T: DeserializeOwned>(bytes: Option<&[u8]>) -> Result<Option<T>, StoreError> {
    bytes.map(decode).transpose()
}

impl SledStore {
    /// Changes a live (not deleted) agent; `Gone` when it is absent or deleted.
    pub fn update_agent<E>(
        &self,
        org: OrgId,
        id: AgentId,
        change: impl FnMut(Agent) -> Result<Agent, E>,
    ) -> Result<Updated<Agent, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        swap(
            &self.agents,
            &key,
            |bytes| Ok(existing::<Agent>(bytes)?.filter(|a| !a.is_deleted())),
            change,
        )
    }

    /// Changes a thread's record (compare-and-swap on the record read; its
    /// org, agent and created_at never change, and its project's listing
    /// entry moves in the same transaction); `Gone` when it was deleted.
    /// A project deleted meanwhile leaves the thread with no project.
    pub fn update_thread<E>(
        &self,
        org: OrgId,
        id: ThreadId,
        mut change: impl FnMut(Thread) -> Result<Thread, E>,
    ) -> Result<Updated<Thread, E>, StoreError> {
        use super::projects::thread_entry;
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        loop {
            let Some(old) = self.threads.get(key).map_err(engine)? else {
                return Ok(Updated::Gone);
            };
            let stored: Thread = decode(&old)?;
            let after = match change(self.live_project_of(stored.clone())?) {
                Ok(after) => after,
                Err(refusal) => return Ok(Updated::Refused(refusal)),
            };
            let swapped = (
                &self.threads,
                &self.projects.threads,
                self.projects.records(),
            )
                .transaction(|(threads, by_project, projects)| {
                    if threads.get(key)?.as_ref() != Some(&old) {
                        return Ok(None); // changed meanwhile: read again
                    }
                    let mut after = after.clone();
                    if let Some(project) = after.project_id
                        && projects
                            .get(keys::pair(org.as_bytes(), project.as_bytes()))?
                            .is_none()
                    {
                        after.project_id = None;
                    }
                    if after.project_id != stored.project_id {
                        if let Some(entry) = thread_entry(&stored) {
                            by_project.remove(entry)?;
                        }
                        if let Some(entry) = thread_entry(&after) {
                            by_project.insert(entry, &[])?;
                        }
                    }
                    threads.insert(&key[..], encode(&after).map_err(super::abort)?)?;
                    Ok(Some(after))
                })
                .map_err(super::tx_error)?;
            if let Some(stored) = swapped {
                return Ok(Updated::Stored(stored));
            }
        }
    }

    /// Changes an agent's credential resolver configuration (the default
    /// when unset). The change sees the signing secret in clear; it is
    /// stored sealed.
    pub fn update_credentials<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(CredentialConfig) -> Result<CredentialConfig, E>,
    ) -> Result<Updated<CredentialConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Credentials);
        swap_encoded(
            &self.agent_configs,
            &key,
            |bytes| {
                let stored: CredentialConfig = existing(bytes)?.unwrap_or_default();
                self.open_credentials(org, agent, stored).map(Some)
            },
            change,
            |config| encode(&self.seal_credentials(org, agent, config.clone())?),
        )
    }

    /// Changes an agent's compaction configuration (the default when unset).
    pub fn update_compaction<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(CompactionConfig) -> Result<CompactionConfig, E>,
    ) -> Result<Updated<CompactionConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Compaction);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// Changes an agent's plan configuration (all off when unset).
    pub fn update_plan_config<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(PlanConfig) -> Result<PlanConfig, E>,
    ) -> Result<Updated<PlanConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Plans);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// Changes an agent's knowledge configuration (from the defaults).
    pub fn update_knowledge_config<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(KnowledgeConfig) -> Result<KnowledgeConfig, E>,
    ) -> Result<Updated<KnowledgeConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Knowledge);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// Changes an agent's memory configuration (from the defaults).
    pub fn update_memory_config<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(MemoryConfig) -> Result<MemoryConfig, E>,
    ) -> Result<Updated<MemoryConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Memory);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// Changes a plan (or its todos); `Gone` when it was deleted.
    pub fn update_plan<E>(
        &self,
        org: OrgId,
        id: PlanId,
        change: impl FnMut(Plan) -> Result<Plan, E>,
    ) -> Result<Updated<Plan, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        swap(&self.plans, &key, existing::<Plan>, change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_secrets;
    use chrono::Utc;

    fn agent(org: OrgId) -> Agent {
        crate::store::testing::test_agent(org)
    }

    #[test]
    fn an_update_never_brings_back_a_deleted_agent() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let org = OrgId::new();
        let a = agent(org);
        store.put_agent(&a).unwrap();
        let renamed = store
            .update_agent(org, a.id, |mut x| {
                x.name = "b".into();
                Ok::<_, ()>(x)
            })
            .unwrap();
        assert!(matches!(renamed, Updated::Stored(ref x) if x.name == "b"));
        store
            .update_agent(org, a.id, |mut x| {
                x.deleted_at = Some(Utc::now());
                Ok::<_, ()>(x)
            })
            .unwrap();
        let late = store
            .update_agent(org, a.id, |mut x| {
                x.name = "late".into();
                Ok::<_, ()>(x)
            })
            .unwrap();
        assert!(matches!(late, Updated::Gone));
        assert!(store.agent(org, a.id).unwrap().unwrap().is_deleted());
    }

    #[test]
    fn a_refused_change_writes_nothing_and_conflicts_retry() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let org = OrgId::new();
        let a = agent(org);
        store.put_agent(&a).unwrap();
        let refused = store
            .update_agent(org, a.id, |_| Err::<Agent, _>("no"))
            .unwrap();
        assert!(matches!(refused, Updated::Refused("no")));
        // A write that lands between the read and the swap forces a retry,
        // and the retried change sees it.
        let mut attempts = 0;
        let outcome = store
            .update_agent(org, a.id, |mut x| {
                attempts += 1;
                if attempts == 1 {
                    let mut other = x.clone();
                    other.description = "concurrent".into();
                    store.put_agent(&other).unwrap();
                }
                x.name = format!("{}+", x.name);
                Ok::<_, ()>(x)
            })
            .unwrap();
        assert_eq!(attempts, 2);
        let Updated::Stored(stored) = outcome else {
            panic!("not stored")
        };
        assert_eq!(stored.description, "concurrent");
        assert_eq!(stored.name, "a+");
    }
}
