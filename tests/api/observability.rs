//! Traces, logs, analytics and metrics (`observability.md`) after a
//! scripted mix of turns against the mock vendor and a local webhook: an
//! answer with a tool step, a vendor error, a stopped answer and a plain
//! answer; an end user's view; `/metrics` read by the Prometheus project's
//! own text parser.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Options, Server, exp_in, jwt};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::org_tools::tool;

/// A server on the mock OpenAI vendor with a webhook tool host allowed.
async fn rig(extra: &[(&str, &str)]) -> (Mock, Mock, Server) {
    let vendor = Mock::start("/v1").await;
    let hooks = Mock::start("").await;
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-platform")
        .env(
            "CONFER_OUTBOUND_ALLOW",
            hooks.base.trim_start_matches("http://"),
        );
    for (key, value) in extra {
        options = options.env(key, value);
    }
    (vendor, hooks, Server::start_with(options))
}

/// The turns of the mix, on one thread: ok with a tool step, a vendor
/// error, stopped, ok. Returns the thread.
async fn scripted_turns(
    api: &crate::common::Api,
    vendor: &Mock,
    hooks: &Mock,
    agent: &str,
) -> String {
    tool(api, hooks, "get_weather", json!({})).await;
    let thread = api.thread(agent, json!({})).await;
    hooks.push(Reply::json(200, json!({"celsius": 18})));
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "get_weather",
        &json!({"city": "Paris"}),
    )));
    vendor.push(Reply::stream(openai_answer("Sunny.", 12)));
    let frames = api.say(&thread, json!({"content": "Weather?"})).await;
    assert_eq!(crate::common::done_of(&frames)["ok"], true);

    vendor.push(Reply::json(
        400,
        json!({"error": {"message": "bad request", "type": "invalid_request_error"}}),
    ));
    let frames = api.say(&thread, json!({"content": "Fail please"})).await;
    assert_eq!(crate::common::done_of(&frames)["ok"], false);

    vendor.push(Reply::paced(
        openai_answer("Slow words", 7),
        Duration::from_millis(400),
    ));
    let mut stream = api
        .open_stream(&thread, json!({"content": "Long story"}))
        .await;
    while let Some(frame) = stream.next().await {
        if frame.event == "token" {
            break;
        }
    }
    api.post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    stream.collect().await;

    vendor.push(Reply::stream(openai_answer("Hi!", 5)));
    api.say(&thread, json!({"content": "Hello"})).await;
    thread
}

fn ids(page: &Value) -> Vec<String> {
    page["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The logs list the mix with the right statuses and filters, a cursor
/// walk visits each turn once, a trace's spans nest under its root, and
/// the analytics add up to the usage records.
#[tokio::test]
async fn the_logs_and_analytics_show_a_mix_of_turns() {
    let (vendor, hooks, server) = rig(&[]).await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Observed", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = scripted_turns(&api, &vendor, &hooks, &agent).await;

    let page = api.get("/api/logs").await.expect(200);
    let statuses: Vec<&str> = page["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "stopped", "error", "ok"], "{page}");
    assert!(page["nextCursor"].is_null());
    let newest = &page["traces"][0];
    assert_eq!(newest["thread_id"], thread.as_str());
    assert_eq!(newest["agent_id"], agent.as_str());
    assert_eq!(newest["name"], "chat-turn");
    assert_eq!(newest["model"], "openai/gpt-4.1");
    assert_eq!(newest["otel_trace_id"].as_str().unwrap().len(), 32);
    assert!(newest["user_id"].as_str().unwrap().starts_with("apikey:"));
    let error = &page["traces"][2];
    assert_eq!(error["error_code"], "MODEL_ERROR", "{error}");
    assert_eq!(
        error["total_input_tokens"], 0,
        "a refused call costs nothing"
    );

    // Filters.
    let only = |query: &str| {
        let api = &api;
        let query = query.to_owned();
        async move { ids(&api.get(&format!("/api/logs?{query}")).await.expect(200)) }
    };
    assert_eq!(only("status=error").await.len(), 1);
    assert_eq!(only("status=stopped").await.len(), 1);
    assert_eq!(only("q=MODEL_ERR").await.len(), 1);
    assert_eq!(only("q=gpt-4.1").await.len(), 4);
    assert_eq!(only(&format!("threadId={thread}")).await.len(), 4);
    assert_eq!(only(&format!("agentId={agent}")).await.len(), 4);
    let other = api.agent("Quiet").await;
    assert!(only(&format!("agentId={other}")).await.is_empty());
    let future = "2999-01-01T00:00:00Z";
    assert!(only(&format!("since={future}")).await.is_empty());
    assert_eq!(only(&format!("until={future}")).await.len(), 4);
    for bad in ["status=done", "since=yesterday", "cursor=nope"] {
        api.get(&format!("/api/logs?{bad}"))
            .await
            .expect_error(400, "BAD_REQUEST");
    }

    // A cursor walk, one at a time, visits every turn once.
    let mut walked = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = api
            .get(&format!("/api/logs?limit=1&cursor={}", urlencode(&cursor)))
            .await
            .expect(200);
        walked.extend(ids(&page));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
        assert!(walked.len() <= 4, "the walk ends");
    }
    assert_eq!(walked, ids(&page));

    // The tool turn's spans.
    let first = walked.last().unwrap();
    let detail = api.get(&format!("/api/logs/{first}")).await.expect(200);
    let trace = &detail["trace"];
    assert_eq!(trace["llm_call_count"], 2);
    assert_eq!(trace["tool_call_count"], 1);
    assert_eq!(trace["total_input_tokens"], 30 + 12);
    let spans = detail["spans"].as_array().unwrap();
    assert_eq!(trace["span_count"], spans.len());
    let root = &spans[0];
    assert_eq!(root["kind"], "turn");
    assert!(root["parent_span_id"].is_null());
    assert_eq!(root["attributes"]["turn"], 1);
    assert!(
        spans
            .iter()
            .all(|s| s.get("input").is_none() && s.get("output").is_none()),
        "no conversation text without trace_payloads"
    );
    let root_ms = root["duration_ms"].as_f64().unwrap();
    assert!(root_ms > 0.0 && root_ms < 60_000.0, "{root_ms}");
    let kinds: Vec<&str> = spans.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "turn",
            "admission",
            "llm",
            "tool",
            "webhook",
            "llm",
            "store"
        ],
        "{detail}"
    );
    let started = |s: &Value| {
        chrono::DateTime::parse_from_rfc3339(s["started_at"].as_str().unwrap()).unwrap()
    };
    let tool_span = &spans[3];
    for span in &spans[1..] {
        // The webhook's POST is a child of its tool span, within it.
        let parent = if span["kind"] == "webhook" {
            tool_span
        } else {
            root
        };
        assert_eq!(span["parent_span_id"], parent["id"], "{span}");
        assert_eq!(span["trace_id"], trace["id"]);
        let ms = span["duration_ms"].as_f64().unwrap();
        let parent_ms = parent["duration_ms"].as_f64().unwrap();
        assert!(ms >= 0.0 && ms <= parent_ms + 1.0, "{span}");
        assert!(started(span) >= started(parent), "{span}");
    }
    let post = &spans[4];
    assert_eq!(post["name"], "POST");
    assert_eq!(post["attributes"]["status_code"], 200);
    assert_eq!(tool_span["name"], "get_weather");
    assert_eq!(tool_span["attributes"]["tool_kind"], "webhook");
    assert_eq!(tool_span["attributes"]["tool_call_id"], "call_1");
    assert_eq!(tool_span["attributes"]["is_error"], false);
    assert_eq!(spans[2]["attributes"]["provider"], "openai");
    assert_eq!(spans[2]["attributes"]["step"], 1);
    assert_eq!(spans[5]["attributes"]["step"], 2);
    assert!(spans[6]["attributes"]["bytes"].as_u64().unwrap() > 0);
    api.get("/api/logs/0190d1f2-0000-7000-8000-000000000000")
        .await
        .expect_error(404, "NOT_FOUND");

    // Analytics: sums equal the usage records and the turns made.
    let usage = api.get("/api/usage?limit=100").await.expect(200);
    let records = usage["records"].as_array().unwrap();
    let sum = |field: &str| {
        records
            .iter()
            .map(|r| r[field].as_u64().unwrap())
            .sum::<u64>()
    };
    let stats = api.get("/api/analytics?period=7d").await.expect(200);
    let summary = &stats["summary"];
    assert_eq!(summary["total_turns"], 4, "{stats}");
    assert_eq!(summary["input_tokens"], sum("input_tokens"));
    assert_eq!(summary["output_tokens"], sum("output_tokens"));
    assert_eq!(summary["errors"], 1);
    assert_eq!(summary["stopped"], 1);
    assert_eq!(summary["tool_calls"], 1);
    assert_eq!(summary["unique_users"], 1);
    assert_eq!(summary["total_threads"], 1);
    assert!(summary["p50_response_time_ms"].as_f64().unwrap() > 0.0);
    // gpt-4.1 is priced: 2 USD per million input tokens, 8 output.
    let cost = (sum("input_tokens") as f64 * 2.0 + sum("output_tokens") as f64 * 8.0) / 1e6;
    let got = summary["estimated_cost_usd"].as_f64().unwrap();
    assert!((got - cost).abs() < 1e-9, "{got} vs {cost}");
    let daily = stats["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 7);
    assert_eq!(daily[6]["total_turns"], 4, "today is last");
    assert_eq!(daily[0]["total_turns"], 0);
    assert_eq!(stats["by_agent"][0]["name"], "Observed");
    assert_eq!(stats["by_model"][0]["model"], "openai/gpt-4.1");
    assert_eq!(stats["top_tools"][0]["tool_name"], "get_weather");
    assert_eq!(stats["top_tools"][0]["call_count"], 1);
    assert_eq!(stats["period"]["days"], 7);
    let quiet = api
        .get(&format!("/api/analytics?agentId={other}"))
        .await
        .expect(200);
    assert_eq!(quiet["summary"]["total_turns"], 0);
    assert_eq!(quiet["daily"].as_array().unwrap().len(), 30);
    api.get("/api/analytics?period=8d")
        .await
        .expect_error(400, "BAD_REQUEST");

    // Killed and started again: every acknowledged turn's trace is listed,
    // spans and all (the trace files are synced by the flush that
    // acknowledges the answer, and made whole at start).
    let listed = ids(&api.get("/api/logs").await.expect(200));
    let first = api
        .get(&format!("/api/logs/{}", listed[0]))
        .await
        .expect(200);
    let server = server.kill_and_restart();
    let api = server.admin();
    assert_eq!(ids(&api.get("/api/logs").await.expect(200)), listed);
    let again = api
        .get(&format!("/api/logs/{}", listed[0]))
        .await
        .expect(200);
    assert_eq!(again, first);

    // A deleted thread's traces go (in the background); the analytics stay.
    api.delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    crate::common::eventually(Duration::from_secs(10), "traces purged", async || {
        ids(&api.get("/api/logs").await.expect(200))
            .is_empty()
            .then_some(())
    })
    .await;
    let after = api.get("/api/analytics?period=7d").await.expect(200);
    assert_eq!(after["summary"]["total_turns"], 4);
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An end user sees the traces of the turns it sent; another's thread is
/// 403, its trace too; its analytics count its own turns.
#[tokio::test]
async fn an_end_user_sees_only_its_own_turns() {
    let (vendor, _hooks, server) = rig(&[]).await;
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin
        .agent_with(json!({"name": "Shared", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let theirs = admin.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_answer("For admin", 5)));
    admin.say(&theirs, json!({"content": "Hi"})).await;
    let alice = server.api(&jwt(
        json!({"sub": "alice", "exp": exp_in(600), "org_id": org}),
    ));
    let mine = alice.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_answer("For alice", 5)));
    alice.say(&mine, json!({"content": "Hi"})).await;

    let own = alice.get("/api/logs").await.expect(200);
    assert_eq!(own["traces"].as_array().unwrap().len(), 1, "{own}");
    assert_eq!(own["traces"][0]["user_id"], "alice");
    assert_eq!(own["traces"][0]["thread_id"], mine.as_str());
    alice
        .get(&format!("/api/logs?threadId={theirs}"))
        .await
        .expect_error(403, "FORBIDDEN");
    let all = admin.get("/api/logs").await.expect(200);
    assert_eq!(all["traces"].as_array().unwrap().len(), 2);
    let admins = all["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["thread_id"] == theirs.as_str())
        .unwrap();
    alice
        .get(&format!("/api/logs/{}", admins["id"].as_str().unwrap()))
        .await
        .expect_error(403, "FORBIDDEN");
    let stats = alice.get("/api/analytics").await.expect(200);
    assert_eq!(stats["summary"]["total_turns"], 1, "{stats}");
    assert_eq!(stats["summary"]["unique_users"], 1);
    let org_stats = admin.get("/api/analytics").await.expect(200);
    assert_eq!(org_stats["summary"]["total_turns"], 2);
    assert_eq!(org_stats["summary"]["unique_users"], 2);
}

/// A running turn is listed as `running` until it ends.
#[tokio::test]
async fn a_running_turn_is_listed_as_running() {
    let (vendor, _hooks, server) = rig(&[]).await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Slow", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::paced(
        openai_answer("Slowly", 5),
        Duration::from_millis(300),
    ));
    let stream = api.open_stream(&thread, json!({"content": "Go"})).await;
    // The stream's headers may come before the turn has loaded its thread
    // (when its trace starts): wait for it, while the answer is still paced.
    let running =
        crate::common::eventually(Duration::from_secs(5), "a running trace", async || {
            let page = api.get("/api/logs?status=running").await.expect(200);
            (!page["traces"].as_array().unwrap().is_empty()).then_some(page)
        })
        .await;
    assert_eq!(running["traces"].as_array().unwrap().len(), 1, "{running}");
    let id = running["traces"][0]["id"].as_str().unwrap().to_owned();
    let detail = api.get(&format!("/api/logs/{id}")).await.expect(200);
    assert_eq!(detail["trace"]["status"], "running");
    stream.collect().await;
    let done = api.get(&format!("/api/logs/{id}")).await.expect(200);
    assert_eq!(done["trace"]["status"], "ok");
    assert!(
        api.get("/api/logs?status=running").await.expect(200)["traces"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// With `trace_payloads`, spans carry what each step was given and gave.
#[tokio::test]
async fn payloads_are_recorded_when_asked() {
    let (vendor, hooks, server) = rig(&[("CONFER_TRACE_PAYLOADS", "true")]).await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Verbose", "defaultModel": "openai/gpt-4.1"}))
        .await;
    scripted_turns(&api, &vendor, &hooks, &agent).await;
    let logs = api.get("/api/logs").await.expect(200);
    let first = logs["traces"][3]["id"].as_str().unwrap().to_owned();
    let detail = api.get(&format!("/api/logs/{first}")).await.expect(200);
    let spans = detail["spans"].as_array().unwrap();
    assert_eq!(spans[0]["input"], "Weather?");
    assert_eq!(spans[0]["output"], "Sunny.");
    assert_eq!(spans[3]["input"], r#"{"city":"Paris"}"#);
    assert_eq!(spans[3]["output"], r#"{"celsius":18}"#);
    // spans[4] is the webhook's POST, under the tool span.
    assert_eq!(spans[5]["output"], "Sunny.");
}

/// Parses Prometheus text with the Prometheus project's Python parser
/// (installed by `tests/peers/install`); its families as JSON.
fn parse_metrics(text: &str) -> Value {
    use std::io::Write;
    let peers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let mut child = std::process::Command::new(peers.join(".venv/bin/python"))
        .arg(peers.join("parse-metrics.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run `tests/peers/install` first (the README's test command does)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the Prometheus parser refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The value of the sample `name` whose labels include `labels`.
fn sample(families: &Value, name: &str, labels: &Value) -> Option<f64> {
    families.as_object()?.values().find_map(|family| {
        family["samples"].as_array()?.iter().find_map(|s| {
            let matches = s["name"] == name
                && labels
                    .as_object()?
                    .iter()
                    .all(|(k, v)| s["labels"].get(k) == Some(v));
            matches.then(|| s["value"].as_f64()).flatten()
        })
    })
}

/// `GET /metrics` with `token`: its status and text.
async fn metrics_text(server: &Server, token: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(format!("{}/metrics", server.anonymous().base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

async fn scrape(server: &Server) -> Value {
    let (status, text) = metrics_text(server, None).await;
    assert_eq!(status, 200);
    parse_metrics(&text)
}

/// `/metrics` parses, has every family of the contract, and its counters
/// move as turns happen; no label carries a thread or user id.
#[tokio::test]
async fn metrics_parse_and_move_with_the_turns() {
    let (vendor, hooks, server) = rig(&[]).await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Metered", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let before = scrape(&server).await;
    let ok = json!({"status": "ok"});
    let turns_before = sample(&before, "confer_turns_total", &ok).unwrap_or(0.0);
    let thread = scripted_turns(&api, &vendor, &hooks, &agent).await;
    let after = scrape(&server).await;
    assert_eq!(
        sample(&after, "confer_turns_total", &ok),
        Some(turns_before + 2.0)
    );
    for status in ["error", "stopped"] {
        assert_eq!(
            sample(&after, "confer_turns_total", &json!({"status": status})),
            Some(1.0)
        );
    }
    assert_eq!(
        sample(
            &after,
            "confer_tool_calls_total",
            &json!({"kind": "webhook", "outcome": "ok"})
        ),
        Some(1.0)
    );
    let input = sample(
        &after,
        "confer_tokens_total",
        &json!({"provider": "openai", "model": "gpt-4.1", "direction": "input"}),
    );
    let usage = api.get("/api/usage?limit=100").await.expect(200);
    let billed: u64 = usage["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["input_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(input, Some(billed as f64), "{after}");
    let sends = sample(
        &after,
        "confer_http_requests_total",
        &json!({"route": "/api/threads/{thread_id}/messages", "method": "POST", "status": "200"}),
    );
    assert_eq!(sends, Some(4.0));
    assert!(sample(&after, "confer_turn_duration_seconds_count", &json!({})).unwrap() >= 4.0);
    assert!(
        sample(
            &after,
            "confer_ttft_seconds_count",
            &json!({"provider": "openai"})
        )
        .is_some()
    );
    assert!(sample(&after, "confer_store_commit_seconds_count", &json!({})).unwrap() > 0.0);
    for gauge in [
        "confer_active_turns",
        "confer_open_streams",
        "confer_queued_sends",
        "confer_live_thread_actors",
        "confer_rate_limited_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_cpu_seconds_total",
    ] {
        assert!(
            sample(&after, gauge, &json!({})).is_some(),
            "{gauge}: {after}"
        );
    }
    assert_eq!(sample(&after, "confer_active_turns", &json!({})), Some(0.0));
    let (_, text) = metrics_text(&server, None).await;
    assert!(!text.contains(&thread), "no label carries a thread id");
    let labels: HashSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('{'))
        .flat_map(|(_, rest)| {
            rest.split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, _)| k)
        })
        .collect();
    for forbidden in ["thread", "thread_id", "user", "user_id", "key", "key_id"] {
        assert!(!labels.contains(forbidden), "{labels:?}");
    }
}

/// With `metrics_token` set, `/metrics` needs it as a bearer token.
#[tokio::test]
async fn a_metrics_token_guards_the_metrics() {
    let (_vendor, _hooks, server) = rig(&[("CONFER_METRICS_TOKEN", "scrape-secret-123")]).await;
    server
        .anonymous()
        .get("/metrics")
        .await
        .expect_error(401, "UNAUTHORIZED");
    server
        .api("scrape-secret-124")
        .get("/metrics")
        .await
        .expect_error(401, "UNAUTHORIZED");
    let (status, text) = metrics_text(&server, Some("scrape-secret-123")).await;
    assert_eq!(status, 200);
    assert!(text.contains("confer_active_turns"));
}

/// With an OTLP endpoint set, the stored spans arrive at a collector
/// stand-in as OTLP/HTTP protobuf, `service.name=confer`; a `traceparent`
/// on the send is the trace the turn continues.
#[tokio::test]
async fn spans_are_exported_over_otlp() {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;

    let collector = Mock::start("").await;
    for _ in 0..8 {
        collector.push(Reply::json(200, json!({})));
    }
    let server =
        Server::start_with(Options::default().env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.base));
    let api = server.admin();
    let agent = api.agent("Exported").await;
    let thread = api.thread(&agent, json!({})).await;
    let caller = "4bf92f3577b34da6a3ce929d0e0e4736";
    let sent = api
        .request_with(
            reqwest::Method::POST,
            &format!("/api/threads/{thread}/messages"),
            Some(json!({"content": "traced"})),
            &[("traceparent", &format!("00-{caller}-00f067aa0ba902b7-01"))],
        )
        .await;
    assert_eq!(sent.status.as_u16(), 200);
    api.say(&thread, json!({"content": "untraced"})).await;
    let logs = api.get("/api/logs").await.expect(200);
    let traces = logs["traces"].as_array().unwrap();
    assert_eq!(traces[1]["otel_trace_id"], caller);
    let own = traces[0]["otel_trace_id"].as_str().unwrap().to_owned();
    assert_eq!(own, traces[0]["id"].as_str().unwrap().replace('-', ""));
    let want: u64 = traces
        .iter()
        .map(|t| t["span_count"].as_u64().unwrap())
        .sum();

    let spans =
        crate::common::eventually(Duration::from_secs(10), "spans exported", async || {
            let mut spans = Vec::new();
            for request in collector.requests() {
                assert_eq!(request.path, "/v1/traces");
                assert_eq!(
                    request.header("content-type"),
                    Some("application/x-protobuf")
                );
                let decoded = ExportTraceServiceRequest::decode(request.bytes.as_slice()).unwrap();
                for resource in decoded.resource_spans {
                    let attributes = resource.resource.unwrap().attributes;
                    assert!(attributes.iter().any(|kv| kv.key == "service.name"
                        && format!("{:?}", kv.value).contains("confer")));
                    for scope in resource.scope_spans {
                        spans.extend(scope.spans);
                    }
                }
            }
            (spans.len() as u64 == want).then_some(spans)
        })
        .await;
    let ids: HashSet<Vec<u8>> = spans.iter().map(|s| s.span_id.clone()).collect();
    assert_eq!(ids.len(), spans.len(), "span ids are distinct");
    let roots: Vec<_> = spans
        .iter()
        .filter(|s| s.parent_span_id.is_empty())
        .collect();
    assert_eq!(roots.len(), 2);
    for span in &spans {
        assert!(span.parent_span_id.is_empty() || ids.contains(&span.parent_span_id));
        assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
    }
    let trace_ids: HashSet<String> = spans.iter().map(|s| hex::encode(&s.trace_id)).collect();
    assert_eq!(trace_ids, HashSet::from([caller.to_owned(), own]));
}

/// A collector that cannot be reached loses spans, counted, and delays
/// no turn.
#[tokio::test]
async fn spans_an_unreachable_collector_loses_are_counted() {
    let server = Server::start_with(
        Options::default().env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
    );
    let api = server.admin();
    let agent = api.agent("Unheard").await;
    let thread = api.thread(&agent, json!({})).await;
    let frames = api.say(&thread, json!({"content": "hello"})).await;
    assert_eq!(crate::common::done_of(&frames)["ok"], true);
    crate::common::eventually(
        Duration::from_secs(10),
        "dropped spans counted",
        async || {
            let families = scrape(&server).await;
            sample(&families, "confer_otel_dropped_spans_total", &json!({})).filter(|n| *n > 0.0)
        },
    )
    .await;
}
