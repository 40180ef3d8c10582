//! Knowledge embeddings on PostgreSQL (`knowledge.md` §3, `scale.md` §5):
//! configured on one node, embedded by the node that owns the org's
//! shard, searched by vector on every node (each node's vector cache
//! follows the org's `vectors` version), re-embedded on a model change
//! and dropped with the configuration.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres;
use crate::common::{Api, Server, eventually};
use crate::embeddings::embedder;
use crate::knowledge::upload;
use crate::postgres::Postgres;

/// The top document of a vector search for `query`.
async fn nearest(api: &Api, query: &str) -> Value {
    let answer = api
        .post(
            "/api/knowledge/search",
            json!({"query": query, "mode": "vector", "topK": 1}),
        )
        .await
        .expect(200);
    assert_eq!(answer["mode"], "vector", "{answer}");
    answer["results"][0]["doc_id"].clone()
}

/// The org's embedding status once nothing is pending, as `api` reads it.
async fn settled(api: &Api, model: &str) -> Value {
    eventually(
        Duration::from_secs(30),
        "every chunk is embedded",
        async || {
            let s = api.get("/api/knowledge/embeddings").await.expect(200);
            (s["model"] == model && s["pending_chunks"] == 0 && s["reembed"].is_null()).then_some(s)
        },
    )
    .await
}

async fn vectors_of(postgres: &Postgres, model: &str) -> i64 {
    vectors_of_in(postgres, "embeddings", model).await
}

async fn vectors_of_in(postgres: &Postgres, database: &str, model: &str) -> i64 {
    let admin = postgres.admin_of(database).await;
    admin
        .query_one(
            "SELECT count(*) FROM chunk_vectors WHERE model = $1",
            &[&model],
        )
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_made_on_one_node_are_searched_on_every_node() {
    let mock = embedder(Arc::new(AtomicBool::new(true))).await;
    let postgres = Postgres::start().await;
    let url = postgres.database("embeddings").await;
    let node = |name| on_postgres(&url, name).env("CONFER_OUTBOUND_ALLOW", "127.0.0.1");
    let (a, b) = (Server::start_with(node("a")), Server::start_with(node("b")));
    let (on_a, on_b) = (a.admin(), b.admin());

    let config = on_a
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram", "apiKey": "sk-embed", "batchSize": 4}),
        )
        .await
        .expect(200);
    assert_eq!(config["configured"], true, "{config}");
    let shown = on_b.get("/api/knowledge/embeddings").await.expect(200);
    assert_eq!(
        (shown["model"].clone(), shown["has_api_key"].clone()),
        (json!("trigram"), json!(true))
    );

    let paint = upload(
        &on_b,
        "paint.md",
        b"# Paint\n\nThe favourite colour of the house is a deep blue.",
        &[],
    )
    .await;
    upload(
        &on_a,
        "tea.md",
        b"# Tea\n\nOolong is brewed at ninety degrees.",
        &[],
    )
    .await;
    let status = settled(&on_b, "trigram").await;
    assert_eq!(status["dims"], 256, "{status}");
    assert_eq!(vectors_of(&postgres, "trigram").await, 2);
    let auth = mock
        .requests()
        .first()
        .unwrap()
        .header("authorization")
        .map(str::to_owned);
    assert_eq!(
        auth.as_deref(),
        Some("Bearer sk-embed"),
        "the sealed key opens on the embedding node"
    );
    // Both nodes find it by vector (one of them did not embed it).
    for api in [&on_a, &on_b] {
        assert_eq!(nearest(api, "color").await, paint["id"]);
    }
    let document = on_a
        .get(&format!("/api/knowledge/{}", paint["id"].as_str().unwrap()))
        .await
        .expect(200);
    assert_eq!(
        document["embedding"],
        json!({"model": "trigram", "embedded": 1, "pending": 0})
    );

    // A document added later is found on both nodes: each node's cache
    // reloads the org once its vectors changed anywhere.
    let bikes = upload(
        &on_a,
        "bikes.md",
        b"# Bicycles\n\nThe bicycle shed opens at seven.",
        &[],
    )
    .await;
    settled(&on_a, "trigram").await;
    for api in [&on_a, &on_b] {
        let found = eventually(
            Duration::from_secs(10),
            "the new vectors are searched",
            async || {
                let top = nearest(api, "bicycle shed").await;
                (top == bikes["id"]).then_some(top)
            },
        )
        .await;
        assert_eq!(found, bikes["id"]);
    }

    // A model change on B re-embeds; its end drops the old vectors.
    let changed = on_b
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram-2"}),
        )
        .await
        .expect(200);
    assert_eq!(
        changed["reembed"],
        json!({"from_model": "trigram"}),
        "{changed}"
    );
    assert_eq!(changed["has_api_key"], true, "the same URL keeps its key");
    settled(&on_a, "trigram-2").await;
    assert_eq!(vectors_of(&postgres, "trigram").await, 0);
    assert_eq!(vectors_of(&postgres, "trigram-2").await, 3);
    assert_eq!(nearest(&on_a, "colour").await, paint["id"]);

    // Deleted on A: every vector goes, and vector search is refused on B.
    on_a.delete("/api/knowledge/embeddings").await.expect(200);
    assert_eq!(vectors_of(&postgres, "trigram-2").await, 0);
    on_b.post(
        "/api/knowledge/search",
        json!({"query": "colour", "mode": "vector"}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
}

/// The name of the node that holds `org`'s shard, as the leases say.
async fn org_owner(postgres: &Postgres, org: &str) -> Option<String> {
    let shard = confer::cluster::Shard::of_id(org.parse().unwrap());
    let admin = postgres.admin_of("embeddings_failover").await;
    admin
        .query_opt(
            "SELECT n.name FROM shard_leases l JOIN nodes n ON n.id = l.node_id
             WHERE l.shard = $1 AND n.expires_at > now()",
            &[&shard.sql()],
        )
        .await
        .unwrap()
        .map(|row| row.get(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedding_of_a_killed_nodes_org_goes_on_on_the_survivor() {
    let up = Arc::new(AtomicBool::new(false));
    let mock = embedder(Arc::clone(&up)).await;
    let postgres = Postgres::start().await;
    let url = postgres.database("embeddings_failover").await;
    let node = |name| {
        on_postgres(&url, name)
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("CONFER_LEASE_TTL_SECS", "3")
    };
    let mut nodes = vec![Server::start_with(node("a")), Server::start_with(node("b"))];
    crate::cluster_forward::settled(&nodes[0]).await;
    let org = nodes[0].admin().org_id().await;
    // The embedding server is down: the chunk stays pending on its owner.
    nodes[0]
        .admin()
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram"}),
        )
        .await
        .expect(200);
    upload(
        &nodes[1].admin(),
        "tea.md",
        b"# Tea\n\nOolong is brewed at ninety degrees.",
        &[],
    )
    .await;
    let owner = eventually(
        Duration::from_secs(10),
        "the org's shard has an owner",
        async || org_owner(&postgres, &org).await,
    )
    .await;
    let at = usize::from(owner == "b");
    let survivor = nodes.swap_remove(1 - at);
    drop(nodes.pop().unwrap().kill());
    // The survivor takes the shard over and embeds once the server is up
    // (a PUT starts again at once, past the failure's backoff).
    eventually(
        Duration::from_secs(20),
        "the survivor owns the org's shard",
        async || {
            let now = org_owner(&postgres, &org).await?;
            (now != owner).then_some(())
        },
    )
    .await;
    up.store(true, std::sync::atomic::Ordering::SeqCst);
    let admin = survivor.admin();
    admin
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram"}),
        )
        .await
        .expect(200);
    let status = settled(&admin, "trigram").await;
    assert_eq!(status["status"], "ready", "{status}");
    assert_eq!(
        vectors_of_in(&postgres, "embeddings_failover", "trigram").await,
        1
    );
}
