//! `confer check` over knowledge (`knowledge.md` §7): documents decode and
//! their scope index agrees; a searchable generation holds its
//! `chunk_count` chunks; every chunk belongs to a document or a pending
//! purge; each stored file's reference count is the documents (and
//! pending purges) using it, and the file is on disk; no file on disk is
//! unreferenced.

use std::collections::{BTreeMap, HashSet};

use confer_actors::StoreError;

use super::CheckReport;
use super::helpers::{check_index, count_decoded};
use crate::knowledge::Document;
use crate::knowledge::files::KNOWLEDGE_FILES_DIR;
use crate::store::codec::decode;
use crate::store::knowledge::{WHOLE_DOCUMENT, chunk_prefix, count, file_key};
use crate::store::{SledStore, engine};

/// The purge marker's record as the check reads it.
#[derive(serde::Deserialize)]
struct Marker {
    org_id: confer_actors::OrgId,
    sha256: Option<String>,
}

impl SledStore {
    pub(super) fn check_knowledge(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let k = &self.knowledge;
        let documents = count_decoded::<Document>(&k.documents, "document", report)?;
        report.counts.insert("documents", documents);
        // org ++ scope (17 B) ++ doc → the document's key, org ++ doc.
        let doc_of = |key: &[u8], _: &[u8]| {
            let doc = key.get(key.len().saturating_sub(16)..).unwrap_or_default();
            [key.get(..16).unwrap_or_default(), doc].concat()
        };
        check_index(
            &k.by_scope,
            &k.documents,
            documents,
            doc_of,
            "document scope entry",
            report,
        )?;

        let mut expected_refs: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        let mut alive: HashSet<[u8; 16]> = HashSet::new();
        let mut chunks = 0u64;
        for value in k.documents.iter().values() {
            let Ok(document) = decode::<Document>(&value.map_err(engine)?) else {
                continue;
            };
            alive.insert(*document.id.as_bytes());
            *expected_refs
                .entry(file_key(document.org_id, &document.sha256)?)
                .or_default() += 1;
            let file = self
                .db_dir
                .join(KNOWLEDGE_FILES_DIR)
                .join(document.org_id.to_string())
                .join(&document.sha256);
            if !file.exists() {
                report.problem(format!("document {}: its file is missing", document.id));
            }
            if let Some(generation) = document.searchable_generation {
                let held = k
                    .chunks
                    .scan_prefix(chunk_prefix(document.id, generation))
                    .count() as u64;
                chunks += held;
                if held != document.chunk_count {
                    report.problem(format!(
                        "document {}: {held} chunks, {} counted",
                        document.id, document.chunk_count
                    ));
                }
            }
        }
        report.counts.insert("chunks", chunks);
        let mut purging: HashSet<[u8; 16]> = HashSet::new();
        for entry in k.purges.iter() {
            let (key, value) = entry.map_err(engine)?;
            let Some(doc) = key.get(..16).and_then(|d| <[u8; 16]>::try_from(d).ok()) else {
                continue;
            };
            purging.insert(doc);
            let Ok(marker) = decode::<Marker>(&value) else {
                report.problem(format!(
                    "purge marker {}: does not decode",
                    hex::encode(&key)
                ));
                continue;
            };
            if key.ends_with(&WHOLE_DOCUMENT.to_be_bytes())
                && let Some(sha256) = &marker.sha256
            {
                *expected_refs
                    .entry(file_key(marker.org_id, sha256)?)
                    .or_default() += 1;
            }
        }
        // Chunk keys are doc ++ generation ++ n: one look per document.
        let mut last: Option<[u8; 16]> = None;
        for key in k.chunks.iter().keys() {
            let key = key.map_err(engine)?;
            let Some(doc) = key.get(..16).and_then(|d| <[u8; 16]>::try_from(d).ok()) else {
                continue;
            };
            if last == Some(doc) {
                continue;
            }
            last = Some(doc);
            if !alive.contains(&doc) && !purging.contains(&doc) {
                report.problem(format!(
                    "chunks of document {} that no longer exists",
                    hex::encode(doc)
                ));
            }
        }
        for entry in k.file_refs.iter() {
            let (key, value) = entry.map_err(engine)?;
            let held = count(Some(&value));
            let wanted = expected_refs.remove(key.as_ref()).unwrap_or(0);
            if held != wanted {
                report.problem(format!(
                    "knowledge file {}: {held} references, {wanted} users",
                    hex::encode(&key)
                ));
            }
        }
        for key in expected_refs.keys() {
            report.problem(format!(
                "knowledge file {}: used but not counted",
                hex::encode(key)
            ));
        }
        // A vector shares its chunk's key: none may outlive its chunk.
        let mut vectors = 0u64;
        for key in self.vector_tree()?.iter().keys() {
            let key = key.map_err(engine)?;
            vectors += 1;
            if !k.chunks.contains_key(&key).map_err(engine)? {
                report.problem(format!(
                    "a vector of chunk {} that no longer exists",
                    hex::encode(&key)
                ));
            }
        }
        report.counts.insert("vectors", vectors);
        self.check_knowledge_files(report)?;
        report
            .counts
            .insert("memories", self.memory_ids()?.len() as u64);
        Ok(())
    }

    /// Files under `knowledge/files/` without a reference (a crash between
    /// a purge's count and the file's removal leaves one).
    fn check_knowledge_files(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let root = self.db_dir.join(KNOWLEDGE_FILES_DIR);
        let Ok(orgs) = std::fs::read_dir(&root) else {
            return Ok(());
        };
        for org in orgs.flatten() {
            let Ok(org_id) = org.file_name().to_string_lossy().parse() else {
                report.problem(format!("knowledge/files/{:?}: not an org", org.file_name()));
                continue;
            };
            for file in std::fs::read_dir(org.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = file.file_name().to_string_lossy().into_owned();
                let referenced = match file_key(org_id, &name) {
                    Ok(key) => self.knowledge.file_refs.contains_key(key).map_err(engine)?,
                    Err(_) => false,
                };
                if !referenced {
                    report.problem(format!("knowledge file {org_id}/{name}: unreferenced"));
                }
            }
        }
        Ok(())
    }
}
