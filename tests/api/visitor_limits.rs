//! Public chats' limits (`publishing.md` "Visitors" rules 6, 7 and
//! "Publications" rule 6): each limit before any effect, the running turns,
//! the daily budget, and the end of sessions on a revoke or a delete.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::common::{Options, Server, done_of, events_of};
use crate::visitors::{publish, visit};

/// Each limit answers 429 with `Retry-After` before any effect: the
/// visitor's and the IP's messages a minute, mints per IP, the chat's
/// running turns; `X-Forwarded-For` counts only from a trusted proxy.
#[tokio::test]
async fn visitors_meet_each_limit_before_any_effect() {
    let server = Server::start_with(
        Options::default()
            .env("CONFER_PUBLIC_MINTS_PER_IP_PER_MIN", "3")
            .env("CONFER_TRUSTED_PROXIES", "127.0.0.1/32")
            .env("CONFER_BUILTIN_DELAY_MS", "200"),
    );
    let admin = server.admin();
    publish(
        &admin,
        "helpdesk",
        json!({"limits": {"visitorMessagesPerMinute": 2, "ipMessagesPerMinute": 3,
                          "maxConcurrentTurns": 1}}),
    )
    .await;
    let client = reqwest::Client::new();
    let mint_from = |forwarded: &'static str| {
        client
            .post(format!("{}/api/public/chat/helpdesk/session", server.base))
            .header("x-forwarded-for", forwarded)
            .json(&json!({}))
            .send()
    };
    for _ in 0..3 {
        assert_eq!(mint_from("203.0.113.1").await.unwrap().status(), 200);
    }
    let refused = mint_from("203.0.113.1").await.unwrap();
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    // The trusted proxy's header names another client.
    assert_eq!(mint_from("203.0.113.2").await.unwrap().status(), 200);

    let guest = visit(&server, "helpdesk", json!({})).await;
    let thread = guest.thread(json!({})).await; // counts as a send: 1 of 2
    let id = thread["id"].as_str().unwrap();
    // A slow answer holds the chat's one running turn.
    let mut running = guest
        .open_send(id, json!({"content": "one two three four five six"}), &[])
        .await;
    assert_eq!(running.status, 200);
    running.next_within(Duration::from_secs(10)).await.unwrap();
    let path = guest.path(&format!("/threads/{id}/messages"));
    let visitor_limit = guest
        .api
        .request_with(Method::POST, &path, Some(json!({"content": "hi"})), &[])
        .await;
    assert_eq!(visitor_limit.status, 429, "{:?}", visitor_limit.body);
    assert_eq!(visitor_limit.body["error"], "RATE_LIMITED");
    let detail = visitor_limit.body["detail"].as_str().unwrap();
    assert!(detail.starts_with("visitor messages"), "{detail}");
    let _ = running.collect().await;

    // Another visitor on the same address: the IP's 3 a minute are spent
    // by the first visitor's two and this one's thread.
    let neighbour = visit(&server, "helpdesk", json!({})).await;
    let other = neighbour.thread(json!({})).await;
    let detail = neighbour
        .api
        .post(
            &neighbour.path(&format!(
                "/threads/{}/messages",
                other["id"].as_str().unwrap()
            )),
            json!({"content": "hi"}),
        )
        .await
        .expect_error(429, "RATE_LIMITED");
    assert!(detail.contains("address"), "{detail}");
    let history = guest.api.get(&path).await.expect(200);
    assert_eq!(history["total"], 2, "refused sends store nothing");
}

/// One running turn per chat: a second visitor's send waits for none and
/// is refused with `Retry-After: 2`; once the first is done, it goes.
#[tokio::test]
async fn a_chat_runs_at_most_its_concurrent_turns() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "100"));
    let admin = server.admin();
    publish(
        &admin,
        "helpdesk",
        json!({"limits": {"maxConcurrentTurns": 1}}),
    )
    .await;
    let first = visit(&server, "helpdesk", json!({})).await;
    let second = visit(&server, "helpdesk", json!({})).await;
    let a = first.thread(json!({})).await;
    let b = second.thread(json!({})).await;
    let mut running = first
        .open_send(
            a["id"].as_str().unwrap(),
            json!({"content": "a b c d e f g h"}),
            &[],
        )
        .await;
    running.next_within(Duration::from_secs(10)).await.unwrap();
    let refused = second
        .open_send(b["id"].as_str().unwrap(), json!({"content": "hi"}), &[])
        .await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.headers["retry-after"], "2");
    let frames = running.collect().await;
    assert_eq!(done_of(&frames)["ok"], true);
    // The slot is released with the turn's end (a refused try spends one
    // of the visitor's ten messages a minute, so a few tries only).
    let mut tries = 0;
    loop {
        let stream = second
            .open_send(b["id"].as_str().unwrap(), json!({"content": "hi"}), &[])
            .await;
        if stream.status == 200 {
            assert_eq!(events_of(&stream.collect().await, "done").len(), 1);
            break;
        }
        tries += 1;
        assert!(tries < 6, "the running-turn slot was not released");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A chat's daily budget: sends go until one would pass it, which is 429
/// `BUDGET_EXHAUSTED` with `Retry-After` to midnight and stores nothing;
/// `usage_today.tokens` is the sum of the chat's usage records, also after
/// a restart.
#[tokio::test]
async fn a_chat_stops_at_its_daily_budget() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(
        &admin,
        "thrifty",
        json!({"limits": {"dailyTokenBudget": 1000, "maxOutputTokens": 64,
                          "visitorMessagesPerMinute": 600, "ipMessagesPerMinute": 6000}}),
    )
    .await;
    let guest = visit(&server, "thrifty", json!({})).await;
    let thread = guest.thread(json!({})).await;
    let id = thread["id"].as_str().unwrap().to_owned();
    let path = guest.path(&format!("/threads/{id}/messages"));
    let message = "the quick brown fox jumps over the lazy dog ".repeat(4);
    let mut sent = 0;
    let refusal = loop {
        let stream = guest.open_send(&id, json!({"content": message}), &[]).await;
        if stream.status != 200 {
            break stream;
        }
        assert_eq!(done_of(&stream.collect().await)["ok"], true);
        sent += 1;
        assert!(sent < 100, "the budget never ran out");
    };
    assert!(sent >= 1, "at least one send fits");
    assert_eq!(refusal.status, 429);
    let wait: u64 = refusal.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&wait), "{wait}");
    let history = guest.api.get(&path).await.expect(200);
    assert_eq!(
        history["total"],
        sent * 2,
        "the refused send stored nothing"
    );
    let refused = guest
        .api
        .post(&path, json!({"content": message}))
        .await
        .expect_error(429, "BUDGET_EXHAUSTED");
    assert!(refused.contains("dailyTokenBudget"), "{refused}");

    let usage = admin
        .get(&format!("/api/usage?agentId={agent}&limit=200"))
        .await
        .expect(200);
    let records = usage["records"].as_array().unwrap();
    assert_eq!(records.len(), sent as usize);
    let total: u64 = records
        .iter()
        .map(|r| r["input_tokens"].as_u64().unwrap() + r["output_tokens"].as_u64().unwrap())
        .sum();
    let publication = admin
        .get(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    let today = &publication["usage_today"];
    assert_eq!(today["tokens"], total, "{today}");
    assert_eq!(today["reserved"], 0);
    assert_eq!(today["budget"], 1000);
    assert!(
        today["resets_at"]
            .as_str()
            .unwrap()
            .ends_with("T00:00:00.000000Z")
    );

    let server = server.kill_and_restart();
    let after = server
        .admin()
        .get(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    assert_eq!(after["usage_today"]["tokens"], total);
    // The same token still works (the instance key is kept), and the
    // thread's next send still does not fit.
    let again = server.api(guest.session["token"].as_str().unwrap());
    again
        .post(&path, json!({"content": message}))
        .await
        .expect_error(429, "BUDGET_EXHAUSTED");
}

/// A running public turn and its stream end within a second of a
/// `revokeSessions` or a DELETE: the turn stops as `/stop` stops it, the
/// visitor's stream closes, old tokens are 401; after the DELETE the org
/// still reads the thread and the slug is free.
#[tokio::test]
async fn revoking_or_deleting_stops_public_turns_at_once() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "200"));
    let admin = server.admin();
    let agent = publish(&admin, "helpdesk", json!({})).await;
    let publish_path = format!("/api/agents/{agent}/publish");
    let long = "one two three four five six seven eight nine ten eleven twelve";

    for how in ["revoke", "delete"] {
        let guest = visit(&server, "helpdesk", json!({})).await;
        let thread = guest.thread(json!({})).await;
        let id = thread["id"].as_str().unwrap().to_owned();
        let mut running = guest.open_send(&id, json!({"content": long}), &[]).await;
        assert_eq!(running.status, 200);
        running.next_within(Duration::from_secs(10)).await.unwrap();
        // The org watches the same turn through the API.
        let mut watch = admin.open_watch(&id, "", Some("1.0")).await;
        assert_eq!(watch.status, 200);
        let asked = std::time::Instant::now();
        match how {
            "revoke" => {
                admin
                    .patch(&publish_path, json!({"revokeSessions": true}))
                    .await
                    .expect(200);
            }
            _ => {
                admin.delete(&publish_path).await.expect(200);
            }
        }
        // The visitor's stream closes without its `done`.
        let rest = tokio::time::timeout(Duration::from_secs(1), running.collect())
            .await
            .expect("the public stream closed within 1 s");
        assert!(events_of(&rest, "done").is_empty(), "{how}: {rest:?}");
        // The turn was stopped, well before its dozen tokens at 200 ms.
        let done = loop {
            let frame = watch.next_within(Duration::from_secs(2)).await.unwrap();
            if frame.event == "done" {
                break frame.data;
            }
        };
        assert!(asked.elapsed() < Duration::from_secs(1), "{how}");
        assert_eq!(done["stopped"], true, "{how}: {done}");
        guest
            .api
            .get(&guest.path("/threads"))
            .await
            .expect_error(401, "UNAUTHORIZED");
        // The org still reads the thread and the visitor's message.
        let seen = admin.get(&format!("/api/threads/{id}")).await.expect(200);
        assert!(seen["publication_id"].is_string());
        assert_eq!(admin.history(&id).await[0]["content"], long, "{how}");
    }
    // The slug is free again.
    let other = admin.agent("Next").await;
    admin
        .post(
            &format!("/api/agents/{other}/publish"),
            json!({"slug": "helpdesk"}),
        )
        .await
        .expect(201);
}
