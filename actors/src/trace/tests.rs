//! The recorder, the running traces and the trace-id helpers.
use std::sync::Arc;

use super::*;
use crate::ids::{AgentId, OrgId, ThreadId};

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
            run: None,
            link: None,
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
