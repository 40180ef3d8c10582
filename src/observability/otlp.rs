//! OTLP export of the traces (`observability.md`, "OpenTelemetry"): when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
//! is set, each stored trace's spans are sent as OTLP/HTTP protobuf with
//! `service.name=confer`; nothing is exported otherwise.
//!
//! The wire types are the OpenTelemetry project's own generated messages
//! (`opentelemetry-proto`), filled from the spans the turn recorded, with
//! their ids and times as stored; the SDK's tracer would make spans of its
//! own instead. A turn never waits for the export: a stored trace is put
//! on a bounded queue (a full queue drops it, counted in
//! `confer_otel_dropped_spans_total`) and one task sends batches.

use std::time::Duration;

use confer_actors::{Span, SpanKind, SpanStatus, TraceRecord};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{self as otel, ResourceSpans, ScopeSpans, status};
use prost::Message;
use tokio::sync::mpsc;

use super::metrics::OTEL_DROPPED;
use crate::providers::client::VendorClient;

/// Traces waiting for export at most; past it they are dropped.
pub const QUEUE_TRACES: usize = 2048;
/// Traces sent per request at most.
const BATCH_TRACES: usize = 256;
/// How long a batch waits to fill.
const BATCH_WAIT: Duration = Duration::from_secs(1);

/// Where and how to export, from the standard OTel variables.
#[derive(Clone, Debug, PartialEq)]
pub struct OtlpTarget {
    /// The traces URL (`{endpoint}/v1/traces`, or the traces endpoint as given).
    pub url: String,
    /// `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`), sent with each request.
    pub headers: Vec<(String, String)>,
}

impl OtlpTarget {
    /// The target the environment names, if any.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let present = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let url = match present("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            Some(url) => url,
            None => format!(
                "{}/v1/traces",
                present("OTEL_EXPORTER_OTLP_ENDPOINT")?.trim_end_matches('/')
            ),
        };
        let headers = present("OTEL_EXPORTER_OTLP_HEADERS")
            .unwrap_or_default()
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .filter(|(k, _)| !k.is_empty())
            .collect();
        Some(Self { url, headers })
    }
}

/// The exporter's queue: [`OtlpExporter::offer`] never waits.
#[derive(Clone)]
pub struct OtlpExporter {
    queue: mpsc::Sender<TraceRecord>,
}

impl OtlpExporter {
    /// Starts the sending task on the current runtime.
    pub fn start(target: OtlpTarget, client: VendorClient) -> Self {
        let (queue, waiting) = mpsc::channel(QUEUE_TRACES);
        actix_web::rt::spawn(send_batches(target, client, waiting));
        Self { queue }
    }

    /// Queues a stored trace, or drops it when the queue is full.
    pub fn offer(&self, record: &TraceRecord) {
        if self.queue.try_send(record.clone()).is_err() {
            metrics::counter!(OTEL_DROPPED).increment(record.spans.len() as u64);
        }
    }
}

async fn send_batches(
    target: OtlpTarget,
    client: VendorClient,
    mut waiting: mpsc::Receiver<TraceRecord>,
) {
    let mut batch = Vec::with_capacity(BATCH_TRACES);
    loop {
        let Some(first) = waiting.recv().await else {
            return;
        };
        batch.push(first);
        let deadline = tokio::time::Instant::now() + BATCH_WAIT;
        while batch.len() < BATCH_TRACES {
            match tokio::time::timeout_at(deadline, waiting.recv()).await {
                Ok(Some(record)) => batch.push(record),
                Ok(None) | Err(_) => break,
            }
        }
        let spans: usize = batch.iter().map(|r| r.spans.len()).sum();
        let body = request_of(&batch).encode_to_vec();
        batch.clear();
        let mut request = client
            .get()
            .post(&target.url)
            .header("content-type", "application/x-protobuf")
            .body(body);
        for (name, value) in &target.headers {
            request = request.header(name, value);
        }
        match request.send().await {
            Ok(response) if response.status().is_success() => {}
            Ok(response) => {
                tracing::warn!(status = %response.status(), spans, "the OTLP collector refused spans");
                metrics::counter!(OTEL_DROPPED).increment(spans as u64);
            }
            Err(error) => {
                tracing::warn!(%error, spans, "sending spans to the OTLP collector failed");
                metrics::counter!(OTEL_DROPPED).increment(spans as u64);
            }
        }
    }
}

fn text(key: &str, value: impl Into<String>) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..KeyValue::default()
    }
}

/// The export request of `traces`: one resource (`service.name=confer`),
/// one scope, every span.
pub fn request_of(traces: &[TraceRecord]) -> ExportTraceServiceRequest {
    let spans = traces
        .iter()
        .flat_map(|record| record.spans.iter().map(move |s| span_of(record, s)))
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![text("service.name", "confer")],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "confer".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..InstrumentationScope::default()
                }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

/// The OTel id of a span: the last 8 bytes of its UUIDv7 (its random part).
pub fn span_id_bytes(id: &confer_actors::SpanId) -> Vec<u8> {
    id.as_bytes()[8..].to_vec()
}

fn span_of(record: &TraceRecord, span: &Span) -> otel::Span {
    let trace = &record.trace;
    let trace_id = hex::decode(&trace.otel_trace_id)
        .ok()
        .filter(|b| b.len() == 16)
        .unwrap_or_else(|| trace.id.as_bytes().to_vec());
    let nanos = |at: chrono::DateTime<chrono::Utc>| {
        u64::try_from(at.timestamp_nanos_opt().unwrap_or(0)).unwrap_or(0)
    };
    let kind = match span.kind {
        SpanKind::Turn => otel::span::SpanKind::Server,
        SpanKind::Llm | SpanKind::Resolver | SpanKind::Webhook | SpanKind::Mcp => {
            otel::span::SpanKind::Client
        }
        _ => otel::span::SpanKind::Internal,
    };
    let mut attributes = vec![
        text("confer.kind", kind_name(span.kind)),
        text("confer.trace_id", trace.id.to_string()),
        text("confer.thread_id", trace.thread_id.to_string()),
        text("confer.agent_id", trace.agent_id.to_string()),
    ];
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&span.attributes) {
        attributes.extend(map.into_iter().map(|(key, value)| KeyValue {
            key: format!("confer.{key}"),
            value: Some(AnyValue {
                value: Some(match value {
                    serde_json::Value::Bool(b) => any_value::Value::BoolValue(b),
                    serde_json::Value::Number(n) => match n.as_i64() {
                        Some(i) => any_value::Value::IntValue(i),
                        None => any_value::Value::DoubleValue(n.as_f64().unwrap_or(0.0)),
                    },
                    serde_json::Value::String(s) => any_value::Value::StringValue(s),
                    other => any_value::Value::StringValue(other.to_string()),
                }),
            }),
            ..KeyValue::default()
        }));
    }
    otel::Span {
        trace_id,
        span_id: span_id_bytes(&span.id),
        // A delegated turn's root hangs under its call's span (`agent-extras.md` §3).
        parent_span_id: span
            .parent_span_id
            .or(trace.parent_span_id)
            .as_ref()
            .map(span_id_bytes)
            .unwrap_or_default(),
        name: span.name.clone(),
        kind: kind as i32,
        start_time_unix_nano: nanos(span.started_at),
        end_time_unix_nano: nanos(span.ended_at),
        attributes,
        status: Some(otel::Status {
            message: span.error.clone().unwrap_or_default(),
            code: match span.status {
                SpanStatus::Ok => status::StatusCode::Ok,
                SpanStatus::Error => status::StatusCode::Error,
            } as i32,
        }),
        ..otel::Span::default()
    }
}

fn kind_name(kind: SpanKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_comes_from_the_standard_variables() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(OtlpTarget::from_env(env(&[])), None);
        assert_eq!(
            OtlpTarget::from_env(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "")])),
            None
        );
        let target = OtlpTarget::from_env(env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=a, api-key=b"),
        ]))
        .unwrap();
        assert_eq!(target.url, "http://collector:4318/v1/traces");
        assert_eq!(
            target.headers,
            [
                ("x-tenant".into(), "a".into()),
                ("api-key".into(), "b".into())
            ]
        );
        let direct = OtlpTarget::from_env(env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://other:4318/traces",
            ),
        ]))
        .unwrap();
        assert_eq!(direct.url, "http://other:4318/traces");
    }
}
