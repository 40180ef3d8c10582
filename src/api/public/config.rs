//! `/api/public/chat/{slug}`: what a public chat page reads before a
//! visitor does anything (`publishing.md` "Visitors"). No credential; no
//! CORS headers (the page is served by Confer itself). The visitor routes
//! below this prefix come with visitor tokens.

use actix_web::{HttpResponse, web};
use serde::Serialize;

use crate::error::ApiError;
use crate::publishing::{
    DisplayNames, Identity, Persistence, PublicationMode, PublicationStatus, multiplayer_config,
};
use crate::state::AppState;

/// How many of the agent's suggestions stand in for a publication's empty
/// `suggested_prompts`.
const AGENT_PROMPTS: usize = 6;

/// A publication as a visitor's page sees it: nothing of its limits but the
/// message length, nothing of its org, tools or secrets.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PublicChatConfig {
    slug: String,
    title: String,
    description: String,
    greeting: Option<String>,
    suggested_prompts: Vec<String>,
    theme_color: String,
    avatar_url: Option<String>,
    persistence: Persistence,
    mode: PublicationMode,
    identity: Identity,
    status: PublicationStatus,
    max_message_chars: u32,
    display_names: DisplayNames,
}

/// `GET /api/public/chat/{slug}`: 404 for an unknown slug (or one whose
/// agent is gone); a paused publication answers with `status: "paused"`
/// (its page shows a notice).
#[utoipa::path(get, path = "/api/public/chat/{slug}", tag = "publishing", operation_id = "public_chat_config", params(("slug" = String, Path, description = "The publication's slug")), responses((status = 200, description = "The chat's configuration", body = PublicChatConfig), (status = 404, description = "No such public chat", body = crate::error::ErrorBody<'static>)))]
pub async fn config(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let slug = path.into_inner();
    let mut publication = state
        .store
        .publications()
        .publication_by_slug(slug, true)
        .await?
        .ok_or_else(|| ApiError::NotFound("no such public chat".into()))?;
    let (org, agent) = (publication.org_id, publication.agent_id);
    let display_names = multiplayer_config(&state.store, org, agent)
        .await?
        .display_names;
    // An empty list shows the agent's first suggestions (agent-extras.md
    // §2).
    if publication.suggested_prompts.is_empty()
        && let Some(agent) = crate::suggestions::agent::stored(&state.store, org, agent).await?
    {
        publication.suggested_prompts = agent.suggestions.into_iter().take(AGENT_PROMPTS).collect();
    }
    Ok(HttpResponse::Ok().json(PublicChatConfig {
        slug: publication.slug,
        title: publication.title,
        description: publication.description,
        greeting: publication.greeting,
        suggested_prompts: publication.suggested_prompts,
        theme_color: publication.theme_color,
        avatar_url: publication.avatar_url,
        persistence: publication.persistence,
        mode: publication.mode,
        identity: publication.identity,
        status: publication.status,
        max_message_chars: publication.limits.max_message_chars,
        display_names,
    }))
}
