//! Confer's own cost of one server-side tool step (a model call that asks
//! for an org tool, the signed webhook call, the model call with its
//! result), with a mock vendor and a webhook on loopback that both answer at
//! once: shared by `benches/tool_steps.rs` and the load generator's
//! `--targets` (issue 18's table).
//!
//! The overhead per step is the p50 of a turn with one tool step, less the
//! p50 of a turn without (same vendor, same thread shape), less what the
//! extra vendor call and the webhook call cost when made directly from
//! here (their own p50): what is left is Confer's work for the step.
//!
//! [`Step::Delegate`] measures a delegate call the same way
//! (`benches/delegation.rs`, issue 38): the tool is a delegated agent on
//! `builtin/echo`, so what is left is the child thread's creation, its
//! turn's start and run, and the result's way back.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

const KEY: &str = "bench-key-0123456789abcdef0123456789";
const TURNS: usize = 300;

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let data = json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {data}\n\n")
}

/// An OpenAI-format vendor: a request that offers tools and does not end
/// with a tool result gets a call of the first tool offered; any other a
/// short text.
async fn serve_vendor(mut socket: TcpStream) {
    let Some((_, body)) = super::read_http_request(&mut socket).await else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let answered = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .is_some_and(|m| m["role"] == "tool");
    let first = body["tools"][0]["function"]["name"]
        .as_str()
        .map(str::to_owned);
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    );
    if let (Some(name), false) = (first, answered) {
        out.push_str(&chunk(
            json!({"tool_calls": [{"index": 0, "id": format!("call_{}", uuid::Uuid::new_v4().simple()),
                   "type": "function", "function": {"name": name, "arguments": "{\"q\":1,\"task\":\"echo this back\"}"}}]}),
            None,
        ));
        out.push_str(&chunk(json!({}), Some("tool_calls")));
    } else {
        out.push_str(&chunk(json!({"content": "done"}), None));
        out.push_str(&chunk(json!({}), Some("stop")));
    }
    out.push_str("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n");
    let _ = socket.write_all(out.as_bytes()).await;
    let _ = socket.shutdown().await;
}

/// A webhook that answers `{"ok": true}` at once, every request of a
/// kept-alive connection.
async fn serve_webhook(mut socket: TcpStream) {
    let body = "{\"ok\":true}";
    let out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n{body}",
        body.len()
    );
    while super::read_http_request(&mut socket).await.is_some() {
        if socket.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

async fn listen(
    serve: fn(TcpStream) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let _ = socket.set_nodelay(true);
            tokio::spawn(serve(socket));
        }
    });
    address.to_string()
}

/// One send read to its `done`; its wall time.
async fn say(http: &reqwest::Client, base: &str, thread: &str, body: &Value) -> Duration {
    let (took, text) = super::send_to_done(http, base, KEY, thread, body).await;
    let stepped = text.contains("event: tool_result");
    assert_eq!(
        stepped,
        body.get("toolProfile").is_none(),
        "a tool step exactly when tools are offered: {text}"
    );
    took
}

async fn turns(http: &reqwest::Client, base: &str, agent: &str, body: Value) -> Vec<Duration> {
    let mut times = Vec::with_capacity(TURNS);
    let mut thread = String::new();
    for turn in 0..TURNS + 20 {
        if turn % 10 == 0 {
            // Short, equal histories.
            thread = post(http, base, "/api/threads", json!({"agentId": agent})).await["id"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        let took = say(http, base, &thread, &body).await;
        if turn >= 20 {
            times.push(took);
        }
    }
    times.sort();
    times
}

async fn post(http: &reqwest::Client, base: &str, path: &str, body: Value) -> Value {
    super::post_json(http, base, KEY, path, body).await
}

/// The p50 of `TURNS` direct calls of `url` with `body`, read to the end.
async fn direct(http: &reqwest::Client, url: &str, body: Value) -> Duration {
    let mut times = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        let started = Instant::now();
        let response = http.post(url).json(&body).send().await.unwrap();
        let _ = response.bytes().await.unwrap();
        times.push(started.elapsed());
    }
    times.sort();
    super::percentile(&times, 0.5)
}

/// What one measurement found.
pub struct ToolStep {
    /// Turns without a tool step, sorted.
    pub plain: Vec<Duration>,
    /// Turns with one tool step, sorted.
    pub stepped: Vec<Duration>,
    /// A vendor call and a webhook call made directly, p50.
    pub vendor_call: Duration,
    pub webhook_call: Duration,
    /// Confer's own overhead per step (see the module comment).
    pub overhead: Duration,
}

/// A `confer serve` command (from [`super::confer_command`] or
/// [`super::confer_command_of`], the data directory set) for [`measure`].
pub fn server_command(binary: Option<&std::path::Path>, data: &std::path::Path) -> Command {
    match binary {
        Some(binary) => super::confer_command_of(binary, data, KEY),
        None => super::confer_command(data, KEY),
    }
}

/// What the tool of the measured step is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An org tool: a webhook on loopback.
    Webhook,
    /// A delegated agent on `builtin/echo`.
    Delegate,
}

/// Starts the server of `command` (from [`server_command`]) against a mock
/// vendor and webhook of its own and measures a tool step.
pub async fn measure(command: Command, data: tempfile::TempDir) -> ToolStep {
    measure_step(command, data, Step::Webhook).await
}

/// [`measure`] with the tool `step`.
pub async fn measure_step(mut command: Command, data: tempfile::TempDir, step: Step) -> ToolStep {
    let vendor = listen(|s| Box::pin(serve_vendor(s))).await;
    let webhook = listen(|s| Box::pin(serve_webhook(s))).await;
    command
        .env("OPENAI_BASE_URL", format!("http://{vendor}/v1"))
        .env("OPENAI_API_KEY", "sk-bench")
        .env("CONFER_OUTBOUND_ALLOW", &webhook)
        .stderr(Stdio::null());
    let (child, base) = super::spawn_listening(command);
    let server = super::RunningServer { child, base, data };
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let base = server.base.clone();
    if step == Step::Webhook {
        let made = post(
            &http,
            &base,
            "/api/tools",
            json!({"name": "lookup", "url": format!("http://{webhook}/hook")}),
        )
        .await;
        assert!(made["id"].is_string(), "{made}");
    }
    let agent = post(
        &http,
        &base,
        "/api/agents",
        json!({"name": "bench", "defaultModel": "openai/gpt-4.1"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    if step == Step::Delegate {
        let echoer = post(
            &http,
            &base,
            "/api/agents",
            json!({"name": "echoer", "defaultModel": "builtin/echo"}),
        )
        .await;
        let made = http
            .put(format!("{base}/api/agents/{agent}/delegated"))
            .bearer_auth(KEY)
            .json(&json!({"delegates": [{"agentId": echoer["id"]}]}))
            .send()
            .await
            .unwrap();
        assert!(made.status().is_success(), "{made:?}");
    }

    // A profile the agent does not define offers no server tool: one call.
    let plain = turns(
        &http,
        &base,
        &agent,
        json!({"content": "hi", "toolProfile": "none"}),
    )
    .await;
    let stepped = turns(&http, &base, &agent, json!({"content": "hi"})).await;
    let vendor_call = direct(
        &http,
        &format!("http://{vendor}/v1/chat/completions"),
        json!({"messages": [{"role": "tool", "content": "x"}]}),
    )
    .await;
    let webhook_call = match step {
        Step::Webhook => direct(&http, &format!("http://{webhook}/hook"), json!({})).await,
        Step::Delegate => Duration::ZERO,
    };
    let overhead = super::percentile(&stepped, 0.5)
        .saturating_sub(super::percentile(&plain, 0.5))
        .saturating_sub(vendor_call + webhook_call);
    ToolStep {
        plain,
        stepped,
        vendor_call,
        webhook_call,
        overhead,
    }
}
