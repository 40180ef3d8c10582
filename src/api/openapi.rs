//! The API description (`operations.md`): `GET /openapi.json` is OpenAPI
//! 3.1 generated from the code (each handler's `#[utoipa::path]`, each body's
//! `ToSchema`), and `GET /docs` is Swagger UI served from files built into
//! the binary (utoipa-swagger-ui's `vendored` feature, stored gzipped), so
//! it works with no internet.
//!
//! What every operation shares is added here, by rule, rather than repeated
//! on 40 handlers: the error responses (all with the contract's
//! `{error, detail}` body), the `X-Request-Id` header, and the bearer scheme.
//! The role a route admits is its security requirement's scopes (OpenAPI 3.1
//! allows role names there for non-OAuth schemes): `[]` any authenticated
//! caller, `["member"]`, `["admin"]`, `["platform_admin"]`, `["jwt"]` (a
//! JWT caller, never a key); a public route has no security requirement.

use std::io::Read;
use std::sync::{Arc, OnceLock};

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use utoipa::OpenApi;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{self as oa, Ref, RefOr};
use utoipa_swagger_ui::Config;

use super::RouteDocs;
use crate::error::ApiError;

/// Where the document is served (and where `/docs` reads it from).
pub const DOCUMENT_PATH: &str = "/openapi.json";

const DESCRIPTION: &str = "\
Confer hosts AI agents: create agents, open threads, send a message and read the \
answer as a Server-Sent Events stream.

Authenticate with `Authorization: Bearer <key>`: an API key (`cfr_…`) or a JWT \
signed by the org's backend. The role an operation admits is the scope list of its \
`bearer` requirement: `[]` any caller, `member`, `admin`, `platform_admin`, `jwt` (a JWT, \
never an API key). The public chat routes (`/api/public/chat/{slug}/…`) take a \
visitor token (`cfv_…`, the `visitor` scheme) from `POST …/session` instead.

Every error answers `{\"error\": CODE, \"detail\": \"…\"}`; every response carries \
`X-Request-Id`.

A send's stream (and `GET /api/threads/{thread_id}/stream`) is `text/event-stream`: \
each event has `id: T.N` (turn, frame), `event: <name>` and one `data:` line of \
JSON. Names: `meta` (first), `token`, `tool_call`, `tool_executing`, \
`tool_result`, `profile_switch_proposal`, `requires_action`, `compaction`, \
`queued`, `watching`, `turn_gap`, `error`, and `done` (always last). The \
`ThreadEvent` schema lists each event's data.";

/// The document with the shared parts added.
#[derive(OpenApi)]
#[openapi(
    info(title = "Confer", description = DESCRIPTION, license(name = "Apache-2.0")),
    tags(
        (name = "operations", description = "Health, readiness, metrics and this description"),
        (name = "agents", description = "Agents and their configuration"),
        (name = "computer", description = "Computer use: an agent's sandbox configuration and instances"),
        (name = "threads", description = "Threads, their messages and streams"),
        (name = "tools", description = "The org's server-side tools"),
        (name = "mcps", description = "MCP servers and the agents that use them"),
        (name = "integrations", description = "Databases the agents query"),
        (name = "keys", description = "API keys"),
        (name = "orgs", description = "Organizations"),
        (name = "publishing", description = "Public chats: publications, embed domains, multiplayer settings"),
        (name = "usage", description = "Usage records"),
        (name = "observability", description = "Turn traces (logs) and analytics"),
        (name = "runners", description = "Runners, their budgets and runs"),
        (name = "projects", description = "Projects, their members, and the threads, agents and runners in them"),
    ),
    components(schemas(confer_actors::ThreadEvent))
)]
struct ApiDoc;

/// The document, built once, as JSON text.
fn document_json() -> &'static Result<String, String> {
    static JSON: OnceLock<Result<String, String>> = OnceLock::new();
    JSON.get_or_init(|| {
        let doc = document()?;
        serde_json::to_string(&doc).map_err(|e| e.to_string())
    })
}

/// The whole API description as served, event streams described
/// (`confer openapi` prints this; no store or server needed).
pub fn document() -> Result<serde_json::Value, String> {
    let mut doc = serde_json::to_value(description()).map_err(|e| e.to_string())?;
    super::openapi_streams::describe_streams(&mut doc)?;
    Ok(doc)
}

/// The whole API description.
pub fn description() -> oa::OpenApi {
    let mut doc = ApiDoc::openapi().merge_from(RouteDocs::openapi());
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    add_shared_parts(&mut doc);
    doc
}

/// `GET /openapi.json`
#[utoipa::path(get, path = "/openapi.json", tag = "operations", operation_id = "openapi_document",
    responses((status = 200, description = "This document (OpenAPI 3.1)", content_type = "application/json")))]
pub async fn serve_document() -> HttpResponse {
    match document_json() {
        Ok(json) => HttpResponse::Ok()
            .content_type("application/json")
            .body(json.as_str()),
        Err(error) => {
            tracing::error!(%error, "the API description did not serialize");
            HttpResponse::InternalServerError().finish()
        }
    }
}

/// `GET /docs`: the API reference page (Swagger UI, served from the binary).
#[utoipa::path(get, path = "/docs", tag = "operations", operation_id = "openapi_docs",
    responses((status = 308, description = "To `/docs/`, the reference page (HTML)")))]
pub async fn docs() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/docs/"))
        .finish()
}

/// The reference page's configuration: it reads [`DOCUMENT_PATH`].
fn docs_config() -> Arc<Config<'static>> {
    static CONFIG: OnceLock<Arc<Config<'static>>> = OnceLock::new();
    Arc::clone(CONFIG.get_or_init(|| Arc::new(Config::new([DOCUMENT_PATH]))))
}

/// Whether the request accepts a gzip body (`Accept-Encoding` names `gzip`
/// or `*` with a quality above zero).
pub(super) fn accepts_gzip(request: &HttpRequest) -> bool {
    let Some(accepted) = request
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    accepted.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let quality = parts
            .find_map(|p| p.strip_prefix("q="))
            .and_then(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        (name.eq_ignore_ascii_case("gzip") || name == "*") && quality > 0.0
    })
}

/// `GET /docs/{file}`: the reference page's files (Swagger UI), built into
/// the binary. They are stored gzipped: sent so to a client that accepts
/// gzip (every browser), inflated for one that does not.
#[utoipa::path(get, path = "/docs/{file}", tag = "operations", operation_id = "openapi_docs_file",
    params(("file" = String, Path, description = "`index.html` (empty), a script, a style sheet or an icon")),
    responses((status = 200, description = "The file (HTML, JavaScript, CSS or PNG)")))]
pub async fn docs_file(
    file: web::Path<String>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let found = utoipa_swagger_ui::serve(&file, docs_config())
        .map_err(|e| ApiError::Internal(format!("serving a docs file: {e}")))?;
    let file = found.ok_or_else(|| ApiError::NotFound("no such docs file".into()))?;
    let mut response = HttpResponse::Ok();
    response
        .content_type(file.content_type)
        .insert_header((header::VARY, "Accept-Encoding"));
    if !file.gzpipped {
        return Ok(response.body(file.bytes.into_owned()));
    }
    if accepts_gzip(&request) {
        response.insert_header((header::CONTENT_ENCODING, "gzip"));
        return Ok(response.body(file.bytes.into_owned()));
    }
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&file.bytes[..])
        .read_to_end(&mut inflated)
        .map_err(|e| ApiError::Internal(format!("inflating a docs file: {e}")))?;
    Ok(response.body(inflated))
}

/// An error response of the contract.
fn error_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}

/// The shared error responses: (status, component name, when).
const ERRORS: &[(&str, &str, &str)] = &[
    (
        "400",
        "BadRequest",
        "`BAD_REQUEST`: the body, query or a header is malformed",
    ),
    (
        "401",
        "Unauthorized",
        "`UNAUTHORIZED`: no or invalid credentials",
    ),
    (
        "403",
        "Forbidden",
        "`FORBIDDEN`: the caller's role or org does not admit this",
    ),
    (
        "404",
        "NotFound",
        "`NOT_FOUND`: nothing by that id in the caller's org",
    ),
    (
        "413",
        "PayloadTooLarge",
        "`PAYLOAD_TOO_LARGE`: the body is over the limit",
    ),
    (
        "422",
        "ValidationError",
        "`VALIDATION_ERROR`: a field breaks a rule; the detail names it",
    ),
    (
        "429",
        "RateLimited",
        "`RATE_LIMITED`: over the key's rate; see `Retry-After`",
    ),
    (
        "500",
        "Internal",
        "`INTERNAL`: logged in full, answered with a generic detail",
    ),
];

/// Adds the bearer scheme, the error body and responses, and to every
/// operation the errors its shape allows and the `X-Request-Id` header.
fn add_shared_parts(doc: &mut oa::OpenApi) {
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            Http::builder()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("API key (cfr_…) or JWT")
                .build(),
        ),
    );
    components.add_security_scheme(
        "visitor",
        SecurityScheme::Http(
            Http::builder()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("visitor token (cfv_…) from POST /api/public/chat/{slug}/session")
                .build(),
        ),
    );
    let codes = confer_actors::codes::ALL.iter().map(|c| c.code);
    components.schemas.insert(
        "ErrorBody".into(),
        ObjectBuilder::new()
            .description(Some("The body of every error response."))
            .property(
                "error",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(codes)),
            )
            .required("error")
            .property(
                "detail",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some("What was wrong, naming the field; never internals.")),
            )
            .into(),
    );
    // A 412's body is the error body and the current object.
    components.schemas.insert(
        "StaleBody".into(),
        AllOfBuilder::new()
            .item(Ref::from_schema_name("ErrorBody"))
            .item(
                ObjectBuilder::new()
                    .property("current", ObjectBuilder::new())
                    .required("current"),
            )
            .description(Some(
                "`PRECONDITION_FAILED`'s body: the error and the current object.",
            ))
            .into(),
    );
    for (_, name, when) in ERRORS {
        components
            .responses
            .insert((*name).into(), RefOr::T(error_response(when)));
    }
    for (path, item) in doc.paths.paths.iter_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            add_errors(path, operation);
        }
    }
}

/// The errors an operation can answer follow from its shape: credentials
/// (401/403/429), a path id (404), a body or query (400/413/422), and any
/// (500).
fn add_errors(path: &str, operation: &mut Operation) {
    // A public route has no requirement, or only the empty one.
    let public = SecurityRequirement::default();
    let protected = operation
        .security
        .iter()
        .flatten()
        .any(|requirement| *requirement != public);
    let has_query = operation.parameters.iter().flatten().any(|p| match p {
        RefOr::T(p) => matches!(p.parameter_in, oa::path::ParameterIn::Query),
        RefOr::Ref(_) => false,
    });
    let has_body = operation.request_body.is_some();
    for (status, name, _) in ERRORS {
        let applies = match *status {
            "401" | "403" | "429" => protected,
            "404" => path.contains('{'),
            "400" => has_body || has_query,
            "413" | "422" => has_body,
            _ => true,
        };
        if applies {
            operation
                .responses
                .responses
                .entry((*status).into())
                .or_insert_with(|| RefOr::Ref(Ref::from_response_name(*name)));
        }
    }
    let request_id = HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .description(Some(
            "The client's own id (at most 64 visible characters) or a new UUID",
        ))
        .build();
    for response in operation.responses.responses.values_mut() {
        if let RefOr::T(response) = response {
            response
                .headers
                .entry("X-Request-Id".into())
                .or_insert_with(|| RefOr::T(request_id.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(header: &str) -> bool {
        let request = actix_web::test::TestRequest::default()
            .insert_header((header::ACCEPT_ENCODING, header))
            .to_http_request();
        accepts_gzip(&request)
    }

    #[test]
    fn gzip_is_sent_only_to_clients_that_accept_it() {
        assert!(accepts("gzip, deflate, br"));
        assert!(accepts("br;q=1.0, gzip;q=0.8"));
        assert!(accepts("GZIP"));
        assert!(accepts("*"));
        assert!(!accepts("gzip;q=0"));
        assert!(!accepts("gzip;q=0.0, br"));
        assert!(!accepts("identity"));
        assert!(!accepts(""));
    }
}
