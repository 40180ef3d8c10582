//! MCP servers on PostgreSQL: a server's slug is taken under an advisory
//! lock of the org (the unique constraint backs it), a change holds the
//! server's row, and every write to a server or an attachment bumps the
//! org's `cache_versions` row for `mcps` (`scale.md` §5), so each node's
//! hub reads the org's servers again within the second. The OAuth state
//! kept for a server is in `oauth`.

use chrono::Utc;
use confer_actors::{AgentId, McpServerId, OrgId, StoreError, StoreFuture};
use tokio_postgres::GenericClient;

use super::attached::Attached;
use super::records::{PgStore, V, body, db, record};
use super::tools::bump;
use crate::store::mcps::{
    AttachOutcome, CachedTool, McpAttachment, McpSecrets, McpServer, McpStatus, OrgMcps,
    seal_secrets,
};
use crate::store::oauth::{OAuthRegistration, OpenToken, TokenOwner};
use crate::store::port::{McpChange, McpRecords};

pub mod flows;
mod oauth;

/// The `cache_versions` kind of MCP servers and their attachments.
pub const KIND: &str = "mcps";

/// MCP servers' slugs and attachments.
pub(super) const ATTACHED: Attached = Attached {
    targets: "mcp_servers",
    attachments: "mcp_attachments",
    target_column: "server_id",
    cache: KIND,
    slug_lock: 13,
};

/// The server `id` of `org`, its row held until the transaction ends.
async fn held(
    client: &impl GenericClient,
    org: OrgId,
    id: McpServerId,
) -> Result<Option<McpServer>, StoreError> {
    client
        .query_opt(
            "SELECT v, body FROM mcp_servers WHERE org_id = $1 AND id = $2 FOR UPDATE",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()
}

/// Writes `server` over its row (its epoch column too).
async fn rewrite(client: &impl GenericClient, server: &McpServer) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE mcp_servers SET epoch = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
            &[
                &server.org_id.0,
                &server.id.0,
                &i64::from(server.oauth_epoch),
                &V,
                &body(server),
            ],
        )
        .await
        .map_err(db)?;
    Ok(())
}

impl PgStore {
    /// Changes the server `id` of `org` with `change` in one transaction
    /// holding its row; `None` when it is gone.
    async fn change_mcp(
        &self,
        org: OrgId,
        id: McpServerId,
        change: impl FnOnce(&mut McpServer, &McpServer),
        moved: bool,
    ) -> Result<Option<McpServer>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let Some(before) = held(&tx, org, id).await? else {
            return Ok(None);
        };
        let mut server = before.clone();
        change(&mut server, &before);
        if moved && before.oauth_moved(&server) {
            // Tokens and the client were for where the server was:
            // forgotten in this same transaction.
            server.oauth_epoch = before.oauth_epoch.wrapping_add(1);
            oauth::forget(&tx, org, id).await?;
        }
        rewrite(&tx, &server).await?;
        bump(&tx, org, KIND).await?;
        tx.commit().await.map_err(db)?;
        Ok(Some(server))
    }
}

/// Stores a new server under the first free slug of its own, chosen
/// while `tx` holds the org's slug lock (the caller bumps the cache).
pub(super) async fn insert_server(
    tx: &tokio_postgres::Transaction<'_>,
    server: &mut McpServer,
) -> Result<(), StoreError> {
    let org = server.org_id;
    server.slug = ATTACHED.take_slug(tx, org, &server.slug).await?;
    tx.execute(
        "INSERT INTO mcp_servers (org_id, id, slug, epoch, v, body)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &org.0,
            &server.id.0,
            &server.slug,
            &i64::from(server.oauth_epoch),
            &V,
            &body(&*server),
        ],
    )
    .await
    .map_err(db)?;
    Ok(())
}

impl McpRecords for PgStore {
    fn create_mcp(&self, mut server: McpServer, secrets: McpSecrets) -> StoreFuture<McpServer> {
        let store = self.clone();
        Box::pin(async move {
            seal_secrets(&store.secrets, server.org_id, server.id, &secrets)?.apply(&mut server);
            let org = server.org_id;
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            insert_server(&tx, &mut server).await?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(server)
        })
    }

    fn mcps(&self, org: OrgId) -> StoreFuture<Vec<McpServer>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM mcp_servers WHERE org_id = $1";
            let mut servers: Vec<McpServer> = store.all(sql, &[&org.0]).await?;
            servers.sort_by_key(|s| (s.created_at, s.id.as_bytes().to_owned()));
            Ok(servers)
        })
    }

    fn mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<Option<McpServer>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM mcp_servers WHERE org_id = $1 AND id = $2";
            store.one(sql, &[&org.0, &id.0]).await
        })
    }

    fn update_mcp(
        &self,
        org: OrgId,
        id: McpServerId,
        secrets: McpSecrets,
        change: McpChange,
    ) -> StoreFuture<Option<McpServer>> {
        let store = self.clone();
        Box::pin(async move {
            let sealed = seal_secrets(&store.secrets, org, id, &secrets)?;
            let changing = |server: &mut McpServer, _: &McpServer| {
                change(server);
                sealed.apply(server);
                server.updated_at = Utc::now();
            };
            store.change_mcp(org, id, changing, true).await
        })
    }

    fn record_mcp_contact(
        &self,
        org: OrgId,
        id: McpServerId,
        outcome: Result<Vec<CachedTool>, String>,
    ) -> StoreFuture<Option<McpServer>> {
        let store = self.clone();
        Box::pin(async move {
            let recording = |server: &mut McpServer, _: &McpServer| match outcome {
                Ok(tools) => {
                    server.tools_cache = tools;
                    server.tools_refreshed_at = Some(Utc::now());
                    server.status = McpStatus::Active;
                    server.last_error = None;
                }
                Err(reason) => {
                    server.status = McpStatus::Down;
                    server.last_error = Some(reason);
                }
            };
            store.change_mcp(org, id, recording, false).await
        })
    }

    fn delete_mcp(&self, org: OrgId, id: McpServerId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let deleted = tx
                .execute(
                    "DELETE FROM mcp_servers WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            if deleted == 0 {
                return Ok(false);
            }
            ATTACHED.detach_all(&tx, org, id.0).await?;
            oauth::forget(&tx, org, id).await?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn attach_mcp(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome> {
        let store = self.clone();
        Box::pin(async move {
            let (outcome, _) = ATTACHED
                .put(&store, org, agent, (server, server.0), allowed, true)
                .await?;
            Ok(outcome)
        })
    }

    fn set_mcp_attachment_tools(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
        allowed: Option<Vec<String>>,
    ) -> StoreFuture<Option<McpAttachment>> {
        let store = self.clone();
        Box::pin(async move {
            let (_, attachment) = ATTACHED
                .put(&store, org, agent, (server, server.0), allowed, false)
                .await?;
            Ok(attachment)
        })
    }

    fn detach_mcp(&self, org: OrgId, agent: AgentId, server: McpServerId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move { ATTACHED.detach(&store, org, agent, server.0).await })
    }

    fn mcp_attachment(
        &self,
        org: OrgId,
        agent: AgentId,
        server: McpServerId,
    ) -> StoreFuture<Option<McpAttachment>> {
        let store = self.clone();
        Box::pin(async move { ATTACHED.get(&store, org, agent, server.0).await })
    }

    fn org_mcps(&self, org: OrgId) -> StoreFuture<OrgMcps> {
        let store = self.clone();
        Box::pin(async move {
            let servers = store.mcps(org).await?;
            let attachments = ATTACHED.of_org(&store, org).await?;
            Ok(OrgMcps {
                servers,
                attachments,
            })
        })
    }

    fn put_oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        registration: OAuthRegistration,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(
            async move { oauth::put_registration(&store, org, server, epoch, registration).await },
        )
    }

    fn oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<OAuthRegistration>> {
        let store = self.clone();
        Box::pin(async move { oauth::registration(&store, org, server).await })
    }

    fn put_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        owner: TokenOwner,
        token: OpenToken,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move { oauth::put_token(&store, org, server, epoch, &owner, &token).await })
    }

    fn oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<Option<OpenToken>> {
        let store = self.clone();
        Box::pin(async move { oauth::token(&store, org, server, &owner).await })
    }

    fn latest_oauth_owner(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> StoreFuture<Option<TokenOwner>> {
        let store = self.clone();
        Box::pin(async move { oauth::latest_owner(&store, org, server).await })
    }

    fn delete_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: TokenOwner,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let deleted = store
                .execute(
                    "DELETE FROM oauth_tokens WHERE org_id = $1 AND server_id = $2 AND owner = $3",
                    &[&org.0, &server.0, &owner.key_part().as_slice()],
                )
                .await?;
            Ok(deleted > 0)
        })
    }
}
