//! Skills attached to an agent (`/api/agents/{id}/skills`: read A M,
//! change A) or a runner (`/api/runners/{id}/skills`: A M, runners.md),
//! at most 32 each. POST attaches (201) or sets `enabled` of an
//! attachment (200); DELETE detaches (404 if it was not attached).

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, RunnerId, SkillId};
use serde::{Deserialize, Serialize};

use crate::api::agents::live_agent;
use crate::api::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::skills::{MAX_ATTACHMENTS, SyncStatus};
use crate::state::AppState;
use crate::store::skills::SkillAttach;

/// An attachment as answered.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SkillAttachmentView {
    skill_id: SkillId,
    name: String,
    description: String,
    enabled: bool,
    sync_status: Option<SyncStatus>,
    attached_at: DateTime<Utc>,
}

/// `POST …/skills` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttachSkill {
    skill_id: SkillId,
    /// `true` for a new attachment; an existing one keeps its own.
    enabled: Option<bool>,
}

/// `DELETE …/skills` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DetachSkill {
    skill_id: SkillId,
}

fn owner_of(id: [u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(id)
}

async fn listed(state: &AppState, org: OrgId, owner: uuid::Uuid) -> Result<HttpResponse, ApiError> {
    let found = state.store.skills().skill_attachments(org, owner).await?;
    let views: Vec<SkillAttachmentView> = found
        .into_iter()
        .map(|(attachment, skill)| SkillAttachmentView {
            skill_id: skill.id,
            name: skill.name,
            description: skill.description,
            enabled: attachment.enabled,
            sync_status: skill.sync_status,
            attached_at: attachment.attached_at,
        })
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

async fn attach(
    state: &AppState,
    org: OrgId,
    owner: uuid::Uuid,
    body: AttachSkill,
) -> Result<HttpResponse, ApiError> {
    let (skill, enabled) = (body.skill_id, body.enabled);
    let outcome = state
        .store
        .skills()
        .attach_skill(org, owner, skill, enabled)
        .await?;
    let mut response = match outcome {
        SkillAttach::Attached => HttpResponse::Created(),
        SkillAttach::Updated => HttpResponse::Ok(),
        SkillAttach::Missing => {
            return Err(ApiError::invalid("skillId", "no such skill in the org"));
        }
        SkillAttach::Full => {
            return Err(ApiError::Conflict(format!(
                "at most {MAX_ATTACHMENTS} skills may be attached"
            )));
        }
    };
    let found = state.store.skills().skill_attachments(org, owner).await?;
    let (attachment, skill) = found
        .into_iter()
        .find(|(_, s)| s.id == skill)
        .ok_or_else(|| ApiError::not_found("skill"))?;
    Ok(response.json(SkillAttachmentView {
        skill_id: skill.id,
        name: skill.name,
        description: skill.description,
        enabled: attachment.enabled,
        sync_status: skill.sync_status,
        attached_at: attachment.attached_at,
    }))
}

async fn detach(
    state: &AppState,
    owner: uuid::Uuid,
    skill: SkillId,
) -> Result<HttpResponse, ApiError> {
    if !state.store.skills().detach_skill(owner, skill).await? {
        return Err(ApiError::not_found("attachment"));
    }
    Ok(HttpResponse::Ok().json(crate::api::Ok { ok: true }))
}

/// `GET /api/agents/{id}/skills`
#[utoipa::path(get, path = "/api/agents/{agent_id}/skills", tag = "skills", operation_id = "agent_skills_list", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent's skills, in attachment order", body = [SkillAttachmentView])))]
pub async fn agent_list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    listed(&state, agent.org_id, owner_of(*agent.id.as_bytes())).await
}

/// `POST /api/agents/{id}/skills`
#[utoipa::path(post, path = "/api/agents/{agent_id}/skills", tag = "skills", operation_id = "agent_skills_attach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = AttachSkill, responses((status = 201, description = "Attached", body = SkillAttachmentView), (status = 200, description = "Already attached; `enabled` set", body = SkillAttachmentView), (status = 409, description = "32 skills attached", body = crate::error::ErrorBody<'static>), (status = 422, description = "`skillId`: no such skill", body = crate::error::ErrorBody<'static>)))]
pub async fn agent_attach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<AttachSkill>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let owner = owner_of(*agent.id.as_bytes());
    attach(&state, agent.org_id, owner, body.into_inner()).await
}

/// `DELETE /api/agents/{id}/skills`
#[utoipa::path(delete, path = "/api/agents/{agent_id}/skills", tag = "skills", operation_id = "agent_skills_detach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = DetachSkill, responses((status = 200, description = "Detached", body = crate::api::Ok), (status = 404, description = "Not attached", body = crate::error::ErrorBody<'static>)))]
pub async fn agent_detach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<DetachSkill>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    detach(
        &state,
        owner_of(*agent.id.as_bytes()),
        body.into_inner().skill_id,
    )
    .await
}

async fn runner_owner(state: &AppState, org: OrgId, id: RunnerId) -> Result<uuid::Uuid, ApiError> {
    let runner = crate::api::runners::live_runner(state, org, id).await?;
    Ok(owner_of(*runner.id.as_bytes()))
}

/// `GET /api/runners/{id}/skills`
#[utoipa::path(get, path = "/api/runners/{runner_id}/skills", tag = "runners", operation_id = "runner_skills_list", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The runner's skills, in attachment order", body = [SkillAttachmentView])))]
pub async fn runner_list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let owner = runner_owner(&state, caller.org_id, path.into_inner()).await?;
    listed(&state, caller.org_id, owner).await
}

/// `POST /api/runners/{id}/skills`
#[utoipa::path(post, path = "/api/runners/{runner_id}/skills", tag = "runners", operation_id = "runner_skills_attach", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = AttachSkill, responses((status = 201, description = "Attached", body = SkillAttachmentView), (status = 200, description = "Already attached; `enabled` set", body = SkillAttachmentView), (status = 409, description = "32 skills attached", body = crate::error::ErrorBody<'static>), (status = 422, description = "`skillId`: no such skill", body = crate::error::ErrorBody<'static>)))]
pub async fn runner_attach(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
    body: JsonBody<AttachSkill>,
) -> Result<HttpResponse, ApiError> {
    let owner = runner_owner(&state, caller.org_id, path.into_inner()).await?;
    attach(&state, caller.org_id, owner, body.into_inner()).await
}

/// `DELETE /api/runners/{id}/skills`
#[utoipa::path(delete, path = "/api/runners/{runner_id}/skills", tag = "runners", operation_id = "runner_skills_detach", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = DetachSkill, responses((status = 200, description = "Detached", body = crate::api::Ok), (status = 404, description = "Not attached", body = crate::error::ErrorBody<'static>)))]
pub async fn runner_detach(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
    body: JsonBody<DetachSkill>,
) -> Result<HttpResponse, ApiError> {
    let owner = runner_owner(&state, caller.org_id, path.into_inner()).await?;
    detach(&state, owner, body.into_inner().skill_id).await
}
