//! A thread's context as the model sees it: a list of entries (user and
//! assistant text, tool calls and results) carrying the blocks that must go
//! back to a vendor unchanged (thinking with its signature, the vendor's
//! compaction block), and the view of it a given provider is sent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::provider::ToolDefinition;

/// Who speaks in a context entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextRole {
    User,
    Assistant,
    /// The result of a tool call, answering an assistant's `tool_calls`.
    Tool,
}

/// A tool call the model made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolCall {
    /// The vendor's ID, passed through unchanged.
    pub id: String,
    pub name: String,
    /// The parsed JSON arguments; the model's raw text when it did not
    /// parse (then `arguments_error` says so).
    pub arguments: Value,
    /// `"invalid JSON"` when the model's arguments did not parse.
    #[serde(
        default,
        rename = "argumentsError",
        skip_serializing_if = "Option::is_none"
    )]
    pub arguments_error: Option<String>,
}

/// `argumentsError` of a call whose arguments did not parse.
pub const INVALID_JSON: &str = "invalid JSON";

/// A block of a model's reasoning, kept so that it can be sent back
/// verbatim to the vendor that made it (with its signature, which the vendor
/// checks); other vendors never see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningBlock {
    /// Visible thinking and the vendor's signature of it.
    Thinking { thinking: String, signature: String },
    /// Thinking the vendor encrypted.
    RedactedThinking { data: String },
}

/// A summary that stands for everything before it in the context
/// (`compaction.md`): the vendor's own compaction block, sent back to that
/// vendor unchanged, or Confer's summary. For any other model it becomes a
/// `system` message and the entries before it are left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionBlock {
    /// The summary text.
    pub summary: String,
    /// The vendor's opaque payload, kept byte for byte (native blocks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_content: Option<String>,
    /// The provider whose block this is (`anthropic`); `None` for Confer's
    /// own summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_to: Option<String>,
    /// When the block was made (Confer's clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<chrono::DateTime<chrono::Utc>>,
    /// Confer's summary only: the position in the context of the first
    /// entry it did not summarize. Its entry is a marker appended when the
    /// summary was made; the entries from this position up to the marker,
    /// and those after it, are still sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_from: Option<u64>,
}

/// The system message that carries a summary to a model that cannot take
/// the block itself.
pub fn summary_message(summary: &str) -> String {
    format!("Summary of the earlier conversation:\n{summary}")
}

/// One entry of the context sent to the model: what the thread's history is
/// to a model, including the tool calls and results the listing leaves out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextMessage {
    pub role: ContextRole,
    pub content: String,
    /// On an assistant entry: the calls it made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On a tool entry: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// On an assistant entry: its reasoning blocks, in order (they come
    /// before its text and tool calls).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<ReasoningBlock>,
    /// The provider that made `reasoning` (`anthropic`…): only it is sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_from: Option<String>,
    /// On an assistant entry: the compaction block its answer began with
    /// (it comes before the reasoning, text and tool calls).
    /// Boxed: few entries have one, and every entry is a slot of the
    /// history the live threads keep (issue 11, memory per stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Box<CompactionBlock>>,
    /// The turn that stored the entry (absent on entries older than turn
    /// numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// On an assistant entry with tool calls: the client-side tools the
    /// model was offered, offered again by a later send that gives none (a
    /// vendor may refuse a context with tool calls but no definitions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offered: Vec<ToolDefinition>,
    /// On an assistant entry: the input tokens the vendor reported for the
    /// call that produced it (what the context before it weighed), the
    /// anchor of the next call's estimate (`compaction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u32>,
}

impl ContextMessage {
    /// Whether this is an answer the vendor paused after compacting: its
    /// compaction block and nothing else.
    pub fn is_paused_compaction(&self) -> bool {
        self.role == ContextRole::Assistant
            && self
                .compaction
                .as_ref()
                .is_some_and(|block| block.kept_from.is_none())
            && self.content.is_empty()
            && self.tool_calls.is_empty()
    }

    /// A plain user or assistant entry.
    pub fn text(role: ContextRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: Vec::new(),
            reasoning_from: None,
            compaction: None,
            turn: None,
            offered: Vec::new(),
            input_tokens: None,
        }
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, output: impl Into<String>) -> Self {
        Self {
            role: ContextRole::Tool,
            content: output.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(tool_call_id.into()),
            reasoning: Vec::new(),
            reasoning_from: None,
            compaction: None,
            turn: None,
            offered: Vec::new(),
            input_tokens: None,
        }
    }
}

/// The IDs of the tool calls of the context's last assistant entry that no
/// tool entry after it answers, in call order.
pub fn pending_tool_calls(context: &[ContextMessage]) -> Vec<String> {
    let Some(last) = context
        .iter()
        .rposition(|m| m.role == ContextRole::Assistant)
    else {
        return Vec::new();
    };
    let answered: Vec<&str> = context[last + 1..]
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    context[last]
        .tool_calls
        .iter()
        .filter(|call| !answered.contains(&call.id.as_str()))
        .map(|call| call.id.clone())
        .collect()
}

/// What a provider is sent of a context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContextView<'a> {
    /// A summary to send as a `system` message after the system prompt.
    pub summary: Option<&'a str>,
    /// The entries to send are `head` then `tail` (the marker of a summary
    /// between them is not sent).
    head: &'a [ContextMessage],
    tail: &'a [ContextMessage],
    /// The position of `head` in the context.
    start: usize,
}

impl<'a> ContextView<'a> {
    /// The entries to send, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &'a ContextMessage> + Clone + use<'a> {
        self.head.iter().chain(self.tail.iter())
    }

    /// The entries with their positions in the context.
    pub fn positioned(&self) -> impl Iterator<Item = (usize, &'a ContextMessage)> + use<'a> {
        let tail_start = self.start + self.head.len() + usize::from(!self.tail.is_empty());
        let head = (self.start..).zip(self.head.iter());
        let tail = (tail_start..).zip(self.tail.iter());
        head.chain(tail)
    }

    /// How many entries are sent.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Whether no entry is sent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The part of `context` that `provider` is sent. After a compaction block
/// native to `provider` everything is sent (that vendor reads the block and
/// ignores what precedes it); after any other vendor's block, the entries
/// from the block's own entry on, with its summary as a `system` message;
/// after Confer's summary, the entries it kept and those after its marker,
/// with the summary as a `system` message.
pub fn view_for<'a>(context: &'a [ContextMessage], provider: &str) -> ContextView<'a> {
    let newest = context
        .iter()
        .enumerate()
        .rev()
        .find_map(|(at, entry)| entry.compaction.as_ref().map(|block| (at, block)));
    let whole = ContextView {
        summary: None,
        head: context,
        tail: &[],
        start: 0,
    };
    match newest {
        Some((at, block)) => match block.kept_from {
            Some(kept) => {
                let kept = usize::try_from(kept).unwrap_or(at).min(at);
                ContextView {
                    summary: Some(&block.summary),
                    head: &context[kept..at],
                    tail: &context[at + 1..],
                    start: kept,
                }
            }
            None if block.native_to.as_deref() == Some(provider) => whole,
            None => ContextView {
                summary: Some(&block.summary),
                head: &context[at..],
                tail: &[],
                start: at,
            },
        },
        None => whole,
    }
}

/// The client-side tools the model was last offered in `context`.
pub fn last_offered(context: &[ContextMessage]) -> &[ToolDefinition] {
    context
        .iter()
        .rev()
        .find(|entry| !entry.offered.is_empty())
        .map_or(&[], |entry| entry.offered.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compacted(text: &str, native_to: Option<&str>) -> ContextMessage {
        ContextMessage {
            compaction: Some(Box::new(CompactionBlock {
                summary: format!("summary before {text}"),
                encrypted_content: native_to.map(|_| "opaque".into()),
                native_to: native_to.map(str::to_owned),
                at: None,
                kept_from: None,
            })),
            ..ContextMessage::text(ContextRole::Assistant, text)
        }
    }

    #[test]
    fn a_compaction_block_hides_what_precedes_it_from_other_vendors_only() {
        let context = vec![
            ContextMessage::text(ContextRole::User, "one"),
            ContextMessage::text(ContextRole::Assistant, "two"),
            ContextMessage::text(ContextRole::User, "three"),
            compacted("four", Some("anthropic")),
            ContextMessage::text(ContextRole::User, "five"),
        ];
        let native = view_for(&context, "anthropic");
        assert_eq!(native.summary, None);
        assert_eq!(native.len(), 5);
        let other = view_for(&context, "openai");
        assert_eq!(other.summary, Some("summary before four"));
        let texts: Vec<&str> = other.entries().map(|e| e.content.as_str()).collect();
        assert_eq!(texts, ["four", "five"]);
    }

    #[test]
    fn the_newest_compaction_wins_and_a_summary_goes_to_every_vendor() {
        let context = vec![
            compacted("a", Some("anthropic")),
            ContextMessage::text(ContextRole::User, "b"),
            compacted("c", None),
            ContextMessage::text(ContextRole::User, "d"),
        ];
        for provider in ["anthropic", "openai"] {
            let view = view_for(&context, provider);
            assert_eq!(view.summary, Some("summary before c"), "{provider}");
            assert_eq!(view.len(), 2);
        }
        let plain = [ContextMessage::text(ContextRole::User, "x")];
        assert_eq!(view_for(&plain, "openai").len(), 1);
        assert_eq!(
            summary_message("s"),
            "Summary of the earlier conversation:\ns"
        );
    }
}
