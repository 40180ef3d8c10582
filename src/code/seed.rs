//! A session's repository as one plain tar on the host, before it goes
//! into the sandbox (`computer.md` §6 rule 1). A git repository is
//! fetched by the one git fetcher (`crate::outbound::git`: environment
//! cleared, no hooks or submodules, fsck, its network only the loopback
//! egress proxy to the repository's host) into a scratch worktree and
//! tarred with its `.git` (which holds no token: it goes as a header in
//! the environment). A kept archive is turned into a plain tar, its
//! unpacked bytes counted again as they are written. The tar is unpacked
//! inside the sandbox, so no link in it can reach the host.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use super::archive::{ArchiveKind, MAX_UNPACKED_BYTES};
use crate::outbound::git::{GitFetcher, GitRequest};

/// The most bytes a repository's fetch brings over
/// (`CONFER_CODE_REPO_MAX_BYTES`'s default).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(600);

/// What a git fetch found.
#[derive(Debug)]
pub struct Fetched {
    pub commit: String,
    pub branch: String,
}

/// The remote's default branch (`ls-remote --symref HEAD`).
async fn default_branch(
    fetcher: &GitFetcher,
    request: &GitRequest<'_>,
    proxy: &crate::outbound::egress::EgressProxy,
    home: &Path,
) -> Result<String, String> {
    let mut command = fetcher.command(proxy, home, request.token);
    command
        .args(["ls-remote", "--symref", "--"])
        .arg(request.url)
        .arg("HEAD");
    let listed = fetcher.run(command, proxy, request).await?;
    String::from_utf8_lossy(&listed)
        .lines()
        .find_map(|line| line.strip_prefix("ref: refs/heads/"))
        .and_then(|rest| rest.split('\t').next())
        .map(str::to_owned)
        .ok_or_else(|| "the repository names no default branch".into())
}

/// Fetches `request` (its ref a branch, else the default one) into a
/// scratch worktree and writes it, `.git` included, as a plain tar at
/// `out`.
pub async fn git_tar(
    fetcher: &GitFetcher,
    request: &GitRequest<'_>,
    depth: Option<u32>,
    out: &Path,
) -> Result<Fetched, String> {
    let proxy = fetcher.proxy_for(request.url, request.max_pack).await?;
    let scratch = fetcher.new_scratch()?;
    let (home, tree) = (scratch.path().join("home"), scratch.path().join("tree"));
    std::fs::create_dir_all(&home).map_err(|e| format!("no home ({})", e.kind()))?;
    let branch = match request.git_ref {
        Some(branch) => branch.to_owned(),
        None => default_branch(fetcher, request, &proxy, &home).await?,
    };
    let mut init = fetcher.command(&proxy, &home, None);
    init.args(["init", "--quiet", "-b", &branch]).arg(&tree);
    fetcher.run(init, &proxy, request).await?;
    let mut fetch = fetcher.command(&proxy, &home, request.token);
    fetch
        .arg("-C")
        .arg(&tree)
        .args(["fetch", "--quiet", "--no-tags", "--no-recurse-submodules"]);
    if let Some(depth) = depth {
        fetch.arg(format!("--depth={depth}"));
    }
    fetch
        .arg("--")
        .arg(request.url)
        .arg(format!("refs/heads/{branch}"));
    fetcher.run(fetch, &proxy, request).await?;
    let mut checkout = fetcher.command(&proxy, &home, None);
    checkout
        .arg("-C")
        .arg(&tree)
        .args(["checkout", "--quiet", "-B", &branch, "FETCH_HEAD"]);
    fetcher.run(checkout, &proxy, request).await?;
    let mut parse = fetcher.command(&proxy, &home, None);
    parse
        .arg("-C")
        .arg(&tree)
        .args(["rev-parse", "--verify", "HEAD"]);
    let commit = String::from_utf8_lossy(&fetcher.run(parse, &proxy, request).await?)
        .trim()
        .to_owned();
    let out = out.to_owned();
    tokio::task::spawn_blocking(move || tar_dir(&tree, &out))
        .await
        .map_err(|e| format!("packing the repository failed ({e})"))??;
    Ok(Fetched { commit, branch })
}

/// Writes `dir`'s tree as a tar at `out`, links kept as links.
fn tar_dir(dir: &Path, out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| format!("packing the repository failed ({})", e.kind());
    let file = std::fs::File::create(out).map_err(io)?;
    let mut builder = tar::Builder::new(std::io::BufWriter::new(file));
    builder.follow_symlinks(false);
    builder.append_dir_all(".", dir).map_err(io)?;
    builder.into_inner().map_err(io)?.flush().map_err(io)
}

/// Writes the kept archive at `path` (of `kind`) as a plain tar at `out`.
pub fn archive_tar(path: &Path, kind: ArchiveKind, out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| format!("unpacking the archive failed ({})", e.kind());
    let file = std::fs::File::open(path).map_err(io)?;
    match kind {
        ArchiveKind::Tar => std::fs::copy(path, out).map(|_| ()).map_err(io),
        ArchiveKind::TarGz => {
            // The tar's headers and padding on top of its files' bytes.
            let cap = MAX_UNPACKED_BYTES + MAX_UNPACKED_BYTES / 8;
            let mut reader =
                flate2::read::GzDecoder::new(std::io::BufReader::new(file)).take(cap + 1);
            let mut writer = std::fs::File::create(out).map_err(io)?;
            let written = std::io::copy(&mut reader, &mut writer).map_err(io)?;
            if written > cap {
                return Err("the archive unpacks to more than 1 GiB".into());
            }
            Ok(())
        }
        ArchiveKind::Zip => zip_to_tar(file, out),
    }
}

/// A zip's entries as a tar: directories, files (their bytes counted
/// against the cap as they are copied) and links.
fn zip_to_tar(file: std::fs::File, out: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| format!("unpacking the archive failed ({})", e.kind());
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| format!("not a readable zip ({e})"))?;
    let writer = std::io::BufWriter::new(std::fs::File::create(out).map_err(io)?);
    let mut builder = tar::Builder::new(writer);
    let mut left = MAX_UNPACKED_BYTES;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|e| format!("an unreadable entry ({e})"))?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let mode = entry.unix_mode().unwrap_or(0o644);
        let mut header = tar::Header::new_gnu();
        header.set_mode(mode & 0o7777);
        if mode & 0o170_000 == 0o120_000 {
            let mut target = String::new();
            (&mut entry)
                .take(4096)
                .read_to_string(&mut target)
                .map_err(io)?;
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_size(0);
            builder
                .append_link(&mut header, &name, &target)
                .map_err(io)?;
        } else if entry.is_dir() {
            header.set_entry_type(tar::EntryType::Directory);
            header.set_size(0);
            builder
                .append_data(&mut header, &name, std::io::empty())
                .map_err(io)?;
        } else {
            let size = entry.size();
            if size > left {
                return Err(format!("{name}: the archive unpacks to more than 1 GiB"));
            }
            left -= size;
            header.set_entry_type(tar::EntryType::Regular);
            header.set_size(size);
            // At most the size the entry declared: a lying entry is cut.
            builder
                .append_data(&mut header, &name, (&mut entry).take(size))
                .map_err(io)?;
        }
    }
    builder.into_inner().map_err(io)?.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zip_becomes_a_tar_with_its_files_dirs_and_links() {
        let mut zipped = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        zipped.add_directory("src/", options).unwrap();
        zipped.start_file("src/a.txt", options).unwrap();
        zipped.write_all(b"abc").unwrap();
        zipped.add_symlink("link", "src/a.txt", options).unwrap();
        let bytes = zipped.finish().unwrap().into_inner();
        let dir = tempfile::tempdir().unwrap();
        let (zip_path, tar_path) = (dir.path().join("a.zip"), dir.path().join("a.tar"));
        std::fs::write(&zip_path, bytes).unwrap();
        archive_tar(&zip_path, ArchiveKind::Zip, &tar_path).unwrap();
        let mut read = tar::Archive::new(std::fs::File::open(&tar_path).unwrap());
        let mut seen = Vec::new();
        for entry in read.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().display().to_string();
            let mut body = String::new();
            entry.read_to_string(&mut body).unwrap();
            let link = entry.link_name().unwrap().map(|l| l.display().to_string());
            seen.push((path, body, link));
        }
        assert_eq!(
            seen,
            vec![
                ("src/".into(), String::new(), None),
                ("src/a.txt".into(), "abc".into(), None),
                ("link".into(), String::new(), Some("src/a.txt".into())),
            ]
        );
    }
}
