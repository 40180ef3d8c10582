//! `/api/knowledge`: an org's documents (`knowledge.md` §1, §6): upload
//! (`upload`), list, get, chunks, the file, reindex, delete, search
//! (`search`). Who may reach
//! a document is decided in one place, `auth::access::knowledge_scope`.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, DocumentId, ThreadId};
use serde::{Deserialize, Serialize};

use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::knowledge::{Chunk, Document, DocumentStatus, JobKind, Scope};
use crate::state::AppState;
use crate::store::knowledge::Reindexed;
use crate::store::port::DocumentFilter;

mod agent;
mod embeddings;
mod search;
mod upload;

pub use self::agent::{__path_get_config, __path_put_config, get_config, put_config};
pub use self::embeddings::{
    __path_delete_embeddings, __path_get_embeddings, __path_put_embeddings, delete_embeddings,
    get_embeddings, put_embeddings,
};
pub use self::search::{__path_search, search, search_error};
pub use self::upload::{__path_upload, upload};

/// A document as the API shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DocumentView {
    id: String,
    org_id: String,
    title: String,
    source_ref: String,
    scope_type: &'static str,
    scope_id: String,
    content_type: String,
    size_bytes: u64,
    sha256: String,
    status: DocumentStatus,
    error: Option<String>,
    attempts: u32,
    /// A generation of its chunks is indexed (a reindex keeps the old one
    /// until the new is ready).
    searchable: bool,
    pages: Option<u32>,
    chunk_count: u64,
    /// `{model, embedded, pending}` when the org has embeddings, else null.
    #[schema(value_type = Option<Object>)]
    embedding: Option<serde_json::Value>,
    created_by: String,
    created_at: String,
    updated_at: String,
    indexed_at: Option<String>,
}

impl From<Document> for DocumentView {
    fn from(d: Document) -> Self {
        Self {
            id: d.id.to_string(),
            org_id: d.org_id.to_string(),
            title: d.title,
            source_ref: d.source_ref,
            scope_type: d.scope.kind(),
            scope_id: d.scope.id(d.org_id),
            content_type: d.content_type,
            size_bytes: d.size_bytes,
            sha256: d.sha256,
            status: d.status,
            error: d.error,
            attempts: d.attempts,
            searchable: d.searchable_generation.is_some(),
            pages: d.pages,
            chunk_count: d.chunk_count,
            embedding: None,
            created_by: d.created_by,
            created_at: super::timestamp(d.created_at),
            updated_at: super::timestamp(d.updated_at),
            indexed_at: d.indexed_at.map(super::timestamp),
        }
    }
}

/// The documents as shown, each with its vectors' progress when the org
/// has embeddings.
pub async fn views(
    state: &AppState,
    documents: Vec<Document>,
) -> Result<Vec<DocumentView>, ApiError> {
    let Some(org) = documents.first().map(|d| d.org_id) else {
        return Ok(Vec::new());
    };
    let embeddings = state.store.embeddings();
    let Some(config) = embeddings.embedding_config(org).await? else {
        return Ok(documents.into_iter().map(DocumentView::from).collect());
    };
    let counts = embeddings
        .document_vectors(documents.clone(), config.model.clone(), config.dimensions())
        .await?;
    let progress = documents.into_iter().zip(counts).map(|(d, (embedded, pending))| {
        let shown = serde_json::json!({"model": config.model, "embedded": embedded, "pending": pending});
        (d, Some(shown))
    });
    Ok(progress
        .into_iter()
        .map(|(d, embedding)| DocumentView {
            embedding,
            ..DocumentView::from(d)
        })
        .collect())
}

/// A scope from the API's `scopeType` and `scopeId` (`org`: absent or the
/// org's id).
pub fn scope_of(caller: &Caller, kind: &str, id: Option<&str>) -> Result<Scope, ApiError> {
    let parse = |what: &str| -> Result<uuid::Uuid, ApiError> {
        id.ok_or_else(|| ApiError::invalid("scopeId", format!("required for scopeType {what}")))?
            .parse()
            .map_err(|_| ApiError::invalid("scopeId", "must be a UUID"))
    };
    match kind {
        "org" => match id {
            None => Ok(Scope::Org),
            Some(given) if given == caller.org_id.to_string() => Ok(Scope::Org),
            Some(_) => Err(ApiError::invalid(
                "scopeId",
                "must be absent or the org's id for scopeType org",
            )),
        },
        "agent" => Ok(Scope::Agent(AgentId(parse("agent")?))),
        "thread" => Ok(Scope::Thread(ThreadId(parse("thread")?))),
        _ => Err(ApiError::invalid(
            "scopeType",
            "must be org, agent or thread",
        )),
    }
}

/// `GET /api/knowledge` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    /// `org`, `agent` or `thread` (end users: `thread`, required).
    scope_type: Option<String>,
    scope_id: Option<String>,
    status: Option<DocumentStatus>,
    /// 1–500, default 100.
    limit: Option<u32>,
    /// `X-Next-Cursor` of the previous page.
    #[param(value_type = Option<String>)]
    cursor: Option<DocumentId>,
}

/// `GET /api/knowledge`: newest first; the next page's cursor in `X-Next-Cursor`.
#[utoipa::path(get, path = "/api/knowledge", tag = "knowledge", operation_id = "knowledge_list", security(("bearer" = ["member"])), params(ListQuery), responses((status = 200, description = "Documents, newest first (bare array; `X-Next-Cursor` when more follow)", body = [DocumentView]), (status = 403, description = "An end user without a thread scope", body = crate::error::ErrorBody<'static>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let scope = match &query.scope_type {
        Some(kind) => Some(scope_of(&caller, kind, query.scope_id.as_deref())?),
        None => None,
    };
    match scope {
        Some(scope) => access::knowledge_scope(&state, &caller, scope, false).await?,
        // The whole org's list: as the org scope.
        None => access::knowledge_scope(&state, &caller, Scope::Org, false).await?,
    }
    let limit = query.limit.unwrap_or(100).clamp(1, 500) as usize;
    let org = caller.org_id;
    let filter = DocumentFilter {
        scope,
        status: query.status,
    };
    let (page, next) = state
        .store
        .documents()
        .documents(org, filter, query.cursor, limit)
        .await?;
    let mut response = HttpResponse::Ok();
    if let Some(next) = next {
        response.insert_header(("x-next-cursor", next.to_string()));
    }
    Ok(response.json(views(&state, page).await?))
}

/// `GET /api/knowledge/{id}`
#[utoipa::path(get, path = "/api/knowledge/{document_id}", tag = "knowledge", operation_id = "knowledge_get", security(("bearer" = ["member"])), params(("document_id" = uuid::Uuid, Path, description = "The document's id")), responses((status = 200, description = "The document", body = DocumentView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DocumentId>,
) -> Result<HttpResponse, ApiError> {
    let document = access::knowledge_document(&state, &caller, path.into_inner(), false).await?;
    let shown = views(&state, vec![document]).await?.pop();
    Ok(HttpResponse::Ok().json(shown))
}

/// `GET /api/knowledge/{id}/chunks` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChunksQuery {
    /// 1–200, default 50.
    limit: Option<u32>,
    /// The `n` of the last chunk of the previous page (`X-Next-Cursor`).
    cursor: Option<u32>,
}

/// `GET /api/knowledge/{id}/chunks`: the searchable generation's chunks in order.
#[utoipa::path(get, path = "/api/knowledge/{document_id}/chunks", tag = "knowledge", operation_id = "knowledge_chunks", security(("bearer" = ["member"])), params(("document_id" = uuid::Uuid, Path, description = "The document's id"), ChunksQuery), responses((status = 200, description = "Chunks in order (bare array; `X-Next-Cursor` when more follow)", body = [Chunk])))]
pub async fn chunks(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DocumentId>,
    query: web::Query<ChunksQuery>,
) -> Result<HttpResponse, ApiError> {
    let document = access::knowledge_document(&state, &caller, path.into_inner(), false).await?;
    let limit = query.limit.unwrap_or(50).clamp(1, 200) as usize;
    let after = query.cursor;
    let mut page = state
        .store
        .documents()
        .chunks_page(document, after, limit + 1)
        .await?;
    let mut response = HttpResponse::Ok();
    if page.len() > limit {
        page.truncate(limit);
        if let Some(last) = page.last() {
            response.insert_header(("x-next-cursor", last.n.to_string()));
        }
    }
    // The page breaks are the store's, for citations; not the API's.
    for chunk in &mut page {
        chunk.page_breaks.clear();
    }
    Ok(response.json(page))
}

/// `GET /api/knowledge/{id}/file`: the uploaded bytes, as an attachment.
#[utoipa::path(get, path = "/api/knowledge/{document_id}/file", tag = "knowledge", operation_id = "knowledge_file", security(("bearer" = ["member"])), params(("document_id" = uuid::Uuid, Path, description = "The document's id")), responses((status = 200, description = "The file as uploaded", content_type = "application/octet-stream")))]
pub async fn file(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DocumentId>,
) -> Result<HttpResponse, ApiError> {
    let document = access::knowledge_document(&state, &caller, path.into_inner(), false).await?;
    let files = state.knowledge.files().clone();
    let bytes = state
        .store
        .documents()
        .read_file(document.org_id, document.sha256.clone(), files)
        .await?;
    // The name as uploaded, in the RFC 6266 form that carries any character.
    let disposition = header::ContentDisposition {
        disposition: header::DispositionType::Attachment,
        parameters: vec![header::DispositionParam::FilenameExt(
            header::ExtendedValue {
                charset: header::Charset::Ext("UTF-8".into()),
                language_tag: None,
                value: document.source_ref.into_bytes(),
            },
        )],
    };
    Ok(HttpResponse::Ok()
        .content_type(document.content_type)
        .insert_header(disposition)
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(bytes))
}

/// `POST /api/knowledge/{id}/reindex`: a new job; the searchable chunks stay
/// until the new ones are ready.
#[utoipa::path(post, path = "/api/knowledge/{document_id}/reindex", tag = "knowledge", operation_id = "knowledge_reindex", security(("bearer" = ["admin"])), params(("document_id" = uuid::Uuid, Path, description = "The document's id")), responses((status = 202, description = "Queued", body = DocumentView), (status = 409, description = "A job runs or waits", body = crate::error::ErrorBody<'static>)))]
pub async fn reindex(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DocumentId>,
) -> Result<HttpResponse, ApiError> {
    let document = access::knowledge_document(&state, &caller, path.into_inner(), true).await?;
    let (org, id) = (document.org_id, document.id);
    match state
        .store
        .documents()
        .reindex_document(org, id, JobKind::Reindex)
        .await?
    {
        Reindexed::Queued(document) => {
            state.knowledge.queued();
            Ok(HttpResponse::Accepted().json(DocumentView::from(*document)))
        }
        Reindexed::Busy => Err(ApiError::Conflict(
            "document: a job runs or waits for it".into(),
        )),
        Reindexed::Gone => Err(ApiError::not_found("document")),
    }
}

/// `DELETE /api/knowledge/{id}`: gone at once; its chunks and file are
/// purged in the background.
#[utoipa::path(delete, path = "/api/knowledge/{document_id}", tag = "knowledge", operation_id = "knowledge_delete", security(("bearer" = ["admin"])), params(("document_id" = uuid::Uuid, Path, description = "The document's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DocumentId>,
) -> Result<HttpResponse, ApiError> {
    let document = access::knowledge_document(&state, &caller, path.into_inner(), true).await?;
    let (org, id) = (document.org_id, document.id);
    if !state.store.documents().delete_document(org, id).await? {
        return Err(ApiError::not_found("document"));
    }
    state.knowledge.deleted();
    Ok(HttpResponse::Ok().json(serde_json::json!({"ok": true})))
}
