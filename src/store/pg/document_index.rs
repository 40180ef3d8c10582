//! What the search index and the search read of documents on
//! PostgreSQL: the feed's changes a job logs, the searchable generations
//! a rebuilt index holds, a generation's chunks, and a search's hits,
//! each counted only in its document's searchable generation.

use confer_actors::{DocumentId, OrgId, StoreError};

use super::index_feed::log_changes;
use super::records::{PgStore, db, joined, record};
use crate::knowledge::{Chunk, Document, Scope};
use crate::store::knowledge::changes::{IndexChange, SearchableGeneration};
use crate::store::port::ChunkPlace;

impl PgStore {
    pub(super) async fn log_index_change_on_pg(
        &self,
        change: &IndexChange,
    ) -> Result<u64, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let seq = log_changes(&tx, std::slice::from_ref(change)).await?;
        tx.commit().await.map_err(db)?;
        Ok(seq)
    }

    pub(super) async fn searchable_generations_on_pg(
        &self,
    ) -> Result<Vec<SearchableGeneration>, StoreError> {
        let documents: Vec<Document> = self
            .all(
                "SELECT v, body FROM documents
                 WHERE body->>'searchable_generation' IS NOT NULL",
                &[],
            )
            .await?;
        Ok(documents
            .into_iter()
            .filter_map(|d| {
                Some(SearchableGeneration {
                    org_id: d.org_id,
                    doc_id: d.id,
                    scope: d.scope,
                    generation: d.searchable_generation?,
                })
            })
            .collect())
    }

    pub(super) async fn generation_chunks_on_pg(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
    ) -> Result<Option<(Scope, Vec<Chunk>)>, StoreError> {
        let Some(document) = self
            .one::<Document>(
                "SELECT v, body FROM documents WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0],
            )
            .await?
        else {
            return Ok(None);
        };
        let chunks = self
            .all(
                "SELECT v, body FROM chunks WHERE doc_id = $1 AND generation = $2 ORDER BY n",
                &[&id.0, &(generation as i64)],
            )
            .await?;
        Ok(Some((document.scope, chunks)))
    }

    pub(super) async fn any_searchable_on_pg(
        &self,
        org: OrgId,
        scopes: &[Scope],
    ) -> Result<bool, StoreError> {
        let keys: Vec<Vec<u8>> = scopes.iter().map(|s| s.key(org).to_vec()).collect();
        let session = self.session().await?;
        let row = session
            .db()
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM documents WHERE org_id = $1
                    AND scope_key = ANY($2) AND body->>'searchable_generation' IS NOT NULL)",
                &[&org.0, &keys],
            )
            .await
            .map_err(db)?;
        Ok(row.get(0))
    }

    pub(super) async fn searchable_chunks_on_pg(
        &self,
        org: OrgId,
        places: &[ChunkPlace],
        limit: usize,
    ) -> Result<Vec<(Document, Chunk)>, StoreError> {
        let docs: Vec<uuid::Uuid> = places.iter().map(|p| p.0.0).collect();
        let generations: Vec<i64> = places.iter().map(|p| p.1 as i64).collect();
        let ns: Vec<i32> = places.iter().map(|p| p.2 as i32).collect();
        let session = self.session().await?;
        let rows = session
            .db()
            .query(
                "SELECT d.v, d.body, c.v AS c_v, c.body AS c_body
                 FROM unnest($2::uuid[], $3::bigint[], $4::int[]) WITH ORDINALITY AS p(doc, gen, n, i)
                 JOIN documents d ON d.org_id = $1 AND d.id = p.doc
                    AND (d.body->>'searchable_generation')::bigint = p.gen
                 JOIN chunks c ON c.doc_id = p.doc AND c.generation = p.gen AND c.n = p.n
                 ORDER BY p.i LIMIT $5",
                &[
                    &org.0,
                    &docs,
                    &generations,
                    &ns,
                    &i64::try_from(limit).unwrap_or(i64::MAX),
                ],
            )
            .await
            .map_err(db)?;
        rows.iter()
            .map(|row| {
                let chunk = joined(row, "c_")?.ok_or(StoreError::Codec("a chunk".into()))?;
                Ok((record(row)?, chunk))
            })
            .collect()
    }
}
