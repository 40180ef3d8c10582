//! The catalogue (`GET /api/marketplace`, A M), the official templates
//! (`GET /api/marketplace/official`, A M) and `use` (`POST
//! /api/marketplace/official/use`, A): `marketplace-channels.md` §5.

use std::collections::BTreeMap;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId};
use serde::{Deserialize, Serialize};

use super::avatar_url;
use crate::api::agents::AgentView;
use crate::api::extract::JsonBody;
use crate::api::{idempotency, page_limit};
use crate::auth::{Admin, Member};
use confer_actors::codes;

use crate::error::ApiError;
use crate::marketplace::adopt::{self, AdoptedServer, Adoption, ListingSource, Skipped, SourceRef};
use crate::marketplace::listing::{self, Filter};
use crate::marketplace::profile::{Capability, Profile, Visibility};
use crate::marketplace::templates::{self, Template};
use crate::state::AppState;
use crate::store::marketplace::Adopted;
use crate::store::mcps::{McpTransport, OrgMcps};
use crate::store::port::ListingFilter;
use crate::store::port::configs::{PlainConfig, agent_config};

/// An MCP server of a listed agent.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ListedServer {
    name: String,
    /// `streamable_http`, `sse` or `stdio`.
    transport: &'static str,
    /// Whether its URL is a remote of an MCP registry entry.
    public: bool,
    /// Shown to the listing's own org, or when public; null otherwise
    /// (a private URL often carries a secret in its path).
    url: Option<String>,
}

/// One catalogue entry.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Listing {
    /// The agent's id.
    #[schema(value_type = uuid::Uuid)]
    id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    org_id: OrgId,
    org_name: String,
    title: String,
    description: String,
    category: Option<String>,
    tags: Vec<String>,
    capabilities: Vec<Capability>,
    avatar_url: Option<String>,
    visibility: Visibility,
    default_model: String,
    /// The org tools its default profile offers.
    tools: Vec<String>,
    mcp_servers: Vec<ListedServer>,
    updated_at: Option<DateTime<Utc>>,
}

/// `GET /api/marketplace` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CatalogueQuery {
    /// Matched in title, description and tags (case-insensitive).
    q: Option<String>,
    category: Option<String>,
    tag: Option<String>,
    /// 20 by default, at most 100.
    limit: Option<u32>,
    /// `X-Next-Cursor` of the previous page (`{updated_at}|{id}`).
    cursor: Option<String>,
}

/// What one org's listings show of it, read once a page.
struct OrgParts {
    name: String,
    tools: Vec<crate::store::tools::OrgTool>,
    mcps: OrgMcps,
}

fn servers(
    mcps: &OrgMcps,
    agent: AgentId,
    own: bool,
    is_public: impl Fn(&str) -> bool,
) -> Vec<ListedServer> {
    mcps.of_agent(agent)
        .map(|(server, _)| {
            let public = server.transport != McpTransport::Stdio
                && server.url.as_deref().is_some_and(&is_public);
            ListedServer {
                name: server.name.clone(),
                transport: server.transport.as_str(),
                public,
                url: server.url.clone().filter(|_| own || public),
            }
        })
        .collect()
}

/// `GET /api/marketplace`: listings the caller's org may see, newest first.
#[utoipa::path(get, path = "/api/marketplace", tag = "marketplace", operation_id = "marketplace_browse", security(("bearer" = ["member"])), params(CatalogueQuery), responses((status = 200, description = "Listings newest first; `X-Next-Cursor` when more may follow", body = [Listing]), (status = 400, description = "A cursor not of this list", body = crate::error::ErrorBody<'static>)))]
pub async fn browse(
    state: web::Data<AppState>,
    caller: Member,
    query: web::Query<CatalogueQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = page_limit(
        query.limit,
        listing::DEFAULT_LIMIT as u32,
        listing::MAX_LIMIT as u32,
    );
    let after = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(cursor) => Some(listing::parse_cursor(cursor).ok_or_else(|| {
            ApiError::BadRequest("cursor: expected `{updated_at}|{id}` of this list".into())
        })?),
    };
    let filter = Filter {
        q: query
            .q
            .map(|q| q.trim().to_lowercase())
            .filter(|q| !q.is_empty()),
        category: query.category,
        tag: query.tag.map(|t| t.trim().to_lowercase()),
    };
    let viewer = caller.org_id;
    let keep: ListingFilter = Box::new(move |p, a| filter.admits(viewer, p, a));
    let page = state
        .store
        .marketplace()
        .marketplace_listed(after, limit, listing::SCAN_PER_PAGE, keep)
        .await?;
    let mut parts = BTreeMap::new();
    for (profile, _) in &page.listings {
        let org = profile.org_id;
        if parts.contains_key(&org) {
            continue;
        }
        let part = OrgParts {
            name: state
                .store
                .orgs()
                .org(org)
                .await?
                .map(|o| o.name)
                .unwrap_or_default(),
            tools: state.store.tools().list_tools(org).await?,
            mcps: state.store.mcps().org_mcps(org).await?,
        };
        parts.insert(org, part);
    }
    let listings: Vec<Listing> = page
        .listings
        .iter()
        .filter_map(|(profile, agent)| {
            let part = parts.get(&profile.org_id)?;
            Some(Listing {
                id: agent.id,
                org_id: profile.org_id,
                org_name: part.name.clone(),
                title: listing::title(profile, agent).to_owned(),
                description: listing::description(profile, agent).to_owned(),
                category: profile.category.clone(),
                tags: profile.tags.clone(),
                capabilities: profile.capabilities.clone(),
                avatar_url: avatar_url(profile),
                visibility: profile.visibility,
                default_model: agent.default_model.clone(),
                tools: part
                    .tools
                    .iter()
                    .filter(|t| confer_actors::gating::default_offers(agent, &t.name))
                    .map(|t| t.name.clone())
                    .collect(),
                mcp_servers: servers(&part.mcps, agent.id, profile.org_id == viewer, |url| {
                    state.mcp_registry.lists(url)
                }),
                updated_at: profile.updated_at,
            })
        })
        .collect();
    let mut response = HttpResponse::Ok();
    if let Some(next) = page.next {
        let last = page.listings.last().map(|(p, _)| p);
        let cursor = last.and_then(listing::cursor_of).unwrap_or_else(|| {
            // A page that found nothing in its scan continues after the
            // last entry it looked at.
            cursor_of_key(&next)
        });
        response.insert_header(("X-Next-Cursor", cursor));
    }
    Ok(response.json(listings))
}

/// The cursor of an index key (the scan's last entry).
fn cursor_of_key(key: &[u8; 24]) -> String {
    let mut inverted = [0u8; 8];
    inverted.copy_from_slice(&key[..8]);
    let millis = u64::MAX - u64::from_be_bytes(inverted);
    let at = DateTime::<Utc>::from_timestamp_millis(millis as i64).unwrap_or_default();
    let mut id = [0u8; 16];
    id.copy_from_slice(&key[8..]);
    let mut profile = Profile::unsaved(OrgId::new(), AgentId::from_bytes(id));
    profile.updated_at = Some(at);
    listing::cursor_of(&profile).unwrap_or_default()
}

/// `GET /api/marketplace/official`
#[utoipa::path(get, path = "/api/marketplace/official", tag = "marketplace", operation_id = "marketplace_official", security(("bearer" = ["member"])), responses((status = 200, description = "The official templates, as shipped in the binary", body = [Template])))]
pub async fn official(_caller: Member) -> HttpResponse {
    HttpResponse::Ok().json(templates::all())
}

/// `POST /api/marketplace/official/use` body: one of the two ids.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UseBody {
    /// An official template's id.
    template_id: Option<String>,
    /// A listed agent's id.
    #[schema(value_type = Option<uuid::Uuid>)]
    listing_id: Option<AgentId>,
    /// The new agent's name (default: the title).
    name: Option<String>,
}

/// `use`'s answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UseAnswer {
    agent: AgentView,
    source: SourceRef,
    mcp_servers: Vec<AdoptedServer>,
    skipped: Vec<Skipped>,
}

/// The adoption of a listing the caller's org may see (else 404).
async fn listing_adoption(
    state: &AppState,
    org: OrgId,
    id: AgentId,
    name: Option<String>,
) -> Result<Adoption, ApiError> {
    let store = &state.store;
    let (profile, agent) = store
        .marketplace()
        .marketplace_listing(id)
        .await?
        .filter(|(profile, agent)| Filter::default().admits(org, profile, agent))
        .ok_or_else(|| ApiError::not_found("listing"))?;
    let from = agent.org_id;
    let plan = agent_config(store.configs(), from, id, PlainConfig::Plans).await?;
    let compaction = agent_config(store.configs(), from, id, PlainConfig::Compaction).await?;
    let mcps = store.mcps().org_mcps(from).await?;
    let integrations = store.integrations().org_integrations(from).await?;
    let tools = store.tools().list_tools(from).await?;
    let own = store.mcps().mcps(org).await?;
    let registry = std::sync::Arc::clone(&state.mcp_registry);
    let is_public = move |url: &str| registry.lists(url);
    let source = ListingSource {
        profile: &profile,
        agent: &agent,
        plan,
        compaction,
        mcps: &mcps,
        integrations: &integrations,
        org_tools: tools
            .iter()
            .filter(|t| confer_actors::gating::default_offers(&agent, &t.name))
            .map(|t| t.name.clone())
            .collect(),
        target_mcps: &own,
        is_public: &is_public,
    };
    Ok(adopt::from_listing(&source, org, name, Utc::now()))
}

/// `POST /api/marketplace/official/use`: an agent in the caller's org from
/// a template or a listing; 201.
#[utoipa::path(post, path = "/api/marketplace/official/use", tag = "marketplace", operation_id = "marketplace_use", security(("bearer" = ["admin"])), params(("Idempotency-Key" = Option<String>, Header, description = "A retry with the same key and body answers the first result")), request_body = UseBody, responses((status = 201, description = "The new agent, where it came from, its MCP servers and what was not copied", body = UseAnswer), (status = 400, description = "Neither or both of `templateId` and `listingId`", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such template, or no listing the org may see", body = crate::error::ErrorBody<'static>), (status = 422, description = "`name` empty or too long, or `IDEMPOTENCY_KEY_REUSED`", body = crate::error::ErrorBody<'static>)))]
pub async fn use_one(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<UseBody>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency::from_header(&http)?;
    let body = body.into_inner();
    let keyed = key.map(|key| {
        let hashed = idempotency::scoped_key(b"marketplace-use", &caller, &key, &body);
        (hashed.key, confer_actors::idempotency::hex(&hashed.request))
    });
    let org = caller.org_id;
    let adoption = match (&body.template_id, body.listing_id) {
        (Some(id), None) => {
            let template = templates::by_id(id).ok_or_else(|| ApiError::not_found("template"))?;
            adopt::from_template(template, org, body.name, &state.default_model, Utc::now())
        }
        (None, Some(id)) => listing_adoption(&state, org, id, body.name).await?,
        _ => {
            return Err(ApiError::BadRequest(
                "templateId, listingId: give exactly one".into(),
            ));
        }
    };
    crate::api::agents::validate(&adoption.agent)?;
    let made: Vec<_> = adoption.new_mcps.iter().map(|s| (s.org_id, s.id)).collect();
    let answer = UseAnswer {
        agent: AgentView::from(adoption.agent.clone()),
        source: adoption.source.clone(),
        mcp_servers: adoption.mcp_servers.clone(),
        skipped: adoption.skipped.clone(),
    };
    let text = serde_json::to_string(&answer)
        .map_err(|e| ApiError::Internal(format!("use's answer: {e}")))?;
    let adopted = state
        .store
        .marketplace()
        .adopt_agent(adoption, keyed, text.clone())
        .await?;
    let stored = (adopted, text);
    let body = match stored {
        (Adopted::Stored, text) => {
            for (org, id) in made {
                state.mcps.server_changed(org, id, false);
            }
            text
        }
        (Adopted::Repeat(first), _) => first,
        (Adopted::KeyReused, _) => {
            return Err(ApiError::Refused {
                code: codes::IDEMPOTENCY_KEY_REUSED,
                detail: "Idempotency-Key: used before with another request".into(),
                retry_after: None,
            });
        }
        (Adopted::TargetGone, _) => {
            return Err(ApiError::Conflict(
                "an MCP server or integration of the listing was deleted meanwhile; retry".into(),
            ));
        }
    };
    Ok(HttpResponse::Created()
        .content_type("application/json")
        .body(body))
}
