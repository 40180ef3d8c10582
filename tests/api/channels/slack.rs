//! Slack: events signed by slack-sdk, deduplicated, answered in threads.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Vendors, contacts, deliver};
use crate::common::{Server, eventually};

#[tokio::test]
async fn slack_events_are_signed_deduplicated_and_answered_in_threads() {
    let vendors = Vendors::start();
    let server = Server::start_with(vendors.options());
    let admin = server.admin();
    let agent = admin.agent("Slacker").await;
    let path = format!("/api/agents/{agent}/channels");
    let secret = "8f742231b10e8888abcd99yyyzzz85a5";
    admin
        .post(&path, json!({"kind": "slack", "credentials": {"botToken": "xoxb-bad", "signingSecret": secret}}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .post(
            &path,
            json!({"kind": "slack", "credentials": {"botToken": "xoxb-good"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let made = admin
        .post(&path, json!({"kind": "slack", "credentials": {"botToken": "xoxb-good", "signingSecret": secret}}))
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let now = chrono::Utc::now().timestamp().to_string();
    let send = async |body: &Value, timestamp: &str| {
        let text = body.to_string();
        let signature = vendors.slack_signature(secret, timestamp, &text).await;
        deliver(
            &server,
            &channel,
            &text,
            &[
                ("x-slack-request-timestamp", timestamp),
                ("x-slack-signature", &signature),
            ],
        )
        .await
    };

    let challenge = json!({"token": "t", "challenge": "3eZbrw1aB", "type": "url_verification"});
    assert_eq!(send(&challenge, &now).await, (200, "3eZbrw1aB".to_owned()));
    // Stale: 401.
    let stale = (chrono::Utc::now().timestamp() - 400).to_string();
    assert_eq!(send(&challenge, &stale).await.0, 401);

    let event = |id: &str, kind: &str, text: &str| {
        let mut event = json!({"type": kind, "user": "U42", "text": text, "ts": "1700000000.000100",
            "channel": "D1", "event_ts": "1700000000.000100"});
        if kind == "message" {
            event["channel_type"] = json!("im");
        }
        json!({"token": "t", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
               "event_id": id, "event_time": 1700000000, "event": event})
    };
    // The same message as a DM and as a mention: answered once.
    assert_eq!(
        send(&event("Ev1", "message", "a < b & c"), &now).await.0,
        200
    );
    assert_eq!(
        send(&event("Ev2", "app_mention", "<@UBOT> a < b & c"), &now)
            .await
            .0,
        200
    );
    let posted = eventually(Duration::from_secs(20), "the reply", async || {
        let posted = vendors.to("/chat.postMessage").await;
        (!posted.is_empty()).then_some(posted)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(vendors.to("/chat.postMessage").await.len(), 1);
    assert_eq!(posted[0]["body"]["channel"], "D1");
    assert_eq!(posted[0]["body"]["text"], "a &lt; b &amp; c");
    assert_eq!(posted[0]["headers"]["authorization"], "Bearer xoxb-good");
    assert_eq!(
        posted[0]["headers"]["content-type"],
        "application/json; charset=utf-8"
    );

    // A mention in a channel is answered in its thread.
    let mut mention = event("Ev3", "app_mention", "<@UBOT> in thread");
    mention["event"]["ts"] = json!("1700000000.000300");
    mention["event"]["channel"] = json!("C9");
    assert_eq!(send(&mention, &now).await.0, 200);
    let threaded = eventually(Duration::from_secs(20), "the threaded reply", async || {
        vendors
            .to("/chat.postMessage")
            .await
            .into_iter()
            .find(|c| c["body"]["channel"] == "C9")
    })
    .await;
    assert_eq!(threaded["body"]["thread_ts"], "1700000000.000300");
    assert_eq!(threaded["body"]["text"], "in thread");
    // A bot's own message is ignored.
    let mut own = event("Ev4", "message", "echo");
    own["event"]["bot_id"] = json!("B1");
    assert_eq!(send(&own, &now).await.0, 200);
    assert_eq!(contacts(&admin, &agent, &channel).await.len(), 1);
}
