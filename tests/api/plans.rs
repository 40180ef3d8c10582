//! Plans and todos (`plans.md`) through the API: CRUD of plans, todos and
//! dependencies, cycles refused with the cycle named, `ready` on a diamond,
//! `If-Match` and concurrent changes, the agent's plan configuration, and
//! the built-in plan tools in a scripted model turn (mock vendor).

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, Server, done_of};
use crate::mock::{Reply, openai_answer, openai_tool_call, server_on_mock};

fn ids(todos: &Value) -> Vec<String> {
    todos
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn plan_on(api: &Api, thread: &str, body: Value) -> Value {
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

#[tokio::test]
async fn ready_follows_a_diamond_and_the_plan_status_follows_its_todos() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Diamond").await;
    let thread = api.thread(&agent, json!({})).await;
    let plan = plan_on(
        &api,
        &thread,
        json!({"title": "Diamond", "status": "draft", "todos": [
            {"content": "top"},
            {"content": "left", "dependsOn": [0]},
            {"content": "right", "dependsOn": [0]},
            {"content": "bottom", "dependsOn": [1, 2]}]}),
    )
    .await;
    let id = plan["id"].as_str().unwrap();
    let [top, left, right, bottom] = <[String; 4]>::try_from(ids(&plan["todos"])).unwrap();
    let ready =
        || async { ids(&api.get(&format!("/api/plans/{id}/ready")).await.expect(200)["todos"]) };
    let set = |todo: String, status: &'static str| {
        let api = api.clone();
        async move {
            api.patch(
                &format!("/api/plans/{id}/todos/{todo}"),
                json!({"status": status}),
            )
            .await
            .expect(200)
        }
    };
    let status =
        || async { api.get(&format!("/api/plans/{id}")).await.expect(200)["status"].clone() };
    assert_eq!(ready().await, [top.as_str()]);
    api.patch(&format!("/api/plans/{id}"), json!({"status": "approved"}))
        .await
        .expect(200);
    set(top.clone(), "in_progress").await;
    assert_eq!(
        status().await,
        "in_progress",
        "a started todo starts the plan"
    );
    assert!(ready().await.is_empty());
    set(top.clone(), "done").await;
    assert_eq!(ready().await, [left.as_str(), right.as_str()]);
    set(left.clone(), "done").await;
    assert_eq!(ready().await, [right.as_str()]);
    set(right.clone(), "skipped").await;
    assert_eq!(ready().await, [bottom.as_str()]);
    set(bottom.clone(), "done").await;
    assert!(ready().await.is_empty());
    assert_eq!(status().await, "done", "every todo done or skipped");
    set(right.clone(), "pending").await;
    assert_eq!(
        status().await,
        "in_progress",
        "a reopened todo reopens the plan"
    );
    assert_eq!(ready().await, [right.as_str()]);
}

#[tokio::test]
async fn if_match_refuses_stale_writes_and_concurrent_changes_are_all_kept() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Racer").await;
    let thread = api.thread(&agent, json!({})).await;
    let plan = plan_on(
        &api,
        &thread,
        json!({"title": "Race", "todos": [{"content": "a"}]}),
    )
    .await;
    let id = plan["id"].as_str().unwrap().to_owned();
    let a = plan["todos"][0]["id"].as_str().unwrap().to_owned();
    let todo_path = format!("/api/plans/{id}/todos/{a}");

    // If-Match: the right version passes; a stale one is 412 with the
    // current object, which the client merges and retries.
    let ok = api
        .request_with(
            Method::PATCH,
            &todo_path,
            Some(json!({"content": "A"})),
            &[("If-Match", "\"1\"")],
        )
        .await;
    assert_eq!(ok.etag.as_deref(), Some("\"2\""));
    let stale = api
        .request_with(
            Method::PATCH,
            &todo_path,
            Some(json!({"status": "done"})),
            &[("If-Match", "1")],
        )
        .await
        .expect(412);
    assert_eq!(stale["error"], "PRECONDITION_FAILED");
    assert_eq!(stale["current"]["content"], "A");
    assert_eq!(stale["current"]["version"], 2);
    let plan_now = api.get(&format!("/api/plans/{id}")).await;
    let etag = plan_now.etag.clone().unwrap();
    let stale_plan = api
        .request_with(
            Method::DELETE,
            &format!("/api/plans/{id}"),
            None,
            &[("If-Match", "\"1\"")],
        )
        .await
        .expect(412);
    assert_eq!(stale_plan["current"]["id"], id.as_str());
    api.request_with(
        Method::PATCH,
        &todo_path,
        Some(json!({"status": "done"})),
        &[("If-Match", "\"2\"")],
    )
    .await
    .expect(200);
    api.request_with(
        Method::PATCH,
        &format!("/api/plans/{id}"),
        None,
        &[("If-Match", "x")],
    )
    .await
    .expect_error(400, "BAD_REQUEST");
    assert_ne!(etag, "\"1\"");

    // Without If-Match, 24 concurrent writes (new todos and a retitle each)
    // are all kept: every change is a compare-and-swap.
    let before = api.get(&format!("/api/plans/{id}")).await.expect(200)["version"]
        .as_u64()
        .unwrap();
    let writes = (0..24).map(|n| {
        let (api, id) = (api.clone(), id.clone());
        async move {
            if n % 2 == 0 {
                api.post(
                    &format!("/api/plans/{id}/todos"),
                    json!({"content": format!("t{n}")}),
                )
                .await
                .expect(201);
            } else {
                api.patch(
                    &format!("/api/plans/{id}"),
                    json!({"description": format!("d{n}")}),
                )
                .await
                .expect(200);
            }
        }
    });
    futures_util::future::join_all(writes).await;
    let after = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(
        after["version"].as_u64().unwrap(),
        before + 24,
        "no write lost"
    );
    assert_eq!(after["todos"].as_array().unwrap().len(), 13);
}

#[tokio::test]
async fn the_agent_plan_configuration_is_partial_and_off_by_default() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Configured").await;
    let path = format!("/api/agents/{agent}/plan");
    let initial = api.get(&path).await.expect(200);
    assert_eq!(
        (
            initial["enabled"].clone(),
            initial["auto_create"].clone(),
            initial["require_approval"].clone()
        ),
        (json!(false), json!(false), json!(false))
    );
    assert_eq!(initial["agent_id"], agent.as_str());
    api.put(&path, json!({"enabled": true})).await.expect(200);
    let both = api
        .put(&path, json!({"requireApproval": true}))
        .await
        .expect(200);
    assert_eq!(
        (both["enabled"].clone(), both["require_approval"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(both["auto_create"], false);
}

/// The scripted turn: the model makes a plan of two todos, the second
/// after the first, and completes the first; the API then shows exactly
/// that, the stream carried each result, and the next call's system prompt
/// showed the current plan.
#[tokio::test]
async fn a_model_turn_plans_through_the_built_in_tools() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Worker", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.put(
        &format!("/api/agents/{agent}/plan"),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_plan",
        "plan_create",
        &json!({"title": "Trip", "todos": [{"content": "Book"}, {"content": "Pack", "dependsOn": [0]}]}),
    )));
    // Like a model, the second call reads the plan from the tool result.
    vendor.push(Reply::computed(|request| {
        let messages = request.body["messages"].as_array().unwrap();
        let result: Value =
            serde_json::from_str(messages.last().unwrap()["content"].as_str().unwrap()).unwrap();
        let book = result["todos"][0]["id"].as_str().unwrap().to_owned();
        Reply::stream(openai_tool_call(
            "call_done",
            "todo_update",
            &json!({"todoId": book, "status": "done"}),
        ))
    }));
    vendor.push(Reply::stream(openai_answer("Booked; packing next.", 40)));
    let frames = api.say(&thread, json!({"content": "Plan my trip"})).await;
    assert_eq!(done_of(&frames)["ok"], true);

    let plans = api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200)["plans"]
        .clone();
    assert_eq!(plans.as_array().unwrap().len(), 1);
    let plan = &plans[0];
    assert_eq!(plan["title"], "Trip");
    assert_eq!(plan["created_by"], "agent");
    assert_eq!(plan["status"], "in_progress");
    let todos = plan["todos"].as_array().unwrap();
    assert_eq!(todos.len(), 2);
    let (book, pack) = (&todos[0], &todos[1]);
    assert_eq!(
        (book["content"].clone(), book["status"].clone()),
        (json!("Book"), json!("done"))
    );
    assert_eq!(
        (pack["content"].clone(), pack["status"].clone()),
        (json!("Pack"), json!("pending"))
    );
    assert_eq!(pack["depends_on"], json!([book["id"]]));
    let id = plan["id"].as_str().unwrap();
    let ready = api.get(&format!("/api/plans/{id}/ready")).await.expect(200);
    assert_eq!(ready["todos"][0]["id"], pack["id"]);

    // The stream: each call and its result; the result is the object.
    let results: Vec<&Value> = frames
        .iter()
        .filter(|f| f.event == "tool_result")
        .map(|f| &f.data)
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["tool_name"], "plan_create");
    assert_eq!(results[0]["result"]["id"], plan["id"]);
    assert_eq!(results[1]["tool_name"], "todo_update");
    assert_eq!(results[1]["result"]["status"], "done");
    let executing: Vec<&str> = frames
        .iter()
        .filter(|f| f.event == "tool_executing")
        .map(|f| f.data["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(executing, ["plan_create", "todo_update"]);

    // The vendor was offered the four tools, and the third call's system
    // prompt showed the current plan with its ready list.
    let requests = vendor.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        ["plan_create", "plan_update", "todo_add", "todo_update"]
    );
    let system = requests[2].body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Current plan \"Trip\" (in_progress):"),
        "{system}"
    );
    assert!(
        system.contains(&format!(
            "- [done] Book (id {})",
            book["id"].as_str().unwrap()
        )),
        "{system}"
    );
    assert!(
        system.contains(&format!("Ready: {}", pack["id"].as_str().unwrap())),
        "{system}"
    );
    assert!(
        !requests[0].body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("Current plan"),
        "no plan before the first"
    );
}

/// The tools are left out of the vendor request when the configuration is
/// off or the profile denies them; `autoCreate` adds its one sentence.
#[tokio::test]
async fn plan_tools_are_offered_only_when_enabled_and_allowed() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Gated", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.patch(
        &format!("/api/agents/{agent}"),
        json!({"toolProfiles": {"quiet": {"allow": ["*"], "deny": ["plan_*", "todo_*"]},
                                "planning": {"allow": ["plan_create"]}}}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    let offered = |n: usize| {
        let requests = vendor.requests();
        let tools = requests[n].body["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .filter(|n| n != "propose_profile_switch")
            .collect::<Vec<_>>()
    };
    vendor.push(Reply::stream(openai_answer("Off.", 10)));
    api.say(&thread, json!({"content": "hi"})).await;
    assert!(offered(0).is_empty(), "disabled: none");
    api.put(
        &format!("/api/agents/{agent}/plan"),
        json!({"enabled": true, "autoCreate": true}),
    )
    .await
    .expect(200);
    vendor.push(Reply::stream(openai_answer("Quiet.", 10)));
    api.say(&thread, json!({"content": "hi", "toolProfile": "quiet"}))
        .await;
    assert!(offered(1).is_empty(), "denied by the profile");
    let system = vendor.requests()[1].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        system.contains("For a request that needs several steps, call plan_create before acting."),
        "{system}"
    );
    vendor.push(Reply::stream(openai_answer("Some.", 10)));
    api.say(&thread, json!({"content": "hi", "toolProfile": "planning"}))
        .await;
    assert_eq!(offered(2), ["plan_create"]);
    // A call of a tool the turn did not offer is not run.
    vendor.push(Reply::stream(openai_tool_call(
        "call_x",
        "todo_add",
        &json!({"todos": [{"content": "sneaky"}]}),
    )));
    vendor.push(Reply::stream(openai_answer("Done.", 10)));
    let frames = api
        .say(&thread, json!({"content": "hi", "toolProfile": "planning"}))
        .await;
    let result = frames.iter().find(|f| f.event == "tool_result").unwrap();
    assert_eq!(result.data["result"]["error"], "tool not available");
    let plans = api
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(plans["plans"], json!([]));
}

/// `requireApproval`: a tool-made plan is a draft; the agent's todo changes
/// and any approval by tool are error results until a client approves.
#[tokio::test]
async fn a_plan_awaiting_approval_holds_the_agent_until_a_client_approves() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Careful", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.put(
        &format!("/api/agents/{agent}/plan"),
        json!({"enabled": true, "requireApproval": true}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "plan_create",
        &json!({"title": "Risky", "todos": [{"content": "Delete files"}]}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_2",
        "plan_update",
        &json!({"status": "approved"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_3",
        "todo_add",
        &json!({"todos": [{"content": "More"}]}),
    )));
    vendor.push(Reply::stream(openai_answer("Waiting for approval.", 10)));
    let frames = api.say(&thread, json!({"content": "Clean up"})).await;
    let results: Vec<&Value> = frames
        .iter()
        .filter(|f| f.event == "tool_result")
        .map(|f| &f.data)
        .collect();
    assert_eq!(results[0]["result"]["status"], "draft");
    assert_eq!(
        results[1]["result"]["error"],
        "plan not approved: only a client can approve"
    );
    assert_eq!(results[2]["result"]["error"], "plan not approved");
    assert_eq!(results[2]["isError"], true);
    let id = results[0]["result"]["id"].as_str().unwrap().to_owned();
    let todo = results[0]["result"]["todos"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    api.patch(&format!("/api/plans/{id}"), json!({"status": "approved"}))
        .await
        .expect(200);
    vendor.push(Reply::stream(openai_tool_call(
        "call_4",
        "todo_update",
        &json!({"todoId": todo, "status": "in_progress"}),
    )));
    vendor.push(Reply::stream(openai_answer("Started.", 10)));
    let frames = api.say(&thread, json!({"content": "Go"})).await;
    let result = frames.iter().find(|f| f.event == "tool_result").unwrap();
    assert_eq!(result.data["result"]["status"], "in_progress");
    let plan = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(plan["status"], "in_progress");
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
