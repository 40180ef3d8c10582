//! WhatsApp Business Cloud API (Graph API): the phone number read at
//! create, `X-Hub-Signature-256`, text messages to the channel's number,
//! `/{phoneNumberId}/messages`.

use serde_json::{Value, json};

use super::{Inbound, ReplyTarget, SendError, SetupError, VendorApis, Verified};
use crate::channels::{Channel, ChannelSettings, Opened, phone_digits};

/// The Graph API's error codes a send retries (throttling, temporary).
const RETRIED: [i64; 4] = [4, 80007, 130429, 131056];

fn graph_error(body: &Value) -> (Option<i64>, String) {
    let error = &body["error"];
    (
        error["code"].as_i64(),
        error["message"]
            .as_str()
            .unwrap_or("the Graph API refused it")
            .to_owned(),
    )
}

/// `GET /{version}/{phoneNumberId}?fields=display_phone_number`.
pub async fn setup(
    api: &VendorApis,
    opened: &Opened,
    settings: &ChannelSettings,
) -> Result<Verified, SetupError> {
    let Some(number_id) = settings.phone_number_id.as_deref() else {
        return Err(SetupError::Refused {
            field: "settings.phoneNumberId",
            detail: "required".into(),
        });
    };
    let url = format!(
        "{}/{}/{number_id}?fields=display_phone_number",
        api.whatsapp, api.whatsapp_version
    );
    let answer = api
        .call(reqwest::Method::GET, &url, |r| {
            r.bearer_auth(&opened.access_token)
        })
        .await
        .map_err(SetupError::Unreachable)?;
    if answer.status >= 500 || answer.status == 429 {
        return Err(SetupError::Unreachable(format!("status {}", answer.status)));
    }
    if answer.status != 200 {
        let (_, message) = graph_error(&answer.body);
        let field = match answer.status {
            400 | 404 => "settings.phoneNumberId",
            _ => "credentials.accessToken",
        };
        return Err(SetupError::Refused {
            field,
            detail: message,
        });
    }
    let shown = answer.body["display_phone_number"].as_str().unwrap_or("");
    let number = settings
        .business_number
        .clone()
        .or_else(|| phone_digits(shown));
    Ok(Verified {
        identity: number_id.to_owned(),
        bot_user: None,
        business_number: number,
    })
}

/// Whether the body is signed with the app secret.
pub fn verified(opened: &Opened, signature: Option<&str>, body: &[u8]) -> bool {
    let Some(tag) = signature.and_then(|s| s.strip_prefix("sha256=")) else {
        return false;
    };
    !opened.app_secret.is_empty() && super::hmac_matches(opened.app_secret.as_bytes(), &[body], tag)
}

/// The text messages to this channel's number a notification carries.
pub fn read(channel: &Channel, body: &Value) -> Vec<Inbound> {
    let mine = channel.settings.phone_number_id.as_deref().unwrap_or("");
    let mut taken = Vec::new();
    let entries = body["entry"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for entry in entries {
        let changes = entry["changes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for change in changes {
            let value = &change["value"];
            if value["metadata"]["phone_number_id"].as_str() != Some(mine) {
                continue;
            }
            let contacts = value["contacts"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let messages = value["messages"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for message in messages {
                let (Some(id), Some(from), Some(text)) = (
                    message["id"].as_str(),
                    message["from"].as_str(),
                    message["text"]["body"].as_str(),
                ) else {
                    continue;
                };
                if message["type"] != "text" || text.trim().is_empty() {
                    continue;
                }
                let name = contacts
                    .iter()
                    .find(|c| c["wa_id"].as_str() == Some(from))
                    .and_then(|c| c["profile"]["name"].as_str());
                taken.push(Inbound {
                    keys: vec![format!("w:{id}")],
                    external_id: from.to_owned(),
                    display_name: name.map(str::to_owned),
                    username: None,
                    text: text.to_owned(),
                    target: ReplyTarget::Whatsapp {
                        to: from.to_owned(),
                    },
                });
            }
        }
    }
    taken
}

/// `POST /{version}/{phoneNumberId}/messages`, a text message.
pub async fn send(
    api: &VendorApis,
    opened: &Opened,
    number_id: &str,
    to: &str,
    text: &str,
) -> Result<(), SendError> {
    let body = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": "text",
        "text": {"preview_url": false, "body": text},
    });
    let url = format!(
        "{}/{}/{number_id}/messages",
        api.whatsapp, api.whatsapp_version
    );
    let answer = api
        .call(reqwest::Method::POST, &url, |r| {
            r.bearer_auth(&opened.access_token).json(&body)
        })
        .await
        .map_err(|detail| SendError::Retry {
            after: None,
            detail,
        })?;
    if answer.status == 200 {
        return Ok(());
    }
    let (code, message) = graph_error(&answer.body);
    if code.is_some_and(|c| RETRIED.contains(&c)) {
        return Err(SendError::Retry {
            after: answer.retry_after,
            detail: message,
        });
    }
    match code {
        Some(190) => Err(SendError::Auth(message)),
        _ => Err(super::by_status(&answer, message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_must_carry_its_signature() {
        use hmac::{KeyInit, Mac};
        let opened = Opened {
            app_secret: "app-secret".into(),
            ..Opened::default()
        };
        let body = br#"{"object":"whatsapp_business_account"}"#;
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"app-secret").unwrap();
        mac.update(body);
        let tag = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
        assert!(verified(&opened, Some(&tag), body));
        assert!(!verified(&opened, Some(&tag), b"{}"));
        assert!(!verified(&opened, Some("sha256=00"), body));
        assert!(!verified(&opened, None, body));
    }
}
