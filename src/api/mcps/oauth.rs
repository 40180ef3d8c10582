//! `/api/mcps/managed-oauth/…` (`tools.md` §8): a person connects their
//! account at an MCP server's authorization server. `start` (a JWT caller)
//! answers a single-use Confer `begin` URL; `begin`, brought with the
//! JWT of the user the flow is for (a form POST of `ticket` and `token`
//! from the user's app, or a GET with `Authorization: Bearer`), sets a
//! cookie bound to the flow and goes to the provider: the ticket alone is
//! not enough. The provider sends the browser back to `callback`, which
//! stores the token only for the browser that began. `disconnect` deletes
//! (and revokes) the caller's token. The flow itself is
//! `tools::mcp::oauth`.

use actix_web::http::StatusCode;
use actix_web::http::header::{
    AUTHORIZATION, CACHE_CONTROL, CONTENT_SECURITY_POLICY, COOKIE as COOKIE_HEADER, LOCATION,
    SET_COOKIE,
};
use actix_web::{HttpRequest, HttpResponse, web};
use confer_actors::McpServerId;
use serde::{Deserialize, Serialize};

use crate::api::extract::JsonBody;
use crate::auth::{Caller, JwtCaller};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::mcps::{McpServer, OAuthMode};
use crate::store::oauth::TokenOwner;
use crate::tools::mcp::oauth::{BeginRefusal, CallbackRefusal, html_escape};

/// `start` and `disconnect` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForServer {
    mcp_server_id: McpServerId,
}

/// The `start` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Started {
    /// A single-use Confer URL, valid 10 minutes, for the user's browser.
    authorization_url: String,
}

/// The `disconnect` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Disconnected {
    ok: bool,
    /// Whether there was a token to delete.
    disconnected: bool,
}

/// `begin`'s query.
#[derive(Deserialize, utoipa::IntoParams)]
pub struct Ticket {
    ticket: String,
}

/// `begin`'s form (`application/x-www-form-urlencoded`): the ticket and
/// the JWT of the user it is for.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct BeginForm {
    ticket: String,
    token: String,
}

/// `callback`'s query (the provider's).
#[derive(Deserialize, utoipa::IntoParams)]
pub struct Callback {
    code: Option<String>,
    state: Option<String>,
}

/// The server and whose token the caller's flow is for: the caller's own
/// for `per_user`, the org's for `org` (an admin's JWT only).
async fn server_and_owner(
    state: &AppState,
    caller: &Caller,
    id: McpServerId,
) -> Result<(McpServer, TokenOwner), ApiError> {
    let org = caller.org_id;
    let server = state
        .store
        .mcps()
        .mcp(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("MCP server"))?;
    let user = caller
        .jwt_user()
        .ok_or_else(|| ApiError::Forbidden("requires a JWT".into()))?;
    let owner = match server.oauth {
        OAuthMode::None => {
            return Err(ApiError::invalid(
                "mcpServerId",
                "the server does not use managed OAuth (oauth: none)",
            ));
        }
        OAuthMode::Org if !user.admin => {
            return Err(ApiError::Forbidden(
                "requires the admin role: the server's token is the org's".into(),
            ));
        }
        OAuthMode::Org => TokenOwner::Org,
        OAuthMode::PerUser => TokenOwner::User(user.sub.clone()),
    };
    Ok((server, owner))
}

/// `POST /api/mcps/managed-oauth/start`
#[utoipa::path(post, path = "/api/mcps/managed-oauth/start", tag = "mcps", operation_id = "mcp_oauth_start", security(("bearer" = ["jwt"])), request_body = ForServer, responses((status = 200, description = "The URL to open in the user's browser", body = Started), (status = 403, description = "`FORBIDDEN`: an API key, or a user's JWT for an `org` server", body = crate::error::ErrorBody<'static>)))]
pub async fn start(
    state: web::Data<AppState>,
    caller: JwtCaller,
    body: JsonBody<ForServer>,
) -> Result<HttpResponse, ApiError> {
    let (server, owner) =
        server_and_owner(&state, &caller, body.into_inner().mcp_server_id).await?;
    let user = caller.user_id();
    let url = state
        .mcps
        .oauth()
        .start(&server, owner, user)
        .await
        .map_err(|e| {
            ApiError::invalid(
                "mcpServerId",
                format!("the server's authorization server could not be used: {e}"),
            )
        })?;
    Ok(HttpResponse::Ok().json(Started {
        authorization_url: url,
    }))
}

/// The flow cookie the browser brought, if any.
fn cookie_of(request: &HttpRequest, name: &str) -> Option<String> {
    request
        .headers()
        .get_all(COOKIE_HEADER)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.to_owned())
}

/// A page for the user's browser: `Content-Security-Policy: default-src
/// 'none'`, never cached; it clears the flow cookie.
fn page(state: &AppState, status: StatusCode, title: &str, text: &str) -> HttpResponse {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><h1>{title}</h1><p>{text}</p></body></html>",
        title = html_escape(title),
        text = html_escape(text),
    );
    HttpResponse::build(status)
        .insert_header((CONTENT_SECURITY_POLICY, "default-src 'none'"))
        .insert_header((CACHE_CONTROL, "no-store"))
        .insert_header((SET_COOKIE, state.mcps.oauth().set_cookie("", 0)))
        .content_type("text/html; charset=utf-8")
        .body(body)
}

/// `GET /api/mcps/managed-oauth/begin?ticket=` with `Authorization:
/// Bearer <JWT>` of the user the flow is for: sets the flow's cookie and
/// sends the browser to the provider (a ticket works once).
#[utoipa::path(get, path = "/api/mcps/managed-oauth/begin", tag = "mcps", operation_id = "mcp_oauth_begin", params(Ticket), responses((status = 302, description = "To the provider, with the flow's cookie set"), (status = 400, description = "An HTML page: the link is unknown, used or expired"), (status = 401, description = "An HTML page: no JWT of the flow's user came with the link"), (status = 403, description = "An HTML page: the link is another user's")))]
pub async fn begin(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<Ticket>,
) -> HttpResponse {
    let token = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim);
    begin_as(&state, &query.ticket, token).await
}

/// `POST /api/mcps/managed-oauth/begin` (form `ticket`, `token`: the JWT
/// of the user the flow is for), as a browser's top-level navigation from
/// the user's app: what `GET` does, without the JWT in a URL.
#[utoipa::path(post, path = "/api/mcps/managed-oauth/begin", tag = "mcps", operation_id = "mcp_oauth_begin_form", request_body(content = BeginForm, content_type = "application/x-www-form-urlencoded"), responses((status = 302, description = "To the provider, with the flow's cookie set"), (status = 400, description = "An HTML page: the link is unknown, used or expired"), (status = 401, description = "An HTML page: no JWT of the flow's user came with the link"), (status = 403, description = "An HTML page: the link is another user's")))]
pub async fn begin_form(state: web::Data<AppState>, form: web::Form<BeginForm>) -> HttpResponse {
    begin_as(&state, &form.ticket, Some(form.token.trim())).await
}

/// `begin` for whoever `token` proves to be.
async fn begin_as(state: &AppState, ticket: &str, token: Option<&str>) -> HttpResponse {
    let user = token
        .filter(|t| !t.is_empty())
        .zip(state.jwt.as_ref())
        .and_then(|(token, verifier)| verifier.verify(token).ok());
    let Some(user) = user else {
        return page(
            state,
            StatusCode::UNAUTHORIZED,
            "Sign-in needs your session",
            "Open this sign-in link from the app you are signed in to.",
        );
    };
    let oauth = state.mcps.oauth();
    match oauth.begin(ticket, &user).await {
        Ok((cookie, provider)) => HttpResponse::Found()
            .insert_header((LOCATION, provider))
            .insert_header((CACHE_CONTROL, "no-store"))
            .insert_header((SET_COOKIE, oauth.set_cookie(&cookie, 600)))
            .finish(),
        Err(BeginRefusal::Unknown) => page(
            state,
            StatusCode::BAD_REQUEST,
            "Sign-in link not valid",
            "This sign-in link is unknown, was already used, or expired. Start again from the conversation.",
        ),
        Err(BeginRefusal::OtherUser) => page(
            state,
            StatusCode::FORBIDDEN,
            "Sign-in link not yours",
            "This sign-in link was made for another user. Start again from your own conversation.",
        ),
    }
}

/// `GET /api/mcps/managed-oauth/callback?code&state`: stores the token
/// when the browser brings the flow's cookie; an HTML page either way.
#[utoipa::path(get, path = "/api/mcps/managed-oauth/callback", tag = "mcps", operation_id = "mcp_oauth_callback", params(Callback), responses((status = 200, description = "An HTML page: connected"), (status = 400, description = "An HTML page: nothing stored, and why")))]
pub async fn callback(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<Callback>,
) -> HttpResponse {
    let refused = |why: CallbackRefusal| {
        page(
            &state,
            StatusCode::BAD_REQUEST,
            "Not connected",
            why.reason(),
        )
    };
    let Some(flow_state) = query.state.as_deref() else {
        return refused(CallbackRefusal::UnknownState);
    };
    let oauth = state.mcps.oauth();
    let cookie = cookie_of(&request, oauth.cookie_name());
    match oauth
        .callback(query.code.as_deref(), flow_state, cookie.as_deref())
        .await
    {
        Ok(connected) => {
            state.mcps.token_changed(connected.org, connected.server);
            let whom = match &connected.owner {
                TokenOwner::User(user) => format!("for {user}"),
                TokenOwner::Org => "for your organization".to_owned(),
            };
            page(
                &state,
                StatusCode::OK,
                "Connected",
                &format!(
                    "{} is connected {whom}. You can close this page and send your message again.",
                    connected.server_name
                ),
            )
        }
        Err(why) => refused(why),
    }
}

/// `POST /api/mcps/managed-oauth/disconnect`: deletes (and, where the
/// provider allows, revokes) the caller's token for the server.
#[utoipa::path(post, path = "/api/mcps/managed-oauth/disconnect", tag = "mcps", operation_id = "mcp_oauth_disconnect", security(("bearer" = ["jwt"])), request_body = ForServer, responses((status = 200, description = "Whether a token was deleted", body = Disconnected)))]
pub async fn disconnect(
    state: web::Data<AppState>,
    caller: JwtCaller,
    body: JsonBody<ForServer>,
) -> Result<HttpResponse, ApiError> {
    let (server, owner) =
        server_and_owner(&state, &caller, body.into_inner().mcp_server_id).await?;
    let disconnected = state
        .mcps
        .oauth()
        .disconnect(&server, &owner)
        .await
        .map_err(|e| {
            ApiError::invalid(
                "mcpServerId",
                format!("the token could not be deleted: {e}"),
            )
        })?;
    state.mcps.token_changed(server.org_id, server.id);
    Ok(HttpResponse::Ok().json(Disconnected {
        ok: true,
        disconnected,
    }))
}
