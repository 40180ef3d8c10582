//! A plan's graphs: the dependency DAG (cycles refused with the cycle
//! named, readiness) and the parent tree that sets the plan's order.

use std::collections::{HashMap, HashSet};

use confer_actors::TodoId;

use super::{Plan, Todo};

/// A dependency cycle, if the todos have one: the ids in order, the first
/// repeated at the end (`a → b → c → a`, each depending on the next).
/// `first` are searched from first, so that when only their edges are new
/// the cycle is named from the todo whose edge closed it.
pub fn find_cycle(todos: &[Todo], first: &[TodoId]) -> Option<Vec<TodoId>> {
    let edges: HashMap<TodoId, &[TodoId]> = todos
        .iter()
        .map(|t| (t.id, t.depends_on.as_slice()))
        .collect();
    let mut done: HashSet<TodoId> = HashSet::new();
    let starts = first.iter().copied().chain(todos.iter().map(|t| t.id));
    for start in starts {
        if done.contains(&start) {
            continue;
        }
        // Iterative depth-first search; `path` is the gray stack.
        let mut path: Vec<TodoId> = vec![start];
        let mut next: Vec<usize> = vec![0];
        while let (Some(&node), Some(at)) = (path.last(), next.last_mut()) {
            let out = edges.get(&node).copied().unwrap_or_default();
            let Some(&to) = out.get(*at) else {
                done.insert(node);
                path.pop();
                next.pop();
                continue;
            };
            *at += 1;
            if let Some(from) = path.iter().position(|&p| p == to) {
                let mut cycle = path[from..].to_vec();
                cycle.push(to);
                return Some(cycle);
            }
            if !done.contains(&to) && edges.contains_key(&to) {
                path.push(to);
                next.push(0);
            }
        }
    }
    None
}

/// The detail of a refused cycle: `dependsOn: cycle a → b → a`.
pub fn cycle_detail(cycle: &[TodoId]) -> String {
    let named: Vec<String> = cycle.iter().map(ToString::to_string).collect();
    format!("dependsOn: cycle {}", named.join(" → "))
}

/// Whether `todo` can be done next: pending, and every todo it depends on
/// done or skipped.
pub fn is_ready(plan: &Plan, todo: &Todo) -> bool {
    todo.status == super::TodoStatus::Pending
        && todo
            .depends_on
            .iter()
            .all(|dep| plan.todo(*dep).is_none_or(|d| d.status.is_finished()))
}

/// The plan's ready todos, in plan order.
pub fn ready(plan: &Plan) -> Vec<Todo> {
    plan.todos
        .iter()
        .filter(|t| is_ready(plan, t))
        .cloned()
        .collect()
}

/// The todos `id` depends on and the todos that depend on it, in plan order.
pub fn neighbours(plan: &Plan, id: TodoId) -> (Vec<Todo>, Vec<Todo>) {
    let Some(todo) = plan.todo(id) else {
        return (Vec::new(), Vec::new());
    };
    let depends_on = plan
        .todos
        .iter()
        .filter(|t| todo.depends_on.contains(&t.id))
        .cloned()
        .collect();
    let dependents = plan
        .todos
        .iter()
        .filter(|t| t.depends_on.contains(&id))
        .cloned()
        .collect();
    (depends_on, dependents)
}

/// Whether making `parent` the parent of `child` would put `child` above
/// itself.
pub fn parent_loop(todos: &[Todo], child: TodoId, parent: TodoId) -> bool {
    let parents: HashMap<TodoId, Option<TodoId>> =
        todos.iter().map(|t| (t.id, t.parent_id)).collect();
    let mut at = Some(parent);
    let mut steps = 0;
    while let Some(node) = at {
        if node == child || steps > todos.len() {
            return true;
        }
        at = parents.get(&node).copied().flatten();
        steps += 1;
    }
    false
}

/// Puts the todos in plan order: depth-first from the top level, siblings
/// by position (then creation), a todo whose parent is missing at the top.
pub fn sort(todos: &mut Vec<Todo>) {
    let ids: HashSet<TodoId> = todos.iter().map(|t| t.id).collect();
    let mut children: HashMap<Option<TodoId>, Vec<Todo>> = HashMap::new();
    for todo in todos.drain(..) {
        let parent = todo.parent_id.filter(|p| ids.contains(p));
        children.entry(parent).or_default().push(todo);
    }
    for siblings in children.values_mut() {
        siblings.sort_by_key(|t| (t.position, t.created_at, t.id));
    }
    let mut stack: Vec<Todo> = children.remove(&None).unwrap_or_default();
    stack.reverse();
    while let Some(todo) = stack.pop() {
        if let Some(mut kids) = children.remove(&Some(todo.id)) {
            kids.reverse();
            stack.extend(kids);
        }
        todos.push(todo);
    }
    // Only a parent loop (refused on every change) could leave some behind.
    for (_, rest) in children.drain() {
        todos.extend(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::{PlanStatus, TodoStatus};
    use chrono::Utc;
    use confer_actors::{OrgId, PlanId, ThreadId};

    fn todo(plan: PlanId, deps: &[TodoId]) -> Todo {
        let now = Utc::now();
        Todo {
            id: TodoId::new(),
            plan_id: plan,
            content: "x".into(),
            status: TodoStatus::Pending,
            parent_id: None,
            position: 0,
            depends_on: deps.to_vec(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    fn plan(todos: Vec<Todo>) -> Plan {
        let now = Utc::now();
        Plan {
            id: todos[0].plan_id,
            org_id: OrgId::new(),
            thread_id: ThreadId::new(),
            title: "t".into(),
            description: String::new(),
            status: PlanStatus::InProgress,
            todos,
            created_by: "u".into(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[test]
    fn a_cycle_is_named_from_the_todo_that_closed_it() {
        let p = PlanId::new();
        let a = todo(p, &[]);
        let b = todo(p, &[a.id]);
        let c = todo(p, &[b.id]);
        let mut todos = vec![a, b, c];
        assert_eq!(find_cycle(&todos, &[]), None);
        let (a, b, c) = (todos[0].id, todos[1].id, todos[2].id);
        todos[0].depends_on.push(c);
        assert_eq!(find_cycle(&todos, &[a]), Some(vec![a, c, b, a]));
        assert_eq!(
            cycle_detail(&[a, c, a]),
            format!("dependsOn: cycle {a} → {c} → {a}")
        );
    }

    #[test]
    fn a_self_edge_is_a_cycle() {
        let p = PlanId::new();
        let mut a = todo(p, &[]);
        a.depends_on.push(a.id);
        let id = a.id;
        assert_eq!(find_cycle(&[a], &[]), Some(vec![id, id]));
    }

    #[test]
    fn ready_follows_a_diamond_as_statuses_change() {
        let p = PlanId::new();
        let top = todo(p, &[]);
        let left = todo(p, &[top.id]);
        let right = todo(p, &[top.id]);
        let bottom = todo(p, &[left.id, right.id]);
        let ids = [top.id, left.id, right.id, bottom.id];
        let mut plan = plan(vec![top, left, right, bottom]);
        let ready_ids = |plan: &Plan| ready(plan).iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(ready_ids(&plan), [ids[0]]);
        plan.todos[0].status = TodoStatus::Done;
        assert_eq!(ready_ids(&plan), [ids[1], ids[2]]);
        plan.todos[1].status = TodoStatus::Done;
        assert_eq!(ready_ids(&plan), [ids[2]]);
        plan.todos[2].status = TodoStatus::Skipped;
        assert_eq!(ready_ids(&plan), [ids[3]]);
        plan.todos[3].status = TodoStatus::InProgress;
        assert!(ready_ids(&plan).is_empty());
    }

    #[test]
    fn plan_order_is_depth_first_by_position() {
        let p = PlanId::new();
        let mut first = todo(p, &[]);
        let mut second = todo(p, &[]);
        let mut child_b = todo(p, &[]);
        let mut child_a = todo(p, &[]);
        first.position = 1;
        second.position = 0;
        child_b.parent_id = Some(second.id);
        child_b.position = 1;
        child_a.parent_id = Some(second.id);
        child_a.position = 0;
        let order = [second.id, child_a.id, child_b.id, first.id];
        let mut todos = vec![first, child_b, second, child_a];
        sort(&mut todos);
        assert_eq!(todos.iter().map(|t| t.id).collect::<Vec<_>>(), order);
        assert!(parent_loop(&todos, order[0], order[1]));
        assert!(!parent_loop(&todos, order[1], order[3]));
    }
}
