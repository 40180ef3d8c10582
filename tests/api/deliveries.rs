//! Completion webhooks (`runners.md` Completion webhooks) against the real
//! server and a real receiver: pytest-httpserver on allow-listed loopback
//! answers 500 then 204, and the Standard Webhooks reference library
//! (PyPI `standardwebhooks`) verifies both attempts; a URL the outbound
//! policy refuses fails its delivery at once with the policy's reason.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Options, Server, eventually};

/// The receiver process, its stdin (the secret goes there) and its lines.
struct Receiver {
    child: Child,
    port: u16,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl Receiver {
    fn start() -> Self {
        let peers = crate::common::peers_dir("playwright-core");
        let mut child = Command::new(peers.join(".venv/bin/python"))
            .arg(peers.join("webhook-receiver.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("the receiver said {line:?}"))
            .parse()
            .unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = send.send(serde_json::from_str(&line).unwrap());
            }
        });
        Self { child, port, lines }
    }

    fn secret(&mut self, secret: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{secret}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self, within: Duration) -> Value {
        self.lines
            .recv_timeout(within)
            .expect("a delivery within the time")
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_delivery_is_retried_after_a_500_and_verified_by_standard_webhooks() {
    let mut receiver = Receiver::start();
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"));
    let admin = server.admin();
    let agent = admin.agent("Reporter").await;
    let url = format!("http://127.0.0.1:{}/hook", receiver.port);
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Report", "instructions": "Report {{ input.x }}",
                   "completionWebhook": {"url": url, "events": ["run.succeeded"]}}),
        )
        .await
        .expect(201);
    let secret = runner["webhook_secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_"), "{runner}");
    receiver.secret(secret);
    let id = runner["id"].as_str().unwrap().to_owned();
    let got = admin.get(&format!("/api/runners/{id}")).await.expect(200);
    assert!(got.get("webhook_secret").is_none(), "shown once");

    let run = admin
        .post(
            &format!("/api/runners/{id}/runs"),
            json!({"input": {"x": 1}}),
        )
        .await
        .expect(201);
    let run_id = run["id"].as_str().unwrap().to_owned();
    let first = receiver.next(Duration::from_secs(20));
    let second = receiver.next(Duration::from_secs(20));
    for attempt in [&first, &second] {
        assert_eq!(attempt["verified"], true, "{attempt}");
        assert_eq!(attempt["type"], "run.succeeded");
    }
    assert_eq!(first["id"], second["id"], "one webhook-id on every attempt");
    let gap = second["at"].as_f64().unwrap() - first["at"].as_f64().unwrap();
    assert!(gap >= 4.5, "the retry came {gap} s after the first attempt");

    let log = eventually(Duration::from_secs(10), "the delivery logged", async || {
        let log = admin
            .get(&format!("/api/runners/{id}/deliveries?runId={run_id}"))
            .await
            .expect(200);
        (log[0]["status"] == "delivered").then_some(log)
    })
    .await;
    let delivery = &log[0];
    assert_eq!(delivery["id"], first["id"]);
    assert_eq!(delivery["attempts"], 2);
    assert_eq!(delivery["last_status_code"], 204);
    assert_eq!(delivery["event"], "run.succeeded");
    assert_eq!(log.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_url_the_policy_refuses_is_accepted_but_its_delivery_fails_at_once() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Blocked").await;
    // Names are not resolved on write: the URL is accepted.
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Blocked", "instructions": "Hi",
                   "completionWebhook": {"url": "https://localhost:9/hook"}}),
        )
        .await
        .expect(201);
    let id = runner["id"].as_str().unwrap().to_owned();
    admin
        .post(&format!("/api/runners/{id}/runs"), json!({}))
        .await
        .expect(201);
    let log = eventually(Duration::from_secs(20), "the delivery failed", async || {
        let log = admin
            .get(&format!("/api/runners/{id}/deliveries"))
            .await
            .expect(200);
        (log.get(0).is_some_and(|d| d["status"] == "failed")).then_some(log)
    })
    .await;
    assert_eq!(
        log[0]["last_error"], "address refused by outbound policy",
        "{log}"
    );
    assert_eq!(log[0]["attempts"], 1);
    assert_eq!(log[0]["event"], "run.succeeded");
    // A new URL forgets the old secret: the PATCH shows a new one.
    let patched = admin
        .patch(
            &format!("/api/runners/{id}"),
            json!({"completionWebhook": {"url": "https://hooks.example.com/x"}}),
        )
        .await
        .expect(200);
    let new_secret = patched["webhook_secret"].as_str().unwrap();
    assert_ne!(new_secret, runner["webhook_secret"].as_str().unwrap());
}
