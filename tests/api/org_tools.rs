//! Org tools (`tools.md` §1–3, §5) against a real local webhook server: the
//! CRUD and its rules, the signed call, a two-step answer streamed in the
//! contract's order, failures given to the model, a stop, and the test
//! harness. More of the multi-step turn is in `tool_steps.rs`.

use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::common::{Options, Server, done_of};
use crate::mock::{Mock, Reply, fixture};

/// A server on a mock OpenAI vendor whose tools may call `hooks` over http.
pub async fn rig() -> (Mock, Mock, Server) {
    let vendor = Mock::start("/v1").await;
    let hooks = Mock::start("").await;
    let host = hooks.base.trim_start_matches("http://").to_owned();
    let server = Server::start_with(
        Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env("CONFER_OUTBOUND_ALLOW", &host),
    );
    (vendor, hooks, server)
}

/// Registers the org tool `name`, a webhook at `{hooks}/{name}` with
/// `extra` settings; its signing secret.
pub async fn tool(api: &crate::common::Api, hooks: &Mock, name: &str, extra: Value) -> String {
    let mut body = json!({"name": name, "url": format!("{}/{name}", hooks.base)});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let made = api.post("/api/tools", body).await.expect(201);
    made["signing_secret"].as_str().unwrap().to_owned()
}

fn verifies(secret: &str, recorded: &crate::mock::Recorded) -> bool {
    let timestamp = recorded.header("x-service-timestamp").unwrap();
    let nonce = recorded.header("x-service-nonce").unwrap();
    let signature = recorded.header("x-service-signature").unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{nonce}.{}", recorded.raw_body).as_bytes());
    mac.verify_slice(&hex::decode(signature).unwrap()).is_ok()
}

#[tokio::test]
async fn tools_are_validated_unique_and_their_secret_is_shown_once() {
    let (_vendor, hooks, server) = rig().await;
    let api = server.admin();
    let url = format!("{}/hook", hooks.base);
    let made = api
        .post(
            "/api/tools",
            json!({"name": "lookup", "url": url, "description": "Finds things."}),
        )
        .await
        .expect(201);
    let secret = made["signing_secret"].as_str().unwrap();
    assert!(secret.starts_with("cfs_") && secret.len() == 68, "{secret}");
    assert_eq!(made["kind"], "webhook");
    assert_eq!(made["timeout_ms"], 10_000);
    assert_eq!(made["parameters"], json!({"type": "object"}));
    let id = made["id"].as_str().unwrap();
    let read = api.get(&format!("/api/tools/{id}")).await.expect(200);
    assert!(read.get("signing_secret").is_none(), "{read}");

    api.post("/api/tools", json!({"name": "lookup", "url": url}))
        .await
        .expect_error(409, "CONFLICT");
    for (body, field) in [
        (json!({"name": "a__b", "url": url}), "name"),
        (json!({"name": "plan_x", "url": url}), "name"),
        (
            json!({"name": "propose_profile_switch", "url": url}),
            "name",
        ),
        (json!({"name": "has space", "url": url}), "name"),
        (json!({"name": "search_knowledge", "url": url}), "name"),
        (json!({"name": "remember", "url": url}), "name"),
        (json!({"name": "recall", "url": url}), "name"),
        (json!({"name": "ok", "url": "https://10.0.0.1/x"}), "url"),
        (
            json!({"name": "ok", "url": url, "timeoutMs": 50}),
            "timeoutMs",
        ),
        (
            json!({"name": "ok", "url": url, "parameters": {"type": "string"}}),
            "parameters",
        ),
        (json!({"name": "ok", "url": url, "kind": "mcp"}), "kind"),
    ] {
        let detail = api
            .post("/api/tools", body.clone())
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.contains(field), "{body}: {detail}");
    }

    let rotated = api
        .patch(&format!("/api/tools/{id}"), json!({"rotateSecret": true}))
        .await
        .expect(200);
    let fresh = rotated["signing_secret"].as_str().unwrap();
    assert_ne!(fresh, secret);
    hooks.push(Reply::json(200, json!({"found": true})));
    let executed = api
        .post(
            "/api/tools/execute",
            json!({"name": "lookup", "arguments": {"q": "x"}}),
        )
        .await
        .expect(200);
    assert_eq!(executed["result"], json!({"found": true}));
    assert_eq!(executed["is_error"], false);
    let call = &hooks.requests()[0];
    assert!(verifies(fresh, call), "signed with the rotated secret");
    assert!(!verifies(secret, call));
    assert_eq!(call.body["toolName"], "lookup");
    assert!(
        call.body["toolCallId"]
            .as_str()
            .unwrap()
            .starts_with("exec_")
    );
    assert_eq!(call.body["agentId"], Value::Null);
    assert_eq!(call.body["arguments"], json!({"q": "x"}));

    api.delete(&format!("/api/tools/{id}")).await.expect(200);
    api.get(&format!("/api/tools/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    api.post(
        "/api/tools/execute",
        json!({"name": "lookup", "arguments": {}}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_two_step_answer_runs_the_tools_and_streams_each_call() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    let mut secrets = Vec::new();
    for name in ["get_weather", "get_time"] {
        secrets.push(tool(&api, &hooks, name, json!({})).await);
    }
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let agent = api
        .agent_with(json!({"name": "Tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let frames = api
        .say(&thread, json!({"content": "Weather in Paris?"}))
        .await;
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    // tool_calls in the model's order, then each call's executing/result.
    assert_eq!(&names[..3], ["meta", "tool_call", "tool_call"], "{names:?}");
    assert_eq!(
        names.iter().filter(|n| **n == "tool_executing").count(),
        2,
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| **n == "tool_result").count(),
        2,
        "{names:?}"
    );
    let first_result = names.iter().position(|n| *n == "tool_result").unwrap();
    let first_executing = names.iter().position(|n| *n == "tool_executing").unwrap();
    assert!(first_executing < first_result);
    let result = frames.iter().find(|f| f.event == "tool_result").unwrap();
    assert_eq!(result.data["result"], json!({"value": "sunny"}));
    assert!(result.data.get("isError").is_none());
    assert!(result.data["tool_call_id"].is_string());
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["usage"]["steps"], 2);
    assert!(done.get("requiresAction").is_none(), "{done}");

    // Each webhook got a signed call naming the thread and agent.
    let calls = hooks.requests();
    assert_eq!(calls.len(), 2);
    for call in &calls {
        let name = call.body["toolName"].as_str().unwrap();
        let secret = if name == "get_weather" {
            &secrets[0]
        } else {
            &secrets[1]
        };
        assert!(verifies(secret, call), "{name}");
        assert_eq!(call.body["threadId"], thread.as_str());
        assert_eq!(call.body["agentId"], agent.as_str());
    }
    let weather = calls
        .iter()
        .find(|c| c.body["toolName"] == "get_weather")
        .unwrap();
    assert_eq!(weather.body["arguments"], json!({"city": "Paris"}));
    assert_eq!(weather.body["toolCallId"], "call_A");

    // The vendor's second request carries both results as tool messages,
    // and both requests offered the org's tools.
    let requests = vendor.requests();
    assert_eq!(requests.len(), 2);
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["get_time", "get_weather"], "by name");
    let messages = requests[1].body["messages"].as_array().unwrap();
    let results: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["tool_call_id"], "call_A");
    assert_eq!(results[0]["content"], r#"{"value":"sunny"}"#);
    // Usage: one record per model call, both linked to the answer.
    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let records = usage["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["message_id"] == done["messageId"]));
}

#[tokio::test]
async fn a_failing_webhook_gives_the_model_an_error_and_the_answer_goes_on() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    for name in ["get_weather", "get_time"] {
        tool(&api, &hooks, name, json!({"timeoutMs": 300})).await;
    }
    let agent = api
        .agent_with(json!({"name": "Flaky", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let cases = [
        (
            Reply::After(
                Duration::from_secs(3),
                Box::new(Reply::json(200, json!({}))),
            ),
            "timeout after 300 ms",
        ),
        (Reply::json(500, json!({"boom": true})), "http 500"),
        (
            Reply::Status {
                status: 302,
                headers: vec![("location".into(), "https://elsewhere.example/".into())],
                body: String::new(),
            },
            "redirect not followed",
        ),
        (
            Reply::json(200, json!({"big": "x".repeat(3 * 1024 * 1024)})),
            "response over 256 KiB",
        ),
    ];
    for (reply, reason) in cases {
        let thread = api.thread(&agent, json!({})).await;
        // Whichever of the two calls reaches the mock first gets the
        // failure; the other an answer.
        hooks.push(reply);
        hooks.push(Reply::json(200, json!({"value": "fine"})));
        vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
        vendor.push(Reply::stream(fixture("openai_text.sse")));
        let frames = api.say(&thread, json!({"content": "go"})).await;
        let errors: Vec<&Value> = frames
            .iter()
            .filter(|f| f.event == "tool_result" && f.data["isError"] == true)
            .map(|f| &f.data["result"]["error"])
            .collect();
        assert_eq!(errors, [&json!(reason)], "{reason}: {frames:?}");
        let done = done_of(&frames);
        assert_eq!(done["ok"], true, "{reason}");
    }
}

#[tokio::test]
async fn a_stop_during_slow_webhooks_ends_the_turn_and_closes_their_connections() {
    let (vendor, hooks, server) = rig().await;
    let api = server.admin();
    for name in ["get_weather", "get_time"] {
        tool(&api, &hooks, name, json!({})).await;
        hooks.push(Reply::After(
            Duration::from_secs(8),
            Box::new(Reply::json(200, json!({}))),
        ));
    }
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    let agent = api
        .agent_with(json!({"name": "Slow", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    let mut stream = api.open_stream(&thread, json!({"content": "go"})).await;
    let mut executing = 0;
    while executing < 2 {
        let frame = stream.next_within(Duration::from_secs(10)).await.unwrap();
        executing += usize::from(frame.event == "tool_executing");
    }
    crate::common::eventually(Duration::from_secs(5), "both webhooks called", async || {
        (hooks.requests().len() == 2).then_some(())
    })
    .await;
    let asked = std::time::Instant::now();
    let stopped = api
        .post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    assert_eq!(stopped["stopped"], true);
    let rest = stream.collect().await;
    let took = asked.elapsed();
    println!("stop during two webhook calls to `done`: {took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let done = done_of(&rest);
    assert_eq!(done["stopped"], true, "{done}");
    assert!(rest.iter().all(|f| f.event != "tool_result"));
    crate::common::eventually(
        Duration::from_secs(5),
        "webhook connections closed",
        async || (hooks.closed().len() == 2).then_some(()),
    )
    .await;
    assert_eq!(vendor.requests().len(), 1, "no model call after the stop");
}
