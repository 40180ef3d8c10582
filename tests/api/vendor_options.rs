//! A send's vendor options (vendor-options.md): validation of
//! `anthropicOverrides` / `openaiOverrides`, the cache settings they change,
//! extended thinking (asked, kept with its signature, sent back, streamed
//! only when asked) and fallback models within one stream.

use serde_json::{Value, json};

use crate::common::{done_of, error_of, events_of};
use crate::mock::{Reply, fixture, openai_answer};
use crate::vendors::VendorRig;

fn path(thread: &str) -> String {
    format!("/api/threads/{thread}/messages")
}

/// Both objects are checked on every send, whatever the model: an unknown
/// key is 400 naming it, a value out of range 422 naming the field, and a
/// refused send stores nothing and calls no vendor.
#[tokio::test]
async fn overrides_are_validated_on_every_send_whatever_the_model() {
    let rig = VendorRig::start().await;
    let gpt = rig.thread("gpt-4.1", "").await;
    let detail = rig
        .api
        .post(
            &path(&gpt),
            json!({"content": "hi", "anthropicOverrides": {"cache": {"tll": "1h"}}}),
        )
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(
        detail.contains("anthropicOverrides.cache") && detail.contains("tll"),
        "{detail}"
    );
    let detail = rig
        .api
        .post(
            &path(&gpt),
            json!({"content": "hi", "openaiOverrides": {"cacheKey": "k"}}),
        )
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("cacheKey"), "{detail}");
    for (body, field) in [
        (
            json!({"thinking": {"enabled": true, "budgetTokens": 100}}),
            "anthropicOverrides.thinking.budgetTokens",
        ),
        (
            json!({"cache": {"ttl": "1d"}}),
            "anthropicOverrides.cache.ttl",
        ),
        (
            json!({"fallbackModels": [""]}),
            "anthropicOverrides.fallbackModels[0]",
        ),
    ] {
        let detail = rig
            .api
            .post(
                &path(&gpt),
                json!({"content": "hi", "anthropicOverrides": body}),
            )
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{detail}");
    }
    let history = rig.api.get(&path(&gpt)).await.expect(200);
    assert_eq!(history["total"], 0);
    assert!(rig.openai.requests().is_empty());
}

/// `anthropicOverrides.cache` turns the breakpoints off or makes them last
/// an hour without the tools'; `openaiOverrides` replaces the derived cache
/// key and identifier, or turns them off; neither touches the other vendor.
#[tokio::test]
async fn cache_overrides_change_what_each_vendor_is_sent() {
    let rig = VendorRig::start().await;
    let claude = rig.thread("claude-sonnet-4-6", "Be terse.").await;
    let tools = json!([{"name": "a", "parameters": {"type": "object"}}]);
    for cache in [
        json!({"disabled": true}),
        json!({"ttl": "1h", "cacheTools": false}),
    ] {
        rig.anthropic
            .push(Reply::stream(fixture("anthropic_text.sse")));
        let frames = rig
            .api
            .say(
                &claude,
                json!({"content": "hi", "tools": tools, "anthropicOverrides": {"cache": cache},
                       "openaiOverrides": {"disabled": true}}),
            )
            .await;
        assert_eq!(done_of(&frames)["ok"], true);
    }
    let requests = rig.anthropic.requests();
    assert!(!requests[0].body.to_string().contains("cache_control"));
    let hour = json!({"type": "ephemeral", "ttl": "1h"});
    assert_eq!(requests[1].body["system"][0]["cache_control"], hour);
    assert_eq!(requests[1].body["tools"][0].get("cache_control"), None);
    assert_eq!(
        requests[1].body["messages"][2]["content"][0]["cache_control"],
        hour
    );

    let gpt = rig.thread("gpt-4.1", "").await;
    for overrides in [
        json!({"promptCacheKey": "tenant-7", "safetyIdentifier": "user-42"}),
        json!({"disabled": true}),
    ] {
        rig.openai.push(Reply::stream(openai_answer("Hi.", 10)));
        let frames = rig
            .api
            .say(
                &gpt,
                json!({"content": "hi", "openaiOverrides": overrides,
                       "anthropicOverrides": {"cache": {"disabled": true}}}),
            )
            .await;
        assert_eq!(done_of(&frames)["ok"], true);
    }
    let requests = rig.openai.requests();
    assert_eq!(requests[0].body["prompt_cache_key"], "tenant-7");
    assert_eq!(requests[0].body["safety_identifier"], "user-42");
    assert_eq!(requests[1].body.get("prompt_cache_key"), None);
    assert_eq!(requests[1].body.get("safety_identifier"), None);
}

const THOUGHT: &str = "The user wants the weather; I should call get_weather for Paris ✓.";
const SIGNATURE: &str = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds/sig==";

/// Thinking on: the request asks for the budget; the thinking text is not a
/// token, is streamed as `thinking` only when asked, and its block goes
/// back byte-identical with its signature in the tool loop and on the
/// next send.
#[tokio::test]
async fn thinking_is_asked_kept_sent_back_and_streamed_only_when_asked() {
    let rig = VendorRig::start().await;
    let thread = rig.thread("claude-sonnet-4-6", "").await;
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object"}}]);
    let thinking = json!({"thinking": {"enabled": true, "budgetTokens": 2048}});

    rig.anthropic
        .push(Reply::stream(fixture("anthropic_thinking_tool_use.sse")));
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "Weather in Paris?", "tools": tools, "anthropicOverrides": thinking}),
        )
        .await;
    assert_eq!(done_of(&frames)["requiresAction"], true);
    assert!(events_of(&frames, "thinking").is_empty(), "not asked for");
    let tokens: String = events_of(&frames, "token")
        .iter()
        .map(|t| t["delta"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, "Checking.");

    // The tool loop's next call, with the thinking streamed this time.
    rig.anthropic
        .push(Reply::stream(fixture("anthropic_thinking_tool_use.sse")));
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "", "anthropicOverrides": thinking, "streamThinking": true,
                   "toolResults": [{"toolCallId": "toolu_02B", "output": "18 °C"}]}),
        )
        .await;
    let streamed: String = events_of(&frames, "thinking")
        .iter()
        .map(|t| t["delta"].as_str().unwrap())
        .collect();
    assert_eq!(streamed, THOUGHT);
    assert!(!done_of(&frames)["content"].to_string().contains("weather;"));
    let call = events_of(&frames, "requires_action")[0]["toolCalls"][0]["id"].clone();

    rig.anthropic
        .push(Reply::stream(fixture("anthropic_text.sse")));
    rig.api
        .say(
            &thread,
            json!({"content": "Thanks", "anthropicOverrides": thinking, "streamThinking": false,
                   "toolResults": [{"toolCallId": call, "output": "19 °C"}]}),
        )
        .await;

    let requests = rig.anthropic.requests();
    let first = &requests[0].body;
    assert_eq!(
        first["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert!(first["max_tokens"].as_u64().unwrap() > 2048);
    let sent_back = json!([
        {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"},
    ]);
    for (call, request) in requests.iter().enumerate().skip(1) {
        let blocks = &request.body["messages"][1]["content"];
        assert_eq!(blocks[0], sent_back[0], "call {call}");
        assert_eq!(blocks[1], sent_back[1], "call {call}");
        // Byte for byte: the JSON text of the block, signature and all.
        assert!(
            request.raw_body.contains(&sent_back[0].to_string()[1..60]),
            "call {call}"
        );
    }
}

fn overloaded() -> Value {
    json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
}

async fn usage_records(rig: &VendorRig, thread: &str) -> Vec<Value> {
    let page = rig
        .api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    page["records"].as_array().unwrap().clone()
}

/// A vendor A model answering 529 (after its retries) falls back to a
/// vendor B model within the same stream: one `meta`, no `error`, the
/// answer from the fallback and `done.usage.model` naming it. A call the
/// vendor accepted before failing (an `overloaded_error` after 200) is
/// billed too: two usage records.
#[tokio::test]
async fn an_overloaded_model_falls_back_to_another_vendor_in_the_same_stream() {
    let rig = VendorRig::start_with(&[("CONFER_VENDOR_MAX_RETRIES", "1")]).await;
    let thread = rig.thread("claude-sonnet-4-6", "").await;
    let fallback = json!({"fallbackModels": ["claude-missing-model", "gpt-4.1"]});
    rig.anthropic
        .push(Reply::json(529, overloaded()))
        .push(Reply::json(529, overloaded()))
        .push(Reply::json(
            404,
            json!({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-missing-model"}}),
        ));
    rig.openai
        .push(Reply::stream(openai_answer("Fallback here.", 30)));
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "hi", "anthropicOverrides": fallback}),
        )
        .await;
    assert_eq!(events_of(&frames, "meta").len(), 1);
    assert_eq!(events_of(&frames, "meta")[0]["model"], "claude-sonnet-4-6");
    assert!(events_of(&frames, "error").is_empty(), "{frames:?}");
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["content"], "Fallback here.");
    assert_eq!(done["usage"]["model"], "gpt-4.1");
    assert_eq!(
        done["usage"]["inputTokens"], 30,
        "only the answering call's"
    );
    assert_eq!(rig.anthropic.requests().len(), 3);
    let requests = rig.openai.requests();
    assert_eq!(requests[0].body["model"], "gpt-4.1");
    let records = usage_records(&rig, &thread).await;
    assert_eq!(records.len(), 1, "the refused calls are not billed");
    assert_eq!(records[0]["model"], "gpt-4.1");
    assert_eq!(records[0]["provider"], "openai");

    // Accepted, then overloaded before any token: billed, and replaced.
    let accepted_then_overloaded = [
        r#"event: message_start"#,
        r#"data: {"type":"message_start","message":{"id":"msg_9","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-6","usage":{"input_tokens":40,"output_tokens":1}}}"#,
        "",
        "event: error",
        r#"data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        "",
        "",
    ]
    .join("\n");
    rig.anthropic.push(Reply::stream(accepted_then_overloaded));
    rig.openai.push(Reply::stream(openai_answer("Second.", 30)));
    let frames = rig
        .api
        .say(
            &thread,
            json!({"content": "again", "anthropicOverrides": {"fallbackModels": ["gpt-4.1"]}}),
        )
        .await;
    assert!(events_of(&frames, "error").is_empty(), "{frames:?}");
    assert_eq!(done_of(&frames)["content"], "Second.");
    assert_eq!(
        done_of(&frames)["usage"]["inputTokens"],
        70,
        "the replaced call's 40 and the answer's 30"
    );
    let records = usage_records(&rig, &thread).await;
    assert_eq!(records.len(), 3, "{records:?}");
    let models: Vec<&str> = records
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    assert!(models.contains(&"claude-sonnet-4-6"), "{models:?}");

    // Without fallbacks the same failure is the stream's error.
    rig.anthropic
        .push(Reply::json(529, overloaded()))
        .push(Reply::json(529, overloaded()));
    let frames = rig.api.say(&thread, json!({"content": "once more"})).await;
    assert_eq!(error_of(&frames)["code"], "PROVIDER_UNAVAILABLE");
}
