//! `/api/agents/{id}/mcps`: which of the org's MCP servers an agent uses,
//! and which of each server's tools (`services`, from the server's cached
//! listing; a tool is `enabled` when both the server's and the
//! attachment's `allowed_tools` allow it).

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, McpServerId};
use serde::{Deserialize, Serialize};

use super::rules::validate_tool_list;
use crate::api::agents::live_agent;
use crate::api::extract::{JsonBody, Patch};
use crate::auth::{Admin, Caller, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::mcps::{AttachOutcome, McpAttachment, McpServer, allowed_by};

/// An agent's attachment as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AttachedMcp {
    mcp_server_id: String,
    slug: String,
    name: String,
    status: &'static str,
    allowed_tools: Option<Vec<String>>,
}

/// The `GET /api/agents/{id}/mcps` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AttachedList {
    mcps: Vec<AttachedMcp>,
}

/// `POST /api/agents/{id}/mcps` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attach {
    mcp_server_id: McpServerId,
    /// `null` or absent: every tool the server allows.
    allowed_tools: Option<Vec<String>>,
}

/// `DELETE /api/agents/{id}/mcps` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Detach {
    mcp_server_id: McpServerId,
}

/// One tool of an attached server.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Service {
    name: String,
    description: Option<String>,
    enabled: bool,
}

/// The services answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Services {
    tools: Vec<Service>,
}

/// `PATCH …/services` body.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SetServices {
    /// The tools the agent is offered; `null`: every one the server allows.
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    enabled: Patch<Vec<String>>,
}

fn attached(server: &McpServer, attachment: McpAttachment) -> AttachedMcp {
    AttachedMcp {
        mcp_server_id: server.id.to_string(),
        slug: server.slug.clone(),
        name: server.name.clone(),
        status: server.status.as_str(),
        allowed_tools: attachment.allowed,
    }
}

fn services(server: &McpServer, attachment: &McpAttachment) -> Services {
    Services {
        tools: server
            .tools_cache
            .iter()
            .map(|tool| Service {
                name: tool.name.clone(),
                description: tool.description.clone(),
                enabled: server.allows(&tool.name)
                    && allowed_by(attachment.allowed.as_deref(), &tool.name),
            })
            .collect(),
    }
}

/// The live agent and the attached server, or 404 naming what is missing.
async fn attachment_of(
    state: &AppState,
    caller: &Caller,
    agent: AgentId,
    server: McpServerId,
) -> Result<(McpServer, McpAttachment), ApiError> {
    let agent = live_agent(state, caller, agent).await?;
    let org = caller.org_id;
    let records = state.store.mcps();
    let attachment = records.mcp_attachment(org, agent.id, server).await?;
    let server = records.mcp(org, server).await?;
    let server = server.ok_or_else(|| ApiError::not_found("MCP server"))?;
    let attachment =
        attachment.ok_or_else(|| ApiError::NotFound("the MCP server is not attached".into()))?;
    Ok((server, attachment))
}

/// `GET /api/agents/{id}/mcps`: the agent's servers, in attachment order.
#[utoipa::path(get, path = "/api/agents/{agent_id}/mcps", tag = "mcps", operation_id = "agent_mcps_list", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The attached servers", body = AttachedList)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let mcps = state.store.mcps().org_mcps(org).await?;
    let shown = mcps
        .of_agent(agent.id)
        .map(|(server, attachment)| attached(server, attachment.clone()))
        .collect();
    Ok(HttpResponse::Ok().json(AttachedList { mcps: shown }))
}

/// `POST /api/agents/{id}/mcps`: 201 when attached, 200 when it was and
/// its `allowed_tools` were replaced.
#[utoipa::path(post, path = "/api/agents/{agent_id}/mcps", tag = "mcps", operation_id = "agent_mcps_attach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = Attach, responses((status = 201, description = "Attached", body = AttachedMcp), (status = 200, description = "Was attached; `allowed_tools` replaced", body = AttachedMcp)))]
pub async fn attach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<Attach>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    if let Some(list) = &body.allowed_tools {
        validate_tool_list("allowedTools", list)?;
    }
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, server) = (caller.org_id, body.mcp_server_id);
    let allowed = body.allowed_tools;
    let records = state.store.mcps();
    let outcome = records.attach_mcp(org, agent.id, server, allowed).await?;
    let (server, attachment) = (
        records.mcp(org, server).await?,
        records.mcp_attachment(org, agent.id, server).await?,
    );
    state.mcps.forget(org);
    let (Some(server), Some(attachment)) = (server, attachment) else {
        return Err(ApiError::not_found("MCP server"));
    };
    let shown = attached(&server, attachment);
    Ok(match outcome {
        AttachOutcome::Attached => HttpResponse::Created().json(shown),
        AttachOutcome::Replaced => HttpResponse::Ok().json(shown),
        AttachOutcome::Missing => return Err(ApiError::not_found("MCP server")),
    })
}

/// `DELETE /api/agents/{id}/mcps`: 404 when it was not attached.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/mcps", tag = "mcps", operation_id = "agent_mcps_detach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = Detach, responses((status = 200, description = "Detached", body = crate::api::Ok)))]
pub async fn detach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<Detach>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, server) = (caller.org_id, body.into_inner().mcp_server_id);
    let detached = state.store.mcps().detach_mcp(org, agent.id, server).await?;
    state.mcps.forget(org);
    if !detached {
        return Err(ApiError::NotFound("the MCP server is not attached".into()));
    }
    Ok(HttpResponse::Ok().json(crate::api::Ok { ok: true }))
}

/// `GET /api/agents/{id}/mcps/{mcpId}/services`
#[utoipa::path(get, path = "/api/agents/{agent_id}/mcps/{mcp_id}/services", tag = "mcps", operation_id = "agent_mcps_services", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("mcp_id" = uuid::Uuid, Path, description = "The server's id")), responses((status = 200, description = "The server's cached tools, each enabled or not for this agent", body = Services)))]
pub async fn services_get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<(AgentId, McpServerId)>,
) -> Result<HttpResponse, ApiError> {
    let (agent, server) = path.into_inner();
    let (server, attachment) = attachment_of(&state, &caller, agent, server).await?;
    Ok(HttpResponse::Ok().json(services(&server, &attachment)))
}

/// `PATCH /api/agents/{id}/mcps/{mcpId}/services`: sets the attachment's
/// `allowed_tools` (each a tool of the cached listing, else 422).
#[utoipa::path(patch, path = "/api/agents/{agent_id}/mcps/{mcp_id}/services", tag = "mcps", operation_id = "agent_mcps_services_set", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id"), ("mcp_id" = uuid::Uuid, Path, description = "The server's id")), request_body = SetServices, responses((status = 200, description = "The server's cached tools, each enabled or not for this agent", body = Services)))]
pub async fn services_set(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<(AgentId, McpServerId)>,
    body: JsonBody<SetServices>,
) -> Result<HttpResponse, ApiError> {
    let (agent, server_id) = path.into_inner();
    let enabled = match body.into_inner().enabled {
        Patch::Absent => {
            return Err(ApiError::invalid(
                "enabled",
                "required: a list of tool names, or null for all",
            ));
        }
        Patch::Null => None,
        Patch::Value(names) => Some(names),
    };
    let (server, _) = attachment_of(&state, &caller, agent, server_id).await?;
    if let Some(names) = &enabled
        && let Some(unknown) = names
            .iter()
            .find(|n| !server.tools_cache.iter().any(|t| &t.name == *n))
    {
        return Err(ApiError::invalid(
            "enabled",
            format!("`{unknown}` is not a tool of the server's last listing"),
        ));
    }
    let org = caller.org_id;
    let attachment = state
        .store
        .mcps()
        .set_mcp_attachment_tools(org, agent, server_id, enabled)
        .await?;
    state.mcps.forget(org);
    let attachment =
        attachment.ok_or_else(|| ApiError::NotFound("the MCP server is not attached".into()))?;
    Ok(HttpResponse::Ok().json(services(&server, &attachment)))
}
