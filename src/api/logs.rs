//! `/api/logs`: the turns' traces (`observability.md`), newest first, the
//! running ones (held in memory) with the stored ones. Admins and members
//! see the org's; an end user the turns it sent, or with `threadId` a
//! thread it may use (403 otherwise, as for the thread).

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, Span, ThreadId, Trace, TraceId, TraceStatus};
use serde::{Deserialize, Serialize};

use super::page_limit;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::traces::TraceQuery;
use crate::store::traces::TraceScope;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

/// `GET /api/logs` query; every filter is optional.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogsQuery {
    #[serde(rename = "agentId")]
    agent_id: Option<AgentId>,
    #[serde(rename = "threadId")]
    thread_id: Option<ThreadId>,
    /// A runner's run turns only.
    #[serde(rename = "runnerId")]
    #[param(value_type = Option<uuid::Uuid>)]
    runner_id: Option<confer_actors::RunnerId>,
    /// One run's turns only.
    #[serde(rename = "runId")]
    #[param(value_type = Option<uuid::Uuid>)]
    run_id: Option<confer_actors::RunId>,
    /// `running`, `ok`, `error` or `stopped`.
    status: Option<String>,
    /// A substring of the model or the error code.
    q: Option<String>,
    /// ISO 8601; traces started at or after it.
    since: Option<String>,
    /// ISO 8601; traces started before it.
    until: Option<String>,
    /// Default 50, at most 200.
    limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    cursor: Option<String>,
}

/// A page of traces.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TracePageView {
    traces: Vec<Trace>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

/// A trace with its spans.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TraceView {
    trace: Trace,
    /// In start order; none yet while the turn runs.
    spans: Vec<Span>,
    /// The traces of the turns its delegate calls ran (`agent-extras.md`
    /// §3), in call order.
    children: Vec<ChildTrace>,
}

/// A delegated turn's trace, as its parent's lists it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ChildTrace {
    #[schema(value_type = uuid::Uuid)]
    trace_id: TraceId,
    #[schema(value_type = uuid::Uuid)]
    thread_id: confer_actors::ThreadId,
    #[schema(value_type = uuid::Uuid)]
    agent_id: confer_actors::AgentId,
    status: confer_actors::TraceStatus,
}

fn time(field: &str, value: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    value
        .filter(|v| !v.is_empty())
        .map(|v| {
            DateTime::parse_from_rfc3339(v)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| ApiError::BadRequest(format!("{field}: expected an ISO 8601 time")))
        })
        .transpose()
}

/// `{started_at}|{id}` of a page's last trace.
fn cursor_of(at: DateTime<Utc>, id: TraceId) -> String {
    format!("{}|{id}", super::timestamp(at))
}

fn parse_cursor(cursor: Option<&str>) -> Result<Option<(DateTime<Utc>, TraceId)>, ApiError> {
    let Some(cursor) = cursor.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let bad = || ApiError::BadRequest("cursor: not a cursor of this listing".into());
    let (at, id) = cursor.split_once('|').ok_or_else(bad)?;
    let at = time("cursor", Some(at))
        .map_err(|_| bad())?
        .ok_or_else(bad)?;
    Ok(Some((at, id.parse().map_err(|_| bad())?)))
}

/// `GET /api/logs`: traces newest first, filtered; `nextCursor` is null at
/// the end. A page may come back short when the filters left most of the
/// 5,000 traces it may read behind (it then has a cursor).
#[utoipa::path(get, path = "/api/logs", tag = "observability", operation_id = "logs_list", security(("bearer" = [])), params(LogsQuery), responses((status = 200, description = "A page of traces, newest first", body = TracePageView), (status = 400, description = "A bad status, time or cursor", body = crate::error::ErrorBody<'static>), (status = 403, description = "An end user naming a thread it may not use", body = crate::error::ErrorBody<'static>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<LogsQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let status = query
        .status
        .as_deref()
        .map(|s| {
            TraceStatus::parse(s).ok_or_else(|| {
                ApiError::BadRequest("status: one of running, ok, error, stopped".into())
            })
        })
        .transpose()?;
    let since = time("since", query.since.as_deref())?;
    let until = time("until", query.until.as_deref())?;
    let before = parse_cursor(query.cursor.as_deref())?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    if let Some(thread) = query.thread_id {
        // The thread's org and, for an end user, its access (404 or 403).
        access::thread(&state, &caller, thread).await?;
    }
    let org = caller.org_id;
    let user = caller.user_id();
    let whole_org = caller.sees_whole_org();
    let agent = query.agent_id;
    let thread = query.thread_id;
    let filters = TraceQuery {
        agent,
        runner: query.runner_id,
        run: query.run_id,
        status,
        q: query.q.clone().filter(|q| !q.is_empty()),
        since,
        until,
        before,
        limit,
    };
    let in_scope = {
        let user = user.clone();
        move |t: &Trace| {
            t.org_id == org
                && thread.is_none_or(|id| t.thread_id == id)
                && (whole_org || thread.is_some() || t.user_id == user)
        }
    };
    let running = state
        .traces
        .matching(|t| in_scope(t) && filters.accepts(t) && filters.is_before(t));
    let scope = match (thread, whole_org, agent) {
        (Some(thread), _, _) => TraceScope::Thread(thread),
        (None, true, Some(agent)) => TraceScope::Agent(org, agent),
        (None, true, None) => TraceScope::Org(org),
        (None, false, _) => TraceScope::User(org, user.clone()),
    };
    let page = state.store.threads().traces(scope, filters.clone()).await?;
    // The running ones first in line; a stored copy (just ended) wins.
    let mut traces = page.traces;
    let more = page.next.is_some();
    let running: Vec<Trace> = running
        .into_iter()
        .filter(|r| !traces.iter().any(|t| t.id == r.id))
        .collect();
    traces.extend(running);
    traces.sort_by_key(|t| std::cmp::Reverse((t.started_at, t.id)));
    let cut = traces.len() > limit;
    traces.truncate(limit);
    let next_cursor = if more || cut {
        traces.last().map(|t| cursor_of(t.started_at, t.id))
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(TracePageView {
        traces,
        next_cursor,
    }))
}

/// `GET /api/logs/{traceId}`: one trace with its spans in start order. A
/// trace of another org is 404; an end user's of a thread it may not use, 403.
#[utoipa::path(get, path = "/api/logs/{trace_id}", tag = "observability", operation_id = "logs_get", security(("bearer" = [])), params(("trace_id" = String, Path, description = "The trace's id")), responses((status = 200, description = "The trace and its spans", body = TraceView), (status = 403, description = "An end user's trace of a thread it may not use", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such trace in the caller's org", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<TraceId>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let stored = state.store.threads().trace(id).await?;
    let (trace, mut spans) = match stored {
        Some(record) => (record.trace, record.spans),
        None => (
            state
                .traces
                .get(id)
                .ok_or_else(|| ApiError::not_found("trace"))?,
            Vec::new(),
        ),
    };
    if trace.org_id != caller.org_id {
        return Err(ApiError::not_found("trace"));
    }
    if !caller.sees_whole_org() {
        access::thread(&state, &caller, trace.thread_id).await?;
    }
    spans.sort_by_key(|s| s.started_at);
    let called: Vec<TraceId> = spans
        .iter()
        .filter_map(|s| s.attributes.child_trace_id)
        .collect();
    let mut children = Vec::with_capacity(called.len());
    for id in called {
        let found = match state.traces.get(id) {
            Some(running) => Some(running),
            None => state.store.threads().trace(id).await?.map(|r| r.trace),
        };
        children.extend(found.map(|t| ChildTrace {
            trace_id: t.id,
            thread_id: t.thread_id,
            agent_id: t.agent_id,
            status: t.status,
        }));
    }
    Ok(HttpResponse::Ok().json(TraceView {
        trace,
        spans,
        children,
    }))
}
