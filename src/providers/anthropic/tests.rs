//! The Messages wire format: recorded streams decoded at every split, and
//! the request body's shape.

use super::super::vendor::testing::{assert_split_invariant, decode_whole};
use super::*;
use confer_actors::codes;
use confer_actors::{
    CompactionBlock, ContextMessage, FinishReason, ModelEvent, ReasoningPiece, ToolCall,
};

/// The documented stream: text, ping, then a tool call in two fragments.
const TOOL_STREAM: &str = include_str!("../../../tests/fixtures/anthropic_tool_use.sse");
const TEXT_STREAM: &str = include_str!("../../../tests/fixtures/anthropic_text.sse");
/// Thinking, an unknown event, some text, then `error` after HTTP 200.
const THINKING_AND_ERROR: &str =
    include_str!("../../../tests/fixtures/anthropic_midstream_error.sse");

#[tokio::test]
async fn documented_streams_decode_the_same_at_every_split() {
    let events = decode_whole(TOOL_STREAM.as_bytes(), MessagesParser::default()).await;
    assert_eq!(
        events,
        [
            ModelEvent::Usage {
                input_tokens: Some(412),
                output_tokens: Some(1),
                cache_read_tokens: None,
                cache_write_tokens: None,
            },
            ModelEvent::Text("Let me check ☀.".into()),
            ModelEvent::ToolCallStart {
                index: 1,
                id: "toolu_01A".into(),
                name: "get_weather".into()
            },
            ModelEvent::ToolCallArguments {
                index: 1,
                fragment: "{\"city\": \"Pa".into()
            },
            ModelEvent::ToolCallArguments {
                index: 1,
                fragment: "ris\"}".into()
            },
            ModelEvent::Usage {
                input_tokens: None,
                output_tokens: Some(42),
                cache_read_tokens: None,
                cache_write_tokens: None,
            },
            ModelEvent::Finish(FinishReason::ToolCalls),
        ]
    );
    for body in [TOOL_STREAM, TEXT_STREAM, THINKING_AND_ERROR] {
        assert_split_invariant(body.as_bytes(), MessagesParser::default).await;
    }
}

#[tokio::test]
async fn thinking_is_kept_and_a_mid_stream_error_fails_the_turn() {
    let events = decode_whole(THINKING_AND_ERROR.as_bytes(), MessagesParser::default()).await;
    assert_eq!(
        events[1],
        ModelEvent::Reasoning {
            index: 0,
            piece: ReasoningPiece::Thinking("hmm".into())
        }
    );
    assert_eq!(
        events[2],
        ModelEvent::Reasoning {
            index: 0,
            piece: ReasoningPiece::Signature("sig".into())
        }
    );
    assert_eq!(events[3], ModelEvent::Text("Partial ".into()));
    assert!(
        matches!(events.last(), Some(ModelEvent::Error(e)) if e.code == codes::PROVIDER_UNAVAILABLE)
    );
    let cut = &TOOL_STREAM[..TOOL_STREAM.find("event: message_delta").unwrap()];
    let events = decode_whole(cut.as_bytes(), MessagesParser::default()).await;
    assert!(
        matches!(events.last(), Some(ModelEvent::Error(e)) if e.code == codes::PROVIDER_UNAVAILABLE)
    );
}

#[test]
fn thinking_goes_back_only_to_the_vendor_that_made_it() {
    let mut answer = ContextMessage::text(ContextRole::Assistant, "Hi.");
    answer.reasoning = vec![ReasoningBlock::Thinking {
        thinking: "t".into(),
        signature: "s".into(),
    }];
    let route = |provider: &str| ModelRoute {
        provider: provider.into(),
        model: "m".into(),
        external: true,
    };
    let request = |from: &str| ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: route(super::super::ANTHROPIC),
        system: String::new(),
        messages: std::sync::Arc::new(vec![
            ContextMessage::text(ContextRole::User, "Hello"),
            ContextMessage {
                reasoning_from: Some(from.into()),
                ..answer.clone()
            },
        ]),
        tools: Vec::new(),
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    };
    let ours = uncached_body(&request(super::super::ANTHROPIC), 100);
    assert_eq!(
        ours["messages"][1]["content"],
        json!([{"type": "thinking", "thinking": "t", "signature": "s"},
               {"type": "text", "text": "Hi."}])
    );
    let theirs = uncached_body(&request(super::super::OPENAI), 100);
    assert_eq!(
        theirs["messages"][1]["content"],
        json!([{"type": "text", "text": "Hi."}])
    );
}

#[test]
fn request_puts_tool_results_first_and_merges_turns() {
    let mut asks = ContextMessage::text(ContextRole::Assistant, "Checking.");
    asks.tool_calls = vec![ToolCall {
        id: "toolu_01A".into(),
        name: "get_weather".into(),
        arguments: json!({"city": "Paris"}),
        arguments_error: None,
    }];
    let request = ModelRequest {
        system: "You are terse.".into(),
        messages: std::sync::Arc::new(vec![
            ContextMessage::text(ContextRole::User, "Weather in Paris?"),
            asks,
            ContextMessage::tool_result("toolu_01A", "not executed: the user sent a new message"),
            ContextMessage::text(ContextRole::User, "Never mind."),
        ]),
        ..claude_request()
    };
    let body = uncached_body(&request, 1024);
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "You are terse."}])
    );
    assert_eq!(body["max_tokens"], 1024);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[1]["content"][1]["input"], json!({"city": "Paris"}));
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_01A");
    assert_eq!(
        messages[2]["content"][1],
        json!({"type": "text", "text": "Never mind."})
    );
}

#[test]
fn thinking_asks_for_its_budget_and_raises_max_tokens_above_it() {
    let mut request = ModelRequest {
        system: String::new(),
        messages: std::sync::Arc::new(vec![ContextMessage::text(ContextRole::User, "Why?")]),
        ..claude_request()
    };
    assert!(request_body(&request, 4096).get("thinking").is_none());
    let mut options = confer_actors::VendorOptions::default();
    options.anthropic.thinking_budget = Some(10_000);
    request.options = std::sync::Arc::new(options);
    let body = request_body(&request, 4096);
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 10_000})
    );
    assert_eq!(body["max_tokens"], 14_096);
    assert_eq!(request_body(&request, 32_000)["max_tokens"], 32_000);
}

/// The SDK's compaction fixture (vendor-protocols.md §1b).
const COMPACTION_STREAM: &str = include_str!("../../../tests/fixtures/anthropic_compaction.sse");

#[tokio::test]
async fn a_compaction_block_is_read_whole_and_a_failed_one_is_not_kept() {
    let events = decode_whole(COMPACTION_STREAM.as_bytes(), MessagesParser::default()).await;
    assert_eq!(
        events[1],
        ModelEvent::Compaction(CompactionBlock {
            summary: "Earlier conversation summarized.".into(),
            encrypted_content: Some("EpwBCkYIBxgCKkB/opaque+payload==".into()),
            native_to: Some(super::super::ANTHROPIC.into()),
            at: None,
            kept_from: None,
        })
    );
    assert_eq!(events[2], ModelEvent::Text("Hello there!".into()));
    assert_split_invariant(COMPACTION_STREAM.as_bytes(), MessagesParser::default).await;
    let failed = COMPACTION_STREAM.replace(
        r#""content":"Earlier conversation summarized.""#,
        r#""content":null"#,
    );
    let events = decode_whole(failed.as_bytes(), MessagesParser::default()).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, ModelEvent::Compaction(_))),
        "{events:?}"
    );
}

#[test]
fn a_compaction_goes_back_verbatim_here_and_a_summary_joins_the_system_prompt() {
    let request = |messages: Vec<ContextMessage>| ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: ModelRoute {
            provider: super::super::ANTHROPIC.into(),
            model: "m".into(),
            external: true,
        },
        system: "Be terse.".into(),
        messages: std::sync::Arc::new(messages),
        tools: Vec::new(),
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    };
    let compacted = |native_to: Option<&str>, text: &str| ContextMessage {
        compaction: Some(Box::new(CompactionBlock {
            summary: "S".into(),
            encrypted_content: native_to.map(|_| "E".into()),
            native_to: native_to.map(str::to_owned),
            at: None,
            kept_from: None,
        })),
        ..ContextMessage::text(ContextRole::Assistant, text)
    };
    let earlier = || {
        vec![
            ContextMessage::text(ContextRole::User, "long ago"),
            ContextMessage::text(ContextRole::Assistant, "old answer"),
        ]
    };
    // Its own block: everything is sent, the block first in its message.
    let mut native = earlier();
    native.extend([
        ContextMessage::text(ContextRole::User, "Hello"),
        compacted(Some(super::super::ANTHROPIC), "Hi."),
        ContextMessage::text(ContextRole::User, "and now?"),
    ]);
    let ours = uncached_body(&request(native), 100);
    assert_eq!(
        ours["system"],
        json!([{"type": "text", "text": "Be terse."}])
    );
    assert_eq!(ours["messages"].as_array().unwrap().len(), 5);
    assert_eq!(
        ours["messages"][3]["content"],
        json!([{"type": "compaction", "content": "S", "encrypted_content": "E"},
               {"type": "text", "text": "Hi."}])
    );
    // Confer's summary (or another vendor's block): the summary joins the
    // system prompt and what it stands for is left out.
    let mut summarized = earlier();
    summarized.extend([
        compacted(None, ""),
        ContextMessage::text(ContextRole::User, "Hello"),
    ]);
    let theirs = uncached_body(&request(summarized), 100);
    assert_eq!(
        theirs["system"],
        json!([{"type": "text", "text": "Be terse.\n\nSummary of the earlier conversation:\nS"}])
    );
    assert_eq!(
        theirs["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "Hello"}]}])
    );
}

/// A `text_delta` without a string `text`, or an event that is not JSON,
/// ends the call with `MODEL_ERROR`; unknown delta types still pass.
#[tokio::test]
async fn a_malformed_event_fails_the_call() {
    let delta = |delta: &str| {
        format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{delta}}}\n\n"
        )
    };
    let start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n";
    let stop = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    for bad in [
        delta("{\"type\":\"text_delta\"}"),
        delta("{\"type\":\"text_delta\",\"text\":5}"),
        delta("{\"type\":\"thinking_delta\",\"thinking\":[]}"),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\n\n"
            .to_owned(),
    ] {
        let body = format!(
            "{start}{}{bad}{}{stop}",
            delta("{\"type\":\"text_delta\",\"text\":\"Hello \"}"),
            delta("{\"type\":\"text_delta\",\"text\":\"world\"}"),
        );
        let events = decode_whole(body.as_bytes(), MessagesParser::default()).await;
        assert_eq!(events.len(), 3, "{bad}: {events:?}");
        assert_eq!(events[1], ModelEvent::Text("Hello ".into()));
        assert!(
            matches!(&events[2], ModelEvent::Error(e) if e.code == codes::MODEL_ERROR),
            "{bad}: {events:?}"
        );
    }
    let tolerated = format!(
        "{start}{}{}{}{stop}",
        delta("{\"type\":\"citations_delta\",\"citation\":{}}"),
        delta("{\"type\":\"text_delta\",\"text\":\"ok\",\"extra\":1}"),
        // Escapes make the text owned rather than borrowed.
        delta("{\"type\":\"text_delta\",\"text\":\" \\\"q\\\"\\u00e9\"}"),
    );
    let events = decode_whole(tolerated.as_bytes(), MessagesParser::default()).await;
    assert_eq!(events[1], ModelEvent::Text("ok".into()));
    assert_eq!(events[2], ModelEvent::Text(" \"q\"é".into()));
    assert_eq!(events[3], ModelEvent::Finish(FinishReason::Stop));
}

/// The request body without its prompt-cache breakpoints (`cache.rs` tests
/// those), for the tests of everything else.
fn uncached_body(request: &ModelRequest, max_tokens: u32) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut body = request_body(request, max_tokens);
    strip(&mut body);
    body
}

/// A request to `claude-sonnet-4-6` with nothing in it.
fn claude_request() -> ModelRequest {
    ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: ModelRoute {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-6".into(),
            external: true,
        },
        system: String::new(),
        messages: std::sync::Arc::new(Vec::new()),
        tools: vec![],
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    }
}
