//! What a model call produced, as the steps after it read it.

use std::time::Instant;

use super::CancelReason;
use crate::provider::{CompactionBlock, ModelError, ReasoningBlock, ToolCall};

/// `key_source` of a call made with the operator's own vendor key.
pub(super) const PLATFORM_KEY: &str = "platform";

/// What a model call produced.
pub struct ModelOutcome {
    pub(super) content: String,
    pub(super) tool_calls: Vec<ToolCall>,
    pub(super) input_tokens: Option<u64>,
    pub(super) output_tokens: Option<u64>,
    /// Of the input, what the vendor read from and wrote to its prompt cache.
    pub(super) cache_read_tokens: Option<u64>,
    pub(super) cache_write_tokens: Option<u64>,
    pub(super) failure: Option<ModelError>,
    /// Why the turn was stopped, if it was.
    pub(super) stopped_by: Option<CancelReason>,
    /// When the first text arrived.
    pub(super) first_text: Option<Instant>,
    /// Whether any of the answer arrived (text, thinking, a tool call or a
    /// compaction block): a fallback model may no longer replace the call.
    pub(super) began: bool,
    /// The answer's reasoning blocks, in order.
    pub(super) reasoning: Vec<ReasoningBlock>,
    /// The vendor's compaction block the answer began with.
    pub(super) compaction: Option<CompactionBlock>,
    /// Whether the vendor accepted the request (a 2xx answer): only then is
    /// the call billed and recorded.
    pub(super) accepted: bool,
    /// The request's size in estimated tokens, for a vendor that reports none.
    pub(super) estimated_input: u64,
    /// Whose key paid for the call: `platform` or the resolver's source.
    pub(super) key_source: String,
    /// The call's usage and context entry were stored by its tool step.
    pub(super) recorded: bool,
    /// Sent before this call's text (a blank line after an earlier step's
    /// text): part of `done.content`, not of this call's context entry.
    pub(super) lead: &'static str,
    /// The vendor compacted the context and paused before answering.
    pub(super) paused: bool,
    /// The limit of the send's budget that ended the turn before a call.
    pub(super) budget_hit: Option<String>,
    /// The vendor's per-iteration usage (a call in which it compacted).
    pub(super) iterations: Option<serde_json::Value>,
}

impl ModelOutcome {
    /// How many frames the turn's stream ends with after this outcome
    /// (`Turn::end_stream`), its `done` included.
    pub fn ending_frames(&self, requires_action: bool) -> u64 {
        let stopped_with_error = self.stopped_by.and_then(CancelReason::error).is_some();
        if self.failure.is_some() || stopped_with_error {
            return 2;
        }
        self.tool_calls.len() as u64 + u64::from(requires_action) + 1
    }

    /// Whether the call failed before its first token in a way a fallback
    /// model may answer instead.
    pub(super) fn replaceable(&self) -> bool {
        self.stopped_by.is_none()
            && !self.began
            && self.failure.as_ref().is_some_and(|f| f.replaceable)
    }

    pub(super) fn empty() -> Self {
        Self {
            content: String::new(),
            tool_calls: Vec::new(),
            input_tokens: None,
            output_tokens: None,
            cache_read_tokens: None,
            cache_write_tokens: None,
            failure: None,
            stopped_by: None,
            first_text: None,
            began: false,
            reasoning: Vec::new(),
            compaction: None,
            accepted: false,
            estimated_input: 0,
            key_source: PLATFORM_KEY.to_owned(),
            recorded: false,
            lead: "",
            paused: false,
            budget_hit: None,
            iterations: None,
        }
    }

    /// A turn stopped before its model call was made.
    pub(super) fn stopped_before_the_call(reason: CancelReason) -> Self {
        Self {
            stopped_by: Some(reason),
            ..Self::empty()
        }
    }

    /// The end of a turn its budget paused before a call (nothing to
    /// record: the earlier steps are).
    pub(super) fn paused_by_budget(limit: String) -> Self {
        Self {
            budget_hit: Some(limit),
            recorded: true,
            ..Self::empty()
        }
    }

    /// The end of a turn whose last step's server-side calls ran and whose
    /// client-side `calls` wait for the client (the step's text and calls
    /// are already in the context).
    pub(super) fn asking_client(calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            recorded: true,
            ..Self::empty()
        }
    }
}
