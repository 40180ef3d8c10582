//! Computer use (`computer.md` acceptance 4–5): the containment cases end
//! as error results with the server healthy, and no secret of Confer is
//! readable inside the sandbox.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::computer::{call, run, sandbox_works, server};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};

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
