//! Plans and todos (`plans.md`) through the API: CRUD of plans, todos and
//! dependencies, bad input refused (cycles named), and access through the
//! plan's thread. Readiness, statuses, `If-Match` and concurrent changes are
//! in `plan_changes`, the built-in tools in `plan_tools`.

use serde_json::{Value, json};

use crate::common::{Api, Server};

/// The ids of a list of todos, in order.
pub fn ids(todos: &Value) -> Vec<String> {
    todos
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Creates a plan on `thread` from `body`.
pub async fn plan_on(api: &Api, thread: &str, body: Value) -> Value {
    let mut body = body;
    body["threadId"] = json!(thread);
    api.post("/api/plans", body).await.expect(201)
}

#[tokio::test]
async fn plans_todos_and_dependencies_are_managed_through_the_api() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Planner").await;
    let thread = api.thread(&agent, json!({})).await;

    // A plan with inline todos, the second after the first (by index).
    let created = api
        .post(
            "/api/plans",
            json!({"threadId": thread, "title": "Launch", "description": "Q4",
                   "todos": [{"content": "Write"}, {"content": "Ship", "dependsOn": [0]}]}),
        )
        .await;
    assert_eq!(created.etag.as_deref(), Some("\"1\""));
    let plan = created.expect(201);
    let id = plan["id"].as_str().unwrap().to_owned();
    assert_eq!(plan["status"], "in_progress");
    assert_eq!(plan["version"], 1);
    assert_eq!(plan["thread_id"], thread.as_str());
    assert!(plan["created_by"].as_str().unwrap().starts_with("apikey:"));
    let [write, ship] = <[String; 2]>::try_from(ids(&plan["todos"])).unwrap();
    assert_eq!(plan["todos"][1]["depends_on"], json!([write]));
    assert_eq!(plan["todos"][0]["status"], "pending");

    // Read, list (newest first), change.
    let got = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(got, plan);
    let draft = plan_on(&api, &thread, json!({"title": "Later", "status": "draft"})).await;
    assert_eq!(draft["status"], "draft");
    let listed = api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(listed["plans"][0]["id"], draft["id"]);
    assert_eq!(listed["plans"][1]["id"], id.as_str());
    let patched = api
        .patch(&format!("/api/plans/{id}"), json!({"title": "Launch v2"}))
        .await;
    assert_eq!(patched.etag.as_deref(), Some("\"2\""));
    assert_eq!(patched.expect(200)["title"], "Launch v2");

    // Todos: one, then a list; nested; status accepts `in-progress`.
    let one = api
        .post(
            &format!("/api/plans/{id}/todos"),
            json!({"content": "Announce", "status": "in-progress", "dependsOn": [ship]}),
        )
        .await
        .expect(201);
    assert_eq!(one["status"], "in_progress");
    assert_eq!(one["position"], 2);
    let announce = one["id"].as_str().unwrap().to_owned();
    let many = api
        .post(
            &format!("/api/plans/{id}/todos"),
            json!({"todos": [{"content": "Draft post", "parentId": announce},
                             {"content": "Proofread", "parentId": announce, "position": 0}]}),
        )
        .await
        .expect(201);
    let [draft_post, proofread] = <[String; 2]>::try_from(ids(&many["todos"])).unwrap();
    let plan = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(
        ids(&plan["todos"]),
        [
            write.as_str(),
            ship.as_str(),
            announce.as_str(),
            proofread.as_str(),
            draft_post.as_str()
        ],
        "depth-first, siblings by position"
    );
    let todo = |n: usize| plan["todos"][n].clone();
    assert_eq!(
        (todo(3)["position"].clone(), todo(4)["position"].clone()),
        (json!(0), json!(1))
    );

    // A todo's PATCH, with its ETag.
    let changed = api
        .patch(
            &format!("/api/plans/{id}/todos/{write}"),
            json!({"content": "Write it", "status": "done"}),
        )
        .await;
    assert_eq!(changed.etag.as_deref(), Some("\"2\""));
    assert_eq!(changed.expect(200)["content"], "Write it");

    // Dependencies: read both ways, add, remove.
    let deps = api
        .get(&format!("/api/plans/{id}/todos/{ship}/deps"))
        .await
        .expect(200);
    assert_eq!(ids(&deps["depends_on"]), [write.as_str()]);
    assert_eq!(ids(&deps["dependents"]), [announce.as_str()]);
    let added = api
        .post(
            &format!("/api/plans/{id}/todos/{proofread}/deps"),
            json!({"dependsOn": [write, write]}),
        )
        .await
        .expect(200);
    assert_eq!(added["depends_on"], json!([write]), "an edge once");
    let removed = api
        .delete_with(
            &format!("/api/plans/{id}/todos/{proofread}/deps"),
            json!({"dependsOn": [write, ship]}),
        )
        .await
        .expect(200);
    assert_eq!(removed["depends_on"], json!([]));

    // Deleting a todo takes its edges; its children move to the top level.
    api.delete(&format!("/api/plans/{id}/todos/{announce}"))
        .await
        .expect(200);
    let plan = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(
        ids(&plan["todos"]),
        [
            write.as_str(),
            ship.as_str(),
            proofread.as_str(),
            draft_post.as_str()
        ]
    );
    assert!(plan["todos"][2]["parent_id"].is_null());
    assert_eq!(plan["todos"][3]["position"], 3);
    api.get(&format!("/api/plans/{id}/todos/{announce}/deps"))
        .await
        .expect_error(404, "NOT_FOUND");

    // Deleting the plan.
    api.delete(&format!("/api/plans/{id}")).await.expect(200);
    api.get(&format!("/api/plans/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    let listed = api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(listed["plans"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_plans_are_refused_naming_the_field_and_storing_nothing() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Strict").await;
    let thread = api.thread(&agent, json!({})).await;
    let detail = api.get("/api/plans").await.expect_error(400, "BAD_REQUEST");
    assert!(detail.starts_with("threadId"), "{detail}");
    let refusals = [
        (json!({"title": ""}), "title"),
        (json!({"title": "x".repeat(201)}), "title"),
        (
            json!({"title": "t", "description": "d".repeat(4001)}),
            "description",
        ),
        (json!({"title": "t", "status": "approved"}), "status"),
        (
            json!({"title": "t", "todos": [{"content": "a", "dependsOn": [1]}]}),
            "todos[0].dependsOn",
        ),
        (
            json!({"title": "t", "todos": [{"content": "a", "dependsOn": [0]}]}),
            "todos[0].dependsOn",
        ),
        (
            json!({"title": "t", "todos": [{"content": ""}]}),
            "todos[0].content",
        ),
    ];
    for (body, field) in refusals {
        let mut body = body;
        body["threadId"] = json!(thread);
        let detail = api
            .post("/api/plans", body.clone())
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{body}: {detail}");
    }
    let listed = api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(listed["plans"], json!([]), "nothing stored");

    // A cycle is refused with the cycle named, and the plan is unchanged.
    let plan = plan_on(
        &api,
        &thread,
        json!({"title": "Chain", "todos": [{"content": "a"}, {"content": "b", "dependsOn": [0]},
                                           {"content": "c", "dependsOn": [1]}]}),
    )
    .await;
    let id = plan["id"].as_str().unwrap();
    let [a, b, c] = <[String; 3]>::try_from(ids(&plan["todos"])).unwrap();
    let detail = api
        .post(
            &format!("/api/plans/{id}/todos/{a}/deps"),
            json!({"dependsOn": [c]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(detail, format!("dependsOn: cycle {a} → {c} → {b} → {a}"));
    let after = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(after, plan, "nothing of the refused request is stored");

    // Other plans' todos, itself, a parent loop, a bad position, a limit.
    let other = plan_on(
        &api,
        &thread,
        json!({"title": "Other", "todos": [{"content": "x"}]}),
    )
    .await;
    let foreign = other["todos"][0]["id"].as_str().unwrap();
    for (path, body, field) in [
        (
            format!("/api/plans/{id}/todos/{a}/deps"),
            json!({"dependsOn": [foreign]}),
            "dependsOn",
        ),
        (
            format!("/api/plans/{id}/todos/{a}/deps"),
            json!({"dependsOn": [a]}),
            "dependsOn",
        ),
        (
            format!("/api/plans/{id}/todos"),
            json!({"content": "y", "parentId": foreign}),
            "parentId",
        ),
        (
            format!("/api/plans/{id}/todos"),
            json!({"content": "y", "position": -1}),
            "position",
        ),
    ] {
        let detail = api
            .post(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{detail}");
    }
    api.patch(
        &format!("/api/plans/{id}/todos/{b}"),
        json!({"parentId": a}),
    )
    .await
    .expect(200);
    let detail = api
        .patch(
            &format!("/api/plans/{id}/todos/{a}"),
            json!({"parentId": b}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("parentId"), "{detail}");
    let full: Vec<Value> = (0..198)
        .map(|n| json!({"content": format!("t{n}")}))
        .collect();
    api.post(
        &format!("/api/plans/{id}/todos"),
        json!({"todos": full.clone()}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    api.post(
        &format!("/api/plans/{id}/todos"),
        json!({"todos": full[..197]}),
    )
    .await
    .expect(201);
    api.patch(&format!("/api/plans/{id}"), json!({"status": "paused"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    let wrong = api
        .put(
            &format!("/api/agents/{agent}/plan"),
            json!({"enabled": "yes"}),
        )
        .await;
    wrong.expect_error(400, "BAD_REQUEST");
}

/// A plan belongs to its thread: users reach only their threads' plans,
/// another org's is not found, and deleting the thread deletes its plans.
#[tokio::test]
async fn plans_follow_their_thread_for_access_and_deletion() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Shared").await;
    let thread = api.thread(&agent, json!({})).await;
    let plan = plan_on(&api, &thread, json!({"title": "Mine"})).await;
    let id = plan["id"].as_str().unwrap();
    let other_org = api
        .post("/api/orgs", json!({"name": "elsewhere"}))
        .await
        .expect(201);
    let outsider = server.api(other_org["api_key"]["key"].as_str().unwrap());
    outsider
        .get(&format!("/api/plans/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    outsider
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect_error(404, "NOT_FOUND");

    api.delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    api.get(&format!("/api/plans/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    api.post("/api/plans", json!({"threadId": thread, "title": "Late"}))
        .await
        .expect_error(404, "NOT_FOUND");
}
