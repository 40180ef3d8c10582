//! `POST /api/knowledge/upload` (`knowledge.md` §1): a multipart upload
//! streamed to a scratch file (hashed as it comes, refused past
//! `knowledge_max_upload_bytes` with 413), its type named by the file's
//! extension and confirmed by its content, then kept under its hash and
//! stored with its job in one flushed transaction before the 201. The same
//! content in the same scope answers 200 with `duplicate: true`. A refusal
//! stores nothing.

use std::time::Duration;

use actix_multipart::Multipart;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::DocumentId;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::{DocumentView, scope_of};
use crate::api::uploads::{Received, Scratch, receive_file, receive_text};
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::knowledge::filetype::{FileType, zip_lists_document};
use crate::knowledge::{Document, DocumentStatus};
use crate::state::AppState;
use crate::store::knowledge::DocumentCreated;

/// The most bytes of a text field (`title`, `scopeType`, `scopeId`).
const MAX_FIELD_BYTES: usize = 4096;

/// `?wait=`: seconds to wait for the job to end (0–60).
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    wait: Option<u64>,
}

/// The answer: the document, its chunk count (upstream's `chunks`) and
/// whether it was already there.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Uploaded {
    #[serde(flatten)]
    document: DocumentView,
    chunks: u64,
    duplicate: bool,
}

/// `POST /api/knowledge/upload`
#[utoipa::path(post, path = "/api/knowledge/upload", tag = "knowledge", operation_id = "knowledge_upload", security(("bearer" = ["admin"])), params(UploadQuery), request_body(content_type = "multipart/form-data", description = "`file` (one part), `title` (1–200 characters), `scopeType` (`org`, `agent`, `thread`), `scopeId`"), responses((status = 201, description = "Stored with its job", body = Uploaded), (status = 200, description = "The scope already has this file (`duplicate: true`)", body = Uploaded), (status = 400, description = "Not multipart, or not exactly one `file` part", body = crate::error::ErrorBody<'static>), (status = 413, description = "Past `knowledge_max_upload_bytes`", body = crate::error::ErrorBody<'static>), (status = 422, description = "`file: unsupported type`, a bad field or a count limit", body = crate::error::ErrorBody<'static>)))]
pub async fn upload(
    state: web::Data<AppState>,
    caller: Caller,
    request: HttpRequest,
    query: web::Query<UploadQuery>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let wait = query.wait.unwrap_or(0);
    if wait > 60 {
        return Err(ApiError::invalid("wait", "at most 60 seconds"));
    }
    let settings = &state.settings;
    let mut parts = Multipart::new(request.headers(), payload);
    let mut file: Option<Received> = None;
    let (mut title, mut scope_type, mut scope_id) = (None, None, None);
    while let Some(field) = parts.next().await {
        let mut field =
            field.map_err(|e| ApiError::BadRequest(format!("not a multipart form: {e}")))?;
        match field.name().unwrap_or_default() {
            "file" => {
                if file.is_some() {
                    return Err(ApiError::BadRequest("file: exactly one part".into()));
                }
                let scratch = Scratch::new(
                    state
                        .knowledge
                        .files()
                        .scratch()
                        .join(format!("upload-{}", uuid::Uuid::now_v7())),
                );
                let max = settings.knowledge_max_upload_bytes;
                file = Some(
                    receive_file(
                        &mut field,
                        scratch,
                        ("file", max, "knowledge_max_upload_bytes"),
                    )
                    .await?,
                );
            }
            "title" => title = Some(receive_text(&mut field, "title", MAX_FIELD_BYTES).await?),
            "scopeType" => {
                scope_type = Some(receive_text(&mut field, "scopeType", MAX_FIELD_BYTES).await?)
            }
            "scopeId" => {
                scope_id = Some(receive_text(&mut field, "scopeId", MAX_FIELD_BYTES).await?)
            }
            // Other parts are read and ignored.
            _ => while field.next().await.is_some() {},
        }
    }
    let file = file.ok_or_else(|| ApiError::BadRequest("file: exactly one part".into()))?;
    let scope = scope_of(
        &caller,
        scope_type.as_deref().unwrap_or("org"),
        scope_id.as_deref(),
    )?;
    access::knowledge_scope(&state, &caller, scope, true).await?;
    let title = match title {
        Some(title) => {
            let title = title.trim().to_owned();
            if title.is_empty() || title.chars().count() > 200 {
                return Err(ApiError::invalid("title", "1 to 200 characters"));
            }
            title
        }
        None => file.name.chars().take(200).collect(),
    };
    let kind = {
        let path = file.scratch.path().to_owned();
        let head = file.head.clone();
        let name = file.name.clone();
        web::block(move || {
            FileType::detect(&name, &head, || {
                std::fs::read(&path).is_ok_and(|b| zip_lists_document(&b))
            })
        })
        .await
        .map_err(|e| ApiError::Internal(format!("reading an upload: {e}")))?
        .ok_or_else(|| ApiError::invalid("file", "unsupported type"))?
    };
    let now = Utc::now();
    let document = Document {
        id: DocumentId::new(),
        org_id: caller.org_id,
        title,
        source_ref: file.name.clone(),
        scope,
        content_type: kind.content_type().to_owned(),
        size_bytes: file.size,
        sha256: file.sha256.clone(),
        status: DocumentStatus::Queued,
        error: None,
        attempts: 0,
        searchable_generation: None,
        last_generation: 0,
        pages: None,
        chunk_count: 0,
        created_by: caller.user_id(),
        created_at: now,
        updated_at: now,
        indexed_at: None,
    };
    let mut ended = state.knowledge.subscribe();
    let files = state.knowledge.files().clone();
    let limits = (
        settings.knowledge_max_docs_per_org,
        settings.knowledge_max_docs_per_thread,
    );
    let upload = file.scratch.path().to_owned();
    let created = state
        .store
        .documents()
        .create_document(document, upload, files, limits)
        .await?;
    let (document, duplicate) = match created {
        DocumentCreated::Stored(document) => (*document, false),
        DocumentCreated::Duplicate(document) => (*document, true),
        DocumentCreated::OverLimit(detail) => return Err(ApiError::invalid("file", detail)),
    };
    state.knowledge.queued();
    let document = if wait > 0 && document.status.in_progress() {
        let (org, id) = (document.org_id, document.id);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(wait);
        loop {
            let current = state.store.documents().document(org, id).await?;
            match current {
                Some(current) if current.status.in_progress() => {
                    // Wait for news of a job's end here (any document), or
                    // a second (another node's worker may run it), then
                    // look again.
                    let tick = (tokio::time::Instant::now() + Duration::from_secs(1)).min(deadline);
                    let _ = tokio::time::timeout_at(tick, ended.recv()).await;
                    if tokio::time::Instant::now() >= deadline {
                        break current;
                    }
                }
                Some(current) => break current,
                None => return Err(ApiError::not_found("document")),
            }
        }
    } else {
        document
    };
    let chunks = document.chunk_count;
    let body = Uploaded {
        document: DocumentView::from(document),
        chunks,
        duplicate,
    };
    Ok(if duplicate {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::Created().json(body)
    })
}
