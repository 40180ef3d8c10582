//! The marketplace routes (`marketplace-channels.md` §1–§5): an agent's
//! profile (`GET` A M; `PUT`, `DELETE`, capabilities A) here, its avatar in
//! `avatars`, the catalogue and the official templates in `catalogue`.
//! Rules: `crate::marketplace`; storage: `crate::store::marketplace`.

pub mod avatars;
pub mod catalogue;
pub mod proposals;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{Agent, AgentId, OrgId};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::{IfMatch, JsonBody};
use super::plans::tagged;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::marketplace::listing;
use crate::marketplace::profile::{
    Capability, Profile, PutProfile, Readiness, Visibility, capabilities_rule,
};
use crate::state::AppState;
use crate::store::marketplace::AvatarChange;
use crate::store::port::ProfileSwap;
use crate::store::update::Updated;

/// An agent's profile as every profile route answers it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ProfileView {
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    org_id: OrgId,
    listed: bool,
    /// The profile's title, else the agent's name.
    title: String,
    /// The profile's description, else the agent's.
    description: String,
    category: Option<String>,
    tags: Vec<String>,
    capabilities: Vec<Capability>,
    /// `/api/marketplace/avatars/{agentId}?v={hash}`, or null.
    avatar_url: Option<String>,
    visibility: Visibility,
    readiness: Readiness,
    /// 0 until first stored; the `ETag`.
    version: u64,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
}

/// The public URL of an agent's avatar, when it has one.
pub fn avatar_url(profile: &Profile) -> Option<String> {
    profile
        .avatar
        .as_ref()
        .map(|tag| format!("/api/marketplace/avatars/{}?v={tag}", profile.agent_id))
}

/// The profile as shown, with the agent's title and description filled in.
pub fn view(profile: &Profile, agent: &Agent) -> ProfileView {
    let description = listing::description(profile, agent).to_owned();
    ProfileView {
        agent_id: profile.agent_id,
        org_id: profile.org_id,
        listed: profile.listed,
        title: listing::title(profile, agent).to_owned(),
        readiness: profile.readiness(&description),
        description,
        category: profile.category.clone(),
        tags: profile.tags.clone(),
        capabilities: profile.capabilities.clone(),
        avatar_url: avatar_url(profile),
        visibility: profile.visibility,
        version: profile.version,
        created_at: profile.created_at,
        updated_at: profile.updated_at,
    }
}

/// The profile answer: its view, `ETag` its version.
fn answer(profile: &Profile, agent: &Agent) -> HttpResponse {
    tagged(StatusCode::OK, &view(profile, agent), profile.version)
}

/// An agent's profile: the stored one, else the unsaved defaults.
pub async fn profile_of(state: &AppState, agent: &Agent) -> Result<Profile, ApiError> {
    let (org, id) = (agent.org_id, agent.id);
    Ok(state
        .store
        .marketplace()
        .marketplace_profile(org, id)
        .await?
        .unwrap_or_else(|| Profile::unsaved(org, id)))
}

/// Applies `change` to an agent's profile (and `avatar`) as one
/// compare-and-swap, checking `If-Match` against the version read.
pub async fn change_profile(
    state: &AppState,
    agent: &Agent,
    if_match: Option<u64>,
    avatar: AvatarChange,
    mut change: impl FnMut(Profile) -> Result<Profile, ApiError> + Send + 'static,
) -> Result<Profile, ApiError> {
    let (org, id) = (agent.org_id, agent.id);
    let shown = agent.clone();
    let checked: ProfileSwap = Box::new(move |profile| {
        if let Some(expected) = if_match
            && expected != profile.version
        {
            return Err(ApiError::PreconditionFailed {
                detail: "If-Match: the profile has changed; `current` is its present version"
                    .into(),
                current: serde_json::to_value(view(&profile, &shown)).unwrap_or_default(),
            });
        }
        change(profile)
    });
    let updated = state
        .store
        .marketplace()
        .update_marketplace_profile(org, id, avatar, checked)
        .await?;
    match updated {
        Updated::Stored(profile) => Ok(profile),
        Updated::Gone => Err(ApiError::not_found("agent")),
        Updated::Refused(error) => Err(error),
    }
}

/// `GET /api/agents/{id}/marketplace`
#[utoipa::path(get, path = "/api/agents/{agent_id}/marketplace", tag = "marketplace", operation_id = "marketplace_profile_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The profile (the unsaved defaults, `version` 0, when never stored); `ETag` its version", body = ProfileView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let profile = profile_of(&state, &agent).await?;
    Ok(answer(&profile, &agent))
}

/// `PUT /api/agents/{id}/marketplace`: partial; the first one lists the
/// agent unless `listed: false`.
#[utoipa::path(put, path = "/api/agents/{agent_id}/marketplace", tag = "marketplace", operation_id = "marketplace_profile_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("If-Match" = Option<String>, Header, description = "The version last seen (`\"3\"`); another one is 412")), request_body = PutProfile, responses((status = 200, description = "The profile as stored", body = ProfileView), (status = 412, description = "`PRECONDITION_FAILED`: the profile changed; `current` is the profile now", body = crate::error::StaleBody<'static>), (status = 422, description = "A field breaks its rule (named: `title`, `tags[2]`, `capabilities[0].name`, `visibility`)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    if_match: IfMatch,
    body: JsonBody<PutProfile>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let change = body.into_inner();
    let instance_allowed = state.settings.marketplace_instance;
    let profile = change_profile(&state, &agent, if_match.0, AvatarChange::Keep, move |p| {
        change
            .apply(p, instance_allowed, Utc::now())
            .map_err(|(field, rule)| ApiError::invalid(&field, rule))
    })
    .await?;
    Ok(answer(&profile, &agent))
}

/// `DELETE /api/agents/{id}/marketplace`: the profile, its avatar and its
/// listing go.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/marketplace", tag = "marketplace", operation_id = "marketplace_profile_delete", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "Deleted (also when there was none)", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    state
        .store
        .marketplace()
        .delete_marketplace_profile(org, id)
        .await?;
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `PUT …/marketplace/capabilities` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutCapabilities {
    /// Replaces the list: at most 20, unique names.
    capabilities: Vec<Capability>,
}

/// `PUT /api/agents/{id}/marketplace/capabilities`: replaces them (a
/// profile never stored is stored as a draft).
#[utoipa::path(put, path = "/api/agents/{agent_id}/marketplace/capabilities", tag = "marketplace", operation_id = "marketplace_capabilities_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("If-Match" = Option<String>, Header, description = "The profile's version last seen")), request_body = PutCapabilities, responses((status = 200, description = "The profile as stored", body = ProfileView), (status = 422, description = "A capability breaks its rule (named)", body = crate::error::ErrorBody<'static>)))]
pub async fn put_capabilities(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    if_match: IfMatch,
    body: JsonBody<PutCapabilities>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let capabilities = capabilities_rule(&body.into_inner().capabilities)
        .map_err(|(field, rule)| ApiError::invalid(&field, rule))?;
    let profile = change_profile(
        &state,
        &agent,
        if_match.0,
        AvatarChange::Keep,
        move |mut p| {
            p.capabilities = capabilities.clone();
            p.touch(Utc::now());
            Ok(p)
        },
    )
    .await?;
    Ok(answer(&profile, &agent))
}
