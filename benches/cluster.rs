//! `cargo bench --bench cluster` (`scale.md` acceptance 10): Confer on
//! PostgreSQL against sled, on one machine, PostgreSQL with `fsync` on.
//!
//! - durable turns a second (`builtin/echo`, `--clients` clients, each on
//!   its own thread, for `--secs` seconds) on sled, on PostgreSQL with one
//!   node and with three (clients spread over the three as entry nodes),
//!   each as a ratio to sled, and the statements PostgreSQL ran a turn
//!   with one node (`pg_stat_statements`): its time per turn is mostly its
//!   time per statement;
//! - the time a forwarding node adds to each token (`CONFER_BUILTIN_DELAY_MS=20`):
//!   the same sends to threads one node owns, made on that node and on
//!   another, p50 and p99 of each token's lateness (its arrival less its
//!   due time);
//! - the time from `kill -9` of a node to the first answered send to one
//!   of its threads.
//!
//! Flags (after `--`): `--secs N` (30; 0 skips the turns a second),
//! `--clients N` (64), `--rounds N` (2: sled and PostgreSQL with one node
//! alternate, each figure its best), `--top N` (0: the N statements
//! PostgreSQL spent the most time on, running and planning, to standard
//! error).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/mod.rs"]
mod support;

#[path = "cluster/throughput.rs"]
mod throughput;

// The tests' PostgreSQL rig; the bench uses part of it.
#[allow(dead_code)]
#[path = "../tests/api/postgres.rs"]
mod postgres;

/// What the test rig borrows from the tests' common module.
mod common {
    /// Waits until `check` answers, failing after `within`.
    pub async fn eventually<T>(
        within: std::time::Duration,
        what: &str,
        mut check: impl AsyncFnMut() -> Option<T>,
    ) -> T {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Some(value) = check().await {
                return value;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "not within {within:?}: {what}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

use common::eventually;
use postgres::Postgres;

const KEY: &str = "cfr_bench_cluster_key_0123456789abcdef";
const SECRET_KEY: &str = "YmVuY2gtc2VjcmV0LWtleS1vZi10aGUtY2x1c3Rlcjk=";
/// The builtin model's pause between tokens in the forwarding figures.
const DELAY_MS: u64 = 20;

/// One running node.
struct Node {
    child: Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Node {
    /// A node on sled (`store: None`) or on the PostgreSQL at `store`.
    fn start(store: Option<&str>, name: &str, delay_ms: u64) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut command = support::confer_command(dir.path(), KEY);
        command
            .env("CONFER_BUILTIN_DELAY_MS", delay_ms.to_string())
            .env("CONFER_USER_RATE_LIMIT_RPS", "0")
            .env("CONFER_USER_SEND_LIMIT_PER_MIN", "0");
        if let Some(url) = store {
            command
                .env("CONFER_STORE", url)
                .env("CONFER_SECRET_KEY", SECRET_KEY)
                .env("CONFER_NODE_NAME", name);
        }
        let (child, base) = support::spawn_listening(command);
        Self {
            child,
            base,
            _dir: dir,
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        support::kill_server(&mut self.child);
    }
}

fn flag(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn get(http: &reqwest::Client, url: String) -> Value {
    http.get(url)
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap_or(Value::Null)
}

/// Waits until each of `count` nodes owns shards.
async fn settled(http: &reqwest::Client, base: &str, count: usize) {
    eventually(
        Duration::from_secs(90),
        "every node owns shards",
        async || {
            let cluster = get(http, format!("{base}/api/admin/cluster")).await;
            let nodes = cluster["nodes"].as_array()?.clone();
            let owned = nodes
                .iter()
                .filter(|n| n["shards"].as_u64() > Some(100))
                .count();
            (nodes.len() == count && owned == count).then_some(())
        },
    )
    .await;
}

async fn new_thread(http: &reqwest::Client, base: &str, agent: &str) -> String {
    let thread =
        support::post_json(http, base, KEY, "/api/threads", json!({"agentId": agent})).await;
    thread["id"].as_str().unwrap().to_owned()
}

/// Each token's lateness in one send through `entry` to each of
/// `threads`: its arrival less the time the builtin model paces it for.
async fn lateness(http: &reqwest::Client, entry: &str, threads: &[String]) -> Vec<Duration> {
    let words = "a b c d e f g h i j k l m n o p q r s t";
    let mut late = Vec::new();
    for thread in threads {
        let started = Instant::now();
        let mut response = http
            .post(format!("{entry}/api/threads/{thread}/messages"))
            .bearer_auth(KEY)
            .json(&json!({"content": words}))
            .send()
            .await
            .unwrap();
        let (mut text, mut seen) = (String::new(), 0u32);
        while let Some(chunk) = response.chunk().await.unwrap() {
            let at = started.elapsed();
            text.push_str(&String::from_utf8_lossy(&chunk));
            let tokens = text.matches("event: token").count() as u32;
            // The builtin model answers its first token at once and
            // each next one `DELAY_MS` later: what is left is the
            // turn's start and the way to the client.
            for n in seen..tokens {
                let due = Duration::from_millis(DELAY_MS) * n;
                late.push(at.saturating_sub(due));
            }
            seen = tokens;
        }
        assert!(text.contains("event: done"), "{text}");
    }
    late
}

/// Threads of `agent` whose shard `owner` (a node id) holds.
async fn threads_of(
    http: &reqwest::Client,
    database: &tokio_postgres::Client,
    base: &str,
    agent: &str,
    owner: &str,
    count: usize,
) -> Vec<String> {
    let mut found = Vec::new();
    while found.len() < count {
        let thread = new_thread(http, base, agent).await;
        let row = database
            .query_one(
                "SELECT l.node_id::text FROM shard_leases l JOIN threads t ON t.shard = l.shard
                 WHERE t.id = $1",
                &[&thread.parse::<uuid::Uuid>().unwrap()],
            )
            .await
            .unwrap();
        if row.get::<_, Option<String>>(0).as_deref() == Some(owner) {
            found.push(thread);
        }
    }
    found
}

async fn node_id(http: &reqwest::Client, base: &str) -> String {
    get(http, format!("{base}/api/admin/cluster")).await["node"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::main]
async fn main() {
    let secs = flag("--secs", 30);
    let clients = flag("--clients", 64) as usize;
    let rounds = flag("--rounds", 2);
    let top = flag("--top", 0);
    let http = reqwest::Client::new();
    println!("# cluster bench: {clients} clients, {secs} s each, PostgreSQL with fsync on\n");

    if secs > 0 {
        throughput::throughput(&http, clients, secs, rounds, top).await;
    }
    forwarding_and_takeover(&http).await;
}

/// The time a forwarding node adds per token, and a takeover's, on two
/// nodes pacing their tokens.
async fn forwarding_and_takeover(http: &reqwest::Client) {
    let postgres = Postgres::start_with_fsync(true).await;
    let url = postgres.database("forwarding").await;
    let a = Node::start(Some(&url), "a", DELAY_MS);
    let mut b = Node::start(Some(&url), "b", DELAY_MS);
    settled(http, &a.base, 2).await;
    let database = postgres.admin_of("forwarding").await;
    let agent = support::post_json(http, &a.base, KEY, "/api/agents", json!({"name": "paced"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let owner = node_id(http, &b.base).await;
    let threads = threads_of(http, &database, &a.base, &agent, &owner, 8).await;
    // Alternated, so that neither way gets the quieter machine.
    let (mut direct, mut forwarded) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        direct.extend(lateness(http, &b.base, &threads).await);
        forwarded.extend(lateness(http, &a.base, &threads).await);
    }
    direct.sort();
    forwarded.sort();
    let added = |p: f64| {
        let (f, d) = (
            support::percentile(&forwarded, p),
            support::percentile(&direct, p),
        );
        f.as_secs_f64() * 1e3 - d.as_secs_f64() * 1e3
    };
    println!("\n| per token ({DELAY_MS} ms apart) | p50 | p99 |");
    println!("|---|---|---|");
    for (name, late) in [
        ("direct (the owner)", &direct),
        ("through another node", &forwarded),
    ] {
        let p = |q| support::ms(support::percentile(late, q));
        println!("| {name} | {} | {} |", p(0.5), p(0.99));
    }
    println!(
        "| added by forwarding | {:.2} ms | {:.2} ms |",
        added(0.5),
        added(0.99)
    );

    support::kill_server(&mut b.child);
    let killed = Instant::now();
    let thread = threads[0].clone();
    eventually(
        Duration::from_secs(60),
        "a send is answered after the kill",
        async || {
            let response = http
                .post(format!("{}/api/threads/{thread}/messages", a.base))
                .bearer_auth(KEY)
                .json(&json!({"content": "back?"}))
                .send()
                .await
                .ok()?;
            let text = response.text().await.ok()?;
            text.contains("\"ok\":true").then_some(())
        },
    )
    .await;
    println!(
        "\ntakeover: the first answered send {:.2} s after kill -9",
        killed.elapsed().as_secs_f64()
    );
}
