//! Telegram: a message answered once across redeliveries and a restart in
//! the middle of a reply's sends, a compaction pause continued, and the
//! daily budget reserved before the turn.

use std::time::Duration;

use serde_json::json;

use super::{Vendors, contacts, deliver, sent_texts, telegram_update};
use crate::common::{Server, eventually};

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

    // A long answer: three chunks in order, each sent once, across a
    // restart while the second is on its way (the vendor never took it).
    let long = format!(
        "{}\n\n{}\n\n{}",
        "a".repeat(4000),
        "b".repeat(4000),
        "c".repeat(1000)
    );
    vendors.hold("/sendMessage", "bbbb").await;
    let (status, _) = deliver(&server, &channel, &telegram_update(2, &long), &signed).await;
    assert_eq!(status, 200);
    eventually(
        Duration::from_secs(20),
        "the second chunk sent",
        async || {
            let record = vendors.record().await;
            (record["held"].as_array().unwrap().len() == 1).then_some(())
        },
    )
    .await;
    assert_eq!(sent_texts(&vendors, "/sendMessage", "text").await.len(), 2);
    let server = server.kill_and_restart();
    // After the restart, a third delivery of the first update: still one.
    assert_eq!(deliver(&server, &channel, &hello, &signed).await.0, 200);
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
            .env("ANTHROPIC_API_KEY", "sk-platform")
            .env("CONFER_ANTHROPIC_MAX_TOKENS", "16000"),
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
    // Each call's output is capped for a channel, under the instance's.
    assert!(asked.iter().all(|a| a.body["max_tokens"] == 4096));
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_ne!(replies[0], "Sorry, I could not answer just now.");
    assert!(!replies[0].is_empty());
}

/// The day's budget is reserved before the turn as a publication's: the
/// thread's last input, the message at three characters a token and the
/// output cap. A reservation past the budget gets the error reply and no
/// turn, though nothing has been spent today.
#[tokio::test]
async fn a_message_whose_reservation_passes_the_budget_gets_the_error_reply() {
    let vendors = Vendors::start();
    let server = Server::start_with(vendors.options());
    let admin = server.admin();
    let agent = admin.agent("Thrifty").await;
    let path = format!("/api/agents/{agent}/channels");
    let detail = admin
        .post(
            &path,
            json!({"kind": "telegram", "credentials": {"botToken": "123456:good-token"},
                   "settings": {"dailyTokenBudget": 999}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("settings.dailyTokenBudget"), "{detail}");
    let made = admin
        .post(
            &path,
            json!({"kind": "telegram", "credentials": {"botToken": "123456:good-token"},
                   "settings": {"dailyTokenBudget": 4000, "errorReply": "Out of tokens today."}}),
        )
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let set = vendors.to("/setWebhook").await;
    let secret = set[0]["body"]["secret_token"].as_str().unwrap().to_owned();
    let signed = [("x-telegram-bot-api-secret-token", secret.as_str())];

    // 4,096 output tokens alone pass 4,000.
    deliver(&server, &channel, &telegram_update(1, "hello"), &signed).await;
    let replies = eventually(Duration::from_secs(20), "the error reply", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (!texts.is_empty()).then_some(texts)
    })
    .await;
    assert_eq!(replies, ["Out of tokens today."]);
    let listed = contacts(&admin, &agent, &channel).await;
    let thread = listed[0]["thread_id"].as_str().unwrap().to_owned();
    let history = admin
        .get(&format!("/api/threads/{thread}/messages"))
        .await
        .expect(200);
    assert_eq!(history["messages"], json!([]), "no turn");

    admin
        .patch(
            &format!("{path}/{channel}"),
            json!({"settings": {"dailyTokenBudget": 10000}}),
        )
        .await
        .expect(200);
    deliver(
        &server,
        &channel,
        &telegram_update(2, "hello again"),
        &signed,
    )
    .await;
    let replies = eventually(Duration::from_secs(20), "the echo", async || {
        let texts = sent_texts(&vendors, "/sendMessage", "text").await;
        (texts.len() >= 2).then_some(texts)
    })
    .await;
    assert_eq!(replies[1], "hello again");
}
