//! Runners and runs (`runners.md`) against the real server: a run renders
//! its instruction, answers on a hidden thread and streams `run_status`
//! before its `done`; JSON output is repaired, then fails
//! `OUTPUT_INVALID`; a client tool waits for a resume with exactly its
//! results; cancel ends a queued run and stops a running one; a run cut by
//! kill -9 is queued again and finishes.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, eventually};
use crate::mock::{Reply, openai_answer, openai_tool_call, server_on_mock};

async fn runner(api: &Api, body: Value) -> String {
    let runner = api.post("/api/runners", body).await.expect(201);
    runner["id"].as_str().unwrap().to_owned()
}

async fn start(api: &Api, runner: &str, input: Value) -> Value {
    api.post(
        &format!("/api/runners/{runner}/runs"),
        json!({"input": input}),
    )
    .await
    .expect(201)
}

/// The run once `done` accepts it.
async fn run_when(api: &Api, runner: &str, run: &str, done: impl Fn(&Value) -> bool) -> Value {
    let path = format!("/api/runners/{runner}/runs/{run}");
    eventually(Duration::from_secs(30), "the run's state", async || {
        let run = api.get(&path).await.expect(200);
        done(&run).then_some(run)
    })
    .await
}

fn status_is(status: &'static str) -> impl Fn(&Value) -> bool {
    move |run| run["status"] == status
}

#[tokio::test]
async fn a_run_renders_its_instruction_and_answers_on_a_hidden_thread() {
    // Slow words: the events stream opens while the turn runs.
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "60"));
    let admin = server.admin();
    let agent = admin.agent("Summarizer").await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Digest",
               "instructions": "Summarize {{ input.topic }} in one line please.",
               "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}},
                               "required": ["topic"]}}),
    )
    .await;
    let got = admin
        .get(&format!("/api/runners/{runner}"))
        .await
        .expect(200);
    assert_eq!(got["max_concurrent_runs"], 4, "{got}");
    assert!(got.get("budget").is_none(), "{got}");

    // Input checked against the schema: every error by path, nothing stored.
    let runs = format!("/api/runners/{runner}/runs");
    let refused = admin.post(&runs, json!({"input": {"topic": 7}})).await;
    assert_eq!(refused.status.as_u16(), 422);
    assert_eq!(refused.body["error"], "VALIDATION_ERROR");
    assert_eq!(
        refused.body["errors"][0]["path"], "input/topic",
        "{}",
        refused.body
    );
    assert!(
        refused.body["detail"]
            .as_str()
            .unwrap()
            .starts_with("input/topic")
    );
    let listed = admin.get(&runs).await.expect(200);
    assert_eq!(listed, json!([]));

    let run = start(&admin, &runner, json!({"topic": "tides"})).await;
    assert_eq!(run["status"], "queued");
    assert_eq!(run["trigger"]["kind"], "manual");
    let id = run["id"].as_str().unwrap();
    let thread = run["thread_id"].as_str().unwrap();
    let mut events = admin.open_get(&format!("{runs}/{id}/events")).await;
    assert_eq!(events.status, 200);
    let mut names = Vec::new();
    let mut frames = Vec::new();
    while let Some(frame) = tokio::time::timeout(Duration::from_secs(30), events.next())
        .await
        .expect("the events stream ends")
    {
        names.push(frame.event.clone());
        frames.push(frame);
    }
    assert_eq!(names[..2], ["watching", "run"], "{names:?}");
    let done = names.iter().rposition(|n| n == "done").expect("a done");
    assert_eq!(done, names.len() - 1, "{names:?}");
    assert_eq!(names[done - 1], "run_status", "{names:?}");
    assert!(names.contains(&"meta".to_owned()) && names.contains(&"token".to_owned()));
    let status = &frames[done - 1];
    assert!(status.id.is_none(), "{status:?}");
    assert_eq!(status.data["status"], "succeeded");
    assert_eq!(status.data["output"], "Summarize tides in one line please.");

    let run = admin.get(&format!("{runs}/{id}")).await.expect(200);
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["output"], "Summarize tides in one line please.");
    assert_eq!(run["attempt"], 1);
    assert!(run["usage"]["output_tokens"].as_u64().unwrap() > 0, "{run}");
    assert_eq!(run["usage"]["steps"], 1, "{run}");
    assert!(run["started_at"].is_string() && run["ended_at"].is_string());
    assert!(run.get("progress").is_none(), "{run}");

    // Its trace is a run turn naming both; its usage records carry both.
    let logs = admin
        .get(&format!("/api/logs?runId={id}"))
        .await
        .expect(200);
    let traces = logs["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 1, "{logs}");
    assert_eq!(traces[0]["name"], "run-turn");
    assert_eq!(traces[0]["runner_id"], runner.as_str());
    let logs = admin
        .get(&format!(
            "/api/logs?runnerId={}",
            run["thread_id"].as_str().unwrap()
        ))
        .await
        .expect(200);
    assert_eq!(logs["traces"], json!([]), "{logs}");
    let usage = admin
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(usage["records"][0]["metadata"]["run_id"], id, "{usage}");

    // The hidden thread: readable, never listed, driven by its run alone.
    let history = admin
        .get(&format!("/api/threads/{thread}/messages"))
        .await
        .expect(200);
    assert_eq!(history["total"], 2, "{history}");
    let threads = admin
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert!(!threads.to_string().contains(thread), "{threads}");
    admin
        .post(
            &format!("/api/threads/{thread}/messages"),
            json!({"content": "hi"}),
        )
        .await
        .expect_error(409, "CONFLICT");
    admin
        .delete(&format!("/api/threads/{thread}"))
        .await
        .expect_error(409, "CONFLICT");

    // Lists filter; a finished run cannot be cancelled; the day counts it.
    let listed = admin
        .get(&format!("{runs}?status=succeeded"))
        .await
        .expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let listed = admin
        .get(&format!("{runs}?status=failed"))
        .await
        .expect(200);
    assert_eq!(listed, json!([]));
    admin
        .post(&format!("{runs}/{id}/cancel"), json!({}))
        .await
        .expect_error(409, "CONFLICT");
    let budget = admin
        .get(&format!("/api/runners/{runner}/budget"))
        .await
        .expect(200);
    assert_eq!(budget["max_steps"], 50, "{budget}");
    assert_eq!(budget["today"]["runs"], 1, "{budget}");

    // The agent is fixed; a bad template names its line.
    let other = admin.agent("Other").await;
    admin
        .patch(&format!("/api/runners/{runner}"), json!({"agentId": other}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let detail = admin
        .patch(
            &format!("/api/runners/{runner}"),
            json!({"instructions": "ok\n{% if %}"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("instructions: line 2"), "{detail}");
}

#[tokio::test]
async fn json_output_is_repaired_then_valid_or_fails_output_invalid() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Counter", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Count", "instructions": "Count the {{ input.thing }}.",
               "outputMode": "json",
               "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}},
                                "required": ["n"]}}),
    )
    .await;

    vendor.push(Reply::stream(openai_answer("There are three.", 10)));
    vendor.push(Reply::stream(openai_answer("```json\n{\"n\": 3}\n```", 10)));
    let run = start(&admin, &runner, json!({"thing": "moons"})).await;
    let id = run["id"].as_str().unwrap();
    let run = run_when(&admin, &runner, id, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["output"], json!({"n": 3}));
    let requests = vendor.requests();
    assert_eq!(requests.len(), 2);
    let system = requests[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("JSON Schema"), "{system}");
    let repair = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    let repair = repair["content"].as_str().unwrap();
    assert!(
        repair.contains("does not match") && repair.contains("not JSON"),
        "{repair}"
    );

    for text in ["one", "{\"n\": \"two\"}", "still not"] {
        vendor.push(Reply::stream(openai_answer(text, 10)));
    }
    let run = start(&admin, &runner, json!({"thing": "stars"})).await;
    let id = run["id"].as_str().unwrap();
    let run = run_when(&admin, &runner, id, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "failed", "{run}");
    assert_eq!(run["error"]["code"], "OUTPUT_INVALID", "{run}");
    assert_eq!(vendor.requests().len(), 5, "one call and two repairs");
}

#[tokio::test]
async fn a_client_tool_waits_for_a_resume_with_exactly_its_results() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Looker", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Look", "instructions": "Look it up.",
               "clientTools": [{"name": "lookup", "description": "Finds things",
                                "parameters": {"type": "object"}}]}),
    )
    .await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "lookup",
        &json!({"q": "x"}),
    )));
    vendor.push(Reply::stream(openai_answer("Found it.", 10)));
    let run = start(&admin, &runner, json!({})).await;
    let id = run["id"].as_str().unwrap();
    let run = run_when(&admin, &runner, id, status_is("requires_action")).await;
    assert_eq!(run["pending_tool_calls"][0]["id"], "call_1", "{run}");
    assert!(run["expires_at"].is_string(), "{run}");

    let resume = format!("/api/runners/{runner}/runs/{id}/resume");
    let detail = admin
        .post(&resume, json!({}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("call_1"), "{detail}");
    admin
        .post(
            &resume,
            json!({"toolResults": [{"toolCallId": "call_1", "output": "x"},
                                   {"toolCallId": "call_9", "output": "y"}]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let results = json!({"toolResults": [{"toolCallId": "call_1", "output": {"found": "the x"}}]});
    let key = [("Idempotency-Key", "resume-1")];
    let resumed = admin
        .request_with(Method::POST, &resume, Some(results.clone()), &key)
        .await
        .expect(200);
    assert_eq!(resumed["status"], "queued");
    // A retry of the keyed resume answers the run, not 409.
    let again = admin
        .request_with(Method::POST, &resume, Some(results), &key)
        .await
        .expect(200);
    assert_eq!(again["id"], resumed["id"]);
    let run = run_when(&admin, &runner, id, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["output"], "Found it.");
    let sent = vendor.requests()[1].body.to_string();
    assert!(sent.contains("the x") && sent.contains("call_1"), "{sent}");
    admin
        .post(&resume, json!({}))
        .await
        .expect_error(409, "CONFLICT");
}

#[tokio::test]
async fn cancel_ends_a_queued_run_and_stops_a_running_one() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "100"));
    let admin = server.admin();
    let agent = admin.agent("Slow").await;
    let long = "word ".repeat(300);
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Slow", "instructions": long, "maxConcurrentRuns": 1}),
    )
    .await;
    let first = start(&admin, &runner, json!({})).await;
    let second = start(&admin, &runner, json!({})).await;
    let (first, second) = (
        first["id"].as_str().unwrap(),
        second["id"].as_str().unwrap(),
    );
    run_when(&admin, &runner, first, status_is("running")).await;
    let queued = admin
        .get(&format!("/api/runners/{runner}/runs/{second}"))
        .await
        .expect(200);
    assert_eq!(queued["status"], "queued", "one at a time: {queued}");

    let cancel = |run: &str| format!("/api/runners/{runner}/runs/{run}/cancel");
    let cancelled = admin.post(&cancel(second), json!({})).await.expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    // Again: still 200.
    admin.post(&cancel(second), json!({})).await.expect(200);

    admin.post(&cancel(first), json!({})).await.expect(200);
    let run = run_when(&admin, &runner, first, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "cancelled", "{run}");
    let output = run["output"].clone();
    assert!(output.is_null(), "{run}");
}

#[tokio::test]
async fn a_run_cut_by_kill_9_is_queued_again_and_finishes() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "50"));
    let admin = server.admin();
    let agent = admin.agent("Steady").await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Steady", "instructions": "tick ".repeat(200)}),
    )
    .await;
    let run = start(&admin, &runner, json!({})).await;
    let id = run["id"].as_str().unwrap().to_owned();
    run_when(&admin, &runner, &id, status_is("running")).await;
    // A read may see a change before its flush: a write answered after it
    // (the store flushes everything before it) makes `running` durable.
    admin
        .put(
            &format!("/api/runners/{runner}/budget"),
            json!({"maxSteps": 50}),
        )
        .await
        .expect(200);
    let server = server.kill_and_restart();
    let admin = server.admin();
    let run = run_when(&admin, &runner, &id, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["attempt"], 2, "{run}");
    let output = run["output"].as_str().unwrap();
    assert!(output.contains("tick"), "{run}");
}

#[tokio::test]
async fn a_run_pauses_at_its_step_budget_and_resumes_once_raised() {
    let (vendor, hooks, server) = crate::org_tools::rig().await;
    let admin = server.admin();
    crate::org_tools::tool(&admin, &hooks, "lookup", json!({})).await;
    for _ in 0..2 {
        hooks.push(Reply::json(200, json!({"found": "the answer"})));
    }
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "lookup",
        &json!({"q": 1}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_2",
        "lookup",
        &json!({"q": 2}),
    )));
    vendor.push(Reply::stream(openai_answer("All found.", 10)));
    let agent = admin
        .agent_with(json!({"name": "Seeker", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Seek", "instructions": "Find it."}),
    )
    .await;
    let budget = format!("/api/runners/{runner}/budget");
    let set = admin.put(&budget, json!({"maxSteps": 2})).await.expect(200);
    assert_eq!(set["max_steps"], 2, "{set}");
    admin
        .put(&budget, json!({"maxTokens": 0}))
        .await
        .expect_error(422, "VALIDATION_ERROR");

    let run = start(&admin, &runner, json!({})).await;
    let id = run["id"].as_str().unwrap();
    let run = run_when(&admin, &runner, id, status_is("paused")).await;
    assert_eq!(run["status_reason"], "budget_exceeded", "{run}");
    assert_eq!(run["limit"], "max_steps", "{run}");
    assert_eq!(run["usage"]["steps"], 2, "{run}");
    assert_eq!(vendor.requests().len(), 2, "no third call");
    assert_eq!(hooks.requests().len(), 2, "both tool calls ran");

    let resume = format!("/api/runners/{runner}/runs/{id}/resume");
    let detail = admin
        .post(&resume, json!({}))
        .await
        .expect_error(409, "BUDGET_EXCEEDED");
    assert!(detail.contains("max_steps"), "{detail}");

    admin.put(&budget, json!({"maxSteps": 3})).await.expect(200);
    admin.post(&resume, json!({})).await.expect(200);
    let run = run_when(&admin, &runner, id, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["output"], "All found.");
    assert_eq!(run["usage"]["steps"], 3, "{run}");
    let third = vendor.requests()[2].body.to_string();
    assert!(
        third.contains("call_2") && third.contains("the answer"),
        "{third}"
    );
}

#[tokio::test]
async fn a_days_cost_limit_pauses_the_next_run_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("prices.toml");
    std::fs::write(
        &prices,
        "[[model]]\npattern = \"builtin/echo\"\ninput = 1000.0\noutput = 1000.0\n",
    )
    .unwrap();
    let server =
        Server::start_with(Options::default().env("CONFER_PRICES_FILE", prices.to_str().unwrap()));
    let admin = server.admin();
    let agent = admin.agent("Priced").await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Priced", "instructions": "Say something priced."}),
    )
    .await;
    let budget = format!("/api/runners/{runner}/budget");
    admin
        .put(&budget, json!({"dailyCostUsd": 0.001}))
        .await
        .expect(200);
    let first = start(&admin, &runner, json!({})).await;
    let first = first["id"].as_str().unwrap();
    let done = run_when(&admin, &runner, first, |r| r["ended_at"].is_string()).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert!(
        done["usage"]["cost_usd"].as_f64().unwrap() > 0.001,
        "{done}"
    );
    let today = admin.get(&budget).await.expect(200);
    assert!(
        today["today"]["cost_usd"].as_f64().unwrap() > 0.001,
        "{today}"
    );

    let second = start(&admin, &runner, json!({})).await;
    let (second, thread) = (
        second["id"].as_str().unwrap(),
        second["thread_id"].as_str().unwrap().to_owned(),
    );
    let run = run_when(&admin, &runner, second, status_is("paused")).await;
    assert_eq!(run["limit"], "daily_cost_usd", "{run}");
    let usage = admin
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(usage["records"], json!([]), "no call was made: {usage}");
    let resume = format!("/api/runners/{runner}/runs/{second}/resume");
    admin
        .post(&resume, json!({}))
        .await
        .expect_error(409, "BUDGET_EXCEEDED");
    admin
        .put(&budget, json!({"dailyCostUsd": 100}))
        .await
        .expect(200);
    admin.post(&resume, json!({})).await.expect(200);
    let run = run_when(&admin, &runner, second, |r| r["ended_at"].is_string()).await;
    assert_eq!(run["status"], "succeeded", "{run}");
}

#[tokio::test]
async fn a_cost_limit_needs_a_priced_model() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Unpriced", "defaultModel": "openai/some-unpriced-model"}))
        .await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Unpriced", "instructions": "hi"}),
    )
    .await;
    let budget = format!("/api/runners/{runner}/budget");
    let detail = admin
        .put(&budget, json!({"maxCostUsd": 1.0}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("some-unpriced-model"), "{detail}");
    // A priced model takes the limit; going back to an unpriced one is refused.
    admin
        .patch(
            &format!("/api/runners/{runner}"),
            json!({"model": "builtin/echo"}),
        )
        .await
        .expect(200);
    admin
        .put(&budget, json!({"maxCostUsd": 1.0}))
        .await
        .expect(200);
    let detail = admin
        .patch(&format!("/api/runners/{runner}"), json!({"model": null}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("model:"), "{detail}");
}

#[tokio::test]
async fn a_keyed_run_create_answers_its_first_run_again() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Keyed").await;
    let runner = runner(
        &admin,
        json!({"agentId": agent, "name": "Keyed", "instructions": "Say {{ input.w }}"}),
    )
    .await;
    let runs = format!("/api/runners/{runner}/runs");
    let key = [("Idempotency-Key", "create-1")];
    let first = admin
        .request_with(
            Method::POST,
            &runs,
            Some(json!({"input": {"w": "a"}})),
            &key,
        )
        .await;
    assert_eq!(first.status.as_u16(), 201);
    let first = first.body;
    let again = admin
        .request_with(
            Method::POST,
            &runs,
            Some(json!({"input": {"w": "a"}})),
            &key,
        )
        .await
        .expect(201);
    assert_eq!(again["id"], first["id"]);
    admin
        .request_with(
            Method::POST,
            &runs,
            Some(json!({"input": {"w": "b"}})),
            &key,
        )
        .await
        .expect_error(422, "IDEMPOTENCY_KEY_REUSED");
    // Another caller's same key is its own.
    let member = server.api(&admin.new_key("member").await);
    let theirs = member
        .request_with(
            Method::POST,
            &runs,
            Some(json!({"input": {"w": "a"}})),
            &key,
        )
        .await
        .expect(201);
    assert_ne!(theirs["id"], first["id"]);
    let listed = admin.get(&runs).await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    let id = first["id"].as_str().unwrap();
    run_when(&admin, &runner, id, status_is("succeeded")).await;
}
