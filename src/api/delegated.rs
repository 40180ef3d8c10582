//! `GET, PUT /api/agents/{id}/delegated` (`agent-extras.md` §3): an
//! agent's delegated agents, read by A M and replaced by A. The rules of
//! a PUT are `crate::tools::delegate::config`'s; a node checks an org's
//! PUTs one at a time, so two of them cannot close a cycle between them.
//! On a cluster two PUTs on two nodes at the same instant could; a turn
//! still never calls round a cycle (a delegate already in its chain is
//! refused, `delegation cycle`).

use std::collections::HashMap;

use actix_web::web;
use chrono::Utc;
use confer_actors::{AgentId, OrgId, StoreError};
use serde::{Deserialize, Serialize};

use super::agent_config;
use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::port::{PlainConfig, update_agent_config};
use crate::tools::delegate::config::{self, DelegateInput, DelegationConfig};
use crate::tools::delegate::delegation_config;

/// Delegation PUTs, one at a time (their cycle rule reads the org's graph).
static WRITES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `PUT /api/agents/{id}/delegated`'s body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutDelegation {
    /// Replaces the list; `[]` clears it.
    delegates: Vec<DelegateInput>,
}

/// A delegate as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DelegateView {
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    name: String,
    /// The one given, else the agent's.
    description: String,
    /// `delegate__{slug}`.
    tool_name: String,
    /// The agent was deleted since: its tool is no longer offered.
    deleted: bool,
}

/// An agent's delegates as returned (with its and its org's ids).
#[derive(Serialize, utoipa::ToSchema)]
pub struct DelegationView {
    delegates: Vec<DelegateView>,
    /// `null` when never set.
    updated_at: Option<String>,
}

/// The answer of `stored` (none, or an emptied list: never set).
async fn view(
    state: &AppState,
    org: OrgId,
    stored: Option<DelegationConfig>,
) -> Result<DelegationView, StoreError> {
    let Some(stored) = stored.filter(|c| !c.delegates.is_empty()) else {
        return Ok(DelegationView {
            delegates: Vec::new(),
            updated_at: None,
        });
    };
    let mut delegates = Vec::with_capacity(stored.delegates.len());
    for delegate in stored.delegates {
        let agent = state.store.agents().agent(org, delegate.agent_id).await?;
        delegates.push(DelegateView {
            agent_id: delegate.agent_id,
            name: agent.as_ref().map_or_else(String::new, |a| a.name.clone()),
            description: delegate
                .description
                .or_else(|| agent.as_ref().map(|a| a.description.clone()))
                .unwrap_or_default(),
            tool_name: delegate.tool_name,
            deleted: agent.is_none_or(|a| a.is_deleted()),
        });
    }
    Ok(DelegationView {
        delegates,
        updated_at: Some(super::timestamp(stored.updated_at)),
    })
}

/// `GET /api/agents/{id}/delegated`
#[utoipa::path(get, path = "/api/agents/{agent_id}/delegated", tag = "agents", operation_id = "delegated_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent's delegates (none when never set)", body = DelegationView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<actix_web::HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let stored = delegation_config(&state.store, org, agent.id).await?;
    let answer = view(&state, org, stored).await?;
    Ok(agent_config::view(&caller, agent.id, answer))
}

/// `PUT /api/agents/{id}/delegated`: replaces the list.
#[utoipa::path(put, path = "/api/agents/{agent_id}/delegated", tag = "agents", operation_id = "delegated_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutDelegation, responses((status = 200, description = "The delegates as stored", body = DelegationView), (status = 422, description = "Over 8 delegates, the agent itself, a repeat or an unknown agent (`delegates[i].agentId`), a description over 1,024 characters, or a cycle (`delegates: cycle a → b → a`)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutDelegation>,
) -> Result<actix_web::HttpResponse, ApiError> {
    let me = live_agent(&state, &caller, path.into_inner()).await?;
    let wanted = body.into_inner().delegates;
    let org = caller.org_id;
    // The org's graph is read and the list stored under one lock per node
    // (see the module's note for a cluster).
    let _one_at_a_time = WRITES.lock().await;
    let agents: HashMap<AgentId, confer_actors::Agent> = state
        .store
        .agents()
        .agents(org)
        .await?
        .into_iter()
        .map(|a| (a.id, a))
        .collect();
    let configs = state
        .store
        .configs()
        .org_configs_json(org, PlainConfig::Delegation)
        .await?;
    let graph: HashMap<AgentId, Vec<AgentId>> = configs
        .into_iter()
        .filter_map(|c| serde_json::from_value::<DelegationConfig>(c).ok())
        .map(|c| (c.agent_id, c.delegates.iter().map(|d| d.agent_id).collect()))
        .collect();
    let delegates = config::validate(&me, &wanted, &agents, &graph)
        .map_err(|refused| ApiError::invalid(&refused.field, refused.reason))?;
    let stored = DelegationConfig {
        agent_id: me.id,
        org_id: org,
        delegates,
        updated_at: Utc::now(),
    };
    let kept = stored.clone();
    let replace = move |_: Option<DelegationConfig>| Ok(Some(kept.clone()));
    let configs = state.store.configs();
    let updated =
        update_agent_config(configs, org, me.id, PlainConfig::Delegation, replace).await?;
    let stored = crate::error::stored(updated, "agent")?;
    let answer = view(&state, org, stored).await?;
    Ok(agent_config::view(&caller, me.id, answer))
}
