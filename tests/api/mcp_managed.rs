//! Managed-OAuth MCP servers (`marketplace-channels.md` §6,
//! `mcp_managed_oauth`): the operator's client is used instead of dynamic
//! registration, `GET /api/mcp-registry/managed` lists the clients with the
//! org's servers, and a bad entry stops the start.

use reqwest::header::LOCATION;
use serde_json::json;

use crate::common::{Options, Server, exp_in, jwt};
use crate::mcp_oauth::browse;
use crate::third_party::ThirdPartyMock;

#[tokio::test]
async fn a_server_with_a_managed_url_signs_in_with_the_operators_client() {
    let peer = ThirdPartyMock::oauth_mcp_with_client("managed-client");
    let secrets = tempfile::tempdir().unwrap();
    let secret_file = secrets.path().join("client-secret");
    std::fs::write(&secret_file, "managed-secret\n").unwrap();
    let url = format!("{}/mcp", peer.base);
    let managed = json!([{
        "name": "Notes", "url": url, "client_id": "managed-client",
        "client_secret_file": secret_file, "scopes": ["notes.read", "notes.write"],
    }]);
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("CONFER_MCP_MANAGED_OAUTH", &managed.to_string()),
    );
    let admin = server.admin();
    let org = admin.org_id().await;

    let listed = admin.get("/api/mcp-registry/managed").await.expect(200);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["name"], "Notes");
    assert_eq!(listed[0]["url"], url.as_str());
    assert_eq!(listed[0]["transport"], "streamable_http");
    assert_eq!(listed[0]["scopes"], json!(["notes.read", "notes.write"]));
    assert_eq!(listed[0]["installed_mcp_server_ids"], json!([]));
    assert!(!listed.to_string().contains("managed-secret"), "{listed}");

    let mcp = admin
        .post(
            "/api/mcps",
            json!({"name": "Notes", "url": url, "oauth": "per_user"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = admin.get("/api/mcp-registry/managed").await.expect(200);
    assert_eq!(listed[0]["installed_mcp_server_ids"], json!([mcp]));
    // Another org sees the client, not this org's server.
    let other = crate::marketplace::other_org(&server, "Beta").await;
    let theirs = other.get("/api/mcp-registry/managed").await.expect(200);
    assert_eq!(theirs[0]["installed_mcp_server_ids"], json!([]));

    // The provider is asked with the operator's client and its scopes.
    let dana = server.api(&jwt(
        json!({"sub": "dana", "exp": exp_in(600), "org_id": org}),
    ));
    let start = async || {
        dana.post("/api/mcps/managed-oauth/start", json!({"mcpServerId": mcp}))
            .await
            .expect(200)["authorization_url"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let session = jwt(json!({"sub": "dana", "exp": exp_in(600), "org_id": org}));
    let began = browser
        .get(start().await)
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    assert_eq!(began.status(), 302);
    let provider = url::Url::parse(began.headers()[LOCATION].to_str().unwrap()).unwrap();
    let query: std::collections::HashMap<_, _> = provider.query_pairs().into_owned().collect();
    assert_eq!(query["client_id"], "managed-client", "{provider}");
    assert_eq!(query["scope"], "notes.read notes.write", "{provider}");

    // The whole flow: nothing was registered, the code was exchanged.
    let (status, page) = browse(&start().await, &org, "dana", true).await;
    assert_eq!(status, 200, "{page}");
    let stats = peer.get("/_confer/stats").await;
    assert_eq!(stats["registrations"], 0, "{stats}");
    assert_eq!(stats["exchanges"], 1, "{stats}");
    // The secret came from its file, sent as HTTP Basic.
    assert_eq!(stats["basic_secrets"], json!(["managed-secret"]), "{stats}");
}

#[test]
fn a_bad_managed_entry_stops_the_start_and_names_it() {
    let data = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(data.path())
        .env(
            "CONFER_MCP_MANAGED_OAUTH",
            r#"[{"name": "Bad", "url": "/relative", "client_id": "c"}]"#,
        )
        .env("CONFER_SANDBOX_DIR", data.path().join("sandboxes"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("mcp_managed_oauth[0].url"), "{stderr}");
}
