//! An upload's type: named by its extension, confirmed by its content
//! (`knowledge.md` §1). Anything else is `file: unsupported type`.

/// The kinds of file Confer parses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    Markdown,
    Text,
    Html,
    Pdf,
    Docx,
}

impl FileType {
    /// The type `name`'s extension claims and `head` (the file's first
    /// bytes, at least 4 KiB when it has them) confirms; `zip_has_document`
    /// says whether a zip holds `word/document.xml`.
    pub fn detect(
        name: &str,
        head: &[u8],
        zip_has_document: impl FnOnce() -> bool,
    ) -> Option<Self> {
        let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
        let claimed = match extension.as_str() {
            "md" | "markdown" => Self::Markdown,
            "txt" => Self::Text,
            "html" | "htm" => Self::Html,
            "pdf" => Self::Pdf,
            "docx" => Self::Docx,
            _ => return None,
        };
        let confirmed = match claimed {
            Self::Pdf => head.starts_with(b"%PDF-"),
            Self::Docx => head.starts_with(b"PK\x03\x04") && zip_has_document(),
            // Text of every kind: UTF-8 without NUL bytes (a cut multi-byte
            // character at the end of `head` is fine).
            Self::Markdown | Self::Text | Self::Html => !head.contains(&0) && utf8_prefix(head),
        };
        confirmed.then_some(claimed)
    }

    /// The `content_type` a document of this type shows.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Markdown => "text/markdown",
            Self::Text => "text/plain",
            Self::Html => "text/html",
            Self::Pdf => "application/pdf",
            Self::Docx => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        }
    }

    /// The type of a stored `content_type`.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        [
            Self::Markdown,
            Self::Text,
            Self::Html,
            Self::Pdf,
            Self::Docx,
        ]
        .into_iter()
        .find(|kind| kind.content_type() == content_type)
    }
}

/// Whether `bytes` is UTF-8 but for a character cut at its end.
fn utf8_prefix(bytes: &[u8]) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none(),
    }
}

/// Whether the zip archive `bytes` lists `word/document.xml` in its central
/// directory (read from the end: the local headers may lie).
pub fn zip_lists_document(bytes: &[u8]) -> bool {
    // The end-of-central-directory record: its signature within the last
    // 64 KiB + 22 bytes.
    let tail_start = bytes.len().saturating_sub(65_557);
    let Some(eocd) = bytes[tail_start..]
        .windows(4)
        .rposition(|w| w == b"PK\x05\x06")
        .map(|i| tail_start + i)
    else {
        return false;
    };
    let field = |at: usize, len: usize| bytes.get(at..at + len);
    let (Some(count), Some(offset)) = (field(eocd + 10, 2), field(eocd + 16, 4)) else {
        return false;
    };
    let count = u16::from_le_bytes([count[0], count[1]]);
    let mut at = u32::from_le_bytes([offset[0], offset[1], offset[2], offset[3]]) as usize;
    for _ in 0..count {
        let Some(header) = field(at, 46) else {
            return false;
        };
        if &header[..4] != b"PK\x01\x02" {
            return false;
        }
        let name_len = u16::from_le_bytes([header[28], header[29]]) as usize;
        let extra_len = u16::from_le_bytes([header[30], header[31]]) as usize;
        let comment_len = u16::from_le_bytes([header[32], header[33]]) as usize;
        if field(at + 46, name_len) == Some(b"word/document.xml".as_slice()) {
            return true;
        }
        at += 46 + name_len + extra_len + comment_len;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_type_and_the_content_confirms_it() {
        let yes = || true;
        assert_eq!(
            FileType::detect("a.md", b"# Hi", yes),
            Some(FileType::Markdown)
        );
        assert_eq!(
            FileType::detect("A.MARKDOWN", b"x", yes),
            Some(FileType::Markdown)
        );
        assert_eq!(
            FileType::detect("a.txt", "é".as_bytes(), yes),
            Some(FileType::Text)
        );
        assert_eq!(FileType::detect("a.htm", b"<p>", yes), Some(FileType::Html));
        assert_eq!(
            FileType::detect("a.pdf", b"%PDF-1.7", yes),
            Some(FileType::Pdf)
        );
        assert_eq!(
            FileType::detect("a.docx", b"PK\x03\x04..", yes),
            Some(FileType::Docx)
        );
        // A cut character at the end of the head is still text.
        assert_eq!(
            FileType::detect("a.txt", &"é".as_bytes()[..1], yes),
            Some(FileType::Text)
        );
        for (name, head) in [
            ("a.exe", b"MZ".as_slice()),
            ("noextension", b"text"),
            ("a.pdf", b"not a pdf"),
            ("a.txt", b"bin\0ary"),
            ("a.txt", b"\xff\xfe bad"),
            ("a.docx", b"%PDF-"),
        ] {
            assert_eq!(FileType::detect(name, head, yes), None, "{name}");
        }
        assert_eq!(FileType::detect("a.docx", b"PK\x03\x04", || false), None);
    }

    #[test]
    fn a_zip_is_a_docx_only_when_its_directory_lists_the_document() {
        assert!(!zip_lists_document(b"PK\x03\x04 not really a zip"));
        assert!(!zip_lists_document(b""));
        let types = [FileType::Markdown, FileType::Pdf, FileType::Docx];
        for kind in types {
            assert_eq!(FileType::from_content_type(kind.content_type()), Some(kind));
        }
    }
}
