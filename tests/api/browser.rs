//! The public chat page in a real browser: Debian's Chromium driven headless
//! by playwright-core (`tests/peers/chat-page.mjs`), against the real server
//! on the built-in echo model. Screenshots go to `target/browser-artifacts/`.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::{Options, Server, peers_dir};
use crate::visitors::publish;

#[tokio::test]
async fn a_visitor_chats_with_the_keyboard_and_hostile_markdown_stays_text() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "100"));
    let admin = server.admin();
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
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    eprintln!("{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
}
