//! The built-in plan tools (`plans.md` "Built-in tools") in model turns
//! scripted on the mock OpenAI vendor: a turn that plans and completes a
//! todo, gating by configuration and profile, and approval.

use serde_json::{Value, json};

use crate::common::done_of;
use crate::mock::{Reply, openai_answer, openai_tool_call, server_on_mock};

/// The result of the first tool call (`plan_create`) in a vendor request.
fn plan_result(request: &crate::mock::Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool result");
    serde_json::from_str(result["content"].as_str().unwrap()).unwrap()
}

/// The scripted turn: the model makes a plan, adds a todo after its first
/// one, and completes the first; the API then shows exactly
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
        &json!({"title": "Trip", "todos": [{"content": "Book"}]}),
    )));
    // Like a model, the later calls read the ids from the tool results.
    vendor.push(Reply::computed(|request| {
        let book = plan_result(request)["todos"][0]["id"].clone();
        Reply::stream(openai_tool_call(
            "call_add",
            "todo_add",
            &json!({"todos": [{"content": "Pack", "dependsOn": [book]}]}),
        ))
    }));
    vendor.push(Reply::computed(|request| {
        let book = plan_result(request)["todos"][0]["id"].clone();
        Reply::stream(openai_tool_call(
            "call_done",
            "todo_update",
            &json!({"todoId": book, "status": "done"}),
        ))
    }));
    vendor.push(Reply::stream(openai_answer("Booked; packing next.", 40)));
    // A client watching the thread sees the plan change too.
    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(watch.status, 200);
    let frames = api.say(&thread, json!({"content": "Plan my trip"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    let watched = loop {
        let frame = watch
            .next_within(std::time::Duration::from_secs(10))
            .await
            .expect("the watcher's frames");
        if frame.event == "tool_result" {
            break frame;
        }
    };
    assert_eq!(watched.data["tool_name"], "plan_create");
    assert_eq!(watched.data["result"]["title"], "Trip");

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
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["tool_name"], "plan_create");
    assert_eq!(results[0]["result"]["id"], plan["id"]);
    assert_eq!(results[1]["tool_name"], "todo_add");
    assert_eq!(results[1]["result"]["todos"][0]["content"], "Pack");
    assert_eq!(results[2]["tool_name"], "todo_update");
    assert_eq!(results[2]["result"]["status"], "done");
    let executing: Vec<&str> = frames
        .iter()
        .filter(|f| f.event == "tool_executing")
        .map(|f| f.data["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(executing, ["plan_create", "todo_add", "todo_update"]);

    // The vendor was offered the four tools, and the last call's system
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
    let system = requests[3].body["messages"][0]["content"].as_str().unwrap();
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
