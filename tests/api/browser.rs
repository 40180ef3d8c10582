//! The public chat page and the operator console in a real browser:
//! Debian's Chromium driven headless by playwright-core
//! (`tests/peers/chat-page.mjs`, `tests/peers/console.mjs`), against the
//! real server on the built-in echo model: the page itself, a reload
//! mid-answer, the embed on an allowed and a denied site, and the console's
//! sign-in, agents, chat, logs and analytics. Screenshots go to
//! `target/browser-artifacts/`.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::{BOOTSTRAP_KEY, Options, Server, peers_dir};
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
    // The reload test's server: 200 ms per token (publishing.md
    // "Acceptance" 3).
    let slow = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "200"));
    let slow_agent = publish(&slow.admin(), "browser", json!({"greeting": "Hi."})).await;
    drive(
        "chat-page.mjs",
        vec![
            server.base.clone(),
            "browser".into(),
            artifacts(),
            host_port.to_string(),
            slow.base.clone(),
        ],
    )
    .await;
    // The reloaded answer is stored once.
    let threads = slow
        .admin()
        .get(&format!("/api/threads?agentId={slow_agent}"))
        .await
        .expect(200);
    assert_eq!(threads["threads"].as_array().unwrap().len(), 1, "{threads}");
    let thread = threads["threads"][0]["id"].as_str().unwrap();
    let history = slow
        .admin()
        .get(&format!("/api/threads/{thread}/messages"))
        .await
        .expect(200);
    let roles: Vec<&str> = history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant"], "{history}");
}

/// `target/browser-artifacts/`, where the scripts write their screenshots.
fn artifacts() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/browser-artifacts")
        .display()
        .to_string()
}

/// Runs the browser script `script` of `tests/peers/` with `args`; it
/// prints what it saw and exits non-zero on a broken expectation.
async fn drive(script: &'static str, args: Vec<String>) {
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(peers_dir("playwright-core").join(script))
            .args(args)
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    eprintln!("{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
}

#[tokio::test]
async fn an_operator_signs_in_to_the_console_and_chats() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "100"));
    drive(
        "console.mjs",
        vec![server.base.clone(), BOOTSTRAP_KEY.into(), artifacts()],
    )
    .await;
}

/// `runners.md` "Acceptance" 7: a runner's button embedded by its snippet
/// on an allowed origin, its form from the schema, a suggestion, the
/// streamed echo, a `<script>` shown as text, and a denied origin.
#[tokio::test]
async fn a_runner_button_embeds_fills_and_streams() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "60"));
    let admin = server.admin();
    let host_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let allowed = format!("http://allowed.localhost:{host_port}");
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": [allowed,
                                           format!("http://denied.localhost:{host_port}")]}),
        )
        .await
        .expect(200);
    let agent = admin.agent("Explainer").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Explain",
                   "instructions": "Explain {{ input.topic }} in a {{ input.tone }} tone.",
                   "inputSchema": {"type": "object", "required": ["topic"], "properties": {
                       "topic": {"type": "string", "title": "Topic"},
                       "tone": {"enum": ["plain", "fun"]},
                       "detailed": {"type": "boolean"},
                       "count": {"type": "integer"},
                       "extra": {"type": "object"}}}}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let suggestion = json!({"topic": "<script>window.__pwned=1</script> tides", "tone": "fun",
                            "detailed": true, "count": 3, "extra": {"depth": 1}});
    admin
        .put(
            &format!("/api/runners/{runner}/suggestions"),
            json!({"suggestions": [{"label": "Tides", "input": suggestion}]}),
        )
        .await
        .expect(200);
    // Only the allowed host may frame it (the denied one is on the org's
    // list, not the button's).
    admin
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "button", "title": "Explain it", "allowedOrigins": [allowed]}),
        )
        .await
        .expect(201);
    drive(
        "runner-button.mjs",
        vec![
            server.base.clone(),
            runner.clone(),
            artifacts(),
            host_port.to_string(),
        ],
    )
    .await;
    // The page sent what the suggestion filled in, typed by the schema.
    let runs = admin
        .get(&format!("/api/runners/{runner}/runs"))
        .await
        .expect(200);
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    assert_eq!(runs[0]["input"], suggestion, "{runs}");
    assert_eq!(runs[0]["trigger"]["kind"], "button");
}
