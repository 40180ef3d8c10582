//! The node's doorbell (`scale.md` §5): a `NOTIFY` on a channel wakes
//! what listens to it, another channel's does not, and after its
//! connection is lost it listens again and rings every bell once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use confer::cluster::doorbell::{self, CHANGES, JOBS, Ring};

use crate::common::eventually;
use crate::postgres::Postgres;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_doorbell_rings_on_its_channel_and_after_a_lost_connection() {
    let postgres = Postgres::start().await;
    let url = postgres.database("doorbell").await;
    let store = crate::store_conformance::pg_store(&url).await;
    let (jobs, changes) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (on_jobs, on_changes) = (Arc::clone(&jobs), Arc::clone(&changes));
    let bells: Vec<(&'static str, Ring)> = vec![
        (
            JOBS,
            Box::new(move || {
                on_jobs.fetch_add(1, Ordering::SeqCst);
            }),
        ),
        (
            CHANGES,
            Box::new(move || {
                on_changes.fetch_add(1, Ordering::SeqCst);
            }),
        ),
    ];
    doorbell::listen(store.database().clone(), bells);
    let rung = |bell: &Arc<AtomicUsize>, at_least: usize| {
        let bell = Arc::clone(bell);
        async move {
            eventually(Duration::from_secs(10), "the bell rings", async || {
                (bell.load(Ordering::SeqCst) >= at_least).then_some(())
            })
            .await
        }
    };
    // Listening: every bell is rung once (what came before is unknown).
    rung(&jobs, 1).await;
    rung(&changes, 1).await;
    let admin = postgres.admin_of("doorbell").await;
    // A job's channel wakes the job's bell only; notifications come in order.
    admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
    admin.batch_execute("NOTIFY confer_changes").await.unwrap();
    rung(&changes, 2).await;
    assert_eq!(jobs.load(Ordering::SeqCst), 2);
    // The connection is lost: it listens again, rings every bell, and
    // hears the next notification.
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
    rung(&jobs, 3).await;
    admin.batch_execute("NOTIFY confer_jobs").await.unwrap();
    rung(&jobs, 4).await;
}
