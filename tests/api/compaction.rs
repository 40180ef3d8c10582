//! Native compaction with vendor A (`compaction.md`) against the mock
//! Anthropic vendor: the request asks for it, the block is kept (also over
//! a restart) and sent back byte for byte, a pause ends the turn until an
//! empty send continues it, usage sums the iterations, and a request the
//! vendor refuses for its length is `CONTEXT_TOO_LONG`.

use serde_json::{Value, json};

use crate::common::{Api, Server, done_of};
use crate::mock::{
    Mock, Reply, compaction_with_iterations, fixture, paused_compaction, server_on_mock,
};

async fn rig() -> (Mock, Server) {
    server_on_mock("ANTHROPIC", "/anthropic").await
}

async fn compacting_thread(api: &Api, settings: Value) -> (String, String) {
    let agent = api
        .agent_with(json!({"name": "Long", "defaultModel": "claude-sonnet-4-6"}))
        .await;
    api.put(&format!("/api/agents/{agent}/compaction"), settings)
        .await
        .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    (agent, thread)
}

#[tokio::test]
async fn a_native_compaction_is_asked_for_kept_and_sent_back_verbatim() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let (_, thread) = compacting_thread(
        &api,
        json!({"enabled": true, "vendorATriggerTokens": 60000, "vendorAInstructions": "Keep decisions."}),
    )
    .await;
    vendor.push(Reply::stream(compaction_with_iterations()));
    let frames = api.say(&thread, json!({"content": "Hello"})).await;
    let asked = &vendor.requests()[0];
    assert_eq!(asked.header("anthropic-beta"), Some("compact-2026-01-12"));
    assert_eq!(
        asked.body["context_management"],
        json!({"edits": [{"type": "compact_20260112",
                          "trigger": {"type": "input_tokens", "value": 60000},
                          "pause_after_compaction": false,
                          "instructions": "Keep decisions."}]})
    );
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(names, ["meta", "compaction", "token", "done"]);
    assert_eq!(
        frames[1].data,
        json!({"method": "native", "summary": "Earlier conversation summarized.",
               "inputTokensBefore": null})
    );
    let done = done_of(&frames);
    assert_eq!(done["content"], "Hello there!");
    // Usage sums the iterations: 1800 + 100 (cache read) + 23 in, 35 + 8 out.
    assert_eq!(done["usage"]["inputTokens"], 1923);
    assert_eq!(done["usage"]["outputTokens"], 43);
    // The record says the vendor compacted, with its iterations as reported.
    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let record = &usage["records"][0];
    assert_eq!(record["compacted"], true, "{record}");
    assert_eq!(record["purpose"], "answer");
    assert_eq!(record["input_tokens"], 1923);
    assert_eq!(record["iterations"][0]["type"], "compaction");
    assert_eq!(record["iterations"][1]["input_tokens"], 23);

    // After a restart the block is still there and goes back byte for byte.
    let server = server.kill_and_restart();
    let api = server.admin();
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    api.say(&thread, json!({"content": "and now?"})).await;
    let next = &vendor.requests()[1];
    assert_eq!(
        next.body["messages"][1]["content"][0],
        json!({"type": "compaction", "content": "Earlier conversation summarized.",
               "encrypted_content": "EpwBCkYIBxgCKkB/opaque+payload=="})
    );
    assert!(
        next.raw_body
            .contains(r#""encrypted_content":"EpwBCkYIBxgCKkB/opaque+payload==""#),
        "byte-identical"
    );
    // The listed history keeps every message.
    let history: Vec<String> = api
        .history(&thread)
        .await
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(history.len(), 4, "{history:?}");
    // The context endpoint shows the block, not its encrypted bytes.
    let context = api
        .get(&format!("/api/threads/{thread}/context"))
        .await
        .expect(200);
    let text = context.to_string();
    assert!(!text.contains("opaque+payload"), "{text}");
    let blocks = context["blocks"].as_array().unwrap();
    let block = blocks.iter().find(|b| b["type"] == "compaction").unwrap();
    assert_eq!(
        *block,
        json!({"type": "compaction", "turn": 1, "method": "native",
               "summary": "Earlier conversation summarized.", "encrypted": true})
    );
    let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "user_text",
            "compaction",
            "assistant_text",
            "user_text",
            "assistant_text"
        ]
    );
    assert_eq!(blocks[3]["turn"], 2);
    assert!(context["compacted_at"].is_string());
    assert!(context["estimated_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_pause_after_compaction_ends_the_turn_until_an_empty_send_continues() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let (_, thread) =
        compacting_thread(&api, json!({"enabled": true, "vendorAPauseAfter": true})).await;
    // An empty send before any pause is refused.
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": ""}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");

    vendor.push(Reply::stream(paused_compaction()));
    let frames = api.say(&thread, json!({"content": "Long story"})).await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["paused"], "compaction");
    assert_eq!(done["content"], "");
    assert!(done.get("messageId").is_none(), "{done}");
    assert_eq!(api.history(&thread).await.len(), 1, "no message stored");

    // The empty send continues from the compacted context.
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    let frames = api.say(&thread, json!({"content": ""})).await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert!(done["messageId"].is_string());
    let messages = vendor.requests()[1].body["messages"].clone();
    let last = messages.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"][0]["type"], "compaction");
    // Not paused any more: another empty send is refused.
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": ""}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_request_refused_for_its_length_is_context_too_long() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Huge", "defaultModel": "claude-sonnet-4-6"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error",
               "message": "prompt is too long: 210000 tokens > 200000 maximum"}}),
    ));
    let frames = api.say(&thread, json!({"content": "all of it"})).await;
    let error = frames.iter().find(|f| f.event == "error").unwrap();
    assert_eq!(error.data["code"], "CONTEXT_TOO_LONG");
    let detail = error.data["detail"].as_str().unwrap();
    assert!(detail.contains("enable compaction"), "{detail}");
    assert_eq!(done_of(&frames)["ok"], false);

    api.put(
        &format!("/api/agents/{agent}/compaction"),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    vendor.push(Reply::json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error",
               "message": "prompt is too long: 210000 tokens > 200000 maximum"}}),
    ));
    let frames = api.say(&thread, json!({"content": "again"})).await;
    let error = frames.iter().find(|f| f.event == "error").unwrap();
    let detail = error.data["detail"].as_str().unwrap();
    assert!(detail.contains("lower its trigger"), "{detail}");
}

#[tokio::test]
async fn a_thread_driven_past_the_trigger_is_compacted_by_the_vendor() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let (_, thread) = compacting_thread(
        &api,
        json!({"enabled": true, "vendorATriggerTokens": 50000}),
    )
    .await;
    // Under the trigger: a plain answer.
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    let frames = api.say(&thread, json!({"content": "short"})).await;
    assert!(!frames.iter().any(|f| f.event == "compaction"));
    // Past it (about 52,000 tokens of input): the vendor compacts on its
    // own, whatever was scripted.
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    let frames = api
        .say(&thread, json!({"content": "lorem ".repeat(35_000)}))
        .await;
    let events: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    let compaction = events
        .iter()
        .position(|e| *e == "compaction")
        .expect("compacted");
    assert!(compaction < events.iter().position(|e| *e == "token").unwrap());
    // The next request carries the block with its opaque payload; the
    // vendor reads from the block on, so it does not compact again.
    let frames = api.say(&thread, json!({"content": "and then?"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    assert!(!frames.iter().any(|f| f.event == "compaction"));
    let last = vendor.requests().last().unwrap().raw_body.clone();
    assert!(
        last.contains("\"type\":\"compaction\""),
        "{}",
        &last[..400.min(last.len())]
    );
    assert!(last.contains("encrypted_content"));
}
