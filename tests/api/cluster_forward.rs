//! Any node answers (`scale.md` §4, acceptance 2): a thread's sends,
//! stops and streams reach the owner of its shard, whichever node the
//! client called; the owner's actor decides, so every node sees the same
//! frames, the same busy refusal and one turn per key.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres;
use crate::common::{BOOTSTRAP_KEY, Server, done_of, eventually};
use crate::postgres::Postgres;

/// The node answering `server`'s requests (its `X-Confer-Node`).
pub(crate) async fn node_of(server: &Server) -> String {
    let response = reqwest::Client::new()
        .get(format!("{}/api/admin/cluster", server.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    let cluster: Value = response.json().await.unwrap();
    cluster["node"].as_str().unwrap().to_owned()
}

/// Waits until both nodes own shards (the first started held them all;
/// it hands the second its share once that one has been live 10 s).
pub(crate) async fn settled(server: &Server) {
    settled_with(server, 2).await;
}

/// Waits until each of `count` nodes owns shards.
pub(crate) async fn settled_with(server: &Server, count: usize) {
    eventually(
        Duration::from_secs(60),
        "every node owns shards",
        async || {
            let cluster: Value = reqwest::Client::new()
                .get(format!("{}/api/admin/cluster", server.base))
                .bearer_auth(BOOTSTRAP_KEY)
                .send()
                .await
                .ok()?
                .json()
                .await
                .ok()?;
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

/// The node holding `thread`'s shard, as the lease table says (none for
/// a moment while a shard moves).
pub(crate) async fn shard_owner(database: &tokio_postgres::Client, thread: &str) -> Option<String> {
    database
        .query_one(
            "SELECT l.node_id::text FROM shard_leases l JOIN threads t ON t.shard = l.shard
             WHERE t.id = $1",
            &[&thread.parse::<uuid::Uuid>().unwrap()],
        )
        .await
        .unwrap()
        .get(0)
}

/// A thread of `agent` whose shard `owner` holds, found by sending to new
/// threads through `entry` (each answered, naming its owner).
pub(crate) async fn thread_owned_by(
    entry: &crate::common::Api,
    agent: &str,
    owner: &str,
) -> String {
    for _ in 0..40 {
        let id = entry.thread(agent, json!({})).await;
        let stream = entry.open_stream(&id, json!({"content": "who"})).await;
        assert_eq!(stream.status, 200);
        let answered_by = stream.headers["x-confer-node"].to_str().unwrap().to_owned();
        assert_eq!(done_of(&stream.collect().await)["ok"], true);
        if answered_by == owner {
            return id;
        }
    }
    panic!("none of 40 threads is in the shards of {owner}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_is_answered_by_its_owner_whichever_node_is_called() {
    let postgres = Postgres::start().await;
    let url = postgres.database("forward").await;
    let slow = |name| on_postgres(&url, name).env("CONFER_BUILTIN_DELAY_MS", "30");
    let a = Server::start_with(slow("a"));
    let b = Server::start_with(slow("b"));
    let c = Server::start_with(slow("c"));
    settled_with(&a, 3).await;
    let (on_a, on_b, on_c) = (a.admin(), b.admin(), c.admin());
    let node_b = node_of(&b).await;
    let agent = on_a.agent("forwarded").await;

    // A thread whose shard B owns.
    let thread = thread_owned_by(&on_a, &agent, &node_b).await;

    // A follower on A and the sender on C see the same frames and ids.
    let mut follower = on_a.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(follower.status, 200);
    assert_eq!(follower.headers["x-confer-node"], node_b.as_str());
    let watching = follower.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(watching.event, "watching");
    let words = "one two three four five six seven eight nine ten";
    let sent = on_c.say(&thread, json!({"content": words})).await;
    assert_eq!(done_of(&sent)["ok"], true);
    let mut seen = Vec::new();
    while seen.len() < sent.len() {
        let frame = follower.next_within(Duration::from_secs(10)).await.unwrap();
        seen.push((frame.id, frame.event, frame.data));
    }
    let expected: Vec<_> = sent
        .iter()
        .map(|f| (f.id.clone(), f.event.clone(), f.data.clone()))
        .collect();
    assert_eq!(seen, expected);

    // Sent on A and watched on B; busy on every node; a stop sent to C
    // ends both streams.
    let mut running = on_a.open_stream(&thread, json!({"content": words})).await;
    assert_eq!(running.status, 200);
    let meta = running.next_within(Duration::from_secs(10)).await.unwrap();
    let watcher = on_b.open_watch(&thread, "", None).await;
    assert_eq!(watcher.status, 200);
    for api in [&on_a, &on_b, &on_c] {
        api.post(
            &format!("/api/threads/{thread}/messages"),
            json!({"content": "now?", "ifBusy": "reject"}),
        )
        .await
        .expect_error(409, "THREAD_BUSY");
    }
    let stopped_at = std::time::Instant::now();
    on_c.post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    let ended = |stream: crate::common::EventStream| async move {
        let frames = tokio::time::timeout(Duration::from_secs(5), stream.collect())
            .await
            .expect("the stop ends the stream");
        (frames, stopped_at.elapsed())
    };
    let ((rest, sender_after), (watched, watcher_after)) =
        tokio::join!(ended(running), ended(watcher));
    assert_eq!(done_of(&rest)["stopped"], true, "{rest:?}");
    assert_eq!(done_of(&watched)["stopped"], true, "{watched:?}");
    let turn_of = |id: &Option<String>| {
        id.as_deref()
            .and_then(|i| i.split('.').next())
            .map(str::to_owned)
    };
    assert_eq!(turn_of(&meta.id), turn_of(&watched[0].id), "{watched:?}");
    eprintln!(
        "a stop through C ended the sender's stream in {sender_after:?}, the watcher's in {watcher_after:?}"
    );

    // One key sent on A and on C makes one turn.
    let first = on_a
        .say_keyed(&thread, "same-key", json!({"content": "once"}))
        .await;
    let again = on_c
        .say_keyed(&thread, "same-key", json!({"content": "once"}))
        .await;
    assert_eq!(done_of(&first)["messageId"], done_of(&again)["messageId"]);
    let history = on_b.history(&thread).await;
    let once = history.iter().filter(|m| m["content"] == "once").count();
    assert_eq!(once, 2, "one user message and one answer: {history:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_request_needs_the_cluster_signature() {
    let postgres = Postgres::start().await;
    let url = postgres.database("signed").await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let api = node.admin();
    let agent = api.agent("signed").await;
    let thread = api.thread(&agent, json!({})).await;
    let forged = reqwest::Client::new()
        .post(format!("{}/api/threads/{thread}/messages", node.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .header(
            "x-confer-forwarded",
            format!("{}.{}.1", uuid::Uuid::nil(), chrono::Utc::now().timestamp()),
        )
        .header("x-confer-cluster-auth", "00".repeat(32))
        .json(&json!({"content": "forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 401);
    assert!(api.history(&thread).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_owner_is_replaced_and_leaves_no_turn_running() {
    let postgres = Postgres::start().await;
    let url = postgres.database("takeover").await;
    let slow = |name| on_postgres(&url, name).env("CONFER_BUILTIN_DELAY_MS", "50");
    let a = Server::start_with(slow("a"));
    let b = Server::start_with(slow("b"));
    settled(&a).await;
    let on_a = a.admin();
    let (node_a, node_b) = (node_of(&a).await, node_of(&b).await);
    let agent = on_a.agent("taken over").await;
    let thread = thread_owned_by(&on_a, &agent, &node_b).await;

    // Mid-answer, the owner dies. Three clients read the turn: the sender
    // through A, a watcher following through A, and a reader on B itself.
    let words = "a long answer that is still being written when its node dies";
    let mut cut = on_a.open_stream(&thread, json!({"content": words})).await;
    assert_eq!(cut.status, 200);
    let meta = cut.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(meta.event, "meta");
    let mut watcher = on_a.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(watcher.status, 200);
    let mut direct = b.admin().open_watch(&thread, "", None).await;
    assert_eq!(direct.status, 200);
    let mut last_direct = None;
    for _ in 0..3 {
        let frame = direct.next_within(Duration::from_secs(10)).await.unwrap();
        last_direct = frame.id.or(last_direct);
    }
    let killed = std::time::Instant::now();
    b.kill();
    // The forwarded sender's stream goes on as one stream: the new owner
    // tells it the turn's node stopped.
    let rest = tokio::time::timeout(Duration::from_secs(30), cut.collect())
        .await
        .expect("the relayed stream ends");
    let node_failed = |frames: &[crate::common::Frame]| {
        let error = frames.iter().position(|f| f.event == "error");
        let done = frames.iter().position(|f| f.event == "done");
        matches!((error, done), (Some(e), Some(d)) if e < d)
            && frames[error.unwrap()].data["code"] == "NODE_FAILED"
            && frames[done.unwrap()].data["ok"] == false
    };
    assert!(node_failed(&rest), "{rest:?}");
    eprintln!(
        "the sender was told NODE_FAILED {:?} after the kill",
        killed.elapsed()
    );
    // A reader of the dead node reattaches elsewhere and is told the same.
    let direct_rest = direct.collect().await;
    assert!(
        direct_rest.iter().all(|f| f.event != "done"),
        "{direct_rest:?}"
    );
    let last_direct = last_direct.expect("the direct reader saw an id");
    let reattached = on_a.open_watch(&thread, "", Some(&last_direct)).await;
    assert_eq!(reattached.status, 200);
    let told = reattached.collect().await;
    assert!(node_failed(&told), "{told:?}");

    // Its shards are owned again within the contract's 10 s.
    eventually(Duration::from_secs(10), "A owns every shard", async || {
        let cluster: Value = on_a.get("/api/admin/cluster").await.expect(200);
        let nodes = cluster["nodes"].as_array()?.clone();
        (nodes.len() == 1 && nodes[0]["shards"] == 1024).then_some(())
    })
    .await;
    eprintln!("shards owned again {:?} after the kill", killed.elapsed());
    let again = on_a
        .open_stream(&thread, json!({"content": "still here?"}))
        .await;
    assert_eq!(again.headers["x-confer-node"], node_a.as_str());
    assert_eq!(done_of(&again.collect().await)["ok"], true);
    // The follower was told, then followed the new owner's turn.
    let mut followed = Vec::new();
    while let Some(frame) = watcher.next_within(Duration::from_secs(20)).await {
        let ended = frame.event == "done" && frame.data["ok"] == true;
        followed.push(frame);
        if ended {
            break;
        }
    }
    assert!(node_failed(&followed), "{followed:?}");
    assert!(
        followed.iter().all(|f| f.event != "turn_gap"),
        "{followed:?}"
    );

    // No turn is left running: the dead node's was failed by the claim.
    let database = postgres.admin_of("takeover").await;
    let turns = database
        .query(
            "SELECT turn, status, node_id = $2::text::uuid FROM turns WHERE thread_id = $1 ORDER BY turn",
            &[&thread.parse::<uuid::Uuid>().unwrap(), &node_b],
        )
        .await
        .unwrap();
    let statuses: Vec<(i64, String, bool)> = turns
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(
        statuses.iter().all(|(_, status, _)| status != "running"),
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .any(|(_, status, on_b)| status == "failed" && *on_b),
        "the cut turn is failed: {statuses:?}"
    );
    // Every answered send is listed: the first and the last.
    let history = on_a.history(&thread).await;
    let said: Vec<_> = history
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(
        said.contains(&"who".to_owned()) && said.contains(&"still here?".to_owned()),
        "{said:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_paused_past_its_lease_stores_nothing_more_and_registers_again() {
    let postgres = Postgres::start().await;
    let url = postgres.database("paused").await;
    let slow = |name| on_postgres(&url, name).env("CONFER_BUILTIN_DELAY_MS", "100");
    let a = Server::start_with(slow("a"));
    let b = Server::start_with(slow("b"));
    settled(&a).await;
    let on_a = a.admin();
    let node_b = node_of(&b).await;
    let agent = on_a.agent("paused").await;
    let thread = thread_owned_by(&on_a, &agent, &node_b).await;
    // A second thread of B's, answered before the pause: B keeps its actor.
    let idle = thread_owned_by(&on_a, &agent, &node_b).await;

    let mut paused = on_a
        .open_stream(&thread, json!({"content": "one two three four five six"}))
        .await;
    assert_eq!(paused.status, 200);
    assert_eq!(
        paused
            .next_within(Duration::from_secs(10))
            .await
            .unwrap()
            .event,
        "meta"
    );
    b.signal("STOP");
    // Past its 5 s lease: A takes its shards.
    eventually(Duration::from_secs(15), "A owns every shard", async || {
        let cluster: Value = on_a.get("/api/admin/cluster").await.expect(200);
        let nodes = cluster["nodes"].as_array()?.clone();
        (nodes.len() == 1 && nodes[0]["shards"] == 1024).then_some(())
    })
    .await;
    b.signal("CONT");
    // B's turn goes on, but its answer's write is fenced off.
    let rest = tokio::time::timeout(Duration::from_secs(20), paused.collect())
        .await
        .expect("the stream ends");
    let error = crate::common::error_of(&rest);
    assert_eq!(error["code"], "NODE_LOST_LEASE", "{rest:?}");
    assert_eq!(done_of(&rest)["ok"], false);
    let history = on_a.history(&thread).await;
    assert!(
        history
            .iter()
            .all(|m| m["role"] != "assistant" || m["content"] != "one two three four five six"),
        "the fenced answer was not stored: {history:?}"
    );
    // B registers again under a fresh id, and the thread is answered.
    eventually(Duration::from_secs(20), "B is back", async || {
        let cluster: Value = on_a.get("/api/admin/cluster").await.expect(200);
        let back = cluster["nodes"]
            .as_array()?
            .iter()
            .any(|n| n["name"] == "b" && n["id"] != node_b.as_str());
        back.then_some(())
    })
    .await;
    let frames = b.admin().say(&thread, json!({"content": "after"})).await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");

    // Once the idle thread's shard is B's again, B answers it with a fresh
    // actor: the one it had was dropped with the lost lease, and its stale
    // fence would fail every write.
    let cluster: Value = on_a.get("/api/admin/cluster").await.expect(200);
    let new_b = cluster["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "b")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let database = postgres.admin_of("paused").await;
    eventually(
        Duration::from_secs(40),
        "B owns the idle thread's shard again",
        async || {
            let owner = shard_owner(&database, &idle).await;
            (owner.as_deref() == Some(new_b.as_str())).then_some(())
        },
    )
    .await;
    let again = b
        .admin()
        .open_stream(&idle, json!({"content": "again"}))
        .await;
    assert_eq!(again.headers["x-confer-node"], new_b.as_str());
    let frames = again.collect().await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
}
