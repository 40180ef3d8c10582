//! What a project means for threads (`agent-extras.md` §5): who may place
//! a thread in one or move it out, and a project's thread listing.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, ProjectId, Thread};

use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::projects::ProjectRole;
use crate::state::AppState;
use crate::store::Page;

/// Whether `caller` may create a thread in `project`: a project of its org
/// (else 404) where an end user is at least an editor (else 403).
pub async fn may_place(
    state: &AppState,
    caller: &Caller,
    project: ProjectId,
) -> Result<(), ApiError> {
    access::project(state, caller, project, ProjectRole::Editor)
        .await
        .map(drop)
}

/// Whether `caller` may move `thread` to `to` (`None`: out of its
/// project): an end user must be the thread's creator and an editor of the
/// project it joins and of the one it leaves.
pub async fn may_move(
    state: &AppState,
    caller: &Caller,
    thread: &Thread,
    to: Option<ProjectId>,
) -> Result<(), ApiError> {
    if thread.project_id == to {
        return Ok(());
    }
    if !caller.sees_whole_org() && thread.created_by != caller.user_id() {
        return Err(ApiError::Forbidden(
            "projectId: only the thread's creator moves it between projects".into(),
        ));
    }
    if let Some(project) = to {
        may_place(state, caller, project).await?;
    }
    if let Some(project) = thread.project_id {
        may_place(state, caller, project).await?;
    }
    Ok(())
}

/// A page of `project`'s threads (with `agent`, that agent's), newest
/// first: every thread of it for a member of any role, 403 for an end user
/// who is not one.
pub async fn list(
    state: &AppState,
    caller: &Caller,
    project: ProjectId,
    agent: Option<AgentId>,
    before: Option<DateTime<Utc>>,
    limit: usize,
) -> Result<Page<Thread>, ApiError> {
    let (project, _) = access::project(state, caller, project, ProjectRole::Viewer).await?;
    let (org, id) = (project.org_id, project.id);
    Ok(state
        .store
        .projects()
        .project_threads(org, id, agent, before, limit)
        .await?)
}
