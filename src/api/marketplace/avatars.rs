//! Avatars (`marketplace-channels.md` §3): the upload (`POST`, `DELETE` A)
//! and the public file (`GET /api/marketplace/avatars/{agentId}`, no
//! bearer: an `<img>` sends none; avatars are public data). What an upload
//! becomes: `crate::marketplace::avatar`.

use actix_multipart::Multipart;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::AgentId;
use futures_util::StreamExt;

use super::{answer, change_profile};
use crate::api::agents::live_agent;
use crate::api::extract::IfMatch;
use crate::auth::Admin;
use confer_actors::codes;

use crate::error::ApiError;
use crate::marketplace::avatar::{self, Avatar};
use crate::state::AppState;
use crate::store::marketplace::AvatarChange;

/// The `file` part of a multipart upload, at most `max` bytes.
async fn file_part(
    request: &HttpRequest,
    payload: web::Payload,
    max: u64,
) -> Result<Vec<u8>, ApiError> {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
    if !multipart {
        return Err(ApiError::Refused {
            code: codes::UNSUPPORTED_MEDIA_TYPE,
            detail: "Content-Type: multipart/form-data with a `file` part".into(),
            retry_after: None,
        });
    }
    let mut parts = Multipart::new(request.headers(), payload);
    let mut file = None;
    let mut received = 0u64;
    while let Some(part) = parts.next().await {
        let mut part =
            part.map_err(|e| ApiError::BadRequest(format!("not a multipart form: {e}")))?;
        let name = part.name().unwrap_or_default().to_owned();
        let mut bytes = Vec::new();
        while let Some(piece) = part.next().await {
            let piece = piece.map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))?;
            received += piece.len() as u64;
            if received > max {
                return Err(ApiError::PayloadTooLarge(format!(
                    "file: the upload passes {max} bytes (CONFER_AVATAR_MAX_BYTES)"
                )));
            }
            // Other parts are read (to find `file`) and dropped.
            if name == "file" {
                bytes.extend_from_slice(&piece);
            }
        }
        if name == "file" {
            if file.is_some() {
                return Err(ApiError::BadRequest("file: exactly one part".into()));
            }
            file = Some(bytes);
        }
    }
    file.ok_or_else(|| ApiError::BadRequest("file: a `file` part is required".into()))
}

/// `POST /api/agents/{id}/marketplace/avatar`: the image, re-encoded.
#[utoipa::path(post, path = "/api/agents/{agent_id}/marketplace/avatar", tag = "marketplace", operation_id = "marketplace_avatar_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("If-Match" = Option<String>, Header, description = "The profile's version last seen")), request_body(content = String, content_type = "multipart/form-data", description = "One `file` part: a PNG, JPEG or WebP image (by content; its name and part type are ignored)"), responses((status = 200, description = "The profile with its new `avatar_url`", body = super::ProfileView), (status = 400, description = "No `file` part", body = crate::error::ErrorBody<'static>), (status = 413, description = "Over CONFER_AVATAR_MAX_BYTES", body = crate::error::ErrorBody<'static>), (status = 415, description = "Not multipart/form-data", body = crate::error::ErrorBody<'static>), (status = 422, description = "`file: not a PNG, JPEG or WebP image`, too large a side, or corrupt; the old avatar stays", body = crate::error::ErrorBody<'static>)))]
pub async fn upload(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    if_match: IfMatch,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let upload = file_part(&request, payload, state.settings.avatar_max_bytes).await?;
    let made = tokio::task::spawn_blocking(move || avatar::normalize(&upload))
        .await
        .map_err(|e| ApiError::Internal(format!("the avatar's decoding stopped: {e}")))?;
    let Avatar { png, tag } = made.map_err(|e| ApiError::invalid("file", e))?;
    let profile = change_profile(
        &state,
        &agent,
        if_match.0,
        AvatarChange::Set(png),
        move |mut p| {
            p.avatar = Some(tag.clone());
            p.touch(Utc::now());
            Ok(p)
        },
    )
    .await?;
    Ok(answer(&profile, &agent))
}

/// `DELETE /api/agents/{id}/marketplace/avatar`
#[utoipa::path(delete, path = "/api/agents/{agent_id}/marketplace/avatar", tag = "marketplace", operation_id = "marketplace_avatar_delete", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("If-Match" = Option<String>, Header, description = "The profile's version last seen")), responses((status = 200, description = "The profile without an avatar", body = super::ProfileView)))]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    if_match: IfMatch,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let profile = change_profile(&state, &agent, if_match.0, AvatarChange::Remove, |mut p| {
        p.avatar = None;
        p.touch(Utc::now());
        Ok(p)
    })
    .await?;
    Ok(answer(&profile, &agent))
}

/// `GET /api/marketplace/avatars/{agentId}`: public, cacheable, never
/// sniffed or run.
#[utoipa::path(get, path = "/api/marketplace/avatars/{agent_id}", tag = "marketplace", operation_id = "marketplace_avatar_get", params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("If-None-Match" = Option<String>, Header, description = "The `ETag` held: 304 when it is current")), responses((status = 200, description = "The 256×256 PNG", content_type = "image/png"), (status = 304, description = "Not modified"), (status = 404, description = "No avatar")))]
pub async fn file(
    state: web::Data<AppState>,
    path: web::Path<AgentId>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let agent = path.into_inner();
    let png = state
        .store
        .marketplace()
        .marketplace_avatar(agent)
        .await?
        .ok_or_else(|| ApiError::not_found("avatar"))?;
    let Avatar { png, tag } = Avatar::of(png);
    let etag = format!("\"{tag}\"");
    let current = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|held| held.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if current {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, etag.as_str()))
        .insert_header((
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=300"),
        ))
        .insert_header((
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'"),
        ));
    Ok(if current {
        response.finish()
    } else {
        response.content_type("image/png").body(png)
    })
}
