//! `/api/tools`: the org's tools (`tools.md` §1), webhooks Confer calls for
//! the model, and `POST /api/tools/execute` (§3), a tool author's harness.
//! The signing secret is shown only by the create and by a rotation. The
//! rules a tool's fields follow are in `rules`.

mod rules;

use std::time::Instant;

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{ThreadId, ToolId};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::JsonBody;
use super::timestamp;
use crate::auth::api_keys::random_token;
use crate::auth::{Admin, Caller};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::tools::OrgTool;
use crate::tools::webhook::{WebhookCall, call};

use self::rules::{
    DEFAULT_TIMEOUT_MS, validate_description, validate_name, validate_parameters, validate_timeout,
    validate_url, written,
};

/// Prefix of a tool's signing secret.
const TOOL_SECRET_PREFIX: &str = "cfs_";

/// A tool as admins and members see it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ToolView {
    id: String,
    org_id: String,
    name: String,
    description: String,
    parameters: Value,
    kind: &'static str,
    url: String,
    timeout_ms: u32,
    created_at: String,
    updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    signing_secret: Option<String>,
}

/// A tool as an end user sees it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ToolSummary {
    id: String,
    name: String,
    description: String,
    parameters: Value,
}

fn view(tool: OrgTool, secret: Option<String>) -> ToolView {
    ToolView {
        id: tool.id.to_string(),
        org_id: tool.org_id.to_string(),
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        kind: "webhook",
        url: tool.url,
        timeout_ms: tool.timeout_ms,
        created_at: timestamp(tool.created_at),
        updated_at: timestamp(tool.updated_at),
        signing_secret: secret,
    }
}

/// A tool as the caller may see it: end users see the summary.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ShownTool {
    Full(ToolView),
    Summary(ToolSummary),
}

/// The `GET /api/tools` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ToolList {
    tools: Vec<ShownTool>,
}

/// The `POST /api/tools/execute` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Executed {
    /// What the model would have read.
    result: Value,
    is_error: bool,
    duration_ms: u64,
}

/// The tool as `caller` may see it.
fn shown(caller: &Caller, tool: OrgTool) -> ShownTool {
    if caller.jwt_user().is_some_and(|u| !u.admin) {
        ShownTool::Summary(ToolSummary {
            id: tool.id.to_string(),
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
        })
    } else {
        ShownTool::Full(view(tool, None))
    }
}

/// `POST /api/tools` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTool {
    name: String,
    description: Option<String>,
    parameters: Option<Value>,
    kind: Option<String>,
    url: String,
    timeout_ms: Option<i64>,
}

/// `PATCH /api/tools/{id}` body: only the fields present change.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTool {
    name: Option<String>,
    description: Option<String>,
    parameters: Option<Value>,
    url: Option<String>,
    timeout_ms: Option<i64>,
    #[serde(default)]
    rotate_secret: bool,
}

/// `POST /api/tools/execute` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteTool {
    name: String,
    arguments: Value,
    thread_id: Option<String>,
}

/// `GET /api/tools`: the org's tools, oldest first.
#[utoipa::path(get, path = "/api/tools", tag = "tools", operation_id = "tools_list", security(("bearer" = [])), responses((status = 200, description = "The org's tools, oldest first (end users see `ToolSummary`s)", body = ToolList)))]
pub async fn list(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let tools = state.store.tools().list_tools(org).await?;
    let tools = tools.into_iter().map(|t| shown(&caller, t)).collect();
    Ok(HttpResponse::Ok().json(ToolList { tools }))
}

/// `POST /api/tools`: 201 with the tool and its signing secret (shown once).
#[utoipa::path(post, path = "/api/tools", tag = "tools", operation_id = "tools_create", security(("bearer" = ["admin"])), request_body = CreateTool, responses((status = 201, description = "The tool with its signing secret, shown once", body = ToolView), (status = 409, description = "`CONFLICT`: a tool of that name exists", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<CreateTool>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    validate_name(&body.name)?;
    let description = body.description.unwrap_or_default();
    validate_description(&description)?;
    let parameters = body
        .parameters
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    validate_parameters(&parameters)?;
    if body.kind.as_deref().is_some_and(|k| k != "webhook") {
        return Err(ApiError::invalid("kind", "must be `webhook`"));
    }
    let url = body.url.trim().to_owned();
    validate_url(&state, &url)?;
    let timeout_ms = body
        .timeout_ms
        .map_or(Ok(DEFAULT_TIMEOUT_MS), validate_timeout)?;
    let secret = random_token(TOOL_SECRET_PREFIX)?;
    let shown_secret = secret.expose_secret().to_owned();
    let now = Utc::now();
    let tool = OrgTool {
        id: ToolId::new(),
        org_id: caller.org_id,
        name: body.name.clone(),
        description,
        parameters,
        url,
        timeout_ms,
        signing_secret: shown_secret.clone(),
        created_at: now,
        updated_at: now,
    };
    let made = state.store.tools().create_tool(tool).await?;
    state.tool_cache.forget(caller.org_id);
    let made = written(made, &body.name)?;
    Ok(HttpResponse::Created().json(view(made, Some(shown_secret))))
}

/// `GET /api/tools/{id}`
#[utoipa::path(get, path = "/api/tools/{tool_id}", tag = "tools", operation_id = "tools_get", security(("bearer" = [])), params(("tool_id" = uuid::Uuid, Path, description = "The tool's id")), responses((status = 200, description = "The tool as the caller may see it", body = ShownTool)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ToolId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let tool = state
        .store
        .tools()
        .tool(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("tool"))?;
    Ok(HttpResponse::Ok().json(shown(&caller, tool)))
}

/// `PATCH /api/tools/{id}`: one transaction (a concurrent delete wins: 404).
/// `rotateSecret: true` replaces the signing secret (the old one stops
/// working at once) and shows the new one.
#[utoipa::path(patch, path = "/api/tools/{tool_id}", tag = "tools", operation_id = "tools_update", security(("bearer" = ["admin"])), params(("tool_id" = uuid::Uuid, Path, description = "The tool's id")), request_body = UpdateTool, responses((status = 200, description = "The updated tool; `signingSecret` only when rotated", body = ToolView), (status = 409, description = "`CONFLICT`: a tool of that name exists", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<ToolId>,
    body: JsonBody<UpdateTool>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    if let Some(name) = &body.name {
        validate_name(name)?;
    }
    if let Some(description) = &body.description {
        validate_description(description)?;
    }
    if let Some(parameters) = &body.parameters {
        validate_parameters(parameters)?;
    }
    let url = body.url.map(|u| u.trim().to_owned());
    if let Some(url) = &url {
        validate_url(&state, url)?;
    }
    let timeout_ms = body.timeout_ms.map(validate_timeout).transpose()?;
    let rotated = if body.rotate_secret {
        Some(random_token(TOOL_SECRET_PREFIX)?.expose_secret().to_owned())
    } else {
        None
    };
    let (org, id) = (caller.org_id, path.into_inner());
    let name = body.name.clone().unwrap_or_default();
    let (description, parameters) = (body.description, body.parameters);
    let new_name = body.name;
    let change = move |tool: &mut OrgTool| {
        if let Some(name) = &new_name {
            tool.name.clone_from(name);
        }
        if let Some(description) = &description {
            tool.description.clone_from(description);
        }
        if let Some(parameters) = &parameters {
            tool.parameters = parameters.clone();
        }
        if let Some(url) = &url {
            tool.url.clone_from(url);
        }
        if let Some(timeout_ms) = timeout_ms {
            tool.timeout_ms = timeout_ms;
        }
    };
    let outcome = state
        .store
        .tools()
        .update_tool(org, id, rotated.clone(), Box::new(change))
        .await?;
    state.tool_cache.forget(org);
    let tool = written(outcome, &name)?;
    Ok(HttpResponse::Ok().json(view(tool, rotated)))
}

/// `DELETE /api/tools/{id}`
#[utoipa::path(delete, path = "/api/tools/{tool_id}", tag = "tools", operation_id = "tools_delete", security(("bearer" = ["admin"])), params(("tool_id" = uuid::Uuid, Path, description = "The tool's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<ToolId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let deleted = state.store.tools().delete_tool(org, id).await?;
    state.tool_cache.forget(org);
    if !deleted {
        return Err(ApiError::not_found("tool"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `POST /api/tools/execute`: one signed call, answered 200 with what the
/// model would have read, whatever the webhook did.
#[utoipa::path(post, path = "/api/tools/execute", tag = "tools", operation_id = "tools_execute", security(("bearer" = ["admin"])), request_body = ExecuteTool, responses((status = 200, description = "What the model would have read, whatever the webhook did", body = Executed)))]
pub async fn execute(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<ExecuteTool>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    if !body.arguments.is_object() {
        return Err(ApiError::BadRequest(
            "arguments: must be a JSON object".into(),
        ));
    }
    let org = caller.org_id;
    let thread = match &body.thread_id {
        None => None,
        Some(raw) => {
            let id: ThreadId = raw.parse().map_err(|_| ApiError::not_found("thread"))?;
            state
                .store
                .threads()
                .thread(org, id)
                .await?
                .ok_or_else(|| ApiError::not_found("thread"))?;
            Some(id)
        }
    };
    let tool = state
        .store
        .tools()
        .tool_named(org, body.name.clone())
        .await?
        .ok_or_else(|| ApiError::not_found("tool"))?;
    let started = Instant::now();
    let request = WebhookCall {
        org,
        agent: None,
        thread,
        user_id: caller.user_id(),
        call_id: format!("exec_{}", uuid::Uuid::new_v4()),
        arguments: body.arguments,
    };
    let output = call(&state.store, &state.outbound, &tool, request).await;
    Ok(HttpResponse::Ok().json(Executed {
        result: output.result,
        is_error: output.is_error,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }))
}
