//! The code session routes that act on a session's work: messages (202),
//! the thread's events (a `follow` stream), cancel, archive and the diff.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{CodeSessionId, IfBusy};
use serde::{Deserialize, Serialize};

use super::{MAX_MESSAGE_BYTES, SessionView, session_error, session_for};
use crate::api::extract::JsonBody;
use crate::api::sse::Audience;
use crate::api::streams::{self, StreamQuery};
use crate::auth::Caller;
use crate::code::sessions::{DiffFile, SessionStatus};
use crate::error::ApiError;
use crate::state::AppState;

/// `POST /api/code-sessions/{id}/messages` body.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionMessage {
    /// ≤ 256 KiB.
    content: String,
    /// `queue` (the default), `reject` or `interrupt`, as for a thread.
    if_busy: Option<String>,
}

/// A message's admission.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SessionSent {
    #[schema(value_type = uuid::Uuid)]
    session_id: CodeSessionId,
    /// The turn on the session's thread; null while the session prepares
    /// (the message is sent when it ends).
    turn: Option<u64>,
    status: SessionStatus,
}

/// `POST /api/code-sessions/{id}/messages`: 202; the turn streams on the
/// session's events.
#[utoipa::path(post, path = "/api/code-sessions/{code_session_id}/messages", tag = "code sessions", operation_id = "code_sessions_message", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id"), ("Idempotency-Key" = Option<String>, Header, description = "A repeat answers the first message's turn")), request_body = SessionMessage, responses((status = 202, description = "Admitted", body = SessionSent), (status = 409, description = "The session is failed or archived, or busy under `ifBusy: reject`", body = crate::error::ErrorBody<'static>)))]
pub async fn message(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
    body: JsonBody<SessionMessage>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key = crate::api::idempotency::from_header(&http)?;
    let body = body.into_inner();
    if body.content.len() > MAX_MESSAGE_BYTES {
        return Err(ApiError::invalid("content", "at most 256 KiB"));
    }
    let if_busy = match body.if_busy.as_deref() {
        None | Some("queue") => IfBusy::Queue,
        Some("reject") => IfBusy::Reject,
        Some("interrupt") => IfBusy::Interrupt,
        Some(_) => {
            return Err(ApiError::invalid(
                "ifBusy",
                "must be queue, reject or interrupt",
            ));
        }
    };
    let session = session_for(&state, &caller, path.into_inner()).await?;
    // Keyed as a thread's send is: a repeat answers the first turn.
    let idempotency = key.map(|key| {
        crate::api::idempotency::send_key(
            session.thread_id,
            (session.org_id, &caller.user_id()),
            &key,
            &body,
            None,
        )
    });
    let sent = state
        .code_sessions
        .send(&session, body.content, (if_busy, idempotency))
        .await
        .map_err(session_error)?;
    Ok(HttpResponse::Accepted().json(SessionSent {
        session_id: session.id,
        turn: sent.turn,
        status: sent.status,
    }))
}

/// `?after=` of the events.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The last event id seen (`T.N`), for clients that cannot set
    /// `Last-Event-ID`.
    after: Option<String>,
}

/// `GET /api/code-sessions/{id}/events`: the session thread's `follow`
/// stream (`watching`, every turn, `turn_gap`), resumable, with the
/// status changes made outside a turn (id-less `session_status`); it ends
/// after `archived`, and an archived session's stream is that alone.
#[utoipa::path(get, path = "/api/code-sessions/{code_session_id}/events", tag = "code sessions", operation_id = "code_sessions_events", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id"), EventsQuery, ("Last-Event-ID" = Option<String>, Header, description = "The last event id seen (`T.N`)")), responses((status = 200, description = "Every turn's events as Server-Sent Events", content_type = "text/event-stream", body = confer_actors::ThreadEvent)))]
pub async fn events(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
    query: web::Query<EventsQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let session = session_for(&state, &caller, path.into_inner()).await?;
    if session.status == SessionStatus::Archived {
        // Its stream closed after `archived`: a new one is only that.
        return Ok(crate::api::sse::finished(
            &[crate::code::prepare::status_event(&session)],
            &Audience::Full,
        ));
    }
    let query = StreamQuery {
        after: query.into_inner().after,
        follow: true,
    };
    let after = streams::resume_point(&request, &query)?;
    streams::open(
        &state,
        session.org_id,
        session.thread_id,
        after,
        true,
        Audience::Full,
    )
    .await
}

/// `POST /api/code-sessions/{id}/cancel` body (optional).
#[derive(Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelSession {
    /// Also drop the queued messages.
    #[serde(default)]
    queued: bool,
}

/// `{ok, cancelled}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Cancelled {
    ok: bool,
    /// Whether a turn was running.
    cancelled: bool,
}

/// `POST /api/code-sessions/{id}/cancel`: the running turn stops (its
/// command killed); the workspace stays.
#[utoipa::path(post, path = "/api/code-sessions/{code_session_id}/cancel", tag = "code sessions", operation_id = "code_sessions_cancel", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id")), request_body = Option<CancelSession>, responses((status = 200, description = "Stopped", body = Cancelled), (status = 409, description = "The session is archived", body = crate::error::ErrorBody<'static>)))]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: CancelSession = if body.iter().all(u8::is_ascii_whitespace) {
        CancelSession::default()
    } else {
        crate::api::extract::parse_json(&body)?
    };
    let session = session_for(&state, &caller, path.into_inner()).await?;
    let cancelled = state
        .code_sessions
        .cancel(&session, body.queued)
        .await
        .map_err(session_error)?;
    Ok(HttpResponse::Ok().json(Cancelled {
        ok: true,
        cancelled,
    }))
}

/// `POST /api/code-sessions/{id}/archive`: turns stopped, the diff
/// stored, the sandbox destroyed; a repeat answers the session.
#[utoipa::path(post, path = "/api/code-sessions/{code_session_id}/archive", tag = "code sessions", operation_id = "code_sessions_archive", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id")), responses((status = 200, description = "Archived", body = SessionView)))]
pub async fn archive(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
) -> Result<HttpResponse, ApiError> {
    let session = session_for(&state, &caller, path.into_inner()).await?;
    let archived = state
        .code_sessions
        .archive(&session)
        .await
        .map_err(session_error)?;
    Ok(HttpResponse::Ok().json(SessionView::from(archived)))
}

/// A session's diff.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DiffView {
    #[schema(value_type = uuid::Uuid)]
    session_id: CodeSessionId,
    base_commit: Option<String>,
    diff: String,
    files: Vec<DiffFile>,
    truncated: bool,
    computed_at: Option<DateTime<Utc>>,
    /// `live` (computed now in the sandbox) or `stored`.
    source: &'static str,
}

/// `GET /api/code-sessions/{id}/diff`
#[utoipa::path(get, path = "/api/code-sessions/{code_session_id}/diff", tag = "code sessions", operation_id = "code_sessions_diff", security(("bearer" = [])), params(("code_session_id" = uuid::Uuid, Path, description = "The session's id")), responses((status = 200, description = "The changes against the base commit", body = DiffView)))]
pub async fn diff(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<CodeSessionId>,
) -> Result<HttpResponse, ApiError> {
    let session = session_for(&state, &caller, path.into_inner()).await?;
    let read = state.code_sessions.diff(&session).await;
    let diff = read
        .diff
        .unwrap_or_else(|| crate::code::sessions::SessionDiff {
            diff: String::new(),
            files: Vec::new(),
            truncated: false,
            computed_at: session.updated_at,
        });
    Ok(HttpResponse::Ok().json(DiffView {
        session_id: session.id,
        base_commit: session.base_commit,
        diff: diff.diff,
        files: diff.files,
        truncated: diff.truncated,
        computed_at: Some(diff.computed_at),
        source: read.source,
    }))
}
