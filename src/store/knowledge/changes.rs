//! The knowledge index's change log (`knowledge.md` §3): each change to
//! what the tantivy cache must hold, in sequence, until the index writer
//! has committed it. Chunks in sled stay the truth; the log only says
//! which generations to add or drop, so the writer reads the chunks
//! themselves when it applies a change.
//!
//! | tree                | key        | value         |
//! |---------------------|------------|---------------|
//! | `knowledge_changes` | seq u64 BE | `IndexChange` |

use confer_actors::{AgentId, DocumentId, MemoryId, OrgId, StoreError};
use serde::{Deserialize, Serialize};

use super::{chunk_prefix, doc_key};
use crate::knowledge::{Chunk, Document, Scope};
use crate::store::codec::{decode, encode};
use crate::store::{SledStore, engine};

/// One change the index must apply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum IndexChange {
    /// Index a generation of a document's chunks (again: applying it twice
    /// leaves one copy).
    AddGeneration {
        org_id: OrgId,
        doc_id: DocumentId,
        generation: u64,
    },
    /// Drop a generation's entries (`None`: every generation).
    RemoveGeneration {
        doc_id: DocumentId,
        generation: Option<u64>,
    },
    /// Index a memory (again: applying it twice leaves one copy).
    AddMemory {
        org_id: OrgId,
        agent_id: AgentId,
        memory_id: MemoryId,
    },
    RemoveMemory {
        memory_id: MemoryId,
    },
}

/// A searchable generation, as a rebuild of the index reads it.
pub struct SearchableGeneration {
    pub org_id: OrgId,
    pub doc_id: DocumentId,
    pub scope: Scope,
    pub generation: u64,
}

impl SledStore {
    /// Appends `change` to the log; returns its sequence number. Appends
    /// and reads hold one lock, so a reader never sees a later change
    /// without the earlier ones.
    pub fn log_index_change(&self, change: &IndexChange) -> Result<u64, StoreError> {
        let k = &self.knowledge;
        let _order = k
            .changes_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let last = k
            .changes
            .last()
            .map_err(engine)?
            .map_or(0, |(key, _)| seq_of(&key));
        let seq = last.max(self.index_changes_floor()?) + 1;
        k.changes
            .insert(seq.to_be_bytes(), encode(change)?)
            .map_err(engine)?;
        Ok(seq)
    }

    /// Up to `limit` changes after `seq`, in order.
    pub fn index_changes_after(
        &self,
        seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, IndexChange)>, StoreError> {
        let k = &self.knowledge;
        let _order = k
            .changes_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        k.changes
            .range((seq.saturating_add(1)).to_be_bytes()..)
            .take(limit)
            .map(|entry| {
                let (key, value) = entry.map_err(engine)?;
                Ok((seq_of(&key), decode(&value)?))
            })
            .collect()
    }

    /// Drops the changes up to `seq` (committed to the index); later ones
    /// keep numbering after it.
    pub fn prune_index_changes(&self, seq: u64) -> Result<(), StoreError> {
        let k = &self.knowledge;
        let _order = k
            .changes_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The floor first: numbering never restarts below a committed
        // sequence, even when the log is empty after a restart.
        if seq > self.index_changes_floor()? {
            self.meta
                .insert(CHANGES_FLOOR, &seq.to_be_bytes())
                .map_err(engine)?;
        }
        let mut doomed = sled::Batch::default();
        for key in k.changes.range(..=seq.to_be_bytes()).keys() {
            doomed.remove(key.map_err(engine)?);
        }
        k.changes.apply_batch(doomed).map_err(engine)
    }

    /// Every document's searchable generation (what a rebuilt index holds).
    pub fn searchable_generations(&self) -> Result<Vec<SearchableGeneration>, StoreError> {
        let mut found = Vec::new();
        for value in self.knowledge.documents.iter().values() {
            let document: Document = decode(&value.map_err(engine)?)?;
            if let Some(generation) = document.searchable_generation {
                found.push(SearchableGeneration {
                    org_id: document.org_id,
                    doc_id: document.id,
                    scope: document.scope,
                    generation,
                });
            }
        }
        Ok(found)
    }

    /// The chunks of a generation, in order (the document's scope with
    /// them; `None` when the document is gone).
    pub fn generation_chunks(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
    ) -> Result<Option<(Scope, Vec<Chunk>)>, StoreError> {
        let Some(document) = self.document(org, id)? else {
            return Ok(None);
        };
        let chunks = self
            .knowledge
            .chunks
            .scan_prefix(chunk_prefix(id, generation))
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect::<Result<_, _>>()?;
        Ok(Some((document.scope, chunks)))
    }

    /// Whether a document of `scopes` is searchable (the knowledge tool is
    /// offered only then).
    pub fn any_searchable(&self, org: OrgId, scopes: &[Scope]) -> Result<bool, StoreError> {
        let k = &self.knowledge;
        for scope in scopes {
            let prefix = [org.as_bytes().as_slice(), &scope.key(org)].concat();
            for key in k.by_scope.scan_prefix(&prefix).keys() {
                let key = key.map_err(engine)?;
                let id: [u8; 16] = key[key.len() - 16..]
                    .try_into()
                    .map_err(|_| StoreError::Codec("document key".into()))?;
                let found = self.document(org, DocumentId::from_bytes(id))?;
                if found.is_some_and(|d| d.searchable_generation.is_some()) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The chunk `n` of generation `generation` with its document, only if
    /// that generation is the document's searchable one: a hit counts for
    /// nothing else (`knowledge.md` §2).
    pub fn searchable_chunk(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        n: u32,
    ) -> Result<Option<(Document, Chunk)>, StoreError> {
        let k = &self.knowledge;
        let Some(document) = Self::get::<Document>(&k.documents, &doc_key(org, id))? else {
            return Ok(None);
        };
        if document.searchable_generation != Some(generation) {
            return Ok(None);
        }
        let key = [chunk_prefix(id, generation).as_slice(), &n.to_be_bytes()].concat();
        let Some(bytes) = k.chunks.get(key).map_err(engine)? else {
            return Ok(None);
        };
        Ok(Some((document, decode(&bytes)?)))
    }
}

/// The `meta` key of the highest pruned sequence.
const CHANGES_FLOOR: &[u8] = b"knowledge_changes_floor";

impl SledStore {
    fn index_changes_floor(&self) -> Result<u64, StoreError> {
        Ok(self
            .meta
            .get(CHANGES_FLOOR)
            .map_err(engine)?
            .map_or(0, |bytes| seq_of(&bytes)))
    }
}

fn seq_of(key: &[u8]) -> u64 {
    <[u8; 8]>::try_from(key).map_or(0, u64::from_be_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_keep_rising_past_a_prune() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = crate::store::testing::reopen_for_test(dir.path());
        let change = IndexChange::RemoveGeneration {
            doc_id: DocumentId::new(),
            generation: None,
        };
        let first = store.log_index_change(&change).expect("log");
        let second = store.log_index_change(&change).expect("log");
        assert!(second > first);
        store.prune_index_changes(second).expect("prune");
        assert!(store.index_changes_after(0, 10).expect("read").is_empty());
        drop(store);
        let store = crate::store::testing::reopen_for_test(dir.path());
        let third = store.log_index_change(&change).expect("log");
        assert!(third > second, "{third} after {second}");
        let after = store.index_changes_after(second, 10).expect("read");
        assert_eq!(after, vec![(third, change)]);
    }
}
