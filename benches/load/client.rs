//! The client: one turn as a stream, timed token by token, against
//! Confer or the mock directly.

use super::*;

#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) http: reqwest::Client,
    pub(crate) base: String,
}

impl Client {
    pub(crate) fn new(base: &str) -> Self {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .pool_max_idle_per_host(4096)
            .build()
            .unwrap();
        Self {
            http,
            base: base.to_owned(),
        }
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Value {
        support::post_json(&self.http, &self.base, KEY, path, body).await
    }

    pub(crate) async fn get(&self, path: &str) -> (Duration, Value) {
        let started = Instant::now();
        let body = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (started.elapsed(), body)
    }

    pub(crate) async fn agent(&self, model: &str) -> String {
        let agent = self
            .post(
                "/api/agents",
                json!({"name": "load", "defaultModel": model}),
            )
            .await;
        agent["id"].as_str().unwrap().to_owned()
    }

    pub(crate) async fn thread(&self, agent: &str) -> String {
        self.post("/api/threads", json!({"agentId": agent})).await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// Per-token and first-token delays one turn added, in µs.
#[derive(Default)]
pub(crate) struct TurnSample {
    pub(crate) added_ttft: Option<u64>,
    pub(crate) added_gaps: Vec<u64>,
    pub(crate) tokens: usize,
    pub(crate) ok: bool,
    pub(crate) message_id: Option<String>,
}

/// Where a stream is read from.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Path_ {
    Confer,
    Direct,
    DirectAnthropic,
}

/// Sends one turn and reads it to the end, timing every stamped token.
pub(crate) async fn turn(
    client: &Client,
    path: Path_,
    thread: &str,
    model: &str,
    content: &str,
) -> TurnSample {
    let started = now_us();
    let request = match path {
        Path_::Confer => client
            .http
            .post(format!("{}/api/threads/{thread}/messages", client.base))
            .bearer_auth(KEY)
            .json(&json!({"content": content})),
        Path_::Direct => client
            .http
            .post(format!("{}/v1/chat/completions", client.base))
            .json(&json!({"model": model, "stream": true, "messages": [{"role": "user", "content": content}]})),
        Path_::DirectAnthropic => client
            .http
            .post(format!("{}/v1/messages", client.base))
            .json(&json!({"model": model, "stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": content}]})),
    };
    let mut sample = TurnSample::default();
    let Ok(mut response) = request.send().await else {
        return sample;
    };
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let received = now_us();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue;
            };
            let Ok(data) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let text = match path {
                Path_::Confer if frame.contains("event: token") => {
                    data["delta"].as_str().map(str::to_owned)
                }
                Path_::Confer if frame.contains("event: done") => {
                    sample.ok = data["ok"] == true;
                    sample.message_id = data["messageId"].as_str().map(str::to_owned);
                    None
                }
                Path_::Direct => data["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned),
                Path_::DirectAnthropic => data["delta"]["text"].as_str().map(str::to_owned),
                Path_::Confer => None,
            };
            let Some(text) = text else { continue };
            let Some((recv, sent)) = text.trim().split_once(':') else {
                continue;
            };
            let (recv, sent): (u64, u64) = (recv.parse().unwrap_or(0), sent.parse().unwrap_or(0));
            sample.tokens += 1;
            if sample.added_ttft.is_none() {
                let total = received.saturating_sub(started);
                sample.added_ttft = Some(total.saturating_sub(sent.saturating_sub(recv)));
            }
            sample.added_gaps.push(received.saturating_sub(sent));
        }
    }
    if path != Path_::Confer {
        sample.ok = sample.tokens > 0;
    }
    sample
}

pub(crate) fn percentiles(mut values: Vec<u64>) -> Value {
    if values.is_empty() {
        return json!(null);
    }
    values.sort_unstable();
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0;
    json!({"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": at(1.0), "n": values.len()})
}

pub(crate) fn self_cpu() -> f64 {
    proc_usage(std::process::id()).0
}
