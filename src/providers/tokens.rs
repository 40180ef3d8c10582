//! Token counts for the compaction estimate (`compaction.md` "Other
//! models"): a model routed to OpenAI whose name tiktoken knows is counted
//! with the vendor's own BPE (o200k for GPT-4o, GPT-4.1, GPT-5 and the o
//! series; cl100k for GPT-4 and GPT-3.5); every other model counts
//! characters ÷ 4.
//!
//! The rank tables are ours, not tiktoken-rs's: its text tables would add
//! 5.3 MB to the binary, ours (`assets/tokenizers/`) are 1.3 MB of zstd. A
//! table is unpacked on first use, on the blocking pool, and kept for the
//! life of the process (o200k: 0.1 s and 49 MB resident; cl100k: 0.03 s and
//! 20 MB); a process that never estimates for an OpenAI model never loads
//! one.

use std::sync::{Arc, OnceLock};

use confer_actors::ModelRoute;
use confer_actors::provider::{ApproxTokens, CounterFuture, TokenCounter};
use rustc_hash::FxHashMap;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};
use tiktoken_rs::{CoreBPE, Rank};

use super::OPENAI;

/// cl100k's pre-tokenizing pattern (tiktoken-rs has it inline only).
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

/// A BPE table Confer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    O200k,
    Cl100k,
}

static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();
static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();

impl Table {
    /// The table of an OpenAI model name, if tiktoken maps it to one of ours.
    pub fn for_model(model: &str) -> Option<Self> {
        match get_tokenizer(model)? {
            Tokenizer::O200kBase | Tokenizer::O200kHarmony => Some(Self::O200k),
            Tokenizer::Cl100kBase => Some(Self::Cl100k),
            _ => None,
        }
    }

    fn cell(self) -> &'static OnceLock<Option<CoreBPE>> {
        match self {
            Self::O200k => &O200K,
            Self::Cl100k => &CL100K,
        }
    }

    fn packed(self) -> &'static [u8] {
        match self {
            Self::O200k => include_bytes!("../../assets/tokenizers/o200k_base.zst"),
            Self::Cl100k => include_bytes!("../../assets/tokenizers/cl100k_base.zst"),
        }
    }

    fn specials(self) -> FxHashMap<String, Rank> {
        let specials: &[(&str, Rank)] = match self {
            Self::O200k => &[
                (tiktoken_rs::ENDOFTEXT, 199_999),
                (tiktoken_rs::ENDOFPROMPT, 200_018),
            ],
            Self::Cl100k => &[
                (tiktoken_rs::ENDOFTEXT, 100_257),
                (tiktoken_rs::FIM_PREFIX, 100_258),
                (tiktoken_rs::FIM_MIDDLE, 100_259),
                (tiktoken_rs::FIM_SUFFIX, 100_260),
                (tiktoken_rs::ENDOFPROMPT, 100_276),
            ],
        };
        specials
            .iter()
            .map(|(s, r)| ((*s).to_owned(), *r))
            .collect()
    }

    fn pattern(self) -> &'static str {
        match self {
            Self::O200k => tiktoken_rs::O200K_BASE_PAT_STR,
            Self::Cl100k => CL100K_PATTERN,
        }
    }

    /// Unpacks the table: `len, bytes` per rank from 0, zstd-compressed.
    fn load(self) -> Result<CoreBPE, String> {
        let packed = zstd::decode_all(self.packed()).map_err(|e| e.to_string())?;
        let mut encoder = FxHashMap::default();
        let mut rest = packed.as_slice();
        let mut rank: Rank = 0;
        while let Some((&len, tail)) = rest.split_first() {
            let len = usize::from(len);
            let token = tail.get(..len).ok_or("a token cut short")?;
            encoder.insert(token.to_vec(), rank);
            rest = &tail[len..];
            rank += 1;
        }
        CoreBPE::new(encoder, self.specials(), self.pattern()).map_err(|e| e.to_string())
    }

    /// The loaded table; loads it (CPU work: call off the async threads).
    /// `None` when it did not load, which is logged once.
    pub fn bpe(self) -> Option<&'static CoreBPE> {
        self.cell()
            .get_or_init(|| match self.load() {
                Ok(bpe) => Some(bpe),
                Err(error) => {
                    tracing::error!(%error, table = ?self, "a tokenizer table did not load; counting characters");
                    None
                }
            })
            .as_ref()
    }

    /// The table if it is loaded already.
    fn loaded(self) -> Option<&'static CoreBPE> {
        self.cell().get().and_then(Option::as_ref)
    }
}

/// Counts with a BPE table.
pub struct BpeTokens(&'static CoreBPE);

impl TokenCounter for BpeTokens {
    fn count(&self, text: &str) -> u64 {
        self.0.count_ordinary(text) as u64
    }
}

/// The counter of `route`'s model, its table loaded on the blocking pool
/// the first time.
pub fn counter_for(route: &ModelRoute) -> CounterFuture {
    let table = (route.provider == OPENAI)
        .then(|| Table::for_model(&route.model))
        .flatten();
    Box::pin(async move {
        let approx = || Arc::new(ApproxTokens) as Arc<dyn TokenCounter>;
        let Some(table) = table else {
            return approx();
        };
        let bpe = match table.loaded() {
            Some(bpe) => Some(bpe),
            None => tokio::task::spawn_blocking(move || table.bpe())
                .await
                .ok()
                .flatten(),
        };
        bpe.map_or_else(approx, |bpe| {
            Arc::new(BpeTokens(bpe)) as Arc<dyn TokenCounter>
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text of every kind the pattern splits: prose, code, numbers,
    /// whitespace runs, accents, CJK, emoji.
    fn samples() -> Vec<String> {
        let mut texts = vec![
            "Hello, world! It's 2026; we'll see.".to_owned(),
            "fn main() {\n    println!(\"{}\", 12345678);\n}\n\n\n".to_owned(),
            "Zoë's café — naïve façade, 東京タワー, Привет мир 🙂🚀".to_owned(),
            "   leading and trailing spaces   \t\r\n".to_owned(),
        ];
        texts.push(include_str!("../../docs/api.md").to_owned());
        texts
    }

    #[test]
    fn our_tables_tokenize_exactly_as_tiktoken_does() {
        for (ours, theirs) in [
            (Table::O200k, tiktoken_rs::o200k_base().unwrap()),
            (Table::Cl100k, tiktoken_rs::cl100k_base().unwrap()),
        ] {
            let ours = ours.bpe().expect("the table loads");
            for text in samples() {
                assert_eq!(
                    ours.encode_ordinary(&text),
                    theirs.encode_ordinary(&text),
                    "{text:.40}"
                );
            }
        }
    }

    #[test]
    fn openai_model_names_pick_their_table_and_others_count_characters() {
        assert_eq!(Table::for_model("gpt-4.1"), Some(Table::O200k));
        assert_eq!(Table::for_model("gpt-4o-mini"), Some(Table::O200k));
        assert_eq!(Table::for_model("o3"), Some(Table::O200k));
        assert_eq!(Table::for_model("gpt-4"), Some(Table::Cl100k));
        assert_eq!(Table::for_model("gpt-3.5-turbo"), Some(Table::Cl100k));
        assert_eq!(Table::for_model("llama3"), None);
        let route = |provider: &str, model: &str| ModelRoute {
            provider: provider.into(),
            model: model.into(),
            external: true,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let text = "Hello, world! Hello, world!";
        let counted = |r| runtime.block_on(counter_for(&r)).count(text);
        // o200k: "Hello", ",", " world", "!" twice.
        assert_eq!(counted(route(OPENAI, "gpt-4.1")), 8);
        assert_eq!(counted(route(OPENAI, "llama3")), 7, "characters ÷ 4");
        assert_eq!(counted(route("anthropic", "gpt-4.1")), 7);
    }
}
