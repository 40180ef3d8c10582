//! The port of projects (`agent-extras.md` §5), on either store: slugs
//! unique in their org, at most 10,000 projects per org and 500 members
//! per project counted exactly under races, the last owner kept, and a
//! deleted project's threads and agents detached from it.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, ProjectId, StoreFuture, Thread};

use super::SledRecords;
use crate::error::ApiError;
use crate::projects::{Member, Project, ProjectRole};
use crate::store::Page;
use crate::store::projects::ProjectWrite;

/// A change to a stored project (see [`ProjectRecords::update_project`]);
/// it may be called again when a concurrent change wins first.
pub type ProjectSwap = Box<dyn FnMut(Project) -> Result<Project, ApiError> + Send>;

/// A rule a member write must keep, given the members before it (the last
/// owner stays, say).
pub type MemberRule = Box<dyn FnOnce(&[Member]) -> Result<(), ApiError> + Send>;

/// A project and the role its reader has in it (`None`: not a member, or
/// no user was named).
pub type ProjectWithRole = (Project, Option<ProjectRole>);

/// Projects and their members.
pub trait ProjectRecords: Send + Sync + 'static {
    /// Stores a new project with its first members, its `created_at` made
    /// unique within the org; returns it as stored.
    fn create_project(
        &self,
        project: Project,
        members: Vec<Member>,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>>;

    /// A project of the org, with `user`'s role in it when one is named:
    /// what access to a project is decided from, in one trip.
    fn project(
        &self,
        org: OrgId,
        id: ProjectId,
        user: Option<String>,
    ) -> StoreFuture<Option<ProjectWithRole>>;

    /// Changes a project atomically, its slug with it.
    fn update_project(
        &self,
        org: OrgId,
        id: ProjectId,
        change: ProjectSwap,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>>;

    /// Deletes a project with its members; its threads and agents read as
    /// detached at once. False when it was already gone.
    fn delete_project(&self, org: OrgId, id: ProjectId) -> StoreFuture<bool>;

    /// The org's projects newest first, strictly older than `before`; with
    /// `user`, only those it is a member of, each with its role.
    fn projects_page(
        &self,
        org: OrgId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<ProjectWithRole>>;

    /// A project's threads newest first, strictly older than `before`
    /// (with `agent`, that agent's only).
    fn project_threads(
        &self,
        org: OrgId,
        project: ProjectId,
        agent: Option<AgentId>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>>;

    /// A project's members, by user id.
    fn project_members(&self, project: ProjectId) -> StoreFuture<Vec<Member>>;

    /// Adds a member to a project of the org, or changes its role; answers
    /// the member and whether it is new.
    fn put_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        member: Member,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<(Member, bool), ApiError>>;

    /// Removes a member; `Done(false)` when the user was not one.
    fn remove_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        user: String,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<bool, ApiError>>;
}

impl ProjectRecords for SledRecords {
    fn create_project(
        &self,
        project: Project,
        members: Vec<Member>,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>> {
        self.write(move |s| s.create_project(&project, &members))
    }

    fn project(
        &self,
        org: OrgId,
        id: ProjectId,
        user: Option<String>,
    ) -> StoreFuture<Option<ProjectWithRole>> {
        self.read(move |s| {
            let Some(project) = s.project(org, id)? else {
                return Ok(None);
            };
            let role = match &user {
                Some(user) => s.project_role(id, user)?,
                None => None,
            };
            Ok(Some((project, role)))
        })
    }

    fn update_project(
        &self,
        org: OrgId,
        id: ProjectId,
        change: ProjectSwap,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>> {
        self.write(move |s| s.update_project(org, id, change))
    }

    fn delete_project(&self, org: OrgId, id: ProjectId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_project(org, id))
    }

    fn projects_page(
        &self,
        org: OrgId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<ProjectWithRole>> {
        self.read(move |s| {
            let page = s.projects_page(org, user.as_deref(), before, limit)?;
            let items = page
                .items
                .into_iter()
                .map(|project| {
                    let role = match &user {
                        Some(user) => s.project_role(project.id, user)?,
                        None => None,
                    };
                    Ok((project, role))
                })
                .collect::<Result<_, confer_actors::StoreError>>()?;
            Ok(Page {
                items,
                next_cursor: page.next_cursor,
            })
        })
    }

    fn project_threads(
        &self,
        org: OrgId,
        project: ProjectId,
        agent: Option<AgentId>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.read(move |s| s.project_threads(org, project, agent, before, limit))
    }

    fn project_members(&self, project: ProjectId) -> StoreFuture<Vec<Member>> {
        self.read(move |s| s.project_members(project))
    }

    fn put_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        member: Member,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<(Member, bool), ApiError>> {
        self.write(move |s| s.put_project_member(org, project, member, allow))
    }

    fn remove_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        user: String,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<bool, ApiError>> {
        self.write(move |s| s.remove_project_member(org, project, &user, allow))
    }
}
