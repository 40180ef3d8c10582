//! Knowledge documents on PostgreSQL (`knowledge.md` §1–3, `scale.md`
//! §5): a document uploaded on one node is ingested by an owner of its
//! job's shard, read, downloaded and searched on another (each node's
//! index follows the change feed), and deleted on any node, its file
//! removed from `blobs` once no document uses it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres;
use crate::common::{Api, BOOTSTRAP_KEY, Server, eventually};
use crate::knowledge::upload;
use crate::postgres::Postgres;

const HANDBOOK: &str = "# Handbook\n\n## Leave\n\nEvery employee has twenty-six days of annual leave.\n\n## Bicycles\n\nThe bicycle shed opens at seven.\n";

/// The document ids a BM25 search for `query` finds.
async fn found(api: &Api, query: &str) -> Vec<String> {
    let answer = api
        .post(
            "/api/knowledge/search",
            json!({"query": query, "mode": "bm25", "topK": 10}),
        )
        .await
        .expect(200);
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["doc_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn file_of(server: &Server, id: &str) -> Vec<u8> {
    let response = reqwest::Client::new()
        .get(format!("{}/api/knowledge/{id}/file", server.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap().to_vec()
}

async fn blob_parts(postgres: &Postgres) -> i64 {
    let admin = postgres.admin_of("knowledge").await;
    admin
        .query_one("SELECT count(*) FROM blobs", &[])
        .await
        .unwrap()
        .get(0)
}

async fn ready_on(api: &Api, id: &str) -> Value {
    eventually(
        Duration::from_secs(30),
        "the document is ready",
        async || {
            let document = api.get(&format!("/api/knowledge/{id}")).await.expect(200);
            (document["status"] == "ready").then_some(document)
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_uploaded_on_one_node_is_searched_on_another() {
    let postgres = Postgres::start().await;
    let url = postgres.database("knowledge").await;
    let a = Server::start_with(on_postgres(&url, "a"));
    let b = Server::start_with(on_postgres(&url, "b"));
    let (on_a, on_b) = (a.admin(), b.admin());

    // Uploaded on A; whichever node owns its job's shard ingests it, and
    // the wait sees it end either way.
    let uploaded = upload(&on_a, "handbook.md", HANDBOOK.as_bytes(), &[]).await;
    assert_eq!(uploaded["status"], "ready", "{uploaded}");
    let id = uploaded["id"].as_str().unwrap().to_owned();
    assert!(
        blob_parts(&postgres).await >= 1,
        "the file is kept in blobs"
    );

    // Read, listed, paged and downloaded on B.
    let on_b_doc = on_b.get(&format!("/api/knowledge/{id}")).await.expect(200);
    assert_eq!(on_b_doc["status"], "ready");
    let listed = on_b.get("/api/knowledge").await.expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let chunks = on_b
        .get(&format!("/api/knowledge/{id}/chunks"))
        .await
        .expect(200);
    let text: String = chunks
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(text.contains("twenty-six days"), "{text}");
    assert_eq!(file_of(&b, &id).await, HANDBOOK.as_bytes());

    // Searched on both nodes: B's index reads the feed every second.
    assert_eq!(found(&on_a, "annual leave").await, [id.as_str()]);
    eventually(
        Duration::from_secs(10),
        "B finds A's document",
        async || (found(&on_b, "annual leave").await == [id.clone()]).then_some(()),
    )
    .await;

    // The same file again, on B, is the same document.
    let again = upload(&on_b, "handbook.md", HANDBOOK.as_bytes(), &[]).await;
    assert_eq!(
        (&again["id"], &again["duplicate"]),
        (&json!(id), &json!(true))
    );

    // Reindexed on B: searchable throughout, ready again.
    on_b.post(&format!("/api/knowledge/{id}/reindex"), json!({}))
        .await
        .expect(202);
    ready_on(&on_a, &id).await;
    eventually(
        Duration::from_secs(10),
        "both find the new generation",
        async || {
            let both = found(&on_a, "bicycle shed").await == [id.clone()]
                && found(&on_b, "bicycle shed").await == [id.clone()];
            both.then_some(())
        },
    )
    .await;

    // Deleted on B: gone on A at once; its chunks leave both indexes and
    // its file leaves `blobs`.
    on_b.delete(&format!("/api/knowledge/{id}"))
        .await
        .expect(200);
    on_a.get(&format!("/api/knowledge/{id}")).await.expect(404);
    assert!(found(&on_a, "annual leave").await.is_empty());
    eventually(
        Duration::from_secs(20),
        "the purge removes the file",
        async || (blob_parts(&postgres).await == 0).then_some(()),
    )
    .await;
    let empty = postgres
        .admin_of("knowledge")
        .await
        .query_one("SELECT count(*) FROM chunks", &[])
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(empty, 0, "every chunk is purged");
}

/// A deleted thread's documents go with it on PostgreSQL: its purge job
/// deletes them, and their own purge removes their chunks and file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_threads_documents_are_purged_on_postgres() {
    let postgres = Postgres::start().await;
    let url = postgres.database("knowledge").await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let admin = node.admin();
    let agent = admin.agent("Reader").await;
    let thread = admin.thread(&agent, json!({})).await;
    let fields = [("scopeType", "thread"), ("scopeId", thread.as_str())];
    let uploaded = upload(&admin, "handbook.md", HANDBOOK.as_bytes(), &fields).await;
    assert_eq!(uploaded["status"], "ready", "{uploaded}");
    let id = uploaded["id"].as_str().unwrap().to_owned();
    assert!(blob_parts(&postgres).await >= 1);
    admin
        .delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    eventually(Duration::from_secs(30), "the thread's purge", async || {
        let gone = admin.get(&format!("/api/knowledge/{id}")).await.status == 404;
        (gone && blob_parts(&postgres).await == 0).then_some(())
    })
    .await;
    let chunks: i64 = postgres
        .admin_of("knowledge")
        .await
        .query_one("SELECT count(*) FROM chunks", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(chunks, 0);
}
