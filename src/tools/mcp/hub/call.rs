//! The calls of turns: a tool of a server called for a turn's sender,
//! with the token that sender connected when the server wants one, and a
//! sign-in challenge when there is none.

use confer_actors::tools::{CallRequest, TIMEOUT_PREFIX, ToolOutput, ToolScope};
use confer_actors::trace::{SpanKind, Stamp};
use confer_actors::{AuthChallenge, ThreadEvent, ToolCall};
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::Value;

use super::pool::SessionKey;
use super::{McpHub, timeout_of};
use crate::store::mcps::{McpServer, OAuthMode};
use crate::store::oauth::TokenOwner;
use crate::tools::mcp::session::{describe, needs_auth};

/// The error result of a call whose server could not be reached.
pub const UNAVAILABLE: &str = "mcp server unavailable";
/// The error result of a call that needs a token no one can give now.
pub const AUTHORIZATION_REQUIRED: &str = "authorization required";

impl McpHub {
    /// Calls `tool` of `server` for the turn of `scope`; every failure is
    /// an error result, and a failed transport marks the server down. A
    /// server whose token is missing or refused asks the user to connect
    /// (`auth_challenge`, at most once per server per turn). Dropping the
    /// future (a stopped turn) cancels the call (`notifications/cancelled`).
    pub async fn call(
        &self,
        server: &McpServer,
        tool: &str,
        scope: &ToolScope,
        call: &ToolCall,
    ) -> ToolOutput {
        let Value::Object(arguments) = call.arguments.clone() else {
            return ToolOutput::error("arguments are not a JSON object");
        };
        let owner = match server.oauth {
            OAuthMode::None => None,
            OAuthMode::Org => Some(TokenOwner::Org),
            // A key that may not act for users sends as itself: no
            // person's token may serve it.
            OAuthMode::PerUser if !scope.end_user => {
                return ToolOutput::error(AUTHORIZATION_REQUIRED);
            }
            OAuthMode::PerUser => Some(TokenOwner::User(scope.user_id.clone())),
        };
        // Each request the call makes is a child of its tool span.
        let note = |name: &str, started: Stamp, error: Option<String>, rpc: Option<String>| {
            scope.notes.request(
                &call.id,
                CallRequest {
                    kind: SpanKind::Mcp,
                    name: name.to_owned(),
                    started,
                    ended: std::time::Instant::now(),
                    status_code: None,
                    rpc_error: rpc,
                    error,
                },
            );
        };
        let opening = Stamp::now();
        let session = match self.authorized_session(server, owner.as_ref()).await {
            Ok(session) => session,
            Err(error) if error.auth_required => {
                note("initialize", opening, Some(error.reason), None);
                return self.ask_to_connect(server, owner, scope, call).await;
            }
            Err(error) => {
                note("initialize", opening, Some(error.reason.clone()), None);
                self.failed(server, owner.as_ref(), error.reason);
                return ToolOutput::error(UNAVAILABLE);
            }
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let started = Stamp::now();
        let called =
            tokio::time::timeout(timeout_of(server), session.service.peer().call_tool(params))
                .await;
        match called {
            // The call's future was dropped: the SDK sent the cancellation.
            Err(_) => {
                let timed_out = format!("{TIMEOUT_PREFIX} {} ms", server.timeout_ms);
                note("tools/call", started, Some(timed_out.clone()), None);
                ToolOutput::error(timed_out)
            }
            Ok(Ok(result)) => {
                let failed = (result.is_error == Some(true)).then(|| "isError".to_owned());
                note("tools/call", started, failed, None);
                match serde_json::to_value(&result) {
                    Ok(wire) => crate::tools::mcp::results::output(&wire),
                    Err(_) => ToolOutput::error("invalid answer from the MCP server"),
                }
            }
            Ok(Err(ServiceError::McpError(error))) => {
                let message: String = error.message.chars().take(1024).collect();
                let code = error.code.0.to_string();
                note("tools/call", started, Some(message.clone()), Some(code));
                ToolOutput::error(format!("mcp error {}: {message}", error.code.0))
            }
            Ok(Err(error)) if needs_auth(&error) && owner.is_some() => {
                note("tools/call", started, Some(describe(&error)), None);
                // The token was refused: it is of no more use (its owner's
                // session alone closes).
                self.close_session(&SessionKey::of(server, owner.as_ref()));
                if let Some(owner) = &owner {
                    let (org, id, who) = (server.org_id, server.id, owner.clone());
                    let _ = self.store.mcps().delete_oauth_token(org, id, who).await;
                }
                self.ask_to_connect(server, owner, scope, call).await
            }
            Ok(Err(error)) => {
                note("tools/call", started, Some(describe(&error)), None);
                self.failed(server, owner.as_ref(), describe(&error));
                ToolOutput::error(UNAVAILABLE)
            }
        }
    }

    /// The answer of a call that needs a token: a user is asked to connect
    /// (once per server per turn); the org's flow is an admin's to run.
    async fn ask_to_connect(
        &self,
        server: &McpServer,
        owner: Option<TokenOwner>,
        scope: &ToolScope,
        call: &ToolCall,
    ) -> ToolOutput {
        let Some(TokenOwner::User(user)) = owner else {
            return ToolOutput::error(AUTHORIZATION_REQUIRED);
        };
        let pending = ToolOutput::error(format!(
            "authorization pending: the user was asked to connect {}",
            server.name
        ));
        if !scope.notes.first_challenge(&server.slug) {
            return pending;
        }
        let owner = TokenOwner::User(user.clone());
        match self.oauth.start(server, owner, user).await {
            Ok(redirect_url) => {
                scope.notes.announce(
                    &call.id,
                    ThreadEvent::AuthChallenge {
                        tool_name: call.name.clone(),
                        challenge: Box::new(AuthChallenge {
                            provider: server.slug.clone(),
                            redirect_url,
                            description: Some(format!("Connect {} to continue", server.name)),
                        }),
                    },
                );
                pending
            }
            Err(error) => {
                tracing::warn!(server = %server.id, %error, "an OAuth flow could not start");
                ToolOutput::error(AUTHORIZATION_REQUIRED)
            }
        }
    }

    /// A contact failed outside a listing. A user's session failing closes
    /// that session only: one user's refused token or broken stream says
    /// nothing of the server for the others. Otherwise the server is down
    /// until a listing answers.
    fn failed(&self, server: &McpServer, owner: Option<&TokenOwner>, reason: String) {
        if let Some(user @ TokenOwner::User(_)) = owner {
            tracing::warn!(server = %server.id, %reason, "a user's MCP session failed; closed");
            self.close_session(&SessionKey::of(server, Some(user)));
            return;
        }
        tracing::warn!(server = %server.id, %reason, "an MCP server is down");
        self.close_sessions(server.id);
        let (org, id) = (server.org_id, server.id);
        let store = self.store.clone();
        let hub = self.me.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let _ = store.mcps().record_mcp_contact(org, id, Err(reason)).await;
            if let Some(hub) = hub.upgrade() {
                hub.forget(org);
                hub.refresh(org, id);
            }
        });
    }
}
