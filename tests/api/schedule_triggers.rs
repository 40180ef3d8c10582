//! Runners' schedule triggers (`runners.md` Objects, Scheduling) against
//! the real server: made, listed beside webhooks, checked field by field,
//! fired by the one scheduler with runs `UUIDv5(trigger, slot)`, changed
//! and deleted; the agent's scheduled tasks never show them.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Options, Server, eventually};

#[tokio::test]
async fn a_schedule_trigger_fires_its_runner_and_is_changed_through_the_triggers() {
    let server =
        Server::start_with(Options::default().env("CONFER_SCHEDULE_MIN_INTERVAL_SECS", "1"));
    let admin = server.admin();
    let agent = admin.agent("Timed").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Pulse", "instructions": "pulse {{ input.topic }}",
                   "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}},
                   "maxConcurrentRuns": 8}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let triggers = format!("/api/runners/{runner}/triggers");
    let webhook = admin
        .post(&triggers, json!({"kind": "webhook"}))
        .await
        .expect(201);

    // Field by field, named bare.
    for (body, field) in [
        (json!({"kind": "schedule"}), "cron"),
        (json!({"kind": "schedule", "cron": "61 * * * *"}), "cron"),
        (
            json!({"kind": "schedule", "cron": "* * * * * *", "timezone": "Mars/Base"}),
            "timezone",
        ),
        (
            json!({"kind": "schedule", "cron": "* * * * * *", "input": {"topic": 7}}),
            "input/topic",
        ),
        (json!({"kind": "webhook", "cron": "* * * * * *"}), "kind"),
        (
            json!({"kind": "schedule", "cron": "* * * * * *", "rateLimitPerMin": 5}),
            "kind",
        ),
    ] {
        let refused = admin.post(&triggers, body.clone()).await.expect(422);
        let text = refused.to_string();
        assert!(text.contains(field), "{body}: {refused}");
    }

    let made = admin
        .post(
            &triggers,
            json!({"kind": "schedule", "cron": "* * * * * *", "overlap": "allow",
                   "input": {"topic": "tides"}}),
        )
        .await
        .expect(201);
    assert_eq!(made["kind"], "schedule");
    assert_eq!(made["name"], "Pulse");
    assert_eq!(made["input"], json!({"topic": "tides"}));
    assert!(made["next_fire_at"].is_string(), "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    let listed = admin.get(&triggers).await.expect(200);
    let kinds: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["kind"])
        .collect();
    assert_eq!(kinds, [&json!("webhook"), &json!("schedule")], "{listed}");
    // Not one of the agent's tasks, and its PUT leaves it alone.
    let tasks = format!("/api/agents/{agent}/scheduled-tasks");
    assert_eq!(admin.get(&tasks).await.expect(200), json!([]));
    admin.put(&tasks, json!({"tasks": []})).await.expect(200);

    // It fires: runs named by the trigger, ids UUIDv5(trigger, slot).
    let runs = format!("/api/runners/{runner}/runs?limit=200");
    let run = eventually(Duration::from_secs(20), "a scheduled run", async || {
        let page = admin.get(&runs).await.expect(200);
        page.as_array()
            .unwrap()
            .iter()
            .find(|r| r["status"] == "succeeded")
            .cloned()
    })
    .await;
    assert_eq!(run["trigger"]["kind"], "schedule");
    assert_eq!(run["trigger"]["id"], id.as_str());
    assert_eq!(run["output"], "pulse tides");
    let slot: chrono::DateTime<chrono::Utc> = run["trigger"]["scheduled_for"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let name = slot.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let task = uuid::Uuid::parse_str(&id).unwrap();
    assert_eq!(
        run["id"],
        uuid::Uuid::new_v5(&task, name.as_bytes()).to_string()
    );
    let fired = admin.get(&triggers).await.expect(200);
    assert_eq!(fired[1]["recent"][0]["outcome"], "fired", "{fired}");

    // PATCH: disabled stops it; a token is a webhook's.
    let one = format!("{triggers}/{id}");
    let patched = admin
        .patch(&one, json!({"enabled": false, "name": "Paused pulse"}))
        .await
        .expect(200);
    assert_eq!(patched["enabled"], false);
    assert_eq!(patched["next_fire_at"], Value::Null);
    assert_eq!(
        (&patched["name"], &patched["cron"]),
        (&json!("Paused pulse"), &json!("* * * * * *"))
    );
    admin
        .patch(&one, json!({"rotateToken": true}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .patch(&one, json!({"input": {"topic": false}}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let webhook_path = format!("{triggers}/{}", webhook["id"].as_str().unwrap());
    admin
        .patch(&webhook_path, json!({"cron": "0 * * * *"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");

    admin.delete(&one).await.expect(200);
    admin.delete(&one).await.expect_error(404, "NOT_FOUND");
    admin
        .patch(&one, json!({"enabled": true}))
        .await
        .expect_error(404, "NOT_FOUND");
    let left = admin.get(&triggers).await.expect(200);
    assert_eq!(left.as_array().unwrap().len(), 1, "{left}");
}
