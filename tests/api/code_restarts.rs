//! A code session's preparation after restarts (`computer.md` §7): a
//! `preparing` session's fetch, cut by `kill -9`, begins again from an
//! empty workspace at the next start, three times at most; then the
//! session is `failed`. The repository is a loopback listener that takes
//! the fetch's connection and never answers, so each preparation is
//! still fetching when the server is killed.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;

use crate::common::{Options, Server};

/// Waits for the next fetch to connect; its socket is kept open (and
/// never answered) until the test ends.
async fn next_fetch(listener: &TcpListener, held: &mut Vec<std::net::TcpStream>) {
    let listener = listener.try_clone().unwrap();
    let accepted = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::task::spawn_blocking(move || listener.accept().map(|(stream, _)| stream)),
    )
    .await
    .expect("the preparation fetches the repository");
    held.push(accepted.unwrap().unwrap());
}

#[tokio::test]
async fn an_interrupted_preparation_begins_again_three_times_then_fails() {
    let repository = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = repository.local_addr().unwrap().port();
    let mut held = Vec::new();
    let sandboxes = tempfile::tempdir().unwrap();
    let mut server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("CONFER_SANDBOX_DIR", sandboxes.path().to_str().unwrap()),
    );
    let api = server.admin();
    let agent = api.agent("Coder").await;
    if !crate::computer::sandbox_works(&api, &agent).await {
        return;
    }
    let code_agent = api
        .post(
            "/api/code-agents",
            json!({"agentId": agent, "name": "slow",
                   "repository": {"url": format!("http://127.0.0.1:{port}/app.git")}}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let session = api
        .post("/api/code-sessions", json!({"codeAgentId": code_agent}))
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/code-sessions/{session}");
    for restart in 1..=3 {
        next_fetch(&repository, &mut held).await;
        server = server.kill_and_restart();
        let api = server.admin();
        let read = api.get(&path).await.expect(200);
        assert_eq!(
            read["status"], "preparing",
            "after restart {restart}: {read}"
        );
    }
    // The third preparation begun again is interrupted too: failed.
    next_fetch(&repository, &mut held).await;
    server = server.kill_and_restart();
    let read = server.admin().get(&path).await.expect(200);
    assert_eq!(read["status"], "failed", "{read}");
    let detail = read["status_detail"].as_str().unwrap_or_default();
    assert!(detail.contains("3 times"), "{detail}");
    assert_eq!(held.len(), 4, "each start fetched again");
}
