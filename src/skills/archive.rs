//! Reading a skill archive in memory (`agent-extras.md` §1 "Caps and
//! archives"): zip or `.tar.gz`, told apart by their magic bytes. The
//! archive is refused whole (422 naming the entry) for too many entries
//! (counted before anything is inflated), an unsafe raw name (never
//! rewritten), a link, device or encrypted entry, a compression method
//! other than stored or deflate, or a duplicate path; a file's inflated
//! bytes are read only up to the caps, so a bomb stops at the first byte
//! past one (413 naming it). Skipped entries (`__MACOSX/`, `.DS_Store`,
//! `.git/`) count toward the entries only.

use std::io::Read;

use super::{Caps, SkillError, SkippedPath};

/// The most entries an archive may hold.
pub const MAX_ENTRIES: usize = 2000;
/// The longest raw entry name, in bytes.
const MAX_NAME_BYTES: usize = 255;
/// The deepest an entry may sit (path components).
const MAX_LEVELS: usize = 8;

/// One file read from an archive: its raw path and bytes.
pub type ArchiveFile = (String, Vec<u8>);

/// The kinds of archive a skill comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    Zip,
    TarGz,
}

impl ArchiveKind {
    /// The kind by the first bytes (`PK\x03\x04` or an empty zip's
    /// `PK\x05\x06`; gzip's `\x1f\x8b`).
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(Self::Zip)
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Self::TarGz)
        } else {
            None
        }
    }
}

fn refused(entry: &str, why: &str) -> SkillError {
    SkillError::Invalid(format!("{}: {why}", shown(entry)))
}

/// An entry's name as a detail shows it (NULs and controls escaped).
fn shown(entry: &str) -> String {
    entry.escape_debug().to_string()
}

/// Checks a raw entry name; a directory's ends with `/`.
pub fn check_name(raw: &str) -> Result<(), SkillError> {
    let why = if raw.len() > MAX_NAME_BYTES {
        Some("name longer than 255 bytes")
    } else if raw.contains('\0') {
        Some("name holds NUL")
    } else if raw.contains('\\') {
        Some("name holds `\\`")
    } else if raw.starts_with('/') {
        Some("absolute path")
    } else if raw.len() >= 2 && raw.as_bytes()[1] == b':' && raw.as_bytes()[0].is_ascii_alphabetic()
    {
        Some("drive prefix")
    } else {
        let parts: Vec<&str> = raw.trim_end_matches('/').split('/').collect();
        if parts
            .iter()
            .any(|p| *p == ".." || *p == "." || p.is_empty())
        {
            Some("path holds `..`, `.` or an empty part")
        } else if parts.len() > MAX_LEVELS {
            Some("deeper than 8 levels")
        } else {
            None
        }
    };
    match why {
        Some(why) => Err(refused(raw, why)),
        None => Ok(()),
    }
}

/// Counts one file's bytes against the caps, reading at most one byte
/// past the smaller of what remains.
struct Budget<'a> {
    caps: &'a Caps,
    total: u64,
    files: usize,
}

impl Budget<'_> {
    fn read(&mut self, name: &str, reader: impl Read) -> Result<Vec<u8>, SkillError> {
        self.files += 1;
        if self.files > self.caps.max_files {
            return Err(SkillError::TooLarge(format!(
                "{}: more than {} files",
                shown(name),
                self.caps.max_files
            )));
        }
        let file_cap = self.caps.file_cap(name);
        let left = self.caps.max_total - self.total;
        let mut bytes = Vec::new();
        reader
            .take(file_cap.min(left) + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| refused(name, &format!("unreadable ({})", e.kind())))?;
        let read = bytes.len() as u64;
        if read > file_cap {
            return Err(SkillError::TooLarge(format!(
                "{}: larger than {file_cap} bytes",
                shown(name)
            )));
        }
        if read > left {
            return Err(SkillError::TooLarge(format!(
                "{}: the files pass {} bytes in all",
                shown(name),
                self.caps.max_total
            )));
        }
        self.total += read;
        Ok(bytes)
    }
}

/// Refuses a second entry of the same path.
fn check_unique(
    seen: &mut std::collections::HashSet<String>,
    name: &str,
) -> Result<(), SkillError> {
    if seen.insert(name.trim_end_matches('/').to_owned()) {
        Ok(())
    } else {
        Err(refused(name, "duplicate path"))
    }
}

/// The files of a zip archive, in archive order.
pub fn read_zip(bytes: &[u8], caps: &Caps) -> Result<Vec<ArchiveFile>, SkillError> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| SkillError::Invalid(format!("file: not a readable zip archive ({e})")))?;
    if archive.len() > MAX_ENTRIES {
        return Err(SkillError::Invalid(format!(
            "file: more than {MAX_ENTRIES} entries"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut budget = Budget {
        caps,
        total: 0,
        files: 0,
    };
    let mut files = Vec::new();
    for i in 0..archive.len() {
        // The raw name: `name()` would have rewritten an unsafe one.
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| SkillError::Invalid(format!("file: entry {i} unreadable ({e})")))?;
        let raw = String::from_utf8_lossy(entry.name_raw()).into_owned();
        check_name(&raw)?;
        check_unique(&mut seen, &raw)?;
        if entry.encrypted() {
            return Err(refused(&raw, "encrypted entry"));
        }
        if entry.is_symlink() {
            return Err(refused(&raw, "a link"));
        }
        let method = entry.compression();
        if method != zip::CompressionMethod::Stored && method != zip::CompressionMethod::Deflated {
            return Err(refused(&raw, "compression other than stored or deflate"));
        }
        let directory = entry.is_dir();
        drop(entry);
        if directory || SkippedPath::is_skipped(&raw) {
            continue;
        }
        let entry = archive
            .by_index(i)
            .map_err(|e| refused(&raw, &format!("unreadable ({e})")))?;
        let content = budget.read(&raw, entry)?;
        files.push((raw, content));
    }
    Ok(files)
}

/// The files of a `.tar.gz` archive, in archive order. Entries are
/// counted as they come: a tar has no directory to count first, but no
/// more than [`MAX_ENTRIES`] headers are read.
pub fn read_tar_gz(bytes: &[u8], caps: &Caps) -> Result<Vec<ArchiveFile>, SkillError> {
    let unreadable = |e: std::io::Error| {
        SkillError::Invalid(format!(
            "file: not a readable tar.gz archive ({})",
            e.kind()
        ))
    };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut seen = std::collections::HashSet::new();
    let mut budget = Budget {
        caps,
        total: 0,
        files: 0,
    };
    let mut files = Vec::new();
    for (count, entry) in archive.entries().map_err(unreadable)?.enumerate() {
        if count >= MAX_ENTRIES {
            return Err(SkillError::Invalid(format!(
                "file: more than {MAX_ENTRIES} entries"
            )));
        }
        let entry = entry.map_err(unreadable)?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        check_name(&raw)?;
        let kind = entry.header().entry_type();
        // PAX and GNU long-name headers are read by the tar crate itself
        // and never come out as entries; what remains is one of these.
        if kind.is_dir() {
            check_unique(&mut seen, &raw)?;
            continue;
        }
        if !kind.is_file() {
            let why = if kind.is_symlink() || kind.is_hard_link() {
                "a link"
            } else {
                "not a regular file"
            };
            return Err(refused(&raw, why));
        }
        check_unique(&mut seen, &raw)?;
        if SkippedPath::is_skipped(&raw) {
            continue;
        }
        let content = budget.read(&raw, entry)?;
        files.push((raw, content));
    }
    Ok(files)
}

/// The files of an archive of either kind (`None`: neither kind).
pub fn read(bytes: &[u8], caps: &Caps) -> Option<Result<Vec<ArchiveFile>, SkillError>> {
    Some(match ArchiveKind::sniff(bytes)? {
        ArchiveKind::Zip => read_zip(bytes, caps),
        ArchiveKind::TarGz => read_tar_gz(bytes, caps),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use super::*;

    /// A zip of `(name, bytes)`, deflated.
    pub fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            out.start_file(*name, options).unwrap();
            out.write_all(bytes).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    fn tar_gz_of(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        build(&mut builder);
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }

    fn invalid(result: Result<Vec<ArchiveFile>, SkillError>) -> String {
        match result {
            Err(SkillError::Invalid(d)) => d,
            other => panic!("expected a 422, got {other:?}"),
        }
    }

    #[test]
    fn unsafe_names_are_refused_as_written() {
        for bad in [
            "../evil.md",
            "a/../../evil.md",
            "/etc/passwd",
            "C:/x",
            "a\\b",
            "a/./b",
            "a//b",
            "a/b/c/d/e/f/g/h/i",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name(&"a".repeat(256)).is_err());
        for good in [
            "SKILL.md",
            "skill/",
            "skill/references/api.md",
            "a/b/c/d/e/f/g/h",
        ] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        let zip = zip_of(&[("skill/SKILL.md", b"x"), ("../evil.md", b"x")]);
        assert!(invalid(read_zip(&zip, &Caps::default())).starts_with("../evil.md"));
    }

    #[test]
    fn a_bomb_stops_at_the_cap() {
        let zeros = vec![0u8; 3 * 1024 * 1024];
        let zip = zip_of(&[("s/SKILL.md", b"x"), ("s/zeros.bin", &zeros)]);
        assert!(zip.len() < 64 * 1024, "deflate shrinks zeros");
        match read_zip(&zip, &Caps::default()) {
            Err(SkillError::TooLarge(d)) => assert!(d.starts_with("s/zeros.bin"), "{d}"),
            other => panic!("{other:?}"),
        }
        let caps = Caps {
            max_total: 1024,
            ..Caps::default()
        };
        let zip = zip_of(&[("s/a", &[1u8; 600]), ("s/b", &[1u8; 600])]);
        match read_zip(&zip, &caps) {
            Err(SkillError::TooLarge(d)) => assert!(d.contains("in all"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn duplicates_links_and_entry_counts_are_refused() {
        // The zip writer refuses a duplicate name; tar does not.
        let tar = tar_gz_of(|b| {
            for body in [&b"1"[..], b"2"] {
                let mut header = tar::Header::new_gnu();
                header.set_size(1);
                header.set_cksum();
                b.append_data(&mut header, "s/a", body).unwrap();
            }
        });
        assert!(invalid(read_tar_gz(&tar, &Caps::default())).contains("duplicate"));
        let tar = tar_gz_of(|b| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_size(0);
            b.append_link(&mut header, "s/link", "/etc/passwd").unwrap();
        });
        assert!(invalid(read_tar_gz(&tar, &Caps::default())).contains("link"));
        let names: Vec<String> = (0..2001).map(|i| format!("s/{i}")).collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
        let zip = zip_of(&files);
        assert!(invalid(read_zip(&zip, &Caps::default())).contains("2000 entries"));
    }

    #[test]
    fn tar_gz_files_are_read_and_skipped_paths_left_out() {
        let tar = tar_gz_of(|b| {
            for (name, body) in [
                ("s/SKILL.md", &b"hello"[..]),
                ("s/.DS_Store", b"junk"),
                ("__MACOSX/s/x", b"junk"),
            ] {
                let mut header = tar::Header::new_gnu();
                header.set_size(body.len() as u64);
                header.set_mode(0o644);
                header.set_cksum();
                b.append_data(&mut header, name, body).unwrap();
            }
        });
        let files = read(&tar, &Caps::default()).unwrap().unwrap();
        assert_eq!(files, vec![("s/SKILL.md".to_owned(), b"hello".to_vec())]);
    }
}
