//! Messaging channels over HTTP (`marketplace-channels.md` §7–§10,
//! Acceptance 1–4): Telegram, Slack and WhatsApp against
//! `tests/peers/channels_mock.py`, which records any request unlike the
//! vendors' documents as an error; Slack's signatures made by slack-sdk;
//! the WhatsApp QR code decoded by zxing-cpp, its SVG rasterised by
//! rsvg-convert. Each message is one contact, thread, turn
//! (`builtin/echo`) and reply, once, across redeliveries and a restart.

mod slack;
mod telegram;
mod whatsapp;

use std::process::Child;

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, python_peer};

/// The vendors' mock, killed on drop.
pub(super) struct Vendors {
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
    pub(super) fn start() -> Self {
        let (child, port) = python_peer("channels_mock.py");
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
        }
    }

    pub(super) fn options(&self) -> Options {
        Options::default()
            .env("CONFER_TELEGRAM_API_URL", &self.base)
            .env("CONFER_SLACK_API_URL", &format!("{}/slack/api", self.base))
            .env("CONFER_WHATSAPP_API_URL", &format!("{}/graph", self.base))
            .env("CONFER_OUTBOUND_ALLOW", &format!("127.0.0.1:{}", self.port))
            .env("CONFER_PUBLIC_URL", "https://confer.example")
    }

    /// The mock's record: `calls`, `errors` (asserted empty) and `held`.
    pub(super) async fn record(&self) -> Value {
        let answer: Value = reqwest::get(format!("{}/_calls", self.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["errors"], json!([]), "requests unlike the vendors'");
        answer
    }

    pub(super) async fn calls(&self) -> Vec<Value> {
        self.record().await["calls"].as_array().unwrap().clone()
    }

    /// Makes the next send to `suffix` whose text starts with `prefix`
    /// hang unanswered and unrecorded, as one the vendor never took.
    pub(super) async fn hold(&self, suffix: &str, prefix: &str) {
        reqwest::Client::new()
            .post(format!("{}/_hold", self.base))
            .json(&json!({"path_suffix": suffix, "text_prefix": prefix}))
            .send()
            .await
            .unwrap();
    }

    /// The calls whose path ends with `suffix`.
    pub(super) async fn to(&self, suffix: &str) -> Vec<Value> {
        self.calls()
            .await
            .into_iter()
            .filter(|c| c["path"].as_str().unwrap().ends_with(suffix))
            .collect()
    }

    pub(super) async fn next(&self, suffix: &str, status: u16, body: Value) {
        reqwest::Client::new()
            .post(format!("{}/_next", self.base))
            .json(&json!({"path_suffix": suffix, "status": status, "body": body}))
            .send()
            .await
            .unwrap();
    }

    /// A Slack signature made by slack-sdk.
    pub(super) async fn slack_signature(
        &self,
        secret: &str,
        timestamp: &str,
        body: &str,
    ) -> String {
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
pub(super) async fn deliver(
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

pub(super) fn telegram_update(update_id: i64, text: &str) -> String {
    json!({"update_id": update_id, "message": {"message_id": update_id, "date": 1700000000,
        "from": {"id": 4242, "is_bot": false, "first_name": "Ada", "username": "ada"},
        "chat": {"id": 4242, "type": "private", "first_name": "Ada"}, "text": text}})
    .to_string()
}

pub(super) async fn contacts(api: &Api, agent: &str, channel: &str) -> Vec<Value> {
    api.get(&format!("/api/agents/{agent}/channels/{channel}/contacts"))
        .await
        .expect(200)
        .as_array()
        .unwrap()
        .clone()
}

pub(super) async fn sent_texts(vendors: &Vendors, suffix: &str, field: &str) -> Vec<String> {
    vendors
        .to(suffix)
        .await
        .iter()
        .map(|c| c["body"][field].as_str().unwrap_or_default().to_owned())
        .collect()
}
