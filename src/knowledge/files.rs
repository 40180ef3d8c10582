//! The uploaded files (`knowledge.md` §1): `{data_dir}/knowledge/files/{org}/{sha256}`,
//! one per content per org, written to `knowledge/tmp/` while the upload
//! streams in, then renamed into place and made durable (file and
//! directory fsynced) before the upload is acknowledged.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use confer_actors::OrgId;

use crate::store::durability::{move_into_place, remove_if_present};

/// Where uploaded files live under the data directory (backups carry
/// them; never `knowledge/index/`, a cache).
pub const KNOWLEDGE_FILES_DIR: &str = "knowledge/files";

/// Where knowledge files live.
#[derive(Clone, Debug)]
pub struct KnowledgeFiles {
    root: PathBuf,
}

impl KnowledgeFiles {
    /// The files under `{data_dir}/knowledge`; the scratch directory is
    /// emptied (what is in it is an upload or a parse cut short).
    pub fn open(data_dir: &Path) -> io::Result<Self> {
        let root = data_dir.join("knowledge");
        let files = Self { root };
        let tmp = files.scratch();
        if tmp.exists() {
            fs::remove_dir_all(&tmp)?;
        }
        fs::create_dir_all(&tmp)?;
        fs::create_dir_all(files.root.join("files"))?;
        Ok(files)
    }

    /// Where uploads stream and parsers answer.
    pub fn scratch(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// The stored file of `sha256` in `org`.
    pub fn path(&self, org: OrgId, sha256: &str) -> PathBuf {
        self.root.join("files").join(org.to_string()).join(sha256)
    }

    /// Moves the finished upload `tmp` into place as `org`'s `sha256`
    /// (kept as it is when the org already has it) and makes it durable.
    pub fn keep(&self, tmp: &Path, org: OrgId, sha256: &str) -> io::Result<PathBuf> {
        let target = self.path(org, sha256);
        if target.exists() {
            fs::remove_file(tmp)?;
            return Ok(target);
        }
        move_into_place(tmp, &target, &self.root.join("files"))?;
        Ok(target)
    }

    /// Removes `org`'s file of `sha256` (no file: nothing to do).
    pub fn remove(&self, org: OrgId, sha256: &str) -> io::Result<()> {
        remove_if_present(&self.path(org, sha256))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_upload_is_found_by_its_hash_once() {
        let dir = tempfile::tempdir().unwrap();
        let files = KnowledgeFiles::open(dir.path()).unwrap();
        let org = OrgId::new();
        for round in 0..2 {
            let tmp = files.scratch().join(format!("up-{round}"));
            fs::write(&tmp, b"hello").unwrap();
            let kept = files.keep(&tmp, org, "abc").unwrap();
            assert_eq!(fs::read(&kept).unwrap(), b"hello");
            assert!(!tmp.exists());
        }
        files.remove(org, "abc").unwrap();
        files.remove(org, "abc").unwrap();
        assert!(!files.path(org, "abc").exists());
        // The scratch directory is emptied at the next open.
        fs::write(files.scratch().join("left"), b"x").unwrap();
        let again = KnowledgeFiles::open(dir.path()).unwrap();
        assert_eq!(fs::read_dir(again.scratch()).unwrap().count(), 0);
    }
}
