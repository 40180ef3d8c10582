//! Per-agent credential resolver and compaction configuration.

use serde_json::json;

use crate::common::Server;

#[tokio::test]
async fn credential_resolver_configuration() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let path = format!("/api/agents/{agent}/credentials");

    let initial = api.get(&path).await.expect(200);
    assert_eq!(
        initial,
        json!({"agent_id": agent, "org_id": initial["org_id"], "enabled": false,
               "resolver_url": "", "timeout_ms": 5000})
    );

    api.put(&path, json!({"resolverUrl": "https://r.example"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.put(&path, json!({"enabled": "yes"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    let detail = api
        .put(&path, json!({"enabled": true}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("resolverUrl"), "{detail}");
    let detail = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "http://r.example/keys"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("resolverUrl"), "{detail}");
    api.put(&path, json!({"enabled": true, "resolverUrl": "/keys"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    for bad in [99, 30001, -1] {
        let detail = api
            .put(
                &path,
                json!({"enabled": true, "resolverUrl": "https://r.example", "timeoutMs": bad}),
            )
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.contains("timeoutMs"), "{detail}");
    }
    api.put(
        &path,
        json!({"enabled": true, "resolverUrl": "https://r.example", "timeoutMs": 1.5}),
    )
    .await
    .expect_error(400, "BAD_REQUEST");
    // Nothing above was stored.
    assert_eq!(api.get(&path).await.expect(200), initial);

    let first = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/keys", "timeoutMs": 800}),
        )
        .await
        .expect(200);
    assert_eq!(first["enabled"], true);
    assert_eq!(first["resolver_url"], "https://r.example/keys");
    assert_eq!(first["timeout_ms"], 800);
    let secret = first["signing_secret"]
        .as_str()
        .expect("secret on first enable")
        .to_owned();
    assert!(secret.len() >= 32);

    let got = api.get(&path).await.expect(200);
    assert!(
        got.get("signing_secret").is_none(),
        "GET never shows the secret"
    );
    assert_eq!(got["timeout_ms"], 800);

    let again = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/keys"}),
        )
        .await
        .expect(200);
    assert!(
        again.get("signing_secret").is_none(),
        "no new secret without rotation"
    );
    assert_eq!(again["timeout_ms"], 5000, "timeoutMs defaults when omitted");

    let rotated = api
        .put(
            &path,
            json!({"enabled": true, "resolverUrl": "https://r.example/keys", "rotateSecret": true}),
        )
        .await
        .expect(200);
    let new_secret = rotated["signing_secret"].as_str().unwrap();
    assert_ne!(new_secret, secret);

    let disabled = api.put(&path, json!({"enabled": false})).await.expect(200);
    assert_eq!(disabled["enabled"], false);
    assert_eq!(disabled["resolver_url"], "");
}

#[tokio::test]
async fn compaction_configuration() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let path = format!("/api/agents/{agent}/compaction");

    let initial = api.get(&path).await.expect(200);
    assert_eq!(
        initial,
        json!({"agent_id": agent, "org_id": initial["org_id"], "enabled": false,
               "vendor_a_trigger_tokens": 150000, "vendor_a_instructions": null,
               "vendor_a_pause_after": false, "vendor_b_compact_threshold": 100000})
    );

    let updated = api
        .put(
            &path,
            json!({"enabled": true, "vendorAInstructions": "Do not call tools."}),
        )
        .await
        .expect(200);
    assert_eq!(updated["enabled"], true);
    assert_eq!(updated["vendor_a_instructions"], "Do not call tools.");
    assert_eq!(updated["vendor_a_trigger_tokens"], 150000, "partial update");

    let detail = api
        .put(&path, json!({"vendorATriggerTokens": 49999}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("vendorATriggerTokens"), "{detail}");
    let detail = api
        .put(&path, json!({"vendorBCompactThreshold": 999}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("vendorBCompactThreshold"), "{detail}");
    api.put(&path, json!({"vendorAPauseAfter": "no"}))
        .await
        .expect_error(400, "BAD_REQUEST");

    let updated = api
        .put(
            &path,
            json!({"vendorATriggerTokens": 50000, "vendorBCompactThreshold": 1000,
                            "vendorAPauseAfter": true, "vendorAInstructions": null}),
        )
        .await
        .expect(200);
    assert_eq!(updated["vendor_a_trigger_tokens"], 50000);
    assert_eq!(updated["vendor_b_compact_threshold"], 1000);
    assert_eq!(updated["vendor_a_pause_after"], true);
    assert_eq!(updated["vendor_a_instructions"], json!(null));
    assert_eq!(updated["enabled"], true);
    assert_eq!(api.get(&path).await.expect(200), updated);
}
