//! `GET /api/runners/{id}/runs/{runId}/events` (`runners.md` Runs §6): the
//! run's thread followed as `streams.md`'s follow stream, opened by
//! `watching` and `run` (the Run), with `run_status` frames: inside a
//! turn, after its frames and before its `done` (the relay holds a run
//! turn's `done` until the worker has settled that turn); outside one,
//! without an id, as the run changes. It closes after a terminal status.
//! The relay runs on a task of its own and reads the frame log; the turn
//! never waits for it.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;
use confer_actors::{FrameId, ThreadEvent};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::runs::{RunPath, find_run};
use crate::api::sse::{self, KEEP_ALIVE_LINE};
use crate::api::streams::{StreamQuery, resume_point};
use crate::auth::Member;
use crate::error::{ApiError, TurnError};
use crate::runners::{RunError, RunRecord};
use crate::state::AppState;

/// Encoded events buffered for a slow client before the relay waits.
const BUFFERED: usize = 32;

/// A `run_status` frame's data.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunStatusEvent<'a> {
    status: &'static str,
    status_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a RunError>,
}

fn run_status(run: &RunRecord) -> Bytes {
    let mut out = bytes::BytesMut::with_capacity(128);
    sse::encode_data(
        &mut out,
        None,
        "run_status",
        &RunStatusEvent {
            status: run.status.as_str(),
            status_reason: run.status_reason.as_deref(),
            limit: run.limit.as_deref(),
            output: run.output.as_ref(),
            error: run.error.as_ref(),
        },
    );
    out.freeze()
}

/// `GET …/runs/{runId}/events[?after=T.N]`.
#[utoipa::path(get, path = "/api/runners/{runner_id}/runs/{run_id}/events", tag = "runners", operation_id = "runs_events", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("run_id" = uuid::Uuid, Path, description = "The run's id"), ("Last-Event-ID" = Option<String>, Header, description = "The last event id seen (`T.N`)")), responses((status = 200, description = "`watching`, `run`, then the run's turns' frames with `run_status` frames, as Server-Sent Events", content_type = "text/event-stream")))]
pub async fn stream(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunPath>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = resume_point(&request, &query)?;
    // Subscribed before the run is read: no change falls in between.
    let changes = state.runs.subscribe();
    let run = find_run(&state, caller.org_id, &path).await?;
    open(&state, run, changes, after, Audience::Member).await
}

/// Who reads a run's events.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Audience {
    /// Every frame, opened by `watching` and `run`.
    Member,
    /// A button page's visitor (`runners.md` "Button page"): only
    /// `token`, `run_status`, `error` and `done`, opened by the run's
    /// current `run_status`; never a tool event.
    Public,
}

impl Audience {
    fn passes(self, event: &ThreadEvent) -> bool {
        self == Self::Member
            || matches!(
                event,
                ThreadEvent::Token { .. } | ThreadEvent::Error { .. } | ThreadEvent::Done(_)
            )
    }
}

/// The events stream of `run`, read from the frame log after `after` by a
/// relay task of its own. `changes` was subscribed before `run` was read.
pub(super) async fn open(
    state: &AppState,
    run: RunRecord,
    changes: broadcast::Receiver<Arc<RunRecord>>,
    after: Option<FrameId>,
    audience: Audience,
) -> Result<HttpResponse, ApiError> {
    let log = state
        .runtime
        .frames(run.org_id, run.thread_id)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let now = log.turns_now();
    let reader = log.follow(after).map_err(|_| TurnError::TooManyReaders)?;
    let first = match audience {
        Audience::Member => {
            let mut first = bytes::BytesMut::with_capacity(512);
            first.extend_from_slice(&sse::encode(
                Some(FrameId { turn: 0, n: 0 }),
                &ThreadEvent::Watching {
                    thread_id: run.thread_id,
                    running_turn: now.running,
                    last_turn: now.last,
                },
            ));
            sse::encode_data(&mut first, None, "run", &run.run);
            first.freeze()
        }
        Audience::Public => run_status(&run),
    };
    let (tx, rx) = mpsc::channel::<Bytes>(BUFFERED);
    let keep_alive = state.settings.keep_alive();
    tokio::spawn(relay(
        reader,
        Changes {
            changes,
            store: state.store.clone(),
        },
        (run, audience),
        first,
        tx,
        keep_alive,
    ));
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|bytes| (Ok::<_, std::convert::Infallible>(bytes), rx))
    });
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}

/// The latest known state of the run, and whether it settled `turn`.
struct Latest {
    run: Arc<RunRecord>,
}

impl Latest {
    fn settled(&self, turn: u64) -> bool {
        self.run.progress.settled_turn >= turn || self.run.status.is_terminal()
    }
}

/// The worker's run changes, and the store to read the run from when the
/// stream fell behind them.
struct Changes {
    changes: broadcast::Receiver<Arc<RunRecord>>,
    store: crate::store::Store,
}

async fn relay(
    mut reader: confer_actors::FrameReader,
    Changes { mut changes, store }: Changes,
    (run, audience): (RunRecord, Audience),
    first: Bytes,
    tx: mpsc::Sender<Bytes>,
    keep_alive: std::time::Duration,
) {
    let id = run.id;
    let mut told = run.status;
    let mut latest = Latest { run: Arc::new(run) };
    if tx.send(first).await.is_err() || latest.run.status.is_terminal() {
        return;
    }
    let mut in_turn = false;
    // A run turn's `done`, held until the worker settles its turn.
    let mut held: Option<(u64, Bytes)> = None;
    loop {
        if let Some((turn, done)) = &held
            && latest.settled(*turn)
        {
            let status = run_status(&latest.run);
            told = latest.run.status;
            if tx.send(status).await.is_err() || tx.send(done.clone()).await.is_err() {
                return;
            }
            held = None;
            in_turn = false;
            if told.is_terminal() {
                return;
            }
        }
        tokio::select! {
            frame = reader.next(), if held.is_none() => {
                let Some(frame) = frame else { return };
                let bytes = sse::encode(frame.id, &frame.event);
                match (&frame.event, frame.id) {
                    (ThreadEvent::Done(_), Some(at)) => held = Some((at.turn, bytes)),
                    (event, _) => {
                        if matches!(event, ThreadEvent::Meta(_)) {
                            in_turn = true;
                        }
                        if audience.passes(event) && tx.send(bytes).await.is_err() {
                            return;
                        }
                    }
                }
            }
            change = changes.recv() => {
                match change {
                    Ok(run) if run.id == id => latest = Latest { run },
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Changes were missed: the store has the run as
                        // it is now.
                        let org = latest.run.org_id;
                        match store.run(move |s| s.run(org, id)).await {
                            Ok(Some(run)) => latest = Latest { run: Arc::new(run) },
                            _ => continue,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
                if !in_turn && held.is_none() && latest.run.status != told {
                    told = latest.run.status;
                    if tx.send(run_status(&latest.run)).await.is_err() || told.is_terminal() {
                        return;
                    }
                }
            }
            () = tokio::time::sleep(keep_alive) => {
                if tx.send(Bytes::from_static(KEEP_ALIVE_LINE)).await.is_err() {
                    return;
                }
            }
        }
    }
}
