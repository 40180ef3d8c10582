//! `/api/usage`: usage (cost) records, one per model call, newest first.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, Metadata, ThreadId, UsageRecord};
use serde::{Deserialize, Serialize};

use super::{page_limit, parse_cursor, timestamp};
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::UsageFilter;
use crate::store::port::threads::{thread_and_descendants, usage_of_threads};

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 100;

/// A usage record as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UsageView {
    id: String,
    org_id: String,
    agent_id: String,
    /// `null` for a call outside any thread (`purpose: "suggestions"`).
    thread_id: Option<String>,
    message_id: Option<String>,
    model: String,
    provider: String,
    key_source: String,
    /// Every prompt token the vendor counted, cached ones included.
    input_tokens: u64,
    output_tokens: u64,
    /// Of the input, read from the vendor's prompt cache.
    cache_read_tokens: u64,
    /// Of the input, written to the vendor's prompt cache.
    cache_write_tokens: u64,
    #[schema(value_type = BTreeMap<String, String>)]
    metadata: Metadata,
    stopped: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    estimated: bool,
    /// Which model call of its send (absent on records older than steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u32>,
    /// `answer`, `compaction` (Confer's summary call), `memory` (collecting
    /// memories) or `suggestions` (a runner's suggestions).
    purpose: confer_actors::UsagePurpose,
    /// The vendor compacted the context in this call.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    compacted: bool,
    /// The vendor's per-iteration usage of such a call, as reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    iterations: Option<serde_json::Value>,
    /// A delegated turn's call (`agent-extras.md` §3): the calling thread,
    /// the root's and the depth (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_thread_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_thread_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<u32>,
    created_at: String,
}

impl From<UsageRecord> for UsageView {
    fn from(r: UsageRecord) -> Self {
        Self {
            id: r.id.to_string(),
            org_id: r.org_id.to_string(),
            agent_id: r.agent_id.to_string(),
            thread_id: r.thread_id.map(|t| t.to_string()),
            message_id: r.message_id.map(|m| m.to_string()),
            model: r.model,
            provider: r.provider,
            key_source: r.key_source,
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cache_read_tokens: r.cache_read_tokens,
            cache_write_tokens: r.cache_write_tokens,
            metadata: r.metadata,
            stopped: r.stopped,
            estimated: r.estimated,
            step: r.step,
            purpose: r.purpose,
            compacted: r.compacted,
            iterations: r.iterations,
            parent_thread_id: r
                .delegation
                .as_ref()
                .map(|d| d.parent_thread_id.to_string()),
            root_thread_id: r.delegation.as_ref().map(|d| d.root_thread_id.to_string()),
            depth: r.delegation.as_ref().map(|d| d.depth),
            created_at: timestamp(r.created_at),
        }
    }
}

/// `GET /api/usage` query; every filter is optional.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    #[serde(rename = "agentId")]
    agent_id: Option<AgentId>,
    #[serde(rename = "threadId")]
    thread_id: Option<ThreadId>,
    cursor: Option<String>,
    limit: Option<u32>,
    /// With `threadId`: the records of its delegated descendants too.
    #[serde(rename = "includeDelegated", default)]
    include_delegated: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
struct UsagePage {
    records: Vec<UsageView>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

/// `GET /api/usage?agentId=&threadId=&limit=&cursor=`. Admins and members see
/// the org's records; an end user sees the records of the threads it may read
/// (naming a thread it may not read is 403).
#[utoipa::path(get, path = "/api/usage", tag = "usage", operation_id = "usage_list", security(("bearer" = [])), params(UsageQuery), responses((status = 200, description = "A page of usage records, newest first", body = UsagePage)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<UsageQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    if let (false, Some(thread)) = (caller.sees_whole_org(), query.thread_id) {
        access::thread(&state, &caller, thread).await?;
    }
    let before = parse_cursor(query.cursor.as_deref())?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let filter = UsageFilter {
        agent: query.agent_id,
        thread: query.thread_id,
    };
    let org = caller.org_id;
    let delegated = query.include_delegated;
    let page = if let (true, Some(thread)) = (delegated, filter.thread) {
        // The caller may read the thread, so its descendants too.
        let records = state.store.threads();
        let threads = thread_and_descendants(records, org, thread).await?;
        let mut page = usage_of_threads(records, org, &threads, before, limit).await?;
        page.items
            .retain(|r| filter.agent.is_none_or(|a| r.agent_id == a));
        page
    } else if caller.sees_whole_org() || filter.thread.is_some() {
        state
            .store
            .threads()
            .usage(org, filter, before, limit)
            .await?
    } else {
        readable_usage(&state, &caller, filter, before, limit).await?
    };
    Ok(HttpResponse::Ok().json(UsagePage {
        records: page.items.into_iter().map(UsageView::from).collect(),
        next_cursor: page.next_cursor.map(timestamp),
    }))
}

/// Usage records an end user's list holds, at most this many read per
/// request: the page may then be short, and ends with a cursor.
const USAGE_SCAN_BUDGET: usize = 5_000;

/// An end user's usage records: those of the threads it may read (a call
/// outside any thread is the org's), each thread's answer looked up once,
/// through the store's port on either store.
async fn readable_usage(
    state: &AppState,
    caller: &Caller,
    filter: UsageFilter,
    mut before: Option<chrono::DateTime<chrono::Utc>>,
    limit: usize,
) -> Result<crate::store::Page<UsageRecord>, ApiError> {
    let mut readable = std::collections::HashMap::new();
    let mut items = Vec::new();
    let mut scanned = 0;
    loop {
        let page = state
            .store
            .threads()
            .usage(caller.org_id, filter, before, limit)
            .await?;
        for record in page.items {
            scanned += 1;
            before = Some(record.created_at);
            let Some(thread) = record.thread_id else {
                continue;
            };
            let allowed = match readable.get(&thread) {
                Some(known) => *known,
                None => {
                    let allowed = match access::thread(state, caller, thread).await {
                        Ok(_) => true,
                        Err(e) if actix_web::ResponseError::status_code(&e).is_client_error() => {
                            false
                        }
                        Err(e) => return Err(e),
                    };
                    readable.insert(thread, allowed);
                    allowed
                }
            };
            if allowed {
                items.push(record);
            }
            if items.len() == limit || scanned == USAGE_SCAN_BUDGET {
                return Ok(crate::store::Page {
                    items,
                    next_cursor: before,
                });
            }
        }
        if page.next_cursor.is_none() {
            return Ok(crate::store::Page {
                items,
                next_cursor: None,
            });
        }
    }
}
