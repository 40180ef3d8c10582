//! What the model is told of the plan tools: their names, definitions
//! (JSON Schema) and the arguments each takes.

use confer_actors::{PlanId, TodoId, ToolDefinition};
use serde::Deserialize;
use serde_json::json;

use crate::plans::{PlanStatus, TodoStatus};

/// Makes a plan of the turn's thread.
pub const PLAN_CREATE: &str = "plan_create";
/// Changes a plan's title, description or status.
pub const PLAN_UPDATE: &str = "plan_update";
/// Adds todos to a plan.
pub const TODO_ADD: &str = "todo_add";
/// Changes a todo's status or content.
pub const TODO_UPDATE: &str = "todo_update";

/// Whether `name` is one of the plan tools.
pub fn is_plan_tool(name: &str) -> bool {
    [PLAN_CREATE, PLAN_UPDATE, TODO_ADD, TODO_UPDATE].contains(&name)
}

/// The four tools' definitions, by name.
pub fn definitions() -> Vec<ToolDefinition> {
    let plan_id =
        json!({"type": "string", "description": "The plan's id; the current plan when left out"});
    let statuses = json!({"type": "string", "enum": ["draft", "in_progress", "done", "cancelled"]});
    vec![
        ToolDefinition {
            name: PLAN_CREATE.into(),
            description: Some(
                "Create a plan for this conversation: a title and the todos to do, each \
                 optionally after others (dependsOn: indexes in this list)."
                    .into(),
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "todos": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string"},
                            "dependsOn": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                        },
                        "required": ["content"],
                    }},
                },
                "required": ["title", "todos"],
            }),
        },
        ToolDefinition {
            name: PLAN_UPDATE.into(),
            description: Some("Change a plan's title, description or status.".into()),
            parameters: json!({
                "type": "object",
                "properties": {
                    "planId": plan_id,
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "status": statuses,
                },
            }),
        },
        ToolDefinition {
            name: TODO_ADD.into(),
            description: Some(
                "Add todos to a plan, optionally nested under a todo (parentId) or after \
                 others (dependsOn: todo ids)."
                    .into(),
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "planId": plan_id,
                    "todos": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string"},
                            "parentId": {"type": "string"},
                            "dependsOn": {"type": "array", "items": {"type": "string"}},
                        },
                        "required": ["content"],
                    }},
                },
                "required": ["todos"],
            }),
        },
        ToolDefinition {
            name: TODO_UPDATE.into(),
            description: Some("Change a todo's status or content.".into()),
            parameters: json!({
                "type": "object",
                "properties": {
                    "planId": plan_id,
                    "todoId": {"type": "string"},
                    "status": {"type": "string", "enum": ["pending", "in_progress", "done", "skipped"]},
                    "content": {"type": "string"},
                },
                "required": ["todoId"],
            }),
        },
    ]
}

/// `plan_create`'s arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CreateArgs {
    pub(super) title: String,
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) todos: Vec<CreateTodoArgs>,
}

/// A todo of `plan_create` (`dependsOn`: indexes in its list).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CreateTodoArgs {
    pub(super) content: String,
    #[serde(default)]
    pub(super) depends_on: Vec<usize>,
}

/// `plan_update`'s arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UpdatePlanArgs {
    pub(super) plan_id: Option<PlanId>,
    pub(super) title: Option<String>,
    pub(super) description: Option<String>,
    pub(super) status: Option<PlanStatus>,
}

/// `todo_add`'s arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AddArgs {
    pub(super) plan_id: Option<PlanId>,
    pub(super) todos: Vec<AddTodoArgs>,
}

/// A todo of `todo_add`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AddTodoArgs {
    pub(super) content: String,
    pub(super) parent_id: Option<TodoId>,
    #[serde(default)]
    pub(super) depends_on: Vec<TodoId>,
}

/// `todo_update`'s arguments.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UpdateTodoArgs {
    pub(super) plan_id: Option<PlanId>,
    pub(super) todo_id: TodoId,
    pub(super) status: Option<TodoStatus>,
    pub(super) content: Option<String>,
}
