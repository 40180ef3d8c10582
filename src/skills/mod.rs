//! Skills (`agent-extras.md` §1): folders in the Agent Skills form, a
//! `SKILL.md` with front matter and the files beside it, kept in an org's
//! library and attached to agents and runners. This module owns the
//! record, the caps, and how a set of files becomes a skill's content
//! (which folder, what is skipped, the hash); [`front_matter`] reads
//! `SKILL.md`, [`archive`] zip and tar.gz, [`catalog`] the skills built
//! into the binary, [`fetch`] archive URLs, [`git`] repositories, [`install`] the sources and
//! sync. What a turn is offered is `crate::tools::skills`'.

pub mod archive;
pub mod catalog;
pub mod fetch;
pub mod front_matter;
pub mod git;
pub mod install;
mod sync;
pub mod token;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, SkillId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use self::archive::ArchiveFile;
use self::front_matter::FrontMatter;

/// The most skills in an org's library.
pub const MAX_SKILLS_PER_ORG: usize = 200;
/// The most skills attached to one agent or runner.
pub const MAX_ATTACHMENTS: usize = 32;

/// Why a set of files is not a skill.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    /// 422: a rule is broken; the detail names the entry or field.
    #[error("{0}")]
    Invalid(String),
    /// 413: a cap is passed; the detail names it.
    #[error("{0}")]
    TooLarge(String),
}

impl From<SkillError> for crate::error::ApiError {
    fn from(error: SkillError) -> Self {
        match error {
            SkillError::Invalid(detail) => Self::Validation(detail),
            SkillError::TooLarge(detail) => Self::PayloadTooLarge(detail),
        }
    }
}

/// The size caps of a skill's files.
#[derive(Clone, Debug)]
pub struct Caps {
    /// `SKILL.md`.
    pub skill_md: u64,
    /// Any other file.
    pub max_file: u64,
    /// All files together.
    pub max_total: u64,
    pub max_files: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Self {
            skill_md: 128 * 1024,
            max_file: 2 * 1024 * 1024,
            max_total: 8 * 1024 * 1024,
            max_files: 200,
        }
    }
}

impl Caps {
    /// The cap of the file at `path`.
    pub fn file_cap(&self, path: &str) -> u64 {
        if file_name(path) == "SKILL.md" {
            self.skill_md
        } else {
            self.max_file
        }
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Paths left out of every skill: macOS resource forks, Finder's
/// `.DS_Store`, a git directory.
pub struct SkippedPath;

impl SkippedPath {
    /// Whether `path` is left out.
    pub fn is_skipped(path: &str) -> bool {
        path.starts_with("__MACOSX/")
            || file_name(path) == ".DS_Store"
            || path.split('/').any(|part| part == ".git")
    }
}

/// Where a skill came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SkillSource {
    Upload,
    Archive,
    Git,
    Catalog,
}

/// The last sync's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SyncStatus {
    Ok,
    Failed,
}

/// A file of a skill, as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillFileEntry {
    pub path: String,
    pub size: u64,
}

/// A skill of an org's library, as stored (its files' bytes are stored
/// beside it, by path). `token` is sealed and never answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skill {
    pub id: SkillId,
    pub org_id: OrgId,
    pub name: String,
    pub description: String,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub allowed_tools: Option<String>,
    pub source: SkillSource,
    pub source_url: Option<String>,
    pub source_ref: Option<String>,
    pub source_path: Option<String>,
    pub token: Option<String>,
    pub version: u32,
    /// The commit, the archive's ETag (or Last-Modified), the catalogue's
    /// build.
    pub revision: Option<String>,
    /// The archive's ETag and Last-Modified, for the next sync's
    /// `If-None-Match` and `If-Modified-Since`.
    #[serde(default)]
    pub etag: Option<String>,
    #[serde(default)]
    pub last_modified: Option<String>,
    pub content_hash: String,
    pub files: Vec<SkillFileEntry>,
    pub sync_status: Option<SyncStatus>,
    pub last_error: Option<String>,
    pub synced_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Skill {
    /// Takes `content`'s front matter, file list and hash (not its bytes,
    /// which the store keeps beside the record).
    pub fn set_content(&mut self, content: &SkillContent) {
        let front = &content.front;
        self.name = front.name.clone();
        self.description = front.description.clone();
        self.license = front.license.clone();
        self.compatibility = front.compatibility.clone();
        self.metadata = front.metadata.clone();
        self.allowed_tools = front.allowed_tools.clone();
        self.content_hash = content.hash.clone();
        self.files = content
            .files
            .iter()
            .map(|(path, bytes)| SkillFileEntry {
                path: path.clone(),
                size: bytes.len() as u64,
            })
            .collect();
    }
}

/// A skill's content: its front matter, instructions and files (paths
/// relative to the skill's folder, sorted), and their hash.
#[derive(Clone, Debug)]
pub struct SkillContent {
    pub front: FrontMatter,
    pub files: Vec<ArchiveFile>,
    pub hash: String,
}

/// `sha256:` of the sorted (path, bytes) pairs, each framed by its
/// lengths so that no two sets hash alike by moving bytes across a path.
pub fn content_hash(files: &[ArchiveFile]) -> String {
    let mut hasher = Sha256::new();
    for (path, bytes) in files {
        hasher.update((path.len() as u64).to_be_bytes());
        hasher.update(path.as_bytes());
        hasher.update((bytes.len() as u64).to_be_bytes());
        hasher.update(bytes);
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// The folder holding `SKILL.md` of each skill among `paths` (`""`: the
/// root).
fn skill_folders<'a>(paths: &[&'a str]) -> Vec<&'a str> {
    let mut folders: Vec<&str> = paths
        .iter()
        .filter(|path| file_name(path) == "SKILL.md")
        .map(|path| path.rsplit_once('/').map_or("", |(folder, _)| folder))
        .collect();
    folders.sort_unstable();
    folders
}

/// The one top-level folder holding every path, if there is one.
fn top_folder<'a>(paths: &[&'a str]) -> Option<&'a str> {
    let top = |path: &'a str| path.split_once('/').map(|(top, _)| top);
    let first = top(paths.first()?)?;
    paths
        .iter()
        .all(|path| top(path) == Some(first))
        .then_some(first)
}

/// The prefix (`""` or ending in `/`) of the skill's folder among the raw
/// `paths`: one top-level folder holding all is stripped, then the folder
/// of `SKILL.md` is `path`, or the only one. `field` names where the
/// files came from in a "no SKILL.md" detail.
pub fn skill_prefix(paths: &[&str], path: Option<&str>, field: &str) -> Result<String, SkillError> {
    let top = top_folder(paths)
        .map(|top| format!("{top}/"))
        .unwrap_or_default();
    let stripped: Vec<&str> = paths.iter().map(|p| &p[top.len()..]).collect();
    let folders = skill_folders(&stripped);
    let folder = match path.map(|p| p.trim_matches('/')) {
        Some(wanted) if folders.contains(&wanted) => wanted,
        Some(wanted) => {
            return Err(SkillError::Invalid(format!(
                "path: no SKILL.md in `{wanted}`"
            )));
        }
        None => match folders.as_slice() {
            [] => return Err(SkillError::Invalid(format!("{field}: no SKILL.md found"))),
            [one] => one,
            several => {
                let names: Vec<&str> = several
                    .iter()
                    .map(|f| if f.is_empty() { "." } else { f })
                    .collect();
                return Err(SkillError::Invalid(format!(
                    "path: several skills found: {}",
                    names.join(", ")
                )));
            }
        },
    };
    Ok(match folder {
        "" => top,
        folder => format!("{top}{folder}/"),
    })
}

/// Makes a skill of `files` (raw paths, already checked and capped): the
/// files of the folder [`skill_prefix`] picks, less skipped ones, by
/// their path in it, and `SKILL.md` parsed.
pub fn build(
    files: Vec<ArchiveFile>,
    path: Option<&str>,
    field: &str,
) -> Result<SkillContent, SkillError> {
    let prefix = {
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        skill_prefix(&paths, path, field)?
    };
    let mut kept: Vec<ArchiveFile> = files
        .into_iter()
        .filter_map(|(path, bytes)| {
            let relative = path.strip_prefix(&prefix)?;
            (!SkippedPath::is_skipped(relative)).then(|| (relative.to_owned(), bytes))
        })
        .collect();
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    let skill_md = kept
        .iter()
        .find(|(path, _)| path == "SKILL.md")
        .map(|(_, bytes)| bytes)
        .ok_or_else(|| SkillError::Invalid(format!("{field}: no SKILL.md found")))?;
    let text = std::str::from_utf8(skill_md)
        .map_err(|_| SkillError::Invalid("SKILL.md: not UTF-8".into()))?;
    let (front, _) = front_matter::parse(text)?;
    let hash = content_hash(&kept);
    Ok(SkillContent {
        front,
        files: kept,
        hash,
    })
}

/// `SKILL.md` less its front matter.
pub fn instructions(skill_md: &[u8]) -> String {
    let text = String::from_utf8_lossy(skill_md);
    match front_matter::parse(&text) {
        Ok((_, instructions)) => instructions.trim_start_matches('\n').to_owned(),
        Err(_) => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, body: &str) -> ArchiveFile {
        (path.to_owned(), body.as_bytes().to_vec())
    }

    const SKILL: &str = "---\nname: notes\ndescription: Take notes.\n---\nWrite them down.\n";

    #[test]
    fn one_top_folder_is_stripped_and_the_skill_folder_kept() {
        let content = build(
            vec![
                file("repo-main/skills/notes/SKILL.md", SKILL),
                file("repo-main/skills/notes/references/a.md", "a"),
                file("repo-main/README.md", "outside"),
            ],
            None,
            "file",
        )
        .unwrap();
        let paths: Vec<&str> = content.files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "references/a.md"]);
        assert_eq!(content.front.name, "notes");
        assert!(content.hash.starts_with("sha256:"));
        assert_eq!(instructions(SKILL.as_bytes()), "Write them down.\n");
    }

    #[test]
    fn several_skills_need_a_path() {
        let files = vec![file("a/SKILL.md", SKILL), file("b/SKILL.md", SKILL)];
        match build(files.clone(), None, "url") {
            Err(SkillError::Invalid(d)) => assert_eq!(d, "path: several skills found: a, b"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            build(files.clone(), Some("b/"), "url").unwrap().files.len(),
            1
        );
        assert!(build(files, Some("c"), "url").is_err());
        match build(vec![file("x.md", "x")], None, "url") {
            Err(SkillError::Invalid(d)) => assert_eq!(d, "url: no SKILL.md found"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_hash_follows_paths_and_bytes() {
        let a = content_hash(&[file("a", "xy")]);
        assert_eq!(a, content_hash(&[file("a", "xy")]));
        assert_ne!(a, content_hash(&[file("ax", "y")]));
        assert_ne!(a, content_hash(&[file("a", "xz")]));
    }
}
