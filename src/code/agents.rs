//! A code agent (`computer.md` §5): the record. The rules a create or a
//! PATCH is checked against are in `super::changes`.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, CodeAgentId, OrgId};
use serde::{Deserialize, Serialize};

use crate::computer::config::ComputerConfig;

/// How a code agent's repository arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RepositoryKind {
    Git,
    Archive,
}

/// An uploaded archive, as kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveInfo {
    /// The name it was uploaded under (shown only).
    pub filename: String,
    pub bytes: u64,
    pub sha256: String,
    /// The kept file's name (`crate::code::files`).
    pub stored_as: String,
}

/// Where a code agent's code comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repository {
    pub kind: RepositoryKind,
    /// `git`: the repository's http(s) URL.
    pub url: Option<String>,
    /// `git`: the branch; `None`: the remote's default.
    pub branch: Option<String>,
    /// `git`: the clone's depth; `None`: full.
    pub depth: Option<u32>,
    /// `git`: sealed in the store, opened only to fetch; never shown.
    pub token: Option<String>,
    /// `archive`: the kept upload.
    pub archive: Option<ArchiveInfo>,
}

/// The stored code agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeAgent {
    pub id: CodeAgentId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub name: String,
    pub description: String,
    pub repository: Repository,
    pub setup_command: Option<String>,
    pub setup_timeout_secs: u64,
    /// `None`: any command.
    pub allowed_commands: Option<Vec<String>>,
    pub max_steps: u32,
    pub turn_timeout_mins: u32,
    /// The sandbox of its sessions (`enabled` is not used: a session
    /// always has its computer).
    pub computer: ComputerConfig,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The most code agents an org may hold.
pub const MAX_CODE_AGENTS_PER_ORG: usize = 100;
