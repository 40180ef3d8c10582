//! The schedule half of `/api/runners/{id}/triggers` (`runners.md`
//! Objects): create, change and delete a runner's schedule trigger, a
//! task of the one scheduler (`crate::runners::schedule_trigger`). The
//! trigger routes call these for `kind: "schedule"` and for an id that is
//! no webhook trigger; the scheduler is told of every change.

use actix_web::HttpResponse;
use chrono::Utc;
use confer_actors::{OrgId, ScheduleId};

use crate::error::ApiError;
use crate::runners::Runner;
use crate::runners::schedule_trigger::{ScheduleDraft, ScheduleTrigger};
use crate::state::AppState;
use crate::store::schedules::runner_triggers::ScheduleTriggerRefused;

fn view(task: crate::scheduler::ScheduledTask) -> Result<ScheduleTrigger, ApiError> {
    ScheduleTrigger::of(task).ok_or_else(|| ApiError::Internal("not a schedule trigger".into()))
}

/// `POST …/triggers` with `kind: "schedule"`: 201 the trigger.
pub async fn create(
    state: &AppState,
    runner: Runner,
    enabled: Option<bool>,
    draft: ScheduleDraft,
) -> Result<HttpResponse, ApiError> {
    let task = draft
        .task(
            &runner,
            enabled,
            None,
            Utc::now(),
            state.settings.schedule_min_interval_secs,
        )
        .map_err(|refusal| ApiError::InvalidFields(vec![refusal]))?;
    let max = state.settings.max_schedules_per_org;
    let stored = task.clone();
    match state
        .store
        .write(move |s| s.put_runner_schedule(&stored, max))
        .await?
    {
        Ok(()) => {}
        Err(ScheduleTriggerRefused::OrgFull { max }) => {
            return Err(ApiError::Conflict(format!(
                "the org has {max} schedules (CONFER_MAX_SCHEDULES_PER_ORG)"
            )));
        }
        Err(ScheduleTriggerRefused::RunnerFull) => {
            return Err(ApiError::Conflict(format!(
                "the runner has {} triggers",
                crate::runners::triggers::MAX_TRIGGERS_PER_RUNNER
            )));
        }
    }
    state.scheduler.changed();
    Ok(HttpResponse::Created().json(view(task)?))
}

/// The runner's schedule triggers, as answered.
pub async fn list(
    state: &AppState,
    org: OrgId,
    runner: &Runner,
) -> Result<Vec<ScheduleTrigger>, ApiError> {
    let (agent, id) = (runner.agent_id, runner.id);
    let tasks = state
        .store
        .run(move |s| s.runner_schedules(org, agent, id))
        .await?;
    tasks.into_iter().map(view).collect()
}

/// `PATCH …/triggers/{tid}` of a schedule trigger: `None` when `id` is
/// none of the runner's.
pub async fn update(
    state: &AppState,
    runner: Runner,
    id: ScheduleId,
    enabled: Option<bool>,
    draft: ScheduleDraft,
) -> Result<Option<HttpResponse>, ApiError> {
    let (org, agent) = (runner.org_id, runner.agent_id);
    let stored = state
        .store
        .run(move |s| s.scheduled_task(org, agent, id))
        .await?
        .filter(|t| t.runner_trigger == Some(runner.id));
    let Some(stored) = stored else {
        return Ok(None);
    };
    let min_interval = state.settings.schedule_min_interval_secs;
    // Refusals are decided on the task as read; a firing meanwhile only
    // moves `next_fire_at` and `recent`, which the change keeps.
    draft
        .clone()
        .task(&runner, enabled, Some(&stored), Utc::now(), min_interval)
        .map_err(|refusal| ApiError::InvalidFields(vec![refusal]))?;
    let changed = state
        .store
        .write(move |s| {
            s.change_scheduled_task(org, agent, id, |task| {
                let now = Utc::now();
                if let Ok(new) = draft
                    .clone()
                    .task(&runner, enabled, Some(task), now, min_interval)
                {
                    *task = new;
                }
            })
        })
        .await?
        .ok_or_else(|| ApiError::not_found("trigger"))?;
    state.scheduler.changed();
    Ok(Some(HttpResponse::Ok().json(view(changed)?)))
}

/// `DELETE …/triggers/{tid}` of a schedule trigger: whether it was one.
pub async fn delete(state: &AppState, runner: &Runner, id: ScheduleId) -> Result<bool, ApiError> {
    let (org, agent, runner) = (runner.org_id, runner.agent_id, runner.id);
    let deleted = state
        .store
        .write(move |s| s.delete_runner_schedule(org, agent, runner, id))
        .await?;
    if deleted {
        state.scheduler.changed();
    }
    Ok(deleted)
}
