//! Durable before acknowledged: what a response reported survives SIGKILL
//! taken right after it, and a SIGTERM shuts down cleanly.

use serde_json::json;

use crate::common::Server;

#[tokio::test]
async fn acknowledged_writes_survive_kill_9() {
    let server = Server::start();
    let api = server.admin();
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "Durable", "stablePreamble": "p"}),
        )
        .await
        .expect(201);
    let agent_id = agent["id"].as_str().unwrap().to_owned();
    api.put(
        &format!("/api/agents/{agent_id}/compaction"),
        json!({"enabled": true, "vendorBCompactThreshold": 2000}),
    )
    .await
    .expect(200);
    api.put(
        &format!("/api/agents/{agent_id}/credentials"),
        json!({"enabled": true, "resolverUrl": "https://r.example"}),
    )
    .await
    .expect(200);
    let thread = api
        .thread(
            &agent_id,
            json!({"kind": "multiplayer", "metadata": {"k": "v"}}),
        )
        .await;
    api.post(
        &format!("/api/threads/{thread}/participants"),
        json!({"userId": "u1"}),
    )
    .await
    .expect(201);
    let key = api
        .post("/api/keys", json!({"name": "survivor"}))
        .await
        .expect(201);
    let secret = key["key"].as_str().unwrap().to_owned();
    // The last write is acknowledged; kill -9 at once.
    let patched = api
        .patch(&format!("/api/threads/{thread}"), json!({"title": "final"}))
        .await
        .expect(200);

    let server = server.kill_and_restart();
    let api = server.admin();
    assert_eq!(
        api.get(&format!("/api/agents/{agent_id}"))
            .await
            .expect(200),
        agent
    );
    let compaction = api
        .get(&format!("/api/agents/{agent_id}/compaction"))
        .await
        .expect(200);
    assert_eq!(compaction["vendor_b_compact_threshold"], 2000);
    let credentials = api
        .get(&format!("/api/agents/{agent_id}/credentials"))
        .await
        .expect(200);
    assert_eq!(credentials["resolver_url"], "https://r.example");
    assert_eq!(
        api.get(&format!("/api/threads/{thread}")).await.expect(200),
        patched
    );
    let participants = api
        .get(&format!("/api/threads/{thread}/participants"))
        .await
        .expect(200);
    assert_eq!(participants["participants"][0]["user_id"], "u1");
    server.api(&secret).get("/api/agents").await.expect(200);
}

#[tokio::test]
async fn revocation_survives_kill_9() {
    let server = Server::start();
    let api = server.admin();
    let key = api
        .post("/api/keys", json!({"name": "short-lived"}))
        .await
        .expect(201);
    let secret = key["key"].as_str().unwrap().to_owned();
    api.delete(&format!("/api/keys/{}", key["id"].as_str().unwrap()))
        .await
        .expect(200);
    let server = server.kill_and_restart();
    server
        .api(&secret)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn sigterm_stops_cleanly_and_keeps_data() {
    let mut server = Server::start();
    let agent = server.admin().agent("Graceful").await;
    assert!(server.terminate(), "exit status 0 after SIGTERM");
    assert!(server.logs().contains("store flushed"), "{}", server.logs());
    let server = server.restart();
    server
        .admin()
        .get(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
}

/// A PATCH racing a DELETE never brings the record back (300 races each for
/// threads and agents).
#[tokio::test]
async fn a_patch_racing_a_delete_never_resurrects() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Racing").await;
    let mut resurrected = 0;
    for batch in 0..15 {
        let mut races = Vec::new();
        for i in 0..20 {
            let api = api.clone();
            let agent = agent.clone();
            races.push(tokio::spawn(async move {
                let thread = api.thread(&agent, json!({})).await;
                let victim = api.agent(&format!("victim {batch}.{i}")).await;
                let path = format!("/api/threads/{thread}");
                let agent_path = format!("/api/agents/{victim}");
                let (patch, delete, agent_patch, agent_delete) = tokio::join!(
                    api.patch(&path, json!({"title": "late"})),
                    api.delete(&path),
                    api.patch(&agent_path, json!({"name": "late"})),
                    api.delete(&agent_path),
                );
                assert!(matches!(patch.status.as_u16(), 200 | 404), "{patch:?}");
                assert!(matches!(agent_patch.status.as_u16(), 200 | 404));
                assert_eq!(delete.status, 200);
                assert_eq!(agent_delete.status, 200);
                let thread_back = api.get(&path).await.status != 404;
                let agent_back = api.get(&agent_path).await.status != 404;
                usize::from(thread_back) + usize::from(agent_back)
            }));
        }
        for race in races {
            resurrected += race.await.unwrap();
        }
    }
    assert_eq!(resurrected, 0, "records came back after their delete");
}

#[tokio::test]
async fn key_use_is_recorded_and_survives_a_clean_shutdown() {
    let mut server = Server::start();
    let created = server
        .admin()
        .post("/api/keys", json!({"name": "used"}))
        .await
        .expect(201);
    assert!(created["last_used_at"].is_null());
    server
        .api(created["key"].as_str().unwrap())
        .get("/api/agents")
        .await
        .expect(200);
    assert!(server.terminate());
    let server = server.restart();
    let keys = server.admin().get("/api/keys").await.expect(200);
    let key = keys
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == created["id"])
        .unwrap()
        .clone();
    assert!(key["last_used_at"].is_string(), "{key}");
}

#[test]
fn a_taken_port_is_one_line_and_exit_code_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let data = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
        .arg("serve")
        .env_clear()
        .env("CONFER_BIND", format!("127.0.0.1:{port}"))
        .env("CONFER_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot listen on"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Nothing was created: the next start makes the first key and prints it.
    assert!(
        !data.path().join("db").exists(),
        "the store is opened only after the bind"
    );
    assert!(String::from_utf8_lossy(&output.stdout).is_empty());
}

/// A 1 MiB OpenAI answer streamed in 16 KiB pieces.
pub fn large_answer() -> (String, String) {
    openai_answer(64, 16 * 1024)
}

/// An OpenAI-compatible streamed answer of `pieces` text deltas of
/// `piece_bytes` each: the SSE body and the whole text.
pub fn openai_answer(pieces: usize, piece_bytes: usize) -> (String, String) {
    let piece: String = "lorem ipsum dolor sit amet "
        .chars()
        .cycle()
        .take(piece_bytes)
        .collect();
    let mut sse = String::new();
    let chunk = |delta: serde_json::Value, usage: serde_json::Value| {
        let choices = if delta.is_null() {
            json!([])
        } else {
            json!([{"index": 0, "delta": delta, "finish_reason": null}])
        };
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
                   "model": "gpt-4.1", "choices": choices, "usage": usage})
        )
    };
    sse.push_str(&chunk(
        json!({"role": "assistant", "content": ""}),
        json!(null),
    ));
    for _ in 0..pieces {
        sse.push_str(&chunk(json!({"content": piece}), json!(null)));
    }
    sse.push_str(&format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null})
    ));
    sse.push_str(&chunk(
        json!(null),
        json!({"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}),
    ));
    sse.push_str("data: [DONE]\n\n");
    (sse, piece.repeat(pieces))
}

/// 20 rounds: four 250 KiB messages answered with 1 MiB each are
/// acknowledged (`done`), two more are in flight, then SIGKILL. Every
/// acknowledged message and answer is found whole after the restart.
#[tokio::test]
async fn large_acknowledged_turns_survive_kill_9_under_load() {
    use crate::mock::{Mock, Reply};
    let vendor = Mock::start("/v1").await;
    let (stream, answer) = large_answer();
    let mut server = Server::start_with(
        crate::common::Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform"),
    );
    let agent = server
        .admin()
        .agent_with(json!({"name": "Bulk", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let mut acknowledged: Vec<(String, String)> = Vec::new();
    for round in 0..20 {
        let api = server.admin();
        for _ in 0..6 {
            vendor.push(Reply::stream(stream.clone()));
        }
        let mut sends = Vec::new();
        for n in 0..6 {
            let api = api.clone();
            let agent = agent.clone();
            let content = format!("r{round}n{n} {}", "q".repeat(250 * 1024));
            sends.push(tokio::spawn(async move {
                let thread = api.thread(&agent, json!({})).await;
                let frames = api.say(&thread, json!({"content": content})).await;
                (thread, content, frames)
            }));
        }
        // The first four are awaited to their `done`; the last two are cut.
        let in_flight = sends.split_off(4);
        for send in sends {
            let (thread, content, frames) = send.await.unwrap();
            let done = crate::common::done_of(&frames);
            let errors: Vec<_> = frames
                .iter()
                .filter(|f| f.event == "error")
                .map(|f| f.data.clone())
                .collect();
            assert_eq!(done["ok"], true, "round {round}: {errors:?}");
            acknowledged.push((thread, content));
        }
        server = server.kill_and_restart();
        for send in in_flight {
            send.abort();
        }
        // Leftover scripted answers would only be popped by later sends.
        let api = server.admin();
        for (thread, content) in &acknowledged[acknowledged.len() - 4..] {
            let history = api.history(thread).await;
            assert_eq!(history.len(), 2, "round {round}: {thread}");
            assert!(
                history[0]["content"].as_str().unwrap() == content,
                "round {round}: the message is whole"
            );
            assert!(
                history[1]["content"].as_str().unwrap() == answer,
                "round {round}: the answer is whole"
            );
        }
    }
    // And all of them still, at the end.
    let api = server.admin();
    for (thread, content) in &acknowledged {
        let history = api.history(thread).await;
        assert!(history[0]["content"].as_str().unwrap() == content);
        assert_eq!(history[1]["content"].as_str().unwrap().len(), answer.len());
    }
    // The long values are files of their own (synced before their records),
    // not sled values.
    let filed = std::fs::read_dir(server.data_dir().join("values"))
        .unwrap()
        .count();
    assert!(
        filed >= acknowledged.len(),
        "{filed} threads have value files"
    );
}
