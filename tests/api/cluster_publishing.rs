//! Public chats on PostgreSQL (`publishing.md`, `scale.md` §5): a
//! publication (and its agent's suggestions) made on one node is read,
//! changed and served by another; a slug is taken once across nodes; a
//! visitor's session, threads and sends work whichever node it reaches,
//! a send reaching a node that does not own its thread relayed to the
//! owner; a pause on one node ends the sessions another node had cached
//! within seconds, and a revoke there stops a running public turn on the
//! thread's owner; the thread cap holds across nodes; the store's sweep
//! applies a publication's retention.

use std::time::Duration;

use serde_json::json;

use crate::cluster_forward::{node_of, shard_owner};
use crate::cluster_serve::on_postgres;
use crate::common::{Server, done_of, events_of};
use crate::postgres::Postgres;
use crate::visitors::visit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_chat_runs_on_postgres_whichever_node_is_reached() {
    let postgres = Postgres::start().await;
    let url = postgres.database("public").await;
    let node = |name| {
        on_postgres(&url, name)
            .env("CONFER_PUBLIC_MAX_THREADS", "2")
            .env("CONFER_BUILTIN_DELAY_MS", "100")
    };
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let (on_a, on_b) = (a.admin(), b.admin());

    // The org's settings and the publication, written on A, read on B.
    let settings = on_a
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://shop.example.com"]}),
        )
        .await
        .expect(200);
    assert_eq!(on_b.get("/api/orgs/settings").await.expect(200), settings);
    let agent = on_a.agent("Helpdesk").await;
    let path = format!("/api/agents/{agent}/publish");
    let published = on_a
        .post(&path, json!({"slug": "help", "identity": "optional"}))
        .await
        .expect(201);
    let secret = published["identity_secret"].as_str().unwrap().to_owned();
    let seen = on_b.get(&path).await.expect(200);
    assert_eq!(seen["id"], published["id"]);
    assert_eq!(
        seen["effective_allowed_domains"],
        json!(["https://shop.example.com"])
    );
    let listed = on_b.get(&format!("/api/agents/{agent}")).await.expect(200);
    assert_eq!(listed["published_chats"][0]["slug"], "help", "{listed}");
    let row: String = postgres
        .admin_of("public")
        .await
        .query_one("SELECT body::text FROM publications", &[])
        .await
        .unwrap()
        .get(0);
    assert!(
        !row.contains(&secret),
        "the identity secret is sealed: {row}"
    );
    // The slug is the instance's: another agent cannot take it on B.
    let other = on_b.agent("Other").await;
    let taken = on_b
        .post(
            &format!("/api/agents/{other}/publish"),
            json!({"slug": "help"}),
        )
        .await
        .expect_error(409, "CONFLICT");
    assert!(taken.starts_with("slug"), "{taken}");
    // The agent's suggestions, set on A, stand in for the chat's empty
    // prompts on B.
    let starters = json!({"suggestions": ["Where is my order?"]});
    let suggestions = format!("/api/agents/{agent}/suggestions");
    let stored = on_a.put(&suggestions, starters).await.expect(200);
    assert_eq!(on_b.get(&suggestions).await.expect(200), stored);
    let page = b.anonymous().get("/api/public/chat/help").await.expect(200);
    assert_eq!(
        page["suggested_prompts"],
        json!(["Where is my order?"]),
        "{page}"
    );

    // A host identity signed with the secret opens on B (the sealed
    // secret opens there); the visitor's thread is made on A and its send
    // answered through B.
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &json!({"sub": "u-1", "exp": crate::common::exp_in(600), "aud": "help"}),
        &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    let on_b_guest = visit(&b, "help", json!({"userToken": token})).await;
    let session_token = on_b_guest.session["token"].as_str().unwrap().to_owned();
    let on_a_guest = crate::visitors::Guest {
        api: a.api(&session_token),
        session: on_b_guest.session.clone(),
        slug: "help".into(),
    };
    let thread = on_a_guest.thread(json!({"title": "mine"})).await;
    let thread = thread["id"].as_str().unwrap().to_owned();
    // Sent through the node that does not own the thread: relayed.
    let database = postgres.admin_of("public").await;
    let owner = shard_owner(&database, &thread).await.expect("an owner");
    let entry = match node_of(&a).await == owner {
        true => &on_b_guest,
        false => &on_a_guest,
    };
    let stream = entry
        .open_send(&thread, json!({"content": "hello"}), &[])
        .await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.headers["x-confer-node"].to_str().unwrap(), owner);
    let frames = stream.collect().await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let history = on_a_guest
        .api
        .get(&on_a_guest.path(&format!("/threads/{thread}/messages")))
        .await
        .expect(200);
    assert_eq!(
        history["messages"].as_array().unwrap().len(),
        2,
        "{history}"
    );
    let mine = on_b_guest
        .api
        .get(&on_b_guest.path("/threads"))
        .await
        .expect(200);
    assert_eq!(mine["threads"][0]["id"], thread.as_str(), "{mine}");
    let spent = on_b.get(&path).await.expect(200);
    assert!(
        spent["usage_today"]["tokens"].as_u64().unwrap() > 0,
        "{spent}"
    );

    // The cap (2) holds across nodes: one thread is held, so of two
    // visitors racing for the last place on A and B one wins, each round.
    for round in 0..4 {
        let (first, second) = (
            visit(&a, "help", json!({})).await,
            visit(&b, "help", json!({})).await,
        );
        let (path_a, path_b) = (first.path("/threads"), second.path("/threads"));
        let (one, two) = tokio::join!(
            first.api.post(&path_a, json!({})),
            second.api.post(&path_b, json!({})),
        );
        let mut statuses = [one.status, two.status];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}");
        let won = if one.status == 200 { one } else { two };
        on_a.delete(&format!(
            "/api/threads/{}",
            won.expect(200)["id"].as_str().unwrap()
        ))
        .await
        .expect(200);
    }

    // A pause on A ends the session B holds (its cached publication is
    // dropped within the second).
    on_b_guest
        .api
        .get(&on_b_guest.path("/threads"))
        .await
        .expect(200);
    on_a.patch(&path, json!({"status": "paused"}))
        .await
        .expect(200);
    crate::common::eventually(
        Duration::from_secs(5),
        "B refuses the paused chat",
        async || {
            let reply = on_b_guest.api.get(&on_b_guest.path("/threads")).await;
            (reply.status == 401).then_some(())
        },
    )
    .await;
    on_b.patch(&path, json!({"status": "active", "retentionDays": 1}))
        .await
        .expect(200);

    // A revoke made on the node that does not own the thread ends the
    // session's running turn on the owner within seconds: its stream
    // closes without `done` and the turn stops short.
    let owned_by_a = node_of(&a).await == owner;
    let (owner_node, elsewhere) = if owned_by_a { (&a, &on_b) } else { (&b, &on_a) };
    let host = visit(owner_node, "help", json!({"userToken": token})).await;
    let long = "word ".repeat(40);
    let mut running = host
        .open_send(&thread, json!({"content": long.trim_end()}), &[])
        .await;
    assert_eq!(running.status, 200);
    running.next_within(Duration::from_secs(10)).await.unwrap();
    // The org watches the same turn (the thread's second) on its owner.
    let owner_admin = if owned_by_a { &on_a } else { &on_b };
    let mut watch = owner_admin.open_watch(&thread, "", Some("2.0")).await;
    assert_eq!(watch.status, 200);
    elsewhere
        .patch(&path, json!({"revokeSessions": true}))
        .await
        .expect(200);
    let rest = tokio::time::timeout(Duration::from_secs(5), running.collect())
        .await
        .expect("the public stream closed within 5 s");
    assert!(events_of(&rest, "done").is_empty(), "{rest:?}");
    let done = loop {
        let frame = watch.next_within(Duration::from_secs(5)).await.unwrap();
        if frame.event == "done" {
            break frame.data;
        }
    };
    assert_eq!(done["stopped"], true, "{done}");

    // The store's sweep deletes a public thread past its retention.
    let store = crate::store_conformance::pg_store_of_node(&url).await;
    let later = chrono::Utc::now() + chrono::TimeDelta::days(3);
    let swept = store
        .sweep(chrono::TimeDelta::days(30), later)
        .await
        .unwrap()
        .expect("no other sweep runs");
    assert_eq!(swept.public_threads, 1, "{swept:?}");
    on_a.get(&format!("/api/threads/{thread}"))
        .await
        .expect_error(404, "NOT_FOUND");

    // Unpublished on B: the slug is free at once, on A.
    on_b.delete(&path).await.expect(200);
    on_a.post(
        &format!("/api/agents/{other}/publish"),
        json!({"slug": "help"}),
    )
    .await
    .expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chats_running_turns_and_budget_hold_across_nodes() {
    let postgres = Postgres::start().await;
    let url = postgres.database("public_turns").await;
    // The visitor opens threads until two are owned by different nodes:
    // its request rate is not what this test is about.
    let node = |name| {
        on_postgres(&url, name)
            .env("CONFER_BUILTIN_DELAY_MS", "150")
            .env("CONFER_PUBLIC_VISITOR_RPS", "0")
    };
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    crate::cluster_forward::settled_with(&a, 2).await;
    let on_a = a.admin();
    let agent = crate::visitors::publish(
        &on_a,
        "busy",
        json!({"limits": {"maxConcurrentTurns": 1, "dailyTokenBudget": null,
                          "visitorMessagesPerMinute": 600}}),
    )
    .await;
    let guest = visit(&a, "busy", json!({})).await;
    // Two of the visitor's threads whose shards different nodes own.
    let database = postgres.admin_of("public_turns").await;
    let (node_a, node_b) = (node_of(&a).await, node_of(&b).await);
    let (mut on_node_a, mut on_node_b) = (None, None);
    for _ in 0..40 {
        let thread = guest.thread(json!({})).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let owner = shard_owner(&database, &thread).await;
        if owner.as_ref() == Some(&node_a) {
            on_node_a.get_or_insert(thread);
        } else if owner.as_ref() == Some(&node_b) {
            on_node_b.get_or_insert(thread);
        }
        if on_node_a.is_some() && on_node_b.is_some() {
            break;
        }
    }
    let (first, second) = (on_node_a.unwrap(), on_node_b.unwrap());
    let send = |thread: &str| guest.path(&format!("/threads/{thread}/messages"));

    // One turn runs on A: the chat's one place is taken for B too.
    let running = guest
        .open_send(&first, json!({"content": "a long answer here"}), &[])
        .await;
    assert_eq!(running.status, 200);
    let refused = guest
        .api
        .post(&send(&second), json!({"content": "me too"}))
        .await
        .expect_error(429, "RATE_LIMITED");
    assert!(refused.contains("maxConcurrentTurns"), "{refused}");
    assert_eq!(done_of(&running.collect().await)["ok"], true);
    // Its end gives the place back (the row goes just after the turn).
    crate::common::eventually(Duration::from_secs(5), "the place freed", async || {
        let stream = guest
            .open_send(&second, json!({"content": "now"}), &[])
            .await;
        (stream.status == 200).then_some(stream.collect().await)
    })
    .await;

    // Two places, a budget for one send's reservation: the second send,
    // on the other node, does not fit beside the first.
    on_a.patch(
        &format!("/api/agents/{agent}/publish"),
        json!({"limits": {"maxConcurrentTurns": 2, "dailyTokenBudget": 1000,
                          "maxOutputTokens": 600}}),
    )
    .await
    .expect(200);
    // A long answer on A; B refuses the second send once it has read the
    // changed limits (within the cache round).
    let long = "word ".repeat(40);
    let running = guest.open_send(&first, json!({"content": long}), &[]).await;
    assert_eq!(running.status, 200);
    let refused = crate::common::eventually(
        Duration::from_secs(5),
        "B reads the new limits",
        async || {
            let reply = guest
                .api
                .post(&send(&second), json!({"content": "and me"}))
                .await;
            assert_eq!(reply.status, 429, "{reply:?}");
            let body = reply.expect(429);
            (body["error"] == "BUDGET_EXHAUSTED").then_some(body)
        },
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("dailyTokenBudget"),
        "{refused}"
    );
    assert_eq!(done_of(&running.collect().await)["ok"], true);
}
