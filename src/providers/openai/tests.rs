//! The Chat Completions wire format: recorded streams decoded, and the
//! request body's shape.

use super::super::vendor::testing::{assert_split_invariant, decode_whole};
use super::*;
use confer_actors::codes;
use confer_actors::{ContextMessage, ToolCall, ToolDefinition};

const TEXT_STREAM: &str = include_str!("../../../tests/fixtures/openai_text.sse");
const TOOL_STREAM: &str = include_str!("../../../tests/fixtures/openai_tool_calls.sse");
const CUT_STREAM: &str = include_str!("../../../tests/fixtures/openai_cut.sse");
const ERROR_STREAM: &str = include_str!("../../../tests/fixtures/openai_midstream_error.sse");

#[tokio::test]
async fn every_recorded_stream_decodes_the_same_at_every_split() {
    for body in [TEXT_STREAM, TOOL_STREAM, CUT_STREAM, ERROR_STREAM] {
        assert_split_invariant(body.as_bytes(), ChatParser::default).await;
        let crlf = body.replace('\n', "\r\n");
        assert_split_invariant(crlf.as_bytes(), ChatParser::default).await;
    }
}

#[tokio::test]
async fn bytes_after_the_end_are_not_read_and_bad_bytes_before_it_fail_the_call() {
    let whole = decode_whole(TEXT_STREAM.as_bytes(), ChatParser::default()).await;
    let mut trailing = TEXT_STREAM.as_bytes().to_vec();
    trailing.extend_from_slice(b"data: \xff\xfe\n\n");
    assert_eq!(decode_whole(&trailing, ChatParser::default()).await, whole);
    let broken = b"data: {\"choices\":[{\"delta\":{\"content\":\"a\xff\"}}]}\n\n";
    assert_eq!(
        decode_whole(broken, ChatParser::default()).await,
        [crate::providers::vendor::malformed()]
    );
}

#[tokio::test]
async fn text_stream_gives_text_usage_and_finish() {
    let events = decode_whole(TEXT_STREAM.as_bytes(), ChatParser::default()).await;
    assert_eq!(
        events,
        [
            ModelEvent::Text("Héllo".into()),
            ModelEvent::Text(" wörld ✓".into()),
            ModelEvent::Usage {
                input_tokens: Some(12),
                output_tokens: Some(4),
                cache_read_tokens: None,
                cache_write_tokens: None,
            },
            ModelEvent::Finish(FinishReason::Stop),
        ]
    );
    assert_split_invariant(TEXT_STREAM.as_bytes(), ChatParser::default).await;
    assert_split_invariant(TOOL_STREAM.as_bytes(), ChatParser::default).await;
    let crlf = TEXT_STREAM.replace('\n', "\r\n");
    assert_split_invariant(crlf.as_bytes(), ChatParser::default).await;
    assert_eq!(
        decode_whole(crlf.as_bytes(), ChatParser::default()).await,
        events
    );
}

#[tokio::test]
async fn interleaved_tool_calls_are_keyed_by_index() {
    let events = decode_whole(TOOL_STREAM.as_bytes(), ChatParser::default()).await;
    assert_eq!(
        events[0],
        ModelEvent::ToolCallStart {
            index: 0,
            id: "call_A".into(),
            name: "get_weather".into()
        }
    );
    assert_eq!(
        events[1],
        ModelEvent::ToolCallStart {
            index: 1,
            id: "call_B".into(),
            name: "get_time".into()
        }
    );
    let args: String = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCallArguments { index: 0, fragment } => Some(fragment.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(args, "{\"city\": \"Paris\"}");
    assert_eq!(
        events.last(),
        Some(&ModelEvent::Finish(FinishReason::ToolCalls))
    );
}

#[tokio::test]
async fn tolerant_of_missing_done_usage_and_role_but_not_truncation() {
    let no_done = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n";
    let events = decode_whole(no_done.as_bytes(), ChatParser::default()).await;
    assert_eq!(
        events,
        [
            ModelEvent::Text("hi".into()),
            ModelEvent::Finish(FinishReason::Stop)
        ]
    );
    let truncated_body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n";
    let events = decode_whole(truncated_body.as_bytes(), ChatParser::default()).await;
    assert!(
        matches!(events.last(), Some(ModelEvent::Error(e)) if e.code == codes::PROVIDER_UNAVAILABLE)
    );
    let in_stream_error = "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n";
    let events = decode_whole(in_stream_error.as_bytes(), ChatParser::default()).await;
    assert!(matches!(&events[..], [ModelEvent::Error(e)] if e.detail == "boom"));
    // Ollama: a whole call in one chunk, and "stop" despite the call.
    let ollama = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"call_x\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let events = decode_whole(ollama.as_bytes(), ChatParser::default()).await;
    assert_eq!(
        events[0],
        ModelEvent::ToolCallStart {
            index: 0,
            id: "call_x".into(),
            name: "f".into()
        }
    );
    assert_eq!(
        events[1],
        ModelEvent::ToolCallArguments {
            index: 0,
            fragment: "{\"a\":1}".into()
        }
    );
}

#[test]
fn another_vendors_compaction_becomes_a_summary_after_the_system_prompt() {
    let mut compacted = ContextMessage::text(ContextRole::Assistant, "Hi.");
    compacted.compaction = Some(Box::new(confer_actors::CompactionBlock {
        summary: "S".into(),
        encrypted_content: Some("opaque".into()),
        native_to: Some("anthropic".into()),
        at: None,
        kept_from: None,
    }));
    let request = ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: ModelRoute {
            provider: "openai".into(),
            model: "gpt-4.1".into(),
            external: true,
        },
        system: "Be terse.".into(),
        messages: std::sync::Arc::new(vec![
            ContextMessage::text(ContextRole::User, "long ago"),
            ContextMessage::text(ContextRole::User, "Hello"),
            compacted,
            ContextMessage::text(ContextRole::User, "and now?"),
        ]),
        tools: Vec::new(),
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    };
    assert_eq!(
        request_body(&request)["messages"],
        json!([
            {"role": "system", "content": "Be terse."},
            {"role": "system", "content": "Summary of the earlier conversation:\nS"},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "and now?"},
        ])
    );
}

#[test]
fn request_carries_system_tools_and_tool_turns() {
    let mut asks = ContextMessage::text(ContextRole::Assistant, "");
    asks.tool_calls = vec![ToolCall {
        id: "call_A".into(),
        name: "f".into(),
        arguments: json!({"x": 1}),
        arguments_error: None,
    }];
    let request = ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: ModelRoute {
            provider: "openai".into(),
            model: "gpt-4.1".into(),
            external: true,
        },
        system: "Be terse.".into(),
        messages: std::sync::Arc::new(vec![
            ContextMessage::text(ContextRole::User, "hi"),
            asks,
            ContextMessage::tool_result("call_A", "42"),
        ]),
        tools: vec![ToolDefinition {
            name: "f".into(),
            description: None,
            parameters: json!({"type": "object"}),
        }],
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    };
    let body = request_body(&request);
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "Be terse."})
    );
    assert_eq!(body["messages"][2]["content"], Value::Null);
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"x\":1}"
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_A", "content": "42"})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "f");
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

/// A chunk that is not JSON, or whose known field has the wrong type, ends
/// the call with `MODEL_ERROR` instead of being skipped (the answer would
/// miss a word); unknown fields and data-less events are still fine.
#[tokio::test]
async fn a_malformed_chunk_fails_the_call() {
    let chunk = |content: &str| {
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{content}}}}}]}}\n\n")
    };
    for bad in [
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"wor\n\n".to_owned(),
        chunk("42"),
        "data: {\"choices\":{}}\n\n".to_owned(),
        "data: [1,2]\n\n".to_owned(),
        // serde would read an empty list as a chunk with every field absent.
        "data: []\n\n".to_owned(),
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":\"x\"}}]}\n\n".to_owned(),
    ] {
        let body = format!(
            "{}{bad}{}{}data: [DONE]\n\n",
            chunk("\"Hello \""),
            chunk("\"world\""),
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        );
        let events = decode_whole(body.as_bytes(), ChatParser::default()).await;
        assert_eq!(events.len(), 2, "{bad}: {events:?}");
        assert_eq!(events[0], ModelEvent::Text("Hello ".into()));
        assert!(
            matches!(&events[1], ModelEvent::Error(e) if e.code == codes::MODEL_ERROR
                && e.detail == "the vendor sent a malformed stream chunk"),
            "{bad}: {events:?}"
        );
    }
    let tolerated = concat!(
        "event: ping\ndata:\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\",\"extra\":{\"a\":1}},\"logprobs\":7,\"finish_reason\":\"stop\"}],\"x\":[]}\n\n",
        // Escapes make the text owned rather than borrowed; `usage` that is
        // not an object is ignored.
        "data: {\"choices\":[{\"delta\":{\"content\":\" \\\"q\\\"\\u00e9\"}}],\"usage\":7}\n\n",
        "data: [DONE]\n\n"
    );
    let events = decode_whole(tolerated.as_bytes(), ChatParser::default()).await;
    assert_eq!(
        events,
        [
            ModelEvent::Text("ok".into()),
            ModelEvent::Text(" \"q\"é".into()),
            ModelEvent::Finish(FinishReason::Stop)
        ]
    );
}
