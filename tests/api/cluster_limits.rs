//! Limits across nodes (`scale.md` §5, acceptance 7): a revoked key is
//! refused on every node at once (keys are never cached), and a user's
//! per-minute send limit counts the sends made on every node.

use serde_json::json;

use crate::cluster_forward::{node_of, settled, shard_owner};
use crate::cluster_serve::on_postgres;
use crate::common::{Api, Server, done_of, exp_in, jwt};
use crate::postgres::Postgres;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_send_limits_hold_on_every_node() {
    let postgres = Postgres::start().await;
    let url = postgres.database("limits").await;
    let limited = |name| on_postgres(&url, name).env("CONFER_USER_SEND_LIMIT_PER_MIN", "3");
    let a = Server::start_with(limited("a"));
    let b = Server::start_with(limited("b"));
    settled(&a).await;
    let on_a = a.admin();

    // A key made on A works on B, and once revoked on A, B refuses it.
    let created = on_a
        .post("/api/keys", json!({"name": "ci", "role": "member"}))
        .await
        .expect(201);
    let (key, id) = (
        created["key"].as_str().unwrap(),
        created["id"].as_str().unwrap(),
    );
    b.api(key).get("/api/agents").await.expect(200);
    on_a.delete(&format!("/api/keys/{id}")).await.expect(200);
    b.api(key)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    a.api(key)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");

    // A key's 1 request a second (a burst of 2 on one node) is shared by
    // the two nodes: each lets 1 through at once.
    let created = on_a
        .post(
            "/api/keys",
            json!({"name": "slow", "role": "member", "rateLimitRps": 1.0}),
        )
        .await
        .expect(201);
    let slow = a.api(created["key"].as_str().unwrap());
    slow.get("/api/agents").await.expect(200);
    slow.get("/api/agents")
        .await
        .expect_error(429, "RATE_LIMITED");

    // Alice's threads, one in each node's shards (found in the lease
    // table, without a send: every send counts).
    let org = on_a.org_id().await;
    let agent = on_a.agent("limited").await;
    let token = jwt(json!({"sub": "alice", "exp": exp_in(600), "org_id": org}));
    let (alice_a, alice_b) = (a.api(&token), b.api(&token));
    let database = postgres.admin_of("limits").await;
    let (node_a, node_b) = (node_of(&a).await, node_of(&b).await);
    let [mine_a, mine_b] = threads_owned(&database, &alice_a, &agent, [&node_a, &node_b]).await;
    // Three sends in a minute, wherever they are made and answered.
    for (api, thread) in [
        (&alice_a, &mine_a),
        (&alice_b, &mine_b),
        (&alice_b, &mine_a),
    ] {
        let frames = api.say(thread, json!({"content": "counted"})).await;
        assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    }
    for (api, thread) in [(&alice_a, &mine_b), (&alice_b, &mine_a)] {
        let refused = api
            .request(
                reqwest::Method::POST,
                &format!("/api/threads/{thread}/messages"),
                Some(json!({"content": "one too many"})),
            )
            .await;
        refused.expect_error(429, "RATE_LIMITED");
    }
    // Another user has sends of their own.
    let bob = b.api(&jwt(
        json!({"sub": "bob", "exp": exp_in(600), "org_id": org}),
    ));
    let thread = bob.thread(&agent, json!({})).await;
    let frames = bob.say(&thread, json!({"content": "mine"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
}

/// New threads of `agent`, made through `api`, whose shards `owners` hold
/// (in that order), found in the lease table without a send.
pub(crate) async fn threads_owned<const N: usize>(
    database: &tokio_postgres::Client,
    api: &Api,
    agent: &str,
    owners: [&str; N],
) -> [String; N] {
    let mut found: [Option<String>; N] = std::array::from_fn(|_| None);
    for _ in 0..60 {
        let thread = api.thread(agent, json!({})).await;
        let owner = shard_owner(database, &thread).await;
        let wanted = (0..N).find(|&i| found[i].is_none() && owner.as_deref() == Some(owners[i]));
        if let Some(i) = wanted {
            found[i] = Some(thread);
        }
        if found.iter().all(Option::is_some) {
            return found.map(Option::unwrap);
        }
    }
    panic!("no threads in the shards of {owners:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_org_cap_holds_across_nodes() {
    let postgres = Postgres::start().await;
    let url = postgres.database("org_cap").await;
    let capped = |name| {
        on_postgres(&url, name)
            .env("CONFER_MAX_ACTIVE_TURNS_PER_ORG", "2")
            .env("CONFER_BUILTIN_DELAY_MS", "250")
    };
    let a = Server::start_with(capped("a"));
    let b = Server::start_with(capped("b"));
    settled(&a).await;
    let on_a = a.admin();
    let agent = on_a.agent("capped").await;
    let database = postgres.admin_of("org_cap").await;
    let (node_a, node_b) = (node_of(&a).await, node_of(&b).await);
    // Two turns on A's threads and one on B's: a cap per node would let
    // all three run.
    let threads = threads_owned(&database, &on_a, &agent, [&node_a, &node_a, &node_b]).await;
    let words = "one two three four five six seven eight";
    let began = std::time::Instant::now();
    // Opened at once, so that a slow machine still has all three turns
    // asked for before the first ends.
    let streams = futures_util::future::join_all(
        threads
            .iter()
            .map(|thread| on_a.open_stream(thread, json!({"content": words}))),
    )
    .await;
    for stream in &streams {
        assert_eq!(stream.status, 200);
    }
    // Each turn's running time: from its first token to its done.
    let runs = futures_util::future::join_all(streams.into_iter().map(|mut stream| async move {
        let (mut first, mut queued) = (None, false);
        while let Some(frame) = stream.next().await {
            match frame.event.as_str() {
                "queued" if frame.data["reason"] == "org" => queued = true,
                "token" if first.is_none() => first = Some(began.elapsed()),
                "done" => {
                    assert_eq!(frame.data["ok"], true, "{frame:?}");
                    return (first.unwrap(), began.elapsed(), queued);
                }
                _ => {}
            }
        }
        panic!("a stream ended without done");
    }))
    .await;
    let waited = runs.iter().filter(|(_, _, queued)| *queued).count();
    assert_eq!(waited, 1, "one turn waited for the org: {runs:?}");
    // No instant has three turns running.
    for (start, _, _) in &runs {
        let running = runs
            .iter()
            .filter(|(from, to, _)| from <= start && start < to)
            .count();
        assert!(running <= 2, "{runs:?}");
    }
}

/// Reads `stream` until its first `queued` frame for the org: its place.
async fn org_place(stream: &mut crate::common::EventStream) -> u64 {
    while let Some(frame) = stream.next().await {
        if frame.event == "queued" && frame.data["reason"] == "org" {
            return frame.data["position"].as_u64().unwrap();
        }
        assert_ne!(
            frame.event, "done",
            "the turn ran without waiting: {frame:?}"
        );
    }
    panic!("a stream ended before it was queued");
}

/// With an org cap of 1, turns waiting on two nodes form one queue: each
/// turn's `queued.position` counts the turns ahead of it on every node,
/// and they start (and so end) in the order they queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_orgs_waiting_turns_are_one_queue_across_nodes() {
    let postgres = Postgres::start().await;
    let url = postgres.database("org_queue").await;
    let capped = |name| {
        on_postgres(&url, name)
            .env("CONFER_MAX_ACTIVE_TURNS_PER_ORG", "1")
            .env("CONFER_BUILTIN_DELAY_MS", "40")
    };
    let a = Server::start_with(capped("a"));
    let b = Server::start_with(capped("b"));
    settled(&a).await;
    let on_a = a.admin();
    let agent = on_a.agent("queued").await;
    let database = postgres.admin_of("org_queue").await;
    let (node_a, node_b) = (node_of(&a).await, node_of(&b).await);
    let owners = [node_a.as_str(), &node_a, &node_b, &node_a];
    let threads = threads_owned(&database, &on_a, &agent, owners).await;
    // The first turn runs (about 2 s); then one waits on A, one on B and
    // another on A, each sent once the one before it was queued.
    let long = "word ".repeat(50);
    let mut first = on_a
        .open_stream(&threads[0], json!({"content": long}))
        .await;
    while let Some(frame) = first.next().await {
        if frame.event == "token" {
            break;
        }
    }
    let mut places = Vec::new();
    let mut streams = Vec::new();
    for thread in &threads[1..] {
        let mut stream = on_a
            .open_stream(thread, json!({"content": "one two"}))
            .await;
        places.push(org_place(&mut stream).await);
        streams.push(stream);
    }
    assert_eq!(places, [1, 2, 3], "one queue across the nodes");
    for stream in std::iter::once(first).chain(streams) {
        let frames = stream.collect().await;
        assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    }
    let mut ended = Vec::new();
    for thread in &threads {
        let messages = on_a
            .get(&format!("/api/threads/{thread}/messages"))
            .await
            .expect(200);
        let answer = messages["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rfind(|m| m["role"] == "assistant")
            .map(|m| m["created_at"].as_str().unwrap().to_owned())
            .unwrap();
        ended.push(chrono::DateTime::parse_from_rfc3339(&answer).unwrap());
    }
    assert!(
        ended.windows(2).all(|w| w[0] < w[1]),
        "in the order queued: {ended:?}"
    );
    let left: i64 = database
        .query_one("SELECT count(*) FROM org_turn_waiters", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "every waiting turn left the queue");
}
