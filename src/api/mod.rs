//! The HTTP layer: one module per resource, each with its request and response
//! shapes beside its handlers. Handlers parse, authorize (every protected one
//! takes a `Caller`), call the store or an actor, and shape the response.
//! The route table below is the whole API at a glance.

pub mod admin;
pub mod agent_config;
pub mod agent_suggestions;
pub mod agents;
pub mod analytics;
pub mod body_rules;
pub mod channels;
pub mod code_agents;
pub mod code_sessions;
pub mod compaction;
pub mod computer;
pub mod context;
pub mod cors;
pub mod credentials;
pub mod delegated;
pub mod extract;
pub mod frame_policy;
pub mod health;
pub mod idempotency;
pub mod integrations;
pub mod keys;
pub mod knowledge;
pub mod logs;
pub mod marketplace;
pub mod mcps;
pub mod memories;
pub mod messages;
pub mod metrics;
mod middleware;
pub mod multiplayer;
pub mod openapi;
mod openapi_streams;
pub mod org_settings;
pub mod orgs;
pub mod pages;
pub mod participants;
pub mod plan_config;
pub mod plans;
pub mod projects;
pub mod public;
pub mod publish;
pub mod replayed;
pub mod runners;
pub mod scheduled_tasks;
pub mod skills;
pub mod sse;
pub mod stop;
pub mod streams;
pub mod threads;
pub mod todos;
pub mod tools;
pub mod uploads;
pub mod usage;
pub mod vendor_options;
pub mod web_config;

use actix_web::web;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use self::channels::contacts as channel_contacts;
use self::channels::qr as channel_qr;
use self::channels::webhook as channel_webhook;
use self::code_sessions::work as code_session_work;
use self::marketplace::avatars as marketplace_avatars;
use self::marketplace::catalogue as marketplace_catalogue;
use self::marketplace::proposals as marketplace_proposals;
use self::mcps::attachments;
use self::mcps::oauth as mcp_oauth;
use self::mcps::registry as mcp_registry;
use self::projects::members as project_members;
use self::public::config as public_chat;
use self::public::messages as public_messages;
use self::public::people as public_people;
use self::public::session as public_session;
use self::public::threads as public_threads;
use self::runners::events as run_events;
use self::runners::runs;
use self::runners::{
    budget as runner_budget, button as runner_button, deliveries as runner_deliveries,
    suggestions as runner_suggestions, triggers as runner_triggers, webhooks as runner_webhooks,
};
use self::skills::attachments as skill_attachments;
use self::skills::install as skill_install;
use crate::error::ApiError;
pub use middleware::{MAX_HEADER_BYTES, header_limit, json_errors, node_header};

/// Declares the route table once: it mounts every route and lists them in
/// [`MOUNTED`], which the route × caller test walks (a route added here
/// without an entry there fails it). A path's methods share one resource, so
/// another method is 405 with `Allow`.
macro_rules! route_table {
    ($( $path:literal => { $( $method:ident => $module:ident :: $handler:ident ),+ $(,)? } ),+ $(,)?) => {
        /// Every mounted `(method, path)` of the API.
        pub const MOUNTED: &[(&str, &str)] = &[ $( $( (stringify!($method), $path), )+ )+ ];

        /// Mounts every route of the service.
        pub fn routes(cfg: &mut web::ServiceConfig) {
            $(
                cfg.service(
                    web::resource($path)
                        $( .route(web::method(actix_web::http::Method::$method).to($module::$handler)) )+
                );
            )+
            cfg.default_service(web::to(no_route));
        }

        /// The operations of every mounted handler (each describes itself
        /// with `#[utoipa::path]`); `openapi` adds what they share.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths( $( $( $module::$handler ),+ ),+ ))]
        pub struct RouteDocs;
    };
}

// The role each handler admits is in its signature (`Caller`, `Member`,
// `Admin`, `PlatformAdmin`, `Visitor`; see `crate::auth`).
route_table! {
    "/healthz" => { GET => health::healthz },
    "/readyz" => { GET => health::readyz },
    "/metrics" => { GET => metrics::scrape },
    "/openapi.json" => { GET => openapi::serve_document },
    "/docs" => { GET => openapi::docs },
    "/docs/{file:.*}" => { GET => openapi::docs_file },
    "/api/agents" => { GET => agents::list, POST => agents::create },
    "/api/agents/{agent_id}" => {
        GET => agents::get, PATCH => agents::update, DELETE => agents::delete,
    },
    "/api/agents/{agent_id}/credentials" => { GET => credentials::get, PUT => credentials::put },
    "/api/agents/{agent_id}/compaction" => { GET => compaction::get, PUT => compaction::put },
    "/api/agents/{agent_id}/suggestions" => {
        GET => agent_suggestions::get, PUT => agent_suggestions::put,
        POST => agent_suggestions::generate,
    },
    "/api/agents/{agent_id}/plan" => { GET => plan_config::get, PUT => plan_config::put },
    "/api/agents/{agent_id}/skills" => {
        GET => skill_attachments::agent_list, POST => skill_attachments::agent_attach,
        DELETE => skill_attachments::agent_detach,
    },
    "/api/agents/{agent_id}/web" => { GET => web_config::get, PUT => web_config::put },
    "/api/agents/{agent_id}/delegated" => { GET => delegated::get, PUT => delegated::put },
    "/api/code-agents" => { GET => code_agents::list, POST => code_agents::create },
    "/api/code-agents/{code_agent_id}" => {
        GET => code_agents::get, PATCH => code_agents::update, DELETE => code_agents::delete,
    },
    "/api/code-sessions" => { GET => code_sessions::list, POST => code_sessions::create },
    "/api/code-sessions/{code_session_id}" => {
        GET => code_sessions::get, PATCH => code_sessions::update,
    },
    "/api/code-sessions/{code_session_id}/messages" => { POST => code_session_work::message },
    "/api/code-sessions/{code_session_id}/events" => { GET => code_session_work::events },
    "/api/code-sessions/{code_session_id}/cancel" => { POST => code_session_work::cancel },
    "/api/code-sessions/{code_session_id}/archive" => { POST => code_session_work::archive },
    "/api/code-sessions/{code_session_id}/diff" => { GET => code_session_work::diff },
    "/api/agents/{agent_id}/computer" => { GET => computer::get, PUT => computer::put },
    "/api/agents/{agent_id}/computer-instances" => { GET => computer::instances },
    "/api/agents/{agent_id}/marketplace" => {
        GET => marketplace::get, PUT => marketplace::put, DELETE => marketplace::delete,
    },
    "/api/agents/{agent_id}/marketplace/avatar" => {
        POST => marketplace_avatars::upload, DELETE => marketplace_avatars::remove,
    },
    "/api/agents/{agent_id}/marketplace/capabilities" => {
        PUT => marketplace::put_capabilities,
    },
    "/api/agents/{agent_id}/marketplace/generate-description" => {
        POST => marketplace_proposals::generate_description,
    },
    "/api/agents/{agent_id}/marketplace/detect-capabilities" => {
        POST => marketplace_proposals::detect_capabilities,
    },
    "/api/agents/{agent_id}/channels" => { GET => channels::list, POST => channels::create },
    "/api/agents/{agent_id}/channels/whatsapp/qr" => { GET => channel_qr::code },
    "/api/agents/{agent_id}/channels/{channel_id}" => {
        PATCH => channels::update, DELETE => channels::delete,
    },
    "/api/agents/{agent_id}/channels/{channel_id}/contacts" => { GET => channel_contacts::list },
    "/api/channels/{channel_id}/webhook" => {
        GET => channel_webhook::subscribe, POST => channel_webhook::deliver,
    },
    "/api/marketplace" => { GET => marketplace_catalogue::browse },
    "/api/mcp-registry/search" => { GET => mcp_registry::search },
    "/api/mcp-registry/managed" => { GET => mcp_registry::managed },
    "/api/marketplace/avatars/{agent_id}" => { GET => marketplace_avatars::file },
    "/api/marketplace/official" => { GET => marketplace_catalogue::official },
    "/api/marketplace/official/use" => { POST => marketplace_catalogue::use_one },
    "/api/skills" => { GET => skills::list, POST => skill_install::install },
    "/api/skills/browse" => { GET => skills::browse },
    "/api/skills/{skill_id}" => { GET => skills::get, DELETE => skills::delete },
    "/api/skills/{skill_id}/sync" => { POST => skills::sync },
    "/api/threads" => { GET => threads::list, POST => threads::create },
    "/api/threads/{thread_id}" => {
        GET => threads::get, PATCH => threads::update, DELETE => threads::delete,
    },
    "/api/threads/{thread_id}/computer" => {
        GET => computer::thread_get, DELETE => computer::thread_delete,
    },
    "/api/threads/{thread_id}/messages" => { GET => messages::history, POST => messages::send },
    "/api/threads/{thread_id}/stop" => { POST => stop::stop },
    "/api/threads/{thread_id}/stream" => { GET => streams::stream },
    "/api/threads/{thread_id}/context" => { GET => context::get },
    "/api/threads/{thread_id}/participants" => {
        GET => participants::list, POST => participants::add, DELETE => participants::remove,
    },
    "/api/keys" => { GET => keys::list, POST => keys::create },
    "/api/keys/{key_id}" => { DELETE => keys::delete },
    "/api/orgs" => { GET => orgs::list, POST => orgs::create },
    "/api/orgs/settings" => { GET => org_settings::get, POST => org_settings::put },
    "/api/agents/{agent_id}/publish" => {
        GET => publish::get, POST => publish::create, PATCH => publish::update,
        DELETE => publish::delete,
    },
    "/api/agents/{agent_id}/multiplayer" => { GET => multiplayer::get, PUT => multiplayer::put },
    "/api/public/chat/{slug}" => { GET => public_chat::config },
    "/c/{slug}" => { GET => pages::chat },
    "/c/{slug}/embed.js" => { GET => pages::embed },
    "/assets/{name}" => { GET => pages::asset },
    "/console" => { GET => pages::console },
    "/api/public/chat/{slug}/session" => { POST => public_session::mint },
    "/api/public/chat/{slug}/threads" => {
        GET => public_threads::list, POST => public_threads::create,
    },
    "/api/public/chat/{slug}/threads/{thread_id}" => { GET => public_threads::get },
    "/api/public/chat/{slug}/threads/{thread_id}/messages" => {
        GET => public_messages::history, POST => public_messages::send,
    },
    "/api/public/chat/{slug}/threads/{thread_id}/stream" => { GET => public_messages::stream },
    "/api/public/chat/{slug}/threads/{thread_id}/stop" => { POST => public_messages::stop },
    "/api/public/chat/{slug}/threads/{thread_id}/invite" => { POST => public_people::invite },
    "/api/public/chat/{slug}/threads/{thread_id}/join" => { POST => public_people::join },
    "/api/public/chat/{slug}/threads/{thread_id}/participants" => {
        GET => public_people::participants, DELETE => public_people::remove,
    },
    "/api/admin/backup" => { GET => admin::backup },
    "/api/admin/export" => { GET => admin::export },
    "/api/admin/cluster" => { GET => admin::cluster },
    "/api/usage" => { GET => usage::list },
    "/api/logs" => { GET => logs::list },
    "/api/logs/{trace_id}" => { GET => logs::get },
    "/api/analytics" => { GET => analytics::get },
    "/api/tools" => { GET => tools::list, POST => tools::create },
    // Before `{tool_id}`, which would otherwise take the path.
    "/api/tools/execute" => { POST => tools::execute },
    "/api/tools/{tool_id}" => {
        GET => tools::get, PATCH => tools::update, DELETE => tools::delete,
    },
    "/api/mcps" => { GET => mcps::list, POST => mcps::create },
    // Before `{mcp_id}`, which would otherwise take the path.
    "/api/mcps/managed-oauth/start" => { POST => mcp_oauth::start },
    "/api/mcps/managed-oauth/begin" => { GET => mcp_oauth::begin, POST => mcp_oauth::begin_form },
    "/api/mcps/managed-oauth/callback" => { GET => mcp_oauth::callback },
    "/api/mcps/managed-oauth/disconnect" => { POST => mcp_oauth::disconnect },
    "/api/mcps/{mcp_id}" => { GET => mcps::get, PATCH => mcps::update, DELETE => mcps::delete },
    "/api/mcps/{mcp_id}/test" => { POST => mcps::test },
    "/api/agents/{agent_id}/mcps" => {
        GET => attachments::list, POST => attachments::attach, DELETE => attachments::detach,
    },
    "/api/agents/{agent_id}/mcps/{mcp_id}/services" => {
        GET => attachments::services_get, PATCH => attachments::services_set,
    },
    "/api/integrations" => { GET => integrations::list, POST => integrations::create },
    "/api/integrations/{integration_id}" => {
        GET => integrations::get, DELETE => integrations::delete,
    },
    "/api/agents/{agent_id}/integrations" => {
        GET => integrations::attached_list, POST => integrations::attach,
        DELETE => integrations::detach,
    },
    "/api/agents/{agent_id}/knowledge" => {
        GET => knowledge::get_config, PUT => knowledge::put_config,
    },
    "/api/agents/{agent_id}/memory" => {
        GET => memories::get_config, PUT => memories::put_config, POST => memories::recall,
    },
    "/api/agents/{agent_id}/memories" => {
        GET => memories::list, POST => memories::create, DELETE => memories::forget,
    },
    "/api/agents/{agent_id}/memories/{memory_id}" => { DELETE => memories::delete },
    "/api/agents/{agent_id}/scheduled-tasks" => {
        GET => scheduled_tasks::get, PUT => scheduled_tasks::put,
    },
    "/api/memories" => { DELETE => memories::forget_everywhere },
    "/api/knowledge" => { GET => knowledge::list },
    // Before `{document_id}`, which would otherwise take the path.
    "/api/knowledge/upload" => { POST => knowledge::upload },
    "/api/knowledge/search" => { POST => knowledge::search },
    "/api/knowledge/embeddings" => {
        GET => knowledge::get_embeddings, PUT => knowledge::put_embeddings,
        DELETE => knowledge::delete_embeddings,
    },
    "/api/knowledge/{document_id}" => { GET => knowledge::get, DELETE => knowledge::delete },
    "/api/knowledge/{document_id}/chunks" => { GET => knowledge::chunks },
    "/api/knowledge/{document_id}/file" => { GET => knowledge::file },
    "/api/knowledge/{document_id}/reindex" => { POST => knowledge::reindex },
    "/api/runners" => { GET => runners::list, POST => runners::create },
    // Before `{runner_id}`'s routes of the same length.
    "/api/runners/webhooks/{token}" => { POST => runner_webhooks::receive },
    "/api/runners/{runner_id}" => {
        GET => runners::get, PATCH => runners::update, DELETE => runners::delete,
    },
    "/api/runners/{runner_id}/budget" => {
        GET => runner_budget::get_budget, PUT => runner_budget::put_budget,
    },
    "/api/runners/{runner_id}/triggers" => {
        GET => runner_triggers::list, POST => runner_triggers::create,
    },
    "/api/runners/{runner_id}/triggers/{trigger_id}" => {
        PATCH => runner_triggers::update, DELETE => runner_triggers::delete,
    },
    "/api/runners/{runner_id}/deliveries" => { GET => runner_deliveries::list },
    "/api/runners/{runner_id}/button" => {
        GET => runner_button::page, POST => runner_button::start,
    },
    "/api/runners/{runner_id}/button/runs/{run_id}/events" => { GET => runner_button::stream },
    "/api/runners/{runner_id}/embed.js" => { GET => runner_button::embed },
    "/api/runners/{runner_id}/suggestions" => {
        GET => runner_suggestions::get, PUT => runner_suggestions::put,
        POST => runner_suggestions::generate,
    },
    "/api/runners/{runner_id}/skills" => {
        GET => skill_attachments::runner_list, POST => skill_attachments::runner_attach,
        DELETE => skill_attachments::runner_detach,
    },
    "/api/runners/{runner_id}/runs" => { GET => runs::list, POST => runs::start },
    "/api/runners/{runner_id}/runs/{run_id}" => { GET => runs::get },
    "/api/runners/{runner_id}/runs/{run_id}/events" => { GET => run_events::stream },
    "/api/runners/{runner_id}/runs/{run_id}/cancel" => { POST => runs::cancel },
    "/api/runners/{runner_id}/runs/{run_id}/resume" => { POST => runs::resume },
    "/api/projects" => { GET => projects::list, POST => projects::create },
    "/api/projects/{project_id}" => {
        GET => projects::get, PATCH => projects::update, DELETE => projects::delete,
    },
    "/api/projects/{project_id}/members" => {
        GET => project_members::members, POST => project_members::add_member,
        DELETE => project_members::remove_member,
    },
    "/api/plans" => { GET => plans::list, POST => plans::create },
    "/api/plans/{plan_id}" => {
        GET => plans::get, PATCH => plans::update, DELETE => plans::delete,
    },
    "/api/plans/{plan_id}/ready" => { GET => plans::ready },
    "/api/plans/{plan_id}/todos" => { POST => todos::add },
    "/api/plans/{plan_id}/todos/{todo_id}" => { PATCH => todos::update, DELETE => todos::delete },
    "/api/plans/{plan_id}/todos/{todo_id}/deps" => {
        GET => todos::deps, POST => todos::add_deps, DELETE => todos::remove_deps,
    },
}

async fn no_route() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound("no such route".into()))
}

/// The wire form of a timestamp: RFC 3339, UTC, microseconds.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Parses a `cursor` query value.
pub fn parse_cursor(cursor: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    cursor
        .filter(|c| !c.is_empty())
        .map(|c| {
            DateTime::parse_from_rfc3339(c)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| ApiError::BadRequest("cursor: expected an ISO 8601 timestamp".into()))
        })
        .transpose()
}

/// Clamps a page size: default when absent, at least 1, at most `max`.
pub fn page_limit(limit: Option<u32>, default: u32, max: u32) -> usize {
    limit.unwrap_or(default).clamp(1, max) as usize
}

/// `{"ok": true}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Ok {
    pub ok: bool,
}

/// The `{"ok": true}` body of a delete.
pub fn ok() -> web::Json<Ok> {
    web::Json(Ok { ok: true })
}
