//! `GET, PUT /api/agents/{id}/delegated` (`agent-extras.md` §3): an
//! agent's delegated agents, read by A M and replaced by A. The rules of
//! a PUT are `crate::tools::delegate::config`'s; an org's PUTs are
//! checked one at a time, so two of them cannot close a cycle between
//! them.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::web;
use chrono::Utc;
use confer_actors::{AgentId, OrgId, StoreError};
use serde::{Deserialize, Serialize};

use super::agent_config;
use super::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::SledStore;
use crate::store::update::Updated;
use crate::tools::delegate::config::{self, DelegateInput, DelegationConfig};

/// Delegation PUTs, one at a time (their cycle rule reads the org's graph).
static WRITES: Mutex<()> = Mutex::new(());

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

fn view(
    s: &SledStore,
    org: OrgId,
    stored: Option<DelegationConfig>,
) -> Result<DelegationView, StoreError> {
    let Some(stored) = stored else {
        return Ok(DelegationView {
            delegates: Vec::new(),
            updated_at: None,
        });
    };
    let mut delegates = Vec::with_capacity(stored.delegates.len());
    for delegate in stored.delegates {
        let agent = s.agent(org, delegate.agent_id)?;
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
    agent_config::get(&state, &caller, path.into_inner(), |s, org, agent| {
        let stored = s.delegation_config(org, agent)?;
        view(s, org, stored)
    })
    .await
}

/// `PUT /api/agents/{id}/delegated`: replaces the list.
#[utoipa::path(put, path = "/api/agents/{agent_id}/delegated", tag = "agents", operation_id = "delegated_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutDelegation, responses((status = 200, description = "The delegates as stored", body = DelegationView), (status = 422, description = "Over 8 delegates, the agent itself, a repeat or an unknown agent (`delegates[i].agentId`), a description over 1,024 characters, or a cycle (`delegates: cycle a → b → a`)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutDelegation>,
) -> Result<actix_web::HttpResponse, ApiError> {
    let wanted = body.into_inner().delegates;
    agent_config::put(&state, &caller, path.into_inner(), move |s, org, agent| {
        // A panic while held leaves nothing half-done: the write is one put.
        let _one_at_a_time = WRITES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let agents: HashMap<AgentId, confer_actors::Agent> =
            s.agents(org)?.into_iter().map(|a| (a.id, a)).collect();
        let Some(me) = agents.get(&agent) else {
            return Ok(Updated::Gone);
        };
        let graph: HashMap<AgentId, Vec<AgentId>> = s
            .org_delegations(org)?
            .into_iter()
            .map(|c| (c.agent_id, c.delegates.iter().map(|d| d.agent_id).collect()))
            .collect();
        let delegates = match config::validate(me, &wanted, &agents, &graph) {
            Ok(delegates) => delegates,
            Err(refused) => {
                return Ok(Updated::Refused(ApiError::invalid(
                    &refused.field,
                    refused.reason,
                )));
            }
        };
        let stored = DelegationConfig {
            agent_id: agent,
            org_id: org,
            delegates,
            updated_at: Utc::now(),
        };
        s.put_delegation_config(&stored)?;
        let kept = (!stored.delegates.is_empty()).then_some(stored);
        Ok(Updated::Stored(view(s, org, kept)?))
    })
    .await
}
