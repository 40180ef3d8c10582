//! Computer use (`computer.md` acceptance 2–5): the configuration's rules
//! and effective runtime, the org's cap on running sandboxes and a killed
//! server's, and what the other computer tests share (a server on the
//! vendor mock, a scripted `computer_run`). Files that outlive an idle stop
//! are in `computer_files`, containment in `computer_containment`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Api, Options, Server};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};

/// Whether bubblewrap works here; `SKIP` (or, under `CI=true`, a failure)
/// when it does not.
pub(crate) async fn sandbox_works(api: &Api, agent: &str) -> bool {
    let config = api
        .get(&format!("/api/agents/{agent}/computer"))
        .await
        .expect(200);
    if config["available"] == true {
        return true;
    }
    let reason = config["unavailable_reason"]
        .as_str()
        .unwrap_or("?")
        .to_owned();
    assert!(
        std::env::var("CI").is_err(),
        "the local sandbox must work in CI: {reason}"
    );
    eprintln!("SKIP local sandbox: {reason}");
    false
}

/// A server on the vendor mock whose sandboxes live in `sandboxes`.
pub(crate) fn server(
    vendor: &Mock,
    sandboxes: &tempfile::TempDir,
    extra: &[(&str, &str)],
) -> Server {
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-Zq9sekrit-openai")
        .env("CONFER_SANDBOX_DIR", sandboxes.path().to_str().unwrap());
    for (key, value) in extra {
        options = options.env(key, value);
    }
    Server::start_with(options)
}

/// Has the scripted model call `name` with `arguments`; the tool's result
/// as the model got it.
pub(crate) async fn call(
    api: &Api,
    vendor: &Mock,
    thread: &str,
    name: &str,
    arguments: Value,
) -> Value {
    vendor.push(Reply::stream(openai_tool_call("call_1", name, &arguments)));
    vendor.push(Reply::stream(openai_answer("Done.", 10)));
    api.say(thread, json!({"content": "go"})).await;
    let last = vendor.requests().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    let content = tool["content"].as_str().unwrap();
    serde_json::from_str(content).unwrap_or_else(|_| json!(content))
}

pub(crate) async fn run(api: &Api, vendor: &Mock, thread: &str, command: &str) -> Value {
    call(
        api,
        vendor,
        thread,
        "computer_run",
        json!({"command": command}),
    )
    .await
}

#[tokio::test]
async fn the_configuration_checks_its_fields_and_names_its_runtime() {
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = server(&vendor, &sandboxes, &[]);
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Coder", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let path = format!("/api/agents/{agent}/computer");
    let defaults = api.get(&path).await.expect(200);
    assert_eq!(defaults["enabled"], false);
    assert_eq!(defaults["size_class"], "small");
    assert_eq!(defaults["idle_timeout_secs"], 600);
    assert_eq!(defaults["max_command_secs"], 300);
    assert_eq!(defaults["output_limit_bytes"], 16_384);
    assert_eq!(defaults["network"], json!({"mode": "none", "allow": []}));
    assert_eq!(defaults["runtime_provider"], "e2b");
    assert_eq!(defaults["agent_id"], agent.as_str());
    // No vendor key: the local runtime (when bubblewrap works here).
    if defaults["available"] == true {
        assert_eq!(defaults["effective_runtime"], "local");
    }
    for (body, field) in [
        (json!({"idleTimeoutSecs": 9}), "idleTimeoutSecs"),
        (json!({"maxCommandSecs": 0}), "maxCommandSecs"),
        (json!({"outputLimitBytes": 300_000}), "outputLimitBytes"),
        (json!({"env": {"PATH": "/x"}}), "env.PATH"),
        (json!({"env": {"HTTPS_PROXY": "x"}}), "env.HTTPS_PROXY"),
        (
            json!({"network": {"mode": "allowlist", "allow": ["ok.example", "not a host"]}}),
            "network.allow[1]",
        ),
    ] {
        let detail = api
            .put(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.contains(field), "{field}: {detail}");
    }
    let changed = api
        .put(
            &path,
            json!({"enabled": true, "sizeClass": "medium", "env": {"TZ": "UTC"}}),
        )
        .await
        .expect(200);
    assert_eq!(changed["enabled"], true);
    assert_eq!(changed["size_class"], "medium");
    assert_eq!(changed["env"], json!({"TZ": "UTC"}));
    assert_eq!(changed["idle_timeout_secs"], 600);
    // `local` is never an agent's provider.
    api.patch(
        &format!("/api/agents/{agent}"),
        json!({"runtimeProvider": "local"}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    // A member reads, only an admin changes.
    let member = server.api(&api.new_key("member").await);
    member.get(&path).await.expect(200);
    member
        .put(&path, json!({"enabled": false}))
        .await
        .expect(403);
    drop(server);

    // A vendor key: that vendor (tests/api/computer_e2b.rs works in it).
    let keyed = self::server(&vendor, &sandboxes, &[("E2B_API_KEY", "e2b-key")]);
    let api = keyed.admin();
    let agent = api.agent("Keyed").await;
    let config = api
        .get(&format!("/api/agents/{agent}/computer"))
        .await
        .expect(200);
    assert_eq!(config["effective_runtime"], "e2b");
    assert_eq!(config["available"], true);
    drop(keyed);

    // `always` runs locally, keys or not.
    let always = self::server(
        &vendor,
        &sandboxes,
        &[
            ("E2B_API_KEY", "e2b-key"),
            ("CONFER_SANDBOX_FALLBACK", "always"),
        ],
    );
    let api = always.admin();
    let agent = api.agent("Always").await;
    let config = api
        .get(&format!("/api/agents/{agent}/computer"))
        .await
        .expect(200);
    assert_eq!(config["effective_runtime"], "local");
    drop(always);

    // `none`: no runtime, no tool offered to the model.
    let none = self::server(&vendor, &sandboxes, &[("CONFER_SANDBOX_FALLBACK", "none")]);
    let api = none.admin();
    let agent = api
        .agent_with(json!({"name": "Nowhere", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let config = api
        .put(
            &format!("/api/agents/{agent}/computer"),
            json!({"enabled": true}),
        )
        .await
        .expect(200);
    assert_eq!(config["effective_runtime"], Value::Null);
    assert_eq!(config["available"], false);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_answer("Hi.", 5)));
    api.say(&thread, json!({"content": "hello"})).await;
    let offered = vendor.requests().pop().unwrap().body["tools"].clone();
    assert!(
        !offered.to_string().contains("computer_"),
        "no computer tool may be offered: {offered}"
    );
}

/// The pids of the `bwrap` processes `parent` started.
fn sandboxes_of(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the command may hold spaces.
        let Some((comm, rest)) = stat.split_once(") ") else {
            continue;
        };
        let ppid = rest.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok());
        if comm.ends_with("(bwrap") && ppid == Some(parent) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn a_start_past_the_org_cap_stops_the_idle_one_and_a_killed_server_leaves_no_sandbox() {
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = server(
        &vendor,
        &sandboxes,
        &[("CONFER_SANDBOX_MAX_RUNNING_PER_ORG", "1")],
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Capped", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !sandbox_works(&api, &agent).await {
        return;
    }
    api.put(
        &format!("/api/agents/{agent}/computer"),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    let first = api.thread(&agent, json!({})).await;
    let second = api.thread(&agent, json!({})).await;
    run(&api, &vendor, &first, "true").await;
    let ran = run(&api, &vendor, &second, "echo second").await;
    assert_eq!(ran["stdout"], "second\n", "{ran}");
    let stopped = api
        .get(&format!("/api/threads/{first}/computer"))
        .await
        .expect(200)["instance"]
        .clone();
    assert_eq!(stopped["state"], "stopped");
    assert_eq!(stopped["stop_reason"], "limit");
    assert_eq!(sandboxes_of(server.pid()).len(), 1);

    // Killed in the middle of a command: its sandbox goes with it, and
    // the restarted server shows the instance stopped.
    let asked = vendor.requests().len();
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "computer_run",
        &json!({"command": "sleep 60"}),
    )));
    let _stream = api.open_stream(&second, json!({"content": "sleep"})).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while vendor.requests().len() <= asked {
        assert!(Instant::now() < deadline, "the call was not made");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let running = sandboxes_of(server.pid());
    assert_eq!(running.len(), 1);
    let server = server.kill_and_restart();
    let deadline = Instant::now() + Duration::from_secs(5);
    while running
        .iter()
        .any(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
    {
        assert!(
            Instant::now() < deadline,
            "bwrap {running:?} outlived Confer"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let api = server.admin();
    let instance = api
        .get(&format!("/api/threads/{second}/computer"))
        .await
        .expect(200)["instance"]
        .clone();
    assert_eq!(instance["state"], "stopped", "{instance}");
    assert_eq!(instance["stop_reason"], "restart");
}
