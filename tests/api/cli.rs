//! The command line (operations.md "Command line"): `serve` flags, a bind
//! conflict, `confer config`.

use std::process::{Command, Output};

use crate::common::{Options, Server};

/// Runs `confer ARGS` with only `env` set.
fn confer(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_confer"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("confer runs")
}

#[tokio::test]
async fn serve_flags_win_over_the_environment() {
    // CONFER_BIND names a port nobody may bind; `--port 0` replaces it.
    let options = Options {
        args: vec!["--port".into(), "0".into()],
        ..Options::default()
    }
    .env("CONFER_BIND", "127.0.0.1:1");
    let server = Server::start_with(options);
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    assert!(!server.base.ends_with(":1"), "{}", server.base);
    server.anonymous().get("/healthz").await.expect(200);
}

#[tokio::test]
async fn a_port_in_use_exits_2_with_one_line() {
    let server = Server::start();
    let taken = server.base.trim_start_matches("http://").to_owned();
    let data = tempfile::tempdir().unwrap();
    let data = data.path().display().to_string();
    let out = confer(
        &["serve", "--bind", &taken, "--data-dir", &data],
        &[("CONFER_LOG", "info")],
    );
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        said.trim(),
        format!("confer: cannot listen on {taken}: address in use")
    );
    assert!(
        out.stdout.is_empty(),
        "nothing printed, no key: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn config_prints_toml_with_sources_and_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("confer.toml");
    std::fs::write(&file, "log = \"debug\"\nmax_body_bytes = 2048\n").unwrap();
    let out = confer(
        &[
            "--config",
            file.to_str().unwrap(),
            "config",
            "--data-dir",
            "/srv/confer",
        ],
        &[
            ("CONFER_JWT_SECRET", "do-not-print-me-0123456789"),
            ("CONFER_WORKERS", "3"),
            ("OPENAI_API_KEY", "sk-do-not-print-me"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("do-not-print-me"), "{text}");
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_owned()
    };
    assert_eq!(
        line("log"),
        format!("log = \"debug\"  # file {}", file.display())
    );
    assert_eq!(
        line("max_body_bytes"),
        format!("max_body_bytes = 2048  # file {}", file.display())
    );
    assert_eq!(line("workers"), "workers = 3  # environment CONFER_WORKERS");
    assert_eq!(
        line("jwt_secret"),
        "jwt_secret = \"<redacted>\"  # environment CONFER_JWT_SECRET"
    );
    assert_eq!(
        line("openai_api_key"),
        "openai_api_key = \"<redacted>\"  # environment OPENAI_API_KEY"
    );
    assert_eq!(
        line("data_dir"),
        "data_dir = \"/srv/confer\"  # command line"
    );
    assert_eq!(line("bind"), "bind = \"127.0.0.1:8080\"  # default");

    // A bad setting is exit 2, naming it.
    let out = confer(&["config"], &[("CONFER_WORKERS", "many")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .to_lowercase()
            .contains("workers")
    );
}

/// The code block after `<!-- jwt-example:NAME -->` in docs/operations.md.
fn jwt_example(name: &str) -> String {
    let guide = include_str!("../../docs/operations.md");
    let marker = format!("<!-- jwt-example:{name} -->");
    let after = guide
        .split(&marker)
        .nth(1)
        .expect("the example is in the guide");
    let body = after.split("```").nth(1).expect("a fenced block");
    body.split_once('\n')
        .map(|(_, code)| code.to_owned())
        .unwrap()
}

#[tokio::test]
async fn the_guides_jwt_examples_mint_tokens_the_server_accepts() {
    let server = Server::start();
    let org = server.admin().org_id().await;
    for (program, flag, name) in [("python3", "-c", "python"), ("node", "-e", "javascript")] {
        let out = Command::new(program)
            .args([flag, &jwt_example(name)])
            .env("CONFER_JWT_SECRET", crate::common::JWT_SECRET)
            .env("ORG_ID", &org)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let token = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        let user = server.api(&token);
        user.get("/api/agents").await.expect(200);
        // An end user: not an admin.
        user.post("/api/agents", serde_json::json!({"name": "no"}))
            .await
            .expect_error(403, "FORBIDDEN");
    }
}

#[tokio::test]
async fn keys_create_through_a_running_server_with_url() {
    let server = Server::start();
    let data = server.data_dir().display().to_string();
    let out = confer(
        &[
            "keys",
            "create",
            "--name",
            "remote",
            "--role",
            "member",
            "--url",
            &server.base,
        ],
        &[
            ("CONFER_DATA_DIR", data.as_str()),
            ("CONFER_ADMIN_KEY", crate::common::BOOTSTRAP_KEY),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let key = text.lines().last().unwrap().trim().to_owned();
    assert!(key.starts_with("cfr_"), "{text}");
    let member = server.api(&key);
    member.get("/api/agents").await.expect(200);
    member
        .post("/api/agents", serde_json::json!({"name": "no"}))
        .await
        .expect_error(403, "FORBIDDEN");
    // A key the server refuses: one line naming the server's answer, exit 1.
    let out = confer(
        &["keys", "create", "--name", "x", "--url", &server.base],
        &[("CONFER_ADMIN_KEY", key.as_str())],
    );
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("403 FORBIDDEN"), "{said}");
    // --url without a key is a usage error.
    let out = confer(
        &["keys", "create", "--name", "x", "--url", &server.base],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
}
