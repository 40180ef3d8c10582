//! [`EmbeddingRecords`] on PostgreSQL: `embedding_configs` (a `PUT`
//! decided under the org's advisory lock, the embedder's news under the
//! row's lock) and `chunk_vectors`, whose rows go with their chunk's
//! purge. A chunk is pending while it has no vector of the current model
//! and dimensions (one anti-join); every change to an org's vectors bumps
//! its `vectors` cache version, so each node's vector cache reloads it.

use confer_actors::{OrgId, StoreError, StoreFuture};
use tokio_postgres::Row;

use super::records::{PgStore, V, body, db, hold_lock, record};
use super::tools::bump;
use crate::knowledge::embedding_config::{EmbeddingConfig, EmbeddingSettings};
use crate::knowledge::vectors::StoredVector;
use crate::knowledge::{Chunk, Document, Scope};
use crate::store::knowledge::vectors::ScopedVector;
use crate::store::port::embeddings::{chunk_key, key_parts};
use crate::store::port::{ChunkKey, EmbeddingNews, EmbeddingRecords};

/// The `cache_versions` kind of an org's vectors.
pub const KIND: &str = "vectors";

/// The advisory lock under which an org's configuration is replaced.
const EMBEDDING_CONFIG_LOCK: i32 = 20;

/// The chunks of the org's searchable generations that lack a vector of
/// `$2` with `$3` components (any length when null).
const PENDING: &str = "FROM documents d
     JOIN chunks c ON c.doc_id = d.id
        AND c.generation = (d.body->>'searchable_generation')::bigint
     LEFT JOIN chunk_vectors x ON x.doc_id = c.doc_id AND x.generation = c.generation
        AND x.n = c.n AND x.model = $2
        AND ($3::int IS NULL OR octet_length(x.components) = $3)
     WHERE d.org_id = $1 AND x.doc_id IS NULL";

fn dims_param(dims: Option<usize>) -> Option<i32> {
    dims.map(|d| i32::try_from(d).unwrap_or(i32::MAX))
}

fn components(bytes: Vec<u8>) -> Vec<i8> {
    bytes.into_iter().map(|b| b as i8).collect()
}

fn pending_of(row: &Row) -> Result<(ChunkKey, String), StoreError> {
    let chunk: Chunk = record(row)?;
    let key = chunk_key(row.get("doc_id"), row.get("generation"), row.get("n"));
    Ok((key, format!("{}\n{}", chunk.breadcrumb, chunk.text)))
}

/// Applies `news` to the org's configuration, its row held, while it
/// still names `model` at `base_url`.
async fn apply_news(
    tx: &tokio_postgres::Transaction<'_>,
    org: OrgId,
    (base_url, model): (String, String),
    news: EmbeddingNews,
) -> Result<(), StoreError> {
    let row = tx
        .query_opt(
            "SELECT v, body FROM embedding_configs WHERE org_id = $1 FOR UPDATE",
            &[&org.0],
        )
        .await
        .map_err(db)?;
    let Some(mut config) = row.map(|row| record::<EmbeddingConfig>(&row)).transpose()? else {
        return Ok(());
    };
    if config.base_url != base_url || config.model != model {
        return Ok(());
    }
    news(&mut config);
    tx.execute(
        "UPDATE embedding_configs SET v = $2, body = $3 WHERE org_id = $1",
        &[&org.0, &V, &body(&config)],
    )
    .await
    .map_err(db)?;
    Ok(())
}

impl PgStore {
    async fn configure_on_pg(
        self,
        org: OrgId,
        settings: EmbeddingSettings,
    ) -> Result<EmbeddingConfig, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        hold_lock(&tx, EMBEDDING_CONFIG_LOCK, org.0).await?;
        let old = tx
            .query_opt(
                "SELECT v, body FROM embedding_configs WHERE org_id = $1",
                &[&org.0],
            )
            .await
            .map_err(db)?
            .map(|row| record::<EmbeddingConfig>(&row))
            .transpose()?;
        let config = EmbeddingConfig::replacing(old.as_ref(), settings);
        tx.execute(
            "INSERT INTO embedding_configs (org_id, v, body) VALUES ($1, $2, $3)
             ON CONFLICT (org_id) DO UPDATE SET v = excluded.v, body = excluded.body",
            &[&org.0, &V, &body(&config)],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(config)
    }

    async fn update_state_on_pg(
        self,
        org: OrgId,
        at: (String, String),
        news: EmbeddingNews,
    ) -> Result<(), StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        apply_news(&tx, org, at, news).await?;
        tx.commit().await.map_err(db)
    }

    async fn delete_config_on_pg(self, org: OrgId) -> Result<bool, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let removed = tx
            .execute("DELETE FROM embedding_configs WHERE org_id = $1", &[&org.0])
            .await
            .map_err(db)?;
        tx.execute(
            "DELETE FROM chunk_vectors x USING documents d
             WHERE d.org_id = $1 AND x.doc_id = d.id",
            &[&org.0],
        )
        .await
        .map_err(db)?;
        bump(&tx, org, KIND).await?;
        tx.commit().await.map_err(db)?;
        Ok(removed > 0)
    }

    async fn put_vectors_on_pg(
        self,
        org: OrgId,
        made: Vec<(ChunkKey, StoredVector)>,
        (at, news): ((String, String), EmbeddingNews),
    ) -> Result<(), StoreError> {
        let (mut docs, mut generations, mut ns, mut models, mut vectors) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (key, vector) in made {
            let (doc, generation, n) =
                key_parts(&key).ok_or_else(|| StoreError::Codec("a chunk's key".into()))?;
            docs.push(doc);
            generations.push(generation);
            ns.push(n);
            models.push(vector.model);
            vectors.push(
                vector
                    .components
                    .iter()
                    .map(|c| *c as u8)
                    .collect::<Vec<u8>>(),
            );
        }
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        // A chunk purged meanwhile gets none: the join finds it no more.
        tx.execute(
            "INSERT INTO chunk_vectors (doc_id, generation, n, model, components)
             SELECT c.doc_id, c.generation, c.n, p.model, p.components
             FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::text[], $5::bytea[])
                AS p(doc, gen, n, model, components)
             JOIN chunks c ON c.doc_id = p.doc AND c.generation = p.gen AND c.n = p.n
             ON CONFLICT (doc_id, generation, n)
             DO UPDATE SET model = excluded.model, components = excluded.components",
            &[&docs, &generations, &ns, &models, &vectors],
        )
        .await
        .map_err(db)?;
        bump(&tx, org, KIND).await?;
        apply_news(&tx, org, at, news).await?;
        tx.commit().await.map_err(db)
    }

    async fn org_vectors_on_pg(
        self,
        org: OrgId,
        model: String,
        dims: usize,
    ) -> Result<Vec<ScopedVector>, StoreError> {
        let session = self.session().await?;
        let rows = session
            .db()
            .query(
                "SELECT x.doc_id, x.generation, x.n, d.scope_key, x.components
                 FROM documents d
                 JOIN chunk_vectors x ON x.doc_id = d.id
                    AND x.generation = (d.body->>'searchable_generation')::bigint
                 WHERE d.org_id = $1 AND x.model = $2 AND octet_length(x.components) = $3
                 ORDER BY x.doc_id, x.generation, x.n",
                &[&org.0, &model, &dims_param(Some(dims))],
            )
            .await
            .map_err(db)?;
        rows.into_iter()
            .map(|row| {
                let scope: Vec<u8> = row.get(3);
                let scope = Scope::from_key(&scope)
                    .ok_or_else(|| StoreError::Codec("a document's scope key".into()))?;
                let key = chunk_key(row.get(0), row.get(1), row.get(2));
                Ok((key, scope, components(row.get(4))))
            })
            .collect()
    }

    async fn prune_on_pg(self, org: OrgId, model: String, dims: usize) -> Result<(), StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        tx.execute(
            "DELETE FROM chunk_vectors x USING documents d
             WHERE d.org_id = $1 AND x.doc_id = d.id
               AND x.generation = (d.body->>'searchable_generation')::bigint
               AND NOT (x.model = $2 AND octet_length(x.components) = $3)",
            &[&org.0, &model, &dims_param(Some(dims))],
        )
        .await
        .map_err(db)?;
        bump(&tx, org, KIND).await?;
        tx.commit().await.map_err(db)
    }

    async fn document_vectors_on_pg(
        self,
        documents: Vec<Document>,
        model: String,
        dims: Option<usize>,
    ) -> Result<Vec<(u64, u64)>, StoreError> {
        let searchable: Vec<(uuid::Uuid, i64)> = documents
            .iter()
            .filter_map(|d| Some((d.id.0, d.searchable_generation? as i64)))
            .collect();
        let (ids, generations): (Vec<_>, Vec<_>) = searchable.into_iter().unzip();
        let session = self.session().await?;
        let rows = session
            .db()
            .query(
                "SELECT p.doc, count(x.n) FROM unnest($1::uuid[], $2::bigint[]) AS p(doc, gen)
                 LEFT JOIN chunk_vectors x ON x.doc_id = p.doc AND x.generation = p.gen
                    AND x.model = $3 AND ($4::int IS NULL OR octet_length(x.components) = $4)
                 GROUP BY p.doc",
                &[&ids, &generations, &model, &dims_param(dims)],
            )
            .await
            .map_err(db)?;
        let embedded: std::collections::HashMap<uuid::Uuid, i64> =
            rows.iter().map(|row| (row.get(0), row.get(1))).collect();
        Ok(documents
            .iter()
            .map(|d| match d.searchable_generation {
                None => (0, 0),
                Some(_) => {
                    let embedded = embedded.get(&d.id.0).copied().unwrap_or(0) as u64;
                    (embedded, d.chunk_count.saturating_sub(embedded))
                }
            })
            .collect())
    }
}

impl EmbeddingRecords for PgStore {
    fn embedding_config(&self, org: OrgId) -> StoreFuture<Option<EmbeddingConfig>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .one(
                    "SELECT v, body FROM embedding_configs WHERE org_id = $1",
                    &[&org.0],
                )
                .await
        })
    }

    fn embedding_configs(&self) -> StoreFuture<Vec<(OrgId, EmbeddingConfig)>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let rows = session
                .db()
                .query(
                    "SELECT org_id, v, body FROM embedding_configs ORDER BY org_id",
                    &[],
                )
                .await
                .map_err(db)?;
            rows.iter()
                .map(|row| Ok((OrgId(row.get(0)), record(row)?)))
                .collect()
        })
    }

    fn configure_embeddings(
        &self,
        org: OrgId,
        settings: EmbeddingSettings,
    ) -> StoreFuture<EmbeddingConfig> {
        Box::pin(self.clone().configure_on_pg(org, settings))
    }

    fn update_embedding_state(
        &self,
        org: OrgId,
        at: (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()> {
        Box::pin(self.clone().update_state_on_pg(org, at, news))
    }

    fn delete_embedding_config(&self, org: OrgId) -> StoreFuture<bool> {
        Box::pin(self.clone().delete_config_on_pg(org))
    }

    fn pending_chunks(
        &self,
        org: OrgId,
        model: String,
        dims: Option<usize>,
        limit: usize,
    ) -> StoreFuture<Vec<(ChunkKey, String)>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = format!(
                "SELECT c.doc_id, c.generation, c.n, c.v, c.body {PENDING}
                 ORDER BY c.doc_id, c.generation, c.n LIMIT $4"
            );
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let session = store.session().await?;
            let rows = session
                .db()
                .query(sql.as_str(), &[&org.0, &model, &dims_param(dims), &limit])
                .await
                .map_err(db)?;
            rows.iter().map(pending_of).collect()
        })
    }

    fn pending_count(&self, org: OrgId, model: String, dims: Option<usize>) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let sql = format!("SELECT count(*) {PENDING}");
            let session = store.session().await?;
            let row = session
                .db()
                .query_one(sql.as_str(), &[&org.0, &model, &dims_param(dims)])
                .await
                .map_err(db)?;
            Ok(row.get::<_, i64>(0) as u64)
        })
    }

    fn put_vectors(
        &self,
        org: OrgId,
        made: Vec<(ChunkKey, StoredVector)>,
        at: (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()> {
        Box::pin(self.clone().put_vectors_on_pg(org, made, (at, news)))
    }

    fn org_vectors(
        &self,
        org: OrgId,
        model: String,
        dims: usize,
    ) -> StoreFuture<Vec<ScopedVector>> {
        Box::pin(self.clone().org_vectors_on_pg(org, model, dims))
    }

    fn prune_vectors(&self, org: OrgId, model: String, dims: usize) -> StoreFuture<()> {
        Box::pin(self.clone().prune_on_pg(org, model, dims))
    }

    fn document_vectors(
        &self,
        documents: Vec<Document>,
        model: String,
        dims: Option<usize>,
    ) -> StoreFuture<Vec<(u64, u64)>> {
        Box::pin(self.clone().document_vectors_on_pg(documents, model, dims))
    }
}
