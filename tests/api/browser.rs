//! The public chat page in a real browser: Debian's Chromium driven headless
//! by playwright-core (`tests/peers/chat-page.mjs`), against the real server
//! on the built-in echo model: the page itself, a reload mid-answer, and the
//! embed on an allowed and a denied site. Screenshots go to
//! `target/browser-artifacts/`.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::{Options, Server, peers_dir};
use crate::visitors::publish;

#[tokio::test]
async fn a_visitor_chats_on_the_page_and_in_an_allowed_embed_only() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "100"));
    let admin = server.admin();
    // The host pages' port, on the org's allow-list as allowed.localhost.
    let host_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": [format!("http://allowed.localhost:{host_port}")]}),
        )
        .await
        .expect(200);
    publish(
        &admin,
        "browser",
        json!({"greeting": "Hello! Ask me **anything**."}),
    )
    .await;
    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-artifacts");
    let base = server.base.clone();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(peers_dir("playwright-core").join("chat-page.mjs"))
            .arg(base)
            .arg("browser")
            .arg(&artifacts)
            .arg(host_port.to_string())
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    eprintln!("{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
}
