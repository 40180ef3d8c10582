//! A turn's trace (`observability.md`): the [`Trace`] header and its
//! [`Span`]s, recorded by the turn as its steps run ([`TraceRecorder`]) and
//! stored with its answer (made durable by the flush that acknowledges
//! it). A running turn's header
//! is kept in [`RunningTraces`] until the turn ends, so the logs can list it
//! as `running`.

use std::time::Instant;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::Metadata;
use crate::ids::{AgentId, OrgId, SpanId, ThreadId, TraceId};

/// Spans a trace keeps; more are counted in `span_count`, not stored.
pub const MAX_SPANS: usize = 500;

/// The name of every turn's trace and root span.
pub const TURN_NAME: &str = "chat-turn";
/// The name of a runner's run turn's trace (`runners.md`).
pub const RUN_TURN_NAME: &str = "run-turn";

/// Running traces kept in memory at most (one per running turn); past it a
/// turn still runs and is stored, it is only not listed while it runs.
pub const MAX_RUNNING: usize = 65_536;

/// How a turn ended (or that it has not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TraceStatus {
    Running,
    Ok,
    Error,
    Stopped,
}

impl TraceStatus {
    /// The name used in the API and in metric labels.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Stopped => "stopped",
        }
    }

    /// Parses an API name.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::Running, Self::Ok, Self::Error, Self::Stopped]
            .into_iter()
            .find(|s| s.as_str() == name)
    }
}

/// How a span ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SpanStatus {
    Ok,
    Error,
}

/// What a span measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SpanKind {
    /// The whole turn (the root).
    Turn,
    /// Loading the turn and storing what the user sent, flushed.
    Admission,
    /// Asking the credential resolver for the user's key.
    Resolver,
    /// Confer's summary compaction.
    Compaction,
    /// One model call.
    Llm,
    /// One server-side tool call.
    Tool,
    /// The HTTP request of a webhook tool.
    Webhook,
    /// An MCP request.
    Mcp,
    /// Writing the answer and the trace.
    Store,
}

/// A span's attributes (those of its kind; absent ones are left out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SpanAttributes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_busy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A delegate call's: the trace of the turn it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub child_trace_id: Option<TraceId>,
}

/// One timed step of a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Span {
    pub id: SpanId,
    pub trace_id: TraceId,
    pub parent_span_id: Option<SpanId>,
    pub kind: SpanKind,
    pub name: String,
    pub status: SpanStatus,
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    /// Milliseconds, to the microsecond.
    pub duration_ms: f64,
    pub attributes: SpanAttributes,
    pub error: Option<String>,
    /// What the step was given, with `CONFER_TRACE_PAYLOADS` (cut to
    /// [`MAX_PAYLOAD`] bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// What it gave back, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// Bytes of a span's recorded input or output at most.
pub const MAX_PAYLOAD: usize = 16 * 1024;

/// `text` cut to [`MAX_PAYLOAD`] bytes at a character boundary.
pub(crate) fn cut(text: &str) -> String {
    let mut end = text.len().min(MAX_PAYLOAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// One turn's trace header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Trace {
    pub id: TraceId,
    /// 32 hex digits: the caller's `traceparent` trace, else the id's bytes.
    pub otel_trace_id: String,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub thread_id: ThreadId,
    /// The sender: JWT `sub`, `senderId`, or `apikey:{key id}`.
    pub user_id: String,
    pub name: String,
    pub status: TraceStatus,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    /// From the turn's start (queue wait excluded) to its end.
    pub duration_ms: Option<f64>,
    /// From the turn's start to its first token.
    pub ttft_ms: Option<f64>,
    pub model: String,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// `None` when a call's model has no price.
    pub estimated_cost_usd: Option<f64>,
    pub llm_call_count: u32,
    pub tool_call_count: u32,
    pub error_count: u32,
    /// Spans recorded, those past [`MAX_SPANS`] included.
    pub span_count: u32,
    pub error_code: Option<String>,
    pub metadata: Metadata,
    /// The runner and run of a run's turn (`null` elsewhere).
    #[serde(default)]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub runner_id: Option<crate::RunnerId>,
    #[serde(default)]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub run_id: Option<crate::RunId>,
    /// A delegated turn's: the trace and the tool span of the call that
    /// ran it (absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub parent_trace_id: Option<TraceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub parent_span_id: Option<SpanId>,
}

/// A finished trace as stored: the header, its spans and its cost in
/// nano-USD (summed exactly by the analytics).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    pub trace: Trace,
    pub spans: Vec<Span>,
    #[serde(default)]
    pub cost_nanos: Option<u64>,
}

impl TraceRecord {
    /// Ends the trace, its root span and its `store_commit` span at `now`,
    /// when the store writes it (with the answer, so the
    /// flush after it is not in them); `bytes` is the write's size.
    pub fn seal(&mut self, bytes: u64, now: DateTime<Utc>) {
        let ms = |from: DateTime<Utc>| {
            let micros = (now - from).num_microseconds().unwrap_or(0).max(0);
            micros as f64 / 1000.0
        };
        let trace = &mut self.trace;
        let now = now.max(trace.ended_at.unwrap_or(now));
        trace.ended_at = Some(now);
        trace.duration_ms = Some(ms(trace.started_at));
        for span in &mut self.spans {
            if span.kind == SpanKind::Store || span.parent_span_id.is_none() {
                span.ended_at = now;
                span.duration_ms = ms(span.started_at);
            }
            if span.kind == SpanKind::Store {
                span.attributes.bytes = Some(bytes);
            }
        }
    }
}

/// A point in time, on the wall clock (reported) and the monotonic one
/// (measured).
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    pub at: DateTime<Utc>,
    pub instant: Instant,
}

impl Stamp {
    /// Now.
    pub fn now() -> Self {
        Self {
            at: Utc::now(),
            instant: Instant::now(),
        }
    }

    /// Milliseconds from `self` to `later`, to the microsecond.
    pub fn ms_until(&self, later: Instant) -> f64 {
        millis(later.saturating_duration_since(self.instant))
    }
}

pub(crate) fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_micros() as f64) / 1000.0
}

mod recorder;
mod running;

pub use recorder::{TraceRecorder, TraceStart};
pub use running::{RunningTraces, hex_of, traceparent_trace_id};

#[cfg(test)]
mod tests;
