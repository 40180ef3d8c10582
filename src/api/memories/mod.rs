//! An agent's memories over HTTP (`knowledge.md` §5–6): recall (`POST
//! …/memory`, the seed's route), list, write and delete, and forgetting a
//! user's across every agent (`DELETE /api/memories`). Whose memories a
//! caller reaches is `auth::access::memory_user`'s decision; the
//! configuration routes are in `config`.

mod config;

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, MemoryId};
use serde::{Deserialize, Serialize};

pub use self::config::{__path_get_config, __path_put_config, get_config, put_config};
use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Caller, Role, access};
use crate::error::ApiError;
use crate::knowledge::memory::{Memory, MemoryScope, MemorySource, Owner, check_content};
use crate::state::AppState;
use crate::store::knowledge::memories::MemoryWritten;
use crate::store::port::MemoryFilter;

/// A memory as the API shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MemoryView {
    id: String,
    org_id: String,
    agent_id: String,
    scope: MemoryScope,
    user_id: Option<String>,
    content: String,
    source: MemorySource,
    thread_id: Option<String>,
    created_at: String,
    last_recalled_at: Option<String>,
    /// Recall only: the BM25 score.
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f32>,
}

impl MemoryView {
    fn of(m: Memory, score: Option<f32>) -> Self {
        Self {
            id: m.id.to_string(),
            org_id: m.org_id.to_string(),
            agent_id: m.agent_id.to_string(),
            scope: m.scope,
            user_id: m.user_id,
            content: m.content,
            source: m.source,
            thread_id: m.thread_id.map(|t| t.to_string()),
            created_at: super::timestamp(m.created_at),
            last_recalled_at: m.last_recalled_at.map(super::timestamp),
            score,
        }
    }
}

/// Which of a user's and the shared memories a request asks for.
#[derive(Clone, Copy, Default, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScopeFilter {
    User,
    Agent,
    #[default]
    All,
}

/// The owners `filter` names for `user` (`None`: the user part needs a
/// user and the caller named none).
fn owners(user: Option<&str>, filter: ScopeFilter) -> Option<Vec<Owner>> {
    let shared = vec![Owner::Shared];
    match (filter, user) {
        (ScopeFilter::Agent, _) => Some(shared),
        (ScopeFilter::User, Some(user)) => Some(vec![Owner::User(user.to_owned())]),
        (ScopeFilter::All, Some(user)) => Some(vec![Owner::User(user.to_owned()), Owner::Shared]),
        (_, None) => None,
    }
}

/// `POST /api/agents/{id}/memory` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecallBody {
    query: String,
    /// 1–50, default 10.
    limit: Option<u32>,
    scope: Option<ScopeFilter>,
    /// Whose (admins and members: required unless `scope` is `agent`).
    user_id: Option<String>,
}

/// `POST /api/agents/{id}/memory`: the best memories for `query`.
#[utoipa::path(post, path = "/api/agents/{agent_id}/memory", tag = "agents", operation_id = "memory_recall", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = RecallBody, responses((status = 200, description = "Memories with their score, best first", body = [MemoryView]), (status = 403, description = "Another user's memories", body = crate::error::ErrorBody<'static>)))]
pub async fn recall(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
    body: JsonBody<RecallBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let user = access::memory_user(&caller, body.user_id.as_deref())?;
    let owners = owners(user.as_deref(), body.scope.unwrap_or_default())
        .ok_or_else(|| ApiError::invalid("userId", "required unless scope is agent"))?;
    let limit = body.limit.unwrap_or(10);
    if !(1..=50).contains(&limit) {
        return Err(ApiError::invalid("limit", "must be 1–50"));
    }
    let found = state
        .memories
        .recall(
            caller.org_id,
            agent.id,
            &owners,
            &body.query,
            limit as usize,
        )
        .await
        .map_err(super::knowledge::search_error)?;
    let views: Vec<_> = found
        .into_iter()
        .map(|r| MemoryView::of(r.memory, Some(r.score)))
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `GET /api/agents/{id}/memories` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    user_id: Option<String>,
    scope: Option<ScopeFilter>,
    /// 1–200, default 50.
    limit: Option<u32>,
    #[param(value_type = Option<String>)]
    cursor: Option<MemoryId>,
}

/// `GET /api/agents/{id}/memories`: newest first; `X-Next-Cursor`.
#[utoipa::path(get, path = "/api/agents/{agent_id}/memories", tag = "agents", operation_id = "memories_list", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ListQuery), responses((status = 200, description = "Memories, newest first (bare array; `X-Next-Cursor` when more follow)", body = [MemoryView])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let user = access::memory_user(&caller, query.user_id.as_deref())?;
    let filter = query.scope.unwrap_or_default();
    // No user named (admins and members): every user's, or only theirs.
    let (owners, only) = match owners(user.as_deref(), filter) {
        Some(owners) => (Some(owners), None),
        None => (None, Some(MemoryScope::User)),
    };
    let only = if owners.is_none() && filter == ScopeFilter::All {
        None
    } else {
        only
    };
    let limit = query.limit.unwrap_or(50).clamp(1, 200) as usize;
    let org = caller.org_id;
    let filter = MemoryFilter { owners, only };
    let (page, next) = state
        .store
        .memories()
        .memories(org, agent.id, filter, query.cursor, limit)
        .await?;
    let mut response = HttpResponse::Ok();
    if let Some(next) = next {
        response.insert_header(("x-next-cursor", next.to_string()));
    }
    Ok(response.json(
        page.into_iter()
            .map(|m| MemoryView::of(m, None))
            .collect::<Vec<_>>(),
    ))
}

/// `POST /api/agents/{id}/memories` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMemory {
    /// 1–2,000 characters.
    content: String,
    /// `user` (default) or `agent` (shared; not end users).
    scope: Option<MemoryScope>,
    /// The user of a `user` memory (admins and members: required).
    user_id: Option<String>,
}

/// `POST /api/agents/{id}/memories`: 201, or 200 with the duplicate.
#[utoipa::path(post, path = "/api/agents/{agent_id}/memories", tag = "agents", operation_id = "memories_create", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = CreateMemory, responses((status = 201, description = "Stored, durable and searchable", body = MemoryView), (status = 200, description = "The owner already had this content", body = MemoryView), (status = 422, description = "A field breaks a rule", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
    body: JsonBody<CreateMemory>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    check_content(&body.content).map_err(ApiError::Validation)?;
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let scope = body.scope.unwrap_or(MemoryScope::User);
    let user = access::memory_user(&caller, body.user_id.as_deref())?;
    let user_id = match scope {
        MemoryScope::Agent if caller.role() == Role::User => {
            return Err(ApiError::Forbidden(
                "requires an admin or a member: end users write their own memories only".into(),
            ));
        }
        MemoryScope::Agent => None,
        MemoryScope::User => {
            Some(user.ok_or_else(|| ApiError::invalid("userId", "required for scope user"))?)
        }
    };
    let org = caller.org_id;
    let config = crate::knowledge::memories::config(&state.store, org, agent.id).await?;
    let memory = Memory {
        id: MemoryId::new(),
        org_id: org,
        agent_id: agent.id,
        scope,
        user_id,
        content: body.content.trim().to_owned(),
        source: MemorySource::Api,
        thread_id: None,
        created_at: chrono::Utc::now(),
        last_recalled_at: None,
    };
    match state.memories.write(memory, config.max_memories).await? {
        MemoryWritten::Stored { memory, .. } => {
            Ok(HttpResponse::Created().json(MemoryView::of(*memory, None)))
        }
        MemoryWritten::Duplicate(memory) => {
            Ok(HttpResponse::Ok().json(MemoryView::of(*memory, None)))
        }
        MemoryWritten::OrgFull => Err(ApiError::invalid(
            "content",
            "the org keeps its most memories (knowledge_max_memories_per_org)",
        )),
    }
}

/// `DELETE /api/agents/{id}/memories/{memoryId}`
#[utoipa::path(delete, path = "/api/agents/{agent_id}/memories/{memory_id}", tag = "agents", operation_id = "memories_delete", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("memory_id" = uuid::Uuid, Path, description = "The memory's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(AgentId, MemoryId)>,
) -> Result<HttpResponse, ApiError> {
    let (agent, id) = path.into_inner();
    let agent = live_agent(&state, &caller, agent).await?;
    let org = caller.org_id;
    let memory = state
        .store
        .memories()
        .memory(org, agent.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("memory"))?;
    if caller.role() == Role::User && memory.user_id.as_deref() != Some(caller.user_id().as_str()) {
        return Err(ApiError::Forbidden(
            "requires an admin or a member: end users delete their own memories only".into(),
        ));
    }
    state
        .store
        .memories()
        .delete_memory(org, agent.id, id)
        .await?;
    state.knowledge_search.index().nudge();
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `DELETE …/memories` and `DELETE /api/memories` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ForgetQuery {
    /// Whose (admins and members: required; end users: their own).
    user_id: Option<String>,
}

/// The user whose memories a forget names.
fn forgotten_user(caller: &Caller, query: &ForgetQuery) -> Result<Owner, ApiError> {
    access::memory_user(caller, query.user_id.as_deref())?
        .map(Owner::User)
        .ok_or_else(|| ApiError::invalid("userId", "required"))
}

/// `DELETE /api/agents/{id}/memories?userId=`: hidden at once, purged after.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/memories", tag = "agents", operation_id = "memories_forget", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ForgetQuery), responses((status = 200, description = "Forgotten", body = super::Ok)))]
pub async fn forget(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
    query: web::Query<ForgetQuery>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let owner = forgotten_user(&caller, &query)?;
    let org = caller.org_id;
    state
        .store
        .memories()
        .forget_memories(org, Some(agent.id), Some(owner))
        .await?;
    state.memories.forgotten();
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `DELETE /api/memories?userId=`: a user's memories of every agent.
#[utoipa::path(delete, path = "/api/memories", tag = "agents", operation_id = "memories_forget_everywhere", security(("bearer" = ["admin"])), params(ForgetQuery), responses((status = 200, description = "Forgotten", body = super::Ok)))]
pub async fn forget_everywhere(
    state: web::Data<AppState>,
    caller: Admin,
    query: web::Query<ForgetQuery>,
) -> Result<HttpResponse, ApiError> {
    let owner = forgotten_user(&caller, &query)?;
    let org = caller.org_id;
    state
        .store
        .memories()
        .forget_memories(org, None, Some(owner))
        .await?;
    state.memories.forgotten();
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
