//! A local sandbox's allow-list (`computer.md` §4 rule 5, Acceptance 4):
//! commands reach a listed loopback server only through `HTTPS_PROXY` /
//! `HTTP_PROXY` (the helper's relay to Confer's egress proxy), by
//! `CONNECT` or absolute-form HTTP; another port of the same host is
//! refused with 403, and nothing is reached directly.

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::common::{Options, Server};
use crate::computer::{run, sandbox_works};
use crate::mock::Mock;

/// A loopback HTTP server answering `body` to anything; its port.
async fn answering(body: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = [0u8; 4096];
                let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut head).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn an_allow_list_reaches_its_server_through_the_proxy_and_nothing_else() {
    let (listed, other) = (answering("listed").await, answering("other").await);
    let vendor = Mock::start("/v1").await;
    let sandboxes = tempfile::tempdir().unwrap();
    // The outbound policy lets loopback through; the sandbox's own list is
    // what refuses the other port.
    let server = Server::start_with(
        Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-openai")
            .env("CONFER_SANDBOX_DIR", sandboxes.path().to_str().unwrap())
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"),
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Fetcher", "defaultModel": "openai/gpt-4.1"}))
        .await;
    if !sandbox_works(&api, &agent).await {
        return;
    }
    api.put(
        &format!("/api/agents/{agent}/computer"),
        json!({"enabled": true,
               "network": {"mode": "allowlist", "allow": [format!("127.0.0.1:{listed}")]}}),
    )
    .await
    .expect(200);
    let thread = api.thread(&agent, json!({})).await;

    let tunnelled = run(
        &api,
        &vendor,
        &thread,
        &format!("echo $HTTPS_PROXY; curl -sS -p http://127.0.0.1:{listed}/"),
    )
    .await;
    assert_eq!(
        tunnelled["stdout"], "http://127.0.0.1:3128\nlisted",
        "{tunnelled}"
    );
    let absolute = run(
        &api,
        &vendor,
        &thread,
        &format!(
            "python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{listed}/x').read().decode())\""
        ),
    )
    .await;
    assert_eq!(absolute["stdout"], "listed\n", "{absolute}");
    let refused = run(
        &api,
        &vendor,
        &thread,
        &format!("curl -sS -p http://127.0.0.1:{other}/"),
    )
    .await;
    assert_ne!(refused["exit_code"], 0, "{refused}");
    assert!(
        refused["stderr"].as_str().unwrap().contains("403"),
        "{refused}"
    );
    let direct = run(
        &api,
        &vendor,
        &thread,
        &format!("curl -sS --noproxy '*' http://127.0.0.1:{listed}/"),
    )
    .await;
    assert_ne!(direct["exit_code"], 0, "{direct}");
}
