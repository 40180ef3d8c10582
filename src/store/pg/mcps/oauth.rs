//! The OAuth state of MCP servers on PostgreSQL: a registration or token
//! is written while the server's row is held `FOR SHARE` and still has the
//! epoch it was made for, so it waits for (or is refused after) a change
//! that moves the server's tokens, which holds the row `FOR UPDATE`.

use confer_actors::{McpServerId, OrgId, StoreError};
use tokio_postgres::{GenericClient, Transaction};

use super::super::records::{PgStore, V, body, db, record};
use crate::store::oauth::{
    OAuthRegistration, OpenToken, StoredToken, TokenOwner, opened_registration, opened_token,
    sealed_registration, sealed_token,
};

/// Deletes the server's registration and every token of it (in the
/// transaction of a change that moved it, or of its delete).
pub(super) async fn forget(
    client: &impl GenericClient,
    org: OrgId,
    server: McpServerId,
) -> Result<(), StoreError> {
    for table in ["oauth_registrations", "oauth_tokens"] {
        let sql = format!("DELETE FROM {table} WHERE org_id = $1 AND server_id = $2");
        client
            .execute(sql.as_str(), &[&org.0, &server.0])
            .await
            .map_err(db)?;
    }
    Ok(())
}

/// Whether the server still exists at `epoch`, its row held `FOR SHARE`
/// until `tx` ends.
async fn at_epoch(
    tx: &Transaction<'_>,
    org: OrgId,
    server: McpServerId,
    epoch: u32,
) -> Result<bool, StoreError> {
    let row = tx
        .query_opt(
            "SELECT epoch FROM mcp_servers WHERE org_id = $1 AND id = $2 FOR SHARE",
            &[&org.0, &server.0],
        )
        .await
        .map_err(db)?;
    Ok(row.is_some_and(|row| row.get::<_, i64>(0) == i64::from(epoch)))
}

/// Stores the server's registration if it is still at `epoch`.
pub(super) async fn put_registration(
    store: &PgStore,
    org: OrgId,
    server: McpServerId,
    epoch: u32,
    registration: OAuthRegistration,
) -> Result<bool, StoreError> {
    let registration = sealed_registration(&store.secrets, org, server, registration)?;
    let mut session = store.session().await?;
    let tx = session.client.transaction().await.map_err(db)?;
    if !at_epoch(&tx, org, server, epoch).await? {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO oauth_registrations (org_id, server_id, v, body) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, server_id) DO UPDATE SET v = $3, body = $4",
        &[&org.0, &server.0, &V, &body(&registration)],
    )
    .await
    .map_err(db)?;
    tx.commit().await.map_err(db)?;
    Ok(true)
}

/// The server's registration, opened.
pub(super) async fn registration(
    store: &PgStore,
    org: OrgId,
    server: McpServerId,
) -> Result<Option<OAuthRegistration>, StoreError> {
    let sql = "SELECT v, body FROM oauth_registrations WHERE org_id = $1 AND server_id = $2";
    store
        .one::<OAuthRegistration>(sql, &[&org.0, &server.0])
        .await?
        .map(|stored| opened_registration(&store.secrets, org, server, stored))
        .transpose()
}

/// Stores `owner`'s token if the server is still at `epoch`.
pub(super) async fn put_token(
    store: &PgStore,
    org: OrgId,
    server: McpServerId,
    epoch: u32,
    owner: &TokenOwner,
    token: &OpenToken,
) -> Result<bool, StoreError> {
    let stored = sealed_token(&store.secrets, org, server, epoch, owner, token)?;
    let mut session = store.session().await?;
    let tx = session.client.transaction().await.map_err(db)?;
    if !at_epoch(&tx, org, server, epoch).await? {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO oauth_tokens (org_id, server_id, owner, updated_at, v, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org_id, server_id, owner) DO UPDATE SET updated_at = $4, v = $5, body = $6",
        &[
            &org.0,
            &server.0,
            &owner.key_part().as_slice(),
            &stored.updated_at,
            &V,
            &body(&stored),
        ],
    )
    .await
    .map_err(db)?;
    tx.commit().await.map_err(db)?;
    Ok(true)
}

/// `owner`'s token, opened.
pub(super) async fn token(
    store: &PgStore,
    org: OrgId,
    server: McpServerId,
    owner: &TokenOwner,
) -> Result<Option<OpenToken>, StoreError> {
    let sql = "SELECT v, body FROM oauth_tokens
               WHERE org_id = $1 AND server_id = $2 AND owner = $3";
    store
        .one::<StoredToken>(sql, &[&org.0, &server.0, &owner.key_part().as_slice()])
        .await?
        .map(|stored| opened_token(&store.secrets, org, server, owner, stored))
        .transpose()
}

/// The owner whose token was stored last.
pub(super) async fn latest_owner(
    store: &PgStore,
    org: OrgId,
    server: McpServerId,
) -> Result<Option<TokenOwner>, StoreError> {
    let session = store.session().await?;
    let row = session
        .db()
        .query_opt(
            "SELECT v, body FROM oauth_tokens WHERE org_id = $1 AND server_id = $2
             ORDER BY updated_at DESC LIMIT 1",
            &[&org.0, &server.0],
        )
        .await
        .map_err(db)?;
    row.map(|row| record::<StoredToken>(&row).map(|t| t.owner()))
        .transpose()
}

/// The advisory lock (`pg_advisory_lock(REFRESH_LOCK, hash of the token's
/// key)`) a token's refresh is made under.
const REFRESH_LOCK: i32 = 14;

/// A token's refresh, held across the cluster until dropped: its own
/// connection holds a session advisory lock, released when the hold is
/// dropped (the connection closes with it), whatever happened meanwhile.
pub struct RefreshHold {
    _connection: crate::tools::integrations::connection::PgConnection,
}

impl PgStore {
    /// Waits until no other node refreshes `owner`'s token of the server
    /// (at most a statement's 10 s), then holds its refresh: a provider
    /// that rotates refresh tokens sees each used once.
    pub async fn hold_token_refresh(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: &TokenOwner,
    ) -> Result<RefreshHold, StoreError> {
        let connection = self
            .database
            .dedicated()
            .await
            .map_err(super::super::records::store_error)?;
        let key = format!("{org}:{server}:{}", hex::encode(owner.key_part()));
        connection
            .client
            .execute(
                "SELECT pg_advisory_lock($1, hashtext($2))",
                &[&REFRESH_LOCK, &key],
            )
            .await
            .map_err(db)?;
        Ok(RefreshHold {
            _connection: connection,
        })
    }
}
