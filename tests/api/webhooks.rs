//! Runner webhook triggers (`runners.md` Inbound webhooks) against the
//! real server: a POST to the path token starts a run; size, media type,
//! JSON, input and rate are refused in the contract's order; a repeated
//! idempotency key answers its run; signed triggers take requests signed
//! by Debian's `openssl dgst -hmac` and refuse bad, stale and replayed
//! ones; rotated-out, disabled and deleted-runner tokens are 404.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Server, eventually};

/// A raw POST to a webhook URL.
async fn post(
    url: &str,
    content_type: &str,
    body: &[u8],
    headers: &[(&str, String)],
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", content_type)
        .body(body.to_vec());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    request.send().await.unwrap()
}

async fn status_and_body(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Hex HMAC-SHA256 of `{ts}.{nonce}.{body}`, computed by `openssl`.
fn openssl_signature(secret: &str, ts: &str, nonce: &str, body: &[u8]) -> String {
    let mut child = Command::new("openssl")
        .args(["dgst", "-sha256", "-hmac", secret])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(format!("{ts}.{nonce}.").as_bytes())
            .unwrap();
        stdin.write_all(body).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // `SHA2-256(stdin)= <hex>` (or `(stdin)= <hex>` on older releases).
    text.rsplit("= ").next().unwrap().trim().to_owned()
}

#[tokio::test]
async fn a_webhook_starts_runs_and_refuses_in_the_contracts_order() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Hooked").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Hook", "instructions": "About {{ input.topic }}",
                   "inputSchema": {"type": "object", "required": ["topic"],
                                   "properties": {"topic": {"type": "string"}}}}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let triggers = format!("/api/runners/{runner}/triggers");
    // A manual run is `POST …/runs`, not a trigger.
    admin
        .post(&triggers, json!({"kind": "manual"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let made = admin
        .post(
            &triggers,
            json!({"kind": "webhook", "maxBodyBytes": 200, "rateLimitPerMin": 4}),
        )
        .await
        .expect(201);
    let token = made["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("whk_") && token.len() == 4 + 64, "{made}");
    assert!(made["signing_secret"].as_str().unwrap().starts_with("cfs_"));
    assert_eq!(made["token_prefix"], &token[..12]);
    let url = made["url"].as_str().unwrap().to_owned();
    assert!(url.ends_with(&format!("/api/runners/webhooks/{token}")));
    let url = format!("{}/api/runners/webhooks/{token}", server.base);
    // The list never shows the secrets.
    let listed = admin.get(&triggers).await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(listed[0].get("token").is_none() && listed[0].get("signing_secret").is_none());

    // 202 and a run that answers.
    let (status, accepted) =
        status_and_body(post(&url, "application/json", br#"{"topic": "owls"}"#, &[]).await).await;
    assert_eq!(status, 202, "{accepted}");
    let run_id = accepted["run_id"].as_str().unwrap().to_owned();
    let run_path = format!("/api/runners/{runner}/runs/{run_id}");
    let run = eventually(Duration::from_secs(20), "the webhook's run", async || {
        let run = admin.get(&run_path).await.expect(200);
        (run["status"] == "succeeded").then_some(run)
    })
    .await;
    assert_eq!(run["trigger"]["kind"], "webhook");
    assert_eq!(run["output"], "About owls");
    // Request logs name the token by its prefix only.
    let logs = server.logs();
    assert!(
        logs.contains(&format!("/api/runners/webhooks/{}", &token[..12])),
        "{logs}"
    );
    assert!(!logs.contains(&token));

    // In order: size, media type, JSON, input.
    let big = format!(r#"{{"topic": "{}"}}"#, "x".repeat(300));
    let (status, body) =
        status_and_body(post(&url, "application/json", big.as_bytes(), &[]).await).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (413, Some("PAYLOAD_TOO_LARGE"))
    );
    let (status, body) = status_and_body(post(&url, "text/plain", b"{}", &[]).await).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (415, Some("UNSUPPORTED_MEDIA_TYPE"))
    );
    let (status, _) =
        status_and_body(post(&url, "application/json", b"{not json", &[]).await).await;
    assert_eq!(status, 400);
    let (status, body) =
        status_and_body(post(&url, "application/json", br#"{"topic": 7}"#, &[]).await).await;
    assert_eq!(status, 422);
    assert_eq!(body["errors"][0]["path"], "input/topic", "{body}");

    // The same key: the same run, once; another body: 422.
    let key = || [("Idempotency-Key", "evt-1".to_owned())];
    let first = post(&url, "application/json", br#"{"topic": "keys"}"#, &key()).await;
    assert!(first.headers().get("idempotent-replayed").is_none());
    let (status, first) = status_and_body(first).await;
    assert_eq!(status, 202);
    let again = post(&url, "application/json", br#"{"topic": "keys"}"#, &key()).await;
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let (status, again) = status_and_body(again).await;
    assert_eq!((status, &again["run_id"]), (202, &first["run_id"]));
    let (status, other) =
        status_and_body(post(&url, "application/json", br#"{"topic": "other"}"#, &key()).await)
            .await;
    assert_eq!(
        (status, other["error"].as_str()),
        (422, Some("IDEMPOTENCY_KEY_REUSED"))
    );
    let runs = admin
        .get(&format!("/api/runners/{runner}/runs?trigger=webhook"))
        .await
        .expect(200);
    assert_eq!(runs.as_array().unwrap().len(), 2, "{runs}");

    // 4 a minute: the fourth counted request (422s and repeats came
    // before the limit) is the last admitted.
    let mut limited = None;
    for i in 0..4 {
        let body = format!(r#"{{"topic": "t{i}"}}"#);
        let response = post(&url, "application/json", body.as_bytes(), &[]).await;
        if response.status().as_u16() == 429 {
            limited = Some(response);
            break;
        }
    }
    let limited = limited.expect("a 429 within the minute's quota");
    assert!(limited.headers().get("retry-after").is_some());
    let (_, body) = status_and_body(limited).await;
    assert_eq!(body["error"], "RATE_LIMITED");

    // Unknown, rotated-out and disabled tokens: 404.
    let unknown = format!(
        "{}/api/runners/webhooks/whk_{}",
        server.base,
        "0".repeat(64)
    );
    assert_eq!(
        post(&unknown, "application/json", b"{}", &[])
            .await
            .status()
            .as_u16(),
        404
    );
    let trigger = made["id"].as_str().unwrap();
    let rotated = admin
        .patch(
            &format!("{triggers}/{trigger}"),
            json!({"rotateToken": true}),
        )
        .await
        .expect(200);
    let new_token = rotated["token"].as_str().unwrap();
    assert_ne!(new_token, token);
    assert_eq!(
        post(&url, "application/json", b"{}", &[])
            .await
            .status()
            .as_u16(),
        404
    );
    let new_url = format!("{}/api/runners/webhooks/{new_token}", server.base);
    admin
        .patch(&format!("{triggers}/{trigger}"), json!({"enabled": false}))
        .await
        .expect(200);
    assert_eq!(
        post(&new_url, "application/json", b"{}", &[])
            .await
            .status()
            .as_u16(),
        404
    );
    admin
        .patch(&format!("{triggers}/{trigger}"), json!({"enabled": true}))
        .await
        .expect(200);
    // A deleted runner's token is 404 at once.
    admin
        .delete(&format!("/api/runners/{runner}"))
        .await
        .expect(200);
    assert_eq!(
        post(&new_url, "application/json", br#"{"topic": "x"}"#, &[])
            .await
            .status()
            .as_u16(),
        404
    );
}

#[tokio::test]
async fn a_signed_webhook_takes_openssl_signatures_and_refuses_bad_stale_and_replayed_ones() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Signed").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Signed", "instructions": "Signed {{ input.n }}"}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let made = admin
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "webhook", "requireSignature": true}),
        )
        .await
        .expect(201);
    let secret = made["signing_secret"].as_str().unwrap().to_owned();
    let url = format!(
        "{}/api/runners/webhooks/{}",
        server.base,
        made["token"].as_str().unwrap()
    );
    let body = br#"{"n": 1}"#;
    let now = chrono::Utc::now().timestamp().to_string();
    let signed = |ts: &str, nonce: &str, sig: String| {
        vec![
            ("X-Service-Timestamp", ts.to_owned()),
            ("X-Service-Nonce", nonce.to_owned()),
            ("X-Service-Signature", sig),
        ]
    };
    let good = openssl_signature(&secret, &now, "nonce-1", body);
    let (status, accepted) = status_and_body(
        post(
            &url,
            "application/json",
            body,
            &signed(&now, "nonce-1", good.clone()),
        )
        .await,
    )
    .await;
    assert_eq!(status, 202, "{accepted}");

    // Replayed nonce, bad signature, stale timestamp, missing header: 401.
    let (status, replayed) = status_and_body(
        post(
            &url,
            "application/json",
            body,
            &signed(&now, "nonce-1", good),
        )
        .await,
    )
    .await;
    assert_eq!(status, 401);
    assert!(
        replayed["detail"]
            .as_str()
            .unwrap()
            .starts_with("X-Service-Nonce")
    );
    let wrong = openssl_signature("cfs_not_the_secret", &now, "nonce-2", body);
    let (status, bad) = status_and_body(
        post(
            &url,
            "application/json",
            body,
            &signed(&now, "nonce-2", wrong),
        )
        .await,
    )
    .await;
    assert_eq!(status, 401);
    assert!(
        bad["detail"]
            .as_str()
            .unwrap()
            .starts_with("X-Service-Signature"),
        "{bad}"
    );
    let old = (chrono::Utc::now().timestamp() - 600).to_string();
    let stale = openssl_signature(&secret, &old, "nonce-3", body);
    let (status, stale) = status_and_body(
        post(
            &url,
            "application/json",
            body,
            &signed(&old, "nonce-3", stale),
        )
        .await,
    )
    .await;
    assert_eq!(status, 401);
    assert!(
        stale["detail"]
            .as_str()
            .unwrap()
            .starts_with("X-Service-Timestamp")
    );
    let (status, _) = status_and_body(post(&url, "application/json", body, &[]).await).await;
    assert_eq!(status, 401);
    // The signature is checked before the body is parsed.
    let (status, _) = status_and_body(post(&url, "application/json", b"{oops", &[]).await).await;
    assert_eq!(status, 401);
    let runs = admin
        .get(&format!("/api/runners/{runner}/runs"))
        .await
        .expect(200);
    assert_eq!(
        runs.as_array().unwrap().len(),
        1,
        "only the good request made a run"
    );
}

/// A webhook past its runner's backlog is 429 `RUNNER_QUEUE_FULL`, and an
/// idempotent replay of an accepted request still answers its run.
#[tokio::test]
async fn a_webhook_past_the_runners_backlog_is_429_runner_queue_full() {
    // Slow echo tokens: no run ends during the test.
    let server = Server::start_with(
        crate::common::Options::default().env("CONFER_BUILTIN_DELAY_MS", "2000"),
    );
    let admin = server.admin();
    let agent = admin.agent("Backlogged").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Narrow", "instructions": "a long answer here",
                   "maxConcurrentRuns": 1, "maxQueuedRuns": 1}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let made = admin
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "webhook"}),
        )
        .await
        .expect(201);
    let url = format!(
        "{}/api/runners/webhooks/{}",
        server.base,
        made["token"].as_str().unwrap()
    );
    // One running and one queued at most: the third is refused whatever
    // the timing.
    let mut answers = Vec::new();
    for n in 0..3 {
        let key = [("Idempotency-Key", format!("k-{n}"))];
        answers.push(status_and_body(post(&url, "application/json", b"{}", &key).await).await);
    }
    let (status, refused) = &answers[2];
    assert_eq!(*status, 429, "{answers:?}");
    assert_eq!(refused["error"], "RUNNER_QUEUE_FULL", "{refused}");
    assert_eq!(answers[0].0, 202, "{answers:?}");
    // The first request's key still answers its run, the queue full or not.
    let key = [("Idempotency-Key", "k-0".to_owned())];
    let (status, replay) = status_and_body(post(&url, "application/json", b"{}", &key).await).await;
    assert_eq!(status, 202);
    assert_eq!(replay["run_id"], answers[0].1["run_id"]);
}
