//! Slack's Web API and Events API: `auth.test` at create, the `v0`
//! request signature within ±300 s, `url_verification`, direct messages and
//! mentions, `chat.postMessage`.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{Delivery, Inbound, ReplyTarget, SendError, SetupError, VendorApis, Verified};
use crate::channels::chunks::slack_escaped;
use crate::channels::{Channel, Opened};

/// How far a request's timestamp may be from now.
const SKEW_SECS: i64 = 300;

fn error_of(body: &Value) -> String {
    body.get("error")
        .and_then(Value::as_str)
        .unwrap_or("not ok")
        .to_owned()
}

/// `auth.test`: the team and the bot's user.
pub async fn setup(api: &VendorApis, opened: &Opened) -> Result<Verified, SetupError> {
    let answer = api
        .call(
            reqwest::Method::POST,
            &format!("{}/auth.test", api.slack),
            |r| r.bearer_auth(&opened.bot_token),
        )
        .await
        .map_err(SetupError::Unreachable)?;
    if answer.status >= 500 || answer.status == 429 {
        return Err(SetupError::Unreachable(format!("status {}", answer.status)));
    }
    if answer.body["ok"] != true {
        return Err(SetupError::Refused {
            field: "credentials.botToken",
            detail: error_of(&answer.body),
        });
    }
    let (Some(team), Some(user)) = (
        answer.body["team_id"].as_str(),
        answer.body["user_id"].as_str(),
    ) else {
        return Err(SetupError::Unreachable(
            "auth.test answered no team or user".into(),
        ));
    };
    Ok(Verified {
        identity: format!("{team}:{user}"),
        bot_user: Some(user.to_owned()),
        business_number: None,
    })
}

/// Whether the request is signed with the channel's signing secret, at a
/// time within ±300 s of `now`.
pub fn verified(
    opened: &Opened,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: DateTime<Utc>,
) -> bool {
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return false;
    };
    let Ok(at) = timestamp.trim().parse::<i64>() else {
        return false;
    };
    if (now.timestamp() - at).abs() > SKEW_SECS || opened.signing_secret.is_empty() {
        return false;
    }
    let Some(tag) = signature.strip_prefix("v0=") else {
        return false;
    };
    super::hmac_matches(
        opened.signing_secret.as_bytes(),
        &[b"v0:", timestamp.as_bytes(), b":", body],
        tag,
    )
}

/// What an Events API request asks: its challenge, or the direct message
/// or mention it carries.
pub fn read(channel: &Channel, body: &Value) -> Delivery {
    if body["type"] == "url_verification" {
        return Delivery::Challenge(body["challenge"].as_str().unwrap_or("").to_owned());
    }
    let event = &body["event"];
    let bot = channel.bot_user.as_deref().unwrap_or("");
    let (Some(event_id), Some(user), Some(text), Some(chat), Some(ts)) = (
        body["event_id"].as_str(),
        event["user"].as_str(),
        event["text"].as_str(),
        event["channel"].as_str(),
        event["ts"].as_str(),
    ) else {
        return Delivery::Messages(Vec::new());
    };
    let from_a_bot = event.get("bot_id").is_some() || user == bot;
    let (text, thread_ts) = match event["type"].as_str() {
        Some("message")
            if event["channel_type"] == "im" && event.get("subtype").is_none() && !from_a_bot =>
        {
            (text.to_owned(), None)
        }
        Some("app_mention") if !from_a_bot => {
            let mention = format!("<@{bot}>");
            let thread = event["thread_ts"].as_str().unwrap_or(ts).to_owned();
            (text.replace(&mention, "").trim().to_owned(), Some(thread))
        }
        _ => return Delivery::Messages(Vec::new()),
    };
    if text.trim().is_empty() {
        return Delivery::Messages(Vec::new());
    }
    Delivery::Messages(vec![Inbound {
        // A message sent as both `message` and `app_mention` shares its
        // channel and ts: answered once.
        keys: vec![format!("e:{event_id}"), format!("m:{chat}:{ts}")],
        external_id: user.to_owned(),
        display_name: None,
        username: None,
        text,
        target: ReplyTarget::Slack {
            channel: chat.to_owned(),
            thread_ts,
        },
    }])
}

/// `chat.postMessage {channel, text[, thread_ts]}`, text escaped.
pub async fn send(
    api: &VendorApis,
    opened: &Opened,
    channel: &str,
    thread_ts: Option<&str>,
    text: &str,
) -> Result<(), SendError> {
    let mut body = json!({"channel": channel, "text": slack_escaped(text)});
    if let Some(ts) = thread_ts {
        body["thread_ts"] = json!(ts);
    }
    let payload = body.to_string();
    let answer = api
        .call(
            reqwest::Method::POST,
            &format!("{}/chat.postMessage", api.slack),
            |r| {
                r.bearer_auth(&opened.bot_token)
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/json; charset=utf-8",
                    )
                    .body(payload)
            },
        )
        .await
        .map_err(|detail| SendError::Retry {
            after: None,
            detail,
        })?;
    if answer.status == 200 && answer.body["ok"] == true {
        return Ok(());
    }
    let error = error_of(&answer.body);
    match error.as_str() {
        "ratelimited" => Err(SendError::Retry {
            after: answer.retry_after,
            detail: error,
        }),
        "invalid_auth" | "not_authed" | "account_inactive" | "token_revoked" => {
            Err(SendError::Auth(error))
        }
        _ if answer.status != 200 => Err(super::by_status(&answer, error)),
        _ => Err(SendError::Failed(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(secret: &str, ts: &str, body: &str) -> String {
        use hmac::{KeyInit, Mac};
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("v0:{ts}:{body}").as_bytes());
        format!("v0={}", hex::encode(mac.finalize().into_bytes()))
    }

    #[test]
    fn signatures_and_their_time_are_checked() {
        let opened = Opened {
            signing_secret: "8f742231b10e8888abcd99yyyzzz85a5".into(),
            ..Opened::default()
        };
        let now = Utc::now();
        let ts = now.timestamp().to_string();
        let body = br#"{"type":"event_callback"}"#;
        let good = signed(
            &opened.signing_secret,
            &ts,
            std::str::from_utf8(body).unwrap(),
        );
        assert!(verified(&opened, Some(&ts), Some(&good), body, now));
        assert!(!verified(&opened, Some(&ts), Some(&good), b"{}", now));
        let stale = (now.timestamp() - 301).to_string();
        let old = signed(
            &opened.signing_secret,
            &stale,
            std::str::from_utf8(body).unwrap(),
        );
        assert!(!verified(&opened, Some(&stale), Some(&old), body, now));
        assert!(!verified(&opened, None, Some(&good), body, now));
    }
}
