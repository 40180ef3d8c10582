//! Telegram's Bot API: `getMe`, then `setWebhook` once the bot is known to
//! be free, at create; the webhook's
//! secret header, private-chat text messages, `sendMessage`.

use serde_json::{Value, json};

use super::{Answer, Inbound, ReplyTarget, SendError, SetupError, VendorApis, Verified, same};
use crate::channels::Opened;

/// The header Telegram sends the webhook's secret in.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

fn url(api: &VendorApis, opened: &Opened, method: &str) -> String {
    format!("{}/bot{}/{method}", api.telegram, opened.bot_token)
}

/// The Bot API's refusal text, or the status.
fn refusal(answer: &Answer) -> String {
    answer
        .body
        .get("description")
        .and_then(Value::as_str)
        .map_or_else(|| format!("status {}", answer.status), str::to_owned)
}

fn ok(answer: &Answer) -> bool {
    answer.status == 200 && answer.body.get("ok") == Some(&Value::Bool(true))
}

/// One Bot API call of a channel's setup: its answer when `ok`, a refusal
/// of the token otherwise, the vendor's silence or 5xx as unreachable.
async fn setup_call(
    api: &VendorApis,
    opened: &Opened,
    method: &str,
    body: Option<Value>,
) -> Result<Answer, SetupError> {
    let (verb, body) = match body {
        Some(body) => (reqwest::Method::POST, Some(body)),
        None => (reqwest::Method::GET, None),
    };
    let answer = api
        .call(verb, &url(api, opened, method), |r| match &body {
            Some(body) => r.json(body),
            None => r,
        })
        .await
        .map_err(SetupError::Unreachable)?;
    if answer.status >= 500 {
        return Err(SetupError::Unreachable(refusal(&answer)));
    }
    if !ok(&answer) {
        return Err(SetupError::Refused {
            field: "credentials.botToken",
            detail: format!("{method}: {}", refusal(&answer)),
        });
    }
    Ok(answer)
}

/// `getMe`: the bot's id and username.
pub async fn setup(api: &VendorApis, opened: &Opened) -> Result<Verified, SetupError> {
    let me = setup_call(api, opened, "getMe", None).await?;
    let result = &me.body["result"];
    let Some(id) = result.get("id").and_then(Value::as_i64) else {
        return Err(SetupError::Unreachable("getMe answered no bot id".into()));
    };
    Ok(Verified {
        identity: id.to_string(),
        bot_user: result
            .get("username")
            .and_then(Value::as_str)
            .map(str::to_owned),
        business_number: None,
    })
}

/// `setWebhook {url, secret_token, allowed_updates: ["message"]}`.
pub async fn register(
    api: &VendorApis,
    opened: &Opened,
    webhook_url: &str,
) -> Result<(), SetupError> {
    let body = json!({
        "url": webhook_url,
        "secret_token": opened.secret_token,
        "allowed_updates": ["message"],
    });
    setup_call(api, opened, "setWebhook", Some(body)).await?;
    Ok(())
}

/// `deleteWebhook` (a deleted channel's cleanup).
pub async fn delete_webhook(api: &VendorApis, opened: &Opened) -> Result<(), SendError> {
    let answer = api
        .call(
            reqwest::Method::POST,
            &url(api, opened, "deleteWebhook"),
            |r| r.json(&json!({})),
        )
        .await
        .map_err(|detail| SendError::Retry {
            after: None,
            detail,
        })?;
    if ok(&answer) {
        Ok(())
    } else {
        Err(super::by_status(&answer, refusal(&answer)))
    }
}

/// Whether the delivery carries the channel's secret.
pub fn verified(opened: &Opened, secret: Option<&str>) -> bool {
    let given = secret.unwrap_or("");
    !opened.secret_token.is_empty() && same(opened.secret_token.as_bytes(), given.as_bytes())
}

/// The private chat's text message an update carries, if any (not from a
/// bot).
pub fn read(update: &Value) -> Vec<Inbound> {
    let message = &update["message"];
    let from = &message["from"];
    let private = message["chat"]["type"] == "private";
    let (Some(update_id), Some(text), Some(from_id), Some(chat_id)) = (
        update["update_id"].as_i64(),
        message["text"].as_str(),
        from["id"].as_i64(),
        message["chat"]["id"].as_i64(),
    ) else {
        return Vec::new();
    };
    if !private || from["is_bot"] == true || text.trim().is_empty() {
        return Vec::new();
    }
    let name = [from["first_name"].as_str(), from["last_name"].as_str()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    vec![Inbound {
        keys: vec![format!("u:{update_id}")],
        external_id: from_id.to_string(),
        display_name: Some(name).filter(|n| !n.is_empty()),
        username: from["username"].as_str().map(str::to_owned),
        text: text.to_owned(),
        target: ReplyTarget::Telegram { chat_id },
    }]
}

/// `sendMessage {chat_id, text}` (no `parse_mode`: plain text).
pub async fn send(
    api: &VendorApis,
    opened: &Opened,
    chat_id: i64,
    text: &str,
) -> Result<(), SendError> {
    let body = json!({"chat_id": chat_id, "text": text});
    let answer = api
        .call(
            reqwest::Method::POST,
            &url(api, opened, "sendMessage"),
            |r| r.json(&body),
        )
        .await
        .map_err(|detail| SendError::Retry {
            after: None,
            detail,
        })?;
    if ok(&answer) {
        return Ok(());
    }
    let after = answer.retry_after.or_else(|| {
        answer.body["parameters"]["retry_after"]
            .as_u64()
            .map(std::time::Duration::from_secs)
    });
    match super::by_status(&answer, refusal(&answer)) {
        SendError::Retry { detail, .. } => Err(SendError::Retry { after, detail }),
        other => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_private_text_from_people_is_taken() {
        let update = |chat: &str, bot: bool, text: Value| {
            json!({"update_id": 7, "message": {"message_id": 1, "text": text,
                "from": {"id": 42, "is_bot": bot, "first_name": "Ada", "username": "ada"},
                "chat": {"id": 42, "type": chat}}})
        };
        let taken = read(&update("private", false, json!("hi")));
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].keys, ["u:7"]);
        assert_eq!(taken[0].external_id, "42");
        assert_eq!(taken[0].display_name.as_deref(), Some("Ada"));
        assert_eq!(taken[0].target, ReplyTarget::Telegram { chat_id: 42 });
        assert!(read(&update("group", false, json!("hi"))).is_empty());
        assert!(read(&update("private", true, json!("hi"))).is_empty());
        assert!(read(&update("private", false, Value::Null)).is_empty());
    }

    #[test]
    fn the_secret_must_match() {
        let opened = Opened {
            secret_token: "s3cret".into(),
            ..Opened::default()
        };
        assert!(verified(&opened, Some("s3cret")));
        assert!(!verified(&opened, Some("other")));
        assert!(!verified(&opened, None));
        assert!(!verified(&Opened::default(), Some("")));
    }
}
