//! Client-side tools, end to end on both vendors: tool_call events,
//! requires_action, results sent back in each vendor's format.

use serde_json::{Value, json};

use crate::common::{Server, done_of, events_of};
use crate::mock::{Reply, fixture};
use crate::vendors::VendorRig;

fn weather_tools() -> Value {
    json!([
        {"name": "get_weather", "description": "Weather by city",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "get_time", "parameters": {"type": "object"}}
    ])
}

#[tokio::test]
async fn openai_tool_round_trip() {
    let rig = VendorRig::start().await;
    let (openai, api) = (&rig.openai, &rig.api);
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "T", "defaultModel": "gpt-4.1"}),
        )
        .await
        .expect(201);
    let thread = api.thread(agent["id"].as_str().unwrap(), json!({})).await;

    openai.push(Reply::stream(fixture("openai_tool_calls.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "Weather and time?", "tools": weather_tools()}),
        )
        .await;
    let calls = events_of(&frames, "tool_call");
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0]["tool"],
        json!({"id": "call_A", "name": "get_weather", "arguments": {"city": "Paris"}})
    );
    assert_eq!(
        calls[1]["tool"],
        json!({"id": "call_B", "name": "get_time", "arguments": {}})
    );
    let action = events_of(&frames, "requires_action");
    assert_eq!(action[0]["toolCalls"].as_array().unwrap().len(), 2);
    assert_eq!(action[0]["toolCalls"][0]["id"], "call_A");
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["requiresAction"], true);
    assert_eq!(done["content"], "");
    let sent = &openai.requests()[0].body;
    assert_eq!(
        sent["tools"][0],
        json!({"type": "function", "function": {
        "name": "get_weather", "description": "Weather by city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}})
    );

    // Results that answer nothing pending: 422 before any stream.
    let path = format!("/api/threads/{thread}/messages");
    let detail = api
        .post(
            &path,
            json!({"content": "", "toolResults": [{"toolCallId": "call_Z", "output": "x"}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("toolResults"), "{detail}");

    openai.push(Reply::stream(fixture("openai_text.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "", "toolResults": [
            {"toolCallId": "call_A", "output": "21C, sunny"},
            {"toolCallId": "call_B", "output": {"time": "noon"}}]}),
        )
        .await;
    assert_eq!(
        frames[0].data["userMessageId"],
        Value::Null,
        "an empty content adds no message"
    );
    assert_eq!(done_of(&frames)["content"], "Héllo wörld ✓");
    let messages = openai.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "Weather and time?"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], Value::Null);
    assert_eq!(
        messages[1]["tool_calls"][0],
        json!({"id": "call_A", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}})
    );
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": "call_A", "content": "21C, sunny"})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_B", "content": "{\"time\":\"noon\"}"})
    );

    // Listed history: user and assistant text only.
    let history = api.history(&thread).await;
    let roles: Vec<&str> = history
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    // Nothing is pending any more.
    api.post(
        &path,
        json!({"content": "", "toolResults": [{"toolCallId": "call_A", "output": "x"}]}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn anthropic_tool_round_trip_and_a_new_message_while_calls_are_pending() {
    let rig = VendorRig::start().await;
    let (anthropic, api) = (&rig.anthropic, &rig.api);
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "T", "defaultModel": "claude-sonnet-4-6"}),
        )
        .await
        .expect(201);
    let thread = api.thread(agent["id"].as_str().unwrap(), json!({})).await;

    anthropic.push(Reply::stream(fixture("anthropic_tool_use.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "Weather in Paris?", "tools": weather_tools()}),
        )
        .await;
    let calls = events_of(&frames, "tool_call");
    assert_eq!(
        calls[0]["tool"],
        json!({"id": "toolu_01A", "name": "get_weather", "arguments": {"city": "Paris"}})
    );
    let done = done_of(&frames);
    assert_eq!(done["requiresAction"], true);
    assert_eq!(done["content"], "Let me check ☀.");
    assert!(
        done["messageId"].is_string(),
        "the text part is a listed message"
    );
    let sent = &anthropic.requests()[0].body;
    assert_eq!(
        sent["tools"][0]["input_schema"]["required"],
        json!(["city"])
    );
    assert_eq!(sent["tools"][0]["description"], "Weather by city");

    // The user moves on: the pending call is answered "not executed".
    anthropic.push(Reply::stream(fixture("anthropic_text.sse")));
    api.say(&thread, json!({"content": "Never mind."})).await;
    let messages = anthropic.requests()[1].body["messages"].clone();
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}})
    );
    assert_eq!(
        messages[2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_01A",
        "content": "not executed: the user sent a new message"})
    );
    assert_eq!(
        messages[2]["content"][1],
        json!({"type": "text", "text": "Never mind.", "cache_control": {"type": "ephemeral"}})
    );

    // A second round trip with a real result. The recorded stream reuses
    // its call id, which the thread has seen: Confer gives the call a new
    // one (tools.md §4), used everywhere from then on.
    anthropic.push(Reply::stream(fixture("anthropic_tool_use.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "Paris, please", "tools": weather_tools()}),
        )
        .await;
    let id = events_of(&frames, "tool_call")[0]["tool"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(id.starts_with("call_"), "{id}");
    anthropic.push(Reply::stream(fixture("anthropic_text.sse")));
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "", "toolResults": [{"toolCallId": "toolu_01A", "output": "21C"}]}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    let frames = api
        .say(
            &thread,
            json!({"content": "", "toolResults": [{"toolCallId": id, "output": "21C"}]}),
        )
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let messages = anthropic.requests()[3].body["messages"].clone();
    let last = messages.as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last,
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "21C",
            "cache_control": {"type": "ephemeral"}}]})
    );
    let roles: Vec<String> = api
        .history(&thread)
        .await
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "assistant"
        ]
    );
}

#[tokio::test]
async fn tool_definitions_are_validated() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let path = format!("/api/threads/{thread}/messages");
    api.post(&path, json!({"content": "x", "tools": [{"name": "f"}]}))
        .await
        .expect_error(400, "BAD_REQUEST");
    let detail = api
        .post(
            &path,
            json!({"content": "x", "tools": [{"name": "f", "parameters": 5}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("tools[0].parameters"), "{detail}");
    api.post(&path, json!({"content": "x", "tools": [{"name": "f", "parameters": {}}, {"name": "f", "parameters": {}}]}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
}

/// An Anthropic answer with thinking (signed and redacted) and a tool call,
/// continued by the client's tool result: the thinking blocks go back first
/// and unchanged, as the vendor requires.
#[tokio::test]
async fn anthropic_thinking_blocks_go_back_unchanged() {
    let rig = VendorRig::start().await;
    let (anthropic, api) = (&rig.anthropic, &rig.api);
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "Thinker", "defaultModel": "claude-sonnet-4-6"}),
        )
        .await
        .expect(201);
    let thread = api.thread(agent["id"].as_str().unwrap(), json!({})).await;
    anthropic.push(Reply::stream(fixture("anthropic_thinking_tool_use.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "Weather in Paris?", "tools": weather_tools()}),
        )
        .await;
    let done = done_of(&frames);
    assert_eq!(done["requiresAction"], true);
    assert_eq!(done["content"], "Checking.");

    anthropic.push(Reply::stream(fixture("anthropic_text.sse")));
    api.say(
        &thread,
        json!({"content": "", "toolResults": [{"toolCallId": "toolu_02B", "output": "18 °C"}]}),
    )
    .await;
    let messages = anthropic.requests()[1].body["messages"].clone();
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking",
             "thinking": "The user wants the weather; I should call get_weather for Paris ✓.",
             "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds/sig=="},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_02B", "name": "get_weather", "input": {"city": "Paris"}}
        ])
    );
    assert_eq!(
        messages[2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_02B", "content": "18 °C",
               "cache_control": {"type": "ephemeral"}})
    );
}

/// An Anthropic answer that begins with a compaction block (the SDK's
/// fixture): the block is stored and sent back byte for byte on the next
/// send, and a send to another vendor gets its summary as a `system`
/// message instead of what it stands for.
#[tokio::test]
async fn a_compaction_block_goes_back_to_its_vendor_and_as_a_summary_to_others() {
    let rig = VendorRig::start().await;
    let (anthropic, openai, api) = (&rig.anthropic, &rig.openai, &rig.api);
    let thread = rig.thread("claude-sonnet-4-6", "Be terse.").await;
    anthropic.push(Reply::stream(fixture("anthropic_compaction.sse")));
    let done = done_of(&api.say(&thread, json!({"content": "Hello"})).await).clone();
    assert_eq!(done["content"], "Hello there!");

    anthropic.push(Reply::stream(fixture("anthropic_text.sse")));
    api.say(&thread, json!({"content": "and now?"})).await;
    let messages = anthropic.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "compaction", "content": "Earlier conversation summarized.",
             "encrypted_content": "EpwBCkYIBxgCKkB/opaque+payload=="},
            {"type": "text", "text": "Hello there!"}]})
    );

    openai.push(Reply::stream(fixture("openai_text.sse")));
    api.say(
        &thread,
        json!({"content": "elsewhere?", "modelOverride": "openai/gpt-4.1"}),
    )
    .await;
    let messages = openai.requests()[0].body["messages"].clone();
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": "Be terse."})
    );
    assert_eq!(
        messages[1],
        json!({"role": "system",
               "content": "Summary of the earlier conversation:\nEarlier conversation summarized."})
    );
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "Hello there!"})
    );
    assert_eq!(messages[3]["role"], "user");
    assert_eq!(messages[3]["content"], "and now?");
}
