//! A code agent's body (`computer.md` §5): JSON, or multipart with a
//! `config` part and an `archive` part streamed to a scratch file,
//! checked entry by entry and kept (fsynced) before the record names it.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, web};
use confer_actors::{CodeAgentId, OrgId};
use futures_util::StreamExt;

use crate::api::extract::parse_json_with;
use crate::api::uploads::{
    Received, Scratch, is_multipart, json_payload, receive_file, receive_text,
};
use crate::code::agents::ArchiveInfo;
use crate::code::archive::{self, ArchiveKind};
use crate::code::changes::CodeAgentInput;
use crate::code::files::CodeArchives;
use crate::error::ApiError;
use crate::state::AppState;

/// The most bytes of the `config` part.
const MAX_CONFIG_BYTES: usize = 256 * 1024;

/// A checked archive, kept under its final name until the record is
/// stored (then `commit`), else removed on drop.
pub(super) struct KeptArchive {
    archives: CodeArchives,
    org: OrgId,
    pub(super) info: ArchiveInfo,
    committed: bool,
}

impl KeptArchive {
    pub(super) fn commit(mut self) {
        self.committed = true;
    }
}

impl Drop for KeptArchive {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.archives.remove(self.org, &self.info.stored_as);
        }
    }
}

/// Checks the upload and keeps it as `id`'s archive.
pub(super) async fn keep_archive(
    state: &AppState,
    org: OrgId,
    id: CodeAgentId,
    upload: Received,
) -> Result<KeptArchive, ApiError> {
    let kind = ArchiveKind::sniff(&upload.head)
        .ok_or_else(|| ApiError::invalid("archive", "not a tar, tar.gz or zip"))?;
    let path = upload.scratch.path().to_owned();
    web::block(move || archive::check(&path, kind))
        .await
        .map_err(|e| ApiError::Internal(format!("checking an archive: {e}")))?
        .map_err(|fault| ApiError::invalid("archive", fault))?;
    let stored_as = CodeArchives::name(id, &upload.sha256, kind.extension());
    let archives = state.code_archives.clone();
    let (kept_by, name) = (archives.clone(), stored_as.clone());
    let scratch = upload.scratch;
    web::block(move || kept_by.keep(scratch.path(), org, &name))
        .await
        .map_err(|e| ApiError::Internal(format!("keeping an archive: {e}")))?
        .map_err(|e| ApiError::Internal(format!("keeping an archive: {}", e.kind())))?;
    Ok(KeptArchive {
        archives,
        org,
        info: ArchiveInfo {
            filename: upload.name.chars().take(255).collect(),
            bytes: upload.size,
            sha256: upload.sha256,
            stored_as,
        },
        committed: false,
    })
}

/// A body: its fields, and the archive part if multipart held one.
pub(super) async fn read_body(
    state: &AppState,
    request: &HttpRequest,
    payload: web::Payload,
) -> Result<(CodeAgentInput, Option<Received>), ApiError> {
    if !is_multipart(request) {
        return Ok((json_payload(&state.settings, payload).await?, None));
    }
    let mut parts = Multipart::new(request.headers(), payload);
    let (mut config, mut upload) = (None, None);
    while let Some(field) = parts.next().await {
        let mut field =
            field.map_err(|e| ApiError::BadRequest(format!("not a multipart form: {e}")))?;
        match field.name().unwrap_or_default() {
            "config" if config.is_none() => {
                let text = receive_text(&mut field, "config", MAX_CONFIG_BYTES).await?;
                config = Some(parse_json_with::<CodeAgentInput>(
                    text.as_bytes(),
                    state.settings.max_json_depth,
                )?);
            }
            "archive" if upload.is_none() => {
                let scratch = Scratch::new(
                    state
                        .code_archives
                        .scratch()
                        .join(format!("upload-{}", uuid::Uuid::now_v7())),
                );
                let limit = (
                    "archive",
                    state.settings.code_archive_max_bytes,
                    "CONFER_CODE_ARCHIVE_MAX_BYTES",
                );
                upload = Some(receive_file(&mut field, scratch, limit).await?);
            }
            "config" | "archive" => {
                return Err(ApiError::BadRequest(format!(
                    "{}: at most one part",
                    field.name().unwrap_or_default()
                )));
            }
            // Other parts are read and ignored.
            _ => while field.next().await.is_some() {},
        }
    }
    Ok((config.unwrap_or_default(), upload))
}
