//! Stream correctness (vendor-options.md): a malformed chunk fails the call
//! instead of leaving a hole in the stored answer, the wait for an answer to
//! start is bounded across retries, and `retry-after-ms` is honoured.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{done_of, error_of};
use crate::mock::{Reply, openai_answer, openai_chunk, openai_tool_call_raw};
use crate::vendors::VendorRig;

fn text_chunk(text: &str) -> String {
    openai_chunk(
        json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}]),
        Value::Null,
    )
}

#[tokio::test]
async fn a_malformed_chunk_ends_the_call_and_stores_no_partial_answer() {
    let rig = VendorRig::start().await;
    let thread = rig.thread("gpt-4.1", "").await;
    let body = [
        text_chunk("Hello "),
        // Cut JSON: the word in it would be missing from the answer.
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"big \n\n".to_owned(),
        text_chunk("world"),
        openai_chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            Value::Null,
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    rig.openai.push(Reply::stream(body));
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "MODEL_ERROR");
    assert_eq!(error["detail"], "the vendor sent a malformed stream chunk");
    let done = done_of(&frames);
    assert_eq!(done["ok"], false);
    assert_eq!(done["content"], "Hello ");
    let history = rig.api.history(&thread).await;
    assert_eq!(history.len(), 1, "only the user's message: {history:?}");
    assert_eq!(history[0]["role"], "user");
}

#[tokio::test]
async fn a_vendor_that_never_answers_times_out_across_retries() {
    let rig = VendorRig::start_with(&[
        ("CONFER_VENDOR_FIRST_BYTE_TIMEOUT_MS", "600"),
        // Each attempt alone would wait this long for its headers.
        ("CONFER_VENDOR_READ_TIMEOUT_MS", "3000"),
    ])
    .await;
    let thread = rig.thread("gpt-4.1", "").await;
    for _ in 0..3 {
        rig.openai.push(Reply::After(
            Duration::from_secs(30),
            Box::new(Reply::stream(crate::mock::fixture("openai_text.sse"))),
        ));
    }
    let started = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let took = started.elapsed();
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_TIMEOUT");
    assert_eq!(
        error["detail"],
        "the vendor did not start answering in time"
    );
    assert_eq!(done_of(&frames)["ok"], false);
    assert!(took >= Duration::from_millis(600), "{took:?}");
    // Retrying after each 3 s read timeout took over 9 s.
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn retry_after_ms_is_honoured() {
    // Without the vendor's hint the backoff would be 2 s or more.
    let rig = VendorRig::start_with(&[("CONFER_VENDOR_RETRY_BASE_MS", "2000")]).await;
    let thread = rig.thread("gpt-4.1", "").await;
    rig.openai
        .push(Reply::Status {
            status: 429,
            headers: vec![("retry-after-ms".into(), "300".into())],
            body: json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}})
                .to_string(),
        })
        .push(Reply::stream(crate::mock::fixture("openai_text.sse")));
    let started = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let took = started.elapsed();
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    assert_eq!(rig.openai.requests().len(), 2);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(1900), "{took:?}");
}

/// The model's arguments, cut short: not JSON.
const BROKEN_ARGUMENTS: &str = "{\"city\": \"Par";

/// A client-side call whose arguments do not parse reaches the client as
/// the raw text with `argumentsError`, and goes back to the vendor as that
/// same text (not as a JSON string of it).
#[tokio::test]
async fn invalid_tool_arguments_reach_the_client_raw_and_go_back_unchanged() {
    let rig = VendorRig::start().await;
    let thread = rig.thread("gpt-4.1", "").await;
    rig.openai.push(Reply::stream(openai_tool_call_raw(
        "call_A",
        "get_weather",
        BROKEN_ARGUMENTS,
    )));
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object"}}]);
    let frames = rig
        .api
        .say(&thread, json!({"content": "Weather?", "tools": tools}))
        .await;
    let expected = json!({"id": "call_A", "name": "get_weather",
        "arguments": BROKEN_ARGUMENTS, "argumentsError": "invalid JSON"});
    let call = frames.iter().find(|f| f.event == "tool_call").unwrap();
    assert_eq!(call.data["tool"], expected);
    let action = frames
        .iter()
        .find(|f| f.event == "requires_action")
        .unwrap();
    assert_eq!(action.data["toolCalls"][0], expected);

    rig.openai
        .push(Reply::stream(crate::mock::fixture("openai_text.sse")));
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "", "toolResults": [{"toolCallId": "call_A", "output": "bad call"}]}),
        )
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let messages = &rig.openai.requests()[1].body["messages"];
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"],
        BROKEN_ARGUMENTS
    );
    let context = rig
        .api
        .get(&format!("/api/threads/{thread}/context"))
        .await
        .expect(200);
    let call = context["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_call")
        .unwrap();
    assert_eq!(call["arguments"], BROKEN_ARGUMENTS);
    assert_eq!(call["arguments_error"], "invalid JSON");
}

/// A server-side call whose arguments do not parse is not run: its result
/// to the model is the error, and no `tool_executing` is sent.
#[tokio::test]
async fn a_server_tool_with_invalid_arguments_is_not_run() {
    let rig = VendorRig::start().await;
    let agent = rig
        .api
        .agent_with(json!({"name": "Planner", "defaultModel": "gpt-4.1"}))
        .await;
    rig.api
        .put(
            &format!("/api/agents/{agent}/plan"),
            json!({"enabled": true}),
        )
        .await
        .expect(200);
    let thread = rig.api.thread(&agent, json!({})).await;
    rig.openai
        .push(Reply::stream(openai_tool_call_raw(
            "call_plan",
            "plan_create",
            BROKEN_ARGUMENTS,
        )))
        .push(Reply::stream(openai_answer("Sorry.", 20)));
    let frames = rig.api.say(&thread, json!({"content": "Plan it"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    assert!(!frames.iter().any(|f| f.event == "tool_executing"));
    let result = frames.iter().find(|f| f.event == "tool_result").unwrap();
    assert_eq!(
        result.data["result"],
        json!({"error": "arguments are not valid JSON"})
    );
    let plans = rig
        .api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(plans["plans"], json!([]), "{plans}");
    let messages = &rig.openai.requests()[1].body["messages"];
    let answered = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(
        answered["content"],
        "{\"error\":\"arguments are not valid JSON\"}"
    );
}
