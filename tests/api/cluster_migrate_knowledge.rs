//! The knowledge documents of `cluster_migrate`'s sled store: uploaded
//! and deleted before the copy, then read, downloaded and searched on a
//! node of the migrated database (its index built from the copied rows).

use std::time::Duration;

use serde_json::json;

use crate::common::{Api, BOOTSTRAP_KEY, Server, eventually};
use crate::knowledge::upload;

const HANDBOOK: &[u8] =
    b"# Handbook\n\n## Leave\n\nEach of us has twenty-six days of annual leave.\n";

/// Uploads the handbook (kept) and notes (deleted: their purge may or may
/// not be done at the copy; the manifests agree either way); the paths
/// whose answers must not change.
pub(crate) async fn seed(api: &Api) -> Vec<String> {
    let handbook = upload(api, "handbook.md", HANDBOOK, &[]).await;
    assert_eq!(handbook["status"], "ready", "{handbook}");
    let notes = upload(api, "notes.md", b"# Notes\n\nGone soon.\n", &[]).await;
    api.delete(&format!("/api/knowledge/{}", notes["id"].as_str().unwrap()))
        .await
        .expect(200);
    let id = handbook["id"].as_str().unwrap();
    vec![
        "/api/knowledge".to_owned(),
        format!("/api/knowledge/{id}"),
        format!("/api/knowledge/{id}/chunks"),
    ]
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
}
