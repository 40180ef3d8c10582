//! Messaging channels over HTTP (`marketplace-channels.md` §7–§10,
//! Acceptance 1–4): Telegram, Slack and WhatsApp against
//! `tests/peers/channels_mock.py`, which records any request unlike the
//! vendors' documents as an error; Slack's signatures made by slack-sdk;
//! the WhatsApp QR code decoded by zxing-cpp, its SVG rasterised by
//! rsvg-convert. Each message is one contact, thread, turn
//! (`builtin/echo`) and reply, once, across redeliveries and a restart.

use std::process::{Child, Command};
use std::time::Duration;

use hmac::{KeyInit, Mac};
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, eventually, peers_dir, python_peer};

/// The vendors' mock, killed on drop.
struct Vendors {
    child: Child,
    base: String,
    port: u16,
}

impl Drop for Vendors {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Vendors {
    fn start() -> Self {
        let (child, port) = python_peer("channels_mock.py");
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
        }
    }

    fn options(&self) -> Options {
        Options::default()
            .env("CONFER_TELEGRAM_API_URL", &self.base)
            .env("CONFER_SLACK_API_URL", &format!("{}/slack/api", self.base))
            .env("CONFER_WHATSAPP_API_URL", &format!("{}/graph", self.base))
            .env("CONFER_OUTBOUND_ALLOW", &format!("127.0.0.1:{}", self.port))
            .env("CONFER_PUBLIC_URL", "https://confer.example")
    }

    async fn calls(&self) -> Vec<Value> {
        let answer: Value = reqwest::get(format!("{}/_calls", self.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["errors"], json!([]), "requests unlike the vendors'");
        answer["calls"].as_array().unwrap().clone()
    }

    /// The calls whose path ends with `suffix`.
    async fn to(&self, suffix: &str) -> Vec<Value> {
        self.calls()
            .await
            .into_iter()
            .filter(|c| c["path"].as_str().unwrap().ends_with(suffix))
            .collect()
    }

    async fn next(&self, suffix: &str, status: u16, body: Value) {
        reqwest::Client::new()
            .post(format!("{}/_next", self.base))
            .json(&json!({"path_suffix": suffix, "status": status, "body": body}))
            .send()
            .await
            .unwrap();
    }

    /// A Slack signature made by slack-sdk.
    async fn slack_signature(&self, secret: &str, timestamp: &str, body: &str) -> String {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/_sign", self.base))
            .json(&json!({"secret": secret, "timestamp": timestamp, "body": body}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["signature"].as_str().unwrap().to_owned()
    }
}

/// POSTs a delivery to a channel's webhook with `headers`.
async fn deliver(
    server: &Server,
    channel: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(format!("{}/api/channels/{channel}/webhook", server.base))
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

fn telegram_update(update_id: i64, text: &str) -> String {
    json!({"update_id": update_id, "message": {"message_id": update_id, "date": 1700000000,
        "from": {"id": 4242, "is_bot": false, "first_name": "Ada", "username": "ada"},
        "chat": {"id": 4242, "type": "private", "first_name": "Ada"}, "text": text}})
    .to_string()
}

async fn contacts(api: &Api, agent: &str, channel: &str) -> Vec<Value> {
    api.get(&format!("/api/agents/{agent}/channels/{channel}/contacts"))
        .await
        .expect(200)
        .as_array()
        .unwrap()
        .clone()
}

async fn sent_texts(vendors: &Vendors, suffix: &str, field: &str) -> Vec<String> {
    vendors
        .to(suffix)
        .await
        .iter()
        .map(|c| c["body"][field].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn telegram_messages_are_answered_once_across_redeliveries_and_a_restart() {
    let vendors = Vendors::start();
    let server = Server::start_with(vendors.options());
    let admin = server.admin();
    let agent = admin.agent("Bot").await;
    let path = format!("/api/agents/{agent}/channels");

    // A refused token: 422 naming it, nothing stored.
    let detail = admin
        .post(
            &path,
            json!({"kind": "telegram", "credentials": {"botToken": "bad"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("credentials.botToken:"), "{detail}");
    assert_eq!(admin.get(&path).await.expect(200), json!([]));

    let made = admin
        .post(
            &path,
            json!({"kind": "telegram", "name": "Support bot",
                   "credentials": {"botToken": "123456:good-token"}}),
        )
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let webhook = format!("https://confer.example/api/channels/{channel}/webhook");
    assert_eq!(made["webhook_url"], webhook.as_str());
    assert_eq!(made["has_credentials"], true);
    assert_eq!(made["status"], "active");
    assert!(!made.to_string().contains("good-token"), "{made}");
    let set = vendors.to("/setWebhook").await;
    assert_eq!(set.len(), 1);
    assert_eq!(set[0]["body"]["url"], webhook.as_str());
    let secret = set[0]["body"]["secret_token"].as_str().unwrap().to_owned();
    // One channel per bot on the instance.
    admin
        .post(
            &path,
            json!({"kind": "telegram", "credentials": {"botToken": "123456:good-token"}}),
        )
        .await
        .expect_error(409, "CONFLICT");

    // A wrong secret: 401, nothing stored or sent.
    let hello = telegram_update(1, "hello world");
    let (status, _) = deliver(
        &server,
        &channel,
        &hello,
        &[("x-telegram-bot-api-secret-token", "wrong")],
    )
    .await;
    assert_eq!(status, 401);
    let (status, _) = deliver(&server, &channel, &hello, &[]).await;
    assert_eq!(status, 401);
    assert!(contacts(&admin, &agent, &channel).await.is_empty());

    let signed = [("x-telegram-bot-api-secret-token", secret.as_str())];
    let (status, body) = deliver(&server, &channel, &hello, &signed).await;
    assert_eq!((status, body.as_str()), (200, r#"{"ok":true}"#));
    // Redelivered while its turn may still run.
    assert_eq!(deliver(&server, &channel, &hello, &signed).await.0, 200);
    let replies = eventually(Duration::from_secs(20), "the echo is sent", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (!texts.is_empty()).then_some(texts)
    })
    .await;
    assert_eq!(replies, ["hello world"]);
    let sent = &vendors.to("/sendMessage").await[0];
    assert_eq!(sent["body"]["chat_id"], 4242);

    let listed = contacts(&admin, &agent, &channel).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["external_id"], "4242");
    assert_eq!(listed[0]["display_name"], "Ada");
    assert_eq!(listed[0]["message_count"], 1);
    let thread = listed[0]["thread_id"].as_str().unwrap().to_owned();
    let record = admin
        .get(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    assert_eq!(record["created_by"], format!("channel:{channel}"));
    assert_eq!(record["metadata"]["channel"], "telegram");

    // After a restart, a third delivery of the same update: still one.
    let server = server.kill_and_restart();
    assert_eq!(deliver(&server, &channel, &hello, &signed).await.0, 200);
    // A long answer: three chunks in order, each sent once.
    let long = format!(
        "{}\n\n{}\n\n{}",
        "a".repeat(4000),
        "b".repeat(4000),
        "c".repeat(1000)
    );
    let (status, _) = deliver(&server, &channel, &telegram_update(2, &long), &signed).await;
    assert_eq!(status, 200);
    let texts = eventually(Duration::from_secs(20), "three chunks", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (texts.len() >= 4).then_some(texts)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let texts_after = sent_texts(&vendors, "/sendMessage", "text").await;
    assert_eq!(
        texts_after.len(),
        4,
        "nothing repeated: {:?}",
        texts.iter().map(String::len).collect::<Vec<_>>()
    );
    assert_eq!(texts[1], "a".repeat(4000));
    assert_eq!(texts[2], "b".repeat(4000));
    assert_eq!(texts[3], "c".repeat(1000));
    let admin = server.admin();
    let history = admin
        .get(&format!("/api/threads/{thread}/messages"))
        .await
        .expect(200);
    let users = history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(users, 2, "one turn per message");

    // A vendor's 429 is retried after its retry_after.
    vendors
        .next(
            "/sendMessage",
            429,
            json!({"ok": false, "error_code": 429,
            "description": "Too Many Requests: retry after 1", "parameters": {"retry_after": 1}}),
        )
        .await;
    deliver(&server, &channel, &telegram_update(3, "again"), &signed).await;
    eventually(Duration::from_secs(20), "the retried send", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (texts.iter().filter(|t| *t == "again").count() == 2).then_some(())
    })
    .await;

    // Deleted: the webhook is removed at Telegram; the thread stays.
    admin.delete(&format!("{path}/{channel}")).await.expect(200);
    eventually(Duration::from_secs(20), "deleteWebhook", async || {
        (!vendors.to("/deleteWebhook").await.is_empty()).then_some(())
    })
    .await;
    assert_eq!(deliver(&server, &channel, &hello, &signed).await.0, 404);
    admin
        .get(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
}

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

fn whatsapp_signature(secret: &str, body: &str) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Decodes a QR code image file with zxing-cpp.
fn decode_qr(file: &std::path::Path) -> String {
    let peers = peers_dir("playwright-core");
    let out = Command::new(peers.join(".venv/bin/python"))
        .args([
            "-c",
            "import sys, zxingcpp; from PIL import Image; \
             r = zxingcpp.read_barcodes(Image.open(sys.argv[1])); print(r[0].text if r else '')",
        ])
        .arg(file)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test]
async fn whatsapp_verifies_subscriptions_and_signatures_and_draws_its_link() {
    let vendors = Vendors::start();
    let server = Server::start_with(vendors.options());
    let admin = server.admin();
    let agent = admin.agent("Wa").await;
    let path = format!("/api/agents/{agent}/channels");
    admin
        .post(
            &path,
            json!({"kind": "whatsapp", "credentials": {"accessToken": "EAAG-bad", "appSecret": "s"},
                            "settings": {"phoneNumberId": "1098765"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let made = admin
        .post(&path, json!({"kind": "whatsapp", "credentials": {"accessToken": "EAAG-good", "appSecret": "app-secret"},
                            "settings": {"phoneNumberId": "1098765"}}))
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let token = made["verify_token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("cwv_") && token.len() == 36, "{token}");
    assert_eq!(made["settings"]["business_number"], "15550100200");
    let listed = admin.get(&path).await.expect(200);
    assert!(listed[0].get("verify_token").is_none(), "shown once");

    let subscribe = |token: &str| {
        format!(
            "{}/api/channels/{channel}/webhook?hub.mode=subscribe&hub.verify_token={token}&hub.challenge=1158201444",
            server.base
        )
    };
    let ok = reqwest::get(subscribe(&token)).await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "1158201444");
    assert_eq!(
        reqwest::get(subscribe("cwv_wrong")).await.unwrap().status(),
        403
    );

    let note = json!({"object": "whatsapp_business_account", "entry": [{"id": "WABA", "changes": [{
        "field": "messages", "value": {"messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15550100200", "phone_number_id": "1098765"},
            "contacts": [{"profile": {"name": "Grace"}, "wa_id": "447700900123"}],
            "messages": [{"from": "447700900123", "id": "wamid.ABC", "timestamp": "1700000000",
                          "type": "text", "text": {"body": "hello world"}}]}}]}]})
    .to_string();
    let (status, _) = deliver(
        &server,
        &channel,
        &note,
        &[("x-hub-signature-256", "sha256=00")],
    )
    .await;
    assert_eq!(status, 401);
    let signed = whatsapp_signature("app-secret", &note);
    for _ in 0..3 {
        let (status, _) = deliver(
            &server,
            &channel,
            &note,
            &[("x-hub-signature-256", &signed)],
        )
        .await;
        assert_eq!(status, 200);
    }
    let sent = eventually(Duration::from_secs(20), "the reply", async || {
        let sent = vendors.to("/1098765/messages").await;
        (!sent.is_empty()).then_some(sent)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(vendors.to("/1098765/messages").await.len(), 1);
    assert_eq!(sent[0]["body"]["to"], "447700900123");
    assert_eq!(sent[0]["body"]["text"]["body"], "hello world");
    let people = contacts(&admin, &agent, &channel).await;
    assert_eq!(people[0]["display_name"], "Grace");

    // The QR code: PNG and SVG both decode to the link.
    let qr = admin
        .get(&format!("{path}/whatsapp/qr?text=Hi%20there"))
        .await
        .expect(200);
    let link = "https://wa.me/15550100200?text=Hi%20there";
    assert_eq!(qr["link"], link);
    let dir = tempfile::tempdir().unwrap();
    let png = reqwest::Client::new()
        .get(format!(
            "{}{path}/whatsapp/qr?format=png&size=256&text=Hi%20there",
            server.base
        ))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(png.headers()["content-type"], "image/png");
    let png_file = dir.path().join("qr.png");
    std::fs::write(&png_file, png.bytes().await.unwrap()).unwrap();
    assert_eq!(decode_qr(&png_file), link);
    let svg_file = dir.path().join("qr.svg");
    std::fs::write(&svg_file, qr["svg"].as_str().unwrap()).unwrap();
    let raster = dir.path().join("svg.png");
    let converted = Command::new("rsvg-convert")
        .args(["-w", "400", "-b", "white", "-o"])
        .arg(&raster)
        .arg(&svg_file)
        .status()
        .expect("rsvg-convert runs (librsvg2-bin)");
    assert!(converted.success());
    assert_eq!(decode_qr(&raster), link);
    assert!(
        qr["png"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
    admin
        .get(&format!("{path}/whatsapp/qr?size=9"))
        .await
        .expect_error(400, "BAD_REQUEST");
    admin
        .get(&format!("{path}/whatsapp/qr?format=gif"))
        .await
        .expect_error(400, "BAD_REQUEST");
    // A member reads; the secrets are in no answer.
    let member = server.api(&admin.new_key("member").await);
    let seen = member.get(&path).await.expect(200).to_string();
    assert!(
        !seen.contains("app-secret") && !seen.contains("EAAG"),
        "{seen}"
    );
}

/// A vendor pause after compacting (compaction.md) gets an empty continue
/// from the channel's worker, and the contact the continued answer.
#[tokio::test]
async fn a_turn_paused_after_compacting_is_continued_and_answered() {
    let vendors = Vendors::start();
    let model = crate::mock::Mock::start("/anthropic").await;
    let server = Server::start_with(
        vendors
            .options()
            .env("ANTHROPIC_BASE_URL", &model.base)
            .env("ANTHROPIC_API_KEY", "sk-platform"),
    );
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Long", "defaultModel": "claude-sonnet-4-6"}))
        .await;
    admin
        .put(
            &format!("/api/agents/{agent}/compaction"),
            json!({"enabled": true, "vendorAPauseAfter": true}),
        )
        .await
        .expect(200);
    let made = admin
        .post(
            &format!("/api/agents/{agent}/channels"),
            json!({"kind": "telegram", "credentials": {"botToken": "123456:good-token"}}),
        )
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let set = vendors.to("/setWebhook").await;
    let secret = set[0]["body"]["secret_token"].as_str().unwrap().to_owned();

    model.push(crate::mock::Reply::stream(crate::mock::paused_compaction()));
    model.push(crate::mock::Reply::stream(crate::mock::fixture(
        "anthropic_text.sse",
    )));
    let signed = [("x-telegram-bot-api-secret-token", secret.as_str())];
    let update = telegram_update(1, "a long story");
    assert_eq!(deliver(&server, &channel, &update, &signed).await.0, 200);
    let replies = eventually(Duration::from_secs(20), "the answer is sent", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (!texts.is_empty()).then_some(texts)
    })
    .await;
    // The continued answer, not the error reply; two model calls.
    let asked = model.requests();
    assert_eq!(asked.len(), 2);
    let last = asked[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"][0]["type"], "compaction", "{last}");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_ne!(replies[0], "Sorry, I could not answer just now.");
    assert!(!replies[0].is_empty());
}
