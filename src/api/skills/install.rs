//! `POST /api/skills` (`agent-extras.md` §1 "Install"): a multipart upload
//! (one `file` part holding a zip, or `files` parts each named by its
//! path in the skill), or JSON naming a source (`archive`, `git`,
//! `catalog`). Everything happens in the request; a refusal stores
//! nothing.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::StreamExt;
use serde::Deserialize;

use super::SkillView;
use crate::api::uploads::{is_multipart, json_payload};
use crate::auth::Admin;
use crate::error::ApiError;
use crate::skills::ArchiveFile;
use crate::skills::install::Origin;
use crate::state::AppState;

/// The JSON body of an install from a source.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallSkill {
    /// `archive` (a zip or tar.gz URL), `git` (a repository over
    /// http(s)) or `catalog`.
    source: String,
    /// The archive's URL (`archive`).
    url: Option<String>,
    /// The folder of the skill in the archive, when it holds several.
    path: Option<String>,
    /// Sent as `Authorization: Bearer` to the URL's host only; stored
    /// sealed, never answered.
    token: Option<String>,
    /// A git branch or tag (`git`).
    #[serde(rename = "ref")]
    git_ref: Option<String>,
    /// The catalogue skill (`catalog`), as browse lists it without
    /// `catalog:`.
    key: Option<String>,
}

fn required(value: Option<String>, field: &str) -> Result<String, ApiError> {
    value
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ApiError::invalid(field, "required"))
}

/// The source's `url`, required and shaped as the outbound policy wants.
fn checked_url(state: &AppState, url: Option<String>) -> Result<String, ApiError> {
    let url = required(url, "url")?;
    state
        .outbound
        .policy()
        .check_url(&url)
        .map_err(|reason| ApiError::invalid("url", reason))?;
    Ok(url)
}

fn origin_of(state: &AppState, body: InstallSkill) -> Result<Origin, ApiError> {
    match body.source.as_str() {
        "archive" => {
            let url = checked_url(state, body.url)?;
            if body.git_ref.is_some() || body.key.is_some() {
                return Err(ApiError::invalid(
                    "source",
                    "archive takes url, path and token",
                ));
            }
            Ok(Origin::Archive {
                url,
                path: body.path,
                token: body.token.filter(|t| !t.is_empty()),
            })
        }
        "catalog" => {
            let key = required(body.key, "key")?;
            let key = key.strip_prefix("catalog:").unwrap_or(&key).to_owned();
            Ok(Origin::Catalog(key))
        }
        "git" => {
            let url = checked_url(state, body.url)?;
            if body.key.is_some() {
                return Err(ApiError::invalid(
                    "source",
                    "git takes url, ref, path and token",
                ));
            }
            if let Some(name) = &body.git_ref
                && !crate::outbound::git::is_ref_name(name)
            {
                return Err(ApiError::invalid("ref", "a branch or tag name"));
            }
            Ok(Origin::Git {
                url,
                git_ref: body.git_ref,
                path: body.path,
                token: body.token.filter(|t| !t.is_empty()),
            })
        }
        "upload" => Err(ApiError::invalid(
            "source",
            "an upload is a multipart request (`file` or `files` parts)",
        )),
        _ => Err(ApiError::invalid(
            "source",
            "one of archive, git, catalog (or a multipart upload)",
        )),
    }
}

/// Reads the multipart parts: one `file` (a zip) or `files` by path.
async fn read_parts(
    request: &HttpRequest,
    payload: web::Payload,
    max: u64,
) -> Result<Origin, ApiError> {
    let mut parts = Multipart::new(request.headers(), payload);
    let (mut zip, mut files): (Option<Vec<u8>>, Vec<ArchiveFile>) = (None, Vec::new());
    let mut received = 0u64;
    while let Some(field) = parts.next().await {
        let mut field =
            field.map_err(|e| ApiError::BadRequest(format!("not a multipart form: {e}")))?;
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field
            .content_disposition()
            .and_then(|d| d.get_filename())
            .map(str::to_owned);
        let mut bytes = Vec::new();
        while let Some(piece) = field.next().await {
            let piece = piece.map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))?;
            received += piece.len() as u64;
            if received > max {
                return Err(ApiError::PayloadTooLarge(format!(
                    "{name}: the upload passes {max} bytes (CONFER_SKILL_UPLOAD_MAX_BYTES)"
                )));
            }
            bytes.extend_from_slice(&piece);
        }
        match name.as_str() {
            "file" if zip.is_none() => zip = Some(bytes),
            "file" => return Err(ApiError::BadRequest("file: exactly one part".into())),
            "files" => {
                let path = file_name.ok_or_else(|| {
                    ApiError::BadRequest("files: each part needs a file name (its path)".into())
                })?;
                files.push((path, bytes));
            }
            // Other parts are read and ignored.
            _ => {}
        }
    }
    match (zip, files.is_empty()) {
        (Some(zip), true) => Ok(Origin::Zip(zip)),
        (None, false) => Ok(Origin::Files(files)),
        (None, true) => Err(ApiError::BadRequest(
            "file: a `file` part (a zip) or `files` parts are required".into(),
        )),
        (Some(_), false) => Err(ApiError::BadRequest(
            "file: give a `file` part or `files` parts, not both".into(),
        )),
    }
}

/// `POST /api/skills`
#[utoipa::path(post, path = "/api/skills", tag = "skills", operation_id = "skills_install", security(("bearer" = ["admin"])), request_body(content = InstallSkill, description = "A source as JSON, or `multipart/form-data` with one `file` part (a zip) or `files` parts named by their path in the skill (`SKILL.md`, `references/api.md`)"), responses((status = 201, description = "Installed", body = SkillView), (status = 400, description = "Neither or both of `file` and `files`", body = crate::error::ErrorBody<'static>), (status = 409, description = "The org has a skill of this name, or 200 skills", body = crate::error::ErrorBody<'static>), (status = 413, description = "A file, the files or the upload past a cap (named)", body = crate::error::ErrorBody<'static>), (status = 422, description = "`SKILL.md: …` (with line and column), an unsafe entry (named), `url: {reason}`, `path: several skills found: …`", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED`: 2 fetches of the org under way", body = crate::error::ErrorBody<'static>)))]
pub async fn install(
    state: web::Data<AppState>,
    caller: Admin,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let origin = if is_multipart(&request) {
        read_parts(&request, payload, state.settings.skill_upload_max_bytes).await?
    } else {
        origin_of(&state, json_payload(&state.settings, payload).await?)?
    };
    let skill = state.skills.install(caller.org_id, origin).await?;
    Ok(HttpResponse::Created().json(SkillView::from(skill)))
}
