//! Scheduled tasks (`runners.md` Scheduling) against the real server: the
//! PUT's field rules, a message task that speaks on its thread, and a
//! per-second run task that survives kill -9 five times without firing a
//! slot twice.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, eventually};

fn per_second() -> Options {
    Options::default().env("CONFER_SCHEDULE_MIN_INTERVAL_SECS", "1")
}

async fn put_tasks(api: &Api, agent: &str, tasks: Value) -> crate::common::Reply {
    api.put(
        &format!("/api/agents/{agent}/scheduled-tasks"),
        json!({ "tasks": tasks }),
    )
    .await
}

/// Every run of `runner` (the tests make fewer than a page's 200).
async fn all_runs(api: &Api, runner: &str) -> Vec<Value> {
    let runs = api
        .get(&format!("/api/runners/{runner}/runs?limit=200"))
        .await
        .expect(200);
    let runs = runs.as_array().unwrap().clone();
    assert!(runs.len() < 200, "more runs than a page");
    runs
}

fn time(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

#[tokio::test]
async fn scheduled_tasks_are_replaced_whole_and_checked_field_by_field() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Scheduler").await;
    let thread = admin.thread(&agent, json!({})).await;
    let other_agent = admin.agent("Other").await;
    let others_thread = admin.thread(&other_agent, json!({})).await;
    let path = format!("/api/agents/{agent}/scheduled-tasks");
    assert_eq!(admin.get(&path).await.expect(200), json!([]));

    let good = json!({"name": "morning", "cron": "0 9 * * 1-5", "timezone": "Europe/Paris",
                      "action": {"kind": "message", "threadId": thread, "content": "Plan my day"}});
    let cases = [
        (json!({"cron": "* * * * *", "name": "x"}), "tasks[1].cron"),
        (json!({"timezone": "Atlantis/Capital"}), "tasks[1].timezone"),
        (json!({"graceSecs": 2}), "tasks[1].graceSecs"),
        (json!({"catchUpMax": 0}), "tasks[1].catchUpMax"),
        (
            json!({"action": {"kind": "message", "threadId": others_thread, "content": "x"}}),
            "tasks[1].action.threadId",
        ),
    ];
    for (change, field) in cases {
        let mut bad = good.clone();
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        if field == "tasks[1].cron" {
            bad["cron"] = json!("*/30 * * * * *");
        }
        let refused = put_tasks(&admin, &agent, json!([good, bad])).await;
        let detail = refused.expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{field}: {detail}");
    }
    // Nothing was stored by the refusals.
    assert_eq!(admin.get(&path).await.expect(200), json!([]));

    let stored = put_tasks(&admin, &agent, json!([good])).await.expect(200);
    let task = &stored[0];
    assert_eq!(task["timezone"], "Europe/Paris");
    assert_eq!(task["action"]["thread_id"], thread);
    assert_eq!(task["missed"], "skip");
    assert_eq!(task["overlap"], "skip");
    assert_eq!(task["catch_up_max"], 10);
    let next = time(&task["next_fire_at"]);
    assert!(next > Utc::now());
    let id = task["id"].as_str().unwrap();

    // A rename keeps the slot; a disable clears it; an unknown id is refused.
    let mut renamed = good.clone();
    renamed["id"] = json!(id);
    renamed["name"] = json!("mornings");
    let kept = put_tasks(&admin, &agent, json!([renamed]))
        .await
        .expect(200);
    assert_eq!(kept[0]["id"], id);
    assert_eq!(time(&kept[0]["next_fire_at"]), next);
    renamed["enabled"] = json!(false);
    let off = put_tasks(&admin, &agent, json!([renamed]))
        .await
        .expect(200);
    assert_eq!(off[0]["next_fire_at"], Value::Null);
    let mut unknown = good.clone();
    unknown["id"] = json!(uuid::Uuid::now_v7());
    put_tasks(&admin, &agent, json!([unknown]))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    // A member reads but may not write.
    let member = server.api(&admin.new_key("member").await);
    assert_eq!(
        member
            .get(&path)
            .await
            .expect(200)
            .as_array()
            .unwrap()
            .len(),
        1
    );
    put_tasks(&member, &agent, json!([])).await.expect(403);
    // An empty list removes them.
    assert_eq!(
        put_tasks(&admin, &agent, json!([])).await.expect(200),
        json!([])
    );
}

#[tokio::test]
async fn a_message_task_speaks_on_its_thread_as_the_schedule() {
    let server = Server::start_with(per_second());
    let admin = server.admin();
    let agent = admin.agent("Ticker").await;
    let thread = admin.thread(&agent, json!({})).await;
    let tasks = put_tasks(
        &admin,
        &agent,
        json!([{"name": "tick", "cron": "* * * * * *",
                "action": {"kind": "message", "threadId": thread, "content": "tick tock"}}]),
    )
    .await
    .expect(200);
    let id = tasks[0]["id"].as_str().unwrap().to_owned();
    let history = eventually(Duration::from_secs(20), "a scheduled answer", async || {
        let history = admin.history(&thread).await;
        (history.len() >= 2).then_some(history)
    })
    .await;
    assert_eq!(history[0]["role"], "user");
    assert_eq!(history[0]["content"], "tick tock");
    assert_eq!(history[1]["content"], "tick tock");
    // The send's metadata names the task and the slot (usage records
    // carry it).
    let usage = admin
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let metadata = &usage["records"][0]["metadata"];
    assert_eq!(metadata["scheduled_task_id"], id.as_str(), "{usage}");
    assert!(metadata["scheduled_for"].as_str().unwrap().ends_with('Z'));
    // A deleted thread is a recorded skip that disables the task.
    admin
        .delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    let path = format!("/api/agents/{agent}/scheduled-tasks");
    let task = eventually(Duration::from_secs(10), "the task disabled", async || {
        let tasks = admin.get(&path).await.expect(200);
        (tasks[0]["enabled"] == false).then(|| tasks[0].clone())
    })
    .await;
    assert_eq!(task["next_fire_at"], Value::Null);
    assert_eq!(task["recent"][0]["reason"], "thread_deleted", "{task}");
    assert!(
        task["recent"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["outcome"] == "fired"),
        "{task}"
    );
}

#[tokio::test]
async fn a_per_second_task_fires_no_slot_twice_across_five_kill_9s() {
    let mut server = Server::start_with(per_second());
    let admin = server.admin();
    let agent = admin.agent("Clock").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Tick", "instructions": "tick {{ run.id }}",
                   "maxConcurrentRuns": 16, "maxQueuedRuns": 1000}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let tasks = put_tasks(
        &admin,
        &agent,
        json!([{"name": "every second", "cron": "* * * * * *", "overlap": "allow",
                "action": {"kind": "run", "runnerId": runner, "input": {}}}]),
    )
    .await
    .expect(200);
    let task = uuid::Uuid::parse_str(tasks[0]["id"].as_str().unwrap()).unwrap();

    // Each life: from the first answer after the start to the kill.
    let mut lives: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    for life in 0..=5 {
        let api = server.admin();
        let up = Utc::now();
        let seen = all_runs(&api, &runner).await.len();
        eventually(
            Duration::from_secs(20),
            "new runs after a start",
            async || (all_runs(&api, &runner).await.len() >= seen + 2).then_some(()),
        )
        .await;
        if life == 5 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            lives.push((up, Utc::now()));
            break;
        }
        lives.push((up, Utc::now()));
        server = server.kill_and_restart();
    }
    // Let the last firings settle before reading.
    put_tasks(&server.admin(), &agent, json!([]))
        .await
        .expect(200);

    let runs = all_runs(&server.admin(), &runner).await;
    let mut ids = HashSet::new();
    let mut slots = HashSet::new();
    for run in &runs {
        let slot = time(&run["trigger"]["scheduled_for"]);
        assert_eq!(run["trigger"]["kind"], "schedule");
        let name = slot.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        let expected = uuid::Uuid::new_v5(&task, name.as_bytes());
        assert_eq!(run["id"], expected.to_string(), "UUIDv5(task, slot)");
        assert!(
            ids.insert(run["id"].as_str().unwrap().to_owned()),
            "a run twice"
        );
        assert!(slots.insert(slot), "slot {slot} fired twice");
    }
    // Every whole second of each life (from a second after it was seen up
    // to a second before the kill) has its run.
    for (up, down) in lives {
        let mut slot = up + chrono::Duration::seconds(1);
        slot = slot - chrono::Duration::nanoseconds(slot.timestamp_subsec_nanos() as i64);
        while slot + chrono::Duration::seconds(1) < down {
            assert!(
                slots.contains(&slot),
                "no run for {slot} (up {up}, down {down})"
            );
            slot += chrono::Duration::seconds(1);
        }
    }
}

#[tokio::test]
async fn deleting_a_runner_stops_its_tasks_and_deleting_the_agent_takes_its_runners() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Owner").await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Nightly", "instructions": "go"}),
        )
        .await
        .expect(201);
    let runner = runner["id"].as_str().unwrap().to_owned();
    let other = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Kept until the agent goes", "instructions": "go"}),
        )
        .await
        .expect(201);
    let other = other["id"].as_str().unwrap().to_owned();
    admin
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "webhook"}),
        )
        .await
        .expect(201);
    put_tasks(
        &admin,
        &agent,
        json!([{"name": "nightly", "cron": "0 3 * * *",
                "action": {"kind": "run", "runnerId": runner}}]),
    )
    .await
    .expect(200);
    admin
        .delete(&format!("/api/runners/{runner}"))
        .await
        .expect(200);
    let tasks = admin
        .get(&format!("/api/agents/{agent}/scheduled-tasks"))
        .await
        .expect(200);
    assert_eq!(tasks[0]["enabled"], false, "{tasks}");
    assert_eq!(tasks[0]["next_fire_at"], Value::Null);
    assert_eq!(tasks[0]["recent"][0]["reason"], "runner_deleted");

    admin
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    admin
        .get(&format!("/api/runners/{other}"))
        .await
        .expect_error(404, "NOT_FOUND");
}
