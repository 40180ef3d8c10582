//! Delegated agents (`agent-extras.md` §3, acceptance point 5): A → B → C
//! with A and B scripted on a vendor mock and C on `builtin/echo`. A cycle
//! is refused; A streams B's and C's frames as `tool_progress`; children
//! are listed under their parent only, read-only, and their usage is
//! summed into A's `done.usage.delegated`; B's trace hangs under A's.
//! Stopping A stops B and C; stopping B alone gives A `delegate stopped`;
//! `CONFER_MAX_DELEGATION_DEPTH=1` offers B no delegate tool.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of, events_of};
use crate::mock::{Mock, Recorded, Reply, openai_answer, openai_tool_call};

/// Agents Alpha and Bravo on the mock, Charlie on `builtin/echo`, with
/// Alpha → Bravo → Charlie.
async fn tree(api: &Api) -> (String, String, String) {
    let a = api
        .agent_with(json!({"name": "Alpha", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let b = api
        .agent_with(json!({"name": "Bravo", "defaultModel": "openai/gpt-4.1",
                           "description": "Answers with Charlie's help."}))
        .await;
    let c = api
        .agent_with(json!({"name": "Charlie", "defaultModel": "builtin/echo"}))
        .await;
    let made = api
        .put(
            &format!("/api/agents/{a}/delegated"),
            json!({"delegates": [{"agentId": b}]}),
        )
        .await
        .expect(200);
    assert_eq!(made["delegates"][0]["tool_name"], "delegate__bravo");
    assert_eq!(made["delegates"][0]["name"], "Bravo");
    assert_eq!(
        made["delegates"][0]["description"],
        "Answers with Charlie's help."
    );
    api.put(
        &format!("/api/agents/{b}/delegated"),
        json!({"delegates": [{"agentId": c, "description": "Echoes."}]}),
    )
    .await
    .expect(200);
    (a, b, c)
}

fn server(vendor: &Mock, extra: &[(&str, &str)]) -> Server {
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-platform");
    for (name, value) in extra {
        options = options.env(name, value);
    }
    Server::start_with(options)
}

fn offered(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The last tool message of a vendor request, parsed.
fn tool_result(request: &Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn a_delegates_to_b_which_delegates_to_c() {
    let vendor = Mock::start("/v1").await;
    // One turn at a time per org: the children run inside the root's slot.
    let server = server(&vendor, &[("CONFER_MAX_ACTIVE_TURNS_PER_ORG", "1")]);
    let api = server.admin();
    let (a, b, c) = tree(&api).await;

    // C → A would close A → B → C → A.
    let cycle = api
        .put(
            &format!("/api/agents/{c}/delegated"),
            json!({"delegates": [{"agentId": a}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(cycle, "delegates: cycle Charlie → Alpha → Bravo → Charlie");
    let itself = api
        .put(
            &format!("/api/agents/{a}/delegated"),
            json!({"delegates": [{"agentId": b}, {"agentId": a}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(itself.starts_with("delegates[1].agentId"), "{itself}");

    vendor.push(Reply::stream(openai_tool_call(
        "call_a",
        "delegate__bravo",
        &json!({"task": "Ask Charlie", "context": "be brief"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_b",
        "delegate__charlie",
        &json!({"task": "one two three"}),
    )));
    vendor.push(Reply::stream(openai_answer("Bravo's answer.", 20)));
    vendor.push(Reply::stream(openai_answer("Alpha's answer.", 30)));
    let root = api.thread(&a, json!({})).await;
    let frames = api.say(&root, json!({"content": "go"})).await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true, "{frames:?}");
    assert_eq!(done["content"], "Alpha's answer.");

    let requests = vendor.requests();
    assert_eq!(requests.len(), 4);
    assert!(offered(&requests[0]).contains(&"delegate__bravo".to_owned()));
    assert!(offered(&requests[1]).contains(&"delegate__charlie".to_owned()));
    let sent = &requests[1].body["messages"];
    let last_user = sent
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert_eq!(last_user["content"], "Ask Charlie\n\nContext:\nbe brief");
    let bravo_said = tool_result(&requests[3]);
    assert_eq!(bravo_said["agent"], "Bravo");
    assert_eq!(bravo_said["content"], "Bravo's answer.");
    let charlie_said = tool_result(&requests[2]);
    assert_eq!(charlie_said["content"], "one two three");

    // B's frames, and C's inside them, between the call's executing and result.
    let progress = events_of(&frames, "tool_progress");
    assert!(progress.iter().all(|p| p["tool_call_id"] == "call_a"));
    let child = progress[0]["childThreadId"].as_str().unwrap().to_owned();
    assert!(
        progress
            .iter()
            .all(|p| p["depth"] == 1 && p["childThreadId"] == child)
    );
    assert!(progress.iter().any(|p| p["event"] == "token"));
    let nested: Vec<&Value> = progress
        .iter()
        .filter(|p| p["event"] == "tool_progress")
        .map(|p| &p["data"])
        .collect();
    assert!(
        nested
            .iter()
            .all(|n| n["depth"] == 2 && n["tool_name"] == "delegate__charlie")
    );
    let echoed: String = nested
        .iter()
        .filter(|n| n["event"] == "token")
        .map(|n| n["data"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(echoed, "one two three");
    let grandchild = nested[0]["childThreadId"].as_str().unwrap().to_owned();

    // Listed under the parent only; read-only but readable.
    let listed = api
        .get(&format!("/api/threads?agentId={b}"))
        .await
        .expect(200);
    assert_eq!(listed["threads"], json!([]));
    let children = api
        .get(&format!("/api/threads?parentThreadId={root}"))
        .await
        .expect(200);
    let first = &children["threads"][0];
    assert_eq!(first["id"], child);
    assert_eq!(first["origin"], "delegate");
    assert_eq!(first["parent_thread_id"], root);
    assert_eq!(first["parent_tool_call_id"], "call_a");
    assert_eq!(first["root_thread_id"], root);
    assert_eq!(first["depth"], 1);
    let below = api
        .get(&format!("/api/threads?parentThreadId={child}&agentId={c}"))
        .await
        .expect(200);
    assert_eq!(below["threads"][0]["id"], grandchild);
    assert_eq!(below["threads"][0]["depth"], 2);
    api.post(
        &format!("/api/threads/{child}/messages"),
        json!({"content": "hi"}),
    )
    .await
    .expect_error(409, "CONFLICT");
    api.patch(&format!("/api/threads/{child}"), json!({"title": "x"}))
        .await
        .expect_error(409, "CONFLICT");
    api.delete(&format!("/api/threads/{child}"))
        .await
        .expect_error(409, "CONFLICT");
    let history = api.history(&grandchild).await;
    assert_eq!(history[1]["content"], "one two three");

    // The descendants' records, summed in the root's done.
    let usage = api
        .get(&format!("/api/usage?threadId={root}&includeDelegated=true"))
        .await
        .expect(200);
    let records = usage["records"].as_array().unwrap();
    let delegated: Vec<&Value> = records
        .iter()
        .filter(|r| r["root_thread_id"] == root.as_str())
        .collect();
    assert_eq!(delegated.len(), 3, "{usage}");
    let sum = |field: &str| -> u64 { delegated.iter().map(|r| r[field].as_u64().unwrap()).sum() };
    let rolled = &done["usage"]["delegated"];
    assert_eq!(rolled["inputTokens"], sum("input_tokens"));
    assert_eq!(rolled["outputTokens"], sum("output_tokens"));
    assert_eq!(rolled["turns"], 2);
    assert!(
        delegated
            .iter()
            .any(|r| r["depth"] == 2 && r["parent_thread_id"] == child.as_str())
    );
    let own = api
        .get(&format!("/api/usage?threadId={root}"))
        .await
        .expect(200);
    assert_eq!(own["records"].as_array().unwrap().len(), 2);

    // B's trace hangs under A's call.
    let traces = api
        .get(&format!("/api/logs?threadId={root}"))
        .await
        .expect(200);
    let root_trace = traces["traces"][0]["id"].as_str().unwrap().to_owned();
    let detail = api
        .get(&format!("/api/logs/{root_trace}"))
        .await
        .expect(200);
    assert_eq!(detail["children"][0]["thread_id"], child);
    assert_eq!(detail["children"][0]["status"], "ok");
    let call_span = detail["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["attributes"]["tool_kind"] == "delegate")
        .unwrap();
    let child_trace = detail["children"][0]["trace_id"].as_str().unwrap();
    assert_eq!(call_span["attributes"]["child_trace_id"], child_trace);
    let child_detail = api
        .get(&format!("/api/logs/{child_trace}"))
        .await
        .expect(200);
    assert_eq!(child_detail["trace"]["parent_trace_id"], root_trace);
    assert_eq!(child_detail["trace"]["parent_span_id"], call_span["id"]);
    assert_eq!(
        child_detail["trace"]["otel_trace_id"],
        detail["trace"]["otel_trace_id"]
    );

    // Purged with the root.
    api.delete(&format!("/api/threads/{root}"))
        .await
        .expect(200);
    let gone = format!("/api/threads/{grandchild}");
    crate::common::eventually(
        Duration::from_secs(10),
        "the grandchild purged",
        async || (api.get(&gone).await.status == 404).then_some(()),
    )
    .await;
}

#[tokio::test]
async fn stopping_the_root_stops_every_descendant() {
    let vendor = Mock::start("/v1").await;
    let server = server(&vendor, &[("CONFER_BUILTIN_DELAY_MS", "50")]);
    let api = server.admin();
    let (a, _, _) = tree(&api).await;
    let long: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    vendor.push(Reply::stream(openai_tool_call(
        "call_a",
        "delegate__bravo",
        &json!({"task": "go"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_b",
        "delegate__charlie",
        &json!({"task": long.join(" ")}),
    )));
    let root = api.thread(&a, json!({})).await;
    let mut stream = api.open_stream(&root, json!({"content": "go"})).await;
    // Until C streams.
    let (child, grandchild) = loop {
        let frame = stream
            .next_within(Duration::from_secs(20))
            .await
            .expect("a frame");
        if frame.event == "tool_progress" && frame.data["event"] == "tool_progress" {
            let nested = &frame.data["data"];
            if nested["event"] == "token" {
                break (
                    frame.data["childThreadId"].as_str().unwrap().to_owned(),
                    nested["childThreadId"].as_str().unwrap().to_owned(),
                );
            }
        }
    };
    let mut watch_b = api.open_watch(&child, "?follow=true", None).await;
    let mut watch_c = api.open_watch(&grandchild, "?follow=true", None).await;
    let asked = Instant::now();
    let stopped = api
        .post(&format!("/api/threads/{root}/stop"), json!({}))
        .await
        .expect(200);
    assert_eq!(stopped["stopped"], true);
    for watch in [&mut watch_b, &mut watch_c] {
        loop {
            let frame = watch
                .next_within(Duration::from_secs(5))
                .await
                .expect("the child's done");
            if frame.event == "done" {
                assert_eq!(frame.data["stopped"], true, "{frame:?}");
                break;
            }
        }
    }
    let took = asked.elapsed();
    println!(
        "descendants stopped {} ms after the root's stop",
        took.as_millis()
    );
    // The contract's bound is 100 ms; a loaded test machine gets more.
    assert!(took < Duration::from_secs(2), "{took:?}");
    let done = done_of(&stream.collect().await);
    assert_eq!(done["stopped"], true);
}

#[tokio::test]
async fn a_child_stopped_alone_gives_its_parent_delegate_stopped() {
    let vendor = Mock::start("/v1").await;
    let server = server(&vendor, &[]);
    let api = server.admin();
    let (a, _, _) = tree(&api).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_a",
        "delegate__bravo",
        &json!({"task": "take your time"}),
    )));
    let words: Vec<String> = (0..200).map(|i| format!("b{i} ")).collect();
    vendor.push(Reply::paced(
        openai_answer(&words.concat(), 10),
        Duration::from_millis(50),
    ));
    vendor.push(Reply::stream(openai_answer("Alpha went on.", 30)));
    let root = api.thread(&a, json!({})).await;
    let mut stream = api.open_stream(&root, json!({"content": "go"})).await;
    let child = loop {
        let frame = stream
            .next_within(Duration::from_secs(20))
            .await
            .expect("a frame");
        if frame.event == "tool_progress" && frame.data["event"] == "token" {
            break frame.data["childThreadId"].as_str().unwrap().to_owned();
        }
    };
    api.post(&format!("/api/threads/{child}/stop"), json!({}))
        .await
        .expect(200);
    let frames = stream.collect().await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["content"], "Alpha went on.");
    let result = events_of(&frames, "tool_result")[0];
    assert_eq!(result["result"]["error"], "delegate stopped", "{result}");
    assert!(
        result["result"]["content"]
            .as_str()
            .unwrap()
            .starts_with("b0 ")
    );
    let said = tool_result(vendor.requests().last().unwrap());
    assert_eq!(said["error"], "delegate stopped");
}

#[tokio::test]
async fn depth_one_offers_the_child_no_delegate_tool() {
    let vendor = Mock::start("/v1").await;
    let server = server(&vendor, &[("CONFER_MAX_DELEGATION_DEPTH", "1")]);
    let api = server.admin();
    let (a, _, _) = tree(&api).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_a",
        "delegate__bravo",
        &json!({"task": "answer alone"}),
    )));
    vendor.push(Reply::stream(openai_answer("Bravo alone.", 10)));
    vendor.push(Reply::stream(openai_answer("Alpha's answer.", 10)));
    let root = api.thread(&a, json!({})).await;
    let done = done_of(&api.say(&root, json!({"content": "go"})).await);
    assert_eq!(done["ok"], true);
    let requests = vendor.requests();
    assert!(offered(&requests[0]).contains(&"delegate__bravo".to_owned()));
    assert!(
        !offered(&requests[1])
            .iter()
            .any(|t| t.starts_with("delegate__")),
        "{:?}",
        offered(&requests[1])
    );
    assert_eq!(tool_result(&requests[2])["content"], "Bravo alone.");

    // A new MCP server never takes the slug of the delegate tools.
    let named = api
        .post(
            "/api/mcps",
            json!({"name": "Delegate", "url": "https://mcp.example.com/mcp"}),
        )
        .await
        .expect(201);
    assert_eq!(named["slug"], "delegate_2");
}
