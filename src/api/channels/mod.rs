//! An agent's messaging channels (`marketplace-channels.md` §7, §10): list
//! (A M), create (A), PATCH and DELETE (A) here; contacts (A M) in
//! `contacts`, WhatsApp's QR code (A M) in `qr`. A create or a credentials change asks the vendor first
//! and stores nothing it refused. The vendors' webhook is in `webhook`.
//! Rules: `crate::channels`; storage: `crate::store::channels`.

pub mod contacts;
pub mod qr;
mod setup;
pub mod webhook;

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, ChannelId, OrgId};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::channels::{
    Channel, ChannelKind, ChannelSettings, ChannelStatus, Credentials, SettingsChange, name_rule,
    sha256_hex, verify_token, webhook_secret,
};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::channels::ChannelWrite;
use crate::store::channels::jobs::{ChannelJob, JobWork};
use crate::store::update::Updated;
use setup::{opened_of, sealed, taken, verify};

/// A channel as the routes answer it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ChannelView {
    #[schema(value_type = uuid::Uuid)]
    id: ChannelId,
    #[schema(value_type = uuid::Uuid)]
    org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    kind: ChannelKind,
    name: String,
    enabled: bool,
    status: ChannelStatus,
    last_error: Option<String>,
    /// Where the vendor delivers (`{CONFER_PUBLIC_URL}/api/channels/{id}/webhook`).
    webhook_url: String,
    settings: ChannelSettings,
    has_credentials: bool,
    contact_count: u64,
    last_message_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    /// WhatsApp: the verify token, shown on create and on a rotation only.
    #[serde(skip_serializing_if = "Option::is_none")]
    verify_token: Option<String>,
}

fn webhook_url(state: &AppState, id: ChannelId) -> String {
    format!(
        "{}/api/channels/{id}/webhook",
        state.settings.public_url().trim_end_matches('/')
    )
}

fn view(state: &AppState, channel: Channel, verify_token: Option<String>) -> ChannelView {
    ChannelView {
        webhook_url: webhook_url(state, channel.id),
        id: channel.id,
        org_id: channel.org_id,
        agent_id: channel.agent_id,
        kind: channel.kind,
        name: channel.name,
        enabled: channel.enabled,
        status: channel.status,
        last_error: channel.last_error,
        settings: channel.settings,
        has_credentials: !channel.sealed.is_empty(),
        contact_count: channel.contact_count,
        last_message_at: channel.last_message_at,
        created_at: channel.created_at,
        updated_at: channel.updated_at,
        verify_token,
    }
}

fn refused((field, rule): (String, String)) -> ApiError {
    ApiError::invalid(&field, rule)
}

/// `GET /api/agents/{id}/channels`
#[utoipa::path(get, path = "/api/agents/{agent_id}/channels", tag = "channels", operation_id = "channels_list", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent's channels, oldest first", body = [ChannelView])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    let channels = state.store.run(move |s| s.agent_channels(org, id)).await?;
    let views: Vec<_> = channels
        .into_iter()
        .map(|c| view(&state, c, None))
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `POST /api/agents/{id}/channels` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateChannel {
    kind: ChannelKind,
    /// 1–100 characters (default: the vendor's name).
    name: Option<String>,
    credentials: Credentials,
    settings: Option<SettingsChange>,
}

/// `POST /api/agents/{id}/channels`: 201, after the vendor accepted.
#[utoipa::path(post, path = "/api/agents/{agent_id}/channels", tag = "channels", operation_id = "channels_create", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = CreateChannel, responses((status = 201, description = "The channel (WhatsApp: with its `verify_token`, shown this once)", body = ChannelView), (status = 409, description = "Another channel has this bot, team or number; or the agent (10) or org (100) has all its channels", body = crate::error::ErrorBody<'static>), (status = 422, description = "A credential the vendor refused or a missing one (`credentials.botToken`), a setting out of range", body = crate::error::ErrorBody<'static>), (status = 502, description = "`UPSTREAM_UNAVAILABLE`: the vendor did not answer; nothing stored", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<CreateChannel>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let kind = body.kind;
    let name = name_rule(body.name.as_deref().unwrap_or(match kind {
        ChannelKind::Telegram => "Telegram",
        ChannelKind::Slack => "Slack",
        ChannelKind::Whatsapp => "WhatsApp",
    }))
    .map_err(refused)?;
    body.credentials.check(kind).map_err(refused)?;
    let mut settings = body
        .settings
        .unwrap_or_default()
        .apply(ChannelSettings::default())
        .map_err(refused)?;
    if kind == ChannelKind::Whatsapp && settings.phone_number_id.is_none() {
        return Err(ApiError::invalid("settings.phoneNumberId", "required"));
    }
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let id = ChannelId::new();
    let secret = (kind == ChannelKind::Telegram).then(webhook_secret);
    let opened = opened_of(&body.credentials, secret.clone().unwrap_or_default());
    let verified = verify(&state, id, kind, &opened, &settings).await?;
    if kind == ChannelKind::Whatsapp && settings.business_number.is_none() {
        settings.business_number = verified.business_number.clone();
    }
    let token = (kind == ChannelKind::Whatsapp).then(verify_token);
    let now = Utc::now();
    let channel = Channel {
        id,
        org_id: agent.org_id,
        agent_id: agent.id,
        kind,
        name,
        enabled: true,
        status: ChannelStatus::Active,
        last_error: None,
        settings,
        identity: verified.identity,
        bot_user: verified.bot_user,
        sealed: Default::default(),
        verify_token_sha256: token.as_deref().map(sha256_hex),
        contact_count: 0,
        last_message_at: None,
        created_at: now,
        updated_at: now,
    };
    let channel = sealed(&state, channel, body.credentials, secret).await?;
    let stored = channel.clone();
    match state
        .store
        .write(move |s| s.create_channel(&stored))
        .await?
    {
        Ok(()) => Ok(HttpResponse::Created().json(view(&state, channel, token))),
        Err(ChannelWrite::Taken) => Err(taken(kind)),
        Err(ChannelWrite::Full(what)) => Err(ApiError::Conflict(what.into())),
        Err(ChannelWrite::AgentGone) => Err(ApiError::not_found("agent")),
    }
}

/// `PATCH …/channels/{channelId}` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateChannel {
    name: Option<String>,
    enabled: Option<bool>,
    /// Replaces every credential; checked with the vendor again.
    credentials: Option<Credentials>,
    settings: Option<SettingsChange>,
    /// WhatsApp: a new verify token, shown in the answer.
    #[serde(default)]
    rotate_verify_token: bool,
}

/// A channel of the agent in the caller's org (else 404).
pub(super) async fn agent_channel(
    state: &AppState,
    caller: &crate::auth::Caller,
    agent: AgentId,
    id: ChannelId,
) -> Result<Channel, ApiError> {
    let agent = live_agent(state, caller, agent).await?;
    let org = agent.org_id;
    state
        .store
        .run(move |s| s.org_channel(org, id))
        .await?
        .filter(|c| c.agent_id == agent.id)
        .ok_or_else(|| ApiError::not_found("channel"))
}

/// `PATCH /api/agents/{id}/channels/{channelId}`
#[utoipa::path(patch, path = "/api/agents/{agent_id}/channels/{channel_id}", tag = "channels", operation_id = "channels_update", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("channel_id" = uuid::Uuid, Path, description = "The channel's id")), request_body = UpdateChannel, responses((status = 200, description = "The channel as stored (`status: active` after accepted credentials)", body = ChannelView), (status = 409, description = "The new credentials' bot belongs to another channel", body = crate::error::ErrorBody<'static>), (status = 422, description = "A refused or missing credential, a setting out of range", body = crate::error::ErrorBody<'static>), (status = 502, description = "`UPSTREAM_UNAVAILABLE`", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<(AgentId, ChannelId)>,
    body: JsonBody<UpdateChannel>,
) -> Result<HttpResponse, ApiError> {
    let (agent, id) = path.into_inner();
    let body = body.into_inner();
    let current = agent_channel(&state, &caller, agent, id).await?;
    let name = body
        .name
        .as_deref()
        .map(name_rule)
        .transpose()
        .map_err(refused)?;
    let settings = match &body.settings {
        Some(change) => change.apply(current.settings.clone()).map_err(refused)?,
        None => current.settings.clone(),
    };
    let number_moved = settings.phone_number_id != current.settings.phone_number_id;
    let mut replaced = None;
    if body.credentials.is_some() || number_moved {
        let stored = current.clone();
        let old = state.store.run(move |s| s.open_channel(&stored)).await?;
        let (opened, resealed) = match body.credentials {
            Some(credentials) => {
                credentials.check(current.kind).map_err(refused)?;
                // Telegram keeps its webhook secret: a refused change
                // leaves the channel's deliveries verifiable.
                let secret = (current.kind == ChannelKind::Telegram)
                    .then(|| old.secret_token.clone())
                    .filter(|s| !s.is_empty());
                let opened = opened_of(&credentials, secret.clone().unwrap_or_default());
                let resealed = sealed(&state, current.clone(), credentials, secret).await?;
                (opened, resealed.sealed)
            }
            None => (old, current.sealed.clone()),
        };
        let verified = verify(&state, id, current.kind, &opened, &settings).await?;
        replaced = Some((verified, resealed));
    }
    let rotated =
        (body.rotate_verify_token && current.kind == ChannelKind::Whatsapp).then(verify_token);
    let (org, kind) = (current.org_id, current.kind);
    let (enabled, token) = (body.enabled, rotated.clone());
    let outcome = state
        .store
        .write(move |s| {
            s.update_channel(
                org,
                id,
                || taken(kind),
                |mut c| {
                    if let Some(name) = &name {
                        c.name = name.clone();
                    }
                    if let Some(enabled) = enabled {
                        c.enabled = enabled;
                    }
                    c.settings = settings.clone();
                    if let Some((verified, sealed)) = &replaced {
                        c.identity = verified.identity.clone();
                        c.bot_user = verified.bot_user.clone();
                        c.sealed = sealed.clone();
                        c.status = ChannelStatus::Active;
                        c.last_error = None;
                    }
                    if let Some(token) = &token {
                        c.verify_token_sha256 = Some(sha256_hex(token));
                    }
                    c.updated_at = Utc::now();
                    Ok(c)
                },
            )
        })
        .await?;
    match outcome {
        Updated::Stored(channel) => Ok(HttpResponse::Ok().json(view(&state, channel, rotated))),
        Updated::Gone => Err(ApiError::not_found("channel")),
        Updated::Refused(error) => Err(error),
    }
}

/// The durable `deleteWebhook` a deleted Telegram channel leaves.
pub fn cleanup_of(channel: &Channel) -> Option<ChannelJob> {
    let sealed = channel.sealed.get("bot_token")?;
    (channel.kind == ChannelKind::Telegram).then(|| ChannelJob {
        id: confer_actors::ChannelJobId::new(),
        org_id: channel.org_id,
        channel_id: channel.id,
        work: JobWork::DeleteWebhook {
            sealed_bot_token: sealed.clone(),
        },
        reply: None,
        attempts: 0,
        not_before: Utc::now(),
        created_at: Utc::now(),
    })
}

/// `DELETE /api/agents/{id}/channels/{channelId}`: the channel, its
/// contacts, jobs and keys; its threads stay.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/channels/{channel_id}", tag = "channels", operation_id = "channels_delete", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("channel_id" = uuid::Uuid, Path, description = "The channel's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<(AgentId, ChannelId)>,
) -> Result<HttpResponse, ApiError> {
    let (agent, id) = path.into_inner();
    let channel = agent_channel(&state, &caller, agent, id).await?;
    let org = channel.org_id;
    let cleanup = cleanup_of(&channel);
    state
        .store
        .write(move |s| s.delete_channel(org, id, cleanup.as_ref()))
        .await?;
    state.channels.wake();
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
