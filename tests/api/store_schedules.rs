//! The store conformance suite's case for scheduled tasks (`runners.md`
//! Scheduling): an agent's tasks replaced whole under the org's cap, even
//! by two replacements at once; changed by version; deleted with the agent.

use chrono::Utc;
use confer::runners::schema::FieldError;
use confer::scheduler::{Missed, Overlap, ScheduledTask, TaskAction};
use confer::store::schedules::ReplaceRefused;
use confer_actors::{AgentId, OrgId, ScheduleId, ThreadId};

use crate::store_conformance::Ports;

fn task(org: OrgId, agent: AgentId, name: &str) -> ScheduledTask {
    let now = Utc::now();
    ScheduledTask {
        id: ScheduleId::new(),
        org_id: org,
        agent_id: agent,
        name: name.into(),
        cron: "0 9 * * *".into(),
        timezone: "UTC".into(),
        enabled: true,
        action: TaskAction::Message {
            thread_id: ThreadId::new(),
            content: "good morning".into(),
        },
        missed: Missed::Skip,
        catch_up_max: 1,
        grace_secs: None,
        overlap: Overlap::Skip,
        next_fire_at: Some(now + chrono::Duration::hours(1)),
        recent: Vec::new(),
        created_at: now,
        updated_at: now,
        version: 0,
        last_run: None,
        runner_trigger: None,
    }
}

/// A build that keeps `keep` of the stored tasks and adds `add` new ones.
fn keeping(
    org: OrgId,
    agent: AgentId,
    keep: usize,
    add: usize,
) -> confer::store::port::schedules::TaskBuild {
    Box::new(move |stored: &[ScheduledTask]| {
        let mut out: Vec<ScheduledTask> = stored.iter().take(keep).cloned().collect();
        out.extend((0..add).map(|i| task(org, agent, &format!("new {i}"))));
        Ok(out)
    })
}

pub(crate) async fn scheduled_tasks_are_replaced_whole_under_the_org_cap(ports: Ports) {
    let schedules = &ports.schedules;
    let (org, other) = (OrgId::new(), OrgId::new());
    let (first, second) = (AgentId::new(), AgentId::new());
    let made = schedules
        .replace_scheduled_tasks(org, first, 4, keeping(org, first, 0, 2))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(schedules.scheduled_tasks(org, first).await.unwrap(), made);
    assert!(
        schedules
            .scheduled_tasks(other, first)
            .await
            .unwrap()
            .is_empty()
    );
    // A refused field stores nothing.
    let refused = schedules
        .replace_scheduled_tasks(
            org,
            first,
            4,
            Box::new(|_: &[ScheduledTask]| {
                Err(FieldError {
                    path: "tasks[0].cron".into(),
                    message: "no".into(),
                })
            }),
        )
        .await
        .unwrap();
    assert!(matches!(refused, Err(Ok(ref e)) if e.path == "tasks[0].cron"));
    assert_eq!(schedules.scheduled_tasks(org, first).await.unwrap(), made);
    // The cap counts the org's other agents' tasks.
    let full = schedules
        .replace_scheduled_tasks(org, second, 4, keeping(org, second, 0, 3))
        .await
        .unwrap();
    assert!(matches!(full, Err(Err(ReplaceRefused::OrgFull { max: 4 }))));
    // Two replacements at once cannot both take an org's last two places.
    for _ in 0..8 {
        let org = OrgId::new();
        let filled = schedules.replace_scheduled_tasks(org, first, 4, keeping(org, first, 0, 2));
        filled.await.unwrap().unwrap();
        let racing = [AgentId::new(), AgentId::new()].map(|agent| {
            let schedules = std::sync::Arc::clone(schedules);
            tokio::spawn(async move {
                let build = keeping(org, agent, 0, 2);
                schedules
                    .replace_scheduled_tasks(org, agent, 4, build)
                    .await
            })
        });
        let [one, two] = racing;
        let stored = [one.await.unwrap().unwrap(), two.await.unwrap().unwrap()];
        assert_eq!(stored.iter().filter(|r| r.is_ok()).count(), 1, "{stored:?}");
    }

    // A change bumps the version; a missing task is not made.
    let kept = &made[0];
    let changed = schedules
        .change_scheduled_task(
            org,
            first,
            kept.id,
            Box::new(|t: &mut ScheduledTask| t.enabled = false),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (changed.enabled, changed.version),
        (false, kept.version + 1)
    );
    let listed = schedules.scheduled_tasks(org, first).await.unwrap();
    assert_eq!(listed[0], changed);
    let none = schedules
        .change_scheduled_task(org, first, ScheduleId::new(), Box::new(|_| {}))
        .await
        .unwrap();
    assert!(none.is_none());
    // A kept task keeps its id and what a firing recorded; a dropped one goes.
    let replaced = schedules
        .replace_scheduled_tasks(org, first, 4, keeping(org, first, 1, 0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(replaced, vec![changed]);
    schedules.delete_scheduled_tasks(org, first).await.unwrap();
    assert!(
        schedules
            .scheduled_tasks(org, first)
            .await
            .unwrap()
            .is_empty()
    );
}
