//! The cluster bench's durable turns a second: sled against PostgreSQL
//! with one node (alternating rounds, the statements a turn) and with
//! three.

use std::time::{Duration, Instant};

use serde_json::json;

use super::postgres::Postgres;
use super::{KEY, Node, new_thread, settled, support};

/// Durable turns a second on sled and on PostgreSQL with one and three
/// nodes. Sled and PostgreSQL with one node take turns for `rounds`
/// rounds, each figure the best of its rounds: the machine's speed drifts
/// over minutes, and the floor is a ratio of the two.
pub async fn throughput(http: &reqwest::Client, clients: usize, secs: u64, rounds: u64, top: u64) {
    // `pg_stat_statements` counts what the server ran for the turns.
    let postgres = Postgres::start_with(
        true,
        &[
            "shared_preload_libraries=pg_stat_statements",
            "pg_stat_statements.track_planning=on",
        ],
    )
    .await;
    let (mut sled, mut one, mut statements) = (0f64, 0f64, 0f64);
    for round in 0..rounds.max(1) {
        let node = Node::start(None, "sled", 0);
        let rate = turns_per_second(std::slice::from_ref(&node.base), clients, secs).await;
        sled = sled.max(rate);
        drop(node);
        let (rate, per_turn) =
            one_node(&postgres, &format!("one{round}"), clients, secs, top).await;
        one = one.max(rate);
        statements = per_turn;
    }
    let three = {
        let url = postgres.database("three").await;
        let nodes: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|n| Node::start(Some(&url), n, 0))
            .collect();
        settled(http, &nodes[0].base, 3).await;
        let entries: Vec<_> = nodes.iter().map(|n| n.base.clone()).collect();
        turns_per_second(&entries, clients, secs).await
    };
    println!("| store | durable turns/s | vs sled |");
    println!("|---|---|---|");
    for (name, rate) in [
        ("sled", sled),
        ("PostgreSQL, 1 node", one),
        ("PostgreSQL, 3 nodes", three),
    ] {
        println!("| {name} | {rate:.0} | {:.2}x |", rate / sled);
    }
    println!("\n(sled and PostgreSQL with one node: the best of {rounds} rounds each)");
    println!(
        "\nPostgreSQL, 1 node: {statements:.1} statements a turn (`pg_stat_statements`, \
         the node's background work and the threads' creation included)\n"
    );
}

/// Turns a second on PostgreSQL with one node, on a new database `name`,
/// and the statements the server ran a turn; with `top`, the statements
/// it spent the most time on, to standard error.
async fn one_node(
    postgres: &Postgres,
    name: &str,
    clients: usize,
    secs: u64,
    top: u64,
) -> (f64, f64) {
    let url = postgres.database(name).await;
    let admin = postgres.admin_of(name).await;
    let node = Node::start(Some(&url), "a", 0);
    admin
        .batch_execute("CREATE EXTENSION pg_stat_statements; SELECT pg_stat_statements_reset()")
        .await
        .unwrap();
    let (turns, elapsed) = turns_in(std::slice::from_ref(&node.base), clients, secs).await;
    let of_database = "dbid = (SELECT oid FROM pg_database WHERE datname = current_database())";
    let calls: i64 = admin
        .query_one(
            &format!("SELECT sum(calls)::bigint FROM pg_stat_statements WHERE {of_database}"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let rows = admin
        .query(
            &format!(
                "SELECT calls, plans, total_exec_time, total_plan_time,
                        left(regexp_replace(query, '\\s+', ' ', 'g'), 80)
                 FROM pg_stat_statements WHERE {of_database}
                 ORDER BY total_exec_time + total_plan_time DESC LIMIT $1"
            ),
            &[&i64::try_from(top).unwrap()],
        )
        .await
        .unwrap();
    for row in rows {
        let (calls, plans, run, plan): (i64, i64, f64, f64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let query: String = row.get(4);
        eprintln!(
            "{calls} calls, {plans} plans, {:.1} µs running and {:.1} µs planning a call: {query}",
            run * 1000.0 / calls as f64,
            plan * 1000.0 / calls as f64
        );
    }
    (turns as f64 / elapsed, calls as f64 / turns as f64)
}

/// Durable turns a second: `clients` clients, each sending to its own
/// thread through `entries[i % n]` and reading each answer to its `done`.
async fn turns_per_second(entries: &[String], clients: usize, secs: u64) -> f64 {
    let (turns, elapsed) = turns_in(entries, clients, secs).await;
    turns as f64 / elapsed
}

/// [`turns_per_second`]'s turns and the seconds they took.
async fn turns_in(entries: &[String], clients: usize, secs: u64) -> (u64, f64) {
    let http = reqwest::Client::new();
    let agent = support::post_json(
        &http,
        &entries[0],
        KEY,
        "/api/agents",
        json!({"name": "bench"}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut threads = Vec::new();
    for i in 0..clients {
        let entry = entries[i % entries.len()].clone();
        threads.push((entry.clone(), new_thread(&http, &entry, &agent).await));
    }
    let deadline = Instant::now() + Duration::from_secs(secs);
    let began = Instant::now();
    let body = json!({"content": "one two three four five six seven eight"});
    let tasks: Vec<_> = threads
        .into_iter()
        .map(|(entry, thread)| {
            let (http, body) = (http.clone(), body.clone());
            tokio::spawn(async move {
                let mut turns = 0u64;
                while Instant::now() < deadline {
                    let (_, text) = support::send_to_done(&http, &entry, KEY, &thread, &body).await;
                    assert!(text.contains("\"ok\":true"), "{text}");
                    turns += 1;
                }
                turns
            })
        })
        .collect();
    let mut turns = 0;
    for task in tasks {
        turns += task.await.unwrap();
    }
    (turns, began.elapsed().as_secs_f64())
}
