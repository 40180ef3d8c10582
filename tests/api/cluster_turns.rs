//! A thread's writes on a cluster (`scale.md` §3.4–3.6), on a real
//! PostgreSQL: each carries its lease (node, shard, epoch) and keeps
//! nothing once the lease has moved; each turn has a `turns` row, and a
//! node taking over a dead node's shard ends its running turns
//! `NODE_FAILED`, keyed sends included.

use std::time::Duration;

use confer::cluster::leases::{self, Plan};
use confer::cluster::nodes::{self, NodeSettings};
use confer::cluster::{NodeId, Shard};
use confer::store::pg::PgStore;
use confer::store::pg::threads::shard_of;
use confer_actors::{
    Fence, OutcomeKind, Role, StoreError, Thread, ThreadAppend, ThreadStore, TurnEnd, TurnMark,
};

use crate::common::eventually;
use crate::postgres::Postgres;
use crate::store_conformance::{Ports, keyed_record, message, pg_store, seeded};

fn node(name: &str, ttl_secs: u64) -> NodeSettings {
    NodeSettings {
        name: name.into(),
        url: format!("http://{name}.invalid:8080"),
        ttl: Duration::from_secs(ttl_secs),
    }
}

/// A store on a new database of `postgres`, and a thread in it.
async fn store_with_thread(postgres: &Postgres, name: &str) -> (PgStore, Thread) {
    let store = pg_store(&postgres.database(name).await).await;
    let (_, _, thread) = seeded(&Ports::of_postgres(&store)).await;
    (store, thread)
}

/// Node `me` claims `shard` seen at `epoch`; the epoch it now holds.
async fn claim(client: &mut tokio_postgres::Client, me: NodeId, shard: Shard, seen: i64) -> i64 {
    let plan = Plan {
        claim: vec![(shard, seen)],
        release: vec![],
    };
    let applied = leases::apply(client, me, &plan).await.unwrap();
    assert_eq!(
        applied.claimed.len(),
        1,
        "the claim of {shard:?} at {seen} won"
    );
    applied.claimed[0].1
}

/// The `turns` row of the thread's `turn`: status, code, last frame, node.
async fn turn_row(
    store: &PgStore,
    thread: &Thread,
    turn: i64,
) -> (String, Option<String>, Option<i64>, uuid::Uuid) {
    let session = store.database().session().await.unwrap();
    let row = session
        .client
        .query_one(
            "SELECT status, code, last_frame, node_id FROM turns WHERE thread_id = $1 AND turn = $2",
            &[&thread.id.0, &turn],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

fn user_turn(thread: &Thread, fence: Fence, turn: u64) -> ThreadAppend {
    ThreadAppend {
        turn: Some(turn),
        listed: Some(message(thread.id, Role::User, "question")),
        fence: Some(fence),
        mark: Some(TurnMark::Started {
            turn,
            trace_id: None,
        }),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_under_a_moved_lease_keeps_nothing() {
    let postgres = Postgres::start().await;
    let (store, thread) = store_with_thread(&postgres, "fencing").await;
    let shard = shard_of(&thread);
    let mut x = store.database().dedicated().await.unwrap();
    let x_id = nodes::register(&x.client, &node("x", 30)).await.unwrap();
    let epoch = claim(&mut x.client, x_id, shard, 0).await;
    let fence = Fence {
        node: x_id.0,
        shard: shard.number(),
        epoch,
    };
    store
        .append_durably(thread.id, user_turn(&thread, fence, 1))
        .await
        .unwrap();
    let (status, _, _, by) = turn_row(&store, &thread, 1).await;
    assert_eq!((status.as_str(), by), ("running", x_id.0));

    // The shard is handed back (a drain): the turn's next write, made
    // under the old epoch, fails and keeps nothing, and so does its end.
    let release = Plan {
        claim: vec![],
        release: vec![shard],
    };
    leases::apply(&mut x.client, x_id, &release).await.unwrap();
    let late = store
        .append_durably(thread.id, user_turn(&thread, fence, 2))
        .await;
    assert!(matches!(late, Err(StoreError::Fenced)), "{late:?}");
    let end = TurnEnd {
        turn: 1,
        ok: true,
        code: None,
        last_frame: 7,
    };
    let ended = store.end_turn(thread.id, Some(fence), end.clone()).await;
    assert!(matches!(ended, Err(StoreError::Fenced)), "{ended:?}");
    let last = store.last_turn(thread.id).await.unwrap();
    assert_eq!(last.turn, 1, "turn 2 left no trace");
    assert_eq!(last.node, Some(fence.node), "turn 1's row names its node");
    let session = store.database().session().await.unwrap();
    let listed: i64 = session
        .client
        .query_one(
            "SELECT count(*) FROM messages WHERE thread_id = $1",
            &[&thread.id.0],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(listed, 1);
    assert_eq!(turn_row(&store, &thread, 1).await.0, "running");

    // Claimed again, under its new epoch, the end is kept.
    let epoch = claim(&mut x.client, x_id, shard, epoch + 1).await;
    let fence = Fence { epoch, ..fence };
    store.end_turn(thread.id, Some(fence), end).await.unwrap();
    let (status, code, last_frame, _) = turn_row(&store, &thread, 1).await;
    assert_eq!((status.as_str(), code, last_frame), ("done", None, Some(7)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_fails_the_dead_node_s_running_turns() {
    let postgres = Postgres::start().await;
    let (store, thread) = store_with_thread(&postgres, "takeover").await;
    let shard = shard_of(&thread);
    let mut x = store.database().dedicated().await.unwrap();
    let x_id = nodes::register(&x.client, &node("x", 1)).await.unwrap();
    let epoch = claim(&mut x.client, x_id, shard, 0).await;
    let fence = Fence {
        node: x_id.0,
        shard: shard.number(),
        epoch,
    };
    let key = [4u8; 32];
    let write = ThreadAppend {
        keyed: Some((key, keyed_record(1))),
        ..user_turn(&thread, fence, 1)
    };
    store.append_durably(thread.id, write).await.unwrap();

    // X stops heartbeating; once its lease has expired, Y's claim wins and
    // ends X's running turn in the same transaction.
    let mut y = store.database().dedicated().await.unwrap();
    let y_id = nodes::register(&y.client, &node("y", 30)).await.unwrap();
    let taken = eventually(
        Duration::from_secs(10),
        "Y takes the shard over",
        async || {
            let plan = Plan {
                claim: vec![(shard, epoch)],
                release: vec![],
            };
            let applied = leases::apply(&mut y.client, y_id, &plan).await.unwrap();
            applied.claimed.first().map(|(_, e)| *e)
        },
    )
    .await;
    assert_eq!(taken, epoch + 1);
    let (status, code, _, _) = turn_row(&store, &thread, 1).await;
    assert_eq!(
        (status.as_str(), code.as_deref()),
        ("failed", Some("NODE_FAILED"))
    );
    let read = store
        .admission_reads(thread.id, Some(key), false)
        .await
        .unwrap();
    let outcome = read
        .keyed
        .unwrap()
        .outcome
        .expect("the keyed send has its outcome");
    assert_eq!(outcome.kind, OutcomeKind::Error);
    assert_eq!(outcome.error_code.as_deref(), Some("NODE_FAILED"));

    // X wakes up: whatever it still tries to write is refused.
    let late = ThreadAppend {
        listed: Some(message(thread.id, Role::Assistant, "too late")),
        fence: Some(fence),
        ..Default::default()
    };
    let late = store.append_durably(thread.id, late).await;
    assert!(matches!(late, Err(StoreError::Fenced)), "{late:?}");
}
