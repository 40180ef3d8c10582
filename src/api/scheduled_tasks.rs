//! `/api/agents/{id}/scheduled-tasks` (`runners.md` Scheduling §6): an
//! agent's tasks, read, and replaced as a whole by PUT (a known `id`
//! updates, no `id` creates, an absent one goes). Field rules are in
//! `crate::scheduler::rules`; the scheduler is told of every change.

use std::collections::HashSet;

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::AgentId;
use serde::Deserialize;

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::schema::{self, FieldError};
use crate::scheduler::rules::{self, ActionBody, Place, TaskBody};
use crate::scheduler::{MAX_TASKS_PER_AGENT, ScheduledTask};
use crate::state::AppState;
use crate::store::schedules::ReplaceRefused;

/// `PUT` body.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PutTasks {
    /// Every task the agent keeps (at most 100).
    tasks: Vec<TaskBody>,
}

/// `GET /api/agents/{id}/scheduled-tasks`
#[utoipa::path(get, path = "/api/agents/{agent_id}/scheduled-tasks", tag = "runners", operation_id = "scheduled_tasks_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent's tasks, oldest first", body = [ScheduledTask])))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let tasks = state
        .store
        .schedules()
        .scheduled_tasks(org, agent.id)
        .await?;
    Ok(HttpResponse::Ok().json(tasks))
}

/// `PUT /api/agents/{id}/scheduled-tasks`: replaces the tasks; a bad item
/// is 422 `tasks[i].field` and nothing is stored.
#[utoipa::path(put, path = "/api/agents/{agent_id}/scheduled-tasks", tag = "runners", operation_id = "scheduled_tasks_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutTasks, responses((status = 200, description = "The tasks as stored", body = [ScheduledTask]), (status = 409, description = "The org has `CONFER_MAX_SCHEDULES_PER_ORG` schedules", body = crate::error::ErrorBody<'static>), (status = 422, description = "`VALIDATION_ERROR` naming `tasks[i].field`", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutTasks>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let items = body.into_inner().tasks;
    if items.len() > MAX_TASKS_PER_AGENT {
        return Err(ApiError::invalid(
            "tasks",
            format!("at most {MAX_TASKS_PER_AGENT} per agent"),
        ));
    }
    let (org, agent) = (caller.org_id, agent.id);
    let (max, min_interval_secs) = (
        state.settings.max_schedules_per_org,
        state.settings.schedule_min_interval_secs,
    );
    let now = Utc::now();
    let places: Vec<Place> = (0..items.len())
        .map(|index| Place {
            org,
            agent,
            index: Some(index),
            now,
            min_interval_secs,
        })
        .collect();
    for (item, place) in items.iter().zip(&places) {
        if let Err(refusal) = check_action(&state, &item.action, place).await? {
            return Err(ApiError::InvalidFields(vec![refusal]));
        }
    }
    let build = move |stored: &[ScheduledTask]| {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(items.len());
        for (item, place) in items.iter().zip(&places) {
            let old = match item.id {
                Some(id) => {
                    if !seen.insert(id) {
                        return Err(place.refuse("id", "named twice"));
                    }
                    Some(
                        stored
                            .iter()
                            .find(|t| t.id == id)
                            .ok_or_else(|| place.refuse("id", "no such task of the agent"))?,
                    )
                }
                None => None,
            };
            out.push(rules::task(item.clone(), old, place)?);
        }
        Ok(out)
    };
    let stored = state
        .store
        .schedules()
        .replace_scheduled_tasks(org, agent, max, Box::new(build))
        .await?;
    let tasks = match stored {
        Ok(tasks) => tasks,
        Err(Ok(refusal)) => return Err(ApiError::InvalidFields(vec![refusal])),
        Err(Err(ReplaceRefused::OrgFull { max })) => {
            return Err(ApiError::Conflict(format!(
                "the org has {max} schedules (CONFER_MAX_SCHEDULES_PER_ORG)"
            )));
        }
    };
    state.scheduler.changed();
    Ok(HttpResponse::Ok().json(tasks))
}

/// What an action names must be the agent's: a thread with no `origin`,
/// or a live runner whose input schema accepts the input (runners are
/// kept on sled only: on PostgreSQL a run action is `NOT_ON_THIS_STORE`).
async fn check_action(
    state: &AppState,
    action: &ActionBody,
    place: &Place,
) -> Result<Result<(), FieldError>, confer_actors::StoreError> {
    match action {
        ActionBody::Message { thread_id, .. } => {
            let thread = state.store.threads().thread(place.org, *thread_id).await?;
            if !thread.is_some_and(|t| t.agent_id == place.agent && t.origin.is_none()) {
                return Ok(Err(
                    place.refuse("action.threadId", "no such thread of the agent")
                ));
            }
        }
        ActionBody::Run { runner_id, input } => {
            let (org, id) = (place.org, *runner_id);
            let runner = state
                .store
                .run(move |s| s.runner(org, id))
                .await?
                .filter(|r| r.deleted_at.is_none() && r.agent_id == place.agent);
            let Some(runner) = runner else {
                return Ok(Err(
                    place.refuse("action.runnerId", "no such runner of the agent")
                ));
            };
            let validator = match schema::compile(&runner.input_schema) {
                Ok(v) => v,
                Err(e) => return Ok(Err(place.refuse("action.runnerId", e))),
            };
            let input = input
                .clone()
                .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
            if let Some(error) = schema::errors(&validator, &input).into_iter().next() {
                let field = format!("action.input{}", error.path);
                return Ok(Err(place.refuse(&field, error.message)));
            }
        }
    }
    Ok(Ok(()))
}
