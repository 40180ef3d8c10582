//! MCP servers (`tools.md` §6): the org's servers, their slugs (unique in
//! the org, kept in the same transaction as the record, never changed) and
//! their attachments to agents. Credentials are sealed at rest; the tool
//! list a server last answered, its status and last error live on the
//! record and are changed by compare-and-swap transactions, so a refresh
//! that lands after a delete does not bring the server back.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, McpServerId, OrgId, StoreError};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

pub use super::attached::AttachOutcome;
use super::attached::{self, Attachment, Attachments, slug_key, take_slug};
use super::codec::{decode, encode};
use super::{SledStore, abort, engine, keys, tx_error};
use crate::secrets::aad;

/// How Confer reaches an MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// MCP's streamable HTTP transport (one endpoint, POST and GET).
    StreamableHttp,
    /// The older HTTP+SSE transport (an event stream and a POST endpoint).
    Sse,
    /// A child process speaking over its standard input and output.
    Stdio,
}

impl McpTransport {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StreamableHttp => "streamable_http",
            Self::Sse => "sse",
            Self::Stdio => "stdio",
        }
    }
}

/// Whose authorization a server's calls carry (`tools.md` §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthMode {
    None,
    Org,
    PerUser,
}

impl OAuthMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Org => "org",
            Self::PerUser => "per_user",
        }
    }
}

/// Whether a server answered its last contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpStatus {
    /// Never listed yet.
    Pending,
    Active,
    /// The last contact failed; its tools are left out of turns.
    Down,
}

impl McpStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
            Self::Down => "down",
        }
    }
}

/// One tool of a server's last listing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedTool {
    /// The server's own name of the tool.
    pub name: String,
    pub description: Option<String>,
    /// The tool's `inputSchema` (a JSON Schema object).
    pub input_schema: Value,
}

/// The OAuth client a server's flows use, when not registered dynamically.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OAuthClient {
    pub client_id: String,
    /// Sealed in the store.
    pub client_secret: Option<String>,
    pub scope: Option<String>,
}

/// What a server is given to authenticate: headers on every HTTP request,
/// environment variables of a stdio child. Write-only; sealed as one JSON
/// document.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct McpCredentials {
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// An MCP server as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct McpServer {
    pub id: McpServerId,
    pub org_id: OrgId,
    pub name: String,
    /// Fixed at creation (`tools.md` §6); the prefix of its tools' names.
    pub slug: String,
    pub transport: McpTransport,
    pub url: Option<String>,
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// [`McpCredentials`] as JSON, sealed; opened by
    /// [`SledStore::mcp_credentials`] only.
    pub credentials: Option<String>,
    /// The tools of the server offered at all (`None`: every one).
    pub allowed_tools: Option<Vec<String>>,
    pub oauth: OAuthMode,
    pub oauth_client: Option<OAuthClient>,
    pub timeout_ms: u32,
    pub status: McpStatus,
    pub last_error: Option<String>,
    #[serde(default)]
    pub tools_cache: Vec<CachedTool>,
    pub tools_refreshed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl McpServer {
    /// Whether the server's own list lets `tool` be offered.
    pub fn allows(&self, tool: &str) -> bool {
        allowed_by(self.allowed_tools.as_deref(), tool)
    }
}

/// Whether an allow-list (`None`: all) lets `tool` through.
pub fn allowed_by(list: Option<&[String]>, tool: &str) -> bool {
    list.is_none_or(|names| names.iter().any(|n| n == tool))
}

/// An MCP server attached to an agent; `allowed` are the server's tools
/// the agent is offered (`None`: every one the server allows).
pub type McpAttachment = Attachment<McpServerId>;

/// An org's MCP servers and who uses them: what a turn reads to offer
/// tools (kept in memory by the MCP tools, see `tools::mcp`).
#[derive(Clone, Debug, Default)]
pub struct OrgMcps {
    pub servers: Vec<McpServer>,
    /// Each agent's attachments, oldest first.
    pub attachments: Vec<(AgentId, McpAttachment)>,
}

impl OrgMcps {
    /// The servers attached to `agent`, in attachment order.
    pub fn of_agent(
        &self,
        agent: AgentId,
    ) -> impl Iterator<Item = (&McpServer, &McpAttachment)> + '_ {
        attached::attached_to(&self.servers, &self.attachments, agent, |s| &s.id)
    }
}

/// The slug of a server's name (`tools.md` §6).
pub fn slug_of(name: &str) -> String {
    attached::slug_of(name, "server")
}

fn credentials_aad(org: OrgId, server: McpServerId) -> String {
    aad(
        &org.to_string(),
        "mcp_server",
        &server.to_string(),
        "credentials",
    )
}

fn client_secret_aad(org: OrgId, server: McpServerId) -> String {
    aad(
        &org.to_string(),
        "mcp_server",
        &server.to_string(),
        "oauth_client_secret",
    )
}

type Tx<T> = Result<T, ConflictableTransactionError<StoreError>>;

fn read(tree: &TransactionalTree, key: &[u8]) -> Tx<Option<McpServer>> {
    tree.get(key)?
        .map(|bytes| decode(&bytes).map_err(abort))
        .transpose()
}

/// The secrets of a write, in plain text, sealed by the store.
#[derive(Default)]
pub struct McpSecrets {
    /// `Some`: replaces the credentials (`Some(None)`: removes them).
    pub credentials: Option<Option<McpCredentials>>,
    /// `Some`: replaces the OAuth client's secret.
    pub client_secret: Option<Option<String>>,
}

/// [`McpSecrets`] sealed for one server (the sealing depends only on the
/// server's org and id, so it is done once, outside any transaction).
struct SealedSecrets {
    credentials: Option<Option<String>>,
    client_secret: Option<Option<String>>,
}

impl SealedSecrets {
    /// Puts the sealed values into `server`.
    fn apply(&self, server: &mut McpServer) {
        if let Some(credentials) = &self.credentials {
            server.credentials.clone_from(credentials);
        }
        if let (Some(secret), Some(client)) = (&self.client_secret, &mut server.oauth_client) {
            client.client_secret.clone_from(secret);
        }
    }
}

impl SledStore {
    fn seal_mcp(&self, plain: &str, aad: &str) -> Result<String, StoreError> {
        self.secrets
            .seal(plain, aad)
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    /// Seals `secrets` for the server `id` of `org`.
    fn seal_mcp_secrets(
        &self,
        org: OrgId,
        id: McpServerId,
        secrets: &McpSecrets,
    ) -> Result<SealedSecrets, StoreError> {
        let credentials = match &secrets.credentials {
            None => None,
            Some(None) => Some(None),
            Some(Some(plain)) => {
                let json =
                    serde_json::to_string(plain).map_err(|e| StoreError::Codec(e.to_string()))?;
                Some(Some(self.seal_mcp(&json, &credentials_aad(org, id))?))
            }
        };
        let client_secret = secrets
            .client_secret
            .as_ref()
            .map(|secret| {
                secret
                    .as_deref()
                    .map(|plain| self.seal_mcp(plain, &client_secret_aad(org, id)))
                    .transpose()
            })
            .transpose()?;
        Ok(SealedSecrets {
            credentials,
            client_secret,
        })
    }

    /// Stores a new server, its slug made unique in the org (`_2`, `_3`…
    /// on collision) in the same transaction.
    pub fn create_mcp(
        &self,
        mut server: McpServer,
        secrets: &McpSecrets,
    ) -> Result<McpServer, StoreError> {
        let _writing = self.gate.writing();
        self.seal_mcp_secrets(server.org_id, server.id, secrets)?
            .apply(&mut server);
        let base = server.slug.clone();
        let key = keys::pair(server.org_id.as_bytes(), server.id.as_bytes());
        (&self.mcps, &self.mcp_slugs)
            .transaction(|(mcps, slugs)| {
                let mut stored = server.clone();
                stored.slug = take_slug(slugs, server.org_id, &base, server.id.as_bytes())?;
                mcps.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(stored)
            })
            .map_err(tx_error)
    }

    /// The org's servers, oldest first (secrets sealed).
    pub fn list_mcps(&self, org: OrgId) -> Result<Vec<McpServer>, StoreError> {
        let mut servers = self
            .mcps
            .scan_prefix(org.as_bytes())
            .map(|entry| {
                let (_, value) = entry.map_err(engine)?;
                decode::<McpServer>(&value)
            })
            .collect::<Result<Vec<_>, _>>()?;
        servers.sort_by_key(|s| (s.created_at, s.id.as_bytes().to_owned()));
        Ok(servers)
    }

    /// One server of the org (secrets sealed).
    pub fn mcp(&self, org: OrgId, id: McpServerId) -> Result<Option<McpServer>, StoreError> {
        Self::get(&self.mcps, &keys::pair(org.as_bytes(), id.as_bytes()))
    }

    /// A server's credentials, opened (empty when it has none).
    pub fn mcp_credentials(&self, server: &McpServer) -> Result<McpCredentials, StoreError> {
        let Some(sealed) = &server.credentials else {
            return Ok(McpCredentials::default());
        };
        let plain = self
            .secrets
            .open(sealed, &credentials_aad(server.org_id, server.id))
            .map_err(|e| StoreError::Engine(e.to_string()))?;
        serde_json::from_str(plain.expose_secret()).map_err(|e| StoreError::Codec(e.to_string()))
    }

    /// The configured OAuth client's secret, opened (`None` when it has
    /// none).
    pub fn mcp_oauth_client_secret(
        &self,
        server: &McpServer,
    ) -> Result<Option<String>, StoreError> {
        let Some(sealed) = server
            .oauth_client
            .as_ref()
            .and_then(|c| c.client_secret.as_ref())
        else {
            return Ok(None);
        };
        self.secrets
            .open(sealed, &client_secret_aad(server.org_id, server.id))
            .map(|open| Some(open.expose_secret().to_owned()))
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    /// Changes a server in one transaction: `change` gets the stored
    /// server and changes it; `secrets` are sealed in. A server deleted
    /// meanwhile stays deleted (`None`).
    pub fn update_mcp(
        &self,
        org: OrgId,
        id: McpServerId,
        secrets: &McpSecrets,
        change: impl Fn(&mut McpServer),
    ) -> Result<Option<McpServer>, StoreError> {
        let _writing = self.gate.writing();
        let sealed = self.seal_mcp_secrets(org, id, secrets)?;
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        self.mcps
            .transaction(|mcps| {
                let Some(mut stored) = read(mcps, &key)? else {
                    return Ok(None);
                };
                change(&mut stored);
                sealed.apply(&mut stored);
                stored.updated_at = Utc::now();
                mcps.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(Some(stored))
            })
            .map_err(tx_error)
    }

    /// Records a contact's outcome without touching `updated_at`: the tool
    /// list (on success), status and last error. A deleted server stays
    /// deleted.
    pub fn record_mcp_contact(
        &self,
        org: OrgId,
        id: McpServerId,
        outcome: Result<Vec<CachedTool>, String>,
    ) -> Result<Option<McpServer>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        self.mcps
            .transaction(|mcps| {
                let Some(mut stored) = read(mcps, &key)? else {
                    return Ok(None);
                };
                match &outcome {
                    Ok(tools) => {
                        stored.tools_cache.clone_from(tools);
                        stored.tools_refreshed_at = Some(Utc::now());
                        stored.status = McpStatus::Active;
                        stored.last_error = None;
                    }
                    Err(reason) => {
                        stored.status = McpStatus::Down;
                        stored.last_error = Some(reason.clone());
                    }
                }
                mcps.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(Some(stored))
            })
            .map_err(tx_error)
    }

    /// Deletes a server, its slug and every agent's attachment of it;
    /// `false` when there was none.
    pub fn delete_mcp(&self, org: OrgId, id: McpServerId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        let attached = self.mcp_attachments().keys_of(org, id.as_bytes())?;
        (&self.mcps, &self.mcp_slugs, &self.agent_mcps)
            .transaction(|(mcps, slugs, attachments)| {
                let Some(before) = read(mcps, &key)? else {
                    return Ok(false);
                };
                slugs.remove(slug_key(org, &before.slug))?;
                mcps.remove(key.as_slice())?;
                for attachment in &attached {
                    attachments.remove(attachment)?;
                }
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// The MCP servers' attachments to agents.
    pub fn mcp_attachments(&self) -> Attachments<'_> {
        Attachments {
            targets: &self.mcps,
            attachments: &self.agent_mcps,
        }
    }

    /// Attaches a server of the org to an agent, or replaces the
    /// attachment's `allowed` tools.
    pub fn attach_mcp(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed_tools: Option<Vec<String>>,
    ) -> Result<AttachOutcome, StoreError> {
        let _writing = self.gate.writing();
        self.mcp_attachments()
            .attach(org, agent, server, server.as_bytes(), allowed_tools)
    }

    /// Replaces an existing attachment's `allowed` tools; `None` when it
    /// is not attached.
    pub fn set_mcp_attachment_tools(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed_tools: Option<Vec<String>>,
    ) -> Result<Option<McpAttachment>, StoreError> {
        let _writing = self.gate.writing();
        self.mcp_attachments()
            .set_allowed(org, agent, server.as_bytes(), allowed_tools)
    }

    /// Detaches a server from an agent; `false` when it was not attached.
    pub fn detach_mcp(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        self.mcp_attachments().detach(org, agent, server.as_bytes())
    }

    /// An agent's attachment of one server, if any.
    pub fn mcp_attachment(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
    ) -> Result<Option<McpAttachment>, StoreError> {
        self.mcp_attachments().get(org, agent, server.as_bytes())
    }

    /// The org's servers and every agent's attachments, as turns read them.
    pub fn org_mcps(&self, org: OrgId) -> Result<OrgMcps, StoreError> {
        Ok(OrgMcps {
            servers: self.list_mcps(org)?,
            attachments: self.mcp_attachments().of_org(org)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_secrets;

    fn server(org: OrgId, name: &str) -> McpServer {
        let now = Utc::now();
        McpServer {
            id: McpServerId::new(),
            org_id: org,
            name: name.into(),
            slug: slug_of(name),
            transport: McpTransport::StreamableHttp,
            url: Some("https://mcp.example/mcp".into()),
            command: None,
            args: Vec::new(),
            credentials: None,
            allowed_tools: None,
            oauth: OAuthMode::None,
            oauth_client: None,
            timeout_ms: 30_000,
            status: McpStatus::Pending,
            last_error: None,
            tools_cache: Vec::new(),
            tools_refreshed_at: None,
            created_at: now,
            updated_at: now,
        }
    }

    fn store() -> (tempfile::TempDir, SledStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        (dir, store)
    }

    #[test]
    fn a_colliding_slug_gets_a_suffix_and_is_freed_by_the_delete() {
        let (_dir, store) = store();
        let org = OrgId::new();
        let secrets = McpSecrets::default();
        let first = store.create_mcp(server(org, "Docs"), &secrets).unwrap();
        let second = store.create_mcp(server(org, "docs"), &secrets).unwrap();
        let third = store.create_mcp(server(org, "DOCS!"), &secrets).unwrap();
        assert_eq!(
            [&first.slug, &second.slug, &third.slug],
            ["docs", "docs_2", "docs_3"]
        );
        // Another org has its own slugs.
        let other = store
            .create_mcp(server(OrgId::new(), "docs"), &secrets)
            .unwrap();
        assert_eq!(other.slug, "docs");
        assert!(store.delete_mcp(org, first.id).unwrap());
        assert!(!store.delete_mcp(org, first.id).unwrap());
        let again = store.create_mcp(server(org, "docs"), &secrets).unwrap();
        assert_eq!(again.slug, "docs");
    }

    #[test]
    fn credentials_are_sealed_and_open_only_for_their_record() {
        let (_dir, store) = store();
        let org = OrgId::new();
        let plain = McpCredentials {
            headers: [("Authorization".to_owned(), "Bearer s3cret-token".to_owned())].into(),
            env: BTreeMap::new(),
        };
        let secrets = McpSecrets {
            credentials: Some(Some(plain)),
            client_secret: None,
        };
        let made = store.create_mcp(server(org, "a"), &secrets).unwrap();
        let sealed = made.credentials.clone().unwrap();
        assert!(!sealed.contains("s3cret"));
        assert_eq!(
            store.mcp_credentials(&made).unwrap().headers["Authorization"],
            "Bearer s3cret-token"
        );
        let mut moved = store
            .create_mcp(server(org, "b"), &McpSecrets::default())
            .unwrap();
        moved.credentials = Some(sealed);
        assert!(
            store.mcp_credentials(&moved).is_err(),
            "bound to its record"
        );
    }

    #[test]
    fn a_contact_recorded_after_the_delete_does_not_resurrect_the_server() {
        let (_dir, store) = store();
        let org = OrgId::new();
        let made = store
            .create_mcp(server(org, "a"), &McpSecrets::default())
            .unwrap();
        assert!(store.delete_mcp(org, made.id).unwrap());
        assert!(
            store
                .record_mcp_contact(org, made.id, Ok(Vec::new()))
                .unwrap()
                .is_none()
        );
        assert!(store.mcp(org, made.id).unwrap().is_none());
        let updated = store
            .update_mcp(org, made.id, &McpSecrets::default(), |s| {
                s.name = "b".into();
            })
            .unwrap();
        assert!(updated.is_none());
        assert!(store.mcp(org, made.id).unwrap().is_none());
    }

    #[test]
    fn deleting_a_server_detaches_it_everywhere() {
        let (_dir, store) = store();
        let org = OrgId::new();
        let made = store
            .create_mcp(server(org, "a"), &McpSecrets::default())
            .unwrap();
        let kept = store
            .create_mcp(server(org, "b"), &McpSecrets::default())
            .unwrap();
        let (one, two) = (AgentId::new(), AgentId::new());
        assert_eq!(
            store.attach_mcp(org, one, made.id, None).unwrap(),
            AttachOutcome::Attached
        );
        assert_eq!(
            store
                .attach_mcp(org, one, made.id, Some(vec!["x".into()]))
                .unwrap(),
            AttachOutcome::Replaced
        );
        store.attach_mcp(org, two, made.id, None).unwrap();
        store.attach_mcp(org, two, kept.id, None).unwrap();
        assert_eq!(
            store
                .attach_mcp(org, two, McpServerId::new(), None)
                .unwrap(),
            AttachOutcome::Missing
        );
        assert_eq!(store.org_mcps(org).unwrap().attachments.len(), 3);
        assert!(store.delete_mcp(org, made.id).unwrap());
        let left = store.org_mcps(org).unwrap().attachments;
        assert_eq!(left.len(), 1);
        assert_eq!((left[0].0, left[0].1.target), (two, kept.id));
        assert!(store.detach_mcp(org, two, kept.id).unwrap());
        assert!(!store.detach_mcp(org, two, kept.id).unwrap());
    }
}
