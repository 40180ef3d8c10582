//! `POST /api/knowledge/search` (`knowledge.md` §3, §6): the ranked chunks
//! of the scopes the caller reaches, as the `search_knowledge` tool would
//! find them.

use actix_web::{HttpResponse, web};
use confer_actors::codes;
use confer_actors::{AgentId, ThreadId};
use serde::{Deserialize, Serialize};

use super::scope_of;
use crate::auth::{Caller, Role, access};
use crate::error::ApiError;
use crate::knowledge::Scope;
use crate::knowledge::search::{SearchAnswer, SearchError, SearchMode, SearchRequest};
use crate::state::AppState;

/// The body of a search.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchBody {
    /// ≤ 1,000 characters, ≤ 64 terms once analyzed.
    query: String,
    /// The org's documents and this agent's.
    #[schema(value_type = Option<String>)]
    agent_id: Option<AgentId>,
    /// The org's, the thread's agent's and the thread's (required of end
    /// users).
    #[schema(value_type = Option<String>)]
    thread_id: Option<ThreadId>,
    /// One scope only: `org`, `agent` or `thread`.
    scope_type: Option<String>,
    scope_id: Option<String>,
    /// 1–20, default 6.
    top_k: Option<u32>,
    mode: Option<SearchMode>,
    /// The least cosine similarity (`vector` mode only).
    min_score: Option<f32>,
}

/// One ranked chunk.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SearchResultView {
    chunk_id: String,
    doc_id: String,
    title: String,
    page: Option<u32>,
    text: String,
    score: f32,
    bm25_rank: Option<usize>,
    vector_rank: Option<usize>,
}

/// A search's answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SearchView {
    results: Vec<SearchResultView>,
    mode: SearchMode,
    /// The index is being rebuilt: results may miss documents.
    partial: bool,
}

impl From<SearchAnswer> for SearchView {
    fn from(answer: SearchAnswer) -> Self {
        Self {
            results: answer
                .hits
                .into_iter()
                .map(|hit| SearchResultView {
                    chunk_id: hit.chunk.id,
                    doc_id: hit.document.id.to_string(),
                    title: hit.document.title,
                    page: hit.chunk.page,
                    text: hit.chunk.text,
                    score: hit.score,
                    bm25_rank: hit.bm25_rank,
                    vector_rank: hit.vector_rank,
                })
                .collect(),
            mode: answer.mode,
            partial: answer.partial,
        }
    }
}

/// A search's refusal as the API answers it.
pub fn search_error(error: SearchError) -> ApiError {
    match error {
        SearchError::Invalid(detail) => ApiError::Validation(detail),
        SearchError::Busy => ApiError::Refused {
            code: codes::SEARCH_BUSY,
            detail: error.to_string(),
            retry_after: Some(1),
        },
        SearchError::Failed(cause) => ApiError::Internal(cause),
    }
}

/// The scopes a search reaches, its caller's access checked: one scope, a
/// thread's, an agent's, or the org's.
async fn scopes(
    state: &AppState,
    caller: &Caller,
    body: &SearchBody,
) -> Result<Vec<Scope>, ApiError> {
    if let Some(kind) = &body.scope_type {
        let scope = scope_of(caller, kind, body.scope_id.as_deref())?;
        access::knowledge_scope(state, caller, scope, false).await?;
        return Ok(vec![scope]);
    }
    if let Some(id) = body.thread_id {
        let thread = access::thread(state, caller, id).await?;
        return Ok(vec![
            Scope::Org,
            Scope::Agent(thread.agent_id),
            Scope::Thread(id),
        ]);
    }
    if caller.role() == Role::User {
        return Err(ApiError::Forbidden(
            "requires an admin or a member: end users search with their threadId".into(),
        ));
    }
    if let Some(agent) = body.agent_id {
        access::knowledge_scope(state, caller, Scope::Agent(agent), false).await?;
        return Ok(vec![Scope::Org, Scope::Agent(agent)]);
    }
    Ok(vec![Scope::Org])
}

/// `POST /api/knowledge/search`
#[utoipa::path(post, path = "/api/knowledge/search", tag = "knowledge", operation_id = "knowledge_search", security(("bearer" = ["member"])), request_body = SearchBody, responses((status = 200, description = "Ranked chunks", body = SearchView), (status = 422, description = "A field breaks a rule", body = crate::error::ErrorBody<'static>), (status = 503, description = "SEARCH_BUSY: too many searches wait (Retry-After: 1)", body = crate::error::ErrorBody<'static>)))]
pub async fn search(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<SearchBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let top_k = body.top_k.unwrap_or(6);
    if !(1..=20).contains(&top_k) {
        return Err(ApiError::invalid("topK", "must be 1–20"));
    }
    let mode = body.mode.unwrap_or_default();
    if body.min_score.is_some() && mode != SearchMode::Vector {
        return Err(ApiError::invalid("minScore", "only with mode vector"));
    }
    let scopes = scopes(&state, &caller, &body).await?;
    let answer = state
        .knowledge_search
        .search(SearchRequest {
            org: caller.org_id,
            scopes,
            query: body.query,
            top_k: top_k as usize,
            mode,
            min_score: body.min_score,
        })
        .await
        .map_err(search_error)?;
    Ok(HttpResponse::Ok().json(SearchView::from(answer)))
}
