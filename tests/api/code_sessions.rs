//! Code sessions (`computer.md` §6, acceptance 8): a bare repository
//! behind Debian git's `git http-backend` on loopback, fetched on the host
//! with its token as a header; setup in a real bubblewrap sandbox; a
//! scripted model edits `README.md` and runs `git status`; the diff shows
//! it; a cancel during `sleep 300` ends at once and keeps the workspace;
//! archive stores the diff and frees the sandbox; the session's thread is
//! hidden and read-only. (An archive's session: `code_agents`.)

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::code_helpers::{settled, tool_results, turn};
use crate::common::{Options, Server};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::skills_git::{GitHost, git};

/// Every file under `dir` holding `marker`.
fn files_holding(dir: &std::path::Path, marker: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && std::fs::read(&path)
                    .is_ok_and(|bytes| bytes.windows(marker.len()).any(|w| w == marker))
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test]
async fn a_session_fetches_sets_up_edits_diffs_cancels_and_archives() {
    let root = tempfile::tempdir().unwrap();
    let (bare, work) = (root.path().join("app.git"), root.path().join("work"));
    git(
        root.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    git(
        root.path(),
        &["init", "-q", "-b", "main", work.to_str().unwrap()],
    );
    std::fs::write(work.join("README.md"), "hello\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "one"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "main"]);
    git(&bare, &["symbolic-ref", "HEAD", "refs/heads/main"]);
    let served_head = git(&work, &["rev-parse", "HEAD"]);
    let host = GitHost::start(root.path()).await;

    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env("CONFER_SANDBOX_DIR", sandboxes.path().to_str().unwrap()),
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Coder", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !crate::computer::sandbox_works(&api, &agent).await {
        return;
    }
    let code_agent = api
        .post(
            "/api/code-agents",
            json!({"agentId": agent, "name": "app",
                   "repository": {"url": host.repository("app.git"), "token": "tok-CODE-5521"},
                   "setupCommand": "touch .setup-done && echo set up"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let created = api
        .post(
            "/api/code-sessions",
            json!({"codeAgentId": code_agent, "title": "Say bye"}),
        )
        .await
        .expect(201);
    assert_eq!(created["status"], "preparing");
    let session = created["id"].as_str().unwrap().to_owned();
    let thread = created["thread_id"].as_str().unwrap().to_owned();
    // Preparing is the thread's first turn: meta, the statuses, done.
    let mut events = api
        .open_get(&format!("/api/code-sessions/{session}/events?after=0.0"))
        .await;
    assert_eq!(events.status, 200);
    let mut prepare = Vec::new();
    while let Some(frame) = events.next().await {
        let done = frame.event == "done";
        prepare.push((frame.event, frame.data));
        if done {
            break;
        }
    }
    let names: Vec<&str> = prepare.iter().map(|(name, _)| name.as_str()).collect();
    // The setup is a streamed `computer_run` of that turn.
    assert_eq!(
        names,
        [
            "watching",
            "meta",
            "session_status",
            "tool_executing",
            "tool_output",
            "tool_result",
            "session_status",
            "done"
        ],
        "{prepare:?}"
    );
    assert_eq!(prepare[1].1["turnKind"], "prepare");
    assert_eq!(prepare[2].1["status"], "preparing");
    assert_eq!(prepare[3].1["tool_name"], "computer_run");
    assert_eq!(prepare[4].1["delta"], "set up\n");
    assert_eq!(prepare[5].1["result"]["exit_code"], 0, "{prepare:?}");
    assert_eq!(prepare[6].1["status"], "idle");
    assert_eq!(prepare[6].1["baseCommit"], served_head.as_str());
    assert_eq!(prepare[7].1["ok"], true);
    let ready = settled(&api, &session, "preparing").await;
    assert_eq!(ready["status"], "idle", "{ready}");
    assert_eq!(ready["base_commit"], served_head.as_str());
    assert_eq!(ready["status_detail"], Value::Null);
    assert_eq!(ready["branch"], Value::Null);
    let requests = host.requests().await;
    assert!(
        requests
            .iter()
            .any(|l| l.contains("git-upload-pack") && l.contains("Basic ")),
        "the fetch carries its token as a header: {requests:?}"
    );

    // The thread is the session's: unlisted, and driven only through it.
    let listed = api
        .get(&format!("/api/threads?agentId={agent}"))
        .await
        .expect(200);
    assert!(!listed.to_string().contains(&thread), "{listed}");
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "hi"}),
    )
    .await
    .expect_error(409, "CONFLICT");

    // An edit and a command: the setup ran, the change shows in the diff.
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "computer_edit",
        &json!({"command": "str_replace", "path": "README.md", "old_str": "hello", "new_str": "bye"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_2",
        "computer_run",
        &json!({"command": "git status --short && ls -a"}),
    )));
    vendor.push(Reply::stream(openai_answer("Done.", 5)));
    let frames = turn(&api, &session, "Say bye instead of hello.").await;
    assert_eq!(
        frames.last().unwrap().data["ok"],
        true,
        "{:?}",
        frames.last()
    );
    // The session's status rides the turn: running after meta, idle
    // just before done.
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(names[..2], ["meta", "session_status"], "{names:?}");
    assert_eq!(frames[1].data["status"], "running");
    assert_eq!(frames[1].data["sessionId"], session.as_str());
    let before_done = &frames[frames.len() - 2];
    assert_eq!(before_done.event, "session_status", "{names:?}");
    assert_eq!(before_done.data["status"], "idle");
    let results = tool_results(&vendor);
    assert_eq!(results.len(), 2, "{results:?}");
    let status = results[1]["stdout"].as_str().unwrap();
    assert!(status.contains(" M README.md"), "{status}");
    assert!(status.contains(".setup-done"), "{status}");
    let offered = vendor.requests().pop().unwrap().body.to_string();
    assert!(offered.contains("Base commit: "), "the overlay is sent");
    let idle = settled(&api, &session, "running").await;
    assert_eq!(idle["status"], "idle");
    let diff = api
        .get(&format!("/api/code-sessions/{session}/diff"))
        .await
        .expect(200);
    assert_eq!(diff["source"], "live");
    assert_eq!(diff["base_commit"], served_head.as_str());
    // Untracked files count: the setup's marker is new.
    assert_eq!(
        diff["files"],
        json!([{"path": ".setup-done", "status": "added", "additions": 0, "deletions": 0},
               {"path": "README.md", "status": "modified", "additions": 1, "deletions": 1}]),
        "{diff}"
    );
    assert!(diff["diff"].as_str().unwrap().contains("+bye"), "{diff}");
    // The token never reached the sandbox's files.
    assert!(
        files_holding(sandboxes.path(), b"tok-CODE-5521").is_empty(),
        "the token is in the workspace"
    );

    // Completed: the sandbox stops, the workspace stays; a message reopens.
    // A follower is told, without an id (its last id stays the turn's).
    let mut watching = api
        .open_get(&format!("/api/code-sessions/{session}/events"))
        .await;
    assert_eq!(watching.next().await.unwrap().event, "watching");
    let path = format!("/api/code-sessions/{session}");
    let completed = api
        .patch(&path, json!({"status": "completed"}))
        .await
        .expect(200);
    assert_eq!(completed["status"], "completed");
    let told = tokio::time::timeout(Duration::from_secs(10), watching.next())
        .await
        .expect("the follower is told of the change")
        .unwrap();
    assert_eq!(
        (told.event.as_str(), told.id.as_deref()),
        ("session_status", None),
        "{told:?}"
    );
    assert_eq!(told.data["status"], "completed");
    assert_eq!(told.data["sessionId"], session.as_str());
    drop(watching);
    let computer = api
        .get(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200);
    assert_eq!(computer["instance"]["state"], "stopped", "{computer}");
    assert_eq!(computer["instance"]["stop_reason"], "completed");
    let refused = api
        .patch(&path, json!({"status": "running"}))
        .await
        .expect_error(409, "CONFLICT");
    assert!(refused.contains("completed"), "{refused}");

    // A cancel during a long command ends it at once, the workspace kept.
    vendor.push(Reply::stream(openai_tool_call(
        "call_3",
        "computer_run",
        &json!({"command": "sleep 300", "timeout": 300}),
    )));
    let mut events = api
        .open_get(&format!("/api/code-sessions/{session}/events"))
        .await;
    // Keyed: a repeat answers the first turn; another body is refused.
    let messages = format!("/api/code-sessions/{session}/messages");
    let keyed = |content: &str| {
        api.request_with(
            reqwest::Method::POST,
            &messages,
            Some(json!({"content": content})),
            &[("idempotency-key", "wait-1")],
        )
    };
    let first = keyed("wait").await.expect(202);
    let again = keyed("wait").await.expect(202);
    assert_eq!(again["turn"], first["turn"]);
    keyed("something else")
        .await
        .expect_error(422, "IDEMPOTENCY_KEY_REUSED");
    while let Some(frame) = events.next().await {
        if frame.event == "tool_executing" {
            break;
        }
    }
    let asked = Instant::now();
    let cancelled = api
        .post(&format!("/api/code-sessions/{session}/cancel"), json!({}))
        .await
        .expect(200);
    assert_eq!(cancelled["cancelled"], true);
    while let Some(frame) = events.next().await {
        if frame.event == "done" {
            break;
        }
    }
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    let idle = settled(&api, &session, "running").await;
    assert_eq!(idle["status"], "idle");

    // Archive: the diff stored, the sandbox gone, no more messages; the
    // events stream says so and ends.
    let archived = api
        .post(&format!("/api/code-sessions/{session}/archive"), json!({}))
        .await
        .expect(200);
    assert_eq!(archived["status"], "archived");
    let last = tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("the follower is told of the archive")
        .unwrap();
    assert_eq!(
        (last.event.as_str(), last.id.as_deref()),
        ("session_status", None),
        "{last:?}"
    );
    assert_eq!(last.data["status"], "archived");
    let after = tokio::time::timeout(Duration::from_secs(10), events.next()).await;
    assert!(
        matches!(after, Ok(None)),
        "the stream ends after archived: {after:?}"
    );
    let mut again = api
        .open_get(&format!("/api/code-sessions/{session}/events"))
        .await;
    assert_eq!(again.status, 200);
    let only = again.next().await.unwrap();
    assert_eq!(
        (only.event.as_str(), only.data["status"].as_str()),
        ("session_status", Some("archived"))
    );
    assert!(again.next().await.is_none());
    assert!(archived["archived_at"].is_string());
    let stored = api
        .get(&format!("/api/code-sessions/{session}/diff"))
        .await
        .expect(200);
    assert_eq!(stored["source"], "stored");
    assert_eq!(stored["files"][1]["path"], "README.md");
    let instance = api.get(&format!("/api/threads/{thread}/computer")).await;
    assert_ne!(instance.status.as_u16(), 500);
    api.post(
        &format!("/api/code-sessions/{session}/messages"),
        json!({"content": "more"}),
    )
    .await
    .expect_error(409, "CONFLICT");
    api.post(&format!("/api/code-sessions/{session}/archive"), json!({}))
        .await
        .expect(200);
    let listed = api
        .get(&format!(
            "/api/code-sessions?codeAgentId={code_agent}&status=archived"
        ))
        .await
        .expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
}
