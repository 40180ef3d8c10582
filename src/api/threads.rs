//! `/api/threads`: create, read, update, delete and list threads.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::{
    AgentId, Metadata, Participant, ParticipantRole, ProjectId, Refusal, Thread, ThreadId,
    ThreadKind,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::extract::{JsonBody, Patch};
use super::{idempotency, projects};
use super::{page_limit, parse_cursor, timestamp};
use crate::auth::access::ThreadRight;
use crate::auth::{Caller, access};
use crate::error::{ApiError, TurnError, stored};
use crate::state::AppState;
use crate::store::threads::Created;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 100;

/// A system prompt overlay: one string, or several joined by a blank line.
#[derive(Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Overlay {
    One(String),
    Many(Vec<String>),
}

impl Overlay {
    /// The text appended to the system prompt.
    pub fn joined(self) -> String {
        match self {
            Self::One(text) => text,
            Self::Many(parts) => parts.join("\n\n"),
        }
    }
}

/// The thread as every endpoint returns it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ThreadView {
    id: String,
    org_id: String,
    agent_id: String,
    title: Option<String>,
    kind: ThreadKind,
    status: &'static str,
    active_profile: Option<String>,
    #[schema(value_type = BTreeMap<String, String>)]
    metadata: Metadata,
    system_prompt_overlay: Option<String>,
    resource_bindings: Vec<Value>,
    created_by: String,
    /// The publication a visitor created it through, else null.
    publication_id: Option<String>,
    /// `run` (a run's thread), `delegate` (a delegated agent's), else null.
    origin: Option<confer_actors::ThreadOrigin>,
    /// A delegated thread's place: the calling thread and call, its root
    /// and its depth (absent elsewhere).
    #[serde(flatten)]
    delegation: Option<DelegationView>,
    /// The project it belongs to, else null.
    project_id: Option<String>,
    created_at: String,
    updated_at: String,
}

impl From<Thread> for ThreadView {
    fn from(thread: Thread) -> Self {
        Self {
            id: thread.id.to_string(),
            org_id: thread.org_id.to_string(),
            agent_id: thread.agent_id.to_string(),
            title: thread.title,
            kind: thread.kind,
            status: "active",
            active_profile: thread.active_profile,
            metadata: thread.metadata,
            system_prompt_overlay: thread.system_prompt_overlay,
            resource_bindings: thread.resource_bindings,
            created_by: thread.created_by,
            publication_id: thread.publication_id.map(|id| id.to_string()),
            origin: thread.origin,
            delegation: thread.delegation.map(|d| DelegationView {
                parent_thread_id: d.parent_thread_id.to_string(),
                parent_tool_call_id: d.parent_tool_call_id,
                root_thread_id: d.root_thread_id.to_string(),
                depth: d.depth,
            }),
            project_id: thread.project_id.map(|id| id.to_string()),
            created_at: timestamp(thread.created_at),
            updated_at: timestamp(thread.updated_at),
        }
    }
}

/// A delegated thread's place under its parent (`agent-extras.md` §3).
#[derive(Serialize, utoipa::ToSchema)]
pub struct DelegationView {
    parent_thread_id: String,
    parent_tool_call_id: String,
    root_thread_id: String,
    depth: u32,
}

/// `POST /api/threads` body.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateThread {
    agent_id: AgentId,
    title: Option<String>,
    kind: Option<ThreadKind>,
    resource_bindings: Option<Vec<Map<String, Value>>>,
    active_profile: Option<String>,
    system_prompt_overlay: Option<Overlay>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    metadata: Option<Metadata>,
    /// A project of the org (an end user: one where it is an editor).
    project_id: Option<ProjectId>,
}

/// `PATCH /api/threads/{id}` body; `null` clears a field, metadata is replaced whole.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateThread {
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    active_profile: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    title: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<Overlay>)]
    system_prompt_overlay: Patch<Overlay>,
    #[serde(default)]
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    metadata: Patch<Metadata>,
    /// Moves it to a project, or out of its project with null (an end
    /// user: the thread's creator, an editor of both projects).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    project_id: Patch<ProjectId>,
}

/// `GET /api/threads` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Required unless `parentThreadId` is given.
    #[serde(rename = "agentId")]
    agent_id: Option<AgentId>,
    /// The delegated threads under this thread (the only listing they
    /// appear in), newest first.
    #[serde(rename = "parentThreadId")]
    parent_thread_id: Option<ThreadId>,
    /// Every thread of this project (an end user: a member of it), newest
    /// first; `agentId` is then optional.
    #[serde(rename = "projectId")]
    project_id: Option<ProjectId>,
    cursor: Option<String>,
    limit: Option<u32>,
}

/// The `GET /api/threads` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ThreadPage {
    threads: Vec<ThreadView>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

impl ThreadPage {
    fn of(page: crate::store::Page<Thread>) -> Self {
        Self {
            threads: page.items.into_iter().map(ThreadView::from).collect(),
            next_cursor: page.next_cursor.map(timestamp),
        }
    }
}

/// `POST /api/threads`: 200 with the thread.
#[utoipa::path(post, path = "/api/threads", tag = "threads", operation_id = "threads_create", security(("bearer" = [])), params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry of the same request answer the first one's outcome")), request_body = CreateThread, responses((status = 200, description = "The thread", body = ThreadView), (status = 422, description = "`VALIDATION_ERROR` (the detail names the field) or `IDEMPOTENCY_KEY_REUSED` (the key came with another request)", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<CreateThread>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency::from_header(&http)?;
    let body = body.into_inner();
    let keyed = key.map(|key| {
        let hashed = idempotency::creation_key(&caller, &key, &body);
        (hashed.key, confer_actors::idempotency::hex(&hashed.request))
    });
    let org = caller.org_id;
    let agent_id = body.agent_id;
    let agent = state
        .store
        .agents()
        .agent(org, agent_id)
        .await?
        .ok_or_else(|| ApiError::not_found("agent"))?;
    if agent.is_deleted() {
        return Err(ApiError::Conflict("agentId: the agent was deleted".into()));
    }
    if let Some(project) = body.project_id {
        projects::threads::may_place(&state, &caller, project).await?;
    }
    let now = Utc::now();
    let kind = body.kind.unwrap_or_default();
    let thread = Thread {
        id: ThreadId::new(),
        org_id: org,
        agent_id,
        title: body.title,
        kind,
        active_profile: body.active_profile,
        metadata: body.metadata.unwrap_or_default(),
        system_prompt_overlay: body.system_prompt_overlay.map(Overlay::joined),
        resource_bindings: body
            .resource_bindings
            .unwrap_or_default()
            .into_iter()
            .map(Value::Object)
            .collect(),
        created_by: caller.user_id(),
        publication_id: None,
        invite_generation: 0,
        origin: None,
        delegation: None,
        project_id: body.project_id,
        created_at: now,
        updated_at: now,
    };
    // A JWT user who opens a multiplayer thread is its owner participant.
    let owner = caller
        .jwt_user()
        .filter(|_| kind == ThreadKind::Multiplayer)
        .map(|user| Participant {
            user_id: user.sub.clone(),
            display_name: user.name.clone(),
            role: ParticipantRole::Owner,
            joined_at: now,
        });
    let created = state
        .store
        .threads()
        .create_thread_keyed(thread, owner, keyed)
        .await?;
    match created {
        Created::New(thread) => Ok(HttpResponse::Ok().json(ThreadView::from(*thread))),
        Created::Repeat(id) => {
            let thread = access::thread(&state, &caller, id).await?;
            Ok(HttpResponse::Ok()
                .insert_header(("Idempotent-Replayed", "true"))
                .json(ThreadView::from(thread)))
        }
        Created::KeyReused => Err(TurnError::Refused(Refusal::KeyReused).into()),
        // An API thread names no publication.
        Created::PublicationFull | Created::VisitorFull => Err(ApiError::Internal(
            "an API thread was counted against a publication".into(),
        )),
        Created::ProjectGone => Err(ApiError::not_found("project")),
    }
}

/// `GET /api/threads/{id}`
#[utoipa::path(get, path = "/api/threads/{thread_id}", tag = "threads", operation_id = "threads_get", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "The thread", body = ThreadView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ThreadView::from(thread)))
}

/// `PATCH /api/threads/{id}`: compare-and-swap, so a concurrent delete is
/// never undone (the update then answers 404).
#[utoipa::path(patch, path = "/api/threads/{thread_id}", tag = "threads", operation_id = "threads_update", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = UpdateThread, responses((status = 200, description = "The updated thread", body = ThreadView)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: JsonBody<UpdateThread>,
) -> Result<HttpResponse, ApiError> {
    let thread =
        access::changeable_thread(&state, &caller, path.into_inner(), ThreadRight::Change).await?;
    let body = body.into_inner();
    if let Some(to) = body.project_id.clone().into_change() {
        projects::threads::may_move(&state, &caller, &thread, to).await?;
    }
    let (org, id) = (thread.org_id, thread.id);
    let outcome = state
        .store
        .threads()
        .update_thread(org, id, Box::new(move |thread| Ok(body.apply(thread))))
        .await?;
    Ok(HttpResponse::Ok().json(ThreadView::from(stored(outcome, "thread")?)))
}

impl UpdateThread {
    /// The thread with the present fields changed (re-runnable on a retry).
    fn apply(&self, mut thread: Thread) -> Thread {
        if let Some(profile) = self.active_profile.clone().into_change() {
            thread.active_profile = profile;
        }
        if let Some(title) = self.title.clone().into_change() {
            thread.title = title;
        }
        if let Some(overlay) = self.system_prompt_overlay.clone().into_change() {
            thread.system_prompt_overlay = overlay.map(Overlay::joined);
        }
        if let Some(metadata) = self.metadata.clone().into_change() {
            thread.metadata = metadata.unwrap_or_default();
        }
        if let Some(project) = self.project_id.clone().into_change() {
            thread.project_id = project;
        }
        thread.updated_at = Utc::now();
        thread
    }
}

/// `DELETE /api/threads/{id}`: the thread and its history.
#[utoipa::path(delete, path = "/api/threads/{thread_id}", tag = "threads", operation_id = "threads_delete", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "Deleted with its messages", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread =
        access::changeable_thread(&state, &caller, path.into_inner(), ThreadRight::Delete).await?;
    let (org, id) = (thread.org_id, thread.id);
    // A running answer ends now; its late writes land on a deleted thread's
    // keys, which the purge removes.
    let _ = state.runtime.stop(id, true).await;
    let deleted = state.store.threads().delete_thread(org, id).await?;
    if !deleted {
        return Err(ApiError::not_found("thread"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `GET /api/threads?agentId=&cursor=&limit=`: newest first. A JWT user sees
/// the threads it created and the multiplayer threads it participates in.
#[utoipa::path(get, path = "/api/threads", tag = "threads", operation_id = "threads_list", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "A page of the agent's threads the caller may read", body = ThreadPage)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let before = parse_cursor(query.cursor.as_deref())?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let org = caller.org_id;
    if let Some(project) = query.project_id {
        let page = projects::threads::list(&state, &caller, project, query.agent_id, before, limit)
            .await?;
        return Ok(HttpResponse::Ok().json(ThreadPage::of(page)));
    }
    if let Some(parent) = query.parent_thread_id {
        // Children are read by whoever may read their parent.
        let parent = access::thread(&state, &caller, parent).await?;
        let agent = query.agent_id;
        let mut page = state
            .store
            .threads()
            .child_threads(org, parent.id, before, limit)
            .await?;
        page.items.retain(|t| agent.is_none_or(|a| t.agent_id == a));
        return Ok(HttpResponse::Ok().json(ThreadPage::of(page)));
    }
    let agent_id = query
        .agent_id
        // A missing query parameter is 400, as the query's other fields.
        .ok_or_else(|| {
            ApiError::BadRequest("agentId: required (or parentThreadId, or projectId)".into())
        })?;
    // Deleted agents keep their threads listable; unknown ones are 404.
    if state.store.agents().agent(org, agent_id).await?.is_none() {
        return Err(ApiError::not_found("agent"));
    }
    // An end user's listing is its own threads and those it joined, read
    // from its own index, never the org's.
    let user = (!caller.sees_whole_org()).then(|| caller.user_id());
    let page = state
        .store
        .threads()
        .list_threads(org, agent_id, user, before, limit)
        .await?;
    Ok(HttpResponse::Ok().json(ThreadPage::of(page)))
}
