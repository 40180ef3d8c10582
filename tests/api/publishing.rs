//! Publishing (`publishing.md`): the publication resource, the org's embed
//! domains and the multiplayer configuration, spoken to over HTTP.

use serde_json::{Value, json};

use crate::common::{Options, Server};

/// The org's allowed embed domains: the grammar's 422s name the entry,
/// entries are stored in one form, and members read but only admins write.
#[tokio::test]
async fn the_org_allow_list_keeps_to_its_grammar() {
    let server = Server::start();
    let admin = server.admin();
    let empty = admin.get("/api/orgs/settings").await.expect(200);
    assert_eq!(empty["allowed_embed_domains"], json!([]));
    assert_eq!(empty["org_id"], admin.org_id().await);
    for (bad, index) in [
        (json!(["https://a.example.com", "*"]), 1),
        (json!(["https://a.example.com/path"]), 0),
        (json!(["http://example.com"]), 0),
        (
            json!(["https://x.example.com", "https://user@b.example.com"]),
            1,
        ),
        (json!(["https://a.example.com; script-src *"]), 0),
        (json!(["https://*.com"]), 0),
    ] {
        let detail = admin
            .post("/api/orgs/settings", json!({"allowedEmbedDomains": bad}))
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(
            detail.contains(&format!("allowedEmbedDomains[{index}]")),
            "{detail}"
        );
    }
    let too_many: Vec<String> = (0..101)
        .map(|n| format!("https://h{n}.example.com"))
        .collect();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": too_many}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    // Nothing of a refused write was stored.
    let unchanged = admin.get("/api/orgs/settings").await.expect(200);
    assert_eq!(unchanged["allowed_embed_domains"], json!([]));

    let stored = admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["HTTPS://Shop.Example.com/", "https://*.example.org:8443",
                    "https://bücher.de", "http://allowed.localhost:8080", "https://shop.example.com"]}),
        )
        .await
        .expect(200);
    assert_eq!(
        stored["allowed_embed_domains"],
        json!([
            "https://shop.example.com",
            "https://*.example.org:8443",
            "https://xn--bcher-kva.de",
            "http://allowed.localhost:8080"
        ])
    );
    assert!(stored["updated_at"].is_string());
    let member = server.api(&admin.new_key("member").await);
    assert_eq!(member.get("/api/orgs/settings").await.expect(200), stored);
    member
        .post("/api/orgs/settings", json!({"allowedEmbedDomains": []}))
        .await
        .expect_error(403, "FORBIDDEN");
}

/// POST publishes (201, the `published_chats` item), an unpublished agent
/// is 404, each bound is a 422 naming its field and nothing is stored, the
/// identity secret is shown once, and PATCH changes only what it names.
#[tokio::test]
async fn an_agent_is_published_once_under_a_stable_slug() {
    let server = Server::start_with(
        Options::default().env("CONFER_PUBLIC_URL", "https://chat.example.com/"),
    );
    let admin = server.admin();
    let agent = admin.agent("Shop Support!").await;
    let path = format!("/api/agents/{agent}/publish");
    let detail = admin.get(&path).await.expect_error(404, "NOT_FOUND");
    assert!(detail.contains("not published"), "{detail}");
    for (body, field) in [
        (json!({"slug": "Bad Slug"}), "slug"),
        (json!({"title": ""}), "title"),
        (json!({"description": "d".repeat(501)}), "description"),
        (json!({"greeting": "g".repeat(2001)}), "greeting"),
        (
            json!({"suggestedPrompts": ["a", "b", "c", "d", "e", "f", "g"]}),
            "suggestedPrompts",
        ),
        (json!({"themeColor": "red"}), "themeColor"),
        (
            json!({"avatarUrl": "http://x.example.com/a.png"}),
            "avatarUrl",
        ),
        (json!({"persistence": "cookie"}), "persistence"),
        (json!({"retentionDays": 3651}), "retentionDays"),
        (json!({"status": "gone"}), "status"),
        (json!({"mode": "group"}), "mode"),
        (
            json!({"identity": "optional", "visibility": "private"}),
            "visibility",
        ),
        (json!({"publicTools": ["delegate__x"]}), "publicTools[0]"),
        (
            json!({"allowedDomains": ["https://a.example.com"]}),
            "allowedDomains[0]",
        ),
        (
            json!({"limits": {"visitorMessagesPerMinute": 601}}),
            "limits.visitorMessagesPerMinute",
        ),
        (
            json!({"limits": {"maxOutputTokens": 63}}),
            "limits.maxOutputTokens",
        ),
        (json!({"revokeSessions": true}), "revokeSessions"),
    ] {
        let detail = admin
            .post(&path, body.clone())
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(&format!("{field}:")), "{body}: {detail}");
    }
    admin.get(&path).await.expect_error(404, "NOT_FOUND");

    let created = admin.post(&path, json!({})).await.expect(201);
    let slug = created["slug"].as_str().unwrap().to_owned();
    assert!(
        slug.starts_with("shop-support-") && slug.len() == "shop-support-".len() + 6,
        "{slug}"
    );
    assert_eq!(created["url"], format!("https://chat.example.com/c/{slug}"));
    assert_eq!(
        created["embed_snippet"],
        format!("<script async src=\"https://chat.example.com/c/{slug}/embed.js\"></script>")
    );
    assert_eq!(created["title"], "Shop Support!");
    assert_eq!(created["theme_color"], "#2563eb");
    assert_eq!(created["persistence"], "local");
    assert_eq!(
        (created["status"].clone(), created["is_active"].clone()),
        (json!("active"), json!(true))
    );
    assert_eq!(created["visibility"], "public");
    assert_eq!(created["generation"], 1);
    assert_eq!(created["has_identity_secret"], false);
    assert!(created.get("identity_secret").is_none());
    assert_eq!(
        created["limits"],
        json!({"visitor_messages_per_minute": 10, "ip_messages_per_minute": 60,
               "max_concurrent_turns": 4, "max_message_chars": 4000,
               "daily_token_budget": 1_000_000, "max_output_tokens": 1024})
    );
    assert_eq!(admin.get(&path).await.expect(200), created);
    let chats =
        admin.get(&format!("/api/agents/{agent}")).await.expect(200)["published_chats"].clone();
    assert_eq!(
        chats,
        json!([{"id": created["id"], "slug": slug, "url": created["url"], "status": "active",
                "is_active": true, "mode": "single"}])
    );
    let listed = admin.get("/api/agents").await.expect(200);
    assert_eq!(listed[0]["published_chats"], chats);
    let detail = admin
        .post(&path, json!({}))
        .await
        .expect_error(409, "CONFLICT");
    assert!(detail.contains("already published"), "{detail}");

    // PATCH: the slug never changes; limits merge by key; going private
    // shows the identity secret once.
    admin
        .patch(&path, json!({"slug": "other"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let private = admin
        .patch(
            &path,
            json!({"visibility": "private", "limits": {"maxConcurrentTurns": 2}, "greeting": "Hi!"}),
        )
        .await
        .expect(200);
    let secret = private["identity_secret"].as_str().unwrap();
    assert!(secret.starts_with("cfi_") && secret.len() == 68, "{secret}");
    assert_eq!(
        (private["identity"].clone(), private["visibility"].clone()),
        (json!("required"), json!("private"))
    );
    assert_eq!(private["limits"]["max_concurrent_turns"], 2);
    assert_eq!(private["limits"]["max_message_chars"], 4000);
    assert_eq!(private["has_identity_secret"], true);
    assert_eq!(private["slug"], slug);
    let again = admin.get(&path).await.expect(200);
    assert!(again.get("identity_secret").is_none(), "shown only once");
    let rotated = admin
        .patch(&path, json!({"rotateIdentitySecret": true}))
        .await
        .expect(200);
    assert_ne!(rotated["identity_secret"], private["identity_secret"]);
    // A pause and a revocation each bump the generation.
    let paused = admin
        .patch(&path, json!({"status": "paused"}))
        .await
        .expect(200);
    assert_eq!(
        (paused["generation"].clone(), paused["is_active"].clone()),
        (json!(2), json!(false))
    );
    let revoked = admin
        .patch(&path, json!({"revokeSessions": true, "greeting": null}))
        .await
        .expect(200);
    assert_eq!(revoked["generation"], 3);
    assert_eq!(revoked["greeting"], Value::Null);
    // A refused PATCH changes nothing.
    admin
        .patch(&path, json!({"title": "ok", "themeColor": "nope"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(admin.get(&path).await.expect(200)["title"], "Shop Support!");

    // The secret survives a restart sealed: still there, never shown.
    let server = server.kill_and_restart();
    let admin = server.admin();
    let after = admin.get(&path).await.expect(200);
    assert_eq!(after["has_identity_secret"], true);
    assert_eq!(after["generation"], 3);

    // DELETE frees the slug at once; the agent has no published chat.
    assert_eq!(admin.delete(&path).await.expect(200), json!({"ok": true}));
    admin.delete(&path).await.expect_error(404, "NOT_FOUND");
    assert_eq!(
        admin.get(&format!("/api/agents/{agent}")).await.expect(200)["published_chats"],
        json!([])
    );
    let other = admin.agent("Other").await;
    let reused = admin
        .post(
            &format!("/api/agents/{other}/publish"),
            json!({"slug": slug}),
        )
        .await
        .expect(201);
    assert_eq!(reused["slug"], slug);
    // Deleting the agent deletes its publication: the slug is free again.
    admin
        .delete(&format!("/api/agents/{other}"))
        .await
        .expect(200);
    admin
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": slug}),
        )
        .await
        .expect(201);
}

/// Two agents racing for one slug: one 201, one 409; a slug is unique in
/// the instance, across orgs.
#[tokio::test]
async fn racing_creations_of_one_slug_make_one_publication() {
    let server = Server::start();
    let admin = server.admin();
    for round in 0..5 {
        let (a, b) = (admin.agent("A").await, admin.agent("B").await);
        let slug = format!("race-{round}");
        let body = json!({"slug": slug});
        let (path_a, path_b) = (
            format!("/api/agents/{a}/publish"),
            format!("/api/agents/{b}/publish"),
        );
        let (one, two) = tokio::join!(
            admin.post(&path_a, body.clone()),
            admin.post(&path_b, body.clone()),
        );
        let mut statuses = [one.status.as_u16(), two.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "{} {}", one.body, two.body);
        let loser = if one.status.as_u16() == 409 { one } else { two };
        assert!(
            loser.body["detail"].as_str().unwrap().starts_with("slug:"),
            "{}",
            loser.body
        );
    }
    // Another org cannot take a slug either.
    let platform = server.admin();
    let other_org = platform
        .post("/api/orgs", json!({"name": "Other"}))
        .await
        .expect(201);
    let other = server.api(other_org["api_key"]["key"].as_str().unwrap());
    let agent = other.agent("C").await;
    other
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": "race-0"}),
        )
        .await
        .expect_error(409, "CONFLICT");
}

/// A publication's own domains must each be covered by the org's list, and
/// what may frame it is its list intersected with the org's as it is now.
#[tokio::test]
async fn a_publication_is_framed_only_where_its_org_allows() {
    let server = Server::start();
    let admin = server.admin();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://*.example.com", "https://shop.test"]}),
        )
        .await
        .expect(200);
    let agent = admin.agent("Framed").await;
    let path = format!("/api/agents/{agent}/publish");
    let detail = admin
        .post(
            &path,
            json!({"allowedDomains": ["https://a.example.com", "https://evil.test"]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("allowedDomains[1]:"), "{detail}");
    let own = admin
        .post(
            &path,
            json!({"allowedDomains": ["https://a.example.com", "https://shop.test"]}),
        )
        .await
        .expect(201);
    assert_eq!(
        own["effective_allowed_domains"],
        json!(["https://a.example.com", "https://shop.test"])
    );
    // Narrowing the org's list narrows the publication at once.
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://shop.test"]}),
        )
        .await
        .expect(200);
    let narrowed = admin.get(&path).await.expect(200);
    assert_eq!(
        narrowed["effective_allowed_domains"],
        json!(["https://shop.test"])
    );
    assert_eq!(
        narrowed["allowed_domains"],
        json!(["https://a.example.com", "https://shop.test"])
    );
    // Back to the org's list.
    let inherited = admin
        .patch(&path, json!({"allowedDomains": null}))
        .await
        .expect(200);
    assert_eq!(inherited["allowed_domains"], Value::Null);
    assert_eq!(
        inherited["effective_allowed_domains"],
        json!(["https://shop.test"])
    );
}

/// The multiplayer configuration: defaults, a partial PUT, 422s naming the
/// field with nothing stored.
#[tokio::test]
async fn an_agents_multiplayer_configuration_is_bounded() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Many").await;
    let path = format!("/api/agents/{agent}/multiplayer");
    let defaults = admin.get(&path).await.expect(200);
    assert_eq!(
        (
            defaults["max_participants"].clone(),
            defaults["who_can_invite"].clone(),
            defaults["display_names"].clone()
        ),
        (json!(10), json!("participants"), json!("chosen"))
    );
    assert_eq!(defaults["agent_id"], agent);
    for (body, field) in [
        (json!({"maxParticipants": 1}), "maxParticipants"),
        (json!({"maxParticipants": 101}), "maxParticipants"),
        (json!({"whoCanInvite": "anyone"}), "whoCanInvite"),
        (json!({"displayNames": "emoji"}), "displayNames"),
    ] {
        let detail = admin
            .put(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{detail}");
    }
    assert_eq!(
        admin.get(&path).await.expect(200)["updated_at"],
        Value::Null
    );
    let changed = admin
        .put(&path, json!({"whoCanInvite": "owner"}))
        .await
        .expect(200);
    assert_eq!(changed["who_can_invite"], "owner");
    assert_eq!(changed["max_participants"], 10);
    let changed = admin
        .put(&path, json!({"maxParticipants": 2}))
        .await
        .expect(200);
    assert_eq!(
        (
            changed["max_participants"].clone(),
            changed["who_can_invite"].clone()
        ),
        (json!(2), json!("owner"))
    );
    admin
        .get(&format!("/api/agents/{}/multiplayer", uuid::Uuid::now_v7()))
        .await
        .expect_error(404, "NOT_FOUND");
}

/// Page rule 2: every response Confer sends today (JSON, errors, a stream,
/// the API description page, a preflight) refuses to be framed and to be
/// sniffed; only a page that names its framers (the public chat, to come)
/// may be framed.
#[tokio::test]
async fn every_response_refuses_to_be_framed() {
    let server = Server::start_with(
        Options::default().env("CONFER_CORS_ORIGINS", "https://app.example.com"),
    );
    let admin = server.admin();
    let agent = admin.agent("Framed").await;
    let thread = admin.thread(&agent, json!({})).await;
    let client = reqwest::Client::new();
    let key = crate::common::BOOTSTRAP_KEY;
    let json_policy = "default-src 'none'; frame-ancestors 'none'";
    for (method, path, policy) in [
        ("GET", "/healthz".to_owned(), json_policy),
        ("GET", "/api/agents".to_owned(), json_policy),
        ("GET", "/api/nothing-here".to_owned(), json_policy),
        ("GET", format!("/api/threads/{thread}/stream"), json_policy),
        (
            "POST",
            format!("/api/threads/{thread}/messages"),
            json_policy,
        ),
        ("GET", "/openapi.json".to_owned(), json_policy),
        ("GET", "/docs".to_owned(), "frame-ancestors 'none'"),
        ("OPTIONS", "/api/agents".to_owned(), json_policy),
    ] {
        let mut request = client
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{}{path}", server.base),
            )
            .bearer_auth(key);
        if method == "POST" {
            request = request.json(&json!({"content": "hi"}));
        }
        if method == "OPTIONS" {
            request = request
                .header("origin", "https://app.example.com")
                .header("access-control-request-method", "GET");
        }
        let answered = request.send().await.unwrap();
        let headers = answered.headers();
        let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(
            header("x-frame-options").as_deref(),
            Some("DENY"),
            "{method} {path}"
        );
        assert_eq!(
            header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{method} {path}"
        );
        assert_eq!(
            header("content-security-policy").as_deref(),
            Some(policy),
            "{method} {path}"
        );
    }
}

/// The multiplayer configuration governs API-made threads too: past
/// `maxParticipants` a new participant is 409 (an update is not), and under
/// `whoCanInvite: owner` a member who is not an owner is 403.
#[tokio::test]
async fn the_multiplayer_configuration_governs_api_threads() {
    use crate::common::{exp_in, jwt};
    let server = Server::start();
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("Group").await;
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"maxParticipants": 3, "whoCanInvite": "owner"}),
        )
        .await
        .expect(200);
    let user = |sub: &str| server.api(&jwt(json!({"sub": sub, "exp": exp_in(600), "org_id": org})));
    let (alice, bob) = (user("alice"), user("bob"));
    let thread = alice.thread(&agent, json!({"kind": "multiplayer"})).await;
    let path = format!("/api/threads/{thread}/participants");
    alice
        .post(&path, json!({"userId": "bob"}))
        .await
        .expect(201);
    let detail = bob
        .post(&path, json!({"userId": "carol"}))
        .await
        .expect_error(403, "FORBIDDEN");
    assert!(detail.contains("whoCanInvite"), "{detail}");
    alice
        .post(&path, json!({"userId": "carol"}))
        .await
        .expect(201);
    let listed = admin.get(&path).await.expect(200)["participants"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, 3, "alice (the owner), bob and carol");
    let detail = alice
        .post(&path, json!({"userId": "dave"}))
        .await
        .expect_error(409, "CONFLICT");
    assert_eq!(detail, "participants: the thread is full (3)");
    admin
        .post(&path, json!({"userId": "dave"}))
        .await
        .expect_error(409, "CONFLICT");
    // An update is not a new place.
    alice
        .post(&path, json!({"userId": "carol", "displayName": "Carol"}))
        .await
        .expect(200);
    // Under `participants` any participant may add, within the cap.
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"whoCanInvite": "participants", "maxParticipants": 4}),
        )
        .await
        .expect(200);
    bob.post(&path, json!({"userId": "dave"})).await.expect(201);
    bob.post(&path, json!({"userId": "erin"}))
        .await
        .expect_error(409, "CONFLICT");
    // Racing adds for the last two places: two get in.
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"maxParticipants": 6}),
        )
        .await
        .expect(200);
    let (one, two, three) = tokio::join!(
        admin.post(&path, json!({"userId": "frank"})),
        admin.post(&path, json!({"userId": "gina"})),
        admin.post(&path, json!({"userId": "hank"})),
    );
    let mut statuses = [
        one.status.as_u16(),
        two.status.as_u16(),
        three.status.as_u16(),
    ];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 201, 409]);
    let listed = admin.get(&path).await.expect(200)["participants"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, 6);
}

/// Multiplayer rule 4: on a multiplayer thread `meta` carries the message
/// the turn answers, so a watcher shows it without reading the history; a
/// single thread's `meta` has no such field.
#[tokio::test]
async fn watchers_of_a_multiplayer_thread_see_each_message_in_meta() {
    use crate::common::{exp_in, jwt};
    use std::time::Duration;
    let server = Server::start();
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("Room").await;
    let user = |sub: &str| {
        server.api(&jwt(
            json!({"sub": sub, "name": format!("{sub}!"), "exp": exp_in(600), "org_id": org}),
        ))
    };
    let (alice, bob) = (user("alice"), user("bob"));
    let thread = alice.thread(&agent, json!({"kind": "multiplayer"})).await;
    alice
        .post(
            &format!("/api/threads/{thread}/participants"),
            json!({"userId": "bob"}),
        )
        .await
        .expect(201);
    let mut watch = bob.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(watch.status, 200);
    let first = watch.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(first.event, "watching");
    let frames = alice.say(&thread, json!({"content": "hello room"})).await;
    let meta = watch.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(meta.event, "meta");
    let id = frames[0].data["userMessageId"].clone();
    assert_eq!(
        meta.data["userMessage"],
        json!({"id": id, "content": "hello room", "senderName": "alice!"})
    );
    assert_eq!(frames[0].data["userMessage"], meta.data["userMessage"]);

    let single = admin.thread(&agent, json!({})).await;
    let frames = admin.say(&single, json!({"content": "just me"})).await;
    assert_eq!(frames[0].event, "meta");
    assert!(
        frames[0].data.get("userMessage").is_none(),
        "{:?}",
        frames[0].data
    );
}

/// `GET /api/public/chat/{slug}`: what the page reads, with no credential
/// and no CORS headers (even for an origin `CONFER_CORS_ORIGINS` allows),
/// nothing of the org, tools or limits but the message length; 404 for an
/// unknown or deleted publication; a paused one says so.
#[tokio::test]
async fn a_public_chat_shows_its_page_configuration_to_anyone() {
    let server = Server::start_with(
        Options::default().env("CONFER_CORS_ORIGINS", "https://app.example.com"),
    );
    let admin = server.admin();
    let agent = admin.agent("Helpdesk").await;
    let path = format!("/api/agents/{agent}/publish");
    admin
        .post(
            &path,
            json!({"slug": "helpdesk", "greeting": "Hello!", "suggestedPrompts": ["Reset my password"],
                   "publicTools": ["lookup"], "limits": {"maxMessageChars": 500}, "mode": "multiplayer"}),
        )
        .await
        .expect(201);
    let client = reqwest::Client::new();
    let read = |slug: &str| {
        client
            .get(format!("{}/api/public/chat/{slug}", server.base))
            .header("origin", "https://app.example.com")
            .send()
    };
    let answered = read("helpdesk").await.unwrap();
    assert_eq!(answered.status(), 200);
    assert!(
        answered
            .headers()
            .keys()
            .all(|name| !name.as_str().starts_with("access-control-")),
        "{:?}",
        answered.headers()
    );
    let config: Value = answered.json().await.unwrap();
    assert_eq!(
        config,
        json!({"slug": "helpdesk", "title": "Helpdesk", "description": "", "greeting": "Hello!",
               "suggested_prompts": ["Reset my password"], "theme_color": "#2563eb",
               "avatar_url": null, "persistence": "local", "mode": "multiplayer",
               "identity": "anonymous", "status": "active", "max_message_chars": 500,
               "display_names": "chosen"})
    );
    // The same origin on the API proper does get CORS headers.
    let api = client
        .get(format!("{}/api/agents", server.base))
        .header("origin", "https://app.example.com")
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert!(api.headers().contains_key("access-control-allow-origin"));

    admin
        .patch(&path, json!({"status": "paused"}))
        .await
        .expect(200);
    let paused: Value = read("helpdesk").await.unwrap().json().await.unwrap();
    assert_eq!(paused["status"], "paused");
    assert_eq!(read("nobody-here").await.unwrap().status(), 404);
    admin
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    assert_eq!(read("helpdesk").await.unwrap().status(), 404);
}
