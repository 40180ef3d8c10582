//! The runner trees' unit tests: the FIFO queue, the backlog cap, the
//! soft delete.

use super::*;
use crate::runners::{RunTrigger, TriggerKind};
use crate::store::testing::test_secrets;
use confer_actors::{AgentId, Metadata};

fn temp_store() -> (tempfile::TempDir, SledStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    (dir, store)
}

fn runner(org: OrgId) -> Runner {
    crate::runners::rules::RunnerDraft {
        agent_id: Some(AgentId::new()),
        name: Some("R".into()),
        instructions: Some("go".into()),
        ..Default::default()
    }
    .create(org, |_| Ok(()))
    .unwrap()
}

fn run(runner: &Runner) -> RunRecord {
    let trigger = RunTrigger {
        kind: TriggerKind::Manual,
        id: None,
        scheduled_for: None,
    };
    RunRecord::queued(
        runner,
        serde_json::json!({}),
        Metadata::new(),
        trigger,
        "apikey:x".into(),
    )
}

#[test]
fn the_queue_is_fifo_and_the_backlog_caps_it() {
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let r = runner(org);
    assert!(store.put_runner(&r, 10).unwrap());
    let first = run(&r);
    let second = run(&r);
    assert!(matches!(
        store.create_run(&first, 2).unwrap(),
        RunCreated::Stored(_)
    ));
    assert!(matches!(
        store.create_run(&second, 2).unwrap(),
        RunCreated::Stored(_)
    ));
    assert!(matches!(
        store.create_run(&run(&r), 2).unwrap(),
        RunCreated::QueueFull
    ));
    let queued = store.queued_runs(10).unwrap();
    assert_eq!(queued, [(org, first.id), (org, second.id)]);

    // Running leaves the queue and the backlog, and is open.
    store
        .change_run(org, first.id, |run| {
            run.status = RunStatus::Running;
            Ok::<_, ()>(())
        })
        .unwrap();
    assert_eq!(store.queued_runs(10).unwrap(), [(org, second.id)]);
    assert_eq!(store.open_runs().unwrap(), [(org, first.id)]);
    assert!(matches!(
        store.create_run(&run(&r), 2).unwrap(),
        RunCreated::Stored(_)
    ));

    // Queued again: at the end of the queue.
    store
        .change_run(org, first.id, |run| {
            run.status = RunStatus::Queued;
            Ok::<_, ()>(())
        })
        .unwrap();
    let order: Vec<RunId> = store
        .queued_runs(10)
        .unwrap()
        .into_iter()
        .map(|q| q.1)
        .collect();
    assert_eq!(order.last(), Some(&first.id));
    assert!(store.open_runs().unwrap().is_empty());
}

#[test]
fn deleting_a_runner_cancels_what_waits() {
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let r = runner(org);
    store.put_runner(&r, 10).unwrap();
    let waiting = run(&r);
    store.create_run(&waiting, 10).unwrap();
    let running = store.delete_runner(org, r.id).unwrap().unwrap();
    assert!(running.is_empty());
    let run = store.run(org, waiting.id).unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Cancelled);
    assert_eq!(run.status_reason.as_deref(), Some("runner_deleted"));
    assert!(store.queued_runs(10).unwrap().is_empty());
    assert!(matches!(
        store.create_run(&run, 10).unwrap(),
        RunCreated::RunnerGone
    ));
    assert!(store.runners(org).unwrap().is_empty());
}

/// A crash after the runner's mark and before its cleanup: the start's
/// pass finishes it (a running run too); a marker without a mark (a DELETE
/// that never answered) is dropped.
#[test]
fn an_interrupted_deletion_is_finished_at_start() {
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let r = runner(org);
    store.put_runner(&r, 10).unwrap();
    let (queued, running) = (run(&r), run(&r));
    store.create_run(&queued, 10).unwrap();
    store.create_run(&running, 10).unwrap();
    store
        .change_run(org, running.id, |run| {
            run.status = RunStatus::Running;
            Ok::<_, ()>(())
        })
        .unwrap();
    let marker = |id: RunnerId| keys::pair(org.as_bytes(), id.as_bytes());
    store.runners.deletions.insert(marker(r.id), &[]).unwrap();
    store
        .update_runner(org, r.id, |mut r| {
            r.deleted_at = Some(Utc::now());
            Ok::<_, ()>(r)
        })
        .unwrap();
    let alive = runner(org);
    store.put_runner(&alive, 10).unwrap();
    store
        .runners
        .deletions
        .insert(marker(alive.id), &[])
        .unwrap();

    assert_eq!(store.finish_runner_deletions().unwrap(), 1);
    for id in [queued.id, running.id] {
        let run = store.run(org, id).unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Cancelled);
        assert_eq!(run.status_reason.as_deref(), Some("runner_deleted"));
    }
    assert!(store.queued_runs(10).unwrap().is_empty());
    assert!(store.runners.deletions.is_empty());
    assert!(
        store
            .runner(org, alive.id)
            .unwrap()
            .unwrap()
            .deleted_at
            .is_none()
    );
    assert_eq!(store.finish_runner_deletions().unwrap(), 0);
}

/// `runners.md` Runs rule 10: the sweep removes ended runs with their threads
/// and settled deliveries past the cutoff, and expired nonces and keys;
/// it keeps open runs, runs that ended later, and pending deliveries.
#[test]
fn the_retention_sweep_removes_what_is_past_keeping_and_nothing_else() {
    use crate::runners::CompletionWebhook;
    use crate::webhooks::DeliveryStatus;
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let mut r = runner(org);
    r.completion_webhook = Some(CompletionWebhook {
        url: "http://127.0.0.1:9/hook".into(),
        events: vec![],
    });
    store.put_runner(&r, 10).unwrap();
    let now = Utc::now();
    let cutoff = now + chrono::Duration::days(10);
    let end = |id: RunId, at: DateTime<Utc>| {
        store
            .change_run(org, id, |run| {
                run.status = RunStatus::Succeeded;
                run.ended_at = Some(at);
                Ok::<_, ()>(())
            })
            .unwrap();
    };
    let (old, open, later) = (run(&r), run(&r), run(&r));
    for made in [&old, &open, &later] {
        store.create_run(made, 10).unwrap();
        store.create_thread(&made.thread(&r), None).unwrap();
    }
    end(old.id, now);
    end(later.id, cutoff + chrono::Duration::days(1));
    // One delivery settles; the other stays pending.
    let mut due = store
        .due_deliveries(now + chrono::Duration::seconds(1), 10)
        .unwrap();
    assert_eq!(due.len(), 2);
    let was_due = due[0].delivery.next_attempt_at.unwrap();
    due[0].delivery.status = DeliveryStatus::Delivered;
    due[0].delivery.next_attempt_at = None;
    store.record_attempt(was_due, &due[0]).unwrap();
    let scope = [7u8; 16];
    store
        .remember_run_key(&scope, &[1; 32], old.id, "h".into())
        .unwrap();

    let swept = store.sweep_runs(cutoff, cutoff, 100).unwrap();
    assert_eq!(
        swept,
        retention::RunSweep {
            runs: 1,
            deliveries: 1,
            keys: 1
        }
    );
    assert!(store.run(org, old.id).unwrap().is_none());
    assert!(store.thread(org, old.thread_id).unwrap().is_none());
    for kept in [&open, &later] {
        assert!(store.run(org, kept.id).unwrap().is_some());
        assert!(store.thread(org, kept.thread_id).unwrap().is_some());
    }
    let left = store.deliveries(org, r.id, None, 10, |_| true).unwrap();
    assert_eq!(left.items.len(), 1);
    assert_eq!(left.items[0].status, DeliveryStatus::Pending);
    let listed = store.list_runs(org, r.id, None, 10, |_| true).unwrap();
    assert_eq!(listed.items.len(), 2);
    // A second sweep finds nothing more.
    assert_eq!(
        store.sweep_runs(cutoff, cutoff, 100).unwrap(),
        retention::RunSweep::default()
    );
}

/// `runners.md` Budgets rule 1: the runner's day total follows its runs'
/// creations and recorded cost, in their own transactions.
#[test]
fn the_day_total_counts_runs_and_their_recorded_cost() {
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let r = runner(org);
    store.put_runner(&r, 10).unwrap();
    let (first, second) = (run(&r), run(&r));
    store.create_run(&first, 10).unwrap();
    store.create_run(&second, 10).unwrap();
    let cost = |id: RunId, usd: f64| {
        store
            .change_run(org, id, |run| {
                run.usage.cost_usd = usd;
                Ok::<_, ()>(())
            })
            .unwrap();
    };
    cost(first.id, 0.25);
    cost(second.id, 0.5);
    cost(first.id, 0.75);
    let today = store.runner_day(org, r.id, Utc::now()).unwrap();
    assert_eq!(today.runs, 2);
    assert!((today.cost_usd - 1.25).abs() < 1e-9, "{today:?}");
    let yesterday = Utc::now() - chrono::Duration::days(1);
    assert_eq!(
        store.runner_day(org, r.id, yesterday).unwrap(),
        days::RunnerDay::default()
    );
    // The backlog count beside it is untouched.
    assert!(matches!(
        store.create_run(&run(&r), 2).unwrap(),
        RunCreated::QueueFull
    ));
}
