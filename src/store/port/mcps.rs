//! The port of MCP servers (`tools.md` §6, §8), on either store: a server,
//! its slug (unique in the org, taken in the creating transaction) and
//! its attachments to agents; the OAuth registration and tokens kept for
//! it. A token or registration is stored only for the server as it was at
//! the epoch it was made for, so a late write cannot bring back what a
//! change of the server's URL or OAuth settings forgot. Secrets are sealed
//! by the store and opened by `crate::store::mcps::credentials_of` and
//! `crate::store::oauth` for either store.

use confer_actors::{AgentId, McpServerId, OrgId, StoreFuture};

use super::SledRecords;
use crate::store::mcps::{
    AttachOutcome, CachedTool, McpAttachment, McpSecrets, McpServer, OrgMcps,
};
use crate::store::oauth::{OAuthRegistration, OpenToken, TokenOwner};

/// A change to a stored server (may run more than once on sled).
pub type McpChange = Box<dyn Fn(&mut McpServer) + Send + Sync>;

/// MCP servers, their attachments, and their OAuth state.
pub trait McpRecords: Send + Sync + 'static {
    /// Stores a new server (`secrets` in plain text, sealed by the store),
    /// its slug made unique in the org (`_2`, `_3`… on collision).
    fn create_mcp(&self, server: McpServer, secrets: McpSecrets) -> StoreFuture<McpServer>;

    /// The org's servers, oldest first (secrets sealed).
    fn mcps(&self, org: OrgId) -> StoreFuture<Vec<McpServer>>;

    /// One server of the org (secrets sealed).
    fn mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<Option<McpServer>>;

    /// Changes a server in one transaction (`secrets` sealed in); when
    /// where its tokens go changed, its epoch is bumped and its
    /// registration and tokens deleted in the same transaction. A server
    /// deleted meanwhile stays deleted (`None`).
    fn update_mcp(
        &self,
        org: OrgId,
        id: McpServerId,
        secrets: McpSecrets,
        change: McpChange,
    ) -> StoreFuture<Option<McpServer>>;

    /// Records a contact's outcome without touching `updated_at`: the
    /// tool list (on success), status and last error.
    fn record_mcp_contact(
        &self,
        org: OrgId,
        id: McpServerId,
        outcome: Result<Vec<CachedTool>, String>,
    ) -> StoreFuture<Option<McpServer>>;

    /// Deletes a server, its slug, every agent's attachment of it, its
    /// registration and its tokens; whether there was one.
    fn delete_mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<bool>;

    /// Attaches a server of the org to an agent, or replaces the
    /// attachment's `allowed` tools.
    fn attach_mcp(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome>;

    /// Replaces an existing attachment's `allowed` tools; `None` when it
    /// is not attached.
    fn set_mcp_attachment_tools(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<Option<McpAttachment>>;

    /// Detaches a server from an agent; whether it was attached.
    fn detach_mcp(&self, org: OrgId, agent: AgentId, server: McpServerId) -> StoreFuture<bool>;

    /// An agent's attachment of one server, if any.
    fn mcp_attachment(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
    ) -> StoreFuture<Option<McpAttachment>>;

    /// The org's servers and every agent's attachments, as turns read
    /// them.
    fn org_mcps(&self, org: OrgId) -> StoreFuture<OrgMcps>;

    /// Stores the server's registration (its client secret in plain text)
    /// made for the server at `epoch`; `false` (nothing stored) when the
    /// server was deleted or changed since.
    fn put_oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        registration: OAuthRegistration,
    ) -> StoreFuture<bool>;

    /// The server's registration, its client secret opened.
    fn oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<OAuthRegistration>>;

    /// Stores `owner`'s token (replacing any) made for the server at
    /// `epoch`; `false` (nothing stored) when the server was deleted or
    /// changed since.
    fn put_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        owner: TokenOwner,
        token: OpenToken,
    ) -> StoreFuture<bool>;

    /// `owner`'s token for the server, opened.
    fn oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<Option<OpenToken>>;

    /// The owner whose token of the server was stored last, if any.
    fn latest_oauth_owner(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<TokenOwner>>;

    /// Deletes `owner`'s token; whether there was one.
    fn delete_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<bool>;
}

impl McpRecords for SledRecords {
    fn create_mcp(&self, server: McpServer, secrets: McpSecrets) -> StoreFuture<McpServer> {
        self.write(move |s| s.create_mcp(server, &secrets))
    }

    fn mcps(&self, org: OrgId) -> StoreFuture<Vec<McpServer>> {
        self.read(move |s| s.list_mcps(org))
    }

    fn mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<Option<McpServer>> {
        self.read(move |s| s.mcp(org, id))
    }

    fn update_mcp(
        &self,
        org: OrgId,
        id: McpServerId,
        secrets: McpSecrets,
        change: McpChange,
    ) -> StoreFuture<Option<McpServer>> {
        self.write(move |s| s.update_mcp(org, id, &secrets, change))
    }

    fn record_mcp_contact(
        &self,
        org: OrgId,
        id: McpServerId,
        outcome: Result<Vec<CachedTool>, String>,
    ) -> StoreFuture<Option<McpServer>> {
        self.write(move |s| s.record_mcp_contact(org, id, outcome))
    }

    fn delete_mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<bool> {
        self.write(move |s| {
            let deleted = s.delete_mcp(org, id)?;
            s.delete_oauth_of(org, id)?;
            Ok(deleted)
        })
    }

    fn attach_mcp(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome> {
        self.write(move |s| s.attach_mcp(org, agent, server, allowed))
    }

    fn set_mcp_attachment_tools(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<Option<McpAttachment>> {
        self.write(move |s| s.set_mcp_attachment_tools(org, agent, server, allowed))
    }

    fn detach_mcp(&self, org: OrgId, agent: AgentId, server: McpServerId) -> StoreFuture<bool> {
        self.write(move |s| s.detach_mcp(org, agent, server))
    }

    fn mcp_attachment(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
    ) -> StoreFuture<Option<McpAttachment>> {
        self.read(move |s| s.mcp_attachment(org, agent, server))
    }

    fn org_mcps(&self, org: OrgId) -> StoreFuture<OrgMcps> {
        self.read(move |s| s.org_mcps(org))
    }

    fn put_oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        registration: OAuthRegistration,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.put_oauth_registration(org, server, epoch, registration))
    }

    fn oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<OAuthRegistration>> {
        self.read(move |s| s.oauth_registration(org, server))
    }

    fn put_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        owner: TokenOwner,
        token: OpenToken,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.put_oauth_token(org, server, epoch, &owner, &token))
    }

    fn oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<Option<OpenToken>> {
        self.read(move |s| s.oauth_token(org, server, &owner))
    }

    fn latest_oauth_owner(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<TokenOwner>> {
        self.read(move |s| s.latest_oauth_owner(org, server))
    }

    fn delete_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.delete_oauth_token(org, server, &owner))
    }
}
