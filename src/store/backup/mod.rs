//! Backups (`operations.md`): one tar + zstd file with every tree's records,
//! the large-value files, the secret key only when asked, and last a
//! manifest (versions, counts, each entry's SHA-256 and a checksum over
//! them). A backup reads the trees with the write gate held (see `gate`),
//! so it is the store between two writes, and opens the value files, the
//! uploaded knowledge files and code agents' archives (written once, never
//! changed) and notes the trace logs' lengths (appended to only) under it
//! too; those are copied after the gate is
//! released, so writes wait for the trees alone, not for the bulk of the
//! bytes. Memory stays bounded because records go out in chunks of at
//! most [`CHUNK_BYTES`]. [`verify`] checks an archive
//! whole before [`restore`] writes a byte, and a restore writes only into
//! an empty directory.
//!
//! A chunk `trees/{tree}/{n}` is a run of records, each
//! `[key length u32 BE][key][value length u32 BE][value]`. Writing is here,
//! reading (`verify`, `restore`) in `restore`.

mod restore;

pub use self::restore::{empty_dir, restore, verify};

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

use chrono::{DateTime, Utc};
use confer_actors::StoreError;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::format::STORE_FORMAT;
use super::values::VALUES_DIR;
use super::{SledStore, engine};
use crate::code::files::CODE_ARCHIVES_DIR;
use crate::knowledge::files::KNOWLEDGE_FILES_DIR;
use crate::secrets::KEY_FILE;

/// The manifest's `format`.
pub const ARCHIVE_FORMAT: &str = "confer-backup";
/// The archive layout's version.
pub const ARCHIVE_VERSION: u32 = 1;
/// Largest chunk of records held in memory while writing or restoring.
pub const CHUNK_BYTES: usize = 4 << 20;
const MANIFEST: &str = "manifest.json";
const TREES: &str = "trees";

/// How a running server names the archive it writes before sending it
/// (`GET /api/admin/backup`): `{PARTIAL_PREFIX}{id}{PARTIAL_SUFFIX}`.
pub const PARTIAL_PREFIX: &str = ".backup-";
/// See [`PARTIAL_PREFIX`].
pub const PARTIAL_SUFFIX: &str = ".partial";

/// Removes the archives a server stopped while sending left in `dir`;
/// returns how many.
pub fn remove_partial_archives(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(PARTIAL_PREFIX) && name.ends_with(PARTIAL_SUFFIX)
        })
        .filter(|entry| std::fs::remove_file(entry.path()).is_ok())
        .count()
}

/// What a backup holds, written last in the archive.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub store_format: u64,
    pub confer_version: String,
    pub created_at: DateTime<Utc>,
    /// Records per tree.
    pub counts: BTreeMap<String, u64>,
    /// Files of large values.
    pub value_files: u64,
    /// Trace files (logs and indexes; absent in backups made before they
    /// were files).
    #[serde(default)]
    pub trace_files: u64,
    /// Uploaded knowledge files (`knowledge/files/`; never the search
    /// index, which is rebuilt from the trees).
    #[serde(default)]
    pub knowledge_files: u64,
    /// Code agents' archives (`code-archives/files/`; absent in backups
    /// made before code agents).
    #[serde(default)]
    pub code_archive_files: u64,
    /// Whether the secret key is in the archive.
    pub secret_key: bool,
    /// SHA-256 (hex) of each entry, by path.
    pub entries: BTreeMap<String, String>,
    /// SHA-256 (hex) over the lines `path hash\n` of `entries`, in order.
    pub checksum: String,
}

/// Why a backup or restore failed.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{what}: {error}")]
    Io { what: String, error: std::io::Error },
    /// The archive is not a whole, unchanged Confer backup.
    #[error("the backup does not verify: {0}")]
    Corrupt(String),
    /// The target directory holds something.
    #[error("{0} is not empty: a restore writes only into an empty directory")]
    NotEmpty(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let what = what.into();
    move |error| BackupError::Io { what, error }
}

fn checksum(entries: &BTreeMap<String, String>) -> String {
    let mut hasher = Sha256::new();
    for (path, hash) in entries {
        hasher.update(format!("{path} {hash}\n").as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Writes the archive's entries, noting each one's hash.
struct ArchiveWriter<W: Write> {
    tar: tar::Builder<zstd::Encoder<'static, W>>,
    entries: BTreeMap<String, String>,
}

impl<W: Write> ArchiveWriter<W> {
    fn add(&mut self, path: &str, data: &[u8]) -> Result<(), BackupError> {
        self.add_from(path, data.len() as u64, data)
    }

    fn add_from(&mut self, path: &str, size: u64, data: impl Read) -> Result<(), BackupError> {
        let mut header = tar::Header::new_gnu();
        header.set_size(size);
        header.set_mode(0o600);
        header.set_mtime(0);
        let mut reader = Hashing {
            inner: data,
            hasher: Sha256::new(),
        };
        self.tar
            .append_data(&mut header, path, &mut reader)
            .map_err(io(format!("writing {path}")))?;
        self.entries
            .insert(path.to_owned(), hex::encode(reader.hasher.finalize()));
        Ok(())
    }
}

impl SledStore {
    /// Writes a backup of the whole store to `out` (the secret key too when
    /// `with_key`). Writes wait while the trees are read and the files
    /// opened, not while the files are copied.
    pub fn write_backup<W: Write>(&self, out: W, with_key: bool) -> Result<Manifest, BackupError> {
        let encoder = zstd::Encoder::new(out, 3).map_err(io("starting zstd"))?;
        let mut archive = ArchiveWriter {
            tar: tar::Builder::new(encoder),
            entries: BTreeMap::new(),
        };
        let mut counts = BTreeMap::new();
        let quiet = self.gate.quiesce();
        // The day aggregates of the traces committed so far, which the next
        // flush would merge: the snapshot holds both or neither.
        self.day_merges.drain()?;
        let created_at = Utc::now();
        for name in self.db.tree_names() {
            let name = String::from_utf8(name.to_vec())
                .map_err(|_| BackupError::Corrupt("a tree name is not UTF-8".into()))?;
            let tree = self.db.open_tree(&name).map_err(engine)?;
            let mut chunk = Vec::new();
            let mut part = 0u32;
            let mut count = 0u64;
            for entry in tree.iter() {
                let (key, value) = entry.map_err(engine)?;
                for bytes in [&key[..], &value[..]] {
                    let len = u32::try_from(bytes.len())
                        .map_err(|_| BackupError::Corrupt("a record over 4 GiB".into()))?;
                    chunk.extend_from_slice(&len.to_be_bytes());
                    chunk.extend_from_slice(bytes);
                }
                count += 1;
                if chunk.len() >= CHUNK_BYTES {
                    archive.add(&format!("{TREES}/{name}/{part:06}"), &chunk)?;
                    chunk.clear();
                    part += 1;
                }
            }
            if !chunk.is_empty() {
                archive.add(&format!("{TREES}/{name}/{part:06}"), &chunk)?;
            }
            counts.insert(name, count);
        }
        // Opened now: a file removed later (a purge, the retention) is
        // still read whole through its handle, as the trees saw it.
        let values = self.open_value_files()?;
        let traces = self.open_trace_files()?;
        let knowledge = self.open_org_files(KNOWLEDGE_FILES_DIR)?;
        let code_archives = self.open_org_files(CODE_ARCHIVES_DIR)?;
        drop(quiet);
        let (value_files, trace_files) = (values.len() as u64, traces.len() as u64);
        let knowledge_files = knowledge.len() as u64;
        let code_archive_files = code_archives.len() as u64;
        let files = values.into_iter().chain(traces).chain(knowledge);
        for (name, file, length) in files.chain(code_archives) {
            // At most the length noted under the gate: a trace log may have
            // grown since (its index then names records past the copied
            // end, which the restored store's open drops).
            archive.add_from(&name, length, file.take(length))?;
        }
        if with_key {
            archive.add(KEY_FILE, self.secrets.key_text().expose_secret().as_bytes())?;
        }
        let mut manifest = Manifest {
            format: ARCHIVE_FORMAT.into(),
            version: ARCHIVE_VERSION,
            store_format: STORE_FORMAT,
            confer_version: env!("CARGO_PKG_VERSION").into(),
            created_at,
            counts,
            value_files,
            trace_files,
            knowledge_files,
            code_archive_files,
            secret_key: with_key,
            checksum: checksum(&archive.entries),
            entries: archive.entries.clone(),
        };
        let text = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| BackupError::Corrupt(e.to_string()))?;
        archive.add(MANIFEST, &text)?;
        // The manifest does not list itself.
        manifest.entries.remove(MANIFEST);
        let encoder = archive.tar.into_inner().map_err(io("ending the tar"))?;
        let mut out = encoder.finish().map_err(io("ending zstd"))?;
        out.flush().map_err(io("writing the backup"))?;
        Ok(manifest)
    }

    /// Every file under `traces/`, open, with its length now.
    fn open_trace_files(&self) -> Result<Vec<OpenedFile>, BackupError> {
        let mut files = Vec::new();
        for (name, path) in self.trace_files.archived()? {
            files.push(opened(name, &path, "reading a trace file")?);
        }
        Ok(files)
    }

    /// Every file of the per-org directory `dir` (uploaded knowledge
    /// files, code agents' archives; written once, never changed), open,
    /// with its length.
    fn open_org_files(&self, dir: &str) -> Result<Vec<OpenedFile>, BackupError> {
        let root = self.db_dir.join(dir);
        let Ok(orgs) = std::fs::read_dir(&root) else {
            return Ok(Vec::new());
        };
        let mut files = Vec::new();
        for org in orgs {
            let org = org.map_err(io("listing org files"))?;
            let org_name = org.file_name().to_string_lossy().into_owned();
            for file in std::fs::read_dir(org.path()).map_err(io("listing org files"))? {
                let file = file.map_err(io("listing org files"))?;
                let name = file.file_name().to_string_lossy().into_owned();
                let name = format!("{dir}/{org_name}/{name}");
                files.push(opened(name, &file.path(), "reading an org file")?);
            }
        }
        Ok(files)
    }

    /// Every file under `values/`, open, with its length.
    fn open_value_files(&self) -> Result<Vec<OpenedFile>, BackupError> {
        let root = self.db_dir.join(VALUES_DIR);
        let Ok(threads) = std::fs::read_dir(&root) else {
            return Ok(Vec::new());
        };
        let mut files = Vec::new();
        for thread in threads {
            let thread = thread.map_err(io("listing values"))?;
            let dir_name = thread.file_name().to_string_lossy().into_owned();
            for file in std::fs::read_dir(thread.path()).map_err(io("listing values"))? {
                let file = file.map_err(io("listing values"))?;
                let name = file.file_name().to_string_lossy().into_owned();
                let name = format!("{VALUES_DIR}/{dir_name}/{name}");
                files.push(opened(name, &file.path(), "reading a value")?);
            }
        }
        Ok(files)
    }
}

/// A file to archive: its name in the archive, its handle, the bytes of it
/// to copy.
type OpenedFile = (String, std::fs::File, u64);

fn opened(name: String, path: &Path, what: &str) -> Result<OpenedFile, BackupError> {
    let file = std::fs::File::open(path).map_err(io(what))?;
    let length = file.metadata().map_err(io(what))?.len();
    Ok((name, file, length))
}

#[cfg(test)]
mod tests;
