//! The edits of a plan, as `plans.md` states their effects.

use chrono::Utc;
use confer_actors::{OrgId, ThreadId, TodoId};

use super::edit::*;
use super::{Plan, PlanError, PlanStatus, TodoStatus};

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
