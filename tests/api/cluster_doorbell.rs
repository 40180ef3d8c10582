//! The node's doorbell (`scale.md` §5): a `NOTIFY` on a channel wakes
//! what listens to it and nothing else, a slot given back notifies its
//! channel, and after its connection is lost the doorbell listens again
//! and rings every bell once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use confer::cluster::doorbell::{CHANGES, Doorbell, JOBS, ORG_SLOTS};
use confer_actors::{OrgId, ThreadId};

use crate::common::eventually;
use crate::postgres::Postgres;

/// A bell that counts its rings.
fn counter(doorbell: &Doorbell, channel: &'static str) -> Arc<AtomicUsize> {
    let count = Arc::new(AtomicUsize::new(0));
    let rung = Arc::clone(&count);
    doorbell.on(
        channel,
        Box::new(move || {
            rung.fetch_add(1, Ordering::SeqCst);
        }),
    );
    count
}

async fn rung(bell: &AtomicUsize, at_least: usize) {
    eventually(Duration::from_secs(10), "the bell rings", async || {
        (bell.load(Ordering::SeqCst) >= at_least).then_some(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_doorbell_rings_on_its_channel_and_after_a_lost_connection() {
    let postgres = Postgres::start().await;
    let url = postgres.database("doorbell").await;
    let store = crate::store_conformance::pg_store(&url).await;
    let doorbell = Doorbell::start(store.database().clone());
    let (jobs, changes) = (counter(&doorbell, JOBS), counter(&doorbell, CHANGES));
    let slots = counter(&doorbell, ORG_SLOTS);
    let admin = postgres.admin_of("doorbell").await;
    // Listening once a notification is heard.
    eventually(
        Duration::from_secs(10),
        "the doorbell listens",
        async || {
            admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
            (jobs.load(Ordering::SeqCst) >= 2).then_some(())
        },
    )
    .await;
    // Its first ring of every bell (slots' is the last) is over.
    rung(&slots, 2).await;
    let count = |bell: &AtomicUsize| bell.load(Ordering::SeqCst);
    let (j, c, s) = (count(&jobs), count(&changes), count(&slots));
    // A channel wakes its own bells only; notifications come in order.
    admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
    admin.batch_execute("NOTIFY confer_changes").await.unwrap();
    rung(&changes, c + 1).await;
    assert!(count(&jobs) > j);
    assert_eq!((count(&changes), count(&slots)), (c + 1, s));
    // A node giving an org's slot back rings every node's slot bell.
    let (org, node, thread) = (OrgId::new(), uuid::Uuid::new_v4(), ThreadId::new());
    let taken = store
        .take_org_slot(org, node, &[(thread, 1)], 1)
        .await
        .unwrap();
    assert!(taken.taken);
    store.give_org_slot(thread, node).await.unwrap();
    rung(&slots, s + 1).await;
    // The connection is lost: it listens again, rings every bell once
    // (what was notified meanwhile is unknown), and hears what follows.
    let killed = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE pid <> pg_backend_pid() AND datname = 'doorbell'",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert!(killed >= 1, "the doorbell's connection is found");
    rung(&changes, c + 2).await;
    let j = count(&jobs);
    admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
    rung(&jobs, j + 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_holds_64_notifications_and_drops_the_rest() {
    use confer::tools::integrations::connection::NOTIFICATIONS;
    let postgres = Postgres::start().await;
    let url = postgres.database("bound").await;
    let store = crate::store_conformance::pg_store(&url).await;
    let mut connection = store.database().dedicated().await.unwrap();
    connection
        .client
        .batch_execute("LISTEN confer_jobs")
        .await
        .unwrap();
    let admin = postgres.admin_of("bound").await;
    // Each in a transaction of its own: none is folded into another.
    for n in 0..NOTIFICATIONS * 2 {
        admin
            .batch_execute(&format!("NOTIFY confer_jobs, '{n}'"))
            .await
            .unwrap();
    }
    // Every notification committed before a query reaches the connection
    // before that query's answer.
    connection.client.batch_execute("SELECT 1").await.unwrap();
    let mut held = 0;
    while connection.notifications.try_recv().is_ok() {
        held += 1;
    }
    assert_eq!(held, NOTIFICATIONS, "the rest were dropped, not queued");
    // Nothing was held up: the next one arrives.
    admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
    let next = tokio::time::timeout(Duration::from_secs(10), connection.notifications.recv());
    assert_eq!(next.await.unwrap().as_deref(), Some("confer_jobs"));
}
