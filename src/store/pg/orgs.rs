//! Organizations and API keys on PostgreSQL. Keys are read from the
//! database at every request, never cached on a node, so a delete holds on
//! every node at once (`scale.md` §5).

use chrono::{DateTime, Utc};
use confer_actors::{ApiKeyId, OrgId, StoreError, StoreFuture};
use tokio_postgres::{GenericClient, Row};

use super::records::{PgStore, V, body, db, micro, record};
use crate::store::port::OrgRecords;
use crate::store::records::{ApiKey, DEFAULT_ORG, Org};

/// The advisory lock (`pg_advisory_xact_lock(BOOTSTRAP_LOCK, 0)`) under
/// which one node of those started together makes the first org and key.
const BOOTSTRAP_LOCK: i32 = 8;

async fn upsert_org(client: &impl GenericClient, org: &Org) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO orgs (id, name, created_at, v, body) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE
             SET name = EXCLUDED.name, v = EXCLUDED.v, body = EXCLUDED.body",
            &[&org.id.0, &org.name, &org.created_at, &V, &body(org)],
        )
        .await
        .map_err(db)?;
    Ok(())
}

async fn insert_key(
    client: &impl GenericClient,
    key: &ApiKey,
    secret_sha256: &[u8; 32],
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO api_keys (id, org_id, secret_sha256, created_at, last_used_at, v, body)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &key.id.0,
                &key.org_id.0,
                &secret_sha256.as_slice(),
                &key.created_at,
                &key.last_used_at,
                &V,
                &body(key),
            ],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// A key row: the record with its last use from its own column.
fn api_key(row: &Row) -> Result<ApiKey, StoreError> {
    let mut key: ApiKey = record(row)?;
    key.last_used_at = row.try_get("last_used_at").map_err(db)?;
    Ok(key)
}

const KEY_COLUMNS: &str = "v, body, last_used_at";

impl OrgRecords for PgStore {
    fn put_org(&self, mut org: Org) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            org.created_at = micro(org.created_at);
            upsert_org(&store.session().await?.client, &org).await
        })
    }

    fn org(&self, id: OrgId) -> StoreFuture<Option<Org>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .one("SELECT v, body FROM orgs WHERE id = $1", &[&id.0])
                .await
        })
    }

    fn orgs(&self) -> StoreFuture<Vec<Org>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .all("SELECT v, body FROM orgs ORDER BY created_at, id", &[])
                .await
        })
    }

    fn insert_api_key(&self, mut key: ApiKey, secret_sha256: [u8; 32]) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            key.created_at = micro(key.created_at);
            key.last_used_at = key.last_used_at.map(micro);
            insert_key(&store.session().await?.client, &key, &secret_sha256).await
        })
    }

    fn api_key_by_hash(&self, secret_sha256: [u8; 32]) -> StoreFuture<Option<ApiKey>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .session()
                .await?
                .client
                .query_opt(
                    &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE secret_sha256 = $1"),
                    &[&secret_sha256.as_slice()],
                )
                .await
                .map_err(db)?
                .map(|row| api_key(&row))
                .transpose()
        })
    }

    fn api_keys(&self, org: OrgId) -> StoreFuture<Vec<ApiKey>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .session()
                .await?
                .client
                .query(
                    &format!(
                        "SELECT {KEY_COLUMNS} FROM api_keys WHERE org_id = $1 ORDER BY created_at, id"
                    ),
                    &[&org.0],
                )
                .await
                .map_err(db)?
                .iter()
                .map(api_key)
                .collect()
        })
    }

    fn delete_api_key(&self, org: OrgId, id: ApiKeyId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "DELETE FROM api_keys WHERE org_id = $1 AND id = $2";
            Ok(store.execute(sql, &[&org.0, &id.0]).await? == 1)
        })
    }

    /// One statement: the touch, when due, and the row either way.
    fn use_api_key(
        &self,
        secret_sha256: [u8; 32],
        now: DateTime<Utc>,
        stale_after: chrono::TimeDelta,
    ) -> StoreFuture<Option<ApiKey>> {
        let store = self.clone();
        Box::pin(async move {
            let (now, due) = (micro(now), micro(now - stale_after));
            store
                .session()
                .await?
                .db()
                .query_opt(
                    "WITH touched AS (
                         UPDATE api_keys SET last_used_at = $2
                         WHERE secret_sha256 = $1 AND (last_used_at IS NULL OR last_used_at < $3)
                         RETURNING v, body, last_used_at
                     )
                     SELECT v, body, last_used_at FROM touched
                     UNION ALL
                     SELECT v, body, last_used_at FROM api_keys
                     WHERE secret_sha256 = $1 AND NOT EXISTS (SELECT 1 FROM touched)",
                    &[&secret_sha256.as_slice(), &now, &due],
                )
                .await
                .map_err(db)?
                .map(|row| api_key(&row))
                .transpose()
        })
    }

    fn bootstrap(
        &self,
        mut key: ApiKey,
        secret_sha256: [u8; 32],
        only_when_empty: bool,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&BOOTSTRAP_LOCK])
                .await
                .map_err(db)?;
            let any_org = tx
                .query_opt("SELECT 1 FROM orgs LIMIT 1", &[])
                .await
                .map_err(db)?
                .is_some();
            if only_when_empty && any_org {
                return Ok(false);
            }
            let default = tx
                .query_opt(
                    "SELECT v, body FROM orgs WHERE name = $1 ORDER BY created_at, id LIMIT 1",
                    &[&DEFAULT_ORG],
                )
                .await
                .map_err(db)?
                .map(|row| record::<Org>(&row))
                .transpose()?;
            key.org_id = match default {
                Some(org) => org.id,
                None => {
                    let org = Org {
                        id: OrgId::new(),
                        name: DEFAULT_ORG.into(),
                        created_at: micro(Utc::now()),
                    };
                    upsert_org(&tx, &org).await?;
                    org.id
                }
            };
            let known = tx
                .query_opt(
                    "SELECT 1 FROM api_keys WHERE secret_sha256 = $1",
                    &[&secret_sha256.as_slice()],
                )
                .await
                .map_err(db)?
                .is_some();
            if known {
                return Ok(false);
            }
            key.created_at = micro(key.created_at);
            key.last_used_at = None;
            insert_key(&tx, &key, &secret_sha256).await?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }
}
