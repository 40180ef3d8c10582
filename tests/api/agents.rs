//! Agents: every field, partial updates, validation, soft delete.

use serde_json::json;

use crate::common::Server;

#[tokio::test]
async fn agent_lifecycle_and_fields() {
    let server = Server::start();
    let api = server.admin();

    let created = api
        .post(
            "/api/agents",
            json!({"name": "Helper", "description": "helps", "stablePreamble": "Be terse."}),
        )
        .await
        .expect(201);
    for field in [
        "id",
        "org_id",
        "name",
        "description",
        "default_model",
        "stable_preamble",
        "tool_profiles",
        "default_profile",
        "runtime_provider",
        "created_at",
        "updated_at",
        "published_chats",
    ] {
        assert!(created.get(field).is_some(), "missing {field}: {created}");
    }
    assert_eq!(created["default_model"], "builtin/echo");
    assert_eq!(created["runtime_provider"], "e2b");
    assert_eq!(created["tool_profiles"], json!(null));
    assert_eq!(created["published_chats"], json!([]));
    let id = created["id"].as_str().unwrap();

    let minimal = api
        .post("/api/agents", json!({"name": "Bare"}))
        .await
        .expect(201);
    assert_eq!(minimal["description"], "");
    assert_eq!(minimal["stable_preamble"], "");

    let got = api.get(&format!("/api/agents/{id}")).await.expect(200);
    assert_eq!(got, created);
    let listed = api.get("/api/agents").await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 2);

    let updated = api
        .patch(
            &format!("/api/agents/{id}"),
            json!({
                "toolProfiles": {"dev": {"description": "d", "allow": ["github.*"], "deny": ["github.delete"]},
                                  "all": {"allow": ["*"]}},
                "defaultProfile": "dev",
                "runtimeProvider": "daytona",
                "defaultModel": "claude-sonnet-4-6"
            }),
        )
        .await
        .expect(200);
    assert_eq!(updated["name"], "Helper", "untouched fields stay");
    assert_eq!(updated["description"], "helps");
    assert_eq!(updated["default_profile"], "dev");
    assert_eq!(updated["runtime_provider"], "daytona");
    assert_eq!(updated["default_model"], "claude-sonnet-4-6");
    assert_eq!(
        updated["tool_profiles"]["dev"]["allow"],
        json!(["github.*"])
    );
    assert_eq!(updated["tool_profiles"]["all"], json!({"allow": ["*"]}));

    let reset = api
        .patch(
            &format!("/api/agents/{id}"),
            json!({"runtimeProvider": null}),
        )
        .await
        .expect(200);
    assert_eq!(reset["runtime_provider"], "e2b");

    // Rules: 422 naming the field.
    let path = format!("/api/agents/{id}");
    let detail = api
        .patch(&path, json!({"runtimeProvider": "docker"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("runtimeProvider"), "{detail}");
    let detail = api
        .patch(&path, json!({"defaultProfile": "nope"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("defaultProfile"), "{detail}");
    let detail = api
        .patch(&path, json!({"name": "  "}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("name"), "{detail}");
    let detail = api
        .post("/api/agents", json!({"name": ""}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("name"), "{detail}");
    // Shape: 400 naming the field.
    let detail = api
        .post("/api/agents", json!({"description": "x"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("name"), "{detail}");
    let detail = api
        .post("/api/agents", json!({"name": 5}))
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("name"), "{detail}");
    let detail = api
        .patch(&path, json!({"toolProfiles": {"x": {"deny": []}}}))
        .await
        .expect_error(400, "BAD_REQUEST");
    assert!(detail.contains("toolProfiles"), "{detail}");
    // A failed update changed nothing.
    assert_eq!(api.get(&path).await.expect(200)["default_profile"], "dev");
}

#[tokio::test]
async fn deleted_agent_disappears_but_its_threads_stay_readable() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Doomed").await;
    let thread = api.thread(&agent, json!({"title": "kept"})).await;

    assert_eq!(
        api.delete(&format!("/api/agents/{agent}"))
            .await
            .expect(200),
        json!({"ok": true})
    );
    api.get(&format!("/api/agents/{agent}"))
        .await
        .expect_error(404, "NOT_FOUND");
    api.patch(&format!("/api/agents/{agent}"), json!({"name": "x"}))
        .await
        .expect_error(404, "NOT_FOUND");
    api.delete(&format!("/api/agents/{agent}"))
        .await
        .expect_error(404, "NOT_FOUND");
    api.get(&format!("/api/agents/{agent}/compaction"))
        .await
        .expect_error(404, "NOT_FOUND");
    assert_eq!(api.get("/api/agents").await.expect(200), json!([]));

    let listed = api
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert_eq!(listed["threads"][0]["id"], thread);
    api.get(&format!("/api/threads/{thread}")).await.expect(200);
    api.get(&format!("/api/threads/{thread}/messages"))
        .await
        .expect(200);

    let detail = api
        .post("/api/threads", json!({"agentId": agent}))
        .await
        .expect_error(409, "CONFLICT");
    assert!(detail.contains("deleted"), "{detail}");
    let detail = api
        .post(
            &format!("/api/threads/{thread}/messages"),
            json!({"content": "hi"}),
        )
        .await
        .expect_error(409, "CONFLICT");
    assert!(detail.contains("deleted"), "{detail}");
}

#[tokio::test]
async fn platform_default_model_follows_configuration() {
    let server = Server::start_with(
        crate::common::Options::default().env("OPENAI_API_KEY", "sk-test-not-used"),
    );
    let created = server
        .admin()
        .post("/api/agents", json!({"name": "A"}))
        .await
        .expect(201);
    assert!(
        created["default_model"]
            .as_str()
            .unwrap()
            .starts_with("gpt-"),
        "{created}"
    );
    let explicit = server
        .admin()
        .post(
            "/api/agents",
            json!({"name": "B", "defaultModel": "builtin/echo"}),
        )
        .await
        .expect(201);
    assert_eq!(explicit["default_model"], "builtin/echo");
}
