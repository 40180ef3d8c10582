//! Cutting a document's text into chunks (`knowledge.md` §1): text-splitter's
//! `MarkdownSplitter` by characters (800 to 1,600, 160 overlapping,
//! trimmed), each chunk with its character offsets, its pages (PDF) and the
//! breadcrumb of the headings above it.

use text_splitter::{ChunkConfig, MarkdownSplitter};

/// A chunk before it has a document and a generation.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkDraft {
    pub n: u32,
    pub text: String,
    pub breadcrumb: String,
    pub start: u64,
    pub end: u64,
    pub page: Option<u32>,
    pub page_end: Option<u32>,
    /// Document offsets inside the chunk where a page begins (PDF only).
    pub page_breaks: Vec<u64>,
}

impl ChunkDraft {
    /// The stored chunk of this draft in `generation` of document `doc`.
    pub fn chunk_of(&self, doc: confer_actors::DocumentId, generation: u64) -> super::Chunk {
        super::Chunk {
            id: format!("{doc}:{generation}:{}", self.n),
            doc_id: doc.to_string(),
            n: self.n,
            text: self.text.clone(),
            breadcrumb: self.breadcrumb.clone(),
            start: self.start,
            end: self.end,
            page: self.page,
            page_end: self.page_end,
            page_breaks: self.page_breaks.clone(),
        }
    }
}

/// What separates the breadcrumb's headings.
pub const BREADCRUMB_SEPARATOR: &str = " › ";

/// The ATX headings of `text` outside code fences: (character offset of
/// the line, level, title).
fn headings(text: &str) -> Vec<(u64, usize, String)> {
    let mut found = Vec::new();
    let mut chars = 0u64;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed.trim_start().starts_with("```") || trimmed.trim_start().starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced {
            let level = trimmed.bytes().take_while(|b| *b == b'#').count();
            let rest = &trimmed[level..];
            if (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' ')) {
                let title = rest.trim().trim_end_matches('#').trim();
                if !title.is_empty() {
                    found.push((chars, level, title.to_owned()));
                }
            }
        }
        chars += line.chars().count() as u64;
    }
    found
}

/// The breadcrumb at `offset`: the last heading of each level at or before
/// it, outermost first.
fn breadcrumb(headings: &[(u64, usize, String)], offset: u64) -> String {
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for (at, level, title) in headings {
        if *at > offset {
            break;
        }
        while stack.last().is_some_and(|(l, _)| *l >= *level) {
            stack.pop();
        }
        stack.push((*level, title));
    }
    stack
        .iter()
        .map(|(_, title)| *title)
        .collect::<Vec<_>>()
        .join(BREADCRUMB_SEPARATOR)
}

/// The 1-based page holding character `offset`.
fn page_of(page_starts: &[u64], offset: u64) -> u32 {
    let index = page_starts.partition_point(|start| *start <= offset);
    u32::try_from(index.max(1)).unwrap_or(u32::MAX)
}

/// The size past which a document is cut into sections before splitting.
const SECTION_BYTES: usize = 64 * 1024;

/// `text` cut into sections of about [`SECTION_BYTES`] at a heading (else a
/// paragraph break): text-splitter's time grows faster than the length of
/// what it splits (4 MB took 5 s, 1 MB 0.5 s), so a large document is
/// split section by section. Returns (byte offset, section).
fn sections(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    while text.len() - start > SECTION_BYTES {
        let from = start + SECTION_BYTES;
        let window = |pattern: &str, span: usize| {
            let end = (from + span).min(text.len());
            text.get(from..end)
                .and_then(|w| w.find(pattern))
                .map(|i| from + i + 2)
        };
        let cut = window("\n\n#", SECTION_BYTES / 4)
            .or_else(|| window("\n\n", SECTION_BYTES))
            .filter(|cut| text.is_char_boundary(*cut));
        let Some(cut) = cut else { break };
        out.push((start, &text[start..cut]));
        start = cut;
    }
    out.push((start, &text[start..]));
    out
}

/// Cuts `text` into chunks.
pub fn chunks(text: &str, page_starts: Option<&[u64]>) -> Vec<ChunkDraft> {
    // 160 < 800: the configuration is valid, so this never falls back.
    let config = ChunkConfig::new(800..1600)
        .with_overlap(160)
        .unwrap_or_else(|_| ChunkConfig::new(800..1600))
        .with_trim(true);
    let splitter = MarkdownSplitter::new(config);
    let headings = headings(text);
    let mut section_chars = 0u64;
    let mut last_byte = 0;
    sections(text)
        .into_iter()
        .flat_map(|(byte, section)| {
            section_chars += text[last_byte..byte].chars().count() as u64;
            last_byte = byte;
            let base = section_chars;
            splitter
                .chunk_char_indices(section)
                .map(move |piece| (base + piece.char_offset as u64, piece.chunk))
                .collect::<Vec<_>>()
        })
        .enumerate()
        .map(|(n, (start, chunk))| {
            let end = start + chunk.chars().count() as u64;
            let (page, page_end) = match page_starts {
                Some(starts) => (
                    Some(page_of(starts, start)),
                    Some(page_of(starts, end.saturating_sub(1).max(start))),
                ),
                None => (None, None),
            };
            let page_breaks = page_starts
                .map(|starts| {
                    starts
                        .iter()
                        .copied()
                        .filter(|at| *at > start && *at < end)
                        .collect()
                })
                .unwrap_or_default();
            ChunkDraft {
                n: u32::try_from(n).unwrap_or(u32::MAX),
                text: chunk.to_owned(),
                breadcrumb: breadcrumb(&headings, start),
                start,
                end,
                page,
                page_end,
                page_breaks,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_know_their_offsets_and_headings() {
        let mut text = String::from("# Guide\n\nIntro.\n\n## Setup\n\n");
        for i in 0..60 {
            text.push_str(&format!(
                "Setup sentence number {i} explains one more step. "
            ));
        }
        text.push_str("\n\n## Usage\n\n```\n# not a heading\n```\n\n");
        for i in 0..60 {
            text.push_str(&format!("Usage sentence number {i} shows one more call. "));
        }
        let made = chunks(&text, None);
        assert!(made.len() >= 3, "{}", made.len());
        let chars: Vec<char> = text.chars().collect();
        for chunk in &made {
            let slice: String = chars[chunk.start as usize..chunk.end as usize]
                .iter()
                .collect();
            assert_eq!(slice, chunk.text, "offsets point at the chunk");
            assert!(chunk.text.chars().count() <= 1600);
        }
        assert!(
            made.iter().any(|c| c.breadcrumb == "Guide › Setup"),
            "{made:#?}"
        );
        assert!(
            made.iter().any(|c| c.breadcrumb == "Guide › Usage"),
            "{made:#?}"
        );
        assert!(made.iter().all(|c| !c.breadcrumb.contains("not a heading")));
        assert_eq!(
            made.iter().map(|c| c.n).collect::<Vec<_>>(),
            (0..made.len() as u32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_large_document_is_split_by_sections_with_the_same_offsets() {
        let mut text = String::new();
        let mut section = 0;
        while text.len() < 300_000 {
            section += 1;
            text.push_str(&format!("\n\n## Section {section} — é\n\n"));
            for line in 0..40 {
                text.push_str(&format!(
                    "Line {line} of section {section} says something. "
                ));
            }
        }
        assert!(sections(&text).len() >= 4);
        let made = chunks(&text, None);
        let chars: Vec<char> = text.chars().collect();
        for (n, chunk) in made.iter().enumerate() {
            assert_eq!(chunk.n as usize, n);
            let slice: String = chars[chunk.start as usize..chunk.end as usize]
                .iter()
                .collect();
            assert_eq!(slice, chunk.text);
            assert!(
                chunk.breadcrumb.starts_with("Section "),
                "{}",
                chunk.breadcrumb
            );
        }
        assert!(made.windows(2).all(|w| w[0].start < w[1].start));
    }

    #[test]
    fn pages_come_from_the_page_starts() {
        let starts = [0u64, 100, 200];
        assert_eq!(page_of(&starts, 0), 1);
        assert_eq!(page_of(&starts, 99), 1);
        assert_eq!(page_of(&starts, 100), 2);
        assert_eq!(page_of(&starts, 250), 3);
        let text = format!("{}\n\n{}", "a ".repeat(600), "b ".repeat(600));
        let made = chunks(&text, Some(&[0, 1202]));
        assert_eq!(made.first().unwrap().page, Some(1));
        assert_eq!(made.last().unwrap().page_end, Some(2));
    }
}
