//! Stored jobs across nodes (`scale.md` §5), on a real PostgreSQL: a due
//! job is claimed by one node only, a claim that runs out is claimed
//! again, a slot never runs under two jobs, and a deleted thread's purge
//! job removes its history and its delegated children's.

use std::time::Duration;

use chrono::Utc;
use confer::cluster::jobs::{self, JobKind, NewJob};
use confer::cluster::{NodeId, Shard};
use confer_actors::{ContextMessage, ContextRole, Role, ThreadAppend, ThreadOrigin};

use crate::postgres::Postgres;
use crate::store_conformance::{Ports, message, pg_store, seeded, thread};

fn job(slot: &str) -> NewJob {
    NewJob {
        kind: JobKind::PurgeThread,
        shard: Shard::new(5).unwrap(),
        slot: slot.into(),
        due_at: Utc::now(),
        body: serde_json::json!({}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_is_claimed_once_and_again_only_when_its_claim_runs_out() {
    let postgres = Postgres::start().await;
    let url = postgres.database("jobs").await;
    let (mut a, mut b) = (
        postgres.admin_of("jobs").await,
        postgres.admin_of("jobs").await,
    );
    drop(pg_store(&url).await); // migrated
    let slot = uuid::Uuid::new_v4().to_string();
    assert!(jobs::enqueue(&a, &job(&slot)).await.unwrap());
    assert!(
        !jobs::enqueue(&a, &job(&slot)).await.unwrap(),
        "one per slot"
    );
    let shards: Vec<Shard> = Shard::all().collect();
    let (node_a, node_b) = (NodeId::fresh(), NodeId::fresh());
    let hold = Duration::from_secs(60);
    let (got_a, got_b) = tokio::join!(
        jobs::claim(&mut a, node_a, (JobKind::PurgeThread, &shards), hold, 16),
        jobs::claim(&mut b, node_b, (JobKind::PurgeThread, &shards), hold, 16),
    );
    let (got_a, got_b) = (got_a.unwrap(), got_b.unwrap());
    assert_eq!(got_a.len() + got_b.len(), 1, "{got_a:?} {got_b:?}");
    // Not in the claimer's shards: nothing.
    let elsewhere = [Shard::new(6).unwrap()];
    assert!(
        jobs::claim(&mut a, node_a, (JobKind::PurgeThread, &elsewhere), hold, 16)
            .await
            .unwrap()
            .is_empty()
    );

    // A claim that ran out is claimed again, by the other node.
    let slot = uuid::Uuid::new_v4().to_string();
    jobs::enqueue(&a, &job(&slot)).await.unwrap();
    let first = jobs::claim(
        &mut a,
        node_a,
        (JobKind::PurgeThread, &shards),
        Duration::ZERO,
        16,
    )
    .await
    .unwrap();
    assert_eq!(first.len(), 1);
    let again = jobs::claim(&mut b, node_b, (JobKind::PurgeThread, &shards), hold, 16)
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!((again[0].id, again[0].attempts), (first[0].id, 2));
    assert!(
        !jobs::finish(&a, node_a, first[0].id).await.unwrap(),
        "no longer A's"
    );
    assert!(jobs::finish(&b, node_b, again[0].id).await.unwrap());

    // The slot ran: a new job for it is dropped at its claim, never run.
    jobs::enqueue(&a, &job(&slot)).await.unwrap();
    assert!(
        jobs::claim(&mut a, node_a, (JobKind::PurgeThread, &shards), hold, 16)
            .await
            .unwrap()
            .is_empty()
    );
    let left: i64 = a
        .query_one("SELECT count(*) FROM jobs WHERE slot = $1", &[&slot])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_thread_is_purged_by_one_node_with_its_children() {
    let postgres = Postgres::start().await;
    let url = postgres.database("purge").await;
    let store = pg_store(&url).await;
    let ports = Ports::of_postgres(&store);
    let (org, agent, parent) = seeded(&ports).await;
    let mut child = thread(org, agent.id, Utc::now());
    child.origin = Some(ThreadOrigin::Delegate);
    child.delegation = Some(Box::new(confer_actors::delegation::ThreadDelegation {
        parent_thread_id: parent.id,
        parent_tool_call_id: "call-1".into(),
        root_thread_id: parent.id,
        depth: 1,
    }));
    let child = ports.threads.create_thread(child).await.unwrap();
    for id in [parent.id, child.id] {
        for n in 0..3 {
            let write = ThreadAppend {
                listed: Some(message(id, Role::User, &format!("message {n}"))),
                context: vec![ContextMessage::text(ContextRole::User, "entry")],
                ..Default::default()
            };
            ports.turns.append_durably(id, write).await.unwrap();
        }
    }
    let admin = postgres.admin_of("purge").await;
    let rows = |sql: &'static str| {
        let admin = &admin;
        async move { admin.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(rows("SELECT count(*) FROM messages").await, 6);

    assert!(ports.threads.delete_thread(org, parent.id).await.unwrap());
    assert_eq!(rows("SELECT count(*) FROM jobs").await, 1);
    assert_eq!(
        rows("SELECT count(*) FROM messages").await,
        6,
        "purged later"
    );
    let shards: Vec<Shard> = Shard::all().collect();
    let (a, b) = (NodeId::fresh(), NodeId::fresh());
    let (done_a, done_b) = tokio::join!(
        store.run_due_purges(a, &shards),
        store.run_due_purges(b, &shards),
    );
    // The child is deleted by the parent's purge, which queues its own
    // purge: the other node may take that one meanwhile.
    let racing = done_a.unwrap() + done_b.unwrap();
    assert!(ports.threads.thread(org, child.id).await.unwrap().is_none());
    let rest = store.run_due_purges(a, &shards).await.unwrap();
    assert_eq!(racing + rest, 2, "each purge finished once");
    for (sql, left) in [
        ("SELECT count(*) FROM messages", 0),
        ("SELECT count(*) FROM context_entries", 0),
        ("SELECT count(*) FROM deleted_threads", 0),
        ("SELECT count(*) FROM jobs", 0),
        ("SELECT count(*) FROM job_runs", 2),
    ] {
        assert_eq!(rows(sql).await, left, "{sql}");
    }
}

/// A node that claimed a thread's purge and died before finishing it: no
/// other node takes the job while the dead node's hold lasts, and the
/// next round after it runs out completes the purge (`scale.md`
/// acceptance 6). The death is the claim left unfinished, as a `kill -9`
/// between the claim and the last delete leaves it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_node_s_purge_is_completed_by_another_node() {
    let postgres = Postgres::start().await;
    let url = postgres.database("dead").await;
    let store = pg_store(&url).await;
    let ports = Ports::of_postgres(&store);
    let (org, _, doomed) = seeded(&ports).await;
    for n in 0..3 {
        let write = ThreadAppend {
            listed: Some(message(doomed.id, Role::User, &format!("message {n}"))),
            context: vec![ContextMessage::text(ContextRole::User, "entry")],
            ..Default::default()
        };
        ports.turns.append_durably(doomed.id, write).await.unwrap();
    }
    assert!(ports.threads.delete_thread(org, doomed.id).await.unwrap());
    let mut admin = postgres.admin_of("dead").await;
    let shards: Vec<Shard> = Shard::all().collect();
    let (dead, alive) = (NodeId::fresh(), NodeId::fresh());
    let held = jobs::claim(
        &mut admin,
        dead,
        (JobKind::PurgeThread, &shards),
        Duration::from_secs(2),
        16,
    )
    .await
    .unwrap();
    assert_eq!(held.len(), 1, "the dead node held the purge");

    assert_eq!(
        store.run_due_purges(alive, &shards).await.unwrap(),
        0,
        "taken while the dead node's hold lasted"
    );
    let count = |sql: &'static str| {
        let admin = &admin;
        async move { admin.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(count("SELECT count(*) FROM messages").await, 3);
    crate::common::eventually(Duration::from_secs(10), "the purge completes", async || {
        (store.run_due_purges(alive, &shards).await.unwrap() == 1).then_some(())
    })
    .await;
    for (sql, left) in [
        ("SELECT count(*) FROM messages", 0),
        ("SELECT count(*) FROM context_entries", 0),
        ("SELECT count(*) FROM deleted_threads", 0),
        ("SELECT count(*) FROM jobs", 0),
    ] {
        assert_eq!(count(sql).await, left, "{sql}");
    }
    let ran_on: uuid::Uuid = admin
        .query_one("SELECT node_id FROM job_runs", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(ran_on, alive.0);
}

/// The store's upkeep removes traces past their retention, job slots run
/// long ago, idle send-limit rows, thread keys past their keeping and the
/// turn slots of dead nodes, and keeps the rest; a node finding
/// another's sweep under way skips its turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_removes_only_what_is_past_its_keeping() {
    let postgres = Postgres::start().await;
    let url = postgres.database("sweep").await;
    let store = pg_store(&url).await;
    let admin = postgres.admin_of("sweep").await;
    admin
        .batch_execute(
            "INSERT INTO traces (id, started_at, org_id, agent_id, thread_id, v, body)
             SELECT gen_random_uuid(), now() - make_interval(days => d) + interval '12 hours',
                    gen_random_uuid(),
                    gen_random_uuid(), gen_random_uuid(), 1, '{}'
             FROM generate_series(1, 40) d, generate_series(1, 300) n;
             INSERT INTO job_runs (kind, slot, job_id, node_id, started_at)
             SELECT 'purge_thread', n::text, gen_random_uuid(), gen_random_uuid(),
                    now() - make_interval(days => n) + interval '12 hours'
             FROM generate_series(1, 60) n;
             INSERT INTO send_limits (org_id, subject, tat)
             VALUES (gen_random_uuid(), 'idle', now() - interval '2 days'),
                    (gen_random_uuid(), 'busy', now() + interval '10 seconds');
             INSERT INTO keyed_threads (org_id, key_hash, request, thread_id, created_at)
             VALUES (gen_random_uuid(), '\\x01', 'r', gen_random_uuid(), now() - interval '25 hours'),
                    (gen_random_uuid(), '\\x02', 'r', gen_random_uuid(), now() - interval '23 hours');
             INSERT INTO nodes (id, name, url, heartbeat_at, expires_at)
             VALUES ('00000000-0000-0000-0000-00000000000a', 'live', 'http://l', now(),
                     now() + interval '1 hour'),
                    ('00000000-0000-0000-0000-00000000000d', 'dead', 'http://d', now(),
                     now() - interval '1 minute');
             INSERT INTO org_turn_slots (thread_id, org_id, node_id)
             VALUES (gen_random_uuid(), gen_random_uuid(), '00000000-0000-0000-0000-00000000000a'),
                    (gen_random_uuid(), gen_random_uuid(), '00000000-0000-0000-0000-00000000000d'),
                    (gen_random_uuid(), gen_random_uuid(), gen_random_uuid());",
        )
        .await
        .unwrap();
    let held = postgres.admin_of("sweep").await;
    held.execute("SELECT pg_advisory_lock(10, 0)", &[])
        .await
        .unwrap();
    let retention = chrono::TimeDelta::days(30);
    assert_eq!(
        store.sweep(retention, Utc::now()).await.unwrap(),
        None,
        "swept beside another node's sweep"
    );
    drop(held);

    let swept = store.sweep(retention, Utc::now()).await.unwrap().unwrap();
    // Each row is d - ½ days old: d = 31 and on are past 30 days.
    assert_eq!(swept.traces, 10 * 300, "{swept:?}");
    // Every past day's trace was folded into analytics before any went.
    assert!(swept.folded_traces >= 39 * 300, "{swept:?}");
    assert_eq!(swept.job_slots, 30, "{swept:?}");
    assert_eq!(swept.send_limits, 1, "{swept:?}");
    assert_eq!(swept.thread_keys, 1, "{swept:?}");
    assert_eq!(swept.dead_turn_slots, 2, "{swept:?}");
    let count = |sql: &'static str| {
        let admin = &admin;
        async move { admin.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(count("SELECT count(*) FROM traces").await, 30 * 300);
    assert_eq!(
        count("SELECT count(*) FROM traces WHERE NOT folded AND started_at < now() - interval '2 days'").await,
        0
    );
    assert_eq!(count("SELECT count(*) FROM job_runs").await, 30);
    assert_eq!(
        count("SELECT count(*) FROM send_limits WHERE subject = 'busy'").await,
        1
    );
    assert_eq!(
        count("SELECT count(*) FROM keyed_threads WHERE key_hash = '\\x02'").await,
        1
    );
    assert_eq!(
        count("SELECT count(*) FROM org_turn_slots WHERE node_id = '00000000-0000-0000-0000-00000000000a'").await,
        1
    );
}
