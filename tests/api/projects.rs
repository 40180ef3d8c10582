//! Projects (agent-extras.md §5 and acceptance 7): members' roles on a
//! project's threads, the per-user listing, the last owner, agents in
//! projects, and a delete that detaches at once and survives a restart.

use serde_json::{Value, json};

use crate::common::{Api, Server, done_of, exp_in, jwt};

fn user(server: &Server, org: &str, sub: &str) -> Api {
    server.api(&jwt(json!({"sub": sub, "exp": exp_in(600), "org_id": org})))
}

fn id(value: &Value) -> String {
    value["id"].as_str().unwrap().to_owned()
}

fn ids(values: &Value) -> Vec<String> {
    let mut ids: Vec<String> = values.as_array().unwrap().iter().map(id).collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn a_viewer_reads_its_projects_threads_and_a_deleted_project_detaches_them() {
    let server = Server::start();
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("Helper").await;
    let olivia = user(&server, &org, "olivia");
    let bob = user(&server, &org, "bob");
    let ulla = user(&server, &org, "ulla");

    // Olivia's P1 (she owns it); the admin's P2 with Olivia as its owner.
    let p1 = olivia
        .post(
            "/api/projects",
            json!({"name": "Research", "slug": "research"}),
        )
        .await
        .expect(201);
    assert_eq!(p1["caller_role"], "owner");
    assert_eq!(p1["created_by"], "olivia");
    let p1 = id(&p1);
    let p2 = admin
        .post(
            "/api/projects",
            json!({"name": "Ops", "members": [{"userId": "olivia", "role": "owner"}]}),
        )
        .await
        .expect(201);
    assert_eq!(p2["caller_role"], Value::Null);
    let p2 = id(&p2);
    // A repeated slug, members from an end user, a key as a member.
    admin
        .post(
            "/api/projects",
            json!({"name": "Again", "slug": "research"}),
        )
        .await
        .expect_error(409, "CONFLICT");
    let detail = ulla
        .post(
            "/api/projects",
            json!({"name": "X", "members": [{"userId": "a", "role": "owner"}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("members"), "{detail}");
    admin
        .post(
            &format!("/api/projects/{p1}/members"),
            json!({"userId": "apikey:1", "role": "viewer"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");

    // Ulla views P1; Bob edits it.
    let added = olivia
        .post(
            &format!("/api/projects/{p1}/members"),
            json!({"userId": "ulla", "role": "viewer"}),
        )
        .await
        .expect(201);
    assert_eq!(
        (added["user_id"].as_str(), added["added_by"].as_str()),
        (Some("ulla"), Some("olivia"))
    );
    olivia
        .post(
            &format!("/api/projects/{p1}/members"),
            json!({"userId": "bob", "role": "editor"}),
        )
        .await
        .expect(201);
    // A viewer manages nothing.
    ulla.post(
        &format!("/api/projects/{p1}/members"),
        json!({"userId": "mallory", "role": "owner"}),
    )
    .await
    .expect_error(403, "FORBIDDEN");

    // Threads by others in P1, one in P2, and one of Olivia's outside any.
    let in_project = |project: &str| json!({"projectId": project});
    let by_olivia = olivia.thread(&agent, in_project(&p1)).await;
    let by_bob = bob.thread(&agent, in_project(&p1)).await;
    let in_p2 = olivia.thread(&agent, in_project(&p2)).await;
    let private = olivia.thread(&agent, json!({})).await;
    // A viewer may not create one there, nor an outsider.
    ulla.post("/api/threads", json!({"agentId": agent, "projectId": p1}))
        .await
        .expect_error(403, "FORBIDDEN");

    // Ulla lists P1 and only P1, with her role.
    let mine = ulla.get("/api/projects").await.expect(200);
    assert_eq!(ids(&mine), [p1.as_str()]);
    assert_eq!(mine[0]["caller_role"], "viewer");
    let listed = ulla
        .get(&format!("/api/threads?projectId={p1}"))
        .await
        .expect(200);
    let mut expected = vec![by_olivia.clone(), by_bob.clone()];
    expected.sort();
    assert_eq!(ids(&listed["threads"]), expected);
    assert!(
        listed["threads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["project_id"] == p1.as_str())
    );
    // Her own listing is unchanged: she created none.
    let own = ulla
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert_eq!(own["threads"].as_array().unwrap().len(), 0);
    // P2, its thread, and Olivia's private thread are closed to her.
    ulla.get(&format!("/api/threads?projectId={p2}"))
        .await
        .expect_error(403, "FORBIDDEN");
    ulla.get(&format!("/api/projects/{p2}"))
        .await
        .expect_error(403, "FORBIDDEN");
    ulla.get(&format!("/api/projects/{p2}/members"))
        .await
        .expect_error(403, "FORBIDDEN");
    for closed in [&in_p2, &private] {
        ulla.get(&format!("/api/threads/{closed}"))
            .await
            .expect_error(403, "FORBIDDEN");
    }
    // A viewer reads: the thread, its history, its context.
    for path in ["", "/messages", "/context"] {
        ulla.get(&format!("/api/threads/{by_olivia}{path}"))
            .await
            .expect(200);
    }
    // A send, an edit and a stop are 403 until she is an editor.
    let detail = ulla
        .post(
            &format!("/api/threads/{by_olivia}/messages"),
            json!({"content": "hi"}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    assert!(detail.contains("editor"), "{detail}");
    ulla.patch(
        &format!("/api/threads/{by_olivia}"),
        json!({"title": "mine"}),
    )
    .await
    .expect_error(403, "FORBIDDEN");
    ulla.post(&format!("/api/threads/{by_olivia}/stop"), json!({}))
        .await
        .expect_error(403, "FORBIDDEN");
    ulla.post(
        "/api/plans",
        json!({"threadId": by_olivia, "title": "mine"}),
    )
    .await
    .expect_error(403, "FORBIDDEN");
    ulla.delete_with(
        &format!("/api/threads/{by_olivia}/participants"),
        json!({"userId": "olivia"}),
    )
    .await
    .expect_error(403, "FORBIDDEN");
    let promoted = olivia
        .post(
            &format!("/api/projects/{p1}/members"),
            json!({"userId": "ulla", "role": "editor"}),
        )
        .await
        .expect(200);
    assert_eq!(promoted["role"], "editor");
    let frames = ulla
        .say(&by_olivia, json!({"content": "hello from ulla"}))
        .await;
    assert_eq!(done_of(&frames)["content"], "hello from ulla", "{frames:?}");
    // An editor does not delete another's thread: an owner does.
    let detail = ulla
        .delete(&format!("/api/threads/{by_olivia}"))
        .await
        .expect_error(403, "FORBIDDEN");
    assert!(detail.contains("owner"), "{detail}");
    // Only the creator moves a thread between projects.
    ulla.patch(
        &format!("/api/threads/{by_bob}"),
        json!({"projectId": null}),
    )
    .await
    .expect_error(403, "FORBIDDEN");

    // The last owner stays: not removed, not demoted (by an end user).
    for change in [
        olivia
            .delete_with(
                &format!("/api/projects/{p1}/members"),
                json!({"userId": "olivia"}),
            )
            .await,
        olivia
            .post(
                &format!("/api/projects/{p1}/members"),
                json!({"userId": "olivia", "role": "viewer"}),
            )
            .await,
    ] {
        let detail = change.expect_error(422, "VALIDATION_ERROR");
        assert!(detail.contains("last owner"), "{detail}");
    }
    // An agent in P1, listed by project and shown among its members.
    admin
        .patch(&format!("/api/agents/{agent}"), json!({"projectId": p1}))
        .await
        .expect(200);
    let agents = admin
        .get(&format!("/api/agents?projectId={p1}"))
        .await
        .expect(200);
    assert_eq!(ids(&agents), [agent.as_str()]);
    // A runner in P1 (runners.md keeps its projectId as text: checked now).
    let runner = |project: &str| json!({"agentId": agent, "name": "Digest", "instructions": "hi", "projectId": project});
    admin
        .post("/api/runners", runner("not-a-project"))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .post(
            "/api/runners",
            runner("0190d1f2-0000-7000-8000-000000000000"),
        )
        .await
        .expect_error(404, "NOT_FOUND");
    let digest = id(&admin.post("/api/runners", runner(&p1)).await.expect(201));
    let members = ulla
        .get(&format!("/api/projects/{p1}/members"))
        .await
        .expect(200);
    assert_eq!(members["members"].as_array().unwrap().len(), 3);
    assert_eq!(members["agents"][0]["name"], "Helper");
    assert_eq!(members["runners"][0]["id"], digest.as_str());
    // A member of no project sees none; an admin sees all, paged.
    assert_eq!(
        user(&server, &org, "zed")
            .get("/api/projects")
            .await
            .expect(200),
        json!([])
    );
    let first = reqwest::Client::new()
        .get(format!("{}/api/projects?limit=1", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    let cursor = first.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_owned();
    let first: Value = first.json().await.unwrap();
    assert_eq!(ids(&first), [p2.as_str()], "newest first");
    let rest = admin
        .get(&format!("/api/projects?limit=1&cursor={cursor}"))
        .await
        .expect(200);
    assert_eq!(ids(&rest), [p1.as_str()]);

    // Olivia deletes P1, and the server dies at once (kill -9).
    olivia
        .delete(&format!("/api/projects/{p1}"))
        .await
        .expect(200);
    let server = server.kill_and_restart();
    let olivia = user(&server, &org, "olivia");
    let bob = user(&server, &org, "bob");
    let ulla = user(&server, &org, "ulla");
    let admin = server.admin();
    // The creators read their threads, detached; the members are gone.
    for (creator, thread) in [(&olivia, &by_olivia), (&bob, &by_bob)] {
        let read = creator
            .get(&format!("/api/threads/{thread}"))
            .await
            .expect(200);
        assert_eq!(read["project_id"], Value::Null, "{read}");
    }
    ulla.get(&format!("/api/threads/{by_bob}"))
        .await
        .expect_error(403, "FORBIDDEN");
    olivia
        .get(&format!("/api/projects/{p1}"))
        .await
        .expect_error(404, "NOT_FOUND");
    assert_eq!(
        ids(&ulla.get("/api/projects").await.expect(200)),
        Vec::<String>::new()
    );
    let agent_now = admin.get(&format!("/api/agents/{agent}")).await.expect(200);
    assert_eq!(agent_now["project_id"], Value::Null);
    let runner_now = admin
        .get(&format!("/api/runners/{digest}"))
        .await
        .expect(200);
    assert_eq!(runner_now["project_id"], Value::Null);
    // A thread can no longer be placed in it; P2 is untouched.
    olivia
        .post("/api/threads", json!({"agentId": agent, "projectId": p1}))
        .await
        .expect_error(404, "NOT_FOUND");
    let p2_threads = olivia
        .get(&format!("/api/threads?projectId={p2}"))
        .await
        .expect(200);
    assert_eq!(ids(&p2_threads["threads"]), [in_p2]);
}
