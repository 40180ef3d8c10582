//! What a turn emits: [`ThreadEvent`]s, appended to the thread's frame log
//! (`frames`) and written by the HTTP layer as SSE (`id:`, `event:`, `data:`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::codes::ErrorCode;
use crate::ids::{MessageId, ThreadId};
use crate::provider::ToolCall;

/// Token counts of a turn, as the `done` event reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Every prompt token the vendors counted, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input, tokens read from the vendors' prompt caches (0 when
    /// they reported none).
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Of the input, tokens written to the vendors' prompt caches.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Model calls the send made (tool steps and the forced last call
    /// included); absent on records written before multi-step turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
    /// The model that answered (a fallback model when one replaced the
    /// send's); absent on records written before fallback models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What the turn's delegated turns used, all depths summed
    /// (`agent-extras.md` §3); absent when it delegated nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated: Option<Box<crate::delegation::DelegatedUsage>>,
}

impl std::ops::AddAssign for Usage {
    /// Adds another call's tokens (`steps` and `model` are the sender's to
    /// set).
    fn add_assign(&mut self, other: Self) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// What an `auth_challenge` asks of the user.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthChallenge {
    /// The MCP server's slug.
    pub provider: String,
    /// Where the user's browser goes to connect (a single-use Confer URL).
    pub redirect_url: String,
    pub description: Option<String>,
}

/// A piece of a running command's output (`tool_output`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ToolOutputEvent {
    pub tool_name: String,
    pub tool_call_id: String,
    /// `stdout` or `stderr`.
    pub stream: &'static str,
    pub delta: String,
    /// Set on the last event of a call past its 64 KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}

/// An event of a streamed answer. Field names are the wire's (camelCase).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ThreadEvent {
    /// First event of a turn.
    #[schema(title = "meta")]
    Meta(Box<MetaEvent>),
    /// A chunk of answer text.
    #[schema(title = "token")]
    Token { delta: String },
    /// A chunk of the model's thinking (extended thinking), only when the
    /// send asked for it with `streamThinking: true`; never part of
    /// `done.content`.
    #[schema(title = "thinking")]
    Thinking { delta: String },
    /// A tool call, once its arguments are complete.
    #[schema(title = "tool_call")]
    ToolCall { tool: Box<ToolCall> },
    /// The context was compacted (before the answer's tokens): `native`
    /// (the vendor's block) or `summary` (Confer's).
    #[schema(title = "compaction")]
    Compaction {
        method: &'static str,
        summary: Option<String>,
        #[serde(rename = "inputTokensBefore")]
        input_tokens_before: Option<u64>,
    },
    /// A server-side tool call has started.
    #[schema(title = "tool_executing")]
    ToolExecuting {
        tool_name: String,
        tool_call_id: String,
    },
    /// A server-side tool call's result (`isError` only when true).
    #[schema(title = "tool_result")]
    ToolResult {
        tool_name: String,
        tool_call_id: String,
        #[schema(value_type = Object)]
        result: Box<serde_json::Value>,
        #[serde(rename = "isError", skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
    /// The model proposes another tool profile (`propose_profile_switch`);
    /// nothing changes unless the client PATCHes the thread.
    #[schema(title = "profile_switch_proposal")]
    ProfileSwitchProposal { target: String, reason: String },
    /// The answer cited a knowledge source (`knowledge.md` §4): right
    /// after the token that completed its marker, once per source.
    #[schema(title = "citation")]
    Citation(Box<crate::citations::Citation>),
    /// A tool needs the end user to connect an account (an MCP server's
    /// OAuth, `tools.md` §8); its `tool_result` follows.
    #[schema(title = "auth_challenge")]
    AuthChallenge {
        #[serde(rename = "toolName")]
        tool_name: String,
        /// Boxed: events are many (a token each) and this one is rare.
        challenge: Box<AuthChallenge>,
    },
    /// A delegated agent's frame, between its call's `tool_executing` and
    /// `tool_result` (`agent-extras.md` §3).
    #[schema(title = "tool_progress")]
    ToolProgress(Box<crate::delegation::ToolProgress>),
    /// Output of a running computer command (`computer.md` §3), between
    /// its call's `tool_executing` and `tool_result`, when the send asked
    /// for it (`streamToolOutput`).
    #[schema(title = "tool_output")]
    ToolOutput(Box<ToolOutputEvent>),
    /// The client must run these tools and send their results.
    #[schema(title = "requires_action")]
    RequiresAction {
        #[serde(rename = "toolCalls")]
        tool_calls: Vec<ToolCall>,
    },
    /// A failure; `done {ok:false}` follows.
    #[schema(title = "error")]
    Error {
        code: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The send waits behind others; `position` 1 is next (id `T.0`);
    /// `reason` is `"org"` when it waits for its org's turn capacity.
    #[schema(title = "queued")]
    Queued {
        position: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'static str>,
    },
    /// First event of a `follow` stream (id `0.0`).
    #[schema(title = "watching")]
    Watching {
        #[serde(rename = "threadId")]
        thread_id: ThreadId,
        #[serde(rename = "runningTurn")]
        running_turn: Option<u64>,
        #[serde(rename = "lastTurn")]
        last_turn: Option<u64>,
    },
    /// A watched turn whose frames are no longer kept.
    #[schema(title = "turn_gap")]
    TurnGap { turn: u64 },
    /// A code session's status (`computer.md` §6): in its prepare turn,
    /// and after it on its events.
    #[schema(title = "session_status")]
    SessionStatus(Box<SessionStatusEvent>),
    /// The last event of every stream.
    #[schema(title = "done")]
    Done(Box<DoneEvent>),
}

/// The data of a `session_status` event.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SessionStatusEvent {
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// `preparing`, `idle`, `running`, `completed`, `failed` or `archived`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(rename = "baseCommit", skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
}

impl SessionStatusEvent {
    /// A `session_status` event of `session_id` with `status` alone.
    pub fn bare(session_id: &str, status: &str) -> ThreadEvent {
        ThreadEvent::SessionStatus(Box::new(Self {
            session_id: session_id.to_owned(),
            status: status.to_owned(),
            detail: None,
            base_commit: None,
        }))
    }
}

/// The data of a `meta` event (boxed in [`ThreadEvent`]: the token frames
/// that make up most of a turn's frames stay small).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct MetaEvent {
    #[serde(rename = "startedAt")]
    pub started_at: DateTime<Utc>,
    #[serde(rename = "threadId")]
    pub thread_id: ThreadId,
    #[serde(rename = "userMessageId")]
    pub user_message_id: Option<MessageId>,
    pub model: String,
    /// Tools left out because an earlier kind has one of the same name.
    #[serde(rename = "shadowedTools", skip_serializing_if = "Vec::is_empty")]
    pub shadowed_tools: Vec<String>,
    /// On a multiplayer thread only (`publishing.md` "Multiplayer
    /// configuration" rule 4): the message the turn answers (`null` when
    /// the send added none), so watchers show others' messages without
    /// reading the history again. Absent on other threads.
    #[serde(rename = "userMessage", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<UserMessageView>)]
    pub user_message: Option<Option<UserMessageView>>,
    /// `prepare` on a code session's preparation turn (`computer.md` §6);
    /// absent on a model's turn.
    #[serde(rename = "turnKind", skip_serializing_if = "Option::is_none")]
    pub turn_kind: Option<&'static str>,
}

/// The user message of a multiplayer turn, as `meta` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct UserMessageView {
    pub id: MessageId,
    pub content: String,
    #[serde(rename = "senderName")]
    pub sender_name: Option<String>,
}

/// The data of a `done` event (boxed in [`ThreadEvent`], as `meta`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct DoneEvent {
    pub ok: bool,
    #[serde(rename = "messageId", skip_serializing_if = "Option::is_none")]
    pub message_id: Option<MessageId>,
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<bool>,
    #[serde(rename = "requiresAction", skip_serializing_if = "Option::is_none")]
    pub requires_action: Option<bool>,
    /// The stream fell behind the frames kept (`streams.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<bool>,
    /// `"compaction"`: the vendor compacted the context and paused; an
    /// empty send continues the answer (`compaction.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<&'static str>,
}

impl DoneEvent {
    /// A `done` of a turn that did not answer: `ok: false`, the text so far.
    pub fn failed(content: String) -> Self {
        Self {
            ok: false,
            message_id: None,
            content,
            usage: None,
            stopped: None,
            requires_action: None,
            gap: None,
            paused: None,
        }
    }
}

impl ThreadEvent {
    /// `error {code, detail}` then `done {ok:false}` with `content`: how a
    /// failed or dropped turn ends.
    pub fn failure(code: ErrorCode, detail: Option<String>, content: String) -> [ThreadEvent; 2] {
        debug_assert!(code.in_stream, "{} never ends a stream", code.code);
        [
            Self::Error {
                code: code.code.to_owned(),
                detail,
            },
            Self::Done(Box::new(DoneEvent::failed(content))),
        ]
    }

    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Meta(_) => "meta",
            Self::Token { .. } => "token",
            Self::Thinking { .. } => "thinking",
            Self::ToolCall { .. } => "tool_call",
            Self::ToolExecuting { .. } => "tool_executing",
            Self::Compaction { .. } => "compaction",
            Self::ToolResult { .. } => "tool_result",
            Self::Citation(_) => "citation",
            Self::ProfileSwitchProposal { .. } => "profile_switch_proposal",
            Self::AuthChallenge { .. } => "auth_challenge",
            Self::ToolProgress(_) => "tool_progress",
            Self::ToolOutput(_) => "tool_output",
            Self::RequiresAction { .. } => "requires_action",
            Self::Error { .. } => "error",
            Self::Queued { .. } => "queued",
            Self::Watching { .. } => "watching",
            Self::TurnGap { .. } => "turn_gap",
            Self::SessionStatus(_) => "session_status",
            Self::Done(_) => "done",
        }
    }

    /// Whether this event ends the stream.
    pub fn is_done(&self) -> bool {
        matches!(self, Self::Done(_))
    }

    /// Whether only the stream of the send whose turn made it may carry
    /// it: an `auth_challenge`'s sign-in link is the sender's, never a
    /// watcher's or a reattached reader's.
    pub fn for_sender_only(&self) -> bool {
        matches!(self, Self::AuthChallenge { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_with_wire_names() {
        let done = ThreadEvent::Done(Box::new(DoneEvent {
            ok: true,
            usage: Some(Usage {
                input_tokens: 3,
                output_tokens: 1,
                cache_read_tokens: 2,
                ..Usage::default()
            }),
            stopped: Some(true),
            ..DoneEvent::failed("partial".into())
        }));
        assert_eq!(done.name(), "done");
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"ok": true, "content": "partial", "stopped": true,
                   "usage": {"inputTokens": 3, "outputTokens": 1,
                             "cacheReadTokens": 2, "cacheWriteTokens": 0}})
        );
        let token = ThreadEvent::Token {
            delta: "hi ".into(),
        };
        assert_eq!(
            serde_json::to_value(&token).unwrap(),
            json!({"delta": "hi "})
        );
    }
}
