//! `/api/agents/{id}/suggestions` (`agent-extras.md` §2): read (A M U: a
//! chat shows them), replace (A) and generate (A) an agent's conversation
//! starters. Rules and the call: `crate::suggestions::agent`.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::AgentId;
use serde::Deserialize;

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Caller};
use crate::error::ApiError;
use crate::state::AppState;
use crate::suggestions::agent::{AgentSuggestions, Source, check, generate as generate_for};
use crate::suggestions::requested_count;

/// `PUT …/suggestions` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutAgentSuggestions {
    /// At most 10, each 1–200 characters once trimmed, no two alike
    /// ignoring case; `[]` clears them.
    suggestions: Vec<String>,
}

/// `POST …/suggestions` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerateAgentSuggestions {
    /// 1–10 (4).
    count: Option<usize>,
    /// Store them as the agent's suggestions (`source: "generated"`).
    #[serde(default)]
    save: bool,
}

/// `GET /api/agents/{id}/suggestions`
#[utoipa::path(get, path = "/api/agents/{agent_id}/suggestions", tag = "agents", operation_id = "agent_suggestions_get", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent's suggestions (`source: null` before any were set)", body = AgentSuggestions)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    let stored = crate::suggestions::agent::stored(&state.store, org, id).await?;
    Ok(HttpResponse::Ok().json(stored.unwrap_or_else(|| AgentSuggestions::none(&agent))))
}

/// `PUT /api/agents/{id}/suggestions`: replaces them (`source: "manual"`).
#[utoipa::path(put, path = "/api/agents/{agent_id}/suggestions", tag = "agents", operation_id = "agent_suggestions_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutAgentSuggestions, responses((status = 200, description = "The suggestions as stored", body = AgentSuggestions), (status = 422, description = "`VALIDATION_ERROR` naming `suggestions` or `suggestions[i]`", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutAgentSuggestions>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let suggestions = check(body.into_inner().suggestions)
        .map_err(|(field, rule)| ApiError::invalid(&field, rule))?;
    let record = AgentSuggestions {
        suggestions,
        source: Some(Source::Manual),
        model: None,
        updated_at: Some(Utc::now()),
        ..AgentSuggestions::none(&agent)
    };
    store(&state, record).await
}

/// `POST /api/agents/{id}/suggestions`: one model call writes up to
/// `count` starters; `save` stores them.
#[utoipa::path(post, path = "/api/agents/{agent_id}/suggestions", tag = "agents", operation_id = "agent_suggestions_generate", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = GenerateAgentSuggestions, responses((status = 200, description = "The generated suggestions (`source: \"generated\"`), stored when `save`", body = AgentSuggestions), (status = 422, description = "`VALIDATION_ERROR`: `count` outside 1–10, or the agent has neither a description nor instructions", body = crate::error::ErrorBody<'static>), (status = 429, description = "`PROVIDER_RATE_LIMITED`", body = crate::error::ErrorBody<'static>), (status = 502, description = "`MODEL_ERROR` (no usable suggestion) or another vendor failure", body = crate::error::ErrorBody<'static>), (status = 504, description = "`PROVIDER_TIMEOUT` (60 s)", body = crate::error::ErrorBody<'static>)))]
pub async fn generate(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<GenerateAgentSuggestions>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let count = requested_count(body.count)?;
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (suggestions, model) = generate_for(&state.suggestions, &agent, &caller.user_id(), count)
        .await
        .ok_or_else(|| {
            ApiError::invalid(
                "agent",
                "has neither a description nor instructions to suggest from",
            )
        })??;
    let record = AgentSuggestions {
        suggestions,
        source: Some(Source::Generated),
        model: Some(model),
        updated_at: Some(Utc::now()),
        ..AgentSuggestions::none(&agent)
    };
    if body.save {
        return store(&state, record).await;
    }
    Ok(HttpResponse::Ok().json(record))
}

async fn store(state: &AppState, record: AgentSuggestions) -> Result<HttpResponse, ApiError> {
    crate::suggestions::agent::put(&state.store, &record).await?;
    Ok(HttpResponse::Ok().json(record))
}
