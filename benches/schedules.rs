//! Scheduler benchmark (`runners.md` Acceptance 9, its schedule half): the
//! real `confer` binary (release under `cargo bench`) on a temporary data
//! directory.
//!
//! - 10,000 tasks (100 agents × 100, a yearly pattern, so none fires):
//!   the server's RSS before and after they are stored, and its CPU over
//!   `SCHEDULES_BENCH_IDLE_SECS` (30) of idling with them.
//! - 1,000 of them moved to one second a little ahead: each slot's lag,
//!   its run's `created_at` minus its `scheduled_for` (the firing's
//!   transaction stamps `created_at`), p50, p99 and max.
//!
//! Run: `cargo bench --bench schedules` (prints a markdown table).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::process::Stdio;
use std::time::Duration;

use chrono::{DateTime, Timelike, Utc};
use serde_json::{Value, json};

#[path = "support/mod.rs"]
mod support;

const KEY: &str = "bench-key-0123456789abcdef0123456789";
const AGENTS: usize = 100;
const TASKS_PER_AGENT: usize = 100;
/// Agents whose tasks all move to the one due second.
const DUE_AGENTS: usize = 10;

async fn put(http: &reqwest::Client, base: &str, path: &str, body: Value) -> Value {
    let answer = http
        .put(format!("{base}{path}"))
        .bearer_auth(KEY)
        .json(&body)
        .send()
        .await
        .expect("the server answers");
    assert!(answer.status().is_success(), "{path}: {}", answer.status());
    answer.json().await.unwrap()
}

async fn get(http: &reqwest::Client, base: &str, path: &str) -> Value {
    http.get(format!("{base}{path}"))
        .bearer_auth(KEY)
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .unwrap()
}

/// An agent's 100 tasks on `cron`, each a run of `runner`.
fn tasks(cron: &str, runner: &str) -> Value {
    let tasks: Vec<Value> = (0..TASKS_PER_AGENT)
        .map(|i| {
            json!({"name": format!("task {i}"), "cron": cron, "overlap": "allow",
                   "action": {"kind": "run", "runnerId": runner, "input": {}}})
        })
        .collect();
    json!({ "tasks": tasks })
}

fn time(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

#[tokio::main]
async fn main() {
    let idle_secs: u64 = std::env::var("SCHEDULES_BENCH_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let data = tempfile::tempdir().unwrap();
    let mut command = support::confer_command(data.path(), KEY);
    command
        .env("CONFER_SCHEDULE_MIN_INTERVAL_SECS", "1")
        .stderr(Stdio::null());
    let (child, base) = support::spawn_listening(command);
    let server = support::RunningServer { child, base, data };
    let (pid, base) = (server.child.id(), server.base.clone());
    let http = reqwest::Client::new();

    let mut agents = Vec::new();
    for i in 0..AGENTS {
        let agent = support::post_json(
            &http,
            &base,
            KEY,
            "/api/agents",
            json!({"name": format!("a{i}")}),
        )
        .await;
        let agent = agent["id"].as_str().unwrap().to_owned();
        let runner = support::post_json(
            &http,
            &base,
            KEY,
            "/api/runners",
            json!({"agentId": agent, "name": "tick", "instructions": "tick",
                   "maxConcurrentRuns": 64, "maxQueuedRuns": 10000}),
        )
        .await;
        agents.push((agent, runner["id"].as_str().unwrap().to_owned()));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_before = support::rss_mib(pid);
    for (agent, runner) in &agents {
        put(
            &http,
            &base,
            &format!("/api/agents/{agent}/scheduled-tasks"),
            tasks("0 0 0 1 1 *", runner),
        )
        .await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_after = support::rss_mib(pid);
    let cpu_before = support::cpu_secs(pid);
    tokio::time::sleep(Duration::from_secs(idle_secs)).await;
    let idle_cpu = (support::cpu_secs(pid) - cpu_before) / idle_secs as f64 * 100.0;

    // 1,000 tasks due in one second, 10 s from now.
    let due = Utc::now() + chrono::Duration::seconds(10);
    let cron = format!("{} {} {} * * *", due.second(), due.minute(), due.hour());
    for (agent, runner) in agents.iter().take(DUE_AGENTS) {
        put(
            &http,
            &base,
            &format!("/api/agents/{agent}/scheduled-tasks"),
            tasks(&cron, runner),
        )
        .await;
    }
    tokio::time::sleep(Duration::from_secs(20)).await;
    let mut lags = Vec::new();
    for (_, runner) in agents.iter().take(DUE_AGENTS) {
        let runs = get(
            &http,
            &base,
            &format!("/api/runners/{runner}/runs?limit=200"),
        )
        .await;
        for run in runs.as_array().unwrap() {
            let lag = time(&run["created_at"]) - time(&run["trigger"]["scheduled_for"]);
            lags.push(lag.to_std().unwrap_or(Duration::ZERO));
        }
    }
    lags.sort();
    assert_eq!(
        lags.len(),
        DUE_AGENTS * TASKS_PER_AGENT,
        "every due slot has its run"
    );

    println!("| measure | value |");
    println!("|---|---|");
    println!("| tasks stored | {} |", AGENTS * TASKS_PER_AGENT);
    println!(
        "| RSS before → after the tasks | {rss_before:.1} → {rss_after:.1} MiB (+{:.1}) |",
        rss_after - rss_before
    );
    println!("| idle CPU with them ({idle_secs} s) | {idle_cpu:.2}% of a core |");
    println!(
        "| firing lag of {} slots due in one second | p50 {} ms, p99 {} ms, max {} ms |",
        lags.len(),
        support::ms(support::percentile(&lags, 0.50)),
        support::ms(support::percentile(&lags, 0.99)),
        support::ms(*lags.last().unwrap()),
    );
}
