//! Every change to a plan, as a function over the plan (re-runnable: the
//! store calls it again when a concurrent write won the swap). Each checks
//! its input and refuses with the field named; the caller drops the plan a
//! refused change was given, so nothing of it is stored. Each bumps the version of what it changed (a todo change
//! also bumps its plan) and applies the automatic status changes of
//! `plans.md`, decided here only.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, PlanId, ThreadId, TodoId};

use super::graph::{cycle_detail, find_cycle, parent_loop, sort};
use super::{
    MAX_CONTENT, MAX_DESCRIPTION, MAX_TITLE, MAX_TODOS, Plan, PlanError, PlanStatus, Todo,
    TodoStatus,
};

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

fn check_title(title: &str) -> Result<(), PlanError> {
    let chars = title.chars().count();
    if title.trim().is_empty() || chars > MAX_TITLE {
        return Err(PlanError::invalid(
            "title",
            format!("must be 1 to {MAX_TITLE} characters, not blank"),
        ));
    }
    Ok(())
}

fn check_description(description: &str) -> Result<(), PlanError> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(PlanError::invalid(
            "description",
            format!("must be at most {MAX_DESCRIPTION} characters"),
        ));
    }
    Ok(())
}

fn check_content(field: &str, content: &str) -> Result<(), PlanError> {
    if content.trim().is_empty() || content.chars().count() > MAX_CONTENT {
        return Err(PlanError::invalid(
            field,
            format!("must be 1 to {MAX_CONTENT} characters, not blank"),
        ));
    }
    Ok(())
}

fn check_room(plan: &Plan, adding: usize) -> Result<(), PlanError> {
    if plan.todos.len() + adding > MAX_TODOS {
        return Err(PlanError::invalid(
            "todos",
            format!("a plan holds at most {MAX_TODOS} todos"),
        ));
    }
    Ok(())
}

/// `If-Match` against the object's version; the current object when stale.
fn check_version<T: serde::Serialize>(
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

fn touch(version: &mut u64, updated_at: &mut DateTime<Utc>, now: DateTime<Utc>) {
    *version += 1;
    *updated_at = now;
}

/// What a todo change did, for the automatic status changes.
#[derive(Default)]
struct Moved {
    /// A todo was set to `in_progress`.
    started: bool,
    /// A todo was added, or set from done or skipped back to open.
    reopened: bool,
}

/// The automatic plan status changes of `plans.md`, after a todo change;
/// the plan's version is bumped by the todo change itself.
fn settle(plan: &mut Plan, moved: Moved) {
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

/// Gives `parent`'s children positions 0.. in their order, bumping those
/// that moved.
fn renumber(plan: &mut Plan, parent: Option<TodoId>, now: DateTime<Utc>) {
    sort(&mut plan.todos);
    let siblings = plan.todos.iter_mut().filter(|t| t.parent_id == parent);
    for (next, todo) in (0u32..).zip(siblings) {
        if todo.position != next {
            todo.position = next;
            touch(&mut todo.version, &mut todo.updated_at, now);
        }
    }
}

/// Puts `id` among `parent`'s children at `position` (last when absent or
/// past the end); positions of both sibling lists stay 0.. in order.
fn place(
    plan: &mut Plan,
    id: TodoId,
    parent: Option<TodoId>,
    position: Option<u32>,
    now: DateTime<Utc>,
) {
    let old_parent = plan.todo(id).and_then(|t| t.parent_id);
    let siblings: Vec<TodoId> = plan
        .todos
        .iter()
        .filter(|t| t.parent_id == parent && t.id != id)
        .map(|t| t.id)
        .collect();
    let at = position.map_or(siblings.len(), |p| (p as usize).min(siblings.len()));
    let mut order = siblings;
    order.insert(at, id);
    for todo in plan.todos.iter_mut() {
        if let Some(index) = order.iter().position(|o| *o == todo.id) {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            let moved = todo.parent_id != parent || todo.position != index;
            todo.parent_id = parent;
            // The placed todo is bumped by its own change.
            if moved && todo.id != id {
                touch(&mut todo.version, &mut todo.updated_at, now);
            }
            todo.position = index;
        }
    }
    if old_parent != parent {
        renumber(plan, old_parent, now);
    }
    sort(&mut plan.todos);
}

fn check_parent(plan: &Plan, child: Option<TodoId>, parent: TodoId) -> Result<(), PlanError> {
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

fn check_deps(plan: &Plan, todo: Option<TodoId>, deps: &[TodoId]) -> Result<(), PlanError> {
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

fn refuse_cycles(plan: &Plan, first: &[TodoId]) -> Result<(), PlanError> {
    match find_cycle(&plan.todos, first) {
        Some(cycle) => Err(PlanError::Invalid(cycle_detail(&cycle))),
        None => Ok(()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn new_plan(todos: Vec<InlineTodo>) -> Result<Plan, PlanError> {
        create(
            OrgId::new(),
            ThreadId::new(),
            NewPlan {
                title: "Ship it".into(),
                description: None,
                status: PlanStatus::InProgress,
                todos,
                created_by: "u".into(),
            },
            Utc::now(),
        )
    }

    fn inline(content: &str, deps: &[usize]) -> InlineTodo {
        InlineTodo {
            content: content.into(),
            status: None,
            depends_on: deps.to_vec(),
        }
    }

    #[test]
    fn inline_dependencies_are_indexes_checked_for_range_and_cycles() {
        let plan = new_plan(vec![inline("a", &[]), inline("b", &[0])]).unwrap();
        assert_eq!(plan.todos[1].depends_on, [plan.todos[0].id]);
        let out = new_plan(vec![inline("a", &[3])]).unwrap_err();
        assert_eq!(
            out,
            PlanError::Invalid("todos[0].dependsOn: index 3 is out of range".into())
        );
        let PlanError::Invalid(detail) =
            new_plan(vec![inline("a", &[1]), inline("b", &[0])]).unwrap_err()
        else {
            panic!("a cycle is invalid")
        };
        assert!(detail.starts_with("dependsOn: cycle "), "{detail}");
    }

    #[test]
    fn statuses_move_the_plan_as_plans_md_says() {
        let mut plan = new_plan(vec![inline("a", &[]), inline("b", &[])]).unwrap();
        plan.status = PlanStatus::Approved;
        let (a, b) = (plan.todos[0].id, plan.todos[1].id);
        let set = |status| TodoChange {
            status: Some(status),
            ..TodoChange::default()
        };
        update_todo(&mut plan, a, &set(TodoStatus::InProgress), None, Utc::now()).unwrap();
        assert_eq!(plan.status, PlanStatus::InProgress);
        update_todo(&mut plan, a, &set(TodoStatus::Done), None, Utc::now()).unwrap();
        update_todo(&mut plan, b, &set(TodoStatus::Skipped), None, Utc::now()).unwrap();
        assert_eq!(plan.status, PlanStatus::Done);
        update_todo(&mut plan, b, &set(TodoStatus::Pending), None, Utc::now()).unwrap();
        assert_eq!(plan.status, PlanStatus::InProgress, "reopened");
        update_todo(&mut plan, b, &set(TodoStatus::Done), None, Utc::now()).unwrap();
        let added = NewTodo {
            content: "c".into(),
            ..NewTodo::default()
        };
        add_todos(&mut plan, &[added], false, Utc::now()).unwrap();
        assert_eq!(plan.status, PlanStatus::InProgress, "a todo added");
        plan.status = PlanStatus::Draft;
        let last = plan.todos[2].id;
        update_todo(&mut plan, last, &set(TodoStatus::Done), None, Utc::now()).unwrap();
        assert_eq!(
            plan.status,
            PlanStatus::Draft,
            "a draft never moves by itself"
        );
    }

    #[test]
    fn versions_grow_and_if_match_is_checked() {
        let mut plan = new_plan(vec![inline("a", &[])]).unwrap();
        let a = plan.todos[0].id;
        assert_eq!((plan.version, plan.todos[0].version), (1, 1));
        let change = TodoChange {
            content: Some("A".into()),
            ..TodoChange::default()
        };
        update_todo(&mut plan, a, &change, Some(1), Utc::now()).unwrap();
        assert_eq!((plan.version, plan.todos[0].version), (2, 2));
        let stale = update_todo(&mut plan, a, &change, Some(1), Utc::now()).unwrap_err();
        let PlanError::Stale(current) = stale else {
            panic!("stale")
        };
        assert_eq!(current["version"], 2);
        assert_eq!(current["content"], "A");
    }

    #[test]
    fn a_deleted_todo_takes_its_edges_and_frees_its_children() {
        let mut plan = new_plan(vec![inline("a", &[]), inline("b", &[0])]).unwrap();
        let (a, b) = (plan.todos[0].id, plan.todos[1].id);
        let child = NewTodo {
            content: "a.1".into(),
            parent_id: Some(a),
            ..NewTodo::default()
        };
        let ids = [child.id];
        add_todos(&mut plan, &[child], false, Utc::now()).unwrap();
        let order: Vec<TodoId> = plan.todos.iter().map(|t| t.id).collect();
        assert_eq!(order, [a, ids[0], b], "children follow their parent");
        delete_todo(&mut plan, a, None, Utc::now()).unwrap();
        assert!(plan.todo(b).unwrap().depends_on.is_empty());
        let freed = plan.todo(ids[0]).unwrap();
        assert_eq!(freed.parent_id, None);
        let positions: Vec<u32> = plan.todos.iter().map(|t| t.position).collect();
        assert_eq!(positions, [0, 1]);
    }

    #[test]
    fn a_nesting_loop_and_foreign_ids_are_refused() {
        let mut plan = new_plan(vec![inline("a", &[]), inline("b", &[])]).unwrap();
        let (a, b) = (plan.todos[0].id, plan.todos[1].id);
        let under = |parent| TodoChange {
            parent_id: Some(Some(parent)),
            ..TodoChange::default()
        };
        update_todo(&mut plan, b, &under(a), None, Utc::now()).unwrap();
        let looped = update_todo(&mut plan, a, &under(b), None, Utc::now()).unwrap_err();
        assert!(matches!(looped, PlanError::Invalid(d) if d.starts_with("parentId:")));
        let foreign = add_deps(&mut plan, a, &[TodoId::new()], Utc::now()).unwrap_err();
        assert!(matches!(foreign, PlanError::Invalid(d) if d.starts_with("dependsOn:")));
        let own = add_deps(&mut plan, a, &[a], Utc::now()).unwrap_err();
        assert!(matches!(own, PlanError::Invalid(d) if d.contains("itself")));
    }
}
