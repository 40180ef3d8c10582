//! Who may use a project (`agent-extras.md` §5): admins and members act as
//! owners of every project of their org; an end user has the role its
//! membership gives, and a project of another org is never found (404).

use confer_actors::ProjectId;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::projects::{Project, ProjectRole};
use crate::state::AppState;

/// A project of the caller's org on which the caller has at least `need`,
/// with the end user's own role (`None` for admins and members). A project
/// an end user is not a member of is 403, as is a weaker role.
pub async fn project(
    state: &AppState,
    caller: &Caller,
    id: ProjectId,
    need: ProjectRole,
) -> Result<(Project, Option<ProjectRole>), ApiError> {
    let org = caller.org_id;
    let user = (!caller.sees_whole_org()).then(|| caller.user_id());
    let (project, role) = state
        .store
        .projects()
        .project(org, id, user)
        .await?
        .ok_or_else(|| ApiError::not_found("project"))?;
    if caller.sees_whole_org() {
        return Ok((project, None));
    }
    match role {
        Some(role) if role >= need => Ok((project, Some(role))),
        Some(_) => Err(ApiError::Forbidden(format!(
            "requires the {} role in this project",
            role_name(need)
        ))),
        None => Err(ApiError::Forbidden("not a member of this project".into())),
    }
}

/// A role as the API spells it.
pub fn role_name(role: ProjectRole) -> &'static str {
    match role {
        ProjectRole::Viewer => "viewer",
        ProjectRole::Editor => "editor",
        ProjectRole::Owner => "owner",
    }
}
