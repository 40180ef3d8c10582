//! Durable before acknowledged: what a response reported survives SIGKILL
//! taken right after it, and a SIGTERM shuts down cleanly.

use serde_json::json;

use crate::common::Server;

#[tokio::test]
async fn acknowledged_writes_survive_kill_9() {
    let server = Server::start();
    let api = server.admin();
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "Durable", "stablePreamble": "p"}),
        )
        .await
        .expect(201);
    let agent_id = agent["id"].as_str().unwrap().to_owned();
    api.put(
        &format!("/api/agents/{agent_id}/compaction"),
        json!({"enabled": true, "vendorBCompactThreshold": 2000}),
    )
    .await
    .expect(200);
    api.put(
        &format!("/api/agents/{agent_id}/credentials"),
        json!({"enabled": true, "resolverUrl": "https://r.example"}),
    )
    .await
    .expect(200);
    let thread = api
        .thread(
            &agent_id,
            json!({"kind": "multiplayer", "metadata": {"k": "v"}}),
        )
        .await;
    api.post(
        &format!("/api/threads/{thread}/participants"),
        json!({"userId": "u1"}),
    )
    .await
    .expect(201);
    let key = api
        .post("/api/keys", json!({"name": "survivor"}))
        .await
        .expect(201);
    let secret = key["key"].as_str().unwrap().to_owned();
    // The last write is acknowledged; kill -9 at once.
    let patched = api
        .patch(&format!("/api/threads/{thread}"), json!({"title": "final"}))
        .await
        .expect(200);

    let server = server.kill_and_restart();
    let api = server.admin();
    assert_eq!(
        api.get(&format!("/api/agents/{agent_id}"))
            .await
            .expect(200),
        agent
    );
    let compaction = api
        .get(&format!("/api/agents/{agent_id}/compaction"))
        .await
        .expect(200);
    assert_eq!(compaction["vendor_b_compact_threshold"], 2000);
    let credentials = api
        .get(&format!("/api/agents/{agent_id}/credentials"))
        .await
        .expect(200);
    assert_eq!(credentials["resolver_url"], "https://r.example");
    assert_eq!(
        api.get(&format!("/api/threads/{thread}")).await.expect(200),
        patched
    );
    let participants = api
        .get(&format!("/api/threads/{thread}/participants"))
        .await
        .expect(200);
    assert_eq!(participants["participants"][0]["user_id"], "u1");
    server.api(&secret).get("/api/agents").await.expect(200);
}

#[tokio::test]
async fn revocation_survives_kill_9() {
    let server = Server::start();
    let api = server.admin();
    let key = api
        .post("/api/keys", json!({"name": "short-lived"}))
        .await
        .expect(201);
    let secret = key["key"].as_str().unwrap().to_owned();
    api.delete(&format!("/api/keys/{}", key["id"].as_str().unwrap()))
        .await
        .expect(200);
    let server = server.kill_and_restart();
    server
        .api(&secret)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn sigterm_stops_cleanly_and_keeps_data() {
    let mut server = Server::start();
    let agent = server.admin().agent("Graceful").await;
    assert!(server.terminate(), "exit status 0 after SIGTERM");
    assert!(server.logs().contains("store flushed"), "{}", server.logs());
    let server = server.restart();
    server
        .admin()
        .get(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
}
