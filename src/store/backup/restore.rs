//! Reading a backup: [`verify`] checks every entry against the manifest
//! before [`restore`] writes anything, into an empty directory only.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{
    ARCHIVE_FORMAT, ARCHIVE_VERSION, BackupError, Hashing, MANIFEST, Manifest, TREES, checksum, io,
};
use crate::code::files::CODE_ARCHIVES_DIR;
use crate::knowledge::files::KNOWLEDGE_FILES_DIR;
use crate::secrets::KEY_FILE;
use crate::store::engine;
use crate::store::format::STORE_FORMAT;
use crate::store::traces::TRACES_DIR;
use crate::store::values::VALUES_DIR;

/// Largest chunk of records a restore reads into memory: a chunk is
/// written at [`super::CHUNK_BYTES`] plus its last record, and large
/// values live in files of their own, so anything past this is not an
/// archive this module wrote.
pub const MAX_CHUNK_READ: u64 = 64 << 20;

/// The archive in a backup file.
type ArchiveReader = tar::Archive<zstd::Decoder<'static, std::io::BufReader<std::fs::File>>>;

fn open_archive(path: &Path) -> Result<ArchiveReader, BackupError> {
    let file = std::fs::File::open(path).map_err(io(format!("opening {}", path.display())))?;
    let decoder =
        zstd::Decoder::new(file).map_err(|e| BackupError::Corrupt(format!("not zstd: {e}")))?;
    Ok(tar::Archive::new(decoder))
}

/// Reads the archive at `path` whole and checks every entry against its
/// manifest; nothing is written.
pub fn verify(path: &Path) -> Result<Manifest, BackupError> {
    let corrupt = |what: String| BackupError::Corrupt(what);
    let mut archive = open_archive(path)?;
    let mut seen = BTreeMap::new();
    let mut manifest: Option<Manifest> = None;
    for entry in archive
        .entries()
        .map_err(|e| corrupt(format!("not a tar: {e}")))?
    {
        let mut entry = entry.map_err(|e| corrupt(format!("a damaged entry: {e}")))?;
        let name = entry
            .path()
            .map_err(|e| corrupt(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        if manifest.is_some() {
            return Err(corrupt(format!("{name} follows the manifest")));
        }
        if name == MANIFEST {
            let mut text = Vec::new();
            entry
                .read_to_end(&mut text)
                .map_err(|e| corrupt(format!("the manifest: {e}")))?;
            manifest = Some(
                serde_json::from_slice(&text).map_err(|e| corrupt(format!("the manifest: {e}")))?,
            );
            continue;
        }
        if name.starts_with(&format!("{TREES}/")) && entry.size() > MAX_CHUNK_READ {
            return Err(corrupt(format!(
                "{name}: a chunk of {} bytes (at most {MAX_CHUNK_READ})",
                entry.size()
            )));
        }
        let mut hashing = Hashing {
            inner: &mut entry,
            hasher: Sha256::new(),
        };
        std::io::copy(&mut hashing, &mut std::io::sink())
            .map_err(|e| corrupt(format!("{name}: {e}")))?;
        let hash = hex::encode(hashing.hasher.finalize());
        if seen.insert(name.clone(), hash).is_some() {
            return Err(corrupt(format!("{name} appears twice")));
        }
    }
    let manifest =
        manifest.ok_or_else(|| corrupt("no manifest (the file is cut short?)".into()))?;
    if manifest.format != ARCHIVE_FORMAT || manifest.version > ARCHIVE_VERSION {
        return Err(corrupt(format!(
            "a {} version {} archive; this binary reads {ARCHIVE_FORMAT} up to {ARCHIVE_VERSION}",
            manifest.format, manifest.version
        )));
    }
    if manifest.store_format > STORE_FORMAT {
        return Err(corrupt(format!(
            "made by a newer Confer (store format {}; this binary reads up to {STORE_FORMAT})",
            manifest.store_format
        )));
    }
    if checksum(&manifest.entries) != manifest.checksum {
        return Err(corrupt("the manifest's checksum does not match it".into()));
    }
    if seen != manifest.entries {
        let differs = seen
            .iter()
            .find(|(path, hash)| manifest.entries.get(*path) != Some(hash))
            .map(|(path, _)| path.clone())
            .or_else(|| {
                manifest
                    .entries
                    .keys()
                    .find(|p| !seen.contains_key(*p))
                    .cloned()
            })
            .unwrap_or_default();
        return Err(corrupt(format!("{differs} does not match the manifest")));
    }
    Ok(manifest)
}

/// Whether `dir` is absent or an empty directory.
pub(super) fn is_empty_dir(dir: &Path) -> Result<bool, BackupError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(io(format!("reading {}", dir.display()))(e)),
    }
}

/// Verifies the archive at `path`, then writes its store into `dir`, which
/// must be absent or empty. On any failure after writing began, `dir` is
/// emptied again. The caller opens the result to check its secrets.
pub fn restore(path: &Path, dir: &Path) -> Result<Manifest, BackupError> {
    if !is_empty_dir(dir)? {
        return Err(BackupError::NotEmpty(dir.display().to_string()));
    }
    let manifest = verify(path)?;
    std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    let written = write_restored(path, dir);
    if let Err(error) = written {
        empty_dir(dir);
        return Err(error);
    }
    Ok(manifest)
}

/// Removes what a failed restore wrote into `dir` (the directory stays).
pub fn empty_dir(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

fn write_restored(path: &Path, dir: &Path) -> Result<(), BackupError> {
    let db = sled::Config::new()
        .path(dir)
        .cache_capacity(crate::store::STORE_CACHE_BYTES)
        .open()
        .map_err(engine)?;
    let mut archive = open_archive(path)?;
    for entry in archive
        .entries()
        .map_err(|e| BackupError::Corrupt(e.to_string()))?
    {
        let mut entry = entry.map_err(|e| BackupError::Corrupt(e.to_string()))?;
        let name: PathBuf = entry
            .path()
            .map_err(|e| BackupError::Corrupt(e.to_string()))?
            .into_owned();
        let text = name.to_string_lossy().into_owned();
        if let Some(rest) = text.strip_prefix(&format!("{TREES}/")) {
            let tree_name = rest.rsplit_once('/').map_or(rest, |(tree, _)| tree);
            let tree = db.open_tree(tree_name).map_err(engine)?;
            let mut chunk = Vec::new();
            // Bounded again here: the archive may have changed since it
            // was verified.
            (&mut entry)
                .take(MAX_CHUNK_READ + 1)
                .read_to_end(&mut chunk)
                .map_err(io(format!("reading {text}")))?;
            if chunk.len() as u64 > MAX_CHUNK_READ {
                return Err(BackupError::Corrupt(format!(
                    "{text}: a chunk over the bound"
                )));
            }
            tree.apply_batch(records(&chunk, &text)?).map_err(engine)?;
        } else if text.starts_with(&format!("{VALUES_DIR}/"))
            || text.starts_with(&format!("{TRACES_DIR}/"))
            || text.starts_with(&format!("{KNOWLEDGE_FILES_DIR}/"))
            || text.starts_with(&format!("{CODE_ARCHIVES_DIR}/"))
            || text == KEY_FILE
        {
            // Only the names this module writes: no `..`, no absolute path.
            if name
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                return Err(BackupError::Corrupt(format!("{text}: not a plain path")));
            }
            let target = dir.join(&name);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(format!("creating {text}")))?;
            }
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options
                .open(&target)
                .map_err(io(format!("writing {text}")))?;
            std::io::copy(&mut entry, &mut file).map_err(io(format!("writing {text}")))?;
            file.sync_all().map_err(io(format!("syncing {text}")))?;
        }
    }
    db.flush().map_err(engine)?;
    Ok(())
}

/// The records of one chunk, as a sled batch.
fn records(chunk: &[u8], name: &str) -> Result<sled::Batch, BackupError> {
    let mut batch = sled::Batch::default();
    let mut rest = chunk;
    let take = |rest: &mut &[u8]| -> Option<Vec<u8>> {
        let len = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let bytes = rest.get(4..4 + len)?.to_vec();
        *rest = &rest[4 + len..];
        Some(bytes)
    };
    while !rest.is_empty() {
        let key = take(&mut rest);
        let value = take(&mut rest);
        match (key, value) {
            (Some(key), Some(value)) => batch.insert(key, value),
            _ => {
                return Err(BackupError::Corrupt(format!(
                    "{name}: a record is cut short"
                )));
            }
        }
    }
    Ok(batch)
}
