//! Secrets: a full scenario at `CONFER_LOG=trace` leaves no secret in the
//! log (as text or as the byte arrays a store's trace prints), the signing
//! secret is sealed on disk, and it still signs after a restart.

use serde_json::json;

use crate::common::{BOOTSTRAP_KEY, JWT_SECRET, Options, Server, done_of, exp_in, jwt};
use crate::mock::{Mock, Reply, TestCa, fixture};

/// How a byte-array dump (`[99, 102, 115, ...]`) would show `secret`.
fn as_byte_list(secret: &str) -> String {
    secret
        .bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn files_contain(dir: &std::path::Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            return files_contain(&path, needle);
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        bytes.windows(needle.len()).any(|w| w == needle)
    })
}

#[tokio::test]
async fn no_secret_reaches_the_log_or_the_disk_in_clear() {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = ca.write_pem(dir.path());
    let resolver = Mock::start_tls("/resolve", &ca).await;
    let vendor = Mock::start("/v1").await;
    let platform_key = "sk-platform-9f8e7d6c5b4a";
    let options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", platform_key)
        .env("CONFER_EXTRA_CA_CERT", &ca_file)
        .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
        .env("CONFER_LOG", "trace");
    let server = Server::start_with(options);
    let admin = server.admin();
    let org = admin.org_id().await;
    let created = admin
        .post("/api/keys", json!({"name": "backend"}))
        .await
        .expect(201);
    let member_key = created["key"].as_str().unwrap().to_owned();
    let agent = admin
        .agent_with(json!({"name": "Secretive", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let configured = admin
        .put(
            &format!("/api/agents/{agent}/credentials"),
            json!({"enabled": true, "resolverUrl": resolver.base, "timeoutMs": 2000}),
        )
        .await
        .expect(200);
    let signing_secret = configured["signing_secret"].as_str().unwrap().to_owned();
    // An org tool: its signing secret is sealed too, and signs its calls.
    let hooks = Mock::start("").await;
    let tool_secret = admin
        .post(
            "/api/tools",
            json!({"name": "lookup", "url": format!("{}/hook", hooks.base)}),
        )
        .await
        .expect(201)["signing_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    hooks.push(Reply::json(200, json!({"found": true})));
    let executed = admin
        .post(
            "/api/tools/execute",
            json!({"name": "lookup", "arguments": {}}),
        )
        .await
        .expect(200);
    assert_eq!(executed["result"], json!({"found": true}));
    let user_token = jwt(json!({"sub": "alice", "exp": exp_in(600), "org_id": org}));
    let alice = server.api(&user_token);
    let thread = alice.thread(&agent, json!({})).await;
    let user_key = "sk-user-own-1a2b3c4d";
    resolver.push(Reply::json(
        200,
        json!({"apiKey": user_key, "source": "vault"}),
    ));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let done = done_of(&alice.say(&thread, json!({"content": "hello"})).await);
    assert_eq!(done["ok"], true);
    assert_eq!(
        vendor.requests()[0].header("authorization"),
        Some(format!("Bearer {user_key}").as_str())
    );
    server.api(&member_key).get("/api/agents").await.expect(200);
    // Malformed HTTP from a client: the HTTP library would log it as an error.
    {
        use std::io::{Read, Write};
        let address = server.base.trim_start_matches("http://").to_owned();
        let mut raw = std::net::TcpStream::connect(address).unwrap();
        raw.write_all(b"GARBAGE \x01\x02 NOT-HTTP\r\n\r\n").unwrap();
        let mut answer = Vec::new();
        let _ = raw.read_to_end(&mut answer);
        // And a body cut short by a client that goes away.
        let mut cut =
            std::net::TcpStream::connect(server.base.trim_start_matches("http://")).unwrap();
        write!(
            cut,
            "POST /api/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {member_key}\r\nContent-Length: 100\r\n\r\n{{\"na"
        )
        .unwrap();
        drop(cut);
    }
    // A malformed request, which must not be an error line either.
    admin
        .raw(reqwest::Method::POST, "/api/agents", b"{not json".to_vec())
        .await
        .expect_error(400, "BAD_REQUEST");

    // An MCP server's credentials and OAuth client secret, and an
    // integration's password: each goes through the handlers, the store
    // and (for the server, whose listing fails) the hub at trace level.
    let mcp_header = "mcp-header-secret-5e6f7a";
    let client_secret = "oauth-client-secret-7a8b9c";
    admin
        .post(
            "/api/mcps",
            json!({"name": "hidden", "url": "http://127.0.0.1:9/mcp", "oauth": "org",
                   "credentials": {"headers": {"X-Api-Key": mcp_header}},
                   "oauthClient": {"clientId": "confer", "clientSecret": client_secret}}),
        )
        .await
        .expect(201);
    let pg_password = "pg-password-3c4d5e";
    admin
        .post(
            "/api/integrations",
            json!({"name": "db", "kind": "postgres",
                   "connectionString": format!("postgres://u:{pg_password}@127.0.0.1:9/db")}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");

    // Let the server see the cut connection before its log is read.
    admin.get("/api/agents").await.expect(200);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let first_run = server.logs();
    {
        let server = server.kill_and_restart();
        // The signing secret still opens (and signs) after a restart.
        resolver.push(Reply::json(
            200,
            json!({"apiKey": user_key, "source": "vault"}),
        ));
        vendor.push(Reply::stream(fixture("openai_text.sse")));
        let alice = server.api(&user_token);
        done_of(&alice.say(&thread, json!({"content": "again"})).await);
        let call = resolver.requests().last().unwrap().clone();
        let signature = call.header("x-service-signature").unwrap().to_owned();
        let expected = confer::resolver::signature(
            &signing_secret,
            call.header("x-service-timestamp").unwrap(),
            call.header("x-service-nonce").unwrap(),
            call.raw_body.as_bytes(),
        );
        assert_eq!(signature, expected);
        // So does the tool's.
        hooks.push(Reply::json(200, json!({"found": true})));
        let admin = server.admin();
        admin
            .post(
                "/api/tools/execute",
                json!({"name": "lookup", "arguments": {}}),
            )
            .await
            .expect(200);
        let call = hooks.requests().last().unwrap().clone();
        let expected = confer::resolver::signature(
            &tool_secret,
            call.header("x-service-timestamp").unwrap(),
            call.header("x-service-nonce").unwrap(),
            call.raw_body.as_bytes(),
        );
        assert_eq!(call.header("x-service-signature"), Some(expected.as_str()));
        // Both runs: the scenario above and the restart's send.
        let logs = format!("{first_run}{}", server.logs());
        assert!(
            logs.contains("TRACE") || logs.contains("DEBUG"),
            "ran at trace"
        );
        for (name, secret) in [
            ("bootstrap key", BOOTSTRAP_KEY),
            ("created key", member_key.as_str()),
            ("signing secret", signing_secret.as_str()),
            ("tool signing secret", tool_secret.as_str()),
            ("resolver's key", user_key),
            ("platform key", platform_key),
            ("JWT secret", JWT_SECRET),
            ("JWT", user_token.as_str()),
            ("MCP credential header", mcp_header),
            ("OAuth client secret", client_secret),
            ("integration password", pg_password),
        ] {
            assert!(!logs.contains(secret), "{name} in the log");
            assert!(
                !logs.contains(&as_byte_list(secret)),
                "{name} as bytes in the log"
            );
        }
        // The store's trace lines (which print keys and batches of values)
        // never reach the log, whatever CONFER_LOG says.
        assert!(
            !logs
                .lines()
                .any(|l| l.contains("TRACE") && l.contains(" sled::")),
            "sled trace lines in the log"
        );
        assert!(
            !logs.contains(" ERROR "),
            "a client's bad request is no error line:\n{}",
            logs.lines()
                .filter(|l| l.contains("ERROR"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let data_dir = server.data_dir();
        assert!(
            !files_contain(data_dir, signing_secret.as_bytes()),
            "the signing secret is sealed on disk"
        );
        assert!(
            !files_contain(data_dir, tool_secret.as_bytes()),
            "the tool's signing secret is sealed on disk"
        );
        for (name, secret) in [
            ("MCP credential header", mcp_header),
            ("OAuth client secret", client_secret),
        ] {
            assert!(
                !files_contain(data_dir, secret.as_bytes()),
                "{name} is sealed on disk"
            );
        }
        assert!(data_dir.join("secret.key").exists());
    }
}
