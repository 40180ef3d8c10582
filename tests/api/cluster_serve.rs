//! `confer serve` on PostgreSQL (`scale.md`): a node keeps its records in
//! the database, not its data directory, so a node started on another
//! directory finds them; kinds not yet moved there answer 501.

use serde_json::json;

use crate::common::{Options, Server, done_of, events_of};
use crate::postgres::Postgres;

/// A 32-byte secret key, base64, the same on every node.
const SECRET_KEY: &str = "c2VjcmV0LWtleS1vZi10aGUtY2x1c3Rlci0wMTIzNDU=";

/// The options of a node on `url`.
pub fn on_postgres(url: &str) -> Options {
    Options::default()
        .env("CONFER_STORE", url)
        .env("CONFER_SECRET_KEY", SECRET_KEY)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_on_postgres_answers_and_another_node_finds_its_records() {
    let postgres = Postgres::start().await;
    let url = postgres.database("serve").await;
    let first = Server::start_with(on_postgres(&url));
    let admin = first.admin();
    let agent = admin.agent("on postgres").await;
    let thread = admin.thread(&agent, json!({})).await;
    let frames = admin
        .say(&thread, json!({"content": "hello cluster"}))
        .await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let said: String = events_of(&frames, "token")
        .iter()
        .filter_map(|d| d["delta"].as_str())
        .collect();
    assert_eq!(said, "hello cluster", "{frames:?}");
    // Nothing of it went to the node's own directory.
    assert!(!first.data_dir().join("db").exists());

    // A kind not yet kept in PostgreSQL is refused, not kept locally.
    let refused = admin
        .get("/api/skills")
        .await
        .expect_error(501, "NOT_ON_THIS_STORE");
    assert!(refused.contains("PostgreSQL"), "{refused}");

    // Another node, on a directory of its own, serves the same records.
    let second = Server::start_with(on_postgres(&url));
    let other = second.admin();
    let history = other.history(&thread).await;
    let contents: Vec<_> = history.iter().map(|m| m["content"].clone()).collect();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(contents[0], "hello cluster");
    let agents = other.get("/api/agents").await.expect(200);
    assert!(agents.to_string().contains(&agent), "{agents}");
    let first_logs = first.logs();
    drop(first);
    let frames = other.say(&thread, json!({"content": "again"})).await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    assert_eq!(other.history(&thread).await.len(), 4);
    // No kind it does not keep is polled in the background.
    for logs in [first_logs, second.logs()] {
        assert!(!logs.contains(" ERROR "), "{logs}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_on_an_empty_database_make_one_first_key() {
    let postgres = Postgres::start().await;
    let url = postgres.database("first").await;
    let options = Options {
        bootstrap_key: None,
        ..on_postgres(&url)
    };
    let first = Server::start_with(options.clone());
    let second = Server::start_with(options);
    let printed = |server: &Server| {
        server
            .stdout
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("cfr_"))
            .count()
    };
    assert_eq!(printed(&first) + printed(&second), 1, "{}", first.logs());
}
