//! Skills from a git repository (`agent-extras.md` §1 "Install"): the one
//! git fetcher (`crate::outbound::git`) brings the ref's commit at depth
//! 1 (pack ≤ 32 MiB, 120 s); its tree is checked as an archive's entries
//! are (names, links, submodules, caps by the sizes git reports, before a
//! byte is read) and only the skill's folder is read.

use std::time::Duration;

use super::archive::{MAX_ENTRIES, check_name};
use super::{ArchiveFile, Caps, SkillContent, SkillError, SkippedPath, build, skill_prefix};
use crate::outbound::git::{GitFetcher, GitRequest};

/// The largest pack a fetch brings over.
pub const MAX_PACK_BYTES: u64 = 32 * 1024 * 1024;
/// A git call's time.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The request for `url` at `git_ref` with `token`.
pub fn request<'a>(
    url: &'a str,
    git_ref: Option<&'a str>,
    token: Option<&'a str>,
) -> GitRequest<'a> {
    GitRequest {
        url,
        git_ref,
        token,
        max_pack: MAX_PACK_BYTES,
        timeout: GIT_TIMEOUT,
    }
}

fn url_fault(reason: String) -> SkillError {
    SkillError::Invalid(format!("url: {reason}"))
}

/// The skill in the folder `path` (or the only one) of the ref's commit,
/// and the commit.
pub async fn content(
    fetcher: &GitFetcher,
    request: &GitRequest<'_>,
    path: Option<&str>,
) -> Result<(SkillContent, String), SkillError> {
    let tree = fetcher.fetch_tree(request).await.map_err(url_fault)?;
    if tree.entries.len() > MAX_ENTRIES {
        return Err(url_fault(format!("more than {MAX_ENTRIES} entries")));
    }
    for entry in &tree.entries {
        check_name(&entry.path)?;
        let refused = match entry.mode.as_str() {
            "120000" => "a link",
            "160000" => "a submodule",
            _ => continue,
        };
        return Err(SkillError::Invalid(format!("{}: {refused}", entry.path)));
    }
    let paths: Vec<&str> = tree
        .entries
        .iter()
        .map(|e| e.path.as_str())
        .filter(|p| !SkippedPath::is_skipped(p))
        .collect();
    let prefix = skill_prefix(&paths, path, "url")?;
    let caps = Caps::default();
    let (mut wanted, mut total) = (Vec::new(), 0u64);
    for entry in &tree.entries {
        let Some(relative) = entry.path.strip_prefix(&prefix) else {
            continue;
        };
        if SkippedPath::is_skipped(relative) {
            continue;
        }
        let cap = caps.file_cap(relative);
        total += entry.size;
        let over = if wanted.len() >= caps.max_files {
            Some(format!("more than {} files", caps.max_files))
        } else if entry.size > cap {
            Some(format!("larger than {cap} bytes"))
        } else if total > caps.max_total {
            Some(format!("the files pass {} bytes in all", caps.max_total))
        } else {
            None
        };
        if let Some(over) = over {
            return Err(SkillError::TooLarge(format!("{}: {over}", entry.path)));
        }
        wanted.push((relative.to_owned(), entry.object.clone()));
    }
    let objects: Vec<String> = wanted.iter().map(|(_, o)| o.clone()).collect();
    let blobs = tree.read(&objects).await.map_err(url_fault)?;
    let files: Vec<ArchiveFile> = wanted
        .into_iter()
        .map(|(path, _)| path)
        .zip(blobs)
        .collect();
    let content = build(files, None, "url")?;
    Ok((content, tree.commit.clone()))
}
