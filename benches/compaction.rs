//! Compaction benchmark: what Confer's summary compaction costs a turn,
//! beyond the summary call itself. A mock OpenAI-format vendor on loopback
//! answers at once (a short summary when asked to compact, a short answer
//! otherwise, reporting the request's size as its prompt tokens). Starts the
//! real `confer` binary (release under `cargo bench`) on a temporary data
//! directory.
//!
//! Run: `cargo bench --bench compaction` (prints a markdown table).
//!
//! Each thread takes two sends of about 1,250 tokens; the second is
//! measured. With compaction on (threshold 1,000) the second send first
//! summarizes the first exchange. Confer's own cost of a compaction is the
//! p50 of the compacting second send, less the p50 of the plain one, less
//! the p50 of a direct vendor call from here (the summary call's own time):
//! the plan, the marker stored and flushed, the usage record.

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

#[path = "support/mod.rs"]
mod support;

const KEY: &str = "bench-key-0123456789abcdef0123456789";
const THREADS: usize = 200;

/// An OpenAI-format vendor answering at once.
async fn serve_vendor(mut socket: TcpStream) {
    let Some((_, body)) = support::read_http_request(&mut socket).await else {
        return;
    };
    let size = body.len() / 4;
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let compacting = parsed["messages"][0]["content"]
        .as_str()
        .is_some_and(|s| s.contains("compacting a conversation"));
    let text = if compacting {
        "The user sent a long text; the assistant acknowledged it."
    } else {
        "Noted."
    };
    let chunk =
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    let usage = json!({"choices": [], "usage": {"prompt_tokens": size, "completion_tokens": 12}});
    let out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: {chunk}\n\ndata: {usage}\n\ndata: [DONE]\n\n"
    );
    let _ = socket.write_all(out.as_bytes()).await;
    let _ = socket.shutdown().await;
}

async fn post(http: &reqwest::Client, base: &str, path: &str, body: Value) -> Value {
    support::post_json(http, base, KEY, path, body).await
}

async fn put(http: &reqwest::Client, base: &str, path: &str, body: Value) {
    let status = http
        .put(format!("{base}{path}"))
        .bearer_auth(KEY)
        .json(&body)
        .send()
        .await
        .unwrap()
        .status();
    assert!(status.is_success(), "{path}: {status}");
}

/// One send read to its `done`: its wall time and whether it compacted.
async fn say(http: &reqwest::Client, base: &str, thread: &str, content: &str) -> (Duration, bool) {
    let (took, text) =
        support::send_to_done(http, base, KEY, thread, &json!({"content": content})).await;
    (took, text.contains("event: compaction"))
}

/// The second sends of `THREADS` two-send threads of `agent`.
async fn second_sends(
    http: &reqwest::Client,
    base: &str,
    agent: &str,
    compacts: bool,
) -> Vec<Duration> {
    let long = "lorem ipsum ".repeat(420);
    let mut times = Vec::with_capacity(THREADS);
    for n in 0..THREADS + 10 {
        let thread = post(http, base, "/api/threads", json!({"agentId": agent})).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (_, first_compacted) = say(http, base, &thread, &long).await;
        assert!(!first_compacted, "nothing to summarize on a first send");
        let (took, compacted) = say(http, base, &thread, &long).await;
        assert_eq!(compacted, compacts);
        if n >= 10 {
            times.push(took);
        }
    }
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let vendor = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let _ = socket.set_nodelay(true);
            tokio::spawn(serve_vendor(socket));
        }
    });
    let data = tempfile::tempdir().unwrap();
    let mut command = support::confer_command(data.path(), KEY);
    command
        .env("OPENAI_BASE_URL", format!("http://{vendor}/v1"))
        .env("OPENAI_API_KEY", "sk-bench")
        .stderr(Stdio::null());
    let (child, base) = support::spawn_listening(command);
    let server = support::RunningServer { child, base, data };
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let base = server.base.clone();
    let mut agents = Vec::new();
    for (name, enabled) in [("plain", false), ("compacting", true)] {
        let agent = post(
            &http,
            &base,
            "/api/agents",
            json!({"name": name, "defaultModel": "gpt-4.1"}),
        )
        .await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        put(
            &http,
            &base,
            &format!("/api/agents/{agent}/compaction"),
            json!({"enabled": enabled, "vendorBCompactThreshold": 1000}),
        )
        .await;
        agents.push(agent);
    }
    let plain = second_sends(&http, &base, &agents[0], false).await;
    let compacting = second_sends(&http, &base, &agents[1], true).await;
    let mut direct = Vec::with_capacity(THREADS);
    for _ in 0..THREADS {
        let started = Instant::now();
        let response = http
            .post(format!("http://{vendor}/v1/chat/completions"))
            .json(&json!({"messages": [{"role": "system", "content": "You are compacting a conversation"},
                {"role": "user", "content": "lorem ipsum ".repeat(420)}]}))
            .send()
            .await
            .unwrap();
        let _ = response.bytes().await.unwrap();
        direct.push(started.elapsed());
    }
    direct.sort();
    let vendor_call = support::percentile(&direct, 0.5);
    let overhead = support::percentile(&compacting, 0.5)
        .saturating_sub(support::percentile(&plain, 0.5))
        .saturating_sub(vendor_call);
    support::print_latencies(&[
        ("second send, no compaction (ms)", &plain),
        ("second send, compacted first (ms)", &compacting),
    ]);
    println!(
        "\ndirect from here, p50: the summary call {} ms",
        support::ms(vendor_call)
    );
    println!(
        "Confer's own cost of a compaction (p50 difference less the summary call): {} ms",
        support::ms(overhead)
    );
}
