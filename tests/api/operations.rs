//! Running it: first start, layered configuration, logs without secrets.

use std::time::Duration;

use serde_json::json;

use crate::common::{BOOTSTRAP_KEY, JWT_SECRET, Options, Server, exp_in, jwt};

#[tokio::test]
async fn first_start_prints_one_admin_key_once() {
    let options = Options {
        bootstrap_key: None,
        ..Options::default()
    };
    let mut server = Server::start_with(options);
    let stdout = server.stdout.lock().unwrap().join("\n");
    let key = stdout
        .split_whitespace()
        .find(|w| w.starts_with("cfr_"))
        .unwrap_or_else(|| panic!("no key printed: {stdout}"))
        .to_owned();
    let api = server.api(&key);
    let keys = api.get("/api/keys").await.expect(200);
    assert_eq!(keys.as_array().unwrap().len(), 1);
    assert_eq!(keys[0]["role"], "admin");
    assert_eq!(api.get("/api/orgs").await.expect(200)[0]["name"], "default");
    api.post("/api/orgs", json!({"name": "second"}))
        .await
        .expect(201);
    assert!(
        !server.logs().contains(&key),
        "the key is printed, never logged"
    );

    assert!(server.terminate());
    let server = server.restart();
    let stdout = server.stdout.lock().unwrap().join("\n");
    assert!(
        !stdout.contains("cfr_"),
        "printed only on the first start: {stdout}"
    );
    server.api(&key).get("/api/agents").await.expect(200);
}

#[tokio::test]
async fn configuration_layers_file_then_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("confer.toml");
    std::fs::write(
        &file,
        "default_model = \"from/file\"\nmax_body_bytes = 4096\n",
    )
    .unwrap();
    let from_file = Options {
        args: vec!["--config".into(), file.display().to_string()],
        ..Options::default()
    };
    let server = Server::start_with(from_file.clone());
    let agent = server
        .admin()
        .post("/api/agents", json!({"name": "A"}))
        .await
        .expect(201);
    assert_eq!(agent["default_model"], "from/file");
    let big = json!({"name": "x", "description": "y".repeat(5000)});
    server
        .admin()
        .post("/api/agents", big)
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    drop(server);

    let env_wins = from_file.env("CONFER_DEFAULT_MODEL", "from/env");
    let server = Server::start_with(env_wins);
    let agent = server
        .admin()
        .post("/api/agents", json!({"name": "A"}))
        .await
        .expect(201);
    assert_eq!(agent["default_model"], "from/env");
    drop(server);

    let via_env_var = Options::default().env("CONFER_CONFIG", &file.display().to_string());
    let server = Server::start_with(via_env_var);
    let agent = server
        .admin()
        .post("/api/agents", json!({"name": "A"}))
        .await
        .expect(201);
    assert_eq!(agent["default_model"], "from/file");
}

#[tokio::test]
async fn logs_have_one_line_per_request_and_no_secrets() {
    let options = Options::default()
        .env("ANTHROPIC_API_KEY", "sk-ant-test-vendor-secret-123")
        .env("OPENAI_API_KEY", "sk-openai-test-vendor-secret-456");
    let mut server = Server::start_with(options);
    let admin = server.admin();
    let org = admin.get("/api/orgs").await.expect(200)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = admin
        .post("/api/keys", json!({"name": "k"}))
        .await
        .expect(201);
    let member_key = created["key"].as_str().unwrap().to_owned();
    let agent = admin.agent("A").await;
    let signing = admin
        .put(
            &format!("/api/agents/{agent}/credentials"),
            json!({"enabled": true, "resolverUrl": "https://r.example"}),
        )
        .await
        .expect(200)["signing_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let token = jwt(json!({"sub": "user-1", "exp": exp_in(600), "org_id": org}));
    server.api(&token).get("/api/agents").await.expect(200);
    // Failed attempts must not echo the credential either.
    let wrong = "cfr_wrong_secret_that_must_not_be_logged";
    let detail = server
        .api(wrong)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    assert!(!detail.contains(wrong));
    let forged = format!("{}x", token);
    let detail = server
        .api(&forged)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
    assert!(!detail.contains(&forged));
    server
        .api(&member_key)
        .get(&format!("/api/agents/{agent}?orgId=zzz"))
        .await
        .expect_error(403, "FORBIDDEN");

    assert!(server.terminate());
    let logs = server.logs();
    assert!(logs.contains("request"), "{logs}");
    let line = logs
        .lines()
        .find(|l| l.contains("/api/keys") && l.contains("status=201"))
        .unwrap_or_else(|| panic!("no request line for POST /api/keys: {logs}"));
    for part in ["method=POST", "duration_ms=", "request_id="] {
        assert!(line.contains(part), "{part} missing in {line}");
    }
    for secret in [
        BOOTSTRAP_KEY,
        JWT_SECRET,
        member_key.as_str(),
        signing.as_str(),
        token.as_str(),
        wrong,
        "sk-ant-test-vendor-secret-123",
        "sk-openai-test-vendor-secret-456",
    ] {
        assert!(!logs.contains(secret), "secret {secret} leaked into logs");
    }
}

/// `/readyz` answers 200 while sends are taken; a line a handler logs
/// carries its request's id (the client's `X-Request-Id` when it sent one).
#[tokio::test]
async fn readiness_and_request_ids_on_handler_log_lines() {
    let server = Server::start_with(
        Options::default()
            .env("CONFER_LOG", "info,confer=debug")
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1:9"),
    );
    let ready = reqwest::get(format!("{}/readyz", server.base))
        .await
        .unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(
        ready.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );
    let api = server.admin();
    api.post(
        "/api/tools",
        serde_json::json!({"name": "closed", "url": "http://127.0.0.1:9/hook"}),
    )
    .await
    .expect(201);
    let answer = reqwest::Client::new()
        .post(format!("{}/api/tools/execute", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .header("x-request-id", "test-request-42")
        .json(&serde_json::json!({"name": "closed", "arguments": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["x-request-id"], "test-request-42");
    let line = server.log_line("a tool call failed").await;
    assert!(line.contains("test-request-42"), "{line}");
}

/// Once a shutdown began, `/readyz` is 503 on a connection still open
/// (the listener takes no new ones) while the running turns finish.
#[tokio::test]
async fn readiness_is_503_during_a_shutdown() {
    let server = Server::start_with(
        Options::default()
            .env("CONFER_BUILTIN_DELAY_MS", "100")
            .env("CONFER_SHUTDOWN_TIMEOUT_SECS", "3"),
    );
    let api = server.admin();
    let agent = api.agent("Busy").await;
    let thread = api.thread(&agent, json!({})).await;
    let long: String = (0..40).map(|n| format!("word{n} ")).collect();
    let mut running = api.open_stream(&thread, json!({"content": long})).await;
    running.next_within(Duration::from_secs(10)).await.unwrap();
    // One client, one kept-alive connection.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .unwrap();
    let url = format!("{}/readyz", server.base);
    assert_eq!(client.get(&url).send().await.unwrap().status(), 200);
    server.signal("TERM");
    let answer =
        crate::common::eventually(Duration::from_secs(5), "503 from /readyz", async || {
            let reply = client.get(&url).send().await.ok()?;
            (reply.status() == 503).then_some(reply)
        })
        .await;
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["error"], "SHUTTING_DOWN");
}

/// CORS is off by default; `CONFER_CORS_ORIGINS` answers those origins'
/// preflights and lets their pages read the request id and rate headers.
#[tokio::test]
async fn cors_admits_only_the_configured_origins() {
    let app = "https://app.example.com";
    let server = Server::start_with(Options::default().env("CONFER_CORS_ORIGINS", app));
    let client = reqwest::Client::new();
    let preflight = client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/api/agents", server.base),
        )
        .header("origin", app)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type",
        )
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    assert_eq!(preflight.headers()["access-control-allow-origin"], app);
    let read = client
        .get(format!("{}/api/agents", server.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .header("origin", app)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert_eq!(read.headers()["access-control-allow-origin"], app);
    let exposed = read.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        exposed.contains("x-request-id") && exposed.contains("retry-after"),
        "{exposed}"
    );
    let other = client
        .get(format!("{}/api/agents", server.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());

    // Off by default: no CORS header for any origin.
    let plain = Server::start();
    let read = client
        .get(format!("{}/api/agents", plain.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .header("origin", app)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert!(read.headers().get("access-control-allow-origin").is_none());
}

/// `confer keys create` on a stopped store gives a key the server then
/// accepts; against a store a running server holds it exits 2, one line.
#[tokio::test]
async fn keys_create_on_a_stopped_store() {
    let mut server = Server::start();
    let data = server.data_dir().to_owned();
    let cli = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("CONFER_DATA_DIR", &data)
            .output()
            .unwrap()
    };
    let busy = cli(&["keys", "create", "--name", "ops"]);
    assert_eq!(busy.status.code(), Some(2));
    let said = String::from_utf8_lossy(&busy.stderr);
    assert!(said.contains("in use by a running server"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");

    let stopped = server.terminate();
    assert!(stopped, "{}", server.logs());
    let made = cli(&["keys", "create", "--name", "ops", "--role", "member"]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let out = String::from_utf8_lossy(&made.stdout).to_string();
    let key = out.lines().last().unwrap().trim().to_owned();
    assert!(key.starts_with("cfr_"), "{out}");
    let listed = cli(&["keys", "list"]);
    let listed = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(listed.contains("\tops\tMember\t"), "{listed}");
    assert!(!listed.contains(&key), "a listing never shows a secret");

    let server = server.kill_and_restart();
    let member = server.api(&key);
    member.get("/api/agents").await.expect(200);
    member
        .post("/api/agents", json!({"name": "nope"}))
        .await
        .expect_error(403, "FORBIDDEN");
}
