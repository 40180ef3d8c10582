//! `/api/code-sessions` (`computer.md` §6): admins and members reach the
//! org's sessions, a JWT user its own. Here: create, list, read and PATCH
//! (`title`, `status`); in [`work`]: messages (202), the thread's events
//! (a `follow` stream), cancel, archive and the diff. The work itself is
//! `crate::code::service`.

pub mod work;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, CodeAgentId, CodeSessionId, InstanceId, OrgId, ThreadId, codes};
use serde::{Deserialize, Serialize};

use super::extract::JsonBody;
use crate::auth::Caller;
use crate::code::create::{NewSession, SessionCreated};
use crate::code::service::SessionError;
use crate::code::sessions::{CodeSession, SessionStatus};
use crate::error::ApiError;
use crate::state::AppState;

/// The longest message (`computer.md` §6 rule 3).
pub(crate) const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// A session as every route answers it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SessionView {
    #[schema(value_type = uuid::Uuid)]
    id: CodeSessionId,
    #[schema(value_type = uuid::Uuid)]
    org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    code_agent_id: CodeAgentId,
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    thread_id: ThreadId,
    title: Option<String>,
    status: SessionStatus,
    status_detail: Option<String>,
    branch: Option<String>,
    base_commit: Option<String>,
    #[schema(value_type = Option<uuid::Uuid>)]
    instance_id: Option<InstanceId>,
    created_by: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    archived_at: Option<DateTime<Utc>>,
}

impl From<CodeSession> for SessionView {
    fn from(s: CodeSession) -> Self {
        Self {
            id: s.id,
            org_id: s.org_id,
            code_agent_id: s.code_agent_id,
            agent_id: s.agent_id,
            thread_id: s.thread_id,
            title: s.title,
            status: s.status,
            status_detail: s.status_detail,
            branch: s.branch,
            base_commit: s.base_commit,
            instance_id: s.instance_id,
            created_by: s.created_by,
            created_at: s.created_at,
            updated_at: s.updated_at,
            archived_at: s.archived_at,
        }
    }
}

pub(crate) fn session_error(error: SessionError) -> ApiError {
    match error {
        SessionError::Conflict(detail) => ApiError::Conflict(detail),
        SessionError::Internal(detail) => ApiError::Internal(detail),
        SessionError::Refused(refusal) => crate::error::TurnError::Refused(refusal).into(),
    }
}

/// Whether `caller` sees every session of the org (keys and JWT admins)
/// or only its own (a JWT user).
fn sees_all(caller: &Caller) -> bool {
    caller.jwt_user().is_none_or(|user| user.admin)
}

/// The caller's session `id`: another org's is 404, another user's 403.
pub(crate) async fn session_for(
    state: &AppState,
    caller: &Caller,
    id: CodeSessionId,
) -> Result<CodeSession, ApiError> {
    let org = caller.org_id;
    let session = state
        .store
        .run(move |s| s.code_session(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("code session"))?;
    if !sees_all(caller) && session.created_by != caller.user_id() {
        return Err(ApiError::Forbidden(
            "the code session is another user's".into(),
        ));
    }
    Ok(session)
}

/// `?codeAgentId, status, limit, cursor`.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    #[param(value_type = Option<uuid::Uuid>)]
    code_agent_id: Option<CodeAgentId>,
    /// preparing, idle, running, completed, failed or archived.
    status: Option<String>,
    /// 1–100 (50).
    limit: Option<usize>,
    /// `X-Next-Cursor` of the previous page.
    #[param(value_type = Option<uuid::Uuid>)]
    cursor: Option<CodeSessionId>,
}

/// `GET /api/code-sessions`: newest first.
#[utoipa::path(get, path = "/api/code-sessions", tag = "code sessions", operation_id = "code_sessions_list", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "Sessions, newest first; `X-Next-Cursor` when more follow", body = [SessionView]), (status = 422, description = "An unknown status, or `limit` outside 1–100", body = crate::error::ErrorBody<'static>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = query.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::invalid("limit", "must be 1 to 100"));
    }
    let status = match query.status.as_deref() {
        None => None,
        Some(text) => Some(SessionStatus::parse(text).ok_or_else(|| {
            ApiError::invalid(
                "status",
                "must be preparing, idle, running, completed, failed or archived",
            )
        })?),
    };
    let (org, agent, own) = (
        caller.org_id,
        query.code_agent_id,
        (!sees_all(&caller)).then(|| caller.user_id()),
    );
    let page = state
        .store
        .run(move |s| {
            s.code_sessions(org, query.cursor, limit + 1, |session| {
                agent.is_none_or(|a| session.code_agent_id == a)
                    && status.is_none_or(|w| session.status == w)
                    && own.as_ref().is_none_or(|u| &session.created_by == u)
            })
        })
        .await?;
    let mut response = HttpResponse::Ok();
    let more = page.len() > limit;
    let views: Vec<SessionView> = page
        .into_iter()
        .take(limit)
        .map(SessionView::from)
        .collect();
    if more && let Some(last) = views.last() {
        response.insert_header(("X-Next-Cursor", last.id.to_string()));
    }
    Ok(response.json(views))
}

/// `POST /api/code-sessions` body.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSession {
    #[schema(value_type = uuid::Uuid)]
    code_agent_id: CodeAgentId,
    /// ≤ 200 characters.
    title: Option<String>,
    /// The branch to work on (the code agent's, else the default one).
    branch: Option<String>,
    /// Sent once the session is prepared (≤ 256 KiB).
    message: Option<String>,
}

/// `POST /api/code-sessions`: 201 `preparing`; the repository is fetched
/// and set up in the background. An `Idempotency-Key` (scope: the
/// caller) makes a repeat answer the first session, with
/// `Idempotent-Replayed: true`; the key with another body is 422.
#[utoipa::path(post, path = "/api/code-sessions", tag = "code sessions", operation_id = "code_sessions_create", security(("bearer" = [])), params(("Idempotency-Key" = Option<String>, Header, description = "A repeat answers the first session")), request_body = CreateSession, responses((status = 201, description = "Created, preparing (or the first session of a repeated key)", body = SessionView), (status = 404, description = "No such code agent", body = crate::error::ErrorBody<'static>), (status = 422, description = "`IDEMPOTENCY_KEY_REUSED`", body = crate::error::ErrorBody<'static>), (status = 409, description = "The code agent's agent was deleted, or the org's sandbox instances are at their cap with none stopped", body = crate::error::ErrorBody<'static>), (status = 503, description = "`SANDBOX_UNAVAILABLE`: no sandbox runtime for its agent here", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<CreateSession>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key = crate::api::idempotency::from_header(&http)?;
    let body = body.into_inner();
    let keyed = key.map(|key| {
        let hashed = crate::api::idempotency::scoped_key(b"code-session", &caller, &key, &body);
        (hashed.key, confer_actors::idempotency::hex(&hashed.request))
    });
    if body.title.as_ref().is_some_and(|t| t.chars().count() > 200) {
        return Err(ApiError::invalid("title", "at most 200 characters"));
    }
    if body
        .message
        .as_ref()
        .is_some_and(|m| m.len() > MAX_MESSAGE_BYTES)
    {
        return Err(ApiError::invalid("message", "at most 256 KiB"));
    }
    if let Some(branch) = &body.branch
        && !crate::outbound::git::is_ref_name(branch)
    {
        return Err(ApiError::invalid("branch", "not a branch name"));
    }
    let (org, id) = (caller.org_id, body.code_agent_id);
    if let Some(session) = state
        .code_sessions
        .repeated(org, &keyed)
        .await
        .map_err(session_error)?
    {
        return Ok(replayed(session));
    }
    let (code_agent, agent) = state
        .store
        .run(move |s| {
            let code_agent = s.code_agent(org, id)?;
            let agent = match &code_agent {
                Some(c) => s.agent(org, c.agent_id)?,
                None => None,
            };
            Ok::<_, confer_actors::StoreError>((code_agent, agent))
        })
        .await?;
    let code_agent = code_agent.ok_or_else(|| ApiError::not_found("code agent"))?;
    let agent = agent
        .filter(|a| !a.is_deleted())
        .ok_or_else(|| ApiError::Conflict("the code agent's agent was deleted".into()))?;
    let availability = state.computer.availability(agent.runtime_provider).await;
    if !availability.available() {
        return Err(ApiError::Refused {
            code: codes::SANDBOX_UNAVAILABLE,
            detail: format!(
                "no sandbox runtime: {}",
                availability.reason.unwrap_or_default()
            ),
            retry_after: Some(60),
        });
    }
    let created = state
        .code_sessions
        .create(
            (code_agent, agent),
            NewSession {
                created_by: caller.user_id(),
                title: body.title,
                branch: body.branch,
                message: body.message,
                keyed,
            },
        )
        .await
        .map_err(session_error)?;
    Ok(match created {
        SessionCreated::New(session) => HttpResponse::Created().json(SessionView::from(session)),
        SessionCreated::Repeat(session) => replayed(session),
    })
}

/// The first answer of a keyed creation, again.
fn replayed(session: CodeSession) -> HttpResponse {
    HttpResponse::Created()
        .insert_header(("Idempotent-Replayed", "true"))
        .json(SessionView::from(session))
}

/// `GET /api/code-sessions/{id}`
#[utoipa::path(get, path = "/api/code-sessions/{code_session_id}", tag = "code sessions", operation_id = "code_sessions_get", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id")), responses((status = 200, description = "The session", body = SessionView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
) -> Result<HttpResponse, ApiError> {
    let session = session_for(&state, &caller, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(SessionView::from(session)))
}

/// `PATCH /api/code-sessions/{id}` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchSession {
    title: Option<String>,
    /// `completed` (from idle), `idle` (from completed) or `archived`.
    status: Option<SessionStatus>,
}

/// `PATCH /api/code-sessions/{id}`
#[utoipa::path(patch, path = "/api/code-sessions/{code_session_id}", tag = "code sessions", operation_id = "code_sessions_update", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id")), request_body = PatchSession, responses((status = 200, description = "Changed", body = SessionView), (status = 409, description = "The status is not reachable from the session's (named)", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
    body: JsonBody<PatchSession>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let session = session_for(&state, &caller, path.into_inner()).await?;
    if let Some(title) = &body.title
        && title.chars().count() > 200
    {
        return Err(ApiError::invalid("title", "at most 200 characters"));
    }
    let saved = state
        .code_sessions
        .patch(&session, body.title, body.status)
        .await
        .map_err(session_error)?;
    Ok(HttpResponse::Ok().json(SessionView::from(saved)))
}
