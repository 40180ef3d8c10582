//! `Idempotency-Key` on run creates and resumes (`runners.md` Routes,
//! streams.md's rules): the key's hash, scoped by the caller, and the
//! answer to a repeat (the run as it is now, or 422).

use actix_web::HttpResponse;
use confer_actors::RunId;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::state::AppState;

/// The hash of a caller's `Idempotency-Key` for `what`.
pub(super) fn caller_key(what: &[u8], caller: &str, key: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in [what, caller.as_bytes(), key.as_bytes()] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// A key seen in `scope`: `Ok(run)` for the same request, `Err` for
/// another; `None`: unseen (or no key).
pub(super) async fn replay(
    state: &AppState,
    scope: &[u8; 16],
    keyed: Option<&([u8; 32], String)>,
) -> Result<Option<Result<RunId, ()>>, ApiError> {
    let Some((key, request)) = keyed.cloned() else {
        return Ok(None);
    };
    let scope = *scope;
    let seen = state.store.run(move |s| s.run_key(&scope, &key)).await?;
    Ok(seen.map(|seen| {
        if seen.request == request {
            Ok(seen.run_id)
        } else {
            Err(())
        }
    }))
}

/// The answer to a repeated key: the run as it is now, or 422.
pub(super) async fn replayed_answer(
    state: &AppState,
    org: confer_actors::OrgId,
    replayed: Result<RunId, ()>,
    mut answer: actix_web::HttpResponseBuilder,
) -> Result<HttpResponse, ApiError> {
    let Ok(id) = replayed else {
        return Err(super::webhooks::key_reused());
    };
    let run = state
        .store
        .run(move |s| s.run(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("run"))?;
    Ok(answer
        .insert_header(("Idempotent-Replayed", "true"))
        .json(run.run))
}
