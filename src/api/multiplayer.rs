//! `/api/agents/{id}/multiplayer`: how an agent's multiplayer threads are
//! shared (`publishing.md` "Multiplayer configuration"): the participant
//! cap, who may invite, how visitors are named. PUT is partial.

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Caller, Member};
use crate::error::{ApiError, stored};
use crate::publishing::{MultiplayerConfig, rules};
use crate::state::AppState;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};

/// The configuration as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MultiplayerView {
    agent_id: String,
    org_id: String,
    max_participants: u32,
    who_can_invite: crate::publishing::WhoCanInvite,
    display_names: crate::publishing::DisplayNames,
    updated_at: Option<String>,
}

/// `PUT` body: any subset.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutMultiplayer {
    /// 2 to 100.
    #[schema(value_type = Option<u32>)]
    max_participants: Option<serde_json::Value>,
    /// `owner` or `participants`.
    who_can_invite: Option<String>,
    /// `chosen` or `generated`.
    display_names: Option<String>,
}

fn view(caller: &Caller, agent: AgentId, config: MultiplayerConfig) -> HttpResponse {
    HttpResponse::Ok().json(MultiplayerView {
        agent_id: agent.to_string(),
        org_id: caller.org_id.to_string(),
        max_participants: config.max_participants,
        who_can_invite: config.who_can_invite,
        display_names: config.display_names,
        updated_at: config.updated_at.map(super::timestamp),
    })
}

/// `GET /api/agents/{id}/multiplayer`
#[utoipa::path(get, path = "/api/agents/{agent_id}/multiplayer", tag = "publishing", operation_id = "multiplayer_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The configuration (the defaults when never set)", body = MultiplayerView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let config: MultiplayerConfig = agent_config(
        state.store.configs(),
        org,
        agent.id,
        PlainConfig::Multiplayer,
    )
    .await?;
    Ok(view(&caller, agent.id, config))
}

/// `PUT /api/agents/{id}/multiplayer`
#[utoipa::path(put, path = "/api/agents/{agent_id}/multiplayer", tag = "publishing", operation_id = "multiplayer_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutMultiplayer, responses((status = 200, description = "The updated configuration", body = MultiplayerView), (status = 422, description = "A field breaks its rule (the detail names it)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutMultiplayer>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let body = body.into_inner();
    // Checked once before the write, so a refusal stores nothing.
    rules::apply_multiplayer(
        MultiplayerConfig::default(),
        body.max_participants.clone(),
        body.who_can_invite.clone(),
        body.display_names.clone(),
    )?;
    let change = move |config| {
        rules::apply_multiplayer(
            config,
            body.max_participants.clone(),
            body.who_can_invite.clone(),
            body.display_names.clone(),
        )
    };
    let configs = state.store.configs();
    let outcome =
        update_agent_config(configs, org, agent.id, PlainConfig::Multiplayer, change).await?;
    Ok(view(&caller, agent.id, stored(outcome, "agent")?))
}
