//! The computer routes (`computer.md` §2): an agent's configuration
//! (`GET` A M, `PUT` A), its instances (A M), and a thread's instance
//! (`GET`, `DELETE`: whoever may read the thread). Rules:
//! `crate::computer::config`; lifecycle: `crate::computer::service`.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, RuntimeProvider, ThreadId};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::access::{self, ThreadRight};
use crate::auth::{Admin, Caller, Member};
use crate::computer::config::{ComputerConfig, Network, PutComputerConfig, SizeClass};
use crate::computer::instances::{Instance, InstanceState, StopReason};
use crate::computer::runtime::RuntimeKind;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};
use crate::store::update::Updated;

/// An agent's computer configuration as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ComputerConfigView {
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    org_id: confer_actors::OrgId,
    enabled: bool,
    size_class: SizeClass,
    idle_timeout_secs: u64,
    max_command_secs: u64,
    output_limit_bytes: usize,
    network: Network,
    env: std::collections::BTreeMap<String, String>,
    runtime_provider: RuntimeProvider,
    /// The runtime instances start on (`computer.md` §1), null when none.
    effective_runtime: Option<RuntimeKind>,
    available: bool,
    unavailable_reason: Option<String>,
    updated_at: Option<DateTime<Utc>>,
}

async fn view(
    state: &AppState,
    agent: &confer_actors::Agent,
    config: ComputerConfig,
) -> ComputerConfigView {
    let availability = state.computer.availability(agent.runtime_provider).await;
    ComputerConfigView {
        agent_id: agent.id,
        org_id: agent.org_id,
        enabled: config.enabled,
        size_class: config.size_class,
        idle_timeout_secs: config.idle_timeout_secs,
        max_command_secs: config.max_command_secs,
        output_limit_bytes: config.output_limit_bytes,
        network: config.network,
        env: config.env,
        runtime_provider: agent.runtime_provider,
        available: availability.available(),
        effective_runtime: availability.runtime,
        unavailable_reason: availability.reason,
        updated_at: config.updated_at,
    }
}

/// `GET /api/agents/{id}/computer`
#[utoipa::path(get, path = "/api/agents/{agent_id}/computer", tag = "computer", operation_id = "computer_config_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The computer configuration (the defaults when never set)", body = ComputerConfigView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    let config: ComputerConfig =
        agent_config(state.store.configs(), org, id, PlainConfig::Computer).await?;
    Ok(HttpResponse::Ok().json(view(&state, &agent, config).await))
}

/// `PUT /api/agents/{id}/computer`: partial. Disabling stops the agent's
/// running instances (`disabled`).
#[utoipa::path(put, path = "/api/agents/{agent_id}/computer", tag = "computer", operation_id = "computer_config_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutComputerConfig, responses((status = 200, description = "The configuration as stored", body = ComputerConfigView), (status = 422, description = "A value out of range, a bad allow-list entry (`network.allow[i]`), a variable name or value (`env.NAME`)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutComputerConfig>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let change = body.into_inner();
    let (org, id) = (agent.org_id, agent.id);
    // A compare-and-swap retry applies the same change again.
    let swap = move |config| {
        change
            .clone()
            .apply(config)
            .map_err(|(field, rule)| ApiError::invalid(&field, rule))
    };
    let configs = state.store.configs();
    let updated = update_agent_config(configs, org, id, PlainConfig::Computer, swap).await?;
    let config = match updated {
        Updated::Stored(config) => config,
        Updated::Gone => return Err(ApiError::not_found("agent")),
        Updated::Refused(error) => return Err(error),
    };
    if !config.enabled {
        state
            .computer
            .stop_agent(org, id, StopReason::Disabled)
            .await;
    }
    Ok(HttpResponse::Ok().json(view(&state, &agent, config).await))
}

/// `?state=` of an agent's instances.
#[derive(Deserialize, utoipa::IntoParams)]
pub struct InstancesQuery {
    /// starting, running, stopping, stopped or failed.
    state: Option<String>,
}

/// `GET /api/agents/{id}/computer-instances`: newest first.
#[utoipa::path(get, path = "/api/agents/{agent_id}/computer-instances", tag = "computer", operation_id = "computer_instances_list", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), InstancesQuery), responses((status = 200, description = "The agent's instances, newest first", body = [Instance]), (status = 422, description = "An unknown state", body = crate::error::ErrorBody<'static>)))]
pub async fn instances(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
    query: web::Query<InstancesQuery>,
) -> Result<HttpResponse, ApiError> {
    let wanted = match query.into_inner().state {
        None => None,
        Some(text) => Some(InstanceState::parse(&text).ok_or_else(|| {
            ApiError::invalid(
                "state",
                "must be starting, running, stopping, stopped or failed",
            )
        })?),
    };
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    let mut listed: Vec<Instance> = state
        .store
        .run(move |s| s.org_instances(org))
        .await?
        .into_iter()
        .filter(|i| i.agent_id == id && wanted.is_none_or(|w| i.state == w))
        .collect();
    listed.sort_by_key(|i| std::cmp::Reverse(i.created_at));
    Ok(HttpResponse::Ok().json(listed))
}

/// A thread's instance.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ThreadComputer {
    instance: Option<Instance>,
}

/// `GET /api/threads/{id}/computer`
#[utoipa::path(get, path = "/api/threads/{thread_id}/computer", tag = "computer", operation_id = "thread_computer_get", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "The thread's instance, or null", body = ThreadComputer)))]
pub async fn thread_get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread_for(&state, &caller, path.into_inner(), ThreadRight::Read).await?;
    let (org, id) = (thread.org_id, thread.id);
    let instance = state.store.run(move |s| s.thread_instance(org, id)).await?;
    Ok(HttpResponse::Ok().json(ThreadComputer { instance }))
}

/// `DELETE /api/threads/{id}/computer`'s answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ComputerDeleted {
    ok: bool,
    /// Whether the thread had an instance.
    deleted: bool,
}

/// `DELETE /api/threads/{id}/computer`: stops and removes the thread's
/// instance (its workspace too); the next call starts afresh.
#[utoipa::path(delete, path = "/api/threads/{thread_id}/computer", tag = "computer", operation_id = "thread_computer_delete", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "Removed (deleted: false when there was none)", body = ComputerDeleted)))]
pub async fn thread_delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread_for(&state, &caller, path.into_inner(), ThreadRight::Read).await?;
    let deleted = state
        .computer
        .destroy_thread(thread.org_id, thread.id)
        .await;
    Ok(HttpResponse::Ok().json(ComputerDeleted { ok: true, deleted }))
}
