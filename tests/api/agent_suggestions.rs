//! An agent's suggestions (agent-extras.md §2, Acceptance 4) against the
//! real server: the PUT rules, `builtin/echo` giving back its request's
//! lines, a mock vendor's JSON array, the `suggestions` usage record, and
//! a publication without prompts showing the agent's.

use serde_json::{Value, json};

use crate::common::Server;
use crate::mock::{Reply, openai_answer, server_on_mock};
use crate::visitors::publish;

#[tokio::test]
async fn suggestions_are_checked_written_by_echo_and_shown_by_a_public_chat() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(&admin, "starters", json!({})).await;
    let path = format!("/api/agents/{agent}/suggestions");
    let empty = admin.get(&path).await.expect(200);
    assert_eq!(empty["suggestions"], json!([]));
    assert_eq!(empty["source"], Value::Null);

    let eleven: Vec<String> = (0..11).map(|i| format!("s{i}")).collect();
    for (items, field) in [
        (json!(eleven), "suggestions"),
        (json!(["ok", "x".repeat(201)]), "suggestions[1]"),
        (json!(["Hello", "hello"]), "suggestions[1]"),
    ] {
        let refused = admin
            .put(&path, json!({"suggestions": items}))
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(refused.to_string().contains(field), "{refused}");
    }
    assert_eq!(admin.get(&path).await.expect(200), empty);

    // Nothing to suggest from: 422.
    admin
        .post(&path, json!({}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .patch(
            &format!("/api/agents/{agent}"),
            json!({"description": "Plans trips", "stablePreamble": "Be brief."}),
        )
        .await
        .expect(200);
    // builtin/echo echoes the request: its lines come back, in order.
    let made = admin
        .post(&path, json!({"count": 5, "save": true}))
        .await
        .expect(200);
    assert_eq!(
        made["suggestions"],
        json!([
            "Name: Helpdesk",
            "Description: Plans trips",
            "Instructions: Be brief."
        ])
    );
    assert_eq!(
        (&made["source"], &made["model"]),
        (&json!("generated"), &json!("echo"))
    );
    assert_eq!(admin.get(&path).await.expect(200), made);
    let usage = admin.get("/api/usage").await.expect(200);
    assert!(
        usage["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["purpose"] == "suggestions" && r["thread_id"].is_null()),
        "{usage}"
    );

    // The public chat, with no prompts of its own, shows the agent's.
    let page = server
        .anonymous()
        .get("/api/public/chat/starters")
        .await
        .expect(200);
    assert_eq!(page["suggested_prompts"], made["suggestions"]);

    let manual = admin
        .put(&path, json!({"suggestions": [" Where to? ", "When?"]}))
        .await
        .expect(200);
    assert_eq!(manual["suggestions"], json!(["Where to?", "When?"]));
    assert_eq!(manual["source"], "manual");
}

#[tokio::test]
async fn a_vendors_json_array_is_read_and_its_failures_keep_their_codes() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Guide", "description": "Plans trips",
                           "defaultModel": "openai/gpt-4.1"}))
        .await;
    let path = format!("/api/agents/{agent}/suggestions");
    vendor.push(Reply::stream(openai_answer(
        "```json\n[\"Plan a weekend in Lisbon\", \"plan a weekend in lisbon\", \"Pack for rain\"]\n```",
        30,
    )));
    let made = admin.post(&path, json!({})).await.expect(200);
    assert_eq!(
        made["suggestions"],
        json!(["Plan a weekend in Lisbon", "Pack for rain"])
    );
    // Not saved.
    assert_eq!(admin.get(&path).await.expect(200)["source"], Value::Null);
    let asked = vendor.requests()[0].body.to_string();
    assert!(asked.contains("Plans trips"), "{asked}");

    vendor.push(Reply::stream(openai_answer("", 5)));
    admin
        .post(&path, json!({}))
        .await
        .expect_error(502, "MODEL_ERROR");
}
