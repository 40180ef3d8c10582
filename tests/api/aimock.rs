//! Confer against aimock, a third-party vendor mock from npm: its Anthropic
//! streams carry thinking and signature deltas, and it refuses (400) a
//! tool-loop continuation whose assistant turn does not begin with its
//! thinking block and signature, as the vendor does.

use serde_json::{Value, json};

use crate::common::{Options, Server, done_of, events_of};
use crate::third_party::ThirdPartyMock;

const THOUGHT: &str = "The user wants the weather in Paris; get_weather answers that.";

/// Thinking on, streamed: the `thinking` events add up to the vendor's
/// thinking and are no part of the answer; the tool loop's next call and
/// the next send carry the thinking block first with its signature, which
/// aimock checks.
#[tokio::test]
async fn thinking_round_trips_through_a_tool_loop_on_aimock() {
    let mock = ThirdPartyMock::aimock("thinking.json");
    let server = Server::start_with(
        Options::default()
            .env("ANTHROPIC_BASE_URL", &mock.base)
            .env("ANTHROPIC_API_KEY", "sk-aimock"),
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "T", "defaultModel": "claude-sonnet-4-6"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let thinking = json!({"thinking": {"enabled": true, "budgetTokens": 1024}});
    let tools = json!([{"name": "get_weather", "parameters": {"type": "object"}}]);

    let frames = api
        .say(
            &thread,
            json!({"content": "Weather in Paris?", "tools": tools,
                   "anthropicOverrides": thinking, "streamThinking": true}),
        )
        .await;
    let streamed: String = events_of(&frames, "thinking")
        .iter()
        .map(|t| t["delta"].as_str().unwrap())
        .collect();
    assert_eq!(streamed, THOUGHT);
    assert!(
        events_of(&frames, "thinking").len() > 1,
        "streamed in pieces"
    );
    assert!(
        events_of(&frames, "token").is_empty(),
        "thinking is not a token"
    );
    let done = done_of(&frames);
    assert_eq!(done["requiresAction"], true, "{frames:?}");
    let call = events_of(&frames, "requires_action")[0]["toolCalls"][0]["id"].clone();

    let frames = api
        .say(
            &thread,
            json!({"content": "", "anthropicOverrides": thinking,
                   "toolResults": [{"toolCallId": call, "output": "18 °C"}]}),
        )
        .await;
    assert_eq!(
        done_of(&frames)["content"],
        "It is 18 °C in Paris.",
        "{frames:?}"
    );
    assert!(
        events_of(&frames, "thinking").is_empty(),
        "not asked for this time"
    );

    let frames = api
        .say(
            &thread,
            json!({"content": "And tomorrow?", "anthropicOverrides": thinking}),
        )
        .await;
    assert_eq!(done_of(&frames)["content"], "Much the same.", "{frames:?}");

    // aimock answered all three: it would have refused (400) a
    // continuation whose assistant turn lost its thinking block or
    // signature. Its journal keeps its own form of each request, not the
    // bytes (the in-repo mock checks those: vendor_options.rs).
    let journal = mock.get("/__aimock/journal").await;
    let entries = journal.as_array().expect("aimock's journal");
    let statuses: Vec<&Value> = entries.iter().map(|e| &e["response"]["status"]).collect();
    assert_eq!(statuses, [200, 200, 200], "{journal:#}");

    // The check is real: the same continuation without the thinking block
    // is refused.
    let dropped = json!({
        "model": "claude-sonnet-4-6", "max_tokens": 4096, "stream": true,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_aimock_1", "name": "get_weather", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_aimock_1", "content": "18 °C"}]}
        ]
    });
    let refused = reqwest::Client::new()
        .post(format!("{}/v1/messages", mock.base))
        .json(&dropped)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    let detail = refused.text().await.unwrap();
    assert!(detail.contains("thinking"), "{detail}");
}
