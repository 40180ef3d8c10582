//! `POST /api/runners/webhooks/{token}` (`runners.md` Inbound webhooks):
//! another system starts a run by posting its input. No bearer: the path
//! token is the credential. The checks run in the contract's order, each
//! before the next costs anything: the token (404), the body's size
//! (413, unread past the cap), the signature over the raw bytes (401),
//! the media type (415), the JSON (400), an idempotent repeat (202 with
//! the same run), the trigger's rate (429), the input (422), the queue
//! (429). The run, its nonce and its key are one flushed transaction.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::{Metadata, codes};
use futures_util::StreamExt;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::auth::api_keys::hash_secret;
use crate::error::ApiError;
use crate::resolver::{NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER};
use crate::runners::schema;
use crate::runners::triggers::{SignatureRefused, TriggerRecord, verify};
use crate::runners::{Run, RunRecord, RunTrigger, Runner, TriggerKind};
use crate::state::AppState;
use crate::store::runners::keyed::KeyedRun;

/// The header a repeat's answer carries.
const REPLAYED: &str = "Idempotent-Replayed";

/// `POST /api/runners/webhooks/{token}`
#[utoipa::path(post, path = "/api/runners/webhooks/{token}", tag = "runners", operation_id = "runner_webhook", params(("token" = String, Path, description = "The trigger's path token (`whk_…`)")), request_body(content = Object, description = "The run's input, checked against the runner's `inputSchema`"), responses((status = 202, description = "`{run_id}`; a repeat of an idempotency key answers its run with `Idempotent-Replayed: true`"), (status = 401, description = "A signed trigger's headers are missing, stale, replayed or wrong (the detail names the header)", body = crate::error::ErrorBody<'static>), (status = 404, description = "Unknown, disabled or rotated-out token", body = crate::error::ErrorBody<'static>), (status = 413, description = "Over the trigger's `max_body_bytes`", body = crate::error::ErrorBody<'static>), (status = 415, description = "Not JSON", body = crate::error::ErrorBody<'static>), (status = 422, description = "The input breaks the schema, or the key was used for another body", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED` or `RUNNER_QUEUE_FULL`, with `Retry-After`", body = crate::error::ErrorBody<'static>)))]
pub async fn receive(
    state: web::Data<AppState>,
    path: web::Path<String>,
    request: HttpRequest,
    mut payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (record, runner) = trigger_of(&state, &path.into_inner()).await?;
    let settings = &record.trigger.webhook;
    let cap = settings.max_body_bytes as usize;
    let too_large =
        || ApiError::PayloadTooLarge(format!("the body is over this webhook's {cap} bytes"));
    let declared = header(&request, "content-length").and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > cap) {
        return Err(too_large());
    }
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("the body: {e}")))?;
        if body.len() + chunk.len() > cap {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    let nonce = header(&request, NONCE_HEADER);
    if settings.require_signature {
        let store = state.store.clone();
        let sealed = record.clone();
        let secret = store
            .run(move |s| s.trigger_secret(&sealed))
            .await?
            .ok_or_else(|| ApiError::Internal("a signed trigger without its secret".into()))?;
        let checked = verify(
            secret.expose_secret(),
            header(&request, TIMESTAMP_HEADER),
            nonce,
            header(&request, SIGNATURE_HEADER),
            &body,
            Utc::now(),
        );
        let refused = |detail: String| Err(ApiError::Unauthorized(detail));
        match checked {
            Ok(()) => {}
            Err(SignatureRefused::Missing(name)) => return refused(format!("{name}: missing")),
            Err(SignatureRefused::Stale) => {
                return refused(format!("{TIMESTAMP_HEADER}: more than 300 s from now"));
            }
            Err(SignatureRefused::Mismatch) => {
                return refused(format!("{SIGNATURE_HEADER}: does not match the body"));
            }
        }
        let (trigger, used) = (record.trigger.id, nonce.unwrap_or_default().to_owned());
        if state
            .store
            .run(move |s| s.nonce_used(trigger, &used))
            .await?
        {
            return refused(format!("{NONCE_HEADER}: already used"));
        }
    }
    if !is_json(&request) {
        return Err(ApiError::Refused {
            code: codes::UNSUPPORTED_MEDIA_TYPE,
            detail: "Content-Type: application/json only".into(),
            retry_after: None,
        });
    }
    let input: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not JSON: {e}")))?;
    let key = match header(&request, &settings.idempotency_header) {
        Some(key) if key.is_empty() || key.len() > 255 => {
            return Err(ApiError::BadRequest(format!(
                "{}: 1 to 255 characters",
                settings.idempotency_header
            )));
        }
        Some(key) => Some((hash_secret(key), hex::encode(Sha256::digest(&body)))),
        None => None,
    };
    if let Some((hash, request_hash)) = &key {
        let (trigger, hash) = (record.trigger.id, *hash);
        if let Some(seen) = state
            .store
            .run(move |s| s.run_key(trigger.as_bytes(), &hash))
            .await?
        {
            return repeat(seen.run_id, &seen.request == request_hash);
        }
    }
    state
        .limits
        .trigger_request(record.trigger.id, settings.rate_limit_per_min)?;
    let validator = schema::compile(&runner.input_schema)
        .map_err(|e| ApiError::Internal(format!("a stored input schema: {e}")))?;
    let errors: Vec<_> = schema::errors(&validator, &input)
        .into_iter()
        .map(|e| schema::FieldError {
            path: format!("input{}", e.path),
            message: e.message,
        })
        .collect();
    if !errors.is_empty() {
        return Err(ApiError::InvalidFields(errors));
    }
    let trigger_id = record.trigger.id.to_string();
    let run = RunRecord::queued(
        &runner,
        input,
        Metadata::new(),
        RunTrigger {
            kind: TriggerKind::Webhook,
            id: Some(trigger_id.clone()),
            scheduled_for: None,
        },
        Run::trigger_user(TriggerKind::Webhook, &trigger_id),
    );
    let max_queued = runner.max_queued_runs;
    let (scope, nonce) = (
        *record.trigger.id.as_bytes(),
        settings
            .require_signature
            .then(|| nonce.unwrap_or_default().to_owned()),
    );
    match super::runs::create(&state, run, &runner, scope, nonce, key).await? {
        KeyedRun::Created(run) => Ok(HttpResponse::Accepted().json(json!({ "run_id": run.id }))),
        KeyedRun::Replayed(run) => repeat(run, true),
        KeyedRun::KeyReused => Err(key_reused()),
        KeyedRun::NonceUsed => Err(ApiError::Unauthorized(format!(
            "{NONCE_HEADER}: already used"
        ))),
        KeyedRun::QueueFull => Err(super::runs::queue_full(max_queued)),
        KeyedRun::RunnerGone => Err(ApiError::not_found("webhook")),
    }
}

/// The trigger and live runner a token opens, or 404 (unknown, disabled,
/// rotated out, or its runner deleted).
async fn trigger_of(state: &AppState, token: &str) -> Result<(TriggerRecord, Runner), ApiError> {
    let hash = hash_secret(token);
    let found = state
        .store
        .run(move |s| {
            let Some(entry) = s.webhook_token(&hash)? else {
                return Ok(None);
            };
            if entry.retires_at.is_some_and(|at| at <= Utc::now()) {
                return Ok(None);
            }
            let record = s.trigger_record(entry.org_id, entry.runner_id, entry.trigger_id)?;
            let runner = s.runner(entry.org_id, entry.runner_id)?;
            Ok(record.zip(runner))
        })
        .await?;
    found
        .filter(|(record, runner)| record.trigger.enabled && runner.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("webhook"))
}

pub(super) fn key_reused() -> ApiError {
    ApiError::Refused {
        code: codes::IDEMPOTENCY_KEY_REUSED,
        detail: "the idempotency key was used for a different body".into(),
        retry_after: None,
    }
}

/// The answer to a repeated key: its run (the same body), or 422.
pub(super) fn repeat(run: confer_actors::RunId, same_body: bool) -> Result<HttpResponse, ApiError> {
    if !same_body {
        return Err(key_reused());
    }
    Ok(HttpResponse::Accepted()
        .insert_header((REPLAYED, "true"))
        .json(json!({ "run_id": run })))
}

/// Whether the request says its body is JSON (`application/json` or
/// `…+json`).
pub(super) fn is_json(request: &HttpRequest) -> bool {
    header(request, "content-type")
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| {
            let t = t.trim().to_ascii_lowercase();
            t == "application/json" || t.ends_with("+json")
        })
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}
