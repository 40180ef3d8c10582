//! A runner's schedule triggers (`runners.md` Objects: "`schedule`: a
//! task's fields with `input` for `action`"). Each is a scheduled task of
//! the runner's agent with a `run` action of the runner, marked with
//! `runner_trigger`, so the one scheduler fires it with the same
//! exactly-once rule; it is listed and changed through the runner's
//! triggers only. Its fields follow `crate::scheduler::rules`, named bare
//! (`cron`, not `tasks[0].cron`).

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunnerId, ScheduleId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Runner, TriggerKind, schema};
use crate::runners::schema::FieldError;
use crate::scheduler::rules::{self, ActionBody, Place, TaskBody};
use crate::scheduler::{Missed, Overlap, RecentFiring, ScheduledTask, TaskAction};

/// A schedule trigger's fields in a create or PATCH body (camelCase);
/// absent ones keep their stored value (or default).
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleDraft {
    /// 1–100 characters (the runner's name by default).
    pub name: Option<String>,
    /// Required for a new schedule trigger: 5 fields, or 6 with seconds.
    pub cron: Option<String>,
    /// IANA (`UTC`).
    pub timezone: Option<String>,
    pub missed: Option<Missed>,
    pub catch_up_max: Option<u32>,
    pub grace_secs: Option<u64>,
    pub overlap: Option<Overlap>,
    /// The runs' input (`{}`), valid for the runner's input schema.
    #[schema(value_type = Option<Object>)]
    pub input: Option<Value>,
}

impl ScheduleDraft {
    /// Whether any schedule field is given (a webhook takes none).
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.cron.is_none()
            && self.timezone.is_none()
            && self.missed.is_none()
            && self.catch_up_max.is_none()
            && self.grace_secs.is_none()
            && self.overlap.is_none()
            && self.input.is_none()
    }

    /// The task this draft makes for `runner` over `stored` (`None`: a
    /// new trigger), or the refusal naming its field.
    pub fn task(
        self,
        runner: &Runner,
        enabled: Option<bool>,
        stored: Option<&ScheduledTask>,
        now: DateTime<Utc>,
        min_interval_secs: u64,
    ) -> Result<ScheduledTask, FieldError> {
        let place = Place {
            org: runner.org_id,
            agent: runner.agent_id,
            index: None,
            now,
            min_interval_secs,
        };
        let stored_input = stored.and_then(|s| match &s.action {
            TaskAction::Run { input, .. } => Some(input.clone()),
            TaskAction::Message { .. } => None,
        });
        let input = self
            .input
            .or(stored_input)
            .unwrap_or_else(|| Value::Object(Default::default()));
        let validator =
            schema::compile(&runner.input_schema).map_err(|e| place.refuse("input", e))?;
        if let Some(error) = schema::errors(&validator, &input).into_iter().next() {
            return Err(place.refuse(&format!("input{}", error.path), error.message));
        }
        let cron = self
            .cron
            .or_else(|| stored.map(|s| s.cron.clone()))
            .ok_or_else(|| place.refuse("cron", "required for a schedule trigger"))?;
        let body = TaskBody {
            id: stored.map(|s| s.id),
            name: self
                .name
                .or_else(|| stored.map(|s| s.name.clone()))
                .unwrap_or_else(|| runner.name.clone()),
            cron,
            timezone: self.timezone.or_else(|| stored.map(|s| s.timezone.clone())),
            enabled: enabled.or(stored.map(|s| s.enabled)),
            action: ActionBody::Run {
                runner_id: runner.id,
                input: Some(input),
            },
            missed: self.missed.or(stored.map(|s| s.missed)),
            catch_up_max: self.catch_up_max.or(stored.map(|s| s.catch_up_max)),
            grace_secs: self.grace_secs.or(stored.and_then(|s| s.grace_secs)),
            overlap: self.overlap.or(stored.map(|s| s.overlap)),
        };
        let mut task = rules::task(body, stored, &place)?;
        task.runner_trigger = Some(runner.id);
        Ok(task)
    }
}

/// A schedule trigger as answered: the trigger's common fields and its
/// task's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScheduleTrigger {
    /// The trigger's id (its task's; runs name it in `trigger.id`).
    #[schema(value_type = uuid::Uuid)]
    pub id: ScheduleId,
    #[schema(value_type = uuid::Uuid)]
    pub runner_id: RunnerId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    /// `schedule`.
    pub kind: TriggerKind,
    pub enabled: bool,
    pub name: String,
    pub cron: String,
    pub timezone: String,
    #[schema(value_type = Value)]
    pub input: Value,
    pub missed: Missed,
    pub catch_up_max: u32,
    pub grace_secs: Option<u64>,
    pub overlap: Overlap,
    pub next_fire_at: Option<DateTime<Utc>>,
    pub recent: Vec<RecentFiring>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ScheduleTrigger {
    /// The view of a runner's schedule task (`None`: not one).
    pub fn of(task: ScheduledTask) -> Option<Self> {
        let runner_id = task.runner_trigger?;
        let TaskAction::Run { input, .. } = task.action else {
            return None;
        };
        Some(Self {
            id: task.id,
            runner_id,
            org_id: task.org_id,
            kind: TriggerKind::Schedule,
            enabled: task.enabled,
            name: task.name,
            cron: task.cron,
            timezone: task.timezone,
            input,
            missed: task.missed,
            catch_up_max: task.catch_up_max,
            grace_secs: task.grace_secs,
            overlap: task.overlap,
            next_fire_at: task.next_fire_at,
            recent: task.recent,
            created_at: task.created_at,
            updated_at: task.updated_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn runner() -> Runner {
        crate::runners::rules::RunnerDraft {
            agent_id: Some(confer_actors::AgentId::new()),
            name: Some("Digest".into()),
            instructions: Some("go".into()),
            input_schema: Some(json!({"type": "object",
                "properties": {"topic": {"type": "string"}}})),
            ..Default::default()
        }
        .create(OrgId::new(), |_| Ok(()))
        .unwrap()
    }

    #[test]
    fn a_draft_makes_a_runner_task_and_names_bad_fields_bare() {
        let runner = runner();
        let now = Utc::now();
        let draft = ScheduleDraft {
            cron: Some("0 9 * * *".into()),
            input: Some(json!({"topic": "owls"})),
            ..Default::default()
        };
        let task = draft.task(&runner, None, None, now, 60).unwrap();
        assert_eq!(task.runner_trigger, Some(runner.id));
        assert_eq!(task.name, "Digest");
        assert!(task.next_fire_at.is_some());
        let view = ScheduleTrigger::of(task.clone()).unwrap();
        assert_eq!(
            (view.kind, view.input),
            (TriggerKind::Schedule, json!({"topic": "owls"}))
        );

        // A PATCH of one field keeps the rest.
        let patched = ScheduleDraft {
            timezone: Some("Europe/Paris".into()),
            ..Default::default()
        }
        .task(&runner, Some(false), Some(&task), now, 60)
        .unwrap();
        assert_eq!((patched.id, patched.cron.as_str()), (task.id, "0 9 * * *"));
        assert_eq!((patched.enabled, patched.next_fire_at), (false, None));

        for (draft, field) in [
            (ScheduleDraft::default(), "cron"),
            (
                ScheduleDraft {
                    cron: Some("0 9 * * *".into()),
                    input: Some(json!({"topic": 3})),
                    ..Default::default()
                },
                "input/topic",
            ),
            (
                ScheduleDraft {
                    cron: Some("* * * * * *".into()),
                    ..Default::default()
                },
                "cron",
            ),
        ] {
            assert_eq!(
                draft.task(&runner, None, None, now, 60).unwrap_err().path,
                field
            );
        }
    }
}
