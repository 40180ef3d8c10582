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
