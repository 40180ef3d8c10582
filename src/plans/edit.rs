//! Every change to a plan, as a function over the plan (re-runnable: the
//! store calls it again when a concurrent write won the swap). Each checks
//! its input (`rules`) and refuses with the field named; the caller drops
//! the plan a refused change was given, so nothing of it is stored. Each
//! bumps the version of what it changed (a todo change also bumps its
//! plan) and applies the automatic status changes (`rules::settle`).

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, PlanId, ThreadId, TodoId};

use super::positions::{place, renumber};
use super::rules::{
    Moved, check_content, check_deps, check_description, check_parent, check_room, check_title,
    check_version, refuse_cycles, settle, touch,
};
use super::{MAX_TODOS, Plan, PlanError, PlanStatus, Todo, TodoStatus};

/// A todo of a new plan; `depends_on` names earlier or later todos of the
/// same request by index.
#[derive(Clone, Debug, Default)]
pub struct InlineTodo {
    pub content: String,
    pub status: Option<TodoStatus>,
    pub depends_on: Vec<usize>,
}

/// A plan as a route or `plan_create` asks for it.
#[derive(Clone, Debug)]
pub struct NewPlan {
    pub title: String,
    pub description: Option<String>,
    pub status: PlanStatus,
    pub todos: Vec<InlineTodo>,
    pub created_by: String,
}

/// A todo added to a plan. Its id is made by the caller, so that a change
/// the store runs again after a lost swap adds the same todos.
#[derive(Clone, Debug, Default)]
pub struct NewTodo {
    pub id: TodoId,
    pub content: String,
    pub status: Option<TodoStatus>,
    pub parent_id: Option<TodoId>,
    pub position: Option<u32>,
    pub depends_on: Vec<TodoId>,
}

/// The fields a todo change sets (absent: unchanged; `parent_id:
/// Some(None)` moves it to the top level).
#[derive(Clone, Debug, Default)]
pub struct TodoChange {
    pub content: Option<String>,
    pub status: Option<TodoStatus>,
    pub parent_id: Option<Option<TodoId>>,
    pub position: Option<u32>,
}

/// The fields a plan change sets.
#[derive(Clone, Debug, Default)]
pub struct PlanChange {
    pub title: Option<String>,
    pub description: Option<String>,
    pub status: Option<PlanStatus>,
}

/// A new plan of `thread`, its inline todos at the top level in order.
pub fn create(
    org: OrgId,
    thread: ThreadId,
    new: NewPlan,
    now: DateTime<Utc>,
) -> Result<Plan, PlanError> {
    check_title(&new.title)?;
    let description = new.description.unwrap_or_default();
    check_description(&description)?;
    if new.todos.len() > MAX_TODOS {
        return Err(PlanError::invalid(
            "todos",
            format!("a plan holds at most {MAX_TODOS} todos"),
        ));
    }
    let id = PlanId::new();
    let ids: Vec<TodoId> = new.todos.iter().map(|_| TodoId::new()).collect();
    let mut todos = Vec::with_capacity(new.todos.len());
    for (at, inline) in new.todos.into_iter().enumerate() {
        check_content(&format!("todos[{at}].content"), &inline.content)?;
        let mut depends_on = Vec::new();
        for index in inline.depends_on {
            let field = format!("todos[{at}].dependsOn");
            let Some(dep) = ids.get(index) else {
                return Err(PlanError::invalid(
                    &field,
                    format!("index {index} is out of range"),
                ));
            };
            if index == at {
                return Err(PlanError::invalid(&field, "a todo cannot depend on itself"));
            }
            if !depends_on.contains(dep) {
                depends_on.push(*dep);
            }
        }
        todos.push(Todo {
            id: ids[at],
            plan_id: id,
            content: inline.content,
            status: inline.status.unwrap_or(TodoStatus::Pending),
            parent_id: None,
            position: u32::try_from(at).unwrap_or(u32::MAX),
            depends_on,
            created_at: now,
            updated_at: now,
            version: 1,
        });
    }
    let mut plan = Plan {
        id,
        org_id: org,
        thread_id: thread,
        title: new.title,
        description,
        status: new.status,
        todos,
        created_by: new.created_by,
        created_at: now,
        updated_at: now,
        version: 1,
    };
    refuse_cycles(&plan, &[])?;
    settle(&mut plan, Moved::default());
    Ok(plan)
}

/// Changes the plan's own fields.
pub fn update_plan(
    plan: &mut Plan,
    change: &PlanChange,
    expect: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    check_version(plan, plan.version, expect)?;
    if let Some(title) = &change.title {
        check_title(title)?;
        plan.title = title.clone();
    }
    if let Some(description) = &change.description {
        check_description(description)?;
        plan.description = description.clone();
    }
    if let Some(status) = change.status {
        plan.status = status;
    }
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}

/// Adds todos (each checked, all or none). With `batch`, details name a
/// todo's fields as `todos[i].field`.
pub fn add_todos(
    plan: &mut Plan,
    new: &[NewTodo],
    batch: bool,
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    check_room(plan, new.len())?;
    let mut moved = Moved::default();
    for (at, todo) in new.iter().enumerate() {
        let field = |name: &str| {
            if batch {
                format!("todos[{at}].{name}")
            } else {
                name.to_owned()
            }
        };
        check_content(&field("content"), &todo.content)?;
        if let Some(parent) = todo.parent_id {
            check_parent(plan, None, parent)
                .map_err(|_| PlanError::invalid(&field("parentId"), "not a todo of this plan"))?;
        }
        check_deps(plan, None, &todo.depends_on).map_err(|e| match e {
            PlanError::Invalid(detail) if batch => {
                PlanError::Invalid(format!("todos[{at}].{detail}"))
            }
            other => other,
        })?;
        let id = todo.id;
        if plan.todo(id).is_some() {
            return Err(PlanError::invalid(&field("id"), "already in the plan"));
        }
        let status = todo.status.unwrap_or(TodoStatus::Pending);
        moved.started |= status == TodoStatus::InProgress;
        moved.reopened = true;
        let mut depends_on = Vec::new();
        for dep in &todo.depends_on {
            if !depends_on.contains(dep) {
                depends_on.push(*dep);
            }
        }
        plan.todos.push(Todo {
            id,
            plan_id: plan.id,
            content: todo.content.clone(),
            status,
            parent_id: todo.parent_id,
            position: u32::MAX,
            depends_on,
            created_at: now,
            updated_at: now,
            version: 1,
        });
        place(plan, id, todo.parent_id, todo.position, now);
    }
    settle(plan, moved);
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}

fn todo_mut(plan: &mut Plan, id: TodoId) -> Result<&mut Todo, PlanError> {
    plan.todos
        .iter_mut()
        .find(|t| t.id == id)
        .ok_or(PlanError::TodoNotFound)
}

/// Changes a todo's content, status, parent or position.
pub fn update_todo(
    plan: &mut Plan,
    id: TodoId,
    change: &TodoChange,
    expect: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    let current = plan.todo(id).ok_or(PlanError::TodoNotFound)?;
    check_version(current, current.version, expect)?;
    if let Some(content) = &change.content {
        check_content("content", content)?;
    }
    if let Some(Some(parent)) = change.parent_id {
        check_parent(plan, Some(id), parent)?;
    }
    let todo = todo_mut(plan, id)?;
    let mut moved = Moved::default();
    if let Some(content) = &change.content {
        todo.content = content.clone();
    }
    if let Some(status) = change.status {
        moved.started = status == TodoStatus::InProgress && todo.status != status;
        moved.reopened = todo.status.is_finished() && !status.is_finished();
        todo.status = status;
    }
    let parent = change.parent_id.unwrap_or(todo.parent_id);
    touch(&mut todo.version, &mut todo.updated_at, now);
    if change.parent_id.is_some() || change.position.is_some() {
        place(plan, id, parent, change.position, now);
    }
    settle(plan, moved);
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}

/// Deletes a todo: its edges go, its children move to the top level.
pub fn delete_todo(
    plan: &mut Plan,
    id: TodoId,
    expect: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    let current = plan.todo(id).ok_or(PlanError::TodoNotFound)?;
    check_version(current, current.version, expect)?;
    let parent = current.parent_id;
    plan.todos.retain(|t| t.id != id);
    let children: Vec<TodoId> = plan
        .todos
        .iter()
        .filter(|t| t.parent_id == Some(id))
        .map(|t| t.id)
        .collect();
    for todo in plan.todos.iter_mut() {
        if todo.depends_on.contains(&id) {
            todo.depends_on.retain(|d| *d != id);
            touch(&mut todo.version, &mut todo.updated_at, now);
        }
    }
    for child in children {
        place(plan, child, None, None, now);
        if let Ok(todo) = todo_mut(plan, child) {
            touch(&mut todo.version, &mut todo.updated_at, now);
        }
    }
    renumber(plan, parent, now);
    settle(plan, Moved::default());
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}

/// Adds edges from `id` to `deps` (existing ones ignored); a cycle refused.
pub fn add_deps(
    plan: &mut Plan,
    id: TodoId,
    deps: &[TodoId],
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    plan.todo(id).ok_or(PlanError::TodoNotFound)?;
    check_deps(plan, Some(id), deps)?;
    let todo = todo_mut(plan, id)?;
    for dep in deps {
        if !todo.depends_on.contains(dep) {
            todo.depends_on.push(*dep);
        }
    }
    touch(&mut todo.version, &mut todo.updated_at, now);
    refuse_cycles(plan, &[id])?;
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}

/// Removes edges from `id` to `deps` (absent ones ignored).
pub fn remove_deps(
    plan: &mut Plan,
    id: TodoId,
    deps: &[TodoId],
    expect: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(), PlanError> {
    let current = plan.todo(id).ok_or(PlanError::TodoNotFound)?;
    check_version(current, current.version, expect)?;
    let todo = todo_mut(plan, id)?;
    todo.depends_on.retain(|d| !deps.contains(d));
    touch(&mut todo.version, &mut todo.updated_at, now);
    touch(&mut plan.version, &mut plan.updated_at, now);
    Ok(())
}
