//! `GET, PUT /api/agents/{id}/web` (`agent-extras.md` §4): an agent's web
//! tools configuration, read by A M and changed by A. The search key is
//! write-only (`has_api_key`). Rules: `crate::web_tools::config`.

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;

use super::agent_config;
use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::web_tools::config::{PutWebConfig, WebConfigView};
use crate::web_tools::stored;

/// `GET /api/agents/{id}/web`
#[utoipa::path(get, path = "/api/agents/{agent_id}/web", tag = "agents", operation_id = "web_config_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The web configuration (the defaults when never set)", body = WebConfigView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let config = stored::web_config(&state.store, caller.org_id, agent.id).await?;
    Ok(agent_config::view(
        &caller,
        agent.id,
        WebConfigView::from(config),
    ))
}

/// `PUT /api/agents/{id}/web`: partial, nested fields too.
#[utoipa::path(put, path = "/api/agents/{agent_id}/web", tag = "agents", operation_id = "web_config_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutWebConfig, responses((status = 200, description = "The configuration as stored", body = WebConfigView), (status = 422, description = "A value out of range, a bad domain (`allowedDomains[i]`), a backend without its URL or key", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutWebConfig>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let changes = body.into_inner();
    let outbound = state.outbound.clone();
    let change = move |config| changes.apply(config, outbound.policy());
    let updated = stored::update_web_config(&state.store, caller.org_id, agent.id, change).await?;
    let config = crate::error::stored(updated, "agent")?;
    Ok(agent_config::view(
        &caller,
        agent.id,
        WebConfigView::from(config),
    ))
}
