//! A channel's contacts (A M, `marketplace-channels.md` §7): most recent
//! message first, paged by `{last_message_at}|{id}`.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, ChannelId, ContactId, ThreadId};
use serde::{Deserialize, Serialize};

use super::agent_channel;
use crate::auth::Member;
use crate::channels::Contact;
use crate::error::ApiError;
use crate::state::AppState;

/// A contact as answered.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ContactView {
    #[schema(value_type = uuid::Uuid)]
    id: ContactId,
    #[schema(value_type = uuid::Uuid)]
    channel_id: ChannelId,
    external_id: String,
    display_name: Option<String>,
    username: Option<String>,
    #[schema(value_type = Option<uuid::Uuid>)]
    thread_id: Option<ThreadId>,
    message_count: u64,
    first_seen_at: DateTime<Utc>,
    last_message_at: DateTime<Utc>,
}

impl From<Contact> for ContactView {
    fn from(c: Contact) -> Self {
        Self {
            id: c.id,
            channel_id: c.channel_id,
            external_id: c.external_id,
            display_name: c.display_name,
            username: c.username,
            thread_id: c.thread_id,
            message_count: c.message_count,
            first_seen_at: c.first_seen_at,
            last_message_at: c.last_message_at,
        }
    }
}

/// `GET …/contacts` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContactsQuery {
    /// 50 by default, at most 200.
    limit: Option<u32>,
    /// `X-Next-Cursor` of the previous page (`{last_message_at}|{id}`).
    cursor: Option<String>,
}

/// `GET /api/agents/{id}/channels/{channelId}/contacts`
#[utoipa::path(get, path = "/api/agents/{agent_id}/channels/{channel_id}/contacts", tag = "channels", operation_id = "channels_contacts", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("channel_id" = uuid::Uuid, Path, description = "The channel's id"), ContactsQuery), responses((status = 200, description = "Contacts, most recent message first; `X-Next-Cursor` when more follow", body = [ContactView]), (status = 400, description = "A cursor not of this list", body = crate::error::ErrorBody<'static>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<(AgentId, ChannelId)>,
    query: web::Query<ContactsQuery>,
) -> Result<HttpResponse, ApiError> {
    let (agent, id) = path.into_inner();
    let limit = crate::api::page_limit(query.limit, 50, 200);
    let cursor = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(text) => {
            let parsed = text.split_once('|').and_then(|(at, id)| {
                let at = DateTime::parse_from_rfc3339(at).ok()?.with_timezone(&Utc);
                Some((at, id.parse::<ContactId>().ok()?))
            });
            Some(parsed.ok_or_else(|| {
                ApiError::BadRequest("cursor: expected `{last_message_at}|{id}`".into())
            })?)
        }
    };
    agent_channel(&state, &caller, agent, id).await?;
    let page = state
        .store
        .run(move |s| s.channel_contacts(id, cursor, limit + 1))
        .await?;
    let more = page.len() > limit;
    let page: Vec<Contact> = page.into_iter().take(limit).collect();
    let mut response = HttpResponse::Ok();
    if more && let Some(last) = page.last() {
        response.insert_header((
            "X-Next-Cursor",
            format!(
                "{}|{}",
                crate::api::timestamp(last.last_message_at),
                last.id
            ),
        ));
    }
    Ok(response.json(page.into_iter().map(ContactView::from).collect::<Vec<_>>()))
}
