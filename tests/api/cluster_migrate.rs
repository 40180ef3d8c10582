//! `confer migrate` and `confer check --store` (`scale.md` §6, acceptance
//! 8): a sled store's records move into PostgreSQL with their ids, times
//! and sealed secrets; both stores print the same manifest; the API answers
//! on PostgreSQL as it did on sled; and what cannot be copied is refused
//! before anything is.

use std::path::Path;

use reqwest::Method;
use serde_json::json;

use crate::cluster_serve::{SECRET_KEY, on_postgres};
use crate::common::{Options, Server, done_of};
use crate::plans::plan_on;
use crate::postgres::Postgres;

/// Runs `confer ARGS` on the data directory `data`, no store set.
fn confer(data: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    crate::cluster_operations::confer_on(None, data, args)
}

/// The `manifest …` lines of a command's output.
fn manifest_of(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("manifest ")).collect()
}

fn count_in(manifest: &[&str], kind: &str) -> u64 {
    let line = manifest
        .iter()
        .find(|l| l.starts_with(&format!("manifest {kind} ")))
        .unwrap();
    line.split(' ').nth(2).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sled_store_moves_to_postgres_and_answers_as_before() {
    // Pages' links name it, so both stores' answers do alike.
    const PUBLIC_URL: &str = "https://confer.example.com";
    let sled = Server::start_with(
        Options::default()
            .env("CONFER_SECRET_KEY", SECRET_KEY)
            .env("CONFER_PUBLIC_URL", PUBLIC_URL)
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"),
    );
    let api = sled.admin();
    // A database integration reaches a database of this cluster's server.
    let postgres = Postgres::start().await;
    crate::integrations::seed(&postgres).await;
    let member = api.new_key("member").await;
    let project = api
        .post("/api/projects", json!({"name": "moved"}))
        .await
        .expect(201)["id"]
        .clone();
    let agent = api.agent("mover").await;
    let other = api.agent("second").await;
    api.put(
        &format!("/api/agents/{agent}/credentials"),
        json!({"enabled": true, "resolverUrl": "https://r.example/keys"}),
    )
    .await
    .expect(200);
    api.post(
        "/api/tools",
        json!({"name": "lookup", "url": "https://hooks.example.com/lookup"}),
    )
    .await
    .expect(201);
    let thread = api
        .thread(&agent, json!({"title": "first", "projectId": project}))
        .await;
    for content in ["hello".to_owned(), "large ".repeat(7_000)] {
        let frames = api.say(&thread, json!({ "content": content })).await;
        assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    }
    let frames = api
        .say_keyed(&thread, "once", json!({"content": "keyed"}))
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let group = api.thread(&agent, json!({"kind": "multiplayer"})).await;
    api.post(
        &format!("/api/threads/{group}/participants"),
        json!({"userId": "u1", "displayName": "Ann"}),
    )
    .await
    .expect(201);
    plan_on(
        &api,
        &thread,
        json!({"title": "Launch", "todos": [{"content": "Write"}]}),
    )
    .await;
    let make_keyed = json!({"agentId": agent, "title": "keyed"});
    let keyed_thread = api
        .request_with(
            Method::POST,
            "/api/threads",
            Some(make_keyed.clone()),
            &[("idempotency-key", "make-once")],
        )
        .await
        .expect(200)["id"]
        .clone();
    let daily = json!({"name": "daily", "cron": "0 9 * * *", "timezone": "Europe/Paris",
                       "action": {"kind": "message", "threadId": thread, "content": "report"}});
    api.put(
        &format!("/api/agents/{agent}/scheduled-tasks"),
        json!({"tasks": [daily]}),
    )
    .await
    .expect(200);
    api.post(
        "/api/orgs/settings",
        json!({"allowedEmbedDomains": ["https://shop.example.com"]}),
    )
    .await
    .expect(200);
    let published = api
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": "moved-chat", "identity": "optional", "retentionDays": 30}),
        )
        .await
        .expect(201);
    let identity_secret = published["identity_secret"].as_str().unwrap().to_owned();
    let guest = crate::visitors::visit(&sled, "moved-chat", json!({})).await;
    let public_thread = guest.thread(json!({"title": "visitor's"})).await;
    let public_thread = public_thread["id"].as_str().unwrap().to_owned();
    let skill = api
        .post(
            "/api/skills",
            json!({"source": "catalog", "key": "sql-review"}),
        )
        .await
        .expect(201)["id"]
        .clone();
    api.post(
        &format!("/api/agents/{agent}/skills"),
        json!({"skillId": skill}),
    )
    .await
    .expect(201);
    // An MCP server with sealed credentials, listed once (it is down: its
    // status is settled before the snapshot), attached to the agent.
    let mcp = api
        .post(
            "/api/mcps",
            json!({"name": "Moved MCP", "url": "https://mcp.example.com/mcp",
                "credentials": {"headers": {"X-Api-Key": "sk_moved"}}}),
        )
        .await
        .expect(201)["id"]
        .clone();
    let mcp = mcp.as_str().unwrap().to_owned();
    api.post(&format!("/api/mcps/{mcp}/test"), json!({}))
        .await
        .expect(200);
    api.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": mcp, "allowedTools": ["search"]}),
    )
    .await
    .expect(201);
    let integration = api
        .post(
            "/api/integrations",
            json!({"name": "Shop DB", "kind": "postgres", "tables": ["orders"],
                "connectionString": crate::integrations::connection_string(&postgres)}),
        )
        .await
        .expect(201)["id"]
        .clone();
    api.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": integration}),
    )
    .await
    .expect(201);
    // Memories: Alice's kept, Bob's forgotten (its marker may be purged
    // before the copy; the manifests agree either way).
    let memories = format!("/api/agents/{agent}/memories");
    api.put(
        &format!("/api/agents/{agent}/memory"),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    for (user, content) in [("alice", "Alice keeps bees"), ("bob", "Bob keeps goats")] {
        api.post(&memories, json!({"content": content, "userId": user}))
            .await
            .expect(201);
    }
    api.delete(&format!("{memories}?userId=bob"))
        .await
        .expect(200);
    let gone = api.thread(&other, json!({})).await;
    api.delete(&format!("/api/threads/{gone}"))
        .await
        .expect(200);

    let mut paths = vec![
        "/api/agents".to_owned(),
        format!("/api/agents/{agent}"),
        format!("/api/agents/{agent}/credentials"),
        format!("/api/threads?agentId={agent}"),
        format!("/api/threads/{thread}"),
        format!("/api/threads/{thread}/messages?limit=200"),
        format!("/api/threads/{group}/participants"),
        format!("/api/plans?threadId={thread}"),
        format!("/api/agents/{agent}/scheduled-tasks"),
        "/api/analytics?period=7d".to_owned(),
        "/api/tools".to_owned(),
        "/api/keys".to_owned(),
        "/api/projects".to_owned(),
        "/api/orgs/settings".to_owned(),
        format!("/api/agents/{agent}/publish"),
        format!("/api/threads/{public_thread}"),
        "/api/skills".to_owned(),
        format!("/api/skills/{}", skill.as_str().unwrap()),
        format!("/api/agents/{agent}/skills"),
        "/api/mcps".to_owned(),
        format!("/api/mcps/{mcp}"),
        format!("/api/agents/{agent}/mcps"),
        "/api/integrations".to_owned(),
        format!("/api/agents/{agent}/integrations"),
        format!("/api/agents/{agent}/memories"),
        format!("/api/agents/{agent}/memory"),
    ];
    let (knowledge_paths, _embeddings) = crate::cluster_migrate_knowledge::seed(&api).await;
    paths.extend(knowledge_paths);
    let (market_paths, first_use) = crate::cluster_migrate_marketplace::seed(&api).await;
    paths.extend(market_paths);
    let mut before = Vec::new();
    for path in &paths {
        before.push(api.get(path).await.expect(200));
    }
    let (dir, _) = sled.kill();

    // sled's check prints the manifest.
    let (code, on_sled, err) = confer(dir.path(), &["check"]);
    assert_eq!(code, Some(0), "{on_sled}{err}");
    let sled_manifest = manifest_of(&on_sled);
    assert_eq!(sled_manifest.len(), 44, "{on_sled}");
    assert_eq!(
        count_in(&sled_manifest, "marketplace_profiles"),
        1,
        "{on_sled}"
    );
    assert_eq!(count_in(&sled_manifest, "keyed_adoptions"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "documents"), 1, "{on_sled}");
    assert_eq!(
        count_in(&sled_manifest, "embedding_configs"),
        1,
        "{on_sled}"
    );
    assert!(count_in(&sled_manifest, "chunk_vectors") >= 1, "{on_sled}");
    let kept = count_in(&sled_manifest, "memories");
    assert!((1..=2).contains(&kept), "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "integrations"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "mcp_servers"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "mcp_attachments"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "skills"), 1, "{on_sled}");
    assert_eq!(
        count_in(&sled_manifest, "skill_attachments"),
        1,
        "{on_sled}"
    );
    assert!(count_in(&sled_manifest, "skill_files") >= 2, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "publications"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "org_settings"), 1, "{on_sled}");
    assert!(count_in(&sled_manifest, "trace_days") >= 2, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "scheduled_tasks"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "keyed_threads"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "keyed_sends"), 1, "{on_sled}");
    assert_eq!(count_in(&sled_manifest, "messages"), 6, "{on_sled}");
    assert!(count_in(&sled_manifest, "traces") >= 3, "{on_sled}");

    let from = dir.path().to_str().unwrap();
    // Under another key, every kind of sealed value is named and nothing
    // is copied.
    let elsewhere = postgres.database("wrong_key").await;
    let args = ["migrate", "--from", from, "--to", &elsewhere];
    let other_key = "b3RoZXIta2V5LW9mLXRoZS1jbHVzdGVyLTAxMjM0NTY=";
    let (code, out, err) =
        crate::cluster_operations::confer_keyed(None, dir.path(), other_key, &args);
    assert_eq!(code, Some(2), "{out}{err}");
    for named in ["resolver", "MCP server", "integration", "embedding server"] {
        assert!(err.contains(named), "{named}: {err}");
    }
    let url = postgres.database("migrated").await;
    let (code, out, err) = confer(dir.path(), &["migrate", "--from", from, "--to", &url]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(manifest_of(&out), sled_manifest, "{out}");
    assert!(out.contains("CONFER_SECRET_KEY"), "{out}");
    assert!(!out.contains(SECRET_KEY) && !err.contains(SECRET_KEY));

    // Into a database that holds records: refused, unless replaced.
    let (code, _, err) = confer(dir.path(), &["migrate", "--from", from, "--to", &url]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("already holds"), "{err}");
    // Nor beside another migration's mark (one under way, or one that
    // stopped before it finished).
    postgres
        .admin_of("migrated")
        .await
        .execute(
            "INSERT INTO meta (key, value) VALUES ('migration', 'in_progress')",
            &[],
        )
        .await
        .unwrap();
    let (code, _, err) = confer(dir.path(), &["migrate", "--from", from, "--to", &url]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("under way"), "{err}");
    let (code, out, err) = confer(
        dir.path(),
        &["migrate", "--from", from, "--to", &url, "--replace"],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(manifest_of(&out), sled_manifest);

    // PostgreSQL's check prints the same lines, and the secrets open.
    let (code, on_pg, err) = confer(dir.path(), &["check", "--store", &url]);
    assert_eq!(code, Some(0), "{on_pg}{err}");
    assert_eq!(manifest_of(&on_pg), sled_manifest);

    // A node on the database answers as sled did, to the same keys.
    let node = Server::start_with(
        on_postgres(&url, "a")
            .env("CONFER_PUBLIC_URL", PUBLIC_URL)
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"),
    );
    let admin = node.admin();
    for (path, was) in paths.iter().zip(&before) {
        let reply = admin.get(path).await;
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        assert_eq!(&reply.expect(200), was, "{path}");
    }
    node.api(&member).get("/api/agents").await.expect(200);
    // The node's search index is built from the copied memories.
    let org = admin.org_id().await;
    let alice = crate::memories::user(&node, &org, "alice");
    let found = crate::common::eventually(
        std::time::Duration::from_secs(10),
        "a copied memory is recalled",
        async || {
            let found = crate::memories::recall(&alice, &agent, json!({"query": "bees"})).await;
            (!found.is_empty()).then_some(found)
        },
    )
    .await;
    assert_eq!(found[0]["content"], "Alice keeps bees");
    crate::cluster_migrate_knowledge::found_after_migration(&node).await;
    crate::cluster_migrate_marketplace::used_after_migration(&node, &first_use).await;
    // The publication's sealed identity secret opens: a host identity
    // signed with it starts a session, whose visitor owns its thread.
    let user_token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &json!({"sub": "u-9", "exp": crate::common::exp_in(600), "aud": "moved-chat"}),
        &jsonwebtoken::EncodingKey::from_secret(identity_secret.as_bytes()),
    )
    .unwrap();
    let host = crate::visitors::visit(&node, "moved-chat", json!({"userToken": user_token})).await;
    assert_eq!(host.session["user"]["id"], "u-9");
    host.thread(json!({})).await;
    admin
        .get(&format!("/api/threads/{gone}"))
        .await
        .expect_error(404, "NOT_FOUND");
    // A keyed creation made on sled is found under its key.
    let again = admin
        .request_with(
            Method::POST,
            "/api/threads",
            Some(make_keyed),
            &[("idempotency-key", "make-once")],
        )
        .await
        .expect(200);
    assert_eq!(again["id"], keyed_thread);
    // The thread goes on from its last message.
    let frames = admin.say(&thread, json!({"content": "after"})).await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let history = admin.history(&thread).await;
    assert_eq!(history.len(), 8);
    assert_eq!(history[6]["content"], "after");
    assert_eq!(history[..6], before[5]["messages"].as_array().unwrap()[..]);
    // Live nodes refuse a replacing migration.
    let (code, _, err) = confer(
        dir.path(),
        &["migrate", "--from", from, "--to", &url, "--replace"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("serving"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_holding_kinds_postgres_lacks_is_not_migrated() {
    let sled = Server::start_with(Options::default().env("CONFER_SECRET_KEY", SECRET_KEY));
    let api = sled.admin();
    api.agent("kept").await;
    let agent = api.agent("runs").await;
    api.post(
        "/api/runners",
        json!({"agentId": agent, "name": "Digest", "instructions": "Summarize."}),
    )
    .await
    .expect(201);
    let (dir, _) = sled.kill();
    let postgres = Postgres::start().await;
    let url = postgres.database("refused").await;
    let from = dir.path().to_str().unwrap();
    let (code, out, err) = confer(dir.path(), &["migrate", "--from", from, "--to", &url]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("runners (1)"), "{err}");
    // Nothing was made: a node starts on the empty database.
    let admin = postgres.admin_of("refused").await;
    let tables: i64 = admin
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(tables, 0);
}
