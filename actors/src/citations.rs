//! A turn's knowledge sources and the citations its answer makes of them
//! (`knowledge.md` §4). Sources are numbered from 1 as the turn finds them
//! (a chunk keeps its number; at most [`MAX_SOURCES`]); a marker `[n]` or
//! `[n, m]` in the answer naming one yields, the first time each is cited,
//! a `citation` right after the token that completed the marker. Which
//! words of a source the citation quotes is the source's business
//! ([`Citable`]): this crate knows no index nor stemmer.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

/// The most sources one turn numbers.
pub const MAX_SOURCES: u32 = 100;
/// How far before a `]` its `[` may be (`[100, 99, 98]` fits).
const MARKER_SPAN: usize = 24;

/// A citation of a knowledge source, as streamed (camel case) and stored
/// with the assistant message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    pub n: u32,
    pub doc_id: String,
    pub title: String,
    pub source_ref: String,
    pub page: Option<u32>,
    pub chunk_id: String,
    /// The source's window (≤ 300 characters) that best matches the
    /// sentence citing it.
    pub quote: String,
    /// The quote's character offsets in the document's text.
    pub start: u64,
    pub end: u64,
}

/// A source a turn may cite.
pub trait Citable: Send + Sync {
    /// The citation of this source as number `n` by `sentence` (the
    /// answer's text before the marker, from its sentence's start).
    fn cite(&self, n: u32, sentence: &str) -> Citation;
}

/// A turn's sources and the citations made so far.
#[derive(Default)]
pub struct TurnSources {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// By number - 1: the key (a chunk id) and the source.
    sources: Vec<(String, Arc<dyn Citable>)>,
    cited: Vec<Citation>,
    /// The briefing's parts made for this turn, by kind (each made once).
    briefings: Vec<(&'static str, Option<String>)>,
}

impl std::fmt::Debug for TurnSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("TurnSources")
            .field("sources", &inner.sources.len())
            .field("cited", &inner.cited.len())
            .finish()
    }
}

impl TurnSources {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding it leaves plain lists behind.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The number of the source `key`, numbering it if new; `None` past
    /// [`MAX_SOURCES`].
    pub fn number(&self, key: &str, source: Arc<dyn Citable>) -> Option<u32> {
        let mut inner = self.lock();
        if let Some(at) = inner.sources.iter().position(|(k, _)| k == key) {
            return u32::try_from(at + 1).ok();
        }
        if inner.sources.len() >= MAX_SOURCES as usize {
            return None;
        }
        inner.sources.push((key.to_owned(), source));
        u32::try_from(inner.sources.len()).ok()
    }

    /// Whether any source was numbered.
    pub fn any(&self) -> bool {
        !self.lock().sources.is_empty()
    }

    /// The turn's briefing part of `kind` (`knowledge`, `memories`), if it
    /// was made (each is made once a turn).
    pub fn briefing(&self, kind: &str) -> Option<Option<String>> {
        self.lock()
            .briefings
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, made)| made.clone())
    }

    /// Keeps the turn's briefing part of `kind`.
    pub fn set_briefing(&self, kind: &'static str, made: Option<String>) {
        let mut inner = self.lock();
        inner.briefings.retain(|(k, _)| *k != kind);
        inner.briefings.push((kind, made));
    }

    /// The citations the token just appended to `text` (a step's text so
    /// far) completes: each marker ending in it that names a source not
    /// cited before.
    pub fn citations_completed(&self, text: &str, token_len: usize) -> Vec<Citation> {
        let from = text.len().saturating_sub(token_len);
        let mut made = Vec::new();
        for (at, _) in text.match_indices(']').filter(|(at, _)| *at >= from) {
            let Some((open, numbers)) = marker_before(text, at) else {
                continue;
            };
            let sentence = sentence_before(text, open);
            let mut inner = self.lock();
            for n in numbers {
                if inner.cited.iter().any(|c| c.n == n) {
                    continue;
                }
                let Some((_, source)) = inner.sources.get(n as usize - 1) else {
                    continue;
                };
                let source = Arc::clone(source);
                drop(inner);
                let citation = source.cite(n, sentence);
                inner = self.lock();
                inner.cited.push(citation.clone());
                made.push(citation);
            }
        }
        made
    }

    /// Every citation made, in order (stored with the answer).
    pub fn citations(&self) -> Vec<Citation> {
        self.lock().cited.clone()
    }
}

/// The `[` and the numbers of a marker whose `]` is at `close`: `[n]` or
/// `[n, m, …]`, each from 1.
fn marker_before(text: &str, close: usize) -> Option<(usize, Vec<u32>)> {
    let window_start = close.saturating_sub(MARKER_SPAN);
    let window = text.get(window_start..close)?;
    let open = window_start + window.rfind('[')?;
    let inside = &text[open + 1..close];
    let numbers: Option<Vec<u32>> = inside
        .split(',')
        .map(|part| {
            let part = part.trim();
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse().ok())
                .flatten()
                .filter(|n| *n >= 1)
        })
        .collect();
    Some((open, numbers?))
}

/// The text of the sentence ending at `end`: back to the last `.`, `!`,
/// `?` or line break before it.
fn sentence_before(text: &str, end: usize) -> &str {
    let head = &text[..end];
    let start = head
        .trim_end()
        .trim_end_matches(['.', '!', '?'])
        .rfind(['.', '!', '?', '\n'])
        .map_or(0, |at| at + 1);
    head[start..].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(&'static str);

    impl Citable for Fixed {
        fn cite(&self, n: u32, sentence: &str) -> Citation {
            Citation {
                n,
                doc_id: self.0.into(),
                title: self.0.into(),
                source_ref: self.0.into(),
                page: None,
                chunk_id: self.0.into(),
                quote: sentence.into(),
                start: 0,
                end: 0,
            }
        }
    }

    /// Streams `tokens`, collecting the citations each completes.
    fn stream(sources: &TurnSources, tokens: &[&str]) -> Vec<(usize, u32, String)> {
        let mut text = String::new();
        let mut made = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            text.push_str(token);
            for c in sources.citations_completed(&text, token.len()) {
                made.push((i, c.n, c.quote));
            }
        }
        made
    }

    #[test]
    fn a_marker_cites_each_source_once_after_its_closing_token() {
        let sources = TurnSources::default();
        assert_eq!(sources.number("a", Arc::new(Fixed("a"))), Some(1));
        assert_eq!(sources.number("b", Arc::new(Fixed("b"))), Some(2));
        assert_eq!(sources.number("a", Arc::new(Fixed("a"))), Some(1));
        let made = stream(
            &sources,
            &[
                "Cats sleep. The cat is Marmalade [",
                "1",
                "]. Both [2, 1]",
                " and [7] [x].",
            ],
        );
        assert_eq!(
            made,
            [
                (2, 1, "The cat is Marmalade".to_owned()),
                (2, 2, "Both".to_owned()),
            ]
        );
        assert_eq!(sources.citations().len(), 2);
    }

    #[test]
    fn numbering_stops_at_the_bound() {
        let sources = TurnSources::default();
        for i in 0..MAX_SOURCES {
            assert_eq!(
                sources.number(&i.to_string(), Arc::new(Fixed("s"))),
                Some(i + 1)
            );
        }
        assert_eq!(sources.number("one more", Arc::new(Fixed("s"))), None);
    }
}
