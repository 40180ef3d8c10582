//! `/api/integrations`: the org's databases (`tools.md` §7), and their
//! attachments to agents (`/api/agents/{id}/integrations`). The connection
//! string is write-only; a create checks it, connects and reads the schema
//! before anything is stored.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{AgentId, IntegrationId};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use super::timestamp;
use crate::auth::{Admin, Caller, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::integrations::{AttachOutcome, Integration, IntegrationAttachment, slug_of};
use crate::tools::integrations::SchemaError;

/// An integration as shown (never its connection string).
#[derive(Serialize, utoipa::ToSchema)]
pub struct IntegrationView {
    id: String,
    org_id: String,
    name: String,
    slug: String,
    kind: &'static str,
    tables: Option<Vec<String>>,
    created_at: String,
    updated_at: String,
}

fn view(integration: Integration) -> IntegrationView {
    IntegrationView {
        id: integration.id.to_string(),
        org_id: integration.org_id.to_string(),
        name: integration.name,
        slug: integration.slug,
        kind: "postgres",
        tables: integration.tables,
        created_at: timestamp(integration.created_at),
        updated_at: timestamp(integration.updated_at),
    }
}

/// The `GET /api/integrations` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct IntegrationList {
    integrations: Vec<IntegrationView>,
}

/// `POST /api/integrations` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateIntegration {
    name: String,
    /// `postgres`.
    kind: String,
    /// Write-only.
    connection_string: String,
    /// The tables and views of schema `public` exposed (`null`: all).
    tables: Option<Vec<String>>,
}

/// An agent's attachment as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AttachedIntegration {
    integration_id: String,
    slug: String,
    name: String,
    allowed_tables: Option<Vec<String>>,
}

/// The `GET /api/agents/{id}/integrations` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AttachedIntegrations {
    integrations: Vec<AttachedIntegration>,
}

/// `POST /api/agents/{id}/integrations` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttachIntegration {
    integration_id: IntegrationId,
    /// `null` or absent: every exposed table.
    allowed_tables: Option<Vec<String>>,
}

/// `DELETE /api/agents/{id}/integrations` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetachIntegration {
    integration_id: IntegrationId,
}

fn attached(integration: &Integration, attachment: IntegrationAttachment) -> AttachedIntegration {
    AttachedIntegration {
        integration_id: integration.id.to_string(),
        slug: integration.slug.clone(),
        name: integration.name.clone(),
        allowed_tables: attachment.allowed,
    }
}

/// `GET /api/integrations`: the org's integrations, oldest first.
#[utoipa::path(get, path = "/api/integrations", tag = "integrations", operation_id = "integrations_list", security(("bearer" = ["member"])), responses((status = 200, description = "The org's integrations, oldest first", body = IntegrationList)))]
pub async fn list(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let all = state.store.integrations().integrations(org).await?;
    Ok(HttpResponse::Ok().json(IntegrationList {
        integrations: all.into_iter().map(view).collect(),
    }))
}

/// `POST /api/integrations`: checks the connection string, connects and
/// reads the schema, then stores (201).
#[utoipa::path(post, path = "/api/integrations", tag = "integrations", operation_id = "integrations_create", security(("bearer" = ["admin"])), request_body = CreateIntegration, responses((status = 201, description = "The integration", body = IntegrationView), (status = 422, description = "`VALIDATION_ERROR`: a refused connection string, one that cannot connect, or an unknown table", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<CreateIntegration>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let name = body.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::invalid("name", "must be 1 to 100 characters"));
    }
    if body.kind != "postgres" {
        return Err(ApiError::invalid("kind", "must be `postgres`"));
    }
    if let Some(tables) = &body.tables
        && tables.iter().any(|t| t.trim().is_empty())
    {
        return Err(ApiError::invalid("tables", "a table name is empty"));
    }
    let target = state
        .integrations
        .check(&body.connection_string)
        .map_err(|why| ApiError::invalid("connectionString", why))?;
    let schema = state
        .integrations
        .read_schema(&target, body.tables.as_deref())
        .await
        .map_err(|error| match error {
            SchemaError::Connect(why) => {
                ApiError::invalid("connectionString", format!("cannot connect ({why})"))
            }
            SchemaError::UnknownTable(_) => ApiError::invalid("tables", error),
        })?;
    let now = Utc::now();
    let integration = Integration {
        id: IntegrationId::new(),
        org_id: caller.org_id,
        slug: slug_of(&name),
        name,
        connection: body.connection_string,
        tables: body.tables,
        schema,
        schema_read_at: now,
        created_at: now,
        updated_at: now,
    };
    let made = state
        .store
        .integrations()
        .create_integration(integration)
        .await?;
    state.integrations.forget(made.org_id);
    Ok(HttpResponse::Created().json(view(made)))
}

async fn stored(
    state: &AppState,
    caller: &Caller,
    id: IntegrationId,
) -> Result<Integration, ApiError> {
    let org = caller.org_id;
    state
        .store
        .integrations()
        .integration(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("integration"))
}

/// `GET /api/integrations/{id}`
#[utoipa::path(get, path = "/api/integrations/{integration_id}", tag = "integrations", operation_id = "integrations_get", security(("bearer" = ["member"])), params(("integration_id" = uuid::Uuid, Path, description = "The integration's id")), responses((status = 200, description = "The integration", body = IntegrationView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<IntegrationId>,
) -> Result<HttpResponse, ApiError> {
    let integration = stored(&state, &caller, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view(integration)))
}

/// `DELETE /api/integrations/{id}`: detached from every agent.
#[utoipa::path(delete, path = "/api/integrations/{integration_id}", tag = "integrations", operation_id = "integrations_delete", security(("bearer" = ["admin"])), params(("integration_id" = uuid::Uuid, Path, description = "The integration's id")), responses((status = 200, description = "Deleted and detached everywhere", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<IntegrationId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let deleted = state
        .store
        .integrations()
        .delete_integration(org, id)
        .await?;
    state.integrations.deleted(org, id);
    if !deleted {
        return Err(ApiError::not_found("integration"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// `GET /api/agents/{id}/integrations`, in attachment order.
#[utoipa::path(get, path = "/api/agents/{agent_id}/integrations", tag = "integrations", operation_id = "agent_integrations_list", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The attached integrations", body = AttachedIntegrations)))]
pub async fn attached_list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let data = state.store.integrations().org_integrations(org).await?;
    let shown = data
        .of_agent(agent.id)
        .map(|(integration, attachment)| attached(integration, attachment.clone()))
        .collect();
    Ok(HttpResponse::Ok().json(AttachedIntegrations {
        integrations: shown,
    }))
}

/// `POST /api/agents/{id}/integrations`: 201 when attached, 200 when it
/// was and its tables were replaced; a table the integration does not
/// expose is 422.
#[utoipa::path(post, path = "/api/agents/{agent_id}/integrations", tag = "integrations", operation_id = "agent_integrations_attach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = AttachIntegration, responses((status = 201, description = "Attached", body = AttachedIntegration), (status = 200, description = "Was attached; `allowed_tables` replaced", body = AttachedIntegration)))]
pub async fn attach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<AttachIntegration>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let integration = stored(&state, &caller, body.integration_id).await?;
    if let Some(tables) = &body.allowed_tables
        && let Some(unknown) = tables
            .iter()
            .find(|t| !integration.schema.iter().any(|s| &s.name == *t))
    {
        return Err(ApiError::invalid(
            "allowedTables",
            format!("`{unknown}` is not a table the integration exposes"),
        ));
    }
    let (org, id, tables) = (caller.org_id, integration.id, body.allowed_tables);
    let records = state.store.integrations();
    let outcome = records
        .attach_integration(org, agent.id, id, tables)
        .await?;
    let attachment = records
        .org_integrations(org)
        .await?
        .attachments
        .into_iter()
        .find(|(of, attachment)| *of == agent.id && attachment.target == id)
        .map(|(_, attachment)| attachment);
    state.integrations.forget(org);
    let attachment = match (outcome, attachment) {
        (AttachOutcome::Missing, _) | (_, None) => {
            return Err(ApiError::not_found("integration"));
        }
        (_, Some(attachment)) => attachment,
    };
    let shown = attached(&integration, attachment);
    Ok(if outcome == AttachOutcome::Attached {
        HttpResponse::Created().json(shown)
    } else {
        HttpResponse::Ok().json(shown)
    })
}

/// `DELETE /api/agents/{id}/integrations`: 404 when it was not attached.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/integrations", tag = "integrations", operation_id = "agent_integrations_detach", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = DetachIntegration, responses((status = 200, description = "Detached", body = super::Ok)))]
pub async fn detach(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<DetachIntegration>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let (org, id) = (caller.org_id, body.into_inner().integration_id);
    let detached = state
        .store
        .integrations()
        .detach_integration(org, agent.id, id)
        .await?;
    state.integrations.forget(org);
    if !detached {
        return Err(ApiError::NotFound("the integration is not attached".into()));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
