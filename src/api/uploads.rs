//! Multipart uploads' parts (knowledge files, code agents' archives): a
//! file part streamed to a scratch file (hashed as it comes, refused with
//! 413 past its limit, never held in memory), and a bounded text part.

use std::path::{Path, PathBuf};

use actix_multipart::Field;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::error::ApiError;

/// The scratch file of an upload: removed unless it was moved away.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A scratch file at `path` (created by the receive).
    pub fn new(path: PathBuf) -> Self {
        Self(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A received file part.
pub struct Received {
    /// The part's file name.
    pub name: String,
    pub scratch: Scratch,
    pub size: u64,
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
    /// The first 4 KiB, to tell the file's type.
    pub head: Vec<u8>,
}

/// Streams a file part to `scratch`; `limit` is `(part, most bytes, the
/// setting that says so)` for the details.
pub async fn receive_file(
    field: &mut Field,
    scratch: Scratch,
    (part, max, setting): (&str, u64, &str),
) -> Result<Received, ApiError> {
    let name = field
        .content_disposition()
        .and_then(|d| d.get_filename())
        .map(str::to_owned)
        .ok_or_else(|| ApiError::BadRequest(format!("{part}: the part has no file name")))?;
    let io = |e: std::io::Error| ApiError::Internal(format!("writing an upload: {}", e.kind()));
    let mut out = tokio::fs::File::create(&scratch.0).await.map_err(io)?;
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut head = Vec::new();
    while let Some(piece) = field.next().await {
        let piece = piece.map_err(|e| ApiError::BadRequest(format!("{part}: {e}")))?;
        size += piece.len() as u64;
        if size > max {
            return Err(ApiError::PayloadTooLarge(format!(
                "{part}: larger than {max} bytes ({setting})"
            )));
        }
        if head.len() < 4096 {
            head.extend_from_slice(&piece[..piece.len().min(4096 - head.len())]);
        }
        hasher.update(&piece);
        out.write_all(&piece).await.map_err(io)?;
    }
    out.flush().await.map_err(io)?;
    Ok(Received {
        name,
        scratch,
        size,
        sha256: hex::encode(hasher.finalize()),
        head,
    })
}

/// A text part of at most `max` bytes, as UTF-8.
pub async fn receive_text(field: &mut Field, name: &str, max: usize) -> Result<String, ApiError> {
    let mut bytes = Vec::new();
    while let Some(piece) = field.next().await {
        let piece = piece.map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))?;
        if bytes.len() + piece.len() > max {
            return Err(ApiError::invalid(name, format!("at most {max} bytes")));
        }
        bytes.extend_from_slice(&piece);
    }
    String::from_utf8(bytes).map_err(|_| ApiError::invalid(name, "must be UTF-8 text"))
}

/// Whether the request's body is a multipart form.
pub fn is_multipart(request: &actix_web::HttpRequest) -> bool {
    request
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/"))
}

/// A JSON body read from a route that also takes multipart (so it has no
/// `JsonBody` extractor): the body limit and depth of every JSON body.
pub async fn json_payload<T: serde::de::DeserializeOwned>(
    settings: &crate::settings::Settings,
    payload: actix_web::web::Payload,
) -> Result<T, ApiError> {
    let limit = settings.max_body_bytes;
    let bytes = payload
        .to_bytes_limited(limit)
        .await
        .map_err(|_| ApiError::PayloadTooLarge(format!("request body: over {limit} bytes")))?
        .map_err(|e| ApiError::BadRequest(format!("request body: {e}")))?;
    super::extract::parse_json_with(&bytes, settings.max_json_depth)
}
