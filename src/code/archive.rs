//! A code agent's uploaded archive (`computer.md` §5): tar, tar.gz or
//! zip, told apart by their magic bytes, checked entry by entry from the
//! file it was streamed to (never held in memory) before it is kept.
//! Refused whole, naming the entry: an absolute or `..` path, a hard
//! link, a link whose target is absolute or leaves the tree, a device or
//! FIFO, more than 100,000 entries, more than 1 GiB unpacked. The sizes
//! are the headers' word; the unpacking in a session counts again as it
//! writes.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Component, Path};

/// The most entries an archive may hold.
pub const MAX_ENTRIES: u64 = 100_000;
/// The most bytes an archive may unpack to.
pub const MAX_UNPACKED_BYTES: u64 = 1 << 30;

/// The kinds of archive a code agent accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    Tar,
    TarGz,
    Zip,
}

impl ArchiveKind {
    /// The kind by the first 512 bytes (zip `PK\x03\x04` or an empty
    /// zip's `PK\x05\x06`, gzip `\x1f\x8b`, tar's `ustar` at 257 or, for
    /// a pre-POSIX tar, a first header whose checksum holds).
    pub fn sniff(head: &[u8]) -> Option<Self> {
        if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            Some(Self::Zip)
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Some(Self::TarGz)
        } else if head.get(257..262) == Some(b"ustar") || tar_checksum_holds(head) {
            Some(Self::Tar)
        } else {
            None
        }
    }

    /// The file name extension it is kept under.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Tar => "tar",
            Self::TarGz => "tar.gz",
            Self::Zip => "zip",
        }
    }
}

/// Whether `head` starts with a tar header whose checksum (the octal
/// sum of its bytes, the checksum field read as spaces) is right.
fn tar_checksum_holds(head: &[u8]) -> bool {
    let Some(header) = head.get(..512) else {
        return false;
    };
    let field = String::from_utf8_lossy(&header[148..156]);
    let Ok(stored) = u32::from_str_radix(field.trim_matches([' ', '\0']), 8) else {
        return false;
    };
    let sum: u32 = header
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(*b)
            }
        })
        .sum();
    header[0] != 0 && sum == stored
}

/// What the check counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArchiveSummary {
    pub entries: u64,
    pub unpacked_bytes: u64,
}

/// Why an archive is refused: the detail after `archive: `.
pub type ArchiveFault = String;

fn refused(entry: &str, why: &str) -> ArchiveFault {
    format!("{}: {why}", entry.escape_debug())
}

/// What kind of entry the check sees.
enum Entry<'a> {
    File(u64),
    Directory,
    Link(&'a str),
    HardLink,
    Special,
}

/// Counts entries and bytes against the caps and checks each name.
#[derive(Default)]
struct Tally(ArchiveSummary);

impl Tally {
    fn add(&mut self, name: &str, entry: Entry<'_>) -> Result<(), ArchiveFault> {
        self.0.entries += 1;
        if self.0.entries > MAX_ENTRIES {
            return Err(refused(name, "more than 100000 entries"));
        }
        let depth = checked_depth(name)?;
        match entry {
            Entry::File(size) => {
                self.0.unpacked_bytes = self.0.unpacked_bytes.saturating_add(size);
                if self.0.unpacked_bytes > MAX_UNPACKED_BYTES {
                    return Err(refused(name, "the archive unpacks to more than 1 GiB"));
                }
            }
            Entry::Directory => {}
            Entry::Link(target) => link_stays_inside(name, depth, target)?,
            Entry::HardLink => return Err(refused(name, "a hard link")),
            Entry::Special => return Err(refused(name, "a device or FIFO")),
        }
        Ok(())
    }
}

/// The number of directories above `name`'s entry, or the refusal of an
/// absolute or `..` path (`.` parts are dropped, as tar writes `./x`).
fn checked_depth(name: &str) -> Result<usize, ArchiveFault> {
    if name.contains('\0') {
        return Err(refused(name, "a NUL in the name"));
    }
    let mut parts = 0usize;
    for component in Path::new(name).components() {
        match component {
            Component::Normal(_) => parts += 1,
            Component::CurDir => {}
            Component::ParentDir => return Err(refused(name, "a `..` path")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused(name, "an absolute path"));
            }
        }
    }
    if parts == 0 && !name.trim_matches(['.', '/']).is_empty() {
        return Err(refused(name, "an empty path"));
    }
    Ok(parts.saturating_sub(1))
}

/// Refuses a link whose target is absolute or climbs above the tree from
/// the directory (at `depth`) that holds it.
fn link_stays_inside(name: &str, depth: usize, target: &str) -> Result<(), ArchiveFault> {
    let mut level = depth as i64;
    for component in Path::new(target).components() {
        match component {
            Component::Normal(_) => level += 1,
            Component::CurDir => {}
            Component::ParentDir => level -= 1,
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused(name, "a link to an absolute path"));
            }
        }
        if level < 0 {
            return Err(refused(name, "a link that leaves the tree"));
        }
    }
    Ok(())
}

/// Checks the archive at `path` (of `kind`).
pub fn check(path: &Path, kind: ArchiveKind) -> Result<ArchiveSummary, ArchiveFault> {
    let file = File::open(path).map_err(|e| format!("unreadable ({})", e.kind()))?;
    match kind {
        ArchiveKind::Tar => check_tar(BufReader::new(file)),
        ArchiveKind::TarGz => check_tar(flate2::read::GzDecoder::new(BufReader::new(file))),
        ArchiveKind::Zip => check_zip(file),
    }
}

fn check_tar(reader: impl Read) -> Result<ArchiveSummary, ArchiveFault> {
    let unreadable = |e: std::io::Error| format!("not a readable tar ({e})");
    let mut archive = tar::Archive::new(reader);
    let mut tally = Tally::default();
    for entry in archive.entries().map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let header = entry.header();
        let target = entry
            .link_name_bytes()
            .map(|t| String::from_utf8_lossy(&t).into_owned());
        let kind = header.entry_type();
        let seen = if kind.is_dir() {
            Entry::Directory
        } else if kind.is_symlink() {
            Entry::Link(target.as_deref().unwrap_or_default())
        } else if kind.is_hard_link() {
            Entry::HardLink
        } else if kind.is_file() || kind.is_contiguous() {
            Entry::File(header.size().map_err(unreadable)?)
        } else if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            continue;
        } else {
            Entry::Special
        };
        tally.add(&name, seen)?;
    }
    Ok(tally.0)
}

fn check_zip(file: File) -> Result<ArchiveSummary, ArchiveFault> {
    let unreadable = |e: zip::result::ZipError| format!("not a readable zip ({e})");
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(unreadable)?;
    if archive.len() as u64 > MAX_ENTRIES {
        return Err(format!("more than {MAX_ENTRIES} entries"));
    }
    let mut tally = Tally::default();
    for index in 0..archive.len() {
        let (name, mode, size, is_dir) = {
            let entry = archive.by_index_raw(index).map_err(unreadable)?;
            let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
            (name, entry.unix_mode(), entry.size(), entry.is_dir())
        };
        let file_type = mode.map(|m| m & 0o170_000);
        let seen = match file_type {
            Some(0o120_000) => {
                let target = zip_link_target(&mut archive, index, &name)?;
                tally.add(&name, Entry::Link(&target))?;
                continue;
            }
            Some(0o010_000 | 0o020_000 | 0o060_000 | 0o140_000) => Entry::Special,
            _ if is_dir => Entry::Directory,
            _ => Entry::File(size),
        };
        tally.add(&name, seen)?;
    }
    Ok(tally.0)
}

/// A zip link's target: its content (at most 4 KiB).
fn zip_link_target<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    name: &str,
) -> Result<String, ArchiveFault> {
    let entry = archive
        .by_index(index)
        .map_err(|e| refused(name, &format!("an unreadable link ({e})")))?;
    let mut target = Vec::new();
    entry
        .take(4096)
        .read_to_end(&mut target)
        .map_err(|e| refused(name, &format!("an unreadable link ({})", e.kind())))?;
    Ok(String::from_utf8_lossy(&target).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_with(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> tempfile::NamedTempFile {
        let mut builder = tar::Builder::new(Vec::new());
        build(&mut builder);
        let bytes = builder.into_inner().unwrap();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        file
    }

    fn header(kind: tar::EntryType, size: u64) -> tar::Header {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(0o644);
        header
    }

    fn add(builder: &mut tar::Builder<Vec<u8>>, name: &str, kind: tar::EntryType, body: &[u8]) {
        let mut header = header(kind, body.len() as u64);
        builder.append_data(&mut header, name, body).unwrap();
    }

    fn add_link(builder: &mut tar::Builder<Vec<u8>>, name: &str, kind: tar::EntryType, to: &str) {
        let mut header = header(kind, 0);
        builder.append_link(&mut header, name, to).unwrap();
    }

    fn checked(file: &tempfile::NamedTempFile) -> Result<ArchiveSummary, ArchiveFault> {
        let head = std::fs::read(file.path()).unwrap();
        let kind = ArchiveKind::sniff(&head[..head.len().min(512)]).expect("a known kind");
        check(file.path(), kind)
    }

    #[test]
    fn a_clean_tar_is_counted() {
        let file = tar_with(|b| {
            add(b, "./src/main.rs", tar::EntryType::Regular, b"fn main() {}");
            add(b, "README.md", tar::EntryType::Regular, b"hi\n");
            add_link(b, "src/lib.rs", tar::EntryType::Symlink, "main.rs");
            add_link(b, "docs/up", tar::EntryType::Symlink, "../README.md");
        });
        let summary = checked(&file).unwrap();
        assert_eq!(summary.entries, 4);
        assert_eq!(summary.unpacked_bytes, 15);
    }

    #[test]
    fn every_unsafe_entry_is_refused_by_name() {
        type Build = fn(&mut tar::Builder<Vec<u8>>);
        let cases: [(Build, &str); 5] = [
            (
                |b| add_link(b, "a/escape", tar::EntryType::Symlink, "../../etc"),
                "a/escape: a link that leaves the tree",
            ),
            (
                |b| add_link(b, "abs", tar::EntryType::Symlink, "/etc/passwd"),
                "abs: a link to an absolute path",
            ),
            (
                |b| add_link(b, "hard", tar::EntryType::Link, "README.md"),
                "hard: a hard link",
            ),
            (
                |b| add(b, "pipe", tar::EntryType::Fifo, b""),
                "pipe: a device or FIFO",
            ),
            (
                |b| add(b, "dev", tar::EntryType::Char, b""),
                "dev: a device or FIFO",
            ),
        ];
        for (build, expected) in cases {
            let file = tar_with(build);
            assert_eq!(checked(&file).unwrap_err(), expected);
        }
    }

    #[test]
    fn dot_dot_and_absolute_names_are_refused() {
        // `tar::Builder` refuses to write such names, so they go in raw.
        for (name, why) in [("../x", "a `..` path"), ("/etc/x", "an absolute path")] {
            let mut header = header(tar::EntryType::Regular, 1);
            header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            header.set_cksum();
            let mut bytes = header.as_bytes().to_vec();
            bytes.extend_from_slice(&[b'x'; 512]);
            bytes.extend_from_slice(&[0; 1024]);
            let mut file = tempfile::NamedTempFile::new().unwrap();
            std::io::Write::write_all(&mut file, &bytes).unwrap();
            assert_eq!(
                check(file.path(), ArchiveKind::Tar).unwrap_err(),
                format!("{name}: {why}")
            );
        }
    }

    #[test]
    fn the_unpacked_size_is_capped_by_the_headers() {
        let mut header = header(tar::EntryType::Regular, MAX_UNPACKED_BYTES + 1);
        header.set_path("big").unwrap();
        header.set_cksum();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, header.as_bytes()).unwrap();
        let fault = check(file.path(), ArchiveKind::Tar).unwrap_err();
        assert_eq!(fault, "big: the archive unpacks to more than 1 GiB");
    }

    #[test]
    fn a_zip_and_a_tar_gz_are_read_and_checked() {
        let mut zipped = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        zipped.start_file("src/a.txt", options).unwrap();
        std::io::Write::write_all(&mut zipped, b"abc").unwrap();
        zipped.add_symlink("src/out", "../../x", options).unwrap();
        let bytes = zipped.finish().unwrap().into_inner();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        assert_eq!(
            checked(&file).unwrap_err(),
            "src/out: a link that leaves the tree"
        );

        let tar = tar_with(|b| add(b, "x.txt", tar::EntryType::Regular, b"12345"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &std::fs::read(tar.path()).unwrap()).unwrap();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, &gz.finish().unwrap()).unwrap();
        assert_eq!(checked(&file).unwrap().unpacked_bytes, 5);
        assert_eq!(ArchiveKind::sniff(b"plain text"), None);
        // A pre-POSIX header has no magic: its checksum tells it.
        let mut old = tar::Header::new_old();
        old.set_path("x").unwrap();
        old.set_size(0);
        old.set_cksum();
        assert_eq!(ArchiveKind::sniff(old.as_bytes()), Some(ArchiveKind::Tar));
        assert_eq!(ArchiveKind::sniff(&[b'x'; 512]), None);
    }
}
