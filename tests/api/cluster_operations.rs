//! The operator's side of a node on PostgreSQL (`scale.md` §6): the key
//! and org commands beside a live node, `backup` and `restore` refused,
//! and the spans exported over OTLP.

use std::time::Duration;

use serde_json::json;

use crate::cluster_serve::{SECRET_KEY, on_postgres};
use crate::common::{Server, eventually};
use crate::postgres::Postgres;

/// Runs `confer ARGS` with the cluster's key on the data directory `data`
/// (and the PostgreSQL store `url`, when given): exit code, stdout, stderr.
pub(crate) fn confer_on(
    url: Option<&str>,
    data: &std::path::Path,
    args: &[&str],
) -> (Option<i32>, String, String) {
    confer_keyed(url, data, SECRET_KEY, args)
}

/// [`confer_on`] with the secret key `key`.
pub(crate) fn confer_keyed(
    url: Option<&str>,
    data: &std::path::Path,
    key: &str,
    args: &[&str],
) -> (Option<i32>, String, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_confer"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CONFER_DATA_DIR", data)
        .env("CONFER_SECRET_KEY", key);
    if let Some(url) = url {
        command.env("CONFER_STORE", url);
    }
    let out = command.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `confer keys` and `confer orgs` run on PostgreSQL beside a live node
/// (`scale.md` §6): a key made there is accepted by the node at once, and
/// a revoked one refused; `backup` and `restore` refuse (exit 2) and name
/// PostgreSQL's own tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_and_org_commands_run_on_postgres_beside_a_live_node() {
    let postgres = Postgres::start().await;
    let url = postgres.database("commands").await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let data = tempfile::tempdir().unwrap();
    let confer = |args: &[&str]| confer_on(Some(&url), data.path(), args);
    let (code, out, err) = confer(&["keys", "create", "--name", "from cli", "--role", "member"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let key = out.lines().last().unwrap().trim().to_owned();
    assert!(key.starts_with("cfr_"), "{out}");
    let member = node.api(&key);
    member.get("/api/agents").await.expect(200);
    member
        .post("/api/agents", json!({"name": "no"}))
        .await
        .expect_error(403, "FORBIDDEN");

    let (code, listed, err) = confer(&["keys", "list"]);
    assert_eq!(code, Some(0), "{err}");
    let line = listed
        .lines()
        .find(|l| l.contains("from cli"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(!listed.contains(&key), "a secret was listed");
    let id = line.split('\t').next().unwrap();
    let (code, _, err) = confer(&["keys", "revoke", id]);
    assert_eq!(code, Some(0), "{err}");
    member.get("/api/agents").await.expect(401);

    let (code, _, err) = confer(&["orgs", "create", "second org"]);
    assert_eq!(code, Some(0), "{err}");
    let (_, orgs, _) = confer(&["orgs", "list"]);
    assert!(
        orgs.contains("second org") && orgs.contains("default"),
        "{orgs}"
    );

    let archive = data.path().join("backup.tar");
    let archive = archive.to_str().unwrap();
    for args in [
        &["backup", "--out", archive][..],
        &["restore", "--from", archive][..],
    ] {
        let (code, _, err) = confer(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("pg_dump"), "{err}");
    }
    assert!(!data.path().join("backup.tar").exists());
}

/// A node on PostgreSQL exports each turn's spans over OTLP once the
/// answer is committed, continuing the caller's `traceparent`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_on_postgres_exports_its_spans_over_otlp() {
    use crate::mock::{Mock, Reply};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;

    let postgres = Postgres::start().await;
    let url = postgres.database("otlp").await;
    let collector = Mock::start("").await;
    for _ in 0..8 {
        collector.push(Reply::json(200, json!({})));
    }
    let node = Server::start_with(
        on_postgres(&url, "a").env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.base),
    );
    let admin = node.admin();
    let agent = admin.agent("exported").await;
    let thread = admin.thread(&agent, json!({})).await;
    let caller = "4bf92f3577b34da6a3ce929d0e0e4736";
    let sent = admin
        .request_with(
            reqwest::Method::POST,
            &format!("/api/threads/{thread}/messages"),
            Some(json!({"content": "traced on postgres"})),
            &[("traceparent", &format!("00-{caller}-00f067aa0ba902b7-01"))],
        )
        .await;
    assert_eq!(sent.status.as_u16(), 200);
    eventually(
        Duration::from_secs(10),
        "the turn's spans exported",
        async || {
            let traces: Vec<String> = collector
                .requests()
                .iter()
                .flat_map(|request| {
                    ExportTraceServiceRequest::decode(request.bytes.as_slice())
                        .unwrap()
                        .resource_spans
                })
                .flat_map(|resource| resource.scope_spans)
                .flat_map(|scope| scope.spans)
                .map(|span| hex::encode(&span.trace_id))
                .collect();
            (!traces.is_empty() && traces.iter().all(|t| t == caller)).then_some(())
        },
    )
    .await;
}

/// `confer export` and `GET /api/admin/export` on PostgreSQL, beside a live
/// node: the same lines, every record of the org in the API's shapes, and
/// the pages of a thread longer than one page all there, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_runs_on_postgres_beside_a_live_node() {
    let postgres = Postgres::start().await;
    let url = postgres.database("export").await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let admin = node.admin();
    let agent = admin.agent("exported").await;
    let thread = admin.thread(&agent, json!({})).await;
    for n in 0..3 {
        admin
            .say(&thread, json!({"content": format!("line {n}")}))
            .await;
    }
    // A second thread past one page (500) of messages, written straight
    // to the table the pages read.
    let long = admin.thread(&agent, json!({})).await;
    let database = postgres.admin_of("export").await;
    database
        .execute(
            "INSERT INTO messages (thread_id, seq, v, body)
             SELECT $1::text::uuid, n, m.v, jsonb_set(jsonb_set(m.body::jsonb,
                 '{seq}', to_jsonb(n)), '{content}', to_jsonb('page ' || n))::json
             FROM generate_series(1, 1203) n,
                  (SELECT v, body FROM messages WHERE thread_id = $2::text::uuid AND seq = 1) m",
            &[&long, &thread],
        )
        .await
        .unwrap();

    let data = tempfile::tempdir().unwrap();
    let (code, exported, said) = confer_on(Some(&url), data.path(), &["export", "--out", "-"]);
    assert_eq!(code, Some(0), "{said}");
    let lines: Vec<serde_json::Value> = exported
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |kind: &str| lines.iter().filter(|l| l["type"] == kind).count();
    assert_eq!(
        (of("agent"), of("thread"), of("message"), of("usage")),
        (1, 2, 6 + 1203, 3),
        "{said}"
    );
    let paged: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "message" && l["thread_id"] == long.as_str())
        .map(|l| l["content"].as_str().unwrap())
        .collect();
    let written: Vec<String> = (1..=1203).map(|n| format!("page {n}")).collect();
    assert_eq!(paged, written);

    let response = reqwest::Client::new()
        .get(format!("{}/api/admin/export", node.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), exported);
}

/// A U+0000 in a field PostgreSQL keeps as `jsonb` (a thread's title or
/// metadata, an agent's text) is a 422 naming the field, and nothing is
/// written; in a message it is kept (`text_with_nul_is_kept`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nul_in_a_jsonb_field_is_refused_by_name() {
    let postgres = Postgres::start().await;
    let url = postgres.database("nul").await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let api = node.admin();
    let detail = api
        .post("/api/agents", json!({"name": "a\u{0}b"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("name:"), "{detail}");
    assert_eq!(api.get("/api/agents").await.expect(200), json!([]));

    let agent = api.agent("nul").await;
    let detail = api
        .patch(
            &format!("/api/agents/{agent}"),
            json!({"description": "x\u{0}"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("description:"), "{detail}");
    let detail = api
        .post(
            "/api/threads",
            json!({"agentId": agent, "metadata": {"k": "\u{0}"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("metadata.k:"), "{detail}");
    let thread = api.thread(&agent, json!({"title": "kept"})).await;
    let detail = api
        .patch(&format!("/api/threads/{thread}"), json!({"title": "\u{0}"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("title:"), "{detail}");
    let stored = api.get(&format!("/api/threads/{thread}")).await.expect(200);
    assert_eq!(stored["title"], "kept");
    let agent = api.get(&format!("/api/agents/{agent}")).await.expect(200);
    assert_eq!(agent["description"], "", "{agent}");
}

/// An agent's credential resolver is configured on PostgreSQL as on sled:
/// the signing secret is shown once, kept sealed, read on every node, and
/// a rotation replaces it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_configured_on_postgres() {
    let postgres = Postgres::start().await;
    let url = postgres.database("credentials").await;
    let a = Server::start_with(on_postgres(&url, "a"));
    let b = Server::start_with(on_postgres(&url, "b"));
    let api = a.admin();
    let agent = api.agent("byok").await;
    let path = format!("/api/agents/{agent}/credentials");
    let made = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/keys"}),
        )
        .await
        .expect(200);
    let secret = made["signing_secret"].as_str().unwrap().to_owned();
    let read = b.admin().get(&path).await.expect(200);
    assert_eq!(read["resolver_url"], "https://r.example/keys");
    assert_eq!(read["enabled"], true);
    assert!(read.get("signing_secret").is_none(), "{read}");
    // Kept sealed: the row does not hold the secret.
    let rows = postgres
        .admin_of("credentials")
        .await
        .query("SELECT body::text FROM agent_configs", &[])
        .await
        .unwrap();
    let stored: String = rows[0].get(0);
    assert!(!stored.contains(&secret), "{stored}");
    // A change keeps the secret; a rotation replaces it.
    let kept = b
        .admin()
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/v2", "timeoutMs": 900}),
        )
        .await
        .expect(200);
    assert!(kept.get("signing_secret").is_none(), "{kept}");
    let rotated = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/v2", "rotateSecret": true}),
        )
        .await
        .expect(200);
    let fresh = rotated["signing_secret"].as_str().unwrap();
    assert_ne!(fresh, secret);
    assert_eq!(api.get(&path).await.expect(200)["timeout_ms"], 5000);
}
