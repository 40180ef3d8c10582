//! The state every handler shares.

use std::sync::Arc;

use confer_actors::Runtime;

use crate::auth::jwt::JwtVerifier;
use crate::limits::RateLimits;
use crate::outbound::Outbound;
use crate::settings::Settings;
use crate::store::Store;

/// Shared application state (cheap to clone behind `web::Data`).
pub struct AppState {
    pub store: Store,
    /// This node in the cluster; `None` on sled.
    pub cluster: Option<Arc<crate::cluster::serving::Membership>>,
    pub settings: Arc<Settings>,
    /// `None` when JWT auth is off (no `CONFER_JWT_SECRET`).
    pub jwt: Option<JwtVerifier>,
    /// The outbound policy and its clients (resolvers, webhook tools, MCP servers).
    pub outbound: Outbound,
    /// The rate limiters.
    pub limits: RateLimits,
    /// The resolved platform default model.
    pub default_model: String,
    /// The thread actors.
    pub runtime: Runtime,
    /// The org tools' definitions the turns read; tool writes forget them.
    pub tool_cache: Arc<crate::tools::webhook::OfferedCache>,
    /// The MCP servers' sessions and listings; MCP writes tell it.
    pub mcps: Arc<crate::tools::mcp::McpHub>,
    /// The database integrations' pools and schema reads.
    pub integrations: Arc<crate::tools::integrations::IntegrationHub>,
    /// The traces of the turns running now (the logs list them).
    pub traces: Arc<confer_actors::RunningTraces>,
    /// Visitor keys, limits and settings of the public chats.
    pub public: std::sync::Arc<crate::publishing::chats::PublicChats>,
    /// Knowledge documents: their files, ingestion and purge.
    pub knowledge: Arc<crate::knowledge::ingest::Ingestion>,
    /// Knowledge search and its index (`knowledge.md` §3).
    pub knowledge_search: Arc<crate::knowledge::search::KnowledgeSearch>,
    /// Agents' memories (`knowledge.md` §5).
    pub memories: Arc<crate::knowledge::memories::MemoryBook>,
    /// Starts and drives runners' runs (`runners.md`).
    pub runs: Arc<crate::runners::worker::RunWorker>,
    /// Fires scheduled tasks (`runners.md` Scheduling).
    pub scheduler: Arc<crate::scheduler::firing::Scheduler>,
    /// Writes agents' and runners' suggestions with a model call.
    pub suggestions: Arc<crate::suggestions::SuggestionWriter>,
    /// Installs and syncs skills (`agent-extras.md` §1).
    pub skills: Arc<crate::skills::install::SkillInstaller>,
    /// The metrics exporter, when it could be installed.
    pub metrics: Option<metrics_exporter_prometheus::PrometheusHandle>,
    /// Computer instances and their sandboxes (`computer.md`).
    pub computer: std::sync::Arc<crate::computer::service::ComputerService>,
    /// Marketplace proposal calls under way, per org (`marketplace-channels.md` §4).
    pub proposal_slots: crate::marketplace::proposals::ProposalSlots,
    /// Messaging channels' jobs and vendors (`marketplace-channels.md` §7–§9).
    pub channels: std::sync::Arc<crate::channels::worker::ChannelWorker>,
    /// The MCP registry and its snapshot (`marketplace-channels.md` §6).
    pub mcp_registry: std::sync::Arc<crate::tools::mcp::registry::Registry>,
    /// Code agents' kept archives (`computer.md` §5).
    pub code_archives: crate::code::files::CodeArchives,
    /// Code sessions at work (`computer.md` §6).
    pub code_sessions: std::sync::Arc<crate::code::service::CodeSessions>,
}
