//! Scheduled tasks on PostgreSQL (`scale.md` acceptance 6): three nodes
//! fire per-second message tasks on threads spread over their shards;
//! every slot is sent once, by the node that owns its thread.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::cluster_forward::{node_of, settled_with};
use crate::cluster_limits::threads_owned;
use crate::cluster_serve::on_postgres;
use crate::common::{Server, eventually};
use crate::postgres::Postgres;

/// Slots to see fired before the tasks are removed.
const SLOTS: i64 = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_slots_on_three_nodes_run_exactly_once_each() {
    let postgres = Postgres::start().await;
    let url = postgres.database("schedules").await;
    let node = |name| on_postgres(&url, name).env("CONFER_SCHEDULE_MIN_INTERVAL_SECS", "1");
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let c = Server::start_with(node("c"));
    settled_with(&a, 3).await;
    let database = postgres.admin_of("schedules").await;
    let (node_a, node_b, node_c) = (node_of(&a).await, node_of(&b).await, node_of(&c).await);
    let on_b = b.admin();
    let agent = on_b.agent("Ticker").await;
    let owners = [&node_a, &node_a, &node_b, &node_b, &node_c, &node_c];
    let threads = threads_owned(&database, &on_b, &agent, owners.map(String::as_str)).await;
    // A shard whose lease moves meanwhile (a node missing its heartbeat on
    // a loaded machine) rightly fires on its new owner.
    let epochs = async || -> Vec<i64> {
        let mut all = Vec::new();
        for thread in &threads {
            let id: uuid::Uuid = thread.parse().unwrap();
            let sql = "SELECT l.epoch FROM shard_leases l JOIN threads t ON t.shard = l.shard
                       WHERE t.id = $1";
            all.push(database.query_one(sql, &[&id]).await.unwrap().get(0));
        }
        all
    };
    let first_epochs = epochs().await;
    let tasks: Vec<Value> = threads
        .iter()
        .map(|thread| {
            json!({"name": "tick", "cron": "* * * * * *", "overlap": "allow",
                   "action": {"kind": "message", "threadId": thread, "content": "tick"}})
        })
        .collect();
    let path = format!("/api/agents/{agent}/scheduled-tasks");
    // Runners are not kept in PostgreSQL yet: a run action is refused.
    let run = json!({"name": "run", "cron": "* * * * * *",
                     "action": {"kind": "run", "runnerId": uuid::Uuid::now_v7(), "input": {}}});
    on_b.put(&path, json!({"tasks": [run]}))
        .await
        .expect_error(501, "NOT_ON_THIS_STORE");
    let stored = on_b.put(&path, json!({"tasks": tasks})).await.expect(200);
    // Read back on another node, as stored.
    assert_eq!(c.admin().get(&path).await.expect(200), stored);
    let task_of: HashMap<String, String> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let thread = t["action"]["thread_id"].as_str().unwrap().to_owned();
            (t["id"].as_str().unwrap().to_owned(), thread)
        })
        .collect();

    let fired = async || -> i64 {
        database
            .query_one("SELECT count(*) FROM job_runs WHERE kind = 'schedule'", &[])
            .await
            .unwrap()
            .get(0)
    };
    eventually(Duration::from_secs(60), "100 slots fired", async || {
        (fired().await >= SLOTS).then_some(())
    })
    .await;
    on_b.put(&path, json!({"tasks": []})).await.expect(200);
    // Every stored send is made, then nothing more fires.
    eventually(Duration::from_secs(30), "the outbox sent", async || {
        let left: i64 = database
            .query_one("SELECT count(*) FROM schedule_outbox", &[])
            .await
            .unwrap()
            .get(0);
        (left == 0).then_some(())
    })
    .await;
    let total = fired().await;
    assert!(total >= SLOTS, "{total}");

    // Each slot's row: its task, its slot and the node that fired it.
    let rows = database
        .query(
            "SELECT slot, node_id::text FROM job_runs WHERE kind = 'schedule' ORDER BY slot",
            &[],
        )
        .await
        .unwrap();
    let last_epochs = epochs().await;
    let mut slots_of: HashMap<String, BTreeSet<DateTime<Utc>>> = HashMap::new();
    for row in &rows {
        let slot: String = row.get(0);
        let fired_by: String = row.get(1);
        let (task, at) = slot.split_once('/').unwrap();
        let thread = &task_of[task];
        let at_index = threads.iter().position(|t| t == thread).unwrap();
        if first_epochs[at_index] == last_epochs[at_index] {
            let owner = owners[at_index];
            assert_eq!(&fired_by, owner, "{slot} fired on its thread's owner");
        }
        let at: DateTime<Utc> = at.parse().unwrap();
        assert!(slots_of.entry(thread.clone()).or_default().insert(at));
    }
    assert_eq!(slots_of.len(), threads.len(), "every task fired");
    for thread in &threads {
        let slots = &slots_of[thread];
        // No slot between the first and the last was skipped.
        let (first, last) = (*slots.first().unwrap(), *slots.last().unwrap());
        assert_eq!(
            (last - first).num_seconds() + 1,
            slots.len() as i64,
            "{thread}: {slots:?}"
        );
        // One user message per slot, each answered, and each turn's usage
        // names its own slot.
        let history = eventually(Duration::from_secs(30), "every turn ended", async || {
            let history = on_b.history(thread).await;
            (history.len() >= 2 * slots.len()).then_some(history)
        })
        .await;
        let said = history.iter().filter(|m| m["role"] == "user").count();
        assert_eq!(said, slots.len(), "{thread}: {history:?}");
        assert_eq!(history.len(), 2 * slots.len(), "{thread}");
        let usage = on_b
            .get(&format!("/api/usage?threadId={thread}&limit=200"))
            .await
            .expect(200);
        let named: BTreeSet<DateTime<Utc>> = usage["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["metadata"]["scheduled_for"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(&named, slots, "{thread}");
    }
}
