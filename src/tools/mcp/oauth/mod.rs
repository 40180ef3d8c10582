//! Managed OAuth for MCP servers (`tools.md` §8): Confer is the OAuth
//! client of a server's authorization server, on behalf of each end user
//! (`oauth: per_user`) or of the org (`oauth: org`).
//!
//! - Discovery: the server's protected-resource metadata (RFC 9728) names
//!   its authorization server, whose metadata (RFC 8414) names the
//!   endpoints; without the first, the server's origin is taken as the
//!   authorization server (as the MCP specification allows).
//! - The client: the server's `oauthClient` when configured, else one
//!   registered dynamically (RFC 7591), kept per server.
//! - A flow: PKCE S256, `resource` = the server's URL (RFC 8707), a random
//!   `state` bound to the org, user and server, single use, 10 minutes. The
//!   user is sent to a single-use Confer `begin` URL that sets a cookie
//!   bound to the state, so the browser that finishes is the one that
//!   began; at most [`MAX_FLOWS_PER_OWNER`] flows wait per user.
//! - Tokens are stored sealed, refreshed when used within
//!   [`REFRESH_BEFORE`] of their expiry (a failed refresh deletes them).
//!
//! Every call goes through the outbound policy; no error carries a token,
//! a code or a provider's text.

mod flows;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::{McpServerId, OrgId};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use self::flows::{Flow, Flows, challenge_of, random, same};
use crate::auth::jwt::JwtUser;
use crate::outbound::{Outbound, read_capped};
use crate::store::Store;
use crate::store::mcps::McpServer;
use crate::store::oauth::{OAuthRegistration, OpenToken, TokenOwner};

/// How long a flow may take, from `start` to the callback.
pub const FLOW_TTL: Duration = Duration::from_secs(600);
/// Flows one user may have waiting; a new one cancels the oldest.
pub const MAX_FLOWS_PER_OWNER: usize = 5;
/// Flows waiting in all; past it the oldest is cancelled.
pub const MAX_FLOWS: usize = 10_000;
/// A token this close to its expiry is refreshed before it is used.
pub const REFRESH_BEFORE: chrono::TimeDelta = chrono::TimeDelta::minutes(2);
/// Locks that serialize token reads and refreshes (by a hash of the server
/// and owner).
const REFRESH_STRIPES: usize = 64;
/// The cookie that binds a flow to its browser, when Confer is reached
/// over https (`__Host-`: `Secure`, path `/`, no domain).
pub const SECURE_COOKIE: &str = "__Host-confer_oauth";
/// The same over plain http (a browser drops a `Secure` cookie set over
/// http, and `__Host-` needs `Secure`).
pub const PLAIN_COOKIE: &str = "confer_oauth";
/// The longest token lifetime believed (`expires_in` is clamped to it).
pub const MAX_TOKEN_LIFETIME: chrono::TimeDelta = chrono::TimeDelta::days(365);
/// The callback's path under the public URL.
pub const CALLBACK_PATH: &str = "/api/mcps/managed-oauth/callback";
/// The begin route's path under the public URL.
pub const BEGIN_PATH: &str = "/api/mcps/managed-oauth/begin";
/// Bytes of a metadata or token answer read at most.
const ANSWER_CAP: usize = 64 * 1024;
/// How long one call to an authorization server may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a step of OAuth failed; never carries a secret or provider text.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct OAuthError(pub String);

fn fail(why: impl Into<String>) -> OAuthError {
    OAuthError(why.into())
}

/// Why a `begin` sent nobody to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeginRefusal {
    /// Unknown, used or expired.
    Unknown,
    /// The flow is another user's (or another org's).
    OtherUser,
}

/// Why a callback stored nothing: a fixed sentence for the user's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackRefusal {
    UnknownState,
    Expired,
    OtherBrowser,
    Denied,
    ExchangeFailed,
}

impl CallbackRefusal {
    /// The sentence the page shows.
    pub fn reason(self) -> &'static str {
        match self {
            Self::UnknownState => "This sign-in link is unknown or was already used.",
            Self::Expired => {
                "This sign-in took longer than 10 minutes. Start again from the conversation."
            }
            Self::OtherBrowser => {
                "This sign-in was started in another browser. Start again from the conversation in this browser."
            }
            Self::Denied => "The provider did not grant access.",
            Self::ExchangeFailed => {
                "The provider's answer could not be used. Start again from the conversation."
            }
        }
    }
}

/// A finished flow: who connected which server.
pub struct Connected {
    pub org: OrgId,
    pub server: McpServerId,
    pub server_name: String,
    pub owner: TokenOwner,
}

/// `{origin}/.well-known/{name}{path}` (RFC 8615's insertion, as RFC 9728
/// and RFC 8414 place metadata for a URL with a path).
fn well_known(url: &url::Url, name: &str) -> String {
    let path = url.path().trim_end_matches('/');
    format!(
        "{}/.well-known/{name}{path}",
        url.origin().ascii_serialization()
    )
}

#[derive(Deserialize)]
struct ServerMetadata {
    issuer: Option<String>,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    revocation_endpoint: Option<String>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    /// Seconds; any JSON number (`3600`, `3.6e3`, `1e18`), clamped.
    expires_in: Option<f64>,
    refresh_token: Option<String>,
    scope: Option<String>,
}

/// See the module's documentation.
pub struct ManagedOAuth {
    store: Store,
    outbound: Outbound,
    /// Where users' browsers reach Confer (`CONFER_PUBLIC_URL`).
    public_url: String,
    flows: Mutex<Flows>,
    /// One token's reads and refreshes at a time, per (server, owner)
    /// stripe: the calls of one step run together, and a provider that
    /// rotates refresh tokens accepts each one only once.
    refreshing: Vec<tokio::sync::Mutex<()>>,
}

impl ManagedOAuth {
    /// Flows for Confer at `public_url`.
    pub fn new(store: Store, outbound: Outbound, public_url: &str) -> Self {
        Self {
            store,
            outbound,
            public_url: public_url.trim_end_matches('/').to_owned(),
            flows: Mutex::default(),
            refreshing: (0..REFRESH_STRIPES)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
        }
    }

    fn flows(&self) -> std::sync::MutexGuard<'_, Flows> {
        // A panic while holding it leaves plain maps behind.
        self.flows
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The redirect URI every flow uses.
    pub fn redirect_uri(&self) -> String {
        format!("{}{CALLBACK_PATH}", self.public_url)
    }

    /// Flows waiting now.
    pub fn pending(&self) -> usize {
        self.flows().by_state.len()
    }

    async fn get_json(&self, url: &str) -> Result<Value, OAuthError> {
        let request = self
            .outbound
            .request(reqwest::Method::GET, url)
            .map_err(|e| fail(e.to_string()))?
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(CALL_TIMEOUT);
        let response = self
            .outbound
            .send(request)
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !response.status().is_success() {
            return Err(fail(format!("http {}", response.status().as_u16())));
        }
        let body = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| fail(e.to_string()))?;
        serde_json::from_slice(&body).map_err(|_| fail("an answer that is not JSON"))
    }

    async fn post(
        &self,
        url: &str,
        build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<Value, OAuthError> {
        let request = self
            .outbound
            .request(reqwest::Method::POST, url)
            .map_err(|e| fail(e.to_string()))?
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(CALL_TIMEOUT);
        let response = self
            .outbound
            .send(build(request))
            .await
            .map_err(|e| fail(e.to_string()))?;
        let status = response.status();
        let body = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !status.is_success() {
            return Err(fail(format!("http {}", status.as_u16())));
        }
        if body.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&body).map_err(|_| fail("an answer that is not JSON"))
    }

    /// The authorization server's metadata for the MCP server at `url`.
    async fn discover(&self, url: &str) -> Result<ServerMetadata, OAuthError> {
        let resource = url::Url::parse(url).map_err(|_| fail("the server's url"))?;
        let mut issuer = None;
        for candidate in [
            well_known(&resource, "oauth-protected-resource"),
            format!(
                "{}/.well-known/oauth-protected-resource",
                resource.origin().ascii_serialization()
            ),
        ] {
            if let Ok(metadata) = self.get_json(&candidate).await
                && let Some(first) = metadata["authorization_servers"]
                    .as_array()
                    .and_then(|all| all.first())
                    .and_then(Value::as_str)
            {
                issuer = Some(first.to_owned());
                break;
            }
        }
        let issuer = issuer.unwrap_or_else(|| resource.origin().ascii_serialization());
        let issuer_url = url::Url::parse(&issuer).map_err(|_| fail("the issuer's url"))?;
        for candidate in [
            well_known(&issuer_url, "oauth-authorization-server"),
            well_known(&issuer_url, "openid-configuration"),
        ] {
            let Ok(metadata) = self.get_json(&candidate).await else {
                continue;
            };
            let metadata: ServerMetadata = serde_json::from_value(metadata)
                .map_err(|_| fail("the authorization server's metadata lacks an endpoint"))?;
            let expected = issuer.trim_end_matches('/');
            if metadata
                .issuer
                .as_deref()
                .is_some_and(|i| i.trim_end_matches('/') != expected)
            {
                return Err(fail(
                    "the authorization server's metadata names another issuer",
                ));
            }
            return Ok(metadata);
        }
        Err(fail("no authorization server metadata found"))
    }

    /// The server's client at its authorization server: the stored one
    /// when it was made for today's redirect URI, else discovered and
    /// configured or registered now (and stored).
    async fn registration(&self, server: &McpServer) -> Result<OAuthRegistration, OAuthError> {
        let (org, id) = (server.org_id, server.id);
        let stored = self
            .store
            .run(move |s| s.oauth_registration(org, id))
            .await
            .map_err(|_| fail("the store"))?;
        let redirect_uri = self.redirect_uri();
        if let Some(stored) = stored
            && stored.redirect_uri == redirect_uri
        {
            return Ok(stored);
        }
        let url = server.url.as_deref().ok_or_else(|| fail("no url"))?;
        let metadata = self.discover(url).await?;
        let (client_id, client_secret, scope) = match &server.oauth_client {
            Some(client) => {
                let sealed = server.clone();
                let secret = self
                    .store
                    .run(move |s| s.mcp_oauth_client_secret(&sealed))
                    .await
                    .map_err(|_| fail("the client secret could not be opened"))?;
                (client.client_id.clone(), secret, client.scope.clone())
            }
            None => {
                let endpoint = metadata.registration_endpoint.as_deref().ok_or_else(|| {
                    fail("no client id is configured and the server offers no registration")
                })?;
                let body = json!({
                    "client_name": "Confer",
                    "redirect_uris": [redirect_uri],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                });
                let registered = self.post(endpoint, |r| r.json(&body)).await?;
                let client_id = registered["client_id"]
                    .as_str()
                    .ok_or_else(|| fail("the registration answered no client_id"))?
                    .to_owned();
                let secret = registered["client_secret"].as_str().map(str::to_owned);
                (client_id, secret, None)
            }
        };
        let registration = OAuthRegistration {
            issuer: metadata.issuer.unwrap_or_default(),
            authorization_endpoint: metadata.authorization_endpoint,
            token_endpoint: metadata.token_endpoint,
            revocation_endpoint: metadata.revocation_endpoint,
            client_id,
            client_secret,
            redirect_uri,
            scope,
        };
        let (kept, epoch) = (registration.clone(), server.oauth_epoch);
        let stored = self
            .store
            .write(move |s| s.put_oauth_registration(org, id, epoch, kept))
            .await
            .map_err(|_| fail("the store"))?;
        if !stored {
            return Err(fail("the server was changed or deleted meanwhile"));
        }
        Ok(registration)
    }

    /// Starts a flow of `owner` for `server`, which only `user` (a JWT
    /// `sub`) may begin: its single-use Confer `begin` URL.
    pub async fn start(
        &self,
        server: &McpServer,
        owner: TokenOwner,
        user: String,
    ) -> Result<String, OAuthError> {
        let registration = self.registration(server).await?;
        let resource = server.url.clone().unwrap_or_default();
        let (state, ticket, verifier) = (random()?, random()?, random()?);
        let mut provider = url::Url::parse(&registration.authorization_endpoint)
            .map_err(|_| fail("the authorization endpoint"))?;
        {
            let mut query = provider.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &registration.client_id)
                .append_pair("redirect_uri", &registration.redirect_uri)
                .append_pair("code_challenge", &challenge_of(&verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &resource);
            if let Some(scope) = &registration.scope {
                query.append_pair("scope", scope);
            }
        }
        let mut flows = self.flows();
        flows.make_room(server.org_id, &owner);
        flows.tickets.insert(ticket.clone(), state.clone());
        flows.by_state.insert(
            state,
            Flow {
                org: server.org_id,
                server: server.id,
                epoch: server.oauth_epoch,
                server_name: server.name.clone(),
                resource,
                owner,
                user,
                ticket: Some(ticket.clone()),
                verifier,
                cookie: None,
                provider_url: provider.into(),
                registration,
                created: Instant::now(),
            },
        );
        Ok(format!("{}{BEGIN_PATH}?ticket={ticket}", self.public_url))
    }

    /// The flow cookie's name: `__Host-` when Confer is reached over
    /// https, a plain name over http.
    pub fn cookie_name(&self) -> &'static str {
        if self.public_url.starts_with("https://") {
            SECURE_COOKIE
        } else {
            PLAIN_COOKIE
        }
    }

    /// The flow cookie's `Set-Cookie` value: `HttpOnly`, `SameSite=Lax`
    /// (the provider's redirect back is a top-level GET, which Lax lets
    /// through), path `/`; `Secure` (with the `__Host-` name) over https.
    pub fn set_cookie(&self, value: &str, max_age_secs: u32) -> String {
        let secure = if self.cookie_name() == SECURE_COOKIE {
            "; Secure"
        } else {
            ""
        };
        format!(
            "{}={value}; Path=/; Max-Age={max_age_secs}{secure}; HttpOnly; SameSite=Lax",
            self.cookie_name()
        )
    }

    /// Uses a ticket (once) for `user`, who must be the one the flow is for
    /// (in its org): the cookie value to set and the provider's
    /// authorization URL to send the browser to. A ticket brought by
    /// another user stays usable by its own.
    pub fn begin(&self, ticket: &str, user: &JwtUser) -> Result<(String, String), BeginRefusal> {
        let mut flows = self.flows();
        let state = flows
            .tickets
            .get(ticket)
            .cloned()
            .ok_or(BeginRefusal::Unknown)?;
        let flow = flows.by_state.get(&state).ok_or(BeginRefusal::Unknown)?;
        if flow.created.elapsed() > FLOW_TTL {
            flows.remove(&state);
            return Err(BeginRefusal::Unknown);
        }
        if flow.user != user.sub || !user.org_ids.contains(&flow.org) {
            return Err(BeginRefusal::OtherUser);
        }
        let cookie = random().map_err(|_| BeginRefusal::Unknown)?;
        flows.tickets.remove(ticket);
        let flow = flows
            .by_state
            .get_mut(&state)
            .ok_or(BeginRefusal::Unknown)?;
        flow.ticket = None;
        flow.cookie = Some(cookie.clone());
        Ok((cookie, flow.provider_url.clone()))
    }

    /// Finishes a flow (once): checks the browser's cookie, exchanges the
    /// code, stores the token. Anything amiss stores nothing; a browser
    /// without the flow's cookie does not use the flow up.
    pub async fn callback(
        &self,
        code: Option<&str>,
        state: &str,
        cookie: Option<&str>,
    ) -> Result<Connected, CallbackRefusal> {
        let flow = {
            let mut flows = self.flows();
            let flow = flows
                .by_state
                .get(state)
                .ok_or(CallbackRefusal::UnknownState)?;
            if flow.created.elapsed() > FLOW_TTL {
                flows.remove(state);
                return Err(CallbackRefusal::Expired);
            }
            let bound = flow.cookie.as_deref().zip(cookie);
            if !bound.is_some_and(|(expected, given)| same(expected, given)) {
                return Err(CallbackRefusal::OtherBrowser);
            }
            flows.remove(state).ok_or(CallbackRefusal::UnknownState)?
        };
        let code = code.ok_or(CallbackRefusal::Denied)?;
        let registration = &flow.registration;
        let mut form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("redirect_uri", registration.redirect_uri.clone()),
            ("code_verifier", flow.verifier.clone()),
            ("resource", flow.resource.clone()),
        ];
        let token = self
            .token_request(registration, &mut form)
            .await
            .map_err(|error| {
                tracing::warn!(server = %flow.server, %error, "an OAuth code exchange failed");
                CallbackRefusal::ExchangeFailed
            })?;
        let (org, server, owner) = (flow.org, flow.server, flow.owner.clone());
        let epoch = flow.epoch;
        // A server deleted or moved while its user was away keeps no token.
        let stored = self
            .store
            .write(move |s| s.put_oauth_token(org, server, epoch, &owner, &token))
            .await
            .map_err(|_| CallbackRefusal::ExchangeFailed)?;
        if !stored {
            return Err(CallbackRefusal::UnknownState);
        }
        Ok(Connected {
            org: flow.org,
            server: flow.server,
            server_name: flow.server_name,
            owner: flow.owner,
        })
    }

    /// POSTs a token request (the client authenticating with HTTP Basic
    /// when it has a secret, else by its id in the form).
    async fn token_request(
        &self,
        registration: &OAuthRegistration,
        form: &mut Vec<(&'static str, String)>,
    ) -> Result<OpenToken, OAuthError> {
        let secret = registration.client_secret.clone();
        if secret.is_none() {
            form.push(("client_id", registration.client_id.clone()));
        }
        let client_id = registration.client_id.clone();
        let body: Vec<(&str, String)> = form.clone();
        let answer = self
            .post(&registration.token_endpoint, move |request| {
                let request = form_body(request, &body);
                match &secret {
                    Some(secret) => request.basic_auth(client_id, Some(secret)),
                    None => request,
                }
            })
            .await?;
        let answer: TokenAnswer = serde_json::from_value(answer)
            .map_err(|_| fail("the token answer lacks access_token"))?;
        Ok(OpenToken {
            access_token: SecretString::from(answer.access_token),
            refresh_token: answer.refresh_token.map(SecretString::from),
            expires_at: answer.expires_in.map(|s| Utc::now() + lifetime(s)),
            scope: answer.scope,
        })
    }

    /// `owner`'s access token for `server`, refreshed first when it is
    /// within [`REFRESH_BEFORE`] of its expiry; `None` when there is none
    /// usable (a failed refresh deletes it).
    pub async fn token(
        &self,
        server: &McpServer,
        owner: &TokenOwner,
    ) -> Result<Option<SecretString>, OAuthError> {
        let _one_at_a_time = self.stripe(server.id, owner).lock().await;
        let (org, id, who) = (server.org_id, server.id, owner.clone());
        let stored = self
            .store
            .run(move |s| s.oauth_token(org, id, &who))
            .await
            .map_err(|_| fail("the store"))?;
        let Some(token) = stored else {
            return Ok(None);
        };
        let due = token
            .expires_at
            .is_some_and(|at| at - REFRESH_BEFORE <= Utc::now());
        if !due {
            return Ok(Some(token.access_token));
        }
        let refreshed = match &token.refresh_token {
            Some(refresh) => self.refresh(server, refresh).await,
            None => Err(fail("expired, and no refresh token")),
        };
        let who = owner.clone();
        match refreshed {
            Ok(mut fresh) => {
                if fresh.refresh_token.is_none() {
                    fresh.refresh_token = token.refresh_token.clone();
                }
                let (access, epoch) = (fresh.access_token.clone(), server.oauth_epoch);
                let stored = self
                    .store
                    .write(move |s| s.put_oauth_token(org, id, epoch, &who, &fresh))
                    .await
                    .map_err(|_| fail("the store"))?;
                // Refreshed for a server changed meanwhile: not used.
                Ok(stored.then_some(access))
            }
            Err(error) => {
                tracing::warn!(server = %id, %error, "an OAuth token could not be refreshed; it is deleted");
                self.store
                    .write(move |s| s.delete_oauth_token(org, id, &who))
                    .await
                    .map_err(|_| fail("the store"))?;
                Ok(None)
            }
        }
    }

    /// The lock of (server, owner)'s token.
    fn stripe(&self, server: McpServerId, owner: &TokenOwner) -> &tokio::sync::Mutex<()> {
        let digest = Sha256::digest(format!("{server}:{owner:?}").as_bytes());
        let at = usize::from(digest[0]) % self.refreshing.len();
        &self.refreshing[at]
    }

    async fn refresh(
        &self,
        server: &McpServer,
        refresh: &SecretString,
    ) -> Result<OpenToken, OAuthError> {
        let registration = self.registration(server).await?;
        let mut form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh.expose_secret().to_owned()),
            ("resource", server.url.clone().unwrap_or_default()),
        ];
        self.token_request(&registration, &mut form).await
    }

    /// Deletes `owner`'s token (revoking it first when the authorization
    /// server supports it); whether there was one.
    pub async fn disconnect(
        &self,
        server: &McpServer,
        owner: &TokenOwner,
    ) -> Result<bool, OAuthError> {
        let (org, id, who) = (server.org_id, server.id, owner.clone());
        let stored = self
            .store
            .run(move |s| {
                Ok((
                    s.oauth_token(org, id, &who)?,
                    s.oauth_registration(org, id)?,
                ))
            })
            .await
            .map_err(|_| fail("the store"))?;
        if let (Some(token), Some(registration)) = &stored
            && let Some(endpoint) = &registration.revocation_endpoint
        {
            let revoked = token
                .refresh_token
                .as_ref()
                .unwrap_or(&token.access_token)
                .expose_secret()
                .to_owned();
            let client_id = registration.client_id.clone();
            let outcome = self
                .post(endpoint, move |r| {
                    form_body(r, &[("token", revoked), ("client_id", client_id)])
                })
                .await;
            if let Err(error) = outcome {
                tracing::warn!(server = %id, %error, "revoking an OAuth token failed; deleted anyway");
            }
        }
        let who = owner.clone();
        self.store
            .write(move |s| s.delete_oauth_token(org, id, &who))
            .await
            .map_err(|_| fail("the store"))
    }
}

/// A token's lifetime from its `expires_in`: never negative, never past
/// [`MAX_TOKEN_LIFETIME`] (a provider's huge or odd value must not
/// overflow a date).
fn lifetime(expires_in: f64) -> chrono::TimeDelta {
    let max = MAX_TOKEN_LIFETIME.num_seconds();
    if expires_in.is_nan() || expires_in <= 0.0 {
        return chrono::TimeDelta::zero();
    }
    if expires_in >= max as f64 {
        return MAX_TOKEN_LIFETIME;
    }
    // In range: 0 < expires_in < one year of seconds.
    chrono::TimeDelta::seconds(expires_in as i64)
}

/// `request` with `pairs` as its `application/x-www-form-urlencoded` body.
fn form_body(
    request: reqwest::RequestBuilder,
    pairs: &[(&str, String)],
) -> reqwest::RequestBuilder {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    request
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
}

/// Escapes text for an HTML page.
pub fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_well_known_part() {
        let url = url::Url::parse("https://mcp.example/tools/mcp").unwrap();
        assert_eq!(
            well_known(&url, "oauth-protected-resource"),
            "https://mcp.example/.well-known/oauth-protected-resource/tools/mcp"
        );
        let root = url::Url::parse("https://as.example/").unwrap();
        assert_eq!(
            well_known(&root, "oauth-authorization-server"),
            "https://as.example/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn lifetimes_are_clamped() {
        assert_eq!(lifetime(60.0), chrono::TimeDelta::seconds(60));
        assert_eq!(lifetime(3.6e3), chrono::TimeDelta::seconds(3600));
        for huge in [1e18, f64::INFINITY, 9.3e18] {
            assert_eq!(lifetime(huge), MAX_TOKEN_LIFETIME);
        }
        for odd in [-5.0, f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(lifetime(odd), chrono::TimeDelta::zero());
        }
        let answer: TokenAnswer =
            serde_json::from_str(r#"{"access_token": "a", "expires_in": 1e18}"#).unwrap();
        let at = Utc::now() + lifetime(answer.expires_in.unwrap());
        assert!(at > Utc::now());
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            html_escape("<b>\"a\" & 'b'"),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;"
        );
    }
}
