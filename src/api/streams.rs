//! `GET /api/threads/{id}/stream`: reattach to a turn's frames after a lost
//! connection, or watch every turn of the thread (`streams.md`). Same access
//! rule as reading the thread's messages.

use actix_web::{HttpRequest, HttpResponse, web};
use confer_actors::{FrameId, OrgId, Position, ThreadEvent, ThreadId};
use serde::Deserialize;

use super::sse::{self, Audience, Preamble};
use crate::auth::{Caller, access};
use crate::cluster::reattach::{self, Missed};
use crate::error::{ApiError, TurnError};
use crate::state::AppState;

/// `GET .../stream` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// The last event id seen, for clients that cannot set `Last-Event-ID`.
    pub(super) after: Option<String>,
    /// Watch every turn until the client leaves.
    #[serde(default)]
    pub(super) follow: bool,
}

/// The position to resume after: `Last-Event-ID`, else `?after=` (`T.N`).
pub(super) fn resume_point(
    request: &HttpRequest,
    query: &StreamQuery,
) -> Result<Option<FrameId>, ApiError> {
    let (field, text) = match request.headers().get("last-event-id") {
        Some(value) => (
            "Last-Event-ID",
            value
                .to_str()
                .map_err(|_| ApiError::BadRequest("Last-Event-ID: expected T.N".into()))?
                .to_owned(),
        ),
        None => match &query.after {
            Some(after) => ("after", after.clone()),
            None => return Ok(None),
        },
    };
    text.trim()
        .parse::<FrameId>()
        .map(Some)
        .map_err(|()| ApiError::BadRequest(format!("{field}: expected T.N (e.g. 7.3)")))
}

/// `GET /api/threads/{id}/stream[?after=T.N][&follow=true]`.
#[utoipa::path(get, path = "/api/threads/{thread_id}/stream", tag = "threads", operation_id = "streams_stream", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id"), StreamQuery, ("Last-Event-ID" = Option<String>, Header, description = "The last event id seen (`T.N`): the stream resumes after it")), responses((status = 200, description = "The turn's remaining events (or, with `follow`, every turn's) as Server-Sent Events", content_type = "text/event-stream", body = confer_actors::ThreadEvent), (status = 204, description = "No turn to reattach to"), (status = 409, description = "`STREAM_GAP`: the frames after that id are no longer kept", body = crate::error::ErrorBody<'static>), (status = 429, description = "`TOO_MANY_READERS` or `RATE_LIMITED`", body = crate::error::ErrorBody<'static>)))]
pub async fn stream(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = resume_point(&request, &query)?;
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    open(
        &state,
        caller.org_id,
        thread.id,
        after,
        query.follow,
        Audience::Full,
    )
    .await
}

/// `…/stream` once the caller may read the thread: a `follow` stream, a
/// reattach after `after`, or 204 when no turn is kept.
pub(super) async fn open(
    state: &AppState,
    org: OrgId,
    thread: ThreadId,
    after: Option<FrameId>,
    follow: bool,
    audience: Audience,
) -> Result<HttpResponse, ApiError> {
    if state.runtime.is_closing() {
        return Err(TurnError::ShuttingDown.into());
    }
    let log = state
        .runtime
        .frames(org, thread)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let missed = match after {
        Some(at) if log.position(at) != Position::Available => elsewhere(state, thread, at).await?,
        _ => None,
    };
    if follow {
        let now = log.turns_now();
        // Past a turn that failed elsewhere, or that the reader read to
        // its end, the watcher goes on from the turns to come, told what
        // it missed; past a gap, the reader says `turn_gap` itself and
        // goes on from the oldest turn still kept after it.
        let from = match missed {
            None | Some(Missed::Gap) => after,
            Some(Missed::Failed(_) | Missed::Nothing) => None,
        };
        let reader = log.follow(from).map_err(|_| TurnError::TooManyReaders)?;
        let watching = ThreadEvent::Watching {
            thread_id: thread,
            running_turn: now.running,
            last_turn: now.last,
        };
        let mut preamble = vec![(Some(FrameId { turn: 0, n: 0 }), watching)];
        if let Some(Missed::Failed(events)) = missed {
            preamble.extend(events.map(|e| (None, e)));
        }
        return Ok(sse::response(
            sse::preamble(&preamble, &audience),
            reader,
            state.settings.keep_alive(),
            false,
            audience,
        ));
    }
    match missed {
        Some(Missed::Failed(events)) => return Ok(sse::finished(&events, &audience)),
        Some(Missed::Nothing) => return Ok(HttpResponse::NoContent().finish()),
        Some(Missed::Gap) => return Err(TurnError::StreamGap.into()),
        None => {}
    }
    if let Some(at) = after {
        match log.position(at) {
            Position::Available => {}
            Position::Gone => return Err(TurnError::StreamGap.into()),
            Position::Future => {
                return Err(ApiError::BadRequest(format!(
                    "Last-Event-ID: {at} is after the thread's last event"
                )));
            }
        }
    }
    match log.reattach(after) {
        Err(_) => Err(TurnError::TooManyReaders.into()),
        Ok(None) => Ok(HttpResponse::NoContent().finish()),
        Ok(Some(reader)) => Ok(sse::response(
            Preamble(None),
            reader,
            state.settings.keep_alive(),
            false,
            audience,
        )),
    }
}

/// On a store several nodes share, what a reader resuming after `at`, a
/// frame this node holds no frames after, missed (`scale.md` §4): the
/// turn ran on another node, or before this node's restart. `None` on
/// sled, where the frame log alone decides.
async fn elsewhere(
    state: &AppState,
    thread: ThreadId,
    at: FrameId,
) -> Result<Option<Missed>, ApiError> {
    let Some(pg) = state.store.postgres() else {
        return Ok(None);
    };
    let row = pg
        .turn_state(thread, at.turn)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Some(reattach::missed(row, at)))
}
