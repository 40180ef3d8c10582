//! Threads: create, update rules, delete, history shape, cursor paging.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::common::Server;

#[tokio::test]
async fn thread_fields_update_rules_and_delete() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;

    let created = api
        .post(
            "/api/threads",
            json!({"agentId": agent, "title": "T", "kind": "multiplayer",
                   "resourceBindings": [{"type": "repo", "name": "x"}],
                   "activeProfile": "dev", "systemPromptOverlay": ["one", "two"],
                   "metadata": {"team": "a", "env": "prod"}}),
        )
        .await
        .expect(200);
    for field in [
        "id",
        "org_id",
        "agent_id",
        "title",
        "kind",
        "status",
        "active_profile",
        "metadata",
        "system_prompt_overlay",
        "resource_bindings",
        "created_by",
        "created_at",
        "updated_at",
    ] {
        assert!(created.get(field).is_some(), "missing {field}: {created}");
    }
    assert_eq!(created["status"], "active");
    assert_eq!(created["kind"], "multiplayer");
    assert_eq!(created["system_prompt_overlay"], "one\n\ntwo");
    assert_eq!(
        created["resource_bindings"],
        json!([{"type": "repo", "name": "x"}])
    );
    assert!(
        created["created_by"]
            .as_str()
            .unwrap()
            .starts_with("apikey:")
    );
    let id = created["id"].as_str().unwrap();
    let path = format!("/api/threads/{id}");

    let defaults = api
        .post("/api/threads", json!({"agentId": agent}))
        .await
        .expect(200);
    assert_eq!(defaults["kind"], "single");
    assert_eq!(defaults["title"], json!(null));
    assert_eq!(defaults["metadata"], json!({}));
    assert_eq!(defaults["system_prompt_overlay"], json!(null));
    assert_eq!(defaults["resource_bindings"], json!([]));
    assert_eq!(defaults["active_profile"], json!(null));

    // Metadata is replaced whole; null clears; absent fields stay.
    let updated = api
        .patch(&path, json!({"metadata": {"team": "b"}, "title": "T2"}))
        .await
        .expect(200);
    assert_eq!(updated["metadata"], json!({"team": "b"}));
    assert_eq!(updated["title"], "T2");
    assert_eq!(updated["active_profile"], "dev");
    assert_eq!(updated["created_at"], created["created_at"]);
    let cleared = api
        .patch(
            &path,
            json!({"activeProfile": null, "systemPromptOverlay": null, "metadata": null}),
        )
        .await
        .expect(200);
    assert_eq!(cleared["active_profile"], json!(null));
    assert_eq!(cleared["system_prompt_overlay"], json!(null));
    assert_eq!(cleared["metadata"], json!({}));
    assert_eq!(cleared["title"], "T2");
    let overlay = api
        .patch(&path, json!({"systemPromptOverlay": "solo"}))
        .await
        .expect(200);
    assert_eq!(overlay["system_prompt_overlay"], "solo");
    assert_eq!(api.get(&path).await.expect(200), overlay);

    // Bad input: 400 for shape, 404 for unknown agents.
    let detail = api
        .post("/api/threads", json!({"title": "x"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("agentId"), "{detail}");
    let detail = api
        .post(
            "/api/threads",
            json!({"agentId": agent, "metadata": {"n": 1}}),
        )
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("metadata"), "{detail}");
    api.post("/api/threads", json!({"agentId": agent, "kind": "group"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    let unknown = uuid_like();
    api.post("/api/threads", json!({"agentId": unknown}))
        .await
        .expect_error(404, "NOT_FOUND");
    api.get("/api/threads")
        .await
        .expect_error(400, "BAD_REQUEST");
    api.get(&format!("/api/threads?agentId={unknown}"))
        .await
        .expect_error(404, "NOT_FOUND");
    api.patch(&path, json!({"metadata": {"n": true}}))
        .await
        .expect_error(400, "BAD_REQUEST");

    // History shape, then delete.
    let history = api.get(&format!("{path}/messages")).await.expect(200);
    assert_eq!(history, json!({"messages": [], "total": 0}));
    assert_eq!(api.delete(&path).await.expect(200), json!({"ok": true}));
    api.get(&path).await.expect_error(404, "NOT_FOUND");
    api.get(&format!("{path}/messages"))
        .await
        .expect_error(404, "NOT_FOUND");
    let listed = api
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert_eq!(listed["threads"].as_array().unwrap().len(), 1);
}

fn uuid_like() -> String {
    "0190a0a0-0000-7000-8000-000000000000".to_owned()
}

#[tokio::test]
async fn paging_returns_every_thread_exactly_once() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Busy").await;
    let other = api.agent("Other").await;
    api.thread(&other, json!({})).await;

    // Created concurrently, so many share a millisecond (and a microsecond).
    let mut created = HashSet::new();
    for batch in 0..5 {
        let mut tasks = Vec::new();
        for i in 0..50 {
            let api = api.clone();
            let agent = agent.clone();
            tasks.push(tokio::spawn(async move {
                api.thread(&agent, json!({"title": format!("t{batch}-{i}")}))
                    .await
            }));
        }
        for task in tasks {
            assert!(created.insert(task.await.unwrap()));
        }
    }
    assert_eq!(created.len(), 250);

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut path = format!("/api/threads?agentId={agent}&limit=100");
        if let Some(cursor) = &cursor {
            path.push_str(&format!("&cursor={}", urlencode(cursor)));
        }
        let page = api.get(&path).await.expect(200);
        pages += 1;
        let threads = page["threads"].as_array().unwrap();
        assert!(threads.len() <= 100);
        let stamps: Vec<&str> = threads
            .iter()
            .map(|t| t["created_at"].as_str().unwrap())
            .collect();
        assert!(
            stamps.windows(2).all(|w| w[0] > w[1]),
            "newest first, unique: {stamps:?}"
        );
        seen.extend(threads.iter().map(|t| t["id"].as_str().unwrap().to_owned()));
        match &page["nextCursor"] {
            Value::Null => break,
            Value::String(next) => {
                assert_eq!(next, stamps.last().unwrap());
                cursor = Some(next.clone());
            }
            other => panic!("nextCursor: {other}"),
        }
        assert!(pages < 10);
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 250, "no thread repeated or lost");
    assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), created);

    // Limits: default 50, clamped to 100, bad values 400.
    let page = api
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert_eq!(page["threads"].as_array().unwrap().len(), 50);
    let page = api
        .get(&format!("/api/threads?agentId={agent}&limit=1000"))
        .await
        .expect(200);
    assert_eq!(page["threads"].as_array().unwrap().len(), 100);
    api.get(&format!("/api/threads?agentId={agent}&limit=abc"))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.get(&format!("/api/threads?agentId={agent}&limit=-1"))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.get(&format!("/api/threads?agentId={agent}&cursor=yesterday"))
        .await
        .expect_error(400, "BAD_REQUEST");
}

fn urlencode(value: &str) -> String {
    value.replace(':', "%3A").replace('+', "%2B")
}

#[tokio::test]
async fn history_paging_parameters() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let path = format!("/api/threads/{thread}/messages");
    api.get(&format!("{path}?limit=1000&offset=5"))
        .await
        .expect(200);
    api.get(&format!("{path}?limit=x"))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.get(&format!("{path}?offset=-3"))
        .await
        .expect_error(400, "BAD_REQUEST");
    // Send validation happens before anything else.
    api.post(&path, json!({}))
        .await
        .expect_error(400, "BAD_REQUEST");
    let detail = api
        .post(&path, json!({"content": " "}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("content"), "{detail}");
}

/// `POST /api/threads` with an `Idempotency-Key`: concurrent and later
/// repeats answer the thread made the first time; another body is 422;
/// another caller's same key is its own.
#[tokio::test]
async fn keyed_thread_creation_makes_one_thread() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Keyed").await;
    let create = |token: String, key: &'static str, title: &'static str| {
        let base = server.base.clone();
        let agent = agent.clone();
        async move {
            let response = reqwest::Client::new()
                .post(format!("{base}/api/threads"))
                .bearer_auth(token)
                .header("idempotency-key", key)
                .json(&json!({"agentId": agent, "title": title}))
                .send()
                .await
                .unwrap();
            let replayed = response.headers().contains_key("idempotent-replayed");
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap();
            (status, replayed, body)
        }
    };
    let admin = crate::common::BOOTSTRAP_KEY.to_owned();
    let racing: Vec<_> = (0..8)
        .map(|_| tokio::spawn(create(admin.clone(), "make-once", "Once")))
        .collect();
    let mut ids = HashSet::new();
    let mut replays = 0;
    for race in racing {
        let (status, replayed, body) = race.await.unwrap();
        assert_eq!(status, 200, "{body}");
        ids.insert(body["id"].as_str().unwrap().to_owned());
        replays += usize::from(replayed);
    }
    assert_eq!(ids.len(), 1, "one thread for eight racing repeats");
    assert_eq!(replays, 7);
    let (status, _, body) = create(admin.clone(), "make-once", "Other").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (422, Some("IDEMPOTENCY_KEY_REUSED"))
    );
    // Another caller's key is another scope.
    let other = api
        .post("/api/keys", json!({"name": "other"}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, replayed, body) = create(other, "make-once", "Once").await;
    assert_eq!((status, replayed), (200, false));
    assert!(!ids.contains(body["id"].as_str().unwrap()));
}
