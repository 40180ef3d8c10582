//! `/api/knowledge/embeddings` (`knowledge.md` §3): an org's
//! OpenAI-compatible embedding server. The API key is write-only (sealed,
//! shown as `has_api_key`); a new base URL forgets the old key unless a
//! new one is given; a new model or dimensions starts a re-embed.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use crate::api::extract::{JsonBody, Patch};
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::knowledge::embedding_config::{EmbeddingSettings, seal_key};
use crate::state::AppState;

/// `PUT` body: the whole configuration.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutEmbeddings {
    /// The server's base URL (`{baseUrl}/embeddings` is called).
    base_url: String,
    model: String,
    /// Asked of the server as `dimensions` (1–8,192); else learned.
    dims: Option<u32>,
    /// Write-only; absent keeps the key for the same base URL, `null`
    /// removes it.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    api_key: Patch<String>,
    /// 1–2,048, default 64.
    batch_size: Option<u32>,
    /// 1,000–120,000, default 30,000.
    timeout_ms: Option<u32>,
}

/// The configuration as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct EmbeddingsView {
    configured: bool,
    base_url: Option<String>,
    model: Option<String>,
    dims: Option<u32>,
    has_api_key: bool,
    /// `unconfigured`, `ready`, `embedding` or `error`.
    status: &'static str,
    last_error: Option<String>,
    pending_chunks: u64,
    /// `{from_model}` while a re-embed runs, else null.
    #[schema(value_type = Option<Object>)]
    reembed: Option<serde_json::Value>,
}

async fn view(state: &AppState, org: confer_actors::OrgId) -> Result<EmbeddingsView, ApiError> {
    let embeddings = state.store.embeddings();
    let config = embeddings.embedding_config(org).await?;
    let pending = match &config {
        Some(config) => {
            embeddings
                .pending_count(org, config.model.clone(), config.dimensions())
                .await?
        }
        None => 0,
    };
    let Some(config) = config else {
        return Ok(EmbeddingsView {
            configured: false,
            base_url: None,
            model: None,
            dims: None,
            has_api_key: false,
            status: "unconfigured",
            last_error: None,
            pending_chunks: 0,
            reembed: None,
        });
    };
    let status = match (&config.last_error, pending) {
        (Some(_), _) => "error",
        (None, 0) => "ready",
        (None, _) => "embedding",
    };
    Ok(EmbeddingsView {
        configured: true,
        dims: config.dims.or(config.learned_dims),
        has_api_key: config.api_key.is_some(),
        status,
        last_error: config.last_error,
        pending_chunks: pending,
        reembed: config
            .reembed_from
            .map(|from| serde_json::json!({"from_model": from})),
        base_url: Some(config.base_url),
        model: Some(config.model),
    })
}

/// `GET /api/knowledge/embeddings`
#[utoipa::path(get, path = "/api/knowledge/embeddings", tag = "knowledge", operation_id = "embeddings_get", security(("bearer" = ["member"])), responses((status = 200, description = "The org's embedding configuration and progress", body = EmbeddingsView)))]
pub async fn get_embeddings(
    state: web::Data<AppState>,
    caller: Member,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(view(&state, caller.org_id).await?))
}

/// `PUT /api/knowledge/embeddings`
#[utoipa::path(put, path = "/api/knowledge/embeddings", tag = "knowledge", operation_id = "embeddings_put", security(("bearer" = ["admin"])), request_body = PutEmbeddings, responses((status = 200, description = "Stored; embedding runs in the background", body = EmbeddingsView), (status = 422, description = "A field breaks a rule", body = crate::error::ErrorBody<'static>)))]
pub async fn put_embeddings(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<PutEmbeddings>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let base_url = body.base_url.trim().trim_end_matches('/').to_owned();
    state
        .outbound
        .policy()
        .check_url(&base_url)
        .map_err(|why| ApiError::invalid("baseUrl", why))?;
    let model = body.model.trim().to_owned();
    if model.is_empty() || model.len() > 200 {
        return Err(ApiError::invalid("model", "must be 1–200 characters"));
    }
    if body.dims.is_some_and(|d| !(1..=8192).contains(&d)) {
        return Err(ApiError::invalid("dims", "must be 1–8192"));
    }
    let batch_size = body.batch_size.unwrap_or(64);
    if !(1..=2048).contains(&batch_size) {
        return Err(ApiError::invalid("batchSize", "must be 1–2048"));
    }
    let timeout_ms = body.timeout_ms.unwrap_or(30_000);
    if !(1_000..=120_000).contains(&timeout_ms) {
        return Err(ApiError::invalid("timeoutMs", "must be 1000–120000"));
    }
    let org = caller.org_id;
    let api_key = match body.api_key.into_change() {
        Some(Some(key)) => Some(Some(
            seal_key(&state.store.secrets(), org, &key)
                .map_err(|e| confer_actors::StoreError::Codec(e.to_string()))?,
        )),
        change => change.map(|_| None),
    };
    let settings = EmbeddingSettings {
        base_url,
        model,
        dims: body.dims,
        api_key,
        batch_size,
        timeout_ms,
    };
    state
        .store
        .embeddings()
        .configure_embeddings(org, settings)
        .await?;
    state.knowledge_search.embedder().changed();
    Ok(HttpResponse::Ok().json(view(&state, org).await?))
}

/// `DELETE /api/knowledge/embeddings`: the configuration and every vector.
#[utoipa::path(delete, path = "/api/knowledge/embeddings", tag = "knowledge", operation_id = "embeddings_delete", security(("bearer" = ["admin"])), responses((status = 200, description = "Removed", body = crate::api::Ok)))]
pub async fn delete_embeddings(
    state: web::Data<AppState>,
    caller: Admin,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    state
        .store
        .embeddings()
        .delete_embedding_config(org)
        .await?;
    state.knowledge_search.embedder().vectors_changed(org);
    Ok(HttpResponse::Ok().json(serde_json::json!({"ok": true})))
}
