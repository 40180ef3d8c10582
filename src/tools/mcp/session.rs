//! One MCP session: opening it over its server's transport (streamable
//! HTTP on the outbound policy's client, the older HTTP+SSE transport, or
//! an allow-listed child's standard streams), with the server's credentials
//! and, for OAuth servers, a bearer token; and telling why a contact failed
//! without quoting a URL, a header or a body.

use std::sync::Weak;

use confer_actors::{McpServerId, OrgId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, StreamableHttpClientTransportConfig,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use super::hub::McpHub;
use super::sse::{self, SseError};
use super::stdio::{self, StdioChild, StdioConfig};
use crate::outbound::{Outbound, OutboundError};
use crate::store::Store;
use crate::store::mcps::{McpCredentials, McpServer, McpTransport};

/// Largest message a server may send (a JSON answer, an event, a line).
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// An open MCP session; closing it (dropping) ends the child of a stdio
/// server with its process group.
pub struct Session {
    pub(super) service: RunningService<RoleClient, Listener>,
    _child: Option<StdioChild>,
    /// The SHA-256 of the bearer token it was opened with, if any: a
    /// refreshed token opens a new session.
    pub(super) bearer: Option<[u8; 32]>,
    /// The `updated_at` of the server record it was opened for: a server
    /// changed since (on any node: turns read the record again once the
    /// cluster says so) opens a new session.
    pub(super) opened_for: chrono::DateTime<chrono::Utc>,
}

/// Why a contact failed.
#[derive(Debug)]
pub struct ContactError {
    /// Words without URL, header or body.
    pub reason: String,
    /// The server answered 401: it wants a (new) token.
    pub auth_required: bool,
}

impl From<String> for ContactError {
    fn from(reason: String) -> Self {
        Self {
            reason,
            auth_required: false,
        }
    }
}

impl ContactError {
    pub(super) fn of(error: &(dyn std::error::Error + 'static)) -> Self {
        Self {
            reason: describe(error),
            auth_required: needs_auth(error),
        }
    }

    pub(super) fn authorization_required() -> Self {
        Self {
            reason: "authorization required".into(),
            auth_required: true,
        }
    }
}

pub(super) fn fingerprint(token: &SecretString) -> [u8; 32] {
    Sha256::digest(token.expose_secret().as_bytes()).into()
}

/// Told by a session of its server's notifications.
pub struct Listener {
    pub(super) hub: Weak<McpHub>,
    pub(super) org: OrgId,
    pub(super) server: McpServerId,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        if let Some(hub) = self.hub.upgrade() {
            hub.refresh(self.org, self.server);
        }
    }
}

/// Opens a session of `server` (its credentials opened from `store`),
/// `bearer` as its `Authorization` when given.
pub(super) async fn open_session(
    store: &Store,
    outbound: &Outbound,
    stdio: &StdioConfig,
    listener: Listener,
    server: &McpServer,
    bearer: Option<&SecretString>,
) -> Result<Session, ContactError> {
    let credentials =
        crate::store::mcps::credentials_of(&store.secrets(), server).map_err(|_| {
            ContactError::from("the server's credentials could not be opened".to_owned())
        })?;
    let url = || server.url.as_deref().ok_or_else(|| "no url".to_owned());
    let mut headers = header_map(&credentials)?;
    if let Some(bearer) = bearer {
        let mut value = HeaderValue::try_from(format!("Bearer {}", bearer.expose_secret()))
            .map_err(|_| "the token is not a valid header value".to_owned())?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let fingerprint = bearer.map(fingerprint);
    let (service, child) = match server.transport {
        McpTransport::StreamableHttp => {
            let (client, url) = outbound.client_for(url()?).map_err(|e| e.to_string())?;
            let headers = headers
                .into_iter()
                .filter_map(|(name, value)| Some((name?, value)))
                .collect();
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(headers)
                .max_json_response_size(MAX_MESSAGE_BYTES)
                .max_sse_event_size(MAX_MESSAGE_BYTES);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            (serve(listener, transport).await?, None)
        }
        McpTransport::Sse => {
            let transport = sse::connect(outbound, url()?, headers)
                .await
                .map_err(|e| ContactError::of(&e))?;
            (serve(listener, transport).await?, None)
        }
        McpTransport::Stdio => {
            let command = server.command.as_deref().unwrap_or_default();
            // Checked again at each start: the operator may have
            // narrowed the list since the server was created.
            if !stdio.allow.allows(command, &server.args) {
                return Err(ContactError::from(
                    "the command is not on the operator's stdio allow-list".to_owned(),
                ));
            }
            let (child, stdout, stdin) = stdio::spawn(
                stdio,
                &server.id.to_string(),
                command,
                &server.args,
                &credentials.env,
            )
            .map_err(|_| ContactError::from("the command could not be started".to_owned()))?;
            let transport =
                AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(MAX_MESSAGE_BYTES);
            (serve(listener, transport).await?, Some(child))
        }
    };
    Ok(Session {
        service,
        _child: child,
        bearer: fingerprint,
        opened_for: server.updated_at,
    })
}

/// The MCP handshake over `transport`, as a client.
async fn serve<T, E, A>(
    listener: Listener,
    transport: T,
) -> Result<RunningService<RoleClient, Listener>, ContactError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    listener
        .serve(transport)
        .await
        .map_err(|e| ContactError::of(&e))
}

/// The credentials' headers as a header map (names and values were
/// checked when they were written).
fn header_map(credentials: &McpCredentials) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    for (name, value) in &credentials.headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|_| "a credential header's name is not valid".to_owned())?;
        let mut value = HeaderValue::try_from(value.as_str())
            .map_err(|_| "a credential header's value is not valid".to_owned())?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}

/// Whether the server answered 401 somewhere in `error`'s chain.
pub(super) fn needs_auth(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.downcast_ref::<AuthRequiredError>().is_some()
            || matches!(
                error.downcast_ref::<SseError>(),
                Some(SseError::Status(401))
            )
        {
            return true;
        }
        cause = error.source();
    }
    false
}

/// Why a contact failed, in words that carry no URL, header or body: the
/// SDK's errors may quote the URL (and its query), so only what is
/// recognised in the error's chain is told.
pub(super) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(error) = error.downcast_ref::<reqwest::Error>() {
            return OutboundError::transport(error).to_string();
        }
        if let Some(error) = error.downcast_ref::<OutboundError>() {
            return error.to_string();
        }
        if let Some(error) = error.downcast_ref::<SseError>() {
            return error.to_string();
        }
        if let Some(error) = error.downcast_ref::<HttpStatusError>() {
            return format!("http {}", error.status);
        }
        if error.downcast_ref::<AuthRequiredError>().is_some() {
            return "http 401: authorization required".into();
        }
        if let Some(error) = error.downcast_ref::<std::io::Error>() {
            return format!("i/o error: {}", error.kind());
        }
        cause = error.source();
    }
    "the server did not complete the MCP exchange".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_told_without_urls() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "at https://x/?k=s");
        let told = describe(&io);
        assert_eq!(told, "i/o error: connection refused");
        assert!(!told.contains("k=s"));
    }
}
