//! `/api/plans/{id}/todos…`: a plan's todos and their dependencies
//! (`plans.md`). Each change is one compare-and-swap over the plan (via
//! `plans::change_plan`); a todo's PATCH and DELETE take `If-Match` on the
//! todo's version.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{PlanId, TodoId};
use serde::{Deserialize, Serialize};

use super::extract::{IfMatch, JsonBody, Patch};
use super::plans::{TodoList, change_plan, tagged};
use crate::auth::access::ThreadRight;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::plans::edit::{self, NewTodo, TodoChange};
use crate::plans::{Plan, PlanError, Todo, TodoStatus, graph};
use crate::state::AppState;

/// One todo to add.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodoInput {
    content: Option<String>,
    status: Option<TodoStatus>,
    #[schema(value_type = Option<uuid::Uuid>)]
    parent_id: Option<TodoId>,
    position: Option<i64>,
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>)]
    depends_on: Vec<TodoId>,
}

/// `POST /api/plans/{id}/todos` body: one todo's fields, or `{todos:
/// [...]}`. (Spelled out rather than flattened, so that a misspelled field
/// is still caught by the body rules.)
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddTodos {
    todos: Option<Vec<TodoInput>>,
    content: Option<String>,
    status: Option<TodoStatus>,
    #[schema(value_type = Option<uuid::Uuid>)]
    parent_id: Option<TodoId>,
    position: Option<i64>,
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>)]
    depends_on: Vec<TodoId>,
}

/// `PATCH /api/plans/{id}/todos/{todoId}` body: any of the fields
/// (`parentId: null` moves the todo to the top level).
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTodo {
    content: Option<String>,
    status: Option<TodoStatus>,
    #[serde(default)]
    #[schema(value_type = Option<uuid::Uuid>)]
    parent_id: Patch<TodoId>,
    position: Option<i64>,
}

/// The deps routes' body.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deps {
    #[schema(value_type = Vec<uuid::Uuid>)]
    depends_on: Vec<TodoId>,
}

/// A todo's edges both ways.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Neighbours {
    depends_on: Vec<Todo>,
    dependents: Vec<Todo>,
}

/// A position from the wire: an integer ≥ 0 (422 otherwise).
fn position(field: &str, value: Option<i64>) -> Result<Option<u32>, ApiError> {
    value
        .map(|v| {
            u32::try_from(v)
                .map_err(|_| ApiError::invalid(field, "must be an integer of at least 0"))
        })
        .transpose()
}

impl TodoInput {
    fn into_new(self, field: &str) -> Result<NewTodo, ApiError> {
        let content = self
            .content
            .ok_or_else(|| ApiError::BadRequest(format!("{field}content: required")))?;
        Ok(NewTodo {
            id: TodoId::new(),
            content,
            status: self.status,
            parent_id: self.parent_id,
            position: position(&format!("{field}position"), self.position)?,
            depends_on: self.depends_on,
        })
    }
}

/// The todo `id` of a stored plan (it was checked by the change).
fn todo_of(plan: &Plan, id: TodoId) -> Result<Todo, ApiError> {
    plan.todo(id)
        .cloned()
        .ok_or_else(|| ApiError::not_found("todo"))
}

/// `POST /api/plans/{id}/todos`
#[utoipa::path(post, path = "/api/plans/{plan_id}/todos", tag = "plans", operation_id = "todos_add", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id")), request_body = AddTodos, responses((status = 201, description = "The todo, or `{todos}` for a list", body = Todo)))]
pub async fn add(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<PlanId>,
    body: JsonBody<AddTodos>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let batch = body.todos.is_some();
    let new: Vec<NewTodo> = match body.todos {
        Some(list) => list
            .into_iter()
            .enumerate()
            .map(|(at, todo)| todo.into_new(&format!("todos[{at}].")))
            .collect::<Result<_, _>>()?,
        None => vec![
            TodoInput {
                content: body.content,
                status: body.status,
                parent_id: body.parent_id,
                position: body.position,
                depends_on: body.depends_on,
            }
            .into_new("")?,
        ],
    };
    let ids: Vec<TodoId> = new.iter().map(|t| t.id).collect();
    let plan = change_plan(&state, &caller, path.into_inner(), move |mut plan| {
        edit::add_todos(&mut plan, &new, batch, Utc::now())?;
        Ok(plan)
    })
    .await?;
    let todos = ids
        .iter()
        .map(|id| todo_of(&plan, *id))
        .collect::<Result<Vec<_>, _>>()?;
    match (batch, todos.first()) {
        (false, Some(todo)) => Ok(tagged(StatusCode::CREATED, todo, todo.version)),
        _ => Ok(HttpResponse::Created().json(TodoList { todos })),
    }
}

/// `PATCH /api/plans/{id}/todos/{todoId}`
#[utoipa::path(patch, path = "/api/plans/{plan_id}/todos/{todo_id}", tag = "plans", operation_id = "todos_update", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("todo_id" = uuid::Uuid, Path, description = "The todo's id"), ("If-Match" = Option<String>, Header, description = "The todo's version last seen (`\"3\"`); another one is 412")), request_body = UpdateTodo, responses((status = 200, description = "The updated todo", body = Todo), (status = 412, description = "`PRECONDITION_FAILED`: the todo changed; `current` is the todo now", body = crate::error::StaleBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(PlanId, TodoId)>,
    if_match: IfMatch,
    body: JsonBody<UpdateTodo>,
) -> Result<HttpResponse, ApiError> {
    let (plan, todo) = path.into_inner();
    let body = body.into_inner();
    let change = TodoChange {
        content: body.content,
        status: body.status,
        parent_id: body.parent_id.into_change(),
        position: position("position", body.position)?,
    };
    let plan = change_plan(&state, &caller, plan, move |mut plan| {
        edit::update_todo(&mut plan, todo, &change, if_match.0, Utc::now())?;
        Ok(plan)
    })
    .await?;
    let todo = todo_of(&plan, todo)?;
    Ok(tagged(StatusCode::OK, &todo, todo.version))
}

/// `DELETE /api/plans/{id}/todos/{todoId}`: its edges go, its children
/// move to the top level.
#[utoipa::path(delete, path = "/api/plans/{plan_id}/todos/{todo_id}", tag = "plans", operation_id = "todos_delete", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("todo_id" = uuid::Uuid, Path, description = "The todo's id"), ("If-Match" = Option<String>, Header, description = "The todo's version last seen (`\"3\"`); another one is 412")), responses((status = 200, description = "Deleted", body = super::Ok), (status = 412, description = "`PRECONDITION_FAILED`: the todo changed; `current` is the todo now", body = crate::error::StaleBody<'static>)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(PlanId, TodoId)>,
    if_match: IfMatch,
) -> Result<HttpResponse, ApiError> {
    let (plan, todo) = path.into_inner();
    change_plan(&state, &caller, plan, move |mut plan| {
        edit::delete_todo(&mut plan, todo, if_match.0, Utc::now())?;
        Ok(plan)
    })
    .await?;
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `GET /api/plans/{id}/todos/{todoId}/deps`
#[utoipa::path(get, path = "/api/plans/{plan_id}/todos/{todo_id}/deps", tag = "plans", operation_id = "todos_deps", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("todo_id" = uuid::Uuid, Path, description = "The todo's id")), responses((status = 200, description = "What the todo depends on and what depends on it", body = Neighbours)))]
pub async fn deps(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(PlanId, TodoId)>,
) -> Result<HttpResponse, ApiError> {
    let (plan, todo) = path.into_inner();
    let plan = access::plan(&state, &caller, plan, ThreadRight::Read).await?;
    todo_of(&plan, todo)?;
    let (depends_on, dependents) = graph::neighbours(&plan, todo);
    Ok(HttpResponse::Ok().json(Neighbours {
        depends_on,
        dependents,
    }))
}

/// `POST /api/plans/{id}/todos/{todoId}/deps`: adds edges (existing ones
/// ignored); one that would close a cycle is 422 naming it.
#[utoipa::path(post, path = "/api/plans/{plan_id}/todos/{todo_id}/deps", tag = "plans", operation_id = "todos_add_deps", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("todo_id" = uuid::Uuid, Path, description = "The todo's id")), request_body = Deps, responses((status = 200, description = "The todo", body = Todo)))]
pub async fn add_deps(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(PlanId, TodoId)>,
    body: JsonBody<Deps>,
) -> Result<HttpResponse, ApiError> {
    let (plan, todo) = path.into_inner();
    let deps = body.into_inner().depends_on;
    edit_deps(&state, &caller, plan, todo, move |plan| {
        edit::add_deps(plan, todo, &deps, Utc::now())
    })
    .await
}

/// `DELETE /api/plans/{id}/todos/{todoId}/deps`: removes edges (absent ones
/// ignored).
#[utoipa::path(delete, path = "/api/plans/{plan_id}/todos/{todo_id}/deps", tag = "plans", operation_id = "todos_remove_deps", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("todo_id" = uuid::Uuid, Path, description = "The todo's id"), ("If-Match" = Option<String>, Header, description = "The todo's version last seen (`\"3\"`); another one is 412")), request_body = Deps, responses((status = 200, description = "The todo", body = Todo), (status = 412, description = "`PRECONDITION_FAILED`: the todo changed; `current` is the todo now", body = crate::error::StaleBody<'static>)))]
pub async fn remove_deps(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(PlanId, TodoId)>,
    if_match: IfMatch,
    body: JsonBody<Deps>,
) -> Result<HttpResponse, ApiError> {
    let (plan, todo) = path.into_inner();
    let deps = body.into_inner().depends_on;
    edit_deps(&state, &caller, plan, todo, move |plan| {
        edit::remove_deps(plan, todo, &deps, if_match.0, Utc::now())
    })
    .await
}

/// A dependency change, answered with the todo.
async fn edit_deps(
    state: &AppState,
    caller: &Caller,
    plan: PlanId,
    todo: TodoId,
    mut edit: impl FnMut(&mut Plan) -> Result<(), PlanError> + Send + 'static,
) -> Result<HttpResponse, ApiError> {
    let plan = change_plan(state, caller, plan, move |mut plan| {
        edit(&mut plan)?;
        Ok(plan)
    })
    .await?;
    let todo = todo_of(&plan, todo)?;
    Ok(tagged(StatusCode::OK, &todo, todo.version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::extract::parse_json;

    #[test]
    fn a_misspelled_todo_field_is_named() {
        let error = parse_json::<AddTodos>(br#"{"content": "x", "parent_id": null}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("parentId"), "{error}");
        let error = parse_json::<AddTodos>(br#"{"todos": [{"content": "x", "depends_on": []}]}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("dependsOn"), "{error}");
    }
}
