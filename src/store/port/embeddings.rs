//! The port of knowledge embeddings (`knowledge.md` §3) on either store:
//! each org's embedding configuration and its chunks' vectors. The
//! embeddings routes, the embedder and the vector search go through it.
//! On PostgreSQL every change to an org's vectors bumps its `vectors`
//! cache version, so each node's vector cache reloads it (`scale.md` §5).

use confer_actors::{OrgId, StoreFuture};

use super::SledRecords;
use crate::knowledge::Document;
use crate::knowledge::embedding_config::{EmbeddingConfig, EmbeddingSettings};
use crate::knowledge::vectors::StoredVector;
use crate::store::knowledge::vectors::ScopedVector;

/// A chunk's key: its document's 16 bytes, its generation and its place
/// (big-endian), as sled keys it and the vector cache holds it.
pub type ChunkKey = Vec<u8>;

/// A chunk's key (see [`ChunkKey`]).
pub fn chunk_key(doc: uuid::Uuid, generation: i64, n: i32) -> ChunkKey {
    [
        doc.as_bytes().as_slice(),
        &(generation as u64).to_be_bytes(),
        &(n as u32).to_be_bytes(),
    ]
    .concat()
}

/// The document, generation and place of a chunk's key.
pub fn key_parts(key: &[u8]) -> Option<(uuid::Uuid, i64, i32)> {
    let doc = uuid::Uuid::from_slice(key.get(..16)?).ok()?;
    let generation = u64::from_be_bytes(key.get(16..24)?.try_into().ok()?);
    let n = u32::from_be_bytes(key.get(24..28)?.try_into().ok()?);
    Some((doc, generation as i64, n as i32))
}

/// What the embedder learned of a configuration, applied only while it
/// still names the same server and model.
pub type EmbeddingNews = Box<dyn Fn(&mut EmbeddingConfig) + Send + Sync>;

/// Embedding configurations and vectors.
pub trait EmbeddingRecords: Send + Sync + 'static {
    /// The org's configuration.
    fn embedding_config(&self, org: OrgId) -> StoreFuture<Option<EmbeddingConfig>>;

    /// Every org's configuration.
    fn embedding_configs(&self) -> StoreFuture<Vec<(OrgId, EmbeddingConfig)>>;

    /// Replaces the org's configuration as [`EmbeddingConfig::replacing`]
    /// decides, atomically with the read of the old one; the stored one.
    fn configure_embeddings(
        &self,
        org: OrgId,
        settings: EmbeddingSettings,
    ) -> StoreFuture<EmbeddingConfig>;

    /// Applies `news` to the org's configuration while it still names
    /// `model` at `base_url` (the embedder never overwrites a newer one).
    fn update_embedding_state(
        &self,
        org: OrgId,
        at: (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()>;

    /// Drops the org's configuration and its chunks' vectors; whether it
    /// had one.
    fn delete_embedding_config(&self, org: OrgId) -> StoreFuture<bool>;

    /// Up to `limit` of the org's searchable chunks without a vector of
    /// `model` with `dims` components (any length while unknown): their
    /// keys and the text to embed (breadcrumb, then text).
    fn pending_chunks(
        &self,
        org: OrgId,
        model: String,
        dims: Option<usize>,
        limit: usize,
    ) -> StoreFuture<Vec<(ChunkKey, String)>>;

    /// How many of the org's searchable chunks wait for a vector.
    fn pending_count(&self, org: OrgId, model: String, dims: Option<usize>) -> StoreFuture<u64>;

    /// Stores a batch of the org's vectors by chunk key (a chunk purged
    /// meanwhile gets none) and applies `news` as
    /// [`EmbeddingRecords::update_embedding_state`] does, at once: a
    /// reader never sees the vectors without what they taught (their
    /// dimensions).
    fn put_vectors(
        &self,
        org: OrgId,
        made: Vec<(ChunkKey, StoredVector)>,
        at: (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()>;

    /// The org's vectors of `model` with `dims` components in its
    /// searchable generations, each with its chunk's key and its
    /// document's scope (what the vector cache holds).
    fn org_vectors(&self, org: OrgId, model: String, dims: usize)
    -> StoreFuture<Vec<ScopedVector>>;

    /// Drops the org's vectors of any other model or length (a re-embed
    /// ended).
    fn prune_vectors(&self, org: OrgId, model: String, dims: usize) -> StoreFuture<()>;

    /// Each document's embedded and pending chunk counts for `model`, in
    /// `documents`' order.
    fn document_vectors(
        &self,
        documents: Vec<Document>,
        model: String,
        dims: Option<usize>,
    ) -> StoreFuture<Vec<(u64, u64)>>;
}

impl EmbeddingRecords for SledRecords {
    fn embedding_config(&self, org: OrgId) -> StoreFuture<Option<EmbeddingConfig>> {
        self.read(move |s| s.embedding_config(org))
    }

    fn embedding_configs(&self) -> StoreFuture<Vec<(OrgId, EmbeddingConfig)>> {
        self.read(|s| s.embedding_configs())
    }

    fn configure_embeddings(
        &self,
        org: OrgId,
        settings: EmbeddingSettings,
    ) -> StoreFuture<EmbeddingConfig> {
        self.write(move |s| s.configure_embeddings(org, settings))
    }

    fn update_embedding_state(
        &self,
        org: OrgId,
        (base_url, model): (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()> {
        self.write(move |s| s.update_embedding_state(org, (&base_url, &model), news))
    }

    fn delete_embedding_config(&self, org: OrgId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_embedding_config(org))
    }

    fn pending_chunks(
        &self,
        org: OrgId,
        model: String,
        dims: Option<usize>,
        limit: usize,
    ) -> StoreFuture<Vec<(ChunkKey, String)>> {
        self.read(move |s| s.pending_chunks(org, &model, dims, limit))
    }

    fn pending_count(&self, org: OrgId, model: String, dims: Option<usize>) -> StoreFuture<u64> {
        self.read(move |s| s.pending_count(org, &model, dims))
    }

    fn put_vectors(
        &self,
        org: OrgId,
        made: Vec<(ChunkKey, StoredVector)>,
        (base_url, model): (String, String),
        news: EmbeddingNews,
    ) -> StoreFuture<()> {
        self.write(move |s| {
            s.put_vectors(made)?;
            s.update_embedding_state(org, (&base_url, &model), news)
        })
    }

    fn org_vectors(
        &self,
        org: OrgId,
        model: String,
        dims: usize,
    ) -> StoreFuture<Vec<ScopedVector>> {
        self.read(move |s| s.org_vectors(org, &model, dims))
    }

    fn prune_vectors(&self, org: OrgId, model: String, dims: usize) -> StoreFuture<()> {
        self.write(move |s| s.prune_vectors(org, &model, dims))
    }

    fn document_vectors(
        &self,
        documents: Vec<Document>,
        model: String,
        dims: Option<usize>,
    ) -> StoreFuture<Vec<(u64, u64)>> {
        self.read(move |s| {
            documents
                .iter()
                .map(|d| s.document_vectors(d, &model, dims))
                .collect()
        })
    }
}
