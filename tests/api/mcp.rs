//! MCP servers (`tools.md` §6) against a real MCP server: the MCP Python
//! SDK's FastMCP (`tests/peers/mcp_server.py`) over streamable HTTP, the
//! older HTTP+SSE transport and stdio. A turn lists and calls its tools;
//! a server that is down, or that never answers, holds no turn up; stdio
//! needs a platform admin and the operator's allow-list, and its child sees
//! none of Confer's environment; a stop cancels the call; credentials never
//! show.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of, events_of, eventually};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::third_party::ThirdPartyMock;

/// Confer's key for secrets at rest (32 bytes, base64), in its environment.
const SECRET_KEY: &str = "Y29uZmVyLXNlY3JldC1rZXktZm9yLXN0ZGlvLXRlc3Q=";

/// The bearer token the MCP server is given as a credential.
const TOKEN: &str = "mcp-peer-token-4f1d2c";

/// Confer on a mock OpenAI vendor, allowed to reach local servers over
/// http, with `extra` settings.
pub fn confer(vendor: &Mock, extra: &[(&str, &str)]) -> Server {
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-platform-key-9d8e7f")
        .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
        .env("CONFER_LOG", "trace");
    for (name, value) in extra {
        options = options.env(name, value);
    }
    Server::start_with(options)
}

/// Waits until the server's status is `status`; the server as then read.
pub async fn status_of(api: &Api, id: &str, status: &str) -> Value {
    eventually(
        Duration::from_secs(30),
        &format!("MCP server {id} {status}"),
        async || {
            let server = api.get(&format!("/api/mcps/{id}")).await.expect(200);
            (server["status"] == status).then_some(server)
        },
    )
    .await
}

/// Registers the server `body` describes and waits until it is listed;
/// its id.
async fn active_server(api: &Api, body: Value) -> String {
    let id = api.post("/api/mcps", body).await.expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    status_of(api, &id, "active").await;
    id
}

/// An agent on the mock vendor with `server` attached; its id.
async fn agent_with(api: &Api, server: &str, allowed: Value) -> String {
    let agent = api
        .agent_with(json!({"name": "Tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": server, "allowedTools": allowed}),
    )
    .await
    .expect(201);
    agent
}

/// One turn in which the model calls `tool` with `arguments`, then answers
/// "ok"; the `tool_result` frame's data and the frames.
async fn call_once(
    api: &Api,
    vendor: &Mock,
    thread: &str,
    tool: &str,
    arguments: Value,
) -> (Value, Vec<crate::common::Frame>) {
    vendor.push(Reply::stream(openai_tool_call("call_1", tool, &arguments)));
    vendor.push(Reply::stream(openai_answer("ok", 5)));
    let frames = api.say(thread, json!({"content": "go"})).await;
    let results = events_of(&frames, "tool_result");
    assert_eq!(results.len(), 1, "{frames:?}");
    assert_eq!(done_of(&frames)["ok"], true);
    (results[0].clone(), frames)
}

fn offered(request: &crate::mock::Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_turn_lists_and_calls_the_tools_of_a_real_mcp_server() {
    let peer = ThirdPartyMock::fastmcp("streamable-http");
    let vendor = Mock::start("/v1").await;
    let server = confer(&vendor, &[]);
    let api = server.admin();

    let made = api
        .post(
            "/api/mcps",
            json!({"name": "Peer Tools!", "url": format!("{}/mcp", peer.base),
                   "credentials": {"headers": {"Authorization": format!("Bearer {TOKEN}")}},
                   "allowedTools": ["add", "shout", "picture", "authorization", "fail", "slow",
                                    "environment"]}),
        )
        .await
        .expect(201);
    assert_eq!(made["slug"], "peer_tools");
    assert_eq!(made["transport"], "streamable_http");
    assert_eq!(made["has_credentials"], true);
    assert_eq!(made["oauth"], "none");
    assert_eq!(made["timeout_ms"], 30_000);
    assert!(!made.to_string().contains(TOKEN), "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    // Listed in the background.
    let listed = status_of(&api, &id, "active").await;
    let names: Vec<&str> = listed["tools_cache"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for tool in [
        "add",
        "shout",
        "picture",
        "authorization",
        "fail",
        "slow",
        "grow",
    ] {
        assert!(names.contains(&tool), "{tool} in {names:?}");
    }
    assert!(listed["tools_refreshed_at"].is_string());
    assert_eq!(listed["last_error"], Value::Null);
    // A second server of the same name gets its own slug.
    let twin = api
        .post(
            "/api/mcps",
            json!({"name": "peer tools", "url": format!("{}/mcp", peer.base)}),
        )
        .await
        .expect(201);
    assert_eq!(twin["slug"], "peer_tools_2");

    let agent = agent_with(
        &api,
        &id,
        json!(["add", "shout", "picture", "authorization", "fail"]),
    )
    .await;
    let attached = api
        .get(&format!("/api/agents/{agent}/mcps"))
        .await
        .expect(200);
    assert_eq!(attached["mcps"][0]["slug"], "peer_tools");
    assert_eq!(attached["mcps"][0]["status"], "active");
    // `grow` is not in the server's list, `slow` not in the agent's.
    let services = api
        .get(&format!("/api/agents/{agent}/mcps/{id}/services"))
        .await
        .expect(200);
    let enabled = |name: &str| {
        services["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["enabled"].clone())
    };
    assert_eq!(enabled("add"), Some(json!(true)));
    assert_eq!(enabled("slow"), Some(json!(false)));
    assert_eq!(enabled("grow"), Some(json!(false)));
    api.patch(
        &format!("/api/agents/{agent}/mcps/{id}/services"),
        json!({"enabled": ["add", "nope"]}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");

    let thread = api.thread(&agent, json!({})).await;
    let (result, frames) = call_once(
        &api,
        &vendor,
        &thread,
        "peer_tools__add",
        json!({"a": 2, "b": 3}),
    )
    .await;
    assert_eq!(result["result"], json!({"result": 5}), "structuredContent");
    assert!(result.get("isError").is_none());
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(
        names
            .iter()
            .filter(|n| ["tool_call", "tool_executing", "tool_result"].contains(n))
            .count(),
        3,
        "{names:?}"
    );
    let first = &vendor.requests()[0];
    let tools = offered(first);
    assert_eq!(
        tools,
        [
            "peer_tools__add",
            "peer_tools__authorization",
            "peer_tools__fail",
            "peer_tools__picture",
            "peer_tools__shout"
        ],
        "the server's and the agent's lists, by name"
    );
    let add = first.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "peer_tools__add")
        .unwrap();
    assert_eq!(add["function"]["parameters"]["type"], "object");
    assert!(add["function"]["parameters"]["properties"]["a"].is_object());
    assert_eq!(add["function"]["description"], "Adds two integers.");

    // The call's span in the turn's trace is an MCP tool's.
    let logs = api
        .get(&format!("/api/logs?threadId={thread}"))
        .await
        .expect(200);
    let trace_id = logs["traces"][0]["id"].as_str().unwrap().to_owned();
    let detail = api.get(&format!("/api/logs/{trace_id}")).await.expect(200);
    let span = detail["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "peer_tools__add")
        .cloned()
        .unwrap_or_else(|| panic!("no tool span: {detail}"));
    assert_eq!(span["attributes"]["tool_kind"], "mcp");
    let request = detail["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == "mcp")
        .unwrap_or_else(|| panic!("no mcp span: {detail}"));
    assert_eq!(request["name"], "tools/call");
    assert_eq!(request["parent_span_id"], span["id"]);
    assert_eq!(request["status"], "ok");

    // The credentials reach the server; text, media and errors map.
    let (result, _) = call_once(
        &api,
        &vendor,
        &thread,
        "peer_tools__authorization",
        json!({}),
    )
    .await;
    assert_eq!(
        result["result"],
        json!({"result": format!("Bearer {TOKEN}")})
    );
    let (result, _) = call_once(&api, &vendor, &thread, "peer_tools__picture", json!({})).await;
    assert_eq!(
        result["result"],
        json!([{"type": "text", "text": "a red dot"}, {"type": "image", "mimeType": "image/png"}])
    );
    let (result, _) = call_once(&api, &vendor, &thread, "peer_tools__fail", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    // A tool the agent is not offered is not called.
    let (result, _) = call_once(&api, &vendor, &thread, "peer_tools__environment", json!({})).await;
    assert_eq!(result["result"], json!({"error": "tool not available"}));

    // Credentials never show: not in a GET, not in the trace-level log.
    let listed = api.get("/api/mcps").await.expect(200);
    assert_eq!(listed["mcps"].as_array().unwrap().len(), 2);
    assert!(!listed.to_string().contains(TOKEN));
    let log = server.stderr.lock().unwrap().clone();
    assert!(
        log.contains("TRACE") || log.contains("trace"),
        "ran at trace"
    );
    let leaked: Vec<&str> = log.lines().filter(|l| l.contains(TOKEN)).collect();
    assert!(
        leaked.is_empty(),
        "the MCP credential is logged: {leaked:#?}"
    );

    // Detached: its tools are no longer offered.
    api.delete_with(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": id}),
    )
    .await
    .expect(200);
    api.delete_with(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": id}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    vendor.push(Reply::stream(openai_answer("plain", 5)));
    let frames = api.say(&thread, json!({"content": "again"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    assert!(offered(vendor.requests().last().unwrap()).is_empty());
    // Deleted: gone, and the slug free again.
    api.delete(&format!("/api/mcps/{id}")).await.expect(200);
    api.get(&format!("/api/mcps/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_server_that_is_down_or_silent_holds_no_turn_up() {
    let vendor = Mock::start("/v1").await;
    // Accepts connections and never answers.
    let silent = Mock::start("").await;
    silent.push(Reply::After(
        Duration::from_secs(60),
        Box::new(Reply::json(200, json!({}))),
    ));
    let server = confer(&vendor, &[]);
    let api = server.admin();
    let down = api
        .post(
            "/api/mcps",
            json!({"name": "down", "url": "http://127.0.0.1:9/mcp", "timeoutMs": 2000}),
        )
        .await
        .expect(201);
    let down_id = down["id"].as_str().unwrap().to_owned();
    let read = status_of(&api, &down_id, "down").await;
    let reason = read["last_error"].as_str().unwrap();
    assert!(
        !reason.contains("127.0.0.1"),
        "no URL in the reason: {reason}"
    );
    let tested = api
        .post(&format!("/api/mcps/{down_id}/test"), json!({}))
        .await
        .expect(200);
    assert_eq!(tested["ok"], false);
    assert!(tested["error"].is_string(), "{tested}");
    let silent_id = api
        .post(
            "/api/mcps",
            json!({"name": "silent", "url": format!("{}/mcp", silent.base)}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let agent = agent_with(&api, &down_id, Value::Null).await;
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": silent_id}),
    )
    .await
    .expect(201);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_answer("no tools needed", 5)));
    let asked = Instant::now();
    let frames = api.say(&thread, json!({"content": "hi"})).await;
    let took = asked.elapsed();
    println!("a turn beside a down and a silent MCP server: {took:?}");
    assert_eq!(done_of(&frames)["ok"], true);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(offered(&vendor.requests()[0]).is_empty());
    // The silent one is still pending: its listing waits in the background.
    let silent_now = api.get(&format!("/api/mcps/{silent_id}")).await.expect(200);
    assert_eq!(silent_now["status"], "pending");
}

#[tokio::test]
async fn stdio_servers_need_a_platform_admin_and_the_allow_list_and_see_no_secrets() {
    let peers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let python = peers.join(".venv/bin/python").display().to_string();
    let script = peers.join("mcp_server.py").display().to_string();
    let allow = json!([[python, script, "--transport", "stdio"]]).to_string();
    let vendor = Mock::start("/v1").await;
    // The virtualenv's interpreter lives under /root, which the default
    // child user (65534) cannot reach: this test's children keep root's
    // uid (`mcp_stdio::…` runs one as 65534).
    let server = confer(
        &vendor,
        &[
            ("CONFER_MCP_STDIO_ALLOW", allow.as_str()),
            ("CONFER_MCP_STDIO_ENV_ALLOW", "GREETING"),
            ("CONFER_MCP_STDIO_UID", "0"),
            ("CONFER_SECRET_KEY", SECRET_KEY),
        ],
    );
    let platform = server.admin();
    let admin_key = platform.new_key("admin").await;
    let admin = server.api(&admin_key);
    let body = json!({"name": "local", "transport": "stdio", "command": python,
                      "args": [script, "--transport", "stdio"],
                      "credentials": {"env": {"GREETING": "hello"}}});
    admin
        .post("/api/mcps", body.clone())
        .await
        .expect_error(403, "FORBIDDEN");
    let detail = platform
        .post(
            "/api/mcps",
            json!({"name": "other", "transport": "stdio", "command": python,
                   "args": [script, "--transport", "stdio", "--extra"]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("command"), "{detail}");
    platform
        .post(
            "/api/mcps",
            json!({"name": "x", "transport": "stdio", "command": "/bin/sh", "url": "http://a/"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let made = platform.post("/api/mcps", body).await.expect(201);
    assert_eq!(made["transport"], "stdio");
    assert_eq!(made["has_credentials"], true);
    let id = made["id"].as_str().unwrap().to_owned();
    status_of(&platform, &id, "active").await;
    let agent = agent_with(&platform, &id, Value::Null).await;
    let thread = platform.thread(&agent, json!({})).await;
    let (result, _) = call_once(&platform, &vendor, &thread, "local__environment", json!({})).await;
    let environment = result["result"]["result"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(environment.contains("GREETING=hello"), "{environment}");
    assert!(environment.contains("PATH=/usr/bin:/bin"), "{environment}");
    for secret in ["sk-platform-key-9d8e7f", SECRET_KEY, "CONFER_", "OPENAI_"] {
        assert!(!environment.contains(secret), "{secret} in {environment}");
    }
    let (result, _) = call_once(
        &platform,
        &vendor,
        &thread,
        "local__shout",
        json!({"text": "hi"}),
    )
    .await;
    assert_eq!(result["result"], json!({"result": "HI"}));
}

#[tokio::test]
async fn the_older_sse_transport_lists_and_calls() {
    let peer = ThirdPartyMock::fastmcp("sse");
    let vendor = Mock::start("/v1").await;
    let server = confer(&vendor, &[]);
    let api = server.admin();
    let id = active_server(
        &api,
        json!({"name": "legacy", "transport": "sse", "url": format!("{}/sse", peer.base)}),
    )
    .await;
    let agent = agent_with(&api, &id, Value::Null).await;
    let thread = api.thread(&agent, json!({})).await;
    let (result, _) = call_once(
        &api,
        &vendor,
        &thread,
        "legacy__shout",
        json!({"text": "old"}),
    )
    .await;
    assert_eq!(result["result"], json!({"result": "OLD"}));
}

/// A legacy SSE "server" whose stream is one line of 100 MB without a
/// newline; the bytes it managed to send.
async fn endless_line_server() -> (String, tokio::task::JoinHandle<u64>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let sent = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = vec![0u8; 4096];
        let _ = socket.read(&mut head).await;
        let answer = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                      connection: close\r\n\r\nevent: endpoint\r\ndata: ";
        socket.write_all(answer.as_bytes()).await.unwrap();
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0u64;
        while sent < 100 * 1024 * 1024 {
            if socket.write_all(&chunk).await.is_err() {
                break;
            }
            sent += chunk.len() as u64;
        }
        sent
    });
    (base, sent)
}

#[tokio::test]
async fn a_legacy_sse_server_sending_a_line_without_end_grows_no_memory() {
    use crate::common::status_kib;
    let (base, sent) = endless_line_server().await;
    let vendor = Mock::start("/v1").await;
    // Not at trace level: a log line per chunk read would measure the log.
    let server = confer(&vendor, &[("CONFER_LOG", "info")]);
    let api = server.admin();
    let start_kib = status_kib(server.pid(), "VmRSS");
    let id = api
        .post(
            "/api/mcps",
            json!({"name": "flood", "transport": "sse", "url": format!("{base}/sse")}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let down = status_of(&api, &id, "down").await;
    // Refused as it arrived, not left to run into the server's timeout.
    assert_eq!(
        down["last_error"], "the event stream ended before naming its endpoint",
        "{down}"
    );
    let sent = sent.await.unwrap();
    let peak_kib = status_kib(server.pid(), "VmHWM");
    assert!(
        peak_kib < start_kib + 64 * 1024,
        "peak RSS {peak_kib} KiB from {start_kib} KiB at the start ({sent} bytes were sent)"
    );
    // Cut off near the bound, long before the 100 MB.
    assert!(sent < 50 * 1024 * 1024, "{sent} bytes were read");
}

#[tokio::test]
async fn a_stop_cancels_the_call_and_a_slow_call_times_out() {
    let peer = ThirdPartyMock::fastmcp("streamable-http");
    let vendor = Mock::start("/v1").await;
    let server = confer(&vendor, &[]);
    let api = server.admin();
    let id = active_server(
        &api,
        json!({"name": "peer", "url": format!("{}/mcp", peer.base), "timeoutMs": 1500}),
    )
    .await;
    let agent = agent_with(&api, &id, Value::Null).await;
    let thread = api.thread(&agent, json!({})).await;

    let (result, _) = call_once(&api, &vendor, &thread, "peer__slow", json!({"seconds": 20})).await;
    assert_eq!(result["result"], json!({"error": "timeout after 1500 ms"}));
    let cancelled = |count: u64| {
        let peer = &peer;
        async move {
            let what = format!("{count} calls cancelled");
            eventually(Duration::from_secs(10), &what, async || {
                (peer.get("/_confer/cancelled").await["count"].as_u64() >= Some(count))
                    .then_some(())
            })
            .await;
        }
    };
    cancelled(1).await;

    api.patch(&format!("/api/mcps/{id}"), json!({"timeoutMs": 60_000}))
        .await
        .expect(200);
    status_of(&api, &id, "active").await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "peer__slow",
        &json!({"seconds": 30}),
    )));
    let mut stream = api.open_stream(&thread, json!({"content": "wait"})).await;
    loop {
        let frame = stream.next_within(Duration::from_secs(10)).await.unwrap();
        if frame.event == "tool_executing" {
            break;
        }
    }
    // Stopped once the server runs the call (before, there is nothing to
    // cancel: the call never left).
    eventually(
        Duration::from_secs(10),
        "the second call started",
        async || {
            (peer.get("/_confer/cancelled").await["started"].as_u64() >= Some(2)).then_some(())
        },
    )
    .await;
    let asked = Instant::now();
    api.post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    let rest = stream.collect().await;
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert_eq!(done_of(&rest)["stopped"], true);
    cancelled(2).await;
}

#[tokio::test]
async fn a_changed_tool_list_is_read_again() {
    let peer = ThirdPartyMock::fastmcp("streamable-http");
    let vendor = Mock::start("/v1").await;
    let server = confer(&vendor, &[]);
    let api = server.admin();
    let id = active_server(
        &api,
        json!({"name": "peer", "url": format!("{}/mcp", peer.base)}),
    )
    .await;
    let agent = agent_with(&api, &id, Value::Null).await;
    let thread = api.thread(&agent, json!({})).await;
    let (result, _) = call_once(
        &api,
        &vendor,
        &thread,
        "peer__grow",
        json!({"name": "sprouted"}),
    )
    .await;
    assert_eq!(result["result"], json!({"result": "grown"}));
    eventually(Duration::from_secs(10), "the new tool listed", async || {
        let server = api.get(&format!("/api/mcps/{id}")).await.expect(200);
        server["tools_cache"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "sprouted")
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn mcp_fields_are_validated() {
    let vendor = Mock::start("/v1").await;
    let server = confer(&vendor, &[]);
    let api = server.admin();
    let url = "http://127.0.0.1:9/mcp";
    // A missing required field is a malformed body (400), as everywhere.
    let detail = api
        .post("/api/mcps", json!({"url": url}))
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("name"), "{detail}");
    for (body, field) in [
        (json!({"name": "", "url": url}), "name"),
        (json!({"name": "a"}), "url"),
        (json!({"name": "a", "url": "https://10.0.0.1/mcp"}), "url"),
        (
            json!({"name": "a", "url": url, "transport": "websocket"}),
            "transport",
        ),
        (
            json!({"name": "a", "url": url, "timeoutMs": 500}),
            "timeoutMs",
        ),
        (
            json!({"name": "a", "url": url, "oauth": "sometimes"}),
            "oauth",
        ),
        (
            json!({"name": "a", "transport": "stdio", "command": "/bin/true", "oauth": "per_user"}),
            "oauth",
        ),
        (
            json!({"name": "a", "url": url, "command": "/bin/sh"}),
            "command",
        ),
        (
            json!({"name": "a", "url": url, "credentials": {"headers": {"Accept": "x"}}}),
            "credentials.headers",
        ),
        (
            json!({"name": "a", "url": url, "credentials": {"headers": {"bad name": "x"}}}),
            "credentials.headers",
        ),
        (
            json!({"name": "a", "url": url, "credentials": {"env": {"PATH": "/tmp"}}}),
            "credentials.env",
        ),
    ] {
        let detail = api
            .post("/api/mcps", body.clone())
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.contains(field), "{body}: {detail}");
    }
    let made = api
        .post("/api/mcps", json!({"name": "a", "url": url}))
        .await
        .expect(201);
    let id = made["id"].as_str().unwrap();
    api.patch(&format!("/api/mcps/{id}"), json!({"transport": "sse"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let renamed = api
        .patch(
            &format!("/api/mcps/{id}"),
            json!({"name": "Renamed", "credentials": {"headers": {"X-Key": "k-123"}}}),
        )
        .await
        .expect(200);
    assert_eq!(renamed["slug"], "a", "the slug never changes");
    assert_eq!(renamed["has_credentials"], true);
    let cleared = api
        .patch(&format!("/api/mcps/{id}"), json!({"credentials": null}))
        .await
        .expect(200);
    assert_eq!(cleared["has_credentials"], false);
    let agent = api.agent("plain").await;
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": "0190d1f2-0000-7000-8000-000000000000"}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": id}),
    )
    .await
    .expect(201);
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": id}),
    )
    .await
    .expect(200);
}
