//! Visitors of public chats (`publishing.md` "Visitors"): sessions, their
//! tokens and secrets, the visitor's threads and sends, what a visitor may
//! reach, spoken to over HTTP as the chat page does (limits: `visitor_limits`;
//! multiplayer, tools and retention: `visitor_chats`).

use serde_json::{Value, json};

use crate::common::{Api, EventStream, Frame, Server, done_of};

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
