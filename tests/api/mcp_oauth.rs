//! Managed OAuth for MCP servers (`tools.md` §8) against an MCP server with
//! its own authorization server, both real (`tests/peers/oauth_mcp_server.py`:
//! RFC 9728 and 8414 discovery, RFC 7591 registration, PKCE S256, refresh,
//! revocation). The test plays the user's browser: it follows the
//! challenge's URL, logs in at the provider and comes back to Confer's
//! callback, with or without the flow's cookie.

use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of, events_of, eventually, exp_in, jwt};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::third_party::ThirdPartyMock;

struct Rig {
    peer: ThirdPartyMock,
    vendor: Mock,
    server: Server,
    admin: Api,
    org: String,
    agent: String,
    mcp: String,
}

impl Rig {
    async fn start() -> Self {
        let peer = ThirdPartyMock::oauth_mcp();
        let vendor = Mock::start("/v1").await;
        let server = Server::start_with(
            Options::default()
                .env("OPENAI_BASE_URL", &vendor.base)
                .env("OPENAI_API_KEY", "sk-platform")
                .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
                .env("CONFER_LOG", "trace"),
        );
        let admin = server.admin();
        let org = admin.org_id().await;
        let mcp = admin
            .post(
                "/api/mcps",
                json!({"name": "Notes", "url": format!("{}/mcp", peer.base), "oauth": "per_user"}),
            )
            .await
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        eventually(std::time::Duration::from_secs(30), "listed", async || {
            let read = admin.get(&format!("/api/mcps/{mcp}")).await.expect(200);
            (read["status"] == "active").then_some(())
        })
        .await;
        let agent = admin
            .agent_with(json!({"name": "Noted", "defaultModel": "openai/gpt-4.1"}))
            .await;
        admin
            .post(
                &format!("/api/agents/{agent}/mcps"),
                json!({"mcpServerId": mcp}),
            )
            .await
            .expect(201);
        Self {
            peer,
            vendor,
            server,
            admin,
            org,
            agent,
            mcp,
        }
    }

    fn user(&self, sub: &str) -> Api {
        self.server.api(&jwt(
            json!({"sub": sub, "exp": exp_in(600), "org_id": self.org}),
        ))
    }

    /// One turn of `api` on `thread` in which the model calls `whoami`:
    /// every frame.
    async fn whoami(&self, api: &Api, thread: &str) -> Vec<crate::common::Frame> {
        self.vendor.push(Reply::stream(openai_tool_call(
            "call_1",
            "notes__whoami",
            &json!({}),
        )));
        self.vendor.push(Reply::stream(openai_answer("ok", 5)));
        let frames = api.say(thread, json!({"content": "who am I?"})).await;
        assert_eq!(done_of(&frames)["ok"], true);
        frames
    }

    async fn stats(&self) -> Value {
        self.peer.get("/_confer/stats").await
    }
}

/// The browser's part: `begin` with `user`'s JWT of `org` (the cookie and
/// the provider's URL), the provider's consent as `user`, and the
/// callback's URL; with `cookie` the browser brings the flow's cookie
/// back. The callback's status and page.
pub(crate) async fn browse(
    redirect_url: &str,
    org: &str,
    user: &str,
    cookie: bool,
) -> (u16, String) {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let session = jwt(json!({"sub": user, "exp": exp_in(600), "org_id": org}));
    let began = browser
        .get(redirect_url)
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    assert_eq!(began.status(), 302, "begin redirects to the provider");
    let (flow_cookie, provider) = flow_cookie_and_provider(&began);
    let consented = browser
        .get(format!("{provider}&user={user}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        consented.status(),
        302,
        "the provider sends the browser back"
    );
    let callback = consented.headers()[LOCATION].to_str().unwrap().to_owned();
    assert!(
        callback.contains("/api/mcps/managed-oauth/callback?"),
        "{callback}"
    );
    let mut request = browser.get(&callback);
    if cookie {
        request = request.header(COOKIE, &flow_cookie);
    }
    let answered = request.send().await.unwrap();
    let status = answered.status().as_u16();
    let csp = answered.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(csp, "default-src 'none'; frame-ancestors 'none'");
    // The begin URL worked once.
    let again = browser
        .get(redirect_url)
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 400, "a begin URL is single-use");
    (status, answered.text().await.unwrap())
}

/// The flow's cookie (`name=value`) a `begin` set, checked, and where it
/// sends the browser.
fn flow_cookie_and_provider(began: &reqwest::Response) -> (String, String) {
    let set = began.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    // Confer is reached over plain http here: no `Secure`, so no `__Host-`.
    assert!(set.starts_with("confer_oauth="), "{set}");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(set.contains(attribute), "{set}");
    }
    assert!(!set.contains("Secure"), "{set}");
    let flow_cookie = set.split(';').next().unwrap().to_owned();
    let provider = began.headers()[LOCATION].to_str().unwrap().to_owned();
    assert!(
        provider.contains("code_challenge_method=S256"),
        "{provider}"
    );
    (flow_cookie, provider)
}

/// The challenge of a turn that was asked to connect (asserting the
/// frames' order and the result's error); its redirect URL.
fn challenge_of(frames: &[crate::common::Frame]) -> String {
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    let at = names
        .iter()
        .position(|n| *n == "auth_challenge")
        .unwrap_or_else(|| panic!("no auth_challenge: {names:?}"));
    assert_eq!(names[at - 1], "tool_executing", "{names:?}");
    assert_eq!(names[at + 1], "tool_result", "{names:?}");
    let challenge = &frames[at].data;
    assert_eq!(challenge["toolName"], "notes__whoami");
    assert_eq!(challenge["challenge"]["provider"], "notes");
    assert_eq!(
        challenge["challenge"]["description"],
        "Connect Notes to continue"
    );
    let result = &frames[at + 1].data;
    assert_eq!(
        result["result"]["error"],
        "authorization pending: the user was asked to connect Notes"
    );
    challenge["challenge"]["redirectUrl"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn whoami_token(frames: &[crate::common::Frame]) -> String {
    assert!(events_of(frames, "auth_challenge").is_empty(), "{frames:?}");
    let results = events_of(frames, "tool_result");
    results[0]["result"]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{frames:?}"))
        .to_owned()
}

#[tokio::test]
async fn a_user_connects_through_the_challenge_and_the_next_turn_uses_their_token() {
    let rig = Rig::start().await;
    let alice = rig.user("alice");
    let thread = alice.thread(&rig.agent, json!({})).await;

    // No token yet: the call asks alice to connect.
    let frames = rig.whoami(&alice, &thread).await;
    let redirect = challenge_of(&frames);
    assert!(
        redirect.starts_with(&rig.server.base)
            && redirect.contains("/api/mcps/managed-oauth/begin?ticket="),
        "{redirect}"
    );
    let (status, page) = browse(&redirect, &rig.org, "alice", true).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Notes is connected for alice"), "{page}");

    // The next turn's call carries alice's token (refreshed first: it lives
    // 60 s, under the 2 minutes Confer refreshes before).
    let frames = rig.whoami(&alice, &thread).await;
    let token = whoami_token(&frames);
    assert!(token.starts_with("at-alice-"), "{token}");
    let stats = rig.stats().await;
    assert_eq!(stats["registrations"], 1, "registered once: {stats}");
    assert_eq!(stats["exchanges"], 1, "{stats}");
    assert!(stats["refreshes"].as_u64() >= Some(1), "{stats}");

    // Bob gets his own challenge; finished in a browser without the
    // flow's cookie, it stores nothing.
    let bob = rig.user("bob");
    let bobs = bob.thread(&rig.agent, json!({})).await;
    let frames = rig.whoami(&bob, &bobs).await;
    let redirect = challenge_of(&frames);
    let (status, page) = browse(&redirect, &rig.org, "bob", false).await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("another browser"), "{page}");
    let frames = rig.whoami(&bob, &bobs).await;
    let redirect = challenge_of(&frames);
    assert_eq!(browse(&redirect, &rig.org, "bob", true).await.0, 200);
    let token = whoami_token(&rig.whoami(&bob, &bobs).await);
    assert!(token.starts_with("at-bob-"), "{token}");
    // Alice's token is still hers.
    assert!(whoami_token(&rig.whoami(&alice, &thread).await).starts_with("at-alice-"));
    // Bob's grant revoked at the provider: the refresh fails, his token is
    // deleted and he is asked again.
    let revoked = reqwest::Client::new()
        .post(format!("{}/as/revoke", rig.peer.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}"))
        .send()
        .await
        .unwrap();
    assert!(revoked.status().is_success());
    challenge_of(&rig.whoami(&bob, &bobs).await);

    // A key that may not act for users gets no challenge, only the error;
    // a key cannot start a flow.
    let keyed = rig.admin.thread(&rig.agent, json!({})).await;
    let frames = rig.whoami(&rig.admin, &keyed).await;
    assert!(events_of(&frames, "auth_challenge").is_empty());
    assert_eq!(
        events_of(&frames, "tool_result")[0]["result"]["error"],
        "authorization required"
    );
    rig.admin
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": rig.mcp}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    // A key that may act for users uses its sender's token.
    let acting = rig
        .admin
        .post("/api/keys", json!({"name": "backend", "actAsUsers": true}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let backend = rig.server.api(&acting);
    rig.vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "notes__whoami",
        &json!({}),
    )));
    rig.vendor.push(Reply::stream(openai_answer("ok", 5)));
    let keyed = backend.thread(&rig.agent, json!({})).await;
    let frames = backend
        .say(&keyed, json!({"content": "for alice", "senderId": "alice"}))
        .await;
    assert!(whoami_token(&frames).starts_with("at-alice-"));

    // Tokens never show: not in a GET, not in the log.
    let listed = rig.admin.get("/api/mcps").await.expect(200);
    assert!(!listed.to_string().contains("at-alice"));
    let log = rig.server.logs();
    assert!(
        !log.contains("rt-alice") && !log.contains("at-alice"),
        "a token in the log"
    );

    // Alice disconnects (revoked at the provider): asked again.
    let revocations = rig.stats().await["revocations"].as_u64().unwrap();
    let gone = alice
        .post(
            "/api/mcps/managed-oauth/disconnect",
            json!({"mcpServerId": rig.mcp}),
        )
        .await
        .expect(200);
    assert_eq!(gone, json!({"ok": true, "disconnected": true}));
    assert_eq!(
        rig.stats().await["revocations"].as_u64(),
        Some(revocations + 1)
    );
    challenge_of(&rig.whoami(&alice, &thread).await);
    let again = alice
        .post(
            "/api/mcps/managed-oauth/disconnect",
            json!({"mcpServerId": rig.mcp}),
        )
        .await
        .expect(200);
    assert_eq!(again["disconnected"], false);
}

/// An OpenAI stream whose one step calls `whoami` twice.
fn two_whoami_calls() -> String {
    use crate::mock::openai_chunk;
    [
        openai_chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [
                {"index": 0, "id": "call_a", "type": "function",
                 "function": {"name": "notes__whoami", "arguments": "{}"}},
                {"index": 1, "id": "call_b", "type": "function",
                 "function": {"name": "notes__whoami", "arguments": "{}"}}]},
                "finish_reason": null}]),
            Value::Null,
        ),
        openai_chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
            Value::Null,
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

#[tokio::test]
async fn calls_of_one_step_share_one_refresh_of_a_rotating_token() {
    let rig = Rig::start().await;
    let erin = rig.user("erin");
    let thread = erin.thread(&rig.agent, json!({})).await;
    let redirect = challenge_of(&rig.whoami(&erin, &thread).await);
    assert_eq!(browse(&redirect, &rig.org, "erin", true).await.0, 200);
    // Two calls at once, each finding the token due (it lives 60 s): the
    // provider accepts a refresh token once, so the refreshes must take
    // turns (each then uses the refresh token the other got). Together
    // they fail: the loser's refresh is refused, its token deleted, and the
    // user asked again.
    rig.vendor.push(Reply::stream(two_whoami_calls()));
    rig.vendor.push(Reply::stream(openai_answer("ok", 5)));
    let frames = erin.say(&thread, json!({"content": "twice"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    assert!(
        events_of(&frames, "auth_challenge").is_empty(),
        "{frames:?}"
    );
    let results = events_of(&frames, "tool_result");
    assert_eq!(results.len(), 2);
    for result in results {
        let token = result["result"]["result"].as_str().unwrap_or_default();
        assert!(token.starts_with("at-erin-"), "{result}");
    }
}

#[tokio::test]
async fn a_token_the_server_refuses_asks_the_user_again() {
    let rig = Rig::start().await;
    // Hour-long tokens: used as stored, without a refresh.
    let dave = rig.user("longdave");
    let thread = dave.thread(&rig.agent, json!({})).await;
    let redirect = challenge_of(&rig.whoami(&dave, &thread).await);
    assert_eq!(browse(&redirect, &rig.org, "longdave", true).await.0, 200);
    let token = whoami_token(&rig.whoami(&dave, &thread).await);
    assert!(token.starts_with("at-longdave-"), "{token}");
    assert_eq!(rig.stats().await["refreshes"], 0);
    // Revoked at the provider: the server answers 401 with
    // WWW-Authenticate, Confer drops the token and asks again.
    let revoked = reqwest::Client::new()
        .post(format!("{}/as/revoke", rig.peer.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}"))
        .send()
        .await
        .unwrap();
    assert!(revoked.status().is_success());
    let redirect = challenge_of(&rig.whoami(&dave, &thread).await);
    assert_eq!(browse(&redirect, &rig.org, "longdave", true).await.0, 200);
    let fresh = whoami_token(&rig.whoami(&dave, &thread).await);
    assert!(
        fresh.starts_with("at-longdave-") && fresh != token,
        "{fresh}"
    );
}

#[tokio::test]
async fn start_answers_a_begin_url_and_refuses_what_it_must() {
    let rig = Rig::start().await;
    let carol = rig.user("carol");
    let started = carol
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": rig.mcp}),
        )
        .await
        .expect(200);
    let url = started["authorization_url"].as_str().unwrap();
    assert!(
        url.contains("/api/mcps/managed-oauth/begin?ticket="),
        "{url}"
    );
    assert_eq!(browse(url, &rig.org, "carol", true).await.0, 200);
    // A server without OAuth: 422; another org's or no server: 404.
    let plain = rig
        .admin
        .post(
            "/api/mcps",
            json!({"name": "plain", "url": "http://127.0.0.1:9/mcp"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    carol
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": plain}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    carol
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": "0190d1f2-0000-7000-8000-000000000000"}),
        )
        .await
        .expect_error(404, "NOT_FOUND");
    // An `org` server's token is an admin JWT's to connect.
    let org_server = rig
        .admin
        .post(
            "/api/mcps",
            json!({"name": "Shared", "url": format!("{}/mcp", rig.peer.base), "oauth": "org"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    carol
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": org_server}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    let boss = rig.server.api(&jwt(
        json!({"sub": "boss", "exp": exp_in(600), "org_id": rig.org, "role": "admin"}),
    ));
    let started = boss
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": org_server}),
        )
        .await
        .expect(200);
    let (status, page) = browse(
        started["authorization_url"].as_str().unwrap(),
        &rig.org,
        "boss",
        true,
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("for your organization"), "{page}");
    // A flow whose server is deleted before its callback stores nothing.
    let gone = rig
        .admin
        .post(
            "/api/mcps",
            json!({"name": "Gone", "url": format!("{}/mcp", rig.peer.base), "oauth": "per_user"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let started = carol
        .post(
            "/api/mcps/managed-oauth/start",
            json!({"mcpServerId": gone}),
        )
        .await
        .expect(200);
    rig.admin
        .delete(&format!("/api/mcps/{gone}"))
        .await
        .expect(200);
    let (status, page) = browse(
        started["authorization_url"].as_str().unwrap(),
        &rig.org,
        "carol",
        true,
    )
    .await;
    assert_eq!(status, 400, "{page}");
    // An unknown state stores nothing and says so.
    let browser = reqwest::Client::new();
    let page = browser
        .get(format!(
            "{}/api/mcps/managed-oauth/callback?code=x&state=forged",
            rig.server.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 400);
}

#[tokio::test]
async fn a_moved_server_forgets_every_token_and_its_new_host_never_sees_one() {
    let rig = Rig::start().await;
    let alice = rig.user("alice");
    let thread = alice.thread(&rig.agent, json!({})).await;
    let redirect = challenge_of(&rig.whoami(&alice, &thread).await);
    assert_eq!(browse(&redirect, &rig.org, "alice", true).await.0, 200);
    let token = whoami_token(&rig.whoami(&alice, &thread).await);
    assert!(token.starts_with("at-alice-"), "{token}");

    // The url now names another host: a real MCP server that asks for no
    // token and whose `authorization` tool answers the header it was sent.
    let elsewhere = ThirdPartyMock::fastmcp("streamable-http");
    rig.admin
        .patch(
            &format!("/api/mcps/{}", rig.mcp),
            json!({"url": format!("{}/mcp", elsewhere.base)}),
        )
        .await
        .expect(200);
    eventually(std::time::Duration::from_secs(30), "listed", async || {
        let read = rig.admin.get(&format!("/api/mcps/{}", rig.mcp)).await;
        let read = read.expect(200);
        let listed = read["tools_cache"].to_string().contains("authorization");
        (read["status"] == "active" && listed).then_some(())
    })
    .await;
    // Alice's call there carries no token of the old host (the new one has
    // no authorization server to send her to: "authorization required").
    rig.vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "notes__authorization",
        &json!({}),
    )));
    rig.vendor.push(Reply::stream(openai_answer("ok", 5)));
    let frames = alice.say(&thread, json!({"content": "who?"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    let results = events_of(&frames, "tool_result");
    assert_eq!(results.len(), 1, "{frames:?}");
    assert!(
        !results[0].to_string().contains("at-alice"),
        "{}",
        results[0]
    );
    assert_eq!(results[0]["result"]["error"], "authorization required");

    // Back on the old url, the old token is gone for good.
    rig.admin
        .patch(
            &format!("/api/mcps/{}", rig.mcp),
            json!({"url": format!("{}/mcp", rig.peer.base)}),
        )
        .await
        .expect(200);
    eventually(std::time::Duration::from_secs(30), "listed", async || {
        let read = rig.admin.get(&format!("/api/mcps/{}", rig.mcp)).await;
        let read = read.expect(200);
        let listed = read["tools_cache"].to_string().contains("whoami");
        (read["status"] == "active" && listed).then_some(())
    })
    .await;
    challenge_of(&rig.whoami(&alice, &thread).await);
}

#[tokio::test]
async fn a_sign_in_link_is_its_users_alone_and_a_callback_without_the_cookie_uses_nothing_up() {
    let rig = Rig::start().await;
    let alice = rig.user("alice");
    let thread = alice.thread(&rig.agent, json!({})).await;
    let redirect = challenge_of(&rig.whoami(&alice, &thread).await);
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let session_of = |sub: &str| jwt(json!({"sub": sub, "exp": exp_in(600), "org_id": rig.org}));
    // The ticket alone: no session, nothing set.
    let bare = browser.get(&redirect).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    assert!(bare.headers().get(LOCATION).is_none());
    // Another user's browser: refused, and the link stays alice's.
    let mallory = browser
        .get(&redirect)
        .bearer_auth(session_of("mallory"))
        .send()
        .await
        .unwrap();
    assert_eq!(mallory.status(), 403);
    assert!(mallory.text().await.unwrap().contains("another user"));
    // Alice's app posts the ticket with her session (a form: no JWT in a URL).
    let ticket = redirect.split("ticket=").nth(1).unwrap().to_owned();
    let began = browser
        .post(format!("{}/api/mcps/managed-oauth/begin", rig.server.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("ticket", &ticket)
                .append_pair("token", &session_of("alice"))
                .finish(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(began.status(), 302);
    let (flow_cookie, provider) = flow_cookie_and_provider(&began);
    let consented = browser
        .get(format!("{provider}&user=alice"))
        .send()
        .await
        .unwrap();
    let callback = consented.headers()[LOCATION].to_str().unwrap().to_owned();
    // A browser without the cookie is refused and uses the flow up no more
    // than a stranger could: alice's own browser then finishes it.
    let stranger = browser.get(&callback).send().await.unwrap();
    assert_eq!(stranger.status(), 400);
    assert!(stranger.text().await.unwrap().contains("another browser"));
    let finished = browser
        .get(&callback)
        .header(COOKIE, &flow_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(finished.status(), 200);
    let token = whoami_token(&rig.whoami(&alice, &thread).await);
    assert!(token.starts_with("at-alice-"), "{token}");
}

#[tokio::test]
async fn a_providers_huge_expires_in_is_clamped_without_a_panic() {
    let rig = Rig::start().await;
    for user in ["hugeann", "vastbob"] {
        let api = rig.user(user);
        let thread = api.thread(&rig.agent, json!({})).await;
        let redirect = challenge_of(&rig.whoami(&api, &thread).await);
        let (status, page) = browse(&redirect, &rig.org, user, true).await;
        assert_eq!(status, 200, "{page}");
        // Used as stored: not due a refresh for a year.
        let token = whoami_token(&rig.whoami(&api, &thread).await);
        assert!(token.starts_with(&format!("at-{user}-")), "{token}");
    }
    assert_eq!(rig.stats().await["refreshes"], 0);
    assert!(!rig.server.logs().contains("panicked"));
}

#[tokio::test]
async fn a_watcher_of_a_multiplayer_thread_never_receives_the_sign_in_link() {
    let rig = Rig::start().await;
    let alice = rig.user("alice");
    let thread = alice
        .thread(&rig.agent, json!({"kind": "multiplayer"}))
        .await;
    alice
        .post(
            &format!("/api/threads/{thread}/participants"),
            json!({"userId": "bob"}),
        )
        .await
        .expect(201);
    let bob = rig.user("bob");
    let mut watch = bob.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(watch.status, 200);
    // Alice's send asks her to connect, on her own stream.
    let frames = rig.whoami(&alice, &thread).await;
    let redirect = challenge_of(&frames);
    let ticket = redirect.split("ticket=").nth(1).unwrap().to_owned();
    // Bob saw the turn, its call and its result, but not the link.
    let mut seen = Vec::new();
    loop {
        let frame = watch
            .next_within(std::time::Duration::from_secs(30))
            .await
            .unwrap();
        let done = frame.event == "done";
        seen.push(frame);
        if done {
            break;
        }
    }
    let names: Vec<&str> = seen.iter().map(|f| f.event.as_str()).collect();
    assert!(names.contains(&"tool_result"), "{names:?}");
    assert!(!names.contains(&"auth_challenge"), "{names:?}");
    for frame in &seen {
        assert!(!frame.data.to_string().contains(&ticket), "{frame:?}");
    }
    // A reattach to the turn (anyone's, alice's too) does not carry it.
    let last = frames[0].id.clone().unwrap();
    let resumed = bob
        .open_watch(&thread, "", Some(&last))
        .await
        .collect()
        .await;
    assert!(
        resumed.iter().all(|f| f.event != "auth_challenge"),
        "{resumed:?}"
    );
    // Nor does the thread's history.
    let history = alice.history(&thread).await;
    assert!(!serde_json::to_string(&history).unwrap().contains(&ticket));
}
