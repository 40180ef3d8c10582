//! Limits across nodes (`scale.md` §5, acceptance 7): a revoked key is
//! refused on every node at once (keys are never cached), and a user's
//! per-minute send limit counts the sends made on every node.

use serde_json::json;

use crate::cluster_forward::{node_of, settled};
use crate::cluster_serve::on_postgres;
use crate::common::{Server, done_of, exp_in, jwt};
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
    let mut on_each = (None, None);
    for _ in 0..40 {
        let thread = alice_a.thread(&agent, json!({})).await;
        // A shard between two owners has none for a moment.
        let owner: Option<String> = database
            .query_one(
                "SELECT l.node_id::text FROM shard_leases l JOIN threads t ON t.shard = l.shard
                 WHERE t.id = $1",
                &[&thread.parse::<uuid::Uuid>().unwrap()],
            )
            .await
            .unwrap()
            .get(0);
        match owner.unwrap_or_default() {
            o if o == node_a && on_each.0.is_none() => on_each.0 = Some(thread),
            o if o == node_b && on_each.1.is_none() => on_each.1 = Some(thread),
            _ => {}
        }
        if on_each.0.is_some() && on_each.1.is_some() {
            break;
        }
    }
    let (Some(mine_a), Some(mine_b)) = on_each else {
        panic!("no thread in each node's shards");
    };
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
