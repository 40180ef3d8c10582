//! Visitors of public chats (`publishing.md` "Visitors"): sessions, their
//! tokens and secrets, the visitor's threads and sends, what a visitor may
//! reach and the limits it meets, spoken to over HTTP as the chat page does.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, EventStream, Frame, Options, Server, done_of, events_of};

/// A public chat's visitor: its session and a client with its token.
pub struct Guest {
    pub session: Value,
    pub api: Api,
    pub slug: String,
}

/// Mints a session of `slug` with `body` (status 200 asserted).
pub async fn visit(server: &Server, slug: &str, body: Value) -> Guest {
    let session = server
        .anonymous()
        .post(&format!("/api/public/chat/{slug}/session"), body)
        .await
        .expect(200);
    let token = session["token"].as_str().unwrap().to_owned();
    Guest {
        api: server.api(&token),
        session,
        slug: slug.to_owned(),
    }
}

impl Guest {
    /// The path of `rest` under the chat's prefix.
    pub fn path(&self, rest: &str) -> String {
        format!("/api/public/chat/{}{rest}", self.slug)
    }

    /// Opens a thread (status 200 asserted).
    pub async fn thread(&self, body: Value) -> Value {
        self.api
            .post(&self.path("/threads"), body)
            .await
            .expect(200)
    }

    /// Opens the SSE answer of a send.
    pub async fn open_send(
        &self,
        thread: &str,
        body: Value,
        headers: &[(&str, &str)],
    ) -> EventStream {
        let mut request = reqwest::Client::new()
            .post(format!(
                "{}{}",
                self.api.base,
                self.path(&format!("/threads/{thread}/messages"))
            ))
            .bearer_auth(self.session["token"].as_str().unwrap())
            .json(&body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        EventStream::of(request.send().await.unwrap())
    }

    /// Sends `content` and returns every frame (status 200 asserted).
    pub async fn say(&self, thread: &str, content: &str) -> Vec<Frame> {
        let stream = self
            .open_send(thread, json!({"content": content}), &[])
            .await;
        assert_eq!(stream.status, 200);
        stream.collect().await
    }
}

/// Publishes a new agent as `slug` with `fields`; the agent's id.
pub async fn publish(admin: &Api, slug: &str, fields: Value) -> String {
    let agent = admin.agent("Helpdesk").await;
    let mut body = json!({"slug": slug});
    body.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    admin
        .post(&format!("/api/agents/{agent}/publish"), body)
        .await
        .expect(201);
    agent
}

/// A session answers a token, a secret that resumes the same visitor, and
/// nothing is stored by minting; the token reaches only its chat's routes,
/// and keys and JWTs are refused on those.
#[tokio::test]
async fn a_visitor_session_reaches_only_its_chat() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(&admin, "helpdesk", json!({})).await;
    publish(&admin, "other-chat", json!({})).await;
    let guest = visit(&server, "helpdesk", json!({})).await;
    let session = &guest.session;
    assert!(session["token"].as_str().unwrap().starts_with("cfv_"));
    assert!(
        session["visitor_secret"]
            .as_str()
            .unwrap()
            .starts_with("cvs_")
    );
    assert_eq!(session["resumed"], false);
    assert_eq!(session["user"], Value::Null);
    assert_eq!(session["expires_in"], 900);

    // The token is refused by every other route, naming the public prefix.
    let detail = guest
        .api
        .get("/api/agents")
        .await
        .expect_error(403, "FORBIDDEN");
    assert!(detail.contains("/api/public/chat/"), "{detail}");
    // Keys are refused on the public routes.
    admin
        .get(&guest.path("/threads"))
        .await
        .expect_error(401, "UNAUTHORIZED");
    // Another chat's routes refuse this chat's token.
    guest
        .api
        .get("/api/public/chat/other-chat/threads")
        .await
        .expect_error(401, "UNAUTHORIZED");

    let thread = guest.thread(json!({"title": "Help"})).await;
    let id = thread["id"].as_str().unwrap();
    assert_eq!(thread["kind"], "single");
    assert_eq!(thread["role"], Value::Null);
    let frames = guest.say(id, "hello there visitor").await;
    assert_eq!(done_of(&frames)["content"], "hello there visitor");
    let history = guest
        .api
        .get(&guest.path(&format!("/threads/{id}/messages")))
        .await
        .expect(200);
    assert_eq!(history["total"], 2);

    // Another visitor does not find it.
    let stranger = visit(&server, "helpdesk", json!({})).await;
    assert_ne!(stranger.session["visitor_id"], session["visitor_id"]);
    stranger
        .api
        .get(&stranger.path(&format!("/threads/{id}")))
        .await
        .expect_error(404, "NOT_FOUND");
    let listed = stranger
        .api
        .get(&stranger.path("/threads"))
        .await
        .expect(200);
    assert_eq!(listed["threads"], json!([]));

    // The secret resumes the same visitor, with its threads.
    let again = visit(
        &server,
        "helpdesk",
        json!({"visitorSecret": session["visitor_secret"]}),
    )
    .await;
    assert_eq!(again.session["visitor_id"], session["visitor_id"]);
    assert_eq!(again.session["resumed"], true);
    let mine = again.api.get(&again.path("/threads")).await.expect(200);
    assert_eq!(mine["threads"][0]["id"], id);
    // A forged secret is a new visitor.
    let forged = visit(&server, "helpdesk", json!({"visitorSecret": "cvs_AAAA"})).await;
    assert_eq!(forged.session["resumed"], false);

    // The org sees the thread, made through the publication.
    let seen = admin.get(&format!("/api/threads/{id}")).await.expect(200);
    assert_eq!(seen["agent_id"], agent);
    assert!(seen["publication_id"].is_string());
    let visitor_id = format!("visitor:{}", session["visitor_id"].as_str().unwrap());
    assert_eq!(seen["created_by"], visitor_id);
    assert_eq!(seen["metadata"]["publication"], "helpdesk");
    assert_eq!(seen["metadata"]["visitor"], visitor_id);
}

/// A visitor may send only `content` and `ifBusy`, within the chat's
/// length; a refused send stores nothing.
#[tokio::test]
async fn a_visitor_sends_only_content() {
    let server = Server::start();
    let admin = server.admin();
    publish(
        &admin,
        "helpdesk",
        json!({"limits": {"maxMessageChars": 10}}),
    )
    .await;
    let guest = visit(&server, "helpdesk", json!({})).await;
    let thread = guest.thread(json!({})).await;
    let id = thread["id"].as_str().unwrap();
    let path = guest.path(&format!("/threads/{id}/messages"));
    for field in [
        "tools",
        "modelOverride",
        "senderId",
        "senderName",
        "metadata",
        "toolProfile",
    ] {
        let mut body = json!({"content": "hi"});
        body[field] = json!("x");
        let detail = guest
            .api
            .post(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{detail}");
    }
    // Ten scalars pass, eleven do not (é is one scalar, two bytes).
    let frames = guest.say(id, "éééééééééé").await;
    assert_eq!(done_of(&frames)["ok"], true);
    let detail = guest
        .api
        .post(&path, json!({"content": "ééééééééééé"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("content"), "{detail}");
    let history = guest.api.get(&path).await.expect(200);
    assert_eq!(history["total"], 2, "only the accepted send is stored");
}

/// Pausing refuses new sessions (`PUBLICATION_PAUSED`) and ends the old
/// tokens; so does `revokeSessions`; reactivating lets visitors back in
/// with new sessions only.
#[tokio::test]
async fn pausing_or_revoking_ends_every_session() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(&admin, "helpdesk", json!({})).await;
    let path = format!("/api/agents/{agent}/publish");
    let guest = visit(&server, "helpdesk", json!({})).await;
    guest.api.get(&guest.path("/threads")).await.expect(200);
    admin
        .patch(&path, json!({"status": "paused"}))
        .await
        .expect(200);
    let detail = guest
        .api
        .get(&guest.path("/threads"))
        .await
        .expect_error(401, "UNAUTHORIZED");
    assert!(detail.contains("revoked"), "{detail}");
    server
        .anonymous()
        .post("/api/public/chat/helpdesk/session", json!({}))
        .await
        .expect_error(403, "PUBLICATION_PAUSED");
    admin
        .patch(&path, json!({"status": "active"}))
        .await
        .expect(200);
    guest
        .api
        .get(&guest.path("/threads"))
        .await
        .expect_error(401, "UNAUTHORIZED");
    let fresh = visit(&server, "helpdesk", json!({})).await;
    fresh.api.get(&fresh.path("/threads")).await.expect(200);
    admin
        .patch(&path, json!({"revokeSessions": true}))
        .await
        .expect(200);
    fresh
        .api
        .get(&fresh.path("/threads"))
        .await
        .expect_error(401, "UNAUTHORIZED");
    server
        .anonymous()
        .post("/api/public/chat/nobody/session", json!({}))
        .await
        .expect_error(404, "NOT_FOUND");
}

/// A host-signed identity: required means no session without one; a valid
/// one is the same visitor on every device; a bad one is 401 naming it; a
/// claimed origin off the allow-list is 403.
#[tokio::test]
async fn host_identities_are_checked_and_stable() {
    let server = Server::start();
    let admin = server.admin();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://shop.example.com"]}),
        )
        .await
        .expect(200);
    let agent = admin.agent("Helpdesk").await;
    let published = admin
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": "members", "identity": "required"}),
        )
        .await
        .expect(201);
    let secret = published["identity_secret"].as_str().unwrap().to_owned();
    let anonymous = server.anonymous();
    let mint = |body: Value| {
        let anonymous = anonymous.clone();
        async move {
            anonymous
                .post("/api/public/chat/members/session", body)
                .await
        }
    };
    let detail = mint(json!({})).await.expect_error(401, "UNAUTHORIZED");
    assert!(detail.starts_with("userToken"), "{detail}");
    let signed = |key: &str, claims: Value| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::default(),
            &claims,
            &jsonwebtoken::EncodingKey::from_secret(key.as_bytes()),
        )
        .unwrap()
    };
    let exp = crate::common::exp_in(600);
    let token = signed(
        &secret,
        json!({"sub": "u-17", "exp": exp, "name": "Ann", "aud": "members"}),
    );
    let first = mint(json!({"userToken": token})).await.expect(200);
    assert_eq!(first["user"], json!({"id": "u-17", "name": "Ann"}));
    let second = mint(json!({"userToken": token})).await.expect(200);
    assert_eq!(first["visitor_id"], second["visitor_id"]);
    let forged = signed("cfi_wrong", json!({"sub": "u-17", "exp": exp}));
    let detail = mint(json!({"userToken": forged}))
        .await
        .expect_error(401, "UNAUTHORIZED");
    assert!(detail.starts_with("userToken"), "{detail}");
    mint(json!({"userToken": token, "origin": "https://shop.example.com"}))
        .await
        .expect(200);
    mint(json!({"userToken": token, "origin": "https://evil.example.net"}))
        .await
        .expect_error(403, "FORBIDDEN");
    // The identity's threads carry its id.
    let guest = server.api(first["token"].as_str().unwrap());
    let thread = guest
        .post("/api/public/chat/members/threads", json!({}))
        .await
        .expect(200);
    let seen = admin
        .get(&format!("/api/threads/{}", thread["id"].as_str().unwrap()))
        .await
        .expect(200);
    let publication = published["id"].as_str().unwrap();
    assert_eq!(seen["created_by"], format!("ext:{publication}:u-17"));
}

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

/// Multiplayer chats: an invite link joins, the cap holds, `rotate` kills
/// the old code, `owner` keeps invitations to owners, participants are
/// shown without their ids, and owners remove others while members may
/// only leave.
#[tokio::test]
async fn visitors_join_a_multiplayer_chat_by_link() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(&admin, "together", json!({"mode": "multiplayer"})).await;
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"maxParticipants": 2}),
        )
        .await
        .expect(200);
    let owner = visit(&server, "together", json!({})).await;
    let detail = owner
        .api
        .post(&owner.path("/threads"), json!({}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("displayName"), "{detail}");
    let thread = owner.thread(json!({"displayName": "Ann"})).await;
    assert_eq!(thread["kind"], "multiplayer");
    assert_eq!(thread["role"], "owner");
    let id = thread["id"].as_str().unwrap();
    let invite = owner
        .api
        .post(&owner.path(&format!("/threads/{id}/invite")), json!({}))
        .await
        .expect(200);
    let url = invite["invite_url"].as_str().unwrap().to_owned();
    let (page, fragment) = url.split_once("#join=").unwrap();
    assert!(page.ends_with("/c/together"), "{url}");
    let (thread_part, code) = fragment.split_once('.').unwrap();
    assert_eq!(thread_part, id);

    let guest = visit(&server, "together", json!({})).await;
    let join = guest.path(&format!("/threads/{id}/join"));
    guest
        .api
        .post(&join, json!({"code": "wrong", "displayName": "Bo"}))
        .await
        .expect_error(404, "NOT_FOUND");
    // Not yet a participant: the thread is not found.
    guest
        .api
        .get(&guest.path(&format!("/threads/{id}")))
        .await
        .expect_error(404, "NOT_FOUND");
    // The same name is made unique.
    let joined = guest
        .api
        .post(&join, json!({"code": code, "displayName": "Ann"}))
        .await
        .expect(200);
    assert_eq!(joined["role"], "member");
    let people = guest
        .api
        .get(&guest.path(&format!("/threads/{id}/participants")))
        .await
        .expect(200);
    let names: Vec<&str> = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["display_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Ann") && names.contains(&"Ann 2"),
        "{people}"
    );
    let text = people.to_string();
    assert!(!text.contains("visitor:"), "ids are hidden: {text}");
    let me = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["is_you"] == true)
        .unwrap()
        .clone();
    assert_eq!(me["display_name"], "Ann 2");

    // The third is past the cap of two.
    let third = visit(&server, "together", json!({})).await;
    third
        .api
        .post(
            &third.path(&format!("/threads/{id}/join")),
            json!({"code": code, "displayName": "Cy"}),
        )
        .await
        .expect_error(409, "CONFLICT");

    // A member may not remove the owner, but may leave.
    let owner_entry = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["is_you"] == false)
        .unwrap()
        .clone();
    let members = guest.path(&format!("/threads/{id}/participants"));
    guest
        .api
        .delete_with(&members, json!({"participantId": owner_entry["id"]}))
        .await
        .expect_error(403, "FORBIDDEN");

    // Under `owner`, a member gets no invite link; the owner does.
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"whoCanInvite": "owner"}),
        )
        .await
        .expect(200);
    guest
        .api
        .post(&guest.path(&format!("/threads/{id}/invite")), json!({}))
        .await
        .expect_error(403, "FORBIDDEN");
    // Rotating kills the old code.
    let rotated = owner
        .api
        .post(
            &owner.path(&format!("/threads/{id}/invite")),
            json!({"rotate": true}),
        )
        .await
        .expect(200);
    assert_ne!(rotated["invite_url"], invite["invite_url"]);
    guest
        .api
        .delete_with(&members, json!({"participantId": me["id"]}))
        .await
        .expect(200);
    guest
        .api
        .post(&join, json!({"code": code, "displayName": "Bo"}))
        .await
        .expect_error(404, "NOT_FOUND");
    let new_code = rotated["invite_url"]
        .as_str()
        .unwrap()
        .rsplit_once('.')
        .unwrap()
        .1
        .to_owned();
    guest
        .api
        .post(&join, json!({"code": new_code, "displayName": "Bo"}))
        .await
        .expect(200);
    // A single chat has no invitations.
    publish(&admin, "alone", json!({})).await;
    let solo = visit(&server, "alone", json!({})).await;
    let thread = solo.thread(json!({})).await;
    solo.api
        .post(
            &solo.path(&format!(
                "/threads/{}/invite",
                thread["id"].as_str().unwrap()
            )),
            json!({}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
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

/// A public chat runs only the tools its publication lists: the vendor is
/// offered only those, a webhook not listed is never called from the chat
/// (an API send calls it), a listed one is, with the visitor as `userId`;
/// the visitor's stream carries no arguments or results.
#[tokio::test]
async fn a_public_chat_runs_only_its_public_tools() {
    use crate::mock::{Reply, fixture};
    let (vendor, hooks, server) = crate::org_tools::rig().await;
    let admin = server.admin();
    for name in ["get_weather", "get_time"] {
        crate::org_tools::tool(&admin, &hooks, name, json!({})).await;
    }
    let agent = admin
        .agent_with(json!({"name": "Tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    admin
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": "weather", "publicTools": ["get_weather"]}),
        )
        .await
        .expect(201);
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let guest = visit(&server, "weather", json!({})).await;
    let thread = guest.thread(json!({})).await;
    let frames = guest
        .say(thread["id"].as_str().unwrap(), "Weather in Paris?")
        .await;
    assert_eq!(done_of(&frames)["ok"], true);

    let requests = vendor.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["get_weather"]);
    let calls = hooks.requests();
    assert_eq!(calls.len(), 1, "get_time was never called");
    assert_eq!(calls[0].body["toolName"], "get_weather");
    let visitor = format!("visitor:{}", guest.session["visitor_id"].as_str().unwrap());
    assert_eq!(calls[0].body["userId"], visitor);

    let shown: Vec<&Frame> = frames
        .iter()
        .filter(|f| f.event.starts_with("tool_"))
        .collect();
    assert!(!shown.is_empty());
    for frame in &shown {
        let text = frame.data.to_string();
        assert!(
            !text.contains("Paris") && !text.contains("sunny") && !text.contains("arguments"),
            "{}: {text}",
            frame.event
        );
    }
    let call = frames.iter().find(|f| f.event == "tool_call").unwrap();
    assert_eq!(
        call.data,
        json!({"tool": {"id": "call_A", "name": "get_weather"}})
    );

    // An API send on the same agent offers and calls both.
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    hooks.push(Reply::json(200, json!({"value": "noon"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let org_thread = admin.thread(&agent, json!({})).await;
    let frames = admin
        .say(&org_thread, json!({"content": "Weather in Paris?"}))
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let names: Vec<String> = hooks
        .requests()
        .iter()
        .map(|c| c.body["toolName"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"get_time".to_owned()), "{names:?}");
}

/// A chat holds at most `CONFER_PUBLIC_MAX_THREADS` threads (409), and a
/// visitor thread idle past `retentionDays` is deleted by the sweep, which
/// runs again at every start: one left idle while the server was down goes
/// at the next start, a recent one stays.
#[tokio::test]
async fn visitor_threads_are_capped_and_swept_after_their_retention() {
    let server = Server::start_with(Options::default().env("CONFER_PUBLIC_MAX_THREADS", "2"));
    let admin = server.admin();
    let agent = publish(&admin, "kept", json!({"retentionDays": 1})).await;
    let publication = admin
        .get(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    let org: confer_actors::OrgId = publication["org_id"].as_str().unwrap().parse().unwrap();
    let publication_id: confer_actors::PublicationId =
        publication["id"].as_str().unwrap().parse().unwrap();
    let agent_id: confer_actors::AgentId = agent.parse().unwrap();
    let (data, options) = server.kill();

    // Offline: an old visitor thread (the org has no thread yet, so its
    // clock takes the old time), then a recent one.
    let (old, recent) = {
        let store = confer::store::Store::open(data.path()).unwrap();
        let made = store.with_inner(|s| {
            let mut ids = Vec::new();
            for age in [chrono::TimeDelta::days(3), chrono::TimeDelta::zero()] {
                let at = chrono::Utc::now() - age;
                let thread = confer_actors::Thread {
                    id: confer_actors::ThreadId::new(),
                    org_id: org,
                    agent_id,
                    title: None,
                    kind: confer_actors::ThreadKind::Single,
                    active_profile: None,
                    metadata: Default::default(),
                    system_prompt_overlay: None,
                    resource_bindings: Vec::new(),
                    created_by: "visitor:0000".into(),
                    publication_id: Some(publication_id),
                    invite_generation: 0,
                    created_at: at,
                    updated_at: at,
                };
                ids.push(s.create_thread(&thread, None).unwrap().id);
            }
            ids
        });
        store.flush_now().unwrap();
        (made[0], made[1])
    };
    let server = Server::start_in(data, options);
    let admin = server.admin();
    crate::common::eventually(
        Duration::from_secs(10),
        "the old thread swept",
        async || {
            let reply = admin.get(&format!("/api/threads/{old}")).await;
            (reply.status == 404).then_some(())
        },
    )
    .await;
    admin
        .get(&format!("/api/threads/{recent}"))
        .await
        .expect(200);

    // Two threads held (the recent one and this one): the third is refused.
    let guest = visit(&server, "kept", json!({})).await;
    guest.thread(json!({})).await;
    let detail = guest
        .api
        .post(&guest.path("/threads"), json!({}))
        .await
        .expect_error(409, "CONFLICT");
    assert!(detail.contains("CONFER_PUBLIC_MAX_THREADS"), "{detail}");
    // Deleting one frees its place.
    admin
        .delete(&format!("/api/threads/{recent}"))
        .await
        .expect(200);
    guest.thread(json!({})).await;
}
