//! The detach that follows a project's delete: its threads, agents and
//! runners are rewritten with no project, a batch at a time, by the purge
//! worker (`super::super::purge`). The marker goes last, so a detach cut
//! short by a crash resumes at the next start from the markers alone.
//! Readers never wait for it: a record naming a deleted project already
//! reads as detached (`SledStore::live_project_of`).

use chrono::{DateTime, Utc};
use confer_actors::{Agent, OrgId, ProjectId, StoreError, Thread};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use crate::store::codec::{decode, encode};
use crate::store::update::{existing, swap};
use crate::store::{SledStore, abort, engine, keys, tx_error};

/// The marker of a deleted project whose records still name it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProjectDetach {
    pub org_id: OrgId,
    pub project_id: ProjectId,
    pub deleted_at: DateTime<Utc>,
}

impl SledStore {
    /// The deleted projects whose detach is not finished.
    pub fn pending_detaches(&self) -> Result<Vec<ProjectDetach>, StoreError> {
        self.projects
            .detaches
            .iter()
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// Rewrites up to `batch` threads of a deleted project with no project
    /// (then its agents and runners); returns how many records it changed
    /// (0: nothing was left, and the marker is gone).
    pub fn detach_step(
        &self,
        org: OrgId,
        project: ProjectId,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let marker = keys::pair(org.as_bytes(), project.as_bytes());
        if !self
            .projects
            .detaches
            .contains_key(marker)
            .map_err(engine)?
        {
            return Ok(0);
        }
        let listed: Vec<sled::IVec> = self
            .projects
            .threads
            .scan_prefix(marker)
            .keys()
            .take(batch)
            .collect::<Result<_, _>>()
            .map_err(engine)?;
        if !listed.is_empty() {
            let _writing = self.gate.writing();
            (&self.threads, &self.projects.threads)
                .transaction(|(threads, index)| {
                    for entry in &listed {
                        if let Some(id) = keys::timeline_id(entry) {
                            let key = keys::pair(org.as_bytes(), &id);
                            if let Some(bytes) = threads.get(key)? {
                                let mut thread: Thread = decode(&bytes).map_err(abort)?;
                                if thread.project_id == Some(project) {
                                    thread.project_id = None;
                                    threads.insert(&key[..], encode(&thread).map_err(abort)?)?;
                                }
                            }
                        }
                        index.remove(entry)?;
                    }
                    Ok(())
                })
                .map_err(tx_error)?;
            return Ok(listed.len());
        }
        let changed = self.detach_agents(org, project)? + self.detach_runners(org, project)?;
        if changed > 0 {
            return Ok(changed);
        }
        let _writing = self.gate.writing();
        self.projects.detaches.remove(marker).map_err(engine)?;
        Ok(0)
    }

    /// The org's agents (deleted ones too) still naming `project`, each
    /// rewritten by compare-and-swap.
    fn detach_agents(&self, org: OrgId, project: ProjectId) -> Result<usize, StoreError> {
        let mut changed = 0;
        let mut named = Vec::new();
        for value in self.agents.scan_prefix(org.as_bytes()).values() {
            let agent: Agent = decode(&value.map_err(engine)?)?;
            if agent.project_id == Some(project) {
                named.push(agent.id);
            }
        }
        for id in named {
            let _writing = self.gate.writing();
            swap(
                &self.agents,
                &keys::pair(org.as_bytes(), id.as_bytes()),
                existing::<Agent>,
                |mut agent| {
                    agent.project_id = None;
                    Ok::<_, std::convert::Infallible>(agent)
                },
            )?;
            changed += 1;
        }
        Ok(changed)
    }

    /// The org's live runners whose record still names `project` (read
    /// raw: the readers' view already shows them detached).
    fn detach_runners(&self, org: OrgId, project: ProjectId) -> Result<usize, StoreError> {
        let id = project.to_string();
        let mut named = Vec::new();
        for value in self.runners.runners.scan_prefix(org.as_bytes()).values() {
            let runner: crate::runners::Runner = decode(&value.map_err(engine)?)?;
            if runner.deleted_at.is_none() && runner.project_id.as_deref() == Some(id.as_str()) {
                named.push(runner.id);
            }
        }
        for runner in &named {
            self.update_runner(org, *runner, |mut runner| {
                runner.project_id = None;
                Ok::<_, std::convert::Infallible>(runner)
            })?;
        }
        Ok(named.len())
    }
}
