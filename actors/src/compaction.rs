//! Confer's own compaction, for models that do not compact natively
//! (`compaction.md` "Other models"): the estimate of a request's input
//! tokens, the cut that decides what a summary replaces, and the summary
//! call's prompt. Pure functions; the turn's step that calls the model and
//! stores the summary is `turn::compact_step`.
//!
//! The estimate starts from what the vendor reported for the last call of
//! the thread (its input tokens, kept on the answer's context entry) and adds
//! what the model's [`TokenCounter`] counts for what was added since (the
//! vendor's tokenizer for OpenAI model names, characters ÷ 4 otherwise), so
//! that any error is confined to the blocks since the last call.

use crate::context::{ContextMessage, ContextRole, ContextView, summary_message};
use crate::provider::TokenCounter;

/// What the summary call is told.
pub const SUMMARY_INSTRUCTION: &str = "You are compacting a conversation so that it can go on \
within a limited context. Write a summary of the conversation below for your own later use: \
keep every decision, fact, name, number and open task the conversation still needs, condense \
tool outputs to what mattered, and drop pleasantries. If a previous summary is given, fold it \
in. Answer with the summary only.";

/// The estimated weight of one entry, in tokens.
pub fn entry_tokens(tokens: &dyn TokenCounter, entry: &ContextMessage) -> u64 {
    tokens.count(&entry.content)
        + entry
            .tool_calls
            .iter()
            .map(|call| tokens.count(&call.name) + tokens.count(&call.arguments.to_string()))
            .sum::<u64>()
}

/// The entries' weights, each counted once (a tokenizer's count is not free).
struct Weights<'a> {
    tokens: &'a dyn TokenCounter,
    known: Vec<Option<u64>>,
}

impl<'a> Weights<'a> {
    fn new(tokens: &'a dyn TokenCounter, entries: usize) -> Self {
        Self {
            tokens,
            known: vec![None; entries],
        }
    }

    /// The weight of the `at`th entry sent.
    fn of(&mut self, at: usize, entry: &ContextMessage) -> u64 {
        let tokens = self.tokens;
        *self.known[at].get_or_insert_with(|| entry_tokens(tokens, entry))
    }
}

/// The estimated input tokens of a request with `system` and `view`: the
/// newest vendor-reported figure among the entries sent, plus the entries
/// from that one on; else everything counted.
pub fn estimate(tokens: &dyn TokenCounter, system: &str, view: &ContextView<'_>) -> u64 {
    let entries: Vec<(usize, &ContextMessage)> = view.positioned().collect();
    weigh(
        &mut Weights::new(tokens, entries.len()),
        system,
        view,
        &entries,
    )
}

fn weigh(
    weights: &mut Weights<'_>,
    system: &str,
    view: &ContextView<'_>,
    entries: &[(usize, &ContextMessage)],
) -> u64 {
    let anchor = entries
        .iter()
        .rposition(|(_, entry)| entry.input_tokens.is_some());
    let from = anchor.unwrap_or(0);
    let counted: u64 = entries[from..]
        .iter()
        .enumerate()
        .map(|(n, (_, entry))| weights.of(from + n, entry))
        .sum();
    match anchor {
        Some(at) => u64::from(entries[at].1.input_tokens.unwrap_or(0)) + counted,
        None => {
            let tokens = weights.tokens;
            tokens.count(system)
                + view
                    .summary
                    .map_or(0, |s| tokens.count(&summary_message(s)))
                + counted
        }
    }
}

/// A compaction to make: the summary call's prompt, and where the kept
/// entries start in the context.
#[derive(Debug, PartialEq)]
pub struct CompactionPlan {
    /// The estimate that called for it.
    pub estimated_before: u64,
    /// The position in the context of the first entry kept.
    pub kept_from: u64,
    /// The summary call's user message: the previous summary, then the
    /// conversation up to the cut.
    pub transcript: String,
}

/// The compaction `view` needs at `threshold` tokens, if any: the newest
/// entries worth at most a quarter of the threshold are kept, never a tool
/// result without its call, always the last user message; the rest (and
/// the previous summary) is summarized. `None` below the threshold, or when
/// there is nothing before the kept entries to summarize.
pub fn plan(
    tokens: &dyn TokenCounter,
    system: &str,
    view: &ContextView<'_>,
    threshold: u64,
) -> Option<CompactionPlan> {
    let entries: Vec<(usize, &ContextMessage)> = view.positioned().collect();
    let mut weights = Weights::new(tokens, entries.len());
    let estimated_before = weigh(&mut weights, system, view, &entries);
    if estimated_before < threshold {
        return None;
    }
    let budget = threshold / 4;
    let last_user = entries
        .iter()
        .rposition(|(_, e)| e.role == ContextRole::User)
        .unwrap_or(entries.len());
    // The newest entries within the budget…
    let mut keep = entries.len();
    let mut kept_tokens = 0;
    while keep > 0 {
        let weight = weights.of(keep - 1, entries[keep - 1].1);
        if kept_tokens + weight > budget {
            break;
        }
        kept_tokens += weight;
        keep -= 1;
    }
    // …and the last user message whatever it weighs…
    keep = keep.min(last_user);
    // …and a kept tool result's call.
    while keep > 0
        && entries
            .get(keep)
            .is_some_and(|(_, e)| e.role == ContextRole::Tool)
    {
        keep -= 1;
    }
    if keep == 0 {
        return None;
    }
    // Nothing kept: the summary's marker, appended next, starts the tail.
    let kept_from = entries
        .get(keep)
        .map_or_else(|| entries.last().map_or(0, |(at, _)| at + 1), |(at, _)| *at);
    let mut transcript = String::new();
    if let Some(previous) = view.summary {
        transcript.push_str("Previous summary:\n");
        transcript.push_str(previous);
        transcript.push_str("\n\n");
    }
    transcript.push_str("Conversation:\n");
    for (_, entry) in &entries[..keep] {
        write_entry(&mut transcript, entry);
    }
    Some(CompactionPlan {
        estimated_before,
        kept_from: kept_from as u64,
        transcript,
    })
}

/// One entry as a line of the summary call's transcript.
fn write_entry(out: &mut String, entry: &ContextMessage) {
    match entry.role {
        ContextRole::User => {
            out.push_str("User: ");
            out.push_str(&entry.content);
            out.push('\n');
        }
        ContextRole::Assistant => {
            if !entry.content.is_empty() {
                out.push_str("Assistant: ");
                out.push_str(&entry.content);
                out.push('\n');
            }
            for call in &entry.tool_calls {
                out.push_str(&format!(
                    "Assistant called the tool {} with {}\n",
                    call.name, call.arguments
                ));
            }
        }
        ContextRole::Tool => {
            out.push_str("Tool result: ");
            out.push_str(&entry.content);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::{CompactionBlock, ToolCall, view_for};
    use crate::provider::ApproxTokens;

    fn text(role: ContextRole, words: usize) -> ContextMessage {
        ContextMessage::text(role, "word ".repeat(words))
    }

    fn call(id: &str) -> ContextMessage {
        ContextMessage {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "lookup".into(),
                arguments: json!({"q": "x"}),
                arguments_error: None,
            }],
            ..ContextMessage::text(ContextRole::Assistant, "")
        }
    }

    #[test]
    fn below_the_threshold_nothing_is_planned() {
        let context = vec![text(ContextRole::User, 10)];
        assert_eq!(
            plan(&ApproxTokens, "", &view_for(&context, "openai"), 1000),
            None
        );
    }

    #[test]
    fn the_newest_quarter_is_kept_and_the_rest_summarized() {
        // 20 entries of 50 tokens (200 chars ÷ 4 + 1 space each), threshold 400.
        let context: Vec<_> = (0..20)
            .map(|n| {
                let role = if n % 2 == 0 {
                    ContextRole::User
                } else {
                    ContextRole::Assistant
                };
                text(role, 40)
            })
            .collect();
        let view = view_for(&context, "openai");
        let planned = plan(&ApproxTokens, "", &view, 400).unwrap();
        // 100 tokens of budget: the last two entries (50 each).
        assert_eq!(planned.kept_from, 18);
        assert_eq!(planned.estimated_before, 1000);
        assert_eq!(planned.transcript.matches("User: ").count(), 9);
    }

    #[test]
    fn a_tool_result_is_never_kept_without_its_call() {
        let mut asked = call("c1");
        asked.tool_calls[0].arguments = json!({"q": "x".repeat(100)});
        let context = vec![
            text(ContextRole::User, 400),
            asked,
            ContextMessage::tool_result("c1", "word ".repeat(10)),
            text(ContextRole::Assistant, 30),
            text(ContextRole::User, 30),
        ];
        let view = view_for(&context, "openai");
        let planned = plan(&ApproxTokens, "", &view, 400).unwrap();
        // The budget (100) keeps the last three (38 + 38 + 13), not the
        // call (29); it comes along with its result.
        assert_eq!(planned.kept_from, 1);
        assert!(!planned.transcript.contains("Tool result"));
        assert!(!planned.transcript.contains("called the tool"));
    }

    #[test]
    fn the_current_user_message_is_always_kept() {
        let context = vec![
            text(ContextRole::User, 100),
            text(ContextRole::Assistant, 100),
            text(ContextRole::User, 2000),
        ];
        let planned = plan(&ApproxTokens, "", &view_for(&context, "openai"), 300).unwrap();
        assert_eq!(planned.kept_from, 2);
    }

    #[test]
    fn a_summary_marker_hides_what_it_summarized_and_anchors_the_next_summary() {
        let mut context = vec![
            text(ContextRole::User, 10),
            text(ContextRole::Assistant, 10),
            text(ContextRole::User, 10),
        ];
        context.push(ContextMessage {
            compaction: Some(Box::new(CompactionBlock {
                summary: "they greeted".into(),
                encrypted_content: None,
                native_to: None,
                at: None,
                kept_from: Some(2),
            })),
            ..ContextMessage::text(ContextRole::Assistant, "")
        });
        context.push(text(ContextRole::Assistant, 10));
        context.push(text(ContextRole::User, 10));
        for provider in ["openai", "anthropic"] {
            let view = view_for(&context, provider);
            assert_eq!(view.summary, Some("they greeted"));
            let kept: Vec<usize> = view.positioned().map(|(at, _)| at).collect();
            assert_eq!(kept, [2, 4, 5]);
        }
        assert!(!context[3].is_paused_compaction());
        let planned = plan(&ApproxTokens, "", &view_for(&context, "openai"), 1).unwrap();
        assert!(
            planned
                .transcript
                .starts_with("Previous summary:\nthey greeted")
        );
    }

    #[test]
    fn the_estimate_starts_from_the_vendors_figure() {
        let mut answered = text(ContextRole::Assistant, 40);
        answered.input_tokens = Some(5000);
        let context = vec![
            text(ContextRole::User, 400),
            answered,
            text(ContextRole::User, 40),
        ];
        // 5000 reported, plus the answer and the new message (50 each).
        assert_eq!(
            estimate(&ApproxTokens, "system", &view_for(&context, "openai")),
            5100
        );
    }
}
