//! The error contract: every error is `{error, detail}` with the right status.

use reqwest::Method;
use serde_json::json;

use crate::common::{Options, Server};

#[tokio::test]
async fn error_bodies_and_statuses() {
    let server = Server::start();
    let api = server.admin();

    api.get("/api/nothing-here")
        .await
        .expect_error(404, "NOT_FOUND");
    server
        .anonymous()
        .get("/not/api")
        .await
        .expect_error(404, "NOT_FOUND");
    api.request(Method::PUT, "/api/agents", None)
        .await
        .expect_error(405, "METHOD_NOT_ALLOWED");
    api.get("/api/agents/not-a-uuid")
        .await
        .expect_error(404, "NOT_FOUND");
    api.get("/api/threads/12345")
        .await
        .expect_error(404, "NOT_FOUND");
    let missing = "0190a0a0-0000-7000-8000-000000000000";
    let detail = api
        .get(&format!("/api/agents/{missing}"))
        .await
        .expect_error(404, "NOT_FOUND");
    assert!(detail.contains("agent"), "{detail}");

    let detail = api
        .raw(Method::POST, "/api/agents", b"{not json".to_vec())
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(!detail.is_empty());
    api.raw(Method::POST, "/api/agents", Vec::new())
        .await
        .expect_error(400, "BAD_REQUEST");
    api.raw(Method::POST, "/api/agents", b"[1,2]".to_vec())
        .await
        .expect_error(400, "BAD_REQUEST");
    api.raw(
        Method::POST,
        "/api/agents",
        br#"{"name":"a"} trailing"#.to_vec(),
    )
    .await
    .expect_error(400, "BAD_REQUEST");

    // Over the default 1 MiB limit: 413, and nothing stored.
    let huge = json!({"name": "x".repeat(1024 * 1024 + 10)});
    api.post("/api/agents", huge)
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    assert_eq!(api.get("/api/agents").await.expect(200), json!([]));

    assert_eq!(
        api.get("/api/usage").await.expect(200),
        json!({"records": [], "nextCursor": null})
    );
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let usage = api
        .get(&format!(
            "/api/usage?agentId={agent}&threadId={thread}&limit=5"
        ))
        .await
        .expect(200);
    assert_eq!(usage, json!({"records": [], "nextCursor": null}));
    api.get("/api/usage?limit=x")
        .await
        .expect_error(400, "BAD_REQUEST");
    api.get("/api/usage?agentId=nope")
        .await
        .expect_error(400, "BAD_REQUEST");

    // A bad send gets a JSON error, not a stream.
    let detail = api
        .post(
            &format!("/api/threads/{thread}/messages"),
            json!({"content": 5}),
        )
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.starts_with("content:"), "{detail}");
}

#[tokio::test]
async fn body_limit_is_configurable() {
    let server = Server::start_with(Options::default().env("CONFER_MAX_BODY_BYTES", "256"));
    let api = server.admin();
    api.post("/api/agents", json!({"name": "ok"}))
        .await
        .expect(201);
    let detail = api
        .post(
            "/api/agents",
            json!({"name": "x", "description": "y".repeat(300)}),
        )
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    assert!(detail.contains("256"), "{detail}");
}
