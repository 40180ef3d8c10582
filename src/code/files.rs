//! Where code agents' archives are kept (`computer.md` §5):
//! `{data_dir}/code-archives/files/{org}/{code agent}-{sha256}.{ext}`,
//! fsynced (file and directory) before the record names it, and carried
//! by backups. Uploads stream to `code-archives/tmp`, emptied at start.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use confer_actors::{CodeAgentId, OrgId};

use crate::store::durability::{move_into_place, remove_if_present};

/// The kept archives under the data directory (what backups carry).
pub const CODE_ARCHIVES_DIR: &str = "code-archives/files";

/// The archive store.
#[derive(Clone, Debug)]
pub struct CodeArchives {
    root: PathBuf,
}

impl CodeArchives {
    /// The archives under `{data_dir}/code-archives`; the scratch
    /// directory is emptied (what is in it is an upload cut short).
    pub fn open(data_dir: &Path) -> io::Result<Self> {
        let archives = Self {
            root: data_dir.join("code-archives"),
        };
        let tmp = archives.scratch();
        if tmp.exists() {
            fs::remove_dir_all(&tmp)?;
        }
        fs::create_dir_all(&tmp)?;
        fs::create_dir_all(archives.root.join("files"))?;
        Ok(archives)
    }

    /// Where uploads stream.
    pub fn scratch(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// The kept file of `name` in `org`.
    pub fn path(&self, org: OrgId, name: &str) -> PathBuf {
        self.root.join("files").join(org.to_string()).join(name)
    }

    /// The name a code agent's archive is kept under.
    pub fn name(agent: CodeAgentId, sha256: &str, extension: &str) -> String {
        format!("{agent}-{sha256}.{extension}")
    }

    /// Moves the finished upload `tmp` into place as `org`'s `name` and
    /// makes it durable.
    pub fn keep(&self, tmp: &Path, org: OrgId, name: &str) -> io::Result<PathBuf> {
        let target = self.path(org, name);
        move_into_place(tmp, &target, &self.root.join("files"))?;
        Ok(target)
    }

    /// Removes `org`'s `name` (no file: nothing to do).
    pub fn remove(&self, org: OrgId, name: &str) -> io::Result<()> {
        remove_if_present(&self.path(org, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_is_kept_under_its_org_and_removed_once() {
        let dir = tempfile::tempdir().unwrap();
        let archives = CodeArchives::open(dir.path()).unwrap();
        let tmp = archives.scratch().join("upload");
        fs::write(&tmp, b"bytes").unwrap();
        let org = OrgId::new();
        let name = CodeArchives::name(CodeAgentId::new(), "ab", "tar");
        let kept = archives.keep(&tmp, org, &name).unwrap();
        assert_eq!(fs::read(&kept).unwrap(), b"bytes");
        assert!(!tmp.exists());
        archives.remove(org, &name).unwrap();
        archives.remove(org, &name).unwrap();
        assert!(!kept.exists());
        // A restart empties the scratch directory.
        fs::write(archives.scratch().join("left"), b"x").unwrap();
        let archives = CodeArchives::open(dir.path()).unwrap();
        assert_eq!(fs::read_dir(archives.scratch()).unwrap().count(), 0);
    }
}
