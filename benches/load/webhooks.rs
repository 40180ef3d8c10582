//! Runs through a runner's webhook trigger (`runners.md` Acceptance 9, its
//! webhook half): 32 senders POST to one webhook URL for a while, each
//! answer a queued run of `builtin/echo`; the figure is runs that reached
//! `succeeded` per second, from the first POST to the last run's
//! `ended_at`. `--only burst,webhook` measures the durable turns/s it is
//! compared with in the same invocation.

use chrono::{DateTime, Utc};

use super::*;

const SENDERS: usize = 32;
const SENDING: Duration = Duration::from_secs(8);

/// What one sender saw.
#[derive(Default)]
struct Sent {
    accepted: usize,
    queue_full: usize,
    errors: usize,
}

pub(crate) async fn webhook(vendor: &str) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let runner = client
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "load", "instructions": "Say {{ input.n }}",
                   "maxConcurrentRuns": 64, "maxQueuedRuns": 10000}),
        )
        .await;
    let runner = runner["id"].as_str().unwrap().to_owned();
    let trigger = client
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "webhook", "rateLimitPerMin": 100000}),
        )
        .await;
    let token = trigger["token"].as_str().unwrap();
    let url = format!("{}/api/runners/webhooks/{token}", confer.base);
    let (cpu0, _, _) = confer.usage();
    let first_post = Utc::now();
    let started = Instant::now();
    let senders: Vec<_> = (0..SENDERS)
        .map(|sender| {
            let (http, url) = (client.http.clone(), url.clone());
            tokio::spawn(async move {
                let mut sent = Sent::default();
                let mut n = 0usize;
                while started.elapsed() < SENDING {
                    n += 1;
                    let answer = http
                        .post(&url)
                        .json(&json!({"n": format!("{sender}-{n}")}))
                        .send()
                        .await;
                    match answer.map(|a| a.status().as_u16()) {
                        Ok(202) => sent.accepted += 1,
                        Ok(429) => {
                            // The runner's queue is full: let it drain.
                            sent.queue_full += 1;
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        _ => sent.errors += 1,
                    }
                }
                sent
            })
        })
        .collect();
    let mut sent = Sent::default();
    for task in senders {
        let s = task.await.unwrap();
        sent.accepted += s.accepted;
        sent.queue_full += s.queue_full;
        sent.errors += s.errors;
    }
    let runs = format!("/api/runners/{runner}/runs");
    // Until nothing is queued or running.
    let drain_limit = Instant::now() + Duration::from_secs(300);
    loop {
        let (_, queued) = client.get(&format!("{runs}?status=queued&limit=1")).await;
        let (_, running) = client.get(&format!("{runs}?status=running&limit=1")).await;
        let idle = |v: &Value| v.as_array().is_some_and(Vec::is_empty);
        if idle(&queued) && idle(&running) {
            break;
        }
        assert!(Instant::now() < drain_limit, "the runs did not drain");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (cpu, _, hwm) = confer.usage();
    let (succeeded, last_end) = succeeded_runs(&client, &runs).await;
    let wall = (last_end - first_post).num_microseconds().unwrap_or(1) as f64 / 1e6;
    json!({
        "senders": SENDERS,
        "accepted": sent.accepted,
        "queue_full_answers": sent.queue_full,
        "errors": sent.errors,
        "succeeded": succeeded,
        "runs_per_s": succeeded as f64 / wall,
        "server_cpu_per_run_ms": (cpu - cpu0) * 1000.0 / succeeded.max(1) as f64,
        "server_peak_rss_mib": hwm as f64 / 1024.0,
    })
}

/// The runner's succeeded runs and the latest `ended_at` among them, paged
/// through `X-Next-Cursor`.
async fn succeeded_runs(client: &Client, runs: &str) -> (usize, DateTime<Utc>) {
    let (mut count, mut last) = (0usize, DateTime::<Utc>::MIN_UTC);
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("{runs}?status=succeeded&limit=200");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let answer = client
            .http
            .get(format!("{}{path}", client.base))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        cursor = answer
            .headers()
            .get("x-next-cursor")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let page: Vec<Value> = answer.json().await.unwrap();
        for run in &page {
            count += 1;
            if let Some(ended) = run["ended_at"].as_str() {
                let ended: DateTime<Utc> = ended.parse().unwrap();
                last = last.max(ended);
            }
        }
        if cursor.is_none() || page.is_empty() {
            return (count, last);
        }
    }
}
