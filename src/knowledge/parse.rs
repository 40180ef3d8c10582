//! Turning a file into the Markdown text its chunks are cut from
//! (`knowledge.md` §1). The parsers run in a child process, `confer
//! knowledge-parse`, under a 1 GiB address-space limit and killed after
//! `knowledge_parse_timeout_secs`: no file can hang, crash or exhaust the
//! server. The child writes its answer to a file (a parser printing to
//! standard output cannot corrupt it).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::filetype::FileType;

/// The child's address-space limit.
pub const CHILD_ADDRESS_SPACE: u64 = 1 << 30;

/// A document's text, and where each PDF page starts in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParsedText {
    pub text: String,
    /// Character offsets of each page's start (PDF only).
    pub page_starts: Option<Vec<u64>>,
}

/// Why an attempt did not produce text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFailure {
    /// The file will never parse: the document fails at once. The reason is
    /// one of a fixed set (`encrypted PDF`, `no extractable text`, …).
    Deterministic(String),
    /// Another attempt may work (a timeout, a crash): retried.
    Retryable(String),
}

/// The child's answer, written to its `--out` file.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ChildAnswer {
    Parsed(ParsedText),
    Failed(String),
}

/// Parses `bytes` of type `kind` in this process (the child's work).
pub fn parse(kind: FileType, bytes: &[u8], max_text_bytes: usize) -> Result<ParsedText, String> {
    let parsed = match kind {
        FileType::Markdown | FileType::Text => ParsedText {
            text: String::from_utf8(bytes.to_vec()).map_err(|_| "not UTF-8 text".to_owned())?,
            page_starts: None,
        },
        FileType::Html => html(bytes)?,
        FileType::Pdf => pdf(bytes)?,
        FileType::Docx => docx(bytes)?,
    };
    if parsed.text.len() > max_text_bytes {
        return Err("text over the size limit".into());
    }
    if parsed.text.trim().is_empty() {
        return Err("no extractable text".into());
    }
    Ok(parsed)
}

#[cfg(feature = "parse-html")]
fn html(bytes: &[u8]) -> Result<ParsedText, String> {
    let source = String::from_utf8_lossy(bytes);
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "nav", "noscript", "template", "head", "iframe", "svg",
        ])
        .build();
    let text = converter
        .convert(&source)
        .map_err(|_| "unreadable HTML".to_owned())?;
    Ok(ParsedText {
        text,
        page_starts: None,
    })
}

#[cfg(not(feature = "parse-html"))]
fn html(_: &[u8]) -> Result<ParsedText, String> {
    Err("HTML is not supported by this build".into())
}

#[cfg(feature = "parse-pdf")]
fn pdf(bytes: &[u8]) -> Result<ParsedText, String> {
    if is_encrypted_pdf(bytes) {
        return Err("encrypted PDF".into());
    }
    let pages = pdf_extract::extract_text_from_mem_by_pages(bytes)
        .map_err(|_| "unreadable PDF".to_owned())?;
    let mut text = String::new();
    let mut starts = Vec::with_capacity(pages.len());
    let mut chars = 0u64;
    for page in pages {
        if !text.is_empty() {
            text.push_str("\n\n");
            chars += 2;
        }
        starts.push(chars);
        let page = page.trim_end();
        chars += page.chars().count() as u64;
        text.push_str(page);
    }
    Ok(ParsedText {
        text,
        page_starts: Some(starts),
    })
}

#[cfg(not(feature = "parse-pdf"))]
fn pdf(_: &[u8]) -> Result<ParsedText, String> {
    Err("PDF is not supported by this build".into())
}

/// Whether the PDF's trailer names an encryption dictionary.
#[cfg_attr(not(feature = "parse-pdf"), allow(dead_code))]
fn is_encrypted_pdf(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(4096)..];
    tail.windows(8).any(|w| w == b"/Encrypt")
}

#[cfg(feature = "parse-docx")]
fn docx(bytes: &[u8]) -> Result<ParsedText, String> {
    use docx_rs::{
        DocumentChild, ParagraphChild, RunChild, TableCellContent, TableChild, TableRowChild,
    };

    fn paragraph_text(paragraph: &docx_rs::Paragraph) -> String {
        let mut text = String::new();
        let mut runs: Vec<&docx_rs::Run> = Vec::new();
        for child in &paragraph.children {
            match child {
                ParagraphChild::Run(run) => runs.push(run),
                ParagraphChild::Hyperlink(link) => {
                    for inner in &link.children {
                        if let ParagraphChild::Run(run) = inner {
                            runs.push(run);
                        }
                    }
                }
                _ => {}
            }
        }
        for run in runs {
            for part in &run.children {
                match part {
                    RunChild::Text(t) => text.push_str(&t.text),
                    RunChild::Tab(_) => text.push('\t'),
                    RunChild::Break(_) => text.push('\n'),
                    _ => {}
                }
            }
        }
        text
    }

    /// `#` per level: `Title` 1, `HeadingN` N + 1 (at most 6).
    fn heading_level(style: &str) -> Option<usize> {
        let style = style.to_ascii_lowercase();
        if style == "title" {
            return Some(1);
        }
        let n: usize = style.strip_prefix("heading")?.parse().ok()?;
        (1..=6).contains(&n).then_some((n + 1).min(6))
    }

    let document = docx_rs::read_docx(bytes).map_err(|_| "unreadable DOCX".to_owned())?;
    let mut blocks: Vec<String> = Vec::new();
    for child in &document.document.children {
        match child {
            DocumentChild::Paragraph(paragraph) => {
                let text = paragraph_text(paragraph);
                if text.trim().is_empty() {
                    continue;
                }
                let level = paragraph
                    .property
                    .style
                    .as_ref()
                    .and_then(|s| heading_level(&s.val));
                blocks.push(match level {
                    Some(level) => format!("{} {}", "#".repeat(level), text.trim()),
                    None => text,
                });
            }
            DocumentChild::Table(table) => {
                for row in &table.rows {
                    let TableChild::TableRow(row) = row;
                    let cells: Vec<String> = row
                        .cells
                        .iter()
                        .map(|cell| {
                            let TableRowChild::TableCell(cell) = cell;
                            cell.children
                                .iter()
                                .filter_map(|content| match content {
                                    TableCellContent::Paragraph(p) => Some(paragraph_text(p)),
                                    _ => None,
                                })
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                        .collect();
                    blocks.push(format!("| {} |", cells.join(" | ")));
                }
            }
            _ => {}
        }
    }
    Ok(ParsedText {
        text: blocks.join("\n\n"),
        page_starts: None,
    })
}

#[cfg(not(feature = "parse-docx"))]
fn docx(_: &[u8]) -> Result<ParsedText, String> {
    Err("DOCX is not supported by this build".into())
}

/// `confer knowledge-parse`: limits itself, parses `input`, writes the
/// answer to `out`. A parser's panic is an unreadable file (deterministic);
/// running out of its address space aborts the child (retried, then
/// failed).
pub fn child_main(
    kind: FileType,
    input: &Path,
    out: &Path,
    max_text_bytes: usize,
) -> std::io::Result<()> {
    rlimit::setrlimit(
        rlimit::Resource::AS,
        CHILD_ADDRESS_SPACE,
        CHILD_ADDRESS_SPACE,
    )?;
    let bytes = std::fs::read(input)?;
    let answer = match std::panic::catch_unwind(|| parse(kind, &bytes, max_text_bytes)) {
        Ok(Ok(parsed)) => ChildAnswer::Parsed(parsed),
        Ok(Err(reason)) => ChildAnswer::Failed(reason),
        Err(_) => ChildAnswer::Failed(format!("unreadable {}", kind_name(kind))),
    };
    let encoded = serde_json::to_vec(&answer).map_err(std::io::Error::other)?;
    std::fs::write(out, encoded)
}

fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Markdown => "Markdown",
        FileType::Text => "text",
        FileType::Html => "HTML",
        FileType::Pdf => "PDF",
        FileType::Docx => "DOCX",
    }
}

/// How the parent runs the child.
#[derive(Clone, Debug)]
pub struct ChildParser {
    /// The `confer` binary.
    pub exe: PathBuf,
    /// Where the answer files go (removed after reading).
    pub scratch: PathBuf,
    pub timeout: Duration,
    pub max_text_bytes: usize,
}

impl ChildParser {
    /// The parser of this binary, under `{data_dir}/knowledge/tmp`.
    pub fn from_settings(settings: &crate::settings::Settings) -> std::io::Result<Self> {
        Ok(Self {
            exe: std::env::current_exe()?,
            scratch: settings.data_dir.join("knowledge").join("tmp"),
            timeout: Duration::from_secs(settings.knowledge_parse_timeout_secs),
            max_text_bytes: settings.knowledge_max_text_bytes,
        })
    }

    /// Parses the file at `input` of type `kind` in a child process.
    pub async fn parse(&self, kind: FileType, input: &Path) -> Result<ParsedText, ParseFailure> {
        let out = self
            .scratch
            .join(format!("parse-{}.json", uuid::Uuid::now_v7()));
        let kind_arg = serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut child = tokio::process::Command::new(&self.exe)
            .arg("knowledge-parse")
            .arg("--kind")
            .arg(kind_arg)
            .arg("--max-text-bytes")
            .arg(self.max_text_bytes.to_string())
            .arg("--out")
            .arg(&out)
            .arg(input)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                ParseFailure::Retryable(format!("the parser did not start: {}", e.kind()))
            })?;
        let status = match tokio::time::timeout(self.timeout, child.wait()).await {
            Ok(Ok(status)) => status,
            Ok(Err(e)) => {
                return Err(ParseFailure::Retryable(format!(
                    "the parser was lost: {}",
                    e.kind()
                )));
            }
            Err(_) => {
                let _ = child.kill().await;
                let _ = std::fs::remove_file(&out);
                return Err(ParseFailure::Retryable("parse timeout".into()));
            }
        };
        let answer = std::fs::read(&out);
        let _ = std::fs::remove_file(&out);
        if !status.success() {
            return Err(ParseFailure::Retryable("the parser crashed".into()));
        }
        match answer
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        {
            Some(ChildAnswer::Parsed(parsed)) => Ok(parsed),
            Some(ChildAnswer::Failed(reason)) => Err(ParseFailure::Deterministic(reason)),
            None => Err(ParseFailure::Retryable("the parser gave no answer".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept_and_limits_are_reasons() {
        let parsed = parse(FileType::Markdown, b"# Title\n\nBody", 100).unwrap();
        assert_eq!(parsed.text, "# Title\n\nBody");
        assert_eq!(
            parse(FileType::Text, b"  \n ", 100).unwrap_err(),
            "no extractable text"
        );
        assert_eq!(
            parse(FileType::Text, b"0123456789", 5).unwrap_err(),
            "text over the size limit"
        );
        assert_eq!(
            parse(FileType::Text, b"\xff", 5).unwrap_err(),
            "not UTF-8 text"
        );
    }

    #[cfg(feature = "parse-html")]
    #[test]
    fn html_drops_scripts_styles_and_navigation() {
        let parsed = parse(
            FileType::Html,
            b"<html><head><title>T</title><style>p{}</style></head><body><nav>Menu</nav>\
              <h1>Hello</h1><script>var secretScript = 1;</script><p>World</p></body></html>",
            10_000,
        )
        .unwrap();
        assert!(parsed.text.contains("# Hello"), "{}", parsed.text);
        assert!(parsed.text.contains("World"));
        for gone in ["secretScript", "Menu", "p{}"] {
            assert!(!parsed.text.contains(gone), "{gone}: {}", parsed.text);
        }
    }

    #[cfg(feature = "parse-pdf")]
    #[test]
    fn broken_and_encrypted_pdfs_are_reasons() {
        assert_eq!(
            parse(FileType::Pdf, b"%PDF-1.4 garbage", 1000).unwrap_err(),
            "unreadable PDF"
        );
        assert_eq!(
            parse(
                FileType::Pdf,
                b"%PDF-1.4\ntrailer << /Encrypt 5 0 R >>",
                1000
            )
            .unwrap_err(),
            "encrypted PDF"
        );
    }
}
