//! Where a todo sits among its siblings: positions stay 0.. in order, so
//! placing a todo shifts the siblings after it and leaving closes the gap.

use chrono::{DateTime, Utc};
use confer_actors::TodoId;

use super::Plan;
use super::graph::sort;
use super::rules::touch;

/// Gives `parent`'s children positions 0.. in their order, bumping those
/// that moved.
pub fn renumber(plan: &mut Plan, parent: Option<TodoId>, now: DateTime<Utc>) {
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
pub fn place(
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
