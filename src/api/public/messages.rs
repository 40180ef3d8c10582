//! A visitor's messages, streams and stops: `…/threads/{id}/messages`,
//! `…/stream` and `…/stop` under `/api/public/chat/{slug}` (`publishing.md`
//! "Visitors" rules 4, 6, 8, 9). The same turns as `/api/threads`, with
//! the public chat's rules: only `content` and `ifBusy` may be sent, the
//! limits are counted and the day's token budget reserved before anything
//! happens, each call's output is capped, the turn runs only the
//! publication's public tools, and its stream shows only public events.

use std::sync::Arc;
use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::{IfBusy, PublicTurn, ThreadId, TurnRequest, VendorOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::extract::{JsonBody, parse_json};
use crate::api::idempotency;
use crate::api::messages::{self, HistoryQuery, IfBusyBody};
use crate::api::sse::Audience;
use crate::api::stop::StopBody;
use crate::api::streams::{self, StreamQuery};
use crate::auth::access;
use crate::auth::visitor::Visitor;
use crate::error::ApiError;
use crate::publishing::{budget, shared_turns};
use crate::state::AppState;
use crate::store::keys;

/// `POST …/messages` body: nothing but these two.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorSend {
    pub content: String,
    pub if_busy: Option<IfBusyBody>,
}

/// The fields a visitor may send.
const FIELDS: [&str; 2] = ["content", "ifBusy"];

/// The send in `body`: any other field is 422 naming it, content over the
/// publication's `maxMessageChars` (Unicode scalars) too.
fn visitor_send(body: Map<String, Value>, max_chars: u32) -> Result<VisitorSend, ApiError> {
    if let Some(other) = body.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(ApiError::invalid(other, "not accepted from a public chat"));
    }
    let send: VisitorSend = parse_json(Value::Object(body).to_string().as_bytes())?;
    if send.content.chars().count() > max_chars as usize {
        return Err(ApiError::invalid(
            "content",
            format!("longer than this chat's {max_chars} characters"),
        ));
    }
    Ok(send)
}

/// `GET …/threads/{id}/messages`: as `/api/threads/{id}/messages`.
#[utoipa::path(get, path = "/api/public/chat/{slug}/threads/{thread_id}/messages", tag = "publishing", operation_id = "public_messages_history", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id"), HistoryQuery), responses((status = 200, description = "A page of the thread's messages, oldest first", body = crate::api::messages::HistoryPage)))]
pub async fn history(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    query: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    messages::history_page(&state, thread.id, &query).await
}

/// `POST …/threads/{id}/messages`: the answer as SSE, public events only.
#[utoipa::path(post, path = "/api/public/chat/{slug}/threads/{thread_id}/messages", tag = "publishing", operation_id = "public_messages_send", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id"), ("Idempotency-Key" = Option<String>, Header, description = "Per visitor: a retry answers the first send's outcome")), request_body = VisitorSend, responses((status = 200, description = "The answer as Server-Sent Events (public events only)", content_type = "text/event-stream", body = confer_actors::ThreadEvent), (status = 422, description = "A field other than `content` and `ifBusy`, or content over `max_message_chars`", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED` (visitor, IP, or the chat's concurrent turns) or `BUDGET_EXHAUSTED`; see `Retry-After`", body = crate::error::ErrorBody<'static>)))]
pub async fn send(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    body: JsonBody<Map<String, Value>>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let accepted = Instant::now();
    let publication = visitor.publication.clone();
    let limits = publication.limits.clone();
    let body = visitor_send(body.into_inner(), limits.max_message_chars)?;
    let key = idempotency::from_header(&http)?;
    let (org, user) = (publication.org_id, visitor.user_id.clone());
    let now = Utc::now();
    let (id, today) = (publication.id, keys::day_number(now));
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let records = state.store.publications();
    let (agent, participant, spent, last_input) = tokio::try_join!(
        state.store.agents().agent(org, thread.agent_id),
        access::participant(&state, thread.id, &user),
        records.publication_tokens(id, today),
        records.last_input_tokens(org, thread.id),
    )?;
    // Before any effect: the quotas, then a running-turn slot, which the
    // turn holds to its end.
    visitor.count_send(&state)?;
    let slot =
        state
            .public
            .limits
            .admit_turn(publication.id, thread.id, limits.max_concurrent_turns)?;
    let cost = budget::send_cost(
        last_input,
        body.content.chars().count(),
        limits.max_output_tokens,
    );
    let reservation = state.public.reservations.reserve(
        publication.id,
        cost,
        spent,
        limits.daily_token_budget,
        now,
    )?;
    // On a cluster, the same limits counted over every node's turns.
    let shared = match (&state.cluster, state.store.postgres()) {
        (Some(cluster), Some(pg)) => {
            let node = cluster.id().0;
            let turn = (cost, spent);
            Some(shared_turns::admit(pg, node, publication.id, &limits, turn, now).await?)
        }
        _ => None,
    };
    let sender_name = participant
        .and_then(|p| p.display_name)
        .or_else(|| visitor.name.clone());
    let idempotency = key.map(|key| {
        idempotency::send_key(
            thread.id,
            (org, &visitor.user_id),
            &key,
            &body,
            Some(&visitor.user_id),
        )
    });
    let if_busy = body.if_busy.map_or(IfBusy::Queue, IfBusy::from);
    let request = TurnRequest {
        content: body.content,
        sender_name,
        sender_id: Some(visitor.user_id.clone()),
        metadata: visitor.metadata(),
        user_id: visitor.user_id.clone(),
        // A visitor never uses a person's OAuth tokens (`per_user` MCP
        // tools answer "authorization required").
        end_user: false,
        accepted: Some(accepted),
        idempotency,
        if_busy: Some(if_busy.as_str()),
        public: Some(Arc::new(PublicTurn {
            publication: Some(publication.id),
            tools: publication.public_tools.clone(),
            hold: Box::new((slot, reservation, shared)),
        })),
        options: Arc::new(VendorOptions {
            max_output_tokens: Some(limits.max_output_tokens),
            ..VendorOptions::default()
        }),
        ..TurnRequest::default()
    };
    let until = state.public.closer(publication.id);
    messages::answer(
        &state,
        org,
        thread.id,
        request,
        if_busy,
        agent,
        Audience::Public(until),
    )
    .await
}

/// `GET …/threads/{id}/stream`: as `/api/threads/{id}/stream`, public
/// events only.
#[utoipa::path(get, path = "/api/public/chat/{slug}/threads/{thread_id}/stream", tag = "publishing", operation_id = "public_stream", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id"), StreamQuery, ("Last-Event-ID" = Option<String>, Header, description = "The last event id seen (`T.N`)")), responses((status = 200, description = "The turn's remaining public events (or, with `follow`, every turn's)", content_type = "text/event-stream", body = confer_actors::ThreadEvent), (status = 204, description = "No turn to reattach to"), (status = 409, description = "`STREAM_GAP`", body = crate::error::ErrorBody<'static>)))]
pub async fn stream(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = streams::resume_point(&request, &query)?;
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let org = visitor.publication.org_id;
    let until = state.public.closer(visitor.publication.id);
    streams::open(
        &state,
        org,
        thread.id,
        after,
        query.follow,
        Audience::Public(until),
    )
    .await
}

/// `{ok, stopped}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorStopped {
    ok: bool,
    stopped: bool,
}

/// `POST …/threads/{id}/stop`: as `/api/threads/{id}/stop`.
#[utoipa::path(post, path = "/api/public/chat/{slug}/threads/{thread_id}/stop", tag = "publishing", operation_id = "public_stop", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = Option<StopBody>, responses((status = 200, description = "`stopped` says whether an answer was running", body = VisitorStopped)))]
pub async fn stop(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body = StopBody::parse(&body)?;
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let stopped = state
        .runtime
        .stop(thread.id, body.queued)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(HttpResponse::Ok().json(VisitorStopped { ok: true, stopped }))
}
