//! The marketplace of `cluster_migrate`'s sled store: a listed profile
//! and a keyed `use` (kept in sled's `idempotency` tree beside keyed sends
//! and thread creations) before the copy; after it, the catalogue answers
//! as before and a retry of the keyed `use` answers its first result.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, Server};

const USE_KEY: [(&str, &str); 1] = [("Idempotency-Key", "migrated-use")];

fn use_body(agent: &str) -> Value {
    json!({"listingId": agent, "name": "Adopted walker"})
}

/// Lists an agent and uses it under a key; the paths whose answers must
/// not change, and the keyed `use`'s first answer.
pub(crate) async fn seed(api: &Api) -> (Vec<String>, Value) {
    let agent = api.agent("Walker").await;
    api.put(
        &format!("/api/agents/{agent}/marketplace"),
        json!({"title": "Dog walker", "visibility": "instance", "tags": ["walk"]}),
    )
    .await
    .expect(200);
    let used = api
        .request_with(
            Method::POST,
            "/api/marketplace/official/use",
            Some(use_body(&agent)),
            &USE_KEY,
        )
        .await;
    assert_eq!(used.status, 201, "{used:?}");
    let paths = vec![
        "/api/marketplace".to_owned(),
        format!("/api/agents/{agent}/marketplace"),
    ];
    (paths, used.body)
}

/// The keyed `use` retried on a node of the migrated database answers as
/// the first did, and makes no second agent.
pub(crate) async fn used_after_migration(node: &Server, first: &Value) {
    let admin = node.admin();
    let listed = admin.get("/api/marketplace").await.expect(200);
    let agent = listed[0]["id"].as_str().unwrap().to_owned();
    let again = admin
        .request_with(
            Method::POST,
            "/api/marketplace/official/use",
            Some(use_body(&agent)),
            &USE_KEY,
        )
        .await;
    assert_eq!(&again.body, first, "the first answer, copied");
}
