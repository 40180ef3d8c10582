//! The analysis of indexed and queried text (`knowledge.md` §3): words
//! (tantivy's simple tokenizer, at most 40 bytes), lower case, ASCII
//! folding, the English (Snowball) stemmer. The stemmer is tantivy's own
//! filter's, with its stems memoized per analyzer (under Fx hashing: a
//! lookup must cost well under a stem): stemming was a third of the
//! indexing thread's time, and words repeat.

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

/// Stems memoized at most by one analyzer; the memo starts over past it.
const MAX_STEMS: usize = 50_000;
/// The longest word memoized (longer ones are stemmed each time).
const MEMO_WORD_BYTES: usize = 23;

/// A short word held inline: a memo entry is one piece of memory, so a
/// lookup costs one cache miss, not three (key, stem, table).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Word {
    len: u8,
    bytes: [u8; MEMO_WORD_BYTES],
}

impl Word {
    fn new(text: &str) -> Option<Self> {
        let len = text.len();
        if len > MEMO_WORD_BYTES {
            return None;
        }
        let mut bytes = [0; MEMO_WORD_BYTES];
        bytes[..len].copy_from_slice(text.as_bytes());
        Some(Self {
            len: len as u8,
            bytes,
        })
    }

    fn as_str(&self) -> &str {
        // Made from a `str` cut at its end: always UTF-8.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

/// The analyzer of the index's `text` and `breadcrumb` fields and of
/// queries.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(MemoStemmer)
        .build()
}

/// The English stemmer with a memo of the stems it made.
#[derive(Clone, Copy)]
pub struct MemoStemmer;

impl TokenFilter for MemoStemmer {
    type Tokenizer<T: Tokenizer> = MemoStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> MemoStemmerFilter<T> {
        MemoStemmerFilter {
            inner: tokenizer,
            memo: FxHashMap::default(),
        }
    }
}

/// [`MemoStemmer`] over a tokenizer; each copy keeps its own memo.
#[derive(Clone)]
pub struct MemoStemmerFilter<T> {
    inner: T,
    memo: FxHashMap<Word, Word>,
}

impl<T: Tokenizer> Tokenizer for MemoStemmerFilter<T> {
    type TokenStream<'a> = MemoStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        MemoStemmerStream {
            tail: self.inner.token_stream(text),
            memo: &mut self.memo,
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

pub struct MemoStemmerStream<'a, T> {
    tail: T,
    memo: &'a mut FxHashMap<Word, Word>,
    stemmer: Stemmer,
}

impl<T: TokenStream> TokenStream for MemoStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let word = Word::new(&token.text);
        if let Some(stem) = word.and_then(|word| self.memo.get(&word)) {
            // The token's buffer is reused: no allocation on a hit.
            token.text.clear();
            token.text.push_str(stem.as_str());
            return true;
        }
        let stem = self.stemmer.stem(&token.text).into_owned();
        if let (Some(word), Some(stemmed)) = (word, Word::new(&stem)) {
            if self.memo.len() >= MAX_STEMS {
                self.memo.clear();
            }
            self.memo.insert(word, stemmed);
        }
        token.text = stem;
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut terms = Vec::new();
        while let Some(token) = stream.next() {
            terms.push(token.text.clone());
        }
        terms
    }

    #[test]
    fn memoized_stems_are_tantivys_stems() {
        let mut tantivys = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .filter(tantivy::tokenizer::Stemmer::new(
                tantivy::tokenizer::Language::English,
            ))
            .build();
        let text = "Running runners ran; the Café's naïve résumés were running again. \
                    Generously generalized generations! Internationalizations \
                    internationalizations (longer than a memoized word).";
        let mut ours = analyzer();
        // Twice: the second time from the memo.
        for _ in 0..2 {
            assert_eq!(terms(&mut ours, text), terms(&mut tantivys, text));
        }
    }

    #[test]
    fn the_memo_is_bounded() {
        let mut filter = MemoStemmer.transform(SimpleTokenizer::default());
        let words: String = (0..MAX_STEMS + 10).map(|i| format!("w{i} ")).collect();
        {
            let mut stream = filter.token_stream(&words);
            while stream.advance() {}
        }
        assert!(filter.memo.len() <= MAX_STEMS && !filter.memo.is_empty());
    }
}
