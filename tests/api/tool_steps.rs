//! The multi-step turn with org tools (`tools.md` §4–5) against the mock
//! vendors and a real local webhook server: the Anthropic format of a step,
//! a mixed server/client step, the step limit, and tool profiles.

use serde_json::{Value, json};

use crate::common::{Options, Server, done_of};
use crate::mock::{Mock, Reply, fixture};
use crate::org_tools::{rig, tool};

/// The Anthropic format of a tool step: the call goes back as a `tool_use`
/// block and its result as the next user message's `tool_result` block.
#[tokio::test]
async fn anthropic_tool_steps_carry_the_result_blocks() {
    let vendor = Mock::start("/anthropic").await;
    let hooks = Mock::start("").await;
    let server = Server::start_with(
        Options::default()
            .env("ANTHROPIC_BASE_URL", &vendor.base)
            .env("ANTHROPIC_API_KEY", "sk-platform")
            .env(
                "CONFER_OUTBOUND_ALLOW",
                hooks.base.trim_start_matches("http://"),
            ),
    );
    let api = server.admin();
    tool(&api, &hooks, "get_weather", json!({})).await;
    hooks.push(Reply::json(200, json!({"celsius": 18})));
    vendor.push(Reply::stream(fixture("anthropic_tool_use.sse")));
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    let agent = api
        .agent_with(json!({"name": "A", "defaultModel": "claude-sonnet-4-6"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let frames = api.say(&thread, json!({"content": "Weather?"})).await;
    let done = done_of(&frames);
    assert_eq!(done["content"], "Let me check ☀.\n\nHello there, Zoë ☀!");
    let tokens: String = frames
        .iter()
        .filter(|f| f.event == "token")
        .map(|f| f.data["delta"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, done["content"].as_str().unwrap(), "deltas add up");
    let second = &vendor.requests()[1].body;
    assert_eq!(second["tools"][0]["name"], "get_weather");
    assert_eq!(
        second["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me check ☀."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}}]})
    );
    assert_eq!(
        second["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "{\"celsius\":18}",
             "cache_control": {"type": "ephemeral"}}]})
    );
    // The next send gives the model the whole story.
    vendor.push(Reply::stream(fixture("anthropic_text.sse")));
    api.say(&thread, json!({"content": "Thanks"})).await;
    let third = &vendor.requests()[2].body["messages"];
    assert_eq!(third.as_array().unwrap().len(), 5, "{third}");
}

/// A step with a server-side and a client-side call: the server's runs,
/// then the turn asks the client for the other; its result continues the
/// answer in the next send.
#[tokio::test]
async fn a_mixed_step_runs_the_server_call_then_asks_the_client() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    tool(&api, &hooks, "get_weather", json!({})).await;
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    let agent = api
        .agent_with(json!({"name": "Mixed", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let client_tools = json!([{"name": "get_time", "parameters": {"type": "object"}}]);
    let frames = api
        .say(
            &thread,
            json!({"content": "Weather and time?", "tools": client_tools}),
        )
        .await;
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(
        names,
        [
            "meta",
            "tool_call",
            "tool_executing",
            "tool_result",
            "tool_call",
            "requires_action",
            "done"
        ]
    );
    let asked = frames
        .iter()
        .find(|f| f.event == "requires_action")
        .unwrap();
    assert_eq!(asked.data["toolCalls"][0]["id"], "call_B");
    assert_eq!(asked.data["toolCalls"].as_array().unwrap().len(), 1);
    // The server call's id is not the client's to answer.
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "", "toolResults": [{"toolCallId": "call_A", "output": "x"}]}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "", "toolResults": [{"toolCallId": "call_B", "output": "noon"}]}),
        )
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let messages = vendor.requests()[1].body["messages"].clone();
    let results: Vec<(&str, &str)> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [("call_A", r#"{"value":"sunny"}"#), ("call_B", "noon")]
    );
    // The continuation offered the client's tool again (the send gave none).
    let offered = vendor.requests()[1].body["tools"].clone();
    assert!(
        offered
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "get_time"),
        "{offered}"
    );
}

/// Ten model calls that all ask for tools: the tenth's calls are not run,
/// and an eleventh, last call keeps the tools with tool choice none.
#[tokio::test]
async fn at_the_step_limit_the_last_call_has_tool_choice_none() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    for name in ["get_weather", "get_time"] {
        tool(&api, &hooks, name, json!({})).await;
    }
    for _ in 0..18 {
        hooks.push(Reply::json(200, json!({"ok": true})));
    }
    for _ in 0..10 {
        vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    }
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let agent = api
        .agent_with(json!({"name": "Loop", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let frames = api.say(&thread, json!({"content": "loop"})).await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true, "{done}");
    assert_eq!(done["usage"]["steps"], 11);
    assert_eq!(hooks.requests().len(), 18, "nine steps of two calls ran");
    let limited = frames
        .iter()
        .filter(|f| {
            f.event == "tool_result"
                && f.data["result"]["error"] == "not executed: tool-call limit reached"
        })
        .count();
    assert_eq!(limited, 2);
    let requests = vendor.requests();
    assert_eq!(requests.len(), 11);
    assert!(
        requests[..10]
            .iter()
            .all(|r| r.body["tool_choice"].is_null())
    );
    assert_eq!(requests[10].body["tool_choice"], "none");
    assert_eq!(requests[10].body["tools"].as_array().unwrap().len(), 2);
}

/// An OpenAI stream whose one call is `name(arguments)`.
fn openai_call(id: &str, name: &str, arguments: &Value) -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let call = json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}}]});
    format!(
        "{}{}data: [DONE]\n\n",
        chunk(call, Value::Null),
        chunk(json!({}), json!("tool_calls"))
    )
}

/// Profiles gate the org's tools: a denied tool is not offered and a forged
/// call of it is refused; `propose_profile_switch` shows a proposal and
/// changes nothing until the client PATCHes the thread.
#[tokio::test]
async fn profiles_gate_tools_and_a_switch_is_only_proposed() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    for name in ["get_weather", "get_time"] {
        tool(&api, &hooks, name, json!({})).await;
    }
    let agent = api
        .agent_with(json!({"name": "Gated", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.patch(
        &format!("/api/agents/{agent}"),
        json!({"toolProfiles": {
                  "weather": {"allow": ["get_*"], "deny": ["get_time"]},
                  "all": {"allow": ["*"]}},
               "defaultProfile": "weather"}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;

    // The model forges a call of the denied tool.
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let frames = api.say(&thread, json!({"content": "go"})).await;
    let offered: Vec<String> = vendor.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(offered, ["propose_profile_switch", "get_weather"]);
    let refused = frames
        .iter()
        .find(|f| f.event == "tool_result" && f.data["tool_name"] == "get_time")
        .unwrap();
    assert_eq!(
        refused.data["result"],
        json!({"error": "tool not available"})
    );
    assert_eq!(
        hooks.requests().len(),
        1,
        "only the offered tool was called"
    );

    // A proposal: shown, nothing switched.
    vendor.push(Reply::stream(openai_call(
        "p1",
        "propose_profile_switch",
        &json!({"target": "all", "reason": "the time tool is needed"}),
    )));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let frames = api.say(&thread, json!({"content": "and the time?"})).await;
    let proposal = frames
        .iter()
        .find(|f| f.event == "profile_switch_proposal")
        .unwrap();
    assert_eq!(
        proposal.data,
        json!({"target": "all", "reason": "the time tool is needed"})
    );
    let read = api.get(&format!("/api/threads/{thread}")).await.expect(200);
    assert_eq!(read["active_profile"], Value::Null);

    // The client accepts: the thread's profile offers the time tool too.
    api.patch(
        &format!("/api/threads/{thread}"),
        json!({"activeProfile": "all"}),
    )
    .await
    .expect(200);
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    api.say(&thread, json!({"content": "now?"})).await;
    let last = vendor.requests().last().unwrap().body["tools"].clone();
    let names: Vec<&str> = last
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["propose_profile_switch", "get_time", "get_weather"]);
}
