//! The schedule trees' unit tests: a firing is compare-and-swap on the
//! task, a slot's run is made once, the due index follows the task.

use super::*;
use crate::runners::Runner;
use crate::scheduler::due::fire_one;
use crate::scheduler::rules::{Place, TaskBody, task};
use crate::scheduler::{Missed, TaskAction, slot_run_id};
use crate::store::testing::test_secrets;
use serde_json::json;

fn temp_store() -> (tempfile::TempDir, SledStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    (dir, store)
}

fn runner(org: OrgId, agent: AgentId) -> Runner {
    crate::runners::rules::RunnerDraft {
        agent_id: Some(agent),
        name: Some("R".into()),
        instructions: Some("go".into()),
        ..Default::default()
    }
    .create(org, |_| Ok(()))
    .unwrap()
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// An every-second task of a new runner, first due at `due`.
fn every_second(store: &SledStore, due: &str) -> ScheduledTask {
    let org = OrgId::new();
    let made_agent = crate::store::testing::test_agent(org);
    store.put_agent(&made_agent).unwrap();
    let agent = made_agent.id;
    let r = runner(org, agent);
    assert!(store.put_runner(&r, 10).unwrap());
    let body: TaskBody = serde_json::from_value(json!({
        "name": "tick", "cron": "* * * * * *", "missed": "catch_up", "catchUpMax": 100, "overlap": "allow",
        "action": {"kind": "run", "runnerId": r.id}
    }))
    .unwrap();
    let place = Place {
        org,
        agent,
        index: Some(0),
        now: utc(due) - chrono::Duration::milliseconds(500),
        min_interval_secs: 1,
    };
    let made = task(body, None, &place).unwrap();
    assert_eq!(made.next_fire_at, Some(utc(due)));
    let stored = store
        .replace_scheduled_tasks(org, agent, 10, |_| Ok::<_, ()>(vec![made.clone()]))
        .unwrap()
        .unwrap();
    stored[0].clone()
}

#[test]
fn a_due_task_fires_its_slots_once_and_moves_its_next_fire() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let (org, agent) = (task.org_id, task.agent_id);
    assert_eq!(store.earliest_schedule().unwrap(), task.next_fire_at);
    let now = utc("2026-01-01T12:00:02.500Z");
    assert_eq!(
        store.due_schedules(now, 10).unwrap(),
        [(org, agent, task.id)]
    );
    let Some(Fired::Stored { task: fired, runs }) =
        fire_one(&store, org, agent, task.id, now).unwrap()
    else {
        panic!("not fired");
    };
    let ids: Vec<_> = runs.iter().map(|r| r.id).collect();
    let slots = ["12:00:00", "12:00:01", "12:00:02"]
        .map(|t| slot_run_id(task.id, utc(&format!("2026-01-01T{t}Z"))));
    assert_eq!(ids, slots);
    assert_eq!(fired.next_fire_at, Some(utc("2026-01-01T12:00:03Z")));
    assert_eq!(fired.last_run, Some(slots[2]));
    assert!(store.due_schedules(now, 10).unwrap().is_empty());
    assert_eq!(store.earliest_schedule().unwrap(), fired.next_fire_at);
    // Not due any more: nothing more is made.
    assert!(
        fire_one(&store, org, agent, task.id, now)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store
            .run(org, slots[0])
            .unwrap()
            .unwrap()
            .trigger
            .scheduled_for,
        Some(utc("2026-01-01T12:00:00Z"))
    );
}

#[test]
fn a_firing_planned_from_an_old_version_writes_nothing() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let mut stale = task.clone();
    stale.version += 1;
    stale.next_fire_at = Some(utc("2026-01-01T12:00:01Z"));
    store
        .change_scheduled_task(task.org_id, task.agent_id, task.id, |t| t.name = "x".into())
        .unwrap();
    let firing = Firing {
        task: stale,
        runs: Vec::new(),
        max_queued: 10,
        sends: Vec::new(),
    };
    assert!(matches!(
        store.fire_schedule(&firing).unwrap(),
        Fired::Changed
    ));
    let kept = store
        .scheduled_task(task.org_id, task.agent_id, task.id)
        .unwrap()
        .unwrap();
    assert_eq!(kept.next_fire_at, task.next_fire_at);
}

#[test]
fn a_slot_whose_run_exists_is_not_made_again() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let (org, agent) = (task.org_id, task.agent_id);
    let now = utc("2026-01-01T12:00:00.200Z");
    fire_one(&store, org, agent, task.id, now).unwrap();
    // Put the schedule back, as a firing lost before its flush would
    // leave it: the slot's run exists and is not made twice.
    store
        .change_scheduled_task(org, agent, task.id, |t| t.next_fire_at = task.next_fire_at)
        .unwrap();
    let Some(Fired::Stored { runs, task: again }) =
        fire_one(&store, org, agent, task.id, now).unwrap()
    else {
        panic!("not fired");
    };
    assert!(runs.is_empty());
    assert_eq!(
        again.recent[0].run_id,
        Some(slot_run_id(task.id, utc("2026-01-01T12:00:00Z")))
    );
    let all = store
        .list_runs(
            org,
            match &task.action {
                TaskAction::Run { runner_id, .. } => *runner_id,
                TaskAction::Message { .. } => unreachable!(),
            },
            None,
            50,
            |_| true,
        )
        .unwrap();
    assert_eq!(all.items.len(), 1);
}

#[test]
fn the_missed_policy_records_one_entry_for_the_rest() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let (org, agent) = (task.org_id, task.agent_id);
    store
        .change_scheduled_task(org, agent, task.id, |t| {
            t.missed = Missed::Skip;
        })
        .unwrap();
    let now = utc("2026-01-01T12:00:20.500Z");
    let Some(Fired::Stored { runs, task: fired }) =
        fire_one(&store, org, agent, task.id, now).unwrap()
    else {
        panic!("not fired");
    };
    assert_eq!(runs.len(), 5);
    let missed: Vec<_> = fired
        .recent
        .iter()
        .filter(|e| e.reason.as_deref() == Some("missed"))
        .collect();
    assert_eq!(missed.len(), 1);
    assert_eq!(missed[0].count, Some(16));
}

#[test]
fn an_org_holds_at_most_its_schedules() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let mut other = task.clone();
    other.id = ScheduleId::new();
    other.agent_id = AgentId::new();
    let refused = store
        .replace_scheduled_tasks(task.org_id, other.agent_id, 1, |_| {
            Ok::<_, ()>(vec![other.clone()])
        })
        .unwrap();
    assert!(matches!(
        refused,
        Err(Err(ReplaceRefused::OrgFull { max: 1 }))
    ));
    store
        .delete_scheduled_tasks(task.org_id, task.agent_id)
        .unwrap();
    assert_eq!(store.earliest_schedule().unwrap(), None);
    assert!(
        store
            .replace_scheduled_tasks(task.org_id, other.agent_id, 1, |_| Ok::<_, ()>(vec![
                other.clone()
            ]))
            .unwrap()
            .is_ok()
    );
}

#[test]
fn overlap_skips_or_queues_behind_an_unfinished_run() {
    let (_dir, store) = temp_store();
    let task = every_second(&store, "2026-01-01T12:00:00Z");
    let (org, agent) = (task.org_id, task.agent_id);
    fire_one(&store, org, agent, task.id, utc("2026-01-01T12:00:00.100Z")).unwrap();
    let first = slot_run_id(task.id, utc("2026-01-01T12:00:00Z"));
    store
        .change_scheduled_task(org, agent, task.id, |t| {
            t.overlap = crate::scheduler::Overlap::Skip
        })
        .unwrap();
    let Some(Fired::Stored {
        runs,
        task: skipped,
    }) = fire_one(&store, org, agent, task.id, utc("2026-01-01T12:00:01.100Z")).unwrap()
    else {
        panic!("not fired");
    };
    assert!(runs.is_empty());
    assert_eq!(skipped.recent[0].reason.as_deref(), Some("overlap"));
    store
        .change_scheduled_task(org, agent, task.id, |t| {
            t.overlap = crate::scheduler::Overlap::Queue
        })
        .unwrap();
    let Some(Fired::Stored { runs, .. }) =
        fire_one(&store, org, agent, task.id, utc("2026-01-01T12:00:02.100Z")).unwrap()
    else {
        panic!("not fired");
    };
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].progress.after, Some(first));
    assert_eq!(
        crate::scheduler::due::waits_for(&store, &runs[0]).unwrap(),
        Some(first)
    );
}

#[test]
fn a_stale_due_entry_is_removed_not_returned() {
    let (_dir, store) = temp_store();
    let (org, agent, id) = (OrgId::new(), AgentId::new(), ScheduleId::new());
    let at = utc("2026-01-01T12:00:00Z");
    store
        .schedules
        .due
        .insert(
            due_key(at, id),
            keys::pair(org.as_bytes(), agent.as_bytes()).as_slice(),
        )
        .unwrap();
    assert_eq!(store.earliest_schedule().unwrap(), Some(at));
    assert!(
        store
            .due_schedules(utc("2026-01-01T12:00:01Z"), 10)
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.earliest_schedule().unwrap(), None);
}

/// A runner's schedule triggers are its own: the agent's list and PUT
/// never see them, they count against the org, and the runner's
/// deletion removes them (an agent's task is only disabled).
#[test]
fn a_runners_schedule_triggers_stay_out_of_the_agents_tasks_and_go_with_it() {
    let (_dir, store) = temp_store();
    let org = OrgId::new();
    let agent = AgentId::new();
    let r = runner(org, agent);
    assert!(store.put_runner(&r, 10).unwrap());
    let draft = crate::runners::schedule_trigger::ScheduleDraft {
        cron: Some("0 9 * * *".into()),
        ..Default::default()
    };
    let trigger = draft.task(&r, None, None, Utc::now(), 60).unwrap();
    assert_eq!(store.put_runner_schedule(&trigger, 10).unwrap(), Ok(()));
    assert_eq!(
        store.put_runner_schedule(&trigger, 1).unwrap(),
        Err(runner_triggers::ScheduleTriggerRefused::OrgFull { max: 1 })
    );
    assert!(store.scheduled_tasks(org, agent).unwrap().is_empty());
    assert_eq!(store.runner_schedules(org, agent, r.id).unwrap().len(), 1);
    assert_eq!(store.runner_schedule_count(org, r.id).unwrap(), 1);
    // The agent's PUT replaces its own tasks only.
    let replaced = store
        .replace_scheduled_tasks(org, agent, 10, |_| Ok::<_, ()>(Vec::new()))
        .unwrap();
    assert!(replaced.is_ok());
    assert_eq!(store.runner_schedules(org, agent, r.id).unwrap().len(), 1);
    assert_eq!(store.earliest_schedule().unwrap(), trigger.next_fire_at);

    store.stop_tasks_of_runner(org, r.id).unwrap();
    assert!(store.runner_schedules(org, agent, r.id).unwrap().is_empty());
    assert_eq!(store.earliest_schedule().unwrap(), None);
}
