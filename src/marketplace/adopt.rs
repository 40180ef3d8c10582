//! `use` (`marketplace-channels.md` §5): the agent a template or a listing
//! makes in the caller's org, and what comes with it. Never copied:
//! resolver settings, secrets, channels, publishing, threads, memories,
//! knowledge, the profile. The store writes the result in one transaction
//! (`SledStore::adopt_agent`).

use chrono::{DateTime, Utc};
use confer_actors::{
    Agent, AgentId, CompactionConfig, IntegrationId, McpServerId, OrgId, PlanConfig,
    RuntimeProvider,
};
use serde::Serialize;

use super::profile::Profile;
use super::templates::Template;
use crate::store::integrations::OrgIntegrations;
use crate::store::mcps::{McpServer, McpStatus, McpTransport, OrgMcps};

/// Where the new agent comes from (`source` of the answer).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SourceRef {
    /// `template` or `listing`.
    pub kind: &'static str,
    pub id: String,
    /// The template's version, or the profile's.
    pub version: String,
}

/// Something of the source the new agent does not get, and why.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Skipped {
    /// `org_tool`, `integration`, `mcp_stdio` or `mcp_private`.
    pub kind: &'static str,
    pub name: String,
    pub reason: String,
}

/// An MCP server the new agent has (`mcp_servers` of the answer).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AdoptedServer {
    #[schema(value_type = uuid::Uuid)]
    pub mcp_server_id: McpServerId,
    pub name: String,
    /// Whether `use` made it (false: an existing server was attached).
    pub created: bool,
}

/// Everything `use` stores.
#[derive(Clone, Debug)]
pub struct Adoption {
    pub agent: Agent,
    pub plan: PlanConfig,
    /// `None`: the defaults.
    pub compaction: Option<CompactionConfig>,
    /// Servers of the caller's org to attach, with their allowed tools.
    pub mcp_attachments: Vec<(McpServerId, Option<Vec<String>>)>,
    /// Servers made in the caller's org (a public server of another org's
    /// listing, without its credentials, OAuth client or tokens).
    pub new_mcps: Vec<McpServer>,
    /// Integrations of the caller's org to attach, with their tables.
    pub integration_attachments: Vec<(IntegrationId, Option<Vec<String>>)>,
    pub mcp_servers: Vec<AdoptedServer>,
    pub skipped: Vec<Skipped>,
    pub source: SourceRef,
}

/// A listing being used: the profile, its agent and what the agent has.
pub struct ListingSource<'a> {
    pub profile: &'a Profile,
    pub agent: &'a Agent,
    pub plan: PlanConfig,
    pub compaction: CompactionConfig,
    pub mcps: &'a OrgMcps,
    pub integrations: &'a OrgIntegrations,
    /// The org tools the agent is offered (names).
    pub org_tools: Vec<String>,
    /// The caller's org's own servers (one with a public server's URL is
    /// attached rather than made again).
    pub target_mcps: &'a [McpServer],
    /// Whether a URL is a remote the MCP registry lists.
    pub is_public: &'a (dyn Fn(&str) -> bool + Sync),
}

fn new_agent(org: OrgId, name: String, now: DateTime<Utc>) -> Agent {
    Agent {
        id: AgentId::new(),
        org_id: org,
        name,
        description: String::new(),
        stable_preamble: String::new(),
        default_model: String::new(),
        tool_profiles: None,
        default_profile: None,
        runtime_provider: RuntimeProvider::default(),
        project_id: None,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    }
}

/// The agent a template makes; `platform_model` fills an empty model.
pub fn from_template(
    template: &Template,
    org: OrgId,
    name: Option<String>,
    platform_model: &str,
    now: DateTime<Utc>,
) -> Adoption {
    let mut agent = new_agent(org, name.unwrap_or_else(|| template.title.clone()), now);
    agent.description = template.description.clone();
    agent.stable_preamble = template.stable_preamble.trim().to_owned();
    agent.default_model = match template.default_model.as_str() {
        "" => platform_model.to_owned(),
        model => model.to_owned(),
    };
    agent.tool_profiles = Some(template.tool_profiles.clone()).filter(|p| !p.is_empty());
    agent.default_profile = template.default_profile.clone();
    Adoption {
        agent,
        plan: template.plan,
        compaction: None,
        mcp_attachments: Vec::new(),
        new_mcps: Vec::new(),
        integration_attachments: Vec::new(),
        mcp_servers: Vec::new(),
        skipped: Vec::new(),
        source: SourceRef {
            kind: "template",
            id: template.id.clone(),
            version: template.version.clone(),
        },
    }
}

/// The agent a listing makes in `org`. The same org keeps the source's
/// servers and integrations; another org gets none of its private servers,
/// stdio servers, integrations or org tools (each named in `skipped`); its
/// public HTTP servers (a registry remote) are made again there without
/// credentials, or the caller's server with that URL is attached.
pub fn from_listing(
    source: &ListingSource<'_>,
    org: OrgId,
    name: Option<String>,
    now: DateTime<Utc>,
) -> Adoption {
    let from = source.agent;
    let title = source
        .profile
        .title
        .clone()
        .unwrap_or_else(|| from.name.clone());
    let mut agent = new_agent(org, name.unwrap_or(title), now);
    agent.description = source
        .profile
        .description
        .clone()
        .unwrap_or_else(|| from.description.clone());
    agent.stable_preamble = from.stable_preamble.clone();
    agent.default_model = from.default_model.clone();
    agent.tool_profiles = from.tool_profiles.clone();
    agent.default_profile = from.default_profile.clone();
    agent.runtime_provider = from.runtime_provider;
    let mut adoption = Adoption {
        agent,
        plan: source.plan,
        compaction: Some(source.compaction.clone()),
        mcp_attachments: Vec::new(),
        new_mcps: Vec::new(),
        integration_attachments: Vec::new(),
        mcp_servers: Vec::new(),
        skipped: Vec::new(),
        source: SourceRef {
            kind: "listing",
            id: from.id.to_string(),
            version: source.profile.version.to_string(),
        },
    };
    let same_org = from.org_id == org;
    for (server, attachment) in source.mcps.of_agent(from.id) {
        if same_org {
            adoption
                .mcp_attachments
                .push((server.id, attachment.allowed.clone()));
            adoption.mcp_servers.push(AdoptedServer {
                mcp_server_id: server.id,
                name: server.name.clone(),
                created: false,
            });
            continue;
        }
        let skip = |kind, reason: &str| Skipped {
            kind,
            name: server.name.clone(),
            reason: reason.to_owned(),
        };
        let public = server.url.as_deref().filter(|url| (source.is_public)(url));
        let Some(url) = public.filter(|_| server.transport != McpTransport::Stdio) else {
            adoption.skipped.push(match server.transport {
                McpTransport::Stdio => skip(
                    "mcp_stdio",
                    "a stdio server runs a command on its org's host",
                ),
                _ => skip(
                    "mcp_private",
                    "its URL is not a remote the MCP registry lists",
                ),
            });
            continue;
        };
        let (id, name, created) = match source
            .target_mcps
            .iter()
            .find(|s| s.url.as_deref() == Some(url))
        {
            Some(existing) => (existing.id, existing.name.clone(), false),
            None => {
                let made = McpServer {
                    id: McpServerId::new(),
                    org_id: org,
                    name: server.name.clone(),
                    slug: crate::store::mcps::slug_of(&server.name),
                    transport: server.transport,
                    url: Some(url.to_owned()),
                    command: None,
                    args: Vec::new(),
                    credentials: None,
                    allowed_tools: server.allowed_tools.clone(),
                    oauth: server.oauth,
                    oauth_client: None,
                    timeout_ms: server.timeout_ms,
                    status: McpStatus::Pending,
                    last_error: None,
                    tools_cache: Vec::new(),
                    tools_refreshed_at: None,
                    oauth_epoch: 0,
                    created_at: now,
                    updated_at: now,
                };
                let named = (made.id, made.name.clone(), true);
                adoption.new_mcps.push(made);
                named
            }
        };
        adoption
            .mcp_attachments
            .push((id, attachment.allowed.clone()));
        adoption.mcp_servers.push(AdoptedServer {
            mcp_server_id: id,
            name,
            created,
        });
    }
    for (integration, attachment) in source.integrations.of_agent(from.id) {
        if same_org {
            adoption
                .integration_attachments
                .push((integration.id, attachment.allowed.clone()));
        } else {
            adoption.skipped.push(Skipped {
                kind: "integration",
                name: integration.name.clone(),
                reason: "integrations stay in their org".into(),
            });
        }
    }
    if !same_org {
        for tool in &source.org_tools {
            adoption.skipped.push(Skipped {
                kind: "org_tool",
                name: tool.clone(),
                reason: "org tools stay in their org".into(),
            });
        }
    }
    adoption
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketplace::templates;

    #[test]
    fn a_template_fills_the_platform_model_and_its_profiles() {
        let template = templates::by_id("project-planner").expect("shipped");
        let org = OrgId::new();
        let adoption = from_template(template, org, None, "builtin/echo", Utc::now());
        assert_eq!(adoption.agent.org_id, org);
        assert_eq!(adoption.agent.name, "Project planner");
        assert_eq!(adoption.agent.default_model, "builtin/echo");
        assert_eq!(adoption.agent.default_profile.as_deref(), Some("planning"));
        assert!(adoption.plan.enabled);
        assert_eq!(adoption.source.kind, "template");
        assert_eq!(adoption.source.version, template.version);
        let named = from_template(template, org, Some("Mine".into()), "m", Utc::now());
        assert_eq!(named.agent.name, "Mine");
    }
}
