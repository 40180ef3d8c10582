//! The rules every change to a plan checks (lengths, limits, ids of the
//! plan, nesting, cycles, `If-Match`) and the automatic plan status
//! changes of `plans.md`, decided here only.

use chrono::{DateTime, Utc};
use confer_actors::TodoId;

use super::graph::{cycle_detail, find_cycle, parent_loop};
use super::{MAX_CONTENT, MAX_DESCRIPTION, MAX_TITLE, MAX_TODOS, Plan, PlanError, PlanStatus};

/// A title: 1 to [`MAX_TITLE`] characters, not blank.
pub fn check_title(title: &str) -> Result<(), PlanError> {
    let chars = title.chars().count();
    if title.trim().is_empty() || chars > MAX_TITLE {
        return Err(PlanError::invalid(
            "title",
            format!("must be 1 to {MAX_TITLE} characters, not blank"),
        ));
    }
    Ok(())
}

/// A description: at most [`MAX_DESCRIPTION`] characters.
pub fn check_description(description: &str) -> Result<(), PlanError> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(PlanError::invalid(
            "description",
            format!("must be at most {MAX_DESCRIPTION} characters"),
        ));
    }
    Ok(())
}

/// A todo's content, named `field`: 1 to [`MAX_CONTENT`] characters, not blank.
pub fn check_content(field: &str, content: &str) -> Result<(), PlanError> {
    if content.trim().is_empty() || content.chars().count() > MAX_CONTENT {
        return Err(PlanError::invalid(
            field,
            format!("must be 1 to {MAX_CONTENT} characters, not blank"),
        ));
    }
    Ok(())
}

/// Room for `adding` more todos under [`MAX_TODOS`].
pub fn check_room(plan: &Plan, adding: usize) -> Result<(), PlanError> {
    if plan.todos.len() + adding > MAX_TODOS {
        return Err(PlanError::invalid(
            "todos",
            format!("a plan holds at most {MAX_TODOS} todos"),
        ));
    }
    Ok(())
}

/// `If-Match` against the object's version; the current object when stale.
pub fn check_version<T: serde::Serialize>(
    object: &T,
    version: u64,
    expect: Option<u64>,
) -> Result<(), PlanError> {
    match expect {
        Some(expected) if expected != version => Err(PlanError::Stale(
            serde_json::to_value(object).unwrap_or_default(),
        )),
        _ => Ok(()),
    }
}

/// Bumps an object's version and its `updated_at`.
pub fn touch(version: &mut u64, updated_at: &mut DateTime<Utc>, now: DateTime<Utc>) {
    *version += 1;
    *updated_at = now;
}

/// What a todo change did, for the automatic status changes.
#[derive(Default)]
pub struct Moved {
    /// A todo was set to `in_progress`.
    pub started: bool,
    /// A todo was added, or set from done or skipped back to open.
    pub reopened: bool,
}

/// The automatic plan status changes of `plans.md`, after a todo change;
/// the plan's version is bumped by the todo change itself.
pub fn settle(plan: &mut Plan, moved: Moved) {
    if moved.reopened && plan.status == PlanStatus::Done {
        plan.status = PlanStatus::InProgress;
    }
    if moved.started && plan.status == PlanStatus::Approved {
        plan.status = PlanStatus::InProgress;
    }
    let all_finished = !plan.todos.is_empty() && plan.todos.iter().all(|t| t.status.is_finished());
    if all_finished && matches!(plan.status, PlanStatus::Approved | PlanStatus::InProgress) {
        plan.status = PlanStatus::Done;
    }
}

/// `parent` is a todo of the plan, and nesting `child` under it makes no loop.
pub fn check_parent(plan: &Plan, child: Option<TodoId>, parent: TodoId) -> Result<(), PlanError> {
    if plan.todo(parent).is_none() {
        return Err(PlanError::invalid(
            "parentId",
            format!("`{parent}` is not a todo of this plan"),
        ));
    }
    if child.is_some_and(|child| parent_loop(&plan.todos, child, parent)) {
        return Err(PlanError::invalid(
            "parentId",
            "a todo cannot be nested under itself or its own children",
        ));
    }
    Ok(())
}

/// Each of `deps` is another todo of the plan than `todo`.
pub fn check_deps(plan: &Plan, todo: Option<TodoId>, deps: &[TodoId]) -> Result<(), PlanError> {
    for dep in deps {
        if Some(*dep) == todo {
            return Err(PlanError::invalid(
                "dependsOn",
                "a todo cannot depend on itself",
            ));
        }
        if plan.todo(*dep).is_none() {
            return Err(PlanError::invalid(
                "dependsOn",
                format!("`{dep}` is not a todo of this plan"),
            ));
        }
    }
    Ok(())
}

/// 422 naming the cycle, if the dependencies have one (searched from `first`).
pub fn refuse_cycles(plan: &Plan, first: &[TodoId]) -> Result<(), PlanError> {
    match find_cycle(&plan.todos, first) {
        Some(cycle) => Err(PlanError::Invalid(cycle_detail(&cycle))),
        None => Ok(()),
    }
}
