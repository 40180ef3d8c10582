//! Publishing (`publishing.md`): an agent's publication as a public chat,
//! the org's allowed embed domains and the agent's multiplayer settings.
//! This module owns the records and their rules (bounds, defaults, slugs);
//! the store keeps them (`store::publications`), the HTTP layer shapes them
//! (`api::publish`, `api::org_settings`, `api::multiplayer`).

pub mod budget;
pub mod chats;
pub mod client_ip;
pub mod domains;
pub mod identity_secret;
pub mod limits;
pub mod names;
pub mod retention;
pub mod rules;
pub mod shared_turns;
pub mod slug_cache;
pub mod visitors;

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, PublicationId};
use serde::{Deserialize, Serialize};

pub use domains::EmbedOrigin;

/// The threads one visitor may keep in a publication (`publishing.md` §3:
/// past it, 409).
pub const MAX_THREADS_PER_VISITOR: usize = 100;

/// Where the chat page keeps a visitor's secret, thread and last event id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Persistence {
    #[default]
    Local,
    Session,
    None,
}

/// Whether a publication serves visitors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PublicationStatus {
    #[default]
    Active,
    Paused,
}

/// The kind of the threads a publication creates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PublicationMode {
    #[default]
    Single,
    Multiplayer,
}

/// Whether visitors are identified by the host site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Identity {
    #[default]
    Anonymous,
    Optional,
    Required,
}

impl Identity {
    /// Upstream's `visibility`: `private` iff identity is required.
    pub fn visibility(self) -> &'static str {
        match self {
            Self::Required => "private",
            _ => "public",
        }
    }
}

/// A publication's abuse limits (`limits {…}`, merged by key on update).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PublicationLimits {
    pub visitor_messages_per_minute: u32,
    pub ip_messages_per_minute: u32,
    pub max_concurrent_turns: u32,
    pub max_message_chars: u32,
    /// Tokens per UTC day; `None`: no budget.
    pub daily_token_budget: Option<u64>,
    pub max_output_tokens: u32,
}

impl Default for PublicationLimits {
    fn default() -> Self {
        Self {
            visitor_messages_per_minute: 10,
            ip_messages_per_minute: 60,
            max_concurrent_turns: 4,
            max_message_chars: 4000,
            daily_token_budget: Some(1_000_000),
            max_output_tokens: 1024,
        }
    }
}

/// An agent's publication, as stored (one per agent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Publication {
    pub id: PublicationId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    /// Never changes: the page's URL is stable.
    pub slug: String,
    pub title: String,
    pub description: String,
    pub greeting: Option<String>,
    pub suggested_prompts: Vec<String>,
    pub theme_color: String,
    pub avatar_url: Option<String>,
    pub persistence: Persistence,
    pub retention_days: Option<u32>,
    pub status: PublicationStatus,
    pub mode: PublicationMode,
    /// Stored form of each entry; `None`: the org's list.
    pub allowed_domains: Option<Vec<String>>,
    pub identity: Identity,
    pub public_tools: Vec<String>,
    pub limits: PublicationLimits,
    /// `cfi_…`, sealed; made when identity first leaves `anonymous`.
    pub identity_secret: Option<String>,
    /// Starts at 1; a pause or `revokeSessions` bumps it, ending every
    /// visitor token minted before.
    pub generation: u64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Publication {
    /// A new publication of `agent` under `slug`, every field at its
    /// default (the title is set from the agent's name by the rules).
    pub fn new(org: OrgId, agent: AgentId, slug: String) -> Self {
        let now = Utc::now();
        Self {
            id: PublicationId::new(),
            org_id: org,
            agent_id: agent,
            slug,
            title: String::new(),
            description: String::new(),
            greeting: None,
            suggested_prompts: Vec::new(),
            theme_color: "#2563eb".into(),
            avatar_url: None,
            persistence: Persistence::default(),
            retention_days: None,
            status: PublicationStatus::default(),
            mode: PublicationMode::default(),
            allowed_domains: None,
            identity: Identity::default(),
            public_tools: Vec::new(),
            limits: PublicationLimits::default(),
            identity_secret: None,
            generation: 1,
            created_at: now,
            updated_at: now,
        }
    }

    /// Whether the publication serves visitors now.
    pub fn is_active(&self) -> bool {
        self.status == PublicationStatus::Active
    }

    /// The origins that may frame its page: its own list (or the org's),
    /// each covered by the org's list as it is now.
    pub fn effective_domains(&self, org: &[EmbedOrigin]) -> Vec<EmbedOrigin> {
        let own = self.allowed_domains.as_deref().map(parsed);
        domains::effective(own.as_deref(), org)
    }
}

/// An org's publishing settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OrgSettings {
    /// Stored form of each entry.
    pub allowed_embed_domains: Vec<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl OrgSettings {
    /// The allowed embed domains, parsed (entries were checked when stored;
    /// one that no longer parses is left out rather than trusted).
    pub fn origins(&self) -> Vec<EmbedOrigin> {
        parsed(&self.allowed_embed_domains)
    }
}

/// Stored entries, parsed; an unparsable one is left out.
pub fn parsed(entries: &[String]) -> Vec<EmbedOrigin> {
    entries
        .iter()
        .filter_map(|e| EmbedOrigin::parse(e).ok())
        .collect()
}

/// Who may invite to an agent's multiplayer threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WhoCanInvite {
    Owner,
    #[default]
    Participants,
}

impl WhoCanInvite {
    /// Multiplayer rule 2, for API callers and visitors alike: under `owner`
    /// only the thread's owners add participants or get invite links.
    pub fn check(self, is_owner: bool) -> Result<(), crate::error::ApiError> {
        if self == Self::Owner && !is_owner {
            return Err(crate::error::ApiError::Forbidden(
                "participants: only the thread's owners may invite (whoCanInvite: owner)".into(),
            ));
        }
        Ok(())
    }
}

/// How visitors are named in multiplayer threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DisplayNames {
    #[default]
    Chosen,
    Generated,
}

/// An agent's multiplayer configuration (`publishing.md` "Multiplayer
/// configuration"): it governs every multiplayer thread of the agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MultiplayerConfig {
    pub max_participants: u32,
    pub who_can_invite: WhoCanInvite,
    pub display_names: DisplayNames,
    #[schema(value_type = Option<String>)]
    pub updated_at: Option<DateTime<Utc>>,
}

impl Default for MultiplayerConfig {
    fn default() -> Self {
        Self {
            max_participants: 10,
            who_can_invite: WhoCanInvite::default(),
            display_names: DisplayNames::default(),
            updated_at: None,
        }
    }
}

/// The agent's multiplayer configuration (its defaults when never set).
pub async fn multiplayer_config(
    store: &crate::store::Store,
    org: OrgId,
    agent: AgentId,
) -> Result<MultiplayerConfig, confer_actors::StoreError> {
    use crate::store::port::{PlainConfig, agent_config};
    agent_config(store.configs(), org, agent, PlainConfig::Multiplayer).await
}
