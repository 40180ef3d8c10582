//! MCP servers on PostgreSQL (`tools.md` §6, `scale.md` §5): a server
//! made on one node is listed, attached and called from another; its
//! credentials stay sealed in the row; a change to an attachment made on
//! one node reaches the org's servers another node had cached, within
//! the cache round; a user's sign-in to a server begun on one node
//! finishes on another.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster_forward::{node_of, settled_with, thread_owned_by};
use crate::cluster_serve::on_postgres_with_vendor;
use crate::common::{Server, done_of, events_of, eventually};
use crate::mcp::status_of;
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::postgres::Postgres;
use crate::third_party::ThirdPartyMock;

const TOKEN: &str = "mcp-cluster-token-7a1e";

/// Nodes `a` and `b` on the database `url`, their model the mock
/// `vendor`, allowed to reach local servers.
fn two_nodes(url: &str, vendor: &Mock) -> (Server, Server) {
    let node = |name| on_postgres_with_vendor(url, name, &vendor.base);
    (Server::start_with(node("a")), Server::start_with(node("b")))
}

fn offered(vendor: &Mock) -> Vec<String> {
    let request = vendor.requests().last().unwrap().body.clone();
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_made_on_one_node_is_called_from_another() {
    let peer = ThirdPartyMock::fastmcp("streamable-http");
    let vendor = Mock::start("/v1").await;
    vendor.otherwise(Reply::stream(openai_answer("hi", 5)));
    let postgres = Postgres::start().await;
    let url = postgres.database("mcps").await;
    let (a, b) = two_nodes(&url, &vendor);
    settled_with(&a, 2).await;
    let (on_a, on_b) = (a.admin(), b.admin());

    // Made on A, listed by A; B reads the record A's listing wrote.
    let made = on_a
        .post(
            "/api/mcps",
            json!({"name": "Peer Tools", "url": format!("{}/mcp", peer.base),
                   "credentials": {"headers": {"Authorization": format!("Bearer {TOKEN}")}}}),
        )
        .await
        .expect(201);
    let id = made["id"].as_str().unwrap().to_owned();
    let listed = status_of(&on_b, &id, "active").await;
    assert!(
        listed["tools_cache"].to_string().contains("\"add\""),
        "{listed}"
    );
    assert_eq!(listed["has_credentials"], true);
    let row: String = postgres
        .admin_of("mcps")
        .await
        .query_one("SELECT body::text FROM mcp_servers", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!row.contains(TOKEN), "sealed at rest: {row}");
    // Its slug is taken once across the nodes.
    let twin = on_b
        .post(
            "/api/mcps",
            json!({"name": "peer tools", "url": format!("{}/mcp", peer.base)}),
        )
        .await
        .expect(201);
    assert_eq!(twin["slug"], "peer_tools_2");

    // Attached on B to an agent made on A; a thread A owns caches the
    // org's servers there.
    let agent = on_a
        .agent_with(json!({"name": "Tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    on_b.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": id, "allowedTools": ["add"]}),
    )
    .await
    .expect(201);
    let node_a = node_of(&a).await;
    let thread = thread_owned_by(&on_b, &agent, &node_a).await;
    assert_eq!(offered(&vendor), ["peer_tools__add"]);

    // Sent through B, run by A: the call carries the sealed credentials.
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "peer_tools__add",
        &json!({"a": 2, "b": 3}),
    )));
    vendor.push(Reply::stream(openai_answer("five", 5)));
    let frames = on_b.say(&thread, json!({"content": "add"})).await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let results = events_of(&frames, "tool_result");
    assert_eq!(results[0]["result"], json!({"result": 5}), "{frames:?}");

    // B changes the attachment: A's turns offer the new list within the
    // cache round.
    on_b.patch(
        &format!("/api/agents/{agent}/mcps/{id}/services"),
        json!({"enabled": ["shout"]}),
    )
    .await
    .expect(200);
    let changed = std::time::Instant::now();
    eventually(
        Duration::from_secs(5),
        "A offers the changed list",
        async || {
            on_a.say(&thread, json!({"content": "again"})).await;
            (offered(&vendor) == ["peer_tools__shout"]).then_some(())
        },
    )
    .await;
    eprintln!("offered {:?} after the change", changed.elapsed());

    // A delete on A: B lists nothing, and the attachment went with it.
    on_a.delete(&format!("/api/mcps/{id}")).await.expect(200);
    on_b.get(&format!("/api/mcps/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    let attached: Value = on_b
        .get(&format!("/api/agents/{agent}/mcps"))
        .await
        .expect(200);
    assert_eq!(attached["mcps"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_begun_on_one_node_finishes_on_another() {
    use crate::common::{exp_in, jwt};
    let peer = ThirdPartyMock::oauth_mcp();
    let vendor = Mock::start("/v1").await;
    let postgres = Postgres::start().await;
    let url = postgres.database("oauth").await;
    let (a, b) = two_nodes(&url, &vendor);
    let on_a = a.admin();
    let org = on_a.org_id().await;
    let mcp = on_a
        .post(
            "/api/mcps",
            json!({"name": "Notes", "url": format!("{}/mcp", peer.base), "oauth": "per_user"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    status_of(&on_a, &mcp, "active").await;
    let agent = on_a
        .agent_with(json!({"name": "Noted", "defaultModel": "openai/gpt-4.1"}))
        .await;
    on_a.post(
        &format!("/api/agents/{agent}/mcps"),
        json!({"mcpServerId": mcp}),
    )
    .await
    .expect(201);
    let alice = |server: &Server| {
        server.api(&jwt(
            json!({"sub": "alice", "exp": exp_in(600), "org_id": org}),
        ))
    };
    let thread = alice(&a).thread(&agent, json!({})).await;
    let whoami = async |api: &crate::common::Api| {
        vendor.push(Reply::stream(openai_tool_call(
            "call_1",
            "notes__whoami",
            &json!({}),
        )));
        vendor.push(Reply::stream(openai_answer("ok", 5)));
        api.say(&thread, json!({"content": "who am I?"})).await
    };

    // The turn (on the thread's owner) asks alice to connect; its link
    // names the node that made the flow.
    let frames = whoami(&alice(&a)).await;
    let challenge = events_of(&frames, "auth_challenge");
    assert_eq!(challenge.len(), 1, "{frames:?}");
    let link = challenge[0]["challenge"]["redirectUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let (made_on, other) = if link.starts_with(&a.base) {
        (&a, &b)
    } else {
        (&b, &a)
    };
    assert!(link.starts_with(&made_on.base), "{link}");

    // Her browser begins on the other node and comes back to the first.
    let elsewhere = link.replacen(&made_on.base, &other.base, 1);
    let (status, page) = crate::mcp_oauth::browse(&elsewhere, &org, "alice", true).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Notes is connected for alice"), "{page}");
    let rows: i64 = postgres
        .admin_of("oauth")
        .await
        .query_one("SELECT count(*) FROM oauth_flows", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 0, "a finished flow is used up");

    // Her next turn, on either node, calls the server with her token.
    let frames = whoami(&alice(other)).await;
    assert!(
        events_of(&frames, "auth_challenge").is_empty(),
        "{frames:?}"
    );
    assert_eq!(done_of(&frames)["ok"], true);
    let result = &events_of(&frames, "tool_result")[0]["result"];
    let token = result["result"].as_str().unwrap_or_default();
    assert!(token.starts_with("at-alice-"), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_refreshed_by_one_node_at_a_time() {
    use confer::store::oauth::TokenOwner;
    use confer_actors::{McpServerId, OrgId};
    let postgres = Postgres::start().await;
    let url = postgres.database("refresh").await;
    let (first, second) = (
        crate::store_conformance::pg_store(&url).await,
        crate::store_conformance::pg_store(&url).await,
    );
    let (org, server) = (OrgId::new(), McpServerId::new());
    let alice = TokenOwner::User("alice".into());
    let held = first.hold_token_refresh(org, server, &alice).await.unwrap();
    // Another user's token, or another server's, is not held.
    second
        .hold_token_refresh(org, server, &TokenOwner::User("bob".into()))
        .await
        .unwrap();
    second
        .hold_token_refresh(org, McpServerId::new(), &alice)
        .await
        .unwrap();
    let waiting = tokio::spawn(async move {
        second
            .hold_token_refresh(org, server, &alice)
            .await
            .unwrap();
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the second waits for the first");
    drop(held);
    tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the second holds it once the first let go")
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_integration_made_on_one_node_is_queried_from_another() {
    use crate::integrations::{PASSWORD, connection_string, seed};
    let vendor = Mock::start("/v1").await;
    vendor.otherwise(Reply::stream(openai_answer("hi", 5)));
    let postgres = Postgres::start().await;
    seed(&postgres).await;
    let url = postgres.database("integrations").await;
    let (a, b) = two_nodes(&url, &vendor);
    settled_with(&a, 2).await;
    let (on_a, on_b) = (a.admin(), b.admin());
    let made = on_a
        .post(
            "/api/integrations",
            json!({"name": "Shop DB", "kind": "postgres",
                   "connectionString": connection_string(&postgres),
                   "tables": ["orders", "paid_orders"]}),
        )
        .await
        .expect(201);
    let id = made["id"].as_str().unwrap().to_owned();
    assert_eq!(
        on_b.get(&format!("/api/integrations/{id}"))
            .await
            .expect(200),
        made
    );
    let row: String = postgres
        .admin_of("integrations")
        .await
        .query_one("SELECT body::text FROM integrations", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!row.contains(PASSWORD), "sealed at rest: {row}");

    // Attached on B; a thread A owns caches the org's integrations there.
    let agent = on_a
        .agent_with(json!({"name": "Analyst", "defaultModel": "openai/gpt-4.1"}))
        .await;
    on_b.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": id, "allowedTables": ["orders"]}),
    )
    .await
    .expect(201);
    let node_a = node_of(&a).await;
    let thread = thread_owned_by(&on_b, &agent, &node_a).await;
    assert_eq!(offered(&vendor), ["count_orders", "query_orders"]);
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "count_orders",
        &json!({}),
    )));
    vendor.push(Reply::stream(openai_answer("four", 5)));
    let frames = on_b.say(&thread, json!({"content": "count"})).await;
    let result = &events_of(&frames, "tool_result")[0];
    assert_eq!(result["result"]["count"], 4, "{frames:?}");

    // B changes the attachment: A's turns offer the new tables.
    on_b.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": id, "allowedTables": ["paid_orders"]}),
    )
    .await
    .expect(200);
    eventually(
        Duration::from_secs(5),
        "A offers the changed tables",
        async || {
            on_a.say(&thread, json!({"content": "again"})).await;
            (offered(&vendor) == ["count_paid_orders", "query_paid_orders"]).then_some(())
        },
    )
    .await;
    on_b.delete(&format!("/api/integrations/{id}"))
        .await
        .expect(200);
    let attached = on_a
        .get(&format!("/api/agents/{agent}/integrations"))
        .await
        .expect(200);
    assert_eq!(attached["integrations"], json!([]));
}
