//! Computer use (`computer.md` acceptance 3): a scripted vendor driving
//! `computer_run` and `computer_edit` in a real bubblewrap sandbox, whose
//! files persist across an idle stop and resume.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::computer::{call, run, sandbox_works, server};
use crate::mock::Mock;

#[tokio::test]
async fn an_agent_runs_commands_and_edits_files_that_outlive_an_idle_stop() {
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = server(&vendor, &sandboxes, &[]);
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Coder", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !sandbox_works(&api, &agent).await {
        return;
    }
    api.put(
        &format!("/api/agents/{agent}/computer"),
        json!({"enabled": true, "idleTimeoutSecs": 10, "env": {"GREETING": "hello"}}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    let computer = format!("/api/threads/{thread}/computer");
    assert_eq!(
        api.get(&computer).await.expect(200)["instance"],
        Value::Null
    );

    let ran = run(
        &api,
        &vendor,
        &thread,
        "echo \"$GREETING\" > note.txt; cat note.txt; id -u; pwd",
    )
    .await;
    assert_eq!(ran["exit_code"], 0, "{ran}");
    assert_eq!(ran["stdout"], "hello\n1000\n/workspace\n");
    assert_eq!(ran["truncated"], false);
    // The tools were offered with the workspace in their description.
    let offered = vendor.requests().pop().unwrap().body["tools"].to_string();
    assert!(offered.contains("computer_run") && offered.contains("computer_edit"));
    assert!(offered.contains("/workspace"), "{offered}");

    let created = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "create", "path": "src/main.py", "file_text": "a = 1\nb = 2\nprint(a + b)\n"}),
    )
    .await;
    assert_eq!(created, json!("created src/main.py (3 lines)"));
    let replaced = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "str_replace", "path": "src/main.py", "old_str": "b = 2", "new_str": "b = 40"}),
    )
    .await;
    assert!(
        replaced.as_str().unwrap().contains("     2\tb = 40"),
        "{replaced}"
    );
    let twice = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "str_replace", "path": "src/main.py", "old_str": "=", "new_str": ":"}),
    )
    .await;
    assert!(
        twice["error"]
            .as_str()
            .unwrap()
            .starts_with("old_str found 2 times"),
        "{twice}"
    );
    let missing = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "str_replace", "path": "src/main.py", "old_str": "zzz", "new_str": ""}),
    )
    .await;
    assert_eq!(missing["error"], "old_str not found in src/main.py");
    call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "insert", "path": "src/main.py", "insert_line": 0, "insert_text": "# sum"}),
    )
    .await;
    let viewed = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "view", "path": "/workspace/src/main.py"}),
    )
    .await;
    assert_eq!(
        viewed,
        json!("     1\t# sum\n     2\ta = 1\n     3\tb = 40\n     4\tprint(a + b)\n")
    );
    let listed = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "view", "path": "."}),
    )
    .await;
    assert_eq!(
        listed["entries"],
        json!(["note.txt", "src/", "src/main.py"])
    );
    let python = run(&api, &vendor, &thread, "python3 src/main.py").await;
    assert_eq!(python["stdout"], "41\n", "{python}");

    let running = api.get(&computer).await.expect(200)["instance"].clone();
    assert_eq!(running["state"], "running");
    assert_eq!(running["runtime"], "local");
    assert_eq!(running["limits_mode"], "rlimit");
    assert_eq!(running["workspace_path"], "/workspace");
    assert_eq!(running["command_count"], 2);
    let listing = api
        .get(&format!(
            "/api/agents/{agent}/computer-instances?state=running"
        ))
        .await
        .expect(200);
    assert_eq!(listing[0]["id"], running["id"]);
    // computer.md §7: the sandbox's metrics.
    let metrics = reqwest::get(format!("{}/metrics", server.admin().base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let value = |family: &str, labels: &[&str]| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(family) && labels.iter().all(|x| l.contains(x)))
            .and_then(|l| l.rsplit(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {family} {labels:?} in /metrics"))
    };
    let local = "runtime=\"local\"";
    assert_eq!(
        value("confer_sandbox_instances{", &[local, "state=\"running\""]),
        1.0
    );
    assert_eq!(
        value("confer_sandbox_instances{", &[local, "state=\"stopped\""]),
        0.0
    );
    assert!(value("confer_sandbox_commands_total{", &[local, "outcome=\"ok\""]) >= 1.0);
    assert_eq!(
        value(
            "confer_sandbox_start_seconds_count{",
            &[local, "kind=\"start\""]
        ),
        1.0
    );

    // Idle for 10 s: stopped, the workspace kept; the next call resumes.
    let deadline = Instant::now() + Duration::from_secs(30);
    let stopped = loop {
        let instance = api.get(&computer).await.expect(200)["instance"].clone();
        if instance["state"] == "stopped" {
            break instance;
        }
        assert!(Instant::now() < deadline, "not stopped: {instance}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(stopped["stop_reason"], "idle");
    assert!(stopped["delete_due_at"].is_string());
    let resumed = run(&api, &vendor, &thread, "cat note.txt src/main.py | head -2").await;
    assert_eq!(resumed["stdout"], "hello\n# sum\n", "{resumed}");
    let instance = api.get(&computer).await.expect(200)["instance"].clone();
    assert_eq!(instance["state"], "running");
    assert_eq!(instance["id"], running["id"]);

    // Removed: the next call starts afresh.
    let deleted = api.delete(&computer).await.expect(200);
    assert_eq!(deleted, json!({"ok": true, "deleted": true}));
    assert_eq!(
        api.get(&computer).await.expect(200)["instance"],
        Value::Null
    );
    let fresh = run(&api, &vendor, &thread, "ls").await;
    assert_eq!(fresh["stdout"], "", "{fresh}");
    // Disabled: the instance stops, and no tool is offered.
    api.put(
        &format!("/api/agents/{agent}/computer"),
        json!({"enabled": false}),
    )
    .await
    .expect(200);
    let instance = api.get(&computer).await.expect(200)["instance"].clone();
    assert_eq!(instance["stop_reason"], "disabled", "{instance}");
}
