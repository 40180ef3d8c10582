//! `/api/threads/{id}/messages` and `/stop`: a thread's history and its
//! streamed answers. The stream itself arrives with the conversation runtime;
//! until then a valid send answers 501 after every check a send will make.

use actix_web::{HttpResponse, web};
use confer_actors::{Message, Metadata, Role, ThreadId, ThreadStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::JsonBody;
use super::threads::Overlay;
use super::{page_limit, timestamp};
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::state::AppState;

const DEFAULT_PAGE: u32 = 100;
const MAX_PAGE: u32 = 200;

/// A listed message.
#[derive(Serialize)]
pub struct MessageView {
    id: String,
    role: Role,
    content: String,
    sender_name: Option<String>,
    created_at: String,
}

impl From<Message> for MessageView {
    fn from(message: Message) -> Self {
        Self {
            id: message.id.to_string(),
            role: message.role,
            content: message.content,
            sender_name: message.sender_name,
            created_at: timestamp(message.created_at),
        }
    }
}

/// `GET .../messages` query.
#[derive(Deserialize)]
pub struct HistoryQuery {
    limit: Option<u32>,
    offset: Option<u64>,
}

/// `GET .../messages` answer.
#[derive(Serialize)]
pub struct HistoryPage {
    messages: Vec<MessageView>,
    total: u64,
}

/// `POST .../messages` body.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Fields are consumed by the conversation runtime.
pub struct SendMessage {
    pub content: String,
    pub tools: Option<Vec<Value>>,
    pub tool_results: Option<Vec<Value>>,
    pub model_override: Option<String>,
    pub sender_name: Option<String>,
    pub sender_id: Option<String>,
    pub tool_profile: Option<String>,
    pub system_prompt_overlay: Option<Overlay>,
    pub metadata: Option<Metadata>,
}

impl SendMessage {
    /// The rules of a send (422).
    fn validate(&self) -> Result<(), ApiError> {
        let answers_tools = self.tool_results.as_ref().is_some_and(|r| !r.is_empty());
        if self.content.trim().is_empty() && !answers_tools {
            return Err(ApiError::invalid("content", "must not be empty"));
        }
        if self
            .model_override
            .as_deref()
            .is_some_and(|m| m.trim().is_empty())
        {
            return Err(ApiError::invalid("modelOverride", "must not be empty"));
        }
        Ok(())
    }
}

/// `GET /api/threads/{id}/messages?limit=&offset=`: oldest first.
pub async fn history(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    query: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let offset = query.offset.unwrap_or(0);
    let (messages, total) = state
        .store
        .run(move |s| s.messages(thread.id, offset, limit))
        .await?;
    Ok(HttpResponse::Ok().json(HistoryPage {
        messages: messages.into_iter().map(MessageView::from).collect(),
        total,
    }))
}

/// `POST /api/threads/{id}/messages`
pub async fn send(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: JsonBody<SendMessage>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    body.validate()?;
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let agent = state
        .store
        .run(move |s| s.agent(org, thread.agent_id))
        .await?;
    if agent.is_none_or(|a| a.is_deleted()) {
        return Err(ApiError::Conflict("the thread's agent was deleted".into()));
    }
    Err(ApiError::NotImplemented(
        "streamed answers arrive with the conversation runtime".into(),
    ))
}

/// `POST /api/threads/{id}/stop`
pub async fn stop(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    access::thread(&state, &caller, path.into_inner()).await?;
    Err(ApiError::NotImplemented(
        "stopping answers arrives with the conversation runtime".into(),
    ))
}
