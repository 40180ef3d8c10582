//! What auto-collect decides without a store or a model
//! (`knowledge.md` §5): whether a turn is collected, the turn as the call
//! reads it, and the memories its answer holds.

use serde::Deserialize;

use crate::knowledge::memory::{MemoryConfig, MemoryScope};

/// Memories one collection keeps at most.
const MAX_COLLECTED: usize = 5;
/// Characters of one collected memory at most.
const MAX_COLLECTED_CHARS: usize = 500;

#[derive(Deserialize)]
struct Collected {
    memories: Vec<String>,
}

/// The turn as the collection reads it: the user's message and the
/// answer, each cut so both fit `budget_tokens` (≈ 4 bytes a token; the
/// message keeps at least half when the answer is long).
pub fn transcript(message: &str, answer: &str, budget_tokens: u32) -> String {
    let budget = budget_tokens as usize * 4;
    let message_part = message
        .len()
        .min(budget.saturating_sub(answer.len()).max(budget / 2));
    let answer_part = answer.len().min(budget - message_part);
    format!(
        "User: {}\n\nAssistant: {}",
        cut(message, message_part),
        cut(answer, answer_part)
    )
}

/// The longest prefix of `text` of at most `bytes`, on a character
/// boundary.
fn cut(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The memories of a collection's answer: its JSON (inside a code fence
/// or not), at most 5, each cut to 500 characters; `None` when it is not
/// the asked shape.
pub fn parse_collected(answer: &str) -> Option<Vec<String>> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    let collected: Collected = serde_json::from_str(answer.get(start..=end)?).ok()?;
    Some(
        collected
            .memories
            .into_iter()
            .map(|m| {
                m.trim()
                    .chars()
                    .take(MAX_COLLECTED_CHARS)
                    .collect::<String>()
            })
            .filter(|m| !m.is_empty())
            .take(MAX_COLLECTED)
            .collect(),
    )
}

/// Whether a turn with `config` is collected at all (`knowledge.md` §5:
/// never a public turn; a multiplayer thread only into the shared set).
pub fn collects(config: &MemoryConfig, public: bool, multiplayer: bool) -> bool {
    config.enabled
        && config.auto_collect
        && !public
        && (!multiplayer || config.tool_scope == MemoryScope::Agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transcript_fits_the_budget_and_keeps_the_message() {
        let short = transcript("I like tea", "Noted.", 200);
        assert_eq!(short, "User: I like tea\n\nAssistant: Noted.");
        let long_answer = "é".repeat(2_000);
        let cut = transcript("I like tea", &long_answer, 200);
        assert!(cut.starts_with("User: I like tea\n\nAssistant: é"));
        assert!(cut.len() <= 800 + 30, "{}", cut.len());
        let long_message = "m".repeat(5_000);
        let both = transcript(&long_message, &long_answer, 200);
        assert!(both.matches('m').count() >= 400);
        assert!(both.contains('é'));
    }

    #[test]
    fn answers_are_read_in_their_asked_shape_and_bounds() {
        assert_eq!(
            parse_collected("```json\n{\"memories\": [\" Likes green tea \", \"\"]}\n```"),
            Some(vec!["Likes green tea".to_owned()])
        );
        let many = serde_json::json!({"memories": vec!["x".repeat(600); 8]}).to_string();
        let parsed = parse_collected(&many).unwrap();
        assert_eq!(parsed.len(), 5);
        assert!(parsed.iter().all(|m| m.chars().count() == 500));
        assert_eq!(parse_collected("nothing to keep"), None);
        assert_eq!(parse_collected("{\"notes\": []}"), None);
    }

    #[test]
    fn public_turns_never_collect_and_shared_threads_only_shared_ones() {
        let on = MemoryConfig {
            enabled: true,
            auto_collect: true,
            ..MemoryConfig::default()
        };
        assert!(collects(&on, false, false));
        assert!(!collects(&on, true, false));
        assert!(!collects(&on, false, true));
        let shared = MemoryConfig {
            tool_scope: MemoryScope::Agent,
            ..on
        };
        assert!(collects(&shared, false, true));
        assert!(!collects(&MemoryConfig::default(), false, false));
    }
}
