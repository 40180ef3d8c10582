//! Computer use (`computer.md` acceptance 2–5): the configuration's rules
//! and effective runtime, and a scripted vendor driving `computer_run` and
//! `computer_edit` in a real bubblewrap sandbox: files persist across an
//! idle stop and resume; the containment cases end as error results with
//! the server healthy; no secret of Confer is readable inside.

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
fn server(vendor: &Mock, sandboxes: &tempfile::TempDir, extra: &[(&str, &str)]) -> Server {
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

#[tokio::test]
async fn commands_are_contained_and_see_no_secret_of_confer() {
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = server(
        &vendor,
        &sandboxes,
        &[
            ("ANTHROPIC_API_KEY", "sk-Zq9sekrit-anthropic"),
            ("CONFER_METRICS_TOKEN", "Zq9sekrit-metrics"),
            (
                "CONFER_JWT_SECRET",
                "Zq9sekrit-jwt-secret-of-32-bytes-at-least",
            ),
            ("E2B_API_KEY", "Zq9sekrit-e2b"),
            ("CONFER_SANDBOX_FALLBACK", "always"),
        ],
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Contained", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !sandbox_works(&api, &agent).await {
        return;
    }
    api.put(
        &format!("/api/agents/{agent}/computer"),
        json!({"enabled": true, "outputLimitBytes": 4096}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;
    let healthy = || async {
        let started = Instant::now();
        server.anonymous().get("/healthz").await.expect(200);
        assert!(started.elapsed() < Duration::from_secs(1));
    };

    // A fork bomb meets the process limit and fails.
    let bomb = run(
        &api,
        &vendor,
        &thread,
        "python3 -c 'import os\nwhile True: os.fork()'",
    )
    .await;
    // Killed as a bomb, or collapsed by itself first: an error either way.
    let error = bomb["error"].as_str().unwrap_or_default();
    assert!(
        error == "process limit reached" || error.starts_with("exit status"),
        "{bomb}"
    );
    healthy().await;
    // A memory hog meets the memory limit.
    let hog = run(&api, &vendor, &thread, "python3 -c 'bytearray(8 << 30)'").await;
    assert!(
        hog["error"].as_str().unwrap().starts_with("exit status"),
        "{hog}"
    );
    assert!(
        hog["stderr"].as_str().unwrap().contains("MemoryError"),
        "{hog}"
    );
    healthy().await;
    // An endless loop ends at its timeout, its group killed.
    let started = Instant::now();
    let endless = call(
        &api,
        &vendor,
        &thread,
        "computer_run",
        json!({"command": "while true; do :; done", "timeout": 2}),
    )
    .await;
    assert_eq!(endless["error"], "timeout after 2 s", "{endless}");
    assert!(started.elapsed() < Duration::from_secs(4));
    healthy().await;
    // Nothing of them is left running: bwrap's init, the helper, this
    // shell and its `ls`.
    let processes = run(&api, &vendor, &thread, "ls /proc | grep -c '^[0-9]'").await;
    let count: u32 = processes["stdout"]
        .as_str()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(count <= 5, "{processes}");

    // The system is read-only, the host's data directory absent.
    let data_dir = server.data_dir().display().to_string();
    for command in [
        "echo x >> /etc/passwd".to_owned(),
        "touch /usr/x".to_owned(),
        format!("ls {data_dir}"),
    ] {
        let refused = run(&api, &vendor, &thread, &command).await;
        assert!(refused["error"].as_str().is_some(), "{command}: {refused}");
    }
    // A directory of that name made inside is the sandbox's own /tmp.
    run(&api, &vendor, &thread, &format!("mkdir -p {data_dir}/x")).await;
    assert!(!server.data_dir().join("x").exists());
    let etc = run(&api, &vendor, &thread, "echo x >> /etc/passwd").await;
    assert!(
        etc["stderr"]
            .as_str()
            .unwrap()
            .contains("Read-only file system"),
        "{etc}"
    );
    let edit = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "create", "path": "/usr/x", "file_text": "x"}),
    )
    .await;
    assert_eq!(edit["error"], "read-only file system: /usr/x", "{edit}");

    // The seccomp filter refuses new namespaces and mounts.
    let unshare = run(
        &api,
        &vendor,
        &thread,
        "unshare --user --map-root-user true",
    )
    .await;
    assert!(
        unshare["stderr"]
            .as_str()
            .unwrap()
            .contains("Operation not permitted"),
        "{unshare}"
    );
    let keyring = run(
        &api,
        &vendor,
        &thread,
        "python3 -c 'import ctypes, os; r = ctypes.CDLL(None, use_errno=True).syscall(250, 0); print(r, ctypes.get_errno())'",
    )
    .await;
    assert_eq!(keyring["stdout"], format!("-1 {}\n", 1), "{keyring}");

    // Confer's process is not there, nor any of its secrets.
    let environ = run(
        &api,
        &vendor,
        &thread,
        &format!("cat /proc/{}/environ", server.pid()),
    )
    .await;
    assert!(environ["error"].as_str().is_some(), "{environ}");
    let search = run(
        &api,
        &vendor,
        &thread,
        "env; cat /proc/*/environ /proc/*/cmdline | tr '\\0' '\\n'; grep -rl 'Zq9sek[r]it' / 2>/dev/null; true",
    )
    .await;
    let seen = format!("{}{}", search["stdout"], search["stderr"]);
    assert!(!seen.contains("Zq9sekrit"), "{seen}");
    assert!(!seen.contains(&data_dir), "{seen}");
    // No network: Confer's own port is unreachable.
    let port = server.base.rsplit(':').next().unwrap().to_owned();
    let network = run(
        &api,
        &vendor,
        &thread,
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
    )
    .await;
    assert!(network["error"].as_str().is_some(), "{network}");

    // Streamed: `tool_output` between the call's `tool_executing` and its
    // `tool_result`, at most 64 KiB of it, the last piece `truncated`.
    let streamed = |command: &str| {
        vendor.push(Reply::stream(openai_tool_call(
            "call_s",
            "computer_run",
            &json!({"command": command}),
        )));
        vendor.push(Reply::stream(openai_answer("Done.", 10)));
    };
    streamed("for i in 1 2 3; do echo line$i; sleep 0.3; done; echo oops >&2");
    let frames = api
        .open_stream(&thread, json!({"content": "go", "streamToolOutput": true}))
        .await
        .collect()
        .await;
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    let executing = names.iter().position(|n| *n == "tool_executing").unwrap();
    let result = names.iter().position(|n| *n == "tool_result").unwrap();
    let outputs: Vec<&Value> = frames
        .iter()
        .filter(|f| f.event == "tool_output")
        .map(|f| &f.data)
        .collect();
    assert!(outputs.len() >= 2, "{names:?}");
    let first = names.iter().position(|n| *n == "tool_output").unwrap();
    assert!(executing < first && first < result, "{names:?}");
    let text = |stream: &str| -> String {
        outputs
            .iter()
            .filter(|o| o["stream"] == stream)
            .map(|o| o["delta"].as_str().unwrap())
            .collect()
    };
    assert_eq!(text("stdout"), "line1\nline2\nline3\n");
    assert_eq!(text("stderr"), "oops\n");
    assert_eq!(outputs[0]["tool_name"], "computer_run");
    assert_eq!(outputs[0]["tool_call_id"], "call_s");
    streamed("head -c 200000 /dev/zero | tr '\\0' 'y'");
    let frames = api
        .open_stream(&thread, json!({"content": "go", "streamToolOutput": true}))
        .await
        .collect()
        .await;
    let outputs: Vec<&Value> = frames
        .iter()
        .filter(|f| f.event == "tool_output")
        .map(|f| &f.data)
        .collect();
    let total: usize = outputs
        .iter()
        .map(|o| o["delta"].as_str().unwrap().len())
        .sum();
    assert_eq!(total, 64 * 1024);
    assert_eq!(outputs.last().unwrap()["truncated"], true);
    assert!(
        outputs[..outputs.len() - 1]
            .iter()
            .all(|o| o.get("truncated").is_none())
    );
    // Without the field, none.
    streamed("echo quiet");
    let frames = api
        .open_stream(&thread, json!({"content": "go"}))
        .await
        .collect()
        .await;
    assert!(frames.iter().all(|f| f.event != "tool_output"));

    // 1 MB of output: the model gets the limit, cut in the middle.
    let big = run(
        &api,
        &vendor,
        &thread,
        "head -c 1000000 /dev/zero | tr '\\0' 'x'",
    )
    .await;
    assert_eq!(big["truncated"], true);
    let stdout = big["stdout"].as_str().unwrap();
    assert!(stdout.contains("bytes cut"), "{stdout}");
    assert!(stdout.len() < 4096 + 100, "{}", stdout.len());
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
