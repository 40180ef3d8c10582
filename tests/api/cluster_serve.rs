//! `confer serve` on PostgreSQL (`scale.md`): a node keeps its records in
//! the database, not its data directory, so a node started on another
//! directory finds them; kinds not yet moved there answer 501. Nodes
//! join the cluster, name themselves on each response, run the purge jobs
//! of their shards, and leave at shutdown.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{BOOTSTRAP_KEY, Options, Server, done_of, events_of, eventually};
use crate::postgres::Postgres;

/// A 32-byte secret key, base64, the same on every node.
pub(crate) const SECRET_KEY: &str = "c2VjcmV0LWtleS1vZi10aGUtY2x1c3Rlci0wMTIzNDU=";

/// The options of node `name` on `url`.
pub fn on_postgres(url: &str, name: &str) -> Options {
    Options::default()
        .env("CONFER_STORE", url)
        .env("CONFER_SECRET_KEY", SECRET_KEY)
        .env("CONFER_NODE_NAME", name)
}

/// A node on `url` whose OpenAI vendor is the mock at `vendor` (a local
/// server, which the outbound policy lets it reach).
pub fn on_postgres_with_vendor(url: &str, name: &str, vendor: &str) -> Options {
    on_postgres(url, name)
        .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
        .env("OPENAI_BASE_URL", vendor)
        .env("OPENAI_API_KEY", "sk-platform")
}

/// `GET /api/admin/cluster` on `server`, with the `X-Confer-Node` it
/// answered with.
async fn cluster_of(server: &Server) -> (Value, String) {
    let response = reqwest::Client::new()
        .get(format!("{}/api/admin/cluster", server.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let node = response.headers()["x-confer-node"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.json().await.unwrap(), node)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_on_postgres_answers_and_another_node_finds_its_records() {
    let postgres = Postgres::start().await;
    let url = postgres.database("serve").await;
    let first = Server::start_with(on_postgres(&url, "a"));
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
        .get("/api/runners")
        .await
        .expect_error(501, "NOT_ON_THIS_STORE");
    assert!(refused.contains("PostgreSQL"), "{refused}");

    // PostgreSQL is backed up with its own tools.
    let refused = admin
        .get("/api/admin/backup")
        .await
        .expect_error(409, "CONFLICT");
    assert!(refused.contains("pg_dump"), "{refused}");

    // Another node, on a directory of its own, serves the same records.
    let second = Server::start_with(on_postgres(&url, "b"));
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
    let first = Server::start_with(Options {
        bootstrap_key: None,
        ..on_postgres(&url, "a")
    });
    let second = Server::start_with(Options {
        bootstrap_key: None,
        ..on_postgres(&url, "b")
    });
    let third = Server::start_with(Options {
        bootstrap_key: None,
        ..on_postgres(&url, "c")
    });
    let printed = |server: &Server| {
        server
            .stdout
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("cfr_"))
            .count()
    };
    let keys = printed(&first) + printed(&second) + printed(&third);
    assert_eq!(keys, 1, "{}", first.logs());

    // A node with another secret key refuses to start, and says why.
    let data = tempfile::tempdir().unwrap();
    let mut other = std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CONFER_BIND", "127.0.0.1:0")
        .env("CONFER_DATA_DIR", data.path())
        .env("CONFER_STORE", &url)
        .env(
            "CONFER_SECRET_KEY",
            "b3RoZXItc2VjcmV0LWtleS1vZi1ub2JvZHktMDEyMzQ=",
        )
        .env("CONFER_NODE_NAME", "d")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let exited = eventually(Duration::from_secs(30), "the node exits", async || {
        other.try_wait().unwrap()
    })
    .await;
    assert!(!exited.success());
    let mut said = String::new();
    std::io::Read::read_to_string(&mut other.stderr.take().unwrap(), &mut said).unwrap();
    assert!(said.contains("CONFER_SECRET_KEY is not the key"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_share_the_shards_purge_deleted_threads_and_leave() {
    let postgres = Postgres::start().await;
    let url = postgres.database("nodes").await;
    let paced = |name| on_postgres(&url, name).env("CONFER_BUILTIN_DELAY_MS", "40");
    let mut first = Server::start_with(paced("a"));
    // Alone, it owned every shard before it served.
    let (cluster, node) = cluster_of(&first).await;
    assert_eq!(cluster["store"], "postgres", "{cluster}");
    assert_eq!(cluster["node"], node.as_str(), "{cluster}");
    assert_eq!(cluster["nodes"][0]["shards"], 1024, "{cluster}");
    assert_eq!(cluster["orphaned_shards"], 0, "{cluster}");

    // A node joins while a turn runs: the turn is not interrupted (a
    // shard with a live actor is not handed over while it is busy).
    let early = first.admin();
    let joined_during = early.agent("joined during").await;
    let busy = early.thread(&joined_during, json!({})).await;
    let long = "a turn running while another node joins the cluster ".repeat(30);
    let long = long.trim();
    let mut during = early.open_stream(&busy, json!({"content": long})).await;
    assert_eq!(during.status, 200);
    during.next_within(Duration::from_secs(10)).await.unwrap(); // meta

    let second = Server::start_with(paced("b"));
    let (cluster, other) = cluster_of(&second).await;
    assert_ne!(node, other);
    let names: Vec<_> = cluster["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].clone())
        .collect();
    assert_eq!(names.len(), 2, "{cluster}");
    let owned: u64 = cluster["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["shards"].as_u64().unwrap())
        .sum();
    assert_eq!(owned, 1024, "{cluster}");
    let rest = during.collect().await;
    let done = done_of(&rest);
    assert_eq!(done["ok"], true, "{rest:?}");
    assert_eq!(done["content"], long, "{rest:?}");

    // A deleted thread's history is purged by the job of its shard's owner.
    let admin = second.admin();
    let agent = admin.agent("purged").await;
    let thread = admin.thread(&agent, json!({})).await;
    admin.say(&thread, json!({"content": "soon gone"})).await;
    admin
        .delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    let id: uuid::Uuid = thread.parse().unwrap();
    let database = postgres.admin_of("nodes").await;
    eventually(
        Duration::from_secs(20),
        "the history is purged",
        async || {
            let left: i64 = database
                .query_one("SELECT count(*) FROM messages WHERE thread_id = $1", &[&id])
                .await
                .unwrap()
                .get(0);
            (left == 0).then_some(())
        },
    )
    .await;

    // A node that stops leaves: its running turn ends as it would have,
    // relayed to a client of the other node, and the other node holds
    // every shard at once.
    let on_first = crate::cluster_forward::thread_owned_by(&admin, &agent, &node).await;
    let words = "a turn still running when its node is told to stop ".repeat(6);
    let words = words.trim();
    let mut running = admin
        .open_stream(&on_first, json!({"content": words}))
        .await;
    assert_eq!(running.status, 200);
    running.next_within(Duration::from_secs(10)).await.unwrap(); // meta
    first.signal("TERM");
    // Draining, it hands over at once every shard but the busy one.
    eventually(
        Duration::from_secs(5),
        "the survivor owns every idle shard",
        async || {
            let (cluster, _) = cluster_of(&second).await;
            let nodes = cluster["nodes"].as_array().unwrap().clone();
            let survivor = nodes.iter().find(|n| n["id"] == other.as_str())?;
            (survivor["shards"] == 1023).then_some(())
        },
    )
    .await;
    let rest = running.collect().await;
    let done = done_of(&rest);
    assert_eq!(done["ok"], true, "{rest:?}");
    assert_eq!(done["content"], words, "{rest:?}");
    assert!(
        first.exited(Duration::from_secs(20)).await,
        "{}",
        first.logs()
    );
    eventually(
        Duration::from_secs(5),
        "the survivor owns every shard",
        async || {
            let (cluster, _) = cluster_of(&second).await;
            let nodes = cluster["nodes"].as_array().unwrap().clone();
            (nodes.len() == 1 && nodes[0]["shards"] == 1024).then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_made_on_one_node_is_offered_by_another() {
    use crate::mock::{Mock, Reply, fixture};
    let postgres = Postgres::start().await;
    let url = postgres.database("caches").await;
    let vendor = Mock::start("/v1").await;
    let hooks = Mock::start("").await;
    let node = |name| {
        on_postgres(&url, name)
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env(
                "CONFER_OUTBOUND_ALLOW",
                hooks.base.trim_start_matches("http://"),
            )
    };
    let offered = |vendor: &Mock| -> Vec<String> {
        let request = vendor.requests().last().unwrap().body.clone();
        let tools = request["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    // A, alone, runs the thread's turns and caches the org's tools: none.
    let a = Server::start_with(node("a"));
    let on_a = a.admin();
    let agent = on_a
        .agent_with(json!({"name": "tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = on_a.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    assert_eq!(
        done_of(&on_a.say(&thread, json!({"content": "hi"})).await)["ok"],
        true
    );
    assert!(offered(&vendor).is_empty());

    // A tool made through B is offered by A's turns within the second.
    let b = Server::start_with(node("b"));
    let tool = json!({"name": "lookup", "url": format!("{}/lookup", hooks.base)});
    b.admin().post("/api/tools", tool).await.expect(201);
    let made = std::time::Instant::now();
    eventually(
        Duration::from_secs(5),
        "A offers the new tool",
        async || {
            vendor.push(Reply::stream(fixture("openai_text.sse")));
            on_a.say(&thread, json!({"content": "again"})).await;
            offered(&vendor)
                .contains(&"lookup".to_owned())
                .then_some(())
        },
    )
    .await;
    eprintln!("offered {:?} after it was made", made.elapsed());
}
