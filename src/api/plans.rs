//! `/api/plans`: a thread's plans (`plans.md`). Whoever may use the thread
//! may use its plans (`access::plan`). Every change is a compare-and-swap
//! over the plan's record; PATCH and DELETE take `If-Match` (412 with the
//! current object), and every answer of one plan carries its `ETag`. The
//! todo routes are in `todos`.

use actix_web::http::StatusCode;
use actix_web::http::header::ETAG;
use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{PlanId, ThreadId};
use serde::{Deserialize, Serialize};

use super::extract::{IfMatch, JsonBody};
use crate::auth::access::ThreadRight;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::plans::edit::{self, InlineTodo, NewPlan, PlanChange};
use crate::plans::{MAX_PLANS_PER_THREAD, Plan, PlanError, PlanStatus, Todo, TodoStatus, graph};
use crate::state::AppState;
use crate::store::plans::{PlanCreate, PlanDelete};
use crate::store::update::Updated;

/// `GET /api/plans` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// The thread whose plans to list (required).
    #[param(value_type = Option<uuid::Uuid>)]
    thread_id: Option<ThreadId>,
}

/// A thread's plans, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PlanList {
    plans: Vec<Plan>,
}

/// A list of todos (ready ones, or those a POST added).
#[derive(Serialize, utoipa::ToSchema)]
pub struct TodoList {
    pub todos: Vec<Todo>,
}

/// `POST /api/plans` body.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatePlan {
    #[schema(value_type = uuid::Uuid)]
    thread_id: ThreadId,
    title: String,
    description: Option<String>,
    /// `draft` or `in_progress` (the default).
    status: Option<PlanStatus>,
    #[serde(default)]
    todos: Vec<CreatePlanTodo>,
}

/// A todo of `POST /api/plans`; `dependsOn` names other todos of the same
/// list by index.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatePlanTodo {
    content: String,
    status: Option<TodoStatus>,
    #[serde(default)]
    depends_on: Vec<i64>,
}

/// `PATCH /api/plans/{id}` body: any of the fields.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePlan {
    title: Option<String>,
    description: Option<String>,
    status: Option<PlanStatus>,
}

/// A JSON answer with `ETag: "<version>"`.
pub fn tagged(status: StatusCode, body: &impl Serialize, version: u64) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((ETAG, format!("\"{version}\"")))
        .json(body)
}

/// Applies `change` to a plan the caller may use, as one compare-and-swap.
pub async fn change_plan(
    state: &AppState,
    caller: &Caller,
    id: PlanId,
    change: impl FnMut(Plan) -> Result<Plan, PlanError> + Send + 'static,
) -> Result<Plan, ApiError> {
    let plan = access::plan(state, caller, id, ThreadRight::Change).await?;
    let org = plan.org_id;
    match state
        .store
        .plans()
        .update_plan(org, id, Box::new(change))
        .await?
    {
        Updated::Stored(plan) => Ok(plan),
        Updated::Gone => Err(ApiError::not_found("plan")),
        Updated::Refused(error) => Err(error.into()),
    }
}

/// `GET /api/plans?threadId=`
#[utoipa::path(get, path = "/api/plans", tag = "plans", operation_id = "plans_list", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "The thread's plans, newest first", body = PlanList), (status = 404, description = "`NOT_FOUND`: no such thread in the caller's org", body = crate::error::ErrorBody<'static>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let thread = query
        .thread_id
        .ok_or_else(|| ApiError::BadRequest("threadId: required".into()))?;
    let thread = access::thread(&state, &caller, thread).await?;
    let (org, id) = (thread.org_id, thread.id);
    let plans = state.store.plans().thread_plans(org, id).await?;
    Ok(HttpResponse::Ok().json(PlanList { plans }))
}

impl CreatePlan {
    /// The plan to create, its inline indexes checked for sign.
    fn into_new(self, created_by: String) -> Result<NewPlan, ApiError> {
        let status = match self.status {
            None | Some(PlanStatus::InProgress) => PlanStatus::InProgress,
            Some(PlanStatus::Draft) => PlanStatus::Draft,
            Some(_) => {
                return Err(ApiError::invalid(
                    "status",
                    "a new plan is draft or in_progress",
                ));
            }
        };
        let mut todos = Vec::with_capacity(self.todos.len());
        for (at, todo) in self.todos.into_iter().enumerate() {
            let mut depends_on = Vec::with_capacity(todo.depends_on.len());
            for index in todo.depends_on {
                let index = usize::try_from(index).map_err(|_| {
                    ApiError::invalid(
                        &format!("todos[{at}].dependsOn"),
                        format!("index {index} is out of range"),
                    )
                })?;
                depends_on.push(index);
            }
            todos.push(InlineTodo {
                content: todo.content,
                status: todo.status,
                depends_on,
            });
        }
        Ok(NewPlan {
            title: self.title,
            description: self.description,
            status,
            todos,
            created_by,
        })
    }
}

/// `POST /api/plans`
#[utoipa::path(post, path = "/api/plans", tag = "plans", operation_id = "plans_create", security(("bearer" = [])), request_body = CreatePlan, responses((status = 201, description = "The plan", body = Plan), (status = 404, description = "`NOT_FOUND`: no such thread in the caller's org", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<CreatePlan>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let thread = access::thread_for(&state, &caller, body.thread_id, ThreadRight::Change).await?;
    let new = body.into_new(caller.user_id())?;
    let plan = edit::create(thread.org_id, thread.id, new, Utc::now())?;
    match state.store.plans().create_plan(plan.clone()).await? {
        Ok(()) => Ok(tagged(StatusCode::CREATED, &plan, plan.version)),
        Err(PlanCreate::ThreadFull) => Err(ApiError::invalid(
            "threadId",
            format!("a thread holds at most {MAX_PLANS_PER_THREAD} plans"),
        )),
        Err(PlanCreate::ThreadGone) => Err(ApiError::not_found("thread")),
    }
}

/// `GET /api/plans/{id}`
#[utoipa::path(get, path = "/api/plans/{plan_id}", tag = "plans", operation_id = "plans_get", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id")), responses((status = 200, description = "The plan with its todos in plan order", body = Plan)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<PlanId>,
) -> Result<HttpResponse, ApiError> {
    let plan = access::plan(&state, &caller, path.into_inner(), ThreadRight::Read).await?;
    Ok(tagged(StatusCode::OK, &plan, plan.version))
}

/// `PATCH /api/plans/{id}`
#[utoipa::path(patch, path = "/api/plans/{plan_id}", tag = "plans", operation_id = "plans_update", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("If-Match" = Option<String>, Header, description = "The version last seen (`\"3\"`); another one is 412")), request_body = UpdatePlan, responses((status = 200, description = "The updated plan", body = Plan), (status = 412, description = "`PRECONDITION_FAILED`: the plan changed; `current` is the plan now", body = crate::error::StaleBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<PlanId>,
    if_match: IfMatch,
    body: JsonBody<UpdatePlan>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let change = PlanChange {
        title: body.title,
        description: body.description,
        status: body.status,
    };
    let plan = change_plan(&state, &caller, path.into_inner(), move |mut plan| {
        edit::update_plan(&mut plan, &change, if_match.0, Utc::now())?;
        Ok(plan)
    })
    .await?;
    Ok(tagged(StatusCode::OK, &plan, plan.version))
}

/// `DELETE /api/plans/{id}`: the plan, its todos and their edges.
#[utoipa::path(delete, path = "/api/plans/{plan_id}", tag = "plans", operation_id = "plans_delete", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id"), ("If-Match" = Option<String>, Header, description = "The version last seen (`\"3\"`); another one is 412")), responses((status = 200, description = "Deleted", body = super::Ok), (status = 412, description = "`PRECONDITION_FAILED`: the plan changed; `current` is the plan now", body = crate::error::StaleBody<'static>)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<PlanId>,
    if_match: IfMatch,
) -> Result<HttpResponse, ApiError> {
    let plan = access::plan(&state, &caller, path.into_inner(), ThreadRight::Change).await?;
    let (org, id) = (plan.org_id, plan.id);
    match state.store.plans().delete_plan(org, id, if_match.0).await? {
        PlanDelete::Deleted => Ok(HttpResponse::Ok().json(super::Ok { ok: true })),
        PlanDelete::Gone => Err(ApiError::not_found("plan")),
        PlanDelete::Stale(plan) => Err(PlanError::Stale(serde_json::json!(plan)).into()),
    }
}

/// `GET /api/plans/{id}/ready`: the todos that can be done next.
#[utoipa::path(get, path = "/api/plans/{plan_id}/ready", tag = "plans", operation_id = "plans_ready", security(("bearer" = [])), params(("plan_id" = uuid::Uuid, Path, description = "The plan's id")), responses((status = 200, description = "Pending todos whose dependencies are all done or skipped, in plan order", body = TodoList)))]
pub async fn ready(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<PlanId>,
) -> Result<HttpResponse, ApiError> {
    let plan = access::plan(&state, &caller, path.into_inner(), ThreadRight::Read).await?;
    Ok(HttpResponse::Ok().json(TodoList {
        todos: graph::ready(&plan),
    }))
}
