//! Embeddings in the store (`knowledge.md` §3): each org's embedding
//! configuration (its API key sealed) and the vectors of its chunks.
//!
//! | tree                | key                                   | value                   |
//! |---------------------|---------------------------------------|-------------------------|
//! | `embedding_configs` | org                                   | `EmbeddingConfig`       |
//! | `chunk_vectors`     | doc ++ generation BE ++ n BE (a chunk's key) | `StoredVector` bytes |
//!
//! A chunk is pending while it has no vector of the org's current model
//! and dimensions: a model change makes every chunk pending again (the
//! re-embed), and the embedder's scan of pending chunks is its cursor, so
//! it resumes after a restart by itself. Old vectors go once none is
//! pending.

use confer_actors::{OrgId, StoreError};

pub use crate::knowledge::embedding_config::{EmbeddingConfig, EmbeddingSettings};
use crate::knowledge::vectors::StoredVector;
use crate::knowledge::{Chunk, Document, Scope};
use crate::store::codec::decode;
use crate::store::{SledStore, engine};

use super::chunk_prefix;

/// A chunk's store key, its document's scope and its vector's components.
pub type ScopedVector = (Vec<u8>, Scope, Vec<i8>);

impl SledStore {
    fn configs(&self) -> Result<sled::Tree, StoreError> {
        self.embedding_config_tree()
    }

    /// The configurations' tree (`confer migrate` copies it).
    pub(crate) fn embedding_config_tree(&self) -> Result<sled::Tree, StoreError> {
        self.db.open_tree("embedding_configs").map_err(engine)
    }

    fn vectors(&self) -> Result<sled::Tree, StoreError> {
        self.vector_tree()
    }

    /// The vectors' tree (the purge removes a chunk's with it; the check
    /// reads it).
    pub(crate) fn vector_tree(&self) -> Result<sled::Tree, StoreError> {
        self.db.open_tree("chunk_vectors").map_err(engine)
    }

    /// The org's embedding configuration.
    pub fn embedding_config(&self, org: OrgId) -> Result<Option<EmbeddingConfig>, StoreError> {
        Self::get(&self.configs()?, org.as_bytes())
    }

    /// Every org's embedding configuration.
    pub fn embedding_configs(&self) -> Result<Vec<(OrgId, EmbeddingConfig)>, StoreError> {
        let mut all = Vec::new();
        for entry in self.configs()?.iter() {
            let (key, value) = entry.map_err(engine)?;
            let org: [u8; 16] = key
                .as_ref()
                .try_into()
                .map_err(|_| StoreError::Codec("embedding config key".into()))?;
            all.push((OrgId::from_bytes(org), decode(&value)?));
        }
        Ok(all)
    }

    /// Replaces the org's configuration as [`EmbeddingConfig::replacing`]
    /// decides, by compare-and-swap (a concurrent `PUT` is read again);
    /// the configuration stored.
    pub fn configure_embeddings(
        &self,
        org: OrgId,
        settings: EmbeddingSettings,
    ) -> Result<EmbeddingConfig, StoreError> {
        let _writing = self.gate.writing();
        let configs = self.configs()?;
        loop {
            let old_bytes = configs.get(org.as_bytes()).map_err(engine)?;
            let old = old_bytes
                .as_deref()
                .map(decode::<EmbeddingConfig>)
                .transpose()?;
            let config = EmbeddingConfig::replacing(old.as_ref(), settings.clone());
            let swapped = configs
                .compare_and_swap(
                    org.as_bytes(),
                    old_bytes,
                    Some(crate::store::codec::encode(&config)?),
                )
                .map_err(engine)?;
            if swapped.is_ok() {
                return Ok(config);
            }
        }
    }

    /// Changes the org's configuration only while it still names
    /// `model` at `base_url` (the embedder's news never overwrites a newer
    /// configuration).
    pub fn update_embedding_state(
        &self,
        org: OrgId,
        (base_url, model): (&str, &str),
        change: impl Fn(&mut EmbeddingConfig),
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        crate::store::update::swap(
            &self.configs()?,
            org.as_bytes(),
            |bytes| {
                Ok(bytes
                    .map(decode::<EmbeddingConfig>)
                    .transpose()?
                    .filter(|c| c.base_url == base_url && c.model == model))
            },
            |mut config| {
                change(&mut config);
                Ok::<_, StoreError>(config)
            },
        )?;
        Ok(())
    }

    /// Drops the org's configuration and its chunks' vectors.
    pub fn delete_embedding_config(&self, org: OrgId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let removed = self.configs()?.remove(org.as_bytes()).map_err(engine)?;
        let vectors = self.vectors()?;
        for (document, generation) in self.searchable_of(org, None)? {
            let mut doomed = sled::Batch::default();
            for key in vectors
                .scan_prefix(chunk_prefix(document.id, generation))
                .keys()
            {
                doomed.remove(key.map_err(engine)?);
            }
            vectors.apply_batch(doomed).map_err(engine)?;
        }
        Ok(removed.is_some())
    }

    /// The org's searchable documents (of `scopes` when given) with their
    /// searchable generation.
    fn searchable_of(
        &self,
        org: OrgId,
        scopes: Option<&[Scope]>,
    ) -> Result<Vec<(Document, u64)>, StoreError> {
        let mut found = Vec::new();
        for value in self
            .knowledge
            .documents
            .scan_prefix(org.as_bytes())
            .values()
        {
            let document: Document = decode(&value.map_err(engine)?)?;
            if scopes.is_some_and(|s| !s.contains(&document.scope)) {
                continue;
            }
            if let Some(generation) = document.searchable_generation {
                found.push((document, generation));
            }
        }
        Ok(found)
    }

    /// Up to `limit` chunks of the org without a vector of `model` with
    /// `dims` components (any length while `dims` is unknown): their keys
    /// and the text to embed (breadcrumb, then text).
    pub fn pending_chunks(
        &self,
        org: OrgId,
        model: &str,
        dims: Option<usize>,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, String)>, StoreError> {
        let vectors = self.vectors()?;
        let mut pending = Vec::new();
        for (document, generation) in self.searchable_of(org, None)? {
            for entry in self
                .knowledge
                .chunks
                .scan_prefix(chunk_prefix(document.id, generation))
            {
                let (key, value) = entry.map_err(engine)?;
                let current = vectors
                    .get(&key)
                    .map_err(engine)?
                    .and_then(|bytes| StoredVector::decode(&bytes))
                    .is_some_and(|v| {
                        v.model == model && dims.is_none_or(|d| v.components.len() == d)
                    });
                if current {
                    continue;
                }
                let chunk: Chunk = decode(&value)?;
                pending.push((
                    key.to_vec(),
                    format!("{}\n{}", chunk.breadcrumb, chunk.text),
                ));
                if pending.len() == limit {
                    return Ok(pending);
                }
            }
        }
        Ok(pending)
    }

    /// How many of the org's chunks wait for a vector (and, per document,
    /// how many have one).
    pub fn pending_count(
        &self,
        org: OrgId,
        model: &str,
        dims: Option<usize>,
    ) -> Result<u64, StoreError> {
        Ok(self.pending_chunks(org, model, dims, usize::MAX)?.len() as u64)
    }

    /// Stores vectors by chunk key (a chunk purged meanwhile gets none).
    pub fn put_vectors(&self, made: Vec<(Vec<u8>, StoredVector)>) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let vectors = self.vectors()?;
        let mut batch = sled::Batch::default();
        for (key, vector) in made {
            if self.knowledge.chunks.contains_key(&key).map_err(engine)? {
                batch.insert(key, vector.encode());
            }
        }
        vectors.apply_batch(batch).map_err(engine)
    }

    /// The org's vectors of `model` with `dims` components, each with its
    /// chunk's key and its document's scope (what the cache holds).
    pub fn org_vectors(
        &self,
        org: OrgId,
        model: &str,
        dims: usize,
    ) -> Result<Vec<ScopedVector>, StoreError> {
        let vectors = self.vectors()?;
        let mut found = Vec::new();
        for (document, generation) in self.searchable_of(org, None)? {
            for entry in vectors.scan_prefix(chunk_prefix(document.id, generation)) {
                let (key, value) = entry.map_err(engine)?;
                if let Some(vector) = StoredVector::decode(&value).filter(|v| v.is_of(model, dims))
                {
                    found.push((key.to_vec(), document.scope, vector.components));
                }
            }
        }
        Ok(found)
    }

    /// Drops the org's vectors of any other model or length (a re-embed
    /// ended).
    pub fn prune_vectors(&self, org: OrgId, model: &str, dims: usize) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let vectors = self.vectors()?;
        for (document, generation) in self.searchable_of(org, None)? {
            let mut doomed = sled::Batch::default();
            for entry in vectors.scan_prefix(chunk_prefix(document.id, generation)) {
                let (key, value) = entry.map_err(engine)?;
                if !StoredVector::decode(&value).is_some_and(|v| v.is_of(model, dims)) {
                    doomed.remove(key);
                }
            }
            vectors.apply_batch(doomed).map_err(engine)?;
        }
        Ok(())
    }

    /// A document's embedded and pending chunk counts for `model`.
    pub fn document_vectors(
        &self,
        document: &Document,
        model: &str,
        dims: Option<usize>,
    ) -> Result<(u64, u64), StoreError> {
        let Some(generation) = document.searchable_generation else {
            return Ok((0, 0));
        };
        let vectors = self.vectors()?;
        let mut embedded = 0;
        for key in self
            .knowledge
            .chunks
            .scan_prefix(chunk_prefix(document.id, generation))
            .keys()
        {
            let key = key.map_err(engine)?;
            if vectors
                .get(&key)
                .map_err(engine)?
                .and_then(|bytes| StoredVector::decode(&bytes))
                .is_some_and(|v| v.model == model && dims.is_none_or(|d| v.components.len() == d))
            {
                embedded += 1;
            }
        }
        Ok((embedded, document.chunk_count.saturating_sub(embedded)))
    }
}
