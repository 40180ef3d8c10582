//! `/api/mcps`: the org's MCP servers (`tools.md` §6). Credentials and the
//! OAuth client's secret are write-only (a GET shows `has_credentials`);
//! stdio servers are created and changed by platform admins only, for
//! command lines on the operator's allow-list. The rules of the fields are
//! in `rules`, the agents' attachments in `attachments`.

pub mod attachments;
pub mod oauth;
pub mod registry;
mod rules;
mod views;

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::McpServerId;
use serde::Deserialize;

use super::extract::{JsonBody, Patch};
use crate::auth::{Admin, Caller, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::mcps::{McpSecrets, McpServer, McpStatus, McpTransport, OAuthMode, slug_of};

use self::rules::{
    CredentialsBody, DEFAULT_TIMEOUT_MS, OAuthClientBody, check_command_line, check_stdio_env,
    credentials, oauth_client, parse_oauth, parse_transport, platform_admin_for_stdio,
    validate_name, validate_timeout, validate_tool_list, validate_url,
};
pub use self::views::{ListedTool, McpList, McpView, Tested};
use self::views::{listed, view};

/// `POST /api/mcps` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMcp {
    name: String,
    /// `streamable_http` (default), `sse` or `stdio`.
    transport: Option<String>,
    url: Option<String>,
    command: Option<String>,
    args: Option<Vec<String>>,
    /// Write-only.
    credentials: Option<CredentialsBody>,
    allowed_tools: Option<Vec<String>>,
    /// `none` (default), `org` or `per_user` (managed OAuth).
    oauth: Option<String>,
    oauth_client: Option<OAuthClientBody>,
    timeout_ms: Option<i64>,
}

/// `PATCH /api/mcps/{id}` body: the create fields but `transport`;
/// `credentials` replaces the stored ones (`null` removes them).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMcp {
    name: Option<String>,
    /// Refused: a server's transport never changes.
    transport: Option<String>,
    url: Option<String>,
    command: Option<String>,
    args: Option<Vec<String>>,
    #[serde(default)]
    #[schema(value_type = Option<CredentialsBody>)]
    credentials: Patch<CredentialsBody>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    allowed_tools: Patch<Vec<String>>,
    oauth: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<OAuthClientBody>)]
    oauth_client: Patch<OAuthClientBody>,
    timeout_ms: Option<i64>,
}

/// `GET /api/mcps`: the org's servers, oldest first.
#[utoipa::path(get, path = "/api/mcps", tag = "mcps", operation_id = "mcps_list", security(("bearer" = ["member"])), responses((status = 200, description = "The org's MCP servers, oldest first", body = McpList)))]
pub async fn list(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let servers = state.store.mcps().mcps(org).await?;
    Ok(HttpResponse::Ok().json(McpList {
        mcps: servers.into_iter().map(view).collect(),
    }))
}

/// `POST /api/mcps`: 201 with the server; its first listing starts in the
/// background (`status: "pending"` until it ends).
#[utoipa::path(post, path = "/api/mcps", tag = "mcps", operation_id = "mcps_create", security(("bearer" = ["admin"])), request_body = CreateMcp, responses((status = 201, description = "The server; listed in the background", body = McpView), (status = 403, description = "`FORBIDDEN`: a stdio server by a caller other than a platform admin", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<CreateMcp>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let name = validate_name(&body.name)?;
    let transport = body
        .transport
        .as_deref()
        .map_or(Ok(McpTransport::StreamableHttp), parse_transport)?;
    let oauth = body
        .oauth
        .as_deref()
        .map_or(Ok(OAuthMode::None), parse_oauth)?;
    if oauth != OAuthMode::None && transport == McpTransport::Stdio {
        return Err(ApiError::invalid("oauth", "a stdio server has no OAuth"));
    }
    let (url, command, args) = match transport {
        McpTransport::Stdio => {
            if body.url.is_some() {
                return Err(ApiError::invalid("url", "a stdio server has no url"));
            }
            let command = body
                .command
                .filter(|c| !c.trim().is_empty())
                .ok_or_else(|| ApiError::invalid("command", "required for a stdio server"))?;
            let args = body.args.unwrap_or_default();
            platform_admin_for_stdio(&caller)?;
            check_command_line(&state, &command, &args)?;
            (None, Some(command), args)
        }
        McpTransport::StreamableHttp | McpTransport::Sse => {
            if body.command.is_some() || body.args.is_some() {
                return Err(ApiError::invalid(
                    "command",
                    "only a stdio server has a command and args",
                ));
            }
            let url = body
                .url
                .ok_or_else(|| ApiError::invalid("url", "required for an HTTP server"))?;
            (Some(validate_url(&state, &url)?), None, Vec::new())
        }
    };
    if let Some(list) = &body.allowed_tools {
        validate_tool_list("allowedTools", list)?;
    }
    let timeout_ms = body
        .timeout_ms
        .map_or(Ok(DEFAULT_TIMEOUT_MS), validate_timeout)?;
    let secrets = McpSecrets {
        credentials: body.credentials.map(credentials).transpose()?.map(Some),
        client_secret: body.oauth_client.as_ref().map(|c| c.client_secret.clone()),
    };
    if transport == McpTransport::Stdio {
        check_stdio_env(
            &state,
            secrets.credentials.as_ref().and_then(Option::as_ref),
        )?;
    }
    let now = Utc::now();
    let server = McpServer {
        id: McpServerId::new(),
        org_id: caller.org_id,
        slug: slug_of(&name),
        name,
        transport,
        url,
        command,
        args,
        credentials: None,
        allowed_tools: body.allowed_tools,
        oauth,
        oauth_client: oauth_client(body.oauth_client.as_ref())?,
        timeout_ms,
        status: McpStatus::Pending,
        last_error: None,
        tools_cache: Vec::new(),
        tools_refreshed_at: None,
        oauth_epoch: 0,
        created_at: now,
        updated_at: now,
    };
    let made = state.store.mcps().create_mcp(server, secrets).await?;
    state.mcps.server_changed(made.org_id, made.id, false);
    Ok(HttpResponse::Created().json(view(made)))
}

async fn stored(state: &AppState, caller: &Caller, id: McpServerId) -> Result<McpServer, ApiError> {
    let org = caller.org_id;
    state
        .store
        .mcps()
        .mcp(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("MCP server"))
}

/// `GET /api/mcps/{id}`
#[utoipa::path(get, path = "/api/mcps/{mcp_id}", tag = "mcps", operation_id = "mcps_get", security(("bearer" = ["member"])), params(("mcp_id" = uuid::Uuid, Path, description = "The server's id")), responses((status = 200, description = "The server", body = McpView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<McpServerId>,
) -> Result<HttpResponse, ApiError> {
    let server = stored(&state, &caller, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view(server)))
}

/// `PATCH /api/mcps/{id}`: one transaction (a concurrent delete wins:
/// 404); the server's sessions are closed and it is listed again.
#[utoipa::path(patch, path = "/api/mcps/{mcp_id}", tag = "mcps", operation_id = "mcps_update", security(("bearer" = ["admin"])), params(("mcp_id" = uuid::Uuid, Path, description = "The server's id")), request_body = UpdateMcp, responses((status = 200, description = "The changed server", body = McpView)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<McpServerId>,
    body: JsonBody<UpdateMcp>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let id = path.into_inner();
    if body.transport.is_some() {
        return Err(ApiError::invalid(
            "transport",
            "cannot change; create another server",
        ));
    }
    let before = stored(&state, &caller, id).await?;
    let name = body.name.as_deref().map(validate_name).transpose()?;
    let url = match (&body.url, before.transport) {
        (None, _) => None,
        (Some(_), McpTransport::Stdio) => {
            return Err(ApiError::invalid("url", "a stdio server has no url"));
        }
        (Some(url), _) => Some(validate_url(&state, url)?),
    };
    let command_line = if body.command.is_some() || body.args.is_some() {
        if before.transport != McpTransport::Stdio {
            return Err(ApiError::invalid(
                "command",
                "only a stdio server has a command and args",
            ));
        }
        let command = body
            .command
            .clone()
            .unwrap_or_else(|| before.command.clone().unwrap_or_default());
        let args = body.args.clone().unwrap_or_else(|| before.args.clone());
        platform_admin_for_stdio(&caller)?;
        check_command_line(&state, &command, &args)?;
        Some((command, args))
    } else {
        None
    };
    let allowed_tools = body.allowed_tools.into_change();
    if let Some(Some(list)) = &allowed_tools {
        validate_tool_list("allowedTools", list)?;
    }
    let oauth = body.oauth.as_deref().map(parse_oauth).transpose()?;
    if oauth.is_some_and(|o| o != OAuthMode::None) && before.transport == McpTransport::Stdio {
        return Err(ApiError::invalid("oauth", "a stdio server has no OAuth"));
    }
    let client_change = body.oauth_client.into_change();
    let client = match &client_change {
        None => None,
        Some(None) => Some(None),
        Some(Some(body)) => Some(oauth_client(Some(body))?),
    };
    let timeout_ms = body.timeout_ms.map(validate_timeout).transpose()?;
    let secrets = McpSecrets {
        credentials: body
            .credentials
            .into_change()
            .map(|c| c.map(credentials).transpose())
            .transpose()?,
        client_secret: client_change
            .as_ref()
            .map(|c| c.as_ref().and_then(|c| c.client_secret.clone())),
    };
    if before.transport == McpTransport::Stdio
        && let Some(change) = &secrets.credentials
    {
        platform_admin_for_stdio(&caller)?;
        check_stdio_env(&state, change.as_ref())?;
    }
    let org = caller.org_id;
    let changed = state
        .store
        .mcps()
        .update_mcp(
            org,
            id,
            secrets,
            Box::new(move |server| {
                if let Some(name) = &name {
                    server.name.clone_from(name);
                }
                if let Some(url) = &url {
                    server.url = Some(url.clone());
                }
                if let Some((command, args)) = &command_line {
                    server.command = Some(command.clone());
                    server.args.clone_from(args);
                }
                if let Some(allowed) = &allowed_tools {
                    server.allowed_tools.clone_from(allowed);
                }
                if let Some(oauth) = oauth {
                    server.oauth = oauth;
                }
                if let Some(client) = &client {
                    server.oauth_client.clone_from(client);
                }
                if let Some(timeout_ms) = timeout_ms {
                    server.timeout_ms = timeout_ms;
                }
            }),
        )
        .await?
        .ok_or_else(|| ApiError::not_found("MCP server"))?;
    state.mcps.server_changed(org, id, false);
    Ok(HttpResponse::Ok().json(view(changed)))
}

/// `DELETE /api/mcps/{id}`: detached from every agent, its sessions closed.
#[utoipa::path(delete, path = "/api/mcps/{mcp_id}", tag = "mcps", operation_id = "mcps_delete", security(("bearer" = ["admin"])), params(("mcp_id" = uuid::Uuid, Path, description = "The server's id")), responses((status = 200, description = "Deleted and detached everywhere", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<McpServerId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    // Its users' tokens and its client go with it.
    let deleted = state.store.mcps().delete_mcp(org, id).await?;
    state.mcps.server_changed(org, id, true);
    if !deleted {
        return Err(ApiError::not_found("MCP server"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `POST /api/mcps/{id}/test`: lists the server's tools now, refreshing
/// its cache and status; 200 whatever the server did.
#[utoipa::path(post, path = "/api/mcps/{mcp_id}/test", tag = "mcps", operation_id = "mcps_test", security(("bearer" = ["admin"])), params(("mcp_id" = uuid::Uuid, Path, description = "The server's id")), responses((status = 200, description = "Whether the server answered, and its tools", body = Tested)))]
pub async fn test(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<McpServerId>,
) -> Result<HttpResponse, ApiError> {
    let server = stored(&state, &caller, path.into_inner()).await?;
    let tested = match state.mcps.list(&server).await {
        Ok(tools) => Tested {
            ok: true,
            tools: listed(&McpServer {
                tools_cache: tools,
                ..server
            }),
            error: None,
        },
        Err(reason) => {
            // Retried in the background, as any contact that failed.
            state.mcps.refresh(server.org_id, server.id);
            Tested {
                ok: false,
                tools: Vec::new(),
                error: Some(reason),
            }
        }
    };
    Ok(HttpResponse::Ok().json(tested))
}
