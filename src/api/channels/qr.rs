//! `GET /api/agents/{id}/channels/whatsapp/qr` (A M,
//! `marketplace-channels.md` §10): the `wa.me` link of the agent's WhatsApp
//! number as JSON (link, SVG and a PNG data URL), SVG or PNG.

use actix_web::{HttpResponse, web};
use base64::Engine;
use confer_actors::{AgentId, ChannelId};
use serde::{Deserialize, Serialize};

use crate::api::agents::live_agent;
use crate::auth::Member;
use crate::channels::qr;
use crate::channels::{Channel, ChannelKind};
use crate::error::ApiError;
use crate::state::AppState;

/// The QR route's query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QrQuery {
    /// Needed only when the agent has several WhatsApp channels.
    #[serde(rename = "channelId")]
    #[param(value_type = Option<uuid::Uuid>)]
    channel_id: Option<String>,
    /// `json` (default), `svg` or `png`.
    format: Option<String>,
    /// The PNG's side, 128–1,024 (512).
    size: Option<u32>,
    /// A message to prefill, at most 500 characters.
    text: Option<String>,
}

/// The JSON answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct QrAnswer {
    #[schema(value_type = uuid::Uuid)]
    channel_id: ChannelId,
    link: String,
    svg: String,
    /// `data:image/png;base64,…`
    png: String,
}

fn bad(detail: &str) -> ApiError {
    ApiError::BadRequest(detail.into())
}

/// `GET /api/agents/{id}/channels/whatsapp/qr`
#[utoipa::path(get, path = "/api/agents/{agent_id}/channels/whatsapp/qr", tag = "channels", operation_id = "channels_whatsapp_qr", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), QrQuery), responses((status = 200, description = "The link and its QR code (JSON), or the SVG or PNG itself", body = QrAnswer), (status = 400, description = "A bad format, size, text or channelId; several channels and no channelId", body = crate::error::ErrorBody<'static>), (status = 404, description = "The agent has no WhatsApp channel (or not that one)", body = crate::error::ErrorBody<'static>)))]
pub async fn code(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
    query: web::Query<QrQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let format = query.format.as_deref().unwrap_or("json");
    if !["json", "svg", "png"].contains(&format) {
        return Err(bad("format: json, svg or png"));
    }
    let size = query.size.unwrap_or(qr::DEFAULT_SIZE);
    if !(qr::MIN_SIZE..=qr::MAX_SIZE).contains(&size) {
        return Err(bad("size: 128 to 1024"));
    }
    if query
        .text
        .as_ref()
        .is_some_and(|t| t.chars().count() > qr::MAX_TEXT)
    {
        return Err(bad("text: at most 500 characters"));
    }
    let wanted = match &query.channel_id {
        Some(id) => Some(
            id.parse::<ChannelId>()
                .map_err(|_| bad("channelId: not a channel id"))?,
        ),
        None => None,
    };
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (agent.org_id, agent.id);
    let whatsapp: Vec<Channel> = state
        .store
        .run(move |s| s.agent_channels(org, id))
        .await?
        .into_iter()
        .filter(|c| c.kind == ChannelKind::Whatsapp)
        .collect();
    let channel = match wanted {
        Some(id) => whatsapp.into_iter().find(|c| c.id == id),
        None if whatsapp.len() > 1 => {
            return Err(bad("channelId: the agent has several WhatsApp channels"));
        }
        None => whatsapp.into_iter().next(),
    }
    .ok_or_else(|| ApiError::not_found("WhatsApp channel"))?;
    let number = channel
        .settings
        .business_number
        .clone()
        .ok_or_else(|| ApiError::not_found("the channel's business number"))?;
    let link = qr::link(&number, query.text.as_deref());
    let failed = |e: String| ApiError::Internal(format!("drawing a QR code: {e}"));
    Ok(match format {
        "svg" => HttpResponse::Ok()
            .content_type("image/svg+xml")
            .body(qr::svg(&link).map_err(failed)?),
        "png" => HttpResponse::Ok()
            .content_type("image/png")
            .body(qr::png(&link, size).map_err(failed)?),
        _ => {
            let png = qr::png(&link, size).map_err(failed)?;
            HttpResponse::Ok().json(QrAnswer {
                channel_id: channel.id,
                svg: qr::svg(&link).map_err(failed)?,
                png: format!(
                    "data:image/png;base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(png)
                ),
                link,
            })
        }
    })
}
