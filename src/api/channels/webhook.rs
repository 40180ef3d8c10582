//! `GET, POST /api/channels/{channelId}/webhook` (public, vendor-signed;
//! `marketplace-channels.md` §8): the raw body (1 MiB) is verified by the
//! vendor's own scheme before it is parsed; a failure stores and sends
//! nothing. A verified delivery's messages are taken in one transaction,
//! flushed, then answered 200 (inside Slack's 3 s); the turns run later in
//! `crate::channels::worker`.

use actix_web::http::header::ContentType;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::ChannelId;
use futures_util::StreamExt;
use serde::Deserialize;

use crate::channels::vendors::{self, Delivery};
use crate::channels::{Channel, ChannelKind, MAX_PENDING, sha256_hex};
use crate::error::ApiError;
use crate::state::AppState;

/// The largest delivery read.
const MAX_BODY: usize = 1024 * 1024;

async fn channel(state: &AppState, id: &str) -> Result<Channel, ApiError> {
    let id: ChannelId = id.parse().map_err(|_| ApiError::not_found("channel"))?;
    state
        .store
        .run(move |s| s.channel(id))
        .await?
        .ok_or_else(|| ApiError::not_found("channel"))
}

fn unauthorized() -> ApiError {
    ApiError::Unauthorized("the delivery's signature or secret does not verify".into())
}

/// WhatsApp's subscription check (`hub.*`).
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Subscribe {
    #[serde(rename = "hub.mode")]
    mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    challenge: Option<String>,
}

/// `GET /api/channels/{channelId}/webhook`: WhatsApp's subscription check.
#[utoipa::path(get, path = "/api/channels/{channel_id}/webhook", tag = "channels", operation_id = "channels_webhook_verify", params(("channel_id" = uuid::Uuid, Path, description = "The channel's id"), Subscribe), responses((status = 200, description = "`hub.challenge` as text/plain", content_type = "text/plain"), (status = 403, description = "Not a subscription, or the verify token does not match", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such WhatsApp channel", body = crate::error::ErrorBody<'static>)))]
pub async fn subscribe(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<Subscribe>,
) -> Result<HttpResponse, ApiError> {
    let channel = channel(&state, &path).await?;
    if channel.kind != ChannelKind::Whatsapp {
        return Err(ApiError::not_found("channel"));
    }
    let given = query.verify_token.as_deref().unwrap_or("");
    let matches = channel
        .verify_token_sha256
        .as_deref()
        .is_some_and(|hash| vendors::same(hash.as_bytes(), sha256_hex(given).as_bytes()));
    if query.mode.as_deref() != Some("subscribe") || !matches {
        return Err(ApiError::Forbidden(
            "hub.verify_token: not this channel's".into(),
        ));
    }
    Ok(HttpResponse::Ok()
        .insert_header(ContentType::plaintext())
        .body(query.challenge.clone().unwrap_or_default()))
}

/// `POST /api/channels/{channelId}/webhook`: a vendor's delivery.
#[utoipa::path(post, path = "/api/channels/{channel_id}/webhook", tag = "channels", operation_id = "channels_webhook", params(("channel_id" = uuid::Uuid, Path, description = "The channel's id")), request_body(content = Object, description = "The vendor's update, event or notification, as it sent it"), responses((status = 200, description = "Taken (or ignored); Slack's `url_verification` answers its challenge as text/plain"), (status = 400, description = "Verified but not JSON", body = crate::error::ErrorBody<'static>), (status = 401, description = "The signature, secret or timestamp does not verify; nothing stored", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such channel", body = crate::error::ErrorBody<'static>), (status = 413, description = "Over 1 MiB", body = crate::error::ErrorBody<'static>), (status = 429, description = "1,000 jobs wait on the channel (`Retry-After: 30`; vendors retry)", body = crate::error::ErrorBody<'static>)))]
pub async fn deliver(
    state: web::Data<AppState>,
    path: web::Path<String>,
    request: HttpRequest,
    mut payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let channel = channel(&state, &path).await?;
    let mut body = web::BytesMut::new();
    while let Some(piece) = payload.next().await {
        let piece = piece.map_err(|e| ApiError::BadRequest(format!("the body: {e}")))?;
        if body.len() + piece.len() > MAX_BODY {
            return Err(ApiError::PayloadTooLarge("a delivery over 1 MiB".into()));
        }
        body.extend_from_slice(&piece);
    }
    let stored = channel.clone();
    let opened = state.store.run(move |s| s.open_channel(&stored)).await?;
    let now = Utc::now();
    if !vendors::verified(channel.kind, &opened, request.headers(), &body, now) {
        return Err(unauthorized());
    }
    let json: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::BadRequest(format!("the delivery is not JSON: {e}")))?;
    let messages = match vendors::read(&channel, &json) {
        Delivery::Challenge(challenge) => {
            return Ok(HttpResponse::Ok()
                .insert_header(ContentType::plaintext())
                .body(challenge));
        }
        Delivery::Messages(messages) => messages,
    };
    if !channel.enabled || messages.is_empty() {
        return Ok(HttpResponse::Ok().json(super::super::Ok { ok: true }));
    }
    let id = channel.id;
    if state
        .store
        .run(move |s| Ok::<_, confer_actors::StoreError>(s.channel_pending(id)))
        .await?
        >= MAX_PENDING
    {
        return Err(ApiError::RateLimited {
            detail: format!("{MAX_PENDING} messages wait on this channel"),
            limit: MAX_PENDING as u32,
            retry_after: 30,
        });
    }
    let taken = state
        .store
        .write(move |s| s.take_delivery(&channel, &messages, now))
        .await?;
    if taken.dropped > 0 {
        metrics::counter!("confer_channel_messages_dropped_total").increment(taken.dropped as u64);
    }
    if taken.jobs > 0 {
        state.channels.wake();
    }
    Ok(HttpResponse::Ok().json(super::super::Ok { ok: true }))
}
