//! The domain model: what an agent, a thread, a message, a participant and a
//! usage record are, independent of how they are stored or served.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{AgentId, MessageId, OrgId, ThreadId, UsageId};

/// Thread metadata and per-message tags: string keys to string values.
pub type Metadata = BTreeMap<String, String>;

/// The execution runtime of an agent's sandboxed tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeProvider {
    /// The default runtime.
    #[default]
    E2b,
    /// The alternative runtime.
    Daytona,
}

impl RuntimeProvider {
    /// Parses the interface name (`e2b`, `daytona`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "e2b" => Some(Self::E2b),
            "daytona" => Some(Self::Daytona),
            _ => None,
        }
    }
}

/// A named tool profile: which tools a turn may offer (`*` wildcards).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolProfile {
    /// What the profile is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Tool-name patterns that are offered.
    pub allow: Vec<String>,
    /// Tool-name patterns that are withheld even when allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<Vec<String>>,
}

/// An agent: a system prompt, a default model and its tool configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    pub id: AgentId,
    pub org_id: OrgId,
    pub name: String,
    pub description: String,
    /// The system prompt.
    pub stable_preamble: String,
    /// The resolved model ID (the platform default is filled in at creation).
    pub default_model: String,
    pub tool_profiles: Option<BTreeMap<String, ToolProfile>>,
    pub default_profile: Option<String>,
    pub runtime_provider: RuntimeProvider,
    /// The project it belongs to (`agent-extras.md` §5): set by admins,
    /// grants nothing to the project's members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<crate::ProjectId>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Set by DELETE: the agent is gone from the API but its threads stay readable.
    pub deleted_at: Option<DateTime<Utc>>,
}

impl Agent {
    /// Whether the agent was (soft-)deleted.
    pub fn is_deleted(&self) -> bool {
        self.deleted_at.is_some()
    }
}

/// `single` (one user) or `multiplayer` (several participants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ThreadKind {
    #[default]
    Single,
    Multiplayer,
}

/// What made a thread that no client opened (`runners.md` Runs §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ThreadOrigin {
    /// A runner's run: unlisted, read-only to clients.
    Run,
    /// A delegated agent's turn (`agent-extras.md` §3): listed under its
    /// parent only, read-only to clients but for a stop.
    Delegate,
    /// A code session's thread (`computer.md` §6): unlisted, driven
    /// through its session's routes.
    Code,
}

/// A conversation thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub id: ThreadId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub title: Option<String>,
    pub kind: ThreadKind,
    pub active_profile: Option<String>,
    pub metadata: Metadata,
    /// Appended to the agent's system prompt for every turn of this thread.
    pub system_prompt_overlay: Option<String>,
    /// Stored as given until a capability gives the bindings meaning.
    pub resource_bindings: Vec<Value>,
    /// `sub` of the JWT user, or `apikey:{key id}` (`visitor:…` or
    /// `ext:…` for a public chat's visitor).
    pub created_by: String,
    /// The publication a visitor created it through (`publishing.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publication_id: Option<crate::PublicationId>,
    /// Bumped by a visitor's `invite {rotate: true}`: the invite code is
    /// derived from it, so the old code stops working.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invite_generation: u64,
    /// `run` for a run's hidden thread; `None` for the API's threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<ThreadOrigin>,
    /// A delegated thread's place under its parent (with `origin:
    /// delegate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<Box<crate::delegation::ThreadDelegation>>,
    /// The project it belongs to (`agent-extras.md` §5): its members may
    /// use it as their role allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<crate::ProjectId>,
    /// Unique within the org (microseconds, bumped on a collision).
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The author of a listed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A message as kept in a thread's listed history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: MessageId,
    pub thread_id: ThreadId,
    /// 1, 2, 3… within the thread; the store key orders by it.
    pub seq: u64,
    pub role: Role,
    pub content: String,
    pub sender_name: Option<String>,
    pub sender_id: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The knowledge sources the answer cited (assistant messages only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<crate::citations::Citation>,
}

/// `owner` or `member` of a multiplayer thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParticipantRole {
    Owner,
    #[default]
    Member,
}

/// A participant of a multiplayer thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Participant {
    pub user_id: String,
    pub display_name: Option<String>,
    pub role: ParticipantRole,
    pub joined_at: DateTime<Utc>,
}

/// One model call's cost record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    pub id: UsageId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    /// The thread whose turn made the call; `None` for a call outside any
    /// thread (a runner's suggestions, `runners.md`).
    pub thread_id: Option<ThreadId>,
    /// The assistant message; `None` when the answer was stopped.
    pub message_id: Option<MessageId>,
    pub model: String,
    pub provider: String,
    /// `platform`, or the resolver's `source` label when its key was used.
    pub key_source: String,
    /// Every prompt token the vendor counted, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input, tokens read from the vendor's prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Of the input, tokens written to the vendor's prompt cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Thread metadata overlaid with the message's metadata.
    pub metadata: Metadata,
    /// The publication whose visitor's send made the call: its daily token
    /// budget counts it (`publishing.md` rule 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publication_id: Option<crate::PublicationId>,
    /// A delegated turn's call: its parent's and root's threads and its
    /// depth (`agent-extras.md` §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<Box<crate::delegation::UsageDelegation>>,
    pub stopped: bool,
    /// True when the token counts were estimated (a stop cut the vendor off).
    #[serde(default)]
    pub estimated: bool,
    /// Which model call of its send this was (1, 2, … with tool steps);
    /// absent on records written before multi-step turns.
    #[serde(default)]
    pub step: Option<u32>,
    /// What the call was for: the answer, or Confer's summary compaction.
    #[serde(default)]
    pub purpose: UsagePurpose,
    /// The vendor compacted the context in this call (native compaction).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compacted: bool,
    /// The vendor's per-iteration usage of such a call, as it reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<serde_json::Value>,
    /// Unique within the org, like a thread's.
    pub created_at: DateTime<Utc>,
}

/// What a model call was for (`compaction.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UsagePurpose {
    /// A call of the answer (every step of it).
    #[default]
    Answer,
    /// The summary call of Confer's compaction.
    Compaction,
    /// The call that collects memories after a turn (`knowledge.md` §5).
    Memory,
    /// The call that writes a runner's (or agent's) suggestions
    /// (`agent-extras.md` §2): no thread.
    Suggestions,
    /// A marketplace proposal (`marketplace-channels.md` §4): no thread.
    Marketplace,
}

/// Per-agent configuration of the bring-your-own-key credential resolver.
/// `Debug` leaves the signing secret out.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct CredentialConfig {
    pub enabled: bool,
    /// Empty when unset.
    pub resolver_url: String,
    pub timeout_ms: u32,
    /// The HMAC key of the outbound call; created on first enable.
    pub signing_secret: Option<String>,
}

impl std::fmt::Debug for CredentialConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialConfig")
            .field("enabled", &self.enabled)
            .field("resolver_url", &self.resolver_url)
            .field("timeout_ms", &self.timeout_ms)
            .field(
                "signing_secret",
                &self.signing_secret.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

impl CredentialConfig {
    /// The resolver call's default timeout.
    pub const DEFAULT_TIMEOUT_MS: u32 = 5000;
}

impl Default for CredentialConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            resolver_url: String::new(),
            timeout_ms: Self::DEFAULT_TIMEOUT_MS,
            signing_secret: None,
        }
    }
}

/// Per-agent plan configuration (`plans.md`): whether the built-in plan
/// tools are offered, whether the agent is told to plan multi-step
/// requests, and whether a tool-made plan waits for a client's approval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct PlanConfig {
    pub enabled: bool,
    pub auto_create: bool,
    pub require_approval: bool,
}

/// How an agent reaches its knowledge (`knowledge.md` §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KnowledgeMode {
    /// The model decides: `search_knowledge` is offered.
    #[default]
    Tool,
    /// No tool: the message's best chunks go in the briefing.
    Inject,
}

/// An agent's knowledge configuration (`GET/PUT /api/agents/{id}/knowledge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct KnowledgeConfig {
    pub enabled: bool,
    /// Whether the org's documents are in reach (the agent's and the
    /// thread's always are).
    pub include_org: bool,
    pub mode: KnowledgeMode,
    /// Chunks a search gives (1–20).
    pub top_k: u32,
}

impl Default for KnowledgeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            include_org: true,
            mode: KnowledgeMode::Tool,
            top_k: 6,
        }
    }
}

/// Per-agent context compaction configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CompactionConfig {
    pub enabled: bool,
    /// Vendor A (native compaction) trigger, in input tokens.
    pub vendor_a_trigger_tokens: u32,
    /// Replaces vendor A's built-in summarization prompt.
    pub vendor_a_instructions: Option<String>,
    /// Pause after compaction so the client can inject content.
    pub vendor_a_pause_after: bool,
    /// Vendor B (summary fallback) threshold, in tokens.
    pub vendor_b_compact_threshold: u32,
}

impl CompactionConfig {
    /// Lowest accepted vendor A trigger (the vendor's own minimum).
    pub const MIN_VENDOR_A_TRIGGER: u32 = 50_000;
    /// Lowest accepted vendor B threshold.
    pub const MIN_VENDOR_B_THRESHOLD: u32 = 1_000;
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            vendor_a_trigger_tokens: 150_000,
            vendor_a_instructions: None,
            vendor_a_pause_after: false,
            vendor_b_compact_threshold: 100_000,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
