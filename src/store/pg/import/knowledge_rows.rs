//! The rows of knowledge documents in a sled store: the documents, their
//! chunks by generation, the purge markers, the embedding configurations
//! and vectors, and the files under
//! `knowledge/files/`, copied into `blobs` in parts of at most 1 MiB with
//! their reference counts.

use std::path::PathBuf;

use super::lines::{blob_part_line, blob_ref_line, chunk_vector_line, knowledge_purge_line};
use super::source::{Row, Rows, SledSource, cell, codec, record, tree_rows, uuid_at, with_body};
use crate::knowledge::embedding_config::EmbeddingConfig;
use crate::knowledge::files::KNOWLEDGE_FILES_DIR;
use crate::knowledge::vectors::StoredVector;
use crate::knowledge::{Chunk, Document};
use crate::store::engine;
use crate::store::keys::read_u64;
use crate::store::knowledge::KnowledgePurge;
use crate::store::pg::blobs::{PART_BYTES, knowledge_file};

/// A big-endian number at `at` of a key.
fn number_at<const N: usize>(key: &[u8], at: usize) -> Result<[u8; N], confer_actors::StoreError> {
    key.get(at..at + N)
        .and_then(|b| <[u8; N]>::try_from(b).ok())
        .ok_or_else(|| codec("a key", "too short"))
}

/// A file's org, hex digest, and where sled's store keeps it, from its
/// `knowledge_file_refs` key.
fn file_of(
    data_dir: &std::path::Path,
    key: &[u8],
) -> Result<(uuid::Uuid, String, PathBuf), confer_actors::StoreError> {
    let org = uuid_at(key, 0)?;
    let digest = hex::encode(
        key.get(16..48)
            .ok_or_else(|| codec("a file's key", "too short"))?,
    );
    let path = data_dir
        .join(KNOWLEDGE_FILES_DIR)
        .join(org.to_string())
        .join(&digest);
    Ok((org, digest, path))
}

impl<'a> SledSource<'a> {
    /// The rows of `table` when it is one of these kinds.
    pub(super) fn knowledge_rows(&self, table: &str) -> Option<Rows<'a>> {
        let k = &self.store.knowledge;
        let data_dir = k.data_dir.clone();
        Some(match table {
            "documents" => tree_rows(&k.documents, |_, v| {
                let (document, body) = record::<Document>("a document", v)?;
                let org = document.org_id;
                let cells = vec![
                    cell(org.0),
                    cell(document.id.0),
                    cell(document.scope.key(org).to_vec()),
                    cell(document.sha256),
                ];
                with_body(cells, body)
            }),
            "chunks" => tree_rows(&k.chunks, |key, v| {
                let (_, body) = record::<Chunk>("a chunk", v)?;
                let generation = u64::from_be_bytes(number_at(key, 16)?);
                let n = u32::from_be_bytes(number_at(key, 24)?);
                let cells = vec![
                    cell(uuid_at(key, 0)?),
                    cell(generation as i64),
                    cell(n as i32),
                ];
                with_body(cells, body)
            }),
            "knowledge_purges" => tree_rows(&k.purges, |key, v| {
                let (marker, _) = record::<KnowledgePurge>("a knowledge purge", v)?;
                let doc = uuid_at(key, 0)?;
                let generation = match u64::from_be_bytes(number_at(key, 16)?) {
                    u64::MAX => -1,
                    generation => generation as i64,
                };
                let (org, sha256) = (marker.org_id.0, marker.sha256);
                Ok(Row {
                    line: knowledge_purge_line(doc, generation, org, sha256.as_deref()),
                    cells: vec![cell(doc), cell(generation), cell(org), cell(sha256)],
                })
            }),
            "blob_refs" => tree_rows(&k.file_refs, move |key, v| {
                let (org, digest, path) = file_of(&data_dir, key)?;
                let size = std::fs::metadata(&path)
                    .map_err(|e| {
                        codec(
                            "a knowledge file",
                            format!("{}: {}", path.display(), e.kind()),
                        )
                    })?
                    .len() as i64;
                let (name, refs) = (knowledge_file(&digest), read_u64(v) as i64);
                Ok(Row {
                    line: blob_ref_line(org, &name, size, refs),
                    cells: vec![cell(org), cell(name), cell(size), cell(refs)],
                })
            }),
            "blobs" => Box::new(k.file_refs.iter().flat_map(move |entry| {
                let parts = entry.map_err(engine).and_then(|(key, _)| {
                    let (org, digest, path) = file_of(&data_dir, &key)?;
                    let bytes = std::fs::read(&path).map_err(|e| {
                        codec(
                            "a knowledge file",
                            format!("{}: {}", path.display(), e.kind()),
                        )
                    })?;
                    Ok((org, knowledge_file(&digest), bytes))
                });
                let rows: Vec<Result<Row, _>> = match parts {
                    Err(e) => vec![Err(e)],
                    Ok((org, name, bytes)) => {
                        // An empty file is one empty part, as the store keeps it.
                        let parts: Vec<&[u8]> = match bytes.is_empty() {
                            true => vec![&[]],
                            false => bytes.chunks(PART_BYTES).collect(),
                        };
                        parts
                            .into_iter()
                            .enumerate()
                            .map(|(n, data)| {
                                let n = n as i32;
                                Ok(Row {
                                    line: blob_part_line(org, &name, n, data),
                                    cells: vec![
                                        cell(org),
                                        cell(name.clone()),
                                        cell(n),
                                        cell(data.to_vec()),
                                    ],
                                })
                            })
                            .collect()
                    }
                };
                rows
            })),
            "embedding_configs" => opened_rows(self.store.embedding_config_tree(), |key, v| {
                let (_, body) = record::<EmbeddingConfig>("an embedding configuration", v)?;
                with_body(vec![cell(uuid_at(key, 0)?)], body)
            }),
            "chunk_vectors" => opened_rows(self.store.vector_tree(), |key, v| {
                let vector =
                    StoredVector::decode(v).ok_or_else(|| codec("a vector", "unreadable"))?;
                let (doc, generation) = (uuid_at(key, 0)?, u64::from_be_bytes(number_at(key, 16)?));
                let n = u32::from_be_bytes(number_at(key, 24)?) as i32;
                let components: Vec<u8> = vector.components.iter().map(|c| *c as u8).collect();
                Ok(Row {
                    line: chunk_vector_line(doc, generation as i64, n, &vector.model, &components),
                    cells: vec![
                        cell(doc),
                        cell(generation as i64),
                        cell(n),
                        cell(vector.model),
                        cell(components),
                    ],
                })
            }),
            _ => return None,
        })
    }
}

/// The entries of a tree opened for this copy, as rows.
fn opened_rows<'a>(
    tree: Result<sled::Tree, confer_actors::StoreError>,
    mut row: impl FnMut(&[u8], &[u8]) -> Result<Row, confer_actors::StoreError> + 'a,
) -> Rows<'a> {
    match tree {
        Err(error) => Box::new(std::iter::once(Err(error))),
        Ok(tree) => Box::new(tree.iter().map(move |entry| {
            let (key, value) = entry.map_err(engine)?;
            row(&key, &value)
        })),
    }
}
