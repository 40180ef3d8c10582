//! Turn benchmark: the service's own overhead per turn and per streamed token
//! with the built-in model (no vendor latency), concurrent throughput, and
//! how fast a stop ends a stream. Starts the real `confer` binary (release
//! under `cargo bench`) on a temporary data directory, like a deployment.
//!
//! Run: `cargo bench --bench turns` (prints a markdown table).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/mod.rs"]
mod support;

const KEY: &str = "bench-key-0123456789abcdef0123456789";

struct Server {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

impl Server {
    fn start(delay_ms: u64) -> Self {
        let data = tempfile::tempdir().expect("temp dir");
        let mut command = support::confer_command(data.path(), KEY);
        command
            .env("CONFER_BUILTIN_DELAY_MS", delay_ms.to_string())
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .stderr(Stdio::null());
        let (child, base) = support::spawn_listening(command);
        Self {
            child,
            base,
            _data: data,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        support::kill_server(&mut self.child);
    }
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
}

/// What one streamed answer looked like from the client.
struct Answer {
    elapsed: Duration,
    tokens: usize,
    done: bool,
}

impl Client {
    async fn post(&self, path: &str, body: Value) -> Value {
        support::post_json(&self.http, &self.base, KEY, path, body).await
    }

    async fn thread(&self, agent: &str) -> String {
        let thread = self.post("/api/threads", json!({"agentId": agent})).await;
        thread["id"].as_str().unwrap().to_owned()
    }

    /// Sends and reads the stream to its end; `on_first_token` runs once.
    async fn say(
        &self,
        thread: &str,
        content: &str,
        stop_after_first: bool,
    ) -> (Answer, Option<Duration>) {
        let started = Instant::now();
        let mut response = self
            .http
            .post(format!("{}/api/threads/{thread}/messages", self.base))
            .bearer_auth(KEY)
            .json(&json!({"content": content}))
            .send()
            .await
            .unwrap();
        let (mut buffer, mut tokens, mut done) = (String::new(), 0, false);
        let mut stop_sent: Option<Instant> = None;
        while let Some(chunk) = response.chunk().await.unwrap() {
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let frame: String = buffer.drain(..end + 2).collect();
                if frame.contains("event: token") {
                    tokens += 1;
                    if stop_after_first && stop_sent.is_none() {
                        stop_sent = Some(Instant::now());
                        self.post(&format!("/api/threads/{thread}/stop"), json!({}))
                            .await;
                    }
                } else if frame.contains("event: done") {
                    done = true;
                }
            }
        }
        let answer = Answer {
            elapsed: started.elapsed(),
            tokens,
            done,
        };
        (answer, stop_sent.map(|at| at.elapsed()))
    }
}

async fn sequential(client: &Client, agent: &str, words: usize, turns: usize) -> Vec<Duration> {
    let content = vec!["word"; words].join(" ");
    let mut times = Vec::with_capacity(turns);
    let mut thread = client.thread(agent).await;
    for turn in 0..turns {
        if turn % 20 == 0 {
            thread = client.thread(agent).await; // keep histories short and equal
        }
        let (answer, _) = client.say(&thread, &content, false).await;
        assert!(answer.done && answer.tokens == words);
        times.push(answer.elapsed);
    }
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes harness flags such as `--bench`; nothing to parse.
    let server = Server::start(0);
    let client = Client {
        http: reqwest::Client::builder()
            .tcp_nodelay(true)
            .build()
            .unwrap(),
        base: server.base.clone(),
    };
    let agent = client.post("/api/agents", json!({"name": "bench"})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Warm-up: start arbiters, page in the store.
    sequential(&client, &agent, 10, 40).await;
    let short = sequential(&client, &agent, 1, 400).await;
    let long = sequential(&client, &agent, 201, 400).await;
    let per_token =
        (support::percentile(&long, 0.5).saturating_sub(support::percentile(&short, 0.5))) / 200;

    // Concurrent throughput: 64 threads x 25 turns of 20 tokens.
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..64 {
        let client = client.clone();
        let agent = agent.clone();
        tasks.push(tokio::spawn(async move {
            let thread = client.thread(&agent).await;
            let content = vec!["token"; 20].join(" ");
            let mut tokens = 0;
            for _ in 0..25 {
                let (answer, _) = client.say(&thread, &content, false).await;
                assert!(answer.done);
                tokens += answer.tokens;
            }
            tokens
        }));
    }
    let mut tokens = 0;
    for task in tasks {
        tokens += task.await.unwrap();
    }
    let wall = started.elapsed();
    let turns_per_s = (64.0 * 25.0) / wall.as_secs_f64();
    let tokens_per_s = tokens as f64 / wall.as_secs_f64();
    drop(server);

    // Stop latency: a slow answer (20 ms/token), stopped after its first token.
    let slow = Server::start(20);
    let client = Client {
        http: reqwest::Client::builder()
            .tcp_nodelay(true)
            .build()
            .unwrap(),
        base: slow.base.clone(),
    };
    let agent = client.post("/api/agents", json!({"name": "slow"})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut stops = Vec::new();
    for _ in 0..30 {
        let thread = client.thread(&agent).await;
        let (answer, stop) = client.say(&thread, &vec!["w"; 100].join(" "), true).await;
        assert!(answer.done);
        stops.push(stop.unwrap());
    }
    stops.sort();

    support::print_latencies(&[
        ("turn, 1 token (ms)", &short),
        ("turn, 201 tokens (ms)", &long),
        ("stop → end of stream (ms)", &stops),
    ]);
    println!(
        "\nper streamed token (p50 difference / 200): {:.1} µs",
        per_token.as_secs_f64() * 1e6
    );
    println!(
        "concurrent: 64 threads x 25 turns x 20 tokens: {turns_per_s:.0} turns/s, {tokens_per_s:.0} tokens/s ({:.2} s)",
        wall.as_secs_f64()
    );
}
