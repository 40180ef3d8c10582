//! `/api/threads/{id}/stop`: ends a thread's running answer, and with
//! `{"queued": true}` its queued sends.

use actix_web::{HttpResponse, web};
use confer_actors::ThreadId;
use serde::{Deserialize, Serialize};

use super::extract::parse_json;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::state::AppState;

/// `{"ok": true, "stopped": bool}`.
#[derive(Serialize, utoipa::ToSchema)]
struct Stopped {
    ok: bool,
    stopped: bool,
}

/// `POST /api/threads/{id}/stop` body (optional).
#[derive(Default, Deserialize, utoipa::ToSchema)]
pub struct StopBody {
    /// Also drop the queued sends.
    #[serde(default)]
    pub queued: bool,
}

impl StopBody {
    /// The body of a stop: empty is `{}`.
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            Ok(Self::default())
        } else {
            parse_json(body)
        }
    }
}

/// `POST /api/threads/{id}/stop`: ends the running answer at once (and, with
/// `{"queued": true}`, the queued sends).
#[utoipa::path(post, path = "/api/threads/{thread_id}/stop", tag = "threads", operation_id = "messages_stop", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = Option<StopBody>, responses((status = 200, description = "`stopped` says whether an answer was running", body = Stopped)))]
pub async fn stop(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body = StopBody::parse(&body)?;
    let thread = access::stoppable_thread(&state, &caller, path.into_inner()).await?;
    let stopped = state
        .runtime
        .stop(thread.id, body.queued)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(HttpResponse::Ok().json(Stopped { ok: true, stopped }))
}
