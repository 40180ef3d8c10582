//! `/api/threads/{id}/messages`: a thread's history, and its answers
//! streamed as SSE from the thread's actor (stopping one: `stop`).

use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, web};
use confer_actors::citations::Citation;
use confer_actors::{
    Admission, Agent, IfBusy, Message, Metadata, OrgId, Role, ThreadId, ToolDefinition, ToolResult,
    TurnRequest,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::JsonBody;
use super::sse::{self, Audience, Preamble};
use super::threads::Overlay;
use super::vendor_options::{self, AnthropicOverrides, OpenAiOverrides};
use super::{idempotency, replayed};
use super::{page_limit, timestamp};
use crate::auth::access::ThreadRight;
use crate::auth::{Caller, access};
use crate::error::{ApiError, TurnError};
use crate::state::AppState;

const DEFAULT_PAGE: u32 = 100;
const MAX_PAGE: u32 = 200;

/// A listed message.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MessageView {
    id: String,
    role: Role,
    content: String,
    sender_name: Option<String>,
    created_at: String,
    /// The knowledge sources the answer cited (`[]` if none); they outlive
    /// the documents.
    citations: Vec<CitationView>,
}

/// A stored citation, as history shows it (snake case, `knowledge.md` §4).
#[derive(Serialize, utoipa::ToSchema)]
pub struct CitationView {
    n: u32,
    doc_id: String,
    title: String,
    source_ref: String,
    page: Option<u32>,
    chunk_id: String,
    quote: String,
    start: u64,
    end: u64,
}

impl From<Citation> for CitationView {
    fn from(c: Citation) -> Self {
        Self {
            n: c.n,
            doc_id: c.doc_id,
            title: c.title,
            source_ref: c.source_ref,
            page: c.page,
            chunk_id: c.chunk_id,
            quote: c.quote,
            start: c.start,
            end: c.end,
        }
    }
}

impl From<Message> for MessageView {
    fn from(message: Message) -> Self {
        Self {
            id: message.id.to_string(),
            role: message.role,
            content: message.content,
            sender_name: message.sender_name,
            created_at: timestamp(message.created_at),
            citations: message.citations.into_iter().map(Into::into).collect(),
        }
    }
}

/// `GET .../messages` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    limit: Option<u32>,
    offset: Option<u64>,
}

/// `GET .../messages` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct HistoryPage {
    messages: Vec<MessageView>,
    total: u64,
}

/// A client's answer to a tool call: `{toolCallId, output}`.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultBody {
    pub tool_call_id: String,
    /// A string, or any JSON value (sent to the model as its JSON text).
    pub output: Value,
}

impl From<ToolResultBody> for ToolResult {
    fn from(body: ToolResultBody) -> Self {
        let output = match body.output {
            Value::String(text) => text,
            other => other.to_string(),
        };
        Self {
            tool_call_id: body.tool_call_id,
            output,
        }
    }
}

/// `POST .../messages` body (serialized only to hash a keyed send).
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendMessage {
    pub content: String,
    pub tools: Option<Vec<ToolDefinition>>,
    pub tool_results: Option<Vec<ToolResultBody>>,
    pub model_override: Option<String>,
    pub sender_name: Option<String>,
    pub sender_id: Option<String>,
    pub tool_profile: Option<String>,
    pub system_prompt_overlay: Option<Overlay>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub metadata: Option<Metadata>,
    /// What to do when the thread is busy (`queue` by default).
    pub if_busy: Option<IfBusyBody>,
    /// Options for vendor A models: thinking, fallback models, caching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anthropic_overrides: Option<AnthropicOverrides>,
    /// Options for vendor B models: the prompt-cache key and end-user
    /// identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openai_overrides: Option<OpenAiOverrides>,
    /// Relay the model's thinking as `thinking` events (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_thinking: Option<bool>,
    /// Stream a computer command's output as `tool_output` events while
    /// it runs (default false; `computer.md` §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_tool_output: Option<bool>,
}

/// `ifBusy` of a send (`streams.md`).
#[derive(Clone, Copy, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IfBusyBody {
    Queue,
    Reject,
    Interrupt,
}

impl From<IfBusyBody> for IfBusy {
    fn from(body: IfBusyBody) -> Self {
        match body {
            IfBusyBody::Queue => Self::Queue,
            IfBusyBody::Reject => Self::Reject,
            IfBusyBody::Interrupt => Self::Interrupt,
        }
    }
}

/// `GET /api/threads/{id}/messages?limit=&offset=`: oldest first.
#[utoipa::path(get, path = "/api/threads/{thread_id}/messages", tag = "threads", operation_id = "messages_history", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id"), HistoryQuery), responses((status = 200, description = "A page of the thread's messages, oldest first", body = HistoryPage)))]
pub async fn history(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    query: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    history_page(&state, thread.id, &query).await
}

/// A page of `thread`'s messages, once the caller may read it.
pub(super) async fn history_page(
    state: &AppState,
    thread: ThreadId,
    query: &HistoryQuery,
) -> Result<HttpResponse, ApiError> {
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let offset = query.offset.unwrap_or(0);
    let (messages, total) = state
        .store
        .threads()
        .messages(thread, offset, limit)
        .await?;
    Ok(HttpResponse::Ok().json(HistoryPage {
        messages: messages.into_iter().map(MessageView::from).collect(),
        total,
    }))
}

/// `POST /api/threads/{id}/messages`: validation first (JSON errors), then
/// the answer as an SSE stream relayed from the thread's actor. A client that
/// disconnects does not stop the turn: the actor finishes and stores it.
#[utoipa::path(post, path = "/api/threads/{thread_id}/messages", tag = "threads", operation_id = "messages_send", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id"), ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry of the same request answer the first one's outcome")), request_body = SendMessage, responses((status = 200, description = "The answer as Server-Sent Events (see the description at the top; each `data:` is one `ThreadEvent`)", content_type = "text/event-stream", body = confer_actors::ThreadEvent), (status = 409, description = "`THREAD_BUSY` (`ifBusy: reject`) or `CONFLICT` (the agent was deleted)", body = crate::error::ErrorBody<'static>), (status = 422, description = "`VALIDATION_ERROR` (the detail names the field) or `IDEMPOTENCY_KEY_REUSED`", body = crate::error::ErrorBody<'static>), (status = 429, description = "`THREAD_QUEUE_FULL`, `ORG_QUEUE_FULL` or `RATE_LIMITED`; see `Retry-After`", body = crate::error::ErrorBody<'static>), (status = 503, description = "`SHUTTING_DOWN` or `STORE_UNAVAILABLE`", body = crate::error::ErrorBody<'static>)))]
pub async fn send(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: JsonBody<SendMessage>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let accepted = Instant::now();
    let key = idempotency::from_header(&http)?;
    let body = body.into_inner();
    let options = vendor_options::validated(
        body.anthropic_overrides.as_ref(),
        body.openai_overrides.as_ref(),
        body.stream_thinking,
    )?;
    let org = caller.org_id;
    // The agent is read with the thread, for the send's rules: the actor
    // decides them when it admits the send (`confer_actors::send_rules`).
    let (thread, agent) = access::changeable_thread_with_agent(
        &state,
        &caller,
        path.into_inner(),
        ThreadRight::Change,
    )
    .await?;
    // A JWT user always speaks as itself, and only its own key is resolved.
    let (sender_id, sender_name, user_id) = match caller.jwt_user() {
        Some(user) => (
            Some(user.sub.clone()),
            body.sender_name.clone().or(user.name.clone()),
            user.sub.clone(),
        ),
        None => {
            let user_id = body.sender_id.clone().unwrap_or_else(|| caller.user_id());
            (body.sender_id.clone(), body.sender_name.clone(), user_id)
        }
    };
    // Only a person's turn uses their OAuth tokens: a JWT user's, or a
    // key's that may act for users (security.md) naming one.
    let end_user = caller.jwt_user().is_some()
        || (caller.api_key().is_some_and(|k| k.act_as_users) && body.sender_id.is_some());
    let idempotency = key.map(|key| {
        idempotency::send_key(
            thread.id,
            (org, &caller.user_id()),
            &key,
            &body,
            sender_id.as_deref(),
        )
    });
    let if_busy = body.if_busy.map_or(IfBusy::Queue, IfBusy::from);
    let request = TurnRequest {
        content: body.content,
        sender_name,
        sender_id,
        model_override: body.model_override,
        system_prompt_overlay: body.system_prompt_overlay.map(Overlay::joined),
        metadata: body.metadata.unwrap_or_default(),
        tools: body.tools.unwrap_or_default(),
        tool_profile: body.tool_profile,
        tool_results: body
            .tool_results
            .unwrap_or_default()
            .into_iter()
            .map(ToolResult::from)
            .collect(),
        user_id,
        end_user,
        accepted: Some(accepted),
        idempotency,
        options: std::sync::Arc::new(options),
        if_busy: Some(if_busy.as_str()),
        // A malformed `traceparent` is ignored, as W3C Trace Context asks.
        otel_trace_id: http
            .headers()
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .and_then(confer_actors::trace::traceparent_trace_id),
        public: None,
        continuation: false,
        delegation: None,
        run: None,
        stream_tool_output: body.stream_tool_output.unwrap_or(false),
        host: None,
        max_tool_steps: None,
        code_session: None,
    };
    // The last check before the send has any effect: a refused send leaves
    // no message, turn or usage record.
    if let Some(user) = caller.jwt_user() {
        let shared = state.store.postgres();
        state.limits.user_send(shared, org, &user.sub).await?;
    }
    answer(
        &state,
        org,
        thread.id,
        request,
        if_busy,
        agent,
        Audience::Full,
    )
    .await
}

/// Hands a send to its thread's actor and answers with the turn's stream
/// for `audience` (or a refusal, or a repeated keyed send's outcome).
pub(super) async fn answer(
    state: &AppState,
    org: OrgId,
    thread: ThreadId,
    request: TurnRequest,
    if_busy: IfBusy,
    agent: Option<Agent>,
    audience: Audience,
) -> Result<HttpResponse, ApiError> {
    let admission = state
        .runtime
        .post(org, thread, request, if_busy, agent)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let keep_alive = state.settings.keep_alive();
    match admission {
        Admission::Accepted { reader, .. } => Ok(sse::response(
            Preamble(None),
            reader,
            keep_alive,
            false,
            audience.clone(),
        )),
        Admission::Duplicate {
            reader: Some(reader),
            ..
        } => Ok(sse::response(
            Preamble(None),
            reader,
            keep_alive,
            true,
            audience.clone(),
        )),
        Admission::Duplicate {
            turn,
            reader: None,
            record,
        } => {
            let frames = replayed::rebuilt_turn(state, thread, turn, record.map(|r| *r)).await?;
            Ok(sse::replay(&frames, &audience))
        }
        Admission::Refused(refusal) => Err(TurnError::Refused(refusal).into()),
    }
}
