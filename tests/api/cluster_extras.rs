//! Agent extras on PostgreSQL (`agent-extras.md` §3–4). Web tools: the
//! configuration set on one node is read by another, its search key kept
//! sealed in the row, and a turn offers and runs `web_search` with the
//! key opened only for the backend's call. Delegation: delegates set on
//! one node are offered by a turn on another, the child runs on a child
//! thread listed under its parent, and a cycle is refused. Skills: one
//! installed on one node is attached and loaded on another.

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres_with_vendor;
use crate::common::Server;
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::postgres::Postgres;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_runs_on_postgres_with_its_key_sealed() {
    let vendor = Mock::start("/v1").await;
    let backend = Mock::start("").await;
    backend.otherwise(Reply::json(
        200,
        json!({"query": "plans", "results": [
            {"title": "Found", "url": "https://docs.example.com/a", "content": "a", "score": 0.9}
        ]}),
    ));
    let postgres = Postgres::start().await;
    let url = postgres.database("web").await;
    let node = |name| on_postgres_with_vendor(&url, name, &vendor.base);
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let on_a = a.admin();
    let agent = on_a
        .agent_with(json!({"name": "Searcher", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let path = format!("/api/agents/{agent}/web");
    assert_eq!(b.admin().get(&path).await.expect(200)["enabled"], false);
    let search = json!({"enabled": true, "backend": "tavily",
                        "url": format!("{}/tavily", backend.base), "apiKey": "tvly-secret"});
    let stored = on_a
        .put(&path, json!({"enabled": true, "search": search}))
        .await
        .expect(200);
    assert_eq!(stored["search"]["has_api_key"], true, "{stored}");
    assert!(!stored.to_string().contains("tvly-secret"), "{stored}");
    assert_eq!(b.admin().get(&path).await.expect(200), stored);
    let row: String = postgres
        .admin_of("web")
        .await
        .query_one("SELECT body::text FROM agent_configs", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!row.contains("tvly-secret"), "sealed at rest: {row}");

    // A turn (on whichever node owns the thread) offers the tool and calls
    // the backend with the key.
    let on_b = b.admin();
    let thread = on_b.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "web_search",
        &json!({"query": "plans"}),
    )));
    vendor.push(Reply::stream(openai_answer("Done.", 10)));
    on_b.say(&thread, json!({"content": "look it up"})).await;
    let first = &vendor.requests()[0];
    let offered: Vec<&str> = first.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"web_search"), "{offered:?}");
    let asked = backend.requests().pop().expect("the backend was called");
    assert_eq!(asked.header("authorization"), Some("Bearer tvly-secret"));
    let last = vendor.requests().pop().unwrap();
    let tool: &Value = last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool["content"].as_str().unwrap().contains("Found"),
        "{tool}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegate_answers_on_postgres_on_a_child_thread() {
    let vendor = Mock::start("/v1").await;
    let postgres = Postgres::start().await;
    let url = postgres.database("delegation").await;
    let node = |name| on_postgres_with_vendor(&url, name, &vendor.base);
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let on_a = a.admin();
    let alpha = on_a
        .agent_with(json!({"name": "Alpha", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let echo = on_a
        .agent_with(json!({"name": "Echo", "defaultModel": "builtin/echo"}))
        .await;
    let made = on_a
        .put(
            &format!("/api/agents/{alpha}/delegated"),
            json!({"delegates": [{"agentId": echo, "description": "Echoes."}]}),
        )
        .await
        .expect(200);
    assert_eq!(made["delegates"][0]["tool_name"], "delegate__echo");
    let on_b = b.admin();
    assert_eq!(
        on_b.get(&format!("/api/agents/{alpha}/delegated"))
            .await
            .expect(200),
        made
    );
    // Echo → Alpha would close a cycle, whichever node is asked.
    let cycle = on_b
        .put(
            &format!("/api/agents/{echo}/delegated"),
            json!({"delegates": [{"agentId": alpha}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(cycle, "delegates: cycle Echo → Alpha → Echo");

    vendor.push(Reply::stream(openai_tool_call(
        "call_a",
        "delegate__echo",
        &json!({"task": "one two three"}),
    )));
    vendor.push(Reply::stream(openai_answer("Alpha's answer.", 30)));
    let root = on_b.thread(&alpha, json!({})).await;
    let frames = on_b.say(&root, json!({"content": "go"})).await;
    let done = crate::common::done_of(&frames);
    assert_eq!(done["ok"], true, "{frames:?}");
    assert_eq!(done["content"], "Alpha's answer.");
    let requests = vendor.requests();
    let result: Value = {
        let messages = requests[1].body["messages"].as_array().unwrap();
        let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
        serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
    };
    assert!(
        result.to_string().contains("one two three"),
        "the echo's answer: {result}"
    );
    let children = on_a
        .get(&format!("/api/threads?parentThreadId={root}"))
        .await
        .expect(200);
    let child = children["threads"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(on_a.history(&child).await.len(), 2, "{children}");
    // The child is in its root's shard: its root's node runs it.
    let shard = |id: &str| confer::cluster::Shard::of(confer_actors::ThreadId(id.parse().unwrap()));
    assert_eq!(shard(&child), shard(&root));
    // The root's usage with its delegates' (it answered 501 here).
    let usage = on_a
        .get(&format!("/api/usage?threadId={root}&includeDelegated=true"))
        .await
        .expect(200);
    let threads: Vec<&str> = usage["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["thread_id"].as_str())
        .collect();
    assert!(threads.contains(&child.as_str()), "{usage}");
    assert!(threads.contains(&root.as_str()), "{usage}");
    // Cleared: never set again.
    let cleared = on_b
        .put(
            &format!("/api/agents/{alpha}/delegated"),
            json!({"delegates": []}),
        )
        .await
        .expect(200);
    assert_eq!(
        cleared,
        json!({"agent_id": alpha, "org_id": cleared["org_id"], "delegates": [], "updated_at": null})
    );
}

/// Skills on PostgreSQL: installed on one node, listed, attached and
/// loaded by a turn on another; a name is the org's once; a delete takes
/// the skill's attachments with it on every node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_installed_on_one_node_is_loaded_on_another() {
    use crate::skills::{offered, system_of, tool_result};
    let vendor = Mock::start("/v1").await;
    let postgres = Postgres::start().await;
    let url = postgres.database("skills").await;
    let node = |name| on_postgres_with_vendor(&url, name, &vendor.base);
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let (on_a, on_b) = (a.admin(), b.admin());
    let catalog = json!({"source": "catalog", "key": "sql-review"});
    let installed = on_a.post("/api/skills", catalog.clone()).await.expect(201);
    let id = installed["id"].as_str().unwrap().to_owned();
    let listed = on_b.get("/api/skills").await.expect(200);
    assert_eq!(listed[0]["id"], id.as_str(), "{listed}");
    let one = on_b.get(&format!("/api/skills/{id}")).await.expect(200);
    assert!(
        one["instructions"]
            .as_str()
            .unwrap()
            .starts_with("# SQL review"),
        "{one}"
    );
    let again = on_b
        .post("/api/skills", catalog)
        .await
        .expect_error(409, "CONFLICT");
    assert!(again.starts_with("name"), "{again}");

    let agent = on_a
        .agent_with(json!({"name": "Reviewer", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let attach = format!("/api/agents/{agent}/skills");
    on_b.post(&attach, json!({"skillId": id})).await.expect(201);
    assert_eq!(on_a.get(&attach).await.expect(200)[0]["name"], "sql-review");

    // A turn (on whichever node owns the thread) lists the skill and loads
    // its file.
    let thread = on_a.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "load_skill",
        &json!({"name": "sql-review", "path": "references/migrations.md"}),
    )));
    vendor.push(Reply::stream(openai_answer("Reviewed.", 10)));
    on_b.say(&thread, json!({"content": "review this SQL"}))
        .await;
    let requests = vendor.requests();
    assert!(system_of(&requests[0]).contains("- sql-review: Review a SQL query"));
    assert!(offered(&requests[0]).contains(&"load_skill".to_owned()));
    let file = tool_result(&requests[1]);
    assert!(
        file["content"].as_str().unwrap().contains("CONCURRENTLY"),
        "{file}"
    );

    // Deleted on B: gone on A, and so is its attachment.
    on_b.delete(&format!("/api/skills/{id}")).await.expect(200);
    on_a.get(&format!("/api/skills/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    assert_eq!(on_a.get(&attach).await.expect(200), json!([]));
    let files: i64 = postgres
        .admin_of("skills")
        .await
        .query_one("SELECT count(*) FROM skill_files", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(files, 0, "its files went with it");
}

/// The result of the first tool call in a vendor request.
fn first_result(request: &crate::mock::Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    serde_json::from_str(result["content"].as_str().unwrap()).unwrap()
}

/// The plan tools keep their plans through the plans' port: a turn on one
/// node plans and completes a todo, another node lists the plan, and the
/// call after the plan was made was shown it. A project's members list (which
/// names its runners, none on PostgreSQL) answers too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_tools_keep_their_plans_on_postgres() {
    let vendor = Mock::start("/v1").await;
    let postgres = Postgres::start().await;
    let url = postgres.database("plan_tools").await;
    let node = |name| on_postgres_with_vendor(&url, name, &vendor.base);
    let (a, b) = (Server::start_with(node("a")), Server::start_with(node("b")));
    let on_a = a.admin();
    let agent = on_a
        .agent_with(json!({"name": "Planner", "defaultModel": "openai/gpt-4.1"}))
        .await;
    on_a.put(
        &format!("/api/agents/{agent}/plan"),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    let on_b = b.admin();
    let thread = on_b.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_plan",
        "plan_create",
        &json!({"title": "Trip", "todos": [{"content": "Book"}]}),
    )));
    vendor.push(Reply::computed(|request| {
        let book = first_result(request)["todos"][0]["id"].clone();
        Reply::stream(openai_tool_call(
            "call_done",
            "todo_update",
            &json!({"todoId": book, "status": "done"}),
        ))
    }));
    vendor.push(Reply::stream(openai_answer("Booked.", 10)));
    let frames = on_b.say(&thread, json!({"content": "Plan my trip"})).await;
    assert_eq!(crate::common::done_of(&frames)["ok"], true, "{frames:?}");
    let plans = on_a
        .get(&format!("/api/plans?threadId={thread}"))
        .await
        .expect(200)["plans"]
        .clone();
    let plan = &plans.as_array().unwrap()[0];
    assert_eq!(plan["title"], "Trip", "{plans}");
    assert_eq!(plan["todos"][0]["status"], "done", "{plans}");
    // The call after the plan was made was shown it (the plan is done
    // once its one todo is).
    let second = &vendor.requests()[1];
    let system = second.body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Current plan \"Trip\""), "{system}");

    let project = on_a
        .post(
            "/api/projects",
            json!({"name": "Research", "slug": "research"}),
        )
        .await
        .expect(201);
    let members = on_b
        .get(&format!(
            "/api/projects/{}/members",
            project["id"].as_str().unwrap()
        ))
        .await
        .expect(200);
    assert_eq!(members["runners"], json!([]), "{members}");
}
