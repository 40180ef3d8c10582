//! The rules of a scheduled task's fields (`runners.md` Objects and
//! Scheduling §1, §6), in one place: a PUT item becomes a task, new or
//! over the stored one, or a refusal naming `tasks[i].field`. What needs
//! the store (the thread, the runner, the input's schema) is checked by
//! the caller with the same paths.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, RunnerId, ScheduleId, ThreadId};
use serde::Deserialize;
use serde_json::Value;

use super::cron::CronSchedule;
use super::{Missed, Overlap, ScheduledTask, TaskAction};
use crate::runners::schema::FieldError;

const MAX_NAME_CHARS: usize = 100;
/// The longest message a task sends (bytes).
pub const MAX_CONTENT_BYTES: usize = 32 * 1024;
/// The most slots one catch-up fires.
pub const MAX_CATCH_UP: u32 = 100;
const DEFAULT_CATCH_UP: u32 = 10;

/// One item of `PUT /api/agents/{id}/scheduled-tasks` (camelCase).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskBody {
    /// A stored task's id (updated); absent: a new task.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub id: Option<ScheduleId>,
    pub name: String,
    /// 5 fields, or 6 with seconds first (`croner`: `L W #` too).
    pub cron: String,
    /// IANA (`UTC` by default).
    pub timezone: Option<String>,
    /// `true` by default.
    pub enabled: Option<bool>,
    pub action: ActionBody,
    pub missed: Option<Missed>,
    /// 1–100 (10).
    pub catch_up_max: Option<u32>,
    /// 5–3,600; absent: half the gap to the next slot.
    pub grace_secs: Option<u64>,
    pub overlap: Option<Overlap>,
}

/// A task's action in a body (camelCase).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActionBody {
    Message {
        #[serde(rename = "threadId")]
        #[schema(value_type = uuid::Uuid)]
        thread_id: ThreadId,
        content: String,
    },
    Run {
        #[serde(rename = "runnerId")]
        #[schema(value_type = uuid::Uuid)]
        runner_id: RunnerId,
        /// `{}` by default.
        #[schema(value_type = Option<Value>)]
        input: Option<Value>,
    },
}

/// Where the task is: the org, the agent, the item's index, the time.
pub struct Place {
    pub org: OrgId,
    pub agent: AgentId,
    /// The item's index in a PUT's `tasks`; `None`: a runner's schedule
    /// trigger, whose fields are named bare.
    pub index: Option<usize>,
    pub now: DateTime<Utc>,
    /// `CONFER_SCHEDULE_MIN_INTERVAL_SECS`.
    pub min_interval_secs: u64,
}

impl Place {
    /// A refusal of `field` of this item.
    pub fn refuse(&self, field: &str, message: impl std::fmt::Display) -> FieldError {
        let path = match self.index {
            Some(index) => format!("tasks[{index}].{field}"),
            None => field.to_owned(),
        };
        FieldError {
            message: format!("{path}: {message}"),
            path,
        }
    }
}

/// The task `body` makes over `stored` (`None`: a new task).
pub fn task(
    body: TaskBody,
    stored: Option<&ScheduledTask>,
    place: &Place,
) -> Result<ScheduledTask, FieldError> {
    let name = body.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(place.refuse("name", format!("1 to {MAX_NAME_CHARS} characters")));
    }
    let timezone = body.timezone.unwrap_or_else(|| "UTC".into());
    let schedule =
        CronSchedule::parse(&body.cron, &timezone).map_err(|(field, e)| place.refuse(field, e))?;
    match schedule.min_interval_secs(place.now) {
        Some(gap) if gap < place.min_interval_secs as i64 => {
            return Err(place.refuse(
                "cron",
                format!(
                    "slots {gap} s apart; at least {} s (CONFER_SCHEDULE_MIN_INTERVAL_SECS)",
                    place.min_interval_secs
                ),
            ));
        }
        _ => {}
    }
    let catch_up_max = body.catch_up_max.unwrap_or(DEFAULT_CATCH_UP);
    if !(1..=MAX_CATCH_UP).contains(&catch_up_max) {
        return Err(place.refuse("catchUpMax", format!("1 to {MAX_CATCH_UP}")));
    }
    if let Some(grace) = body.grace_secs
        && !(5..=3_600).contains(&grace)
    {
        return Err(place.refuse("graceSecs", "5 to 3600"));
    }
    let action = match body.action {
        ActionBody::Message { thread_id, content } => {
            if content.trim().is_empty() || content.len() > MAX_CONTENT_BYTES {
                return Err(place.refuse("action.content", "1 byte to 32 KiB"));
            }
            TaskAction::Message { thread_id, content }
        }
        ActionBody::Run { runner_id, input } => TaskAction::Run {
            runner_id,
            input: input.unwrap_or_else(|| Value::Object(Default::default())),
        },
    };
    let enabled = body.enabled.unwrap_or(true);
    let timing_changed = stored
        .is_none_or(|s| s.cron != body.cron || s.timezone != timezone || s.enabled != enabled);
    let next_fire_at = match stored {
        Some(s) if !timing_changed => s.next_fire_at,
        _ if enabled => schedule.next_after(place.now),
        _ => None,
    };
    Ok(ScheduledTask {
        id: stored.map_or_else(ScheduleId::new, |s| s.id),
        org_id: place.org,
        agent_id: place.agent,
        name,
        cron: body.cron,
        timezone,
        enabled,
        action,
        missed: body.missed.unwrap_or_default(),
        catch_up_max,
        grace_secs: body.grace_secs,
        overlap: body.overlap.unwrap_or_default(),
        next_fire_at,
        recent: stored.map(|s| s.recent.clone()).unwrap_or_default(),
        created_at: stored.map_or(place.now, |s| s.created_at),
        updated_at: place.now,
        version: stored.map_or(0, |s| s.version + 1),
        last_run: stored.and_then(|s| s.last_run),
        runner_trigger: stored.and_then(|s| s.runner_trigger),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn place(index: usize) -> Place {
        Place {
            org: OrgId::new(),
            agent: AgentId::new(),
            index: Some(index),
            now: Utc::now(),
            min_interval_secs: 60,
        }
    }

    fn body(value: Value) -> TaskBody {
        serde_json::from_value(value).unwrap()
    }

    fn message(cron: &str) -> Value {
        json!({"name": "daily", "cron": cron,
               "action": {"kind": "message", "threadId": ThreadId::new(), "content": "hi"}})
    }

    /// A stored hourly task (for other modules' tests).
    pub(crate) fn task() -> ScheduledTask {
        super::task(body(message("0 * * * *")), None, &place(0)).unwrap()
    }

    #[test]
    fn a_new_task_gets_the_defaults_and_its_next_slot() {
        let place = place(0);
        let made = super::task(body(message("0 * * * *")), None, &place).unwrap();
        assert_eq!(made.timezone, "UTC");
        assert!(made.enabled);
        assert_eq!(
            (made.missed, made.overlap, made.catch_up_max),
            (Missed::Skip, Overlap::Skip, 10)
        );
        let next = made.next_fire_at.unwrap();
        assert!(next > place.now && (next - place.now).num_seconds() <= 3_600);
    }

    #[test]
    fn each_bad_field_is_named_with_its_item() {
        let cases = [
            (json!({"cron": "*/30 * * * * *"}), "tasks[3].cron"),
            (json!({"cron": "0 * * *"}), "tasks[3].cron"),
            (json!({"timezone": "Nowhere/Else"}), "tasks[3].timezone"),
            (json!({"name": " "}), "tasks[3].name"),
            (json!({"catchUpMax": 101}), "tasks[3].catchUpMax"),
            (json!({"graceSecs": 4}), "tasks[3].graceSecs"),
            (
                json!({"action": {"kind": "message", "threadId": ThreadId::new(), "content": ""}}),
                "tasks[3].action.content",
            ),
        ];
        for (change, path) in cases {
            let mut value = message("0 * * * *");
            for (k, v) in change.as_object().unwrap() {
                value[k] = v.clone();
            }
            let refused = super::task(body(value), None, &place(3)).unwrap_err();
            assert_eq!(refused.path, path, "{change}");
        }
    }

    #[test]
    fn the_minimum_interval_is_a_setting() {
        let mut place = place(0);
        place.min_interval_secs = 1;
        assert!(super::task(body(message("* * * * * *")), None, &place).is_ok());
    }

    #[test]
    fn an_update_keeps_the_next_slot_unless_the_timing_changed() {
        let place = place(0);
        let mut stored = super::task(body(message("0 * * * *")), None, &place).unwrap();
        stored.next_fire_at = Some(place.now - chrono::Duration::seconds(5));
        let mut renamed = message("0 * * * *");
        renamed["name"] = json!("renamed");
        let kept = super::task(body(renamed), Some(&stored), &place).unwrap();
        assert_eq!(
            (kept.id, kept.next_fire_at),
            (stored.id, stored.next_fire_at)
        );
        assert_eq!(kept.version, stored.version + 1);
        let disabled = {
            let mut v = message("0 * * * *");
            v["enabled"] = json!(false);
            super::task(body(v), Some(&stored), &place).unwrap()
        };
        assert_eq!(disabled.next_fire_at, None);
        let moved = super::task(body(message("30 * * * *")), Some(&stored), &place).unwrap();
        assert!(moved.next_fire_at.unwrap() > place.now);
    }
}
