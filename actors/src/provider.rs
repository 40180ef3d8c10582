//! The `ModelProvider` port: a model call as a stream of [`ModelEvent`]s.
//!
//! A provider turns a [`ModelRequest`] into a stream; dropping the stream
//! cancels the call (an HTTP provider closes its vendor connection). Text,
//! tool-call pieces, usage and the finish reason arrive as separate events so
//! that vendors with different wire formats map onto one shape.

use std::pin::Pin;

use futures_util::Stream;
use serde::Serialize;

use crate::domain::Role;

/// Where a model ID is served: the provider and the ID sent to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRoute {
    /// `builtin`, `anthropic` or `openai`.
    pub provider: String,
    /// The model ID as the vendor receives it (routing prefix stripped).
    pub model: String,
}

/// One message of the context sent to the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextMessage {
    pub role: Role,
    pub content: String,
}

/// A model call.
#[derive(Clone, Debug)]
pub struct ModelRequest {
    pub route: ModelRoute,
    /// The composed system prompt ("" when empty).
    pub system: String,
    /// The conversation so far, oldest first, ending with the new user message.
    pub messages: Vec<ContextMessage>,
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
    /// Anything else the vendor reported.
    Other(String),
}

/// A failed model call, mapped to the stream's error codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// `PROVIDER_AUTH`, `PROVIDER_RATE_LIMITED`, `PROVIDER_UNAVAILABLE`,
    /// `PROVIDER_TIMEOUT` or `MODEL_ERROR`.
    pub code: &'static str,
    /// Client-safe detail (never a key).
    pub detail: String,
}

impl ModelError {
    /// A `MODEL_ERROR` with `detail`.
    pub fn model(detail: impl Into<String>) -> Self {
        Self {
            code: "MODEL_ERROR",
            detail: detail.into(),
        }
    }
}

/// One piece of a model's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
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
    /// Token counts so far; later values replace earlier ones.
    Usage {
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
    },
    /// The answer is complete.
    Finish(FinishReason),
    /// The call failed; nothing follows.
    Error(ModelError),
}

/// The stream of a model call; dropping it cancels the call.
pub type ModelStream = Pin<Box<dyn Stream<Item = ModelEvent> + Send>>;

/// A source of model answers.
pub trait ModelProvider: Send + Sync + 'static {
    /// Which provider serves `model`, and the ID it is sent as.
    fn route(&self, model: &str) -> ModelRoute;

    /// Starts a call.
    fn stream(&self, request: ModelRequest) -> ModelStream;
}

/// A rough token count for text whose count no vendor reported (≈4 bytes/token).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}
