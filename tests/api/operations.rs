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
    std::thread::sleep(Duration::from_millis(100));
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
