//! [`TraceRecorder`]: a turn's spans collected as its steps end, listed as
//! running meanwhile, and sealed into the stored record at the end.

use std::sync::Arc;
use std::time::Instant;

use super::{
    MAX_SPANS, RUN_TURN_NAME, RunningTraces, Span, SpanAttributes, SpanKind, SpanStatus, Stamp,
    TURN_NAME, Trace, TraceRecord, TraceStatus, cut, hex_of,
};
use crate::domain::{Metadata, UsageRecord};
use crate::ids::{AgentId, OrgId, SpanId, ThreadId, TraceId};
use crate::prices::{NANOS_PER_USD, PriceTable};

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
    /// The runner and run whose turn it is, if it is one.
    pub run: Option<crate::RunTag>,
    /// A delegated turn's trace: its id, made by the call, and its parent.
    pub link: Option<crate::delegation::TraceLink>,
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
    pub(super) payloads: bool,
    /// The root span's input and output, when recorded.
    root_payload: (Option<String>, Option<String>),
    /// The id the next span takes (a delegate call's, which its child's
    /// trace names before the span ends).
    next_span_id: Option<SpanId>,
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
        let link = start.link;
        let id = link.as_ref().map_or_else(TraceId::new, |l| l.trace_id);
        let trace = Trace {
            id,
            otel_trace_id: match &link {
                Some(link) => link.otel_trace_id.clone(),
                None => start.otel_trace_id.unwrap_or_else(|| hex_of(id.as_bytes())),
            },
            parent_trace_id: link.as_ref().map(|l| l.parent_trace_id),
            parent_span_id: link.as_ref().map(|l| l.parent_span_id),
            org_id: start.org,
            agent_id: start.agent,
            thread_id: start.thread,
            user_id: start.user_id,
            name: if start.run.is_some() {
                RUN_TURN_NAME
            } else {
                TURN_NAME
            }
            .to_owned(),
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
            runner_id: start.run.map(|r| r.runner_id),
            run_id: start.run.map(|r| r.run_id),
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
            next_span_id: None,
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

    /// The next span recorded takes `id`.
    pub fn name_next_span(&mut self, id: SpanId) {
        self.next_span_id = Some(id);
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
        let id = self.next_span_id.take().unwrap_or_default();
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
            // A span is about 500 bytes and `Vec`'s first allocation holds
            // four; a stream waiting on its vendor has ended one (its
            // admission), so the first allocation holds one.
            if self.spans.capacity() == 0 {
                self.spans.reserve_exact(1);
            }
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
