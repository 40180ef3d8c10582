//! How a publication is shown: the object of `/api/agents/{id}/publish`
//! and the agent's `published_chats` item.

use serde::Serialize;

use super::super::timestamp;
use crate::publishing::{
    EmbedOrigin, Identity, Persistence, Publication, PublicationLimits, PublicationMode,
    PublicationStatus,
};
use crate::state::AppState;

/// A publication's limits as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LimitsView {
    visitor_messages_per_minute: u32,
    ip_messages_per_minute: u32,
    max_concurrent_turns: u32,
    max_message_chars: u32,
    daily_token_budget: Option<u64>,
    max_output_tokens: u32,
}

impl From<&PublicationLimits> for LimitsView {
    fn from(limits: &PublicationLimits) -> Self {
        Self {
            visitor_messages_per_minute: limits.visitor_messages_per_minute,
            ip_messages_per_minute: limits.ip_messages_per_minute,
            max_concurrent_turns: limits.max_concurrent_turns,
            max_message_chars: limits.max_message_chars,
            daily_token_budget: limits.daily_token_budget,
            max_output_tokens: limits.max_output_tokens,
        }
    }
}

/// Today's (UTC) tokens of a publication against its budget.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UsageToday {
    /// Spent by its visitors' calls today (every token kind).
    tokens: u64,
    /// Held by its running turns.
    reserved: u64,
    /// `limits.daily_token_budget`; null: none.
    budget: Option<u64>,
    /// The next UTC midnight.
    resets_at: String,
}

/// A publication as every route returns it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PublicationView {
    id: String,
    org_id: String,
    agent_id: String,
    slug: String,
    title: String,
    description: String,
    greeting: Option<String>,
    suggested_prompts: Vec<String>,
    theme_color: String,
    avatar_url: Option<String>,
    persistence: Persistence,
    retention_days: Option<u32>,
    status: PublicationStatus,
    mode: PublicationMode,
    allowed_domains: Option<Vec<String>>,
    identity: Identity,
    public_tools: Vec<String>,
    limits: LimitsView,
    /// `{CONFER_PUBLIC_URL}/c/{slug}`.
    url: String,
    embed_snippet: String,
    is_active: bool,
    /// `private` iff identity is `required`.
    visibility: &'static str,
    /// Its own list (or the org's), each covered by the org's list now.
    effective_allowed_domains: Vec<String>,
    has_identity_secret: bool,
    usage_today: UsageToday,
    generation: u64,
    created_at: String,
    updated_at: String,
    /// The identity secret, only in the answer that made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    identity_secret: Option<String>,
}

/// `{CONFER_PUBLIC_URL}/c/{slug}`.
pub fn page_url(state: &AppState, slug: &str) -> String {
    format!(
        "{}/c/{slug}",
        state.settings.public_url().trim_end_matches('/')
    )
}

impl PublicationView {
    /// The view of `publication`, of whose budget `spent` is gone today;
    /// `identity_secret` only in the answer that made it.
    pub fn of(
        state: &AppState,
        publication: Publication,
        org_domains: &[EmbedOrigin],
        identity_secret: Option<String>,
        spent: u64,
    ) -> Self {
        let url = page_url(state, &publication.slug);
        let effective = publication
            .effective_domains(org_domains)
            .iter()
            .map(ToString::to_string)
            .collect();
        Self {
            id: publication.id.to_string(),
            org_id: publication.org_id.to_string(),
            agent_id: publication.agent_id.to_string(),
            embed_snippet: format!("<script async src=\"{url}/embed.js\"></script>"),
            url,
            is_active: publication.is_active(),
            visibility: publication.identity.visibility(),
            effective_allowed_domains: effective,
            has_identity_secret: publication.identity_secret.is_some(),
            usage_today: UsageToday {
                tokens: spent,
                reserved: state.public.reservations.reserved(&publication.id),
                budget: publication.limits.daily_token_budget,
                resets_at: timestamp(crate::publishing::budget::resets_at(chrono::Utc::now())),
            },
            limits: LimitsView::from(&publication.limits),
            slug: publication.slug,
            title: publication.title,
            description: publication.description,
            greeting: publication.greeting,
            suggested_prompts: publication.suggested_prompts,
            theme_color: publication.theme_color,
            avatar_url: publication.avatar_url,
            persistence: publication.persistence,
            retention_days: publication.retention_days,
            status: publication.status,
            mode: publication.mode,
            allowed_domains: publication.allowed_domains,
            identity: publication.identity,
            public_tools: publication.public_tools,
            generation: publication.generation,
            created_at: timestamp(publication.created_at),
            updated_at: timestamp(publication.updated_at),
            identity_secret,
        }
    }
}

/// An agent's `published_chats` item.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PublishedChat {
    id: String,
    slug: String,
    url: String,
    status: PublicationStatus,
    is_active: bool,
    mode: PublicationMode,
}

impl PublishedChat {
    /// The item of `publication`.
    pub fn of(state: &AppState, publication: &Publication) -> Self {
        Self {
            id: publication.id.to_string(),
            slug: publication.slug.clone(),
            url: page_url(state, &publication.slug),
            status: publication.status,
            is_active: publication.is_active(),
            mode: publication.mode,
        }
    }
}
