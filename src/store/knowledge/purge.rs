//! Deleting documents and purging what they leave (`knowledge.md` §2): the
//! document goes at once in one transaction with a marker; its chunks, then
//! its file (once unreferenced), then the marker go in the background.

use confer_actors::{DocumentId, OrgId, StoreError};
use sled::Transactional;

use super::changes::IndexChange;
use super::{
    KnowledgePurge, WHOLE_DOCUMENT, chunk_prefix, count, doc_key, file_key, hash_key, scope_key,
};
use crate::knowledge::files::KnowledgeFiles;
use crate::knowledge::{Document, Scope};
use crate::store::codec::{decode, encode};
use crate::store::{SledStore, abort, engine, tx_error};

impl SledStore {
    /// Deletes a document at once (404 and no chunk counted from now on)
    /// and queues its purge; false if there was none.
    pub fn delete_document(&self, org: OrgId, id: DocumentId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let key = doc_key(org, id);
        let deleted = (&k.documents, &k.by_scope, &k.hashes, &k.jobs, &k.purges)
            .transaction(|(documents, by_scope, hashes, jobs, purges)| {
                let Some(bytes) = documents.remove(key.as_slice())? else {
                    return Ok(false);
                };
                let document: Document = decode(&bytes).map_err(abort)?;
                by_scope.remove(scope_key(org, &document.scope, id))?;
                let hash = hash_key(org, &document.scope, &document.sha256).map_err(abort)?;
                if hashes.get(&hash)?.as_deref() == Some(id.as_bytes().as_slice()) {
                    hashes.remove(hash)?;
                }
                jobs.remove(id.as_bytes())?;
                let marker = KnowledgePurge {
                    org_id: org,
                    sha256: Some(document.sha256.clone()),
                };
                purges.insert(
                    chunk_prefix(id, WHOLE_DOCUMENT),
                    encode(&marker).map_err(abort)?,
                )?;
                Ok(true)
            })
            .map_err(tx_error)?;
        Ok(deleted)
    }

    /// Deletes every document of `scope` (a deleted thread's or agent's);
    /// returns how many.
    pub fn delete_scope_documents(&self, org: OrgId, scope: Scope) -> Result<usize, StoreError> {
        let prefix = [org.as_bytes().as_slice(), &scope.key(org)].concat();
        let mut ids = Vec::new();
        for key in self.knowledge.by_scope.scan_prefix(&prefix).keys() {
            let key = key.map_err(engine)?;
            let id: [u8; 16] = key[key.len() - 16..]
                .try_into()
                .map_err(|_| StoreError::Codec("document key".into()))?;
            ids.push(DocumentId::from_bytes(id));
        }
        let mut deleted = 0;
        for id in ids {
            if self.delete_document(org, id)? {
                deleted += 1;
            }
        }
        Ok(deleted)
    }

    /// Whether a knowledge purge is pending.
    pub fn knowledge_purges_pending(&self) -> bool {
        !self.knowledge.purges.is_empty()
    }

    /// One step of the knowledge purge: up to `batch` chunks of the first
    /// marker's document (or generation); when none is left, the file (a
    /// whole document's, once no document uses it) and the marker. Returns
    /// how much it did (0: nothing pending).
    pub fn knowledge_purge_step(
        &self,
        files: &KnowledgeFiles,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let Some(entry) = k.purges.iter().next() else {
            return Ok(0);
        };
        let (marker_key, value) = entry.map_err(engine)?;
        let marker: KnowledgePurge = decode(&value)?;
        let whole = marker_key.ends_with(&WHOLE_DOCUMENT.to_be_bytes());
        let prefix = if whole {
            &marker_key[..16]
        } else {
            &marker_key[..]
        };
        let mut doomed = sled::Batch::default();
        let mut removed = 0;
        for key in k.chunks.scan_prefix(prefix).keys().take(batch) {
            doomed.remove(key.map_err(engine)?);
            removed += 1;
        }
        if removed > 0 {
            // The chunks' vectors share their keys: they go first.
            self.vector_tree()?
                .apply_batch(doomed.clone())
                .map_err(engine)?;
            k.chunks.apply_batch(doomed).map_err(engine)?;
            return Ok(removed);
        }
        // The index drops the entries too (hits on them already count for
        // nothing: the store's check); logged again if a crash comes
        // before the marker goes, which is harmless.
        let doc_id = DocumentId::from_bytes(
            marker_key[..16]
                .try_into()
                .map_err(|_| StoreError::Codec("purge marker".into()))?,
        );
        let generation = (!whole)
            .then(|| <[u8; 8]>::try_from(&marker_key[16..24]).ok())
            .flatten()
            .map(u64::from_be_bytes);
        self.log_index_change(&IndexChange::RemoveGeneration { doc_id, generation })?;
        if let Some(sha256) = &marker.sha256 {
            let _files = k
                .file_lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let file = file_key(marker.org_id, sha256)?;
            // The marker goes with the count, so a crash cannot release the
            // file twice; a crash before the file's removal leaves it
            // unreferenced (`confer check` names such files).
            let left = (&k.file_refs, &k.purges)
                .transaction(|(refs, purges)| {
                    let left = count(refs.get(&file)?.as_deref()).saturating_sub(1);
                    if left == 0 {
                        refs.remove(file.as_slice())?;
                    } else {
                        refs.insert(file.as_slice(), &left.to_be_bytes())?;
                    }
                    purges.remove(&marker_key)?;
                    Ok(left)
                })
                .map_err(tx_error)?;
            if left == 0 {
                // The release is durable before the file goes: a crash in
                // between must leave an unreferenced file, never a count
                // naming a file that is gone.
                self.flush_now()?;
                files
                    .remove(marker.org_id, sha256)
                    .map_err(|e| StoreError::Engine(format!("removing a knowledge file: {e}")))?;
            }
            return Ok(1);
        }
        k.purges.remove(&marker_key).map_err(engine)?;
        Ok(1)
    }
}
