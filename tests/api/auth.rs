//! Authentication, keys, orgs, org isolation and JWT scoping.

use serde_json::{Value, json};

use crate::common::{Server, exp_in, jwt};

#[tokio::test]
async fn credentials_are_required_and_checked() {
    let server = Server::start();
    server
        .anonymous()
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    server
        .api("cfr_0000")
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    server
        .api("a.b.c")
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    server.anonymous().get("/healthz").await.expect(200);
    assert_eq!(
        server.anonymous().get("/healthz").await.body,
        json!({"status": "ok"})
    );
}

#[tokio::test]
async fn keys_are_managed_by_admins_and_revocation_is_immediate() {
    let server = Server::start();
    let admin = server.admin();

    let created = admin
        .post("/api/keys", json!({"name": "ci", "role": "member"}))
        .await
        .expect(201);
    for field in [
        "id",
        "org_id",
        "name",
        "prefix",
        "role",
        "created_at",
        "last_used_at",
        "key",
    ] {
        assert!(created.get(field).is_some(), "missing {field}: {created}");
    }
    let secret = created["key"].as_str().unwrap().to_owned();
    assert!(secret.starts_with(created["prefix"].as_str().unwrap()));
    assert!(secret.len() >= 32, "at least 128 bits");
    let id = created["id"].as_str().unwrap().to_owned();

    let listed = admin.get("/api/keys").await.expect(200);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert!(
        listed.iter().all(|k| k.get("key").is_none()),
        "list never shows secrets"
    );
    assert!(!serde_json::to_string(listed).unwrap().contains(&secret));

    let member = server.api(&secret);
    member.get("/api/agents").await.expect(200);
    member.get("/api/keys").await.expect_error(403, "FORBIDDEN");
    member
        .post("/api/keys", json!({"name": "x"}))
        .await
        .expect_error(403, "FORBIDDEN");
    member
        .post("/api/orgs", json!({"name": "x"}))
        .await
        .expect_error(403, "FORBIDDEN");

    admin
        .post("/api/keys", json!({"name": ""}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .post("/api/keys", json!({"name": "x", "role": "owner"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    admin
        .post("/api/keys", json!({}))
        .await
        .expect_error(400, "BAD_REQUEST");

    assert_eq!(
        admin.delete(&format!("/api/keys/{id}")).await.expect(200),
        json!({"ok": true})
    );
    member
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    admin
        .delete(&format!("/api/keys/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    admin
        .delete("/api/keys/not-a-uuid")
        .await
        .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn orgs_are_isolated_from_each_other() {
    let server = Server::start();
    let a = server.admin();
    let org = a
        .post("/api/orgs", json!({"name": "Beta"}))
        .await
        .expect(201);
    assert_eq!(org["name"], "Beta");
    assert!(org["id"].is_string() && org["created_at"].is_string());
    assert_eq!(org["api_key"]["role"], "admin");
    assert_eq!(org["api_key"]["org_id"], org["id"]);
    let b = server.api(org["api_key"]["key"].as_str().unwrap());
    a.post("/api/orgs", json!({"name": " "}))
        .await
        .expect_error(422, "VALIDATION_ERROR");

    let orgs_b = b.get("/api/orgs").await.expect(200);
    assert_eq!(orgs_b.as_array().unwrap().len(), 1);
    assert_eq!(orgs_b[0]["id"], org["id"]);
    assert_eq!(a.get("/api/orgs").await.expect(200)[0]["name"], "default");
    b.post("/api/orgs", json!({"name": "Gamma"}))
        .await
        .expect_error(403, "FORBIDDEN");

    let agent = a.agent("Secret agent").await;
    let thread = a.thread(&agent, json!({"kind": "multiplayer"})).await;
    let key_a = a.get("/api/keys").await.expect(200)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Org B can neither read, list, modify nor learn of org A's resources.
    assert_eq!(b.get("/api/agents").await.expect(200), json!([]));
    for path in [
        format!("/api/agents/{agent}"),
        format!("/api/agents/{agent}/credentials"),
        format!("/api/agents/{agent}/compaction"),
        format!("/api/threads/{thread}"),
        format!("/api/threads/{thread}/messages"),
        format!("/api/threads/{thread}/participants"),
        format!("/api/threads?agentId={agent}"),
    ] {
        b.get(&path).await.expect_error(404, "NOT_FOUND");
    }
    b.patch(&format!("/api/agents/{agent}"), json!({"name": "pwned"}))
        .await
        .expect_error(404, "NOT_FOUND");
    b.put(
        &format!("/api/agents/{agent}/compaction"),
        json!({"enabled": true}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    b.delete(&format!("/api/agents/{agent}"))
        .await
        .expect_error(404, "NOT_FOUND");
    b.patch(&format!("/api/threads/{thread}"), json!({"title": "x"}))
        .await
        .expect_error(404, "NOT_FOUND");
    b.delete(&format!("/api/threads/{thread}"))
        .await
        .expect_error(404, "NOT_FOUND");
    b.post(
        &format!("/api/threads/{thread}/participants"),
        json!({"userId": "x"}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    b.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "x"}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    b.post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect_error(404, "NOT_FOUND");
    b.post("/api/threads", json!({"agentId": agent}))
        .await
        .expect_error(404, "NOT_FOUND");
    b.delete(&format!("/api/keys/{key_a}"))
        .await
        .expect_error(404, "NOT_FOUND");
    b.get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    // And org A is untouched.
    assert_eq!(
        a.get(&format!("/api/agents/{agent}")).await.expect(200)["name"],
        "Secret agent"
    );
    a.get(&format!("/api/threads/{thread}")).await.expect(200);
}

fn org_of(server_org: &Value) -> String {
    server_org["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn jwt_users_see_their_own_threads() {
    let server = Server::start();
    let admin = server.admin();
    let default_org = org_of(&admin.get("/api/orgs").await.expect(200)[0]);
    let second = admin
        .post("/api/orgs", json!({"name": "Second"}))
        .await
        .expect(201);
    let second_org = org_of(&second);

    let alice = server.api(&jwt(
        json!({"sub": "alice", "exp": exp_in(600), "org_id": default_org, "name": "Alice"}),
    ));
    let bob = server.api(&jwt(
        json!({"sub": "bob", "exp": exp_in(600), "org_ids": [default_org, second_org]}),
    ));

    let agent = admin.agent("Shared").await;
    let mine = alice.thread(&agent, json!({"title": "alice's"})).await;
    let group = alice.thread(&agent, json!({"kind": "multiplayer"})).await;
    let theirs = bob.thread(&agent, json!({})).await;
    let by_key = admin.thread(&agent, json!({})).await;

    let ids = |page: Value| -> Vec<String> {
        page["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let alice_sees = ids(alice
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200));
    assert_eq!(alice_sees, vec![group.clone(), mine.clone()]);
    let bob_sees = ids(bob
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200));
    assert_eq!(bob_sees, vec![theirs.clone()]);
    let key_sees = ids(admin
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200));
    assert_eq!(key_sees.len(), 4, "an API key sees the whole org");

    // Another user's thread of the same org: 403.
    bob.get(&format!("/api/threads/{mine}"))
        .await
        .expect_error(403, "FORBIDDEN");
    bob.patch(&format!("/api/threads/{mine}"), json!({"title": "x"}))
        .await
        .expect_error(403, "FORBIDDEN");
    // A send is refused before anything is read or written for it.
    bob.post(
        &format!("/api/threads/{mine}/messages"),
        json!({"content": "not mine"}),
    )
    .await
    .expect_error(403, "FORBIDDEN");
    alice
        .get(&format!("/api/threads/{by_key}"))
        .await
        .expect_error(403, "FORBIDDEN");
    bob.get(&format!("/api/threads/{group}/participants"))
        .await
        .expect_error(403, "FORBIDDEN");

    // Alice owns her multiplayer thread; once Bob joins he can see it.
    let members = alice
        .get(&format!("/api/threads/{group}/participants"))
        .await
        .expect(200);
    assert_eq!(members["participants"][0]["user_id"], "alice");
    assert_eq!(members["participants"][0]["role"], "owner");
    assert_eq!(members["participants"][0]["display_name"], "Alice");
    alice
        .post(
            &format!("/api/threads/{group}/participants"),
            json!({"userId": "bob"}),
        )
        .await
        .expect(201);
    bob.get(&format!("/api/threads/{group}")).await.expect(200);
    let bob_sees = ids(bob
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200));
    assert_eq!(bob_sees, vec![theirs.clone(), group.clone()]);

    // Multi-org credentials pick an org with orgId.
    let bob_orgs = bob.get("/api/orgs").await.expect(200);
    assert_eq!(bob_orgs.as_array().unwrap().len(), 2);
    let bob_second = bob
        .get(&format!("/api/agents?orgId={second_org}"))
        .await
        .expect(200);
    assert_eq!(bob_second, json!([]));
    bob.get(&format!("/api/threads/{theirs}?orgId={second_org}"))
        .await
        .expect_error(404, "NOT_FOUND");
    alice
        .get(&format!("/api/agents?orgId={second_org}"))
        .await
        .expect_error(403, "FORBIDDEN");
    // JWT users do not manage keys.
    alice.get("/api/keys").await.expect_error(403, "FORBIDDEN");
    // Usage: an end user sees the records of the threads it may read.
    alice.get("/api/usage").await.expect(200);
    alice
        .get(&format!("/api/usage?threadId={by_key}"))
        .await
        .expect_error(403, "FORBIDDEN");
    alice
        .get(&format!("/api/usage?threadId={mine}"))
        .await
        .expect(200);

    // Bad tokens: 401.
    let expired = jwt(json!({"sub": "alice", "exp": exp_in(-120), "org_id": default_org}));
    server
        .api(&expired)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    let leeway = jwt(json!({"sub": "alice", "exp": exp_in(-20), "org_id": default_org}));
    server.api(&leeway).get("/api/agents").await.expect(200);
    let forged = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &json!({"sub": "alice", "exp": exp_in(600), "org_id": default_org}),
        &jsonwebtoken::EncodingKey::from_secret(b"wrong secret"),
    )
    .unwrap();
    server
        .api(&forged)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    let no_sub = jwt(json!({"exp": exp_in(600), "org_id": default_org}));
    server
        .api(&no_sub)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
}
