//! Projects in the store (`agent-extras.md` §5; see `crate::projects`).
//!
//! | tree                 | key                                              | value          |
//! |----------------------|--------------------------------------------------|----------------|
//! | `projects`           | org ++ project                                   | `Project`      |
//! | `project_slugs`      | org ++ slug (UTF-8)                              | project id     |
//! | `project_timeline`   | org ++ created µs BE ++ project                  | empty          |
//! | `project_members`    | project ++ user id (UTF-8)                       | `Member`       |
//! | `projects_by_user`   | org ++ user hash ++ created µs BE ++ project     | empty          |
//! | `threads_by_project` | org ++ project ++ created µs BE ++ thread        | empty          |
//! | `project_detaches`   | org ++ project                                   | `ProjectDetach`|
//!
//! A record, its slug and its listing entries change in one transaction.
//! Writes that count (10,000 projects per org, 500 members per project, the
//! last owner) hold one lock, since a sled transaction cannot count a
//! prefix. A deleted project's threads and agents read as detached at once
//! (a record naming a project that is gone reads `project_id: null`); the
//! purge worker then rewrites them in batches (`detach`).

mod detach;
mod members;

use chrono::{DateTime, Utc};
use confer_actors::{Agent, AgentId, OrgId, ProjectId, StoreError, Thread};
use sled::Transactional;

use super::codec::{decode, encode};
use super::{Page, SledStore, abort, engine, keys, next_org_instant, tx_error};
use crate::projects::{MAX_PROJECTS_PER_ORG, Member, Project};

pub use detach::ProjectDetach;

/// The project trees.
pub struct ProjectTrees {
    pub(in crate::store) projects: sled::Tree,
    slugs: sled::Tree,
    timeline: sled::Tree,
    pub(in crate::store) members: sled::Tree,
    by_user: sled::Tree,
    /// The threads of each project (kept by the thread writes).
    pub(super) threads: sled::Tree,
    detaches: sled::Tree,
    /// Held by writes that count.
    counting: std::sync::Mutex<()>,
}

impl ProjectTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            projects: tree("projects")?,
            slugs: tree("project_slugs")?,
            timeline: tree("project_timeline")?,
            members: tree("project_members")?,
            by_user: tree("projects_by_user")?,
            threads: tree("threads_by_project")?,
            detaches: tree("project_detaches")?,
            counting: std::sync::Mutex::new(()),
        })
    }

    /// The project records (a thread's creation checks its project in the
    /// same transaction).
    pub(in crate::store) fn records(&self) -> &sled::Tree {
        &self.projects
    }

    fn count_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.counting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a project write did.
#[derive(Debug)]
pub enum ProjectWrite<T, E> {
    Done(T),
    /// Another project of the org has the slug.
    SlugTaken,
    /// The org holds as many projects, or the project as many members, as
    /// it may.
    Full,
    /// No such project in the org.
    Gone,
    /// The caller's rule refused it.
    Refused(E),
}

/// `org ++ user hash`: the prefix of a user's projects.
fn user_prefix(org: OrgId, user: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(&Sha256::digest(user.as_bytes())[..16]);
    key
}

/// The `projects_by_user` entry of `user` in `project`.
fn user_entry(project: &Project, user: &str) -> Vec<u8> {
    keys::timeline(
        &user_prefix(project.org_id, user),
        keys::micros(project.created_at),
        project.id.as_bytes(),
    )
}

/// The `project_timeline` entry of `project`.
fn timeline_entry(project: &Project) -> Vec<u8> {
    keys::timeline(
        project.org_id.as_bytes(),
        keys::micros(project.created_at),
        project.id.as_bytes(),
    )
}

fn slug_key(org: OrgId, slug: &str) -> Vec<u8> {
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(slug.as_bytes());
    key
}

/// The `threads_by_project` entry of a thread in a project.
pub(super) fn thread_entry(thread: &Thread) -> Option<Vec<u8>> {
    let project = thread.project_id?;
    Some(keys::timeline(
        &keys::pair(thread.org_id.as_bytes(), project.as_bytes()),
        keys::micros(thread.created_at),
        thread.id.as_bytes(),
    ))
}

impl SledStore {
    /// Stores a new project with its first members and a `created_at`
    /// unique within its org; returns it as stored.
    pub fn create_project<E>(
        &self,
        project: &Project,
        members: &[Member],
    ) -> Result<ProjectWrite<Project, E>, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.projects;
        let _counting = trees.count_lock();
        let org = project.org_id;
        if trees.timeline.scan_prefix(org.as_bytes()).count() >= MAX_PROJECTS_PER_ORG {
            return Ok(ProjectWrite::Full);
        }
        (
            &trees.projects,
            &trees.slugs,
            &trees.timeline,
            &trees.members,
            &trees.by_user,
            &self.org_clocks,
        )
            .transaction(
                |(projects, slugs, timeline, member_tree, by_user, clocks)| {
                    if let Some(slug) = &project.slug
                        && slugs.get(slug_key(org, slug))?.is_some()
                    {
                        return Ok(ProjectWrite::SlugTaken);
                    }
                    let mut stored = project.clone();
                    stored.created_at =
                        keys::from_micros(next_org_instant(clocks, org, project.created_at)?);
                    stored.updated_at = stored.created_at;
                    projects.insert(
                        &keys::pair(org.as_bytes(), stored.id.as_bytes())[..],
                        encode(&stored).map_err(abort)?,
                    )?;
                    if let Some(slug) = &stored.slug {
                        slugs.insert(slug_key(org, slug), stored.id.as_bytes())?;
                    }
                    timeline.insert(timeline_entry(&stored), &[])?;
                    for member in members {
                        member_tree.insert(
                            members::member_key(stored.id, &member.user_id),
                            encode(member).map_err(abort)?,
                        )?;
                        by_user.insert(user_entry(&stored, &member.user_id), &[])?;
                    }
                    Ok(ProjectWrite::Done(stored))
                },
            )
            .map_err(tx_error)
    }

    /// A project of the org.
    pub fn project(&self, org: OrgId, id: ProjectId) -> Result<Option<Project>, StoreError> {
        Self::get(
            &self.projects.projects,
            &keys::pair(org.as_bytes(), id.as_bytes()),
        )
    }

    /// Changes a project (compare-and-swap on the record read, its slug
    /// moved in the same transaction).
    pub fn update_project<E>(
        &self,
        org: OrgId,
        id: ProjectId,
        mut change: impl FnMut(Project) -> Result<Project, E>,
    ) -> Result<ProjectWrite<Project, E>, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.projects;
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        loop {
            let Some(old) = trees.projects.get(key).map_err(engine)? else {
                return Ok(ProjectWrite::Gone);
            };
            let before: Project = decode(&old)?;
            let after = match change(before.clone()) {
                Ok(after) => after,
                Err(refusal) => return Ok(ProjectWrite::Refused(refusal)),
            };
            let swapped = (&trees.projects, &trees.slugs)
                .transaction(|(projects, slugs)| {
                    if projects.get(key)?.as_ref() != Some(&old) {
                        return Ok(None); // changed meanwhile: read again
                    }
                    if after.slug != before.slug {
                        if let Some(slug) = &after.slug
                            && slugs.get(slug_key(org, slug))?.is_some()
                        {
                            return Ok(Some(ProjectWrite::SlugTaken));
                        }
                        if let Some(slug) = &before.slug {
                            slugs.remove(slug_key(org, slug))?;
                        }
                        if let Some(slug) = &after.slug {
                            slugs.insert(slug_key(org, slug), id.as_bytes())?;
                        }
                    }
                    projects.insert(&key[..], encode(&after).map_err(abort)?)?;
                    Ok(Some(ProjectWrite::Done(after.clone())))
                })
                .map_err(tx_error)?;
            if let Some(outcome) = swapped {
                return Ok(outcome);
            }
        }
    }

    /// Deletes a project: the record, its slug, listings and members go in
    /// one transaction, which also leaves the detach marker its threads and
    /// agents are rewritten from. `false` when it was already gone.
    pub fn delete_project(&self, org: OrgId, id: ProjectId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.projects;
        let _counting = trees.count_lock();
        let members = self.project_members(id)?;
        let deleted = (
            &trees.projects,
            &trees.slugs,
            &trees.timeline,
            &trees.members,
            &trees.by_user,
            &trees.detaches,
        )
            .transaction(
                |(projects, slugs, timeline, member_tree, by_user, detaches)| {
                    let key = keys::pair(org.as_bytes(), id.as_bytes());
                    let Some(bytes) = projects.remove(&key[..])? else {
                        return Ok(false);
                    };
                    let project: Project = decode(&bytes).map_err(abort)?;
                    if let Some(slug) = &project.slug {
                        slugs.remove(slug_key(org, slug))?;
                    }
                    timeline.remove(timeline_entry(&project))?;
                    for member in &members {
                        member_tree.remove(members::member_key(id, &member.user_id))?;
                        by_user.remove(user_entry(&project, &member.user_id))?;
                    }
                    let marker = ProjectDetach {
                        org_id: org,
                        project_id: id,
                        deleted_at: Utc::now(),
                    };
                    detaches.insert(&key[..], encode(&marker).map_err(abort)?)?;
                    Ok(true)
                },
            )
            .map_err(tx_error)?;
        if deleted {
            self.purger.wake();
        }
        Ok(deleted)
    }

    /// The org's projects newest first, strictly older than `before`; with
    /// `user`, only those it is a member of (its own index).
    pub fn projects_page(
        &self,
        org: OrgId,
        user: Option<&str>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> Result<Page<Project>, StoreError> {
        let trees = &self.projects;
        let (index, prefix) = match user {
            Some(user) => (&trees.by_user, user_prefix(org, user)),
            None => (&trees.timeline, org.as_bytes().to_vec()),
        };
        self.timeline_page(
            index,
            &prefix,
            before,
            limit,
            |key, _| {
                let Some(id) = keys::timeline_id(key) else {
                    return Ok(None);
                };
                Self::get(&trees.projects, &keys::pair(org.as_bytes(), &id))
            },
            |project: &Project| project.created_at,
        )
    }

    /// A project's threads newest first, strictly older than `before`
    /// (with `agent`, that agent's only).
    pub fn project_threads(
        &self,
        org: OrgId,
        project: ProjectId,
        agent: Option<AgentId>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> Result<Page<Thread>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), project.as_bytes());
        self.thread_timeline(&self.projects.threads, &prefix, org, before, limit, |t| {
            Ok(t.project_id == Some(project) && agent.is_none_or(|a| t.agent_id == a))
        })
    }

    /// Whether `project` is a live project of `org`.
    fn project_exists(&self, org: OrgId, project: ProjectId) -> Result<bool, StoreError> {
        self.projects
            .projects
            .contains_key(keys::pair(org.as_bytes(), project.as_bytes()))
            .map_err(engine)
    }

    /// `thread` as readers see it: detached at once from a deleted project
    /// (the record itself is rewritten by the detach that follows).
    pub(super) fn live_project_of(&self, mut thread: Thread) -> Result<Thread, StoreError> {
        if let Some(project) = thread.project_id
            && !self.project_exists(thread.org_id, project)?
        {
            thread.project_id = None;
        }
        Ok(thread)
    }

    /// [`SledStore::live_project_of`] for a runner (whose `project_id` is
    /// text, runners.md).
    pub(super) fn runner_in_live_project(
        &self,
        mut runner: crate::runners::Runner,
    ) -> Result<crate::runners::Runner, StoreError> {
        if let Some(project) = &runner.project_id
            && let Ok(project) = project.parse::<ProjectId>()
            && !self.project_exists(runner.org_id, project)?
        {
            runner.project_id = None;
        }
        Ok(runner)
    }

    /// [`SledStore::live_project_of`] for an agent.
    pub(super) fn agent_in_live_project(&self, mut agent: Agent) -> Result<Agent, StoreError> {
        if let Some(project) = agent.project_id
            && !self.project_exists(agent.org_id, project)?
        {
            agent.project_id = None;
        }
        Ok(agent)
    }
}

#[cfg(test)]
mod tests;
