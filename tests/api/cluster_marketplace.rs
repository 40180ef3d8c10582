//! The marketplace on PostgreSQL (`marketplace-channels.md` §2–§5,
//! `scale.md`): profiles listed on one node are in the catalogue another
//! org reads on a second node, used there into that org, and a profile's
//! avatar and listing go with its agent's delete on either node.

use serde_json::json;

use crate::cluster_serve::on_postgres;
use crate::common::Server;
use crate::postgres::Postgres;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_made_on_one_node_are_seen_and_used_on_another() {
    let postgres = Postgres::start().await;
    let url = postgres.database("marketplace").await;
    let node = |name| on_postgres(&url, name).env("CONFER_OUTBOUND_ALLOW", "127.0.0.1:9");
    let (a, b) = (Server::start_with(node("a")), Server::start_with(node("b")));
    crate::marketplace::catalogue_and_use(&a, &b).await;

    // A keyed `use` on B answers its first result to a retry on A.
    let admin_b = b.admin();
    let agent = admin_b.agent("Walker").await;
    admin_b
        .put(
            &format!("/api/agents/{agent}/marketplace"),
            json!({"title": "Dog walker", "visibility": "org"}),
        )
        .await
        .expect(200);
    let body = json!({"listingId": agent, "name": "My walker"});
    let key = [("Idempotency-Key", "use-1")];
    let first = admin_b
        .request_with(
            reqwest::Method::POST,
            "/api/marketplace/official/use",
            Some(body.clone()),
            &key,
        )
        .await;
    assert_eq!(first.status, 201, "{first:?}");
    let again = a
        .admin()
        .request_with(
            reqwest::Method::POST,
            "/api/marketplace/official/use",
            Some(body),
            &key,
        )
        .await;
    assert_eq!(again.body, first.body, "the first answer, once");
    let walkers = a.admin().get("/api/agents").await.expect(200);
    let named = walkers
        .as_array()
        .unwrap()
        .iter()
        .filter(|agent| agent["name"] == "My walker")
        .count();
    assert_eq!(named, 1, "{walkers}");

    // The agent's delete on A takes its listing with it.
    a.admin()
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    let seen = b.admin().get("/api/marketplace").await.expect(200);
    assert!(
        !seen
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["id"] == json!(agent)),
        "{seen}"
    );
}
