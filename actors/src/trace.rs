//! A turn's trace (`observability.md`): the [`Trace`] header and its
//! [`Span`]s, recorded by the turn as its steps run ([`TraceRecorder`]) and
//! stored with its answer (made durable by the flush that acknowledges
//! it). A running turn's header
//! is kept in [`RunningTraces`] until the turn ends, so the logs can list it
//! as `running`.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use dashmap::DashMap;
use serde::{Deserialize, Serialize};

use crate::domain::{Metadata, UsageRecord};
use crate::ids::{AgentId, OrgId, SpanId, ThreadId, TraceId};
use crate::prices::{NANOS_PER_USD, PriceTable};

/// Spans a trace keeps; more are counted in `span_count`, not stored.
pub const MAX_SPANS: usize = 500;

/// The name of every turn's trace and root span.
pub const TURN_NAME: &str = "chat-turn";

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
fn cut(text: &str) -> String {
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

fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_micros() as f64) / 1000.0
}

/// The header fields a trace starts with.
pub struct TraceStart {
    pub org: OrgId,
    pub agent: AgentId,
    pub thread: ThreadId,
    pub user_id: String,
    pub model: String,
    pub turn: u64,
    pub if_busy: Option<&'static str>,
    /// The caller's W3C trace id (32 hex digits), if it sent a `traceparent`.
    pub otel_trace_id: Option<String>,
    pub started: Stamp,
    /// Whether inputs and outputs are recorded.
    pub payloads: bool,
}

/// Collects a turn's spans as its steps end; [`TraceRecorder::finish`]
/// makes the stored record. While it lives, the trace is listed as running.
pub struct TraceRecorder {
    trace: Trace,
    spans: Vec<Span>,
    root: SpanId,
    started: Stamp,
    root_attributes: SpanAttributes,
    /// Cost so far; `None` once a call's model had no price.
    cost_nanos: Option<u64>,
    running: Option<Running>,
    /// Whether inputs and outputs are recorded (`CONFER_TRACE_PAYLOADS`).
    payloads: bool,
    /// The root span's input and output, when recorded.
    root_payload: (Option<String>, Option<String>),
}

/// Removes a trace from the running ones when dropped (whatever way its
/// turn ends).
struct Running {
    traces: Arc<RunningTraces>,
    id: TraceId,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.traces.map.remove(&self.id);
    }
}

impl TraceRecorder {
    /// Starts a turn's trace and lists it as running in `running`.
    pub fn start(start: TraceStart, running: &Arc<RunningTraces>) -> Self {
        let id = TraceId::new();
        let trace = Trace {
            id,
            otel_trace_id: start.otel_trace_id.unwrap_or_else(|| hex_of(id.as_bytes())),
            org_id: start.org,
            agent_id: start.agent,
            thread_id: start.thread,
            user_id: start.user_id,
            name: TURN_NAME.to_owned(),
            status: TraceStatus::Running,
            started_at: start.started.at,
            ended_at: None,
            duration_ms: None,
            ttft_ms: None,
            model: start.model,
            total_input_tokens: 0,
            total_output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            estimated_cost_usd: None,
            llm_call_count: 0,
            tool_call_count: 0,
            error_count: 0,
            span_count: 1,
            error_code: None,
            metadata: Metadata::new(),
        };
        let listed = running.insert(&trace).then(|| Running {
            traces: Arc::clone(running),
            id,
        });
        Self {
            trace,
            spans: Vec::new(),
            root: SpanId::new(),
            started: start.started,
            root_attributes: SpanAttributes {
                turn: Some(start.turn),
                if_busy: start.if_busy.map(str::to_owned),
                ..SpanAttributes::default()
            },
            cost_nanos: Some(0),
            running: listed,
            payloads: start.payloads,
            root_payload: (None, None),
        }
    }

    /// Whether inputs and outputs are recorded.
    pub fn records_payloads(&self) -> bool {
        self.payloads
    }

    /// Records `span`'s input and output (the root's too), cut to
    /// [`MAX_PAYLOAD`], when payloads are recorded; else nothing.
    pub fn payload(&mut self, span: SpanId, input: Option<&str>, output: Option<&str>) {
        if !self.payloads {
            return;
        }
        let (input, output) = (input.map(cut), output.map(cut));
        if span == self.root {
            self.root_payload = (input.or(self.root_payload.0.take()), output);
        } else if let Some(found) = self.spans.iter_mut().rev().find(|s| s.id == span) {
            found.input = input;
            found.output = output;
        }
    }

    /// The root span, every other span's parent by default.
    pub fn root(&self) -> SpanId {
        self.root
    }

    /// Records a span under `parent` that ran from `from` until now;
    /// returns its id.
    pub fn span(
        &mut self,
        parent: SpanId,
        kind: SpanKind,
        name: impl Into<String>,
        from: Stamp,
        attributes: SpanAttributes,
        error: Option<String>,
    ) -> SpanId {
        self.span_between(parent, kind, name, from, Instant::now(), attributes, error)
    }

    /// Records a span under `parent` that ran from `from` to `to`.
    #[allow(clippy::too_many_arguments)]
    pub fn span_between(
        &mut self,
        parent: SpanId,
        kind: SpanKind,
        name: impl Into<String>,
        from: Stamp,
        to: Instant,
        attributes: SpanAttributes,
        error: Option<String>,
    ) -> SpanId {
        let id = SpanId::new();
        self.trace.span_count = self.trace.span_count.saturating_add(1);
        match kind {
            SpanKind::Llm => self.trace.llm_call_count += 1,
            SpanKind::Tool => self.trace.tool_call_count += 1,
            _ => {}
        }
        let failed = error.is_some() || attributes.is_error == Some(true);
        if failed {
            self.trace.error_count += 1;
        }
        // The root is added at the end, so it takes one of the places.
        if self.spans.len() + 1 < MAX_SPANS {
            let now = to;
            self.spans.push(Span {
                id,
                trace_id: self.trace.id,
                parent_span_id: Some(parent),
                kind,
                name: name.into(),
                status: if failed {
                    SpanStatus::Error
                } else {
                    SpanStatus::Ok
                },
                started_at: from.at,
                ended_at: from.at + (now - from.instant),
                duration_ms: from.ms_until(now),
                attributes,
                error,
                input: None,
                output: None,
            });
        }
        id
    }

    /// Notes when the turn's first token arrived (the first one counts).
    pub fn first_token(&mut self, at: Instant) {
        if self.trace.ttft_ms.is_none() {
            self.trace.ttft_ms = Some(self.started.ms_until(at));
        }
    }

    /// Adds a usage record of the turn (its tokens and, priced, its cost).
    pub fn usage(&mut self, record: &UsageRecord, prices: &PriceTable) {
        let t = &mut self.trace;
        t.total_input_tokens += record.input_tokens;
        t.total_output_tokens += record.output_tokens;
        t.cache_read_tokens += record.cache_read_tokens;
        t.cache_write_tokens += record.cache_write_tokens;
        self.cost_nanos = match (self.cost_nanos, prices.cost_nanos(record)) {
            (Some(sum), Some(cost)) => Some(sum + cost),
            _ => None,
        };
    }

    /// When the turn began.
    pub fn started(&self) -> Stamp {
        self.started
    }

    /// The trace's id.
    pub fn id(&self) -> TraceId {
        self.trace.id
    }

    /// The trace as it stands (running).
    pub fn header(&self) -> &Trace {
        &self.trace
    }

    /// The finished trace: `status`, the final model and metadata, ended
    /// now. The running listing ends when the recorder is dropped.
    pub fn finish(
        &mut self,
        status: TraceStatus,
        error_code: Option<String>,
        model: String,
        metadata: Metadata,
    ) -> TraceRecord {
        let now = Instant::now();
        let ended_at = self.started.at + (now - self.started.instant);
        let duration_ms = self.started.ms_until(now);
        let mut trace = self.trace.clone();
        trace.status = status;
        trace.error_code = error_code;
        trace.model = model;
        trace.metadata = metadata;
        trace.ended_at = Some(ended_at);
        trace.duration_ms = Some(duration_ms);
        trace.estimated_cost_usd = self.cost_nanos.map(|n| n as f64 / NANOS_PER_USD);
        if status == TraceStatus::Error {
            trace.error_count += 1;
        }
        let mut spans = Vec::with_capacity(self.spans.len() + 1);
        spans.push(Span {
            id: self.root,
            trace_id: trace.id,
            parent_span_id: None,
            kind: SpanKind::Turn,
            name: TURN_NAME.to_owned(),
            status: if status == TraceStatus::Error {
                SpanStatus::Error
            } else {
                SpanStatus::Ok
            },
            started_at: trace.started_at,
            ended_at,
            duration_ms,
            attributes: std::mem::take(&mut self.root_attributes),
            error: trace.error_code.clone(),
            input: self.root_payload.0.take(),
            output: self.root_payload.1.take(),
        });
        spans.append(&mut self.spans);
        TraceRecord {
            trace,
            spans,
            cost_nanos: self.cost_nanos,
        }
    }

    /// Stops listing the trace as running (once it is stored).
    pub fn ended(mut self) {
        self.running.take();
    }
}

/// The headers of running turns' traces, by id (at most [`MAX_RUNNING`]).
pub struct RunningTraces {
    map: DashMap<TraceId, Trace>,
    cap: usize,
}

impl Default for RunningTraces {
    fn default() -> Self {
        Self::with_cap(MAX_RUNNING)
    }
}

impl RunningTraces {
    /// A registry holding at most `cap` traces.
    pub fn with_cap(cap: usize) -> Self {
        Self {
            map: DashMap::new(),
            cap,
        }
    }

    /// Lists `trace`; `false` when the registry is full.
    fn insert(&self, trace: &Trace) -> bool {
        if self.map.len() >= self.cap {
            return false;
        }
        self.map.insert(trace.id, trace.clone());
        true
    }

    /// The running trace `id`.
    pub fn get(&self, id: TraceId) -> Option<Trace> {
        self.map.get(&id).map(|t| t.clone())
    }

    /// The running traces `keep` accepts.
    pub fn matching(&self, keep: impl Fn(&Trace) -> bool) -> Vec<Trace> {
        self.map
            .iter()
            .filter(|t| keep(t.value()))
            .map(|t| t.value().clone())
            .collect()
    }

    /// How many traces are listed.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Lowercase hex of `bytes`.
pub fn hex_of(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The trace id of a W3C `traceparent` header (`00-{32 hex}-{16 hex}-{2 hex}`),
/// if it is well formed and not all zeros.
pub fn traceparent_trace_id(header: &str) -> Option<String> {
    let mut parts = header.trim().split('-');
    let (version, trace, parent, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let valid = hex(version, 2)
        && version != "ff"
        && hex(trace, 32)
        && hex(parent, 16)
        && hex(flags, 2)
        && trace.bytes().any(|b| b != b'0')
        && parent.bytes().any(|b| b != b'0');
    valid.then(|| trace.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(running: &Arc<RunningTraces>) -> TraceRecorder {
        TraceRecorder::start(
            TraceStart {
                org: OrgId::new(),
                agent: AgentId::new(),
                thread: ThreadId::new(),
                user_id: "u".into(),
                model: "m".into(),
                turn: 1,
                if_busy: Some("queue"),
                otel_trace_id: None,
                started: Stamp::now(),
                payloads: true,
            },
            running,
        )
    }

    #[test]
    fn payloads_are_cut_at_a_character_boundary() {
        let running = Arc::new(RunningTraces::default());
        let mut recorder = start(&running);
        let root = recorder.root();
        let tool = recorder.span(
            root,
            SpanKind::Tool,
            "t",
            Stamp::now(),
            SpanAttributes::default(),
            None,
        );
        let long = "é".repeat(MAX_PAYLOAD);
        recorder.payload(tool, Some("{}"), Some(&long));
        recorder.payload(root, Some("hi"), None);
        recorder.payload(root, None, Some("answer"));
        let record = recorder.finish(TraceStatus::Ok, None, "m".into(), Metadata::new());
        let output = record.spans[1].output.as_deref().unwrap();
        assert!(output.len() <= MAX_PAYLOAD && output.len() >= MAX_PAYLOAD - 1);
        assert_eq!(record.spans[1].input.as_deref(), Some("{}"));
        assert_eq!(record.spans[0].input.as_deref(), Some("hi"));
        assert_eq!(record.spans[0].output.as_deref(), Some("answer"));
        let mut quiet = start(&running);
        quiet.payloads = false;
        let root = quiet.root();
        quiet.payload(root, Some("secret"), None);
        let record = quiet.finish(TraceStatus::Ok, None, "m".into(), Metadata::new());
        assert_eq!(record.spans[0].input, None);
    }

    #[test]
    fn spans_nest_under_the_root_and_past_the_cap_are_only_counted() {
        let running = Arc::new(RunningTraces::default());
        let mut recorder = start(&running);
        assert_eq!(running.len(), 1);
        let root = recorder.root();
        let tool = recorder.span(
            root,
            SpanKind::Tool,
            "lookup",
            Stamp::now(),
            SpanAttributes::default(),
            None,
        );
        recorder.span(
            tool,
            SpanKind::Webhook,
            "POST",
            Stamp::now(),
            SpanAttributes::default(),
            Some("timeout".into()),
        );
        for _ in 0..MAX_SPANS {
            recorder.span(
                root,
                SpanKind::Llm,
                "model_call",
                Stamp::now(),
                SpanAttributes::default(),
                None,
            );
        }
        let record = recorder.finish(TraceStatus::Ok, None, "m".into(), Metadata::new());
        assert_eq!(record.spans.len(), MAX_SPANS);
        assert_eq!(record.trace.span_count as usize, MAX_SPANS + 3);
        assert_eq!(record.trace.llm_call_count as usize, MAX_SPANS);
        assert_eq!(record.trace.tool_call_count, 1);
        assert_eq!(record.trace.error_count, 1);
        assert_eq!(record.spans[0].parent_span_id, None);
        assert_eq!(record.spans[1].parent_span_id, Some(root));
        assert_eq!(record.spans[2].parent_span_id, Some(tool));
        assert_eq!(record.spans[2].status, SpanStatus::Error);
        assert!(record.spans.iter().all(|s| s.duration_ms >= 0.0));
        assert_eq!(running.len(), 1, "listed until the recorder ends");
        recorder.ended();
        assert!(running.is_empty());
    }

    #[test]
    fn the_running_registry_is_bounded() {
        let running = Arc::new(RunningTraces::with_cap(2));
        let a = start(&running);
        let _b = start(&running);
        let c = start(&running);
        assert_eq!(running.len(), 2);
        assert!(running.get(c.id()).is_none(), "past the cap: not listed");
        drop(a);
        assert_eq!(running.len(), 1, "a dropped recorder is unlisted");
    }

    #[test]
    fn traceparent_gives_its_trace_id() {
        let id = "4bf92f3577b34da6a3ce929d0e0e4736";
        assert_eq!(
            traceparent_trace_id(&format!("00-{id}-00f067aa0ba902b7-01")).as_deref(),
            Some(id)
        );
        for bad in [
            "",
            "00-abc-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        ] {
            assert_eq!(traceparent_trace_id(bad), None, "{bad}");
        }
    }
}
