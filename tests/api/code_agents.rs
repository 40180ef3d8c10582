//! Code agents (`computer.md` §5): rules and defaults, a token never
//! answered and forgotten with its URL, archives checked, kept, replaced,
//! the org's cap; an archive's session has its snapshot commit and its
//! allowed commands guard `computer_run`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::code_helpers::{keyed_create, settled, tool_results, turn};
use crate::common::{Options, Server};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::tars::{raw_tar, tar, tar_gz};

fn kept_archives(server: &Server, org: &str) -> Vec<String> {
    let dir = server.data_dir().join("code-archives/files").join(org);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test]
async fn a_code_agent_keeps_its_rules_and_never_answers_its_token() {
    let server = Server::start();
    let root = server.admin();
    let agent = root.agent("coder").await;
    let created = root
        .post(
            "/api/code-agents",
            json!({"agentId": agent, "name": "fixer",
                   "repository": {"url": "https://git.example/r.git", "branch": "main",
                                  "depth": 1, "token": "tok-MARKER-7731"},
                   "allowedCommands": ["cargo test *"],
                   "computer": {"sizeClass": "medium", "maxCommandSecs": 120}}),
        )
        .await
        .expect(201);
    assert!(
        !created.to_string().contains("tok-MARKER-7731"),
        "{created}"
    );
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["agent_id"], agent.as_str());
    assert_eq!(created["repository"]["kind"], "git");
    assert_eq!(created["repository"]["has_token"], true);
    assert_eq!(created["repository"]["branch"], "main");
    assert_eq!(created["max_steps"], 50);
    assert_eq!(created["setup_timeout_secs"], 600);
    assert_eq!(created["turn_timeout_mins"], 60);
    assert_eq!(created["computer"]["size_class"], "medium");
    assert_eq!(created["computer"]["max_command_secs"], 120);
    assert!(created["computer"].get("enabled").is_none());

    let listed = root.get("/api/code-agents").await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let read = root
        .get(&format!("/api/code-agents/{id}"))
        .await
        .expect(200);
    assert_eq!(read, created);

    // Each rule names its field; nothing is changed by a refusal.
    let path = format!("/api/code-agents/{id}");
    for (body, field) in [
        (json!({"maxSteps": 201}), "maxSteps"),
        (json!({"computer": {"enabled": true}}), "computer.enabled"),
        (
            json!({"allowedCommands": ["ls", "* x"]}),
            "allowedCommands[1]",
        ),
        (
            json!({"repository": {"url": "ssh://git@git.example/r.git"}}),
            "repository.url",
        ),
        (
            json!({"repository": {"url": "file:///etc"}}),
            "repository.url",
        ),
        (
            json!({"agentId": "0190d1f2-0000-7000-8000-000000000000"}),
            "agentId",
        ),
    ] {
        let detail = root
            .patch(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{field}: {detail}");
    }
    assert_eq!(root.get(&path).await.expect(200), created);
    let unknown = root
        .post(
            "/api/code-agents",
            json!({"agentId": "0190d1f2-0000-7000-8000-000000000000", "name": "x",
                   "repository": {"url": "https://git.example/r.git"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(unknown.starts_with("agentId"), "{unknown}");

    // The same URL keeps the token; another forgets it.
    let same = root
        .patch(
            &path,
            json!({"repository": {"url": "https://git.example/r.git"}, "maxSteps": 80}),
        )
        .await
        .expect(200);
    assert_eq!(same["repository"]["has_token"], true);
    assert_eq!(same["max_steps"], 80);
    let moved = root
        .patch(
            &path,
            json!({"repository": {"url": "https://elsewhere.example/r.git"}}),
        )
        .await
        .expect(200);
    assert_eq!(moved["repository"]["has_token"], false);
    let cleared = root
        .patch(&path, json!({"allowedCommands": null}))
        .await
        .expect(200);
    assert_eq!(cleared["allowed_commands"], Value::Null);

    root.delete(&path).await.expect(200);
    root.get(&path).await.expect_error(404, "NOT_FOUND");
    root.delete(&path).await.expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn archives_are_checked_kept_replaced_and_capped() {
    let server =
        Server::start_with(Options::default().env("CONFER_CODE_ARCHIVE_MAX_BYTES", "65536"));
    let root = server.admin();
    let org = root.org_id().await;
    let agent = root.agent("coder").await;
    let config = json!({"agentId": agent, "name": "snapshot"}).to_string();
    let clean = tar_gz(&[
        ("README.md", b"hello\n"),
        ("src/main.rs", b"fn main() {}\n"),
    ]);
    let created = root
        .multipart_parts(
            "/api/code-agents",
            &[("config", &config)],
            &[("archive", "src.tar.gz", &clean)],
        )
        .await
        .expect(201);
    let id = created["id"].as_str().unwrap().to_owned();
    let archive = &created["repository"]["archive"];
    assert_eq!(created["repository"]["kind"], "archive");
    assert_eq!(archive["filename"], "src.tar.gz");
    assert_eq!(archive["bytes"], clean.len());
    assert_eq!(archive["sha256"].as_str().unwrap().len(), 64);
    let first = kept_archives(&server, &org);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].starts_with(&id) && first[0].ends_with(".tar.gz"));

    // Unsafe entries, other formats and an oversized upload keep nothing.
    for (bytes, expected) in [
        (raw_tar("../x"), "archive: ../x: a `..` path"),
        (
            raw_tar("/etc/cron.d/x"),
            "archive: /etc/cron.d/x: an absolute path",
        ),
        (b"just text".to_vec(), "archive: not a tar, tar.gz or zip"),
    ] {
        let detail = root
            .multipart_parts(
                "/api/code-agents",
                &[("config", &config)],
                &[("archive", "bad.tar", &bytes)],
            )
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert_eq!(detail, expected);
    }
    // Bytes that do not compress (xorshift), so the upload is large.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    let big = tar_gz(&[("noise.bin", &noise)]);
    assert!(big.len() > 65_536);
    let too_big = root
        .multipart_parts(
            "/api/code-agents",
            &[("config", &config)],
            &[("archive", "big.tar.gz", &big)],
        )
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    assert!(
        too_big.contains("CONFER_CODE_ARCHIVE_MAX_BYTES"),
        "{too_big}"
    );
    let with_url = json!({"agentId": agent, "name": "both",
                          "repository": {"url": "https://git.example/r.git"}})
    .to_string();
    root.multipart_parts(
        "/api/code-agents",
        &[("config", &with_url)],
        &[("archive", "src.tar.gz", &clean)],
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(kept_archives(&server, &org), first);
    assert_eq!(
        std::fs::read_dir(server.data_dir().join("code-archives/tmp"))
            .unwrap()
            .count(),
        0
    );

    // A new archive replaces the kept file; a git URL removes it.
    let path = format!("/api/code-agents/{id}");
    let newer = tar_gz(&[("README.md", b"changed\n")]);
    let replaced = root
        .multipart_as(
            Method::PATCH,
            &path,
            &[],
            &[("archive", "v2.tar.gz", &newer)],
        )
        .await
        .expect(200);
    assert_eq!(replaced["repository"]["archive"]["filename"], "v2.tar.gz");
    assert_eq!(replaced["name"], "snapshot");
    let second = kept_archives(&server, &org);
    assert_eq!(second.len(), 1);
    assert_ne!(second, first);
    let git = root
        .patch(
            &path,
            json!({"repository": {"url": "https://git.example/r.git"}}),
        )
        .await
        .expect(200);
    assert_eq!(git["repository"]["kind"], "git");
    assert_eq!(git["repository"]["archive"], Value::Null);
    assert!(kept_archives(&server, &org).is_empty());

    // The org's cap: 100 code agents, then 409.
    let body = json!({"agentId": agent, "name": "n",
                      "repository": {"url": "https://git.example/r.git"}});
    let mut count = 1;
    while count < 100 {
        root.post("/api/code-agents", body.clone())
            .await
            .expect(201);
        count += 1;
    }
    root.post("/api/code-agents", body)
        .await
        .expect_error(409, "CONFLICT");
    let listed = root.get("/api/code-agents").await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 100);
    assert_eq!(listed[0]["id"], id.as_str(), "oldest first");
}

#[tokio::test]
async fn an_archive_session_is_committed_and_its_commands_are_guarded() {
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env("CONFER_SANDBOX_MAX_INSTANCES_PER_ORG", "1")
            .env("CONFER_SANDBOX_DIR", sandboxes.path().to_str().unwrap()),
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Coder", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !crate::computer::sandbox_works(&api, &agent).await {
        return;
    }
    let config = json!({"agentId": agent, "name": "snapshot",
                        "allowedCommands": ["cargo test *", "git log *"]})
    .to_string();
    let archive = tar(&[
        ("src/lib.rs", b"pub fn f() {}\n"),
        ("Cargo.toml", b"[package]\n"),
    ]);
    let code_agent = api
        .multipart_parts(
            "/api/code-agents",
            &[("config", &config)],
            &[("archive", "crate.tar", &archive)],
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Keyed: racing creations and a retry make one session; the key with
    // another body is refused.
    let keyed =
        |title: &'static str| keyed_create(&server.base, &code_agent, "session-once", title);
    let racing: Vec<_> = (0..4).map(|_| tokio::spawn(keyed("Once"))).collect();
    let mut answers = Vec::new();
    for answer in racing {
        answers.push(answer.await.unwrap());
    }
    answers.push(keyed("Once").await);
    let ids: std::collections::HashSet<&str> = answers
        .iter()
        .map(|(status, _, body)| {
            assert_eq!(*status, 201, "{body}");
            body["id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(ids.len(), 1, "{answers:?}");
    let replays = answers.iter().filter(|(_, replayed, _)| *replayed).count();
    assert_eq!(replays, answers.len() - 1, "{answers:?}");
    let (status, _, reused) = keyed("Another").await;
    assert_eq!(status, 422, "{reused}");
    assert_eq!(reused["error"], "IDEMPOTENCY_KEY_REUSED");
    let session = ids.into_iter().next().unwrap().to_owned();
    let listed = api
        .get(&format!("/api/code-sessions?codeAgentId={code_agent}"))
        .await
        .expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let ready = settled(&api, &session, "preparing").await;
    assert_eq!(ready["status"], "idle", "{ready}");
    assert_eq!(ready["base_commit"].as_str().unwrap().len(), 40);

    for (n, command) in [
        "git log --format=%s",
        "cargo test -p x",
        "ls",
        "cargo test; id",
    ]
    .iter()
    .enumerate()
    {
        vendor.push(Reply::stream(openai_tool_call(
            &format!("call_{n}"),
            "computer_run",
            &json!({"command": command}),
        )));
    }
    vendor.push(Reply::stream(openai_answer("Done.", 5)));
    let frames = turn(&api, &session, "Look around.").await;
    assert_eq!(frames.last().unwrap().data["ok"], true);
    let results = tool_results(&vendor);
    assert_eq!(results.len(), 4, "{results:?}");
    assert_eq!(
        results[0]["stdout"], "confer: initial snapshot\n",
        "{}",
        results[0]
    );
    // Allowed, so it ran (cargo may be absent from the sandbox: then 127).
    assert!(results[1].get("exit_code").is_some(), "{}", results[1]);
    for refused in &results[2..] {
        let error = refused["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("command not allowed: "), "{refused}");
    }
    // The org's one instance runs: another session is refused (§6.3).
    let second = api.post("/api/code-sessions", json!({"codeAgentId": code_agent}));
    let refused = second.await.expect(409);
    assert!(
        refused["detail"].as_str().unwrap().contains("cap"),
        "{refused}"
    );
    // Deleting the code agent archives its sessions; they stay readable.
    api.delete(&format!("/api/code-agents/{code_agent}"))
        .await
        .expect(200);
    let read = api
        .get(&format!("/api/code-sessions/{session}"))
        .await
        .expect(200);
    assert_eq!(read["status"], "archived");
    // A retry of the keyed creation still answers the first session,
    // whatever became of its code agent since.
    let (status, replayed, again) = keyed("Once").await;
    assert_eq!((status, replayed), (201, true), "{again}");
    assert_eq!(again["id"], session.as_str());
}
