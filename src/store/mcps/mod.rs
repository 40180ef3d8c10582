//! MCP servers (`tools.md` §6): the org's servers, their slugs (unique in
//! the org, kept in the same transaction as the record, never changed) and
//! their attachments to agents. Credentials are sealed at rest; the tool
//! list a server last answered, its status and last error live on the
//! record and are changed by compare-and-swap transactions, so a refresh
//! that lands after a delete does not bring the server back.

use chrono::Utc;
use confer_actors::{AgentId, McpServerId, OrgId, StoreError};
use secrecy::ExposeSecret;
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

mod records;
#[cfg(test)]
mod tests;

pub use self::records::*;
pub use super::attached::AttachOutcome;
use super::attached::{self, Attachments, slug_key, take_slug};
use super::codec::{decode, encode};
use super::{SledStore, abort, engine, keys, tx_error};
use crate::secrets::{SecretBox, aad};

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

pub(super) fn read(tree: &TransactionalTree, key: &[u8]) -> Tx<Option<McpServer>> {
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
pub(crate) struct SealedSecrets {
    credentials: Option<Option<String>>,
    client_secret: Option<Option<String>>,
}

impl SealedSecrets {
    /// Puts the sealed values into `server`.
    pub(crate) fn apply(&self, server: &mut McpServer) {
        if let Some(credentials) = &self.credentials {
            server.credentials.clone_from(credentials);
        }
        if let (Some(secret), Some(client)) = (&self.client_secret, &mut server.oauth_client) {
            client.client_secret.clone_from(secret);
        }
    }
}

fn sealing(error: crate::secrets::SecretError) -> StoreError {
    StoreError::Engine(error.to_string())
}

/// Seals `secrets` for the server `id` of `org` (either store).
pub(crate) fn seal_secrets(
    key: &SecretBox,
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
            let sealed = key
                .seal(&json, &credentials_aad(org, id))
                .map_err(sealing)?;
            Some(Some(sealed))
        }
    };
    let client_secret = secrets
        .client_secret
        .as_ref()
        .map(|secret| {
            secret
                .as_deref()
                .map(|plain| {
                    key.seal(plain, &client_secret_aad(org, id))
                        .map_err(sealing)
                })
                .transpose()
        })
        .transpose()?;
    Ok(SealedSecrets {
        credentials,
        client_secret,
    })
}

/// A server's credentials, opened (empty when it has none).
pub fn credentials_of(key: &SecretBox, server: &McpServer) -> Result<McpCredentials, StoreError> {
    let Some(sealed) = &server.credentials else {
        return Ok(McpCredentials::default());
    };
    let plain = key
        .open(sealed, &credentials_aad(server.org_id, server.id))
        .map_err(sealing)?;
    serde_json::from_str(plain.expose_secret()).map_err(|e| StoreError::Codec(e.to_string()))
}

/// The configured OAuth client's secret, opened (`None` when it has
/// none).
pub fn oauth_client_secret_of(
    key: &SecretBox,
    server: &McpServer,
) -> Result<Option<String>, StoreError> {
    let Some(sealed) = server
        .oauth_client
        .as_ref()
        .and_then(|c| c.client_secret.as_ref())
    else {
        return Ok(None);
    };
    key.open(sealed, &client_secret_aad(server.org_id, server.id))
        .map(|open| Some(open.expose_secret().to_owned()))
        .map_err(sealing)
}

impl SledStore {
    /// Stores a new server, its slug made unique in the org (`_2`, `_3`…
    /// on collision) in the same transaction.
    pub fn create_mcp(
        &self,
        mut server: McpServer,
        secrets: &McpSecrets,
    ) -> Result<McpServer, StoreError> {
        let _writing = self.gate.writing();
        seal_secrets(&self.secrets, server.org_id, server.id, secrets)?.apply(&mut server);
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
        let sealed = seal_secrets(&self.secrets, org, id, secrets)?;
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        let tokens = self.oauth_token_keys(org, id)?;
        let changed = (&self.mcps, &self.oauth_registrations, &self.oauth_tokens)
            .transaction(|(mcps, registrations, stored_tokens)| {
                let Some(before) = read(mcps, &key)? else {
                    return Ok(None);
                };
                let mut stored = before.clone();
                change(&mut stored);
                sealed.apply(&mut stored);
                // Tokens and the client were for where the server was:
                // forgotten in this same transaction.
                if before.oauth_moved(&stored) {
                    stored.oauth_epoch = before.oauth_epoch.wrapping_add(1);
                    registrations.remove(key.as_slice())?;
                    for token in &tokens {
                        stored_tokens.remove(&**token)?;
                    }
                }
                stored.updated_at = Utc::now();
                mcps.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(Some(stored))
            })
            .map_err(tx_error)?;
        if let Some(server) = &changed {
            // A token stored between the scan above and the transaction
            // was stored for the older epoch.
            self.delete_oauth_tokens_before(org, id, server.oauth_epoch)?;
        }
        Ok(changed)
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
