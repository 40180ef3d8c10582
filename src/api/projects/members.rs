//! `/api/projects/{id}/members`: who is in a project, and what it holds.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::ProjectId;
use serde::{Deserialize, Serialize};

use super::{MemberInput, refused};
use crate::api::extract::JsonBody;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::projects::{self as rules, Member, ProjectRole};
use crate::state::AppState;
use crate::store::port::MemberRule;

/// An agent or a runner of a project.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Named {
    id: String,
    name: String,
}

/// `GET /api/projects/{id}/members` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MemberList {
    members: Vec<Member>,
    agents: Vec<Named>,
    runners: Vec<Named>,
}

/// `DELETE /api/projects/{id}/members` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveMember {
    user_id: String,
}

/// The 422 of an end user leaving the project without an owner.
fn keep_an_owner(
    caller: &Caller,
    members: &[Member],
    user: &str,
    to: Option<ProjectRole>,
) -> Result<(), ApiError> {
    if caller.sees_whole_org() || !rules::strips_last_owner(members, user, to) {
        return Ok(());
    }
    Err(ApiError::invalid(
        "userId",
        "the project's last owner cannot be removed or demoted; make another member owner first",
    ))
}

/// `GET /api/projects/{id}/members`: the members, and the project's agents
/// and runners.
#[utoipa::path(get, path = "/api/projects/{project_id}/members", tag = "projects", operation_id = "projects_members", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), responses((status = 200, description = "Members by user id, and the project's agents and runners", body = MemberList)))]
pub async fn members(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
) -> Result<HttpResponse, ApiError> {
    let (project, _) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Viewer).await?;
    let (org, id) = (project.org_id, project.id);
    let members = state.store.projects().project_members(id).await?;
    let agents = state
        .store
        .agents()
        .agents(org)
        .await?
        .into_iter()
        .filter(|a| a.project_id == Some(id))
        .map(|a| Named {
            id: a.id.to_string(),
            name: a.name,
        })
        .collect();
    let named = id.to_string();
    let runners = state
        .store
        // Runners are not kept in PostgreSQL yet: none there.
        .run_or_default(move |s| s.runners(org))
        .await?
        .into_iter()
        .filter(|r| r.project_id.as_deref() == Some(named.as_str()))
        .map(|r| Named {
            id: r.id.to_string(),
            name: r.name,
        })
        .collect();
    let list = MemberList {
        members,
        agents,
        runners,
    };
    Ok(HttpResponse::Ok().json(list))
}

/// `POST /api/projects/{id}/members`: 201 with a new member, 200 with a
/// changed role.
#[utoipa::path(post, path = "/api/projects/{project_id}/members", tag = "projects", operation_id = "projects_add_member", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), request_body = MemberInput, responses((status = 201, description = "The new member", body = Member), (status = 200, description = "The member, its role changed", body = Member), (status = 409, description = "The project holds 500 members", body = crate::error::ErrorBody<'static>)))]
pub async fn add_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
    body: JsonBody<MemberInput>,
) -> Result<HttpResponse, ApiError> {
    let (project, _) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Owner).await?;
    let input = body.into_inner();
    rules::check_user_id("userId", &input.user_id)?;
    let member = Member {
        user_id: input.user_id,
        role: input.role,
        added_by: caller.user_id(),
        added_at: Utc::now(),
    };
    let (org, id) = (project.org_id, project.id);
    let (user, role) = (member.user_id.clone(), member.role);
    let rule: MemberRule =
        Box::new(move |members| keep_an_owner(&caller, members, &user, Some(role)));
    let outcome = state
        .store
        .projects()
        .put_project_member(org, id, member, rule)
        .await?;
    let (member, new) = refused(outcome)?;
    Ok(if new {
        HttpResponse::Created().json(member)
    } else {
        HttpResponse::Ok().json(member)
    })
}

/// `DELETE /api/projects/{id}/members`: 404 when the user is not a member.
#[utoipa::path(delete, path = "/api/projects/{project_id}/members", tag = "projects", operation_id = "projects_remove_member", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), request_body = RemoveMember, responses((status = 200, description = "Removed", body = crate::api::Ok)))]
pub async fn remove_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
    body: JsonBody<RemoveMember>,
) -> Result<HttpResponse, ApiError> {
    let (project, _) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Owner).await?;
    let user = body.into_inner().user_id;
    let (org, id) = (project.org_id, project.id);
    let leaving = user.clone();
    let rule: MemberRule = Box::new(move |members| keep_an_owner(&caller, members, &leaving, None));
    let removed = state
        .store
        .projects()
        .remove_project_member(org, id, user, rule)
        .await?;
    if !refused(removed)? {
        return Err(ApiError::not_found("member"));
    }
    Ok(HttpResponse::Ok().json(crate::api::Ok { ok: true }))
}
