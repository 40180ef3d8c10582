//! `GET /api/mcp-registry/search` (A M, `marketplace-channels.md` §6): the
//! configured MCP registry's servers, or the bundled snapshot's when it
//! fails or the instance is offline. Installing one is `POST /api/mcps`.
//! `GET /api/mcp-registry/managed` (A M): the servers the operator holds an
//! OAuth client for (`mcp_managed_oauth`).

use actix_web::{HttpResponse, web};
use serde::Deserialize;

use crate::auth::Member;
use crate::error::ApiError;
use crate::state::AppState;
use crate::tools::mcp::registry::SearchAnswer;
use crate::tools::mcp::registry::managed::ManagedItem;

/// The search's query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Matched by the registry (the snapshot: in name, title, description).
    q: Option<String>,
    /// 20 by default, at most 100.
    limit: Option<u32>,
    /// `nextCursor` of the previous answer (`r:…` or `s:…`).
    cursor: Option<String>,
}

/// `GET /api/mcp-registry/search`
#[utoipa::path(get, path = "/api/mcp-registry/search", tag = "mcp", operation_id = "mcp_registry_search", security(("bearer" = ["member"])), params(SearchQuery), responses((status = 200, description = "Servers, with where they came from (`registry` or `snapshot`, then `upstream_error`)", body = SearchAnswer), (status = 400, description = "A cursor not of this search", body = crate::error::ErrorBody<'static>), (status = 502, description = "`UPSTREAM_UNAVAILABLE`: a registry cursor while the registry fails", body = crate::error::ErrorBody<'static>)))]
pub async fn search(
    state: web::Data<AppState>,
    _caller: Member,
    query: web::Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = super::super::page_limit(query.limit, 20, 100);
    let cursor = query.cursor.filter(|c| !c.is_empty());
    if let Some(cursor) = &cursor {
        let shaped = cursor.starts_with("r:")
            || cursor
                .strip_prefix("s:")
                .is_some_and(|n| n.parse::<usize>().is_ok());
        if !shaped {
            return Err(ApiError::BadRequest(
                "cursor: `r:…` or `s:{offset}` from an earlier answer".into(),
            ));
        }
    }
    let answer = state
        .mcp_registry
        .search(query.q.as_deref().unwrap_or(""), limit, cursor.as_deref())
        .await
        .map_err(|e| ApiError::Refused {
            code: confer_actors::codes::UPSTREAM_UNAVAILABLE,
            detail: e.to_string(),
            retry_after: None,
        })?;
    Ok(HttpResponse::Ok().json(answer))
}

/// `GET /api/mcp-registry/managed`
#[utoipa::path(get, path = "/api/mcp-registry/managed", tag = "mcp", operation_id = "mcp_registry_managed", security(("bearer" = ["member"])), responses((status = 200, description = "The instance's managed-OAuth servers (`mcp_managed_oauth`), each with the caller's org's servers made with its URL", body = Vec<ManagedItem>)))]
pub async fn managed(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let installed = state.store.mcps().mcps(org).await?;
    let registry = &state.mcp_registry;
    Ok(HttpResponse::Ok().json(registry.managed.items(registry, &installed)))
}
