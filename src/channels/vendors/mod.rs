//! The vendors' APIs (`marketplace-channels.md` §7–§9): each vendor's file
//! checks credentials at create, verifies an inbound delivery before its
//! body is read, reads the messages it takes, and sends a reply. Every call
//! goes through the outbound policy's client, 15 s each, answers read up to
//! 64 KiB; no error names a token (Telegram's is in its URLs).

pub mod slack;
pub mod telegram;
pub mod whatsapp;

use std::time::Duration;

use actix_web::http::header::HeaderMap;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Channel, ChannelKind, ChannelSettings, Opened};
use crate::outbound::{Outbound, read_capped};
use crate::settings::Settings;

const CALL_WITHIN: Duration = Duration::from_secs(15);
const ANSWER_CAP: usize = 64 * 1024;

/// Where a reply goes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ReplyTarget {
    Telegram {
        chat_id: i64,
    },
    Slack {
        channel: String,
        thread_ts: Option<String>,
    },
    Whatsapp {
        to: String,
    },
}

/// One message a delivery brings.
#[derive(Clone, Debug, PartialEq)]
pub struct Inbound {
    /// Its keys: any one already seen makes it a repeat.
    pub keys: Vec<String>,
    pub external_id: String,
    pub display_name: Option<String>,
    pub username: Option<String>,
    pub text: String,
    pub target: ReplyTarget,
}

/// What a verified delivery asks.
#[derive(Debug, PartialEq)]
pub enum Delivery {
    /// Answer 200 `text/plain` with this (Slack's `url_verification`).
    Challenge(String),
    /// Messages to answer (possibly none: the rest is ignored).
    Messages(Vec<Inbound>),
}

/// What a channel's vendor said of its credentials.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verified {
    /// The bot's id on the vendor, unique on the instance.
    pub identity: String,
    pub bot_user: Option<String>,
    /// WhatsApp: the number's digits as the vendor shows them.
    pub business_number: Option<String>,
}

/// Why a channel could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The vendor refused `field` (422 naming it).
    #[error("{field}: refused by the vendor ({detail})")]
    Refused { field: &'static str, detail: String },
    /// The vendor did not answer (502 `UPSTREAM_UNAVAILABLE`).
    #[error("the vendor did not answer: {0}")]
    Unreachable(String),
}

/// Why a send did not go.
#[derive(Debug, PartialEq)]
pub enum SendError {
    /// Worth another try, after the vendor's `Retry-After` if it gave one.
    Retry {
        after: Option<Duration>,
        detail: String,
    },
    /// The vendor refused the credentials: the channel is in error.
    Auth(String),
    /// Refused for good.
    Failed(String),
}

/// A vendor's answer: status, `Retry-After` and JSON body (`Null` when
/// not JSON).
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub body: Value,
}

/// The vendors' base URLs and the outbound client.
#[derive(Clone)]
pub struct VendorApis {
    outbound: Outbound,
    pub telegram: String,
    pub slack: String,
    pub whatsapp: String,
    pub whatsapp_version: String,
}

impl VendorApis {
    /// The vendors of `settings`, called through `outbound`.
    pub fn new(settings: &Settings, outbound: Outbound) -> Self {
        let base = |url: &str| url.trim_end_matches('/').to_owned();
        Self {
            outbound,
            telegram: base(&settings.telegram_api_url),
            slack: base(&settings.slack_api_url),
            whatsapp: base(&settings.whatsapp_api_url),
            whatsapp_version: settings.whatsapp_api_version.clone(),
        }
    }

    /// Makes one call; a transport failure or a refusal by the outbound
    /// policy is the error's text (no URL).
    pub async fn call(
        &self,
        method: reqwest::Method,
        url: &str,
        build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<Answer, String> {
        let request = self
            .outbound
            .request(method, url)
            .map_err(|e| e.to_string())?
            .timeout(CALL_WITHIN);
        let response = self
            .outbound
            .send(build(request))
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let bytes = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Answer {
            status,
            retry_after,
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        })
    }

    /// Checks `opened` with the vendor: who the bot is.
    pub async fn setup(
        &self,
        kind: ChannelKind,
        opened: &Opened,
        settings: &ChannelSettings,
    ) -> Result<Verified, SetupError> {
        match kind {
            ChannelKind::Telegram => telegram::setup(self, opened).await,
            ChannelKind::Slack => slack::setup(self, opened).await,
            ChannelKind::Whatsapp => whatsapp::setup(self, opened, settings).await,
        }
    }

    /// Points the vendor at `webhook_url` where Confer does it (Telegram;
    /// Slack's and WhatsApp's admins paste the URL in their app).
    pub async fn register(
        &self,
        kind: ChannelKind,
        opened: &Opened,
        webhook_url: &str,
    ) -> Result<(), SetupError> {
        match kind {
            ChannelKind::Telegram => telegram::register(self, opened, webhook_url).await,
            ChannelKind::Slack | ChannelKind::Whatsapp => Ok(()),
        }
    }

    /// Sends one chunk of a reply.
    pub async fn send(
        &self,
        channel: &Channel,
        opened: &Opened,
        target: &ReplyTarget,
        text: &str,
    ) -> Result<(), SendError> {
        match target {
            ReplyTarget::Telegram { chat_id } => telegram::send(self, opened, *chat_id, text).await,
            ReplyTarget::Slack { channel, thread_ts } => {
                slack::send(self, opened, channel, thread_ts.as_deref(), text).await
            }
            ReplyTarget::Whatsapp { to } => {
                let number = channel.settings.phone_number_id.as_deref().unwrap_or("");
                whatsapp::send(self, opened, number, to, text).await
            }
        }
    }
}

/// Whether a delivery carries the vendor's proof (constant-time), read
/// before its body is parsed.
pub fn verified(
    kind: ChannelKind,
    opened: &Opened,
    headers: &HeaderMap,
    body: &[u8],
    now: DateTime<Utc>,
) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match kind {
        ChannelKind::Telegram => telegram::verified(opened, header(telegram::SECRET_HEADER)),
        ChannelKind::Slack => slack::verified(
            opened,
            header("x-slack-request-timestamp"),
            header("x-slack-signature"),
            body,
            now,
        ),
        ChannelKind::Whatsapp => whatsapp::verified(opened, header("x-hub-signature-256"), body),
    }
}

/// The messages of a verified delivery's JSON.
pub fn read(channel: &Channel, body: &Value) -> Delivery {
    match channel.kind {
        ChannelKind::Telegram => Delivery::Messages(telegram::read(body)),
        ChannelKind::Slack => slack::read(channel, body),
        ChannelKind::Whatsapp => Delivery::Messages(whatsapp::read(channel, body)),
    }
}

/// Whether `given` is `expected`, in constant time: both are tagged with
/// HMAC under a fixed key and the tags compared by `verify_slice`, whose
/// comparison does not depend on where they differ.
pub fn same(expected: &[u8], given: &[u8]) -> bool {
    use hmac::{KeyInit, Mac};
    type Tagger = hmac::Hmac<sha2::Sha256>;
    // HMAC takes a key of any length: these cannot fail.
    let (Ok(mut first), Ok(mut second)) = (
        Tagger::new_from_slice(b"confer-compare"),
        Tagger::new_from_slice(b"confer-compare"),
    ) else {
        return false;
    };
    first.update(expected);
    second.update(given);
    second.verify_slice(&first.finalize().into_bytes()).is_ok()
}

/// HMAC-SHA256 of `body` under `key` checked against `hex_tag`.
pub fn hmac_matches(key: &[u8], parts: &[&[u8]], hex_tag: &str) -> bool {
    use hmac::{KeyInit, Mac};
    let Ok(tag) = hex::decode(hex_tag) else {
        return false;
    };
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(key) else {
        return false;
    };
    for part in parts {
        mac.update(part);
    }
    mac.verify_slice(&tag).is_ok()
}

/// A failed send's kind, from its status (429, 5xx: retry).
pub fn by_status(answer: &Answer, detail: String) -> SendError {
    match answer.status {
        429 | 500..=599 => SendError::Retry {
            after: answer.retry_after,
            detail,
        },
        401 | 403 => SendError::Auth(detail),
        _ => SendError::Failed(detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_and_signatures() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        // RFC 4231 test case 2.
        let tag = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
        assert!(hmac_matches(
            b"Jefe",
            &[b"what do ya want ", b"for nothing?"],
            tag
        ));
        assert!(!hmac_matches(
            b"Jefe",
            &[b"what do ya want for something?"],
            tag
        ));
        assert!(!hmac_matches(b"Jefe", &[b"x"], "not hex"));
    }
}
