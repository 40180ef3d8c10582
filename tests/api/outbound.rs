//! The outbound policy against real local servers: an HTTPS resolver whose
//! CA comes from CONFER_EXTRA_CA_CERT, reached by name; the same resolver
//! refused once it is no longer allow-listed (the check runs after DNS, at
//! call time); a redirect that is not followed; a slow-drip and an oversized
//! answer that are cut off. Every refusal falls back to the platform key.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of};
use crate::mock::{Mock, Reply, TestCa, fixture};

struct Rig {
    server: Server,
    api: Api,
    vendor: Mock,
    resolver: Mock,
    agent: String,
    thread: String,
    options: Options,
    _dir: tempfile::TempDir,
}

async fn rig(allow: &str) -> Rig {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = ca.write_pem(dir.path());
    let resolver = Mock::start_tls("/resolve", &ca).await;
    let vendor = Mock::start("/v1").await;
    let options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-platform")
        .env("CONFER_EXTRA_CA_CERT", &ca_file)
        .env("CONFER_OUTBOUND_ALLOW", allow);
    let server = Server::start_with(options.clone());
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Outbound", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let thread = api.thread(&agent, json!({})).await;
    Rig {
        server,
        api,
        vendor,
        resolver,
        agent,
        thread,
        options,
        _dir: dir,
    }
}

impl Rig {
    fn port(&self) -> u16 {
        self.resolver
            .base
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/resolve")
            .parse()
            .unwrap()
    }

    async fn configure(&self, url: &str, timeout_ms: u64) -> crate::common::Reply {
        self.api
            .put(
                &format!("/api/agents/{}/credentials", self.agent),
                json!({"enabled": true, "resolverUrl": url, "timeoutMs": timeout_ms}),
            )
            .await
    }

    /// Sends one message; the vendor's Authorization header.
    async fn send(&self) -> String {
        self.vendor.push(Reply::stream(fixture("openai_text.sse")));
        let done = done_of(&self.api.say(&self.thread, json!({"content": "hi"})).await);
        assert_eq!(done["ok"], true, "{done}");
        self.vendor
            .requests()
            .last()
            .unwrap()
            .header("authorization")
            .unwrap()
            .to_owned()
    }
}

#[tokio::test]
async fn private_destinations_need_the_allow_list_at_configuration_and_at_call_time() {
    let rig = rig("localhost").await;
    let port = rig.port();
    // By name, over HTTPS with the operator's CA: allowed, and used.
    rig.configure(&format!("https://localhost:{port}/resolve?tenant=t1"), 2000)
        .await
        .expect(200);
    rig.resolver.push(Reply::json(
        200,
        json!({"apiKey": "sk-own", "source": "vault"}),
    ));
    assert_eq!(rig.send().await, "Bearer sk-own");
    assert_eq!(rig.resolver.requests().len(), 1);

    // Configuration-time refusals: 422 naming why, nothing stored.
    for (url, why) in [
        (
            format!("https://127.0.0.1:{port}/resolve"),
            "not a public address",
        ),
        (
            "https://[::ffff:169.254.169.254]/latest".to_owned(),
            "not a public address",
        ),
        ("http://resolver.example/k".to_owned(), "https"),
        ("https://user:pw@resolver.example/k".to_owned(), "user name"),
    ] {
        let detail = rig
            .configure(&url, 2000)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(
            detail.starts_with("resolverUrl:") && detail.contains(why),
            "{url}: {detail}"
        );
    }

    // The same stored URL once `localhost` is no longer allow-listed: the
    // name resolves to 127.0.0.1, the call-time check refuses it, and the
    // resolver never sees a request.
    let Rig {
        server,
        vendor,
        resolver,
        thread,
        options,
        agent,
        _dir,
        ..
    } = rig;
    let mut strict = options.clone();
    strict.env.retain(|(k, _)| k != "CONFER_OUTBOUND_ALLOW");
    let server = server.kill_and_restart_with(strict);
    let rig = Rig {
        api: server.admin(),
        server,
        vendor,
        resolver,
        agent,
        thread,
        options,
        _dir,
    };
    assert_eq!(rig.send().await, "Bearer sk-platform");
    assert_eq!(rig.resolver.requests().len(), 1, "no second call");
    rig.server
        .log_line("localhost resolves only to non-public addresses")
        .await;
    let logs = rig.server.logs();
    assert!(
        !logs.contains("tenant=t1"),
        "the query string is never logged"
    );
}

#[tokio::test]
async fn redirects_slow_drips_and_oversized_answers_fall_back() {
    let rig = rig("127.0.0.1").await;
    let port = rig.port();
    rig.configure(&format!("https://127.0.0.1:{port}/resolve"), 500)
        .await
        .expect(200);

    // A redirect is not followed.
    let ca = TestCa::new();
    let elsewhere = Mock::start_tls("/steal", &ca).await;
    rig.resolver.push(Reply::Status {
        status: 302,
        headers: vec![("location".into(), elsewhere.base.clone())],
        body: "{}".into(),
    });
    assert_eq!(rig.send().await, "Bearer sk-platform");
    assert!(elsewhere.requests().is_empty(), "redirect followed");

    // A body that drips in slower than the call's timeout: cut at the timeout.
    rig.resolver.push(Reply::Stream {
        body: "{\"apiKey\":\n\n\"sk-drip\"}\n\n".into(),
        gap: Duration::from_millis(1500),
    });
    let started = Instant::now();
    assert_eq!(rig.send().await, "Bearer sk-platform");
    assert!(
        started.elapsed() < Duration::from_millis(1400),
        "the drip was cut at the timeout: {:?}",
        started.elapsed()
    );

    // An answer over the 64 KiB cap is refused even though it holds a key.
    let big: Value = json!({"apiKey": "sk-big", "padding": "x".repeat(100 * 1024)});
    rig.resolver.push(Reply::json(200, big));
    assert_eq!(rig.send().await, "Bearer sk-platform");

    // And a normal answer still works on the same configuration.
    rig.resolver
        .push(Reply::json(200, json!({"apiKey": "sk-fine"})));
    assert_eq!(rig.send().await, "Bearer sk-fine");
}
