//! The knowledge documents of `cluster_migrate`'s sled store: uploaded,
//! embedded and deleted before the copy, then read, downloaded and
//! searched by words and by vector on a node of the migrated database
//! (its index built from the copied rows, its vectors copied).

use std::time::Duration;

use serde_json::json;

use crate::common::{Api, BOOTSTRAP_KEY, Server, eventually};
use crate::knowledge::upload;
use crate::mock::Mock;

const HANDBOOK: &[u8] =
    b"# Handbook\n\n## Leave\n\nEach of us has twenty-six days of annual leave.\n";

/// Configures embeddings (the returned embedding server) and uploads the
/// handbook (kept, embedded) and notes (deleted: their purge may or may
/// not be done at the copy; the manifests agree either way); the paths
/// whose answers must not change.
pub(crate) async fn seed(api: &Api) -> (Vec<String>, Mock) {
    let mock = crate::embeddings::embedder(std::sync::Arc::new(true.into())).await;
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": mock.base, "model": "trigram", "apiKey": "sk-embed"}),
    )
    .await
    .expect(200);
    let handbook = upload(api, "handbook.md", HANDBOOK, &[]).await;
    assert_eq!(handbook["status"], "ready", "{handbook}");
    let notes = upload(api, "notes.md", b"# Notes\n\nGone soon.\n", &[]).await;
    api.delete(&format!("/api/knowledge/{}", notes["id"].as_str().unwrap()))
        .await
        .expect(200);
    eventually(
        Duration::from_secs(20),
        "the handbook is embedded",
        async || {
            let s = api.get("/api/knowledge/embeddings").await.expect(200);
            (s["pending_chunks"] == 0 && s["dims"] == 256).then_some(())
        },
    )
    .await;
    let id = handbook["id"].as_str().unwrap();
    let paths = vec![
        "/api/knowledge".to_owned(),
        "/api/knowledge/embeddings".to_owned(),
        format!("/api/knowledge/{id}"),
        format!("/api/knowledge/{id}/chunks"),
    ];
    (paths, mock)
}

/// The copied file downloads as uploaded, and the copied chunks are found.
pub(crate) async fn found_after_migration(node: &Server) {
    let admin = node.admin();
    let listed = admin.get("/api/knowledge").await.expect(200);
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    let file = reqwest::Client::new()
        .get(format!("{}/api/knowledge/{id}/file", node.base))
        .bearer_auth(BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), 200);
    assert_eq!(file.bytes().await.unwrap().as_ref(), HANDBOOK);
    eventually(
        Duration::from_secs(10),
        "a copied document is found",
        async || {
            let answer = admin
                .post(
                    "/api/knowledge/search",
                    json!({"query": "annual leave", "mode": "bm25"}),
                )
                .await
                .expect(200);
            (answer["results"][0]["doc_id"] == json!(id)).then_some(())
        },
    )
    .await;
    // The copied vectors answer a vector search (its query embedded by
    // the same server, with the copied sealed key).
    let answer = admin
        .post(
            "/api/knowledge/search",
            json!({"query": "annual leave days", "mode": "vector"}),
        )
        .await
        .expect(200);
    assert_eq!(answer["mode"], "vector", "{answer}");
    assert_eq!(answer["results"][0]["doc_id"], json!(id), "{answer}");
}
