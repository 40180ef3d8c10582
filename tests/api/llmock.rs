//! Confer against llmock, a third-party vendor mock from PyPI whose
//! scenario API breaks a vendor on cue (vendor-options.md, "Stream
//! correctness"): a malformed chunk, tool arguments that are not JSON, a
//! 429 whose `retry-after-ms` is shorter than its `retry-after`, a vendor
//! that never answers, one that stalls mid-answer, a dropped connection,
//! and 529s answered by a fallback model. Each of the first four was a defect before its fix.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Api, Server, done_of, error_of};
use crate::third_party::ThirdPartyMock;
use crate::vendors::on_vendors;

/// llmock's answer in its `static` style.
fn answer_of(model: &str) -> String {
    format!("Mock response from {model}.")
}

/// A server whose two vendors are one llmock (`env` added).
struct LlmockRig {
    mock: ThirdPartyMock,
    _server: Server,
    api: Api,
}

impl LlmockRig {
    fn start(env: &[(&str, &str)]) -> Self {
        let mock = ThirdPartyMock::llmock();
        let server = Server::start_with(on_vendors(
            &format!("{}/anthropic", mock.base),
            &format!("{}/v1", mock.base),
            env,
        ));
        let api = server.admin();
        Self {
            mock,
            _server: server,
            api,
        }
    }

    async fn thread(&self, model: &str) -> String {
        let agent = self
            .api
            .agent_with(json!({"name": "L", "defaultModel": model}))
            .await;
        self.api.thread(&agent, json!({})).await
    }

    /// The assistant messages the thread's history lists.
    async fn answers(&self, thread: &str) -> Vec<Value> {
        let page = self
            .api
            .get(&format!("/api/threads/{thread}/messages"))
            .await
            .expect(200);
        page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .cloned()
            .collect()
    }
}

/// A chunk cut in half mid-answer ends the call as `MODEL_ERROR` on both
/// vendors and stores no answer (before the fix the chunk was skipped and
/// the stored answer missed a word).
#[tokio::test]
async fn a_malformed_chunk_fails_the_call_and_stores_no_partial_answer() {
    let rig = LlmockRig::start(&[]);
    // Chunk 2 is the answer's second word on both wire formats (Anthropic:
    // message_start, content_block_start, ping, then the words).
    for (model, after) in [("gpt-4.1", 2), ("claude-sonnet-4-6", 4)] {
        let thread = rig.thread(model).await;
        rig.mock
            .scenario(json!([{"type": "stream_fault", "kind": "malformed", "after_chunks": after}]))
            .await;
        let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
        let error = error_of(&frames);
        assert_eq!(error["code"], "MODEL_ERROR", "{model}");
        assert_eq!(error["detail"], "the vendor sent a malformed stream chunk");
        let done = done_of(&frames);
        assert_eq!(done["ok"], false);
        assert_eq!(
            done["content"], "Mock ",
            "{model}: what came before the chunk"
        );
        assert!(rig.answers(&thread).await.is_empty(), "{model}");

        // The next send on the same thread is whole.
        let frames = rig.api.say(&thread, json!({"content": "again"})).await;
        assert_eq!(done_of(&frames)["content"], answer_of(model));
    }
}

/// OpenAI tool arguments that are not JSON reach the client raw with
/// `argumentsError`, and go back to the vendor unchanged in
/// `function.arguments` (before the fix they were JSON-encoded again).
#[tokio::test]
async fn malformed_tool_arguments_are_flagged_and_go_back_raw() {
    let rig = LlmockRig::start(&[]);
    let thread = rig.thread("gpt-4.1").await;
    rig.mock
        .scenario(json!([{"type": "tool_fault", "kind": "malformed_arguments"}]))
        .await;
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}}}]);
    let frames = rig
        .api
        .say(&thread, json!({"content": "Weather?", "tools": tools}))
        .await;
    let call = frames
        .iter()
        .find(|f| f.event == "tool_call")
        .expect("a tool_call event")
        .data["tool"]
        .clone();
    assert_eq!(call["argumentsError"], "invalid JSON");
    let raw = call["arguments"].as_str().expect("the raw text").to_owned();
    assert!(serde_json::from_str::<Value>(&raw).is_err(), "{raw}");
    assert_eq!(done_of(&frames)["requiresAction"], true);

    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "", "toolResults": [{"toolCallId": call["id"], "output": "bad call"}]}),
        )
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let requests = rig.mock.get("/_llmock/requests").await;
    let last = requests["requests"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let sent = &last["body"]["messages"][1]["tool_calls"][0]["function"]["arguments"];
    assert_eq!(sent, &Value::String(raw));
}

/// A 429 with `retry-after: 1` and `retry-after-ms: 300`: Confer waits the
/// 300 ms, within a 600 ms cap on waits (before the fix it read the
/// seconds, found them over the cap and gave up), and llmock's verdict
/// finds no retry made before the vendor's time.
#[tokio::test]
async fn retry_after_ms_is_honoured() {
    let rig = LlmockRig::start(&[("CONFER_VENDOR_RETRY_MAX_MS", "600")]);
    let thread = rig.thread("gpt-4.1").await;
    rig.mock
        .scenario(json!([{"type": "fail", "status": 429, "retry_after": 0.3}]))
        .await;
    let sent = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    assert_eq!(
        done_of(&frames)["content"],
        answer_of("gpt-4.1"),
        "{frames:?}"
    );
    assert!(sent.elapsed() >= Duration::from_millis(300));
    let verdict = rig.mock.get("/_llmock/verdict").await;
    let findings = verdict["findings"].to_string();
    assert!(!findings.contains("retry_after_ignored"), "{verdict:#}");
    assert_eq!(verdict["errors"], 0, "{verdict:#}");
}

/// A vendor that holds its answer is given up on when the first-byte
/// budget runs out: `PROVIDER_TIMEOUT`, nothing stored. The read timeout
/// stays at its default (2 minutes) so only the budget can end the wait:
/// before the fix it was retried for about six minutes.
#[tokio::test]
async fn a_silent_vendor_is_bounded_by_the_first_byte_budget() {
    let rig = LlmockRig::start(&[("CONFER_VENDOR_FIRST_BYTE_TIMEOUT_MS", "1500")]);
    let thread = rig.thread("claude-sonnet-4-6").await;
    rig.mock
        .scenario(json!([{"type": "delay", "seconds": 600, "times": null}]))
        .await;
    let sent = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    assert_eq!(error_of(&frames)["code"], "PROVIDER_TIMEOUT");
    // A sanity bound only: the budget is 1.5 s, the old behaviour minutes.
    assert!(
        sent.elapsed() < Duration::from_secs(30),
        "{:?}",
        sent.elapsed()
    );
    assert!(rig.answers(&thread).await.is_empty());
}

/// A vendor that stalls mid-answer is given up on when the read timeout
/// passes (`PROVIDER_TIMEOUT`); a connection dropped mid-answer is
/// `PROVIDER_UNAVAILABLE`. Neither stores a partial answer.
#[tokio::test]
async fn stalled_and_dropped_answers_store_nothing() {
    let rig = LlmockRig::start(&[("CONFER_VENDOR_READ_TIMEOUT_MS", "1000")]);
    let thread = rig.thread("claude-sonnet-4-6").await;
    rig.mock
        .scenario(
            json!([{"type": "stream_fault", "kind": "stall", "after_chunks": 4,
                          "stall_seconds": 30}]),
        )
        .await;
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_TIMEOUT");
    assert_eq!(error["detail"], "the vendor's stream stalled");
    assert_eq!(done_of(&frames)["content"], "Mock ");

    rig.mock
        .scenario(json!([{"type": "stream_fault", "kind": "disconnect", "after_chunks": 4}]))
        .await;
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    assert_eq!(error_of(&frames)["code"], "PROVIDER_UNAVAILABLE");
    assert_eq!(done_of(&frames)["ok"], false);
    assert!(rig.answers(&thread).await.is_empty());
}

/// 529s from vendor A past the retries: the send's fallback model (vendor
/// B, on the same mock) answers in the same stream.
#[tokio::test]
async fn overloaded_anthropic_falls_back_to_openai() {
    let rig = LlmockRig::start(&[("CONFER_VENDOR_MAX_RETRIES", "1")]);
    let thread = rig.thread("claude-sonnet-4-6").await;
    rig.mock
        .scenario(
            json!([{"type": "fail", "status": 529, "retry_after": 0, "times": 2,
                          "match": {"provider": "anthropic"}}]),
        )
        .await;
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "hi", "anthropicOverrides": {"fallbackModels": ["gpt-4.1"]}}),
        )
        .await;
    assert!(frames.iter().all(|f| f.event != "error"), "{frames:?}");
    let done = done_of(&frames);
    assert_eq!(done["content"], answer_of("gpt-4.1"));
    assert_eq!(done["usage"]["model"], "gpt-4.1");
    let requests = rig.mock.get("/_llmock/requests").await;
    let providers: Vec<&str> = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["anthropic", "anthropic", "openai"]);
}
