//! A runner's suggestions (`runners.md` "Suggestions") against the real
//! server: read before any are set, replaced whole, each item checked
//! against the runner's input schema with nothing stored on a refusal.

use serde_json::{Value, json};

use crate::common::Server;

#[tokio::test]
async fn suggestions_are_replaced_whole_and_checked_against_the_input_schema() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Suggesting").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Brief", "instructions": "About {{ input.topic }}",
                   "inputSchema": {"type": "object", "required": ["topic"],
                                   "properties": {"topic": {"type": "string"}}}}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let path = format!("/api/runners/{runner}/suggestions");
    let empty = admin.get(&path).await.expect(200);
    assert_eq!(empty["suggestions"], json!([]));
    assert_eq!(
        (&empty["source"], &empty["runner_id"]),
        (&Value::Null, &json!(runner))
    );

    let put = admin
        .put(
            &path,
            json!({"suggestions": [{"label": " Owls ", "input": {"topic": "owls"}},
                                   {"label": "Tides", "input": {"topic": "tides"}}]}),
        )
        .await
        .expect(200);
    assert_eq!(put["source"], "manual");
    assert_eq!(
        put["suggestions"][0],
        json!({"label": "Owls", "input": {"topic": "owls"}})
    );
    assert_eq!(admin.get(&path).await.expect(200), put);

    // A bad item names its path; nothing changes.
    for (body, named) in [
        (
            json!([{"label": "a", "input": {"topic": "x"}}, {"label": "b", "input": {"topic": 2}}]),
            "suggestions[1].input/topic",
        ),
        (
            json!([{"label": "a", "input": {"topic": "x"}}, {"label": "A", "input": {"topic": "y"}}]),
            "suggestions[1].label",
        ),
        (json!([{"label": "no topic"}]), "suggestions[0].input"),
    ] {
        let refused = admin
            .put(&path, json!({"suggestions": body}))
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(refused.to_string().contains(named), "{refused}");
    }
    assert_eq!(admin.get(&path).await.expect(200), put);

    admin
        .put(&path, json!({"suggestions": []}))
        .await
        .expect(200);
    assert_eq!(admin.get(&path).await.expect(200)["suggestions"], json!([]));
    admin
        .delete(&format!("/api/runners/{runner}"))
        .await
        .expect(200);
    admin.get(&path).await.expect_error(404, "NOT_FOUND");
}
