//! The bring-your-own-key resolver over real HTTPS (a test CA given through
//! CONFER_EXTRA_CA_CERT): a returned key is used; null, 500, slow, bad body
//! and unreachable resolvers fall back to the platform key.

use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::json;
use sha2::Sha256;

use crate::common::{Api, Options, Server, done_of, exp_in, jwt};
use crate::mock::{Mock, Reply, TestCa, fixture};

struct Setup {
    server: Server,
    api: Api,
    vendor: Mock,
    resolver: Mock,
    thread: String,
    secret: String,
    agent: String,
    _dir: tempfile::TempDir,
}

async fn setup(timeout_ms: u64) -> Setup {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = ca.write_pem(dir.path());
    let resolver = Mock::start_tls("/resolve", &ca).await;
    let vendor = Mock::start("/v1").await;
    let server = Server::start_with(
        Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env("CONFER_EXTRA_CA_CERT", &ca_file)
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"),
    );
    let api = server.admin();
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "BYOK", "defaultModel": "openai/gpt-4.1"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let configured = api
        .put(
            &format!("/api/agents/{agent}/credentials"),
            json!({"enabled": true, "resolverUrl": resolver.base, "timeoutMs": timeout_ms}),
        )
        .await
        .expect(200);
    let secret = configured["signing_secret"].as_str().unwrap().to_owned();
    let thread = api.thread(&agent, json!({})).await;
    Setup {
        server,
        api,
        vendor,
        resolver,
        thread,
        secret,
        agent,
        _dir: dir,
    }
}

impl Setup {
    /// Sends one message; returns the vendor's Authorization header and the usage key_source.
    async fn send(&self, body: serde_json::Value) -> (String, String) {
        self.vendor.push(Reply::stream(fixture("openai_text.sse")));
        let done = done_of(&self.api.say(&self.thread, body).await);
        assert_eq!(done["ok"], true, "{done}");
        let auth = self
            .vendor
            .requests()
            .last()
            .unwrap()
            .header("authorization")
            .unwrap()
            .to_owned();
        let usage = self
            .api
            .get(&format!("/api/usage?threadId={}&limit=1", self.thread))
            .await
            .expect(200);
        (
            auth,
            usage["records"][0]["key_source"]
                .as_str()
                .unwrap()
                .to_owned(),
        )
    }
}

#[tokio::test]
async fn a_returned_key_is_used_and_the_call_is_signed() {
    let setup = setup(2000).await;
    setup.resolver.push(Reply::json(
        200,
        json!({"apiKey": "sk-user-own-key", "source": "vault"}),
    ));
    let (auth, source) = setup
        .send(json!({"content": "hi", "senderId": "user-42"}))
        .await;
    assert_eq!(auth, "Bearer sk-user-own-key");
    assert_eq!(source, "vault");

    let call = &setup.resolver.requests()[0];
    assert_eq!(call.path, "/resolve");
    let org = setup.api.get("/api/orgs").await.expect(200)[0]["id"].clone();
    assert_eq!(
        call.body,
        json!({"userId": "user-42", "orgId": org, "provider": "openai", "model": "gpt-4.1"})
    );
    let timestamp = call.header("x-service-timestamp").unwrap();
    let nonce = call.header("x-service-nonce").unwrap();
    assert!(uuid::Uuid::parse_str(nonce).is_ok());
    let age = chrono::Utc::now().timestamp() - timestamp.parse::<i64>().unwrap();
    assert!((0..60).contains(&age));
    let signature = hex::decode(call.header("x-service-signature").unwrap()).unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(setup.secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{nonce}.{}", call.raw_body).as_bytes());
    mac.verify_slice(&signature)
        .expect("signature over timestamp.nonce.body");

    // Without senderId an API key asks for `apikey:{key id}`; a JWT user always for its sub.
    setup
        .resolver
        .push(Reply::json(200, json!({"apiKey": null, "source": "none"})));
    setup.send(json!({"content": "hi"})).await;
    let asked = setup.resolver.requests()[1].body["userId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(asked.starts_with("apikey:"), "{asked}");
    let org = org.as_str().unwrap().to_owned();
    let user = setup.server.api(&jwt(
        json!({"sub": "alice", "exp": exp_in(600), "org_id": org}),
    ));
    let mine = user.thread(&setup.agent, json!({})).await;
    setup.resolver.push(Reply::json(
        200,
        json!({"apiKey": "sk-alice", "source": "vault"}),
    ));
    setup.vendor.push(Reply::stream(fixture("openai_text.sse")));
    user.say(&mine, json!({"content": "hi", "senderId": "bob"}))
        .await;
    assert_eq!(setup.resolver.requests()[2].body["userId"], "alice");
    assert_eq!(
        setup
            .vendor
            .requests()
            .last()
            .unwrap()
            .header("authorization"),
        Some("Bearer sk-alice")
    );
    assert!(
        !setup.server.logs().contains("sk-user-own-key"),
        "the resolver's answer is never logged"
    );
}

#[tokio::test]
async fn every_resolver_failure_falls_back_to_the_platform_key() {
    let setup = setup(300).await;
    let fallbacks = [
        Reply::json(200, json!({"apiKey": null, "source": "none"})),
        Reply::json(500, json!({"error": "down"})),
        Reply::Status {
            status: 200,
            headers: vec![],
            body: "not json".into(),
        },
        Reply::After(
            Duration::from_secs(3),
            Box::new(Reply::json(200, json!({"apiKey": "sk-late"}))),
        ),
    ];
    for reply in fallbacks {
        setup.resolver.push(reply);
        let started = Instant::now();
        let (auth, source) = setup.send(json!({"content": "hi"})).await;
        assert_eq!(auth, "Bearer sk-platform");
        assert_eq!(source, "platform");
        assert!(
            started.elapsed() < Duration::from_millis(300 + 1000),
            "took {:?}",
            started.elapsed()
        );
    }

    // An unreachable resolver.
    setup
        .api
        .put(&format!("/api/agents/{}/credentials", setup.agent),
             json!({"enabled": true, "resolverUrl": "https://127.0.0.1:9/resolve", "timeoutMs": 300}))
        .await
        .expect(200);
    let (auth, source) = setup.send(json!({"content": "hi"})).await;
    assert_eq!(
        (auth.as_str(), source.as_str()),
        ("Bearer sk-platform", "platform")
    );
}
