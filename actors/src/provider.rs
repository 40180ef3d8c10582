//! The `ModelProvider` port: a model call as a stream of [`ModelEvent`]s.
//!
//! A provider turns a [`ModelRequest`] into a stream; dropping the stream
//! cancels the call (an HTTP provider closes its vendor connection). Text,
//! tool-call pieces, usage and the finish reason arrive as separate events so
//! that vendors with different wire formats map onto one shape.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::codes::ErrorCode;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a model ID is served: the provider and the ID sent to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRoute {
    /// `builtin`, `anthropic` or `openai`.
    pub provider: String,
    /// The model ID as the vendor receives it (routing prefix stripped).
    pub model: String,
    /// Whether the route reaches an outside vendor (and so may use a user's key).
    pub external: bool,
}

/// A client-side tool offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolDefinition {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// A JSON Schema object.
    pub parameters: Value,
}

pub use crate::context::{
    CompactionBlock, ContextMessage, ContextRole, ContextView, ReasoningBlock, ToolCall,
    pending_tool_calls, summary_message, view_for,
};

/// A vendor API key. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct VendorKey(String);

impl VendorKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key, for the one header that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for VendorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("VendorKey(<redacted>)")
    }
}

/// A model call.
#[derive(Clone, Debug)]
pub struct ModelRequest {
    pub route: ModelRoute,
    /// The composed system prompt ("" when empty).
    pub system: String,
    /// Bytes at the start of `system` that are the agent's stable preamble,
    /// the part a vendor's prompt cache can keep across threads and turns;
    /// the overlays after it start with the blank line that joins them.
    pub system_stable_len: usize,
    /// The conversation so far, oldest first; shared with the turn, not
    /// copied for each request.
    pub messages: Arc<Vec<ContextMessage>>,
    /// The tools the model is offered: the send's client-side ones, then
    /// the server-side ones.
    pub tools: Vec<ToolDefinition>,
    /// The last call of a send at its tool-step limit: the tools stay in the
    /// request (vendors need them to read the earlier calls) but the model
    /// may not call one (tool choice none).
    pub tool_choice_none: bool,
    /// Native compaction asked of a vendor that does it (the agent's
    /// configuration, when enabled); other providers ignore it.
    pub compaction: Option<crate::domain::CompactionConfig>,
    /// The user's own key from the resolver; `None` uses the platform key.
    pub api_key: Option<VendorKey>,
    /// Whom the call is for; a vendor that takes a prompt-cache key or an
    /// end-user identifier derives them from it (never sending the ids).
    pub origin: Option<CallOrigin>,
    /// The send's vendor options; each provider reads its own part.
    pub options: Arc<crate::vendor_options::VendorOptions>,
}

/// The thread and end user a model call is made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallOrigin {
    pub org: crate::ids::OrgId,
    pub thread: crate::ids::ThreadId,
    /// The JWT `sub`, the send's `senderId`, or `apikey:{key id}`.
    pub user: String,
}

/// Why the model stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FinishReason {
    /// A normal end of the answer.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model asked for tool calls.
    ToolCalls,
    /// The vendor compacted the context and paused before answering.
    Compaction,
    /// Anything else the vendor reported.
    Other(String),
}

/// A failed model call, mapped to the stream's error codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// `PROVIDER_AUTH`, `PROVIDER_RATE_LIMITED`, `PROVIDER_UNAVAILABLE`,
    /// `PROVIDER_TIMEOUT` or `MODEL_ERROR` (see `codes`).
    pub code: ErrorCode,
    /// Client-safe detail (never a key).
    pub detail: String,
    /// Whether a fallback model may answer instead (`vendor-options.md`,
    /// "Fallback models": the model is unknown or refused, or the vendor is
    /// rate limiting or down after retries).
    pub replaceable: bool,
}

impl ModelError {
    /// An error that no fallback model replaces.
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: detail.into(),
            replaceable: false,
        }
    }

    /// A `MODEL_ERROR` with `detail`.
    pub fn model(detail: impl Into<String>) -> Self {
        Self::new(crate::codes::MODEL_ERROR, detail)
    }

    /// The same error, which a fallback model may replace.
    pub fn replaceable(self) -> Self {
        Self {
            replaceable: true,
            ..self
        }
    }
}

/// One piece of a model's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
    /// The vendor accepted the request (a 2xx answer): the call is billed
    /// from here on, whatever happens next.
    Accepted,
    /// A chunk of answer text.
    Text(String),
    /// The first piece of a tool call: its position in the answer, the
    /// vendor's call ID and the tool's name.
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// A fragment of a tool call's JSON arguments (parse once the call is done).
    ToolCallArguments { index: usize, fragment: String },
    /// A piece of a reasoning block at `index` of the answer.
    Reasoning { index: usize, piece: ReasoningPiece },
    /// The vendor compacted the context: its block, whole (a failed
    /// compaction, without content, is not reported).
    Compaction(CompactionBlock),
    /// The vendor's per-iteration usage of a call in which it compacted,
    /// as it reported it (kept on the usage record).
    Iterations(serde_json::Value),
    /// Token counts so far; later values replace earlier ones.
    Usage {
        /// Every prompt token the vendor counted, cached ones included.
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
        /// Of the input, tokens read from the vendor's prompt cache.
        cache_read_tokens: Option<u64>,
        /// Of the input, tokens written to the vendor's prompt cache.
        cache_write_tokens: Option<u64>,
    },
    /// The answer is complete.
    Finish(FinishReason),
    /// The call failed; nothing follows.
    Error(ModelError),
}

/// A piece of a streamed reasoning block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReasoningPiece {
    /// More thinking text.
    Thinking(String),
    /// The block's signature (or a piece of it).
    Signature(String),
    /// A whole redacted block.
    Redacted(String),
}

/// The stream of a model call; dropping it cancels the call.
pub type ModelStream = Pin<Box<dyn Stream<Item = ModelEvent> + Send>>;

/// A source of model answers.
pub trait ModelProvider: Send + Sync + 'static {
    /// Which provider serves `model`, and the ID it is sent as.
    fn route(&self, model: &str) -> ModelRoute;

    /// Starts a call.
    fn stream(&self, request: ModelRequest) -> ModelStream;

    /// How the compaction estimate counts the tokens of text for `route`:
    /// the vendor's own tokenizer when one is known, else [`ApproxTokens`].
    /// Any loading happens off the async threads, before the future ends.
    fn token_counter(&self, _route: &ModelRoute) -> CounterFuture {
        Box::pin(async { Arc::new(ApproxTokens) as Arc<dyn TokenCounter> })
    }
}

/// Counts the tokens a model would see in a text.
pub trait TokenCounter: Send + Sync {
    fn count(&self, text: &str) -> u64;
}

/// The future of a model's [`TokenCounter`].
pub type CounterFuture = Pin<Box<dyn Future<Output = Arc<dyn TokenCounter>> + Send>>;

/// Characters ÷ 4: the count for models whose tokenizer Confer does not
/// have (and for text whose count no vendor reported).
#[derive(Clone, Copy, Debug, Default)]
pub struct ApproxTokens;

impl TokenCounter for ApproxTokens {
    fn count(&self, text: &str) -> u64 {
        estimate_tokens(text)
    }
}

/// A rough token count for text whose count no vendor reported (≈4 bytes/token).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// What the credential resolver is asked. `Debug` leaves the signing secret out.
#[derive(Clone)]
pub struct KeyRequest {
    pub user_id: String,
    pub org_id: String,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// The model ID as it will be sent to the vendor.
    pub model: String,
    pub resolver_url: String,
    pub timeout_ms: u32,
    pub signing_secret: String,
}

impl std::fmt::Debug for KeyRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRequest")
            .field("user_id", &self.user_id)
            .field("org_id", &self.org_id)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("resolver_url", &self.resolver_url)
            .field("timeout_ms", &self.timeout_ms)
            .field("signing_secret", &"[redacted]")
            .finish()
    }
}

/// A key the resolver returned, with its `source` label.
#[derive(Clone, Debug)]
pub struct ResolvedKey {
    pub key: VendorKey,
    pub source: String,
}

/// The per-user credential resolver (bring your own key). Every failure is
/// `None`: the call then uses the platform key.
pub trait CredentialResolver: Send + Sync + 'static {
    /// Asks the resolver for the user's key.
    fn resolve(
        &self,
        request: KeyRequest,
    ) -> Pin<Box<dyn std::future::Future<Output = Option<ResolvedKey>> + Send>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_a_secret() {
        let request = KeyRequest {
            user_id: "u".into(),
            org_id: "o".into(),
            provider: "openai".into(),
            model: "m".into(),
            resolver_url: "https://r.example".into(),
            timeout_ms: 1,
            signing_secret: "cfs_top_secret".into(),
        };
        let config = crate::CredentialConfig {
            signing_secret: Some("cfs_top_secret".into()),
            ..Default::default()
        };
        let key = VendorKey::new("sk-top-secret");
        for shown in [
            format!("{request:?}"),
            format!("{config:?}"),
            format!("{key:?}"),
        ] {
            assert!(
                !shown.contains("top_secret") && !shown.contains("top-secret"),
                "{shown}"
            );
        }
    }

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "t".into(),
            arguments: Value::Null,
            arguments_error: None,
        }
    }

    #[test]
    fn pending_calls_are_those_of_the_last_assistant_entry_without_results() {
        let mut context = vec![ContextMessage::text(ContextRole::User, "hi")];
        assert!(pending_tool_calls(&context).is_empty());
        let mut asks = ContextMessage::text(ContextRole::Assistant, "");
        asks.tool_calls = vec![call("a"), call("b")];
        context.push(asks);
        assert_eq!(pending_tool_calls(&context), ["a", "b"]);
        context.push(ContextMessage::tool_result("a", "ok"));
        assert_eq!(pending_tool_calls(&context), ["b"]);
        context.push(ContextMessage::tool_result("b", "ok"));
        assert!(pending_tool_calls(&context).is_empty());
        assert_eq!(
            format!("{:?}", VendorKey::new("sk-secret")),
            "VendorKey(<redacted>)"
        );
    }
}
