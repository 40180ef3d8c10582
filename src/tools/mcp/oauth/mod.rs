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
//!   user is sent to a single-use Confer `begin` URL, which needs that
//!   user's JWT too and sets a cookie bound to the state, so the browser
//!   that finishes is the one that began; at most [`MAX_FLOWS_PER_OWNER`]
//!   flows wait per user.
//! - A registration or token is written only for the server's current
//!   `oauth_epoch`: one made for a server whose url, mode or client has
//!   changed since is refused.
//! - Tokens are stored sealed, refreshed when used within
//!   [`REFRESH_BEFORE`] of their expiry (a failed refresh deletes them).
//!
//! Every call goes through the outbound policy; no error carries a token,
//! a code or a provider's text.

mod discovery;
mod flows;
mod shared;
mod tokens;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use confer_actors::{McpServerId, OrgId};

use self::flows::{Flow, Flows, challenge_of, random, same};
use crate::auth::jwt::JwtUser;
use crate::outbound::Outbound;
use crate::store::Store;
use crate::store::mcps::McpServer;
use crate::store::oauth::TokenOwner;

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
    /// The operator's clients, used before dynamic registration.
    managed: std::sync::Arc<crate::tools::mcp::registry::managed::ManagedClients>,
}

impl ManagedOAuth {
    /// Flows for Confer at `public_url`.
    pub fn new(
        store: Store,
        outbound: Outbound,
        public_url: &str,
        managed: std::sync::Arc<crate::tools::mcp::registry::managed::ManagedClients>,
    ) -> Self {
        Self {
            store,
            outbound,
            managed,
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

    /// Flows waiting in this node's memory (on sled; PostgreSQL keeps
    /// them as rows).
    pub fn pending(&self) -> usize {
        self.flows().by_state.len()
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
        let flow = Flow {
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
        };
        if let Some(pg) = self.store.postgres() {
            self.keep_shared(pg, &state, &flow).await?;
        } else {
            let mut flows = self.flows();
            flows.make_room(server.org_id, &flow.owner);
            flows.tickets.insert(ticket.clone(), state.clone());
            flows.by_state.insert(state, flow);
        }
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
    pub async fn begin(
        &self,
        ticket: &str,
        user: &JwtUser,
    ) -> Result<(String, String), BeginRefusal> {
        if let Some(pg) = self.store.postgres() {
            return self.begin_shared(pg, ticket, user).await;
        }
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
        let flow = if let Some(pg) = self.store.postgres() {
            self.take_shared(pg, state, cookie).await?
        } else {
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
            .mcps()
            .put_oauth_token(org, server, epoch, owner, token)
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
    fn html_is_escaped() {
        assert_eq!(
            html_escape("<b>\"a\" & 'b'"),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;"
        );
    }
}
